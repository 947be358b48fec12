# `errdex serve` and `errdex export`: they parse flags and call the web layer; FastAPI
# and Uvicorn load only when one of them runs.
from __future__ import annotations

import os
from pathlib import Path

import click

from errdex.cli.console import HelpCommand, advice, argument, db_option, err, escape, fail, out
from errdex.errors import AmbiguousMessage, ErrdexError, ErrorNotFound
from errdex.store import Store, default_location, find_error, is_postgres, open_store


def error_url(store: Store, target: str, base: str) -> str | None:
    """The page URL of the error with id or message `target` (first of several), or None."""
    try:
        site_id = find_error(store, target).id
    except AmbiguousMessage as exc:
        site_id = exc.ids[0]
    except ErrorNotFound:
        return None
    return f"{base}/errors/{site_id}"


def serve(
    db: Path | str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    show: str | None = None,
    workers: int = 1,
) -> None:
    """Serve the site and API of the store at `db` until interrupted, in `workers`
    processes; print its URL (and the page of the error with id or message `show`).
    Raises ErrdexError (StoreError, NoDatabase)."""
    import uvicorn

    from errdex.web.app import SERVER_OPTIONS

    store = open_store(db, create=False)
    try:
        _can_listen(host, port)  # a busy port is said before any URL is printed
        shown = "localhost" if host in ("0.0.0.0", "::") else host
        base = f"http://{shown}:{port}" if ":" not in shown else f"http://[{shown}]:{port}"
        snapshots = store.snapshots()
        newest = {s.package: s.sites for s in snapshots}  # oldest first: the last stays
        every = sum(s.sites for s in snapshots)
        counted = f"{sum(newest.values()):,} errors in the newest version of each package"
        if every != sum(newest.values()):
            counted += f" ({every:,} across every indexed version)"
        processes = f", {workers} processes" if workers > 1 else ""
        out.print(f"errdex: {counted} at {base}/  (API: {base}/docs{processes}; Ctrl-C stops)")
        if show:
            url = error_url(store, show, base)
            if url is None:
                err.print(f"[yellow]no indexed error has id or message {show!r}[/]")
            else:
                out.print(f"the error {escape(show)!r}:\n  {url}")
    finally:
        store.close()
    # Each worker process loads the app by name and opens the database that $ERRDEX_DB
    # names: the one just opened, by its absolute path.
    location = str(default_location() if db is None else db)
    os.environ["ERRDEX_DB"] = location if is_postgres(location) else str(Path(location).resolve())
    uvicorn.run(
        "errdex.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        **SERVER_OPTIONS,
    )


def _can_listen(host: str, port: int) -> None:
    """Raise OSError if `host`:`port` cannot be bound (taken, or not an address of ours)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


@click.command("serve", cls=HelpCommand)
@db_option
@click.option("--host", default="127.0.0.1", help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(min=0, max=65535), default=8000, help="Port to listen on."
)
@click.option("--show", help="Also print the page URL of the error with this id or message.")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    default=1,
    help="Server processes, each with its own caches (about one per core).",
)
def serve_command(db: Path | None, host: str, port: int, show: str | None, workers: int) -> None:
    """Serve the website and JSON API (OpenAPI at /docs) over the index."""
    try:
        serve(db, host, port, show, workers)
    except ErrdexError as exc:
        fail(advice(exc))
    except OSError as exc:  # the port is taken, the address is not ours, ...
        fail(f"cannot listen on {host}:{port}: {exc}")


@click.command("export", cls=HelpCommand)
@argument("directory", type=click.Path(path_type=Path), help="Folder to write the site into.")
@db_option
@click.option(
    "--base-url",
    default="http://127.0.0.1:8000",
    help="Where the files will be served (for sitemap.xml and canonical links).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    help="Processes that render pages (default: one per core).",
)
def export_command(directory: Path, db: Path | None, base_url: str, workers: int | None) -> None:
    """Write the whole site (HTML pages, JSON, search index, sitemap.xml) as static files.
    Into the folder of an earlier export, only what changed is written again."""
    from errdex.web.export import export_site

    try:
        with open_store(db, create=False) as store:  # a typo is no new, empty db
            result = export_site(store, directory, base_url=base_url, workers=workers)
    except ErrdexError as exc:
        fail(advice(exc))
    kept = ""
    if result.unchanged or result.removed:
        kept = f"; {result.unchanged:,} files unchanged, {result.removed:,} removed"
    if result.note is not None:
        out.print(f"note: {escape(result.note)}")
    out.print(
        f"wrote {result.pages:,} pages ({result.errors:,} errors, {result.files:,} files,"
        f" {result.bytes / 2**20:,.1f} MiB{kept}; {result.rendered:,} pages rendered)"
        f" to {escape(str(result.directory))} in {result.seconds:.1f} s\n"
        f"try it: python -m http.server -d {escape(os.fspath(directory))} 8000"
    )
