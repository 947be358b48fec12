# The SQLite store: one file, WAL mode, one transaction per snapshot, FTS5 over the
# messages. All of errdex's SQL for SQLite lives in this module and schema.sql.
from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from errdex import codec, rank
from errdex.errors import EmptyDatabase, NoDatabase, NotErrdexDatabase, StoreError
from errdex.model import (
    Enrichment,
    ErrorSite,
    IndexFailure,
    SearchHit,
    SearchResult,
    SkippedFile,
    Snapshot,
)
from errdex.store import _match_index
from errdex.store._base import (
    FETCH,
    LINK_REF,
    StoreBase,
    T,
    record,
    record_utf8,
    storable_digests,
)
from errdex.store._common import (
    StoredBody,
    pack_lines,
    search_highlight,
    search_texts,
    stored_bodies,
)
from errdex.store._schema import MIGRATIONS, SCHEMA_VERSION, full_schema

_BUSY_TIMEOUT = 30.0  # seconds to wait for another writer before giving up
_PAGE_SIZE = 16384


def _give_back_space(conn: sqlite3.Connection) -> None:
    """VACUUM after the move to shared records, which leaves most of the file's pages
    free (a 58,862-site store: 669 MiB migrated, 362 MiB after VACUUM). Skipped, losing
    nothing but space, when another connection is using the database."""
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("VACUUM")


def _statements(script: str) -> Iterator[str]:
    """Yield the complete SQL statements of `script`, one at a time."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""
    if pending.strip() and not pending.strip().startswith("--"):
        yield pending.strip()


# The columns of sites_fts (errdex.rank.FIELDS, whose rule finds and orders results) and
# the SQL that fills each from a `records` row (alias-free, so one text serves INSERT ...
# SELECT at write time and the rebuild of an older index). A static export ships these
# same values (search_fields), so that its page searches exactly what the server does.
FTS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("message", "message_text"),
    ("title", "title"),
    ("solutions", "f_solutions"),
    ("inputs", "f_inputs"),
    ("exception", "exc_name || ' ' || exc_qualname"),
    ("function", "function"),
    ("file", "file"),
)
assert tuple(c for c, _ in FTS_COLUMNS) == rank.FIELDS
# Words as errdex.rank (and a static export's page) reads them: letters and digits,
# case folded, accents kept ("é" is not "e").
_FTS_CREATE = (
    "CREATE VIRTUAL TABLE sites_fts USING fts5"
    f" ({', '.join(c for c, _ in FTS_COLUMNS)}, tokenize = 'unicode61 remove_diacritics 0')"
)
_FTS_INSERT = (
    f"INSERT INTO sites_fts (rowid, {', '.join(c for c, _ in FTS_COLUMNS)})"
    f" SELECT id, {', '.join(e for _, e in FTS_COLUMNS)} FROM records"
)


@functools.cache
def _check_fts5() -> None:
    """Raise StoreError unless this Python's SQLite library has FTS5 (asked once)."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
    except sqlite3.OperationalError as exc:
        raise StoreError(
            f"the SQLite library of this Python ({sqlite3.sqlite_version}) lacks FTS5 ({exc});"
            " install a Python built against SQLite with FTS5 enabled"
        ) from exc
    finally:
        probe.close()


def _glob(pattern: str) -> str:
    """Turn an fnmatch pattern into SQLite GLOB syntax (only `[!...]` differs)."""
    return pattern.replace("[!", "[^")


_RECORD_COLUMNS = (
    "id, digest, site_id, file, function, kind, exc_name, exc_qualname, exc_short,"
    f" message_text, message_literal, title, body, {', '.join(_match_index.SITE_COLUMNS)},"
    " f_solutions, f_inputs"
)
_INSERT_RECORD = (
    f"INSERT INTO records ({_RECORD_COLUMNS})"
    f" VALUES ({', '.join('?' * (_RECORD_COLUMNS.count(',') + 1))})"
)
# What a query selects to make a record: the body and its snapshot's fields.
_RECORD_FIELDS = f"s.body, sn.package, sn.version, sn.repo_url, {LINK_REF}, s.line, s.lines"
# The same with the record's id in place of its body, which is read by id after the sort
# (see SqliteStore._record_rows).
_SORTED_FIELDS = f"s.id, sn.package, sn.version, sn.repo_url, {LINK_REF}, s.line, s.lines"
_BODIES = "SELECT id, body FROM records WHERE id IN (SELECT value FROM json_each(?))"


