# What the explain stage looks up across a whole extraction: classes and their docs,
# the sites of each function, and which early exits are only other errors' checks.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from errdex.expr import Expr
from errdex.extract import Extraction
from errdex.extract.facts import ClassFact, FileFacts
from errdex.model import ErrorSite, Input

Reader = Callable[[Expr, bool, dict[str, Input]], Any]
# Catalog.said: a guard's test, its tree, whether it holds, the site's inputs, the reader
Said = Callable[[str, Expr, bool, tuple[Input, ...], Reader], Any]


@dataclass(frozen=True, slots=True)
class ClassInfo:
    fact: ClassFact
    file: FileFacts


@dataclass(frozen=True, slots=True)
class Owner:
    """The class whose method holds a site, as a site's prose reads it: its names and the
    first sentence of its docstring; no line, no member, nothing else of its file (what
    else the prose asks of the file is a recorded lookup, see explain/reuse.py)."""

    qualname: str  # within its module: "Outer.Inner"
    module: str
    doc: str | None
    init_names: tuple[str, ...]  # every parameter of its __init__ by name
    abstract: tuple[str, ...] = ()  # its methods under `@abstractmethod`
    # an exception class (named as one, or a base is): the package builds it, not a user
    error: bool = False


# How an exception class's name ends, or one of its bases'.
_ERROR_ENDINGS = ("Error", "Exception", "Warning", "Exit", "Interrupt")


def error_named(written: str) -> bool:
    """Whether a class name as written (`errors.RetryError`, `Base[T]`) reads as an
    exception class's."""
    return written.split("[", 1)[0].rsplit(".", 1)[-1].endswith(_ERROR_ENDINGS)


class Catalog:
    """Indexes over an extraction, built once per explain run."""

    def __init__(self, extraction: Extraction):
        self.files = {f.path: f for f in extraction.facts}
        # each module's constants by (module, name): `constants.REPO_TYPES` read elsewhere
        self.constants = {
            (f.module, c.name): (f.path, c) for f in extraction.facts for c in f.constants
        }
        self.classes: dict[tuple[str, str], ClassInfo] = {}
        # the codebase's classes by their own name, for bases as written (`base.Retry`)
        self.named: dict[str, list[ClassInfo]] = defaultdict(list)
        for facts in extraction.facts:
            for cls in facts.classes:
                info = ClassInfo(cls, facts)
                self.classes[(facts.path, cls.qualname)] = info
                self.named[cls.qualname.rsplit(".", 1)[-1]].append(info)
        self.by_function: dict[tuple[str, str], list[ErrorSite]] = defaultdict(list)
        for site in extraction.sites:
            self.by_function[(site.location.file, site.location.function)].append(site)
        # (file, function, line) of every `if` whose body is a raise: an early exit there
        # is another error's check, not a condition worth telling the reader. An `if`
        # that raises only under a further condition can leave by a `return` too, so
        # code after it runs only when its test is false: that stays a condition.
        self.raising_ifs: set[tuple[str, str, int]] = set()
        for site in extraction.sites:
            tests = [g for g in site.guard if g.kind not in ("with", "try", "finally")]
            last = tests[-1] if tests else None
            if last is not None and last.kind in ("if", "elif") and not last.negated:
                self.raising_ifs.add((site.location.file, site.location.function, last.line))
        self.reexports: set[str] = set()  # filled by explain (access.reexported)
        self._said: dict[tuple[str, bool, tuple[Input, ...]], Any] = {}
        self._docs: dict[tuple[str, str], str | None] = {}

    def said(
        self, test: str, tree: Expr, holds: bool, inputs: tuple[Input, ...], read: Reader
    ) -> Any:
        """`read(tree, holds, inputs)`, remembered by the test's source text: sites of one
        function share guards."""
        # an environment variable read in place is named in the test, quoted either way
        used = tuple(i for i in inputs if (i.name if i.kind == "env" else i.expr) in test)
        # and what the locals it reads are made of (`found = OFFSET.match(text)`)
        made_of = {s for i in used if i.kind == "local" for s in i.sources or ()}
        if made_of:
            used += tuple(i for i in inputs if i.expr in made_of and i not in used)
        key = (test, holds, used)
        if key not in self._said:
            self._said[key] = read(tree, holds, {i.expr: i for i in used})
        return self._said[key]

    def checks(self, site: ErrorSite) -> tuple[bool, ...]:
        """For each guard of `site`: whether it is an `if` of its function that guards a
        raise (an early exit there is that raise's check)."""
        file, function = site.location.file, site.location.function
        return tuple((file, function, g.line) in self.raising_ifs for g in site.guard)

    def owner_class(self, site: ErrorSite) -> ClassInfo | None:
        """The class whose method holds `site` (the innermost enclosing class)."""
        parts = site.location.function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            info = self.classes.get((site.location.file, ".".join(parts[:end])))
            if info is not None:
                return info
        return None

    def owner(self, site: ErrorSite) -> Owner | None:
        """The class whose method holds `site`, as its prose reads it."""
        info = self.owner_class(site)
        if info is None:
            return None
        fact, doc = info.fact, info.fact.doc
        return Owner(
            qualname=fact.qualname,
            module=info.file.module,
            doc=None if doc is None else first_sentence(doc) or None,
            init_names=fact.init_names,
            abstract=fact.abstract,
            error=any(error_named(n) for n in (fact.qualname, *fact.bases)),
        )


def first_sentence(text: str) -> str:
    match = re.search(r"(?<=[a-z0-9)`])\.(\s|$)", text)
    return (text[: match.start() + 1] if match else text).strip()
