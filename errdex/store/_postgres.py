# The PostgreSQL store: the same interface and answers as the SQLite store, for an index
# that many indexers write and many servers read at once. psycopg 3 with a connection
# pool; PostgreSQL's full-text search, pg_trgm for fragments of a word; a record that
# several versions have unchanged is stored once (`records`, listed per snapshot in
# `members`). All of errdex's SQL for PostgreSQL lives here, in postgres.sql and in
# _postgres_index.py.
#
# Writers: one snapshot is one transaction. Writers take one advisory lock for the
# length of their write transaction (the sites are extracted before it), so two indexers
# never interleave their updates of shared rows (records, the match index's counts) and
# never deadlock; readers never wait for a writer (MVCC).
from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

from errdex import codec, rank
from errdex.errors import NoDatabase, NotErrdexDatabase, StoreError
from errdex.model import (
    Enrichment,
    ErrorSite,
    IndexFailure,
    Record,
    SearchHit,
    SearchResult,
    SkippedFile,
    Snapshot,
)
from errdex.store import _postgres_index as index
from errdex.store import _postgres_search as search
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
    index_columns,
    pack_lines,
    search_highlight,
    search_texts,
    stored_bodies,
)
from errdex.store._schema import MIGRATIONS, SCHEMA_VERSION, full_schema

_POOL_MAX = 8  # connections per store (each thread of a server borrows one per query)
_CONNECT_SECONDS = 10
# pg_advisory_xact_lock keys: one for schema changes, one that every writer holds.
_SCHEMA_LOCK = 0x65727264_00000001
_WRITE_LOCK = 0x65727264_00000002
_CURSORS = itertools.count()


