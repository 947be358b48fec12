# What a class or module declares that users set: fields (dataclass, pydantic, attrs),
# properties, instance attributes and module constants, with type, default and doc.
from __future__ import annotations

import ast

from errdex.extract.facts import MemberFact
from errdex.extract.render import Render, unparse

MESSAGE_PARAMS = (
    "message",
    "msg",
    "detail",
    "details",
    "reason",
    "description",
    "error_message",
    "err_msg",
    "text",
)
_FIELD_CALLS = {
    "field",
    "Field",
    "ib",
    "attrib",
    "attr.ib",
    "dataclasses.field",
    "pydantic.Field",
    "attrs.field",
    "msgspec.field",
}
_PROPERTY_DECORATORS = {"property", "cached_property", "functools.cached_property"}


def string_after(body: list[ast.stmt], index: int) -> str | None:
    """The attribute docstring: a string literal right after statement `index`."""
    if index + 1 < len(body):
        nxt = body[index + 1]
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            value = nxt.value.value
            return clean_doc(value) if isinstance(value, str) else None
    return None


def clean_doc(doc: str) -> str:
    lines = doc.expandtabs().splitlines()
    if not lines:
        return ""
    rest = [line for line in lines[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    out = [lines[0].strip(), *(line[indent:].rstrip() for line in lines[1:])]
    return "\n".join(out).strip()


def _field_default(value: ast.expr, render: Render) -> tuple[str | None, str | None]:
    """Default and description of `field(...)` / `Field(...)` calls, else the value itself."""
    if isinstance(value, ast.Call) and render(value.func) in _FIELD_CALLS:
        default: str | None = None
        doc: str | None = None
        if value.args and not isinstance(value.args[0], ast.Starred):
            default = render(value.args[0])
        for kw in value.keywords:
            if kw.arg == "default":
                default = render(kw.value)
            elif kw.arg in ("default_factory", "factory"):
                default = render(kw.value) + "()"
            elif kw.arg == "description" and isinstance(kw.value, ast.Constant):
                doc = str(kw.value.value)
        return default, doc
    return render(value), None


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef, render: Render) -> bool:
    return any(render(d) in _PROPERTY_DECORATORS for d in node.decorator_list)


def class_members(node: ast.ClassDef, render: Render = unparse) -> list[MemberFact]:
    """Fields, properties and class attributes of a class body, then `self.x` of __init__."""
    members: dict[str, MemberFact] = {}
    body = node.body
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            default, described = (
                (None, None) if stmt.value is None else _field_default(stmt.value, render)
            )
            members[stmt.target.id] = MemberFact(
                name=stmt.target.id,
                kind="field",
                type=render(stmt.annotation),
                default=default,
                doc=string_after(body, index) or described,
                line=stmt.lineno,
            )
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                default, described = _field_default(stmt.value, render)
                members[target.id] = MemberFact(
                    name=target.id,
                    kind="attribute",
                    type=None,
                    default=default,
                    doc=string_after(body, index) or described,
                    line=stmt.lineno,
                )
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and _is_property(
            stmt, render
        ):
            doc = ast.get_docstring(stmt)
            members.setdefault(
                stmt.name,
                MemberFact(
                    name=stmt.name,
                    kind="property",
                    type=None if stmt.returns is None else render(stmt.returns),
                    default=None,
                    doc=None if doc is None else clean_doc(doc),
                    line=stmt.lineno,
                ),
            )
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name in ("__init__", "__post_init__"):
            for name, member in _instance_attributes(stmt, render).items():
                members.setdefault(name, member)
    return list(members.values())


def _instance_attributes(init: ast.FunctionDef, render: Render) -> dict[str, MemberFact]:
    found: dict[str, MemberFact] = {}
    body = init.body
    for index, stmt in enumerate(body):
        target: ast.expr | None = None
        annotation: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
        elif isinstance(stmt, ast.AnnAssign):
            target, annotation = stmt.target, stmt.annotation
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and target.attr not in found
        ):
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            found[target.attr] = MemberFact(
                name=target.attr,
                kind="attribute",
                type=None if annotation is None else render(annotation),
                default=None if value is None else render(value),
                doc=string_after(body, index),
                line=stmt.lineno,
            )
    return found


def init_signature(node: ast.ClassDef) -> tuple[tuple[str, ...], str | None]:
    """Positional parameters of the class's own __init__ and the one carrying the message."""
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            args = stmt.args
            params = tuple(a.arg for a in [*args.posonlyargs, *args.args][1:])
            names = params + tuple(a.arg for a in args.kwonlyargs)
            for candidate in MESSAGE_PARAMS:
                if candidate in names:
                    return params, candidate
            return params, _passed_to_super(stmt, names)
    return (), None


def _passed_to_super(init: ast.FunctionDef, names: tuple[str, ...]) -> str | None:
    """The parameter an __init__ hands on as `super().__init__(param)`, if any."""
    for stmt in init.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            continue
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr == "__init__" and stmt.value.args:
            first = stmt.value.args[0]
            if isinstance(first, ast.Name) and first.id in names:
                return first.id
    return None


def module_constants(tree: ast.Module, render: Render = unparse) -> list[MemberFact]:
    """Module-level names assigned once in UPPER_CASE: the settings of a module."""
    out: list[MemberFact] = []
    body = tree.body
    for index, stmt in enumerate(body):
        target: ast.expr | None = None
        annotation: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, annotation, value = stmt.target, stmt.annotation, stmt.value
        if isinstance(target, ast.Name) and target.id.lstrip("_").isupper():
            out.append(
                MemberFact(
                    name=target.id,
                    kind="constant",
                    type=None if annotation is None else render(annotation),
                    default=None if value is None else _short(render(value)),
                    doc=string_after(body, index),
                    line=stmt.lineno,
                )
            )
    return out


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
