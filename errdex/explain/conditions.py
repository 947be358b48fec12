# Guard conditions as plain English. A guard's condition comes as the expression tree
# extract built (errdex.expr), never as text to parse again, and is said three ways: a
# clause ("`x` is negative"), a noun phrase ("a negative `x`") for "what it means", and
# the fix that makes it false ("Set `x` to 0 or more") for "solutions". The tree says
# the literal English of each operator; this module adds what the inputs tell (a
# boolean is on or off, a default, a platform check, a fix a user can make).
from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from errdex.expr import (
    FACTOR,
    FLIP,
    MIRROR,
    Attribute,
    BoolOp,
    Call,
    Collection,
    Compare,
    CompareOp,
    Constant,
    Expr,
    IsInstance,
    Membership,
    Name,
    Not,
    Opaque,
    Subscript,
    assigned,
    compare_phrase,
    getattr_read,
    length_phrase,
    listing,
    measured_length,
    named,
    plain_getattr,
    value_text,
)
from errdex.expr import root as _root
from errdex.model import Input

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
    # the environment variable the condition reads: its name for `envs.NAME`, "" for one
    # read through os.environ / os.getenv; None when it reads none
    env: str | None = None
    # what the subject must be for the clause to be false, as a noun phrase ("an existing
    # directory"), when a fix through what it is made from can say so
    wants: str | None = None

    def fix_naming(self, name: str) -> str | None:
        """`fix` with the subject named `name` instead (a knob, a constructor parameter)."""
        if self.fix is None or self.shown is None:
            return self.fix
        return self.fix.replace(self.shown, name, 1)


Inputs = Mapping[str, Input]  # by expression as written ("self.x", "x")


def clauses(node: Expr, inputs: Inputs, *, holds: bool = True) -> list[Clause]:
    """The top-level conjuncts of `node` (or of its negation when `holds` is False)."""
    split = _SPLIT.get(type(node).__name__)
    found = None if split is None else split(node, inputs, holds)
    return [say(node, inputs, holds)] if found is None else found


