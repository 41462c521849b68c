"""resources/llm_reference.toml (published llama.cpp tokens/s per card), the verdict against it
and the decode estimate (issue #13, items 4 and 5)."""

from __future__ import annotations

import copy
import importlib.resources
import statistics
import sys
from typing import Any

import pytest

from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.llm_reference import (
    BASIS_DATASHEET,
    BASIS_MEASURED,
    BASIS_PUBLISHED,
    QUANT_PRECISION,
    LlmReferenceTableError,
    bytes_per_token,
    default_ratio,
    estimate_decode_tokens_per_s,
    judge,
    parse_reference_table,
    published_decode,
    published_ratio,
    published_results,
    reference_table,
)
from gpuscope.knowledge.model_fit import (
    TABLE_PRECISIONS,
    Precision,
    model_shape,
    precision_info,
)
from gpuscope.knowledge.specs import gpu_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("llm_reference.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


# ----------------------------------------------------------------------------- the table


def test_every_row_has_a_source_a_known_card_and_positive_figures() -> None:
    rows = reference_table()
    assert len(rows) >= 30
    for row in rows:
        assert row.source.startswith("https://"), row
        spec = gpu_spec(row.card)
        assert spec is not None and spec.name == row.card, row.card
        assert 0 < row.tokens_per_s_low <= row.tokens_per_s_high, row
        assert row.backend in ("ROCm", "Vulkan", "CUDA", "Metal")
        if row.shape is not None:
            assert model_shape(row.shape) is not None, row.shape


def test_the_cards_the_issue_names_are_covered() -> None:
    for card in ("RX 7900 XTX", "RX 9070 XT", "RTX 3090", "RTX 4090", "RX 6800 XT"):
        assert published_results(card), card
    xtx = published_results("AMD Radeon RX 7900 XTX")
    assert {r.backend for r in xtx} >= {"ROCm", "Vulkan"}
    # Issue 20934's figures, copied as the range it gives.
    vulkan = next(r for r in xtx if r.backend == "Vulkan" and r.test == "tg128")
    assert (vulkan.tokens_per_s_low, vulkan.tokens_per_s_high) == (167.0, 177.0)
    assert vulkan.source == "https://github.com/ggml-org/llama.cpp/issues/20934"
    assert published_results("a card nobody makes") == ()
    assert published_results(None) == ()


@pytest.mark.parametrize("change, complaint", [
    (lambda r: r.update(card="RTX 9999"), "spec-table name"),
    (lambda r: r.update(card="RTX 4090"), "spec-table name"),  # an alias, not the exact name
    (lambda r: r.update(source="http://example.com"), "https URL"),
    (lambda r: r.pop("source"), "source"),
    (lambda r: r.update(tokens_per_s=-3.0), "positive"),
    (lambda r: r.update(tokens_per_s=0), "positive"),
    (lambda r: r.update(tokens_per_s=True), "positive"),
    (lambda r: r.update(tokens_per_s_range=[1.0, 2.0]), "or tokens_per_s_range"),
    (lambda r: (r.pop("tokens_per_s"), r.update(tokens_per_s_range=[9.0, 2.0])), "low is above"),
    (lambda r: (r.pop("tokens_per_s"), r.update(tokens_per_s_range=[9.0])), "[low, high]"),
    (lambda r: r.update(backend="OpenCL"), "backend"),
    (lambda r: r.update(test="tokens"), "test must"),
    (lambda r: r.update(quantisation="four bits"), "GGUF type"),
    (lambda r: r.update(shape="Llama 9 1B"), "model shape"),
    (lambda r: r.update(colour="red"), "unknown keys"),
])
def test_a_malformed_row_is_refused(change: Any, complaint: str) -> None:
    doc = copy.deepcopy(raw_table())
    # The RTX 3090's Llama 3 8B tg512 row: a single figure with a shape.
    row = next(r for r in doc["result"] if r["card"] == "NVIDIA GeForce RTX 3090"
               and r["test"] == "tg512" and r["quantisation"] == "Q4_K_M")
    change(row)
    with pytest.raises(LlmReferenceTableError, match=complaint):
        parse_reference_table(doc)


def test_an_empty_or_versionless_table_is_refused() -> None:
    with pytest.raises(LlmReferenceTableError, match="schema_version"):
        parse_reference_table({"result": raw_table()["result"]})
    with pytest.raises(LlmReferenceTableError, match="no"):
        parse_reference_table({"schema_version": 1, "result": []})
    with pytest.raises(LlmReferenceTableError, match="array of tables"):
        parse_reference_table({"schema_version": 1, "result": "none"})


# ----------------------------------------------------------------------------- the verdict


def test_judge_against_the_published_band() -> None:
    args = ("RX 7900 XTX", "LLaMA 7B Q4_0", "Q4_0", "ROCm", "tg128")
    normal = judge(*args, 135.0)
    assert normal.level is VerdictLevel.NORMAL and normal.band_tokens_per_s == (129.0, 144.0)
    assert "normal" in normal.text and normal.references
    # The margin is 10 %: 129 x 0.9 = 116.1 is the lowest normal figure.
    assert judge(*args, 117.0).level is VerdictLevel.NORMAL
    assert judge(*args, 110.0).level is VerdictLevel.LOW
    assert "ngl" in judge(*args, 110.0).text
    assert judge(*args, 170.0).level is VerdictLevel.HIGH
    # Another test length of decode compares; prompt processing needs its own rows.
    assert judge("RX 7900 XTX", "LLaMA 7B Q4_0", "Q4_0", "Vulkan", "tg512", 172).level is \
        VerdictLevel.NORMAL
    # A model shape name finds the rows that carry it.
    assert judge("RTX 4090", "Llama 3 8B", "Q4_K_M", "CUDA", "tg128", 128.0).level is \
        VerdictLevel.NORMAL


def test_judge_says_unknown_without_a_reference() -> None:
    other_backend = judge("RX 7900 XTX", "LLaMA 7B Q4_0", "Q4_0", "CUDA", "tg128", 150.0)
    assert other_backend.level is VerdictLevel.UNKNOWN
    assert "Vulkan" in other_backend.text and "ROCm" in other_backend.text
    assert judge("RX 6950 XT", "Llama 3 8B", "Q4_K_M", "ROCm", "tg128",
                 80.0).level is VerdictLevel.UNKNOWN
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        assert judge("RX 7900 XTX", "LLaMA 7B Q4_0", "Q4_0", "ROCm", "tg128",
                     bad).level is VerdictLevel.UNKNOWN


# ----------------------------------------------------------------------------- the estimate


def test_q4_k_m_is_a_precision_with_its_published_size() -> None:
    info = precision_info(Precision.Q4_K_M)
    assert info.bits_per_weight == 4.8944
    assert "tools/quantize/README.md" in info.source
    assert QUANT_PRECISION["Q4_K_M"] is Precision.Q4_K_M
    # The What-fits table's 4-bit column is the type most GGUF downloads use.
    assert TABLE_PRECISIONS == (Precision.FP16, Precision.INT8, Precision.Q4_K_M)
    # llama-bench prints 4.58 GiB for Llama 3 8B Q4_K_M; the estimate comes within 1 %.
    shape = model_shape("Llama 3 8B")
    assert shape is not None
    gib = bytes_per_token(shape, Precision.Q4_K_M, 0) / (1 << 30)
    assert gib == pytest.approx(4.58, rel=0.01)


def test_estimate_arithmetic_by_hand_with_a_measured_ratio() -> None:
    """RX 7900 XTX: 960 GB/s. Llama 3 8B at Q4_K_M after 4096 tokens of context:
    weights 8,030,261,248 parameters x 4.8944 / 8 = 4,912,913,832 bytes (rounded up);
    KV cache 2 x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token, x 4096 =
    536,870,912; per token 5,449,784,744 bytes; ceiling 960e9 / that = 176.15 tokens/s;
    at a measured ratio of 0.5: 88.08 tokens/s."""
    shape = model_shape("Llama 3 8B")
    assert shape is not None and shape.parameter_count == 8_030_261_248
    estimate = estimate_decode_tokens_per_s("AMD Radeon RX 7900 XTX", "Llama 3 8B",
                                            Precision.Q4_K_M, 4096, ratio=0.5)
    assert estimate is not None
    assert estimate.basis == BASIS_MEASURED and estimate.ratio == 0.5
    weights = -(-8_030_261_248 * 4.8944 // 8)
    assert int(weights) == 4_912_913_832
    assert estimate.bytes_per_token == 5_449_784_744 == int(weights) + 131_072 * 4096
    assert estimate.ceiling_tokens_per_s == pytest.approx(176.15, abs=0.01)
    assert estimate.tokens_per_s == pytest.approx(88.08, abs=0.01)
    # A bare bandwidth works the same.
    bare = estimate_decode_tokens_per_s(960.0, shape, "q4_k_m", 4096, ratio=0.5)
    assert bare is not None and bare.tokens_per_s == pytest.approx(estimate.tokens_per_s)


def test_the_basis_is_published_results_for_a_card_with_decode_rows() -> None:
    estimate = estimate_decode_tokens_per_s("RTX 4090", "Llama 3 8B", Precision.Q4_K_M, 256)
    assert estimate is not None and estimate.basis == BASIS_PUBLISHED
    # Rows of the same precision are preferred: the Q4_K_M tg512 row alone.
    assert [r.quantisation for r in estimate.references] == ["Q4_K_M"]
    row = estimate.references[0]
    assert estimate.ratio == pytest.approx(published_ratio(row))
    # tg512 after no prompt: the mean context is 256 tokens, what this estimate asks, so the
    # estimate gives back the published figure.
    assert estimate.tokens_per_s == pytest.approx(130.58)
    assert "published results" in estimate.explain()


def test_the_basis_falls_back_to_the_datasheet_bandwidth() -> None:
    spec = gpu_spec("RX 6950 XT")
    assert spec is not None and not [r for r in published_results(spec)
                                     if published_ratio(r) is not None]
    estimate = estimate_decode_tokens_per_s(spec, "Llama 3 8B", Precision.Q4_K_M, 4096)
    assert estimate is not None and estimate.basis == BASIS_DATASHEET
    ratios = [r for r in (published_ratio(x) for x in reference_table()) if r is not None]
    assert default_ratio() == (statistics.median(ratios), len(ratios))
    assert estimate.ratio == default_ratio()[0]
    assert 0.3 < estimate.ratio < 1.0


def test_the_estimate_refuses_what_it_cannot_know() -> None:
    assert estimate_decode_tokens_per_s("a card nobody makes", "Llama 3 8B", "fp16", 0) is None
    assert estimate_decode_tokens_per_s(960.0, "GPT-5", "fp16", 0) is None
    assert estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "fp7", 0) is None
    assert estimate_decode_tokens_per_s(0.0, "Llama 3 8B", "fp16", 0) is None
    assert estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "fp16", 0, ratio=2.0) is None
    assert estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "fp16", 0, ratio=0.0) is None


def test_longer_context_and_wider_weights_are_slower() -> None:
    short = estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "q4_k_m", 512, ratio=0.6)
    long = estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "q4_k_m", 32768, ratio=0.6)
    fp16 = estimate_decode_tokens_per_s(960.0, "Llama 3 8B", "fp16", 512, ratio=0.6)
    assert short is not None and long is not None and fp16 is not None
    assert long.tokens_per_s < short.tokens_per_s and fp16.tokens_per_s < short.tokens_per_s


def test_published_decode_finds_rows_by_shape_and_precision() -> None:
    rows = published_decode("RTX 4090", "Llama 3 8B", Precision.FP16)
    assert [r.tokens_per_s for r in rows] == [54.84]
    assert published_decode("RTX 4090", "Llama 3 8B", Precision.INT8) == ()
