# Cython source (.pyx, .pxd, .pxi) rewritten, token by token and on the same lines, into
# Python that CPython's `ast` parses, so the Python visitor reads it unchanged:
# - `cdef`/`cpdef` functions become `def NAME(...)`, their return type, `except ...`,
#   `noexcept`, `nogil` and `with gil` dropped; `cdef class` becomes `class`;
# - typed parameters (`int64_t[:] values`, `const char *p`, `list x not None`) keep their
#   name, default and place; their C type comes back as the parameter's annotation;
# - typed declarations (`cdef Py_ssize_t i, n = len(x)`, the lines of a `cdef:` block)
#   become `i: T; n = len(x)`; a class's C attributes only when `public` or `readonly`
#   (no Python user can set the others);
# - C declarations that run nothing (`cdef extern from` blocks, `ctypedef`, structs,
#   unions, enums, fused types, prototypes) become `pass`; casts `<T>x`, `&x`, the `c'x'`
#   prefix and `1ULL`'s suffix are blanked; `cimport` reads as `import`, `DEF X = v` as
#   `X = v`, `IF`/`ELIF`/`ELSE` as `if`/`elif`/`else`, `except E, e:` as `except E as e:`;
#   `include "x.pxi"` becomes `pass` and the file it names is kept (the names it brings
#   are joined when files are linked, see cython.py).
# An edit never changes a line's width in UTF-8 bytes (what `ast` counts columns in), but
# for the rare one that must (`except E, e:`), so the tree's columns are the file's and
# the visitor reads it against the file's own text; `CythonRewrite.restore` moves back the
# few a wider edit moved, and puts the C types on their parameters and names.
# Why a rewrite and not Cython's own parser (`cython` from PyPI): both find the same sites
# on pandas 3.1.1's 41 .pyx files (568 raises and 73 asserts, each on the same line), but
# Cython 3.3.2's compiled parser (`TreeFragment.parse_from_strings`) took 1.75 CPU-s over
# them, this rewrite and `ast.parse` together 1.08 (one process, same machine), and its
# tree is not Python's: the visitor would need a converter of every Cython node on top,
# and the index a dependency more.
from __future__ import annotations

import ast
import io
import keyword
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from tokenize import NAME, NUMBER, OP, STRING, TokenInfo

from errdex.extract.cython_lines import Unsure, logical_lines, tokens_of
from errdex.extract.syntax import statements

__all__ = ["CythonRewrite", "RewriteError", "rewrite"]

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())
_NOT_CODE = frozenset(
    {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}
)
_KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}
_MODIFIERS = frozenset({"public", "readonly", "inline", "api", "static"})
# after `cdef`: a block (or line) of C declarations, nothing that runs
_C_DECLARATIONS = frozenset(
    {"extern", "struct", "union", "enum", "packed", "cppclass", "fused", "class"}
)
_OPERAND_END = frozenset({")", "]", "}", "..."})
_POINTERS = frozenset({"*", "**", "&"})
_CAST_OPS = frozenset({"*", "**", "&", ".", ",", ":", "?"})
_C_SUFFIX = frozenset("uUlL")  # `0x736fULL`: the suffixes of a C integer literal
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DECORATOR_LINES = 64  # the most lines a decorator over a prototype is looked for in


class RewriteError(Exception):
    """The text does not tokenize as Python-like source; the message says where."""


@dataclass(frozen=True, slots=True)
class _Edit:
    line: int  # from 1
    start: int  # columns in characters on that line; end == -1: up to the line's end
    end: int
    text: str  # padded with spaces to the bytes it replaces; wider only when `wider`
    wider: bool = False


@dataclass(frozen=True, slots=True)
class _Type:
    """Where a C type is written: line and byte columns."""

    line: int
    start: int
    end: int


