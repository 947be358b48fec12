# The FastAPI application: routes are thin, each one calls a view (views.py) and renders
# its Page as HTML or returns its context as JSON. Errors of ours become clear JSON (under
# /api) or HTML pages; nothing a client sends can take the server down.
from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from errdex import __version__, codec
from errdex.errors import ErrorNotFound, InputTooLarge, StoreError
from errdex.match import MAX_INPUT_BYTES
from errdex.store import Store
from errdex.web import views
from errdex.web.data import WebData
from errdex.web.limits import BodyLimit
from errdex.web.links import Links
from errdex.web.render import Renderer
from errdex.web.timing import ServerTiming
from errdex.web.views import Page

log = logging.getLogger("errdex.web")

MAX_BODY = 2 * MAX_INPUT_BYTES  # JSON escaping may double a pasted traceback's size
RECORD_CACHE = "public, max-age=86400"  # an id's record changes only with a new index
PAGE_CACHE = "public, max-age=300"

Name = Annotated[str, Path(max_length=200, description="Package name, as indexed.")]
Version = Annotated[str, Path(max_length=200, description="Package version, as indexed.")]
SiteId = Annotated[str, Path(max_length=64, description="Error id (16 hex digits).")]


class MatchRequest(BaseModel):
    text: str = Field(description="An error message, a fragment of one, or a whole traceback.")
    package: str | None = Field(
        default=None, max_length=200, description='Only this package ("name" or "name==ver").'
    )


def create_app(store: Store, *, warm: bool = True, recheck: float = 5.0) -> FastAPI:
    """Return the errdex web application over `store`.

    `warm` builds the matcher in a background thread at startup so the first paste does
    not wait; `recheck` is how often (seconds) the snapshot list is re-read.
    """
    data = WebData(store, recheck=recheck)
    links = Links()
    renderer = Renderer(links)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:
            threading.Thread(target=_safely_warm, args=(data,), daemon=True).start()
        yield

    app = FastAPI(
        lifespan=lifespan,
        title="errdex",
        version=__version__,
        summary="Every error a Python codebase can raise, explained, and matched back to "
        "its raise.",
        docs_url="/docs",
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY)
    app.add_middleware(ServerTiming)
    app.mount("/static", StaticFiles(packages=[("errdex.web", "static")]), name="static")
    app.state.data = data

    _html_routes(app, data, links, renderer)
    _api_routes(app, data, links)
    _install_error_handlers(app, renderer)
    return app


def _html_routes(app: FastAPI, data: WebData, links: Links, renderer: Renderer) -> None:
    """The pages: each route calls its view and renders the Page as HTML."""

    def html(page: Page, request: Request, cache: str = PAGE_CACHE) -> HTMLResponse:
        body = renderer.render(page, path=request.url.path)
        return HTMLResponse(body, status_code=page.status, headers={"Cache-Control": cache})

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home_page(request: Request) -> HTMLResponse:
        return html(views.home(data, links), request, "no-cache")

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
    ) -> HTMLResponse:
        return html(views.error(data, links, site_id, version=version), request)

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
        form = parse_qs(body.decode("utf-8", "replace"), max_num_fields=10)
        text = form.get("text", [""])[0]
        package = form.get("package", [""])[0] or None
        # Matching is CPU work that reads the store: never on the event loop.
        page = await run_in_threadpool(views.match, data, links, text, package=package)
        return html(page, request, "no-store")


def _api_routes(app: FastAPI, data: WebData, links: Links) -> None:
    """The JSON API: each route returns its view's context, the page's JSON twin."""

    @app.get("/api/errors/{site_id}", tags=["errors"], summary="One error record")
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
        page = views.error(data, links, site_id, version=version)
        body = codec.dumps(page.context).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"ETag": etag, "Cache-Control": RECORD_CACHE}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    @app.get("/api/search", tags=["errors"], summary="Full-text search")
    def search_json(
        q: Annotated[str, Query(max_length=1000, description="Words to find.")] = "",
        package: Annotated[str | None, Query(max_length=200)] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_SEARCH_LIMIT)] = views.SEARCH_LIMIT,
        offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
    ) -> dict[str, Any]:
        """Errors whose message, title, explanation or inputs hold every word of `q`
        (the last may be a prefix), best first, with the matched words marked in
        `highlight` segments. Newest version of each package."""
        return views.search(data, links, q, package=package, limit=limit, offset=offset).context

    @app.post("/api/match", tags=["errors"], summary="Find the raise behind a message")
    def match_json(request: MatchRequest) -> dict[str, Any]:
        """The sites that produced `text` (a message or a traceback), best first, with the
        values that filled each hole; `closest` lists labelled near misses."""
        return views.match(data, links, request.text, package=request.package).context

    @app.get("/api/packages", tags=["packages"], summary="Indexed packages and versions")
    @app.get("/api/packages.json", include_in_schema=False)
    def packages_json() -> dict[str, Any]:
        """Every indexed package with its versions (newest first) and their counts."""
        return views.home(data, links).context

    @app.get(
        "/api/packages/{name}/{version}/errors", tags=["packages"], summary="A version's errors"
    )
    @app.get("/api/packages/{name}/{version}/errors.json", include_in_schema=False)
    def package_json(
        name: Name,
        version: Version,
        exception: Annotated[str | None, Query(max_length=200)] = None,
        q: Annotated[str | None, Query(max_length=1000)] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_PACKAGE_LIMIT)] = views.PACKAGE_LIMIT,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    ) -> dict[str, Any]:
        """The errors of one version by file and line, `limit` at a time, with counts by
        exception and by file; `exception` and `q` filter."""
        page = views.package(
            data, links, name, version, exception=exception, q=q, limit=limit, offset=offset
        )
        return page.context


def _safely_warm(data: WebData) -> None:
    try:
        data.warm()
    except Exception:  # the first request will try again and report it
        log.exception("could not build the matcher at startup")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path == "/openapi.json"


def _error_response(request: Request, renderer: Renderer, status: int, message: str) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": {"status": status, "message": message}}, status)
    page = Page(
        template="problem.html",
        context={"status": status, "message": message},
        title=f"{status}: {message[:80]} · errdex",
        description=message,
        status=status,
    )
    return HTMLResponse(renderer.render(page, path=request.url.path), status_code=status)


def _install_error_handlers(app: FastAPI, renderer: Renderer) -> None:
    @app.exception_handler(ErrorNotFound)
    async def not_found(request: Request, exc: ErrorNotFound) -> Response:
        return _error_response(request, renderer, 404, str(exc))

    @app.exception_handler(InputTooLarge)
    async def too_large(request: Request, exc: InputTooLarge) -> Response:
        return _error_response(request, renderer, 413, str(exc))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> Response:
        log.error("store error on %s: %s", request.url.path, exc)
        return _error_response(request, renderer, 503, f"the database cannot be read: {exc}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no page at {request.url.path}; errors are at /errors/ID, the API under /api"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return _error_response(request, renderer, exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return _error_response(request, renderer, 422, _describe(exc))

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
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
