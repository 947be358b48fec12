# Indexing end to end: SOURCE -> snapshot -> extracted sites -> explained sites -> one
# store transaction. The only module that wires the stages together.
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from packaging.version import InvalidVersion, Version

from errdex import sources
from errdex.errors import NotFoundError, PathOutsideTree, SourceError
from errdex.extract import EXTRACTOR_VERSION, extract, scan
from errdex.extract.cache import FactsCache, NoCache, code_version
from errdex.model import IndexResult, Snapshot
from errdex.names import canonical as canonicalize_name
from errdex.sources.cache import cache_root
from errdex.store import Store
from errdex.store.facts import SqliteFactsCache

Progress = Callable[[str, int, int], None]  # (phase, done, total)

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
) -> IndexResult:
    """Index SOURCE `spec` into `store` and return what was done.

    `code_paths` overrides which folders/modules hold the package code. An unchanged
    tree already in the store is left as it is unless `force`. Raises SourceError
    subclasses for bad sources (PathOutsideTree, NotFoundError for a `code_paths` entry)
    and StoreError when the store cannot be written.
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
) -> IndexResult:
    """Extract `snapshot` and write it to `store` in one transaction. The result says
    how long each phase took, after `phases` (what the caller did first)."""
    started = time.perf_counter() if started is None else started
    clock = _Clock(phases)
    cache: FactsCache = NoCache() if cache_path is None else SqliteFactsCache(cache_path)
    try:
        tree = scan(snapshot, cache)
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
        extraction = extract(
            snapshot,
            tree,
            cache,
            workers=workers,
            progress=None if progress is None else lambda d, t: progress("parse", d, t),
        )
        clock.done("parse and link")
    finally:
        cache.close()
    from errdex.explain import explain_sites  # not needed when nothing changed

    sites = explain_sites(extraction, snapshot)
    clock.done("explain")
    store.write_snapshot(
        snapshot,
        sites,
        files=extraction.files,
        skipped=extraction.skipped,
        tree_hash=extraction.tree_hash,
        extractor=PIPELINE_VERSION,
    )
    clock.done("write")
    return IndexResult(
        snapshot=snapshot,
        sites=sites,
        site_count=len(sites),
        files=extraction.files,
        parsed=extraction.parsed,
        skipped=extraction.skipped,
        seconds=time.perf_counter() - started,
        phases=clock.phases,
    )


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
        results.append(index_source(f"pypi:{name}=={version}", store, workers=workers))
    if progress:
        progress("versions", len(todo), len(todo))
    return results
