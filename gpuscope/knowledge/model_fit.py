"""Which LLM sizes fit in a given amount of VRAM, at fp16/bf16, int8 and int4, from the
architecture shapes in resources/model_shapes.toml (each copied from the model's Hugging Face
config.json, cited there).

The estimate, for one model at one precision and a context of `context_tokens` tokens:

    needed_bytes = weights_bytes + kv_cache_bytes + overhead_bytes

    weights_bytes  = parameters x bits_per_weight / 8
                     parameters are counted from the shape (not a rounded "7B"):
                       embedding      vocab x hidden (x 2 unless the output head is tied)
                       per layer      q, o: hidden x heads x head_dim each
                                      k, v: hidden x kv_heads x head_dim each
                                      q/k/v biases where the model has them (Qwen2)
                                      MLP (SwiGLU): 3 x hidden x intermediate
                                      two RMSNorm weights: 2 x hidden
                       final norm     hidden
                     bits_per_weight: 16 for fp16/bf16; 8.5 and 4.5 for int8/int4, the
                     sizes of llama.cpp's Q8_0/Q4_0 blocks, which carry a scale per 32 weights;
                     4.8944 for Q4_K_M, the mixture's size on Llama 3.1 8B (quantize README)
    kv_cache_bytes = 2 (K and V) x layers x kv_heads x head_dim x kv_bytes_per_element
                     x context_tokens x batch
                     with an fp16 cache (2 bytes per element) whatever the weights' precision,
                     as llama.cpp, vLLM and transformers use by default
    overhead_bytes = 1 GiB by default: the runtime's context (CUDA/HIP), compute and scratch
                     buffers. An allowance, not a measurement; callers may pass their own.

`fits` is needed_bytes <= vram_bytes; `headroom_bytes` is what is left (negative when it does
not fit). The answer is for one GPU holding the whole model, batch 1 by default; VRAM other
programs (the desktop) use must be subtracted by the caller.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.knowledge._resources import load_toml_resource
from gpuscope.knowledge.sources import INTERNAL_PROVENANCE

RESOURCE = "model_shapes.toml"
GIB = 1 << 30
DEFAULT_CONTEXT_TOKENS = 4096
DEFAULT_OVERHEAD_BYTES = 1 * GIB
DEFAULT_KV_BYTES_PER_ELEMENT = 2  # fp16 cache


class ModelTableError(ValueError):
    """resources/model_shapes.toml does not have the expected shape."""


class Precision(str, enum.Enum):
    FP16 = "fp16"
    BF16 = "bf16"
    INT8 = "int8"
    INT4 = "int4"
    Q4_K_M = "q4_k_m"  # llama.cpp's usual 4-bit mixture (Q4_K with some Q6_K tensors)


# What the "what fits" table shows: bf16 weighs what fp16 does; Q4_K_M is the 4-bit type
# Ollama and most GGUF downloads use.
TABLE_PRECISIONS: tuple[Precision, ...] = (Precision.FP16, Precision.INT8, Precision.Q4_K_M)


@dataclass(frozen=True, slots=True)
class PrecisionInfo:
    precision: Precision
    label: str  # "INT4 (Q4_0)"
    bits_per_weight: float
    source: str  # what the figure rests on, with its public URL


@dataclass(frozen=True, slots=True)
class ModelShape:
    """The part of a model's config.json that its memory depends on."""

    name: str  # "Llama 3 8B"
    family: str
    size_label: str  # "8B"
    source: str  # the config.json it comes from
    checked: str
    num_hidden_layers: int
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int
    tie_word_embeddings: bool
    attention_qkv_bias: bool = False
    sliding_window: int | None = None

    @property
    def parameter_count(self) -> int:
        """Parameters counted from the shape (see the module docstring)."""
        h, d = self.hidden_size, self.head_dim
        q_width, kv_width = self.num_attention_heads * d, self.num_key_value_heads * d
        attention = h * q_width + 2 * h * kv_width + q_width * h
        if self.attention_qkv_bias:
            attention += q_width + 2 * kv_width
        layer = attention + 3 * h * self.intermediate_size + 2 * h
        embeddings = self.vocab_size * h * (1 if self.tie_word_embeddings else 2)
        return self.num_hidden_layers * layer + embeddings + h

    def kv_cache_bytes_per_token(
            self, bytes_per_element: int = DEFAULT_KV_BYTES_PER_ELEMENT) -> int:
        """K and V of every layer for one token."""
        return 2 * self.num_hidden_layers * self.num_key_value_heads * self.head_dim * (
            bytes_per_element)


@dataclass(frozen=True, slots=True)
class FitBreakdown:
    weights_bytes: int
    kv_cache_bytes: int
    overhead_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.weights_bytes + self.kv_cache_bytes + self.overhead_bytes


