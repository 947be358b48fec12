# Who can act on an input: a user (a parameter of a public function or method, a field
# of a public class, an attribute its constructor takes, an environment variable, a
# parsed command-line argument) or only the library itself (a private name, a parameter
# of a private or nested function or of an operator's dunder method, a module constant,
# a variable the function computes). A solution never asks a user to change what only
# the library sets; an input the library keeps but a knob sets is changed through that
# knob (explain/knobs.py).
from __future__ import annotations

from collections.abc import Iterable

from errdex.explain.catalog import Catalog, ClassInfo
from errdex.explain.records import replaced
from errdex.extract.facts import FileFacts
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


def reexported(files: Iterable[FileFacts]) -> set[str]:
    """What the package's public modules import by name: a class or function of a
    private module (`httpx._client.Client`) that `httpx/__init__.py` re-exports is public."""
    out: set[str] = set()
    for facts in files:
        if not private_path(facts.path):
            out.update(qualified for _, qualified in facts.imports)
            out.update(f"{module}.*" for module in facts.stars)
    return out


def exposed(file: str, qualname: str | None, catalog: Catalog) -> bool:
    """Whether a name defined in `file` is reachable without a private module: the file
    is public, or a public module re-exports the name's top-level object."""
    if not private_path(file):
        return True
    facts = catalog.files.get(file)
    if facts is None or not qualname:
        return False
    top = qualname.split(".")[0]
    if top.startswith("_"):
        return False
    return f"{facts.module}.{top}" in catalog.reexports or f"{facts.module}.*" in catalog.reexports


def access(item: Input, site: ErrorSite, catalog: Catalog) -> Access:
    """Whether a user can change `item` (see the module comment)."""
    file = item.location.file if item.location is not None else site.location.file
    if item.kind == "env" or item.owner == "argparse.Namespace":
        return "public"
    if item.kind in ("constant", "local", "global", "property"):
        return "internal"  # a property is computed, not set
    if not exposed(file, item.owner, catalog):
        return "internal"
    if item.kind == "parameter":
        if item.name.startswith("_") and not item.name.startswith("__"):
            return "internal"  # `_allow_empty`: a keyword the library passes itself
    elif private_name(item.expr) or _private(item.name):
        return "internal"
    owner = (item.owner or "").split(".")
    if any(_private(part) for part in owner):
        return "internal"
    if item.kind == "parameter":
        # a method's or a top-level function's parameter; a nested function is the
        # library's own helper, called with what the library computed
        if len(owner) > 1 and catalog.classes.get((file, ".".join(owner[:-1]))) is None:
            return "internal"
        name = owner[-1]
        if name.startswith("__") and name.endswith("__") and name not in CALLED_DUNDERS:
            return "internal"  # `__getitem__(key)`, `__eq__(other)`: what an operator hands on
        if name == "__call__" and _callback(
            catalog.classes.get((file, ".".join(owner[:-1]))), catalog
        ):
            return "internal"
        return "public"
    if item.kind == "attribute":  # set in a method: public when the constructor takes it
        info = catalog.classes.get((file, item.owner or ""))
        return "public" if info is not None and item.name in info.fact.init_params else "internal"
    return "public"


def _callback(info: ClassInfo | None, catalog: Catalog) -> bool:
    """Whether the `__call__` of a class is a callback's, called by the package or its
    framework with what it holds (`retry_state`, `request`), not with a value the user
    hands over: a base of the class declares `__call__` abstract (`retry_base`), or is
    another distribution's (FastAPI's `HTTPBearer`)."""
    if info is None:
        return False
    for written in info.fact.bases:
        name = written.split("[", 1)[0]
        if name in _PLAIN_BASES:
            continue
        found = catalog.named.get(name.rsplit(".", 1)[-1], [])
        if not found or any("__call__" in base.fact.abstract for base in found):
            return True
    return False


# Bases that say nothing of who calls an object.
_PLAIN_BASES = frozenset({"object", "Generic", "typing.Generic", "Protocol", "typing.Protocol",
                          "ABC", "abc.ABC", "dict", "list", "tuple", "str", "int"})  # fmt: skip


def with_access(site: ErrorSite, catalog: Catalog) -> ErrorSite:
    """`site` with the access of each of its inputs set; a field read through a value
    the library keeps (`state.x` of an internal `state`) is internal too."""
    if not site.inputs:
        return site
    inputs = [replaced(i, access=access(i, site, catalog)) for i in site.inputs]
    by_expr = {i.expr: i for i in inputs}
    for index, item in enumerate(inputs):
        root = item.expr.split(".", 1)[0]
        holder = by_expr.get(root) if "." in item.expr and root not in ("self", "cls") else None
        if holder is not None and item.access == "public" and not _users(holder, by_expr):
            inputs[index] = replaced(item, access="internal")
    return replaced(site, inputs=tuple(inputs))


def _users(holder: Input, by_expr: dict[str, Input], depth: int = 0) -> bool:
    """Whether a value whose attributes are read is the user's: a public input, or a
    variable that only aliases or reads public ones (`parallel = config.parallel`)."""
    if holder.kind != "local":
        return holder.access == "public"
    sources = [by_expr[s] for s in holder.sources if s in by_expr]
    return bool(sources) and depth < 3 and all(_users(s, by_expr, depth + 1) for s in sources)


# Dunder methods a user calls by name; the parameters of the others are what an operator
# hands over.
CALLED_DUNDERS = frozenset({"__init__", "__new__", "__call__", "__post_init__", "__enter__"})
