"""Published llama.cpp tokens/s per card (resources/llm_reference.toml), a verdict for a measured
or imported result against them, and the decode estimate of the "What fits" panel.

Decode is bound by memory bandwidth: each generated token reads every weight once and the KV
cache of the context so far, so

    bytes_per_token   = weights_bytes(model, precision) + kv_cache_bytes_per_token x context
    ceiling_tokens_s  = bandwidth_bytes_per_s / bytes_per_token
    estimate          = ratio x ceiling_tokens_s

(weights and KV sizes from `gpuscope.knowledge.model_fit`). The ratio, the share of the ceiling
a runtime reaches, is taken in this order, and the estimate says which (`Estimate.basis`):
  1. "measured ratio": this machine's measured decode / its bandwidth ceiling (the LLM
     benchmark's `ceiling_ratio`), passed by the caller;
  2. "published results": the median over the card's published decode rows that name a model
     shape and a precision gpuscope knows (published tokens/s / the card's datasheet ceiling
     for that row), same backend first;
  3. "datasheet bandwidth only": the median ratio over every such row of the table, for a card
     nobody published a decode figure for.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuscope.i18n import N_, message
from gpuscope.knowledge._resources import load_toml_resource, table_rows
from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.model_fit import (
    ModelShape,
    Precision,
    model_shape,
    weights_bytes,
)
from gpuscope.knowledge.sources import INTERNAL_PROVENANCE
from gpuscope.knowledge.specs import GpuSpec, gpu_spec

RESOURCE = "llm_reference.toml"
SCHEMA_VERSION = 1
BACKENDS = ("ROCm", "Vulkan", "CUDA", "Metal")
# A measured result is "low" below the published low x (1 - margin), "high" above the published
# high x (1 + margin): gpuscope's own allowance for builds, drivers, clocks and prompts.
MARGIN_FRACTION = 0.10
# The GGUF types gpuscope has a size for (model_fit.Precision).
QUANT_PRECISION: Mapping[str, Precision] = {
    "F16": Precision.FP16, "BF16": Precision.BF16, "Q8_0": Precision.INT8,
    "Q4_0": Precision.INT4, "Q4_K_M": Precision.Q4_K_M}
_TEST = re.compile(r"(pp|tg)(\d+)?(?:@d(\d+))?")
_QUANT = re.compile(r"(?:[QI]Q?\d[A-Z0-9_]*|F16|BF16|F32)")

BASIS_MEASURED = N_("measured ratio")
BASIS_PUBLISHED = N_("published results")
BASIS_DATASHEET = N_("datasheet bandwidth only")


class LlmReferenceTableError(ValueError):
    """resources/llm_reference.toml does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class PublishedResult:
    """One published figure, as the source printed it."""

    card: str  # the spec table's name
    model: str  # as the source names it
    shape: str | None  # the model_shapes.toml model of the same shape, when unambiguous
    quantisation: str  # "Q4_K_M"
    backend: str  # "ROCm", "Vulkan", "CUDA", "Metal"
    test: str  # "tg128", "pp512", "tg64@d4096", "tg"
    tokens_per_s_low: float
    tokens_per_s_high: float  # equal to the low for a single figure
    source: str  # https URL
    build: str | None = None
    note: str | None = None

    @property
    def is_range(self) -> bool:
        return self.tokens_per_s_high != self.tokens_per_s_low

    @property
    def tokens_per_s(self) -> float:
        """The figure; the middle of a published range."""
        return (self.tokens_per_s_low + self.tokens_per_s_high) / 2

    @property
    def is_decode(self) -> bool:
        return self.test.startswith("tg")

    @property
    def value_text(self) -> str:
        if self.is_range:
            return f"{self.tokens_per_s_low:g}–{self.tokens_per_s_high:g}"
        return f"{self.tokens_per_s_low:g}"

    def describe(self) -> str:
        """"llama 8B Q4_K_M, ROCm, tg64: 105.81 tokens/s (https://...)"."""
        return message("{model}, {backend}, {test}: {value} tokens/s ({source})",
                       model=self.model, backend=self.backend, test=self.test,
                       value=self.value_text, source=self.source)


# ----------------------------------------------------------------------------- parsing

_REQUIRED = ("card", "model", "quantisation", "backend", "test", "source")
_KNOWN = {*_REQUIRED, "shape", "tokens_per_s", "tokens_per_s_range", "build", "note"}


