# What one file tells us on its own: its sites, classes, functions, imports and
# constants. Picklable and cached by content hash; linking across files comes later.
from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True, kw_only=True)
class ClassFact:
    qualname: str  # within the module, e.g. "Outer.Inner"
    bases: tuple[str, ...]  # as written, e.g. ("errors.BaseError",)
    line: int
    members: tuple[MemberFact, ...]
    init_params: tuple[str, ...]  # positional parameters of __init__, without self
    message_param: str | None  # the __init__ parameter that carries the message
    doc: str | None = None  # first paragraph of the class docstring


@dataclass(frozen=True, kw_only=True)
class HelperFact:
    """A function whose body always raises: its calls are error sites too."""

    qualname: str
    exception: str  # as written in the helper
    message: Message | None  # holes may name the helper's parameters
    params: tuple[str, ...]  # positional parameters, without self / cls
    is_method: bool


@dataclass(frozen=True, kw_only=True)
class ArgFact:
    """An argument at a call site: its template, and its source text."""

    keyword: str | None
    template: Message
    source: str


@dataclass(frozen=True, kw_only=True)
class RawSite:
    """An error site as seen inside one file, before names are resolved across files."""

    kind: SiteKind
    exception: str  # as written, e.g. "ValueError", "errors.ConfigError", "self._error"
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


@dataclass(frozen=True, kw_only=True)
class CallFact:
    """A call at the top of a statement (`f(...)`, `x = f(...)`, `return await f(...)`).

    Calls standing alone as statements may reach raise helpers; all of them feed the
    best-effort call graph.
    """

    callee: str  # as written: "fail", "self._fail", "errors.fail"
    line: int
    function: str  # the caller's qualified name
    owner_class: str | None
    alone: bool  # the call is the whole statement, its result unused


@dataclass(frozen=True, kw_only=True)
class FunctionFact:
    qualname: str
    line: int
    end_line: int
    owner_class: str | None


@dataclass(frozen=True, kw_only=True)
class CallSite:
    """A call worked out in full, once linking showed that it reaches a raise helper."""

    callee: str
    location: Location
    snippet: Snippet
    guard: tuple[Guard, ...]
    args: tuple[ArgFact, ...]


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
