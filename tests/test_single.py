# Extracting and explaining a few files of a tree, as the hook does at a first failure
# (errdex.extract.single, errdex.hook._first.explain_at): code in, the sites at the lines asked
# for out, explained as the whole pipeline explains them when the files are all there is.
from __future__ import annotations

import dataclasses
from pathlib import Path

from errdex.explain import explain
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.pipeline import extract
from errdex.extract.single import extract_files
from errdex.hook._first import explain_at
from errdex.model import Snapshot
from tests.conftest import write_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/checks.py": '''
def fail(name: str) -> None:
    """Always raises: a helper."""
    raise ValueError(f"{name} is not allowed")
''',
    "pkg/api.py": '''
from pkg.checks import fail


class Pool:
    """A pool of workers."""

    def __init__(self, size: int, name: str) -> None:
        self.size = size
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        if name == "main":
            fail(name)
        if size > 64:
            raise OverflowError("too many workers")
''',
    "pkg/broken.py": "def f(:\n",
}


def _tree(tmp_path: Path) -> Snapshot:
    write_tree(tmp_path, FILES)
    return Snapshot(package="pkg", version="1.0", root=tmp_path, source=str(tmp_path))


def test_one_file_gives_its_own_sites_and_a_helper_needs_its_file(tmp_path: Path) -> None:
    snapshot = _tree(tmp_path)
    alone = extract_files(snapshot, ["pkg/api.py"])
    assert [(s.kind, s.location.line) for s in alone.sites] == [("raise", 11), ("raise", 15)]
    assert alone.files == alone.parsed == 1 and alone.skipped == ()
    # with the helper's file, the call to it is a site too, its message filled in
    both = extract_files(snapshot, ["pkg/api.py", "pkg/checks.py", "pkg/api.py"])
    helper = [s for s in both.sites if s.kind == "helper"]
    assert [(s.location.file, s.location.line) for s in helper] == [("pkg/api.py", 13)]
    assert helper[0].message is not None and helper[0].message.text == "{name} is not allowed"
    broken = extract_files(snapshot, ["pkg/broken.py", "pkg/missing.py"])
    assert broken.sites == () and [s.path for s in broken.skipped] == [
        "pkg/broken.py",
        "pkg/missing.py",
    ]
    assert broken.skipped[1].reason.startswith("cannot read: ")


def test_the_sites_asked_for_are_explained_as_the_whole_pipeline_does(tmp_path: Path) -> None:
    snapshot = _tree(tmp_path)
    files = ["pkg/api.py", "pkg/checks.py", "pkg/__init__.py", "pkg/broken.py"]
    few = extract_files(snapshot, files)
    asked = explain_at(few, snapshot, [("pkg/api.py", 11), ("pkg/api.py", 13), ("pkg/x.py", 1)])
    assert [(s.location.line, s.kind) for s in asked] == [(11, "raise"), (13, "helper")]
    cache = NoCache()
    whole = explain(extract(snapshot, scan(snapshot, cache), cache), snapshot).sites
    by_id = {s.id: s for s in whole}
    for site in asked:  # the same ids, and the same prose: these files are the whole tree
        mine, theirs = site.explanation, by_id[site.id].explanation
        assert mine is not None and theirs is not None
        # but for a title: made unique among the sites explained, here fewer
        assert theirs.title.startswith(mine.title)
        assert dataclasses.replace(mine, title=theirs.title) == theirs
    assert "size" in asked[0].explanation.when_it_happens  # type: ignore[union-attr]
    assert explain_at(few, snapshot, [("pkg/api.py", 12)]) == ()  # no site on that line
