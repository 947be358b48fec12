"""errdex: every error a Python codebase can raise, explained and matched back to its raise."""

__version__ = "0.1.0"

__all__ = ["__version__"]
