"""Microbenchmarks in an isolated worker process (issue #5).

gpuscope never imports torch: the worker folder (`bench/worker`) runs by path with the user's
interpreter and talks JSON lines (`protocol`); `runner` starts, watches, cancels and kills it
and turns what happens into events and a `BenchRun` (`results`); `catalog` names the
benchmarks and suites.
"""

from gpuscope.bench.catalog import (
    BENCHMARK_IDS,
    BENCHMARKS,
    SUITES,
    BenchmarkSpec,
    Unit,
    UnknownSuiteError,
    resolve_suites,
)
from gpuscope.bench.results import (
    BenchDevice,
    BenchError,
    BenchmarkResult,
    BenchRun,
    ErrorKind,
    ResultStatus,
    Spread,
    WorkerHello,
    primary_error,
    run_from_json,
    run_to_json,
)
from gpuscope.bench.runner import (
    BenchEvent,
    BenchmarkProgress,
    BenchRequest,
    BenchRunner,
    ErrorRaised,
    HelloReceived,
    ResultReceived,
    RunFinished,
    RunStarted,
    run_benchmarks,
)

__all__ = [
    "BENCHMARKS",
    "BENCHMARK_IDS",
    "SUITES",
    "BenchDevice",
    "BenchError",
    "BenchEvent",
    "BenchRequest",
    "BenchRun",
    "BenchRunner",
    "BenchmarkProgress",
    "BenchmarkResult",
    "BenchmarkSpec",
    "ErrorKind",
    "ErrorRaised",
    "HelloReceived",
    "ResultReceived",
    "ResultStatus",
    "RunFinished",
    "RunStarted",
    "Spread",
    "Unit",
    "UnknownSuiteError",
    "WorkerHello",
    "primary_error",
    "resolve_suites",
    "run_benchmarks",
    "run_from_json",
    "run_to_json",
]
