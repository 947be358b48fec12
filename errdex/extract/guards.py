# Guards: the conditions around a site, kept as AST nodes while the walk goes on and
# turned into source text (and the names they read) only when a site needs them.
from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from errdex.extract.render import Render, unparse
from errdex.model import Guard, GuardKind

# A name read by a guard or message: ("self", attr, expr) or ("name", id, expr).
NameRef = tuple[str, str, str]
_NOT_INPUTS = frozenset(dir(builtins)) | {"self", "cls"}


class GuardInfo:
    """A guard whose source text and names are worked out only if a site needs them."""

    __slots__ = ("_guard", "_names", "kind", "line", "negated", "node", "reach", "render", "shape")

    def __init__(
        self,
        kind: GuardKind,
        node: ast.AST,
        negated: bool,
        line: int,
        shape: str = "test",
        render: Render = unparse,
    ):
        self.render = render
        self.kind = kind
        self.node = node
        self.negated = negated
        self.line = line
        self.shape = shape
        self._guard: Guard | None = None
        self._names: tuple[NameRef, ...] | None = None
        self.reach: object = None  # what errdex.extract.reach made of the test, once

    @property
    def guard(self) -> Guard:
        if self._guard is None:
            text = _GUARD_TEXT[self.shape](self.node, self.render)
            self._guard = Guard(kind=self.kind, test=text, negated=self.negated, line=self.line)
        return self._guard

    @property
    def names(self) -> tuple[NameRef, ...]:
        if self._names is None:
            node = self.node
            if self.shape == "for":
                node = node.iter  # type: ignore[attr-defined]
            self._names = names_read(node) if self.shape in ("test", "for") else ()
        return self._names


def _handled(node: ast.Try | ast.TryStar, render: Render) -> str:
    return ", ".join(
        render(h.type) if h.type is not None else "BaseException" for h in node.handlers
    )


def _handler(node: ast.ExceptHandler, render: Render) -> str:
    types = "BaseException" if node.type is None else render(node.type)
    return f"{types} as {node.name}" if node.name else types


def _with_item(item: ast.withitem, render: Render) -> str:
    text = render(item.context_expr)
    return text if item.optional_vars is None else f"{text} as {render(item.optional_vars)}"


def _case(node: ast.match_case, render: Render) -> str:
    text = render(node.pattern)
    return text if node.guard is None else f"{text} if {render(node.guard)}"


_GUARD_TEXT: dict[str, Callable[[Any, Render], str]] = {
    "test": lambda n, render: render(n),
    "for": lambda n, render: f"{render(n.target)} in {render(n.iter)}",
    "with": lambda n, render: ", ".join(_with_item(item, render) for item in n.items),
    "try": _handled,
    "except": _handler,
    "finally": lambda n, render: "",
    "case": _case,
}


def names_read(node: ast.AST) -> tuple[NameRef, ...]:
    """`self.attr` and plain names that an expression reads, in source order."""
    found: list[tuple[int, int, NameRef]] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            owner = sub.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                ref = ("self", sub.attr, f"{owner.id}.{sub.attr}")
                found.append((sub.lineno, sub.col_offset, ref))
        elif isinstance(sub, ast.Name) and sub.id not in _NOT_INPUTS:
            found.append((sub.lineno, sub.col_offset, ("name", sub.id, sub.id)))
    found.sort()  # ast.walk goes breadth first; inputs are listed in reading order
    return tuple(ref for _, _, ref in found)


_OWN_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def loop_leaves(body: list[ast.stmt]) -> set[str]:
    """How a loop's body can leave the loop early: "return" and/or "break" (those of
    nested loops and functions are theirs, not this loop's)."""
    found: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            found.add("return")
        elif isinstance(node, ast.Break):
            found.add("break")
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
            # a nested loop's own break is not ours; its returns still leave us
            found |= loop_leaves(node.body) & {"return"}
            todo.extend(node.orelse)
        elif not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
        ):
            todo.extend(ast.iter_child_nodes(node))
    return found


def exits(stmts: list[ast.stmt]) -> bool:
    """True when a block always leaves: it ends with return, raise, continue or break."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return | ast.Raise | ast.Continue | ast.Break):
        return True
    if isinstance(last, ast.If):
        return exits(last.body) and exits(last.orelse)
    return False
