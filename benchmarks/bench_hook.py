# Benchmark of errdex.hook: what errdex adds to an uncaught exception, in wall time and
# peak memory, beside plain `python` running the same script in the same run (medians).
#
# Three real failures: requests refusing an ftp:// URL (a small distribution), transformers
# 5.25.0 without torch refusing an unknown model type (a large one, 2,951 files) and a
# pydantic v2 ValidationError (raised in compiled code, pydantic_core). For each:
# - the first failure with an empty cache and no database (errdex answers from the
#   traceback's file and starts the background index, whose time and peak memory are
#   read from its log once it has ended: it runs detached, at idle priority);
# - afterwards (indexed, the hook's answers kept): `errdex run`, `pytest --errdex` beside
#   `pytest`, and the IPython extension beside IPython (the cell's run timed in-process);
#   for requests also friendly-traceback, the anchor (another tool that explains an error
#   under its traceback).
# requests and transformers are installed by pip into folders of their own in the
# benchmarks' cache (once); pydantic is the one installed beside errdex.
#
#   python -m benchmarks.bench_hook [--runs N] [--first N] [--only requests,transformers,pydantic]
#
# --first: how many first failures (each with its background index waited for); default
# max(3, runs // 2). On a loaded machine an idle-priority index of transformers takes
# minutes, each.
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from benchmarks.common import as_installed, median, save, table

HERE = str(Path(__file__).resolve().parent.parent)  # the errdex benchmarked


@dataclass(frozen=True)
class Case:
    name: str
    requirement: str | None  # installed into a folder of its own; None: beside errdex
    code: str  # the failing statement(s)
    head: str  # what errdex's first line starts with
    indexed: bool  # whether a background index follows a first failure


CASES = [
    Case(
        "requests",
        "requests==2.32.3",
        'import requests\nrequests.Session().get_adapter("ftp://example.org/")\n',
        "── errdex: InvalidSchema raised at requests/sessions.py:",
        True,
    ),
    Case(
        "transformers",
        "transformers==5.25.0",
        'from transformers import AutoConfig\nAutoConfig.for_model("no-such-model-type")\n',
        "── errdex: ValueError raised at transformers/models/auto/configuration_auto.py:",
        True,
    ),
    Case(
        "pydantic",
        None,
        "from pydantic import BaseModel\nclass Point(BaseModel):\n    x: int\n"
        "Point(x='not a number')\n",
        "── errdex: pydantic_core._pydantic_core.ValidationError raised in compiled code",
        False,
    ),
]

IPYTHON_PROBE = """\
import sys, time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
if sys.argv[1] == "errdex":
    shell.run_line_magic("load_ext", "errdex.hook.ipython")
code = open(sys.argv[2]).read()
started = time.perf_counter()
shell.run_cell(code)
print("CELL", time.perf_counter() - started, file=sys.stderr)
"""


# The hook's own call in the failing process: the case's code run, its error caught, and
# errdex.hook.explain timed (wall, CPU) with the growth of the peak RSS it causes. The
# whole-process figures above carry the variance of the program's own start (transformers:
# some 100 ms from one run to the next); this one does not.
EXPLAIN_PROBE = """\
import resource, sys, time
try:
    exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"__name__": "__main__"})
except Exception as exc:
    error = exc
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
wall, cpu = time.perf_counter(), time.process_time()
import errdex.hook
text = errdex.hook.explain(error)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print("EXPLAIN", wall, cpu, grown, file=sys.stderr)
print(text, file=sys.stderr)
"""


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu: float  # user and system seconds of the process and the children it waited for
    peak_kib: int
    stderr: str
    stdout: str


def _run(args: list[str], env: dict[str, str], cwd: Path) -> Run:
    """Wall seconds and peak RSS (KiB) of one process, and what it printed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(args, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(
            seconds,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss,
            err.read().decode("utf-8", "replace"),
            out.read().decode("utf-8", "replace"),
        )


def _site(case: Case) -> str | None:
    """The folder `case`'s distribution is installed in (pip, once), or None."""
    if case.requirement is None:
        return None
    folder = Path(platformdirs.user_cache_dir("errdex-bench")) / "hook" / case.requirement
    marker = folder / ".installed"
    if not marker.exists():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--target", str(folder), case.requirement],
            check=True,
        )  # fmt: skip
        marker.write_text(case.requirement + "\n")
    return str(folder)


