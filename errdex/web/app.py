# The FastAPI application: routes are thin, each one calls a view (views.py) and renders
# its Page as HTML or returns its context as JSON. Errors of ours become clear JSON (under
# /api) or HTML pages; nothing a client sends can take the server down.
#
# Nothing runs on the event loop but reading requests and writing answers: every route
# that reads the store, matches, renders or encodes JSON is a plain `def` (run in the
# thread pool), and so is every error handler that renders a page. The answers are
# encoded there too (codec.dumps), never by FastAPI on the loop. An error's page and
# record are kept, finished, in an LRU keyed by the state of the store they came from.
from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError, field_validator
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from errdex import __version__, codec
from errdex.codec import JSON
from errdex.errors import ErrorNotFound, InputTooLarge, StoreError
from errdex.match import MAX_INPUT_BYTES
from errdex.store import Store, open_store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.head import HeadAsGet
from errdex.web.limits import (
    BODY_TIMEOUT,
    MAX_REQUESTS,
    BodyLimit,
    GuardedH11Protocol,
    RequestLimit,
)
from errdex.web.links import Links
from errdex.web.render import Renderer
from errdex.web.timing import ServerTiming
from errdex.web.views import Page

log = logging.getLogger("errdex.web")

MAX_BODY = 2 * MAX_INPUT_BYTES  # JSON escaping may double a pasted traceback's size
MAX_FORM_FIELDS = 10  # the paste form has two
RECORD_CACHE = "public, max-age=86400"  # an id's record changes only with a new index
PAGE_CACHE = "public, max-age=300"
FINISHED_BYTES = 32 * 1024 * 1024  # finished error pages and records kept, per process

# How uvicorn serves the app (`errdex serve`, and the tests' servers): the guarded h11
# protocol (a deadline on request headers, a cap on connections) in place of uvicorn's
# connection-counting `limit_concurrency`; RequestLimit caps requests in flight instead.
SERVER_OPTIONS: dict[str, Any] = {
    "http": GuardedH11Protocol,
    "timeout_keep_alive": 5,
    "limit_concurrency": None,
    "server_header": False,
}

Name = Annotated[str, Path(max_length=200, description="Package name, as indexed.")]
Version = Annotated[str, Path(max_length=200, description="Package version, as indexed.")]
SiteId = Annotated[str, Path(max_length=64, description="Error id (16 hex digits).")]


class MatchRequest(BaseModel):
    text: str = Field(description="An error message, a fragment of one, or a whole traceback.")
    package: str | None = Field(
        default=None, max_length=200, description='Only this package ("name" or "name==ver").'
    )

    @field_validator("text")
    @classmethod
    def text_well_formed(cls, text: str) -> str:
        """JSON may carry lone surrogates ("\\ud800"), which no UTF-8 text holds: each
        becomes U+FFFD, as an undecodable byte of the paste form does."""
        return well_formed(text)


