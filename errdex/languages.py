# Which language a source file is in, by its name alone, for what reads file names but
# no source: the matcher (an indexed file, a pasted traceback's frame) and the hook (a
# frame of the user's process). Light on purpose: the hook asks at the moment of failure.
# - Cython (.pyx, .pxd, .pxi): compiled, but read as Python (extract/cython.py), so its
#   sites are Python's in all but `location.language` ("cython"), and compiled Cython
#   writes its own frames into tracebacks, naming the file as it was compiled;
# - native (C, C++, CUDA, Rust): read with tree-sitter (extract/native/, whose files.py
#   says which language each suffix is); their errors come out of an extension's call.
from __future__ import annotations

__all__ = ["CYTHON_SUFFIXES", "is_cython", "is_native"]

CYTHON_SUFFIXES = (".pyx", ".pxd", ".pxi")
_NATIVE_SUFFIXES = (
    ".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".inl", ".ipp",
    ".cu", ".cuh", ".rs", ".src",
)  # fmt: skip


def is_cython(file: str) -> bool:
    """Whether a file (indexed, or a traceback frame's) is a Cython source."""
    return file.endswith(CYTHON_SUFFIXES)


def is_native(file: str) -> bool:
    """Whether an indexed file is a native source (C, C++, CUDA, Rust)."""
    return file.lower().endswith(_NATIVE_SUFFIXES)