def _env(site: str | None, place: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ERRDEX_", "PYTEST_"))}
    path = [p for p in (site, HERE) if p]
    env.update(
        PYTHONPATH=os.pathsep.join(path),
        ERRDEX_DB=str(place / "errdex.sqlite"),
        ERRDEX_CACHE=str(place / "cache"),
        NO_COLOR="1",
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode, as an installed copy has it
    return env


def _settle(cache: Path, deadline: float = 1800.0) -> list[str]:
    """Wait until every background job under `cache` has ended; their end lines."""
    end = time.monotonic() + deadline
    ends: list[str] = []
    for log in sorted(cache.glob("hook/*/index.log")):
        while True:
            lines = log.read_text().splitlines()
            done = [line for line in lines if line.startswith("ended: ")]
            if sum(line == "launched" for line in lines) == len(done):
                ends.extend(done)
                break
            if time.monotonic() > end:
                raise SystemExit(f"the background index did not end:\n{log.read_text()}")
            time.sleep(0.2)
    return ends


def _job_figures(ends: list[str]) -> tuple[float, float] | None:
    """(seconds, peak MiB) of the job that indexed, from its log's end line."""
    for line in ends:
        found = re.match(r"ended: done \(([\d.]+) s, peak (\d+) MiB\)", line)
        if found:
            return float(found.group(1)), float(found.group(2))
        if line.startswith("ended: failed"):
            raise SystemExit(f"the background index failed: {line}")
    return None


def _check(run: Run, case: Case, footer: str | None) -> None:
    said = run.stderr + run.stdout
    if case.head not in said or (footer is not None and footer not in said):
        raise SystemExit(f"{case.name}: no section as expected ({footer}):\n{said[-3000:]}")


def _bench(case: Case, runs: int, firsts: int, tmp: Path) -> list[list[str]]:
    site = _site(case)
    tmp.mkdir(parents=True)
    script = tmp / f"{case.name}_fails.py"
    script.write_text(case.code)
    (tmp / f"test_{case.name}_fails.py").write_text(
        "def test_it():\n" + "".join(f"    {line}\n" for line in case.code.splitlines())
    )
    python = [sys.executable]
    command = [*python, str(script)]
    # the first failure: a fresh cache and database each time (the job waited for after
    # each run, so that no index runs beside the next one)
    plain: list[Run] = []
    first: list[Run] = []
    job: tuple[float, float] | None = None
    alone = "alone;" if case.indexed else None
    for number in range(firsts):
        plain.append(_run(command, _env(site, tmp / "plain"), tmp))
        place = tmp / f"first-{number}"
        ran = _run([*python, "-m", "errdex", "run", str(script)], _env(site, place), tmp)
        _check(ran, case, alone)
        first.append(ran)
        figures = _job_figures(_settle(place / "cache"))
        job = job or figures
    calls: dict[str, list[tuple[float, float, float]]] = {"first": [], "after": []}
    for number in range(firsts):
        place = tmp / f"probe-{number}"
        ran = _run([*python, "-c", EXPLAIN_PROBE, str(script)], _env(site, place), tmp)
        _check(ran, case, alone)
        calls["first"].append(_explained(ran))
        _settle(place / "cache")
    # afterwards: the database and answers the first run left; each beside its floor,
    # one after the other, so that the machine's load weighs on both alike
    env = _env(site, tmp / "first-0")
    full = "details: errdex show" if case.indexed else None
    test = f"test_{case.name}_fails.py"
    pytest = [*python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test]
    ipython = [*python, "-c", IPYTHON_PROBE]
    after: list[Run] = []
    bare: list[Run] = []
    hooked: list[Run] = []
    cells: dict[str, list[float]] = {"plain": [], "errdex": []}
    friendly: list[Run] = []  # the anchor: another tool that explains under a traceback
    for _ in range(runs):
        if case.name == "requests":
            friendly.append(_run([*python, "-m", "friendly_traceback", str(script)], env, tmp))
        plain.append(_run(command, env, tmp))
        after.append(_run([*python, "-m", "errdex", "run", str(script)], env, tmp))
        _check(after[-1], case, full)
        bare.append(_run(pytest, env, tmp))
        hooked.append(_run([*pytest, "--errdex"], env, tmp))
        _check(hooked[-1], case, full)
        for mode in ("plain", "errdex"):
            cells[mode].append(_cell(_run([*ipython, mode, str(script)], env, tmp)))
        ran = _run([*python, "-c", EXPLAIN_PROBE, str(script)], env, tmp)
        _check(ran, case, full)
        calls["after"].append(_explained(ran))

    def wall(rs: list[Run]) -> float:
        return median([r.seconds for r in rs])

    def cpu(rs: list[Run]) -> float:
        return median([r.cpu for r in rs])

    def peak(rs: list[Run]) -> float:
        return median([r.peak_kib for r in rs]) / 1024

    def row(what: str, rs: list[Run], base: list[Run]) -> list[str]:
        return [
            case.name, what,
            f"{wall(rs) * 1000:.0f} / {wall(base) * 1000:.0f} ms",
            f"{(wall(rs) - wall(base)) * 1000:+.0f} ms",
            f"{(cpu(rs) - cpu(base)) * 1000:+.0f} ms",
            f"{peak(rs):.0f} / {peak(base):.0f} MiB",
            f"{peak(rs) - peak(base):+.0f} MiB",
        ]  # fmt: skip

    rows = [
        row("first failure, empty cache: `errdex run` / `python`", first, plain),
        row("afterwards: `errdex run` / `python`", after, plain),
        row("afterwards: `pytest --errdex` / `pytest`", hooked, bare),
    ]
    if friendly:
        rows.append(row("anchor: `python -m friendly_traceback` / `python`", friendly, plain))
    with_ext, without = median(cells["errdex"]), median(cells["plain"])
    rows.append([
        case.name, "afterwards: the failing cell, IPython with / without the extension",
        f"{with_ext * 1000:.0f} / {without * 1000:.0f} ms",
        f"{(with_ext - without) * 1000:+.0f} ms", "", "", "",
    ])  # fmt: skip
    for when, what in (("first", "first failure"), ("after", "afterwards")):
        wall_s, cpu_s, grown = (median([c[i] for c in calls[when]]) for i in range(3))
        rows.append([
            case.name, f"{what}: `errdex.hook.explain(exc)` alone, in the failing process",
            f"{wall_s * 1000:.0f} ms", f"+{wall_s * 1000:.0f} ms", f"+{cpu_s * 1000:.0f} ms",
            "", f"+{grown / 1024:.0f} MiB",
        ])  # fmt: skip
    if job is not None:
        rows.append([
            case.name, "the background index (detached, idle priority; from its log)",
            f"{job[0]:.1f} s", "", "", f"{job[1]:.0f} MiB", "",
        ])  # fmt: skip
    return rows


def _explained(run: Run) -> tuple[float, float, float]:
    found = re.search(r"EXPLAIN ([\d.e-]+) ([\d.e-]+) (\d+)", run.stderr)
    if not found:
        raise SystemExit(f"the explain probe failed:\n{run.stderr[-2000:]}")
    return float(found.group(1)), float(found.group(2)), float(found.group(3))


def _cell(run: Run) -> float:
    found = re.search(r"CELL ([\d.e-]+)", run.stderr)
    if not found:
        raise SystemExit(f"the IPython probe failed:\n{run.stderr[-2000:]}")
    return float(found.group(1))


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--only", default="")
    opts, _ = parser.parse_known_args()
    chosen = [c for c in CASES if not opts.only or c.name in opts.only.split(",")]
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in chosen:
            firsts = opts.first or max(3, opts.runs // 2)
            rows.extend(_bench(case, opts.runs, firsts, Path(tmp) / case.name))
    header = ["failure", "what (medians)", "wall", "added wall", "added CPU", "peak RSS"]
    text = table(rows, [*header, "added peak"])
    text += (
        "\n\ntargets: first failure in transformers <= 1.0 s and <= 100 MiB added;"
        " afterwards <= 100 ms added (requests, transformers)"
    )
    save("bench_hook.md", text)


if __name__ == "__main__":
    main()
