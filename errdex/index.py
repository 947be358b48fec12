# Indexing end to end: SOURCE -> snapshot -> extracted sites -> explained sites -> one
# store transaction. The only module that wires the stages together.
from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from errdex import sources
from errdex.errors import NotFoundError, PathOutsideTree, SourceError
from errdex.extract import EXTRACTOR_VERSION, Extraction, scan
from errdex.extract.cache import FactsCache, NoCache, code_version
from errdex.model import ErrorSite, Explanation, IndexResult, SkippedFile, Snapshot
from errdex.names import canonical as canonicalize_name
from errdex.sources.cache import cache_root
from errdex.store import Store
from errdex.store.facts import SqliteFactsCache

if TYPE_CHECKING:  # explain loads only when something is to be explained
    from errdex.explain import Explained
    from errdex.explain.reuse import ProseCache

# (phase, done, total): download (bytes), parse (files), explain and write (errors),
# versions (releases); total 0 when unknown
Progress = Callable[[str, int, int], None]

_HERE = Path(__file__).parent
# What a stored snapshot was made by: the extractor (which also keys the per-file
# cache), the explainer and the JSON contract. A tree already stored by this same code
# is left as it is; a change to the explainer alone re-explains from cached facts
# without parsing a file again.
PIPELINE_VERSION = EXTRACTOR_VERSION + code_version(_HERE / "explain", _HERE / "codec.py")


def index_source(
    spec: str,
    store: Store,
    *,
    code_paths: tuple[str, ...] | None = None,
    workers: int | None = None,
    use_cache: bool = True,
    force: bool = False,
    progress: Progress | None = None,
    pause_gc: bool = False,
    native: bool = True,
) -> IndexResult:
    """Index SOURCE `spec` into `store` and return what was done.

    `code_paths` overrides which folders/modules hold the package code; `native` False
    leaves the native sources (C, C++, CUDA, Rust) out. An unchanged tree already in the
    store is left as it is unless `force`. `pause_gc` pauses this
    process's cyclic garbage collector while the sites are linked, explained and
    written (much faster; see _no_cycle_collector): only for a process that is errdex's
    own (the CLI, a batch task, the hook's background job), never in someone else's,
    whose threads would run without it meanwhile. Raises SourceError subclasses for bad
    sources (PathOutsideTree, NotFoundError for a `code_paths` entry) and StoreError
    when the store cannot be written.
    """
    started = time.perf_counter()
    caches = cache_root()
    snapshot = sources.resolve(
        spec,
        cache_dir=caches,
        progress=None if progress is None else lambda d, t: progress("download", d, t),
    )
    resolved = time.perf_counter() - started
    if code_paths is not None:
        snapshot = dataclasses.replace(snapshot, code_paths=_inside(snapshot.root, code_paths))
    return index_snapshot(
        snapshot,
        store,
        cache_path=caches / "facts.sqlite" if use_cache else None,
        workers=workers,
        force=force,
        progress=progress,
        started=started,
        phases=(("resolve", resolved),),
        pause_gc=pause_gc,
        native=native,
    )


def _inside(root: Path, code_paths: tuple[str, ...]) -> tuple[str, ...]:
    """The code paths, each checked to exist inside `root` (no `..` or absolute escape)."""
    top = root.resolve()
    for code_path in code_paths:
        target = (root / code_path).resolve()
        if not target.is_relative_to(top):
            raise PathOutsideTree(code_path, root)
        if not target.exists():
            raise NotFoundError(f"no file or folder {code_path!r} under {root}")
    return code_paths


