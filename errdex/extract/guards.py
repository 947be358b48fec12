# Guards: the conditions around a site, kept as AST nodes while the walk goes on and
# turned into source text, an expression tree and the names they read only when a site
# needs them.
from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from errdex.expr import Expr, Membership, Name
from errdex.extract.render import Render, unparse
from errdex.extract.syntax import child_statements, dotted_parts
from errdex.extract.trees import tree_of
from errdex.model import Guard, GuardKind

# A name read by a guard or message: ("self", attr, expr) or ("name", id, expr).
NameRef = tuple[str, str, str]
_NOT_INPUTS = frozenset(dir(builtins)) | {"self", "cls"}


class GuardInfo:
    """A guard whose source text and names are worked out only if a site needs them."""

    __slots__ = (
        "_guard",
        "_names",
        "kind",
        "line",
        "negated",
        "node",
        "raiser",
        "reach",
        "render",
        "shape",
    )

    def __init__(
        self,
        kind: GuardKind,
        node: ast.AST,
        negated: bool,
        line: int,
        shape: str = "test",
        render: Render = unparse,
        raiser: ast.AST | None = None,
    ):
        self.render = render
        self.kind = kind
        self.node = node
        self.negated = negated
        self.line = line
        self.shape = shape
        self.raiser = raiser  # for `except`: the expression of the `try` that can raise
        self._guard: Guard | None = None
        self._names: tuple[NameRef, ...] | None = None
        self.reach: object = None  # what errdex.extract.reach made of the test, once

    @property
    def guard(self) -> Guard:
        if self._guard is None:
            text = _GUARD_TEXT[self.shape](self.node, self.render)
            raiser = self.raiser
            raised_by = None if raiser is None else self.render(raiser)
            if raised_by is not None and len(raised_by) > MAX_RAISER:
                raiser = raised_by = None
            self._guard = Guard(
                kind=self.kind,
                test=text,
                negated=self.negated,
                line=self.line,
                raised_by=raised_by,
                tree=_GUARD_TREE[self.shape](self.node),
                raised_by_tree=tree_of(raiser) if isinstance(raiser, ast.expr) else None,
                imports=() if raiser is None else imported(raiser),
            )
        return self._guard

    @property
    def names(self) -> tuple[NameRef, ...]:
        if self._names is None:
            node = self.node
            if self.shape == "for":
                node = node.iter  # type: ignore[attr-defined]
            if self.shape in ("test", "for", "any"):
                self._names = names_read(node)
            elif self.raiser is not None:
                self._names = names_read(self.raiser)
            else:
                self._names = ()
        return self._names


MAX_RAISER = 200  # a longer `try` expression is left out of the guard


def raiser_of(body: list[ast.stmt]) -> ast.AST | None:
    """The expression of a one-statement `try` block (`x = f(a)`, `return g(b)`, `h(c)`),
    or the import statement it is: what raised the exception its handlers catch. None for
    longer blocks."""
    if len(body) != 1:
        return None
    stmt = body[0]
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return stmt
    value = getattr(stmt, "value", None) if type(stmt).__name__ in _VALUED else None
    return value if isinstance(value, ast.expr) else None


_VALUED = frozenset({"Assign", "AnnAssign", "AugAssign", "Expr", "Return"})


def imported(node: ast.AST) -> tuple[str, ...]:
    """The modules an import statement imports, as written: ("a.b", "c") of
    `import a.b, c`, (".x",) of `from .x import y`, (".",) of `from . import y`; () for
    anything else."""
    if isinstance(node, ast.Import):
        return tuple(alias.name for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return ("." * node.level + (node.module or ""),)
    return ()


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
    "any": lambda n, render: (
        f"any({render(n.args[0].elt)} for {render(n.args[0].generators[0].target)}"
        f" in {render(n.args[0].generators[0].iter)})"
    ),
}


def _handler_types(node: ast.ExceptHandler) -> Expr:
    return Name(id="BaseException") if node.type is None else tree_of(node.type)


# The tree of each shape of guard; the shapes whose test is no expression have none.
_GUARD_TREE: dict[str, Callable[[Any], Expr | None]] = {
    "test": tree_of,
    "any": tree_of,
    "for": lambda n: Membership(item=tree_of(n.target), container=tree_of(n.iter)),
    "except": _handler_types,
    "with": lambda n: None,
    "try": lambda n: None,
    "finally": lambda n: None,
    "case": lambda n: None,
}


