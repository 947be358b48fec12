# Optional AI assistance: send an error's facts to any OpenAI-compatible chat endpoint
# (a local vLLM or Ollama server, or a hosted one) and keep the answer in the store
# *beside* the static explanation, labelled with the model and date. Requests have a
# timeout, bounded retries with backoff, and a concurrency limit; an answer already in
# the store is not asked for again. Off by default: nothing else imports this module.
from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from errdex import codec
from errdex.errors import ErrdexError
from errdex.model import Enrichment, Record
from errdex.store import Store

ENV_URL = "ERRDEX_LLM_URL"  # e.g. http://127.0.0.1:8000/v1
ENV_MODEL = "ERRDEX_LLM_MODEL"
ENV_KEY = "ERRDEX_LLM_KEY"  # falls back to OPENAI_API_KEY
MAX_SNIPPET_LINES = 40
MAX_DOC = 600
MAX_ANSWER = 8000
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})

SYSTEM_PROMPT = (
    "You explain errors raised by a Python library to its users. Use only the facts "
    "given (the raise site, its guard conditions, the inputs it reads and their docs, "
    "and the static explanation). Say what the error means, what typically causes it, "
    "and concrete steps to fix it, in at most 200 words of Markdown. If the facts do "
    "not say something, do not guess it."
)


class EnrichError(ErrdexError):
    """The chat endpoint could not give a usable answer (after retries), or none is set."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EnrichResult:
    site_id: str
    enrichment: Enrichment | None  # None when `error` is set
    error: str | None = None
    cached: bool = False


def settings_from_env(
    base_url: str | None = None, model: str | None = None, api_key: str | None = None
) -> tuple[str, str, str | None]:
    """(base_url, model, api_key) from the arguments, else ERRDEX_LLM_* variables.

    Raises EnrichError when no URL or model is given either way.
    """
    url = base_url or os.environ.get(ENV_URL)
    name = model or os.environ.get(ENV_MODEL)
    key = api_key or os.environ.get(ENV_KEY) or os.environ.get("OPENAI_API_KEY")
    if not url:
        raise EnrichError(f"no chat endpoint given, and {ENV_URL} is not set")
    if not name:
        raise EnrichError(f"no model given, and {ENV_MODEL} is not set")
    return url, name, key


def prompt(record: Record) -> str:
    """The user message: the facts of one error record, trimmed."""
    site = record.site
    explanation = site.explanation
    facts = {
        "package": {"name": record.package, "version": record.version},
        "exception": site.exception.name,
        "message": None if site.message is None else site.message.text,
        "location": {
            "file": site.location.file,
            "line": site.location.line,
            "function": site.location.function,
        },
        "guard": [{"test": g.test, "negated": g.negated, "kind": g.kind} for g in site.guard],
        "inputs": [
            {"name": i.name, "type": i.type, "default": i.default, "doc": (i.doc or "")[:MAX_DOC]}
            for i in site.inputs
        ],
        "static_explanation": None
        if explanation is None
        else {
            "title": explanation.title,
            "what_it_means": explanation.what_it_means,
            "when_it_happens": explanation.when_it_happens,
            "solutions": list(explanation.solutions),
        },
        "source": "\n".join(site.snippet.lines[:MAX_SNIPPET_LINES]),
    }
    return "Explain this error.\n\n" + codec.dumps(facts)


def enrich_records(records: Iterable[Record], store: Store, **options: Any) -> list[EnrichResult]:
    """`aenrich_records` for callers without an event loop; same options."""
    return asyncio.run(aenrich_records(records, store, **options))


async def aenrich_records(
    records: Iterable[Record],
    store: Store,
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    timeout: float = 60.0,
    retries: int = 2,
    concurrency: int = 4,
    refresh: bool = False,
    backoff: float = 0.5,
) -> list[EnrichResult]:
    """Ask the chat endpoint at `base_url` (".../v1") about each record, in input order,
    and keep each answer in `store`.

    An answer already in the store (same error id and model) is returned without a
    request unless `refresh`. A record whose request still fails after `retries` retries
    (timeouts, connection errors, HTTP 408/429/5xx) or whose answer is malformed gets an
    EnrichResult with `error` set; the others are unaffected. Never raises for one
    record's failure; StoreError if the store cannot keep an answer.
    """
    items = list(records)
    limit = asyncio.Semaphore(max(1, concurrency))
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = base_url.rstrip("/") + "/chat/completions"
    async with httpx.AsyncClient(timeout=timeout, headers=headers) as client:

        async def one(record: Record) -> EnrichResult:
            site_id = record.id
            if not refresh and (hit := store.enrichment(site_id, model)) is not None:
                return EnrichResult(site_id=site_id, enrichment=hit, cached=True)
            async with limit:
                try:
                    text = await _ask(client, url, model, prompt(record), retries, backoff)
                except EnrichError as exc:
                    return EnrichResult(site_id=site_id, enrichment=None, error=str(exc))
            enrichment = Enrichment(
                site_id=site_id,
                model=model,
                created=datetime.now(UTC).isoformat(timespec="seconds"),
                text=text,
            )
            store.save_enrichment(enrichment)
            return EnrichResult(site_id=site_id, enrichment=enrichment)

        return list(await asyncio.gather(*(one(r) for r in items)))


async def _ask(
    client: httpx.AsyncClient, url: str, model: str, question: str, retries: int, backoff: float
) -> str:
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": question},
        ],
        "temperature": 0.2,
    }
    problem = "no attempt made"
    for attempt in range(retries + 1):
        if attempt:
            await asyncio.sleep(backoff * 2 ** (attempt - 1))
        try:
            response = await client.post(url, json=body)
        except httpx.TimeoutException:
            problem = f"no answer from {url} within the timeout"
            continue
        except httpx.TransportError as exc:
            problem = f"cannot reach {url}: {exc}"
            continue
        if response.status_code in _RETRY_STATUS:
            problem = f"{url} answered HTTP {response.status_code}"
            continue
        if response.status_code != 200:
            raise EnrichError(
                f"{url} answered HTTP {response.status_code}: {response.text[:200]!r}; "
                "check the URL, model name and key"
            )
        return _answer(response, url)
    raise EnrichError(f"{problem} (after {retries + 1} attempts)")


def _answer(response: httpx.Response, url: str) -> str:
    try:
        data = response.json()
        text = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise EnrichError(
            f"{url} sent a malformed chat completion ({type(exc).__name__}): "
            f"{response.text[:200]!r}"
        ) from exc
    if not isinstance(text, str) or not text.strip():
        raise EnrichError(f"{url} sent an empty answer")
    return text.strip()[:MAX_ANSWER]
