# Benchmark of errdex.hook: the time errdex adds to an uncaught exception, with the
# distribution already indexed. The error is a real one of click as installed beside
# errdex (click.Choice rejecting a value: BadParameter raised in ParamType.fail).
# Figures: the first explain in a fresh process (errdex's imports, the map of installed
# files, the database opened, the site looked up, the message matched), the next
# explain in the same process, and `errdex run script.py` against `python script.py`
# (the floor) and friendly-traceback on the same script (the anchor: another tool that
# explains an error under its traceback).
#
#   python -m benchmarks.bench_hook [--runs N]
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import as_installed
from errdex.index import index_source
from errdex.store import open_store

SCRIPT = """\
import click

click.Choice(["fast", "slow"]).convert("medium", None, None)
"""

PROBE = """\
import sys, time
import click
def fail():
    click.Choice(["fast", "slow"]).convert("medium", None, None)
try:
    fail()
except Exception as exc:
    first = exc
t0 = time.perf_counter()
import errdex.hook
text = errdex.hook.explain(first)
t1 = time.perf_counter()
assert text, "no section"
from errdex.hook import _core, _dists
_dists.forget()
t2 = time.perf_counter()
_core._owner(__import__("click").__file__)
t3 = time.perf_counter()
warm = []
for _ in range(50):
    try:
        fail()
    except Exception as exc:
        s = time.perf_counter()
        errdex.hook.explain(exc)
        warm.append(time.perf_counter() - s)
warm.sort()
print(t1 - t0, t3 - t2, warm[len(warm) // 2])
"""


# First use on a distribution not indexed yet: requests (and what it needs), installed by
# pip into a folder of its own, raising InvalidSchema without any network; each run
# starts from an empty db, so the hook indexes installed:requests before it answers.
REQUESTS = "requests==2.32.3"
REQUESTS_SCRIPT = """\
import requests

requests.Session().get_adapter("ftp://example.org/")
"""


def _first_use(tmp: Path, runs: int) -> tuple[float, float]:
    """Median wall seconds of the requests script: plain, and under errdex on an empty db."""
    site = tmp / "requests-site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(site), REQUESTS],
        check=True,
    )  # fmt: skip
    script = tmp / "first_use.py"
    script.write_text(REQUESTS_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    env.pop("ERRDEX_DISABLE", None)
    plain = _wall([sys.executable, str(script)], env, runs)
    times = []
    for number in range(runs):
        env["ERRDEX_DB"] = str(tmp / f"first-use-{number}.sqlite")
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "errdex", "run", str(script)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        times.append(time.perf_counter() - started)
        if "── errdex: InvalidSchema" not in done.stderr:
            raise SystemExit(f"no section for requests' InvalidSchema:\n{done.stderr[-2000:]}")
    return plain, statistics.median(times)


def _wall(args: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    as_installed()
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    opts, _ = parser.parse_known_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "errdex.sqlite"
        with open_store(db) as store:
            index_source("installed:click", store, workers=1)
        env = {**os.environ, "ERRDEX_DB": str(db), "NO_COLOR": "1"}
        env.pop("ERRDEX_DISABLE", None)
        firsts, maps, warms = [], [], []
        for _ in range(opts.runs):
            out = subprocess.run(
                [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
            ).stdout.split()
            firsts.append(float(out[0]))
            maps.append(float(out[1]))
            warms.append(float(out[2]))
        script = Path(tmp) / "script.py"
        script.write_text(SCRIPT)
        plain = _wall([sys.executable, str(script)], env, opts.runs)
        hooked = _wall([sys.executable, "-m", "errdex", "run", str(script)], env, opts.runs)
        off = _wall(
            [sys.executable, "-m", "errdex", "run", str(script)],
            {**env, "ERRDEX_DISABLE": "1"},
            opts.runs,
        )
        friendly = _wall([sys.executable, "-m", "friendly_traceback", str(script)], env, opts.runs)
        first_plain, first_hooked = _first_use(Path(tmp), max(3, opts.runs // 3))
    ms = 1000
    print("| what (medians) | time |")
    print("|---|---|")
    print(f"| first explain in a fresh process | {statistics.median(firsts) * ms:.1f} ms |")
    print(f"| of which: the owner of click's file found | {statistics.median(maps) * ms:.1f} ms |")
    print(f"| next explain, same process | {statistics.median(warms) * ms:.2f} ms |")
    print(f"| `python script.py` (uncaught error) | {plain * ms:.0f} ms |")
    print(f"| `errdex run script.py`, ERRDEX_DISABLE=1 | {off * ms:.0f} ms |")
    print(f"| `errdex run script.py` | {hooked * ms:.0f} ms |")
    print(f"| anchor: `python -m friendly_traceback script.py` | {friendly * ms:.0f} ms |")
    added, theirs = hooked - plain, friendly - plain
    print(
        f"| added over the plain traceback: errdex / friendly-traceback | {added * ms:.0f} ms"
        f" / {theirs * ms:.0f} ms (ratio {added / theirs:.2f}) |"
        if theirs > 0
        else f"| added over the plain traceback: errdex | {added * ms:.0f} ms |"
    )
    print(
        f"| first use, {REQUESTS} not indexed yet: `python` / `errdex run`"
        f" | {first_plain * ms:.0f} ms / {first_hooked * ms:.0f} ms"
        f" (indexing installed:requests: {(first_hooked - first_plain) * ms:.0f} ms) |"
    )
    print(
        "| first use on vllm 0.28.0 (its wheels are CUDA builds; its sdist stands in) |"
        " its cold index: see bench_index |"
    )
    print(f"\ntarget: errdex adds <= 100 ms ({'met' if added <= 0.1 else 'MISSED'})")


if __name__ == "__main__":
    main()
