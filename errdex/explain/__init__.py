# The explain stage: derive each site's title and prose (what it means, when it
# happens, solutions, common situations), its call paths, reproducing tests, related
# sites and a report link, from what extract produced alone (it reads no file):
# deterministic, no model, no network. A model's notes are errdex.enrich's business.
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from errdex.explain.access import exposed, private_name, reexported, with_access
from errdex.explain.analysis import Analysis, analyse
from errdex.explain.callgraph import CallGraph
from errdex.explain.catalog import Catalog, Owner
from errdex.explain.imports import needs
from errdex.explain.knobs import KnobIndex, Selection, with_knobs
from errdex.explain.meaning import what_it_means
from errdex.explain.native import is_native, native_paths
from errdex.explain.parallel import beside, over_workers
from errdex.explain.quiet import quietly_caught
from errdex.explain.records import replaced
from errdex.explain.related import Related
from errdex.explain.report import report_issue_url
from errdex.explain.reuse import (
    NoProseCache,
    Prose,
    ProseCache,
    Reads,
    line_free,
    line_free_input,
    line_free_knob,
    lookup_in,
    pack,
    prose_key,
    replay,
    unpack,
)
from errdex.explain.situations import common_situations
from errdex.explain.solutions import (
    MAX_SOLUTIONS,
    PRINTED_ABOVE,
    Context,
    Handoff,
    public_sources,
    reads,
    solutions,
)
from errdex.explain.surface import Surface, with_reach
from errdex.explain.tests_scan import find_tests
from errdex.explain.title import base_title, unique_titles
from errdex.explain.when import when_it_happens
from errdex.expr import Attribute, Call, Collection, Expr, IsInstance, Name, Opaque
from errdex.extract import Extraction
from errdex.extract.facts import FileFacts
from errdex.extract.names import Names
from errdex.model import ErrorSite, Explanation, Fix, Input, Snapshot, SourcePos, TestRef

__all__ = ["Explained", "explain", "explain_sites"]


def explain_sites(
    extraction: Extraction, snapshot: Snapshot, cache: ProseCache | None = None
) -> tuple[ErrorSite, ...]:
    """Return the extraction's sites, in order, each with its `explanation` set (see
    `explain`)."""
    return explain(extraction, snapshot, cache).sites


@dataclass(frozen=True, slots=True)
class Explained:
    sites: tuple[ErrorSite, ...]  # the extraction's sites, in order, explained
    reused: int  # of them, how many had their per-site prose from the cache


def explain(
    extraction: Extraction, snapshot: Snapshot, cache: ProseCache | None = None
) -> Explained:
    """The extraction's sites, in order, each with its `explanation` set; the per-site
    prose comes from `cache` when what it was made from is unchanged (see
    explain/reuse.py), and what is made afresh is kept there.

    Raises nothing for odd code: what cannot be read is said as source text or left out.
    """
    if not extraction.sites:
        return Explained(sites=(), reused=0)
    world = _World(extraction, snapshot)
    graph, modules = world.graph, world.modules
    # the tests of the whole tree against every site: a global step, in a second process
    # while this one goes on. It reads only what extract found of each site, so it starts
    # before the sites are made ready for their prose: else, on two cores, it was still
    # running alone when all else was done.
    extracted = extraction.sites
    targets = [_function_of(s, modules) for s in extracted]
    tests = beside(
        lambda: find_tests(extraction.tests, extracted, graph, targets, extraction.written),
        worth_it=len(extracted) >= _BESIDE_FROM,
    )
    # a native site: no Python constants, access or knobs of its names (native.py)
    sites = tuple(site if is_native(site) else _ready(site, world) for site in extracted)
    # each site's call paths, made here before the workers fork, so that they share them:
    # the prose of every site of a function asks for them, as its reuse does, and
    # _caught_by_callers reads the callers the graph keeps on the way
    paths = [() if function is None else world.call_paths(function)[0] for function in targets]
    paths = native_paths(extraction, extracted, paths)  # native sites: from their bindings
    prose = _reused_or_made(sites, world, cache or NoProseCache())  # on the other cores
    related = Related(sites)
    titles = unique_titles(sites, [base_title(s, _guard_text(s)) for s in sites])
    done, reused = prose()
    caught = _caught_by_callers(sites, [list(d.prose.fixes) for d in done], graph, modules)
    converted = _converted_by_callers(sites, graph, modules)
    quiet = quietly_caught(sites, extraction.facts, world.names)
    found_tests = tests()
    out: list[ErrorSite] = []
    for number, (site, (made, _), title) in enumerate(zip(sites, done, titles, strict=True)):
        report = report_issue_url(site, snapshot, title)
        means = made.what_it_means + (converted.get(number) or quiet.get(number, ""))
        fixes = list(made.fixes)
        if number in quiet and number not in converted:  # no traceback shows what it handled
            fixes = [_unprinted(f) for f in fixes]
        added = number in caught and len(fixes) < MAX_SOLUTIONS
        if added:
            extra = caught[number]
            if not fixes:  # the only solution: no "Or"
                extra = dataclasses.replace(extra, text="A" + extra.text.removeprefix("Or, a"))
            fixes = [*fixes, extra]
        implemented = made.implemented
        if implemented:
            package = snapshot.package
            owner, method = implemented
            means += (
                f" Every subclass of `{owner}` that {package} defines implements `{method}`:"
                " it is reached only through an object of a class that does not, one of"
                f" your own (implement `{method}` in it) or, when the traceback shows none,"
                f" a bug in {package}."
            )
            link = f": {report}" if report else ""
            fixes.append(
                Fix(
                    text=(
                        f"If no class of yours is in the traceback, report it to the {package}"
                        f" maintainers, with the traceback{link}"
                    ),
                    kind="report",
                )
            )
        elif (made.invariant_caught if added else made.invariant) and _may_be_internal(
            site, world.catalog
        ):
            package = snapshot.package
            means += (
                f" The check reads only {package}'s own state, nothing you pass or set:"
                f" when it fails, it points to a bug in {package}, not in your code or"
                " settings."
            )
            link = f": {report}" if report else ""
            fixes.insert(
                0,
                Fix(
                    text=f"Report it to the {package} maintainers, with the traceback{link}",
                    kind="report",
                ),
            )
        explanation = Explanation(
            title=title,
            what_it_means=means,
            when_it_happens=made.when_it_happens,
            solutions=tuple(f.text for f in fixes),
            common_situations=made.common_situations,
            call_paths=paths[number],
            tests=found_tests.get(site.id, ()),
            related=related.of(site),
            report_issue_url=report,
            provenance="static",
            fixes=tuple(fixes),
        )
        out.append(replaced(site, explanation=explanation))
    return Explained(sites=tuple(out), reused=reused)


