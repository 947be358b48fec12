# errdex.lookup: the matcher for programs and for hooks that explain an error at the
# moment it is raised. One matcher per database is kept for the life of the process and
# renewed when a snapshot is written, so repeated calls read little.
from __future__ import annotations

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
    narrows the search. Raises StoreError when the database cannot be read, and
    InputTooLarge for text over the matcher's cap.
    """
    text = error if isinstance(error, str) else "".join(traceback.format_exception(error))
    return list(_matcher(db).match(text, package=package, limit=limit).matches)


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
