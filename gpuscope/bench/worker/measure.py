"""Measuring: the device under test (`Context`), progress messages, and the timing loop that
every benchmark shares (warm up, size a batch, time batches until the budget is spent)."""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from ...child.jsonlines import Channel

PROTOCOL = 1

BUDGET_S = 2.0  # measuring time per benchmark at scale 1
MIN_REPEATS = 5
MAX_REPEATS = 50
TARGET_BATCH_S = 0.05  # a timed batch repeats the call until it takes about this long
MAX_INNER = 20000
PROGRESS_INTERVAL_S = 0.25

OOM_PATTERN = re.compile(r"out of memory|can't allocate memory|cannot allocate memory"
                         r"|hipErrorOutOfMemory|cudaErrorMemoryAllocation", re.IGNORECASE)

# A GPU runtime failing (a kernel missing for this GPU, a fault), as opposed to torch refusing.
GPU_FAULT_PATTERN = re.compile(r"HIP error|CUDA error|hipError|cudaError|invalid device function"
                               r"|no kernel image|illegal memory access|HSA_STATUS_ERROR")

# Strict JSON: a NaN rate or error goes out as null.
CHANNEL = Channel(lambda why: {"type": "error", "kind": "exception", "message": why},
                  finite_only=True)
emit = CHANNEL.emit


class Unsupported(Exception):
    """This benchmark cannot run on this device or build; the message says why."""


class WrongResult(Exception):
    """The device computed a wrong answer."""


def log(text: str) -> None:
    sys.stderr.write(f"gpuscope bench worker: {text}\n")
    sys.stderr.flush()


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
        # The llm benchmarks' model shapes, from --llm-shape (see llm.parse_shapes).
        self.llm_shapes: dict[str, Any] = {}

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
    # The quartiles let gpuscope tell a spread-out result from one slow repeat.
    quartiles = (statistics.quantiles(values, n=4, method="inclusive") if len(values) >= 2
                 else [values[0]] * 3)
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "count": len(values), "q1": quartiles[0], "q3": quartiles[2]}


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
