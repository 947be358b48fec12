# The long run of tests/test_hostile_match.py's fuzzing: the same hostile package and
# properties, thousands of examples, random each run, texts up to the cap, and answers
# timed against the linear budget. `make fuzz` runs it; `make test` does not (the file
# name does not start with test_). By hand:
#
#   .venv/bin/python -m pytest -q tests/fuzz_match.py                 # 3,000 examples each
#   ERRDEX_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q -x tests/fuzz_match.py
from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.align import _overlap
from errdex.match import MAX_INPUT_BYTES
from tests.test_hostile_match import (
    _FIXED,
    _PER_BYTE,
    INPUTS,
    Hostile,
    _make,
    _overlap_plain,
    _overlap_text,
    adversarial,
    adversarial_case,
    fuzz_once,
    hostile_store,
    random_texts,
)

EXAMPLES = int(os.environ.get("ERRDEX_FUZZ_EXAMPLES", "3000"))


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    h = hostile_store(tmp_path_factory.mktemp("hostile"))
    yield h
    h.store.close()


LONG = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)


def _size(text: str | bytes) -> int:
    return len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))


def timed(h: Hostile, text: str | bytes, limit: int = 10) -> None:
    """fuzz_once, within the linear budget of the text's size, in CPU time: the best of
    up to three runs, a pause between, since a busy machine can stall any one of them."""
    budget = _FIXED + _PER_BYTE * _size(text)
    best = float("inf")
    for attempt in range(3):
        if attempt:
            time.sleep(0.5)
        started = time.process_time()
        fuzz_once(h, text, limit)
        best = min(best, time.process_time() - started)
        if best <= budget:
            return
    raise AssertionError(f"{best:.2f} s for {_size(text):,} bytes, over the {budget:.2f} s budget")


@LONG
@given(data=st.data())
def test_adversarial_text(hostile: Hostile, data: st.DataObject) -> None:
    adversarial_case(hostile, data)


@LONG
@given(text=random_texts)
def test_random_text(hostile: Hostile, text: str | bytes) -> None:
    timed(hostile, text)


@LONG
@given(data=st.data())
def test_adversarial_text_up_to_the_cap(hostile: Hostile, data: st.DataObject) -> None:
    """Adversarial text repeated to any size up to just past the cap, timed."""
    unit = data.draw(adversarial(hostile.lits))
    if not unit:
        return
    size = data.draw(st.integers(1, MAX_INPUT_BYTES + 16))
    text = unit * max(1, size // max(1, _size(unit)))
    timed(hostile, text, limit=data.draw(st.sampled_from([1, 10, 1000])))
    if isinstance(text, str) and data.draw(st.booleans()):
        timed(hostile, text.encode("utf-8", "surrogatepass"))


@settings(LONG, max_examples=max(1, EXAMPLES // 20))
@given(name=st.sampled_from(sorted(INPUTS)), size=st.integers(1024, MAX_INPUT_BYTES))
def test_the_crafted_inputs_at_any_size(hostile: Hostile, name: str, size: int) -> None:
    timed(hostile, _make(name, hostile.lits, size))


@LONG
@given(a=_overlap_text, b=_overlap_text)
def test_overlap(a: str, b: str) -> None:
    assert _overlap(a, b) == _overlap_plain(a, b)
    assert _overlap(b + a, a + b) == _overlap_plain(b + a, a + b)
