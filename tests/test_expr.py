# Expression trees (errdex.expr) as extract builds them: a condition's source in, the
# tree's three renderings out (its source, its English, its negation), its JSON form,
# and source that agrees with ast.unparse over real code.
from __future__ import annotations

import ast
import json
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import errdex
from errdex import codec
from errdex import expr as x
from errdex.extract.trees import field_tree, tree_of
from errdex.model import Hole, Snapshot
from tests.conftest import index_snippet


def tree(source: str) -> x.Expr:
    """The tree extract makes of the expression `source`."""
    return tree_of(ast.parse(source, mode="eval").body)


# (condition, node type, its English, its negation's source, the negation's English)
NODES = [
    ("limit", x.Name, "`limit` is set", "not limit", "`limit` is empty or unset"),
    (
        "self.config.strict",
        x.Attribute,
        "`self.config.strict` is set",
        "not self.config.strict",
        "`self.config.strict` is empty or unset",
    ),
    (
        "has_triton()",
        x.Call,
        "`has_triton()` returns true",
        "not has_triton()",
        ("`has_triton()` returns false"),
    ),
    (
        "hasattr(model, 'lm_head')",
        x.Call,
        "`model` has attribute 'lm_head'",
        "not hasattr(model, 'lm_head')",
        "`model` has no attribute 'lm_head'",
    ),
    (
        "name.startswith(('_', '.'))",
        x.Call,
        "`name` starts with '_' or '.'",
        "not name.startswith(('_', '.'))",
        "`name` does not start with '_' or '.'",
    ),
    ("flags[0]", x.Subscript, "`flags[0]` is set", "not flags[0]", "`flags[0]` is empty or unset"),
    ("self.size < 0", x.Compare, "`size` is negative", "self.size >= 0", "`size` is 0 or more"),
    ("0 < n", x.Compare, "`n` is greater than 0", "0 >= n", "`n` is zero or negative"),
    ("x is None", x.Compare, "`x` is None (not set)", "x is not None", "`x` is set (not None)"),
    ("len(xs) == 0", x.Compare, "`xs` is empty", "len(xs) != 0", "`xs` is not empty"),
    (
        "len(shape) > 4",
        x.Compare,
        "`shape` has more than 4 items",
        "len(shape) <= 4",
        "`shape` has at most 4 items",
    ),
    (
        "0 <= rank < world",
        x.Compare,
        "`rank` is 0 or more and `rank` is less than `world`",
        "0 > rank or rank >= world",
        "either `rank` is negative or `rank` is `world` or more",
    ),
    (
        "a and not b",
        x.BoolOp,
        "`a` is set and `b` is empty or unset",
        "not a or b",
        "either `a` is empty or unset or `b` is set",
    ),
    (
        "x > 1 or y == 'auto' or z",
        x.BoolOp,
        "`x` is greater than 1 or `y` is 'auto' or `z` is set",
        "x <= 1 and y != 'auto' and (not z)",
        "`x` is at most 1 and `y` is not 'auto' and `z` is empty or unset",
    ),
    ("not ready", x.Not, "`ready` is empty or unset", "ready", "`ready` is set"),
    (
        "mode not in ('eager', 'graph')",
        x.Membership,
        "`mode` is not one of 'eager' or 'graph'",
        "mode in ('eager', 'graph')",
        "`mode` is one of 'eager' or 'graph'",
    ),
    (
        "'cuda' in device",
        x.Membership,
        "`device` contains 'cuda'",
        "'cuda' not in device",
        "`device` does not contain 'cuda'",
    ),
    (
        "isinstance(value, (int, float))",
        x.IsInstance,
        "`value` is of type `int` or `float`",
        "not isinstance(value, (int, float))",
        "`value` is not of type `int` or `float`",
    ),
    ("True", x.Constant, "`True` is set", "False", "`False` is set"),
    ("0", x.Constant, "`0` is set", "not 0", "`0` is empty or unset"),
    (
        "[1, 2]",
        x.Collection,
        "`[1, 2]` is set",
        "not [1, 2]",
        "`[1, 2]` is empty or unset",
    ),
    (
        "any(b <= 0 for b in budgets)",
        x.Call,
        "some `b` in `budgets` satisfies `b <= 0`",
        "not any((b <= 0 for b in budgets))",
        "no `b` in `budgets` satisfies `b <= 0`",
    ),
    (
        "a + b > limit",
        x.Compare,
        "`a + b` is greater than `limit`",
        "a + b <= limit",
        "`a + b` is at most `limit`",
    ),
    (
        "(n := len(xs))",
        x.Opaque,
        "`n` is set",
        "not (n := len(xs))",
        "`n` is empty or unset",
    ),
    (
        "x if y else z",
        x.Opaque,
        "`x if y else z` is set",
        "not (x if y else z)",
        "`x if y else z` is empty or unset",
    ),
]


