"""The benchmarks: matmul in each precision, memory bandwidth, host-device transfers, launch and
sync latency, attention; and the registry of them all (the LLM ones are in `llm`)."""

from __future__ import annotations

import contextlib
import importlib
import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...child.jsonlines import describe
from .libraries import math_library
from .llm import registry as llm_registry
from .measure import (
    GPU_FAULT_PATTERN,
    OOM_PATTERN,
    Context,
    Progress,
    Unsupported,
    WrongResult,
    latency_result,
    measure,
    rate_result,
)

# The ids gpuscope's catalogue (gpuscope/bench/catalog.py) knows; a test keeps them equal.
BENCHMARK_IDS = (
    "matmul.fp32", "matmul.tf32", "matmul.fp16", "matmul.bf16", "matmul.int8", "matmul.fp8",
    "memory.copy", "memory.triad",
    "transfer.h2d_pinned", "transfer.d2h_pinned", "transfer.h2d_pageable",
    "transfer.d2h_pageable",
    "latency.launch", "latency.sync",
    "attention.flash", "attention.efficient", "attention.math",
    "llm.prefill", "llm.decode", "llm.decode_long",
)

# Sizes at scale 1. On a GPU they fill the chip (>= 4096 square; arrays far beyond the largest
# last-level cache, 256 MB Infinity Cache on MI300X). On a CPU they keep the quick suite well
# under two minutes on two cores: CPUs without native fp16/bf16 matmul run those at ~1 GFLOPS.
GPU_MATMUL_N = 8192
CPU_MATMUL_N = {"fp32": 2048, "tf32": 2048, "fp16": 512, "bf16": 512, "int8": 512, "fp8": 1024}
GPU_ARRAY_BYTES = 1 << 30
CPU_ARRAY_BYTES = 128 << 20
GPU_TRANSFER_BYTES = 256 << 20
# batch, heads, sequence, head dim: a 7B-class model's prefill.
GPU_ATTENTION = (2, 32, 2048, 128)
CPU_ATTENTION = (1, 8, 512, 64)
REFERENCE_ROWS = 128  # rows of a matmul checked against float64

# Normwise relative error ||C - C64|| / ||C64|| allowed per precision; the reference uses the
# same (already rounded) inputs, so this is accumulation and output rounding only.
TOLERANCE = {"fp32": 1e-4, "tf32": 1e-2, "fp16": 1e-2, "bf16": 2e-2, "int8": 0.0, "fp8": 3e-2}


# ------------------------------------------------------------------------------- matmul


_DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def _fp8_dtype(torch: Any, ctx: Context) -> Any:
    # MI300 (gfx942) runs the "fnuz" flavour; everything else the OCP e4m3fn.
    if ctx.build == "rocm" and ctx.is_gpu:
        try:
            arch = str(torch.cuda.get_device_properties(ctx.device).gcnArchName)
        except Exception:
            arch = ""
        if arch.startswith("gfx94") and hasattr(torch, "float8_e4m3fnuz"):
            return torch.float8_e4m3fnuz
    if not hasattr(torch, "float8_e4m3fn"):
        raise Unsupported("this torch has no float8 dtypes (torch >= 2.1 has them)")
    return torch.float8_e4m3fn


def _set_fp32_precision(torch: Any, tf32: bool) -> tuple[Callable[[], None], str]:
    """Keep fp32 matmul in true fp32 ("ieee": no TF32 on NVIDIA, no bf16 passes in oneDNN),
    or allow TF32. Torch >= 2.9 has per-backend `fp32_precision` and raises when it is mixed
    with the legacy flags, so only one of the two APIs is used. Returns (undo, setting)."""
    backends = torch.backends
    cuda_matmul = getattr(getattr(backends, "cuda", None), "matmul", None)
    mkldnn_matmul = getattr(getattr(backends, "mkldnn", None), "matmul", None)
    wanted = [(cuda_matmul, "tf32" if tf32 else "ieee"),
              (mkldnn_matmul, "ieee")]  # oneDNN has no TF32 mode: the CPU stays ieee
    targets = [(owner, value) for owner, value in wanted if owner is not None
               and isinstance(getattr(owner, "fp32_precision", None), str)]
    if targets:
        before = [(owner, owner.fp32_precision) for owner, _ in targets]
        for owner, value in targets:
            owner.fp32_precision = value

        def undo_new() -> None:
            for owner, value in before:
                owner.fp32_precision = value
        return undo_new, "tf32" if tf32 else "ieee"

    legacy = "high" if tf32 else "highest"
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(legacy)

    def undo_legacy() -> None:
        torch.set_float32_matmul_precision(previous)
    return undo_legacy, legacy


