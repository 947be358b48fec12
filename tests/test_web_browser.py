# The site in a real browser (Debian's chromium driven by Playwright), as a user goes:
# home, search a word, open a result; paste a traceback, follow the answer to the error
# page; check its sections and GitHub link; the same on a phone-sized screen and on the
# static export, whose search runs in the page.
from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from errdex.index import index_source
from errdex.store import Store, open_store
from errdex.web.export import export_site
from tests.conftest import indexed_store, needs_chromium, write_tree
from tests.web_support import COMMIT, REPO, SECTIONS, running

TRACEBACK = """Traceback (most recent call last):
  File "/srv/app/main.py", line 12, in <module>
    connect(0.1)
  File "/usr/lib/python3/site-packages/evil/net.py", line 7, in connect
    raise TimeoutTooShort(f"timeout {timeout} is too short for a handshake")
evil.net.TimeoutTooShort: timeout 0.1 is too short for a handshake
"""

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def base(evil: Store) -> Iterator[str]:
    with running(evil) as url:
        yield url


def check_error_page(page: Page) -> None:
    for section in SECTIONS:
        expect(page.get_by_role("heading", name=section, exact=True)).to_be_visible()
    link = page.get_by_role("link", name=f"View on GitHub (pinned to {COMMIT})")
    href = link.get_attribute("href")
    assert href is not None and href.startswith(f"{REPO}/blob/{COMMIT}/evil/")
    assert page.locator(".code .hll").count() >= 1


def test_search_then_open_a_result(browser: Browser, base: str) -> None:
    page = browser.new_page()
    page.goto(base + "/")
    expect(page.locator("h1")).to_contain_text("Every error")
    page.get_by_role("searchbox", name="Search error messages").fill("handshake")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url("**/search?q=handshake")
    expect(page.locator("mark").first).to_have_text("handshake")
    page.locator("a.result-title").first.click()
    page.wait_for_url("**/errors/*")
    expect(page.locator("h1")).to_contain_text("is too short for a handshake")
    check_error_page(page)
    page.close()


def test_paste_a_traceback_and_follow_the_answer(browser: Browser, base: str) -> None:
    page = browser.new_page()
    page.goto(base + "/")
    page.get_by_label("Error message or traceback").fill(TRACEBACK)
    page.get_by_role("button", name="Find where it comes from").click()
    answer = page.locator(".paste-result a.result-title").first
    expect(answer).to_contain_text("TimeoutTooShort at evil/net.py")
    expect(page.locator(".paste-result table.values")).to_contain_text("0.1")
    answer.click()
    page.wait_for_url("**/errors/*")
    check_error_page(page)
    page.close()


def test_error_page_fits_a_phone(browser: Browser, base: str) -> None:
    page = browser.new_page(viewport={"width": 375, "height": 740})
    page.goto(base + "/search?q=mode")
    page.locator("a.result-title").first.click()
    page.wait_for_url("**/errors/*")
    # nothing alerts (the messages hold <script>alert(...)</script>) and nothing overflows
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message))
    page.reload()
    assert dialogs == []
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375
    page.close()


def test_static_export_searches_in_the_page(browser: Browser, evil: Store, tmp_path: Path) -> None:
    export_site(evil, tmp_path / "site")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/search?q=handshake")
        expect(page.locator("a.result-title").first).to_contain_text("handshake")
        page.locator("a.result-title").first.click()
        page.wait_for_url("**/errors/*/index.html")
        check_error_page(page)
        page.close()
    finally:
        server.shutdown()
        server.server_close()


def test_static_export_opened_as_files(browser: Browser, evil: Store, tmp_path: Path) -> None:
    export_site(evil, tmp_path / "site")
    page = browser.new_page()
    page.goto((tmp_path / "site" / "index.html").as_uri())
    # styled: the stylesheet loaded through a relative link
    weight = page.evaluate("getComputedStyle(document.querySelector('.brand')).fontWeight")
    assert weight in ("700", "bold", "600")
    page.goto((tmp_path / "site" / "search" / "index.html").as_uri() + "?q=handshake")
    expect(page.locator("a.result-title").first).to_contain_text("handshake")
    page.locator("a.result-title").first.click()
    page.wait_for_url("**/errors/*/index.html")
    check_error_page(page)
    page.get_by_role("link", name="errdex", exact=True).click()  # back to the top
    page.wait_for_url("**/site/index.html")
    page.close()


