# Call paths of native sites (C, C++, CUDA, Rust): extract found the native callers from
# a function Python can call (`torch.ops._C.rms_norm`, a `#[pyfunction]`) down to the
# check; this adds the package's Python functions that call that name, so a site's
# paths read from the public function a user calls to the kernel that refused.
from __future__ import annotations

from errdex.extract import Extraction
from errdex.extract.native.files import LANGUAGES
from errdex.model import ErrorSite

Paths = tuple[tuple[str, ...], ...]


def is_native(site: ErrorSite) -> bool:
    """A site of a C, C++, CUDA or Rust file. Its inputs are the native function's
    parameters: their names say nothing of the package's Python settings (a kernel's
    `block_size` is no `--block-size`), so explain looks up no constants, access or
    knobs for them. (A Cython site is no native one: it is read as Python.)"""
    return site.location.language in LANGUAGES


_MAX_CALLERS = 3


def native_paths(
    extraction: Extraction, sites: tuple[ErrorSite, ...], paths: list[Paths]
) -> list[Paths]:
    """`paths` (one entry per site, in order) with each native site's call paths: the
    native ones extract found, each followed by the Python functions that call the
    bound name (`vllm._custom_ops.rms_norm` for `torch.ops._C.rms_norm`)."""
    if not extraction.native_reach:
        return paths
    reached = dict(extraction.native_reach)
    python_callers = _python_callers(extraction, {p[-1] for ps in reached.values() for p in ps})
    out = list(paths)
    for number, site in enumerate(sites):
        found = reached.get(site.id)
        if found is None:
            continue
        longer: list[tuple[str, ...]] = []
        for path in found:
            callers = python_callers.get(path[-1], [])
            longer.extend((*path, caller) for caller in callers[:_MAX_CALLERS])
            if not callers:
                longer.append(path)
        out[number] = tuple(longer)
    return out


def _python_callers(extraction: Extraction, names: set[str]) -> dict[str, list[str]]:
    """For each name Python calls a native function by, the package's functions that call
    it as written (`torch.ops._C.x`; an op's library named by a build macro matches any)."""
    by_op: dict[str, list[str]] = {}
    for name in names:
        by_op.setdefault(name.rsplit(".", 1)[-1], []).append(name)
    out: dict[str, list[str]] = {}
    for facts in extraction.facts:
        for call in facts.calls:
            callee = call.callee
            for name in by_op.get(callee.rsplit(".", 1)[-1], ()):
                if _same(callee, name):
                    caller = f"{facts.module}.{call.function}" if facts.module else call.function
                    found = out.setdefault(name, [])
                    if caller not in found:
                        found.append(caller)
    return out


def _same(callee: str, bound: str) -> bool:
    if callee == bound:
        return True
    if bound.startswith("torch.ops.") and callee.startswith("torch.ops."):
        library = bound.split(".")[2]
        return not library.isidentifier() or library == "TORCH_EXTENSION_NAME"
    return callee.endswith("." + bound) or bound.endswith("." + callee)
