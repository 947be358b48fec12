# Small questions about syntax trees that several rules ask: the dotted name an
# expression spells, and the statements of a tree, walked without its expressions.
#
# No statement is ever inside an expression, so a walk that follows only the fields
# holding statements (a block's `body`, `orelse`, `finalbody`, `handlers`, `cases`)
# meets every statement while it skips the expression nodes, which are most of a tree:
# on vllm's 2,238 files it takes a fraction of the time `ast.walk` does.
from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _block_fields(kind: type) -> tuple[str, ...]:
    fields: tuple[str, ...] = getattr(kind, "_fields", ())
    return tuple(name for name in fields if name in _BLOCKS)


def _holders() -> dict[type, tuple[str, ...]]:
    """The fields holding statements of each node type that has some, in `_fields` order
    (the order `ast.iter_child_nodes` gives them in)."""
    kinds: list[type] = [ast.Module, ast.excepthandler, ast.ExceptHandler, ast.match_case]
    todo: list[type] = [ast.stmt]
    while todo:
        kind = todo.pop()
        kinds.append(kind)
        todo.extend(kind.__subclasses__())
    return {kind: found for kind in kinds if (found := _block_fields(kind))}


_HOLDERS = _holders()


def child_statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements (and except handlers and match cases) directly inside `node`."""
    for name in _HOLDERS.get(type(node), ()):
        yield from getattr(node, name)


def statements(tree: ast.AST) -> Iterator[ast.AST]:
    """`tree` and every statement, except handler and match case in it, in the order
    `ast.walk` gives them."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        for name in _HOLDERS.get(type(node), ()):
            todo.extend(getattr(node, name))
        yield node


def dotted_parts(node: ast.AST) -> list[str] | None:
    """["a", "b", "c"] for `a.b.c` (names and attributes only), else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def dotted_name(node: ast.AST) -> str | None:
    """ "a.b.c" for `a.b.c` (names and attributes only), else None."""
    parts = dotted_parts(node)
    return None if parts is None else ".".join(parts)
