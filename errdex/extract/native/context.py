# What a site's place in a C, C++ or Rust syntax tree says of it: the conditions around it
# (outermost first, as a Python site's guards), the function it is in with its parameters,
# and the inputs its condition and message read. Shared by the C-family and Rust readers;
# the node types of both grammars are handled side by side, by name.
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tree_sitter import Node

from errdex.expr import Attribute, Call, Constant, Expr, Name, compare, root
from errdex.extract.native.conditions import source, text, tree
from errdex.extract.native.facts import NativeSite
from errdex.model import Guard, GuardKind, Hole, Input, Location, Message, Snippet

SNIPPET_BEFORE, SNIPPET_AFTER = 17, 15  # as a Python site's (extract/visitor.py)
_LOOPS: dict[str, GuardKind] = {
    "while_statement": "while",
    "do_statement": "while",
    "for_statement": "for",
    "for_range_loop": "for",
    "while_expression": "while",
    "for_expression": "for",
    "loop_expression": "while",
}
_FUNCTIONS = frozenset({"function_definition", "function_item"})
_SCOPES = frozenset({"class_specifier", "struct_specifier", "impl_item"})


@dataclass(slots=True)
class Param:
    name: str
    type: str | None
    default: str | None = None


@dataclass(slots=True)
class Place:
    """Where a site is: its guards (outermost first), its function and parameters."""

    guards: list[Guard] = field(default_factory=list)
    function: str = "<module>"
    params: dict[str, Param] = field(default_factory=dict)
    in_test: bool = False  # inside `#[cfg(test)]` (Rust): not the package's code


def snippet(lines: list[str], line: int, end_line: int) -> Snippet:
    start = max(1, line - SNIPPET_BEFORE)
    stop = min(len(lines), end_line + SNIPPET_AFTER)
    return Snippet(start_line=start, lines=tuple(lines[start - 1 : stop]))


def guard_of(kind: GuardKind, node: Node, negated: bool) -> Guard:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]  # C's `if (x)`: the test is `x`
    return Guard(
        kind=kind,
        test=source(node),
        negated=negated,
        line=node.start_point[0] + 1,
        tree=tree(node),
    )


def place_of(
    node: Node, *, function: str | None = None, params: dict[str, Param] | None = None
) -> Place:
    """The guards, function and parameters around `node`. `function` and `params` name
    them when the tree holds no function (a macro body read on its own)."""
    place = Place()
    guards: list[Guard] = []
    child, parent = node, node.parent
    scopes: list[str] = []
    fn: Node | None = None
    while parent is not None:
        kind = parent.type
        if kind in ("if_statement", "if_expression"):
            guards.extend(_if_guards(parent, child))
        elif kind in _LOOPS and child != parent.child_by_field_name("condition"):
            test = parent.child_by_field_name("condition")
            if test is None and kind in ("for_range_loop", "for_expression"):
                guards.append(_loop_guard(parent))
            elif test is not None:
                guards.append(guard_of(_LOOPS[kind], test, False))
        elif kind == "case_statement":
            guards.append(_case_guard(parent))
        elif kind == "match_arm":
            guards.append(_arm_guard(parent))
        elif kind == "catch_clause":
            caught = parent.child_by_field_name("parameters")
            if caught is not None:
                guards.append(
                    Guard(
                        kind="except",
                        test=source(caught).strip("()"),
                        negated=False,
                        line=caught.start_point[0] + 1,
                    )
                )
        elif kind == "conditional_expression":
            test = parent.child_by_field_name("condition")
            if test is not None and child != test:
                guards.append(
                    guard_of("if", test, child == parent.child_by_field_name("alternative"))
                )
        elif kind in ("preproc_ifdef", "preproc_if", "preproc_elif", "preproc_elifdef"):
            guard = _preproc_guard(parent, child)
            if guard is not None:
                guards.append(guard)
        elif kind in _FUNCTIONS and fn is None:
            fn = parent
        elif kind in _SCOPES:
            name = parent.child_by_field_name("name") or parent.child_by_field_name("type")
            if name is not None:
                scopes.append(_plain_type(text(name)))
        elif kind == "mod_item" and _cfg_test(parent):
            place.in_test = True
        child, parent = parent, parent.parent
    guards.reverse()
    place.guards = guards
    if function is not None:  # a macro body: the wrapper it was read in is no function
        place.function = function
        place.params = params or {}
    elif fn is not None:
        if _cfg_test(fn):
            place.in_test = True
        called, place.params = _function_of(fn)
        place.function = "::".join([*reversed(scopes), called]) if called else "<module>"
    return place


