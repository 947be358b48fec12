# The command line: parses flags, calls the library, prints. Exit status: 0 success,
# 1 an error errdex explains (bad source, unknown id, unreadable db), 2 bad usage,
# 70 a bug in errdex. Each command lives in the module of its kind; heavy libraries
# load only in the command that needs them.
from __future__ import annotations

import importlib
import os
import sys

import click

from errdex import __version__
from errdex.cli.console import CONTEXT_SETTINGS, HelpCommand, err, escape

__all__ = ["app", "main"]

# Each command and the module that defines it, in the order `errdex --help` lists them.
# A command's module is imported only when that command runs (or help lists it), so
# `errdex match` pays for nothing of `errdex serve`.
COMMANDS = {
    "index": ("errdex.cli.index", "index"),
    "index-many": ("errdex.cli.batch", "index_many"),
    "explain": ("errdex.cli.explain", "explain"),
    "list": ("errdex.cli.lookup", "list_errors"),
    "show": ("errdex.cli.lookup", "show"),
    "diff": ("errdex.cli.versions", "diff"),
    "history": ("errdex.cli.versions", "history_of"),
    "match": ("errdex.cli.match", "match"),
    "enrich": ("errdex.cli.enrich", "enrich"),
    "serve": ("errdex.cli.web", "serve_command"),
    "export": ("errdex.cli.web", "export_command"),
    "run": ("errdex.cli.run", "run"),
}


def _version_callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        click.echo(f"errdex {__version__}")
        raise click.exceptions.Exit()


class _Group(click.Group):
    command_class = HelpCommand

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = COMMANDS.get(cmd_name)
        if found is None:
            return None
        module, name = found
        command = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A mistyped command names the one it is closest to (`indx`: `index`)."""
        name = args[0] if args else ""
        if args and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            if close:
                ctx.fail(f"No such command {name!r}. Did you mean {close[0]!r}?")
        return super().resolve_command(ctx, args)


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
