# The logical lines of a Cython file, found without tokenizing all of it: Python's
# `tokenize` is pure Python on 3.11 and would cost more than the parse, while most lines
# of a .pyx are plain Python that the rewrite (cython_syntax.py) leaves alone. A scan per
# physical line follows brackets, strings (triple-quoted ones across lines), comments and
# backslash continuations with str methods; only a logical line that may hold Cython-only
# syntax (`Suspect`) is then tokenized. Anything this scan is unsure of (a string it cannot
# close, a bracket closed twice) makes it give up (`Unsure`), and the caller tokenizes
# the whole file instead.
from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from tokenize import TokenInfo

__all__ = ["LogicalLine", "Unsure", "logical_lines", "tokens_of"]

# a string's start (a triple quote, or a whole one-line string), a lone quote, a comment
_SCAN = re.compile(r"""('''|\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|['"]|\#)""")
# What the rewrite may change: its statement words, casts, addresses, char literals,
# sizeof (a line must show one of _MARKS for the pattern to be tried), and a `def` with
# a typed parameter (two words in a row after its `(`). What this misses is Cython that
# Python cannot parse (C integer suffixes `1ULL`, a C field named `as`, are left to that),
# so nothing is missed for good: the file is then rewritten from all its tokens (see
# cython.py).
_MARKS = (
    "cdef", "cpdef", "ctypedef", "cimport", "include", "DEF", "IF", "ELIF", "ELSE",
    "property", "except", "sizeof", "<", "&", "c'", 'c"',
)  # fmt: skip
_MARKED = re.compile("|".join(re.escape(mark) for mark in _MARKS))
_SUSPECT = re.compile(
    r"^\s*(?:cdef|cpdef|ctypedef|include|DEF|IF|ELIF|ELSE)\b|\bcimport\b"
    r"|^\s*property\s+\w+\s*:|\bexcept\b[^:\n]*,"
    r"|<\s*[A-Za-z_][\w .*&?\[\]:,]*>"
    r"|(?:[(\[{,=:]|^|\b(?:return|not|and|or|in|if|else))\s*&\s*[\w(]"
    r"|\bc['\"]|\bsizeof\b",
    re.MULTILINE,
)
_TYPED_DEF = re.compile(r"\bdef\s+\w+\s*\(.*?[\w\]*]\s+\**[A-Za-z_]", re.DOTALL)
# a block the rewrite must know of even when nothing in its header changes
_HEADERS = ("def ", "async def ", "class ")


class Unsure(Exception):
    """The scan cannot tell where this file's logical lines are."""


@dataclass(frozen=True, slots=True)
class LogicalLine:
    first: int  # its first physical line, from 1
    last: int
    column: int  # of its first token
    suspect: bool  # may hold Cython-only syntax: tokenize it
    opens: str  # "def" or "class" for a function's or class's header, else ""


def logical_lines(lines: list[str]) -> Iterator[LogicalLine]:
    """The logical lines of a file's `lines` (blank and comment-only lines left out)."""
    depth = 0
    triple = ""  # the quotes of a string that goes on past the line
    first = 0
    for number, line in enumerate(lines, start=1):
        at = 0
        if triple:
            at = _close(line, triple, 0)
            if at < 0:
                continue
            triple = ""
        elif depth == 0 and not first:
            stripped = line.lstrip()
            if not stripped or stripped[0] == "#":
                continue
            first = number
        depth, triple, code_end = _scan(line, at, depth)
        if depth < 0:
            raise Unsure(f"a bracket closed twice (line {number})")
        if triple or depth or line[:code_end].rstrip().endswith("\\"):
            continue
        text = lines[first - 1]
        column = len(text) - len(text.lstrip())
        body = text if first == number else "\n".join(lines[first - 1 : number])
        opens = ""
        suspect = _MARKED.search(body) is not None and _SUSPECT.search(body) is not None
        if body.startswith(_HEADERS, column):
            opens = "class" if body.startswith("class", column) else "def"
            suspect = suspect or (opens == "def" and _TYPED_DEF.search(body) is not None)
        yield LogicalLine(first, number, column, suspect, opens)
        first = 0
    if first:
        raise Unsure(f"the statement from line {first} does not end")


def _scan(line: str, at: int, depth: int) -> tuple[int, str, int]:
    """Brackets from `at` to the line's end: (depth after, the quotes of a string left
    open, where the code ends: a comment's start or the line's end)."""
    if "'" not in line and '"' not in line and "#" not in line:
        return depth + _brackets(line, at, len(line)), "", len(line)
    while True:
        found = _SCAN.search(line, at)
        if found is None:
            return depth + _brackets(line, at, len(line)), "", len(line)
        depth += _brackets(line, at, found.start())
        mark = found.group()
        if mark == "#":
            return depth, "", found.start()
        if mark in ("'''", '"""'):
            at = _close(line, mark, found.end())
            if at < 0:
                return depth, mark, len(line)
            continue
        if len(mark) == 1:  # a quote that does not close on its line
            if line.rstrip().endswith("\\"):
                raise Unsure("a one-line string goes on past its line")
            raise Unsure("a string that does not close")
        at = found.end()


def _brackets(line: str, start: int, end: int) -> int:
    part = line[start:end] if start or end < len(line) else line
    if not any(bracket in part for bracket in "()[]{}"):
        return 0
    return (
        part.count("(") + part.count("[") + part.count("{")
        - part.count(")") - part.count("]") - part.count("}")
    )  # fmt: skip


def _close(line: str, quotes: str, at: int) -> int:
    """Where the string closed by `quotes` ends on `line` (searching from `at`), else -1."""
    while True:
        found = line.find(quotes, at)
        if found < 0:
            return -1
        slashes = len(line[:found]) - len(line[:found].rstrip("\\"))
        if slashes % 2 == 0:
            return found + len(quotes)
        at = found + 1


def tokens_of(lines: list[str], logical: LogicalLine) -> list[TokenInfo]:
    """The tokens of one logical line (no comments, indents or NEWLINE), placed on the
    file's lines; raises Unsure when they do not tokenize alone."""
    text = "\n".join(lines[logical.first - 1 : logical.last]) + "\n"
    shift = logical.first - 1
    out: list[TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = token.type
            if kind in _NOT_CODE:
                continue
            if kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
                break
            if shift:
                (line, column), (end_line, end) = token.start, token.end
                token = TokenInfo(
                    kind, token.string, (line + shift, column), (end_line + shift, end), ""
                )
            out.append(token)
    except (tokenize.TokenError, SyntaxError) as exc:
        raise Unsure(str(exc)) from None
    return out


_NOT_CODE = frozenset(
    {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
)
