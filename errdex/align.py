# The verifier: lines a message template (literal parts with holes between them) up
# against the text a user saw, in linear time with str.find, and says how much of the
# template the text confirms and which text filled each hole. Both sides are compared
# whitespace-insensitively (terminals re-wrap, quotes in markdown get curly). The
# matcher's, and the hook's at the moment of failure: so it imports nothing but text
# helpers (no record classes, no store), which a failing process pays for in time.
from __future__ import annotations

from dataclasses import dataclass

from errdex.text import normalize, normalize_literal

__all__ = ["ELISIONS", "Alignment", "align", "normalize", "normalize_literal"]

ELISIONS = ("...", "…", "[...]", "(...)")


@dataclass(frozen=True, slots=True)
class Alignment:
    """How a template lines up with a text: `matched` literal characters were found in
    order; `gaps[i]` is the (start, end) slice of the text that filled hole group i (None
    when the text stops before it); the match spans text[start:end]."""

    matched: int
    complete: bool  # every literal part was found whole
    start: int
    end: int
    gaps: tuple[tuple[int, int] | None, ...]
    cut: bool  # the text is only part of the message: it starts or stops inside it


_PROBE = 32  # characters of the text looked up in the literal to find candidate overlaps
_TRIES = 8  # candidates checked one by one before the overlap is bounded another way


def _overlap(a: str, b: str) -> int:
    """Length of the longest suffix of `a` that is also a prefix of `b`.

    Linear in min(len(a), len(b)), with str methods only in all but contrived cases:
    candidates found with str.find are checked one by one; past _TRIES of them, the
    overlap is bounded by the longest run either side shares with the other, and only
    what no bound narrows is left to one Knuth-Morris-Pratt pass.
    """
    m = min(len(a), len(b))
    if m == 0:
        return 0
    return _overlap_of(a[len(a) - m :] if len(a) > m else a, b[:m] if len(b) > m else b)


def _overlap_of(tail: str, head: str) -> int:
    """_overlap of two strings of one length."""
    m = len(head)
    # An overlap of k >= q characters starts where tail holds head's first q characters.
    q = min(m, _PROBE)
    probe = head[:q]
    i = tail.find(probe)
    tries = 0
    while i >= 0:
        if tries == _TRIES:
            return _overlap_bounded(tail, head)
        tries += 1
        if head.startswith(tail[i:]):
            return m - i
        i = tail.find(probe, i + 1)
    # Shorter overlaps, longest first: they start in the last q - 1 characters of tail.
    first = head[0]
    i = tail.find(first, m - q + 1)
    while i >= 0:
        if head.startswith(tail[i:]):
            return m - i
        i = tail.find(first, i + 1)
    return 0


def _overlap_bounded(tail: str, head: str) -> int:
    """_overlap of two strings of one length m, for many candidates (periodic text).

    An overlap of k characters is a run of k that head starts with and tail holds (and
    one that tail ends with and head holds): the first length t at which either run is
    missing bounds k below t. Lengths double up to m / 3, where str.find stays linear.
    """
    m = len(head)
    t = 2 * _PROBE
    while 3 * t < m:
        if tail.find(head[:t]) < 0 or head.find(tail[m - t :]) < 0:
            k = t - 1
            return _overlap_of(tail[m - k :], head[:k])
        t *= 2
    return _overlap_kmp(tail, head)


def _overlap_kmp(tail: str, head: str) -> int:
    """_overlap of two strings of one length, by the prefix function of `head`."""
    m = len(head)
    pi = [0] * m
    k = 0
    for j in range(1, m):
        c = head[j]
        while k and head[k] != c:
            k = pi[k - 1]
        if head[k] == c:
            k += 1
        pi[j] = k
    k = 0
    for c in tail:
        while k and (k == m or head[k] != c):
            k = pi[k - 1]
        if k < m and head[k] == c:
            k += 1
    return k


def _longest_suffix_start(lit: str, text: str) -> int:
    """Length of the longest suffix of `lit` that `text` starts with."""
    return _overlap(lit, text)


def _longest_prefix_end(lit: str, text: str, pos: int = 0) -> int:
    """Length of the longest prefix of `lit` that `text[pos:]` ends with (no copy of
    `text[pos:]` is made: only its last len(lit) characters count)."""
    return _overlap(text[max(pos, len(text) - len(lit)) :], lit)


def _one_period(lit: str) -> bool:
    """Whether a literal ends in one full stop (not an ellipsis): what a quote of the
    message may leave out."""
    return lit.endswith(".") and not lit.endswith("..") and len(lit) > 1


def align(lits: tuple[str, ...], text: str) -> Alignment | None:
    """Line up `lits` (literal parts; a hole between each two) with `text`.

    Middle holes take the shortest text that lets the next literal follow; the last
    literal prefers the end of the text. A text that starts or stops inside the message
    is accepted as a cut match. Returns None when no literal character lines up (a
    template without literals, like `{msg}`, lines up with any text).
    """
    n = len(lits)
    size = len(text)
    gaps: list[tuple[int, int] | None] = [None] * (n - 1)
    matched = 0
    cut = False
    first = lits[0]
    if first:
        p = text.find(first)
        if p < 0 and n == 1 and _one_period(first) and text.endswith(first[:-1]):
            # the whole message but its final period (an issue title, a quote)
            start = size - len(first) + 1
            return Alignment(
                matched=len(first) - 1, complete=True, start=start, end=size, gaps=(), cut=False
            )
        if p >= 0:
            start, pos, matched = p, p + len(first), len(first)
        elif size and first.find(text) >= 0:
            return Alignment(
                matched=size, complete=False, start=0, end=size, gaps=tuple(gaps), cut=True
            )
        else:
            m = _longest_suffix_start(first, text)
            start, pos, matched, cut = 0, m, m, True
    else:
        start = pos = 0
    for k in range(1, n):
        lit = lits[k]
        if not lit:  # a hole at the end takes the rest of the text
            gaps[k - 1] = (pos, size)
            pos = size
            continue
        p = -1
        if k == n - 1 and size - len(lit) >= pos and text.endswith(lit):
            p = size - len(lit)
        if p < 0:
            p = text.find(lit, pos)
        if p < 0 and lit == "." and not any(lits[k + 1 :]):  # `{x}.` without its period
            gaps[k - 1] = (pos, size)
            pos = size
            continue
        if p < 0 and lit[0] == " " and pos > 0 and text[pos - 1] == " ":
            # an empty value between two spaces: the text has only one of them
            p = text.find(lit[1:], pos)
            if p == pos:
                gaps[k - 1] = (pos, pos)
                pos += len(lit) - 1
                matched += len(lit) - 1
                continue
            p = -1
        if p < 0:
            m = _longest_prefix_end(lit, text, pos)
            gaps[k - 1] = (pos, size - m)
            matched += m
            tail_lits = lits[k + 1 :]
            stripped = lit.rstrip()
            whole = m == len(stripped) or (_one_period(stripped) and m == len(stripped) - 1)
            complete = whole and not any(tail_lits) and m > 0
            if complete:
                for j in range(k, n - 1):
                    gaps[j] = (size, size)
            return Alignment(
                matched=matched,
                complete=complete,
                start=start,
                end=size,
                gaps=tuple(gaps),
                cut=cut or not complete,
            )
        gaps[k - 1] = (pos, p)
        pos = p + len(lit)
        matched += len(lit)
    if matched == 0 and any(lits):
        return None
    return Alignment(
        matched=matched, complete=not cut, start=start, end=pos, gaps=tuple(gaps), cut=cut
    )
