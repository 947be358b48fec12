# Sites that cannot fire: two of a site's guards ask for the same condition to be both
# true and false (`if x is None: raise A` ... `if x is None: raise B`; an `elif` that
# repeats an earlier branch; an `assert` that an earlier one already made). Only pure
# tests are compared, and only when nothing on the way could have changed what they
# read: precision first, a live site called dead is worse than a dead one left unsaid.
from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.extract.guards import GuardInfo
from errdex.extract.syntax import dotted_name

_PURE_CALLS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "len"})
# the kinds whose test is known to hold (or not) wherever the site is reached
_COMPARED = frozenset({"if", "elif", "early-exit", "assert", "asserted"})
_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.IsNot: ast.Is,
    ast.NotEq: ast.Eq,
    ast.NotIn: ast.In,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
}
_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "add",
     "discard", "setdefault", "sort", "reverse"}
)  # fmt: skip


# A statement (or a compound statement's header) walked before a site: its line and
# the nodes it evaluates. What it may change is worked out only for the rare site
# whose guards could contradict each other.
Step = tuple[int, Sequence[ast.AST]]


@dataclass(frozen=True, slots=True)
class Write:
    """What one statement (or a compound statement's header) may change."""

    line: int
    names: frozenset[str]  # plain names and dotted attributes stored, roots mutated
    calls: bool  # it calls something that could change any object's state


def writes_of(nodes: Sequence[ast.AST], line: int) -> Write | None:
    """The stores and calls in `nodes` (a simple statement, or a header's expressions)."""
    names: set[str] = set()
    calls = False
    todo: list[ast.AST] = list(nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(
            node.ctx, ast.Store | ast.Del
        ):
            names.update(_roots(node))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
                names.update(_roots(func.value))
            if not (isinstance(func, ast.Name) and func.id in _PURE_CALLS):
                calls = True
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue  # a nested body runs later, if at all
        elif isinstance(node, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))
    if not names and not calls:
        return None
    return Write(line=line, names=frozenset(names), calls=calls)


def _roots(node: ast.expr) -> set[str]:
    """`a.b.c` -> {"a", "a.b", "a.b.c"}; `a[i].b` -> {"a"}: what a store can change."""
    out: set[str] = set()
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            text = dotted_name(node)
            if text is not None:
                out.add(text)
        node = node.value
    if isinstance(node, ast.Name):
        out.add(node.id)
    return out


@dataclass(frozen=True, slots=True)
class _Test:
    key: str  # the condition with its polarity folded in, as a dump of its tree
    holds: bool
    reads: frozenset[str]
    identity_only: bool  # only `is` / `is not` / isinstance on plain names: no call changes it


def _normal(node: ast.expr, holds: bool) -> tuple[ast.expr, bool]:
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, holds = node.operand, not holds
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        flip = _FLIP.get(type(node.ops[0]))
        if flip is not None:
            node = ast.Compare(left=node.left, ops=[flip()], comparators=node.comparators)
            holds = not holds
    return node, holds


_ALLOWED = (
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.BinOp,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Call,
    ast.expr_context,
    ast.cmpop,
    ast.boolop,
    ast.unaryop,
    ast.operator,
)


def _reads(node: ast.expr) -> frozenset[str] | None:
    """The names a side-effect-free test reads, or None when it calls anything but a pure
    builtin or holds anything else whose value could differ between two evaluations."""
    reads: set[str] = set()
    for sub in ast.walk(node):
        if not isinstance(sub, _ALLOWED):
            return None
        if isinstance(sub, ast.Call):
            if sub.keywords or not (isinstance(sub.func, ast.Name) and sub.func.id in _PURE_CALLS):
                return None
        elif isinstance(sub, ast.Attribute):
            if dotted_name(sub) is None:
                return None
            reads.update(_roots(sub))
        elif isinstance(sub, ast.Name) and sub.id not in _PURE_CALLS:
            reads.add(sub.id)
    return frozenset(reads)


def _identity(node: ast.expr) -> bool:
    """Only `is` / `is not` / isinstance on plain names: what no call can change."""
    if isinstance(node, ast.BoolOp):
        return all(_identity(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _identity(node.operand)
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        return all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops) and all(
            isinstance(o, ast.Name | ast.Constant) for o in operands
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return (
            node.func.id == "isinstance" and bool(node.args) and isinstance(node.args[0], ast.Name)
        )
    return False


_NOTHING = object()  # a guard test read once and found not to compare


def _test(info: GuardInfo) -> _Test | None:
    if info.reach is None:
        info.reach = _read_test(info) or _NOTHING
    return info.reach if isinstance(info.reach, _Test) else None


def _read_test(info: GuardInfo) -> _Test | None:
    if info.kind not in _COMPARED or info.shape != "test" or not isinstance(info.node, ast.expr):
        return None
    reads = _reads(info.node)
    if not reads:
        return None
    node, holds = _normal(info.node, not info.negated)
    return _Test(key=ast.dump(node), holds=holds, reads=reads, identity_only=_identity(node))


def _changed(test: _Test, since: int, until: int, steps: Sequence[Step]) -> bool:
    for at, nodes in steps:
        if since < at <= until:
            write = writes_of(nodes, at)
            if write is not None and (
                write.names & test.reads or (write.calls and not test.identity_only)
            ):
                return True
    return False


def unreachable(guards: Sequence[GuardInfo], line: int, steps: Sequence[Step]) -> str | None:
    """Why a site at `line` under `guards` (outermost first) can never fire, or None.

    `steps` are the statements of the function walked so far on the way, in order."""
    seen: list[tuple[GuardInfo, _Test]] = []
    for info in guards:
        if info.kind in ("for", "while"):
            seen = []  # what was checked before a loop may change on a later pass
            continue
        test = _test(info)
        if test is None:
            continue
        for earlier, first in seen:
            if first.key != test.key or first.holds == test.holds:
                continue
            if _changed(first, earlier.line, line, steps):
                continue
            return _reason(earlier, info)
        seen.append((info, test))
    return None


def _reason(earlier: GuardInfo, later: GuardInfo) -> str:
    shown = later.guard.test
    if later.kind == "assert":
        needs = f"`{shown}` to be false"
    else:
        needs = f"`{shown}` to be {'false' if later.negated else 'true'}"
    where = f"line {earlier.line}"
    if earlier.kind == "asserted":
        return f"it needs {needs}, and the `assert` on {where} already fails in that case"
    if earlier.kind == "early-exit":
        return (
            f"it needs {needs}, and the identical check on {where} already leaves the"
            " function (raises or returns) in that case"
        )
    if earlier.negated:
        return f"it needs {needs}, and the earlier branch on {where} already takes that case"
    return f"it needs {needs}, but it sits inside the check on {where}, which rules that out"
