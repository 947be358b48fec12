# Issue 10, recall: tests found through the calls a test makes, as far as the call graph
# sees them: calls inside expressions, methods a base class defines, `super()`, a
# function called through its package (`pkg.get`), objects made in the function. Each
# rule with a case where a test that does not trigger the site stays unlisted. Snippets
# of a package and its tests, extracted and explained for real (no mocks).
from __future__ import annotations

from pathlib import Path

import pytest

from errdex.explain.callgraph import CallGraph
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.pipeline import extract
from errdex.model import ErrorSite, Snapshot
from tests.conftest import write_tree
from tests.test_explain import explain_package, explanation

INIT = """
from pkg.api import get, other
from pkg.core import Body, Opt, Response
"""

API = """
from pkg.sessions import Session


def get(url, headers=None):
    with Session() as session:
        return session.request("GET", url, headers or {})


def other(url):
    return url.strip()
"""

SESSIONS = """
class InvalidSchema(ValueError):
    pass


class InvalidHeader(ValueError):
    pass


class BaseSession:
    def prepare(self, url, headers):
        self.check(url)
        for name, value in headers.items():
            validate_header(name, value)
        return url

    def check(self, url):
        if "://" not in url:
            raise InvalidSchema(f"No connection adapters were found for {url!r}")


class Session(BaseSession):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def request(self, method, url, headers):
        return self.prepare(url, headers)


def parse_schema(text):
    raise InvalidSchema(f"unknown schema in {text!r}")


def validate_header(name, value):
    if not isinstance(value, str):
        raise InvalidHeader(f"Header part ({value!r}) from {name} must be of type str")
    if value.startswith(" "):
        raise InvalidHeader(f"Invalid leading whitespace in header {name}: {value!r}")
"""

CORE = """
MAX_RANGE = 100


class StreamConsumed(Exception):
    pass


class StreamClosed(RuntimeError):
    pass


class ProtocolError(Exception):
    pass


class RemoteProtocolError(ProtocolError):
    pass


class Body:
    def __init__(self):
        self.consumed = False

    def iter_raw(self):
        if self.consumed:
            raise StreamConsumed()
        self.consumed = True
        yield b"x"

    def read(self):
        return b"".join(self.iter_raw())

    def size(self):
        return 1


def consume_twice():
    raise StreamConsumed()


class Response:
    def __init__(self, closed=False, is_async=False):
        self.closed = closed
        self.is_async = is_async

    def iter_raw(self):
        if self.closed:
            raise StreamClosed("the stream is closed")
        if self.is_async:
            raise RuntimeError("Attempted to call a sync iterator on an async stream.")
        yield b"x"


class Parser:
    def _parse_audio(self, value):
        if not value:
            raise ValueError("the audio is empty")
        return value

    def parse(self, data):
        handlers = {"audio": self._parse_audio}
        for kind, value in data.items():
            if kind not in handlers:
                raise ValueError(f"Unsupported modality: {kind}")
            handlers[kind](value)


class Param:
    def __init__(self, default=None, multiple=False):
        if multiple and not isinstance(default, list):
            raise ValueError("'default' must be a list when 'multiple' is true.")


class Opt(Param):
    def __init__(self, **attrs):
        super().__init__(**attrs)


def set_default(value):
    raise ValueError(f"no default for {value!r}")


def safe_range(n):
    if n > MAX_RANGE:
        raise OverflowError(f"Range too big. The sandbox blocks ranges above ({MAX_RANGE}).")
    return range(n)


def keep_range(n):
    if n < 0:
        raise OverflowError("negative ranges are not kept")
    return n


class DigestAuth:
    def flow(self, request):
        raise ProtocolError("Malformed Digest auth header")


class Client:
    def __init__(self, auth=None):
        self.auth = auth

    def request(self, method, url):
        return self.get(url)

    def get(self, url):
        self._redirect(url)
        return self.auth.flow(url)

    def _redirect(self, url):
        if not url:
            raise RemoteProtocolError("Invalid URL in location header")


def outer():
    def inner():
        raise KeyError("x")

    return inner()


def lookup(kind, name):
    raise LookupError(f"No {kind} named {name!r}.")


def find(kind, name):
    raise LookupError(f"No {kind} found for {name!r}.")


def pick_backend(name):
    raise LookupError(f"{name} is not FLASH_ATTN, pick another backend")


def find_in(kind, place):
    raise LookupError(f"No {kind} found in {place}.")
"""

