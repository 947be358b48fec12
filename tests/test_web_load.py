# What made 200 clients on the /api routes wait (benchmarks/bench_load.py measures it):
# many requests for one page made it once each, all at once (a version's counts decoded
# every record of it, and a page of 500 errors took 100 ms).
# Real servers on loopback, real threads, real stores.
from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from errdex.index import index_source
from errdex.store import Store, open_store
from errdex.web.app import SERVER_OPTIONS, Finished, create_app
from tests.web_support import free_port


@pytest.fixture(scope="module")
def click_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = open_store(tmp_path_factory.mktemp("click") / "errdex.sqlite")
    index_source("installed:click", store)
    yield store
    store.close()


def _serve(store: Store, max_requests: int) -> tuple[uvicorn.Server, threading.Thread, str]:
    port = free_port()
    app = create_app(store, warm=False, max_requests=max_requests)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", **SERVER_OPTIONS)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{port}"


def test_many_askers_of_one_answer_make_it_once() -> None:
    finished = Finished(1 << 20)
    made: list[int] = []
    arrived: list[int] = []

    def make() -> bytes:
        made.append(1)
        deadline = time.monotonic() + 30  # every asker comes while it is being made
        while len(arrived) < 8 and time.monotonic() < deadline:
            time.sleep(0.001)
        return b"the page"

    answers: list[tuple[bytes, str]] = []

    def ask() -> None:
        arrived.append(1)
        answers.append(finished.made("page", make))

    askers = [threading.Thread(target=ask) for _ in range(8)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(30)
    assert len(made) == 1
    assert len(answers) == 8 and len(set(answers)) == 1 and answers[0][0] == b"the page"


def test_a_failed_answer_is_made_again_by_the_next_asker() -> None:
    finished = Finished(1 << 20)

    def fail() -> bytes:
        raise ValueError("could not make it")

    with pytest.raises(ValueError):
        finished.made("page", fail)
    assert finished.made("page", lambda: b"made")[0] == b"made"


def test_a_versions_tallies_are_what_its_records_say(db_location: str, tmp_path: Path) -> None:
    with open_store(db_location) as store:
        index_source("installed:click", store)
        (snapshot,) = store.snapshots()
        counted: Counter[tuple[str, str]] = Counter(
            (r.site.exception.name, r.site.location.file)
            for r in store.iter_records(package=snapshot.package, version=snapshot.version)
        )
        tallied = store.tallies(snapshot.package, snapshot.version)
    assert {(name, file): count for name, file, count in tallied} == dict(counted)
    assert sum(counted.values()) == snapshot.sites > 50


def test_the_package_api_answers_the_same_from_its_cache(click_store: Store) -> None:
    (snapshot,) = click_store.snapshots()
    server, thread, base = _serve(click_store, max_requests=200)
    path = f"/api/packages/{snapshot.package}/{snapshot.version}/errors?limit=20&offset=40"
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            first, second = http.get(path), http.get(path)
            again = http.get(path, headers={"If-None-Match": first.headers["etag"]})
    finally:
        server.should_exit = True
        thread.join(10)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first.json()["offset"] == 40
    assert first.json()["total"] == snapshot.sites and len(first.json()["errors"]) == 20
    assert again.status_code == 304