def well_formed(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (a pair is joined)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


class Finished:
    """Finished answers (body and ETag) by key, least recently used dropped first, at
    most `max_bytes` of bodies held. Thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._held = 0
        self._items: OrderedDict[Hashable, tuple[bytes, str]] = OrderedDict()
        self._making: dict[Hashable, threading.Event] = {}  # answers being made now
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[bytes, str] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def made(self, key: Hashable, make: Callable[[], bytes]) -> tuple[bytes, str]:
        """The answer kept under `key`, else made by `make` once: requests asking for it
        meanwhile wait for that one instead of each making it too (200 clients paging
        through a version after an index made 200 copies of each page at once)."""
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            making = self._making.get(key)
            mine = making is None
            if making is None:
                making = self._making[key] = threading.Event()
        if not mine:
            making.wait()
            found = self.get(key)
            if found is not None:
                return found
        try:
            return self.put(key, make())
        finally:
            if mine:
                with self._lock:
                    del self._making[key]
                making.set()

    def put(self, key: Hashable, body: bytes) -> tuple[bytes, str]:
        item = (body, _etag(body))
        if len(body) > self.max_bytes // 8:
            return item
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._held -= len(old[0])
            self._items[key] = item
            self._held += len(body)
            while self._held > self.max_bytes:
                _, (dropped, _) = self._items.popitem(last=False)
                self._held -= len(dropped)
        return item


def create_app(
    store: Store,
    *,
    warm: bool = True,
    recheck: float = 1.0,
    body_timeout: float = BODY_TIMEOUT,
    max_requests: int = MAX_REQUESTS,
    close_store: bool = False,
) -> FastAPI:
    """Return the errdex web application over `store`.

    `warm` builds the matcher in a background thread at startup so the first paste does
    not wait; `recheck` is how often (seconds) the store is asked whether it changed;
    `body_timeout` is how long (seconds) a request body may take to arrive, and
    `max_requests` how many requests may be in flight; `close_store` closes `store` when
    the application shuts down.
    """
    data = WebData(store, recheck=recheck)
    links = Links()
    renderer = Renderer(links)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:
            threading.Thread(target=_safely_warm, args=(data,), daemon=True).start()
        try:
            yield
        finally:
            if close_store:
                store.close()

    app = FastAPI(
        lifespan=lifespan,
        title="errdex",
        version=__version__,
        summary="Every error a Python codebase can raise, explained, and matched back to "
        "its raise.",
        docs_url=None,  # Swagger UI loads from a CDN: blank offline; /docs is our own page
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY, timeout=body_timeout)
    app.add_middleware(ServerTiming)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RequestLimit, max_requests=max_requests)  # the outermost of ours
    app.mount("/static", StaticFiles(packages=[("errdex.web", "static")]), name="static")
    app.state.data = data
    finished = Finished(FINISHED_BYTES)

    _html_routes(app, data, links, renderer, finished)
    _api_routes(app, data, links, finished)
    _install_error_handlers(app, renderer)
    return app


def app_from_env() -> FastAPI:
    """The application over the database at $ERRDEX_DB (else the default one), which it
    closes on shutdown: the factory each worker of `errdex serve` loads, and that of
    `ERRDEX_DB=... uvicorn --factory errdex.web.app:app_from_env`."""
    return create_app(open_store(create=False), close_store=True)


def _finished_record(
    data: WebData,
    finished: Finished,
    request: Request,
    key: tuple[Hashable, ...],
    site_id: str,
    make: Callable[[], bytes],
    media_type: str,
    cache: str,
) -> Response:
    """The answer about one error: from `finished` while the store holds the same
    snapshots and model note as when it was made, else made by `make` (and kept). Sends
    an ETag, and 304 to a client that has the same."""
    store = data.store
    state = (*key, store.generation(), store.enrichment(site_id))
    body, etag = finished.made(state, make)
    headers = {"ETag": etag, "Cache-Control": cache}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def _match_request(body: bytes) -> MatchRequest:
    """The body of POST /api/match, read as a MatchRequest; else RequestValidationError,
    as FastAPI raises it (locations under "body"). json.loads, not pydantic's parser,
    so that a lone surrogate reaches MatchRequest's validator rather than failing."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested too deep
        problem = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        error = {"type": "json_invalid", "loc": ("body",), "msg": f"not JSON: {problem}"}
        raise RequestValidationError([error]) from None
    try:
        return MatchRequest.model_validate(value)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


def _json(context: JSON) -> Response:
    """A view's context as the API answers it: codec.dumps, in the calling thread."""
    return Response(codec.dumps(context).encode(), media_type="application/json")


def _html_routes(
    app: FastAPI, data: WebData, links: Links, renderer: Renderer, finished: Finished
) -> None:
    """The pages: each route calls its view and renders the Page as HTML."""

    def html(page: Page, request: Request, cache: str = PAGE_CACHE) -> HTMLResponse:
        body = renderer.render(page, path=request.url.path)
        return HTMLResponse(body, status_code=page.status, headers={"Cache-Control": cache})

    def paste_page(body: bytes, request: Request) -> HTMLResponse:
        """The answer to the paste form (urlencoded `text` and `package`)."""
        try:
            form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=MAX_FORM_FIELDS)
        except ValueError:  # more fields than allowed
            raise StarletteHTTPException(
                400,
                f"the form has more than {MAX_FORM_FIELDS} fields; send only text and package",
            ) from None
        text = form.get("text", [""])[0]
        package = form.get("package", [""])[0] or None
        return html(views.match(data, links, text, package=package), request, "no-store")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home_page(request: Request) -> HTMLResponse:
        return html(views.home(data, links), request, "no-cache")

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def docs_page(request: Request) -> HTMLResponse:
        """The API's endpoints, from the OpenAPI schema, on a page that needs no network."""
        endpoints = [
            {"method": method.upper(), "path": path, "summary": op.get("summary") or ""}
            for path, item in app.openapi()["paths"].items()
            for method, op in item.items()
        ]
        page = Page(
            template="docs.html",
            context={"endpoints": endpoints},
            title="errdex JSON API",
            description="The endpoints of errdex's JSON API, and its OpenAPI schema.",
        )
        return html(page, request)

    @app.get("/packages/{name}/{version}", response_class=HTMLResponse, include_in_schema=False)
    def package_page(
        request: Request,
        name: Name,
        version: Version,
        exception: Annotated[str | None, Query(max_length=200)] = None,
        q: Annotated[str | None, Query(max_length=1000)] = None,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    ) -> HTMLResponse:
        page = views.package(data, links, name, version, exception=exception, q=q, offset=offset)
        return html(page, request)

    @app.get("/errors/{site_id}", response_class=HTMLResponse, include_in_schema=False)
    def error_page(
        request: Request,
        site_id: SiteId,
        version: Annotated[str | None, Query(max_length=200)] = None,
    ) -> Response:
        def make() -> bytes:
            page = views.error(data, links, site_id, version=version)
            return renderer.render(page, path=request.url.path).encode()

        key = ("page", site_id, version, request.url.path)
        return _finished_record(
            data, finished, request, key, site_id, make, "text/html; charset=utf-8", PAGE_CACHE
        )

    @app.get("/search", response_class=HTMLResponse, include_in_schema=False)
    def search_page(
        request: Request,
        q: Annotated[str, Query(max_length=1000)] = "",
        package: Annotated[str | None, Query(max_length=200)] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_SEARCH_LIMIT)] = views.SEARCH_LIMIT,
        offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
    ) -> HTMLResponse:
        page = views.search(data, links, q, package=package, limit=limit, offset=offset)
        return html(page, request, "no-cache")

    @app.post("/match", response_class=HTMLResponse, include_in_schema=False)
    async def match_page(request: Request) -> HTMLResponse:
        body = await request.body()
        # Parsing the form, matching (CPU work that reads the store) and rendering: all
        # in the thread pool, never on the event loop.
        return await run_in_threadpool(paste_page, body, request)


