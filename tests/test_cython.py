# Cython sources (.pyx, .pxd, .pxi): read as data (rewritten for `ast`, never compiled or
# imported), their raises and asserts sites like Python's, with `location.language`
# "cython"; found again from a message and from a traceback, whose frame Cython writes
# with the .pyx file and line; and pandas 3.1.1's own .pyx files, every `raise` of them.
from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import textwrap
import tokenize
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import errdex
from errdex.extract import Extraction, scan
from errdex.extract.cache import NoCache
from errdex.extract.cython import _parse
from errdex.extract.files import module_name, walk_files
from errdex.extract.link import Linker
from errdex.extract.parse import Skip, parse_file
from errdex.extract.pipeline import extract
from errdex.hook import _dists
from errdex.index import index_source
from errdex.match import Matcher
from errdex.model import ErrorSite, Snapshot
from errdex.store import Store, open_store
from tests.conftest import require_pypi, write_tree
from tests.web_support import running


def cython_sites(code: str, path: str = "pkg/_lib.pyx") -> list[ErrorSite]:
    """The sites of one Cython file given as source text (dedented), in line order."""
    source = textwrap.dedent(code).encode()
    facts = parse_file(source, path, module_name(path), strict=True)

    def revisit(rel: str, mod: str, lines: frozenset[int]) -> object:
        return parse_file(source, rel, mod, want_calls=lines)

    return list(Linker("pkg", [facts], revisit).sites())  # type: ignore[arg-type]


def by_message(sites: list[ErrorSite]) -> dict[str, ErrorSite]:
    return {s.message.text: s for s in sites if s.message is not None}


def line_of(code: str, text: str) -> int:
    """The line (from 1) of the first line of dedented `code` holding `text`."""
    lines = textwrap.dedent(code).split("\n")
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def inputs(site: ErrorSite) -> dict[str, tuple[str, str | None, str | None]]:
    return {i.name: (i.kind, i.type, i.default) for i in site.inputs}


# -- snippets ------------------------------------------------------------------------------

CLASSES = """\
cimport cython
from libc.stdint cimport int64_t

cdef class Reader:
    cdef public int size
    cdef int _hidden

    def __cinit__(self, int size, str name="reader"):
        if size < 0:
            raise ValueError(f"size must be non-negative, got {size}")
        self.size = size

    cpdef check(self, object value):
        if value is None:
            raise TypeError("value is required")

    cdef int _step(self, int64_t n) except -1:
        if n > self.size:
            raise IndexError(f"step {n} is past the end")
        return 0


@cython.boundscheck(False)
cdef inline int64_t clamp(int64_t x, int64_t low=0) noexcept:
    if x < low:
        raise OverflowError("below the floor")
    return x
"""


def test_cdef_and_cpdef_functions_and_classes() -> None:
    sites = by_message(cython_sites(CLASSES))
    size = sites["size must be non-negative, got {size}"]
    assert size.location.language == "cython"
    assert (size.location.file, size.location.function) == ("pkg/_lib.pyx", "Reader.__cinit__")
    assert size.location.line == line_of(CLASSES, "raise ValueError")
    assert size.exception.qualname == "builtins.ValueError"
    assert [g.test for g in size.guard] == ["size < 0"]
    assert inputs(size)["size"] == ("parameter", "int", None)
    assert sites["value is required"].location.function == "Reader.check"
    step = sites["step {n} is past the end"]
    assert step.location.function == "Reader._step"
    assert inputs(step)["n"] == ("parameter", "int64_t", None)
    floor = sites["below the floor"]
    assert floor.location.function == "clamp"
    assert floor.location.line == line_of(CLASSES, "below the floor")
    assert inputs(floor) == {
        "x": ("parameter", "int64_t", None),
        "low": ("parameter", "int64_t", "0"),
    }
    # the snippet is the file's own text, Cython and all
    assert any("cdef inline int64_t clamp" in line for line in floor.snippet.lines)


def test_a_cdef_class_keeps_its_public_attributes_only() -> None:
    facts = parse_file(CLASSES.encode(), "pkg/_lib.pyx", "pkg._lib")
    (reader,) = facts.classes
    assert [(m.name, m.type) for m in reader.members] == [("size", "int")]
    assert facts.imports == (("cython", "cython"), ("int64_t", "libc.stdint.int64_t"))


