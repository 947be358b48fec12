# errdex.hook.explain: the error page, at the moment of failure, in the user's process. For
# each exception of a chain (and each member of a group):
# - raised in compiled code (the last frame failed at a call into an extension module, or
#   the class raised is one of an extension module's): one line saying so (_compiled);
# - else the innermost traceback frame in a file of an installed distribution is looked
#   up by file and line among the raise sites of that distribution's installed version:
#   in the answers kept for it (_answers, while the database is unchanged: no import of
#   the store), else in the database, else, not indexed yet, among the sites of the
#   traceback's files alone (_first), while a background job indexes the distribution
#   (_background) for the next failure; a site is one whose class may be the one raised
#   (by its MRO), of a snapshot whose file is still the installed one (by its digest: a
#   rebuild with the same version is answered from its files and indexed again);
# - else (the user's own code): nothing.
# The record says what the error means and what to do, the message gives the values that
# filled its holes, and the frame the current values of the inputs its conditions read.
# Nothing here changes the process's state: no collector paused, no thread left, no
# signal handler set; the job runs in a process of its own.
from __future__ import annotations

import contextlib
import functools
import os
import sys
import sysconfig
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

from errdex import places
from errdex.hook import _compiled, _dists, _values
from errdex.hook._answers import Answer, Kept, answer_of, values_in
from errdex.languages import is_cython
from errdex.markup import clip, plain, printable
from errdex.names import canonical

MAX_LINES = 20  # of one error's section
MAX_ERRORS = 3  # sections for one chain or group
_SOLUTIONS = 3
_CALLS_OUT = 3  # frames out of a raise helper looked at for the call to it
_WAIT = 0.5  # seconds to wait for a database another process holds locked
_RETRY_AFTER = 3600.0  # seconds after a failed background index before another is tried

_lock = threading.RLock()
_stores: dict[str, Any] = {}  # location -> errdex.store.Store, opened on a first need
_started: set[tuple[str, ...]] = set()  # (db, package, version[, "again"]) jobs started here


@dataclass(frozen=True)
class _Owner:
    entry: str  # the sys.path directory the distribution is installed in
    name: str
    version: str

    @property
    def package(self) -> str:
        return canonical(self.name)


@dataclass(frozen=True)
class _Hit:
    exc: BaseException
    answer: Answer
    frame: FrameType
    alone: tuple[str, ...] = ()  # the files the answer comes from, when not the full index
    note: str = ""  # what happens meanwhile, with such an answer


Lookup = Callable[[str, str, int], list[Answer]]  # (absolute path, file, line) -> answers


def explain(
    exc: BaseException, db: str | os.PathLike[str] | None = None, *, color: bool = False
) -> str | None:
    """The errdex section for `exc`, or None when there is nothing to say. May raise:
    errdex.hook.explain, the one caller, turns any error into one line and checks
    ERRDEX_DISABLE first."""
    location = str(places.database() if db is None else db)
    sections: list[str] = []
    seen: set[str] = set()
    for one in _chain(exc):
        said = _explain_one(one, location, color)
        if said is not None and said[0] not in seen:
            seen.add(said[0])
            sections.append(said[1])
        if len(sections) >= MAX_ERRORS:
            break
    return "\n".join(sections) if sections else None


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


def _tracebacks(tb: TracebackType | None) -> list[TracebackType]:
    found: list[TracebackType] = []
    while tb is not None and len(found) < 10_000:
        found.append(tb)
        tb = tb.tb_next
    return found


