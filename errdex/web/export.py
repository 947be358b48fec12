# The static export: the whole site as files for any static host, rendered by the
# same views as the server. HTML pages sit at the server's URLs (as DIR/URL/index.html);
# JSON twins at the API's URLs plus ".json"; search runs in the page over a prebuilt
# search-index.json. Every path written is built from quoted segments and checked to be
# inside DIR, so no package name, version or id can write elsewhere.
#
# Incremental: the export keeps a manifest (MANIFEST, in DIR) of each file it wrote (its
# digest, size and mtime) and of each page, the digest of what the page was made from:
# the store's digests of the records it shows (Store.record_states, read without
# decoding a record), the ids it links to, the renderer's code and the base URL.
# Exporting again builds and renders only the pages whose inputs changed, in worker
# processes, writes only files whose bytes changed, and removes the files of the
# earlier export that no page makes any more. A manifest that is malformed or does not
# match its own check is not trusted: every page is built and compared with the file
# on disk, and nothing is removed.
from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape as xml_escape

from errdex import codec, rank
from errdex.errors import ErrdexError
from errdex.model import StoredSnapshot
from errdex.store import Store, open_store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.links import Links, segment
from errdex.web.views import Page

if TYPE_CHECKING:  # Jinja2 and Pygments load only when a page is rendered
    from errdex.web.render import Renderer

Progress = Callable[[int, int], None]  # (pages done, pages in all)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
_STATIC_FILES = ("style.css", "app.js")
MANIFEST = ".errdex-export.json"
_MANIFEST_FORMAT = 2


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
    rendered: int = 0  # pages built and rendered (the others were kept unread)
    bytes: int = 0  # the size of every file of the export
    note: str | None = None  # why the earlier export's manifest was not trusted


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _key(*parts: Any) -> str:
    """A digest of JSON-able `parts` (what a page is made from)."""
    return _digest(json.dumps(parts, sort_keys=True, default=repr).encode())


# -- the manifest -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _File:
    digest: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class _Made:
    """What a page was made from, the ids it links to, and the files it wrote."""

    inputs: str
    related: tuple[str, ...]
    files: tuple[str, ...]


@dataclass(slots=True)
class _Manifest:
    files: dict[str, _File] = field(default_factory=dict)
    pages: dict[str, _Made] = field(default_factory=dict)
    text: str = ""  # as read, so that an unchanged manifest is not written again
    problem: str | None = None  # why it was not trusted (then it is empty)


def _safe_name(name: object) -> bool:
    """Whether `name` is a file path the export could have written: relative, of
    non-empty segments that do not climb."""
    if not isinstance(name, str) or not name or "\\" in name or "\0" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def _check(fields: dict[str, Any]) -> str:
    return _key(fields["format"], fields["key"], fields["files"], fields["pages"])


def _read_manifest(root: Path, key: str) -> _Manifest:
    """What an earlier export here wrote. Empty if there is none; empty with a problem
    if it is malformed or fails its check (then nothing of it is trusted); its pages
    dropped if it was made by another renderer or for another base URL."""
    path = root / MANIFEST
    try:
        text = path.read_text()
    except FileNotFoundError:
        return _Manifest()
    except (OSError, ValueError) as exc:
        return _Manifest(problem=f"cannot read {MANIFEST}: {exc}")
    try:
        return _parse_manifest(text, key)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return _Manifest(problem=f"{MANIFEST} is malformed ({exc})")


