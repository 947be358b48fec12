# The controls one file declares or reads, as facts for explain to link to inputs across
# files: argparse flags (`add_argument`, including `**get_kwargs(Cls)["field"]`), click
# and typer options, environment variables read (`os.getenv`, `os.environ`, an
# `envs`-style dict of readers keyed by the variable), and pydantic settings classes;
# and what picks a class by a name: a registry (a module-level dict of names to classes,
# or a `register*("name")` class decorator) with the keys its module looks names up by,
# and an `if x == "name":` branch that builds a class (a flag's value choosing it).
# Read from the syntax tree only, never run.
from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from errdex.extract.facts import KnobFact
from errdex.extract.guards import env_read
from errdex.extract.render import Render
from errdex.extract.syntax import dotted_name, statements

# Words a file must contain for a rule to have anything to find.
_HINTS = ("add_argument", "environ", "getenv", "click", "typer", "BaseSettings", "validator")
# What each thing `_Walker.expr_in` finds has in its source: a flag its `add_argument`;
# an environment read `environ` or `getenv`; a reader keyed by its variable (`env_by_key`)
# the quoted name.
_FLAG_HINT = re.compile(r"add_argument")
_ENV_HINTS = re.compile(r"add_argument|environ|getenv|[\"'][A-Z][A-Z0-9_]{2,}[\"']")
_CLICK = frozenset(
    {"option", "argument", "password_option", "version_option", "confirmation_option"}
)
_TYPER = frozenset({"Option", "Argument"})
_VALIDATORS = frozenset({"field_validator", "validator"})  # pydantic's, v2 and v1
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
    found: list[KnobFact] = []
    if any(hint in text for hint in _HINTS):
        reads_env = "environ" in text or "getenv" in text
        hot = _hot_lines(text, _ENV_HINTS if reads_env else _FLAG_HINT)
        walker = _Walker(lines, render, reads_env=reads_env, hot=hot)
        walker.block(tree.body, _Where())
        found += walker.found
    found += _registered(tree)  # top-level statements only: no walk
    if "elif" in text:
        found += _choices(tree)
    return tuple(sorted(found, key=lambda k: k.line))


def _hot_lines(text: str, hints: re.Pattern[str]) -> list[int]:
    """The lines (1-based, ascending) where `hints` occur in `text`."""
    hot: list[int] = []
    line, at = 1, 0
    for match in hints.finditer(text):
        line += text.count("\n", at, match.start())
        at = match.start()
        if not hot or hot[-1] != line:
            hot.append(line)
    return hot


