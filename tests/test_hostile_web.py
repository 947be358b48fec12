# Clients that try to hold or break the server: a paste that takes the matcher a second,
# connections that never finish their headers, bodies declared and never sent, forms with
# too many fields, JSON with lone surrogates. Each against a real uvicorn server on
# loopback, configured as `errdex serve` configures it (SERVER_OPTIONS), with shorter
# deadlines so that the tests wait seconds, not minutes.
from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from errdex.model import Enrichment
from errdex.store import Store
from errdex.web.app import MAX_FORM_FIELDS, SERVER_OPTIONS, create_app
from errdex.web.limits import GuardedH11Protocol
from tests.web_support import free_port, index_evil

HEADER_TIMEOUT = 2.0
BODY_TIMEOUT = 1.5
SLACK = 3.0  # on a loaded machine, a timer may fire this late


class QuickHeaders(GuardedH11Protocol):
    header_timeout = HEADER_TIMEOUT


class FewConnections(QuickHeaders):
    max_connections = 40


@contextmanager
def serving(
    store: Store, protocol: type[GuardedH11Protocol] = QuickHeaders, **options: Any
) -> Iterator[tuple[str, int]]:
    """Serve `store` as `errdex serve` does, in a thread; yield (host, port)."""
    port = free_port()
    app = create_app(store, warm=False, body_timeout=BODY_TIMEOUT, **options)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", **{**SERVER_OPTIONS, "http": protocol}
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield "127.0.0.1", port
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def server(evil: Store) -> Iterator[tuple[str, int]]:
    with serving(evil) as address:
        yield address


@pytest.fixture
def client(server: tuple[str, int]) -> Iterator[httpx.Client]:
    host, port = server
    with httpx.Client(base_url=f"http://{host}:{port}", timeout=30) as http:
        yield http


def an_id(store: Store, words: str) -> str:
    (record,) = [r for r in store.list_records() if r.site.message and words in r.site.message.text]
    return record.id


def until_closed(sock: socket.socket, seconds: float) -> bytes | None:
    """Everything the server sends until it closes the connection, or None if it has
    not closed it within `seconds`."""
    deadline = time.monotonic() + seconds
    got = b""
    while True:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return None
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk


# -- one request never freezes the others -------------------------------------------------


@pytest.mark.parametrize("form", [True, False], ids=["POST /match", "POST /api/match"])
def test_a_slow_paste_leaves_other_requests_prompt(
    client: httpx.Client, evil: Store, form: bool
) -> None:
    # 256 KiB of messages the index knows, each with its own value: most of a second of
    # matching (the matcher may skip repeated lines, so none repeats).
    lines = (f"ValueError: port must be non-negative, got {i}\n" for i in range(10_000))
    paste = "".join(lines)[: 256 * 1024]
    finished: dict[str, float] = {}

    def slow() -> None:
        with httpx.Client(base_url=client.base_url, timeout=120) as other:
            if form:
                answer = other.post("/match", data={"text": paste})
                assert "Where does this error come from?" in answer.text
            else:
                answer = other.post("/api/match", json={"text": paste})
                assert answer.json()["query"] == paste
        assert answer.status_code == 200
        finished["slow"] = time.monotonic()

    started = time.monotonic()
    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.15)  # the paste is sent and being matched
    site_id = an_id(evil, "handshake")
    took = {}
    for path in (
        f"/errors/{site_id}",
        f"/api/errors/{site_id}",
        "/api/search?q=port",
        "/search?q=handshake",
        "/",
        "/static/style.css",
        "/errors/0000000000000000",  # an error page rendered by an error handler
    ):
        t0 = time.monotonic()
        answer = client.get(path)
        took[path] = time.monotonic() - t0
        assert answer.status_code in (200, 404), path
    asked = time.monotonic()
    thread.join(120)
    assert "slow" in finished, "the paste was not answered"
    slow_took = finished["slow"] - started
    assert slow_took > 0.3, f"the paste took only {slow_took:.2f} s: make it slower"
    # Every other request was answered while the paste was still being matched...
    assert asked < finished["slow"], (took, slow_took)
    # ...and promptly: each in a fraction of the paste's time, never behind it.
    assert max(took.values()) < slow_took / 2, (took, slow_took)


# -- slowloris: connections that never finish their headers ---------------------------------


