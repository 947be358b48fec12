# The hook where the second attack found it wrong, each through a real `python -m errdex
# run` or pytest process over mypkg installed by pip (tests/test_hook.py's): a snapshot
# gone stale (the same version rebuilt) never explains the error that used to be on the
# line; Ctrl-C while the hook answers a first failure stops a pytest session as it does
# without errdex; a stderr that cannot encode "…" still gets the section; `errdex run` leaves
# the script as much recursion as `python` does; values are read without running any
# metaclass's code.
from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import errdex
from tests.test_hook import SCRIPT, _python, settle, site_dir
from tests.test_hook import _env as _hook_env

__all__ = ["site_dir"]  # the fixture, used here
SOURCE = Path(errdex.__file__).parent.parent  # the errdex under test, not only the installed


def _env(site: Path, db: Path) -> dict[str, str]:
    env = _hook_env(site, db)
    env["PYTHONPATH"] = f"{site}{os.pathsep}{SOURCE}"
    return env


LINE_13 = 'raise ValueError(f"size must be non-negative, got {size}")'


def _own_site(site_dir: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(site_dir, site)
    return site


def _rebuild(site: Path, line_13: str) -> None:
    """mypkg 0.1.0 built again with another raise on line 13, the version unchanged."""
    module = site / "mypkg" / "__init__.py"
    text = module.read_text()
    assert text.splitlines()[12].strip() == LINE_13
    module.write_text(text.replace(LINE_13, line_13))


AGAIN = "mypkg 0.1.0 is being indexed again (its files changed since) in the background"


def test_a_rebuild_with_the_same_version_is_indexed_again(site_dir: Path, tmp_path: Path) -> None:
    site = _own_site(site_dir, tmp_path)
    (tmp_path / "script.py").write_text(SCRIPT)
    db = tmp_path / "errdex.sqlite"
    env = _env(site, db)

    def run() -> str:
        ran = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
        settle(db.parent / "cache")  # the index it started in the background has ended
        return ran.stderr

    first = run()
    assert "── errdex: ValueError raised at mypkg/__init__.py:13" in first, first
    indexed = run()  # from the full index, and the answers kept beside it
    assert "details: errdex show" in indexed and "alone" not in indexed, indexed
    _rebuild(site, 'raise PermissionError(f"box {size} is not yours")')
    plain = _python("script.py", cwd=tmp_path, env=env)
    assert plain.stderr.rstrip().endswith("PermissionError: box -3 is not yours")
    # the answers kept say the file changed: answered from the installed file, and the
    # snapshot indexed again in the background
    again = run()
    assert again.startswith(plain.stderr)
    extra = again[len(plain.stderr) :]
    assert "size must be non-negative" not in extra and "ValueError" not in extra, extra
    assert "── errdex: PermissionError raised at mypkg/__init__.py:13 in Box.check" in extra
    assert "box {size} is not yours" in extra and AGAIN in extra, extra
    full = run()  # the index made again
    assert "── errdex: PermissionError raised at mypkg/__init__.py:13 in Box.check" in full
    assert "details: errdex show" in full and "alone" not in full, full
    # the same class with another message: the digest tells, not the class; and now
    # through the database, the answers kept being set aside
    (tmp_path / "cache" / "hook").rename(tmp_path / "kept-before")
    module = site / "mypkg" / "__init__.py"
    module.write_text(
        module.read_text().replace(
            'raise PermissionError(f"box {size} is not yours")',
            'raise ValueError(f"size must be non-negative, but it is {size}")',
        )
    )
    third = run()
    assert "size must be non-negative, but it is {size}" in third, third
    assert "got {size}" not in third and AGAIN in third
    assert "size must be non-negative, but it is {size}" in run()


def test_a_snapshot_without_digests_never_explains_another_class(
    site_dir: Path, tmp_path: Path
) -> None:
    site = _own_site(site_dir, tmp_path)
    (tmp_path / "script.py").write_text(SCRIPT)
    db = tmp_path / "errdex.sqlite"
    env = _env(site, db)
    first = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert "── errdex: ValueError raised at mypkg/__init__.py:13" in first.stderr
    settle(tmp_path / "cache")
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM files")  # as a snapshot written before digests were kept
    _rebuild(site, 'raise PermissionError(f"box {size} is not yours")')
    plain = _python("script.py", cwd=tmp_path, env=env)
    again = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert again.stderr == plain.stderr  # no section rather than the ValueError's


def test_a_database_being_made_reads_as_nothing_indexed_yet(site_dir: Path, tmp_path: Path) -> None:
    """The background job has made the database file but not yet its schema (what a
    second failing process may meet): that failure is answered from its file alone, as
    with no database, not with errdex's failure."""
    (tmp_path / "script.py").write_text(SCRIPT)
    db = tmp_path / "errdex.sqlite"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")  # a file, with no table yet
    env = _env(site_dir, db)
    ran = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert "could not explain" not in ran.stderr, ran.stderr
    assert "── errdex: ValueError raised at mypkg/__init__.py:13" in ran.stderr
    assert "from __init__.py alone; mypkg 0.1.0 is being indexed in the background" in ran.stderr
    settle(tmp_path / "cache")
    again = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert "details: errdex show" in again.stderr, again.stderr


# -- Ctrl-C ------------------------------------------------------------------------------


def _install_big(site: Path, functions: int) -> None:
    """bigpkg 1.0, one module of `functions` functions of raises, installed in `site` as
    pip leaves a distribution (its files, METADATA and RECORD): the hook's answer from
    that file alone takes a while to make."""
    package = site / "bigpkg"
    package.mkdir(parents=True)
    body = "".join(
        f"def f{i}(x, y):\n    if x > {i}:\n        raise ValueError(f'x over {i}: {{x}}')\n"
        f"    if y is None:\n        raise TypeError('y of f{i} is missing')\n    return x + y\n\n"
        for i in range(functions)
    )
    (package / "__init__.py").write_text(
        "def check(n):\n    if n < 0:\n        raise ValueError(f'n must be positive, got {n}')\n\n"
        + body
    )
    info = site / "bigpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bigpkg\nVersion: 1.0\n")
    names = ["bigpkg/__init__.py", "bigpkg-1.0.dist-info/METADATA", "bigpkg-1.0.dist-info/RECORD"]
    (info / "RECORD").write_text("".join(f"{name},,\n" for name in names))


