# Git sources: a tree at a revision of a local clone or of a remote repository.
#
# A local clone is only read (`rev-parse`, `ls-tree`, `cat-file`), never checked out,
# so the user's working tree, index and HEAD are untouched. A remote URL is cloned bare
# once into cache/git/<hash of the URL> and fetched again only when the revision is not
# a tag or commit it already has. The tree at the commit is written blob by blob into
# cache/trees/git-<commit>: symlinks and submodules are skipped (never created), paths
# and sizes are checked as for archives, and `.gitattributes` export rules do not apply.
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import (
    NetworkError,
    NotFoundError,
    PathClashError,
    SourceError,
    UnsafeArchiveError,
)
from errdex.sources.archive import Limits, safe_relpath
from errdex.sources.cache import materialise
from errdex.sources.reading import shown_name, writing

_FULL_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True, slots=True, kw_only=True)
class GitTree:
    """A revision's tree exported to disk, and what git says about it."""

    root: Path
    commit: str  # full hex id
    date: str  # committer date, ISO 8601
    origin: str | None  # remote.origin.url of the source repository, or the URL cloned
    tag: str | None  # the tag the revision names exactly, if any
    describe: str | None  # `git describe --tags --long`, if a tag is reachable


def _git_env() -> dict[str, str]:
    """The environment git runs in: the current one, read at each call (so a change to
    os.environ after import counts), with prompts off and messages in English."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "LC_ALL": "C"}


def run_git(args: list[str], cwd: Path | None = None, *, check: bool = True) -> str:
    """Run git and return its stdout, stripped. Raises SourceError when git fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=_git_env(), capture_output=True, text=True, check=False
        )
    except FileNotFoundError as exc:
        raise SourceError("git is not installed; install git to index a git SOURCE") from exc
    if check and done.returncode != 0:
        raise SourceError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip() if done.returncode == 0 else ""


def _check_rev(rev: str) -> None:
    if not rev or rev.startswith("-") or any(ch.isspace() or ch == "\x00" for ch in rev):
        raise SourceError(f"invalid git revision {rev!r}; give a tag, branch or commit after '@'")


def _commit_of(repo: Path, rev: str) -> str | None:
    out = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        repo,
        check=False,
    )
    return out if _FULL_SHA.fullmatch(out) else None


def repo_toplevel(path: Path) -> Path | None:
    """Return the top of the git work tree (or bare repo) containing `path`, or None."""
    top = run_git(["rev-parse", "--show-toplevel"], path, check=False)
    if top:
        return Path(top)
    if run_git(["rev-parse", "--is-bare-repository"], path, check=False) == "true":
        return path
    return None


def head_facts(path: Path) -> tuple[str, str] | None:
    """Return (full commit, ISO date) of HEAD in the repository at `path`, or None."""
    commit = _commit_of(path, "HEAD")
    if commit is None:
        return None
    return commit, run_git(["show", "-s", "--format=%cI", commit], path)


def origin_url(repo: Path) -> str | None:
    """Return `remote.origin.url` of the repository at `repo`, or None."""
    return run_git(["config", "--get", "remote.origin.url"], repo, check=False) or None


def local_tree(repo: Path, rev: str, cache: Path, limits: Limits | None = None) -> GitTree:
    """Export `rev` of the local repository at `repo` and return it.

    Raises NotFoundError when `repo` is not a git repository or has no such revision.
    """
    _check_rev(rev)
    if repo_toplevel(repo) is None:
        raise NotFoundError(f"{repo} is not a git repository; '@{rev}' needs a git clone")
    commit = _commit_of(repo, rev)
    if commit is None:
        raise NotFoundError(
            f"no revision {rev!r} in {repo}; list them with `git -C {repo} tag` or `git log`"
        )
    return _export(repo, rev, commit, origin_url(repo), cache, limits)


