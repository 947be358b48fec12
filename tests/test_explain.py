# The explain stage on small packages written to tmp_path: code in, explained sites
# out, through the real extract stage (never mocked), then through index + store.
from __future__ import annotations

import ast
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from errdex.explain import _called_in_try, explain_sites
from errdex.explain.conditions import clauses, plain, say
from errdex.explain.title import clause, hole_name
from errdex.expr import Expr
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.pipeline import extract
from errdex.extract.trees import tree_of
from errdex.index import index_source
from errdex.model import ErrorSite, Explanation, Input, Snapshot
from errdex.store import open_store
from tests.conftest import index_snippet, write_tree
from tests.test_extract import EXPRESSIONS, every_expression_module


def condition(test: str) -> Expr:
    """The tree extract makes of a guard whose source is `test`."""
    return tree_of(ast.parse(test, mode="eval").body)


CONFIG = '''
from dataclasses import dataclass


@dataclass
class EncoderConfig:
    """Settings of the vision encoder."""

    graphs: bool = False
    """Capture the encoder as CUDA graphs."""
    max_items: int = 0
    """Maximum number of images per batch. If 0 (default), auto-inferred."""
    backend: str = "eager"
    """The backend: "eager" or "inductor"."""

    def __post_init__(self):
        if self.backend not in ["eager", "inductor"]:
            raise ValueError(f"Invalid backend for compilation: {self.backend}")
        if self.graphs and self.max_items < 0:
            raise ValueError("max_items must be non-negative (0 = auto-infer)")


def build(items):
    return EncoderConfig(graphs=True, max_items=items)


def main():
    build(-1)
'''


def explain_package(
    tmp_path: Path,
    files: dict[str, str],
    *,
    repo_url: str | None = None,
    code_paths: tuple[str, ...] = ("pkg",),
) -> dict[str, ErrorSite]:
    """Write `files` under tmp_path/pkg_root, extract and explain; sites by title."""
    root = write_tree(tmp_path / "pkg_root", files)
    snapshot = Snapshot(
        package="pkg",
        version="1.2.3",
        root=root,
        source=str(root),
        repo_url=repo_url,
        commit="abc1234" if repo_url else None,
        code_paths=code_paths,
    )
    cache = NoCache()
    try:
        extraction = extract(snapshot, scan(snapshot, cache), cache, workers=1)
    finally:
        cache.close()
    sites = explain_sites(extraction, snapshot)
    assert [s.id for s in sites] == [s.id for s in extraction.sites]
    out: dict[str, ErrorSite] = {}
    for site in sites:
        assert site.explanation is not None
        out[site.explanation.title] = site
    return out


def explanation(site: ErrorSite) -> Explanation:
    assert site.explanation is not None
    return site.explanation


def test_seed_like_config_error(tmp_path: Path) -> None:
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/config.py": CONFIG},
        repo_url="https://github.com/example/pkg",
    )
    site = sites["max_items must be non-negative"]
    ex = explanation(site)
    assert ex.provenance == "static"
    assert ex.what_it_means == (
        "`EncoderConfig` (settings of the vision encoder) rejects a negative `max_items` "
        "when `graphs` is on."
    )
    assert ex.when_it_happens.startswith(
        "Raised when a `EncoderConfig` is built (its `__post_init__` check), "
        "if `graphs` is on and `max_items` is negative."
    )
    assert ex.solutions[0].startswith("Set `max_items` to 0 or more")
    assert "default 0" in ex.solutions[0]
    assert 'per its doc: "Maximum number of images per batch.' not in ex.solutions[0]
    assert "If 0 (default), auto-inferred." in ex.solutions[0]
    assert ex.solutions[1].startswith("Or: turn `graphs` off")
    # The static call graph: EncoderConfig(...) in build(), build() in main().
    assert ex.call_paths == (("pkg.config.build", "pkg.config.main"),)
    assert "best effort" in ex.when_it_happens and "`build` ← `main`" in ex.when_it_happens
    # Same function: the backend check is related.
    backend = sites["Invalid backend for compilation"]
    assert backend.id in ex.related and site.id in explanation(backend).related
    assert explanation(backend).solutions[0] == (
        "Set `backend` to one of 'eager' or 'inductor' (`EncoderConfig.backend`, default"
        ' "eager"), e.g. `EncoderConfig(backend="eager")`'
    )
    url = ex.report_issue_url
    assert url is not None and url.startswith("https://github.com/example/pkg/issues/new?")
    query = parse_qs(urlsplit(url).query)
    assert query["title"] == ["ValueError: max_items must be non-negative"]
    body = query["body"][0]
    assert "pkg 1.2.3" in body and "max_items must be non-negative (0 = auto-infer)" in body
    assert "https://github.com/example/pkg/blob/abc1234/pkg/config.py#L" in body


