# The sources stage: turn a SOURCE the user gave into a Snapshot, a tree of code on disk
# with its package, version, repository URL, commit and date.
#
#   /path/to/dir                     the directory as it is (working tree included)
#   pypi:NAME==VERSION, pypi:NAME    the sdist (else pure-python wheel) from PyPI
#   git+https://HOST/REPO.git@REV    a revision of a git repository, cloned into the cache
#   https://HOST/REPO.git@REV        the same
#   /path/to/clone@REV               a revision of a local clone, read without checkout
#   git:PATH_OR_URL@REV              either of the two above, explicitly
#   installed:NAME                   an installed distribution, read in place
#
# Downloads and trees are cached under cache_dir (default $ERRDEX_CACHE, else the user
# cache dir): a warm run re-uses them without the network or another extraction.
#
# A snapshot's package and version become URL path segments and file names of an
# export, so they are made safe where the snapshot is made (url_safe): a version read
# from a tree (pyproject, _version.py, a tag or branch such as `feature/x`) keeps
# letters, digits and `. _ + ! -`, and every other run of characters (`/`, `\`,
# spaces, control characters) becomes one `-` (`feature/x` -> `feature-x`). A valid PEP
# 440 version is never changed. Names and the SOURCE string have undecodable bytes
# escaped (`\xff`), so no lone surrogate reaches the store.
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit, urlunsplit

from packaging.version import InvalidVersion, Version

from errdex.errors import NotFoundError, SourceError
from errdex.model import Snapshot
from errdex.sources.cache import cache_root, materialise
from errdex.sources.layout import code_paths
from errdex.sources.metadata import (
    canonical_name,
    commit_from_version,
    import_name,
    normalize_repo_url,
    read_tree_metadata,
    version_file_facts,
)
from errdex.sources.reading import shown_name
from errdex.sources.tags import release_tag

# The modules of downloads and git repositories are imported by the sources that need
# them: a directory already indexed is re-indexed in a fraction of a second, most of it
# Python's start-up and imports.
if TYPE_CHECKING:
    from errdex.sources import git

__all__ = ["pypi_versions", "resolve"]

SHORT = 9  # hex digits of a commit id, as in vllm's `g2cf0a6915`
UNKNOWN_VERSION = "0+unknown"
HINT = (
    "a SOURCE is a directory, pypi:NAME[==VERSION], installed:NAME, "
    "git+URL@REV, URL.git@REV, PATH@REV or git:PATH_OR_URL@REV"
)
_SCP = re.compile(r"^[\w.-]+@[\w.-]+:(?!//)")
_UNSAFE = re.compile(r"[^A-Za-z0-9._+!-]+")
MAX_VERSION = 128


def url_safe(value: str | None) -> str | None:
    """`value` (a version or a package name) with every run of characters other than
    letters, digits and `. _ + ! -` replaced by one `-`, at most MAX_VERSION long;
    None when nothing is left (the caller then falls back to its next candidate)."""
    if value is None:
        return None
    cleaned = _UNSAFE.sub("-", shown_name(value)).strip("-.")
    return cleaned[:MAX_VERSION].rstrip("-.") or None


def resolve(
    spec: str,
    *,
    cache_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Snapshot:
    """Return the Snapshot that SOURCE `spec` names, fetching and caching it as needed.

    `progress(done, total)` is called with byte counts while a download runs (total is 0
    when unknown). Raises NotFoundError (no such path, package, version or revision),
    NetworkError (the index or repository cannot be reached), UnsafeArchiveError (a
    hostile or oversized archive) and SourceError (anything else wrong with `spec`).
    """
    text = spec.strip()
    if not text:
        raise SourceError(f"empty SOURCE; {HINT}")
    cache = cache_root(cache_dir)
    if text.startswith("pypi:"):
        return _from_pypi(spec, text[5:], cache, progress)
    if text.startswith("installed:"):
        return _from_installed(spec, text[10:].strip())
    if text.startswith("git:"):
        location, rev = _split_rev(text[4:])
        return _from_git(spec, location, rev, cache)
    if text.startswith("git+"):
        location, rev = _split_rev(text[4:])
        return _from_git(spec, location, rev, cache)
    path = Path(text).expanduser()
    if path.is_dir():
        return _from_directory(spec, path)
    if _is_url(text):
        location, rev = _split_rev(text)
        if rev != "HEAD" or location.endswith(".git"):
            return _from_git(spec, location, rev, cache)
        raise SourceError(
            f"cannot tell what SOURCE {spec!r} is; for a git repository write git+{text}"
        )
    head, sep, rev = text.rpartition("@")
    if sep and Path(head).expanduser().is_dir():
        return _from_git(spec, head, rev, cache)
    if path.exists():
        raise SourceError(f"SOURCE {spec!r} is a file, not a directory; {HINT}")
    if _PROJECT_NAME.fullmatch(text):  # `errdex index requests`: a project's name
        raise NotFoundError(
            f"no such directory {text!r}; for the release on PyPI write pypi:{text}, for the"
            f" copy installed here installed:{text}"
        )
    raise NotFoundError(f"no such directory {text!r}; {HINT}")


# A bare project name as PyPI allows it (PEP 508): what a user means by `index requests`.
_PROJECT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:==[\w.!+-]+)?")


