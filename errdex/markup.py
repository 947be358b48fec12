# The markup a record's prose may carry, from docstrings and messages it quotes: Sphinx
# roles (:class:`Foo`, :py:meth:`~a.b`), reST literals (``x``) and markdown bold
# (**x**). Every surface shows code as `backtick` spans; these turn the rest into them
# (`code_spans`) or drop it (`plain`), so the web renders it and a terminal strips it.
# And what any text needs before a terminal shows it: `printable`, `clip`.
from __future__ import annotations

import re

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`]+)`")  # :class:`X`, :py:meth:`~a.b`
_LITERAL = re.compile(r"``([^`]+)``")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def code_spans(text: str) -> str:
    """`text` with roles and reST literals as `code` spans (bold kept as **x**)."""
    text = _ROLE.sub(lambda m: f"`{_target(m.group(1))}`", text)
    return _LITERAL.sub(lambda m: f"`{m.group(1)}`", text)


def plain(text: str) -> str:
    """`text` for a terminal: roles and literals as `code` spans, bold markers dropped."""
    return _BOLD.sub(r"\1", code_spans(text))


def bold_spans(text: str) -> list[tuple[str, bool]]:
    """`text` cut into (piece, bold) runs at its **x** markers."""
    out: list[tuple[str, bool]] = []
    last = 0
    for found in _BOLD.finditer(text):
        if found.start() > last:
            out.append((text[last : found.start()], False))
        out.append((found.group(1), True))
        last = found.end()
    if last < len(text):
        out.append((text[last:], False))
    return out


def _target(text: str) -> str:
    """What a role names: `Title <target>` is shown as its title."""
    title, _, target = text.partition(" <")
    return title if target.endswith(">") else text


__all__ = ["bold_spans", "code_spans", "plain"]


# Characters that would act on a terminal rather than show: C0 and C1 controls (but tab
# and newline), DEL, and the bidirectional overrides ("Trojan source"). Indexed code
# and pasted text can hold any of them; they are shown as escapes.
_UNPRINTABLE = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    for c in (
        *range(0x00, 0x09),
        *range(0x0B, 0x20),
        0x7F,
        *range(0x80, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
}


def printable(text: str) -> str:
    """`text` with every character that would act on a terminal shown as an escape."""
    return text.translate(_UNPRINTABLE)


def clip(text: str, limit: int) -> str:
    """`text` on one line (runs of whitespace made one space), cut to `limit` characters
    with "…" when longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
