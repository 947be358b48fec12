# Indexing many snapshots at once (`errdex index-many`): a list of SOURCEs, each indexed
# by one Ray task into one shared database (PostgreSQL at scale; SQLite works on one
# machine). Resumable: a pinned snapshot already stored is not scheduled again, and any
# other source is left as it is when its tree is unchanged. A failing source is retried
# a bounded number of times, then recorded in the database with its reason; the batch
# goes on. Ray is imported only here, and only when a batch runs.
from __future__ import annotations

import contextlib
import os
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from errdex.errors import CacheWriteError, NetworkError, NotAvailable, SourceError
from errdex.model import IndexFailure
from errdex.sources import pypi
from errdex.store import open_store

TOP_PREFIX = "pypi-top:"
# Environment variables a task takes from the driver (wherever on the cluster it runs).
_FORWARDED = ("ERRDEX_CACHE", "ERRDEX_PYPI_INDEX", "NO_PROXY", "no_proxy")
_CLEAR_REFS = Path("/proc/self/clear_refs")
_WAIT = 1.0  # seconds the driver waits for tasks to end before it asks again


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What became of one source of a batch."""

    source: str
    status: str  # "indexed", "unchanged", "skipped" (stored before: not scheduled), "failed"
    package: str | None = None
    version: str | None = None
    files: int = 0
    sites: int = 0
    seconds: float = 0.0  # the task's own time, download and extraction included
    # the peak memory of the worker process while it ran this task (on Linux; elsewhere
    # since the worker started, which may have run other tasks before)
    peak_rss_mb: float = 0.0
    attempts: int = 0
    reason: str | None = None


# -- the list -----------------------------------------------------------------------------


def read_list(path: Path) -> list[str]:
    """The sources of a list file: one per line; blank lines and # comments left out.

    Raises SourceError when the file cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read the list of sources {path}: {exc}") from exc
    return [s for line in text.splitlines() if (s := line.split("#", 1)[0].strip())]


def top_names(count: int, top_list: Path | None = None) -> list[str]:
    """The first `count` names of `top_list` (most-downloaded first), else of the list
    errdex ships (errdex/data/pypi-top.txt, an approximation; see its header)."""
    if top_list is not None:
        names = read_list(top_list)
    else:
        text = resources.files("errdex").joinpath("data/pypi-top.txt").read_text()
        names = [s for line in text.splitlines() if (s := line.split("#", 1)[0].strip())]
    return names[:count]


def plan(list_arg: str, *, top_list: Path | None = None, since: str | None = None) -> list[str]:
    """The SOURCEs of LIST: a file of sources, or pypi-top:N. With `since` (an ISO
    date), each unpinned pypi:NAME becomes every release of NAME since that date (asked
    of the package index). Duplicates are left out; order is kept.

    Raises SourceError for a bad LIST, NotFoundError/NetworkError from the index.
    """
    if list_arg.startswith(TOP_PREFIX):
        count = list_arg.removeprefix(TOP_PREFIX)
        if not count.isdigit() or int(count) < 1:
            raise SourceError(f"{list_arg!r}: write pypi-top:N with N a positive number")
        specs = [f"pypi:{name}" for name in top_names(int(count), top_list)]
    else:
        specs = read_list(Path(list_arg))
    if since is not None:
        try:
            datetime.fromisoformat(since)
        except ValueError as exc:
            raise SourceError(f"--since {since!r} is not a date; write YYYY-MM-DD") from exc
        specs = [s for spec in specs for s in _releases(spec, since)]
    return list(dict.fromkeys(specs))


def _releases(spec: str, since: str) -> list[str]:
    if not spec.startswith("pypi:") or "==" in spec:
        return [spec]
    name, _ = pypi.parse_spec(spec.removeprefix("pypi:"))
    return [f"pypi:{name}=={version}" for version in pypi.releases_since(name, since)]


def pinned(spec: str) -> tuple[str, str] | None:
    """(package, version) of a pinned pypi:NAME==VERSION, else None."""
    if not spec.startswith("pypi:") or "==" not in spec:
        return None
    try:
        name, version = pypi.parse_spec(spec.removeprefix("pypi:"))
    except SourceError:
        return None
    return None if version is None else (name, version)


# -- one task -----------------------------------------------------------------------------


def index_one(spec: str, db: str, env: dict[str, str]) -> dict[str, Any]:
    """Index `spec` into the database `db` (what each Ray task runs) and return its
    figures as plain values. Raises what index_source raises."""
    from errdex.index import index_source

    os.environ.update(env)
    started = time.perf_counter()
    _reset_peak_rss()
    with open_store(db, create=False) as store:  # the driver made it; never a new one
        result = index_source(spec, store, workers=1, pause_gc=True)  # errdex's own task
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "package": result.snapshot.package,
        "version": result.snapshot.version,
        "files": result.files,
        "sites": result.site_count,
        "unchanged": result.unchanged,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": peak_kb / 1024,
    }


def _reset_peak_rss() -> None:
    """Start this process's peak memory (ru_maxrss) afresh, so that a Ray worker, which
    runs task after task, reports each task's own peak: Linux resets it on `5` written
    to clear_refs. Elsewhere the peak stays the worker's since it started."""
    with contextlib.suppress(OSError):
        _CLEAR_REFS.write_text("5")


