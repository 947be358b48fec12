# The knobs that set each input, linked across the files of one extraction from the
# per-file facts (extract/knobs.py): the argparse flag that fills a config field
# (`add_argument("--max-model-len", **get_kwargs(ModelConfig)["max_model_len"])`, or a
# field of the parser's own class mirrored by another class's field), the JSON key of a
# flag whose field is a config class (`--compilation-config '{"mode": 3}'`), click and
# typer options, environment variables (read in place, through an `envs`-style module,
# into an attribute or a variable, or by a pydantic settings class) and the public
# constructor parameter that a field or attribute is set from; and the flag whose value
# picks a class by name (`Selection`): a registry's key (`--reasoning-parser step3`) or an
# `if x.backend == "a":` branch that builds it.
from __future__ import annotations

import dataclasses
import json
import re
from collections import defaultdict
from collections.abc import Iterable

from errdex.explain.access import private_name, private_path
from errdex.explain.conditions import literal
from errdex.explain.records import replaced
from errdex.extract.facts import FileFacts, KnobFact, MemberFact
from errdex.extract.names import ClassRef, Names
from errdex.model import ErrorSite, Input, Knob, KnobKind, SourcePos

MAX_KNOBS = 4
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_ORDER: dict[KnobKind, int] = {
    "flag": 0,
    "option": 0,
    "config-key": 1,
    "env": 2,
    "constructor": 3,
    "extra": 4,
}

Key = tuple[str, str]  # (module-qualified class, member) or (module, global name)
MAX_KNOWN = 8  # names of a registry shown beside the one that picked the class


@dataclasses.dataclass(frozen=True, slots=True)
class Selection:
    """The flag whose value picks a class: `values` pick it, `others` pick another."""

    flag: Knob
    values: tuple[str, ...]
    others: tuple[str, ...]