def pypi_versions(name: str) -> list[str]:
    """Stable releases of `name` on the package index that errdex can read, oldest first.

    Raises NotFoundError for an unknown package and NetworkError when the index fails.
    """
    from errdex.sources import pypi

    canonical = canonical_name(name)
    return pypi.release_versions(canonical, pypi.list_files(canonical))


def _is_url(text: str) -> bool:
    return "://" in text or bool(_SCP.match(text))


def _split_rev(location: str) -> tuple[str, str]:
    """Split `URL_OR_PATH@REV` into its parts; REV is HEAD when absent."""
    location = location.strip()
    if "://" in location:
        parts = urlsplit(location)
        path, sep, rev = parts.path.rpartition("@")
        if not sep:
            return location, "HEAD"
        return urlunsplit(parts._replace(path=path)), rev or "HEAD"
    if _SCP.match(location):
        user_host, _, path = location.partition(":")
        path, sep, rev = path.rpartition("@")
        return (f"{user_host}:{path}", rev or "HEAD") if sep else (location, "HEAD")
    if Path(location).expanduser().is_dir():
        return location, "HEAD"
    head, sep, rev = location.rpartition("@")
    return (head, rev or "HEAD") if sep else (location, "HEAD")


def _short(commit: str | None) -> str | None:
    return commit[:SHORT].lower() if commit else None


def _version_from_git(tree: git.GitTree) -> str | None:
    """The version a tag names: `v1.2` -> "1.2"; N commits past it -> "1.2.postN+gSHA"."""
    if tree.tag:
        return _tag_version(tree.tag) or tree.tag
    if tree.describe:
        match = re.fullmatch(r"(.+)-(\d+)-g([0-9a-f]+)", tree.describe)
        if match:
            base = _tag_version(match.group(1)) or "0"
            return f"{base}.post{match.group(2)}+g{match.group(3)[:SHORT]}"
    return None


def _tag_version(tag: str) -> str | None:
    try:
        return str(Version(tag.rsplit("/", 1)[-1]))
    except InvalidVersion:
        return None


def _from_pypi(
    spec: str, rest: str, cache: Path, progress: Callable[[int, int], None] | None
) -> Snapshot:
    from errdex.sources import pypi
    from errdex.sources.archive import extract_archive

    name, version = pypi.parse_spec(rest)
    downloads = cache / "downloads"
    download = pypi.fetch(name, version, downloads, progress)
    # The archive must be the one its pin recorded, and the tree the one made from it:
    # a damaged file is fetched again, and a tree not made from it is made again.
    if not download.checked and not pypi.verify(download):
        download.path.unlink(missing_ok=True)
        download = pypi.fetch(name, version, downloads, progress)
    dest = cache / "trees" / download.sha256[:16]
    archive = download.path
    # a platform wheel: its Python files and metadata, not its compiled libraries
    only = _python_or_metadata if pypi.is_platform_wheel(archive.name) else None
    root = materialise(
        dest, lambda tree: extract_archive(archive, tree, only=only), origin=download.sha256
    )
    release = download.release
    meta = read_tree_metadata(root)
    paths = code_paths(root, import_name(name))
    _, file_commit = version_file_facts(root, paths)
    commit = _short(file_commit or commit_from_version(release.version))
    return Snapshot(
        package=name,
        version=release.version,
        root=root,
        source=shown_name(spec),
        repo_url=meta.repo_url,
        commit=commit,
        tag=None if commit else release_tag(root, meta.repo_url, release.version),
        date=release.upload_time,
        code_paths=paths,
        requires=meta.requires,
        note=(
            f"the Python files of {release.filename}: the release has no sdist or "
            "pure-Python wheel, and its compiled parts are not read"
            if pypi.is_platform_wheel(release.filename)
            else None
        ),
    )


def _python_or_metadata(name: str) -> bool:
    return name.endswith(".py") or (".dist-info/" in name and name.endswith("/METADATA"))


def _package_name(declared: str | None, folder: str) -> str:
    """The package's canonical name: the one its metadata declares, else its folder's,
    made URL-safe; "unnamed" when neither leaves anything."""
    for candidate in (declared, folder):
        name = url_safe(canonical_name(candidate)) if candidate else None
        if name:
            return name
    return "unnamed"