Tests = dict[str, tuple[TestRef, ...]]
_BESIDE_FROM = 2000  # sites; below this, a second process costs more than it saves
# The per-site part on every core from this many sites (below, forking the workers costs
# more than it saves), in chunks of this many (small enough to share out evenly).
_POOL_FROM = 600
_CHUNK = 150


class _World:
    """What explain looks up across the whole extraction, built once per run."""

    def __init__(self, extraction: Extraction, snapshot: Snapshot):
        self.catalog = Catalog(extraction)
        self.catalog.reexports = reexported(extraction.facts)
        self.names = Names(extraction.facts)
        self.index = KnobIndex(self.names, self.catalog.reexports)
        self.graph = CallGraph(extraction.facts)
        self.surface = Surface(extraction.facts, self.graph)
        self.modules = {f.module for f in extraction.facts}
        self.dests = self.index.dest_flags()
        self.overrides = Overrides(self.names)
        self.exported = _exported(extraction.facts)
        self.package = snapshot.package
        self.requires = snapshot.requires
        self._paths: dict[str, CallPaths] = {}
        # the prose is handed no line (reuse.line_free): nor are the answers it asks for
        self.env_seen = {
            name: (doc, SourcePos(file=where.file, line=0))
            for name, (doc, where) in self.index.env_docs.items()
        }
        modules = self.modules
        self._shared: dict[str, Callable[[Any], Any]] = {
            "env": lookup_in(self.env_seen),
            "dest": lookup_in(self.dests),
            "call paths": self.call_paths,
            "entry": self.surface.entry,
            "module": lambda file: _module(file, modules),
            "exported": lambda name: name in self.exported,
            "requires": lambda _: self.requires,
            "implementers": lambda asked: self.overrides.all_implement(*asked),
            "selection": lambda cls: _line_free_selection(self.index.selection(cls)),
            "class written": lambda asked: self.index.class_written(*asked),
            "classes snake": self.index.classes_snake,
        }

    def handed(self, site: ErrorSite) -> _Handed:
        """What `site`'s prose is made from (see _prose), and so what its key holds with
        the package's name (solutions name its extras; its requirements, which change
        from release to release, are a lookup, asked by the few that read them)."""
        catalog = self.catalog
        return _Handed(
            site=line_free(site),
            own=_Own(
                owner=catalog.owner(site),
                checks=catalog.checks(site),
                listed=site.location.file in catalog.files,
            ),
        )

    def lookups(self, site: ErrorSite) -> dict[str, Callable[[Any], Any]]:
        """What one site's prose may ask of the whole extraction, by kind (see Reads);
        `site` with its lines, the answers without (see reuse.line_free). Asked of
        every site, and most are reused: what does not depend on the site is made once
        (`_shared`), and the rest builds nothing until it is asked."""
        modules = self.modules
        facts = self.catalog.files.get(site.location.file)

        def handoff(passed: Sequence[Input]) -> Any:
            target = _target(site, modules)
            find = _handoff(self.graph, target, modules, self.names, self.index, site)
            return _line_free_handoff(find(passed))

        def qualify(name: str) -> str | None:
            return None if facts is None else self.names.resolve(name, facts)

        imports = {} if facts is None else self.names.imports.get(facts.module, {})

        return {
            **self._shared,
            "handoff": handoff,
            "qualify": qualify,
            "set in init": lambda expr: _set_in_init(site, expr, facts),
            # the module a bare name of the file is an import of, None for any other name
            "imported": lambda name: None if facts is None else imports.get(name),
            "guard line": lambda position: site.guard[position].line,
        }

    def call_paths(self, function: str) -> CallPaths:
        """The call paths of `function`, the module of each function on them, and those
        functions nearest first without their module (asked by the prose of each site of
        the function, and on each reuse)."""
        found = self._paths.get(function)
        if found is None:
            paths = self.graph.paths(function)
            shorten = {q: _module_prefix(q, self.modules) for path in paths for q in path}
            found = self._paths[function] = paths, shorten, _nearest_first(paths, self.modules)
        return found