def bench_matmul(ctx: Context, progress: Progress, result: dict[str, Any],
                 precision: str) -> None:
    torch = ctx.torch
    device = ctx.device
    if precision == "tf32":
        if not ctx.is_gpu:
            raise Unsupported("TF32 is an NVIDIA tensor-core mode; no GPU here")
        if ctx.build != "cuda":
            raise Unsupported(f"TF32 is an NVIDIA tensor-core mode; this is a {ctx.build} build")
        major = torch.cuda.get_device_capability(device)[0]
        if major < 8:
            raise Unsupported(f"TF32 needs compute capability 8.0 or newer (this GPU: {major}.x)")
    n = ctx.scaled(GPU_MATMUL_N if ctx.is_gpu else CPU_MATMUL_N[precision])
    seed = ctx.fresh_seed()
    result["unit"] = "TOPS" if precision == "int8" else "TFLOPS"
    params = result["parameters"]
    params.update(m=n, n=n, k=n, seed=seed)
    progress(0.0, "setup")

    undo: Callable[[], None] | None = None
    if precision in ("fp32", "tf32"):
        undo, setting = _set_fp32_precision(torch, precision == "tf32")
        params["fp32_precision"] = setting
    try:
        if precision == "int8":
            if not hasattr(torch, "_int_mm"):
                raise Unsupported("this torch has no torch._int_mm (added in 2.1)")
            a = torch.randint(-127, 128, (n, n), device=device, dtype=torch.int8)
            b = torch.randint(-127, 128, (n, n), device=device, dtype=torch.int8)
            c = torch.empty((n, n), device=device, dtype=torch.int32)
            params.update(dtype="int8", out_dtype="int32", call="torch._int_mm")

            def call() -> Any:
                return torch._int_mm(a, b, out=c)

            def fresh() -> Any:
                return torch._int_mm(a, b)
        elif precision == "fp8":
            if not hasattr(torch, "_scaled_mm"):
                raise Unsupported("this torch has no torch._scaled_mm")
            dtype = _fp8_dtype(torch, ctx)
            a = torch.randn(n, n, device=device).to(dtype)
            # _scaled_mm wants the second operand column-major.
            b = torch.randn(n, n, device=device).to(dtype).t().contiguous().t()
            one = torch.ones((), device=device, dtype=torch.float32)
            params.update(dtype=str(dtype).replace("torch.", ""), out_dtype="bfloat16",
                          call="torch._scaled_mm")

            def fresh() -> Any:
                return torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
            call = fresh
        else:
            dtype = getattr(torch, _DTYPES[precision])
            a = torch.randn(n, n, device=device, dtype=torch.float32).to(dtype)
            b = torch.randn(n, n, device=device, dtype=torch.float32).to(dtype)
            c = torch.empty((n, n), device=device, dtype=dtype)
            params.update(dtype=_DTYPES[precision], call="torch.matmul(a, b, out=c)")

            def call() -> Any:
                return torch.matmul(a, b, out=c)

            def fresh() -> Any:
                return torch.matmul(a, b)

        if not (bool(a.float().abs().sum() > 0) and bool(b.float().abs().sum() > 0)):
            raise RuntimeError("the random inputs came out all zero")
        try:
            out = fresh()
            ctx.sync()
        except RuntimeError as exc:
            if OOM_PATTERN.search(str(exc)) or GPU_FAULT_PATTERN.search(str(exc)):
                raise  # out of memory, or a GPU runtime failing: trouble, not a fact
            # torch refusing the dtype on this device ("only supported on compute capability
            # >= 8.9") is a fact about the device, not a failure.
            raise Unsupported(describe(exc)) from exc

        m = measure(ctx, call, progress)
        rate_result(result, m, 2.0 * n * n * n, 1e12)

        progress(0.92, "check")
        out = fresh()
        rows = min(n, REFERENCE_ROWS)
        reference = a[:rows].to(torch.float32).to(torch.float64) @ b.to(torch.float32).to(
            torch.float64)
        got = out[:rows].to(torch.float64)
        norm = float(torch.linalg.vector_norm(reference))
        error = float(torch.linalg.vector_norm(got - reference)) / norm if norm > 0 else 0.0
        result["relative_error"] = error
        result["relative_error_tolerance"] = TOLERANCE[precision]
        params["reference"] = f"float64 matmul of the same inputs, first {rows} rows"
        progress(0.96, "check")
        again = fresh()
        result["bit_identical"] = bool(torch.equal(out, again))
        result["math_library"] = math_library(ctx, precision)
        if not error <= TOLERANCE[precision]:
            raise WrongResult(f"wrong results: relative error {error:.3g} exceeds "
                              f"{TOLERANCE[precision]:.3g} for {precision}")
    finally:
        if undo is not None:
            undo()


# ------------------------------------------------------------------------------- memory


