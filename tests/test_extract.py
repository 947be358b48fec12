# Extraction, snippet by snippet: every message template form, guard form and input
# kind the index promises, then cross-file linking, identity and bad files.
from __future__ import annotations

import ast
import contextlib
import os
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest

from errdex.extract import Extraction, scan
from errdex.extract.cache import NoCache
from errdex.extract.parse import Skip, parse_file
from errdex.extract.pipeline import extract
from errdex.extract.visitor import UnknownStatement
from errdex.model import Hole, Snapshot, Text
from errdex.store.facts import SqliteFactsCache
from tests.conftest import index_snippet, index_tree, only, write_tree


def texts(code: str) -> list[str | None]:
    return [s.message.text if s.message else None for s in index_snippet(code)]


# -- message templates ------------------------------------------------------------------


def test_a_stdlib_alias_is_the_class_a_traceback_prints() -> None:
    sites = index_snippet("""
        import copy
        import socket

        def wait(sock):
            if sock.gettimeout() == 0:
                raise socket.timeout("timed out")
            raise copy.error("cannot copy a socket")
    """)
    assert [(s.exception.name, s.exception.qualname) for s in sites] == [
        ("TimeoutError", "builtins.TimeoutError"),
        ("copy.Error", "copy.Error"),
    ]


def test_fstring_keeps_holes_conversion_and_spec() -> None:
    site = only(
        index_snippet("""
        def f(name, ratio):
            raise ValueError(f"bad {name!r}: {ratio:.2f} of {len(name)}")
    """)
    )
    assert site.message is not None
    assert site.message.parts == (
        Text(text="bad "),
        Hole(expr="name", conversion="r"),
        Text(text=": "),
        Hole(expr="ratio", format_spec=".2f"),
        Text(text=" of "),
        Hole(expr="len(name)"),
    )
    assert site.message.text == "bad {name!r}: {ratio:.2f} of {len(name)}"
    assert not site.message.static


def test_nested_fstring_is_inlined() -> None:
    assert texts("""
        def f(a, b):
            raise ValueError(f"x {f'inner {a}'} y {b}")
    """) == ["x inner {a} y {b}"]


def test_implicit_concatenation_across_lines() -> None:
    site = only(
        index_snippet("""
        def f(n):
            raise ValueError(
                "first part, "
                f"then {n} "
                "and the end"
            )
    """)
    )
    assert site.message is not None and site.message.text == "first part, then {n} and the end"
    assert (site.location.line, site.location.end_line) == (3, 7)


def test_plus_concatenation() -> None:
    assert texts("""
        def f(path):
            raise OSError("cannot open " + path + " for reading")
    """) == ["cannot open {path} for reading"]


def test_percent_with_tuple_dict_and_single_value() -> None:
    assert texts("""
        def f(a, b):
            raise ValueError("got %s and %r (100%%)" % (a, b))
        def g(a):
            raise ValueError("key %(k)s is %(v)d" % {"k": a, "v": 3})
        def h(a):
            raise ValueError("only %s" % a)
    """) == ["got {a} and {b!r} (100%)", "key {a} is {3}", "only {a}"]


def test_str_format_positional_and_named() -> None:
    assert texts("""
        def f(a, b, obj):
            raise ValueError("{} then {} / {name} / {0.attr!r:>4}".format(a, b, name=obj))
    """) == ["{a} then {b} / {obj} / {a.attr!r:>4}"]


def test_join_is_one_hole() -> None:
    assert texts("""
        def f(items):
            raise ValueError("choose one of: " + ", ".join(items))
    """) == ['choose one of: {", ".join(items)}']  # holes keep the source as written


def test_message_built_in_a_variable_with_augmented_assignment() -> None:
    assert texts("""
        def f(x):
            msg = f"bad value {x}"
            msg += ", expected a number"
            raise TypeError(msg)
    """) == ["bad value {x}, expected a number"]


def test_branches_that_assign_different_texts_give_one_template_each() -> None:
    sites = index_snippet("""
        def f(x):
            if x:
                msg = "first reason"
            else:
                msg = "second reason"
            raise ValueError(msg)
    """)
    assert sorted(s.message.text for s in sites if s.message) == ["first reason", "second reason"]
    assert {s.location.line for s in sites} == {7}
    assert all(s.variant for s in sites)
    assert len({s.id for s in sites}) == 2


def test_unknown_message_is_a_hole_never_invented_text() -> None:
    site = only(
        index_snippet("""
        def f(err):
            raise RuntimeError(describe(err))
    """)
    )
    assert site.message is not None
    assert site.message.parts == (Hole(expr="describe(err)"),)


def test_literal_braces_are_doubled_in_text() -> None:
    site = only(
        index_snippet("""
        def f():
            raise KeyError("use {name} placeholders")
    """)
    )
    assert site.message is not None
    assert site.message.text == "use {{name}} placeholders"
    assert site.message.static


# -- kinds of sites ------------------------------------------------------------------------


def test_bare_class_raise_from_and_reraise() -> None:
    sites = index_snippet("""
        def f(x):
            try:
                x()
            except KeyError as err:
                raise ValueError("wrapped") from err
            except OSError:
                raise
            raise StopIteration
    """)
    kinds = [(s.kind, s.exception.name, s.cause) for s in sites]
    assert kinds == [
        ("raise", "ValueError", "err"),
        ("reraise", "OSError", None),
        ("raise", "StopIteration", None),
    ]
    assert sites[2].message is None


