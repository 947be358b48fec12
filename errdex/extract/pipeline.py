# The extract stage's run over a tree: parse what the facts cache lacks, in worker
# processes when there are enough files, and link the sites across files; the tests are
# scanned in a worker meanwhile.
from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from errdex.extract import Extraction, TreeScan, process_context, worker_init
from errdex.extract.cache import FactsCache, Outcome, facts_key, pack, unpack
from errdex.extract.cython import join_units
from errdex.extract.elsewhere import ElsewhereFailed, Interpreter, newer_python, parse_elsewhere
from errdex.extract.facts import FileFacts
from errdex.extract.files import MAX_FILE_BYTES, module_name
from errdex.extract.link import linked
from errdex.extract.packing import Unreadable
from errdex.extract.parse import UNPARSED, Skip, parse_file
from errdex.extract.tests import scan_tests
from errdex.model import SkippedFile, Snapshot, TestFile
from errdex.sources.reading import is_clean_name, read_regular

Progress = Callable[[int, int], None]
# a parsed file's outcome, and what its worker packed of it for the facts cache (None when
# it was parsed here, or again elsewhere)
Parsed = tuple[Outcome, bytes | None]
_PARALLEL_FROM = 48  # below this many files, worker start-up costs more than it saves
_BATCH = 24
# A file this big is parsed alone, and only one such file is in flight at a time: an AST
# takes up to some 180 times its file's size, and workers parsing several at once add up.
BIG_FILE_BYTES = 1024 * 1024


