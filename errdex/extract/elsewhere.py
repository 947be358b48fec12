# Files the running Python cannot parse, parsed by the newest Python on the machine.
#
# How errdex reads syntax newer than the Python it runs on (issue 12):
# 1. the running parser (`ast`), as for every file;
# 2. if it refuses, the token-level rewrite of downgrade.py, in-process: t-strings, PEP
#    758 `except A, B:` and, on 3.11/3.12, PEP 695/696 type parameters, on the same lines;
# 3. if the file still does not parse (PEP 701 f-strings on 3.11, anything else newer),
#    the newest Python found here runs errdex's own parse_file on it, in a subprocess,
#    and hands the FileFacts back (pickled; they are errdex's own records, never code).
#    That Python parses natively what it knows and does step 2 for what it does not.
# 4. what none of them reads stays a skipped file, with the parser's reason.
# Measured before choosing (Python 3.11.7 here, 3.12.1 and 3.13.0 in pyenv, a loaded
# 2-core machine): a child takes about 0.2 s of CPU (0.45 s wall) to start and import
# errdex, then parses as fast as a worker (all of vllm 0.28.0: the same FileFacts for
# 2,233 of 2,238 files, the other 5 differing only in text that 3.13's `ast.unparse`
# writes with PEP 701 quotes). libcst 1.9 reads all of this syntax, but parses Home
# Assistant's helpers/script.py (2,129 lines) in 0.12-0.19 s and needs 0.5-0.9 s more for
# line numbers, where `ast` takes 0.033 s, and would need a converter of every node into
# `ast`, the visitor's language; parso 0.8.7 reads neither PEP 701 nor `type X = ...`.
# Of Home Assistant 2025.4.4's 7,977 files, 651 do not parse on 3.11: the rewrite reads
# 648 of them (with the same sites as 3.13 finds), the child the other 3 (PEP 701).
#
# The child is started with `-I -S` (no environment paths, no site-packages of its own,
# so no other errdex and nothing that shadows its standard library), and finds errdex's
# folder and then the running Python's site-packages (errdex's pure-Python dependencies;
# nothing compiled is imported from there) after its standard library. It runs nothing
# of the indexed code: it reads files and parses them, as the workers do.
# ERRDEX_PYTHON names the Python to use instead of searching; empty or `none`: none.
from __future__ import annotations

import functools
import os
import pickle
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import errdex
from errdex.extract.cache import Outcome

ENV = "ERRDEX_PYTHON"
RUNNING = (sys.version_info.major, sys.version_info.minor)
_NEWEST_MINOR = 40  # python3.40 down to the running one's next, on PATH
_PYENV_VERSION = re.compile(r"3\.(\d+)\.\d+")
_PROBE = "import sys; print(*sys.version_info[:2])"
_BOOT = (
    "import pickle, sys\n"
    "request = pickle.load(sys.stdin.buffer)\n"
    "sys.path += request['path']\n"
    "from errdex.extract.elsewhere import serve\n"
    "serve(request)\n"
)


@dataclass(frozen=True, slots=True)
class Interpreter:
    path: str
    version: tuple[int, int]

    @property
    def name(self) -> str:
        return f"Python {self.version[0]}.{self.version[1]}"


class ElsewhereFailed(Exception):
    """The other Python did not answer: it failed to start, died or said nothing usable."""


def newer_python() -> Interpreter | str:
    """The newest Python on this machine that is newer than the running one, or why there
    is none to use (a sentence). ERRDEX_PYTHON, when set, names it instead."""
    return _find(os.environ.get(ENV))


@functools.cache
def _find(setting: str | None) -> Interpreter | str:
    if setting is not None:
        if setting.strip().lower() in ("", "none"):
            return f"{ENV} says to use no other Python"
        found = _probe(setting)
        if found is None or found.version <= RUNNING:
            return f"{ENV}={setting} is not a Python newer than {_dotted(RUNNING)} that runs"
        return found
    for path, _ in sorted(_candidates(), key=lambda c: c[1], reverse=True):
        found = _probe(path)
        if found is not None and found.version > RUNNING:
            return found
    return f"no Python newer than {_dotted(RUNNING)} found here ({ENV} can name one)"


def _candidates() -> Iterator[tuple[str, tuple[int, int]]]:
    """(path, the version its name claims) of each Python that may be newer: pyenv's first
    (a pyenv shim on PATH runs only the versions that are active)."""
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for folder in pyenv.glob("3.*"):
        match = _PYENV_VERSION.fullmatch(folder.name)
        python = folder / "bin" / "python3"
        if match and int(match[1]) > RUNNING[1] and python.is_file():
            yield str(python), (3, int(match[1]))
    for minor in range(_NEWEST_MINOR, RUNNING[1], -1):
        found = shutil.which(f"python3.{minor}")
        if found:
            yield found, (3, minor)


def _probe(path: str) -> Interpreter | None:
    """The Python at `path` with its version, or None when it does not run (a pyenv shim
    of a version that is not active, say)."""
    try:
        done = subprocess.run(
            [path, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30, check=False
        )
        major, minor = (int(part) for part in done.stdout.split())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    return Interpreter(path=path, version=(major, minor))


def parse_elsewhere(
    python: Interpreter,
    root: str,
    paths: Sequence[str],
    *,
    want_calls: frozenset[int] = frozenset(),
    workers: int = 1,
) -> dict[str, Outcome]:
    """The outcome of each of `paths` (under `root`) as `python` parses them, in up to
    `workers` children; raise ElsewhereFailed when a child does not answer."""
    chunks = [list(paths[i :: max(1, workers)]) for i in range(max(1, workers))]
    chunks = [chunk for chunk in chunks if chunk]
    outcomes: dict[str, Outcome] = {}
    with ThreadPoolExecutor(len(chunks) or 1) as threads:
        for answers in threads.map(lambda chunk: _run(python, root, chunk, want_calls), chunks):
            outcomes.update(answers)
    return outcomes


def _run(
    python: Interpreter, root: str, paths: list[str], want_calls: frozenset[int]
) -> dict[str, Outcome]:
    request = {
        "path": _import_paths(),
        "root": root,
        "paths": paths,
        "want_calls": want_calls,
    }
    try:
        done = subprocess.run(
            [python.path, "-I", "-S", "-c", _BOOT],
            input=pickle.dumps(request, protocol=5),
            capture_output=True,
            check=False,
        )
    except OSError as exc:
        raise ElsewhereFailed(f"{python.name} ({python.path}) did not start: {exc}") from None
    if done.returncode != 0:
        last = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise ElsewhereFailed(
            f"{python.name} ({python.path}) exited with {done.returncode}: {last[0]}"
        )
    try:
        answers: dict[str, Outcome] = pickle.loads(done.stdout)  # our own child's records
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise ElsewhereFailed(f"{python.name} answered what is not a result: {exc}") from None
    return answers


@functools.cache
def _import_paths() -> list[str]:
    """Where the running Python finds errdex, then its pure-Python dependencies."""
    own = str(Path(errdex.__file__).resolve().parent.parent)
    return list(
        dict.fromkeys([own, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    )


def serve(request: dict[str, Any]) -> None:
    """In the child: parse the request's files and write their outcomes to stdout."""
    from errdex.extract import worker_init
    from errdex.extract.pipeline import parse_batch

    worker_init(os.getppid())
    answers = parse_batch(request["root"], request["paths"], want_calls=request["want_calls"])
    sys.stdout.buffer.write(pickle.dumps(dict(answers), protocol=5))
    sys.stdout.buffer.flush()


def _dotted(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"
