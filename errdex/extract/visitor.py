# One file, parsed (never imported) into FileFacts: every raise / assert site with its
# message template, enclosing guards and inputs. Statements are dispatched by node
# type name; a statement type we do not know fails loudly in strict mode.
from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from errdex.extract.calls import written_calls
from errdex.extract.classes import (
    class_delegation,
    class_recipes,
    class_strings,
    init_defaults,
)
from errdex.extract.facts import (
    ArgFact,
    CallFact,
    CallSite,
    ClassFact,
    FileFacts,
    FunctionFact,
    HelperFact,
    MemberFact,
    OpenChain,
    QuietHandler,
    Raised,
    RawSite,
)
from errdex.extract.files import is_package_init
from errdex.extract.guards import (
    GuardInfo,
    NameRef,
    exits,
    loop_leaves,
    names_read,
    raiser_of,
    returning_test,
)
from errdex.extract.knobs import knob_facts
from errdex.extract.members import (
    EXIT_CLASSES,
    KNOWN_MESSAGE_ARGS,
    MESSAGE_PARAMS,
    class_members,
    clean_doc,
    init_required,
    init_signature,
    module_constants,
)
from errdex.extract.names import class_like, held_class
from errdex.extract.reach import Step, unreachable
from errdex.extract.render import source_renderer
from errdex.extract.syntax import dotted_parts
from errdex.extract.templates import (
    ITEMS,
    MAX_ITEMS,
    MAX_VARIANTS,
    OPEN_ITEMS,
    VALUES,
    TemplateBuilder,
    Variant,
    fill_params,
    is_stringish,
    merge,
    with_fields,
)
from errdex.extract.trees import tree_of
from errdex.extract.unpack import looped, placed, unpacked
from errdex.markup import clip
from errdex.model import (
    GuardKind,
    Hole,
    Input,
    Location,
    Message,
    Part,
    SiteKind,
    Snippet,
    SourcePos,
    Text,
)

SNIPPET_BEFORE = 17
SNIPPET_AFTER = 15
BUILTIN_NAMES = frozenset(dir(builtins))

# Statements that hold no nested statements and touch no state we track.
_LEAVES = frozenset(
    {
        "Pass",
        "Import",
        "ImportFrom",
        "Global",
        "Nonlocal",
        "Delete",
        "TypeAlias",
    }
)


def snippet_of(lines: list[str], line: int, end_line: int) -> Snippet:
    """The source around a site: 17 lines before it to 15 after its last line."""
    start = max(1, line - SNIPPET_BEFORE)
    stop = min(len(lines), end_line + SNIPPET_AFTER)
    return Snippet(start_line=start, lines=tuple(t.rstrip("\r") for t in lines[start - 1 : stop]))


# The expressions a compound statement evaluates (or binds) before its body runs.
_HEADERS: dict[str, Callable[[Any], list[ast.AST]]] = {
    "If": lambda n: [n.test],
    "While": lambda n: [n.test],
    "For": lambda n: [n.target, n.iter],
    "AsyncFor": lambda n: [n.target, n.iter],
    "With": lambda n: list(n.items),
    "AsyncWith": lambda n: list(n.items),
    "Match": lambda n: [n.subject],
    "Try": lambda n: [],
    "TryStar": lambda n: [],
    "FunctionDef": lambda n: [n],
    "AsyncFunctionDef": lambda n: [n],
    "ClassDef": lambda n: [n],
}


class UnknownStatement(Exception):
    """A statement type the visitor has no rule for (new Python syntax)."""


@dataclass(slots=True)
class Scope:
    """The function (or class / module body) being walked."""

    qualname: str
    owner_class: str | None  # class qualname for methods
    params: dict[str, ast.arg] = field(default_factory=dict)
    defaults: dict[str, ast.expr] = field(default_factory=dict)
    node: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    parent: Scope | None = None
    # the handlers the walk is in: (as-name, types as written, each class of them)
    handlers: list[tuple[str | None, str, tuple[str, ...]]] = field(default_factory=list)
    param_docs: dict[str, str] | None = None
    # what each local name was last assigned, as far as the walk has gone, and whether
    # it is a loop's target (an item of the expression) rather than the value itself
    assigned: dict[str, tuple[ast.expr, bool]] = field(default_factory=dict)
    earlier: dict[str, list[tuple[ast.expr, bool]]] = field(default_factory=dict)  # overwritten
    annotations: dict[str, ast.expr] = field(default_factory=dict)  # `x: T = ...` of locals


@dataclass(slots=True)
class _Block:
    """Walk state that flows through one sequence of statements."""

    guards: tuple[GuardInfo, ...]
    env: dict[str, tuple[Variant, ...]]


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return dotted(node.value) + "." + node.attr
    return ast.unparse(node)


def _unsubscripted(base: ast.expr) -> ast.expr:
    """A base class without its type arguments: `ParamType[V]` is `ParamType`."""
    return base.value if isinstance(base, ast.Subscript) else base


def _union(
    a: dict[str, tuple[Variant, ...]], b: dict[str, tuple[Variant, ...]]
) -> dict[str, tuple[Variant, ...]]:
    out: dict[str, tuple[Variant, ...]] = {}
    # a list's items: those either branch appended (a branch that appended none leaves
    # the items it had); any other name: only one both branches bound to text
    lists = {k for k in a.keys() | b.keys() if k.endswith((ITEMS, OPEN_ITEMS))}
    for name in (a.keys() & b.keys()) | lists:
        merged = {v[0].text: v for v in (*a.get(name, ()), *b.get(name, ()))}
        out[name] = tuple(merged.values())[: MAX_ITEMS if name.endswith(ITEMS) else MAX_VARIANTS]
    return out


