# Where an error ends when the package itself catches it and goes on: a form framework
# collects its validators' `ValidationError`s into `field.errors`, a worker logs a task's
# `Retry` and schedules it again. Such an error reaches the user as what that handler
# does, not as a traceback, whenever it is raised under the handler's `try`; the page
# says which handler, where, and what it does first.
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from errdex.extract.facts import FileFacts, QuietHandler
from errdex.extract.names import Names
from errdex.model import ErrorSite

MAX_SHOWN = 2  # handlers named for one exception


def quietly_caught(
    sites: Sequence[ErrorSite], facts: Sequence[FileFacts], names: Names
) -> dict[int, str]:
    """For each site (by index) whose exception class, one the package defines, a handler
    of the package catches without raising again: the sentence that says where it ends."""
    own = {f.module.split(".", 1)[0] for f in facts}
    caught: dict[str, list[tuple[str, QuietHandler]]] = defaultdict(list)
    for file in facts:
        for handler in file.quiet:
            for written in handler.caught:
                qualified = names.resolve(written, file)
                if qualified.split(".", 1)[0] in own and qualified in names.classes:
                    caught[qualified].append((file.path, handler))
    if not caught:
        return {}
    out: dict[int, str] = {}
    for number, site in enumerate(sites):
        exception = site.exception
        for cls in (exception.qualname, *exception.bases):
            found = caught.get(cls)
            if found:
                out[number] = _sentence(exception.name.rsplit(".", 1)[-1], found)
                break
    return out


def _sentence(exception: str, found: list[tuple[str, QuietHandler]]) -> str:
    shown = [f"`{h.function}` ({path}:{h.line}, with `{h.then}`)" for path, h in found[:MAX_SHOWN]]
    where = " and ".join(shown)
    more = f", and {len(found) - MAX_SHOWN} more places" if len(found) > MAX_SHOWN else ""
    return (
        f" The package itself catches `{exception}` and goes on, in {where}{more}: raised"
        " under one of those, this error stops there, and what you see is what that handler"
        " makes of it (a collected message, a log line, another error raised later)."
    )
