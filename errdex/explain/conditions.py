# Guard conditions as plain English. A guard's `test` is source text we extracted
# ourselves; it is parsed (never evaluated) into an expression tree and rendered three
# ways: a clause ("`x` is negative"), a noun phrase ("a negative `x`") for "what it
# means", and the fix that makes it false ("Set `x` to 0 or more") for "solutions".
from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from errdex.model import Input

MAX_CODE = 70  # longer expressions are shortened in prose

_FLIP = {
    ast.Lt: ast.GtE,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
    ast.GtE: ast.Lt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_MIRROR = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}
_PLATFORMS = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "cpu": "CPU",
    "tpu": "TPU",
    "xpu": "XPU",
    "hpu": "HPU",
    "neuron": "Neuron",
    "cuda_alike": "CUDA or ROCm",
    "out_of_tree": "an out-of-tree platform",
}


@dataclass(frozen=True, slots=True)
class Clause:
    """One condition, said in English, with what a user can do about it."""

    text: str  # "`x` is negative"
    subject: Input | None = None  # the input it constrains, when it constrains one
    noun: str | None = None  # "a negative `x`"
    fix: str | None = None  # an instruction that makes the clause false
    bound: str | None = None  # the literal the input is compared with, e.g. "0"
    platform: str | None = None  # "ROCm" when the clause checks the platform
    on_platform: bool = True  # whether the clause holds on that platform or off it
    call: str | None = None  # the function named by a bare call, e.g. "has_triton"
    at_default: bool | None = None  # whether the clause holds with the input at its default
    shown: str | None = None  # how `fix` names the subject ("`max_items`")
    example: str | None = None  # a value (Python literal) that makes the clause false
    root: str | None = None  # the name an attribute or item read starts from (`x` of `x.a`)

    def fix_naming(self, name: str) -> str | None:
        """`fix` with the subject named `name` instead (a knob, a constructor parameter)."""
        if self.fix is None or self.shown is None:
            return self.fix
        return self.fix.replace(self.shown, name, 1)


Inputs = Mapping[str, Input]  # by expression as written ("self.x", "x")


