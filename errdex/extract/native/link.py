# Joins the native files' facts into finished ErrorSites: the Python class each way of
# failing becomes (a module's own exception objects and PyO3 classes found across files;
# C++ standard exceptions as torch's operators or pybind11 translate them), an error
# enum's variant templates put at the places that build a variant, and stable ids.
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from errdex.extract.native.classes import (
    PYBIND11_OWN,
    PYBIND11_STD,
    builtin,
    cpython_class,
    pyo3_class,
    qualified,
)
from errdex.extract.native.facts import DeclaredClass, NativeFacts, NativeSite, VariantTemplate
from errdex.identity import site_id
from errdex.model import ErrorSite, ExceptionRef, Location, Message

# pydantic-core collects the errors its enum's variants describe into one exception, the
# class of the extension named so
_COLLECTED_INTO = "ValidationError"


@dataclass(frozen=True, slots=True)
class _Class:
    name: str
    qualname: str
    bases: tuple[str, ...] = ()


class NativeLinker:
    def __init__(self, package: str, files: list[NativeFacts]) -> None:
        self.package = package
        self.files = files
        self.classes: dict[str, DeclaredClass] = {}
        self.templates: dict[tuple[str, str], list[VariantTemplate]] = {}
        for facts in files:
            for declared in facts.classes:
                self.classes.setdefault(declared.name, declared)
            for template in facts.templates:
                self.templates.setdefault((template.enum, template.variant), []).append(template)
        self.enums = {enum for enum, _ in self.templates}
        # operators of a torch library: a std:: exception reaches Python as RuntimeError
        self.torch = any(f.torch_library for f in files)
        self.built: set[tuple[str, str]] = set()

    def sites(self) -> Iterator[ErrorSite]:
        """Every native site, with ids, in file and line order; then a site for each
        variant template no code of the tree builds (raised by name from Python)."""
        ordinals: Counter[tuple[str, str, str, str]] = Counter()
        for facts in self.files:
            for raw in facts.sites:
                if raw.form.startswith("variant "):
                    yield from self._variant_sites(raw, ordinals)
                    continue
                cls = self._class(raw)
                if cls is None:
                    continue
                yield self._finish(raw, raw.message, cls, raw.variant, ordinals)
        yield from self._unbuilt(ordinals)

    def _finish(
        self,
        raw: NativeSite,
        message: Message | None,
        cls: _Class,
        variant: str | None,
        ordinals: Counter[tuple[str, str, str, str]],
        location: Location | None = None,
    ) -> ErrorSite:
        location = location or raw.location
        text = "" if message is None else message.text
        key = (location.file, location.function, raw.raised, text)
        ordinal = ordinals[key]
        ordinals[key] += 1
        return ErrorSite(
            id=site_id(
                package=self.package,
                file=location.file,
                function=location.function,
                exception=raw.raised,
                message=text,
                ordinal=ordinal,
            ),
            kind="raise",
            exception=ExceptionRef(name=cls.name, qualname=cls.qualname, bases=cls.bases),
            message=message,
            location=location,
            snippet=raw.snippet,
            guard=raw.guard,
            inputs=raw.inputs,
            variant=variant,
        )

    def _class(self, raw: NativeSite) -> _Class | None:
        """The Python class a site raises; None for a C++ class nothing translates."""
        if raw.python_class is not None:
            return _known(raw.python_class)
        written = raw.raised
        form = raw.form
        if form.startswith("PyErr_"):
            found = cpython_class(written)
            if found is not None:
                return _known(found)
            return self._declared(written) or _Class(written, written)
        if form.startswith("throw "):
            scope, _, last = written.rpartition("::")
            if scope in ("std", ""):
                python = PYBIND11_STD.get(last)
                if python is not None:
                    return _known("RuntimeError" if self.torch and scope == "std" else python)
            if scope in ("py", "pybind11", "nb", "nanobind"):
                python = PYBIND11_OWN.get(last)
                if python is not None:
                    return _known(python)
            declared = self._declared(written)
            return declared or _Class(written, written)
        found = pyo3_class(written)  # Rust
        if found is not None:
            return _known(found)
        return self._declared(written) or _Class(written.rsplit("::", 1)[-1], written)

    def _declared(self, written: str) -> _Class | None:
        name = written.replace("->", ".").replace("::", ".").rsplit(".", 1)[-1].strip("*& ()")
        declared = self.classes.get(name)
        if declared is None:
            return None
        bases = () if declared.base is None else (declared.base,)
        return _Class(declared.qualname.rsplit(".", 1)[-1], declared.qualname, bases)

    def _collected(self) -> _Class:
        declared = self._declared(_COLLECTED_INTO)
        return declared or _Class(_COLLECTED_INTO, _COLLECTED_INTO)

    def _variant_sites(
        self, raw: NativeSite, ordinals: Counter[tuple[str, str, str, str]]
    ) -> Iterator[ErrorSite]:
        written = raw.raised  # "ErrorType::IntParsing", "ErrorTypeDefaults::IntParsing"
        path, _, variant = written.rpartition("::")
        enum = next((e for e in self.enums if path.rsplit("::", 1)[-1].startswith(e)), None)
        if enum is None:
            return
        templates = self.templates.get((enum, variant))
        if not templates:
            return
        self.built.add((enum, variant))
        yield from self._templated(raw, enum, variant, templates, ordinals)

    def _templated(
        self,
        raw: NativeSite,
        enum: str,
        variant: str,
        templates: list[VariantTemplate],
        ordinals: Counter[tuple[str, str, str, str]],
        location: Location | None = None,
    ) -> Iterator[ErrorSite]:
        seen: set[str] = set()
        first = templates[0].kind
        for template in templates:
            text = template.message.text
            if text in seen or not template.message.parts:
                continue
            seen.add(text)
            tag = None if template.kind == first else f"{template.kind} input"
            yield self._finish(
                raw, template.message, self._collected(), tag, ordinals, location=location
            )

    def _unbuilt(self, ordinals: Counter[tuple[str, str, str, str]]) -> Iterator[ErrorSite]:
        """A variant no code here builds gets its site where its template is written."""
        for (enum, variant), templates in sorted(self.templates.items()):
            if (enum, variant) in self.built:
                continue
            template = templates[0]
            facts = next((f for f in self.files if template in f.templates), None)
            if facts is None:
                continue
            location = Location(
                file=facts.path,
                line=template.line,
                end_line=template.line,
                function=f"{enum}::message_template_{template.kind}",
                language=facts.language,
            )
            raw = NativeSite(
                form=f"variant {enum}::{variant}",
                raised=f"{enum}::{variant}",
                python_class=None,
                message=None,
                location=location,
                snippet=template.snippet,
                guard=(),
                inputs=(),
            )
            yield from self._templated(raw, enum, variant, templates, ordinals, location)


