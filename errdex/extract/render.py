# Source text of an expression: the slice of its line as written when it sits on one
# ASCII line (cheap), else ast.unparse (canonical, and correct across lines).
from __future__ import annotations

import ast
from collections.abc import Callable

Render = Callable[[ast.AST], str]


def source_renderer(lines: list[str]) -> Render:
    """A renderer over a file's lines; column offsets are UTF-8 bytes, so ASCII only."""

    def render(node: ast.AST) -> str:
        line = getattr(node, "lineno", None)
        if line is not None and line == getattr(node, "end_lineno", None):
            text: str = lines[line - 1]
            if text.isascii():
                start: int = node.col_offset  # type: ignore[attr-defined]
                end: int = node.end_col_offset  # type: ignore[attr-defined]
                return text[start:end]
        return ast.unparse(node)

    return render


unparse: Render = ast.unparse
