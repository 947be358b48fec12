# The command line: parses flags, calls the library, prints. Exit status: 0 success,
# 1 an error errdex explains (bad source, unknown id, unreadable db), 2 bad usage.
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from errdex import __version__
from errdex.errors import ErrdexError, ErrorNotFound
from errdex.index import index_source
from errdex.model import IndexResult
from errdex.store import Store, open_store

app = typer.Typer(
    help="Catalog every error a Python codebase can raise, and find the one you saw.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite file to use (default: $ERRDEX_DB, else the user data dir)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


@contextmanager
def errors_explained() -> Iterator[None]:
    """Print our own errors as one clear line instead of a traceback."""
    try:
        yield
    except ErrdexError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; the store keeps its previous state", 130)


def _store(db: Path | None) -> Store:
    return open_store(db)


def _version_callback(value: bool) -> None:
    if value:
        out.print(f"errdex {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version_callback,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """errdex: every error of a Python codebase, explained and matched to its raise."""


@app.command()
def index(
    source: Annotated[
        str,
        typer.Argument(
            help="A directory, pypi:NAME[==VERSION], installed:NAME, or a git repo URL/path @REV.",
        ),
    ],
    db: DbOption = None,
    path: Annotated[
        list[str] | None,
        typer.Option(
            "--path",
            help="Index these folders/modules (relative to the root) instead of the "
            "package code found by default. Repeatable.",
        ),
    ] = None,
    whole_tree: Annotated[
        bool,
        typer.Option(
            "--whole-tree",
            help="Index every .py file, tests and examples included.",
        ),
    ] = False,
    workers: Annotated[int | None, typer.Option(help="Parser processes (default: cores).")] = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache",
            help="Parse every file again instead of reusing cached results.",
        ),
    ] = False,
    force: Annotated[bool, typer.Option(help="Rewrite even when nothing changed.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Index SOURCE: extract every error it can raise into the store."""
    code_paths: tuple[str, ...] | None = None
    if whole_tree:
        code_paths = ()
    elif path:
        code_paths = tuple(p.strip("/") for p in path)
    with errors_explained(), _store(db) as store, _progress() as report:
        result = index_source(
            source,
            store,
            code_paths=code_paths,
            workers=workers,
            use_cache=not no_cache,
            force=force,
            progress=report,
        )
    if as_json:
        out.print_json(json.dumps(_summary_json(result)))
    else:
        _print_summary(result)


@contextmanager
def _progress() -> Iterator[Any]:
    if not err.is_terminal or os.environ.get("CI"):
        yield None
        return
    # auto_refresh off: no refresh thread, so parse workers may be forked safely.
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        auto_refresh=False,
    )
    tasks: dict[str, Any] = {}

    def report(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total or None)
        bar.update(tasks[phase], completed=done, total=total or None)
        bar.refresh()

    with bar:
        yield report


def _summary_json(result: IndexResult) -> dict[str, Any]:
    snap = result.snapshot
    return {
        "package": snap.package,
        "version": snap.version,
        "repo": snap.repo_url,
        "commit": snap.commit,
        "files": result.files,
        "parsed": result.parsed,
        "sites": len(result.sites),
        "unchanged": result.unchanged,
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.skipped],
        "seconds": round(result.seconds, 3),
    }


def _print_summary(result: IndexResult) -> None:
    snap = result.snapshot
    for skipped in result.skipped[:20]:
        err.print(f"[yellow]skipped[/] {escape(skipped.path)}: {escape(skipped.reason)}")
    if len(result.skipped) > 20:
        err.print(f"[yellow]… and {len(result.skipped) - 20} more skipped files[/]")
    if result.unchanged:
        out.print(
            f"{snap.package} {snap.version}: unchanged since the last index "
            f"({result.files:,} files, {result.seconds:.2f} s)"
        )
        return
    out.print(
        f"{snap.package} {snap.version}: {result.files:,} files ({result.parsed:,} parsed), "
        f"{len(result.sites):,} error sites, {len(result.skipped)} skipped, "
        f"{result.seconds:.1f} s"
    )


