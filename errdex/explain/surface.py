# Who can fix it, from reach rather than names: the package's public surface (what a
# user imports and calls) and, for a parameter a check reads, the way a user's value
# takes to it, followed backwards over the call graph: a caller that hands on its own
# parameter (by position, keyword or `**kwargs`), a method that hands on `self.x` that
# its class's constructor stored from a parameter. A check that no public function's
# parameter reaches reads what the package computed.
from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from errdex.explain.access import private_path
from errdex.explain.callgraph import CallGraph
from errdex.explain.catalog import error_named
from errdex.explain.knobs import KnobIndex
from errdex.explain.records import replaced
from errdex.extract.facts import CallFact, ClassFact, FileFacts
from errdex.model import ErrorSite, Hop, Input, Knob, SourcePos

MAX_HOPS = 6  # calls between the public function and the check
_MAX_VISITS = 64  # (function, parameter) pairs one search looks at
_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
# dunder methods an operator or statement runs: their parameters are the operands a user
# wrote (`x in errors` hands `x` to `__contains__`)
_RUN_BY_SYNTAX = frozenset(
    {"__call__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__enter__",
     "__exit__", "__iter__", "__getattr__", "__setattr__", "__eq__", "__lt__", "__le__",
     "__gt__", "__ge__", "__add__", "__sub__", "__mul__", "__truediv__", "__or__",
     "__and__", "__len__", "__bool__", "__format__", "__aenter__", "__aexit__"}
)  # fmt: skip
# the public modules right below the package (`rich.text`, `click.core`) are what its
# users import; deeper ones (`vllm.model_executor.layers.x`) are its machinery, unless a
# public `__init__` exports their names
_API_DEPTH = 1
# a package whose top-level module names fewer of its own objects than this declares no
# surface of its own: every public name of a public module is then taken as public
_DECLARED_FROM = 3


def _error_classes(classes: dict[str, ClassFact]) -> frozenset[str]:
    """The package's exception classes, module-qualified: a base named as errors are
    (`Exception`, `ValueError`, `tenacity.RetryError`), or one of theirs, by name."""
    found: set[str] = set()
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for qualified, fact in classes.items():
            if qualified in found:
                continue
            bases = [b.split("[", 1)[0].rsplit(".", 1)[-1] for b in fact.bases]
            if any(error_named(b) or b in names for b in bases):
                found.add(qualified)
                names.add(qualified.rsplit(".", 1)[-1])
                changed = True
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Route:
    """A way from a public parameter to a check: the hops, public end first."""

    hops: tuple[Hop, ...]
    root: str  # the public function, module-qualified


