# The web server under concurrent load over loopback: a bounded run of REQUESTS requests
# on CONNECTIONS keep-alive connections, mixing the error page /errors/{id},
# /api/errors/{id}, /api/search?q= and POST /api/match, against `errdex serve` over a
# fresh db of one real package (SOURCE). Then each endpoint alone and a static-file
# anchor (/static/style.css from the same server), in the same run. Reports requests/s,
# p50, p99 and errors (connect, read, write, timeouts and HTTP statuses over 399).
#
# Then 200 clients on the /api routes alone (their five, in turn), and the same while
# another release is indexed into the server's database (ALSO_INDEXED), with the slowest
# request of each row: what a hosted API under an uptime check and a crawler meets.
# ERRDEX_LOAD_ROWS=api runs only those two rows.
#
# The load generator is wrk (`apt-get install wrk`), driven by a Lua script that cycles
# through requests drawn once from the db with a fixed seed and stops each of its threads
# after its share of REQUESTS. Each request is drawn on its own, ids from every record of
# the db, so a server's page cache is hit only as often as an id repeats by chance.
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import save, table
from errdex import codec
from errdex.index import index_source
from errdex.store import open_store

SOURCE = os.environ.get("ERRDEX_LOAD_SOURCE", "pypi:vllm==0.28.0")
ALSO_INDEXED = os.environ.get("ERRDEX_LOAD_ALSO", "pypi:vllm==0.27.0")
API_CLIENTS = 200
PAGE = 500  # errors per page of /api/packages/{name}/{version}/errors (its default limit)
ROWS = os.environ.get("ERRDEX_LOAD_ROWS", "all")
REQUESTS = int(os.environ.get("ERRDEX_LOAD_REQUESTS", "20000"))
CONNECTIONS = 50
THREADS = 2  # wrk threads: this machine has two cores, shared with the server
WORKERS = int(os.environ.get("ERRDEX_LOAD_WORKERS", "2"))
SEED = 20240501
MAX_SECONDS = 600  # wrk's own bound, should the server be far slower than expected
ANCHOR = "anchor: GET /static/style.css"

# Each wrk thread reads the request file (one request a line: method, tab, path, and for
# a POST a tab and its JSON body), takes its share from its own offset, then stops and
# says so with a file; wrk itself waits out its -d, so it is interrupted when all are.
LUA = r"""
local share = tonumber(os.getenv("ERRDEX_LOAD_SHARE"))
local done_prefix = os.getenv("ERRDEX_LOAD_DONE")
local requests = {}
for line in io.lines(os.getenv("ERRDEX_LOAD_FILE")) do
  local method, path, body = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
  local headers = nil
  if body ~= "" then headers = {["Content-Type"] = "application/json"} else body = nil end
  requests[#requests + 1] = {method, path, headers, body}
end
local threads = 0
function setup(thread)
  thread:set("offset", threads * share)
  thread:set("id", threads)
  threads = threads + 1
end
local position, answered = nil, 0
function request()
  if position == nil then position = offset or 0 end
  local r = requests[(position % #requests) + 1]
  position = position + 1
  return wrk.format(r[1], r[2], r[3], r[4])
end
function response(status, headers, body)
  answered = answered + 1
  if answered == share then
    io.open(done_prefix .. id, "w"):close()
    wrk.thread:stop()
  end
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nRESULT {"requests": %d, "seconds": %f, "connect": %d, "read": %d, "write": %d,'
    .. ' "status": %d, "timeout": %d, "p50_ms": %f, "p99_ms": %f, "max_ms": %f}\n',
    summary.requests, summary.duration / 1e6, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3))
end
"""