@dataclass(frozen=True, slots=True)
class FitResult:
    """Whether one model at one precision fits in `vram_bytes`."""

    model: ModelShape
    precision: Precision
    context_tokens: int
    batch: int
    vram_bytes: int
    fits: bool
    needed_bytes: int
    breakdown: FitBreakdown
    headroom_bytes: int  # vram_bytes - needed_bytes; negative when it does not fit


@dataclass(frozen=True, slots=True)
class FitRow:
    """One model across precisions, in the order asked for."""

    model: ModelShape
    results: tuple[FitResult, ...]

    def result(self, precision: Precision) -> FitResult | None:
        return next((r for r in self.results if r.precision is precision), None)


@dataclass(frozen=True, slots=True)
class ModelTable:
    models: tuple[ModelShape, ...]  # smallest first
    precisions: Mapping[Precision, PrecisionInfo]


# ----------------------------------------------------------------------------- parsing

_INT_FIELDS = ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
               "num_key_value_heads", "vocab_size")
_STR_FIELDS = ("name", "family", "size_label", "source", "checked")


def parse_model_table(doc: Mapping[str, Any]) -> ModelTable:
    """The TOML document to shapes and precisions; raises ModelTableError on a bad row."""
    rows = doc.get("model")
    if not isinstance(rows, list) or not rows:
        raise ModelTableError("no [[model]] rows")
    models = tuple(sorted((_model(row) for row in rows), key=lambda m: m.parameter_count))
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise ModelTableError("two [[model]] rows share a name")
    precision_rows = doc.get("precision")
    if not isinstance(precision_rows, list):
        raise ModelTableError("no [[precision]] rows")
    precisions = {info.precision: info for info in (_precision(r) for r in precision_rows)}
    missing = set(Precision) - set(precisions)
    if missing or len(precisions) != len(precision_rows):
        raise ModelTableError(f"[[precision]] rows must name each of {[p.value for p in Precision]}"
                              " once")
    return ModelTable(models=models, precisions=precisions)


def _model(row: Any) -> ModelShape:
    if not isinstance(row, dict):
        raise ModelTableError("a [[model]] row is not a table")
    name = row.get("name", "?")
    known = {*_INT_FIELDS, *_STR_FIELDS, "head_dim", "tie_word_embeddings",
             "attention_qkv_bias", "sliding_window"}
    unknown = set(row) - known
    if unknown:
        raise ModelTableError(f"{name}: unknown keys {sorted(unknown)}")
    text: dict[str, str] = {}
    for key in _STR_FIELDS:
        value = row.get(key)
        if not isinstance(value, str) or not value:
            raise ModelTableError(f"{name}: {key} must be a non-empty string")
        text[key] = value
        if INTERNAL_PROVENANCE.search(value):
            raise ModelTableError(f"{name}: {key} points at internal notes")
    if not text["source"].startswith("https://huggingface.co/") or not text["source"].endswith(
            "/config.json"):
        raise ModelTableError(f"{name}: source must be the model's config.json on Hugging Face")
    numbers: dict[str, int] = {}
    for key in _INT_FIELDS:
        numbers[key] = _positive_int(row.get(key), f"{name}: {key}")
    heads, kv_heads = numbers["num_attention_heads"], numbers["num_key_value_heads"]
    if heads % kv_heads:
        raise ModelTableError(f"{name}: {heads} attention heads do not group into {kv_heads}")
    head_dim_value = row.get("head_dim")
    if head_dim_value is None:
        if numbers["hidden_size"] % heads:
            raise ModelTableError(f"{name}: hidden_size is not a multiple of the heads")
        head_dim = numbers["hidden_size"] // heads
    else:
        head_dim = _positive_int(head_dim_value, f"{name}: head_dim")
    window = row.get("sliding_window")
    return ModelShape(
        name=text["name"], family=text["family"], size_label=text["size_label"],
        source=text["source"], checked=text["checked"], head_dim=head_dim,
        tie_word_embeddings=_bool(row, "tie_word_embeddings", name, required=True),
        attention_qkv_bias=_bool(row, "attention_qkv_bias", name, required=False),
        sliding_window=_positive_int(window, f"{name}: sliding_window") if window is not None
        else None,
        **numbers)


