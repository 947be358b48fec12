# `errdex diff` and `errdex history`: how a package's errors change across versions.
from __future__ import annotations

from pathlib import Path

import click

from errdex import codec
from errdex.cli.console import (
    HelpCommand,
    argument,
    db_option,
    err,
    errors_explained,
    escape,
    fail,
    json_option,
    out,
    store_at,
    write_json,
)
from errdex.errors import ErrorNotFound
from errdex.model import Message
from errdex.names import canonical as canonicalize_name
from errdex.store import Store


@click.command(cls=HelpCommand)
@argument("old", help="NAME==VERSION already indexed, or a SOURCE to index first.")
@argument("new", help="NAME==VERSION already indexed, or a SOURCE to index first.")
@click.option("--markdown", is_flag=True, help="Release-notes Markdown.")
@db_option
@json_option
def diff(old: str, new: str, markdown: bool, db: Path | None, as_json: bool) -> None:
    """Errors added, removed, reworded, retyped and moved between two versions."""
    from errdex import history

    with errors_explained(), store_at(db) as store:
        old_side = _snapshot_of(old, store)
        new_side = _snapshot_of(new, store)
        if old_side[0] != new_side[0]:
            fail(
                f"cannot diff two packages ({old_side[0]} and {new_side[0]});"
                " give two versions of one"
            )
        changes = history.diff_records(
            store.iter_records(package=old_side[0], version=old_side[1]),
            store.iter_records(package=new_side[0], version=new_side[1]),
        )
    old_label, new_label = " ".join(old_side), " ".join(new_side)
    if as_json:
        write_json(codec.diff_to_json(old_side, new_side, history.summary(changes), changes))
    elif markdown:
        out.print(escape(history.render_markdown(old_label, new_label, changes)), end="")
    else:
        out.print(escape(history.render_text(old_label, new_label, changes)))


def _snapshot_of(text: str, store: Store) -> tuple[str, str]:
    """(package, version) of NAME==VERSION in the store, else of SOURCE once indexed.

    A NAME==VERSION that is not indexed is an error naming the SOURCE to index: diff
    downloads only what it is given as a SOURCE, and says so.
    """
    name, sep, version = text.partition("==")
    if sep and ":" not in name and "/" not in name:
        package = canonicalize_name(name)
        if any(s.package == package and s.version == version for s in store.snapshots()):
            return package, version
        fail(
            f"{text} is not indexed; run `errdex index pypi:{text}` first,"
            f" or give the SOURCE pypi:{text} to index it on the way"
        )
    from errdex.index import index_source

    err.print(f"indexing {escape(text)} first")
    result = index_source(text, store, pause_gc=True)
    return result.snapshot.package, result.snapshot.version


@click.command("history", cls=HelpCommand)
@argument("error_id", help="An error id.")
@db_option
@json_option
def history_of(error_id: str, db: Path | None, as_json: bool) -> None:
    """The versions an error exists in, and how it was reworded, retyped or moved."""
    from errdex import history

    with errors_explained(), store_at(db) as store:
        record = store.get(error_id.strip())
        if record is None:
            raise ErrorNotFound(f"no error with id {error_id!r}")
        events = history.lineage(store, record)
    if as_json:
        write_json(codec.history_to_json(record, events))
        return
    versions = record.versions
    out.print(f"{record.id}  {escape(record.package)}: in {', '.join(versions) or 'no version'}")
    for event in events:
        old, new = event.old, event.new
        detail = ""
        if old is not None and new is not None:
            a, b = old.site, new.site
            if event.kind == "retyped":
                detail = f"{a.exception.name} -> {b.exception.name}"
            elif event.kind in ("moved", "relaid"):
                detail = (
                    f"{a.location.file} ({a.location.function})"
                    f" -> {b.location.file} ({b.location.function})"
                )
            else:
                detail = f"{_text(a.message)!r} -> {_text(b.message)!r}"
            if old.id != new.id:  # the id to look up on the other side
                detail += f"  (id {old.id} -> {new.id})"
        out.print(f"  {event.old_version} -> {event.new_version}: {event.kind} {escape(detail)}")


def _text(message: Message | None) -> str:
    return "" if message is None else message.text