@dataclass(slots=True)
class CythonRewrite:
    text: str
    includes: tuple[str, ...]  # the file names `include` statements give, in order
    # line -> (new start, new end, old start, old end) byte columns of each edit that made
    # the line wider, in order
    moves: dict[int, list[tuple[int, int, int, int]]]
    # (line, byte column) of a typed parameter -> its C type
    params: dict[tuple[int, int], _Type]
    # (line, byte column) of a declaration's statement -> the declared name's own column
    # and its C type
    declared: dict[tuple[int, int], tuple[int, _Type | None]]
    returns: dict[tuple[int, int], _Type]  # (line, column) of a C function -> its type
    lines: list[str] = field(default_factory=list)  # the file's own lines
    gil: bool = False  # the file may hold `with nogil:` / `with gil:` blocks

    def restore(self, tree: ast.Module) -> None:
        """Give the nodes of `tree`, parsed from `text`, the file's own columns, and each
        C-typed parameter, declared name and C function its type as annotation."""
        if self.moves:
            _move_back(tree, self.moves)
        if not (self.params or self.declared or self.returns or self.gil):
            return
        for node in statements(tree):
            kind = type(node)
            if kind is ast.AnnAssign or kind is ast.Assign:
                self._declaration(node)  # type: ignore[arg-type]
            elif kind in _FUNCTIONS:
                self._function(node)  # type: ignore[arg-type]
            if self.gil:
                _unwrap_gil(node)

    def _declaration(self, node: ast.AnnAssign | ast.Assign) -> None:
        found = self.declared.get((node.lineno, node.col_offset))
        if found is None:
            return
        column, c_type = found
        target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
        width = target.end_col_offset - target.col_offset  # type: ignore[operator]
        target.col_offset, target.end_col_offset = column, column + width
        if c_type is not None and isinstance(node, ast.AnnAssign):
            node.annotation = self._annotation(c_type)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = node.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            found = self.params.get((arg.lineno, arg.col_offset))
            if found is not None:
                arg.annotation = self._annotation(found)
        returns = self.returns.get((node.lineno, node.col_offset))
        if returns is not None:
            node.returns = self._annotation(returns)

    def _annotation(self, where: _Type) -> ast.expr:
        """The type as a string constant placed on its own text (its source is the text)."""
        data = self.lines[where.line - 1].encode()
        node = ast.Constant(value=data[where.start : where.end].decode())
        node.lineno = node.end_lineno = where.line
        node.col_offset, node.end_col_offset = where.start, where.end
        return node


def _unwrap_gil(node: ast.AST) -> None:
    """`with nogil:` and `with gil:` (`with gil(cond):` too) say which lock the block
    holds, not when it runs: their bodies take their place, so they guard nothing."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if type(block) is list and any(_gil_block(s) for s in block):
            setattr(node, name, _without_gil(block))


def _without_gil(block: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in block:
        if _gil_block(stmt):
            out += _without_gil(stmt.body)  # type: ignore[attr-defined]
        else:
            out.append(stmt)
    return out


def _gil_block(stmt: ast.AST) -> bool:
    if not isinstance(stmt, ast.With):
        return False
    for item in stmt.items:
        lock = item.context_expr
        if isinstance(lock, ast.Call):
            lock = lock.func
        if item.optional_vars is not None or not (
            isinstance(lock, ast.Name) and lock.id in ("nogil", "gil")
        ):
            return False
    return True


def _move_back(tree: ast.AST, moves: dict[int, list[tuple[int, int, int, int]]]) -> None:
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None:
            continue
        if line in moves:
            node.col_offset = _old(moves[line], node.col_offset, end=False)  # type: ignore[attr-defined]
        end_line = node.end_lineno  # type: ignore[attr-defined]
        end = node.end_col_offset  # type: ignore[attr-defined]
        if end_line in moves and end is not None:
            node.end_col_offset = _old(moves[end_line], end, end=True)  # type: ignore[attr-defined]


def _old(moves: list[tuple[int, int, int, int]], column: int, *, end: bool) -> int:
    """The file's column of `column` in a widened line (see CythonRewrite.moves): a start
    inside a rewritten piece goes to the piece's start, an end to its end."""
    delta = 0
    for new_start, new_end, old_start, old_end in moves:
        if column < new_start or (end and column == new_start):
            return column - delta
        if column < new_end or (end and column == new_end):
            return old_end if end else old_start
        delta = new_end - old_end
    return column - delta


def _bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())


# -- tokens --------------------------------------------------------------------------------


def _logical_lines(tokens: Sequence[TokenInfo]) -> Iterator[list[TokenInfo]]:
    """The tokens of each logical line, without comments, indents and its NEWLINE."""
    current: list[TokenInfo] = []
    for token in tokens:
        kind = token.type
        if kind in _NOT_CODE:
            continue
        if kind == tokenize.NEWLINE or kind == tokenize.ENDMARKER:
            if current:
                yield current
                current = []
            continue
        current.append(token)
    if current:
        yield current


