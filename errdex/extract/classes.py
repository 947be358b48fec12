# The text an exception class makes of its arguments, read from its body (never run):
# an __init__ that formats its parameters into `super().__init__(f"...")`, a __str__
# that adds a prefix or renders attributes, a class-level `message = "..."` template.
# The result is a recipe: a template whose holes name the __init__'s parameters (filled
# later from the arguments of each raise, see link.py), the message the raise passes
# (MESSAGE_HOLE), or a class-level string attribute (`self.message`, resolved through
# the raising class's bases).
from __future__ import annotations

import ast
import string
from collections.abc import Mapping
from dataclasses import replace

from errdex.expr import Attribute, Call, Name
from errdex.extract.facts import ArgFact
from errdex.extract.members import MESSAGE_PARAMS
from errdex.extract.render import Render
from errdex.extract.templates import (
    MAX_VARIANTS,
    TemplateBuilder,
    Variant,
    gettext_text,
    is_stringish,
    merge,
    percent_parts,
    spec_text,
)
from errdex.extract.trees import field_tree, tree_of
from errdex.model import Hole, Message, Part, Text

# The hole for what the raise passes as the message: the first positional argument, as
# BaseException.__str__ shows it.
MESSAGE_HOLE = "self.args[0]"
# The raise's first argument %-formatted with the others, as the hole's conversion:
# `self.args[0] % self.args[1:]` (dateutil's ParserError("Unknown string format: %s", s))
ARGS_FORMATTED = "%args"
# A class attribute formatted with the raise's keyword arguments, as the hole's conversion:
# `self.message.format(**kw)`, `self.message % kw`
FORMATTED = "format"
PERCENT = "%"
# Class-level names whose string the class's text may be built from.
TEMPLATE_ATTRS = frozenset(
    {
        "message",
        "msg",
        "msg_template",
        "message_template",
        "default_message",
        "default_detail",
        "description",
        # botocore's `fmt = "..."`, formatted by its base with the raise's keywords
        "fmt",
        "_fmt",
        "msg_fmt",
        "message_format",
        "template",
        "_template",
    }
)
_SUPER_STR = frozenset({"__str__", "__repr__"})


def class_strings(node: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    """The class-level string attributes a message may be built from (TEMPLATE_ATTRS)."""
    out: list[tuple[str, str]] = []
    for stmt in node.body:
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name) and target.id in TEMPLATE_ATTRS and value is not None:
            text = _constant_text(value)
            if text is not None:
                out.append((target.id, text))
    return tuple(out)


def _constant_text(node: ast.expr) -> str | None:
    """A string literal, or one passed through gettext (`_("...")`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return gettext_text(node)


def init_defaults(node: ast.ClassDef, render: Render) -> tuple[tuple[str, Message], ...]:
    """The text an __init__ gives a parameter left out: its default string, or `if
    message is None: message = "..."` at the top of its body (holes name its
    parameters)."""
    init = next(
        (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return ()
    out: list[tuple[str, Message]] = []
    builder = TemplateBuilder(render=render)
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d),
    ]
    for arg, default in pairs:  # `message: str = "Connection error."`
        if isinstance(default, ast.Constant) and isinstance(default.value, str):
            out.append((arg.arg, Message(parts=(Text(text=default.value),))))
    for stmt in init.body:
        match stmt:
            case ast.If(
                test=ast.Compare(
                    left=ast.Name(id=name), ops=[ast.Is()], comparators=[ast.Constant(value=None)]
                ),
                body=[ast.Assign(targets=[ast.Name(id=target)], value=value)],
                orelse=[],
            ) if name == target and builder.knows(value):
                out.append((name, builder.build(value)))
    return tuple(out)


def class_recipes(
    node: ast.ClassDef, render: Render, texts: Mapping[str, tuple[Variant, ...]] | None = None
) -> tuple[tuple[Message, int], ...]:
    """Each text the class makes of its arguments, with the line that makes it: one, or
    one per `return` of a __str__ that returns along several branches (pint's
    UndefinedUnitError: one unit, or several); () when it leaves the text to its base."""
    methods = {
        s.name: s for s in node.body if isinstance(s, ast.FunctionDef) and not s.decorator_list
    }
    own_strings = {name for name, _ in class_strings(node)}
    init = methods.get("__init__")
    attrs: dict[str, list[Part]] = {}
    from_init: list[Part] | None = None
    if init is not None:
        from_init, attrs = _read_init(init, render, own_strings, texts=texts)
    str_method = methods.get("__str__")
    from_str = (
        None
        if str_method is None
        else _read_str(str_method, render, attrs, from_init, init is not None)
    )
    if from_str is None:
        line = node.lineno if init is None else init.lineno
        from_str = [] if from_init is None else [(from_init, line)]
    if not any(_made_here(p) for parts, _ in from_str for p in parts):
        return ()  # nothing but what the raise passes: the raise's own text
    return tuple(
        (Message(parts=merge(parts), source="exception-class"), line) for parts, line in from_str
    )[:MAX_VARIANTS]


def _made_here(part: Part) -> bool:
    """Text the class itself contributes: a literal, a class-level string, or the
    raise's arguments formatted in a way of its own."""
    if isinstance(part, Text):
        return bool(part.text.strip())
    if part.conversion == ARGS_FORMATTED:
        return True
    return part.expr.startswith("self.") and part.expr[5:].isidentifier()


