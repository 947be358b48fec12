# Issue figures for the quality of errdex's explanations, against records verified by
# hand against the source (benchmarks/data/explain_quality.jsonl, described in
# benchmarks/data/README.md): do user-actionable errors get a solution, does it name a
# control the user really has, does it tell the user to change something internal, are
# internal errors called internal; and, against the triggering tests of
# benchmarks/data/explain_tests.jsonl, are the tests errdex lists the ones that trigger
# the error.
#
# Counting rules (the table's notes repeat them):
# - a knob is named when one of its forms (a record lists every form that counts: a CLI
#   flag, the config field, `Class.field`, an env var, a parameter, a pip extra) appears
#   in a solution as a whole token, case-insensitive, backticks ignored;
# - an internal name is named when it is a whole backticked span of a solution, or its
#   dotted tail (`Owner.name`, `self.name`), or, for names with `_` or `.` (never plain
#   words), anywhere in the solution as a whole token; links are left out (a prefilled
#   report link quotes the message in its query);
# - a record is looked up by id, else by file, function and message, else (errdex now
#   reads the message otherwise: a template inside `_()`, a class-built default) by file,
#   function, exception and line in the same release, the words of either message found
#   in the other, when exactly one site fits;
# - an internal (non-actionable, not pass-through) record is explained as internal when
#   its what/when/solutions contain "bug", "internal", "invariant" or "should never";
# - a listed test is verified when its file and its last name segment (parameters
#   dropped) are those of a verified test; recall counts, per record, at most as many
#   verified tests as errdex lists at most (MAX_TESTS), and also all of them, and leaves
#   out the records that were drawn from what errdex lists (`chosen: "listed"`).
from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.common import save, table
from benchmarks.explain_done import done_when
from errdex.explain.tests_scan import MAX_TESTS
from errdex.index import index_source
from errdex.model import ErrorSite, Explanation
from errdex.sources.cache import cache_root
from errdex.store import Store, open_store

DATA = Path(__file__).parent / "data" / "explain_quality.jsonl"
TESTS = Path(__file__).parent / "data" / "explain_tests.jsonl"

TARGETS = {
    "solution": 0.90,  # at least
    "knob": 0.75,  # at least
    "internal_named": 0.03,  # at most
    "precision": 0.90,  # at least
    "recall": 0.60,  # at least
}

_INTERNAL_WORDS = re.compile(r"\b(bug|internal|invariant|should never)\b", re.IGNORECASE)
_SPAN = re.compile(r"`([^`]+)`")
_URL = re.compile(r"https?://\S+")


@dataclass(frozen=True)
class Verified:
    id: str
    package: str
    version: str
    file: str
    function: str
    message: str | None
    line: int
    exception: str
    actionable: bool
    passthrough: bool
    knobs: tuple[str, ...]
    internal_names: tuple[str, ...]


@dataclass(frozen=True)
class Triggered:
    """A site with the tests that really trigger it (none: a record where none does)."""

    id: str
    package: str
    version: str
    file: str
    function: str
    message: str | None
    line: int
    exception: str
    tests: tuple[str, ...]
    # "listed": drawn from the tests errdex lists, which says nothing of what it misses
    chosen: str


def load(path: Path = DATA) -> list[Verified]:
    records = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        records.append(
            Verified(
                id=raw["id"],
                package=raw["package"],
                version=raw["version"],
                file=raw["file"],
                function=raw["function"],
                message=raw["message"],
                line=raw["line"],
                exception=raw["exception"],
                actionable=raw["actionable"],
                passthrough=raw.get("passthrough", False),
                knobs=tuple(raw["knobs"]),
                internal_names=tuple(raw["internal_names"]),
            )
        )
    return records


def load_tests(path: Path = TESTS) -> list[Triggered]:
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            raw = json.loads(line)
            records.append(
                Triggered(
                    id=raw["id"],
                    package=raw["package"],
                    version=raw["version"],
                    file=raw["file"],
                    function=raw["function"],
                    message=raw["message"],
                    line=raw["line"],
                    exception=raw["exception"],
                    tests=tuple(raw["tests"]),
                    chosen=raw["chosen"],
                )
            )
    return records


def _token(text: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(text.lower()) + r"(?![\w-])")


def names_knob(solutions: Sequence[str], knobs: Iterable[str]) -> bool:
    flat = " ".join(solutions).replace("`", "").lower()
    return any(_token(knob.replace("`", "")).search(flat) for knob in knobs)


def names_internal(solutions: Sequence[str], names: Iterable[str]) -> bool:
    # a link (the prefilled report of an internal invariant) quotes the message in its
    # query: that tells no one to change a name
    solutions = [_URL.sub("", s) for s in solutions]
    spans = [span.strip().lower() for s in solutions for span in _SPAN.findall(s)]
    flat = " ".join(solutions).replace("`", "").lower()
    for name in names:
        low = name.lower()
        if any(span == low or span.endswith("." + low) for span in spans):
            return True
        if ("_" in name or "." in name) and _token(low).search(flat):
            return True
    return False


