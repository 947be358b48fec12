# Reusing a site's prose across indexes: the per-site part of explain (analysis,
# solutions, what it means, when it happens, common situations) is a function of the
# values it is handed plus a few lookups into the whole extraction. Its key is a digest
# of the handed values and the explainer's code; the lookups it made are kept beside the
# prose and asked again on reuse: the prose is reused only when every one of them gives
# the same answer as when it was made (a verifying trace, as build systems keep). What
# the per-site part can look up goes through `Reads`, and anything else it reaches for
# on the views handed to it fails loudly, so the key cannot silently miss a dependency.
# Lines are left out of both (`line_free`): a site's prose, made of what its code says,
# survives lines added or removed above it, and the few lines the prose does say are
# recorded lookups too.
from __future__ import annotations

import enum
import functools
import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from errdex.explain.records import replaced
from errdex.extract import packing
from errdex.extract.cache import code_version
from errdex.model import ErrorSite, Fix, Input, Knob, Snippet, SourcePos

_HERE = Path(__file__).parent
# What the prose is made by: the explainer, what it reads of extract's records, and the
# records themselves. A change to any of them makes every key new.
EXPLAINER_VERSION = code_version(_HERE, _HERE.parent / "extract", _HERE.parent / "model.py")


@dataclass(frozen=True, slots=True)
class Prose:
    """The per-site part of one site's explanation, before what depends on other sites
    (titles, tests, related sites, a caller's fix, the report link) is added."""

    fixes: tuple[Fix, ...]
    what_it_means: str
    when_it_happens: str
    common_situations: tuple[str, ...]
    # the checks read only the library's own state (explain.internal_invariant), over
    # `fixes`, and over them with a caller's fix added
    invariant: bool
    invariant_caught: bool
    # (class, method) when every subclass the codebase defines implements the abstract
    # method the site is in
    implemented: tuple[str, str] | None