def test_ctrl_c_during_a_first_failure_answer_stops_the_pytest_session(tmp_path: Path) -> None:
    """A SIGINT while the hook makes the answer to a first failure (bigpkg is not indexed:
    its raising file is read) ends the session, as it would without --errdex: no later
    test runs."""
    site = tmp_path / "site"
    _install_big(site, functions=3000)
    (tmp_path / "test_big.py").write_text(
        "import os, signal, sys, threading, time, bigpkg\n\n"
        "def interrupt():\n"
        "    # Ctrl-C once errdex has started on the answer from bigpkg's file\n"
        "    deadline = time.monotonic() + 120\n"
        "    while 'errdex.hook._first' not in sys.modules and time.monotonic() < deadline:\n"
        "        time.sleep(0.001)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n\n"
        "def test_big():\n"
        "    threading.Thread(target=interrupt, daemon=True).start()\n"
        "    bigpkg.check(-1)\n\n"
        "def test_after():\n"
        "    open('after-ran', 'w').close()\n"
    )
    env = _env(site, tmp_path / "errdex.sqlite")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_big.py"]
    ran = subprocess.run(
        [*command, "--errdex"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert "errdex: interrupted; the error above is unexplained" in ran.stderr, ran.stderr
    assert ran.returncode == 2, ran.stdout + ran.stderr  # pytest's "interrupted"
    assert "KeyboardInterrupt" in ran.stdout, ran.stdout
    assert not (tmp_path / "after-ran").exists()


# -- what errdex run and the section must not cost the program ---------------------------

DEEP = """\
import sys


def reach(n):
    try:
        return reach(n + 1)
    except RecursionError:
        return n


def need(n):
    return 0 if n == 0 else 1 + need(n - 1)


print(reach(1), need(int(sys.argv[1])))
"""


def test_errdex_run_leaves_the_program_the_recursion_python_does(
    site_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "deep.py").write_text(DEEP)
    (tmp_path / "deepmod").mkdir()
    (tmp_path / "deepmod" / "__main__.py").write_text(DEEP)
    env = _env(site_dir, tmp_path / "errdex.sqlite")
    for program in (["deep.py"], ["-m", "deepmod"]):
        plain = _python(*program, "990", cwd=tmp_path, env=env)
        assert plain.returncode == 0, plain.stderr
        ran = _python("-m", "errdex", "run", *program, "990", cwd=tmp_path, env=env)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == plain.stdout, program  # as deep, exactly, and 990 works


def test_a_strict_ascii_stderr_still_gets_the_section(site_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(SCRIPT)
    env = {**_env(site_dir, tmp_path / "errdex.sqlite"), "PYTHONIOENCODING": "ascii:strict"}
    ran = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert ran.returncode == 1
    assert "-- errdex: ValueError raised at mypkg/__init__.py:13 in Box.check" in ran.stderr
    assert " - from __init__.py alone; mypkg 0.1.0 is being indexed in the background" in ran.stderr
    assert "In the message: size = -3" in ran.stderr
    assert "could not explain" not in ran.stderr


METACLASS = """\
import mypkg


class Meta(type):
    def __hash__(cls):
        print("the metaclass's __hash__ ran")
        return 1

    def __eq__(cls, other):
        print("the metaclass's __eq__ ran")
        return False


class Size(metaclass=Meta):
    def __lt__(self, other):
        return True

    def __repr__(self):
        return "Size()"


mypkg.Box(Size()).check()
"""


def test_values_are_shown_without_a_metaclass_running(site_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(METACLASS)
    env = _env(site_dir, tmp_path / "errdex.sqlite")
    ran = _python("-m", "errdex", "run", "script.py", cwd=tmp_path, env=env)
    assert ran.returncode == 1
    assert "── errdex: ValueError raised at mypkg/__init__.py:13" in ran.stderr, ran.stderr
    assert "Now: `self.size` = <__main__.Size object>" in ran.stderr
    assert "metaclass" not in ran.stdout