TYPED = """\
import numpy as np
cimport numpy as cnp

def take(cnp.int64_t[:] values, const char *name, list items not None,
         bint strict=False, Py_ssize_t n=-1, *args, **kwargs):
    cdef:
        Py_ssize_t i, count = len(items)
        double *out = NULL
    if strict and count != values.shape[0]:
        raise ValueError(f"{name!r}: {count} items for {values.shape[0]} values")
    for i in range(count):
        if items[i] is None:
            raise KeyError(i)
"""


def test_typed_parameters_count_as_parameters() -> None:
    site = by_message(cython_sites(TYPED))["{name!r}: {count} items for {values.shape[0]} values"]
    found = inputs(site)
    assert found["strict"] == ("parameter", "bint", "False")
    assert found["name"] == ("parameter", "const char *", None)
    assert found["values"][:2] == ("parameter", "cnp.int64_t[:]")
    assert found["count"][0] == "local" and found["count"][2] == "len(items)"
    assert [g.test for g in site.guard] == ["strict and count != values.shape[0]"]
    facts = parse_file(TYPED.encode(), "pkg/_lib.pyx", "pkg._lib")
    (take,) = facts.functions
    assert take.params == ("values", "name", "items", "strict", "n")


NOGIL = """\
def total(double[:] values):
    cdef double s = 0
    cdef Py_ssize_t i, n = values.shape[0]
    with nogil:
        for i in range(n):
            s += values[i]
        if n == 0:
            with gil:
                raise ValueError("no values")
    if s != s:
        raise ValueError("the values hold NaN")
    return s
"""


def test_with_nogil_and_with_gil() -> None:
    sites = by_message(cython_sites(NOGIL))
    empty = sites["no values"]
    assert empty.location.line == line_of(NOGIL, '"no values"')
    assert [g.test for g in empty.guard] == ["n == 0"]
    assert empty.location.function == "total"
    # the block under `with gil:` always leaves: what follows runs when `n == 0` is false
    nan = sites["the values hold NaN"]
    assert [(g.test, g.negated) for g in nan.guard] == [("n == 0", True), ("s != s", False)]


EXCEPTS = """\
cdef int parse_one(const char *p) except -1:
    if p == NULL:
        raise ValueError("a null pointer")
    return 0

cdef object parse_two(object x) except *:
    raise KeyError(x)

cdef int parse_three(int x) except? -1 nogil:
    with gil:
        raise IndexError(f"{x} is out of range")

cdef double parse_four(double x) noexcept nogil:
    return <double>(<int>x)

cdef int parse_five(int x) except +:
    return x

cpdef long parse_six(str text) except -1:
    try:
        return int(text)
    except ValueError, err:
        raise TypeError(f"not a number: {text}") from err
"""


def test_except_declarations() -> None:
    sites = cython_sites(EXCEPTS)
    assert [(s.location.function, s.exception.name, s.location.line) for s in sites] == [
        ("parse_one", "ValueError", line_of(EXCEPTS, "a null pointer")),
        ("parse_two", "KeyError", line_of(EXCEPTS, "raise KeyError")),
        ("parse_three", "IndexError", line_of(EXCEPTS, "out of range")),
        ("parse_six", "TypeError", line_of(EXCEPTS, "not a number")),
    ]
    # `except ValueError, err:` is Cython's `except ValueError as err:`
    assert sites[-1].cause == "err"
    assert [g.kind for g in sites[-1].guard] == ["except"]


# Every kind of C-only statement the rewrite turns into `pass` or blanks, beside raises.
DECLARATIONS = """\
DEF LIMIT = 10
ctypedef double real_t
ctypedef fused number_t:
    int
    double

cdef extern from "point.h" nogil:
    ctypedef struct point_t:
        double x
        double y
    int distance(point_t *a, point_t *b) except -1

cdef struct Pair:
    int left, right

cdef enum Side:
    LEFT = 1
    RIGHT = 2

cdef char SEPARATOR = c','
cdef unsigned long long MASK = 0xFFFFFFFFULL
cdef int _days[12]

IF UNAME_SYSNAME == "Windows":
    NEWLINE = "\\r\\n"
ELSE:
    NEWLINE = "\\n"

def check(object p, int n):
    cdef point_t a, *b = &a
    cdef int64_t[:] view = <int64_t[:n]>(<int64_t*>NULL)
    if sizeof(point_t *) != 8 or n > LIMIT:
        raise ValueError(f"{n} is over {LIMIT}")
    if a.as != &b:
        raise RuntimeError(f"cannot reach {distance(&a, b)}")
"""


