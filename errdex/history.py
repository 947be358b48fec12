# How the errors of a package change between two versions: added, removed, reworded,
# retyped, moved, relaid. An id already carries an error unchanged across versions (lines
# left out of it); what is left is paired by where it is, what guards it and what it says.
from __future__ import annotations

import difflib
import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence

from errdex.model import Change, ChangeKind, LineageEvent, Record
from errdex.store import Store

__all__ = ["diff_records", "lineage", "render_markdown", "render_text", "summary"]

# Two messages this similar (difflib ratio) in one function are the same error reworded.
REWORD_SIMILARITY = 0.6


def _message(record: Record) -> str:
    message = record.site.message
    return "" if message is None else message.text


def _exception(record: Record) -> str:
    return record.site.exception.name


def _where(record: Record) -> tuple[str, str]:
    loc = record.site.location
    return loc.file, loc.function


def _place(record: Record) -> tuple[str, str]:
    """Where an error lives, ignoring a move into or out of a `src/` layout."""
    file, function = _where(record)
    return file.removeprefix("src/"), function


def _guards(record: Record) -> tuple[str, ...]:
    """The site's conditions, as their trees write them: a guard only reformatted (other
    quotes, spacing, line breaks) is the same guard."""
    return tuple(
        g.test if g.tree is None else g.tree.source()
        for g in record.site.guard
        if g.kind != "early-exit"
    )


def _similarity(a: Record, b: Record) -> float:
    return difflib.SequenceMatcher(None, _message(a), _message(b), autojunk=False).ratio()


def diff_records(old: Iterable[Record], new: Iterable[Record]) -> list[Change]:
    """Changes from the `old` records to the `new` ones (two versions of one package).

    Ids already match errors that did not change. The rest is paired in passes, each
    taking only what earlier passes left: the same message and class elsewhere (moved;
    relaid when only a `src/` folder differs, the module and function being the same; a
    message-less raise must also keep its place and guards), the same message in the
    same place with another class (retyped), a similar message of the same class in the
    same place (reworded; when one side has no message, the place and guards must be
    the same). What is left is added or removed.
    """
    old_by_id = {r.id: r for r in old}
    new_by_id = {r.id: r for r in new}
    gone = [r for i, r in old_by_id.items() if i not in new_by_id]
    came = [r for i, r in new_by_id.items() if i not in old_by_id]
    changes: list[Change] = []
    taken: set[str] = set()

    def best(record: Record, candidates: Iterable[Record]) -> Record | None:
        free = [c for c in candidates if c.id not in taken]
        free.sort(key=lambda c: (_place(c) != _place(record), _guards(c) != _guards(record)))
        return free[0] if free else None

    def pair(kind: ChangeKind, a: Record, b: Record) -> None:
        changes.append(Change(kind=kind, old=a, new=b))
        taken.update((a.id, b.id))

    by_text: dict[tuple[str, str], list[Record]] = defaultdict(list)
    by_place: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for record in came:
        by_text[(_message(record), _exception(record))].append(record)
        by_place[_place(record)].append(record)
    for record in gone:
        key = (_message(record), _exception(record))
        candidates = by_text.get(key, [])
        if not key[0]:  # no message to recognise it by: only where it is and what guards it
            candidates = [
                c
                for c in candidates
                if _place(c) == _place(record) and _guards(c) == _guards(record)
            ]
        match = best(record, candidates)
        if match is not None:
            pair("relaid" if _place(match) == _place(record) else "moved", record, match)
    for record in gone:
        if record.id in taken:
            continue
        here = by_place.get(_place(record), [])
        if not _message(record) or not all(_message(c) for c in here if c.id not in taken):
            # a message given to a bare raise, or taken from one: what it says cannot be
            # compared, so the same class, place and guards recognise it
            bare = [
                c
                for c in here
                if c.id not in taken
                and _exception(c) == _exception(record)
                and _guards(c) == _guards(record)
                and (not _message(c) or not _message(record))
            ]
            if bare:
                pair("reworded", record, bare[0])
                continue
            if not _message(record):
                continue
        match = best(record, [c for c in here if _message(c) == _message(record)])
        if match is not None:
            pair("retyped", record, match)
            continue
        scored = sorted(
            (
                (_similarity(record, c) + (0.1 if _guards(c) == _guards(record) else 0.0), c)
                for c in here
                if c.id not in taken and _exception(c) == _exception(record)
            ),
            key=lambda sc: -sc[0],
        )
        if scored and scored[0][0] >= REWORD_SIMILARITY:
            pair("reworded", record, scored[0][1])

    changes += [Change(kind="removed", old=r, new=None) for r in gone if r.id not in taken]
    changes += [Change(kind="added", old=None, new=r) for r in came if r.id not in taken]
    order = {"added": 0, "removed": 1, "reworded": 2, "retyped": 3, "moved": 4, "relaid": 5}

    def sort_key(change: Change) -> tuple[int, str, int]:
        record = change.new or change.old
        assert record is not None
        loc = record.site.location
        return order[change.kind], loc.file, loc.line

    changes.sort(key=sort_key)
    return changes


KINDS: tuple[ChangeKind, ...] = ("added", "removed", "reworded", "retyped", "moved", "relaid")


