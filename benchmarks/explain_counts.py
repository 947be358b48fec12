# Issue figures for the explain stage on vllm 0.28.0: how many sites get a solution
# beyond "change the input", a reproducing test, a call path; and a sample of titles
# with "when it happens" for a varied set of errors.
from __future__ import annotations

import time

from benchmarks.common import save, table
from errdex.explain import explain_sites
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.pipeline import extract
from errdex.sources import resolve

SAMPLE = 10


def main() -> None:
    snapshot = resolve("pypi:vllm==0.28.0")
    cache = NoCache()
    extraction = extract(snapshot, scan(snapshot, cache), cache)
    started = time.perf_counter()
    sites = explain_sites(extraction, snapshot)
    seconds = time.perf_counter() - started
    explained = [s.explanation for s in sites if s.explanation is not None]
    beyond = sum(1 for e in explained if any(f.kind != "input" for f in e.fixes))
    knobbed = sum(1 for e in explained if any(f.knobs for f in e.fixes))
    advised = sum(1 for e in explained if any(f.source == "message" for f in e.fixes))
    rows = [
        ["sites", f"{len(sites):,}"],
        ["with a solution beyond changing an input", f"{beyond:,}"],
        ["with any solution", f"{sum(1 for e in explained if e.solutions):,}"],
        ["with a solution naming a knob (flag, variable, key, extra)", f"{knobbed:,}"],
        ["with the message's own advice first", f"{advised:,}"],
        ["with a reproducing test", f"{sum(1 for e in explained if e.tests):,}"],
        ["with a call path", f"{sum(1 for e in explained if e.call_paths):,}"],
        ["with common situations", f"{sum(1 for e in explained if e.common_situations):,}"],
        ["distinct titles", f"{len({e.title for e in explained}):,}"],
        ["explain step (s)", f"{seconds:.2f}"],
    ]
    # A varied sample: one site of each kind and of several exception classes.
    picked, seen = [], set()
    for site in sites:
        key = (site.kind, site.exception.name)
        if key not in seen and site.explanation is not None and site.message is not None:
            seen.add(key)
            picked.append(site)
    lines = []
    for site in picked[:SAMPLE]:
        assert site.explanation is not None
        lines.append(
            f"- **{site.explanation.title}** ({site.exception.name}, "
            f"{site.location.file}:{site.location.line})  \n"
            f"  {site.explanation.when_it_happens}"
        )
    save(
        "explain.md",
        "vllm 0.28.0\n\n" + table(rows, ["measure", "count"]) + "\n\n" + "\n".join(lines),
    )


if __name__ == "__main__":
    main()
