# Conditions and the expressions that fill a message's holes, as small frozen trees.
# Extract builds them from the AST it already has (errdex.extract.trees); every later
# stage reads them instead of parsing source text again. Each node renders itself three
# ways: `source()` (as ast.unparse writes it), `english()` (the condition said plainly,
# holding) and `negated()` (the tree of its negation: De Morgan, flipped comparisons,
# `not in`). What the set does not model is an `Opaque` node: its source text, how
# tightly it binds, and the expressions inside it, still trees.
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

# How tightly an expression binds, in ast.unparse's order (its private _Precedence): a
# node is bracketed where its parent asks for more.
NAMED, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, EXPR = 1, 2, 3, 4, 5, 6, 7, 8, 9
BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT, ATOM = 10, 11, 12, 13, 14, 15, 16, 17, 18

CompareOp = Literal["<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"]
FLIP: dict[CompareOp, CompareOp] = {
    "<": ">=",
    "<=": ">",
    ">": "<=",
    ">=": "<",
    "==": "!=",
    "!=": "==",
    "is": "is not",
    "is not": "is",
    "in": "not in",
    "not in": "in",
}
MIRROR: dict[CompareOp, CompareOp] = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
ConstantValue = str | int | float | bool | None
MAX_CODE = 70  # longer expressions are shortened in prose


class Node:
    """What every node does; the fields are each subclass's own."""

    __slots__ = ()

    def source(self) -> str:
        """The expression as ast.unparse writes it."""
        raise NotImplementedError

    def level(self) -> int:
        """How tightly the expression binds (see NAMED … ATOM)."""
        return ATOM

    def children(self) -> tuple[Expr, ...]:
        """The expressions directly inside this one, in reading order."""
        return ()

    def english(self) -> str:
        """The condition `if <this>:` tests, in plain English."""
        return self.said(True)

    def said(self, holds: bool) -> str:
        """The condition in English: holding, or (`holds` False) failing."""
        shown = named(self)  # type: ignore[arg-type]
        return f"{shown} is set" if holds else f"{shown} is empty or unset"

    def negated(self) -> Expr:
        """The tree of `not <this>`, pushed inwards where that reads better."""
        return Not(operand=self)  # type: ignore[arg-type]

    def walk(self) -> Iterator[Expr]:
        """This node and every node inside it, depth first."""
        todo: list[Expr] = [self]  # type: ignore[list-item]
        while todo:
            node = todo.pop()
            yield node
            todo.extend(reversed(node.children()))


@dataclass(frozen=True, kw_only=True)
class Name(Node):
    id: str

    def source(self) -> str:
        return self.id


@dataclass(frozen=True, kw_only=True)
class Attribute(Node):
    value: Expr
    attr: str

    def source(self) -> str:
        value = self.value
        # ast.unparse writes `1 .real`: `1.real` would read as a float
        dot = " ." if isinstance(value, Constant) and isinstance(value.value, int) else "."
        return wrap(value, ATOM) + dot + self.attr

    def children(self) -> tuple[Expr, ...]:
        return (self.value,)


@dataclass(frozen=True, kw_only=True)
class Keyword:
    """`name=value` in a call, or `**value` (name None)."""

    name: str | None
    value: Expr


@dataclass(frozen=True, kw_only=True)
class Call(Node):
    func: Expr
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()

    def source(self) -> str:
        passed = [wrap(a, TEST) for a in self.args]
        for k in self.keywords:
            shown = wrap(k.value, TEST)
            passed.append(f"**{shown}" if k.name is None else f"{k.name}={shown}")
        return wrap(self.func, ATOM) + "(" + ", ".join(passed) + ")"

    def children(self) -> tuple[Expr, ...]:
        return (self.func, *self.args, *(k.value for k in self.keywords))

    @property
    def name(self) -> str:
        """The function called, by its last name: `f` of `f(x)` and of `a.f(x)`."""
        func = self.func
        if isinstance(func, Name):
            return func.id
        return func.attr if isinstance(func, Attribute) else ""

    def own_words(self, holds: bool) -> str | None:
        """The call said in its own words (`hasattr`, `any`, `startswith`, …), or None
        for a call with none."""
        special = _CALL_SAID.get(self.name)
        return None if special is None else special(self, holds)

    def said(self, holds: bool) -> str:
        words = self.own_words(holds)
        if words is not None:
            return words
        return f"{named(self)} returns true" if holds else f"{named(self)} returns false"


