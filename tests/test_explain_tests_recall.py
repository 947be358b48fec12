# Issue 10, recall: more of the tests that really trigger a site, each rule with a case
# where a test that does not trigger the site stays unlisted. Snippets of a package and
# its tests, extracted and explained for real (no mocks).
from __future__ import annotations

import pytest

from errdex.model import ErrorSite
from tests.test_explain import explain_package, explanation

CODE = """
import typing as t


class TemplateRuntimeError(Exception):
    pass


class UndefinedError(TemplateRuntimeError):
    pass


class MissingError(Exception):
    pass


class Undefined:
    def __init__(self, hint=None, exc: t.Type[TemplateRuntimeError] = UndefinedError):
        self._undefined_hint = hint
        self._undefined_exception = exc

    def _fail_with_undefined_error(self, *args):
        raise self._undefined_exception(f"{self._undefined_hint} is undefined")


class Holder:
    def __init__(self, error=None):
        self._error = error

    def fail(self):
        raise self._error("the holder failed")


class StatusError(Exception):
    pass


class DecodeError(Exception):
    pass


class ProtocolError(Exception):
    pass


class LimitError(Exception):
    pass


class UsageError(Exception):
    pass


class Response:
    def __init__(self, code, url):
        self.code = code
        self.url = url

    def raise_for_status(self):
        message = ""
        if 400 <= self.code < 500:
            message = f"{self.code} Client Error for url: {self.url}"
        elif 500 <= self.code < 600:
            message = f"{self.code} Server Error for url: {self.url}"
        if message:
            raise StatusError(message)

    def decode(self, data):
        if not data:
            raise DecodeError("there is nothing to decode")
        if data[0] != "{":
            raise DecodeError("the body is not an object")
        return data


def check_status(code, message):
    if code >= 400:
        raise ProtocolError(message)


def fetch(code):
    check_status(code, f"the server said {code}")


def limit(n):
    if n > 3:
        raise LimitError(f"limit {n} is above three")


def choose_mode(value, choices):
    if value not in choices:
        raise UsageError(f"{value!r} is not one of {choices}.")


def choose_level(value, levels):
    if value not in levels:
        raise UsageError(f"{value!r} is not one of {levels}.")


class Headers:
    def __delitem__(self, key):
        raise KeyError(key)


class Params:
    def __setitem__(self, key, value):
        raise RuntimeError("Params are immutable, use set() for a copy")


def invoke_macro(name, caller):
    if caller is not None:
        raise TypeError(f"macro {name!r} got two values for the special caller argument")


def check_caller(what):
    raise TypeError(f"the {what} caller argument is missing")


def make_option(nargs):
    if nargs == -1:
        raise TypeError("nargs=-1 is not supported for options.")


def make_argument(nargs, default):
    if nargs == -1 and default is not None:
        raise TypeError("'default' is not supported for nargs=-1.")


def take_pair(value):
    if len(value) != 2:
        raise UsageError(f"Takes 2 values but {len(value)} were given.")


def parse_size(value):
    if not value.isdigit():
        raise UsageError(f"{value!r} is not a valid size in bytes.")


def pick_color(value):
    if value not in ("red", "blue"):
        raise UsageError(f"{value!r} is not a color we know.")
"""

