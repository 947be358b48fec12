# Issue 10: the tests errdex lists for a site are tests that trigger it. Snippets of a
# package and its tests, extracted and explained for real (no mocks).
from __future__ import annotations

from pathlib import Path

from errdex.explain.tests_scan import literal_fit
from errdex.model import ErrorSite
from tests.test_explain import explain_package, explanation

CODE = """
class KernelError(Exception):
    pass


def load(path, reason):
    raise OSError(f"Could not load {path}: {reason}")


def check_size(size):
    if size < 0:
        raise ValueError(f"size must be positive, got {size}")


def pick(name):
    if name not in ("triton", "cuda"):
        raise KernelError(f"unknown kernel {name}")
    return name


def ensure(values):
    if not values:
        raise ValueError("the values list cannot be empty here")
    if len(values) > 9:
        raise ValueError("the values list holds more than nine values")


class UsageError(Exception):
    pass


def select_profile(name):
    if name not in ("dev", "prod"):
        raise UsageError(f"No profile named {name!r} was found in the settings file")
    return name


def build(name, size):
    check_size(size)
    if not name:
        raise ValueError("a name is needed")
    return pick(name)
"""

TESTS = """
import pytest
from pkg.core import KernelError, build, check_size, ensure, load, main, pick


def test_swallowed_by_a_hole():
    # the template's literal text ("Could not load ", ": ") accounts for none of it
    with pytest.raises(OSError, match="permission denied for the cache directory"):
        load("/cache", "permission denied for the cache directory")


def test_message_checked_after():
    with pytest.raises(ValueError) as exc_info:
        check_size(-3)
    assert "size must be positive" in str(exc_info.value)


def test_class_alone():
    with pytest.raises(KernelError):
        pick("tvm")


def test_class_alone_two_sites_reached():
    with pytest.raises(ValueError):
        build("", -1)


def test_function_form():
    pytest.raises(KernelError, pick, "tvm")


def test_unrelated():
    with pytest.raises(ValueError):
        int("x")


def test_two_sites_fit_as_well():
    with pytest.raises(ValueError, match="the values list"):
        ensure([])


def test_cli_prints_the_error(runner, capsys):
    result = runner.invoke(main, ["--profile", "staging"])
    assert result.exit_code == 2
    assert "Error: No profile named 'staging' was found in the settings file" in result.output
    assert "was found in the settings" in capsys.readouterr().err


def test_next_one_checks_text():
    with pytest.raises(ValueError) as e:
        build("", 1)
    assert str(e.value) == "a name is needed"
"""


def _by_message(tmp_path: Path) -> dict[str, ErrorSite]:
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS},
    )
    return {s.message.literal_text: s for s in sites.values() if s.message is not None}


def _tests(site: ErrorSite) -> list[str]:
    return [t.name for t in explanation(site).tests]


def test_literal_fit_counts_only_the_templates_own_text() -> None:
    skeleton = "Could not load \x00: \x00"
    assert literal_fit("Could not load /x: denied", skeleton) == len("Could not load : ")
    assert literal_fit("permission denied for the cache", skeleton) == 0  # inside a hole
    assert literal_fit("size must be positive", "size must be positive, got \x00") == 21
    # only the trailing hole could hold it: swallowed; a template without holes: no fit
    assert literal_fit("size must be negative", "size must be positive, got \x00") == 0
    assert literal_fit("size must be negative", "size must be positive") == -1


