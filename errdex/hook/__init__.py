"""errdex at the moment of failure: the error page of a raise, under its traceback.

>>> import errdex.hook
>>> errdex.hook.install()        # sys.excepthook and threading.excepthook

`explain(exc)` gives the section as text; `errdex run script.py`, the pytest plugin
(`pytest --errdex`) and the IPython extension (`%load_ext errdex.hook.ipython`) use it.
`ERRDEX_DISABLE=1` turns all of it off. This module imports nothing heavy: errdex's
store and matcher load on the first error to explain.
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
    when no indexed raise site is known for it.

    The innermost traceback frame in a file of an installed distribution is looked up by
    file and line in `db` (default: $ERRDEX_DB, else the user data dir); a distribution
    not indexed yet is indexed once (never imported). Never raises, and never changes
    the exception: a failure inside errdex is one line on stderr and None.
    """
    if _disabled():
        return None
    try:
        from errdex.hook import _core

        return _core.explain(exc, db, color=color)
    except BaseException as failure:  # the user's error comes first
        if isinstance(failure, KeyboardInterrupt):
            print("errdex: interrupted; the error above is unexplained", file=sys.stderr)
        else:
            detail = " ".join(str(failure).split())[:200]
            print(
                f"errdex: could not explain this error ({type(failure).__name__}: {detail})",
                file=sys.stderr,
            )
        return None


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
            stream.write(fit(text, stream) + "\n")
            stream.flush()
        except Exception:
            pass


_PLAIN = str.maketrans({"─": "-", "·": "-", "…": "...", "←": "<-", "‘": "'", "’": "'"})


def fit(text: str, stream: Any) -> str:
    """`text` as `stream` can write it: on a terminal that is not UTF-8 (a C locale, say),
    errdex's own marks in ASCII and anything else escaped."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeError, LookupError):
        pass
    try:
        return text.translate(_PLAIN).encode(encoding, "backslashreplace").decode(encoding)
    except (UnicodeError, LookupError):
        return text.encode("ascii", "backslashreplace").decode("ascii")


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
