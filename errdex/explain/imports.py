# Import checks: whether a site's check IS an import, and of what. It is one when the
# site sits in an `except ImportError` (or `ModuleNotFoundError`) handler of a `try`
# that imports, or when its condition looks a module up: `importlib.util.find_spec("x")`,
# `importlib.metadata.version("x")` or `distribution("x")`, a `has_x()` or
# `is_x_available()` helper where `x` is a distribution the package requires. Only such
# a site is explained as a missing dependency; an `ImportError` raised by a plain check
# (a malformed dotted path, a platform test) is explained from its condition like any
# other error, and `has_bias(layer)` is a condition, not a dependency check.
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from errdex.explain.analysis import Analysis
from errdex.explain.conditions import literal
from errdex.expr import Attribute, BoolOp, Call, Compare, Constant, Expr, Name, Not
from errdex.extract.files import is_package_init, module_name
from errdex.model import Guard

Requirement = tuple[str, str, str]  # (distribution, extra, version specifier)

_CAUGHT = frozenset({"ImportError", "ModuleNotFoundError"})
_NOT_FOUND = frozenset({"PackageNotFoundError"})  # importlib.metadata's
_IMPORTERS = frozenset({"import_module", "__import__"})
_FINDERS = frozenset({"find_spec", "find_loader"})
_METADATA = frozenset({"version", "distribution"})
# the guards whose test must hold (or fail, when negated) for the site to be reached
_CONDITIONS = frozenset({"if", "elif", "else", "while", "assert", "early-exit"})
# `has_triton`, `is_flash_attn_available`, `flash_attn_available`: what each looks for
_HELPER = re.compile(r"^_*(?:has_(\w+)|is_(\w+?)_(?:available|installed)|(\w+?)_available)$")
# a version the message asks for: ">= 2.1", "version 2.1 or later", "at least 2.1"
_STATED = re.compile(
    r"(?P<op>[<>]=?|==|~=)\s*v?(?P<v>\d+(?:\.\d+)*)"
    r"|(?:version\s+)?v?(?P<later>\d+(?:\.\d+)*)\s+or\s+(?:later|higher|newer|above|greater)"
    r"|at\s+least\s+(?:version\s+)?v?(?P<least>\d+(?:\.\d+)*)",
    re.I,
)
# where a message names a distribution: `pip install x`, "the `x` package", "install x"
_NAMING = re.compile(
    r"pip3? install\s+['\"`]?([A-Za-z0-9][\w.-]*)"
    r"|[`'\"]([A-Za-z0-9][\w.-]*)[`'\"]\s+(?:package|distribution|library)"
    r"|(?:package|distribution|library|install)\s+[`'\"]?([A-Za-z0-9][\w.-]*)",
    re.I,
)
# Import names that differ from the distribution that provides them (well known ones).
DISTRIBUTIONS = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "bs4": "beautifulsoup4",
    "attr": "attrs",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "PyJWT",
    "zmq": "pyzmq",
    "serial": "pyserial",
    "OpenSSL": "pyOpenSSL",
    "Crypto": "pycryptodome",
    "git": "GitPython",
    "fitz": "PyMuPDF",
    "google.protobuf": "protobuf",
    "magic": "python-magic",
    "docx": "python-docx",
}


@dataclass(frozen=True, slots=True)
class Needed:
    """What an import check needs: the modules (or distributions) it imports or looks up
    that others provide, as the code names them; the modules of the package itself it
    imports (`from .x import y`, as `pkg.x`); the expressions that name a module at run
    time (`import_module(path)`); none of them when it does not say (a `try` block of
    more than one statement). Besides: whether a handler of a failed import surrounds
    the site, the lookups its conditions call (`find_spec`, `has_triton`), and whether
    one reads an installed version."""

    modules: tuple[str, ...] = ()
    own: tuple[str, ...] = ()
    given: tuple[str, ...] = ()
    imported: bool = False
    lookups: tuple[str, ...] = ()
    versioned: bool = False

    def failure(self, *, many: bool = False) -> str:
        """How the check failed, as "which …" says it of the modules (of one, or `many`)."""
        if self.imported:
            return "could not be imported"
        verb = "are" if many else "is"
        if self.lookups:
            return f"{verb} not installed"
        return f"{verb} not installed at the version it checks for"


# the module a check names: (module as written, expression naming it at run time)
_Named = tuple[str | None, str | None]


