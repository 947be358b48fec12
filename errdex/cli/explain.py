# `errdex explain`: the prose of stored snapshots made again by this errdex's explainer,
# from the per-file facts cache (a file is parsed only when the cache lacks its facts).
from __future__ import annotations

from pathlib import Path

import click

from errdex import codec
from errdex.cli.console import (
    HelpCommand,
    db_option,
    err,
    errors_explained,
    escape,
    fail,
    json_option,
    leave_garbage_to_exit,
    out,
    store_at,
    write_json,
)


@click.command(cls=HelpCommand)
@db_option
@click.option("--package", help="Only the snapshots of this package.")
@click.option("--version", "version", help="With --package, only this version.")
@json_option
def explain(db: Path | None, package: str | None, version: str | None, as_json: bool) -> None:
    """Explain stored snapshots again (all, or --package NAME [--version V]) without
    parsing their source again: after an upgrade of errdex's explainer."""
    if version is not None and package is None:
        fail("--version goes with --package", 2)
    with errors_explained(), store_at(db) as store:
        from errdex.index import explain_stored

        done = explain_stored(store, package=package, version=version, pause_gc=True)
    leave_garbage_to_exit()  # the prose is made; nothing made on the way is read again
    if as_json:
        write_json(
            [
                {
                    "package": d.package,
                    "version": d.version,
                    "left": d.left,
                    "result": None if d.result is None else codec.index_result_to_json(d.result),
                }
                for d in done
            ]
        )
        return
    for d in done:
        name = f"{escape(d.package)} {escape(d.version)}"
        if d.result is None:
            err.print(f"[yellow]left as it was[/] {name}: {escape(d.left or '')}")
            continue
        result = d.result
        if result.parsed:
            err.print(
                f"[yellow]{name}: the facts cache lacked {result.parsed:,} of "
                f"{result.files:,} files: parsed them again[/]"
            )
        out.print(
            f"{name}: {result.site_count:,} error sites explained again "
            f"({result.reused:,} as they were, {result.parsed:,} files parsed), "
            f"{result.seconds:.1f} s"
        )
