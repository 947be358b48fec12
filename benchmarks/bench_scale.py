# errdex at scale, on a throwaway PostgreSQL cluster (tests/postgres.py) and a local Ray:
#   1. index popular PyPI packages: one `errdex index` after another into SQLite, against
#      `errdex index-many` with 2 Ray workers into PostgreSQL (throughput, wall, peak RSS,
#      and the per-task figures a cluster estimate is made from);
#   2. match and search latency on PostgreSQL against SQLite over the same >= 50,000 sites
#      (the index bench_cli builds, read without changing it, else built here);
#   3. bytes per snapshot with records shared across versions: vllm 0.27.0, then 0.28.0.
#
#   python benchmarks/bench_scale.py [--packages N] [--queries N] [--only PART]
from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_match import _render
from benchmarks.common import median, save, table, timed
from errdex import codec, sources
from errdex.index import index_source
from errdex.match import Matcher
from errdex.model import Snapshot
from errdex.sources.cache import cache_root
from errdex.store import Store, open_store
from tests.postgres import cluster, database, why_not

# Popular projects (all in the top 100 of errdex/data/pypi-top.txt), the newest release
# of each as resolved when the benchmark runs; pure-Python or mostly so, so that the
# run fits a 2-core machine.
PACKAGES = [
    "requests", "urllib3", "idna", "certifi", "charset-normalizer", "six", "packaging",
    "python-dateutil", "pyyaml", "click", "jinja2", "markupsafe", "attrs", "filelock",
    "platformdirs", "pluggy", "tomli", "h11", "httpx", "werkzeug",
]  # fmt: skip

# The Ray run, driven in-process so that each task's own figures are kept.
_DRIVER = """
import dataclasses, json, sys
from errdex.batch import run_batch
specs = [s for s in open(sys.argv[1]).read().splitlines() if s]
outcomes = run_batch(specs, sys.argv[2], workers=2, retries=0)
with open(sys.argv[3], "w") as out:
    json.dump([dataclasses.asdict(o) for o in outcomes], out)
"""


def _linked_cache(folder: Path) -> Path:
    """An empty errdex cache whose downloads and unpacked trees are the user cache's: a
    cold per-file cache, without downloading again."""
    folder.mkdir(parents=True)
    for name in ("downloads", "trees"):
        (cache_root() / name).mkdir(parents=True, exist_ok=True)
        (folder / name).symlink_to(cache_root() / name, target_is_directory=True)
    return folder


def _totals(store: Store) -> tuple[int, int]:
    snaps = store.snapshots()
    return sum(s.files for s in snaps), sum(s.sites for s in snaps)


def throughput(server: str, names: list[str], scratch: Path) -> str:
    specs = []
    for name in names:
        snapshot = sources.resolve(f"pypi:{name}", cache_dir=cache_root())
        specs.append(f"pypi:{snapshot.package}=={snapshot.version}")
    errdex = [sys.executable, "-m", "errdex"]

    seq_db = scratch / "sequential.sqlite"
    env = {"ERRDEX_CACHE": str(_linked_cache(scratch / "seq-cache")), "CI": "1"}
    seq_seconds, seq_peak = 0.0, 0
    for spec in specs:
        seconds, peak = timed([*errdex, "index", spec, "--db", str(seq_db)], env=env)
        seq_seconds += seconds
        seq_peak = max(seq_peak, peak)
    with open_store(seq_db) as store:
        seq_files, seq_sites = _totals(store)

    listing = scratch / "list.txt"
    listing.write_text("\n".join(specs) + "\n")
    figures = scratch / "outcomes.json"
    driver = scratch / "driver.py"
    driver.write_text(_DRIVER)
    with database(server) as url:
        env = {
            "ERRDEX_CACHE": str(_linked_cache(scratch / "ray-cache")),
            "RAY_USAGE_STATS_ENABLED": "0",
            "CI": "1",
        }
        ray_seconds, ray_peak = timed(
            [sys.executable, str(driver), str(listing), url, str(figures)], env=env
        )
        with open_store(url) as store:
            ray_files, ray_sites = _totals(store)
    tasks = json.loads(figures.read_text())
    failed = [t["source"] for t in tasks if t["status"] == "failed"]
    task_seconds = [t["seconds"] for t in tasks if t["status"] == "indexed"]
    task_peaks = [t["peak_rss_mb"] for t in tasks if t["status"] == "indexed"]
    rows = [
        ["wall (s)", f"{seq_seconds:.1f}", f"{ray_seconds:.1f}",
         f"{seq_seconds / ray_seconds:.2f}x"],
        ["files/s", f"{seq_files / seq_seconds:.1f}", f"{ray_files / ray_seconds:.1f}",
         f"{(ray_files / ray_seconds) / (seq_files / seq_seconds):.2f}x"],
        ["sites/s", f"{seq_sites / seq_seconds:.1f}", f"{ray_sites / ray_seconds:.1f}",
         f"{(ray_sites / ray_seconds) / (seq_sites / seq_seconds):.2f}x"],
        ["peak RSS, largest process (MiB)", f"{seq_peak / 1024:.0f}", f"{ray_peak / 1024:.0f}",
         ""],
        ["files / sites indexed", f"{seq_files:,} / {seq_sites:,}",
         f"{ray_files:,} / {ray_sites:,}", ""],
    ]  # fmt: skip
    per_task = (
        f"per task (Ray): median {statistics.median(task_seconds):.2f} s, total"
        f" {sum(task_seconds):.1f} s over {len(task_seconds)} tasks; worker peak RSS median"
        f" {statistics.median(task_peaks):.0f} MiB, max {max(task_peaks):.0f} MiB"
    )
    return (
        f"{len(specs)} packages ({', '.join(specs)}), one run each (n=1);"
        " each run with a cold per-file cache, downloads cached before\n\n"
        + table(
            rows,
            [
                "",
                "sequential errdex index → SQLite",
                "index-many, Ray 2 workers → PostgreSQL",
                "Ray / sequential",
            ],
        )
        + f"\n\n{per_task}"
        + (f"; failed: {failed}" if failed else "")
    )


