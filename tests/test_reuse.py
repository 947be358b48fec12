# A release for the price of what changed: explain reuses each site's per-site prose
# (errdex/explain/reuse.py) when what it was made from is unchanged, and the records come
# out exactly as a cold index of the same tree makes them. Small trees written here for
# the lookups a key alone cannot see, then real releases of requests from PyPI.
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from errdex.codec import record_to_json
from errdex.explain.reuse import Prose, Reads, lookup_in, pack, replay, unpack
from errdex.extract.tests import scan_tests
from errdex.index import index_snapshot
from errdex.model import IndexResult, Snapshot
from errdex.sources import resolve
from errdex.store import Store, open_store
from errdex.store.facts import SqliteFactsCache
from tests.conftest import TEST_CACHE, require_pypi, write_tree

network = pytest.mark.network

CHECKS = """\
def check_rate(rate):
    if rate < 0:
        raise ValueError(f"rate must not be negative, got {rate}")
    return rate
"""
# 1.1 leaves checks.py alone and adds a caller in another file: the site's key is the
# same, but its call paths (a lookup into the whole tree) are not.
CALLER = """\
from pkg.checks import check_rate


def configure(rate):
    return check_rate(rate)
"""


# A raise whose prose says a line: the handler's guard, "before line N".
LOAD = """\
def load(path):
    try:
        handle = open(path)
        data = handle.read()
    except OSError as exc:
        raise RuntimeError("cannot load the settings") from exc
    return data
"""
MOVED = "import os\n\nPADDING = 1\n\n\n"  # five lines added at the top of a file


def records(store: Store, package: str, version: str) -> list[str]:
    return [
        json.dumps(record_to_json(r), sort_keys=True)
        for r in store.iter_records(package=package, version=version)
    ]


