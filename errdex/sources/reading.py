# Reading and writing files of a tree that strangers made, without being stopped by it:
#
# - only regular files are read: a FIFO, socket or device is refused before it is opened
#   for good (stat first, then opened with O_NONBLOCK and checked again with fstat, so a
#   file swapped for a FIFO in between cannot block the read);
# - a path that resolves (through links) outside the tree's root is never followed;
# - a file name that is not valid UTF-8 (the bytes os.fsdecode turns into lone
#   surrogates) is shown with its bad bytes escaped, and never passed on as it is;
# - an OSError met while writing the cache says what happened (no space, a name too
#   long, a file where a folder should be) as a SourceError subclass naming the path.
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from errdex.errors import CacheWriteError, NameTooLongError, NoSpaceError, PathClashError

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
}


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or directory: never read as a file."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        super().__init__(errno.EINVAL, f"not a regular file: {kind}", os.fspath(path))
        self.kind = kind


def special_kind(mode: int) -> str | None:
    """What a stat mode is when it is not a regular file ("a FIFO (named pipe)"), else None."""
    return None if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file at `path` (at most `limit` when given).

    Raises NotRegularFile (an OSError) for a FIFO, socket, device or directory, without
    blocking on it, and OSError when the file cannot be read.
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise NotRegularFile(path, before.st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):  # swapped between the stat and the open
            raise NotRegularFile(path, now.st_mode)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return handle.read() if limit is None else handle.read(limit)
    finally:
        if fd >= 0:
            os.close(fd)


def read_text(path: Path, limit: int) -> str | None:
    """The text (UTF-8, bad bytes replaced) of the regular file at `path`, at most `limit`
    bytes of it; None when it is missing, unreadable or not a regular file."""
    try:
        return read_regular(path, limit).decode("utf-8", errors="replace")
    except OSError:
        return None


def is_clean_name(name: str) -> bool:
    """True when `name` is valid Unicode text (no lone surrogates from undecodable bytes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """`name` safe to store and print: bytes that were not UTF-8 become `\\xNN` escapes."""
    if is_clean_name(name):
        return name
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def resolves_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when `path`, with every link in it followed, is `root` or lies under it."""
    real = os.path.realpath(path)
    top = os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def write_error(exc: OSError, path: Path, what: str) -> CacheWriteError | PathClashError | None:
    """The SourceError that says why writing `what` at `path` failed, or None when the
    OSError is none of: no space, quota, name too long, file/folder clash."""
    where = shown_name(os.fsdecode(exc.filename or path))
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        cause = "no space left on the device" if exc.errno == errno.ENOSPC else "disk quota"
        return NoSpaceError(
            f"{cause} while writing {what} at {where}; free some space there, or set "
            "ERRDEX_CACHE to a folder on a device with room",
            Path(where),
            exc.errno,
        )
    if exc.errno == errno.ENAMETOOLONG:
        return NameTooLongError(
            f"a file name is too long for the file system while writing {what}: {where}",
            Path(where),
            exc.errno,
        )
    if exc.errno in (errno.ENOTDIR, errno.EISDIR, errno.EEXIST):
        return PathClashError(
            f"{what} needs {where} both as a file and as a folder; cannot write it",
            where,
        )
    return None


@contextmanager
def writing(path: Path, what: str) -> Iterator[None]:
    """Turn an OSError raised while writing `what` at `path` into the SourceError that
    says what happened: NoSpaceError, NameTooLongError, PathClashError, else
    CacheWriteError (permissions, a read-only file system, ...)."""
    try:
        yield
    except OSError as exc:
        known = write_error(exc, path, what)
        if known is not None:
            raise known from exc
        where = shown_name(os.fsdecode(exc.filename or path))
        raise CacheWriteError(
            f"cannot write {what} at {where}: {exc.strerror or exc}; "
            "set ERRDEX_CACHE to a writable directory",
            Path(where),
            exc.errno,
        ) from exc
