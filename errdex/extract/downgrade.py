# Syntax newer than the running Python, rewritten at the token level into older syntax
# that means the same to us, on the same lines; `parse.py` tries it on a file the running
# parser refuses. Cheap and in-process, it covers what no interpreter here may know:
# - t-strings (3.14): the `t` prefix becomes `f`, so a template reads as the f-string it
#   renders (same length: every column stays);
# - `except A, B:` without parentheses (3.14, PEP 758): `except(A, B):`, the `(` in the
#   space after `except` (only what follows the colon on that line moves, by one column);
# - on Python 3.11, type parameters (3.12, PEP 695): `def f[T](` and `class C[T](` lose
#   the bracket, `type X[T] = V` becomes `X = V` with `V` where it was.
# It cannot reach the f-strings of PEP 701 (quotes reused inside a field, backslashes,
# comments): 3.11's tokenizer reads them as other tokens. Those files are parsed by a newer
# Python (see elsewhere.py) or stay skipped with their reason.
# Blanked text keeps its line breaks; a break that was inside the removed bracket is
# joined with a backslash, so that every line keeps its number.
from __future__ import annotations

import io
import itertools
import sys
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from tokenize import NAME, OP, STRING, TokenInfo

_T_PREFIXES = frozenset({"t", "tr", "rt"})
_STATEMENT_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})
_OPENERS = {"(": ")", "[": "]", "{": "}"}

Position = tuple[int, int]  # (line from 1, column), as tokenize gives them


@dataclass(frozen=True, slots=True)
class _Edit:
    start: Position
    end: Position
    text: str  # what replaces [start, end); may hold no line break


def downgrade(text: str, version: tuple[int, int] | None = None) -> str | None:
    """`text` with the syntax newer than Python `version` (the running one by default)
    rewritten as above; None when nothing was rewritten or the text does not tokenize."""
    version = version or (sys.version_info.major, sys.version_info.minor)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):  # 3.12's tokenizer raises SyntaxError
        return None
    edits: list[_Edit] = []
    if version < (3, 14):
        edits += _t_strings(tokens)
        edits += _bare_except_tuples(tokens)
    if version < (3, 13):  # 3.12 lacks the defaults of PEP 696 (`[T = int]`)
        edits += _type_parameters(tokens)
    if not edits:
        return None
    return _apply(text, edits)


def _t_strings(tokens: Sequence[TokenInfo]) -> Iterator[_Edit]:
    for name, string in itertools.pairwise(tokens):
        if (
            name.type == NAME
            and name.string.lower() in _T_PREFIXES
            and string.type == STRING
            and string.start == name.end
        ):
            prefix = name.string
            at = prefix.lower().index("t")
            new = prefix[:at] + ("f" if prefix[at] == "t" else "F") + prefix[at + 1 :]
            yield _Edit(name.start, name.end, new)


def _bare_except_tuples(tokens: Sequence[TokenInfo]) -> Iterator[_Edit]:
    for i, token in enumerate(tokens):
        if token.type != NAME or token.string != "except":
            continue
        first = i + 1
        if _is_op(tokens, first, "*"):
            first += 1
        colon = _top_level(tokens, first, ":")
        if colon is None:
            continue
        inside = tokens[first:colon]
        depth_zero = [t.string for t in _depth_zero(inside)]
        if "," not in depth_zero or "as" in depth_zero:
            continue
        head, last = tokens[first], tokens[colon - 1]
        before = tokens[first - 1]
        if before.end[0] == head.start[0] and before.end[1] < head.start[1]:
            yield _Edit((head.start[0], head.start[1] - 1), head.start, "(")
        else:
            yield _Edit(head.start, head.start, "(")
        yield _Edit(last.end, last.end, ")")


def _type_parameters(tokens: Sequence[TokenInfo]) -> Iterator[_Edit]:
    significant = [t for t in tokens if t.type not in _SKIPPED]
    for i, token in enumerate(significant):
        if token.type != NAME or i + 2 >= len(significant):
            continue
        name, after = significant[i + 1], significant[i + 2]
        if token.string in ("def", "class") and name.type == NAME and _is(after, "["):
            close = _closing(significant, i + 2)
            if close is not None:
                yield from _blank(after.start, significant[close].end)
        elif token.string == "type" and name.type == NAME and _starts_statement(significant, i):
            equals = i + 2
            if _is(after, "["):
                close = _closing(significant, i + 2)
                equals = -1 if close is None else close + 1
            if 0 <= equals < len(significant) and _is(significant[equals], "="):
                yield from _blank(token.start, significant[equals].start, keep=name.string)


def _starts_statement(tokens: Sequence[TokenInfo], i: int) -> bool:
    if i == 0:
        return True
    before = tokens[i - 1]
    return before.type in _STATEMENT_START or _is(before, ";")


def _blank(start: Position, end: Position, keep: str = "") -> Iterator[_Edit]:
    """Edits that make [start, end) blank, `keep` at its start; each line break inside is
    kept, after a backslash that joins the lines as the bracket did."""
    line, column = start
    first = True
    while line < end[0]:
        yield _Edit((line, column), (line, -1), (keep if first else "") + "\\")
        first = False
        line, column = line + 1, 0
    yield _Edit((line, column), end, keep if first else "")


def _apply(text: str, edits: list[_Edit]) -> str | None:
    """`text` with `edits` made, last first; None when one does not fit its line."""
    lines = text.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        row, start = edit.start[0] - 1, edit.start[1]
        if row >= len(lines):
            return None
        line = lines[row]
        body = line.rstrip("\r\n")
        if edit.end[1] < 0:  # up to the line break: the backslash takes the last column
            stop = len(body)
            if stop - start < len(edit.text):
                return None  # no room (an empty line inside the bracket)
            new = edit.text[:-1].ljust(stop - start - 1) + "\\"
        elif edit.end[0] == edit.start[0]:
            stop = edit.end[1]
            new = edit.text.ljust(stop - start)  # longer only when an insertion
        else:
            return None
        lines[row] = body[:start] + new + body[stop:] + line[len(body) :]
    return "".join(lines)


def _closing(tokens: Sequence[TokenInfo], open_at: int) -> int | None:
    """The index of the bracket closing the one at `open_at`, or None."""
    depth = 0
    for i in range(open_at, len(tokens)):
        token = tokens[i]
        if token.type != OP:
            continue
        if token.string in _OPENERS:
            depth += 1
        elif token.string in _OPENERS.values():
            depth -= 1
            if depth == 0:
                return i
    return None


def _top_level(tokens: Sequence[TokenInfo], start: int, op: str) -> int | None:
    """The index of the first `op` outside brackets from `start` on, before the line ends."""
    depth = 0
    for i in range(start, len(tokens)):
        token = tokens[i]
        if token.type == tokenize.NEWLINE:
            return None
        if token.type != OP:
            continue
        if depth == 0 and token.string == op:
            return i
        if token.string in _OPENERS:
            depth += 1
        elif token.string in _OPENERS.values():
            depth -= 1
    return None


def _depth_zero(tokens: Sequence[TokenInfo]) -> Iterator[TokenInfo]:
    depth = 0
    for token in tokens:
        if token.type == OP and token.string in _OPENERS.values():
            depth -= 1
        if depth == 0:
            yield token
        if token.type == OP and token.string in _OPENERS:
            depth += 1


def _is(token: TokenInfo, op: str) -> bool:
    return token.type == OP and token.string == op


def _is_op(tokens: Sequence[TokenInfo], i: int, op: str) -> bool:
    return i < len(tokens) and _is(tokens[i], op)
