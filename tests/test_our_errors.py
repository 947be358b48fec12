# errdex's own errors where the input is too big: `errdex match --file` says the size of
# the file, not of what it read of it; `errdex.lookup(exc)`, called from inside the
# user's `except` block, cuts a huge message or a deep chain of causes (as the hook does)
# instead of raising there. Through a real `python -m errdex` and the public function.
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import errdex
from errdex.match import MAX_INPUT_BYTES
from tests.conftest import write_tree

FILES = {
    "pkg/__init__.py": """
        def check(n):
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
        """,
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("src")
    write_tree(root / "pkg", FILES)
    path = tmp_path_factory.mktemp("db") / "errdex.sqlite"
    done = errdex_cli("index", str(root / "pkg"), "--db", str(path))
    assert done.returncode == 0, done.stderr
    return path


def errdex_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "errdex", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
        timeout=120,
    )


def test_match_of_a_big_file_says_the_size_of_the_file(db: Path, tmp_path: Path) -> None:
    big = tmp_path / "error.log"
    big.write_bytes(b"ValueError: n must be non-negative, got -3\n" * 250_000)  # 10.75 MB
    size = big.stat().st_size
    assert size > 10 * 2**20
    done = errdex_cli("match", "--file", str(big), "--db", str(db))
    assert done.returncode == 1
    assert (
        f"{big}: the text to match is {size:,} bytes, over the 256 KiB cap" in done.stderr.decode()
    )
    as_json = errdex_cli("match", "--file", str(big), "--db", str(db), "--json")
    assert json.loads(as_json.stdout)["error"]["code"] == "too-large"
    piped = errdex_cli("match", "-", "--db", str(db), stdin=big.read_bytes())
    assert piped.returncode == 1
    assert (
        f"standard input: the text to match is more than {MAX_INPUT_BYTES:,} bytes"
        in piped.stderr.decode()
    )


def _check(n: int, padding: str = "") -> None:
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}{padding}")


def test_lookup_of_an_error_with_a_huge_message_cuts_it(db: Path) -> None:
    try:
        _check(-3, "9" * 50_000_000)  # a 50 MB message
    except ValueError as exc:
        found = errdex.lookup(exc, db)
    assert [(m.file, m.exception) for m in found] == [("pkg/__init__.py", "ValueError")]
    assert found[0].values["n"].startswith("-3999")


def test_lookup_of_an_error_with_a_deep_chain_of_causes_cuts_it(db: Path) -> None:
    cause: BaseException = KeyError("the first")
    for depth in range(3000):
        try:
            raise KeyError(f"level {depth}") from cause
        except KeyError as exc:
            cause = exc
    try:
        try:
            raise cause
        except KeyError as exc:
            raise ValueError("n must be non-negative, got -7") from exc
    except ValueError as exc:
        found = errdex.lookup(exc, db)
    assert [(m.exception, m.values) for m in found] == [("ValueError", {"n": "-7"})]
