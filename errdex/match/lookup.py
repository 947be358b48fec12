# errdex.lookup: the matcher for programs and for hooks that explain an error at the
# moment it is raised. One matcher per database is kept for the life of the process and
# renewed when a snapshot is written, so repeated calls read little. An exception is
# read as its traceback prints it, cut as the hook cuts it (the last MAX_CHAIN of its
# chain, the last MAX_FRAMES frames and MAX_MESSAGE characters of each message, the
# end of the whole within the matcher's cap): it is called from the user's `except`
# block, and must not fail there because the error is huge.
from __future__ import annotations

import dataclasses
import threading
import traceback
from pathlib import Path

from errdex.match import MAX_INPUT_BYTES, Matcher
from errdex.model import Match
from errdex.store import Store, default_location, open_store

MAX_CHAIN = 50  # exceptions of a chain read, nearest the error
MAX_FRAMES = 100  # frames of each exception's traceback, innermost
MAX_MESSAGE = 20_000  # characters of each exception's message

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
    matcher's cap (an exception is cut to fit instead).
    """
    if isinstance(error, str):
        return list(_matcher(db).match(error, package=package, limit=limit).matches)
    text = printed(error)
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


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def printed(error: BaseException) -> str:
    """`error`'s traceback as Python prints it, chained causes first, cut to fit the
    matcher (see the module comment)."""
    chain: list[tuple[BaseException, str]] = []
    seen: set[int] = set()
    current: BaseException | None = error
    joint = ""
    while current is not None and id(current) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(current))
        chain.append((current, joint))
        if current.__cause__ is not None:
            current, joint = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, joint = current.__context__, _CONTEXT
        else:
            current = None
    text = "".join(_one(exc) + joint for exc, joint in reversed(chain))
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_INPUT_BYTES:
        return text
    end = data[-MAX_INPUT_BYTES:].decode("utf-8", "ignore")
    return end[end.find("\n") + 1 :]  # from the first whole line


def _one(exc: BaseException) -> str:
    """One exception as Python prints it, without its chain (the traceback module would
    walk all of a chain to print one link of it): its last frames and its last line."""
    frames = traceback.extract_tb(exc.__traceback__, limit=-MAX_FRAMES)
    head = "".join(["Traceback (most recent call last):\n", *frames.format()]) if frames else ""
    kind = type(exc)
    name = kind.__qualname__
    if kind.__module__ not in ("builtins", "__main__"):
        name = f"{kind.__module__}.{name}"
    try:
        message = str(exc)
    except Exception:  # the exception's own __str__ fails: Python says as much
        message = "<exception str() failed>"
    return f"{head}{name}: {message[:MAX_MESSAGE]}\n" if message else f"{head}{name}\n"


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
