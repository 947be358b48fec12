# Benchmark of `errdex match`: index enough popular packages from PyPI to pass 50,000
# sites, build the matcher, and time queries rendered from real templates with random
# values; beside each figure, the same job done by `rg -F` of the template's longest
# literal fragment over the source trees (what one does by hand). Prints a markdown table.
#
#   python benchmarks/bench_match.py [--db PATH] [--queries N] [--runs N] [--rg-queries N]
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from errdex import codec, sources
from errdex.index import index_source
from errdex.match import Matcher
from errdex.model import StoredSnapshot
from errdex.sources.cache import cache_root
from errdex.store import Store, open_store

# Packages whose errors people search for; pinned so that runs compare.
PACKAGES = [
    "vllm==0.28.0",
    "transformers==5.24.0",
    "datasets==5.2.0",
    "huggingface_hub==2.4.0",
    "diffusers",
    "pandas",
    "scikit-learn",
    "django",
    "sqlalchemy",
    "sympy",
    "matplotlib",
    "accelerate",
    "pydantic",
    "fastapi",
    "requests",
    "peft",
    "scipy",
    "jax",
    "astropy",
    "mlflow",
    "statsmodels",
    "dask",
    "xarray",
    "networkx",
]
TARGET_SITES = 50_000
_WORDS = ["tvm", "foo", "bar_baz", "Qwen/Qwen2-7B", "cuda:0", "float16", "/tmp/x.json", "None"]


def _ensure_index(store: Store, packages: list[str]) -> list[StoredSnapshot]:
    """Index packages until the store holds TARGET_SITES sites; return the snapshots."""
    total = sum(s.sites for s in store.snapshots())
    for spec in packages:
        if total >= TARGET_SITES:
            break
        name = spec.split("==")[0]
        if any(s.package.replace("-", "_") == name.replace("-", "_") for s in store.snapshots()):
            continue
        started = time.perf_counter()
        result = index_source(f"pypi:{spec}", store)
        total += len(result.sites)
        print(
            f"indexed {spec}: {len(result.sites)} sites in {time.perf_counter() - started:.1f}s",
            file=sys.stderr,
        )
    return store.snapshots()