def test_c_declarations_casts_and_compile_time_names() -> None:
    sites = by_message(cython_sites(DECLARATIONS))
    over = sites["{n} is over {LIMIT}"]
    assert over.location.line == line_of(DECLARATIONS, "is over")
    assert [g.test for g in over.guard] == ["sizeof(point_t *) != 8 or n > LIMIT"]
    reach = sites["cannot reach {distance(&a, b)}"]
    # the file's text, Cython and all; the raise above leaves early when its test holds
    assert [(g.test, g.negated) for g in reach.guard] == [
        ("sizeof(point_t *) != 8 or n > LIMIT", True),
        ("a.as != &b", False),
    ]


DECORATED = """\
cimport cython

cdef class Reader:
    cdef Py_ssize_t _pos

    @cython.locals(size="unsigned int")
    cdef _read(self)

    @cython.locals(
        fin=bint,
        length=Py_ssize_t,
    )
    @cython.boundscheck(False)
    cpdef void _frame(self, bint fin, int opcode) except *

    @cython.final
    def check(self, int n):
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n}")
"""


def test_decorators_over_a_prototype_go_with_it() -> None:
    """A .pxd's `@cython.locals(...)` over a prototype (aiohttp 3.14.5's
    _websocket/reader_c.pxd has both forms): the prototype is no Python, nor are its
    decorators; a decorated function keeps its own."""
    (site,) = cython_sites(DECORATED, "pkg/_reader.pxd")
    assert site.location.line == line_of(DECORATED, "must be non-negative")
    assert site.location.function == "Reader.check"
    assert [g.test for g in site.guard] == ["n < 0"]


def test_every_name_keeps_its_place_in_the_file() -> None:
    """The tree the visitor reads has the file's own columns: each name slices out of
    the file's line (in UTF-8 bytes) as itself."""
    for code in (CLASSES, TYPED, NOGIL, EXCEPTS, DECLARATIONS, "cdef str é = 'ü'; x = é\n"):
        tree, _ = _parse(code, "pkg/_lib.pyx")
        lines = code.split("\n")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.lineno == node.end_lineno:
                written = lines[node.lineno - 1].encode()[node.col_offset : node.end_col_offset]
                assert written.decode() == node.id, (code, node.lineno)


def test_a_file_that_does_not_parse_is_skipped_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(Skip, match=r"^cannot parse as Cython: invalid syntax \(line 2\)$"):
        parse_file(b"def f(int x):\n    return x +\n", "pkg/_lib.pyx", "pkg._lib")
    with pytest.raises(Skip, match=r"^cannot parse as Cython: EOF in multi-line statement"):
        parse_file(b"cdef int x = (1,\n", "pkg/_lib.pyx", "pkg._lib")
    extraction = extract_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/broken.pyx": "cdef int f(int x):\n    return x +\n",
            "pkg/fine.pyx": "def f(int x):\n    raise ValueError('fine')\n",
        },
    )
    assert [(s.path, s.reason) for s in extraction.skipped] == [
        ("pkg/broken.pyx", "cannot parse as Cython: invalid syntax (line 2)")
    ]
    assert [(s.location.file, s.message and s.message.text) for s in extraction.sites] == [
        ("pkg/fine.pyx", "fine")
    ]


def extract_tree(root: Path, files: dict[str, str]) -> Extraction:
    write_tree(root, files)
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    cache = NoCache()
    return extract(snapshot, scan(snapshot, cache), cache, workers=1)


# -- includes and .pxd files -----------------------------------------------------------------

