# The answer at a failure in a distribution that is not indexed yet: the file of the
# raising frame is extracted (errdex.extract.single) and its sites there explained
# (explain_at), in this process, in tens of milliseconds, instead of the whole
# distribution. When the raising function is a raise helper (it always raises), the file
# of its caller is read with it, so that the call is the site, as in the full index; at
# most three calls out. The answer says it comes from those files alone.
from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from errdex.hook._answers import Answer, answer_of

if TYPE_CHECKING:
    from errdex.extract import Extraction
    from errdex.model import ErrorSite, Snapshot

__all__ = ["Place", "answers", "explain_at"]

Place = tuple[str, int, str]  # (file relative to the distribution's folder, line, function)
_CALLS_OUT = 3


def answers(
    root: str, package: str, version: str, places: Sequence[Place]
) -> dict[tuple[str, int], list[Answer]]:
    """The answers at `places` (the raising frame's first, then its callers' in the same
    distribution, outwards), from the files they are in, by (file, line); the files read
    are the raising one and those of the calls out of raise helpers."""
    from errdex.extract.single import extract_files
    from errdex.model import Snapshot

    if not places:
        return {}
    snapshot = Snapshot(
        package=package, version=version, root=Path(root), source=f"installed:{package}"
    )
    files = [places[0][0]]
    extraction = extract_files(snapshot, files)
    reach = 0  # how many calls out the answer may be
    while reach < min(_CALLS_OUT, len(places) - 1):
        file, _, function = places[reach]
        module = next((f for f in extraction.facts if f.path == file), None)
        if module is None or not any(h.qualname == function for h in module.helpers):
            break
        reach += 1
        outer = places[reach][0]
        if outer not in files:
            files.append(outer)
            extraction = extract_files(snapshot, files)
    wanted = [(file, line) for file, line, _ in places[: reach + 1]]
    sites = explain_at(extraction, snapshot, wanted)
    found: dict[tuple[str, int], list[Answer]] = {}
    for site in sites:
        answer = answer_of(site, package, version)
        found.setdefault((site.location.file, site.location.line), []).append(answer)
    return found


def explain_at(
    extraction: Extraction, snapshot: Snapshot, places: Collection[tuple[str, int]]
) -> tuple[ErrorSite, ...]:
    """The sites of `extraction` at `places` ((file, line) pairs, the file as in
    `location.file`), in the extraction's order, each with its `explanation` set from
    the extraction alone; () when no site is at any of them.

    They are explained by the whole explainer (errdex.explain.explain), over the facts
    of the files extracted and, of their sites, those of the functions that hold the ones
    asked for: what a site's prose reads of its own function (the other raises' checks)
    is all there, and the run stays far below the sizes at which explain starts worker
    processes. What the rest of the distribution would add (its callers, knobs and tests
    elsewhere) is missing: the caller says so. Titles are made unique among the sites
    explained, so a title the whole index would tell apart from another site's, with
    "(in Function)", may lack it."""
    from errdex.explain import explain

    wanted = set(places)
    asked = [s for s in extraction.sites if (s.location.file, s.location.line) in wanted]
    if not asked:
        return ()
    functions = {(s.location.file, s.location.function) for s in asked}
    sites = extraction.sites
    numbers = [
        i for i, s in enumerate(sites) if (s.location.file, s.location.function) in functions
    ]
    written = extraction.written
    part = dataclasses.replace(
        extraction,
        sites=tuple(sites[i] for i in numbers),
        written=tuple(written[i] for i in numbers) if len(written) == len(sites) else (),
    )
    done = explain(part, snapshot).sites
    return tuple(s for s in done if (s.location.file, s.location.line) in wanted)