def _describe(url: str) -> str:
    """The URL without its user and password, for messages."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://" + url.rsplit("@", 1)[-1].split("://", 1)[-1]
    host = parts.get("host") or "localhost"
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{host}{port}/{parts.get('dbname') or ''}"


def _glob_regex(pattern: str) -> str:
    """An fnmatch pattern as an anchored POSIX regular expression (`*` crosses folders)."""
    out, i = ["^"], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and (close := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(c if c.isalnum() else "\\" + c)
        i += 1
    return "".join(out) + "$"


# The records a write adds, as its `incoming` table takes them (before their words
# become tsvectors).
_INCOMING = (
    "digest BYTEA, site_id TEXT, file TEXT, function TEXT, kind TEXT, exc_name TEXT,"
    " exc_qualname TEXT, exc_short TEXT, message_text TEXT, message_literal TEXT,"
    " title TEXT, body BYTEA, template_id BIGINT, base TEXT, exc_bases TEXT, holes TEXT,"
    " f_solutions TEXT, f_inputs TEXT, " + ", ".join(f"w_{field} TEXT" for field in rank.FIELDS)
)
_RECORD_COLUMNS = (
    "digest, site_id, file, function, kind, exc_name, exc_qualname, exc_short,"
    " message_text, message_literal, title, body, template_id, base, exc_bases, holes,"
    " f_solutions, f_inputs"
)
_VECTORS = ", ".join(search.VECTORS) + ", search"
_VECTOR_VALUES = (
    ", ".join(f"to_tsvector('simple', w_{field})" for field in rank.FIELDS)
    + ", to_tsvector('simple', "
    + " || ' ' || ".join(f"w_{field}" for field in rank.FIELDS)
    + ")"
)
# What a query selects to make a Record: the body and its snapshot's fields.
_RECORD_FIELDS = f"r.body, sn.package, sn.version, sn.repo_url, {LINK_REF}, m.line, m.lines"


def _record(row: Sequence[Any]) -> Record:
    return record(record_utf8(row))


def _record_values(stored: StoredBody, site: ErrorSite, template: int | None) -> tuple[Any, ...]:
    """The `incoming` row of a record to add, in _INCOMING order."""
    message = site.message
    text = literal = None
    if message is not None:
        text = message.text
        if message.static:
            literal = message.literal_text.strip()
    title = None if site.explanation is None else site.explanation.title
    loc, exc = site.location, site.exception
    base, bases, holes = index_columns(site)
    fields = search_texts(site)
    return (
        stored.digest,
        site.id,
        loc.file,
        loc.function,
        site.kind,
        exc.name,
        exc.qualname,
        exc.qualname.rpartition(".")[2],
        text,
        literal,
        title,
        stored.compressed(),
        template,
        base,
        bases,
        holes,
        fields[2],
        fields[3],
        *(search.words(value) for value in fields),
    )


def _add_records(
    conn: Connection[Any],
    snapshot_id: int,
    sites: Sequence[ErrorSite],
    prepared: Sequence[StoredBody],
    templates: Sequence[int | None],
) -> None:
    """Make each of `sites` (with its body and digest, from stored_bodies) a member of the
    snapshot, adding the records not stored yet (only those are compressed and sent)."""
    digests = list({stored.digest for stored in prepared})
    ids: dict[bytes, int] = {
        bytes(digest): record_id
        for digest, record_id in conn.execute(
            "SELECT digest, id FROM records WHERE digest = ANY(%s)", (digests,)
        )
    }
    new: dict[bytes, tuple[Any, ...]] = {}
    for site, stored, template in zip(sites, prepared, templates, strict=True):
        if stored.digest not in ids and stored.digest not in new:
            new[stored.digest] = _record_values(stored, site, template)
    if new:
        conn.execute(f"CREATE TEMP TABLE incoming ({_INCOMING}) ON COMMIT DROP")
        with conn.cursor().copy("COPY incoming FROM STDIN") as copy:
            for values in new.values():
                copy.write_row(values)
        ids.update(
            (bytes(digest), record_id)
            for digest, record_id in conn.execute(
                f"INSERT INTO records ({_RECORD_COLUMNS}, {_VECTORS})"
                f" SELECT {_RECORD_COLUMNS}, {_VECTOR_VALUES} FROM incoming"
                " RETURNING digest, id"
            )
        )
        conn.execute("DROP TABLE incoming")
    with conn.cursor().copy(
        "COPY members (snapshot_id, ord, record_id, line, lines) FROM STDIN"
    ) as copy:
        for ord, (site, stored) in enumerate(zip(sites, prepared, strict=True)):
            line = site.location.line
            lines = pack_lines(line, stored.body.lines)
            copy.write_row((snapshot_id, ord, ids[stored.digest], line, lines))


def reshape_records(conn: Connection[Any]) -> None:
    """Store the sites of a database of schema 4 (records shared only when unchanged,
    with their line numbers; the report link kept per snapshot) as this schema does,
    one snapshot at a time, each read as schema 4 wrote them."""
    # Schema 4's tables and their indexes out of the way of this schema's names.
    conn.execute(
        "DROP INDEX records_site_id, records_message_text, records_message_literal,"
        " records_template, records_base, records_search, records_message_trgm, members_record"
    )
    for index_name in ("members_pkey", "records_pkey", "records_digest_key"):
        conn.execute(f"ALTER INDEX {index_name} RENAME TO old_{index_name}")
    conn.execute("ALTER TABLE members RENAME TO old_members")
    conn.execute("ALTER TABLE records RENAME TO old_records")
    conn.execute("ALTER SEQUENCE records_id_seq RENAME TO old_records_id_seq")
    schema = full_schema("postgresql")
    for name in ("CREATE TABLE records", "CREATE TABLE members"):
        start = schema.index(name)
        conn.execute(schema[start : schema.index(";", start) + 1])
    for line in schema.splitlines():
        if line.startswith(("CREATE INDEX records_", "CREATE INDEX members_")):
            conn.execute(line)
    for snapshot_id, package, version, source, repo_url, commit in conn.execute(
        "SELECT id, package, version, source, repo_url, commit_id FROM snapshots ORDER BY id"
    ).fetchall():
        rows = conn.execute(
            "SELECT r.body, m.report_url, r.template_id FROM old_members AS m"
            " JOIN old_records AS r ON r.id = m.record_id WHERE m.snapshot_id = %s"
            " ORDER BY m.ord",
            (snapshot_id,),
        ).fetchall()
        sites = [
            codec.site_from_json(
                json.loads(codec.v4_record_text(body, package, version, repo_url, commit, report))
            )
            for body, report, _ in rows
        ]
        snapshot = Snapshot(
            package=package,
            version=version,
            root=Path("/"),
            source=source,
            repo_url=repo_url,
            commit=commit,
        )
        _add_records(
            conn, snapshot_id, sites, stored_bodies(snapshot, sites)(), [tid for _, _, tid in rows]
        )
    conn.execute("DROP TABLE old_members")
    conn.execute("DROP TABLE old_records")


class PostgresStore(StoreBase):
    """Error sites and snapshots in one PostgreSQL database, shared by every process
    that opens it. Thread-safe: each call borrows a connection from the pool, except
    inside `reading()`, whose thread keeps one for the block."""

    _mark = "%s"
    _no_limit = None
    _record_fields = _RECORD_FIELDS
    _record_order = "ORDER BY sel.key, r.file, m.line, m.ord"
    _id_field = "r.site_id"
    # a record's state: its shared body's digest and where it stands in this version (a
    # body is shared by the versions where it only moved)
    _state_fields = (
        "r.site_id, sn.package, sn.version,"
        " encode(r.digest, 'hex') || '.' || m.line || '.' || encode(m.lines, 'hex')"
    )
    _site_rows = (
        "FROM records AS r JOIN members AS m ON m.record_id = r.id"
        " JOIN snapshots AS sn ON sn.id = m.snapshot_id WHERE r.site_id = %s"
    )
    _site_order = "ORDER BY sn.id, m.ord"
    _message_is = "AND (r.message_text = %s OR r.message_literal = %s)"
    _index_queries: ClassVar[ModuleType] = index

    def __init__(self, url: str, *, create: bool = True) -> None:
        """Connect to the database at `url` and create errdex's schema in it if `create`.

        Raises NoDatabase if it has no errdex schema and `create` is false; StoreError if
        it cannot be reached, holds other tables, or was written by a newer errdex.
        """
        self.url = url
        self.where = _describe(url)
        self._local = threading.local()
        self._closed = False
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=_CONNECT_SECONDS) as conn:
                self._prepare(conn, create=create)
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot connect to the PostgreSQL database {self.where}: {exc}".rstrip()
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot prepare the database {self.where}: {exc}") from exc
        self._pool: ConnectionPool[Connection[Any]] = ConnectionPool(
            url,
            min_size=1,
            max_size=_POOL_MAX,
            kwargs={"autocommit": True},
            open=True,
            name=f"errdex {self.where}",
        )

    # -- schema -----------------------------------------------------------------------

    def _schema_version(self, conn: Connection[Any]) -> int | None:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        ]
        if not tables:
            return None
        if "meta" not in tables:
            raise NotErrdexDatabase(
                f"{self.where} is not an errdex database: it has tables but not errdex's"
                f" meta table (tables: {', '.join(sorted(tables)[:5])})",
                self.where,
            )
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        try:
            return int(row[0]) if row is not None else int("")
        except ValueError as exc:
            raise NotErrdexDatabase(
                f"{self.where} is not an errdex database: its meta table has no valid"
                f" schema_version ({row!r})",
                self.where,
            ) from exc

    def _prepare(self, conn: Connection[Any], *, create: bool) -> None:
        found = self._schema_version(conn)
        if found == SCHEMA_VERSION:
            return
        self._check_not_newer(found)
        if found is None and not create:
            raise NoDatabase(self.where)
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            found = self._schema_version(conn)  # another process may have been first
            self._check_not_newer(found)
            if found is None:
                conn.execute(full_schema("postgresql"))
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', %s)",
                    (str(SCHEMA_VERSION),),
                )
            elif found < SCHEMA_VERSION:
                self._migrate(conn, found)

    def _migrate(self, conn: Connection[Any], found: int) -> None:
        """Take a database of schema `found` to SCHEMA_VERSION (in the caller's
        transaction)."""
        steps = [MIGRATIONS[version] for version in range(found, SCHEMA_VERSION)]
        if any(step.postgresql is None for step in steps):
            # PostgreSQL begins at version 4: no step before it has PostgreSQL SQL.
            raise StoreError(
                f"{self.where} has errdex schema version {found}, which PostgreSQL"
                " databases never had; index into a new database"
            )
        for step in steps:
            if step.postgresql:
                conn.execute(step.postgresql)
        if any(step.share_records for step in steps):
            reshape_records(conn)
        conn.execute(
            "UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
        )

    def _check_not_newer(self, found: int | None) -> None:
        if found is not None and found > SCHEMA_VERSION:
            raise StoreError(
                f"{self.where} was written by a newer errdex (schema version {found}; this"
                f" errdex reads up to {SCHEMA_VERSION}); upgrade errdex"
                " (pip install -U 'errdex[scale]') or use another database"
            )

    # -- connections ------------------------------------------------------------------

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Connection[Any]]:
        """The connection of this thread's `reading()` block, else one from the pool."""
        if self._closed:
            raise StoreError(f"the store {self.where} is closed")
        held: Connection[Any] | None = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self._pool.connection(timeout=_CONNECT_SECONDS * 3) as conn:
            yield conn

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        try:
            with self._conn() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"cannot read {self.where}: {exc}") from exc

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Every read of this thread inside the block sees one state of the database,
        whatever another process writes meanwhile (a repeatable-read transaction; nests)."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        if self._closed:
            raise StoreError(f"the store {self.where} is closed")
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                self._local.conn = conn
                try:
                    yield
                finally:
                    self._local.conn = None
        except psycopg.Error as exc:
            raise StoreError(f"cannot read {self.where}: {exc}") from exc

    @contextlib.contextmanager
    def _writing(self, what: str) -> Iterator[Connection[Any]]:
        """A write transaction holding the writers' lock; rolled back on any exception."""
        if self._closed:
            raise StoreError(f"the store {self.where} is closed")
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_WRITE_LOCK,))
                yield conn
        except psycopg.Error as exc:
            raise StoreError(f"cannot write {what} to {self.where}: {exc}") from exc

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
        Records another version already has unchanged are shared, not written again.
        Raises StoreError for a database that cannot be written.
        """
        written = list(sites)  # before the transaction: the lock is held only to write
        prepared = stored_bodies(snapshot, written)()  # before the writers' lock
        with self._writing(f"{snapshot.package} {snapshot.version}") as conn:
            old_records = self._delete_snapshot(conn, snapshot.package, snapshot.version)
            found = conn.execute(
                "INSERT INTO snapshots (package, version, source, repo_url, commit_id, date,"
                " files, sites, tree_hash, extractor, indexed_at, tag)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
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
            ).fetchone()
            assert found is not None
            snapshot_id = found[0]
            if skipped:
                conn.execute(
                    "INSERT INTO skipped (snapshot_id, path, reason)"
                    " SELECT %s, * FROM unnest(%s::text[], %s::text[])",
                    (snapshot_id, [s.path for s in skipped], [s.reason for s in skipped]),
                )
            kept = dict(storable_digests(digests))  # one row a path
            if kept:
                conn.execute(
                    "INSERT INTO files (snapshot_id, path, digest)"
                    " SELECT %s, * FROM unnest(%s::text[], %s::text[])",
                    (snapshot_id, list(kept), list(kept.values())),
                )
            templates = index.templates_of(conn, written)
            _add_records(conn, snapshot_id, written, prepared, templates)
            if old_records:
                gone = conn.execute(
                    "DELETE FROM records AS r WHERE r.id = ANY(%s)"
                    " AND NOT EXISTS (SELECT 1 FROM members AS m WHERE m.record_id = r.id)"
                    " RETURNING template_id",
                    (old_records,),
                ).fetchall()
                index.drop_orphans(conn, {t for (t,) in gone if t is not None})
            self._bump_generation(conn)

    @staticmethod
    def _delete_snapshot(conn: Connection[Any], package: str, version: str) -> list[int]:
        """Remove (package, version) if stored; return the ids of the records it had (the
        caller deletes those no other snapshot has)."""
        old = conn.execute(
            "SELECT id FROM snapshots WHERE package = %s AND version = %s", (package, version)
        ).fetchone()
        if old is None:
            return []
        records = conn.execute(
            "DELETE FROM members WHERE snapshot_id = %s RETURNING record_id", (old[0],)
        ).fetchall()
        conn.execute("DELETE FROM snapshots WHERE id = %s", (old[0],))
        return [r for (r,) in records]

    @staticmethod
    def _bump_generation(conn: Connection[Any]) -> None:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key)"
            " DO UPDATE SET value = (meta.value::bigint + 1)::text"
        )

    # -- reading ----------------------------------------------------------------------

    def _where(
        self, package: str | None, version: str | None, exception: str | None, file_glob: str | None
    ) -> tuple[str, list[Any]] | None:
        ids = self._selected(package, version)
        if not ids:
            return None
        sql = (
            " FROM unnest(%s::bigint[]) WITH ORDINALITY AS sel (id, key)"
            " JOIN snapshots AS sn ON sn.id = sel.id"
            " JOIN members AS m ON m.snapshot_id = sel.id"
            " JOIN records AS r ON r.id = m.record_id WHERE true"
        )
        params: list[Any] = [ids]
        if exception is not None:
            sql += " AND %s IN (r.exc_name, r.exc_qualname, r.exc_short)"
            params.append(exception)
        if file_glob is not None:
            sql += " AND r.file ~ %s"
            params.append(_glob_regex(file_glob))
        return sql, params

    def _stream(self, sql: str, params: Sequence[Any]) -> Generator[Sequence[Any], None, None]:
        # From a server-side cursor, FETCH rows at a time.
        try:
            with (
                self._conn() as conn,
                conn.transaction(),
                conn.cursor(name=f"errdex_records_{next(_CURSORS)}") as cur,
            ):
                cur.itersize = FETCH
                cur.execute(sql, params)
                yield from cur
        except psycopg.Error as exc:
            raise StoreError(f"cannot read {self.where}: {exc}") from exc

    def _search_words(
        self,
        words: list[str],
        ids: list[int],
        exception: str | None,
        limit: int,
        offset: int,
        message_only: bool,
    ) -> SearchResult:
        fields = rank.FIELDS[:1] if message_only else rank.FIELDS
        query = search.every_word(words)
        where = (
            " FROM members AS m JOIN records AS r ON r.id = m.record_id"
            " JOIN snapshots AS sn ON sn.id = m.snapshot_id"
            f" WHERE m.snapshot_id = ANY(%s) AND r.{'t_message' if message_only else 'search'}"
            " @@ %s::tsquery"
        )
        params: list[Any] = [ids, query]
        if exception is not None:
            where += " AND %s IN (r.exc_name, r.exc_qualname, r.exc_short)"
            params.append(exception)
        total = int(self._read(f"SELECT count(*) {where}", params)[0][0])
        if total == 0 or offset >= total or limit <= 0:
            return SearchResult(total=total, hits=())
        scores, score_params = [], []
        for weight, field, term in rank.score_terms(words, fields):
            scores.append(f"{weight} * (r.t_{field} @@ %s::tsquery)::int")
            score_params.append(search.term(term))
        texts = ", ".join(search.TEXTS[: len(fields)])
        rows = self._read(
            f"SELECT {_RECORD_FIELDS}, {' + '.join(scores)} AS score,"
            f" r.t_message @@ %s::tsquery AS in_message, {texts} {where}"
            " ORDER BY in_message DESC, score DESC, length(coalesce(r.message_text, '')),"
            " r.site_id, m.snapshot_id LIMIT %s OFFSET %s",
            [*score_params, query, *params, limit, offset],
        )
        hits = tuple(
            SearchHit(
                record=_record(row),
                score=float(row[7]),
                highlight=search_highlight(words, tuple(row[9:])),
            )
            for row in rows
        )
        return SearchResult(total=total, hits=hits)

    def _search_fragment(
        self, fragment: str, ids: list[int], exception: str | None, limit: int, offset: int
    ) -> SearchResult | None:
        """The messages that hold `fragment` in a word (pg_trgm), most alike first; None
        for a fragment shorter than a trigram."""
        if len(fragment) < 3:
            return None
        fragment = fragment[: rank.MAX_QUERY_CHARS]
        sql = (
            " FROM members AS m JOIN records AS r ON r.id = m.record_id"
            " JOIN snapshots AS sn ON sn.id = m.snapshot_id"
            " WHERE m.snapshot_id = ANY(%s) AND r.message_text ILIKE %s"
        )
        params: list[Any] = [ids, search.like(fragment)]
        if exception is not None:
            sql += " AND %s IN (r.exc_name, r.exc_qualname, r.exc_short)"
            params.append(exception)
        total = int(self._read(f"SELECT count(*) {sql}", params)[0][0])
        if total == 0 or offset >= total or limit <= 0:
            return SearchResult(total=total, hits=())
        rows = self._read(
            f"SELECT {_RECORD_FIELDS}, similarity(r.message_text, %s), r.message_text, r.title"
            f"{sql} ORDER BY 8 DESC, r.site_id, m.snapshot_id LIMIT %s OFFSET %s",
            [fragment, *params, limit, offset],
        )
        hits = tuple(
            SearchHit(
                record=_record(row),
                score=round(float(row[7]), 4),
                highlight={
                    "message": search.fragment_marks(row[8], fragment),
                    "title": search.fragment_marks(row[9], fragment),
                },
            )
            for row in rows
        )
        return SearchResult(total=total, hits=hits)

    def search_fields(self) -> list[tuple[str, str, str, int, tuple[str | None, ...]]]:
        """(id, package, version, line, the rank.FIELDS values) of every error that
        search covers by default (the newest version of each package)."""
        ids = self._selected(None, None)
        rows = self._read(
            f"SELECT r.site_id, sn.package, sn.version, m.line, {', '.join(search.TEXTS)}"
            " FROM members AS m JOIN records AS r ON r.id = m.record_id"
            " JOIN snapshots AS sn ON sn.id = m.snapshot_id WHERE m.snapshot_id = ANY(%s)"
            " ORDER BY sn.package, r.file, m.line, r.site_id",
            [ids],
        )
        return [(r[0], r[1], r[2], r[3], tuple(r[4:])) for r in rows]

    # -- the match index --------------------------------------------------------------

    def _index_query(self, query: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            with self._conn() as conn:
                return query(conn, *args, **kwargs)
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the match index of {self.where}: {exc}") from exc

    # -- model notes ------------------------------------------------------------------

    def save_enrichment(self, enrichment: Enrichment) -> None:
        """Keep `enrichment`, replacing an earlier note by the same model on the same id."""
        with self._writing("a model note") as conn:
            conn.execute(
                "INSERT INTO enrichments (site_id, model, created, text, provenance)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (site_id, model) DO UPDATE SET"
                " created = EXCLUDED.created, text = EXCLUDED.text,"
                " provenance = EXCLUDED.provenance",
                (
                    enrichment.site_id,
                    enrichment.model,
                    enrichment.created,
                    enrichment.text,
                    enrichment.provenance,
                ),
            )

    # -- the failures of errdex index-many ----------------------------------------------

    def record_failure(self, failure: IndexFailure) -> None:
        """Keep why `failure.source` could not be indexed, replacing an earlier reason."""
        with self._writing("a failure") as conn:
            conn.execute(
                "INSERT INTO failures (source, reason, attempts, failed_at)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (source) DO UPDATE SET"
                " reason = EXCLUDED.reason, attempts = EXCLUDED.attempts,"
                " failed_at = EXCLUDED.failed_at",
                (failure.source, failure.reason, failure.attempts, failure.failed_at),
            )

    def clear_failure(self, source: str) -> None:
        """Forget the failure of `source` (it has been indexed since)."""
        with self._writing("a failure") as conn:
            conn.execute("DELETE FROM failures WHERE source = %s", (source,))

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the pool's connections; later calls raise StoreError."""
        if not self._closed:
            self._closed = True
            self._pool.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.where!r})"