def _if_guards(node: Node, child: Node) -> list[Guard]:
    test = node.child_by_field_name("condition")
    if test is None or child == test:
        return []
    parent = node.parent
    kind: GuardKind = "elif" if parent is not None and parent.type == "else_clause" else "if"
    negated = child == node.child_by_field_name("alternative")
    if test.type == "condition_clause":
        inner = test.child_by_field_name("value") or test.child_by_field_name("condition")
        test = inner if inner is not None else test
    if test.type in ("let_condition", "let_chain"):  # Rust `if let Some(x) = y`
        return [Guard(kind=kind, test=source(test), negated=negated, line=test.start_point[0] + 1)]
    return [guard_of(kind, test, negated)]


def _loop_guard(node: Node) -> Guard:
    pattern = node.child_by_field_name("declarator") or node.child_by_field_name("pattern")
    values = node.child_by_field_name("right") or node.child_by_field_name("value")
    test = f"{source(pattern)} in {source(values)}" if pattern and values else source(node)
    return Guard(kind="for", test=test, negated=False, line=node.start_point[0] + 1)


def _case_guard(node: Node) -> Guard:
    value = node.child_by_field_name("value")
    switch = node.parent
    while switch is not None and switch.type != "switch_statement":
        switch = switch.parent
    subject = None if switch is None else switch.child_by_field_name("condition")
    line = node.start_point[0] + 1
    if value is None or subject is None:
        return Guard(kind="case", test="default", negated=False, line=line)
    inner = subject.child_by_field_name("value") if subject.type == "condition_clause" else None
    subject = inner if inner is not None else subject
    shown = source(subject).removeprefix("(").removesuffix(")")
    return Guard(
        kind="case",
        test=f"{shown} == {source(value)}",
        negated=False,
        line=line,
        tree=compare(tree(subject), "==", tree(value)),
    )


def _arm_guard(node: Node) -> Guard:
    pattern = node.child_by_field_name("pattern")
    shown = source(pattern) if pattern is not None else "_"
    return Guard(kind="case", test=shown, negated=False, line=node.start_point[0] + 1)


def _preproc_guard(node: Node, child: Node) -> Guard | None:
    """`#ifdef X` / `#if COND` around the site: a condition of how it was compiled."""
    if node.type in ("preproc_ifdef", "preproc_elifdef"):
        name = node.child_by_field_name("name")
        if name is None or _include_guard(node, text(name)):
            return None
        negated = text(node).startswith(("#ifndef", "#elifndef"))
        if child == node.child_by_field_name("alternative"):
            negated = not negated
        test = Call(func=Name(id="defined"), args=(Name(id=text(name)),))
        return Guard(
            kind="if",
            test=f"defined({text(name)})",
            negated=negated,
            line=node.start_point[0] + 1,
            tree=test,
        )
    condition = node.child_by_field_name("condition")
    if condition is None or child == condition:
        return None
    return guard_of("if", condition, child == node.child_by_field_name("alternative"))


def _include_guard(node: Node, name: str) -> bool:
    """`#ifndef X_H` then `#define X_H`: a header read once, no condition of the code."""
    first = None
    for child in node.named_children:
        if child.type == "identifier":
            continue
        first = child
        break
    if first is None or first.type != "preproc_def":
        return False
    defined = first.child_by_field_name("name")
    return defined is not None and text(defined) == name


def _cfg_test(node: Node) -> bool:
    """A Rust item under `#[cfg(test)]`: the attributes just before it."""
    prev = node.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item" and "cfg(test)" in text(prev).replace(" ", ""):
            return True
        prev = prev.prev_named_sibling
    return False


def _plain_type(name: str) -> str:
    return name.split("<", 1)[0].strip()


