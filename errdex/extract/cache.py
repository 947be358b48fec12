# What a re-index may reuse: per-file results keyed by content hash, and file digests
# keyed by (size, mtime), so that only what changed is read and parsed. This module
# holds the keys and the seam (`FactsCache`); the SQLite file behind it lives in the
# store package (errdex.store.facts), which is where errdex keeps all of its SQL.
from __future__ import annotations

import hashlib
import pickle
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:  # the facts' classes are imported by what parses, not by a scan
    from errdex.extract.facts import FileFacts


def code_version(*paths: Path) -> str:
    """A digest of the given source files (folders: their .py files); any edit changes it."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.py")) if path.is_dir() else [path]
    return hashlib.blake2b(b"".join(p.read_bytes() for p in files), digest_size=8).hexdigest()


# Cached facts made by other extractor code are not reused.
_PACKAGE = Path(__file__).parent.parent
EXTRACTOR_VERSION = code_version(Path(__file__).parent, _PACKAGE / "model.py", _PACKAGE / "expr.py")

Outcome: TypeAlias = "FileFacts | str"  # the facts, or why the file was skipped


def pack(outcome: Outcome) -> bytes:
    """An outcome as the cache keeps it (made where it was parsed: in a worker, beside
    the parse, the index's own process does not pay for it)."""
    return zlib.compress(pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL), 1)


def unpack(data: bytes) -> Outcome:
    """The outcome `pack` made; raises on a damaged entry (any exception)."""
    outcome: Outcome = pickle.loads(zlib.decompress(data))
    return outcome


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def facts_key(path: str, file_digest: str) -> str:
    return f"{EXTRACTOR_VERSION}:{path}:{file_digest}"


class FactsCache(Protocol):
    """Where extract keeps what it may reuse. An implementation never fails an index: a
    cache it cannot read or write behaves as an empty one."""

    def known_digests(self, paths: Sequence[str]) -> dict[str, tuple[int, int, str]]:
        """(size, mtime_ns, digest) of each absolute path seen before."""
        ...

    def remember_digests(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        """Keep (absolute path, size, mtime_ns, digest) rows."""
        ...

    def load(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The packed outcomes cached under `keys` (see facts_key and pack); misses are
        left out. The caller unpacks them (while the files not cached are parsed)."""
        ...

    def save(self, items: Iterable[tuple[str, bytes]]) -> None:
        """Keep (key, packed outcome) pairs (see pack)."""
        ...

    def close(self) -> None: ...

    def opener(self) -> Callable[[], FactsCache]:
        """What opens this cache again, with a connection of its own, in another
        process (a parse worker): picklable, and never this one's connection."""
        ...


class NoCache:
    """A FactsCache that keeps nothing: every file is read and parsed."""

    def known_digests(self, paths: Sequence[str]) -> dict[str, tuple[int, int, str]]:
        return {}

    def remember_digests(self, rows: Iterable[tuple[str, int, int, str]]) -> None:
        pass

    def load(self, keys: Sequence[str]) -> dict[str, bytes]:
        return {}

    def save(self, items: Iterable[tuple[str, bytes]]) -> None:
        for _ in items:  # drain: callers may pass a generator with work in it
            pass

    def close(self) -> None:
        pass

    def opener(self) -> Callable[[], FactsCache]:
        return NoCache