TESTS = """
import pytest

import pkg
from pkg.core import MAX_RANGE, Body, Client, DigestAuth, Opt, Parser, Response
from pkg.core import ProtocolError, StreamConsumed
from pkg.sessions import InvalidHeader, InvalidSchema


def test_read_after_consumed():
    body = Body()
    with pytest.raises(StreamConsumed):
        body.read()


def test_size_after_consumed():
    body = Body()
    with pytest.raises(StreamConsumed):
        body.size()


def test_invalid_schema():
    with pytest.raises(InvalidSchema):
        pkg.get("nowhere")


def test_other_schema():
    with pytest.raises(InvalidSchema):
        pkg.other("nowhere")


def test_header_no_leading_space():
    with pytest.raises(InvalidHeader):
        pkg.get("http://x", {"foo": " bar"})


def test_default_list():
    with pytest.raises(ValueError, match="default"):
        Opt(default=1, multiple=True)


def test_raw_on_async():
    response = Response(is_async=True)
    with pytest.raises(RuntimeError):
        list(response.iter_raw())


def test_parse_modality_of_empty_audio():
    parser = Parser()
    with pytest.raises(ValueError):
        parser.parse({"audio": b""})


def test_sandbox_max_range(env):
    with pytest.raises(OverflowError):
        env.render(total=MAX_RANGE + 1)


def test_digest_auth_raises_protocol_error_on_malformed_header():
    client = Client(auth=DigestAuth())
    with pytest.raises(ProtocolError):
        client.get("http://x")


def test_filter_undefined(env):
    with pytest.raises(LookupError, match="No filter named 'f'"):
        env.get_filter("f")


def test_any_error_named(env):
    with pytest.raises(Exception, match="No thing named 'x'"):
        env.get_filter("x")


def test_backend_named(env):
    with pytest.raises(LookupError, match="FLASH_ATTN"):
        env.select("x")


def test_found_for_or_in(env):
    with pytest.raises(LookupError, match="No filter found"):
        env.get_filter("f")
"""

OTHER_TESTS = """
import pytest

def test_parse_modality_of_empty_audio():
    parser = Parser()
    with pytest.raises(ValueError):
        parser.parse({"audio": b""})


def test_sandbox_max_range(env):
    with pytest.raises(OverflowError):
        env.render(total=1000)
"""

FILES = {
    "pkg/__init__.py": INIT,
    "pkg/api.py": API,
    "pkg/sessions.py": SESSIONS,
    "pkg/core.py": CORE,
    "tests/test_core.py": TESTS,
    "tests/test_other.py": OTHER_TESTS,
}


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> list[ErrorSite]:
    found = explain_package(tmp_path_factory.mktemp("reach"), FILES)
    return sorted(found.values(), key=lambda s: (s.location.file, s.location.line, s.id))


def _tests(site: ErrorSite) -> list[str]:
    return [f"{t.file}::{t.name}" for t in explanation(site).tests]


def _in(sites: list[ErrorSite], function: str) -> list[ErrorSite]:
    return [site for site in sites if site.location.function == function]


CORE_TESTS = "tests/test_core.py::"


def test_a_call_inside_an_expression_reaches_the_site(sites: list[ErrorSite]) -> None:
    # `return b"".join(self.iter_raw())`: no statement heads the call of iter_raw; the
    # class has another raise, which neither test reaches
    assert _tests(_in(sites, "Body.iter_raw")[0]) == [CORE_TESTS + "test_read_after_consumed"]
    assert _tests(_in(sites, "consume_twice")[0]) == []