TESTS = """
import pytest
from pkg.core import DecodeError, LimitError, ProtocolError, StatusError
from pkg.core import Headers, Params, cli, colors, fetch, limit, make_response
from pkg.core import MissingError, UndefinedError, render


def test_status_raising():
    response = make_response(404)
    with pytest.raises(StatusError):
        response.raise_for_status()


def test_decode_fails():
    response = make_response(200)
    with pytest.raises(DecodeError):
        response.decode("")


def test_the_server_said_no():
    with pytest.raises(ProtocolError) as exc_info:
        fetch(500)
    assert "the server said 500" in str(exc_info.value)


def test_limit_says_something_else():
    with pytest.raises(LimitError) as exc_info:
        limit(5)
    assert "too many widgets were asked for" in str(exc_info.value)


def test_mode_printed(runner):
    result = runner.invoke(cli, ["--mode", "meh"])
    assert (
        "Invalid value for '--mode': 'meh' is not one of"
        " 'fast', 'slow'." in result.output
    )


def test_header_does_not_exist():
    headers = Headers()
    with pytest.raises(KeyError):
        del headers["x"]


def test_dict_key_missing():
    table = {}
    with pytest.raises(KeyError):
        del table["x"]


def test_params_are_immutable():
    params = Params()
    with pytest.raises(RuntimeError):
        params["a"] = "b"


def test_the_caller_is_given_twice():
    with pytest.raises(TypeError, match="special caller argument"):
        render_macro()


def test_argument_unbounded_nargs_cant_have_default():
    with pytest.raises(TypeError, match="nargs=-1"):
        declare()


def test_invalid_nargs():
    with pytest.raises(TypeError, match="nargs=-1"):
        declare()


def test_strict_undefined():
    with pytest.raises(UndefinedError):
        render("{{ missing }}")


def test_missing_thing():
    with pytest.raises(MissingError):
        render("{{ missing }}")


@pytest.mark.parametrize(("value", "expect"), [("a b", None), ("a", "Takes 2 values but 1 were")])
def test_pair_from_envvar(runner, value, expect):
    result = runner.invoke(pair_command, env={"X": value}, standalone_mode=False)
    if expect is not None:
        assert expect in result.exception.format_message()


def test_usage_error_lines(runner):
    result = runner.invoke(size_command, ["x"])
    assert result.output.splitlines() == [
        "Usage: cmd [OPTIONS] SIZE",
        "Error: Invalid value for 'SIZE': 'x' is not a valid size in bytes.",
    ]


def test_usage_lines_without_an_error(runner):
    result = runner.invoke(size_command, ["--help"])
    assert result.output.splitlines() == [
        "Usage: cmd [OPTIONS] SIZE",
        "  Reads the size of the thing in bytes.",
    ]


def test_color_printed(runner):
    result = runner.invoke(colors, ["green"])
    assert "Invalid value for 'COLOR': 'green' is not a color we know." in result.output
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> list[ErrorSite]:
    sites = explain_package(
        tmp_path_factory.mktemp("recall"),
        {"pkg/__init__.py": "", "pkg/core.py": CODE, "tests/test_core.py": TESTS},
    )
    return sorted(sites.values(), key=lambda s: (s.location.line, s.id))


def _tests(site: ErrorSite) -> list[str]:
    return [t.name for t in explanation(site).tests]


def _in(sites: list[ErrorSite], function: str) -> list[ErrorSite]:
    return [site for site in sites if site.location.function == function]


def test_the_messages_one_raise_picks_between_are_one_site_for_a_class_only_test(
    sites: list[ErrorSite],
) -> None:
    raised = _in(sites, "Response.raise_for_status")
    # one `raise StatusError(message)`, the message one of its templates: every site
    assert len(raised) >= 2 and len({s.location.line for s in raised}) == 1
    assert all(_tests(s) == ["test_status_raising"] for s in raised)
    # two raises of one class in the function called: the test may reach either
    assert all(_tests(s) == [] for s in _in(sites, "Response.decode"))


def test_text_no_template_holds_lists_the_one_site_whose_message_is_made_elsewhere(
    sites: list[ErrorSite],
) -> None:
    # `raise ProtocolError(message)`: the text checked is the caller's, the class and
    # the call point to this site alone
    assert _tests(_in(sites, "check_status")[0]) == ["test_the_server_said_no"]
    # the text checked is not the template's own, which has text to tell it by
    assert _tests(_in(sites, "limit")[0]) == []


def test_printed_text_after_its_label_fits_one_template(sites: list[ErrorSite]) -> None:
    # "Invalid value for 'COLOR': " is what the CLI prints before the message
    assert _tests(_in(sites, "pick_color")[0]) == ["test_color_printed"]
    # the check split over two lines is read whole; it fits two templates: neither
    assert _tests(_in(sites, "choose_mode")[0]) == []
    assert _tests(_in(sites, "choose_level")[0]) == []


def test_a_subscript_of_an_object_the_test_made_calls_its_dunder(sites: list[ErrorSite]) -> None:
    # `del headers["x"]` on a Headers; `del table["x"]` on a dict raises KeyError too
    assert _tests(_in(sites, "Headers.__delitem__")[0]) == ["test_header_does_not_exist"]
    assert _tests(_in(sites, "Params.__setitem__")[0]) == ["test_params_are_immutable"]


def test_a_phrase_one_template_alone_holds_word_for_word(sites: list[ErrorSite]) -> None:
    # the other template fits only with its hole taking "special"
    assert _tests(_in(sites, "invoke_macro")[0]) == ["test_the_caller_is_given_twice"]
    assert _tests(_in(sites, "check_caller")[0]) == []


def test_a_short_pattern_goes_to_the_site_the_test_name_points_to(sites: list[ErrorSite]) -> None:
    # "nargs=-1" fits both; "argument" and "default" name one; test_invalid_nargs neither
    assert _tests(_in(sites, "make_argument")[0]) == [
        "test_argument_unbounded_nargs_cant_have_default"
    ]
    assert _tests(_in(sites, "make_option")[0]) == []


def test_a_class_no_raise_names_goes_to_the_attribute_annotated_to_hold_it(
    sites: list[ErrorSite],
) -> None:
    # no `raise UndefinedError`: the one raise of an attribute annotated to hold a
    # TemplateRuntimeError, UndefinedError's base
    assert _tests(_in(sites, "Undefined._fail_with_undefined_error")[0]) == [
        "test_strict_undefined"
    ]
    # `self._error` has no annotation: what it holds is not known
    assert _tests(_in(sites, "Holder.fail")[0]) == []


def test_the_exception_a_cli_runner_result_holds_and_lines_under_the_check(
    sites: list[ErrorSite],
) -> None:
    # `expect in result.exception.format_message()`: each case's string
    assert _tests(_in(sites, "take_pair")[0]) == ["test_pair_from_envvar"]
    # `result.output.splitlines() == [...]`: the lines below the check are read too;
    # the help text fits no template
    assert _tests(_in(sites, "parse_size")[0]) == ["test_usage_error_lines"]
