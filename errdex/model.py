# The records every stage passes on: plain frozen dataclasses, no behaviour beyond
# what derives directly from their fields. Serialised to JSON only in codec.py.
# No __slots__: a slotted dataclass is set field by field when read back from the cache
# (errdex.extract.packing), and unpickled through a Python-level __setstate__: slower.
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal as Kind

from errdex.expr import Expr

SiteKind = Kind["raise", "reraise", "assert", "helper"]


@dataclass(frozen=True, kw_only=True)
class Text:
    """A literal fragment of a message template."""

    text: str


@dataclass(frozen=True, kw_only=True)
class Hole:
    """A part of a message only known at run time: the source expression that fills it."""

    expr: str
    conversion: str | None = None  # "r", "s" or "a", as after "!" in an f-string
    format_spec: str | None = None  # as after ":" in an f-string, holes written {expr}
    # `expr` as a tree (errdex.expr), what later stages read; it says nothing `expr` does
    # not, so it takes no part in comparing holes
    tree: Expr | None = field(default=None, compare=False)


Part = Text | Hole

# How the text of a message is made (`message.source`): written at the raise (or
# assert); by the exception class (its __init__, __str__ or a class-level template);
# returned ready-made by a factory function; collected in a list and joined; taken from
# a module-level constant; returned as text by a function (`raise E(make_msg(a, b))`,
# one record per text its returns give).
MessageSource = Kind["raise", "exception-class", "factory", "joined-list", "constant", "helper"]