def _function_of(fn: Node) -> tuple[str, dict[str, Param]]:
    """A function definition's name as written (`Foo::bar`) and its parameters."""
    if fn.type == "function_item":  # Rust
        name = fn.child_by_field_name("name")
        params = fn.child_by_field_name("parameters")
        out: dict[str, Param] = {}
        for p in () if params is None else params.named_children:
            if p.type == "parameter":
                pattern, typed = p.child_by_field_name("pattern"), p.child_by_field_name("type")
                if pattern is not None:
                    bound = text(pattern).removeprefix("mut ").strip()
                    out[bound] = Param(bound, None if typed is None else source(typed))
        return ("" if name is None else text(name)), out
    declarator = fn.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return "", {}
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    found: dict[str, Param] = {}
    for p in () if params is None else params.named_children:
        if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        inner = p.child_by_field_name("declarator")
        pname = _declared_name(inner)
        if pname is None:
            continue
        whole = source(p)
        default = p.child_by_field_name("default_value")
        if default is not None:
            whole = whole[: whole.rfind("=")].rstrip()
        shown = whole[: whole.rfind(pname)].strip() if whole.endswith(pname) else whole
        found[pname] = Param(pname, shown or None, None if default is None else source(default))
    return ("" if name is None else source(name)), found


def _declared_name(node: Node | None) -> str | None:
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return text(node)
        inner = node.child_by_field_name("declarator")
        if inner is None:
            named = [c for c in node.named_children if c.type in ("identifier", "field_identifier")]
            return text(named[-1]) if named else None
        node = inner
    return None


def inputs_of(trees: Iterable[Expr], place: Place) -> tuple[Input, ...]:
    """The function's parameters the condition and message read, and each property of
    one they read (`a.dtype()`, `t->ndim`), in reading order."""
    params = place.params
    if not params:
        return ()
    seen: dict[str, Input] = {}
    for expr in trees:
        for node in expr.walk():
            base = root(node)
            if base is None or base not in params:
                continue
            param = params[base]
            if isinstance(node, Name) and base not in seen:
                seen[base] = Input(
                    name=base,
                    expr=base,
                    kind="parameter",
                    owner=place.function,
                    type=param.type,
                    default=param.default,
                )
            prop = _property(node, base)
            if prop is not None:
                shown = node.source()
                if shown not in seen:
                    seen[shown] = Input(
                        name=prop,
                        expr=shown,
                        kind="property",
                        owner=param.type,
                    )
    called = {i.expr[:-2] for i in seen.values() if i.kind == "property" and i.expr.endswith("()")}
    return tuple(i for i in seen.values() if not (i.kind == "property" and i.expr in called))


def site_at(
    place: Place,
    *,
    form: str,
    raised: str,
    python_class: str | None,
    message: Message | None,
    file: str,
    language: str,
    lines: list[str],
    line: int,
    end_line: int,
    extra: tuple[Guard, ...] = (),
) -> NativeSite:
    """The site written at `line`..`end_line` of `file` (whose text is `lines`): guarded by
    the place's guards then `extra`, reading the inputs those guards and the message's
    holes read."""
    guards = tuple(place.guards) + extra
    trees: list[Expr] = [g.tree for g in guards if g.tree is not None]
    if message is not None:
        trees += [p.tree for p in message.parts if isinstance(p, Hole) and p.tree is not None]
    return NativeSite(
        form=form,
        raised=raised,
        python_class=python_class,
        message=message,
        location=Location(
            file=file, line=line, end_line=end_line, function=place.function, language=language
        ),
        snippet=snippet(lines, line, end_line),
        guard=guards,
        inputs=inputs_of(trees, place),
    )


def _property(node: Expr, base: str) -> str | None:
    """`dtype` of `a.dtype()` or `a.dtype` read on parameter `a` directly."""
    target = node.func if isinstance(node, Call) else node
    if isinstance(target, Attribute) and isinstance(target.value, Name) and target.value.id == base:
        return target.attr
    return None


def is_false(node: Node) -> bool:
    """A condition that never holds (`TORCH_CHECK(false, ...)`): no guard of its own."""
    got = tree(node)
    return isinstance(got, Constant) and got.value in (False, 0)
