# `errdex serve` and `errdex export`, as click commands for errdex.cli to register:
#     app.add_command(serve_command); app.add_command(export_command)
# They parse flags and call the library; FastAPI and Uvicorn load only when used.
# HelpCommand and HelpArgument live here because errdex.cli imports this module.
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape

from errdex.errors import ErrdexError
from errdex.store import Store, open_store

_out = Console(highlight=False, soft_wrap=True)
_err = Console(stderr=True, highlight=False, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])

# Every option shows its default, unless it is None or an off flag; help uses up to
# 100 columns of the terminal.
CONTEXT_SETTINGS: dict[str, Any] = {"show_default": True, "max_content_width": 100}


class HelpArgument(click.Argument):
    """A positional argument with a help text (click before 8.5 has no such thing)."""

    def __init__(self, param_decls: Sequence[str], help: str | None = None, **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.help = help

    def help_row(self) -> tuple[str, str]:
        name = self.metavar or (self.name or "").upper()
        if not self.required:
            name = f"[{name}]"
        if self.nargs != 1:
            name += "..."
        text = self.help or ""
        return name, f"{text}  [required]" if self.required else text


class HelpCommand(click.Command):
    """A command whose --help lists its arguments, with their help, before its options."""

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first sentence, whole: the command list wraps it rather than cut it."""
        return super().get_short_help_str(limit=1000)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Written by format_options instead, the same way on every click version."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [p.help_row() for p in self.get_params(ctx) if isinstance(p, HelpArgument)]
        if rows:
            with formatter.section("Arguments"):
                formatter.write_dl(rows)
        super().format_options(ctx, formatter)


def argument(name: str, help: str, **attrs: Any) -> Callable[[F], F]:
    return click.argument(name, cls=HelpArgument, help=help, **attrs)


def db_option(f: F) -> F:
    return click.option(
        "--db",
        type=click.Path(path_type=Path),
        help="SQLite file to use (default: $ERRDEX_DB, else the user data dir).",
    )(f)


def _fail(message: str) -> click.exceptions.Exit:
    _err.print(f"[bold red]error:[/] {escape(message)}")
    return click.exceptions.Exit(1)


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


@click.command("serve", cls=HelpCommand)
@db_option
@click.option("--host", default="127.0.0.1", help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(min=0, max=65535), default=8000, help="Port to listen on."
)
@click.option("--show", help="Also print the page URL of the error with this id or message.")
def serve_command(db: Path | None, host: str, port: int, show: str | None) -> None:
    """Serve the website and JSON API (OpenAPI at /docs) over the index."""
    try:
        serve(db, host, port, show)
    except ErrdexError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:  # the port is taken, the address is not ours, ...
        raise _fail(f"cannot listen on {host}:{port}: {exc}") from None


@click.command("export", cls=HelpCommand)
@argument("directory", type=click.Path(path_type=Path), help="Folder to write the site into.")
@db_option
@click.option(
    "--base-url",
    default="http://127.0.0.1:8000",
    help="Where the files will be served (for sitemap.xml and canonical links).",
)
def export_command(directory: Path, db: Path | None, base_url: str) -> None:
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