def needs(
    analysis: Analysis,
    requires: Iterable[Requirement],
    qualify: Callable[[str], str] | None = None,
    imports_of: Callable[[str], str | None] | None = None,
) -> Needed | None:
    """The import check `analysis`'s site sits behind, None when it sits behind none.
    `requires` is read only for a `has_x()`-like call; `qualify` resolves a bare
    `version(...)` to `importlib.metadata.version`; `imports_of` gives the module a bare
    name of the file imports (for `x is None` after `except ImportError: x = None`)."""
    named: list[_Named] = []
    lookups: list[str] = []
    imported = versioned = False
    for guard in analysis.site.guard:
        if guard.kind == "except":
            found = _failed_import(guard, analysis)
            if found is not None:
                imported = True
                named.append(found)
            elif _caught(guard) & _NOT_FOUND:  # `version("x")` found no distribution
                lookups.append("version")
                tree = guard.raised_by_tree
                calls = [c for c in _walk_calls(tree) if c.name in _METADATA] if tree else []
                named += [_module_of(calls[0], analysis)] if calls else []
        elif guard.kind in _CONDITIONS and guard.tree is not None:
            early = guard.kind == "early-exit"  # an earlier check not taken
            if imports_of is not None and not early:
                for fallback in _fallen_back(guard.tree, not guard.negated, analysis, imports_of):
                    imported = True  # `anyio = None` in the handler of `import anyio`
                    named.append((fallback, None))
            for call, missing in _calls(guard.tree, not guard.negated):
                name = call.name
                metadata = name in _METADATA and _is_metadata(call, qualify)
                if name in _FINDERS or name in _IMPORTERS or (metadata and name != "version"):
                    if missing is False or (missing is None and early):
                        continue  # it found the module: the site is reached with it
                    lookups.append(name)
                    named.append(_module_of(call, analysis))
                elif metadata:
                    if not early:
                        versioned = True
                        named.append(_module_of(call, analysis))
                elif missing and not call.args and not call.keywords:
                    looked = _helper_looks_for(name, requires)
                    if looked is not None:
                        lookups.append(name)
                        named.append((looked, None))
    if not (imported or lookups or versioned):
        return None
    file = analysis.site.location.file
    here, init = module_name(file), is_package_init(file)
    modules: list[str] = []
    own: list[str] = []
    for module, _ in named:
        if module is None:
            continue
        if module.startswith("."):
            own.append(_absolute(module, here, init))
        elif here and module.split(".")[0] == here.split(".")[0]:
            own.append(module)
        else:
            modules.append(module)
    return Needed(
        modules=tuple(dict.fromkeys(modules)),
        own=tuple(dict.fromkeys(own)),
        given=tuple(dict.fromkeys(g for _, g in named if g is not None)),
        imported=imported,
        lookups=tuple(dict.fromkeys(lookups)),
        versioned=versioned,
    )


def _failed_import(guard: Guard, analysis: Analysis) -> _Named | None:
    """For a handler of `ImportError` or `ModuleNotFoundError` around an import: the
    module its `try` block imports. The block of one statement must import (a call's
    `ImportError`, as `import_string(path)` raises for a malformed path, is that call's
    check); of a longer one, what it runs is not recorded, and a handler of only import
    errors is taken to catch an import's, naming no module. None for any other."""
    types = _caught(guard)
    if not types & _CAUGHT:
        return None
    if guard.imports:
        return guard.imports[0], None
    if guard.raised_by is None:
        return (None, None) if types <= _CAUGHT else None
    calls = [] if guard.raised_by_tree is None else list(_walk_calls(guard.raised_by_tree))
    importing = [c for c in calls if c.name in _IMPORTERS]
    return _module_of(importing[0], analysis) if importing else None


def _fallen_back(
    tree: Expr, holds: bool, analysis: Analysis, imported: Callable[[str], str | None]
) -> Iterator[str]:
    """The modules a test finds missing by their import's fallback: `anyio is None` (or
    `not anyio`) that holds, where the file imports `anyio` (a module-level `try: import
    anyio` / `except ImportError: anyio = None`): an imported module is None only then."""
    if isinstance(tree, Not):
        yield from _fallen_back(tree.operand, not holds, analysis, imported)
    elif isinstance(tree, BoolOp):
        if (tree.op == "and") == holds:  # each conjunct holds (or, negated, each fails)
            for value in tree.values:
                yield from _fallen_back(value, holds, analysis, imported)
    elif isinstance(tree, Name) and not holds:
        yield from _imported_module(tree.id, analysis, imported)
    elif (found := _none_test(tree)) is not None:
        tested, is_none = found
        if isinstance(tested, Name) and holds == is_none:
            yield from _imported_module(tested.id, analysis, imported)


def _imported_module(
    name: str, analysis: Analysis, imported: Callable[[str], str | None]
) -> Iterator[str]:
    """The module `name` is in the site's file, when it is one that file imports from
    another distribution (not a parameter, local or name of the package's own)."""
    held = analysis.inputs.get(name)
    if held is not None and held.kind in ("parameter", "local", "field", "attribute"):
        return
    module = imported(name)
    here = module_name(analysis.site.location.file) or ""
    if module and module.split(".")[0] != here.split(".")[0]:
        yield module


def _caught(guard: Guard) -> set[str]:
    """The exception types an `except` names, by their last names."""
    return {t.strip(" ()").rsplit(".", 1)[-1] for t in guard.test.split(" as ", 1)[0].split(",")}


def _walk_calls(tree: Expr) -> Iterator[Call]:
    for node in tree.walk():
        if isinstance(node, Call):
            yield node


