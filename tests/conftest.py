# Shared test helpers: code in, sites out, through the same stages the CLI uses.
from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.extract import extract, parse_file, scan
from errdex.extract.cache import FactsCache
from errdex.extract.link import Linker
from errdex.model import ErrorSite, Snapshot
from errdex.store import Store, open_store

# Downloads from PyPI are kept here across test runs, so CI fetches each sdist once.
TEST_CACHE = Path(os.environ.get("ERRDEX_TEST_CACHE") or Path.home() / ".cache" / "errdex-test")


def index_snippet(code: str, *, path: str = "pkg/mod.py", package: str = "pkg") -> list[ErrorSite]:
    """The sites of one module given as source text (dedented), in line order."""
    source = textwrap.dedent(code).encode()
    module = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    facts = parse_file(source, path, module, strict=True)

    def revisit(rel: str, mod: str, lines: frozenset[int]) -> object:
        return parse_file(source, rel, mod, want_calls=lines)

    return list(Linker(package, [facts], revisit).sites())  # type: ignore[arg-type]


def only(sites: list[ErrorSite]) -> ErrorSite:
    assert len(sites) == 1, [s.message and s.message.text for s in sites]
    return sites[0]


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, code in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(code))
    return root


def index_tree(
    root: Path, files: dict[str, str], *, package: str = "pkg", workers: int = 1
) -> list[ErrorSite]:
    """The sites of a small tree written to `root` (every .py file is package code)."""
    write_tree(root, files)
    snapshot = Snapshot(package=package, version="1.0", root=root, source=str(root))
    cache = FactsCache(None)
    return list(extract(snapshot, scan(snapshot, cache), cache, workers=workers).sites)


@pytest.fixture(autouse=True)
def _private_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never touch the user's own db; downloads go to the shared test cache."""
    monkeypatch.setenv("ERRDEX_DB", str(tmp_path_factory.mktemp("db") / "errdex.sqlite"))
    monkeypatch.setenv("ERRDEX_CACHE", str(TEST_CACHE))


def indexed_store(path: Path, *specs: str) -> Store:
    """A real SQLite store at `path` with each SOURCE indexed (downloads from TEST_CACHE)."""
    from errdex.index import index_source

    old = os.environ.get("ERRDEX_CACHE")
    os.environ["ERRDEX_CACHE"] = str(TEST_CACHE)
    try:
        store = open_store(path)
        for spec in specs:
            index_source(spec, store)
    finally:
        if old is None:
            os.environ.pop("ERRDEX_CACHE", None)
        else:
            os.environ["ERRDEX_CACHE"] = old
    return store


@pytest.fixture(scope="session")
def vllm_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """vllm 0.28.0 from PyPI, indexed once per test session into a real SQLite file."""
    store = indexed_store(tmp_path_factory.mktemp("vllm") / "errdex.sqlite", "pypi:vllm==0.28.0")
    yield store
    store.close()


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A small package whose messages and docs carry `<script>`, quotes and `{{ }}`."""
    from tests.web_support import index_evil

    root = tmp_path_factory.mktemp("evil")
    store = index_evil(root / "src", root / "errdex.sqlite")
    yield store
    store.close()
