# The code read as Python means it (issue 30): a getattr default, a loop that returns on
# success, an early return that holds another raise, a case branch, a raise straight in a
# loop, what a handler caught and where the traceback prints it, a class doc's gist past
# its admonitions, constants filled into quoted advice, and advice for the library's own
# developers left out. Each test: a small package in, the prose that should come out,
# with the negative case beside it.
from __future__ import annotations

from pathlib import Path

from errdex.model import ErrorSite
from tests.test_knobs import body, explained


def find(sites: dict[str, ErrorSite], text: str) -> ErrorSite:
    """The site whose message template is `text`."""
    return next(s for s in sites.values() if s.message is not None and s.message.text == text)


def said(site: ErrorSite) -> str:
    prose = body(site)
    return prose.what_it_means + "\n" + prose.when_it_happens


def test_a_getattr_default_is_the_value_it_reads_not_hasattr(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "m/__init__.py": "",
            "m/attn.py": """
                def build(config):
                    if getattr(config, "is_causal", True):
                        return "causal"
                    else:
                        raise ValueError("only causal attention is supported")

                def lora(config):
                    if not getattr(config, "no_lora", False):
                        raise ValueError("this layer takes no LoRA weights")

                def named(config):
                    if not hasattr(config, "heads"):
                        raise ValueError("the config names no heads")
            """,
        },
    )
    causal = said(sites["only causal attention is supported"])
    assert "`config.is_causal` is present and false" in causal
    assert "attribute" not in causal
    lora = said(sites["this layer takes no LoRA weights"])
    assert "`config.no_lora` is empty or unset" in lora and "attribute" not in lora
    # a real hasattr is still said as one
    assert "`config` has no attribute 'heads'" in said(sites["the config names no heads"])


def test_a_raise_after_a_loop_that_returns_is_the_loops_condition(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "k/__init__.py": "",
            "k/sizes.py": """
                SUPPORTED = (32, 64, 128)

                def pad(num_heads):
                    for size in SUPPORTED:
                        if num_heads <= size:
                            return size
                    raise ValueError(f"no supported size fits {num_heads} heads")

                def first(items):
                    for item in items:
                        return item
                    raise ValueError("there is no item at all")

                def check(required, actual):
                    for want, got in zip(required, actual):
                        raise ValueError(f"{got} does not match {want}")

                def always():
                    raise RuntimeError("this build has no such backend")
            """,
        },
    )
    pad = find(sites, "no supported size fits {num_heads} heads")
    assert [(g.kind, g.test, g.negated) for g in pad.guard] == [
        ("loop-exhausted", "any(num_heads <= size for size in SUPPORTED)", True)
    ]
    text = said(pad)
    assert "no `size` in `SUPPORTED` satisfies `num_heads <= size`" in text
    assert "always" not in text and "every time" not in text
    # a loop that returns its first item: what follows runs when there is none
    assert "once no `item` in `items` made the loop return" in said(
        sites["there is no item at all"]
    )
    # a raise straight in a loop's body fires on the first item
    zipped = said(find(sites, "{got} does not match {want}"))
    assert "`zip(required, actual)` has at least one item (the first raises)" in zipped
    assert "always" not in zipped
    # an unconditional raise says so
    plain = body(sites["this build has no such backend"])
    assert "always raises `RuntimeError`" in plain.what_it_means
    assert "every time this code is reached" in plain.when_it_happens


def test_an_early_return_that_holds_another_raise_is_a_condition(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "e/__init__.py": "",
            "e/pick.py": """
                def pick(fast, strict):
                    if fast:
                        if strict:
                            raise ValueError("fast mode cannot be strict")
                        return "fast"
                    raise ValueError("only fast mode is built")

                def size(n):
                    if n < 0:
                        raise ValueError("n is negative")
                    raise ValueError("sizes are not supported yet")
            """,
        },
    )
    slow = body(sites["only fast mode is built"])
    assert "when `fast` is empty or unset" in slow.what_it_means
    assert "if `fast` is empty or unset" in slow.when_it_happens
    assert "always" not in slow.what_it_means
    # an `if` whose body is the raise is that raise's check: the next raise fires past it,
    # without rejecting what that check read
    later = body(sites["sizes are not supported yet"])
    assert "if `n` is 0 or more" in later.when_it_happens
    assert "rejects" not in later.what_it_means and "always" not in later.what_it_means