@dataclass(frozen=True, kw_only=True)
class Subscript(Node):
    value: Expr
    index: Expr

    def source(self) -> str:
        index = self.index
        if isinstance(index, Collection) and index.kind == "tuple" and index.items:
            inner = _items(index.items)  # `x[a, b]`: a tuple index goes unbracketed
        else:
            inner = wrap(index, TEST)
        return wrap(self.value, ATOM) + "[" + inner + "]"

    def children(self) -> tuple[Expr, ...]:
        return (self.value, self.index)


@dataclass(frozen=True, kw_only=True)
class Compare(Node):
    """An ordering, equality or identity test, `a < b`, or a chain, `a < b <= c`.
    A single `in` / `not in` is a Membership; in a chain it stays here."""

    left: Expr
    ops: tuple[CompareOp, ...]
    comparators: tuple[Expr, ...]

    def source(self) -> str:
        out = [wrap(self.left, EXPR)]
        for op, right in zip(self.ops, self.comparators, strict=True):
            out.append(f" {op} {wrap(right, EXPR)}")
        return "".join(out)

    def level(self) -> int:
        return CMP

    def children(self) -> tuple[Expr, ...]:
        return (self.left, *self.comparators)

    def pairs(self) -> tuple[Expr, ...]:
        """A chain as its single comparisons: `a < b < c` is `a < b`, `b < c`."""
        out: list[Expr] = []
        left = self.left
        for op, right in zip(self.ops, self.comparators, strict=True):
            out.append(compare(left, op, right))
            left = right
        return tuple(out)

    def said(self, holds: bool) -> str:
        if len(self.ops) > 1:
            parts = [p.said(holds) for p in self.pairs()]
            return joined(parts, "and" if holds else "or")
        left, op, right = self.left, self.ops[0], self.comparators[0]
        if isinstance(left, Constant) and op in MIRROR:
            left, right, op = right, left, MIRROR[op]
        if not holds:
            op = FLIP[op]
        if isinstance(left, Call) and left.name == "len" and len(left.args) == 1:
            measured, unit = measured_length(left.args[0])
            return f"{named(measured)} {length_phrase(op, right, unit)}"
        return f"{named(left)} {compare_phrase(op, right)}"

    def negated(self) -> Expr:
        if len(self.ops) > 1:
            return BoolOp(op="or", values=tuple(p.negated() for p in self.pairs()))
        return replace(self, ops=(FLIP[self.ops[0]],))


@dataclass(frozen=True, kw_only=True)
class Membership(Node):
    """`item in container`, or `item not in container` (negated)."""

    item: Expr
    container: Expr
    negative: bool = False

    def source(self) -> str:
        op = "not in" if self.negative else "in"
        return f"{wrap(self.item, EXPR)} {op} {wrap(self.container, EXPR)}"

    def level(self) -> int:
        return CMP

    def children(self) -> tuple[Expr, ...]:
        return (self.item, self.container)

    def said(self, holds: bool) -> str:
        inside = holds != self.negative
        if isinstance(self.item, Constant):  # `"a" in mode`: said of `mode`
            value = value_text(self.item)
            verb = "contains" if inside else "does not contain"
            return f"{named(self.container)} {verb} {value}"
        return f"{named(self.item)} {compare_phrase('in' if inside else 'not in', self.container)}"

    def negated(self) -> Expr:
        return replace(self, negative=not self.negative)


@dataclass(frozen=True, kw_only=True)
class BoolOp(Node):
    op: Literal["and", "or"]
    values: tuple[Expr, ...]

    def source(self) -> str:
        own = self.level()
        # as ast.unparse does: each operand after the first asks one level more
        return f" {self.op} ".join(
            wrap(v, min(ATOM, own + 1 + i)) for i, v in enumerate(self.values)
        )

    def level(self) -> int:
        return AND if self.op == "and" else OR

    def children(self) -> tuple[Expr, ...]:
        return self.values

    def said(self, holds: bool) -> str:
        word = self.op if holds else ("or" if self.op == "and" else "and")
        return joined([v.said(holds) for v in self.values], word)

    def negated(self) -> Expr:
        other: Literal["and", "or"] = "or" if self.op == "and" else "and"
        return BoolOp(op=other, values=tuple(v.negated() for v in self.values))


@dataclass(frozen=True, kw_only=True)
class Not(Node):
    operand: Expr

    def source(self) -> str:
        return "not " + wrap(self.operand, NOT)

    def level(self) -> int:
        return NOT

    def children(self) -> tuple[Expr, ...]:
        return (self.operand,)

    def said(self, holds: bool) -> str:
        return self.operand.said(not holds)

    def negated(self) -> Expr:
        return self.operand


