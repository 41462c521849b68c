"""The benchmarks gpuscope knows and the suites that group them.

The ids are the contract between the worker script (which implements them), the knowledge base
(`gpuscope.knowledge.bench_expectations`, which keys datasheet peaks and verdicts on them) and
the views. A test keeps this list, the worker's and the knowledge base's equal.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gpuscope.i18n import message
from gpuscope.knowledge.model_fit import ModelShape, all_models, model_shape


class Unit(str, enum.Enum):
    TFLOPS = "TFLOPS"
    TOPS = "TOPS"  # int8 matmul: integer operations
    GB_S = "GB/s"  # 1e9 bytes per second
    US = "us"  # microseconds
    TOKENS_S = "tokens/s"  # LLM prefill or decode throughput


@dataclass(frozen=True, slots=True)
class BenchmarkSpec:
    id: str  # "matmul.fp16"
    family: str  # "matmul"
    title: str  # "FP16 matmul"
    unit: Unit
    higher_is_better: bool = True
    quick: bool = False  # part of the quick suite


BENCHMARKS: tuple[BenchmarkSpec, ...] = (
    BenchmarkSpec("matmul.fp32", "matmul", "FP32 matmul", Unit.TFLOPS, quick=True),
    BenchmarkSpec("matmul.tf32", "matmul", "TF32 matmul (NVIDIA)", Unit.TFLOPS),
    BenchmarkSpec("matmul.fp16", "matmul", "FP16 matmul", Unit.TFLOPS, quick=True),
    BenchmarkSpec("matmul.bf16", "matmul", "BF16 matmul", Unit.TFLOPS, quick=True),
    BenchmarkSpec("matmul.int8", "matmul", "INT8 matmul (torch._int_mm)", Unit.TOPS),
    BenchmarkSpec("matmul.fp8", "matmul", "FP8 matmul (torch._scaled_mm)", Unit.TFLOPS),
    BenchmarkSpec("memory.copy", "memory", "memory copy", Unit.GB_S, quick=True),
    BenchmarkSpec("memory.triad", "memory", "memory triad", Unit.GB_S, quick=True),
    BenchmarkSpec("transfer.h2d_pinned", "transfer", "host to device, pinned", Unit.GB_S),
    BenchmarkSpec("transfer.d2h_pinned", "transfer", "device to host, pinned", Unit.GB_S),
    BenchmarkSpec("transfer.h2d_pageable", "transfer", "host to device, pageable", Unit.GB_S),
    BenchmarkSpec("transfer.d2h_pageable", "transfer", "device to host, pageable", Unit.GB_S),
    BenchmarkSpec("latency.launch", "latency", "kernel launch round trip", Unit.US,
                  higher_is_better=False, quick=True),
    BenchmarkSpec("latency.sync", "latency", "synchronise, nothing queued", Unit.US,
                  higher_is_better=False),
    BenchmarkSpec("attention.flash", "attention", "attention, flash backend", Unit.TFLOPS),
    BenchmarkSpec("attention.efficient", "attention", "attention, memory-efficient backend",
                  Unit.TFLOPS),
    BenchmarkSpec("attention.math", "attention", "attention, math backend", Unit.TFLOPS),
    BenchmarkSpec("llm.prefill", "llm", "LLM prefill, 512-token prompt", Unit.TOKENS_S),
    BenchmarkSpec("llm.decode", "llm", "LLM decode after 512 tokens", Unit.TOKENS_S),
    BenchmarkSpec("llm.decode_long", "llm", "LLM decode after 4096 tokens", Unit.TOKENS_S),
)

BENCHMARK_IDS: tuple[str, ...] = tuple(b.id for b in BENCHMARKS)
_BY_ID = {b.id: b for b in BENCHMARKS}
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(b.family for b in BENCHMARKS))

SUITES: dict[str, tuple[str, ...]] = {
    "quick": tuple(b.id for b in BENCHMARKS if b.quick),
    "full": BENCHMARK_IDS,
    **{family: tuple(b.id for b in BENCHMARKS if b.family == family) for family in FAMILIES},
}


class UnknownSuiteError(ValueError):
    """A suite or benchmark name gpuscope does not know; the message lists the known ones."""


def spec(benchmark_id: str) -> BenchmarkSpec | None:
    return _BY_ID.get(benchmark_id)


def suite_names() -> tuple[str, ...]:
    return tuple(SUITES)


def resolve_suites(names: Iterable[str]) -> tuple[str, ...]:
    """Suite names (quick, full, a family) and single ids to benchmark ids, in catalogue order,
    each once. No names: the quick suite."""
    wanted: set[str] = set()
    given = [n.strip() for n in names if n.strip()]
    for name in given or ["quick"]:
        if name in SUITES:
            wanted.update(SUITES[name])
        elif name in _BY_ID:
            wanted.add(name)
        else:
            raise UnknownSuiteError(message(
                "unknown suite or benchmark {name}; suites: {suites}; benchmarks: {ids}",
                name=repr(name), suites=", ".join(SUITES), ids=", ".join(BENCHMARK_IDS)))
    return tuple(b for b in BENCHMARK_IDS if b in wanted)


# ----------------------------------------------------------------------------- llm shapes

# The model whose shapes the llm benchmarks build (resources/model_shapes.toml): a small one a
# CPU decodes within the suite's minute, an 8B one (the size most people run) on a GPU.
LLM_CPU_SHAPE = "Qwen2.5 0.5B"
LLM_GPU_SHAPE = "Llama 3 8B"
LLM_SHAPE_ENV = "GPUSCOPE_BENCH_LLM_SHAPE"  # a model name: both devices use it


def llm_shape_names() -> tuple[str, ...]:
    """The names a run may choose for the llm benchmarks."""
    return tuple(m.name for m in all_models())


def _shape_json(shape: ModelShape) -> dict[str, object]:
    return {"name": shape.name, "num_hidden_layers": shape.num_hidden_layers,
            "hidden_size": shape.hidden_size, "intermediate_size": shape.intermediate_size,
            "num_attention_heads": shape.num_attention_heads,
            "num_key_value_heads": shape.num_key_value_heads, "head_dim": shape.head_dim,
            "vocab_size": shape.vocab_size, "tie_word_embeddings": shape.tie_word_embeddings,
            "attention_qkv_bias": shape.attention_qkv_bias, "source": shape.source}


def llm_shape_argument(name: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The worker's `--llm-shape` argument: the shapes' numbers as JSON, `{"cpu": ..., "gpu":
    ..., "chosen_by": ...}` (the worker picks by the device it runs on), or `{"error": ...}`
    naming the known models when `name` (else $GPUSCOPE_BENCH_LLM_SHAPE in `env`, else the
    process environment) is not one."""
    environment = os.environ if env is None else env
    chosen_by = "request"
    if not name:
        name, chosen_by = environment.get(LLM_SHAPE_ENV, "").strip() or None, LLM_SHAPE_ENV
    if name:
        shape = model_shape(name)
        if shape is None:
            return json.dumps({"error": message(
                "unknown model shape {name}; known: {names}", name=repr(name),
                names=", ".join(llm_shape_names()))})
        return json.dumps({"cpu": _shape_json(shape), "gpu": _shape_json(shape),
                           "chosen_by": chosen_by})
    cpu, gpu = model_shape(LLM_CPU_SHAPE), model_shape(LLM_GPU_SHAPE)
    if cpu is None or gpu is None:
        return json.dumps({"error": message("the model table lacks {names}",
                                            names=f"{LLM_CPU_SHAPE}, {LLM_GPU_SHAPE}")})
    return json.dumps({"cpu": _shape_json(cpu), "gpu": _shape_json(gpu),
                       "chosen_by": "default"})