def class_delegation(node: ast.ClassDef, render: Render) -> tuple[ArgFact, ...] | None:
    """The arguments the class's __init__ hands its base's `__init__` (templates whose
    holes name its parameters), when it builds no text of its own; else None."""
    init = next(
        (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None
    )
    if init is None:
        return None
    passes: list[ArgFact] = []
    _read_init(init, render, set(), passes)
    return tuple(passes) if passes else None


def _read_init(
    init: ast.FunctionDef,
    render: Render,
    own_strings: set[str],
    passes: list[ArgFact] | None = None,
    texts: Mapping[str, tuple[Variant, ...]] | None = None,
) -> tuple[list[Part] | None, dict[str, list[Part]]]:
    """What __init__ hands its base as the message, and what it stores on `self`; the
    arguments of that call in `passes`, if given. `texts`: the module's constants of
    message text (`SUPPORT_MSG`)."""
    params = {a.arg for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]}
    kwargs = init.args.kwarg.arg if init.args.kwarg else None
    env: dict[str, tuple[Variant, ...]] = {
        k: v for k, v in (texts or {}).items() if k not in params
    }
    attrs: dict[str, list[Part]] = {}
    message: list[Part] | None = None
    builder = _Builder(env, render, attrs, kwargs)
    for stmt in init.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            value = stmt.value
            if value is None:
                continue
            if isinstance(target, ast.Name):
                if is_stringish(value) or _is_template_use(value):
                    env[target.id] = ((builder.build(value), stmt.lineno),)
                else:
                    env.pop(target.id, None)
            elif _is_self_attr(target):
                assert isinstance(target, ast.Attribute)
                if isinstance(value, ast.Name) and value.id in params and value.id not in env:
                    attrs[target.attr] = [Hole(expr=value.id, tree=Name(id=value.id))]
                elif isinstance(value, ast.Name) and len(env.get(value.id, ())) == 1:
                    attrs[target.attr] = list(env[value.id][0][0].parts)  # `self.message = message`
                elif is_stringish(value) or _is_template_use(value):
                    attrs[target.attr] = list(builder.build(value).parts)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if name in env and isinstance(stmt.op, ast.Add):
                tail = builder.build(stmt.value)
                env[name] = tuple(
                    (Message(parts=(*m.parts, *tail.parts)), line) for m, line in env[name]
                )
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            passed = _passed_to_base(stmt.value)
            if passed is not None and message is None and passes is not None:
                passes.extend(_base_arguments(stmt.value, builder))
            if passed is not None and message is None:
                if isinstance(passed, ast.Name) and passed.id in params and passed.id not in env:
                    message = [Hole(expr=passed.id, tree=Name(id=passed.id))]
                else:
                    message = list(builder.build(passed).parts)
    for name in own_strings:
        attrs.setdefault(name, [_self_hole(name)])
    return message, attrs


