# Cold index, unchanged re-index and peak memory on vllm 0.28.0's package tree, each
# beside ast-grep finding `raise $E` on the same tree (which finds raise statements only).
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.common import BIN, median, save, table, timed
from errdex.sources import resolve

RUNS = 5


def main() -> None:
    root = resolve("pypi:vllm==0.28.0").root
    ast_grep = shutil.which("ast-grep") or str(BIN / "ast-grep")
    errdex = [sys.executable, "-m", "errdex"]
    grep_times, grep_peaks, cold, cold_peaks, warm = [], [], [], [], []
    for _ in range(RUNS):
        seconds, peak = timed([ast_grep, "run", "-p", "raise $E", "-l", "python", "vllm"], cwd=root)
        grep_times.append(seconds)
        grep_peaks.append(peak)
        with tempfile.TemporaryDirectory() as scratch:
            env = {"ERRDEX_CACHE": str(Path(scratch) / "cache"), "CI": "1"}
            db = str(Path(scratch) / "db.sqlite")
            index = [*errdex, "index", str(root), "--path", "vllm", "--db", db]
            seconds, peak = timed(index, env=env)
            cold.append(seconds)
            cold_peaks.append(peak)
            warm.append(min(timed(index, env=env)[0] for _ in range(3)))
    rows = [
        [
            "cold index (s)",
            f"{median(cold):.2f}",
            f"{median(grep_times):.2f}",
            f"{median(cold) / median(grep_times):.2f}",
        ],
        [
            "re-index, nothing changed (s)",
            f"{median(warm):.3f}",
            f"{median(grep_times):.2f}",
            f"{median(warm) / median(grep_times):.3f}",
        ],
        [
            "peak memory, largest process (MiB)",
            f"{median(cold_peaks) / 1024:.0f}",
            f"{median(grep_peaks) / 1024:.0f}",
            f"{median(cold_peaks) / median(grep_peaks):.1f}",
        ],
    ]
    save(
        "index.md",
        f"vllm 0.28.0, `vllm/` (2,239 files); medians of {RUNS} runs\n\n"
        + table(rows, ["measure", "errdex", "ast-grep `raise $E`", "ratio"]),
    )


if __name__ == "__main__":
    main()
