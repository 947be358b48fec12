# Which files of a snapshot hold package code, and the module name of each.
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


def python_files(root: Path, code_paths: tuple[str, ...]) -> Iterator[str]:
    """Relative paths (with "/") of the .py files under `code_paths`, sorted per folder.

    An empty `code_paths` means the whole tree. Hidden folders and symlinked folders
    are not entered, so a link cannot lead the walk outside the snapshot.
    """
    seen: set[str] = set()  # code paths may overlap ("pkg" and "pkg/sub")
    for code_path in code_paths or ("",):
        start = root / code_path
        if start.is_file():
            found: Iterator[str] = iter([code_path] if start.suffix == ".py" else [])
            if start.is_symlink():
                continue
        else:
            found = _walk(str(start), code_path.strip("/"))
        for rel in found:
            if rel not in seen:
                seen.add(rel)
                yield rel


def _walk(folder: str, rel: str) -> Iterator[str]:
    # Plain strings, not pathlib: this runs on every re-index, over thousands of files.
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    prefix = f"{rel}/" if rel else ""
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            if name not in _SKIP_DIRS:
                yield from _walk(entry.path, prefix + name)
        elif name.endswith(".py") and entry.is_file(follow_symlinks=False):
            yield prefix + name


def is_package_init(path: str) -> bool:
    """True when the relative path is a package's `__init__.py` (its module is the package)."""
    return path.rpartition("/")[2] == "__init__.py"


def module_name(path: str) -> str:
    """Dotted module of a relative path: "src/pkg/a/__init__.py" -> "pkg.a".

    The one place a path becomes a module name. A leading `src/` is not part of the
    name; the `__init__.py` at the top of a tree that is itself a package names no
    module relative to that tree, so it gives "" (callers that show it fall back to
    the path).
    """
    parts = path.removesuffix(".py").split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if is_package_init(path):
        parts = parts[:-1]
    return ".".join(parts)