CallPaths = tuple[tuple[tuple[str, ...], ...], dict[str, str], tuple[str, ...]]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Own:
    """What a site's prose reads of its own file besides the site: the class whose method
    holds it, which of its guards are other raises' checks (Catalog.checks), and whether
    the file is there at all."""

    owner: Owner | None
    checks: tuple[bool, ...]
    listed: bool  # its file's facts are in the extraction: its names can be qualified


@dataclass(frozen=True, slots=True, kw_only=True)
class _Handed:
    """What one site's prose is made from, and so what its key holds (with the package's
    name and the explainer's code): the site without its lines, and its `_Own`."""

    site: ErrorSite
    own: _Own


class _Done(NamedTuple):
    """One site's per-site part, as a worker hands it back."""

    prose: Prose
    kept: tuple[str, bytes] | None  # (key, entry) to keep when made afresh; None: reused


def _reused_or_made(
    sites: Sequence[ErrorSite], world: _World, cache: ProseCache
) -> Callable[[], tuple[list[_Done], int]]:
    """Each site's prose: the one kept for its id when it was made under the same key
    and every lookup it made answers the same now, else made afresh (and kept); and how
    many were kept ones. On every core for many sites (parallel.over_workers; the
    workers work out the keys too): the returned call waits for them."""
    kept = cache.load_prose([site.id for site in sites])

    def job(start: int, stop: int) -> list[_Done]:
        return [_reuse_or_make(sites[i], kept.get(sites[i].id), world) for i in range(start, stop)]

    answers = over_workers(job, len(sites), chunk=_CHUNK, least=_POOL_FROM)

    def wait() -> tuple[list[_Done], int]:
        done: list[_Done] = answers()
        made = [(s.id, *d.kept) for s, d in zip(sites, done, strict=True) if d.kept is not None]
        cache.save_prose(made)
        return done, len(done) - len(made)

    return wait


def _reuse_or_make(site: ErrorSite, kept: tuple[str, bytes] | None, world: _World) -> _Done:
    """`site`'s prose from the (key, entry) `kept` for it when made under the key it has
    now and every lookup it made answers the same now, else made afresh, with what to
    keep."""
    given = world.handed(site)
    key = prose_key((given.site, given.own, world.package))
    lookups = world.lookups(site)
    found = None if kept is None or kept[0] != key else unpack(kept[1])
    if found is not None and replay(found[0], lookups):
        return _Done(found[1], None)
    reads = Reads(lookups)
    made = _prose(given, world, reads)
    return _Done(made, (key, pack(reads.log, made)))


