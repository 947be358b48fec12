# Cold index, unchanged re-index, CPU and peak memory on vllm 0.28.0's package tree,
# each beside ast-grep finding `raise $E` on the same tree (which finds raise statements
# only); then where a cold parse's time goes, in one process: CPython's parser alone
# against errdex's whole per-file analysis, against tree-sitter's Python parser (the one
# ast-grep is built on) and against ast-grep's whole CPU, and what a sparse path (files
# without `raise` or `assert` only feeding the call graph) could save at most.
from __future__ import annotations

import ast
import gc
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import tree_sitter
import tree_sitter_python

from benchmarks.common import BIN, Timing, as_installed, median, run_timed, save, table, timed
from errdex.extract.files import walk_files
from errdex.extract.pipeline import parse_batch
from errdex.sources import resolve

RUNS = 5


def main() -> None:
    as_installed()
    root = resolve("pypi:vllm==0.28.0").root
    ast_grep = shutil.which("ast-grep") or str(BIN / "ast-grep")
    errdex = [sys.executable, "-m", "errdex"]
    greps: list[Timing] = []
    colds: list[Timing] = []
    warm: list[float] = []
    for _ in range(RUNS):
        greps.append(
            run_timed([ast_grep, "run", "-p", "raise $E", "-l", "python", "vllm"], cwd=root)
        )
        with tempfile.TemporaryDirectory() as scratch:
            env = {"ERRDEX_CACHE": str(Path(scratch) / "cache"), "CI": "1"}
            db = str(Path(scratch) / "db.sqlite")
            index = [*errdex, "index", str(root), "--path", "vllm", "--db", db]
            colds.append(run_timed(index, env=env))
            warm.append(min(timed(index, env=env)[0] for _ in range(3)))
    grep, cold = _medians(greps), _medians(colds)
    rows = [
        [
            "cold index (s)",
            f"{cold.seconds:.2f}",
            f"{grep.seconds:.2f}",
            f"{cold.seconds / grep.seconds:.2f}",
        ],
        [
            "cold index, CPU of every process and thread (s)",
            f"{cold.cpu:.2f}",
            f"{grep.cpu:.2f}",
            f"{cold.cpu / grep.cpu:.2f}",
        ],
        [
            "re-index, nothing changed (s)",
            f"{median(warm):.3f}",
            f"{grep.seconds:.2f}",
            f"{median(warm) / grep.seconds:.3f}",
        ],
        [
            "peak memory, largest process (MiB)",
            f"{cold.peak / 1024:.0f}",
            f"{grep.peak / 1024:.0f}",
            f"{cold.peak / grep.peak:.1f}",
        ],
    ]
    files = len(list(walk_files(root, ("vllm",)).paths))  # as `errdex index` counts them
    save(
        "index.md",
        f"vllm 0.28.0, `vllm/` ({files:,} files); medians of {RUNS} runs\n\n"
        + table(rows, ["measure", "errdex", "ast-grep `raise $E`", "ratio"])
        + "\n\n"
        + parse_breakdown(root, grep.cpu),
    )


def _medians(runs: list[Timing]) -> Timing:
    """Each measure's median over `runs` (an odd number: the peak is one run's)."""
    return Timing(
        median([r.seconds for r in runs]),
        int(median([r.peak for r in runs])),
        median([r.cpu for r in runs]),
    )


_RAISES = re.compile(rb"\b(?:raise|assert)\b")


def parse_breakdown(root: Path, grep_cpu: float, runs: int = 3) -> str:
    """CPU seconds, in one process without the cyclic collector (as a parse worker runs),
    of ast.parse alone, of tree-sitter's Python parser alone and of errdex's parse_file
    over the same files, beside `grep_cpu` (ast-grep's whole scan); and the files that hold
    no `raise` or `assert` at all, by count and by bytes."""
    paths = list(walk_files(root, ("vllm",)).paths)
    sources = [(root / p).read_bytes() for p in paths]
    bare = [data for data in sources if not _RAISES.search(data)]
    parser, other, whole = [], [], []
    tree_sitter_parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
    gc.disable()
    try:
        for _ in range(runs):
            start = time.process_time()
            for data in sources:
                ast.parse(data)
            parser.append(time.process_time() - start)
            start = time.process_time()
            for data in sources:
                tree_sitter_parser.parse(data)
            other.append(time.process_time() - start)
            start = time.process_time()
            parse_batch(str(root), paths)
            whole.append(time.process_time() - start)
    finally:
        gc.enable()
    rows = [
        ["CPython's parser alone (ast.parse)", f"{median(parser):.2f}", "1.00"],
        [
            "tree-sitter's Python parser alone, ast-grep's (no tree walked)",
            f"{median(other):.2f}",
            f"{median(other) / median(parser):.2f}",
        ],
        [
            "errdex parse_file (parse + analysis)",
            f"{median(whole):.2f}",
            f"{median(whole) / median(parser):.2f}",
        ],
        [
            "ast-grep `raise $E`, its whole scan (every thread)",
            f"{grep_cpu:.2f}",
            f"{grep_cpu / median(parser):.2f}",
        ],
    ]
    share = sum(map(len, bare)) / sum(map(len, sources))
    return (
        f"Where a cold parse's time goes: CPU seconds in one process, medians of {runs}\n\n"
        + table(rows, ["over every file of `vllm/`", "CPU s", "× the parser"])
        + f"\n\n{len(bare):,} of {len(sources):,} files hold no `raise` or `assert` ("
        f"{share:.0%} of the bytes): a sparse path that only took their call-graph facts"
        " could save at most that share of the analysis, so errdex keeps one path.\n"
    )


if __name__ == "__main__":
    main()
