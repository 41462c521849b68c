"""The worker's JSON-lines protocol (version 1), read into typed messages.

    hello     {"type": "hello", "protocol": 1, "torch": {...}, ...}    -> WorkerHello
    progress  {"type": "progress", "benchmark": ID, "fraction": 0..1, "stage": "measure"}
                                                                         -> ProgressMessage
    result    {"type": "result", "result": {...}}                      -> BenchmarkResult
    error     {"type": "error", "kind": "oom", "benchmark": ID, "message": "..."}
                                                                         -> BenchError
    done      {"type": "done", "results": N}                           -> DoneMessage

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
class ProgressMessage:
    benchmark: str
    fraction: float  # of this benchmark, 0..1
    stage: str  # start, setup, warmup, measure, check, end


@dataclass(frozen=True, slots=True)
class DoneMessage:
    results: int | None


# The hello, a result and an error are read into the run's own records (results.py).
WorkerMessage = WorkerHello | ProgressMessage | BenchmarkResult | BenchError | DoneMessage


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
        return hello_from_json(raw)
    if kind == "progress":
        return _progress(raw)
    if kind == "result":
        return result_from_json(raw.get("result"))
    if kind == "error":
        error = error_from_json(raw)
        if error is not None and error.kind in (
                ErrorKind.CANCELLED, ErrorKind.HANG, ErrorKind.TIMEOUT, ErrorKind.CRASH,
                ErrorKind.ABORT, ErrorKind.KILLED):
            # Only the runner observes these; a worker claiming one is a plain worker error.
            error = BenchError(ErrorKind.WORKER, error.message, error.benchmark)
        return error
    if kind == "done":
        count = raw.get("results")
        return DoneMessage(count if isinstance(count, int) and not isinstance(count, bool)
                           else None)
    return None