def test_a_function_called_through_its_package_an_inherited_method_and_a_with_object(
    sites: list[ErrorSite],
) -> None:
    # `pkg.get` -> `with Session() as session: session.request` -> `self.prepare`,
    # which BaseSession defines -> `self.check`; parse_schema raises the class too, and
    # `pkg.other` reaches neither
    (check,) = _in(sites, "BaseSession.check")
    assert _tests(check) == [CORE_TESTS + "test_invalid_schema"]
    assert _tests(_in(sites, "parse_schema")[0]) == []


def test_two_raises_the_calls_reach_and_a_file_that_names_neither(
    sites: list[ErrorSite],
) -> None:
    # both raises of validate_header are reached; the test's name says "leading", but a
    # name alone picked wrong sites on vllm (words like "chat", "token" are everywhere):
    # without the file naming validate_header, neither is listed
    first, second = _in(sites, "validate_header")
    assert _tests(first) == []
    assert _tests(second) == []


def test_a_base_class_constructor_through_super(sites: list[ErrorSite]) -> None:
    # `Opt(...)` -> `super().__init__(**attrs)`; set_default's "default" is not reached
    assert _tests(_in(sites, "Param.__init__")[0]) == [CORE_TESTS + "test_default_list"]
    assert _tests(_in(sites, "set_default")[0]) == []


def test_in_the_method_called_the_raise_of_the_very_class(sites: list[ErrorSite]) -> None:
    # StreamClosed is a RuntimeError too; the test expects RuntimeError itself (its
    # name shares "raw" with the method, too few words to pick by name alone)
    closed, runtime = _in(sites, "Response.iter_raw")
    assert closed.exception.name == "StreamClosed"
    assert _tests(runtime) == [CORE_TESTS + "test_raw_on_async"]
    assert _tests(closed) == []


def test_a_function_that_calls_what_no_name_says_hides_what_lies_below(
    sites: list[ErrorSite],
) -> None:
    # `handlers[kind](value)`: the one ValueError the graph sees in Parser.parse is not
    # the only one the call may raise (the test's name shares "modality" with it)
    assert _tests(_in(sites, "Parser.parse")[0]) == []


def test_a_constant_of_the_condition_the_test_imports_names_the_site(
    sites: list[ErrorSite],
) -> None:
    # the test calls what the graph cannot follow; its name and the constant it imports
    # point to safe_range. The same test in a file that does not import MAX_RANGE: not
    # listed; keep_range shares one word of the name alone
    assert _tests(_in(sites, "safe_range")[0]) == [CORE_TESTS + "test_sandbox_max_range"]
    assert _tests(_in(sites, "keep_range")[0]) == []


def test_the_test_name_wins_over_the_one_site_the_graph_sees(sites: list[ErrorSite]) -> None:
    # `self.auth.flow(url)` is a call the graph cannot follow; the name says digest auth
    assert _tests(_in(sites, "DigestAuth.flow")[0]) == [
        CORE_TESTS + "test_digest_auth_raises_protocol_error_on_malformed_header"
    ]
    assert _tests(_in(sites, "Client._redirect")[0]) == []


def test_a_short_pattern_only_one_template_fits(sites: list[ErrorSite]) -> None:
    # the test calls what the graph cannot follow and names no function: the phrase
    # is short, but of all templates only lookup's fits it. Not so when the class
    # checked is Exception (any error with that text), nor for one name (a parameter's
    # value: FLASH_ATTN) that a template happens to hold
    assert _tests(_in(sites, "lookup")[0]) == [CORE_TESTS + "test_filter_undefined"]
    assert _tests(_in(sites, "pick_backend")[0]) == []
    # "No filter found" fits two templates: neither
    assert _tests(_in(sites, "find")[0]) == []
    assert _tests(_in(sites, "find_in")[0]) == []


