# One site's guards, read once: which conditions make it fire, which only let the
# function get that far, and the clause that names what is being rejected.
from __future__ import annotations

from dataclasses import dataclass, field

from errdex.explain.catalog import Owner, Said
from errdex.explain.conditions import Clause, clauses, code
from errdex.expr import Constant, Expr, Membership
from errdex.expr import target_source as _target
from errdex.model import ErrorSite, Input

MAX_CLAUSE_TEXT = 400  # beyond this, the source text says it better than prose


@dataclass(slots=True)
class Analysis:
    site: ErrorSite
    inputs: dict[str, Input]
    owner: Owner | None
    trigger: list[Clause] = field(default_factory=list)  # hold when the site fires
    innermost: list[Clause] = field(default_factory=list)  # of the nearest guard
    reached_if: list[Clause] = field(default_factory=list)  # early returns not taken
    asserted: list[Clause] = field(default_factory=list)  # earlier asserts that held
    context: list[str] = field(default_factory=list)  # loops, handlers, match cases
    handled: list[str] = field(default_factory=list)  # exception types being handled
    unparsed: list[str] = field(default_factory=list)  # guard tests we could not read
    expected: list[Clause] = field(default_factory=list)  # what an assert expects
    failing: list[Clause] = field(default_factory=list)  # an assert's own failing test

    @property
    def primary(self) -> Clause | None:
        """The clause that says what is rejected: one about an input the message names."""
        pool = self.innermost or self.trigger
        if not pool:
            return None
        message = self.site.message.text if self.site.message is not None else ""
        with_subject = [c for c in pool if c.subject is not None and c.noun]
        for clause in reversed(with_subject):
            assert clause.subject is not None
            if clause.subject.name in message:
                return clause
        if with_subject:
            return with_subject[-1]
        return pool[-1]


def analyse(site: ErrorSite, owner: Owner | None, checks: tuple[bool, ...], said: Said) -> Analysis:
    """Read the guards of `site` into an Analysis: `owner` is the class whose method holds
    it, `checks` says of each guard whether it is another raise's check (Catalog.checks),
    `said` remembers guard readings (Catalog.said)."""
    inputs = {i.expr: i for i in site.inputs}
    result = Analysis(site=site, inputs=inputs, owner=owner)
    for guard, check in zip(site.guard, checks, strict=True):
        kind = guard.kind
        if kind in ("try", "finally", "with", "match"):
            continue
        tree = guard.tree
        if kind == "while" and isinstance(tree, Constant) and tree.value in (True, 1):
            continue  # `while True:` is a loop, not a condition
        if kind == "except":
            result.handled.append(guard.test)
            continue
        if kind == "for" and isinstance(tree, Membership):
            target, iterable = _target(tree.item), _short(tree.container.source())
            result.context.append(f"for each `{target}` in `{iterable}`")
            continue
        if kind == "loop-exhausted":
            result.context.append(
                f"once no `{_target(tree.item)}` in `{_short(tree.container.source())}` made"
                " the loop return"
                if isinstance(tree, Membership)
                else f"once `while {_short(guard.test)}` stopped without returning"
            )
            continue
        if kind == "case":
            result.context.append(f"in the `case {_short(guard.test)}` branch")
            continue
        if kind == "early-exit" and check:
            continue  # an earlier check of this function, one that raises
        if tree is None:  # a record from before conditions were trees
            if kind != "asserted":  # an assert on the way that we cannot read adds nothing
                result.unparsed.append(guard.test)
            continue
        found = said(guard.test, tree, not guard.negated, site.inputs, _read)
        if kind == "assert":
            result.expected = said(guard.test, tree, True, site.inputs, _read)
            result.failing = found
        if kind == "asserted":
            result.asserted.extend(found)
        elif kind == "early-exit":
            result.reached_if.extend(found)
        else:
            result.trigger.extend(found)
            result.innermost = found
    return result


def _read(tree: Expr, holds: bool, inputs: dict[str, Input]) -> list[Clause]:
    found = clauses(tree, inputs, holds=holds)
    if sum(len(c.text) for c in found) > MAX_CLAUSE_TEXT:
        shown = code(tree)
        found = [Clause(text=f"{shown} is true" if holds else f"{shown} is false")]
    return found


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59].rsplit(" ", 1)[0] + "…"
