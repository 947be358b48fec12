# A killed `errdex export` takes its renderers with it: the export's worker processes end
# when it does, even by kill -9 (as the parse's workers do), instead of writing on into
# the folder. A real `python -m errdex export --workers 2`, killed once its workers run.
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errdex.index import index_source
from errdex.store import open_store

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)"
)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie no longer does: it waits only to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_export_workers_end_with_a_killed_export(tmp_path: Path) -> None:
    db = tmp_path / "errdex.sqlite"
    with open_store(db) as store:
        index_source("installed:click", store)
        index_source("installed:pytest", store)
    command = [
        sys.executable, "-m", "errdex", "export", str(tmp_path / "site"),
        "--db", str(db), "--workers", "2",
    ]  # fmt: skip
    export = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while len(workers) < 2 and export.poll() is None and time.monotonic() < deadline:
        workers = [pid for pid in _children(export.pid) if _alive(pid)]
        time.sleep(0.005)
    if export.poll() is not None:
        pytest.fail("the export ended before its workers could be seen")
    export.send_signal(signal.SIGKILL)
    export.wait(30)
    assert len(workers) == 2
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # do not leave them behind this test either
        os.kill(pid, signal.SIGKILL)
    assert left == [], "export workers outlived the killed export"
