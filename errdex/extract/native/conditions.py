# Conditions of native code as errdex's expression trees (errdex.expr), so that every
# later stage reads a C, C++ or Rust check as it reads a Python one: `a && !b` is an
# `and` of `a` and a negated `b`, `x.dim() == 2` a comparison, `t->size` an attribute.
# What the trees do not model (casts, templates, lambdas, ternaries) is Opaque, with the
# expressions inside it still trees. Dispatch is by the grammar's node type, by name.
from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from tree_sitter import Node

from errdex.expr import (
    ARITH,
    ATOM,
    BAND,
    BXOR,
    CMP,
    EXPR,
    SHIFT,
    TERM,
    Attribute,
    BoolOp,
    Call,
    CompareOp,
    Constant,
    Expr,
    Name,
    Not,
    Opaque,
    compare,
)

MAX_DEPTH = 200  # deeper than this, a condition is the file's problem: see TooDeep


class TooDeep(Exception):
    """A condition or message nested deeper than MAX_DEPTH (a hostile or generated file)."""


_COMPARE: dict[str, CompareOp] = {
    "==": "==",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
}
_BINARY_LEVEL = {
    "|": EXPR,
    "^": BXOR,
    "&": BAND,
    "<<": SHIFT,
    ">>": SHIFT,
    "+": ARITH,
    "-": ARITH,
    "*": TERM,
    "/": TERM,
    "%": TERM,
}


def text(node: Node) -> str:
    raw = node.text
    return "" if raw is None else raw.decode("utf-8", "replace")


def source(node: Node) -> str:
    """The node's text on one line, runs of white space (and line continuations) made one
    space: what a guard's `test` and a hole's `expr` show."""
    return " ".join(text(node).replace("\\\n", " ").split())


def tree(node: Node, depth: int = 0) -> Expr:
    """The expression tree of a C, C++ or Rust expression node; raises TooDeep."""
    if depth > MAX_DEPTH:
        raise TooDeep
    convert = _CONVERT.get(node.type)
    if convert is not None:
        got = convert(node, depth + 1)
        if got is not None:
            return got
    return _opaque(node, depth)


def _opaque(node: Node, depth: int) -> Expr:
    parts = tuple(tree(child, depth + 1) for child in node.named_children if _is_expr(child))
    return Opaque(text=source(node), parts=parts, form=node.type)


def _is_expr(node: Node) -> bool:
    return node.type not in ("comment", "argument_list", "arguments", "type_arguments")


def _parenthesized(node: Node, depth: int) -> Expr | None:
    inner = [c for c in node.named_children if c.type != "comment"]
    return tree(inner[0], depth) if len(inner) == 1 else None


def _binary(node: Node, depth: int) -> Expr | None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    op_node = node.child_by_field_name("operator")
    if left is None or right is None or op_node is None:
        return None
    op = text(op_node)
    if op in ("&&", "||", "and", "or"):
        word: Literal["and", "or"] = "and" if op in ("&&", "and") else "or"
        values: list[Expr] = []
        for side in (left, right):
            sub = tree(side, depth)
            if isinstance(sub, BoolOp) and sub.op == word:
                values.extend(sub.values)
            else:
                values.append(sub)
        return BoolOp(op=word, values=tuple(values))
    if op in _COMPARE:
        return compare(tree(left, depth), _COMPARE[op], tree(right, depth))
    level = _BINARY_LEVEL.get(op)
    parts = (tree(left, depth), tree(right, depth))
    return Opaque(text=source(node), precedence=level or CMP, parts=parts, form="BinOp")


def _unary(node: Node, depth: int) -> Expr | None:
    op_node = node.child_by_field_name("operator")
    operand = node.child_by_field_name("argument")
    if operand is None:  # Rust's unary_expression has no fields
        named = node.named_children
        operand = named[-1] if named else None
    if operand is None:
        return None
    op = text(op_node) if op_node is not None else text(node)[:1]
    if op in ("!", "not"):
        return Not(operand=tree(operand, depth))
    return Opaque(text=source(node), parts=(tree(operand, depth),), form="UnaryOp")


def _name(node: Node, depth: int) -> Expr | None:
    value = text(node)
    if value in ("true", "false"):
        return Constant(value=value == "true")
    return Name(id=value)


def _field(node: Node, depth: int) -> Expr | None:
    # C/C++: argument . field / argument -> field; Rust: value . field
    value = node.child_by_field_name("argument") or node.child_by_field_name("value")
    field = node.child_by_field_name("field")
    if value is None or field is None:
        return None
    return Attribute(value=tree(value, depth), attr=text(field))


def _call(node: Node, depth: int) -> Expr | None:
    func = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if func is None:
        return None
    if func.type == "generic_function":  # f<T>(x): called by its name
        inner = func.child_by_field_name("function")
        func = inner if inner is not None else func
    passed = (
        ()
        if args is None
        else tuple(tree(a, depth) for a in args.named_children if a.type != "comment")
    )
    return Call(func=tree(func, depth), args=passed)


def _number(node: Node, depth: int) -> Expr | None:
    raw = text(node).replace("'", "").replace("_", "")
    digits = raw.rstrip("uUlLzZfF") if not raw.lower().startswith("0x") else raw.rstrip("uUlL")
    for suffix in ("usize", "isize", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8"):
        if digits.endswith(suffix):
            digits = digits[: -len(suffix)]
            break
    try:
        return Constant(value=int(digits, 0))
    except ValueError:
        pass
    try:
        return Constant(value=float(digits))
    except ValueError:
        return None


def _string(node: Node, depth: int) -> Expr | None:
    from errdex.extract.native.strings import literal_text

    value = literal_text(node)
    return None if value is None else Constant(value=value)


def _boolean(node: Node, depth: int) -> Expr | None:
    return Constant(value=text(node) == "true")


_CONVERT: dict[str, Callable[[Node, int], Expr | None]] = {
    "parenthesized_expression": _parenthesized,
    "condition_clause": _parenthesized,
    "binary_expression": _binary,
    "unary_expression": _unary,
    "identifier": _name,
    "field_identifier": _name,
    "qualified_identifier": _name,
    "scoped_identifier": _name,
    "self": _name,
    "this": _name,
    "true": _boolean,
    "false": _boolean,
    "boolean_literal": _boolean,
    "null": _name,
    "nullptr": _name,
    "field_expression": _field,
    "call_expression": _call,
    "number_literal": _number,
    "integer_literal": _number,
    "float_literal": _number,
    "string_literal": _string,
}

__all__ = ["ATOM", "MAX_DEPTH", "TooDeep", "source", "text", "tree"]