def _calls(tree: Expr, holds: bool) -> Iterator[tuple[Call, bool | None]]:
    """The calls of a condition, each with whether what it looks for is missing where
    the site is reached: `not has_x()` that holds, `has_x()` of a negated test,
    `find_spec("x") is None` that holds; None where that is not plain (a call passed
    on, compared with anything but None)."""
    if isinstance(tree, Not):
        yield from _calls(tree.operand, not holds)
    elif isinstance(tree, BoolOp):
        for value in tree.values:
            yield from _calls(value, holds)
    elif isinstance(tree, Call):
        yield tree, not holds
        for child in tree.children():
            yield from ((c, None) for c in _walk_calls(child))
    elif (found := _none_test(tree)) is not None and isinstance(call := found[0], Call):
        yield call, holds == found[1]
        for child in call.children():
            yield from ((c, None) for c in _walk_calls(child))
    else:
        yield from ((c, None) for c in _walk_calls(tree))


def _none_test(tree: Expr) -> tuple[Expr, bool] | None:
    """(`x`, True) of `x is None` (or `== None`), (`x`, False) of `x is not None`; None
    for any other test."""
    if not (isinstance(tree, Compare) and len(tree.ops) == 1 and tree.ops[0] in _IS_NONE):
        return None
    right = tree.comparators[0]
    if not (isinstance(right, Constant) and right.value is None):
        return None
    return tree.left, _IS_NONE[tree.ops[0]]


_IS_NONE = {"is": True, "==": True, "is not": False, "!=": False}


def _module_of(call: Call, analysis: Analysis) -> _Named:
    """The module a call names by its first argument: a string literal, or a constant
    of the library that holds one; else the expression, which names it at run time."""
    first = call.args[0] if call.args else None
    if first is None:
        return None, None
    if isinstance(first, Constant):
        value = first.value
        return (value, None) if isinstance(value, str) and value else (None, None)
    written = first.source()
    held = analysis.inputs.get(written)
    if held is not None and held.kind == "constant":
        _, value = literal(held.default)
        if isinstance(value, str) and value:
            return value, None
    return None, written


def _absolute(module: str, here: str, init: bool) -> str:
    """A relative import (`..x`) of the module `here` (a package's `__init__` when
    `init`), as the absolute name it imports."""
    level = len(module) - len(module.lstrip("."))
    parts = here.split(".") if here else []
    if not init:
        parts = parts[:-1]
    parts = parts[: max(len(parts) - (level - 1), 0)]
    rest = module[level:]
    return ".".join([*parts, rest] if rest else parts) or module


def _is_metadata(call: Call, qualify: Callable[[str], str] | None) -> bool:
    """Whether `version(...)` or `distribution(...)` is importlib.metadata's (or its
    backport's): as written (`importlib.metadata.version`), or imported under its name."""
    written = call.func.source() if isinstance(call.func, Attribute | Name) else ""
    qualified = qualify(written) if qualify is not None and written else written
    return any(
        q.rsplit(".", 1)[0].endswith(("importlib.metadata", "importlib_metadata"))
        for q in (written, qualified or "")
    )


def _helper_looks_for(name: str, requires: Iterable[Requirement]) -> str | None:
    """The distribution a `has_x()`-like helper looks for: `x`, when the package
    requires it (`has_triton` where an extra requires triton); None for any other name
    (`has_bias`, `has_device_capability`), a condition and no dependency check."""
    found = _HELPER.match(name)
    if found is None:
        return None
    looked = next(g for g in found.groups() if g)
    return looked if requirement(looked, requires) is not None else None


def requirement(module: str, requires: Iterable[Requirement]) -> Requirement | None:
    """The package's requirement of the distribution that provides `module` (an import
    name or a distribution's): of its extra, the shortest-named, when an extra requires
    it, else the base one; None when the package requires none."""
    top = module.split(".")[0]
    wanted = {normal(top), normal(module), f"{normal(top)}-python", f"python-{normal(top)}"}
    wanted |= {normal(DISTRIBUTIONS[m]) for m in (module, top) if m in DISTRIBUTIONS}
    found = [r for r in requires if normal(r[0]) in wanted]
    extras = sorted((r for r in found if r[1]), key=lambda r: len(r[1]))
    base = [r for r in found if not r[1]]
    return next(iter(extras or base), None)


def stated_version(text: str) -> str:
    """The version a message asks for, as a specifier (">=2.1"); "" when it names none."""
    found = _STATED.search(text)
    if found is None:
        return ""
    if found.group("v"):
        return found.group("op") + found.group("v")
    return ">=" + (found.group("later") or found.group("least"))


def named_in(message: str, module: str) -> str | None:
    """The distribution a message names for `module`: `pip install x`, "the `x` package",
    "install x", when its name is the module's or holds it as a word (`amd-quark` of
    `quark`); None when it names none."""
    top = normal(module.split(".")[0])
    for found in _NAMING.finditer(message):
        name = next(g for g in found.groups() if g).rstrip(".-")
        if normal(name) == top or top in normal(name).split("-"):
            return name
    return None


def normal(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()
