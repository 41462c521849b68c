"""The llm benchmarks: a decoder with a named model's exact shapes in the worker, timed for real
on this machine's CPU torch (prefill, decode after 512 and 4096 tokens), with the decode's
bandwidth ceiling; the arithmetic of bytes per token against hand-computed values for Qwen2.5
0.5B; the shape passed from gpuscope's model table; the verdict against the ceiling."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from gpuscope.bench.assess import assess_result
from gpuscope.bench.catalog import (
    LLM_SHAPE_ENV,
    SUITES,
    llm_shape_argument,
    resolve_suites,
    spec,
)
from gpuscope.bench.results import BenchmarkResult, BenchRun, ErrorKind, ResultStatus
from gpuscope.bench.runner import BenchRequest, run_benchmarks
from gpuscope.bench.worker import llm, llm_shape
from gpuscope.knowledge.model_fit import model_shape

if importlib.util.find_spec("torch") is None:
    if os.environ.get("CI"):
        pytest.fail("torch is not installed: pip install -e '.[test]'", pytrace=False)
    pytest.skip("torch is not installed here", allow_module_level=True)

LLM_IDS = ("llm.prefill", "llm.decode", "llm.decode_long")


def _shapes() -> dict[str, Any]:
    shapes = json.loads(llm_shape_argument(env={}))
    assert isinstance(shapes, dict)
    return shapes


def _qwen() -> llm_shape.Shape:
    return llm_shape.Shape(_shapes()["cpu"])


# --- the catalogue and the shapes gpuscope passes -------------------------------------------


def test_the_llm_suite_is_its_own_family_outside_the_quick_suite() -> None:
    assert SUITES["llm"] == LLM_IDS == resolve_suites(["llm"])
    assert not set(LLM_IDS) & set(SUITES["quick"])
    for benchmark in LLM_IDS:
        found = spec(benchmark)
        assert found is not None and found.unit.value == "tokens/s" and found.higher_is_better


def test_the_default_shapes_are_the_small_one_on_a_cpu_and_llama_3_8b_on_a_gpu() -> None:
    shapes = _shapes()
    assert shapes["chosen_by"] == "default"
    assert shapes["cpu"]["name"] == "Qwen2.5 0.5B" and shapes["gpu"]["name"] == "Llama 3 8B"
    qwen = model_shape("Qwen2.5 0.5B")
    assert qwen is not None
    assert shapes["cpu"] == {
        "name": "Qwen2.5 0.5B", "num_hidden_layers": 24, "hidden_size": 896,
        "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2,
        "head_dim": 64, "vocab_size": 151936, "tie_word_embeddings": True,
        "attention_qkv_bias": True, "source": qwen.source}


def test_a_shape_is_chosen_by_name_or_environment_and_an_unknown_one_is_an_error() -> None:
    chosen = json.loads(llm_shape_argument("qwen2.5  7b", env={}))
    assert chosen["chosen_by"] == "request"
    assert chosen["cpu"]["name"] == chosen["gpu"]["name"] == "Qwen2.5 7B"
    by_env = json.loads(llm_shape_argument(None, env={LLM_SHAPE_ENV: "Qwen2.5 14B"}))
    assert by_env["chosen_by"] == LLM_SHAPE_ENV and by_env["gpu"]["num_hidden_layers"] == 48
    unknown = json.loads(llm_shape_argument("GPT-5", env={}))
    assert set(unknown) == {"error"}
    assert unknown["error"].startswith("unknown model shape 'GPT-5'; known: Qwen2.5 0.5B, ")
    assert "error" in llm_shape.parse_shapes(None)
    assert "error" in llm_shape.parse_shapes("{not json")


# --- bytes per token and the ceiling, by hand for Qwen2.5 0.5B ------------------------------
#
# hidden 896, FFN 4864, 14 heads, 2 KV heads, head_dim 64, vocab 151936, 24 layers, tied, bias.
#   attention  896*896 (q) + 2*896*128 (k, v) + 896*896 (o)   = 1,835,008
#   q/k/v bias 896 + 2*128                                    =     1,152
#   MLP        3*896*4864                                     = 13,074,432
#   norms      2*896                                          =     1,792
#   one layer                                                 = 14,912,384
#   read per token: 24 layers (357,897,216) + final norm 896 + LM head 151936*896
#   (136,134,656) + one embedding row 896                     = 494,033,664 weights
#   K and V per cached token: 2 * 24 * 2 * 64                 =      6,144 elements
#   decode 16 tokens after 512: keys read per step on average 512 + (16 + 1) / 2 = 520.5
#   fp32: 494,033,664 * 4 + 6,144 * 4 * 520.5 = 1,976,134,656 + 12,791,808 = 1,988,926,464 B

QWEN_LAYER = 14_912_384
QWEN_WEIGHTS_READ = 494_033_664
QWEN_FP32_BYTES_512_16 = 1_988_926_464


def test_bytes_per_token_for_qwen_0_5b_by_hand() -> None:
    shape = _qwen()
    assert shape.layer_parameters == QWEN_LAYER
    assert shape.weights_read_per_token == QWEN_WEIGHTS_READ
    assert shape.kv_elements_per_cached_token() == 6_144
    assert llm_shape.mean_keys_read(512, 16) == 520.5
    assert llm_shape.decode_bytes_per_token(shape, 4, 4, 512, 16) == QWEN_FP32_BYTES_512_16
    # fp16 weights and cache, 128 tokens after 4096: 494,033,664 * 2 + 6,144 * 2 * 4160.5
    assert llm_shape.decode_bytes_per_token(shape, 2, 2, 4096, 128) == 988_067_328 + 51_124_224
    # The same count as the "what fits" table's parameters, plus the one embedding row.
    qwen = model_shape("Qwen2.5 0.5B")
    assert qwen is not None and qwen.parameter_count + 896 == QWEN_WEIGHTS_READ


def test_an_untied_model_reads_its_head_but_only_one_row_of_its_embedding() -> None:
    shape = llm_shape.Shape(_shapes()["gpu"])  # Llama 3 8B
    llama = model_shape("Llama 3 8B")
    assert llama is not None and not shape.tied and not shape.qkv_bias
    assert shape.weights_read_per_token == llama.parameter_count - 128256 * 4096 + 4096
    assert shape.embedding_parameters == 2 * 128256 * 4096


def test_the_ceiling_its_ratio_and_the_quantised_estimates_by_hand() -> None:
    got = llm_shape.decode_ceiling(_qwen(), 20.0, 5.0, 4, 4, 512, 16)
    assert got["bytes_per_token"] == QWEN_FP32_BYTES_512_16
    # 20e9 B/s / 1,988,926,464 B = 10.0557 tokens/s; 5 / 10.0557 = 0.4972
    assert got["bandwidth_ceiling_tokens_per_s"] == pytest.approx(10.055674, rel=1e-6)
    assert got["ceiling_ratio"] == pytest.approx(0.497232, rel=1e-5)
    # Q8_0: 494,033,664 * 8.5 / 8 = 524,910,768 + an f16 cache 6,144 * 2 * 520.5 = 6,395,904
    assert got["estimated_q8_0_bytes_per_token"] == 531_306_672
    # At the same ratio: 5 tokens/s x 1,988,926,464 / 531,306,672 = 18.7173
    assert got["estimated_q8_0_tokens_per_s"] == pytest.approx(18.71731, rel=1e-6)
    # Q4_K_M at 4.8944 bits: 494,033,664 * 0.6118 = 302,249,795.6352 + 6,395,904
    assert got["estimated_q4_k_m_bytes_per_token"] == pytest.approx(308_645_699.6352)
    assert got["estimated_q4_k_m_tokens_per_s"] == pytest.approx(32.22022, rel=1e-6)


def test_a_malformed_shape_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        llm_shape.Shape({**_shapes()["cpu"], "hidden_size": 0})
    with pytest.raises(ValueError, match="14 heads do not group into 3 KV heads"):
        llm_shape.Shape({**_shapes()["cpu"], "num_key_value_heads": 3})
    with pytest.raises(ValueError, match="not a JSON object"):
        llm_shape.Shape(["Qwen2.5 0.5B"])


# --- the decoder itself, on a toy shape -----------------------------------------------------


def test_the_cached_decode_agrees_with_a_prefill_with_and_without_native_gqa() -> None:
    import torch

    from gpuscope.bench.worker.measure import Context

    toy = llm_shape.Shape({"name": "toy", "num_hidden_layers": 2, "hidden_size": 64,
                     "intermediate_size": 96, "num_attention_heads": 4,
                     "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 300,
                     "tie_word_embeddings": False, "attention_qkv_bias": True})
    ctx = Context(torch, torch.device("cpu"), "cpu", 1.0, 0.05)
    with torch.inference_mode():
        model = llm.Decoder(ctx, toy, 2, torch.float32, lambda fraction, stage: None)
        assert model.gqa_native  # torch 2.13 has enable_gqa
        result: dict[str, Any] = {"parameters": {}}
        llm._check(ctx, model, result)
        assert 0 < result["relative_error"] <= 1e-5
        tokens = model.random_tokens(9)
        model.allocate(9)
        native = model.logits(model.layers_forward(model.embed(tokens), 0))
        model.gqa_native = False  # torch < 2.5: K and V repeated per query head
        repeated = model.logits(model.layers_forward(model.embed(tokens), 0))
        assert torch.allclose(native, repeated, rtol=1e-5, atol=1e-6)
        llm._check(ctx, model, result)
        assert result["relative_error"] <= 1e-5


# --- the real suite on this CPU -------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSCOPE_BENCH_")}
    env.update(extra)
    return env


def _check_run(run: BenchRun) -> dict[str, BenchmarkResult]:
    assert run.errors == () and run.ok, (run.errors, run.stderr_tail)
    results = {r.id: r for r in run.results}
    assert tuple(results) == LLM_IDS
    for benchmark, result in results.items():
        p = result.parameters
        assert result.status is ResultStatus.OK and result.unit == "tokens/s", result
        assert result.value is not None and result.value > 0
        assert result.spread is not None and result.spread.count >= 3
        assert result.spread.min <= result.value <= result.spread.max
        assert p["model_shape"] == "Qwen2.5 0.5B" and p["dtype"] == "float32"
        assert p["layers_total"] == 24
        measured = p["layers_measured"]
        assert isinstance(measured, int) and 1 <= measured <= 24
        assert p["extrapolated"] is (measured < 24)
        if p["extrapolated"]:
            assert isinstance(p["layers_limited_by"], str) and p["layers_limited_by"]
        if benchmark == "llm.prefill":
            assert result.relative_error is not None
            assert result.relative_error <= result.relative_error_tolerance  # type: ignore[operator]
            assert "ceiling_ratio" not in p
            continue
        ratio = p["ceiling_ratio"]
        assert isinstance(ratio, float) and 0 < ratio <= 1.2, p
        ceiling, bandwidth = p["bandwidth_ceiling_tokens_per_s"], p["measured_bandwidth_gb_s"]
        assert isinstance(ceiling, float) and isinstance(bandwidth, float) and bandwidth > 0
        assert ceiling == pytest.approx(bandwidth * 1e9 / p["bytes_per_token"])  # type: ignore[operator]
        assert ratio == pytest.approx(result.value / ceiling)
        assert "memory copy" in str(p["bandwidth_measured_by"])
        q8, q4 = p["estimated_q8_0_tokens_per_s"], p["estimated_q4_k_m_tokens_per_s"]
        assert isinstance(q8, float) and isinstance(q4, float)
        assert result.value < q8 < q4  # fewer bytes per token than fp32, at the same ratio
    assert results["llm.decode_long"].parameters["context_tokens"] > results[
        "llm.decode"].parameters["context_tokens"]
    return results


def test_the_llm_suite_runs_for_real_on_the_cpu_with_the_small_shape() -> None:
    """At a tenth of the sizes (fewer layers, steps and tokens), the shape chosen through the
    environment variable."""
    started = time.monotonic()
    run = run_benchmarks(BenchRequest(LLM_IDS, env=_env(**{LLM_SHAPE_ENV: "qwen2.5 0.5b"}),
                                      scale=0.1))
    assert time.monotonic() - started < 60
    results = _check_run(run)
    for result in results.values():
        assert result.parameters["model_shape_chosen_by"] == LLM_SHAPE_ENV
        assert result.parameters["layers_measured"] == 1  # 4 on a CPU x 0.1, at least one
    decode = results["llm.decode"].parameters
    assert decode["decode_tokens"] == 4 and decode["context_tokens"] == 64


def test_an_unknown_shape_fails_the_llm_benchmarks_with_the_known_names() -> None:
    run = run_benchmarks(BenchRequest(("llm.decode",), env=_env(), llm_shape="GPT-5"))
    (result,) = run.results
    assert result.status is ResultStatus.FAILED
    assert "unknown model shape 'GPT-5'; known: Qwen2.5 0.5B" in (result.reason or "")


def test_out_of_memory_in_an_llm_benchmark_is_an_oom_error_and_the_run_goes_on() -> None:
    env = _env(GPUSCOPE_BENCH_FAULT="oom", GPUSCOPE_BENCH_FAULT_AT="llm.decode")
    run = run_benchmarks(BenchRequest(("llm.decode", "llm.decode_long"), env=env, scale=0.05))
    assert [e.kind for e in run.errors] == [ErrorKind.OOM]
    assert [r.status for r in run.results] == [ResultStatus.FAILED, ResultStatus.OK]


def test_gpuscope_bench_suite_llm_json_within_two_minutes() -> None:
    """The acceptance: the real suite at full size, through the command line."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gpuscope", "bench", "--suite", "llm",
                           "--json"], capture_output=True, text=True, timeout=150,
                          env=_env(), check=False)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    assert elapsed < 120
    doc = json.loads(done.stdout)
    assert doc["ok"] is True and doc["error"] is None
    from gpuscope.bench.results import run_from_json

    run = run_from_json(doc)
    assert run is not None
    results = _check_run(run)
    decode = results["llm.decode"].parameters
    assert decode["context_tokens"] == 512 and decode["decode_tokens"] == 16
    assert results["llm.decode_long"].parameters["context_tokens"] == 4096
    assert results["llm.prefill"].parameters["prompt_tokens"] == 512
    by_id = {r["id"]: r for r in doc["results"]}
    # Decode is judged against its bandwidth ceiling, prefill against nothing (and says why).
    for benchmark in ("llm.decode", "llm.decode_long"):
        entry = by_id[benchmark]
        assert entry["peak"]["label"] == "bandwidth ceiling"
        assert entry["percent_of_peak"] == pytest.approx(
            entry["parameters"]["ceiling_ratio"] * 100, abs=0.01)
        assert "of the bandwidth ceiling of" in entry["verdict"]["text"]
    assert by_id["llm.prefill"]["peak"] is None
    assert "prefill is bound by compute" in by_id["llm.prefill"]["peak_missing"]


