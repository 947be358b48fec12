# Joins the per-file facts into finished ErrorSites: exception names resolved through
# imports, bases of the codebase's own exceptions, `self.attr` through base classes,
# calls to raise helpers, and stable ids.
from __future__ import annotations

import ast
import builtins
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace

from errdex.expr import Name, Opaque
from errdex.extract import Extraction
from errdex.extract.classes import (
    ARGS_FORMATTED,
    FORMATTED,
    MESSAGE_HOLE,
    PERCENT,
    template_fields,
)
from errdex.extract.facts import (
    ArgFact,
    CallFact,
    FileFacts,
    HelperFact,
    MemberFact,
    Raised,
    RawSite,
)
from errdex.extract.names import ClassRef, Names, class_like, held_class
from errdex.extract.templates import fill_params, is_stringish, merge, percent_parts
from errdex.identity import site_id
from errdex.model import (
    ErrorSite,
    ExceptionRef,
    Hole,
    Input,
    Message,
    Part,
    SkippedFile,
    SourcePos,
    Text,
)

# Parses a file again, working out the calls at the given lines in full.
Revisit = Callable[[str, str, frozenset[int]], FileFacts | None]

# What Python guarantees a raised object is, when nothing more is known of it.
_ANY = ("BaseException", "builtins.BaseException")
_STDLIB = frozenset(sys.stdlib_module_names)


def linked(
    package: str,
    facts: list[FileFacts],
    revisit: Revisit,
    *,
    files: int,
    parsed: int,
    skipped: list[SkippedFile],
    tree_hash: str,
    file_keys: tuple[tuple[str, str], ...] = (),
) -> Extraction:
    """The extraction of `package` made of the files' facts linked with each other, of
    `files` files, `parsed` of them parsed this run; its tests are not scanned here
    (`tests` is empty)."""
    linker = Linker(package, facts, revisit)
    sites = tuple(linker.sites())
    return Extraction(
        sites=sites,
        written=tuple(linker.written),
        facts=tuple(facts),
        tests=(),
        files=files,
        parsed=parsed,
        skipped=tuple(skipped),
        tree_hash=tree_hash,
        file_keys=file_keys,
    )


