# How often `errdex match` puts the right raise first, in two parts.
#
# 1. Real messages: the dev set (tests/data/dev_messages.jsonl) and the cases of issue 12
#    (benchmarks/data/real_messages.jsonl), all their packages in one database and no
#    `--package` given; top-1 and top-3 per shape of text, for the message as reported
#    and for the traceback (when the report has one). Then the property below over every
#    template of the real set's packages, matched against that same database.
# 2. Issue 3's property, over every template of vllm 0.28.0: render each with random
#    values and require its site at rank 1, or tied at the top with identical text.
# 3. `shapes` (issue 31): the cases of benchmarks/data/shape_messages.jsonl, by the shape
#    of text each is (made by the class, a variable then the class, a joined list, a
#    helper, the argument a class's signature names, punctuation, partial, several
#    arguments), their packages alone in one database; the property over every template
#    of those packages; and, per package, the records whose message is a single hole.
#    `python -m benchmarks.match_accuracy shapes` runs this part alone.
from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.bench_match import _literals, _render
from benchmarks.common import save, table
from errdex import codec
from errdex.errors import SourceError
from errdex.index import index_source
from errdex.match import Matcher
from errdex.model import Hole
from errdex.store import open_store

SEED = 2026
ROOT = Path(__file__).resolve().parent.parent
DEV_SET = ROOT / "tests" / "data" / "dev_messages.jsonl"
REAL_SET = Path(__file__).resolve().parent / "data" / "real_messages.jsonl"
SHAPE_SET = Path(__file__).resolve().parent / "data" / "shape_messages.jsonl"
SHAPES = (
    "class-built",
    "variable-class",
    "list-joined",
    "helper-built",
    "message-argument",
    "punctuation",
    "partial",
    "arguments",
    "constant",
    "wrapped",
    "near-duplicate",
    "plain",
)
_WRAPPED_TAGS = {
    "log-prefixed",
    "argparse-wrapped",
    "http-json-wrapped",
    "pydantic-wrapped",
    "pytest-prefixed",
    "qualified-class",
    "markdown-quote",
    "embedded",
}


