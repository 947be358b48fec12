# "Solutions", most useful first: what the message itself tells the reader to do (quoted,
# with the knob it names), then one fix per input the failing condition reads, said with
# the knob a user types to change it (a flag, an environment variable, a JSON key, a
# constructor parameter), the public function a private one's argument comes from, the
# call that raised what a handler wraps, the flag whose value picked the class that
# raised or that the check refuses (`--reasoning-parser step3`), the distribution an
# import needs (with the package's extra), and an abstract method's implementers.
# Nothing here tells a user to change a private name or a value the library computes.
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from errdex.explain.access import private_name, private_path
from errdex.explain.analysis import Analysis
from errdex.explain.conditions import Clause, literal
from errdex.explain.imports import (
    DISTRIBUTIONS,
    Needed,
    Requirement,
    named_in,
    normal,
    requirement,
    stated_version,
)
from errdex.explain.knobs import MAX_KNOWN, KnobIndex, Selection, usage
from errdex.explain.surface import said_root
from errdex.explain.title import constants, display
from errdex.expr import (
    Attribute,
    BoolOp,
    Call,
    Constant,
    Expr,
    IsInstance,
    Membership,
    Name,
    target_source,
)
from errdex.model import ErrorSite, Fix, Hole, Hop, Input, Knob

MAX_SOLUTIONS = 6
MAX_QUOTE = 220
MAX_SHOWN_EXPR = 60
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"{(])|\n+")
_LEADING_HOLES = re.compile(r"^(?:\{[^{}]*\}\s*)+(?=[A-Z])")
_INSTRUCTION = re.compile(
    r"^(please|use|try|consider|set|pass|specify|install|upgrade|downgrade|update|reduce|"
    r"increase|decrease|lower|raise|enable|disable|remove|add|run|call|make sure|ensure|"
    r"check|provide|choose|select|switch|change|rerun|re-run|restart|avoid|refer|see|"
    r"either|perhaps|maybe|did you mean|you (?:can|may|should|must|need|might)|"
    r"to (?:fix|use|enable|disable|avoid|resolve|run|allow|override|change|increase|"
    r"decrease|silence|suppress|skip)|if you)\b",
    re.I,
)
_ANYWHERE = re.compile(
    r"\b(please|instead|pip install|you (?:can|may|should|must|need)|consider|"
    r"set (?:the )?(?:env(?:ironment)? var(?:iable)? )?[`'\"]?[\w.-]+[`'\"]?\s*=|"
    r"(?-i:[A-Z][A-Z0-9_]{3,})=\S|--[a-z][\w-]+)",
    re.I,
)
_TOKEN = re.compile(r"`([^`]+)`|(?<![\w-])(--[a-z][\w-]*|[A-Z][A-Z0-9_]{3,}|[a-z]\w*_\w+)")
# Where Python prints the exception a handler caught: a page says so only when a
# traceback shows it (explain/__init__.py drops it for an error the package keeps).
PRINTED_ABOVE = "printed above this error in the traceback"
_EXC_IMPORT = ("ImportError", "ModuleNotFoundError")
# A private function's parameters to where they come from: the public caller's name and
# its parameters that reach them, or the fields (as inputs, with their knobs) of the
# object whose method passes them; None when the library computes them.
Handoff = Callable[[Sequence[Input]], tuple[str, list[str]] | list[Input] | None]


@dataclass(frozen=True, slots=True)
class Context:
    """What solutions need beyond the site: the knobs, the call graph, the package."""

    knobs: KnobIndex
    package: str = ""
    requires: Iterable[Requirement] = ()  # read only by the few sites that need it
    handoff: Handoff | None = None
    dests: dict[str, list[str]] = field(default_factory=dict)  # dest -> flags
    # the qualified name a name of the site's file refers to (imports followed)
    qualify: Callable[[str], str] | None = None
    # the functions that call the site's function, nearest first, as a user names them
    callers: tuple[str, ...] = ()
    # what the package's top module imports, module-qualified, and `module.*` for a star
    exported: frozenset[str] = frozenset()
    # whether an input (by expression) is first set inside an `__init__` of the site's
    # file: state each object starts in, not a class-level setting
    set_in_init: Callable[[str], bool] = lambda expr: False
    # the module a bare name of the site's file imports (`anyio`), None for other names
    imported: Callable[[str], str | None] | None = None
    # the line of the site's guard at a position: the prose is handed none (see
    # explain/reuse.py) and asks for the one it says
    guard_line: Callable[[int], int] = lambda position: 0


def solutions(analysis: Analysis, context: Context, needed: Needed | None) -> list[Fix]:
    """Fixes for a site, most useful first (see the module comment); `needed` is the
    import check the site sits behind (explain/imports.py `needs`), None for none."""
    out: list[Fix] = list(advice(analysis, context))
    out += _signal(analysis, context) + _on_purpose(analysis)
    out += _text_mode(analysis, context)
    if needed is not None:  # a missing module: what to install comes before the rest
        out += _dependencies(analysis, needed, context, advised=bool(out))
    fixes = _input_fixes(analysis, context)
    out += _syntax(analysis, set_too=any(f.kind == "input" for f in fixes))
    if not out and not any(f.kind == "input" for f in fixes):
        out += _required(analysis)
    if out:  # the message says what to do: a pointer to a caller only adds noise, and
        # a fix through a knob it names says it again
        named = {k for f in out for k in f.knobs}
        fixes = [f for f in fixes if f.kind != "caller" and not (f.knobs and set(f.knobs) <= named)]
    out += fixes
    if not any(f.kind in ("input", "caller") for f in out):
        out += _selected(analysis, context)
    if not any(f.kind in ("input", "caller") for f in out):
        out += _used_up(analysis, context)
    if not any(f.kind in ("input", "caller") for f in out):
        out += _causes(analysis, context)
    elif fixes and all(_avoids(f) for f in fixes if f.kind == "input"):
        # only ways around the check (`if extra is None: return` before the handler):
        # what made the handled call fail, when it says so, is the fix, and comes first
        causes = [c for c in _causes(analysis, context) if c.text.startswith("Check the ")]
        if causes:
            at = out.index(fixes[0]) if fixes[0] in out else len(out)
            out[at:at] = causes
            out = [_as_avoiding(f) if f in fixes and _avoids(f) else f for f in out]
    if needed is None:
        out += _missing_attributes(analysis)
    out += _implement(analysis)
    if not out:
        out += _public_inputs(analysis)
    unique: dict[str, Fix] = {}
    for fix in out:
        unique.setdefault(fix.text, fix)
    return list(unique.values())[:MAX_SOLUTIONS]


# -- the message's own advice -------------------------------------------------------------


