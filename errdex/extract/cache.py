# Per-file results cached by content hash, and file digests cached by (size, mtime),
# so a re-index reads and parses only what changed. One SQLite file in the cache dir.
from __future__ import annotations

import hashlib
import pickle
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from errdex.extract.facts import FileFacts


def code_version(*paths: Path) -> str:
    """A digest of the given source files (folders: their .py files); any edit changes it."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.py")) if path.is_dir() else [path]
    return hashlib.blake2b(b"".join(p.read_bytes() for p in files), digest_size=8).hexdigest()


# Cached facts made by other extractor code are not reused.
EXTRACTOR_VERSION = code_version(Path(__file__).parent, Path(__file__).parent.parent / "model.py")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS digests (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL
);
"""

Outcome = FileFacts | str  # the facts, or why the file was skipped


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def facts_key(path: str, file_digest: str) -> str:
    return f"{EXTRACTOR_VERSION}:{path}:{file_digest}"


class FactsCache:
    """A cache that never fails an index: a broken cache file is started afresh."""

    def __init__(self, path: Path | None):
        self.db: sqlite3.Connection | None = None
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open(path)
        except sqlite3.DatabaseError:
            path.unlink(missing_ok=True)
            self.db = self._open(path)
        except OSError:
            self.db = None

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        return db

    def _rows(self, sql: str, keys: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """Rows of `sql` (with one `IN ({marks})`) over all `keys`; none once the cache broke."""
        for start in range(0, len(keys), 900):
            chunk = keys[start : start + 900]
            if self.db is None:
                return
            try:
                rows = self.db.execute(sql.format(marks=",".join("?" * len(chunk))), chunk)
                yield from rows.fetchall()
            except sqlite3.Error:
                self._give_up()

    def _write(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        if self.db is None:
            return
        try:
            with self.db:
                self.db.executemany(sql, rows)
        except sqlite3.Error:  # locked for long, disk full, read-only: index without it
            self._give_up()

    def _give_up(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def known_digests(self, paths: Sequence[str]) -> dict[str, tuple[int, int, str]]:
        sql = "SELECT path, size, mtime_ns, digest FROM digests WHERE path IN ({marks})"
        return {
            path: (size, mtime, file_digest)
            for path, size, mtime, file_digest in self._rows(sql, paths)
        }

    def remember_digests(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        self._write("INSERT OR REPLACE INTO digests VALUES (?, ?, ?, ?)", rows)

    def load(self, keys: Sequence[str]) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for key, data in self._rows("SELECT key, data FROM facts WHERE key IN ({marks})", keys):
            try:
                out[key] = pickle.loads(zlib.decompress(data))
            except Exception:  # a stale or damaged entry is just a miss
                continue
        return out

    def save(self, items: Iterable[tuple[str, Outcome]]) -> None:
        self._write(
            "INSERT OR REPLACE INTO facts VALUES (?, ?)",
            (
                (key, zlib.compress(pickle.dumps(value, pickle.HIGHEST_PROTOCOL), 1))
                for key, value in items
            ),
        )

    def close(self) -> None:
        self._give_up()
