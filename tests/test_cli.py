# The command line as a careful user meets it, through a real `python -m errdex`
# process: read-only commands never make a database, every refusal says what is there,
# pipes get whole lines, --json errors are JSON, and nothing indexed acts on a terminal.
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from errdex.codec import dumps
from tests.conftest import run_errdex, write_tree

DEEP = "pkg/a_rather_long_folder_name/another_long_folder_name/yet_another_module.py"
FILES = {
    "pkg/__init__.py": """
        def check(n):
            if n < 0:
                raise ValueError(f"n must be non-negative, got {n}")
            if n > 100:
                raise ValueError(f"n must be at most 100, got {n}")
        """,
    DEEP: """
        def title(x):
            raise RuntimeError("\\x1b]0;owned\\x07 title changed \\x1b[2J :smile: emoji here")
        """,
}


def errdex(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    return run_errdex(*args, env={"ERRDEX_DB": str(db), "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("src")
    write_tree(root / "pkg", FILES)
    path = tmp_path_factory.mktemp("db") / "errdex.sqlite"
    done = errdex("index", str(root / "pkg"), "--json", db=path)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["show", "0123456789abcdef"],
        ["match", "ValueError: n must be non-negative, got -1"],
        ["history", "0123456789abcdef"],
        ["diff", "pkg==1", "pkg==2"],
    ],
)
def test_read_only_commands_never_make_a_database(tmp_path: Path, args: list[str]) -> None:
    missing = tmp_path / "not" / "there.sqlite"
    done = errdex(*args, "--db", str(missing), db=missing)
    assert done.returncode == 1
    assert f"there is no errdex database at {missing}" in done.stderr
    assert "errdex index SOURCE" in done.stderr
    assert not missing.exists() and not missing.parent.exists()


def test_json_errors_are_json_on_stdout(tmp_path: Path, db: Path) -> None:
    done = errdex("show", "0123456789abcdef", "--json", db=db)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "error": {
            "code": "not-found",
            "message": "no error with id or message '0123456789abcdef'; `errdex list` shows"
            " ids, `errdex match TEXT` finds a message with values",
        }
    }
    missing = errdex("list", "--json", "--db", str(tmp_path / "x.sqlite"), db=db)
    assert json.loads(missing.stdout)["error"]["code"] == "no-database"


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_refused(db: Path, limit: str) -> None:
    done = errdex("list", "--limit", limit, db=db)
    assert done.returncode == 2 and "--limit" in done.stderr


def test_an_empty_listing_says_which_filter_matched_nothing(db: Path) -> None:
    unknown = errdex("list", "--package", "nope", db=db)
    assert unknown.returncode == 1
    assert "nope is not indexed; indexed packages: pkg" in unknown.stderr
    version = errdex("list", "--package", "pkg", "--version", "9.9", db=db)
    assert version.returncode == 1
    assert "pkg 9.9 is not indexed; indexed versions of pkg: 0+unknown" in version.stderr
    nothing = errdex("list", "--exception", "KeyError", db=db)
    assert nothing.returncode == 0 and nothing.stdout == ""
    assert "no error of the indexed packages matches --exception KeyError" in nothing.stderr


def test_a_pipe_gets_whole_lines_and_nothing_that_acts_on_a_terminal(db: Path) -> None:
    done = errdex("list", db=db)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    deep = next(line for line in lines if DEEP in line)  # the whole path, never cut
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "\\x1b]0;owned\\x07 title changed \\x1b[2J :smile: emoji here" in deep
    site_id = deep.split("\t")[0]
    shown = errdex("show", site_id, db=db)
    assert shown.returncode == 0
    assert "\x1b" not in shown.stdout and ":smile:" in shown.stdout and "😄" not in shown.stdout


def test_list_json_is_the_records_in_the_encoding_of_standard_output(db: Path) -> None:
    """`list --json` writes the stored UTF-8 as it is, and the same text in the encoding
    standard output was given otherwise."""

    def listed(encoding: str) -> bytes:
        env = {**os.environ, "ERRDEX_DB": str(db), "PYTHONIOENCODING": encoding}
        command = [sys.executable, "-m", "errdex", "list", "--json"]
        return subprocess.run(command, capture_output=True, env=env, check=True).stdout

    utf8 = listed("utf-8")
    records = json.loads(utf8)
    assert len(records) == 3 and utf8 == dumps(records).encode()
    assert listed("utf-16").decode("utf-16") == utf8.decode()


