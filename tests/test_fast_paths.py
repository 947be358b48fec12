# The extractor's shortcuts give what the plain way gives: the statement walk meets the
# statements ast.walk meets, in its order; the names found called by reading the source
# backwards are those the forward pattern finds.
from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import given, settings

import errdex
from errdex.extract.syntax import child_statements, statements
from errdex.extract.visitor import called_names

_OWN_SOURCE = sorted(Path(errdex.__file__).parent.rglob("*.py"))
# what the extractor used before reading backwards: the reference the shortcut must equal
_FORWARDS = re.compile(r"(?<!def )(?<!class )\b([A-Za-z_]\w*)\s*\(")
_HOLDERS = ast.stmt | ast.excepthandler | ast.match_case

EVERY_BLOCK = textwrap.dedent(
    """
    import os
    def f(x):
        for i in x:
            if i:
                break
        else:
            pass
        while x:
            try:
                x = g(x)
            except (KeyError, ValueError) as exc:
                raise RuntimeError from exc
            else:
                continue
            finally:
                del x
        with open(x) as fh, lock:
            match fh.read():
                case "a" | "b" if x:
                    return 1
                case _:
                    lambda: (yield)
        try:
            pass
        except* OSError:
            pass
        class C:
            async def m(self):
                async for a in b:
                    async with c:
                        await d
    """
)


def _walked(tree: ast.AST) -> list[ast.AST]:
    return [n for n in ast.walk(tree) if n is tree or isinstance(n, _HOLDERS)]


def test_statements_are_those_of_ast_walk_in_its_order() -> None:
    trees = [ast.parse(EVERY_BLOCK), *(ast.parse(p.read_text()) for p in _OWN_SOURCE)]
    for tree in trees:
        assert list(statements(tree)) == _walked(tree)


def test_child_statements_are_the_direct_ones() -> None:
    tree = ast.parse(EVERY_BLOCK)
    for node in _walked(tree):
        direct = [c for c in ast.iter_child_nodes(node) if isinstance(c, _HOLDERS)]
        assert list(child_statements(node)) == direct


def test_an_expression_holds_no_statements() -> None:
    lambda_ = ast.parse("f = lambda: x").body[0].value  # type: ignore[attr-defined]
    assert list(child_statements(lambda_)) == []


def test_called_names_equal_the_forward_pattern_on_real_source() -> None:
    for path in _OWN_SOURCE:
        text = path.read_text()
        assert called_names(text) == frozenset(_FORWARDS.findall(text)), path


# the characters that matter to either pattern, and a few that do not
_PIECES = st.sampled_from(
    ["def ", "class ", "undef ", "(", " ", "\n", "\t", "_", "a", "Z", "9", "é", "f", ".", "ssalc"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_called_names_equal_the_forward_pattern_on_any_text(text: str) -> None:
    assert called_names(text) == frozenset(_FORWARDS.findall(text))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_called_names_equal_the_forward_pattern_on_random_text(text: str) -> None:
    assert called_names(text) == frozenset(_FORWARDS.findall(text))
