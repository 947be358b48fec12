# The verifier: lines a message template (literal parts with holes between them) up
# against the text a user saw, in linear time with str.find, and says how much of the
# template the text confirms and which text filled each hole. Both sides are compared
# whitespace-insensitively (terminals re-wrap, quotes in markdown get curly).
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


def _longest_suffix_start(lit: str, text: str) -> int:
    """Length of the longest suffix of `lit` that `text` starts with."""
    if not text or not lit:
        return 0
    first = text[0]
    i = lit.find(first, max(0, len(lit) - len(text)))
    while i >= 0:
        if text.startswith(lit[i:]):
            return len(lit) - i
        i = lit.find(first, i + 1)
    return 0


def _longest_prefix_end(lit: str, text: str) -> int:
    """Length of the longest prefix of `lit` that `text` ends with."""
    if not text or not lit:
        return 0
    last = text[-1]
    j = lit.rfind(last, 0, min(len(lit), len(text)))
    while j >= 0:
        if text.endswith(lit[: j + 1]):
            return j + 1
        j = lit.rfind(last, 0, j)
    return 0


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
            m = _longest_prefix_end(lit, text[pos:])
            gaps[k - 1] = (pos, size - m)
            matched += m
            tail_lits = lits[k + 1 :]
            stripped = lit.rstrip()
            complete = m == len(stripped) > 0 and not any(tail_lits) and m > 0
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
