# A throwaway PostgreSQL cluster for the tests: initdb into a temporary folder, started
# on loopback by pg_ctl, one per test session (per xdist worker), and stopped at its end.
# initdb and pg_ctl refuse to run as root, so under root the cluster belongs to an
# unprivileged user (postgres if the machine has one, else nobody).
from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

_DATABASES = itertools.count()


def server_binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, else the newest /usr/lib/postgresql."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_major, reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _major(folder: str) -> int:
    name = Path(folder).parent.name
    return int(name) if name.isdigit() else 0


def why_not() -> str | None:
    """Why the PostgreSQL half of the tests cannot run here, None if it can."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        return f"psycopg is not installed ({exc}); pip install -e '.[dev]'"
    if server_binaries() is None:
        return (
            "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in"
            " /usr/lib/postgresql/*/bin; apt-get install postgresql runs this half"
        )
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _owner() -> pwd.struct_passwd | None:
    """Whom the cluster runs as: None for ourselves, an unprivileged user under root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root, and there is neither a postgres nor a nobody user")


@contextlib.contextmanager
def cluster() -> Iterator[str]:
    """Start a cluster; yield the URL of its server (no database), then stop it."""
    binaries = server_binaries()
    assert binaries is not None
    owner = _owner()
    folder = Path(tempfile.mkdtemp(prefix="errdex-test-pg-"))
    data = folder / "data"
    if owner is not None:
        os.chown(folder, owner.pw_uid, owner.pw_gid)

    def run(tool: str, *args: str, check: bool = True) -> None:
        subprocess.run(
            [str(binaries / tool), *args],
            check=check,
            capture_output=True,
            env={**os.environ, "LC_ALL": "C.UTF-8"},
            cwd=folder,
            user=None if owner is None else owner.pw_uid,
            group=None if owner is None else owner.pw_gid,
        )

    port = _free_port()
    try:
        run("initdb", "-D", str(data), "-U", "errdex", "--auth=trust", "-E", "UTF8")
        options = (
            f"-h 127.0.0.1 -p {port} -k {folder} -c fsync=off -c synchronous_commit=off"
            " -c full_page_writes=off -c max_connections=200"
        )
        run("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start")
        try:
            yield f"postgresql://errdex@127.0.0.1:{port}"
        finally:
            run("pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop", check=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def database(server: str) -> Iterator[str]:
    """A new, empty database on `server`; yield its URL, then drop it."""
    import psycopg

    name = f"errdex_test_{os.getpid()}_{next(_DATABASES)}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield f"{server}/{name}"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
