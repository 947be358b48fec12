# Which files of a snapshot hold package code, and the module name of each.
#
# The walk never leaves the tree and never stops on a strange entry; what it cannot use
# it records as skipped, with the reason:
# - a link (file or folder) that resolves outside the tree's root is not followed;
#   links inside are not entered either (what they point to is walked under its name);
# - a source entry (.py, .pyx, .pxd, .pxi) that is a FIFO, socket or device is not read;
# - a name that is not valid UTF-8 is shown with its bad bytes escaped (`bad\xff.py`)
#   and skipped, so no lone surrogate reaches the store or JSON.
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from errdex.languages import CYTHON_SUFFIXES
from errdex.model import SkippedFile
from errdex.sources.reading import is_clean_name, resolves_inside, shown_name, special_kind

MAX_FILE_BYTES = 4 * 1024 * 1024  # a bigger file is skipped, with the reason (too_big)
SOURCE_SUFFIXES = (".py", *CYTHON_SUFFIXES)  # the files the walk takes


def too_big(size: int) -> str:
    """The reason a file of `size` bytes is skipped."""
    return f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte cap"


_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
# Test code beside the package code, at any depth: not the package's own errors. A
# `testing/` folder inside a package is kept: numpy.testing, torch.testing and
# pandas.testing are public API whose errors users meet (a top-level `testing/` is not
# package code, see sources/layout.py).
TEST_DIRS = frozenset({"tests", "test"})


def is_test_file(name: str) -> bool:
    """True for a file name that pytest collects or configures: conftest.py, test_*.py
    and *_test.py."""
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


BAD_NAME = "its name is not valid UTF-8; rename it to index it"
OUTSIDE = "a symbolic link to {target}, outside the tree; not followed"


@dataclass(slots=True)
class FileWalk:
    """The package's source files (.py, and Cython's .pyx, .pxd, .pxi; relative,
    "/"-separated), the `os.stat` of each (the
    scan need not ask again) and the entries skipped."""

    paths: list[str] = field(default_factory=list)
    stats: list[os.stat_result] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def python_files(root: Path, code_paths: tuple[str, ...]) -> Iterator[str]:
    """Relative paths (with "/") of the source files under `code_paths`, sorted per folder.

    An empty `code_paths` means the whole tree. Hidden folders and symlinked folders
    are not entered, so a link cannot lead the walk outside the snapshot. What is left
    out with a reason is in `walk_files(...).skipped`.
    """
    yield from walk_files(root, code_paths).paths


def walk_files(root: Path, code_paths: tuple[str, ...]) -> FileWalk:
    """The source files under `code_paths` (the whole tree when empty) and what was skipped."""
    out = FileWalk()
    seen: set[str] = set()  # code paths may overlap ("pkg" and "pkg/sub")
    base = str(root)
    for code_path in code_paths or ("",):
        rel_top = code_path.strip("/")
        start = os.path.join(base, rel_top) if rel_top else base
        found = FileWalk()
        if rel_top and not resolves_inside(start, base):
            target = shown_name(os.path.realpath(start))
            found.skipped.append(_skip(rel_top, OUTSIDE.format(target=target)))
        elif (
            rel_top.endswith(SOURCE_SUFFIXES)
            and os.path.lexists(start)
            and not os.path.isdir(start)
        ):
            _take_file(rel_top, start, found)
        else:
            _walk(base, start, rel_top, found)
        for rel, stat_result in zip(found.paths, found.stats, strict=True):
            if rel not in seen:
                seen.add(rel)
                out.paths.append(rel)
                out.stats.append(stat_result)
        for skip in found.skipped:
            if skip.path not in seen:
                seen.add(skip.path)
                out.skipped.append(skip)
    return out


def _skip(rel: str, reason: str) -> SkippedFile:
    return SkippedFile(path=shown_name(rel), reason=reason)


def _take_file(rel: str, full: str, out: FileWalk) -> None:
    """Add the source file at `full`, or the reason it cannot be read, to `out`."""
    if not is_clean_name(rel):
        out.skipped.append(_skip(rel, BAD_NAME))
        return
    try:
        stat_result = os.stat(full)
    except OSError as exc:
        out.skipped.append(_skip(rel, f"cannot read: {exc.strerror}"))
        return
    kind = special_kind(stat_result.st_mode)
    if kind is not None:
        out.skipped.append(_skip(rel, f"{kind}, not a regular file; not read"))
        return
    out.paths.append(rel)
    out.stats.append(stat_result)


def sorted_entries(folder: str) -> list[os.DirEntry[str]]:
    """The entries of `folder` in name order, or none when it cannot be listed."""
    try:
        return sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []


def _walk(root: str, folder: str, rel: str, out: FileWalk) -> None:
    # Plain strings, not pathlib: this runs on every re-index, over thousands of files.
    prefix = f"{rel}/" if rel else ""
    for entry in sorted_entries(folder):
        name = entry.name
        if name.startswith("."):
            continue
        try:
            if entry.is_symlink():
                _link(root, entry, prefix + name, out)
            elif entry.is_dir(follow_symlinks=False):
                if name not in _SKIP_DIRS and name not in TEST_DIRS:
                    _walk(root, entry.path, prefix + name, out)
            elif name.endswith(SOURCE_SUFFIXES) and not is_test_file(name):
                _entry_file(entry, prefix + name, out)
        except OSError as exc:
            out.skipped.append(_skip(prefix + name, f"cannot read: {exc.strerror}"))


def _entry_file(entry: os.DirEntry[str], rel: str, out: FileWalk) -> None:
    if not is_clean_name(rel):
        out.skipped.append(_skip(rel, BAD_NAME))
        return
    stat_result = entry.stat(follow_symlinks=False)  # not a link: the walk checked
    if stat.S_ISREG(stat_result.st_mode):
        out.paths.append(rel)
        out.stats.append(stat_result)
    else:
        kind = special_kind(stat_result.st_mode)
        out.skipped.append(_skip(rel, f"{kind}, not a regular file; not read"))


def _link(root: str, entry: os.DirEntry[str], rel: str, out: FileWalk) -> None:
    """A link in the tree is never entered; one to a folder or a source file outside the
    tree is recorded as skipped (one inside it is walked under its own name)."""
    if not (rel.endswith(SOURCE_SUFFIXES) or os.path.isdir(entry.path)):
        return  # data files are no concern of the walk
    if not resolves_inside(entry.path, root):
        target = shown_name(os.path.realpath(entry.path))
        out.skipped.append(_skip(rel, OUTSIDE.format(target=target)))


def is_package_init(path: str) -> bool:
    """True when the relative path is a package's `__init__.py` (its module is the package)."""
    return path.rpartition("/")[2] == "__init__.py"


def module_name(path: str) -> str:
    """Dotted module of a relative path: "src/pkg/a/__init__.py" -> "pkg.a" (a Cython
    file's too: "pkg/_lib.pyx" and "pkg/_lib.pxd" -> "pkg._lib").

    The one place a path becomes a module name. A leading `src/` is not part of the
    name, nor a leading `lib/` above a package (sqlalchemy's `lib/sqlalchemy/`); the
    `__init__.py` at the top of a tree that is itself a package names no module
    relative to that tree, so it gives "" (callers that show it fall back to the path).
    """
    stem, dot, suffix = path.rpartition(".")
    parts = (stem if dot and f".{suffix}" in SOURCE_SUFFIXES else path).split("/")
    if (parts[0] == "src" and len(parts) > 1) or (parts[0] == "lib" and len(parts) > 2):
        parts = parts[1:]
    if is_package_init(path):
        parts = parts[:-1]
    return ".".join(parts)
