# `make bench`: every benchmark, one after the other, each printing its own table.
from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BENCHMARKS = [
    "template_fidelity",
    "explain_counts",
    "explain_quality",
    "bench_index",
    "bench_native",
    "bench_cython",
    "bench_versions",
    "match_accuracy",
    "bench_match",
    "bench_web",
    "bench_export",
    "bench_cli",
    "bench_load",
    "bench_hook",
    "bench_scale",
]

if __name__ == "__main__":
    chosen = sys.argv[1:] or BENCHMARKS
    for name in chosen:
        module_path = Path(__file__).parent / f"{name}.py"
        if not module_path.exists():
            print(f"(skipping {name}: not present)")
            continue
        print(f"\n## {name}\n")
        importlib.import_module(f"benchmarks.{name}").main()