def parse_reference_table(doc: Mapping[str, Any]) -> tuple[PublishedResult, ...]:
    """The TOML document to results; LlmReferenceTableError on a malformed row, an unknown
    card or model shape, or a figure that is not a positive number."""
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise LlmReferenceTableError(f"schema_version must be {SCHEMA_VERSION}")
    rows = table_rows(doc, "result", LlmReferenceTableError)
    if not rows:
        raise LlmReferenceTableError("no [[result]] rows")
    return tuple(_result(row, number) for number, row in enumerate(rows, 1))


def _result(row: Mapping[str, Any], number: int) -> PublishedResult:
    where = f"[[result]] {number}"
    unknown = set(row) - _KNOWN
    if unknown:
        raise LlmReferenceTableError(f"{where}: unknown keys {sorted(unknown)}")
    text: dict[str, str] = {}
    for key in (*_REQUIRED, "shape", "build", "note"):
        value = row.get(key)
        if value is None and key not in _REQUIRED:
            continue
        if not isinstance(value, str) or not value.strip():
            raise LlmReferenceTableError(f"{where}: {key} must be a non-empty string")
        if INTERNAL_PROVENANCE.search(value):
            raise LlmReferenceTableError(f"{where}: {key} points at internal notes")
        text[key] = value
    spec = gpu_spec(text["card"])
    if spec is None or spec.name != text["card"]:
        raise LlmReferenceTableError(f"{where}: {text['card']!r} is not a spec-table name")
    if "shape" in text and model_shape(text["shape"]) is None:
        raise LlmReferenceTableError(f"{where}: no model shape {text['shape']!r}")
    if text["backend"] not in BACKENDS:
        raise LlmReferenceTableError(f"{where}: backend must be one of {BACKENDS}")
    if not _QUANT.fullmatch(text["quantisation"]):
        raise LlmReferenceTableError(f"{where}: {text['quantisation']!r} is not a GGUF type")
    if not _TEST.fullmatch(text["test"]):
        raise LlmReferenceTableError(f"{where}: test must look like pp512, tg128, tg64@d4096")
    if not re.fullmatch(r"https://\S+", text["source"]):
        raise LlmReferenceTableError(f"{where}: source must be an https URL")
    low, high = _figures(row, where)
    return PublishedResult(
        card=text["card"], model=text["model"], shape=text.get("shape"),
        quantisation=text["quantisation"], backend=text["backend"], test=text["test"],
        tokens_per_s_low=low, tokens_per_s_high=high, source=text["source"],
        build=text.get("build"), note=text.get("note"))


def _figures(row: Mapping[str, Any], where: str) -> tuple[float, float]:
    single, ranged = row.get("tokens_per_s"), row.get("tokens_per_s_range")
    if (single is None) == (ranged is None):
        raise LlmReferenceTableError(f"{where}: give tokens_per_s or tokens_per_s_range")
    values = [single] if ranged is None else ranged
    if not isinstance(values, list) or len(values) not in (1, 2) or (
            ranged is not None and len(values) != 2):
        raise LlmReferenceTableError(f"{where}: tokens_per_s_range is [low, high]")
    numbers: list[float] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value) or value <= 0:
            raise LlmReferenceTableError(f"{where}: tokens/s must be positive numbers")
        numbers.append(float(value))
    if numbers[-1] < numbers[0]:
        raise LlmReferenceTableError(f"{where}: the range's low is above its high")
    return numbers[0], numbers[-1]


@functools.cache
def reference_table() -> tuple[PublishedResult, ...]:
    """The packaged table, loaded once."""
    return parse_reference_table(load_toml_resource(RESOURCE))


def _safe_table() -> tuple[PublishedResult, ...]:
    try:
        return reference_table()
    except (OSError, ValueError):  # a broken table means no reference, never a crash
        return ()


# ----------------------------------------------------------------------------- lookups


def _card_name(card: GpuSpec | str | None) -> str | None:
    if card is None:
        return None
    if isinstance(card, GpuSpec):
        return card.name
    spec = gpu_spec(card)
    return spec.name if spec is not None else None


def published_results(card: GpuSpec | str | None) -> tuple[PublishedResult, ...]:
    """The card's published rows, in table order; () for a card nobody published."""
    name = _card_name(card)
    return tuple(r for r in _safe_table() if r.card == name) if name else ()


def _test_parts(test: str) -> tuple[str, int | None, int]:
    match = _TEST.fullmatch(test.strip().lower())
    if match is None:
        return test, None, 0
    return match.group(1), int(match.group(2)) if match.group(2) else None, int(
        match.group(3) or 0)


def _same_test(published: str, measured: str) -> bool:
    """tg tests of any length compare (decode speed barely moves from 64 to 512 tokens); pp
    tests need the same length where both give one; the context depth must match."""
    kind_a, length_a, depth_a = _test_parts(published)
    kind_b, length_b, depth_b = _test_parts(measured)
    if kind_a != kind_b or depth_a != depth_b:
        return False
    return kind_a == "tg" or length_a is None or length_b is None or length_a == length_b


