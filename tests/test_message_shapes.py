# Messages that were one hole before issue 31, each shape in a snippet: the text read
# statically from the class, the variable, the helper, the table or the list that makes
# it; and what the matcher does with the text a user pastes of them.
from __future__ import annotations

from pathlib import Path

from errdex.cli.match import render_text
from errdex.index import index_source
from errdex.match import Matcher, with_values
from errdex.match._paste import parse_paste
from errdex.model import ErrorSite
from errdex.store import open_store
from tests.conftest import index_snippet, write_tree


def _texts(sites: list[ErrorSite], function: str) -> list[tuple[str, str]]:
    return [
        (s.message.text, s.message.source)
        for s in sites
        if s.location.function == function and s.message is not None
    ]


def test_text_built_in_a_variable_then_formatted_by_the_class() -> None:
    sites = index_snippet(
        """
        class CheckError(ValueError):
            def __init__(self, message, *, parameter=None):
                super().__init__(message)
                self.parameter = parameter

            def __str__(self):
                return f"{self.args[0]} (parameter={self.parameter})"


        def check(n, supported, p):
            msg = f"At most {n} items may be given."
            if n <= supported:
                msg += " Set `--limit` to raise it."
            raise CheckError(msg, parameter=p)
        """
    )
    assert sorted(_texts(sites, "check")) == [
        ("At most {n} items may be given. (parameter={p})", "exception-class"),
        (
            "At most {n} items may be given. Set `--limit` to raise it. (parameter={p})",
            "exception-class",
        ),
    ]


def test_a_str_that_returns_along_branches_gives_each_text() -> None:
    sites = index_snippet(
        """
        class UndefinedUnitError(AttributeError):
            def __init__(self, unit_names):
                self.unit_names = unit_names

            def __str__(self):
                if len(self.unit_names) == 1:
                    return f"'{self.unit_names[0]}' is not defined in the unit registry"
                return f"{self.unit_names} are not defined in the unit registry"


        def get(name):
            raise UndefinedUnitError(name)
        """
    )
    texts = [t for t, _ in _texts(sites, "get")]
    # the attribute's item is not followed back to the parameter: a hole of its own
    assert texts == [
        "'{self.unit_names[0]}' is not defined in the unit registry",
        "{name} are not defined in the unit registry",
    ]
    assert all(s.variant and "__str__ returns" in s.variant for s in sites)


def test_a_str_that_formats_the_arguments_and_one_built_in_a_variable() -> None:
    sites = index_snippet(
        """
        SUPPORT = "For documentation on this error, please visit:"


        class DriverError(Exception):
            def __init__(self, msg=None):
                super().__init__()
                self.msg = f"{msg}; {SUPPORT} https://example.org/driver"

            def __str__(self):
                text = f"Message: {self.msg}\\n"
                if self.msg is None:
                    text += "(none)"
                return text


        class ParserError(ValueError):
            def __str__(self):
                try:
                    return self.args[0] % self.args[1:]
                except (TypeError, IndexError):
                    return super().__str__()


        def driver(browser):
            raise DriverError(f"Unable to obtain driver for {browser}")


        def parse(timestr):
            raise ParserError("Unknown string format: %s", timestr)
        """
    )
    assert _texts(sites, "driver") == [
        (
            "Message: Unable to obtain driver for {browser}; For documentation on this "
            "error, please visit: https://example.org/driver\n",
            "exception-class",
        )
    ]
    assert _texts(sites, "parse") == [("Unknown string format: {timestr}", "exception-class")]