@dataclass(frozen=True, kw_only=True)
class Message:
    """A message template: literal parts and holes, in order, and how it is made."""

    parts: tuple[Part, ...]
    source: MessageSource = "raise"

    @property
    def text(self) -> str:
        """The template as an f-string body: holes as `{expr}`, literal braces doubled."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, Text):
                out.append(part.text.replace("{", "{{").replace("}", "}}"))
            else:
                conversion = f"!{part.conversion}" if part.conversion else ""
                spec = f":{part.format_spec}" if part.format_spec else ""
                out.append("{" + part.expr + conversion + spec + "}")
        return "".join(out)

    @property
    def static(self) -> bool:
        return not any(isinstance(part, Hole) for part in self.parts)

    @property
    def literal_text(self) -> str:
        """The literal parts alone, joined: what every occurrence of the message contains."""
        return "".join(part.text for part in self.parts if isinstance(part, Text))


@dataclass(frozen=True, kw_only=True)
class ExceptionRef:
    # the class raised, as the code writes it, e.g. "ValueError" or "errors.ConfigError"
    # (never a variable or a factory: "BaseException" when nothing more is known)
    name: str
    qualname: str  # resolved through imports, e.g. "builtins.ValueError"
    bases: tuple[str, ...] = ()  # qualified names of the bases, for classes of the codebase


@dataclass(frozen=True, kw_only=True)
class SourcePos:
    file: str  # relative to the repository root
    line: int


@dataclass(frozen=True, kw_only=True)
class Location:
    file: str  # relative to the repository root (an sdist's top folder)
    line: int  # the line of the raise / assert keyword, or of the helper call
    end_line: int
    function: str  # enclosing qualified name: Class.method, outer.inner, or "<module>"
    # the language of the file: "python" or "cython" (both read with `ast`), or a native
    # one (extract/native/files.py's LANGUAGES: "c", "cpp", "cuda", "rust")
    language: str = "python"


@dataclass(frozen=True, kw_only=True)
class Snippet:
    start_line: int
    lines: tuple[str, ...]


GuardKind = Kind[
    "if",
    "elif",
    "else",
    "while",
    "for",
    "with",
    "try",
    "except",
    "finally",
    "match",
    "case",
    "assert",
    "early-exit",
    "loop-exhausted",  # reached only when the loop `test` ran out without returning
    "asserted",  # an earlier `assert test` of the function held (not negated)
]


@dataclass(frozen=True, kw_only=True)
class Guard:
    """One condition enclosing a site, outermost first."""

    kind: GuardKind
    test: str  # source text of the condition (for `for`: "x in xs"; `except`: the types)
    negated: bool  # the site is reached when `test` is false
    line: int
    # for `except`: the expression of a one-statement `try` block, what raised the
    # exception being handled ("parse_url(url)")
    raised_by: str | None = None
    # the condition as a tree (errdex.expr), what later stages read: the test itself; for
    # `for` and `loop-exhausted`, `target in iter` as a Membership (a loop that returns
    # from one `if test:` is exhausted when `any(test for target in iter)` is false: that
    # call, negated); for `except`, the
    # types caught. None where the test is not an expression (`with`, `try`, `case`).
    tree: Expr | None = field(default=None, compare=False)
    # `raised_by` as a tree, what later stages read; None when `raised_by` is None or is
    # an import statement
    raised_by_tree: Expr | None = field(default=None, compare=False)
    # for `except` around a one-statement `try` block that is an import: the modules it
    # imports, as written (`import a.b, c`: ("a.b", "c"); `from .x import y`: (".x",));
    # empty when `raised_by` is None
    imports: tuple[str, ...] = field(default=(), compare=False)

    def holds(self) -> str:
        """The condition as it stands where the site is reached: the test, or for a
        negated one what its negation reads as (`x >= 0` for `not (x < 0)`)."""
        if not self.negated:
            return self.test
        return f"not ({self.test})" if self.tree is None else self.tree.negated().source()


InputKind = Kind[
    "field",
    "property",
    "attribute",
    "parameter",
    "constant",
    "local",  # a variable the function computes itself; `sources` says from what
    "global",  # a module-level name of another module, read as `module.NAME` (`envs.X`)
    "env",  # an environment variable read where the condition is (`os.getenv("X")`)
]
Access = Kind["public", "internal"]
KnobKind = Kind[
    "flag",  # a command-line flag of an argparse parser: "--max-model-len"
    "option",  # a click or typer option (or argument) of a command: "--count"
    "env",  # an environment variable: "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
    "config-key",  # a key of a JSON or dict setting: "mode" of `--compilation-config`
    "constructor",  # a parameter of a public class's constructor: `Response(request=...)`
    "extra",  # an optional-dependency group of the package: `pip install 'httpx[http2]'`
]


@dataclass(frozen=True, kw_only=True)
class Knob:
    """A control a user has over an input, found in the code: a flag, an environment
    variable, a key of a JSON setting, a constructor parameter."""

    kind: KnobKind
    name: str  # as the user types it: "--max-model-len", "VLLM_X", "request"
    usage: str  # an example of its use: "--compilation-config '{\"mode\": 0}'", "VLLM_X=1"
    via: str | None = None  # a config key's carrier: "--compilation-config"
    location: SourcePos | None = None  # where the code defines the control


@dataclass(frozen=True, kw_only=True)
class Hop:
    """One step of the way a user's value takes to a check: the parameter `param` of
    `function` (as a user names it: `Client.send`, `PyJWKSet` for its constructor),
    handed on at `location` (the call that passes it; the definition for the first)."""

    function: str
    param: str
    location: SourcePos | None = None
    # the value handed on is computed from `param` (`inner(x * 2)`), not `param` itself
    computed: bool = False


@dataclass(frozen=True, kw_only=True)
class Input:
    """A name read by the guard or message, and who can change it."""

    name: str
    expr: str
    kind: InputKind
    owner: str | None = None  # class qualname for fields, function qualname for parameters
    type: str | None = None
    default: str | None = None
    # `default` as a tree, what later stages read: for a parameter its default, for a
    # local the value it is assigned. None for fields, attributes and constants (their
    # per-file facts keep the text only), a loop's item and a value shortened for display
    default_tree: Expr | None = field(default=None, compare=False)
    doc: str | None = None
    location: SourcePos | None = None
    # "public": a parameter, field or property a user sets; "internal": a private name,
    # a private function's parameter, a constant of the library. Set by explain.
    access: Access | None = None
    # for a "local": the expressions (each another input of the site) it is computed from
    sources: tuple[str, ...] = ()
    # the controls that set it (flags, environment variables, config keys), most direct
    # first. Set by explain.
    knobs: tuple[Knob, ...] = ()
    # how a user's value gets here: from a parameter of the package's public surface
    # (first) through the calls that hand it on, to this input (explain/surface.py);
    # empty when nothing public reaches it or the input is that parameter itself
    reach: tuple[Hop, ...] = ()


@dataclass(frozen=True, kw_only=True)
class TestRef:
    """A test of the codebase that triggers an error."""

    file: str
    line: int
    name: str


FixKind = Kind[
    "message",  # the error message's own advice, quoted
    "input",  # change a value the condition reads (naming the knob that sets it)
    "caller",  # check what is passed to a public function that hands it on
    "dependency",  # install a package (the distribution, with the package's extra)
    "implement",  # an abstract method: use a subclass that implements it
    "cause",  # the exception wraps another one: what raised that
    "report",  # an internal invariant: report it to the maintainers
]


@dataclass(frozen=True, kw_only=True)
class Fix:
    """One solution with where it came from: `source` "message" when quoted from the
    error message, "code" when derived from the conditions, inputs and knobs."""

    text: str
    kind: FixKind
    source: Kind["message", "code"] = "code"
    knobs: tuple[str, ...] = ()  # the names of the knobs the text names ("--max-model-len")


@dataclass(frozen=True, kw_only=True)
class Explanation:
    """Prose derived from a site's facts; `provenance` says how ("static": from code)."""

    title: str
    what_it_means: str
    when_it_happens: str
    solutions: tuple[str, ...] = ()
    common_situations: tuple[str, ...] = ()
    call_paths: tuple[tuple[str, ...], ...] = ()  # callers, nearest first; best effort
    tests: tuple[TestRef, ...] = ()
    related: tuple[str, ...] = ()  # ids of related sites
    report_issue_url: str | None = None
    provenance: str = "static"
    fixes: tuple[Fix, ...] = ()  # the solutions, in the same order, with their provenance


