# The store stage: persists snapshots and their error sites, and answers the queries the
# stages above need. One interface (`Store`), one implementation per database; nothing
# outside this package writes SQL. Records go in and come out as the JSON dicts of
# codec.site_to_json (turn them back with codec.site_from_json).
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from errdex.codec import JSON
from errdex.errors import StoreError
from errdex.model import SkippedFile, Snapshot
from errdex.store._common import default_location, sort_versions, version_key
from errdex.store._sqlite import SCHEMA_VERSION, SqliteStore

__all__ = [
    "SCHEMA_VERSION",
    "SqliteStore",
    "Store",
    "default_location",
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
        records: Iterable[Mapping[str, Any]],
        *,
        files: int,
        skipped: Sequence[SkippedFile],
        tree_hash: str,
        extractor: str,
    ) -> None:
        """Replace (package, version) with `records`, all or nothing."""
        ...

    def snapshot_state(self, package: str, version: str) -> tuple[str, str] | None:
        """Return (tree_hash, extractor) of the stored snapshot, or None."""
        ...

    def snapshots(self) -> list[JSON]:
        """Return every snapshot: package, version, source, repo_url, commit, date, files,
        sites, skipped [{path, reason}], indexed_at; by package, then version."""
        ...

    def get(
        self, site_id: str, *, package: str | None = None, version: str | None = None
    ) -> JSON | None:
        """Return one record plus "versions" (oldest first), or None."""
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
    ) -> list[JSON]:
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

    def iter_records(
        self, *, package: str | None = None, version: str | None = None
    ) -> Iterator[JSON]:
        """Yield records one at a time."""
        ...

    def find_by_message(self, text: str) -> list[JSON]:
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
    ) -> JSON:
        """Return {"total": int, "hits": [{"record", "score", "highlight"}]}: full-text
        search over messages, titles, explanations and inputs, best first. Highlights are
        segments [{"text", "match"}] for "message" and "title", and for "explanation" and
        "inputs" when those matched."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def open_store(path_or_url: str | Path | None = None) -> Store:
    """Return the store at `path_or_url`: a SQLite file path, or None for $ERRDEX_DB,
    else errdex.sqlite in the user data directory.

    Raises StoreError if the database cannot be opened, is not an errdex database or is
    too new, and for PostgreSQL URLs until that implementation lands.
    """
    location = default_location() if path_or_url is None else path_or_url
    if isinstance(location, str) and location.startswith(_POSTGRES_SCHEMES):
        raise StoreError(
            f"PostgreSQL support is not installed yet (asked for {location.split('@')[-1]});"
            " use a SQLite file path instead"
        )
    return SqliteStore(location)