def advice(analysis: Analysis, context: Context) -> list[Fix]:
    """Sentences of the message that tell the reader what to do, each with the command-line
    flag of a setting it names."""
    message = analysis.site.message
    if message is None:
        return []
    out: list[Fix] = []
    for sentence in _SENTENCE.split(display(message, constants(analysis.site))):
        sentence = _LEADING_HOLES.sub("", sentence.strip(" -–—:;,"))
        if len(sentence) < 8:
            continue
        for clause in re.split(r"(?<=;)\s+|\s+[-–—]\s+", sentence):
            clause = clause.strip(" ;:")
            if _INSTRUCTION.match(clause) or _ANYWHERE.search(clause):
                # advice that names the library's private code is for its developers
                if len(clause.split()) >= 3 and not _PRIVATE_CODE.search(clause):
                    out.append(_linked(clause[0].upper() + clause[1:], context))
                break
    return out


_PRIVATE_CODE = re.compile(r"`[^`]*?(?<![\w{}])_[A-Za-z]\w*[^`]*`")  # `_x`, `a._x()`

# A message that states what an input must be: "`audience` must be a string or None",
# "'characters' argument must have a cell width of at least 1"
_REQUIREMENT = re.compile(
    r"^(?:the |an? )?[`'\"]?(?P<name>[A-Za-z_]\w*)[`'\"]?(?: (?:argument|parameter|option|value))?"
    r" (?:must|should|has to|needs to) (?P<verb>not be|be|have|contain|start with|end with)"
    r" (?P<rest>[^.;:]{2,80}?)\.?$"
)
_VERBS = {
    "be": "is",
    "not be": "is not",
    "have": "has",
    "contain": "contains",
    "start with": "starts with",
    "end with": "ends with",
}


def _required(analysis: Analysis) -> list[Fix]:
    """The message's statement of what an input must be, as a fix that names where the
    user sets it: "Pass an `audience` that is a string or None (from your call
    `decode(audience=…)`)"; only for an input a user sets, and a statement with no hole."""
    message = analysis.site.message
    if message is None:
        return []
    for sentence in _SENTENCE.split(message.literal_text):
        found = _REQUIREMENT.match(sentence.strip())
        if found is None or "{" in found.group("rest"):
            continue
        name = found.group("name")
        item = next((i for i in analysis.site.inputs if i.name == name), None)
        if item is None or item.access != "public" or item.kind == "local":
            continue
        shown = _named(item)
        article = "an" if shown[:1].lower() in "aeiou" else "a"
        notes = _notes(item)
        text = f"Pass {article} `{shown}` that {_VERBS[found.group('verb')]} {found.group('rest')}"
        text += f" ({', '.join(notes)})" if notes else ""
        return [Fix(text=text, kind="input", source="message")]
    return []


def _linked(text: str, context: Context) -> Fix:
    """The advice with the flags of the settings it names, as a `message` fix."""
    named: list[str] = []
    notes: list[str] = []
    for found in _TOKEN.finditer(text):
        token = (found.group(1) or found.group(2) or "").strip()
        if token.startswith("--") or context.knobs.env_docs.get(token) is not None:
            named.append(token.split("=", 1)[0])
        elif token in context.dests and token not in named:
            flags = context.dests[token]
            if len(flags) == 1 and flags[0] not in text:
                named.append(flags[0])
                notes.append(f"`{token}` is `{flags[0]}` on the command line")
    if notes:
        text = text.rstrip(".") + " (" + "; ".join(notes) + ")"
    return Fix(text=text, kind="message", source="message", knobs=tuple(dict.fromkeys(named)))


# -- errors a user meets on purpose -------------------------------------------------------

# What each signal-like exception reports, when the code raises it itself.
_SIGNALLED = {
    "EOFError": "the end of input (Ctrl+D, or a closed stdin), as Python's `input()` does",
    "KeyboardInterrupt": "an interrupt (Ctrl+C, or a signal the process was sent)",
}


def _signal(analysis: Analysis, context: Context) -> list[Fix]:
    """`EOFError` and `KeyboardInterrupt` raised by the code itself report what the user
    at the terminal did: a program that wants to go on catches them."""
    exc = analysis.site.exception.name.rsplit(".", 1)[-1]
    said = _SIGNALLED.get(exc)
    if said is None:
        return []
    caller = _public_function(analysis.site.location.function, context)
    where = f" around the call to `{caller}`" if caller else ""
    return [
        Fix(
            text=(
                f"It reports {said}, not a fault: catch `{exc}`{where} if your program should go on"
            ),
            kind="cause",
        )
    ]


def _on_purpose(analysis: Analysis) -> list[Fix]:
    """A public method named for raising (`raise_for_status`) that raises the package's
    own exception: the caller asked for it."""
    site = analysis.site
    function = site.location.function
    name = function.rsplit(".", 1)[-1]
    if not (name.startswith("raise_") or name == "raise") or private_name(function):
        return []
    if site.exception.qualname.startswith("builtins.") or "." not in site.exception.qualname:
        return []  # a builtin error there is a misuse of the method, not what it reports
    exc = site.exception.name.rsplit(".", 1)[-1]
    return [
        Fix(
            text=(
                f"You called `{function}()`, which raises `{exc}` on purpose when its check"
                " fails (see when it happens): fix what the message reports, or catch"
                f" `{exc}` around the call if your code can go on"
            ),
            kind="cause",
        )
    ]


# Methods a user reaches through a statement rather than by name.
_STATEMENT_DUNDERS = frozenset({"__enter__", "__aenter__", "__iter__", "__aiter__", "__call__"})


def _used_up(analysis: Analysis, context: Context) -> list[Fix]:
    """A method of a class the package exports at its top that checks only the object's
    own state (attributes no user sets that start at a literal, compared with a state or
    read as a flag): what the user did with that object before (closed it, read it) is
    what the check refuses."""
    site, owner = analysis.site, analysis.owner
    if owner is None or site.kind == "assert":
        return []
    qualified = f"{owner.module}.{owner.qualname}"
    if qualified not in context.exported and f"{owner.module}.*" not in context.exported:
        return []
    method = site.location.function.rsplit(".", 1)[-1]
    if site.location.function != f"{owner.qualname}.{method}":
        return []
    if private_name(method) or (method.startswith("__") and method not in _STATEMENT_DUNDERS):
        return []
    clauses = analysis.trigger or analysis.reached_if
    if not clauses:
        return []
    for clause in clauses:
        subject = clause.subject
        if subject is None or subject.knobs or not subject.expr.startswith("self."):
            return []
        if subject.kind != "attribute" or subject.access != "internal":
            return []  # a property is computed from data (`is_success`), not used up
        if "None" in (clause.bound, subject.default) or not _state_value(subject.default):
            return []  # never set, or set from what the object was given, not by use
        if not context.set_in_init(subject.expr):
            return []  # a class-level setting of a subclass (`has_source_access = False`)
    name = owner.qualname
    return [
        Fix(
            text=(
                f"Check what your code did with this `{name}` before `{method}`: the check"
                " reads the object's own state, which its earlier use changed (an earlier"
                f" call on it, or the end of the block that closed it); call `{method}`"
                f" before that, or on a new `{name}`"
            ),
            kind="input",
        )
    ]