def _record_row(
    record_id: int, stored: StoredBody, site: ErrorSite, template_id: int | None
) -> tuple[Any, ...]:
    """The `records` row of one site, in _RECORD_COLUMNS order."""
    loc = site.location
    message = site.message
    text = literal = None
    if message is not None:
        text = message.text
        if message.static:
            literal = message.literal_text.strip()
    fields = search_texts(site)
    return (
        record_id,
        stored.digest,
        site.id,
        loc.file,
        loc.function,
        site.kind,
        site.exception.name,
        site.exception.qualname,
        site.exception.qualname.rpartition(".")[2],
        text,
        literal,
        None if site.explanation is None else site.explanation.title,
        stored.compressed(),
        *_match_index.site_columns(site, template_id),
        fields[2],
        fields[3],
    )


def _site_of_record(text: str) -> ErrorSite:
    return codec.site_from_json(json.loads(text))


def _fts_query(words: list[str], column: str | None = None) -> str:
    """An FTS5 query requiring each of `words` (errdex.rank's, so letters and digits only:
    nothing the user typed is read as FTS5 syntax), the last as a prefix, in `column`
    only if given: the errors that errdex.rank's rule finds."""
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    if column is not None:
        quoted = [f"{column} : {q}" for q in quoted]
    return " ".join(quoted)


_FTS_ROWIDS = "SELECT rowid FROM sites_fts WHERE sites_fts MATCH ?"


def _fts_term(column: str, query: rank.Term) -> str:
    word, prefix = query
    return f'{column} : "{word}"' + ("*" if prefix else "")


def _add_records(
    conn: sqlite3.Connection,
    snapshot_id: int,
    sites: Sequence[ErrorSite],
    prepared: Sequence[StoredBody],
    templates: Sequence[int | None],
) -> list[int]:
    """Make each of `sites` (with its body and digest, from stored_bodies) a member of the
    snapshot, adding the records not stored yet (only those are compressed and written,
    in one executemany); return their ids."""
    ids: dict[bytes, int] = {}
    unique = list(dict.fromkeys(stored.digest for stored in prepared))
    for chunk in _match_index.chunks(unique):
        marks = ",".join("?" * len(chunk))
        ids.update(conn.execute(f"SELECT digest, id FROM records WHERE digest IN ({marks})", chunk))
    # Inside the write transaction (BEGIN IMMEDIATE) no one else adds records.
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]) + 1
    rows = []
    for site, stored, template in zip(sites, prepared, templates, strict=True):
        if stored.digest not in ids:
            ids[stored.digest] = next_id
            rows.append(_record_row(next_id, stored, site, template))
            next_id += 1
    conn.executemany(_INSERT_RECORD, rows)
    conn.executemany(
        "INSERT INTO members (snapshot_id, ord, record_id, line, lines) VALUES (?, ?, ?, ?, ?)",
        [
            (
                snapshot_id,
                ord,
                ids[stored.digest],
                site.location.line,
                pack_lines(site.location.line, stored.body.lines),
            )
            for ord, (site, stored) in enumerate(zip(sites, prepared, strict=True))
        ],
    )
    return [row[0] for row in rows]


