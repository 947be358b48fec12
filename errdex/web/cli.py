# `errdex serve` and `errdex export`, as typer commands for errdex.cli to register:
#     app.command("serve")(serve_command); app.command("export")(export_command)
# They parse flags and call the library; FastAPI and Uvicorn load only when used.
from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from errdex.errors import ErrdexError
from errdex.store import Store, open_store

_out = Console(highlight=False, soft_wrap=True)
_err = Console(stderr=True, highlight=False, soft_wrap=True)

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite file to use (default: $ERRDEX_DB, else the user data dir)."),
]


def _fail(message: str) -> typer.Exit:
    _err.print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(1)


def error_url(store: Store, target: str, base: str) -> str | None:
    """The page URL of the error with id or message `target` (first of several), or None."""
    record = store.get(target.strip())
    if record is None:
        found = store.find_by_message(target)
        record = found[0] if found else None
    return None if record is None else f"{base}/errors/{record['id']}"


def serve(
    db: Path | str | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    show: str | None = None,
) -> None:
    """Serve the site and API of the store at `db` until interrupted; print its URL (and
    the page of the error with id or message `show`). Raises ErrdexError (StoreError)."""
    import uvicorn

    from errdex.web import create_app

    store = open_store(db)
    try:
        shown = "localhost" if host in ("0.0.0.0", "::") else host
        base = f"http://{shown}:{port}" if ":" not in shown else f"http://[{shown}]:{port}"
        sites = sum(s["sites"] for s in store.snapshots())
        _out.print(f"errdex: {sites:,} errors at {base}/  (API: {base}/docs; Ctrl-C stops)")
        if show:
            url = error_url(store, show, base)
            if url is None:
                _err.print(f"[yellow]no indexed error has id or message {show!r}[/]")
            else:
                _out.print(f"the error {escape(show)!r}:\n  {url}")
        app = create_app(store)
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="warning",
            server_header=False,
            timeout_keep_alive=5,
            limit_concurrency=200,
        )
    finally:
        store.close()


def serve_command(
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = 8000,
    show: Annotated[
        str | None,
        typer.Option(help="Also print the page URL of the error with this id or message."),
    ] = None,
) -> None:
    """Serve the website and JSON API (OpenAPI at /docs) over the index."""
    try:
        serve(db, host, port, show)
    except ErrdexError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:  # the port is taken, the address is not ours, ...
        raise _fail(f"cannot listen on {host}:{port}: {exc}") from None


def export_command(
    directory: Annotated[Path, typer.Argument(help="Folder to write the site into.")],
    db: DbOption = None,
    base_url: Annotated[
        str,
        typer.Option(help="Where the files will be served (for sitemap.xml and canonical links)."),
    ] = "http://127.0.0.1:8000",
) -> None:
    """Write the whole site (HTML pages, JSON, search index, sitemap.xml) as static files."""
    from errdex.export import export_site

    try:
        with open_store(db) as store:
            result = export_site(store, directory, base_url=base_url)
    except ErrdexError as exc:
        raise _fail(str(exc)) from None
    _out.print(
        f"wrote {result.pages:,} pages ({result.errors:,} errors, {result.files:,} files) to "
        f"{escape(str(result.directory))} in {result.seconds:.1f} s\n"
        f"try it: python -m http.server -d {escape(os.fspath(directory))} 8000"
    )


def main() -> None:
    """`python -m errdex.web.cli serve|export ...`, until errdex.cli registers them."""
    app = typer.Typer(add_completion=False, no_args_is_help=True)
    app.command("serve")(serve_command)
    app.command("export")(export_command)
    app()


if __name__ == "__main__":
    main()
