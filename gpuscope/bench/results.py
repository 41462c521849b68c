"""What a benchmark run produced, as frozen dataclasses, and their JSON form.

A `BenchRun` is the whole story of one worker: the interpreter, what the worker said about
itself (`WorkerHello`), each `BenchmarkResult` (with the telemetry sampled while it ran,
`BenchTelemetry`), each `BenchError` (a crash, a hang, an out of memory...), wall-clock times
that align with telemetry, and the GPU of the machine it ran on (`BenchTarget`), which names the
card whose datasheet the results are compared with. `run_to_json` / `run_from_json`
round-trip it for `--json`, `-o FILE` and the history of past runs; the `*_from_json` readers
(`gpuscope.decode` with the few rules of their own written out) never raise, whatever they are
given (a damaged file, a newer worker, garbage).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from gpuscope.decode import Decoder
from gpuscope.i18n import message
from gpuscope.model import JsonValue, json_int, json_list, to_jsonable

RUN_SCHEMA = "gpuscope.bench/1"

Scalar = str | int | float | bool | None
T = TypeVar("T")


def format_bench_value(value: float | None, missing: str = "-") -> str:
    """A measured value with the precision that suits its size: 812, 27.50, 0.00265."""
    if value is None:
        return missing
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


class ResultStatus(str, enum.Enum):
    OK = "ok"
    UNSUPPORTED = "unsupported"  # cannot run on this device or build; `reason` says why
    FAILED = "failed"  # ran and failed: wrong results, out of memory, an exception


# A status in words, translatable (the status itself stays the English id).
STATUS_WORDS: dict[str, str] = {
    ResultStatus.OK.value: message("ok"), ResultStatus.UNSUPPORTED.value: message("unsupported"),
    ResultStatus.FAILED.value: message("failed"),
}


def status_words(status: ResultStatus | str) -> str:
    """A status as a translatable word ("ok", "unsupported", "failed")."""
    value = status.value if isinstance(status, ResultStatus) else status
    return STATUS_WORDS.get(value, value)


class ErrorKind(str, enum.Enum):
    CRASH = "crash"  # killed by SIGSEGV, SIGBUS, SIGILL, SIGFPE
    ABORT = "abort"  # SIGABRT: a GPU runtime's fatal error (hipErrorNoBinaryForGpu)
    KILLED = "killed"  # SIGKILL from outside, e.g. the kernel's out-of-memory killer
    HANG = "hang"  # no output for too long; killed
    TIMEOUT = "timeout"  # a benchmark or the whole run took too long; killed
    OOM = "oom"  # out of memory inside a benchmark
    WRONG_RESULT = "wrong_result"  # the device computed a wrong answer
    EXCEPTION = "exception"  # a benchmark raised
    EXITED = "exited"  # the worker ended before `done` without a signal
    NO_TORCH = "no_torch"  # the interpreter cannot import torch
    DEVICE = "device"  # the asked-for device does not exist
    START = "start"  # the interpreter could not be started or could not run the worker
    PROTOCOL = "protocol"  # the worker speaks another protocol version
    CANCELLED = "cancelled"  # the user cancelled
    WORKER = "worker"  # any other error the worker reported


@dataclass(frozen=True, slots=True)
class Spread:
    min: float
    median: float
    max: float
    count: int
    q1: float | None = None  # the quartiles of the repeats (None from older workers)
    q3: float | None = None


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """One metric over one benchmark, in the unit it is stored in (MHz, W, °C, %, bytes)."""

    metric: str  # a telemetry Metric value: "sclk_mhz"
    label: str  # "Graphics clock"
    unit: str  # "MHz"
    min: float
    median: float
    max: float
    samples: int
    source: str | None = None  # "amdsmi:...", "sysfs:/sys/class/drm/card1/device/..."
    first: float | None = None  # the first and last reading: a clock rising over the
    last: float | None = None  # benchmark was still ramping


@dataclass(frozen=True, slots=True)
class BenchTelemetry:
    """What the device did while one benchmark ran: clocks, power, temperatures (the host's CPU
    and memory for a CPU run), each as min/median/max with its source, the metrics that could
    not be read and why, and the throttle reasons seen."""

    device: str  # the telemetry device: a GPU's PCI bus address, or "host"
    label: str
    samples: int  # sampler ticks inside the benchmark's time
    rate_hz: float | None = None
    metrics: tuple[MetricSummary, ...] = ()
    missing: Mapping[str, str] = field(default_factory=dict)  # metric -> why it is missing
    throttle_reasons: tuple[str, ...] = ()  # words: "power cap", "thermal"
    throttled_samples: int = 0
    throttle_source: str | None = None
    note: str | None = None  # "no sample during this benchmark: ..." and similar

    def metric(self, metric: str) -> MetricSummary | None:
        return next((m for m in self.metrics if m.metric == metric), None)

    @property
    def throttled(self) -> bool | None:
        """True when a throttle reason was seen, False when the reasons were read and none
        was, None when they could not be read."""
        if self.throttle_reasons:
            return True
        return False if self.throttle_source is not None else None


@dataclass(frozen=True, slots=True)
class BenchmarkResult:
    id: str
    device: str  # "cuda:0" or "cpu"
    status: ResultStatus
    unit: str  # a catalog.Unit value: "TFLOPS", "TOPS", "GB/s", "us"
    higher_is_better: bool
    value: float | None = None  # the median of the repeats
    spread: Spread | None = None
    reason: str | None = None  # why unsupported or failed
    device_name: str | None = None
    parameters: Mapping[str, Scalar] = field(default_factory=dict)
    relative_error: float | None = None  # matmul/attention vs float64
    relative_error_tolerance: float | None = None
    bit_identical: bool | None = None  # the same product twice
    math_library: str | None = None  # "hipBLASLt", "cuBLAS", "MKL"
    started_unix_s: float | None = None
    ended_unix_s: float | None = None
    telemetry: BenchTelemetry | None = None  # added by gpuscope, not the worker


@dataclass(frozen=True, slots=True)
class BenchDevice:
    index: int
    name: str | None = None
    total_memory_bytes: int | None = None
    arch: str | None = None  # "gfx1100", "sm_89"
    gcn_arch_name: str | None = None  # "gfx90a:sramecc+:xnack-"
    compute_capability: str | None = None  # "8.9"
    multi_processor_count: int | None = None
    pci_bus: str | None = None  # "0000:03:00.0", from torch's pci_*_id properties
    uuid: str | None = None


@dataclass(frozen=True, slots=True)
class BenchTarget:
    """The machine's GPU a run ran on, and the card of the knowledge base it is compared with.
    Kept with the run, so that a stored run is judged against the same card later."""

    matched_by: str  # how the worker's device was found: "PCI bus address", "name", ...
    gpu_index: int | None = None  # in the inventory
    gpu_name: str | None = None
    pci_bus: str | None = None
    spec_name: str | None = None  # resources/gpu_specs.toml; None: no datasheet entry
    pcie_generation: int | None = None  # the negotiated slot link, for transfer peaks
    pcie_width: int | None = None
    pcie_note: str | None = None  # why the link is not used ("the GPU's own link ...")


@dataclass(frozen=True, slots=True)
class WorkerHello:
    protocol: int | None
    python: str | None = None  # sys.executable as the worker saw it
    python_version: str | None = None
    torch_version: str | None = None  # None: torch could not be imported
    build: str | None = None  # rocm | cuda | cpu
    build_version: str | None = None  # HIP or CUDA version
    device: str | None = None  # the device under test: "cuda:0" or "cpu"
    device_name: str | None = None
    device_note: str | None = None  # "ran on the CPU: ..."
    devices: tuple[BenchDevice, ...] = ()
    math: Mapping[str, str] = field(default_factory=dict)  # library hints
    threads: int | None = None
    pid: int | None = None
    scale: float | None = None


@dataclass(frozen=True, slots=True)
class BenchError:
    kind: ErrorKind
    message: str  # one readable line naming what happened
    benchmark: str | None = None  # the benchmark running when it happened
    signal: str | None = None  # "SIGSEGV"
    detail: str | None = None  # the telling stderr line


@dataclass(frozen=True, slots=True)
class BenchRun:
    python: str  # the interpreter as asked for
    benchmarks: tuple[str, ...]  # the ids asked for, in order
    device_request: str  # "auto", "cpu" or a GPU index
    hello: WorkerHello | None
    results: tuple[BenchmarkResult, ...]
    errors: tuple[BenchError, ...]
    started_unix_s: float
    ended_unix_s: float
    cancelled: bool = False
    not_run: tuple[str, ...] = ()  # asked for, never reported (the worker died first)
    returncode: int | None = None
    signal: str | None = None
    stderr_tail: str | None = None
    target: BenchTarget | None = None  # None: not matched (the CPU, or an unclear device)
    telemetry_note: str | None = None  # why there is no telemetry, when there is none
    # The device under test from the start of sampling to the first benchmark (the worker
    # importing torch): a load already there shows here.
    telemetry_before: BenchTelemetry | None = None
    other_processes: tuple[str, ...] = ()  # "name (pid N)" on the GPU during the run

    @property
    def duration_s(self) -> float:
        return max(0.0, self.ended_unix_s - self.started_unix_s)

    @property
    def ok(self) -> bool:
        """Every benchmark reported, none failed, no error (unsupported is fine)."""
        return (not self.errors and not self.not_run and not self.cancelled
                and all(r.status is not ResultStatus.FAILED for r in self.results))

    def result(self, benchmark_id: str) -> BenchmarkResult | None:
        return next((r for r in self.results if r.id == benchmark_id), None)


# Errors the runner observed (the worker ended, or never ran) say more than one failed benchmark.
_ENDING_KINDS = (ErrorKind.CRASH, ErrorKind.ABORT, ErrorKind.KILLED, ErrorKind.HANG,
                 ErrorKind.TIMEOUT, ErrorKind.CANCELLED, ErrorKind.START, ErrorKind.PROTOCOL,
                 ErrorKind.NO_TORCH, ErrorKind.DEVICE, ErrorKind.EXITED)


def primary_error(run: BenchRun) -> BenchError | None:
    """The one error that says best why the run is not ok; None when it is ok. A failed result
    without an error of its own becomes a `worker` error naming it."""
    for kind in _ENDING_KINDS:
        for error in run.errors:
            if error.kind is kind:
                return error
    if run.errors:
        return run.errors[0]
    failed = [r for r in run.results if r.status is ResultStatus.FAILED]
    if failed:
        return BenchError(ErrorKind.WORKER, message("{benchmark} failed: {reason}",
                                                    benchmark=failed[0].id,
                                                    reason=failed[0].reason), failed[0].id)
    if run.not_run:
        return BenchError(ErrorKind.WORKER, message("the worker finished without running {ids}",
                                                    ids=", ".join(run.not_run)))
    return None


# ----------------------------------------------------------------------------- JSON out


def run_to_json(run: BenchRun) -> dict[str, JsonValue]:
    """The run as plain JSON with a schema tag (what `gpuscope bench --json` prints): the
    run's fields, `duration_s`, `ok`, and `error`, the primary error or null."""
    body = to_jsonable(run)
    assert isinstance(body, dict)
    error = primary_error(run)
    return {"schema": RUN_SCHEMA, **body, "duration_s": round(run.duration_s, 3),
            "ok": run.ok, "error": to_jsonable(error) if error is not None else None}


