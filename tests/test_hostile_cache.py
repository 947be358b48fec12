# The caches as an attacker finds them: whoever can write the per-file cache
# (facts.sqlite: a CI cache restored from another branch, a shared ERRDEX_CACHE) must not
# run code as the next user who indexes, and a cached PyPI tree must be the one made
# from the archive its pin records. Each through a real `python -m errdex` process.
from __future__ import annotations

import json
import os
import pickle
import sqlite3
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.conftest import run_errdex, write_tree


def errdex(*args: str, cache: Path, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {"ERRDEX_CACHE": str(cache), "NO_COLOR": "1"}
    return run_errdex(*args, env=env, timeout=300, umask=-1 if umask is None else umask)


class Payload:
    """What an attacker plants: unpickling it makes the folder `made` (that is all it
    does, so that the test can tell whether it ran)."""

    def __init__(self, made: Path) -> None:
        self.made = made

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.mkdir, (str(self.made),))


def plant(facts: Path, made: Path) -> dict[str, int]:
    """Replace every entry of the cache at `facts` with the payload, packed the way each
    kind of entry used to be (facts zlib-compressed, test scans and prose as they are),
    and beside it one in errdex's own format naming a class that is not errdex's."""
    payload = pickle.dumps(Payload(made))
    foreign = json.dumps({"os.system": [f"mkdir {made}"]}).encode()
    with sqlite3.connect(facts) as db:
        keys = [key for (key,) in db.execute("SELECT key FROM facts")]
        for number, key in enumerate(keys):
            if number % 2:
                body = foreign if key.startswith("tests:") else zlib.compress(foreign)
                data = b"errdex-data/1\n" + body
            else:
                data = payload if key.startswith("tests:") else zlib.compress(payload)
            db.execute("UPDATE facts SET data = ? WHERE key = ?", (data, key))
        sites = db.execute("SELECT count(*) FROM site_prose").fetchone()[0]
        db.execute("UPDATE site_prose SET data = ?", (payload,))
    return {"facts": len(keys), "prose": sites}


def test_a_payload_planted_in_the_facts_cache_never_runs_and_is_a_miss(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = errdex(
        "index", "installed:packaging", "--db", str(tmp_path / "a.sqlite"), "--json", cache=cache
    )
    assert first.returncode == 0, first.stderr
    indexed = json.loads(first.stdout)
    assert indexed["parsed"] == indexed["files"] > 10
    made = tmp_path / "payload-ran"
    planted = plant(cache / "facts.sqlite", made)
    assert planted["facts"] > indexed["files"] and planted["prose"] > 50  # test scans too

    again = errdex(
        "index", "installed:packaging", "--db", str(tmp_path / "b.sqlite"), "--json", cache=cache
    )
    assert again.returncode == 0, again.stderr
    assert not made.exists(), "the planted payload ran"
    redone = json.loads(again.stdout)
    # every planted entry was a miss: each file parsed again, each site explained afresh
    assert redone["parsed"] == redone["files"] == indexed["files"]
    assert redone["explanations_reused"] == 0
    assert redone["sites"] == indexed["sites"]
    # and what was kept in their place is read back on the next index
    third = errdex(
        "index", "installed:packaging", "--db", str(tmp_path / "c.sqlite"), "--json", cache=cache
    )
    assert not made.exists()
    kept = json.loads(third.stdout)
    assert kept["parsed"] == 0 and kept["explanations_reused"] == kept["sites"]


def test_the_cache_folder_is_made_private_whatever_the_umask(tmp_path: Path) -> None:
    write_tree(tmp_path / "src" / "pkg", {"__init__.py": "raise ValueError('x')\n"})
    cache = tmp_path / "new" / "cache"
    done = errdex(
        "index", str(tmp_path / "src"), "--db", str(tmp_path / "db.sqlite"), cache=cache, umask=0
    )
    assert done.returncode == 0, done.stderr
    assert (cache / "facts.sqlite").is_file()
    assert cache.stat().st_mode & 0o777 == 0o700


@pytest.fixture
def demo_index(monkeypatch: pytest.MonkeyPatch) -> object:
    from tests.test_sources import Index, sdist

    served = Index()
    served.add("demo", "demo-1.0.tar.gz", sdist("demo", "1.0"))
    monkeypatch.setenv("ERRDEX_PYPI_INDEX", served.url)
    yield served
    served.close()


def _messages(db: Path, cache: Path) -> list[str]:
    listed = errdex("list", "--db", str(db), "--json", cache=cache)
    assert listed.returncode == 0, listed.stderr
    return [r["message"]["text"] for r in json.loads(listed.stdout) if r["message"]]


def test_a_tree_not_made_from_the_pinned_archive_is_made_again(
    demo_index: object, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = errdex("index", "pypi:demo==1.0", "--db", str(tmp_path / "a.sqlite"), cache=cache)
    assert first.returncode == 0, first.stderr
    (tree,) = (cache / "trees").iterdir()
    pin = json.loads((cache / "downloads" / "resolved" / "demo==1.0.json").read_text())
    assert tree.name == pin["sha256"][:16]
    # a tree of one's own under the pinned archive's folder, with a marker as errdex
    # wrote them before, and then with one naming the archive but not this tree
    own = tree / "tree" / "demo-1.0" / "demo" / "__init__.py"
    for marker in ({"root": "demo-1.0"}, json.loads((tree / "complete.json").read_text())):
        own.write_text("raise ValueError('planted by someone else')\n")
        (tree / "complete.json").write_text(json.dumps(marker))
        db = tmp_path / f"b{len(marker)}.sqlite"
        again = errdex("index", "pypi:demo==1.0", "--db", str(db), cache=cache)
        assert again.returncode == 0, again.stderr
        assert "planted by someone else" not in " ".join(_messages(db, cache))
        assert own.read_text() == ""  # unpacked again from the archive
        assert json.loads((tree / "complete.json").read_text())["origin"] == pin["sha256"]
