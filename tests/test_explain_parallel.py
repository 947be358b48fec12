# Explain on every core (errdex/explain/parallel.py): the per-site part over a pool of
# forked workers and the test fit in a forked child give exactly what one process gives.
from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from errdex.codec import record_to_json
from errdex.explain.parallel import beside, cores, over_workers
from errdex.index import index_snapshot
from errdex.model import Snapshot
from errdex.store import open_store
from errdex.store._common import pack_body, stored_bodies
from tests.conftest import write_tree

needs_two_cores = pytest.mark.skipif(cores() < 2, reason="one core here: nothing runs beside")


def _pids(start: int, stop: int) -> list[tuple[int, int]]:
    return [(i, os.getpid()) for i in range(start, stop)]


@needs_two_cores
def test_the_items_are_done_in_workers_and_answered_in_order() -> None:
    wait = over_workers(_pids, 1000, chunk=100, least=500)
    answers = wait()
    assert [i for i, _ in answers] == list(range(1000))
    assert wait() is answers  # a second wait gives the same answers, not a second run
    assert os.getpid() not in {pid for _, pid in answers}  # none of them here
    few = over_workers(_pids, 100, chunk=100, least=500)()
    assert {pid for _, pid in few} == {os.getpid()}  # too few to fork for


@needs_two_cores
def test_a_job_beside_answers_from_a_child_and_raises_what_it_raised() -> None:
    wait = beside(os.getpid, worth_it=True)
    assert wait() != os.getpid()

    def fails() -> int:
        raise ValueError("no answer for 'x'")

    with pytest.raises(ValueError, match="no answer for 'x'"):
        beside(fails, worth_it=True)()


@contextmanager
def a_thread_running() -> Iterator[None]:
    """A second thread, so that no fork is safe (extract.process_context): everything
    runs in this one process."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def many_sites(module: int) -> str:
    """A module of 40 checks, some in handlers, some calling one another."""
    out = [f"from pkg.m{(module + 1) % 20} import check_0 as next_check\n"]
    for n in range(40):
        if n % 4 == 0:
            out.append(
                f"def check_{n}(path, size):\n"
                "    try:\n"
                "        handle = open(path)\n"
                "        data = handle.read(size)\n"
                "    except OSError as exc:\n"
                f'        raise RuntimeError("cannot read the table {module}.{n}") from exc\n'
                "    return data\n"
            )
        else:
            out.append(
                f"def check_{n}(rate, name):\n"
                f"    if rate < {n}:\n"
                f'        raise ValueError(f"rate {module}.{n} is under {n}: {{rate}}")\n'
                f"    if not name:\n"
                f'        assert rate, "rate {module}.{n} is set"\n'
                f"    return next_check(rate, name) if rate > 100 else rate\n"
            )
    return "\n\n".join(out)


def records(path: Path) -> list[str]:
    store = open_store(path)
    return [json.dumps(record_to_json(r), sort_keys=True) for r in store.iter_records()]


@needs_two_cores
def test_explained_on_every_core_as_in_one_process(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", **{f"pkg/m{m}.py": many_sites(m) for m in range(20)}}
    root = write_tree(tmp_path / "tree", files)
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    pooled = index_snapshot(snapshot, open_store(tmp_path / "a.sqlite"), cache_path=None)
    assert pooled.site_count > 1000  # over the pool's floor, and the test fit's
    with a_thread_running():
        alone = index_snapshot(snapshot, open_store(tmp_path / "b.sqlite"), cache_path=None)
    assert records(tmp_path / "a.sqlite") == records(tmp_path / "b.sqlite")
    said = [json.loads(r)["explanation"]["solutions"] for r in records(tmp_path / "a.sqlite")]
    assert any("before line" in s for fixes in said for s in fixes)
    assert alone.reused == pooled.reused == 0

    # the prose kept by the workers, reused by them on the next index
    store, cache = open_store(tmp_path / "c.sqlite"), tmp_path / "facts.sqlite"
    first = index_snapshot(snapshot, store, cache_path=cache)
    again = index_snapshot(snapshot, store, cache_path=cache, force=True)
    assert (first.reused, again.reused) == (0, again.site_count)
    assert records(tmp_path / "c.sqlite") == records(tmp_path / "a.sqlite")


@needs_two_cores
def test_stored_bodies_made_on_every_core_as_in_one_process(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", **{f"pkg/m{m}.py": many_sites(m) for m in range(30)}}
    root = write_tree(tmp_path / "tree", files)
    snapshot = Snapshot(package="pkg", version="1.0", root=root, source=str(root))
    sites = index_snapshot(snapshot, open_store(tmp_path / "a.sqlite"), cache_path=None).sites
    assert len(sites) > 1000  # over the floor of the bodies' pool
    pooled = stored_bodies(snapshot, sites, compress=True)()
    with a_thread_running():  # no fork is safe: made here
        alone = stored_bodies(snapshot, sites, compress=True)()
    assert pooled == alone
    assert len({stored.digest for stored in pooled}) == len(sites)
    # each line number stands as one mark in its body's text, compressed as stored
    assert all(s.body.text.count("\x01") == len(s.body.lines) > 0 for s in pooled)
    assert [s.compressed() for s in pooled] == [pack_body(s.body) for s in pooled]
    assert all(s.packed is None for s in stored_bodies(snapshot, sites)())
