# errdex at the moment of failure (errdex.hook): a real package installed by pip into a
# directory of its own, real scripts run by `python -m errdex run` and by pytest in
# subprocesses, and the section under each traceback checked for the right raise site,
# the values that filled the message and the inputs' current values. What errdex adds
# never changes the user's traceback or exit status.
from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import importlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import errdex.hook
from errdex import places
from errdex.hook import _core, _values
from errdex.index import index_source
from errdex.markup import clip, printable
from errdex.store import open_store

PACKAGE = '''
"""Boxes that check their size."""


class Box:
    """A box of some size."""

    def __init__(self, size: int) -> None:
        self.size = size

    def check(self) -> None:
        size = self.size
        if self.size < 0:
            raise ValueError(f"size must be non-negative, got {size}")


class ConfigError(Exception):
    """The configuration is wrong."""


def configure(size: int) -> None:
    try:
        Box(size).check()
    except ValueError as exc:
        raise ConfigError(f"bad configuration: {exc}") from exc


def again(size: int) -> None:
    try:
        Box(size).check()
    except ValueError:
        raise


def parse(text: str) -> int:
    return int(text)


def check_all(sizes: list[int]) -> None:
    errors: list[Exception] = []
    for size in sizes:
        try:
            Box(size).check()
        except ValueError as exc:
            errors.append(exc)
    if errors:
        raise ExceptionGroup(f"{len(errors)} boxes are bad", errors)


def _fail(message: str) -> None:
    raise RuntimeError(message)


def limit(n: int) -> None:
    if n > 10:
        _fail(f"n must be at most 10, got {n}")


class Unprintable(Exception):
    """An error whose text cannot be had."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def unprintable(code: int) -> None:
    if code < 0:
        raise Unprintable(f"code {code} is negative")


def shout(size: int) -> None:
    text = "A" * size
    if size > 10:
        raise ValueError(f"too loud: {text}")
'''

SCRIPT = """\
import mypkg

mypkg.Box(-3).check()
"""


