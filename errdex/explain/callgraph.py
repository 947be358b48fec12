# A best-effort static call graph: which functions of the codebase call a given one.
# Callees are resolved through imports, the module's own names and `self.`; a call on
# an unknown receiver counts only when exactly one function of the codebase has that
# name. Constructing a class counts as calling its __init__ / __post_init__.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.extract.facts import CallFact, FileFacts

MAX_DEPTH = 4
MAX_PATHS = 3
_MAX_HOPS = 8
_CONSTRUCTORS = ("__init__", "__post_init__", "__new__")
# `t.Type[X]`, `type[X]`, `typing.Type["X"]`: an attribute that holds the class X or one
# of its subclasses
_HELD_CLASS = re.compile(r"""^(?:[\w.]*\.)?[Tt]ype\[\s*["']?([\w.]+)["']?\s*\]$""")
# `dict[type[Exception], type[X]]`, `t.Mapping[str, t.Type[X]]`: a mapping whose values
# are classes, the class held (group 1) as _HELD_CLASS reads it
_HELD_VALUES = re.compile(
    r"^(?:[\w.]*\.)?(?:[Dd]ict|Mapping|MutableMapping)\[.+,\s*((?:[\w.]*\.)?[Tt]ype\[[^\[\]]+\])\s*\]$"
)