class Linker(Names):
    def __init__(self, package: str, files: list[FileFacts], revisit: Revisit):
        super().__init__(files)
        self.package = package
        self.revisit = revisit
        self.helper_names = {qualname.rpartition(".")[2] for qualname in self.helpers}
        self.tops = {module.partition(".")[0] for module in self.modules}
        # for each site `sites` gave, in order, its exception as the raise writes it,
        # resolved through imports (`builtins.ValueError`, `self._error_cls`, `mapped`):
        # what tells explain a class named at the raise from one known at run time only
        self.written: list[str] = []
        # functions, methods and properties that return an exception, for
        # `raise make_error(...)`, `raise self.parse_error(...)`, `raise self.dead_error`
        self.factories: dict[str, tuple[HelperFact, FileFacts]] = {}
        for facts in files:
            for factory in facts.factories:
                self.factories[f"{facts.module}.{factory.qualname}"] = (factory, facts)
                if not factory.is_method:
                    self.toplevel.setdefault(facts.module, set()).add(
                        factory.qualname.split(".")[0]
                    )

    # -- sites ------------------------------------------------------------------------

    def sites(self) -> Iterator[ErrorSite]:
        """Every finished site, with ids, in file and line order."""
        ordinals: Counter[tuple[str, str, str, str]] = Counter()
        for facts in self.files:
            raw_sites = list(facts.sites) + list(self._helper_sites(facts))
            raw_sites.sort(key=lambda s: s.location.line)
            for raw in raw_sites:
                yield from self._finish(raw, facts, ordinals)

    def _finish(
        self, raw: RawSite, facts: FileFacts, ordinals: Counter[tuple[str, str, str, str]]
    ) -> Iterator[ErrorSite]:
        """The finished site of `raw`: one per text, when the class raised makes one of
        several (a __str__ that returns along branches)."""
        written = self.resolve(raw.exception, facts)
        found = self.factories.get(written) if raw.kind == "raise" else None
        factory = found if found is not None and not found[0].is_method else None
        maker = raw.raised.maker if raw.raised is not None else None
        if factory is None and raw.kind == "raise" and maker is not None and not raw.args:
            # `raise self.make_not_authenticated_error()`: a method's one return
            found = self._factory(maker, raw.owner_class, facts)
            if found is not None and found[0].class_param is None:
                factory = found
        if raw.raised is None:  # an assert, a helper's call: `exception` names the class
            name, qualname = self._one_class((raw.exception,), facts)
        else:
            name, qualname = self._raised_class(raw.raised, raw.owner_class, facts)
        made_by = written  # the class whose __init__ and __str__ make the text
        if written not in self.classes and qualname in self.classes:
            # `raise client_error(key, exc)` of a parameter `client_error=ClientConnectorError`
            made_by = qualname
        name, qualname = _ALIASES.get(qualname, (name, qualname))
        messages: list[tuple[Message | None, str | None]]
        if factory is not None and factory[0].message is not None:
            # raise make_error(...): the text the factory returns; explain reads its class
            made, made_in = factory
            text_made = replace(_fill(made, factory[0].message, raw.args), source="factory")
            messages = [(text_made, raw.variant)]
            written = self.resolve(made.exception, made_in)
        elif raw.kind == "helper":
            # a helper's call: its text is the helper's own, filled with what the call
            # passes (what the class makes of it was read at the helper's raise)
            messages = [(raw.message, raw.variant)]
        else:
            raw = self._aligned(raw, made_by)
            made_texts, handed, start = self._class_message(raw, made_by)
            messages = [(m, raw.variant) for m, _ in made_texts[:1]]
            if len(made_texts) > 1:
                messages = [
                    (m, _joined_note(raw.variant, f"message as __str__ returns at line {line}"))
                    for m, line in made_texts
                ]
            if not messages:
                own = self._own_message(handed, made_by, start) if handed.args else raw.message
                messages = [(own, raw.variant)]
        bases = self.ancestors(qualname) if qualname in self.classes else ()
        for message, variant in messages:
            self.written.append(written)
            yield self._site(raw, facts, ordinals, message, variant, name, qualname, bases)

    def _site(
        self,
        raw: RawSite,
        facts: FileFacts,
        ordinals: Counter[tuple[str, str, str, str]],
        message: Message | None,
        variant: str | None,
        name: str,
        qualname: str,
        bases: tuple[str, ...],
    ) -> ErrorSite:
        text = "" if message is None else message.text
        key = (raw.location.file, raw.location.function, raw.exception, text)
        ordinal = ordinals[key]
        ordinals[key] += 1
        inputs = raw.inputs + self._open_inputs(raw, facts)
        if raw.open_chains:
            known = {i.expr for i in inputs}
            inputs += tuple(i for i in self._chain_inputs(raw, facts) if i.expr not in known)
        return ErrorSite(
            id=site_id(
                package=self.package,
                file=raw.location.file,
                function=raw.location.function,
                exception=raw.exception,
                message=text,
                ordinal=ordinal,
            ),
            kind=raw.kind,
            exception=ExceptionRef(name=name, qualname=qualname, bases=bases),
            message=message,
            location=raw.location,
            snippet=raw.snippet,
            guard=raw.guard,
            inputs=inputs,
            cause=raw.cause,
            variant=variant,
            unreachable=raw.unreachable,
        )

    # -- the class raised ---------------------------------------------------------------

    def _raised_class(self, raised: Raised, owner: str | None, facts: FileFacts) -> tuple[str, str]:
        """(name as written, qualified name) of the class a raise raises: the class it
        names, what the factory it calls returns, the class whose classmethod it calls;
        BaseException when none of these is known."""
        if raised.maker is None:
            return self._one_class(raised.classes, facts)
        found = self._factory(raised.maker, owner, facts)
        if found is not None:
            made, made_in = found
            passed = _class_passed(made, raised)
            if passed is None:  # the factory's own class, or its default one
                return self._one_class((made.exception, *made.also), made_in)
            return self._one_class((passed,), facts)
        held = self._member_class(raised.maker, owner, facts)
        if held is not None:  # `self._error_cls(...)`, `raise self._exception`: annotated
            return held
        qualname = self.resolve(raised.maker, facts)
        stdlib = self._stdlib(qualname) and (
            qualname.lower().endswith("error") or qualname in _ALIASES
        )
        if qualname in self.classes or stdlib:
            # a class named in lower case: the tree's, or the standard library's error
            # (`socket.gaierror`, `os.error`), which no function of it returns to raise
            return self._one_class((raised.maker,), facts)
        head, dot, _ = raised.maker.rpartition(".")
        own = head.split(".")[0] in ("self", "cls")
        if dot and not own and (class_like(head) or self.resolve(head, facts) in self.classes):
            return self._one_class((head,), facts)  # `Cls.from_x(...)`: a constructor
        return _ANY

    def _stdlib(self, qualname: str) -> bool:
        """Whether a qualified name is of the standard library (a module of the tree of
        the same name would shadow it)."""
        top, dot, _ = qualname.partition(".")
        return bool(dot) and top in _STDLIB and top not in self.tops

    def _factory(
        self, maker: str, owner: str | None, facts: FileFacts
    ) -> tuple[HelperFact, FileFacts] | None:
        """The factory `maker` calls or reads: a function, or a method or property of the
        raise's own class (or its bases), or of a class an attribute's annotation names
        (`self.engine_client.dead_error`)."""
        head, _, rest = maker.partition(".")
        if head not in ("self", "cls") or not rest:
            found = self.factories.get(self.resolve(maker, facts))
            prefix, dot, method = maker.rpartition(".")
            if found is None and dot:  # `Cls.from_x` of a class imported from a re-export
                found = self.factories.get(f"{self.resolve(prefix, facts)}.{method}")
            return found
        *attrs, method = rest.split(".")
        cls = self._attribute_class(owner, attrs, facts)
        for ancestor in () if cls is None else (cls, *self.ancestors(cls)):
            found = self.factories.get(f"{ancestor}.{method}")
            if found is not None:
                return found
        return None

    def _member_class(
        self, maker: str, owner: str | None, facts: FileFacts
    ) -> tuple[str, str] | None:
        """The class an attribute of the raise's own class holds or is an instance of,
        by its annotation (`self._error_cls: type[E]`, `self.error: E | None`)."""
        head, _, rest = maker.partition(".")
        if head not in ("self", "cls") or not rest:
            return None
        *attrs, last = rest.split(".")
        cls = self._attribute_class(owner, attrs, facts)
        step = None if cls is None else self.member(cls, last)
        if step is None or step[1].type is None:
            return None
        written = held_class(step[1].type)
        return None if written is None else self._one_class((written,), step[0].file)

    def _attribute_class(self, owner: str | None, attrs: list[str], facts: FileFacts) -> str | None:
        """The class `self.a.b` is, for `attrs` ["a", "b"] read in a method of `owner`,
        through each attribute's annotation; None where one is not known."""
        cls: str | None = None if owner is None else f"{facts.module}.{owner}"
        for attr in attrs:
            step = None if cls is None else self.member(cls, attr)
            if step is None or step[1].type is None:
                return None
            cls = self.type_class(step[1].type, step[0].file)
        return cls

    def _one_class(self, written: tuple[str, ...], facts: FileFacts) -> tuple[str, str]:
        """(name, qualified name) of one class for the classes written in `facts`' module:
        the one, or the nearest common base of several (see `_common_base`); what is not
        a class's name (a constant, a variable) left out, BaseException when none is."""
        known: dict[str, str] = {}  # qualified name -> as written
        for name in written:
            qualname = self.resolve(name, facts)
            if qualname in self.classes or class_like(name) or self._stdlib(qualname):
                known.setdefault(qualname, name)
        if not known:
            return _ANY
        base = self._common_base(list(known))
        return known.get(base, base.rpartition(".")[2]), base

    def _common_base(self, qualnames: list[str]) -> str:
        """The nearest class every one of `qualnames` derives from, as far as it is known.

        The rule: each class's line of ancestry, nearest first, is known for builtins
        (Python's own) and for the tree's classes up to where their bases leave the tree.
        The first class of the first one's line that is on every other line is the
        common base: `(TypeError, ValueError)` is Exception, `(Exception,
        KeyboardInterrupt)` BaseException, two subclasses of one HfHubHTTPError that.
        A class outside the tree (`pa.ArrowInvalid`) may have any base above it, so a
        builtin missing from such a class's known line decides nothing (the tree's
        classes are never its bases): then, and when the lines meet nowhere known, the
        class is the first one the code names, what the handler catches first.
        """
        if len(qualnames) == 1:
            return qualnames[0]
        lines = [self._lineage(q) for q in qualnames]
        first, _ = lines[0]
        for candidate in first:
            if all(candidate in line for line, _ in lines[1:]):
                return candidate
            if candidate not in self.classes and any(
                not whole and candidate not in line for line, whole in lines[1:]
            ):
                break
        return qualnames[0]

    def _lineage(self, qualname: str) -> tuple[tuple[str, ...], bool]:
        """A class and its ancestors as far as they are known, nearest first, and whether
        that is all of them (every base is a builtin or a class of the tree)."""
        builtin = _builtin_lineage(qualname)
        if builtin is not None:
            return builtin, True
        if qualname not in self.classes:
            return (qualname,), False
        out = [qualname]
        whole = True
        for ancestor in self.ancestors(qualname):
            above = _builtin_lineage(ancestor)
            if above is not None:
                out.extend(above)
            elif ancestor in self.classes:
                out.append(ancestor)
            else:
                whole = False
        return tuple(dict.fromkeys(out)), whole

    def _aligned(self, raw: RawSite, qualname: str) -> RawSite:
        """A raise through a factory that takes the class (`self.parse_error(
        UnexpectedCharError, char)`, which calls `exception(line, col, *args)`): when it
        passes fewer arguments than the class's __init__ requires, the factory supplies
        the leading ones, so the raise's fill the last parameters; the leading ones are
        holes named by their parameter."""
        if not raw.factory_built:
            return raw
        for cls in (qualname, *self.ancestors(qualname)):
            ref = self.classes.get(cls)
            if ref is None or ref.fact.init_required is None:
                continue  # no __init__ of its own: its base's decides
            params = ref.fact.init_params
            given = sum(1 for a in raw.args if a.keyword is None)
            missing = len(params) - given
            if given >= ref.fact.init_required or missing <= 0:
                return raw
            lead = tuple(
                ArgFact(
                    keyword=None,
                    template=Message(parts=(Hole(expr=p, tree=Name(id=p)),)),
                    source=p,
                    tree=Name(id=p),
                )
                for p in params[:missing]
            )
            return replace(raw, args=lead + raw.args)
        return raw

    def _class_message(
        self, raw: RawSite, qualname: str
    ) -> tuple[tuple[tuple[Message, int], ...], RawSite, int]:
        """The text the codebase's own exception class makes of the raise's arguments,
        when the class (or the nearest base that decides) builds it; else None. Beside
        it, the raise as the last base reached sees it: with the arguments each
        __init__ on the way handed its base (`APITimeoutError(request=r)` hands on
        `message="Request timed out."`), and the place in the class's line of the base
        those arguments are for."""
        if raw.kind not in ("raise", "helper") or qualname not in self.classes:
            return (), raw, 0
        delegated = False
        start = 0
        for place, cls in enumerate((qualname, *self.ancestors(qualname))):
            ref = self.classes.get(cls)
            if ref is None:
                continue
            recipes = ref.fact.recipes or (
                () if ref.fact.recipe is None else ((ref.fact.recipe, ref.fact.line),)
            )
            if recipes:
                params = ref.fact.init_params
                made = tuple(
                    (self._fill_recipe(recipe, params, raw, qualname), line)
                    for recipe, line in recipes
                )
                if any(m.literal_text.strip() for m, _ in made) or raw.message is None:
                    return made, raw, start
                return (), raw, start  # the class's text is all unknown: the raise's own
            if ref.fact.passes is not None and len(ref.fact.passes) > 1:
                # super().__init__(pool, url, message): the base builds the text of these
                params = ref.fact.init_params
                defaults = dict(ref.fact.defaults)
                raw = replace(
                    raw,
                    args=tuple(
                        replace(
                            a,
                            template=self._fill_recipe(a.template, params, raw, qualname, defaults),
                        )
                        for a in ref.fact.passes
                    ),
                )
                delegated = True
                start = place + 1
                continue
            if ref.fact.message_param is not None and not delegated:
                return (), raw, start  # an __init__ that hands its message on
        return (), raw, start

    def _fill_recipe(
        self,
        recipe: Message,
        params: tuple[str, ...],
        raw: RawSite,
        raiser: str,
        defaults: dict[str, Message] | None = None,
    ) -> Message:
        """A class's recipe with its parameters replaced by what the raise passes (else
        by the text `defaults` gives one left out), and its class-level strings by those
        of the class raised (the nearest that has one)."""
        keywords = {a.keyword: a for a in raw.args if a.keyword is not None}
        positional = [a for a in raw.args if a.keyword is None]

        def argument(name: str) -> ArgFact | None:
            if name in keywords:
                return keywords[name]
            if name == MESSAGE_HOLE:
                return positional[0] if positional else None
            if name in params and params.index(name) < len(positional):
                return positional[params.index(name)]
            if defaults and name in defaults:
                text = defaults[name].text
                return ArgFact(
                    keyword=name, template=defaults[name], source=text, tree=Opaque(text=text)
                )
            return None

        def filled(part: Part) -> list[Part]:
            if isinstance(part, Text):
                return [part]
            if part.conversion == ARGS_FORMATTED:
                return _args_formatted(positional) or [Hole(expr=part.expr, tree=part.tree)]
            if part.conversion in (FORMATTED, PERCENT):
                text = self._class_string(raiser, part.expr.removeprefix("self."))
                if text is None:
                    return [Hole(expr=part.expr, tree=part.tree)]
                fields = template_fields(text, part.conversion)
                return [p for field in fields for p in filled(field)]
            if part.expr.startswith("self.") and "(" not in part.expr:
                text = self._class_string(raiser, part.expr.removeprefix("self."))
                if text is not None:
                    return [Text(text=text)]
            arg = argument(part.expr)
            if arg is None:
                return [part]
            if part.conversion is None and part.format_spec is None:
                return list(arg.template.parts)
            if part.conversion == "r" and part.format_spec is None and _is_text(arg):
                if arg.template.static:  # {char!r} of "=": "'='"
                    return [Text(text=repr(arg.template.literal_text))]
                return [Text(text="'"), *arg.template.parts, Text(text="'")]  # as repr quotes
            return [
                Hole(
                    expr=arg.source,
                    conversion=part.conversion,
                    format_spec=part.format_spec,
                    tree=arg.tree,
                )
            ]

        parts = [p for part in recipe.parts for p in filled(part)]
        return Message(parts=merge(parts), source="exception-class")

    def _class_string(self, raiser: str, name: str) -> str | None:
        for cls in (raiser, *self.ancestors(raiser)):
            ref = self.classes.get(cls)
            if ref is not None:
                found = dict(ref.fact.strings).get(name)
                if found is not None:
                    return found
        return None

    def _own_message(self, raw: RawSite, qualname: str, start: int = 0) -> Message | None:
        """The message argument as the codebase's own exception class's __init__ names it
        (the classes of its line from `start` on: those the arguments are for)."""
        for cls in (qualname, *self.ancestors(qualname))[start:]:
            ref = self.classes.get(cls)
            if ref is None or ref.fact.message_param is None:
                continue
            param = ref.fact.message_param
            for arg in raw.args:
                if arg.keyword == param:
                    return arg.template
            positional = [a for a in raw.args if a.keyword is None]
            if param in ref.fact.init_params:
                index = ref.fact.init_params.index(param)
                if index < len(positional):
                    return positional[index].template
            default = dict(ref.fact.defaults).get(param)
            if default is not None:  # `if message is None: message = "..."` in __init__
                return self._fill_recipe(default, ref.fact.init_params, raw, qualname)
            return raw.message
        return raw.message

    def _open_inputs(self, raw: RawSite, facts: FileFacts) -> tuple[Input, ...]:
        if not raw.open_attrs or raw.owner_class is None:
            return ()
        owner = f"{facts.module}.{raw.owner_class}"
        found: list[Input] = []
        for attr, expr in raw.open_attrs:
            for cls in self.ancestors(owner):
                ref = self.classes.get(cls)
                member = (
                    None
                    if ref is None
                    else next((m for m in ref.fact.members if m.name == attr), None)
                )
                if ref is not None and member is not None:
                    found.append(
                        Input(
                            name=attr,
                            expr=expr,
                            kind=member.kind,  # type: ignore[arg-type]
                            owner=ref.fact.qualname,
                            type=member.type,
                            default=member.default,
                            doc=member.doc,
                            location=SourcePos(file=ref.file.path, line=member.line),
                        )
                    )
                    break
        return tuple(found)

    def _chain_inputs(self, raw: RawSite, facts: FileFacts) -> Iterator[Input]:
        """Dotted reads resolved through annotations: `config.parallel.size` as the field
        `size` of the class `config`'s annotation names for `parallel`, and so on."""
        for chain in raw.open_chains:
            if chain.root_type is None:
                if raw.owner_class is None:
                    continue
                cls: str | None = f"{facts.module}.{raw.owner_class}"
                least = 2  # `self.a` alone is an attribute input already
            else:
                cls = self.type_class(chain.root_type, facts)
                least = 1
            found: tuple[ClassRef, MemberFact] | None = None
            resolved = 0
            for attr in chain.attrs:
                step = None if cls is None else self.member(cls, attr)
                if step is None:
                    break
                found = step
                resolved += 1
                ref, member = step
                cls = None if member.type is None else self.type_class(member.type, ref.file)
            if found is None or resolved < least:
                continue
            written = chain.expr.split(".")
            through_alias = len(chain.attrs) - (len(written) - 1)
            keep = resolved - through_alias
            if keep < 1:
                continue
            ref, member = found
            yield Input(
                name=member.name,
                expr=".".join(written[: 1 + keep]),
                kind=member.kind,  # type: ignore[arg-type]
                owner=ref.fact.qualname,
                type=member.type,
                default=member.default,
                doc=member.doc,
                location=SourcePos(file=ref.file.path, line=member.line),
            )

    # -- raise helpers ------------------------------------------------------------------

    def _helper_for(self, call: CallFact, facts: FileFacts) -> HelperFact | None:
        callee = call.callee
        if callee.startswith(("self.", "cls.")) and call.owner_class is not None:
            method = callee.split(".", 1)[1]
            owner = f"{facts.module}.{call.owner_class}"
            for cls in (owner, *self.ancestors(owner)):
                found = self.helpers.get(f"{cls}.{method}")
                if found is not None:
                    return found[0]
            return None
        found = self.helpers.get(self.resolve(callee, facts))
        return None if found is None or found[0].is_method else found[0]

    def _helper_sites(self, facts: FileFacts) -> Iterator[RawSite]:
        if not self.helpers:
            return
        wanted = {
            call.line: helper
            for call in facts.calls
            if call.alone
            and call.callee.rpartition(".")[2] in self.helper_names
            and (helper := self._helper_for(call, facts)) is not None
        }
        if not wanted:
            return
        full = self.revisit(facts.path, facts.module, frozenset(wanted))
        for call in () if full is None else full.call_sites:
            helper = wanted[call.location.line]
            if helper.message is None:
                continue
            yield RawSite(
                kind="helper",
                exception=helper.exception,
                message=_fill(helper, helper.message, call.args),
                args=(),
                location=call.location,
                snippet=call.snippet,
                guard=call.guard,
                inputs=call.inputs,
                open_attrs=call.open_attrs,
                owner_class=call.owner_class,
                open_chains=call.open_chains,
            )


