# HEAD wherever GET is served (RFC 9110): every page and API route of a real server on
# loopback answers HEAD with the GET's status and headers and no body. The routes are
# read from the application itself, so a route added later is covered too.
from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi.routing import APIRoute

from errdex.store import Store
from errdex.web.app import create_app
from tests.web_support import running

_SAME = ("content-type", "content-length", "etag", "cache-control")


@pytest.fixture(scope="module")
def client(evil: Store) -> Iterator[httpx.Client]:
    with running(evil) as base, httpx.Client(base_url=base, timeout=30) as http:
        yield http


def _get_paths(store: Store) -> list[str]:
    """Every GET route of the application, its path parameters filled from `store`."""
    record = store.list_records(limit=1)[0]
    fill = {
        "{name}": record.package,
        "{version}": record.version,
        "{site_id}": record.id,
    }
    paths = ["/static/style.css", "/search?q=script", "/api/search?q=script"]
    for route in create_app(store, warm=False).routes:
        if isinstance(route, APIRoute) and "GET" in (route.methods or ()):
            path = route.path
            for hole, value in fill.items():
                path = path.replace(hole, value)
            assert "{" not in path, route.path
            paths.append(path)
    return paths


def test_every_get_route_answers_head_without_a_body(evil: Store, client: httpx.Client) -> None:
    paths = _get_paths(evil)
    assert len(paths) > 12
    for path in paths:
        got = client.get(path)
        assert got.status_code == 200, (path, got.text[:200])
        head = client.head(path)
        assert head.status_code == 200, (path, head.text[:200])
        assert head.content == b"", path
        for name in _SAME:
            assert head.headers.get(name) == got.headers.get(name), (path, name)


def test_head_of_a_missing_error_is_404_and_of_a_post_route_405(client: httpx.Client) -> None:
    assert client.head("/api/errors/0123456789abcdef").status_code == 404
    assert client.head("/errors/0123456789abcdef").status_code == 404
    assert client.head("/api/match").status_code == 405