def test_connections_that_never_finish_their_headers_neither_block_nor_stay(
    server: tuple[str, int], client: httpx.Client
) -> None:
    host, port = server
    idle = []
    try:
        opened = time.monotonic()
        for _ in range(250):
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(b"GET /api/pack")  # half a request line, and nothing more
            idle.append(sock)
        # Another client is answered, on new connections and on a kept-alive one.
        for _ in range(3):
            assert httpx.get(f"http://{host}:{port}/api/packages", timeout=10).status_code == 200
            assert client.get("/api/packages").status_code == 200
        # Each idle connection is answered 408 and closed within the header deadline.
        for sock in idle:
            got = until_closed(sock, opened + HEADER_TIMEOUT + SLACK - time.monotonic())
            assert got is not None, "an idle connection is still open"
            assert got.startswith(b"HTTP/1.1 408 "), got[:100]
            assert b"did not arrive within 2 s" in got
        closed = time.monotonic() - opened
        assert HEADER_TIMEOUT - 0.5 < closed < HEADER_TIMEOUT + SLACK, closed
    finally:
        for sock in idle:
            sock.close()
    assert client.get("/api/packages").status_code == 200


def test_a_silent_connection_is_closed_without_an_answer(server: tuple[str, int]) -> None:
    with socket.create_connection(server, timeout=10) as sock:
        opened = time.monotonic()
        # closed, with no 408 for a request never begun
        assert until_closed(sock, HEADER_TIMEOUT + SLACK) == b""
        assert time.monotonic() - opened > HEADER_TIMEOUT - 0.5


def test_a_kept_alive_connection_gets_the_deadline_for_its_next_request(
    server: tuple[str, int],
) -> None:
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(b"GET /api/packages HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        head, body = first.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 200 ")
        length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0])
        while len(body) < length:
            body += sock.recv(65536)
        sock.sendall(b"GET /api/packages HTTP/1.1\r\nHo")  # and the rest never comes
        got = until_closed(sock, HEADER_TIMEOUT + SLACK)
        assert got is not None and got.startswith(b"HTTP/1.1 408 "), got


def test_over_the_connection_cap_the_longest_waiting_makes_room(evil: Store) -> None:
    with serving(evil, FewConnections) as (host, port):
        idle = []
        try:
            for _ in range(FewConnections.max_connections + 20):
                sock = socket.create_connection((host, port), timeout=10)
                sock.sendall(b"GET /")
                idle.append(sock)
                time.sleep(0.002)  # so that "oldest" means the first opened
            time.sleep(0.2)
            for _ in range(5):
                answer = httpx.get(f"http://{host}:{port}/api/packages", timeout=10)
                assert answer.status_code == 200
            # The first ones opened were closed to make room, well before their
            # deadline; the last ones are still open.
            for sock in idle[:20]:
                assert until_closed(sock, 0.5) == b""
            assert until_closed(idle[-1], 0.2) is None
        finally:
            for sock in idle:
                sock.close()


# -- bodies declared and never sent; too many form fields -------------------------------


@pytest.mark.parametrize("path", ["/api/match", "/match"])
def test_a_body_that_never_arrives_gets_408(server: tuple[str, int], path: str) -> None:
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n{".encode()
        )
        sent = time.monotonic()
        got = until_closed(sock, BODY_TIMEOUT + SLACK)  # the server answers, then closes
        took = time.monotonic() - sent
    assert got is not None and got.startswith(b"HTTP/1.1 408 "), got
    body = json.loads(got.split(b"\r\n\r\n", 1)[1])
    assert "did not arrive within 1.5 s (1 bytes came)" in body["error"]["message"]
    assert BODY_TIMEOUT - 0.3 < took < BODY_TIMEOUT + SLACK


def test_a_slow_body_within_the_deadline_is_read(server: tuple[str, int]) -> None:
    body = json.dumps({"text": "ValueError: port must be non-negative, got 7"}).encode()
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(
            b"POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body[:10]
        )
        time.sleep(BODY_TIMEOUT / 3)
        sock.sendall(body[10:])
        got = until_closed(sock, 10)
    assert got is not None and got.startswith(b"HTTP/1.1 200 "), got
    assert json.loads(got.split(b"\r\n\r\n", 1)[1])["matches"][0]["values"] == {"port": "7"}


def test_requests_in_flight_are_capped_not_connections(evil: Store) -> None:
    with serving(evil, max_requests=1) as (host, port):
        with socket.create_connection((host, port), timeout=10) as held:
            held.sendall(
                b"POST /api/match HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"
            )  # one request in flight until its body times out
            time.sleep(0.2)
            busy = httpx.get(f"http://{host}:{port}/api/packages", timeout=10)
            assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
            assert "answering 1 requests already" in busy.json()["error"]["message"]
            got = until_closed(held, BODY_TIMEOUT + SLACK)
            assert got is not None and got.startswith(b"HTTP/1.1 408 "), got
        assert httpx.get(f"http://{host}:{port}/api/packages", timeout=10).status_code == 200


