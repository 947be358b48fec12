# What each name of an unpacking target is bound to, so a local's derivation on the
# explanation page is its own part of the value (`m, n = x.shape`: m is `x.shape[0]`),
# or in a loop what it is an item of (`for k, v in d.items()`: v of `d.values()`), not
# the whole value repeated for every name.
#
# The parts built here are syntax trees no file holds. Each is placed at the start of the
# value it wraps (names_read orders what an expression reads by position) and has no end,
# so render unparses it instead of slicing a source line that does not contain it.
from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
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
            rest = placed(ast.Slice(lower=lower, upper=upper), value)
            yield from unpacked(element.value, _item(value, rest))


def looped(target: ast.expr, iterable: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """Each name `for target in iterable` binds, with what it is an item of:
    `enumerate(xs)` gives the index `range(len(xs))` and the item xs, `zip(a, b)` name i
    the i-th argument, `d.items()` the key `d.keys()` and the value `d.values()`; nested
    targets recurse into those."""
    if isinstance(target, ast.Name):
        yield target.id, iterable
        return
    if not isinstance(target, ast.Tuple | ast.List):
        return
    elements = target.elts
    streams = None
    if isinstance(iterable, ast.Call) and not any(isinstance(e, ast.Starred) for e in elements):
        split = _STREAMS.get(_callee(iterable))
        streams = None if split is None else split(iterable, len(elements))
    if streams is None:
        # Any other iterable: we cannot know the shape of its items, so every name is
        # an item of the whole (`for a, b in pairs`: both an item of pairs).
        for element in elements:
            inner = element.value if isinstance(element, ast.Starred) else element
            yield from looped(inner, iterable)
        return
    for element, stream in zip(elements, streams, strict=True):
        yield from looped(element, stream)


def _paired(elements: list[ast.expr], value: ast.expr) -> list[ast.expr] | None:
    """The elements of `x, y` when `a, b = x, y` binds element by element (as many on
    each side, nothing starred), else None."""
    if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(elements):
        return None
    if any(isinstance(e, ast.Starred) for e in [*elements, *value.elts]):
        return None
    return value.elts


def _callee(call: ast.Call) -> str:
    """`enumerate` for `enumerate(xs)`, `.items` for `d.items()`, else ""."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return "." + func.attr if isinstance(func, ast.Attribute) else ""


def _enumerate(call: ast.Call, count: int) -> list[ast.expr] | None:
    """`enumerate(xs)`: the index is an item of `range(len(xs))`, the item an item of xs;
    `start=s` shifts the range. The range says what the index is, a position counted
    along xs and not drawn from its items, even where xs (a generator) has no len."""
    args = call.args
    keywords = {k.arg: k.value for k in call.keywords}
    if count != 2 or not 1 <= len(args) <= 2 or any(isinstance(a, ast.Starred) for a in args):
        return None
    if set(keywords) - {"start"} or (len(args) == 2 and keywords):
        return None
    items = args[0]
    start = args[1] if len(args) == 2 else keywords.get("start")
    size = _call("len", [items], items)
    if start is None:
        return [_call("range", [size], items), items]
    stop = placed(ast.BinOp(left=size, op=ast.Add(), right=start), items)
    return [_call("range", [start, stop], items), items]


def _zip(call: ast.Call, count: int) -> list[ast.expr] | None:
    """`zip(a, b)`: name i is an item of the i-th argument (`strict=` changes nothing)."""
    args = call.args
    if len(args) != count or any(isinstance(a, ast.Starred) for a in args):
        return None
    return list(args)


def _items(call: ast.Call, count: int) -> list[ast.expr] | None:
    """`d.items()`: the key is an item of `d.keys()`, the value of `d.values()`."""
    if count != 2 or call.args or call.keywords or not isinstance(call.func, ast.Attribute):
        return None
    mapping = call.func.value
    return [_method(mapping, "keys"), _method(mapping, "values")]


_STREAMS: dict[str, Callable[[ast.Call, int], list[ast.expr] | None]] = {
    "enumerate": _enumerate,
    "zip": _zip,
    ".items": _items,
}


def placed(node: _Node, at: ast.expr) -> _Node:
    """`node`, built here, at the start of `at` and with no end (see the module head)."""
    node.lineno = at.lineno
    node.col_offset = at.col_offset
    return node


def _index(i: int, at: ast.expr) -> ast.expr:
    """The index `i` as the parser would spell it: `-1` is a minus applied to 1."""
    if i >= 0:
        return placed(ast.Constant(value=i), at)
    return placed(ast.UnaryOp(op=ast.USub(), operand=placed(ast.Constant(value=-i), at)), at)


def _item(value: ast.expr, index: ast.expr) -> ast.expr:
    return placed(ast.Subscript(value=value, slice=index, ctx=ast.Load()), value)


def _call(name: str, args: list[ast.expr], at: ast.expr) -> ast.expr:
    func = placed(ast.Name(id=name, ctx=ast.Load()), at)
    return placed(ast.Call(func=func, args=args, keywords=[]), at)


def _method(owner: ast.expr, name: str) -> ast.expr:
    """`owner.name()`."""
    func = placed(ast.Attribute(value=owner, attr=name, ctx=ast.Load()), owner)
    return placed(ast.Call(func=func, args=[], keywords=[]), owner)