def _is(token: TokenInfo, op: str) -> bool:
    return token.type == OP and token.string == op


def _closing(tokens: Sequence[TokenInfo], at: int) -> int:
    """The index of the bracket closing the one at `at` (len(tokens) when none)."""
    depth = 0
    for i in range(at, len(tokens)):
        token = tokens[i]
        if token.type == OP:
            if token.string in _OPENERS:
                depth += 1
            elif token.string in _CLOSERS:
                depth -= 1
                if depth == 0:
                    return i
    return len(tokens)


def _split_at(
    tokens: Sequence[TokenInfo], op: str
) -> tuple[list[list[TokenInfo]], list[TokenInfo]]:
    """`tokens` cut at each `op` outside brackets, and the `op` tokens cut at."""
    parts: list[list[TokenInfo]] = [[]]
    seps: list[TokenInfo] = []
    depth = 0
    for token in tokens:
        if token.type == OP:
            if token.string in _OPENERS:
                depth += 1
            elif token.string in _CLOSERS:
                depth -= 1
            elif depth == 0 and token.string == op:
                parts.append([])
                seps.append(token)
                continue
        parts[-1].append(token)
    return parts, seps


def _first_top(tokens: Sequence[TokenInfo], op: str, start: int = 0) -> int:
    """The index of the first `op` outside brackets from `start`, else -1."""
    depth = 0
    for i in range(start, len(tokens)):
        token = tokens[i]
        if token.type != OP:
            continue
        if depth == 0 and token.string == op:
            return i
        if token.string in _OPENERS:
            depth += 1
        elif token.string in _CLOSERS:
            depth -= 1
    return -1


def _operand_end(token: TokenInfo | None) -> bool:
    """Whether `token` can end an operand: then a `<` after it compares, an `&` is `and`."""
    if token is None:
        return False
    if token.type == NAME:
        return token.string not in _KEYWORDS
    if token.type in (NUMBER, STRING):
        return True
    return token.type == OP and token.string in _OPERAND_END


def _declared_name(part: Sequence[TokenInfo]) -> int | None:
    """The index of the name a declarator or parameter declares: the last name outside
    brackets before its `=`, or the name before C array dimensions (`buf[100]`); None
    when there is none (`int64_t[:]` alone, in a prototype)."""
    end = _first_top(part, "=")
    head = part if end < 0 else part[:end]
    if not head:
        return None
    last = head[-1]
    if last.type == NAME and last.string not in _KEYWORDS:
        return len(head) - 1
    if not _is(last, "]"):
        return None
    depth = 0
    for i in range(len(head) - 1, -1, -1):  # back to the `[` that opens the dimensions
        if _is(head[i], "]"):
            depth += 1
        elif _is(head[i], "["):
            depth -= 1
            if depth == 0:
                before = head[i - 1] if i else None
                typed = i >= 2 and (head[i - 2].type == NAME or head[i - 2].string in _POINTERS)
                if before is not None and before.type == NAME and typed:
                    return i - 1
                return None
    return None


def _c_type(tokens: Sequence[TokenInfo]) -> Sequence[TokenInfo]:
    """The tokens of a C type before a declared name, without its trailing pointer stars
    (none left: `*args`, Python's)."""
    end = len(tokens)
    while end and tokens[end - 1].type == OP and tokens[end - 1].string in _POINTERS:
        end -= 1
    return tokens[:end]


def _cast_end(tokens: Sequence[TokenInfo], at: int) -> int | None:
    """The index of the `>` closing a cast that opens at `at`, or None when what follows
    is not a C type (`<T>`, `<T*>`, `<T?>`, `<vector[int]>`, `<object>`)."""
    depth = 0
    line = tokens[at].start[0]
    for i in range(at + 1, min(len(tokens), at + 40)):
        token = tokens[i]
        if token.start[0] != line:
            return None
        if token.type == OP:
            if token.string in ("[", "("):
                depth += 1
            elif token.string in ("]", ")"):
                depth -= 1
                if depth < 0:
                    return None
            elif token.string == ">" and depth == 0:
                return i if i > at + 1 else None
            elif token.string not in _CAST_OPS and depth == 0:
                return None
        elif token.type not in (NAME, NUMBER, tokenize.ERRORTOKEN):
            return None
    return None


