# The rate of issue 3's property, over every template of vllm 0.28.0: render each with
# random values and require its site at rank 1, or tied at the top with identical text.
from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_match import _literals, _render
from benchmarks.common import save, table
from errdex import codec
from errdex.index import index_source
from errdex.match import Matcher
from errdex.store import open_store

SEED = 2026


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        store = open_store(Path(scratch) / "errdex.sqlite")
        index_source("pypi:vllm==0.28.0", store)
        stored = [r for r in store.iter_records(package="vllm") if r.site.message is not None]
        _measure(Matcher(store), [codec.record_to_json(r) for r in stored])
        store.close()


def _measure(matcher: Matcher, records: list[dict[str, Any]]) -> None:
    rng = random.Random(SEED)
    hits = {"all": 0, "long": 0}
    totals = {"all": 0, "long": 0}
    misses: list[str] = []
    for record in records:
        text = _render(record, rng)
        result = matcher.match(text, limit=1000)
        ids = [m.id for m in result.matches]
        best = result.matches[0].score if result.matches else None
        top = {m.template for m in result.matches if m.score == best}
        ok = bool(ids) and (
            ids[0] == record["id"] or (record["id"] in ids and record["message"]["text"] in top)
        )
        groups = ["all"] + (["long"] if sum(map(len, _literals(record))) >= 10 else [])
        for group in groups:
            totals[group] += 1
            hits[group] += ok
        if not ok and len(misses) < 8:
            misses.append(record["message"]["text"][:80])
    rows = [
        [
            "every template with a message",
            f"{hits['all']:,} / {totals['all']:,}",
            f"{hits['all'] / totals['all']:.2%}",
        ],
        [
            "templates with ≥ 10 literal characters",
            f"{hits['long']:,} / {totals['long']:,}",
            f"{hits['long'] / totals['long']:.2%}",
        ],
    ]
    save(
        "match_accuracy.md",
        "vllm 0.28.0, each template rendered once with random values "
        f"(seed {SEED}), matched against the vllm index\n\n"
        + table(rows, ["templates", "right site first (or tied)", "rate"])
        + "\n\nsome misses: "
        + "; ".join(f"`{m}`" for m in misses),
    )


if __name__ == "__main__":
    main()
