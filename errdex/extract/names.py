# Names across the files of one extraction: what a name in a module refers to (through
# imports and re-exports), the codebase's classes, their bases and members, and the class
# an annotation names. Shared by linking (extract) and by explain.
from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass

from errdex.extract.facts import ClassFact, FileFacts, HelperFact, MemberFact

_BUILTINS = frozenset(dir(builtins))
_MAX_HOPS = 8


@dataclass(frozen=True, slots=True)
class ClassRef:
    qualname: str  # module-qualified
    fact: ClassFact
    file: FileFacts


class Names:
    """Indexes over the files' facts; each lookup is cached or cheap."""

    def __init__(self, files: Sequence[FileFacts]):
        self.files = list(files)
        self.modules = {f.module: f for f in files}
        self.imports = {f.module: dict(f.imports) for f in files}
        self.classes: dict[str, ClassRef] = {}
        self.helpers: dict[str, tuple[HelperFact, FileFacts]] = {}
        self.toplevel: dict[str, set[str]] = {}
        for facts in files:
            names = self.toplevel.setdefault(facts.module, set())
            for cls in facts.classes:
                self.classes[f"{facts.module}.{cls.qualname}"] = ClassRef(
                    f"{facts.module}.{cls.qualname}", cls, facts
                )
                names.add(cls.qualname.split(".")[0])
            for helper in facts.helpers:
                self.helpers[f"{facts.module}.{helper.qualname}"] = (helper, facts)
                names.add(helper.qualname.split(".")[0])
        self._ancestors: dict[str, tuple[str, ...]] = {}

    def resolve(self, name: str, facts: FileFacts) -> str:
        """The qualified name `name` refers to inside `facts`' module."""
        head, _, rest = name.partition(".")
        imports = self.imports.get(facts.module, {})
        if head in imports:
            qualified = imports[head] + ("." + rest if rest else "")
        elif head in self.toplevel.get(facts.module, ()):
            qualified = f"{facts.module}.{name}"
        elif head in _BUILTINS:
            return f"builtins.{name}"
        else:
            return name
        return self._follow_reexports(qualified)

    def _follow_reexports(self, qualified: str) -> str:
        for _ in range(_MAX_HOPS):
            if qualified in self.classes or qualified in self.helpers:
                return qualified
            module, _, name = qualified.rpartition(".")
            facts = self.modules.get(module)
            if facts is None:
                return qualified
            target = self.imports[module].get(name.split(".")[0])
            if target is None:
                return qualified
            qualified = target
        return qualified

    def ancestors(self, qualname: str) -> tuple[str, ...]:
        """Qualified names of the bases of a codebase class, nearest first, then theirs."""
        if qualname in self._ancestors:
            return self._ancestors[qualname]
        self._ancestors[qualname] = ()  # guards against cycles
        ref = self.classes.get(qualname)
        out: list[str] = []
        if ref is not None:
            direct = [self.resolve(base, ref.file) for base in ref.fact.bases]
            out.extend(direct)
            for base in direct:
                out.extend(a for a in self.ancestors(base) if a not in out)
        self._ancestors[qualname] = tuple(dict.fromkeys(out))
        return self._ancestors[qualname]

    def type_class(self, annotation: str, facts: FileFacts) -> str | None:
        """The codebase class an annotation names (`X`, `X | None`, `Optional[X]`,
        `"X"`), module-qualified, or None."""
        name = annotated_class(annotation)
        if name is None:
            return None
        qualified = self.resolve(name, facts)
        return qualified if qualified in self.classes else None

    def member(self, qualname: str, attr: str) -> tuple[ClassRef, MemberFact] | None:
        """The member `attr` of a codebase class or of its nearest base that has it."""
        for cls in (qualname, *self.ancestors(qualname)):
            ref = self.classes.get(cls)
            if ref is None:
                continue
            for member in ref.fact.members:
                if member.name == attr:
                    return ref, member
        return None


_CLASS_NAME = re.compile(r"_*[A-Z]\w*")


def class_like(written: str) -> bool:
    """Whether a (dotted) name reads as a class: its last part in CapWords after any
    leading underscores (`ValueError`, `errors._Private`), not a constant in capitals
    (`RETRYABLE`)."""
    last = written.rpartition(".")[2]
    return bool(_CLASS_NAME.fullmatch(last)) and not (last.isupper() and len(last) > 1)


_TYPE_OF = re.compile(r"^(?:\w+\.)?[Tt]ype\[(.+)\](?:\s*\|\s*None)?$")


def held_class(annotation: str) -> str | None:
    """The class of what a name annotated so holds, or is: `E`, `E | None`, `type[E]`."""
    name = annotated_class(annotation)
    if name is None:
        inner = _TYPE_OF.match(annotation.strip().strip("'\""))
        name = None if inner is None else annotated_class(inner.group(1))
    return name if name is not None and class_like(name) else None


_NONE_UNION = re.compile(r"^\s*(?:None\s*\|\s*)?['\"]?([A-Za-z_][\w.]*)['\"]?(?:\s*\|\s*None)?\s*$")
_OPTIONAL = re.compile(r"^(?:\w+\.)?Optional\[\s*['\"]?([A-Za-z_][\w.]*)['\"]?\s*\]$")


def annotated_class(annotation: str) -> str | None:
    """The one class an annotation names, None or a string around it allowed."""
    text = annotation.strip().strip("'\"")
    for pattern in (_OPTIONAL, _NONE_UNION):
        found = pattern.match(text)
        if found:
            return found.group(1)
    return None