def _parse_manifest(text: str, key: str) -> _Manifest:
    found = json.loads(text)
    if not isinstance(found, dict):
        raise ValueError("not an object")
    if found.get("format") != _MANIFEST_FORMAT:
        return _Manifest(problem=f"{MANIFEST} is of another format ({found.get('format')!r})")
    if found.get("check") != _check(found):
        return _Manifest(problem=f"{MANIFEST} does not match its own check: edited by hand?")
    files = {}
    for name, (file_digest, size, mtime_ns) in found["files"].items():
        if not _safe_name(name) or not isinstance(file_digest, str):
            raise ValueError(f"a file named {name!r}")
        files[name] = _File(file_digest, int(size), int(mtime_ns))
    pages = {}
    for url, (inputs, related, names) in found["pages"].items():
        if not isinstance(related, list) or not isinstance(names, list):
            raise ValueError(f"the page {url!r}")
        if not all(isinstance(v, str) for v in (url, inputs, *related)):
            raise ValueError(f"the page {url!r}")
        if not all(n in files for n in names):
            raise ValueError(f"the page {url!r} names a file the manifest does not list")
        pages[url] = _Made(inputs, tuple(related), tuple(names))
    if found["key"] != key:  # another renderer or base URL: every page is made anew
        pages = {}
    return _Manifest(files=files, pages=pages, text=text)


def _manifest_text(key: str, files: dict[str, _File], pages: dict[str, _Made]) -> str:
    fields: dict[str, Any] = {
        "format": _MANIFEST_FORMAT,
        "key": key,
        "files": {n: [f.digest, f.size, f.mtime_ns] for n, f in sorted(files.items())},
        "pages": {u: [m.inputs, list(m.related), list(m.files)] for u, m in pages.items()},
    }
    fields["check"] = _check(fields)
    return codec.dumps(fields)


# -- writing files ------------------------------------------------------------------------


