# The extract stage: read a snapshot's package files (never import them) and yield its
# error sites. `scan` digests the files (all an unchanged re-index needs, so this module
# imports nothing that parses); `pipeline.extract` parses what the cache lacks in worker
# processes and links the sites. Results are cached by content hash, so a re-index parses
# only files whose content changed. A file whose syntax is newer than the running
# Python's is handed to the newest Python here (elsewhere.py).
from __future__ import annotations

import gc
import hashlib
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from errdex.extract.cache import EXTRACTOR_VERSION, FactsCache, digest_walk
from errdex.extract.files import walk_files
from errdex.extract.native import NATIVE_VERSION, scan_native
from errdex.model import ErrorSite, SkippedFile, Snapshot, TestFile

if TYPE_CHECKING:  # a scan, all an unchanged re-index does, needs neither the facts' classes
    # nor worker processes
    import multiprocessing.context

    from errdex.extract.facts import FileFacts

__all__ = [
    "EXTRACTOR_VERSION",
    "Extraction",
    "TreeScan",
    "end_with_parent",
    "process_context",
    "scan",
    "worker_init",
]

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@dataclass(frozen=True, slots=True)
class TreeScan:
    """The package files of a snapshot with their content digests."""

    files: tuple[tuple[str, str], ...]  # (relative path, digest)
    unreadable: tuple[SkippedFile, ...]
    tree_hash: str
    # the native sources (C, C++, CUDA, Rust; see extract/native/) and those unreadable
    native: tuple[tuple[str, str], ...] = ()
    native_unreadable: tuple[SkippedFile, ...] = ()


@dataclass(frozen=True, slots=True)
class Extraction:
    sites: tuple[ErrorSite, ...]
    facts: tuple[FileFacts, ...]  # what each parsed file declares, for later stages
    tests: tuple[TestFile, ...]  # what the snapshot's tests expect, for explain
    files: int
    parsed: int
    skipped: tuple[SkippedFile, ...]
    tree_hash: str
    # each parsed file's facts_key: what its facts are a function of, for later stages
    # that reuse what they made of them
    file_keys: tuple[tuple[str, str], ...] = ()
    # each site's exception as its raise writes it, resolved through imports (`self._err`,
    # `mapped`: see Linker.written), for explain's finding of tests; () when not known
    written: tuple[str, ...] = ()
    # (language, files, sites) of the native sources, whose sites follow the Python ones
    native: tuple[tuple[str, int, int], ...] = ()
    native_parsed: int = 0  # native files parsed this run (the rest came from the cache)
    # (site id, call paths): the native callers from a function Python can call to a
    # native site, nearest first, each path ending at the name Python calls
    native_reach: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()


def scan(snapshot: Snapshot, cache: FactsCache, *, native: bool = True) -> TreeScan:
    """Digest every package file (and, unless not `native`, every native source file);
    unchanged files (same size and mtime) are not read.

    Entries the walk cannot use (a link out of the tree, a FIFO, a name that is not
    UTF-8) and files over MAX_FILE_BYTES are in `unreadable`, with the reason.
    """
    walk = walk_files(snapshot.root, snapshot.code_paths)
    files, unreadable = digest_walk(snapshot.root, walk, cache)
    natives, native_unreadable = scan_native(snapshot, cache) if native else ([], [])
    tree = hashlib.blake2b(EXTRACTOR_VERSION.encode(), digest_size=16)
    for rel, file_digest in files:
        tree.update(f"{rel}\0{file_digest}\n".encode())
    if natives or native_unreadable:
        tree.update(NATIVE_VERSION.encode())
        for rel, file_digest in natives:
            tree.update(f"{rel}\0{file_digest}\n".encode())
    return TreeScan(
        files=tuple(files),
        unreadable=tuple(unreadable),
        tree_hash=tree.hexdigest(),
        native=tuple(natives),
        native_unreadable=tuple(native_unreadable),
    )


def worker_init(parent: int) -> None:
    """Set up a parse worker: no cyclic collector, and an end when `parent` (the process
    that started it) ends, even by SIGKILL, so no worker outlives an interrupted index.

    On Linux the kernel sends the worker SIGKILL when its parent dies (PR_SET_PDEATHSIG);
    elsewhere a daemon thread checks every second that the parent is still there.
    """
    gc.disable()
    end_with_parent(parent)


def end_with_parent(parent: int) -> None:
    """Make this worker process end when `parent` does, even by SIGKILL (see
    worker_init): for every pool of errdex's, the parse's and the export's alike."""
    if not _die_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only in workers: it costs start-up time

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def process_context() -> multiprocessing.context.BaseContext:
    """How worker processes start (the parsers here, the export's renderers): fork, in
    milliseconds, while this process runs one thread, when it is safe; else spawn."""
    import multiprocessing

    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")