def remote_tree(url: str, rev: str, cache: Path, limits: Limits | None = None) -> GitTree:
    """Clone `url` (bare, cached), export `rev` and return it.

    Raises NetworkError when the repository cannot be reached and NotFoundError when it
    has no such revision.
    """
    _check_rev(rev)
    clone = cache / "git" / hashlib.sha256(url.encode()).hexdigest()[:16]
    if not (clone / "HEAD").is_file():
        partial = clone.with_name(clone.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
        run_git(["init", "--quiet", "--bare", str(partial)])
        run_git(["remote", "add", "origin", "--", url], partial)
        try:
            _fetch(partial, url)
        except SourceError:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        partial.rename(clone)
        fetched = True
    else:
        fetched = False
    wanted = "refs/remotes/origin/HEAD" if rev == "HEAD" else rev
    commit = _commit_of(clone, wanted)
    fixed = _FULL_SHA.fullmatch(rev) or _commit_of(clone, f"refs/tags/{rev}")
    if not fetched and (commit is None or not fixed):  # branches move, tags get added
        _fetch(clone, url)
        commit = _commit_of(clone, wanted)
    if commit is None and re.fullmatch(r"[0-9a-f]{7,40}", rev):  # a commit on no branch
        run_git(["fetch", "--quiet", "origin", rev], clone, check=False)
        commit = _commit_of(clone, rev)
    if commit is None:
        raise NotFoundError(f"no revision {rev!r} in {url}; give a tag, branch or commit")
    return _export(clone, wanted, commit, url, cache, limits)


def _fetch(repo: Path, url: str) -> None:
    try:
        run_git(
            [
                "fetch", "--quiet", "--force", "--tags", "origin",
                "+refs/heads/*:refs/heads/*", "+HEAD:refs/remotes/origin/HEAD",
            ],
            repo,
        )  # fmt: skip
    except SourceError as exc:
        raise NetworkError(
            f"cannot fetch {url}: {str(exc).split(': ', 1)[-1]}; check the URL and your network"
        ) from exc


def _export(
    repo: Path, rev: str, commit: str, origin: str | None, cache: Path, limits: Limits | None
) -> GitTree:
    root = materialise(
        cache / "trees" / f"git-{commit}",
        lambda tree: write_tree(repo, commit, tree, limits or Limits()),
        strip_top=False,
    )
    tag = run_git(["describe", "--tags", "--exact-match", commit], repo, check=False)
    describe = run_git(["describe", "--tags", "--long", commit], repo, check=False)
    return GitTree(
        root=root,
        commit=commit,
        date=run_git(["show", "-s", "--format=%cI", commit], repo),
        origin=origin,
        tag=tag or (rev if _commit_of(repo, f"refs/tags/{rev}") else None),
        describe=describe or None,
    )


def write_tree(repo: Path, commit: str, target: Path, limits: Limits) -> None:
    """Write the files of `commit` in `repo` under `target` (links and submodules skipped).

    Raises UnsafeArchiveError past a cap in `limits` or for a path that escapes.
    """
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "--long", "--full-tree", commit],
        cwd=repo, env=_git_env(), capture_output=True, check=True,
    )  # fmt: skip
    blobs: list[tuple[str, str, int]] = []
    total = 0
    for entry in listing.stdout.split(b"\x00"):
        if not entry:
            continue
        info, _, raw_path = entry.partition(b"\t")
        mode, kind, sha, size = info.decode().split()
        if kind != "blob" or mode == "120000":
            continue  # submodule or symlink
        path = raw_path.decode("utf-8", "surrogateescape")
        rel = safe_relpath(path, Path(f"{commit[:9]}"))
        nbytes = int(size)
        total += nbytes
        if len(blobs) >= limits.max_members:
            raise UnsafeArchiveError(f"commit {commit[:9]} has over {limits.max_members:,} files")
        if nbytes > limits.max_member_bytes or total > limits.max_total_bytes:
            raise UnsafeArchiveError(
                f"commit {commit[:9]}: {path!r} takes the tree past the size caps "
                f"({limits.max_member_bytes:,} per file, {limits.max_total_bytes:,} in all)"
            )
        blobs.append((sha, rel, nbytes))
    with subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=repo, env=_git_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    ) as proc:  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        for sha, rel, nbytes in blobs:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or int(header[2]) != nbytes:
                raise SourceError(f"git cat-file gave an unexpected answer for {rel!r}")
            data = proc.stdout.read(nbytes + 1)[:nbytes]
            _write_blob(target / rel, rel, data, commit)
        proc.stdin.close()


def _write_blob(dest: Path, rel: str, data: bytes, commit: str) -> None:
    """Write one file of the tree, saying what went wrong when it cannot be written."""
    what = f"{shown_name(rel)!r} of commit {commit[:9]}"
    with writing(dest, what):
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise PathClashError(
                f"{what} needs a folder where the tree already has a file; cannot write it",
                shown_name(rel),
            ) from exc
        dest.write_bytes(data)