@pytest.mark.parametrize(("source", "kind", "english", "negation", "negated_english"), NODES)
def test_each_node_renders_its_source_its_english_and_its_negation(
    source: str, kind: type, english: str, negation: str, negated_english: str
) -> None:
    node = tree(source)
    assert type(node) is kind
    assert node.source() == ast.unparse(ast.parse(source, mode="eval"))
    assert node.english() == english
    assert node.negated().source() == negation
    assert node.negated().english() == negated_english
    assert node.negated().negated().english() == english


def test_a_comprehension_renders_its_loop_and_its_conditions() -> None:
    node = tree("[p.name for p, _ in pairs if p.ok if not p.hidden]")
    assert isinstance(node, x.Comprehension)
    assert node.source() == "[p.name for p, _ in pairs if p.ok if not p.hidden]"
    assert node.iterable == x.Name(id="pairs")
    assert [c.source() for c in node.conditions] == ["p.ok", "not p.hidden"]
    assert node.negated().source() == "not [p.name for p, _ in pairs if p.ok if not p.hidden]"


def test_an_opaque_node_keeps_the_trees_inside_it() -> None:
    node = tree("-self.offset * scale")
    assert isinstance(node, x.Opaque)
    assert node.text == "-self.offset * scale"
    reads = {n.source() for n in node.walk() if isinstance(n, x.Name | x.Attribute)}
    assert reads == {"self.offset", "self", "scale"}


def test_an_opaque_node_keeps_the_trees_of_its_loops_and_defaults() -> None:
    """What an expression holds in a part that is no expression itself: the loops of a
    dict comprehension, a lambda's defaults."""
    for source, inside in [
        ("{k: v for k, v in self._items if v}", {"self._items", "v"}),
        ("[a for a in xs for b in self.ys]", {"xs", "self.ys"}),
        ("lambda n=self.size: n", {"self.size"}),
    ]:
        node = tree(source)
        assert isinstance(node, x.Opaque), source
        reads = {n.source() for n in node.walk() if isinstance(n, x.Name | x.Attribute)}
        assert inside <= reads, source


def test_brackets_follow_how_tightly_each_node_binds() -> None:
    for source in [
        "not (a and b)",
        "(a or b) and c",
        "a or b or c or (d == 1)",
        "(a < b) < c",
        "(-1).real",
        "1 .real",
        "(x := f()) is None",
        "f(*args, key=1, **rest)[a, b]",
        "x[1:2, ::3]",
        "(lambda: 0)()",
        "(yield)",
        "{'a': 1}.get(k)",
    ]:
        assert tree(source).source() == ast.unparse(ast.parse(source, mode="eval")), source


def conditions_of(root: Path) -> list[ast.expr]:
    found: list[ast.expr] = []
    for path in sorted(root.rglob("*.py")):
        module = ast.parse(path.read_text(), str(path))
        for node in ast.walk(module):
            if isinstance(node, ast.If | ast.While | ast.Assert | ast.IfExp):
                found.append(node.test)
    return found


def test_source_is_what_ast_unparse_writes_over_real_code() -> None:
    """Every condition of errdex's own code and of pytest's (real code, many shapes)."""
    roots = [Path(errdex.__file__).parent, Path(pytest.__file__).parent.parent / "_pytest"]
    tests = [t for root in roots for t in conditions_of(root)]
    assert len(tests) > 3000
    wrong = [ast.unparse(t) for t in tests if tree_of(t).source() != ast.unparse(t)]
    assert wrong == []


def test_a_format_field_is_a_tree_without_parsing() -> None:
    assert field_tree("self.args[0]") == x.Subscript(
        value=x.Attribute(value=x.Name(id="self"), attr="args"), index=x.Constant(value=0)
    )
    assert field_tree("user.name").source() == "user.name"
    assert field_tree(".real", x.Name(id="n")).source() == "n.real"
    assert isinstance(field_tree("0"), x.Opaque)


