# Issue 10's "Done when" over every site of the benchmark's pinned packages, counted from
# the stored explanations (no hand-verified truth here: these are the checks that hold or
# fail for each site as written): solutions that name a private name or a variable the
# library computes, internal invariants and whether their report link comes first,
# raises after a loop that found nothing and whether they say what no item matched, the
# seed error's solutions, and prose that shows its templates.
#
# Counting rules:
# - a solution names a private name when a backticked span of it has a part that starts
#   with one underscore (`self._x`, `_cache`); one names a computed variable when a span
#   is a local input of the site that no knob sets and no other input shares its name;
#   quotes of the message's own advice and links are left out (they are its words), and
#   so is the function's own name;
# - an internal invariant is a site whose first solution is the report link; it says so
#   when what it means says "a bug in NAME"; an abstract method every subclass of the
#   package implements has the report link after "use a subclass that implements it";
# - a loop-exhaustion raise says what no item matched when its when/what name the loop
#   ("no `x` in `xs`", "no item", "stopped without returning");
# - artefacts are searched in what/when/solutions, links left out; an "Or" is dangling
#   when it opens the first solution.
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from benchmarks.common import table
from errdex.model import ErrorSite, Explanation
from errdex.store import Store

SEED = "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)"
_URL = re.compile(r"https?://\S+")
_SPAN = re.compile(r"`([^`]+)`")
_PRIVATE = re.compile(r"(?:^|\.)_[A-Za-z0-9]\w*(?<!__)(?=\.|\(|$)")
_SAYS_LOOP = re.compile(r"no `[^`]+` in `|no item|stopped without returning")


def _one_name_all_changed(text: str) -> bool:
    """ "`x` (default 1) are all changed from their defaults": one name, plural words."""
    head, found, _ = text.partition(" are all changed")
    return bool(found) and len(_SPAN.findall(head)) == 1


# Prose that shows its templates, by what the reader sees.
ARTEFACTS: dict[str, Callable[[str], bool]] = {
    '"an environment variable" twice': lambda t: "variable an environment variable" in t,
    'a boolean as "not empty, zero or None"': lambda t: "not empty, zero or None" in t,
    '"are all changed" of one name': _one_name_all_changed,
    "reST literals (``x``) or Sphinx roles": lambda t: (
        "``" in t or re.search(r":\w+:`", t) is not None
    ),
}


_DANGLING = 'a dangling "Or" (the first solution)'


@dataclass
class Done:
    sites: int = 0
    with_solution: int = 0
    private_named: int = 0
    local_named: int = 0
    internal: int = 0  # the report fix first
    internal_said: int = 0  # of those, "a bug in NAME" said in what it means
    abstract: int = 0  # the report fix after "use a subclass that implements it"
    exhausted: int = 0
    exhausted_said: int = 0
    artefacts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys([_DANGLING, *ARTEFACTS], 0)
    )
    examples: list[str] = field(default_factory=list)


def _spans(explanation: Explanation) -> Iterable[str]:
    for fix in explanation.fixes:
        if fix.kind != "message":
            yield from (s.strip() for s in _SPAN.findall(_URL.sub("", fix.text)))


def count(site: ErrorSite, done: Done) -> None:
    explanation = site.explanation
    if explanation is None:
        return
    done.sites += 1
    done.with_solution += bool(explanation.solutions)
    spans = list(_spans(explanation))
    if any(_PRIVATE.search(s) for s in spans):
        done.private_named += 1
        done.examples.append(f"{site.id}: private name in {explanation.solutions}")
    others = {i.name for i in site.inputs if i.kind != "local"} | {
        k.name for i in site.inputs for k in i.knobs
    }
    others.add(site.location.function.rsplit(".", 1)[-1])  # the function, named as such
    computed = {i.name for i in site.inputs if i.kind == "local" and not i.knobs} - others
    if any(s in computed for s in spans):
        done.local_named += 1
        done.examples.append(f"{site.id}: computed variable in {explanation.solutions}")
    kinds = [f.kind for f in explanation.fixes]
    if kinds[:1] == ["report"]:
        done.internal += 1
        done.internal_said += "a bug in" in explanation.what_it_means
    elif "report" in kinds:
        done.abstract += 1
    if any(g.kind == "loop-exhausted" for g in site.guard):
        done.exhausted += 1
        said = _SAYS_LOOP.search(explanation.when_it_happens + explanation.what_it_means)
        done.exhausted_said += said is not None
    prose = [
        _URL.sub("", t)
        for t in (explanation.what_it_means, explanation.when_it_happens, *explanation.solutions)
    ]
    for name, found in ARTEFACTS.items():
        done.artefacts[name] += any(found(t) for t in prose)
    # an alternative with nothing before it to be one of
    done.artefacts[_DANGLING] += explanation.solutions[:1] != () and (
        explanation.solutions[0].startswith(("Or:", "Or,"))
    )


def seed_check(store: Store, version: str) -> str:
    """Whether the seed error's solutions name `--compilation-config` beside the field
    and its default."""
    for record in store.iter_records(package="vllm", version=version):
        site = record.site
        if site.message is None or site.message.text != SEED or site.explanation is None:
            continue
        said = " ".join(site.explanation.solutions)
        checks = {
            "`--compilation-config`": "--compilation-config" in said,
            "the field": "`CompilationConfig.encoder_cudagraph_max_vision_items_per_batch`" in said,
            "its default": "default 0" in said,
        }
        return "; ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())
    return "the seed error is not in the index"


def done_when(store: Store, pins: Iterable[tuple[str, str]]) -> str:
    """The Done-when table over every site of each pinned package, and the seed check."""
    rows = []
    examples: list[str] = []
    versions = dict(pins)
    for package, version in sorted(versions.items()):
        done = Done()
        for record in store.iter_records(package=package, version=version):
            count(record.site, done)
        examples += done.examples[:3]
        rows.append(
            [
                f"{package} {version}",
                f"{done.sites}",
                f"{done.with_solution}",
                f"{done.private_named}",
                f"{done.local_named}",
                f"{done.internal_said}/{done.internal}",
                f"{done.abstract}",
                f"{done.exhausted_said}/{done.exhausted}",
                ", ".join(f"{n} {k}" for k, n in done.artefacts.items() if n) or "none",
            ]
        )
    header = [
        "package",
        "sites",
        "with a solution",
        "a solution names a private name",
        "a solution names a computed variable",
        "internal invariants (report first) saying so",
        "abstract methods every subclass implements",
        "loop exhaustion says what no item matched",
        "template artefacts",
    ]
    seed = seed_check(store, versions["vllm"]) if "vllm" in versions else "vllm not pinned"
    shown = "\n".join(f"- {e}" for e in examples)
    return (
        table(rows, header)
        + f"\n\nSeed error's solutions: {seed}."
        + (f"\n\nExamples:\n{shown}" if shown else "")
    )
