# String literals that valid Python holds and a database's text does not: a lone
# surrogate escape ("\udcff": not UTF-8) and NUL (no PostgreSQL text holds it). A package
# raising them is indexed whole in both stores, through the real CLI, each character kept
# as the escape Python prints for it, and a pasted traceback that shows them matches.
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from errdex.cli import app
from tests.conftest import write_tree

FILES = {
    "odd/__init__.py": r'''
        """Odd \udcff docs."""


        def decode(x):
            if x == "\udcff":
                raise ValueError("byte \udcff is not UTF-8: %s" % x)
            if x == "\x00":
                raise KeyError("a NUL \x00 in the key, and \0 again")
            raise RuntimeError(f"a pair \ud83d\ude00 of escapes, and {x!r}")
        ''',
}


def test_lone_surrogates_and_nul_in_messages_are_indexed_in_both_stores(
    db_location: str, tmp_path: Path
) -> None:
    write_tree(tmp_path / "src", FILES)
    runner = CliRunner()
    done = runner.invoke(app, ["index", str(tmp_path / "src"), "--db", db_location, "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert (summary["sites"], summary["skipped"]) == (3, [])
    listed = runner.invoke(app, ["list", "--json", "--db", db_location])
    assert listed.exit_code == 0, listed.output
    texts = sorted(r["message"]["text"] for r in json.loads(listed.stdout))
    assert texts == [
        "a NUL \\x00 in the key, and \\x00 again",
        "a pair \\ud83d\\ude00 of escapes, and {x!r}",
        "byte \\udcff is not UTF-8: {x}",
    ]
    # as Python prints such a message (stderr's errors="backslashreplace")
    shown = "ValueError: byte \\udcff is not UTF-8: \\udcff"
    found = runner.invoke(app, ["match", shown, "--db", db_location, "--json"])
    assert found.exit_code == 0, found.output
    (best, *_) = json.loads(found.stdout)["matches"]
    assert (best["file"], best["exception"]) == ("odd/__init__.py", "ValueError")
    again = runner.invoke(app, ["index", str(tmp_path / "src"), "--db", db_location, "--json"])
    assert json.loads(again.stdout)["unchanged"] is True