# ----------------------------------------------------------------------------- JSON in


def _text(value: str) -> str | None:
    return value.strip()[:2000] or None


def _tail(value: Any) -> str | None:
    return value.rstrip()[-8000:] or None if isinstance(value, str) else None


def _decode(cls: type[T], raw: Any, **defaults: Any) -> T | None:
    return _DECODER.decode(cls, raw, defaults=defaults).value


def spread_from_json(raw: Any) -> Spread | None:
    spread = _decode(Spread, raw)
    return spread if spread is not None and spread.count >= 1 else None


def metric_summary_from_json(raw: Any) -> MetricSummary | None:
    summary = _decode(MetricSummary, raw, label="", unit="")
    if summary is not None and not summary.label:
        return replace(summary, label=summary.metric)
    return summary


def telemetry_from_json(raw: Any) -> BenchTelemetry | None:
    """A result's telemetry summary; None when absent or not one."""
    telemetry = _decode(BenchTelemetry, raw, label="", samples=0)
    if telemetry is not None and not telemetry.label:
        return replace(telemetry, label=telemetry.device)
    return telemetry


def result_from_json(raw: Any) -> BenchmarkResult | None:
    """A result as the worker sends it (or as `run_to_json` wrote it); None without an id."""
    result = _decode(BenchmarkResult, raw, device="unknown", status=ResultStatus.FAILED, unit="",
                     higher_is_better=True)
    if result is None:
        return None
    status, reason = result.status, result.reason
    if status is ResultStatus.FAILED and reason is None and raw.get("status") != "failed":
        reason = message("unknown status {status}", status=repr(raw.get("status")))
    if status is ResultStatus.OK and result.value is None:
        status, reason = ResultStatus.FAILED, message("the worker reported no value")
    if status is ResultStatus.OK:
        return result
    return replace(result, status=status, reason=reason, value=None, spread=None)


