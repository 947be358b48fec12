# The full index of a distribution, after the hook answered a failure from the traceback's
# files alone: a process of errdex's own, detached from the failing one (a session of its
# own, so neither Ctrl-C in the terminal nor the end of the failing process stops it), at
# the lowest priority, one per snapshot: it holds an exclusive lock on a file of the
# snapshot's folder (_answers.Kept) while it works, and a second job started meanwhile
# finds the lock held and ends at once. It indexes installed:NAME as the failing process
# sees it (that process's sys.path entry first) into the database the hook reads, then
# keeps the hook's answers of the snapshot. Started too when the database holds the
# snapshot but the answers kept are missing or stale: then it only keeps them again; and
# with --again when the snapshot's files are not those installed (a rebuild with the same
# version): then it indexes installed:NAME over it.
#
#   python -m errdex.hook._background --db DB --name NAME --package P --version V --entry DIR
#                                     [--again]
from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

from errdex.hook._answers import Answer, Kept, answer_of, signature

__all__ = ["main", "running", "start"]

_WORKERS = 2  # parse workers at most: the job is a guest on the user's machine
_LOG_BYTES = 1024 * 1024  # a longer log is started afresh
_LOCK_TRIES = 20  # a hook probing the lock holds it for microseconds: try again meanwhile


def running(kept: Kept) -> bool:
    """Whether a job holds the snapshot's lock now. Raises OSError when the lock file
    cannot be made (a read-only or full cache dir)."""
    import fcntl

    kept.root.mkdir(parents=True, exist_ok=True)
    fd = os.open(kept.lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # and with it the lock, if this took it
    return False


def start(kept: Kept, name: str, entry: str, *, again: bool = False) -> None:
    """Start the job for `kept` (distribution `name` installed in the sys.path entry
    `entry`; `again`: index it even when the snapshot is stored) unless one holds its
    lock, and return at once: the job runs detached, in a
    session of its own, and no process of it is this one's child once this returns (its
    launcher, a shell, has ended). Raises OSError (or subprocess's errors) when it cannot
    be started, with the reason."""
    if os.name != "posix":
        raise OSError("a background index needs a POSIX system")
    if running(kept):
        return
    python = sys.executable
    if not python:
        raise OSError("this process does not know its Python executable")
    here = str(Path(__file__).resolve().parents[2])  # the folder errdex is imported from
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": here if not path else here + os.pathsep + path}
    command = [
        python, "-m", "errdex.hook._background", "--db", kept.location, "--name", name,
        "--package", kept.package, "--version", kept.version, "--entry", entry,
        *(["--again"] if again else []),
    ]  # fmt: skip
    # the shell starts the job in the background and ends: the job is nobody's child here.
    # Each launch is a line of the log, and each end of a job another (see main).
    launcher = 'log=$1; shift; echo launched >>"$log"; "$@" </dev/null >>"$log" 2>&1 &'
    subprocess.run(
        ["/bin/sh", "-c", launcher, "errdex-index", str(kept.log), *command],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True, check=True, timeout=30,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """The job: 0 when the snapshot is indexed and its answers kept (or another job holds
    the lock), 1 when it failed (the reason kept for the hook to tell, the traceback in
    the log). Its last line in the log starts with "ended: ", whatever happened."""
    try:
        status = _job(argv)
    except BaseException as exc:
        traceback.print_exc()
        print(f"ended: failed ({type(exc).__name__}: {exc})", flush=True)
        return 1
    return status


def _job(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m errdex.hook._background")
    for flag in ("--db", "--name", "--package", "--version", "--entry"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--again", action="store_true")
    args = parser.parse_args(argv)
    _lower_priority()
    kept = Kept(args.db, args.package, args.version)
    kept.root.mkdir(parents=True, exist_ok=True)
    _trim(kept.log)
    fd = os.open(kept.lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if not _lock(fd):
            print("ended: busy (another job holds the lock)", flush=True)
            return 0
        started = time.perf_counter()
        when = time.strftime("%Y-%m-%d %H:%M:%S")
        print(f"started {when}: {args.package} {args.version} into {args.db}", flush=True)
        sys.path.insert(0, args.entry)  # installed:NAME as the failing process sees it
        try:
            _index_and_keep(kept, args.name, again=args.again)
        except BaseException as exc:  # said to the next failures, and in the log
            traceback.print_exc()
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            kept.fail(reason)
            print(f"ended: failed ({reason})", flush=True)
            return 1
        print(f"ended: done ({_spent(started)})", flush=True)
        return 0
    finally:
        os.close(fd)


def _index_and_keep(kept: Kept, name: str, *, again: bool = False) -> None:
    from errdex.store import open_store

    package, version = kept.package, kept.version
    with open_store(kept.location, create=True) as store:
        stored = any((s.package, s.version) == (package, version) for s in store.snapshots())
        if again or not stored:
            from errdex.index import index_source

            print(f"indexing installed:{name}", flush=True)
            workers = min(_WORKERS, os.cpu_count() or 1)
            result = index_source(f"installed:{name}", store, workers=workers, pause_gc=True)
            found = (result.snapshot.package, result.snapshot.version)
            if found != (package, version):
                raise RuntimeError(
                    f"installed:{name} is {found[0]} {found[1]} here, not {package} {version}"
                )
    for _ in range(3):  # kept with the signature of the database they were read from
        before = signature(kept.location)
        with open_store(kept.location, create=False) as store:
            answers: list[Answer] = [
                answer_of(r.site, r.package, r.version)
                for r in store.iter_records(package=package, version=version)
            ]
            files = {answer["file"] for answer in answers}
            digests = {file: store.file_digest(package, version, file) for file in files}
        if signature(kept.location) == before:
            break
    kept.write(answers, before, digests)


def _spent(started: float) -> str:
    """The job's wall time and the peak memory of its largest process, as the log says."""
    import resource

    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    return f"{time.perf_counter() - started:.1f} s, peak {peak / 1024:.0f} MiB"


def _lock(fd: int) -> bool:
    import fcntl

    for _ in range(_LOCK_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(0.01)
    return False


def _lower_priority() -> None:
    """The lowest CPU priority there is here: idle scheduling on Linux, else nice 19."""
    with contextlib.suppress(OSError):
        os.nice(19)
    policy = getattr(os, "SCHED_IDLE", None)
    if policy is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, policy, os.sched_param(0))


def _trim(log: Path) -> None:
    try:
        if log.stat().st_size > _LOG_BYTES:
            log.write_text("")
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