def test_static_search_marks_whole_words_only(
    browser: Browser, evil: Store, tmp_path: Path
) -> None:
    export_site(evil, tmp_path / "site")
    page = browser.new_page()
    page.goto((tmp_path / "site" / "search" / "index.html").as_uri() + "?q=ti")
    expect(page.locator("mark").first).to_be_visible()
    # what comes right before each <mark>: never a letter (a mark inside a word)
    before = page.evaluate(
        """Array.from(document.querySelectorAll("mark")).map(function (m) {
             var prev = m.previousSibling;
             return prev ? prev.textContent.slice(-1) : "";
           })"""
    )
    assert before and all(not (c.isalnum() or c == "_") for c in before), before
    page.close()


# Words users type, some many errors share: the static page (app.js) and the server
# (errdex.rank through the store) must find the same errors in the same order.
PARITY_QUERIES = [
    "must be",
    "invalid",
    "not a",
    "url",
    "request",
    "option",
    "err",
    "file not",
    "value",
    "max_retries",
    "NoneType",
    "click.exceptions.UsageError",
    "é",
]


@pytest.mark.network
def test_static_search_finds_what_the_server_finds_in_its_order(
    browser: Browser, tmp_path: Path
) -> None:
    store = indexed_store(tmp_path / "db.sqlite", "pypi:requests==2.32.3", "pypi:click==8.1.7")
    try:
        export_site(store, tmp_path / "site")
        search_page = (tmp_path / "site" / "search" / "index.html").as_uri()
        page = browser.new_page()
        with running(store) as base:
            for query in PARITY_QUERIES:
                served = httpx.get(f"{base}/api/search", params={"q": query}).json()
                server_ids = [hit["id"] for hit in served["results"]]
                page.goto(search_page + "?" + urlencode({"q": query}))
                expect(page.locator("#search-results p.muted").first).to_contain_text("result")
                hrefs = page.eval_on_selector_all(
                    "a.result-title", "links => links.map(a => a.getAttribute('href'))"
                )
                static_ids = [href.split("/errors/", 1)[1].split("/", 1)[0] for href in hrefs]
                shown = page.locator("#search-results p.muted").first.inner_text()
                assert static_ids == server_ids, query
                assert shown.startswith(f"{served['total']} result"), (query, shown)
        page.close()
    finally:
        store.close()


# -- a shop that a user meets: a fix above the fold, a report link, a tag to link -------