def _known(python: str) -> _Class:
    return _Class(python.rsplit(".", 1)[-1], qualified(python) if builtin(python) else python)


MAX_DEPTH = 4  # native callers followed up from a site to a function Python can call
MAX_PATHS = 3


def reach(
    files: list[NativeFacts], sites: tuple[ErrorSite, ...]
) -> dict[str, tuple[tuple[str, ...], ...]]:
    """For each native site a bound function reaches: its call paths, nearest first, each
    ending at the name Python calls (`torch.ops._C.rms_norm`, a `#[pyfunction]`, a
    PyMethodDef entry): the native callers met on the way (best effort: by name)."""
    bound: dict[str, list[str]] = {}
    callers: dict[str, set[str]] = {}
    for facts in files:
        for binding in facts.bindings:
            bound.setdefault(_last(binding.native), []).append(binding.python)
        for fn in facts.functions:
            for callee in fn.calls:
                callers.setdefault(callee, set()).add(fn.name)
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for site in sites:
        function = site.location.function
        if function.startswith("<"):
            continue
        paths: list[tuple[str, ...]] = []
        todo: list[tuple[str, tuple[str, ...]]] = [(function, ())]
        while todo and len(paths) < MAX_PATHS:
            current, path = todo.pop(0)
            for python in bound.get(_last(current), ()):
                paths.append((*path, python))
            if len(path) < MAX_DEPTH:
                for caller in sorted(callers.get(_last(current), ())):
                    if caller != current and caller not in path:
                        todo.append((caller, (*path, caller)))
        if paths:
            out[site.id] = tuple(dict.fromkeys(paths))[:MAX_PATHS]
    return out


def _last(name: str) -> str:
    return name.rsplit("::", 1)[-1]
