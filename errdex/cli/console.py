# What every errdex command shares: the consoles, one-line errors, click helpers that
# give positional arguments a help text, and the common --db / --json options.
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.markup import escape

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

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


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print `message` as one error line and leave with exit status `code`."""
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise click.exceptions.Exit(code)
