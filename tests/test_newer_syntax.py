# Syntax newer than the running Python (issue 12), through the real extract stage: PEP 695
# type parameters, t-strings and PEP 758 `except A, B:` are read in-process by the
# rewrite of downgrade.py; PEP 701 f-strings by the newest Python on the machine
# (elsewhere.py). What none of them reads stays a skipped file with its reason.
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.elsewhere import ENV, Interpreter, newer_python, parse_elsewhere
from errdex.extract.pipeline import extract, parse_batch
from errdex.model import ErrorSite, Snapshot
from errdex.sources import resolve
from errdex.store.facts import SqliteFactsCache
from tests.conftest import TEST_CACHE, index_tree, require_pypi, write_tree

IN_PROCESS = pytest.mark.usefixtures("no_other_python")


@pytest.fixture
def no_other_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the running Python parses: what these tests read, the rewrite reads."""
    monkeypatch.setenv(ENV, "none")


@pytest.fixture
def newer() -> Interpreter:
    """The newest Python here that is newer than the running one. Without one, the test
    is skipped, saying why; in CI (where .ci/run says which one it has) it fails."""
    found = newer_python()
    if isinstance(found, str):
        if os.environ.get("CI"):
            pytest.fail(f"CI must have a Python newer than the running one: {found}")
        pytest.skip(found)
    return found


def sites_in(tmp_path: Path, code: str) -> list[ErrorSite]:
    return index_tree(tmp_path, {"pkg/mod.py": code})


def skipped_in(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    write_tree(tmp_path, files)
    snapshot = Snapshot(package="pkg", version="1.0", root=tmp_path, source=str(tmp_path))
    cache = NoCache()
    return {s.path: s.reason for s in extract(snapshot, scan(snapshot, cache), cache).skipped}


def where(site: ErrorSite) -> tuple[int, str, str | None]:
    return site.location.line, site.location.function, site.message.text if site.message else None


# -- read in-process: the rewrite keeps every line -------------------------------------------

GENERIC_FUNCTION = """\
def first[T](items: list[T]) -> T:
    if not items:
        raise ValueError(f"no items in {items!r}")
    return items[0]
"""

GENERIC_CLASS = """\
class Box[T: (int, str), *Ts, **P](dict):
    def get(self, key: str) -> T:
        raise KeyError(f"no {key} in the box")


async def fetch[
    T,
](url: str) -> T:
    raise ConnectionError("cannot fetch " + url)
"""

TYPE_ALIASES = """\
type Name = str
type Pair[
    K,
    V = int,
] = tuple[K, V]


def check(name: Name) -> None:
    if not name.isidentifier():
        raise TypeError(f"bad name: {name}")
"""

T_STRINGS = """\
def greet(name: str) -> object:
    if not name:
        raise ValueError(t"empty name for {name!r}")
    return rt"hello {name}\\n"


def after(x: int) -> None:
    raise RuntimeError(f"still read: {x}")
"""

BARE_EXCEPT_TUPLE = """\
def load(path: str) -> str:
    try:
        return open(path).read()
    except OSError, UnicodeDecodeError:
        raise RuntimeError(f"cannot load {path}")


def save(path: str) -> None:
    try:
        open(path, "w").close()
    except* OSError, ValueError: raise RuntimeError(f"cannot save {path!r}")
