# Sources and extraction on a bad day and against an attacker (issue 11): file names that
# are not UTF-8, FIFOs where files are read, links out of the tree, CR line endings,
# full disks, names too long, a kill -9 in the middle of an index, archive bombs of tiny
# members, versions with `/`, files that would take the memory, and generated or mutated
# modules. Everything is real: files, archives, git repositories, a tmpfs, processes.
from __future__ import annotations

import ast
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from errdex.errors import (
    CacheWriteError,
    NameTooLongError,
    NoSpaceError,
    PathClashError,
    UnsafeArchiveError,
)
from errdex.extract import scan
from errdex.extract.cache import NoCache
from errdex.extract.files import MAX_FILE_BYTES
from errdex.extract.parse import Skip, parse_file
from errdex.extract.pipeline import extract
from errdex.index import index_source
from errdex.model import Snapshot
from errdex.sources import resolve
from errdex.sources.archive import Limits, extract_archive
from errdex.sources.cache import materialise
from errdex.sources.reading import NotRegularFile, read_regular
from errdex.store import open_store
from tests.conftest import run_errdex, write_tree
from tests.fuzz_extract import check_source, mutants
from tests.web_support import running

BAD = b"bad\xff"  # not UTF-8: os.fsdecode makes it "bad\udcff"


def fs(raw: bytes) -> str:
    return os.fsdecode(raw)