def _drop_orphan_records(conn: sqlite3.Connection, record_ids: Sequence[int]) -> None:
    """Remove the records among `record_ids` that no snapshot has, with their search rows
    and the templates no record uses any more."""
    if not record_ids:
        return
    gone = [
        (row[0], row[1])
        for row in conn.execute(
            "SELECT id, template_id FROM records WHERE id IN (SELECT value FROM json_each(?))"
            " AND NOT EXISTS (SELECT 1 FROM members AS m WHERE m.record_id = records.id)",
            (json.dumps(list(record_ids)),),
        )
    ]
    if not gone:
        return
    ids = json.dumps([record_id for record_id, _ in gone])
    conn.execute("DELETE FROM sites_fts WHERE rowid IN (SELECT value FROM json_each(?))", (ids,))
    conn.execute("DELETE FROM records WHERE id IN (SELECT value FROM json_each(?))", (ids,))
    _match_index.drop_orphans(conn, {t for _, t in gone if t is not None})


# The indexes of schema 4's records and members, dropped with them by reshape_records.
_V4_INDEXES = (
    "records_site_id",
    "records_message_text",
    "records_message_literal",
    "records_template",
    "records_base",
    "members_record",
)


def reshape_records(conn: sqlite3.Connection, found: int) -> None:
    """Store the sites of a database of schema `found` (3: one `sites` table of whole
    records; 4: records shared only when unchanged, with their line numbers) as this
    schema does, one snapshot at a time, each read as that schema wrote them; then make
    the search index anew."""
    conn.execute("DROP TABLE IF EXISTS sites_fts")
    if found < 4:
        conn.execute("ALTER TABLE sites RENAME TO old_sites")
        read = "SELECT record, template_id FROM old_sites WHERE snapshot_id = ? ORDER BY id"
    else:
        conn.execute("DROP VIEW sites")
        for name in _V4_INDEXES:
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        conn.execute("ALTER TABLE members RENAME TO old_members")
        conn.execute("ALTER TABLE records RENAME TO old_records")
        read = (
            "SELECT r.body, m.report_url, r.template_id FROM old_members AS m"
            " JOIN old_records AS r ON r.id = m.record_id WHERE m.snapshot_id = ? ORDER BY m.ord"
        )
    wanted = (
        "CREATE TABLE records",
        "CREATE TABLE members",
        "CREATE INDEX records_",
        "CREATE INDEX members_",
        "CREATE VIEW sites",
    )
    for statement in _statements(full_schema("sqlite")):
        code = "\n".join(x for x in statement.splitlines() if not x.lstrip().startswith("--"))
        if code.strip().startswith(wanted):
            conn.execute(code)
    for snapshot_id, package, version, source, repo_url, commit in conn.execute(
        "SELECT id, package, version, source, repo_url, commit_id FROM snapshots ORDER BY id"
    ).fetchall():
        rows = conn.execute(read, (snapshot_id,)).fetchall()
        if found >= 4:
            rows = [
                (codec.v4_record_text(body, package, version, repo_url, commit, report), tid)
                for body, report, tid in rows
            ]
        snapshot = Snapshot(
            package=package,
            version=version,
            root=Path("/"),
            source=source,
            repo_url=repo_url,
            commit=commit,
        )
        sites = [_site_of_record(text) for text, _ in rows]
        _add_records(
            conn, snapshot_id, sites, stored_bodies(snapshot, sites)(), [tid for _, tid in rows]
        )
    for name in ("old_sites", "old_members", "old_records"):
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute(_FTS_CREATE)
    conn.execute(_FTS_INSERT)