def _selected(analysis: Analysis, context: Context) -> list[Fix]:
    """The class that raises, or the class a check refuses (`isinstance(x, Cls)`,
    `is_cls(x)`), was picked by a flag's value: another value picks another class. Not
    for an assert or a check on the object's own private state (`self._buffer`): those
    are the class's invariants, whichever value picked it."""
    site, owner = analysis.site, analysis.owner
    if site.kind == "assert" or any(
        c.subject is not None and c.subject.kind == "attribute" and private_name(c.subject.expr)
        for c in analysis.trigger + analysis.reached_if
    ):
        return []
    if owner is not None and site.location.function.startswith(owner.qualname + "."):
        chosen = context.knobs.selection(f"{owner.module}.{owner.qualname}")
        if chosen is not None:
            name = owner.qualname
            what = "this class" if private_name(name) else f"`{name}`"
            return [_choose(f"It is raised by {what}, the class {_picked(chosen)}", chosen)]
    for guard in site.guard:
        if guard.kind not in ("if", "elif") or guard.negated:
            continue
        for check in _held_checks(guard.tree):
            found = _refused_class(check, site.location.file, context.knobs)
            if found is None:
                continue
            cls, chosen, held = found
            short = cls.rsplit(".", 1)[-1]
            text = f"This check refuses `{held}` as a `{short}`, the class {_picked(chosen)}"
            if private_name(held) or private_name(short):
                text = f"This check refuses the class {_picked(chosen)}"
            return [_choose(text, chosen)]
    return []


def _held_checks(node: Expr | None) -> list[Call | IsInstance]:
    """The calls and `isinstance` checks a test holds when it is true: the test itself,
    or an operand of an `and` (not one under `not`, nor one of an `or`)."""
    operands = node.values if isinstance(node, BoolOp) and node.op == "and" else (node,)
    return [v for v in operands if isinstance(v, Call | IsInstance)]


def _refused_class(
    check: Call | IsInstance, path: str, knobs: KnobIndex
) -> tuple[str, Selection, str] | None:
    """`isinstance(x, Cls)` or `is_cls(x)` in the file at `path`, of a codebase class a
    flag's value picks: the class, the flag, and `x` as written."""
    candidates: tuple[str, ...] = ()
    if isinstance(check, IsInstance):
        types = check.type_names()
        resolved = knobs.class_written(types[0], path) if len(types) == 1 else None
        candidates = () if resolved is None else (resolved,)
        held = check.target.source()
    elif check.name.startswith("is_") and len(check.args) == 1 and not check.keywords:
        candidates = knobs.classes_snake(check.name[3:])
        held = check.args[0].source()
    if len(candidates) != 1:
        return None
    chosen = knobs.selection(candidates[0])
    return None if chosen is None else (candidates[0], chosen, held)


def _picked(chosen: Selection) -> str:
    uses = [f"`{chosen.flag.name} {v}`" for v in chosen.values[:3]]
    return " or ".join(uses) + " selects"


def _choose(text: str, chosen: Selection) -> Fix:
    text += f": if that choice does not fit your setup, choose another `{chosen.flag.name}`"
    others = chosen.others[:MAX_KNOWN]
    if others:
        more = len(chosen.others) - len(others)
        listed = ", ".join(f"`{o}`" for o in others) + (f" and {more} more" if more else "")
        text += f" (the code knows {listed})"
    return Fix(text=text, kind="input", knobs=(chosen.flag.name,))


def _state_value(text: str | None) -> bool:
    """A value an object starts in: a literal (`False`, `0`) or a member of a states
    class (`ClientState.UNOPENED`)."""
    return literal(text)[0] or re.fullmatch(r"[A-Z]\w*\.[A-Z][A-Z0-9_]*", text or "") is not None


def _syntax(analysis: Analysis, *, set_too: bool) -> list[Fix]:
    """A syntax error (`SyntaxError`, `TemplateSyntaxError`) reports text that does not
    parse: the text is what to correct, at the place the error gives; `set_too` when a
    setting the check reads allows the text as well (`allow_domain_literal`)."""
    site = analysis.site
    names = (site.exception.name, site.exception.qualname, *site.exception.bases)
    if not any(n.rsplit(".", 1)[-1].endswith("SyntaxError") for n in names):
        return []
    function = site.location.function
    text = "the text being parsed" if private_name(function) else f"the text `{function}` parses"
    return [
        Fix(
            text=(
                f"Correct {text}, at the place the error gives (its line, and its file when"
                " there is one)"
                + ("" if set_too else ": the error is in that text, not in a setting")
            ),
            kind="input",
        )
    ]


# The standard library's text streams, and what a check that refuses one wants instead.
_TEXT_STREAMS = {
    "io.TextIOBase": 'Open the file{you_pass} in binary mode (`open(path, "rb")`)',
    "io.TextIOWrapper": 'Open the file{you_pass} in binary mode (`open(path, "rb")`)',
    "io.StringIO": "Pass an `io.BytesIO` (bytes){to} instead of an `io.StringIO`",
}


def _text_mode(analysis: Analysis, context: Context) -> list[Fix]:
    """A check that fires when a value is one of the standard library's text streams
    (`isinstance(f, io.TextIOBase)`) refuses a file opened in text mode: the caller
    opens it in binary mode."""
    for guard in analysis.site.guard:
        if guard.kind not in ("if", "elif") or guard.negated:
            continue
        for check in _held_checks(guard.tree):
            if not isinstance(check, IsInstance) or len(check.type_names()) != 1:
                continue
            written = check.type_names()[0]
            qualified = context.qualify(written) if context.qualify is not None else written
            wanted = _TEXT_STREAMS.get(qualified)
            if wanted is None:
                continue
            site = analysis.site
            # the functions of a private module (`httpx/_multipart.py`), and its callers (named
            # without their module), may not be what a user calls: none is named there
            caller = None
            if not private_path(site.location.file):
                caller = _public_function(site.location.function, context)
            said = wanted.format(
                you_pass=f" you pass to `{caller}`" if caller else "",
                to=f" to `{caller}`" if caller else "",
            )
            return [
                Fix(
                    text=(
                        f"{said}: this check refuses a text stream (`{qualified}`), which"
                        " yields `str` where bytes are needed"
                    ),
                    kind="input",
                )
            ]
    return []


