"""The arithmetic of an LLM's decode: the shape gpuscope passes (`--llm-shape`, the fields of the
model's config.json), the bytes one decode step reads, the memory-bandwidth ceiling that sets,
and what llama.cpp's quantised weights would give at the same share of it. Standard library
only (see `__init__.py`)."""

from __future__ import annotations

import json
from typing import Any

# Bits per weight of llama.cpp's quantisations, for the decode estimates. Q8_0: block_q8_0 is
# one fp16 scale + 32 int8 = 34 bytes per 32 weights (ggml/src/ggml-common.h). Q4_K_M: 4.8944
# bits/weight measured on Llama-3.1-8B in llama.cpp's quantize table (tools/quantize/README.md,
# https://github.com/ggml-org/llama.cpp/blob/master/tools/quantize/README.md; Llama 2 7B: 4.84).
Q8_0_BITS_PER_WEIGHT = 8.5
Q4_K_M_BITS_PER_WEIGHT = 4.8944
# llama.cpp keeps K and V in f16 by default (common/common.h: cache_type_k = cache_type_v =
# GGML_TYPE_F16), so the estimates count 2 bytes per cached element.
ESTIMATE_KV_BYTES_PER_ELEMENT = 2

_SHAPE_INTS = ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
               "num_key_value_heads", "head_dim", "vocab_size")


# ------------------------------------------------------------------------------- the shape


class Shape:
    """A model's shape as gpuscope passed it (the fields of config.json)."""

    def __init__(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise ValueError("the model shape is not a JSON object")
        self.name = str(raw.get("name") or "unnamed")
        values = {}
        for key in _SHAPE_INTS:
            value = raw.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"model shape {self.name}: {key} must be a positive integer")
            values[key] = value
        self.layers = values["num_hidden_layers"]
        self.hidden = values["hidden_size"]
        self.intermediate = values["intermediate_size"]
        self.heads = values["num_attention_heads"]
        self.kv_heads = values["num_key_value_heads"]
        self.head_dim = values["head_dim"]
        self.vocab = values["vocab_size"]
        if self.heads % self.kv_heads:
            raise ValueError(f"model shape {self.name}: {self.heads} heads do not group into "
                             f"{self.kv_heads} KV heads")
        self.tied = bool(raw.get("tie_word_embeddings"))
        self.qkv_bias = bool(raw.get("attention_qkv_bias"))

    @property
    def layer_parameters(self) -> int:
        h, q_width, kv_width = self.hidden, self.heads * self.head_dim, (
            self.kv_heads * self.head_dim)
        attention = h * q_width + 2 * h * kv_width + q_width * h
        if self.qkv_bias:
            attention += q_width + 2 * kv_width
        return attention + 3 * h * self.intermediate + 2 * h  # + the two RMSNorm weights

    @property
    def embedding_parameters(self) -> int:
        """Embedding and LM head as stored: one matrix when tied."""
        return self.vocab * self.hidden * (1 if self.tied else 2)

    @property
    def weights_read_per_token(self) -> int:
        """Weights one decode step reads: every layer, the final norm, the whole LM head, and
        one row of the embedding (a lookup, not a matrix product)."""
        return self.layers * self.layer_parameters + self.hidden + self.vocab * self.hidden + (
            self.hidden)

    def kv_elements_per_cached_token(self) -> int:
        """K and V of every layer for one cached token."""
        return 2 * self.layers * self.kv_heads * self.head_dim


def mean_keys_read(context_tokens: int, decode_tokens: int) -> float:
    """Cached tokens one step attends over, on average: step i (from 0) reads the context, the
    i tokens before it and itself."""
    return context_tokens + (decode_tokens + 1) / 2


def decode_bytes_per_token(shape: Shape, weight_bytes: float, kv_bytes: float,
                           context_tokens: int, decode_tokens: int) -> float:
    """Bytes a decode step reads: the weights (`weight_bytes` per parameter) and the KV cache
    (`kv_bytes` per element) of the whole model."""
    return shape.weights_read_per_token * weight_bytes + (
        shape.kv_elements_per_cached_token() * kv_bytes
        * mean_keys_read(context_tokens, decode_tokens))


def decode_ceiling(shape: Shape, bandwidth_gb_s: float, tokens_per_s: float, weight_bytes: float,
                   kv_bytes: float, context_tokens: int,
                   decode_tokens: int) -> dict[str, float]:
    """The bandwidth ceiling (measured bandwidth / bytes per token), the measured decode's ratio
    to it, and what the same ratio gives with llama.cpp's Q8_0 and Q4_K_M weights."""
    per_token = decode_bytes_per_token(shape, weight_bytes, kv_bytes, context_tokens,
                                       decode_tokens)
    ceiling = bandwidth_gb_s * 1e9 / per_token
    ratio = tokens_per_s / ceiling
    out = {"bytes_per_token": per_token, "bandwidth_ceiling_tokens_per_s": ceiling,
           "ceiling_ratio": ratio}
    for label, bits in (("q8_0", Q8_0_BITS_PER_WEIGHT), ("q4_k_m", Q4_K_M_BITS_PER_WEIGHT)):
        quantised = decode_bytes_per_token(shape, bits / 8, ESTIMATE_KV_BYTES_PER_ELEMENT,
                                           context_tokens, decode_tokens)
        out[f"estimated_{label}_bytes_per_token"] = quantised
        out[f"estimated_{label}_tokens_per_s"] = ratio * bandwidth_gb_s * 1e9 / quantised
    return out


def parse_shapes(text: str | None) -> dict[str, Any]:
    """The `--llm-shape` argument: {"cpu": shape, "gpu": shape, "chosen_by": ...} or
    {"error": why}; a missing or malformed one becomes an error."""
    if not text:
        return {"error": "gpuscope passed no model shape to the worker (--llm-shape)"}
    try:
        raw = json.loads(text)
    except ValueError as exc:
        return {"error": f"the model shape argument is not JSON: {exc}"}
    return raw if isinstance(raw, dict) else {"error": "the model shape argument is not an object"}