def _split_not(node: Not, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`not x` splits as `x` with `holds` turned over."""
    return clauses(node.operand, inputs, holds=not holds)


def _split_bool(node: BoolOp, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`a and b` holding (or `a or b` failing) is one conjunct per operand."""
    if (node.op == "and") != holds:
        return None
    out: list[Clause] = []
    for value in node.values:
        out.extend(clauses(value, inputs, holds=holds))
    return out


def _split_chain(node: Compare, inputs: Inputs, holds: bool) -> list[Clause] | None:
    """`a < b < c` is `a < b` and `b < c`; failing, it is one clause of the two or-ed."""
    if len(node.ops) < 2:
        return None
    pairs = [say(pair, inputs, holds) for pair in node.pairs()]
    return pairs if holds else [_joined(pairs, "or")]


# Expressions that may be more than one conjunct, by node type name; any other
# expression (and these when they do not split) is a single clause.
_SPLIT: dict[str, Callable[[Any, Inputs, bool], list[Clause] | None]] = {
    "Not": _split_not,
    "BoolOp": _split_bool,
    "Compare": _split_chain,
}


def say(node: Expr, inputs: Inputs, holds: bool = True) -> Clause:
    """One clause for `node` being true (or false when `holds` is False)."""
    result = _result_test(node, inputs, holds)
    if result is not None:
        return result
    handler = _SAY.get(type(node).__name__, _truthy)  # any other expression: its truth
    found = handler(node, inputs, holds)
    if found.env is None and type(node).__name__ not in _COMBINED:
        env = _env(node)
        if env is not None:
            found = dataclasses.replace(found, env=env)
    return found


_COMBINED = frozenset({"Not", "BoolOp"})  # said through the clauses of their parts
_MATCHERS = frozenset({"match", "fullmatch", "search"})
MAX_KEYS_SHOWN = 8  # the keys of a literal dict a lookup fix lists


def _lookup_test(call: Call, inputs: Inputs, found: bool) -> Clause | None:
    """A test of what `holder.get(key)` found (`cls = REGISTRY.get(name)`, then `if cls is
    None:`), said of the key: "`REGISTRY` has no entry for `name`"."""
    if not isinstance(call.func, Attribute) or call.keywords:
        return None
    holder, key = code(call.func.value), call.args[0]
    name = code(key)
    subject = _subject(key, inputs)
    said = f"{holder} has an entry for {name}" if found else f"{holder} has no entry for {name}"
    held = inputs.get(call.func.value.source())
    known, value = literal(held.default if held is not None else None)
    keys = sorted(map(repr, value)) if known and isinstance(value, dict) else []
    listed = f": {' or '.join(keys)}" if keys and len(keys) <= MAX_KEYS_SHOWN else ""
    if _private(call.func.value):  # a fix never names the library's own table
        known_to, unknown_to = "the library knows", "the library does not know"
    else:
        known_to, unknown_to = f"{holder} has an entry for", f"{holder} has no entry for"
    fix = f"Use a {name} that {unknown_to}" if found else f"Use a {name} that {known_to}{listed}"
    return Clause(
        text=said,
        subject=subject,
        noun=f"a {name} that {holder} has {'an' if found else 'no'} entry for",
        fix=fix if subject is not None else None,
        shown=name,
        root=_root(key),
    )


def _result_test(node: Expr, inputs: Inputs, holds: bool) -> Clause | None:
    """A test of what a call made of its argument, said of the argument: a regular
    expression's match (`m = RX.match(text)`, then `if m is None:`) or a lookup's find
    (`cls = TABLE.get(name)`, then `if not cls:`); None for any other test."""
    found = True  # whether the test, as written, holds when the call found something
    if isinstance(node, Compare) and len(node.ops) == 1 and node.ops[0] in ("is", "is not"):
        right = node.comparators[0]
        if not (isinstance(right, Constant) and right.value is None):
            return None
        found, node = node.ops[0] == "is not", node.left
    if not isinstance(node, Name):
        return None
    local = inputs.get(node.id)
    call = None if local is None or local.kind != "local" else local.default_tree
    if not isinstance(call, Call) or call.keywords:
        return None
    if call.name == "get" and len(call.args) == 1:
        return _lookup_test(call, inputs, found == holds)
    if call.name in _MATCHERS:
        return _regex_test(call, inputs, found == holds)
    return None


def _regex_test(call: Call, inputs: Inputs, matched: bool) -> Clause | None:
    """`re.match(p, text)` or `RX.match(text)` having matched (or not), said of `text`."""
    if not isinstance(call.func, Attribute):
        return None
    if code(call.func.value) in ("`re`", "`regex`"):
        if len(call.args) < 2:
            return None
        pattern, text = call.args[0], call.args[1]
    elif len(call.args) == 1:
        pattern, text = call.func.value, call.args[0]
    else:
        return None
    shown = repr(pattern.value) if isinstance(pattern, Constant) else code(pattern)
    name = code(text)
    subject = _subject(text, inputs)
    verb = "fully match" if call.name == "fullmatch" else "match"
    if matched:
        said = f"{name} {verb}es {shown}"
        fix = f"Use a {name} that does not match {shown}"
    else:
        said = f"{name} does not {verb} {shown}"
        fix = f"Use a {name} that {verb}es {shown}"
    return Clause(
        text=said,
        subject=subject,
        noun=f"a {name} that " + said[len(name) + 1 :],
        fix=fix if subject is not None else None,
        shown=name,
        root=_root(text),
    )


def _say_not(node: Not, inputs: Inputs, holds: bool) -> Clause:
    return say(node.operand, inputs, not holds)


def _say_bool(node: BoolOp, inputs: Inputs, holds: bool) -> Clause:
    conj = (node.op == "and") == holds
    parts = [say(v, inputs, holds) for v in node.values]
    return _joined(parts, "and" if conj else "or")


def _say_compare(node: Compare, inputs: Inputs, holds: bool) -> Clause:
    if len(node.ops) > 1:
        return _joined(clauses(node, inputs, holds=holds), "and" if holds else "or")
    return _compare(node.left, node.ops[0], node.comparators[0], inputs, holds)


def _say_membership(node: Membership, inputs: Inputs, holds: bool) -> Clause:
    if isinstance(node.item, Constant):
        return _contains(node.container, node.item, holds != node.negative, inputs)
    op: CompareOp = "not in" if node.negative else "in"
    return _compare(node.item, op, node.container, inputs, holds)


def _joined(parts: list[Clause], word: str) -> Clause:
    if len(parts) == 1:
        return parts[0]
    texts = [p.text for p in parts]
    text = f" {word} ".join(texts)
    if word == "or" and len(parts) == 2:
        text = f"either {texts[0]} or {texts[1]}"
    return Clause(text=text)


code = named  # how prose names an expression: `self.x` as `x`, long ones shortened


def _env(node: Expr) -> str | None:
    """The environment variable `node` reads: `envs.NAME` (its name), or a read through
    os.environ / os.getenv ("")."""
    for sub in node.walk():
        if isinstance(sub, Attribute) and isinstance(sub.value, Name):
            if sub.value.id == "envs" and _is_env_name(sub.attr):
                return sub.attr
            if sub.value.id == "os" and sub.attr in ("environ", "getenv"):
                return ""
        if isinstance(sub, Name) and sub.id == "getenv":
            return ""
    return None


def _is_env_name(name: str) -> bool:
    return name[:1].isupper() and all(c.isupper() or c.isdigit() or c == "_" for c in name)


def _subject(node: Expr, inputs: Inputs) -> Input | None:
    """The input `node` reads as a whole: a name, an attribute chain, or a call or item
    read that is one (`os.environ.get("X")`)."""
    node = assigned(node)  # `(x := f())` is `x`
    node = getattr_read(node) or node  # `getattr(c, "x", None)` reads `c.x`
    if isinstance(node, Name | Attribute | Call | Subscript):
        return inputs.get(node.source())
    return None


def _own(node: Expr, inputs: Inputs) -> bool:
    """Whether an expression reads what only the library has: a private name, or an input
    no user sets (a variable the function computes, a private function's parameter)."""
    for sub in node.walk():
        if isinstance(sub, Name | Attribute):
            found = inputs.get(sub.source())
            if found is not None and found.access == "internal" and not found.knobs:
                return True
    return False


def _is_bool(subject: Input | None) -> bool:
    return subject is not None and (subject.type == "bool" or subject.default in ("True", "False"))


def _compare(left: Expr, op: CompareOp, right: Expr, inputs: Inputs, holds: bool) -> Clause:
    if isinstance(left, Constant) and op in MIRROR:
        left, right, op = right, left, MIRROR[op]
    if not holds:
        op = FLIP[op]
    if isinstance(left, Call) and left.name == "len" and len(left.args) == 1:
        return _length(left.args[0], op, right, inputs)
    if isinstance(left, Constant) and op in ("in", "not in"):
        return _contains(right, left, op == "in", inputs)
    measured = _measured(left, op, right, inputs)
    if measured is not None:
        return measured
    subject = _subject(left, inputs)
    name, value = code(left), value_text(right)
    bound = value if isinstance(right, Constant) else None
    own = _own(right, inputs)
    if op in ("in", "not in"):
        right = _held(right, inputs) or right  # `constants.REPO_TYPES`: what it lists
    held = None if op in ("in", "not in", "is", "is not") else _held_scalar(right, inputs)
    if held is not None:  # `n > MAX_ITEMS`: the fix gives the limit, the clause both
        shown, right = value, held
        value, own, bound = value_text(held), False, value_text(held)
    text, noun, fix = _comparison_phrase(op, right, name, value, own)
    if held is not None and f" {value}" in text:
        text = text.replace(f" {value}", f" {shown} ({value})", 1)
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


def _measured(left: Expr, op: CompareOp, right: Expr, inputs: Inputs) -> Clause | None:
    """`cell_len(text) < 1`: a public function's measure of one parameter, compared with
    a literal; the fix asks for a parameter whose measure passes."""
    if not (isinstance(left, Call) and isinstance(right, Constant)) or op in ("in", "not in"):
        return None
    argument = left.args[0] if len(left.args) == 1 and not left.keywords else None
    if argument is None or left.name in _CONVERSIONS or left.name == "len":
        return None
    subject = _subject(argument, inputs)
    private = any(_private(sub) for sub in left.func.walk())
    if (
        subject is None
        or subject.kind != "parameter"
        or private
        or _root(left.func) in ("self", "cls")
    ):
        return None
    name, value, shown = code(left), value_text(right), code(argument)
    text = _comparison_phrase(op, right, name, value)[0]
    wanted = _comparison_phrase(FLIP[op], right, name, value)[0]
    return Clause(
        text=f"{name} {text}",
        subject=subject,
        fix=f"Pass a {shown} for which {name} {wanted}",
        bound=value,
        shown=shown,
        root=_root(argument),
    )


def held_value(item: Input | None, kinds: tuple[str, ...] = ("constant", "global")) -> Any:
    """The literal value a module constant or setting holds (`MAX = 64`, `TYPES = [...]`),
    read with literal_eval, never run; None when `item` is no such input or holds
    something else."""
    if item is None or item.kind not in kinds:
        return None
    known, value = literal(item.default)
    return value if known else None


def scalar(value: Any) -> bool:
    """Whether a literal is a number or string, as a message or a bound shows one."""
    return isinstance(value, int | float | str) and not isinstance(value, bool)


def _held_scalar(node: Expr, inputs: Inputs) -> Constant | None:
    """The literal number or string a module constant read by name holds; None else."""
    value = held_value(inputs.get(node.source())) if isinstance(node, Name | Attribute) else None
    return Constant(value=value) if scalar(value) else None


def _held(node: Expr, inputs: Inputs) -> Collection | None:
    """The literal list, tuple or set a module constant read by name holds, as a tree;
    None for anything else."""
    value = held_value(inputs.get(node.source())) if isinstance(node, Name | Attribute) else None
    if not isinstance(value, list | tuple | set) or not value:
        return None
    kinds = (str, int, float, bool, type(None))
    if not all(isinstance(v, kinds) for v in value):
        return None
    items = sorted(value, key=repr) if isinstance(value, set) else list(value)
    return Collection(kind="list", items=tuple(Constant(value=v) for v in items))


def _comparison_phrase(
    op: CompareOp, right: Expr, name: str, value: str, own: bool = False
) -> tuple[str, str, str]:
    """(clause, noun phrase, fix) for `name <op> right`, `value` being `right` in prose.
    `own`: `right` is the library's own (a private name, a value it computes), which a
    fix never names.

    The clause is the tree's own wording (errdex.expr.compare_phrase); one table of
    the noun phrases and fixes of all ten operators, side by side."""
    items = listing(right)
    elements = right.items if isinstance(right, Collection) else ()
    if own and not all(isinstance(e, Constant) for e in elements):
        items = None  # `(1, pcp, tp * pcp)`: values the library computes
    if any(not isinstance(e, Constant) and any(_private(x) for x in e.walk()) for e in elements):
        items = None  # `("auto", ds._distributed.strategy)`: a fix never names its state
    zero = isinstance(right, Constant) and right.value == 0 and right.value is not False
    none = value == "None"
    # a container of the library's own (`self._registry`): a fix says what it holds,
    # never to change it
    hidden = own or any(_private(sub) for sub in right.walk())
    clause = compare_phrase(op, right, items or "")
    phrase: dict[CompareOp, tuple[str, str]] = {
        # op: (noun phrase, fix)
        "<": (
            f"a negative {name}" if zero else f"a {name} below {value}",
            f"Set {name} to {value} or more",
        ),
        "<=": (
            f"a {name} of zero or less" if zero else f"a {name} of {value} or less",
            f"Set {name} to more than {value}",
        ),
        ">": (f"a {name} above {value}", f"Set {name} to {value} or less"),
        ">=": (f"a {name} of {value} or more", f"Set {name} to less than {value}"),
        "==": (f"{name} = {value}", f"Set {name} to something other than {value}"),
        "!=": (f"a {name} other than {value}", f"Set {name} to {value}"),
        "is": (
            f"a missing {name} (None)" if none else f"{name} being {value}",
            f"Give {name} a value (it must not be None)"
            if none
            else f"Set {name} to something other than {value}",
        ),
        "is not": (
            f"a {name} that is set" if none else f"a {name} other than {value}",
            f"Leave {name} unset (None)" if none else f"Set {name} to {value}",
        ),
        "in": (
            f"{name} = {items}" if items else f"a {name} found in {value}",
            f"Set {name} to a value other than {items}"
            if items
            else f"Set {name} to a value it does not hold yet"
            if hidden
            else f"Set {name} to a value not in {value}",
        ),
        "not in": (
            f"a {name} other than {items}" if items else f"a {name} missing from {value}",
            f"Set {name} to one of {items}"
            if items
            else f"Set {name} to one of the values it knows"
            if hidden
            else f"Set {name} to one of the values in {value}",
        ),
    }
    if op in ("==", "is") and isinstance(right, Constant) and right.value is True:
        return clause, f"{name} turned on", f"Turn {name} off (False)"
    if op in ("==", "is") and isinstance(right, Constant) and right.value is False:
        return clause, f"{name} turned off", f"Turn {name} on (True)"
    noun, fix = phrase[op]
    if hidden and op in _OWN_BOUND and not isinstance(right, Constant):
        return clause, noun, _OWN_BOUND[op].format(name=name)
    return clause, noun, fix


def _private(node: Expr) -> bool:
    """A name or attribute of the library's own: `_x`, `a._x` (not a dunder)."""
    name = node.id if isinstance(node, Name) else node.attr if isinstance(node, Attribute) else ""
    return name.startswith("_") and not name.endswith("__")


# Fixes against a bound the library computes or keeps private: what direction to move,
# never the bound's name.
_OWN_BOUND: dict[CompareOp, str] = {
    "<": "Set {name} higher: the check wants it at least a limit the library computes",
    "<=": "Set {name} higher: the check wants it above a limit the library computes",
    ">": "Set {name} lower: the check wants it at most a limit the library computes",
    ">=": "Set {name} lower: the check wants it below a limit the library computes",
    "==": "Set {name} to another value: the one the library computes is refused",
    "!=": "Set {name} to the value the library computes for it",
    # `value is _MISSING`: a marker of the library's own stands for "not given"
    "is": "Give {name} a value: the check refuses the library's own placeholder for it",
    "is not": "Leave {name} out: the check wants the library's own placeholder there",
}

_APPLY: dict[CompareOp, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: bool(a < b),
    "<=": lambda a, b: bool(a <= b),
    ">": lambda a, b: bool(a > b),
    ">=": lambda a, b: bool(a >= b),
    "==": lambda a, b: bool(a == b),
    "!=": lambda a, b: bool(a != b),
    "is": lambda a, b: a is b if b is None or isinstance(b, bool) else bool(a == b),
    "is not": lambda a, b: a is not b if b is None or isinstance(b, bool) else bool(a != b),
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def literal(text: str | None) -> tuple[bool, Any]:
    """(True, value) when `text` is a Python literal (read with literal_eval, never run)."""
    if text is None or len(text) > 200:
        return False, None
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


class _NotLiteral(Exception):
    pass


def _literal_value(node: Expr) -> Any:
    """The value of a literal tree: a constant, a negative number, a display of them."""
    if isinstance(node, Constant):
        return node.value
    if isinstance(node, Collection):
        values = [_literal_value(i) for i in node.items]
        return {"list": list, "tuple": tuple, "set": set}[node.kind](values)
    if isinstance(node, Opaque) and node.precedence == FACTOR and len(node.parts) == 1:
        number = _literal_value(node.parts[0])  # `-1`, `+2`
        if node.text[:1] in "-+" and type(number) in (int, float):
            return -number if node.text[0] == "-" else number
    raise _NotLiteral


def _at_default(subject: Input | None, op: CompareOp, right: Expr) -> bool | None:
    if subject is None:
        return None
    known, default = literal(subject.default)
    if not known:
        return None
    try:
        return _APPLY[op](default, _literal_value(right))
    except (_NotLiteral, TypeError):
        return None


def _contains(container: Expr, item: Constant, holds: bool, inputs: Inputs) -> Clause:
    """`"a" in mode`: a clause on `mode`, the input that holds (or lacks) the literal."""
    subject = _subject(container, inputs)
    name, value = code(container), value_text(item)
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
    subject: Input | None, op: CompareOp, right: Expr, at_default: bool | None
) -> str | None:
    """A value that makes `subject <op> right` false: the default when it does, else one
    from the bound (`x < 0`: 0; `x <= 4`: 5; `x not in ("a", "b")`: "a")."""
    if subject is None:
        return None
    if at_default is False and subject.default is not None and literal(subject.default)[0]:
        return subject.default
    if isinstance(right, Constant) and isinstance(right.value, bool):
        return repr(not right.value) if op in ("==", "is") else repr(right.value)
    if isinstance(right, Constant) and right.value is not None:
        bound = right.value
        if op in ("<", ">", "!="):
            return repr(bound)
        if isinstance(bound, int) and op in ("<=", ">="):
            return repr(bound + 1 if op == "<=" else bound - 1)
        return None
    if op == "not in" and isinstance(right, Collection) and right.items:
        first = right.items[0]
        return repr(first.value) if isinstance(first, Constant) else None
    if op == "is not" and isinstance(right, Constant) and right.value is None:
        return "None"
    return None


def _length(target: Expr, op: CompareOp, right: Expr, inputs: Inputs) -> Clause:
    """`len(x) <op> n`; against a number the library computes or keeps private, the fix
    says which way to go without naming it."""
    base = _length_plain(target, op, right, inputs)
    private = any(p.startswith("_") for p in right.source().split("."))
    if isinstance(right, Constant) or not (private or _own(right, inputs)):
        return base
    way = "more" if op in ("<", "<=") else "fewer" if op in (">", ">=") else None
    unit = measured_length(target)[1]
    fix = (
        f"Give {base.shown} {way} {unit}: the check compares their number with a number the"
        " library computes"
        if way
        else f"Change the number of {unit} of {base.shown}"
    )
    return dataclasses.replace(base, fix=fix if base.subject is not None else None, bound=None)


def _length_plain(target: Expr, op: CompareOp, right: Expr, inputs: Inputs) -> Clause:
    target, unit = measured_length(target)
    name, value = code(target), value_text(right)
    subject = _subject(target, inputs)
    n = right.value if isinstance(right, Constant) and type(right.value) is int else None
    one = unit[:-1]  # "item", "dimension"
    fixes: dict[CompareOp, str] = {
        "<": f"Give {name} at least {value} {unit}",
        "<=": f"Give {name} more than {value} {unit}",
        ">": f"Give {name} at most {value} {unit}",
        ">=": f"Give {name} fewer than {value} {unit}",
        "==": f"Give {name} other than {value} {unit}",
        "!=": f"Give {name} exactly {value} {unit}",
    }
    if (n == 0 and op in ("==", "<=")) or (n == 1 and op == "<"):
        fix = f"Give {name} at least one {one}"
    elif n == 1 and op in (">", "!="):
        fix = f"Give {name} exactly one {one}" if op == "!=" else f"Give {name} at most one {one}"
    elif n == 0 and op in ("!=", ">"):
        fix = f"Leave {name} empty" if unit == "items" else f"Give {name} no {unit}"
    else:
        fix = fixes.get(op, f"Change the length of {name}")
    text = length_phrase(op, right, unit)
    return Clause(
        text=f"{name} {text}",
        subject=subject,
        noun=f"a {name} that {text}",
        fix=fix if subject is not None else None,
        bound=value,
        shown=name,
        root=_root(target),
    )


def _call(node: Call, inputs: Inputs, holds: bool) -> Clause:
    read = plain_getattr(node)
    if read is not None:  # `getattr(args, "flag", False)`: said as `args.flag` is
        return _truthy(read, inputs, holds)
    name = node.name
    words = node.own_words(holds)  # `hasattr(x, "a")`, `any(...)`, `s.startswith(p)`
    if words is not None:
        found = _affix(node, holds, inputs) if name in ("startswith", "endswith") else None
        return Clause(text=words) if found is None else found
    path = _path_test(node, holds, inputs)
    if path is not None:
        return path
    platform = _platform(name)
    if platform is not None:
        text = f"the platform is {platform}" if holds else f"the platform is not {platform}"
        return Clause(
            text=f"{text} ({code(node)})", platform=platform, on_platform=holds, call=name
        )
    argument = node.args[0] if len(node.args) == 1 and not node.keywords else None
    subject = None if argument is None or name in _CONVERSIONS else _subject(argument, inputs)
    private = any(_private(sub) for sub in node.func.walk())  # a fix never names it
    own = _root(node.func) in ("self", "cls")  # the object's own test of what it was handed
    if subject is None or subject.kind != "parameter" or private or own:
        return Clause(text=node.said(holds), call=name)  # "`f(x)` returns true"
    # `is_collection(only)`: a test of one input, which the fix asks to pass
    shown, wanted = code(argument), "false" if holds else "true"  # type: ignore[arg-type]
    return Clause(
        text=node.said(holds),
        call=name,
        subject=subject,
        fix=f"Pass a {shown} for which {code(node)} is {wanted}",
        shown=shown,
        root=_root(argument),  # type: ignore[arg-type]
    )


# Tests of what is at a path: what the path must be for the test to pass, and for it to
# fail (`os.path.isdir(p)`, `Path(p).is_file()`, `p.exists()`).
_PATH_TESTS = {
    "isdir": ("an existing directory", "not a directory"),
    "is_dir": ("an existing directory", "not a directory"),
    "isfile": ("an existing file", "not an existing file"),
    "is_file": ("an existing file", "not an existing file"),
    "exists": ("a path that exists", "a path where nothing exists yet"),
    "lexists": ("a path that exists", "a path where nothing exists yet"),
}


def _path_test(node: Call, holds: bool, inputs: Inputs) -> Clause | None:
    """`os.path.isdir(p)` or `p.is_dir()`: a test of what is at the path `p`, said as what
    `p` must be."""
    wanted = _PATH_TESTS.get(node.name)
    if wanted is None or not isinstance(node.func, Attribute):
        return None
    receiver = node.func.value
    if receiver.source() in ("os.path", "path", "osp") and len(node.args) == 1:
        target = node.args[0]
    elif not node.args and receiver.source() not in ("os", "os.path", "self"):
        target = receiver
    else:
        return None
    wants = wanted[1] if holds else wanted[0]
    shown = code(target)
    subject = _subject(target, inputs)
    return Clause(
        text=f"{shown} is {wanted[0] if holds else wanted[1]} ({node.said(holds)})",
        subject=subject,
        noun=f"a {shown} that is {wanted[0] if holds else wanted[1]}",
        fix=f"Pass a {shown} that is {wants}" if subject is not None else None,
        shown=shown,
        root=_root(target),
        wants=wants,
        call=node.name,
    )


# Builtins whose result is the value converted, not a test of it.
_CONVERSIONS = frozenset(
    {"len", "str", "int", "float", "bool", "repr", "type", "id", "hash", "list", "tuple"}
    | {"set", "dict", "sorted", "iter", "next", "abs", "round", "getattr", "vars"}
)


def _isinstance(node: IsInstance, inputs: Inputs, holds: bool) -> Clause:
    kinds, target = node.kinds(), code(node.target)
    private = any(part.startswith("_") for name in node.type_names() for part in name.split("."))
    subject = None if private else _subject(node.target, inputs)  # a private type: not for users
    if holds:
        return Clause(
            text=node.said(True),
            subject=subject,
            noun=f"a {target} of type {kinds}",
            fix=f"Pass {target} as something other than {kinds}" if subject else None,
            shown=target,
            root=_root(node.target),
        )
    return Clause(
        text=node.said(False),
        subject=subject,
        noun=f"a {target} that is not of type {kinds}",
        fix=f"Pass a value of type {kinds} as {target}" if subject else None,
        shown=target,
        root=_root(node.target),
    )


def _affix(node: Call, holds: bool, inputs: Inputs) -> Clause | None:
    if not isinstance(node.func, Attribute) or not node.args:
        return None
    verb = "starts" if node.name == "startswith" else "ends"
    target = code(node.func.value)
    affix = listing(node.args[0]) or value_text(node.args[0])
    subject = _subject(node.func.value, inputs)
    fix = f"Use a {target} that does not {verb[:-1]} with {affix}"
    if not holds:
        fix = f"Use a {target} that {verb} with {affix}"
    return Clause(
        text=node.said(holds),
        subject=subject,
        fix=fix if subject is not None else None,
        shown=target,
        root=_root(node.func.value),
    )


def _platform(name: str) -> str | None:
    if name.startswith("is_") and name[3:] in _PLATFORMS:
        return _PLATFORMS[name[3:]]
    return None


def _truthy(node: Expr, inputs: Inputs, holds: bool) -> Clause:
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
        text=node.said(holds),
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
    "Not": _say_not,
    "BoolOp": _say_bool,
    "Compare": _say_compare,
    "Membership": _say_membership,
    "Call": _call,
    "IsInstance": _isinstance,
}


def plain(tree: Expr, inputs: Inputs, *, holds: bool = True) -> list[Clause]:
    """The conjuncts of a guard's condition in English."""
    return clauses(tree, inputs, holds=holds)


def join_and(parts: list[Clause]) -> str:
    """Clauses joined by "and"; a clause with its own "or" is bracketed when not alone."""
    if len(parts) == 1:
        return parts[0].text
    return " and ".join(f"({c.text})" if " or " in c.text else c.text for c in parts)