@dataclass(frozen=True, kw_only=True)
class IsInstance(Node):
    """`isinstance(target, types)`; `types` a name or a tuple of them."""

    target: Expr
    types: Expr

    def source(self) -> str:
        return f"isinstance({wrap(self.target, TEST)}, {wrap(self.types, TEST)})"

    def children(self) -> tuple[Expr, ...]:
        return (self.target, self.types)

    def type_names(self) -> tuple[str, ...]:
        """The types as written: ("int", "float") for `(int, float)`."""
        types = self.types
        items = types.items if isinstance(types, Collection) else (types,)
        return tuple(i.source() for i in items)

    def said(self, holds: bool) -> str:
        verb = "is of type" if holds else "is not of type"
        return f"{named(self.target)} {verb} {self.kinds()}"

    def kinds(self) -> str:
        """The types in prose: "int or float"."""
        return (listing(self.types) or named(self.types)).replace("'", "")


@dataclass(frozen=True, kw_only=True)
class Constant(Node):
    """A literal the JSON can hold: a string, number, boolean or None. Other literals
    (bytes, infinities, `...`) are Opaque."""

    value: ConstantValue

    def source(self) -> str:
        return _constant_source(self.value)

    def negated(self) -> Expr:
        if isinstance(self.value, bool):
            return Constant(value=not self.value)
        return Not(operand=self)


@dataclass(frozen=True, kw_only=True)
class Collection(Node):
    """A list, tuple or set display: `("a", "b")`."""

    kind: Literal["list", "tuple", "set"]
    items: tuple[Expr, ...]

    def source(self) -> str:
        if self.kind == "tuple":
            return f"({_items(self.items)})"
        inner = ", ".join(wrap(i, TEST) for i in self.items)
        return f"[{inner}]" if self.kind == "list" else "{" + inner + "}"

    def children(self) -> tuple[Expr, ...]:
        return self.items


@dataclass(frozen=True, kw_only=True)
class Comprehension(Node):
    """A comprehension over one loop: `(x.ok for x in xs if x)`."""

    kind: Literal["generator", "list", "set"]
    element: Expr
    target: Expr
    iterable: Expr
    conditions: tuple[Expr, ...] = ()

    def source(self) -> str:
        target = self.target
        if isinstance(target, Collection) and target.kind == "tuple" and target.items:
            shown = _items(target.items)
        else:
            shown = wrap(target, TUPLE)
        ifs = "".join(f" if {wrap(c, OR)}" for c in self.conditions)
        inner = f"{wrap(self.element, TEST)} for {shown} in {wrap(self.iterable, OR)}{ifs}"
        brackets = {"generator": ("(", ")"), "list": ("[", "]"), "set": ("{", "}")}
        opening, closing = brackets[self.kind]
        return opening + inner + closing

    def children(self) -> tuple[Expr, ...]:
        return (self.element, self.target, self.iterable, *self.conditions)


@dataclass(frozen=True, kw_only=True)
class Opaque(Node):
    """Any other expression (`a + b`, `x if y else z`, a lambda, a dict): its source text,
    how tightly it binds, the expressions inside it, and which kind of expression it is
    (`form`, as Python's ast module names it: "BinOp", "NamedExpr", …; "" if unknown)."""

    text: str
    precedence: int = ATOM
    parts: tuple[Expr, ...] = ()
    form: str = ""

    def source(self) -> str:
        return self.text

    def level(self) -> int:
        return self.precedence

    def children(self) -> tuple[Expr, ...]:
        return self.parts


Expr = (
    Name
    | Attribute
    | Call
    | Subscript
    | Compare
    | Membership
    | BoolOp
    | Not
    | IsInstance
    | Constant
    | Collection
    | Comprehension
    | Opaque
)


def compare(left: Expr, op: CompareOp, right: Expr) -> Expr:
    """One comparison: a Membership for `in` / `not in`, else a Compare."""
    if op in ("in", "not in"):
        return Membership(item=left, container=right, negative=op == "not in")
    return Compare(left=left, ops=(op,), comparators=(right,))


def wrap(node: Expr, level: int) -> str:
    """`node`'s source, bracketed when it binds more loosely than `level` asks."""
    text = node.source()
    return f"({text})" if node.level() < level else text


def _items(items: tuple[Expr, ...]) -> str:
    if len(items) == 1:
        return wrap(items[0], TEST) + ","
    return ", ".join(wrap(i, TEST) for i in items)


@lru_cache(maxsize=4096, typed=True)
def _constant_source(value: ConstantValue) -> str:
    if isinstance(value, str):
        return ast.unparse(ast.Constant(value=value))  # its choice of quotes
    return repr(value)


# -- in prose ------------------------------------------------------------------------


