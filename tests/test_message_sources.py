# Messages built away from the raise (issue 12): by the exception class, a factory, a
# joined list, a module constant; each a template of its own with `message.source`.
from __future__ import annotations

from pathlib import Path

import pytest

from errdex.codec import message_from_json, message_to_json
from errdex.extract.files import module_name, walk_files
from errdex.index import index_source
from errdex.match import Matcher
from errdex.model import ErrorSite
from errdex.sources import resolve
from errdex.sources.layout import code_paths
from errdex.store import open_store
from tests.conftest import index_snippet, index_tree, indexed_store, write_tree

ERRORS = """
    class ConfigError(Exception):
        pass


    class MissingKey(ConfigError):
        def __init__(self, section, key):
            self.section = section
            super().__init__(f"[{section}] has no key {key!r}")


    class Prefixed(Exception):
        def __str__(self):
            return f"pkg failed: {self.args[0]}"


    class Coded(Exception):
        def __init__(self, code, detail):
            self.code = code
            self.detail = detail

        def __str__(self):
            return f"E{self.code}: {self.detail}"


    class Templated(Exception):
        message = "something went wrong"

        def __init__(self, **kwargs):
            super().__init__(self.message.format(**kwargs))


    class NoSuchUser(Templated):
        message = "no user named {name} in {realm}"


    class NoSuchOption(Exception):
        def __init__(self, option_name, message=None):
            if message is None:
                message = "No such option: {name}".format(name=option_name)
            super().__init__(message)


    class PoolError(Exception):
        def __init__(self, pool, message):
            super().__init__(f"{pool}: {message}")


    class RequestError(PoolError):
        def __init__(self, pool, url, message):
            self.url = url
            super().__init__(pool, message)


    class MaxRetryError(RequestError):
        def __init__(self, pool, url, reason=None):
            message = f"Max retries exceeded with url: {url} (Caused by {reason!r})"
            super().__init__(pool, url, message)


    def suffixed(pos, msg):
        return ConfigError(f"{msg} (at position {pos})")
"""

USE = """
    import textwrap

    from pkg.errors import (
        Coded, MaxRetryError, MissingKey, NoSuchOption, NoSuchUser, Prefixed, suffixed
    )

    NOT_FOUND = "the frobnicator was not found in the registry"
    TEMPLATE = "cannot open %s: permission denied for user %s"


    def get(section, key):
        raise MissingKey(section, key)


    def prefixed(x):
        raise Prefixed(f"bad value {x}")


    def coded(n):
        raise Coded(42, detail=f"the widget {n} is broken")


    def user(name):
        raise NoSuchUser(name=name, realm="main")


    def option(opt):
        raise NoSuchOption(opt)


    def retry(pool, url, error):
        raise MaxRetryError(pool, url, error)


    def parse(pos):
        raise suffixed(pos, "Invalid value")


    def check(cfg):
        problems = []
        if cfg.a < 0:
            problems.append(f"a must be non-negative, got {cfg.a}")
        if not cfg.name:
            problems.append("name must not be empty")
        if problems:
            raise ValueError(" ".join(problems))


    def constant():
        raise LookupError(NOT_FOUND)


    def formatted(path, user):
        raise PermissionError(TEMPLATE % (path, user))


    def dedented(x):
        raise RuntimeError(
            textwrap.dedent(
                '''
                The model could not be loaded.
                Try again later.
                '''
            )
        )
"""


def _sites(tmp_path: Path) -> dict[str, list[ErrorSite]]:
    sites = index_tree(
        tmp_path, {"pkg/__init__.py": "", "pkg/errors.py": ERRORS, "pkg/use.py": USE}
    )
    out: dict[str, list[ErrorSite]] = {}
    for site in sites:
        if site.location.file == "pkg/use.py":
            out.setdefault(site.location.function, []).append(site)
    return out


def _text(sites: list[ErrorSite]) -> list[tuple[str, str]]:
    return [(s.message.text, s.message.source) for s in sites if s.message is not None]


def test_text_made_by_the_exception_class(tmp_path: Path) -> None:
    by_function = _sites(tmp_path)
    assert _text(by_function["get"]) == [("[{section}] has no key {key!r}", "exception-class")]
    assert _text(by_function["prefixed"]) == [("pkg failed: bad value {x}", "exception-class")]
    assert _text(by_function["coded"]) == [("E42: the widget {n} is broken", "exception-class")]
    assert _text(by_function["user"]) == [("no user named {name} in main", "exception-class")]
    assert _text(by_function["option"]) == [("No such option: {opt}", "exception-class")]
    # MaxRetryError -> RequestError -> PoolError, each __init__ handing its text on
    assert _text(by_function["retry"]) == [
        ("{pool}: Max retries exceeded with url: {url} (Caused by {error!r})", "exception-class")
    ]