def build_wheel(src: Path, out: Path) -> Path:
    """A wheel of src/mypkg, written as the format says (setuptools here is too old to
    build one offline, and pip installs a wheel without any build backend)."""
    files = {
        "mypkg/__init__.py": (src / "mypkg" / "__init__.py").read_bytes(),
        "mypkg-0.1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1.0\n",
        "mypkg-0.1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: errdex-tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("mypkg-0.1.0.dist-info/RECORD,,")
    files["mypkg-0.1.0.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = out / "mypkg-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """mypkg 0.1.0 installed by pip into a directory of its own."""
    root = tmp_path_factory.mktemp("mypkg")
    src = root / "src"
    (src / "mypkg").mkdir(parents=True)
    (src / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "mypkg"\nversion = "0.1.0"\n'
    )
    (src / "mypkg" / "__init__.py").write_text(PACKAGE.lstrip())
    target = root / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(target), str(build_wheel(src, root))],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (target / "mypkg-0.1.0.dist-info" / "RECORD").is_file()
    return target


def _env(site: Path, db: Path, **extra: str) -> dict[str, str]:
    """The environment of a run: mypkg importable, the database `db`, and a cache of its
    own beside it (the hook keeps its answers and starts its jobs there)."""
    env = _bare_env(db)
    env.update(PYTHONPATH=os.pathsep.join((str(site), HERE)), **extra)
    return env


HERE = str(Path(errdex.__file__).resolve().parent.parent)  # the errdex these tests test


def _bare_env(db: Path) -> dict[str, str]:
    """An environment with no errdex or pytest settings but the database `db`, a cache
    beside it, and this errdex importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ERRDEX_", "PYTEST_"))}
    env.update(
        PYTHONPATH=HERE, ERRDEX_DB=str(db), ERRDEX_CACHE=str(db.parent / "cache"), NO_COLOR="1"
    )
    return env


def _python(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=300,
    )


def settle(cache: Path, deadline: float = 300.0) -> None:
    """Wait (polling, with a deadline) until every background job started under the
    cache dir `cache` has ended: each launch is a line of its log, each end another."""
    end = time.monotonic() + deadline
    for log in sorted(cache.glob("hook/*/index.log")):
        while True:
            lines = log.read_text().splitlines()
            launched = sum(line == "launched" for line in lines)
            if launched == sum(line.startswith("ended: ") for line in lines):
                break
            assert time.monotonic() < end, f"a job did not end: {log.read_text()}"
            time.sleep(0.05)


@pytest.fixture(autouse=True)
def _no_job_left(tmp_path: Path) -> Iterator[None]:
    """No background job a test started outlives it (nor its tmp folder)."""
    yield
    for cache in tmp_path.glob("**/cache"):
        settle(cache)


def _extra(
    ran: subprocess.CompletedProcess[str], plain: subprocess.CompletedProcess[str]
) -> list[str]:
    """What errdex printed after the traceback python prints, which comes first, whole."""
    assert ran.returncode == plain.returncode
    assert ran.stderr.startswith(plain.stderr), ran.stderr
    assert ran.stdout == plain.stdout
    return ran.stderr[len(plain.stderr) :].splitlines()


HEAD = "── errdex: ValueError raised at mypkg/__init__.py:13 in Box.check (mypkg 0.1.0)"
ALONE = (
    "from __init__.py alone; mypkg 0.1.0 is being indexed in the background,"
    " for the full answer next time"
)


def test_the_first_failure_is_answered_from_its_file_and_the_next_from_the_index(
    site_dir: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    db = tmp_path / "errdex.sqlite"
    env = _env(site_dir, db)
    plain = _python(str(script), cwd=tmp_path, env=env)
    assert plain.returncode == 1
    first = _extra(_python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env), plain)
    # the raise site, from mypkg/__init__.py alone: nothing else of mypkg is read
    assert first[0] == HEAD
    assert "size must be non-negative, got {size}" in first
    assert any(line.startswith("When it happens: ") for line in first)
    assert "In the message: size = -3" in first
    assert "Now: `self.size` = -3" in first
    site = first[-1].split()[1]
    assert first[-1] == f"id {site} · {ALONE}"
    assert len(first) <= 20 and "\x1b[" not in "".join(first)
    # the background job indexes mypkg into the database and keeps the hook's answers
    settle(db.parent / "cache")
    assert db.exists()
    full = _extra(_python("-m", "errdex", "run", str(script), cwd=tmp_path, env=env), plain)
    assert full[0] == HEAD
    assert "  1. Set `size` to 0 or more (`Box.size`), e.g. `Box(size=0)`" in full
    assert "In the message: size = -3" in full
    assert "Now: `self.size` = -3" in full
    assert full[-1] == f"id {site} · details: errdex show {site}"  # the same site
    # from the answers kept, and the same as the database says
    kept = list((db.parent / "cache" / "hook").glob("mypkg-0.1.0-*/state.json"))
    assert len(kept) == 1
    again = _extra(_python("-m", "errdex", "run", str(script), cwd=tmp_path, env=env), plain)
    assert again == full
    shown = _python("-m", "errdex", "show", site, "--db", str(db), cwd=tmp_path, env=env)
    assert shown.returncode == 0 and "size must be non-negative" in shown.stdout


def test_processes_failing_at_once_index_the_distribution_once(
    site_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "script.py").write_text(SCRIPT)
    env = _env(site_dir, tmp_path / "errdex.sqlite")
    command = [sys.executable, "-m", "errdex", "run", "script.py"]
    runs = [
        subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [run.communicate(timeout=300)[1] for run in runs]
    assert all(run.returncode == 1 for run in runs)
    assert all(HEAD in output for output in outputs)
    settle(tmp_path / "cache")
    (log,) = (tmp_path / "cache" / "hook").glob("mypkg-0.1.0-*/index.log")
    lines = log.read_text().splitlines()
    assert lines.count("indexing installed:mypkg") == 1, lines  # one job indexed it
    assert "ended: done" in "\n".join(lines)


def test_answers_kept_are_not_used_once_the_database_changed(
    site_dir: Path, tmp_path: Path
) -> None:
    # indexed by hand (no answers kept yet): the database answers, and a job keeps them
    db = tmp_path / "errdex.sqlite"
    env = _env(site_dir, db)
    (tmp_path / "script.py").write_text(SCRIPT)
    index = _python("-m", "errdex", "index", "installed:mypkg", cwd=tmp_path, env=env)
    assert index.returncode == 0, index.stderr
    plain = _python("script.py", cwd=tmp_path, env=env)
    by_db = _extra(_python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env), plain)
    assert by_db[0] == HEAD and by_db[-1].endswith("details: errdex show " + by_db[-1].split()[1])
    settle(db.parent / "cache")
    state = next((db.parent / "cache" / "hook").glob("mypkg-0.1.0-*/state.json"))
    kept = _extra(_python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env), plain)
    assert kept == by_db
    # another package written to the database: what was kept is stale until kept again
    written = state.stat().st_mtime_ns
    other = _python("-m", "errdex", "index", "installed:click", cwd=tmp_path, env=env)
    assert other.returncode == 0, other.stderr
    after = _extra(_python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env), plain)
    assert after == by_db
    settle(db.parent / "cache")
    assert state.stat().st_mtime_ns > written  # kept again, for the database as it is


def test_errdex_run_passes_argv_and_exit_status(site_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "argv.py").write_text("import sys\nprint(sys.argv)\nsys.exit(int(sys.argv[1]))\n")
    env = _env(site_dir, tmp_path / "errdex.sqlite")
    ran = _python("-m", "errdex", "run", "argv.py", "7", "--flag", "-m", cwd=tmp_path, env=env)
    assert ran.returncode == 7
    assert ran.stdout.strip() == repr([str(tmp_path / "argv.py"), "7", "--flag", "-m"])
    pkg = tmp_path / "tool"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(
        "import sys\nprint(sys.argv[1:])\nimport mypkg\nmypkg.configure(int(sys.argv[1]))\n"
    )
    ran = _python("-m", "errdex", "run", "-m", "tool", "-5", "--help", cwd=tmp_path, env=env)
    assert ran.returncode == 1
    assert ran.stdout.strip() == "['-5', '--help']"
    assert "mypkg.ConfigError: bad configuration: size must be non-negative, got -5" in ran.stderr
    assert "errdex/cli/run.py" not in ran.stderr and "runpy" not in ran.stderr
    # the chain: the cause's site first, then the wrapper's, as the traceback orders them
    cause = ran.stderr.index("── errdex: ValueError raised at mypkg/__init__.py:13")
    wrapper = ran.stderr.index("── errdex: ConfigError raised at mypkg/__init__.py:24")
    assert cause < wrapper
    assert "In the message: size = -5" in ran.stderr
    missing = _python("-m", "errdex", "run", "nothere.py", cwd=tmp_path, env=env)
    assert missing.returncode == 2 and "can't open file" in missing.stderr


def test_a_real_package_from_pypi_installed_beside_errdex(tmp_path: Path) -> None:
    # click, as pip installed it into this environment: its Choice refuses a value
    # through ParamType.fail, a helper; the section names the call in Choice.convert,
    # from click/types.py alone at first, from click's index next
    from importlib.metadata import version

    click_version = version("click")
    script = tmp_path / "app.py"
    script.write_text(
        "import click\n\n"
        "@click.command()\n"
        "@click.option('--mode', type=click.Choice(['fast', 'slow']))\n"
        "def main(mode):\n    pass\n\n"
        "main.main(['--mode', 'medium'], standalone_mode=False)\n"
    )
    db = tmp_path / "errdex.sqlite"
    env = _bare_env(db)
    plain = _python(str(script), cwd=tmp_path, env=env)
    assert plain.returncode == 1
    first = _extra(_python("-m", "errdex", "run", str(script), cwd=tmp_path, env=env), plain)
    assert first[0].startswith("── errdex: BadParameter raised at click/types.py:")
    assert first[0].endswith(f" in Choice.convert (click {click_version})")
    assert first[-1].endswith(
        f" · from types.py alone; click {click_version} is being indexed in the background,"
        " for the full answer next time"
    )
    settle(tmp_path / "cache")
    full = _extra(_python("-m", "errdex", "run", str(script), cwd=tmp_path, env=env), plain)
    assert full[0] == first[0]
    assert full[-1] == f"id {first[-1].split()[1]} · details: errdex show {first[-1].split()[1]}"


def test_errdex_disable_turns_it_off(site_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    db = tmp_path / "errdex.sqlite"
    env = _env(site_dir, db, ERRDEX_DISABLE="1")
    plain = _python(str(script), cwd=tmp_path, env=env)
    ran = _python("-m", "errdex", "run", str(script), cwd=tmp_path, env=env)
    assert (ran.returncode, ran.stderr) == (1, plain.stderr)
    assert not db.exists() and not (tmp_path / "cache").exists()


def test_an_error_outside_any_distribution_is_not_explained(site_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "own.py").write_text("def f(n):\n    raise ValueError(f'bad {n}')\n\nf(1)\n")
    db = tmp_path / "errdex.sqlite"
    ran = _python("-m", "errdex", "run", "own.py", cwd=tmp_path, env=_env(site_dir, db))
    assert ran.returncode == 1
    assert ran.stderr.rstrip().endswith("ValueError: bad 1")
    assert "errdex" not in ran.stderr
    assert not db.exists() and not (tmp_path / "cache").exists()  # nothing looked up


def test_an_error_raised_in_compiled_code_names_the_call_and_the_module(tmp_path: Path) -> None:
    # pydantic v2 (installed beside errdex): its ValidationError comes from pydantic_core,
    # compiled Rust; errdex reads Python source only, and says so in one line
    pytest.importorskip("pydantic_core")
    (tmp_path / "model.py").write_text(
        "from pydantic import BaseModel\n\n\nclass Point(BaseModel):\n    x: int\n\n\n"
        "Point(x='not a number')\n"
    )
    (tmp_path / "direct.py").write_text(
        "from pydantic_core import SchemaValidator, core_schema\n\n"
        "SchemaValidator(core_schema.int_schema()).validate_python('x')\n"
    )
    db = tmp_path / "errdex.sqlite"
    env = _bare_env(db)
    plain = _python("model.py", cwd=tmp_path, env=env)
    said = _extra(_python("-m", "errdex", "run", "model.py", cwd=tmp_path, env=env), plain)
    assert said == [
        "── errdex: pydantic_core._pydantic_core.ValidationError raised in compiled code:"
        " `self.__pydantic_validator__.validate_python(...)` at pydantic/main.py:"
        + said[0].split("pydantic/main.py:")[1].split()[0]
        + " calls into pydantic_core._pydantic_core (errdex reads Python source only)"
    ]
    plain = _python("direct.py", cwd=tmp_path, env=env)
    said = _extra(_python("-m", "errdex", "run", "direct.py", cwd=tmp_path, env=env), plain)
    assert said == [
        "── errdex: pydantic_core._pydantic_core.ValidationError raised in compiled code:"
        " `SchemaValidator(core_schema.int_schema()).validate_python(...)` at direct.py:3"
        " calls into pydantic_core._pydantic_core (errdex reads Python source only)"
    ] or said == [
        "── errdex: pydantic_core._pydantic_core.ValidationError raised in compiled code:"
        " its class is one of pydantic_core._pydantic_core (errdex reads Python source only)"
    ]
    assert not db.exists()  # nothing to index for it


@pytest.mark.parametrize("autoload", [True, False])
def test_the_pytest_plugin_adds_a_section_to_failures(
    site_dir: Path, tmp_path: Path, autoload: bool
) -> None:
    (tmp_path / "test_boxes.py").write_text(
        "import mypkg\n\n\ndef test_box():\n    mypkg.Box(-3).check()\n\n\n"
        "def test_fine():\n    assert mypkg.Box(1).size == 1\n"
    )
    env = _env(site_dir, tmp_path / "errdex.sqlite")
    flags = ["--errdex"]
    if not autoload:  # the entry point off: the plugin named on the command line
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        flags = ["-p", "errdex.hook.pytest_plugin", "--errdex"]
    base = ["-m", "pytest", "-p", "no:cacheprovider", "test_boxes.py"]
    for answer in (ALONE, "details: errdex show"):  # the first failure, then once indexed
        ran = _python(*base, *flags, cwd=tmp_path, env=env)
        assert ran.returncode == 1, ran.stdout + ran.stderr
        assert "1 failed, 1 passed" in ran.stdout
        section = ran.stdout[ran.stdout.index(" errdex ---") :]
        assert "── errdex: ValueError raised at mypkg/__init__.py:13 in Box.check" in section
        assert "In the message: size = -3" in section
        assert "Now: `self.size` = -3" in section
        assert answer in section
        settle(tmp_path / "cache")
    quiet = _python(*base, cwd=tmp_path, env=env)  # installed, but off unless asked
    assert quiet.returncode == 1
    assert "── errdex" not in quiet.stdout and " errdex ---" not in quiet.stdout


# -- what errdex does when it cannot do its work: one line, the traceback untouched -------


def _degraded(
    site: Path, tmp_path: Path, script: str = SCRIPT, **extra: str
) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """What `errdex run` adds to a failing script's traceback, and the run."""
    (tmp_path / "script.py").write_text(script)
    env = _env(site, tmp_path / "errdex.sqlite")
    env.update(extra)
    plain = _python("script.py", cwd=tmp_path, env=env)
    ran = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    return _extra(ran, plain), ran


def test_a_database_that_is_not_one_is_one_line_and_left_alone(
    site_dir: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "errdex.sqlite"
    bad.write_text("this is not a database\n" * 100)
    extra, _ = _degraded(site_dir, tmp_path)
    assert len(extra) == 1, extra
    # the store's own word for it (a StoreError)
    assert extra[0].startswith("errdex: could not explain this error (NotErrdexDatabase: ")
    assert bad.read_text() == "this is not a database\n" * 100


def test_a_database_locked_by_another_process_is_one_line(site_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "errdex.sqlite"
    env = _env(site_dir, db)
    assert (
        _python("-m", "errdex", "index", "installed:mypkg", cwd=tmp_path, env=env).returncode == 0
    )
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCKED, str(db)], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            extra, _ = _degraded(site_dir, tmp_path)
        finally:
            holder.kill()
    assert extra == ["errdex: could not explain this error (StoreError: cannot open database"
                     f" {db}: database is locked)"]  # fmt: skip


HOLD_LOCKED = """\
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("UPDATE meta SET value = value WHERE key = 'generation'")
print("held", flush=True)
time.sleep(300)
"""


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """A tmpfs mounted with the options asked (a read-only or a full file system, real
    ones), unmounted after the test; skipped where this user may not mount."""
    points: list[Path] = []

    def mount(options: str) -> Path:
        point = tmp_path / f"mount{len(points)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        points.append(point)
        return point

    try:
        yield mount
    finally:
        for point in points:
            subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_read_only_cache_dir_still_answers_from_the_file(
    site_dir: Path, tmp_path: Path, mounted: Callable[[str], Path]
) -> None:
    cache = mounted("ro,size=1m")
    extra, _ = _degraded(site_dir, tmp_path, ERRDEX_CACHE=str(cache))
    assert extra[0] == HEAD
    assert "Now: `self.size` = -3" in extra
    assert extra[-1].endswith(
        " · from __init__.py alone; errdex could not index mypkg 0.1.0 in the background"
        f" (OSError: [Errno 30] Read-only file system: '{cache / 'hook'}')"
    )
    assert not (tmp_path / "errdex.sqlite").exists()


def test_a_full_cache_dir_still_answers_from_the_file(
    site_dir: Path, tmp_path: Path, mounted: Callable[[str], Path]
) -> None:
    cache = mounted("size=64k,nr_inodes=3")
    with contextlib.suppress(OSError), open(cache / "filler", "wb") as handle:
        while True:  # every block taken; and no inode left for another file
            handle.write(b"\0" * 4096)
            handle.flush()
    extra, _ = _degraded(site_dir, tmp_path, ERRDEX_CACHE=str(cache))
    assert extra[0] == HEAD
    assert "No space left on device" in extra[-1]
    assert (
        " · from __init__.py alone; errdex could not index mypkg 0.1.0 in the background ("
        in extra[-1]
    )


def test_a_failing_str_a_huge_message_and_a_non_utf8_terminal(
    site_dir: Path, tmp_path: Path
) -> None:
    # the exception's own __str__ raises: the traceback says so, errdex goes on without it
    extra, _ = _degraded(site_dir, tmp_path, "import mypkg\n\nmypkg.unprintable(-1)\n")
    assert extra[0].startswith("── errdex: Unprintable raised at mypkg/__init__.py:")
    assert not any(line.startswith("In the message") for line in extra)
    assert "Now: `code` = -1" in extra
    # a message of 20 MB: the traceback prints it whole; errdex's lines stay short
    extra, ran = _degraded(site_dir, tmp_path, "import mypkg\n\nmypkg.shout(20_000_000)\n")
    assert "A" * 20_000_000 in ran.stderr
    assert extra[0].startswith("── errdex: ValueError raised at mypkg/__init__.py:")
    assert max(len(line) for line in extra) < 1000
    # stdout and stderr in ASCII (a C locale): what cannot be written is escaped
    extra, _ = _degraded(site_dir, tmp_path, PYTHONIOENCODING="ascii", LC_ALL="C")
    assert (
        extra[0]
        == "-- errdex: ValueError raised at mypkg/__init__.py:13 in Box.check (mypkg 0.1.0)"
    )
    assert all(line.isascii() for line in extra)


def test_ctrl_c_while_errdex_works_is_one_line(site_dir: Path, tmp_path: Path) -> None:
    # KeyboardInterrupt raised inside errdex's work, after the traceback: when it opens the
    # database (an audit hook of the script's raises it there, as a Ctrl-C would)
    db = tmp_path / "errdex.sqlite"
    env = _env(site_dir, db)
    assert (
        _python("-m", "errdex", "index", "installed:mypkg", cwd=tmp_path, env=env).returncode == 0
    )
    script = (
        "import sys\n\n\ndef interrupt(event, args):\n"
        "    if event == 'sqlite3.connect':\n        raise KeyboardInterrupt\n\n\n"
        "sys.addaudithook(interrupt)\n" + SCRIPT
    )
    extra, ran = _degraded(site_dir, tmp_path, script)
    assert extra == ["errdex: interrupted; the error above is unexplained"]
    assert ran.returncode == 1  # the script's error, as python exits with it


# -- in this process -------------------------------------------------------------------
# -- in this process -------------------------------------------------------------------


@pytest.fixture(scope="module")
def mypkg(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    sys.path.insert(0, str(site_dir))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module("mypkg")
    finally:
        sys.path.remove(str(site_dir))
        sys.modules.pop("mypkg", None)


@pytest.fixture(scope="module")
def db(mypkg: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """mypkg indexed into a database of its own: the hook answers from it (and starts a
    job that keeps its answers, waited for here)."""
    path = tmp_path_factory.mktemp("hook-db") / "errdex.sqlite"
    with open_store(path) as store:
        index_source("installed:mypkg", store, pause_gc=True)
    yield path
    settle(places.cache_dir())


def _raised(call: Any, *args: Any) -> BaseException:
    try:
        call(*args)
    except BaseException as exc:
        return exc
    raise AssertionError("nothing raised")


def test_explain_a_bare_reraise_names_the_original_raise(mypkg: Any, db: Path) -> None:
    exc = _raised(mypkg.again, -4)
    before = "".join(__import__("traceback").format_exception(exc))
    text = errdex.hook.explain(exc, db)
    assert text is not None
    assert text.startswith("── errdex: ValueError raised at mypkg/__init__.py:13 in Box.check")
    assert "In the message: size = -4" in text
    assert "Now: `self.size` = -4" in text
    assert "".join(__import__("traceback").format_exception(exc)) == before  # untouched


def test_explain_an_exception_group_and_its_members(mypkg: Any, db: Path) -> None:
    exc = _raised(mypkg.check_all, [1, -1, -2])
    text = errdex.hook.explain(exc, db)
    assert text is not None
    heads = [line for line in text.splitlines() if line.startswith("── errdex")]
    assert heads == [
        "── errdex: ExceptionGroup raised at mypkg/__init__.py:46 in check_all (mypkg 0.1.0)",
        "── errdex: ValueError raised at mypkg/__init__.py:13 in Box.check (mypkg 0.1.0)",
    ]  # the two members share one site: it is explained once
    assert "In the message: len(errors) = 2" in text


def test_an_error_raised_by_a_helper_is_the_call_to_it(mypkg: Any, db: Path) -> None:
    text = errdex.hook.explain(_raised(mypkg.limit, 12), db)
    assert text is not None
    assert text.startswith("── errdex: RuntimeError raised at mypkg/__init__.py:55 in limit")
    assert "In the message: n = 12" in text


def test_a_frame_of_the_package_that_is_no_raise_site_gets_no_answer(mypkg: Any, db: Path) -> None:
    exc = _raised(mypkg.parse, "x")  # int() raises, in C: the innermost frame is parse's
    assert errdex.hook.explain(exc, db) is None
    assert errdex.hook.explain(_raised(lambda: 1 / 0), db) is None  # a frame of no dist


def test_install_chains_both_hooks(mypkg: Any, db: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("ERRDEX_DB", str(db))
    called: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda *a: called.append("sys"))
    monkeypatch.setattr(threading, "excepthook", lambda args: called.append("thread"))
    errdex.hook.install()
    try:
        errdex.hook.install()  # idempotent
        exc = _raised(mypkg.Box(-6).check)
        sys.excepthook(type(exc), exc, exc.__traceback__)
        worker = threading.Thread(target=mypkg.Box(-7).check)
        worker.start()
        worker.join()
    finally:
        errdex.hook.uninstall()
    assert called == ["sys", "thread"]
    err = capsys.readouterr().err
    assert err.count("── errdex: ValueError raised at mypkg/__init__.py:13") == 2
    assert "Now: `self.size` = -6" in err and "Now: `self.size` = -7" in err
    assert sys.excepthook is not errdex.hook._excepthook


def test_the_ipython_extension_adds_the_section(mypkg: Any, db: Path, monkeypatch, capsys) -> None:
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv("ERRDEX_DB", str(db))
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "errdex.hook.ipython")
    try:
        shell.run_cell("import mypkg\nmypkg.Box(-8).check()")
    finally:
        shell.run_line_magic("unload_ext", "errdex.hook.ipython")
    out = capsys.readouterr()
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.out)  # IPython colours its traceback
    assert "ValueError: size must be non-negative, got -8" in text
    assert text.index("ValueError: size") < text.index("── errdex: ValueError raised at mypkg")
    assert "Now: `self.size` = -8" in text


def test_a_first_failure_in_this_process_then_the_full_answer(mypkg: Any, tmp_path: Path) -> None:
    db = tmp_path / "errdex.sqlite"
    first = errdex.hook.explain(_raised(mypkg.Box(-9).check), db)
    assert first is not None
    lines = first.splitlines()
    assert lines[0] == HEAD and "Now: `self.size` = -9" in lines
    assert lines[-1].endswith(ALONE)
    settle(places.cache_dir())
    full = errdex.hook.explain(_raised(mypkg.Box(-9).check), db)
    assert full is not None and full.splitlines()[0] == HEAD
    assert full.splitlines()[-1].endswith("details: errdex show " + lines[-1].split()[1])


def _state() -> dict[str, Any]:
    """What errdex must leave as it found it in the user's process."""
    handlers = {}
    for number in signal.valid_signals():
        with contextlib.suppress(ValueError, OSError):
            handlers[number] = signal.getsignal(number)
    return {
        "gc enabled": gc.isenabled(),
        "gc thresholds": gc.get_threshold(),
        "gc frozen": gc.get_freeze_count(),
        "threads": sorted((t.ident or 0, t.name) for t in threading.enumerate()),
        "signal handlers": handlers,
        "recursion limit": sys.getrecursionlimit(),
        "warning filters": list(warnings.filters),
        "excepthooks": (sys.excepthook, threading.excepthook),
        "children": _children(),
        "cwd": os.getcwd(),
    }


def _children() -> list[int]:
    """The processes whose parent is this one (from /proc; [] elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(entry.read_text().rpartition(")")[2].split()[1]) == os.getpid():
                found.append(int(entry.parent.name))
    return sorted(found)


@pytest.mark.parametrize("collector", ["on", "off", "frozen"])
def test_the_hook_leaves_the_process_as_it_found_it(
    mypkg: Any, db: Path, tmp_path: Path, collector: str
) -> None:
    # the user's own collector state, whatever it is: on, off, or objects frozen by a
    # pre-fork server; errdex answers a first failure (the file alone, a job started), one
    # from the database (a job started to keep the answers) and one from answers kept
    was_on = gc.isenabled()
    if collector == "off":
        gc.disable()
    elif collector == "frozen":
        gc.freeze()
    try:
        before = _state()
        fresh = tmp_path / f"fresh-{collector}.sqlite"
        assert errdex.hook.explain(_raised(mypkg.Box(-1).check), fresh) is not None
        assert errdex.hook.explain(_raised(mypkg.Box(-1).check), db) is not None
        settle(places.cache_dir())
        assert errdex.hook.explain(_raised(mypkg.Box(-1).check), db) is not None
        with open_store(tmp_path / f"own-{collector}.sqlite") as store:  # the library, too
            index_source("installed:mypkg", store)
        after = _state()
    finally:
        gc.unfreeze()
        if was_on:
            gc.enable()
    assert after == before


# -- reading values without running user code ------------------------------------------


class _Calls:
    count = 0


class _Tricky:
    limit = 10  # a plain class attribute

    def __init__(self) -> None:
        self.size = -1
        self.inner = _Slotted()

    @property
    def computed(self) -> int:
        _Calls.count += 1
        return 1

    def __getattr__(self, name: str) -> int:
        _Calls.count += 1
        return 2

    def __repr__(self) -> str:
        _Calls.count += 1
        return "tricky"

    def method(self) -> None: ...


class _Slotted:
    __slots__ = ("empty", "value")

    def __init__(self) -> None:
        self.value = "x" * 500


def test_values_are_read_without_calling_user_code() -> None:
    _Calls.count = 0
    obj = _Tricky()
    frame = {"self": obj, "n": 3}
    assert _values.read("self.size", frame, {}) == -1
    assert _values.read("self.limit", frame, {}) == 10
    assert _values.read("self.inner.value", frame, {}) == "x" * 500
    assert _values.read("n", frame, {}) == 3
    assert _values.read("LIMIT", frame, {"LIMIT": 5}) == 5
    for missing in ("self.computed", "self.nothing", "self.method", "self.inner.empty", "m",
                    "self.size()", "self[0]", "self.size + 1"):  # fmt: skip
        assert _values.read(missing, frame, {}) is _values.MISSING, missing
    assert _values.show(obj) == "<tests.test_hook._Tricky object>"
    assert _values.show([obj, 1]) == "[<tests.test_hook._Tricky object>, 1]"
    assert len(_values.show("x" * 500)) <= 80
    assert _values.show({obj: 1}) == "<dict of 1 items>"
    assert _Calls.count == 0


def test_the_section_escapes_what_would_act_on_a_terminal() -> None:
    # what the section (and the CLI) prints goes through these two
    assert printable("a\x1b[2Jb\u202ec\td\ne") == "a\\x1b[2Jb\\u202ec\td\ne"
    assert clip("a  b\n c", 10) == "a b c"
    assert clip("x" * 20, 10) == "x" * 9 + "…"


def test_explain_never_raises(tmp_path: Path, monkeypatch, capsys) -> None:
    # a real fault inside errdex: the db named is no database at all
    import click

    not_a_db = tmp_path / "notes.sqlite"
    not_a_db.write_text("these are my notes, not a database\n" * 100)
    try:
        click.Choice(["fast", "slow"]).convert("medium", None, None)
    except click.BadParameter as exc:
        raised = exc
    assert errdex.hook.explain(raised, not_a_db) is None
    err = capsys.readouterr().err
    # the store's own word for it (a StoreError)
    assert err.startswith("errdex: could not explain this error (NotErrdexDatabase: ")
    assert err.count("\n") == 1 and str(not_a_db) in err
    monkeypatch.setenv("ERRDEX_DISABLE", "1")
    assert errdex.hook.explain(raised, not_a_db) is None
    assert capsys.readouterr().err == ""


def test_the_plugin_module_is_light() -> None:
    code = textwrap.dedent(
        """
        import sys
        import errdex.hook.pytest_plugin
        heavy = [m for m in ("errdex.store", "errdex.match", "errdex.index", "rich", "sqlite3")
                 if m in sys.modules]
        print(heavy)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_an_indexed_file_is_the_installed_one_by_suffix() -> None:
    site = "/env/lib/python3.11/site-packages"
    assert _core._suffix(f"{site}/pkg/a.py", "pkg/a.py")
    assert _core._suffix(f"{site}/pkg/a.py", "src/pkg/a.py")  # an sdist's src/ layout
    assert not _core._suffix(f"{site}/otherpkg/a.py", "pkg/a.py")
    assert not _core._suffix(f"{site}/pkg/a.py", "pkg/b.py")


def test_the_owner_of_a_file_is_read_from_the_metadata_folders_of_its_entry(
    tmp_path: Path,
) -> None:
    from errdex.hook import _dists

    site = tmp_path / "site"
    files = {
        "zope/interface/declarations.py": "",
        "zope.interface-5.5.dist-info/METADATA": "Name: zope.interface\nVersion: 5.5\n\nBody",
        "zope.interface-5.5.dist-info/RECORD": "zope/interface/declarations.py,sha256=x,1\n",
        "boxes/__init__.py": "",
        "boxes-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: Boxes\nVersion: 1.0\n",
        "boxes-1.0.dist-info/RECORD": '"boxes/__init__.py",,\nboxes-1.0.dist-info/RECORD,,\n',
        "old/__init__.py": "",
        "old.egg-info/PKG-INFO": "Name: old\nVersion: 0.1\n",
        "old.egg-info/SOURCES.txt": "old/__init__.py\nsetup.py\n",
        "broken-2.0.dist-info/METADATA": "no headers here",
        "loose.py": "",
    }
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    _dists.forget()
    entry = str(site)
    assert _dists.owner_in(entry, str(site / "boxes/__init__.py")) == ("Boxes", "1.0")
    # named unlike its top folder: found by reading every RECORD
    assert _dists.owner_in(entry, str(site / "zope/interface/declarations.py")) == (
        "zope.interface",
        "5.5",
    )
    # an egg without RECORD: its SOURCES.txt, as importlib.metadata reads it
    assert _dists.owner_in(entry, str(site / "old/__init__.py")) == ("old", "0.1")
    assert _dists.owner_in(entry, str(site / "loose.py")) is None
    assert _dists.owner_in(str(tmp_path / "missing"), str(tmp_path / "missing/x.py")) is None
