# What a class or module declares that users set: fields (dataclass, pydantic, attrs),
# properties, instance attributes and module constants, with type, default and doc.
from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from typing import Any

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
# Classes from outside the tree whose message is not their first argument: the
# parameter that carries it and its place, and whether `{name}` fields in it are filled
# later (pydantic_core formats `message_template` with the context it is given).
KNOWN_MESSAGE_ARGS: dict[str, tuple[str, int, bool]] = {
    "fastapi.HTTPException": ("detail", 1, False),
    "fastapi.exceptions.HTTPException": ("detail", 1, False),
    "starlette.exceptions.HTTPException": ("detail", 1, False),
    "starlette.HTTPException": ("detail", 1, False),
    "pydantic_core.PydanticCustomError": ("message_template", 1, True),
    "pydantic_core._pydantic_core.PydanticCustomError": ("message_template", 1, True),
    "pydantic_core.core_schema.PydanticCustomError": ("message_template", 1, True),
}
# An exit status is no message: SystemExit(1) prints nothing; SystemExit("text") does.
EXIT_CLASSES = frozenset({"SystemExit", "builtins.SystemExit"})
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
        rule = _CLASS_BODY.get(type(stmt).__name__)
        member = None if rule is None else rule(stmt, body, index, render)
        if member is None:
            continue  # any other statement (methods, nested classes, ...) sets nothing
        if member.kind == "property":  # a field or attribute of the same name wins
            members.setdefault(member.name, member)
        else:
            members[member.name] = member
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name in ("__init__", "__post_init__"):
            for name, member in _instance_attributes(stmt, render).items():
                members.setdefault(name, member)
    return list(members.values())


def _field(
    stmt: ast.AnnAssign, body: list[ast.stmt], index: int, render: Render
) -> MemberFact | None:
    """`name: type [= default]` in a class body: a field."""
    if not isinstance(stmt.target, ast.Name):
        return None
    default, described = (None, None) if stmt.value is None else _field_default(stmt.value, render)
    return MemberFact(
        name=stmt.target.id,
        kind="field",
        type=render(stmt.annotation),
        default=default,
        doc=string_after(body, index) or described,
        line=stmt.lineno,
    )


def _class_attribute(
    stmt: ast.Assign, body: list[ast.stmt], index: int, render: Render
) -> MemberFact | None:
    """`name = value` in a class body: an attribute without a declared type."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return None
    default, described = _field_default(stmt.value, render)
    return MemberFact(
        name=stmt.targets[0].id,
        kind="attribute",
        type=None,
        default=default,
        doc=string_after(body, index) or described,
        line=stmt.lineno,
    )


def _property(
    stmt: ast.FunctionDef | ast.AsyncFunctionDef, body: list[ast.stmt], index: int, render: Render
) -> MemberFact | None:
    """A method decorated as a property; other methods are not members."""
    if not _is_property(stmt, render):
        return None
    doc = ast.get_docstring(stmt)
    return MemberFact(
        name=stmt.name,
        kind="property",
        type=None if stmt.returns is None else render(stmt.returns),
        default=None,
        doc=None if doc is None else clean_doc(doc),
        line=stmt.lineno,
    )


# What each kind of statement in a class body declares, by node type name.
_CLASS_BODY: dict[str, Callable[[Any, list[ast.stmt], int, Render], MemberFact | None]] = {
    "AnnAssign": _field,
    "Assign": _class_attribute,
    "FunctionDef": _property,
    "AsyncFunctionDef": _property,
}


# A one-target assignment as (target, annotation, value).
Assigned = tuple[ast.expr, ast.expr | None, ast.expr | None]


def _assigned(stmt: ast.stmt) -> Assigned | None:
    """(target, annotation, value) of a one-target assignment, else None."""
    rule = _ASSIGNMENTS.get(type(stmt).__name__)
    return None if rule is None else rule(stmt)  # other statements assign nothing


def _plain_assignment(stmt: ast.Assign) -> Assigned | None:
    return (stmt.targets[0], None, stmt.value) if len(stmt.targets) == 1 else None


def _annotated_assignment(stmt: ast.AnnAssign) -> Assigned:
    return stmt.target, stmt.annotation, stmt.value


_ASSIGNMENTS: dict[str, Callable[[Any], Assigned | None]] = {
    "Assign": _plain_assignment,
    "AnnAssign": _annotated_assignment,
}


def _instance_attributes(init: ast.FunctionDef, render: Render) -> dict[str, MemberFact]:
    """`self.x = value` of an __init__; an attribute set from a parameter without a type
    of its own takes the parameter's annotation. Dotted values assigned later, or under
    an `if` or `try`, are kept as `also`."""
    found: dict[str, MemberFact] = {}
    annotated = {
        a.arg: a.annotation
        for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]
        if a.annotation is not None
    }
    body = init.body
    for index, stmt in enumerate(body):
        assigned = _assigned(stmt)
        if assigned is None:
            continue
        target, annotation, value = assigned
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and target.attr not in found
        ):
            if annotation is None and isinstance(value, ast.Name):
                annotation = annotated.get(value.id)
            found[target.attr] = MemberFact(
                name=target.attr,
                kind="attribute",
                type=None if annotation is None else render(annotation),
                default=None if value is None else render(value),
                doc=string_after(body, index),
                line=stmt.lineno,
            )
    also: dict[str, list[str]] = {}
    for stmt in _nested_statements(body):
        assigned = _assigned(stmt)
        if assigned is None:
            continue
        target, _, value = assigned
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and isinstance(value, ast.Attribute)
            and target.attr in found
        ):
            text = render(value)
            if text != found[target.attr].default and text not in also.setdefault(target.attr, []):
                also[target.attr].append(text)
    for name, values in also.items():
        found[name] = dataclasses.replace(found[name], also=tuple(values[:4]))
    return found


def _nested_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement of a function body, inside `if`, `try`, `with` and loops too."""
    out: list[ast.stmt] = []
    todo = list(body)
    while todo:
        stmt = todo.pop(0)
        out.append(stmt)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for name in ("body", "orelse", "finalbody"):
            todo.extend(getattr(stmt, name, ()))
        for handler in getattr(stmt, "handlers", ()):
            todo.extend(handler.body)
    return out


def init_signature(node: ast.ClassDef) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """Positional parameters of the class's own __init__, the one carrying the message,
    and every parameter by name (keyword-only ones too)."""
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            args = stmt.args
            params = tuple(a.arg for a in [*args.posonlyargs, *args.args][1:])
            names = params + tuple(a.arg for a in args.kwonlyargs)
            for candidate in MESSAGE_PARAMS:
                if candidate in names:
                    return params, candidate, names
            return params, _passed_to_super(stmt, names), names
    return (), None, ()


def init_required(node: ast.ClassDef) -> int | None:
    """How many positional parameters of the class's own __init__ have no default; None
    when the class defines no __init__."""
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            positional = [*stmt.args.posonlyargs, *stmt.args.args][1:]
            return max(0, len(positional) - len(stmt.args.defaults))
    return None


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
        assigned = _assigned(stmt)
        if assigned is None:
            continue
        target, annotation, value = assigned
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
