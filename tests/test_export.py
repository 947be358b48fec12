# `errdex export`: the static site written to a folder, with the server's URLs, JSON twins,
# a search index, a sitemap, and nothing written outside the folder whatever the names.
from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from errdex.codec import record_to_json
from errdex.index import index_snapshot
from errdex.model import ErrorSite, ExceptionRef, Location, Message, Snapshot, Snippet, Text
from errdex.sources import resolve
from errdex.store import open_store
from errdex.web.export import MANIFEST, ExportError, _check, _Writer, export_site
from tests.conftest import TEST_CACHE, require_pypi
from tests.web_support import COMMIT, REPO, index_evil

network = pytest.mark.network


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


def _mtimes(root: Path) -> dict[str, int]:
    return {
        str(f.relative_to(root)): f.stat().st_mtime_ns
        for f in root.rglob("*")
        if f.is_file() and f.name != MANIFEST
    }


@network
def test_a_reworded_message_rewrites_only_the_pages_that_show_it(tmp_path: Path) -> None:
    require_pypi("pypi:idna==3.7")
    release = resolve("pypi:idna==3.7", cache_dir=TEST_CACHE)
    store = open_store(tmp_path / "errdex.sqlite")
    index_snapshot(release, store, cache_path=None, workers=1)
    out = tmp_path / "site"
    first = export_site(store, out, workers=2)
    before, times = _tree(out), _mtimes(out)
    again = export_site(store, out, workers=2)
    assert again.rendered == 0 and again.files == again.unchanged == first.files
    assert _mtimes(out) == times and _tree(out) == before  # not one file written
    # The same release with one message reworded: a new id for that error, the related
    # links of its neighbours, the package page and the search index change.
    edited = tmp_path / "idna-edited"
    shutil.copytree(release.root, edited)
    core = edited / "idna" / "core.py"
    old_message = "Label must be in Normalization Form C"
    assert core.read_text().count(old_message) == 1
    core.write_text(core.read_text().replace(old_message, "Label is not in Normalization Form C"))
    gone = {record.id for record in store.find_by_message(old_message)}
    index_snapshot(replace(release, root=edited), store, cache_path=None, workers=1)
    later = export_site(store, out, workers=2)
    after = _tree(out)
    changed = {name for name, data in after.items() if before.get(name) != data}
    rewritten = {name for name, mtime in _mtimes(out).items() if times.get(name) != mtime}
    assert rewritten == changed  # each file whose bytes changed, and no other
    assert later.files - later.unchanged == len(changed)
    removed = set(before) - set(after)
    pages = [f"errors/{i}/index.html" for i in gone] + [f"api/errors/{i}.json" for i in gone]
    assert removed == set(pages)
    assert later.removed == len(removed) == 2
    assert {"packages/idna/3.7/index.html", "search-index.json"} <= changed
    assert len(changed) < len(after) / 4 and later.rendered < later.pages / 4, len(changed)
    fresh = export_site(store, tmp_path / "fresh", workers=1)
    assert _tree(tmp_path / "fresh") == after and fresh.unchanged == 0
    assert later.bytes == fresh.bytes == sum(len(data) for data in after.values())
    store.close()


def test_pages_rendered_in_worker_processes_are_the_same(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    here = export_site(store, tmp_path / "here", workers=1)
    there = export_site(store, tmp_path / "there", workers=2)
    assert (here.pages, here.files) == (there.pages, there.files)
    assert _tree(tmp_path / "here") == _tree(tmp_path / "there")
    store.close()


def test_workers_open_a_store_named_by_a_relative_path_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the workers build the error and package pages over the store opened again there
    index_evil(tmp_path / "src", tmp_path / "errdex.sqlite").close()
    monkeypatch.chdir(tmp_path)
    store = open_store("errdex.sqlite", create=False)
    here = export_site(store, "here", workers=1)
    there = export_site(store, "there", workers=2)
    assert there.rendered == there.pages == here.pages == 7
    assert _tree(tmp_path / "here") == _tree(tmp_path / "there")
    store.close()


def _manifest(out: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((out / MANIFEST).read_text())
    return found


def _signed(fields: dict[str, Any]) -> str:
    """A manifest whose check is right: what someone who read the code could write."""
    return json.dumps({**fields, "check": _check(fields)})


def test_a_hostile_manifest_removes_nothing_outside(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    export_site(store, out)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "link").symlink_to(tmp_path)
    fields = _manifest(out)
    del fields["check"]
    climbing = ["../victim.txt", "/etc/hostname", "x/../../victim.txt"]
    for name in [*climbing, "link/victim.txt"]:
        (out / MANIFEST).write_text(
            _signed({**fields, "files": {**fields["files"], name: ["k", 7, 0]}})
        )
        again = export_site(store, out)
        assert victim.read_text() == "keep me" and Path("/etc/hostname").exists()
        assert again.removed == 0
    # A name that climbs is refused whole; one through a link inside is only not removed.
    assert again.note is None and "link/victim.txt" not in _manifest(out)["files"]
    store.close()


def test_a_malformed_or_edited_manifest_is_not_trusted(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    export_site(store, out)
    fields = _manifest(out)
    page = out / "errors" / store.site_ids()[0] / "index.html"
    stale = out / "errors" / "0000000000000000" / "index.html"  # not in the manifest
    stale.parent.mkdir()
    stale.write_text("not made by this export")
    edited = {
        **fields,
        "pages": {url: ["forged", *rest] for url, (_, *rest) in fields["pages"].items()},
    }
    for text, problem in [
        ("{not json", "malformed"),
        ("[1, 2]", "malformed"),
        ('{"format": 2, "files": []}', "malformed"),
        (json.dumps({**fields, "format": 1}), "another format"),
        (json.dumps(edited), "does not match its own check"),
    ]:
        (out / MANIFEST).write_text(text)
        page.write_text(page.read_text().replace("</main>", "forged</main>"))
        again = export_site(store, out)
        # every page built and compared with its file: only the edited page is written,
        # and nothing is removed, since no trusted manifest says what was ours
        assert again.note is not None and problem in again.note, (text, again.note)
        assert again.rendered == again.pages and again.removed == 0
        assert again.files - again.unchanged == 1 and "forged" not in page.read_text()
        assert stale.is_file()
    store.close()


def test_a_file_edited_after_the_export_is_made_again(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    out = tmp_path / "site"
    export_site(store, out)
    made = _tree(out)
    twin = out / "api/errors" / f"{store.site_ids()[0]}.json"
    twin.write_text(twin.read_text().replace('"', "'"))  # same size, other bytes
    (out / "static/app.js").unlink()
    again = export_site(store, out)
    assert again.note is None and again.files - again.unchanged == 2
    assert _tree(out) == made
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


def test_a_link_in_the_export_folder_is_not_written_through(tmp_path: Path) -> None:
    store = index_evil(tmp_path / "src", tmp_path / "errdex.sqlite")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for link in ("static", "robots.txt"):
        out = tmp_path / f"site-{link}"
        export_site(store, out)
        target = out / link
        shutil.rmtree(target) if target.is_dir() else target.unlink()
        target.symlink_to(elsewhere / link)
        if link == "static":
            (elsewhere / link).mkdir()
        with pytest.raises(ExportError, match="outside"):
            export_site(store, out)
        assert not any(p.is_file() for p in elsewhere.rglob("*"))
    store.close()


def test_export_into_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with open_store(tmp_path / "db.sqlite") as store, pytest.raises(ExportError, match="file"):
        export_site(store, target)