def _public_function(function: str, context: Context) -> str | None:
    """`function` when a user calls it by that name, else its nearest public caller."""
    for name in (function, *context.callers):
        if name != "<module>" and not private_name(name) and "<" not in name:
            return name
    return None


# -- the inputs the condition reads -------------------------------------------------------


def _input_fixes(analysis: Analysis, context: Context) -> list[Fix]:
    out: list[Fix] = []
    seen: set[str] = set()
    passed_in: list[Input] = []
    for clause in _fix_order(analysis):
        subject = clause.subject
        if subject is None and clause.root is not None:
            held = analysis.inputs.get(clause.root)  # `x.host` of a local `x`
            subject = held if held is not None and held.kind == "local" else None
        if subject is None or subject.expr in seen:
            continue
        seen.add(subject.expr)
        first = not any(f.kind == "input" for f in out)
        fix = _fix_for(clause, subject, analysis, first)
        if fix is not None:
            out.append(fix)
        elif subject.kind == "parameter" and subject.access == "internal":
            passed_in.append(subject)
        elif subject.kind == "local" and first:
            derived = _through_local(clause, subject, analysis, context, first)
            if derived is not None:
                out.append(derived)
    if passed_in and not out:
        caller = _from_caller(passed_in, analysis, context)
        if caller is not None:
            out.append(caller)
    return out


def _fix_order(analysis: Analysis) -> list[Clause]:
    """The primary clause first, then the others innermost first; for an assert, only its
    own test (the conditions around it say when it is checked, not what to change)."""
    if analysis.site.kind == "assert":
        return list(analysis.failing)
    if not analysis.trigger:  # raised after early returns: those say what it takes
        return list(reversed(analysis.reached_if))
    primary = analysis.primary
    rest = [c for c in reversed(analysis.trigger) if c is not primary]
    order = ([primary] if primary is not None else []) + rest
    # `only is not None and not is_collection(only)`: the presence test lets the real one
    # run, and leaving `only` out only avoids it, so the real test's fix comes first
    hatches = [c for c in order if _presence_only(c, order)]
    return [c for c in order if c not in hatches] + hatches


def _presence_only(clause: Clause, clauses: list[Clause]) -> bool:
    """Whether `clause` only asks that its subject be given (`x is not None`, `x`) while
    another clause tests the same subject further."""
    subject = clause.subject
    if subject is None or clause.fix is None or not clause.fix.startswith("Leave "):
        return False
    return any(
        c is not clause and c.subject is not None and c.subject.expr == subject.expr
        for c in clauses
    )


def _fix_for(clause: Clause, subject: Input, analysis: Analysis, first: bool) -> Fix | None:
    """The fix of a clause on `subject`: named as the input when a user sets that name,
    else as its first knob (an environment variable behind `envs.X`, a constructor
    parameter that fills a private attribute)."""
    if clause.fix is None:
        return None
    knob = subject.knobs[0] if subject.knobs else None
    named = _named(subject)
    if subject.access == "public" and subject.kind not in ("global", "env"):
        text = clause.fix
        if named != subject.name:  # the user's own parameter, of another name
            text = clause.fix_naming(f"`{named}`") or text
        notes = _notes(subject)
    elif knob is not None and knob.kind in ("constructor", "flag", "option", "env"):
        shown = f"the environment variable `{knob.name}`" if knob.kind == "env" else None
        text = clause.fix_naming(shown or f"`{knob.name}`") or clause.fix
        notes = []
    else:
        return None
    example = clause.example
    if example is None and "non-empty value" in text and _set_by_presence(subject, knob):
        example = "True"  # an environment variable or flag that must be set: `X=1`
    examples = _examples(subject.knobs, example, subject.default)
    if notes:
        text += " (" + ", ".join(notes) + ")"
    if examples:
        text += ", e.g. " + " or ".join(map(_quoted, examples))
    quote = doc_quote(subject, clause.bound)
    if quote:
        text += f'; per its doc: "{quote}"'
    if not first and clause in analysis.trigger:
        text = "Or: " + text[0].lower() + text[1:] + ", so that the check does not apply"
    return Fix(text=text, kind="input", knobs=tuple(k.name for k in subject.knobs[:2]))


def _set_by_presence(subject: Input, knob: Knob | None) -> bool:
    """Whether "a non-empty value" of `subject` is well shown as `True`: through a flag or
    an environment variable, or a constructor parameter of no other known type (a path
    or a list is not `True`)."""
    if knob is None:
        return False
    if knob.kind in ("flag", "option", "env"):
        return True
    known, default = literal(subject.default)
    if known and default is not None and not isinstance(default, bool):
        return False
    return knob.kind == "constructor" and (subject.type is None or "bool" in subject.type)


def _quoted(example: str) -> str:
    """An example of use as code; "leave out --x" and "unset X" keep their verb as prose."""
    for verb in ("leave out ", "unset "):
        if example.startswith(verb):
            return f"{verb}`{example[len(verb) :]}`"
    return f"`{example}`"


def _notes(subject: Input) -> list[str]:
    notes = []
    where = _defined(subject)
    if where:
        notes.append(where)
    default = None if subject.reach else subject.default  # the default of another function
    # an attribute's "default" is what its constructor assigns: a literal, or not one
    shown = subject.kind != "attribute" or literal(default)[0]
    if default is not None and len(default) <= 40 and subject.kind != "local" and shown:
        notes.append(f"default {default}")
    return notes


def _examples(knobs: Sequence[Knob], example: str | None, default: str | None) -> list[str]:
    """Uses of the first knob and, when it is of another kind, of the second."""
    out: list[str] = []
    kinds: set[str] = set()
    value = example if example is not None else None
    for knob in knobs:
        if knob.kind in kinds or len(out) == 2:
            continue
        if knob.kind == "constructor" and out:
            continue  # a flag or variable says it better
        kinds.add(knob.kind)
        out.append(usage(knob, value))
    return out


def _defined(subject: Input) -> str | None:
    root = said_root(subject)
    if root is not None:
        return f"from {root}"
    if subject.kind in ("field", "property", "attribute") and subject.owner:
        if subject.owner == "argparse.Namespace":
            return None
        return f"`{subject.owner}.{subject.name}`"
    if subject.kind == "parameter" and subject.owner:
        return f"parameter of `{_callable_name(subject.owner)}`"
    if subject.kind == "constant":
        return "a module constant"
    if subject.kind == "global" and subject.owner:
        return f"`{subject.owner}.{subject.name}`"
    if subject.kind == "env":
        return "an environment variable"
    return None