def _copy_source() -> list[tuple[Snapshot, list[Any], int]]:
    """The snapshots and sites of bench_cli's >= 50,000-site index, read-only (its file is
    not opened as a store: that would migrate it under whoever uses it)."""
    path = cache_root() / "bench-cli.sqlite"
    if not path.exists():
        from benchmarks.bench_match import PACKAGES as MATCH_PACKAGES
        from benchmarks.bench_match import _ensure_index

        path = cache_root() / "bench-scale-source.sqlite"
        with open_store(path) as store:
            _ensure_index(store, MATCH_PACKAGES)
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    try:
        snaps = raw.execute(
            "SELECT id, package, version, source, repo_url, commit_id, date, files"
            " FROM snapshots ORDER BY id"
        ).fetchall()
        for sid, package, version, source, repo, commit, date, files in snaps:
            sites = [
                codec.site_from_json(json.loads(r[0]))
                for r in raw.execute(
                    "SELECT record FROM sites WHERE snapshot_id = ? ORDER BY id", (sid,)
                )
            ]
            snapshot = Snapshot(package=package, version=version, root=Path("/"),
                                source=source, repo_url=repo, commit=commit, date=date)  # fmt: skip
            out.append((snapshot, sites, files))
    finally:
        raw.close()
    return out


def _write_all(store: Store, data: list[tuple[Snapshot, list[Any], int]]) -> float:
    started = time.perf_counter()
    for snapshot, sites, files in data:
        store.write_snapshot(
            snapshot, sites, files=files, skipped=(), tree_hash="bench", extractor="bench"
        )
    return time.perf_counter() - started


def latency(server: str, scratch: Path, count: int) -> str:
    data = _copy_source()
    total = sum(len(sites) for _, sites, _ in data)
    rng = random.Random(7)
    messages = [
        codec.site_to_json(site, snapshot)
        for snapshot, sites, _ in data
        for site in sites
        if site.message is not None and len(site.message.literal_text.split()) >= 3
    ]
    chosen = rng.sample(messages, min(count, len(messages)))
    texts = [_render(rec, rng) for rec in chosen]
    words = [" ".join(rec["message"]["parts"][0].get("text", "").split()[:2]) for rec in chosen]
    words = [w for w in words if w.strip()] or ["invalid value"]
    rows = []
    results: dict[str, dict[str, float]] = {}
    with database(server) as url:
        for name, location in (("SQLite", str(scratch / "latency.sqlite")), ("PostgreSQL", url)):
            with open_store(location) as store:
                write = _write_all(store, data)
                matcher = Matcher(store)
                matcher.match(texts[0])  # a first query, as a server's warm-up
                match_ms, search_ms = [], []
                for text in texts:
                    started = time.perf_counter()
                    matcher.match(text)
                    match_ms.append((time.perf_counter() - started) * 1000)
                for word in words:
                    started = time.perf_counter()
                    store.search(word)
                    search_ms.append((time.perf_counter() - started) * 1000)
                results[name] = {
                    "write": write,
                    "match": median(match_ms),
                    "match95": sorted(match_ms)[int(len(match_ms) * 0.95) - 1],
                    "search": median(search_ms),
                    "search95": sorted(search_ms)[int(len(search_ms) * 0.95) - 1],
                }
    sq, pg = results["SQLite"], results["PostgreSQL"]
    for label, key in (
        ("match, median (ms)", "match"), ("match, p95 (ms)", "match95"),
        ("search, median (ms)", "search"), ("search, p95 (ms)", "search95"),
        ("writing every snapshot (s)", "write"),
    ):  # fmt: skip
        rows.append([label, f"{sq[key]:.2f}", f"{pg[key]:.2f}", f"{pg[key] / sq[key]:.2f}"])
    rate = total / pg["write"]
    return (
        f"{total:,} sites in {len(data)} snapshots (bench_cli's index), {len(texts)} match"
        f" queries (real templates, random values), {len(words)} searches (two words of a"
        " message); in-process, one thread\n\n"
        + table(rows, ["", "SQLite", "PostgreSQL", "PostgreSQL / SQLite"])
        + f"\n\nPostgreSQL writes {rate:,.0f} sites/s under the writers' lock"
    )


