"""errdex: every error a Python codebase can raise, explained and matched back to its raise.

>>> import errdex
>>> errdex.lookup("ValueError: Invalid backend for piecewise compilation: tvm")
[Match(id='a31ce6e8d3f8efbc', package='vllm', version='0.28.0', ...)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Match", "__version__", "install", "lookup"]

if TYPE_CHECKING:
    from errdex.hook import install
    from errdex.match.lookup import lookup
    from errdex.model import Match


def __getattr__(name: str) -> Any:
    # Loaded on first use, so that `import errdex` (and `errdex --version`) stays light.
    if name == "lookup":
        from errdex.match.lookup import lookup

        return lookup
    if name == "install":
        from errdex.hook import install

        return install
    if name == "Match":
        from errdex.model import Match

        return Match
    raise AttributeError(f"module 'errdex' has no attribute {name!r}")
