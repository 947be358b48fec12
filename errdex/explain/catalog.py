# What the explain stage looks up across a whole extraction: classes and their docs,
# the sites of each function, and which early exits are only other errors' checks.
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex.extract import Extraction
from errdex.extract.facts import ClassFact, FileFacts
from errdex.model import ErrorSite, Input

Reader = Callable[[str, bool, dict[str, Input]], Any]

_DOC_OPEN = re.compile(r"""^\s*[rRuU]?("{3}|'{3}|"|')""")
_HEADER_LINES = 12


@dataclass(frozen=True, slots=True)
class ClassInfo:
    fact: ClassFact
    file: FileFacts


class Catalog:
    """Indexes over an extraction, built once per explain run."""

    def __init__(self, extraction: Extraction, root: Path):
        self.root = root
        self.files = {f.path: f for f in extraction.facts}
        self.classes: dict[tuple[str, str], ClassInfo] = {}
        for facts in extraction.facts:
            for cls in facts.classes:
                self.classes[(facts.path, cls.qualname)] = ClassInfo(cls, facts)
        self.by_function: dict[tuple[str, str], list[ErrorSite]] = defaultdict(list)
        for site in extraction.sites:
            self.by_function[(site.location.file, site.location.function)].append(site)
        # (file, function, line) of every `if` that guards a raise: an early exit there
        # is another error's check, not a condition worth telling the reader.
        self.raising_ifs: set[tuple[str, str, int]] = set()
        for site in extraction.sites:
            for guard in site.guard:
                if guard.kind in ("if", "elif") and not guard.negated:
                    self.raising_ifs.add((site.location.file, site.location.function, guard.line))
        self._said: dict[tuple[str, bool, tuple[Input, ...]], Any] = {}
        self._docs: dict[tuple[str, str], str | None] = {}
        self._texts: dict[str, str] = {}

    def said(self, test: str, holds: bool, inputs: tuple[Input, ...], read: Reader) -> Any:
        """`read(test, holds, inputs)`, remembered: sites of one function share guards."""
        used = tuple(i for i in inputs if i.expr in test)
        key = (test, holds, used)
        if key not in self._said:
            self._said[key] = read(test, holds, {i.expr: i for i in used})
        return self._said[key]

    def owner_class(self, site: ErrorSite) -> ClassInfo | None:
        """The class whose method holds `site` (the innermost enclosing class)."""
        parts = site.location.function.split(".")
        for end in range(len(parts) - 1, 0, -1):
            info = self.classes.get((site.location.file, ".".join(parts[:end])))
            if info is not None:
                return info
        return None

    def class_doc(self, info: ClassInfo) -> str | None:
        """The first sentence of a class docstring, read from the source text."""
        key = (info.file.path, info.fact.qualname)
        if key not in self._docs:
            self._docs[key] = self._read_doc(info.file.path, info.fact.line)
        return self._docs[key]

    def _read_doc(self, path: str, line: int) -> str | None:
        # ClassFact does not record the docstring; the few lines after the header are
        # enough to find its first sentence without parsing the file again.
        text = self._texts.get(path)
        if text is None:
            try:
                text = (self.root / path).read_text("utf-8", errors="replace")
            except OSError:
                text = ""
            self._texts[path] = text
        lines = text.split("\n", line + _HEADER_LINES + 12)  # only as far as needed
        i = line - 1
        while i < len(lines) and i < line - 1 + _HEADER_LINES:
            if lines[i].split("#")[0].rstrip().endswith(":"):
                break
            i += 1
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            return None
        opened = _DOC_OPEN.match(lines[i])
        if opened is None:
            return None
        quote = opened.group(1)
        text = lines[i][opened.end() :]
        collected: list[str] = []
        for j in range(i, min(len(lines), i + 8)):
            chunk = text if j == i else lines[j]
            if quote in chunk:
                collected.append(chunk.split(quote)[0])
                break
            collected.append(chunk)
            if not chunk.strip() and collected[:-1]:
                break
        doc = " ".join(" ".join(collected).split())
        return first_sentence(doc) or None


def first_sentence(text: str) -> str:
    match = re.search(r"(?<=[a-z0-9)`])\.(\s|$)", text)
    return (text[: match.start() + 1] if match else text).strip()