def test_exception_built_by_a_factory_function() -> None:
    site = only(
        index_snippet("""
        def check(response):
            message = f"{response.status} Client Error.\\n\\nCannot access gated repo."
            raise _format(GatedRepoError, message, response)
    """)
    )
    assert site.exception.name == "GatedRepoError"
    assert site.message is not None
    assert site.message.text == "{response.status} Client Error.\n\nCannot access gated repo."


# -- the class raised: always a class, as the code means it --------------------------------


def classes(code: str) -> list[tuple[str, str]]:
    """(exception.name, exception.qualname) of each site of a snippet, in line order."""
    return [(s.exception.name, s.exception.qualname) for s in index_snippet(code)]


def test_a_class_raised_is_named_as_written() -> None:
    assert classes("""
        from pkg import errors

        def f(x):
            if x:
                raise ValueError("x")
            raise errors.MyError()
    """) == [("ValueError", "builtins.ValueError"), ("errors.MyError", "pkg.errors.MyError")]


def test_a_classmethod_constructor_raises_its_class() -> None:
    # pydantic's `raise PydanticUndefinedAnnotation.from_name_error(e)`: a class of the
    # tree, and one from elsewhere (CapWords); the message is not read into the class's
    sites = index_snippet("""
        from pydantic_core import ValidationError

        class UndefinedAnnotation(Exception):
            def __init__(self, name, message):
                self.name = name
                super().__init__(message)

            @classmethod
            def from_name_error(cls, name_error):
                return cls(name=name_error.name, message=str(name_error))

        def f(ns):
            try:
                ns.resolve()
            except NameError as e:
                raise UndefinedAnnotation.from_name_error(e) from e
            raise ValidationError.from_exception_data("Model", [])
    """)
    own, other = sites
    assert (own.exception.name, own.exception.qualname) == (
        "UndefinedAnnotation",
        "pkg.mod.UndefinedAnnotation",
    )
    assert own.exception.bases == ("builtins.Exception",)
    assert (other.exception.name, other.exception.qualname) == (
        "ValidationError",
        "pydantic_core.ValidationError",
    )


def test_a_function_that_returns_an_exception_raises_its_class() -> None:
    # huggingface_hub's `raise _bucket_batch_error(...)` (a local it returns), and one whose
    # returns differ, where its annotation names their base
    assert classes("""
        class TextGenerationError(Exception): ...
        class OverloadedError(TextGenerationError): ...
        class UnknownError(TextGenerationError): ...
        class BucketError(Exception): ...

        def _bucket_error(failures):
            error = BucketError(f"{len(failures)} failed")
            error.failures = failures
            return error

        def _parse_error(kind) -> TextGenerationError:
            if kind == "overloaded":
                return OverloadedError(kind)
            return UnknownError(kind)

        def send(failures, kind):
            if failures:
                raise _bucket_error(failures)
            raise _parse_error(kind)
    """) == [
        ("BucketError", "pkg.mod.BucketError"),
        ("TextGenerationError", "pkg.mod.TextGenerationError"),
    ]


def test_a_method_or_property_that_returns_an_exception_through_self() -> None:
    # vllm's `raise self.dead_error` (a property) and `raise self._format_exception(e)`
    # (the annotation, for returns of two classes)
    assert classes("""
        class EngineDeadError(Exception): ...

        class Client:
            @property
            def dead_error(self) -> BaseException:
                return EngineDeadError()

            def _format_exception(self, e: Exception) -> Exception:
                return EngineDeadError() if self.dead else e

            def check(self, e):
                if self.errored:
                    raise self.dead_error
                raise self._format_exception(e) from None
    """) == [("EngineDeadError", "pkg.mod.EngineDeadError"), ("Exception", "builtins.Exception")]


def test_a_factory_that_takes_the_class_builds_the_one_passed_else_its_default() -> None:
    # tomlkit's `Parser.parse_error(self, exception=ParseError, *args)`
    assert classes("""
        class ParseError(ValueError): ...
        class InvalidControlChar(ParseError): ...
        class EmptyKey(ParseError): ...

        class Parser:
            def parse_error(self, exception=ParseError, *args):
                return exception(self._idx, *args)

            def parse(self, c, exception: type[ParseError] | None = None):
                if c == "\\r":
                    raise self.parse_error(InvalidControlChar, c, "documents")
                if c == "=":
                    raise self.parse_error(exception=EmptyKey)
                if c == "":
                    raise self.parse_error(exception)  # a variable, of its annotation
                raise self.parse_error()
    """) == [
        ("InvalidControlChar", "pkg.mod.InvalidControlChar"),
        ("EmptyKey", "pkg.mod.EmptyKey"),
        ("ParseError", "pkg.mod.ParseError"),
        ("ParseError", "pkg.mod.ParseError"),
    ]


def test_a_raised_name_is_the_class_it_was_assigned_bound_or_annotated() -> None:
    assert classes("""
        def f(items, error_cls: type[LookupError], redirect=KeyError):
            error = KeyError("missing")
            if not items:
                raise error
            last: OSError | None = None
            for item in items:
                try:
                    item()
                except ImportError as e:
                    if item.required:
                        raise e
                    last = e
                    made = make_error()
            if items[0]:
                raise error_cls("no such item")
            if items[1]:
                raise redirect("moved")
            if last is not None:
                raise last
            raise made
    """) == [
        ("KeyError", "builtins.KeyError"),
        ("ImportError", "builtins.ImportError"),
        ("LookupError", "builtins.LookupError"),  # what every call passes
        ("KeyError", "builtins.KeyError"),  # its default
        ("OSError", "builtins.OSError"),  # `e` says nothing here: the annotation
        ("BaseException", "builtins.BaseException"),  # made by what is not known
    ]