class FileVisitor:
    """Collects the facts of one module."""

    def __init__(
        self,
        source: str,
        path: str,
        module: str,
        *,
        strict: bool = False,
        want_calls: frozenset[int] = frozenset(),
    ):
        self.want_calls = want_calls
        self.call_sites: list[CallSite] = []
        self.path = path
        self.module = module
        # the package relative imports start from: a package's __init__ is the package
        self.package = module if is_package_init(path) else module.rpartition(".")[0]
        self.top = module.split(".", 1)[0]
        self.strict = strict
        self.source = source
        self.walrus = ":=" in source  # no `:=` anywhere: no condition to look for one in
        self.lines = source.split("\n")
        self.render = source_renderer(self.lines)
        self.sites: list[RawSite] = []
        self.calls: list[CallFact] = []
        self.functions: list[FunctionFact] = []
        self.classes: list[ClassFact] = []
        self.helpers: list[HelperFact] = []
        self.factories: list[HelperFact] = []
        # per function, each `return`: the exception it builds with its message (None for
        # any other), what raising its value would raise, and the value
        self.returned: dict[str, list[_Returned]] = {}
        # per function, the text its returns give (by tuple element, None: the value), and
        # the functions that return text, for `raise E(make_msg(...))` (see _text_sites)
        self.text_returns: dict[str, dict[int | None, list[Variant]]] = {}
        self.text_helpers: dict[str, _TextHelper] = {}
        self.text_calls: list[_TextCall] = []
        # per class of the file: its class-level strings (value, line), its bases' last
        # names, and the attributes its __init__ sets (which then override them)
        self.class_texts: dict[str, dict[str, tuple[str, int]]] = {}
        self.class_bases: dict[str, tuple[str, ...]] = {}
        self.init_sets: dict[str, frozenset[str]] = {}
        self.imports: dict[str, str] = {}
        self.stars: list[str] = []
        self.constants: dict[str, MemberFact] = {}
        self.members: dict[str, dict[str, MemberFact]] = {}
        # the statements walked so far in this scope, for reach.py
        self.writes: list[Step] = []
        self.quiet: list[QuietHandler] = []

    # -- entry -----------------------------------------------------------------

    def visit_module(self, tree: ast.Module) -> FileFacts:
        self._collect_imports(tree.body)
        self.constants = {c.name: c for c in module_constants(tree, self.render)}
        self.texts = self._module_texts(tree.body)
        scope = Scope(qualname="<module>", owner_class=None)
        self.walk(tree.body, _Block(guards=(), env={}), scope)
        self._text_sites()
        self._class_text_sites()
        calls = written_calls(self.source, self.functions, self.calls)
        return FileFacts(
            path=self.path,
            module=self.module,
            imports=tuple(self.imports.items()),
            classes=tuple(self.classes),
            helpers=tuple(self.helpers),
            factories=tuple(self.factories),
            constants=tuple(self.constants.values()),
            sites=tuple(self.sites),
            calls=(*self.calls, *calls.nested),
            functions=tuple(self.functions),
            call_sites=tuple(self.call_sites),
            lines=len(self.lines),
            knobs=knob_facts(tree, self.source, self.lines, self.render),
            called=calls.names,
            opaque=calls.opaque,
            stars=tuple(self.stars),
            quiet=tuple(self.quiet),
        )

    def _module_texts(self, body: list[ast.stmt]) -> dict[str, tuple[Variant, ...]]:
        """Module-level UPPER_CASE names bound once to message text: what a function's
        `raise E(NOT_FOUND)` or `MSG % x` reads."""
        out: dict[str, tuple[Variant, ...]] = {}
        bound: dict[str, int] = {}
        builder = TemplateBuilder(out, render=self.render)
        for stmt in body:
            if not isinstance(stmt, ast.Assign | ast.AnnAssign) or stmt.value is None:
                continue
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = bound.get(target.id, 0) + 1
                    if not target.id.lstrip("_").isupper():
                        continue
                    if is_stringish(stmt.value):
                        message = builder.build(stmt.value)
                        out[target.id] = ((replace(message, source="constant"), stmt.lineno),)
                    values = _text_values(stmt.value)
                    if values:  # `ERRORS = {"a": "...", ...}`: what `ERRORS[code]` reads
                        out[target.id + VALUES] = tuple(
                            (replace(builder.build(v), source="constant"), v.lineno)
                            for v in values[:MAX_ITEMS]
                        )
        return {name: v for name, v in out.items() if bound[name.removesuffix(VALUES)] == 1}

    def _collect_imports(self, body: list[ast.stmt]) -> None:
        """The names a module body binds by import, under `if` and `try` as well."""
        for stmt in body:
            rule = getattr(self, "imports_" + type(stmt).__name__, None)
            if rule is not None:  # any other statement binds no imported name we follow
                rule(stmt)

    def imports_Import(self, stmt: ast.Import) -> None:
        for alias in stmt.names:
            if alias.asname:
                self.imports[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.imports[head] = head

    def imports_ImportFrom(self, stmt: ast.ImportFrom) -> None:
        base = stmt.module or ""
        if stmt.level:
            parts = self.package.split(".")
            keep = parts[: len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
            base = ".".join([*keep, base] if base else keep)
        for alias in stmt.names:
            if alias.name != "*":
                self.imports[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif base not in self.stars:
                self.stars.append(base)

    def imports_If(self, stmt: ast.If) -> None:
        self._collect_imports(stmt.body)
        self._collect_imports(stmt.orelse)

    def imports_Try(self, stmt: ast.Try) -> None:
        self._collect_imports(stmt.body)
        for handler in stmt.handlers:
            self._collect_imports(handler.body)
        self._collect_imports(stmt.orelse)

    def guard_info(
        self,
        kind: GuardKind,
        node: ast.AST,
        negated: bool,
        line: int,
        shape: str = "test",
        raiser: ast.AST | None = None,
    ) -> GuardInfo:
        return GuardInfo(kind, node, negated, line, shape, render=self.render, raiser=raiser)

    # -- statement walk -------------------------------------------------------------

    def walk(self, stmts: list[ast.stmt], block: _Block, scope: Scope) -> bool:
        """Walk a block in order; return True when it always exits."""
        for stmt in stmts:
            kind = type(stmt).__name__
            header = _HEADERS.get(kind) if block.guards else None
            if header is not None:  # a compound statement: its header runs before its body
                self._note_writes(header(stmt), stmt.lineno)
            method = getattr(self, "visit_" + kind, None)
            if method is not None:
                method(stmt, block, scope)
            elif kind not in _LEAVES and self.strict:
                raise UnknownStatement(f"{self.path}:{stmt.lineno}: no rule for {kind}")
            # else: a leaf, or (outside strict mode) new syntax, skipped with what it holds
            if block.guards and kind not in _HEADERS:
                self._note_writes([stmt], stmt.lineno)
        return exits(stmts)

    def _callee(self, func: ast.expr, scope: Scope) -> str:
        """The callee as written; a method of a local the function made by calling a class
        (`session = Session()`, `with Session() as session`) named by that class:
        `session.request` -> `Session.request`, which the call graph can resolve."""
        name = dotted(func)
        head, dot, rest = name.partition(".")
        if not dot or scope.node is None or head in scope.params:
            return name
        bound = scope.assigned.get(head)
        if bound is None or bound[1]:
            return name
        value = bound[0]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
            made = dotted(value.func)
            if made.rsplit(".", 1)[-1][:1].isupper():
                return f"{made}.{rest}"
        return name

    def _note_writes(self, nodes: list[ast.AST], line: int) -> None:
        self.writes.append((line, nodes))

    def _guarded(self, block: _Block, guard: GuardInfo) -> _Block:
        return _Block(guards=(*block.guards, guard), env=dict(block.env))

    def visit_FunctionDef(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, block: _Block, scope: Scope
    ) -> None:
        in_class = (
            scope.node is None
            and scope.owner_class is not None
            and (scope.qualname == scope.owner_class)
        )
        qualname = node.name if scope.qualname == "<module>" else f"{scope.qualname}.{node.name}"
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        params = {a.arg: a for a in [*positional, *args.kwonlyargs]}
        if args.vararg:
            params[args.vararg.arg] = args.vararg
        if args.kwarg:
            params[args.kwarg.arg] = args.kwarg
        defaults: dict[str, ast.expr] = {}
        for arg, default in zip(
            positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
        ):
            defaults[arg.arg] = default
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if kw_default is not None:
                defaults[arg.arg] = kw_default
        inner = Scope(
            qualname=qualname,
            owner_class=scope.owner_class if in_class else None,
            params=params,
            defaults=defaults,
            node=node,
            parent=scope,
        )
        self.functions.append(
            FunctionFact(
                qualname=qualname,
                line=node.lineno,
                end_line=node.end_lineno or node.lineno,
                owner_class=inner.owner_class,
                params=tuple(a.arg for a in [*positional, *args.kwonlyargs]),
                varkw=args.kwarg.arg if args.kwarg else None,
            )
        )
        outer_writes, self.writes = self.writes, []
        env = {name: v for name, v in self.texts.items() if name not in params}
        self.walk(node.body, _Block(guards=(), env=env), inner)
        self.writes = outer_writes
        self._maybe_helper(node, inner, in_class)
        self._maybe_factory(inner, in_class)
        returned = self.text_returns.pop(qualname, None)
        if returned:
            names = [a.arg for a in [*args.posonlyargs, *args.args]]
            if in_class and names and not _is_static(node):
                names = names[1:]
            self.text_helpers[qualname] = _TextHelper(tuple(names), returned)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef, block: _Block, scope: Scope) -> None:
        qualname = node.name if scope.qualname == "<module>" else f"{scope.qualname}.{node.name}"
        members = class_members(node, self.render)
        self.members[qualname] = {m.name: m for m in members}
        init_params, message_param, init_names = init_signature(node)
        recipes = class_recipes(node, self.render, self.texts)
        self.classes.append(
            ClassFact(
                qualname=qualname,
                bases=tuple(dotted(_unsubscripted(b)) for b in node.bases),
                line=node.lineno,
                members=tuple(members),
                init_params=init_params,
                message_param=message_param,
                doc=_first_paragraph(ast.get_docstring(node, clean=False)),
                init_names=init_names,
                recipe=recipes[0][0] if len(recipes) == 1 else None,
                recipes=recipes if len(recipes) > 1 else (),
                strings=class_strings(node),
                defaults=init_defaults(node, self.render),
                passes=class_delegation(node, self.render),
                abstract=_abstract_methods(node),
                init_required=init_required(node),
            )
        )
        self.class_texts[qualname] = _class_texts(node)
        self.class_bases[qualname] = tuple(
            dotted(_unsubscripted(b)).rpartition(".")[2] for b in node.bases
        )
        self.init_sets[qualname] = _init_sets(node)
        inner = Scope(qualname=qualname, owner_class=qualname, parent=scope)
        outer_writes, self.writes = self.writes, []
        self.walk(node.body, _Block(guards=(), env={}), inner)
        self.writes = outer_writes

    def visit_If(self, node: ast.If, block: _Block, scope: Scope, kind: GuardKind = "if") -> None:
        test = node.test
        if self.walrus:
            _note_walrus(scope, test)
        body = self._guarded(block, self.guard_info(kind, test, False, node.lineno))
        if self.walrus:  # `if (message := ERRORS.get(code)):` the body reads that text
            builder = TemplateBuilder(block.env, render=self.render)
            for sub in ast.walk(test):
                if isinstance(sub, ast.NamedExpr) and builder.knows(sub.value):
                    body.env[sub.target.id] = tuple(builder.variants(sub.value))[:MAX_VARIANTS]
        written = len(self.writes)
        body_exits = self.walk(node.body, body, scope)
        if body_exits:  # what a branch that always leaves changed, no later code sees
            del self.writes[written:]
        orelse = self._guarded(block, self.guard_info(kind, test, True, node.lineno))
        written = len(self.writes)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            self._note_writes([node.orelse[0].test], node.orelse[0].lineno)
            self.visit_If(node.orelse[0], orelse, scope, kind="elif")
            else_exits = exits(node.orelse)
        else:
            else_exits = self.walk(node.orelse, orelse, scope)
        if else_exits:
            del self.writes[written:]
        if body_exits and not else_exits:
            block.env = orelse.env
            block.guards = (*block.guards, self.guard_info("early-exit", test, True, node.lineno))
        elif else_exits and not body_exits:
            block.env = body.env
            if node.orelse:
                block.guards = (
                    *block.guards,
                    self.guard_info("early-exit", test, False, node.lineno),
                )
        elif not body_exits:
            block.env = _union(body.env, orelse.env)

    def visit_For(self, node: ast.For | ast.AsyncFor, block: _Block, scope: Scope) -> None:
        _note_assigned(scope, node.target, node.iter, loop=True)
        inner = self._guarded(block, self.guard_info("for", node, False, node.lineno, "for"))
        self.walk(node.body, inner, scope)
        leaves = loop_leaves(node.body)
        exhausted = self.guard_info("loop-exhausted", node, False, node.lineno, "for")
        if "break" in leaves:  # `for ... else`: the else runs only when nothing broke out
            self.walk(node.orelse, self._guarded(block, exhausted), scope)
        else:
            self.walk(node.orelse, block, scope)
        block.env = _union(block.env, inner.env)
        if "return" in leaves and "break" not in leaves:
            # what follows runs only when no item made the loop return: when the loop
            # returns from one `if`, no item passes that test (`any(...)` failed)
            test = returning_test(node)
            if test is not None:
                exhausted = self.guard_info("loop-exhausted", test, True, node.lineno, "any")
            block.guards = (*block.guards, exhausted)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While, block: _Block, scope: Scope) -> None:
        if self.walrus:
            _note_walrus(scope, node.test)
        inner = self._guarded(block, self.guard_info("while", node.test, False, node.lineno))
        self.walk(node.body, inner, scope)
        leaves = loop_leaves(node.body)
        exhausted = self.guard_info("loop-exhausted", node.test, False, node.lineno)
        if "break" in leaves:
            self.walk(node.orelse, self._guarded(block, exhausted), scope)
        else:
            self.walk(node.orelse, block, scope)
        block.env = _union(block.env, inner.env)
        if "return" in leaves and "break" not in leaves:
            block.guards = (*block.guards, exhausted)

    def visit_With(self, node: ast.With | ast.AsyncWith, block: _Block, scope: Scope) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                _note_assigned(scope, item.optional_vars, item.context_expr, loop=False)
        inner = self._guarded(block, self.guard_info("with", node, False, node.lineno, "with"))
        self.walk(node.body, inner, scope)
        block.env = inner.env

    visit_AsyncWith = visit_With

    def visit_Try(self, node: ast.Try | ast.TryStar, block: _Block, scope: Scope) -> None:
        body = self._guarded(block, self.guard_info("try", node, False, node.lineno, "try"))
        body_exits = self.walk(node.body, body, scope)
        envs = [] if body_exits else [body.env]
        raiser = raiser_of(node.body)
        for handler in node.handlers:
            types = "BaseException" if handler.type is None else self.render(handler.type)
            inner = self._guarded(
                block,
                self.guard_info("except", handler, False, handler.lineno, "except", raiser),
            )
            scope.handlers.append((handler.name, types, _handler_classes(handler.type)))
            if handler.type is not None and not _raises(handler.body):
                first = self.lines[handler.body[0].lineno - 1].strip()
                self.quiet.append(
                    QuietHandler(
                        function=scope.qualname,
                        caught=_handler_classes(handler.type),
                        line=handler.lineno,
                        then=first if len(first) <= MAX_THEN else first[: MAX_THEN - 1] + "…",
                    )
                )
            try:
                if not self.walk(handler.body, inner, scope):
                    envs.append(inner.env)
            finally:
                scope.handlers.pop()
        if node.orelse:
            self.walk(node.orelse, body, scope)
        if node.finalbody:
            final = self._guarded(
                block, self.guard_info("finally", node, False, node.finalbody[0].lineno, "finally")
            )
            self.walk(node.finalbody, final, scope)
        if envs:
            merged = envs[0]
            for env in envs[1:]:
                merged = _union(merged, env)
            block.env = merged

    visit_TryStar = visit_Try

    def visit_Match(self, node: ast.Match, block: _Block, scope: Scope) -> None:
        matched = self._guarded(block, self.guard_info("match", node.subject, False, node.lineno))
        for case in node.cases:
            inner = self._guarded(
                matched, self.guard_info("case", case, False, case.pattern.lineno, "case")
            )
            self.walk(case.body, inner, scope)

    def visit_Expr(self, node: ast.Expr, block: _Block, scope: Scope) -> None:
        self._note_call(node.value, node, block, scope, alone=True)
        match node.value:
            case ast.Call(
                func=ast.Attribute(value=ast.Name(id=name), attr="append"), args=[item]
            ) if name + ITEMS in block.env or self._a_list(name, block, scope):
                # a list of the function's own (`errors = self._validate()`) whose items
                # we do not read: the items appended are, and the join's holes the rest
                builder = TemplateBuilder(block.env, render=self.render)
                if builder.knows(item):
                    if name + ITEMS not in block.env:
                        block.env[name + OPEN_ITEMS] = ()
                    found = {v[0].text: v for v in block.env.get(name + ITEMS, ())}
                    for variant in builder.variants(item):
                        found.setdefault(variant[0].text, variant)
                    block.env[name + ITEMS] = tuple(found.values())[:MAX_ITEMS]

    def _a_list(self, name: str, block: _Block, scope: Scope) -> bool:
        """Whether `name` is a local the function assigned, not text: what `.append`
        of a message text to it makes a list of messages."""
        return (
            scope.node is not None
            and name not in block.env
            and (_value_of(scope, name) is not None)
        )

    def _note_call(
        self, value: ast.expr | None, node: ast.stmt, block: _Block, scope: Scope, *, alone: bool
    ) -> None:
        """Record a call that heads a statement; `alone` when its result is unused or returned,
        so that a call to a raise helper there is an error site."""
        call = value.value if isinstance(value, ast.Await) else value
        if isinstance(call, ast.Yield | ast.YieldFrom):  # `yield Item(x)`: a call all the same
            call, alone = call.value, False
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name | ast.Attribute)):
            return
        callee = self._callee(call.func, scope)
        self.calls.append(
            CallFact(
                callee=callee,
                line=node.lineno,
                function=scope.qualname,
                owner_class=self._owner(scope),
                alone=alone,
                args=tuple(_argument_source(a) for a in call.args),
                keywords=tuple(
                    (k.arg or "**", _simple(k.value))
                    for k in call.keywords
                    if k.arg or isinstance(k.value, ast.Name)
                ),
                derived=_derived(call, scope),
            )
        )
        if alone and node.lineno in self.want_calls:
            end_line = node.end_lineno or node.lineno
            resolved = self._resolve_inputs([r for g in block.guards for r in g.names], scope)
            self.call_sites.append(
                CallSite(
                    callee=callee,
                    location=Location(
                        file=self.path, line=node.lineno, end_line=end_line, function=scope.qualname
                    ),
                    snippet=self.snippet(node.lineno, end_line),
                    guard=tuple(g.guard for g in block.guards),
                    args=_arguments(
                        TemplateBuilder(block.env, render=self.render), call.args, call.keywords
                    ),
                    inputs=tuple(resolved.inputs.values()),
                    open_attrs=resolved.open_attrs(),
                    open_chains=tuple(resolved.chains.values()),
                    owner_class=self._owner(scope),
                )
            )

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign, block: _Block, scope: Scope) -> None:
        self._note_call(node.value, node, block, scope, alone=False)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if node.value is not None:
            for target in targets:
                _note_assigned(scope, target, node.value, loop=False)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and scope.node:
            scope.annotations[node.target.id] = node.annotation
        for target in targets:
            if isinstance(target, ast.Name):
                value = node.value
                builder = TemplateBuilder(block.env, render=self.render)
                block.env.pop(target.id + ITEMS, None)
                block.env.pop(target.id + OPEN_ITEMS, None)
                if value is not None and builder.knows(value):
                    block.env[target.id] = tuple(builder.variants(value))[:MAX_VARIANTS]
                else:
                    block.env.pop(target.id, None)
                if isinstance(value, ast.List) and all(builder.knows(e) for e in value.elts):
                    items = [v for e in value.elts for v in builder.variants(e)]
                    block.env[target.id + ITEMS] = tuple(items)[:MAX_ITEMS]

    visit_AnnAssign = visit_Assign

    def visit_AugAssign(self, node: ast.AugAssign, block: _Block, scope: Scope) -> None:
        self._note_call(node.value, node, block, scope, alone=False)
        target = node.target
        if not isinstance(target, ast.Name) or target.id not in block.env:
            return
        if not isinstance(node.op, ast.Add):
            block.env.pop(target.id, None)
            return
        tail = TemplateBuilder(block.env, render=self.render).build(node.value)
        block.env[target.id] = tuple(
            (Message(parts=(*msg.parts, *tail.parts)), line) for msg, line in block.env[target.id]
        )

    def visit_Return(self, node: ast.Return, block: _Block, scope: Scope) -> None:
        self._note_call(node.value, node, block, scope, alone=True)
        if scope.node is None:
            return
        value = node.value
        made: tuple[str, Message | None] | None = None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute):
            name = dotted(value.func)
            if _EXCEPTION_NAME.fullmatch(name.rpartition(".")[2]):
                message_node = _message_argument(value.args, value.keywords)
                builder = TemplateBuilder(block.env, render=self.render)
                message = None if message_node is None else builder.build(message_node)
                made = (name, message)
        raised = _UNKNOWN if value is None else self._raised(value, scope)
        self.returned.setdefault(scope.qualname, []).append((made, raised, value))
        if value is not None:
            self._note_text_return(value, block, scope)

    def _note_text_return(self, value: ast.expr, block: _Block, scope: Scope) -> None:
        """Keep the text a `return` gives (each text element of a returned tuple), for a
        raise whose message a call of this function makes."""
        builder = TemplateBuilder(block.env, render=self.render)
        elements: list[tuple[int | None, ast.expr]] = [(None, value)]
        if isinstance(value, ast.Tuple):
            elements = list(enumerate(value.elts))
        for index, element in elements:
            if not builder.knows(element):
                continue
            found = self.text_returns.setdefault(scope.qualname, {}).setdefault(index, [])
            for variant in builder.variants(element):
                if len(found) < MAX_VARIANTS and all(variant[0] != v[0] for v in found):
                    found.append(variant)

    def visit_Continue(self, node: ast.Continue | ast.Break, block: _Block, scope: Scope) -> None:
        return None

    visit_Break = visit_Continue

    # -- sites ------------------------------------------------------------------------

    def visit_Raise(self, node: ast.Raise, block: _Block, scope: Scope) -> None:
        kind: SiteKind = "raise"
        cause = None if node.cause is None else self.render(node.cause)
        factory_built = False
        constructed: Message | None = None
        exc = node.exc
        call_args: list[ast.expr] = []
        call_keywords: list[ast.keyword] = []
        # `exception` is the raise as written (what the id is of); `raised`, the class
        if exc is None:
            kind = "reraise"
            exception = scope.handlers[-1][1] if scope.handlers else "BaseException"
            raised = Raised(classes=scope.handlers[-1][2] if scope.handlers else ())
        elif isinstance(exc, ast.Call):
            exception = dotted(exc.func)
            call_args, call_keywords = exc.args, exc.keywords
            built = _built_by_factory(exc)
            if built is not None:  # raise make_error(SomeError, message, ...)
                exception, call_args = built, exc.args[1:]
                factory_built = True
            elif _from_constructor(exc.func):  # `Cls.from_x(data)`: data, not the message
                made = _CONSTRUCTED.get(self._qualified(exception))
                call_args, call_keywords = [], []
                constructed = made(exc) if made is not None else None
            raised = self._raised(exc, scope)
        else:
            exception = dotted(exc)
            handled = False
            for as_name, types, _ in reversed(scope.handlers):
                if as_name is not None and as_name == exception:
                    if node.cause is None and _assigned_in(scope, as_name) is None:
                        kind = "reraise"  # `except E as e: ...; raise e`: the same exception
                    exception = types
                    handled = True
                    break
            built_here = None if handled else self._built_in_variable(exc, scope)
            if built_here is not None:  # `err = SomeError(f"..."); ...; raise err`
                exception = dotted(built_here.func)
                call_args, call_keywords = built_here.args, built_here.keywords
            raised = self._raised(exc, scope)
        message_node, fields = self._message_node(exception, call_args, call_keywords)
        own_class = exception.split(".")[-1] not in BUILTIN_NAMES
        if not own_class and not call_keywords:
            message_node = _builtin_message(exception, call_args) or message_node
        if constructed is not None:
            message_node = None
        self._emit(
            node,
            kind,
            exception,
            message_node,
            call_args if own_class else [],
            call_keywords if own_class else [],
            block,
            scope,
            (),
            cause,
            raised,
            fields=fields,
            constructed=constructed,
            factory_built=factory_built,
        )

    def _text_call_of(self, node: ast.expr, scope: Scope) -> tuple[ast.Call, int | None] | None:
        """The call of a function whose return is the message: `make_msg(a, b)`, or a
        name assigned it (`msg = make_msg(a)`; `ok, msg = check(x)` takes element 1)."""
        if isinstance(node, ast.Name):
            value = _value_of(scope, node.id)
            if value is None:
                return None
            node = value
            if isinstance(node, ast.Subscript):
                index = node.slice
                if (
                    isinstance(node.value, ast.Call)
                    and isinstance(index, ast.Constant)
                    and type(index.value) is int
                ):
                    return node.value, index.value
                return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            return node, None
        return None

    def _callee_names(self, func: ast.expr, scope: Scope) -> tuple[str, ...]:
        """The qualified names a call may mean in this file, nearest first: a function
        nested in an enclosing one, a module-level one, a method of the own class."""
        if isinstance(func, ast.Name):
            out: list[str] = []
            current: Scope | None = scope
            while current is not None and current.node is not None:
                out.append(f"{current.qualname}.{func.id}")
                current = current.parent
            return (*out, func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = self._owner(scope)
            if func.value.id in ("self", "cls") and owner is not None:
                return (f"{owner}.{func.attr}",)
        return ()

    def _text_sites(self) -> None:
        """Each raise whose message a function of this file returns: one site per text
        that function's returns give, its parameters filled by the call's arguments."""
        for call in reversed(self.text_calls):
            helper = next(
                (self.text_helpers[n] for n in call.candidates if n in self.text_helpers), None
            )
            texts = None if helper is None else helper.returns.get(call.index)
            if helper is None or not texts:
                continue
            site = self.sites[call.site]
            out: list[RawSite] = []
            for template, line in texts:
                message = replace(fill_params(helper.params, template, call.args), source="helper")
                args = site.args
                if call.at is not None and call.at < len(args):
                    args = (
                        *args[: call.at],
                        replace(args[call.at], template=message),
                        *args[call.at + 1 :],
                    )
                note = f"message as returned from line {line}" if len(texts) > 1 else None
                out.append(replace(site, message=message, args=args, variant=note))
            self.sites[call.site : call.site + 1] = out

    def _class_text_sites(self) -> None:
        """A raise whose message is a class-level string of its own class (`raise
        InvalidResponse(self.validate_error_message)`): one site per text that class,
        the base it inherits it from, or a subclass of this file gives it."""
        for i in range(len(self.sites) - 1, -1, -1):
            site = self.sites[i]
            message = site.message
            if message is None or site.owner_class is None or len(message.parts) != 1:
                continue
            part = message.parts[0]
            if not (isinstance(part, Hole) and part.expr.startswith("self.")):
                continue
            attr = part.expr[5:]
            texts = self._class_texts_of(site.owner_class, attr)
            if not texts:
                continue
            out: list[RawSite] = []
            for text, line in texts:
                made = Message(parts=(Text(text=text),), source="constant")
                args = tuple(
                    replace(a, template=made) if a.template == message else a for a in site.args
                )
                note = f"message as set at line {line}" if len(texts) > 1 else None
                out.append(replace(site, message=made, args=args, variant=note))
            self.sites[i : i + 1] = out

    def _class_texts_of(self, owner: str, attr: str) -> list[tuple[str, int]]:
        """The class-level strings `attr` may be for an instance of `owner`: the nearest
        of its line of this file's classes that sets it, and those its subclasses here
        set; none when an __init__ on the way sets it."""
        line = [owner]
        while line[-1] in self.class_bases and len(line) < 16:
            bases = [b for b in self.class_bases[line[-1]] if b in self.class_texts]
            if not bases:
                break
            line.append(bases[0])
        if any(attr in self.init_sets.get(c, frozenset()) for c in line):
            return []
        out: list[tuple[str, int]] = []
        own = next((self.class_texts[c][attr] for c in line if attr in self.class_texts[c]), None)
        if own is None:
            return []
        out.append(own)
        for cls, texts in self.class_texts.items():
            if cls == owner or attr not in texts or owner not in self._line_of(cls):
                continue
            if attr not in self.init_sets.get(cls, frozenset()):
                found = texts[attr]
                if found not in out and len(out) < MAX_VARIANTS:
                    out.append(found)
        return out

    def _line_of(self, cls: str) -> list[str]:
        """`cls` and its bases among this file's classes, nearest first."""
        line = [cls]
        while len(line) < 16:
            bases = [b for b in self.class_bases.get(line[-1], ()) if b in self.class_texts]
            if not bases:
                break
            line.append(bases[0])
        return line

    def _built_in_variable(self, exc: ast.expr, scope: Scope) -> ast.Call | None:
        """The call that built the exception a raised name holds, when the function
        assigned it one that reads as a class (`err = ConnectionError(f"...")`)."""
        if not isinstance(exc, ast.Name):
            return None
        value = _value_of(scope, exc.id)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name | ast.Attribute)
            and class_like(dotted(value.func))
        ):
            return value
        return None

    def _qualified(self, written: str) -> str:
        """A name as written, through the file's imports: `HTTPException` imported from
        fastapi is `fastapi.HTTPException`."""
        head, dot, rest = written.partition(".")
        target = self.imports.get(head)
        return written if target is None else target + dot + rest

    def _message_node(
        self, exception: str, args: list[ast.expr], keywords: list[ast.keyword]
    ) -> tuple[ast.expr | None, bool]:
        """The argument that carries the message, by the class's signature when it is a
        well-known one (`HTTPException(status_code, detail)`), and whether `{name}`
        fields in it are filled later; an exit status is no message."""
        qualified = self._qualified(exception)
        known = KNOWN_MESSAGE_ARGS.get(qualified)
        if known is not None:
            param, index, fields = known
            for keyword in keywords:
                if keyword.arg == param:
                    return keyword.value, fields
            passed = args[index] if index < len(args) else None
            if passed is None or isinstance(passed, ast.Starred):
                return None, False
            return passed, fields
        node = _message_argument(args, keywords)
        if (
            qualified in EXIT_CLASSES
            and isinstance(node, ast.Constant)
            and not isinstance(node.value, str)
        ):
            return None, False  # SystemExit(1): an exit status, nothing printed
        return node, False

    def visit_Assert(self, node: ast.Assert, block: _Block, scope: Scope) -> None:
        if node.msg is not None:
            info = self.guard_info("assert", node.test, True, node.lineno)
            self._emit(
                node, "assert", "AssertionError", node.msg, [], [], block, scope, (info,), None
            )
        if scope.node is not None and not isinstance(node.test, ast.Constant):
            # what follows in the function runs only when the assert held
            held = self.guard_info("asserted", node.test, False, node.lineno)
            block.guards = (*block.guards, held)

    def _emit(
        self,
        node: ast.stmt,
        kind: SiteKind,
        exception: str,
        message_node: ast.expr | None,
        args: list[ast.expr],
        keywords: list[ast.keyword],
        block: _Block,
        scope: Scope,
        extra: tuple[GuardInfo, ...],
        cause: str | None,
        raised: Raised | None = None,
        *,
        fields: bool = False,
        constructed: Message | None = None,
        factory_built: bool = False,
    ) -> None:
        hole_names: list[NameRef] = []
        builder = TemplateBuilder(
            block.env, on_hole=lambda n: hole_names.extend(names_read(n)), render=self.render
        )
        variants: list[Variant | None] = (
            [None] if message_node is None else list(builder.variants(message_node))
        )
        if constructed is not None:
            variants = [(constructed, node.lineno)]
        made = None if message_node is None else self._text_call_of(message_node, scope)
        if fields:  # a template the class fills later: its `{name}` fields are holes
            variants = [v if v is None else (with_fields(v[0]), v[1]) for v in variants]
        arg_facts = _arguments(builder, args, keywords)
        # the argument that is the message, by place among the facts: the class that
        # formats it further gets each of its templates in turn
        passed = [a for a in args if not isinstance(a, ast.Starred)] + [
            k.value for k in keywords if k.arg is not None
        ]
        at = next((i for i, a in enumerate(passed) if a is message_node), None)
        guards = (*block.guards, *extra)
        refs = [ref for g in guards for ref in g.names] + hole_names
        resolved = self._resolve_inputs(refs, scope)
        line = node.lineno
        end_line = node.end_lineno or line
        location = Location(file=self.path, line=line, end_line=end_line, function=scope.qualname)
        snippet = self.snippet(line, end_line)
        dead = unreachable(guards, line, self.writes) if len(guards) > 1 else None
        if made is not None and len(variants) == 1:
            call, index = made
            self.text_calls.append(
                _TextCall(
                    site=len(self.sites),
                    candidates=self._callee_names(call.func, scope),
                    index=index,
                    args=_arguments(builder, call.args, call.keywords),
                    at=at,
                )
            )
        for variant in variants:
            message = None if variant is None else variant[0]
            note = None
            facts = arg_facts
            if variant is not None and len(variants) > 1:
                note = f"message as built from line {variant[1]}"
                if at is not None:
                    facts = (
                        *arg_facts[:at],
                        replace(arg_facts[at], template=variant[0]),
                        *arg_facts[at + 1 :],
                    )
            self.sites.append(
                RawSite(
                    kind=kind,
                    exception=exception,
                    message=message,
                    args=facts,
                    location=location,
                    snippet=snippet,
                    guard=tuple(g.guard for g in guards),
                    inputs=tuple(resolved.inputs.values()),
                    open_attrs=resolved.open_attrs(),
                    owner_class=self._owner(scope),
                    cause=cause,
                    variant=note,
                    unreachable=dead,
                    open_chains=tuple(resolved.chains.values()),
                    raised=raised,
                    factory_built=factory_built,
                )
            )

    def snippet(self, line: int, end_line: int) -> Snippet:
        return snippet_of(self.lines, line, end_line)

    # -- inputs -----------------------------------------------------------------------

    def _owner(self, scope: Scope | None) -> str | None:
        while scope is not None:
            if scope.owner_class is not None:
                return scope.owner_class
            scope = scope.parent
        return None

    def _resolve_inputs(self, refs: list[NameRef], scope: Scope) -> Resolved:
        """The inputs `refs` name, resolved within this file: parameters, members of the
        own class, constants, the file's locals (each with what it is computed from),
        environment variables read in place; what needs other files is left open."""
        found = Resolved()
        for ref in refs:
            self._resolve(ref, scope, found, depth=0)
        return found

    def _resolve(self, ref: NameRef, scope: Scope, found: Resolved, depth: int) -> str | None:
        """Add the input `ref` names to `found`; return its expression when it is one."""
        ref_kind, name, expr = ref
        if expr in found.inputs:
            return expr
        if expr in found.attrs or expr in found.chains:
            return expr
        rule = _REF_RULES.get(ref_kind)
        return None if rule is None else rule(self, name, expr, scope, found, depth)

    def _resolve_self(
        self, name: str, expr: str, scope: Scope, found: Resolved, depth: int
    ) -> str | None:
        owner = self._owner(scope)
        member = self.members.get(owner or "", {}).get(name)
        if member is None:
            found.attrs[expr] = name
            return expr
        found.inputs[expr] = Input(
            name=name,
            expr=expr,
            kind=member.kind,  # type: ignore[arg-type]
            owner=owner,
            type=member.type,
            default=member.default,
            doc=member.doc,
            location=SourcePos(file=self.path, line=member.line),
        )
        return expr

    def _resolve_name(
        self, name: str, expr: str, scope: Scope, found: Resolved, depth: int
    ) -> str | None:
        parameter = self._parameter(name, scope)
        if parameter is not None:
            found.inputs[expr] = parameter
            return expr
        assigned = _assigned_in(scope, name)
        if assigned is not None:
            return self._local(name, assigned, scope, found, depth)
        const = self.constants.get(name)
        if const is None:
            target = self.imports.get(name)
            external = target is not None and target.split(".")[0] not in _STDLIB
            if depth > 0 and external and target is not None and target.split(".")[0] != self.top:
                # a local computed from another distribution's module: what is installed
                found.inputs[expr] = Input(name=name, expr=expr, kind="global", owner=target)
                return expr
            return None
        found.inputs[expr] = Input(
            name=name,
            expr=expr,
            kind="constant",
            owner=self.module,
            type=const.type,
            default=const.default,
            doc=const.doc,
            location=SourcePos(file=self.path, line=const.line),
        )
        return expr

    def _local(
        self,
        name: str,
        assigned: tuple[ast.expr, bool],
        scope: Scope,
        found: Resolved,
        depth: int,
    ) -> str | None:
        """A local variable, with the inputs its assigned value reads as its sources."""
        if depth >= _MAX_LOCAL_DEPTH:
            return None
        value, loop = assigned
        found.inputs[name] = Input(name=name, expr=name, kind="local", owner=scope.qualname)
        sources: list[str] = []
        values = [value]
        if any(ref[2] == name for ref in names_read(value)):  # `x = f(x)`: and before
            values += [v for v, _ in _earlier_in(scope, name)]
        for current in values:
            called = {
                sub.func.id
                for sub in ast.walk(current)
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
            }
            for ref in names_read(current):
                if ref[2] == name or (ref[0] == "name" and ref[1] in called):
                    continue  # the variable itself, or a function it calls
                source = self._resolve(ref, scope, found, depth + 1)
                if source is not None and source not in sources:
                    sources.append(source)
        shown = self.render(value)
        text = clip(("an item of " if loop else "") + shown, _MAX_LOCAL_TEXT)
        whole = not loop and text == " ".join(shown.split())  # the value, not cut
        found.inputs[name] = Input(
            name=name,
            expr=name,
            kind="local",
            owner=scope.qualname,
            default=text,
            default_tree=tree_of(value) if whole else None,
            sources=tuple(sources),
        )
        return name

    def _resolve_chain(
        self, root: str, expr: str, scope: Scope, found: Resolved, depth: int
    ) -> str | None:
        """`a.b.c`: through the annotation of parameter `a` (or a local alias of a dotted
        read), left open for linking; `envs.X` of a module of this package: a global."""
        parts = expr.split(".")
        for _ in range(_MAX_LOCAL_DEPTH):  # follow local aliases: `mc = config.model`
            assigned = None if parts[0] in ("self", "cls") else _assigned_in(scope, parts[0])
            if assigned is None or assigned[1]:
                break
            alias = dotted_parts(assigned[0])
            if alias is None:
                break
            parts = alias + parts[1:]
        head = parts[0]
        if _namespace(scope, head, self._parameter(head, scope)):
            read = ".".join(expr.split(".")[:2])  # `args.dest`, whatever follows
            found.inputs[read] = Input(
                name=parts[1], expr=read, kind="attribute", owner="argparse.Namespace"
            )
            return read
        if head in ("self", "cls"):
            found.chains[expr] = OpenChain(expr=expr, root_type=None, attrs=tuple(parts[1:]))
            return expr
        parameter = self._parameter(head, scope)
        if parameter is not None:
            if parameter.type is not None:
                chain = OpenChain(expr=expr, root_type=parameter.type, attrs=tuple(parts[1:]))
                found.chains[expr] = chain
                return expr
            return None
        target = self.imports.get(head)
        setting = len(parts) == 2 and parts[1].lstrip("_").isupper()
        if setting and target is not None and target.split(".", 1)[0] == self.top:
            found.inputs[expr] = Input(name=parts[1], expr=expr, kind="global", owner=target)
            return expr
        return None

    def _resolve_env(
        self, variable: str, expr: str, scope: Scope, found: Resolved, depth: int
    ) -> str | None:
        found.inputs[expr] = Input(name=variable, expr=expr, kind="env")
        return expr

    def _parameter(self, name: str, scope: Scope | None) -> Input | None:
        while scope is not None:
            arg = scope.params.get(name)
            if arg is not None and name not in ("self", "cls"):
                default = scope.defaults.get(name)
                return Input(
                    name=name,
                    expr=name,
                    kind="parameter",
                    owner=scope.qualname,
                    type=None if arg.annotation is None else self.render(arg.annotation),
                    default=None if default is None else self.render(default),
                    default_tree=None if default is None else tree_of(default),
                    doc=self._param_doc(scope, name),
                    location=SourcePos(file=self.path, line=arg.lineno),
                )
            scope = scope.parent
        return None

    def _param_doc(self, scope: Scope, name: str) -> str | None:
        if scope.param_docs is None:
            scope.param_docs = {}
            doc = None if scope.node is None else ast.get_docstring(scope.node)
            if doc:
                import docstring_parser  # only workers that meet a documented parameter

                try:
                    parsed = docstring_parser.parse(doc)
                except Exception:  # the library fails on odd text in more ways than ParseError
                    parsed = None
                if parsed is not None:
                    for param in parsed.params:
                        if param.description:
                            scope.param_docs[param.arg_name] = clean_doc(param.description)
        return scope.param_docs.get(name)

    # -- what a raise raises -----------------------------------------------------------

    def _raised(self, node: ast.expr, scope: Scope, depth: int = 0) -> Raised:
        """What raising `node` raises, as far as this file tells (see `Raised`)."""
        rule = _RAISED_RULES.get(type(node).__name__)
        if rule is None or depth > _MAX_LOCAL_DEPTH:
            return _UNKNOWN  # a subscript, an attribute of a call, ...: known at run time
        return rule(self, node, scope, depth)

    def _raised_call(self, node: ast.Call, scope: Scope, depth: int) -> Raised:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("with_traceback", "__class__"):
            return self._raised(func.value, scope, depth + 1)  # e's class, or e itself
        match func:
            case ast.Call(func=ast.Name(id="type"), args=[of], keywords=[]):
                return self._raised(of, scope, depth + 1)  # `type(e)(...)`: e's class
        if not isinstance(func, ast.Name | ast.Attribute):
            return _UNKNOWN
        built = _built_by_factory(node)
        if built is not None:
            return Raised(classes=(built,))
        if isinstance(func, ast.Name):
            held = self._variable(func.id, scope, depth)
            if held is not None:  # `error(...)` of a parameter `error: type[E]`, ...
                return held
        written = dotted(func)
        if class_like(written) and not written.startswith(("self.", "cls.")):
            return Raised(classes=(written,))
        return Raised(
            maker=written,
            args=tuple(self._class_argument(a, scope, depth) for a in node.args),
            keywords=tuple(
                (k.arg, self._class_argument(k.value, scope, depth)) for k in node.keywords if k.arg
            ),
        )

    def _class_argument(self, node: ast.expr, scope: Scope, depth: int) -> str | None:
        """An argument as a factory that takes a class reads it: the class a variable
        holds (`exception: type[ParseError]`), else the name written, else None."""
        if isinstance(node, ast.Name):
            held = self._variable(node.id, scope, depth + 1)
            if held is not None and len(held.classes) == 1 and held.maker is None:
                return held.classes[0]
        return _simple(node)

    def _raised_name(self, node: ast.Name, scope: Scope, depth: int) -> Raised:
        held = self._variable(node.id, scope, depth)
        if held is not None:
            return held
        return Raised(classes=(node.id,)) if class_like(node.id) else _UNKNOWN

    def _raised_attribute(self, node: ast.Attribute, scope: Scope, depth: int) -> Raised:
        written = dotted(node)
        if class_like(written) and not written.startswith(("self.", "cls.")):
            return Raised(classes=(written,))
        return Raised(maker=written)  # a property that returns one, or an attribute

    def _raised_ifexp(self, node: ast.IfExp, scope: Scope, depth: int) -> Raised:
        body = self._raised(node.body, scope, depth + 1)
        orelse = self._raised(node.orelse, scope, depth + 1)
        if not (body.classes and orelse.classes) or body.maker or orelse.maker:
            return _UNKNOWN
        return Raised(classes=tuple(dict.fromkeys((*body.classes, *orelse.classes))))

    def _variable(self, name: str, scope: Scope, depth: int) -> Raised | None:
        """What a name of the function holds, as a raise reads it: the owner class for
        `self` and `cls`, the classes of an `except ... as name`, what it was assigned,
        a parameter's class default, its annotation (`type[E]` too). None when the name
        is not the function's own."""
        if name in ("self", "cls"):
            owner = self._owner(scope)
            return None if owner is None else Raised(classes=(owner,))
        for as_name, _, classes in reversed(scope.handlers):
            if as_name == name:
                return Raised(classes=classes)
        value = _value_of(scope, name)
        if value is not None:
            held = self._raised(value, scope, depth + 1)
            if held.classes or held.maker:
                return held
        declared = _declared(scope, name)
        if declared is None:
            return None if _assigned_in(scope, name) is None else _UNKNOWN
        # a parameter's class default (a call that passes none raises it, as a factory's
        # does), which is nearer than its annotation (`type[Exception] = ConnectorError`)
        default, annotation = declared
        if isinstance(default, ast.Name | ast.Attribute) and class_like(dotted(default)):
            return Raised(classes=(dotted(default),))
        cls = None if annotation is None else held_class(self.render(annotation))
        return _UNKNOWN if cls is None else Raised(classes=(cls,))

    # -- helpers ------------------------------------------------------------------------

    def _maybe_factory(self, scope: Scope, is_method: bool) -> None:
        """Record the function as a factory when what it returns is an exception: every
        `return` builds one (one class, or several), or its annotation names one. Its
        message is that of its one return, when that builds the exception in place."""
        returned = self.returned.pop(scope.qualname, [])
        node = scope.node
        annotation = None
        if node is not None and node.returns is not None:
            annotation = held_class(self.render(node.returns))
            if annotation is not None and annotation.rpartition(".")[2] == "Self":
                annotation = self._owner(scope)
        class_defaults = {
            name: dotted(default)
            for name, default in scope.defaults.items()
            if isinstance(default, ast.Name | ast.Attribute) and class_like(dotted(default))
        }
        classes: list[str] = []
        class_param = None
        every = bool(returned)  # every return builds a class we can name
        for _, raised, value in returned:
            passed = _passes_on(value, class_defaults)
            if passed is not None:  # `return exception(...)`, `return make(exception, ...)`
                class_param = passed
                classes.append(class_defaults[passed])
            elif raised.classes and raised.maker is None:
                classes.extend(raised.classes)
            else:
                every = False
        classes = list(dict.fromkeys(classes))
        also: tuple[str, ...] = ()
        if every and len(classes) == 1:
            exception = classes[0]
        elif annotation is not None and self._exception_class(annotation):
            exception = annotation  # `-> TextGenerationError` over its returns' classes
        elif every and classes:
            exception, also = classes[0], tuple(classes[1:])
        else:
            return
        if not any(self._exception_class(c) for c in (exception, *also)):
            return  # a function returning some other object: never raised
        made = returned[0][0] if len(returned) == 1 else None
        message = made[1] if made is not None and made[0] == exception else None
        params = tuple(scope.params)[1:] if is_method else tuple(scope.params)
        self.factories.append(
            HelperFact(
                qualname=scope.qualname,
                exception=exception,
                message=message,
                params=params,
                is_method=is_method,
                class_param=class_param,
                also=also,
            )
        )

    def _exception_class(self, name: str) -> bool:
        """Whether a class this file names reads as an exception: by its name
        (`SomeError`, `Exception`), or by the module it is from (`errors`,
        `web_exceptions`: `HTTPFound`). What else a factory returns is never raised, so
        a factory of it is not kept."""
        if _exception_like(name):
            return True
        head, dot, rest = name.partition(".")
        target = self.imports.get(head)
        qualified = f"{self.module}.{name}" if target is None else target + dot + rest
        return any(_ERRORS_MODULE.search(part) for part in qualified.split(".")[:-1])

    def _maybe_helper(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, is_method: bool
    ) -> None:
        """Record `node` as a raise helper when its body always ends in a raise."""
        body = [s for s in node.body if not _is_docstring(s)]
        if not body or not isinstance(body[-1], ast.Raise) or _returns(body):
            return
        last = body[-1].lineno
        # the function's own sites were appended last: look back only until they end
        raised: list[RawSite] = []
        for site in reversed(self.sites):
            if site.location.line < node.lineno:
                break
            if site.location.line == last:
                raised.insert(0, site)
        message = raised[0].message if raised else None
        if message is None:
            return
        site = raised[0]
        params = tuple(scope.params)[1:] if is_method else tuple(scope.params)
        holes = {p.expr for p in message.parts if isinstance(p, Hole)}
        if site.exception.endswith("NotImplementedError") or not holes & set(params):
            return
        exception = site.exception  # `raise exc(...)` of a parameter `exc=SyntaxError`:
        if isinstance(scope.defaults.get(exception), ast.Name | ast.Attribute):  # its default
            exception = ast.unparse(scope.defaults[exception])
        self.helpers.append(
            HelperFact(
                qualname=scope.qualname,
                exception=exception,
                message=message,
                params=params,
                is_method=is_method,
            )
        )


