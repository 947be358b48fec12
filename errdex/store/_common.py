# What every store implementation shares and no SQL dialect decides: how versions
# order, which snapshots a query covers, how a search hit is highlighted, and where the
# default database lives.
from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from errdex import rank

VersionKey = tuple[int, Version | None, str]


def version_key(version: str) -> VersionKey:
    """Return a sort key for `version`: PEP 440 order, non-PEP 440 versions first by string.

    A version that packaging cannot parse (a branch name, a bare commit) sorts before
    every PEP 440 version, so that a real release is always "the newest" of a package.
    """
    try:
        return (1, Version(version), version)
    except InvalidVersion:
        return (0, None, version)


def sort_versions(versions: list[str]) -> list[str]:
    """Return `versions` oldest first (see `version_key`)."""
    return sorted(versions, key=version_key)


def default_location() -> str:
    """Return $ERRDEX_DB if set, else errdex.sqlite in the user data directory."""
    env = os.environ.get("ERRDEX_DB")
    if env:
        return env
    import platformdirs  # only when no database is named: its import is not free

    return str(Path(platformdirs.user_data_dir("errdex")) / "errdex.sqlite")


def chosen_snapshots(rows: Iterable[tuple[int, str, str]], version: str | None) -> list[int]:
    """The ids among (id, package, version) `rows` that a query with `version` covers, by
    package, then version: None the newest version of each package, "*" every version,
    else that version."""
    found = sorted(rows, key=lambda r: (r[1], version_key(r[2])))
    if version is None:
        newest: dict[str, int] = {}
        for snapshot_id, package, _ in found:
            newest[package] = snapshot_id  # the last one of each package is the newest
        return list(newest.values())
    if version == "*":
        return [r[0] for r in found]
    return [r[0] for r in found if r[2] == version]


def search_highlight(words: list[str], fields: tuple[str | None, ...]) -> dict[str, Any]:
    """A hit's highlight: message and title whole, snippet fields when a word is in them
    (`fields` in rank.FIELDS order; the message alone for a message-only search)."""
    text = dict(zip(rank.FIELDS, fields, strict=False))
    text = {key: text.get(key) for key in rank.FIELDS}
    out: dict[str, Any] = {
        key: None if text[key] is None else rank.marks(words, text[key] or "")
        for key in ("message", "title")
    }
    for key in rank.SNIPPET_FIELDS:
        if rank.matched(words, text[key]):
            out[key] = rank.marks(words, rank.snippet(text[key] or ""))
    return out
