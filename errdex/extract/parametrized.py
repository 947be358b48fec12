# The values a test is run with, read from its `@pytest.mark.parametrize(...)` decorators
# as text (never imported): which exception classes and which expected strings stand
# behind a parameter such as `exception` in `pytest.raises(exception)` or `expect` in
# `assert expect in result.output`.
from __future__ import annotations

import ast
import re
from bisect import bisect_left
from collections.abc import Callable

_PARAMETRIZE = re.compile(r"@pytest\.mark\.parametrize\s*\(")
_NEXT_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)

Values = dict[str, tuple[ast.expr, ...]]  # parameter -> the values of its cases


class Parametrized:
    """The parametrize decorators of one test file, by the def they decorate."""

    def __init__(self, text: str, args: Callable[[str, int], str | None]):
        self.by_def: dict[int, Values] = {}
        for decorator in _PARAMETRIZE.finditer(text):
            body = args(text, decorator.end() - 1)
            target = _NEXT_DEF.search(text, decorator.end())
            if body is None or target is None:
                continue
            values = _values(body)
            if values:
                self.by_def.setdefault(target.start(), {}).update(values)
        self.starts = sorted(self.by_def)

    def values(self, def_start: int) -> Values:
        """The parameters of the def that starts at `def_start` (empty when none)."""
        k = bisect_left(self.starts, def_start)
        if k < len(self.starts) and self.starts[k] == def_start:
            return self.by_def[def_start]
        return {}


def class_names(values: tuple[ast.expr, ...]) -> list[str]:
    """The last segments of the class names among `values` (`exc.InvalidURL` ->
    "InvalidURL"), each once, in order: what `pytest.raises(param)` expects."""
    out: list[str] = []
    for value in values:
        if isinstance(value, ast.Name | ast.Attribute):
            name = ast.unparse(value).rsplit(".", 1)[-1]
            if name[:1].isupper() and name not in out:
                out.append(name)
    return out


def strings(values: tuple[ast.expr, ...]) -> list[str]:
    """The string constants among `values`."""
    return [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]


def _values(body: str) -> Values:
    try:
        node = ast.parse(f"f({body}\n)", mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return {}
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return {}
    names = _param_names(node.args[0])
    rows = node.args[1]
    if not names or not isinstance(rows, ast.List | ast.Tuple):
        return {}
    out: dict[str, list[ast.expr]] = {name: [] for name in names}
    for row in rows.elts:
        cells = _cells(row)
        if len(names) == 1:
            out[names[0]].append(cells[0] if len(cells) == 1 else row)
        elif len(cells) == len(names):
            for name, cell in zip(names, cells, strict=True):
                out[name].append(cell)
    return {name: tuple(found) for name, found in out.items()}


def _param_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, ast.List | ast.Tuple):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def _cells(row: ast.expr) -> list[ast.expr]:
    """One case's values: a tuple's items, `pytest.param(...)`'s arguments, or itself."""
    if isinstance(row, ast.Call) and ast.unparse(row.func).endswith("param"):
        return list(row.args)
    if isinstance(row, ast.Tuple | ast.List):
        return list(row.elts)
    return [row]