def _pg_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM")
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    assert row is not None
    return int(row[0])


def _pg_rows(url: str) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        records = conn.execute("SELECT count(*) FROM records").fetchone()
        members = conn.execute("SELECT count(*) FROM members").fetchone()
    assert records is not None and members is not None
    return int(records[0]), int(members[0])


def _sqlite_bytes(path: Path) -> int:
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    return path.stat().st_size


def _sqlite_tables(path: Path) -> dict[str, int]:
    """Bytes of each table and index (its pages, dbstat), FTS5's shadow tables by name."""
    raw = sqlite3.connect(path)
    try:
        return dict(raw.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    finally:
        raw.close()


def _pg_tables(url: str) -> dict[str, int]:
    """Bytes of each table (with its TOAST) and index of the database."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_relation_size(c.oid) + CASE WHEN c.reltoastrelid = 0 THEN 0"
            " ELSE pg_total_relation_size(c.reltoastrelid) END FROM pg_class AS c"
            " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')"
        ).fetchall()
    return {name: int(size) for name, size in rows}


def _where_bytes_go(name: str, first: dict[str, int], second: dict[str, int]) -> str:
    """The tables and indexes of one database by size, what each 0.27.0 and 0.28.0 add."""
    rows = []
    for relation, size in sorted(second.items(), key=lambda item: -item[1]):
        before = first.get(relation, 0)
        if size >= 50_000:
            rows.append(
                [f"{name}: {relation}", f"{before / 1e6:.2f}", f"{(size - before) / 1e6:.2f}"]
            )
    return table(rows, ["table or index", "0.27.0 (MB)", "0.28.0 adds (MB)"])


def shared_bytes(server: str, scratch: Path) -> str:
    versions = ["0.27.0", "0.28.0"]
    path = scratch / "bytes.sqlite"
    with database(server) as url, open_store(path) as sq, open_store(url) as pg:
        sizes = {"SQLite": [_sqlite_bytes(path)], "PostgreSQL": [_pg_bytes(url)]}
        tables: dict[str, list[dict[str, int]]] = {"SQLite": [], "PostgreSQL": []}
        sites = []
        for version in versions:
            result = index_source(f"pypi:vllm=={version}", sq)
            pg.write_snapshot(
                result.snapshot,
                result.sites,
                files=result.files,
                skipped=result.skipped,
                tree_hash="bench",
                extractor="bench",
            )
            sizes["SQLite"].append(_sqlite_bytes(path))
            sizes["PostgreSQL"].append(_pg_bytes(url))
            tables["SQLite"].append(_sqlite_tables(path))
            tables["PostgreSQL"].append(_pg_tables(url))
            sites.append(len(result.sites))
        records, members = _pg_rows(url)
    rows = []
    for name, (empty, first, second) in sizes.items():
        rows.append([name, f"{(first - empty) / 1e6:.1f}", f"{(second - first) / 1e6:.1f}",
                     f"{(second - first) / (first - empty):.2f}"])  # fmt: skip
    return (
        f"vllm 0.27.0 ({sites[0]:,} sites), then 0.28.0 ({sites[1]:,} sites); PostgreSQL"
        f" keeps {records:,} records for {members:,} memberships"
        f" ({(members - records) / sites[1]:.0%} of 0.28.0's records shared with 0.27.0)\n\n"
        + table(rows, ["database", "0.27.0 adds (MB)", "0.28.0 adds (MB)", "second / first"])
        + "\n\nWhere the bytes go (tables and indexes of at least 50 kB):\n\n"
        + "\n\n".join(_where_bytes_go(name, *tables[name]) for name in tables)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", type=int, default=len(PACKAGES))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--only", choices=["index", "latency", "bytes"])
    args = parser.parse_args([] if argv is None and __name__ != "__main__" else argv)
    why = why_not()
    if why is not None:
        print(f"(skipping bench_scale: {why})")
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    parts = []
    with tempfile.TemporaryDirectory(prefix="errdex-bench-scale-") as folder, cluster() as server:
        scratch = Path(folder)
        if args.only in (None, "index"):
            parts.append("### Indexing\n\n" + throughput(server, PACKAGES[: args.packages],
                                                          scratch))  # fmt: skip
        if args.only in (None, "latency"):
            parts.append("### Match and search\n\n" + latency(server, scratch, args.queries))
        if args.only in (None, "bytes"):
            parts.append("### Bytes per snapshot\n\n" + shared_bytes(server, scratch))
    save(f"scale{'-' + args.only if args.only else ''}.md", "\n\n".join(parts))


if __name__ == "__main__":
    main()
