# The README's example sessions are the output of a real run: every ```console block
# that follows a "generated" marker holds `$ errdex ...` commands, and this test runs
# each one on vllm 0.28.0 and requires the block to show exactly what it printed
# (durations aside). The blocks run in order on one database, so the first one indexes
# vllm for the rest. To refresh the README after a change in errdex's output:
#
#     ERRDEX_UPDATE_README=1 .venv/bin/python -m pytest tests/test_readme.py
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = "<!-- generated: tests/test_readme.py runs these commands -->"
_BLOCK = re.compile(re.escape(MARKER) + r"\n```console\n(.*?)```", re.S)
# What changes from run to run: durations, and how many files were parsed rather than
# taken from the per-file cache (the README shows a first index, which parses them all).
_VARIES = re.compile(r"\b\d+(?:\.\d+)? s\b|\([\d,]+ parsed\)")


def run(command: str, db: Path) -> str:
    """What `$ command` prints (stdout), with `| head -n N` applied."""
    command, _, head = command.partition(" | head -n ")
    argv = shlex.split(command)
    assert argv[0] == "errdex", command
    env = {**os.environ, "ERRDEX_DB": str(db), "NO_COLOR": "1"}  # the suite's cache dir
    refresh = bool(os.environ.get("ERRDEX_UPDATE_README"))
    extra = ["--no-cache"] if argv[1] == "index" and refresh else []  # as a first index
    done = subprocess.run(
        [sys.executable, "-m", "errdex", *argv[1:], *extra],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    return "\n".join(lines[: int(head)] if head else lines)


def session(block: str, db: Path) -> str:
    """The block as a real run prints it: each command followed by its output."""
    commands = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    return "\n\n".join(f"$ {c}\n{run(c, db)}" for c in commands) + "\n"


@pytest.mark.network
def test_the_readme_examples_are_what_errdex_prints(tmp_path: Path) -> None:
    text = README.read_text()
    blocks = list(_BLOCK.finditer(text))
    assert len(blocks) >= 2
    db = tmp_path / "errdex.sqlite"
    fresh = {m.group(1): session(m.group(1), db) for m in blocks}
    if os.environ.get("ERRDEX_UPDATE_README"):
        README.write_text(
            _BLOCK.sub(lambda m: f"{MARKER}\n```console\n{fresh[m.group(1)]}```", text)
        )
        return
    for shown, real in fresh.items():
        assert _VARIES.sub("…", shown) == _VARIES.sub("…", real)