def test_class_level_templates_and_a_message_parameters_default() -> None:
    sites = index_snippet(
        """
        class BotoError(Exception):
            fmt = "An unspecified error occurred"

            def __init__(self, **kwargs):
                msg = self.fmt.format(**kwargs)
                Exception.__init__(self, msg)


        class NoCredentialsError(BotoError):
            fmt = "Unable to locate credentials"


        class ProfileNotFound(BotoError):
            fmt = "The config profile ({profile}) could not be found"


        class APIError(Exception):
            def __init__(self, message, request, *, body):
                super().__init__(message)


        class APIConnectionError(APIError):
            def __init__(self, *, message="Connection error.", request):
                super().__init__(message, request, body=None)


        class APITimeoutError(APIConnectionError):
            def __init__(self, request):
                super().__init__(message="Request timed out.", request=request)


        def creds():
            raise NoCredentialsError


        def profile(name):
            raise ProfileNotFound(profile=name)


        def send(request, timed_out):
            if timed_out:
                raise APITimeoutError(request=request)
            raise APIConnectionError(request=request)
        """
    )
    assert [t for t, _ in _texts(sites, "creds")] == ["Unable to locate credentials"]
    assert [t for t, _ in _texts(sites, "profile")] == [
        "The config profile ({name}) could not be found"
    ]
    assert [t for t, _ in _texts(sites, "send")] == ["Request timed out.", "Connection error."]


def test_an_init_that_builds_the_text_its_str_returns() -> None:
    sites = index_snippet(
        """
        class AdapterMissing(Exception):
            def __init__(self, name, path):
                message = f"Loading {name} failed: nothing at {path}"
                self.message = message

            def __str__(self):
                return self.message


        def load(request):
            raise AdapterMissing(request.name, request.path)
        """
    )
    assert _texts(sites, "load") == [
        ("Loading {request.name} failed: nothing at {request.path}", "exception-class")
    ]


def test_class_string_of_the_raising_class_and_its_subclasses() -> None:
    sites = index_snippet(
        """
        class InvalidResponse(Exception):
            pass


        class PromptBase:
            validate_error_message = "Please enter a valid value"

            def check(self, value):
                if not value:
                    raise InvalidResponse(self.validate_error_message)


        class IntPrompt(PromptBase):
            validate_error_message = "Please enter a valid integer number"
        """
    )
    assert _texts(sites, "PromptBase.check") == [
        ("Please enter a valid value", "constant"),
        ("Please enter a valid integer number", "constant"),
    ]


def test_text_a_helper_returns_one_record_per_return() -> None:
    sites = index_snippet(
        """
        def select(backend, reason):
            def _make_log_unsupported(backend, reason):
                if reason:
                    return f"backend {backend.value} is unsupported since {reason}."
                return f"backend '{backend.value}' is unsupported."

            raise ValueError(_make_log_unsupported(backend, reason))


        def verify(kind, size):
            ok, err_msg = _check(kind, size)
            if not ok:
                raise ValueError(err_msg)


        def _check(kind, size):
            if kind not in (1, 2):
                return False, f"Marlin does not support weight_bits = {kind}."
            return True, None
        """
    )
    assert _texts(sites, "select") == [
        ("backend {backend.value} is unsupported since {reason}.", "helper"),
        ("backend '{backend.value}' is unsupported.", "helper"),
    ]
    assert _texts(sites, "verify") == [("Marlin does not support weight_bits = {kind}.", "helper")]
    assert {s.variant for s in sites if s.location.function == "select"} == {
        "message as returned from line 5",
        "message as returned from line 6",
    }


def test_the_argument_a_classs_signature_names_is_the_message() -> None:
    sites = index_snippet(
        """
        from fastapi import HTTPException
        from pydantic_core import PydanticCustomError, ValidationError


        def body(value):
            if not isinstance(value, dict):
                raise HTTPException(400, "Request body must be a JSON object.")
            raise HTTPException(status_code=404, detail=f"No item {value}")


        def ip(value):
            raise PydanticCustomError("ip_v6_address", "Input is not a valid IPv6 address")


        def parse(v):
            raise PydanticCustomError("int_parsing", "Unable to parse {value}", {"value": v})


        def leave():
            raise SystemExit(1)


        def frozen(model, name):
            raise ValidationError.from_exception_data(model.__name__, [{"type": "frozen"}])
        """
    )
    assert [t for t, _ in _texts(sites, "body")] == [
        "Request body must be a JSON object.",
        "No item {value}",
    ]
    assert [t for t, _ in _texts(sites, "ip")] == ["Input is not a valid IPv6 address"]
    assert [t for t, _ in _texts(sites, "parse")] == ["Unable to parse {value}"]
    leave = next(s for s in sites if s.location.function == "leave")
    assert leave.message is None  # an exit status, nothing printed
    (frozen,) = [s for s in sites if s.location.function == "frozen"]
    assert frozen.exception.name == "ValidationError"
    assert frozen.message is not None and "validation error" in frozen.message.text
    assert frozen.message.text.endswith(" for {model.__name__}")


