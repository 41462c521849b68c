"""LLM throughput: a decoder with the exact shapes of a named model (random weights), timed on
prefill (a 512-token prompt) and decode (single-token steps after 512 or 4096 tokens of
context), with the decode's memory-bandwidth ceiling.

The model: embedding; per layer RMSNorm, q/k/v projections (with bias when the model has it),
rotary position embedding on q and k, scaled_dot_product_attention over a KV cache (GQA), o_proj,
RMSNorm, SwiGLU MLP (gate, up, down); the final norm and the LM head (tied or not). fp32 on a
CPU, bf16 (else fp16) on a GPU. gpuscope passes the shape's numbers (`--llm-shape`, JSON); the
worker cannot read gpuscope's model table.

As many layers as fit in free memory are built (on a CPU at most CPU_MAX_LAYERS, to keep the suite
within a minute). When that is fewer than the model has, the layers and the embedding + head
are timed apart and the per-layer time is scaled to the full depth; every result says so
(`extrapolated`, `layers_measured`, `layers_total`).
"""

from __future__ import annotations

import importlib
import math
import statistics
from collections.abc import Callable
from typing import Any

from .llm_shape import Shape, decode_ceiling, parse_shapes
from .measure import (
    OOM_PATTERN,
    Context,
    Measurement,
    Progress,
    Unsupported,
    WrongResult,
    measure,
    spread,
)

PROMPT_TOKENS = 512
CONTEXT_TOKENS = {"llm.prefill": 0, "llm.decode": 512, "llm.decode_long": 4096}
GPU_DECODE_TOKENS = 128
# Two CPU cores decode the 0.5B shape at about 4 tokens/s: 128 steps per repeat would not fit
# the suite's minute.
CPU_DECODE_TOKENS = 16
CPU_MAX_LAYERS = 4
HEAD_TIMING_STEPS = 4  # decode steps per timed call of the embedding + head alone
# Measuring time per timed function on a CPU (three functions per benchmark at most): a timed
# call takes about a second there, so this means a warm-up call, a sizing call and 3 repeats.
CPU_BUDGET_S = 0.5
CPU_RAM_SHARE = 0.5  # of MemAvailable
GPU_RESERVE_SHARE = 0.1  # of free VRAM, kept for activations, SDPA workspaces, the allocator
GPU_RESERVE_BYTES = 1 << 30
OOM_RETRIES = 3  # building with 3/4 of the layers each time the allocation fails
BANDWIDTH_ARRAY_BYTES_CPU = 128 << 20  # far beyond a last-level cache (this is not scaled)
BANDWIDTH_ARRAY_BYTES_GPU = 1 << 30
WEIGHT_STD = 0.02  # the usual initializer_range
ROPE_THETA = 10000.0  # the base changes the angles, not the work
RMS_EPS = 1e-6
CHECK_TOKENS = 16  # prompt of the KV-cache check: prefill(P) against prefill(P-1) + one step
CHECK_TOLERANCE = {"float32": 1e-3, "float16": 2e-2, "bfloat16": 1e-1}

# ------------------------------------------------------------------------------- the model


