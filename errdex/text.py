# How message text is compared: quotes straightened and whitespace runs folded, the
# literal parts of a template normalized the same way, and the words and word pairs
# that key the match index. Shared by the store, which keeps the match index, and the
# matcher, which queries it, so the two can never disagree.
from __future__ import annotations

import itertools
import string
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the record classes cost a failing process time (errdex/align.py)
    from errdex.model import Message

__all__ = [
    "MIN_INDEXED_LITERAL",
    "features",
    "normalize",
    "normalize_literal",
    "shape",
    "template_keys",
    "words",
]

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "\u00a0": " "})
_TOKEN_TABLE = str.maketrans({c: " " for c in string.punctuation if c != "_"})
MIN_INDEXED_LITERAL = 4  # templates with fewer literal characters fit anything: frames only


def normalize(text: str) -> str:
    """Return `text` with straight quotes and every whitespace run as one space, stripped."""
    return " ".join(text.translate(_QUOTES).split())


def normalize_literal(text: str) -> str:
    """Like `normalize`, but a literal keeps one space where it starts or ends with any."""
    core = " ".join(text.translate(_QUOTES).split())
    if not core:
        return " " if text else ""
    if text[0].isspace():
        core = " " + core
    if text[-1].isspace():
        core += " "
    return core


def words(text: str) -> list[str]:
    """Return the lower-case words of `text`, in order."""
    return text.lower().translate(_TOKEN_TABLE).split()


def features(text: str) -> set[str]:
    """Return the words (two characters or more) of `text` and its pairs of adjacent words:
    the keys of the match index. Pairs are far rarer than their words."""
    ws = words(text)
    out = {w for w in ws if len(w) > 1}
    out.update(a + " " + b for a, b in itertools.pairwise(ws))
    return out


def shape(message: Message) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The template of a message as the matcher sees it: its normalized literal runs (one
    more than the hole groups; the first and last stripped on their outer side) and the
    hole expressions of each group between two runs."""
    from errdex.model import Hole

    lits: list[str] = []
    holes: list[tuple[str, ...]] = []
    buf: list[str] = []
    group: list[str] = []
    for part in message.parts:
        if isinstance(part, Hole):
            if not group:
                lits.append("".join(buf))
                buf = []
            group.append(part.expr)
        else:
            if group:
                holes.append(tuple(group))
                group = []
            buf.append(part.text)
    if group:
        holes.append(tuple(group))
    lits.append("".join(buf))
    norm = [normalize_literal(lit) for lit in lits]
    norm[0] = norm[0].lstrip()
    norm[-1] = norm[-1].rstrip()
    return tuple(norm), tuple(holes)


def template_keys(lits: tuple[str, ...]) -> set[str]:
    """The match-index keys of a template (none when its literals are too short to say
    anything: such a template is found through traceback frames only)."""
    if sum(len(lit) for lit in lits) < MIN_INDEXED_LITERAL:
        return set()
    keys: set[str] = set()
    for lit in lits:
        keys |= features(lit)
    return keys
