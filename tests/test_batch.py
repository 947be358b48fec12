# `errdex index-many`: a list of real PyPI releases and trees into a real PostgreSQL
# database by a real Ray cluster with 2 workers (one per test session, started and
# stopped here): it completes, resumes after its driver is killed, retries what may
# work next time a bounded number of times, and reports a failing source without
# stopping.
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.batch import plan, top_names
from errdex.store import open_store
from tests.conftest import require_pypi, write_tree
from tests.postgres import why_not

RELEASES = [
    "pypi:six==1.16.0",
    "pypi:six==1.17.0",
    "pypi:idna==3.6",
    "pypi:idna==3.7",
    "pypi:requests==2.31.0",
    "pypi:requests==2.32.3",
]
MISSING = "/nonexistent/errdex-test/pkg"


def test_a_task_reports_its_own_peak_memory_not_the_workers(tmp_path: Path) -> None:
    """A Ray worker runs task after task: a small task after a big one says its own
    peak. Two tasks in one real process, the first holding 400 MiB for a moment."""
    write_tree(tmp_path / "small", {"small/__init__.py": "def f():\n    raise ValueError('x')\n"})
    db = tmp_path / "db.sqlite"
    open_store(db).close()
    script = f"""
import json
from errdex.batch import index_one
held = bytearray(400 * 1024 * 1024)
held[::4096] = b"x" * len(held[::4096])  # touched: resident, not only reserved
del held
print(json.dumps(index_one({str(tmp_path / "small")!r}, {str(db)!r}, {{}})))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["sites"] == 1
    if sys.platform.startswith("linux"):
        assert 0 < figures["peak_rss_mb"] < 300, figures


def test_a_list_file_and_the_shipped_ranking(tmp_path: Path) -> None:
    listing = tmp_path / "sources.txt"
    listing.write_text("# popular\npypi:six==1.17.0\n\n  ./here   # a tree\npypi:six==1.17.0\n")
    assert plan(str(listing)) == ["pypi:six==1.17.0", "./here"]  # duplicates once
    assert plan("pypi-top:3") == [f"pypi:{n}" for n in top_names(3)]
    assert len(top_names(1000)) >= 50
    ranking = tmp_path / "ranking.txt"
    ranking.write_text("alpha\nbeta\ngamma\n")
    assert plan("pypi-top:2", top_list=ranking) == ["pypi:alpha", "pypi:beta"]
    from errdex.errors import SourceError

    with pytest.raises(SourceError, match="write pypi-top:N"):
        plan("pypi-top:many")
    with pytest.raises(SourceError, match="is not a date"):
        plan(str(listing), since="last tuesday")
    with pytest.raises(SourceError, match="cannot read the list of sources"):
        plan(str(tmp_path / "absent.txt"))


@pytest.mark.network
def test_since_a_date_is_every_release_from_then(tmp_path: Path) -> None:
    ranking = tmp_path / "ranking.txt"
    ranking.write_text("six\n")
    listing = plan("pypi-top:1", top_list=ranking, since="2020-01-01")
    assert "pypi:six==1.16.0" in listing and "pypi:six==1.17.0" in listing
    assert "pypi:six==1.12.0" not in listing  # December 2018


# -- on a real cluster ------------------------------------------------------------------


def _ray() -> Path:
    return Path(sys.executable).parent / "ray"


@pytest.fixture
def ray_cluster() -> Iterator[str]:
    """The address of a Ray head with 2 CPUs on loopback, stopped after the test (kept for
    the module, it was still running when the --ray auto test below looked for none, so
    that test skipped in every run of the whole file)."""
    folder = Path(tempfile.mkdtemp(prefix="errdex-ray-"))
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    head = subprocess.Popen(
        [_ray(), "start", "--head", f"--port={port}", "--num-cpus=2",
         "--node-ip-address=127.0.0.1", "--include-dashboard=false",
         f"--temp-dir={folder}", "--block"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not list(folder.glob("session_*/logs/raylet.out")):
            assert head.poll() is None, "ray start ended"
            assert time.monotonic() < deadline, "the Ray head never came up"
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()  # ray start --block stops what it started
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_batch_completes_resumes_after_a_kill_and_reports_failures(
    tmp_path: Path, postgres_db: str, ray_cluster: str
) -> None:
    if why_not() is not None:
        pytest.skip(why_not() or "")
    require_pypi(*RELEASES)
    slow = write_tree(tmp_path / "slow", {  # many files: still indexing when killed
        f"slow/m{i}.py": f"def f(x):\n    if x > {i}:\n        raise ValueError(f'{i}: {{x}}')\n"
        for i in range(600)
    })  # fmt: skip
    listing = tmp_path / "sources.txt"
    listing.write_text("\n".join([str(slow), *RELEASES, MISSING, "pypi:six==1.15.0"]) + "\n")
    env = {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "disabled",
        # no package index: a release not in the cache fails as the network would
        "ERRDEX_PYPI_INDEX": "http://127.0.0.1:9/simple",
    }
    argv = [sys.executable, "-m", "errdex", "index-many", str(listing), "--db", postgres_db,
            "--ray", ray_cluster, "--retries", "2"]  # fmt: skip

    first = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open_store(postgres_db) as store:
        deadline = time.monotonic() + 180
        while not store.snapshots():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "no snapshot landed"
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=60)
        landed = store.snapshots()
        assert 1 <= len(landed) < 7  # killed midway
        for snapshot in landed:  # each snapshot whole
            count = store.count(package=snapshot.package, version=snapshot.version)
            assert count == snapshot.sites

    second = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 1, second.stderr  # 1: some source failed
    assert second.stderr.count(" skipped ") >= len([s for s in landed if s.package != "slow"])
    assert f"failed      {MISSING}  NotFoundError: no such directory" in second.stderr
    assert "errdex index-many" in second.stdout and "failed" in second.stdout
    with open_store(postgres_db, create=False) as store:
        stored = {(s.package, s.version) for s in store.snapshots() if s.package != "slow"}
        assert stored == {tuple(spec[5:].split("==")) for spec in RELEASES}
        assert [s.sites for s in store.snapshots() if s.package == "slow"] == [600]
        assert store.count(package="slow") == 600
        failures = {f.source: f for f in store.failures()}
        assert set(failures) == {MISSING, "pypi:six==1.15.0"}
        assert failures[MISSING].attempts == 1  # a wrong source is not tried again
        assert failures["pypi:six==1.15.0"].attempts == 3  # the network: twice again
        assert "NetworkError" in failures["pypi:six==1.15.0"].reason


# -- what the batch runs on, missing --------------------------------------------------------


def _index_many(tmp_path: Path, *args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """`errdex index-many` of a one-tree list into a SQLite file, as a user runs it;
    `prelude` is Python run first in the same process (to take Ray away)."""
    tree = write_tree(tmp_path / "tree", {"tree/__init__.py": "raise ValueError('x')\n"})
    listing = tmp_path / "sources.txt"
    listing.write_text(f"{tree}\n")
    argv = ["index-many", str(listing), "--db", str(tmp_path / "db.sqlite"), *args]
    script = f"{prelude}\nimport sys\nsys.argv = ['errdex', *{argv!r}]\n"
    script += "from errdex.cli import main\nmain()\n"
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "NO_COLOR": "1"}
    env.pop("RAY_ADDRESS", None)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )


def test_index_many_without_ray_says_what_to_install(tmp_path: Path) -> None:
    # Ray is a dependency of errdex[scale], not of errdex: a None in sys.modules is how
    # Python itself says a module cannot be imported
    done = _index_many(tmp_path, prelude="import sys\nsys.modules['ray'] = None")
    assert done.returncode == 1, done.stderr
    assert "index-many runs its tasks on Ray, which is not installed here" in done.stderr
    assert "pip install 'errdex[scale]'" in done.stderr
    assert "internal error" not in done.stderr and "bug in errdex" not in done.stderr


def test_index_many_on_ray_auto_without_a_cluster_says_what_to_start(tmp_path: Path) -> None:
    from ray._private.services import find_bootstrap_address, find_gcs_addresses

    if find_gcs_addresses() or find_bootstrap_address(None):
        pytest.skip("a Ray cluster runs on this machine; --ray auto would find it")
    done = _index_many(tmp_path, "--ray", "auto")
    assert done.returncode == 1, done.stderr
    assert "--ray auto found no running Ray cluster" in done.stderr
    assert "ray start --head" in done.stderr and "leave --ray out" in done.stderr
    assert "internal error" not in done.stderr and "bug in errdex" not in done.stderr