def test_text_returned_by_a_factory(tmp_path: Path) -> None:
    (site,) = _sites(tmp_path)["parse"]
    assert _text([site]) == [("Invalid value (at position {pos})", "factory")]
    assert site.exception.name == "ConfigError"
    assert site.exception.qualname == "pkg.errors.ConfigError"


def test_joined_list_constant_variable_format_and_dedent(tmp_path: Path) -> None:
    by_function = _sites(tmp_path)
    assert _text(by_function["check"]) == [
        ("{problems}a must be non-negative, got {cfg.a}{problems}", "joined-list"),
        ("{problems}name must not be empty{problems}", "joined-list"),
    ]
    assert _text(by_function["constant"]) == [
        ("the frobnicator was not found in the registry", "constant")
    ]
    assert _text(by_function["formatted"]) == [
        ("cannot open {path}: permission denied for user {user}", "raise")
    ]
    assert _text(by_function["dedented"]) == [
        ("The model could not be loaded.\nTry again later.", "raise")
    ]


def test_a_module_constant_rebound_is_not_taken() -> None:
    sites = index_snippet(
        """
        MSG = "first text of the message"
        MSG = "second text of the message"

        def f():
            raise ValueError(MSG)
        """
    )
    assert [s.message.text for s in sites if s.message] == ["{MSG}"]


def test_message_source_in_json_only_grows() -> None:
    (site,) = index_snippet(
        """
        def f(x):
            raise ValueError(f"bad {x}")
        """
    )
    assert site.message is not None
    data = message_to_json(site.message)
    assert data["source"] == "raise"
    del data["source"]  # a record written before the field existed
    assert message_from_json(data) == site.message


def test_class_built_messages_match_back(tmp_path: Path) -> None:
    write_tree(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/errors.py": ERRORS})
    write_tree(tmp_path / "tree", {"pkg/use.py": USE})
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    matcher = Matcher(store)
    cases = {
        "pkg.errors.MissingKey: [db] has no key 'host'": "get",
        "no user named bob in main": "user",
        "NoSuchOption: No such option: --frobnicate": "option",
        "pkg.errors.MaxRetryError: HTTPConnectionPool(host='x', port=1): Max retries exceeded "
        "with url: /a (Caused by NewConnectionError('refused'))": "retry",
        "pkg.errors.ConfigError: Invalid value (at position 12)": "parse",
        "ValueError: a must be non-negative, got -3 name must not be empty": "check",
        "name must not be empty": "check",
    }
    for text, function in cases.items():
        result = matcher.match(text)
        assert result.matches, (text, result.note)
        assert result.matches[0].function == function, (text, result.matches[:2])
    top = matcher.match("pkg.errors.MissingKey: [db] has no key 'host'").matches[0]
    assert top.values == {"section": "db", "key": "'host'"} and top.exception_agrees
    store.close()


def test_test_files_beside_the_code_are_not_package_code(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "",
            "pkg/conftest.py": "",
            "pkg/test_core.py": "",
            "pkg/core_test.py": "",
            "pkg/tests/test_a.py": "",
            "pkg/test/helpers.py": "",
            "pkg/testing/fixtures.py": "",
            "pkg/sub/testing.py": "",
        },
    )
    assert walk_files(tmp_path, ("pkg",)).paths == [
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/sub/testing.py",
        "pkg/testing/fixtures.py",  # public API in numpy, torch, pandas
    ]
    write_tree(tmp_path / "top", {"testing/helpers.py": "", "pkg/__init__.py": ""})
    assert code_paths(tmp_path / "top", "pkg") == ("pkg",)


def test_lib_layout_and_its_test_folder(tmp_path: Path) -> None:
    """sqlalchemy's sdist: the package under lib/, its tests in test/ beside it."""
    root = write_tree(
        tmp_path / "SQLAlchemy-2.0",
        {
            "setup.py": "",
            "lib/sqlalchemy/__init__.py": "",
            "lib/sqlalchemy/exc.py": "class ArgumentError(Exception):\n    pass\n",
            "lib/sqlalchemy/engine.py": """
                from sqlalchemy import exc

                def connect(url):
                    raise exc.ArgumentError(f"Could not parse URL from string '{url}'")
            """,
            "test/__init__.py": "",
            "test/test_engine.py": "def test_x():\n    raise ValueError('not package code')\n",
            "examples/demo.py": "",
        },
    )
    assert code_paths(root, "sqlalchemy") == ("lib/sqlalchemy",)
    assert module_name("lib/sqlalchemy/engine.py") == "sqlalchemy.engine"
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(root), store)
    (record,) = list(store.iter_records())
    assert record.site.location.file == "lib/sqlalchemy/engine.py"
    assert record.site.exception.qualname == "sqlalchemy.exc.ArgumentError"
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.12/site-packages/sqlalchemy/engine.py", line 5, in connect\n'
        "sqlalchemy.exc.ArgumentError: Could not parse URL from string 'x'"
    )
    top = Matcher(store).match(tb).matches[0]
    assert (top.file, top.line) == ("lib/sqlalchemy/engine.py", 5)
    assert top.note is not None and "last frame is this raise" in top.note
    store.close()