# Lower-case names the standard library keeps for exception classes: what a traceback
# prints is the class they alias (`raise socket.timeout` shows `TimeoutError: ...`).
_ALIASES = {
    "socket.timeout": ("TimeoutError", "builtins.TimeoutError"),
    "socket.error": ("OSError", "builtins.OSError"),
    "select.error": ("OSError", "builtins.OSError"),
    "os.error": ("OSError", "builtins.OSError"),
    "copy.error": ("copy.Error", "copy.Error"),
}


def _builtin_lineage(qualname: str) -> tuple[str, ...] | None:
    """A builtin exception class and its bases (`builtins.OSError`, ...), or None."""
    module, _, name = qualname.rpartition(".")
    cls = getattr(builtins, name, None) if module == "builtins" else None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return None
    return tuple(f"builtins.{k.__name__}" for k in cls.__mro__[:-1])  # `object` left out


def _class_passed(factory: HelperFact, raised: Raised) -> str | None:
    """The class a call hands a factory for its class parameter, as written; "" for
    something that is not a name; None when it hands none."""
    param = factory.class_param
    if param is None:
        return None
    for keyword, value in raised.keywords:
        if keyword == param:
            return value or ""
    index = factory.params.index(param) if param in factory.params else len(raised.args)
    if index < len(raised.args):
        return raised.args[index] or ""
    return None


