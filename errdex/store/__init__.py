# The store stage: persists snapshots and their error sites, and answers the queries the
# stages above need. One interface (`Store`), one implementation per database; nothing
# outside this package writes SQL. Sites go in as model.ErrorSite and come out as
# model.Record (the site with its snapshot); JSON is codec's business, not the caller's.
from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

from errdex.errors import AmbiguousMessage, ErrorNotFound, StoreError
from errdex.model import (
    Enrichment,
    ErrorSite,
    IndexedSite,
    IndexFailure,
    Record,
    SearchResult,
    SkippedFile,
    Snapshot,
    StoredSnapshot,
)
from errdex.store._common import default_location, sort_versions, version_key
from errdex.store._schema import SCHEMA_VERSION
from errdex.store._sqlite import SqliteStore

__all__ = [
    "SCHEMA_VERSION",
    "SqliteStore",
    "Store",
    "default_location",
    "find_error",
    "is_postgres",
    "open_store",
    "sort_versions",
    "version_key",
]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class Store(Protocol):
    """What every errdex database offers. `version=None` in a query means the newest
    indexed version of each package; `version="*"` means every version.
    """

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
        """Replace (package, version) with `sites`, all or nothing; `digests` are the
        (path, errdex.identity.file_digest) of its files, as they were indexed."""
        ...

    def file_digest(self, package: str, version: str, path: str) -> str | None:
        """The digest the snapshot recorded of its file `path`; None when it recorded
        none (no such file, or a snapshot written before errdex recorded them)."""
        ...

    def snapshot_state(self, package: str, version: str) -> tuple[str, str] | None:
        """Return (tree_hash, extractor) of the stored snapshot, or None."""
        ...

    def snapshots(self) -> list[StoredSnapshot]:
        """Return every snapshot, by package, then version (oldest first)."""
        ...

    def get(
        self, site_id: str, *, package: str | None = None, version: str | None = None
    ) -> Record | None:
        """Return one record with its `versions` (oldest first) and `ai` note, or None."""
        ...

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
        """Return filtered records by package, file and line."""
        ...

    def count(
        self,
        *,
        package: str | None = None,
        version: str | None = None,
        exception: str | None = None,
        file_glob: str | None = None,
    ) -> int:
        """Return how many records list_records would return."""
        ...

    def tallies(self, package: str, version: str) -> list[tuple[str, str, int]]:
        """(exception name as written, file, count) over every record of a version."""
        ...

    def site_ids(self, *, package: str | None = None, version: str | None = None) -> list[str]:
        """The distinct ids of what iter_records yields, in its order."""
        ...

    def record_states(self) -> list[tuple[str, str, str, str]]:
        """(id, package, version, state) of every record of every snapshot."""
        ...

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
        """Yield what list_records returns, one record at a time."""
        ...

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
        """The JSON text of what iter_records yields, as codec wrote it when stored: for
        streaming every record without parsing and writing it again."""
        ...

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
        """The UTF-8 of what iter_records_json yields: for writing every record to a file
        or a pipe without decoding it."""
        ...

    def find_by_message(self, text: str) -> list[Record]:
        """Return records whose message is exactly `text`."""
        ...

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
        """The errors holding the words of `text` in the fields of errdex.rank (the
        message alone if `message_only`), found and ordered by its rule. Highlights are
        segments for "message" and "title", and for "solutions" and "inputs" when a word
        is in them."""
        ...

    def search_fields(self) -> list[tuple[str, str, str, int, tuple[str | None, ...]]]:
        """(id, package, version, line, rank.FIELDS values) of every error a search
        covers by default (newest version of each package), as search reads them."""
        ...

    # The match index, written with its snapshot: see store/_match_index.py.

    def template_count(self) -> int:
        """How many distinct message templates are stored."""
        ...

    def key_counts(self, keys: Collection[str]) -> dict[str, int]:
        """How many templates hold each of `keys`; unknown keys are left out."""
        ...

    def postings(self, keys: Collection[str]) -> dict[str, list[int]]:
        """The ids of the templates that hold each of `keys`."""
        ...

    def template_masses(self, template_ids: Collection[int], total: int) -> dict[int, float]:
        """Each template's summed key rarity (idf), which normalizes its text score."""
        ...

    def indexed_sites(
        self,
        *,
        template_ids: Collection[int] = (),
        bases: Collection[str] = (),
        package: str | None = None,
    ) -> list[IndexedSite]:
        """Every stored row (each version) of the sites that use one of `template_ids`
        or sit in a file named one of `bases` (in `package` only, if given)."""
        ...

    def generation(self) -> int:
        """A number that grows whenever a snapshot is written or replaced."""
        ...

    def reading(self) -> AbstractContextManager[None]:
        """A block whose reads (of this thread) all see one state of the database."""
        ...

    def enrichment(self, site_id: str, model: str | None = None) -> Enrichment | None:
        """Return the newest model note on `site_id` (by `model`, if given), or None."""
        ...

    def enrichment_states(self) -> list[tuple[str, str, str, str, str]]:
        """(site_id, model, created, provenance, text) of every model note."""
        ...

    def save_enrichment(self, enrichment: Enrichment) -> None:
        """Keep a model note, replacing the same model's earlier note on the same id."""
        ...

    # The failures of `errdex index-many`, kept so that a resumed batch still says why.

    def record_failure(self, failure: IndexFailure) -> None:
        """Keep why `failure.source` could not be indexed, replacing an earlier reason."""
        ...

    def clear_failure(self, source: str) -> None:
        """Forget the failure of `source` (it has been indexed since)."""
        ...

    def failures(self) -> list[IndexFailure]:
        """Every recorded failure, by source."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def is_postgres(location: str | Path) -> bool:
    """Whether `location` names a PostgreSQL database (a postgresql:// URL)."""
    return isinstance(location, str) and location.startswith(_POSTGRES_SCHEMES)


def open_store(
    path_or_url: str | Path | None = None, *, create: bool = True, wait: float | None = None
) -> Store:
    """Return the store at `path_or_url`: a SQLite file path or a postgresql:// URL, or
    None for $ERRDEX_DB, else errdex.sqlite in the user data directory. A reader passes
    `create=False`, so that a mistyped location is an error rather than a new empty
    database. `wait`: the seconds a SQLite connection waits for a lock another holds
    (30 unless given; a process that must not hang passes less).

    Raises NoDatabase when there is none and `create` is false; StoreError if the
    database cannot be opened, is not an errdex database or is too new, and for a
    PostgreSQL URL when psycopg (pip install 'errdex[scale]') is missing.
    """
    location = default_location() if path_or_url is None else path_or_url
    if is_postgres(location):
        try:
            from errdex.store._postgres import PostgresStore
        except ImportError as exc:
            raise StoreError(
                f"PostgreSQL needs psycopg ({exc}); install it with pip install 'errdex[scale]'"
            ) from exc
        return PostgresStore(str(location), create=create)
    if wait is None:
        return SqliteStore(location, create=create)
    return SqliteStore(location, create=create, wait=wait)


def find_error(
    store: Store, target: str, *, package: str | None = None, version: str | None = None
) -> Record:
    """Return the record with id `target`, else the one whose message is exactly `target`
    (the template as indexed, or a static message's text), as Store.get returns it.

    Raises ErrorNotFound when there is none, AmbiguousMessage when several errors have
    that message.
    """
    record = store.get(target.strip(), package=package, version=version)
    if record is not None:
        return record
    found = store.find_by_message(target)
    if len(found) > 1:
        raise AmbiguousMessage(target, [r.id for r in found])
    if found:
        record = store.get(found[0].id, package=found[0].package, version=found[0].version)
        if record is not None:
            return record
    raise ErrorNotFound(f"no error with id or message {target!r}")