def _same_model(result: PublishedResult, model: str) -> bool:
    wanted = " ".join(model.lower().split())
    if result.shape is not None and result.shape.lower() == wanted:
        return True
    return " ".join(result.model.lower().split()) == wanted


def matching_results(card: GpuSpec | str | None, model: str, quantisation: str, backend: str,
                     test: str) -> tuple[PublishedResult, ...]:
    """The published rows a result of this model (a model_shapes name or the source's model
    text), quantisation, backend and test compares with."""
    return tuple(r for r in published_results(card)
                 if _same_model(r, model) and r.quantisation.upper() == quantisation.upper()
                 and r.backend.lower() == backend.lower() and _same_test(r.test, test))


@dataclass(frozen=True, slots=True)
class LlmVerdict:
    """A measured or imported tokens/s against the published figures: a level (the matmul
    verdicts' levels), the published band and the rows it rests on."""

    level: VerdictLevel
    text: str
    band_tokens_per_s: tuple[float, float] | None
    references: tuple[PublishedResult, ...]


def judge(card: GpuSpec | str | None, model: str, quantisation: str, backend: str, test: str,
          tokens_per_s: float) -> LlmVerdict:
    """Normal, low, high or unknown against the published rows of the same card, model,
    quantisation, backend and test. Never raises on odd input: it becomes unknown."""
    if isinstance(tokens_per_s, bool) or not isinstance(tokens_per_s, (int, float)) or \
            not math.isfinite(tokens_per_s) or tokens_per_s <= 0:
        return LlmVerdict(VerdictLevel.UNKNOWN, message(
            "{value} is not a valid measurement", value=repr(tokens_per_s)), None, ())
    references = matching_results(card, model, quantisation, backend, test)
    value = f"{tokens_per_s:.1f}"
    if not references:
        others = [r for r in published_results(card)
                  if _same_model(r, model) and r.quantisation.upper() == quantisation.upper()
                  and _same_test(r.test, test)]
        text = message("{value} tokens/s; no published {test} result for {model} {quant} "
                       "with {backend} on this card, so gpuscope cannot say whether that is "
                       "normal.", value=value, test=test, model=model, quant=quantisation,
                       backend=backend)
        if others:
            text = message("{text} Published with other backends: {rows}.", text=text,
                           rows="; ".join(r.describe() for r in others))
        return LlmVerdict(VerdictLevel.UNKNOWN, text, None, ())
    low = min(r.tokens_per_s_low for r in references)
    high = max(r.tokens_per_s_high for r in references)
    band = f"{low:g}–{high:g}" if high != low else f"{low:g}"
    values = {"value": value, "band": band, "count": len(references)}
    if tokens_per_s < low * (1 - MARGIN_FRACTION):
        level = VerdictLevel.LOW
        text = message("{value} tokens/s: low (published: {band} tokens/s, {count} results). "
                       "A sign of trouble: check that every layer is on the GPU (ngl), the "
                       "backend, and the clocks during the run.", **values)
    elif tokens_per_s > high * (1 + MARGIN_FRACTION):
        level = VerdictLevel.HIGH
        text = message("{value} tokens/s: above what is published ({band} tokens/s, {count} "
                       "results); not a sign of trouble: newer builds are often faster.",
                       **values)
    else:
        level = VerdictLevel.NORMAL
        text = message("{value} tokens/s: normal (published: {band} tokens/s, {count} "
                       "results).", **values)
    return LlmVerdict(level, text, (low, high), references)


# ----------------------------------------------------------------------------- the estimate


@dataclass(frozen=True, slots=True)
class Estimate:
    """Expected decode tokens/s and what it rests on."""

    tokens_per_s: float
    ceiling_tokens_per_s: float  # bandwidth / bytes per token
    ratio: float
    basis: str  # BASIS_MEASURED, BASIS_PUBLISHED or BASIS_DATASHEET (English; translatable)
    bandwidth_gb_s: float
    bytes_per_token: int
    references: tuple[PublishedResult, ...] = ()  # the rows a published ratio comes from

    def explain(self) -> str:
        """One line: how the figure was reached."""
        return message("{ratio} of the {ceiling} tokens/s ceiling ({bandwidth} GB/s / "
                       "{gb} GB read per token); ratio from {basis}",
                       ratio=f"{self.ratio:.0%}", ceiling=f"{self.ceiling_tokens_per_s:.0f}",
                       bandwidth=f"{self.bandwidth_gb_s:g}",
                       gb=f"{self.bytes_per_token / 1e9:.2f}", basis=message(self.basis))


