# The command line: parses flags, calls the library, prints. Exit status: 0 success,
# 1 an error errdex explains (bad source, unknown id, unreadable db), 2 bad usage.
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from packaging.utils import canonicalize_name
from rich.markup import escape

from errdex import __version__
from errdex.clikit import (
    CONTEXT_SETTINGS,
    HelpCommand,
    argument,
    db_option,
    err,
    fail,
    json_option,
    out,
)
from errdex.errors import ErrdexError, ErrorNotFound
from errdex.model import IndexResult
from errdex.store import Store, open_store
from errdex.web.cli import export_command, serve_command


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


def _version_callback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        out.print(f"errdex {__version__}")
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


@app.command()
@argument(
    "source",
    help="A directory, pypi:NAME[==VERSION], installed:NAME, or a git repo URL/path @REV.",
)
@db_option
@click.option(
    "--path",
    multiple=True,
    help="Index these folders/modules (relative to the root) instead of the "
    "package code found by default. Repeatable.",
)
@click.option(
    "--whole-tree", is_flag=True, help="Index every .py file, tests and examples included."
)
@click.option("--workers", type=int, help="Parser processes (default: cores).")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Parse every file again instead of reusing cached results.",
)
@click.option("--force/--no-force", default=False, help="Rewrite even when nothing changed.")
@click.option(
    "--all-versions",
    is_flag=True,
    help="With pypi:NAME, index every stable release not yet indexed.",
)
@click.option("--since", help="With --all-versions, start at this version.")
@json_option
def index(
    source: str,
    db: Path | None,
    path: tuple[str, ...],
    whole_tree: bool,
    workers: int | None,
    no_cache: bool,
    force: bool,
    all_versions: bool,
    since: str | None,
    as_json: bool,
) -> None:
    """Index SOURCE: extract every error it can raise into the store."""
    if since is not None and not all_versions:
        fail("--since goes with --all-versions", 2)
    if all_versions:
        if path or whole_tree or no_cache or force:
            fail(
                "--all-versions indexes releases as they are; drop --path, --whole-tree, "
                "--no-cache and --force",
                2,
            )
        _index_all_versions(source, db, since, workers, as_json)
        return
    code_paths: tuple[str, ...] | None = None
    if whole_tree:
        code_paths = ()
    elif path:
        code_paths = tuple(p.strip("/") for p in path)
    with errors_explained(), _store(db) as store, _progress() as report:
        from errdex.index import index_source

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


def _index_all_versions(
    source: str, db: Path | None, since: str | None, workers: int | None, as_json: bool
) -> None:
    if not source.startswith("pypi:") or "==" in source:
        fail(f"--all-versions takes pypi:NAME without a version, not {source!r}", 2)
    with errors_explained(), _store(db) as store, _progress() as report:
        from errdex.index import index_all_versions

        results = index_all_versions(
            source[5:], store, since=since, workers=workers, progress=report
        )
    if as_json:
        out.print_json(json.dumps([_summary_json(r) for r in results]))
        return
    for result in results:
        _print_summary(result)
    if not results:
        out.print("every release is indexed already")