class _Writer:
    """Writes files under `root` only; `parts` are URL segments, already quoted. A file
    whose bytes are on disk already (by the earlier export's manifest and the file's
    size and mtime, else by reading it) is left as it is."""

    def __init__(self, root: Path, earlier: _Manifest | None = None) -> None:
        self.root = root.resolve()
        self._root_text = str(self.root)  # os.path over pathlib: 12,000 stats add up
        self.earlier = earlier or _Manifest()
        self.made: dict[str, _File] = {}
        self.unchanged = 0
        self._folders: dict[tuple[str, ...], Path] = {}  # checked already

    @property
    def files(self) -> int:
        return len(self.made)

    def target(self, parts: list[str]) -> Path:
        """Where `parts` is, checked to be inside the root: each folder once (a link is
        followed and must stay inside), then the file itself (the same)."""
        if not parts or any(p in ("", ".", "..") or "/" in p or "\0" in p for p in parts):
            raise ExportError(f"refusing to write {'/'.join(parts)!r}: it is outside {self.root}")
        return self._inside(self._folder(tuple(parts[:-1])) / parts[-1], parts)

    def _folder(self, parts: tuple[str, ...]) -> Path:
        found = self._folders.get(parts)
        if found is None:
            found = self.root if not parts else self._folder(parts[:-1]) / parts[-1]
            found = self._folders[parts] = self._inside(found, list(parts))
        return found

    def _inside(self, path: Path, parts: list[str]) -> Path:
        if path.is_symlink():  # never written through unless it stays inside
            path = path.resolve()
            if not path.is_relative_to(self.root) or path == self.root:
                name = "/".join(parts)
                raise ExportError(f"refusing to write {name!r}: it is outside {self.root}")
        return path

    def _on_disk(self, name: str) -> _File | None:
        """The earlier export's entry for `name` if the file is still as it left it."""
        entry = self.earlier.files.get(name)
        if entry is None:
            return None
        try:  # only looked at, never written: no need to resolve it as `target` does
            found = os.stat(os.path.join(self._root_text, name), follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_size != entry.size:
            return None
        return entry if found.st_mtime_ns == entry.mtime_ns else None

    def keep(self, names: Sequence[str]) -> bool:
        """Keep the files `names` as the earlier export made them, if every one is."""
        entries = [self._on_disk(name) for name in names]
        if not all(entries):
            return False
        for name, entry in zip(names, entries, strict=True):
            assert entry is not None
            self.made[name] = entry
        self.unchanged += len(names)
        return True

    def write(self, parts: list[str], content: str | bytes) -> str:
        """Write `content` at `parts` unless it is there already; return the file's name."""
        data = content.encode() if isinstance(content, str) else content
        name = "/".join(parts)
        data_digest = _digest(data)
        known = self._on_disk(name)  # the file's digest, by the manifest
        if known is not None and known.digest == data_digest:
            self.made[name] = known
            self.unchanged += 1
            return name
        target = self.target(parts)
        if known is None and _holds(target, data):  # no manifest says so, but they are
            self.unchanged += 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        found = target.stat()
        self.made[name] = _File(data_digest, found.st_size, found.st_mtime_ns)
        return name

    def finish(self, key: str, pages: dict[str, _Made]) -> int:
        """Remove what the earlier export made and this one did not; write the manifest.
        Returns how many files were removed."""
        removed = 0
        for name in sorted(self.earlier.files.keys() - self.made.keys()):
            try:
                path = self.target(name.split("/"))
            except ExportError:  # a manifest that points outside: not ours to remove
                continue
            if path.is_file():
                path.unlink()
                removed += 1
        text = _manifest_text(key, self.made, pages)
        if text != self.earlier.text:
            scratch = self.root / f"{MANIFEST}.new"
            scratch.write_text(text)
            os.replace(scratch, self.root / MANIFEST)  # never half a manifest
        return removed


def _holds(target: Path, data: bytes) -> bool:
    """Whether the file at `target` holds exactly `data`."""
    try:
        return (
            target.is_file()
            and target.stat().st_size == len(data)
            and (target.read_bytes() == data)
        )
    except OSError:
        return False


# The modules outside errdex.web whose code shapes a page from a stored record: the
# record's JSON (codec, model, expr), its prose and links (markup, repos), the search
# index's fields (rank); and the libraries that render the HTML.
_PAGE_MODULES = ("codec.py", "expr.py", "markup.py", "model.py", "rank.py", "repos.py")
_PAGE_LIBRARIES = ("jinja2", "markupsafe", "pygments")


@functools.cache
def _renderer_version() -> str:
    """A digest of what turns a stored record into a page: errdex's version, the web
    package's code, templates and static files, the modules of _PAGE_MODULES and the
    versions of _PAGE_LIBRARIES. Any change re-renders every page (a page kept is never
    built again, so its key must hold all the code it was built by)."""
    import errdex

    top = resources.files("errdex")
    web = top.joinpath("web")
    parts = [errdex.__version__.encode()]
    parts += [f"{lib} {metadata.version(lib)}".encode() for lib in _PAGE_LIBRARIES]
    parts += [top.joinpath(name).read_bytes() for name in _PAGE_MODULES]
    for folder in (web, web.joinpath("templates"), web.joinpath("static")):
        for item in sorted(folder.iterdir(), key=lambda f: f.name):
            if item.is_file() and not item.name.endswith(".pyc"):
                parts += [item.name.encode(), item.read_bytes()]
    return _digest(b"\0".join(parts))


# -- what the store holds, as digests -----------------------------------------------------


class _State:
    """What each page is made from, by the store's digests (one query, no record
    decoded): the newest record of each id in each package with every version that has
    it, the records of each version, the snapshots and the model notes."""

    def __init__(self, store: Store, snapshots: list[StoredSnapshot]) -> None:
        # snapshots are ordered by package then version, oldest first
        order = {(s.package, s.version): n for n, s in enumerate(snapshots)}
        self.snapshot = {
            (s.package, s.version): [s.package, s.version, s.repo_url, s.commit, s.tag, s.date]
            for s in snapshots
        }
        newest = {s.package: (s.package, s.version) for s in snapshots}
        self.newest_versions = list(newest.values())
        self.members: dict[tuple[str, str], list[str]] = {}
        rows: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
        for site_id, package, version, record in store.record_states():
            self.members.setdefault((package, version), []).append(record)
            place = order.get((package, version), -1)
            rows.setdefault((site_id, package), []).append((place, version, record))
        self.packages: dict[str, list[str]] = {}
        self.latest: dict[tuple[str, str], list[Any]] = {}
        for (site_id, package), found in rows.items():
            found.sort()
            _, version, record = found[-1]
            versions = [v for _, v, _ in found]
            snapshot = self.snapshot.get((package, version))
            self.latest[site_id, package] = [version, record, snapshot, versions]
            self.packages.setdefault(site_id, []).append(package)
        self.notes: dict[str, list[Any]] = {}
        for site_id, *note in store.enrichment_states():
            self.notes.setdefault(site_id, []).append(note)

    def error(self, site_id: str, related: Iterable[str]) -> list[Any]:
        """An error page's inputs: its record in each package that has the id, its
        model notes, and the records it links to (`related`, in the same packages)."""
        packages = sorted(self.packages.get(site_id, ()))
        own = [[p, self.latest[site_id, p]] for p in packages]
        linked = [[p, r, self.latest.get((r, p), [None])[:2]] for p in packages for r in related]
        return [own, self.notes.get(site_id), linked]

    def package(self, package: str, version: str) -> list[Any]:
        """A package page's inputs: the snapshot and its records, in order."""
        return [self.snapshot.get((package, version)), self.members.get((package, version))]

    def searched(self) -> list[Any]:
        """The search index's inputs: the records of the newest version of each package."""
        return [self.package(package, version) for package, version in self.newest_versions]


# -- the pages ----------------------------------------------------------------------------


def _url_parts(url: str) -> list[str]:
    """The path segments of a site URL (made by Links, so each is already quoted)."""
    parts = [p for p in url.split("?", 1)[0].split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ExportError(f"refusing the URL {url!r}: it climbs out of its folder")
    return parts


class _Site:
    """The pages of one export as they are written: each page's HTML and JSON twin.
    A page whose inputs are those the earlier export made it from, and whose files are
    as it left them, is kept without being built. The pages that read records (errors
    and package versions) are built, rendered and written by a _Builder: with `workers`
    > 1, one in each of that many processes, started at the first page that needs one,
    each over the store opened again there (reading and decoding the records, rendering,
    mostly Pygments, and writing are the cost; only what was written comes back). This
    process keeps the manifest, and builds the few pages made of the snapshots alone."""

    def __init__(self, store: Store, root: Path, base_url: str, workers: int) -> None:
        self.store = store
        self.root = root
        self.base_url = base_url
        self.location = _location(store)
        self.workers = workers if self.location is not None else 1
        self.data = WebData(store, recheck=float("inf"))
        self.links = Links(static_site=True)
        self.key = _key(_MANIFEST_FORMAT, _renderer_version(), base_url, rank.FIELDS)
        self.earlier = _read_manifest(root.resolve(), self.key)
        self.out = _Writer(root, self.earlier)
        self.made: dict[str, _Made] = {}
        self.urls: list[str] = []
        self.rendered = 0
        self._renderer: Renderer | None = None
        self._builder: _Builder | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._pending: deque[tuple[Future[list[_Wrote]], Callable[[list[_Wrote]], None]]]
        self._pending = deque()

    @property
    def renderer(self) -> Renderer:
        if self._renderer is None:
            from errdex.web.render import Renderer

            self._renderer = Renderer(self.links, canonical_base=self.base_url)
        return self._renderer

    def _workers(self) -> ProcessPoolExecutor:
        if self._pool is None:
            from errdex.extract import process_context

            assert self.location is not None, "workers only for a store they can open"
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=process_context(),
                initializer=_start_worker,
                initargs=(os.getpid(), self.location, self.root, self.earlier, self.base_url),
            )
        return self._pool

    def kept(self, url: str, inputs: str, listed: bool = True) -> _Made | None:
        """The earlier export's page at `url` if it was made from `inputs` and its files
        are as it left them (then they are kept as they are, and listed if `listed`)."""
        earlier = self.earlier.pages.get(url)
        if earlier is None or earlier.inputs != inputs or not self.out.keep(earlier.files):
            return None
        self.made[url] = earlier
        if listed:
            self.urls.append(url)
        return earlier

    def page(self, url: str, built: Page, inputs: str, *, twin: str | None = None) -> None:
        """Write `built` at `url`, and its context as JSON at `twin` if given (here: the
        pages made of the snapshots alone are quick to render)."""
        files: tuple[str, ...] = ()
        if twin is not None:
            files = (self.out.write(_url_parts(twin), codec.dumps(built.context)),)
        html = self.renderer.render(built, path=url)
        files += (self.out.write([*_url_parts(url), "index.html"], html),)
        self.urls.append(url)
        self.rendered += 1
        self.made[url] = _Made(inputs, (), files)

    def build(self, url: str) -> None:
        """Hold the place of the page at `url`, which a builder makes (see `built`): the
        sitemap and the manifest list pages in the order they were asked for."""
        self.urls.append(url)
        self.made[url] = _BUILDING

    def built(self, url: str, inputs: str, wrote: _Wrote) -> None:
        """Take in what a builder wrote for the page at `url`, made from `inputs`."""
        assert self.made.get(url) is _BUILDING, f"{url} was not asked for"
        self.made[url] = _Made(inputs, wrote.related, tuple(name for name, _ in wrote.files))
        self.out.made.update(wrote.files)
        self.out.unchanged += wrote.unchanged
        self.rendered += 1

    def run(self, task: _Task, then: Callable[[list[_Wrote]], None]) -> None:
        """Run `task` on a builder, in a worker if there are workers; `then` takes what
        it wrote, in the order the tasks were run (`wait`)."""
        if self.workers <= 1:
            if self._builder is None:
                self._builder = _Builder(self.store, self.root, self.earlier, self.base_url)
            then(task(self._builder))
            return
        self._pending.append((self._workers().submit(_in_worker, task), then))

    def wait(self) -> None:
        """Take in what every task run in the workers wrote."""
        while self._pending:
            done, then = self._pending.popleft()
            then(done.result())

    def close(self) -> None:
        """Stop the workers (what they had still to do is dropped)."""
        self._pending.clear()
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)


