# Cython files (.pyx, .pxd, .pxi) read as the Python visitor reads a .py file: the source
# is rewritten into Python on the same lines (cython_syntax.py), parsed by `ast`, never
# compiled or imported, and visited; each site says `location.language = "cython"`.
# A file is a module with its .pxd (same name, same module) and the .pxi files it
# `include`s, which Cython pastes into it: `join_units` gives every file of such a unit
# the unit's module and all of its imports and cimports, when files are linked (so a
# cached file's facts depend on its own text alone, and an edited .pxi is seen at once).
from __future__ import annotations

import ast
import posixpath
import warnings
from collections.abc import Sequence
from dataclasses import replace

from errdex.extract.cython_syntax import RewriteError, rewrite
from errdex.extract.facts import FileFacts
from errdex.extract.files import MAX_FILE_BYTES, too_big
from errdex.extract.parse import Skip, analysed, decode, reading
from errdex.languages import is_cython

__all__ = ["LANGUAGE", "UNREADABLE", "join_units", "parse_cython"]

LANGUAGE = "cython"
UNREADABLE = "cannot parse as Cython"  # how the reason of a skipped Cython file starts


def parse_cython(
    data: bytes,
    path: str,
    module: str,
    *,
    strict: bool = False,
    want_calls: frozenset[int] = frozenset(),
) -> FileFacts:
    """The facts of one Cython file's source bytes; raise Skip when it is not usable (it
    does not decode, its Cython cannot be read as Python, or it passes a cap of parse.py)."""
    if len(data) > MAX_FILE_BYTES:
        raise Skip(too_big(len(data)))
    with reading():
        try:
            text = decode(data)
            with warnings.catch_warnings():  # what Python would warn about the indexed code
                warnings.simplefilter("ignore")
                tree, includes = _parse(text, path)
        except RewriteError as exc:
            raise Skip(f"{UNREADABLE}: {exc}") from None
        except SyntaxError as exc:
            where = "" if exc.lineno is None else f" (line {exc.lineno})"
            raise Skip(f"{UNREADABLE}: {exc.msg}{where}") from None
    facts = analysed(tree, text, data, path, module, strict=strict, want_calls=want_calls)
    folder = posixpath.dirname(path)
    return replace(
        facts,
        sites=tuple(
            replace(site, location=replace(site.location, language=LANGUAGE))
            for site in facts.sites
        ),
        call_sites=tuple(
            replace(call, location=replace(call.location, language=LANGUAGE))
            for call in facts.call_sites
        ),
        includes=tuple(posixpath.normpath(posixpath.join(folder, name)) for name in includes),
    )


def _parse(text: str, path: str) -> tuple[ast.Module, tuple[str, ...]]:
    """The tree of `text` rewritten as Python, with the files its `include`s name; the
    quick rewrite first, the thorough one when Python cannot parse what that made."""
    quick = rewrite(text)
    try:
        tree = ast.parse(quick.text, path)
        done = quick
    except SyntaxError:
        done = rewrite(text, thorough=True)
        tree = ast.parse(done.text, path)  # its SyntaxError is the file's reason
    done.restore(tree)
    return tree, done.includes


def join_units(files: Sequence[FileFacts]) -> list[FileFacts]:
    """`files` with each Cython module made one: a .pxi that a file includes (directly or
    through another .pxi) takes that file's module, and the files of one module (.pyx,
    .pxd, included .pxi) share all of their imports, the .pyx's first. Other files are
    returned as they are, in the same order."""
    cython = [f for f in files if is_cython(f.path)]
    if not cython:
        return list(files)
    by_path = {f.path: f for f in cython}
    module_of: dict[str, str] = {}
    roots = sorted(cython, key=lambda f: (f.path.endswith(".pxi"), f.path))
    for root in roots:
        module = module_of.get(root.path, root.module)
        todo = list(root.includes)
        while todo:
            included = todo.pop()
            found = by_path.get(included)
            if found is None or included in module_of or found is root:
                continue
            module_of[included] = module
            todo.extend(found.includes)
    units: dict[str, list[FileFacts]] = {}
    for facts in sorted(cython, key=lambda f: (not f.path.endswith(".pyx"), f.path)):
        units.setdefault(module_of.get(facts.path, facts.module), []).append(facts)
    imports: dict[str, tuple[tuple[str, str], ...]] = {}
    for module, members in units.items():
        if len(members) > 1:
            merged: dict[str, str] = {}
            for member in members:
                for name, target in member.imports:
                    merged.setdefault(name, target)
            imports[module] = tuple(merged.items())
    out: list[FileFacts] = []
    for facts in files:
        module = module_of.get(facts.path, facts.module)
        if not is_cython(facts.path) or (module == facts.module and module not in imports):
            out.append(facts)
        else:
            out.append(replace(facts, module=module, imports=imports.get(module, facts.imports)))
    return out