@contextmanager
def _progress() -> Iterator[Any]:
    if not err.is_terminal or os.environ.get("CI"):
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

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
@click.option("--package", help="Only this package.")
@click.option("--version", help="Only this version (default: newest).")
@click.option("--exception", help="Only this exception class.")
@click.option("--file", help="Only files matching this glob.")
@click.option("--limit", type=int, help="At most this many.")
@db_option
@json_option
def list_errors(
    package: str | None,
    version: str | None,
    exception: str | None,
    file: str | None,
    limit: int | None,
    db: Path | None,
    as_json: bool,
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
    from rich.table import Table

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


def _print_explanation(record: dict[str, Any]) -> None:
    body = record.get("explanation")
    if not body:
        return
    out.print(f"\n[bold]What it means[/]\n{escape(body['what_it_means'])}")
    out.print(f"\n[bold]When it happens[/]\n{escape(body['when_it_happens'])}")
    if body["solutions"]:
        out.print("\n[bold]Solutions[/]")
        for number, solution in enumerate(body["solutions"], start=1):
            out.print(f"  {number}. {escape(solution)}")
    if body["common_situations"]:
        out.print("\n[bold]Common situations[/]")
        for situation in body["common_situations"]:
            out.print(f"  - {escape(situation)}")
    if record.get("tests"):
        out.print("\n[bold]Tests that raise it[/]")
        for test in record["tests"]:
            out.print(f"  {escape(test['file'])}:{test['line']} {escape(test['name'])}")


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@app.command()
@argument("target", help="An error id, or a message exactly as indexed.")
@click.option("--package", help="Package the id belongs to.")
@click.option("--version", help="Version (default: newest).")
@db_option
@json_option
def show(
    target: str, package: str | None, version: str | None, db: Path | None, as_json: bool
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
                raise click.exceptions.Exit(1)
            record = found[0]
    ai = _ai_note(record["id"])
    if ai is not None:
        record["ai"] = ai
    if as_json:
        out.print_json(json.dumps(record))
    else:
        _print_record(record)


def _ai_note(site_id: str) -> dict[str, str] | None:
    """A model's answer from `errdex enrich`, if one was asked for."""
    from errdex.sources.cache import cache_root

    path = cache_root() / "enrich.sqlite"
    if not path.exists():
        return None
    from errdex.explain.enrich import EnrichCache, enrichment_to_json

    cache = EnrichCache(path)
    try:
        found = cache.latest(site_id)
    finally:
        cache.close()
    return None if found is None else enrichment_to_json(found)


def _print_record(record: dict[str, Any]) -> None:
    loc = record["location"]
    exc = record["exception"]
    pkg = record["package"]
    out.print(
        f"[bold]{escape(exc['name'])}[/] ({escape(exc['qualname'])})  "
        f"{escape(pkg['name'])} {escape(pkg['version'])}  id {record['id']}"
    )
    if record.get("title"):
        out.print(f"[bold]{escape(record['title'])}[/]")
    message = record["message"]
    out.print(escape(message["text"]) if message else "(no message)")
    _print_explanation(record)
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
    if record.get("ai"):
        ai = record["ai"]
        out.print(f"\n[bold]AI note[/] [dim]({escape(ai['model'])}, {escape(ai['created'])})[/]")
        out.print(escape(ai["text"]))
    snippet = record["snippet"]
    out.print("\n[bold]Source[/]")
    for number, line in enumerate(snippet["lines"], start=snippet["start_line"]):
        mark = ">" if loc["line"] <= number <= loc["end_line"] else " "
        out.print(f"{mark}{number:>6}  {escape(line)}")


@app.command()
@argument("old", help="NAME==VERSION already indexed, or a SOURCE.")
@argument("new", help="NAME==VERSION already indexed, or a SOURCE.")
@click.option("--markdown", is_flag=True, help="Release-notes Markdown.")
@db_option
@json_option
def diff(old: str, new: str, markdown: bool, db: Path | None, as_json: bool) -> None:
    """Errors added, removed, reworded, retyped and moved between two versions."""
    from errdex import history

    with errors_explained(), _store(db) as store:
        old_pkg, old_version = _snapshot_of(old, store)
        new_pkg, new_version = _snapshot_of(new, store)
        if old_pkg != new_pkg:
            fail(f"cannot diff two packages ({old_pkg} and {new_pkg}); give two versions of one")
        changes = history.diff_records(
            store.iter_records(package=old_pkg, version=old_version),
            store.iter_records(package=new_pkg, version=new_version),
        )
    old_label, new_label = f"{old_pkg} {old_version}", f"{new_pkg} {new_version}"
    if as_json:
        out.print_json(
            json.dumps(
                {
                    "old": {"package": old_pkg, "version": old_version},
                    "new": {"package": new_pkg, "version": new_version},
                    "summary": history.summary(changes),
                    "changes": [history.change_to_json(c) for c in changes],
                }
            )
        )
    elif markdown:
        out.print(escape(history.render_markdown(old_label, new_label, changes)), end="")
    else:
        out.print(escape(history.render_text(old_label, new_label, changes)))


def _snapshot_of(text: str, store: Store) -> tuple[str, str]:
    """(package, version) of NAME==VERSION in the store, else of SOURCE once indexed."""
    name, sep, version = text.partition("==")
    if sep and ":" not in name and "/" not in name:
        package = canonicalize_name(name)
        if any(s["package"] == package and s["version"] == version for s in store.snapshots()):
            return package, version
        text = f"pypi:{text}"
    from errdex.index import index_source

    result = index_source(text, store)
    return result.snapshot.package, result.snapshot.version


@app.command("history")
@argument("error_id", help="An error id.")
@db_option
@json_option
def history_of(error_id: str, db: Path | None, as_json: bool) -> None:
    """The versions an error exists in, and how it was reworded, retyped or moved."""
    from errdex import history

    with errors_explained(), _store(db) as store:
        record = store.get(error_id.strip())
        if record is None:
            raise ErrorNotFound(f"no error with id {error_id!r}; `errdex list` shows ids")
        events = history.lineage(store, record)
    versions = record.get("versions", [])
    if as_json:
        out.print_json(
            json.dumps(
                {
                    "id": record["id"],
                    "versions": versions,
                    "first_seen": versions[0] if versions else None,
                    "last_seen": versions[-1] if versions else None,
                    "history": events,
                }
            )
        )
        return
    package = record["package"]["name"]
    out.print(f"{record['id']}  {escape(package)}: in {', '.join(versions) or 'no version'}")
    for event in events:
        old, new = event["old"], event["new"]
        detail = f"{old['message']!r} -> {new['message']!r}" if old and new else ""
        if event["kind"] == "retyped":
            detail = f"{old['exception']} -> {new['exception']}"
        elif event["kind"] == "moved":
            detail = f"{old['file']} ({old['function']}) -> {new['file']} ({new['function']})"
        out.print(f"  {event['from']} -> {event['to']}: {event['kind']} {escape(detail)}")


@app.command()
@argument(
    "text", required=False, help="The message or traceback you saw; '-' reads standard input."
)
@click.option(
    "--file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read the text from this file.",
)
@click.option("--package", help="Only this package, or NAME==VERSION.")
@click.option("--limit", type=click.IntRange(min=1), default=10, help="At most this many matches.")
@db_option
@json_option
def match(
    text: str | None,
    file: Path | None,
    package: str | None,
    limit: int,
    db: Path | None,
    as_json: bool,
) -> None:
    """Find the raise that produced a message or traceback, and the values in its holes.

    Exit status: 0 when something matched, 1 when nothing did (the answer says why).
    """
    from errdex.match import MAX_INPUT_BYTES, Matcher, render_text, result_to_json

    if file is not None:
        try:
            with file.open("rb") as handle:  # past the cap the matcher refuses: read no more
                raw: str | bytes = handle.read(MAX_INPUT_BYTES + 1)
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror}")
    elif text is None or text == "-":
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        raw = text
    with errors_explained(), _store(db) as store:
        name = None if package is None else canonicalize_name(package.partition("==")[0])
        matcher = Matcher.build(store.iter_records(package=name, version="*"))
        result = matcher.match(raw, package=package, limit=limit)
    if as_json:
        out.print_json(json.dumps(result_to_json(result)))
    else:
        out.print(escape(render_text(result)))
    if not result.matches:
        raise click.exceptions.Exit(1)


@app.command()
@argument("ids", nargs=-1, help="Error ids (default: by filters).")
@click.option("--package", help="Only this package.")
@click.option("--version", help="Only this version (default: newest).")
@click.option("--limit", type=click.IntRange(min=1), default=20, help="At most this many errors.")
@click.option(
    "--url",
    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8001/v1 ($ERRDEX_LLM_URL).",
)
@click.option("--model", help="Model name ($ERRDEX_LLM_MODEL).")
@click.option("--key", help="API key ($ERRDEX_LLM_KEY).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, help="Requests in flight.")
@click.option("--timeout", type=float, default=60.0, help="Seconds per request.")
@click.option(
    "--refresh/--no-refresh", default=False, help="Ask again even when an answer is cached."
)
@db_option
@json_option
def enrich(
    ids: tuple[str, ...],
    package: str | None,
    version: str | None,
    limit: int,
    url: str | None,
    model: str | None,
    key: str | None,
    concurrency: int,
    timeout: float,
    refresh: bool,
    db: Path | None,
    as_json: bool,
) -> None:
    """Ask a language model to explain errors; kept beside the static text, never over it."""
    from errdex.explain.enrich import enrich_records, enrichment_to_json, settings_from_env
    from errdex.sources.cache import cache_root

    with errors_explained(), _store(db) as store:
        base_url, model_name, api_key = settings_from_env(url, model, key)
        if ids:
            found = [store.get(i) for i in ids]
            missing = [i for i, r in zip(ids, found, strict=True) if r is None]
            if missing:
                raise ErrorNotFound(f"no error with id {', '.join(missing)}")
            records = [r for r in found if r is not None]
        else:
            records = store.list_records(package=package, version=version, limit=limit)
        results = enrich_records(
            records,
            base_url=base_url,
            model=model_name,
            api_key=api_key,
            cache_path=cache_root() / "enrich.sqlite",
            timeout=timeout,
            concurrency=concurrency,
            refresh=refresh,
        )
    if as_json:
        out.print_json(
            json.dumps(
                [
                    {
                        "id": r.site_id,
                        "error": r.error,
                        "ai": None if r.enrichment is None else enrichment_to_json(r.enrichment),
                    }
                    for r in results
                ]
            )
        )
    else:
        for result in results:
            if result.enrichment is None:
                err.print(f"{result.site_id}: [red]failed[/] {escape(result.error or '')}")
            else:
                out.print(f"[bold]{result.site_id}[/] ({escape(result.enrichment.model)})")
                out.print(escape(result.enrichment.text) + "\n")
    if any(r.enrichment is None for r in results):
        raise click.exceptions.Exit(1)


# The web layer loads FastAPI and Uvicorn only when one of these commands runs.
app.add_command(serve_command)
app.add_command(export_command)


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