def test_a_factory_that_takes_the_class_supplies_its_leading_arguments() -> None:
    sites = index_snippet(
        """
        class ParseError(ValueError):
            def __init__(self, line, col, message=None):
                if message is None:
                    message = "TOML parse error"
                super().__init__(f"{message} at line {line} col {col}")


        class UnexpectedCharError(ParseError):
            def __init__(self, line, col, char):
                message = f"Unexpected character: {char!r}"
                super().__init__(line, col, message=message)


        class InvalidControlChar(ParseError):
            def __init__(self, line, col, char, type):
                message = f"Control characters are not allowed in {type}"
                super().__init__(line, col, message=message)


        class Parser:
            def parse_error(self, exception=ParseError, *args):
                line, col = self._to_linecol()
                return exception(line, col, *args)

            def value(self, c):
                if c == "=":
                    raise self.parse_error(UnexpectedCharError, "=")
                if c == "\\r":
                    raise self.parse_error(InvalidControlChar, 13, "documents")
                raise self.parse_error(UnexpectedCharError, c)
        """
    )
    assert [t for t, _ in _texts(sites, "Parser.value")] == [
        "Unexpected character: '=' at line {line} col {col}",
        "Control characters are not allowed in documents at line {line} col {col}",
        "Unexpected character: {c!r} at line {line} col {col}",
    ]
    assert all(s.exception.name != "self.parse_error" for s in sites)


def test_an_exception_built_in_a_variable_a_table_a_list_and_alternatives() -> None:
    sites = index_snippet(
        """
        _REMOVED = {
            "score": "`score` task was removed; use `classify` instead.",
            "encode": "`encode` task was removed; use `token_embed` instead.",
        }


        def connect(url):
            err = ConnectionError(f"cannot reach {url}")
            raise err from None


        def removed(task):
            if message := _REMOVED.get(task):
                raise ValueError(message)


        def looked_up(task):
            raise KeyError(_REMOVED[task])


        class Helper:
            def validate(self, config):
                errors = self._validate_features()
                if self.r > config.max_rank:
                    errors.append(f"LoRA rank {self.r} is greater than {config.max_rank}.")
                if errors:
                    raise ValueError(f"{' '.join(errors)}")


        def flashmla(reason):
            raise RuntimeError(reason or "FlashMLA is not available")


        def several(a, b):
            raise ValueError("Number of experts must match", f" between weights. {a}, {b}")


        def missing(path):
            raise FileNotFoundError(2, "No such file or directory", path)


        def grouped(failures):
            raise ExceptionGroup(f"{len(failures)} checks failed", failures)
        """
    )
    assert _texts(sites, "connect") == [("cannot reach {url}", "raise")]
    tables = [
        ("`score` task was removed; use `classify` instead.", "constant"),
        ("`encode` task was removed; use `token_embed` instead.", "constant"),
    ]
    assert _texts(sites, "removed") == tables
    assert _texts(sites, "looked_up") == tables
    assert _texts(sites, "Helper.validate") == [
        ("{errors}LoRA rank {self.r} is greater than {config.max_rank}.{errors}", "joined-list")
    ]
    assert [t for t, _ in _texts(sites, "flashmla")] == ["{reason}", "FlashMLA is not available"]
    assert [t for t, _ in _texts(sites, "several")] == [
        "('Number of experts must match', ' between weights. {a}, {b}')"
    ]
    assert [t for t, _ in _texts(sites, "missing")] == [
        "[Errno 2] No such file or directory: {path!r}"
    ]
    # str() of a group is its message and a count of its members, never the tuple
    assert [t for t, _ in _texts(sites, "grouped")] == ["{len(failures)} checks failed"]