def hello_from_json(raw: Any) -> WorkerHello | None:
    """The worker's hello message (or the `hello` of a stored run); None when not a dict."""
    if not isinstance(raw, dict):
        return None
    torch = raw.get("torch")
    if isinstance(torch, dict):  # the worker's message; a stored run has these at the top
        raw = {**raw, "torch_version": torch.get("version"), "build": torch.get("build"),
               "build_version": torch.get("build_version")}
    # A device without a readable index is numbered by its place in the list.
    devices = [{**d, "index": d.get("index") if json_int(d.get("index")) is not None else n}
               for n, d in enumerate(json_list(raw.get("devices"))) if isinstance(d, dict)]
    return _decode(WorkerHello, {**raw, "devices": devices})


def error_from_json(raw: Any) -> BenchError | None:
    return _decode(BenchError, raw, kind=ErrorKind.WORKER)


def run_from_json(raw: Any) -> BenchRun | None:
    """A run as `run_to_json` wrote it; None when it is not one. Never raises."""
    return _DECODER.decode(
        BenchRun, raw, defaults={"benchmarks": (), "device_request": "auto", "results": (),
                                 "errors": ()},
        fields={"stderr_tail": _tail}).value


# Texts are stripped and capped; the classes with rules beyond their fields are read by their own
# readers wherever they appear.
_DECODER = Decoder(text=_text, readers={
    Spread: spread_from_json, MetricSummary: metric_summary_from_json,
    BenchTelemetry: telemetry_from_json, BenchmarkResult: result_from_json,
    WorkerHello: hello_from_json, BenchError: error_from_json,
})