def test_a_handlers_tuple_raises_the_nearest_common_base() -> None:
    # builtins by Python's own bases; a class from elsewhere may have any base, so the
    # first the handler names
    assert classes("""
        import pyarrow as pa

        def f(g):
            try:
                g()
            except (TypeError, ValueError):
                raise
            except (Exception, KeyboardInterrupt):
                raise
            except (TimeoutError, OSError) as e:
                raise e
            except (pa.ArrowInvalid, ValueError):
                raise
    """) == [
        ("Exception", "builtins.Exception"),
        ("BaseException", "builtins.BaseException"),
        ("OSError", "builtins.OSError"),
        ("pa.ArrowInvalid", "pyarrow.ArrowInvalid"),
    ]


def test_what_is_known_only_at_run_time_is_a_base_exception_never_its_text() -> None:
    sites = index_snippet("""
        def f(self, e, results):
            if self.errors:
                raise self.errors[0]
            if e.cause:
                raise e.cause
            result = results.pop()
            if result:
                raise result
            raise e
    """)
    assert {(s.exception.name, s.exception.qualname, s.exception.bases) for s in sites} == {
        ("BaseException", "builtins.BaseException", ())
    }


def test_a_site_id_is_of_the_raise_as_written_not_of_its_class() -> None:
    # so that the ids of sites whose class was found by this do not change
    from errdex.identity import site_id

    site = only(
        index_snippet("""
        class ParseError(Exception): ...

        class Parser:
            def parse_error(self, exception=ParseError):
                return exception(self._idx)

            def parse(self):
                raise self.parse_error()
    """)
    )
    assert site.exception.name == "ParseError"
    assert site.id == site_id(
        package="pkg",
        file="pkg/mod.py",
        function="Parser.parse",
        exception="self.parse_error",
        message="",
        ordinal=0,
    )


def test_assert_with_message_is_a_site_and_its_test_a_negated_guard() -> None:
    sites = index_snippet("""
        def f(n):
            assert n > 0
            assert n < 10, f"n must be below 10, got {n}"
    """)
    site = only(sites)
    assert site.kind == "assert"
    assert site.exception.qualname == "builtins.AssertionError"
    assert site.guard[-1].kind == "assert" and site.guard[-1].negated
    assert site.guard[-1].test == "n < 10"


def test_raise_helper_call_is_a_site_filled_from_its_arguments() -> None:
    sites = index_snippet("""
        def _unsupported(feature, hint):
            raise ValueError(f"{feature} is not supported; {hint}")

        def fail_with(name):
            raise ValueError(f"unknown option {name!r}")

        def run(opt):
            if opt == "x":
                fail_with("x-mode")
            fail_with(opt)
    """)
    helper_sites = [s for s in sites if s.kind == "helper"]
    assert [s.message.text for s in helper_sites if s.message] == [
        'unknown option {"x-mode"!r}',
        "unknown option {opt!r}",
    ]
    first = helper_sites[0]
    assert first.location.function == "run"
    assert first.exception.qualname == "builtins.ValueError"
    assert first.guard[0].test == 'opt == "x"'


def test_method_helper_through_self() -> None:
    sites = index_snippet("""
        class Registry:
            def _raise_missing(self, name):
                raise KeyError(f"no such model: {name}")

            def get(self, name):
                if name not in self.models:
                    self._raise_missing(name)
    """)
    helper = [s for s in sites if s.kind == "helper"]
    assert only(helper).message is not None
    assert helper[0].message.text == "no such model: {name}"  # type: ignore[union-attr]
    assert helper[0].location.function == "Registry.get"


def test_method_helper_of_a_generic_base_class() -> None:
    # click's `class Choice(ParamType[V], t.Generic[V])` calling ParamType.fail
    sites = index_snippet("""
        import typing as t

        V = t.TypeVar("V")

        class ParamType(t.Generic[V]):
            def fail(self, message, param=None):
                raise ValueError(message)

        class Choice(ParamType[V], t.Generic[V]):
            def convert(self, value, param):
                if value not in self.choices:
                    self.fail(f"{value!r} is not a choice", param)
    """)
    [helper] = [s for s in sites if s.kind == "helper"]
    assert helper.message is not None and helper.message.text == "{value!r} is not a choice"
    assert helper.location.function == "Choice.convert"


# -- guards -------------------------------------------------------------------------------


def guards(code: str) -> list[tuple[str, str, bool]]:
    site = index_snippet(code)[-1]
    return [(g.kind, g.test, g.negated) for g in site.guard]


def test_if_elif_else_negate_earlier_branches() -> None:
    assert guards("""
        def f(a, b):
            if a:
                pass
            elif b > 3:
                pass
            else:
                raise ValueError("neither")
    """) == [("if", "a", True), ("elif", "b > 3", True)]


def test_early_exits_are_negated_guards() -> None:
    assert guards("""
        def f(items, x):
            if x is None:
                return
            for item in items:
                if not item:
                    continue
                if item > x:
                    raise ValueError("too big")
    """) == [
        ("early-exit", "x is None", True),
        ("for", "item in items", False),
        ("early-exit", "not item", True),
        ("if", "item > x", False),
    ]


