# Pages as HTML: one Jinja2 environment with autoescaping on for every template, and the
# few filters the templates need. Everything from indexed code or user input reaches the
# page through autoescaping, Pygments (which escapes) or the filters below (which escape).
from __future__ import annotations

import json
import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from errdex import __version__
from errdex.codec import source_url
from errdex.markup import bold_spans, code_spans
from errdex.web.highlight import snippet_html, stylesheet
from errdex.web.links import Links
from errdex.web.views import Page


def _message_html(message: dict[str, Any] | None) -> Markup:
    """A message template with its holes marked: literal text, then `{expr}` holes."""
    if not message:
        return Markup('<span class="none">(no message: the exception is raised bare)</span>')
    out: list[str] = []
    for part in message.get("parts", []):
        if "hole" in part:
            conversion = f"!{part['conversion']}" if part.get("conversion") else ""
            spec = f":{part['format_spec']}" if part.get("format_spec") else ""
            inner = escape(part["hole"] + conversion + spec)
            out.append(
                f'<span class="hole" title="filled in at run time by this expression">'
                f"{{{inner}}}</span>"
            )
        else:
            out.append(str(escape(part["text"])))
    return Markup("".join(out))


def _marked_html(segments: list[dict[str, Any]] | None, fallback: str = "") -> Markup:
    """Search highlight segments as HTML with <mark> around the words that matched;
    backticks of prose are dropped (the words they quote stay)."""
    if not segments:
        return escape(fallback)
    return Markup(
        "".join(
            f"<mark>{escape(s['text'].replace('`', ''))}</mark>"
            if s.get("match")
            else str(escape(s["text"].replace("`", "")))
            for s in segments
        )
    )


def _prose_html(text: str | None) -> Markup:
    """Prose with `code` spans (Sphinx roles and reST literals among them) and **bold**:
    escaped, then the backtick pairs become <code> and the bold runs <strong>."""
    if not text:
        return Markup("")
    pieces = code_spans(str(text)).split("`")
    if len(pieces) % 2 == 0:  # an unpaired backtick: show the text as it is
        return escape(text)
    out: list[str] = []
    for index, piece in enumerate(pieces):
        if index % 2:
            out.append(f"<code>{escape(piece)}</code>")
            continue
        for run, bold in bold_spans(piece):
            out.append(f"<strong>{escape(run)}</strong>" if bold else str(escape(run)))
    return Markup("".join(out))


def report_label(url: str) -> str:
    """What a solution shows of the report link it ends with: the link without its query
    (`github.com/OWNER/NAME/issues/new`), since the whole one, title and body prefilled,
    runs to hundreds of characters."""
    return url.split("?", 1)[0].removeprefix("https://")


def _solution_html(text: str | None, report_url: str | None) -> Markup:
    """A solution as prose, its report link (when it quotes the record's) a link that
    shows `report_label` of it."""
    if not text or not report_url or report_url not in text:
        return _prose_html(text)
    before, after = str(text).split(report_url, 1)
    link = (
        f'<a href="{escape(report_url)}" rel="nofollow" title="a new issue, its title and'
        f' details filled in">{escape(report_label(report_url))}</a>'
    )
    return Markup(str(_prose_html(before)) + link + str(_prose_html(after)))


def _snippet(record: dict[str, Any]) -> Markup:
    snippet = record.get("snippet") or {}
    loc = record["location"]
    return snippet_html(
        snippet.get("lines", []),
        int(snippet.get("start_line", 1)),
        range(loc["line"], loc.get("end_line", loc["line"]) + 1),
        language=loc.get("language", "python"),
    )


def _pinned(record: dict[str, Any], file: str, line: int) -> str | None:
    """A GitHub link pinned to the record's commit (else at its release's tag) for
    another line or file, or None."""
    repo = record.get("repo") or {}
    return source_url(repo.get("url"), repo.get("commit"), file, line, repo.get("tag"))


def _breakable(text: str | None) -> Markup:
    """Escaped text that a narrow screen may break after `_`, `.` and `/` (the seams of a
    long identifier or path), never inside a word."""
    if not text:
        return Markup("")
    escaped = str(escape(text))
    for seam in ("_", ".", "/"):
        escaped = escaped.replace(seam, seam + "<wbr>")
    return Markup(escaped)


def _unwrap(text: str | None) -> str:
    """A docstring's hard-wrapped lines joined into paragraphs (blank lines kept)."""
    if not text:
        return ""
    paragraphs = str(text).strip().split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _json_pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def make_environment() -> Environment:
    env = Environment(
        loader=PackageLoader("errdex.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        message_html=_message_html,
        marked=_marked_html,
        prose=_prose_html,
        solution=_solution_html,
        snippet=_snippet,
        json_pretty=_json_pretty,
        breakable=_breakable,
        unwrap=_unwrap,
    )
    env.globals.update(pinned=_pinned, version=__version__, pygments_css=stylesheet)
    return env


class Renderer:
    """Renders Pages to HTML with one environment (templates are compiled once)."""

    def __init__(self, links: Links, *, canonical_base: str = "") -> None:
        self.links = links
        self.canonical_base = canonical_base.rstrip("/")
        self.env = make_environment()

    def render(self, page: Page, *, path: str) -> str:
        template = self.env.get_template(page.template)
        static = self.links.static_site
        root = relative_root(path) if static else "/"
        html = template.render(
            page=page,
            c=page.context,
            x=page.extra,
            links=self.links,
            static_site=static,
            root=root,
            canonical=self.canonical_base + path if self.canonical_base else None,
        )
        return _relative_links(html, root) if static else html


def relative_root(path: str) -> str:
    """From the page at site path `path` (written as PATH/index.html), the way back to
    the top of the export: "" for "/", "../../" for "/errors/ID"."""
    depth = len([p for p in path.split("?", 1)[0].split("/") if p])
    if path.endswith(".html"):
        depth -= 1
    return "../" * depth


_SITE_URL = re.compile(r'(href|src|action)="/([^"]*)"')


def _relative_links(html: str, root: str) -> str:
    """Every site link of a static page made relative to it, a page's folder as its
    index.html, so that the export also works opened as files (file://)."""

    def relative(match: re.Match[str]) -> str:
        attribute, target = match.group(1), match.group(2)
        path, mark, rest = target.partition("?")
        path, hash_mark, anchor = path.partition("#")
        last = path.rsplit("/", 1)[-1]
        if "." not in last:  # a page: its folder's index.html
            path = f"{path}/index.html" if path else "index.html"
        url = root + path + (hash_mark + anchor) + (mark + rest)
        return f'{attribute}="{url}"'

    return _SITE_URL.sub(relative, html)
