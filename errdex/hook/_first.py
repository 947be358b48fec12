# The answer at a failure in a distribution that is not indexed yet: the file of the
# raising frame is extracted and its sites there explained, in this process, in tens of
# milliseconds (errdex.extract.single, errdex.explain.single), instead of the whole
# distribution. When the raising function is a raise helper (it always raises), the file
# of its caller is read with it, so that the call is the site, as in the full index; at
# most three calls out. The answer says it comes from those files alone.
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from errdex.hook._answers import Answer, answer_of

__all__ = ["Place", "answers"]

Place = tuple[str, int, str]  # (file relative to the distribution's folder, line, function)
_CALLS_OUT = 3


def answers(
    root: str, package: str, version: str, places: Sequence[Place]
) -> dict[tuple[str, int], list[Answer]]:
    """The answers at `places` (the raising frame's first, then its callers' in the same
    distribution, outwards), from the files they are in, by (file, line); the files read
    are the raising one and those of the calls out of raise helpers."""
    from errdex.explain.single import explain_at
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
