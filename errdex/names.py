# Package names as PyPI compares them (PEP 503): runs of "-", "_" and "." are one "-",
# and case does not count. Here rather than packaging.utils, whose import (it pulls in
# packaging.tags) costs every command more than the one line it is needed for.
from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[-_.]+")


def canonical(name: str) -> str:
    """`name` as PEP 503 normalizes it: `Foo_Bar.baz` -> `foo-bar-baz`."""
    return _SEPARATORS.sub("-", name).lower()
