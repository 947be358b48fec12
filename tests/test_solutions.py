# Solutions that answer "how do I fix it" and internal invariants called internal (issue
# 10): small packages written to tmp_path, through the real extract and explain stages.
# One test a rule: a method named for raising, a signal the user sent, a catch-all
# handler that chains what it caught, an abstract method every subclass implements, a
# check whose "or" reads only the library's own values, a message that calls itself
# internal, examples only for controls set by presence, a private handler left unnamed,
# Sphinx markup of a class doc said as plain backticks, and an import error explained
# as a missing dependency only where the check is an import.
from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from errdex.explain.solutions import reads
from errdex.model import ErrorSite, Fix, Input
from tests.test_knobs import body, explained, fixes


def kinds(site: ErrorSite) -> list[str]:
    return [f.kind for f in fixes(site)]


def test_a_method_named_for_raising_is_called_on_purpose(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "web/__init__.py": "",
            "web/errors.py": "class HTTPError(Exception):\n    pass\n",
            "web/models.py": """
                from web.errors import HTTPError

                class Response:
                    def __init__(self, status, request=None):
                        self.status = status
                        self.request = request

                    def raise_for_status(self):
                        if self.request is None:
                            raise RuntimeError("no request was set on this response")
                        message = f"{self.status} error"
                        if 400 <= self.status:
                            raise HTTPError(message)
            """,
        },
    )
    status = next(s for s in sites.values() if s.exception.name == "HTTPError")
    said = " ".join(body(status).solutions)
    assert "on purpose" in said and "catch `HTTPError`" in said
    assert "`Response.raise_for_status()`" in said
    misuse = sites["no request was set on this response"]  # a builtin: a misuse, not a report
    assert not any("on purpose" in s for s in body(misuse).solutions)


def test_a_signal_the_user_sent_is_caught_where_it_is_read(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "term/__init__.py": "",
            "term/keys.py": """
                def _translate(ch):
                    if ch == "\\x04":
                        raise EOFError("input ended")
                    if ch == "\\x03":
                        raise KeyboardInterrupt("interrupted")

                def getchar(read):
                    ch = read()
                    _translate(ch)
                    return ch
            """,
        },
    )
    eof, interrupt = sites["input ended"], sites["interrupted"]
    assert body(eof).solutions[0].startswith("It reports the end of input")
    assert "catch `EOFError` around the call to `getchar`" in body(eof).solutions[0]
    assert "catch `KeyboardInterrupt`" in " ".join(body(interrupt).solutions)
    assert "report" not in kinds(eof)  # not a bug: what the user did


def test_a_catch_all_that_chains_points_to_what_it_caught(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "net/__init__.py": "",
            "net/transport.py": """
                class ConnectError(Exception):
                    pass

                def _connect(send, request):
                    try:
                        return send(request)
                    except Exception as exc:
                        raise ConnectError("chained") from exc

                def _quiet(send, request):
                    try:
                        return send(request)
                    except Exception:
                        raise ConnectError("unchained")
            """,
        },
    )
    chained = body(sites["chained"]).solutions
    # Python prints the exception being handled above the one its handler raised
    assert any(
        "raised in the `try` block before line 8 (printed above this error in the traceback)" in s
        for s in chained
    )
    assert not any("printed above" in s for s in body(sites["unchained"]).solutions)


ABSTRACT = """
    class Engine:
        def run(self):
            raise NotImplementedError

    class Local(Engine):
        def run(self):
            return 1

    class Remote(Engine):
        pass

    class Pooled(Remote):
        def run(self):
            return 2
"""


def test_an_abstract_method_every_subclass_implements_points_to_a_bug(tmp_path: Path) -> None:
    sites = explained(tmp_path, {"eng/__init__.py": "", "eng/core.py": ABSTRACT})  # package "tree"
    abstract = body(sites["Engine.run"])
    assert "Every subclass of `Engine` that tree defines implements `run`" in abstract.what_it_means
    assert "a bug in tree" in abstract.what_it_means
    assert [f.kind for f in abstract.fixes] == ["implement", "report"]


