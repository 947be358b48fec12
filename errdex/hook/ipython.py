# The IPython extension: `%load_ext errdex.hook.ipython` (or `errdex.hook`) prints errdex's
# section under the traceback of each error a cell raises. IPython is not a dependency:
# this module is imported only by IPython itself.
from __future__ import annotations

import sys
from typing import Any

_originals: dict[int, Any] = {}


def load_ipython_extension(ipython: Any) -> None:
    """Wrap the shell's showtraceback: IPython's traceback first, then the section."""
    if id(ipython) in _originals:
        return
    original = ipython.showtraceback
    _originals[id(ipython)] = original

    def showtraceback(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        try:
            exc_tuple = kwargs.get("exc_tuple") or (args[0] if args else None)
            value = exc_tuple[1] if exc_tuple else sys.exc_info()[1]
            if value is None:
                value = getattr(sys, "last_value", None)
            if isinstance(value, BaseException) and not isinstance(value, SyntaxError):
                from errdex.hook import encodable, explain

                try:
                    color = bool(sys.stdout.isatty())
                except Exception:
                    color = False
                text = explain(value, color=color)
                if text:
                    print(encodable(text, sys.stdout))  # where IPython prints the traceback
        except Exception as failure:  # never in the way of the user's traceback
            print(f"errdex: could not explain this error ({failure!r})", file=sys.stderr)
        return result

    ipython.showtraceback = showtraceback


def unload_ipython_extension(ipython: Any) -> None:
    original = _originals.pop(id(ipython), None)
    if original is not None:
        ipython.showtraceback = original
