# Shared pieces of the benchmarks: timing subprocesses, medians, markdown tables.
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

BIN = Path(sys.executable).parent
RESULTS = Path(__file__).parent / "results"


def timed(
    cmd: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB, largest process of the run) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(
        cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) if peak > before else peak


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def save(name: str, text: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / name).write_text(text + "\n")
    print(text)