def test_no_report_url_without_github(tmp_path: Path) -> None:
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/config.py": CONFIG})
    assert all(explanation(s).report_issue_url is None for s in sites.values())


def test_reproducing_tests_found(tmp_path: Path) -> None:
    tests = """
    import re
    import unittest
    import pytest
    from pkg.config import EncoderConfig


    def test_negative_items():
        with pytest.raises(ValueError, match=r"max_items must be non-negative \\(0"):
            EncoderConfig(graphs=True, max_items=-1)


    def test_backend():
        with pytest.raises(ValueError, match=re.escape("Invalid backend for compilation: tvm")):
            EncoderConfig(backend="tvm")


    def test_other_error():
        with pytest.raises(KeyError, match="max_items must be non-negative"):
            {}["x"]


    class TestConfig(unittest.TestCase):
        def test_backend_regex(self):
            with self.assertRaisesRegex(ValueError, "Invalid backend"):
                EncoderConfig(backend="x")

        def test_message_text(self):
            with self.assertRaises(ValueError) as cm:
                EncoderConfig(graphs=True, max_items=-5)
            self.assertIn("must be non-negative (0 = auto-infer)", str(cm.exception))
    """
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/config.py": CONFIG, "tests/test_config.py": tests},
    )
    negative = explanation(sites["max_items must be non-negative"]).tests
    assert [(t.name, t.file) for t in negative] == [
        ("test_negative_items", "tests/test_config.py"),
        ("TestConfig.test_message_text", "tests/test_config.py"),
    ]
    assert negative[0].line == 9
    backend = explanation(sites["Invalid backend for compilation"]).tests
    assert [t.name for t in backend] == ["test_backend", "TestConfig.test_backend_regex"]


@pytest.mark.parametrize(
    ("test", "negated", "expected"),
    [
        ("x is None", False, "`x` is None (not set)"),
        ("x is not None and len(xs) == 0", False, "`x` is set (not None) and `xs` is empty"),
        ("not isinstance(v, (int, float))", False, "`v` is not of type `int` or `float`"),
        ("a < b <= c", False, "`a` is less than `b` and `b` is at most `c`"),
        ("mode in ('a', 'b')", True, "`mode` is not one of 'a' or 'b'"),
        ("self.flag or other", True, "`flag` is empty or unset and `other` is empty or unset"),
        ("has_triton()", False, "`has_triton()` returns true"),
        (
            "current_platform.is_rocm()",
            True,
            "the platform is not ROCm (`current_platform.is_rocm()`)",
        ),
        ("name.startswith('_')", False, "`name` starts with '_'"),
        (
            "any(b <= 0 for b in budgets)",
            False,
            "some `b` in `budgets` satisfies `b <= 0`",
        ),
        (
            "all(isinstance(x, int) for x in key)",
            True,
            "some `x` in `key` fails `isinstance(x, int)`",
        ),
        ("any(flags)", False, "some item of `flags` is true"),
        (
            "all(v >= 0 for k, v in d.items() if k != 'x')",
            False,
            "every `(k, v)` in `d.items()` where `k != 'x'` satisfies `v >= 0`",
        ),
    ],
)
def test_conditions_in_plain_english(test: str, negated: bool, expected: str) -> None:
    parts = plain(condition(test), {}, holds=not negated)
    assert parts is not None
    assert " and ".join(p.text for p in parts) == expected


def test_condition_fix_needs_an_input() -> None:
    field = Input(name="size", expr="self.size", kind="field", owner="C", default="8")
    parts = plain(condition("self.size > 16"), {"self.size": field})
    assert parts is not None
    assert parts[0].fix == "Set `size` to 16 or less"
    assert parts[0].at_default is False
    assert parts[0].noun == "a `size` above 16"
    unknown = plain(condition("other > 16"), {})
    assert unknown is not None and unknown[0].fix is None