def test_an_abstract_method_a_subclass_leaves_out_is_not_called_a_bug(tmp_path: Path) -> None:
    code = ABSTRACT + "\n    class Lazy(Remote):\n        pass\n"
    sites = explained(tmp_path, {"eng/__init__.py": "", "eng/core.py": code})
    abstract = body(sites["Engine.run"])
    assert "bug" not in abstract.what_it_means  # `Lazy` reaches it: no claim to make
    assert "report" not in [f.kind for f in abstract.fixes]


def test_an_or_over_the_library_s_own_values_is_an_internal_invariant(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "proto/__init__.py": "",
            "proto/session.py": """
                class _Session:
                    def __init__(self):
                        self._window = 16

                    def _grow(self):
                        if not isinstance(self._window, int) or self._window <= 0:
                            raise ValueError("the window went out of range")
                        self._window *= 2
            """,
        },
    )
    site = sites["the window went out of range"]
    assert "points to a bug in tree" in body(site).what_it_means
    assert kinds(site)[0] == "report"


def test_what_callers_hand_a_private_helper_is_not_called_a_bug(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "serve/__init__.py": "",
            "serve/prompts.py": """
                def _require_text(prompt):
                    text = prompt.get("prompt")
                    if not isinstance(text, str) or not text:
                        raise ValueError("prompt text should be a non-empty string")
                    return text

                def _render(parts):
                    assert isinstance(parts, list), "parts must be a list"

                def generate(request):
                    _render(list(request))
                    return _require_text(request)
            """,
        },
    )
    handed = sites["prompt text should be a non-empty string"]  # a user's prompt, maybe
    assert "report" not in kinds(handed)
    assert "bug" not in body(handed).what_it_means
    asserted = sites["parts must be a list"]  # an assert: the code's own claim
    assert kinds(asserted)[0] == "report"


def _parser_module(message: str) -> dict[str, str]:
    return {
        "tmpl/__init__.py": "",
        "tmpl/ext.py": f"""
            class Parser:
                def __init__(self, source):
                    self.stream = iter(source)

            class Extension:
                def _parse_block(self, parser: Parser):
                    while True:
                        if parser.stream.current.type == "data":
                            next(parser.stream)
                        elif parser.stream.eos:
                            return 2
                        else:
                            raise RuntimeError("{message}")
        """,
    }


def test_a_message_that_says_internal_is_believed(tmp_path: Path) -> None:
    sites = explained(tmp_path / "a", _parser_module("internal parser error"))
    site = sites["internal parser error"]
    assert "points to a bug in tree" in body(site).what_it_means
    assert kinds(site)[0] == "report"
    other = explained(tmp_path / "b", _parser_module("unknown block token"))
    assert "report" not in kinds(other["unknown block token"])  # its attributes are not proof


def test_a_constructor_parameter_gets_no_true_example(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "cfg/__init__.py": "",
            "cfg/paths.py": """
                from dataclasses import dataclass

                @dataclass
                class Dataset:
                    path: str = ""

                    def load(self):
                        if not self.path:
                            raise ValueError("a dataset path is needed")
            """,
        },
    )
    said = " ".join(body(sites["a dataset path is needed"]).solutions)
    assert "Give `path` a non-empty value" in said
    assert "path=True" not in said  # a path is not a flag: no `Dataset(path=True)`


def test_sphinx_markup_of_a_class_doc_is_said_as_backticks(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "cli/__init__.py": "",
            "cli/params.py": '''
                class Parameter:
                    """Either :class:`Option`\\\\s or :class:`~cli.params.Argument`\\\\s,
                    with a ``name``."""

                    def check(self, name):
                        if name is None:
                            raise ValueError("a parameter needs a name")
            ''',
        },
    )
    means = body(sites["a parameter needs a name"]).what_it_means
    assert "`Option`s or `Argument`s, with a `name`" in means
    assert ":class:" not in means and "``" not in means


