# Where a check runs, said the way a user meets it: when an object is built, while
# settings are validated, while command-line arguments are parsed, or in a named method.
from __future__ import annotations

import re

from errdex.explain.analysis import Analysis
from errdex.extract.files import module_name

_VALIDATOR = re.compile(r"^_*(validate|check|verify|ensure|assert)|valid", re.I)
_CLI_NAMES = frozenset(
    {"add_cli_args", "from_cli_args", "parse_args", "main", "cli_main", "cmd", "run_cli"}
)
_CLI_PATH = re.compile(r"(^|/)(cli|argparse|cli_args|arg_utils|entrypoints/cli)(/|\.py$|_)")


def where(analysis: Analysis) -> str:
    """A phrase for when the check runs, e.g. "when a `CompilationConfig` is built"."""
    site = analysis.site
    function = site.location.function
    name = function.rsplit(".", 1)[-1]
    owner = analysis.owner.qualname if analysis.owner is not None else None
    if function == "<module>":
        module = module_name(site.location.file) or site.location.file
        return f"when the module `{module}` is imported"
    if owner is not None and function == f"{owner}.{name}":
        if name in ("__init__", "__new__"):
            return f"when a `{owner}` is built (in `{function}`)"
        if name == "__post_init__":
            return f"when a `{owner}` is built (its `__post_init__` check)"
        if name == "__call__":
            return f"when a `{owner}` object is called"
        if name in ("__enter__", "__aenter__"):
            return f"when a `with` block over a `{owner}` starts"
        if name in ("__getitem__", "__getattr__", "__getattribute__"):
            return f"when an item or attribute of a `{owner}` is looked up (`{name}`)"
        if name in ("__setattr__", "__setitem__"):
            return f"when an attribute or item of a `{owner}` is set (`{name}`)"
    if name in _CLI_NAMES or _CLI_PATH.search(site.location.file):
        return f"while command-line arguments are handled (in `{function}`)"
    if _VALIDATOR.search(name):
        return f"while `{function}` validates its input"
    return f"when `{function}()` runs"