def test_match_case_is_a_condition(tmp_path: Path) -> None:
    code = """
    def f(x):
        match x:
            case {"k": 1}:
                raise ValueError("mapping with k=1 is not allowed here")
    """
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": code})
    ex = explanation(sites["mapping with k=1 is not allowed here"])
    assert ex.when_it_happens == 'Raised when `f()` runs, if `x` matches `case {"k": 1}`.'
    assert "always" not in ex.what_it_means


@pytest.mark.parametrize(
    ("message", "title"),
    [
        (
            "Invalid backend for piecewise compilation: {backend}",
            "Invalid backend for piecewise compilation",
        ),
        ("x must be non-negative (0 = auto-infer)", "x must be non-negative"),
        ("bad value (see docs)", "bad value (see docs)"),
        (
            "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)",
            "encoder_cudagraph_max_vision_items_per_batch must be non-negative",
        ),
        ("Hidden size mismatch between a, w1 and w2", "Hidden size mismatch between a, w1 and w2"),
        (
            "output dtype {dtype} must match {expected} for q dtype {qdtype}",
            "output dtype {dtype} must match {expected} for q dtype {qdtype}",
        ),
        (
            "Something went wrong with the thing that was being built, and it is not clear "
            "at all what to do about it now that it has happened",
            "Something went wrong with the thing that was being built",
        ),
    ],
)
def test_titles_are_clauses(message: str, title: str) -> None:
    assert clause(message) == title


def test_long_title_never_cut_mid_word() -> None:
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu " * 3
    title = clause(words)
    assert title.endswith("…")
    assert title[:-1].split()[-1] in words.split()
    assert len(title) <= 80


def test_titles_unique_within_package(tmp_path: Path) -> None:
    code = """
    def a(x):
        if x:
            raise ValueError("not supported")


    def b(x):
        if x:
            raise ValueError("not supported")
    """
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": code})
    assert set(sites) == {"not supported (in a)", "not supported (in b)"}


def test_message_instructions_become_solutions(tmp_path: Path) -> None:
    code = """
    def load(path, fmt):
        if fmt == "bin":
            raise ValueError(
                f"Binary format is deprecated. Use fmt='json' instead. "
                "Either convert the file or pin version 1.x."
            )
        try:
            import yaml
        except ImportError:
            raise ImportError("PyYAML is missing; please pip install pyyaml") from None
    """
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/io.py": code})
    ex = explanation(sites["Binary format is deprecated"])
    # the message's own advice first, each said to come from the message
    assert ex.solutions == (
        "Use fmt='json' instead.",
        "Either convert the file or pin version 1.x.",
        "Set `fmt` to something other than 'bin' (parameter of `load`)",
    )
    assert [f.source for f in ex.fixes] == ["message", "message", "code"]
    yaml = explanation(sites["PyYAML is missing"])
    assert "Please pip install pyyaml" in yaml.solutions
    assert "An optional dependency is not installed (the import fails)" in yaml.common_situations
    assert "while handling `ImportError`" in yaml.when_it_happens


def test_assert_and_platform_and_default_situations(tmp_path: Path) -> None:
    code = '''
    from dataclasses import dataclass
    from pkg.platforms import current_platform


    @dataclass
    class Cfg:
        """Runtime settings."""

        fast: bool = True
        exact: bool = False

        def check(self):
            if current_platform.is_rocm() and self.fast:
                raise NotImplementedError("fast mode is not available on ROCm")
            if self.fast and self.exact:
                raise ValueError("fast and exact cannot both be on")


    def kernel(n):
        assert n % 8 == 0, "n must be a multiple of 8"
    '''
    sites = explain_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/platforms.py": "current_platform = None\n",
            "pkg/cfg.py": code,
        },
    )
    rocm = explanation(sites["fast mode is not available on ROCm"])
    assert "Running on ROCm" in rocm.common_situations
    both = explanation(sites["fast and exact cannot both be on"])
    assert both.common_situations == (
        "`fast` (default True) left at its default while `exact` is on",
    )
    assert "while `Cfg.check` validates its input" in both.when_it_happens
    mult = explanation(sites["n must be a multiple of 8"])
    assert mult.what_it_means.startswith("An internal consistency check (`assert`)")
    assert "the code expects that `n % 8` is 0" in mult.when_it_happens


