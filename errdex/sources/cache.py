# Where sources keep what they fetch, and how a tree lands there: built in a temporary
# directory beside its final place, marked complete, then renamed into place in one step,
# so an interrupted run never leaves a half-written tree that a later run would trust.
#
# The marker says what the tree was made from (`origin`: the sha256 of a PyPI archive)
# and holds a manifest of it (each file's path, size and modification time, as written):
# a tree is reused only when its marker names the archive asked for and the tree is
# still exactly what was written, else it is made again. The cache root is made 0700,
# whatever the umask: what is in it is read as this user's own.
#
# A temporary name says whose it is: `.NAME.tmp-HOST-PID-XXXX`, HOST a digest of this
# machine's name and PID the process writing it. A run killed hard (kill -9, a crash)
# cannot remove its own; the next run that writes beside it removes every one of this
# host whose process is gone (sweep_stale), and leaves those of live processes alone.
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from errdex import places
from errdex.errors import SourceError
from errdex.sources.reading import write_error

MARKER = "complete.json"  # beside the tree, never inside it: the tree is exactly the source
TREE = "tree"


def cache_root(cache_dir: Path | None = None) -> Path:
    """Return the cache directory: `cache_dir`, else $ERRDEX_CACHE, else the user cache
    dir; made (readable and writable by this user only) when it is not there yet."""
    root = Path(cache_dir) if cache_dir is not None else places.cache_dir()
    if not root.exists():
        with contextlib.suppress(OSError):  # a read-only place: said by what writes there
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(root, 0o700)  # mkdir's mode is cut by the umask; this one is not
    return root


def _set_aside(dest: Path) -> None:
    """Remove the tree at `dest`: first renamed out of the way in one step (a process
    still reading it keeps its open files, and `dest` is free at once), then deleted."""
    aside = Path(tempfile.mkdtemp(prefix=temp_prefix(f".{dest.name}-old"), dir=dest.parent))
    try:
        dest.rename(aside / dest.name)
    finally:
        shutil.rmtree(aside, ignore_errors=True)


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


def cached_tree(dest: Path, origin: str | None = None) -> Path | None:
    """Return the root of the finished tree at `dest`, or None when there is none yet, it
    was made from another `origin` than the one given, or it is no longer exactly what
    was written (a file added, removed or changed since: its manifest disagrees)."""
    try:
        info = json.loads((dest / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not isinstance(info.get("root"), str):
        return None
    if origin is not None and info.get("origin") != origin:
        return None
    if info.get("manifest") != manifest(dest / TREE):
        return None
    root = dest / TREE / info["root"]
    return root if root.is_dir() else None


def manifest(tree: Path) -> str | None:
    """A digest of what is in `tree`: every path under it, with its kind and, for a
    file, its size and modification time; None when it cannot be read whole."""
    entries: list[str] = []
    try:
        for folder, dirnames, filenames in os.walk(tree, onerror=_raise):
            dirnames.sort()
            for name in (*dirnames, *sorted(filenames)):
                path = os.path.join(folder, name)
                info = os.lstat(path)
                entry = f"{os.path.relpath(path, tree)}\0{info.st_mode:o}"
                if stat.S_ISREG(info.st_mode):
                    entry += f"\0{info.st_size}\0{info.st_mtime_ns}"
                entries.append(entry)
    except OSError:
        return None
    text = "\n".join(entries).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def _raise(error: OSError) -> None:
    raise error


def materialise(
    dest: Path,
    fill: Callable[[Path], None],
    *,
    strip_top: bool = True,
    origin: str | None = None,
) -> Path:
    """Build the tree at `dest` once with `fill(tree_dir)` and return its root.

    With `strip_top` (archives), the root is the tree's single top folder when it has
    exactly one (an sdist's `name-1.0/`), else the tree itself; without it (a git
    checkout, whose root is the repository's), always the tree itself. A finished tree
    is reused when it was made from `origin` (say, the archive's sha256) and is still
    as written (cached_tree); else it is made again. Raises whatever `fill` raises (the
    partial tree is removed) and SourceError when the cache cannot be written.
    """
    found = cached_tree(dest, origin)
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
        marker = {"root": top, "origin": origin, "manifest": manifest(tree)}
        (work / MARKER).write_text(json.dumps(marker), encoding="utf-8")
        if dest.exists():
            found = cached_tree(dest, origin)
            if found is not None:  # a concurrent run finished first: use its tree
                return found
            _set_aside(dest)  # a damaged or foreign tree, or an older errdex's
        try:
            work.rename(dest)
        except OSError:
            found = cached_tree(dest, origin)  # another process finished first: use its tree
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
