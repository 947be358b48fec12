# What one file tells us on its own: its sites, classes, functions, imports and
# constants. Picklable and cached by content hash; linking across files comes later.
from __future__ import annotations

from dataclasses import dataclass

from errdex.expr import Expr
from errdex.model import Guard, Input, Location, Message, SiteKind, Snippet


@dataclass(frozen=True, kw_only=True)
class MemberFact:
    """A class attribute a user can set: a field, property or instance attribute."""

    name: str
    kind: str  # "field", "property" or "attribute"
    type: str | None
    default: str | None
    doc: str | None
    line: int
    # other dotted values __init__ assigns it (`ctx.ignore_unknown_options`, under an `if`)
    also: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ClassFact:
    qualname: str  # within the module, e.g. "Outer.Inner"
    bases: tuple[str, ...]  # as written, e.g. ("errors.BaseError",)
    line: int
    members: tuple[MemberFact, ...]
    init_params: tuple[str, ...]  # positional parameters of __init__, without self
    message_param: str | None  # the __init__ parameter that carries the message
    doc: str | None = None  # first paragraph of the class docstring
    init_names: tuple[str, ...] = ()  # every parameter of __init__ by name, keyword-only too
    # the text the class makes of its arguments (see classes.py), and its class-level
    # string attributes that text may be built from
    recipe: Message | None = None
    strings: tuple[tuple[str, str], ...] = ()
    defaults: tuple[tuple[str, Message], ...] = ()  # text an __init__ gives a left-out param
    # what an __init__ that builds no text hands its base's __init__ (see classes.py)
    passes: tuple[ArgFact, ...] | None = None
    abstract: tuple[str, ...] = ()  # its methods under `@abstractmethod`, by name
    init_required: int | None = None  # __init__'s positional parameters with no default
    # a __str__ that returns one of several texts: each, with the line of its return
    # (`recipe` is None then)
    recipes: tuple[tuple[Message, int], ...] = ()


@dataclass(frozen=True, kw_only=True)
class HelperFact:
    """A function whose body always raises (a helper: its calls are error sites too), or
    one that returns an exception (a factory, for `raise make_error(...)`)."""

    qualname: str
    exception: str  # as written in the helper; a factory: the class it returns
    message: Message | None  # holes may name the helper's parameters
    params: tuple[str, ...]  # positional parameters, without self / cls
    is_method: bool
    # a factory's parameter that holds the class it builds (`exception=ParseError`, then
    # `return exception(...)`): a call that passes one builds that one, else `exception`
    class_param: str | None = None
    # the other classes a factory's returns build: it returns their nearest common base
    also: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Raised:
    """What a `raise` raises, as far as its own file tells; linking makes it one class.

    `classes`, as written: one (`X(...)`, `e` bound by `except X as e`, assigned `X(...)`
    or annotated `X`), or several (a handler's tuple, whose nearest common base it is).
    Else `maker`: what returns the exception, as written (`make_error`, `self.parse_error`,
    `self.client.dead_error`, `Cls.from_x`), with the names passed to it (each positional
    argument that is a name, else None; then keywords), for a factory that takes the
    class. Neither: nothing is known of it but that it is a BaseException.
    """

    classes: tuple[str, ...] = ()
    maker: str | None = None
    args: tuple[str | None, ...] = ()
    keywords: tuple[tuple[str, str | None], ...] = ()


@dataclass(frozen=True, kw_only=True)
class ArgFact:
    """An argument at a call site: its template, and its source text."""

    keyword: str | None
    template: Message
    source: str
    tree: Expr  # `source` as a tree


@dataclass(frozen=True, kw_only=True)
class OpenChain:
    """A dotted read (`vllm_config.parallel_config.x`, `self.model_config.x`) whose root's
    class is only known once files are linked: its annotation, then each attribute."""

    expr: str  # as the code reads it (through a local alias: `model_config.x`)
    root_type: str | None  # the root's annotation as written here; None for `self`
    attrs: tuple[str, ...]  # the attribute names after the root, in order


@dataclass(frozen=True, kw_only=True)
class RawSite:
    """An error site as seen inside one file, before names are resolved across files."""

    kind: SiteKind
    # as written, e.g. "ValueError", "errors.ConfigError", "self._error": what the id is of
    exception: str
    message: Message | None
    args: tuple[ArgFact, ...]  # all arguments of the exception call, for own classes
    location: Location
    snippet: Snippet
    guard: tuple[Guard, ...]
    inputs: tuple[Input, ...]  # resolved within the file
    open_attrs: tuple[tuple[str, str], ...]  # (attr, expr) of `self.attr` left for linking
    owner_class: str | None  # enclosing class, for `self.attr` and helper methods
    cause: str | None = None
    variant: str | None = None
    unreachable: str | None = None  # why the site can never fire (errdex.extract.reach)
    open_chains: tuple[OpenChain, ...] = ()  # dotted reads left for linking
    raised: Raised | None = None  # a raise's class, for linking; None: `exception` is it
    # `raise make_error(SomeError, x)`: the factory passes its own leading arguments
    # (tomlkit's line and column) before the raise's, which fill the class's last ones
    factory_built: bool = False


