# `errdex enrich`: ask a language model about errors; answers kept in the store.
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


@click.command(cls=HelpCommand)
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
    "--refresh/--no-refresh", default=False, help="Ask again even when an answer is stored."
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
    from errdex.enrich import ENV_MODEL, ENV_URL, enrich_records, settings_from_env

    if not (url or _env(ENV_URL)):
        fail(f"no chat endpoint: pass --url or set {ENV_URL} (e.g. http://127.0.0.1:8001/v1)", 2)
    if not (model or _env(ENV_MODEL)):
        fail(f"no model: pass --model or set {ENV_MODEL}", 2)
    with errors_explained(), store_at(db) as store:
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
            store,
            base_url=base_url,
            model=model_name,
            api_key=api_key,
            timeout=timeout,
            concurrency=concurrency,
            refresh=refresh,
        )
    if as_json:
        write_json(
            [
                {
                    "id": r.site_id,
                    "error": r.error,
                    "ai": None if r.enrichment is None else codec.enrichment_to_json(r.enrichment),
                }
                for r in results
            ]
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


def _env(name: str) -> str | None:
    import os

    return os.environ.get(name) or None