"""


@IN_PROCESS
def test_type_parameters_of_a_function(tmp_path: Path) -> None:
    site = sites_in(tmp_path, GENERIC_FUNCTION)[0]
    assert where(site) == (3, "first", "no items in {items!r}")
    assert [g.test for g in site.guard] == ["not items"]
    assert site.snippet.lines[0] == "def first[T](items: list[T]) -> T:"  # the file's own text


@IN_PROCESS
def test_type_parameters_of_a_class_and_over_lines(tmp_path: Path) -> None:
    assert [where(s) for s in sites_in(tmp_path, GENERIC_CLASS)] == [
        (3, "Box.get", "no {key} in the box"),
        (9, "fetch", "cannot fetch {url}"),
    ]


@IN_PROCESS
def test_type_aliases_keep_the_lines_after_them(tmp_path: Path) -> None:
    site = sites_in(tmp_path, TYPE_ALIASES)[0]
    assert where(site) == (10, "check", "bad name: {name}")
    assert [g.test for g in site.guard] == ["not name.isidentifier()"]


@IN_PROCESS
def test_t_strings_read_as_the_text_they_render(tmp_path: Path) -> None:
    assert [where(s) for s in sites_in(tmp_path, T_STRINGS)] == [
        (3, "greet", "empty name for {name!r}"),
        (8, "after", "still read: {x}"),
    ]


@IN_PROCESS
def test_except_names_without_parentheses(tmp_path: Path) -> None:
    load, save = sites_in(tmp_path, BARE_EXCEPT_TUPLE)
    assert where(load) == (5, "load", "cannot load {path}")
    assert load.snippet.lines[3] == "    except OSError, UnicodeDecodeError:"
    # the parentheses the rewrite adds move no column: the text after them reads right
    assert [g.test for g in load.guard] == ["OSError, UnicodeDecodeError"]
    assert where(save) == (11, "save", "cannot save {path!r}")
    assert [g.test for g in save.guard] == ["OSError, ValueError"]


@IN_PROCESS
def test_blanked_type_parameters_keep_the_columns_after_them(tmp_path: Path) -> None:
    # columns count UTF-8 bytes: a name of two-byte letters is blanked with twice the spaces
    code = 'def ключ[Тип, Ключ](x: Тип) -> Тип: raise ValueError(f"плохо {x!r} {Ключ}")\n'
    assert [where(s) for s in sites_in(tmp_path, code)] == [(1, "ключ", "плохо {x!r} {Ключ}")]


@IN_PROCESS
def test_newer_syntax_is_no_longer_a_skipped_file(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": code for i, code in enumerate([GENERIC_FUNCTION, TYPE_ALIASES])}
    files["pkg/t.py"] = T_STRINGS
    files["pkg/e.py"] = BARE_EXCEPT_TUPLE
    assert skipped_in(tmp_path, files) == {}


# -- read by a newer Python: PEP 701 f-strings ----------------------------------------------

PEP_701 = """\
def lookup(d: dict[str, str], key: str) -> str:
    if key not in d:
        raise KeyError(f"no {d["name"]} key {key!r}")
    return d[key]


def joined(items: list[str]) -> None:
    raise ValueError(f"bad items: {'\\n'.join(items)}")
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the running Python reads PEP 701")
@IN_PROCESS
def test_pep_701_without_a_newer_python_is_skipped_saying_why(tmp_path: Path) -> None:
    reason = skipped_in(tmp_path, {"pkg/f.py": PEP_701})["pkg/f.py"]
    assert reason.startswith("does not parse with Python 3.11: f-string")
    assert "(line 3)" in reason and "PEP 701" in reason
    assert reason.endswith(f"{ENV} says to use no other Python")


def test_pep_701_f_strings_are_read_by_a_newer_python(tmp_path: Path, newer: Interpreter) -> None:
    sites = sites_in(tmp_path, PEP_701)
    assert [where(s) for s in sites] == [
        (3, "lookup", 'no {d["name"]} key {key!r}'),
        (8, "joined", "bad items: {'\\n'.join(items)}"),
    ]
    assert [g.test for g in sites[0].guard] == ["key not in d"]


def test_a_newer_python_finds_what_the_rewrite_finds(tmp_path: Path, newer: Interpreter) -> None:
    codes = [GENERIC_FUNCTION, GENERIC_CLASS, TYPE_ALIASES, T_STRINGS, BARE_EXCEPT_TUPLE]
    paths = [f"pkg/m{i}.py" for i in range(len(codes))]
    write_tree(tmp_path, dict(zip(paths, codes, strict=True)))
    natively = parse_elsewhere(newer, str(tmp_path), paths)
    rewritten = dict(parse_batch(str(tmp_path), paths))
    for path in paths:
        ours, theirs = rewritten[path], natively[path]
        assert not isinstance(ours, str) and not isinstance(theirs, str), (ours, theirs)
        assert [(s.location, s.message, s.guard) for s in ours.sites] == [
            (s.location, s.message, s.guard) for s in theirs.sites
        ]


