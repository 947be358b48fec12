"""errdex at the moment of failure: the error page of a raise, under its traceback.

>>> import errdex.hook
>>> errdex.hook.install()        # sys.excepthook and threading.excepthook

`explain(exc)` gives the section as text; `errdex run script.py`, the pytest plugin
(`pytest --errdex`) and the IPython extension (`%load_ext errdex.hook.ipython`) use it.
`ERRDEX_DISABLE=1` turns all of it off. This module imports nothing heavy: what an
answer needs loads on the first error to explain (the answers kept for an indexed
distribution need no more than the json module; errdex's store, or its extractor and
explainer for a first error, only when those are missing).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["explain", "install", "load_ipython_extension", "report", "uninstall"]

_previous: dict[str, Any] = {}


def _disabled() -> bool:
    return os.environ.get("ERRDEX_DISABLE", "") not in ("", "0")


def explain(exc: BaseException, db: str | Path | None = None, *, color: bool = False) -> str | None:
    """Return errdex's section for `exc` (each exception of its chain and group), or None
    when there is nothing to say (an error of the user's own code, or no raise site).

    The innermost traceback frame in a file of an installed distribution is looked up by
    file and line in `db` (default: $ERRDEX_DB, else the user data dir). A distribution
    not indexed yet is answered from the raising file alone (parsed, never imported),
    and indexed into `db` by a detached background process for the next error. An error
    raised in compiled code gets one line naming the call and the module. Never raises,
    and changes neither the exception nor the process: a failure inside errdex is one
    line on stderr and None.
    """
    return _explain(exc, db, color=color)


def _explain(
    exc: BaseException, db: str | Path | None = None, *, color: bool = False, stop: bool = False
) -> str | None:
    """explain(); with `stop`, a Ctrl-C meanwhile is raised on after its line (a test
    session must stop, as it would without errdex), else it is only said."""
    if _disabled():
        return None
    try:
        from errdex.hook import _core

        return _core.explain(exc, db, color=color)
    except BaseException as failure:  # the user's error comes first
        if isinstance(failure, KeyboardInterrupt):
            say("errdex: interrupted; the error above is unexplained")
            if stop:
                raise
        else:
            detail = " ".join(str(failure).split())[:200]
            say(f"errdex: could not explain this error ({type(failure).__name__}: {detail})")
        return None


# What stands for the characters of errdex's lines that a stream may not encode.
_PLAIN = str.maketrans({"─": "-", "…": "...", "·": "-", "—": "-", "←": "<-", "→": "->"})


def encodable(text: str, stream: Any) -> str:
    """`text` as `stream` can write it: as it is when its encoding holds every character
    (UTF-8, mostly), else with plain stand-ins and backslash escapes (a stderr opened
    ascii:strict must not lose the section to a UnicodeEncodeError on "…")."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:
        encoding = "ascii"
    return text.translate(_PLAIN).encode(encoding, "backslashreplace").decode(encoding)


def say(line: str) -> None:
    """One line of errdex's on stderr (when there is one), in what it can encode."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(encodable(line, stream) + "\n")
        stream.flush()
    except Exception:  # a closed or broken stderr: the user's error comes first
        pass


def report(exc: BaseException, db: str | Path | None = None) -> None:
    """Print errdex's section for `exc` on stderr, if there is one."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        color = stream.isatty() and not os.environ.get("NO_COLOR")
    except Exception:
        color = False
    text = explain(exc, db, color=color)
    if text:
        try:
            stream.write(encodable(text, stream) + "\n")
            stream.flush()
        except Exception:
            pass


def _excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    previous = _previous.get("sys") or sys.__excepthook__
    try:
        previous(kind, value, tb)
    finally:
        report(value)


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    previous = _previous.get("threading") or threading.__excepthook__
    try:
        previous(args)
    finally:
        if args.exc_value is not None:
            report(args.exc_value)


def install() -> None:
    """Print errdex's section under every uncaught exception's traceback, in the main
    thread and in other threads. The hooks already set run first; idempotent."""
    if _disabled():
        return
    if sys.excepthook is not _excepthook:
        _previous["sys"] = sys.excepthook
        sys.excepthook = _excepthook
    if threading.excepthook is not _thread_hook:
        _previous["threading"] = threading.excepthook
        threading.excepthook = _thread_hook


def uninstall() -> None:
    """Put back the hooks install() replaced."""
    if sys.excepthook is _excepthook:
        sys.excepthook = _previous.pop("sys", sys.__excepthook__)
    if threading.excepthook is _thread_hook:
        threading.excepthook = _previous.pop("threading", threading.__excepthook__)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext errdex.hook`: the section under each traceback IPython shows."""
    from errdex.hook.ipython import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from errdex.hook.ipython import unload_ipython_extension as unload

    unload(ipython)
