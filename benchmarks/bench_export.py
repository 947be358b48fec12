# The static export, cold and incremental: vllm 0.27.0 exported into an empty folder;
# the same store exported again (nothing changed); vllm 0.28.0 indexed into the store
# and exported over the earlier export (only changed pages rendered) beside the same
# store exported into an empty folder (the anchor). Both folders must end byte-identical.
#
#   python -m benchmarks.bench_export
from __future__ import annotations

import resource
import tempfile
from pathlib import Path

from benchmarks.common import save, table
from errdex.index import index_snapshot
from errdex.sources import resolve
from errdex.store import Store, open_store
from errdex.web.export import MANIFEST, ExportResult, export_site


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(f.relative_to(root)): f.read_bytes()
        for f in sorted(root.rglob("*"))
        if f.is_file() and f.name != MANIFEST
    }


def _size(root: Path) -> int:
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file())


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the render workers)."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _export(store: Store, site: Path, cpu: dict[str, float], what: str) -> ExportResult:
    started = _cpu()
    result = export_site(store, site)
    cpu[what] = _cpu() - started
    return result


def main() -> None:
    old, new = resolve("pypi:vllm==0.27.0"), resolve("pypi:vllm==0.28.0")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        store = open_store(tmp / "errdex.sqlite")
        index_snapshot(old, store, cache_path=tmp / "facts.sqlite", pause_gc=True)
        site = tmp / "site"
        cpu: dict[str, float] = {}
        cold = _export(store, site, cpu, "cold")
        again = _export(store, site, cpu, "again")
        index_snapshot(new, store, cache_path=tmp / "facts.sqlite", pause_gc=True)
        later = _export(store, site, cpu, "later")
        fresh = _export(store, tmp / "fresh", cpu, "fresh")
        same = _files(site) == _files(tmp / "fresh")
        megabytes = _size(tmp / "fresh") / 2**20
        store.close()

    def row(what: str, name: str, result: ExportResult, anchor: ExportResult | None) -> list[str]:
        written = result.files - result.unchanged
        return [
            what,
            f"{result.pages:,} ({result.rendered:,} rendered)",
            f"{written:,} ({result.removed:,} removed)",
            f"{result.seconds:.1f} s",
            f"{cpu[name]:.1f} s",
            "anchor" if anchor is None else f"{result.seconds / anchor.seconds:.2f}",
        ]

    rows = [
        row("vllm 0.27.0, into an empty folder", "cold", cold, None),
        row("the same again, nothing changed", "again", again, cold),
        row("0.28.0 added, over the 0.27.0 export", "later", later, fresh),
        row("the same store into an empty folder", "fresh", fresh, None),
    ]
    save(
        "export.md",
        "One run each (an export of this size takes minutes); CPU is user + system seconds of this"
        " process and its render workers; the incremental export and a "
        f"fresh one of the same store are byte-identical: {same}; the fresh export holds "
        f"{megabytes:,.0f} MiB.\n\n"
        + table(rows, ["export", "pages", "files written", "wall", "CPU", "/ anchor"]),
    )


if __name__ == "__main__":
    main()