_BUILDING = _Made("", (), ())  # a page a builder has still to make


def _location(store: Store) -> str | Path | None:
    """Where a render worker opens `store` again: the PostgreSQL URL or the SQLite file
    the backend was opened with; None for a store that keeps neither (then its pages are
    built in the exporting process)."""
    for name in ("url", "path"):
        found = getattr(store, name, None)
        if isinstance(found, str | Path):
            return found
    return None


@dataclass(frozen=True, slots=True)
class _Wrote:
    """What a builder wrote for one page: its files (the JSON twin first) with their
    manifest entries, how many of them were on disk already, the ids the page links to."""

    files: tuple[tuple[str, _File], ...]
    unchanged: int
    related: tuple[str, ...] = ()


class _Builder:
    """Builds the pages that read records with the server's views, renders and writes
    them (in a render worker, or in the exporting process), and says what it wrote."""

    def __init__(self, store: Store, root: Path, earlier: _Manifest, base_url: str) -> None:
        from errdex.web.render import Renderer

        self.data = WebData(store, recheck=float("inf"))
        self.links = Links(static_site=True)
        self.renderer = Renderer(self.links, canonical_base=base_url)
        self.out = _Writer(root, earlier)

    def errors(self, site_ids: Sequence[str]) -> list[_Wrote]:
        """The page of each of `site_ids`, with its twin."""
        wrote = []
        for site_id in site_ids:
            built = views.error(self.data, self.links, site_id)
            related = views.related_ids(built.extra["record"])
            twin = self.links.error_json(site_id)
            wrote.append(self._write(self.links.error(site_id), built, twin, related))
        return wrote

    def package(self, package: str, version: str) -> _Wrote:
        """The page of `package` `version` (every error it has), with its twin."""
        built = views.package(
            self.data, self.links, package, version, limit=views.MAX_PACKAGE_LIMIT * 100
        )
        url = self.links.package(package, version)
        return self._write(url, built, self.links.package_json(package, version))

    def _write(self, url: str, built: Page, twin: str, related: tuple[str, ...] = ()) -> _Wrote:
        unchanged = self.out.unchanged
        names = [self.out.write(_url_parts(twin), codec.dumps(built.context))]
        html = self.renderer.render(built, path=url)
        names.append(self.out.write([*_url_parts(url), "index.html"], html))
        files = tuple((name, self.out.made.pop(name)) for name in names)
        return _Wrote(files, self.out.unchanged - unchanged, related)


