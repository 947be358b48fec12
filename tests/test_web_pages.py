# What a careful user notices on the pages, in a real browser (Debian's chromium through
# Playwright) over a real server: a negated condition shows what holds at the raise, the
# package filter reads messages only, search puts message matches first without field
# labels, a pasted error's answer says what to do inline, docstrings read as paragraphs,
# long names break only at their seams on a phone, and /docs works without the network.
from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, expect

from errdex.index import index_source
from errdex.store import Store, open_store
from tests.conftest import needs_chromium, write_tree
from tests.web_support import running

pytestmark = needs_chromium

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


def record_id(store: Store, words: str) -> str:
    [found] = [r for r in store.list_records() if r.site.message and words in r.site.message.text]
    return found.id


def test_a_negated_condition_shows_what_holds_at_the_raise(
    browser: Browser, shop: tuple[Store, str]
) -> None:
    store, base = shop
    found = record_id(store, "between 1 and 9")
    guards = httpx.get(f"{base}/api/errors/{found}").json()["guard"]
    [guard] = [g for g in guards if g["test"] == "self.size == 0 or self.size > 9"]
    assert guard["negated"]
    assert guard["holds"] == "self.size != 0 and self.size <= 9"  # De Morgan, from the tree
    page = browser.new_page()
    page.goto(f"{base}/errors/{found}")
    conditions = page.locator("ol.guards")
    expect(conditions).to_contain_text("self.size != 0 and self.size <= 9")
    expect(conditions).not_to_contain_text("not (")
    page.close()


def test_the_package_filter_reads_messages_only(browser: Browser, shop: tuple[Store, str]) -> None:
    store, base = shop
    [snap] = store.snapshots()
    page = browser.new_page()
    page.goto(f"{base}/packages/{snap.package}/{snap.version}")
    page.get_by_placeholder("words in the message").fill("backend")
    page.get_by_placeholder("words in the message").press("Enter")
    page.wait_for_url("**q=backend**")
    shown = page.locator("main li[data-exception] > a").all_inner_texts()
    assert shown == ["ValueError unknown cart backend {self.backend!r}"]
    page.close()


def test_search_puts_message_matches_first_without_labels(
    browser: Browser, shop: tuple[Store, str]
) -> None:
    _, base = shop
    page = browser.new_page()
    page.goto(f"{base}/")
    page.get_by_role("searchbox", name="Search error messages").fill("size")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/search?q=size")
    messages = page.locator("#search-results .msg").all_inner_texts()
    assert messages[0].startswith(("size must be", "cart sizes"))
    results = page.locator("#search-results").inner_text()
    assert "explanation:" not in results and "inputs:" not in results and "`" not in results
    page.close()


def test_a_pasted_error_says_what_it_means_inline(
    browser: Browser, shop: tuple[Store, str]
) -> None:
    _, base = shop
    page = browser.new_page()
    page.goto(f"{base}/")
    page.locator(".paste-form textarea").fill("ValueError: size must be non-negative, got -2")
    page.locator(".paste-form button").click()
    answer = page.locator(".paste-result li.match").first
    expect(answer.locator(".answer-title")).to_be_visible()
    expect(answer.locator(".answer-when")).to_contain_text("size")
    expect(answer.locator(".answer-fix")).to_contain_text("Fix:")
    assert "`" not in answer.inner_text()  # prose shows code as code, not backticks
    page.close()


def test_docstrings_read_as_paragraphs(browser: Browser, shop: tuple[Store, str]) -> None:
    store, base = shop
    page = browser.new_page()
    page.goto(f"{base}/errors/{record_id(store, 'unknown cart backend')}")
    expect(page.locator("main")).to_contain_text(
        "One of memory or redis; the redis backend needs a server."
    )
    page.close()


def test_long_identifiers_break_at_their_seams_only(
    browser: Browser, shop: tuple[Store, str]
) -> None:
    store, base = shop
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(f"{base}/errors/{record_id(store, 'unknown cart backend')}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # each line the heading wraps into ends at a seam of a name, never inside a word
    lines = page.evaluate(
        """(() => {
             const h = document.querySelector("h1"), range = document.createRange();
             const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
             const ends = [];
             let node, lastTop = null, lastChar = "";
             while ((node = walker.nextNode())) {
               for (let i = 0; i < node.length; i++) {
                 range.setStart(node, i); range.setEnd(node, i + 1);
                 const top = range.getBoundingClientRect().top;
                 if (lastTop !== null && top > lastTop + 2) ends.push(lastChar + node.data[i]);
                 lastTop = top; lastChar = node.data[i];
               }
             }
             return ends;
           })()"""
    )
    assert lines, "the heading fits one line: nothing to check"
    for pair in lines:
        assert not (pair[0].isalnum() and pair[1].isalnum()), lines
    page.close()


def test_docs_work_without_the_network(browser: Browser, shop: tuple[Store, str]) -> None:
    _, base = shop
    page = browser.new_page()
    outside: list[str] = []
    page.on(
        "request",
        lambda request: None if request.url.startswith(base) else outside.append(request.url),
    )
    page.goto(f"{base}/docs")
    expect(page.locator("main")).to_contain_text("/api/match")
    assert outside == []
    page.close()


def test_search_results_link_back_to_pages(shop: tuple[Store, str]) -> None:
    _, base = shop
    hit = httpx.get(f"{base}/api/search", params={"q": "cart size"}).json()["results"][0]
    assert httpx.get(base + hit["url"]).status_code == 200