# --- the verdict ----------------------------------------------------------------------------


def _result(benchmark: str, **parameters: Any) -> BenchmarkResult:
    return BenchmarkResult(id=benchmark, device="cpu", status=ResultStatus.OK, unit="tokens/s",
                           higher_is_better=True, value=4.0, parameters=parameters)


def test_decode_is_judged_against_its_bandwidth_ceiling_on_any_device() -> None:
    result = _result("llm.decode", model_shape="Qwen2.5 0.5B", layers_measured=4,
                     layers_total=24, extrapolated=True, bandwidth_ceiling_tokens_per_s=10.0,
                     ceiling_ratio=0.4, measured_bandwidth_gb_s=20.0,
                     bytes_per_token=2.0e9)
    for gpu_run in (False, True):
        judged = assess_result(result, None, gpu_run=gpu_run)
        assert judged.percent_of_peak == pytest.approx(40.0)
        assert judged.peak is not None and judged.peak.value == 10.0
        assert judged.peak.unit == "tokens/s" and judged.peak_missing is None
        assert judged.text == (
            "40% of the bandwidth ceiling of 10.00 tokens/s: measured memory bandwidth 20.00 "
            "GB/s over 2000 MB read per token (weights and KV cache). Qwen2.5 0.5B: 4 of 24 "
            "layers measured, extrapolated to all 24. No published measurement to judge it by.")
        assert judged.level_word == "no reference"


def test_prefill_and_a_decode_without_its_ceiling_say_why_they_are_not_judged() -> None:
    prefill = assess_result(_result("llm.prefill", model_shape="Qwen2.5 0.5B",
                                    layers_measured=24, layers_total=24, extrapolated=False),
                            None, gpu_run=False)
    assert prefill.percent_of_peak is None and prefill.peak is None
    assert prefill.text == ("prefill is bound by compute, not memory bandwidth: no ceiling to "
                            "compare with. Qwen2.5 0.5B: all 24 layers measured.")
    bare = assess_result(_result("llm.decode", ceiling_ratio=math.nan), None, gpu_run=True)
    assert bare.peak is None and bare.peak_missing == (
        "no datasheet entry: the worker reported no bandwidth ceiling")