def _explain_one(exc: BaseException, location: str, color: bool) -> tuple[str, str] | None:
    """(what tells it from the others of the chain, the text) for one exception."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return None
    tbs = _tracebacks(exc.__traceback__)
    if tbs:
        last = tbs[-1]
        into = _compiled.call_into(last.tb_frame, last.tb_lasti)
        if into is not None:
            return _compiled_line(exc, into, last, color)
    for number in range(len(tbs) - 1, -1, -1):
        owner, _, _ = _place(tbs[number].tb_frame)
        if owner is None:
            continue
        hit = _hit(exc, tbs, number, owner, location)
        if hit is None:
            break  # the innermost frame of a distribution is no raise site of it
        return hit.answer["id"], _render(hit, color)
    of_class = _compiled.class_of(type(exc))
    if of_class is not None:
        return _compiled_line(exc, of_class, tbs[-1] if tbs else None, color)
    return None


# -- which distribution a file belongs to ----------------------------------------------


@functools.cache
def _stdlib_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(
        os.path.normpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if k in paths
    )


def _owner(path: str) -> _Owner | None:
    """The installed distribution the file at `path` belongs to, or None."""
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
                    return _Owner(entry, *found)
    return None


def _place(frame: FrameType) -> tuple[_Owner | None, str, str]:
    """(owner, path, file) of a frame: the distribution its file belongs to, the path the
    lookup reads and the file as the index names it (None, path, "" for none).

    A frame of compiled Cython names its source as it was compiled (`pandas/_libs/
    parsers.pyx`, or only `parsers.pyx`), a file no installed distribution holds; its
    globals are its module's, whose `__file__` (the extension module, listed in the
    distribution's RECORD) says the owner, and whose name the source's folder
    (`pandas._libs.parsers` -> `pandas/_libs/`)."""
    path = frame.f_code.co_filename
    if not is_cython(path) or os.path.isabs(path):
        owner = _owner(path)
        return owner, path, "" if owner is None else _relative(owner, path)
    module = frame.f_globals.get("__name__")
    extension = frame.f_globals.get("__file__")
    if not (isinstance(module, str) and isinstance(extension, str)):
        return None, path, ""
    source = path.replace("\\", "/")
    if "/" not in source:
        folder = module.rpartition(".")[0].replace(".", "/")
        source = f"{folder}/{source}" if folder else source
    return _owner(extension), source, source


def _entries() -> list[str]:
    """The directories of sys.path, as absolute paths, longest first."""
    seen = {os.path.normpath(os.path.abspath(p or os.curdir)) for p in sys.path}
    return sorted(seen, key=len, reverse=True)


@functools.cache
def _site_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.normpath(paths[k]) + os.sep for k in ("purelib", "platlib") if k in paths)


def _relative(owner: _Owner, path: str) -> str:
    """The file at `path` as the index names it: relative to the distribution's folder."""
    normal = os.path.normpath(path)
    for candidate in dict.fromkeys((normal, os.path.realpath(normal))):
        if candidate.startswith(owner.entry + os.sep):
            return os.path.relpath(candidate, owner.entry).replace(os.sep, "/")
    return os.path.basename(normal)


# -- the answer at a raise site --------------------------------------------------------


def _hit(
    exc: BaseException, tbs: list[TracebackType], number: int, owner: _Owner, location: str
) -> _Hit | None:
    """The answer at frame `number` (in a file of `owner`) or, when it is in a raise
    helper, at the call to it one to three frames out; None when there is no site."""
    frames = [number]
    for outer in range(number - 1, max(number - 1 - _CALLS_OUT, -1), -1):
        if _place(tbs[outer].tb_frame)[0] != owner:
            break
        frames.append(outer)
    places_of = [_place(tbs[n].tb_frame) for n in frames]
    paths = [path for _, path, _ in places_of]
    files = [file for _, _, file in places_of]
    kept = Kept(location, owner.package, owner.version)
    first = False  # the answer comes from these files alone
    again = False  # the snapshot's files are not those installed: it is indexed again
    lookup: Lookup | None = None
    if kept.fresh():
        if _changed(paths, files, kept.digest):
            store = _indexed(location, owner)
            if store is None or not _of_installed(store, owner):
                return None  # a snapshot of another source than what is installed
            again = True
        else:
            lookup = _kept_lookup(kept)
    else:
        store = _indexed(location, owner)
        if store is not None:
            if not _changed(paths, files, lambda file: _recorded(store, owner, file)):
                lookup = _store_lookup(store, owner)
                _keep_answers(kept, owner)
            elif _of_installed(store, owner):
                again = True
            else:
                return None
    if lookup is None:
        from errdex.hook import _first

        places_ = [
            (file, tbs[n].tb_lineno, tbs[n].tb_frame.f_code.co_qualname)
            for file, n in zip(files, frames, strict=True)
        ]
        found = _first.answers(owner.entry, owner.package, owner.version, places_)
        lookup = lambda _path, file, line: found.get((file, line), [])  # noqa: E731
        first = True
    kind = type(exc)
    rows = [
        row for row in lookup(paths[0], files[0], tbs[number].tb_lineno) if _may_raise(row, kind)
    ]
    if not rows:
        return None
    answer, frame = _best(rows, kind), tbs[number].tb_frame
    for path, file, n in zip(paths[1:], files[1:], frames[1:], strict=True):
        outer_rows = [row for row in lookup(path, file, tbs[n].tb_lineno) if _may_raise(row, kind)]
        caller = _best(outer_rows, kind) if outer_rows else None
        if caller is None or caller["kind"] != "helper":
            break
        answer, frame = caller, tbs[n].tb_frame
    if not first:
        return _Hit(exc, answer, frame)
    # a site to answer with: the full index is worth having for the next failure
    alone = tuple(dict.fromkeys((answer["file"], files[0])))
    return _Hit(exc, answer, frame, alone, _index_in_background(kept, owner, again=again))


