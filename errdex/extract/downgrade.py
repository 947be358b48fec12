# Syntax newer than the running Python, rewritten at the token level into older syntax
# that means the same to us, on the same lines; `parse.py` tries it on a file the running
# parser refuses. Cheap and in-process, it covers what no interpreter here may know:
# - t-strings (3.14): the `t` prefix becomes `f`, so a template reads as the f-string it
#   renders;
# - `except A, B:` without parentheses (3.14, PEP 758): `except (A, B):`;
# - on Python 3.11 and 3.12, type parameters (3.12, PEP 695; 3.13's defaults, PEP 696):
#   `def f[T](` and `class C[T](` lose the bracket, `type X[T] = V` becomes `X == V` (an
#   expression that assigns and calls nothing, as the alias does not).
# Every node keeps the line and column it has in the file: blanked text is as many spaces
# as it had UTF-8 bytes (ast's columns count bytes), a line break inside a removed
# bracket stays, after a backslash that joins the lines as the bracket did, and the two
# parentheses added around an `except` tuple are taken out of the columns again
# (Rewrite.restore), so the visitor reads the tree with the file's own text.
# It cannot reach the f-strings of PEP 701 (quotes reused inside a field, backslashes,
# comments): 3.11's tokenizer reads them as other tokens. Those files are parsed by a newer
# Python (see elsewhere.py) or stay skipped with their reason.
from __future__ import annotations

import ast
import io
import itertools
import sys
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from tokenize import NAME, OP, STRING, TokenInfo

_T_PREFIXES = frozenset({"t", "tr", "rt"})
_STATEMENT_START = frozenset({tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT})
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_POSITIONS = (("lineno", "col_offset"), ("end_lineno", "end_col_offset"))

Position = tuple[int, int]  # (line from 1, column in characters), as tokenize gives them


@dataclass(frozen=True, slots=True)
class _Edit:
    start: Position
    end: Position  # on the same line; column -1: up to the line break
    # `text` and `tail` replace [start, end), spaces between them to as many bytes; when
    # start == end, `text` is inserted (the only edit that moves columns)
    text: str
    tail: str = ""


@dataclass(frozen=True, slots=True)
class Rewrite:
    text: str
    inserted: Mapping[int, tuple[int, ...]]  # line -> byte columns of inserted characters

    def restore(self, tree: ast.AST) -> None:
        """Give the nodes of `tree`, parsed from `text`, the columns of the original text."""
        if not self.inserted:
            return
        for node in ast.walk(tree):
            for line, column in _POSITIONS:
                inserted = self.inserted.get(getattr(node, line, None) or 0)
                at = getattr(node, column, None)
                if inserted and at is not None:
                    setattr(node, column, _before(inserted, at))


def _before(inserted: tuple[int, ...], column: int) -> int:
    return column - sum(1 for at in inserted if at < column)


def downgrade(text: str, version: tuple[int, int] | None = None) -> Rewrite | None:
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
                # `X == V`: a statement that names and calls nothing, as a type alias is
                end = significant[equals].end
                yield from _blank(token.start, end, keep=name.string, tail="==")


def _starts_statement(tokens: Sequence[TokenInfo], i: int) -> bool:
    if i == 0:
        return True
    before = tokens[i - 1]
    return before.type in _STATEMENT_START or _is(before, ";")


def _blank(start: Position, end: Position, keep: str = "", tail: str = "") -> Iterator[_Edit]:
    """Edits that make [start, end) blank but for `keep` at its start and `tail` at its end;
    each line break inside stays, after a backslash that joins the lines as a bracket did."""
    line, column = start
    while line < end[0]:
        yield _Edit((line, column), (line, -1), keep if (line, column) == start else "", "\\")
        line, column = line + 1, 0
    yield _Edit((line, column), end, keep if (line, column) == start else "", tail)


def _apply(text: str, edits: list[_Edit]) -> Rewrite | None:
    """`text` with `edits` made, last first; None when one does not fit its line."""
    lines = text.split("\n")  # as the tokenizer counts them (decode made every end `\n`)
    inserted: dict[int, list[int]] = {}
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        row, start = edit.start[0] - 1, edit.start[1]
        if row >= len(lines) or edit.end[0] != edit.start[0]:
            return None
        body = lines[row]
        stop = len(body) if edit.end[1] < 0 else edit.end[1]
        if start == stop and edit.end[1] >= 0:  # columns after it move, see restore
            new = edit.text  # ASCII: one byte a character
            at = _bytes(body[:start])
            after = [column + len(new) for column in inserted.get(edit.start[0], [])]
            inserted[edit.start[0]] = [*range(at, at + len(new)), *after]
        else:
            room = _bytes(body[start:stop]) - _bytes(edit.text) - _bytes(edit.tail)
            if room < 0 and edit.end[1] >= 0:
                return None
            # up to the line break (an empty line inside a bracket, say), the backslash
            # may take a byte more: nothing after it on the line moves
            new = edit.text + " " * max(room, 0) + edit.tail
        lines[row] = body[:start] + new + body[stop:]
    return Rewrite(text="\n".join(lines), inserted={k: tuple(v) for k, v in inserted.items()})


def _bytes(text: str) -> int:
    return len(text.encode())


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
