"""The worker's JSON-lines protocol (version 1), read into typed messages.

    hello     {"type": "hello", "protocol": 1, "torch": {...}, "device": "cuda:0", ...}
    progress  {"type": "progress", "benchmark": ID, "fraction": 0..1, "stage": "measure"}
    result    {"type": "result", "result": {...}}            (results.result_from_json)
    error     {"type": "error", "kind": "oom", "benchmark": ID, "message": "..."}
    done      {"type": "done", "results": N}

Splitting the byte stream into messages (partial lines kept, garbage lines treated as log text)
is `gpuscope.probes.worker_process.JsonLineReader`; `parse_message` turns one decoded message
into a typed one and never raises: an unknown or malformed message is None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    ErrorKind,
    WorkerHello,
    error_from_json,
    hello_from_json,
    result_from_json,
)

PROTOCOL = 1


@dataclass(frozen=True, slots=True)
class HelloMessage:
    hello: WorkerHello


@dataclass(frozen=True, slots=True)
class ProgressMessage:
    benchmark: str
    fraction: float  # of this benchmark, 0..1
    stage: str  # start, setup, warmup, measure, check, end


@dataclass(frozen=True, slots=True)
class ResultMessage:
    result: BenchmarkResult


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    error: BenchError


@dataclass(frozen=True, slots=True)
class DoneMessage:
    results: int | None


WorkerMessage = HelloMessage | ProgressMessage | ResultMessage | ErrorMessage | DoneMessage


def _progress(raw: Mapping[str, Any]) -> ProgressMessage | None:
    benchmark = raw.get("benchmark")
    fraction = raw.get("fraction")
    if not isinstance(benchmark, str) or not benchmark.strip():
        return None
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
        fraction = 0.0
    value = float(fraction)
    value = min(1.0, max(0.0, value)) if math.isfinite(value) else 0.0
    stage = raw.get("stage")
    return ProgressMessage(benchmark.strip(), value,
                           stage.strip() if isinstance(stage, str) else "")


def parse_message(raw: Any) -> WorkerMessage | None:
    """One decoded JSON message as a typed message; None when it is not one we know."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if kind == "hello":
        hello = hello_from_json(raw)
        return HelloMessage(hello) if hello is not None else None
    if kind == "progress":
        return _progress(raw)
    if kind == "result":
        result = result_from_json(raw.get("result"))
        return ResultMessage(result) if result is not None else None
    if kind == "error":
        error = error_from_json(raw)
        if error is None:
            return None
        if error.kind in (ErrorKind.CANCELLED, ErrorKind.HANG, ErrorKind.TIMEOUT,
                          ErrorKind.CRASH, ErrorKind.ABORT, ErrorKind.KILLED):
            # Only the runner observes these; a worker claiming one is a plain worker error.
            error = BenchError(ErrorKind.WORKER, error.message, error.benchmark)
        return ErrorMessage(error)
    if kind == "done":
        count = raw.get("results")
        return DoneMessage(count if isinstance(count, int) and not isinstance(count, bool)
                           else None)
    return None