def extract(
    snapshot: Snapshot,
    tree: TreeScan,
    cache: FactsCache,
    *,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Extraction:
    """Return every error site of the scanned tree, parsing only what the cache lacks,
    and what the snapshot's test files expect.

    The test scan runs after the parse, not beside it in a thread: CPython 3.11's parser
    is not safe in two threads at once (`SystemError: AST constructor recursion depth
    mismatch`), and a file lost that way would be reported as one we could not read. When
    the parse has worker processes, one of them scans the tests while this one links."""
    extraction, found = _extract(snapshot, tree, cache, workers, progress)
    # a test file whose name is not UTF-8 cannot be named in a record: left out
    tests = tuple(test for test in found if is_clean_name(test.path))
    return dataclasses.replace(extraction, tests=tests)


_OUR_FAILURE = "errdex could not analyse it"


def _our_failure(outcome: Outcome) -> bool:
    return isinstance(outcome, str) and (
        outcome.startswith(_OUR_FAILURE) or outcome == "out of memory while parsing"
    )


def _extract(
    snapshot: Snapshot,
    tree: TreeScan,
    cache: FactsCache,
    workers: int | None,
    progress: Progress | None,
) -> tuple[Extraction, tuple[TestFile, ...]]:
    keys = {rel: facts_key(rel, file_digest) for rel, file_digest in tree.files}
    cached = cache.load(list(keys.values()))  # packed: unpacked while the rest is parsed
    todo = [rel for rel, key in keys.items() if key not in cached]
    total = len(keys)
    if progress:
        progress(total - len(todo), total)
    outcomes: dict[str, Outcome] = {}
    damaged: list[str] = []

    def unpack_cached() -> None:
        for rel, key in keys.items():
            data = cached.get(key)
            if data is not None:
                try:
                    outcomes[rel] = unpack(data)
                except Exception:  # a stale or damaged entry is just a miss: parsed
                    damaged.append(rel)

    workers = workers or os.cpu_count() or 1
    with _pool(workers if len(todo) >= _PARALLEL_FROM else 1) as pool:
        parsed = _parse_all(
            pool,
            snapshot.root,
            todo,
            lambda n: progress and progress(n, total),
            total - len(todo),
            meanwhile=unpack_cached,
        )
        if damaged:
            parsed.update(_parse_all(None, snapshot.root, damaged, lambda n: None, 0))
        # tree-sitter only here: a newer Python that parses for us imports this module
        from errdex.extract.native.run import NativeJob

        native = NativeJob(pool, snapshot.root, tree.native, cache)  # parsed meanwhile
        # the tests are scanned in a worker (they only need the files) while this
        # process links the sites
        tests = None if pool is None else pool.submit(_scan_tests_in, snapshot.root, cache.opener())
        extraction = _link(snapshot, tree, cache, keys, outcomes, parsed, workers)
        extraction = native.join(extraction, snapshot.package, tree.native_unreadable)
        found = scan_tests(snapshot.root, cache) if tests is None else tests.result()
    return extraction, found


def _scan_tests_in(root: Path, open_cache: Callable[[], FactsCache]) -> tuple[TestFile, ...]:
    """scan_tests, in a worker: with a connection of its own to the cache."""
    cache = open_cache()
    try:
        return scan_tests(root, cache)
    finally:
        cache.close()


def _link(
    snapshot: Snapshot,
    tree: TreeScan,
    cache: FactsCache,
    keys: dict[str, str],
    outcomes: dict[str, Outcome],
    parsed: dict[str, Parsed],
    workers: int,
) -> Extraction:
    """The sites of the tree, from the outcomes of the cached files and the `parsed` ones
    (those the running parser refused are tried with a newer Python first)."""
    total = len(keys)
    refusals = {rel: outcome for rel, (outcome, _) in parsed.items() if _unparsed(outcome)}
    python = newer_python() if refusals else None
    for rel, outcome in _parse_newer(python, snapshot.root, refusals, workers).items():
        parsed[rel] = (outcome, None)  # what its worker packed was the refusal
    outcomes.update((rel, outcome) for rel, (outcome, _) in parsed.items())
    # a file we failed on (a bug of ours, memory) is tried again next time, not cached; so
    # is one that no newer Python here could try (one may be installed by the next index)
    cache.save(
        (keys[rel], data)
        for rel, (outcome, packed) in parsed.items()
        if not _our_failure(outcome) and not (_unparsed(outcome) and isinstance(python, str))
        for data in (packed or pack(outcome),)
        if data  # empty: what the cache cannot keep
    )
    facts: list[FileFacts] = []
    parsed_paths: list[str] = []
    skipped = list(tree.unreadable)
    for rel, _ in tree.files:
        outcome = outcomes[rel]
        if isinstance(outcome, str):
            skipped.append(SkippedFile(path=rel, reason=outcome))
        else:
            facts.append(outcome)
            parsed_paths.append(rel)

    def revisit(rel: str, module: str, lines: frozenset[int]) -> FileFacts | None:
        try:
            data = read_regular(snapshot.root / rel, MAX_FILE_BYTES + 1)
            return parse_file(data, rel, module, want_calls=lines)
        except OSError:
            return None
        except Skip as exc:
            if not (isinstance(python, Interpreter) and _unparsed(str(exc))):
                return None
        try:
            again = parse_elsewhere(python, str(snapshot.root), [rel], want_calls=lines)
        except ElsewhereFailed:
            return None
        outcome = again.get(rel)
        return outcome if isinstance(outcome, FileFacts) else None

    return linked(
        snapshot.package,
        join_units(facts),  # a Cython module's .pyx, .pxd and included .pxi made one
        revisit,
        files=total + len(tree.unreadable),
        parsed=len(parsed),
        skipped=skipped,
        tree_hash=tree.tree_hash,
        file_keys=tuple((f.path, keys[rel]) for rel, f in zip(parsed_paths, facts, strict=True)),
    )


def parse_batch(
    root: str, paths: list[str], *, want_calls: frozenset[int] = frozenset()
) -> list[tuple[str, Outcome]]:
    """Parse files under `root`; one bad file never stops the rest."""
    return [(rel, _parse_one(root, rel, want_calls)) for rel in paths]


def _parse_packed(root: str, paths: list[str]) -> list[tuple[str, bytes, Outcome | None]]:
    """parse_batch, each outcome packed for the cache (a worker's job: the parent then
    only unpacks, which it would have had to do with what the pool sends anyway); one
    the cache cannot keep is handed back as it is (the pool pickles it, between our own
    processes), with no packed bytes."""
    out: list[tuple[str, bytes, Outcome | None]] = []
    for rel, outcome in parse_batch(root, paths):
        packed = pack(outcome)
        out.append((rel, packed, None if packed else outcome))
    return out


def _parse_one(root: str, rel: str, want_calls: frozenset[int]) -> Outcome:
    try:
        data = read_regular(os.path.join(root, rel), MAX_FILE_BYTES + 1)
        return parse_file(data, rel, module_name(rel), want_calls=want_calls)
    except Skip as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    except MemoryError:
        return "out of memory while parsing"
    except Exception as exc:  # a bug of ours meeting odd code: skip the file, say so
        return f"{_OUR_FAILURE} ({type(exc).__name__}: {exc}); please report"


def _unparsed(outcome: Outcome) -> bool:
    """Whether the running Python's parser refused the file (a newer one may not)."""
    return isinstance(outcome, str) and outcome.startswith(UNPARSED)


def _parse_newer(
    python: Interpreter | str | None, root: Path, refused: dict[str, Outcome], workers: int
) -> dict[str, Outcome]:
    """The outcomes of the files the running parser `refused`, as the newer `python` sees
    them; when there is none, the refusals with the reason why no other Python tried."""
    if python is None or not refused:
        return {}
    if isinstance(python, str):
        return {rel: f"{refusal}; {python}" for rel, refusal in refused.items()}
    try:
        return parse_elsewhere(python, str(root), list(refused), workers=workers)
    except ElsewhereFailed as exc:
        return {rel: f"{_OUR_FAILURE} ({exc}); please report" for rel in refused}


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor | None]:
    """Worker processes for the parse, or None for one worker (this process).

    ASTs hold no reference cycles: the workers (our own processes, alive for this index
    only) run without the cyclic collector, which only slows their creation. They also
    end when this process does, even by kill -9 (see worker_init)."""
    if workers == 1:
        yield None
        return
    with ProcessPoolExecutor(
        workers, mp_context=process_context(), initializer=worker_init, initargs=(os.getpid(),)
    ) as pool:
        yield pool


