# How search finds and orders errors: one rule for the server (the store's search) and
# for a static export, whose page runs its twin (`staticSearch` in web/static/app.js;
# tests/test_web_browser.py checks that both give the same results in the same order).
#
# A query is its words: runs of letters and digits, lowercased, at most 32. An error is
# found when each word is a whole word of one of its search fields, the last word also
# the start of one (so results come while typing). Errors whose message holds every
# word come first; then the higher score (score_terms: the weights of the fields each
# word is in); then shorter messages; then the id, so that the order is total.
from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.model import Segment

# The fields, as the store's full-text index holds them and a static export's
# search-index.json ships them, with their weights: the message and title say most.
FIELDS = ("message", "title", "solutions", "inputs", "exception", "function", "file")
WEIGHTS = (10, 8, 2, 3, 4, 2, 1)
SNIPPET_FIELDS = ("solutions", "inputs")  # shown under a result when a word is in them
SNIPPET_CHARS = 200
MAX_WORDS = 32
MAX_QUERY_CHARS = 1000

_WORD = re.compile(r"[^\W_]+")  # letters and digits: `max_model_len` is three words

Term = tuple[str, bool]  # a word, and whether a word that starts with it counts


def words(query: str) -> list[str]:
    """The words of `query` that search looks for, in order."""
    return tokens(query[:MAX_QUERY_CHARS])[:MAX_WORDS]


def tokens(text: str) -> list[str]:
    """Every word of `text`, lowercased, in order: what a field holds for search."""
    return _WORD.findall(text.lower())


def score_terms(
    query_words: Sequence[str], fields: Sequence[str] = FIELDS
) -> list[tuple[int, str, Term]]:
    """What an error's score sums: (weight, field, term) for each term the field holds.
    A word that is a whole word of a field counts twice its field's weight; the last
    word, when it only starts a word of the field, counts the weight once."""
    terms: list[tuple[int, str, Term]] = []
    last = len(query_words) - 1
    for number, word in enumerate(query_words):
        for field in fields:
            weight = WEIGHTS[FIELDS.index(field)]
            if number == last:
                terms += [(weight, field, (word, False)), (weight, field, (word, True))]
            else:
                terms.append((2 * weight, field, (word, False)))
    return terms


def marks(query_words: Sequence[str], text: str) -> tuple[Segment, ...]:
    """`text` in segments, each whole word that a query word finds marked."""
    wanted = set(query_words[:-1])
    last = query_words[-1] if query_words else None
    out: list[Segment] = []
    at = 0
    for found in _WORD.finditer(text):
        token = found.group().lower()
        if token in wanted or (last is not None and token.startswith(last)):
            if found.start() > at:
                out.append(Segment(text=text[at : found.start()], match=False))
            out.append(Segment(text=found.group(), match=True))
            at = found.end()
    if at < len(text):
        out.append(Segment(text=text[at:], match=False))
    return tuple(out)


def snippet(text: str) -> str:
    """A snippet field as a result shows it: its first SNIPPET_CHARS characters."""
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