class CallGraph:
    """Callers of functions, resolved lazily from the calls each file records."""

    def __init__(self, facts: Sequence[FileFacts]):
        self.modules = {f.module: f for f in facts}
        self.imports = {f.module: dict(f.imports) for f in facts}
        self.functions: set[str] = set()
        self.signatures: dict[str, tuple[tuple[str, ...], bool]] = {}  # params, is a method
        self.classes: set[str] = set()
        written_bases: dict[str, tuple[str, ...]] = {}
        self.toplevel: dict[str, set[str]] = defaultdict(set)
        short: dict[str, int] = defaultdict(int)
        self.by_short: dict[str, str] = {}
        for f in facts:
            for fn in f.functions:
                self.functions.add(f"{f.module}.{fn.qualname}")
                bound = fn.owner_class is not None and fn.params[:1] in (("self",), ("cls",))
                self.signatures[f"{f.module}.{fn.qualname}"] = (fn.params, bound)
                self.toplevel[f.module].add(fn.qualname.split(".")[0])
                short[fn.qualname.rsplit(".", 1)[-1]] += 1
                self.by_short[fn.qualname.rsplit(".", 1)[-1]] = f"{f.module}.{fn.qualname}"
            for cls in f.classes:
                self.classes.add(f"{f.module}.{cls.qualname}")
                written_bases[f"{f.module}.{cls.qualname}"] = cls.bases
                self.toplevel[f.module].add(cls.qualname.split(".")[0])
        self.unique_names = {name for name, n in short.items() if n == 1}
        self.called: set[str] = set()
        for f in facts:
            self.called |= f.called
        # the functions that call what no name says: what lies below them is not all seen
        self.opaque = {f"{f.module}.{q}" for f in facts for q in f.opaque}
        # by the callee's last name: the calls that head a statement, and those written
        # inside an expression (`nested`, for finding tests only)
        self.calls: dict[str, list[tuple[str, CallFact]]] = defaultdict(list)
        self.nested: dict[str, list[tuple[str, CallFact]]] = defaultdict(list)
        for f in facts:
            for call in f.calls:
                pool = self.nested if call.nested else self.calls
                pool[call.callee.rsplit(".", 1)[-1]].append((f.module, call))
        self._callers: dict[str, list[str]] = {}
        self._reaching: dict[str, list[str]] = {}
        self._resolved: dict[tuple[str, str, str | None], str | None] = {}
        self._wide: dict[str, set[str]] | None = None  # see _wide_index
        self._followed: dict[str, str] = {}  # what _follow found
        self._edges: dict[tuple[str, str], list[CallFact]] = defaultdict(list)
        self._written_bases = written_bases
        self._subclasses: dict[str, set[str]] | None = None

    def callers(self, target: str) -> list[str]:
        """Module-qualified names of the functions that call `target` in a statement of
        their own (what they pass is read), sorted."""
        if target not in self._callers:
            self._callers[target] = []  # a cycle sees no callers
            self._callers[target] = self._find(target)
        return self._callers[target]

    def calls_between(self, caller: str, callee: str) -> list[CallFact]:
        """The calls of `callee` that `caller` makes, as `callers(callee)` found them."""
        return self._edges.get((caller, callee), [])

    def defined_at(self, qualified: str) -> str:
        """A name of the codebase followed through re-exports to where it is defined."""
        return self._follow(qualified)

    def module_of(self, qualified: str) -> str:
        """The module of the codebase that `qualified` is in ("" if none)."""
        return self._module_of(qualified)

    def reaching(self, target: str) -> list[str]:
        """Every function that may run `target` as far as the graph can tell, for
        finding tests: the callers, and calls written inside an expression (`return
        b"".join(self.iter_bytes())`), through an inherited method (`self.m()` that a base
        class defines), `super().m()`, or a function the caller defines. The explanations
        read `callers` alone: what they say of who passes what was made on that graph."""
        if target not in self._reaching:
            index = self._wide_index()
            found = set(index.get(target, ()))
            if target.rsplit(".", 1)[-1] in _CONSTRUCTORS:  # `Class(...)` builds it too
                found |= index.get(target.rsplit(".", 1)[0], set())
            found.discard(target)
            self._reaching[target] = sorted(found, key=lambda q: (q.endswith("<module>"), q))
        return self._reaching[target]

    def _wide_index(self) -> dict[str, set[str]]:
        """What each call of the codebase names, resolved wide once for all: the
        functions and classes -> who calls them (a search by name per target, as
        `callers` does, took vllm 8 s: `__init__` alone is thousands of calls)."""
        if self._wide is None:
            index: dict[str, set[str]] = defaultdict(set)
            for pool in (self.calls, self.nested):
                for calls in pool.values():
                    for module, call in calls:
                        found = self.resolve(module, call, wide=True)
                        if found is not None:
                            index[found].add(f"{module}.{call.function}")
            self._wide = index
        return self._wide

    def _find(self, target: str) -> list[str]:
        name = target.rsplit(".", 1)[-1]
        wanted = target
        if name in _CONSTRUCTORS:
            wanted = target.rsplit(".", 1)[0]
            name = wanted.rsplit(".", 1)[-1]
        found: set[str] = set()
        resolved = self._resolved
        for module, call in self.calls.get(name, ()):
            key = (module, call.callee, call.owner_class)
            if key not in resolved:
                resolved[key] = self.resolve(module, call)
            if resolved[key] == wanted:
                found.add(f"{module}.{call.function}")
                self._edges[(f"{module}.{call.function}", target)].append(call)
        found.discard(target)
        return sorted(found, key=lambda q: (q.endswith("<module>"), q))

    def subclasses(self, cls: str) -> set[str]:
        """The module-qualified classes of the codebase that derive from `cls`, at any
        depth (through bases the graph can resolve)."""
        if self._subclasses is None:
            direct: dict[str, set[str]] = defaultdict(set)
            for sub, written in self._written_bases.items():
                module = self._module_of(sub)
                for base in written:
                    resolved = self._class_named(module, base)
                    if resolved is not None and resolved != sub:
                        direct[resolved].add(sub)
            self._subclasses = {}
            for top in direct:
                found: set[str] = set()
                todo = list(direct[top])
                while todo:
                    nxt = todo.pop()
                    if nxt not in found and nxt != top:
                        found.add(nxt)
                        todo.extend(direct.get(nxt, ()))
                self._subclasses[top] = found
        return self._subclasses.get(cls, set())

    def member_class(self, cls: str, member: str) -> str | None:
        """The class of the codebase that the annotation of `cls`'s attribute `member`
        names as a class it holds (`exc: t.Type[TemplateRuntimeError]`), or None."""
        module, rest = cls, ""
        while module and module not in self.modules:
            module, _, parent = module.rpartition(".")
            rest = f"{parent}.{rest}" if rest else parent
        facts = self.modules.get(module)
        found = next((c for c in facts.classes if c.qualname == rest), None) if facts else None
        written = next((m.type for m in found.members if m.name == member), None) if found else None
        held = _HELD_CLASS.match(written or "")
        return None if held is None else self._class_named(module, held.group(1))

    def mapped_class(self, function: str, constant: str) -> str | None:
        """The class of the codebase that the annotation of the module constant
        `constant`, read in `function`, names as the class its values hold
        (`EXC_MAP: dict[type[Exception], type[HTTPError]]`), or None."""
        module = self._module_of(function)
        facts = self.modules.get(module)
        constants = facts.constants if facts is not None else ()
        written = next((c.type for c in constants if c.name == constant), None)
        values = _HELD_VALUES.match(written or "")
        held = _HELD_CLASS.match(values.group(1)) if values else None
        if held is None:
            return None
        found = self._class_named(module, held.group(1))
        head, _, name = held.group(1).rpartition(".")
        if found is None and head in self.imports.get(module, {}):
            # `type[httpx.HTTPError]`, the package taking it from `from ._exceptions import *`
            package = self._follow(self.imports[module][head])
            stars = self.modules[package].stars if package in self.modules else ()
            found = next(
                (c for m in stars if (c := self._follow(f"{m}.{name}")) in self.classes), None
            )
        return found

    def _class_named(self, module: str, written: str) -> str | None:
        """The class of the codebase a name written in `module` stands for, or None."""
        head, _, rest = written.partition(".")
        if head in self.imports.get(module, {}):
            found = self._follow(self.imports[module][head] + ("." + rest if rest else ""))
        elif head in self.toplevel.get(module, ()):
            found = f"{module}.{written}"
        else:
            return None
        return found if found in self.classes else None

    def resolve(self, module: str, call: CallFact, *, wide: bool = False) -> str | None:
        """The function or class a call names, or None when it cannot be told; `wide`:
        also through base classes, `super()` and the caller's own nested functions."""
        head, _, rest = call.callee.partition(".")
        if head in ("self", "cls"):
            if call.owner_class is None or not rest or "." in rest:
                return None
            if wide:
                return self._inherited(f"{module}.{call.owner_class}", rest)
            return f"{module}.{call.owner_class}.{rest}"
        if wide and head == "super()":  # `super().__init__(...)`: a base's
            if call.owner_class is None or not rest or "." in rest:
                return None
            return self._inherited(f"{module}.{call.owner_class}", rest, own=False)
        if wide and not rest and f"{module}.{call.function}.{head}" in self.functions:
            return f"{module}.{call.function}.{head}"  # a function the caller defines
        imports = self.imports.get(module, {})
        if head in imports:
            return self._follow(imports[head] + ("." + rest if rest else ""))
        if head in self.toplevel.get(module, ()):
            return f"{module}.{call.callee}"
        last = call.callee.rsplit(".", 1)[-1]
        if rest and last in self.unique_names and not last.startswith("__") and last not in _COMMON:
            return self.by_short[last]
        return None

    def _inherited(self, cls: str, method: str, *, own: bool = True) -> str | None:
        """`cls.method`, or where a base class of `cls` defines the method when `cls`
        itself does not (breadth first, as the MRO mostly goes); `own=False`: a base's
        alone, as `super()` finds it (None when none of the codebase does)."""
        seen = {cls}
        todo = [cls]
        while todo:
            current = todo.pop(0)
            if (own or current != cls) and f"{current}.{method}" in self.functions:
                return f"{current}.{method}"
            module = self._module_of(current)
            for base in self._written_bases.get(current, ()):
                found = self._class_named(module, base)
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
        return f"{cls}.{method}" if own else None

    def _module_of(self, qualified: str) -> str:
        """The longest prefix of `qualified` that is a module of the codebase ("" if
        none): where the names written in that function or class are looked up."""
        module = qualified
        while module and module not in self.modules:
            module = module.rpartition(".")[0]
        return module

    def _follow(self, qualified: str) -> str:
        """Follow re-exports (`from .x import Y` in a package) to where Y is defined."""
        found = self._followed.get(qualified)
        if found is None:
            found = self._followed[qualified] = self._follow_hops(qualified)
        return found

    def _follow_hops(self, qualified: str) -> str:
        for _ in range(_MAX_HOPS):
            if qualified in self.functions or qualified in self.classes:
                return qualified
            module, _, name = qualified.rpartition(".")
            head = name
            while module and module not in self.modules:
                module, _, parent = module.rpartition(".")
                head = f"{parent}.{head}"
            if not module:
                return qualified
            first, _, rest = head.partition(".")
            target = self.imports.get(module, {}).get(first)
            if target is None:
                return f"{module}.{head}"
            qualified = target + ("." + rest if rest else "")
        return qualified

    def paths(self, target: str) -> tuple[tuple[str, ...], ...]:
        """A few caller chains of `target`, nearest caller first, each to a root or
        MAX_DEPTH callers deep; distinct first callers preferred."""
        out: list[tuple[str, ...]] = []
        for first in self.callers(target)[: MAX_PATHS * 2]:
            path = [first]
            seen = {target, first}
            while len(path) < MAX_DEPTH:
                nxt = [c for c in self.callers(path[-1]) if c not in seen]
                if not nxt:
                    break
                path.append(nxt[0])
                seen.add(nxt[0])
            out.append(tuple(path))
        out.sort(key=lambda p: -len(p))
        return tuple(out[:MAX_PATHS])

    def handoff(self, target: str, names: Sequence[str]) -> Origin | None:
        """Where the parameters `names` of `target` come from: the public function that
        takes them from its own caller (one the package itself never calls), or the
        fields of an object whose method passes `self.field`; None when a caller on the
        way passes something it computed, so the value is the library's own."""
        current, wanted = target, list(names)
        seen = {target}
        for _ in range(MAX_DEPTH * 2):
            callers = [c for c in self.callers(current) if c not in seen]
            if not callers:
                if current == target or _private(current) or self.called_somehow(current):
                    return None
                return Origin(function=current, params=tuple(wanted))
            step: tuple[str, list[str], list[str]] | None = None
            for caller in callers:
                mapped = self._passed(caller, current, wanted)
                if mapped is not None:
                    step = caller, *mapped
                    break
            if step is None:
                return None  # every caller computes what it passes
            caller, params, fields = step
            if fields and not params:
                owner = caller.rsplit(".", 1)[0]
                return Origin(fields=tuple((owner, f) for f in fields))
            if fields:
                return None  # some from the object, some from its caller: too tangled
            current, wanted = caller, params
            seen.add(current)
        return None

    def called_somehow(self, qualified: str) -> bool:
        """Whether the package calls `qualified` where the graph does not see it."""
        name = qualified.rsplit(".", 1)[-1]
        if name in _CONSTRUCTORS:
            name = qualified.rsplit(".", 2)[-2]
        return name in self.called

    def _passed(
        self, caller: str, callee: str, wanted: Sequence[str]
    ) -> tuple[list[str], list[str]] | None:
        """The parameters of `caller` and the `self.` fields its calls of `callee` pass as
        `wanted`; None when one of them is computed or not passed."""
        signature = self.signatures.get(callee)
        theirs = self.signatures.get(caller)
        if signature is None or theirs is None:
            return None
        params, bound = signature
        positional = params[1:] if bound else params
        own = set(theirs[0]) - {"self", "cls"}
        method = theirs[1]
        out: list[str] = []
        fields: list[str] = []
        for call in self._edges.get((caller, callee), []):
            keywords = dict(call.keywords)
            for name in wanted:
                arg = keywords.get(name)
                if arg is None and name in positional:
                    index = positional.index(name)
                    arg = call.args[index] if index < len(call.args) else None
                if arg is not None and method and arg.startswith("self.") and arg.count(".") == 1:
                    if arg[5:] not in fields:
                        fields.append(arg[5:])
                    continue
                if arg is None or arg not in own:
                    return None  # computed by the caller, or not passed at all
                if arg not in out:
                    out.append(arg)
        return (out, fields) if out or fields else None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a private function's arguments come from: a public function's parameters,
    or fields of the object whose method passes them (module-qualified class, field)."""

    function: str | None = None
    params: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()


# Methods of the builtin types and of files: `text.replace(...)`, `f.read()` call these far
# more often than the one codebase method of that name a receiver of unknown type might be.
_COMMON = frozenset(
    name
    for kind in (str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex)
    for name in dir(kind)
    if not name.startswith("_")
) | frozenset({"read", "write", "readline", "readlines", "close", "flush", "seek", "tell"})


def _private(qualified: str) -> bool:
    return any(p.startswith("_") and not p.endswith("__") for p in qualified.split("."))