def assigned(node: Expr) -> Expr:
    """What prose names an expression by: a walrus (`x := f()`) by the name it sets."""
    if isinstance(node, Opaque) and node.form == "NamedExpr" and node.parts:
        return node.parts[0]
    return node


def target_source(node: Expr) -> str:
    """A loop's target as written after `for`: `a, b` for a tuple, unbracketed."""
    if isinstance(node, Collection) and node.kind == "tuple" and node.items:
        return ", ".join(wrap(i, TEST) for i in node.items)
    return node.source()


def named(node: Expr) -> str:
    """How an expression is named in prose: `self.x` as `x`, a walrus by its name,
    `getattr(o, "a", d)` as the `o.a` it reads, long ones shortened."""
    node = assigned(node)
    read = getattr_read(node)
    text = (read or node).source()
    for prefix in ("self.", "cls."):
        if text.startswith(prefix) and text[len(prefix) :].isidentifier():
            text = text[len(prefix) :]
    if len(text) > MAX_CODE:
        text = text[: MAX_CODE - 1].rsplit(" ", 1)[0] + "…"
    return f"`{text}`"


def value_text(node: Expr) -> str:
    """A value in prose: a literal as Python writes it, anything else named."""
    if isinstance(node, Constant):
        return repr(node.value) if isinstance(node.value, str) else str(node.value)
    return named(node)