class ProseCache(Protocol):
    """Where reused prose is kept: for each site id, the entry last made for it, under
    its key. An implementation never fails an index: one it cannot read or write
    behaves as an empty one."""

    def load_prose(self, sites: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        """The (key, entry) kept for each of the site ids `sites`; misses are left out."""
        ...

    def save_prose(self, items: Iterable[tuple[str, str, bytes]]) -> None:
        """Keep (site id, key, entry) triples, each replacing what its site had."""
        ...


class NoProseCache:
    """A ProseCache that keeps nothing: every site is explained afresh."""

    def load_prose(self, sites: Sequence[str]) -> dict[str, tuple[str, bytes]]:
        return {}

    def save_prose(self, items: Iterable[tuple[str, str, bytes]]) -> None:
        for _ in items:
            pass


def prose_key(values: tuple[Any, ...]) -> str:
    """The key of the values one site's prose is made from. `repr` of frozen dataclasses,
    tuples and strings spells out every field, so equal keys mean equal values."""
    text = repr((EXPLAINER_VERSION, values))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_NO_SNIPPET = Snippet(start_line=0, lines=())


def line_free(site: ErrorSite) -> ErrorSite:
    """`site` as its per-site prose is made from and keyed by: every line 0 (its own, its
    guards', where its inputs and their knobs are defined) and no snippet."""
    return replaced(
        site,
        location=replaced(site.location, line=0, end_line=0),
        snippet=_NO_SNIPPET,
        guard=tuple(replaced(g, line=0) for g in site.guard),
        inputs=tuple(map(line_free_input, site.inputs)),
    )


def line_free_input(item: Input) -> Input:
    """`item` with no line in where it, or any of its knobs, is defined."""
    where = item.location
    return replaced(
        item,
        location=None if where is None else SourcePos(file=where.file, line=0),
        knobs=tuple(map(line_free_knob, item.knobs)),
        reach=tuple(
            h if h.location is None else replaced(h, location=replaced(h.location, line=0))
            for h in item.reach
        ),
    )


def line_free_knob(knob: Knob) -> Knob:
    where = knob.location
    return knob if where is None else replaced(knob, location=SourcePos(file=where.file, line=0))


# One lookup the per-site part made: (what was asked, of what, the answer).
Read = tuple[str, Any, Any]


class Reads:
    """The lookups into the whole extraction that one site's prose made, each with its
    answer; `replay` asks them again of another run's lookups."""

    def __init__(self, lookups: dict[str, Callable[[Any], Any]]):
        self.lookups = lookups
        self.log: list[Read] = []

    def ask(self, kind: str, arg: Any) -> Any:
        answer = self.lookups[kind](arg)
        self.log.append((kind, arg, answer))
        return answer

    def function(self, kind: str) -> Callable[[Any], Any]:
        return lambda arg: self.ask(kind, arg)

    def mapping(self, kind: str) -> ReadMapping:
        return ReadMapping(self, kind)

    def members(self, kind: str) -> ReadSet:
        return ReadSet(self, kind)

    def whole(self, kind: str) -> ReadWhole:
        return ReadWhole(self, kind)


def replay(log: Iterable[Read], lookups: dict[str, Callable[[Any], Any]]) -> bool:
    """Whether every lookup in `log` gives the same answer now. A lookup this code does
    not make, or one that cannot be asked again (a log read back from the cache is data,
    and may say anything), answers differently: the prose is made afresh."""
    for kind, arg, answer in log:
        ask = lookups.get(kind)
        if ask is None:
            return False
        try:
            if ask(arg) != answer:
                return False
        except Exception:
            return False
    return True


class _Absent(enum.Enum):
    """What a recorded lookup of a missing key answers: one value, the same once kept."""

    ABSENT = "absent"


_MISSING = _Absent.ABSENT


class ReadMapping:
    """A mapping whose lookups are recorded: `get`, `in` and `[]`, nothing else (an
    iteration would read every key, which a recorded lookup cannot stand for)."""

    def __init__(self, reads: Reads, kind: str):
        self._reads = reads
        self._kind = kind

    def get(self, key: str, default: Any = None) -> Any:
        found = self._reads.ask(self._kind, key)
        return default if found is _MISSING else found

    def __contains__(self, key: object) -> bool:
        return self._reads.ask(self._kind, key) is not _MISSING

    def __getitem__(self, key: str) -> Any:
        found = self._reads.ask(self._kind, key)
        if found is _MISSING:
            raise KeyError(key)
        return found


class ReadSet:
    """A set whose membership tests are recorded, and nothing else."""

    def __init__(self, reads: Reads, kind: str):
        self._reads = reads
        self._kind = kind

    def __contains__(self, key: object) -> bool:
        return bool(self._reads.ask(self._kind, key))


class ReadWhole:
    """A sequence read whole, by iteration, recorded when it is (and only then)."""

    def __init__(self, reads: Reads, kind: str):
        self._reads = reads
        self._kind = kind

    def __iter__(self) -> Iterator[Any]:
        return iter(self._reads.ask(self._kind, None))


def lookup_in(mapping: dict[str, Any]) -> Callable[[str], Any]:
    """A ReadMapping's lookup into `mapping`; a missing key answers a marker that keeps
    its identity through the cache (an enum member), so "absent" replays as absent."""
    return lambda key: mapping.get(key, _MISSING)


@functools.cache
def _packer() -> packing.Packer:
    """How a kept entry is written (errdex.extract.packing: data, never code): the
    records, expression trees and explain's own values a lookup may answer."""
    from errdex import expr, model
    from errdex.explain import knobs
    from errdex.extract import facts

    return packing.Packer(packing.classes_of(model, expr, facts, knobs, sys.modules[__name__]))


def pack(log: Sequence[Read], prose: Prose) -> bytes:
    """A kept entry: the lookups and the prose. Not compressed: an entry is a kilobyte
    or so, which zlib halves at some 50 µs, a third of a second over vllm. One that
    holds a value the cache cannot keep is kept as nothing, which reads back as a miss."""
    try:
        return _packer().dumps((tuple(log), prose))
    except packing.Unreadable:
        return b""


def unpack(data: bytes) -> tuple[tuple[Read, ...], Prose] | None:
    """The lookups and prose of a kept entry; None for one this code cannot read (an
    older errdex's, a damaged or a planted one: a miss, and nothing in it runs)."""
    try:
        log, prose = _packer().loads(data)
    except (packing.Unreadable, ValueError, TypeError):
        return None
    if not isinstance(prose, Prose) or not _well_formed(prose) or not isinstance(log, tuple):
        return None
    if not all(isinstance(read, tuple) and len(read) == 3 for read in log):
        return None
    return log, prose


def _well_formed(prose: Prose) -> bool:
    """Whether a read-back Prose has the types it is made with (an entry is data, and
    data written elsewhere may say anything)."""
    return (
        isinstance(prose.fixes, tuple)
        and all(isinstance(fix, Fix) for fix in prose.fixes)
        and isinstance(prose.what_it_means, str)
        and isinstance(prose.when_it_happens, str)
        and isinstance(prose.common_situations, tuple)
        and all(isinstance(text, str) for text in prose.common_situations)
        and isinstance(prose.invariant, bool)
        and isinstance(prose.invariant_caught, bool)
        and (prose.implemented is None or isinstance(prose.implemented, tuple))
    )