def _precision(row: Any) -> PrecisionInfo:
    if not isinstance(row, dict):
        raise ModelTableError("a [[precision]] row is not a table")
    try:
        precision = Precision(row.get("name"))
    except ValueError as exc:
        raise ModelTableError(f"unknown precision {row.get('name')!r}") from exc
    bits = row.get("bits_per_weight")
    if isinstance(bits, bool) or not isinstance(bits, (int, float)) or not 1 <= bits <= 32:
        raise ModelTableError(f"{precision.value}: bits_per_weight must be a number in 1..32")
    label, source = row.get("label"), row.get("source")
    if not isinstance(label, str) or not label or not isinstance(source, str) or not source:
        raise ModelTableError(f"{precision.value}: label and source are required")
    if "https://" not in source or INTERNAL_PROVENANCE.search(f"{label} {source}"):
        raise ModelTableError(f"{precision.value}: the source must name its public URL and no "
                              "internal notes")
    return PrecisionInfo(precision=precision, label=label, bits_per_weight=float(bits),
                         source=source)


def _positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ModelTableError(f"{where} must be a positive integer")
    return value


def _bool(row: Mapping[str, Any], key: str, name: str, *, required: bool) -> bool:
    value = row.get(key)
    if value is None and not required:
        return False
    if not isinstance(value, bool):
        raise ModelTableError(f"{name}: {key} must be true or false")
    return value


@functools.cache
def model_table() -> ModelTable:
    """The packaged table, loaded once."""
    return parse_model_table(load_toml_resource(RESOURCE))


def all_models() -> tuple[ModelShape, ...]:
    """Every model in the table, smallest first."""
    return model_table().models


def model_shape(name: str) -> ModelShape | None:
    """The model called `name` ("Llama 3 8B", case and spacing aside); None when unknown."""
    wanted = " ".join(name.lower().split())
    return next((m for m in all_models() if m.name.lower() == wanted), None)


def precision_info(precision: Precision) -> PrecisionInfo:
    return model_table().precisions[precision]


# ----------------------------------------------------------------------------- estimates


def weights_bytes(model: ModelShape, precision: Precision) -> int:
    """parameters x bits_per_weight / 8, rounded up."""
    bits = model.parameter_count * precision_info(precision).bits_per_weight
    return int(-(-bits // 8))


def fits(vram_bytes: int, model: ModelShape | str, precision: Precision | str,
         context_tokens: int = DEFAULT_CONTEXT_TOKENS, *, batch: int = 1,
         overhead_bytes: int = DEFAULT_OVERHEAD_BYTES,
         kv_bytes_per_element: int = DEFAULT_KV_BYTES_PER_ELEMENT) -> FitResult:
    """Whether `model` at `precision` with a KV cache for `context_tokens` (x `batch`) fits in
    `vram_bytes` (formula in the module docstring). Raises ValueError for an unknown model or
    precision name or a negative size."""
    shape = model_shape(model) if isinstance(model, str) else model
    if shape is None:
        raise ValueError(f"unknown model {model!r}; known: {[m.name for m in all_models()]}")
    chosen = Precision(precision)
    if vram_bytes < 0 or context_tokens < 0 or batch < 1 or overhead_bytes < 0:
        raise ValueError("vram_bytes, context_tokens and overhead_bytes must not be negative "
                         "and batch must be at least 1")
    breakdown = FitBreakdown(
        weights_bytes=weights_bytes(shape, chosen),
        kv_cache_bytes=shape.kv_cache_bytes_per_token(kv_bytes_per_element) * context_tokens
        * batch,
        overhead_bytes=overhead_bytes)
    needed = breakdown.total_bytes
    return FitResult(model=shape, precision=chosen, context_tokens=context_tokens, batch=batch,
                     vram_bytes=vram_bytes, fits=needed <= vram_bytes, needed_bytes=needed,
                     breakdown=breakdown, headroom_bytes=vram_bytes - needed)


def fit_table(vram_bytes: int, context_tokens: int = DEFAULT_CONTEXT_TOKENS, *,
              precisions: Sequence[Precision] = TABLE_PRECISIONS,
              models: Iterable[ModelShape] | None = None, batch: int = 1,
              overhead_bytes: int = DEFAULT_OVERHEAD_BYTES) -> tuple[FitRow, ...]:
    """Every model (smallest first) at every precision, for the "what fits" panel."""
    return tuple(
        FitRow(model=m, results=tuple(
            fits(vram_bytes, m, p, context_tokens, batch=batch, overhead_bytes=overhead_bytes)
            for p in precisions))
        for m in (all_models() if models is None else tuple(models)))


def largest_fitting(vram_bytes: int, precision: Precision,
                    context_tokens: int = DEFAULT_CONTEXT_TOKENS) -> ModelShape | None:
    """The model with the most parameters that fits at `precision`; None when none does."""
    fitting = [row.model for row in fit_table(vram_bytes, context_tokens,
                                              precisions=(precision,))
               if row.results[0].fits]
    return fitting[-1] if fitting else None
