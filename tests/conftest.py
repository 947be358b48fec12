# Shared test helpers: code in, sites out, through the same stages the CLI uses.
#
# Where the suite writes: pytest's tmp, and TEST_CACHE for what it downloads from PyPI
# and unpacks (kept across runs, so each sdist is fetched once). Never the user's own
# errdex cache or database: ERRDEX_CACHE and ERRDEX_DB point into tmp for the whole
# session, the cache's downloads and trees linked to TEST_CACHE's.
from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import textwrap
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs
import pytest

from errdex.errors import NetworkError
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.link import Linker
from errdex.extract.parse import parse_file
from errdex.extract.pipeline import extract
from errdex.model import ErrorSite, Snapshot
from errdex.sources import pypi
from errdex.store import Store, open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def run_errdex(
    *args: str,
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
    timeout: float = 120,
    umask: int = -1,
) -> subprocess.CompletedProcess[str]:
    """`errdex ARGS` in a process of its own, as a user runs it: their environment (proxy
    and CA settings included) with `env` over it; `prefix` runs it under another command
    (`nice`, `timeout`), `umask` (-1: the caller's) under another file mode mask."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "errdex", *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        umask=umask,
    )


# $ERRDEX_TEST_CACHE, else errdex-test in the user cache dir (which follows XDG_CACHE_HOME).
TEST_CACHE = Path(os.environ.get("ERRDEX_TEST_CACHE") or platformdirs.user_cache_dir("errdex-test"))


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
    cache = NoCache()
    return list(extract(snapshot, scan(snapshot, cache), cache, workers=workers).sites)


@pytest.fixture(scope="session")
def run_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's errdex cache (ERRDEX_CACHE), one for all xdist workers: the PyPI
    downloads and unpacked trees are TEST_CACHE's, kept across runs; everything else (the
    per-file facts) starts empty in tmp, so nothing a run gets wrong outlives it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    cache = base / "errdex-cache"
    cache.mkdir(exist_ok=True)
    for name in ("downloads", "trees"):
        (TEST_CACHE / name).mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # another worker linked it first
            (cache / name).symlink_to(TEST_CACHE / name, target_is_directory=True)
    return cache


@pytest.fixture(scope="session", autouse=True)
def _private_session_dirs(
    tmp_path_factory: pytest.TempPathFactory, run_cache: Path
) -> Iterator[None]:
    """For session and module fixtures too: the run's cache, and a db in tmp. The servers
    tests start on loopback are reached directly, whatever proxy the environment sets."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ERRDEX_CACHE", str(run_cache))
        patch.setenv("ERRDEX_DB", str(tmp_path_factory.mktemp("session-db") / "errdex.sqlite"))
        for name in ("NO_PROXY", "no_proxy"):
            hosts = [h for h in os.environ.get(name, "").split(",") if h.strip()]
            patch.setenv(name, ",".join([*hosts, "127.0.0.1", "localhost"]))
        yield


@pytest.fixture(autouse=True)
def _private_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, run_cache: Path
) -> None:
    """Each test its own db; the run's cache, even after a test that changed it."""
    monkeypatch.setenv("ERRDEX_DB", str(tmp_path_factory.mktemp("db") / "errdex.sqlite"))
    monkeypatch.setenv("ERRDEX_CACHE", str(run_cache))


# -- the network: tests marked `network` run when PyPI answers or what they need is cached


@functools.cache
def pypi_unreachable() -> str | None:
    """Why the package index cannot be reached (asked once per process), None if it answers."""
    import httpx

    url = f"{pypi.index_url()}/pip/"
    try:
        with httpx.Client(timeout=httpx.Timeout(10.0, connect=5.0)) as client:
            client.head(url)
    except httpx.HTTPError as exc:
        return f"{url}: {exc or type(exc).__name__}"
    return None


def _offline_reason(what: str, why: str) -> str:
    return (
        f"offline: {what}, and the package index cannot be reached ({why}); "
        f"run the tests once with the network to fill the test cache {TEST_CACHE}"
    )


def require_pypi(*specs: str) -> None:
    """Make sure each pinned `pypi:NAME==VERSION` SOURCE in `specs` is in TEST_CACHE:
    fetched into it now when it is not and PyPI answers (a test that then points errdex
    at a dead index still finds it, on a fresh machine too); the test is skipped when
    PyPI cannot be reached. An unpinned release cannot be answered from the cache."""
    missing: list[tuple[str, str, str | None]] = []
    for spec in specs:
        if not spec.startswith("pypi:"):
            continue
        name, version = pypi.parse_spec(spec.removeprefix("pypi:"))
        if version is None or pypi.cached(name, version, TEST_CACHE / "downloads") is None:
            missing.append((spec, name, version))
    if not missing:
        return
    if (why := pypi_unreachable()) is not None:
        shown = ", ".join(spec for spec, _, _ in missing)
        pytest.skip(_offline_reason(f"{shown} is not in the test cache", why))
    for _, name, version in missing:
        if version is not None:
            (TEST_CACHE / "downloads").mkdir(parents=True, exist_ok=True)
            pypi.fetch(name, version, TEST_CACHE / "downloads")


def _skip_network_error(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    except NetworkError as exc:
        if item.get_closest_marker("network") is None:
            raise  # a test not marked `network` must not need it
        why = pypi_unreachable()
        if why is None:
            raise
        pytest.skip(_offline_reason(f"this test needs PyPI ({exc})", why))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, object, object]:
    """A `network` test whose fixtures cannot download offline is skipped, not failed."""
    return (yield from _skip_network_error(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """A `network` test that cannot download offline is skipped, not failed."""
    return (yield from _skip_network_error(item))


def indexed_store(path: Path, *specs: str) -> Store:
    """A real SQLite store at `path` with each SOURCE indexed (downloads from TEST_CACHE,
    through the run's cache that ERRDEX_CACHE names)."""
    from errdex.index import index_source

    require_pypi(*specs)
    store = open_store(path)
    for spec in specs:
        index_source(spec, store, pause_gc=True)  # the test run is errdex's own
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


# The browser tests drive Debian's chromium (which .ci/run installs) through Playwright.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium (apt-get install chromium)"
)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


# -- the two backends: SQLite always, PostgreSQL when the machine can run a server ----


def pytest_report_header() -> str:
    from tests import postgres

    why = postgres.why_not()
    return "PostgreSQL half: " + (
        "runs (a throwaway cluster)" if why is None else f"SKIPPED: {why}"
    )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of this session's throwaway PostgreSQL server (skips when there is none)."""
    from tests import postgres

    why = postgres.why_not()
    if why is not None:
        pytest.skip(f"PostgreSQL half skipped: {why}")
    with postgres.cluster() as url:
        yield url


@pytest.fixture
def postgres_db(postgres_server: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database, dropped after the test."""
    from tests import postgres

    with postgres.database(postgres_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's database lives, once for each backend: a SQLite file in tmp, or a
    new database on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "errdex.sqlite")
    url: str = request.getfixturevalue("postgres_db")
    return url
