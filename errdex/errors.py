# errdex's own exceptions. Every one says what went wrong, with the offending value,
# and carries the facts as attributes; the surfaces (errdex.cli, errdex.web) word the
# advice in their own terms (a flag, a URL) and print them without a traceback.
#
#   ErrdexError
#   ├── SourceError        a SOURCE cannot be turned into a snapshot
#   │   ├── NotFoundError      no such package, version, path or revision
#   │   ├── NetworkError       the package index could not be reached
#   │   ├── UnsafeArchiveError an archive tries to escape, links out or is too big
#   │   ├── CacheWriteError    a download or tree cannot be written to the cache
#   │   │   ├── NoSpaceError       no space left on the device (or quota) of a path
#   │   │   └── NameTooLongError   a file name too long for the file system
#   │   └── PathClashError     a member is both a file and a folder (or under a file)
#   ├── StoreError         the database cannot be opened, is too new, or is corrupt
#   │   ├── NoDatabase         there is no database where one is read
#   │   └── NotErrdexDatabase  the file or database there is something else
#   │       └── EmptyDatabase      an empty file, where a database is only read
#   ├── ErrorNotFound      no error with that id (or message) in the store
#   │   └── AmbiguousMessage   several errors have that message
#   ├── InputTooLarge      user text over the size cap
#   └── NotAvailable       what a command runs on is not installed or not running here
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class ErrdexError(Exception):
    """Base of every error errdex raises on purpose."""


class SourceError(ErrdexError):
    """A SOURCE could not be turned into a snapshot."""


class NotFoundError(SourceError):
    """The package, version, directory or revision does not exist."""


class NetworkError(SourceError):
    """The package index or repository could not be reached."""


class UnsafeArchiveError(SourceError):
    """An archive member escapes the target, links outside it, or exceeds a cap."""


class CacheWriteError(SourceError):
    """A download or an unpacked tree could not be written to the cache at `path`.

    `errno` is the operating system's error number (None when there is none).
    """

    def __init__(self, message: str, path: Path, errno: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.errno = errno


class NoSpaceError(CacheWriteError):
    """No space is left on the device (or in the quota) that holds `path`."""


class NameTooLongError(CacheWriteError):
    """A name (from an archive, a tree or an index) is too long for the file system."""


class PathClashError(SourceError):
    """Two members of an archive or tree need one path as a file and as a folder."""

    def __init__(self, message: str, member: str) -> None:
        super().__init__(message)
        self.member = member


class PathOutsideTree(SourceError):
    """A code path given for a tree (absolute, or with `..`) leads outside it."""

    def __init__(self, path: str, root: Path) -> None:
        super().__init__(f"{path!r} leads outside {root}")
        self.path = path
        self.root = root


class StoreError(ErrdexError):
    """The database cannot be used as it is."""


class NoDatabase(StoreError):
    """A command that only reads found no database at `path` (and made none)."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(f"there is no errdex database at {path}")
        self.path = path


class NotErrdexDatabase(StoreError):
    """The file or database at `where` is not an errdex database (another SQLite file,
    not SQLite at all, another program's tables). Its message names no flag or variable:
    each surface says how its user chose that database."""

    def __init__(self, message: str, where: Path | str) -> None:
        super().__init__(message)
        self.where = where


class EmptyDatabase(NotErrdexDatabase):
    """The file at `where` is empty (no table yet: made by another program, or by an
    errdex that is making its schema right now), and only reading was asked for."""


class ErrorNotFound(ErrdexError):
    """No error site with the given id or message."""


class AmbiguousMessage(ErrorNotFound):
    """Several error sites have the message given; `ids` names them."""

    def __init__(self, message: str, ids: Sequence[str]) -> None:
        super().__init__(f"{len(ids)} errors have the message {message!r}")
        self.message = message
        self.ids = tuple(ids)


class InputTooLarge(ErrdexError):
    """User-supplied text is over the size cap."""


class NotAvailable(ErrdexError):
    """What a command runs on is not installed or not running on this machine (Ray for
    index-many, the Ray cluster `--ray auto` looks for); the message says what to
    install or start."""
