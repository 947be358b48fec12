# The tree-sitter grammars native files are read with (the wheels on PyPI), one parser per
# language per process, made on first use. CUDA files are read with tree-sitter-cuda, a
# C++ grammar that also knows `__global__`, `<<<...>>>` launches and the like: on vllm's
# 169 .cu/.cuh files the C++ grammar leaves errors in 121 of them (1,814 error nodes),
# the CUDA one in 55 (526), and parses faster.
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from tree_sitter import Language, Parser, Tree

_MODULES = {
    "c": "tree_sitter_c",
    "cpp": "tree_sitter_cpp",
    "cuda": "tree_sitter_cuda",
    "rust": "tree_sitter_rust",
}
_PARSERS: dict[str, Parser] = {}


def parse(language: str, data: bytes) -> Tree:
    """The syntax tree of `data` in `language` ("c", "cpp", "cuda" or "rust")."""
    parser = _PARSERS.get(language)
    if parser is None:
        module = __import__(_MODULES[language])
        parser = _PARSERS[language] = Parser(Language(module.language()))
    return parser.parse(data)


def versions() -> str:
    """The versions of the grammars installed: part of what cached facts depend on."""
    out = []
    for module in ("tree_sitter", *_MODULES.values()):
        try:
            out.append(f"{module}={version(module.replace('_', '-'))}")
        except PackageNotFoundError:
            out.append(f"{module}=?")
    return ",".join(out)