def _class_texts(node: ast.ClassDef) -> dict[str, tuple[str, int]]:
    """The class body's `name = "text"` assignments, with their lines."""
    out: dict[str, tuple[str, int]] = {}
    for stmt in node.body:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else None
        if isinstance(stmt, ast.AnnAssign):
            target = stmt.target
        value = getattr(stmt, "value", None)
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
        ):
            out[target.id] = (value.value, stmt.lineno)
    return out


def _init_sets(node: ast.ClassDef) -> frozenset[str]:
    """The attributes the class's __init__ assigns on `self`."""
    out: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            for sub in ast.walk(stmt):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.ctx, ast.Store)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "self"
                ):
                    out.add(sub.attr)
    return frozenset(out)


def _text_values(node: ast.expr) -> list[ast.expr]:
    """The values of a dict display whose every value is message text, else []."""
    if not isinstance(node, ast.Dict) or not node.values or None in node.keys:
        return []
    values = list(node.values)
    return values if all(is_stringish(v) for v in values) else []


def _abstract_methods(node: ast.ClassDef) -> tuple[str, ...]:
    """The methods a class body defines under `@abstractmethod` (`@abc.abstractmethod`)."""
    return tuple(
        stmt.name
        for stmt in node.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(dotted(d).rpartition(".")[2] == "abstractmethod" for d in stmt.decorator_list)
    )


