# The extract stage over a few named files of a tree, in this process: what the hook needs
# at the moment of failure, when only the files of the traceback are worth reading (tens of
# milliseconds) and the process is the user's. No cache, no worker process, no other
# Python started, nothing written: each file is read, parsed (never imported) and linked
# with the others named, so that a call to a raise helper of another of them is a site.
from __future__ import annotations

from collections.abc import Sequence

from errdex.extract import Extraction
from errdex.extract.facts import FileFacts
from errdex.extract.files import MAX_FILE_BYTES, module_name, too_big
from errdex.extract.link import linked
from errdex.extract.parse import Skip, parse_file
from errdex.model import SkippedFile, Snapshot
from errdex.sources.reading import read_regular

__all__ = ["extract_files"]


def extract_files(snapshot: Snapshot, paths: Sequence[str]) -> Extraction:
    """The sites of the files `paths` (relative to `snapshot.root`, "/"-separated) of the
    snapshot, linked with each other only: names, classes and helpers of files not named
    stay unresolved, as in a tree of these files alone. `tests` is empty and `tree_hash`
    is "". Raises nothing for odd code: a file that cannot be read or parsed is in
    `skipped`, with the reason."""
    facts: list[FileFacts] = []
    skipped: list[SkippedFile] = []
    for rel in dict.fromkeys(paths):
        outcome = _parse(snapshot, rel)
        if isinstance(outcome, str):
            skipped.append(SkippedFile(path=rel, reason=outcome))
        else:
            facts.append(outcome)

    def revisit(rel: str, module: str, lines: frozenset[int]) -> FileFacts | None:
        outcome = _parse(snapshot, rel, lines)
        return None if isinstance(outcome, str) else outcome

    return linked(
        snapshot.package,
        facts,
        revisit,
        files=len(facts) + len(skipped),
        parsed=len(facts),
        skipped=skipped,
        tree_hash="",
    )


def _parse(snapshot: Snapshot, rel: str, lines: frozenset[int] = frozenset()) -> FileFacts | str:
    """The facts of one file, or why there are none."""
    try:
        data = read_regular(snapshot.root / rel, MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            return too_big(len(data))
        return parse_file(data, rel, module_name(rel), want_calls=lines)
    except Skip as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror}"
    except (MemoryError, RecursionError):
        return "too big or too deeply nested to read here"