@lru_cache(maxsize=16384)
def parse_test(test: str) -> ast.expr | None:
    """The expression tree of a guard's source text, or None when it is not one."""
    try:
        return ast.parse(test, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None


def clauses(node: ast.expr, inputs: Inputs, *, holds: bool = True) -> list[Clause]:
    """The top-level conjuncts of `node` (or of its negation when `holds` is False)."""
    split = _SPLIT.get(type(node).__name__)
    found = None if split is None else split(node, inputs, holds)
    return [say(node, inputs, holds)] if found is None else found


def _split_not(node: ast.UnaryOp, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`not x` splits as `x` with `holds` turned over."""
    if isinstance(node.op, ast.Not):
        return clauses(node.operand, inputs, holds=not holds)
    return None


def _split_bool(node: ast.BoolOp, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`a and b` holding (or `a or b` failing) is one conjunct per operand."""
    if isinstance(node.op, ast.And) != holds:
        return None
    out: list[Clause] = []
    for value in node.values:
        out.extend(clauses(value, inputs, holds=holds))
    return out


def _split_chain(node: ast.Compare, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`a < b < c` is `a < b` and `b < c`; failing, it is one clause of the two or-ed."""
    if len(node.ops) < 2:
        return None
    left = node.left
    pairs: list[Clause] = []
    for op, right in zip(node.ops, node.comparators, strict=True):
        pairs.append(say(ast.Compare(left=left, ops=[op], comparators=[right]), inputs, holds))
        left = right
    return pairs if holds else [_joined(pairs, "or")]


# Expressions that may be more than one conjunct, by node type name; any other
# expression (and these when they do not split) is a single clause.
_SPLIT: dict[str, Callable[[Any, Inputs, bool], list[Clause] | None]] = {
    "UnaryOp": _split_not,
    "BoolOp": _split_bool,
    "Compare": _split_chain,
}


def say(node: ast.expr, inputs: Inputs, holds: bool = True) -> Clause:
    """One clause for `node` being true (or false when `holds` is False)."""
    handler = _SAY.get(type(node).__name__, _truthy)  # any other expression: its truth
    return handler(node, inputs, holds)


def _say_unary(node: ast.UnaryOp, inputs: Inputs, holds: bool) -> Clause:
    if isinstance(node.op, ast.Not):
        return say(node.operand, inputs, not holds)
    return _truthy(node, inputs, holds)  # `-x`, `~x`: read for their truth value


def _say_bool(node: ast.BoolOp, inputs: Inputs, holds: bool) -> Clause:
    conj = isinstance(node.op, ast.And) == holds
    parts = [say(v, inputs, holds) for v in node.values]
    return _joined(parts, "and" if conj else "or")


def _say_compare(node: ast.Compare, inputs: Inputs, holds: bool) -> Clause:
    if len(node.ops) > 1:
        return _joined(clauses(node, inputs, holds=holds), "and" if holds else "or")
    return _compare(node, inputs, holds)


def _joined(parts: list[Clause], word: str) -> Clause:
    if len(parts) == 1:
        return parts[0]
    texts = [p.text for p in parts]
    text = f" {word} ".join(texts)
    if word == "or" and len(parts) == 2:
        text = f"either {texts[0]} or {texts[1]}"
    return Clause(text=text)


def source(node: ast.expr) -> str:
    """The source text of an expression; names and attribute chains without unparse."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        chain = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name):
            chain.append(value.id)
            return ".".join(reversed(chain))
    return ast.unparse(node)


def code(node: ast.expr) -> str:
    """How an expression is named in prose: `self.x` as `x`, long ones shortened."""
    text = source(node)
    for prefix in ("self.", "cls."):
        if text.startswith(prefix) and text[len(prefix) :].isidentifier():
            text = text[len(prefix) :]
    if len(text) > MAX_CODE:
        text = text[: MAX_CODE - 1].rsplit(" ", 1)[0] + "…"
    return f"`{text}`"


def _value(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return repr(node.value) if isinstance(node.value, str) else str(node.value)
    return code(node)


def _listing(node: ast.expr) -> str | None:
    """'a', 'b' or 'c' for a literal list/tuple/set, else None."""
    if not isinstance(node, ast.List | ast.Tuple | ast.Set):
        return None
    items = [_value(e) for e in node.elts]
    if not items:
        return "nothing"
    if len(items) > 8:
        items = [*items[:8], "…"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _subject(node: ast.expr, inputs: Inputs) -> Input | None:
    """The input `node` reads as a whole: a name, an attribute chain, or a call or item
    read that is one (`os.environ.get("X")`)."""
    if isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
        return inputs.get(source(node))
    return None


def _own(node: ast.expr, inputs: Inputs) -> bool:
    """Whether an expression reads what only the library has: a private name, or an input
    no user sets (a variable the function computes, a private function's parameter)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name | ast.Attribute):
            found = inputs.get(source(sub))
            if found is not None and found.access == "internal" and not found.knobs:
                return True
    return False


def _root(node: ast.expr) -> str | None:
    """`x` of `x.a.b`, `x[0].c` or `x.f()`: the name a read starts from."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_bool(subject: Input | None) -> bool:
    return subject is not None and (subject.type == "bool" or subject.default in ("True", "False"))


def _compare(node: ast.Compare, inputs: Inputs, holds: bool) -> Clause:
    left, op, right = node.left, type(node.ops[0]), node.comparators[0]
    if isinstance(left, ast.Constant) and op in _MIRROR:
        left, right, op = right, left, _MIRROR[op]
    if not holds:
        op = _FLIP[op]
    if isinstance(left, ast.Call) and _call_name(left) == "len" and len(left.args) == 1:
        return _length(left.args[0], op, right, inputs)
    if isinstance(left, ast.Constant) and op in (ast.In, ast.NotIn):
        return _contains(right, left, op is ast.In, inputs)
    subject = _subject(left, inputs)
    name, value = code(left), _value(right)
    bound = value if isinstance(right, ast.Constant) else None
    text, noun, fix = _comparison_phrase(op, right, name, value, _own(right, inputs))
    at_default = _at_default(subject, op, right)
    return Clause(
        text=f"{name} {text}",
        subject=subject,
        noun=noun,
        fix=fix if subject is not None else None,
        bound=bound,
        at_default=at_default,
        shown=name,
        example=_example(subject, op, right, at_default),
        root=_root(left),
    )


def _comparison_phrase(
    op: type[ast.cmpop], right: ast.expr, name: str, value: str, own: bool = False
) -> tuple[str, str, str]:
    """(clause, noun phrase, fix) for `name <op> right`, `value` being `right` in prose.
    `own`: `right` is the library's own (a private name, a value it computes), which a
    fix never names.

    One table of all ten operators, so the three wordings of each stay side by side."""
    listing = _listing(right)
    elements = right.elts if isinstance(right, ast.List | ast.Tuple | ast.Set) else []
    if own and not all(isinstance(e, ast.Constant) for e in elements):
        listing = None  # `(1, pcp, tp * pcp)`: values the library computes
    zero = isinstance(right, ast.Constant) and right.value == 0 and right.value is not False
    # a container of the library's own (`self._registry`): a fix says what it holds,
    # never to change it
    hidden = own or any(
        part.startswith("_") and not part.endswith("__") for part in ast.unparse(right).split(".")
    )
    phrase: dict[type[ast.cmpop], tuple[str, str, str]] = {
        # op: (clause, noun phrase, fix)
        ast.Lt: (
            "is negative" if zero else f"is less than {value}",
            f"a negative {name}" if zero else f"a {name} below {value}",
            f"Set {name} to {value} or more",
        ),
        ast.LtE: (
            "is zero or negative" if zero else f"is at most {value}",
            f"a {name} of zero or less" if zero else f"a {name} of {value} or less",
            f"Set {name} to more than {value}",
        ),
        ast.Gt: (
            f"is greater than {value}",
            f"a {name} above {value}",
            f"Set {name} to {value} or less",
        ),
        ast.GtE: (
            f"is {value} or more",
            f"a {name} of {value} or more",
            f"Set {name} to less than {value}",
        ),
        ast.Eq: (
            f"is {value}",
            f"{name} = {value}",
            f"Set {name} to something other than {value}",
        ),
        ast.NotEq: (
            f"is not {value}",
            f"a {name} other than {value}",
            f"Set {name} to {value}",
        ),
        ast.Is: (
            "is None (not set)" if value == "None" else f"is {value}",
            f"a missing {name} (None)" if value == "None" else f"{name} being {value}",
            f"Give {name} a value (it must not be None)"
            if value == "None"
            else f"Set {name} to something other than {value}",
        ),
        ast.IsNot: (
            "is set (not None)" if value == "None" else f"is not {value}",
            f"a {name} that is set" if value == "None" else f"a {name} other than {value}",
            f"Leave {name} unset (None)" if value == "None" else f"Set {name} to {value}",
        ),
        ast.In: (
            f"is one of {listing}" if listing else f"is in {value}",
            f"{name} = {listing}" if listing else f"a {name} found in {value}",
            f"Set {name} to a value other than {listing}"
            if listing
            else f"Set {name} to a value it does not hold yet"
            if hidden
            else f"Set {name} to a value not in {value}",
        ),
        ast.NotIn: (
            f"is not one of {listing}" if listing else f"is not in {value}",
            f"a {name} other than {listing}" if listing else f"a {name} missing from {value}",
            f"Set {name} to one of {listing}"
            if listing
            else f"Set {name} to one of the values it knows"
            if hidden
            else f"Set {name} to one of the values in {value}",
        ),
    }
    if op in (ast.Eq, ast.Is) and isinstance(right, ast.Constant) and right.value is True:
        return "is true", f"{name} turned on", f"Turn {name} off (False)"
    if op in (ast.Eq, ast.Is) and isinstance(right, ast.Constant) and right.value is False:
        return "is false", f"{name} turned off", f"Turn {name} on (True)"
    if hidden and op in _OWN_BOUND and not isinstance(right, ast.Constant):
        clause, noun, _ = phrase[op]
        return clause, noun, _OWN_BOUND[op].format(name=name)
    return phrase[op]


# Fixes against a bound the library computes or keeps private: what direction to move,
# never the bound's name.
_OWN_BOUND: dict[type[ast.cmpop], str] = {
    ast.Lt: "Set {name} higher: the check wants it at least a limit the library computes",
    ast.LtE: "Set {name} higher: the check wants it above a limit the library computes",
    ast.Gt: "Set {name} lower: the check wants it at most a limit the library computes",
    ast.GtE: "Set {name} lower: the check wants it below a limit the library computes",
    ast.Eq: "Set {name} to another value: the one the library computes is refused",
    ast.NotEq: "Set {name} to the value the library computes for it",
}

_APPLY: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.Is: lambda a, b: a is b if b is None or isinstance(b, bool) else bool(a == b),
    ast.IsNot: lambda a, b: a is not b if b is None or isinstance(b, bool) else bool(a != b),
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def literal(text: str | None) -> tuple[bool, Any]:
    """(True, value) when `text` is a Python literal (read with literal_eval, never run)."""
    if text is None or len(text) > 200:
        return False, None
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _at_default(subject: Input | None, op: type[ast.cmpop], right: ast.expr) -> bool | None:
    if subject is None:
        return None
    known, default = literal(subject.default)
    if not known:
        return None
    try:
        return _APPLY[op](default, ast.literal_eval(right))
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _contains(container: ast.expr, item: ast.Constant, holds: bool, inputs: Inputs) -> Clause:
    """`"a" in mode`: a clause on `mode`, the input that holds (or lacks) the literal."""
    subject = _subject(container, inputs)
    name, value = code(container), _value(item)
    text = f"{name} contains {value}" if holds else f"{name} does not contain {value}"
    fix = f"Use a {name} without {value}" if holds else f"Use a {name} that contains {value}"
    return Clause(
        text=text,
        subject=subject,
        noun=f"a {name} with {value} in it" if holds else f"a {name} without {value}",
        fix=fix if subject is not None else None,
        bound=value,
        shown=name,
        root=_root(container),
    )


def _example(
    subject: Input | None, op: type[ast.cmpop], right: ast.expr, at_default: bool | None
) -> str | None:
    """A value that makes `subject <op> right` false: the default when it does, else one
    from the bound (`x < 0`: 0; `x <= 4`: 5; `x not in ("a", "b")`: "a")."""
    if subject is None:
        return None
    if at_default is False and subject.default is not None and literal(subject.default)[0]:
        return subject.default
    if isinstance(right, ast.Constant) and isinstance(right.value, bool):
        return repr(not right.value) if op in (ast.Eq, ast.Is) else repr(right.value)
    if isinstance(right, ast.Constant) and not isinstance(right.value, bool | type(None)):
        bound = right.value
        if op in (ast.Lt, ast.Gt, ast.NotEq):
            return repr(bound)
        if isinstance(bound, int) and op in (ast.LtE, ast.GtE):
            return repr(bound + 1 if op is ast.LtE else bound - 1)
        return None
    if op is ast.NotIn and isinstance(right, ast.List | ast.Tuple | ast.Set) and right.elts:
        first = right.elts[0]
        return repr(first.value) if isinstance(first, ast.Constant) else None
    if op is ast.IsNot and isinstance(right, ast.Constant) and right.value is None:
        return "None"
    return None


def _length(target: ast.expr, op: type[ast.cmpop], right: ast.expr, inputs: Inputs) -> Clause:
    """`len(x) <op> n`; against a number the library computes or keeps private, the fix
    says which way to go without naming it."""
    base = _length_plain(target, op, right, inputs)
    private = any(p.startswith("_") for p in ast.unparse(right).split("."))
    if isinstance(right, ast.Constant) or not (private or _own(right, inputs)):
        return base
    way = "more" if op in (ast.Lt, ast.LtE) else "fewer" if op in (ast.Gt, ast.GtE) else None
    fix = (
        f"Give {base.shown} {way} items: the check compares its length with a number the"
        " library computes"
        if way
        else f"Change the number of items of {base.shown}"
    )
    return dataclasses.replace(base, fix=fix if base.subject is not None else None, bound=None)


def _length_plain(target: ast.expr, op: type[ast.cmpop], right: ast.expr, inputs: Inputs) -> Clause:
    name, value = code(target), _value(right)
    subject = _subject(target, inputs)
    n = right.value if isinstance(right, ast.Constant) and isinstance(right.value, int) else None
    table: dict[type[ast.cmpop], tuple[str, str]] = {
        ast.Lt: (f"has fewer than {value} items", f"Give {name} at least {value} items"),
        ast.LtE: (f"has at most {value} items", f"Give {name} more than {value} items"),
        ast.Gt: (f"has more than {value} items", f"Give {name} at most {value} items"),
        ast.GtE: (f"has {value} or more items", f"Give {name} fewer than {value} items"),
        ast.Eq: (f"has exactly {value} items", f"Give {name} other than {value} items"),
        ast.NotEq: (f"does not have exactly {value} items", f"Give {name} exactly {value} items"),
    }
    if n == 0 and op in (ast.Eq, ast.LtE):
        text, fix = "is empty", f"Give {name} at least one item"
    elif n == 0 and op in (ast.NotEq, ast.Gt):
        text, fix = "is not empty", f"Leave {name} empty"
    elif op in table:
        text, fix = table[op]
    else:
        verb = "is" if op in (ast.In, ast.Is) else "is not"
        text, fix = f"length {verb} {value}", f"Change the length of {name}"
    return Clause(
        text=f"{name} {text}",
        subject=subject,
        noun=f"a {name} that {text}",
        fix=fix if subject is not None else None,
        bound=value,
        shown=name,
        root=_root(target),
    )


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _call(node: ast.Call, inputs: Inputs, holds: bool) -> Clause:
    name = _call_name(node)
    special = _CALLS.get(name)
    found = None if special is None else special(node, name, inputs, holds)
    if found is not None:
        return found
    platform = _platform(name)
    shown = code(node)
    if platform is not None:
        text = f"the platform is {platform}" if holds else f"the platform is not {platform}"
        return Clause(text=f"{text} ({shown})", platform=platform, on_platform=holds, call=name)
    text = f"{shown} returns true" if holds else f"{shown} returns false"
    return Clause(text=text, call=name)


def _isinstance(node: ast.Call, name: str, inputs: Inputs, holds: bool) -> Clause | None:
    args = node.args
    if len(args) != 2:
        return None
    kinds = _listing(args[1]) or code(args[1])
    kinds = kinds.replace("'", "")
    target = code(args[0])
    private = any(p.startswith("_") for p in re.findall(r"[\w.]+", kinds.replace(".", " ")))
    subject = None if private else _subject(args[0], inputs)  # a private type: not for users
    if holds:
        return Clause(
            text=f"{target} is of type {kinds}",
            subject=subject,
            noun=f"a {target} of type {kinds}",
            fix=f"Pass {target} as something other than {kinds}" if subject else None,
            shown=target,
            root=_root(args[0]),
        )
    return Clause(
        text=f"{target} is not of type {kinds}",
        subject=subject,
        noun=f"a {target} that is not of type {kinds}",
        fix=f"Pass a value of type {kinds} as {target}" if subject else None,
        shown=target,
        root=_root(args[0]),
    )


def _hasattr(node: ast.Call, name: str, inputs: Inputs, holds: bool) -> Clause | None:
    args = node.args
    if len(args) < 2:
        return None
    attr = _value(args[1])
    verb = "has" if holds else "has no"
    return Clause(text=f"{code(args[0])} {verb} attribute {attr}")


def _any_all(node: ast.Call, name: str, inputs: Inputs, holds: bool) -> Clause | None:
    if len(node.args) != 1:
        return None
    inner = node.args[0]
    body = code(inner)
    if isinstance(inner, ast.GeneratorExp | ast.ListComp) and len(inner.generators) == 1:
        gen = inner.generators[0]
        body = f"{code(gen.iter)} (checking {code(inner.elt)})"
    if name == "any":
        text = f"some item of {body} passes" if holds else f"no item of {body} passes"
    else:
        text = f"every item of {body} passes" if holds else f"some item of {body} fails"
    return Clause(text=text)


def _affix(node: ast.Call, name: str, inputs: Inputs, holds: bool) -> Clause | None:
    if not isinstance(node.func, ast.Attribute) or not node.args:
        return None
    verb = "starts" if name == "startswith" else "ends"
    target = code(node.func.value)
    affix = _listing(node.args[0]) or _value(node.args[0])
    subject = _subject(node.func.value, inputs)
    text = f"{target} {verb} with {affix}"
    fix = f"Use a {target} that does not {verb[:-1]} with {affix}"
    if not holds:
        text = f"{target} does not {verb[:-1]} with {affix}"
        fix = f"Use a {target} that {verb} with {affix}"
    return Clause(
        text=text,
        subject=subject,
        fix=fix if subject is not None else None,
        shown=target,
        root=_root(node.func.value),
    )


# Calls said in their own words, by the name called; None from one (the wrong number
# of arguments, say) and any other call is said as "`f(x)` returns true".
_CALLS: dict[str, Callable[[ast.Call, str, Inputs, bool], Clause | None]] = {
    "isinstance": _isinstance,
    "hasattr": _hasattr,
    "getattr": _hasattr,
    "any": _any_all,
    "all": _any_all,
    "startswith": _affix,
    "endswith": _affix,
}


def _platform(name: str) -> str | None:
    if name.startswith("is_") and name[3:] in _PLATFORMS:
        return _PLATFORMS[name[3:]]
    return None


def _truthy(node: ast.expr, inputs: Inputs, holds: bool) -> Clause:
    subject = _subject(node, inputs)
    name = code(node)
    known, default = literal(subject.default if subject is not None else None)
    at_default = (bool(default) == holds) if known else None
    if _is_bool(subject):
        return Clause(
            text=f"{name} is on" if holds else f"{name} is off",
            subject=subject,
            noun=f"{name} turned on" if holds else f"{name} turned off",
            fix=f"Turn {name} off (False)" if holds else f"Turn {name} on (True)",
            at_default=at_default,
            shown=name,
            example="False" if holds else "True",
            root=_root(node),
        )
    return Clause(
        text=f"{name} is set" if holds else f"{name} is empty or unset",
        subject=subject,
        noun=f"a non-empty {name}" if holds else f"an empty or missing {name}",
        fix=(f"Leave {name} empty or unset" if holds else f"Give {name} a non-empty value")
        if subject is not None
        else None,
        at_default=at_default,
        shown=name,
        root=_root(node),
    )


# How each kind of expression is said, by node type name; see `say` for the rest.
_SAY: dict[str, Callable[[Any, Inputs, bool], Clause]] = {
    "UnaryOp": _say_unary,
    "BoolOp": _say_bool,
    "Compare": _say_compare,
    "Call": _call,
}


def plain(test: str, inputs: Inputs, *, holds: bool = True) -> list[Clause] | None:
    """The conjuncts of a guard's test in English, or None when it does not parse."""
    node = parse_test(test)
    if node is None:
        return None
    return clauses(node, inputs, holds=holds)


def join_and(parts: list[Clause]) -> str:
    """Clauses joined by "and"; a clause with its own "or" is bracketed when not alone."""
    if len(parts) == 1:
        return parts[0].text
    return " and ".join(f"({c.text})" if " or " in c.text else c.text for c in parts)