def _prose(given: _Handed, world: _World, log: Reads) -> Prose:
    """The per-site part of a site's explanation. It reads what its key holds (`given`:
    the site without its lines, its class, which of its guards are other raises'
    checks; the package's name), the pure memo of guard readings, and all else of the
    extraction only through `log`."""
    site = given.site
    analysis = analyse(site, given.own.owner, given.own.checks, world.catalog.said)
    module = log.ask("module", site.location.file)
    function = site.location.function
    qualified = None if module is None or function == "<module>" else f"{module}.{function}"
    no_paths: CallPaths = ((), {}, ())
    paths, shorten, callers = log.ask("call paths", qualified) if qualified else no_paths
    entry: tuple[str, ...] = log.ask("entry", qualified) if qualified else ()
    # the knob index as solutions may read it: its environment variables' docs, the flag
    # that picks a class, and the classes a check in the site's own file names
    knobs = KnobIndex.__new__(KnobIndex)
    knobs.env_docs = cast("dict[str, tuple[str | None, SourcePos]]", log.mapping("env"))
    knobs.selection = log.function("selection")  # type: ignore[method-assign, assignment]
    knobs.class_written = (  # type: ignore[method-assign]
        lambda written, path: log.ask("class written", (written, path))
    )
    knobs.classes_snake = log.function("classes snake")  # type: ignore[method-assign, assignment]
    context = Context(
        knobs=knobs,
        package=world.package,
        requires=cast("tuple[tuple[str, str, str], ...]", log.whole("requires")),
        dests=cast("dict[str, list[str]]", log.mapping("dest")),
        handoff=log.function("handoff") if module else None,
        qualify=log.function("qualify") if given.own.listed else None,
        callers=callers,
        exported=cast("frozenset[str]", log.members("exported")),
        set_in_init=log.function("set in init"),
        imported=log.function("imported") if given.own.listed else None,
        guard_line=log.function("guard line"),
    )
    needed = needs(analysis, context.requires, context.qualify, context.imported)
    fixes = solutions(analysis, context, needed)
    asked = abstract_method(analysis)
    return Prose(
        fixes=tuple(fixes),
        what_it_means=what_it_means(analysis, needed),
        when_it_happens=when_it_happens(analysis, paths, shorten, entry),
        common_situations=tuple(common_situations(analysis, needed)),
        invariant=internal_invariant(analysis, fixes),
        # a caller's fix added later (explain, _caught_by_callers) is of kind "input";
        # internal_invariant reads the kinds of the fixes alone
        invariant_caught=internal_invariant(analysis, [*fixes, Fix(text="", kind="input")]),
        implemented=None if asked is None else log.ask("implementers", asked),
    )


def _ready(site: ErrorSite, world: _World) -> ErrorSite:
    """`site` made ready for its prose: constants given their values, each input's
    access and reach, and the knobs that set it."""
    target = _target(site, world.modules)
    site = with_access(with_constants(site, world.catalog), world.catalog)
    if _function_of(site, world.modules) is not None:
        site = with_reach(site, world.surface, target, world.index)
    return _checked_by_callers(_settable(site, world.index), world.graph, target)


def _set_in_init(site: ErrorSite, expr: str, facts: FileFacts | None) -> bool:
    """Whether the input `expr` of `site` is first set inside an `__init__` of the site's
    file (`facts`): state each object starts in, not a class-level setting."""
    item = next((i for i in site.inputs if i.expr == expr), None)
    where = None if item is None else item.location
    if where is None or facts is None or where.file != facts.path:
        return False
    return any(
        f.qualname.endswith(".__init__") and f.line <= where.line <= f.end_line
        for f in facts.functions
    )


def _line_free_handoff(
    found: tuple[str, list[str]] | list[Input] | None,
) -> tuple[str, list[str]] | list[Input] | None:
    return [line_free_input(i) for i in found] if isinstance(found, list) else found


def _line_free_selection(chosen: Selection | None) -> Selection | None:
    if chosen is None:
        return None
    return dataclasses.replace(chosen, flag=line_free_knob(chosen.flag))


def _called_in_try(tree: Expr | None) -> str | None:
    """The function a `try` block's statement calls first, by its last name: `get` of
    `self.pool.get(key)`, `await fetch(url)` or `load(path).data`; None when it starts
    with anything else (`not f(x)`, `(a or b)(x)`, a literal)."""
    node = tree
    if isinstance(node, Opaque) and node.form == "Await" and node.parts:
        node = node.parts[0]
    if isinstance(node, Opaque) and node.form == "YieldFrom" and node.parts:
        node = node.parts[0]
    while node is not None:
        if isinstance(node, Call):
            name = _dotted_last(node.func)
            if name is not None:
                return name
        elif isinstance(node, IsInstance):
            return "isinstance"
        inside = node.children()
        first = inside[0] if inside else None
        if first is None or not node.source().startswith(first.source()):
            return None  # the expression does not start with its first part: `not x`
        node = first
    return None


def _dotted_last(node: Expr) -> str | None:
    """`c` of the dotted name `a.b.c`, `f` of `f`; None for anything else."""
    last = node.attr if isinstance(node, Attribute) else None
    while isinstance(node, Attribute):
        node = node.value
    if not isinstance(node, Name):
        return None
    return node.id if last is None else last


