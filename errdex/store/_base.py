# What the SQLite and PostgreSQL stores share above their SQL: the queries whose Python
# is the same over each backend's primitives (_read, _stream, _where, _search_words,
# _index_query and the match index's query module). Each backend keeps the SQL its
# dialect decides; what is the same but for the parameter mark (`?` or `%s`) is written
# here once, with `_mark`.
from __future__ import annotations

import contextlib
import dataclasses
import json
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Generator, Iterator, Sequence
from types import ModuleType, TracebackType
from typing import Any, ClassVar, Self, TypeVar

from errdex import codec, rank
from errdex.errors import StoreError
from errdex.model import (
    Enrichment,
    IndexedSite,
    IndexFailure,
    Record,
    SearchResult,
    SkippedFile,
    StoredSnapshot,
)
from errdex.names import canonical as canonicalize_name
from errdex.store._common import (
    chosen_snapshots,
    sort_versions,
    unpack_body,
    unpack_lines,
    version_key,
)

T = TypeVar("T")
FETCH = 500  # rows fetched at a time when streaming records


# What links of a snapshot's records point at, as one column of a record's row (rows are
# read by position, and every query of records selects it in the same place): the commit,
# else "tag:" and the release's tag (commits are hex digits), else NULL.
LINK_REF = "COALESCE(sn.commit_id, 'tag:' || sn.tag)"
_TAG_REF = "tag:"


def record_utf8(row: Sequence[Any]) -> bytes:
    """The UTF-8 of the record's JSON text from a row that starts with a backend's
    _record_fields: the stored body, its snapshot's package, version, repo URL and link
    ref (LINK_REF), and its member's line and packed lines. Raises StoreError for one
    that cannot be read."""
    packed, package, version, repo_url, ref, line, lines = row[:7]
    tag = ref[len(_TAG_REF) :] if ref is not None and ref.startswith(_TAG_REF) else None
    with _damage_said():
        return codec.shared_record_utf8(
            unpack_body(packed), unpack_lines(line, bytes(lines)), line, package, version,
            repo_url, None if tag is not None else ref, tag,
        )  # fmt: skip


def record(text: bytes | str) -> Record:
    """The Record of a record's JSON text (or its UTF-8); StoreError if it is damaged."""
    with _damage_said():
        return codec.record_from_json(json.loads(text))


