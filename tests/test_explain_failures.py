# One site's explanation must never fail its package. Through the real CLI: the locals
# of a parser method that alias each other (the 28-line shape pyyaml 6.0.4's parser has:
# `start = token` in a loop that sets `token = start`) are explained, where following the
# aliases recursed until RecursionError; and a site whose explanation does fail (a
# condition nested 150 deep, which explain's renderers cannot follow within Python's
# recursion limit) is indexed without one, recorded with the reason, and every other
# site of the package is explained as before.
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdex.cli import app
from tests.conftest import require_pypi, write_tree

PARSER = {
    "yamlish/parser.py": """
        class ParserError(Exception):
            pass


        class Parser:
            def __init__(self, scanner):
                self.scanner = scanner
                self.states = []

            def peek_token(self):
                return self.scanner.peek()

            def parse_node(self, block=False, indentless_sequence=False):
                token = self.peek_token()
                start_mark = end_mark = token
                while True:
                    start = token
                    token = start
                    if start is None:
                        raise ParserError(
                            "while parsing a node, expected the node content, but found %r"
                            % token
                        )
                    if block and indentless_sequence:
                        end_mark = start_mark
                        start_mark = end_mark
                        if end_mark is None:
                            raise ParserError("expected a block end, found %r" % start_mark)
                    return token
        """,
}


def _index(root: Path, db: Path) -> dict[str, object]:
    done = CliRunner().invoke(app, ["index", str(root), "--db", str(db), "--json"])
    assert done.exit_code == 0, done.output
    summary: dict[str, object] = json.loads(done.stdout)
    return summary


def _records(db: Path) -> list[dict[str, object]]:
    listed = CliRunner().invoke(app, ["list", "--json", "--db", str(db)])
    assert listed.exit_code == 0, listed.output
    records: list[dict[str, object]] = json.loads(listed.stdout)
    return records


def test_locals_that_alias_each_other_are_explained(tmp_path: Path) -> None:
    write_tree(tmp_path / "src", PARSER)
    summary = _index(tmp_path / "src", tmp_path / "db.sqlite")
    assert (summary["sites"], summary["skipped"]) == (2, [])
    for record in _records(tmp_path / "db.sqlite"):
        explanation = record["explanation"]
        assert isinstance(explanation, dict) and explanation["when_it_happens"]


def _deep_condition(depth: int) -> str:
    condition = "x0"
    for i in range(1, depth):
        condition = f"(x{i} {'and' if i % 2 else 'or'} not {condition})"
    names = ", ".join(f"x{i}" for i in range(depth))
    return f"def deep({names}):\n    if {condition}:\n        raise ValueError('it holds')\n"


def test_a_site_whose_explanation_fails_is_recorded_and_the_rest_indexed(
    tmp_path: Path,
) -> None:
    src = write_tree(tmp_path / "src", PARSER)
    (src / "yamlish" / "deep.py").write_text(_deep_condition(150))
    db = tmp_path / "db.sqlite"
    summary = _index(src, db)
    assert summary["sites"] == 3
    entries = summary["skipped"]
    assert isinstance(entries, list) and len(entries) == 1
    skipped = entries[0]
    assert skipped["path"] == "yamlish/deep.py"
    assert skipped["reason"].startswith(
        "the ValueError at line 3 is indexed without an explanation: errdex could not"
        " explain it (RecursionError: maximum recursion depth exceeded"
    )
    records = {(r["location"]["file"], r["message"]["text"]): r for r in _records(db)}  # type: ignore[index]
    deep = records["yamlish/deep.py", "it holds"]["explanation"]
    assert isinstance(deep, dict) and deep["what_it_means"].startswith(
        "errdex could not explain this error (RecursionError"
    )
    for (file, _), record in records.items():
        if file == "yamlish/parser.py":  # explained as when they are alone
            assert record["explanation"]["when_it_happens"]  # type: ignore[index]
    again = _index(src, tmp_path / "again.sqlite")  # the same from the caches
    assert again["parsed"] == 0 and len(again["skipped"]) == 1  # type: ignore[arg-type]


@pytest.mark.network
def test_pyyaml_6_0_4_is_indexed(tmp_path: Path) -> None:
    require_pypi("pypi:pyyaml==6.0.4")
    done = CliRunner().invoke(
        app, ["index", "pypi:pyyaml==6.0.4", "--db", str(tmp_path / "db.sqlite"), "--json"]
    )
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["sites"] > 90 and summary["skipped"] == []