INCLUDED = {
    "pkg/__init__.py": "",
    "pkg/_lib.pyx": """\
        from pkg.errors import BaseError
        include "_helpers.pxi"

        def load(str name):
            if not name:
                raise ParseError("an empty name")
            fail_on(name)
        """,
    "pkg/_helpers.pxi": """\
        class ParseError(BaseError, ValueError):
            pass

        cdef fail_on(str name):
            raise ParseError(f"cannot load {name}")
        """,
    "pkg/_lib.pxd": """\
        cdef inline int positive(int x) except -1:
            if x < 0:
                raise ValueError(f"{x} is negative")
            return x
        """,
    "pkg/errors.py": "class BaseError(Exception):\n    pass\n",
    "pkg/tests/test_lib.pyx": "raise ValueError('a test file')\n",
}


def test_an_included_pxi_brings_its_names(tmp_path: Path) -> None:
    extraction = extract_tree(tmp_path, INCLUDED)
    sites = by_message(list(extraction.sites))
    assert set(sites) == {"an empty name", "cannot load {name}", "{x} is negative"}
    empty = sites["an empty name"]
    assert empty.location.file == "pkg/_lib.pyx" and empty.location.language == "cython"
    # the class the .pxi defines, its base from the .pyx's import, as one module
    assert empty.exception.qualname == "pkg._lib.ParseError"
    assert empty.exception.bases[:2] == ("pkg.errors.BaseError", "builtins.ValueError")
    helper = [s for s in extraction.sites if s.kind == "helper"]
    assert [(s.location.file, s.message and s.message.text) for s in helper] == [
        ("pkg/_lib.pyx", "cannot load {name}")
    ]
    (inside,) = [
        s for s in extraction.sites if s.kind == "raise" and s.location.file.endswith(".pxi")
    ]
    assert (inside.location.file, inside.location.function) == ("pkg/_helpers.pxi", "fail_on")
    assert inside.location.language == "cython"
    assert inside.exception.qualname == "pkg._lib.ParseError"
    assert sites["{x} is negative"].location.file == "pkg/_lib.pxd"
    joined = {f.path: f.module for f in extraction.facts}
    assert joined["pkg/_helpers.pxi"] == joined["pkg/_lib.pxd"] == "pkg._lib"


def test_cython_files_follow_the_python_files_rules(tmp_path: Path) -> None:
    write_tree(tmp_path, INCLUDED)
    assert walk_files(tmp_path, ("pkg",)).paths == [
        "pkg/__init__.py",
        "pkg/_helpers.pxi",
        "pkg/_lib.pxd",
        "pkg/_lib.pyx",
        "pkg/errors.py",
    ]
    assert module_name("pkg/_lib.pyx") == module_name("pkg/_lib.pxd") == "pkg._lib"


# -- matching and the hook ------------------------------------------------------------------

READER = """\
from pkg.errors import EmptyDataError

cdef class TextReader:
    def __cinit__(self, object source, int header=0):
        if header < 0:
            raise ValueError(f"header must be non-negative, got {header}")
        if not source:
            raise EmptyDataError("No columns to parse from file")
"""


def reader_files(version: str) -> dict[str, str]:
    """pkg 1.0, or 1.1: three lines more at the top of _reader.pyx."""
    reader = READER if version == "1.0" else '"""The reader."""\n\n\n' + READER
    return {
        "pyproject.toml": f'[project]\nname = "pkg"\nversion = "{version}"\n',
        "pkg/__init__.py": "",
        "pkg/errors.py": "class EmptyDataError(ValueError):\n    pass\n",
        "pkg/_reader.pyx": reader,
    }


@pytest.fixture(scope="module")
def reader_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    root = tmp_path_factory.mktemp("reader")
    store = open_store(root / "errdex.sqlite")
    for version in ("1.0", "1.1"):
        tree = write_tree(root / version / "pkg", reader_files(version))
        index_source(str(tree), store, use_cache=False)
    yield store
    store.close()


def traceback(path: str, line: int, message: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/u/app.py", line 3, in <module>\n'
        "    reader = TextReader(source)\n"
        f'  File "{path}", line {line}, in pkg._reader.TextReader.__cinit__\n'
        f"{message}\n"
    )


def test_a_message_raised_in_a_pyx_matches(reader_store: Store) -> None:
    top = Matcher(reader_store).match("ValueError: header must be non-negative, got -1").matches[0]
    assert (top.file, top.line, top.version) == ("pkg/_reader.pyx", 9, "1.1")
    assert top.values == {"header": "-1"}