def test_a_private_handler_is_not_named(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/parser.py": """
                class NoSuchOption(Exception):
                    pass


                class Context:
                    def __init__(self, ignore_unknown=False):
                        self.ignore_unknown = ignore_unknown


                class Parser:
                    def __init__(self, ctx: Context):
                        self.ctx = ctx
                        self.ignore_unknown = ctx.ignore_unknown
                        self._known = {}

                    def _match(self, opt):
                        if opt not in self._known:
                            raise NoSuchOption(f"no such option: {opt}")

                    def _process(self, opt):
                        try:
                            self._match(opt)
                        except NoSuchOption:
                            if not self.ignore_unknown:
                                raise

                    def parse(self, opts):
                        for opt in opts:
                            self._process(opt)
            """,
        },
    )
    said = body(sites["no such option: "]).solutions
    # the fix (the option the user passed) first, the setting that avoids the check after
    assert said[0].startswith("Check the `opts` you pass to `Parser.parse`")
    assert said[1].startswith("Or, as its caller catches it: give `ignore_unknown`")
    assert "report" not in kinds(sites["no such option: "])  # a setting decides: not a bug
    assert not any("_process" in s for s in said)


def test_an_assert_on_state_no_user_sets_is_an_internal_invariant(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "bench/__init__.py": "",
            "bench/data.py": """
                class Dataset:
                    def __init__(self, path):
                        self.path = path
                        self.rows = None

                    def load(self):
                        self.rows = open(self.path).readlines()

                    def sample(self):
                        assert self.rows is not None, "rows must be loaded before sampling"
                        return self.rows[0]

                    def check(self):
                        assert self.path, "a path is needed"
            """,
        },
    )
    state = sites["rows must be loaded before sampling"]
    assert kinds(state)[0] == "report"
    assert "points to a bug in tree" in body(state).what_it_means
    path = sites["a path is needed"]  # a constructor parameter: the user's to give
    assert "report" not in kinds(path)
    assert "`path`" in body(path).solutions[0]


def test_a_class_doc_is_said_up_to_its_first_link(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "bench/__init__.py": "",
            "bench/sets.py": '''
                class SpecBench:
                    """Implements the SpecBench dataset: https://example.org/spec Download it
                    using: wget https://example.org/spec.jsonl"""

                    def load(self, path):
                        if path is None:
                            raise ValueError("a path is needed")
            ''',
        },
    )
    means = body(sites["a path is needed"]).what_it_means
    assert means.startswith("`SpecBench` (implements the SpecBench dataset) rejects")
    assert "https" not in means


def test_a_syntax_error_points_to_the_text_being_parsed(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "tmpl/__init__.py": "",
            "tmpl/errors.py": """
                class TemplateSyntaxError(Exception):
                    def __init__(self, message, lineno):
                        super().__init__(message)
                        self.lineno = lineno
            """,
            "tmpl/parser.py": """
                from tmpl.errors import TemplateSyntaxError

                class Parser:
                    def fail(self, msg, lineno=None, exc=TemplateSyntaxError):
                        raise exc(msg, lineno)

                    def parse_from(self, name, lineno):
                        if name.startswith("_"):
                            self.fail("names starting with _ can not be imported", lineno)
            """,
        },
    )
    site = sites["names starting with _ can not be imported"]
    assert site.exception.name == "TemplateSyntaxError"  # the helper's default, not `exc`
    assert body(site).solutions[0].startswith("Correct the text `Parser.parse_from` parses,")


CLIENT = {
    "net/__init__.py": "from net._client import Client, Loader\n",
    "net/_client.py": """
        class Client:
            def __init__(self):
                self._state = "unopened"
                self._request = None
                self.is_closed = False

            def read(self):
                if self.is_closed:
                    raise RuntimeError("the stream has been closed")

            def __enter__(self):
                if self._state != "unopened":
                    raise RuntimeError("a client can be opened only once")
                self._state = "opened"
                return self

            def close(self):
                self._state = "closed"

            def send(self, request):
                if self._state == "closed":
                    raise RuntimeError("the client has been closed")

            @property
            def request(self):
                if self._request is None:
                    raise RuntimeError("no request was set")
                return self._request

        class Loader:
            has_source_access = True

            def get_source(self):
                if not self.has_source_access:
                    raise RuntimeError("this loader has no source access")

        class _Pool:
            def __init__(self):
                self._closed = False

            def get(self):
                if self._closed:
                    raise RuntimeError("the pool is closed")
    """,
}


def test_a_check_on_an_exported_object_s_own_state_points_to_its_use(tmp_path: Path) -> None:
    sites = explained(tmp_path, CLIENT)
    for message, method in (
        ("the client has been closed", "send"),
        ("a client can be opened only once", "__enter__"),
        ("the stream has been closed", "read"),  # a flag the object starts with
    ):
        said = body(sites[message]).solutions[0]
        assert said.startswith(f"Check what your code did with this `Client` before `{method}`")
        assert "_state" not in said  # the private name stays out
    never_set = body(sites["no request was set"]).solutions  # not set, rather than used up
    assert not any(s.startswith("Check what your code did") for s in never_set)
    setting = body(sites["this loader has no source access"]).solutions  # of the class
    assert not any(s.startswith("Check what your code did") for s in setting)
    internal = body(sites["the pool is closed"]).solutions  # a class no user is handed
    assert not any(s.startswith("Check what your code did") for s in internal)


def test_a_check_that_refuses_a_text_stream_asks_for_a_binary_file(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "up/__init__.py": "from up.api import post\n",
            "up/_parts.py": """
                import io


                class Part:
                    def __init__(self, fileobj):
                        if isinstance(fileobj, io.TextIOWrapper):
                            raise TypeError("parts need a binary file")
            """,
            "up/api.py": """
                from io import TextIOBase
                import io


                def post(url, files):
                    for name, value in files.items():
                        _field(name, value)


                def _field(name, fileobj):
                    if isinstance(fileobj, io.StringIO):
                        raise TypeError("uploads require 'io.BytesIO', not 'io.StringIO'.")
                    if isinstance(fileobj, TextIOBase):
                        raise TypeError("uploads must be opened in binary mode, not text mode.")
                    if not isinstance(fileobj, io.BufferedReader):
                        raise TypeError("uploads must be buffered.")
            """,
        },
    )
    text_mode = fixes(sites["uploads must be opened in binary mode, not text mode."])[0]
    assert text_mode.kind == "input"
    assert text_mode.text.startswith(
        'Open the file you pass to `post` in binary mode (`open(path, "rb")`): this check'
        " refuses a text stream (`io.TextIOBase`)"
    )
    string_io = fixes(sites["uploads require 'io.BytesIO', not 'io.StringIO'."])[0]
    assert string_io.text.startswith("Pass an `io.BytesIO` (bytes) to `post` instead of an")
    # a class of a private module is not what a user calls: the file is not said to be its
    [part] = [f for f in fixes(sites["parts need a binary file"]) if "binary mode" in f.text]
    assert part.text.startswith('Open the file in binary mode (`open(path, "rb")`): this')
    # `not isinstance(...)` of another class: no text stream is what it refuses
    buffered = body(sites["uploads must be buffered."]).solutions
    assert not any("binary mode" in s for s in buffered)


# -- import checks: only a check that IS an import is a missing dependency ----------------

IMPORTS_PYPROJECT = """
    [project]
    name = "pkg"
    version = "1.0"
    dependencies = ["flash-attn>=2.1"]
    [project.optional-dependencies]
    yaml = ["pyyaml>=6"]
    gpu = ["triton"]
"""


def dependency_fixes(site: ErrorSite) -> list[str]:
    return [f.text for f in fixes(site) if f.kind == "dependency"]


def test_an_import_a_try_block_makes_names_the_extra_the_distribution_and_its_version(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": IMPORTS_PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/settings.py": """
                def load(path):
                    try:
                        import yaml
                    except ImportError:
                        raise ImportError("reading settings needs YAML") from None
                    return yaml.safe_load(path)
            """,
        },
    )
    site = sites["reading settings needs YAML"]
    assert fixes(site)[0] == Fix(
        text=(
            "Install `pyyaml`, which provides `yaml`, with `pip install 'pkg[yaml]'` (the"
            " `yaml` extra of pkg requires `pyyaml>=6`)"
        ),
        kind="dependency",
        knobs=("pkg[yaml]",),
    )
    assert body(site).what_it_means.startswith(
        "`load()` in `pkg.settings` needs `yaml`, which could not be imported"
    )


def test_an_import_error_a_plain_check_raises_is_explained_from_its_condition(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": IMPORTS_PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/loading.py": """
                import importlib
                import sys


                def import_string(dotted_path):
                    if "." not in dotted_path:
                        raise ImportError(f"{dotted_path!r} doesn't look like a module path")
                    module, _, name = dotted_path.rpartition(".")
                    return getattr(importlib.import_module(module), name)


                def console():
                    if sys.platform != "win32":
                        raise ImportError("the Windows console is only on Windows")


                def plugin(path):
                    try:
                        return import_string(path)
                    except ImportError as exc:
                        raise ValueError("not a plugin") from exc
            """,
        },
    )
    malformed = sites[" doesn't look like a module path"]
    assert body(malformed).what_it_means.startswith(
        "`import_string()` in `pkg.loading` rejects a `dotted_path` without '.'. When `plugin`"
        ' calls it, it catches this and raises `ValueError` ("not a plugin") instead'
    )
    assert body(malformed).solutions[0].startswith("Use a `dotted_path` that contains '.'")
    platform = sites["the Windows console is only on Windows"]
    assert "`sys.platform` is not 'win32'" in body(platform).what_it_means
    # what a call that is no import raises (`import_string` refusing a path) is that
    # call's check, not a module to install
    for site in (malformed, platform, sites["not a plugin"]):
        assert not any("install" in s.lower() for s in body(site).solutions)
        assert not any("dependency" in s for s in body(site).common_situations)
        assert "could not be imported" not in body(site).what_it_means


def test_a_module_a_condition_looks_up_is_installed_at_the_version_required(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": IMPORTS_PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/attention.py": """
                import importlib.util


                def flash(head_size):
                    if importlib.util.find_spec("flash_attn") is None:
                        raise ImportError("the flash backend is not available")
                    if head_size != 128:
                        raise ValueError("the flash backend takes heads of 128 only")


                def other():
                    if importlib.util.find_spec("xformers") is None:
                        raise ImportError("xformers 0.0.28 or later is needed")
            """,
        },
    )
    flash = sites["the flash backend is not available"]
    assert dependency_fixes(flash) == [
        "Install `flash-attn` (`pip install 'flash-attn>=2.1'`), which pkg requires"
    ]
    assert "needs `flash_attn`, which is not installed" in body(flash).what_it_means
    assert "The optional package `flash_attn` is not installed" in body(flash).common_situations
    other = sites["xformers 0.0.28 or later is needed"]
    assert dependency_fixes(other) == [
        "Install the package that provides the `xformers` module (the message asks for"
        " version `>=0.0.28`)"
    ]
    # past the lookup the module is there: what comes after is no missing dependency
    heads = sites["the flash backend takes heads of 128 only"]
    assert dependency_fixes(heads) == []
    assert "flash_attn" not in body(heads).what_it_means


def test_a_has_call_is_a_dependency_check_only_of_a_distribution_the_package_requires(
    tmp_path: Path,
) -> None:
    sites = explained(
        tmp_path,
        {
            "pyproject.toml": IMPORTS_PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/kernels.py": """
                def fuse(layer):
                    if not has_bias(layer):
                        raise ValueError("the layer has no bias to fuse")


                def check(platform):
                    if not platform.has_device_capability(80):
                        raise ValueError("bfloat16 needs compute capability 8.0")
                    if not has_magic():
                        raise RuntimeError("no magic")


                def compile_kernels():
                    if not has_triton():
                        raise ImportError("compiling kernels needs triton")


                def fallback():
                    if has_triton():
                        raise ValueError("the fallback is for machines without triton")
            """,
        },
    )
    for text in (
        "the layer has no bias to fuse",
        "bfloat16 needs compute capability 8.0",
        "no magic",  # `magic` is no distribution pkg requires
        "the fallback is for machines without triton",  # it holds with triton there
    ):
        site = sites[text]
        assert dependency_fixes(site) == [], text
        assert not any("dependency" in s for s in body(site).common_situations), text
        assert "needs `" not in body(site).what_it_means, text
    assert body(sites["the layer has no bias to fuse"]).what_it_means == (
        "`fuse()` in `pkg.kernels` refuses to go on when `has_bias(layer)` returns false."
    )
    triton = sites["compiling kernels needs triton"]
    assert dependency_fixes(triton) == [
        "Install `triton` with `pip install 'pkg[gpu]'` (the `gpu` extra of pkg requires it)"
    ]
    assert body(triton).what_it_means == (
        "`compile_kernels()` in `pkg.kernels` needs `triton`, which is not installed."
    )
    assert (
        "An optional dependency is missing: `has_triton()` returns false"
        in body(triton).common_situations
    )


def test_a_module_named_at_run_time_or_by_the_message(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/plugins.py": """
                import importlib

                _LOADER = "fancy.loader"


                def load_fancy():
                    try:
                        return importlib.import_module(_LOADER)
                    except ModuleNotFoundError:
                        raise RuntimeError("no fancy loader") from None


                def load_plugin(module_path):
                    try:
                        return importlib.import_module(module_path)
                    except ImportError as exc:
                        raise ImportError(f"cannot import {module_path}") from exc


                def dequantize(x):
                    try:
                        from quark.torch.kernel import mx
                    except ImportError as err:
                        raise ImportError("The package `amd-quark` is required for MX") from err
                    return mx(x)
            """,
        },
    )
    given = sites["cannot import "]
    assert dependency_fixes(given) == [
        "Check the module that `module_path` names: it could not be imported (misspelled,"
        " or not installed)"
    ]
    assert "needs the module that `module_path` names" in body(given).what_it_means
    # a constant of the library that holds the name is as good as the name
    fancy = sites["no fancy loader"]
    assert dependency_fixes(fancy) == ["Install the package that provides the `fancy` module"]
    assert "needs `fancy.loader`, which could not be imported" in body(fancy).what_it_means
    quark = sites["The package `amd-quark` is required for MX"]
    assert dependency_fixes(quark) == [
        "Install `amd-quark` (`pip install amd-quark`), which provides `quark.torch.kernel`"
    ]


# `reads` finds a name by hand (str.find and a look at the characters beside it) where it
# used a regular expression per name; both must agree on every text.
_NAMES = st.sampled_from(["x", "self.size", "size", "_n", "é", "a.b", "cfg.max_len"])
_TEXT = st.text(alphabet="xself.izeé_nab cfgmax_len()[]+-=:'\"9", max_size=40)


@given(_NAMES, _TEXT)
def test_reads_agrees_with_the_regular_expression_it_replaced(name: str, text: str) -> None:
    item = Input(name=name, expr=name, kind="local")
    by_regex = re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None
    assert reads(text, item) is by_regex


def test_reads_a_name_only_as_a_whole_name() -> None:
    size = Input(name="size", expr="size", kind="local")
    assert reads("size > 0", size)
    assert reads("len(x) < size", size)
    assert not reads("self.size > 0", size)  # an attribute of that name: not the local
    assert not reads("max_size > 0", size)
    assert not reads("sizes[0]", size)
    assert reads("sizes[0] or size", size)  # a later place counts


def test_a_message_that_says_what_an_input_must_be_is_a_fix(tmp_path: Path) -> None:
    sites = explained(
        tmp_path,
        {
            "rr/__init__.py": "from rr.rule import Rule\n",
            "rr/rule.py": """
                def measure(text):
                    return sum(2 if ord(c) > 0x1100 else 1 for c in text)


                class Rule:
                    def __init__(self, characters="-", style=None):
                        if not characters or measure(characters) == 0 or style is False:
                            raise ValueError(
                                "'characters' argument must have a cell width of at least 1"
                            )
                        if style == "none":
                            raise ValueError(f"style {style} must be a known style")
            """,
        },
    )
    said = body(sites["'characters' argument must have a cell width of at least 1"])
    assert said.solutions[0] == (
        'Pass a `characters` that has a cell width of at least 1 (parameter of `Rule`, default "-")'
    )
    # a statement with a hole in what it asks is not one to quote
    assert not any(
        s.startswith("Pass a `style` that")
        for s in body(next(s for k, s in sites.items() if k.startswith("style "))).solutions
    )