def test_a_pattern_a_hole_would_swallow_does_not_match(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    assert _tests(by_message["Could not load : "]) == []


def test_message_checked_on_exc_info_value(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    assert _tests(by_message["size must be positive, got "]) == ["test_message_checked_after"]


def test_class_only_raises_that_reach_one_site_of_the_class(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    # pick() has the one KernelError site: the `with` block and the function form reach it
    assert _tests(by_message["unknown kernel "]) == ["test_class_alone", "test_function_form"]
    # build() reaches two ValueError sites (its own and check_size's): neither is listed
    # for the class alone; int("x") reaches none of the package's sites
    assert "test_class_alone_two_sites_reached" not in _tests(by_message["a name is needed"])
    assert all(
        "test_unrelated" not in _tests(s) and "test_class_alone_two_sites_reached" not in _tests(s)
        for s in by_message.values()
    )


def test_a_check_of_the_next_test_is_not_read_as_this_ones(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    # test_unrelated is followed by test_next_one_checks_text and its str(e.value) check
    assert _tests(by_message["a name is needed"]) == ["test_next_one_checks_text"]


def test_a_pattern_two_templates_fit_as_well_names_neither(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    assert _tests(by_message["the values list cannot be empty here"]) == []
    assert _tests(by_message["the values list holds more than nine values"]) == []


def test_an_error_checked_in_captured_cli_output(tmp_path: Path) -> None:
    by_message = _by_message(tmp_path)
    # result.output and capsys.readouterr(); the "Error: " a CLI prints first is not
    # part of the message
    site = by_message["No profile named  was found in the settings file"]
    assert _tests(site) == ["test_cli_prints_the_error"]
    lines = TESTS.split("\n")
    checked = next(n for n, text in enumerate(lines, 1) if "in result.output" in text)
    assert [t.line for t in explanation(site).tests] == [checked]  # listed once


# Class-only raises blocks whose call the static graph cannot follow: a property read, and
# a call through a table of parsers.
CLIENT = """
from gettext import ngettext


class Client:
    def __init__(self):
        self._elapsed = None

    @property
    def elapsed(self):
        if self._elapsed is None:
            raise RuntimeError("elapsed is only known once the response was read")
        return self._elapsed

    def send(self, request):
        if request is None:
            raise RuntimeError("there is no request to send")
        return request

    def close(self):
        self._elapsed = 0

    def __enter__(self):
        if self._elapsed is not None:
            raise RuntimeError("a closed client cannot be opened again")
        return self


def parse_timeout(value):
    if not isinstance(value, (int, float)):
        raise TypeError(f"timeout must be a number, got {value!r}")
    return value


def parse_retries(value):
    if not isinstance(value, int):
        raise TypeError(f"retries must be an integer, got {value!r}")
    return value


def apply(options):
    parsers = {"timeout": parse_timeout, "retries": parse_retries}
    for key, value in options.items():
        parsers[key](value)


class SchemeError(Exception):
    pass


class HostError(Exception):
    pass


def parse_url(url):
    if "://" not in url:
        raise SchemeError(f"no scheme in {url!r}")
    if url.endswith("://"):
        raise HostError(f"no host in {url!r}")
    return url


def run(argv):
    if not argv:
        raise ValueError("at least one file name must be given")


class EngineCore:
    def add_request(self, request_id):
        if not isinstance(request_id, str):
            raise TypeError(f"request_id must be a string, got {type(request_id)}")


class Frontend:
    def add_request(self, request_id):
        if not isinstance(request_id, str):
            raise TypeError(f"request_id must be a string, got {type(request_id)}")


class LoopError(Exception):
    pass


def take_values(name, nargs, values):
    if len(values) < nargs:
        raise ValueError(
            ngettext(
                "Option {name!r} requires an argument.",
                "Option {name!r} requires {nargs} arguments.",
                nargs,
            ).format(name=name, nargs=nargs)
        )


def set_limit(value):
    check_limit(value)


def check_limit(value):
    if value < 0:
        raise ValueError("the limit must not be negative")


def check_limit_name(name):
    if name not in ("soft", "hard"):
        raise ValueError("the limit name must be known")


def make_option(count=False, multiple=False, is_flag=False):
    if count and multiple:
        raise TypeError("'count' is not valid with 'multiple'.")
    if count and is_flag:
        raise TypeError("'count' is not valid with 'is_flag'.")


class Session:
    def get(self, url):
        return self._send(url)

    def _send(self, url):
        return self._follow(url)

    def _follow(self, url):
        raise LoopError("followed the same url twice")


class AsyncSession:
    async def get(self, url):
        return await self._send(url)

    async def _send(self, url):
        return await self._follow(url)

    async def _follow(self, url):
        raise LoopError("followed the same url twice, asynchronously")
"""

CLIENT_TESTS = """
import contextlib

import pytest
from pkg.client import Client, HostError, SchemeError, apply, parse_retries, parse_timeout
from pkg.client import EngineCore, LoopError, Session, make_option, parse_url, run
from pkg.client import check_limit, check_limit_name, set_limit


def test_read_too_early():
    client = Client()
    with pytest.raises(RuntimeError):
        client.elapsed


def test_reopen():
    client = Client()
    client.close()
    with pytest.raises(RuntimeError):
        with client:
            pass


def test_invariants_checked():
    with pytest.raises(RuntimeError):
        with contextlib.nullcontext():
            raise RuntimeError("a library's context manager, not the client's")


def test_timeout_must_be_a_number():
    with pytest.raises(TypeError):
        apply({"timeout": "soon"})


def test_must_be_a_number_or_an_integer():
    with pytest.raises(TypeError):
        apply({"timeout": "soon", "retries": "often"})


@pytest.mark.parametrize("exception, url", [(SchemeError, "example.org"), (HostError, "http://")])
def test_bad_url(exception, url):
    with pytest.raises(exception):
        parse_url(url)


@pytest.mark.parametrize(
    ("args", "expect"),
    [(["a.txt"], "done"), ([], "Error: at least one file name must be given")],
)
def test_run_prints(runner, args, expect):
    result = runner.invoke(run, args)
    assert expect in result.output


def test_engine_core_rejects_an_int_id():
    with pytest.raises(TypeError, match="request_id must be a string"):
        EngineCore().add_request(1)


def test_loop():
    session = Session()
    with pytest.raises(LoopError):
        session.get("https://example.org/loop")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"count": True, "multiple": True}, "'count' is not valid with 'multiple'."),
        ({"count": True, "is_flag": True}, "'count' is not valid with 'is_flag'."),
    ],
)
def test_flag_combinations(kwargs, message):
    with pytest.raises(TypeError) as e:
        make_option(**kwargs)
    assert message in str(e.value)


@pytest.mark.parametrize("pattern", ["with 'multiple'"])
def test_count_and_multiple(pattern):
    with pytest.raises(TypeError, match=pattern):
        make_option(count=True, multiple=True)


def test_option_needs_its_value(runner):
    result = runner.invoke(take_values, ["--size"])
    assert "Error: Option '--size' requires an argument." in result.output


def test_limit_must_fit():
    with pytest.raises(ValueError):
        set_limit(-1)


def test_no_scheme():
    with pytest.raises(SchemeError, match="no scheme in 'example.org'"):
        parse_url("example.org")


def test_the_id_is_checked_twice():
    with pytest.raises(TypeError, match="request_id must be a string"):
        EngineCore().add_request(2)
"""


def _client_sites(tmp_path: Path) -> dict[str, ErrorSite]:
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "tests/test_client.py": CLIENT_TESTS},
    )
    return {s.message.literal_text: s for s in sites.values() if s.message is not None}


def test_a_property_read_in_the_block_reaches_its_site(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    assert _tests(by_message["elapsed is only known once the response was read"]) == [
        "test_read_too_early"
    ]
    assert _tests(by_message["there is no request to send"]) == []


def test_a_with_statement_in_the_block_enters_the_object(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # `with client:` enters a Client; `with contextlib.nullcontext():` enters no object of
    # a class the test made, and a builtin class is raised by others' __enter__ as well
    assert _tests(by_message["a closed client cannot be opened again"]) == ["test_reopen"]


def test_a_class_only_test_named_for_one_site(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # apply() reaches neither parser in the static graph; the first test's name shares
    # "timeout", "must" and "number" with one template; the second's fits both as well
    assert _tests(by_message["timeout must be a number, got "]) == ["test_timeout_must_be_a_number"]
    assert _tests(by_message["retries must be an integer, got "]) == []


def test_the_classes_a_parametrized_raises_expects(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # pytest.raises(exception): each case's class, each with the one site of that class
    assert "test_bad_url" in _tests(by_message["no scheme in "])
    assert _tests(by_message["no host in "]) == ["test_bad_url"]


def test_a_parametrized_string_checked_in_cli_output(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # `assert expect in result.output`: the error case's string, "Error: " taken off
    assert _tests(by_message["at least one file name must be given"]) == ["test_run_prints"]


def test_the_same_text_in_two_places_told_apart_by_the_test_name(tmp_path: Path) -> None:
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "tests/test_client.py": CLIENT_TESTS},
    )
    by_function = {s.location.function: s for s in sites.values()}
    # both add_request methods fit and are called; "engine" and "core" name one of them;
    # a name that says neither lists neither
    assert _tests(by_function["EngineCore.add_request"]) == ["test_engine_core_rejects_an_int_id"]
    assert _tests(by_function["Frontend.add_request"]) == []


def test_a_method_of_an_object_the_test_made_reaches_through_its_class(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # any `get` reaches both LoopError sites; Session.get reaches one, two calls down
    assert _tests(by_message["followed the same url twice"]) == ["test_loop"]
    assert _tests(by_message["followed the same url twice, asynchronously"]) == []


def test_a_parametrized_message_checked_on_the_exception(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # `message in str(e.value)` and `match=pattern`: each case's string is a pattern
    assert _tests(by_message["'count' is not valid with 'multiple'."]) == [
        "test_flag_combinations",
        "test_count_and_multiple",
    ]
    assert _tests(by_message["'count' is not valid with 'is_flag'."]) == ["test_flag_combinations"]


def test_of_two_sites_the_name_fits_as_well_the_one_the_block_reaches(tmp_path: Path) -> None:
    by_message = _client_sites(tmp_path)
    # "limit" and "must" are in both templates; set_limit() calls check_limit() only
    assert _tests(by_message["the limit must not be negative"]) == ["test_limit_must_fit"]
    assert _tests(by_message["the limit name must be known"]) == []


def test_a_translated_template_fits_the_printed_error(tmp_path: Path) -> None:
    sites = explain_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/client.py": CLIENT, "tests/test_client.py": CLIENT_TESTS},
    )
    site = next(s for s in sites.values() if s.location.function == "take_values")
    # the whole message is one hole; ngettext's own templates are its text
    assert site.message is not None and site.message.literal_text == ""
    assert _tests(site) == ["test_option_needs_its_value"]


def test_a_test_that_checks_the_text_is_listed_before_one_that_checks_the_class(
    tmp_path: Path,
) -> None:
    by_message = _client_sites(tmp_path)
    # test_bad_url comes first in the file, but checks only the class
    assert _tests(by_message["no scheme in "]) == ["test_no_scheme", "test_bad_url"]