def test_the_index_summary_says_how_many_sites_are_cython(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "pkg", reader_files("1.0"))
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "index", str(tree), "--db", str(tmp_path / "db")],
        env={**os.environ, "ERRDEX_CACHE": str(tmp_path / "cache"), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "2 error sites, 2 of them Cython, 0 skipped" in done.stdout


def test_the_error_page_shows_the_snippet_as_cython(reader_store: Store) -> None:
    top = Matcher(reader_store).match("ValueError: header must be non-negative, got -1").matches[0]
    with running(reader_store) as base:
        page = httpx.get(f"{base}/errors/{top.id}", timeout=30)
    assert page.status_code == 200
    assert '<span class="k">cdef</span>' in page.text  # Python's lexer makes it a name


@pytest.mark.parametrize("path", ["pkg/_reader.pyx", "_reader.pyx", "pkg\\_reader.pyx"])
def test_a_cython_frame_picks_the_site_and_the_version(reader_store: Store, path: str) -> None:
    matcher = Matcher(reader_store)
    message = "pkg.errors.EmptyDataError: No columns to parse from file"
    old = matcher.match(traceback(path, 8, message)).matches[0]
    assert (old.file, old.line, old.version, old.version_inferred) == (
        "pkg/_reader.pyx",
        8,
        "1.0",
        "1.0",
    )
    assert old.note is not None and "last frame is this raise" in old.note
    new = matcher.match(traceback(path, 11, message)).matches[0]
    assert (new.id, new.line, new.version, new.version_inferred) == (old.id, 11, "1.1", None)


def test_the_hook_explains_an_error_raised_in_compiled_cython(
    reader_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error from compiled Cython: its frame's code names the .pyx as compiled and its
    line, its globals are the extension module's (as Cython's tracebacks make them). The
    frame is made so here (the extension module a file that is never loaded); the
    distribution that owns the extension module is pkg 1.0, installed."""
    site = tmp_path / "site"
    extension = site / "pkg" / "_reader.cpython-311-x86_64-linux-gnu.so"
    extension.parent.mkdir(parents=True)
    extension.write_bytes(b"\x7fELF never loaded")
    (site / "pkg" / "__init__.py").write_text("")
    info = site / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
    (info / "RECORD").write_text(
        "pkg/__init__.py,,\npkg/_reader.cpython-311-x86_64-linux-gnu.so,,\n"
        "pkg-1.0.dist-info/RECORD,,\n"
    )
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    _dists.forget()
    db = tmp_path / "errdex.sqlite"
    store = open_store(db)
    tree = write_tree(tmp_path / "tree" / "pkg", reader_files("1.0"))
    index_source(str(tree), store, use_cache=False)
    store.close()
    for compiled in ("pkg/_reader.pyx", "_reader.pyx"):
        raised = "\n" * 5 + "raise ValueError(f'header must be non-negative, got {header}')"
        code = compile(raised, compiled, "exec")
        module = {"__name__": "pkg._reader", "__file__": str(extension), "header": -2}
        try:
            exec(code, module)  # a frame as Cython makes one: no indexed code runs
        except ValueError as exc:
            section = errdex.hook.explain(exc, db=db)
        assert section is not None
        assert "ValueError raised at pkg/_reader.pyx:6 in TextReader.__cinit__ (pkg 1.0)" in (
            section
        )
        assert "In the message: header = -2" in section


# -- pandas 3.1.1 --------------------------------------------------------------------------

# Tracebacks pandas 3.1.1's wheel printed (tests/data/cython/README.md says how they were
# made): each last frame is compiled Cython, `File "pandas/_libs/parsers.pyx", line 735, in
# pandas._libs.parsers.TextReader.__cinit__`. Other builds name the file alone (`File
# "parsers.pyx", line 581, in pandas._libs.parsers.TextReader.__cinit__` in the pandas 2
# traceback of rapidsai/cudf#9676), so each is also matched with its frames spelled so.
DATA = Path(__file__).parent / "data" / "cython"
REAL: dict[str, tuple[str, int, str, dict[str, str]]] = {
    # file: (the raise's file, line and function, the values of its message's holes)
    "pandas-3.1.1-empty-data-error.txt": (
        "pandas/_libs/parsers.pyx",
        735,
        "TextReader.__cinit__",
        {},
    ),
    "pandas-3.1.1-invalid-frequency.txt": (
        "pandas/_libs/tslibs/offsets.pyx",
        7809,
        "raise_invalid_freq",
        {"freq": "XYZ"},
    ),
    "pandas-3.1.1-timedelta-unit.txt": (
        "pandas/_libs/tslibs/timedeltas.pyx",
        835,
        "parse_timedelta_string",
        {},
    ),
}


def bare_frames(text: str) -> str:
    """`text` with each compiled frame naming its file alone, as some builds write it."""
    out = []
    for line in text.split("\n"):
        head, mark, rest = line.partition('File "')
        path, quote, tail = rest.partition('"')
        if mark and quote and path.endswith(".pyx"):
            line = f'{head}File "{path.rpartition("/")[2]}"{tail}'
        out.append(line)
    return "\n".join(out)


@pytest.fixture(scope="module")
def pandas_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    require_pypi("pypi:pandas==3.1.1")
    store = open_store(tmp_path_factory.mktemp("pandas") / "errdex.sqlite")
    index_source("pypi:pandas==3.1.1", store, code_paths=("pandas/_libs", "pandas/errors"))
    yield store
    store.close()


@pytest.mark.network
def test_pandas_every_pyx_raise_is_a_site(pandas_store: Store) -> None:
    from errdex.sources import resolve

    root = resolve("pypi:pandas==3.1.1").root
    raises = set()
    for path in walk_files(root, ("pandas",)).paths:
        if path.endswith(".pyx"):
            text = (root / path).read_text(encoding="utf-8")
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.NAME and token.string == "raise":
                    raises.add((path, token.start[0]))
    assert len(raises) == 568  # the plain count: every `raise`, bare ones too
    records = list(pandas_store.iter_records())
    sites = {
        (r.site.location.file, r.site.location.line)
        for r in records
        if r.site.kind in ("raise", "reraise") and r.site.location.language == "cython"
    }
    assert raises <= sites


@pytest.mark.network
@pytest.mark.parametrize("name", sorted(REAL))
@pytest.mark.parametrize("spelling", ["as printed", "file alone", "message alone"])
def test_a_real_pandas_error_matches_its_pyx_raise(
    pandas_store: Store, name: str, spelling: str
) -> None:
    printed = (DATA / name).read_text()
    text = {
        "as printed": printed,
        "file alone": bare_frames(printed),
        "message alone": printed.rstrip("\n").rpartition("\n")[2],
    }[spelling]
    file, line, function, values = REAL[name]
    matches = Matcher(pandas_store).match(text).matches
    # the message alone may be shared (pandas' Python parsers say "No columns to parse
    # from file" too): its raise among the answers; the frame picks it out
    at = next(m for m in matches if (m.file, m.line) == (file, line))
    top = matches[0] if spelling != "message alone" else at
    assert (top.file, top.line, top.function, top.version) == (file, line, function, "3.1.1")
    assert top.exact
    assert {k: v for k, v in top.values.items() if k in values} == values
    record = pandas_store.get(top.id)
    assert record is not None and record.site.location.language == "cython"
    if spelling != "message alone":
        assert top.note is not None and "last frame is this raise" in top.note


@pytest.mark.network
def test_pandas_empty_data_error_is_its_own_exception(pandas_store: Store) -> None:
    top = Matcher(pandas_store).match((DATA / "pandas-3.1.1-empty-data-error.txt").read_text())
    record = pandas_store.get(top.matches[0].id)
    assert record is not None
    assert record.site.exception.qualname == "pandas.errors.EmptyDataError"


def test_a_lone_surrogate_in_a_message_is_kept_as_its_escape() -> None:
    code = 'cdef check(int n):\n    if n:\n        raise ValueError("bad \\ud800 at \\x00")\n'
    (site,) = cython_sites(code)
    assert site.message is not None
    text = site.message.text
    assert not any("\ud800" <= ch <= "\udfff" or ch == "\0" for ch in text), text
    text.encode("utf-8")  # storable
