# The shortcuts of an incremental index change nothing on a real release: vllm 0.28.0
# indexed on top of 0.27.0 (one store, one cache: facts of unchanged files and the prose
# of unchanged sites reused) gives exactly the records of 0.28.0 indexed alone into a
# fresh store with a fresh cache. The smaller releases (requests, idna) and the cases a
# key alone cannot see are in test_reuse.py.
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from errdex.sources import resolve
from tests.conftest import TEST_CACHE, require_pypi
from tests.test_reuse import stacked_and_alone


@pytest.mark.network
def test_vllm_0_28_0_on_top_of_0_27_0_equals_it_alone(tmp_path: Path) -> None:
    require_pypi("pypi:vllm==0.27.0", "pypi:vllm==0.28.0")
    old, new = (resolve(f"pypi:vllm=={v}", cache_dir=TEST_CACHE) for v in ("0.27.0", "0.28.0"))
    second, on_top, alone = stacked_and_alone(tmp_path, old, new)
    # 778 of 2,238 files changed: most files are read from the facts cache, and the
    # prose of the sites whose facts and lookups are unchanged is reused
    assert second.parsed < second.files / 2
    assert 0 < second.reused < second.site_count
    assert len(on_top) == second.site_count > 6000
    assert on_top == alone
    # most records that only moved are stored once for both versions: 0.28.0 shared
    # 77% of its records with 0.27.0 when measured (35% while a move made a new record)
    with sqlite3.connect(tmp_path / "stacked.sqlite") as raw:
        records, members = raw.execute(
            "SELECT (SELECT count(*) FROM records), (SELECT count(*) FROM members)"
        ).fetchone()
    raw.close()
    shared = members - records
    assert shared > 0.7 * second.site_count
