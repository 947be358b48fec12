# One explainer (issue 10): an error page renders exactly what its record holds. Over a
# whole package indexed from PyPI, every page's title, "What it means", "Solutions" and
# "When it happens" (with its common situations) are the texts of `/api/errors/{id}`,
# markup rendered, and nothing else: the web layer writes no explanation of its own.
from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from errdex.markup import code_spans
from errdex.store import Store
from errdex.web.render import report_label
from tests.conftest import indexed_store
from tests.web_support import running

_TAG = re.compile(r"<[^>]+>")
_SOURCE_NOTE = '<span class="muted source">(the error message says so)</span>'


@pytest.fixture(scope="module")
def requests_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = indexed_store(
        tmp_path_factory.mktemp("requests") / "errdex.sqlite", "pypi:requests==2.32.3"
    )
    yield store
    store.close()


def text_of(fragment: str) -> str:
    """What a reader sees of an HTML fragment: tags dropped, entities read, spaces folded."""
    return " ".join(html_lib.unescape(_TAG.sub("", fragment)).split())


def prose(text: str, report_url: str | None = None) -> str:
    """A record's prose as the page shows it: markup rendered, backticks gone (a `**`
    inside a code span, as in `f(**kwargs)`, is code, not bold); a solution's report
    link shown as its label."""
    if report_url:
        text = text.replace(report_url, report_label(report_url))
    pieces = code_spans(text).split("`")
    shown = [p if i % 2 else p.replace("**", "") for i, p in enumerate(pieces)]
    return " ".join("".join(shown).split())


def section(page: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', page, re.S)
    assert found, name
    return found.group(1)


def items(fragment: str, tag: str) -> list[str]:
    return [m for m in re.findall(rf"<{tag}>(.*?)</{tag}>", fragment, re.S)]


@pytest.mark.network
def test_every_page_says_what_its_record_says(requests_db: Store) -> None:
    ids = [r.id for r in requests_db.list_records(package="requests")]
    assert len(ids) > 50
    with running(requests_db) as base, httpx.Client(base_url=base, timeout=30) as http:
        for error_id in ids:
            record = http.get(f"/api/errors/{error_id}").json()
            page = http.get(f"/errors/{error_id}").text
            body = record["explanation"]
            title = re.search(r"<h1>(.*?)</h1>", page, re.S)
            assert title and text_of(title.group(1)) == " ".join(record["title"].split())
            meaning = items(section(page, "meaning"), "p")
            assert text_of(meaning[0]) == prose(body["what_it_means"]), error_id
            shown = items(section(page, "solutions"), "li")
            assert [text_of(s.replace(_SOURCE_NOTE, "")) for s in shown] == [
                prose(s, record.get("report_issue_url")) for s in body["solutions"]
            ], error_id
            quoted = [_SOURCE_NOTE in s for s in shown]
            assert quoted == [f["source"] == "message" for f in body["fixes"]], error_id
            if not body["solutions"]:
                assert text_of(section(page, "solutions")) == "Solutions None recorded."
            when = section(page, "when")
            assert text_of(items(when, "p")[0]) == prose(body["when_it_happens"]), error_id
            situations = re.search(r"<h3>Common situations</h3>\s*<ul>(.*?)</ul>", when, re.S)
            listed = [] if situations is None else items(situations.group(1), "li")
            assert [text_of(s) for s in listed] == [prose(s) for s in body["common_situations"]], (
                error_id
            )


def test_markup_is_rendered_on_the_page_and_stripped_in_the_terminal(tmp_path: Path) -> None:
    from errdex.markup import plain
    from errdex.web.render import _prose_html

    text = "Use :class:`~pkg.Loader` with ``strict=True``: it is **faster**"
    assert str(_prose_html(text)) == (
        "Use <code>pkg.Loader</code> with <code>strict=True</code>: it is <strong>faster</strong>"
    )
    assert plain(text) == "Use `pkg.Loader` with `strict=True`: it is faster"