def test_the_explanations_graph_is_not_widened(tmp_path: Path) -> None:
    # what explanations say of who passes what was made on the calls statements head,
    # resolved by name: the wider graph is for finding tests alone
    root = write_tree(tmp_path / "pkg_root", FILES)
    snapshot = Snapshot(
        package="pkg", version="1", root=root, source=str(root), code_paths=("pkg",)
    )
    cache = NoCache()
    graph = CallGraph(extract(snapshot, scan(snapshot, cache), cache, workers=1).facts)
    assert graph.callers("pkg.core.Body.iter_raw") == []
    assert graph.reaching("pkg.core.Body.iter_raw") == ["pkg.core.Body.read"]
    assert graph.callers("pkg.sessions.BaseSession.prepare") == []
    assert graph.reaching("pkg.sessions.BaseSession.prepare") == ["pkg.sessions.Session.request"]
    assert graph.reaching("pkg.core.Param.__init__") == ["pkg.core.Opt.__init__"]
    assert graph.callers("pkg.core.outer.inner") == []
    assert graph.reaching("pkg.core.outer.inner") == ["pkg.core.outer"]
    # an object made in the function (`with Session() as session`): its method is the
    # class's, for both (Client has a `request` too)
    assert graph.callers("pkg.sessions.Session.request") == ["pkg.api.get"]


# Recall from what the test checks and what the code declares: an escaped string the
# test compares the message with, a printed line one template gives nearly all of, a
# helper's raise against the calls that pass its message on, and a raise of a class
# taken from a mapping annotated to hold classes.
MORE_INIT = """
from pkg.errors import *
"""

ERRORS = """
class HTTPError(Exception):
    pass


class TransportError(HTTPError):
    pass


class ReadTimeout(TransportError):
    pass


class UnsupportedProtocol(TransportError):
    pass


class InvalidURL(Exception):
    pass


class BadParameter(Exception):
    pass
"""

TRANSPORT = """
import contextlib

import pkg
from pkg.errors import ReadTimeout, UnsupportedProtocol

EXC_MAP: dict[type[Exception], type[pkg.HTTPError]] = {
    TimeoutError: ReadTimeout,
    KeyError: UnsupportedProtocol,
}


@contextlib.contextmanager
def map_exceptions():
    try:
        yield
    except Exception as exc:
        mapped = None
        for from_exc, to_exc in EXC_MAP.items():
            if isinstance(exc, from_exc):
                mapped = to_exc
        if mapped is None:
            raise
        raise mapped(str(exc)) from exc


def send(url):
    with map_exceptions():
        return url.fetch()
"""

URLS = """
from pkg.errors import InvalidURL


def check_url(url):
    for idx, char in enumerate(url):
        if not char.isprintable():
            raise InvalidURL(
                f"Invalid non-printable ASCII character in URL, {char!r} at position {idx}."
            )


def check_component(key, value):
    for idx, char in enumerate(value):
        if not char.isprintable():
            raise InvalidURL(
                f"Invalid non-printable ASCII character in URL {key} component,"
                f" {char!r} at position {idx}."
            )


def check_all(url, **components):
    check_url(url)
    for key, value in components.items():
        check_component(key, value)
"""

PARAMS = """
from pkg.errors import BadParameter


def convert(value, nargs):
    if len(value) != nargs:
        raise BadParameter(f"Takes {nargs} values but 1 was given.")


def convert_tuple(value, types):
    if len(value) != len(types):
        raise BadParameter(f"{len(types)} values are required, but {len(value)} was given.")


def expected(value, n):
    raise BadParameter(f"Expected {n} values but 1 was given to {value}.")


def wanted(value, n):
    raise BadParameter(f"Wanted {n} values but 1 was given to {value}.")


class Registry:
    def _raise_for_unsupported(self, archs):
        raise ValueError(f"Model architectures {archs} are not supported for now.")

    def inspect(self, archs):
        if not archs:
            return None
        return self._raise_for_unsupported(archs)

    def resolve(self, archs):
        return self._raise_for_unsupported(archs)


def check_kind(kind):
    raise ValueError(f"Model kinds {kind} are not allowed for this runner.")


def check_runner(kind):
    raise ValueError(f"Model kinds {kind} are not allowed for this runner.")
"""