Handlers = dict[tuple[str, str], list[tuple[int, set[str]]]]


def _handlers(sites: Sequence[ErrorSite], modules: set[str], *, converting: bool) -> Handlers:
    """The sites in an `except` block around a call, by (their function, the callee's
    last name), each with the exception names its handler catches; `converting`: only
    raises of a new exception straight in the handler."""
    handlers: Handlers = {}
    for number, site in enumerate(sites):
        if converting and (site.kind != "raise" or not site.guard):
            continue
        for guard in site.guard[-1:] if converting else site.guard:
            called = _called_in_try(guard.raised_by_tree) if guard.kind == "except" else None
            if called is not None:
                types = {t.rsplit(".", 1)[-1] for t in _caught_types(guard.tree)}
                key = (_target(site, modules), called)
                handlers.setdefault(key, []).append((number, types))
    return handlers


def _catchers(
    number: int, site: ErrorSite, handlers: Handlers, graph: CallGraph, modules: set[str]
) -> list[list[int]]:
    """For each caller of the site's function, the handler sites there that catch what
    the site raises (not the site itself)."""
    if not handlers or site.location.function == "<module>":
        return []
    exception = site.exception
    raised = {n.rsplit(".", 1)[-1] for n in (exception.name, exception.qualname, *exception.bases)}
    name = site.location.function.rsplit(".", 1)[-1]
    return [
        [h for h, types in handlers.get((caller, name), []) if h != number and types & raised]
        for caller in graph.callers(_target(site, modules))
    ]


def _caught_by_callers(
    sites: Sequence[ErrorSite],
    fixes: Sequence[list[Fix]],
    graph: CallGraph,
    modules: set[str],
) -> dict[int, Fix]:
    """For a site whose exception a caller catches and passes on only under a condition
    a user controls (`except NoSuchOption: if not self.ignore_unknown_options: raise`),
    that condition's knob fix, said from the caller; by site index."""
    handlers = _handlers(sites, modules, converting=False)
    out: dict[int, Fix] = {}
    for number, site in enumerate(sites):
        knobbed = (
            (f, h)
            for found in _catchers(number, site, handlers, graph, modules)
            for h in found
            for f in fixes[h]
            if f.kind == "input" and f.knobs
        )
        first = next(knobbed, None)
        if first is not None:
            out[number] = _from_handler(first[0], sites[first[1]])
    return out


def _converted_by_callers(
    sites: Sequence[ErrorSite], graph: CallGraph, modules: set[str]
) -> dict[int, str]:
    """For a site whose exception a caller catches and turns into another one (`except
    ValueError as e: raise ParserError(...) from e`), the sentence that says so: the
    user sees that other error; by site index."""
    handlers = _handlers(sites, modules, converting=True)
    out: dict[int, str] = {}
    for number, site in enumerate(sites):
        if site.kind == "reraise":
            continue
        for found in _catchers(number, site, handlers, graph, modules):
            other = sites[found[0]] if found else None
            if other is None or other.exception.name == site.exception.name:
                continue
            who = other.location.function
            text = other.message.literal_text if other.message is not None else ""
            shown = f' ("{text}")' if text and len(text) <= 80 else ""
            above = (
                "this one is not shown (`from None`)"
                if other.cause == "None"
                else "the traceback shows this one above it"
            )
            out[number] = (
                f" When `{who}` calls it, it catches this and raises `{other.exception.name}`"
                f"{shown} instead: that is the error you see, and {above}."
            )
            break
    return out


def _unprinted(fix: Fix) -> Fix:
    """`fix` without its pointer to the traceback, for an error the package catches."""
    text = fix.text.replace(f" ({PRINTED_ABOVE})", "").replace(f", {PRINTED_ABOVE}", "")
    return fix if text == fix.text else dataclasses.replace(fix, text=text)


def _from_handler(fix: Fix, handler: ErrorSite) -> Fix:
    text = fix.text.removeprefix("Or: ").removesuffix(", so that the check does not apply")
    said = text[0].lower() + text[1:]
    function = handler.location.function
    who = "its caller" if private_name(function) else f"`{function}`"
    return Fix(
        text=f"Or, as {who} catches it: {said}, so that it does not pass it on",
        kind="input",
        knobs=fix.knobs,
    )


def _exported(files: Sequence[FileFacts]) -> frozenset[str]:
    """What the package's top modules (`httpx/__init__.py`) import: the names a user
    reaches as `httpx.Client`."""
    out: set[str] = set()
    for facts in files:
        if "." not in facts.module and facts.path.endswith("__init__.py"):
            out.update(qualified for _, qualified in facts.imports)
            out.update(f"{module}.*" for module in facts.stars)
    return frozenset(out)