def _through_local(
    clause: Clause,
    local: Input,
    analysis: Analysis,
    context: Context,
    first: bool,
    seen: frozenset[str] = frozenset(),
) -> Fix | None:
    """A check on a variable the function computes: a plain alias is fixed as what it
    aliases; anything else points to the public inputs it is computed from. `seen`: the
    locals already followed, so that aliases of each other (`start = token` in a loop
    that sets `token = start`) end instead of recursing for ever."""
    sources = [analysis.inputs[s] for s in local.sources if s in analysis.inputs]
    shown = (clause.shown or "").strip("`")
    seen = seen | {local.name}
    alias = len(sources) == 1 and local.default == sources[0].expr and sources[0].name not in seen
    if alias and clause.subject is None and shown.startswith(local.name + "."):
        target = sources[0]  # `cmd.callback is None` of `cmd = callback_param`
        if target.access == "public" and target.kind == "parameter":
            predicate = clause.text[len(clause.shown or "") :].strip()
            return Fix(
                text=(
                    f"Check the `{_named(target)}` you pass {_where([target], analysis)}:"
                    f" its `{shown[len(local.name) + 1 :]}` {predicate}"
                ),
                kind="input",
            )
    if alias:
        target = sources[0]
        aliased = Clause(
            text=clause.text,
            subject=target,
            fix=clause.fix_naming(f"`{target.name}`"),
            bound=clause.bound,
            shown=f"`{target.name}`",
            example=clause.example,
        )
        if target.kind == "local":
            return _through_local(aliased, target, analysis, context, first, seen)
        fix = _fix_for(aliased, target, analysis, first)
        if fix is not None:
            return fix
    public = public_sources(local, analysis)
    if not public:
        return None
    names = _names(public)
    where = _where(public, analysis)
    shown = local.default or ""
    computed = (
        f"what the check reads (`{shown}`) is computed from {_them(public)}"
        if shown
        and len(shown) <= MAX_SHOWN_EXPR
        and not private_name_in(shown)
        and _mentions_only(local.default_tree, public)
        else f"what the check reads is computed from {_them(public)}"
    )
    if clause.wants is not None:
        computed = f"what the check makes of {_them(public)} must be {clause.wants}"
    knobs = [k for s in public for k in s.knobs]
    text = f"Check the {names} you pass {where}: {computed}"
    examples = _examples(knobs, None, None)
    if examples and all("…" not in e for e in examples):
        text += ", set with " + " or ".join(map(_quoted, examples))
    return Fix(text=text, kind="input", knobs=tuple(k.name for k in knobs[:2]))


def public_sources(local: Input, analysis: Analysis, depth: int = 0) -> list[Input]:
    """The inputs a local is computed from that a user sets, through other locals; none
    when it also reads the object's own state (`self.get(i)`: what `i` selects is the
    object's, not the user's)."""
    if _reads_own_state(local, analysis):
        return []
    out: list[Input] = []
    for expr in local.sources:
        source = analysis.inputs.get(expr)
        if source is None:
            continue
        if source.kind == "local" and depth < 3:
            out += [s for s in public_sources(source, analysis, depth + 1) if s not in out]
        elif (source.access == "public" or source.knobs) and source not in out:
            out.append(source)
    return out


def private_name_in(expr: str) -> bool:
    """Whether source text reads a private name (`x._id`, `_cache`)."""
    return re.search(r"(?<![\w])_[A-Za-z]\w*(?<!__)", expr) is not None


def _reads_own_state(local: Input, analysis: Analysis) -> bool:
    """Whether a local's value reads `self.x` (or calls `self.f(...)`) that is not a
    public input of the site."""
    node = local.default_tree
    for sub in () if node is None else node.walk():
        owner = sub.value if isinstance(sub, Attribute) else None
        if isinstance(sub, Attribute) and isinstance(owner, Name) and owner.id in ("self", "cls"):
            found = analysis.inputs.get(f"{owner.id}.{sub.attr}")
            if found is None or (found.access != "public" and not found.knobs):
                return True
    return False


def _mentions_only(node: Expr | None, inputs: Sequence[Input]) -> bool:
    """Whether every name the expression `node` reads is one of `inputs` (or a call's
    function); False for no expression."""
    if node is None:
        return False
    allowed = {i.expr.split(".")[0] for i in inputs}
    called: set[int] = set()  # the names that are called, by identity
    for sub in node.walk():
        if not isinstance(sub, Call):
            continue
        func = sub.func
        called.add(id(func))
        # a method of the object itself (`self.connect(...)`), not of what it holds
        method = func.attr if isinstance(func, Attribute) else "_"
        holder = func.value if isinstance(func, Attribute) else None
        if isinstance(holder, Name) and holder.id in ("self", "cls") and method[0] != "_":
            called.add(id(holder))
    for sub in node.walk():
        if isinstance(sub, Name) and id(sub) not in called and sub.id not in allowed:
            return False
    return True


def _names(inputs: Sequence[Input]) -> str:
    shown = [f"`{_named(i)}`" for i in inputs]
    shown = list(dict.fromkeys(shown))[:3]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _named(item: Input) -> str:
    """An input as the user sets it: the parameter of their own call that reaches it, or
    the knob that sets a value the library keeps."""
    if said_root(item) is not None:
        option = next((k for k in item.knobs if k.kind in ("option", "flag")), None)
        return item.reach[0].param if option is None else option.name
    return item.knobs[0].name if item.access != "public" and item.knobs else item.name


def _them(inputs: Sequence[Input]) -> str:
    return "it" if len(inputs) == 1 else "them"


def _where(inputs: Sequence[Input], analysis: Analysis) -> str:
    """ "to `F`" for parameters of the raising function (its class for `__init__`), or
    of the user's call that reaches them all."""
    roots = {_root_place(i) for i in inputs}
    if len(roots) == 1 and None not in roots:
        return str(next(iter(roots)))
    reached = {r for r in roots if r is not None}
    if len(reached) == 1 and all(i.kind != "parameter" or i.reach for i in inputs):
        return str(next(iter(reached)))  # the others are made from it on the way
    function = analysis.site.location.function
    owners = {i.owner for i in inputs if i.kind == "parameter"}
    if owners == {function} and not private_name(function):
        return f"to `{_callable_name(function)}`"
    fields = {i.owner for i in inputs if i.kind in ("field", "attribute") and i.owner}
    if len(fields) == 1:
        return f"to `{next(iter(fields))}`"
    return "in"


def _root_place(item: Input) -> str | None:
    """Where the user gives `item` its value, from its reach: "to `decode`", "on the
    command line"; None when it has no reach."""
    if said_root(item) is None:
        return None
    if any(k.kind in ("option", "flag") for k in item.knobs):
        return "on the command line"
    return f"to `{item.reach[0].function}`"


