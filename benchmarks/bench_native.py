# What reading native sources costs: a cold index of vllm 0.28.0's sdist with its C, C++,
# CUDA and Rust sources beside the same cold index of its Python files only
# (`--no-native`), run after run in turn, medians; and how many of the TORCH_CHECK and
# STD_TORCH_CHECK calls in csrc/ are sites, beside a plain count of the calls (a regex
# over the C, C++ and CUDA files, by line; a macro's `#define` name is no call).
from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.common import Timing, as_installed, median, run_timed, save, table
from errdex.extract.native.files import LANGUAGES, language_of
from errdex.sources import resolve
from errdex.store import open_store

RUNS = 3
TARGET = 1.3  # the cold index with native sources may cost this many Python-only ones
_CALL = re.compile(r"\b(?:STD_)?TORCH_CHECK\w*\(")
_DEFINED = re.compile(r"#\s*define\s+(?:STD_)?TORCH_CHECK\w*\(")


def main() -> None:
    as_installed()
    cached = resolve("pypi:vllm==0.28.0").root
    errdex = [sys.executable, "-m", "errdex"]
    both: list[Timing] = []
    python: list[Timing] = []
    summary: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as scratch:
        # a copy of its own: the shared cache's tree may be refreshed while the runs last
        root = Path(scratch) / "tree" / cached.name
        shutil.copytree(cached, root, symlinks=True)
        kept = Path(scratch) / "kept.sqlite"
        for run in range(RUNS):
            for with_native_sources, timings in ((True, both), (False, python)):
                tag = f"{run}-{with_native_sources}"
                cache = Path(scratch) / f"cache-{tag}"
                first = with_native_sources and run == 0
                db = kept if first else Path(scratch) / f"db-{tag}.sqlite"
                command = [*errdex, "index", str(root), "--db", str(db)]
                if not with_native_sources:
                    command.append("--no-native")
                timings.append(run_timed(command, env={"ERRDEX_CACHE": str(cache), "CI": "1"}))
        with_native, python_only = _median(both), _median(python)
        store = open_store(kept)
        sites = [r.site for r in store.iter_records()]
        store.close()
        plain = sum(torch_check_calls(root).values())
    native = [s for s in sites if s.location.language in LANGUAGES]
    by_language = Counter(s.location.language for s in native)
    checks = sum(1 for s in native if s.location.file.startswith("csrc/") and _is_check(s))
    summary = {
        "cold_with_native_s": round(with_native.seconds, 2),
        "cold_python_only_s": round(python_only.seconds, 2),
        "ratio": round(with_native.seconds / python_only.seconds, 3),
        "cpu_with_native_s": round(with_native.cpu, 2),
        "cpu_python_only_s": round(python_only.cpu, 2),
        "native_sites": dict(sorted(by_language.items())),
        "torch_check_sites": checks,
        "torch_check_calls_plain": plain,
    }
    rows = [
        [
            "cold index (s)",
            f"{with_native.seconds:.2f}",
            f"{python_only.seconds:.2f}",
            f"{with_native.seconds / python_only.seconds:.2f} (target ≤ {TARGET})",
        ],
        [
            "its CPU, every process and thread (s)",
            f"{with_native.cpu:.2f}",
            f"{python_only.cpu:.2f}",
            f"{with_native.cpu / python_only.cpu:.2f}",
        ],
        [
            "peak memory, largest process (MiB)",
            f"{with_native.peak / 1024:.0f}",
            f"{python_only.peak / 1024:.0f}",
            f"{with_native.peak / python_only.peak:.2f}",
        ],
    ]
    counts = ", ".join(f"{language} {n:,}" for language, n in sorted(by_language.items()))
    save(
        "native.md",
        f"vllm 0.28.0 sdist, default package code; medians of {RUNS} cold runs each, in turn\n\n"
        + table(rows, ["measure", "with native sources", "Python only", "ratio"])
        + f"\n\nnative sites: {counts}\n"
        + f"TORCH_CHECK*( and STD_TORCH_CHECK*( calls in csrc/: {checks:,} sites; "
        + f"a plain count of the calls (regex, by line): {plain:,}\n\n"
        + "```json\n"
        + json.dumps(summary, indent=2)
        + "\n```",
    )


def _median(runs: list[Timing]) -> Timing:
    return Timing(
        median([r.seconds for r in runs]),
        int(median([r.peak for r in runs])),
        median([r.cpu for r in runs]),
    )


def _is_check(site: object) -> bool:
    """A site made by a TORCH_CHECK-family call: its first line names one."""
    snippet = site.snippet  # type: ignore[attr-defined]
    line = site.location.line  # type: ignore[attr-defined]
    text = snippet.lines[line - snippet.start_line] if snippet.lines else ""
    return _CALL.search(text) is not None


def torch_check_calls(root: Path) -> Counter[tuple[str, int]]:
    """The plain count: `TORCH_CHECK*(` and `STD_TORCH_CHECK*(` in the C, C++ and CUDA
    files under csrc/, by file and line."""
    found: Counter[tuple[str, int]] = Counter()
    for path in sorted((root / "csrc").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or language_of(rel) in (None, "rust"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").split("\n"), 1):
            calls = len(_CALL.findall(line)) - len(_DEFINED.findall(line))
            if calls:
                found[(rel, number)] += calls
    return found


if __name__ == "__main__":
    main()