def _best(rows: list[Answer], kind: type[BaseException]) -> Answer:
    """Of the sites at one line, the one that raises the class of `kind` (or a base)."""
    return min(rows, key=lambda row: not _names(row, kind))


def _names(row: Answer, kind: type[BaseException]) -> bool:
    names = {n.rsplit(".", 1)[-1] for n in row["names"]}
    return any(k.__name__ in names for k in kind.__mro__)


def _may_raise(row: Answer, kind: type[BaseException]) -> bool:
    """Whether the site's exception may be `kind`: one of its classes (by name), or an
    exception of which nothing is known for sure (a name the index could not resolve)."""
    if _names(row, kind):
        return True
    _, qualname, *bases = row["names"]
    return not (qualname.startswith("builtins.") or bases)


def _changed(paths: list[str], files: list[str], recorded: Callable[[str], str | None]) -> bool:
    """Whether any installed file at `paths` (named `files` in the index) is not the one
    the snapshot indexed, by the digest `recorded` gives of it (a snapshot that recorded
    none is taken as it is)."""
    from errdex.identity import file_digest

    for path, file in zip(paths, files, strict=True):
        digest = recorded(file)
        if digest is None:
            continue
        try:
            with open(path, "rb") as handle:
                if file_digest(handle.read()) != digest:
                    return True
        except OSError:  # not a file to read (a module inside a zip): nothing to compare
            continue
    return False


def _recorded(store: Any, owner: _Owner, file: str) -> str | None:
    """The digest the snapshot recorded of `file` (an sdist's src/ layout installed
    without its src/)."""
    for name in (file, f"src/{file}"):
        digest: str | None = store.file_digest(owner.package, owner.version, name)
        if digest is not None:
            return digest
    return None


def _of_installed(store: Any, owner: _Owner) -> bool:
    """Whether the stored snapshot of the owner's version was made from what is
    installed (installed:NAME), so that indexing it again is what mends it."""
    wanted = (owner.package, owner.version)
    return any(
        (s.package, s.version) == wanted and s.source.startswith("installed:")
        for s in store.snapshots()
    )


def _kept_lookup(kept: Kept) -> Lookup:
    files: dict[str, list[Answer]] = {}

    def lookup(_path: str, file: str, line: int) -> list[Answer]:
        if file not in files:
            files[file] = kept.at(file)
        return [a for a in files[file] if a["line"] == line]

    return lookup


def _store(location: str) -> Any:
    from errdex.store import open_store

    with _lock:
        store = _stores.get(location)
        if store is None:
            store = _stores[location] = open_store(location, create=False, wait=_WAIT)
        return store


def _indexed(location: str, owner: _Owner) -> Any:
    """The store at `location` when it holds the owner's installed version, else None."""
    if not location.startswith(("postgresql://", "postgres://")) and not os.path.exists(location):
        return None  # nothing indexed yet: not even errdex's store is imported
    from errdex.errors import EmptyDatabase

    try:
        store = _store(location)
    except EmptyDatabase:  # a background job is making it now: nothing indexed yet
        return None
    wanted = (owner.package, owner.version)
    return store if any((s.package, s.version) == wanted for s in store.snapshots()) else None


def _store_lookup(store: Any, owner: _Owner) -> Lookup:
    def lookup(path: str, file: str, line: int) -> list[Answer]:
        normal = os.path.normpath(path).replace(os.sep, "/")
        rows = [
            row
            for row in store.indexed_sites(bases=[os.path.basename(path)], package=owner.package)
            if row.version == owner.version and row.line == line and _suffix(normal, row.file)
        ]
        out: list[Answer] = []
        for row in {row.id: row for row in rows}.values():
            record = store.get(row.id, package=owner.package, version=owner.version)
            if record is not None:
                out.append(answer_of(record.site, record.package, record.version))
        return out

    return lookup


def _suffix(path: str, file: str) -> bool:
    """Whether the indexed `file` (relative to its tree) is the installed `path`; an
    sdist's src/ layout is installed without its src/."""
    file = file.lstrip("/")
    return any(
        path == rel or path.endswith("/" + rel) for rel in (file, file.removeprefix("src/")) if rel
    )


# -- the background job -----------------------------------------------------------------


def _keep_answers(kept: Kept, owner: _Owner) -> None:
    """Have the answers of an indexed snapshot kept, for the next failures; quietly: this
    failure's answer is whole without them."""
    key = (kept.location, kept.package, kept.version)
    with _lock:
        if key in _started:
            return
        _started.add(key)
    from errdex.hook import _background

    with contextlib.suppress(Exception):  # the next failure reads the database again
        _background.start(kept, owner.name, owner.entry)


