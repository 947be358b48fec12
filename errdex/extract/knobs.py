# The controls one file declares or reads, as facts for explain to link to inputs across
# files: argparse flags (`add_argument`, including `**get_kwargs(Cls)["field"]`), click
# and typer options, environment variables read (`os.getenv`, `os.environ`, an
# `envs`-style dict of readers keyed by the variable), and pydantic settings classes.
# Read from the syntax tree only, never run.
from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from errdex.extract.facts import KnobFact
from errdex.extract.guards import env_read
from errdex.extract.render import Render

# Words a file must contain for a rule to have anything to find.
_HINTS = ("add_argument", "environ", "getenv", "click", "typer", "BaseSettings")
_CLICK = frozenset(
    {"option", "argument", "password_option", "version_option", "confirmation_option"}
)
_TYPER = frozenset({"Option", "Argument"})
_MAX_DOC = 400


@dataclass(frozen=True, slots=True)
class _Where:
    """Where the walk is: the enclosing function and class, and where a value goes."""

    function: str = "<module>"
    owner_class: str | None = None
    dest: str | None = None  # the name, "self.attr" or dict key a value is assigned to
    line: int = 0  # the line of the statement or dict entry the value belongs to


def knob_facts(
    tree: ast.Module, text: str, lines: list[str], render: Render
) -> tuple[KnobFact, ...]:
    """Every control of one module (see the module comment), in source order."""
    if not any(hint in text for hint in _HINTS):
        return ()
    walker = _Walker(lines, render, reads_env="environ" in text or "getenv" in text)
    walker.block(tree.body, _Where())
    return tuple(sorted(walker.found, key=lambda k: k.line))


