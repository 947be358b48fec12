# Copies of the model's frozen records with some fields changed: `dataclasses.replace`
# without its checks and its call of __init__, which explain makes some 100,000 times
# over vllm (each input with its access and knobs, each site without its lines, each
# site with its explanation), at a sixth of the cost. The model's records keep a
# `__dict__` (model.py: no __slots__), and none has an __init__ of its own to skip.
from __future__ import annotations

from typing import Any, TypeVar

R = TypeVar("R")


def replaced(record: R, **changes: Any) -> R:
    """`record` with `changes`, as `dataclasses.replace(record, **changes)` makes it."""
    copy: R = object.__new__(type(record))
    copy.__dict__.update(record.__dict__, **changes)
    return copy
