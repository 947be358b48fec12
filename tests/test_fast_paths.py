# The extractor's shortcuts give what the plain way gives: the statement walk meets the
# statements ast.walk meets, in its order; the names found called by reading the source
# backwards are those the forward pattern finds, and the calls inside expressions read
# from the text hold every one the tree holds, each in its function.
from __future__ import annotations

import ast
import builtins
import re
import textwrap
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import given, settings

import errdex
from errdex.extract.calls import RECEIVER, written_calls
from errdex.extract.parse import parse_file
from errdex.extract.syntax import child_statements, statements

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


def called_names(text: str) -> frozenset[str]:
    return written_calls(text, (), ()).names


def test_called_names_equal_the_forward_pattern_on_real_source() -> None:
    for path in _OWN_SOURCE:
        text = path.read_text()
        assert called_names(text) == frozenset(_FORWARDS.findall(text)), path


def _tree_calls(tree: ast.Module) -> set[tuple[str, str]]:
    """(function, callee) of every call of a name or attribute chain in the tree, the
    function its innermost def; a receiver that is not a name is RECEIVER
    (`f(x).a.b()`: "<expr>.a.b")."""
    found: set[tuple[str, str]] = set()

    def callee(node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return f"{callee(node.value)}.{node.attr}"
        return RECEIVER

    def visit(node: ast.AST, function: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                # decorators and defaults run where the def is, the body in the function
                outside = [*child.decorator_list, *child.args.defaults, *child.args.kw_defaults]
                visit(
                    ast.Module(body=[ast.Expr(e) for e in outside if e], type_ignores=[]),
                    function,
                    prefix,
                )
                visit(ast.Module(body=child.body, type_ignores=[]), qualname, qualname + ".")
                continue
            if isinstance(child, ast.ClassDef):
                visit(child, function, f"{prefix}{child.name}.")
                continue
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name | ast.Attribute):
                found.add((function, callee(child.func)))
            visit(child, function, prefix)

    visit(tree, "<module>", "")
    return found


def test_calls_read_from_the_text_hold_every_call_of_the_tree() -> None:
    # strings and comments add calls of their own; none the tree holds is missed, and
    # each is given to the function that writes it
    for path in _OWN_SOURCE:
        data = path.read_bytes()
        facts = parse_file(data, str(path), "errdex.x")
        read = {(c.function, c.callee) for c in facts.calls if not c.callee.startswith("super()")}
        wanted = {
            (function, written)
            for function, written in _tree_calls(ast.parse(data))
            if written.partition(".")[0] not in _NOT_READ
        }
        assert wanted - read == set(), path


_NOT_READ = frozenset(dir(builtins))  # builtins are no function of ours


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


def test_a_call_of_a_function_named_like_a_soft_keyword_is_read() -> None:
    # `match` and `case` are names too; `len(` and `if (` are not calls of ours
    source = "def f(x):\n    if (x):\n        return match(x) + len(x)\n"
    facts = parse_file(source.encode(), "m.py", "m")
    assert {(c.function, c.callee) for c in facts.calls} == {("f", "match")}
