# What reading Cython costs and finds, on pandas 3.1.1's sdist: the cold index of the
# whole tree beside the cold index of the same tree without its .pyx, .pxd and .pxi files
# (the Python-only index errdex made before it read Cython), both without the native
# sources (`--no-native`: bench_native.py times those), run after run in the same
# process so that both meet the same machine; then the `raise` statements of the .pyx
# files, counted by Python's tokenizer, beside the sites errdex finds on their lines.
from __future__ import annotations

import io
import shutil
import sys
import tempfile
import time
import tokenize
from pathlib import Path

from benchmarks.common import Timing, as_installed, median, run_timed, save, table
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.cython_syntax import rewrite
from errdex.extract.files import walk_files
from errdex.extract.parse import decode
from errdex.extract.pipeline import extract
from errdex.languages import CYTHON_SUFFIXES
from errdex.model import Snapshot
from errdex.sources import resolve

RUNS = 5
TARGET = 1.2  # issue 38: the cold index with Cython at most this many times the Python-only


def main() -> None:
    as_installed()
    root = resolve("pypi:pandas==3.1.1").root
    with tempfile.TemporaryDirectory() as scratch:
        python_only = Path(scratch) / "python-only"
        shutil.copytree(root, python_only, ignore=_cython_files, symlinks=True)
        both: list[Timing] = []
        python: list[Timing] = []
        for number in range(RUNS):
            # alternate which goes first, so that neither always meets a warmer machine
            order = [(root, both), (python_only, python)]
            for tree, timings in order if number % 2 == 0 else order[::-1]:
                timings.append(_cold_index(tree, Path(scratch) / f"run{number}"))
    wall = median([t.seconds for t in both]) / median([t.seconds for t in python])
    cpu = median([t.cpu for t in both]) / median([t.cpu for t in python])
    rows = [
        [
            "cold index, wall (s)",
            f"{median([t.seconds for t in both]):.2f}",
            f"{median([t.seconds for t in python]):.2f}",
            f"{wall:.2f}",
        ],
        [
            "cold index, CPU of every process and thread (s)",
            f"{median([t.cpu for t in both]):.2f}",
            f"{median([t.cpu for t in python]):.2f}",
            f"{cpu:.2f}",
        ],
    ]
    save(
        "cython.md",
        f"pandas 3.1.1 sdist, its package code (`pandas/`), without native sources; "
        f"medians of {RUNS} runs, "
        f"alternating; target: at most {TARGET}\n\n"
        + table(rows, ["measure", "with Cython files", "Python files only", "ratio"])
        + "\n\n"
        + _found(root),
    )


def _cython_files(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name.endswith(CYTHON_SUFFIXES)]


def _cold_index(tree: Path, scratch: Path) -> Timing:
    """A cold `errdex index` of `tree`: a cache and a database of its own."""
    scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=scratch))
    env = {"ERRDEX_CACHE": str(folder / "cache"), "CI": "1"}
    command = [sys.executable, "-m", "errdex", "index", str(tree), "--db", str(folder / "db")]
    command.append("--no-native")
    return run_timed(command, env=env)


def _found(root: Path) -> str:
    """The .pyx files' `raise` statements (tokenize's count: every `raise` keyword, bare
    re-raises included) beside the lines of `raise` sites errdex finds in them, and the
    CPU of rewriting and parsing them."""
    paths = [p for p in walk_files(root, ("pandas",)).paths if p.endswith(".pyx")]
    raises: set[tuple[str, int]] = set()
    texts = []
    for path in paths:
        text = decode((root / path).read_bytes())
        texts.append(text)
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and token.string == "raise":
                raises.add((path, token.start[0]))
    snapshot = Snapshot(
        package="pandas", version="3.1.1", root=root, source=str(root), code_paths=("pandas/_libs",)
    )
    cache = NoCache()
    extraction = extract(snapshot, scan(snapshot, cache, native=False), cache, workers=1)
    sites = {
        (s.location.file, s.location.line)
        for s in extraction.sites
        if s.kind in ("raise", "reraise") and s.location.language == "cython"
    }
    found = len(raises & sites)
    start = time.process_time()
    for text in texts:
        rewrite(text)
    rewritten = time.process_time() - start
    return (
        f"`raise` statements in the {len(paths)} .pyx files (tokenize): {len(raises):,}; "
        f"of them errdex's sites: {found:,} ({len(raises - sites)} missed); "
        f"{len(extraction.skipped)} of {extraction.files} Cython and Python files under "
        f"`pandas/_libs` skipped. Rewriting the .pyx files for `ast` took {rewritten:.2f} "
        "CPU-s (in one process).\n"
    )


if __name__ == "__main__":
    main()