Request = tuple[str, str, str]  # method, path, JSON body ("" for a GET)
KINDS = ("error page (HTML)", "GET /api/errors/{id}", "GET /api/search", "POST /api/match")
API_MIX = f"{API_CLIENTS} clients, the five /api routes in turn"
WHILE_INDEXING = (
    f"{API_CLIENTS} clients, /api, while {ALSO_INDEXED.removeprefix('pypi:')} is indexed"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def workload(db: Path, rng: random.Random) -> dict[str, list[Request]]:
    """REQUESTS requests per row, each drawn on its own from every record of `db`."""
    with open_store(db) as store:
        records = [codec.record_to_json(r) for r in store.iter_records()]
    ids = [r["id"] for r in records]
    words = [
        w for r in records for w in re.findall(r"[a-z]{5,}", (r["message"] or {}).get("text", ""))
    ]
    with_message = [r for r in records if r["message"]]

    def seen(record: dict[str, Any]) -> str:
        parts = record["message"]["parts"]
        text = "".join(p.get("text", "42") for p in parts)
        return f"{record['exception']['name']}: {text}"

    def draw(kind: str) -> Request:
        if kind == KINDS[0]:
            return ("GET", f"/errors/{rng.choice(ids)}", "")
        if kind == KINDS[1]:
            return ("GET", f"/api/errors/{rng.choice(ids)}", "")
        if kind == KINDS[2]:
            query = urllib.parse.urlencode({"q": " ".join(rng.sample(words, 2))})
            return ("GET", f"/api/search?{query}", "")
        return ("POST", "/api/match", json.dumps({"text": seen(rng.choice(with_message))}))

    snapshots = sorted({(r["package"]["name"], r["package"]["version"]) for r in records})

    def api(number: int) -> Request:
        if number % 5 == 3:
            return ("GET", "/api/packages", "")
        if number % 5 == 4:
            name, version = rng.choice(snapshots)  # a page as next_offset gives them
            offset = rng.randrange(0, len(records) // PAGE + 1) * PAGE
            return ("GET", f"/api/packages/{name}/{version}/errors?offset={offset}", "")
        return draw(KINDS[1 + number % 5])

    runs: dict[str, list[Request]] = {}
    if ROWS != "api":
        runs["mixed (the four below, in turn)"] = [draw(KINDS[i % 4]) for i in range(REQUESTS)]
        for kind in KINDS:
            runs[kind] = [draw(kind) for _ in range(REQUESTS)]
    runs[API_MIX] = [api(i) for i in range(REQUESTS)]
    runs[WHILE_INDEXING] = [api(i) for i in range(REQUESTS)]
    runs[ANCHOR] = [("GET", "/static/style.css", "")]
    return runs


def run_wrk(
    wrk: str,
    base: str,
    requests: list[Request],
    total: int,
    scratch: Path,
    connections: int = CONNECTIONS,
) -> dict:
    script = scratch / "load.lua"
    script.write_text(LUA)
    data = scratch / "requests.txt"
    data.write_text("".join("\t".join(r).rstrip("\t") + "\n" for r in requests))
    done_prefix = scratch / "done-"
    for marker in scratch.glob("done-*"):
        marker.unlink()
    env = {
        **os.environ,
        "ERRDEX_LOAD_FILE": str(data),
        "ERRDEX_LOAD_SHARE": str(total // THREADS),
        "ERRDEX_LOAD_DONE": str(done_prefix),
    }
    command = [wrk, f"-t{THREADS}", f"-c{connections}", f"-d{MAX_SECONDS}s", "--timeout", "30s"]
    wrk_run = subprocess.Popen(
        [*command, "-s", str(script), base],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while wrk_run.poll() is None and len(list(scratch.glob("done-*"))) < THREADS:
        time.sleep(0.005)
    wrk_run.send_signal(signal.SIGINT)  # every thread has its share: end the run now
    stdout, stderr = wrk_run.communicate(timeout=60)
    found = re.search(r"^RESULT (\{.*\})$", stdout, re.M)
    if not found:
        raise SystemExit(f"wrk failed:\n{stdout[-2000:]}\n{stderr[-2000:]}")
    result: dict = json.loads(found.group(1))
    return result


def wait_until_up(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if client.get("/api/packages").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit("the server did not start")
        time.sleep(0.2)


def main() -> None:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("bench_load needs wrk: apt-get install -y wrk")
    with tempfile.TemporaryDirectory(prefix="errdex-load-") as scratch_name:
        scratch = Path(scratch_name)
        db = scratch / "load.sqlite"
        with open_store(db) as store:
            index_source(SOURCE, store)
            sites = sum(s.sites for s in store.snapshots())
        runs = workload(db, random.Random(SEED))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "errdex", "serve", "--db", str(db), "--port", str(port)]
        if WORKERS:
            command += ["--workers", str(WORKERS)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        rows = []
        try:
            with httpx.Client(base_url=base, timeout=120) as client:
                wait_until_up(client, server)
                for _ in range(4 * max(WORKERS, 1)):  # every worker's matcher is built
                    client.post("/api/match", json={"text": "ValueError: warm"})
            run_wrk(wrk, base, runs[ANCHOR], 2000, scratch)  # warm-up: connections, code
            for name, requests in runs.items():
                clients = API_CLIENTS if name in (API_MIX, WHILE_INDEXING) else CONNECTIONS
                indexer = None
                if name == WHILE_INDEXING:  # written into the db the server reads
                    indexer = subprocess.Popen(
                        [sys.executable, "-m", "errdex", "index", ALSO_INDEXED, "--db", str(db)],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                    )
                got = run_wrk(wrk, base, requests, REQUESTS, scratch, clients)
                if indexer is not None:
                    _, said = indexer.communicate(timeout=MAX_SECONDS)
                    if indexer.returncode != 0:
                        raise SystemExit(f"indexing {ALSO_INDEXED} failed: {said.decode()[-800:]}")
                errors = sum(got[k] for k in ("connect", "read", "write", "status", "timeout"))
                detail = ", ".join(
                    f"{got[k]} {k}"
                    for k in ("connect", "read", "write", "status", "timeout")
                    if got[k]
                )
                rows.append(
                    [
                        name,
                        f"{got['requests']:,}",
                        str(clients),
                        f"{errors}" + (f" ({detail})" if detail else ""),
                        f"{got['p50_ms']:.1f}",
                        f"{got['p99_ms']:.1f}",
                        f"{got['max_ms']:.1f}",
                        f"{got['requests'] / got['seconds']:,.0f}",
                    ]
                )
                print(" | ".join(rows[-1]), flush=True)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
    workers = f"{WORKERS} workers" if WORKERS else "default workers"
    save(
        "load.md",
        f"{SOURCE.removeprefix('pypi:')} ({sites:,} error sites); `errdex serve --workers "
        f"{WORKERS}` ({workers}) on {os.cpu_count()} cores, wrk with {THREADS} threads and "
        f"{CONNECTIONS} keep-alive connections ({API_CLIENTS} on the /api rows) over loopback, "
        f"{REQUESTS:,} requests per row; "
        "each request drawn on its own, ids at random from every record. "
        "Target: 0 errors and >= 4x the mixed throughput before (121 requests/s).\n\n"
        + table(
            rows,
            [
                "workload",
                "requests",
                "concurrency",
                "errors",
                "p50 ms",
                "p99 ms",
                "max ms",
                "requests/s",
            ],
        ),
    )


if __name__ == "__main__":
    main()