@app.command("list")
def list_errors(
    package: Annotated[str | None, typer.Option(help="Only this package.")] = None,
    version: Annotated[
        str | None, typer.Option(help="Only this version (default: newest).")
    ] = None,
    exception: Annotated[str | None, typer.Option(help="Only this exception class.")] = None,
    file: Annotated[str | None, typer.Option(help="Only files matching this glob.")] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List indexed errors."""
    with errors_explained(), _store(db) as store:
        records = store.list_records(
            package=package, version=version, exception=exception, file_glob=file, limit=limit
        )
    if as_json:
        out.print_json(json.dumps(records))
        return
    if not records:
        err.print("no errors match these filters")
        return
    table = Table(box=None, show_edge=False, pad_edge=False)
    for column in ("id", "exception", "location", "message"):
        table.add_column(column, overflow="fold" if column == "message" else "ellipsis")
    for record in records:
        loc = record["location"]
        message = record["message"]
        table.add_row(
            record["id"],
            record["exception"]["name"],
            f"{loc['file']}:{loc['line']}",
            escape(_short(message["text"] if message else "(no message)")),
        )
    out.print(table)


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@app.command()
def show(
    target: Annotated[str, typer.Argument(help="An error id, or a message exactly as indexed.")],
    package: Annotated[str | None, typer.Option(help="Package the id belongs to.")] = None,
    version: Annotated[str | None, typer.Option(help="Version (default: newest).")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one error: its message, where it is raised, the guards and inputs."""
    with errors_explained(), _store(db) as store:
        record = store.get(target.strip(), package=package, version=version)
        if record is None:
            found = store.find_by_message(target)
            if not found:
                raise ErrorNotFound(
                    f"no error with id or message {target!r}; "
                    "`errdex list` shows ids, `errdex match TEXT` finds a message with values"
                )
            if len(found) > 1:
                err.print(f"{len(found)} errors have this message; show one by id:")
                for candidate in found:
                    loc = candidate["location"]
                    err.print(f"  {candidate['id']}  {loc['file']}:{loc['line']}")
                raise typer.Exit(1)
            record = found[0]
    if as_json:
        out.print_json(json.dumps(record))
    else:
        _print_record(record)


def _print_record(record: dict[str, Any]) -> None:
    loc = record["location"]
    exc = record["exception"]
    pkg = record["package"]
    out.print(
        f"[bold]{escape(exc['name'])}[/] ({escape(exc['qualname'])})  "
        f"{escape(pkg['name'])} {escape(pkg['version'])}  id {record['id']}"
    )
    message = record["message"]
    out.print(escape(message["text"]) if message else "(no message)")
    out.print(
        f"\n[bold]Raised at[/] {escape(loc['file'])}:{loc['line']} in {escape(loc['function'])}"
    )
    if loc.get("url"):
        out.print(escape(loc["url"]))
    if record["guard"]:
        out.print("\n[bold]When[/]")
        for guard in record["guard"]:
            text = f"not ({guard['test']})" if guard["negated"] else guard["test"]
            out.print(f"  {guard['kind']:<10} {escape(text)}  [dim](line {guard['line']})[/]")
    if record["inputs"]:
        out.print("\n[bold]Inputs[/]")
        for item in record["inputs"]:
            typed = f": {item['type']}" if item.get("type") else ""
            default = f" = {item['default']}" if item.get("default") is not None else ""
            out.print(
                f"  {escape(item['expr'])}{escape(typed)}{escape(default)}  "
                f"[dim]({item['kind']})[/]"
            )
            if item.get("doc"):
                out.print(f"      {escape(_short(item['doc'], 160))}")
    snippet = record["snippet"]
    out.print("\n[bold]Source[/]")
    for number, line in enumerate(snippet["lines"], start=snippet["start_line"]):
        mark = ">" if loc["line"] <= number <= loc["end_line"] else " "
        out.print(f"{mark}{number:>6}  {escape(line)}")


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