def _value(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return str(rng.randint(0, 100_000))
    if r < 0.4:
        return repr([rng.choice(_WORDS) for _ in range(rng.randint(0, 4))])
    if r < 0.45:
        return f"{rng.random() * 100:.3f}"
    return rng.choice(_WORDS)


def _render(rec: dict[str, Any], rng: random.Random) -> str:
    out = []
    for part in rec["message"]["parts"]:
        if "hole" in part:
            value = _value(rng)
            out.append(repr(value) if part.get("conversion") == "r" else value)
        else:
            out.append(part["text"])
    return "".join(out)


def _literals(rec: dict[str, Any]) -> list[str]:
    out: list[str] = []
    buf: list[str] = []
    for part in rec["message"]["parts"]:
        if "hole" in part:
            out.append("".join(buf))
            buf = []
        else:
            buf.append(part["text"])
    out.append("".join(buf))
    return out


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _anchor_fragment(rec: dict[str, Any]) -> str:
    # one line of the longest literal part, as a person would pick it to grep for
    longest = max(_literals(rec), key=len)
    return max(longest.split("\n"), key=len).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", default=str(cache_root() / "bench-match.sqlite"))
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--rg-queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    store = open_store(args.db)
    snapshots = _ensure_index(store, PACKAGES)
    started = time.perf_counter()
    stored = list(store.iter_records(version="*"))
    load_s = time.perf_counter() - started
    records = [codec.record_to_json(r) for r in stored]

    build_times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        Matcher(store)
        build_times.append(time.perf_counter() - started)
    tracemalloc.start()
    matcher = Matcher(store)  # read as queries go: its memory is measured after them

    rng = random.Random(args.seed)
    usable = [r for r in records if r["message"] is not None and sum(map(len, _literals(r))) >= 10]
    sample = rng.sample(usable, min(args.queries, len(usable)))
    queries = [(rec, _render(rec, rng)) for rec in sample]

    p50s, p99s, hits = [], [], 0
    cold: list[float] = []
    for run in range(args.runs):
        times = []
        for rec, text in queries:
            t0 = time.perf_counter()
            result = matcher.match(text, limit=1000)
            times.append(time.perf_counter() - t0)
            if run == 0:
                ids = [m.id for m in result.matches]
                top = [m.template for m in result.matches if m.score == result.matches[0].score]
                hits += bool(ids) and (
                    ids[0] == rec["id"] or (rec["id"] in ids and rec["message"]["text"] in top)
                )
        if run == 0:  # a fresh matcher reads every candidate from the store
            cold = times
            matcher_bytes = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
        else:  # later runs: as a server answers, with what it read kept
            p50s.append(_percentile(times, 0.5))
            p99s.append(_percentile(times, 0.99))
    if not p50s:
        p50s, p99s = [_percentile(cold, 0.5)], [_percentile(cold, 0.99)]

    # The anchor: rg -F of the longest literal fragment over every indexed source tree.
    roots = []
    for snap in snapshots:
        snapshot = sources.resolve(snap.source, cache_dir=cache_root())
        roots += [str(snapshot.root / p) for p in snapshot.code_paths] or [str(snapshot.root)]
    rg = shutil.which("rg")
    tool = (
        [rg, "-F", "-l", "--no-messages", "-t", "py", "--"]
        if rg
        else ["grep", "-rlF", "--include=*.py", "--"]
    )
    rg_sample = queries[: args.rg_queries]
    rg_p50s, rg_p99s, rg_hits = [], [], 0
    for run in range(args.runs):
        times = []
        for rec, _text in rg_sample:
            fragment = _anchor_fragment(rec)
            t0 = time.perf_counter()
            done = subprocess.run(
                [*tool, fragment, *roots], capture_output=True, text=True, check=False
            )
            times.append(time.perf_counter() - t0)
            if run == 0:
                files = done.stdout.splitlines()
                rg_hits += len(files) == 1 and files[0].endswith("/" + rec["location"]["file"])
        rg_p50s.append(_percentile(times, 0.5))
        rg_p99s.append(_percentile(times, 0.99))
    t0 = time.perf_counter()
    subprocess.run([*tool, "raise", *roots], capture_output=True, check=False)
    scan_s = time.perf_counter() - t0
    tree_bytes = sum(
        f.stat().st_size for root in roots for f in Path(root).rglob("*.py") if f.is_file()
    )

    sites = sum(s.sites for s in snapshots)
    anchor = "rg -F" if rg else "grep -rF (ripgrep not installed)"
    med = statistics.median
    print(
        f"## errdex match benchmark ({len(snapshots)} snapshots, {sites:,} site records, "
        f"{len({r.id for r in stored}):,} distinct sites; anchor: `{anchor}` over"
        f" {len(roots)} source trees)"
    )
    print()
    print(f"packages: {', '.join(s.package + ' ' + s.version for s in snapshots)}")
    print(
        f"runs: {args.runs} (medians shown); {len(queries)} matcher queries; "
        f"{len(rg_sample)} anchor queries; python {sys.version.split()[0]}, {os.cpu_count()} cpus"
    )
    print()
    print(f"| measure | errdex match | anchor ({anchor}) | ratio (anchor / errdex) |")
    print("|---|---|---|---|")

    def row(name: str, ours: float, theirs: float, unit: str, fmt: str = ".3f") -> None:
        ratio = (
            "n/a"
            if ours <= 0
            else f"{theirs / ours:,.0f}x"
            if theirs >= 10 * ours
            else (f"{theirs / ours:.2f}x")
        )
        print(f"| {name} | {ours:{fmt}} {unit} | {theirs:{fmt}} {unit} | {ratio} |")

    row(
        "query p50, first time (candidates read)",
        _percentile(cold, 0.5) * 1e3,
        med(rg_p50s) * 1e3,
        "ms",
    )
    row(
        "query p99, first time (candidates read)",
        _percentile(cold, 0.99) * 1e3,
        med(rg_p99s) * 1e3,
        "ms",
    )
    row("query p50, again (as a server)", med(p50s) * 1e3, med(rg_p50s) * 1e3, "ms")
    row("query p99, again (as a server)", med(p99s) * 1e3, med(rg_p99s) * 1e3, "ms")
    row("open (matcher) vs one full scan of the trees", med(build_times), scan_s, "s", ".3f")
    row(
        "memory (matcher after every query, Python heap) vs source trees on disk",
        matcher_bytes / 2**20,
        tree_bytes / 2**20,
        "MiB",
        ".1f",
    )
    print(f"| load records from the store | {load_s:.2f} s | | |")
    print(
        f"| right site first (or tied with identical templates) | {hits / len(queries):.2%} "
        f"| {rg_hits / max(1, len(rg_sample)):.2%} (exactly one file, the right one) | |"
    )
    print()
    print(
        f"targets: p50 <= 1 ms ({'met' if med(p50s) <= 1e-3 else 'MISSED'}), "
        f"p99 <= 10 ms ({'met' if med(p99s) <= 1e-2 else 'MISSED'}), "
        f">= {TARGET_SITES:,} sites ({'met' if sites >= TARGET_SITES else 'MISSED'})"
    )
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