MORE_TESTS = """
import pytest

import pkg
from pkg.errors import BadParameter, InvalidURL, ReadTimeout, UnsupportedProtocol
from pkg.transport import send
from pkg.urls import check_all


def test_url_non_printing_character_in_url():
    with pytest.raises(InvalidURL) as exc:
        check_all("https://x/\\n")
    assert str(exc.value) == (
        "Invalid non-printable ASCII character in URL, '\\\\n' at position 10."
    )


def test_get_invalid_url():
    with pytest.raises(UnsupportedProtocol):
        send("invalid://example.org")


def test_read_timeout():
    with pytest.raises((ReadTimeout, TimeoutError)):
        send("http://example.org")


def test_invalid_url_is_not_mapped():
    with pytest.raises(InvalidURL):
        send("http://\\n")


def test_nargs_envvar(runner, cmd):
    result = runner.invoke(cmd, env={"X": "a b"})
    assert "Takes 2 values but 1 was given." in result.output


def test_two_values(runner, cmd):
    result = runner.invoke(cmd, env={"X": "a b"})
    assert "2 values but 1 was given to cmd." in result.output


def test_plugin(dummy_path):
    with pytest.raises(ValueError, match="are not supported for now"):
        make_engine(model=dummy_path)


def test_engine_refuses(dummy_path):
    with pytest.raises(ValueError, match="are not allowed for this runner"):
        make_engine(model=dummy_path)
"""

MORE_FILES = {
    "pkg/__init__.py": MORE_INIT,
    "pkg/errors.py": ERRORS,
    "pkg/transport.py": TRANSPORT,
    "pkg/urls.py": URLS,
    "pkg/params.py": PARAMS,
    "tests/test_more.py": MORE_TESTS,
}
MORE_TESTS_FILE = "tests/test_more.py::"


@pytest.fixture(scope="module")
def more(tmp_path_factory: pytest.TempPathFactory) -> list[ErrorSite]:
    found = explain_package(tmp_path_factory.mktemp("reach_more"), MORE_FILES)
    return sorted(found.values(), key=lambda s: (s.location.file, s.location.line, s.id))


def test_an_escaped_string_the_message_is_compared_with(more: list[ErrorSite]) -> None:
    # `'\\n'` in the test's string is what `{char!r}` shows of a newline; check_all
    # reaches both raises, and only the text tells them apart
    (url,) = _in(more, "check_url")
    assert _tests(url) == [MORE_TESTS_FILE + "test_url_non_printing_character_in_url"]
    assert _tests(_in(more, "check_component")[0]) == []


def test_a_printed_line_one_template_gives_nearly_all_of(more: list[ErrorSite]) -> None:
    # "Takes 2 values but 1 was given.": convert's template gives 30 characters of it,
    # convert_tuple's only "values" and "was given."; "2 values but 1 was given to cmd."
    # fits expected's and wanted's templates as well as each other: neither
    assert _tests(_in(more, "convert")[0]) == [MORE_TESTS_FILE + "test_nargs_envvar"]
    assert _tests(_in(more, "convert_tuple")[0]) == []
    assert _tests(_in(more, "expected")[0]) == []
    assert _tests(_in(more, "wanted")[0]) == []


def test_a_helpers_raise_over_the_calls_that_pass_its_message_on(
    more: list[ErrorSite],
) -> None:
    # the message fits the helper's raise and its two helper-call sites alike: the
    # raise is where the error comes from on every path; two raises of one text in
    # functions of their own are still neither
    (helper,) = _in(more, "Registry._raise_for_unsupported")
    assert _tests(helper) == [MORE_TESTS_FILE + "test_plugin"]
    for caller in ("Registry.inspect", "Registry.resolve"):
        assert [_tests(s) for s in _in(more, caller)] == [[]]
    assert _tests(_in(more, "check_kind")[0]) == []
    assert _tests(_in(more, "check_runner")[0]) == []