@dataclass(frozen=True, kw_only=True)
class ErrorSite:
    id: str
    kind: SiteKind
    exception: ExceptionRef
    message: Message | None  # None: the raise carries no message we can see
    location: Location
    snippet: Snippet
    guard: tuple[Guard, ...] = ()
    inputs: tuple[Input, ...] = ()
    cause: str | None = None  # the expression after `from`, for `raise X from Y`
    variant: str | None = None  # why one raise has several templates (branch that built it)
    unreachable: str | None = None  # why it can never fire: guards that contradict each other
    explanation: Explanation | None = None  # added by the explain stage


@dataclass(frozen=True, kw_only=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class Snapshot:
    """A tree of source code at a known version, ready to extract from."""

    package: str
    version: str
    root: Path  # the repository root on disk (an sdist's top folder)
    source: str  # the SOURCE the user gave, e.g. "pypi:vllm==0.28.0"
    repo_url: str | None = None  # https://github.com/OWNER/NAME for GitHub repos
    commit: str | None = None
    # the release's git tag, when it names no commit and its own files say how its tags
    # are named (sources/tags.py): links then point at the tag, and say so
    tag: str | None = None
    date: str | None = None  # ISO 8601 date of the release or commit
    code_paths: tuple[str, ...] = ()  # package dirs/modules, relative to root
    # what the package's metadata requires: (distribution, extra, version specifier),
    # extra "" for the requirements every install has, specifier "" for any version;
    # read as text, never by running setup.py
    requires: tuple[tuple[str, str, str], ...] = ()
    # what the tree is when it is not the release's source, for the user to read: the
    # platform wheel whose Python files stand in for a project that publishes no sdist
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class IndexResult:
    snapshot: Snapshot
    sites: tuple[ErrorSite, ...]  # what was written; empty when nothing changed
    site_count: int  # the snapshot's sites as stored, written now or before
    files: int  # Python files read
    parsed: int  # files parsed this run (the rest came from the cache)
    skipped: tuple[SkippedFile, ...]
    seconds: float
    unchanged: bool = False  # the store already held this exact tree
    phases: tuple[tuple[str, float], ...] = ()  # (phase, wall seconds), in order
    reused: int = 0  # sites whose explanation's per-site part came from the cache
    # (language, files, sites) of the native sources (C, C++, CUDA, Rust), counted apart:
    # `files` and `parsed` are the Python files; `site_count` holds every site
    native: tuple[tuple[str, int, int], ...] = ()


# -- what extract reads from the test files, for explain to fit to sites ---------------


@dataclass(frozen=True, kw_only=True)
class Expectation:
    """One place in a test that expects an exception, with what it says of the message."""

    exceptions: frozenset[str]  # last segments of the names, e.g. {"ValueError"}; empty
    # for a message checked in captured output (any class)
    alternatives: tuple[tuple[str, ...], ...]  # literal pieces per regex alternative; ()
    # when the test names only the class (`pytest.raises(Cls)`, nothing checked after)
    test: TestRef
    calls: frozenset[str] = frozenset()  # names called where the exception is expected


@dataclass(frozen=True, kw_only=True)
class TestFile:
    """A test file of the snapshot, as far as finding triggering tests needs it."""

    path: str
    names: frozenset[str]  # every identifier the file mentions
    expectations: tuple[Expectation, ...]


# -- what the store holds and gives back -----------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Enrichment:
    """A model's answer about one error, kept beside (never over) the static explanation."""

    site_id: str
    model: str
    created: str  # ISO 8601 UTC time of the answer
    text: str
    provenance: str = "llm"


@dataclass(frozen=True, kw_only=True)
class Record:
    """An error site as stored: the site, the snapshot it belongs to and, when the store
    looked them up (Store.get), the versions that have it and a model's note on it."""

    site: ErrorSite
    package: str
    version: str
    repo_url: str | None = None
    commit: str | None = None
    versions: tuple[str, ...] = ()  # oldest first; empty when not looked up
    ai: Enrichment | None = None
    tag: str | None = None  # the snapshot's release tag (Snapshot.tag)

    @property
    def id(self) -> str:
        return self.site.id


@dataclass(frozen=True, kw_only=True)
class StoredSnapshot:
    """A snapshot as the store keeps it, with what indexing it found."""

    package: str
    version: str
    source: str
    repo_url: str | None
    commit: str | None
    date: str | None
    files: int
    sites: int
    skipped: tuple[SkippedFile, ...]
    indexed_at: str
    tag: str | None = None  # Snapshot.tag


@dataclass(frozen=True, kw_only=True)
class IndexFailure:
    """A source `errdex index-many` could not index: why, after how many attempts."""

    source: str
    reason: str
    attempts: int
    failed_at: str


@dataclass(frozen=True, kw_only=True)
class Segment:
    """A piece of highlighted text: `match` when it is one of the words searched for."""

    text: str
    match: bool


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    record: Record
    score: float
    # "message" and "title" whole; "solutions" and "inputs" as snippets when a word is in them
    highlight: dict[str, tuple[Segment, ...] | None]


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    total: int
    hits: tuple[SearchHit, ...]


# -- what the matcher answers -----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Match:
    """One site offered for a text a user saw."""

    id: str
    package: str
    version: str
    file: str
    line: int
    function: str
    exception: str
    template: str | None
    score: float
    exact: bool
    values: dict[str, str]
    ambiguous: bool = False
    version_inferred: str | None = None
    exception_agrees: bool | None = None  # None: the text shows no exception class
    note: str | None = None
    label: str | None = None  # for closest: why it is only close
    # errdex.lookup(exception): the version of `package` installed where the exception
    # was raised, when it is not the indexed `version` the answer comes from
    installed_version: str | None = None


@dataclass(frozen=True, kw_only=True)
class MatchResult:
    """Credible answers best first, labelled near misses, and a note when the input
    itself is the problem (empty, binary, no message)."""

    query: str
    matches: tuple[Match, ...] = ()
    closest: tuple[Match, ...] = ()
    note: str | None = None


# -- what changed between versions ------------------------------------------------------

# "relaid": the same error in the same module, only its file under `src/` on one side
# and not the other (a move into a src/ layout, or an sdist beside an installed tree)
ChangeKind = Kind["added", "removed", "reworded", "retyped", "moved", "relaid"]


@dataclass(frozen=True, kw_only=True)
class Change:
    """One difference between two versions of a package's errors."""

    kind: ChangeKind
    old: Record | None  # the record in the older version (None when added)
    new: Record | None  # the record in the newer version (None when removed)

    @property
    def id(self) -> str:
        record = self.new or self.old
        assert record is not None
        return record.id


@dataclass(frozen=True, kw_only=True)
class LineageEvent:
    """A step in one error's history: between two adjacent versions, how it changed."""

    kind: ChangeKind
    old_version: str
    new_version: str
    old: Record | None
    new: Record | None


@dataclass(frozen=True, kw_only=True)
class IndexedSite:
    """One stored row of a site as the match index gives it: what a matcher judges a
    candidate by, without the whole record."""

    template_id: int | None  # None: the site has no message
    lits: tuple[str, ...] | None  # the template's normalized literal runs
    id: str
    package: str
    version: str
    file: str
    line: int
    function: str
    exception: str  # the class raised, as the code writes it (ExceptionRef.name)
    exception_names: tuple[str, ...]  # that name, qualified, and the qualified bases
    text: str | None  # message.text
    holes: tuple[tuple[str, ...], ...]  # hole expressions of each group between two runs
