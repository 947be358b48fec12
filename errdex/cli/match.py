# `errdex match`: from the text a user saw to the raise that produced it.
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from errdex import codec
from errdex.cli.console import (
    HelpCommand,
    argument,
    db_option,
    errors_explained,
    fail,
    json_option,
    store_at,
    write_json,
)
from errdex.cli.lookup import check_indexed
from errdex.markup import printable
from errdex.model import Match, MatchResult
from errdex.names import canonical as canonicalize_name

MAX_SHOWN_VALUE = 60


@click.command(cls=HelpCommand)
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
@click.option(
    "--closest", "show_closest", is_flag=True, help="List near misses even beside an exact match."
)
@db_option
@json_option
def match(
    text: str | None,
    file: Path | None,
    package: str | None,
    limit: int,
    show_closest: bool,
    db: Path | None,
    as_json: bool,
) -> None:
    """Find the raise that produced a message or traceback, and the values in its holes.

    Exit status: 0 when something matched, 1 when nothing did (the answer says why).
    """
    from errdex.match import MAX_INPUT_BYTES, Matcher, too_large

    if file is not None:
        try:
            with file.open("rb") as handle:  # past the cap the matcher refuses: read no more
                raw: str | bytes = handle.read(MAX_INPUT_BYTES + 1)
                size = os.fstat(handle.fileno()).st_size  # what is there, not what was read
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror}")
        if len(raw) > MAX_INPUT_BYTES:
            fail(f"{file}: {too_large(max(size, len(raw)))}", kind="too-large")
    elif text is None or text == "-":
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:  # the rest is left unread
            fail(f"standard input: {too_large(MAX_INPUT_BYTES, more=True)}", kind="too-large")
    else:
        raw = text
    if not raw.strip():
        raise click.UsageError("no text to match: give TEXT, --file PATH, or pipe it in")
    with errors_explained(), store_at(db) as store:
        if package is not None:  # as `list` does: name what is indexed instead
            wanted, _, version = package.partition("==")
            check_indexed(store, wanted, version or None)
        name = None if package is None else canonicalize_name(package.partition("==")[0])
        result = Matcher(store, package=name).match(raw, package=package, limit=limit)
    if as_json:
        write_json(codec.match_result_to_json(result))
    else:
        click.echo(printable(render_text(result, closest=show_closest)))
    if not result.matches:
        raise click.exceptions.Exit(1)


def render_text(result: MatchResult, *, closest: bool = False) -> str:
    """The short human-readable answer (no trailing newline). Near misses are listed when
    no answer is exact, or when `closest` asks for them."""
    lines: list[str] = []
    if not result.matches:
        lines.append(result.note or "no match")
    for i, m in enumerate(result.matches, 1):
        flags = [f"score {m.score:.2f}"]
        if m.exact:
            flags.append("exact")
        if m.ambiguous:
            flags.append("one of several identical messages")
        lines.append(
            f"{i}. {m.exception} at {m.file}:{m.line} in {m.function}"
            f"  ({m.package} {m.version}; {', '.join(flags)})"
        )
        if m.template is not None:
            lines.append(f"   message: {_marked(m)}")
        if m.version_inferred:
            lines.append(f"   you probably run {m.package} {m.version_inferred}")
        if m.note:
            lines.append(f"   note: {m.note}")
        lines.append(f"   details: errdex show {m.id}")
    if result.closest and (closest or not any(m.exact for m in result.matches)):
        lines.append("closest (not answers):")
        for m in result.closest:
            lines.append(
                f"  - {m.exception} at {m.file}:{m.line} in {m.function}"
                f" ({m.package} {m.version}): {m.label}  [errdex show {m.id}]"
            )
    return "\n".join(lines)


def _marked(m: Match) -> str:
    """The template with each hole shown as {expr=value} when the text filled it (a
    conversion or format spec, as in {item!r} or {ratio:.2f}, is kept before the =)."""
    text = m.template or ""
    for expr, value in m.values.items():
        short = value if len(value) <= MAX_SHOWN_VALUE else value[:57] + "..."
        for tail in ("}", "!r}", "!s}", "!a}", ":"):
            at = text.find("{" + expr + tail)
            if at == -1:
                continue
            end = text.find("}", at + len(expr) + 1)
            hole = text[at + 1 : end]
            text = text[:at] + "{" + hole + "=" + short + "}" + text[end + 1 :]
            break
    return text