def _parse_all(
    pool: ProcessPoolExecutor | None,
    root: Path,
    paths: list[str],
    progress: Callable[[int], object],
    done: int,
    meanwhile: Callable[[], None] = lambda: None,
) -> dict[str, Parsed]:
    """The outcome of each of `paths`, with what a worker packed of it for the cache;
    `meanwhile` is run here once the workers have their files (first, without any)."""
    results: dict[str, Parsed] = {}
    if pool is None:
        meanwhile()
        for rel in paths:
            results.update((r, (outcome, None)) for r, outcome in parse_batch(str(root), [rel]))
            progress(done + len(results))
        return results
    sizes = {rel: _size(root / rel) for rel in paths}
    by_size = sorted(paths, key=sizes.__getitem__, reverse=True)
    big = [rel for rel in by_size if sizes[rel] >= BIG_FILE_BYTES]
    small = by_size[len(big) :]
    batches = [small[i : i + _BATCH] for i in range(0, len(small), _BATCH)]
    # The big files one after another (in one worker at a time), beside the batches.
    pending: set[Future[list[tuple[str, bytes, Outcome | None]]]] = set()
    if big:
        pending.add(pool.submit(_parse_packed, str(root), [big.pop(0)]))
    pending.update(pool.submit(_parse_packed, str(root), batch) for batch in batches)
    meanwhile()
    while pending:
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            answers = future.result()
            results.update((rel, _received(root, rel, data, kept)) for rel, data, kept in answers)
            if big and any(sizes[rel] >= BIG_FILE_BYTES for rel, _, _ in answers):
                pending.add(pool.submit(_parse_packed, str(root), [big.pop(0)]))
        progress(done + len(results))
    return results


def _received(root: Path, rel: str, data: bytes, kept: Outcome | None) -> Parsed:
    """What a worker sent of one file: its packed outcome, unpacked, or the outcome
    itself when the cache cannot keep it; parsed here again if what was packed cannot be
    read back (nested deeper than the reader goes)."""
    if kept is not None:
        return kept, None
    try:
        return unpack(data), data
    except Unreadable:
        return parse_batch(str(root), [rel])[0][1], None


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
