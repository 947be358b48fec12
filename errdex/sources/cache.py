# Where sources keep what they fetch, and how a tree lands there: built in a temporary
# directory beside its final place, marked complete, then renamed into place in one step,
# so an interrupted run never leaves a half-written tree that a later run would trust.
#
# A temporary name says whose it is: `.NAME.tmp-HOST-PID-XXXX`, HOST a digest of this
# machine's name and PID the process writing it. A run killed hard (kill -9, a crash)
# cannot remove its own; the next run that writes beside it removes every one of this
# host whose process is gone (sweep_stale), and leaves those of live processes alone.
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from errdex import places
from errdex.errors import SourceError
from errdex.sources.reading import write_error

MARKER = "complete.json"  # beside the tree, never inside it: the tree is exactly the source
TREE = "tree"


def cache_root(cache_dir: Path | None = None) -> Path:
    """Return the cache directory: `cache_dir`, else $ERRDEX_CACHE, else the user cache dir."""
    if cache_dir is not None:
        return Path(cache_dir)
    return places.cache_dir()


def _host() -> str:
    import socket

    return hashlib.blake2b(socket.gethostname().encode(), digest_size=4).hexdigest()


_TEMP = re.compile(r"\..*\.tmp-([0-9a-f]{8})-(\d+)-[^/]*")


def temp_prefix(base: str) -> str:
    """The prefix of a temporary file or folder of this process beside `base`, for
    tempfile.mkstemp / mkdtemp: `base.tmp-HOST-PID-` (base should start with a dot)."""
    return f"{base}.tmp-{_host()}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, as another user's
        return True
    return True


def sweep_stale(folder: Path) -> list[Path]:
    """Remove the temporary files and folders (see temp_prefix) in `folder` left by
    processes of this host that are gone; return what was removed. Never raises."""
    removed: list[Path] = []
    host = _host()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP.fullmatch(entry.name)
        if match is None or match.group(1) != host or _alive(int(match.group(2))):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not path.exists():
            removed.append(path)
    return removed


def cached_tree(dest: Path) -> Path | None:
    """Return the root of the finished tree at `dest`, or None when there is none yet."""
    try:
        info = json.loads((dest / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    root = dest / TREE / str(info.get("root", ""))
    return root if root.is_dir() else None


def materialise(dest: Path, fill: Callable[[Path], None], *, strip_top: bool = True) -> Path:
    """Build the tree at `dest` once with `fill(tree_dir)` and return its root.

    With `strip_top` (archives), the root is the tree's single top folder when it has
    exactly one (an sdist's `name-1.0/`), else the tree itself; without it (a git
    checkout, whose root is the repository's), always the tree itself. A finished tree
    is reused as it is. Raises whatever `fill` raises (the partial tree is removed) and
    SourceError when the cache cannot be written.
    """
    found = cached_tree(dest)
    if found is not None:
        return found
    sweep_stale(dest.parent)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=temp_prefix(f".{dest.name}"), dir=dest.parent))
    except OSError as exc:
        raise write_error(exc, dest.parent, "the cache") or SourceError(
            f"cannot write to the cache at {dest.parent}: {exc}; "
            "set ERRDEX_CACHE to a writable directory"
        ) from exc
    try:
        tree = work / TREE
        tree.mkdir()
        fill(tree)
        entries = list(tree.iterdir())
        single = strip_top and len(entries) == 1 and entries[0].is_dir()
        top = entries[0].name if single else ""
        (work / MARKER).write_text(json.dumps({"root": top}), encoding="utf-8")
        if dest.exists():
            found = cached_tree(dest)
            if found is not None:  # a concurrent run finished first: use its tree
                return found
            shutil.rmtree(dest, ignore_errors=True)  # a damaged tree of an earlier run
        try:
            work.rename(dest)
        except OSError:
            found = cached_tree(dest)  # another process finished first: use its tree
            if found is None:
                raise
            return found
    except OSError as exc:
        raise write_error(exc, dest, "the cache") or SourceError(
            f"cannot write to the cache at {dest}: {exc}; set ERRDEX_CACHE to a writable directory"
        ) from exc
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return dest / TREE / top if top else dest / TREE