def test_while_with_try_except_finally_match() -> None:
    assert guards("""
        def f(conn, cmd):
            while conn.open:
                with conn.lock() as lock:
                    try:
                        conn.send()
                    except (OSError, TimeoutError) as err:
                        match cmd:
                            case {"retry": n} if n > 3:
                                raise RuntimeError("gave up")
    """) == [
        ("while", "conn.open", False),
        ("with", "conn.lock() as lock", False),
        ("except", "(OSError, TimeoutError) as err", False),
        ("match", "cmd", False),
        ("case", '{"retry": n} if n > 3', False),
    ]


def test_try_body_and_finally() -> None:
    assert guards("""
        def f(x):
            try:
                raise ValueError("in body")
            except KeyError:
                pass
    """) == [("try", "KeyError", False)]
    assert (
        guards("""
        def f(x):
            try:
                pass
            finally:
                raise ValueError("in finally")
    """)[-1][0]
        == "finally"
    )


def test_guard_starts_at_the_nested_function() -> None:
    site = index_snippet("""
        def outer(a):
            if a:
                def inner(b):
                    if b:
                        raise ValueError("inner")
                return inner
    """)[0]
    assert site.location.function == "outer.inner"
    assert [g.test for g in site.guard] == ["b"]


def test_unknown_statement_fails_loudly_in_strict_mode() -> None:
    import ast

    from errdex.extract.visitor import FileVisitor

    class Weird(ast.stmt):
        _fields = ()

    tree = ast.Module(body=[Weird(lineno=1, col_offset=0)], type_ignores=[])
    with pytest.raises(UnknownStatement, match="no rule for Weird"):
        FileVisitor("", "m.py", "m", strict=True).visit_module(tree)


# -- inputs ---------------------------------------------------------------------------------


def test_dataclass_field_with_attribute_docstring_and_default() -> None:
    site = only(
        index_snippet('''
        from dataclasses import dataclass, field

        @dataclass
        class Config:
            budget: int = 0
            """Max items per batch. 0 means auto-infer."""
            names: list[str] = field(default_factory=list)

            def __post_init__(self):
                if self.budget < 0 and self.names:
                    raise ValueError("budget must be non-negative")
    ''')
    )
    budget, names = site.inputs
    assert (budget.name, budget.expr, budget.kind, budget.owner) == (
        "budget",
        "self.budget",
        "field",
        "Config",
    )
    assert (budget.type, budget.default) == ("int", "0")
    assert budget.doc == "Max items per batch. 0 means auto-infer."
    assert budget.location is not None and budget.location.line == 6
    assert names.default == "list()"


def test_pydantic_field_description_and_property() -> None:
    site = only(
        index_snippet('''
        class Settings(BaseModel):
            port: int = Field(8000, description="Port to listen on.")

            @property
            def public(self) -> bool:
                """Whether the server listens on all interfaces."""
                return True

            def check(self):
                if self.public and self.port < 1024:
                    raise ValueError(f"port {self.port} needs root")
    ''')
    )
    by_name = {i.name: i for i in site.inputs}
    assert by_name["port"].default == "8000" and by_name["port"].doc == "Port to listen on."
    assert by_name["public"].kind == "property" and by_name["public"].type == "bool"


def test_parameters_with_google_numpy_and_rest_docs() -> None:
    sites = index_snippet('''
        def google(size: int = 3):
            """Do it.

            Args:
                size: How many, at most 10.
            """
            if size > 10:
                raise ValueError("size")

        def numpy(size=3):
            """Do it.

            Parameters
            ----------
            size : int
                How many, numpy style.
            """
            if size > 10:
                raise ValueError("size")

        def rest(size=3):
            """Do it.

            :param size: How many, reST style.
            """
            if size > 10:
                raise ValueError("size")
    ''')
    docs = [s.inputs[0].doc for s in sites]
    assert docs == ["How many, at most 10.", "How many, numpy style.", "How many, reST style."]
    first = sites[0].inputs[0]
    assert (first.kind, first.type, first.default, first.owner) == (
        "parameter",
        "int",
        "3",
        "google",
    )


def test_a_docstring_the_doc_parser_chokes_on_is_no_doc() -> None:
    site = only(
        index_snippet("""
        def f(size):
            \"\"\"Do it.

            : : odd
            \"\"\"
            if size > 1:
                raise ValueError("too big")
    """)
    )
    assert site.inputs[0].name == "size" and site.inputs[0].doc is None


def test_module_constant_input() -> None:
    site = only(
        index_snippet('''
        MAX_LEN = 512
        """Longest prompt we accept."""

        def check(prompt):
            if len(prompt) > MAX_LEN:
                raise ValueError(f"prompt longer than {MAX_LEN}")
    ''')
    )
    const = next(i for i in site.inputs if i.name == "MAX_LEN")
    assert (const.kind, const.default, const.doc) == (
        "constant",
        "512",
        "Longest prompt we accept.",
    )


# -- locals bound by unpacking: each name its own part of the value -------------------------


def locals_of(code: str) -> dict[str, tuple[str | None, tuple[str, ...]]]:
    """Each local input of the snippet's one site: its shown default and its sources."""
    site = only(index_snippet(code))
    return {i.name: (i.default, i.sources) for i in site.inputs if i.kind == "local"}


def test_unpacked_attribute_gives_each_name_its_element() -> None:
    site = only(
        index_snippet("""
        def f(input_tensor):
            m, n = input_tensor.shape
            if m > 4:
                raise ValueError(f"{m}")
    """)
    )
    by_name = {i.name: i for i in site.inputs}
    assert set(by_name) == {"m", "input_tensor"}
    m = by_name["m"]
    assert (m.kind, m.default, m.sources) == ("local", "input_tensor.shape[0]", ("input_tensor",))
    assert m.default_tree is not None and m.default_tree.source() == "input_tensor.shape[0]"


