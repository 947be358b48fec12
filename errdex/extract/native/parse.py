# Read one native file into NativeFacts, or say why it is skipped. Runs in the parse
# workers, beside the Python files. Caps, as for Python files (extract/parse.py):
# - MAX_FILE_BYTES (4 MiB): a bigger file is not read (generated tables, amalgamations);
# - a file with NUL bytes is binary, not source; one that is not UTF-8 is skipped with
#   the offset of its first bad byte (tree-sitter would read it, but its messages could
#   not be shown truly);
# - MAX_SITES sites (a generated file of checks);
# - a condition or message nested over conditions.MAX_DEPTH levels (macros that expand
#   into each other a thousand times): "too deeply nested to analyse".
from __future__ import annotations

from collections.abc import Callable

from errdex.extract.files import MAX_FILE_BYTES, too_big
from errdex.extract.native import cfamily, rust
from errdex.extract.native.conditions import MAX_DEPTH, TooDeep
from errdex.extract.native.facts import NativeFacts
from errdex.extract.native.files import language_of

MAX_SITES = 20_000
# The one place a language is dispatched: each language files.SUFFIXES names, and the
# reader of its files. A new language adds its suffixes there and its reader here.
READERS: dict[str, Callable[[bytes, str], NativeFacts]] = {
    "c": cfamily.reader("c"),
    "cpp": cfamily.reader("cpp"),
    "cuda": cfamily.reader("cuda"),
    "rust": rust.read,
}
_CPP_HINTS = (b"namespace ", b"template <", b"template<", b"std::", b"class ", b"#include <torch")


class NativeSkip(Exception):
    """This native file cannot be read; the message says why."""


def header_language(data: bytes) -> str:
    """A `.h` file is C++ when it shows C++ (a namespace, a template, std::), else C."""
    return "cpp" if any(hint in data for hint in _CPP_HINTS) else "c"


def parse_native(data: bytes, path: str) -> NativeFacts:
    """The facts of a native file's bytes; raises NativeSkip with the reason."""
    language = language_of(path)
    if language is None:
        raise NativeSkip("not a C, C++, CUDA or Rust file")
    if len(data) > MAX_FILE_BYTES:
        raise NativeSkip(too_big(len(data)))
    if b"\0" in data:
        raise NativeSkip("binary data (NUL bytes), not source; not read")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NativeSkip(f"cannot decode: not UTF-8 (byte {exc.start:,})") from None
    if language == "h":
        language = header_language(data)
    try:
        facts = READERS[language](data, path)
    except (TooDeep, RecursionError):
        raise NativeSkip(f"too deeply nested to analyse (over {MAX_DEPTH} levels)") from None
    if len(facts.sites) > MAX_SITES:
        raise NativeSkip(f"{len(facts.sites):,} error sites, over the cap of {MAX_SITES:,}")
    return facts
