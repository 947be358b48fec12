# `errdex index-many LIST`: many snapshots, each a Ray task, into one database; a line
# per source as it ends, a table of them all at the end.
from __future__ import annotations

import time
from pathlib import Path

import click

from errdex.batch import Outcome, plan, run_batch, totals
from errdex.cli.console import (
    HelpCommand,
    argument,
    db_option,
    err,
    errors_explained,
    escape,
    fail,
    out,
)
from errdex.store import default_location


@click.command(cls=HelpCommand)
@argument(
    "list_arg",
    metavar="LIST",
    help="A file of SOURCEs, one per line (# comments), or pypi-top:N for the N"
    " most-downloaded PyPI projects.",
)
@db_option
@click.option(
    "--ray",
    "ray_address",
    metavar="auto|ADDRESS",
    help="The Ray cluster to run on: auto (the one this machine belongs to) or its"
    " address (default: a local Ray).",
)
@click.option("--workers", type=int, help="With a local Ray: how many tasks at once (cores).")
@click.option(
    "--retries",
    type=click.IntRange(0, 10),
    default=2,
    show_default=True,
    help="Tries again of a failed source when trying again may help.",
)
@click.option(
    "--since",
    metavar="DATE",
    help="Every release since DATE (YYYY-MM-DD) of each pypi:NAME given without a version.",
)
@click.option(
    "--top-list",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With pypi-top:N, the ranking to read (one name per line; default: the one errdex ships).",
)
def index_many(
    list_arg: str,
    db: str | None,
    ray_address: str | None,
    workers: int | None,
    retries: int,
    since: str | None,
    top_list: Path | None,
) -> None:
    """Index every SOURCE of LIST into one database, each as a Ray task: done snapshots
    are skipped, failures recorded with their reason, and the batch goes on."""
    if workers is not None and ray_address is not None:
        fail("--workers sizes a local Ray; a cluster given by --ray has its own size", 2)
    location = str(default_location() if db is None else db)
    with errors_explained():
        specs = plan(list_arg, top_list=top_list, since=since)
        if not specs:
            fail(f"{list_arg} names no source", 2)
        started = time.perf_counter()
        seen = 0

        def progress(outcome: Outcome) -> None:
            nonlocal seen
            seen += 1
            what = outcome.reason if outcome.status == "failed" else _figures(outcome)
            err.print(
                f"[{seen:>{len(str(len(specs)))}}/{len(specs)}] {outcome.status:<11}"
                f" {escape(outcome.source)}  {escape(what or '')}",
                highlight=False,
            )

        outcomes = run_batch(
            specs,
            location,
            ray_address=ray_address,
            workers=workers,
            retries=retries,
            on_outcome=progress,
        )
    _table(outcomes, time.perf_counter() - started)
    if any(o.status == "failed" for o in outcomes):
        raise click.exceptions.Exit(1)


def _figures(outcome: Outcome) -> str:
    if outcome.status == "skipped":
        return f"{outcome.package} {outcome.version} is in the database already"
    return (
        f"{outcome.package} {outcome.version}: {outcome.sites:,} sites in {outcome.files:,}"
        f" files, {outcome.seconds:.1f} s"
    )


def _table(rows: list[Outcome], seconds: float) -> None:
    from rich.table import Table

    table = Table(title="errdex index-many", title_justify="left")
    for name, justify in (
        ("source", "left"), ("status", "left"), ("version", "left"), ("files", "right"),
        ("sites", "right"), ("seconds", "right"), ("peak MB", "right"), ("tries", "right"),
    ):  # fmt: skip
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for o in rows:
        ran = o.status in ("indexed", "unchanged")
        table.add_row(
            escape(o.source),
            o.status,
            o.version or "",
            f"{o.files:,}" if ran else "",
            f"{o.sites:,}" if ran else "",
            f"{o.seconds:.1f}" if ran else "",
            f"{o.peak_rss_mb:.0f}" if ran else "",
            str(o.attempts) if o.attempts else "",
        )
    out.print(table)
    for o in rows:
        if o.status == "failed":
            out.print(f"failed: {escape(o.source)}: {escape(o.reason or '')}", highlight=False)
    counts = ", ".join(f"{n} {status}" for status, n in totals(rows).items())
    sites = sum(o.sites for o in rows if o.status in ("indexed", "unchanged"))
    out.print(f"{len(rows)} sources: {counts}; {sites:,} sites; {seconds:.1f} s", highlight=False)