def test_a_form_with_too_many_fields_gets_400(client: httpx.Client) -> None:
    fields = {f"f{i}": "x" for i in range(MAX_FORM_FIELDS)} | {"text": "ValueError: x"}
    answer = client.post("/match", data=fields)
    assert answer.status_code == 400
    assert "text/html" in answer.headers["content-type"]
    assert f"the form has more than {MAX_FORM_FIELDS} fields" in answer.text
    two = client.post("/match", data={"text": "port must be non-negative, got 3", "package": ""})
    assert two.status_code == 200 and "<code>3</code>" in two.text


# -- JSON that is not quite text ---------------------------------------------------------


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_log() -> Iterator[list[logging.LogRecord]]:
    """What the app and uvicorn log (uvicorn's loggers do not propagate to the root)."""
    handler = Records()
    loggers = [logging.getLogger(n) for n in ("errdex.web", "uvicorn.error", "uvicorn")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def test_lone_surrogates_are_replaced_never_a_500(
    client: httpx.Client, server_log: list[logging.LogRecord]
) -> None:
    for escaped in ("\\ud800", "\\udfff", "\\udc80\\udc80"):
        body = f'{{"text": "{escaped} port must be non-negative, got 5"}}'.encode()
        answer = client.post(
            "/api/match", content=body, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 200, (escaped, answer.text)
        result = answer.json()
        assert result["query"].startswith("\ufffd")
        assert result["matches"][0]["values"] == {"port": "5"}
    paired = client.post(
        "/api/match",
        content=b'{"text": "\\ud83d\\ude00 port must be non-negative, got 5"}',
        headers={"content-type": "application/json"},
    )
    assert paired.status_code == 200 and paired.json()["query"].startswith("\U0001f600")
    in_package = client.post(
        "/api/match",
        content=b'{"text": "x", "package": "\\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert in_package.status_code == 422
    assert not [r for r in server_log if r.levelno >= logging.ERROR]


def test_hostile_json_bodies_never_get_a_500(
    client: httpx.Client, server_log: list[logging.LogRecord]
) -> None:
    for body in (
        b'{"text": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"text": "\\u0000\\u0000"}',
        b'{"text": 12}',
        b'{"text": "a", "package": 7}',
        b'{"\\ud800": "x", "text": "port must be non-negative, got 1"}',
        b"[" * 5000,
        b'"text"',
        b"\xff\xfe{}",
        b'{"text": "' + b"\xed\xa0\x80" + b'"}',  # a surrogate encoded as UTF-8 bytes
    ):
        answer = client.post(
            "/api/match", content=body, headers={"content-type": "application/json"}
        )
        assert answer.status_code in (200, 400, 422), (body[:40], answer.text)
    assert not [r for r in server_log if r.levelno >= logging.ERROR]


# -- finished pages: kept, and never stale -------------------------------------------------


def test_error_pages_are_kept_until_the_store_changes(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    site_id = an_id(store, "handshake")
    try:
        with (
            serving(store) as (host, port),
            httpx.Client(base_url=f"http://{host}:{port}", timeout=30) as http,
        ):
            page = http.get(f"/errors/{site_id}")
            record = http.get(f"/api/errors/{site_id}")
            assert page.status_code == 200 and record.status_code == 200
            assert "ai" not in record.json()
            # The same bytes again, and a 304 to a client that has them.
            assert http.get(f"/errors/{site_id}").content == page.content
            same = http.get(f"/errors/{site_id}", headers={"If-None-Match": page.headers["etag"]})
            assert same.status_code == 304
            # A model's note is on the next answer: a kept page is never stale.
            store.save_enrichment(
                Enrichment(
                    site_id=site_id,
                    model="test-model",
                    created="2026-01-01T00:00:00Z",
                    text="Raise the timeout above half a second.",
                )
            )
            noted = http.get(f"/api/errors/{site_id}")
            assert noted.json()["ai"]["text"] == "Raise the timeout above half a second."
            assert noted.headers["etag"] != record.headers["etag"]
            assert "Raise the timeout above half a second." in http.get(f"/errors/{site_id}").text
    finally:
        store.close()


# -- errdex serve --workers --------------------------------------------------------------


def test_serve_with_workers_answers_from_each(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    site_id = an_id(store, "handshake")
    store.close()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ERRDEX_DB"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "errdex",
            "serve",
            "--db",
            str(tmp_path / "errdex.sqlite"),
            "--port",
            str(port),
            "--workers",
            "2",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if http.get("/api/packages").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "errdex serve --workers 2 did not start"
                time.sleep(0.2)
            for _ in range(20):  # new connections, spread over both workers
                with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as fresh:
                    assert fresh.get(f"/errors/{site_id}").status_code == 200
                    matched = fresh.post(
                        "/api/match", json={"text": "port must be non-negative, got 9"}
                    )
                    assert matched.json()["matches"][0]["values"] == {"port": "9"}
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    assert b"4 errors in the newest version of each package at http://127.0.0.1:" in out
    assert b"2 processes" in out
    assert b"Traceback" not in err, err.decode()[-2000:]