def _nearest_first(paths: tuple[tuple[str, ...], ...], modules: set[str]) -> tuple[str, ...]:
    """The callers on the call paths, nearest first, without their module."""
    out: dict[str, None] = {}
    for depth in range(max((len(p) for p in paths), default=0)):
        for path in paths:
            if depth < len(path):
                qualified = path[depth]
                out[qualified.removeprefix(_module_prefix(qualified, modules) + ".")] = None
    return tuple(out)


def with_constants(site: ErrorSite, catalog: Catalog) -> ErrorSite:
    """`site` with the value, type, doc and place of each module setting it reads from
    another module of the package (`constants.REPO_TYPES`), as a constant of its own file
    has them: the prose can then say what the setting holds."""
    found = {
        i.expr: catalog.constants.get((i.owner or "", i.name))
        for i in site.inputs
        if i.kind == "global" and i.default is None
    }
    if not any(found.values()):
        return site
    inputs = []
    for item in site.inputs:
        known = found.get(item.expr)
        if known is not None:
            path, const = known
            item = replaced(
                item,
                type=const.type,
                default=const.default,
                doc=const.doc,
                location=SourcePos(file=path, line=const.line),
            )
        inputs.append(item)
    return replaced(site, inputs=tuple(inputs))


def _settable(site: ErrorSite, index: KnobIndex) -> ErrorSite:
    """`site` with each input's knobs; a module setting that a knob sets (`envs.X`, an
    environment variable) is one a user can change, a validator's parameter that a
    field fills is not."""
    site = with_knobs(site, index)
    if not any(i.knobs and i.kind in ("global", "parameter") for i in site.inputs):
        return site
    return replaced(site, inputs=tuple(_access_from_knobs(i) for i in site.inputs))


def _access_from_knobs(item: Input) -> Input:
    """A module setting a knob sets is the user's; a validator's parameter that a field
    fills (its knob is the field, as a constructor parameter) is not: the user sets the
    field, never the parameter."""
    if item.kind == "global" and item.knobs:
        return replaced(item, access="public")
    if item.kind == "parameter" and any(k.kind == "constructor" for k in item.knobs):
        return replaced(item, access="internal")
    return item


def internal_invariant(analysis: Analysis, fixes: list[Fix]) -> bool:
    """The site's conditions read only what the library itself keeps (private state, its
    constants, values it computed or passed between its own functions), the site reads
    nothing public, and nothing says what to do. A raise that reads what its callers
    handed in is not claimed (a private helper validates prompts and headers too); an
    assert, or a message that calls the failure internal (`internal parser error`), is
    believed about those and about attributes no user sets."""
    handed_on = any(f.kind == "caller" for f in fixes)
    read = [c.subject for c in analysis.trigger + analysis.reached_if if c.subject is not None]
    if not read:  # clauses joined by "or" name no one subject: what their tests read
        read = _read_by_guards(analysis)
    if not read:
        return False
    message = analysis.site.message.literal_text if analysis.site.message is not None else ""
    # an assert is the code's own claim about its state, as such a message is
    said = analysis.site.kind == "assert" or _SAYS_BUG.search(message) is not None
    for subject in read:
        if said and subject.kind == "attribute" and subject.access == "internal":
            continue
        if subject.knobs or subject.access == "public":
            return False
        if subject.kind == "parameter" and handed_on:
            return False
        if not said and _handed_in(subject, analysis):
            return False  # what callers hand a private helper may be a user's (a prompt)
        if subject.kind == "local" and (
            public_sources(subject, analysis) or _environmental(subject, analysis)
        ):
            return False
        private = private_name(subject.expr)
        if subject.kind not in ("parameter", "local", "constant") and not private:
            return False
    if any(i.access == "public" or i.knobs for i in analysis.site.inputs):
        return False
    # a fix through a knob (a caller's setting that decides whether the error is passed
    # on) says the user has a say
    return not any(f.kind in ("message", "dependency", "cause", "input") for f in fixes)


_SIGNALS = frozenset(
    {
        "EOFError",
        "KeyboardInterrupt",
        "StopIteration",
        "StopAsyncIteration",
        "GeneratorExit",
        "SystemExit",
        "NotImplementedError",
    }
)
# Exceptions a web framework turns into the HTTP answer to a request (a 404, a 403):
# what the request asked for, never the library's broken assumption.
_ANSWERS = frozenset({"HTTPException", "WebSocketException", "Http404", "PermissionDenied"})
_SAYS_INTERNAL = re.compile(
    r"\b(internal|bug|should (?:not|never)|unexpected|unreachable|impossible|invariant)\b",
    re.I,
)


