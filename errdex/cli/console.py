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

from errdex.errors import (
    AmbiguousMessage,
    EmptyDatabase,
    ErrdexError,
    ErrorNotFound,
    InputTooLarge,
    NetworkError,
    NoDatabase,
    NotAvailable,
    NotErrdexDatabase,
    NotFoundError,
    PathOutsideTree,
    SourceError,
    StoreError,
    UnsafeArchiveError,
)
from errdex.markup import printable

# The store and the codec (and through them the records) load with the first command
# that reads a db or writes JSON: `errdex --version` and `--help` pay for click alone.
if TYPE_CHECKING:
    from rich.console import Console

    from errdex.store import Store


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

            self._console = Console(
                stderr=self._stderr, highlight=False, soft_wrap=True, emoji=False
            )
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rich(), name)

    @property
    def is_terminal(self) -> bool:
        stream = sys.stderr if self._stderr else sys.stdout
        return stream.isatty()

    def say(self, *parts: str | tuple[str, str]) -> None:
        """One line of `parts`, each plain text or (text, rich style): styled on a
        terminal, plain in a pipe, where rich is not imported. No markup is read, and
        every part is made printable."""
        if not self.is_terminal:
            stream = sys.stderr if self._stderr else sys.stdout
            texts = (part if isinstance(part, str) else part[0] for part in parts)
            stream.write(printable("".join(texts)) + "\n")
            return
        from rich.text import Text

        pieces = [
            printable(part) if isinstance(part, str) else (printable(part[0]), part[1])
            for part in parts
        ]
        self.rich().print(Text.assemble(*pieces))


out = _Console(stderr=False)
err = _Console(stderr=True)


def escape(text: str) -> str:
    """`text` made printable, with anything rich would read as markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(printable(text))


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
        metavar="PATH|URL",
        help="SQLite file or postgresql:// URL to use (default: $ERRDEX_DB, else a SQLite"
        " file in the user data dir).",
    )(f)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def fail(message: str, code: int = 1, *, kind: str | None = None) -> NoReturn:
    """Print `message` as one error line and leave with exit status `code`. Under
    --json, standard output also gets codec.error_to_json (the API's error object too);
    `kind` defaults to "usage" for exit status 2, else "error"."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.params.get("as_json"):
        from errdex import codec

        write_json(codec.error_to_json(kind or ("usage" if code == 2 else "error"), message))
    if err.is_terminal:
        err.print(f"[bold red]error:[/] {escape(message)}")
    else:
        click.echo(f"error: {printable(message)}", err=True)
    raise click.exceptions.Exit(code)


# What each of our errors is called in a --json error object, most specific first.
_KINDS: tuple[tuple[type[ErrdexError], str], ...] = (
    (NoDatabase, "no-database"),
    (AmbiguousMessage, "ambiguous"),
    (ErrorNotFound, "not-found"),
    (NotFoundError, "source-not-found"),
    (NetworkError, "network"),
    (UnsafeArchiveError, "unsafe-archive"),
    (SourceError, "bad-source"),
    (StoreError, "store"),
    (InputTooLarge, "too-large"),
    (NotAvailable, "not-available"),
)


def kind_of(exc: ErrdexError) -> str:
    return next((kind for cls, kind in _KINDS if isinstance(exc, cls)), "error")


def write_json(value: Any) -> None:
    """Print `value` as JSON on standard output, exactly as codec.dumps writes it."""
    from errdex import codec

    sys.stdout.write(codec.dumps(value))
    sys.stdout.flush()


def write_json_utf8_array(texts: Iterable[bytes]) -> None:
    """Print a JSON array of values given as the UTF-8 of their JSON text (codec's), as
    they come: the bytes themselves when standard output writes UTF-8, else decoded."""
    import codecs

    from errdex import codec

    stream = sys.stdout
    raw = getattr(stream, "buffer", None)
    if codecs.lookup(getattr(stream, "encoding", None) or "ascii").name != "utf-8":
        raw = None
    stream.flush()
    for piece in codec.join_array_utf8(texts):
        if raw is not None:
            raw.write(piece)
        else:
            stream.write(piece.decode())
    (stream if raw is None else raw).flush()


def store_at(db: str | Path | None, *, create: bool = False) -> Store:
    """The store of --db (else $ERRDEX_DB, else the default); only `errdex index` makes
    one that does not exist."""
    from errdex.store import open_store

    return open_store(db, create=create)


def advice(exc: ErrdexError) -> str:
    """The message of one of our errors, with what to do about it on the command line."""
    if isinstance(exc, AmbiguousMessage):
        ids = ", ".join(exc.ids[:10])
        return f"{exc}; show one by id: {ids}"
    if isinstance(exc, ErrorNotFound):
        return f"{exc}; `errdex list` shows ids, `errdex match TEXT` finds a message with values"
    if isinstance(exc, NoDatabase):
        return (
            f"{exc}; index a package into it first (errdex index SOURCE --db {exc.path}),"
            " or point --db or ERRDEX_DB at an existing database"
        )
    if isinstance(exc, EmptyDatabase):
        return (
            f"{exc}; index into it first (errdex index SOURCE --db {exc.where}), or {_chosen_by()}"
        )
    if isinstance(exc, NotErrdexDatabase):
        return f"{exc}; {_chosen_by()}"
    if isinstance(exc, PathOutsideTree):
        return f"--path {exc.path!r} leads outside {exc.root}; give a folder inside it"
    return str(exc)


def _chosen_by() -> str:
    """How the command's database was chosen, worded as what to change: --db when it was
    given, else ERRDEX_DB when set, else the default."""
    import os

    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.params.get("db") is not None:
        return "give --db another file or URL"
    if os.environ.get("ERRDEX_DB"):
        return "ERRDEX_DB names it: point ERRDEX_DB at another file, or give --db"
    return "it is the default database: move it away, or give --db another file"


def leave_garbage_to_exit() -> None:
    """Leave what an index made to the end of the process, which frees its memory at once.

    Parsing, linking and explaining a large tree leave cyclic garbage (some 1.4 million
    objects after vllm: facts, expression trees, closures of the explainer), and a
    command that ends right after its summary would have the interpreter's collection at
    exit walk it all: 2-3 s between the summary and the prompt. Frozen, the collector
    leaves it alone; a command calls this only once its work is written and printed."""
    import gc

    gc.freeze()


@contextmanager
def errors_explained() -> Iterator[None]:
    """Print our own errors as one clear line instead of a traceback."""
    try:
        yield
    except ErrdexError as exc:
        fail(advice(exc), kind=kind_of(exc))
    except KeyboardInterrupt:
        fail("interrupted; the store keeps its previous state", 130, kind="interrupted")