class Decoder:
    """The weights of `layer_count` layers, the embedding and the head, on one device."""

    def __init__(self, ctx: Context, shape: Shape, layer_count: int, dtype: Any,
                 progress: Callable[[float, str], None]) -> None:
        torch = ctx.torch
        self.ctx, self.shape, self.dtype = ctx, shape, dtype
        self.functional = importlib.import_module("torch.nn.functional")
        device = ctx.device
        # Weights come from a random pool, copied at memory speed: drawing 2 GB of normals one
        # by one takes seconds on a small CPU, and the values do not change the work.
        self._pool = torch.randn(1 << 20, device=device, dtype=torch.float32).mul_(
            WEIGHT_STD).to(dtype)
        self._offset = 0
        h, q_width, kv_width = shape.hidden, shape.heads * shape.head_dim, (
            shape.kv_heads * shape.head_dim)
        self.embedding = self._random(shape.vocab, h)
        self.head = self.embedding if shape.tied else self._random(shape.vocab, h)
        self.final_norm = torch.ones(h, device=device, dtype=dtype)
        self.layers: list[dict[str, Any]] = []
        for index in range(layer_count):
            progress(0.02 + 0.08 * index / layer_count, "setup")
            bias = shape.qkv_bias
            self.layers.append({
                "input_norm": torch.ones(h, device=device, dtype=dtype),
                "q": self._random(q_width, h), "q_bias": self._random(q_width) if bias else None,
                "k": self._random(kv_width, h),
                "k_bias": self._random(kv_width) if bias else None,
                "v": self._random(kv_width, h),
                "v_bias": self._random(kv_width) if bias else None,
                "o": self._random(h, q_width),
                "post_norm": torch.ones(h, device=device, dtype=dtype),
                "gate": self._random(shape.intermediate, h),
                "up": self._random(shape.intermediate, h),
                "down": self._random(h, shape.intermediate),
            })
        self._pool = None
        self.gqa_native = self._has_enable_gqa()
        self.rope_tokens = 0
        self.cos: Any = None
        self.sin: Any = None
        self.caches: list[tuple[Any, Any]] = []

    def _random(self, *size: int) -> Any:
        tensor = self.ctx.torch.empty(*size, device=self.ctx.device, dtype=self.dtype)
        flat = tensor.view(-1)
        pool = self._pool
        assert pool is not None
        done = 0
        while done < flat.numel():
            start = self._offset
            take = min(flat.numel() - done, pool.numel() - start)
            flat[done:done + take].copy_(pool[start:start + take])
            done += take
            self._offset = (start + take + 7919) % (pool.numel() - 1)
        return tensor

    def _has_enable_gqa(self) -> bool:
        torch = self.ctx.torch
        q = torch.zeros(1, 2, 1, 8, device=self.ctx.device, dtype=self.dtype)
        kv = torch.zeros(1, 1, 2, 8, device=self.ctx.device, dtype=self.dtype)
        try:
            self.functional.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
        except (TypeError, RuntimeError):
            return False  # torch < 2.5: K and V are repeated per query head instead
        return True

    # -- caches and rotary tables

    def allocate(self, tokens: int) -> None:
        """KV caches and rotary tables for `tokens` positions (dropping the previous ones)."""
        torch, shape = self.ctx.torch, self.shape
        self.caches = []
        self.cos = self.sin = None
        for _ in self.layers:
            size = (1, shape.kv_heads, tokens, shape.head_dim)
            self.caches.append((torch.zeros(size, device=self.ctx.device, dtype=self.dtype),
                                torch.zeros(size, device=self.ctx.device, dtype=self.dtype)))
        half = shape.head_dim // 2
        inverse = 1.0 / (ROPE_THETA ** (torch.arange(0, half, device=self.ctx.device,
                                                      dtype=torch.float32) / half))
        angles = torch.outer(torch.arange(tokens, device=self.ctx.device,
                                          dtype=torch.float32), inverse)
        angles = torch.cat((angles, angles), dim=-1)
        self.cos = angles.cos().to(self.dtype)
        self.sin = angles.sin().to(self.dtype)
        self.rope_tokens = tokens

    def fill_context(self, tokens: int) -> None:
        """Random keys and values in the first `tokens` cache positions: a decode step's time
        does not depend on what it attends over."""
        for k_cache, v_cache in self.caches:
            k_cache[:, :, :tokens].normal_()
            v_cache[:, :, :tokens].normal_()

    # -- the forward pass

    def _norm(self, x: Any, weight: Any) -> Any:
        functional = self.functional
        if hasattr(functional, "rms_norm"):
            return functional.rms_norm(x, (x.shape[-1],), weight, RMS_EPS)
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * (variance + RMS_EPS).rsqrt()).to(x.dtype) * weight

    def _rotate(self, x: Any, position: int, count: int) -> Any:
        cos = self.cos[position:position + count]
        sin = self.sin[position:position + count]
        half = x.shape[-1] // 2
        rotated = self.ctx.torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def layer(self, index: int, x: Any, position: int) -> Any:
        """One decoder layer over x (1, T, hidden) at cache positions position..position+T-1.
        A prompt (T > 1) starts at position 0."""
        functional, shape, weights = self.functional, self.shape, self.layers[index]
        count = x.shape[1]
        normed = self._norm(x, weights["input_norm"])
        q = functional.linear(normed, weights["q"], weights["q_bias"])
        k = functional.linear(normed, weights["k"], weights["k_bias"])
        v = functional.linear(normed, weights["v"], weights["v_bias"])
        q = q.view(1, count, shape.heads, shape.head_dim).transpose(1, 2)
        k = k.view(1, count, shape.kv_heads, shape.head_dim).transpose(1, 2)
        v = v.view(1, count, shape.kv_heads, shape.head_dim).transpose(1, 2)
        q = self._rotate(q, position, count)
        k = self._rotate(k, position, count)
        k_cache, v_cache = self.caches[index]
        end = position + count
        k_cache[:, :, position:end] = k
        v_cache[:, :, position:end] = v
        keys, values = k_cache[:, :, :end], v_cache[:, :, :end]
        causal = count > 1
        if self.gqa_native:
            attended = functional.scaled_dot_product_attention(q, keys, values,
                                                               is_causal=causal,
                                                               enable_gqa=True)
        else:
            group = shape.heads // shape.kv_heads
            attended = functional.scaled_dot_product_attention(
                q, keys.repeat_interleave(group, dim=1), values.repeat_interleave(group, dim=1),
                is_causal=causal)
        attended = attended.transpose(1, 2).reshape(1, count, shape.heads * shape.head_dim)
        x = x + functional.linear(attended, weights["o"])
        normed = self._norm(x, weights["post_norm"])
        gated = functional.silu(functional.linear(normed, weights["gate"])) * functional.linear(
            normed, weights["up"])
        return x + functional.linear(gated, weights["down"])

    def layers_forward(self, x: Any, position: int) -> Any:
        for index in range(len(self.layers)):
            x = self.layer(index, x, position)
        return x

    def embed(self, tokens: Any) -> Any:
        return self.functional.embedding(tokens, self.embedding)

    def logits(self, x: Any) -> Any:
        """The LM head on the last position only (as llama.cpp computes logits)."""
        return self.functional.linear(self._norm(x[:, -1:], self.final_norm), self.head)

    def random_tokens(self, count: int) -> Any:
        torch = self.ctx.torch
        return torch.randint(0, self.shape.vocab, (1, count), device=self.ctx.device)

    def random_hidden(self, count: int) -> Any:
        torch = self.ctx.torch
        return torch.randn(1, count, self.shape.hidden, device=self.ctx.device, dtype=self.dtype)


