"""What a benchmark run produced, as frozen dataclasses, and their JSON form.

A `BenchRun` is the whole story of one worker: the interpreter, what the worker said about
itself (`WorkerHello`), each `BenchmarkResult` (with the telemetry sampled while it ran,
`BenchTelemetry`), each `BenchError` (a crash, a hang, an out of memory...), wall-clock times
that align with telemetry, and the GPU of the machine it ran on (`BenchTarget`), which names the
card whose datasheet the results are compared with. `run_to_json` / `run_from_json`
round-trip it for `--json`, `-o FILE` and the history of past runs; the `*_from_json` parsers
never raise, whatever they are given (a damaged file, a newer worker, garbage).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuscope.model import JsonValue, to_jsonable
from gpuscope.model import json_bool as _bool
from gpuscope.model import json_dict as _dict
from gpuscope.model import json_float as _float
from gpuscope.model import json_int as _int
from gpuscope.model import json_list as _list

RUN_SCHEMA = "gpuscope.bench/1"

Scalar = str | int | float | bool | None



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
        return BenchError(ErrorKind.WORKER, f"{failed[0].id} failed: {failed[0].reason}",
                          failed[0].id)
    if run.not_run:
        return BenchError(ErrorKind.WORKER, "the worker finished without running "
                          + ", ".join(run.not_run))
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


def _str(value: Any, limit: int = 2000) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip()[:limit] or None


def _tail(value: Any, limit: int = 8000) -> str | None:
    return value.rstrip()[-limit:] or None if isinstance(value, str) else None







def _scalars(value: Any) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {}
    for key, item in _dict(value).items():
        if isinstance(item, float) and not math.isfinite(item):
            continue
        if item is None or isinstance(item, (str, int, float, bool)):
            out[str(key)] = item
    return out


def _enum(cls: type[enum.Enum], value: Any, default: Any) -> Any:
    try:
        return cls(value)
    except (ValueError, TypeError):
        return default


def spread_from_json(raw: Any) -> Spread | None:
    data = _dict(raw)
    low, mid, high = (_float(data.get(k)) for k in ("min", "median", "max"))
    count = _int(data.get("count"))
    if low is None or mid is None or high is None or count is None or count < 1:
        return None
    return Spread(low, mid, high, count)


def metric_summary_from_json(raw: Any) -> MetricSummary | None:
    data = _dict(raw)
    metric, label = _str(data.get("metric")), _str(data.get("label"))
    low, mid, high = (_float(data.get(k)) for k in ("min", "median", "max"))
    samples = _int(data.get("samples"))
    if metric is None or low is None or mid is None or high is None or samples is None:
        return None
    return MetricSummary(metric, label or metric, _str(data.get("unit")) or "", low, mid, high,
                         samples, _str(data.get("source")))


def telemetry_from_json(raw: Any) -> BenchTelemetry | None:
    """A result's telemetry summary; None when absent or not one."""
    data = _dict(raw)
    device = _str(data.get("device"))
    if device is None:
        return None
    metrics = tuple(m for m in (metric_summary_from_json(v) for v in _list(data.get("metrics")))
                    if m is not None)
    missing = {str(k): v.strip() for k, v in _dict(data.get("missing")).items()
               if isinstance(v, str) and v.strip()}
    return BenchTelemetry(
        device=device,
        label=_str(data.get("label")) or device,
        samples=_int(data.get("samples")) or 0,
        rate_hz=_float(data.get("rate_hz")),
        metrics=metrics,
        missing=missing,
        throttle_reasons=tuple(s for s in (_str(v) for v in _list(data.get("throttle_reasons")))
                               if s),
        throttled_samples=_int(data.get("throttled_samples")) or 0,
        throttle_source=_str(data.get("throttle_source")),
        note=_str(data.get("note")),
    )


def target_from_json(raw: Any) -> BenchTarget | None:
    data = _dict(raw)
    matched_by = _str(data.get("matched_by"))
    if matched_by is None:
        return None
    return BenchTarget(
        matched_by=matched_by,
        gpu_index=_int(data.get("gpu_index")),
        gpu_name=_str(data.get("gpu_name")),
        pci_bus=_str(data.get("pci_bus")),
        spec_name=_str(data.get("spec_name")),
        pcie_generation=_int(data.get("pcie_generation")),
        pcie_width=_int(data.get("pcie_width")),
        pcie_note=_str(data.get("pcie_note")),
    )