@contextlib.contextmanager
def _damage_said() -> Iterator[None]:
    """A stored record that cannot be read back (its compressed body, its line marks or
    its JSON damaged) as our StoreError, which says so, rather than a bug of errdex's."""
    try:
        yield
    except (zlib.error, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise StoreError(
            f"a stored record cannot be read ({type(exc).__name__}: {exc}): the database is"
            " damaged; index again into a new database file"
        ) from exc


class StoreBase(ABC):
    """The part of errdex.store.Store that is the same for every database: see the
    backends (SqliteStore, PostgresStore) for what each database does its own way."""

    # The dialect's parameter mark, and the LIMIT that means no limit.
    _mark: ClassVar[str]
    _no_limit: ClassVar[int | None]
    # What a query selects to make a record: the body and its snapshot's fields.
    _record_fields: ClassVar[str]
    # The column of a record's site id, in the clause of _where.
    _id_field: ClassVar[str]
    # What record_states selects: id, package, version, the record's digest, report_url.
    _state_fields: ClassVar[str]
    # The order of records in list_records, after the FROM/WHERE clause of _where.
    _record_order: ClassVar[str]
    # The FROM/WHERE clause of the rows of one site_id, and their order (by snapshot).
    _site_rows: ClassVar[str]
    _site_order: ClassVar[str]
    # The condition on the message of a record, after the clause of _where.
    _message_is: ClassVar[str]
    # The module of the match index's queries (each takes a connection first).
    _index_queries: ClassVar[ModuleType]

    # -- the backend's primitives ---------------------------------------------------------

    @abstractmethod
    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """All the rows of `sql`; StoreError if the database cannot be read."""

    @abstractmethod
    def _where(
        self,
        package: str | None,
        version: str | None,
        exception: str | None,
        file_glob: str | None,
    ) -> tuple[str, list[Any]] | None:
        """Return the FROM/WHERE clause over the chosen snapshots' records and its
        parameters, None if nothing matches (no snapshot is chosen)."""

    @abstractmethod
    def _search_words(
        self,
        words: list[str],
        ids: list[int],
        exception: str | None,
        limit: int,
        offset: int,
        message_only: bool,
    ) -> SearchResult:
        """search's answer for `words` (some) in the snapshots `ids`."""

    def _search_fragment(
        self, fragment: str, ids: list[int], exception: str | None, limit: int, offset: int
    ) -> SearchResult | None:
        """search's answer when no error holds the words: None (none) unless the backend
        can find `fragment` inside words."""
        return None

    @abstractmethod
    def _index_query(self, query: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`query(connection, *args, **kwargs)`; StoreError if the index cannot be read."""

    @abstractmethod
    def _stream(self, sql: str, params: Sequence[Any]) -> Generator[Sequence[Any], None, None]:
        """The rows of `sql`, a batch at a time from the database; StoreError if it cannot
        be read."""

    def _record_rows(
        self, clause: str, params: Sequence[Any]
    ) -> Generator[Sequence[Any], None, None]:
        """The rows of `SELECT {_record_fields} {clause}`, streamed as `_stream` does: a
        backend may read the bodies apart from the rest."""
        return self._stream(f"SELECT {self._record_fields} {clause}", params)

    # -- reading ----------------------------------------------------------------------

    def snapshot_state(self, package: str, version: str) -> tuple[str, str] | None:
        """Return (tree_hash, extractor) of the stored snapshot, or None if there is none."""
        m = self._mark
        rows = self._read(
            f"SELECT tree_hash, extractor FROM snapshots WHERE package = {m} AND version = {m}",
            (package, version),
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def snapshots(self) -> list[StoredSnapshot]:
        """Return every stored snapshot, ordered by package then version (oldest first)."""
        skipped: dict[int, list[SkippedFile]] = {}
        for snapshot_id, path, reason in self._read(
            "SELECT snapshot_id, path, reason FROM skipped ORDER BY snapshot_id, path"
        ):
            skipped.setdefault(snapshot_id, []).append(SkippedFile(path=path, reason=reason))
        out = [
            StoredSnapshot(
                package=package,
                version=version,
                source=source,
                repo_url=repo_url,
                commit=commit,
                date=date,
                files=files,
                sites=sites,
                skipped=tuple(skipped.get(snapshot_id, ())),
                indexed_at=indexed_at,
                tag=tag,
            )
            for (
                snapshot_id,
                package,
                version,
                source,
                repo_url,
                commit,
                date,
                files,
                sites,
                indexed_at,
                tag,
            ) in self._read(
                "SELECT id, package, version, source, repo_url, commit_id, date, files, sites,"
                " indexed_at, tag FROM snapshots"
            )
        ]
        out.sort(key=lambda s: (s.package, version_key(s.version)))
        return out

    def _selected(self, package: str | None, version: str | None) -> list[int]:
        """Return the ids of the snapshots a query covers, in (package, version) order.

        version None: the newest version of each package; "*": every version.
        """
        sql = "SELECT id, package, version FROM snapshots"
        params: list[Any] = []
        if package is not None:
            sql += f" WHERE package = {self._mark}"
            params.append(canonicalize_name(package))  # `Foo_Bar` finds foo-bar
        return chosen_snapshots(self._read(sql, params), version)

    def list_records(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Record]:
        """Return the records that pass every filter given, by package, file and line.

        `version` None means the newest version of each package, "*" every version;
        `exception` matches the name as written, the qualname, or its last component;
        `file_glob` is an fnmatch-style pattern on location.file.
        """
        return list(
            self.iter_records(
                package=package,
                version=version,
                exception=exception,
                file_glob=file_glob,
                limit=limit,
                offset=offset,
            )
        )

    def count(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
    ) -> int:
        """Return how many records `list_records` would return with the same filters."""
        where = self._where(package, version, exception, file_glob)
        if where is None:
            return 0
        sql, params = where
        return int(self._read(f"SELECT count(*) {sql}", params)[0][0])

    def tallies(self, package: str, version: str) -> list[tuple[str, str, int]]:
        """(exception name as written, file, how many) over every record of `package`
        `version`: what a version's summary counts, without reading a record."""
        where = self._where(package, version, None, None)
        if where is None:
            return []
        sql, params = where
        row = self._id_field.split(".")[0]  # the alias of the record's columns
        pair = f"{row}.exc_name, {row}.file"
        rows = self._read(f"SELECT {pair}, count(*) {sql} GROUP BY {pair}", params)
        return [(str(name), str(file), int(count)) for name, file, count in rows]

    def site_ids(self, *, package: str | None = None, version: str | None = None) -> list[str]:
        """The distinct ids of the records iter_records yields, in its order, without
        reading the records."""
        where = self._where(package, version, None, None)
        if where is None:
            return []
        sql, params = where
        rows = self._read(f"SELECT {self._id_field} {sql} {self._record_order}", params)
        return list(dict.fromkeys(row[0] for row in rows))

    def record_states(self) -> list[tuple[str, str, str, str]]:
        """(id, package, version, state) of every record of every snapshot, in
        iter_records(version="*")'s order, without reading the records. `state` changes
        whenever the record does (its shared body, or where it stands in that version:
        the rest, the report link among it, derives from them and the snapshot), so that
        a static export can tell which of its pages are unchanged without decoding one."""
        where = self._where(None, "*", None, None)
        if where is None:
            return []
        sql, params = where
        rows = self._read(f"SELECT {self._state_fields} {sql} {self._record_order}", params)
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def iter_records(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[Record]:
        """Yield the records list_records returns, a batch at a time from the database."""
        for text in self.iter_records_utf8(
            package=package,
            version=version,
            exception=exception,
            file_glob=file_glob,
            limit=limit,
            offset=offset,
        ):
            yield record(text)

    def iter_records_json(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[str]:
        """Yield the JSON text of what iter_records yields, as codec wrote it when the
        snapshot was stored (codec.record_to_json of the same record says the same; both
        backends keep the same text), a batch at a time from the database."""
        for text in self.iter_records_utf8(
            package=package,
            version=version,
            exception=exception,
            file_glob=file_glob,
            limit=limit,
            offset=offset,
        ):
            yield text.decode()

    def iter_records_utf8(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[bytes]:
        """Yield the UTF-8 of what iter_records_json yields: for writing the records
        to a file or a pipe without decoding them."""
        where = self._where(package, version, exception, file_glob)
        if where is None:
            return
        sql, params = where
        m = self._mark
        with contextlib.closing(
            self._record_rows(
                f"{sql} {self._record_order} LIMIT {m} OFFSET {m}",
                [*params, self._no_limit if limit is None else limit, offset],
            )
        ) as rows:
            for row in rows:
                yield record_utf8(row)

    def get(
        self, site_id: str, *, package: str | None = None, version: str | None = None
    ) -> Record | None:
        """Return the record `site_id` from the newest version that has it (or the given
        package/version), with `versions` (every indexed version of its package that has
        it, oldest first) and `ai` (the newest model note on it, if any). None if there is
        no such record.
        """
        # A record's rows are few; the package is filtered here, not in SQL, where the
        # planner would rather walk every member of the package's snapshots.
        rows = self._read(
            f"SELECT {self._record_fields} {self._site_rows} {self._site_order}", [site_id]
        )
        if package is not None:
            wanted = canonicalize_name(package)
            rows = [r for r in rows if r[1] == wanted]
        chosen = rows if version is None else [r for r in rows if r[2] == version]
        if not chosen:
            return None
        best = max(chosen, key=lambda r: (version_key(r[2]), r[1]))
        versions = sort_versions(list({r[2] for r in rows if r[1] == best[1]}))
        return dataclasses.replace(
            record(record_utf8(best)), versions=tuple(versions), ai=self.enrichment(site_id)
        )

    def find_by_message(self, text: str) -> list[Record]:
        """Return the records whose message.text is `text`, or whose static message reads
        `text` (surrounding whitespace ignored), newest version of each package.
        """
        where = self._where(None, None, None, None)
        if where is None:
            return []
        sql, params = where
        rows = self._read(
            f"SELECT {self._record_fields} {sql} {self._message_is} {self._record_order}",
            [*params, text, text.strip()],
        )
        return [record(record_utf8(r)) for r in rows]

    def search(
        self,
        text: str,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        limit: int = 20,
        offset: int = 0,
        message_only: bool = False,
    ) -> SearchResult:
        """Return the total and the hits for the words of `text` over the fields of
        errdex.rank (messages, titles, solutions, inputs, exceptions, functions, files;
        the message alone if `message_only`), found and ordered by its rule; when no
        error holds the words, what the backend's _search_fragment finds (PostgreSQL: the
        messages that hold `text` as a fragment of a word, most alike first).

        Each hit's highlight maps "message" and "title" (whole) and "solutions" and
        "inputs" (snippets, only when a word is in them) to segments. `version` None:
        newest version of each package; "*": all; `exception` as in list_records.
        """
        words = rank.words(text)
        ids = self._selected(package, version) if words else []
        if not ids:
            return SearchResult(total=0, hits=())
        found = self._search_words(words, ids, exception, limit, offset, message_only)
        if found.total == 0:
            fragment = self._search_fragment(text.strip(), ids, exception, limit, offset)
            if fragment is not None:
                return fragment
        return found

    # -- the match index --------------------------------------------------------------

    def template_count(self) -> int:
        """How many distinct message templates are stored."""
        return int(self._index_query(self._index_queries.template_count))

    def key_counts(self, keys: Collection[str]) -> dict[str, int]:
        """How many templates hold each of `keys` (words and word pairs of their literal
        text, as errdex.text.features makes them); unknown keys are left out."""
        out: dict[str, int] = self._index_query(self._index_queries.key_counts, keys)
        return out

    def postings(self, keys: Collection[str]) -> dict[str, list[int]]:
        """The ids of the templates that hold each of `keys`."""
        out: dict[str, list[int]] = self._index_query(self._index_queries.postings, keys)
        return out

    def template_masses(self, template_ids: Collection[int], total: int) -> dict[int, float]:
        """Each template's summed key rarity (idf over `total` templates, the count the
        caller's scores use), which normalizes its text score."""
        out: dict[int, float] = self._index_query(self._index_queries.masses, template_ids, total)
        return out

    def indexed_sites(
        self,
        *,
        template_ids: Collection[int] = (),
        bases: Collection[str] = (),
        package: str | None = None,
    ) -> list[IndexedSite]:
        """Every stored row (each version) of the sites that use one of `template_ids`
        or sit in a file named one of `bases` (in `package` only, if given), in the order
        they were written."""
        name = None if package is None else canonicalize_name(package)
        out: list[IndexedSite] = self._index_query(
            self._index_queries.indexed_sites, template_ids=template_ids, bases=bases, package=name
        )
        return out

    def file_digest(self, package: str, version: str, path: str) -> str | None:
        m = self._mark
        rows = self._read(
            "SELECT f.digest FROM files AS f JOIN snapshots AS sn ON sn.id = f.snapshot_id"
            f" WHERE sn.package = {m} AND sn.version = {m} AND f.path = {m}",
            [package, version, path],
        )
        return str(rows[0][0]) if rows else None

    def generation(self) -> int:
        """A number that grows whenever a snapshot is written or replaced, in whichever
        process: a reader holding results of the store can tell cheaply that they are
        stale."""
        rows = self._read("SELECT value FROM meta WHERE key = 'generation'")
        return int(rows[0][0]) if rows else 0

    # -- model notes ------------------------------------------------------------------

    def enrichment(self, site_id: str, model: str | None = None) -> Enrichment | None:
        """Return the newest model note on `site_id` (from `model`, if given), or None."""
        sql = (
            f"SELECT model, created, text, provenance FROM enrichments WHERE site_id = {self._mark}"
        )
        params: list[Any] = [site_id]
        if model is not None:
            sql += f" AND model = {self._mark}"
            params.append(model)
        rows = self._read(sql + " ORDER BY created DESC, model LIMIT 1", params)
        if not rows:
            return None
        model, created, text, provenance = rows[0]
        return Enrichment(
            site_id=site_id, model=model, created=created, text=text, provenance=provenance
        )

    def enrichment_states(self) -> list[tuple[str, str, str, str, str]]:
        """(site_id, model, created, provenance, text) of every model note, by id and
        model: what `enrichment` chooses from, read at once."""
        return [
            (r[0], r[1], r[2], r[3], r[4])
            for r in self._read(
                "SELECT site_id, model, created, provenance, text FROM enrichments"
                " ORDER BY site_id, model"
            )
        ]

    # -- the failures of errdex index-many ----------------------------------------------

    def failures(self) -> list[IndexFailure]:
        """Every recorded failure, by source."""
        return [
            IndexFailure(source=source, reason=reason, attempts=attempts, failed_at=at)
            for source, reason, attempts, at in self._read(
                "SELECT source, reason, attempts, failed_at FROM failures ORDER BY source"
            )
        ]

    # -- lifetime ---------------------------------------------------------------------

    @abstractmethod
    def close(self) -> None:
        """Close the store's connections; later calls raise StoreError."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def storable_digests(digests: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (path, digest) pairs a database's text can hold: a path that is not UTF-8 (a
    name read with surrogate escapes) is left out, as no site can be in it."""
    out = []
    for path, digest in digests:
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            continue
        out.append((path, digest))
    return out
