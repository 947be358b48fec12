# The promises of docs/architecture.md, checked on the code itself: the stages import
# only what comes before them, and one record says the same from every surface.
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import errdex
from errdex import codec
from errdex.cli import app
from errdex.index import index_source
from errdex.store import Store, open_store
from errdex.web.export import export_site
from tests.web_support import running

PACKAGE = Path(errdex.__file__).parent

# Each stage in pipeline order; a module may import its own stage and earlier ones only.
STAGES = [
    {
        "errdex",
        "errdex.errors",
        "errdex.model",
        "errdex.expr",
        "errdex.identity",
        "errdex.repos",
        "errdex.codec",
        "errdex.text",
        "errdex.names",
        "errdex.languages",
        "errdex.rank",
        "errdex.markup",
        "errdex.places",
        "errdex.align",
    },
    {"errdex.sources"},
    {"errdex.extract"},
    {"errdex.explain"},
    {"errdex.store"},
    {"errdex.index", "errdex.batch"},
    {"errdex.match", "errdex.history", "errdex.enrich"},
    {"errdex.web"},
    {"errdex.cli", "errdex.hook", "errdex.__main__"},
]


def stage_of(module: str) -> int:
    """The stage of a module: that of its longest listed prefix."""
    best, rank = "", -1
    for number, names in enumerate(STAGES):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > len(best):
                best, rank = name, number
    assert rank >= 0, f"{module} belongs to no stage: add it to STAGES"
    return rank


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every errdex module `path` imports, lazy imports included."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module == "errdex":  # `from errdex import codec` names a module
                names = [f"errdex.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "errdex" or name.startswith("errdex."):
                yield node.lineno, name


def test_no_stage_imports_a_later_one() -> None:
    wrong = []
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 40
    for path in files:
        here = module_name(path)
        if here == "errdex":  # the public facade: re-exports lookup lazily, on first use
            continue
        for line, target in imports(path):
            if stage_of(target) > stage_of(here):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} {here} -> {target}")
    assert wrong == []


def test_the_surfaces_are_imported_by_nothing_below_them() -> None:
    for path in PACKAGE.rglob("*.py"):
        here = module_name(path)
        if stage_of(here) >= stage_of("errdex.web"):
            continue
        for line, target in imports(path):
            assert not target.startswith(("errdex.cli", "errdex.web")), f"{path}:{line}"


def test_explain_reads_conditions_as_trees_never_as_text_to_parse() -> None:
    """No function of explain parses source text: conditions, a `try` block's statement
    and an input's default come as trees. What is left reads a literal's value
    (`literal`, with ast.literal_eval: a default as the text that is shown)."""
    parsing = set()
    for path in sorted((PACKAGE / "explain").rglob("*.py")):
        module = ast.parse(path.read_text(), str(path))
        for function in ast.walk(module):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                called = ast.unparse(node.func)
                if called in ("ast.parse", "ast.literal_eval", "compile", "parse_test"):
                    parsing.add((path.name, function.name, called))
    assert parsing == {("conditions.py", "literal", "ast.literal_eval")}


@pytest.fixture(scope="module")
def click_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Path]]:
    """click as installed beside errdex (a real package, no download), indexed once."""
    path = tmp_path_factory.mktemp("click") / "errdex.sqlite"
    with open_store(path) as store:
        index_source("installed:click", store)
        yield store, path


def test_one_record_is_byte_identical_on_every_surface(
    click_db: tuple[Store, Path], tmp_path: Path
) -> None:
    store, path = click_db
    db = str(path)
    records = store.list_records(package="click")
    assert len(records) > 50
    export_site(store, tmp_path / "site")
    runner = CliRunner()
    unique = {}
    for record in records:
        text = record.site.message.text if record.site.message else None
        if text is not None and len(store.find_by_message(text)) == 1:
            unique[record.id] = text
    assert len(unique) > len(records) // 2
    with running(store) as base, httpx.Client(base_url=base, timeout=30) as http:
        for record in records:
            by_id = runner.invoke(app, ["show", record.id, "--json", "--db", db])
            assert by_id.exit_code == 0, by_id.output
            api = http.get(f"/api/errors/{record.id}")
            assert api.status_code == 200
            exported = (tmp_path / "site" / "api" / "errors" / f"{record.id}.json").read_bytes()
            assert by_id.stdout_bytes == api.content == exported, record.id
            if record.id in unique:
                by_message = runner.invoke(app, ["show", unique[record.id], "--json", "--db", db])
                assert by_message.stdout_bytes == by_id.stdout_bytes, record.id
    # every record at once, streamed as stored, says the same as codec says of each
    listed = runner.invoke(app, ["list", "--json", "--package", "click", "--db", db])
    assert listed.exit_code == 0, listed.output
    expected = "[" + ",".join(codec.dumps(codec.record_to_json(r))[:-1] for r in records) + "]\n"
    assert listed.stdout == expected