def _from_git(spec: str, location: str, rev: str, cache: Path) -> Snapshot:
    from errdex.sources import git

    if _is_url(location):
        parts = urlsplit(location)
        if parts.scheme == "file":  # a local repository given as a URL: clone it all the same
            repo_name = Path(unquote(parts.path)).name
        else:
            repo_name = (parts.path or location).rstrip("/").rsplit("/", 1)[-1]
        tree = git.remote_tree(location, rev, cache)
    else:
        repo = Path(location).expanduser().resolve()
        if not repo.is_dir():
            raise NotFoundError(f"no such directory {location!r} for git SOURCE {spec!r}")
        repo_name = repo.name
        tree = git.local_tree(repo, rev, cache)
    root = tree.root
    meta = read_tree_metadata(root)
    name = _package_name(meta.name, repo_name.removesuffix(".git"))
    paths = code_paths(root, import_name(name))
    file_version, _ = version_file_facts(root, paths)
    version = url_safe(meta.version) or url_safe(file_version) or url_safe(_version_from_git(tree))
    return Snapshot(
        package=name,
        version=version or f"0+g{tree.commit[:SHORT]}",
        root=root,
        source=shown_name(spec),
        repo_url=(normalize_repo_url(tree.origin) if tree.origin else None) or meta.repo_url,
        commit=_short(tree.commit),
        date=tree.date,
        code_paths=paths,
        requires=meta.requires,
    )


def _from_directory(
    spec: str, path: Path, *, name: str | None = None, version: str | None = None
) -> Snapshot:
    root = path.resolve()
    meta = read_tree_metadata(root)
    package = _package_name(name or meta.name, root.name)
    paths = code_paths(root, import_name(package))
    file_version, file_commit = version_file_facts(root, paths)
    commit, date, origin, git_version = file_commit, None, None, None
    # An unpacked sdist (PKG-INFO) is not the git repository it may happen to sit in.
    sdist = (root / "PKG-INFO").is_file()
    if not sdist:
        commit, date, origin, git_version = _git_facts(root, commit)
    candidates = (version, meta.version, file_version, git_version)
    found = next(filter(None, map(url_safe, candidates)), UNKNOWN_VERSION)
    repo_url = (normalize_repo_url(origin) if origin else None) or meta.repo_url
    return Snapshot(
        package=package,
        version=found,
        root=root,
        source=shown_name(spec),
        repo_url=repo_url,
        commit=_short(commit),
        tag=release_tag(root, repo_url, found) if sdist and not commit else None,
        date=date,
        code_paths=paths,
        requires=meta.requires,
    )


def _git_facts(
    root: Path, commit: str | None
) -> tuple[str | None, str | None, str | None, str | None]:
    """(commit, date, origin, version) of the git checkout `root` is in, when it is in
    one; else `commit` (read from the tree's files) with nothing else."""
    from errdex.sources import git

    if git.repo_toplevel(root) is None:
        return commit, None, None, None
    date = git_version = None
    head = git.head_facts(root)
    if head is not None:
        commit, date = head
        describe = git.run_git(["describe", "--tags", "--long", "HEAD"], root, check=False)
        tag = git.run_git(["describe", "--tags", "--exact-match", "HEAD"], root, check=False)
        git_version = _version_from_git(
            git.GitTree(
                root=root, commit=commit, date=date, origin=None,
                tag=tag or None, describe=describe or None,
            )
        )  # fmt: skip
    return commit, date, git.origin_url(root), git_version


def _from_installed(spec: str, name: str) -> Snapshot:
    from errdex.sources import installed  # importlib.metadata costs start-up time

    if not name:
        raise SourceError(f"SOURCE {spec!r} names no distribution; write installed:NAME")
    found = installed.find(name)
    package = found.meta.name or canonical_name(name)
    if found.editable:  # the code lives in the project directory, possibly a git clone
        snapshot = _from_directory(spec, found.root, name=package, version=found.meta.version)
        if snapshot.repo_url is None and found.meta.repo_url:
            return dataclasses.replace(snapshot, repo_url=found.meta.repo_url)
        return snapshot
    paths = found.code_paths
    _, file_commit = version_file_facts(found.root, paths)
    return Snapshot(
        package=url_safe(package) or canonical_name(name),
        version=url_safe(found.meta.version) or UNKNOWN_VERSION,
        root=found.root,
        source=shown_name(spec),
        repo_url=found.meta.repo_url,
        commit=_short(found.commit or file_commit),
        date=None,
        code_paths=paths,
        requires=found.meta.requires,
    )
