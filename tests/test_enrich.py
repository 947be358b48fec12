# The optional LLM client against a real OpenAI-compatible HTTP server on loopback,
# written here: good answers, slow answers, 500s and malformed JSON.
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from errdex.codec import enrichment_to_json
from errdex.enrich import EnrichError, enrich_records, settings_from_env
from errdex.index import index_source
from errdex.model import Record
from errdex.store import Store, open_store
from tests.conftest import write_tree


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[dict[str, Any]]
    failures_left: int
    in_flight: int
    most_in_flight: int
    lock: threading.Lock


class Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            server.in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
        try:
            self._answer(body["model"])
        finally:
            with server.lock:
                server.in_flight -= 1

    def _answer(self, model: str) -> None:
        if model == "slow":
            time.sleep(1.0)
        if model == "busy":
            time.sleep(0.2)
        if model == "flaky":
            with self.server.lock:
                fail = self.server.failures_left > 0
                self.server.failures_left -= 1
            if fail:
                return self._send(500, b'{"error": "overloaded"}')
        if model == "down":
            return self._send(503, b"unavailable")
        if model == "malformed":
            return self._send(200, b'{"choices": [')
        if model == "wrong-shape":
            return self._send(200, b'{"choices": []}')
        if model == "unauthorized":
            return self._send(401, b'{"error": "bad key"}')
        question = self.server.requests[-1]["body"]["messages"][1]["content"]
        answer = {
            "choices": [
                {"message": {"role": "assistant", "content": f"Answer about {len(question)} chars"}}
            ]
        }
        self._send(200, json.dumps(answer).encode())

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    httpd = ChatServer(("127.0.0.1", 0), Handler)
    httpd.requests = []
    httpd.failures_left = 2
    httpd.in_flight = 0
    httpd.most_in_flight = 0
    httpd.lock = threading.Lock()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def url(server: ChatServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


PACKAGE = {
    "pkg/__init__.py": """
        class C:
            def __post_init__(self):
                if self.on and self.x < 0:
                    raise ValueError("x must be non-negative (0 = auto-infer)")

        def check(n):
            if n == 1:
                raise KeyError("one is not allowed here")
            if n == 2:
                raise KeyError("two is not allowed here")
            if n == 3:
                raise KeyError("three is not allowed here")
            if n == 4:
                raise KeyError("four is not allowed here")
            if n == 5:
                raise KeyError("five is not allowed here")
        """,
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A real store with a small package indexed (six sites), as `errdex enrich` sees it."""
    write_tree(tmp_path / "src", PACKAGE)
    with open_store(tmp_path / "errdex.sqlite") as db:
        index_source(str(tmp_path / "src"), db, use_cache=False)
        yield db


def record(store: Store) -> Record:
    """The record of the first raise: the one with a guard and an input."""
    [found] = [r for r in store.list_records() if r.site.exception.name == "ValueError"]
    return found


def test_answer_is_stored_beside_and_cached(server: ChatServer, store: Store) -> None:
    results = enrich_records(
        [record(store)], store, base_url=url(server), model="tiny", api_key="k"
    )
    [result] = results
    assert result.error is None and not result.cached
    assert result.enrichment is not None
    assert result.enrichment.text.startswith("Answer about")
    assert result.enrichment.model == "tiny"
    shown = enrichment_to_json(result.enrichment)
    assert shown["provenance"] == "llm" and shown["created"][:4].isdigit()
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer k"
    assert "self.on and self.x < 0" in sent["body"]["messages"][1]["content"]
    # Same id and model: from the store, no request. Another model asks again.
    again = enrich_records([record(store)], store, base_url=url(server), model="tiny")
    assert again[0].cached and again[0].enrichment == result.enrichment
    assert len(server.requests) == 1
    enrich_records([record(store)], store, base_url=url(server), model="other")
    assert len(server.requests) == 2
    assert store.enrichment(record(store).id, "tiny") == result.enrichment
    stored = store.get(record(store).id)
    assert stored is not None and stored.ai is not None and stored.ai.model == "other"


def test_retries_server_errors(server: ChatServer, store: Store) -> None:
    [result] = enrich_records(
        [record(store)], store, base_url=url(server), model="flaky", retries=2, backoff=0.01
    )
    assert result.enrichment is not None and len(server.requests) == 3


def test_gives_up_after_retries(server: ChatServer, store: Store) -> None:
    [result] = enrich_records(
        [record(store)], store, base_url=url(server), model="down", retries=1, backoff=0.01
    )
    assert result.enrichment is None
    assert result.error is not None and "HTTP 503" in result.error and "2 attempts" in result.error


def test_slow_answer_times_out(server: ChatServer, store: Store) -> None:
    started = time.perf_counter()
    [result] = enrich_records(
        [record(store)], store, base_url=url(server), model="slow", timeout=0.2, retries=0
    )
    assert result.error is not None and "timeout" in result.error
    assert time.perf_counter() - started < 0.9


@pytest.mark.parametrize("model", ["malformed", "wrong-shape"])
def test_malformed_answers_are_errors(server: ChatServer, store: Store, model: str) -> None:
    [result] = enrich_records([record(store)], store, base_url=url(server), model=model, retries=0)
    assert result.enrichment is None
    assert result.error is not None and "malformed chat completion" in result.error


def test_client_errors_are_not_retried(server: ChatServer, store: Store) -> None:
    [result] = enrich_records(
        [record(store)], store, base_url=url(server), model="unauthorized", retries=3
    )
    assert result.error is not None and "HTTP 401" in result.error and "key" in result.error
    assert len(server.requests) == 1


def test_concurrency_is_limited(server: ChatServer, store: Store) -> None:
    records = store.list_records()
    assert len(records) == 6
    results = enrich_records(records, store, base_url=url(server), model="busy", concurrency=2)
    assert [r.site_id for r in results] == [r.id for r in records]
    assert all(r.enrichment is not None for r in results)
    assert server.most_in_flight == 2


def test_unreachable_endpoint(store: Store) -> None:
    [result] = enrich_records(
        [record(store)], store, base_url="http://127.0.0.1:9/v1", model="m", retries=0
    )
    assert result.error is not None and "cannot reach" in result.error


def test_settings_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ERRDEX_LLM_URL", raising=False)
    monkeypatch.delenv("ERRDEX_LLM_MODEL", raising=False)
    with pytest.raises(EnrichError, match="ERRDEX_LLM_URL"):
        settings_from_env()
    monkeypatch.setenv("ERRDEX_LLM_URL", "http://h/v1")
    monkeypatch.setenv("ERRDEX_LLM_MODEL", "m")
    monkeypatch.setenv("ERRDEX_LLM_KEY", "secret")
    assert settings_from_env() == ("http://h/v1", "m", "secret")
    assert settings_from_env(model="x")[1] == "x"


def test_cli_enrich_then_show_puts_the_answer_beside_the_explanation(
    server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from errdex.cli import app

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "def check(n):\n    if n < 0:\n        raise ValueError('n must be non-negative')\n"
    )
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    db = str(tmp_path / "errdex.sqlite")
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(tmp_path), "--db", db]).exit_code == 0
    done = runner.invoke(
        app, ["enrich", "--url", url(server), "--model", "m", "--db", db, "--json"]
    )
    assert done.exit_code == 0, done.output
    [answer] = json.loads(done.output)
    assert answer["ai"]["model"] == "m" and answer["ai"]["text"].startswith("Answer about")
    shown = runner.invoke(app, ["show", answer["id"], "--db", db, "--json"])
    record = json.loads(shown.output)
    assert record["ai"] == answer["ai"]
    assert record["explanation"]["provenance"] == "static"  # the static text is untouched
    text = runner.invoke(app, ["show", answer["id"], "--db", db]).output
    assert "What it means" in text and "AI note" in text