class _Walker:
    def __init__(self, lines: list[str], render: Render, *, reads_env: bool):
        self.lines = lines
        self.render = render
        self.reads_env = reads_env
        self.found: list[KnobFact] = []
        # per function: names bound to `get_kwargs(Cls)` (-> Cls) or `kw["key"]` (-> key)
        self.spreads: dict[str, tuple[str, str | None]] = {}

    # -- statements -------------------------------------------------------------------

    def block(self, body: list[ast.stmt], where: _Where) -> None:
        for stmt in body:
            rule = _STATEMENTS.get(type(stmt).__name__)
            if rule is not None:
                rule(self, stmt, where)
            else:
                self.expr_in(stmt, _Where(where.function, where.owner_class, None, stmt.lineno))

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, where: _Where) -> None:
        qualname = node.name if where.function == "<module>" else f"{where.function}.{node.name}"
        if where.owner_class is not None and where.function == where.owner_class:
            qualname = f"{where.owner_class}.{node.name}"
        inner = _Where(qualname, where.owner_class if where.function == where.owner_class else None)
        self.decorators(node, inner)
        self.typer_params(node, inner)
        saved, self.spreads = self.spreads, {}
        self.block(node.body, inner)
        self.spreads = saved

    def klass(self, node: ast.ClassDef, where: _Where) -> None:
        qualname = node.name if where.function == "<module>" else f"{where.function}.{node.name}"
        self.settings(node, qualname)
        self.block(node.body, _Where(qualname, qualname))

    def assign(self, node: ast.Assign | ast.AnnAssign, where: _Where) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        if value is None:
            return
        dest = _dest(targets[0]) if len(targets) == 1 else None
        if dest is not None and where.function != where.owner_class and "." not in dest:
            self.note_spread(dest, value)
        self.expr_in(value, _Where(where.function, where.owner_class, dest, node.lineno))

    def nested(self, node: ast.stmt, where: _Where) -> None:
        """Compound statements: their own expressions, then their blocks."""
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.block(value, where)
            elif isinstance(value, list) and value and isinstance(value[0], ast.excepthandler):
                for handler in value:
                    self.block(handler.body, where)
            elif isinstance(value, list) and value and isinstance(value[0], ast.match_case):
                for case in value:
                    self.block(case.body, where)
            elif isinstance(value, ast.AST) and name not in ("target",):
                self.expr_in(value, _Where(where.function, where.owner_class, None, node.lineno))
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.withitem):
                        self.expr_in(item.context_expr, _Where(where.function, where.owner_class))

    # -- expressions --------------------------------------------------------------------

    def expr_in(self, node: ast.AST, where: _Where) -> None:
        """Find flags and environment reads in an expression (or statement)."""
        todo: list[tuple[ast.AST, _Where]] = [(node, where)]
        while todo:
            sub, at = todo.pop()
            kind = type(sub)
            if kind is ast.Call:
                self.call(sub, at)  # type: ignore[arg-type]
            elif kind is ast.Subscript and self.reads_env:
                self.env(sub, at)  # type: ignore[arg-type]
            if kind is ast.Dict:
                for key, value in zip(sub.keys, sub.values, strict=True):  # type: ignore[attr-defined]
                    named = _string(key)
                    inner = at
                    if named is not None and key is not None:
                        inner = _Where(at.function, at.owner_class, named, key.lineno)
                    if named is not None and self.reads_env:
                        self.env_by_key(named, value, inner)
                    todo.append((value, inner))
                    if key is not None:
                        todo.append((key, at))
                continue
            if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                continue  # walked as statements
            todo.extend((child, at) for child in ast.iter_child_nodes(sub))

    def call(self, node: ast.Call, where: _Where) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "add_argument":
            self.flag(node, where)
        elif self.reads_env:
            self.env(node, where)

    # -- argparse -------------------------------------------------------------------------

    def note_spread(self, name: str, value: ast.expr) -> None:
        """`kw = get_kwargs(ModelConfig)` and `one = kw["field"]`, for `**kw["field"]`."""
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            arg = value.args[0]
            written = _dotted(arg)
            if written is not None and written.rsplit(".", 1)[-1][:1].isupper():
                self.spreads[name] = (written, None)
                return
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            base = self.spreads.get(value.value.id)
            key = _string(value.slice)
            if base is not None and base[1] is None and key is not None:
                self.spreads[name] = (base[0], key)
                return
        self.spreads.pop(name, None)

    def flag(self, node: ast.Call, where: _Where) -> None:
        names = tuple(v for v in map(_string, node.args) if v is not None)
        if not names:
            return
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        spread: tuple[str, str] | None = None
        for keyword in node.keywords:
            if keyword.arg is None:
                spread = self.spread_of(keyword.value) or spread
        dest = _string(keywords.get("dest")) if "dest" in keywords else None
        if dest is None:
            dest = _dest_of(names)
        if spread is not None and dest is None:
            dest = spread[1]
        self.found.append(
            KnobFact(
                kind="flag",
                names=names,
                dest=dest,
                function=where.function,
                owner_class=where.owner_class,
                line=node.lineno,
                spread=spread,
                default=self.shown(keywords.get("default")),
                doc=_doc(_string(keywords.get("help"))),
                action=self.shown(keywords.get("action")),
            )
        )

    def spread_of(self, node: ast.expr) -> tuple[str, str] | None:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            base = self.spreads.get(node.value.id)
            key = _string(node.slice)
            if base is not None and base[1] is None and key is not None:
                return base[0], key
        if isinstance(node, ast.Name):
            found = self.spreads.get(node.id)
            if found is not None and found[1] is not None:
                return found[0], found[1]
        return None

    # -- click and typer --------------------------------------------------------------------

    def decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef, where: _Where) -> None:
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call):
                continue
            func = decorator.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _CLICK:
                self.option(decorator, where, argument=name == "argument")

    def option(self, call: ast.Call, where: _Where, *, argument: bool) -> None:
        decls = tuple(v for v in map(_string, call.args) if v is not None)
        flags = tuple(d for d in decls if d.startswith("-"))
        plain = [d for d in decls if not d.startswith("-") and d.isidentifier()]
        dest = plain[0] if plain else _dest_of(flags)
        if dest is None:
            return
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        self.found.append(
            KnobFact(
                kind="option",
                names=(dest.upper(),) if argument else flags or (f"--{dest.replace('_', '-')}",),
                dest=dest,
                function=where.function,
                owner_class=where.owner_class,
                line=call.lineno,
                default=self.shown(keywords.get("default")),
                doc=_doc(_string(keywords.get("help"))),
                action="argument" if argument else self.shown(keywords.get("is_flag")),
            )
        )
        for variable in _strings(keywords.get("envvar")):
            self.found.append(
                KnobFact(
                    kind="env",
                    names=(variable,),
                    dest=dest,
                    function=where.function,
                    owner_class=where.owner_class,
                    line=call.lineno,
                )
            )

    def typer_params(self, node: ast.FunctionDef | ast.AsyncFunctionDef, where: _Where) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: dict[str, ast.expr] = dict(
            zip(
                [a.arg for a in positional[len(positional) - len(args.defaults) :]],
                args.defaults,
                strict=True,
            )
        )
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if default is not None:
                defaults[arg.arg] = default
        for arg in [*positional, *args.kwonlyargs]:
            for call in _typer_calls(defaults.get(arg.arg), arg.annotation):
                self.typer(arg.arg, call, where)

    def typer(self, param: str, call: ast.Call, where: _Where) -> None:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        decls = tuple(v for v in map(_string, call.args) if v is not None and v.startswith("-"))
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        argument = name == "Argument"
        flags = decls or (f"--{param.replace('_', '-')}",)
        self.found.append(
            KnobFact(
                kind="option",
                names=(param.upper(),) if argument else flags,
                dest=param,
                function=where.function,
                owner_class=where.owner_class,
                line=call.lineno,
                doc=_doc(_string(keywords.get("help"))),
                action="argument" if argument else None,
            )
        )
        for variable in _strings(keywords.get("envvar")):
            self.found.append(
                KnobFact(
                    kind="env",
                    names=(variable,),
                    dest=param,
                    function=where.function,
                    owner_class=where.owner_class,
                    line=call.lineno,
                )
            )

    # -- environment variables --------------------------------------------------------------

    def env(self, node: ast.Call | ast.Subscript, where: _Where) -> None:
        variable = env_read(node)
        if variable is None or (
            isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load)
        ):
            return
        default = None
        if isinstance(node, ast.Call) and len(node.args) > 1:
            default = self.shown(node.args[1])
        self.add_env(variable, where, node.lineno, default)

    def env_by_key(self, key: str, value: ast.expr, where: _Where) -> None:
        """`"VLLM_X": env_with_choices("VLLM_X", ...)`: a reader keyed by its variable."""
        if not _ENV_NAME.match(key) or isinstance(value, ast.Constant):
            return
        reads = (s for s in ast.walk(value) if isinstance(s, ast.Call | ast.Subscript))
        if any(env_read(sub) == key for sub in reads):
            return  # the read itself is found by `env`, with its default
        if any(isinstance(sub, ast.Constant) and sub.value == key for sub in ast.walk(value)):
            self.add_env(key, where, where.line or value.lineno, None)

    def add_env(self, variable: str, where: _Where, line: int, default: str | None) -> None:
        self.found.append(
            KnobFact(
                kind="env",
                names=(variable,),
                dest=where.dest,
                function=where.function,
                owner_class=where.owner_class,
                line=line,
                default=default,
                doc=self.comment_above(where.line or line),
            )
        )

    def comment_above(self, line: int) -> str | None:
        """The `#` comment lines right above `line`, joined (an envs table documents each
        variable so)."""
        out: list[str] = []
        index = line - 2
        while index >= 0 and len(out) < 12:
            text = self.lines[index].strip()
            if not text.startswith("#"):
                break
            out.append(text.lstrip("#").strip())
            index -= 1
        return _doc(" ".join(reversed(out))) if out else None

    # -- pydantic settings -----------------------------------------------------------------------

    def settings(self, node: ast.ClassDef, qualname: str) -> None:
        bases = [_dotted(b) or "" for b in node.bases]
        if not any(b.rsplit(".", 1)[-1] == "BaseSettings" for b in bases):
            return
        prefix = ""
        for stmt in node.body:
            prefix = _env_prefix(stmt) or prefix
        self.found.append(
            KnobFact(
                kind="settings",
                names=(prefix,),
                dest=qualname,
                function="<module>",
                owner_class=qualname,
                line=node.lineno,
            )
        )

    def shown(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        text = " ".join(self.render(node).split())
        return text if len(text) <= 120 else text[:119] + "…"


_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")

# What each kind of statement holds for this walk, by node type name; any other statement
# is searched as a whole for calls and reads.
_STATEMENTS: dict[str, Callable[[_Walker, Any, _Where], None]] = {
    "FunctionDef": _Walker.function,
    "AsyncFunctionDef": _Walker.function,
    "ClassDef": _Walker.klass,
    "Assign": _Walker.assign,
    "AnnAssign": _Walker.assign,
    "If": _Walker.nested,
    "For": _Walker.nested,
    "AsyncFor": _Walker.nested,
    "While": _Walker.nested,
    "With": _Walker.nested,
    "AsyncWith": _Walker.nested,
    "Try": _Walker.nested,
    "TryStar": _Walker.nested,
    "Match": _Walker.nested,
}


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _strings(node: ast.AST | None) -> Iterator[str]:
    single = _string(node)
    if single is not None:
        yield single
    elif isinstance(node, ast.List | ast.Tuple):
        for element in node.elts:
            value = _string(element)
            if value is not None:
                yield value


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _dest(target: ast.expr) -> str | None:
    """The name a value is stored under: `x`, `self.x`."""
    if isinstance(target, ast.Name):
        return target.id
    owner = target.value if isinstance(target, ast.Attribute) else None
    if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
        return f"self.{target.attr}"  # type: ignore[attr-defined]
    return None


def _dest_of(names: tuple[str, ...]) -> str | None:
    """argparse's dest: the first long option (else the first one) without its dashes;
    a positional argument's own name."""
    longs = [n for n in names if n.startswith("--")]
    first = longs[0] if longs else names[0] if names else None
    if first is None:
        return None
    dest = first.lstrip("-").replace("-", "_")
    return dest if dest.isidentifier() else None


def _doc(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DOC else text[: _MAX_DOC - 1] + "…"


def _typer_calls(default: ast.expr | None, annotation: ast.expr | None) -> Iterator[ast.Call]:
    """`typer.Option(...)` as a parameter's default or inside `Annotated[T, ...]`."""
    candidates: list[ast.expr] = [] if default is None else [default]
    if isinstance(annotation, ast.Subscript) and (_dotted(annotation.value) or "").endswith(
        "Annotated"
    ):
        inner = annotation.slice
        candidates += inner.elts[1:] if isinstance(inner, ast.Tuple) else []
    for node in candidates:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _TYPER:
                yield node


def _env_prefix(stmt: ast.stmt) -> str | None:
    """`model_config = SettingsConfigDict(env_prefix="X_")` (or a dict), or a nested
    `class Config: env_prefix = "X_"`."""
    if isinstance(stmt, ast.ClassDef) and stmt.name == "Config":
        for inner in stmt.body:
            if isinstance(inner, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "env_prefix" for t in inner.targets
            ):
                return _string(inner.value)
        return None
    value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
    if isinstance(value, ast.Call):
        for keyword in value.keywords:
            if keyword.arg == "env_prefix":
                return _string(keyword.value)
    if isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values, strict=True):
            if _string(key) == "env_prefix":
                return _string(item)
    return None