class KnobIndex:
    """What sets what, over one extraction; `knobs(input)` answers for one input."""

    def __init__(self, names: Names, reexports: set[str] | None = None):
        self.names = names
        self.reexports = reexports or set()
        self.by_path = {f.path: f for f in names.files}
        self.members: dict[Key, list[Knob]] = defaultdict(list)
        self.globals: dict[Key, list[Knob]] = defaultdict(list)
        self.params: dict[tuple[str, str, str], list[Knob]] = defaultdict(list)
        self.dests: dict[str, list[tuple[str, Knob]]] = defaultdict(list)  # argparse dest
        self.env_docs: dict[str, tuple[str | None, SourcePos]] = {}
        self.settings: dict[str, str] = {}  # settings class -> env prefix
        self.flag_types: dict[Key, str] = {}  # a flag's field -> its type as written
        # class name -> (file, registry, key); the keys each registry holds, in order; the
        # parameters each registry's module looks a name up by
        self.registered: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        self.registries: dict[Key, list[str]] = defaultdict(list)
        self.lookup_keys: dict[str, set[str]] = defaultdict(set)
        # class as written -> the `x == "a"` branches that build it; the values of each
        # (file, compared name)
        self.choices: dict[str, list[tuple[FileFacts, KnobFact]]] = defaultdict(list)
        self.choice_values: dict[Key, list[str]] = defaultdict(list)
        self._by_short: dict[str, list[str]] | None = None
        self._by_snake: dict[str, tuple[str, ...]] | None = None
        self._selections: dict[str, Selection | None] = {}
        for facts in names.files:
            for fact in facts.knobs:
                _RULES[fact.kind](self, fact, facts)
        self.mirrors = self._mirrors()
        self._config_keys()

    # -- building -------------------------------------------------------------------------

    def _flag(self, fact: KnobFact, facts: FileFacts) -> None:
        name = _typed_name(fact.names)
        knob = Knob(
            kind="flag",
            name=name,
            usage=name,
            location=SourcePos(file=facts.path, line=fact.line),
        )
        if fact.dest is not None:
            self.dests[fact.dest].append((facts.path, knob))
        target: Key | None = None
        if fact.spread is not None:
            cls = self.names.resolve(fact.spread[0], facts)
            if cls in self.names.classes:
                target = (cls, fact.spread[1])
        elif fact.owner_class is not None and fact.dest is not None:
            cls = f"{facts.module}.{fact.owner_class}"
            if self.names.member(cls, fact.dest) is not None:
                target = (cls, fact.dest)
        if target is not None:
            self.members[target].append(_with_action(knob, fact))

    def _option(self, fact: KnobFact, facts: FileFacts) -> None:
        if fact.dest is None:
            return
        name = fact.names[0]
        argument = fact.action == "argument"
        knob = Knob(
            kind="option",
            name=name,
            usage=name if argument else f"{name} …",
            location=SourcePos(file=facts.path, line=fact.line),
        )
        self.params[(facts.path, fact.function, fact.dest)].append(knob)

    def _validated(self, fact: KnobFact, facts: FileFacts) -> None:
        if fact.dest is None or fact.owner_class is None:
            return
        shown = fact.owner_class.rsplit(".", 1)[-1]
        where = SourcePos(file=facts.path, line=fact.line)
        self.params[(facts.path, fact.function, fact.dest)].extend(
            Knob(kind="constructor", name=field, usage=f"{shown}({field}=…)", location=where)
            for field in fact.names
        )

    def _env(self, fact: KnobFact, facts: FileFacts) -> None:
        variable = fact.names[0]
        where = SourcePos(file=facts.path, line=fact.line)
        if variable not in self.env_docs or (fact.doc and not self.env_docs[variable][0]):
            self.env_docs[variable] = (fact.doc, where)
        knob = Knob(kind="env", name=variable, usage=f"{variable}=…", location=where)
        dest = fact.dest
        if dest is None:
            return
        if dest.startswith("self.") and fact.owner_class is not None:
            self.members[(f"{facts.module}.{fact.owner_class}", dest[5:])].append(knob)
        elif fact.function == "<module>":
            self.globals[(facts.module, dest)].append(knob)
        elif fact.owner_class is not None and fact.function == fact.owner_class:
            self.members[(f"{facts.module}.{fact.owner_class}", dest)].append(knob)
        else:
            self.params[(facts.path, fact.function, dest)].append(knob)

    def _settings(self, fact: KnobFact, facts: FileFacts) -> None:
        if fact.dest is not None:
            self.settings[f"{facts.module}.{fact.dest}"] = fact.names[0] if fact.names else ""

    def _registered(self, fact: KnobFact, facts: FileFacts) -> None:
        if fact.dest is None or fact.action is None:
            return
        for key in fact.names:
            self.registered[fact.dest].append((facts.path, fact.action, key))
            self.registries[(facts.path, fact.action)].append(key)

    def _lookup_key(self, fact: KnobFact, facts: FileFacts) -> None:
        self.lookup_keys[facts.path].update(fact.names)

    def _choice(self, fact: KnobFact, facts: FileFacts) -> None:
        if fact.dest is None or fact.action is None:
            return
        self.choices[fact.action.rsplit(".", 1)[-1]].append((facts, fact))
        values = self.choice_values[(facts.path, fact.dest)]
        values += [v for v in fact.names if v not in values]

    def _mirrors(self) -> dict[Key, list[Key]]:
        """Fields whose default is another class's field (`x: int = Other.x`): the same
        setting, so a knob of either sets both."""
        out: dict[Key, list[Key]] = defaultdict(list)
        for qualname, ref in self.names.classes.items():
            for member in ref.fact.members:
                for value in (member.default or "", *member.also):
                    target = self._mirrored(value, qualname, ref)
                    if target is not None:
                        out[target].append((qualname, member.name))
                        out[(qualname, member.name)].append(target)
        return out

    def _mirrored(self, value: str, qualname: str, ref: ClassRef) -> Key | None:
        """The field `value` reads: `Other.x` of a codebase class, or `ctx.x` where `ctx`
        is an attribute of this class whose annotation names one."""
        if not _DOTTED.match(value) or value.count(".") != 1:
            return None
        owner, _, attr = value.partition(".")
        target: str | None = self.names.resolve(owner, ref.file)
        if target not in self.names.classes:
            holder = self.names.member(qualname, owner)
            target = None
            if holder is not None and holder[1].type is not None:
                target = self.names.type_class(holder[1].type, holder[0].file)
        if target is None or self.names.member(target, attr) is None:
            return None
        return target, attr

    def _config_keys(self) -> None:
        """The fields of a config class that a flag's field holds, as JSON keys of it."""
        carriers: list[tuple[Key, Knob]] = [
            (key, knob)
            for key, knobs in list(self.members.items())
            for knob in knobs
            if knob.kind == "flag"
        ]
        for (cls, field_name), flag in carriers:
            found = self.names.member(cls, field_name)
            if found is None or found[1].type is None:
                continue
            ref, member = found
            inner = self.names.type_class(member.type or "", ref.file)
            holder = None if inner is None else self.names.classes.get(inner)
            if holder is None or inner is None:
                continue
            for field in _fields(holder):
                knob = Knob(
                    kind="config-key",
                    name=field.name,
                    usage=config_usage(flag.name, field.name, "…"),
                    via=flag.name,
                    location=flag.location,
                )
                self.members[(inner, field.name)].append(knob)

    # -- answering ------------------------------------------------------------------------

    def knobs(self, item: Input, site: ErrorSite) -> tuple[Knob, ...]:
        """The controls that set `item`, most direct first, with its default in each
        usage when it has a literal one."""
        found: list[Knob] = []
        rule = _LOOKUPS.get(item.kind)
        if rule is not None:
            found = rule(self, item, site)
        unique: dict[tuple[str, str], Knob] = {}
        for knob in sorted(found, key=lambda k: _ORDER[k.kind]):
            unique.setdefault((knob.kind, knob.name), knob)
        return tuple(_with_value(k, item.default, item.type) for k in unique.values())[:MAX_KNOBS]

    def _member_knobs(self, item: Input, site: ErrorSite) -> list[Knob]:
        cls = self._class_of(item)
        if cls is None:
            return []
        found: list[Knob] = []
        for key in self._same_setting((cls, item.name)):
            found += self.members.get(key, [])
            found += self._settings_env(*key)
            member = self.names.member(*key)
            constructor = None if member is None else self._constructor(key[0], member[1])
            if constructor is not None:
                found.append(constructor)
        return found

    def _same_setting(self, key: Key) -> list[Key]:
        out = [key]
        for other in self.mirrors.get(key, []):
            if other not in out:
                out.append(other)
        return out

    def _settings_env(self, cls: str, name: str) -> list[Knob]:
        for candidate in (cls, *self.names.ancestors(cls)):
            if candidate in self.settings:
                variable = (self.settings[candidate] + name).upper()
                ref = self.names.classes.get(candidate)
                where = None if ref is None else SourcePos(file=ref.file.path, line=ref.fact.line)
                return [Knob(kind="env", name=variable, usage=f"{variable}=…", location=where)]
        return []

    def _constructor(self, cls: str, item: MemberFact) -> Knob | None:
        """`Owner(param=…)`: a field of a class without an __init__ of its own that leaves
        it out, or an attribute its __init__ sets from a parameter."""
        ref = self.names.classes.get(cls)
        if ref is None or private_name(ref.fact.qualname):
            return None
        star = f"{ref.file.module}.*"
        if private_path(ref.file.path) and cls not in self.reexports and star not in self.reexports:
            return None
        init = ref.fact.init_names
        param: str | None = None
        if item.kind == "field" and (not init or item.name in init):
            param = item.name
        elif item.kind == "attribute" and item.default in init:
            param = item.default
        if param is None or private_name(param):
            return None
        owner = ref.fact.qualname.rsplit(".", 1)[-1]
        return Knob(
            kind="constructor",
            name=param,
            usage=f"{owner}({param}=…)",
            location=SourcePos(file=ref.file.path, line=ref.fact.line),
        )

    def _class_of(self, item: Input) -> str | None:
        if item.owner is None or item.location is None:
            return None
        facts = self.by_path.get(item.location.file)
        if facts is None:
            return None
        qualified = f"{facts.module}.{item.owner}"
        return qualified if qualified in self.names.classes else None

    def _global_knobs(self, item: Input, site: ErrorSite) -> list[Knob]:
        if item.owner is None:
            return []
        return list(self.globals.get((item.owner, item.name), []))

    def _env_knobs(self, item: Input, site: ErrorSite) -> list[Knob]:
        doc = self.env_docs.get(item.name)
        where = None if doc is None else doc[1]
        return [Knob(kind="env", name=item.name, usage=f"{item.name}=…", location=where)]

    def _param_knobs(self, item: Input, site: ErrorSite) -> list[Knob]:
        file = item.location.file if item.location is not None else site.location.file
        return list(self.params.get((file, item.owner or "", item.name), []))

    def _namespace_knobs(self, item: Input, site: ErrorSite) -> list[Knob]:
        if item.owner != "argparse.Namespace":
            return self._member_knobs(item, site)
        flags = self.dests.get(item.name, [])
        here = [k for path, k in flags if path == site.location.file]
        if here:
            return here
        names = {k.name for _, k in flags}
        return [flags[0][1]] if len(names) == 1 else []

    # -- what picks a class by name ----------------------------------------------------------

    def class_written(self, written: str, path: str) -> str | None:
        """The codebase class `written` names in the file at `path`, module-qualified."""
        facts = self.by_path.get(path)
        resolved = None if facts is None else self.names.resolve(written, facts)
        return resolved if resolved in self.names.classes else None

    def classes_snake(self, snake: str) -> tuple[str, ...]:
        """The codebase classes whose name, in snake case, is `snake`."""
        if self._by_snake is None:  # one pass over the classes, not one per question
            by_snake: dict[str, list[str]] = defaultdict(list)
            for qualified in self.names.classes:
                by_snake[_snake(qualified.rsplit(".", 1)[-1])].append(qualified)
            self._by_snake = {snake: tuple(found) for snake, found in by_snake.items()}
        return self._by_snake.get(snake, ())

    def selection(self, cls: str) -> Selection | None:
        """The flag whose value picks the codebase class `cls` (module-qualified), when
        exactly one does: a registry that holds the class under a key, linked to the flag
        whose dest is the key its module looks names up by or whose words name the
        registry (`reasoning_parser` of `_REASONING_PARSERS_TO_REGISTER`); or branches
        `if x.dest == "a":` that build the class. Only dests of two words or more, set by
        one flag: `backend` or `name` alone says too little to link on."""
        if cls not in self._selections:
            self._selections[cls] = self._selection(cls)
        return self._selections[cls]

    def _selection(self, cls: str) -> Selection | None:
        short = cls.rsplit(".", 1)[-1]
        if self._short_names().get(short) != [cls]:
            return None  # another class of that name: which one a string names is unsure
        found: dict[str, Selection] = {}
        for path, registry, _ in self.registered.get(short, []):
            keys = self.registries[(path, registry)]
            mine = tuple(k for p, r, k in self.registered[short] if (p, r) == (path, registry))
            for dest in self.dests:
                if _linked(dest, registry, self.lookup_keys.get(path, set())):
                    flag = self._one_flag(dest)
                    if flag is not None:
                        others = tuple(k for k in keys if k not in mine)
                        found.setdefault(
                            flag.name, Selection(flag=flag, values=mine, others=others)
                        )
        for facts, fact in self.choices.get(short, []):
            written = fact.action or ""
            resolved = self.names.resolve(written, facts)
            if resolved != cls and resolved in self.names.classes:
                continue
            flag = None if "_" not in (fact.dest or "_") else self._one_flag(fact.dest or "")
            if flag is None:
                continue
            values = self.choice_values[(facts.path, fact.dest or "")]
            others = tuple(v for v in values if v not in fact.names)
            found.setdefault(flag.name, Selection(flag=flag, values=fact.names, others=others))
        return next(iter(found.values())) if len(found) == 1 else None

    def _one_flag(self, dest: str) -> Knob | None:
        flags = self.dests.get(dest, [])
        if "_" not in dest or len({k.name for _, k in flags}) != 1:
            return None
        return flags[0][1]

    def _short_names(self) -> dict[str, list[str]]:
        if self._by_short is None:
            self._by_short = defaultdict(list)
            for qualified in self.names.classes:
                self._by_short[qualified.rsplit(".", 1)[-1]].append(qualified)
        return self._by_short

    def dest_flags(self) -> dict[str, list[str]]:
        """The flags that set each argparse dest or click parameter, by its name."""
        out: dict[str, list[str]] = {}
        for dest, flags in self.dests.items():
            out[dest] = list(dict.fromkeys(k.name for _, k in flags))
        return out


