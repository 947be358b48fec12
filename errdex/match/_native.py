# What the matcher knows of compiled extensions: which indexed files are native sources
# (by their name: errdex/languages.py), which exception classes a traceback shows as
# living in an extension module (`pydantic_core._pydantic_core.ValidationError`), and
# what to say when the
# extension's sources are not in what was indexed, instead of guessing among Python
# sites of other packages (pydantic v1's ValidationError for pydantic v2's).
from __future__ import annotations

from errdex.languages import is_native
from errdex.names import canonical

__all__ = ["extension_module", "is_native", "not_indexed"]


def extension_module(exception: str | None) -> tuple[str, str] | None:
    """(distribution, module) when the class a traceback shows is qualified by a module
    that reads as a compiled extension: its last part private, `_pydantic_core` of
    `pydantic_core._pydantic_core.ValidationError`, `_C` of `torch._C._LinAlgError`;
    None for a builtin or a class of a Python module."""
    if exception is None or exception.count(".") < 2:
        return None
    module = exception.rpartition(".")[0]
    last = module.rpartition(".")[2]
    if not last.startswith("_") or last.startswith("__"):
        return None
    return canonical(module.partition(".")[0]), module


def not_indexed(exception: str, module: str, distribution: str, indexed: bool) -> str:
    """The note for a class of an extension whose native sources no index holds."""
    where = (
        f"{distribution} is indexed without them"
        if indexed
        else f"{distribution} is not indexed (errdex index pypi:{distribution} reads them, "
        "when the release publishes its sources)"
    )
    return (
        f"{exception} is raised by {module}, a compiled extension: its messages are in its "
        f"native sources, and {where}; no Python site is offered in their place"
    )
