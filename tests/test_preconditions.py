# Issue 10: earlier asserts become guards of their own kind ("asserted"), and a site
# whose guards contradict each other says it can never fire. Real extract + explain.
from __future__ import annotations

from pathlib import Path

from errdex.model import ErrorSite
from tests.test_explain import explain_package, explanation

CODE = """
def take(x, items):
    assert x is not None
    assert isinstance(items, list), "items must be a list"
    if len(items) > 3:
        raise ValueError(f"too many items for {x}")
    if x is None:
        raise ValueError("x is needed")
    return x


def mode_of(m):
    if m == "a":
        raise ValueError("mode a is gone")
    elif m == "b":
        return 2
    elif m == "a":
        raise ValueError("mode a again")
    return 3


def twice(n):
    if n < 0:
        raise ValueError("n must not be negative")
    n = abs(n) - 10
    if n < 0:
        raise ValueError("n is small")
    if n < 0:
        raise ValueError("never: checked just above")


def rebound(x):
    assert x is not None
    x = None if x == 0 else x
    if x is None:
        raise ValueError("zero given")


def after_a_call(state):
    if not state.ready:
        raise RuntimeError("not ready")
    state.refresh()
    if not state.ready:
        raise RuntimeError("went stale")


def checked_twice(size):
    assert size > 0
    assert size > 0, "size must stay positive"
"""


def _sites(tmp_path: Path) -> dict[str, ErrorSite]:
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": CODE})
    return {s.message.literal_text: s for s in sites.values() if s.message is not None}


def test_earlier_asserts_are_guards_of_their_own(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    site = sites["too many items for "]
    assert [(g.kind, g.test, g.negated) for g in site.guard] == [
        ("asserted", "x is not None", False),
        ("asserted", "isinstance(items, list)", False),
        ("if", "len(items) > 3", False),
    ]
    when = explanation(site).when_it_happens
    assert "if `items` has more than 3 items" in when
    assert "only if `x` is set (not None) and `items` is of type `list`" in when
    # the assert's own site keeps its "assert" guard, after the earlier one
    own = sites["items must be a list"]
    assert [g.kind for g in own.guard] == ["asserted", "assert"]
    assert own.unreachable is None


def test_a_site_the_guards_rule_out_says_so(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    dead = {
        "x is needed": "the `assert` on line 3 already fails in that case",
        "mode a again": "the earlier branch on line 13 already takes that case",
        "never: checked just above": "the identical check on line 26 already leaves",
        "size must stay positive": "the `assert` on line 48 already fails in that case",
    }
    for message, reason in dead.items():
        site = sites[message]
        assert site.unreachable is not None and reason in site.unreachable, message
        when = explanation(site).when_it_happens
        assert when.startswith("This raise can never fire as the code stands: "), message


def test_a_rebinding_or_a_call_in_between_keeps_the_site_alive(tmp_path: Path) -> None:
    sites = _sites(tmp_path)
    for message in ("n is small", "zero given", "went stale", "mode a is gone", "not ready"):
        assert sites[message].unreachable is None, message
        assert "can never fire" not in explanation(sites[message]).when_it_happens