VENDORED = {
    "errors.py": "class OutOfStock(Exception):\n    pass\n",
    "cart.py": """
        from .errors import OutOfStock

        def take(item, have, want):
            raise OutOfStock(f"only {have} of {item!r} left in stock, but {want} were asked for")
    """,
}


def test_the_same_text_in_two_packages_is_told_apart(tmp_path: Path) -> None:
    """A vendored copy: the qualified class the user saw and the traceback's paths pick
    the package."""
    shop = {"setup.py": "", "shop/__init__.py": ""} | {f"shop/{k}": v for k, v in VENDORED.items()}
    big = {"setup.py": "", "big/__init__.py": "", "big/_vendor/__init__.py": ""}
    big |= {"big/_vendor/shop/__init__.py": ""}
    big |= {f"big/_vendor/shop/{k}": v for k, v in VENDORED.items()}
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(write_tree(tmp_path / "shop", shop)), store)
    index_source(str(write_tree(tmp_path / "big", big)), store)
    matcher = Matcher(store)
    text = "only 2 of 'apple' left in stock, but 5 were asked for"
    for shown, package in (("shop.errors", "shop"), ("big._vendor.shop.errors", "big")):
        top = matcher.match(f"{shown}.OutOfStock: {text}").matches[0]
        assert top.package == package, (shown, top)
    for path, package in (
        ("/venv/lib/python3.12/site-packages/shop/cart.py", "shop"),
        ("/venv/lib/python3.12/site-packages/big/_vendor/shop/cart.py", "big"),
    ):
        tb = (
            "Traceback (most recent call last):\n"
            f'  File "{path}", line 5, in take\n'
            f"OutOfStock: {text}"
        )
        top = matcher.match(tb).matches[0]
        assert top.package == package, (path, top)
    store.close()


@pytest.mark.network
def test_a_project_with_platform_wheels_only(tmp_path: Path) -> None:
    """onnxruntime publishes no sdist and no pure wheel (torch neither, at 800 MB): one
    wheel's Python files are indexed, and the snapshot says which."""
    store = indexed_store(tmp_path / "errdex.sqlite", "pypi:onnxruntime==1.18.1")
    (snapshot,) = store.snapshots()
    assert snapshot.version == "1.18.1"
    records = list(store.iter_records(package="onnxruntime"))
    assert len(records) > 50
    assert all(r.site.location.file.startswith("onnxruntime/") for r in records)
    top = Matcher(store).match("ValueError: 'providers' should be a sequence.").matches[0]
    assert (top.file, top.package) == (
        "onnxruntime/capi/onnxruntime_inference_collection.py",
        "onnxruntime",
    )
    store.close()
    snap = resolve("pypi:onnxruntime==1.18.1")
    assert snap.note is not None
    assert "onnxruntime-1.18.1-cp312-cp312-manylinux" in snap.note and "x86_64" in snap.note


def test_text_seen_through_a_wrapper(tmp_path: Path) -> None:
    write_tree(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/errors.py": ERRORS})
    write_tree(tmp_path / "tree", {"pkg/use.py": USE})
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(tmp_path / "tree"), store)
    matcher = Matcher(store)
    bare = matcher.match("name must not be empty").matches[0]
    pydantic = matcher.match(
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for Config\n"
        "name\n"
        "  Value error, name must not be empty [type=value_error, input_value={'a': 1},"
        " input_type=dict]\n"
        "    For further information visit https://errors.pydantic.dev/2.5/v/value_error"
    ).matches[0]
    assert pydantic.id == bare.id and pydantic.exception_agrees is True
    assert pydantic.score >= bare.score
    loguru = matcher.match(
        "2024-01-01 10:00:00.123 | ERROR    | app:main:12 - pkg failed: bad value 7"
    ).matches[0]
    assert loguru.function == "prefixed" and loguru.values == {"x": "7"}
    ipython = matcher.match(
        "Traceback (most recent call last):\n"
        "File ~/work/x.py:3\n"
        "      1 import pkg\n"
        "----> 3 pkg.use.prefixed(7)\n"
        "File /venv/lib/python3.12/site-packages/pkg/use.py:17, in prefixed(x)\n"
        "     16 def prefixed(x):\n"
        '---> 17     raise Prefixed(f"bad value {x}")\n'
        "Prefixed: pkg failed: bad value 7"
    ).matches[0]
    assert ipython.function == "prefixed" and ipython.note is not None
    assert "last frame is this raise" in ipython.note
    store.close()