def test_unpacked_call_gives_each_name_its_element() -> None:
    found = locals_of("""
        def f(match):
            color, style = match.groups()
            if color != style:
                raise ValueError(f"{color} {style}")
    """)
    assert found == {
        "color": ("match.groups()[0]", ("match",)),
        "style": ("match.groups()[1]", ("match",)),
    }


def test_unpacked_tuple_pairs_element_by_element() -> None:
    found = locals_of("""
        def f(x, y):
            a, b = x, y
            if b > a:
                raise ValueError(f"{a} {b}")
    """)
    assert found == {"a": ("x", ("x",)), "b": ("y", ("y",))}


def test_unpacked_starred_gets_the_slice_and_later_names_count_from_the_end() -> None:
    found = locals_of("""
        def f(xs):
            first, *rest, last = xs
            if first > last or rest:
                raise ValueError(f"{first} {rest} {last}")
    """)
    assert found == {
        "first": ("xs[0]", ("xs",)),
        "rest": ("xs[1:-1]", ("xs",)),
        "last": ("xs[-1]", ("xs",)),
    }


def test_unpacked_nested_target_recurses() -> None:
    found = locals_of("""
        def f(p, q):
            (a, b), c = p
            (d, e), g = (q, p), 3
            if a > c or b > e:
                raise ValueError(f"{a} {b} {e}")
    """)
    assert found == {
        "a": ("p[0][0]", ("p",)),
        "c": ("p[1]", ("p",)),
        "b": ("p[0][1]", ("p",)),
        "e": ("p", ("p",)),
    }


def test_a_swap_keeps_the_whole_value_so_earlier_values_are_followed() -> None:
    found = locals_of("""
        def f(p, q):
            a, b = p, q
            a, b = b, a
            if a > b:
                raise ValueError(f"{a} {b}")
    """)
    # each part alone (a from b, b from a) would lead round in a circle, never to p or q
    assert found == {"a": ("b, a", ("b", "p")), "b": ("b, a", ("a", "q"))}


def test_unpacked_with_target_gives_each_name_its_element() -> None:
    found = locals_of("""
        def f(path):
            with opened(path) as (handle, size):
                if size > 9:
                    raise ValueError(f"{size}")
    """)
    assert found == {"size": ("opened(path)[1]", ("path",))}


def test_single_name_assignment_keeps_the_whole_value() -> None:
    site = only(
        index_snippet("""
        def f(input_tensor):
            shape = input_tensor.shape
            if shape[0] > 4:
                raise ValueError(f"{shape}")
    """)
    )
    (shape,) = (i for i in site.inputs if i.kind == "local")
    assert (shape.default, shape.sources) == ("input_tensor.shape", ("input_tensor",))
    assert shape.default_tree is not None and shape.default_tree.source() == "input_tensor.shape"


def test_first_of_parse_known_args_is_still_the_namespace() -> None:
    site = only(
        index_snippet("""
        import argparse

        def main():
            args, rest = argparse.ArgumentParser().parse_known_args()
            if args.port < 1:
                raise ValueError(f"{args.port}")
    """)
    )
    port = next(i for i in site.inputs if i.expr == "args.port")
    assert (port.kind, port.owner) == ("attribute", "argparse.Namespace")


def test_enumerate_index_counts_and_item_is_of_the_sequence() -> None:
    found = locals_of("""
        def f(xs, ys):
            for i, x in enumerate(xs):
                for j, y in enumerate(ys, start=1):
                    if x > i or y > j:
                        raise ValueError(f"{i} {x} {j} {y}")
    """)
    assert found == {
        "x": ("an item of xs", ("xs",)),
        "i": ("an item of range(len(xs))", ("xs",)),
        "y": ("an item of ys", ("ys",)),
        "j": ("an item of range(1, len(ys) + 1)", ("ys",)),
    }


def test_zip_gives_each_name_an_item_of_its_argument() -> None:
    found = locals_of("""
        def f(names, sizes):
            for i, (name, size) in enumerate(zip(names, sizes, strict=True)):
                if size > i:
                    raise ValueError(f"{name}: {size}")
    """)
    assert found["name"] == ("an item of names", ("names",))
    assert found["size"] == ("an item of sizes", ("sizes",))


def test_items_gives_the_key_of_keys_and_the_value_of_values() -> None:
    found = locals_of("""
        def f(limits):
            for key, value in limits.items():
                if value < 0:
                    raise ValueError(f"{key} is {value}")
    """)
    assert found == {
        "value": ("an item of limits.values()", ("limits",)),
        "key": ("an item of limits.keys()", ("limits",)),
    }


def test_unpacking_an_item_of_an_unknown_iterable_keeps_the_whole_iterable() -> None:
    found = locals_of("""
        def f(pairs):
            for low, high in pairs:
                if low > high:
                    raise ValueError(f"{low} > {high}")
    """)
    assert found == {
        "low": ("an item of pairs", ("pairs",)),
        "high": ("an item of pairs", ("pairs",)),
    }


# -- across files ---------------------------------------------------------------------------


