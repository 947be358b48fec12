# `errdex index SOURCE`: one snapshot, or every release of a PyPI package.
from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from errdex import codec
from errdex.cli.console import (
    HelpCommand,
    argument,
    db_option,
    err,
    errors_explained,
    fail,
    json_option,
    leave_garbage_to_exit,
    out,
    store_at,
    write_json,
)
from errdex.model import IndexResult

MAX_SKIPPED_SHOWN = 20


@click.command(cls=HelpCommand)
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
@click.option(
    "--no-native",
    is_flag=True,
    help="Leave out the native sources (C, C++, CUDA, Rust): Python files only.",
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
@click.option(
    "--profile", is_flag=True, help="Say how long each phase took (--json always has them)."
)
@json_option
def index(
    source: str,
    db: Path | None,
    path: tuple[str, ...],
    whole_tree: bool,
    no_native: bool,
    workers: int | None,
    no_cache: bool,
    force: bool,
    all_versions: bool,
    since: str | None,
    profile: bool,
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
    with errors_explained(), store_at(db, create=True) as store, _progress() as report:
        from errdex.index import index_source

        result = index_source(
            source,
            store,
            code_paths=code_paths,
            workers=workers,
            use_cache=not no_cache,
            force=force,
            progress=report,
            pause_gc=True,  # this process is errdex's own
            native=not no_native,
        )
    if as_json:
        write_json(codec.index_result_to_json(result))
    else:
        _print_summary(result)
        if profile:
            for phase, seconds in result.phases:
                out.say(f"  {phase:<16} {seconds:8.3f} s")
    leave_garbage_to_exit()


def _index_all_versions(
    source: str, db: Path | None, since: str | None, workers: int | None, as_json: bool
) -> None:
    if not source.startswith("pypi:") or "==" in source:
        fail(f"--all-versions takes pypi:NAME without a version, not {source!r}", 2)
    if since is not None and not _is_version(since):
        fail(f"--since {since!r} is not a version (e.g. 0.27.0)", 2)
    with errors_explained(), store_at(db, create=True) as store, _progress() as report:
        from errdex.index import index_all_versions

        results = index_all_versions(
            source[5:], store, since=since, workers=workers, progress=report, pause_gc=True
        )
    if as_json:
        write_json([codec.index_result_to_json(r) for r in results])
    else:
        for result in results:
            _print_summary(result)
        if not results:
            out.say("every release is indexed already")
    leave_garbage_to_exit()


@contextmanager
def _progress() -> Iterator[Any]:
    """What `index` reports as it goes, on standard error: on a terminal, a bar per phase
    (a download's in bytes, with its speed); in a pipe or under CI, a line as each phase
    starts and one as it ends, so a log shows what a long index is doing."""
    if not err.is_terminal or os.environ.get("CI"):
        lines = _PhaseLines()
        try:
            yield lines.report
        finally:
            lines.end()
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    # auto_refresh off: no refresh thread, so parse workers may be forked safely.
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        _amount_column(),
        _speed_column(),
        TimeElapsedColumn(),
        console=err.rich(),
        transient=True,
        auto_refresh=False,
    )
    tasks: dict[str, Any] = {}

    def report(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total or None, bytes=phase in _BYTES)
        bar.update(tasks[phase], completed=done, total=total or None)
        bar.refresh()

    with bar:
        yield report


# The phases whose counts are bytes; the others count what _UNITS says.
_BYTES = {"download"}
_UNITS = {"parse": "files", "explain": "errors", "write": "errors", "versions": "releases"}


def _amount_column() -> Any:
    """rich's transfer column (`12.3/40.0 MB`) for a download, done of total for the rest."""
    from rich.progress import DownloadColumn, MofNCompleteColumn, ProgressColumn, Task
    from rich.text import Text

    class Amount(ProgressColumn):
        def __init__(self) -> None:
            super().__init__()
            self.transfer, self.count = DownloadColumn(), MofNCompleteColumn()

        def render(self, task: Task) -> Text:
            column = self.transfer if task.fields.get("bytes") else self.count
            return column.render(task)

    return Amount()


def _speed_column() -> Any:
    """rich's transfer speed (`4.1 MB/s`) for a download, nothing for the rest."""
    from rich.progress import ProgressColumn, Task, TransferSpeedColumn
    from rich.text import Text

    class Speed(ProgressColumn):
        def __init__(self) -> None:
            super().__init__()
            self.speed = TransferSpeedColumn()

        def render(self, task: Task) -> Text:
            return self.speed.render(task) if task.fields.get("bytes") else Text("")

    return Speed()


class _PhaseLines:
    """A line on standard error as each phase starts (`errdex: parse 2,238 files…`) and
    as it ends (`errdex: parse done: 2,238 files, 40.4 s`), for a pipe or a CI log."""

    def __init__(self) -> None:
        self.phase: str | None = None
        self.started = 0.0
        self.done = self.total = 0

    def report(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.end()
            self.phase, self.started = phase, time.perf_counter()
            err.say(f"errdex: {phase}{' ' + _amount(phase, total) if total else ''}…")
        self.done, self.total = done, total
        if total and done >= total:
            self.end()

    def end(self) -> None:
        if self.phase is None:
            return
        seconds = time.perf_counter() - self.started
        err.say(f"errdex: {self.phase} done: {_amount(self.phase, self.done)}, {seconds:.1f} s")
        self.phase = None


def _amount(phase: str, count: int) -> str:
    if phase in _BYTES:
        return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.1f} kB"
    unit = _UNITS.get(phase, "")
    return f"{count:,} {unit[:-1] if count == 1 else unit}".rstrip()


def _print_summary(result: IndexResult) -> None:
    snap = result.snapshot
    for skipped in result.skipped[:MAX_SKIPPED_SHOWN]:
        err.say(("skipped", "yellow"), f" {skipped.path}: {skipped.reason}")
    if len(result.skipped) > MAX_SKIPPED_SHOWN:
        more = len(result.skipped) - MAX_SKIPPED_SHOWN
        err.say((f"… and {more} more skipped files", "yellow"))
    if result.unchanged:
        out.say(
            f"{snap.package} {snap.version}: unchanged since the last index "
            f"({result.files:,} files, {result.site_count:,} error sites, {result.seconds:.2f} s)"
        )
        return
    if snap.note is not None:
        err.say(f"{snap.package} {snap.version}: {snap.note}")
    native = ""
    if result.native:
        files = sum(n for _, n, _ in result.native)
        sites = sum(n for _, _, n in result.native)
        languages = ", ".join(f"{language} {n:,}" for language, _, n in result.native if n)
        native = (
            f" (native: {files:,} files, {sites:,} sites{'; ' + languages if languages else ''})"
        )
    python_sites = result.site_count - sum(n for _, _, n in result.native)
    cython = sum(1 for site in result.sites if site.location.language == "cython")
    of_them = f", {cython:,} of them Cython" if cython else ""
    out.say(
        f"{snap.package} {snap.version}: {result.files:,} files ({result.parsed:,} parsed), "
        f"{python_sites:,} error sites{of_them}{native}, {len(result.skipped)} skipped, "
        f"{result.seconds:.1f} s"
    )


def _is_version(text: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        Version(text)
    except InvalidVersion:
        return False
    return True
