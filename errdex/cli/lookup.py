# `errdex list` and `errdex show`: the indexed errors, as a table or one whole record.
from __future__ import annotations

from collections.abc import Iterator
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
    write_json_utf8_array,
)
from errdex.markup import clip, plain, printable
from errdex.model import ErrorSite, Record
from errdex.names import canonical as canonicalize_name
from errdex.store import Store, find_error


@click.command("list", cls=HelpCommand)
@click.option("--package", help="Only this package.")
@click.option("--version", help="Only this version (default: newest).")
@click.option("--exception", help="Only this exception class.")
@click.option("--file", help="Only files matching this glob.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many.")
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
    with errors_explained(), store_at(db) as store:
        check_indexed(store, package, version)
        filters = (package, version, exception, file, limit)
        if as_json:  # streamed as stored: codec's text, not parsed and written again
            write_json_utf8_array(_json_texts(store, *filters))
            return
        records = list(
            store.iter_records(
                package=package, version=version, exception=exception, file_glob=file, limit=limit
            )
        )
    if not records:
        shown = [f"--{k} {v}" for k, v in (("exception", exception), ("file", file)) if v]
        scope = f"{package} {version or ''}".strip() if package else "the indexed packages"
        err.print(f"no error of {escape(scope)} matches {escape(' and '.join(shown))}")
        return
    if not out.is_terminal:  # a pipe: one whole line per error, nothing cut
        for record in records:
            site = record.site
            text = " ".join(site.message.text.split()) if site.message else "(no message)"
            click.echo(
                printable(
                    f"{site.id}\t{site.exception.name}\t"
                    f"{site.location.file}:{site.location.line}\t{text}"
                )
            )
        return
    from rich.table import Table

    table = Table(box=None, show_edge=False, pad_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("exception", no_wrap=True)
    table.add_column("location", no_wrap=True)  # a path is never cut: messages wrap
    table.add_column("message", overflow="fold", ratio=1)
    for record in records:
        site = record.site
        loc = site.location
        table.add_row(
            site.id,
            escape(site.exception.name),
            escape(f"{loc.file}:{loc.line}"),
            escape(" ".join(site.message.text.split()) if site.message else "(no message)"),
        )
    out.print(table)


def _json_texts(
    store: Store,
    package: str | None,
    version: str | None,
    exception: str | None,
    file: str | None,
    limit: int | None,
) -> Iterator[bytes]:
    return store.iter_records_utf8(
        package=package, version=version, exception=exception, file_glob=file, limit=limit
    )


def check_indexed(store: Store, package: str | None, version: str | None) -> None:
    """Fail, naming what is indexed, when the package or version asked for is not."""
    snapshots = store.snapshots()
    if not snapshots:
        fail("the database holds no package yet; index one with `errdex index SOURCE`")
    if package is None:
        if version is not None:
            fail("--version goes with --package", 2)
        return
    name = canonicalize_name(package)
    versions = [s.version for s in snapshots if s.package == name]
    if not versions:
        names = sorted({s.package for s in snapshots})
        fail(f"{package} is not indexed; indexed packages: {', '.join(names)}", kind="not-found")
    if version is not None and version != "*" and version not in versions:
        fail(
            f"{name} {version} is not indexed; indexed versions of {name}: {', '.join(versions)}",
            kind="not-found",
        )


@click.command(cls=HelpCommand)
@argument("target", help="An error id, or a message exactly as indexed.")
@click.option("--package", help="Package the id belongs to.")
@click.option("--version", help="Version (default: newest).")
@db_option
@json_option
def show(
    target: str, package: str | None, version: str | None, db: Path | None, as_json: bool
) -> None:
    """Show one error: its message, where it is raised, the guards and inputs."""
    with errors_explained(), store_at(db) as store:
        record = find_error(store, target, package=package, version=version)
    if as_json:
        write_json(codec.record_to_json(record))
    else:
        print_record(record)


def print_record(record: Record) -> None:
    """The whole record, section by section, as `errdex show` prints it."""
    site = record.site
    exc = site.exception
    out.say(
        (exc.name, "bold"),
        f" ({exc.qualname})  {record.package} {record.version}  id {site.id}",
    )
    if site.explanation is not None:
        out.say((site.explanation.title, "bold"))
    out.say(site.message.text if site.message else "(no message)")
    _print_explanation(site)
    loc = site.location
    _heading("Raised at", f" {loc.file}:{loc.line} in {loc.function}")
    url = codec.source_url(record.repo_url, record.commit, loc.file, loc.line, record.tag)
    if url:
        out.say(url if record.commit else f"{url}  (at the release's tag {record.tag})")
    _print_conditions(site)
    if record.ai is not None:
        ai = record.ai
        _heading("AI note", " ", (f"({ai.model}, {ai.created})", "dim"))
        out.say(ai.text)
    _heading("Source")
    for number, line in enumerate(site.snippet.lines, start=site.snippet.start_line):
        mark = ">" if loc.line <= number <= loc.end_line else " "
        out.say(f"{mark}{number:>6}  {line}")


def _heading(title: str, *rest: str | tuple[str, str]) -> None:
    out.say("")
    out.say((title, "bold"), *rest)


def _print_explanation(site: ErrorSite) -> None:
    body = site.explanation
    if body is None:
        return
    _heading("What it means")
    out.say(plain(body.what_it_means))
    _heading("When it happens")
    out.say(plain(body.when_it_happens))
    if body.solutions:
        _heading("Solutions")
        quoted = [f.source == "message" for f in body.fixes]
        for number, solution in enumerate(body.solutions, start=1):
            said = len(quoted) == len(body.solutions) and quoted[number - 1]
            note = ("  (the error message says so)", "dim") if said else ""
            out.say(f"  {number}. {plain(solution)}", note)
    if body.common_situations:
        _heading("Common situations")
        for situation in body.common_situations:
            out.say(f"  - {plain(situation)}")
    if body.tests:
        _heading("Tests that raise it")
        for test in body.tests:
            out.say(f"  {test.file}:{test.line} {test.name}")


def _print_conditions(site: ErrorSite) -> None:
    if site.guard:
        _heading("When")
        for guard in site.guard:
            # an assert's site is the assertion failing: show what it asserts
            text = f"{guard.test}  fails" if guard.kind == "assert" else guard.holds()
            out.say(f"  {guard.kind:<10} {text}  ", (f"(line {guard.line})", "dim"))
    settings = [i for i in site.inputs if i.kind != "local"]
    if settings:
        _heading("Inputs")
        for item in settings:
            typed = f": {item.type}" if item.type else ""
            default = f" = {item.default}" if item.default is not None else ""
            out.say(f"  {item.expr}{typed}{default}  ", (f"({item.kind})", "dim"))
            if item.doc:
                out.say(f"      {clip(plain(item.doc), 160)}")
            if item.reach:
                way = " → ".join(f"{h.function}({h.param})" for h in item.reach)
                out.say(f"      how your value reaches this check: {clip(way, 160)}")
            if item.knobs:
                uses = ", ".join(k.usage for k in item.knobs)
                out.say(f"      set with {clip(uses, 160)}")
    computed = [i for i in site.inputs if i.kind == "local"]
    if computed:
        _heading("Computed on the way")
        for item in computed:
            value = f" = {clip(item.default, 120)}" if item.default is not None else ""
            out.say(f"  {item.expr}{value}")