def test_extract_gives_guards_and_holes_their_trees() -> None:
    code = (
        "def f(x, mode):\n"
        "    for item in x.items:\n"
        "        if mode not in ('a', 'b') and item.size < 0:\n"
        "            raise ValueError(f'bad {item.size!r} for {mode}')\n"
    )
    (site,) = index_snippet(code)
    loop, test = site.guard
    assert loop.tree == x.Membership(
        item=x.Name(id="item"), container=x.Attribute(value=x.Name(id="x"), attr="items")
    )
    assert test.tree is not None and test.tree.source() == test.test
    assert test.tree.english() == "`mode` is not one of 'a' or 'b' and `item.size` is negative"
    assert site.message is not None
    holes = [p for p in site.message.parts if isinstance(p, Hole)]
    assert [h.tree.source() if h.tree else None for h in holes] == ["item.size", "mode"]


def test_extract_gives_defaults_and_try_statements_their_trees() -> None:
    code = (
        "def f(url, retries=max(1, LIMIT)):\n"
        "    parts = split(url, retries)\n"
        "    for item in parts:\n"
        "        pass\n"
        "    try:\n"
        "        conn = self.open(parts.host, timeout=3)\n"
        "    except OSError:\n"
        "        raise ValueError(f'{url} {retries} {parts} {item}')\n"
        "    try:\n"
        "        import yaml.cyaml, json\n"
        "    except ImportError:\n"
        "        raise ValueError('no yaml')\n"
        "    try:\n"
        "        from . import plugins\n"
        "    except ImportError:\n"
        "        raise ValueError(f'no plugins for {url}')\n"
    )
    opened, yaml, plugins = index_snippet(code)
    inputs = {i.name: i for i in opened.inputs}
    assert inputs["retries"].default_tree == x.Call(
        func=x.Name(id="max"), args=(x.Constant(value=1), x.Name(id="LIMIT"))
    )
    assert inputs["url"].default_tree is None  # no default
    parts = inputs["parts"]
    assert parts.kind == "local" and parts.default == "split(url, retries)"
    assert parts.default_tree is not None and parts.default_tree.source() == parts.default
    assert inputs["item"].default == "an item of parts"
    assert inputs["item"].default_tree is None  # one item of it, not the value itself
    (guard,) = opened.guard
    assert guard.raised_by == "self.open(parts.host, timeout=3)"
    assert guard.raised_by_tree == x.Call(
        func=x.Attribute(value=x.Name(id="self"), attr="open"),
        args=(x.Attribute(value=x.Name(id="parts"), attr="host"),),
        keywords=(x.Keyword(name="timeout", value=x.Constant(value=3)),),
    )
    assert guard.imports == ()
    (guard,) = yaml.guard
    assert guard.raised_by == "import yaml.cyaml, json"
    assert guard.raised_by_tree is None and guard.imports == ("yaml.cyaml", "json")
    assert plugins.guard[0].imports == (".",)


def test_a_long_local_or_try_statement_keeps_no_tree_of_the_text_it_cuts() -> None:
    long = " + ".join(f"value_{n}" for n in range(30))
    code = (
        "def f():\n"
        f"    total = {long}\n"
        "    try:\n"
        f"        g({long}, {long})\n"
        "    except OSError:\n"
        "        raise ValueError(f'{total}')\n"
    )
    (site,) = index_snippet(code)
    (total,) = [i for i in site.inputs if i.name == "total"]
    assert total.default is not None and total.default.endswith("…")
    assert total.default_tree is None
    assert site.guard[0].raised_by is None and site.guard[0].raised_by_tree is None


# -- the JSON form -----------------------------------------------------------------------

names = st.sampled_from(["x", "self", "limit", "_private", "os"]).map(lambda n: x.Name(id=n))
constants = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
).map(lambda v: x.Constant(value=v))
ops = st.sampled_from(list(x.FLIP))


