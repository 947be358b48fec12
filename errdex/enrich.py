# Optional AI assistance: send an error's facts to any OpenAI-compatible chat endpoint
# (a local vLLM or Ollama server, or a hosted one) and keep the answer *beside* the
# static explanation, labelled with the model and date. Answers are cached by error id
# and model in a small SQLite file; requests have a timeout, bounded retries with
# backoff, and a concurrency limit. Off by default: nothing else imports this module.
from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from errdex.errors import ErrdexError

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
    """The chat endpoint could not give a usable answer (after retries)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Enrichment:
    """An answer from a model, stored beside (never over) the static explanation."""

    site_id: str
    model: str
    created: str  # ISO 8601 UTC time of the answer
    text: str
    provenance: str = "llm"


@dataclass(frozen=True, slots=True, kw_only=True)
class EnrichResult:
    site_id: str
    enrichment: Enrichment | None  # None when `error` is set
    error: str | None = None
    cached: bool = False


def enrichment_to_json(enrichment: Enrichment) -> dict[str, str]:
    """The `ai` object to show next to a record's `explanation`."""
    return {
        "text": enrichment.text,
        "model": enrichment.model,
        "created": enrichment.created,
        "provenance": enrichment.provenance,
    }


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
        raise EnrichError(
            f"no chat endpoint: pass --url or set {ENV_URL} (e.g. http://127.0.0.1:8000/v1)"
        )
    if not name:
        raise EnrichError(f"no model: pass --model or set {ENV_MODEL}")
    return url, name, key


class EnrichCache:
    """Answers by (error id, model) in one SQLite file; safe to share across threads."""

    def __init__(self, path: Path | None):
        self._lock = threading.Lock()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            ":memory:" if path is None else str(path), check_same_thread=False
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS enrichments (site_id TEXT NOT NULL, model TEXT NOT "
            "NULL, created TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (site_id, model))"
        )
        self._db.commit()

    def get(self, site_id: str, model: str) -> Enrichment | None:
        with self._lock:
            row = self._db.execute(
                "SELECT created, text FROM enrichments WHERE site_id = ? AND model = ?",
                (site_id, model),
            ).fetchone()
        if row is None:
            return None
        return Enrichment(site_id=site_id, model=model, created=row[0], text=row[1])

    def latest(self, site_id: str) -> Enrichment | None:
        """The newest answer about `site_id`, from whichever model gave it."""
        with self._lock:
            row = self._db.execute(
                "SELECT model, created, text FROM enrichments WHERE site_id = ? "
                "ORDER BY created DESC LIMIT 1",
                (site_id,),
            ).fetchone()
        if row is None:
            return None
        return Enrichment(site_id=site_id, model=row[0], created=row[1], text=row[2])

    def put(self, enrichment: Enrichment) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO enrichments VALUES (?, ?, ?, ?)",
                (enrichment.site_id, enrichment.model, enrichment.created, enrichment.text),
            )
            self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()


def prompt(record: Mapping[str, Any]) -> str:
    """The user message: the facts of one error record (the JSON contract), trimmed."""
    explanation = record.get("explanation") or {}
    facts = {
        "package": record.get("package"),
        "exception": (record.get("exception") or {}).get("name"),
        "message": (record.get("message") or {}).get("text"),
        "location": {
            k: (record.get("location") or {}).get(k) for k in ("file", "line", "function")
        },
        "guard": [
            {"test": g.get("test"), "negated": g.get("negated"), "kind": g.get("kind")}
            for g in record.get("guard", [])
        ],
        "inputs": [
            {
                "name": i.get("name"),
                "type": i.get("type"),
                "default": i.get("default"),
                "doc": (i.get("doc") or "")[:MAX_DOC],
            }
            for i in record.get("inputs", [])
        ],
        "static_explanation": {
            "title": record.get("title"),
            "what_it_means": explanation.get("what_it_means"),
            "when_it_happens": explanation.get("when_it_happens"),
            "solutions": explanation.get("solutions"),
        },
        "source": "\n".join((record.get("snippet") or {}).get("lines", [])[:MAX_SNIPPET_LINES]),
    }
    return "Explain this error.\n\n" + json.dumps(facts, indent=1, ensure_ascii=False)


def enrich_records(records: Iterable[Mapping[str, Any]], **options: Any) -> list[EnrichResult]:
    """`aenrich_records` for callers without an event loop; same options."""
    return asyncio.run(aenrich_records(records, **options))


async def aenrich_records(
    records: Iterable[Mapping[str, Any]],
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    cache_path: Path | None = None,
    timeout: float = 60.0,
    retries: int = 2,
    concurrency: int = 4,
    refresh: bool = False,
    backoff: float = 0.5,
) -> list[EnrichResult]:
    """Ask the chat endpoint at `base_url` (".../v1") about each record, in input order.

    Cached answers (same error id and model) are returned without a request unless
    `refresh`. A record whose request still fails after `retries` retries (timeouts,
    connection errors, HTTP 408/429/5xx) or whose answer is malformed gets an
    EnrichResult with `error` set; the others are unaffected. Never raises for one
    record's failure.
    """
    items = list(records)
    cache = EnrichCache(cache_path)
    limit = asyncio.Semaphore(max(1, concurrency))
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = base_url.rstrip("/") + "/chat/completions"
    try:
        async with httpx.AsyncClient(timeout=timeout, headers=headers) as client:

            async def one(record: Mapping[str, Any]) -> EnrichResult:
                site_id = str(record["id"])
                if not refresh and (hit := cache.get(site_id, model)) is not None:
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
                cache.put(enrichment)
                return EnrichResult(site_id=site_id, enrichment=enrichment)

            return list(await asyncio.gather(*(one(r) for r in items)))
    finally:
        cache.close()


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