def _read_str(
    method: ast.FunctionDef,
    render: Render,
    attrs: dict[str, list[Part]],
    from_init: list[Part] | None,
    has_init: bool,
) -> list[tuple[list[Part], int]] | None:
    """The templates of what __str__ returns, with their lines: its last `return`, and
    each `if ...: return ...` before it (a `try:` that is the whole body: its block,
    what it returns when nothing fails). Text a variable is given and added to with
    `+=` is read; what an `if` without a return adds is left out (the shortest form).
    None when it returns along other paths (a loop, a `with`)."""
    body = [s for s in method.body if not _is_docstring(s)]
    if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody:
        body = body[0].body
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    message: list[Part] = [Hole(expr=MESSAGE_HOLE, tree=field_tree(MESSAGE_HOLE))]
    if from_init is not None:
        message = from_init
    elif has_init:  # an __init__ that hands its base nothing we read: text unknown
        message = [Hole(expr="super().__str__()", tree=_SUPER_STR_CALL)]
    env: dict[str, tuple[Variant, ...]] = {}
    builder = _Builder(env, render, attrs, None, message=message)
    out: list[tuple[list[Part], int]] = []

    def returned(value: ast.expr, line: int) -> None:
        for variant, _ in builder.variants(value):
            if all(variant.parts != tuple(parts) for parts, _ in out):
                out.append((list(variant.parts), line))

    for stmt in body[:-1]:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                value = stmt.value
                if builder.knows(value) or _message_of(value) or _is_template_use(value):
                    env[target.id] = ((builder.build(value), stmt.lineno),)
                else:
                    env.pop(target.id, None)
            continue
        if (
            isinstance(stmt, ast.AugAssign)
            and isinstance(stmt.op, ast.Add)
            and isinstance(stmt.target, ast.Name)
            and stmt.target.id in env
        ):
            tail = builder.build(stmt.value)
            name = stmt.target.id
            env[name] = tuple(
                (Message(parts=merge([*m.parts, *tail.parts])), ln) for m, ln in env[name]
            )
            continue
        returns = [n for n in ast.walk(stmt) if isinstance(n, ast.Return)]
        if not returns:
            continue  # `if self.screen: msg += ...`: left out
        if not (
            isinstance(stmt, ast.If)
            and len(returns) == 1
            and stmt.body
            and stmt.body[-1] is returns[0]
            and returns[0].value is not None
        ):
            return None  # returns along other paths: not templates we read
        returned(returns[0].value, returns[0].lineno)
    last = body[-1]
    assert isinstance(last, ast.Return) and last.value is not None
    returned(last.value, last.lineno)
    return out


class _Builder(TemplateBuilder):
    """A TemplateBuilder that reads `self.attr` through what __init__ stored, and the
    message the class was given (`self.args[0]`, `super().__str__()`) as one part."""

    def __init__(
        self,
        env: dict[str, tuple[Variant, ...]],
        render: Render,
        attrs: dict[str, list[Part]],
        kwargs: str | None,
        message: list[Part] | None = None,
    ):
        super().__init__(env, render=render)
        self.attrs = attrs
        self.kwargs = kwargs
        self.message = message

    def _formatted(self, value: ast.FormattedValue) -> list[Part]:
        inner = value.value
        mine = None
        if isinstance(inner, ast.Attribute):
            mine = self.parts_Attribute(inner)
        elif isinstance(inner, ast.Subscript | ast.Call):
            mine = self.parts_Subscript(inner) if isinstance(inner, ast.Subscript) else None
            if mine is None and isinstance(inner, ast.Call) and _message_of(inner):
                mine = self.message
        if mine is None:
            return super()._formatted(value)
        if value.conversion == -1 and value.format_spec is None:
            return list(mine)
        if len(mine) == 1 and isinstance(mine[0], Hole) and mine[0].conversion is None:
            conversion = {115: "s", 114: "r", 97: "a"}.get(value.conversion)
            spec = None
            if isinstance(value.format_spec, ast.JoinedStr):
                spec = spec_text(value.format_spec)
            return [replace(mine[0], conversion=conversion, format_spec=spec)]
        return super()._formatted(value)

    def parts_Attribute(self, node: ast.Attribute) -> list[Part] | None:
        if _is_self_attr(node) and node.attr in self.attrs:
            return list(self.attrs[node.attr])
        return None

    def parts_Subscript(self, node: ast.Subscript) -> list[Part] | None:
        if self.message is not None and _message_of(node):
            return list(self.message)
        return None

    def parts_Call(self, node: ast.Call) -> list[Part] | None:
        if self.message is not None and _message_of(node):
            return list(self.message)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
            return self.parts(node.args[0])
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "format"
            and _is_self_attr(func.value)
            and not node.args
            and all(k.arg is None for k in node.keywords)
        ):
            # self.message.format(**kwargs): the attribute, filled by name at each raise
            assert isinstance(func.value, ast.Attribute)
            return [_self_hole(func.value.attr, FORMATTED)]
        return super().parts_Call(node)

    def parts_BinOp(self, node: ast.BinOp) -> list[Part] | None:
        if isinstance(node.op, ast.Mod) and _message_of(node.left) and _rest_of_args(node.right):
            return [Hole(expr=MESSAGE_HOLE, conversion=ARGS_FORMATTED, tree=_ARGS0)]
        if isinstance(node.op, ast.Mod) and _is_self_attr(node.left):
            assert isinstance(node.left, ast.Attribute)
            return [_self_hole(node.left.attr, PERCENT)]
        return super().parts_BinOp(node)