class SqliteStore(StoreBase):
    """Error sites and snapshots in one SQLite file.

    Each thread gets its own connection (made on first use), so one store may be shared
    by the threads of a web server; processes share the file through WAL mode.
    """

    _mark = "?"
    _no_limit = -1
    _record_fields = _RECORD_FIELDS
    _record_order = "ORDER BY sel.key, s.file, s.line, s.ord"
    _id_field = "s.site_id"
    # a record's state: its shared body's digest and where it stands in this version (a
    # body is shared by the versions where it only moved)
    _state_fields = (
        "s.site_id, sn.package, sn.version, hex(s.digest) || '.' || s.line || '.' || hex(s.lines)"
    )
    _site_rows = "FROM sites AS s JOIN snapshots AS sn ON sn.id = s.snapshot_id WHERE s.site_id = ?"
    _site_order = "ORDER BY sn.id, s.ord"
    _message_is = "AND (s.message_text = ? OR s.message_literal = ?)"
    _index_queries: ClassVar[ModuleType] = _match_index

    def __init__(
        self, path: str | Path, *, create: bool = True, wait: float = _BUSY_TIMEOUT
    ) -> None:
        """Open the database at `path`, creating it (and its folder) if `create`; a
        connection waits up to `wait` seconds for another that holds a lock.

        Without `create` (a reader) every read goes through a read-only connection: a
        database on a read-only path can be read, and nothing is written to a file that
        is not an errdex database. A write (a model note, an index into an existing
        database) gets a connection of its own, made when it is first needed.

        Raises NoDatabase if it does not exist and `create` is false; StoreError if the
        file is not an errdex database, was written by a newer errdex, or cannot be opened.
        """
        self.path = Path(path)
        self._wait = wait
        if not create and not self.path.exists():
            raise NoDatabase(self.path)
        _check_fts5()
        self._create = create
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._immutable = False  # read as a file nobody writes (a read-only place)
        if create and not self.path.parent.exists():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the folder of database {self.path}: {exc}"
                ) from exc
        try:
            self._prepare(self._conn())
        except BaseException:
            self.close()
            raise

    # -- connections and schema -------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection for reading: read-only for a reader (and for a file
        that cannot be written), else the one that also writes."""
        if not self._create or not self._writable():
            return self._connection("reader", self._open_reader)
        return self._writer()

    def _writable(self) -> bool:
        here = self.path if self.path.exists() else self.path.parent
        return not self._immutable and os.access(here, os.W_OK)

    def _writer(self) -> sqlite3.Connection:
        """This thread's connection for writing (only once the file is known to be an
        errdex database, or empty and `create`: see _prepare)."""
        return self._connection("writer", self._open_writer)

    def _connection(
        self, kind: str, open_one: Callable[[], sqlite3.Connection]
    ) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"the store {self.path} is closed")
        conn: sqlite3.Connection | None = getattr(self._local, kind, None)
        if conn is not None:
            return conn
        conn = open_one()
        setattr(self._local, kind, conn)
        with self._lock:
            self._connections.append(conn)
        return conn

    def _open_reader(self) -> sqlite3.Connection:
        """A read-only connection: it creates nothing, changes no mode of the file, and
        reads a database in a folder it cannot write (as immutable, when even SQLite's
        shared-memory file cannot be made beside it)."""
        mode = "ro&immutable=1" if self._immutable else "ro"
        try:
            conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode={mode}",
                uri=True,
                timeout=_BUSY_TIMEOUT,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            conn.close()
            if not self._immutable and not os.access(self.path.parent, os.W_OK):
                self._immutable = True  # a read-only place: nothing there can change it
                return self._open_reader()
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:  # SQLITE_NOTADB and kin
            conn.close()
            raise NotErrdexDatabase(
                f"{self.path} is not an errdex database: {exc}", self.path
            ) from exc
        return conn

    def _open_writer(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, timeout=self._wait, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.OperationalError as exc:  # cannot open, locked, read-only, ...
            conn.close()
            raise StoreError(f"cannot open database {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:  # SQLITE_NOTADB and kin
            conn.close()
            raise NotErrdexDatabase(
                f"{self.path} is not an errdex database: {exc}", self.path
            ) from exc
        return conn

    def _schema_version(self, conn: sqlite3.Connection) -> int | None:
        """Return the schema version, None for an empty database; StoreError if foreign."""
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        if not tables:
            return None
        if "meta" not in tables:
            raise NotErrdexDatabase(
                f"{self.path} is not an errdex database: it is an SQLite file without errdex's"
                f" meta table (tables: {', '.join(sorted(tables)[:5])})",
                self.path,
            )
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        try:
            return int(row[0])
        except (TypeError, ValueError) as exc:
            raise NotErrdexDatabase(
                f"{self.path} is not an errdex database: its meta table has no valid"
                f" schema_version ({row!r})",
                self.path,
            ) from exc

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """Create the schema in an empty database (only with `create`), migrate an old
        one, refuse a newer one or one that is not errdex's. What the file is, is read
        first, through `conn`: nothing is written to a file that is not errdex's."""
        try:
            found = self._schema_version(conn)
            if found is None and not self._create:
                raise EmptyDatabase(
                    f"{self.path} is not an errdex database: it is empty"
                    f" ({self.path.stat().st_size:,} bytes)",
                    self.path,
                )
            self._check_not_newer(found)
            if found == SCHEMA_VERSION:
                self._ensure_fts(conn)
                return
            self._upgrade(found)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"cannot prepare database {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not an errdex database: {exc}") from exc

    def _upgrade(self, found: int | None) -> None:
        """Make the schema (`found` None: an empty file) or migrate it from `found`, in
        one transaction, through the writing connection."""
        conn = self._writing_conn(f"errdex must upgrade it from schema version {found}")
        if found is None:
            # A new file's pages: 16 KiB, so that records of 2-4 kB (a vllm body,
            # compressed, with its columns) share a page instead of leaving half of one
            # empty (4 KiB pages left 32% of a vllm index unused).
            conn.execute(f"PRAGMA page_size={_PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=WAL")  # errdex's own file (or an empty one)
        shared = False
        with self._transaction(conn):
            found = self._schema_version(conn)  # another process may have been first
            self._check_not_newer(found)
            if found is None:
                for statement in _statements(full_schema("sqlite")):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            elif found < SCHEMA_VERSION:
                try:
                    for version in range(found, SCHEMA_VERSION):
                        step = MIGRATIONS[version]
                        for statement in _statements(step.sqlite):
                            conn.execute(statement)
                        if step.rebuild_match_index:
                            _match_index.rebuild(conn, _site_of_record)
                        if step.share_records:
                            shared = True
                    if shared:
                        reshape_records(conn, found)
                except (sqlite3.OperationalError, KeyError, ValueError) as exc:
                    raise StoreError(
                        f"{self.path} says it has errdex's schema version {found}, but its"
                        f" tables are not those of version {found} ({exc}): the file is"
                        " damaged or was changed by hand; index again into a new file"
                    ) from exc
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'",
                    (str(SCHEMA_VERSION),),
                )
        if shared:
            _give_back_space(conn)
        self._ensure_fts(self._conn())

    def _writing_conn(self, why: str) -> sqlite3.Connection:
        """The writing connection, for a change `why` needs; StoreError when the file
        cannot be written (a read-only place)."""
        if not self._writable():
            raise StoreError(
                f"cannot write to {self.path}: it is read-only, and {why};"
                " use a copy of it in a writable place"
            )
        return self._writer()

    def _ensure_fts(self, conn: sqlite3.Connection) -> None:
        """Rebuild sites_fts from `sites` if it was made with other columns or another
        tokenizer (an older errdex's search index); the data itself is untouched."""

        def made() -> str | None:
            rows = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'sites_fts'")
            found = rows.fetchone()
            return None if found is None else " ".join(str(found[0]).split())

        if made() == _FTS_CREATE:
            return
        conn = self._writing_conn("its search index must be made again")
        with self._transaction(conn):
            if made() == _FTS_CREATE:  # another process rebuilt it first
                return
            conn.execute("DROP TABLE IF EXISTS sites_fts")
            conn.execute(_FTS_CREATE)
            conn.execute(_FTS_INSERT)

    def _check_not_newer(self, found: int | None) -> None:
        if found is not None and found > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer errdex (schema version {found}; this"
                f" errdex reads up to {SCHEMA_VERSION}); upgrade errdex"
                " (pip install -U errdex) or use another database file"
            )

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Every read of this thread inside the block sees one state of the database,
        whatever another process writes meanwhile (a read transaction; nests)."""
        conn = self._conn()
        if conn.in_transaction:
            yield
            return
        try:
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read {self.path}: {exc}") from exc
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):  # what went wrong is said already
                    conn.execute("ROLLBACK")
            raise
        if conn.in_transaction:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read {self.path}: {exc}") from exc

    @contextlib.contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; ROLLBACK on any exception, KeyboardInterrupt too."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(
                f"cannot write to {self.path}: {exc}; another errdex may be indexing into it,"
                " try again when it is done"
            ) from exc
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # COMMIT itself may fail (disk full) and leave it open
                conn.execute("ROLLBACK")
            raise

    # -- writing ----------------------------------------------------------------------

    def write_snapshot(
        self,
        snapshot: Snapshot,
        sites: Iterable[ErrorSite],
        *,
        files: int,
        skipped: Sequence[SkippedFile],
        tree_hash: str,
        extractor: str,
        digests: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Store `sites` as `snapshot`, replacing any earlier (package, version), in one
        transaction: if anything fails or interrupts, the previous state stays whole.
        Raises StoreError for a database that cannot be written.
        """
        conn = self._writing_conn(f"{snapshot.package} {snapshot.version} is to be written")
        written = list(sites)  # before the transaction: the lock is held only to write
        # made meanwhile, on every core; compressed there too for a package's first
        # snapshot, none of whose records can be stored yet
        first = not self._read(
            "SELECT 1 FROM snapshots WHERE package = ? LIMIT 1", [snapshot.package]
        )
        bodies = stored_bodies(snapshot, written, compress=first)
        try:
            with self._transaction(conn):
                old = conn.execute(
                    "SELECT id FROM snapshots WHERE package = ? AND version = ?",
                    (snapshot.package, snapshot.version),
                ).fetchone()
                old_records = [] if old is None else self._delete_snapshot(conn, old[0])
                cur = conn.execute(
                    "INSERT INTO snapshots (package, version, source, repo_url, commit_id, date,"
                    " files, sites, tree_hash, extractor, indexed_at, tag)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        snapshot.package,
                        snapshot.version,
                        snapshot.source,
                        snapshot.repo_url,
                        snapshot.commit,
                        snapshot.date,
                        files,
                        len(written),
                        tree_hash,
                        extractor,
                        datetime.now(UTC).isoformat(timespec="seconds"),
                        snapshot.tag,
                    ),
                )
                snapshot_id = cur.lastrowid
                assert snapshot_id is not None
                conn.executemany(
                    "INSERT INTO skipped (snapshot_id, path, reason) VALUES (?, ?, ?)",
                    [(snapshot_id, s.path, s.reason) for s in skipped],
                )
                conn.executemany(
                    "INSERT OR REPLACE INTO files (snapshot_id, path, digest) VALUES (?, ?, ?)",
                    [(snapshot_id, path, digest) for path, digest in storable_digests(digests)],
                )
                templates = _match_index.templates_of(conn, written)
                new = _add_records(conn, snapshot_id, written, bodies(), templates)
                conn.execute(
                    _FTS_INSERT + " WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(new),),
                )
                _drop_orphan_records(conn, old_records)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key)"
                    " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                )
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot write {snapshot.package} {snapshot.version} to {self.path}: {exc}"
            ) from exc
        finally:
            bodies()  # on every way out, so that its workers end with the write

    @staticmethod
    def _delete_snapshot(conn: sqlite3.Connection, snapshot_id: int) -> list[int]:
        """Remove a snapshot and its memberships; return the ids of its records (the
        caller removes those no snapshot has any more, with _drop_orphan_records)."""
        records = [
            row[0]
            for row in conn.execute(
                "SELECT record_id FROM members WHERE snapshot_id = ?", (snapshot_id,)
            )
        ]
        conn.execute("DELETE FROM members WHERE snapshot_id = ?", (snapshot_id,))
        conn.execute("DELETE FROM skipped WHERE snapshot_id = ?", (snapshot_id,))
        conn.execute("DELETE FROM files WHERE snapshot_id = ?", (snapshot_id,))
        conn.execute("DELETE FROM snapshots WHERE id = ?", (snapshot_id,))
        return records

    # -- reading ----------------------------------------------------------------------

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read {self.path}: {exc}") from exc

    def _where(
        self,
        package: str | None,
        version: str | None,
        exception: str | None,
        file_glob: str | None,
    ) -> tuple[str, list[Any]] | None:
        ids = self._selected(package, version)
        if not ids:
            return None
        # json_each yields the ids with their position, which orders (package, version).
        sql = (
            " FROM json_each(?) AS sel JOIN sites AS s ON s.snapshot_id = sel.value"
            " JOIN snapshots AS sn ON sn.id = s.snapshot_id WHERE 1"
        )
        params: list[Any] = [json.dumps(ids)]
        if exception is not None:
            sql += " AND ? IN (s.exc_name, s.exc_qualname, s.exc_short)"
            params.append(exception)
        if file_glob is not None:
            sql += " AND s.file GLOB ?"
            params.append(_glob(file_glob))
        return sql, params

    def _stream(self, sql: str, params: Sequence[Any]) -> Generator[Sequence[Any], None, None]:
        for batch in self._batches(sql, params):
            yield from batch

    def _batches(self, sql: str, params: Sequence[Any]) -> Generator[list[Any], None, None]:
        """The rows of `sql`, FETCH at a time."""
        try:
            cur = self._conn().execute(sql, params)
            while batch := cur.fetchmany(FETCH):
                yield batch
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read {self.path}: {exc}") from exc

    def _record_rows(
        self, clause: str, params: Sequence[Any]
    ) -> Generator[Sequence[Any], None, None]:
        # Sorted without their bodies, which are then read by id a batch at a time, in the
        # same read transaction: sorted with the rest of the row, 76 MB of bodies of
        # 50,000 records went through SQLite's sorter and its temporary files, 0.72 s of
        # CPU against 0.21 s for the same rows this way.
        with self.reading():
            for batch in self._batches(f"SELECT {_SORTED_FIELDS} {clause}", params):
                bodies = dict(self._read(_BODIES, [json.dumps([row[0] for row in batch])]))
                try:
                    rows = [(bodies[record_id], *rest) for record_id, *rest in batch]
                except KeyError:  # only when an enclosing reading() ended before this one
                    raise StoreError(
                        f"{self.path} changed while its records were read; read them again"
                    ) from None
                yield from rows

    def _search_words(
        self,
        words: list[str],
        ids: list[int],
        exception: str | None,
        limit: int,
        offset: int,
        message_only: bool,
    ) -> SearchResult:
        # FTS5 finds the errors rank's rule finds; the score below orders them.
        fields = rank.FIELDS[:1] if message_only else rank.FIELDS
        where = (
            " FROM sites_fts JOIN sites AS s ON s.id = sites_fts.rowid"
            " JOIN snapshots AS sn ON sn.id = s.snapshot_id"
            " WHERE sites_fts MATCH ? AND s.snapshot_id IN (SELECT value FROM json_each(?))"
        )
        params: list[Any] = [_fts_query(words, "message" if message_only else None)]
        params.append(json.dumps(ids))
        if exception is not None:
            where += " AND ? IN (s.exc_name, s.exc_qualname, s.exc_short)"
            params.append(exception)
        total = int(self._read(f"SELECT count(*) {where}", params)[0][0])
        if total == 0 or offset >= total or limit <= 0:
            return SearchResult(total=total, hits=())
        # rank's order in SQL: each of rank.score_terms is a set FTS5 finds once. Only
        # the page's rows are read whole, after the sort.
        scores, score_params = [], []
        for weight, column, term in rank.score_terms(words, fields):
            scores.append(f"{weight} * (s.id IN ({_FTS_ROWIDS}))")
            score_params.append(_fts_term(column, term))
        order = self._read(
            f"SELECT s.id, {' + '.join(scores)} AS score, s.id IN ({_FTS_ROWIDS}) AS in_message,"
            f" s.snapshot_id {where} ORDER BY in_message DESC, score DESC,"
            " length(coalesce(s.message_text, '')), s.site_id, s.snapshot_id LIMIT ? OFFSET ?",
            [*score_params, _fts_query(words, "message"), *params, limit, offset],
        )
        columns = ", ".join(f"sites_fts.{c}" for c in fields)
        full = {
            (row[0], row[1]): row[2:]
            for row in self._read(
                f"SELECT s.id, s.snapshot_id, {_RECORD_FIELDS}, {columns} FROM sites AS s"
                " JOIN snapshots AS sn ON sn.id = s.snapshot_id"
                " JOIN sites_fts ON sites_fts.rowid = s.id"
                " WHERE s.id IN (SELECT value FROM json_each(?))"
                " AND s.snapshot_id IN (SELECT value FROM json_each(?))",
                [json.dumps([row[0] for row in order]), json.dumps([row[3] for row in order])],
            )
        }
        hits = tuple(
            SearchHit(
                record=record(record_utf8(full[rowid, snapshot_id])),
                score=float(score),
                highlight=search_highlight(words, tuple(full[rowid, snapshot_id][7:])),
            )
            for rowid, score, _, snapshot_id in order
        )
        return SearchResult(total=total, hits=hits)

    def search_fields(self) -> list[tuple[str, str, str, int, tuple[str | None, ...]]]:
        """(id, package, version, line, the rank.FIELDS values) of every error that
        search covers by default (the newest version of each package), as the full-text
        index holds them: a static export's page searches exactly these."""
        ids = self._selected(None, None)
        rows = self._read(
            f"SELECT s.site_id, p.package, p.version, s.line,"
            f" {', '.join(f'sites_fts.{c}' for c in rank.FIELDS)}"
            " FROM sites_fts JOIN sites AS s ON s.id = sites_fts.rowid"
            " JOIN snapshots AS p ON p.id = s.snapshot_id"
            " WHERE s.snapshot_id IN (SELECT value FROM json_each(?))"
            " ORDER BY p.package, s.file, s.line, s.site_id",
            [json.dumps(ids)],
        )
        return [(r[0], r[1], r[2], r[3], tuple(r[4:])) for r in rows]

    # -- the match index --------------------------------------------------------------

    def _index_query(self, query: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return query(self._conn(), *args, **kwargs)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the match index of {self.path}: {exc}") from exc

    # -- model notes ------------------------------------------------------------------

    def save_enrichment(self, enrichment: Enrichment) -> None:
        """Keep `enrichment`, replacing an earlier note by the same model on the same id."""
        conn = self._writing_conn("a model note is to be kept in it")
        try:
            with self._transaction(conn):
                conn.execute(
                    "INSERT OR REPLACE INTO enrichments (site_id, model, created, text,"
                    " provenance) VALUES (?, ?, ?, ?, ?)",
                    (
                        enrichment.site_id,
                        enrichment.model,
                        enrichment.created,
                        enrichment.text,
                        enrichment.provenance,
                    ),
                )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write a model note to {self.path}: {exc}") from exc

    # -- the failures of errdex index-many ----------------------------------------------

    def record_failure(self, failure: IndexFailure) -> None:
        """Keep why `failure.source` could not be indexed, replacing an earlier reason."""
        conn = self._writing_conn("a failure is to be kept in it")
        try:
            with self._transaction(conn):
                conn.execute(
                    "INSERT OR REPLACE INTO failures (source, reason, attempts, failed_at)"
                    " VALUES (?, ?, ?, ?)",
                    (failure.source, failure.reason, failure.attempts, failure.failed_at),
                )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write a failure to {self.path}: {exc}") from exc

    def clear_failure(self, source: str) -> None:
        """Forget the failure of `source` (it has been indexed since)."""
        conn = self._writing_conn("a failure is to be forgotten")
        try:
            with self._transaction(conn):
                conn.execute("DELETE FROM failures WHERE source = ?", (source,))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write to {self.path}: {exc}") from exc

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close every connection of this store; later calls raise StoreError."""
        with self._lock:
            connections, self._connections = self._connections, []
            self._closed = True
        for conn in connections:
            conn.close()

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"