# How each kind of fact is indexed, by its kind.
_RULES = {
    "flag": KnobIndex._flag,
    "option": KnobIndex._option,
    "env": KnobIndex._env,
    "settings": KnobIndex._settings,
    "registered": KnobIndex._registered,
    "lookup-key": KnobIndex._lookup_key,
    "choice": KnobIndex._choice,
    "validated": KnobIndex._validated,
}

# How the knobs of each kind of input are found, by the input's kind; constants and
# properties have none.
_LOOKUPS = {
    "field": KnobIndex._member_knobs,
    "attribute": KnobIndex._namespace_knobs,
    "global": KnobIndex._global_knobs,
    "env": KnobIndex._env_knobs,
    "parameter": KnobIndex._param_knobs,
    "local": KnobIndex._param_knobs,
}


def with_knobs(site: ErrorSite, index: KnobIndex) -> ErrorSite:
    """`site` with the knobs of each of its inputs set."""
    if not site.inputs:
        return site
    inputs = []
    changed = False
    for item in site.inputs:
        knobs = index.knobs(item, site)
        if knobs:
            item = replaced(item, knobs=knobs)
            changed = True
        inputs.append(item)
    return replaced(site, inputs=tuple(inputs)) if changed else site


def _typed_name(names: Iterable[str]) -> str:
    """The option a user types: the first long one (`--max-model-len`), else the first."""
    options = list(names)
    longs = [n for n in options if n.startswith("--")]
    return longs[0] if longs else options[0]


