"""resources/model_shapes.toml and the "what fits" estimate (issue #6)."""

from __future__ import annotations

import copy
import importlib.resources
import sys
from typing import Any

import pytest

from gpuscope.knowledge.model_fit import (
    DEFAULT_OVERHEAD_BYTES,
    TABLE_PRECISIONS,
    ModelTableError,
    Precision,
    all_models,
    fit_table,
    fits,
    largest_fitting,
    model_shape,
    parse_model_table,
    precision_info,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

GIB = 1 << 30
VRAM_24 = 24 * GIB
RTX_4090_NVML_BYTES = 25757220864  # what NVML reports for a 24 GB card (snapshot fixture)


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("model_shapes.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


def raw_model(name: str) -> dict[str, Any]:
    return next(row for row in raw_table()["model"] if row["name"] == name)


def hand_parameters(row: dict[str, Any]) -> int:
    """The parameter count written out from a raw TOML row, independently of model_fit."""
    hidden, inter, layers = row["hidden_size"], row["intermediate_size"], row["num_hidden_layers"]
    heads, kv_heads = row["num_attention_heads"], row["num_key_value_heads"]
    head_dim = row.get("head_dim", hidden // heads)
    q = hidden * heads * head_dim
    k = v = hidden * kv_heads * head_dim
    o = heads * head_dim * hidden
    bias = heads * head_dim + 2 * kv_heads * head_dim if row.get("attention_qkv_bias") else 0
    mlp = hidden * inter * 3  # gate, up, down
    norms = 2 * hidden
    embed = row["vocab_size"] * hidden
    head = 0 if row["tie_word_embeddings"] else row["vocab_size"] * hidden
    return layers * (q + k + v + o + bias + mlp + norms) + embed + head + hidden


# ----------------------------------------------------------------------------- the table


def test_every_model_cites_its_config_json() -> None:
    doc = raw_table()
    assert doc["schema_version"] == 1
    for row in doc["model"]:
        assert row["source"].startswith("https://huggingface.co/"), row["name"]
        assert row["source"].endswith("/blob/main/config.json"), row["name"]
        assert row["checked"], row["name"]
    sizes = {m.size_label for m in all_models()}
    assert {"7B", "8B", "13B", "14B", "32B", "34B", "70B"} <= sizes


@pytest.mark.parametrize("name", [row["name"] for row in raw_table()["model"]])
def test_parameter_count_matches_the_hand_count_and_the_size_label(name: str) -> None:
    shape = model_shape(name)
    assert shape is not None
    assert shape.parameter_count == hand_parameters(raw_model(name))
    label_b = float(shape.size_label.rstrip("B"))
    assert abs(shape.parameter_count / 1e9 / label_b - 1) < 0.10, shape.parameter_count


def test_known_parameter_counts() -> None:
    llama3_8b = model_shape("Llama 3 8B")
    qwen_7b = model_shape("qwen2.5   7b")  # case and spacing aside
    assert llama3_8b is not None and qwen_7b is not None
    assert llama3_8b.parameter_count == 8_030_261_248
    # Qwen2.5 7B: q/k/v biases (28 x 4,608) are part of its 7.62 billion
    assert qwen_7b.parameter_count == 7_615_616_512


def test_kv_cache_per_token_from_the_shape() -> None:
    llama2 = model_shape("Llama 2 13B")  # multi-head: 40 KV heads
    llama3 = model_shape("Llama 3 8B")  # grouped-query: 8 KV heads
    assert llama2 is not None and llama3 is not None
    assert llama2.kv_cache_bytes_per_token() == 2 * 40 * 40 * 128 * 2 == 819_200
    assert llama3.kv_cache_bytes_per_token() == 2 * 32 * 8 * 128 * 2 == 131_072
    assert llama3.kv_cache_bytes_per_token(bytes_per_element=1) == 65_536


def test_precisions_carry_their_block_overhead() -> None:
    assert precision_info(Precision.FP16).bits_per_weight == 16
    assert precision_info(Precision.BF16).bits_per_weight == 16
    assert precision_info(Precision.INT8).bits_per_weight == 34 * 8 / 32  # block_q8_0
    assert precision_info(Precision.INT4).bits_per_weight == 18 * 8 / 32  # block_q4_0
    assert "ggml-common.h" in precision_info(Precision.INT4).source


# ----------------------------------------------------------------------------- fits


@pytest.mark.parametrize("vram", [VRAM_24, RTX_4090_NVML_BYTES])
def test_24_gb(vram: int) -> None:
    assert fits(vram, "Mistral 7B v0.1", Precision.FP16).fits
    assert fits(vram, "Qwen2.5 7B", "fp16").fits
    assert fits(vram, "Llama 3 8B", Precision.BF16).fits
    assert not fits(vram, "Llama 2 13B", Precision.FP16).fits
    assert fits(vram, "Qwen2.5 14B", Precision.INT8).fits
    assert fits(vram, "Qwen2.5 32B", Precision.INT4).fits
    assert not fits(vram, "Llama 3 70B", Precision.INT4, 4096).fits
    assert not fits(vram, "Qwen2.5 72B", Precision.INT4).fits


def test_arithmetic_against_a_hand_computation() -> None:
    row = raw_model("Llama 3 8B")
    params = hand_parameters(row)
    weights = params * 9 // 16  # 4.5 bits = 9/16 of a byte per parameter; exact here
    assert params * 9 % 16 == 0
    kv = 2 * row["num_hidden_layers"] * row["num_key_value_heads"] * (
        row["hidden_size"] // row["num_attention_heads"]) * 2 * 4096
    result = fits(VRAM_24, "Llama 3 8B", Precision.INT4, 4096)
    assert result.breakdown.weights_bytes == weights == 4_517_021_952
    assert result.breakdown.kv_cache_bytes == kv == 512 * (1 << 20)
    assert result.breakdown.overhead_bytes == DEFAULT_OVERHEAD_BYTES == GIB
    assert result.needed_bytes == weights + kv + GIB == 6_127_634_688
    assert result.headroom_bytes == VRAM_24 - result.needed_bytes
    assert (result.context_tokens, result.batch, result.vram_bytes) == (4096, 1, VRAM_24)

    fp16 = fits(VRAM_24, "Llama 3 8B", Precision.FP16, 8192, batch=2, overhead_bytes=0)
    assert fp16.breakdown.weights_bytes == params * 2
    assert fp16.breakdown.kv_cache_bytes == kv * 2 * 2
    assert fp16.needed_bytes == params * 2 + kv * 4


def test_the_boundary_is_inclusive() -> None:
    needed = fits(VRAM_24, "Qwen2.5 14B", Precision.INT8).needed_bytes
    exact = fits(needed, "Qwen2.5 14B", Precision.INT8)
    short = fits(needed - 1, "Qwen2.5 14B", Precision.INT8)
    assert exact.fits and exact.headroom_bytes == 0
    assert not short.fits and short.headroom_bytes == -1


def test_context_length_grows_the_kv_cache_linearly() -> None:
    none = fits(VRAM_24, "Llama 2 13B", Precision.INT4, 0)
    short = fits(VRAM_24, "Llama 2 13B", Precision.INT4, 4096)
    long = fits(VRAM_24, "Llama 2 13B", Precision.INT4, 32768)
    assert none.breakdown.kv_cache_bytes == 0
    assert long.breakdown.kv_cache_bytes == 8 * short.breakdown.kv_cache_bytes
    assert short.fits and not long.fits  # 25 GiB of KV cache at 32k for a multi-head model


def test_bad_requests_raise() -> None:
    with pytest.raises(ValueError, match="unknown model"):
        fits(VRAM_24, "GPT-5", Precision.FP16)
    with pytest.raises(ValueError):
        fits(VRAM_24, "Llama 3 8B", "fp8")
    with pytest.raises(ValueError):
        fits(-1, "Llama 3 8B", Precision.FP16)
    with pytest.raises(ValueError):
        fits(VRAM_24, "Llama 3 8B", Precision.FP16, batch=0)
    assert model_shape("GPT-5") is None


def test_fit_table_rows_and_precisions() -> None:
    rows = fit_table(VRAM_24)
    assert [r.model for r in rows] == list(all_models())
    counts = [r.model.parameter_count for r in rows]
    assert counts == sorted(counts)
    for row in rows:
        assert tuple(r.precision for r in row.results) == TABLE_PRECISIONS
        fp16, int8, int4 = (row.result(p) for p in TABLE_PRECISIONS)
        assert fp16 is not None and int8 is not None and int4 is not None
        assert fp16.needed_bytes > int8.needed_bytes > int4.needed_bytes
        assert not fp16.fits or int8.fits
        assert not int8.fits or int4.fits
        assert row.result(Precision.BF16) is None
    small = fit_table(8 * GIB, precisions=(Precision.INT4,), models=[all_models()[0]])
    assert len(small) == 1 and small[0].results[0].fits


def test_largest_fitting_model() -> None:
    biggest = largest_fitting(VRAM_24, Precision.INT4)
    assert biggest is not None and biggest.size_label in ("32B", "34B")
    large = largest_fitting(48 * GIB, Precision.INT4)
    assert large is not None and large.size_label in ("70B", "72B")
    small = largest_fitting(2 * GIB, Precision.FP16)
    assert small is not None and small.size_label == "0.5B"
    assert largest_fitting(GIB // 2, Precision.FP16) is None


# ----------------------------------------------------------------------------- validation


def _with(change: dict[str, Any], index: int = 0) -> dict[str, Any]:
    doc = copy.deepcopy(raw_table())
    doc["model"][index].update(change)
    return doc


@pytest.mark.parametrize(("change", "message"), [
    ({"num_key_value_heads": 5}, "do not group"),
    ({"hidden_size": 0}, "positive integer"),
    ({"hidden_size": True}, "positive integer"),
    ({"source": "https://example.com/config.json"}, "config.json on Hugging Face"),
    ({"checked": ""}, "checked must be"),
    ({"checked": "facts.md §7 [S]"}, "internal notes"),
    ({"tie_word_embeddings": "no"}, "true or false"),
    ({"parameters": 7}, "unknown keys"),
])
def test_malformed_models_are_rejected(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelTableError, match=message):
        parse_model_table(_with(change))


def test_malformed_precisions_are_rejected() -> None:
    doc = raw_table()
    with pytest.raises(ModelTableError, match="once"):
        parse_model_table({**doc, "precision": doc["precision"][:-1]})
    bad = copy.deepcopy(doc)
    bad["precision"][0]["bits_per_weight"] = 0
    with pytest.raises(ModelTableError, match="bits_per_weight"):
        parse_model_table(bad)
    with pytest.raises(ModelTableError, match="no \\[\\[model"):
        parse_model_table({"precision": doc["precision"]})
    for source in ("llama.cpp ggml-common.h", "corpus 013: https://example.com"):
        unsourced = copy.deepcopy(doc)
        unsourced["precision"][2]["source"] = source
        with pytest.raises(ModelTableError, match="public URL"):
            parse_model_table(unsourced)