# ------------------------------------------------------------------------------- the run's cache


class _Built:
    """What the llm benchmarks of one run share: the model, the bandwidth measured before it
    was built, and the embedding + head decode timing."""

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.model: Decoder | None = None
        self.layers_limited_by: str | None = None
        self.bandwidth_gb_s: float | None = None
        self.bandwidth_how = ""
        self.head_step_s: float | None = None  # embedding + head, one decode step (median)


_BUILT = _Built()


def release() -> None:
    """Drop the model (the worker calls this before a benchmark that is not an llm one)."""
    global _BUILT
    _BUILT = _Built()


def _dtype(ctx: Context) -> Any:
    torch = ctx.torch
    if not ctx.is_gpu:
        return torch.float32
    try:
        if torch.cuda.is_bf16_supported():
            return torch.bfloat16
    except Exception:  # an old torch without the query: fp16 runs everywhere
        pass
    return torch.float16


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def _available_ram_bytes() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _layer_budget(ctx: Context, shape: Shape, element_bytes: int) -> tuple[int, str | None]:
    """How many layers to build, and what limited it (None: the whole model fits)."""
    cache_tokens = max(CONTEXT_TOKENS.values()) + GPU_DECODE_TOKENS
    per_layer = (shape.layer_parameters * element_bytes
                 + 2 * shape.kv_heads * shape.head_dim * cache_tokens * element_bytes)
    fixed = shape.embedding_parameters * element_bytes
    limits: list[tuple[int, str]] = []
    if ctx.is_gpu:
        free, _total = ctx.torch.cuda.mem_get_info(ctx.device)
        usable = free - int(free * GPU_RESERVE_SHARE) - GPU_RESERVE_BYTES - fixed
        limits.append((usable // per_layer, f"free VRAM ({free / 2**30:.1f} GiB)"))
    else:
        available = _available_ram_bytes()
        if available is not None:
            usable = int(available * CPU_RAM_SHARE) - fixed
            limits.append((usable // per_layer,
                           f"half the available RAM ({available / 2**30:.1f} GiB)"))
        limits.append((max(1, round(CPU_MAX_LAYERS * ctx.scale)),
                       f"the time budget on a CPU (at most {CPU_MAX_LAYERS} layers)"))
    if ctx.scale < 1:
        limits.append((max(1, math.ceil(shape.layers * ctx.scale)),
                       f"the benchmark scale {ctx.scale:g}"))
    count, why = shape.layers, None
    for limit, reason in limits:
        if limit < count:
            count, why = int(limit), reason
    if count < 1:
        raise Unsupported(f"the embedding, the head and one layer of {shape.name} "
                          f"({(fixed + per_layer) / 2**30:.1f} GiB) do not fit in {why}")
    return count, why


def _copy_times(ctx: Context, progress: Progress, elements: int) -> list[float]:
    torch = ctx.torch
    a = torch.empty(elements, device=ctx.device, dtype=torch.float32)
    b = torch.rand(elements, device=ctx.device, dtype=torch.float32)
    m = _timed(ctx, lambda: a.copy_(b), progress, 0.0, 0.02)
    return m.times_s


def _measure_bandwidth(ctx: Context, progress: Progress) -> tuple[float, str]:
    size = BANDWIDTH_ARRAY_BYTES_GPU if ctx.is_gpu else BANDWIDTH_ARRAY_BYTES_CPU
    total = ctx.total_memory_bytes()
    if total:
        size = min(size, total // 10)
    elements = size // 4
    times = _copy_times(ctx, progress, elements)
    if ctx.is_gpu:
        ctx.torch.cuda.empty_cache()  # the free VRAM read next must not count the arrays
    # A ceiling is what the memory can do: the best repeat, not the median (a repeat slowed
    # by another load on the machine would lower the ceiling and flatter the decode).
    rate = max(2.0 * elements * 4 / t / 1e9 for t in times if t > 0)
    how = (f"memory copy a = b of two {size >> 20} MiB float32 arrays, read + write counted "
           f"(as memory.copy), best of {len(times)} repeats, before the model was built")
    return rate, how


def _model(ctx: Context, progress: Progress, shape: Shape) -> Decoder:
    dtype = _dtype(ctx)
    key = (shape.name, shape.layers, shape.hidden, str(ctx.device), _dtype_name(dtype),
           ctx.scale)
    if _BUILT.key == key and _BUILT.model is not None:
        return _BUILT.model
    release()
    _BUILT.bandwidth_gb_s, _BUILT.bandwidth_how = _measure_bandwidth(ctx, progress)
    count, why = _layer_budget(ctx, shape, ctx.torch.tensor([], dtype=dtype).element_size())
    for attempt in range(OOM_RETRIES + 1):
        try:
            _BUILT.model = Decoder(ctx, shape, count, dtype, progress)
            break
        except Exception as exc:  # the free-memory estimate was too high: fewer layers
            if not _is_oom(ctx, exc) or attempt == OOM_RETRIES or count <= 1:
                raise
        if ctx.is_gpu:
            ctx.torch.cuda.empty_cache()
        count = max(1, count * 3 // 4)
        why = f"out of memory while building more layers (retried with {count})"
    model = _BUILT.model
    assert model is not None  # the loop built it or raised
    _BUILT.key, _BUILT.layers_limited_by = key, why
    return model


def _is_oom(ctx: Context, exc: BaseException) -> bool:
    for holder in (ctx.torch, getattr(ctx.torch, "cuda", None)):
        cls = getattr(holder, "OutOfMemoryError", None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return isinstance(exc, MemoryError) or bool(OOM_PATTERN.search(str(exc)))


# ------------------------------------------------------------------------------- timing


def _budgeted(ctx: Context) -> Context:
    if ctx.is_gpu or ctx.budget_s <= CPU_BUDGET_S:
        return ctx
    budgeted = Context(ctx.torch, ctx.device, ctx.build, ctx.scale, CPU_BUDGET_S)
    budgeted.llm_shapes = ctx.llm_shapes
    return budgeted


def _timed(ctx: Context, fn: Callable[[], Any], progress: Progress, start: float,
           end: float) -> Measurement:
    return measure(_budgeted(ctx), fn, progress, start_fraction=start, end_fraction=end)


def _rates(work: float, layer_times: list[float], head_s: float | None, scale: float,
           ) -> list[float]:
    """Tokens/s per repeat: measured directly (head_s None) or with the layers' time scaled to
    the full depth and the embedding + head added."""
    rates = []
    for seconds in layer_times:
        total = seconds if head_s is None else head_s + seconds * scale
        if total > 0:
            rates.append(work / total)
    if not rates:
        raise RuntimeError("no timed repeat took measurable time")
    return rates


def _shape_of(ctx: Context) -> Shape:
    shapes = ctx.llm_shapes or parse_shapes(None)
    if "error" in shapes:
        raise ValueError(str(shapes["error"]))
    raw = shapes.get("gpu" if ctx.is_gpu else "cpu")
    if raw is None:
        raise ValueError("gpuscope passed no model shape for this device")
    return Shape(raw)


def _common(result: dict[str, Any], shapes: dict[str, Any], model: Decoder,
            extrapolated: bool) -> None:
    shape = model.shape
    result["unit"] = "tokens/s"
    result["parameters"].update(
        model_shape=shape.name, model_shape_chosen_by=str(shapes.get("chosen_by") or "default"),
        dtype=_dtype_name(model.dtype), layers_measured=len(model.layers),
        layers_total=shape.layers, extrapolated=extrapolated,
        layers_limited_by=_BUILT.layers_limited_by,
        extrapolation=("per-layer time x the full depth, plus the embedding and head timed "
                       "apart" if extrapolated else None),
        weights="random", parameters_total=shape.layers * shape.layer_parameters
        + shape.embedding_parameters + shape.hidden,
        attention=("scaled_dot_product_attention over a KV cache, "
                   + ("enable_gqa" if model.gqa_native else "K/V repeated per query head")))


def bench_prefill(ctx: Context, progress: Progress, result: dict[str, Any]) -> None:
    torch = ctx.torch
    shape = _shape_of(ctx)
    progress(0.0, "setup")
    with torch.inference_mode():
        model = _model(ctx, progress, shape)
        prompt = max(32, int(PROMPT_TOKENS * ctx.scale)) if ctx.scale < 1 else PROMPT_TOKENS
        model.allocate(prompt)
        extrapolated = len(model.layers) < shape.layers
        tokens = model.random_tokens(prompt)
        _common(result, ctx.llm_shapes, model, extrapolated)
        result["parameters"].update(prompt_tokens=prompt, context_tokens=0,
                                    logits="last position only")
        if not extrapolated:
            def full() -> Any:
                return model.logits(model.layers_forward(model.embed(tokens), 0))
            m = _timed(ctx, full, progress, 0.1, 0.85)
            rates = _rates(prompt, m.times_s, None, 1.0)
        else:
            hidden = model.random_hidden(prompt)

            def layers() -> Any:
                return model.layers_forward(hidden, 0)

            def head() -> Any:
                return model.logits(model.embed(tokens))
            m = _timed(ctx, layers, progress, 0.1, 0.7)
            h = _timed(ctx, head, progress, 0.7, 0.85)
            rates = _rates(prompt, m.times_s, statistics.median(h.times_s),
                           shape.layers / len(model.layers))
            result["parameters"]["embedding_and_head_s_per_prompt"] = statistics.median(
                h.times_s)
        _finish(result, m, rates)
        progress(0.88, "check")
        _check(ctx, model, result)


def _check(ctx: Context, model: Decoder, result: dict[str, Any]) -> None:
    """The KV cache, the rotary positions and the mask agree: the last token's logits of one
    prefill equal those of a prefill one token shorter followed by a decode step."""
    torch = ctx.torch
    count = CHECK_TOKENS
    model.allocate(count)
    tokens = model.random_tokens(count)
    whole = model.logits(model.layers_forward(model.embed(tokens), 0)).double()
    model.layers_forward(model.embed(tokens[:, :-1]), 0)
    stepped = model.logits(model.layers_forward(model.embed(tokens[:, -1:]), count - 1)).double()
    norm = float(torch.linalg.vector_norm(whole))
    if not math.isfinite(norm):
        raise WrongResult("wrong results: the logits are not finite")
    error = float(torch.linalg.vector_norm(stepped - whole)) / norm if norm > 0 else 0.0
    tolerance = CHECK_TOLERANCE.get(_dtype_name(model.dtype), 1e-1)
    result["relative_error"] = error
    result["relative_error_tolerance"] = tolerance
    result["parameters"]["reference"] = (f"logits of a {count}-token prefill against a "
                                         f"{count - 1}-token prefill + one decode step")
    if not error <= tolerance:
        raise WrongResult(f"wrong results: prefill and cached decode disagree (relative error "
                          f"{error:.3g} > {tolerance:.3g})")


def _finish(result: dict[str, Any], m: Measurement, rates: list[float]) -> None:
    result["spread"] = spread(rates)
    result["value"] = result["spread"]["median"]
    result["parameters"].update(inner_iterations=m.inner, repeats=len(m.times_s),
                                warmup_iterations=m.warmup_calls)


def bench_decode(ctx: Context, progress: Progress, result: dict[str, Any],
                 benchmark: str) -> None:
    torch = ctx.torch
    shape = _shape_of(ctx)
    progress(0.0, "setup")
    with torch.inference_mode():
        model = _model(ctx, progress, shape)
        context = CONTEXT_TOKENS[benchmark]
        steps = GPU_DECODE_TOKENS if ctx.is_gpu else CPU_DECODE_TOKENS
        if ctx.scale < 1:
            context = max(64, int(context * ctx.scale))
            steps = max(4, int(steps * ctx.scale))
        model.allocate(context + steps)
        model.fill_context(context)
        extrapolated = len(model.layers) < shape.layers
        shapes = ctx.llm_shapes
        _common(result, shapes, model, extrapolated)
        result["parameters"].update(
            context_tokens=context, decode_tokens=steps,
            context_filled_with="random keys and values (a step's time does not depend on them)")
        first = model.random_tokens(1)
        if not extrapolated:
            def full() -> Any:
                token = first
                for step in range(steps):
                    logits = model.logits(model.layers_forward(model.embed(token), context + step))
                    token = logits.argmax(-1)
                return token
            m = _timed(ctx, full, progress, 0.1, 0.9)
            rates = _rates(steps, m.times_s, None, 1.0)
        else:
            inputs = model.random_hidden(steps)

            def layers() -> Any:
                x = None
                for step in range(steps):
                    x = model.layers_forward(inputs[:, step:step + 1], context + step)
                return x

            def head() -> Any:
                x = inputs[:, :1]
                for _ in range(HEAD_TIMING_STEPS):
                    x = model.embed(model.logits(x).argmax(-1))
                return x
            m = _timed(ctx, layers, progress, 0.1, 0.65)
            step_s = _BUILT.head_step_s
            if step_s is None:
                step_s = statistics.median(_timed(ctx, head, progress, 0.65, 0.9).times_s) / (
                    HEAD_TIMING_STEPS)
                _BUILT.head_step_s = step_s
                result["parameters"]["embedding_and_head_timed"] = "in this benchmark"
            else:
                result["parameters"]["embedding_and_head_timed"] = (
                    "in an earlier decode benchmark of this run (it does not depend on the "
                    "context)")
            result["parameters"]["embedding_and_head_s_per_token"] = step_s
            rates = _rates(steps, m.times_s, step_s * steps, shape.layers / len(model.layers))
        _finish(result, m, rates)
        element = torch.tensor([], dtype=model.dtype).element_size()
        bandwidth = _BUILT.bandwidth_gb_s
        assert bandwidth is not None
        ceiling = decode_ceiling(shape, bandwidth, result["value"], element, element, context,
                                 steps)
        result["parameters"].update(
            measured_bandwidth_gb_s=bandwidth, bandwidth_measured_by=_BUILT.bandwidth_how,
            parameters_read_per_token=shape.weights_read_per_token,
            kv_cache_dtype=_dtype_name(model.dtype),
            estimates_assume=("the measured ceiling ratio, llama.cpp's bits per weight and an f16 "
                              "KV cache; estimated from the measured decode, not measured"),
            **ceiling)
        progress(0.95, "check")
        if not bool(torch.isfinite(model.logits(model.embed(first)).float()).all()):
            raise WrongResult("wrong results: the logits are not finite")


def registry() -> dict[str, Callable[[Context, Progress, dict[str, Any]], None]]:
    def decode(benchmark: str) -> Callable[[Context, Progress, dict[str, Any]], None]:
        return lambda ctx, p, r: bench_decode(ctx, p, r, benchmark)

    return {"llm.prefill": bench_prefill, "llm.decode": decode("llm.decode"),
            "llm.decode_long": decode("llm.decode_long")}