# -- the rewrite ---------------------------------------------------------------------------


def rewrite(text: str, *, thorough: bool = False) -> CythonRewrite:
    """`text` (a Cython file's source, line ends `\\n`) as Python on the same lines; raises
    RewriteError when it does not tokenize. Only the lines that look as if they need it
    are rewritten, unless `thorough` (for a rewrite Python then could not parse)."""
    lines = text.split("\n")
    if not thorough:
        try:
            return _rewrite_lines(lines)
        except Unsure:  # the quick scan lost its way: tokenize it all
            pass
    return _rewrite_tokens(text, lines)


def _rewrite_lines(lines: list[str]) -> CythonRewrite:
    """The rewrite, tokenizing only the logical lines that may hold Cython's syntax (and
    those of a `cdef:` block); see cython_lines.py."""
    writer = _Writer(lines)
    for logical in logical_lines(lines):
        kind = writer.enter(logical.column)
        if kind == "drop":
            writer.blank_lines(logical.first, logical.column, logical.last)
        elif logical.suspect or kind == "declare":
            writer.logical_line(tokens_of(lines, logical))
        elif logical.opens:
            writer.blocks.append(_Block(logical.column, logical.opens, ""))
    return writer.result()


def _rewrite_tokens(text: str, lines: list[str]) -> CythonRewrite:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except tokenize.TokenError as exc:
        where = exc.args[1] if len(exc.args) > 1 else None
        line = f" (line {where[0]})" if isinstance(where, tuple) and where else ""
        raise RewriteError(f"{exc.args[0]}{line}") from None
    except SyntaxError as exc:  # IndentationError, from the tokenizer
        raise RewriteError(f"{exc.msg} (line {exc.lineno})") from None
    writer = _Writer(lines)
    for logical in _logical_lines(tokens):
        writer.logical_line(logical)
    return writer.result()


@dataclass(slots=True)
class _Block:
    indent: int  # column of the header's first token
    kind: str  # "class", "def", "drop" (C declarations), "declare" (a `cdef:` block), "other"
    indentation: str  # the header line's, as written: a `cdef:` block's lines move out to it
    public: bool = False  # a `cdef public:` / `cdef readonly:` block


