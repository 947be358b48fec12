# Which native source files of a snapshot are its own code, and the language of each.
#
# The same rules as for Python files (errdex/extract/files.py, sources/layout.py): the
# package folders, and beside them the top-level folders that hold the extension's
# sources (vllm's `csrc/` and `rust/`, pydantic-core's `src/`); never tests, docs,
# examples, benchmarks or build output, at the top or any depth; never a vendored
# third-party tree (a folder named so, or a git submodule that `.gitmodules` lists). With
# `--path`, only what lies under the paths given; with `--whole-tree`, every native file.
# A link is never followed; a name that is not UTF-8 or an entry that is not a regular
# file is skipped with its reason, as a Python file is.
from __future__ import annotations

import os
import stat
from pathlib import Path

from errdex.extract.files import BAD_NAME, TEST_DIRS, FileWalk, sorted_entries
from errdex.model import SkippedFile
from errdex.sources.layout import NOT_CODE_DIRS
from errdex.sources.layout import code_paths as default_code_paths
from errdex.sources.reading import is_clean_name, read_regular, shown_name, special_kind

# suffix -> language ("h" files are read as C or C++ by their content, see language_of)
SUFFIXES = {
    ".c": "c",
    ".c.src": "c",  # numpy's templated sources
    ".h.src": "c",
    ".h": "h",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".cpp.src": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".inl": "cpp",
    ".ipp": "cpp",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".rs": "rust",
}
# the languages of native sites (`location.language`); "h" is read as "c" or "cpp"
LANGUAGES = frozenset(SUFFIXES.values()) - {"h"}
# folders of third-party code copied into a tree, and of native build output, at any depth
VENDORED_DIRS = frozenset(
    {
        "third_party", "thirdparty", "third-party", "3rdparty", "vendor", "vendored",
        "_vendor", "external", "extern", "deps", "subprojects", "target",
    }
)  # fmt: skip
# top-level folders that hold no extension sources of the package
_NOT_NATIVE_TOP = frozenset({"benches", "fuzz", "cmake", "docker", "bench"}) | VENDORED_DIRS
_SKIP_ANYWHERE = frozenset({"__pycache__", "node_modules", "site-packages", "benches", "fuzz"})


def language_of(path: str) -> str | None:
    """The language a file is read as by its name ("h" for a header to sniff), or None
    for a file that is no native source."""
    name = path.rpartition("/")[2].lower()
    if name.endswith(".src"):
        return SUFFIXES.get(name[name.rfind(".", 0, len(name) - 4) :])
    dot = name.rfind(".")
    return None if dot < 0 else SUFFIXES.get(name[dot:])


def is_test_name(name: str) -> bool:
    """A native file of tests: test_*.c, *_test.cc, *_tests.rs, tests.rs."""
    stem = name.partition(".")[0]
    return stem.startswith("test_") or stem.endswith(("_test", "_tests")) or stem == "tests"


def native_walk(root: Path, code_paths: tuple[str, ...]) -> FileWalk:
    """The native source files of the tree (relative paths, sorted per folder), the stat
    of each and the entries skipped, by the rules above."""
    base = str(root)
    vendored = _submodules(root)
    out = FileWalk()
    if not code_paths:  # --whole-tree: every native file
        _walk(base, base, "", out, vendored, whole=True)
        return out
    starts = list(code_paths)
    if set(code_paths) >= set(default_code_paths(root)):  # the default package code
        starts += [top for top in _native_tops(base) if top not in starts]
    seen: set[str] = set()
    for start in sorted(starts):
        rel = start.strip("/")
        full = os.path.join(base, rel)
        found = FileWalk()
        if os.path.isdir(full) and not os.path.islink(full):
            _walk(base, full, rel, found, vendored, whole=False)
        for path, stat_result in zip(found.paths, found.stats, strict=True):
            if path not in seen:
                seen.add(path)
                out.paths.append(path)
                out.stats.append(stat_result)
        out.skipped.extend(s for s in found.skipped if s.path not in seen)
    return out


def _native_tops(base: str) -> list[str]:
    """Top-level folders that may hold extension sources: not hidden, not code around
    the package (tests, docs, tools, ...), not vendored."""
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    return [
        e.name
        for e in entries
        if not e.name.startswith(".")
        and e.is_dir(follow_symlinks=False)
        and e.name.lower() not in NOT_CODE_DIRS
        and e.name.lower() not in _NOT_NATIVE_TOP
        and not e.name.endswith(".egg-info")
    ]


def _submodules(root: Path) -> frozenset[str]:
    """The paths `.gitmodules` names: git submodules, someone else's code."""
    try:
        data = read_regular(root / ".gitmodules", 256 * 1024)
    except OSError:
        return frozenset()
    out = set()
    for line in data.decode("utf-8", "replace").splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key.strip() == "path" and value.strip():
            out.add(value.strip().strip("/"))
    return frozenset(out)


def _walk(
    root: str, folder: str, rel: str, out: FileWalk, vendored: frozenset[str], *, whole: bool
) -> None:
    prefix = f"{rel}/" if rel else ""
    for entry in sorted_entries(folder):
        name = entry.name
        path = prefix + name
        if name.startswith(".") or entry.is_symlink():
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                lowered = name.lower()
                if path in vendored or (
                    not whole
                    and (
                        lowered in TEST_DIRS
                        or lowered in VENDORED_DIRS
                        or lowered in _SKIP_ANYWHERE
                        or lowered in ("examples", "example", "docs", "doc", "benchmarks")
                    )
                ):
                    continue
                _walk(root, entry.path, path, out, vendored, whole=whole)
            elif language_of(name) is not None and (whole or not is_test_name(name)):
                _take(entry, path, out)
        except OSError as exc:
            out.skipped.append(
                SkippedFile(path=shown_name(path), reason=f"cannot read: {exc.strerror}")
            )


def _take(entry: os.DirEntry[str], rel: str, out: FileWalk) -> None:
    if not is_clean_name(rel):
        out.skipped.append(SkippedFile(path=shown_name(rel), reason=BAD_NAME))
        return
    stat_result = entry.stat(follow_symlinks=False)
    if stat.S_ISREG(stat_result.st_mode):
        out.paths.append(rel)
        out.stats.append(stat_result)
    else:
        kind = special_kind(stat_result.st_mode)
        out.skipped.append(
            SkippedFile(path=shown_name(rel), reason=f"{kind}, not a regular file; not read")
        )