def _composite(children: st.SearchStrategy[x.Expr]) -> st.SearchStrategy[x.Expr]:
    some = st.lists(children, min_size=1, max_size=3).map(tuple)
    return st.one_of(
        st.builds(lambda v, a: x.Attribute(value=v, attr=a), children, st.sampled_from(["a", "b"])),
        st.builds(
            lambda f, a, k: x.Call(func=f, args=a, keywords=k),
            children,
            st.lists(children, max_size=2).map(tuple),
            st.lists(
                st.builds(
                    lambda n, v: x.Keyword(name=n, value=v), st.none() | st.just("k"), children
                ),
                max_size=2,
            ).map(tuple),
        ),
        st.builds(lambda v, i: x.Subscript(value=v, index=i), children, children),
        st.builds(
            lambda left, pairs: x.Compare(
                left=left, ops=tuple(p[0] for p in pairs), comparators=tuple(p[1] for p in pairs)
            ),
            children,
            st.lists(st.tuples(ops, children), min_size=1, max_size=3),
        ),
        st.builds(
            lambda i, c, n: x.Membership(item=i, container=c, negative=n),
            children,
            children,
            st.booleans(),
        ),
        st.builds(lambda o, v: x.BoolOp(op=o, values=v), st.sampled_from(["and", "or"]), some),
        st.builds(lambda o: x.Not(operand=o), children),
        st.builds(lambda t, k: x.IsInstance(target=t, types=k), children, children),
        st.builds(
            lambda k, i: x.Collection(kind=k, items=i),
            st.sampled_from(["list", "tuple", "set"]),
            some,
        ),
        st.builds(
            lambda k, e, t, i, c: x.Comprehension(
                kind=k, element=e, target=t, iterable=i, conditions=c
            ),
            st.sampled_from(["generator", "list", "set"]),
            children,
            names,
            children,
            st.lists(children, max_size=2).map(tuple),
        ),
        st.builds(
            lambda t, p, parts, f: x.Opaque(text=t, precedence=p, parts=parts, form=f),
            st.text(max_size=6),
            st.integers(1, 18),
            st.lists(children, max_size=2).map(tuple),
            st.sampled_from(["", "BinOp", "NamedExpr"]),
        ),
    )


trees = st.recursive(names | constants, _composite, max_leaves=12)


def test_every_kind_of_node_has_its_json_both_ways() -> None:
    kinds = {cls.__name__ for cls in typing.get_args(x.Expr)}
    assert set(codec._TREE_JSON) == kinds
    assert set(codec._TREE_FROM) == {k.lower() for k in kinds}


@settings(max_examples=300, deadline=None)
@given(trees)
def test_a_tree_survives_its_json(node: x.Expr) -> None:
    text = json.dumps(codec.tree_to_json(node))
    back = codec.tree_from_json(json.loads(text))
    assert back == node
    assert back.source() == node.source()
    assert back.negated().english() == node.negated().english()


def test_a_record_keeps_its_trees_through_json(tmp_path: Path) -> None:
    code = "def f(n):\n    if not 0 < n <= 8:\n        raise ValueError(f'n={n.real}')\n"
    (site,) = index_snippet(code)
    snapshot = Snapshot(package="pkg", version="1", root=tmp_path, source=str(tmp_path))
    data = json.loads(json.dumps(codec.site_to_json(site, snapshot)))
    assert data["guard"][0]["test"] == "not 0 < n <= 8"
    assert data["guard"][0]["tree"]["node"] == "not"
    assert data["guard"][0]["tree"]["operand"]["ops"] == ["<", "<="]
    back = codec.site_from_json(data)
    assert back.guard[0].tree == site.guard[0].tree
    assert back.message is not None and site.message is not None
    assert [getattr(p, "tree", None) for p in back.message.parts] == [
        getattr(p, "tree", None) for p in site.message.parts
    ]


def test_a_record_keeps_its_default_and_try_trees_through_json(tmp_path: Path) -> None:
    code = (
        "def f(n=-1):\n"
        "    size = n * 2\n"
        "    try:\n"
        "        g(size)\n"
        "    except OSError:\n"
        "        raise ValueError(f'{size}')\n"
        "    try:\n"
        "        import yaml\n"
        "    except ImportError:\n"
        "        raise ValueError('no yaml')\n"
    )
    snapshot = Snapshot(package="pkg", version="1", root=tmp_path, source=str(tmp_path))
    called, imported = index_snippet(code)
    data = json.loads(json.dumps(codec.site_to_json(called, snapshot)))
    assert data["guard"][0]["raised_by"] == "g(size)"
    assert data["guard"][0]["raised_by_tree"]["node"] == "call"
    assert "imports" not in data["guard"][0]
    size = next(i for i in data["inputs"] if i["name"] == "size")
    assert size["default"] == "n * 2"
    assert size["default_tree"]["node"] == "opaque" and size["default_tree"]["form"] == "BinOp"
    back = codec.site_from_json(data)
    assert back.guard[0].raised_by_tree == called.guard[0].raised_by_tree
    assert [i.default_tree for i in back.inputs] == [i.default_tree for i in called.inputs]
    data = json.loads(json.dumps(codec.site_to_json(imported, snapshot)))
    assert data["guard"][0]["imports"] == ["yaml"]
    assert "raised_by_tree" not in data["guard"][0]
    assert codec.site_from_json(data).guard[0].imports == ("yaml",)


def test_callable_is_said_in_its_own_words() -> None:
    said = tree("callable(option)")
    assert said.said(True) == "`option` is callable"
    assert said.said(False) == "`option` is not callable"
    assert tree("obj.callable(option)").said(True) == "`obj.callable(option)` returns true"