def _callable_name(function: str) -> str:
    """How a user calls `function`: a class for its `__init__`, else its name."""
    head, _, name = function.rpartition(".")
    return head if name in ("__init__", "__post_init__", "__new__") and head else function


def _from_caller(passed: list[Input], analysis: Analysis, context: Context) -> Fix | None:
    """A private function's parameters: the public caller that hands them on, named by
    its own parameters; nothing when the library computes them on the way."""
    reached = next((i for i in passed if i.reach), None)
    if reached is not None and analysis.site.kind != "assert":
        return _computed_reach(reached, analysis)
    found = None if context.handoff is None else context.handoff(passed)
    if not found:
        return None
    function = analysis.site.location.function
    if isinstance(found, list):
        return _from_fields(found, function)
    caller, params = found
    names = _listing(params)
    return Fix(
        text=f"Check the {names} you pass to `{caller}`: {_reaches(function, len(params))}",
        kind="caller",
    )


def _computed_reach(item: Input, analysis: Analysis) -> Fix:
    """A parameter computed from what the user passed further up: name the user's
    argument, and say that the check reads a value made from it."""
    root = item.reach[0]
    made = "what this check reads is computed from it"  # no internal function named
    text = f"Check the `{root.param}` you pass to `{root.function}`: {made}"
    return Fix(text=text + ", and this check rejects the result", kind="caller")


def _reaches(function: str, count: int) -> str:
    """Where the value goes, the function named unless it is private."""
    they = "it" if count == 1 else "they"
    if private_name(function):
        return f"this check rejects the value that {they} carr{'ies' if count == 1 else 'y'}"
    verb = "reaches" if count == 1 else "reach"
    return f"{they} {verb} `{function}`, where this check rejects the value that arrived"


def _from_fields(fields: list[Input], function: str) -> Fix | None:
    """Settings an object hands to a private function (`self.max_model_len`), said with
    the knobs that set them."""
    settable = [f for f in fields if f.knobs or f.access == "public"]
    if not settable or len(settable) < len(fields):
        return None
    parts = []
    for item in settable[:3]:
        shown = f"`{item.name}`" if item.access == "public" else f"`{item.knobs[0].name}`"
        notes = _notes(item) if item.access == "public" else []
        examples = _examples(item.knobs, None, None)
        text = shown + (" (" + ", ".join(notes) + ")" if notes else "")
        if examples:
            text += ", set with " + " or ".join(map(_quoted, examples))
        parts.append(text)
    return Fix(
        text=f"Check {'; '.join(parts)}: {_reaches(function, len(parts))}",
        kind="caller",
        knobs=tuple(k.name for f in settable for k in f.knobs[:1]),
    )


def _listing(names: Sequence[str]) -> str:
    shown = [f"`{n}`" for n in names[:3]]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


# -- what a handler wraps -----------------------------------------------------------------


def _caught(test: str, context: Context) -> str | None:
    """The exception types an `except` names, as a reader finds them: a private alias
    (`_SSLError`) by the class it imports; None for one held in a variable."""
    shown = []
    for name in test.split(" as ", 1)[0].strip("() ").split(","):
        name = name.strip()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name) or name.startswith(("self.", "cls.")):
            return None
        if private_name(name) and context.qualify is not None:
            name = context.qualify(name)
        if private_name(name):
            return None
        shown.append(f"`{name}`")
    return " or ".join(shown) if shown else None


def _causes(analysis: Analysis, context: Context) -> list[Fix]:
    """A raise in an `except` block: the call that raised what it handles, and the public
    inputs that call reads."""
    site = analysis.site
    for position, guard in reversed(list(enumerate(site.guard))):
        if guard.kind != "except":
            continue
        test = guard.test.split(" as ", 1)[0]
        catch_all = test in ("Exception", "BaseException")
        if (catch_all and site.cause is None) or any(e in test for e in _EXC_IMPORT):
            return []  # a catch-all that does not chain what it caught says nothing of it
        caught = _caught(guard.test, context) or "exception"
        call = guard.raised_by
        passed = [] if call is None else [i for i in site.inputs if reads(call, i)]
        said = _failure_at(analysis, position)
        if said is not None and private_name_in(said):
            said = None  # a solution names nothing of the library's own
        if said is not None and call is not None and site.kind != "reraise":
            users = _users_of(call, analysis)
            subject, _, predicate = said[1:].partition("` ")
            if users:
                lead = f"Check the {_names(users)} you pass {_where(users, analysis)}"
                if len(users) == 1 and subject == users[0].expr:
                    text = f"{lead}: it {predicate}"
                else:
                    text = f"{lead}: what is made of {_them(users)} {predicate}"
                return [Fix(text=f"{text} (the {caught} it handles{_shown(site)})", kind="cause")]
            root = _computed_root(call, analysis)
            if root is not None:
                text = f"Check the `{root.param}` you pass to `{root.function}`: what is made"
                text += f" of it {predicate} (the {caught} it handles{_shown(site)})"
                return [Fix(text=text, kind="cause")]
        plain = call is not None and passed and _mentions_only(guard.raised_by_tree, passed)
        plain = plain and not private_name_in(call or "")  # a fix names no private code
        if plain and all(i.access == "public" and i.kind == "parameter" for i in passed):
            where = _where(passed, analysis)
            return [
                Fix(
                    text=(
                        f"Check the {_names(passed)} you pass {where}: the {caught} this"
                        f" handles comes from `{call}`"
                    ),
                    kind="cause",
                )
            ]
        cause = _handled_cause(site, caught, context.guard_line(position))
        if said is not None and not any(
            i.expr == said[1:].partition("` ")[0] and i.access == "public" for i in site.inputs
        ):  # a value the function computed is named by what it is, not by its name
            said = "what it was handed " + said[1:].partition("` ")[2]
        if said is not None:
            cause = f"{said[0].upper()}{said[1:]}: {cause[0].lower()}{cause[1:]}"
        return [Fix(text=cause, kind="cause")]
    return []


def _shown(site: ErrorSite) -> str:
    """Where the traceback shows the exception a handler caught (see _handled_cause)."""
    if site.cause == "None":
        return "; the traceback does not show it (`from None`)"
    if site.exception.qualname.startswith("pydantic_core."):
        return ""
    return f", {PRINTED_ABOVE}"


def _avoids(fix: Fix) -> bool:
    """Whether an input fix only avoids the check: leave the value out, or flip what
    lets the check run."""
    return fix.text.startswith(("Leave `", "Or: "))


def _as_avoiding(fix: Fix) -> Fix:
    """An avoiding fix said as one, after the fix."""
    if fix.text.startswith("Or: "):
        return fix
    text = "Or: " + fix.text[0].lower() + fix.text[1:] + ", so that the check does not apply"
    return dataclasses.replace(fix, text=text)


