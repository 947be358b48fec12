# What each name of an unpacking target is bound to, so a local's derivation on the
# explanation page is its own part of the value (`m, n = x.shape`: m is `x.shape[0]`),
# not the whole value repeated for every name.
#
# The parts built here are syntax trees no file holds. Each is placed at the start of the
# value it wraps (names_read orders what an expression reads by position) and has no end,
# so render unparses it instead of slicing a source line that does not contain it.
from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TypeVar

_Node = TypeVar("_Node", bound=ast.expr)


def unpacked(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """Each name `target = value` binds, with the part of `value` it gets: a tuple or list
    value as long as the target pairs element by element, else element i is `value[i]`
    (`value[-k]` after a starred name, which gets the slice between); nested targets
    recurse. Targets that are not names (`self.x`, `d[k]`) bind nothing here."""
    if isinstance(target, ast.Name):
        yield target.id, value
        return
    if not isinstance(target, ast.Tuple | ast.List):
        return
    elements = target.elts
    paired = _paired(elements, value)
    if paired is not None:
        for element, part in zip(elements, paired, strict=True):
            yield from unpacked(element, part)
        return
    star = next((i for i, e in enumerate(elements) if isinstance(e, ast.Starred)), None)
    for i, element in enumerate(elements):
        if star is None or i < star:
            yield from unpacked(element, _item(value, _index(i, value)))
        elif i > star:
            yield from unpacked(element, _item(value, _index(i - len(elements), value)))
        else:
            assert isinstance(element, ast.Starred)
            after = len(elements) - star - 1
            lower = _index(star, value) if star else None
            upper = _index(-after, value) if after else None
            rest = _placed(ast.Slice(lower=lower, upper=upper), value)
            yield from unpacked(element.value, _item(value, rest))


def _paired(elements: list[ast.expr], value: ast.expr) -> list[ast.expr] | None:
    """The elements of `x, y` when `a, b = x, y` binds element by element (as many on
    each side, nothing starred), else None."""
    if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(elements):
        return None
    if any(isinstance(e, ast.Starred) for e in [*elements, *value.elts]):
        return None
    return value.elts


def _placed(node: _Node, at: ast.expr) -> _Node:
    """`node`, built here, at the start of `at` and with no end (see the module head)."""
    node.lineno = at.lineno
    node.col_offset = at.col_offset
    return node


def _index(i: int, at: ast.expr) -> ast.expr:
    """The index `i` as the parser would spell it: `-1` is a minus applied to 1."""
    if i >= 0:
        return _placed(ast.Constant(value=i), at)
    return _placed(ast.UnaryOp(op=ast.USub(), operand=_placed(ast.Constant(value=-i), at)), at)


def _item(value: ast.expr, index: ast.expr) -> ast.expr:
    return _placed(ast.Subscript(value=value, slice=index, ctx=ast.Load()), value)