def stacked_and_alone(
    tmp_path: Path, old: Snapshot, new: Snapshot, *, stacked_at: str | None = None
) -> tuple[IndexResult, list[str], list[str]]:
    """Index `new` on top of `old` (one store, at `stacked_at` if given, one cache) and
    `new` alone (fresh SQLite store and cache); the second index's result and both
    stores' records of `new`."""
    stacked = open_store(stacked_at or tmp_path / "stacked.sqlite")
    index_snapshot(old, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    second = index_snapshot(new, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    alone = open_store(tmp_path / "alone.sqlite")
    index_snapshot(new, alone, cache_path=tmp_path / "alone-facts.sqlite")
    package, version = new.package, new.version
    return second, records(stacked, package, version), records(alone, package, version)


def tree(root: Path, version: str, files: dict[str, str]) -> Snapshot:
    snapshot = resolve(str(write_tree(root / version / "pkg", files)))
    return Snapshot(package="pkg", version=version, root=snapshot.root, source=snapshot.source)


def test_a_new_caller_elsewhere_remakes_the_prose_of_an_unchanged_site(tmp_path: Path) -> None:
    old = tree(tmp_path, "1.0", {"pkg/__init__.py": "", "pkg/checks.py": CHECKS})
    new = tree(
        tmp_path,
        "1.1",
        {"pkg/__init__.py": "", "pkg/checks.py": CHECKS, "pkg/api.py": CALLER},
    )
    second, on_top, alone = stacked_and_alone(tmp_path, old, new)
    assert second.site_count == 1 and second.reused == 0  # the trace saw the new caller
    assert on_top == alone
    when = json.loads(on_top[0])["explanation"]["when_it_happens"]
    assert "`configure`" in when


def test_lines_added_above_a_raise_keep_its_prose_and_a_line_it_says_is_asked_again(
    tmp_path: Path,
) -> None:
    files = {"pkg/__init__.py": "", "pkg/checks.py": CHECKS, "pkg/api.py": CALLER}
    old = tree(tmp_path, "1.0", {**files, "pkg/load.py": LOAD})
    moved = {path: MOVED + code for path, code in files.items() if code}
    new = tree(tmp_path, "1.1", {**files, **moved, "pkg/load.py": MOVED + LOAD})
    second, on_top, alone = stacked_and_alone(tmp_path, old, new)
    assert on_top == alone  # every record as a cold index of the moved tree makes it
    assert (second.site_count, second.reused) == (2, 1)  # check_rate's prose, not load's
    by_function = {r["location"]["function"]: r for r in map(json.loads, on_top)}
    assert by_function["check_rate"]["location"]["line"] == 3 + 5
    assert "`configure`" in by_function["check_rate"]["explanation"]["when_it_happens"]
    (said,) = by_function["load"]["explanation"]["solutions"]
    assert "raised in the `try` block before line 10 " in said  # 5 + 5, asked again


def test_an_unchanged_tree_indexed_again_reuses_every_site(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/checks.py": CHECKS, "pkg/api.py": CALLER}
    snapshot = tree(tmp_path, "1.0", files)
    store = open_store(tmp_path / "db.sqlite")
    first = index_snapshot(snapshot, store, cache_path=tmp_path / "facts.sqlite")
    before = records(store, "pkg", "1.0")
    again = index_snapshot(snapshot, store, cache_path=tmp_path / "facts.sqlite", force=True)
    assert (first.reused, again.reused, again.site_count) == (0, 1, 1)
    assert records(store, "pkg", "1.0") == before


def test_without_a_cache_nothing_is_reused(tmp_path: Path) -> None:
    snapshot = tree(tmp_path, "1.0", {"pkg/__init__.py": "", "pkg/checks.py": CHECKS})
    store = open_store(tmp_path / "db.sqlite")
    index_snapshot(snapshot, store, cache_path=None)
    again = index_snapshot(snapshot, store, cache_path=None, force=True)
    assert again.reused == 0 and again.site_count == 1


# -- the test scan, file by file from the facts cache -----------------------------------

TEST_RATE = """\
import pytest
from pkg.checks import check_rate


def test_negative_rate():
    with pytest.raises(ValueError, match="rate must not be negative"):
        check_rate(-1)
"""
TEST_LOAD = """\
import pytest
from pkg.loading import load


def test_missing_file():
    with pytest.raises(RuntimeError, match="cannot load the settings"):
        load("/nowhere")
"""


def _cached_scans(cache_file: Path) -> dict[str, bytes]:
    with sqlite3.connect(cache_file) as db:
        rows = db.execute("SELECT key, data FROM facts WHERE key LIKE 'tests:%'").fetchall()
    return {key: bytes(data) for key, data in rows}


def test_the_test_scan_reads_back_each_file_it_scanned_and_scans_an_edited_one(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "pkg", {"tests/test_rate.py": TEST_RATE, "tests/test_load.py": TEST_LOAD}
    )
    cache_file = tmp_path / "facts.sqlite"
    cache = SqliteFactsCache(cache_file)
    first = scan_tests(root, cache)
    assert first == scan_tests(root) and len(first) == 2  # the cache changes nothing
    kept = _cached_scans(cache_file)
    assert len(kept) == 2
    # what it reads back is what it kept for that file: given the other file's entry
    # under the key of test_rate.py's content, the scan says what that entry says
    rate_key, load_key = (
        next(k for k, data in kept.items() if name.encode() in data)
        for name in ("test_rate.py", "test_load.py")
    )
    cache.save([(rate_key, kept[load_key])])
    paths = sorted(t.path for t in scan_tests(root, cache))
    assert paths == ["tests/test_load.py", "tests/test_load.py"]
    # a file whose entry is damaged is scanned again
    cache.save([(rate_key, b"not a pickle")])
    assert scan_tests(root, cache) == first
    # an edited file is scanned afresh, under a key of its new content
    (root / "tests/test_rate.py").write_text(TEST_RATE.replace("must not", "may not"))
    again = scan_tests(root, cache)
    assert again == scan_tests(root)
    assert any("may not" in str(t.expectations) for t in again)
    assert len(_cached_scans(cache_file)) == 3
    cache.close()


# -- real releases from PyPI ----------------------------------------------------------


@network
def test_requests_2_32_3_on_top_of_2_31_0_equals_it_alone(tmp_path: Path, db_location: str) -> None:
    # 2.32 moved the code into src/: no file keeps its path, so little is reused; the
    # records must still be those of 2.32.3 alone (stacked in SQLite and in PostgreSQL)
    require_pypi("pypi:requests==2.31.0", "pypi:requests==2.32.3")
    old, new = (resolve(f"pypi:requests=={v}", cache_dir=TEST_CACHE) for v in ("2.31.0", "2.32.3"))
    second, on_top, alone = stacked_and_alone(tmp_path, old, new, stacked_at=db_location)
    assert second.site_count > 50
    assert on_top == alone


@network
def test_idna_3_7_on_top_of_3_6_reuses_prose_and_equals_it_alone(
    tmp_path: Path, db_location: str
) -> None:
    # idna keeps its layout between these releases: most of its files are unchanged
    require_pypi("pypi:idna==3.6", "pypi:idna==3.7")
    old, new = (resolve(f"pypi:idna=={v}", cache_dir=TEST_CACHE) for v in ("3.6", "3.7"))
    second, on_top, alone = stacked_and_alone(tmp_path, old, new, stacked_at=db_location)
    assert 0 < second.reused < second.site_count  # some sites changed, most did not
    assert on_top == alone


def _moved(code: str) -> str:
    """`code` with lines added before its first import or definition (after a docstring,
    a shebang or an encoding line, which must stay where they are)."""
    first = re.search(r"^(?:import|from|def|class|@)\b", code, re.M)
    at = first.start() if first else 0
    return code[:at] + "# moved\n\n\n" + code[at:]


@network
def test_idna_with_every_line_moved_reuses_its_prose_and_equals_it_alone(tmp_path: Path) -> None:
    require_pypi("pypi:idna==3.7")
    old = resolve("pypi:idna==3.7", cache_dir=TEST_CACHE)
    root = tmp_path / "moved"
    shutil.copytree(old.root, root)
    for path in root.rglob("*.py"):
        path.write_text(_moved(path.read_text("utf-8")), "utf-8")
    new = dataclasses.replace(old, version="3.7.moved", root=root, source=str(root))
    second, on_top, alone = stacked_and_alone(tmp_path, old, new)
    assert on_top == alone
    lines = [json.loads(r)["location"]["line"] for r in on_top]
    before = records(open_store(tmp_path / "stacked.sqlite"), "idna", "3.7")
    assert lines == [json.loads(r)["location"]["line"] + 3 for r in before]  # all moved
    said = sum("block before line" in r for r in on_top)  # the prose that says a line
    assert second.site_count > 20
    assert second.reused == second.site_count - said


# -- errdex explain: the prose again, from the facts cache ------------------------------


def cli(*args: str, db: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ERRDEX_DB": str(db), "ERRDEX_CACHE": str(cache), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "errdex", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )


@network
def test_errdex_explain_makes_the_prose_again_without_parsing(tmp_path: Path) -> None:
    require_pypi("pypi:idna==3.7")
    cache = tmp_path / "cache"  # this test's own facts; the downloads are the suite's
    cache.mkdir()
    for name in ("downloads", "trees"):
        (TEST_CACHE / name).mkdir(parents=True, exist_ok=True)
        (cache / name).symlink_to(TEST_CACHE / name, target_is_directory=True)
    db = tmp_path / "errdex.sqlite"
    indexed = cli("index", "pypi:idna==3.7", "--json", db=db, cache=cache)
    assert indexed.returncode == 0, indexed.stderr
    before = records(open_store(db), "idna", "3.7")

    again = cli("explain", "--package", "idna", "--json", db=db, cache=cache)
    assert again.returncode == 0, again.stderr
    (done,) = json.loads(again.stdout)
    assert done["left"] is None
    assert done["result"]["parsed"] == 0  # every file's facts came from the cache
    assert done["result"]["sites"] == len(before)
    assert records(open_store(db), "idna", "3.7") == before

    (cache / "facts.sqlite").unlink()  # a cache that lost the facts: said, and re-parsed
    lost = cli("explain", db=db, cache=cache)
    assert lost.returncode == 0, lost.stderr
    files = json.loads(indexed.stdout)["files"]
    assert f"idna 3.7: the facts cache lacked {files} of {files} files" in lost.stderr
    assert f"idna 3.7: {len(before)} error sites explained again" in lost.stdout
    assert records(open_store(db), "idna", "3.7") == before


def test_errdex_explain_says_what_it_cannot_do(tmp_path: Path) -> None:
    db, cache = tmp_path / "errdex.sqlite", tmp_path / "cache"
    folder = write_tree(tmp_path / "src" / "pkg", {"pkg/checks.py": CHECKS})
    assert cli("index", str(folder), db=db, cache=cache).returncode == 0
    usage = cli("explain", "--version", "1.0", db=db, cache=cache)
    assert usage.returncode == 2 and "--version goes with --package" in usage.stderr
    missing = cli("explain", "--package", "requests", db=db, cache=cache)
    assert missing.returncode == 1 and "no snapshot of requests in the store" in missing.stderr
    (folder / "pkg" / "checks.py").write_text(CHECKS + CALLER.replace("from pkg.checks ", "#"))
    edited = cli("explain", db=db, cache=cache)
    assert edited.returncode == 0, edited.stderr
    assert "left as it was" in edited.stderr and "index it again instead" in edited.stderr


def test_a_kept_lookup_replays_only_to_the_same_answer() -> None:
    env = {"VLLM_USE_V1": ("Use the V1 engine", None)}
    reads = Reads({"env": lookup_in(env)})
    seen = reads.mapping("env")
    assert seen.get("VLLM_USE_V1") == env["VLLM_USE_V1"] and "VLLM_OTHER" not in seen
    prose = Prose(
        fixes=(),
        what_it_means="",
        when_it_happens="",
        common_situations=(),
        invariant=False,
        invariant_caught=False,
        implemented=None,
    )
    kept = unpack(pack(reads.log, prose))
    assert kept is not None and kept[1] == prose
    log = kept[0]  # through pickling: "absent" is still absent
    assert replay(log, {"env": lookup_in(dict(env))})
    assert not replay(log, {"env": lookup_in({**env, "VLLM_OTHER": (None, None)})})
    assert not replay(log, {"env": lookup_in({"VLLM_USE_V1": ("Another doc", None)})})
    with pytest.raises(TypeError):  # a read no log can stand for fails loudly
        len(seen)  # type: ignore[arg-type]