def index_snapshot(
    snapshot: Snapshot,
    store: Store,
    *,
    cache_path: Path | None,
    workers: int | None = None,
    force: bool = False,
    progress: Progress | None = None,
    started: float | None = None,
    phases: tuple[tuple[str, float], ...] = (),
    pause_gc: bool = False,
    native: bool = True,
) -> IndexResult:
    """Extract `snapshot` and write it to `store` in one transaction. The result says
    how long each phase took, after `phases` (what the caller did first); `pause_gc` as
    for index_source."""
    started = time.perf_counter() if started is None else started
    clock = _Clock(phases)
    cache: SqliteFactsCache | None = None if cache_path is None else SqliteFactsCache(cache_path)
    facts_cache: FactsCache = NoCache() if cache is None else cache
    try:
        tree = scan(snapshot, facts_cache, native=native)
        clock.done("scan")
        state = store.snapshot_state(snapshot.package, snapshot.version)
        if not force and state == (tree.tree_hash, PIPELINE_VERSION):
            stored = next(
                s
                for s in store.snapshots()
                if (s.package, s.version) == (snapshot.package, snapshot.version)
            )
            return IndexResult(
                snapshot=snapshot,
                sites=(),
                site_count=stored.sites,
                files=stored.files,
                parsed=0,
                skipped=stored.skipped,
                seconds=time.perf_counter() - started,
                unchanged=True,
                phases=clock.phases,
            )
        # what parses and explains is not needed when nothing changed
        from errdex.explain import explain
        from errdex.extract.pipeline import extract

        with _no_cycle_collector(pause_gc):
            extraction = extract(
                snapshot,
                tree,
                facts_cache,
                workers=workers,
                progress=None if progress is None else lambda d, t: progress("parse", d, t),
            )
            clock.done("parse and link")
            found = len(extraction.sites)
            if progress:  # explain and write say only when they start and end
                progress("explain", 0, found)
            explained, unexplained = _explained(explain, extraction, snapshot, cache)
            sites = explained.sites
            clock.done("explain")
            if progress:
                progress("explain", found, found)
    finally:
        facts_cache.close()
    if progress:
        progress("write", 0, len(sites))
    with _no_cycle_collector(pause_gc):
        store.write_snapshot(
            snapshot,
            sites,
            files=extraction.files,
            skipped=(*extraction.skipped, *unexplained),
            tree_hash=extraction.tree_hash,
            extractor=PIPELINE_VERSION,
            digests=tree.files,
        )
    clock.done("write")
    if progress:
        progress("write", len(sites), len(sites))
    return IndexResult(
        snapshot=snapshot,
        sites=sites,
        site_count=len(sites),
        files=extraction.files,
        parsed=extraction.parsed,
        skipped=(*extraction.skipped, *unexplained),
        seconds=time.perf_counter() - started,
        phases=clock.phases,
        reused=explained.reused,
        native=extraction.native,
    )


# How many explains of a part of the sites may be spent finding those whose explanation
# fails (halving the sites each time: about 2 log2(n) per failing site).
_MAX_TRIES = 64


def _explained(
    explain: Callable[[Extraction, Snapshot, ProseCache | None], Explained],
    extraction: Extraction,
    snapshot: Snapshot,
    cache: ProseCache | None,
) -> tuple[Explained, tuple[SkippedFile, ...]]:
    """`explain` of the extraction; when it fails, the sites whose explanation fails are
    found (by halving), kept with an explanation that says so, and recorded in what the
    snapshot skipped, and every other site is explained as it would be: one site's
    failure never fails the package. A failure that no part of the sites alone shows (or
    that takes more than _MAX_TRIES explains to pin down) is raised as it came."""
    try:
        return explain(extraction, snapshot, cache), ()
    except Exception as failure:
        first = failure
    sites = extraction.sites
    tries = _MAX_TRIES

    def fails(part: list[int]) -> Exception | None:
        nonlocal tries
        if tries == 0:
            raise first
        tries -= 1
        try:
            explain(_only(extraction, part), snapshot, cache)
        except Exception as exc:
            return exc
        return None

    failing: dict[int, Exception] = {}
    todo: list[tuple[list[int], Exception]] = [(list(range(len(sites))), first)]
    while todo:
        part, why = todo.pop()
        if len(part) == 1:
            failing[part[0]] = why
            continue
        half = len(part) // 2
        found = [(piece, fails(piece)) for piece in (part[:half], part[half:])]
        todo += [(piece, exc) for piece, exc in found if exc is not None]
    if not failing:
        raise first
    from errdex.explain import Explained

    rest = _only(extraction, [i for i in range(len(sites)) if i not in failing])
    done = iter(explain(rest, snapshot, cache).sites)
    out = [
        _unexplained(site, failing[i]) if i in failing else next(done)
        for i, site in enumerate(sites)
    ]
    said = tuple(
        SkippedFile(
            path=sites[i].location.file,
            reason=f"the {sites[i].exception.name} at line {sites[i].location.line} is indexed"
            f" without an explanation: errdex could not explain it ({_said(exc)}); please report",
        )
        for i, exc in sorted(failing.items())
    )
    return Explained(sites=tuple(out), reused=0), said


def _only(extraction: Extraction, chosen: list[int]) -> Extraction:
    """The extraction with only its sites at `chosen` (and what goes with each site)."""
    written = extraction.written
    return dataclasses.replace(
        extraction,
        sites=tuple(extraction.sites[i] for i in chosen),
        written=tuple(written[i] for i in chosen) if written else (),
    )


