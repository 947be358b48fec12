# Native sources of real releases from PyPI: every TORCH_CHECK and STD_TORCH_CHECK call
# in vllm 0.28.0's csrc/ is a site, and kernel messages users reported match theirs;
# pydantic-core's ErrorType templates answer a pydantic v2 ValidationError (and, with
# pydantic-core not indexed, pydantic v1's sites do not); numpy's C sites answer its
# broadcast error.
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.extract.native.files import language_of
from errdex.match import Matcher
from errdex.sources import resolve
from errdex.sources.cache import cache_root
from errdex.store import Store
from tests.conftest import indexed_store

pytestmark = pytest.mark.network

DATA = Path(__file__).parent / "data" / "native"
_CALL = re.compile(r"\b(?:STD_)?TORCH_CHECK\w*\(")
_DEFINED = re.compile(r"#\s*define\s+(?:STD_)?TORCH_CHECK\w*\(")


def torch_check_calls(root: Path) -> Counter[tuple[str, int]]:
    """A plain count of the `TORCH_CHECK*(` and `STD_TORCH_CHECK*(` calls in the C, C++
    and CUDA files under csrc/, by file and line (a macro's own `#define` name is none)."""
    found: Counter[tuple[str, int]] = Counter()
    for path in sorted((root / "csrc").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or language_of(rel) in (None, "rust"):
            continue
        for number, line in enumerate(path.read_text(errors="replace").split("\n"), 1):
            calls = len(_CALL.findall(line)) - len(_DEFINED.findall(line))
            if calls:
                found[(rel, number)] += calls
    return found


def test_every_torch_check_call_in_csrc_is_a_site(vllm_db: Store) -> None:
    root = resolve("pypi:vllm==0.28.0", cache_dir=cache_root()).root
    calls = torch_check_calls(root)
    sites: Counter[tuple[str, int]] = Counter(
        (r.site.location.file, r.site.location.line)
        for r in vllm_db.iter_records(package="vllm")
        if r.site.location.file.startswith("csrc/")
    )
    missing = {where: n for where, n in calls.items() if sites[where] < n}
    assert not missing, sorted(missing)[:20]
    assert sum(calls.values()) > 1700  # the issue counted 1,735 lines


@pytest.mark.parametrize(
    ("report", "file", "values"),
    [
        ("vllm-issue-1455.txt", "csrc/rocm/attention.cu", {"head_size": "32"}),
        (
            "vllm-issue-9419.txt",
            "csrc/libtorch_stable/quantization/w8a8/cutlass/scaled_mm_entry.cu",
            None,
        ),
    ],
)
def test_a_kernel_message_users_reported_matches(
    vllm_db: Store, report: str, file: str, values: dict[str, str] | None
) -> None:
    result = Matcher(vllm_db).match((DATA / report).read_text())
    best = result.matches[0]
    assert best.file == file
    assert best.exception == "RuntimeError"
    if values is not None:
        assert best.values == values and best.exact


@pytest.fixture(scope="module")
def pydantic_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    path = tmp_path_factory.mktemp("pydantic") / "errdex.sqlite"
    store = indexed_store(path, "pypi:pydantic==2.14.4", "pypi:pydantic-core==2.50.5")
    yield store
    store.close()


INT_PARSING = "Input should be a valid integer, unable to parse string as an integer"


def test_pydantic_core_templates_match_their_message(pydantic_db: Store) -> None:
    result = Matcher(pydantic_db).match(INT_PARSING)
    best = result.matches[0]
    assert (best.package, best.template, best.exact) == ("pydantic-core", INT_PARSING, True)
    assert best.file.endswith(".rs") and best.exception == "ValidationError"


def test_a_pydantic_v2_validation_error_lists_the_core_site_first(pydantic_db: Store) -> None:
    result = Matcher(pydantic_db).match((DATA / "pydantic-v2-int-parsing.txt").read_text())
    best = result.matches[0]
    assert (best.package, best.template, best.exact) == ("pydantic-core", INT_PARSING, True)
    assert not any("/v1/" in m.file for m in result.matches)
    record = pydantic_db.get(best.id)
    assert record is not None
    assert record.site.exception.qualname == "pydantic_core._pydantic_core.ValidationError"


def test_without_pydantic_core_indexed_it_says_so(tmp_path: Path) -> None:
    store = indexed_store(tmp_path / "errdex.sqlite", "pypi:pydantic==2.14.4")
    try:
        result = Matcher(store).match((DATA / "pydantic-v2-int-parsing.txt").read_text())
    finally:
        store.close()
    assert result.matches == ()
    assert result.note is not None
    assert "pydantic_core._pydantic_core, a compiled extension" in result.note
    assert "pydantic-core is not indexed" in result.note


def test_numpy_broadcast_error_matches_its_c_site(tmp_path: Path) -> None:
    store = indexed_store(tmp_path / "errdex.sqlite", "pypi:numpy==2.5.5")
    try:
        text = "ValueError: operands could not be broadcast together with shapes (3,) (4,)"
        best = Matcher(store).match(text).matches[0]
        record = store.get(best.id)
    finally:
        store.close()
    assert best.file == "numpy/_core/src/multiarray/nditer_constr.c"
    assert best.exact and best.values == {"shape1": "(3,) (4,)"}
    assert record is not None and record.site.location.language == "c"
    assert record.site.exception.qualname == "builtins.ValueError"