def listing(node: Expr) -> str | None:
    """'a', 'b' or 'c' for a literal list, tuple or set, else None."""
    if not isinstance(node, Collection):
        return None
    items = [value_text(e) for e in node.items]
    if not items:
        return "nothing"
    if len(items) > 8:
        items = [*items[:8], "…"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def joined(parts: list[str], word: str) -> str:
    """Clauses joined by `word`; two or-ed ones as "either A or B"."""
    if len(parts) == 2 and word == "or":
        return f"either {parts[0]} or {parts[1]}"
    return f" {word} ".join(parts)


def root(node: Expr) -> str | None:
    """`x` of `x.a.b`, `x[0].c` or `x.f()`: the name a read starts from."""
    node = assigned(node)
    while isinstance(node, Attribute | Subscript | Call):
        node = node.func if isinstance(node, Call) else node.value
    return node.id if isinstance(node, Name) else None


def is_zero(node: Expr) -> bool:
    return isinstance(node, Constant) and node.value == 0 and node.value is not False


def compare_phrase(op: CompareOp, right: Expr, items: str | None = None) -> str:
    """What `x <op> right` says of `x`: "is less than 3", "is one of 'a' or 'b'".
    `items`: `right` as a list in prose (`listing`), when it is one worth listing."""
    value = value_text(right)
    if op in ("in", "not in") and items is None:
        items = listing(right)
    if op in ("==", "is") and isinstance(right, Constant) and isinstance(right.value, bool):
        return "is true" if right.value else "is false"
    zero, none = is_zero(right), isinstance(right, Constant) and right.value is None
    phrases: dict[CompareOp, str] = {
        "<": "is negative" if zero else f"is less than {value}",
        "<=": "is zero or negative" if zero else f"is at most {value}",
        ">": f"is greater than {value}",
        ">=": f"is {value} or more",
        "==": f"is {value}",
        "!=": f"is not {value}",
        "is": "is None (not set)" if none else f"is {value}",
        "is not": "is set (not None)" if none else f"is not {value}",
        "in": f"is one of {items}" if items else f"is in {value}",
        "not in": f"is not one of {items}" if items else f"is not in {value}",
    }
    return phrases[op]


def measured_length(target: Expr) -> tuple[Expr, str]:
    """What `len(target)` counts, and of what: an array's `len(x.shape)` (or
    `len(np.shape(x))`, `len(ops.shape(x))`) is the number of dimensions of `x`; anything
    else the items of `target`."""
    if isinstance(target, Attribute) and target.attr == "shape":
        return target.value, "dimensions"
    if isinstance(target, Call) and target.name == "shape" and len(target.args) == 1:
        return target.args[0], "dimensions"
    return target, "items"


def length_phrase(op: CompareOp, right: Expr, unit: str = "items") -> str:
    """What `len(x) <op> right` says of `x`: "is empty", "has fewer than 3 items"; `unit`
    names what is counted ("dimensions" of an array's shape)."""
    value = value_text(right)
    n = right.value if isinstance(right, Constant) and type(right.value) is int else None
    if n == 0 and op in ("==", "<="):
        return "is empty" if unit == "items" else f"has no {unit}"
    if n == 0 and op in ("!=", ">"):
        return "is not empty" if unit == "items" else f"has {unit}"
    phrases: dict[CompareOp, str] = {
        "<": f"has fewer than {value} {unit}",
        "<=": f"has at most {value} {unit}",
        ">": f"has more than {value} {unit}",
        ">=": f"has {value} or more {unit}",
        "==": f"has exactly {value} {unit}",
        "!=": f"does not have exactly {value} {unit}",
    }
    if op in phrases:
        return phrases[op]
    return f"length {'is' if op in ('in', 'is') else 'is not'} {value}"


def _said_hasattr(call: Call, holds: bool) -> str | None:
    if len(call.args) < 2:
        return None
    verb = "has" if holds else "has no"
    return f"{named(call.args[0])} {verb} attribute {value_text(call.args[1])}"


def getattr_read(node: Expr) -> Attribute | None:
    """`o.a` of `getattr(o, "a")` or `getattr(o, "a", default)`; None for any other node
    (an attribute named by a variable included)."""
    if not (isinstance(node, Call) and node.name == "getattr" and isinstance(node.func, Name)):
        return None
    if len(node.args) not in (2, 3) or node.keywords:
        return None
    attr = node.args[1]
    if not (isinstance(attr, Constant) and isinstance(attr.value, str)):
        return None
    if not attr.value.isidentifier():
        return None
    return Attribute(value=node.args[0], attr=attr.value)


def plain_getattr(call: Call) -> Attribute | None:
    """`o.a` when `getattr(o, "a")` or `getattr(o, "a", d)` with a false `d` (None,
    False, 0, "") is tested for truth: then it holds exactly when `o.a` is set, as if
    `o.a` were read; None for a true or unknown default, which holds when `o` lacks `a`."""
    read = getattr_read(call)
    if read is None or len(call.args) == 2:
        return read
    default = call.args[2]
    return read if isinstance(default, Constant) and not default.value else None


def _said_getattr(call: Call, holds: bool) -> str | None:
    """`getattr(o, "a", default)` tested for truth reads `o.a`, and the default only when
    `o` has no `a`. Never "has no attribute": a present attribute with a false value
    fails the test too."""
    read = getattr_read(call)
    if read is None:
        return None
    if plain_getattr(call) is not None:
        return read.said(holds)
    shown, default = named(read), call.args[2]
    if isinstance(default, Constant) and default.value:
        return f"{shown} is true or missing" if holds else f"{shown} is present and false"
    shown = f"{shown} (or {named(default)} where it is missing)"  # a default known at run time
    return f"{shown} is set" if holds else f"{shown} is empty or unset"


def _said_any_all(call: Call, holds: bool) -> str | None:
    """`any(b <= 0 for b in budgets)` as "some `b` in `budgets` satisfies `b <= 0`",
    `all(flags)` as "every item of `flags` is true", and their negations."""
    if len(call.args) != 1:
        return None
    inner = call.args[0]
    if isinstance(inner, Comprehension) and inner.kind != "set":
        where = " and ".join(named(c) for c in inner.conditions)
        item = f"{named(inner.target)} in {named(inner.iterable)}"
        item += f" where {where}" if where else ""
        test = named(inner.element)
        if call.name == "any":
            return f"some {item} satisfies {test}" if holds else f"no {item} satisfies {test}"
        return f"every {item} satisfies {test}" if holds else f"some {item} fails {test}"
    body = named(inner)
    if call.name == "any":
        return f"some item of {body} is true" if holds else f"no item of {body} is true"
    return f"every item of {body} is true" if holds else f"some item of {body} is false"


def _said_affix(call: Call, holds: bool) -> str | None:
    if not isinstance(call.func, Attribute) or not call.args:
        return None
    verb = "starts" if call.name == "startswith" else "ends"
    target = named(call.func.value)
    affix = listing(call.args[0]) or value_text(call.args[0])
    if holds:
        return f"{target} {verb} with {affix}"
    return f"{target} does not {verb[:-1]} with {affix}"


# Calls said in their own words, by the name called; None (the wrong number of
# arguments, say) falls back to "`f(x)` returns true".
def _said_callable(call: Call, holds: bool) -> str | None:
    """`callable(f)` as "`f` is callable" (or "is not callable")."""
    if len(call.args) != 1 or not isinstance(call.func, Name):
        return None
    return f"{named(call.args[0])} is {'' if holds else 'not '}callable"


_CALL_SAID = {
    "callable": _said_callable,
    "hasattr": _said_hasattr,
    "getattr": _said_getattr,
    "any": _said_any_all,
    "all": _said_any_all,
    "startswith": _said_affix,
    "endswith": _said_affix,
}