def _said(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def _unexplained(site: ErrorSite, why: Exception) -> ErrorSite:
    """`site` with an explanation that says errdex could not make one, and why."""
    text = site.message.text.strip() if site.message is not None else ""
    title = (text.splitlines()[0][:80] if text else "") or site.exception.name
    explanation = Explanation(
        title=title,
        what_it_means=f"errdex could not explain this error ({_said(why)}); this is a bug in"
        " errdex, please report it. The raise, its message and its conditions are as read"
        " from the code.",
        when_it_happens="",
    )
    return dataclasses.replace(site, explanation=explanation)


@contextlib.contextmanager
def _no_cycle_collector(pause: bool) -> Iterator[None]:
    """Python's cyclic collector paused, when `pause` (else nothing is done): linking,
    explaining and writing make millions of small objects (no cycles among them) beside
    the millions the facts already are, and each collection walks them all (some 40% of
    explain's time on vllm).

    On the way out they are moved to the oldest generation (a freeze and unfreeze) before
    the collector is on again: else its first collection, due at once, walks every
    object made meanwhile as young (2 s after explaining vllm, at load 6). Both would
    change the state of a process that is not errdex's own (and the unfreeze undoes a
    server's own gc.freeze()): the caller says whether it is."""
    if not pause:
        yield
        return
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


class _Clock:
    """Wall seconds of each phase, in order: each `done` ends one and starts the next."""

    def __init__(self, before: tuple[tuple[str, float], ...]) -> None:
        self.phases = before
        self._mark = time.perf_counter()

    def done(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases = (*self.phases, (phase, now - self._mark))
        self._mark = now


def index_all_versions(
    name: str,
    store: Store,
    *,
    since: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    pause_gc: bool = False,
) -> list[IndexResult]:
    """Index every stable release of PyPI package `name` (from `since` on) not yet stored.

    Releases already in the store are skipped without a download. Returns what was
    indexed, oldest first. Raises SourceError subclasses as `index_source` does.
    """
    try:
        floor = None if since is None else Version(since)
    except InvalidVersion:
        raise SourceError(f"{since!r} is not a version (e.g. 0.27.0)") from None
    versions = sources.pypi_versions(name)
    if floor is not None:
        versions = [v for v in versions if Version(v) >= floor]
    stored = {(s.package, s.version) for s in store.snapshots()}
    package = canonicalize_name(name)
    todo = [v for v in versions if (package, v) not in stored]
    results = []
    for done, version in enumerate(todo):
        if progress:
            progress("versions", done, len(todo))
        results.append(
            index_source(f"pypi:{name}=={version}", store, workers=workers, pause_gc=pause_gc)
        )
    if progress:
        progress("versions", len(todo), len(todo))
    return results


@dataclass(frozen=True, slots=True)
class Reexplained:
    """What `explain_stored` did with one stored snapshot: its new result, or why it
    was left as it was."""

    package: str
    version: str
    result: IndexResult | None = None
    left: str | None = None  # why the snapshot was not explained again


def explain_stored(
    store: Store,
    *,
    package: str | None = None,
    version: str | None = None,
    progress: Progress | None = None,
    pause_gc: bool = False,
) -> list[Reexplained]:
    """Explain every stored snapshot again (or those of `package`, at `version`) with
    this errdex's explainer, from the per-file facts cache: a file is parsed only when
    the cache lacks its facts (each result's `parsed` says how many were). A snapshot
    whose tree is no longer the one stored (a folder edited since, a `--path` index) is
    left as it is, with the reason. Raises NotFoundError when nothing stored matches,
    SourceError subclasses when a source cannot be had again."""
    wanted = None if package is None else canonicalize_name(package)
    chosen = [
        s
        for s in store.snapshots()
        if (wanted is None or s.package == wanted) and (version is None or s.version == version)
    ]
    if not chosen:
        what = "no snapshot" if package is None else f"no snapshot of {package}"
        raise NotFoundError(f"{what}{'' if version is None else ' ' + version} in the store")
    caches = cache_root()
    out: list[Reexplained] = []
    for stored in chosen:
        snapshot = sources.resolve(stored.source, cache_dir=caches)
        cache = SqliteFactsCache(caches / "facts.sqlite")
        try:
            tree = scan(snapshot, cache)
        finally:
            cache.close()
        state = store.snapshot_state(stored.package, stored.version)
        same_extractor = state is not None and state[1].startswith(EXTRACTOR_VERSION)
        if state is not None and same_extractor and state[0] != tree.tree_hash:
            out.append(
                Reexplained(
                    package=stored.package,
                    version=stored.version,
                    left=f"its files are not those indexed from {stored.source} (edited "
                    "since, or indexed with --path or --whole-tree): index it again instead",
                )
            )
            continue
        result = index_snapshot(
            snapshot,
            store,
            cache_path=caches / "facts.sqlite",
            force=True,
            progress=progress,
            pause_gc=pause_gc,
        )
        out.append(Reexplained(package=stored.package, version=stored.version, result=result))
    return out
