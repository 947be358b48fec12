# Native sources of a tree (C, C++, CUDA, Rust): the errors compiled extensions raise
# into Python, read with tree-sitter's grammars, never compiled or run. `scan_native`
# digests the files (no parser imported: an unchanged re-index needs no more);
# `run.start` parses what the facts cache lacks in the index's parse workers, and
# `run.NativeJob.join` links the files and adds their sites to the extraction.
#
#   files.py     which files are the package's own native code, and their language
#   parse.py     one file -> NativeFacts, or the reason it is skipped
#   cfamily.py   C, C++, CUDA: PyErr_*, TORCH_CHECK & co., throw; bindings
#   rust.py      PyO3: new_err, py_err!, an error enum's templates; #[pyfunction]
#   context.py   guards, function, parameters and inputs around a site
#   conditions.py, strings.py, messages.py   expressions, literals and templates
#   classes.py   which Python class each way of failing becomes
#   link.py      facts of every file -> ErrorSites
from __future__ import annotations

from pathlib import Path

from errdex.extract.cache import FactsCache, code_version, digest_walk
from errdex.model import SkippedFile, Snapshot

__all__ = ["NATIVE_VERSION", "facts_key", "scan_native"]

_HERE = Path(__file__).parent
# Cached native facts made by other code (or other grammars) are not reused.
NATIVE_VERSION = "native-" + code_version(
    _HERE, _HERE.parent.parent / "model.py", _HERE.parent.parent / "expr.py"
)


def facts_key(path: str, file_digest: str) -> str:
    from errdex.extract.native.grammar import versions

    return f"{NATIVE_VERSION}:{versions()}:{path}:{file_digest}"


def scan_native(
    snapshot: Snapshot, cache: FactsCache
) -> tuple[list[tuple[str, str]], list[SkippedFile]]:
    """The native files of the snapshot with their digests (unchanged files, same size
    and mtime, not read), and those that cannot be read, with the reason."""
    from errdex.extract.native.files import native_walk

    return digest_walk(snapshot.root, native_walk(snapshot.root, snapshot.code_paths), cache)