def index_dir(root: Path, tmp_path: Path, *extra: str, timeout: float = 120) -> dict[str, object]:
    """`errdex index ROOT --json` into a db under tmp_path; its JSON answer (exit 0)."""
    done = run_errdex(
        "index", str(root), "--db", str(tmp_path / "db.sqlite"), "--json", *extra,
        env={"ERRDEX_CACHE": str(tmp_path / "cache")}, timeout=timeout,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


def skipped_of(answer: dict[str, object]) -> dict[str, str]:
    skipped = answer["skipped"]
    assert isinstance(skipped, list)
    return {entry["path"]: entry["reason"] for entry in skipped}


def no_surrogates(text: str) -> bool:
    return not any("\ud800" <= ch <= "\udfff" for ch in text)


# -- 4. file names that are not UTF-8 ---------------------------------------------------


def test_non_utf8_names_in_a_directory_are_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    (root / fs(b"pkg/" + BAD + b".py")).write_text("raise KeyError('hidden')\n")
    (root / fs(b"pkg/sub" + BAD)).mkdir()
    (root / fs(b"pkg/sub" + BAD + b"/x.py")).write_text("raise KeyError('hidden')\n")
    answer = index_dir(root, tmp_path)
    skipped = skipped_of(answer)
    assert skipped == {
        "pkg/bad\\xff.py": "its name is not valid UTF-8; rename it to index it",
        "pkg/subbad\\xff/x.py": "its name is not valid UTF-8; rename it to index it",
    }
    assert answer["sites"] == 1
    store = open_store(tmp_path / "db.sqlite", create=False)
    try:
        (snap,) = store.snapshots()
        assert {s.path for s in snap.skipped} == set(skipped)
        assert all(no_surrogates(s.path) for s in snap.skipped)
    finally:
        store.close()


def test_non_utf8_name_in_a_tar_member(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar.gz"
    with tarfile.open(archive, "w:gz", encoding="utf-8", errors="surrogateescape") as tf:
        add(tf, "demo-1.0/demo/__init__.py", GOOD.encode())
        add(tf, fs(b"demo-1.0/demo/" + BAD + b".py"), b"raise KeyError('x')\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    extract_archive(archive, tree)
    snapshot = Snapshot(package="demo", version="1.0", root=tree / "demo-1.0", source="t")
    result = extract(snapshot, scan(snapshot, NoCache()), NoCache())
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("demo/bad\\xff.py", "its name is not valid UTF-8; rename it to index it")
    ]
    assert [s.message.text for s in result.sites if s.message] == ["fine"]


def test_non_utf8_name_in_a_git_tree(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    (repo / fs(b"pkg/" + BAD + b".py")).write_text("raise KeyError('x')\n")
    git(repo, "init", "--quiet")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "one")
    store = open_store(tmp_path / "db.sqlite")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
            result = index_source(f"{repo}@HEAD", store)
        assert [s.path for s in result.skipped] == ["pkg/bad\\xff.py"]
        assert len(result.sites) == 1
    finally:
        store.close()


def test_a_test_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": GOOD.replace("fine", "fine value")})
    (root / "tests").mkdir()
    (root / fs(b"tests/test_" + BAD + b".py")).write_text(
        "import pytest\nfrom pkg import check\n\ndef test_it():\n"
        "    with pytest.raises(ValueError, match='fine value'):\n        check(-1)\n"
    )
    answer = index_dir(root, tmp_path)
    assert answer["sites"] == 1


def test_a_root_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / fs(b"proj" + BAD)
    write_tree(root, {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    answer = index_dir(root, tmp_path)
    assert no_surrogates(json.dumps(answer, ensure_ascii=False))
    assert answer["package"] == "projbad-xff"


# -- 5. FIFOs where files are read ----------------------------------------------------------


def test_fifos_where_metadata_and_code_are_read_do_not_hang(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    for name in ("pyproject.toml", "setup.cfg", "PKG-INFO", "pkg/_version.py", "pkg/mod.py"):
        os.mkfifo(root / name)
    answer = index_dir(root, tmp_path, timeout=60)
    assert skipped_of(answer) == {
        "pkg/_version.py": "a FIFO (named pipe), not a regular file; not read",
        "pkg/mod.py": "a FIFO (named pipe), not a regular file; not read",
    }
    assert answer["sites"] == 1


def test_a_file_named_as_a_code_path_that_is_a_fifo(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": ""})
    os.mkfifo(root / "tool.py")
    answer = index_dir(root, tmp_path, "--path", "tool.py", timeout=60)
    assert skipped_of(answer) == {"tool.py": "a FIFO (named pipe), not a regular file; not read"}


def test_read_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(NotRegularFile, match="FIFO"):
        read_regular(fifo)
    assert time.monotonic() - started < 5
    (tmp_path / "plain.py").write_bytes(b"x = 1\n")
    assert read_regular(tmp_path / "plain.py") == b"x = 1\n"


# -- 6. links out of the tree -----------------------------------------------------------------


def test_links_out_of_the_tree_are_not_followed(tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "elsewhere", {
        "json/__init__.py": "raise ValueError('from outside')\n",
        "one.py": "raise ValueError('from outside too')\n",
        "_version.py": "__version__ = '6.6.6'\n",
    })  # fmt: skip
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    (root / "json").symlink_to(outside / "json")  # a top-level "package"
    (root / "pkg/one.py").symlink_to(outside / "one.py")
    (root / "pkg/more").symlink_to(outside / "json")
    (root / "pkg/_version.py").symlink_to(outside / "_version.py")
    answer = index_dir(root, tmp_path)
    assert answer["sites"] == 1
    assert answer["version"] == "0+unknown"  # the linked _version.py was not read
    real = os.path.realpath(outside)
    assert skipped_of(answer) == {
        "json": f"a symbolic link to {real}/json, outside the tree; not followed",
        "pkg/more": f"a symbolic link to {real}/json, outside the tree; not followed",
        "pkg/one.py": f"a symbolic link to {real}/one.py, outside the tree; not followed",
        "pkg/_version.py": f"a symbolic link to {real}/_version.py, outside the tree; not followed",
    }


# -- 10. CR line endings ---------------------------------------------------------------------

CR_SOURCE = b"def check(a, b):\r    if a > b:\r        raise ValueError('too big')\r"


def test_a_file_with_cr_only_line_endings_is_indexed() -> None:
    (site,) = parse_file(CR_SOURCE, "pkg/cr.py", "pkg.cr").sites
    assert (site.location.line, site.guard[0].test) == (3, "a > b")
    (crlf,) = parse_file(CR_SOURCE.replace(b"\r", b"\r\n"), "pkg/cr.py", "pkg.cr").sites
    assert (crlf.location.line, crlf.guard[0].test) == (3, "a > b")


def test_a_lone_cr_among_lf_lines_keeps_lines_and_guards_right() -> None:
    source = b"x = 1\rdef check(limit, n):\n    if n >= limit:\n        raise ValueError(f'{n}')\n"
    facts = parse_file(source, "pkg/m.py", "pkg.m")
    (site,) = facts.sites
    tree = ast.parse(source)
    raise_line = next(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Raise))
    assert site.location.line == raise_line == 4
    assert site.guard[0].test == "n >= limit"
    assert facts.lines == 5  # four lines and the empty one after the last newline


def test_cr_lines_end_to_end_in_the_snippet(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/__init__.py").write_bytes(b"")
    (root / "pkg/cr.py").write_bytes(CR_SOURCE)
    snapshot = Snapshot(package="pkg", version="1", root=root, source=str(root))
    result = extract(snapshot, scan(snapshot, NoCache()), NoCache())
    assert not result.skipped
    (site,) = result.sites
    assert site.snippet is not None
    assert site.snippet.lines[site.location.line - site.snippet.start_line].strip() == (
        "raise ValueError('too big')"
    )


def test_code_python_warns_about_is_indexed_without_a_warning() -> None:
    # found by the fuzzing: under `-W error` (as in this suite) the warning was a
    # SyntaxError and the file skipped; otherwise it was printed during the index
    source = b"def f(n):\n    x = 1()\n    if n:\n        raise ValueError('\\d %s' % n)\n"
    (site,) = parse_file(source, "pkg/w.py", "pkg.w").sites
    assert site.guard[0].test == "n"


# -- 11. full disks, names too long, file/folder clashes --------------------------------


@contextmanager
def small_disk(where: Path, options: str = "size=1m") -> Iterator[Path]:
    """A real tmpfs mounted at `where` with `options` (root only); skips the test otherwise."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a full disk needs a small tmpfs, and mounting one needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); no full disk to test")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


class Files:
    """A PyPI-shaped JSON simple index on loopback that serves `files` for `demo`."""

    def __init__(self, files: dict[str, bytes]) -> None:
        import hashlib

        entries = [
            {"filename": name, "url": f"/files/{name}", "size": len(data),
             "hashes": {"sha256": hashlib.sha256(data).hexdigest()}}
            for name, data in files.items()
        ]  # fmt: skip

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/simple/demo":
                    body = json.dumps({"meta": {"api-version": "1.1"}, "files": entries}).encode()
                elif self.path.startswith("/files/") and self.path[7:] in files:
                    body = files[self.path[7:]]
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def big_sdist(size: int) -> bytes:
    """A demo-1.0 sdist whose one data file holds `size` incompressible bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        add(tf, "demo-1.0/demo/__init__.py", GOOD.encode())
        add(tf, "demo-1.0/demo/blob.bin", os.urandom(size))
    return buffer.getvalue()


def test_a_full_disk_during_a_download_says_so(tmp_path: Path) -> None:
    served = Files({"demo-1.0.tar.gz": big_sdist(3 << 20)})
    try:
        with small_disk(tmp_path / "disk") as disk:
            done = run_errdex(
                "index", "pypi:demo==1.0", "--db", str(tmp_path / "db.sqlite"),
                env={"ERRDEX_CACHE": str(disk / "cache"), "ERRDEX_PYPI_INDEX": served.url},
            )  # fmt: skip
            assert done.returncode not in (0, 70), done.stderr
            assert "no space left on the device" in done.stderr
            assert "bug in errdex" not in done.stderr
            with pytest.raises(NoSpaceError) as caught, pytest.MonkeyPatch.context() as patch:
                patch.setenv("ERRDEX_PYPI_INDEX", served.url)
                resolve("pypi:demo==1.0", cache_dir=disk / "cache")
            assert caught.value.path.is_relative_to(disk)
            assert not [p for p in (disk / "cache/downloads").iterdir() if p.is_file()]
    finally:
        served.close()


def test_a_full_disk_during_extraction_says_so(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar.gz"
    archive.write_bytes(big_sdist(3 << 20))
    with small_disk(tmp_path / "disk") as disk:
        with pytest.raises(NoSpaceError, match="no space left on the device") as caught:
            materialise(disk / "trees" / "demo", lambda tree: extract_archive(archive, tree))
        assert "blob.bin" in str(caught.value)
        assert list((disk / "trees").iterdir()) == []  # the partial tree is gone


def test_a_name_too_long_says_so(tmp_path: Path) -> None:
    archive = tmp_path / "demo-1.0.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tf:
        add(tf, "demo-1.0/" + "n" * 300 + ".py", b"x = 1\n")
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(NameTooLongError, match="too long for the file system"):
        extract_archive(archive, target)


@pytest.mark.parametrize(
    "names",
    [["demo/pkg", "demo/pkg/mod.py"], ["demo/pkg/mod.py", "demo/pkg"]],
    ids=["file-then-folder", "folder-then-file"],
)
def test_a_file_folder_clash_says_so(tmp_path: Path, names: list[str]) -> None:
    for kind in ("tar", "zip"):
        archive = tmp_path / f"demo.{kind}"
        if kind == "tar":
            with tarfile.open(archive, "w") as tf:
                for name in names:
                    add(tf, name, b"x = 1\n")
        else:
            with zipfile.ZipFile(archive, "w") as zf:
                for name in names:
                    zf.writestr(name, "x = 1\n")
        target = tmp_path / f"out-{kind}"
        target.mkdir()
        with pytest.raises(PathClashError, match="demo/pkg"):
            extract_archive(archive, target)


def test_a_read_only_cache_is_a_cache_write_error(tmp_path: Path) -> None:
    archive = tmp_path / "demo.tar"
    with tarfile.open(archive, "w") as tf:
        add(tf, "demo/x.py", b"x = 1\n")
    with (
        small_disk(tmp_path / "disk", "ro,size=1m") as disk,
        pytest.raises(CacheWriteError, match="Read-only file system"),
    ):
        extract_archive(archive, disk)


# -- 12. kill -9 in the middle of an index ------------------------------------------------


def children(pid: int) -> set[int]:
    """The live processes whose parent is `pid`."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
            if fields.get("PPid", "").strip() == str(pid) and not fields["State"].startswith("Z"):
                found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_parse_workers_end_when_the_index_is_killed(tmp_path: Path) -> None:
    body = "".join(f"    if x == {i}:\n        raise ValueError('v{i}')\n" for i in range(400))
    files = {"pkg/__init__.py": ""}
    files.update({f"pkg/m{n}.py": f"def f{n}(x):\n{body}" for n in range(400)})
    root = write_tree(tmp_path / "big", files)
    proc = subprocess.Popen(
        [sys.executable, "-m", "errdex", "index", str(root), "--workers", "2", "--no-cache",
         "--db", str(tmp_path / "db.sqlite")],
        env={**os.environ, "ERRDEX_CACHE": str(tmp_path / "cache")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            workers |= children(proc.pid)
            time.sleep(0.05)
        assert len(workers) >= 2, "the index never started its workers"
        time.sleep(0.5)  # they are parsing now
        workers |= children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 15
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if alive(pid)], "workers outlived the index"
    finally:
        for pid in workers:  # only the processes this test started
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


STALL = """
import sys, time
from pathlib import Path
from errdex.sources.cache import materialise

def fill(tree):
    (tree / "half.py").write_text("x = 1")
    print("filling", flush=True)
    time.sleep(120)

materialise(Path(sys.argv[1]), fill)
"""


def test_a_partial_tree_of_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    trees = tmp_path / "trees"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALL, str(trees / "one")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "filling\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    (left,) = list(trees.iterdir())
    assert (left / "tree/half.py").is_file()  # what kill -9 leaves behind
    root = materialise(trees / "two", touch)
    assert (root / "a.py").is_file()
    assert sorted(p.name for p in trees.iterdir()) == ["two"]  # the next run removed it

    sleeper = subprocess.Popen(["sleep", "60"])
    try:  # a temporary folder of a live process is left alone
        live = trees / left.name.replace(f"-{proc.pid}-", f"-{sleeper.pid}-")
        live.mkdir()
        materialise(trees / "three", touch)
        assert sorted(p.name for p in trees.iterdir()) == sorted([live.name, "three", "two"])
    finally:
        sleeper.kill()
        sleeper.wait()


# -- 13. archive bombs of tiny members ------------------------------------------------------


def test_too_many_members_are_refused_before_any_is_written(tmp_path: Path) -> None:
    limits = Limits(max_members=1_000)
    tar_path, zip_path = tmp_path / "bomb.tar.gz", tmp_path / "bomb.zip"
    with tarfile.open(tar_path, "w:gz") as tf, zipfile.ZipFile(zip_path, "w") as zf:
        for n in range(1_005):
            add(tf, f"bomb/m{n}.py", b"")
            zf.writestr(f"bomb/m{n}.py", b"")
    for archive in (tar_path, zip_path):
        target = tmp_path / f"out-{archive.suffix}"
        target.mkdir()
        with pytest.raises(UnsafeArchiveError, match="more than 1,000 members"):
            extract_archive(archive, target, limits=limits)
        assert list(target.iterdir()) == []


def test_too_many_declared_bytes_are_refused_before_any_is_written(tmp_path: Path) -> None:
    limits = Limits(max_total_bytes=10_000)
    archive = tmp_path / "fat.tar"
    with tarfile.open(archive, "w") as tf:
        for n in range(20):
            add(tf, f"fat/m{n}.py", b"#" * 1_000)
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(UnsafeArchiveError, match="unpacks to more than 10,000 bytes"):
        extract_archive(archive, target, limits=limits)
    assert list(target.iterdir()) == []


# -- 14. versions with `/` ------------------------------------------------------------------


def test_a_version_with_a_slash_gives_links_that_work(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {
        "pyproject.toml": '[project]\nname = "slashy"\nversion = "1.0/feature x"\n',
        "slashy/__init__.py": "", "slashy/core.py": GOOD,
    })  # fmt: skip
    snapshot = resolve(str(root), cache_dir=tmp_path / "cache")
    assert snapshot.version == "1.0-feature-x"
    store = open_store(tmp_path / "db.sqlite")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
            index_source(str(root), store)
        with running(store) as base:
            page = httpx.get(f"{base}/packages/slashy/1.0-feature-x", timeout=30)
            assert page.status_code == 200
            assert "fine" in page.text
    finally:
        store.close()


def test_a_tag_with_a_slash_becomes_a_safe_version(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/core.py": GOOD})
    git(repo, "init", "--quiet")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "one")
    git(repo, "tag", "feature/x")
    snapshot = resolve(f"{repo}@feature/x", cache_dir=tmp_path / "cache")
    assert snapshot.version == "feature-x"
    assert resolve(str(repo), cache_dir=tmp_path / "cache").version == "feature-x"


# -- 15. files that would take the memory -----------------------------------------------


def test_a_file_over_the_size_cap_is_skipped_unread(tmp_path: Path) -> None:
    assert MAX_FILE_BYTES == 4 * 1024 * 1024
    big = b'"""' + b"x" * (5 << 20) + b'"""\n'  # cheap to parse: it must be skipped all the same
    with pytest.raises(Skip, match="over the 4,194,304-byte cap"):
        parse_file(big, "pkg/big.py", "pkg.big")
    root = write_tree(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/good.py": GOOD})
    (root / "pkg/big.py").write_bytes(big)
    answer = index_dir(root, tmp_path)
    assert skipped_of(answer) == {
        "pkg/big.py": f"file is {len(big):,} bytes, over the 4,194,304-byte cap"
    }


def test_a_long_chain_of_guards_is_skipped_quickly() -> None:
    body = "".join(f"    if x == {i}:\n        raise ValueError('bad {i}')\n" for i in range(8000))
    started = time.monotonic()
    with pytest.raises(Skip, match="too many conditions guard its raises"):
        parse_file(f"def f(x):\n{body}".encode(), "pkg/chain.py", "pkg.chain")
    assert time.monotonic() - started < 10  # analysing it took 30 s and 400 MB
    short = "".join(f"    if x == {i}:\n        raise ValueError('bad {i}')\n" for i in range(300))
    assert len(parse_file(f"def f(x):\n{short}".encode(), "pkg/c.py", "pkg.c").sites) == 300


NODES = """
import sys
from errdex.extract.parse import Skip, parse_file
try:
    parse_file(b"x = [" + b"~x," * 520_000 + b"]\\n", "pkg/dense.py", "pkg.dense")
except Skip as exc:
    print(exc)
"""


def test_a_file_with_too_many_nodes_is_skipped() -> None:
    # in a process of its own, so that the 2 million nodes leave no memory behind
    done = subprocess.run(
        [sys.executable, "-c", NODES], capture_output=True, text=True, check=True, timeout=120
    )
    assert "over the cap of 2,000,000" in done.stdout


# -- fuzzing: generated and mutated modules end as sites or a recorded skip ------------


def test_mutated_real_files_never_raise(tmp_path: Path) -> None:
    seeds = sorted(Path(__file__).parent.parent.joinpath("errdex/extract").glob("*.py"))
    tried = 0
    for seed in seeds[:4]:
        for mutant in mutants(seed.read_bytes(), seed=tried, count=8):
            check_source(mutant)
            tried += 1
    assert tried == 32


def test_generated_modules_never_raise(tmp_path: Path) -> None:
    from tests.fuzz_extract import generated_property

    generated_property(max_examples=20)()


# -- helpers -----------------------------------------------------------------------------

GOOD = textwrap.dedent(
    """
    def check(x):
        if x < 0:
            raise ValueError("fine")
    """
)


def touch(tree: Path) -> None:
    (tree / "a.py").write_text("")


def add(tf: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tf.addfile(info, io.BytesIO(data))


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
    }  # fmt: skip
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_fifo_named_like_a_test_file_does_not_hang(tmp_path: Path) -> None:
    from errdex.extract.tests import scan_tests

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_real.py").write_text(
        "import pytest\n\n"
        "def test_it():\n"
        "    with pytest.raises(ValueError, match='bad value given'):\n"
        "        f()\n"
    )
    os.mkfifo(tmp_path / "tests" / "test_pipe.py")
    found = scan_tests(tmp_path)  # returns: the FIFO is passed over, never opened to block
    assert [t.path for t in found] == ["tests/test_real.py"]