class Surface:
    """The package's public surface and the reach of its checks' parameters."""

    def __init__(self, facts: Sequence[FileFacts], graph: CallGraph):
        self.graph = graph
        self.files = {f.module: f for f in facts}
        self.classes: dict[str, ClassFact] = {
            f"{f.module}.{c.qualname}": c for f in facts for c in f.classes
        }
        self.varkw = {
            f"{f.module}.{fn.qualname}": fn.varkw for f in facts for fn in f.functions if fn.varkw
        }
        self.exported = _exported(facts, graph)
        self.errors = _error_classes(self.classes)
        self._routes: dict[tuple[str, str], Route | None] = {}
        self._entries: dict[str, tuple[str, ...]] = {}

    def declared(self, function: str) -> bool:
        """Whether `function` (module-qualified) is a public function or method that the
        package offers its users: its top-level object exported by a public top
        `__init__` (anything public, when the package exports too little to say), or a
        class of a public module right below the package; no private part on the way."""
        module = self.graph.module_of(function)
        local = function[len(module) + 1 :] if module else function
        if not module or not local or private_path(self.files[module].path):
            return False
        parts = local.split(".")
        if any(_private(p) for p in parts):
            return False
        last = parts[-1]
        run_by_syntax = last in _RUN_BY_SYNTAX and len(parts) > 1  # a module's `__getattr__`: no
        if last.startswith("__") and last not in _CONSTRUCTORS and not run_by_syntax:
            return False
        if len(parts) > 1 and f"{module}.{parts[0]}" not in self.classes:
            return False  # a function nested in another: the library's own helper
        if last in _CONSTRUCTORS and f"{module}.{'.'.join(parts[:-1])}" in self.errors:
            return False  # the package raises its errors: what they hold is its own
        if self.exported is None or f"{module}.{parts[0]}" in self.exported:
            return True
        # a class of a top module (`rich.text.Text`) is imported from there; its
        # functions (`email_validator.syntax.check_dot_atom`) are the package's helpers
        # when the package says what it exports
        return module.count(".") <= _API_DEPTH and f"{module}.{parts[0]}" in self.classes

    def route(self, function: str, param: str) -> Route | None:
        """The nearest way from a public function's parameter to the parameter `param`
        of `function`, the way to a declared one preferred; None when every way runs
        into a value the package computes, or when the graph cannot tell."""
        key = (function, param)
        if key not in self._routes:
            self._routes[key] = None  # a cycle finds nothing
            self._routes[key] = self._search(function, param)
        return self._routes[key]

    def _search(self, function: str, param: str) -> Route | None:
        start = (function, param)
        todo: deque[tuple[str, str, tuple[Hop, ...]]] = deque(
            [(function, param, (Hop(function=self.shown(function), param=param),))]
        )
        seen = {start}
        found: list[tuple[int, Route]] = []  # (rank, route): a plain copy, declared, first
        while todo and len(seen) <= _MAX_VISITS:
            current, name, hops = todo.popleft()
            computed = any(h.computed for h in hops)
            if _private(name):  # `_allow_empty`: a keyword the package passes itself
                continue
            if self.declared(current):
                found.append((2 * computed, Route(hops=hops, root=current)))
                if not computed:
                    break
                continue
            callers = self.graph.callers(current)
            if not callers:
                if self._uncalled_public(current):
                    route = Route(hops=hops, root=current)
                    found.append((1 + 2 * computed, route))
                continue
            if len(hops) > MAX_HOPS:
                continue
            for caller in callers:
                for step in self._handed(caller, current, name):
                    if step[:2] in seen:
                        continue
                    seen.add(step[:2])
                    todo.append((step[0], step[1], (step[2], *hops)))
        return min(found, key=lambda f: f[0])[1] if found else None

    def _handed(self, caller: str, callee: str, name: str) -> Iterable[tuple[str, str, Hop]]:
        """Where `caller` gets what it passes `callee` as `name`: its own parameter, or
        the constructor parameter its class stored in the field it passes."""
        signature = self.graph.signatures.get(callee)
        theirs = self.graph.signatures.get(caller)
        if signature is None or theirs is None:
            return
        params, bound = signature
        positional = params[1:] if bound else params
        own = set(theirs[0]) - {"self", "cls"}
        module = self.graph.module_of(caller)
        path = self.files[module].path if module in self.files else None
        for call in self.graph.calls_between(caller, callee):
            arg = _argument(call, name, positional, self.varkw.get(caller))
            where = None if path is None else SourcePos(file=path, line=call.line)
            if arg is not None and (
                arg in own or (arg == name and ("**", self.varkw.get(caller)) in call.keywords)
            ):
                yield caller, arg, Hop(function=self.shown(caller), param=arg, location=where)
                continue
            if arg is not None and theirs[1] and arg.startswith("self.") and arg.count(".") == 1:
                stored = self.stored(caller.rsplit(".", 1)[0], arg[5:])
                if stored is not None:
                    init, param = stored
                    yield init, param, Hop(function=self.shown(init), param=param, location=where)
                continue
            # computed, a local, or an attribute of a parameter: made from what it got
            for read in _computed_from(call, name, positional):
                if read in own:
                    hop = Hop(
                        function=self.shown(caller), param=read, location=where, computed=True
                    )
                    yield caller, read, hop

    def entry(self, function: str) -> tuple[str, ...]:
        """The nearest public function a user calls that runs `function`, and the
        functions on the way (as a user names them, the public one first); empty when
        `function` is public itself or no way to one is seen."""
        if function not in self._entries:
            self._entries[function] = self._entry(function)
        return self._entries[function]

    def _entry(self, function: str) -> tuple[str, ...]:
        if self.declared(function):
            return ()
        todo: deque[tuple[str, tuple[str, ...]]] = deque([(function, (function,))])
        seen = {function}
        while todo and len(seen) <= _MAX_VISITS:
            current, path = todo.popleft()
            if len(path) > MAX_HOPS:
                continue
            for caller in self.graph.callers(current):
                if caller in seen or caller.endswith(".<module>"):
                    continue
                seen.add(caller)
                if self.declared(caller):
                    return tuple(self.shown(q) for q in (caller, *path))
                todo.append((caller, (caller, *path)))
        return ()

    def stored(self, cls: str, field: str) -> tuple[str, str] | None:
        """The constructor and its parameter that a class's field `field` is set from
        (`self.x = x` in `__init__`, a dataclass field)."""
        fact = self.classes.get(cls)
        if fact is None:
            return None
        member = next((m for m in fact.members if m.name == field), None)
        if member is None:
            return None
        init = f"{cls}.__init__"
        if member.kind == "field" and field in fact.init_names:
            return init, field
        if member.kind == "attribute" and member.default in fact.init_names:
            return init, member.default
        return None

    def _uncalled_public(self, function: str) -> bool:
        """A public function of a public module that the package never calls: only a
        user can (or a caller the graph does not see)."""
        module = self.graph.module_of(function)
        local = function[len(module) + 1 :] if module else function
        if not module or private_path(self.files[module].path):
            return False
        parts = local.split(".")
        if any(_private(p) for p in parts):
            return False
        if len(parts) > 1 and f"{module}.{parts[0]}" not in self.classes:
            return False  # a function nested in another: the library's own helper
        if self.exported is not None and module.count(".") > _API_DEPTH + 1:
            return False  # deep in a package that says what it offers: called by name
        return not self.graph.called_somehow(function)

    def root_knobs(self, route: Route, knobs: KnobIndex) -> tuple[Knob, ...]:
        """The command-line options that set the parameter a route starts from (a click
        or typer command's parameter)."""
        module = self.graph.module_of(route.root)
        facts = self.files.get(module)
        if facts is None:
            return ()
        local = route.root[len(module) + 1 :]
        return tuple(knobs.params.get((facts.path, local, route.hops[0].param), ()))

    def shown(self, function: str) -> str:
        """A function as a user names it: without its module, a class for its
        constructor."""
        module = self.graph.module_of(function)
        local = function[len(module) + 1 :] if module else function
        head, _, last = local.rpartition(".")
        return head if last in _CONSTRUCTORS and head else local


