# The command line: parses flags, calls the library, prints. Exit status: 0 success,
# 1 an error errdex explains (bad source, unknown id, unreadable db), 2 bad usage,
# 70 a bug in errdex. Each command lives in the module of its kind; heavy libraries
# load only in the command that needs them.
from __future__ import annotations

import os
import sys

import click
from rich.markup import escape

from errdex import __version__
from errdex.cli.console import CONTEXT_SETTINGS, HelpCommand, err
from errdex.cli.enrich import enrich
from errdex.cli.index import index
from errdex.cli.lookup import list_errors, show
from errdex.cli.match import match
from errdex.cli.versions import diff, history_of
from errdex.cli.web import export_command, serve_command

__all__ = ["app", "main"]


def _version_callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        click.echo(f"errdex {__version__}")
        raise click.exceptions.Exit()


class _Group(click.Group):
    command_class = HelpCommand

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were added, not sorted


@click.group(
    cls=_Group,
    help="Catalog every error a Python codebase can raise, and find the one you saw.",
    no_args_is_help=True,
    context_settings=CONTEXT_SETTINGS,
)
@click.option(
    "--version",
    is_flag=True,
    callback=_version_callback,
    expose_value=False,
    is_eager=True,
    help="Print the version and exit.",
)
def app() -> None:
    """errdex: every error of a Python codebase, explained and matched to its raise."""


for command in (
    index,
    list_errors,
    show,
    diff,
    history_of,
    match,
    enrich,
    serve_command,
    export_command,
):
    app.add_command(command)


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `errdex list | head`
        sys.stderr.close()
    except Exception as exc:  # a bug of ours: say so plainly, details on request
        if os.environ.get("ERRDEX_DEBUG"):
            raise
        err.print(
            f"[bold red]internal error:[/] {escape(type(exc).__name__)}: {escape(str(exc))}\n"
            "This is a bug in errdex; run again with ERRDEX_DEBUG=1 for the traceback "
            "and report it."
        )
        sys.exit(70)


if __name__ == "__main__":
    main()
