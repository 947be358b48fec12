# Message templates from expressions: which parts of a message are fixed text and
# which are holes filled at run time. Only what is certain becomes text.
from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import replace

from errdex.expr import Name
from errdex.extract.facts import ArgFact
from errdex.extract.render import Render, unparse
from errdex.extract.trees import field_tree, tree_of
from errdex.model import Hole, Message, Part, Text

MAX_VARIANTS = 6  # templates kept for one message built along different branches
MAX_ITEMS = 16  # templates kept for the items of one list of messages joined later
# The env key of a list whose items are message texts: `problems` -> `problems[]`
ITEMS = "[]"
# The env key that marks a list of messages holding items we do not read besides them
# (`errors = self._validate()`, then `errors.append(...)`): `errors` -> `errors[?]`
OPEN_ITEMS = "[?]"
# The env key of a module-level dict whose values are message texts: `ERRORS` -> `ERRORS{}`
VALUES = "{}"
_DEDENT = frozenset({"dedent", "textwrap.dedent", "cleandoc", "inspect.cleandoc"})
_STRIP = frozenset({"strip", "rstrip", "lstrip"})

# A template for a local variable, and the line where the text was first assigned.
Variant = tuple[Message, int]
Env = Mapping[str, tuple[Variant, ...]]

NO_ENV: Env = {}

# %-format: %% or %[(key)][flags][width][.precision][length]type, as printf-style docs.
_PERCENT = re.compile(
    r"%(?:(%)|(?:\((?P<key>[^)]*)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?"
    r"(?P<type>[diouxXeEfFgGcrsa]))"
)
_CONVERSIONS = {-1: None, 115: "s", 114: "r", 97: "a"}


def merge(parts: list[Part]) -> tuple[Part, ...]:
    """Join adjacent literal parts and drop empty ones."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Text):
            if not part.text:
                continue
            if out and isinstance(out[-1], Text):
                out[-1] = Text(text=out[-1].text + part.text)
                continue
        out.append(part)
    return tuple(out)


def is_stringish(node: ast.expr) -> bool:
    """True when `node` certainly evaluates to a str built from text we can read."""
    match node:
        case ast.Constant(value=str()) | ast.JoinedStr():
            return True
        case ast.BinOp(op=ast.Add(), left=left, right=right):
            return is_stringish(left) or is_stringish(right)
        case ast.BinOp(op=ast.Mod(), left=ast.Constant(value=str())):
            return True
        case ast.Call(func=ast.Attribute(value=ast.Constant(value=str()), attr="format" | "join")):
            return True
        case ast.Call(func=ast.Attribute(value=ast.Call() as inner, attr="format")):
            return gettext_text(inner) is not None
        case ast.Call():
            return gettext_text(node) is not None
    return False


_GETTEXT = frozenset({"_", "gettext", "gettext_lazy", "ugettext", "ugettext_lazy", "_lazy"})


def gettext_text(node: ast.expr) -> str | None:
    """The literal of `_("...")` and the other gettext spellings, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _GETTEXT
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


