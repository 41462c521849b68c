"""gpuscope's benchmark worker: AI microbenchmarks with the PyTorch of *this* Python environment.

Standalone on purpose: gpuscope runs it by path with whichever interpreter the user picks (the
environment that holds their ROCm or CUDA build of torch), so it uses the standard library and
torch only (no gpuscope import) and keeps to Python 3.9 syntax. gpuscope's own process never
imports torch.

    python worker_script.py --benchmarks matmul.fp32,memory.copy [--device auto|cpu|N]
                            [--scale F] [--budget-s S]

It prints versioned JSON lines on stdout, logs on stderr:

    {"type": "hello", "protocol": 1, "torch": {...}, "device": "cuda:0", ...}
    {"type": "progress", "benchmark": "matmul.fp32", "fraction": 0.4, "stage": "measure"}
    {"type": "result", "result": {"id": "matmul.fp32", "status": "ok", "value": 52.1, ...}}
    {"type": "error", "benchmark": "matmul.fp16", "kind": "oom", "message": "..."}
    {"type": "done", "results": 2}

Progress comes from the main thread between timed batches, never from a helper thread: a GPU
call that hangs then stops the output, which is how the runner tells a hang.

Fault injection for tests: GPUSCOPE_BENCH_FAULT=crash|hang|oom|abort fails the worker at the
start of the benchmark GPUSCOPE_BENCH_FAULT_AT names (default: the first one).
GPUSCOPE_BENCH_SCALE (0 < F <= 1) shrinks sizes and time budgets, for tests.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import faulthandler
import gc
import importlib
import json
import math
import os
import platform
import re
import statistics
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

PROTOCOL = 1

# The ids gpuscope's catalogue (gpuscope/bench/catalog.py) knows; a test keeps them equal.
BENCHMARK_IDS = (
    "matmul.fp32", "matmul.tf32", "matmul.fp16", "matmul.bf16", "matmul.int8", "matmul.fp8",
    "memory.copy", "memory.triad",
    "transfer.h2d_pinned", "transfer.d2h_pinned", "transfer.h2d_pageable",
    "transfer.d2h_pageable",
    "latency.launch", "latency.sync",
    "attention.flash", "attention.efficient", "attention.math",
)
FAULTS = ("crash", "hang", "oom", "abort")

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

BUDGET_S = 2.0  # measuring time per benchmark at scale 1
MIN_REPEATS = 5
MAX_REPEATS = 50
TARGET_BATCH_S = 0.05  # a timed batch repeats the call until it takes about this long
MAX_INNER = 20000
PROGRESS_INTERVAL_S = 0.25
REFERENCE_ROWS = 128  # rows of a matmul checked against float64

# Normwise relative error ||C - C64|| / ||C64|| allowed per precision; the reference uses the
# same (already rounded) inputs, so this is accumulation and output rounding only.
TOLERANCE = {"fp32": 1e-4, "tf32": 1e-2, "fp16": 1e-2, "bf16": 2e-2, "int8": 0.0, "fp8": 3e-2}

OOM_PATTERN = re.compile(r"out of memory|can't allocate memory|cannot allocate memory"
                         r"|hipErrorOutOfMemory|cudaErrorMemoryAllocation", re.IGNORECASE)

# A GPU runtime failing (a kernel missing for this GPU, a fault), as opposed to torch refusing.
GPU_FAULT_PATTERN = re.compile(r"HIP error|CUDA error|hipError|cudaError|invalid device function"
                               r"|no kernel image|illegal memory access|HSA_STATUS_ERROR")

_OUT: IO[str] = sys.stdout
_OUT_LOCK = threading.Lock()


class Unsupported(Exception):
    """This benchmark cannot run on this device or build; the message says why."""


class WrongResult(Exception):
    """The device computed a wrong answer."""


# ------------------------------------------------------------------------------- output


def _claim_stdout() -> None:
    """Keep the real stdout for JSON lines and point fd 1 at stderr, so that whatever torch or
    a GPU runtime prints (from Python or from C) lands in the log, not between our messages."""
    global _OUT
    try:
        sys.stdout.flush()
        fd = os.dup(1)
        os.dup2(2, 1)
        _OUT = os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n")
    except (OSError, ValueError, AttributeError):
        _OUT = sys.stdout
    sys.stdout = sys.stderr


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def emit(message: dict[str, Any]) -> None:
    try:
        line = json.dumps(_finite(message), default=str, allow_nan=False)
    except (TypeError, ValueError) as exc:
        line = json.dumps({"type": "error", "kind": "exception",
                           "message": f"cannot encode a message: {exc}"})
    with _OUT_LOCK:
        _OUT.write(line + "\n")
        _OUT.flush()


def log(text: str) -> None:
    sys.stderr.write(f"gpuscope bench worker: {text}\n")
    sys.stderr.flush()


def describe(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


class Progress:
    """Progress of one benchmark, at most every PROGRESS_INTERVAL_S (stage changes always)."""

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        self.stage = ""
        self.sent = 0.0

    def __call__(self, fraction: float, stage: str) -> None:
        now = time.monotonic()
        if stage == self.stage and now - self.sent < PROGRESS_INTERVAL_S:
            return
        self.stage, self.sent = stage, now
        emit({"type": "progress", "benchmark": self.benchmark,
              "fraction": round(min(1.0, max(0.0, fraction)), 3), "stage": stage})


# ------------------------------------------------------------------------------- context


class Context:
    """The torch module, the device under test and the knobs every benchmark reads."""

    def __init__(self, torch: Any, device: Any, build: str, scale: float,
                 budget_s: float) -> None:
        self.torch = torch
        self.device = device
        self.build = build  # rocm | cuda | cpu
        self.is_gpu = device.type == "cuda"
        self.scale = scale
        self.budget_s = budget_s
        self.seed = 0

    @property
    def device_name(self) -> str:
        return f"{self.device.type}:{self.device.index}" if self.is_gpu else "cpu"

    def sync(self) -> None:
        if self.is_gpu:
            self.torch.cuda.synchronize(self.device)

    def fresh_seed(self) -> int:
        """Fresh random data per run (never zeros, never the same numbers twice)."""
        self.seed = int.from_bytes(os.urandom(6), "little")
        self.torch.manual_seed(self.seed)
        return self.seed

    def scaled(self, size: int, multiple: int = 64, minimum: int = 64) -> int:
        value = int(size * self.scale)
        return max(minimum, value - value % multiple)

    def total_memory_bytes(self) -> int | None:
        if not self.is_gpu:
            return None
        try:
            return int(self.torch.cuda.get_device_properties(self.device).total_memory)
        except Exception:  # a property we cannot read only limits sizes less
            return None


def _timer_batch(ctx: Context, fn: Callable[[], Any], inner: int, host: bool) -> float:
    """Seconds per call over a batch of `inner` calls: device events on a GPU (or host time
    around launch + synchronize when `host`), perf_counter on the CPU."""
    torch = ctx.torch
    if ctx.is_gpu and not host:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1000.0 / inner
    ctx.sync()
    began = time.perf_counter()
    for _ in range(inner):
        fn()
    ctx.sync()
    return (time.perf_counter() - began) / inner


class Measurement:
    def __init__(self, times_s: list[float], inner: int, warmup_calls: int) -> None:
        self.times_s = times_s
        self.inner = inner
        self.warmup_calls = warmup_calls


def measure(ctx: Context, fn: Callable[[], Any], progress: Progress, host: bool = False,
            start_fraction: float = 0.0, end_fraction: float = 0.9) -> Measurement:
    """Warm up, size a batch to about TARGET_BATCH_S, then time batches until both
    MIN_REPEATS and the time budget are reached (or MAX_REPEATS, or three budgets)."""
    budget = ctx.budget_s
    span = end_fraction - start_fraction
    progress(start_fraction, "warmup")
    # The first call pays for lazy initialisation (a first HIP launch can take hundreds of ms
    # loading code objects); keep warming for a tenth of the budget.
    began = time.monotonic()
    fn()
    ctx.sync()
    warmup_calls = 1
    while time.monotonic() - began < budget * 0.1 and warmup_calls < 100:
        fn()
        ctx.sync()
        warmup_calls += 1
        progress(start_fraction, "warmup")
    # Size the batch as timeit's autorange does: double until a batch takes long enough.
    inner = 1
    while True:
        took = _timer_batch(ctx, fn, inner, host) * inner
        warmup_calls += inner
        if took >= TARGET_BATCH_S / 2 or inner >= MAX_INNER:
            break
        inner = min(MAX_INNER, inner * 2 if took <= 0 else max(
            inner * 2, int(inner * TARGET_BATCH_S / took / 2)))
        progress(start_fraction, "warmup")
    times: list[float] = []
    began = time.monotonic()
    while True:
        times.append(_timer_batch(ctx, fn, inner, host))
        elapsed = time.monotonic() - began
        count = len(times)
        done_share = min(1.0, max(count / MIN_REPEATS, elapsed / budget) if budget > 0 else 1.0)
        progress(start_fraction + span * done_share * 0.999, "measure")
        if count >= MAX_REPEATS:
            break
        if count >= MIN_REPEATS and elapsed >= budget:
            break
        if count >= 3 and elapsed >= 3 * budget:
            break
    return Measurement(times, inner, warmup_calls)


def spread(values: list[float]) -> dict[str, Any]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "count": len(values)}


def rate_result(result: dict[str, Any], m: Measurement, work_per_call: float,
                unit_scale: float) -> None:
    """value = median of the per-batch rates (work per second / unit_scale)."""
    rates = [work_per_call / t / unit_scale for t in m.times_s if t > 0]
    if not rates:
        raise RuntimeError("no timed batch took measurable time")
    result["spread"] = spread(rates)
    result["value"] = result["spread"]["median"]
    result["parameters"].update(inner_iterations=m.inner, repeats=len(m.times_s),
                                warmup_iterations=m.warmup_calls)


def latency_result(result: dict[str, Any], m: Measurement) -> None:
    values = [t * 1e6 for t in m.times_s]
    result["spread"] = spread(values)
    result["value"] = result["spread"]["median"]
    result["parameters"].update(inner_iterations=m.inner, repeats=len(m.times_s),
                                warmup_iterations=m.warmup_calls)


# ------------------------------------------------------------------------------- libraries


def _config_value(torch: Any, key: str) -> str | None:
    try:
        text = str(torch.__config__.show())
    except Exception:
        return None
    found = re.search(rf"\b{re.escape(key)}=([^,\s]+)", text)
    return found.group(1) if found else None


def _onednn_version(torch: Any) -> str | None:
    try:
        text = str(torch.__config__.show())
    except Exception:
        return None
    found = re.search(r"MKL-DNN v([\d.]+)", text) or re.search(r"oneDNN v([\d.]+)", text)
    return found.group(1) if found else None


_CPU_BLAS = {"mkl": "MKL", "open": "OpenBLAS", "openblas": "OpenBLAS", "accelerate": "Accelerate",
             "blis": "BLIS", "flame": "BLIS", "eigen": "Eigen", "armpl": "Arm PL"}


def preferred_blas(torch: Any, build: str) -> str | None:
    """The GPU BLAS library torch prefers for matmul (torch.backends.cuda.preferred_blas_library;
    on ROCm TORCH_BLAS_PREFER_HIPBLASLT sets its default)."""
    function = getattr(getattr(torch.backends, "cuda", None), "preferred_blas_library", None)
    if function is None:
        return None
    try:
        name = str(function()).split(".")[-1].lower()
    except Exception:
        return None
    if build == "rocm":
        return {"cublas": "rocBLAS", "cublaslt": "hipBLASLt", "ck": "Composable Kernel"}.get(name)
    return {"cublas": "cuBLAS", "cublaslt": "cuBLASLt"}.get(name)


def math_library(ctx: Context, precision: str) -> str | None:
    torch = ctx.torch
    if ctx.is_gpu:
        if precision in ("int8", "fp8"):  # _int_mm and _scaled_mm call the Lt library
            return "hipBLASLt" if ctx.build == "rocm" else "cuBLASLt"
        return preferred_blas(torch, ctx.build)
    if precision in ("fp32", "tf32"):
        blas = _config_value(torch, "BLAS_INFO")
        return _CPU_BLAS.get((blas or "").lower(), blas)
    return None  # oneDNN or ATen's own kernels, chosen inside torch: not detectable


def math_hints(torch: Any, build: str) -> dict[str, Any]:
    hints: dict[str, Any] = {
        "blas_info": _config_value(torch, "BLAS_INFO"),
        "lapack_info": _config_value(torch, "LAPACK_INFO"),
        "onednn_version": _onednn_version(torch),
        "cpu_capability": None,
        "preferred_blas": preferred_blas(torch, build) if build in ("rocm", "cuda") else None,
        "TORCH_BLAS_PREFER_HIPBLASLT": os.environ.get("TORCH_BLAS_PREFER_HIPBLASLT"),
        "dnn_library": None,
    }
    with contextlib.suppress(Exception):
        hints["cpu_capability"] = str(torch.backends.cpu.get_cpu_capability())
    try:
        cudnn = torch.backends.cudnn
        if build in ("rocm", "cuda") and cudnn.is_available():
            raw = int(cudnn.version())
            hints["dnn_library"] = f"MIOpen {raw}" if build == "rocm" else f"cuDNN {raw}"
    except Exception:
        pass
    return hints


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


def _registry() -> dict[str, Bench]:
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
    }


_UNITS = {"matmul.int8": "TOPS", "memory": "GB/s", "transfer": "GB/s", "latency": "us"}


def _unit(benchmark: str) -> str:
    return _UNITS.get(benchmark) or _UNITS.get(benchmark.split(".")[0]) or "TFLOPS"


# ------------------------------------------------------------------------------- faults


def inject_fault(ctx: Context | None, fault: str) -> None:
    log(f"injected fault: {fault}")
    if fault == "crash":
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        os.kill(os.getpid(), 11)
    elif fault == "abort":
        # What a ROCm build prints before aborting on a GPU whose target it lacks.
        sys.stderr.write('"hipErrorNoBinaryForGpu: Unable to find code object for all current '
                         'devices!"\n')
        sys.stderr.flush()
        os.abort()
    elif fault == "oom":
        torch = ctx.torch if ctx is not None else importlib.import_module("torch")
        if ctx is not None and ctx.is_gpu:
            total = ctx.total_memory_bytes() or (1 << 40)
            torch.empty(total * 4, dtype=torch.uint8, device=ctx.device)
        else:
            torch.empty(1 << 62, dtype=torch.uint8)  # a real allocation failure
        raise MemoryError("out of memory (injected): the allocation unexpectedly succeeded")
    elif fault == "hang":
        while True:
            time.sleep(3600)


def is_oom(torch: Any, exc: BaseException) -> bool:
    for holder in (torch, getattr(torch, "cuda", None)):
        cls = getattr(holder, "OutOfMemoryError", None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return isinstance(exc, MemoryError) or bool(OOM_PATTERN.search(str(exc)))


# ------------------------------------------------------------------------------- main


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def _gpu_devices(torch: Any, build: str) -> list[dict[str, Any]]:
    devices = []
    for index in range(int(torch.cuda.device_count())):
        entry: dict[str, Any] = {"index": index}
        try:
            props = torch.cuda.get_device_properties(index)
        except Exception as exc:
            entry["error"] = describe(exc)
            devices.append(entry)
            continue
        entry["name"] = str(getattr(props, "name", "") or "") or None
        entry["total_memory_bytes"] = int(getattr(props, "total_memory", 0) or 0) or None
        entry["multi_processor_count"] = getattr(props, "multi_processor_count", None)
        major, minor = getattr(props, "major", None), getattr(props, "minor", None)
        gcn = str(getattr(props, "gcnArchName", "") or "")
        if build == "rocm" and gcn:
            entry["gcn_arch_name"] = gcn
            entry["arch"] = gcn.split(":", 1)[0]
        elif major is not None and minor is not None:
            entry["compute_capability"] = f"{major}.{minor}"
            entry["arch"] = f"sm_{major}{minor}"
        # gpuscope finds the machine's GPU (its telemetry, its PCIe link) by this address.
        pci = {key: _small_int(getattr(props, key, None))
               for key in ("pci_domain_id", "pci_bus_id", "pci_device_id")}
        if pci["pci_bus_id"] is not None and pci["pci_device_id"] is not None:
            entry.update(pci)
            # The properties carry no PCI function; a GPU is function 0.
            entry["pci_bus"] = (f"{pci['pci_domain_id'] or 0:04x}:{pci['pci_bus_id']:02x}:"
                                f"{pci['pci_device_id']:02x}.0")
        uuid = getattr(props, "uuid", None)
        if uuid is not None and str(uuid).strip():
            entry["uuid"] = str(uuid).strip()
        devices.append(entry)
    return devices


def _small_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 1 << 32 else None


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="gpuscope benchmark worker")
    parser.add_argument("--benchmarks", required=True,
                        help="comma-separated benchmark ids, run in this order")
    parser.add_argument("--device", default="auto", help="auto, cpu, or a GPU index")
    parser.add_argument("--scale", type=float, default=None,
                        help="0 < F <= 1 shrinks sizes and budgets (default: "
                             "GPUSCOPE_BENCH_SCALE or 1)")
    parser.add_argument("--budget-s", type=float, default=None,
                        help=f"measuring time per benchmark (default {BUDGET_S:g} s x scale)")
    return parser.parse_args(argv)


def _scale(value: float | None) -> float:
    if value is None:
        try:
            value = float(os.environ.get("GPUSCOPE_BENCH_SCALE", "") or 1.0)
        except ValueError:
            value = 1.0
    if not math.isfinite(value) or value <= 0:
        return 1.0
    return min(1.0, value)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    # The folder of this script (gpuscope/bench) must not shadow real packages.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    _claim_stdout()
    faulthandler.enable(file=sys.stderr)  # a native crash leaves its Python stack in the log
    wanted = [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    scale = _scale(args.scale)
    budget = args.budget_s if args.budget_s is not None else max(0.05, BUDGET_S * scale)
    fault = os.environ.get("GPUSCOPE_BENCH_FAULT", "").strip().lower() or None
    fault_at = os.environ.get("GPUSCOPE_BENCH_FAULT_AT", "").strip() or (
        wanted[0] if wanted else None)
    hello: dict[str, Any] = {
        "type": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
        "python": sys.executable,
        "python_version": ".".join(str(v) for v in sys.version_info[:3]),
        "platform": platform.platform(), "benchmarks": wanted, "scale": scale,
        "budget_s": budget, "fault": fault,
    }
    try:
        torch = importlib.import_module("torch")
    except BaseException as exc:  # a broken install can raise anything, even SystemExit
        hello["torch"] = None
        emit(hello)
        emit({"type": "error", "kind": "no_torch", "benchmark": None,
              "message": f"cannot import torch with {sys.executable}: {describe(exc)}"})
        emit({"type": "done", "results": 0})
        return 0
    version = getattr(torch, "version", None)
    hip = getattr(version, "hip", None)
    cuda = getattr(version, "cuda", None)
    build = "rocm" if hip else "cuda" if cuda else "cpu"
    hello["torch"] = {"version": str(getattr(torch, "__version__", "")), "build": build,
                      "build_version": hip or cuda, "git_version": getattr(version, "git_version",
                                                                           None)}
    devices: list[dict[str, Any]] = []
    gpu_error = None
    try:
        if build != "cpu" and torch.cuda.is_available():
            devices = _gpu_devices(torch, build)
    except Exception as exc:
        gpu_error = describe(exc)
    hello["devices"] = devices
    hello["math"] = math_hints(torch, build)
    hello["threads"] = int(torch.get_num_threads())

    device_error = None
    if args.device == "cpu" or (args.device == "auto" and not devices):
        device = torch.device("cpu")
        hello["device_name"] = _cpu_name()
        if args.device == "auto" and build == "cpu":
            hello["device_note"] = "ran on the CPU: this torch build has no GPU support"
        elif args.device == "auto":
            why = f" ({gpu_error})" if gpu_error else ""
            hello["device_note"] = f"ran on the CPU: this {build} build of torch sees no GPU{why}"
    else:
        index = 0 if args.device == "auto" else int(args.device) if args.device.isdigit() else -1
        device = torch.device("cuda", max(index, 0))
        if not 0 <= index < len(devices):
            device_error = (f"no GPU {args.device}: this {build} build of torch "
                            f"sees {len(devices)} GPU(s)")
        else:
            hello["device_name"] = devices[index].get("name")
    hello["device"] = "cpu" if device.type == "cpu" else f"cuda:{device.index}"
    emit(hello)
    if device_error is not None:
        emit({"type": "error", "kind": "device", "benchmark": None, "message": device_error})
        emit({"type": "done", "results": 0})
        return 0
    if device.type == "cuda":
        torch.cuda.set_device(device)
    ctx = Context(torch, device, build, scale, budget)
    registry = _registry()
    sent = 0
    for benchmark in wanted:
        progress = Progress(benchmark)
        progress(0.0, "start")
        result: dict[str, Any] = {
            "id": benchmark, "device": ctx.device_name,
            "device_name": hello.get("device_name"), "status": "ok", "reason": None,
            "value": None, "unit": _unit(benchmark), "spread": None,
            "higher_is_better": not benchmark.startswith("latency."), "parameters": {},
            "relative_error": None, "relative_error_tolerance": None, "bit_identical": None,
            "math_library": None, "started_unix_s": time.time(), "ended_unix_s": None,
        }
        try:
            if fault and benchmark == fault_at:
                inject_fault(ctx, fault)
            function = registry.get(benchmark)
            if function is None:
                raise Unsupported(f"this worker does not know the benchmark {benchmark!r}")
            function(ctx, progress, result)
        except Unsupported as exc:
            result.update(status="unsupported", reason=str(exc), value=None, spread=None)
        except WrongResult as exc:
            result.update(status="failed", reason=str(exc))
            emit({"type": "error", "kind": "wrong_result", "benchmark": benchmark,
                  "message": str(exc)})
        except Exception as exc:
            oom = is_oom(torch, exc)
            reason = ("out of memory: " if oom else "") + describe(exc)
            log(f"{benchmark} failed:\n{traceback.format_exc()}")
            result.update(status="failed", reason=reason[:600], value=None, spread=None)
            emit({"type": "error", "kind": "oom" if oom else "exception",
                  "benchmark": benchmark, "message": reason[:600]})
        finally:
            gc.collect()
            if ctx.is_gpu:
                try:
                    torch.cuda.empty_cache()
                except Exception as exc:  # a sticky device error shows in the next result
                    log(f"empty_cache failed: {describe(exc)}")
        result["ended_unix_s"] = time.time()
        progress(1.0, "end")
        emit({"type": "result", "result": result})
        sent += 1
    emit({"type": "done", "results": sent})
    return 0


if __name__ == "__main__":
    code = main()
    try:
        _OUT.flush()
        sys.stderr.flush()
    finally:
        # Skip interpreter teardown: some GPU runtimes crash or hang while unloading, after
        # every result is out.
        os._exit(code)