def says_internal(explanation: Explanation) -> bool:
    text = " ".join(
        [explanation.what_it_means, explanation.when_it_happens, *explanation.solutions]
    )
    return bool(_INTERNAL_WORDS.search(text))


def _test_key(file: str, name: str) -> tuple[str, str]:
    last = re.split(r"::|\.", name)[-1]
    return file, re.sub(r"\[.*\]$", "", last)


def _verified_key(test: str) -> tuple[str, str]:
    file, _, name = test.partition("::")
    return _test_key(file, name)


def find_site(store: Store, record: Verified | Triggered) -> ErrorSite | None:
    """The record's site by id; else (a reworded or moved error) by file, function and
    message, the same way the record was written down; else, when errdex now reads the
    message differently (a template it can see into, a class-built default), by what
    still names the site in the same release: file, function, exception and the line of
    the `raise`, with the literal words of either message found in the other."""
    found = store.get(record.id, package=record.package, version=record.version)
    if found is not None:
        return found.site
    same_line: list[ErrorSite] = []
    for candidate in store.iter_records(
        package=record.package, version=record.version, file_glob=record.file
    ):
        site = candidate.site
        if site.location.function != record.function:
            continue
        text = site.message.text if site.message is not None else None
        if text == record.message:
            return site
        if (
            site.location.line == record.line
            and site.exception.name == record.exception
            and _same_words(site, record.message)
        ):
            same_line.append(site)
    return same_line[0] if len(same_line) == 1 else None


_WORD = re.compile(r"[A-Za-z]{2,}")


def _same_words(site: ErrorSite, recorded: str | None) -> bool:
    """Whether the recorded message still reads as the site's: its words outside holes
    are all in the site's message, and the site's literal words are all in it, or each of
    its holes is one of the site's (`{opt}` then, `No such option: {opt}` now, the class
    building the text). None, a message errdex could not see then, fits any."""
    if recorded is None:
        return True
    text = site.message.text if site.message is not None else ""
    literal = site.message.literal_text if site.message is not None else ""
    holes = _HOLE.findall(recorded)
    outside = _HOLE.sub(" ", recorded)
    if not set(_WORD.findall(outside)) <= set(_WORD.findall(text)):
        return False
    return set(_WORD.findall(literal)) <= set(_WORD.findall(recorded)) or (
        bool(holes) and all(hole in text for hole in holes)
    )


_HOLE = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")


@dataclass
class Tally:
    records: int = 0
    missing: int = 0
    actionable: int = 0
    with_solution: int = 0
    knob_scored: int = 0
    knob_named: int = 0
    internal_named: int = 0
    internal: int = 0
    internal_said: int = 0
    test_records: int = 0  # records of explain_tests.jsonl
    test_missing: int = 0
    with_tests: int = 0  # of those, records with a triggering test
    listing: int = 0  # records errdex lists a test for
    listed: int = 0
    listed_right: int = 0
    verified_tests: int = 0
    verified_found: int = 0
    verified_capped: int = 0  # per record, at most MAX_TESTS
    found_capped: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in vars(self):
            if name != "misses":
                setattr(self, name, getattr(self, name) + getattr(other, name))


def score(record: Verified, site: ErrorSite | None, tally: Tally) -> None:
    tally.records += 1
    if site is None or site.explanation is None:
        tally.missing += 1
        tally.misses.append(f"{record.id}: not found in the index")
        return
    explanation = site.explanation
    solutions = explanation.solutions
    if record.actionable:
        tally.actionable += 1
        tally.with_solution += bool(solutions)
        if record.knobs:
            tally.knob_scored += 1
            tally.knob_named += names_knob(solutions, record.knobs)
    tally.internal_named += names_internal(solutions, record.internal_names)
    if not record.actionable and not record.passthrough:
        tally.internal += 1
        tally.internal_said += says_internal(explanation)


def score_tests(record: Triggered, site: ErrorSite | None, tally: Tally) -> None:
    tally.test_records += 1
    if site is None or site.explanation is None:
        tally.test_missing += 1
        tally.misses.append(f"{record.id}: a test record not found in the index")
        return
    verified = {_verified_key(t) for t in record.tests}
    listed = {_test_key(t.file, t.name) for t in site.explanation.tests}
    found = len(verified & listed)
    tally.with_tests += bool(verified)
    tally.listing += bool(listed)
    tally.listed += len(listed)
    tally.listed_right += found
    if record.chosen == "listed":
        return  # chosen for what errdex lists: for precision only
    tally.verified_tests += len(verified)
    tally.verified_found += found
    tally.verified_capped += min(len(verified), MAX_TESTS)
    tally.found_capped += min(found, MAX_TESTS)