def retryable(exc: BaseException) -> bool:
    """Whether trying again may help: the network, a full cache, the database, a worker
    that died; not a source that is wrong (no such package, a bad archive)."""
    if isinstance(exc, NetworkError | CacheWriteError):
        return True
    return not isinstance(exc, SourceError)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'no message'}"


# -- the batch ----------------------------------------------------------------------------


def run_batch(
    specs: Sequence[str],
    db: str,
    *,
    ray_address: str | None = None,
    workers: int | None = None,
    retries: int = 2,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Index every source of `specs` into `db`, each a Ray task, and return what became
    of each, in the order of `specs`.

    `ray_address` is "auto" (the cluster this machine belongs to), a cluster's address,
    or None for a local Ray with `workers` CPUs (default: all). A pinned snapshot already
    in `db` is not scheduled. A task that fails is tried again up to `retries` more times
    when retrying may help (see `retryable`), then recorded with its reason
    (Store.record_failure); the others go on. `on_outcome` hears of each as it ends.

    Raises StoreError if `db` cannot be opened; NotAvailable without Ray installed, or
    when `ray_address` is "auto" and no cluster runs here.
    """
    try:
        import ray
    except ImportError as exc:
        raise NotAvailable(
            f"index-many runs its tasks on Ray, which is not installed here ({exc});"
            " install it with pip install 'errdex[scale]'"
        ) from exc

    report = on_outcome or (lambda outcome: None)
    outcomes: dict[str, Outcome] = {}
    with open_store(db) as store:  # made (and migrated) once, before the tasks race for it
        todo = []
        for spec in specs:
            key = pinned(spec)
            if key is not None and store.snapshot_state(*key) is not None:
                outcomes[spec] = Outcome(
                    source=spec, status="skipped", package=key[0], version=key[1]
                )
                report(outcomes[spec])
            else:
                todo.append(spec)
        if todo:
            _run_tasks(ray, todo, db, ray_address, workers, retries, outcomes, store, report)
    return [outcomes[spec] for spec in specs]


def _run_tasks(
    ray: Any,
    todo: list[str],
    db: str,
    ray_address: str | None,
    workers: int | None,
    retries: int,
    outcomes: dict[str, Outcome],
    store: Any,
    report: Callable[[Outcome], None],
) -> None:
    env = {name: os.environ[name] for name in _FORWARDED if name in os.environ}
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    local = ray_address is None
    token = os.environ.get("RAY_AUTH_TOKEN") or (Path.home() / ".ray" / "auth_token").exists()
    if not local and token:
        # A cluster made by `ray start` asks for its token (Ray's default); a driver that
        # has one offers it even when RAY_AUTH_MODE is unset.
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    try:
        ray.init(
            address=ray_address,
            num_cpus=workers if local else None,
            include_dashboard=False if local else None,
            log_to_driver=False,
            logging_level="ERROR",
            configure_logging=True,
        )
    except ConnectionError as exc:  # Ray's word for no cluster where it looked
        if local:
            raise
        raise NotAvailable(
            f"--ray {ray_address} found no running Ray cluster ({exc}); start one with"
            " `ray start --head`, give its address as --ray HOST:PORT, or leave --ray out"
            " to run on a local Ray"
        ) from exc
    try:
        # Retries are the driver's (max_retries=0): so that each attempt is counted, and a
        # source that can never work is not tried again.
        task = ray.remote(num_cpus=1, max_retries=0)(index_one)
        pending: dict[Any, tuple[str, int]] = {}

        def submit(spec: str, attempt: int) -> None:
            pending[task.remote(spec, db, env)] = (spec, attempt)

        for spec in todo:
            submit(spec, 1)
        while pending:
            # every task that has ended by now, not one per call: a wait is over the whole
            # pending list, which is long in a batch of thousands
            done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=_WAIT)
            for ready in done:
                spec, attempt = pending.pop(ready)
                try:
                    figures = ray.get(ready)
                except Exception as exc:
                    cause = _cause(ray, exc)
                    if attempt <= retries and retryable(cause):
                        submit(spec, attempt + 1)
                        continue
                    outcome = _failed(store, spec, attempt, cause)
                else:
                    outcome = _indexed(spec, attempt, figures)
                    store.clear_failure(spec)
                outcomes[spec] = outcome
                report(outcome)
    finally:
        ray.shutdown()


def _failed(store: Any, spec: str, attempt: int, cause: BaseException) -> Outcome:
    """The outcome of a source that failed for good, recorded in the store."""
    outcome = Outcome(source=spec, status="failed", attempts=attempt, reason=_reason(cause))
    store.record_failure(
        IndexFailure(
            source=spec,
            reason=outcome.reason or "",
            attempts=attempt,
            failed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
    )
    return outcome


def _indexed(spec: str, attempt: int, figures: dict[str, Any]) -> Outcome:
    return Outcome(
        source=spec,
        status="unchanged" if figures["unchanged"] else "indexed",
        package=figures["package"],
        version=figures["version"],
        files=figures["files"],
        sites=figures["sites"],
        seconds=figures["seconds"],
        peak_rss_mb=figures["peak_rss_mb"],
        attempts=attempt,
    )


def _cause(ray: Any, exc: BaseException) -> BaseException:
    """The exception a task raised, out of Ray's wrapper around it."""
    if isinstance(exc, ray.exceptions.RayTaskError):
        cause = getattr(exc, "cause", None)
        if isinstance(cause, BaseException):
            return cause
    return exc


def totals(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """How many outcomes have each status."""
    return dict(Counter(outcome.status for outcome in outcomes))