def test_an_unchanged_index_reports_its_sites(tmp_path: Path) -> None:
    write_tree(tmp_path / "pkg", FILES)
    db = tmp_path / "errdex.sqlite"
    first = json.loads(errdex("index", str(tmp_path / "pkg"), "--json", db=db).stdout)
    again = json.loads(errdex("index", str(tmp_path / "pkg"), "--json", db=db).stdout)
    assert (first["sites"], first["unchanged"]) == (3, False)
    assert (again["sites"], again["unchanged"], again["parsed"]) == (3, True, 0)
    # the time of each phase, in order; an unchanged tree stops after the scan
    assert list(first["phases"]) == ["resolve", "scan", "parse and link", "explain", "write"]
    assert list(again["phases"]) == ["resolve", "scan"]
    assert all(seconds >= 0 for seconds in first["phases"].values())
    assert sum(first["phases"].values()) <= first["seconds"] + 0.01
    profiled = errdex("index", str(tmp_path / "pkg"), "--profile", "--force", db=db)
    assert [line.split()[0] for line in profiled.stdout.splitlines()[1:]] == [
        "resolve",
        "scan",
        "parse",
        "explain",
        "write",
    ]


def test_an_unchanged_index_imports_only_what_it_uses(tmp_path: Path) -> None:
    """Most of an unchanged re-index is Python's start and imports: it loads nothing that
    parses or explains, nor a library the path does not use (rich in a pipe, workers,
    email for PKG-INFO's headers, the TOML and INI readers when PKG-INFO says it all)."""
    write_tree(tmp_path / "pkg-1.0", {**FILES, "PKG-INFO": PKG_INFO})
    db = tmp_path / "errdex.sqlite"
    assert errdex("index", str(tmp_path / "pkg-1.0"), db=db).returncode == 0
    (tmp_path / "pkg-1.0" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    (tmp_path / "pkg-1.0" / "setup.cfg").write_text("[metadata]\nname = pkg\n")
    again = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "errdex", "index", str(tmp_path / "pkg-1.0")],
        capture_output=True,
        text=True,
        env={**os.environ, "ERRDEX_DB": str(db)},
        check=True,
        timeout=120,
    )
    assert "unchanged since the last index" in again.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines()}
    assert "errdex.store" in imported and "errdex.extract" in imported
    unused = {"errdex.extract.pipeline", "errdex.explain", "rich", "multiprocessing"}
    unused |= {"email", "tomllib", "configparser", "importlib.resources", "socket"}
    assert imported & unused == set()


PKG_INFO = """\
Metadata-Version: 2.4
Name: pkg
Version: 1.0
Project-URL: Source, https://github.com/example/pkg
Requires-Dist: click>=8

The package's long description.
"""

TRACEBACK = """\
Traceback (most recent call last):
  File "/app/run.py", line 2, in <module>
    check(-3)
  File "/venv/lib/python3.11/site-packages/pkg/__init__.py", line 4, in check
    raise ValueError(f"n must be non-negative, got {n}")
ValueError: n must be non-negative, got -3
"""


def test_an_exact_match_lists_no_near_misses_unless_asked(db: Path) -> None:
    # the other raise of the traceback's function is a near miss beside the exact answer
    answer = json.loads(errdex("match", "--json", TRACEBACK, db=db).stdout)
    assert [m["exact"] for m in answer["matches"]] == [True] and len(answer["closest"]) == 1
    plain = errdex("match", TRACEBACK, db=db)
    assert plain.returncode == 0
    assert "exact" in plain.stdout and "closest" not in plain.stdout
    asked = errdex("match", "--closest", TRACEBACK, db=db)
    assert "closest (not answers):" in asked.stdout and "pkg/__init__.py:6 in check" in asked.stdout