@dataclass(frozen=True, kw_only=True)
class CallFact:
    """A call at the top of a statement (`f(...)`, `x = f(...)`, `return await f(...)`),
    or (`nested`) one written inside an expression.

    Calls standing alone as statements may reach raise helpers; all of them feed the
    best-effort call graph.
    """

    # as written: "fail", "self._fail", "errors.fail"; a method of a local the function
    # made by calling a class by that class: "Session.request" for `session.request`
    callee: str
    line: int
    function: str  # the caller's qualified name
    owner_class: str | None
    alone: bool  # the call is the whole statement, its result unused
    # what each argument is, when it is a name or attribute (else None): positional ones
    # in order, then (keyword, source) pairs; what a caller hands on to its callee.
    # `**kwargs` handed on is the pair ("**", "kwargs").
    args: tuple[str | None, ...] = ()
    keywords: tuple[tuple[str, str | None], ...] = ()
    # written inside an expression, found in the text (extract/calls.py): an edge of the
    # call graph for finding tests only, its arguments not read
    nested: bool = False
    # the names each computed argument reads (`x * 2`, `f(x)`): (its position as "0",
    # "1"…, or its keyword, the names), for a value computed from what a caller was given
    derived: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, kw_only=True)
class FunctionFact:
    qualname: str
    line: int
    end_line: int
    owner_class: str | None
    params: tuple[str, ...] = ()  # every parameter by name, positional ones first, in order
    varkw: str | None = None  # the name of its `**kwargs`, which callers' keywords fill


@dataclass(frozen=True, kw_only=True)
class CallSite:
    """A call worked out in full, once linking showed that it reaches a raise helper."""

    callee: str
    location: Location
    snippet: Snippet
    guard: tuple[Guard, ...]
    args: tuple[ArgFact, ...]
    inputs: tuple[Input, ...] = ()  # what the guards read, resolved within the file
    open_attrs: tuple[tuple[str, str], ...] = ()
    open_chains: tuple[OpenChain, ...] = ()
    owner_class: str | None = None


@dataclass(frozen=True, kw_only=True)
class KnobFact:
    """A control the file declares or reads (see extract/knobs.py); linked to inputs by
    explain, across files.

    kind "flag": `add_argument(...)`, `names` its option strings, `dest` the attribute it
        sets, `spread` (class as written, key) for `**get_kwargs(Cls)["key"]`;
    kind "option": a click/typer option or argument, `dest` the parameter of `function`;
    kind "env": an environment variable read, `names` (the variable,), `dest` where its
        value goes: a module-level name or dict key, "self.attr", or a local of `function`;
    kind "settings": a pydantic settings class `dest` whose fields read environment
        variables named with the prefix `names[0]` ("" when none);
    kind "registered": the class named `dest` is held under the keys `names` by the
        registry `action` (a module-level dict, or what a `register*` decorator calls);
    kind "lookup-key": a parameter `names[0]` of `function` that a registry module looks
        names up by (`x[key]`, `key in x`);
    kind "choice": an `if dest == value:` branch (values `names`) that builds `action`;
    kind "validated": a pydantic field validator `function` whose parameter `dest` holds
        the value given to the fields `names` of `owner_class`.
    """

    kind: str
    names: tuple[str, ...]
    dest: str | None
    function: str  # enclosing qualified name, "<module>" at module level
    owner_class: str | None
    line: int
    spread: tuple[str, str] | None = None
    default: str | None = None
    doc: str | None = None
    action: str | None = None  # argparse `action=` as written ("store_true")


@dataclass(frozen=True, kw_only=True)
class QuietHandler:
    """An `except` clause that goes on without raising: where what it catches ends."""

    function: str  # the enclosing qualified name, "<module>" at module level
    caught: tuple[str, ...]  # the classes it catches, as written
    line: int
    then: str  # its first statement, as written (cut short)


@dataclass(frozen=True, kw_only=True)
class FileFacts:
    path: str  # relative to the snapshot root
    module: str  # dotted module name
    imports: tuple[tuple[str, str], ...]  # local name -> qualified name
    classes: tuple[ClassFact, ...]
    helpers: tuple[HelperFact, ...]
    constants: tuple[MemberFact, ...]
    sites: tuple[RawSite, ...]
    calls: tuple[CallFact, ...]
    functions: tuple[FunctionFact, ...]
    call_sites: tuple[CallSite, ...]  # only when asked for, see parse_file(want_calls=...)
    lines: int
    knobs: tuple[KnobFact, ...] = ()
    # every name the file calls (`f(`, `x.f(`), read from the text: an over-estimate that
    # tells a function nobody in the package calls from one called in ways the call
    # graph does not follow (inside a comprehension, an argument, a lambda)
    called: frozenset[str] = frozenset()
    stars: tuple[str, ...] = ()  # modules the file imports everything from (`from .x import *`)
    # the handlers that catch an exception and go on (log it, collect it, return)
    quiet: tuple[QuietHandler, ...] = ()
    # functions that call what no name says (`handlers[kind](value)`, `make()(x)`): what
    # they run the call graph cannot tell
    opaque: frozenset[str] = frozenset()
    # functions, methods and properties that return an exception (`return ValueError(
    # f"...")`, or annotated `-> SomeError`), for `raise make_error(...)`: `exception` is
    # the class, `message` that of the one return building it, when one does
    factories: tuple[HelperFact, ...] = ()
    # a Cython file's `include "x.pxi"`s: the files named, relative to the tree's root
    # (extract/cython.py joins them to the file that includes them)
    includes: tuple[str, ...] = ()
