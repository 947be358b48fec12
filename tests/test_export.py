# `errdex export`: the static site written to a folder, with the server's URLs, JSON twins,
# a search index, a sitemap, and nothing written outside the folder whatever the names.
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from errdex.codec import record_to_json
from errdex.index import index_snapshot
from errdex.model import ErrorSite, ExceptionRef, Location, Message, Snapshot, Snippet, Text
from errdex.store import open_store
from errdex.web.export import MANIFEST, ExportError, _Writer, export_site
from tests.web_support import COMMIT, REPO, index_evil


def test_export_writes_the_site(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    result = export_site(store, out, base_url="https://errors.example.org/")
    records = store.list_records()
    assert result.errors == len(records) == 4
    assert result.pages == 1 + 1 + 4 + 1  # home, package, errors, search
    assert (out / "index.html").is_file() and (out / "404.html").is_file()
    assert (out / "packages/evil/1.0/index.html").is_file()
    assert json.loads((out / "api/packages.json").read_text())["sites"] == 4
    listing = json.loads((out / "api/packages/evil/1.0/errors.json").read_text())
    assert len(listing["errors"]) == 4
    for record in map(record_to_json, records):
        page = (out / "errors" / record["id"] / "index.html").read_text()
        assert "<script>alert" not in page
        assert re.search(r"<title>[^<]+ in evil 1\.0 · errdex</title>", page)
        assert '<meta name="description" content="' in page
        assert f'href="../../api/errors/{record["id"]}.json"' in page  # relative: file:// too
        twin = json.loads((out / "api/errors" / f"{record['id']}.json").read_text())
        stored = store.get(record["id"])
        assert stored is not None and twin == record_to_json(stored)
    index = json.loads((out / "search-index.json").read_text())
    assert len(index["rows"]) == 4 and index["fields"][0] == "id"
    sitemap = (out / "sitemap.xml").read_text()
    assert "<loc>https://errors.example.org/errors/" in sitemap
    assert sitemap.count("<url>") == result.pages
    assert (out / "static/app.js").is_file() and (out / "static/style.css").is_file()
    assert 'data-static="1"' in (out / "search/index.html").read_text()
    store.close()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(f.relative_to(root)): f.read_bytes()
        for f in sorted(root.rglob("*"))
        if f.is_file() and f.name != MANIFEST
    }


def test_export_again_renders_only_what_changed(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    first = export_site(store, out)
    assert first.unchanged == 0 and first.removed == 0
    again = export_site(store, out)
    assert again.files == again.unchanged == first.files and again.removed == 0
    times = {f: f.stat().st_mtime_ns for f in out.rglob("*.html")}
    # a new version of the same snapshot: one message reworded, the TypeError gone
    config = tmp_path / "src" / "evil" / "config.py"
    text = config.read_text()
    text = text.replace("is too short", "is far too short")
    text = text.replace("port must be non-negative", "port must be zero or more")
    text = text.replace('raise TypeError(f"config file must end with .toml: {path}")', "pass")
    config.write_text(text)
    tree = tmp_path / "src"
    snapshot = Snapshot(
        package="evil",
        version="1.0",
        root=tree,
        source=str(tree),
        repo_url=REPO,
        commit=COMMIT,
        date="2024-05-01",
        code_paths=("evil",),
    )
    index_snapshot(snapshot, store, cache_path=None, workers=1)
    later = export_site(store, out)
    assert later.removed >= 2  # the TypeError's page and its JSON twin
    assert 0 < later.unchanged < later.files
    # what an export made from scratch would hold, byte for byte
    fresh = export_site(store, tmp_path / "fresh")
    assert _tree(out) == _tree(tmp_path / "fresh") and fresh.unchanged == 0
    kept = [f for f, mtime in times.items() if f.exists() and f.stat().st_mtime_ns == mtime]
    assert kept and len(kept) < len(times)  # some pages were not rewritten, some were
    store.close()


def test_pages_rendered_in_worker_processes_are_the_same(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    here = export_site(store, tmp_path / "here", workers=1)
    there = export_site(store, tmp_path / "there", workers=2)
    assert (here.pages, here.files) == (there.pages, there.files)
    assert _tree(tmp_path / "here") == _tree(tmp_path / "there")
    store.close()


def test_a_hostile_manifest_removes_nothing_outside(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "link").symlink_to(tmp_path)
    names = ["../victim.txt", "/etc/hostname", "link/victim.txt", "x/../../victim.txt"]
    (out / MANIFEST).write_text(json.dumps({"format": 1, "files": dict.fromkeys(names, "k")}))
    export_site(store, out)
    assert victim.read_text() == "keep me"
    for unreadable in ("{not json", "[1, 2]", "7", '{"format": 1, "files": []}'):
        (out / MANIFEST).write_text(unreadable)  # not ours to read: a full export, no error
        assert export_site(store, out).unchanged == 0
    store.close()


def test_export_never_writes_outside_its_folder(tmp_path: Path) -> None:
    snapshot = Snapshot(package="../../escaped", version="../../../v", root=tmp_path, source="x")
    site = ErrorSite(
        id="0123456789abcdef",
        kind="raise",
        exception=ExceptionRef(name="ValueError", qualname="builtins.ValueError"),
        message=Message(parts=(Text(text="<b>hi</b>"),)),
        location=Location(file="../x.py", line=1, end_line=1, function="f"),
        snippet=Snippet(start_line=1, lines=("raise ValueError('<b>hi</b>')",)),
    )
    with open_store(tmp_path / "db.sqlite") as store:
        store.write_snapshot(
            snapshot,
            [site],
            files=1,
            skipped=[],
            tree_hash="h",
            extractor="x",
        )
        export_site(store, tmp_path / "out" / "site")
    written = {p for p in tmp_path.rglob("*") if p.is_file()}
    outside = {p for p in written if not p.is_relative_to(tmp_path / "out" / "site")}
    assert outside == {tmp_path / "db.sqlite"} | {
        p for p in outside if p.name.startswith("db.sqlite-")
    }
    assert (tmp_path / "out/site/packages/..%2F..%2Fescaped/..%2F..%2F..%2Fv/index.html").is_file()


def test_writer_refuses_paths_that_climb_out(tmp_path: Path) -> None:
    writer = _Writer(tmp_path / "site")
    for parts in (["..", "x"], ["a", "..", "..", "x"], ["/etc/passwd"]):
        with pytest.raises(ExportError, match="outside"):
            writer.write(parts, "x")


def test_export_into_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with open_store(tmp_path / "db.sqlite") as store, pytest.raises(ExportError, match="file"):
        export_site(store, target)