def test_serve_on_a_busy_port_says_so_before_any_url(db: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = errdex("serve", "--port", str(port), db=db)
    assert done.returncode == 1
    assert done.stdout == ""  # no URL, no count: nothing is served
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr


def test_show_says_what_holds_when_the_error_fires(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": """
            def check(n, ready):
                if n < 0:
                    return None
                assert not ready, "check() is not for ready items"
                raise ValueError(f"n must be negative, got {n}")
            """,
    }
    db = tmp_path / "errdex.sqlite"
    assert errdex("index", str(write_tree(tmp_path / "src", files) / "pkg"), db=db).returncode == 0
    listed = errdex("list", db=db).stdout.splitlines()
    asserted = next(line for line in listed if "AssertionError" in line).split("\t")[0]
    raised = next(line for line in listed if "ValueError" in line).split("\t")[0]

    def when(site_id: str) -> list[str]:
        shown = errdex("show", site_id, db=db).stdout.splitlines()
        start = shown.index("When") + 1
        return [" ".join(line.split()) for line in shown[start:] if line.startswith("  ")][:3]

    # the early return not taken: its negation; the assert: what it asserts, failing
    assert when(asserted)[:2] == ["early-exit n >= 0 (line 3)", "assert not ready fails (line 5)"]
    assert when(raised)[0] == "early-exit n >= 0 (line 3)"


def test_a_mistyped_command_names_the_one_meant(db: Path) -> None:
    done = errdex("indx", "pkg", db=db)
    assert done.returncode == 2
    assert "No such command 'indx'. Did you mean 'index'?" in done.stderr


def test_match_with_no_text_is_a_usage_error(db: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "match"],
        input="",
        capture_output=True,
        text=True,
        env={**os.environ, "ERRDEX_DB": str(db), "NO_COLOR": "1"},
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "no text to match" in done.stderr


def test_match_in_a_package_not_indexed_names_the_indexed_ones(db: Path) -> None:
    done = errdex("match", "n must be non-negative, got -1", "--package", "nosuch", db=db)
    assert done.returncode == 1
    assert "nosuch is not indexed; indexed packages: pkg" in done.stderr


def test_a_bare_project_name_as_source_suggests_pypi_and_installed(tmp_path: Path) -> None:
    done = errdex("index", "requests", db=tmp_path / "errdex.sqlite")
    assert done.returncode == 1
    assert "write pypi:requests" in done.stderr and "installed:requests" in done.stderr


def test_a_file_that_is_no_database_blames_how_it_was_chosen(tmp_path: Path) -> None:
    notes = tmp_path / "notadb.sqlite"
    notes.write_text("my notes, not a database\n")
    by_flag = errdex("list", "--db", str(notes), db=tmp_path / "elsewhere.sqlite")
    assert by_flag.returncode == 1
    assert f"{notes} is not an errdex database" in by_flag.stderr
    assert "give --db another file" in by_flag.stderr and "ERRDEX_DB" not in by_flag.stderr
    by_env = errdex("list", db=notes)  # the helper sets ERRDEX_DB
    assert by_env.returncode == 1
    assert "ERRDEX_DB names it: point ERRDEX_DB at another file" in by_env.stderr


def test_index_in_a_pipe_says_each_phase_as_it_starts_and_ends(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src" / "pkg", FILES)
    done = errdex("index", str(root), db=tmp_path / "errdex.sqlite")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "errdex: parse 2 files…"
    assert lines[1].startswith("errdex: parse done: 2 files, ")
    assert lines[2] == "errdex: explain 3 errors…"
    assert any(line.startswith("errdex: explain done: 3 errors, ") for line in lines)
    assert any(line.startswith("errdex: write done: 3 errors, ") for line in lines)
    assert done.stdout.startswith("pkg 0+unknown: 2 files")


def test_index_leaves_its_garbage_to_the_end_of_the_process(tmp_path: Path) -> None:
    """What an index made is frozen once its summary is out: the collection at exit
    would walk it all (2-3 s after vllm's summary; timed in no test, see docs/guide.md)."""
    root = write_tree(tmp_path / "src" / "pkg", FILES)
    script = (
        "import gc, sys\nfrom errdex.cli import app\n"
        f"app(['index', {str(root)!r}, '--db', {str(tmp_path / 'db.sqlite')!r}],"
        " standalone_mode=False)\n"
        "print('frozen', gc.get_freeze_count() > 0, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "frozen True"
