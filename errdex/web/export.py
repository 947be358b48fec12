# The static export: the whole site as files for any static host, rendered by the
# same views as the server. HTML pages sit at the server's URLs (as DIR/URL/index.html);
# JSON twins at the API's URLs plus ".json"; search runs in the page over a prebuilt
# search-index.json. Every path written is built from quoted segments and checked to be
# inside DIR, so no package name, version or id can write elsewhere.
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from errdex import codec, rank
from errdex.errors import ErrdexError
from errdex.store import Store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.links import Links, segment
from errdex.web.render import Renderer
from errdex.web.views import Page

Progress = Callable[[int, int], None]  # (pages done, pages in all)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
_STATIC_FILES = ("style.css", "app.js")


class ExportError(ErrdexError):
    """The export cannot be written where asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportResult:
    directory: Path
    pages: int  # HTML pages written
    errors: int  # distinct error ids
    files: int  # every file written
    seconds: float


class _Writer:
    """Writes files under `root` only; `parts` are URL segments, already quoted."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files = 0

    def write(self, parts: list[str], content: str | bytes) -> None:
        target = self.root.joinpath(*parts).resolve()
        if not target.is_relative_to(self.root) or target == self.root:
            raise ExportError(f"refusing to write {'/'.join(parts)!r}: it is outside {self.root}")
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        target.write_bytes(data)
        self.files += 1


def _url_parts(url: str) -> list[str]:
    """The path segments of a site URL (made by Links, so each is already quoted)."""
    parts = [p for p in url.split("?", 1)[0].split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ExportError(f"refusing the URL {url!r}: it climbs out of its folder")
    return parts


class _Site:
    """The pages of one export as they are written: each page's HTML and JSON twin."""

    def __init__(self, store: Store, root: Path, base_url: str) -> None:
        self.store = store
        self.base_url = base_url
        self.data = WebData(store, recheck=float("inf"))
        self.links = Links(static_site=True)
        self.renderer = Renderer(self.links, canonical_base=base_url)
        self.out = _Writer(root)
        self.urls: list[str] = []

    def page(self, url: str, built: Page) -> None:
        self.out.write([*_url_parts(url), "index.html"], self.renderer.render(built, path=url))
        self.urls.append(url)

    def twin(self, url: str, value: Any) -> None:
        self.out.write(_url_parts(url), codec.dumps(value))


def export_site(
    store: Store,
    directory: str | Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
) -> ExportResult:
    """Write the site of `store` into `directory` (created if needed; files of an earlier
    export are overwritten, nothing else is touched) and return what was written.

    `base_url` is where the files will be served, for sitemap.xml and canonical links.
    Raises ExportError if `directory` is a file or cannot be written, StoreError if the
    store cannot be read.
    """
    started = time.perf_counter()
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise ExportError(f"cannot export into {root}: it is a file; give a folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create the export folder {root}: {exc}") from exc
    site = _Site(store, root, base_url.rstrip("/"))
    try:
        errors = _write_pages(site, progress)
        _write_fixed_files(site)
    except OSError as exc:
        raise ExportError(f"cannot write the export into {root}: {exc}") from exc
    return ExportResult(
        directory=root,
        pages=len(site.urls),
        errors=errors,
        files=site.out.files,
        seconds=time.perf_counter() - started,
    )


def _write_pages(site: _Site, progress: Progress | None) -> int:
    """Write home, package, error and search pages with their twins; return the number
    of distinct errors."""
    data, links = site.data, site.links
    snapshots = data.snapshots()
    ids = list(dict.fromkeys(record.id for record in site.store.iter_records(version="*")))
    total = 2 + len(snapshots) + len(ids)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    home = views.home(data, links)
    site.page("/", home)
    site.twin(links.packages_json(), home.context)
    tick()
    for snap in snapshots:
        built = views.package(
            data, links, snap.package, snap.version, limit=views.MAX_PACKAGE_LIMIT * 100
        )
        site.page(links.package(snap.package, snap.version), built)
        site.twin(links.package_json(snap.package, snap.version), built.context)
        tick()
    for site_id in ids:
        built = views.error(data, links, site_id)
        site.page(links.error(site_id), built)
        site.twin(links.error_json(site_id), built.context)
        tick()
    site.page(links.search(), views.search(data, links, ""))
    # What the page searches: the fields the server's search reads, of the errors it
    # covers by default, for app.js's twin of errdex.rank.
    rows = [[i, package, version, line, *fields] for i, package, version, line, fields
            in site.store.search_fields()]  # fmt: skip
    index = codec.dumps(
        {"fields": ["id", "package", "version", "line", *rank.FIELDS], "rows": rows}
    )
    site.out.write(["search-index.json"], index)
    # The same index as a script: a page opened as a file may load a script, not fetch.
    site.out.write(["search-index.js"], f"window.ERRDEX_INDEX = {index.rstrip()};\n")
    tick()
    return len(ids)


def _write_fixed_files(site: _Site) -> None:
    """The 404 page, static assets, sitemap.xml and robots.txt."""
    problem = Page(
        template="problem.html",
        context={"status": 404, "message": "no page at this address"},
        title="404: no page at this address · errdex",
        description="No page at this address.",
        status=404,
    )
    out = site.out
    out.write(["404.html"], site.renderer.render(problem, path="/404.html"))
    static = resources.files("errdex.web").joinpath("static")
    for name in _STATIC_FILES:
        out.write(["static", segment(name)], static.joinpath(name).read_bytes())
    out.write(["sitemap.xml"], _sitemap(site.base_url, site.urls))
    robots = f"User-agent: *\nAllow: /\nSitemap: {site.base_url}/sitemap.xml\n"
    out.write(["robots.txt"], robots)


def _sitemap(base_url: str, urls: list[str]) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"  <url><loc>{xml_escape(base_url + url)}</loc></url>" for url in urls]
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"
