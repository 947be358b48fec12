# The match index in the store: written in the same transaction as its snapshot and
# gone with it, whole after a writer is killed, picked up by a running server, and the
# same answers from the CLI, the API and errdex.lookup. Real SQLite files and a real
# PostgreSQL server (each test taking `db_location` runs on both), real processes, a
# real server on loopback.
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

import errdex
from errdex import codec
from errdex.index import index_source
from errdex.match import Matcher
from errdex.store import Store, open_store
from tests.conftest import require_pypi, write_tree
from tests.web_support import running

ROOT = Path(__file__).resolve().parent.parent

FIRST = {
    "pkg/__init__.py": """
        def load(path):
            if not path.endswith(".toml"):
                raise ValueError(f"cannot load {path}: only TOML configuration files are read")
            raise OSError(f"configuration file {path} is missing")
        """,
}
SECOND = {
    "pkg/__init__.py": """
        def load(path):
            if not path:
                raise ValueError("an empty configuration path was given to the loader")
        """,
}
OTHER = {
    "other/__init__.py": """
        def connect(host, port):
            if port < 1024:
                raise PermissionError(f"port {port} on {host} needs root privileges here")
        """,
}


def index_tree(store: Store, root: Path, files: dict[str, str]) -> None:
    write_tree(root, files)
    index_source(str(root), store, use_cache=False)


def consistent(location: str) -> None:
    """The match index agrees with the sites it indexes: no orphan, no lost count, no
    record that no snapshot has."""
    postgres = location.startswith("postgresql://")
    sites = "records" if postgres else "sites"
    checks = {
        f"SELECT count(DISTINCT template_id) FROM {sites} WHERE template_id IS NOT NULL":
            "SELECT count(*) FROM templates",
        "SELECT count(*) FROM template_keys": "SELECT coalesce(sum(df), 0) FROM key_counts",
        "SELECT count(*) FROM template_keys WHERE template_id NOT IN (SELECT id FROM templates)":
            "SELECT 0",
    }  # fmt: skip
    checks["SELECT count(*) FROM records WHERE id NOT IN (SELECT record_id FROM members)"] = (
        "SELECT 0"
    )
    if postgres:
        import psycopg

        with psycopg.connect(location) as conn:
            for left, right in checks.items():
                assert conn.execute(left).fetchone() == conn.execute(right).fetchone(), left
        return
    with sqlite3.connect(location) as raw:
        for left, right in checks.items():
            assert raw.execute(left).fetchone() == raw.execute(right).fetchone(), left
    raw.close()


def test_the_index_is_written_with_its_snapshot_and_gone_with_it(
    tmp_path: Path, db_location: str
) -> None:
    db = db_location
    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)
        assert store.template_count() == 2
        assert store.key_counts({"toml configuration", "missing"}) == {
            "toml configuration": 1,
            "missing": 1,
        }
        matcher = Matcher(store)
        [found] = matcher.match(
            "ValueError: cannot load a.json: only TOML configuration files are read"
        ).matches
        assert found.values == {"path": "a.json"}
        consistent(db)

        index_tree(store, tmp_path / "pkg", SECOND)  # the same snapshot, rewritten
        assert store.template_count() == 1
        assert store.key_counts({"toml configuration", "missing"}) == {}  # gone with it
        consistent(db)
        assert matcher.fresh() is not matcher  # the store changed under it
        fresh = matcher.fresh()
        assert fresh.match("only TOML configuration files are read").matches == ()
        assert fresh.match("an empty configuration path was given to the loader").matches


def test_one_matcher_reads_frames_from_the_store_as_it_is_now(tmp_path: Path) -> None:
    # the matcher keeps each file's sites for traceback frames; a rewrite must drop them
    db = tmp_path / "errdex.sqlite"
    frame = '  File "/site/pkg/__init__.py", line {line}, in load\n'

    def traceback(line: int) -> str:
        return (
            "Traceback (most recent call last):\n"
            + frame.format(line=line)
            + "OSError: configuration file a.toml is missing"
        )

    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)  # OSError on line 5
        matcher = Matcher(store)
        [first] = matcher.match(traceback(5)).matches
        assert first.line == 5 and first.exception == "OSError"
        moved = {"pkg/__init__.py": "\n\n" + FIRST["pkg/__init__.py"]}  # now on line 7
        index_tree(store, tmp_path / "pkg", moved)
        answer = matcher.match(traceback(7))
        lines = [m.line for m in (*answer.matches, *answer.closest)]
        assert lines[0] == 7 and 5 not in lines  # no site of the old snapshot


# The stages of `errdex index`, run by hand so that the store receives the explained
# sites one at a time, slowly: the parent kills this process inside the transaction.
WRITER = """
import sys, time
from pathlib import Path
from errdex import sources
from errdex.explain import explain_sites
from errdex.extract import scan
from errdex.extract.pipeline import extract
from errdex.extract.cache import NoCache
from errdex.store import open_store

root, db, ready, cache_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
snapshot = sources.resolve(root, cache_dir=cache_dir)
cache = NoCache()
extraction = extract(snapshot, scan(snapshot, cache), cache, workers=1)
sites = explain_sites(extraction, snapshot)

def slowly():
    for site in sites:
        ready.touch()
        time.sleep(0.05)
        yield site

store = open_store(db)
store.write_snapshot(
    snapshot, slowly(), files=extraction.files, skipped=(), tree_hash="t", extractor="x"
)
"""