_MATCHED = """
    class ParserError(ValueError):
        def __str__(self):
            try:
                return self.args[0] % self.args[1:]
            except (TypeError, IndexError):
                return super().__str__()


    def parse(timestr):
        raise ParserError("Unknown string format: %s", timestr)


    def activation(hidden_act):
        raise ValueError(
            f"Unsupported activation: {hidden_act}. Only silu is supported for now."
        )


    def generic(activation):
        raise ValueError(f"Unsupported activation: {activation}")


    def rank(r, max_rank):
        raise ValueError(f"LoRA rank {r} is greater than max_lora_rank {max_rank}.")


    def remove_columns(missing, columns):
        raise ValueError(f"Column name {missing} not in the dataset. Current columns: {columns}")


    def select_columns(missing, columns):
        raise ValueError(f"Column name {missing} not in the dataset. Current columns: {columns}.")


    def scheme(url):
        raise ValueError(f"Invalid URL {url!r}: No scheme supplied. Perhaps you meant https://{url}?")
"""


def _matcher(tmp_path: Path) -> Matcher:
    write_tree(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/mod.py": _MATCHED})
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    return Matcher(store)


def test_one_trailing_period_does_not_make_a_message_miss(tmp_path: Path) -> None:
    matcher = _matcher(tmp_path)
    top = matcher.match("Unsupported activation: gelu. Only silu is supported for now").matches[0]
    assert top.function == "activation" and top.values == {"hidden_act": "gelu"}
    top = matcher.match("ValueError: LoRA rank 32 is greater than max_lora_rank 16").matches[0]
    assert top.function == "rank" and top.exact
    assert top.values == {"r": "32", "max_rank": "16"}
    # a template that fits as written comes before one that needs its period left out
    text = "Column name ['a'] not in the dataset. Current columns: []"
    assert [m.function for m in matcher.match(text).matches[:2]] == [
        "remove_columns",
        "select_columns",
    ]
    assert matcher.match(text + ".").matches[0].function == "select_columns"


def test_several_arguments_do_not_spill_into_the_values(tmp_path: Path) -> None:
    matcher = _matcher(tmp_path)
    text = "ValueError: ('Unknown string format:', '2018-08-14 08:41:31.181 1288 ERROR')"
    top = matcher.match(text).matches[0]
    assert top.function == "parse"
    assert top.values == {"timestr": "2018-08-14 08:41:31.181 1288 ERROR"}


def test_a_quote_cut_inside_a_hole_keeps_the_value_it_shows(tmp_path: Path) -> None:
    matcher = _matcher(tmp_path)
    top = matcher.match("Invalid URL 'example.com/some/path': No scheme supplied. Perh").matches[0]
    assert top.function == "scheme" and not top.exact
    assert top.values == {"url": "'example.com/some/path'"}  # the rest is not swallowed
    top = matcher.match("LoRA rank 128 is greater than max_lo").matches[0]
    assert top.function == "rank" and top.values == {"r": "128"}


def test_a_solution_shows_the_value_the_match_read(tmp_path: Path) -> None:
    matcher = _matcher(tmp_path)
    top = matcher.match(
        "ValueError: Invalid URL 'example.com': No scheme supplied. "
        "Perhaps you meant https://example.com?"
    ).matches[0]
    assert top.function == "scheme"
    assert with_values("Perhaps you meant https://{url}?", top.values) == (
        "Perhaps you meant https://example.com?"
    )
    assert with_values("see {other} and {url!r}", {"url": "x"}) == "see {other} and x"


_PYTEST_LONG = """\
    def check(size, name="widget"):
        limit = 10
        if size > limit:
>           raise ValueError(f"size {size} of {name} is over the limit of {limit} items")
E           ValueError: size 42 of widget is over the limit of 10 items

limit      = 10
name       = 'widget'
size       = 42

pkgx/__init__.py:4: ValueError
=========================== short test summary info ============================
FAILED test_a.py::test_big - ValueError: size 42 of widget is over the limit ...
"""

_PYTEST_SHORT = """\
test_a.py:4: in test_big
    check(42)
        items      = [1, 2, 3]
pkgx/__init__.py:4: in check
    raise ValueError(f"size {size} of {name} is over the limit of {limit} items")
E   ValueError: size 42 of widget is over the limit of 10 items
        limit      = 10
        name       = 'widget'
        size       = 42
"""


def test_pytest_showlocals_lines_are_not_message_text() -> None:
    for paste, function in ((_PYTEST_LONG, ""), (_PYTEST_SHORT, "check")):
        (segment, *_) = [s for s in parse_paste(paste) if s.message]
        assert segment.exception == "ValueError"
        assert segment.message == "size 42 of widget is over the limit of 10 items"
        assert segment.frames[-1].path == "pkgx/__init__.py"
        assert segment.frames[-1].line == 4 and segment.frames[-1].function == function


def test_text_near_misses_rank_above_frame_only_guesses(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": """
            def load(path):
                raise OSError(f"could not load the weights file {path} from disk")
        """,
        "pkg/b.py": """
            def run(x):
                raise RuntimeError(f"run failed: {x}")
        """,
    }
    write_tree(tmp_path / "tree", files)
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/site/pkg/b.py", line 99, in run\n'
        "    raise RuntimeError(...)\n"
        "OSError: could not load the weights file x.bin from the network share because the "
        "server refused the connection after three retries and a long wait\n"
    )
    result = Matcher(store).match(paste)
    assert not result.matches
    assert [c.function for c in result.closest][:2] == ["load", "run"]
    assert result.closest[1].label is not None and "last frame" in result.closest[1].label


_PYDANTIC = {
    "pydantic/__init__.py": "",
    "pydantic/main.py": """
        class BaseModel:
            def __init__(self, **data):
                validated_self = self.__pydantic_validator__.validate_python(data)
                if validated_self is not self:
                    raise TypeError("the validator returned another instance")
    """,
    "pydantic/v1/__init__.py": "",
    "pydantic/v1/error_wrappers.py": """
        class ValidationError(ValueError):
            pass
    """,
    "pydantic/v1/main.py": """
        from pydantic.v1.error_wrappers import ValidationError


        def validate_model(errors, model):
            if errors:
                raise ValidationError(f"{len(errors)} validation error for {model.__name__}")
    """,
}

_V2_TRACEBACK = """\
Traceback (most recent call last):
  File "/home/u/app.py", line 9, in <module>
    User(name=1)
  File "/home/u/.venv/lib/python3.12/site-packages/pydantic/main.py", line 4, in __init__
    validated_self = self.__pydantic_validator__.validate_python(data)
pydantic_core._pydantic_core.ValidationError: 1 validation error for User
name
  Input should be a valid string [type=string_type, input_value=1, input_type=int]
"""


def test_an_error_raised_in_a_compiled_extension_names_no_other_packages_raise(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path / "tree", _PYDANTIC)
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    matcher = Matcher(store)
    # the v1 raise fits the text, but its class is pydantic's, not pydantic_core's
    assert matcher.match("ValidationError: 1 validation error for User").matches[0].file == (
        "pydantic/v1/main.py"
    )
    result = matcher.match(_V2_TRACEBACK)
    shown = [*result.matches, *result.closest]
    assert not any(m.file.startswith("pydantic/v1/") for m in shown)
    assert result.note is not None
    assert "raised by pydantic_core._pydantic_core, a compiled extension" in result.note
    text = render_text(result)
    assert "pydantic/v1" not in text and "pydantic_core" in text


def test_text_added_after_the_raise_is_said_to_come_from_elsewhere(tmp_path: Path) -> None:
    write_tree(
        tmp_path / "tree",
        {
            "pkg/__init__.py": "",
            "pkg/client.py": """
                class APIError(Exception):
                    pass


                def call(url, status):
                    raise APIError(f"Request to {url} failed with status {status}.")
            """,
        },
    )
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    matcher = Matcher(store)
    for text, said in (
        ("Request to /v1/x failed with status 500. (request id: req_abc123)", "after"),
        ("[req_abc123] Request to /v1/x failed with status 500.", "before"),
    ):
        top = matcher.match(f"APIError: {text}").matches[0]
        assert top.function == "call" and top.values == {"url": "/v1/x", "status": "500"}
        assert top.note is not None and "came from elsewhere" in top.note
        assert f"the text {said} it" in top.note and "req_abc123" in top.note
    whole = matcher.match("APIError: Request to /v1/x failed with status 500.").matches[0]
    assert whole.exact and whole.note is None
