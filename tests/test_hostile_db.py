# Databases as they are found, not as errdex left them: a mistyped --db, a database on a
# read-only path, a file that is not errdex's (an SQLite file of someone else's, an empty
# one), one damaged on disk, one whose schema version disagrees with its tables. Each
# through a real `python -m errdex` process: reading never writes, what is not errdex's
# is left as it was, and every refusal is one clear line with exit status 1.
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import run_errdex, write_tree

FILES = {
    "pkg/__init__.py": """
        def check(n):
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
            if n > 100:
                raise KeyError(f"n must be at most 100, got {n}")
        """,
}


def errdex(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return run_errdex(*args, env={"NO_COLOR": "1"}, prefix=prefix)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real errdex database of one small package, not to be changed (copy it)."""
    root = tmp_path_factory.mktemp("src")
    write_tree(root / "pkg", FILES)
    path = tmp_path_factory.mktemp("db") / "errdex.sqlite"
    done = errdex("index", str(root / "pkg"), "--db", str(path))
    assert done.returncode == 0, done.stderr
    return path


def site_id(db: Path) -> str:
    listed = errdex("list", "--json", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    return str(json.loads(listed.stdout)[0]["id"])


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# -- a mistyped --db ---------------------------------------------------------------------


def test_export_refuses_a_missing_database_and_keeps_the_export(made: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = errdex("export", str(site), "--db", str(made), "--workers", "1")
    assert first.returncode == 0, first.stderr
    before = files_of(site)
    assert len(before) > 5
    typo = tmp_path / "errdx.sqlite"
    done = errdex("export", str(site), "--db", str(typo), "--workers", "1")
    assert done.returncode == 1
    assert f"there is no errdex database at {typo}" in done.stderr
    assert not typo.exists()
    assert files_of(site) == before


# -- a database on a read-only path ------------------------------------------------------


def _read_only_prefix(folder: Path) -> tuple[str, ...]:
    """What runs a command with `folder` read-only: for root (who may write anywhere)
    inside a mount namespace where it is a read-only bind mount, else after chmod."""
    if os.geteuid() != 0:
        for path in (*folder.iterdir(), folder):
            path.chmod(0o555 if path.is_dir() else 0o444)
        return ()
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("needs unshare (util-linux) to make a read-only mount as root")
    prefix = (
        unshare, "-m", "sh", "-c",
        'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"',
        str(folder),
    )  # fmt: skip
    probe = subprocess.run([*prefix, "touch", str(folder / "probe")], capture_output=True)
    if probe.returncode == 0 or b"Read-only file system" not in probe.stderr:
        pytest.skip(f"cannot make a read-only mount here: {probe.stderr.decode()[-200:]}")
    return prefix


@pytest.fixture
def read_only_db(made: Path) -> Iterator[tuple[Path, tuple[str, ...]]]:
    folder = Path(tempfile.mkdtemp(prefix="errdex-ro-"))
    shutil.copy(made, folder / "errdex.sqlite")
    try:
        yield folder / "errdex.sqlite", _read_only_prefix(folder)
    finally:
        for path in (folder, *folder.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(folder)


def test_every_read_command_reads_a_database_on_a_read_only_path(
    read_only_db: tuple[Path, tuple[str, ...]], made: Path, tmp_path: Path
) -> None:
    db, prefix = read_only_db
    target = site_id(made)
    reads = {
        "list": ["list", "--db", str(db)],
        "show": ["show", target, "--db", str(db)],
        "match": ["match", "ValueError: n must be non-negative, got -3", "--db", str(db)],
        "history": ["history", target, "--db", str(db)],
        "export": ["export", str(tmp_path / "site"), "--db", str(db), "--workers", "1"],
    }
    for name, args in reads.items():
        done = errdex(*args, prefix=prefix)
        assert done.returncode == 0, (name, done.stderr)
    assert "pkg/__init__.py" in errdex(*reads["match"], prefix=prefix).stdout
    assert sorted(p.name for p in db.parent.iterdir()) == ["errdex.sqlite"]
    # a write says why it cannot be done, in one line
    note = errdex("index", str(tmp_path), "--db", str(db), prefix=prefix)
    assert note.returncode == 1 and "read-only" in note.stderr, note.stderr


def test_the_server_serves_a_database_on_a_read_only_path(
    read_only_db: tuple[Path, tuple[str, ...]], made: Path
) -> None:
    db, prefix = read_only_db
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        *prefix,
        sys.executable,
        "-m",
        "errdex",
        "serve",
        "--db",
        str(db),
        "--port",
        str(port),
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        answer = None
        while answer is None and time.monotonic() < deadline and server.poll() is None:
            with contextlib.suppress(httpx.TransportError):
                answer = httpx.get(f"http://127.0.0.1:{port}/api/errors/{site_id(made)}")
            time.sleep(0.1)
        assert answer is not None, "the server did not answer"
        assert answer.status_code == 200 and answer.json()["package"]["name"] == "pkg"
    finally:
        server.terminate()
        _, said = server.communicate(timeout=30)
    assert b"Traceback" not in said, said.decode()


# -- files that are not errdex's -----------------------------------------------------------


def _read_commands(db: Path, tmp_path: Path) -> list[list[str]]:
    return [
        ["list", "--db", str(db)],
        ["show", "0123456789abcdef", "--db", str(db)],
        ["match", "ValueError: x", "--db", str(db)],
        ["explain", "--db", str(db)],
        ["export", str(tmp_path / "site"), "--db", str(db), "--workers", "1"],
    ]


def test_a_foreign_sqlite_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "app.sqlite"
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.execute("INSERT INTO users VALUES ('ada')")
    before = db.read_bytes()
    for args in [*_read_commands(db, tmp_path), ["index", str(tmp_path / "none"), "--db", str(db)]]:
        done = errdex(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert f"{db} is not an errdex database" in done.stderr, (args, done.stderr)
    assert db.read_bytes() == before  # not switched to WAL, nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.sqlite"]
    with contextlib.closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_an_empty_file_is_refused_by_read_commands_and_stays_empty(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    db.touch()
    for args in _read_commands(db, tmp_path):
        done = errdex(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert f"{db} is not an errdex database: it is empty (0 bytes)" in done.stderr
    assert db.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"]


# -- damage -----------------------------------------------------------------------------


def _damaged(made: Path, tmp_path: Path, how: str) -> Path:
    db = tmp_path / f"{how}.sqlite"
    shutil.copy(made, db)
    if how == "cut":  # the file cut short, as a copy that ran out of space leaves it
        with db.open("r+b") as handle:
            handle.truncate(db.stat().st_size // 2)
        return db
    if how == "pages":  # the page of the records table overwritten (a bad disk block)
        with contextlib.closing(sqlite3.connect(db)) as conn:
            size = conn.execute("PRAGMA page_size").fetchone()[0]
            (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'")
        with db.open("r+b") as handle:
            handle.seek((root[0] - 1) * size + 8)
            handle.write(b"\xff" * 64)
        return db
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        if how == "bodies":
            conn.execute("UPDATE records SET body = ?", (zlib.compress(b"{not json") + b"x",))
        elif how == "lines":
            conn.execute("UPDATE members SET lines = ?", (b"\x07\x01\x02",))
        elif how == "schema":
            conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    return db


@pytest.mark.parametrize("how", ["cut", "pages", "bodies", "lines"])
def test_a_damaged_database_is_an_error_errdex_explains(
    made: Path, tmp_path: Path, how: str
) -> None:
    db = _damaged(made, tmp_path, how)
    target = site_id(made)
    said = []
    for args in (
        ["list", "--db", str(db)],
        ["list", "--json", "--db", str(db)],
        ["show", target, "--db", str(db)],
        ["history", target, "--db", str(db)],
        ["match", "ValueError: n must be non-negative, got -3", "--db", str(db)],
    ):
        done = errdex(*args)
        assert done.returncode in (0, 1), (args, done.stderr)
        assert "bug in errdex" not in done.stderr and "Traceback" not in done.stderr
        if done.returncode == 1:
            said.append(done.stderr)
    assert said, f"no command noticed the {how} damage"
    assert all(text.startswith("error: ") and text.count("\n") == 1 for text in said), said


def test_a_schema_version_that_disagrees_with_the_tables_is_said(
    made: Path, tmp_path: Path
) -> None:
    db = _damaged(made, tmp_path, "schema")
    done = errdex("list", "--db", str(db))
    assert done.returncode == 1
    assert (
        f"{db} says it has errdex's schema version 3, but its tables are not those of version 3"
    ) in done.stderr
    assert "already exists" in done.stderr and "index again into a new file" in done.stderr
