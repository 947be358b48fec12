# Who can act on an input: a user (a parameter of a public function or method, a field
# of a public class, an attribute its constructor takes) or only the library itself (a
# private name, a parameter of a private or nested function, a module constant). A
# solution never asks a user to change what only the library sets.
from __future__ import annotations

import dataclasses

from errdex.explain.catalog import Catalog
from errdex.model import Access, ErrorSite, Input


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_name(expr: str) -> bool:
    """A dotted name with a private part: `self._cache`, `_registry`."""
    return any(_private(part) for part in expr.split("."))


def private_path(file: str) -> bool:
    """A module that its own name marks private (`_internal.py`, `_impl/`)."""
    parts = file.removesuffix(".py").split("/")
    return any(_private(p) for p in parts if p not in ("__init__", "__main__"))


def access(item: Input, site: ErrorSite, catalog: Catalog) -> Access:
    """Whether a user can change `item` (see the module comment)."""
    file = item.location.file if item.location is not None else site.location.file
    if item.kind == "constant" or private_path(file):
        return "internal"
    if private_name(item.expr) or _private(item.name):
        return "internal"
    owner = (item.owner or "").split(".")
    if any(_private(part) for part in owner):
        return "internal"
    if item.kind == "parameter":
        # a method's or a top-level function's parameter; a nested function is the
        # library's own helper, called with what the library computed
        if len(owner) > 1 and catalog.classes.get((file, ".".join(owner[:-1]))) is None:
            return "internal"
        return "public"
    if item.kind == "attribute":  # set in a method: public when the constructor takes it
        info = catalog.classes.get((file, item.owner or ""))
        return "public" if info is not None and item.name in info.fact.init_params else "internal"
    return "public"


def with_access(site: ErrorSite, catalog: Catalog) -> ErrorSite:
    """`site` with the access of each of its inputs set."""
    if not site.inputs:
        return site
    inputs = tuple(dataclasses.replace(i, access=access(i, site, catalog)) for i in site.inputs)
    return dataclasses.replace(site, inputs=inputs)
