# The codebase's own tests that trigger an error: the expectations extract read from
# the test files (errdex.extract.tests), fitted to the message templates of the sites.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from errdex.model import ErrorSite, Expectation, Hole, TestFile, TestRef

MAX_TESTS = 3  # per site
_AMBIGUOUS = 3  # a pattern fitting more sites than this needs the test to name one
_TOO_VAGUE = 25  # a pattern fitting more sites than this says nothing
_WORD = re.compile(r"[a-z_]{4,}")
_HOLE = "\x00"
_MIN_LITERAL = 6  # letters a pattern must pin down to say anything


def _fits(piece: str, skeleton: str) -> bool:
    """True when `piece` is part of some message the template (holes as \\x00) yields."""
    if piece in skeleton:
        return True
    if _HOLE not in skeleton:
        return False
    n = len(skeleton)
    states: set[int] = set()
    for start in (piece[0], _HOLE):
        j = skeleton.find(start)
        while j >= 0:
            states.add(j)
            j = skeleton.find(start, j + 1)
    for char in piece:
        nxt: set[int] = set()
        for j in states:
            while j < n:
                at = skeleton[j]
                if at == _HOLE:
                    nxt.add(j)  # the hole takes the character
                    j += 1  # or the hole is empty here
                    continue
                if at == char:
                    nxt.add(j + 1)
                break
        if not nxt:
            return False
        states = nxt
    return True


def _mostly_literal(pieces: tuple[str, ...], skeleton: str) -> bool:
    """Most words of the pattern are in the template's own text, not in its holes."""
    words = [w for p in pieces for w in p.split() if len(w) > 2]
    return sum(w in skeleton for w in words) * 2 >= len(words)


def _skeleton(site: ErrorSite) -> str:
    if site.message is None:
        return ""
    return "".join(_HOLE if isinstance(p, Hole) else p.text for p in site.message.parts)


class TestIndex:
    """Finds, for each site, the tests whose expectations fit it."""

    def __init__(self, sites: Sequence[ErrorSite]):
        self.sites = sites
        self.skeletons = [_skeleton(s) for s in sites]
        self.words: dict[str, list[int]] = defaultdict(list)
        for i, skeleton in enumerate(self.skeletons):
            for word in set(_WORD.findall(skeleton.lower())):
                self.words[word].append(i)
        self.names = [_exception_names(s) for s in sites]

    def match(self, expectation: Expectation) -> list[int]:
        """Indexes of the sites an expectation fits."""
        found: set[int] = set()
        for pieces in expectation.alternatives:
            letters = sum(len(re.sub(r"[^A-Za-z]", "", p)) for p in pieces)
            if letters < _MIN_LITERAL:
                continue
            words = {w for p in pieces for w in _WORD.findall(p.lower()) if w in self.words}
            if not words:
                continue
            rarest = min(words, key=lambda w: len(self.words[w]))
            for i in self.words[rarest]:
                if not self._raises(i, expectation.exceptions):
                    continue
                skeleton = self.skeletons[i]
                if all(_fits(p, skeleton) for p in pieces if p) and _mostly_literal(
                    pieces, skeleton
                ):
                    found.add(i)
        return sorted(found)

    def _raises(self, i: int, expected: frozenset[str]) -> bool:
        return bool(expected & self.names[i]) or bool(expected & {"Exception", "BaseException"})


def _exception_names(site: ErrorSite) -> frozenset[str]:
    names = {site.exception.name.rsplit(".", 1)[-1]}
    names.update(b.rsplit(".", 1)[-1] for b in site.exception.bases)
    if site.kind == "assert":
        names.add("AssertionError")
    return frozenset(names)


def find_tests(
    tests: Sequence[TestFile], sites: Sequence[ErrorSite]
) -> dict[str, tuple[TestRef, ...]]:
    """For each site id, the tests (as extract read them) that trigger it."""
    index = TestIndex(sites)
    found: dict[int, list[tuple[int, TestRef]]] = defaultdict(list)
    for test_file in tests:
        for expectation in test_file.expectations:
            hits = index.match(expectation)
            if len(hits) > _TOO_VAGUE:
                continue
            if len(hits) > _AMBIGUOUS or _short(expectation):
                hits = [i for i in hits if _named_in(sites[i], test_file.names)][:_AMBIGUOUS]
            for i in hits:
                found[i].append((len(hits), expectation.test))
    out: dict[str, tuple[TestRef, ...]] = {}
    for i, refs in found.items():
        refs.sort(key=lambda r: (r[0], r[1].file, r[1].line))
        unique = list(dict.fromkeys(ref for _, ref in refs))
        out[sites[i].id] = tuple(unique[:MAX_TESTS])
    return out


def _short(expectation: Expectation) -> bool:
    """A pattern too short to pin one error down without the test naming its code."""
    return all(sum(len(p) for p in alt) < 24 for alt in expectation.alternatives)


def _named_in(site: ErrorSite, names: frozenset[str]) -> bool:
    """The test file mentions the raising function, or its class, by name."""
    parts = site.location.function.split(".")
    return any(p in names for p in parts if p != "<module>" and not p.startswith("__"))