_Task = Callable[[_Builder], list[_Wrote]]  # what a builder is asked to make


def _errors_task(site_ids: tuple[str, ...], builder: _Builder) -> list[_Wrote]:
    return builder.errors(site_ids)


def _package_task(package: str, version: str, builder: _Builder) -> list[_Wrote]:
    return [builder.package(package, version)]


_CHUNK = 64  # error pages a worker is asked for at once, at most
_worker_builder: _Builder | None = None


def _start_worker(
    parent: int, location: str | Path, root: Path, earlier: _Manifest, base_url: str
) -> None:
    """Set up a renderer: it ends when the export does, even by kill -9 (as the parse's
    workers do), so that none goes on writing into the folder."""
    from multiprocessing.util import Finalize

    from errdex.extract import end_with_parent

    end_with_parent(parent)
    global _worker_builder
    store = open_store(location, create=False)
    Finalize(store, store.close, exitpriority=10)  # before the worker waits for threads
    _worker_builder = _Builder(store, root, earlier, base_url)


def _in_worker(task: _Task) -> list[_Wrote]:
    assert _worker_builder is not None, "the worker was started by _start_worker"
    return task(_worker_builder)


def export_site(
    store: Store,
    directory: str | Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
    workers: int | None = None,
) -> ExportResult:
    """Write the site of `store` into `directory` (created if needed) and return what
    was written. An earlier export there is brought up to date: pages whose inputs are
    unchanged are kept unread, changed ones rewritten, files it made that no page makes
    any more removed; nothing else in `directory` is touched. If the earlier export's
    manifest cannot be trusted, every page is built and compared with the file there,
    nothing is removed, and `note` says why.

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
        removed = site.out.finish(site.key, site.made)
    except OSError as exc:
        raise ExportError(f"cannot write the export into {root}: {exc}") from exc
    note = site.earlier.problem
    return ExportResult(
        directory=root,
        pages=len(site.urls),
        errors=errors,
        files=site.out.files,
        seconds=time.perf_counter() - started,
        unchanged=site.out.unchanged,
        removed=removed,
        rendered=site.rendered,
        bytes=sum(f.size for f in site.out.made.values()),
        note=None if note is None else f"{note}; every page was checked against its file",
    )


def _write_pages(site: _Site, progress: Progress | None) -> int:
    """Write home, package, error and search pages with their twins; return the number
    of distinct errors."""
    data, links = site.data, site.links
    snapshots = data.snapshots()
    state = _State(site.store, snapshots)
    ids = site.store.site_ids(version="*")
    total = 2 + len(snapshots) + len(ids)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    home = views.home(data, links)  # made of the snapshot list alone: cheap to build
    inputs = _page_key(site.key, "/", home)
    if not site.kept("/", inputs):
        site.page("/", home, inputs, twin=links.packages_json())
    tick()
    for snap in snapshots:  # the longest pages first, while the others wait
        url = links.package(snap.package, snap.version)
        inputs = _key(site.key, url, state.package(snap.package, snap.version))
        if site.kept(url, inputs):
            tick()
            continue
        site.build(url)
        task = functools.partial(_package_task, snap.package, snap.version)
        site.run(task, functools.partial(_package_built, site, url, inputs, tick))
    _write_errors(site, state, ids, tick)
    search = views.search(data, links, "")
    inputs = _page_key(site.key, links.search(), search)
    if not site.kept(links.search(), inputs):
        site.page(links.search(), search, inputs)
    _write_search_index(site, state)
    site.wait()
    tick()
    return len(ids)


def _package_built(
    site: _Site, url: str, inputs: str, tick: Callable[[], None], wrote: list[_Wrote]
) -> None:
    (page,) = wrote
    site.built(url, inputs, page)
    tick()


def _write_errors(site: _Site, state: _State, ids: Sequence[str], tick: Callable[[], None]) -> None:
    """The page of each of `ids` and its twin, kept if neither its record nor those it
    links to changed (the links, from the record, are the earlier export's then); the
    others built a few at a time (neighbours, which link to each other)."""
    size = max(1, min(_CHUNK, len(ids) // (4 * site.workers)))
    todo: list[str] = []

    def run() -> None:
        batch = tuple(todo)
        todo.clear()
        task = functools.partial(_errors_task, batch)
        site.run(task, functools.partial(_errors_built, site, state, batch, tick))

    for site_id in ids:
        url = site.links.error(site_id)
        earlier = site.earlier.pages.get(url)
        if earlier is not None:
            inputs = _key(site.key, url, state.error(site_id, earlier.related))
            if site.kept(url, inputs):
                tick()
                continue
        site.build(url)
        todo.append(site_id)
        if len(todo) >= size:
            run()
    if todo:
        run()


def _errors_built(
    site: _Site,
    state: _State,
    site_ids: tuple[str, ...],
    tick: Callable[[], None],
    wrote: list[_Wrote],
) -> None:
    for site_id, page in zip(site_ids, wrote, strict=True):
        url = site.links.error(site_id)
        site.built(url, _key(site.key, url, state.error(site_id, page.related)), page)
        tick()


def _write_search_index(site: _Site, state: _State) -> None:
    """What the page searches: the fields the server's search reads, of the errors it
    covers by default, for app.js's twin of errdex.rank."""
    name = "search-index"  # not a page: listed in the manifest, not in the sitemap
    inputs = _key(site.key, name, state.searched())
    if site.kept(name, inputs, listed=False):
        return
    rows = [[i, package, version, line, *fields] for i, package, version, line, fields
            in site.store.search_fields()]  # fmt: skip
    index = codec.dumps(
        {"fields": ["id", "package", "version", "line", *rank.FIELDS], "rows": rows}
    )
    files: tuple[str, ...] = (site.out.write(["search-index.json"], index),)
    # The same index as a script: a page opened as a file may load a script, not fetch.
    script = f"window.ERRDEX_INDEX = {index.rstrip()};\n"
    files += (site.out.write(["search-index.js"], script),)
    site.made[name] = _Made(inputs, (), files)


def _write_fixed_files(site: _Site) -> None:
    """The 404 page, static assets, sitemap.xml and robots.txt."""
    out = site.out
    if not site.kept("404.html", site.key, listed=False):  # made of the renderer alone
        problem = Page(
            template="problem.html",
            context={"status": 404, "message": "no page at this address"},
            title="404: no page at this address · errdex",
            description="No page at this address.",
            status=404,
        )
        written = out.write(["404.html"], site.renderer.render(problem, path="/404.html"))
        site.made["404.html"] = _Made(site.key, (), (written,))
    static = resources.files("errdex.web").joinpath("static")
    for name in _STATIC_FILES:
        out.write(["static", segment(name)], static.joinpath(name).read_bytes())
    out.write(["sitemap.xml"], _sitemap(site.base_url, site.urls))
    robots = f"User-agent: *\nAllow: /\nSitemap: {site.base_url}/sitemap.xml\n"
    out.write(["robots.txt"], robots)


def _page_key(key: str, url: str, built: Page) -> str:
    """What a page built already is made from: its URL, its view's output (the record
    itself is in the context, as its JSON) and the renderer (in `key`)."""
    extra = {k: v for k, v in built.extra.items() if k != "record"}
    made_of: list[Any] = [key, url, built.template, built.context, built.title]
    made_of += [built.description, built.status, extra]
    return _key(*made_of)


def _sitemap(base_url: str, urls: list[str]) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    lines += [f"  <url><loc>{xml_escape(base_url + url)}</loc></url>" for url in urls]
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"