def bytes_per_token(shape: ModelShape, precision: Precision, context_tokens: int) -> int:
    """What one decode step reads: every weight and the KV cache of `context_tokens`."""
    return weights_bytes(shape, precision) + shape.kv_cache_bytes_per_token() * max(
        0, context_tokens)


def row_context_tokens(test: str) -> int:
    """The mean context during a tg test: its depth plus half its tokens."""
    _kind, length, depth = _test_parts(test)
    return depth + (length or 128) // 2


def published_ratio(result: PublishedResult) -> float | None:
    """The row's published decode / its card's datasheet ceiling; None when the row is not a
    decode row with a known shape and precision, or the card has no bandwidth figure."""
    precision = QUANT_PRECISION.get(result.quantisation.upper())
    shape = model_shape(result.shape) if result.shape else None
    spec = gpu_spec(result.card)
    if not result.is_decode or precision is None or shape is None or spec is None or \
            not spec.memory_bandwidth_gb_s:
        return None
    ceiling = spec.memory_bandwidth_gb_s * 1e9 / bytes_per_token(
        shape, precision, row_context_tokens(result.test))
    return result.tokens_per_s / ceiling


@functools.cache
def default_ratio() -> tuple[float, int]:
    """The median ratio over every calibrating row of the table, and how many there are;
    (0.6, 0) when there is none."""
    ratios = [r for r in (published_ratio(x) for x in _safe_table()) if r is not None]
    return (statistics.median(ratios), len(ratios)) if ratios else (0.6, 0)


def estimate_decode_tokens_per_s(card_or_bandwidth_gb_s: GpuSpec | str | float,
                                 model: ModelShape | str, precision: Precision | str,
                                 context_tokens: int, ratio: float | None = None, *,
                                 backend: str | None = None) -> Estimate | None:
    """Expected decode tokens/s of `model` at `precision` after `context_tokens` of context
    (see the module docstring for the basis order). None when the bandwidth is unknown, the
    model or precision unknown, or the ratio not in (0, 1.5]."""
    shape = model_shape(model) if isinstance(model, str) else model
    try:
        chosen = Precision(precision)
    except ValueError:
        return None
    spec: GpuSpec | None = None
    if isinstance(card_or_bandwidth_gb_s, (GpuSpec, str)):
        spec = card_or_bandwidth_gb_s if isinstance(card_or_bandwidth_gb_s, GpuSpec) else \
            gpu_spec(card_or_bandwidth_gb_s)
        bandwidth = spec.memory_bandwidth_gb_s if spec is not None else None
    else:
        bandwidth = float(card_or_bandwidth_gb_s)
    if shape is None or bandwidth is None or not math.isfinite(bandwidth) or bandwidth <= 0:
        return None
    per_token = bytes_per_token(shape, chosen, context_tokens)
    ceiling = bandwidth * 1e9 / per_token
    references: tuple[PublishedResult, ...] = ()
    if ratio is not None:
        if not math.isfinite(ratio) or not 0 < ratio <= 1.5:
            return None
        used, basis = ratio, BASIS_MEASURED
    else:
        rows = [r for r in published_results(spec) if published_ratio(r) is not None]
        # A quantised decode reaches less of the ceiling than fp16 (dequantising costs): rows
        # of the same precision first, then of the same backend.
        rows = [r for r in rows if QUANT_PRECISION.get(r.quantisation.upper()) is chosen] or rows
        rows = [r for r in rows if backend and r.backend.lower() == backend.lower()] or rows
        if rows:
            used = statistics.median(published_ratio(r) or 0.0 for r in rows)
            basis, references = BASIS_PUBLISHED, tuple(rows)
        else:
            used, basis = default_ratio()[0], BASIS_DATASHEET
    return Estimate(tokens_per_s=used * ceiling, ceiling_tokens_per_s=ceiling, ratio=used,
                    basis=basis, bandwidth_gb_s=bandwidth, bytes_per_token=per_token,
                    references=references)


def published_decode(card: GpuSpec | str | None, shape: ModelShape | str,
                     precision: Precision) -> tuple[PublishedResult, ...]:
    """The card's published decode rows for exactly this model shape and precision (the
    What-fits cell shows these instead of an estimate)."""
    name = shape if isinstance(shape, str) else shape.name
    return tuple(r for r in published_results(card)
                 if r.is_decode and r.shape is not None and r.shape.lower() == name.lower()
                 and QUANT_PRECISION.get(r.quantisation.upper()) is precision)
