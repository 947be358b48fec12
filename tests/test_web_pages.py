# What a careful user notices on the pages, over a real server: conditions keep their
# parentheses, the package filter reads messages only, search puts message matches
# first without field labels, a pasted error's answer says what to do inline, and
# docstrings read as paragraphs.
from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from errdex.index import index_source
from errdex.store import Store, open_store
from tests.conftest import write_tree
from tests.web_support import running

FILES = {
    "shop/__init__.py": '''
        from dataclasses import dataclass


        @dataclass
        class Cart:
            backend: str = "memory"
            """Where carts are kept.
            One of memory or redis; the redis
            backend needs a server."""

            size: int = 0

            def __post_init__(self):
                if self.backend not in ("memory", "redis"):
                    raise ValueError(f"unknown cart backend {self.backend!r}")
                if self.size == 0 or self.size > 9:
                    pass
                else:
                    raise ValueError("cart sizes between 1 and 9 must be explicit")
                if self.size < 0:
                    raise ValueError(f"size must be non-negative, got {self.size}")
        ''',
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, str]]:
    root = tmp_path_factory.mktemp("shop")
    write_tree(root, FILES)
    with open_store(root / "errdex.sqlite") as store:
        index_source(str(root), store, use_cache=False)
        with running(store) as base:
            yield store, base


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def record_id(store: Store, words: str) -> str:
    [found] = [r for r in store.list_records() if r.site.message and words in r.site.message.text]
    return found.id


def test_a_negated_condition_keeps_its_parentheses(shop: tuple[Store, str]) -> None:
    store, base = shop
    page = httpx.get(f"{base}/errors/{record_id(store, 'between 1 and 9')}").text
    assert '<span class="neg">not</span> <code>(self.size == 0 or self.size &gt; 9)</code>' in page


def test_the_package_filter_reads_messages_only(shop: tuple[Store, str]) -> None:
    store, base = shop
    [snap] = store.snapshots()
    listing = httpx.get(
        f"{base}/api/packages/{snap.package}/{snap.version}/errors", params={"q": "backend"}
    )
    messages = [e["message"] for e in listing.json()["errors"]]
    assert messages == ["unknown cart backend {self.backend!r}"]  # not the other two


def test_search_puts_message_matches_first_without_labels(shop: tuple[Store, str]) -> None:
    _, base = shop
    found = httpx.get(f"{base}/api/search", params={"q": "backend"}).json()
    assert found["total"] >= 2  # the other errors mention `backend` in their explanation
    assert found["results"][0]["message"] == "unknown cart backend {self.backend!r}"
    page = httpx.get(f"{base}/search", params={"q": "backend"}).text
    assert "explanation:" not in page and "inputs:" not in page
    assert "`" not in text_of(page.split('<div id="search-results">', 1)[1].split("</ol>")[0])


def test_a_pasted_error_says_what_it_means_inline(shop: tuple[Store, str]) -> None:
    _, base = shop
    page = httpx.post(
        f"{base}/match", data={"text": "ValueError: size must be non-negative, got -2"}
    ).text
    assert 'class="answer-title"' in page and 'class="answer-when"' in page
    assert "size must be non-negative" in text_of(page)
    assert 'class="answer-fix"' in page


def test_docstrings_read_as_paragraphs(shop: tuple[Store, str]) -> None:
    store, base = shop
    page = httpx.get(f"{base}/errors/{record_id(store, 'unknown cart backend')}").text
    assert "One of memory or redis; the redis backend needs a server." in text_of(page)


def test_long_identifiers_break_at_their_seams_only(shop: tuple[Store, str]) -> None:
    store, base = shop
    page = httpx.get(f"{base}/errors/{record_id(store, 'unknown cart backend')}").text
    heading = page.split("<h1>", 1)[1].split("</h1>", 1)[0]
    assert "<wbr>" not in heading or all(
        part.endswith(("_", ".", "/")) for part in heading.split("<wbr>")[:-1]
    )
    css = httpx.get(f"{base}/static/style.css").text
    code_rule = css.split("\ncode {", 1)[1].split("}", 1)[0]
    assert "anywhere" not in code_rule  # which broke identifiers mid-word


def test_search_results_link_back_to_pages(shop: tuple[Store, str]) -> None:
    _, base = shop
    hit = httpx.get(f"{base}/api/search", params={"q": "cart size"}).json()["results"][0]
    assert httpx.get(base + hit["url"]).status_code == 200