def _first_paragraph(doc: str | None) -> str | None:
    """The first paragraph of prose of a docstring, past mkdocs admonitions (`!!! note
    "Title"` or `??? abstract` and the indented block under it, `/// details` … `///`),
    which are asides, not what the thing is."""
    if not doc:
        return None
    indented = closing = False  # inside an admonition: its indented block, or a `///` one
    for paragraph in clean_doc(doc).strip("\n").split("\n\n"):
        lines = paragraph.strip("\n").splitlines()
        if closing:
            closing = "///" not in (line.strip() for line in lines)
            continue
        if lines and lines[0].startswith(("!!!", "???")):
            indented = True
            continue
        if lines and lines[0].startswith("///"):
            closing = "///" not in (line.strip() for line in lines[1:])
            continue
        if indented and lines and lines[0][:1].isspace():
            continue
        indented = False
        text = " ".join(paragraph.split())
        if text:
            return text
    return None


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _returns(body: list[ast.stmt]) -> bool:
    for stmt in body:
        for sub in _statements(stmt):
            if isinstance(sub, ast.Return):
                return True
            if isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Yield | ast.YieldFrom):
                return True
    return False


def _statements(stmt: ast.stmt) -> Iterator[ast.stmt]:
    """`stmt` and the statements nested in it, not entering nested functions or classes."""
    yield stmt
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    for name in ("body", "orelse", "finalbody"):
        for sub in getattr(stmt, name, ()):
            yield from _statements(sub)
    for handler in getattr(stmt, "handlers", ()):
        for sub in handler.body:
            yield from _statements(sub)


