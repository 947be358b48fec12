# The web server under a fixed load over loopback: p50/p99 for the error page,
# /api/errors/{id}, /api/search and /api/match on a database of >= 50,000 error sites
# (vllm, transformers, django, sympy, pandas, scipy, astropy, scikit-learn, sqlalchemy,
# networkx, matplotlib, plus earlier versions of vllm, transformers and sympy). Server
# time comes from the Server-Timing header; the client's round trip (one keep-alive
# connection, requests one after another) is shown beside it.
from __future__ import annotations

import os
import random
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import save, table
from errdex import codec
from errdex.index import index_source
from errdex.store import open_store

PACKAGES = (
    "pypi:vllm==0.28.0",
    "pypi:transformers==4.46.3",
    "pypi:django==5.1.4",
    "pypi:sympy==1.13.3",
    "pypi:pandas==2.2.3",
    "pypi:scipy==1.14.1",
    "pypi:astropy==6.1.4",
    "pypi:scikit-learn==1.5.2",
    "pypi:sqlalchemy==2.0.36",
    "pypi:networkx==3.4.2",
    "pypi:matplotlib==3.9.2",
    # earlier versions too, as a catalog that follows releases holds them
    "pypi:vllm==0.27.0",
    "pypi:transformers==4.45.2",
    "pypi:sympy==1.13.2",
)
MIN_SITES = 50_000
REQUESTS = 500  # per endpoint
WARMUP = 30
SEED = 20240501
DB = Path(os.environ.get("ERRDEX_BENCH_DB") or Path.home() / ".cache/errdex-bench/web.sqlite")
_TIMING = re.compile(r"app;dur=([0-9.]+)")


def build_db() -> int:
    with open_store(DB) as store:
        for spec in PACKAGES:
            index_source(spec, store)
        sites = sum(s.sites for s in store.snapshots())
    if sites < MIN_SITES:
        raise SystemExit(f"the benchmark db has {sites:,} sites, fewer than {MIN_SITES:,}")
    return sites


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def workload(rng: random.Random) -> dict[str, list[Callable[[httpx.Client], httpx.Response]]]:
    """REQUESTS requests per endpoint, drawn once from the db with a fixed seed."""
    with open_store(DB) as store:
        records = [codec.record_to_json(r) for r in store.iter_records()]
    sample = rng.sample(records, REQUESTS)
    words = [
        w for r in sample for w in re.findall(r"[a-z]{5,}", (r["message"] or {}).get("text", ""))
    ]
    queries = [" ".join(rng.sample(words, 2)) for _ in range(REQUESTS)]

    def seen(record: dict[str, Any]) -> str:
        message = record["message"]
        parts = message["parts"] if message else []
        text = "".join(p.get("text", "42") for p in parts)
        return f"{record['exception']['name']}: {text}"

    with_message = [r for r in records if r["message"]]
    texts = [seen(r) for r in rng.sample(with_message, REQUESTS)]
    return {
        # The anchor: the same server and middleware answering a small static file.
        ANCHOR: [lambda c: c.get("/static/style.css")] * REQUESTS,
        "error page (HTML)": [_get(f"/errors/{r['id']}") for r in sample],
        "GET /api/errors/{id}": [_get(f"/api/errors/{r['id']}") for r in sample],
        "GET /api/search": [_get("/api/search", params={"q": q}) for q in queries],
        "POST /api/match": [_post("/api/match", json={"text": t}) for t in texts],
    }


def _get(url: str, **kwargs: Any) -> Callable[[httpx.Client], httpx.Response]:
    """One GET, its arguments bound now (a lambda's default arguments, typed)."""
    return lambda c: c.get(url, **kwargs)


def _post(url: str, **kwargs: Any) -> Callable[[httpx.Client], httpx.Response]:
    return lambda c: c.post(url, **kwargs)


ANCHOR = "anchor: GET /static/style.css"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    sites = build_db()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "errdex", "serve", "--db", str(DB), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    rows = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            deadline = time.monotonic() + 120
            while True:
                try:
                    client.get("/api/packages")
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.2)
            started = time.perf_counter()
            client.post("/api/match", json={"text": "ValueError: warm"})  # builds the matcher
            build = time.perf_counter() - started
            for name, calls in workload(random.Random(SEED)).items():
                for call in calls[:WARMUP]:
                    call(client)
                server_ms, client_ms = [], []
                for call in calls:
                    t0 = time.perf_counter()
                    answer = call(client)
                    client_ms.append((time.perf_counter() - t0) * 1000)
                    if answer.status_code != 200:
                        raise SystemExit(f"{name}: HTTP {answer.status_code} {answer.text[:200]}")
                    found = _TIMING.search(answer.headers.get("server-timing", ""))
                    assert found, "no Server-Timing header"
                    server_ms.append(float(found.group(1)))
                rows.append(
                    [
                        name,
                        f"{statistics.median(server_ms):.1f}",
                        f"{percentile(server_ms, 99):.1f}",
                        f"{statistics.median(client_ms):.1f}",
                        f"{percentile(client_ms, 99):.1f}",
                    ]
                )
    finally:
        server.terminate()
        server.wait(30)
    floor = float(rows[0][3])
    for row in rows:
        row.append(f"{float(row[3]) / floor:.1f}")
    save(
        "web.md",
        f"{sites:,} error sites ({', '.join(p.removeprefix('pypi:') for p in PACKAGES)}); "
        f"{REQUESTS} requests per endpoint after {WARMUP} warm-up, one keep-alive connection "
        f"over loopback; matcher built in {build:.1f} s at first use. Targets: error page "
        "p50 <= 20 ms, /api/match p50 <= 5 ms.\n\n"
        + table(
            rows,
            [
                "endpoint",
                "server p50 ms",
                "server p99 ms",
                "client p50 ms",
                "client p99 ms",
                "client p50 / anchor",
            ],
        ),
    )


if __name__ == "__main__":
    main()