def _array_elements(ctx: Context) -> int:
    if ctx.is_gpu:
        size = GPU_ARRAY_BYTES
        total = ctx.total_memory_bytes()
        if total:
            size = min(size, total // 10)  # three arrays and headroom
    else:
        size = CPU_ARRAY_BYTES
    return max(1 << 16, int(size * ctx.scale) // 4)


def bench_memory(ctx: Context, progress: Progress, result: dict[str, Any], kind: str) -> None:
    torch = ctx.torch
    n = _array_elements(ctx)
    ctx.fresh_seed()
    progress(0.0, "setup")
    a = torch.empty(n, device=ctx.device, dtype=torch.float32)
    b = torch.rand(n, device=ctx.device, dtype=torch.float32) + 1.0
    c = torch.rand(n, device=ctx.device, dtype=torch.float32) + 1.0
    scalar = 3.0
    if kind == "copy":
        def call() -> Any:
            return a.copy_(b)
        moved = 2 * n * 4  # read b, write a
        formula = "a = b"
    else:
        def call() -> Any:
            return torch.add(b, c, alpha=scalar, out=a)
        moved = 3 * n * 4  # read b and c, write a
        formula = "a = b + 3.0 * c"
    result["unit"] = "GB/s"
    result["parameters"].update(elements=n, dtype="float32", array_bytes=n * 4,
                                bytes_per_call=moved, formula=formula,
                                bytes_counted="read + write")
    m = measure(ctx, call, progress)
    rate_result(result, m, float(moved), 1e9)
    progress(0.95, "check")
    head = slice(0, 4096)
    expected = b[head] if kind == "copy" else b[head] + scalar * c[head]
    if not bool(torch.allclose(a[head], expected)):
        raise WrongResult(f"wrong results: the {kind} did not write what it read")


# ------------------------------------------------------------------------------- transfer


def bench_transfer(ctx: Context, progress: Progress, result: dict[str, Any],
                   direction: str, pinned: bool) -> None:
    torch = ctx.torch
    if not ctx.is_gpu:
        raise Unsupported("no GPU: host-device transfers need one")
    size = max(1 << 20, int(GPU_TRANSFER_BYTES * ctx.scale))
    progress(0.0, "setup")
    host = torch.empty(size, dtype=torch.uint8, pin_memory=pinned)
    host.fill_(7)
    device_buffer = torch.empty(size, dtype=torch.uint8, device=ctx.device)
    if direction == "h2d":
        def call() -> Any:
            return device_buffer.copy_(host, non_blocking=pinned)
    else:
        def call() -> Any:
            return host.copy_(device_buffer, non_blocking=pinned)
    result["unit"] = "GB/s"
    result["parameters"].update(bytes=size, pinned=pinned, direction=direction,
                                non_blocking=pinned)
    m = measure(ctx, call, progress)
    rate_result(result, m, float(size), 1e9)


# ------------------------------------------------------------------------------- latency


def bench_launch(ctx: Context, progress: Progress, result: dict[str, Any]) -> None:
    torch = ctx.torch
    x = torch.zeros(1, device=ctx.device)
    if ctx.is_gpu:
        def call() -> Any:
            x.add_(1.0)
            torch.cuda.synchronize(ctx.device)
        what = "one 1-element kernel launched and waited for (round trip), host-timed"
    else:
        def call() -> Any:
            return x.add_(1.0)
        what = "one 1-element op through PyTorch's dispatcher on the CPU, host-timed"
    result["unit"] = "us"
    result["parameters"].update(op="x.add_(1) on a 1-element tensor", measures=what)
    m = measure(ctx, call, progress, host=True)
    latency_result(result, m)


def bench_sync(ctx: Context, progress: Progress, result: dict[str, Any]) -> None:
    torch = ctx.torch
    if not ctx.is_gpu:
        raise Unsupported("no GPU: there is no device queue to synchronise with")

    def call() -> Any:
        return torch.cuda.synchronize(ctx.device)
    result["unit"] = "us"
    result["parameters"].update(op="torch.cuda.synchronize() with nothing queued",
                                measures="host-timed")
    m = measure(ctx, call, progress, host=True)
    latency_result(result, m)


# ------------------------------------------------------------------------------- attention


def _sdpa_context(torch: Any, backend: str) -> Any:
    attention = None
    with contextlib.suppress(ImportError):
        attention = importlib.import_module("torch.nn.attention")
    if attention is not None and hasattr(attention, "sdpa_kernel"):
        names = {"flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION", "math": "MATH"}
        return attention.sdpa_kernel([getattr(attention.SDPBackend, names[backend])])
    # torch < 2.3
    return torch.backends.cuda.sdp_kernel(enable_flash=backend == "flash",
                                          enable_mem_efficient=backend == "efficient",
                                          enable_math=backend == "math")


def bench_attention(ctx: Context, progress: Progress, result: dict[str, Any],
                    backend: str) -> None:
    torch = ctx.torch
    functional = importlib.import_module("torch.nn.functional")
    if not hasattr(functional, "scaled_dot_product_attention"):
        raise Unsupported("this torch has no scaled_dot_product_attention (added in 2.0)")
    batch, heads, seq, dim = GPU_ATTENTION if ctx.is_gpu else CPU_ATTENTION
    seq = ctx.scaled(seq, multiple=64, minimum=128)
    dtype = torch.float16 if ctx.is_gpu else torch.float32
    seed = ctx.fresh_seed()
    progress(0.0, "setup")
    shape = (batch, heads, seq, dim)
    q = torch.randn(shape, device=ctx.device, dtype=dtype)
    k = torch.randn(shape, device=ctx.device, dtype=dtype)
    v = torch.randn(shape, device=ctx.device, dtype=dtype)
    result["unit"] = "TFLOPS"
    # Causal prefill; FLOPs as flash-attention's benchmarks count them: 4*B*H*S^2*D, halved
    # for the causal mask.
    flops = 4.0 * batch * heads * seq * seq * dim / 2
    result["parameters"].update(batch=batch, heads=heads, sequence=seq, head_dim=dim,
                                dtype=str(dtype).replace("torch.", ""), causal=True,
                                flops_per_call=flops, seed=seed, backend=backend)

    def call() -> Any:
        with _sdpa_context(torch, backend):
            return functional.scaled_dot_product_attention(q, k, v, is_causal=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
            ctx.sync()
        except RuntimeError as exc:
            if OOM_PATTERN.search(str(exc)) or GPU_FAULT_PATTERN.search(str(exc)):
                raise
            why = [str(w.message).strip().splitlines()[0] for w in caught
                   if str(w.message).strip()]
            reason = describe(exc)
            if why:
                reason = reason + " (" + "; ".join(why[:3]) + ")"
            raise Unsupported(reason[:600]) from exc
    m = measure(ctx, call, progress)
    rate_result(result, m, flops, 1e12)

    progress(0.92, "check")
    q64, k64, v64 = (t[0, 0].to(torch.float64) for t in (q, k, v))
    scores = (q64 @ k64.transpose(0, 1)) / math.sqrt(dim)
    mask = torch.ones(seq, seq, dtype=torch.bool, device=ctx.device).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    reference = torch.softmax(scores, dim=-1) @ v64
    got = out[0, 0].to(torch.float64)
    error = float(torch.linalg.vector_norm(got - reference) / torch.linalg.vector_norm(reference))
    tolerance = 1e-2 if dtype == torch.float16 else 1e-4
    result["relative_error"] = error
    result["relative_error_tolerance"] = tolerance
    result["parameters"]["reference"] = "float64 attention of the first batch and head"
    if not error <= tolerance:
        raise WrongResult(f"wrong results: relative error {error:.3g} exceeds {tolerance:.3g}")


# ------------------------------------------------------------------------------- registry


if TYPE_CHECKING:
    Bench = Callable[[Context, Progress, dict[str, Any]], None]


def registry() -> dict[str, Bench]:
    def matmul(precision: str) -> Bench:
        return lambda ctx, p, r: bench_matmul(ctx, p, r, precision)

    def memory(kind: str) -> Bench:
        return lambda ctx, p, r: bench_memory(ctx, p, r, kind)

    def transfer(direction: str, pinned: bool) -> Bench:
        return lambda ctx, p, r: bench_transfer(ctx, p, r, direction, pinned)

    def attention(backend: str) -> Bench:
        return lambda ctx, p, r: bench_attention(ctx, p, r, backend)

    return {
        "matmul.fp32": matmul("fp32"), "matmul.tf32": matmul("tf32"),
        "matmul.fp16": matmul("fp16"), "matmul.bf16": matmul("bf16"),
        "matmul.int8": matmul("int8"), "matmul.fp8": matmul("fp8"),
        "memory.copy": memory("copy"), "memory.triad": memory("triad"),
        "transfer.h2d_pinned": transfer("h2d", True),
        "transfer.d2h_pinned": transfer("d2h", True),
        "transfer.h2d_pageable": transfer("h2d", False),
        "transfer.d2h_pageable": transfer("d2h", False),
        "latency.launch": bench_launch, "latency.sync": bench_sync,
        "attention.flash": attention("flash"), "attention.efficient": attention("efficient"),
        "attention.math": attention("math"),
        **llm_registry(),
    }


_UNITS = {"matmul.int8": "TOPS", "memory": "GB/s", "transfer": "GB/s", "latency": "us",
          "llm": "tokens/s"}


def unit_of(benchmark: str) -> str:
    return _UNITS.get(benchmark) or _UNITS.get(benchmark.split(".")[0]) or "TFLOPS"