def _arguments(
    builder: TemplateBuilder, args: list[ast.expr], keywords: list[ast.keyword]
) -> tuple[ArgFact, ...]:
    """Template and source text of each argument of a call (starred ones left out)."""
    passed: list[tuple[str | None, ast.expr]] = [
        (None, a) for a in args if not isinstance(a, ast.Starred)
    ]
    passed += [(k.arg, k.value) for k in keywords if k.arg is not None]
    return tuple(
        ArgFact(
            keyword=keyword,
            template=builder.build(node),
            source=builder.render(node),
            tree=tree_of(node),
        )
        for keyword, node in passed
    )


def _builtin_message(exception: str, args: list[ast.expr]) -> ast.expr | None:
    """What str() of a builtin exception given several arguments shows, as an
    expression: `OSError(errno, text)` is `f"[Errno {errno}] {text}"`, any other class
    the tuple of its arguments; None for one argument."""
    if len(args) < 2 or any(isinstance(a, ast.Starred) for a in args):
        return None
    cls = getattr(builtins, exception.rpartition(".")[2], None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return None
    group = getattr(builtins, "BaseExceptionGroup", None)
    if issubclass(cls, UnicodeError) or (group is not None and issubclass(cls, group)):
        return None  # rendered their own way: five arguments; a message and its members
    if issubclass(cls, OSError) and len(args) in (2, 3):
        values: list[ast.expr] = [ast.Constant(value="[Errno "), _value(args[0])]
        values += [ast.Constant(value="] "), _value(args[1])]
        if len(args) == 3:
            values += [ast.Constant(value=": "), _value(args[2], "r")]
        return placed(ast.JoinedStr(values=values), args[0])
    return placed(ast.Tuple(elts=list(args), ctx=ast.Load()), args[0])


def _value(node: ast.expr, conversion: str | None = None) -> ast.FormattedValue:
    code = -1 if conversion is None else ord(conversion)
    return placed(ast.FormattedValue(value=node, conversion=code, format_spec=None), node)


def _from_constructor(func: ast.expr) -> bool:
    """`Cls.from_x`: a classmethod that builds the exception from data it is given."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr.startswith("from_")
        and isinstance(func.value, ast.Name | ast.Attribute)
        and class_like(dotted(func.value))
    )


def _validation_title(call: ast.Call) -> Message | None:
    """What pydantic_core's `ValidationError.from_exception_data(title, errors)` prints
    first: `1 validation error for Model` (`errors` for more than one)."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return None
    title = TemplateBuilder(render=ast.unparse).build(call.args[0])
    count = "len(line_errors)"
    if len(call.args) > 1 and not isinstance(call.args[1], ast.Starred):
        count = f"len({ast.unparse(call.args[1])})"
    plural = Hole(expr=f'"s" if {count} > 1 else ""')
    parts: list[Part] = [Hole(expr=count), Text(text=" validation error"), plural]
    parts += [Text(text=" for "), *title.parts]
    return Message(parts=merge(parts), source="exception-class")


_CONSTRUCTED: dict[str, Callable[[ast.Call], Message | None]] = {
    "pydantic_core.ValidationError.from_exception_data": _validation_title,
    "pydantic_core._pydantic_core.ValidationError.from_exception_data": _validation_title,
    "pydantic.ValidationError.from_exception_data": _validation_title,
}


_EXCEPTION_NAME = re.compile(r"[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)")
_ERRORS_MODULE = re.compile(r"(?:^|_)(?:errors?|exceptions?)(?:_|$)")


def _built_by_factory(call: ast.Call) -> str | None:
    """The class a factory call builds, as in `raise _format(GatedRepoError, msg, resp)`:
    a lower-case function whose first argument names an exception class."""
    name = dotted(call.func).rpartition(".")[2]
    if not call.args or not (name[:1].islower() or name[:1] == "_"):
        return None
    first = call.args[0]
    if isinstance(first, ast.Name | ast.Attribute):
        written = dotted(first)
        last = written.rpartition(".")[2]
        if _EXCEPTION_NAME.fullmatch(last):
            return written
        if _ERROR_MAKER.search(name) and class_like(written) and not last.isupper():
            return written  # `self.parse_error(InvalidControlChar, ...)`: any class name
    return None


_ERROR_MAKER = re.compile(r"(?i)err|exc|raise|fail")


@dataclass(frozen=True, slots=True)
class _TextHelper:
    """A function some of whose returns are message text: its positional parameters
    (without self), and the templates of its returns by tuple element (None: the value)."""

    params: tuple[str, ...]
    returns: dict[int | None, list[Variant]]


@dataclass(frozen=True, slots=True)
class _TextCall:
    """A raise whose message a call makes: the site's place in `sites`, the names the
    callee may have, the element of its returned tuple, the call's arguments, and the
    place of the message among the exception's own arguments."""

    site: int
    candidates: tuple[str, ...]
    index: int | None
    args: tuple[ArgFact, ...]
    at: int | None


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(dotted(d) == "staticmethod" for d in node.decorator_list)


# what a return or raise gives: (exception built and its message, or None; what raising
# its value raises; the value)
_Returned = tuple[tuple[str, Message | None] | None, Raised, ast.expr | None]
_UNKNOWN = Raised()


MAX_THEN = 80  # a quiet handler's first statement, cut to this


def _raises(body: list[ast.stmt]) -> bool:
    """Whether a handler's body raises anywhere in it (functions it defines aside)."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Raise):
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _handler_classes(types: ast.expr | None) -> tuple[str, ...]:
    """The classes an `except` catches, as written: each of a tuple's."""
    if types is None:
        return ("BaseException",)
    items = types.elts if isinstance(types, ast.Tuple) else [types]
    return tuple(dotted(item) for item in items)


def _exception_like(name: str) -> bool:
    """Whether a class name reads as an exception's: `SomeError`, `Exception`, ..."""
    last = name.rpartition(".")[2]
    if _EXCEPTION_NAME.fullmatch(last):
        return True
    builtin = getattr(builtins, last, None)
    return isinstance(builtin, type) and issubclass(builtin, BaseException)


def _passes_on(value: ast.expr | None, params: dict[str, str]) -> str | None:
    """The parameter of `params` a returned call calls or hands on, if any."""
    if not isinstance(value, ast.Call):
        return None
    handed = [value.func, *value.args, *(k.value for k in value.keywords)]
    for node in handed:
        if isinstance(node, ast.Name) and node.id in params:
            return node.id
    return None


def _message_argument(args: list[ast.expr], keywords: list[ast.keyword]) -> ast.expr | None:
    if args and not isinstance(args[0], ast.Starred):
        return args[0]
    for keyword in keywords:
        if keyword.arg in MESSAGE_PARAMS:
            return keyword.value
    return None


# -- inputs: what a site's refs resolve to within one file ------------------------------

_MAX_LOCAL_DEPTH = 3  # locals computed from locals, this many steps back
_MAX_LOCAL_TEXT = 120  # a local's value is shown cut to this many characters


@dataclass(slots=True)
class Resolved:
    """Inputs found in one file, by expression, and what is left for linking."""

    inputs: dict[str, Input] = field(default_factory=dict)
    attrs: dict[str, str] = field(default_factory=dict)  # `self.attr` expr -> attr
    chains: dict[str, OpenChain] = field(default_factory=dict)

    def open_attrs(self) -> tuple[tuple[str, str], ...]:
        return tuple((attr, expr) for expr, attr in self.attrs.items())


_RAISED_RULES: dict[str, Callable[[FileVisitor, Any, Scope, int], Raised]] = {
    "Call": FileVisitor._raised_call,
    "Name": FileVisitor._raised_name,
    "Attribute": FileVisitor._raised_attribute,
    "IfExp": FileVisitor._raised_ifexp,
}

_REF_RULES = {
    "self": FileVisitor._resolve_self,
    "name": FileVisitor._resolve_name,
    "chain": FileVisitor._resolve_chain,
    "env": FileVisitor._resolve_env,
}


def _assigned_in(scope: Scope, name: str) -> tuple[ast.expr, bool] | None:
    """What `name` was last assigned in the function being walked or one enclosing it."""
    current: Scope | None = scope
    while current is not None and current.node is not None:
        if name in current.assigned:
            return current.assigned[name]
        if name in current.params:
            return None
        current = current.parent
    return None


def _value_of(scope: Scope, name: str) -> ast.expr | None:
    """What `name` was last assigned, in the function being walked or one enclosing it:
    not an item of a loop (a name bound by unpacking has its own part of the value)."""
    current: Scope | None = scope
    while current is not None and current.node is not None:
        if name in current.assigned:
            value, loop = current.assigned[name]
            return None if loop else value
        if name in current.params:
            return None
        current = current.parent
    return None


def _earlier_in(scope: Scope, name: str) -> list[tuple[ast.expr, bool]]:
    """What `name` was assigned before its last assignment, latest first."""
    current: Scope | None = scope
    while current is not None and current.node is not None:
        if name in current.assigned:
            return current.earlier.get(name, [])
        current = current.parent
    return []


def _declared(scope: Scope, name: str) -> tuple[ast.expr | None, ast.expr | None] | None:
    """(default, annotation) of a parameter or an annotated local `name` of the function
    being walked or one enclosing it; None when it is neither."""
    current: Scope | None = scope
    while current is not None and current.node is not None:
        if name in current.params:
            return current.defaults.get(name), current.params[name].annotation
        if name in current.annotations:
            return None, current.annotations[name]
        if name in current.assigned:
            return None
        current = current.parent
    return None


def _note_assigned(scope: Scope, target: ast.expr, value: ast.expr, *, loop: bool) -> None:
    """Remember, for each name `target` binds, its own part of `value` (`m, n = x.shape`:
    m is `x.shape[0]`) or, in a loop, what it is an item of (`for k, v in d.items()`: v
    of `d.values()`)."""
    if scope.node is None:
        return  # module and class bodies: their names are constants and members
    parts = list(looped(target, value) if loop else unpacked(target, value))
    if len(parts) > 1 and _reads_across(parts):
        # `a, b = b, a`: a's part reads the b from before this statement, but `_local`
        # would follow b to its new part (`a`), round in a circle that never reaches
        # what a and b held; the whole value reads the names themselves, so their
        # earlier values are followed, as before unpacking was split
        parts = [(name, value) for name, _ in parts]
    for name, part in parts:
        old = scope.assigned.get(name)
        if old is not None:
            scope.earlier.setdefault(name, []).insert(0, old)
            del scope.earlier[name][3:]
        scope.assigned[name] = (part, loop)


def _reads_across(parts: list[tuple[str, ast.expr]]) -> bool:
    """Whether a name's part reads another name bound with it whose own part does not
    read that name (`a, b = b, a`, `a, b = b, a + b`); `x, y = y.split()` is fine, as y's
    part reads y and so leads to y's earlier value."""
    reads = {name: {ref[1] for ref in names_read(part) if ref[0] == "name"} for name, part in parts}
    return any(
        other != name and other in reads and other not in reads[other]
        for name, read in reads.items()
        for other in read
    )


def _note_walrus(scope: Scope, test: ast.expr) -> None:
    """The names a condition binds with `:=`."""
    if scope.node is None or type(test) is ast.Name or type(test) is ast.Constant:
        return
    for sub in ast.walk(test):
        if isinstance(sub, ast.NamedExpr):
            scope.assigned[sub.target.id] = (sub.value, False)


def _derived(call: ast.Call, scope: Scope) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The parameters of `scope` that each argument of `call` is computed from, at most
    four each, through the locals it reads (see CallFact.derived); none for an argument
    that is a parameter itself, or `self.x`."""
    out: list[tuple[str, tuple[str, ...]]] = []
    passed = [(str(i), a) for i, a in enumerate(call.args)]
    passed += [(k.arg, k.value) for k in call.keywords if k.arg]
    for key, value in passed:
        if isinstance(value, ast.Starred | ast.Lambda):
            continue
        parts = dotted_parts(value)
        if parts is not None and (
            parts[0] in ("self", "cls") or (parts == [parts[0]] and parts[0] in scope.params)
        ):
            continue  # handed on as it is, read as CallFact.args
        read = (
            [parts[0]]
            if parts is not None
            else [n.id for n in ast.walk(value) if isinstance(n, ast.Name)]
        )
        found = _params_read(read, scope)
        if found:
            out.append((key, tuple(found)[:4]))
    return tuple(out)


def _params_read(names: list[str], scope: Scope, depth: int = 0) -> dict[str, None]:
    """The parameters among `names`, and those the locals among them were assigned
    from, up to three assignments back."""
    found: dict[str, None] = {}
    for name in names:
        if name in scope.params and name not in ("self", "cls"):
            found[name] = None
        elif name in scope.assigned and depth < 3:
            value = scope.assigned[name][0]
            inner = [n.id for n in ast.walk(value) if isinstance(n, ast.Name) and n.id != name]
            found.update(_params_read(inner, scope, depth + 1))
    return found


def _argument_source(node: ast.expr) -> str | None:
    """`_simple` of a call's positional argument; `*args` handed on is "*args"."""
    if isinstance(node, ast.Starred):
        inner = _simple(node.value)
        return None if inner is None else "*" + inner
    return _simple(node)


def _simple(node: ast.expr) -> str | None:
    """The source of an argument that is a name or attribute chain, else None."""
    parts = dotted_parts(node)
    return None if parts is None else ".".join(parts)


_STDLIB = frozenset(sys.stdlib_module_names)
_PARSE_ARGS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
_PARSE_KNOWN = frozenset({"parse_known_args", "parse_known_intermixed_args"})  # (args, rest)


def _namespace(scope: Scope, name: str, parameter: Input | None) -> bool:
    """Whether `name` holds parsed command-line arguments: a parameter annotated
    `Namespace`, or a local assigned from `parser.parse_args()` (or the first of
    `args, rest = parser.parse_known_args()`, which the unpacking made `...[0]`)."""
    if parameter is not None:
        return (parameter.type or "").rsplit(".", 1)[-1] == "Namespace"
    assigned = _assigned_in(scope, name)
    if assigned is None or assigned[1]:
        return False
    value, wanted = assigned[0], _PARSE_ARGS
    if isinstance(value, ast.Subscript):
        index = value.slice
        if not isinstance(index, ast.Constant) or index.value != 0:
            return False
        value, wanted = value.value, _PARSE_KNOWN
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return isinstance(func, ast.Attribute) and func.attr in wanted
