# "Common situations": what typically leads to a site, said only when the facts show
# it: an input left at a default that conflicts with another, a platform or version
# check, an optional dependency that is missing, an environment variable.
from __future__ import annotations

import re

from errdex.explain.analysis import Analysis
from errdex.explain.imports import Needed
from errdex.expr import Call, Constant, Expr

# what a called function's name says it checks (names from the tree, not prose)
_VERSION = re.compile(r"version|newer|older|_at_least|_ge\b|_lt\b", re.I)


def common_situations(analysis: Analysis, needed: Needed | None = None) -> list[str]:
    """Situations derived from the guard facts; empty when nothing specific is known. A
    dependency is missing only behind an import check (`needed`, explain/imports.py)."""
    lookups = () if needed is None else needed.lookups
    out: list[str] = []
    clauses = analysis.trigger + analysis.reached_if
    with_default = [
        c for c in analysis.trigger if c.subject is not None and c.at_default is not None
    ]
    if len(with_default) >= 2:
        changed = [c for c in with_default if not c.at_default]
        moved_names = {c.subject.name for c in changed if c.subject is not None}
        left = [
            c
            for c in with_default
            if c.at_default and c.subject is not None and c.subject.name not in moved_names
        ]
        if left and changed:
            kept = " and ".join(_named_default(c) for c in left)
            moved = " and ".join(c.text for c in changed)
            verb = "left at its default" if len(left) == 1 else "left at their defaults"
            out.append(f"{kept} {verb} while {moved}")
        elif len(changed) > 1:
            names = _and([_named_default(c) for c in changed])
            every = (
                "both" if len(changed) == 2 else f"all {_NUMBERS.get(len(changed), len(changed))}"
            )
            out.append(f"Appears only when {names} are {every} changed from their defaults")
        elif changed:
            out.append(
                f"Appears only when {_named_default(changed[0])} is changed from its default"
            )
    elif len(with_default) == 1 and with_default[0].at_default:
        clause = with_default[0]
        out.append(f"{_named_default(clause)} left at its default ({clause.text})")
    for clause in clauses:
        if clause.platform is not None:
            where = (
                clause.platform
                if clause.on_platform
                else f"a platform other than {clause.platform}"
            )
            out.append(f"Running on {where}")
        elif clause.call and clause.call in lookups:
            out.append(f"An optional dependency is missing: {clause.text}")
        elif clause.call and _VERSION.search(clause.call):
            out.append(f"A different version of a dependency is installed: {clause.text}")
        elif (
            clause.subject is not None
            and clause.subject.kind in ("env", "global")
            and any(k.kind == "env" for k in clause.subject.knobs)
        ):
            variable = next(k.name for k in clause.subject.knobs if k.kind == "env")
            out.append(f"The environment variable `{variable}` is set so that {clause.text}")
        elif clause.env:
            out.append(f"The environment variable `{clause.env}` is set so that {clause.text}")
        elif clause.env is not None:
            out.append(f"An environment variable is set so that {clause.text}")
    if needed is not None and needed.imported:
        out.append("An optional dependency is not installed (the import fails)")
    for guard in analysis.site.guard:
        for package in _found_specs(guard.tree):
            out.append(f"The optional package `{package}` is not installed")
    return list(dict.fromkeys(out))


def _found_specs(tree: Expr | None) -> list[str]:
    """The packages a condition looks up with `find_spec("name")`."""
    if tree is None:
        return []
    out: list[str] = []
    for node in tree.walk():
        if isinstance(node, Call) and node.name == "find_spec" and node.args:
            first = node.args[0]
            if isinstance(first, Constant) and isinstance(first.value, str):
                out.append(first.value)
    return out


_NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six"}


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _named_default(clause: object) -> str:
    from errdex.explain.conditions import Clause

    assert isinstance(clause, Clause) and clause.subject is not None
    return f"`{clause.subject.name}` (default {clause.subject.default})"
