# The explain stage for a few sites of a few files: the hook's answer at the moment of
# failure, before the distribution is indexed. The sites asked for are explained by the
# whole explainer (errdex.explain.explain), over the facts of the files extracted and,
# of their sites, those of the functions that hold the ones asked for: what a site's prose
# reads of its own function (the other raises' checks, see Catalog) is all there, and the
# run stays far below the sizes at which explain starts worker processes. What the rest
# of the distribution would add (its callers, knobs and tests elsewhere) is missing: the
# caller says so.
from __future__ import annotations

import dataclasses
from collections.abc import Collection

from errdex.explain import explain
from errdex.extract import Extraction
from errdex.model import ErrorSite, Snapshot

__all__ = ["explain_at"]


def explain_at(
    extraction: Extraction, snapshot: Snapshot, places: Collection[tuple[str, int]]
) -> tuple[ErrorSite, ...]:
    """The sites of `extraction` at `places` ((file, line) pairs, the file as in
    `location.file`), in the extraction's order, each with its `explanation` set from
    the extraction alone; () when no site is at any of them. Titles are made unique
    among the sites explained (those of the functions asked for), so a title the whole
    index would tell apart from another site's, with "(in Function)", may lack it."""
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
