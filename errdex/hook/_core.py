# errdex.hook.explain: the error page, at the moment of failure. For each exception of a
# chain (and each member of a group), the innermost traceback frame in a file of an
# installed distribution is looked up by exact file and line among the indexed raise
# sites of that distribution's installed version; the record says what the error means
# and what to do, the message gives the values that filled its holes, and the frame
# gives the current values of the inputs its conditions read.
from __future__ import annotations

import functools
import os
import sys
import sysconfig
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

from errdex.hook import _dists, _values
from errdex.markup import clip, plain, printable
from errdex.match import Matcher
from errdex.model import IndexedSite, Record
from errdex.names import canonical
from errdex.store import Store, default_location, open_store

MAX_LINES = 20  # of one error's section
MAX_ERRORS = 3  # sections for one chain or group
_SOLUTIONS = 3

_lock = threading.RLock()
_stores: dict[str, Store] = {}
_matchers: dict[tuple[str, str], Matcher] = {}
_indexed: set[tuple[str, str, str]] = set()  # (db, name, version) tried in this process


@dataclass(frozen=True)
class _Hit:
    exc: BaseException
    record: Record
    frame: FrameType
    values: dict[str, str]


def explain(exc: BaseException, db: str | Path | None = None, *, color: bool = False) -> str | None:
    """The errdex section for `exc`, or None when no indexed raise site is known for it.
    May raise: errdex.hook.explain, the one caller, turns any error into one line and
    checks ERRDEX_DISABLE first."""
    location = str(default_location() if db is None else db)
    hits: list[_Hit] = []
    seen_sites: set[str] = set()
    for one in _chain(exc):
        hit = _explain_one(one, location)
        if hit is not None and hit.record.id not in seen_sites:
            seen_sites.add(hit.record.id)
            hits.append(hit)
        if len(hits) >= MAX_ERRORS:
            break
    if not hits:
        return None
    return "\n".join(_render(hit, color) for hit in hits)


def _chain(exc: BaseException) -> list[BaseException]:
    """The exceptions in the order a traceback prints them: causes first, then each
    group's own frames, then its members."""
    order: list[BaseException] = []
    seen: set[int] = set()

    def visit(e: BaseException, depth: int) -> None:
        if id(e) in seen or depth > 50 or len(order) > 200:
            return
        seen.add(id(e))
        if e.__cause__ is not None:
            visit(e.__cause__, depth + 1)
        elif e.__context__ is not None and not e.__suppress_context__:
            visit(e.__context__, depth + 1)
        order.append(e)
        if isinstance(e, BaseExceptionGroup):
            for member in e.exceptions:
                visit(member, depth + 1)

    visit(exc, 0)
    return order


def _frames(tb: TracebackType | None) -> list[tuple[FrameType, int]]:
    found: list[tuple[FrameType, int]] = []
    while tb is not None and len(found) < 10_000:
        found.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return found


def _explain_one(exc: BaseException, location: str) -> _Hit | None:
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return None
    frames = _frames(exc.__traceback__)
    for number in range(len(frames) - 1, -1, -1):
        frame, line = frames[number]
        path = frame.f_code.co_filename
        owner = _owner(path)
        if owner is None:
            continue
        name, version = owner
        record = _site(location, name, version, path, line, type(exc))
        if record is None:
            return None
        # raised in a helper that always raises: the call to it, one frame out, is the
        # site with the message and the conditions (and the frame with their values)
        for outer in range(number - 1, max(number - 4, -1), -1):
            outer_frame, outer_line = frames[outer]
            outer_path = outer_frame.f_code.co_filename
            if _owner(outer_path) != owner:
                break
            caller = _site(location, name, version, outer_path, outer_line, type(exc))
            if caller is None or caller.site.kind != "helper":
                break
            record, frame = caller, outer_frame
        return _Hit(exc, record, frame, _holes(location, record, exc))
    return None


# -- which distribution a file belongs to ----------------------------------------------


@functools.cache
def _stdlib_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(
        os.path.normpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if k in paths
    )


def _owner(path: str) -> tuple[str, str] | None:
    """(distribution name, installed version) of the file at `path`, or None."""
    if not path or path.startswith("<"):
        return None
    normal = os.path.normpath(path)
    if normal.startswith(_stdlib_dirs()) and not normal.startswith(_site_dirs()):
        return None
    for candidate in dict.fromkeys((normal, os.path.realpath(normal))):
        for entry in _entries():
            if candidate.startswith(entry + os.sep):
                found = _dists.owner_in(entry, candidate)
                if found is not None:
                    return found
    return None


def _entries() -> list[str]:
    """The directories of sys.path, as absolute paths, longest first."""
    seen = {os.path.normpath(os.path.abspath(p or os.curdir)) for p in sys.path}
    return sorted(seen, key=len, reverse=True)


@functools.cache
def _site_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.normpath(paths[k]) + os.sep for k in ("purelib", "platlib") if k in paths)


# -- the indexed site --------------------------------------------------------------------


