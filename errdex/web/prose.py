# Words the pages need beyond what a record says: its title for lists (the explain
# stage's own, else the message's literal text) and text shortened at a word boundary
# for <title> and meta descriptions. The page's prose is the record's; nothing here
# explains an error.
from __future__ import annotations

from errdex.model import ErrorSite, Hole

TITLE_CHARS = 110


def title(site: ErrorSite) -> str:
    """The explanation's title, else the message's literal text (holes as "…") cut at a
    word boundary, else "ExceptionType in function"."""
    if site.explanation is not None and site.explanation.title.strip():
        return site.explanation.title.strip()
    if site.message is not None:
        text = "".join("…" if isinstance(p, Hole) else p.text for p in site.message.parts)
        text = " ".join(text.split()).strip(" :,;-")
        if len(text.replace("…", "")) >= 3:
            return shorten(text, TITLE_CHARS)
    return f"{site.exception.name} in {site.location.function}"


def shorten(text: str, limit: int) -> str:
    """`text`, or its longest prefix of whole words within `limit` characters plus "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return (cut or text[:limit]) + "…"