def test_a_writer_killed_mid_snapshot_leaves_the_index_whole(
    tmp_path: Path, db_location: str
) -> None:
    db = db_location
    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)
    many = {
        "pkg/__init__.py": "\n".join(
            f"def f{i}(x):\n    if x == {i}:\n        raise KeyError('case {i} is unknown')\n"
            for i in range(200)
        )
    }
    write_tree(tmp_path / "pkg", many)
    ready = tmp_path / "writing"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "pkg"), str(db), str(ready), str(tmp_path)],
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert writer.poll() is None, "the writer ended before it wrote"
            assert time.monotonic() < deadline, "the writer never started writing"
            time.sleep(0.02)
        time.sleep(0.2)  # a few sites into the transaction
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.wait(30)
    assert writer.returncode == -signal.SIGKILL
    consistent(db)
    with open_store(db) as store:  # the previous snapshot, whole, index and all
        assert store.template_count() == 2
        [found] = Matcher(store).match("configuration file x.toml is missing").matches
        assert found.exception == "OSError"
        assert store.key_counts({"is unknown"}) == {}


def test_a_running_server_picks_up_a_new_snapshot(tmp_path: Path, db_location: str) -> None:
    db = db_location
    seen = "PermissionError: port 80 on example.org needs root privileges here"
    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)
        with running(store) as base, httpx.Client(base_url=base, timeout=30) as http:
            before = http.post("/api/match", json={"text": seen}).json()
            assert before["matches"] == []
            with open_store(db) as writer:  # another process's store, say
                index_tree(writer, tmp_path / "other", OTHER)
            after = http.post("/api/match", json={"text": seen}).json()
    [match] = after["matches"]
    assert match["package"] == "other" and match["values"] == {"port": "80", "host": "example.org"}


MESSAGES = [
    "ValueError: cannot load conf.json: only TOML configuration files are read",
    "configuration file /etc/app.toml is missing",
    "PermissionError: port 22 on 10.0.0.1 needs root privileges here",
    textwrap.dedent(
        """\
        Traceback (most recent call last):
          File "/srv/app/main.py", line 3, in <module>
            load("settings.yaml")
          File "/usr/lib/python3/site-packages/pkg/__init__.py", line 4, in load
            raise ValueError(f"cannot load {path}: only TOML configuration files are read")
        ValueError: cannot load settings.yaml: only TOML configuration files are read
        """
    ),
    "nothing of the kind was ever raised by these packages",
]


def test_cli_api_and_lookup_give_the_same_answers(tmp_path: Path, db_location: str) -> None:
    db = db_location
    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)
        index_tree(store, tmp_path / "other", OTHER)
        with running(store) as base, httpx.Client(base_url=base, timeout=30) as http:
            api = [http.post("/api/match", json={"text": m}).json() for m in MESSAGES]
    env = {**os.environ, "ERRDEX_DB": str(db)}
    for message, answer in zip(MESSAGES, api, strict=True):
        done = subprocess.run(
            [sys.executable, "-m", "errdex", "match", "--json", message],
            capture_output=True,
            env=env,
            check=False,
        )
        assert done.returncode == (0 if answer["matches"] else 1), done.stderr
        cli = json.loads(done.stdout)
        found = [codec.match_to_json(m) for m in errdex.lookup(message, db)]
        assert cli["matches"] == found, message
        # the API adds what the page shows beside each answer (url, title, first fix)
        assert cli["matches"] == [
            {k: m[k] for k in c} for c, m in zip(cli["matches"], answer["matches"], strict=True)
        ], message
    assert sum(bool(a["matches"]) for a in api) == 4


def test_lookup_takes_the_exception_itself(tmp_path: Path, db_location: str) -> None:
    db = db_location
    with open_store(db) as store:
        index_tree(store, tmp_path / "pkg", FIRST)
    try:
        raise ValueError("cannot load a.ini: only TOML configuration files are read")
    except ValueError as exc:
        [found] = errdex.lookup(exc, db)
    assert found.values == {"path": "a.ini"} and found.package == "pkg"
    assert errdex.lookup("", db) == []