def cases(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shape_of(case: dict[str, Any]) -> str:
    """The shape a case is counted under: its own `shape`, else the dev set's tags."""
    if "shape" in case:
        return str(case["shape"])
    tags = set(case.get("difficulty", ()))
    if "helper-built" in tags:
        return "class-built"
    if "joined-list-value" in tags:
        return "list-joined"
    if case.get("partial") or "partial" in tags:
        return "partial"
    if "near-duplicate" in tags:
        return "near-duplicate"
    if tags & _WRAPPED_TAGS:
        return "wrapped"
    return "plain"


def query(case: dict[str, Any], form: str) -> str:
    """The message as reported, or the traceback completed with the message line when
    the stored excerpt stops before it."""
    if form == "message":
        return str(case["message"])
    tb = str(case["traceback"])
    if " ".join(case["message"].split())[:40] not in " ".join(tb.split()):
        tb += f"\n{case['exception']}: {case['message']}"
    return tb


def rank(matcher: Matcher, case: dict[str, Any], form: str) -> int | None:
    """The rank (1-based) of the first answer that is one of the case's raises."""
    truth = {(t["file"], t["line"]) for t in case["truth"]}
    result = matcher.match(query(case, form), limit=10)
    for i, m in enumerate(result.matches, 1):
        if (m.file, m.line) in truth and m.package.replace("-", "_") == case["package"]:
            return i
    return None


def real_messages(scratch: Path) -> str:
    all_cases = [("dev", c) for c in cases(DEV_SET)] + [("real", c) for c in cases(REAL_SET)]
    store = open_store(scratch / "real.sqlite")
    refused: list[str] = []
    for spec in sorted({f"{c['package']}=={c['version']}" for _, c in all_cases}):
        try:
            index_source(f"pypi:{spec}", store)
        except SourceError as exc:  # its cases count as misses; the table says why
            refused.append(f"{spec}: {exc}")
    matcher = Matcher(store)
    # (set, shape, form) -> [top-1 hits, top-3 hits, total]
    counts: dict[tuple[str, str, str], list[int]] = {}
    misses: list[str] = []
    for name, case in all_cases:
        for form in ("message", "traceback"):
            if form == "traceback" and "traceback" not in case:
                continue
            got = rank(matcher, case, form)
            for key in ((name, shape_of(case), form), (name, "all", form)):
                row = counts.setdefault(key, [0, 0, 0])
                row[0] += got == 1
                row[1] += got is not None and got <= 3
                row[2] += 1
            if got != 1:
                misses.append(f"{case['id']} ({form}): rank {got}")
    own = {c["package"] for name, c in all_cases if name == "real"}
    stored = [
        codec.record_to_json(r)
        for r in store.iter_records()
        if r.site.message is not None and r.package.replace("-", "_") in own
    ]
    rendered = _measure(
        matcher,
        stored,
        f"the {len(own)} packages of the real set, each template rendered once with random "
        f"values (seed {SEED}), matched against the database of both sets",
    )
    store.close()
    rows = [
        [name, shape, form, f"{t1}/{n}", f"{t1 / n:.1%}", f"{t3}/{n}", f"{t3 / n:.1%}"]
        for name in ("dev", "real")
        for shape in (*SHAPES, "all")
        for form in ("message", "traceback")
        if (name, shape, form) in counts
        for t1, t3, n in [counts[(name, shape, form)]]
    ]
    packages = sorted({c["package"] for name, c in all_cases if name == "real"})
    return (
        "real messages users reported, one database holding every package of both sets "
        f"(no --package). dev: {DEV_SET.relative_to(ROOT)}; real: "
        f"{REAL_SET.relative_to(ROOT)} ({len(packages)} packages: {', '.join(packages)})\n\n"
        + table(rows, ["set", "shape", "form", "top-1", "rate", "top-3", "rate"])
        + "\n\nnot first: "
        + ("; ".join(misses) or "none")
        + ("\n\nnot indexed: " + "; ".join(refused) if refused else "")
        + "\n\n"
        + rendered
    )


def property_check(scratch: Path) -> str:
    store = open_store(scratch / "vllm.sqlite")
    index_source("pypi:vllm==0.28.0", store)
    stored = [r for r in store.iter_records(package="vllm") if r.site.message is not None]
    text = _measure(
        Matcher(store),
        [codec.record_to_json(r) for r in stored],
        f"vllm 0.28.0, each template rendered once with random values (seed {SEED}), "
        "matched against the vllm index",
    )
    store.close()
    return text


def _measure(matcher: Matcher, records: Iterable[dict[str, Any]], title: str) -> str:
    rng = random.Random(SEED)
    hits = {"all": 0, "long": 0, "class": 0}
    totals = {"all": 0, "long": 0, "class": 0}
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
        if record["message"].get("source", "raise") != "raise":
            groups.append("class")
        for group in groups:
            totals[group] += 1
            hits[group] += ok
        if not ok and len(misses) < 8 and "long" in groups:
            misses.append(record["message"]["text"][:80])
    labels = {
        "all": "every template with a message",
        "long": "templates with ≥ 10 literal characters",
        "class": "templates not written at the raise (message.source)",
    }
    rows = [
        [labels[g], f"{hits[g]:,} / {totals[g]:,}", f"{hits[g] / max(totals[g], 1):.2%}"]
        for g in ("all", "long", "class")
    ]
    return (
        title
        + "\n\n"
        + table(rows, ["templates", "right site first (or tied)", "rate"])
        + "\n\nsome misses with ≥ 10 literal characters: "
        + "; ".join(f"`{m}`" for m in misses)
    )


def shape_messages(scratch: Path) -> str:
    """Part 3: the shape cases, the property over their packages' templates, and the
    records whose message is one hole, per package (vllm 0.28.0 among them)."""
    shape_cases = cases(SHAPE_SET)
    store = open_store(scratch / "shapes.sqlite")
    refused: list[str] = []
    for spec in sorted({f"{c['package']}=={c['version']}" for c in shape_cases}):
        try:
            index_source(f"pypi:{spec}", store)
        except SourceError as exc:
            refused.append(f"{spec}: {exc}")
    matcher = Matcher(store)
    counts: dict[tuple[str, str], list[int]] = {}
    misses: list[str] = []
    for case in shape_cases:
        for form in ("message", "traceback"):
            if form == "traceback" and "traceback" not in case:
                continue
            got = rank(matcher, case, form)
            for key in ((str(case["shape"]), form), ("all", form)):
                row = counts.setdefault(key, [0, 0, 0])
                row[0] += got == 1
                row[1] += got is not None and got <= 3
                row[2] += 1
            if got != 1:
                misses.append(f"{case['id']} ({form}): rank {got}")
    rows = [
        [shape, form, f"{t1}/{n}", f"{t1 / n:.1%}", f"{t3}/{n}", f"{t3 / n:.1%}"]
        for shape in (*SHAPES, "all")
        for form in ("message", "traceback")
        if (shape, form) in counts
        for t1, t3, n in [counts[(shape, form)]]
    ]
    records = [r for r in store.iter_records() if r.site.message is not None]
    holes: dict[str, list[int]] = {}
    for r in records:
        row = holes.setdefault(r.package, [0, 0])
        row[1] += 1
        parts = r.site.message.parts  # type: ignore[union-attr]
        row[0] += len(parts) == 1 and isinstance(parts[0], Hole)
    packages = sorted({c["package"] for c in shape_cases})
    rendered = _measure(
        matcher,
        [codec.record_to_json(r) for r in records],
        f"the {len(packages)} packages of the shape set, each template rendered once with "
        f"random values (seed {SEED}), matched against their database",
    )
    store.close()
    return (
        f"messages of each shape users reported: {SHAPE_SET.relative_to(ROOT)} "
        f"({len(shape_cases)} cases, {len(packages)} packages: {', '.join(packages)}), "
        "their packages in one database (no --package)\n\n"
        + table(rows, ["shape", "form", "top-1", "rate", "top-3", "rate"])
        + "\n\nnot first: "
        + ("; ".join(misses) or "none")
        + ("\n\nnot indexed: " + "; ".join(refused) if refused else "")
        + "\n\nrecords whose message is a single hole\n\n"
        + table(
            [[p, f"{h:,}", f"{n:,}"] for p, (h, n) in sorted(holes.items())],
            ["package", "one hole", "with a message"],
        )
        + "\n\n"
        + rendered
    )


def main() -> None:
    parts = sys.argv[1:] or ["real", "property", "shapes"]
    with tempfile.TemporaryDirectory() as scratch:
        out = []
        if "real" in parts:
            out.append(real_messages(Path(scratch)))
        if "property" in parts:
            out.append(property_check(Path(scratch)))
        if "shapes" in parts:
            out.append(shape_messages(Path(scratch)))
    name = "match_accuracy_shapes.md" if parts == ["shapes"] else "match_accuracy.md"
    save(name, "\n\n".join(out))


if __name__ == "__main__":
    main()