# A message that says the failure is the library's own, in so many words.
_SAYS_BUG = re.compile(
    r"\b(internal (?:\w+ )?(?:error|bug)|bug|should (?:not|never) (?:happen|be reached)|"
    r"unreachable|impossible|invariant)\b",
    re.I,
)


def _handed_in(item: Input, analysis: Analysis, depth: int = 0) -> bool:
    """Whether a value is a parameter, or a variable computed from one: what the callers
    passed, the library's own only when they computed it, which only they show."""
    if item.kind == "parameter":
        return True
    if item.kind != "local" or depth > 3:
        return False
    sources = [analysis.inputs.get(s) for s in item.sources]
    return any(s is not None and _handed_in(s, analysis, depth + 1) for s in sources)


def _read_by_guards(analysis: Analysis) -> list[Input]:
    """The inputs the tests of the conditions that make the site fire read, by name (not
    early exits: what the function returns early for says what it accepts, not that
    only the library sets it)."""
    tests = [g.test for g in analysis.site.guard if g.kind in ("if", "elif", "assert")]
    return [i for i in analysis.site.inputs if any(reads(t, i) for t in tests)]


class Overrides:
    """Which codebase classes define which methods, to tell whether every subclass of a
    class implements the method it leaves abstract."""

    def __init__(self, names: Names):
        self.names = names
        self.methods = {f"{f.module}.{fn.qualname}" for f in names.files for fn in f.functions}
        self.below: dict[str, list[str]] = {}
        for qualname in names.classes:
            for ancestor in names.ancestors(qualname):
                self.below.setdefault(ancestor, []).append(qualname)

    def implementers(self, analysis: Analysis) -> tuple[str, str] | None:
        """(class, method) when the site is an abstract method of a codebase class (a
        bare `NotImplementedError` that nothing guards) and every subclass the codebase
        defines at the bottom of its hierarchy implements it, itself or through a base
        below the class; None otherwise."""
        asked = abstract_method(analysis)
        return None if asked is None else self.all_implement(*asked)

    def all_implement(self, qualname: str, owner: str, name: str) -> tuple[str, str] | None:
        """(owner, name) when every bottom subclass of the class `qualname` (module
        qualified; `owner` within its module) implements method `name`, else None."""
        subclasses = self.below.get(qualname, [])
        leaves = [c for c in subclasses if not self.below.get(c)]
        if not leaves:
            return None
        for leaf in leaves:
            path = [leaf, *(a for a in self.names.ancestors(leaf) if a in subclasses)]
            if not any(f"{c}.{name}" in self.methods for c in path):
                return None
        return owner, name


def abstract_method(analysis: Analysis) -> tuple[str, str, str] | None:
    """(module-qualified class, class, method) when the site is a bare
    `NotImplementedError` that nothing guards in a method of a codebase class."""
    site, owner = analysis.site, analysis.owner
    exc = site.exception.name.rsplit(".", 1)[-1]
    if owner is None or exc != "NotImplementedError" or analysis.trigger:
        return None
    name = site.location.function.rsplit(".", 1)[-1]
    if site.location.function != f"{owner.qualname}.{name}" or name in owner.abstract:
        return None  # under `@abstractmethod` no subclass that lacks it can be made
    return f"{owner.module}.{owner.qualname}", owner.qualname, name


def _may_be_internal(site: ErrorSite, catalog: Catalog) -> bool:
    """Whether a failed check can be the library's own bug rather than a misuse: an
    assert, a check in a function users do not call (private, nested, in a private
    module), or a message that says so. "Not implemented" and signals (end of input,
    interrupts) never are."""
    names = {
        site.exception.name.rsplit(".", 1)[-1],
        *(b.rsplit(".", 1)[-1] for b in site.exception.bases),
    }
    if names & _SIGNALS or names & _ANSWERS or site.kind == "reraise":
        return False  # a signal, an answer to a request, or another error passed on
    if site.kind != "assert" and _reported(site) and not names & _INVARIANT_ERRORS:
        return False  # an error class of the library's own: what it means to tell a user
    function = site.location.function
    if site.kind == "assert" or not exposed(site.location.file, function, catalog):
        return True
    if private_name(function):
        return True
    parts = function.split(".")
    if len(parts) > 1 and catalog.classes.get((site.location.file, ".".join(parts[:-1]))) is None:
        return True  # a nested function: only its enclosing function calls it
    message = site.message.literal_text if site.message is not None else ""
    return bool(_SAYS_INTERNAL.search(message))