@pytest.mark.network
def test_lookup_of_an_exception_says_the_installed_version_differs(tmp_path: Path) -> None:
    """idna 3.6 indexed, the idna errdex runs with (another version) raising: the answer
    comes from 3.6, and says that the version installed here is not it."""
    from importlib.metadata import version

    import idna

    installed = version("idna")
    if installed == "3.6":
        pytest.skip("idna 3.6 is the installed version here; the test needs another one")
    require_pypi("pypi:idna==3.6")
    db = tmp_path / "errdex.sqlite"
    with open_store(db) as store:
        index_source("pypi:idna==3.6", store)
    try:
        idna.encode("a" * 64)  # one label over 63 characters
    except idna.IDNAError as exc:
        found = errdex.lookup(exc, db)
    assert found and all(m.package == "idna" and m.version == "3.6" for m in found)
    assert {m.installed_version for m in found} == {installed}
    assert found[0].note is not None
    assert f"idna {installed} is installed here; this answer is from the indexed 3.6" in (
        found[0].note
    )
    # text, which may come from anywhere, is answered as it is
    assert all(m.installed_version is None for m in errdex.lookup("Label too long", db))


HEAVY = ("fastapi", "starlette", "uvicorn", "jinja2", "pygments", "httpx", "pydantic")


@pytest.mark.parametrize(
    "argv",
    [["--version"], ["match", "--json", "cannot load x: only TOML"], ["show", "nope"], ["list"]],
)
def test_the_quick_commands_import_no_web_library(tmp_path: Path, argv: list[str]) -> None:
    probe = textwrap.dedent(
        f"""
        import sys
        from errdex.cli import app
        try:
            app({argv!r}, standalone_mode=False)
        except Exception:
            pass
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
        print("HEAVY:" + ",".join(heavy))
        """
    )
    env = {**os.environ, "ERRDEX_DB": str(tmp_path / "errdex.sqlite")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_show_and_match_into_a_pipe_never_import_rich(tmp_path: Path) -> None:
    db = tmp_path / "errdex.sqlite"
    with open_store(db) as store:
        index_source(str(tree(tmp_path, "piped", 3)), store, use_cache=False)
        records = store.iter_records()
        [site_id] = [r.id for r in records if r.site.message and "case 1 " in r.site.message.text]
    for argv in (["show", site_id], ["match", "piped case 2 refused"], ["list", "--json"]):
        probe = textwrap.dedent(
            f"""
            import sys
            from errdex.cli import app
            try:
                app({argv!r}, standalone_mode=False)
            finally:
                print("\\nRICH:" + ",".join(sorted(m for m in sys.modules if m.startswith("rich"))))
            """
        )
        env = {**os.environ, "ERRDEX_DB": str(db)}
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
        )
        assert "refused" in done.stdout, argv
        assert done.stdout.strip().splitlines()[-1] == "RICH:", argv


def tree(root: Path, tag: str, count: int) -> Path:
    """A package named pkg whose every raise says `tag` (so a mix is visible)."""
    body = "\n".join(
        f"def f{i}(x):\n    if x == {i}:\n        raise ValueError('{tag} case {i} refused')\n"
        for i in range(count)
    )
    write_tree(root / "pkg", {"pkg/__init__.py": body})
    return root / "pkg"


FLIPPER = """
import sys
from errdex.index import index_source
from errdex.store import open_store

db, first, second, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open_store(db) as store:
    for n in range(rounds):
        index_source(first if n % 2 else second, store, use_cache=False, force=True)
"""


def snapshot_tags(db: str) -> set[str]:
    with open_store(db, create=False) as store:
        return {r.site.message.text.split()[0] for r in store.list_records() if r.site.message}


def test_readers_during_writes_see_the_old_or_the_new_snapshot(
    tmp_path: Path, db_location: str
) -> None:
    db = db_location
    old, new = tree(tmp_path / "a", "old", 40), tree(tmp_path / "b", "new", 60)
    with open_store(db) as store:
        index_source(str(old), store, use_cache=False)
    script = tmp_path / "flipper.py"
    script.write_text(FLIPPER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, str(script), str(db), str(old), str(new), "6"], env=env
    )
    seen: set[frozenset[str]] = set()
    with open_store(db, create=False) as reader:
        while writer.poll() is None:
            with reader.reading():  # the listing and the match see one state
                records = reader.list_records()
                found = Matcher(reader).match("ValueError: old case 7 refused")
            tags = frozenset(r.site.message.text.split()[0] for r in records if r.site.message)
            assert tags in ({"old"}, {"new"}), tags  # one whole snapshot, never a mix
            assert len(records) == (40 if tags == {"old"} else 60)
            assert bool(found.matches) == (tags == {"old"})  # the match agrees
            seen.add(tags)
    assert writer.returncode == 0
    consistent(db)
    assert seen  # the reader ran while the writer wrote


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.3, 0.6, 1.0])
def test_kill_9_at_any_point_leaves_one_whole_snapshot(
    tmp_path: Path, db_location: str, delay: float
) -> None:
    db = db_location
    old, new = tree(tmp_path / "a", "old", 40), tree(tmp_path / "b", "new", 300)
    with open_store(db) as store:
        index_source(str(old), store, use_cache=False)
    script = tmp_path / "flipper.py"
    script.write_text(FLIPPER)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, str(script), str(db), str(old), str(new), "1"], env=env
    )
    try:
        time.sleep(delay)
    finally:
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGKILL)
        writer.wait(60)
    assert snapshot_tags(db) in ({"old"}, {"new"})
    consistent(db)