def _joined_note(first: str | None, second: str) -> str:
    """Two reasons a raise has several templates, as one `variant` note."""
    return second if first is None else f"{first}; {second}"


def _is_text(arg: ArgFact) -> bool:
    """Whether an argument is written as text: a string literal, an f-string, text
    concatenated or %-formatted (what `!r` shows in quotes)."""
    try:
        node = ast.parse(arg.source, mode="eval").body
    except SyntaxError:
        return False
    return is_stringish(node)


def _args_formatted(positional: list[ArgFact]) -> list[Part] | None:
    """`args[0] % args[1:]` of a raise whose first argument is a literal %-format:
    each field filled by the argument of its place (None when the format is not)."""
    if not positional or not positional[0].template.static:
        return None
    fields = percent_parts(positional[0].template.literal_text)
    rest = positional[1:]
    out: list[Part] = []
    for part in fields:
        if isinstance(part, Text):
            out.append(part)
            continue
        if not part.expr.isdigit() or int(part.expr) >= len(rest):
            return None  # `%(name)s`, or more fields than arguments: str() falls back
        arg = rest[int(part.expr)]
        if part.conversion is None:
            out.extend(arg.template.parts)
        else:
            out.append(Hole(expr=arg.source, conversion=part.conversion, tree=arg.tree))
    return out


def _fill(helper: HelperFact, template: Message, args: tuple[ArgFact, ...]) -> Message:
    """The helper's template with each parameter hole replaced by the call's argument."""
    return fill_params(helper.params, template, args)
