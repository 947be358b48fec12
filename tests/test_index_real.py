# Real packages from PyPI, through the real command line: the acceptance checks of
# "errdex index" on vllm 0.28.0, plus requests 2.32.3 for a second, smaller codebase.
from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from errdex.extract.files import TEST_DIRS, is_test_file
from errdex.sources import resolve
from errdex.store import Store, open_store
from tests.conftest import TEST_CACHE, require_pypi, run_errdex

SEED = "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)"

pytestmark = pytest.mark.network


def errdex(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user would: their environment (proxy and CA settings included),
    with the run's cache (ERRDEX_CACHE, set by conftest) and the CI flag."""
    return run_errdex(*args, "--db", str(db), env={"CI": "1"}, timeout=900)


@pytest.fixture(scope="module")
def vllm(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Store]:
    require_pypi("pypi:vllm==0.28.0")
    db = tmp_path_factory.mktemp("vllm") / "errdex.sqlite"
    done = errdex("index", "pypi:vllm==0.28.0", db=db)
    assert done.returncode == 0, done.stderr
    assert "vllm 0.28.0:" in done.stdout and "error sites" in done.stdout
    return db, open_store(db)


def show(db: Path, target: str) -> dict[str, Any]:
    done = errdex("show", target, "--json", db=db)
    assert done.returncode == 0, done.stderr
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def test_seed_error_record(vllm: tuple[Path, Store]) -> None:
    record = show(vllm[0], SEED)
    assert record["exception"] == {
        "name": "ValueError",
        "qualname": "builtins.ValueError",
        "bases": [],
    }
    assert record["kind"] == "raise"
    assert record["message"]["text"] == SEED and record["message"]["static"] is True
    loc = record["location"]
    assert (loc["file"], loc["line"], loc["function"]) == (
        "vllm/config/compilation.py",
        1038,
        "CompilationConfig.__post_init__",
    )
    assert loc["url"] == (
        "https://github.com/vllm-project/vllm/blob/2cf0a6915/vllm/config/compilation.py#L1038"
    )
    assert record["repo"] == {"url": "https://github.com/vllm-project/vllm", "commit": "2cf0a6915"}
    last = record["guard"][-1]
    tree = last.pop("tree")
    assert last == {
        "kind": "if",
        "negated": False,
        "line": 1034,
        "test": "self.cudagraph_mm_encoder and "
        "self.encoder_cudagraph_max_vision_items_per_batch < 0",
    }
    assert (tree["node"], tree["op"]) == ("boolop", "and")
    assert tree["values"][1]["ops"] == ["<"]
    assert tree["values"][1]["comparators"] == [{"node": "constant", "value": 0}]
    field = next(
        i for i in record["inputs"] if i["name"] == "encoder_cudagraph_max_vision_items_per_batch"
    )
    assert (field["kind"], field["type"], field["default"], field["owner"]) == (
        "field",
        "int",
        "0",
        "CompilationConfig",
    )
    assert field["doc"].startswith("Maximum number of images/videos per batch")
    assert "If 0 (default), auto-inferred" in field["doc"]
    snippet = record["snippet"]
    first, last_line = snippet["start_line"], snippet["start_line"] + len(snippet["lines"]) - 1
    assert first <= 1021 and last_line >= 1056
    assert snippet["lines"][1038 - first].strip() == "raise ValueError("


def test_piecewise_backend_error_has_its_hole(vllm: tuple[Path, Store]) -> None:
    record = show(vllm[0], "Invalid backend for piecewise compilation: {self.backend}")
    assert record["message"]["parts"] == [
        {"text": "Invalid backend for piecewise compilation: "},
        {
            "hole": "self.backend",
            "conversion": None,
            "format_spec": None,
            "tree": {
                "node": "attribute",
                "value": {"node": "name", "id": "self"},
                "attr": "backend",
            },
        },
    ]
    assert record["message"]["static"] is False
    assert record["location"]["line"] == 1029


def test_every_raise_and_assert_with_message_is_a_site(vllm: tuple[Path, Store]) -> None:
    root = resolve("pypi:vllm==0.28.0", cache_dir=TEST_CACHE).root
    raises: set[tuple[str, int]] = set()
    asserts: set[tuple[str, int]] = set()
    for path in sorted((root / "vllm").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if is_test_file(path.name) or TEST_DIRS & set(rel.split("/")[:-1]):
            continue  # test code beside the package code (issue 12)
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Raise):
                raises.add((rel, node.lineno))
            elif isinstance(node, ast.Assert) and node.msg is not None:
                asserts.add((rel, node.lineno))
    found: dict[str, set[tuple[str, int]]] = {"raise": set(), "assert": set()}
    for record in vllm[1].iter_records(package="vllm"):
        site = record.site
        kind = "assert" if site.kind == "assert" else "raise"
        if site.kind != "helper" and site.location.language == "python":  # csrc/: native
            found[kind].add((site.location.file, site.location.line))
    assert len(raises) == 4826 and len(asserts) == 1760
    assert found["raise"] == raises
    assert found["assert"] == asserts


def test_unchanged_reindex_is_detected(vllm: tuple[Path, Store]) -> None:
    done = errdex("index", "pypi:vllm==0.28.0", db=vllm[0])
    assert done.returncode == 0, done.stderr
    assert "unchanged since the last index" in done.stdout


def test_requests_exceptions_resolve_to_their_hierarchy(tmp_path: Path) -> None:
    require_pypi("pypi:requests==2.32.3")
    db = tmp_path / "errdex.sqlite"
    done = errdex("index", "pypi:requests==2.32.3", db=db)
    assert done.returncode == 0, done.stderr
    record = show(db, "Invalid URL {url!r}: No scheme supplied. Perhaps you meant https://{url}?")
    assert record["exception"]["qualname"] == "requests.exceptions.MissingSchema"
    assert record["exception"]["bases"][:2] == [
        "requests.exceptions.RequestException",
        "builtins.ValueError",
    ]
    assert record["location"]["file"] == "src/requests/models.py"
    assert record["location"]["function"] == "PreparedRequest.prepare_url"
    listed = json.loads(errdex("list", "--exception", "InvalidURL", "--json", db=db).stdout)
    assert listed and all(r["exception"]["name"].endswith("InvalidURL") for r in listed)