def _api_routes(app: FastAPI, data: WebData, links: Links, finished: Finished) -> None:
    """The JSON API: each route returns its view's context, the page's JSON twin."""

    @app.get(
        "/api/errors/{site_id}",
        tags=["errors"],
        summary="One error record",
        response_class=JSONResponse,
    )
    @app.get("/api/errors/{site_id}.json", include_in_schema=False)
    def error_json(
        request: Request,
        site_id: SiteId,
        version: Annotated[
            str | None, Query(max_length=200, description="Version (default: newest).")
        ] = None,
    ) -> Response:
        """The error's record (docs/architecture.md) plus `versions`: every
        indexed version of its package that raises it. Cacheable: send If-None-Match."""

        def make() -> bytes:
            return codec.dumps(views.error(data, links, site_id, version=version).context).encode()

        key = ("record", site_id, version)
        return _finished_record(
            data, finished, request, key, site_id, make, "application/json", RECORD_CACHE
        )

    @app.get(
        "/api/search", tags=["errors"], summary="Full-text search", response_class=JSONResponse
    )
    def search_json(
        q: Annotated[str, Query(max_length=1000, description="Words to find.")] = "",
        package: Annotated[str | None, Query(max_length=200)] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_SEARCH_LIMIT)] = views.SEARCH_LIMIT,
        offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
    ) -> Response:
        """Errors whose message, title, explanation or inputs hold every word of `q`
        (the last may be a prefix), best first, with the matched words marked in
        `highlight` segments. Newest version of each package."""
        page = views.search(data, links, q, package=package, limit=limit, offset=offset)
        return _json(page.context)

    def answer_match(body: bytes) -> Response:
        asked = _match_request(body)
        return _json(views.match(data, links, asked.text, package=asked.package).context)

    @app.post(
        "/api/match",
        tags=["errors"],
        summary="Find the raise behind a message",
        response_class=JSONResponse,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": MatchRequest.model_json_schema()}},
            }
        },
    )
    async def match_json(request: Request) -> Response:
        """The sites that produced `text` (a message or a traceback), best first, with the
        values that filled each hole; `closest` lists labelled near misses. The body is
        a MatchRequest."""
        body = await request.body()
        # Parsing the JSON (up to MAX_BODY of it) and matching: in the thread pool.
        return await run_in_threadpool(answer_match, body)

    @app.get(
        "/api/packages",
        tags=["packages"],
        summary="Indexed packages and versions",
        response_class=JSONResponse,
    )
    @app.get("/api/packages.json", include_in_schema=False)
    def packages_json() -> Response:
        """Every indexed package with its versions (newest first) and their counts."""
        return _json(views.home(data, links).context)

    @app.get(
        "/api/packages/{name}/{version}/errors",
        tags=["packages"],
        summary="A version's errors",
        response_class=JSONResponse,
    )
    @app.get("/api/packages/{name}/{version}/errors.json", include_in_schema=False)
    def package_json(
        request: Request,
        name: Name,
        version: Version,
        exception: Annotated[str | None, Query(max_length=200)] = None,
        q: Annotated[str | None, Query(max_length=1000)] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_PACKAGE_LIMIT)] = views.PACKAGE_LIMIT,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    ) -> Response:
        """The errors of one version by file and line, `limit` at a time, with counts by
        exception and by file; `exception` and `q` filter. Cacheable: send If-None-Match."""

        def make() -> bytes:
            page = views.package(
                data, links, name, version, exception=exception, q=q, limit=limit, offset=offset
            )
            return codec.dumps(page.context).encode()

        # kept finished, as an error's record is: a page of 500 records costs some 100 ms
        # to make, and 200 clients paging through a version made every request wait
        key = ("package", name, version, exception, q, limit, offset, data.store.generation())
        body, etag = finished.made(key, make)
        headers = {"ETag": etag, "Cache-Control": PAGE_CACHE}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)


