# Search in the PostgreSQL store by errdex.rank's rule, as the SQLite store searches:
# each field of rank.FIELDS as its own tsvector of the field's words (letters and digits,
# lowercased, split in Python exactly as rank splits them), and all of them together in
# one indexed tsvector that finds the candidates; the score is rank.score_terms summed
# over the fields that hold each term. Queries are quoted lexemes only (rank's words hold
# no quote), so nothing a user types is read as tsquery syntax.
from __future__ import annotations

from errdex import rank
from errdex.model import Segment

# The tsvector column of each of rank.FIELDS, and the SQL that gives the field's text.
VECTORS = tuple(f"t_{field}" for field in rank.FIELDS)
TEXTS = (
    "r.message_text",
    "r.title",
    "r.f_solutions",
    "r.f_inputs",
    "r.exc_name || ' ' || r.exc_qualname",
    "r.function",
    "r.file",
)


def words(text: str | None) -> str:
    """The words of a field, space-separated, as to_tsvector('simple', ...) takes them."""
    return " ".join(rank.tokens(text or ""))


def term(query: rank.Term) -> str:
    word, prefix = query
    return f"'{word}'" + (":*" if prefix else "")


def every_word(query_words: list[str]) -> str:
    """The tsquery rank finds by: every word, the last also as the start of a word."""
    last = len(query_words) - 1
    return " & ".join(term((w, n == last)) for n, w in enumerate(query_words))


def fragment_marks(text: str | None, fragment: str) -> tuple[Segment, ...] | None:
    """`text` in segments, each occurrence of `fragment` (any case) marked."""
    if text is None:
        return None
    low, want = text.lower(), fragment.lower()
    out: list[Segment] = []
    at, found = 0, low.find(want)
    while found >= 0 and want:
        if found > at:
            out.append(Segment(text=text[at:found], match=False))
        out.append(Segment(text=text[found : found + len(want)], match=True))
        at = found + len(want)
        found = low.find(want, at)
    if at < len(text):
        out.append(Segment(text=text[at:], match=False))
    return tuple(out)


def like(fragment: str) -> str:
    """An ILIKE pattern for text that holds `fragment`."""
    escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
