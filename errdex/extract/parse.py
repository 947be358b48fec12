# Read one file into FileFacts, or say why it was skipped. Runs in worker processes.
#
# Caps on the work one file may cost, so that no file can take the index's memory:
# - MAX_FILE_BYTES (4 MiB): a bigger file is not read at all (generated tables, minified
#   bundles);
# - MAX_NODES: a file whose AST has more nodes is skipped before it is analysed (the
#   parse itself takes up to some 180 times the file's size: 700 MB for 4 MB of dense
#   code, which is why big files are parsed one at a time, see extract/__init__.py);
# - MAX_GUARD_WORK: a block whose sibling `if`s each guard the raises after them makes
#   the guards grow with the square of their count; past this estimate the file is
#   skipped rather than analysed for minutes;
# - nesting: what Python's parser or our recursion cannot take is skipped too.
# Line endings are read as Python's tokenizer reads them: `\r\n` and a lone `\r` end a
# line as `\n` does, so line numbers, snippets and source text agree with `ast`.
# Syntax newer than the running Python: a file its parser refuses is rewritten into older
# syntax on the same lines (downgrade.py) and parsed again; the visitor reads that tree
# with the file's own text. What is still refused is skipped with a reason that starts
# with UNPARSED, and the extract stage hands it to a newer Python (see elsewhere.py).
# A string literal may hold what no UTF-8 text (a lone surrogate, "\udcff") or no
# PostgreSQL text (NUL) can: such a character is kept as the escape Python shows for it
# (a traceback's stderr writes "\udcff" so), before anything reads the tree.
from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from errdex.extract.downgrade import downgrade
from errdex.extract.facts import FileFacts
from errdex.extract.files import MAX_FILE_BYTES, too_big
from errdex.extract.visitor import FileVisitor
from errdex.languages import is_cython

MAX_NODES = 2_000_000
MAX_GUARD_WORK = 5_000_000
UNPARSED = "does not parse"  # how every reason starts that a newer parser may undo
_RUNNING = f"Python {sys.version_info.major}.{sys.version_info.minor}"


class Skip(Exception):
    """This file cannot be read as Python; the message says why."""


def decode(data: bytes) -> str:
    """Source text of a Python file, honouring a BOM or a PEP 263 coding cookie, with
    its line endings made `\\n` as Python's tokenizer makes them."""
    head = data[:400]
    if b"coding" in head or head.startswith(b"\xef\xbb\xbf"):
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding).removeprefix("\ufeff")
    else:
        text = data.decode()
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def parse_file(
    data: bytes,
    path: str,
    module: str,
    *,
    strict: bool = False,
    want_calls: frozenset[int] = frozenset(),
) -> FileFacts:
    """Return the facts of one file's source bytes; raise Skip when it is not usable
    (it does not decode or parse, or passes one of the caps above). A Cython file (.pyx,
    .pxd, .pxi) is read by extract/cython.py."""
    if is_cython(path):
        from errdex.extract.cython import parse_cython

        return parse_cython(data, path, module, strict=strict, want_calls=want_calls)
    if len(data) > MAX_FILE_BYTES:
        raise Skip(too_big(len(data)))
    with reading():
        try:
            text = decode(data)
            with warnings.catch_warnings():  # what Python would warn about the indexed code
                warnings.simplefilter("ignore")  # ("\d", `1()`) is no concern of our user
                tree = _parse(text, path)
        except SyntaxError as exc:
            raise Skip(_unparsed(exc)) from None
    return analysed(tree, text, data, path, module, strict=strict, want_calls=want_calls)


@contextmanager
def reading() -> Iterator[None]:
    """Turn what decoding and parsing a file's text raise into the Skip that says why."""
    try:
        yield
    except (UnicodeDecodeError, LookupError) as exc:
        raise Skip(f"cannot decode: {exc}") from None
    except ValueError as exc:  # e.g. source contains null bytes
        raise Skip(f"cannot parse: {exc}") from None
    except (RecursionError, MemoryError):
        raise Skip("too deeply nested to parse") from None