class TemplateBuilder:
    """Turns a message expression into literal parts and holes.

    `env` gives the templates a local variable may hold at this point; `on_hole` sees
    every expression that becomes a hole, so callers can collect the names it reads.
    """

    def __init__(
        self,
        env: Env = NO_ENV,
        on_hole: Callable[[ast.expr], None] | None = None,
        render: Render = unparse,
    ):
        self.env = env
        self.on_hole = on_hole
        self.render = render

    def knows(self, node: ast.expr) -> bool:
        """True when `node` is text this builder can read: a literal form (is_stringish),
        a variable holding one, or one formatted or joined."""
        match node:
            case ast.Name(id=name):
                return name in self.env
            case ast.BinOp(op=ast.Mod(), left=ast.Name(id=name)):
                return self._static(name) is not None
            case ast.Call(func=ast.Attribute(value=ast.Name(id=name), attr="format")):
                return self._static(name) is not None
            case ast.Call(func=ast.Attribute(attr="join"), args=[ast.Name(id=name)]):
                return name + ITEMS in self.env
        if self._looked_up(node) is not None:
            return True
        either = _either(node)
        if either is not None:
            return any(self.knows(side) for side in either)
        return is_stringish(node)

    def _static(self, name: str) -> str | None:
        """The text of a variable that holds one template without holes."""
        variants = self.env.get(name, ())
        if len(variants) == 1 and variants[0][0].static:
            return variants[0][0].literal_text
        return None

    def variants(self, node: ast.expr) -> list[Variant]:
        """All templates `node` may produce, with the line where each was built."""
        if isinstance(node, ast.Name) and node.id in self.env:
            return list(self.env[node.id])
        joined = self._joined(node)
        if joined is not None:
            return joined
        looked_up = self._looked_up(node)
        if looked_up is not None:
            return looked_up
        inner = _only_value(node)
        if inner is not None:  # f"{text}": the text itself
            return self.variants(inner)
        either = _either(node)
        if either is not None and any(self.knows(e) for e in either):
            # `reason or "default"`, `a if test else b`: each side is one template
            out: dict[str, Variant] = {}
            for side in either:
                for variant in self.variants(side):
                    out.setdefault(variant[0].text, variant)
            return list(out.values())[:MAX_VARIANTS]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            lefts = self.variants(node.left)
            rights = self.variants(node.right)
            if len(lefts) * len(rights) > 1:
                return [
                    (Message(parts=merge([*lm.parts, *rm.parts])), ll)
                    for lm, ll in lefts
                    for rm, _ in rights
                ][:MAX_VARIANTS]
        return [(self.build(node), node.lineno)]

    def _looked_up(self, node: ast.expr) -> list[Variant] | None:
        """`TABLE[key]`, `TABLE.get(key)` of a module-level dict of message texts: one
        template per value."""
        match node:
            case (
                ast.Subscript(value=ast.Name(id=name))
                | ast.Call(func=ast.Attribute(value=ast.Name(id=name), attr="get"), args=[_])
            ) if name + VALUES in self.env:
                return list(self.env[name + VALUES])
        return None

    def _joined(self, node: ast.expr) -> list[Variant] | None:
        """`sep.join(items)` of a list whose items we read: one template per item, with
        a hole on either side for the items joined before and after it."""
        match node:
            case ast.Call(
                func=ast.Attribute(value=ast.Constant(value=str()), attr="join"),
                args=[ast.Name(id=name)],
            ) if name + ITEMS in self.env:
                items = self.env[name + ITEMS]
            case _:
                return None
        if not items:
            return None
        around = Hole(expr=name, tree=Name(id=name))
        out: list[Variant] = []
        for item, line in items:
            parts = item.parts
            if len(items) > 1 or name + OPEN_ITEMS in self.env:
                # the holes take the separators and the other items: any may come first
                parts = (around, *parts, around)
            out.append((Message(parts=merge(list(parts)), source="joined-list"), line))
        return out

    def build(self, node: ast.expr) -> Message:
        return Message(parts=merge(self.parts(node)))

    def parts(self, node: ast.expr) -> list[Part]:
        method = getattr(self, "parts_" + type(node).__name__, None)
        if method is not None:
            result: list[Part] | None = method(node)
            if result is not None:
                return result
        return [self.hole(node)]

    def hole(self, node: ast.expr, conversion: str | None = None, spec: str | None = None) -> Hole:
        if self.on_hole is not None:
            self.on_hole(node)
        return Hole(
            expr=self.render(node), conversion=conversion, format_spec=spec, tree=tree_of(node)
        )

    def parts_Constant(self, node: ast.Constant) -> list[Part] | None:
        if isinstance(node.value, str):
            return [Text(text=node.value)]
        if isinstance(node.value, int | float) or node.value is None:
            return [Text(text=str(node.value))]  # `Coded(3, ...)`: str(3) is "3"
        return None

    def parts_Name(self, node: ast.Name) -> list[Part] | None:
        variants = self.env.get(node.id, ())
        if len(variants) == 1:
            return list(variants[0][0].parts)
        return None

    def parts_Tuple(self, node: ast.Tuple) -> list[Part] | None:
        """A tuple as str() shows it, when it holds text (`assert ok, ("bad %s", x)`,
        `raise ValueError("bad", x)`): `('bad %s', 'x')`, each value that is not a
        literal a hole shown by its repr."""
        elements = node.elts
        if not elements or not any(self.knows(e) for e in elements):
            return None
        if any(isinstance(e, ast.Starred) for e in elements):
            return None
        out: list[Part] = [Text(text="(")]
        for i, element in enumerate(elements):
            if i:
                out.append(Text(text=", "))
            if isinstance(element, ast.Constant) and isinstance(element.value, str | int):
                out.append(Text(text=repr(element.value)))
            elif self.knows(element):  # text with holes: quoted as repr quotes most text
                out += [Text(text="'"), *self.parts(element), Text(text="'")]
            else:
                out.append(self.hole(element, "r"))
        out.append(Text(text=",)" if len(elements) == 1 else ")"))
        return out

    def parts_JoinedStr(self, node: ast.JoinedStr) -> list[Part]:
        out: list[Part] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                out.append(Text(text=str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                out.extend(self._formatted(value))
        return out

    def _formatted(self, value: ast.FormattedValue) -> list[Part]:
        conversion = _CONVERSIONS.get(value.conversion)
        spec = None
        if isinstance(value.format_spec, ast.JoinedStr):
            spec = spec_text(value.format_spec)
        inner = value.value
        if conversion is None and spec is None and isinstance(inner, ast.JoinedStr):
            return self.parts_JoinedStr(inner)  # f"{f'...'}" is the inner f-string itself
        if conversion is None and spec is None and isinstance(inner, ast.Constant):
            return [Text(text=str(inner.value))]
        if conversion is None and spec is None and isinstance(inner, ast.Name):
            known = self.parts_Name(inner)  # f"{msg} ..." of a variable holding text
            if known is not None:
                return known
        return [self.hole(inner, conversion, spec)]

    def parts_BinOp(self, node: ast.BinOp) -> list[Part] | None:
        if isinstance(node.op, ast.Add) and (self.knows(node.left) or self.knows(node.right)):
            return self.parts(node.left) + self.parts(node.right)
        left = node.left
        if isinstance(node.op, ast.Mod) and isinstance(left, ast.Constant):
            return self._percent(left.value, node.right) if isinstance(left.value, str) else None
        if isinstance(node.op, ast.Mod) and isinstance(left, ast.Name):
            fmt = self._static(left.id)
            return None if fmt is None else self._percent(fmt, node.right)
        return None

    def _percent(self, fmt: str, args: ast.expr) -> list[Part] | None:
        if isinstance(args, ast.Tuple):
            positional: list[ast.expr] = list(args.elts)
        else:
            positional = [args]
        keyed = _dict_items(args)
        out: list[Part] = []
        pos = 0
        end = 0
        for m in _PERCENT.finditer(fmt):
            out.append(Text(text=fmt[end : m.start()]))
            end = m.end()
            if m.group(1):
                out.append(Text(text="%"))
                continue
            conversion = "r" if m.group("type") == "r" else None
            key = m.group("key")
            if key is not None:
                if keyed is None or key not in keyed:
                    return None
                out.append(self._arg_part(keyed[key], conversion))
            else:
                if any(s == "*" for s in m.group(0)) or pos >= len(positional):
                    return None
                if isinstance(positional[pos], ast.Starred):
                    return None
                out.append(self._arg_part(positional[pos], conversion))
                pos += 1
        out.append(Text(text=fmt[end:]))
        return out

    def _arg_part(self, node: ast.expr, conversion: str | None) -> Part:
        if conversion is None and isinstance(node, ast.Constant) and isinstance(node.value, str):
            return Text(text=node.value)
        return self.hole(node, conversion)

    def parts_Call(self, node: ast.Call) -> list[Part] | None:
        func = node.func
        text = gettext_text(node)
        if text is not None:
            return [Text(text=text)]
        if isinstance(func, ast.Attribute) and func.attr == "format":
            text = gettext_text(func.value)
            if text is not None:
                return self._format(text, node)
        if isinstance(func, ast.Name | ast.Attribute) and ast.unparse(func) in _DEDENT:
            return self.parts_Call_dedent(node)
        if not isinstance(func, ast.Attribute):
            return None
        base = func.value
        if func.attr == "format" and isinstance(base, ast.Constant) and isinstance(base.value, str):
            return self._format(base.value, node)
        if func.attr == "format" and isinstance(base, ast.Name):
            fmt = self._static(base.id)
            return None if fmt is None else self._format(fmt, node)
        if func.attr in _STRIP and not node.args and self.knows(base):
            return self.parts(base)  # the matcher compares text without outer whitespace
        return None

    def parts_Call_dedent(self, node: ast.Call) -> list[Part] | None:
        """`textwrap.dedent(X)`, `inspect.cleandoc(X)`: X, its literal lines dedented."""
        if len(node.args) != 1 or node.keywords or not self.knows(node.args[0]):
            return None
        parts = self.parts(node.args[0])
        if all(isinstance(p, Text) for p in parts):
            import inspect

            text = "".join(p.text for p in parts if isinstance(p, Text))
            return [Text(text=inspect.cleandoc(text))]
        return parts  # the matcher folds whitespace: indentation does not count

    def _format(self, fmt: str, call: ast.Call) -> list[Part] | None:
        if any(isinstance(a, ast.Starred) for a in call.args):
            return None
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if any(k.arg is None for k in call.keywords):
            return None
        out: list[Part] = []
        auto = 0
        try:
            fields = list(string.Formatter().parse(fmt))
        except ValueError:
            return None
        for literal, field, spec, conversion in fields:
            out.append(Text(text=literal))
            if field is None:
                continue
            head, rest = _split_field(field)
            if head == "":
                index: int | str = auto
                auto += 1
            elif head.isdigit():
                index = int(head)
            else:
                index = head
            if isinstance(index, int):
                if index >= len(call.args):
                    return None
                arg = call.args[index]
            else:
                if index not in keywords:
                    return None
                arg = keywords[index]
            if spec and "{" in spec:
                return None
            if not rest and not conversion and not spec and isinstance(arg, ast.Constant):
                out.append(Text(text=str(arg.value)))
                continue
            expr = self.render(arg) + rest
            if self.on_hole is not None:
                self.on_hole(arg)
            tree = field_tree(rest, tree_of(arg))
            out.append(
                Hole(expr=expr, conversion=conversion or None, format_spec=spec or None, tree=tree)
            )
        return out


def with_fields(message: Message) -> Message:
    """`message` with the `{name}` fields of its literal text as holes named so: a
    template that something fills later by name (`PydanticCustomError`'s)."""
    parts: list[Part] = []
    for part in message.parts:
        if isinstance(part, Hole):
            parts.append(part)
            continue
        try:
            fields = list(string.Formatter().parse(part.text))
        except ValueError:
            parts.append(part)
            continue
        for literal, field, spec, conversion in fields:
            parts.append(Text(text=literal))
            if field is not None:
                tree = field_tree(field)
                parts.append(
                    Hole(
                        expr=field,
                        conversion=conversion or None,
                        format_spec=spec or None,
                        tree=tree,
                    )
                )
    return replace(message, parts=merge(parts))


def percent_parts(fmt: str) -> list[Part]:
    """A %-format string on its own: `%(name)s` fields become holes named by their key,
    positional ones holes named by their place (`%s` -> `{0}`)."""
    out: list[Part] = []
    end = 0
    pos = 0
    for m in _PERCENT.finditer(fmt):
        out.append(Text(text=fmt[end : m.start()]))
        end = m.end()
        if m.group(1):
            out.append(Text(text="%"))
            continue
        conversion = "r" if m.group("type") == "r" else None
        key = m.group("key")
        if key is None:
            key, pos = str(pos), pos + 1
        out.append(Hole(expr=key, conversion=conversion, tree=field_tree(key)))
    out.append(Text(text=fmt[end:]))
    return out


def _split_field(field: str) -> tuple[str, str]:
    """Split a str.format field name into its head and the `.attr` / `[key]` rest."""
    for i, char in enumerate(field):
        if char in ".[":
            return field[:i], field[i:]
    return field, ""


def _only_value(node: ast.expr) -> ast.expr | None:
    """X of `f"{X}"`: an f-string that is one value, with no conversion or format."""
    match node:
        case ast.JoinedStr(
            values=[ast.FormattedValue(value=inner, conversion=-1, format_spec=None)]
        ):
            return inner
    return None


def _either(node: ast.expr) -> list[ast.expr] | None:
    """The values `a or b` and `a if test else b` give, else None."""
    match node:
        case ast.BoolOp(op=ast.Or(), values=values):
            return list(values)
        case ast.IfExp(body=body, orelse=orelse):
            return [body, orelse]
    return None


def _dict_items(node: ast.expr) -> dict[str, ast.expr] | None:
    if isinstance(node, ast.Dict):
        items: dict[str, ast.expr] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            items[key.value] = value
        return items
    return None


def spec_text(spec: ast.JoinedStr) -> str:
    out: list[str] = []
    for value in spec.values:
        if isinstance(value, ast.Constant):
            out.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            out.append("{" + ast.unparse(value.value) + "}")
    return "".join(out)


def fill_params(params: tuple[str, ...], template: Message, args: tuple[ArgFact, ...]) -> Message:
    """A function's template with each hole of a parameter (`{p}`, `{p.attr}`) replaced
    by what a call passes for it: its template, or its source with the rest."""
    by_name = {a.keyword: a for a in args if a.keyword}
    positional = [a for a in args if a.keyword is None]
    values: dict[str, ArgFact] = {}
    for index, param in enumerate(params):
        if param in by_name:
            values[param] = by_name[param]
        elif index < len(positional):
            values[param] = positional[index]
    parts: list[Part] = []
    for part in template.parts:
        if isinstance(part, Text):
            parts.append(part)
            continue
        head, rest = _split_field(part.expr)
        arg = values.get(head)
        if arg is None or (rest and rest[:1] not in ".["):
            parts.append(part)
        elif not rest and part.conversion is None and part.format_spec is None:
            parts.extend(arg.template.parts)
        else:
            parts.append(
                Hole(
                    expr=arg.source + rest,
                    conversion=part.conversion,
                    format_spec=part.format_spec,
                    tree=field_tree(rest, arg.tree) if rest else arg.tree,
                )
            )
    return Message(parts=merge(parts))