def names_read(node: ast.AST) -> tuple[NameRef, ...]:
    """What an expression reads, in source order: `self.attr` ("self"), plain names
    ("name"), dotted reads of two or more parts (`config.x.y`, `self.a.b`: "chain", named
    by their root) and environment variables read in place (`os.getenv("X")`: "env")."""
    found: list[tuple[int, int, NameRef]] = []
    todo: list[ast.AST] = [node]
    while todo:
        sub = todo.pop()
        kind = type(sub)
        if kind is ast.Attribute:
            chain = dotted_parts(sub)
            if chain is not None:
                at = (sub.lineno, sub.col_offset)  # type: ignore[attr-defined]
                if chain[0] in ("self", "cls"):
                    found.append((*at, ("self", chain[1], f"{chain[0]}.{chain[1]}")))
                    if len(chain) > 2:
                        found.append((*at, ("chain", chain[0], ".".join(chain))))
                else:
                    found.append((*at, ("chain", chain[0], ".".join(chain))))
                    if chain[0] not in _NOT_INPUTS:
                        found.append((*at, ("name", chain[0], chain[0])))
                continue
        elif kind is ast.Name:
            if sub.id not in _NOT_INPUTS:  # type: ignore[attr-defined]
                ref = ("name", sub.id, sub.id)  # type: ignore[attr-defined]
                found.append((sub.lineno, sub.col_offset, ref))  # type: ignore[attr-defined]
            continue
        elif kind is ast.Call or kind is ast.Subscript:
            variable = env_read(sub)  # type: ignore[arg-type]
            if variable is not None:
                ref = ("env", variable, ast.unparse(sub))
                found.append((sub.lineno, sub.col_offset, ref))  # type: ignore[attr-defined]
                continue
        todo.extend(ast.iter_child_nodes(sub))
    found.sort(key=lambda item: (item[0], item[1]))  # in reading order, stable
    return tuple(ref for _, _, ref in found)


_GETENV = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get", "os.getenvb"})
_ENVIRON = frozenset({"os.environ", "environ"})


def env_read(node: ast.expr) -> str | None:
    """The variable of `os.getenv("X")`, `os.environ.get("X", d)` or `os.environ["X"]`."""
    if isinstance(node, ast.Call):
        func = dotted_parts(node.func) if isinstance(node.func, ast.Attribute) else None
        name = ".".join(func) if func else getattr(node.func, "id", None)
        if name in _GETENV and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return first.value
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute | ast.Name):
        value = node.value
        base = dotted_parts(value) if isinstance(value, ast.Attribute) else [value.id]
        key = node.slice
        if base and ".".join(base) in _ENVIRON and isinstance(key, ast.Constant):
            return key.value if isinstance(key.value, str) else None
    return None


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
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            todo.extend(child_statements(node))  # both are statements: no expression holds one
    return found


def returning_test(loop: ast.For | ast.AsyncFor) -> ast.expr | None:
    """`any(test for target in iter)` for a loop whose body leaves only through one
    `if test: ... return` at its top (`for s in SIZES: if n <= s: return s`), so that the
    code after the loop runs exactly when that `any` is false; None for any other loop
    (several returns, a `continue`, a return elsewhere). The node is made here, with the
    loop's position, to be read with the guard shape "any"."""
    found: ast.expr | None = None
    for stmt in loop.body:
        returning = "return" in loop_leaves([stmt])
        if not returning:
            continue
        if not (isinstance(stmt, ast.If) and not stmt.orelse and found is None):
            return None
        if not isinstance(stmt.body[-1], ast.Return) or loop_leaves(stmt.body[:-1]):
            return None
        found = stmt.test
    if found is None or any(isinstance(n, ast.Continue) for s in loop.body for n in ast.walk(s)):
        return None
    generator = ast.GeneratorExp(
        elt=found,
        generators=[ast.comprehension(target=loop.target, iter=loop.iter, ifs=[], is_async=0)],
    )
    made = ast.Call(func=ast.Name(id="any", ctx=ast.Load()), args=[generator], keywords=[])
    for node in (made, made.func, generator):
        node.lineno, node.col_offset = loop.lineno, loop.col_offset
    return made


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