def _failure_at(analysis: Analysis, position: int) -> str | None:
    """What the failure of the call in the `try` of the handler guard `position` says
    of what it was handed (explain/failures.py)."""
    handlers = [i for i, g in enumerate(analysis.site.guard) if g.kind == "except"]
    if position not in handlers:
        return None
    failures = analysis.failures()
    index = handlers.index(position)
    return failures[index] if index < len(failures) else None


def _computed_root(call: str, analysis: Analysis) -> Hop | None:
    """The user's argument that what the call reads is computed from, further up (a
    parameter's reach that computes it on the way), when there is one."""
    for item in analysis.site.inputs:
        if not reads(call, item):
            continue
        found = (
            [item]
            if item.kind != "local"
            else [analysis.inputs[s] for s in item.sources if s in analysis.inputs]
        )
        for source in found:
            if source.reach and any(h.computed for h in source.reach):
                return source.reach[0]
    return None


def _users_of(call: str, analysis: Analysis) -> list[Input]:
    """The inputs a user sets that the call reads: public ones, and those that locals
    it reads are computed from."""
    out: list[Input] = []
    for item in analysis.site.inputs:
        if not reads(call, item):
            continue
        found = public_sources(item, analysis) if item.kind == "local" else [item]
        out += [i for i in found if i.access == "public" and i not in out]
    return out


def _handled_cause(site: ErrorSite, caught: str, line: int) -> str:
    """Where to find what went wrong first, as the traceback shows it: Python prints the
    exception being handled above the one raised in its handler ("During handling of the
    above exception…", or "…was the direct cause…" for `raise X from e`); `from None`
    hides it, a bare `raise` is that same exception, and pydantic reports a
    `pydantic_core` error raised in a validator as a line of a `ValidationError`. The
    call that raised it is named by "when it happens", not here: a solution names only
    what a user changes, and that call is the library's own code."""
    origin = f"raised in the `try` block before line {line}"
    if site.kind == "reraise":
        return f"This is the {caught} {origin}, passed on unchanged: its message says what failed"
    if site.cause == "None":
        return (
            f"The {caught} it handles ({origin}) says what failed first; the traceback"
            " does not show it (`from None`)"
        )
    if site.exception.qualname.startswith("pydantic_core."):
        return (
            f"The {caught} it handles ({origin}) says what failed first; pydantic reports"
            f" this error as a line of a `ValidationError`, without it"
        )
    return (
        f"Look at the {caught} it handles, {origin} ({PRINTED_ABOVE}): its message says what failed"
    )


def reads(expr: str, item: Input) -> bool:
    """Whether source text `expr` reads `item` (as a whole name, not part of another):
    where it is written, no word character or `.` comes before it and no word character
    after it. Found with str.find, not a regular expression per name: each site asks of
    other names, and compiling them cost more than all the searches."""
    name = item.expr
    start = expr.find(name)
    while start >= 0:
        end = start + len(name)
        before, after = expr[max(start - 1, 0) : start], expr[end : end + 1]
        if not (before == "." or _word(before) or _word(after)):
            return True
        start = expr.find(name, start + 1)
    return False


def _word(char: str) -> bool:
    """Whether `char` (one character, or none) is what `\\w` matches."""
    return char.isalnum() or char == "_"


# -- dependencies and abstract methods ----------------------------------------------------


def _dependencies(
    analysis: Analysis, needed: Needed, context: Context, *, advised: bool
) -> list[Fix]:
    """What to install for an import check (see explain/imports.py): each module it
    needs, by the distribution that provides it; for a module of the package itself or
    one named at run time, what to look at; a general word only when the code does not
    name the module."""
    site = analysis.site
    message = site.message.literal_text if site.message is not None else ""
    out = _missing_attributes(analysis)
    for module in needed.modules:
        fix = _install(module, context, message)
        if advised and "pip install" in message and fix.knobs == ():
            continue  # the message already says how
        if not (advised and fix.knobs and all(k in message for k in fix.knobs)):
            out.append(fix)
    if out or advised:
        return out
    package = context.package
    for module in needed.own:
        if private_name(module):  # `pkg._native`: a part of the build, named by the meaning
            text = (
                f"Install the optional dependency this part of {package} imports, or reinstall"
                f" {package} if the part itself is missing (a build without it)"
            )
        elif needed.imported:
            text = (
                f"Install the optional dependency that `{module}` imports, or reinstall"
                f" {package} if `{module}` itself is missing (a part of it this build lacks)"
            )
        else:
            text = (
                f"Install {package} itself (`pip install -e .` in a source tree): the check"
                f" finds no installed `{module}`"
            )
        out.append(Fix(text=text, kind="dependency"))
    for expr in needed.given:
        named = "the module it imports" if private_name(expr) else f"the module that `{expr}` names"
        out.append(
            Fix(
                text=f"Check {named}: it could not be imported (misspelled, or not installed)",
                kind="dependency",
            )
        )
    if not out:
        what = "this check looks for" if needed.lookups else "this feature imports"
        out.append(Fix(text=f"Install the optional dependency {what}", kind="dependency"))
    return out


def _missing_attributes(analysis: Analysis) -> list[Fix]:
    """`mod = getattr(torch.xpu, "memory", None)` checked for None: the installed
    distribution lacks what the code looks up."""
    out: list[Fix] = []
    for clause in analysis.trigger:
        local = clause.subject
        if local is None or local.kind != "local" or not local.default:
            continue
        node = local.default_tree
        if not (isinstance(node, Call) and isinstance(node.func, Name)):
            continue
        attr = node.args[1] if node.func.id == "getattr" and len(node.args) >= 2 else None
        if not (isinstance(attr, Constant) and isinstance(attr.value, str)):
            continue
        holder = node.args[0].source()
        root = holder.split(".")[0]
        external = [
            analysis.inputs[s]
            for s in local.sources
            if s in analysis.inputs and analysis.inputs[s].kind == "global" and s == root
        ]
        if external:
            top = (external[0].owner or root).split(".")[0]
            out.append(
                Fix(
                    text=(
                        f"Install a version (or build) of `{top}` that provides"
                        f" `{holder}.{attr.value}`"
                    ),
                    kind="dependency",
                    knobs=(top,),
                )
            )
    return out


