# Two real releases of requests, diffed: the changes below were checked by hand in
# the two sdists (2.31.0 -> 2.32.3 also moved the code into a src/ layout).
from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from errdex.history import diff_records, lineage, summary
from errdex.index import index_snapshot, index_source
from errdex.sources import resolve
from errdex.store import Store, open_store
from tests.conftest import TEST_CACHE

pytestmark = pytest.mark.network

OLD, NEW = "pypi:requests==2.31.0", "pypi:requests==2.32.3"
REWORDED_OLD = (
    "Invalid leading whitespace, reserved character(s), or returncharacter(s) in header "
    "{header_kind}: {header_part!r}"
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = open_store(tmp_path_factory.mktemp("history") / "errdex.sqlite")
    index_source(OLD, store)
    index_source(NEW, store)
    return store


def changes_of(store: Store) -> list[tuple[str, str, str]]:
    changes = diff_records(
        store.iter_records(package="requests", version="2.31.0"),
        store.iter_records(package="requests", version="2.32.3"),
    )
    return [
        (
            c.kind,
            (c.new or c.old or {})["location"]["function"],
            (c.new or c.old or {})["message"]["text"],
        )
        for c in changes
        if c.kind != "moved"
    ]


def test_added_removed_and_reworded_errors_are_the_ones_verified_by_hand(store: Store) -> None:
    assert changes_of(store) == [
        ("added", "HTTPAdapter.get_connection_with_tls_context", "{e}"),
        (
            "added",
            "HTTPAdapter.get_connection_with_tls_context",
            "Please check proxy URL. It is malformed and could be missing the host.",
        ),
        (
            "removed",
            "check_compatibility",
            "You need either charset_normalizer or chardet installed",
        ),
        (
            "reworded",
            "_validate_header_part",
            REWORDED_OLD.replace("returncharacter", "return character"),
        ),
    ]


def test_the_move_to_src_layout_is_moves_not_new_errors(store: Store) -> None:
    changes = diff_records(
        store.iter_records(package="requests", version="2.31.0"),
        store.iter_records(package="requests", version="2.32.3"),
    )
    counts = summary(changes)
    assert counts["retyped"] == 0 and counts["moved"] == 63
    moved = [c for c in changes if c.kind == "moved"]
    assert all(c.new and c.new["location"]["file"].startswith("src/requests/") for c in moved)
    assert all(c.old and c.old["location"]["file"].startswith("requests/") for c in moved)


def test_history_links_the_reworded_error_to_its_predecessor(store: Store) -> None:
    reworded = store.find_by_message(REWORDED_OLD.replace("returncharacter", "return character"))
    record = store.get(reworded[0]["id"])
    assert record is not None and record["versions"] == ["2.32.3"]
    events = lineage(store, record)
    assert [(e["from"], e["to"], e["kind"]) for e in events] == [("2.31.0", "2.32.3", "reworded")]
    assert events[0]["old"]["message"] == REWORDED_OLD


def test_unchanged_error_lists_both_versions(store: Store) -> None:
    found = store.find_by_message("You can only send PreparedRequests.")
    record = store.get(found[0]["id"])
    assert record is not None
    # The file moved into src/, so the id changed: only the newest version has it ...
    assert record["versions"] == ["2.32.3"]
    # ... and the lineage says it moved rather than appeared.
    assert [e["kind"] for e in lineage(store, record)] == ["moved"]


def test_second_version_reuses_cached_files_with_identical_results(tmp_path: Path) -> None:
    # idna keeps its layout between these releases, so unchanged files share cache keys.
    old, new = (resolve(f"pypi:idna=={v}", cache_dir=TEST_CACHE) for v in ("3.6", "3.7"))
    stacked = open_store(tmp_path / "stacked.sqlite")
    first = index_snapshot(old, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    second = index_snapshot(new, stacked, cache_path=tmp_path / "stacked-facts.sqlite")
    alone = open_store(tmp_path / "alone.sqlite")
    index_snapshot(new, alone, cache_path=tmp_path / "alone-facts.sqlite")
    assert first.parsed == first.files
    assert 0 < second.parsed < second.files  # files unchanged since 3.6 came from the cache

    def records(store: Store) -> list[str]:
        return [
            json.dumps(r, sort_keys=True) for r in store.iter_records(package="idna", version="3.7")
        ]

    assert records(stacked) == records(alone)


def test_all_versions_since_indexes_each_release_once(tmp_path: Path) -> None:
    from errdex.index import index_all_versions
    from errdex.sources import pypi_versions

    store = open_store(tmp_path / "errdex.sqlite")
    wanted = [v for v in pypi_versions("six") if Version(v) >= Version("1.16.0")]
    first = index_all_versions("six", store, since="1.16.0")
    assert [r.snapshot.version for r in first] == wanted
    assert index_all_versions("six", store, since="1.16.0") == []  # nothing left to do
    assert [s["version"] for s in store.snapshots()] == wanted