def test_exceptions_resolve_through_imports_to_qualified_names_and_bases(tmp_path: Path) -> None:
    sites = index_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from .errors import ConfigError\n",
            "pkg/errors.py": """
            class BaseError(Exception):
                pass

            class ConfigError(BaseError, ValueError):
                def __init__(self, code, message):
                    super().__init__(message)
        """,
            "pkg/config.py": """
            import pkg.errors as errors
            from pkg import ConfigError
            from .base import Base

            class Config(Base):
                def check(self):
                    if self.size > 3:
                        raise ConfigError(17, f"size {self.size} too big")
                    raise errors.BaseError("plain")
        """,
            "pkg/base.py": '''
            class Base:
                size: int = 1
                """How big."""
        ''',
        },
    )
    own, plain = sorted(
        (s for s in sites if s.location.file == "pkg/config.py"), key=lambda s: s.location.line
    )
    assert own.exception.qualname == "pkg.errors.ConfigError"
    assert own.exception.bases == (
        "pkg.errors.BaseError",
        "builtins.ValueError",
        "builtins.Exception",
    )
    assert own.message is not None and own.message.text == "size {self.size} too big"
    (size,) = own.inputs
    assert (size.owner, size.doc) == ("Base", "How big.")
    assert size.location is not None and size.location.file == "pkg/base.py"
    assert plain.exception.qualname == "pkg.errors.BaseError"


def test_a_factory_or_a_common_base_of_another_module(tmp_path: Path) -> None:
    # tomlkit: Parser.parse_error hands its class on to Source.parse_error; the common base
    # of two of the tree's classes whose own bases leave the tree (HfHubHTTPError's)
    sites = index_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": """
            import httpx

            class ParseError(ValueError): ...
            class UnexpectedChar(ParseError): ...
            class HubError(httpx.HTTPError, OSError): ...
            class RevisionNotFound(HubError): ...
            class EntryNotFound(Exception): ...
            class RemoteEntryNotFound(HubError, EntryNotFound): ...
        """,
            "pkg/source.py": """
            from pkg.errors import ParseError

            class Source:
                def parse_error(self, exception=ParseError, *args):
                    return exception(self.line, self.col, *args)
        """,
            "pkg/parser.py": """
            from pkg.errors import ParseError, RemoteEntryNotFound, RevisionNotFound
            from pkg.errors import UnexpectedChar
            from pkg.source import Source

            class Parser:
                def __init__(self, text: str):
                    self._src: Source = Source(text)

                def parse_error(self, exception=ParseError, *args) -> ParseError:
                    return self._src.parse_error(exception, *args)

                def parse(self, c):
                    if c == "=":
                        raise self.parse_error(UnexpectedChar, c)
                    if c == "[":
                        raise self._src.parse_error(UnexpectedChar)
                    try:
                        self.fetch()
                    except (RevisionNotFound, RemoteEntryNotFound):
                        raise
        """,
        },
    )
    assert [
        (s.exception.name, s.exception.qualname, s.exception.bases[:1])
        for s in sorted(sites, key=lambda s: s.location.line)
        if s.location.file == "pkg/parser.py"
    ] == [
        ("UnexpectedChar", "pkg.errors.UnexpectedChar", ("pkg.errors.ParseError",)),
        ("UnexpectedChar", "pkg.errors.UnexpectedChar", ("pkg.errors.ParseError",)),
        ("HubError", "pkg.errors.HubError", ("httpx.HTTPError",)),
    ]


def test_helper_defined_in_another_module(tmp_path: Path) -> None:
    sites = index_tree(
        tmp_path,
        {
            "pkg/_checks.py": """
            def reject(value):
                raise TypeError(f"cannot use {value!r} here")
        """,
            "pkg/api.py": """
            from pkg._checks import reject

            def api(v):
                if not isinstance(v, int):
                    reject(v)
        """,
        },
    )
    helper = only([s for s in sites if s.kind == "helper"])
    assert helper.location.file == "pkg/api.py" and helper.location.line == 6
    assert helper.message is not None and helper.message.text == "cannot use {v!r} here"


def test_ids_are_stable_when_lines_move_and_ordinals_separate_twins(tmp_path: Path) -> None:
    code = """
        def f(x):
            if x:
                raise ValueError("same")
            raise ValueError("same")
    """
    before = index_snippet(code)
    after = index_snippet("\n\n\n# moved down\n" + textwrap.dedent(code))
    assert [s.id for s in before] == [s.id for s in after]
    assert len({s.id for s in before}) == 2
    assert before[0].location.line != after[0].location.line


def test_parallel_and_serial_give_identical_sites(tmp_path: Path) -> None:
    files = {
        f"pkg/m{i}.py": f"""
            def f{i}(x):
                if x > {i}:
                    raise ValueError(f"x over {i}: {{x}}")
        """
        for i in range(60)
    }
    files["tests/test_m.py"] = """
        import pytest
        from pkg.m3 import f3

        def test_over():
            with pytest.raises(ValueError, match="x over 3"):
                f3(4)
    """
    serial = extract_tree(tmp_path / "serial", files, workers=1)
    parallel = extract_tree(tmp_path / "parallel", files, workers=2)  # tests scanned in a worker
    assert serial.sites == parallel.sites and len(serial.sites) == 60
    assert serial.tests == parallel.tests
    assert [t.path for t in serial.tests] == ["tests/test_m.py"]


def extract_tree(root: Path, files: dict[str, str], *, workers: int) -> Extraction:
    write_tree(root, files)
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    return extract(snapshot, scan(snapshot, NoCache()), NoCache(), workers=workers)


# -- bad files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (b'print "python 2"\n', "does not parse"),
        (b"x = 1\x00\n", "null bytes"),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "encoding"),
        (b"\xff\xfe\xfa not utf-8\n", "cannot decode"),
        (b"x = " + b"(" * 300_000 + b")" * 300_000 + b"\n", "nested"),
    ],
)
def test_unusable_file_is_skipped_with_a_reason(source: bytes, reason: str) -> None:
    with pytest.raises(Skip, match=reason):
        parse_file(source, "bad.py", "bad")


def test_huge_file_is_skipped() -> None:
    with pytest.raises(Skip, match="over the"):
        parse_file(b"x = 1\n" * 2_000_000, "big.py", "big")


def test_bad_files_are_recorded_and_the_rest_indexed(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/good.py").write_text('def f():\n    raise ValueError("fine")\n')
    (tmp_path / "pkg/py2.py").write_text('print "old"\n')
    (tmp_path / "pkg/locked.py").write_text('raise ValueError("hidden")\n')
    os.chmod(tmp_path / "pkg/locked.py", 0)
    snapshot = Snapshot(package="pkg", version="1", root=tmp_path, source=str(tmp_path))
    cache = NoCache()
    result = extract(snapshot, scan(snapshot, cache), cache)
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons["pkg/py2.py"].startswith("does not parse")
    if os.geteuid() != 0:  # root reads any file
        assert reasons["pkg/locked.py"].startswith("cannot read")
    assert next(s.message.text for s in result.sites if s.message) == "fine"


def test_overlapping_code_paths_count_each_file_once(tmp_path: Path) -> None:
    from errdex.extract.files import python_files

    (tmp_path / "pkg/sub").mkdir(parents=True)
    (tmp_path / "pkg/a.py").write_text("")
    (tmp_path / "pkg/sub/b.py").write_text("")
    assert list(python_files(tmp_path, ("pkg/sub/", "pkg"))) == ["pkg/sub/b.py", "pkg/a.py"]


@pytest.mark.parametrize(
    ("path", "says"), [("../..", "leads outside"), ("nope", "no file or folder")]
)
def test_code_paths_must_lie_inside_the_tree(tmp_path: Path, path: str, says: str) -> None:
    from errdex.errors import SourceError
    from errdex.index import index_source
    from errdex.store import open_store

    (tmp_path / "pkg").mkdir()
    with pytest.raises(SourceError, match=says):
        index_source(str(tmp_path / "pkg"), open_store(tmp_path / "db.sqlite"), code_paths=(path,))


def test_indexed_code_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    index_tree(
        tmp_path,
        {
            "pkg/__init__.py": f'open({str(marker)!r}, "w").write("x")\nraise SystemExit("boom")\n',
        },
    )
    assert not marker.exists()


# -- node kinds -------------------------------------------------------------------------
# New Python syntax must not drop sites silently: these fail on a Python that adds a
# statement or expression kind until it has an example here (and a rule where needed).

EVERY_STATEMENT = """
import os
from os import path
x: int = 1
y = 2
y += 1
del y
assert x, "x must be set"

