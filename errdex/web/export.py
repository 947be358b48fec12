# The static export: the whole site as files for any static host, rendered by the
# same views as the server. HTML pages sit at the server's URLs (as DIR/URL/index.html);
# JSON twins at the API's URLs plus ".json"; search runs in the page over a prebuilt
# search-index.json. Every path written is built from quoted segments and checked to be
# inside DIR, so no package name, version or id can write elsewhere.
#
# Incremental: the export keeps a manifest (MANIFEST, in DIR) of what each file it wrote
# was made from. Exporting again renders only the pages whose inputs (their view's
# context, for this renderer) changed, writes only files whose bytes changed, and
# removes the files of its earlier export that no page makes any more.
from __future__ import annotations

import functools
import json
import os
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from errdex import codec, rank
from errdex.errors import ErrdexError
from errdex.extract import process_context
from errdex.extract.cache import digest
from errdex.store import Store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.links import Links, segment
from errdex.web.render import Renderer
from errdex.web.views import Page

Progress = Callable[[int, int], None]  # (pages done, pages in all)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
_STATIC_FILES = ("style.css", "app.js")
MANIFEST = ".errdex-export.json"
_MANIFEST_FORMAT = 1


class ExportError(ErrdexError):
    """The export cannot be written where asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportResult:
    directory: Path
    pages: int  # HTML pages in the export
    errors: int  # distinct error ids
    files: int  # every file of the export
    seconds: float
    unchanged: int = 0  # files an earlier export had already made as they are
    removed: int = 0  # files of an earlier export that no page makes any more


class _Writer:
    """Writes files under `root` only; `parts` are URL segments, already quoted. Each
    file is listed with the key it was made from; a file whose key matches the earlier
    export's (and that is still there) is left as it is."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files = 0
        self.unchanged = 0
        self.earlier = _read_manifest(self.root)
        self.made: dict[str, str] = {}

    def target(self, parts: list[str]) -> Path:
        target = self.root.joinpath(*parts).resolve()
        if not target.is_relative_to(self.root) or target == self.root:
            raise ExportError(f"refusing to write {'/'.join(parts)!r}: it is outside {self.root}")
        return target

    def fresh(self, parts: list[str], key: str) -> bool:
        """Whether the file at `parts` was made from `key` already; if so it is kept."""
        name = "/".join(parts)
        # Only looked at, never written: no need to resolve the path as `target` does.
        if self.earlier.get(name) != key or not self.root.joinpath(*parts).is_file():
            return False
        self.made[name] = key
        self.files += 1
        self.unchanged += 1
        return True

    def write(self, parts: list[str], content: str | bytes, key: str | None = None) -> None:
        data = content.encode() if isinstance(content, str) else content
        key = key or digest(data)
        if self.fresh(parts, key):
            return
        target = self.target(parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.made["/".join(parts)] = key
        self.files += 1

    def finish(self) -> int:
        """Remove what the earlier export made and this one did not; write the manifest.
        Returns how many files were removed."""
        removed = 0
        for name in sorted(self.earlier.keys() - self.made.keys()):
            try:
                path = self.target(name.split("/"))
            except ExportError:  # a manifest that points outside: not ours to remove
                continue
            if path.is_file():
                path.unlink()
                removed += 1
        manifest = {"format": _MANIFEST_FORMAT, "files": dict(sorted(self.made.items()))}
        (self.root / MANIFEST).write_text(codec.dumps(manifest))
        return removed


def _read_manifest(root: Path) -> dict[str, str]:
    """The files an earlier export made here and their keys; nothing if there is none
    or it is not ours to read."""
    try:
        found = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict) or found.get("format") != _MANIFEST_FORMAT:
        return {}
    files = found.get("files")
    if not isinstance(files, dict):
        return {}
    return {
        name: key
        for name, key in files.items()
        if isinstance(name, str) and isinstance(key, str) and ".." not in name.split("/")
    }


@functools.cache
def _renderer_version() -> str:
    """A digest of what turns a context into a page: errdex's version, the web package's
    code, its templates and static files. Any change re-renders every page."""
    import errdex

    web = resources.files("errdex.web")
    parts = [errdex.__version__.encode()]
    for folder in (web, web.joinpath("templates"), web.joinpath("static")):
        for item in sorted(folder.iterdir(), key=lambda f: f.name):
            if item.is_file() and not item.name.endswith(".pyc"):
                parts += [item.name.encode(), item.read_bytes()]
    return digest(b"\0".join(parts))


