# The static export, cold and incremental: vllm 0.27.0 exported into an empty folder;
# the same store exported again (nothing changed); vllm 0.28.0 indexed into the store
# and exported over the earlier export (only changed pages rendered) beside the same
# store exported into an empty folder (the anchor). Both folders must end byte-identical.
#
#   python -m benchmarks.bench_export
from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.common import save, table
from errdex.index import index_snapshot
from errdex.sources import resolve
from errdex.store import open_store
from errdex.web.export import MANIFEST, ExportResult, export_site


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(f.relative_to(root)): f.read_bytes()
        for f in sorted(root.rglob("*"))
        if f.is_file() and f.name != MANIFEST
    }


def _size(root: Path) -> int:
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file())


def main() -> None:
    old, new = resolve("pypi:vllm==0.27.0"), resolve("pypi:vllm==0.28.0")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        store = open_store(tmp / "errdex.sqlite")
        index_snapshot(old, store, cache_path=tmp / "facts.sqlite")
        site = tmp / "site"
        cold = export_site(store, site)
        again = export_site(store, site)
        index_snapshot(new, store, cache_path=tmp / "facts.sqlite")
        later = export_site(store, site)
        fresh = export_site(store, tmp / "fresh")
        same = _files(site) == _files(tmp / "fresh")
        megabytes = _size(tmp / "fresh") / 2**20
        store.close()

    def row(what: str, result: ExportResult, anchor: ExportResult | None) -> list[str]:
        rendered = result.files - result.unchanged
        return [
            what,
            f"{result.pages:,}",
            f"{rendered:,} ({result.removed:,} removed)",
            f"{result.seconds:.1f} s",
            "anchor" if anchor is None else f"{result.seconds / anchor.seconds:.2f}",
        ]

    rows = [
        row("vllm 0.27.0, into an empty folder", cold, None),
        row("the same again, nothing changed", again, cold),
        row("0.28.0 added, over the 0.27.0 export", later, fresh),
        row("the same store into an empty folder", fresh, None),
    ]
    save(
        "export.md",
        "One run each (an export of this size takes minutes); the incremental export and a "
        f"fresh one of the same store are byte-identical: {same}; the fresh export holds "
        f"{megabytes:,.0f} MiB.\n\n"
        + table(rows, ["export", "pages", "files written", "wall", "/ anchor"]),
    )


if __name__ == "__main__":
    main()