def test_index_writes_explanations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "pkg"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "config.py").write_text(CONFIG)
    store = open_store(tmp_path / "db.sqlite")
    result = index_source(str(root), store, use_cache=False)
    assert all(s.explanation is not None for s in result.sites)
    stored = [r.site.explanation for r in store.list_records(package="pkg")]
    seed = next(e for e in stored if e and e.title == "max_items must be non-negative")
    assert seed.provenance == "static"
    assert "rejects a negative `max_items`" in seed.what_it_means
    assert seed.call_paths == (("pkg.config.build", "pkg.config.main"),)


# -- node kinds -------------------------------------------------------------------------


def test_every_expression_kind_is_explained(tmp_path: Path) -> None:
    code = every_expression_module()
    sites = explain_package(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": code})
    assert len(sites) == len(EXPRESSIONS)
    for site in sites.values():
        ex = explanation(site)
        assert ex.title and ex.what_it_means
        assert ex.when_it_happens.startswith(f"Raised when `{site.location.function}()` runs, if ")


def test_conditions_and_hole_names_take_every_expression_node() -> None:
    for expr in EXPRESSIONS.values():
        for node in ast.walk(ast.parse(expr, mode="eval")):
            if not isinstance(node, ast.expr):
                continue
            for holds in (True, False):
                tree = tree_of(node)
                assert all(c.text for c in clauses(tree, {}, holds=holds)), ast.dump(node)
                assert say(tree, {}, holds).text, ast.dump(node)
            assert hole_name(tree_of(node)), ast.dump(node)


def test_a_tree_that_is_a_package_names_its_root_file(tmp_path: Path) -> None:
    code = "def f():\n    raise ValueError('no f here')\n"
    sites = explain_package(tmp_path, {"__init__.py": code}, code_paths=())
    assert explanation(sites["no f here"]).what_it_means == (
        "`f()` in `__init__.py` always raises `ValueError` at this point of `f`."
    )


WHO_CAN_ACT = """
from dataclasses import dataclass

LIMIT = 8


class Cache:
    def __init__(self, size):
        self.size = size
        self.hits = 0
        self._store = {}

    def get(self, key):
        if self.size < 1:
            raise ValueError(f"cache size must be positive, got {self.size}")
        if self.hits > LIMIT:
            raise RuntimeError("too many hits on the cache")
        if key not in self._store:
            raise KeyError(f"key {key} is not cached")
        return self._store[key]

    def check(self):
        assert self._store is not None, "cache storage went missing"


def _resize(cache, new_size):
    if new_size < 0:
        raise ValueError(f"cannot resize the cache to {new_size} entries")
    cache.size = new_size


def resize(cache, new_size):
    _resize(cache, new_size)


def outer(count):
    def inner(step):
        if step > count:
            raise ValueError(f"the step {step} passes the count")
    return inner
"""


def test_who_can_act_on_each_input(tmp_path: Path) -> None:
    sites = explain_package(tmp_path, {"pkg/cache.py": WHO_CAN_ACT})
    by_message = {s.message.text: s for s in sites.values() if s.message is not None}

    def access(message: str) -> dict[str, str | None]:
        return {i.expr: i.access for i in by_message[message].inputs}

    assert access("cache size must be positive, got {self.size}") == {"self.size": "public"}
    hits = access("too many hits on the cache")
    assert (hits["self.hits"], hits["LIMIT"]) == ("internal", "internal")
    assert access("key {key} is not cached")["self._store"] == "internal"
    assert access("key {key} is not cached")["key"] == "public"
    # a private helper's parameter that a public function hands on is the user's
    assert access("cannot resize the cache to {new_size} entries") == {"new_size": "public"}
    assert access("the step {step} passes the count") == {"step": "internal", "count": "public"}


def test_solutions_never_ask_to_change_what_the_library_sets(tmp_path: Path) -> None:
    sites = explain_package(tmp_path, {"pkg/cache.py": WHO_CAN_ACT})
    for site in sites.values():
        assert site.explanation is not None
        for solution in site.explanation.solutions:
            assert "`_store`" not in solution and "`self._store`" not in solution
            assert "`hits`" not in solution and "`LIMIT`" not in solution
            assert not solution.startswith("Or:"), solution


def test_a_private_functions_parameter_points_to_its_public_caller(tmp_path: Path) -> None:
    sites = explain_package(tmp_path, {"pkg/cache.py": WHO_CAN_ACT})
    [site] = [s for s in sites.values() if s.message and "resize the cache" in s.message.text]
    assert site.explanation is not None
    [fix] = site.explanation.solutions
    assert fix == "Set `new_size` to 0 or more (from your call `resize(new_size=…)`)"
    [item] = site.inputs
    assert [(h.function, h.param) for h in item.reach] == [
        ("resize", "new_size"),
        ("_resize", "new_size"),
    ]


def test_a_check_of_the_librarys_own_state_is_called_a_bug(tmp_path: Path) -> None:
    sites = explain_package(
        tmp_path, {"pkg/cache.py": WHO_CAN_ACT}, repo_url="https://github.com/example/pkg"
    )
    [site] = [s for s in sites.values() if s.message and "went missing" in s.message.text]
    body = site.explanation
    assert body is not None
    assert "points to a bug in pkg, not in your code or settings" in body.what_it_means
    assert body.solutions[0].startswith("Report it to the pkg maintainers, with the traceback: ")
    assert body.report_issue_url is not None and body.report_issue_url in body.solutions[0]
    # a check of what the user passed is not one
    [user] = [s for s in sites.values() if s.message and "must be positive" in s.message.text]
    assert user.explanation is not None and "bug in pkg" not in user.explanation.what_it_means


LOOPS = """
KERNELS = ["triton", "cuda"]


def pick(name):
    for kernel in KERNELS:
        if kernel == name:
            return kernel
    raise ValueError(f"no kernel named {name}")


def first_even(numbers):
    for n in numbers:
        if n % 2 == 0:
            break
    else:
        raise ValueError("the numbers hold no even one")
    return n


def scan(items):
    for item in items:
        if item:
            break
    raise RuntimeError("reached after a break as well")


def wait(queue):
    while queue.pending():
        if queue.ready():
            return queue.take()
    raise TimeoutError("the queue emptied before anything was ready")
"""


def test_a_raise_after_a_loop_says_what_no_item_matched(tmp_path: Path) -> None:
    sites = explain_package(tmp_path, {"pkg/loops.py": LOOPS})
    by_message = {s.message.text: s for s in sites.values() if s.message is not None}

    def kinds(message: str) -> list[tuple[str, str]]:
        return [(g.kind, g.test) for g in by_message[message].guard]

    assert kinds("no kernel named {name}") == [
        ("loop-exhausted", "any(kernel == name for kernel in KERNELS)")
    ]
    assert kinds("the numbers hold no even one") == [("loop-exhausted", "n in numbers")]
    assert kinds("reached after a break as well") == []  # a break also gets there
    assert kinds("the queue emptied before anything was ready") == [
        ("loop-exhausted", "queue.pending()")
    ]
    when = by_message["no kernel named {name}"].explanation
    assert when is not None
    said = "if no `kernel` in `KERNELS` satisfies `kernel == name`"
    assert said in when.when_it_happens and said[3:] in when.what_it_means
    assert "every time this code is reached" not in when.when_it_happens
    queue = by_message["the queue emptied before anything was ready"].explanation
    assert queue is not None
    assert "once `while queue.pending()` stopped without returning" in queue.when_it_happens


TRY = """
def f():
    try:
        {statement}
    except OSError:
        raise ValueError()
"""


def test_the_function_a_try_block_calls_is_read_from_its_tree() -> None:
    for statement, called in [
        ("value = self.parser.parse_args(args)", "parse_args"),
        ("return await fetch(url)", "fetch"),
        ("data = yield from produce()", "produce"),
        ("return load(path).data[0]", "load"),
        ("make()(x)", "make"),
        ("ok = isinstance(x, int)", "isinstance"),
        ("ok = run(a) == 0 and b", "run"),
        ("n = not check(x)", None),
        ("n = self.items[0].pop()", None),
        ("n = (a or b)(x)", None),
        ("total = -count(x)", None),
        ("import yaml", None),
    ]:
        (site,) = index_snippet(TRY.format(statement=statement))
        assert _called_in_try(site.guard[0].raised_by_tree) == called, statement
