# From the AST a file was parsed into to the small expression trees of errdex.expr,
# which are what every later stage reads of a condition or a hole. Dispatch is by node
# type name; a node type not modelled becomes an Opaque node that keeps its source, how
# tightly it binds and the trees of the expressions inside it.
from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any, Literal

from errdex.expr import (
    ARITH,
    ATOM,
    AWAIT,
    BAND,
    BXOR,
    EXPR,
    FACTOR,
    POWER,
    SHIFT,
    TERM,
    TEST,
    Attribute,
    BoolOp,
    Call,
    Collection,
    CompareOp,
    Comprehension,
    Constant,
    Expr,
    IsInstance,
    Keyword,
    Name,
    Not,
    Opaque,
    Subscript,
    compare,
)
from errdex.expr import Compare as CompareNode

_OPS: dict[str, CompareOp] = {
    "Lt": "<",
    "LtE": "<=",
    "Gt": ">",
    "GtE": ">=",
    "Eq": "==",
    "NotEq": "!=",
    "Is": "is",
    "IsNot": "is not",
    "In": "in",
    "NotIn": "not in",
}


def tree_of(node: ast.AST) -> Expr:
    """The tree of an expression; anything not modelled is Opaque, and an expression
    too deep to walk is one Opaque node."""
    try:
        return _tree(node)
    except RecursionError:
        return Opaque(text="…")


def _tree(node: ast.AST) -> Expr:
    build = _BUILD.get(type(node).__name__)
    found = None if build is None else build(node)
    return _opaque(node) if found is None else found


def _name(node: ast.Name) -> Expr:
    return Name(id=node.id)


def _attribute(node: ast.Attribute) -> Expr:
    return Attribute(value=_tree(node.value), attr=node.attr)


def _call(node: ast.Call) -> Expr:
    func = node.func
    if (
        isinstance(func, ast.Name)
        and func.id == "isinstance"
        and len(node.args) == 2
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return IsInstance(target=_tree(node.args[0]), types=_tree(node.args[1]))
    return Call(
        func=_tree(func),
        args=tuple(_tree(a) for a in node.args),
        keywords=tuple(Keyword(name=k.arg, value=_tree(k.value)) for k in node.keywords),
    )


def _subscript(node: ast.Subscript) -> Expr:
    return Subscript(value=_tree(node.value), index=_tree(node.slice))


def _compare(node: ast.Compare) -> Expr:
    ops = tuple(_OPS[type(op).__name__] for op in node.ops)
    left, rights = _tree(node.left), tuple(_tree(c) for c in node.comparators)
    if len(ops) == 1:
        return compare(left, ops[0], rights[0])
    return CompareNode(left=left, ops=ops, comparators=rights)


def _bool(node: ast.BoolOp) -> Expr:
    op: Literal["and", "or"] = "and" if isinstance(node.op, ast.And) else "or"
    return BoolOp(op=op, values=tuple(_tree(v) for v in node.values))


def _unary(node: ast.UnaryOp) -> Expr | None:
    if isinstance(node.op, ast.Not):
        return Not(operand=_tree(node.operand))
    return None  # `-x`, `~x`: opaque


def _constant(node: ast.Constant) -> Expr | None:
    value = node.value
    if value is None or isinstance(value, str | bool | int):
        return Constant(value=value)
    if isinstance(value, float) and math.isfinite(value):
        return Constant(value=value)
    return None  # bytes, complex, `...`, infinities: opaque


def _collection(node: ast.List | ast.Tuple | ast.Set) -> Expr:
    kind = {"List": "list", "Tuple": "tuple", "Set": "set"}[type(node).__name__]
    return Collection(kind=kind, items=tuple(_tree(e) for e in node.elts))  # type: ignore[arg-type]


def _comprehension(node: ast.GeneratorExp | ast.ListComp | ast.SetComp) -> Expr | None:
    if len(node.generators) != 1 or node.generators[0].is_async:
        return None
    loop = node.generators[0]
    kind = {"GeneratorExp": "generator", "ListComp": "list", "SetComp": "set"}
    return Comprehension(
        kind=kind[type(node).__name__],  # type: ignore[arg-type]
        element=_tree(node.elt),
        target=_tree(loop.target),
        iterable=_tree(loop.iter),
        conditions=tuple(_tree(c) for c in loop.ifs),
    )


_BUILD: dict[str, Callable[[Any], Expr | None]] = {
    "Name": _name,
    "Attribute": _attribute,
    "Call": _call,
    "Subscript": _subscript,
    "Compare": _compare,
    "BoolOp": _bool,
    "UnaryOp": _unary,
    "Constant": _constant,
    "List": _collection,
    "Tuple": _collection,
    "Set": _collection,
    "GeneratorExp": _comprehension,
    "ListComp": _comprehension,
    "SetComp": _comprehension,
}

_BINARY = {
    "BitOr": EXPR,
    "BitXor": BXOR,
    "BitAnd": BAND,
    "LShift": SHIFT,
    "RShift": SHIFT,
    "Add": ARITH,
    "Sub": ARITH,
    "Mult": TERM,
    "MatMult": TERM,
    "Div": TERM,
    "Mod": TERM,
    "FloorDiv": TERM,
    "Pow": POWER,
}
# How tightly the other expressions bind; those ast.unparse brackets on their own (a
# walrus, a yield) come bracketed in their text, so they bind as atoms.
_LEVEL = {"IfExp": TEST, "Lambda": TEST, "Await": AWAIT}


def _opaque(node: ast.AST) -> Expr:
    kind = type(node).__name__
    if kind == "BinOp":
        level = _BINARY[type(node.op).__name__]  # type: ignore[attr-defined]
    elif kind == "UnaryOp":
        level = FACTOR
    else:
        level = _LEVEL.get(kind, ATOM)
    parts = tuple(_tree(c) for c in _inner(node))
    return Opaque(text=ast.unparse(node), precedence=level, parts=parts, form=kind)


def _inner(node: ast.AST) -> list[ast.expr]:
    """The expressions directly inside `node`, also those held by a part that is not one
    itself: the loops of a dict comprehension, a lambda's defaults."""
    out: list[ast.expr] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            out.append(child)
        else:  # ast.comprehension, ast.arguments, ast.arg; operators and contexts: none
            out += _inner(child)
    return out


def field_tree(field: str, base: Expr | None = None) -> Expr:
    """The tree of a str.format field as a message's hole names it: `name`, `0`,
    `x.attr`, `self.args[0]` (names, attributes and literal keys only); with `base`, the
    field's `.attr` / `[key]` rest read from it."""
    rest = field
    node = base
    if node is None:
        cut = min((at for at in (field.find("."), field.find("[")) if at >= 0), default=len(field))
        head, rest = field[:cut], field[cut:]
        node = Name(id=head) if head.isidentifier() else Opaque(text=head)
    while rest:
        if rest[0] == "." and len(rest) > 1:
            ends = (rest.find(".", 1), rest.find("[", 1))
            cut = min((at for at in ends if at > 0), default=len(rest))
            node, rest = Attribute(value=node, attr=rest[1:cut]), rest[cut:]
        elif rest[0] == "[" and "]" in rest:
            key, rest = rest[1 : rest.index("]")], rest[rest.index("]") + 1 :]
            index = Constant(value=int(key) if key.isdigit() else key)
            node = Subscript(value=node, index=index)
        else:
            return Opaque(text=field if base is None else base.source() + field, parts=(node,))
    return node
