# Shared pieces of the benchmarks: timing subprocesses, medians, markdown tables.
from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

BIN = Path(sys.executable).parent
RESULTS = Path(__file__).parent / "results"


# Runs a command and prints, last on stderr, its wall seconds, the peak RSS of its
# largest process and the CPU seconds (user and system) of all its processes and threads:
# a fresh wrapper per run, so runs do not mix, and the clock read in the wrapper, so the
# wrapper's own start is not counted.
_PEAK = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:])\n"
    "seconds = time.perf_counter() - start\n"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(seconds, used.ru_maxrss, used.ru_utime + used.ru_stime, file=sys.stderr)\n"
    "sys.exit(done.returncode)\n"
)


class Timing(NamedTuple):
    seconds: float  # wall
    peak: int  # KiB, the largest process of the run
    cpu: float  # seconds, user and system, of every process and thread of the run


def run_timed(
    cmd: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> Timing:
    """Wall seconds, peak RSS and CPU seconds of one command (see _PEAK)."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *cmd],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    seconds, peak, cpu = done.stderr.strip().splitlines()[-1].split()
    return Timing(float(seconds), int(peak), float(cpu))


def timed(
    cmd: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, int]:
    """Wall seconds and peak RSS in KiB (largest process of the run) of one command."""
    timing = run_timed(cmd, cwd=cwd, env=env)
    return timing.seconds, timing.peak


def as_installed() -> None:
    """Write errdex's bytecode, as `pip install` does. An editable checkout run with
    PYTHONDONTWRITEBYTECODE (as on our CI machines) would otherwise compile every module
    of errdex from source at each start, which no installed copy does."""
    import compileall

    import errdex

    compileall.compile_dir(Path(errdex.__file__).parent, quiet=1)


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