def summary(changes: Sequence[Change]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(KINDS, 0)
    for change in changes:
        counts[change.kind] += 1
    return counts


def _relaid_line(changes: Sequence[Change], *, markdown: bool) -> str | None:
    """One line for every relaid error: they are the same modules, only under `src/` on
    one side, and listing each would bury the changes that matter."""
    relaid = [c for c in changes if c.kind == "relaid" and c.old and c.new]
    if not relaid:
        return None
    into = {c.new.site.location.file.startswith("src/") for c in relaid if c.new}
    src = "`src/`" if markdown else "src/"
    where = f"in or out of {src}"
    if into == {True}:
        where = f"now under {src}"
    elif into == {False}:
        where = f"no longer under {src}"
    return (
        f"{len(relaid)} errors unchanged but for their folder ({where}):"
        " the same modules and functions"
    )


def render_markdown(old_label: str, new_label: str, changes: Sequence[Change]) -> str:
    """Release-notes Markdown: one section per kind of change, most telling first."""
    counts = summary(changes)
    lines = [f"## Errors: {old_label} → {new_label}", ""]
    lines.append(", ".join(f"{n} {kind}" for kind, n in counts.items()))
    titles = {
        "added": "New errors",
        "removed": "Errors no longer raised",
        "reworded": "Reworded",
        "retyped": "Exception class changed",
        "moved": "Moved",
    }
    for kind, title in titles.items():
        group = [c for c in changes if c.kind == kind]
        if not group:
            continue
        lines += ["", f"### {title} ({len(group)})", ""]
        for change in group:
            lines.append("- " + _describe(change, markdown=True))
    relaid = _relaid_line(changes, markdown=True)
    if relaid is not None:
        lines += ["", f"### Same code, another folder ({counts['relaid']})", "", relaid + "."]
    return "\n".join(lines) + "\n"


def render_text(old_label: str, new_label: str, changes: Sequence[Change]) -> str:
    counts = summary(changes)
    head = f"{old_label} -> {new_label}: " + ", ".join(f"{n} {k}" for k, n in counts.items())
    listed = [f"{c.kind:<9} {_describe(c, markdown=False)}" for c in changes if c.kind != "relaid"]
    relaid = _relaid_line(changes, markdown=False)
    return "\n".join([head, *listed, *([f"relaid    {relaid}"] if relaid else [])])


def _around_difference(old: str, new: str, context: int = 40) -> tuple[str, str]:
    """Both texts cut to start a little before the first place where they differ."""
    first = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    if first <= context:
        return old, new
    cut = old.rfind(" ", 0, first - context) + 1
    return "…" + old[cut:], "…" + new[cut:]


def _describe(change: Change, *, markdown: bool) -> str:
    def code(text: str) -> str:
        text = " ".join(text.split())
        if len(text) > 120:
            text = text[:119] + "…"
        return f"`{text.replace('`', '')}`" if markdown else text

    def said(record: Record) -> str:
        message = _message(record)
        return code(message) if message else "(no message)"

    old, new = change.old, change.new
    record = new or old
    assert record is not None
    file, function = _where(record)
    where = f"{file}:{record.site.location.line} ({function})"
    exc = _exception(record)
    if change.kind == "reworded" and old and new:
        before, after = _around_difference(_message(old), _message(new))
        return f"{exc} at {where}: {code(before)} → {code(after)}"
    if change.kind == "retyped" and old and new:
        return f"{said(new)} at {where}: {_exception(old)} → {_exception(new)}"
    if change.kind in ("moved", "relaid") and old and new:
        old_file, old_function = _where(old)
        return f"{exc} {said(new)}: {old_file} ({old_function}) → {where}"
    return f"{exc} at {where}: {said(record)}"


def lineage(store: Store, record: Record) -> list[LineageEvent]:
    """How one error came to be what it is and what became of it: each change between
    consecutive indexed versions of its package that touched it, its predecessors or its
    successors, oldest first. From an older id too: what it was reworded, retyped, moved
    or relaid into in later versions, and when it was removed."""
    package = record.package
    versions = [s.version for s in store.snapshots() if s.package == package]
    present = set(record.versions) or {record.version}
    inside = [i for i, v in enumerate(versions) if v in present]
    if not inside:
        return []
    pairs = list(itertools.pairwise(versions))
    # back from the first version that has it, forward from the last: in between the id
    # is unchanged, so no change can touch it
    before = _walk(store, package, pairs[: inside[0]][::-1], record.id, back=True)
    after = _walk(store, package, pairs[inside[-1] :], record.id, back=False)
    return [*before[::-1], *after]


def _walk(
    store: Store, package: str, pairs: Sequence[tuple[str, str]], start: str, *, back: bool
) -> list[LineageEvent]:
    """The changes that follow the error `start` across `pairs` of (older, newer)
    versions, in the order given: walking `back`, from each change's newer side to its
    older one (an error added ends the walk); forward, from the older side to the newer
    one (an error removed ends it). Each version is read once."""
    wanted = {start}
    events: list[LineageEvent] = []
    held: dict[str, list[Record]] = {}  # the version the next pair shares with this one

    def records(version: str) -> list[Record]:
        found = held.get(version)
        return (
            found
            if found is not None
            else list(store.iter_records(package=package, version=version))
        )

    for old_version, new_version in pairs:
        older, newer = records(old_version), records(new_version)
        held = {old_version: older} if back else {new_version: newer}
        for change in diff_records(older, newer):
            near, far = (change.new, change.old) if back else (change.old, change.new)
            if near is None or near.id not in wanted:
                continue
            if far is not None:
                wanted.add(far.id)
            events.append(
                LineageEvent(
                    kind=change.kind,
                    old_version=old_version,
                    new_version=new_version,
                    old=change.old,
                    new=change.new,
                )
            )
    return events