def test_a_handler_names_what_raised_and_where_the_traceback_shows_it(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/parse.py": """
                import json

                class ConfigError(Exception):
                    pass

                def chained(text):
                    try:
                        return json.loads(text)
                    except ValueError as exc:
                        raise ConfigError("the config is not JSON") from exc

                def hidden(text):
                    try:
                        return json.loads(text)
                    except ValueError:
                        raise ConfigError("the config could not be read") from None

                def passed_on(text):
                    try:
                        return json.loads(text)
                    except ValueError:
                        print("bad config")
                        raise
            """,
        },
    )
    chained = sites["the config is not JSON"]
    assert "after catching `ValueError` raised by `json.loads(text)`" in body(chained).what_it_means
    assert "`ValueError` raised by `json.loads(text)` in the `try` block" in said(chained)
    solutions = " ".join(body(chained).solutions)
    assert "printed above this error in the traceback" in solutions
    assert "below" not in solutions
    hidden = " ".join(body(sites["the config could not be read"]).solutions)
    assert "the traceback does not show it (`from None`)" in hidden
    again = next(s for s in sites.values() if s.kind == "reraise")
    again_said = " ".join(body(again).solutions)
    assert "passed on unchanged" in again_said and "printed above" not in again_said
    assert (
        "passes on `ValueError` raised by `json.loads(text)` (`text` is not valid JSON) unchanged"
        in said(again)
    )


def test_a_pydantic_core_error_in_a_validator_is_reported_in_a_validation_error(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "v/__init__.py": "",
            "v/checks.py": """
                from pydantic_core import PydanticCustomError

                def positive(value):
                    raw = value.strip()
                    try:
                        number = float(raw)
                    except TypeError as exc:
                        raise PydanticCustomError("number", "not a number") from exc
                    return number
            """,
        },
    )
    site = next(iter(sites.values()))
    solutions = " ".join(body(site).solutions)
    assert "as a line of a `ValidationError`" in solutions and "printed above" not in solutions


def test_a_class_gist_skips_mkdocs_admonitions(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "d/__init__.py": "",
            "d/model.py": '''
                class Model:
                    """!!! abstract "Usage Documentation"
                        [Models](../concepts/models.md)

                    A base class for creating models.
                    """

                    def __init__(self, size):
                        if size < 0:
                            raise ValueError("size must not be negative")
            ''',
        },
    )
    meaning = body(sites["size must not be negative"]).what_it_means
    assert "`Model` (a base class for creating models)" in meaning
    assert "!!!" not in meaning


def test_quoted_advice_fills_constants_and_leaves_out_private_code(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "c/__init__.py": "",
            "c/setup.py": """
                SCRIPT_URL = "https://example.org/get-weights.sh"

                def weights(path):
                    if path is None:
                        raise FileNotFoundError(f"No weights. Please run {SCRIPT_URL} first.")

                def kind(value):
                    if not isinstance(value, (int, str)):
                        raise TypeError(f"Unknown kind. Add a case in `_kind_of()` for it.")
            """,
        },
    )
    # the constant is text the message reads statically: its value is in the template
    weights = body(
        find(sites, "No weights. Please run https://example.org/get-weights.sh first.")
    ).solutions
    assert "Please run https://example.org/get-weights.sh first." in weights
    assert not any("{" in s for s in weights)
    kind = body(sites["Unknown kind. Add a case in `_kind_of()` for it."]).solutions
    assert not any("_kind_of" in s for s in kind)


def test_an_abstractmethod_is_reached_only_through_super(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "a/__init__.py": "",
            "a/base.py": """
                import abc

                class Store(abc.ABC):
                    @abc.abstractmethod
                    def put(self, key):
                        raise NotImplementedError

                    def get(self, key):
                        raise NotImplementedError
            """,
        },
    )
    put = body(sites["Store.put"])
    assert "only when a subclass's implementation calls it through `super()`" in put.what_it_means
    assert "does not" not in put.what_it_means
    assert any("without calling `super().put()`" in s for s in put.solutions)
    # a plain method that raises is reached through any subclass that leaves it out
    get = body(sites["Store.get"])
    assert "super()" not in get.what_it_means
    assert any("Implement `get` in your subclass of `Store`" in s for s in get.solutions)


def test_a_private_marker_is_never_named_in_a_fix(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "f/__init__.py": "",
            "f/fields.py": """
                _MISSING = object()

                def required(name, value=_MISSING):
                    if value is _MISSING:
                        raise TypeError(f"Field {name!r} is required but missing.")
            """,
        },
    )
    fixes = body(next(iter(sites.values()))).solutions
    assert any(s.startswith("Give `value` a value") for s in fixes)
    assert not any("`_MISSING`" in s for s in fixes)  # its default is said, not as a fix


def test_a_branch_of_a_chain_is_not_restated_by_the_ones_before_it(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "b/__init__.py": "",
            "b/load.py": """
                def load(proto, allow_pickle=False):
                    if proto == "json":
                        return "json"
                    elif proto == "pickle":
                        if not allow_pickle:
                            raise RuntimeError("pickle is not allowed here")
                    else:
                        raise ValueError(f"unknown protocol {proto}")
            """,
        },
    )
    pickle = body(sites["pickle is not allowed here"]).when_it_happens
    assert "`proto` is 'pickle'" in pickle and "'json'" not in pickle
    # with no branch that holds, every earlier one is part of the condition
    unknown = body(find(sites, "unknown protocol {proto}")).when_it_happens
    assert "`proto` is not 'json'" in unknown and "`proto` is not 'pickle'" in unknown


def test_an_error_class_of_the_library_s_own_is_not_called_a_bug(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "toml/__init__.py": "",
            "toml/errors.py": """
                class ParseError(ValueError):
                    pass
            """,
            "toml/parser.py": """
                from toml.errors import ParseError

                class Parser:
                    def __init__(self, text):
                        self._src = text
                        self._idx = 0
                        self._depth = 0

                    def _expect_equals(self):
                        if self._src[self._idx] != "=":
                            raise ParseError("expected '=' after a key")

                    def _pop(self):
                        self._depth -= 1
                        if self._depth < 0:
                            raise RuntimeError("more tables closed than opened")
            """,
        },
    )
    syntax = body(sites["expected '=' after a key"])
    assert "bug" not in syntax.what_it_means
    assert not any(s.startswith("Report it") for s in syntax.solutions)
    # a builtin invariant error over the parser's own state still points to a bug
    cursor = body(sites["more tables closed than opened"])
    assert "a bug in" in cursor.what_it_means


def test_a_presence_test_before_the_real_one_is_not_the_fix(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "n/__init__.py": "",
            "n/fields.py": """
                def is_collection(value):
                    return isinstance(value, (list, tuple))

                class Nested:
                    def __init__(self, only=None):
                        if only is not None and not is_collection(only):
                            raise ValueError("only must be a list or a tuple")
                        self.only = only
            """,
        },
    )
    fixes = body(sites["only must be a list or a tuple"]).solutions
    assert fixes[0].startswith("Pass a `only` for which `is_collection(only)` is true")
    assert all(not s.startswith("Leave") for s in fixes)  # avoiding it comes after, as "Or:"


def test_a_constant_of_another_module_is_read_for_what_it_holds(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "hub/__init__.py": "",
            "hub/constants.py": 'REPO_TYPES = ["model", "dataset", "space"]\n',
            "hub/api.py": """
                from hub import constants

                MODES = ("r", "w")

                def info(repo_id, repo_type="model", mode="r"):
                    if repo_type not in constants.REPO_TYPES:
                        raise ValueError(f"repo type must be one of {constants.REPO_TYPES}")
                    if mode not in MODES:
                        raise ValueError(f"unknown mode {mode}")
            """,
        },
    )
    repo = body(find(sites, "repo type must be one of {constants.REPO_TYPES}"))
    assert "`repo_type` is not one of 'model', 'dataset' or 'space'" in repo.when_it_happens
    assert any(
        s.startswith("Set `repo_type` to one of 'model', 'dataset' or 'space'")
        for s in repo.solutions
    )
    mode = body(find(sites, "unknown mode {mode}"))
    assert "`mode` is not one of 'r' or 'w'" in mode.when_it_happens


def test_a_limit_held_in_a_constant_is_given_with_its_value(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "lim/__init__.py": "",
            "lim/batch.py": """
                MAX_ITEMS = 64

                def submit(items):
                    if len(items) > MAX_ITEMS:
                        raise ValueError("too many items")

                def pick(size):
                    if size > MAX_ITEMS:
                        raise ValueError("size is too large")
            """,
        },
    )
    size = body(sites["size is too large"])
    assert "`size` is greater than `MAX_ITEMS` (64)" in size.when_it_happens
    assert any(s.startswith("Set `size` to 64 or less") for s in size.solutions)


def test_a_test_by_a_private_function_is_not_named_in_a_fix(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "r/__init__.py": "",
            "r/api.py": """
                import re

                _INTEGER = re.compile(r"[0-9]+")

                def _is_integer(raw):
                    return _INTEGER.fullmatch(raw) is not None

                def integer(raw):
                    if not _is_integer(raw):
                        raise ValueError(f"not an integer: {raw}")
            """,
        },
    )
    fixes = body(find(sites, "not an integer: {raw}")).solutions
    assert not any("_is_integer" in s for s in fixes)


def test_a_missing_private_part_of_the_build_is_not_named_in_the_fix(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "fast/__init__.py": "",
            "fast/parser.py": """
                def native():
                    try:
                        import fast._native as native
                    except ImportError as exc:
                        raise RuntimeError("the native parser is not built") from exc
                    return native
            """,
        },
    )
    prose = body(sites["the native parser is not built"])
    assert "`fast._native`" in prose.what_it_means
    assert prose.solutions and not any("_native" in s for s in prose.solutions)


def test_an_import_that_fell_back_to_none_is_a_missing_dependency(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": """
                [project]
                name = "core"
                version = "1.0"
                [project.optional-dependencies]
                asyncio = ["anyio>=4,<5"]
            """,
            "core/__init__.py": "",
            "core/sync.py": """
                try:
                    import anyio
                except ImportError:
                    anyio = None

                def library(environment):
                    if environment == "asyncio" and anyio is None:
                        raise RuntimeError("Running with asyncio requires anyio.")
                    return environment

                def size(queue):
                    if queue is None:
                        raise ValueError("no queue was given")
            """,
        },
    )
    prose = body(sites["Running with asyncio requires anyio."])
    assert "bug" not in prose.what_it_means and "`anyio`" in prose.what_it_means
    assert any("pip install 'core[asyncio]'" in s for s in prose.solutions)
    # a parameter that is None is no import
    assert not any("install" in s.lower() for s in body(sites["no queue was given"]).solutions)


def test_raising_the_caught_exception_again_passes_it_on(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "conn/__init__.py": "",
            "conn/http.py": """
                def send(request, release):
                    try:
                        return request.send()
                    except BaseException as exc:
                        release()
                        raise exc

                def wrapped(request):
                    try:
                        return request.send()
                    except OSError as exc:
                        exc = RuntimeError(str(exc))
                        raise exc
            """,
        },
    )
    again = next(s for s in sites.values() if s.location.function == "send")
    assert again.kind == "reraise"
    assert "passes on whatever `request.send()` raised, unchanged" in body(again).what_it_means
    # a name bound anew in the handler is another exception
    other = next(s for s in sites.values() if s.location.function == "wrapped")
    assert other.kind == "raise"


def test_a_module_global_that_is_none_is_no_missing_import(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "state/__init__.py": "",
            "state/groups.py": """
                _WORLD = None

                def get_world_group():
                    if _WORLD is None:
                        raise RuntimeError("the world group is not initialized")
                    return _WORLD
            """,
        },
    )
    fixes = body(sites["the world group is not initialized"]).solutions
    assert not any("install" in s.lower() for s in fixes)


def test_a_handled_parse_failure_says_what_was_wrong_with_its_input(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "tok/__init__.py": "from tok.api import load_config, read_header\n",
            "tok/api.py": """
                import json


                def read_header(segment):
                    try:
                        return json.loads(segment)
                    except ValueError as e:
                        raise LookupError(f"bad header: {e}") from e


                def load_config(path):
                    try:
                        fh = open(path)
                    except FileNotFoundError:
                        raise LookupError(f"no config at {path}") from None
                    return fh


                def count(text):
                    try:
                        return int(text)
                    except KeyError:
                        raise LookupError(f"no count in {text}")


                def parse(text):
                    try:
                        return json.loads(text)
                    except TypeError:
                        raise LookupError(f"cannot parse {text}")
            """,
        },
    )
    header = body(find(sites, "bad header: {e}"))
    assert "`json.loads(segment)` in the `try` block: `segment` is not valid JSON" in (
        header.when_it_happens
    )
    assert "(`segment` is not valid JSON)" in header.what_it_means
    assert header.solutions[0] == (
        "Check the `segment` you pass to `read_header`: it is not valid JSON (the `ValueError`"
        " it handles, printed above this error in the traceback)"
    )
    # a handler for one kind of OSError says what that kind means of the path
    config = body(find(sites, "no config at {path}"))
    assert config.solutions[0] == (
        "Check the `path` you pass to `load_config`: it does not exist (the"
        " `FileNotFoundError` it handles; the traceback does not show it (`from None`))"
    )
    # the negatives: a handler that catches what the call does not raise for bad input,
    # and a call that is not one whose failure says what its input is
    for text in ("no count in {text}", "cannot parse {text}"):
        assert "is not" not in said(find(sites, text)), text


def test_a_path_test_says_what_the_path_must_be(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pp/__init__.py": "from pp.api import enable, save, rule\n",
            "pp/api.py": """
                import os


                def cell_len(text):
                    return len(text)


                def enable(path):
                    local_path = os.path.abspath(path)
                    if not os.path.isdir(local_path):
                        raise ValueError("This does not look like a valid git repo.")


                def save(target):
                    if os.path.exists(target):
                        raise FileExistsError(f"{target} exists")


                def rule(characters="-"):
                    if cell_len(characters) < 1:
                        raise ValueError("the characters must have a cell width of 1 or more")


                def size(items):
                    if len(items) < 1:
                        raise ValueError("no items")
            """,
        },
    )
    enable = body(sites["This does not look like a valid git repo."])
    assert "`local_path` is not a directory (`os.path.isdir(local_path)` returns false)" in (
        enable.when_it_happens
    )
    assert enable.solutions == (
        "Check the `path` you pass to `enable`: what the check makes of it must be an"
        " existing directory",
    )
    save = body(find(sites, "{target} exists"))
    assert save.solutions[0].startswith("Pass a `target` that is a path where nothing exists yet")
    # a public function's measure of a parameter, compared with a literal
    rule = body(sites["the characters must have a cell width of 1 or more"])
    assert rule.solutions[0].startswith(
        "Pass a `characters` for which `cell_len(characters)` is 1 or more"
    )
    # `len` keeps its own wording
    assert (
        body(sites["no items"]).solutions[0]
        == "Give `items` at least one item (parameter of `size`)"
    )


def test_an_error_a_caller_turns_into_another_says_which_one_the_user_sees(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "dp/__init__.py": "from dp.parser import parse\n",
            "dp/parser.py": """
                class ParserError(ValueError):
                    pass


                def _ymd(token):
                    if len(token) > 4:
                        raise ValueError(f"year too long: {token}")
                    return token


                def parse(text):
                    try:
                        return _ymd(text)
                    except ValueError as e:
                        raise ParserError("Unknown string format") from e


                def check(token):
                    if not token:
                        raise ValueError("empty token")
            """,
        },
    )
    inner = body(find(sites, "year too long: {token}")).what_it_means
    assert (
        'When `parse` calls it, it catches this and raises `ParserError` ("Unknown string'
        ' format") instead: that is the error you see, and the traceback shows this one'
        " above it." in inner
    )
    # a raise that no caller turns into another one says nothing of the kind
    assert "instead" not in body(sites["empty token"]).what_it_means


def test_a_choice_among_the_librarys_own_state_is_not_listed(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "sp/__init__.py": "from sp.split import split\n",
            "sp/split.py": """
                class _State:
                    strategy = "rows"


                def split(strategy="auto", state=_State()):
                    if strategy not in ("auto", state._strategy):
                        raise ValueError(f"unknown strategy {strategy}")
                    if strategy not in ("auto", "rows"):
                        raise ValueError(f"strategy {strategy} is not auto or rows")
            """,
        },
    )
    hidden = body(find(sites, "unknown strategy {strategy}")).solutions
    assert not any("_strategy" in s for s in hidden)
    listed = body(find(sites, "strategy {strategy} is not auto or rows")).solutions
    assert any("'auto' or 'rows'" in s for s in listed), listed


def test_a_raise_past_another_raise_fires_when_that_one_did_not(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "r/__init__.py": "",
            "r/attempts.py": """
                class Retried(Exception):
                    def __init__(self, attempt):
                        self.attempt = attempt

                    def reraise(self):
                        if self.attempt.failed:
                            raise ValueError("the last attempt failed")
                        raise RuntimeError("no attempt failed, yet it gave up")

                def plain():
                    raise RuntimeError("always, by design")
            """,
        },
    )
    past = said(find(sites, "no attempt failed, yet it gave up"))
    assert "if `self.attempt.failed` is empty or unset" in past, past
    assert "every time" not in past
    # a raise with no check before it still fires every time it is reached
    assert "every time this code is reached" in said(find(sites, "always, by design"))


def test_a_docutils_walk_signal_is_said_as_one(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "w/__init__.py": "",
            "w/writer.py": """
                from docutils import nodes


                class Translator(nodes.NodeVisitor):
                    def visit_comment(self, node):
                        raise nodes.SkipNode

                    def visit_raw(self, node):
                        if "man" not in node.get("format", ""):
                            raise nodes.SkipChildren
            """,
        },
    )
    comment = body(sites["Translator.visit_comment"])
    assert "as a signal, not an error" in comment.what_it_means
    assert "skip this node's children and its departure" in comment.what_it_means
    assert not any("Report it" in f.text for f in comment.fixes)
    assert "skip this node's children." in body(sites["Translator.visit_raw"]).what_it_means


def test_an_http_answer_and_an_error_passed_on_are_no_bug(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "svc/__init__.py": "",
            "svc/_routes.py": """
                from fastapi import HTTPException


                class Runs:
                    def current(self):
                        run = self._current
                        if run is None:
                            raise HTTPException(status_code=404, detail="no run yet")
                        return run

                    def ready(self):
                        run = self._current
                        if run is None:
                            raise RuntimeError("no run yet, internally")


                def _make(factory):
                    try:
                        return factory()
                    except Exception:
                        raise
            """,
        },
    )
    answer = body(sites["no run yet"])
    assert "bug" not in answer.what_it_means
    assert not any(f.text.startswith("Report it") for f in answer.fixes)
    passed_on = body(sites["_make"])
    assert "bug" not in passed_on.what_it_means, passed_on.what_it_means
    # the same check with an error of no such kind is still the library's own
    assert "points to a bug" in body(sites["no run yet, internally"]).what_it_means


def test_the_length_of_a_shape_is_the_number_of_dimensions(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "nn/__init__.py": "from nn.pool import pool",
            "nn/pool.py": """
                import numpy as np


                def pool(inputs, sizes):
                    if len(inputs.shape) != 4:
                        raise ValueError("inputs must be a batch of images")
                    if len(np.shape(sizes)) > 1:
                        raise ValueError("sizes must be flat")
                    if len(sizes) == 0:
                        raise ValueError("no sizes")
            """,
        },
    )
    images = body(sites["inputs must be a batch of images"])
    assert "`inputs` does not have exactly 4 dimensions" in images.when_it_happens
    assert any(f.text.startswith("Give `inputs` exactly 4 dimensions") for f in images.fixes)
    assert "`sizes` has more than 1 dimensions" in body(sites["sizes must be flat"]).when_it_happens
    # a plain length is still a count of items
    assert "`sizes` is empty" in body(sites["no sizes"]).when_it_happens


def test_an_error_the_package_catches_and_goes_on_from_says_where_it_ends(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "forms/__init__.py": "from forms.validators import Length, ValidationError",
            "forms/validators.py": """
                class ValidationError(ValueError):
                    pass


                class StopValidation(ValidationError):
                    pass


                class Length:
                    def __init__(self, most):
                        self.most = most

                    def __call__(self, form, field):
                        if len(field.data) > self.most:
                            raise ValidationError("Field is too long")
                        if not field.data:
                            raise StopValidation("Field is empty")
                        if field.data == "?":
                            raise ValueError("a plain ValueError")
                        try:
                            int(field.data)
                        except ValueError:
                            raise ValidationError("Not a number")
            """,
            "forms/fields.py": """
                from forms.validators import ValidationError


                class Field:
                    def validate(self, form, validators):
                        for validator in validators:
                            try:
                                validator(form, self)
                            except ValidationError as e:
                                self.errors.append(e.args[0])
                        try:
                            import json
                        except ImportError:
                            json = None
            """,
        },
    )
    long = body(sites["Field is too long"]).what_it_means
    assert "catches `ValidationError` and goes on, in `Field.validate`" in long
    assert "(forms/fields.py:10, with `self.errors.append(e.args[0])`)" in long
    # a subclass is caught by a handler of its base; a builtin error is nobody's signal
    assert "`Field.validate`" in body(sites["Field is empty"]).what_it_means
    assert "catches" not in body(sites["a plain ValueError"]).what_it_means
    # what such an error handled is in no traceback either
    number = body(sites["Not a number"])
    assert any("`ValueError`" in f.text for f in number.fixes), number.fixes
    assert not any("traceback" in f.text for f in number.fixes), number.fixes


def test_a_regex_match_result_is_said_of_the_text_it_was_matched_on(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "p/__init__.py": "from p.parse import parse_offset, parse_name",
            "p/parse.py": """
                import re

                OFFSET = re.compile(r"^([+-])(\\\\d\\\\d):?(\\\\d\\\\d)$")


                def parse_offset(text):
                    found = OFFSET.match(text)
                    if found is None:
                        raise ValueError(f"not an offset: {text!r}")
                    return found.groups()


                def parse_name(name):
                    m = re.fullmatch("[a-z_]+", name)
                    if not m:
                        raise ValueError("names are lower case")
                    return name
            """,
        },
    )
    offset = body(find(sites, "not an offset: {text!r}"))
    assert "`text` does not match `OFFSET`" in offset.when_it_happens
    assert any("Use a `text` that matches `OFFSET`" in f.text for f in offset.fixes)
    named = body(sites["names are lower case"])
    assert "`name` does not fully match '[a-z_]+'" in named.when_it_happens
    assert "`m`" not in named.what_it_means


def test_what_a_get_found_is_said_of_the_key_it_looked_up(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "reg/__init__.py": "from reg.lookup import backend_for, pick",
            "reg/lookup.py": """
                BACKENDS = {"redis": "RedisBackend", "rpc": "RPCBackend"}
                _MODES = {}


                def pick(mode):
                    fixer = _MODES.get(mode)
                    if fixer is None:
                        raise ValueError(f"unknown mode {mode!r}")
                    return fixer


                def backend_for(scheme, options):
                    found = BACKENDS.get(scheme)
                    if found is None:
                        raise ValueError(f"no backend for {scheme!r}")
                    timeout = options.get("timeout", 0)
                    if not timeout:
                        raise ValueError("a timeout is needed")
                    return found
            """,
        },
    )
    missing = body(find(sites, "no backend for {scheme!r}"))
    assert "`BACKENDS` has no entry for `scheme`" in missing.when_it_happens
    assert "`found`" not in missing.what_it_means
    assert any(
        f.text.startswith("Use a `scheme` that `BACKENDS` has an entry for: 'redis' or 'rpc'")
        for f in missing.fixes
    ), missing.fixes
    # the library's own table is not named in a fix
    own = body(find(sites, "unknown mode {mode!r}"))
    assert any(f.text.startswith("Use a `mode` that the library knows") for f in own.fixes)
    # a get with a default is a value like any other
    assert "has no entry" not in body(sites["a timeout is needed"]).when_it_happens