def analysed(
    tree: ast.Module,
    text: str,
    data: bytes,
    path: str,
    module: str,
    *,
    strict: bool,
    want_calls: frozenset[int],
) -> FileFacts:
    """The facts of a parsed module: its size checked, its literals made storable, its
    statements visited."""
    check_size(tree, data)
    keep_storable(tree, text)
    visitor = FileVisitor(text, path, module, strict=strict, want_calls=want_calls)
    try:
        return visitor.visit_module(tree)
    except RecursionError:
        raise Skip("too deeply nested to analyse") from None


def _parse(text: str, path: str) -> ast.Module:
    """The tree of `text`, read as older syntax if it must be (see downgrade.py); raise
    SyntaxError when neither reads."""
    try:
        return ast.parse(text, path)
    except SyntaxError:
        older = downgrade(text)
        if older is None:
            raise
    tree = ast.parse(older.text, path)  # its SyntaxError is the one the rewrite left
    older.restore(tree)
    return tree


# an escape in the source that makes a lone surrogate or a NUL (a false hit, such as an
# escaped backslash before it, only costs a walk of the tree)
_UNSTORABLE_ESCAPE = re.compile(
    r"\\(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F]|0|x00|u0000|U00000000|N\{)"
)


def keep_storable(tree: ast.Module, text: str) -> None:
    """Escape the lone surrogates and NULs of the tree of `text`, when `text` may hold any
    (see _escape_unstorable)."""
    if _UNSTORABLE_ESCAPE.search(text):
        _escape_unstorable(tree)


def _escape_unstorable(tree: ast.Module) -> None:
    """Keep each lone surrogate and NUL of the tree's string constants as its escape."""
    for node in ast.walk(tree):
        if type(node) is ast.Constant and type(node.value) is str:
            value = node.value
            if "\0" in value:
                value = value.replace("\0", "\\x00")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                value = value.encode("utf-8", "backslashreplace").decode("utf-8")
            node.value = value


def _unparsed(exc: SyntaxError) -> str:
    where = "" if exc.lineno is None else f" (line {exc.lineno})"
    reason = f"{UNPARSED} with {_RUNNING}: {exc.msg}{where}"
    if sys.version_info < (3, 12) and exc.msg.startswith("f-string"):
        reason += "; the f-string syntax of Python 3.12 (PEP 701) may be why"
    return reason


def check_size(tree: ast.Module, data: bytes) -> None:
    """Raise Skip when the AST is over MAX_NODES or its guards would pass MAX_GUARD_WORK.

    Most files are far below both: a file has at most about two nodes per byte, and no
    more guard entries than `if`s times raises; only a file that could pass a cap is
    walked (a walk costs about a fifth of the analysis).
    """
    if 2 * len(data) > MAX_NODES:
        nodes = sum(1 for _ in ast.walk(tree))
        if nodes > MAX_NODES:
            raise Skip(f"its syntax tree has {nodes:,} nodes, over the cap of {MAX_NODES:,}")
    bound = data.count(b"if") * (data.count(b"raise") + data.count(b"assert"))
    if bound <= MAX_GUARD_WORK:
        return
    sites: dict[int, int] = {}  # id(node) -> raises and asserts under it, when any
    work = 0
    for node in reversed(list(ast.walk(tree))):  # children before parents
        count = 1 if type(node) in _SITES else 0
        for child in ast.iter_child_nodes(node):
            count += sites.get(id(child), 0)
        if count:
            sites[id(node)] = count
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if type(block) is list and len(block) > 1:
                    work += _guard_work(block, sites)
    if work > MAX_GUARD_WORK:
        raise Skip(
            f"too many conditions guard its raises (about {work:,} guard entries, over "
            f"the cap of {MAX_GUARD_WORK:,}); long chains of `if` blocks cost that"
        )


def _guard_work(block: list[ast.stmt], sites: dict[int, int]) -> int:
    """About how many guard entries the raises of `block` get from its sibling `if`s:
    each `if` can add one to every raise at or after it in the block."""
    ifs = 0
    work = 0
    for stmt in block:
        ifs += type(stmt) is ast.If
        if ifs:
            work += ifs * sites.get(id(stmt), 0)
    return work


_SITES = (ast.Raise, ast.Assert)