def result_from_json(raw: Any) -> BenchmarkResult | None:
    """A result as the worker sends it (or as `run_to_json` wrote it); None without an id."""
    data = _dict(raw)
    benchmark_id = _str(data.get("id"))
    if benchmark_id is None:
        return None
    status = _enum(ResultStatus, data.get("status"), ResultStatus.FAILED)
    reason = _str(data.get("reason"))
    if status is ResultStatus.FAILED and reason is None and data.get("status") != "failed":
        reason = f"unknown status {data.get('status')!r}"
    value = _float(data.get("value"))
    if status is ResultStatus.OK and value is None:
        status, reason = ResultStatus.FAILED, "the worker reported no value"
    higher = _bool(data.get("higher_is_better"))
    return BenchmarkResult(
        id=benchmark_id,
        device=_str(data.get("device")) or "unknown",
        status=status,
        unit=_str(data.get("unit")) or "",
        higher_is_better=True if higher is None else higher,
        value=value if status is ResultStatus.OK else None,
        spread=spread_from_json(data.get("spread")) if status is ResultStatus.OK else None,
        reason=reason,
        device_name=_str(data.get("device_name")),
        parameters=_scalars(data.get("parameters")),
        relative_error=_float(data.get("relative_error")),
        relative_error_tolerance=_float(data.get("relative_error_tolerance")),
        bit_identical=_bool(data.get("bit_identical")),
        math_library=_str(data.get("math_library")),
        started_unix_s=_float(data.get("started_unix_s")),
        ended_unix_s=_float(data.get("ended_unix_s")),
        telemetry=telemetry_from_json(data.get("telemetry")),
    )


def _device_from_json(raw: Any, position: int) -> BenchDevice:
    data = _dict(raw)
    index = _int(data.get("index"))
    return BenchDevice(
        index=index if index is not None else position,
        name=_str(data.get("name")),
        total_memory_bytes=_int(data.get("total_memory_bytes")),
        arch=_str(data.get("arch")),
        gcn_arch_name=_str(data.get("gcn_arch_name")),
        compute_capability=_str(data.get("compute_capability")),
        multi_processor_count=_int(data.get("multi_processor_count")),
        pci_bus=_str(data.get("pci_bus")),
        uuid=_str(data.get("uuid")),
    )


def hello_from_json(raw: Any) -> WorkerHello | None:
    """The worker's hello message (or the `hello` of a stored run); None when not a dict."""
    if not isinstance(raw, dict):
        return None
    torch = raw.get("torch")
    if isinstance(torch, dict):  # the worker's message
        torch_version, build = _str(torch.get("version")), _str(torch.get("build"))
        build_version = _str(torch.get("build_version"))
    else:  # a stored run
        torch_version, build = _str(raw.get("torch_version")), _str(raw.get("build"))
        build_version = _str(raw.get("build_version"))
    math_hints = {str(k): v.strip() for k, v in _dict(raw.get("math")).items()
                  if isinstance(v, str) and v.strip()}
    return WorkerHello(
        protocol=_int(raw.get("protocol")),
        python=_str(raw.get("python")),
        python_version=_str(raw.get("python_version")),
        torch_version=torch_version,
        build=build,
        build_version=build_version,
        device=_str(raw.get("device")),
        device_name=_str(raw.get("device_name")),
        device_note=_str(raw.get("device_note")),
        devices=tuple(_device_from_json(d, n) for n, d in enumerate(_list(raw.get("devices")))
                      if isinstance(d, dict)),
        math=math_hints,
        threads=_int(raw.get("threads")),
        pid=_int(raw.get("pid")),
        scale=_float(raw.get("scale")),
    )


def error_from_json(raw: Any) -> BenchError | None:
    data = _dict(raw)
    message = _str(data.get("message"))
    if message is None:
        return None
    return BenchError(
        kind=_enum(ErrorKind, data.get("kind"), ErrorKind.WORKER),
        message=message,
        benchmark=_str(data.get("benchmark")),
        signal=_str(data.get("signal")),
        detail=_str(data.get("detail")),
    )


def run_from_json(raw: Any) -> BenchRun | None:
    """A run as `run_to_json` wrote it; None when it is not one. Never raises."""
    data = _dict(raw)
    python = _str(data.get("python"))
    started, ended = _float(data.get("started_unix_s")), _float(data.get("ended_unix_s"))
    if python is None or started is None or ended is None:
        return None
    ids = tuple(s for s in (_str(v) for v in _list(data.get("benchmarks"))) if s)
    return BenchRun(
        python=python,
        benchmarks=ids,
        device_request=_str(data.get("device_request")) or "auto",
        hello=hello_from_json(data.get("hello")),
        results=tuple(r for r in (result_from_json(v) for v in _list(data.get("results")))
                      if r is not None),
        errors=tuple(e for e in (error_from_json(v) for v in _list(data.get("errors")))
                     if e is not None),
        started_unix_s=started,
        ended_unix_s=ended,
        cancelled=_bool(data.get("cancelled")) or False,
        not_run=tuple(s for s in (_str(v) for v in _list(data.get("not_run"))) if s),
        returncode=_int(data.get("returncode")),
        signal=_str(data.get("signal")),
        stderr_tail=_tail(data.get("stderr_tail")),
        target=target_from_json(data.get("target")),
        telemetry_note=_str(data.get("telemetry_note")),
    )
