# What a re-index may reuse: per-file results keyed by content hash, and file digests
# keyed by (size, mtime), so that only what changed is read and parsed. This module
# holds the keys and the seam (`FactsCache`); the SQLite file behind it lives in the
# store package (errdex.store.facts), which is where errdex keeps all of its SQL.
from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from errdex.extract.files import MAX_FILE_BYTES, FileWalk, too_big
from errdex.extract.packing import Packer, Unreadable
from errdex.identity import file_digest
from errdex.model import SkippedFile
from errdex.sources.reading import is_clean_name, read_regular

if TYPE_CHECKING:  # the facts' classes are imported by what parses, not by a scan
    from errdex.extract.facts import FileFacts
    from errdex.extract.native.facts import NativeFacts


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


@functools.cache
def packer() -> Packer:
    """How the cache keeps extract's records (errdex.extract.packing: data, never code):
    the facts of Python and native files, the records they hold and the expression
    trees."""
    from errdex import expr, model
    from errdex.extract import facts, packing
    from errdex.extract.native import facts as native_facts

    return Packer(packing.classes_of(model, expr, facts, native_facts))


def pack(outcome: Outcome | NativeFacts) -> bytes:
    """An outcome as the cache keeps it (made where it was parsed: in a worker, beside
    the parse, the index's own process does not pay for it); empty for one it cannot
    keep (a tree nested too deep to write), which is then not cached."""
    try:
        return packer().dumps(outcome, compress=True)
    except Unreadable:
        return b""


def unpack(data: bytes) -> Outcome:
    """The outcome `pack` made of a Python file. Raises Unreadable for any other entry
    (an older errdex's, a damaged or planted one), which the caller takes as a miss;
    nothing in it runs."""
    from errdex.extract.facts import FileFacts

    outcome = packer().loads(data, compressed=True)
    if not isinstance(outcome, FileFacts | str):
        raise Unreadable(f"an entry holding a {type(outcome).__name__}, not a file's facts")
    return outcome


def unpack_native(data: bytes) -> NativeFacts | str:
    """The outcome `pack` made of a native file; raises Unreadable as unpack does."""
    from errdex.extract.native.facts import NativeFacts

    outcome = packer().loads(data, compressed=True)
    if not isinstance(outcome, NativeFacts | str):
        raise Unreadable(f"an entry holding a {type(outcome).__name__}, not a file's facts")
    return outcome


def digest(data: bytes) -> str:
    return file_digest(data)


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


def digest_walk(
    root: Path, walk: FileWalk, cache: FactsCache
) -> tuple[list[tuple[str, str]], list[SkippedFile]]:
    """The walked files with their digests (a file of the size and mtime `cache` knows
    is not read again), and the walk's skipped files with those that cannot be read or
    are over MAX_FILE_BYTES, each with the reason. New digests are remembered in `cache`."""
    base = str(root)
    absolute = [os.path.join(base, p) for p in walk.paths]
    # the digest cache is keyed by absolute path, as text: a root whose name is not UTF-8
    # (paths with lone surrogates) is read afresh each time instead
    known = cache.known_digests([full for full in absolute if is_clean_name(full)])
    files: list[tuple[str, str]] = []
    unreadable = list(walk.skipped)
    fresh: list[tuple[str, int, int, str]] = []
    for rel, full, stat in zip(walk.paths, absolute, walk.stats, strict=True):
        if stat.st_size > MAX_FILE_BYTES:
            unreadable.append(SkippedFile(path=rel, reason=too_big(stat.st_size)))
            continue
        seen = known.get(full)
        if seen is not None and seen[0] == stat.st_size and seen[1] == stat.st_mtime_ns:
            files.append((rel, seen[2]))
            continue
        try:
            data = read_regular(full, MAX_FILE_BYTES + 1)
        except OSError as exc:
            unreadable.append(SkippedFile(path=rel, reason=f"cannot read: {exc.strerror}"))
            continue
        if len(data) > MAX_FILE_BYTES:  # it grew since the stat
            unreadable.append(SkippedFile(path=rel, reason=too_big(len(data))))
            continue
        file_digest = digest(data)
        files.append((rel, file_digest))
        if is_clean_name(full):
            fresh.append((full, stat.st_size, stat.st_mtime_ns, file_digest))
    cache.remember_digests(fresh)
    return files, unreadable
