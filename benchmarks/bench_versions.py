# A second version on top of the first: vllm 0.27.0 cold, then 0.28.0 reusing the
# per-file cache (only changed files are parsed), beside 0.28.0 indexed alone.
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from benchmarks.common import median, save, table
from errdex import codec
from errdex.index import index_snapshot
from errdex.sources import resolve
from errdex.store import open_store

RUNS = 3


def main() -> None:
    old, new = resolve("pypi:vllm==0.27.0"), resolve("pypi:vllm==0.28.0")
    firsts, seconds, alones, parsed, reused = [], [], [], [], []
    same = True
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as scratch:
            tmp = Path(scratch)
            stacked = open_store(tmp / "stacked.sqlite")
            first = index_snapshot(old, stacked, cache_path=tmp / "facts.sqlite", pause_gc=True)
            second = index_snapshot(new, stacked, cache_path=tmp / "facts.sqlite", pause_gc=True)
            alone_store = open_store(tmp / "alone.sqlite")
            alone = index_snapshot(
                new, alone_store, cache_path=tmp / "alone-facts.sqlite", pause_gc=True
            )
            firsts.append(first.seconds)
            seconds.append(second.seconds)
            alones.append(alone.seconds)
            parsed.append(second.parsed)
            reused.append(getattr(second, "reused", 0))  # 0 before errdex reused any

            def records(store_path: Path) -> list[str]:
                store = open_store(store_path)
                return [
                    json.dumps(codec.record_to_json(r), sort_keys=True)
                    for r in store.iter_records(package="vllm", version="0.28.0")
                ]

            same = same and records(tmp / "stacked.sqlite") == records(tmp / "alone.sqlite")
    rows = [
        ["vllm 0.27.0, cold (s)", f"{median(firsts):.2f}", "-", "1.00"],
        [
            "vllm 0.28.0 on top (s)",
            f"{median(seconds):.2f}",
            f"{median(firsts):.2f}",
            f"{median(seconds) / median(firsts):.2f}",
        ],
        [
            "vllm 0.28.0 alone, cold (s)",
            f"{median(alones):.2f}",
            f"{median(firsts):.2f}",
            f"{median(alones) / median(firsts):.2f}",
        ],
        [
            "vllm 0.28.0 on top, against 0.28.0 alone (s)",
            f"{median(seconds):.2f}",
            f"{median(alones):.2f}",
            f"{median(seconds) / median(alones):.2f}",
        ],
    ]
    save(
        "versions.md",
        f"medians of {RUNS} runs; 0.28.0 on top parsed "
        f"{int(median(parsed)):,} of {second.files:,} files and reused the explanations of "
        f"{int(median(reused)):,} of {second.site_count:,} sites; records identical to 0.28.0 "
        f"alone: {same}\n\n" + table(rows, ["measure", "errdex", "anchor: 0.27.0 cold", "ratio"]),
    )


if __name__ == "__main__":
    main()