class _Walker:
    def __init__(self, lines: list[str], render: Render, *, reads_env: bool, hot: list[int]):
        self.lines = lines
        self.render = render
        self.reads_env = reads_env
        # the lines an expression must span for `expr_in` to have anything to find there
        self.hot = hot
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
        if not self.spans_hot(node):
            return
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

    def spans_hot(self, node: ast.AST) -> bool:
        """Whether `node` spans a line holding one of the hints: what `expr_in` finds (an
        `add_argument` call, an environment read, a dict keyed by a variable's name) holds
        one, so an expression that spans none has nothing to find."""
        first: int | None = getattr(node, "lineno", None)
        if first is None:
            return True
        last: int = getattr(node, "end_lineno", None) or first
        at = bisect.bisect_left(self.hot, first)
        return at < len(self.hot) and self.hot[at] <= last

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
            written = dotted_name(arg)
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
            elif name in _VALIDATORS and where.owner_class is not None:
                self.validated(node, decorator, where)

    def validated(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, where: _Where
    ) -> None:
        """A pydantic field validator: its value parameter holds what the user gave the
        fields the decorator names."""
        fields = tuple(v for v in map(_string, call.args) if v is not None and v != "*")
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        if params and params[0] in ("cls", "self"):
            params = params[1:]
        if fields and params:
            self.found.append(
                KnobFact(
                    kind="validated",
                    names=fields,
                    dest=params[0],
                    function=where.function,
                    owner_class=where.owner_class,
                    line=call.lineno,
                )
            )

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
        bases = [dotted_name(b) or "" for b in node.bases]
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
    if isinstance(annotation, ast.Subscript) and (dotted_name(annotation.value) or "").endswith(
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


# -- what picks a class by a name ------------------------------------------------------------

_MIN_REGISTRY = 3  # entries a dict needs to be a registry of classes, not a small table
_NOT_BUILT = ("Error", "Exception", "Warning")


def _registered(tree: ast.Module) -> list[KnobFact]:
    """Registry entries: `NAME = {"key": Cls, "key": ("module", "Cls"), ...}` at module
    level (kind "registered": `names` the key, `dest` the class, `action` the registry),
    `@X.register("key")` on a class, and, in a module with a registry dict, the parameters
    its functions look a registry up by (kind "lookup-key": `x[key]`, `key in x`)."""
    out: list[KnobFact] = []
    decorated: list[KnobFact] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                out += _registry_dict(targets[0].id, stmt.value)
        elif isinstance(stmt, ast.ClassDef):
            decorated += _registered_class(stmt)
    if out:  # a registry dict: the keys this module's functions look it up by
        for node in statements(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out += _lookup_keys(node)
    return out + decorated


def _registry_dict(name: str, value: ast.expr | None) -> list[KnobFact]:
    if not isinstance(value, ast.Dict) or len(value.keys) < _MIN_REGISTRY:
        return []
    entries: list[KnobFact] = []
    for key, item in zip(value.keys, value.values, strict=True):
        named = _string(key)
        if named is None or key is None:
            return []  # a `**spread` or a computed key: not a table of names
        cls = _class_named(item)
        if cls is not None:
            entries.append(
                KnobFact(
                    kind="registered",
                    names=(named,),
                    dest=cls,
                    function="<module>",
                    owner_class=None,
                    line=key.lineno,
                    action=name,
                )
            )
    return entries if len(entries) >= max(_MIN_REGISTRY, len(value.keys) // 2 + 1) else []


def _class_named(node: ast.expr) -> str | None:
    """The class a registry value names: `Cls`, `mod.Cls`, `("module", "Cls")`,
    `"module:Cls"`."""
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        node = node.elts[-1]
    written = _string(node)
    if written is not None:
        written = re.split(r"[:.]", written)[-1]
    elif isinstance(node, ast.Name | ast.Attribute):
        written = dotted_name(node)
        written = None if written is None else written.rsplit(".", 1)[-1]
    if written is None or not written.isidentifier() or not written[:1].isupper():
        return None
    return None if written.isupper() else written


def _registered_class(node: ast.ClassDef) -> list[KnobFact]:
    """`@X.register_module("key")` / `@register("a", "b")` / `@register(name="key")`."""
    out: list[KnobFact] = []
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        written = dotted_name(decorator.func) or ""
        if not written.rsplit(".", 1)[-1].startswith("register"):
            continue
        keys = [v for arg in decorator.args for v in _strings(arg)]
        for keyword in decorator.keywords:
            if keyword.arg in ("name", "names"):
                keys += _strings(keyword.value)
        if keys:
            out.append(
                KnobFact(
                    kind="registered",
                    names=tuple(keys),
                    dest=node.name,
                    function="<module>",
                    owner_class=None,
                    line=node.lineno,
                    action=written.rsplit(".", 1)[0] if "." in written else written,
                )
            )
    return out


def _lookup_keys(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[KnobFact]:
    params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    keys: set[str] = set()
    for sub in ast.walk(node):
        key: ast.expr | None = None
        if isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Load):
            key = sub.slice
        elif isinstance(sub, ast.Compare) and isinstance(sub.ops[0], ast.In | ast.NotIn):
            key = sub.left
        if isinstance(key, ast.Name) and key.id in params - {"self", "cls"}:
            keys.add(key.id)
    return [
        KnobFact(
            kind="lookup-key",
            names=(key,),
            dest=None,
            function=node.name,
            owner_class=None,
            line=node.lineno,
        )
        for key in sorted(keys)
    ]


def _choices(tree: ast.Module) -> list[KnobFact]:
    """`if x.backend == "a":` / `elif x.backend in ("b", "c"):` whose block builds a class
    (`obj = Cls(...)`): the value of `backend` chooses `Cls` (kind "choice": `names` the
    values, `dest` the name compared, `action` the class as written)."""
    out: list[KnobFact] = []
    for node in statements(tree):
        if not isinstance(node, ast.If):
            continue
        chosen = _chosen_by(node.test)
        if chosen is None:
            continue
        dest, values = chosen
        for stmt in node.body:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.Return | ast.Expr) else None
            func = value.func if isinstance(value, ast.Call) else None
            written = None if func is None else dotted_name(func)
            last = (written or "").rsplit(".", 1)[-1]
            if written is None or not last[:1].isupper() or last.endswith(_NOT_BUILT):
                continue
            out.append(
                KnobFact(
                    kind="choice",
                    names=values,
                    dest=dest,
                    function="<module>",
                    owner_class=None,
                    line=stmt.lineno,
                    action=written,
                )
            )
    return out


def _chosen_by(test: ast.expr) -> tuple[str, tuple[str, ...]] | None:
    """`x.name == "a"` or `x.name in ("a", "b")`: ("name", values)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and _string(left) is not None:
        left, right = right, left
    written = dotted_name(left)
    if written is None:
        return None
    if isinstance(test.ops[0], ast.Eq):
        values = tuple(_strings(right)) if _string(right) is not None else ()
    elif isinstance(test.ops[0], ast.In) and isinstance(right, ast.Tuple | ast.List | ast.Set):
        values = tuple(v for e in right.elts if (v := _string(e)) is not None)
        values = values if len(values) == len(right.elts) else ()
    else:
        return None
    return (written.rsplit(".", 1)[-1], values) if values else None