class _Writer:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.edits: list[_Edit] = []
        self.includes: list[str] = []
        self.params: dict[tuple[int, int], _Type] = {}  # (line, character column) keys
        self.declared: dict[tuple[int, int], tuple[int, _Type | None]] = {}
        self.returns: dict[tuple[int, int], _Type] = {}
        self.blocks: list[_Block] = []

    # -- statements ----------------------------------------------------------------------

    def enter(self, column: int) -> str:
        """Leave the blocks a logical line at `column` is out of; the kind of the one it
        is in ("module" when none)."""
        blocks = self.blocks
        while blocks and blocks[-1].indent >= column:
            blocks.pop()
        return blocks[-1].kind if blocks else "module"

    def blank_lines(self, first: int, column: int, last: int) -> None:
        """Blank a logical line from `column` of line `first` to the end of line `last`."""
        self.edits.append(_Edit(first, column, -1, ""))
        self.edits.extend(_Edit(line, 0, -1, "") for line in range(first + 1, last + 1))

    def logical_line(self, tokens: list[TokenInfo]) -> None:
        self.enter(tokens[0].start[1])
        block = self.blocks[-1] if self.blocks else None
        if block is not None and block.kind == "drop":
            self.blank(tokens[0], tokens[-1])
            return
        if block is not None and block.kind == "declare":  # a line of a `cdef:` block
            self.declaration(tokens, 0, public=block.public, indentation=block.indentation)
            return
        header = _is(tokens[-1], ":")
        parts, _ = _split_at(tokens, ";")
        for part in parts:
            if part:
                self.statement(part, header and part[-1] is tokens[-1])

    def statement(self, tokens: list[TokenInfo], header: bool) -> None:
        first = tokens[0]
        word = first.string if first.type == NAME else ""
        if word in ("cdef", "cpdef"):
            self.c_statement(tokens, header)
        elif word == "ctypedef":
            self.drop(tokens, header)
        elif word == "include" and len(tokens) == 2 and tokens[1].type == STRING:
            self.include(tokens)
        elif word == "DEF" and len(tokens) > 2 and tokens[1].type == NAME:
            self.move_name(first, tokens[1], "")  # `X = v`, X's column restored
            self.declared[first.start] = (tokens[1].start[1], None)
            self.expressions(tokens[2:])
        elif word in ("IF", "ELIF", "ELSE"):
            self.edit(first, first, word.lower())
            self.expressions(tokens[1:])
            self.open(first, "other")
        elif word == "property" and header and len(tokens) == 3 and tokens[1].type == NAME:
            self.edit(first, first, "class")  # its __get__ and __set__ as methods
            self.open(first, "class")
        elif word in ("from", "import", "cimport"):
            for token in tokens:
                if token.type == NAME and token.string == "cimport":
                    self.edit(token, token, "import")
        elif header and word == "def":
            self.function(tokens, 1)
        elif header and word == "async" and len(tokens) > 1 and tokens[1].string == "def":
            self.function(tokens, 2)
        elif header:
            if word == "except":
                self.old_except(tokens)
            self.expressions(tokens)
            self.open(first, "class" if word == "class" else "other")
        else:
            self.expressions(tokens)

    def open(self, first: TokenInfo, kind: str, *, public: bool = False) -> None:
        line, column = first.start
        self.blocks.append(_Block(column, kind, self.lines[line - 1][:column], public))

    def include(self, tokens: list[TokenInfo]) -> None:
        try:
            name = ast.literal_eval(tokens[1].string)
        except (ValueError, SyntaxError):
            name = None
        if isinstance(name, str):
            self.includes.append(name)
        self.blank(tokens[0], tokens[-1], keep="pass")

    def old_except(self, tokens: list[TokenInfo]) -> None:
        """`except KeyError, err:`, Cython's old spelling of `except KeyError as err:`."""
        parts, commas = _split_at(tokens[1:-1], ",")
        if len(parts) == 2 and len(parts[1]) == 1 and parts[1][0].type == NAME:
            comma = commas[0]
            line, column = comma.start
            self.edits.append(_Edit(line, column, comma.end[1], " as", wider=True))

    def c_statement(self, tokens: list[TokenInfo], header: bool) -> None:
        """A statement that starts with `cdef` or `cpdef`."""
        first = tokens[0]
        at = 1
        public = False
        while at < len(tokens) and tokens[at].type == NAME and tokens[at].string in _MODIFIERS:
            public = public or tokens[at].string in ("public", "readonly")
            at += 1
        if at == len(tokens) or (header and at == len(tokens) - 1):  # `cdef:`, `cdef public:`
            self.blank(first, tokens[-1], keep="pass")
            if header:
                self.open(first, "declare", public=public)
            return
        word = tokens[at].string if tokens[at].type == NAME else ""
        if word == "class" and header:
            self.edit(first, tokens[at], "class")
            bracket = _first_top(tokens, "[", at + 2)
            if bracket > 0:  # `cdef public class X [object XObject, type XType]:`
                self.blank(tokens[bracket], tokens[min(_closing(tokens, bracket), len(tokens) - 2)])
            self.expressions(tokens[at + 1 : bracket if bracket > 0 else len(tokens)])
            self.open(first, "class")
        elif word in _C_DECLARATIONS:
            self.drop(tokens, header)
        elif header:
            self.c_function(tokens, at)
        else:
            self.declaration(tokens, at, public=public)

    def drop(self, tokens: list[TokenInfo], header: bool) -> None:
        self.blank(tokens[0], tokens[-1], keep="pass")
        if header:
            self.open(tokens[0], "drop")

    def _in_class(self) -> bool:
        for block in reversed(self.blocks):
            if block.kind in ("class", "def"):
                return block.kind == "class"
        return False

    def declaration(
        self, tokens: list[TokenInfo], at: int, *, public: bool, indentation: str | None = None
    ) -> None:
        """`TYPE a, *b = v` (from `at`): `a: TYPE; b = v`, at the statement's column (at
        `indentation`, a `cdef:` block's line); a prototype, or a C attribute that a
        class keeps to itself: `pass`."""
        first = tokens[0]
        body = tokens[at:]
        equals = _first_top(body, "=")
        head = body if equals < 0 else body[:equals]
        declarators, commas = _split_at(body, ",")
        if len(declarators) > 1 and not declarators[-1]:  # `float64_t a, b,` goes on
            self.blank(commas[-1], commas[-1])
            declarators.pop()
        names = [_declared_name(part) for part in declarators]
        c_type = _c_type(declarators[0][: names[0] or 0])
        name = declarators[0][names[0]] if names[0] is not None else first
        if (
            not c_type
            or None in names
            or _call_paren(head) >= 0
            or (self._in_class() and not public)
            or name.start[0] != first.start[0]
        ):
            # a `cdef:` block's line goes: its header became the `pass` its block needs
            self.blank(first, tokens[-1], keep="pass" if indentation is None else "")
            return
        start, end = c_type[0], c_type[-1]
        typed = None
        if start.start[0] == end.end[0]:
            typed = self._type(start.start[0], start.start[1], end.end[1])
        # `cdef int x = 1`: `x:_ = 1`, the name where the statement starts; `:_` keeps the
        # place of an annotation that restore puts the type in
        line, column = first.start
        if indentation is None:
            self.move_name(first, name, ":_")
        else:
            self.edits.append(_Edit(line, 0, name.end[1], indentation + name.string + ":_"))
            column = len(indentation)
        self.declared[(line, column)] = (name.start[1], typed)
        for number, (part, where) in enumerate(zip(declarators, names, strict=True)):
            assert where is not None
            if number:  # `, *b = v`: `; b = v`
                self.edit(commas[number - 1], commas[number - 1], ";")
                if where:
                    self.blank(part[0], part[where - 1])
            rest = part[where + 1 :]
            value = _first_top(rest, "=")
            dims = rest if value < 0 else rest[:value]
            if dims:  # `buf[100]`: C array dimensions
                self.blank(dims[0], dims[-1])
            if value >= 0:
                self.expressions(rest[value + 1 :])

    def c_function(self, tokens: list[TokenInfo], at: int) -> None:
        """`cdef [type] NAME(...) [except ...] [nogil]:` from its modifiers up to `at`."""
        paren, i = -1, at
        while i < len(tokens):
            token = tokens[i]
            if _is(token, "(") and i > at and tokens[i - 1].type == NAME:
                paren = i
                break
            if token.type == OP and token.string in _OPENERS:
                i = _closing(tokens, i)  # a bracket of the return type: `(int, int)`
            i += 1
        first = tokens[0]
        if paren < 0 or tokens[paren - 1].start[0] != first.start[0]:
            self.drop(tokens, True)
            return
        c_type = tokens[at : paren - 1]
        if c_type and c_type[0].start[0] == c_type[-1].end[0]:
            where = self._type(c_type[0].start[0], c_type[0].start[1], c_type[-1].end[1])
            self.returns[first.start] = where
        self.move_name(first, tokens[paren - 1], "", keyword="def")
        self.function(tokens, paren - 1)

    def function(self, tokens: list[TokenInfo], name_at: int) -> None:
        """A function's header, its name at `name_at`: each parameter's C type kept
        aside, and anything between `)` and `:` but `-> T` blanked."""
        first = tokens[0]
        self.open(first, "def")
        paren = name_at + 1
        if paren >= len(tokens) or not _is(tokens[paren], "("):
            self.expressions(tokens)
            return
        close = _closing(tokens, paren)
        if close >= len(tokens):
            return
        self.parameters(tokens[paren + 1 : close])
        trailer = tokens[close + 1 : -1]
        arrow = next((i for i, t in enumerate(trailer) if _is(t, "->")), len(trailer))
        if arrow:
            self.blank(trailer[0], trailer[arrow - 1])
        self.expressions(trailer[arrow + 1 :])

    def parameters(self, tokens: list[TokenInfo]) -> None:
        for param in _split_at(tokens, ",")[0]:
            if not param:
                continue
            equals = _first_top(param, "=")
            colon = _first_top(param, ":")
            if colon >= 0 and (equals < 0 or colon < equals):  # `x: int = 1`, Python's
                self.expressions(param[colon + 1 :])
                continue
            head = param if equals < 0 else param[:equals]
            # `x not None`, `x or None`: Cython's say on None, no part of the name
            if len(head) >= 3 and head[-1].string == "None" and head[-2].string in ("not", "or"):
                self.blank(head[-2], head[-1])
                head = head[:-2]
            where = _declared_name(head)
            c_type = _c_type(head[:where]) if where else ()
            if where and c_type:  # a C type before the name (not `*args`)
                name = head[where]
                self.blank(head[0], head[where - 1])
                if where + 1 < len(head):  # `int a[]`
                    self.blank(head[where + 1], head[-1])
                start, end = c_type[0], head[where - 1]
                if start.start[0] == end.end[0]:
                    typed = self._type(start.start[0], start.start[1], end.end[1])
                    self.params[name.start] = typed
            if equals >= 0:
                default = param[equals + 1 :]
                if len(default) == 1 and _is(default[0], "*"):  # `x=*` of a .pxd
                    self.edit(default[0], default[0], "0")
                else:
                    self.expressions(default)

    # -- expressions -----------------------------------------------------------------------

    def expressions(self, tokens: Sequence[TokenInfo]) -> None:
        """Blank the Cython-only parts of expressions: casts `<T>x` (`<T?>x`), address-of
        `&x` (in f-strings too), the char prefix `c'x'`, C integer suffixes `1ULL`, pointer
        types in `sizeof(...)`; and rename a C field spelled like a keyword (`dts.as`)."""
        previous: TokenInfo | None = None
        i = 0
        count = len(tokens)
        while i < count:
            token = tokens[i]
            kind = token.type
            if kind == OP:
                if token.string == "<" and not _operand_end(previous):
                    close = _cast_end(tokens, i)
                    if close is not None:
                        self.blank(token, tokens[close])
                        previous, i = tokens[close], close + 1
                        continue
                elif token.string == "&" and not _operand_end(previous):
                    self.blank(token, token)
            elif kind == NAME:
                nxt = tokens[i + 1] if i + 1 < count else None
                adjacent = previous is not None and previous.end == token.start
                if adjacent and previous.type == NUMBER and set(token.string) <= _C_SUFFIX:  # type: ignore[union-attr]
                    self.blank(token, token)
                elif token.string in _KEYWORDS and previous is not None and _is(previous, "."):
                    self.edits.append(
                        _Edit(token.start[0], token.start[1], token.start[1] + 1, "_")
                    )
                elif token.string == "c" and nxt is not None and nxt.type == STRING:
                    if nxt.start == token.end:
                        self.blank(token, token)
                elif token.string == "sizeof" and nxt is not None and _is(nxt, "("):
                    close = _closing(tokens, i + 1)
                    self._sizeof(tokens[i + 2 : close])
            elif kind == STRING and "&" in token.string and "{" in token.string:
                self._f_string(token)
            previous = token
            i += 1

    def _sizeof(self, inside: Sequence[TokenInfo]) -> None:
        """`sizeof(unsigned char *)`: a C type as the argument, made one name."""
        if len(inside) > 1 and all(t.type == NAME or t.string in _POINTERS for t in inside):
            for token in inside[1:]:
                self.blank(token, token)

    def _f_string(self, token: TokenInfo) -> None:
        """`f"{f(&x)}"`: the address-of inside an f-string's fields, blanked."""
        text = token.string
        prefix = text[: len(text) - len(text.lstrip("bBrRuUfF"))]
        if "f" not in prefix.lower():
            return
        line, column = token.start
        before = ""
        for at, char in enumerate(text):
            if char == "\n":
                line, column = line + 1, -at - 1
            elif char == "&" and before in ("(", "{", "[", ",", "="):
                self.edits.append(_Edit(line, column + at, column + at + 1, " "))
            if not char.isspace():
                before = char

    # -- edits -------------------------------------------------------------------------------

    def _type(self, line: int, start: int, end: int) -> _Type:
        text = self.lines[line - 1]
        return _Type(line, _bytes(text[:start]), _bytes(text[:end]))

    def edit(self, first: TokenInfo, last: TokenInfo, text: str) -> None:
        """Replace `first` to `last` (on one line) by `text`, padded to their width."""
        self.edits.append(_Edit(first.start[0], first.start[1], last.end[1], text))

    def move_name(self, first: TokenInfo, name: TokenInfo, after: str, keyword: str = "") -> None:
        """From `first` to the end of `name` (one line): `keyword`, then the name (and
        `after`) where `first` was, padded to the same width: `cdef int x` -> `x:_`.
        With `keyword`, the name stays where it is: `cdef int f(` -> `def      f(`."""
        line, column = first.start
        if keyword:
            self.edits.append(_Edit(line, column, name.start[1], keyword))
        else:
            self.edits.append(_Edit(line, column, name.end[1], name.string + after))

    def blank(self, first: TokenInfo, last: TokenInfo, *, keep: str = "") -> None:
        """Make the text from `first` to the end of `last` blank, `keep` at its start (a
        `pass` where a statement was)."""
        line, column = first.start
        end_line, end = last.end
        if keep == "pass":
            self._undecorate(line, column)
        if line == end_line:
            self.edits.append(_Edit(line, column, end, keep))
            return
        self.edits.append(_Edit(line, column, -1, keep))
        for middle in range(line + 1, end_line):
            self.edits.append(_Edit(middle, 0, -1, ""))
        self.edits.append(_Edit(end_line, 0, end, ""))

    def _undecorate(self, line: int, column: int) -> None:
        """Blank the decorators right above line `line` at `column` (a .pxd's
        `@cython.locals(n="int")` over a prototype): Python takes none over a `pass`. A
        decorator's lines are those from its `@` down, deeper than `column` but for a
        closing bracket; any other line above ends the search, as does a decorator longer
        than _DECORATOR_LINES."""
        above = line - 1
        while above >= 1:
            top = above
            while top >= max(1, above - _DECORATOR_LINES):
                text = self.lines[top - 1]
                stripped = text.lstrip()
                indent = len(text) - len(stripped)
                if stripped and indent == column and stripped.startswith("@"):
                    break
                if stripped and indent < column:
                    return
                if stripped and indent == column and stripped[0] not in ")]}#":
                    return
                top -= 1
            if top < max(1, above - _DECORATOR_LINES) or any(
                top <= edit.line <= above for edit in self.edits
            ):
                return  # no decorator, or one the rewrite already edits: left to Python
            self.edits.append(_Edit(top, column, -1, ""))
            self.edits.extend(_Edit(middle, 0, -1, "") for middle in range(top + 1, above + 1))
            above = top - 1

    def result(self) -> CythonRewrite:
        lines = list(self.lines)
        moves: dict[int, list[tuple[int, int, int, int]]] = {}
        by_line: dict[int, list[_Edit]] = {}
        for edit in self.edits:
            by_line.setdefault(edit.line, []).append(edit)
        for number, edits in by_line.items():
            old = self.lines[number - 1]
            edits.sort(key=lambda e: (e.start, e.end if e.end >= 0 else len(old)))
            pieces: list[str] = []
            moved: list[tuple[int, int, int, int]] = []
            at = 0  # in `old`, characters
            new_bytes = 0
            for edit in edits:
                end = len(old) if edit.end < 0 else edit.end
                if edit.start < at:  # overlaps one made already: the first one stands
                    continue
                kept = old[at : edit.start]
                width = _bytes(old[edit.start : end])
                text = edit.text + " " * (width - _bytes(edit.text))
                pieces += (kept, text)
                new_bytes += _bytes(kept)
                if _bytes(text) != width:
                    old_start = _bytes(old[: edit.start])
                    moved.append(
                        (new_bytes, new_bytes + _bytes(text), old_start, old_start + width)
                    )
                new_bytes += _bytes(text)
                at = end
            pieces.append(old[at:])
            lines[number - 1] = "".join(pieces)
            if moved:
                moves[number] = moved

        def key(line: int, column: int) -> tuple[int, int]:
            return line, _bytes(self.lines[line - 1][:column])

        return CythonRewrite(
            text="\n".join(lines),
            includes=tuple(self.includes),
            moves=moves,
            params={key(*k): t for k, t in self.params.items()},
            declared={
                key(*k): (key(k[0], column)[1], t) for k, (column, t) in self.declared.items()
            },
            returns={key(*k): t for k, t in self.returns.items()},
            lines=self.lines,
            gil=any("gil" in line for line in self.lines),
        )


def _call_paren(head: Sequence[TokenInfo]) -> int:
    """The index of a `(` outside brackets right after a name (`f(int x)`, a prototype;
    `int (*fp)(int)`), else -1."""
    depth = 0
    for i, token in enumerate(head):
        if token.type != OP:
            continue
        if token.string in _OPENERS:
            if depth == 0 and token.string == "(" and i and head[i - 1].type == NAME:
                return i
            depth += 1
        elif token.string in _CLOSERS:
            depth -= 1
    return -1