def _safely_warm(data: WebData) -> None:
    try:
        data.warm()
    except Exception:  # the first request will try again and report it
        log.exception("could not build the matcher at startup")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path == "/openapi.json"


def _error_response(
    request: Request, renderer: Renderer, status: int, message: str, code: str | None = None
) -> Response:
    if _wants_json(request):
        body = codec.dumps(codec.http_error_to_json(status, message, code)).encode()
        return Response(body, status, media_type="application/json")
    page = Page(
        template="problem.html",
        context={"status": status, "message": message},
        title=f"{status}: {message[:80]} · errdex",
        description=message,
        status=status,
    )
    return HTMLResponse(renderer.render(page, path=request.url.path), status_code=status)


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _install_error_handlers(app: FastAPI, renderer: Renderer) -> None:
    # Plain functions: Starlette runs them in the thread pool, so a page they render
    # takes no time from the event loop.
    @app.exception_handler(ErrorNotFound)
    def not_found(request: Request, exc: ErrorNotFound) -> Response:
        return _error_response(request, renderer, 404, str(exc))

    @app.exception_handler(InputTooLarge)
    def too_large(request: Request, exc: InputTooLarge) -> Response:
        return _error_response(request, renderer, 413, str(exc))

    @app.exception_handler(StoreError)
    def store_error(request: Request, exc: StoreError) -> Response:
        log.error("store error on %s: %s", request.url.path, exc)
        return _error_response(
            request, renderer, 503, f"the database cannot be read: {exc}", "store"
        )

    @app.exception_handler(StarletteHTTPException)
    def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no page at {request.url.path}; errors are at /errors/ID, the API under /api"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return _error_response(request, renderer, exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> Response:
        return _error_response(request, renderer, 422, _describe(exc))

    @app.exception_handler(Exception)
    def crash(request: Request, exc: Exception) -> Response:
        # One line here; the server logs the traceback (Starlette raises it on to it).
        log.error(
            "internal error on %s %s: %s: %s",
            request.method,
            request.url.path,
            type(exc).__name__,
            exc,
        )
        return _error_response(
            request,
            renderer,
            500,
            f"internal error ({type(exc).__name__}); this is a bug in errdex, please report it",
        )


def _describe(exc: RequestValidationError) -> str:
    """One line per problem: where, what is wrong, and what was sent."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path"))
        got = error.get("input")
        shown = "" if got is None or isinstance(got, dict) else f" (got {str(got)[:60]!r})"
        if error.get("type") == "missing":
            shown = ""
        source = error.get("loc", ("",))[0]
        label = f"{source} field {where!r}" if where else f"the request {source}"
        problems.append(f"{label}: {error.get('msg', 'invalid')}{shown}")
    return "; ".join(problems) or "invalid request"
