# Installed distributions: the code of `installed:NAME` as it sits in site-packages (or in
# the project directory of an editable install), found through importlib.metadata only.
# The distribution is never imported: its files are read where they lie.
from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from errdex.errors import NotFoundError
from errdex.sources.metadata import (
    TreeMetadata,
    canonical_name,
    commit_from_version,
    metadata_from_headers,
    normalize_repo_url,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Installed:
    """An installed distribution: where its code is and what its metadata says."""

    meta: TreeMetadata
    root: Path
    code_paths: tuple[str, ...]  # empty for an editable install: the caller lays it out
    editable: bool
    commit: str | None


def find(name: str) -> Installed:
    """Return the installed distribution `name`, never importing it.

    Raises NotFoundError when no distribution of that name is installed.
    """
    try:
        dist = importlib_metadata.distribution(name)
    except importlib_metadata.PackageNotFoundError as exc:
        raise NotFoundError(
            f"no installed distribution {name!r} in this Python environment; "
            f"install it, or index it from PyPI with pypi:{name}"
        ) from exc
    meta = metadata_from_headers(dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "")
    meta = TreeMetadata(
        name=canonical_name(meta.name or name),
        version=meta.version or dist.version,
        repo_url=meta.repo_url,
        requires=meta.requires,
    )
    direct = _direct_url(dist)
    vcs = direct.get("vcs_info")
    commit = vcs.get("commit_id") if isinstance(vcs, dict) else None
    url = direct.get("url")
    if isinstance(vcs, dict) and isinstance(url, str):
        meta = TreeMetadata(
            name=meta.name,
            version=meta.version,
            repo_url=normalize_repo_url(url) or meta.repo_url,
            requires=meta.requires,
        )
    project = _editable_dir(direct)
    paths: tuple[str, ...]
    if project is not None:
        root, paths, editable = project, (), True
    else:
        root, paths, editable = Path(str(dist.locate_file(""))), _code_paths(dist), False
    return Installed(
        meta=meta,
        root=root.resolve(),
        code_paths=paths,
        editable=editable,
        commit=commit if isinstance(commit, str) else commit_from_version(meta.version or ""),
    )


def _direct_url(dist: importlib_metadata.Distribution) -> dict[str, object]:
    text = dist.read_text("direct_url.json")
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _editable_dir(direct: dict[str, object]) -> Path | None:
    """The project directory of an editable install (PEP 660 direct_url.json), or None."""
    info = direct.get("dir_info")
    url = direct.get("url")
    if not (isinstance(info, dict) and info.get("editable") and isinstance(url, str)):
        return None
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    path = Path(unquote(parts.path))
    return path if path.is_dir() else None


def _code_paths(dist: importlib_metadata.Distribution) -> tuple[str, ...]:
    """Top-level packages and modules with .py files, from RECORD, else top_level.txt."""
    found: set[str] = set()
    for file in dist.files or ():
        parts = PurePosixPath(str(file)).parts
        if not parts or parts[0] in ("..", "/") or str(file).endswith(".pyc"):
            continue
        top = parts[0]
        if top.endswith((".dist-info", ".egg-info", ".data")) or top == "__pycache__":
            continue
        if parts[-1].endswith(".py"):  # a top-level module, or a file of a top-level package
            found.add(top)
    if found:
        return tuple(sorted(found))
    site = Path(str(dist.locate_file("")))
    for line in (dist.read_text("top_level.txt") or "").splitlines():
        name = line.strip()
        if not name or "/" in name or name.startswith("."):
            continue
        if (site / name).is_dir():
            found.add(name)
        elif (site / f"{name}.py").is_file():
            found.add(f"{name}.py")
    return tuple(sorted(found))
