# The per-file cache of extract (see errdex.extract.cache.FactsCache) and the per-site
# prose explain reuses (errdex.explain.reuse.ProseCache) as one SQLite file in the user
# cache dir, shared by every database: both are keyed by content, not by snapshot (the
# prose by site id, with the content key it was made under). A cache never fails an
# index: a broken file is started afresh, and a cache that cannot be read or written on
# the way is dropped for the rest of the run.
from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS digests (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS site_prose (
    site TEXT PRIMARY KEY, key TEXT NOT NULL, data BLOB NOT NULL
);
"""


class SqliteFactsCache:
    """Facts, digests and prose in one SQLite file; see the module comment."""

    def __init__(self, path: Path):
        self.path = path
        self.db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open(path)
        except sqlite3.OperationalError:  # locked for long (by another index), read-only
            self.db = None
        except sqlite3.DatabaseError:  # not a database any more: started afresh
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

    def load(self, keys: Sequence[str]) -> dict[str, bytes]:
        sql = "SELECT key, data FROM facts WHERE key IN ({marks})"
        return {key: bytes(data) for key, data in self._rows(sql, keys)}

    def save(self, items: Iterable[tuple[str, bytes]]) -> None:
        self._write("INSERT OR REPLACE INTO facts VALUES (?, ?)", items)

    def load_prose(self, sites: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        sql = "SELECT site, key, data FROM site_prose WHERE site IN ({marks})"
        return {site: (key, bytes(data)) for site, key, data in self._rows(sql, sites)}

    def save_prose(self, items: Iterable[tuple[str, str, bytes]]) -> None:
        self._write("INSERT OR REPLACE INTO site_prose VALUES (?, ?, ?)", items)

    def close(self) -> None:
        self._give_up()

    def opener(self) -> Callable[[], SqliteFactsCache]:
        return functools.partial(SqliteFactsCache, self.path)
