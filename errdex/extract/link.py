# Joins the per-file facts into finished ErrorSites: exception names resolved through
# imports, bases of the codebase's own exceptions, `self.attr` through base classes,
# calls to raise helpers, and stable ids.
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace

from errdex.extract.classes import FORMATTED, MESSAGE_HOLE, PERCENT, template_fields
from errdex.extract.facts import (
    ArgFact,
    CallFact,
    FileFacts,
    HelperFact,
    MemberFact,
    RawSite,
)
from errdex.extract.names import ClassRef, Names
from errdex.extract.templates import merge
from errdex.identity import site_id
from errdex.model import (
    ErrorSite,
    ExceptionRef,
    Hole,
    Input,
    Message,
    Part,
    SourcePos,
    Text,
)

# Parses a file again, working out the calls at the given lines in full.
Revisit = Callable[[str, str, frozenset[int]], FileFacts | None]


class Linker(Names):
    def __init__(self, package: str, files: list[FileFacts], revisit: Revisit):
        super().__init__(files)
        self.package = package
        self.revisit = revisit
        self.helper_names = {qualname.rpartition(".")[2] for qualname in self.helpers}
        # for each site `sites` gave, in order, its exception as the raise writes it,
        # resolved through imports (`builtins.ValueError`, `self._error_cls`, `mapped`):
        # what tells explain a class named at the raise from one known at run time only
        self.written: list[str] = []
        # functions that return an exception, for `raise make_error(...)`
        self.factories: dict[str, tuple[HelperFact, FileFacts]] = {}
        for facts in files:
            for factory in facts.factories:
                if not factory.is_method:
                    self.factories[f"{facts.module}.{factory.qualname}"] = (factory, facts)
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
                yield self._finish(raw, facts, ordinals)

    def _finish(
        self, raw: RawSite, facts: FileFacts, ordinals: Counter[tuple[str, str, str, str]]
    ) -> ErrorSite:
        qualname = self.resolve(raw.exception, facts)
        name = raw.exception
        factory = self.factories.get(qualname) if raw.kind == "raise" else None
        message: Message | None
        if factory is not None and factory[0].message is not None:
            # raise make_error(...): the exception and the text the factory returns
            made, made_in = factory
            name, qualname = made.exception, self.resolve(made.exception, made_in)
            message = replace(_fill(made, factory[0].message, raw.args), source="factory")
        else:
            message = self._class_message(raw, qualname)
            if message is None:
                message = self._own_message(raw, qualname) if raw.args else raw.message
        self.written.append(qualname)
        bases = self.ancestors(qualname) if qualname in self.classes else ()
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
            variant=raw.variant,
            unreachable=raw.unreachable,
        )

    def _class_message(self, raw: RawSite, qualname: str) -> Message | None:
        """The text the codebase's own exception class makes of the raise's arguments,
        when the class (or the nearest base that decides) builds it; else None."""
        if raw.kind not in ("raise", "helper") or qualname not in self.classes:
            return None
        delegated = False
        for cls in (qualname, *self.ancestors(qualname)):
            ref = self.classes.get(cls)
            if ref is None:
                continue
            if ref.fact.recipe is not None:
                made = self._fill_recipe(ref.fact.recipe, ref.fact.init_params, raw, qualname)
                if made.literal_text.strip() or raw.message is None:
                    return made
                return None  # the class's text is all unknown: the raise's own says more
            if ref.fact.passes is not None and len(ref.fact.passes) > 1:
                # super().__init__(pool, url, message): the base builds the text of these
                params = ref.fact.init_params
                raw = replace(
                    raw,
                    args=tuple(
                        replace(a, template=self._fill_recipe(a.template, params, raw, qualname))
                        for a in ref.fact.passes
                    ),
                )
                delegated = True
                continue
            if ref.fact.message_param is not None and not delegated:
                return None  # an __init__ that hands its message on: see _own_message
        return None

    def _fill_recipe(
        self, recipe: Message, params: tuple[str, ...], raw: RawSite, raiser: str
    ) -> Message:
        """A class's recipe with its parameters replaced by what the raise passes, and its
        class-level strings by those of the class raised (the nearest that has one)."""
        keywords = {a.keyword: a for a in raw.args if a.keyword is not None}
        positional = [a for a in raw.args if a.keyword is None]

        def argument(name: str) -> ArgFact | None:
            if name in keywords:
                return keywords[name]
            if name == MESSAGE_HOLE:
                return positional[0] if positional else None
            if name in params and params.index(name) < len(positional):
                return positional[params.index(name)]
            return None

        def filled(part: Part) -> list[Part]:
            if isinstance(part, Text):
                return [part]
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

    def _own_message(self, raw: RawSite, qualname: str) -> Message | None:
        """The message argument as the codebase's own exception class's __init__ names it."""
        for cls in (qualname, *self.ancestors(qualname)):
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


def _fill(helper: HelperFact, template: Message, args: tuple[ArgFact, ...]) -> Message:
    """The helper's template with each parameter hole replaced by the call's argument."""
    by_name = {a.keyword: a for a in args if a.keyword}
    positional = [a for a in args if a.keyword is None]
    values: dict[str, ArgFact] = {}
    for index, param in enumerate(helper.params):
        if param in by_name:
            values[param] = by_name[param]
        elif index < len(positional):
            values[param] = positional[index]
    parts: list[Part] = []
    for part in template.parts:
        arg = values.get(part.expr) if isinstance(part, Hole) else None
        if isinstance(part, Text) or arg is None or not isinstance(part, Hole):
            parts.append(part)
        elif part.conversion is None and part.format_spec is None:
            parts.extend(arg.template.parts)
        else:
            parts.append(
                Hole(
                    expr=arg.source,
                    conversion=part.conversion,
                    format_spec=part.format_spec,
                    tree=arg.tree,
                )
            )
    return Message(parts=merge(parts))
