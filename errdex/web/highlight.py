# Source snippets as HTML: Pygments does the escaping and colouring; we add line numbers
# that start at the snippet's first line and mark the lines of the raise itself.
from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import (
    CLexer,
    CppLexer,
    CudaLexer,
    CythonLexer,
    PythonLexer,
    RustLexer,
)

_LEXER = PythonLexer(stripnl=False, ensurenl=False)
# the lexer of each `location.language` but Python's
_LEXERS = {
    "cython": CythonLexer,
    "c": CLexer,
    "cpp": CppLexer,
    "cuda": CudaLexer,
    "rust": RustLexer,
}


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """The Pygments CSS for `.code` blocks (a light theme that prints well)."""
    return str(HtmlFormatter(style="default").get_style_defs(".code"))


def snippet_html(
    lines: tuple[str, ...] | list[str],
    start_line: int,
    marked: range,
    anchor: str = "L",
    language: str = "python",
) -> Markup:
    """Return `lines` as highlighted HTML (as `language`, a site's `location.language`),
    numbered from `start_line`, with the line numbers in `marked` highlighted; each line
    gets the id `{anchor}{number}`."""
    if not lines:
        return Markup("")
    hl = [n - start_line + 1 for n in marked if start_line <= n < start_line + len(lines)]
    formatter = HtmlFormatter(
        cssclass="code",
        linenos="table",
        linenostart=start_line,
        hl_lines=hl,
        lineanchors=anchor,
        anchorlinenos=False,
        wrapcode=True,
    )
    html = highlight("\n".join(lines) + "\n", _lexer(language), formatter)  # anchors: linenostart
    return Markup(html)


@lru_cache(maxsize=8)
def _lexer(language: str) -> Lexer:
    lexer = _LEXERS.get(language)
    return _LEXER if lexer is None else lexer(stripnl=False, ensurenl=False)