def _install(module: str, context: Context, message: str) -> Fix:
    """How to install `module`: through the package's own extra when one requires its
    distribution, else the distribution the package requires, else the one known to
    provide it or the one the message names; at the versions the requirement states,
    else the message."""
    top = module.split(".")[0]
    found = requirement(module, context.requires)
    known = DISTRIBUTIONS.get(module, DISTRIBUTIONS.get(top)) or named_in(message, module)
    distribution, extra, versions = found or (known or "", "", "")
    stated = stated_version(message)
    asked = f"the message asks for version `{stated}`" if stated and not versions else ""
    if not distribution:
        return Fix(
            text=f"Install the package that provides the `{top}` module"
            + (f" ({asked})" if asked else ""),
            kind="dependency",
        )
    provides = "" if normal(distribution) == normal(top) else f"provides `{module}`"
    package = context.package
    if extra:
        which = f", which {provides}," if provides else ""
        required = f"`{distribution}{versions}`" if versions else "it"
        command = f"pip install '{package}[{extra}]'"
        return Fix(
            text=(
                f"Install `{distribution}`{which} with `{command}` (the `{extra}` extra of"
                f" {package} requires {required}" + (f"; {asked})" if asked else ")")
            ),
            kind="dependency",
            knobs=(f"{package}[{extra}]",),
        )
    wanted = distribution + (versions or stated)
    argument = f"'{wanted}'" if re.search(r"[<>=!~,]", wanted) else wanted
    why = " and which ".join(w for w in (provides, f"{package} requires" if found else "") if w)
    return Fix(
        text=f"Install `{distribution}` (`pip install {argument}`)"
        + (f", which {why}" if why else ""),
        kind="dependency",
        knobs=(distribution,),
    )


def _implement(analysis: Analysis) -> list[Fix]:
    site = analysis.site
    exc = site.exception.name.rsplit(".", 1)[-1]
    if (
        not (
            exc == "NotImplementedError" or site.exception.qualname.endswith("NotImplementedError")
        )
        or analysis.trigger
    ):
        return []
    function = site.location.function
    name = function.rsplit(".", 1)[-1]
    owner = analysis.owner.qualname if analysis.owner else None
    if not owner or function != f"{owner}.{name}" or private_name(function):
        return []  # a private hook is the library's to implement, not a user's
    if private_path(site.location.file):
        return []  # a class of a private module is no base a user derives from
    if analysis.owner is not None and name in analysis.owner.abstract:
        return [
            Fix(
                text=(
                    f"In your subclass of `{owner}`, implement `{name}` without calling"
                    f" `super().{name}()`: the base one only raises"
                ),
                kind="implement",
            )
        ]
    return [
        Fix(
            text=(
                f"Implement `{name}` in your subclass of `{owner}`: a class that does not"
                f" define it inherits this raise"
            ),
            kind="implement",
        )
    ]


# -- the public inputs a check reads, when nothing more precise is known ------------------


def _public_inputs(analysis: Analysis) -> list[Fix]:
    """ "Check the `x` you pass to `F`" for the public parameters and attributes the
    conditions and the message read, when no clause says what to change."""
    site = analysis.site
    for clause in analysis.trigger:
        held = clause.subject or analysis.inputs.get(clause.root or "")
        if held is not None and held.kind == "local" and _reads_own_state(held, analysis):
            return []  # the check is on what the object holds (`self.get(i)`), not on `i`
    read = {c.subject.expr for c in analysis.trigger if c.subject is not None}
    read |= set(_hole_reads(analysis))
    for guard in site.guard:
        if guard.kind == "loop-exhausted":
            read |= {i.expr for i in site.inputs if reads(guard.test, i)}
    public = [
        i
        for i in site.inputs
        if i.access == "public"
        and i.expr in read
        and i.kind in ("parameter", "field", "attribute")
        and (i.kind != "parameter" or i.owner == site.location.function)
    ]
    if not public:
        return _from_constructor(analysis)
    exhausted = [g.tree for g in site.guard if g.kind == "loop-exhausted"]
    loops = [t for t in exhausted if isinstance(t, Membership)]
    what = "this check rejects them"
    if loops:
        target, iterable = target_source(loops[-1].item), loops[-1].container.source()
        names = [i for i in site.inputs if reads(iterable, i)]
        shown = all(i.access == "public" for i in names) and _mentions_only(
            loops[-1].container, names
        )
        what = "no item the loop goes through matched them"
        if shown and len(iterable) <= 60 and not private_name(target):
            what = f"no `{target}` in `{iterable}` matched them"
    if len(public) == 1:
        what = what.replace("them", "it")
    return [
        Fix(
            text=f"Check the {_names(public)} you pass {_where(public, analysis)}: {what}",
            kind="input",
            knobs=tuple(k.name for i in public for k in i.knobs[:1]),
        )
    ]


def _from_constructor(analysis: Analysis) -> list[Fix]:
    """Attributes the check reads that the constructor computes from one of its public
    parameters (`self.heads = config.num_heads`): that parameter is what to check."""
    owner = analysis.owner
    if owner is None or private_name(owner.qualname) or owner.error:
        return []  # the package builds its own errors, with what it holds
    params: list[str] = []
    tests = [g.test for g in analysis.site.guard if g.kind in ("if", "elif", "assert", "while")]
    for subject in analysis.site.inputs:
        if subject.kind != "attribute" or subject.owner != owner.qualname:
            continue
        if not any(reads(test, subject) for test in tests):
            continue
        root = re.match(r"[A-Za-z_]\w*", subject.default or "")
        name = root.group(0) if root else ""
        if name in owner.init_names and not private_name(name) and name not in params:
            params.append(name)
    if not params:
        return []
    them = "it" if len(params) == 1 else "them"
    return [
        Fix(
            text=(
                f"Check the {_listing(params)} you pass to `{owner.qualname}`: the values"
                f" this check compares come from {them}"
            ),
            kind="input",
        )
    ]


def _hole_reads(analysis: Analysis) -> list[str]:
    """The inputs the message's holes read."""
    message = analysis.site.message
    if message is None:
        return []
    holes = [p.expr for p in message.parts if isinstance(p, Hole)]
    return [i.expr for i in analysis.site.inputs if any(reads(h, i) for h in holes)]


def doc_quote(subject: Input, bound: str | None) -> str | None:
    """The sentence of the input's doc that speaks of the boundary value, if any."""
    if not subject.doc:
        return None
    doc = " ".join(subject.doc.split())
    sentences = re.split(r"(?<=[.;])\s+", doc)
    wanted = [bound] if bound else []
    if bound in ("0", "None", "-1"):
        wanted.append("default")
    for word in wanted:
        pattern = re.compile(rf"(?<![\w.]){re.escape(word)}(?![\w.])")
        for sentence in sentences:
            if pattern.search(sentence):
                return sentence if len(sentence) <= MAX_QUOTE else sentence[:MAX_QUOTE] + "…"
    return None


def instructions(analysis: Analysis, context: Context) -> list[str]:
    """The message's own advice, as text."""
    return [f.text for f in advice(analysis, context)]


__all__ = [
    "Context",
    "Handoff",
    "advice",
    "doc_quote",
    "instructions",
    "public_sources",
    "reads",
    "solutions",
]