@IN_PROCESS
def test_an_empty_line_inside_type_parameters(tmp_path: Path) -> None:
    code = 'def pick[\n\n    T,\n](xs: list[T]) -> T:\n    raise IndexError(f"empty {xs}")\n'
    assert [where(s) for s in sites_in(tmp_path, code)] == [(5, "pick", "empty {xs}")]


def test_what_no_python_reads_stays_skipped(tmp_path: Path) -> None:
    reason = skipped_in(tmp_path, {"pkg/py2.py": 'print "python 2"\n'})["pkg/py2.py"]
    assert reason.startswith("does not parse with Python 3.")
    assert "(line 1)" in reason


def test_a_refusal_no_newer_python_tried_is_tried_again(
    tmp_path: Path, newer: Interpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_tree(tmp_path / "tree", {"pkg/f.py": PEP_701})
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    cache = SqliteFactsCache(tmp_path / "facts.sqlite")
    monkeypatch.setenv(ENV, "none")
    first = extract(snapshot, scan(snapshot, cache), cache)
    assert [s.path for s in first.skipped] == ["pkg/f.py"]
    monkeypatch.setenv(ENV, newer.path)
    again = extract(snapshot, scan(snapshot, cache), cache)
    assert again.skipped == () and len(again.sites) == 2


def test_what_a_newer_python_read_in_a_parallel_index_is_what_is_cached(
    tmp_path: Path, newer: Interpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    # enough files for the worker pool, whose workers pack each outcome for the cache:
    # the PEP 701 file's packed outcome is the running parser's refusal, and the newer
    # Python's facts must be cached in its place
    files = {f"pkg/m{i}.py": f"def f{i}():\n    raise ValueError('m{i}')\n" for i in range(60)}
    root = write_tree(tmp_path / "tree", {**files, "pkg/f.py": PEP_701})
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    cache = SqliteFactsCache(tmp_path / "facts.sqlite")
    monkeypatch.setenv(ENV, newer.path)
    first = extract(snapshot, scan(snapshot, cache), cache, workers=2)
    assert first.skipped == () and first.parsed == 61
    monkeypatch.setenv(ENV, "none")  # the cache alone must now hold the file's facts
    again = extract(snapshot, scan(snapshot, cache), cache, workers=2)
    assert (again.skipped, again.parsed, again.sites) == ((), 0, first.sites)


def test_a_python_named_that_does_not_run_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "no-python"))
    assert newer_python() == f"{ENV}={tmp_path / 'no-python'} is not a Python newer than " + (
        f"{sys.version_info.major}.{sys.version_info.minor} that runs"
    )


# -- a real package: aiohasupervisor 0.11.0 (`class _ResponseIterator[T](ABC):`) ------------


@pytest.mark.network
def test_a_release_with_type_parameters_is_indexed_whole() -> None:
    spec = "pypi:aiohasupervisor==0.11.0"
    require_pypi(spec)
    snapshot = resolve(spec, cache_dir=TEST_CACHE)
    cache = NoCache()
    done = extract(snapshot, scan(snapshot, cache), cache)
    assert done.skipped == ()
    generic = "aiohasupervisor/utils/aiohttp.py"
    source = (snapshot.root / generic).read_text().splitlines()
    assert "class _ResponseIterator[T](ABC):" in source
    sites = [s for s in done.sites if s.location.file == generic]
    assert len(sites) >= 5
    for site in sites:  # each at its own `raise`, with that line in its snippet
        assert source[site.location.line - 1].lstrip().startswith("raise")
        at = site.location.line - site.snippet.start_line
        assert site.snippet.lines[at] == source[site.location.line - 1]
