# The site and JSON API as a client sees them: a real uvicorn server on loopback over a
# real SQLite file, asked with httpx. The indexed package is hostile on purpose: its
# messages and docstrings hold <script>, quotes and {{ }}.
from __future__ import annotations

import contextlib
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from errdex.codec import record_to_json
from errdex.index import index_source
from errdex.store import Store, open_store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.links import Links
from tests.conftest import write_tree
from tests.web_support import COMMIT, REPO, SECTIONS, running

SCRIPT_ID_MESSAGE = "bad mode"


@pytest.fixture(scope="module")
def client(evil: Store) -> Iterator[httpx.Client]:
    with running(evil) as base, httpx.Client(base_url=base, timeout=30) as http:
        yield http


def record_with(store: Store, words: str) -> dict[str, object]:
    records = [record_to_json(r) for r in store.list_records()]
    found = [r for r in records if words in (r["message"] or {}).get("text", "")]
    assert len(found) == 1, words
    return found[0]


def head(html: str) -> tuple[str, str]:
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    description = re.search(r'<meta name="description" content="([^"]*)"', html)
    assert title and description
    return title.group(1), description.group(1)


def test_home_lists_packages_with_a_search_and_a_paste_box(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'href="/packages/evil/1.0"' in page.text
    assert "4 errors" in page.text
    assert 'name="q"' in page.text and "<textarea" in page.text
    title, description = head(page.text)
    assert "errdex" in title and "evil" in description


def test_error_page_has_every_section_and_escapes_the_code(
    client: httpx.Client, evil: Store
) -> None:
    record = record_with(evil, SCRIPT_ID_MESSAGE)
    page = client.get(f"/errors/{record['id']}")
    assert page.status_code == 200
    html = page.text
    assert "<script>alert" not in html  # neither the message nor the docstring runs
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(&#39;doc&#39;)&lt;/script&gt;" in html  # the input's doc
    assert "{{{{ 7*7 }}}}" in html and "49" not in html  # shown, never evaluated
    assert '<span class="hole"' in html and "{self.mode!r}" in html
    assert "example/evil · error ·" in re.sub(r"<[^>]+>", "", html)
    for section in SECTIONS:
        assert f"<h2>{section}</h2>" in html, section
    loc = record["location"]
    assert isinstance(loc, dict)
    assert f"{loc['file']}:{loc['line']}" in html
    assert f'href="{REPO}/blob/{COMMIT}/evil/config.py#L{loc["line"]}"' in html
    assert f"View on GitHub (pinned to {COMMIT})" in html
    assert '<span class="hll">' in html  # the raise lines are marked
    assert f"Static analysis of example/evil@{COMMIT} (2024-05-01)" in html
    assert f'<a href="/api/errors/{record["id"]}">/api/errors/{record["id"]}</a>' in html
    assert "Report an issue" in html
    title, description = head(html)
    assert "ValueError in evil 1.0" in title and "&lt;script&gt;" in title
    assert "evil/config.py" in description


def test_error_json_is_the_record_and_is_cacheable(client: httpx.Client, evil: Store) -> None:
    record = record_with(evil, "non-negative")
    answer = client.get(f"/api/errors/{record['id']}")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    stored = evil.get(str(record["id"]))
    assert stored is not None and answer.json() == record_to_json(stored)
    assert answer.json()["versions"] == ["1.0"]
    assert "max-age=86400" in answer.headers["cache-control"]
    etag = answer.headers["etag"]
    again = client.get(f"/api/errors/{record['id']}", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get(f"/api/errors/{record['id']}.json").json() == answer.json()


def test_search_ranks_and_highlights(client: httpx.Client) -> None:
    found = client.get("/api/search", params={"q": "non-negative port"}).json()
    assert found["total"] == 1
    hit = found["results"][0]
    assert hit["url"] == f"/errors/{hit['id']}" and hit["exception"] == "ValueError"
    marked = [s["text"] for s in hit["highlight"]["message"] if s["match"]]
    assert marked == ["port", "non", "negative", "port"]  # {port} is a word too
    # the last word is a prefix; the words of docstrings are not searched
    assert client.get("/api/search", params={"q": "handsh"}).json()["total"] == 1
    assert client.get("/api/search", params={"q": "quotes"}).json()["total"] == 0
    page = client.get("/search", params={"q": "handshake"})
    assert page.status_code == 200 and "<mark>handshake</mark>" in page.text
    assert "TimeoutTooShort" in page.text
    for odd in ['"', "NEAR(", "*", "a OR", "<script>", "'; DROP TABLE sites; --"]:
        answer = client.get("/api/search", params={"q": odd})
        assert answer.status_code == 200, odd
    assert "&lt;script&gt;" in client.get("/search", params={"q": "<script>"}).text


def test_match_finds_the_raise_and_its_values(client: httpx.Client, evil: Store) -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "    connect(0.1)\n"
        "evil.net.TimeoutTooShort: timeout 0.1 is too short for a handshake\n"
    )
    answer = client.post("/api/match", json={"text": traceback})
    assert answer.status_code == 200
    best = answer.json()["matches"][0]
    assert best["values"] == {"timeout": "0.1"}
    assert best["url"] == f"/errors/{record_with(evil, 'handshake')['id']}"
    page = client.post("/match", data={"text": traceback})  # the form, without JS
    assert page.status_code == 200 and best["url"] in page.text
    assert "<code>0.1</code>" in page.text


def test_clear_json_errors(client: httpx.Client) -> None:
    missing = client.get("/api/errors/0000000000000000")
    assert missing.status_code == 404
    assert "no error with id '0000000000000000'" in missing.json()["error"]["message"]
    page = client.get("/errors/0000000000000000")
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]
    bad = client.get("/api/search", params={"q": "x", "limit": 1000})
    assert bad.status_code == 422
    assert bad.json()["error"]["message"] == (
        "query field 'limit': Input should be less than or equal to 100 (got '1000')"
    )
    no_text = client.post("/api/match", json={"txt": "x"})
    assert no_text.status_code == 422 and "'text': Field required" in no_text.text
    not_json = client.post(
        "/api/match", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 422
    unknown = client.get("/api/packages/evil/9.9/errors")
    assert unknown.status_code == 404
    assert "indexed versions of evil: 1.0" in unknown.json()["error"]["message"]
    nothing = client.get("/api/nothing")
    assert nothing.status_code == 404
    assert nothing.json() == {
        "error": {
            "code": "not-found",
            "message": "no page at /api/nothing; errors are at /errors/ID, the API under /api",
        }
    }
    # one error object for the API and the CLI's --json: {"error": {"code", "message"}}
    assert bad.json()["error"]["code"] == "usage" and missing.json()["error"]["code"] == "not-found"
    assert set(missing.json()["error"]) == {"code", "message"}


def test_request_bodies_are_capped(client: httpx.Client) -> None:
    big = "x" * (600 * 1024)
    declared = client.post("/api/match", json={"text": big})
    assert declared.status_code == 413
    assert "limit" in declared.json()["error"]["message"]
    assert declared.json()["error"]["code"] == "too-large"

    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b"y" * 32768

    streamed = client.post(
        "/api/match", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413
    over_matcher = client.post("/api/match", json={"text": "z" * (300 * 1024)})
    assert over_matcher.status_code == 413 and "KiB cap" in over_matcher.text


def test_package_page_groups_by_module_and_filters(client: httpx.Client) -> None:
    page = client.get("/packages/evil/1.0")
    assert page.status_code == 200
    assert "<code>evil/config.py</code>" in page.text and "<code>evil/net.py</code>" in page.text
    assert '<option value="ValueError">ValueError (2)</option>' in page.text
    data = client.get("/api/packages/evil/1.0/errors", params={"exception": "ValueError"}).json()
    assert data["matching"] == 2 and data["total"] == 4
    assert {e["exception"] for e in data["errors"]} == {"ValueError"}
    paged = client.get("/api/packages/evil/1.0/errors", params={"limit": 3, "offset": 0}).json()
    assert len(paged["errors"]) == 3 and paged["next_offset"] == 3
    text = client.get("/api/packages/evil/1.0/errors", params={"q": "toml"}).json()
    assert [e["exception"] for e in text["errors"]] == ["TypeError"]
    listed = client.get("/api/packages").json()
    assert listed["packages"][0]["name"] == "evil" and listed["sites"] == 4


def test_no_path_traversal_in_static_files(client: httpx.Client) -> None:
    assert client.get("/static/style.css").status_code == 200
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e/%2e%2e/store/schema.sql",
        "/static//etc/passwd",
    ):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "CREATE TABLE" not in answer.text and "root:" not in answer.text


def test_server_survives_bad_requests(client: httpx.Client) -> None:
    host, port = str(client.base_url.host), int(client.base_url.port or 80)
    for junk in (
        b"\x00\xff garbage\r\n\r\n",
        b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
        b"POST /api/match HTTP/1.1\r\nContent-Length: nope\r\n\r\n{}",
        b"GET /errors/%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
    ):
        with socket.create_connection((host, port), timeout=10) as sock:
            sock.sendall(junk)
            with contextlib.suppress(OSError):
                sock.recv(1024)
    assert client.get("/").status_code == 200


def test_openapi_lists_the_api(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    assert set(spec["paths"]) >= {
        "/api/errors/{site_id}",
        "/api/search",
        "/api/match",
        "/api/packages",
        "/api/packages/{name}/{version}/errors",
    }
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and '<script src="http' not in docs.text
    assert "/api/errors/{site_id}" in docs.text and 'href="/openapi.json"' in docs.text


@pytest.mark.network
def test_seed_error_page_on_vllm(vllm_db: Store, tmp_path: Path) -> None:
    seed = "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)"
    (record,) = [record_to_json(r) for r in vllm_db.find_by_message(seed)]
    with running(vllm_db) as base, httpx.Client(base_url=base, timeout=30) as http:
        html = http.get(f"/errors/{record['id']}").text
        data = http.get(f"/api/errors/{record['id']}").json()
    text = re.sub(r"<[^>]+>", "", html)
    assert "vllm-project/vllm · error · ValueError" in text
    title = record.get("title") or seed
    # never cut mid-word (a narrow screen may break it after `_`: <wbr>)
    assert f"<h1>{title}</h1>" in html.replace("<wbr>", "") and seed.startswith(title)
    assert seed in text  # the whole message
    if "explanation" in record:  # the explain stage's prose, not the page's fallback
        assert record["explanation"]["what_it_means"].replace("`", "") in text
        assert "<h2>Related errors</h2>" in html
        assert 'href="https://github.com/vllm-project/vllm/issues/new?' in html
    assert "vllm/config/compilation.py:1038" in text
    assert "View on GitHub (pinned to 2cf0a6915)" in text
    assert (
        "https://github.com/vllm-project/vllm/blob/2cf0a6915/vllm/config/compilation.py#L1038"
        in html
    )
    assert "Maximum number of images/videos per batch" in text  # the input's doc
    assert 'id="L-1038"' in html
    assert data["location"]["line"] == 1038 and json.dumps(data)


def _shop(version: str, blank_lines: int) -> dict[str, str]:
    return {
        "pyproject.toml": f'[project]\nname = "shop"\nversion = "{version}"\n',
        "shop/__init__.py": "\n" * blank_lines
        + """
def check(size, name):
    if size < 0:
        raise ValueError(f"size must be at least 0, got {size}")
    if not name:
        raise ValueError("name must not be empty")
""",
    }


def test_related_errors_follow_a_new_index(tmp_path: Path) -> None:
    """The error page lists its related errors from the web layer's cache of them, which
    a new version of the package replaces."""
    store = open_store(tmp_path / "errdex.sqlite")
    index_source(str(write_tree(tmp_path / "v1", _shop("1.0", 0))), store)
    data, links = WebData(store, recheck=0), Links()
    first, second = store.site_ids()

    def related_lines() -> list[tuple[str, str, object]]:
        page = views.error(data, links, first)
        return [(r["id"], r["version"], r["line"]) for r in page.extra["related"]]

    assert related_lines() == [(second, "1.0", 6)]
    assert related_lines() == [(second, "1.0", 6)]  # from the cache, the same
    index_source(str(write_tree(tmp_path / "v2", _shop("2.0", 3))), store)
    assert related_lines() == [(second, "2.0", 9)]
