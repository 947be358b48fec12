# Message templates from expressions: which parts of a message are fixed text and
# which are holes filled at run time. Only what is certain becomes text.
from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable, Mapping

from errdex.extract.render import Render, unparse
from errdex.model import Hole, Message, Part, Text

MAX_VARIANTS = 6  # templates kept for one message built along different branches

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
    return False


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

    def variants(self, node: ast.expr) -> list[Variant]:
        """All templates `node` may produce, with the line where each was built."""
        if isinstance(node, ast.Name) and node.id in self.env:
            return list(self.env[node.id])
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
        return Hole(expr=self.render(node), conversion=conversion, format_spec=spec)

    def parts_Constant(self, node: ast.Constant) -> list[Part] | None:
        if isinstance(node.value, str):
            return [Text(text=node.value)]
        return None

    def parts_Name(self, node: ast.Name) -> list[Part] | None:
        variants = self.env.get(node.id, ())
        if len(variants) == 1:
            return list(variants[0][0].parts)
        return None

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
            spec = _spec_text(value.format_spec)
        inner = value.value
        if conversion is None and spec is None and isinstance(inner, ast.JoinedStr):
            return self.parts_JoinedStr(inner)  # f"{f'...'}" is the inner f-string itself
        if conversion is None and spec is None and isinstance(inner, ast.Constant):
            return [Text(text=str(inner.value))]
        return [self.hole(inner, conversion, spec)]

    def parts_BinOp(self, node: ast.BinOp) -> list[Part] | None:
        if isinstance(node.op, ast.Add) and (is_stringish(node.left) or is_stringish(node.right)):
            return self.parts(node.left) + self.parts(node.right)
        left = node.left
        if isinstance(node.op, ast.Mod) and isinstance(left, ast.Constant):
            return self._percent(left.value, node.right) if isinstance(left.value, str) else None
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
        if not isinstance(func, ast.Attribute):
            return None
        base = func.value
        if func.attr == "format" and isinstance(base, ast.Constant) and isinstance(base.value, str):
            return self._format(base.value, node)
        return None

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
            out.append(Hole(expr=expr, conversion=conversion or None, format_spec=spec or None))
        return out


def _split_field(field: str) -> tuple[str, str]:
    """Split a str.format field name into its head and the `.attr` / `[key]` rest."""
    for i, char in enumerate(field):
        if char in ".[":
            return field[:i], field[i:]
    return field, ""


def _dict_items(node: ast.expr) -> dict[str, ast.expr] | None:
    if isinstance(node, ast.Dict):
        items: dict[str, ast.expr] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            items[key.value] = value
        return items
    return None


def _spec_text(spec: ast.JoinedStr) -> str:
    out: list[str] = []
    for value in spec.values:
        if isinstance(value, ast.Constant):
            out.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            out.append("{" + ast.unparse(value.value) + "}")
    return "".join(out)