def _reported(site: ErrorSite) -> bool:
    """Whether the site raises an exception class the package itself defines (not a
    builtin): one the library made to tell its users what went wrong, `ParseError`,
    `ValidationError`, and that its public code raises on their input as well."""
    from errdex.extract.files import module_name

    top = (module_name(site.location.file) or "").split(".")[0]
    qualname = site.exception.qualname
    return bool(top) and qualname.split(".")[0] == top and "Internal" not in qualname


# Exception classes a library raises for its own broken assumptions, own or builtin.
_INVARIANT_ERRORS = frozenset(
    {"AssertionError", "RuntimeError", "SystemError", "NotImplementedError"}
)


def _environmental(local: Input, analysis: Analysis) -> bool:
    """Whether a local is computed from another distribution's module (`torch.xpu`): what
    is installed, not the library's own state."""
    from errdex.extract.files import module_name

    own = (module_name(analysis.site.location.file) or "").split(".")[0]
    for expr in local.sources:
        source = analysis.inputs.get(expr)
        owner = None if source is None or source.kind != "global" else source.owner
        if owner and owner.split(".")[0] != own:
            return True
    return False


def _checked_by_callers(site: ErrorSite, graph: CallGraph, target: str) -> ErrorSite:
    """An assert in a function the package calls itself checks those calls: the
    function's parameters are what the package passed, not a user's to change."""
    if site.kind != "assert" or not graph.callers(target):
        return site
    function = site.location.function
    inputs = tuple(
        replaced(i, access="internal")
        if i.kind == "parameter" and i.owner == function and not _reached(i)
        else i
        for i in site.inputs
    )
    return replaced(site, inputs=inputs)


def _reached(item: Input) -> bool:
    """Whether a user's own call hands `item` its value, as it is (see surface.py)."""
    return bool(item.reach) and not any(h.computed for h in item.reach)


def _handoff(
    graph: CallGraph,
    target: str,
    modules: set[str],
    names: Names,
    index: KnobIndex,
    site: ErrorSite,
) -> Handoff:
    """Where a private function's parameters come from, seen from its nearest public
    caller, or the settings of the object that passes them."""

    def find(passed: Sequence[Input]) -> tuple[str, list[str]] | list[Input] | None:
        found = graph.handoff(target, [i.name for i in passed])
        if found is None:
            return None
        if found.function is None:
            return [f for f in (_field(c, n, names, index, site) for c, n in found.fields) if f]
        local = found.function.removeprefix(_module_prefix(found.function, modules) + ".")
        head, _, name = local.rpartition(".")
        if name in ("__init__", "__post_init__", "__new__") and head:
            local = head
        return local, list(found.params)

    return find


def _field(cls: str, name: str, names: Names, index: KnobIndex, site: ErrorSite) -> Input | None:
    """The field `name` of a codebase class as an input, with its knobs."""
    found = names.member(cls, name)
    if found is None:
        return None
    ref, member = found
    item = Input(
        name=member.name,
        expr=f"self.{member.name}",
        kind=member.kind,  # type: ignore[arg-type]
        owner=ref.fact.qualname,
        type=member.type,
        default=member.default,
        doc=member.doc,
        location=SourcePos(file=ref.file.path, line=member.line),
        access="internal" if private_name(member.name) or member.kind == "property" else "public",
    )
    return dataclasses.replace(item, knobs=index.knobs(item, site))


def _caught_types(tree: Expr | None) -> list[str]:
    """The classes an `except` guard names, as written: ["KeyError", "errors.Bad"]."""
    items = tree.items if isinstance(tree, Collection) else () if tree is None else (tree,)
    return [item.source() for item in items]


def _guard_text(site: ErrorSite) -> str | None:
    for guard in reversed(site.guard):
        if guard.kind == "assert":
            return guard.test
    return None


def _target(site: ErrorSite, modules: set[str]) -> str:
    """The module-qualified name of the function that holds `site`."""
    module = _module(site.location.file, modules)
    return f"{module}.{site.location.function}" if module else site.location.function


def _function_of(site: ErrorSite, modules: set[str]) -> str | None:
    """The module-qualified function the site is in (None at module level, or outside
    the modules extract read)."""
    module = _module(site.location.file, modules)
    if module is None or site.location.function == "<module>":
        return None
    return f"{module}.{site.location.function}"


def _module(path: str, modules: set[str]) -> str | None:
    from errdex.extract.files import module_name

    name = module_name(path)
    return name if name in modules else None


def _module_prefix(qualified: str, modules: set[str]) -> str:
    """The module part of a module-qualified function name."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:cut]) in modules:
            return ".".join(parts[:cut])
    return parts[0]