def _share(part: int, whole: int) -> str:
    return "–" if whole == 0 else f"{part}/{whole} ({100 * part / whole:.0f}%)"


def _ratio(part: int, whole: int) -> float | None:
    return None if whole == 0 else part / whole


def row(name: str, t: Tally) -> list[str]:
    return [
        name,
        f"{t.records}" + (f" ({t.missing} not found)" if t.missing else ""),
        _share(t.with_solution, t.actionable),
        _share(t.knob_named, t.knob_scored),
        _share(t.internal_named, t.records - t.missing),
        _share(t.internal_said, t.internal),
        f"{t.with_tests}/{t.test_records}"
        + (f" ({t.test_missing} not found)" if t.test_missing else ""),
        f"{t.listing}",
        _share(t.listed_right, t.listed),
        _share(t.found_capped, t.verified_capped),
        _share(t.verified_found, t.verified_tests),
    ]


def verdicts(t: Tally) -> list[list[str]]:
    checks = [
        ("solutions on user-actionable records", t.with_solution, t.actionable, "solution"),
        ("right knob named (actionable, with a knob)", t.knob_named, t.knob_scored, "knob"),
        ("internal names suggested", t.internal_named, t.records - t.missing, "internal_named"),
        ("test precision", t.listed_right, t.listed, "precision"),
        (f"test recall (≤ {MAX_TESTS} a record)", t.found_capped, t.verified_capped, "recall"),
    ]
    rows = []
    for label, part, whole, key in checks:
        value, target = _ratio(part, whole), TARGETS[key]
        at_most = key == "internal_named"
        if value is None:
            met = "n/a (nothing to count)"
        elif (value <= target) if at_most else (value >= target):
            met = "met"
        else:
            met = "MISSED"
        shown = "–" if value is None else f"{100 * value:.0f}%"
        rows.append([label, shown, f"{'≤' if at_most else '≥'} {100 * target:.0f}%", met])
    return rows


def main(db: str | None = None) -> None:
    records = load()
    triggered = load_tests()
    pins = sorted(
        {(r.package, r.version) for r in records} | {(r.package, r.version) for r in triggered}
    )
    location = Path(db) if db else cache_root() / "bench-explain-quality.sqlite"
    with open_store(location) as store:
        for package, version in pins:
            index_source(f"pypi:{package}=={version}", store)
        per: dict[str, Tally] = {}
        for record in records:
            score(record, find_site(store, record), per.setdefault(record.package, Tally()))
        for truth in triggered:
            site = find_site(store, truth)
            score_tests(truth, site, per.setdefault(truth.package, Tally()))
        done = done_when(store, pins)
    overall = Tally()
    for tally in per.values():
        overall.add(tally)
    header = [
        "package",
        "records",
        "solution (actionable)",
        "right knob (actionable, with knobs)",
        "internal name in a solution ↓",
        "internal said internal",
        "records with a triggering test",
        "records errdex lists tests for",
        "test precision",
        f"test recall (≤ {MAX_TESTS} a record)",
        "test recall (all)",
    ]
    versions = dict(pins)
    rows = [row(f"{name} {versions[name]}", per[name]) for name in sorted(per)]
    rows.append(row("**overall**", overall))
    notes = (
        "Counts are records verified by hand (benchmarks/data/README.md). A knob is named"
        " when one of its listed forms (flag, config field, `Class.field`, env var,"
        " parameter, pip extra) appears in a solution as a whole token, case-insensitive,"
        " backticks ignored; records with no knob are left out of that column. An internal"
        " name counts when it is a backticked span of a solution (or its dotted tail), or,"
        " for names with `_` or `.`, anywhere in it (links left out: a prefilled report link"
        " quotes the message). Internal records (not actionable, not"
        " pass-through re-raises) count as said internal when what/when/solutions contain"
        ' "bug", "internal", "invariant" or "should never". Test columns count the records'
        " of benchmarks/data/explain_tests.jsonl (every site of requests, click, httpx and"
        " jinja2, their tests run; vllm records read by hand); tests match on file and last"
        f" name segment, parameters dropped; recall (≤ {MAX_TESTS}) counts at most"
        f" {MAX_TESTS} verified tests a record, as many as errdex lists; recall leaves out"
        " the vllm records drawn from errdex's own listing (they measure precision)."
    )
    misses = "\n".join(f"- {m}" for m in overall.misses) if overall.misses else ""
    save(
        "explain_quality.md",
        table(rows, header)
        + "\n\n"
        + table(verdicts(overall), ["target", "now", "goal", "verdict"])
        + "\n\n"
        + notes
        + ("\n\n" + misses if misses else "")
        + "\n\n## Done when, over every site of these releases (benchmarks/explain_done.py)\n\n"
        + done,
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
