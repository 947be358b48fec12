# One site's guards, read once: which conditions make it fire, which only let the
# function get that far, and the clause that names what is being rejected.
from __future__ import annotations

from dataclasses import dataclass, field

from errdex.explain.catalog import Owner, Said
from errdex.explain.conditions import Clause, clauses, code
from errdex.explain.failures import failure
from errdex.expr import BoolOp, Compare, Constant, ConstantValue, Expr, Membership, named
from errdex.expr import target_source as _target
from errdex.model import ErrorSite, Guard, Input

MAX_RAISER_SHOWN = 80  # a longer `try` expression is not quoted in prose
MAX_CLAUSE_TEXT = 400  # beyond this, the source text says it better than prose


@dataclass(slots=True)
class Analysis:
    site: ErrorSite
    inputs: dict[str, Input]
    owner: Owner | None
    trigger: list[Clause] = field(default_factory=list)  # hold when the site fires
    innermost: list[Clause] = field(default_factory=list)  # of the nearest guard
    reached_if: list[Clause] = field(default_factory=list)  # early returns not taken
    # the earlier raising checks it got past, when nothing else conditions the site
    passed: list[Clause] = field(default_factory=list)
    asserted: list[Clause] = field(default_factory=list)  # earlier asserts that held
    context: list[str] = field(default_factory=list)  # loops, handlers, match cases
    handled: list[str] = field(default_factory=list)  # exception types being handled
    raisers: list[str | None] = field(default_factory=list)  # what raised each, when known
    raiser_trees: list[Expr | None] = field(default_factory=list)  # the same, as trees
    unparsed: list[str] = field(default_factory=list)  # guard tests we could not read
    expected: list[Clause] = field(default_factory=list)  # what an assert expects
    failing: list[Clause] = field(default_factory=list)  # an assert's own failing test

    def catches(self) -> list[tuple[str, str | None]]:
        """Each handler around the site: the types it catches ("ValueError", without its
        `as` name) and the one-statement `try` expression that raised them, when short."""
        out = []
        for test, raiser in zip(self.handled, self.raisers, strict=True):
            short = raiser is not None and len(raiser) <= MAX_RAISER_SHOWN and "\n" not in raiser
            out.append((test.split(" as ", 1)[0], raiser if short else None))
        return out

    def failures(self) -> list[str | None]:
        """Each handler around the site: what the failure of the call that raised what it
        catches says of that call's argument ("`header` is not valid JSON"), when the
        call is one whose failures say so (explain/failures.py)."""
        return [
            failure(tree, test) for test, tree in zip(self.handled, self.raiser_trees, strict=True)
        ]

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
    subject: Expr | None = None  # of the `match` statement a `case` belongs to
    loop: Membership | None = None  # the innermost `for` around the site
    settled = _settled(site.guard)
    passed: list[Guard] = []  # the function's earlier raising checks it got past
    for guard, check in zip(site.guard, checks, strict=True):
        kind = guard.kind
        tree = guard.tree
        if guard in settled:
            continue  # an earlier branch of the chain, false because a later one holds
        if kind == "match":
            subject = tree
        if kind in ("try", "finally", "with", "match"):
            continue
        if kind == "while" and isinstance(tree, Constant) and tree.value in (True, 1):
            continue  # `while True:` is a loop, not a condition
        if kind == "except":
            result.handled.append(guard.test)
            result.raisers.append(guard.raised_by)
            result.raiser_trees.append(guard.raised_by_tree)
            continue
        if kind == "for" and isinstance(tree, Membership):
            target, iterable = _target(tree.item), _short(tree.container.source())
            result.context.append(f"for each `{target}` in `{iterable}`")
            loop = tree
            continue
        if kind == "loop-exhausted" and not guard.negated:  # else `any(...)` failed: a test
            result.context.append(
                f"once no `{_target(tree.item)}` in `{_short(tree.container.source())}` made"
                " the loop return"
                if isinstance(tree, Membership)
                else f"once `while {_short(guard.test)}` stopped without returning"
            )
            continue
        if kind == "case":
            result.trigger.append(_case(guard.test, subject))
            continue
        if kind == "early-exit" and check:
            passed.append(guard)  # an earlier check of this function, one that raises
            continue
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
    if not (result.trigger or result.handled or result.reached_if or result.unparsed):
        # nothing else conditions it: getting past the earlier raises is its condition
        # (`if attempt.failed: raise attempt.error()` then `raise self`)
        for guard in passed:
            if guard.tree is not None:
                result.passed.extend(
                    said(guard.test, guard.tree, not guard.negated, site.inputs, _read)
                )
    if loop is not None and not (
        result.trigger or result.handled or result.reached_if or result.passed
    ):
        # a raise straight in a loop's body fires on the loop's first item
        shown = named(loop.container)
        result.trigger.append(Clause(text=f"{shown} has at least one item (the first raises)"))
    return result


def _equalities(tree: Expr | None) -> dict[str, ConstantValue]:
    """What the top-level conjuncts of a test pin to a literal: `mode == "a"`,
    `len(x) == 0`, `kind is None`, by the source of the pinned expression."""
    parts = tree.values if isinstance(tree, BoolOp) and tree.op == "and" else (tree,)
    out: dict[str, ConstantValue] = {}
    for part in parts:
        if isinstance(part, Compare) and len(part.ops) == 1 and part.ops[0] in ("==", "is"):
            right = part.comparators[0]
            if isinstance(right, Constant):
                out[part.left.source()] = right.value
    return out


def _settled(guards: tuple[Guard, ...]) -> list[Guard]:
    """The negated `if`/`elif` branches of a chain whose falsity a later branch that holds
    already says: past `if n == 2: … elif n == 0:`, "`n` is not 2" adds nothing to "`n`
    is 0". Only pins to literals of one type are compared, so that `1 == True` and the
    like never decide it."""
    held: dict[str, ConstantValue] = {}
    for guard in guards:
        if guard.kind in ("if", "elif") and not guard.negated:
            held.update(_equalities(guard.tree))
    out = []
    for guard in guards:
        if guard.kind not in ("if", "elif") or not guard.negated:
            continue
        for expr, value in _equalities(guard.tree).items():
            known = held.get(expr, value)
            if type(known) is type(value) and known != value:
                out.append(guard)
                break
    return out


def _case(pattern: str, subject: Expr | None) -> Clause:
    """A `case` branch as a condition on the matched value."""
    shown = "the value matched" if subject is None else named(subject)
    if pattern == "_":
        return Clause(text=f"{shown} matches none of the cases before `case _`")
    return Clause(text=f"{shown} matches `case {_short(pattern)}`")


def _read(tree: Expr, holds: bool, inputs: dict[str, Input]) -> list[Clause]:
    found = clauses(tree, inputs, holds=holds)
    if sum(len(c.text) for c in found) > MAX_CLAUSE_TEXT:
        shown = code(tree)
        found = [Clause(text=f"{shown} is true" if holds else f"{shown} is false")]
    return found


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59].rsplit(" ", 1)[0] + "…"