def test_a_class_from_a_mapping_annotated_to_hold_classes(more: list[ErrorSite]) -> None:
    # `raise mapped(...)`, `mapped` an item of EXC_MAP, a `dict[..., type[pkg.HTTPError]]`
    # (HTTPError found through `from pkg.errors import *`): the classes of that family
    # no raise names are this site's; InvalidURL is not one of them
    (mapped,) = [s for s in _in(more, "map_exceptions") if s.kind == "raise"]
    assert _tests(mapped) == [
        MORE_TESTS_FILE + "test_get_invalid_url",
        MORE_TESTS_FILE + "test_read_timeout",
    ]


HELPER_FILES = {
    "pkg/__init__.py": "",
    "pkg/config.py": """
class FieldError(ValueError):
    pass


def get_field(cls, name):
    if name not in cls.fields:
        raise FieldError(f"Field '{name}' not found in {cls.__name__}.")
    return cls.fields[name]


def set_field(cls, name, value):
    if name.startswith("_"):
        raise FieldError(f"Field '{name}' is private to {cls.__name__}.")
    cls.fields[name] = value


def replace(config, **changes):
    for name in changes:
        get_field(type(config), name)
    return config
""",
    "pkg/layers.py": """
def replace_embedding(module):
    found = [m for m in module.children() if m.kind == "embedding"]
    if len(found) != 1:
        raise ValueError(f"Expected one embedding, found {len(found)}.")
    return found[0]
""",
    "tests/test_layers.py": """
import pytest

from pkg.config import FieldError
from pkg.layers import replace_embedding


def replace(module):
    return replace_embedding(module)


@pytest.mark.parametrize("count", [0, 2])
def test_replace_ambiguous_embedding(count):
    with pytest.raises(ValueError, match=f"found {count}"):
        replace(make_wrapper(count))


def test_replace_size():
    def replace(config, **changes):  # the test's own, not the file's
        return config

    with pytest.raises(FieldError):  # the class alone: only the calls tell
        replace(make_config(), size=1)
""",
}


def test_a_helper_the_test_file_defines_stands_for_what_it_calls(tmp_path: Path) -> None:
    # `replace(...)` in the raises block is the test file's own function, which calls
    # replace_embedding: not the package's `replace`, which reaches get_field. A test
    # whose own nested `replace` hides the file's is read as calling `replace` still:
    # of FieldError's two raises, get_field's is the one that reaches.
    sites = sorted(
        explain_package(tmp_path, HELPER_FILES).values(),
        key=lambda s: (s.location.file, s.location.line),
    )
    (embedding,) = _in(sites, "replace_embedding")
    (field,) = _in(sites, "get_field")
    assert _tests(embedding) == ["tests/test_layers.py::test_replace_ambiguous_embedding"]
    assert _tests(field) == ["tests/test_layers.py::test_replace_size"]
    assert _tests(_in(sites, "set_field")[0]) == []


def test_a_builtin_types_method_name_is_no_call_of_the_codebase_s(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "tree",
        {
            "dt/__init__.py": "",
            "dt/stamp.py": """
                class Stamp:
                    def replace(self, **parts):
                        if "week" in parts:
                            raise ValueError("a week cannot be set")

                    def shifted(self, days):
                        return self.replace(day=days)


                def render(text):
                    return text.replace("T", " ")


                def make(stamp):
                    return stamp.shifted(1)
            """,
            "dt/other.py": """
                def cli(stamp):
                    return stamp.shifted(2)
            """,
        },
    )
    snapshot = Snapshot(package="dt", version="1", root=root, source=str(root), code_paths=("dt",))
    cache = NoCache()
    graph = CallGraph(extract(snapshot, scan(snapshot, cache), cache, workers=1).facts)
    # `text.replace(...)` is str's; a method name the codebase defines once still links
    assert "dt.stamp.render" not in graph.reaching("dt.stamp.Stamp.replace")
    assert graph.callers("dt.stamp.Stamp.shifted") == ["dt.other.cli", "dt.stamp.make"]