def _url_parts(url: str) -> list[str]:
    """The path segments of a site URL (made by Links, so each is already quoted)."""
    parts = [p for p in url.split("?", 1)[0].split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ExportError(f"refusing the URL {url!r}: it climbs out of its folder")
    return parts


class _Site:
    """The pages of one export as they are written: each page's HTML and JSON twin.
    With `workers` > 1, pages are rendered in that many processes (rendering, mostly
    Pygments, is the cost) while this one reads the store and writes the files."""

    def __init__(self, store: Store, root: Path, base_url: str, workers: int) -> None:
        self.store = store
        self.base_url = base_url
        self.data = WebData(store, recheck=float("inf"))
        self.links = Links(static_site=True)
        self.renderer = Renderer(self.links, canonical_base=base_url)
        self.out = _Writer(root)
        self.urls: list[str] = []
        self.pool = (
            None
            if workers <= 1
            else ProcessPoolExecutor(
                max_workers=workers,
                mp_context=process_context(),
                initializer=_start_worker,
                initargs=(base_url,),
            )
        )
        self.pending: deque[tuple[list[str], str, Future[str]]] = deque()

    def page(self, url: str, built: Page, twin: str | None = None) -> None:
        """Write `built` at `url`, and its context as JSON at `twin` if given."""
        parts = [*_url_parts(url), "index.html"]
        key = _page_key(url, built)
        if twin is not None:
            twin_parts, twin_key = _url_parts(twin), digest(f"json\0{key}".encode())
            if not self.out.fresh(twin_parts, twin_key):
                self.out.write(twin_parts, codec.dumps(built.context), twin_key)
        if self.out.fresh(parts, key):
            pass
        elif self.pool is None:
            self.out.write(parts, self.renderer.render(built, path=url), key)
        else:
            self.pending.append((parts, key, self.pool.submit(_render, built, url)))
            while len(self.pending) > _IN_FLIGHT:
                self._write_oldest()
        self.urls.append(url)

    def _write_oldest(self) -> None:
        parts, key, rendered = self.pending.popleft()
        self.out.write(parts, rendered.result(), key)

    def close(self) -> None:
        """Write what the workers still render, and stop them."""
        try:
            while self.pending:
                self._write_oldest()
        finally:
            if self.pool is not None:
                self.pool.shutdown(cancel_futures=True)


_IN_FLIGHT = 256  # pages rendered ahead of their writing, at most
_worker_renderer: Renderer | None = None


def _start_worker(base_url: str) -> None:
    global _worker_renderer
    _worker_renderer = Renderer(Links(static_site=True), canonical_base=base_url)


def _render(built: Page, url: str) -> str:
    assert _worker_renderer is not None, "the worker was started by _start_worker"
    return _worker_renderer.render(built, path=url)


def export_site(
    store: Store,
    directory: str | Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
    workers: int | None = None,
) -> ExportResult:
    """Write the site of `store` into `directory` (created if needed) and return what
    was written. An earlier export there is brought up to date: unchanged files are
    kept, changed ones rewritten, files it made that no page makes any more removed;
    nothing else in `directory` is touched.

    `base_url` is where the files will be served, for sitemap.xml and canonical links.
    `workers`: processes that render pages (default: one per core; 1 renders here).
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
    count = (os.cpu_count() or 1) if workers is None else workers
    site = _Site(store, root, base_url.rstrip("/"), max(1, count))
    try:
        try:
            errors = _write_pages(site, progress)
        finally:
            site.close()
        _write_fixed_files(site)
        removed = site.out.finish()
    except OSError as exc:
        raise ExportError(f"cannot write the export into {root}: {exc}") from exc
    return ExportResult(
        directory=root,
        pages=len(site.urls),
        errors=errors,
        files=site.out.files,
        seconds=time.perf_counter() - started,
        unchanged=site.out.unchanged,
        removed=removed,
    )


def _write_pages(site: _Site, progress: Progress | None) -> int:
    """Write home, package, error and search pages with their twins; return the number
    of distinct errors."""
    data, links = site.data, site.links
    snapshots = data.snapshots()
    ids = site.store.site_ids(version="*")
    total = 2 + len(snapshots) + len(ids)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    home = views.home(data, links)
    site.page("/", home, twin=links.packages_json())
    tick()
    for snap in snapshots:
        built = views.package(
            data, links, snap.package, snap.version, limit=views.MAX_PACKAGE_LIMIT * 100
        )
        site.page(
            links.package(snap.package, snap.version),
            built,
            twin=links.package_json(snap.package, snap.version),
        )
        tick()
    for site_id in ids:
        built = views.error(data, links, site_id)
        site.page(links.error(site_id), built, twin=links.error_json(site_id))
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


def _page_key(url: str, built: Page) -> str:
    """What a page is made from: its URL, its view's output (the record itself is in the
    context, as its JSON) and the renderer."""
    extra = {k: v for k, v in built.extra.items() if k != "record"}
    made_of: list[Any] = [url, built.template, built.context, built.title, built.description]
    made_of += [built.status, extra, _renderer_version(), rank.FIELDS]
    return digest(json.dumps(made_of, sort_keys=True, default=repr).encode())


def _sitemap(base_url: str, urls: list[str]) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"  <url><loc>{xml_escape(base_url + url)}</loc></url>" for url in urls]
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"
