# The seed error (docs/seed-comparison.md), explained from vllm 0.28.0 itself. Downloads the sdist
# once into ERRDEX_TEST_CACHE (default ~/.cache/errdex-test); later runs reuse it.
from __future__ import annotations

import pytest

from errdex.codec import record_to_json
from errdex.store import Store

SEED = "encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)"


@pytest.mark.network
def test_seed_error_explained(vllm_db: Store) -> None:
    [record] = [
        r
        for r in map(
            record_to_json,
            vllm_db.list_records(package="vllm", file_glob="vllm/config/compilation.py"),
        )
        if r["message"] and r["message"]["text"] == SEED
    ]
    assert record["location"]["line"] == 1038
    assert record["title"] == "encoder_cudagraph_max_vision_items_per_batch must be non-negative"
    body = record["explanation"]
    assert body["provenance"] == "static"
    means = body["what_it_means"]
    assert means.startswith("`CompilationConfig` (configuration for compilation) rejects")
    assert "a negative `encoder_cudagraph_max_vision_items_per_batch`" in means
    assert "when `cudagraph_mm_encoder` is on" in means
    when = body["when_it_happens"]
    assert when.startswith(
        "Raised when a `CompilationConfig` is built (its `__post_init__` check), if "
        "`cudagraph_mm_encoder` is on and `encoder_cudagraph_max_vision_items_per_batch` "
        "is negative."
    )
    fix = body["solutions"][0]
    assert fix.startswith("Set `encoder_cudagraph_max_vision_items_per_batch` to 0 or more")
    assert 'per its doc: "If 0 (default), auto-inferred as' in fix
    # how a vllm user sets the field: --compilation-config, beside the field and default
    assert (
        "(`CompilationConfig.encoder_cudagraph_max_vision_items_per_batch`, default 0), e.g."
        " `--compilation-config '{\"encoder_cudagraph_max_vision_items_per_batch\": 0}'`"
    ) in fix
    field = next(i for i in record["inputs"] if i["name"] == SEED.split()[0])
    assert field["knobs"][0]["via"] == "--compilation-config"
    assert any("turn `cudagraph_mm_encoder` off" in s for s in body["solutions"])
    assert body["call_paths"], "CompilationConfig(...) is built in several places"
    assert "static call graph, best effort" in when
    url = record["report_issue_url"]
    assert url.startswith("https://github.com/vllm-project/vllm/issues/new?title=ValueError")
    assert len(record["related"]) >= 3
