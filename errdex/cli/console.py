# What every errdex command shares: the consoles, JSON output, one-line errors worded
# for the command line, click helpers that give positional arguments a help text, and
# the common --db / --json options.
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from errdex import codec
from errdex.errors import AmbiguousMessage, ErrdexError, ErrorNotFound, PathOutsideTree
from errdex.store import Store, open_store

if TYPE_CHECKING:
    from rich.console import Console


class _Console:
    """A rich Console made on first use: commands that print plain text or JSON (match,
    --version, every --json) never import rich."""

    def __init__(self, *, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def rich(self) -> Console:
        """The rich Console itself, made now if it was not yet."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich(), name)

    @property
    def is_terminal(self) -> bool:
        stream = sys.stderr if self._stderr else sys.stdout
        return stream.isatty()


out = _Console(stderr=False)
err = _Console(stderr=True)


def escape(text: str) -> str:
    """`text` with anything rich would read as markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


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
    if err.is_terminal:
        err.print(f"[bold red]error:[/] {escape(message)}")
    else:
        click.echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(code)


def write_json(value: Any) -> None:
    """Print `value` as JSON on standard output, exactly as codec.dumps writes it."""
    sys.stdout.write(codec.dumps(value))
    sys.stdout.flush()


def write_json_array(values: Iterable[Any]) -> None:
    """Print the JSON array of `values` as it comes, the same text as write_json(list)."""
    for piece in codec.dumps_array(values):
        sys.stdout.write(piece)
    sys.stdout.flush()


def store_at(db: Path | None) -> Store:
    return open_store(db)


def advice(exc: ErrdexError) -> str:
    """The message of one of our errors, with what to do about it on the command line."""
    if isinstance(exc, AmbiguousMessage):
        ids = ", ".join(exc.ids[:10])
        return f"{exc}; show one by id: {ids}"
    if isinstance(exc, ErrorNotFound):
        return f"{exc}; `errdex list` shows ids, `errdex match TEXT` finds a message with values"
    if isinstance(exc, PathOutsideTree):
        return f"--path {exc.path!r} leads outside {exc.root}; give a folder inside it"
    return str(exc)


@contextmanager
def errors_explained() -> Iterator[None]:
    """Print our own errors as one clear line instead of a traceback."""
    try:
        yield
    except ErrdexError as exc:
        fail(advice(exc))
    except KeyboardInterrupt:
        fail("interrupted; the store keeps its previous state", 130)