def _with_action(knob: Knob, fact: KnobFact) -> Knob:
    if fact.action in ("'store_true'", '"store_true"'):
        return dataclasses.replace(knob, via="store_true")
    return knob


def _linked(dest: str, registry: str, lookup_keys: set[str]) -> bool:
    """Whether a flag's dest names a registry: its module looks names up by that key, or
    every word of the dest is a word of the registry's name (a plural counts)."""
    if dest in lookup_keys:
        return True
    words = {w for w in registry.lower().split("_") if w}
    wanted = dest.lower().split("_")
    return len(wanted) > 1 and all(w in words or f"{w}s" in words for w in wanted)


def _fields(ref: ClassRef) -> list[MemberFact]:
    return [m for m in ref.fact.members if m.kind == "field" and not m.name.startswith("_")]


def json_value(value: str | None) -> str:
    """A Python literal as JSON (`True` -> `true`); "…" when it is not a literal."""
    known, parsed = literal(value)
    if not known:
        return "…"
    try:
        return json.dumps(parsed)
    except (TypeError, ValueError):
        return "…"


def config_usage(via: str, key: str, value: str) -> str:
    """`--compilation-config '{"mode": 3}'`."""
    return f"{via} '{{\"{key}\": {value}}}'"


def usage(knob: Knob, value: str | None, type_: str | None = None) -> str:
    """How to use `knob` to give its input `value` (a Python literal as the code writes
    it; None when unknown): `--max-model-len 4096`, `VLLM_X=1`, `Owner(x=0)`."""
    shown = "…" if value is None else value
    known, parsed = literal(value)
    if knob.kind == "config-key" and knob.via is not None:
        return config_usage(knob.via, knob.name, json_value(value))
    if known and parsed is None and knob.kind in ("flag", "option", "env"):
        return f"unset {knob.name}" if knob.kind == "env" else f"leave out {knob.name}"
    if knob.kind in ("flag", "option"):
        if known and isinstance(parsed, bool):
            if parsed:
                return knob.name
            if knob.via == "store_true":
                return f"leave out {knob.name}"
            return "--no-" + knob.name.removeprefix("--")
        if knob.usage == knob.name and knob.kind == "option":
            return knob.name
        return f"{knob.name} {_cli_value(parsed) if known else shown}"
    if knob.kind == "env":
        if known and isinstance(parsed, bool):
            return f"{knob.name}={1 if parsed else 0}"
        return f"{knob.name}={_cli_value(parsed) if known else shown}"
    if knob.kind == "constructor":
        return re.sub(r"=[^=]*\)$", f"={shown})", knob.usage)
    return knob.usage


def _cli_value(value: object) -> str:
    if isinstance(value, str):
        return value if value and re.fullmatch(r"[\w./:@+-]+", value) else json.dumps(value)
    return json.dumps(value)


def _with_value(knob: Knob, default: str | None, type_: str | None) -> Knob:
    """The knob with its usage showing the input's default, when that is a literal."""
    known, _ = literal(default)
    if not known:
        return knob
    return replaced(knob, usage=usage(knob, default, type_))


def _snake(name: str) -> str:
    """`MistralTokenizer` -> `mistral_tokenizer`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