def _message_of(node: ast.expr) -> bool:
    """`self.args[0]`, `super().__str__()`, `Exception.__str__(self)`: the base's text."""
    match node:
        case ast.Subscript(
            value=ast.Attribute(value=ast.Name(id="self"), attr="args"),
            slice=ast.Constant(value=0),
        ):
            return True
        case ast.Call(func=ast.Attribute(attr=attr, value=value)) if attr in _SUPER_STR:
            return (isinstance(value, ast.Call) and _is_super(value)) or (
                isinstance(value, ast.Name | ast.Attribute)
                and bool(node.args)
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id == "self"
            )
    return False


def _rest_of_args(node: ast.expr) -> bool:
    """`self.args[1:]`."""
    match node:
        case ast.Subscript(
            value=ast.Attribute(value=ast.Name(id="self"), attr="args"),
            slice=ast.Slice(lower=ast.Constant(value=1), upper=None, step=None),
        ):
            return True
    return False


def _is_template_use(node: ast.expr) -> bool:
    """`self.message.format(...)` or `self.message % ...`."""
    match node:
        case ast.Call(func=ast.Attribute(attr="format", value=value)):
            return _is_self_attr(value)
        case ast.BinOp(op=ast.Mod(), left=left):
            return _is_self_attr(left)
    return False


def _is_self_attr(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _is_super(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "super"


def _passed_to_base(call: ast.Call) -> ast.expr | None:
    """The first argument of `super().__init__(X)`, `Base.__init__(self, X)`."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return None
    args = list(call.args)
    if isinstance(func.value, ast.Call) and _is_super(func.value):
        pass
    elif args and isinstance(args[0], ast.Name) and args[0].id == "self":
        args = args[1:]
    else:
        return None
    if not args:  # `super().__init__(message="...", request=request)`
        return next((k.value for k in call.keywords if k.arg in MESSAGE_PARAMS), None)
    if isinstance(args[0], ast.Starred):
        return None
    return args[0]


def _base_arguments(call: ast.Call, builder: TemplateBuilder) -> list[ArgFact]:
    """The arguments of `super().__init__(...)` (without `self` for `Base.__init__`)."""
    args = list(call.args)
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call)):
        args = args[1:]
    if any(isinstance(a, ast.Starred) for a in args):
        return []
    out = [_argument(None, a, builder) for a in args]
    for k in call.keywords:
        if k.arg is not None:
            out.append(_argument(k.arg, k.value, builder))
    return out


def _argument(keyword: str | None, node: ast.expr, builder: TemplateBuilder) -> ArgFact:
    source = builder.render(node)
    return ArgFact(keyword=keyword, template=builder.build(node), source=source, tree=tree_of(node))


_ARGS0 = field_tree(MESSAGE_HOLE)
_SUPER_STR_CALL = Call(func=Attribute(value=Call(func=Name(id="super")), attr="__str__"))


def _self_hole(attr: str, conversion: str | None = None) -> Hole:
    """The hole `self.attr`, with its tree."""
    tree = Attribute(value=Name(id="self"), attr=attr)
    return Hole(expr="self." + attr, conversion=conversion, tree=tree)


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def template_fields(text: str, style: str) -> list[Part]:
    """A class-level template as parts: `{name}` (str.format) or `%(name)s` fields
    become holes named by the keyword that fills them."""
    if style == PERCENT:
        return percent_parts(text)
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return [Text(text=text)]
    out: list[Part] = []
    for literal, field, spec, conversion in fields:
        out.append(Text(text=literal))
        if field is not None:
            spec = spec or None
            tree = field_tree(field)
            out.append(Hole(expr=field, conversion=conversion or None, format_spec=spec, tree=tree))
    return out