SHOP = {
    # an unpacked sdist: no commit recorded, but its changelog links to its tags
    "PKG-INFO": "Metadata-Version: 2.1\nName: shop\nVersion: 2.0\n"
    "Project-URL: Source, https://github.com/example/shop\n",
    "CHANGES.md": "## 2.0\n\n[2.0]: https://github.com/example/shop/compare/v1.9...v2.0\n",
    "shop/__init__.py": """
        class Pool:
            def __init__(self):
                self._used = 0

            def _release(self):
                if self._used <= 0:
                    raise RuntimeError("released more items than were taken from the pool")
                self._used -= 1

            def close(self):
                self._release()


        def check(n):
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
            if n > 100:
                raise ValueError(f"n must be at most 100, got {n}")
    """,
}
# the same, but nothing in it says how its tags are named
PLAIN = {
    "PKG-INFO": "Metadata-Version: 2.1\nName: plain\nVersion: 1.0\n"
    "Project-URL: Source, https://github.com/example/plain\n",
    "plain/__init__.py": "def f(x):\n    raise KeyError(f'no such key {x}')\n",
}
SHOP_TRACEBACK = """Traceback (most recent call last):
  File "/srv/app.py", line 3, in <module>
    check(-1)
  File "/usr/lib/python3/site-packages/shop/__init__.py", line 16, in check
    raise ValueError(f"n must be non-negative, got {n}")
ValueError: n must be non-negative, got -1
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("shop")
    store = open_store(root / "errdex.sqlite")
    for name, files in (("shop", SHOP), ("plain", PLAIN)):
        index_source(str(write_tree(root / name, files)), store)
    with running(store) as url:
        yield url
    store.close()


def _error_page(browser: Browser, base: str, query: str, **options: object) -> Page:
    page = browser.new_page(**options)  # type: ignore[arg-type]
    page.goto(f"{base}/search?{urlencode({'q': query})}")
    page.locator("a.result-title").first.click()
    page.wait_for_url("**/errors/*")
    return page


def test_the_fix_comes_before_the_source(browser: Browser, shop: str) -> None:
    page = _error_page(
        browser, shop, "released more items", viewport={"width": 1280, "height": 800}
    )
    solutions = page.get_by_role("heading", name="Solutions", exact=True).bounding_box()
    source = page.get_by_role("heading", name="Source", exact=True).bounding_box()
    assert solutions is not None and source is not None
    assert solutions["y"] < source["y"]
    assert solutions["y"] < 800  # on the first screen, without scrolling
    page.close()


def test_the_report_link_is_a_short_link_within_the_column(browser: Browser, shop: str) -> None:
    page = _error_page(browser, shop, "released more items", viewport={"width": 375, "height": 740})
    report = page.locator("#solutions li a").first
    expect(report).to_have_text("github.com/example/shop/issues/new")
    href = report.get_attribute("href")
    assert href is not None and href.startswith("https://github.com/example/shop/issues/new?title=")
    assert len(href) > 300  # the whole prefilled link is behind it
    assert "issues/new?title=" not in page.locator("#solutions").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.close()


def test_a_release_without_a_commit_links_its_tag_and_says_so(browser: Browser, shop: str) -> None:
    page = _error_page(browser, shop, "released more items")
    link = page.get_by_role("link", name="View on GitHub at tag v2.0")
    href = link.get_attribute("href")
    assert href is not None and href.startswith(
        "https://github.com/example/shop/blob/v2.0/shop/__init__.py#L"
    )
    expect(page.locator("#source")).to_contain_text("a link to the release's tag")
    expect(page.locator("#source")).not_to_contain_text("not on GitHub")
    page.close()

    plain = _error_page(browser, shop, "no such key")
    source = plain.locator("#source")
    expect(source).to_contain_text("the release records no commit, and nothing in it says")
    expect(source).not_to_contain_text("not on GitHub")
    tags = plain.get_by_role("link", name="the repository's tags")
    assert tags.get_attribute("href") == "https://github.com/example/plain/tags"
    plain.close()


def test_no_near_misses_under_an_exact_answer(browser: Browser, shop: str) -> None:
    page = browser.new_page()
    page.goto(shop + "/")
    page.get_by_label("Error message or traceback").fill(SHOP_TRACEBACK)
    page.get_by_role("button", name="Find where it comes from").click()
    expect(page.locator(".paste-result a.result-title").first).to_contain_text("shop/__init__.py")
    expect(page.locator(".paste-result .meta").first).to_contain_text("exact")
    expect(page.locator(".paste-result")).not_to_contain_text("Close, but not answers")
    # there are near misses (the other raise of the traceback's function); only not shown
    assert httpx.post(f"{shop}/api/match", json={"text": SHOP_TRACEBACK}).json()["closest"]
    # the page without JavaScript (the form's own answer) says the same
    served = httpx.post(f"{shop}/match", data={"text": SHOP_TRACEBACK})
    assert "exact" in served.text and "Close, but not answers" not in served.text
    # with no exact answer, the near misses are what there is to show
    other = SHOP_TRACEBACK.replace("n must be non-negative, got -1", "something else went wrong")
    page.get_by_label("Error message or traceback").fill(other)
    page.get_by_role("button", name="Find where it comes from").click()
    expect(page.locator(".paste-result")).to_contain_text("Close, but not answers")
    page.close()
