# errdex at scale on one PostgreSQL database: indexers in real concurrent processes
# never corrupt each other (the same snapshot twice at once ends as one whole copy), and
# several `errdex serve` processes give the same JSON for the same request and pick up
# a snapshot another process writes.
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from errdex.index import index_source
from errdex.store import open_store
from tests.conftest import write_tree
from tests.test_match_index import consistent
from tests.web_support import free_port


def package(root: Path, name: str, count: int, word: str = "refused") -> Path:
    """A package `name` of `count` raises, each with its own message."""
    body = "\n".join(
        f"def f{i}(x, limit):\n    if x > limit:\n"
        f"        raise ValueError(f'{name} case {i} {word}: {{x}} is over {{limit}}')\n"
        for i in range(count)
    )
    return write_tree(root / name, {f"{name}/__init__.py": body}) / ""


# Each writer waits for the same moment, then indexes its tree into the database.
WRITER = """
import sys, time
from pathlib import Path
from errdex.index import index_source
from errdex.store import open_store

db, tree, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
with open_store(db) as store:
    while not go.exists():
        time.sleep(0.01)
    index_source(tree, store, use_cache=False, force=True, workers=1)
"""


def test_concurrent_indexers_write_whole_snapshots(tmp_path: Path, postgres_db: str) -> None:
    trees = {name: package(tmp_path, name, n) for name, n in (("alpha", 150), ("beta", 90))}
    trees["gamma"] = package(tmp_path, "gamma", 120)
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    go = tmp_path / "go"
    open_store(postgres_db).close()  # the schema, before the writers race
    jobs = ["alpha", "beta", "gamma", "gamma"]  # gamma twice at once
    writers = [
        subprocess.Popen([sys.executable, str(script), postgres_db, str(trees[j]), str(go)])
        for j in jobs
    ]
    time.sleep(1.0)  # each has its connection open
    go.touch()
    for writer in writers:
        assert writer.wait(300) == 0
    with open_store(postgres_db, create=False) as store:
        assert [(s.package, s.sites) for s in store.snapshots()] == [
            ("alpha", 150), ("beta", 90), ("gamma", 120),
        ]  # fmt: skip
        for name, count in (("alpha", 150), ("beta", 90), ("gamma", 120)):
            records = store.list_records(package=name)
            assert len(records) == count
            assert len({r.id for r in records}) == count  # one copy, not two
        assert store.generation() == 4  # every write counted
    consistent(postgres_db)


@contextmanager
def serving(db: str, *extra: str) -> Iterator[str]:
    """`errdex serve --db db` in its own process; yield its base URL, then stop it."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "errdex", "serve", "--db", db, "--port", str(port), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "ERRDEX_DB": db},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.communicate()[1]
            try:
                if httpx.get(f"{base}/api/packages", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server never answered"
            time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_servers_on_one_database_answer_alike(tmp_path: Path, postgres_db: str) -> None:
    with open_store(postgres_db) as store:
        for name, count in (("alpha", 40), ("beta", 30)):
            index_source(str(package(tmp_path, name, count)), store, use_cache=False)
        ids = [r.id for r in store.list_records()]
        alpha = next(s.version for s in store.snapshots() if s.package == "alpha")
    requests: list[tuple[str, str, dict[str, str] | None]] = [
        ("GET", "/api/packages", None),
        ("GET", f"/api/packages/alpha/{alpha}/errors", None),
        *[("GET", f"/api/errors/{i}", None) for i in ids],
        *[("GET", f"/api/search?q=case+{n}", None) for n in range(40)],
        *[("POST", "/api/match", {"text": f"ValueError: beta case {n} refused: 9 is over 3"})
          for n in range(30)],
    ]  # fmt: skip
    with (
        serving(postgres_db) as one,
        serving(postgres_db, "--workers", "2") as two,
        httpx.Client(timeout=30) as http,
    ):
        answers = 0
        while answers < 1000:
            for method, path, body in requests:
                first = http.request(method, one + path, json=body)
                second = http.request(method, two + path, json=body)
                assert first.status_code == second.status_code == 200, path
                assert first.json() == second.json(), path
                answers += 2
        seen = "ValueError: gamma case 3 refused: 5 is over 1"
        assert http.post(f"{one}/api/match", json={"text": seen}).json()["matches"] == []
        with open_store(postgres_db) as writer:  # another process's index, say
            index_source(str(package(tmp_path, "gamma", 10)), writer, use_cache=False)
        deadline = time.monotonic() + 30
        for base in (one, two):
            while "gamma" not in str(http.get(f"{base}/api/packages").json()):
                assert time.monotonic() < deadline, "a server never saw the new snapshot"
                time.sleep(0.2)
        found = [http.post(f"{b}/api/match", json={"text": seen}).json() for b in (one, two)]
        assert found[0] == found[1] and found[0]["matches"][0]["package"] == "gamma"