def with_reach(
    site: ErrorSite, surface: Surface, target: str, knobs: KnobIndex | None = None
) -> ErrorSite:
    """`site` with the reach of its parameters and fields set (`Input.reach`), and their
    access from it: a value a public parameter hands on is the user's, one that every
    caller computes is the package's own. `target`: the site's function,
    module-qualified."""
    if not site.inputs or target.endswith(".<module>"):
        return site
    function = site.location.function
    owner = target.rsplit(".", 1)[0] if "." in function else None
    out: list[Input] = []
    for item in site.inputs:
        route: Route | None = None
        known = True  # whether the graph could tell
        if item.kind == "parameter" and item.owner == function:
            route = surface.route(target, item.name)
            known = bool(surface.graph.callers(target)) or surface.declared(target)
        elif (
            item.kind in ("attribute", "field")
            and owner is not None
            and item.expr == f"self.{item.name}"
        ):
            stored = surface.stored(owner, item.name)
            if stored is not None and owner in surface.errors:
                out.append(replaced(item, access="internal"))  # what the package raised
                continue
            if stored is not None:
                route = surface.route(*stored)
                known = bool(surface.graph.callers(stored[0])) or surface.declared(stored[0])
            else:
                known = False
        else:
            known = False
        if route is not None and any(h.computed for h in route.hops):
            # the user's value, made into another one on the way: the user changes theirs
            out.append(replaced(item, access="internal", reach=route.hops))
        elif route is not None and _private(item.name):
            # `self._parsed` stored from `parsed`: the knob that sets it names it
            out.append(replaced(item, reach=route.hops if len(route.hops) > 1 else ()))
        elif route is not None and len(route.hops) == 1 and item.access == "internal":
            out.append(item)  # its own root, of a kind no user hands over (`__call__` of
            # a callback, `__getattr__`'s name): the access says so already
        elif route is not None:
            hops = route.hops if len(route.hops) > 1 else ()  # one: it is its own root
            set_by = () if knobs is None or not hops else surface.root_knobs(route, knobs)
            out.append(replaced(item, access="public", reach=hops, knobs=set_by or item.knobs))
        elif known and item.access == "public" and not _forwarded(surface, target, item):
            out.append(replaced(item, access="internal"))
        else:
            out.append(item)
    return replaced(site, inputs=tuple(out))