def _index_in_background(kept: Kept, owner: _Owner, *, again: bool = False) -> str:
    """Start the full index of the owner's version (`again`: over a stored snapshot
    whose files changed since), unless it runs or failed lately, and say which."""
    import subprocess
    import time

    from errdex.hook import _background

    what = f"{owner.name} {owner.version}"
    being = "indexed again (its files changed since)" if again else "indexed"
    said = f"{what} is being {being} in the background, for the full answer next time"
    key = (kept.location, kept.package, kept.version, *(("again",) if again else ()))
    with _lock:
        if key in _started:
            return said
    failure = kept.failure()
    if failure is not None:
        try:
            age = time.time() - os.stat(kept.log).st_mtime
        except OSError:
            age = 0.0
        if age < _RETRY_AFTER:
            return (
                f"its index in the background failed ({clip(failure, 160)}); "
                f"`errdex index installed:{owner.name}` says why"
            )
    try:
        _background.start(kept, owner.name, owner.entry, again=again)
    except (OSError, subprocess.SubprocessError) as exc:
        reason = clip(f"{type(exc).__name__}: {exc}", 160)
        return f"errdex could not index {what} in the background ({reason})"
    with _lock:
        _started.add(key)
    return said


# -- the section -----------------------------------------------------------------------


def _render(hit: _Hit, color: bool) -> str:
    bold, dim, reset = ("\x1b[1m", "\x1b[2m", "\x1b[0m") if color else ("", "", "")
    a = hit.answer
    lines = [
        f"{bold}── errdex: {printable(a['exception'])} raised at "
        f"{printable(a['file'])}:{a['line']} in {printable(a['function'])} "
        f"({printable(a['package'])} {printable(a['version'])}){reset}"
    ]
    if a["title"]:
        lines.append(f"{bold}{printable(clip(a['title'], 200))}{reset}")
    if a["when"]:
        lines.append(f"When it happens: {printable(clip(plain(a['when']), 400))}")
    if a["solutions"]:
        lines.append("Solutions:")
        for number, solution in enumerate(a["solutions"][:_SOLUTIONS], start=1):
            lines.append(f"  {number}. {printable(clip(plain(solution), 300))}")
    values = _message_values(hit)
    if values:
        pairs = list(values.items())[:5]
        shown = ", ".join(f"{printable(k)} = {printable(clip(v, 80))}" for k, v in pairs)
        lines.append(f"In the message: {shown}")
    now = _inputs(hit)
    if now:
        lines.append("Now: " + now[0])
        lines.extend("     " + item for item in now[1:])
    lines = lines[: MAX_LINES - 1]
    site = a["id"]
    if hit.alone:
        files = ", ".join(os.path.basename(f) for f in hit.alone)
        lines.append(
            f"{dim}id {site} · from {printable(files)} alone; {printable(hit.note)}{reset}"
        )
    else:
        lines.append(f"{dim}id {site} · details: errdex show {site}{reset}")
    return "\n".join(lines)


def _message_values(hit: _Hit) -> dict[str, str]:
    if not hit.answer["lits"]:
        return {}
    try:
        text = str(hit.exc)
    except Exception:  # the exception's own __str__ failed; the traceback says so too
        return {}
    return values_in(hit.answer, text)


def _inputs(hit: _Hit) -> list[str]:
    shown: list[str] = []
    try:
        f_locals = dict(hit.frame.f_locals)
        f_globals = hit.frame.f_globals
    except Exception:
        return shown
    for expr in hit.answer["inputs"][:6]:
        value = _values.read(expr, f_locals, f_globals)
        if value is _values.MISSING:
            continue
        shown.append(f"`{printable(expr)}` = {printable(_values.show(value))}")
    return shown


def _compiled_line(
    exc: BaseException, found: _compiled.Compiled, last: TracebackType | None, color: bool
) -> tuple[str, str]:
    bold, reset = ("\x1b[1m", "\x1b[0m") if color else ("", "")
    name = printable(_compiled.qualname(type(exc)))
    module = printable(found.module)
    if found.call is not None and last is not None:
        path = last.tb_frame.f_code.co_filename
        owner = _owner(path)
        file = _relative(owner, path) if owner is not None else os.path.basename(path)
        where = f"`{printable(clip(found.call, 80))}` at {printable(file)}:{last.tb_lineno}"
        text = f"{name} raised in compiled code: {where} calls into {module}"
    else:
        text = f"{name} raised in compiled code: its class is one of {module}"
    line = f"{bold}── errdex: {text} (errdex reads Python source only){reset}"
    return line, line