async def coroutine(items, lock):
    async for item in items:
        raise ValueError("in async for")
    async with lock:
        raise ValueError("in async with")

def function(a, items):
    global x
    def inner():
        nonlocal a
    for item in items:
        if item:
            continue
        break
    while a:
        pass
        raise ValueError("in while")
    with open(a) as handle:
        raise ValueError("in with")
    match a:
        case 1:
            raise ValueError("in case")
    try:
        raise ValueError("in try")
    except* OSError:
        raise ValueError("in except*")
    try:
        return a
    except KeyError:
        raise
    finally:
        print(a)

class Config:
    size = 1
    if size:
        raise ValueError("in a class body")
"""
if sys.version_info >= (3, 12):
    EVERY_STATEMENT += "type Alias = list[int]\n"


def test_every_statement_kind_of_this_python_is_walked() -> None:
    written = {type(node).__name__ for node in ast.walk(ast.parse(EVERY_STATEMENT))}
    missing = {kind.__name__ for kind in ast.stmt.__subclasses__()} - written
    assert not missing, f"new statement kinds {missing}: add them above, and a rule to FileVisitor"
    sites = index_snippet(EVERY_STATEMENT)  # strict: a statement kind without a rule raises
    assert [(s.message.text if s.message else s.kind, s.guard[-1].kind) for s in sites] == [
        ("x must be set", "assert"),
        ("in async for", "for"),
        ("in async with", "with"),
        ("in while", "while"),
        ("in with", "with"),
        ("in case", "case"),
        ("in try", "try"),
        ("in except*", "except"),
        ("reraise", "except"),
        ("in a class body", "if"),
    ]


# One example of every expression kind; a slice, a starred argument and a formatted
# value exist only inside another expression, so their examples hold them.
EXPRESSIONS = {
    "BoolOp": "a and b",
    "NamedExpr": "(n := len(a))",
    "BinOp": "a + b",
    "UnaryOp": "-a",
    "Lambda": "lambda: a",
    "IfExp": "a if b else c",
    "Dict": "{a: b}",
    "Set": "{a, b}",
    "ListComp": "[x for x in a]",
    "SetComp": "{x for x in a}",
    "DictComp": "{x: b for x in a}",
    "GeneratorExp": "(x for x in a)",
    "Await": "await a",
    "Yield": "(yield a)",
    "YieldFrom": "(yield from a)",
    "Compare": "a < b <= c",
    "Call": "f(a, k=c)",
    "FormattedValue": "f'{a!r:>{b}}'",
    "JoinedStr": "f'got {a}'",
    "Constant": "'text'",
    "Attribute": "self.a",
    "Subscript": "a[b]",
    "Starred": "f(*a)",
    "Name": "a",
    "List": "[a, b]",
    "Tuple": "(a, b)",
    "Slice": "a[1:b]",
}


def every_expression_module() -> str:
    """A function per expression kind whose guard and message are that expression."""
    missing = {kind.__name__ for kind in ast.expr.__subclasses__()} - set(EXPRESSIONS)
    assert not missing, f"new expression kinds {missing}: add an example of each to EXPRESSIONS"
    functions = []
    for kind, expr in EXPRESSIONS.items():
        assert kind in {type(n).__name__ for n in ast.walk(ast.parse(expr, mode="eval"))}
        header = "async def" if kind == "Await" else "def"
        functions.append(
            f"{header} use_{kind}(self, a, b, c, f):\n"
            f"    if {expr}:\n"
            f"        raise ValueError({expr})\n"
        )
    return "\n\n".join(functions)


def test_every_expression_kind_is_a_guard_and_a_message() -> None:
    sites = index_snippet(every_expression_module())
    assert [s.location.function for s in sites] == [f"use_{kind}" for kind in EXPRESSIONS]
    for site, expr in zip(sites, EXPRESSIONS.values(), strict=True):
        assert site.message is not None and site.message.parts, expr
        assert [(g.kind, g.test in expr) for g in site.guard] == [("if", True)], expr
    constant = sites[list(EXPRESSIONS).index("Constant")].message
    assert constant is not None and constant.text == "text"


def test_templates_take_every_expression_node() -> None:
    from errdex.extract.templates import TemplateBuilder

    for expr in EXPRESSIONS.values():
        for node in ast.walk(ast.parse(expr, mode="eval")):
            if isinstance(node, ast.expr):
                assert TemplateBuilder().build(node).parts, ast.dump(node)


# -- module names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("pkg/a.py", "pkg.a"),
        ("pkg/sub/__init__.py", "pkg.sub"),
        ("src/pkg/a/__init__.py", "pkg.a"),
        ("src.py", "src"),
        ("six.py", "six"),
        ("pkg/my__init__.py", "pkg.my__init__"),
        ("__init__.py", ""),  # a tree that is itself a package: no name relative to it
    ],
)
def test_module_name_of_a_path(path: str, module: str) -> None:
    from errdex.extract.files import module_name

    assert module_name(path) == module


def test_relative_imports_start_from_the_package(tmp_path: Path) -> None:
    sites = index_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from .errors import Bad\nraise Bad('from init')\n",
            "pkg/my__init__.py": "from .errors import Bad\nraise Bad('from a module')\n",
            "pkg/errors.py": "class Bad(Exception):\n    pass\n",
        },
    )
    assert {s.exception.qualname for s in sites} == {"pkg.errors.Bad"}


def test_a_damaged_cache_entry_is_parsed_again_beside_the_workers(tmp_path: Path) -> None:
    # 50 files: a parallel parse (extract.pipeline._PARALLEL_FROM). On the second run one
    # file's cached facts are damaged and the rest are gone: the workers parse 49 while
    # this process unpacks the one it has, fails, and parses it after all
    files = {"pkg/__init__.py": ""}
    code = "def check_{n}(x):\n    if x < {n}:\n        raise ValueError('low {n}')\n"
    files.update((f"pkg/m{n}.py", code.format(n=n)) for n in range(49))
    root = write_tree(tmp_path / "tree", files)
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    path = tmp_path / "facts.sqlite"
    cache = SqliteFactsCache(path)
    first = extract(snapshot, scan(snapshot, cache), cache, workers=2)
    cache.close()
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DELETE FROM facts WHERE key NOT LIKE '%:pkg/m7.py:%'")
        assert conn.execute("UPDATE facts SET data = x'00'").rowcount == 1
    cache = SqliteFactsCache(path)
    again = extract(snapshot, scan(snapshot, cache), cache, workers=2)
    cache.close()
    assert (first.parsed, again.parsed) == (50, 50)
    assert again.sites == first.sites and len(again.sites) == 49
    cache = SqliteFactsCache(path)  # and the damaged entry was written anew
    assert extract(snapshot, scan(snapshot, cache), cache).parsed == 0
    cache.close()


def test_a_helpers_call_keeps_the_text_it_passes_when_the_class_builds_text(
    tmp_path: Path,
) -> None:
    # click's shape: ParamType.fail raises BadParameter(message, ...), whose __init__
    # chain keeps `message`; each call of fail is a site with the text that call passes
    sites = index_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/exceptions.py": """
                class ClickException(Exception):
                    def __init__(self, message):
                        super().__init__(message)
                        self.message = message

                    def __str__(self):
                        return self.message


                class UsageError(ClickException):
                    def __init__(self, message, ctx=None):
                        super().__init__(message)
                        self.ctx = ctx


                class BadParameter(UsageError):
                    def __init__(self, message, ctx=None, param=None):
                        super().__init__(message, ctx)
                        self.param = param
            """,
            "pkg/types.py": """
                from pkg.exceptions import BadParameter


                class ParamType:
                    def fail(self, message, param=None, ctx=None):
                        raise BadParameter(message, ctx=ctx, param=param)


                class Choice(ParamType):
                    def convert(self, value, param, ctx):
                        if value not in ("fast", "slow"):
                            self.fail(f"{value!r} is not one of 'fast', 'slow'.", param, ctx)
            """,
        },
    )
    call = next(s for s in sites if s.kind == "helper")
    assert call.message is not None
    assert call.message.text == "{value!r} is not one of 'fast', 'slow'."