def _store(location: str, *, create: bool) -> Store:
    with _lock:
        store = _stores.get(location)
        if store is None:
            store = open_store(location, create=create)
            _stores[location] = store
        return store


def _has_snapshot(location: str, package: str, version: str) -> bool:
    from errdex.errors import NoDatabase

    try:
        store = _store(location, create=False)
    except NoDatabase:
        return False
    return any(s.package == package and s.version == version for s in store.snapshots())


def _ensure_indexed(location: str, name: str, version: str) -> bool:
    """Index installed:NAME into the db once, if it holds no snapshot of this version."""
    package = canonical(name)
    if _has_snapshot(location, package, version):
        return True
    with _lock:
        if (location, package, version) in _indexed:
            return False
        _indexed.add((location, package, version))
        from errdex.index import index_source

        print(
            f"errdex: indexing {name} {version} once (never imported)…", file=sys.stderr, flush=True
        )
        store = _store(location, create=True)
        index_source(f"installed:{name}", store, workers=1)
    return _has_snapshot(location, package, version)


def _site(
    location: str, name: str, version: str, path: str, line: int, kind: type[BaseException]
) -> Record | None:
    if not _ensure_indexed(location, name, version):
        return None
    package = canonical(name)
    store = _store(location, create=False)
    normal = os.path.normpath(path).replace(os.sep, "/")
    rows = [
        row
        for row in store.indexed_sites(bases=[os.path.basename(path)], package=package)
        if row.version == version and row.line == line and _suffix(normal, row.file)
    ]
    if not rows:
        return None
    rows.sort(key=lambda row: not _names(row, kind))
    return store.get(rows[0].id, package=package, version=version)


def _suffix(path: str, file: str) -> bool:
    """Whether the indexed `file` (relative to its tree) is the installed `path`; an
    sdist's src/ layout is installed without its src/."""
    file = file.lstrip("/")
    return any(
        path == rel or path.endswith("/" + rel) for rel in (file, file.removeprefix("src/")) if rel
    )


def _names(row: IndexedSite, kind: type[BaseException]) -> bool:
    names = {n.rsplit(".", 1)[-1] for n in row.exception_names}
    return any(k.__name__ in names for k in kind.__mro__)


def _holes(location: str, record: Record, exc: BaseException) -> dict[str, str]:
    """The values that filled the message's holes, as the matcher reads them."""
    if record.site.message is None or record.site.message.static:
        return {}
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception:  # the exception's own __str__ failed; the traceback says so too
        return {}
    key = (location, record.package)
    with _lock:
        matcher = _matchers.get(key)
        matcher = (
            Matcher(_store(location, create=False), package=record.package)
            if matcher is None
            else matcher.fresh()
        )
        _matchers[key] = matcher
    result = matcher.match(text[:200_000], package=f"{record.package}=={record.version}")
    for match in (*result.matches, *result.closest):
        if match.id == record.id:
            return dict(match.values)
    return {}


# -- the section -----------------------------------------------------------------------


def _render(hit: _Hit, color: bool) -> str:
    bold, dim, reset = ("\x1b[1m", "\x1b[2m", "\x1b[0m") if color else ("", "", "")
    record, site = hit.record, hit.record.site
    loc = site.location
    lines = [
        f"{bold}── errdex: {printable(site.exception.name)} raised at "
        f"{printable(loc.file)}:{loc.line} in {printable(loc.function)} "
        f"({printable(record.package)} {printable(record.version)}){reset}"
    ]
    body = site.explanation
    if body is not None:
        lines.append(f"{bold}{printable(clip(body.title, 200))}{reset}")
        if body.when_it_happens:
            when = plain(body.when_it_happens)
            lines.append(f"When it happens: {printable(clip(when, 400))}")
        if body.solutions:
            lines.append("Solutions:")
            for number, solution in enumerate(body.solutions[:_SOLUTIONS], start=1):
                lines.append(f"  {number}. {printable(clip(plain(solution), 300))}")
    if hit.values:
        pairs = list(hit.values.items())[:5]
        shown = ", ".join(f"{printable(k)} = {printable(clip(v, 80))}" for k, v in pairs)
        lines.append(f"In the message: {shown}")
    now = _inputs(hit)
    if now:
        lines.append("Now: " + now[0])
        lines.extend("     " + item for item in now[1:])
    room = MAX_LINES - 1
    lines = lines[:room]
    lines.append(f"{dim}id {site.id} · details: errdex show {site.id}{reset}")
    return "\n".join(lines)


def _inputs(hit: _Hit) -> list[str]:
    shown: list[str] = []
    try:
        f_locals = dict(hit.frame.f_locals)
        f_globals = hit.frame.f_globals
    except Exception:
        return shown
    for item in hit.record.site.inputs[:6]:
        value = _values.read(item.expr, f_locals, f_globals)
        if value is _values.MISSING:
            continue
        shown.append(f"`{printable(item.expr)}` = {printable(_values.show(value))}")
    return shown
