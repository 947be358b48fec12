# Explain on every core: a global step in one forked child beside this process (`beside`)
# and the per-site part over a pool of forked workers (`over_workers`). Forked, so the
# children read the linked extraction and what explain built of it from their copy of
# this process's memory (copy-on-write, the cyclic collector off as here): nothing is
# pickled on the way there, only the answers on the way back. Where a fork is not safe
# (process_context), or the work is too small to pay for one, it runs here instead.
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from errdex.extract import process_context, worker_init

__all__ = ["beside", "cores", "over_workers"]

T = TypeVar("T")
Job = Callable[[int, int], list[Any]]  # the answers for the items start..stop-1, in order

# What a pool worker runs, set by its initializer: handed over by fork, never pickled.
_JOB: Job | None = None


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _forking() -> bool:
    return process_context().get_start_method() == "fork"


def beside(job: Callable[[], T], *, worth_it: bool) -> Callable[[], T]:
    """Start `job` in a forked child and return the call that waits for its answer; the
    job runs here, at once, when it is not `worth_it` or a fork is not safe. A child that
    dies without an answer (killed, out of memory) has its job run here on the wait; an
    exception in the child is raised by the wait.

    The child is a bare process with a pipe, not an executor: an executor's thread would
    make every later fork of this process unsafe (process_context), the pool's too."""
    if not worth_it or cores() < 2 or not _forking():
        answer = job()
        return lambda: answer
    context = multiprocessing.get_context("fork")  # safe: _forking said so
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_answer, args=(send, job, os.getpid()), daemon=True)
    child.start()
    send.close()  # the child's end: the wait sees EOF when the child dies

    def wait() -> T:
        try:
            ok, answer = receive.recv()
        except EOFError:  # the child died without an answer
            ok, answer = True, job()
        finally:
            receive.close()
            child.join()
        if not ok:
            raise answer
        return answer  # type: ignore[no-any-return]

    return wait


def _answer(send: Connection, job: Callable[[], object], parent: int) -> None:
    worker_init(parent)
    try:
        answer: tuple[bool, object] = (True, job())
    except Exception as exc:  # handed to the parent, which raises it
        answer = (False, exc)
    send.send(answer)
    send.close()


def over_workers(job: Job, count: int, *, chunk: int, least: int) -> Callable[[], list[Any]]:
    """Start `job` over the items 0..count-1 in chunks of `chunk` on a pool of forked
    workers (one per core) and return the call that waits for the answers, in order; the
    job runs here, at once, when there are fewer than `least` items, one core, or no
    safe fork. When the pool breaks (a worker killed), the wait does the items here. The
    wait may be called again: it gives the same answers at no cost (a caller that may
    leave early calls it on the way out, so that no pool outlives it).

    The pool's thread makes later forks unsafe: start what runs `beside` first."""
    workers = min(cores(), -(-count // chunk))
    if count < least or workers < 2 or not _forking():
        answers = job(0, count)
        return lambda: answers
    spans = [(start, min(start + chunk, count)) for start in range(0, count, chunk)]
    pool = ProcessPoolExecutor(
        workers,
        mp_context=process_context(),
        initializer=_start_worker,
        initargs=(os.getpid(), job),  # fork hands these over as they are
    )
    futures = [pool.submit(_run, start, stop) for start, stop in spans]
    answered: list[list[Any]] = []  # the answers, once waited for: a second wait is free

    def wait() -> list[Any]:
        if answered:
            return answered[0]
        try:
            answered.append(_joined(f.result() for f in futures))
        except BrokenProcessPool:
            answered.append(job(0, count))
        finally:
            pool.shutdown()
        return answered[0]

    return wait


def _start_worker(parent: int, job: Job) -> None:
    global _JOB
    worker_init(parent)
    _JOB = job


def _run(start: int, stop: int) -> list[Any]:
    assert _JOB is not None, "only in a worker started by over_workers"
    return _JOB(start, stop)


def _joined(parts: Iterable[list[Any]]) -> list[Any]:
    out: list[Any] = []
    for part in parts:
        out.extend(part)
    return out
