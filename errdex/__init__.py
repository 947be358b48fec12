"""errdex: every error a Python codebase can raise, explained and matched back to its raise."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("errdex")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
