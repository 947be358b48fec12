# errdex.lookup: the matcher for programs and for hooks that explain an error at the
# moment it is raised. One matcher per database is kept for the life of the process and
# renewed when a snapshot is written, so repeated calls read little.
from __future__ import annotations

import dataclasses
import threading
import traceback
from pathlib import Path

from errdex.match import Matcher
from errdex.model import Match
from errdex.store import Store, default_location, open_store

_lock = threading.Lock()
_open: dict[str, tuple[Store, Matcher]] = {}


def lookup(
    error: BaseException | str,
    db: str | Path | None = None,
    *,
    package: str | None = None,
    limit: int = 10,
) -> list[Match]:
    """Return the raise sites that produced `error`, best first (empty when none fits).

    `error` is an exception (its traceback and chained causes are used, as printed) or the
    text a user saw: a message, a fragment or a whole traceback. `db` is a SQLite path
    (default: $ERRDEX_DB, else the user data dir); `package` ("name" or "name==version")
    narrows the search. For an exception, a match from another version than the one
    installed here says so: its `installed_version` is set and its `note` tells. Raises
    StoreError when the database cannot be read, and InputTooLarge for text over the
    matcher's cap.
    """
    if isinstance(error, str):
        return list(_matcher(db).match(error, package=package, limit=limit).matches)
    text = "".join(traceback.format_exception(error))
    found = _matcher(db).match(text, package=package, limit=limit).matches
    installed: dict[str, str | None] = {}
    return [_against_installed(match, installed) for match in found]


def _against_installed(match: Match, installed: dict[str, str | None]) -> Match:
    """`match`, with the version of its package installed in this process's environment
    when that is not the version the answer was indexed from."""
    if match.package not in installed:
        installed[match.package] = _installed_version(match.package)
    here = installed[match.package]
    if here is None or _same_version(here, match.version):
        return match
    said = (
        f"{match.package} {here} is installed here; this answer is from the indexed"
        f" {match.version} (errdex index installed:{match.package} indexes yours)"
    )
    note = f"{match.note}; {said}" if match.note else said
    return dataclasses.replace(match, installed_version=here, note=note)


def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except (metadata.PackageNotFoundError, ValueError):
        return None


def _same_version(a: str, b: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def _matcher(db: str | Path | None) -> Matcher:
    location = str(default_location() if db is None else db)
    with _lock:
        found = _open.get(location)
        if found is None:
            store = open_store(location, create=False)
            found = (store, Matcher(store))
        else:
            found = (found[0], found[1].fresh())
        _open[location] = found
        return found[1]