def _forwarded(surface: Surface, target: str, item: Input) -> bool:
    """Whether a caller hands `item` on in a way the graph does not follow: `*args`, or
    `**options` that are not its own `**kwargs`."""
    if item.kind != "parameter":
        return False
    for caller in surface.graph.callers(target):
        varkw = surface.varkw.get(caller)
        for call in surface.graph.calls_between(caller, target):
            if any(a is not None and a.startswith("*") for a in call.args):
                return True
            if any(k == "**" and v != varkw for k, v in call.keywords):
                return True
    return False


def _computed_from(call: CallFact, name: str, positional: Sequence[str]) -> tuple[str, ...]:
    """The names that the argument `call` computes for the parameter `name` reads."""
    keys = {name}
    if name in positional:
        keys.add(str(positional.index(name)))
    return next((names for key, names in call.derived if key in keys), ())


def _argument(
    call: CallFact, name: str, positional: Sequence[str], varkw: str | None
) -> str | None:
    """What `call` passes as the parameter `name`: a name or attribute as written, the
    caller's own parameter name when it hands on its `**kwargs`; None when computed or
    not passed."""
    for keyword, value in call.keywords:
        if keyword == name:
            return value
    if name in positional:
        index = positional.index(name)
        if index < len(call.args):
            return call.args[index]
    if varkw is not None and ("**", varkw) in call.keywords:
        return name  # the caller's own keyword, handed on through its **kwargs
    return None


def _exported(facts: Sequence[FileFacts], graph: CallGraph) -> set[str] | None:
    """The top-level objects (module-qualified, where defined) that the package's public
    `__init__` modules define or import by name; None when its top-level module names
    too few of its own to declare a surface."""
    tops = {f.module.split(".")[0] for f in facts}
    found: set[str] = set()
    top_count = 0
    for f in facts:
        if not f.path.endswith("__init__.py") or private_path(f.path):
            continue
        if f.module.count(".") > _API_DEPTH:
            continue  # a deep subpackage's own names: the package's machinery
        named = [q for _, q in f.imports if q.split(".")[0] in tops]
        named += [f"{f.module}.{c.qualname}" for c in f.classes if "." not in c.qualname]
        named += [f"{f.module}.{fn.qualname}" for fn in f.functions if "." not in fn.qualname]
        if "." not in f.module:
            top_count += len(named)
        named += _starred(f, facts)
        found.update(graph.defined_at(q) for q in named)
    return found if top_count >= _DECLARED_FROM else None


def _starred(f: FileFacts, facts: Sequence[FileFacts]) -> list[str]:
    """The top-level names of the modules `f` imports everything from."""
    out = []
    for module in f.stars:
        other = next((o for o in facts if o.module == module), None)
        if other is not None:
            out += [f"{module}.{c.qualname}" for c in other.classes if "." not in c.qualname]
            out += [f"{module}.{fn.qualname}" for fn in other.functions if "." not in fn.qualname]
    return out


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def said_root(item: Input) -> str | None:
    """The user's own call or option that sets `item`, from its reach: "your call
    `decode(audience=…)`", "your `--recursive` option"; None when it has no reach, or the
    value is computed on the way."""
    if not item.reach or any(h.computed for h in item.reach):
        return None
    option = next((k for k in item.knobs if k.kind in ("option", "flag")), None)
    if option is not None:
        return f"your `{option.name}` option"
    root = item.reach[0]
    return f"your call `{root.function}({root.param}=…)`"


def said_route(item: Input) -> str | None:
    """The way `item` takes from the user's call to the check: "`decode` → `check`"."""
    names = list(dict.fromkeys(h.function for h in item.reach))
    return " → ".join(f"`{n}`" for n in names) if len(names) > 1 else None
