"""The share report (issue #6): one view of the whole machine, safe to post.

The report is a JSON document, schema `gpuscope.report/1`:

    {"schema", "generated_unix_s", "gpuscope_version", "origin", "redacted",
     "diagnosis": <the `gpuscope doctor --json` document>,
     "host": {cpu, cores, RAM}, "layers": [per GPU, the doctor's layer rows],
     "bench_runs": [<run_to_json>...], "telemetry_summary": {...} | null}

Every export goes the same way: `report_document` writes the document from the doctor's input,
`prepare_report` redacts it (on by default: host and user names, home paths, serials, UUIDs,
MAC and IP addresses become placeholders) and reads it back with `report_from_document` into a
`ShareReport`, the view model that the Markdown, HTML and PNG writers draw. So no writer ever
sees an unredacted value, and a report re-imported with `load_report_json` (someone else's
file, for the Compare page) is the same kind of object as one made here.

Benchmark verdicts are not stored: they are worked out from the runs and the GPUs against the
knowledge base each time a report is read, so an old report gets today's expectations.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpuscope import __version__
from gpuscope.bench.assess import assess_run
from gpuscope.bench.results import BenchRun, ResultStatus, run_from_json, run_to_json
from gpuscope.doctor import DoctorInput, diagnosis_document
from gpuscope.doctor.layers import LayerState, layers_for
from gpuscope.doctor.verdicts import framework_verdicts
from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.specs import GpuSpec, gpu_spec
from gpuscope.metrics import CATALOGUE, HOST_DEVICE, Metric
from gpuscope.model import (
    Finding,
    Gpu,
    GpuKind,
    OriginKind,
    PcieLink,
    Vendor,
    format_bytes,
    to_jsonable,
)
from gpuscope.model import json_bool as _bool
from gpuscope.model import json_dict as _dict
from gpuscope.model import json_float as _float
from gpuscope.model import json_int as _int
from gpuscope.model import json_list as _list
from gpuscope.report.redact import Identity, Redactor, Replacement

REPORT_SCHEMA = "gpuscope.report/1"
TELEMETRY_SCHEMA = "gpuscope.telemetry-summary/1"
# Points of a sparkline: enough for a shape, few enough for a small report.
SPARK_POINTS = 60
# What the telemetry strip shows, in this order: clocks, power, temperature, utilization.
STRIP_METRICS: tuple[Metric, ...] = (
    Metric.GPU_UTIL_PERCENT, Metric.SCLK_MHZ, Metric.MCLK_MHZ, Metric.POWER_W,
    Metric.TEMP_EDGE_C, Metric.TEMP_JUNCTION_C, Metric.TEMP_MEMORY_C, Metric.VRAM_USED_BYTES,
    Metric.HOST_CPU_PERCENT, Metric.HOST_RAM_USED_BYTES,
)
SEVERITY_ORDER: tuple[str, ...] = ("error", "warning", "info", "ok")
SEVERITY_WORDS: Mapping[str, str] = {"error": "error", "warning": "warning", "info": "note",
                                     "ok": "ok"}
SEVERITY_MARKS: Mapping[str, str] = {"error": "✗", "warning": "!", "info": "i", "ok": "✓"}
LAYER_WORDS: Mapping[str, str] = {
    LayerState.OK.value: "works", LayerState.WARNING.value: "warning",
    LayerState.BLOCKED.value: "blocked", LayerState.UNKNOWN.value: "not checked",
    LayerState.NOT_APPLICABLE.value: "does not apply",
}
LAYER_MARKS: Mapping[str, str] = {state.value: state.mark for state in LayerState}
VERDICT_WORDS: Mapping[str, str] = {
    VerdictLevel.NORMAL.value: "normal", VerdictLevel.LOW.value: "low",
    VerdictLevel.HIGH.value: "above published", VerdictLevel.UNKNOWN.value: "no reference",
    "unsupported": "unsupported", "failed": "failed",
}


class ReportError(ValueError):
    """A text that is not a gpuscope report (the message says why)."""


# ----------------------------------------------------------------------------- the view model


@dataclass(frozen=True, slots=True)
class ReportOrigin:
    """Where the data came from. Anything but live is labelled in every format."""

    kind: str  # "live" | "replay" | "imported" | "unknown"
    source: str | None = None  # the snapshot's or imported files' names
    captured_utc: str | None = None
    gpuscope_version: str | None = None  # of the capture

    @property
    def is_live(self) -> bool:
        return self.kind == OriginKind.LIVE.value

    @property
    def title(self) -> str:
        return {"live": "Live reading of this machine",
                "replay": "REPLAYED SNAPSHOT — not a live reading",
                "imported": "IMPORTED OUTPUTS — not probed by gpuscope"}.get(
            self.kind, "ORIGIN UNKNOWN — not a live reading")

    def sentence(self, generated_unix_s: float | None = None) -> str:
        when = format_utc(self.captured_utc) if self.captured_utc else None
        if self.kind == "live":
            at = when or (format_unix(generated_unix_s) if generated_unix_s else None)
            return f"Read from the machine by gpuscope{f' at {at}' if at else ''}."
        if self.kind == "replay":
            by = f" by gpuscope {self.gpuscope_version}" if self.gpuscope_version else ""
            captured = f"captured {when}{by}" if when else "capture date not recorded"
            return (f"Replay of the snapshot {self.source or '(unnamed)'}, {captured}: "
                    "values as they were then, not the machine's state now.")
        if self.kind == "imported":
            return (f"Diagnosed from pasted tool outputs ({self.source or 'pasted text'}): "
                    "gpuscope did not probe this machine, and what the outputs do not show "
                    "is unknown.")
        return "The report does not say where its data came from."


@dataclass(frozen=True, slots=True)
class ReportPlatform:
    os: str = "unknown"
    distro: str | None = None
    kernel: str | None = None
    container: bool | None = None
    virtual_machine: bool | None = None
    architecture: str | None = None
    cpu_model: str | None = None
    cpu_physical_cores: int | None = None
    cpu_logical_cores: int | None = None
    ram_total_bytes: int | None = None

    @property
    def os_text(self) -> str:
        name = {"linux": "Linux", "windows": "Windows", "wsl": "WSL", "macos": "macOS"}.get(
            self.os, "unknown OS")
        text = f"{self.distro} ({name})" if self.distro else name
        extras = [w for w, on in (("container", self.container),
                                  ("virtual machine", self.virtual_machine)) if on]
        return text + (f", in a {' and '.join(extras)}" if extras else "")

    @property
    def cpu_text(self) -> str | None:
        if not self.cpu_model:
            return None
        cores = []
        if self.cpu_physical_cores:
            cores.append(f"{self.cpu_physical_cores} cores")
        if self.cpu_logical_cores:
            cores.append(f"{self.cpu_logical_cores} threads")
        return self.cpu_model + (f" ({', '.join(cores)})" if cores else "")

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) of the Machine section, as every format shows it."""
        rows = [("OS", self.os_text)]
        if self.kernel:
            rows.append(("Kernel", self.kernel))
        if self.cpu_text:
            rows.append(("CPU", self.cpu_text + (f", {self.architecture}"
                                                 if self.architecture else "")))
        if self.ram_total_bytes:
            rows.append(("RAM", format_bytes(self.ram_total_bytes)))
        return rows


@dataclass(frozen=True, slots=True)
class ReportGpu:
    """One GPU as the report shows it (and as Compare reads it from someone's report)."""

    index: int
    name: str
    vendor: str | None = None  # "amd" | "nvidia" | "intel" | "other"
    kind: str | None = None
    gfx_target: str | None = None
    compute_capability: str | None = None
    architecture: str | None = None
    board_name: str | None = None
    pci_vendor_id: str | None = None
    pci_device_id: str | None = None
    pci_bus: str | None = None
    vram_total_bytes: int | None = None
    compute_units: int | None = None
    kernel_driver: str | None = None
    driver_version: str | None = None
    pcie_link: PcieLink | None = None
    name_candidates: tuple[str, ...] = ()
    power_cap_w: float | None = None

    @property
    def vendor_label(self) -> str:
        return {"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel"}.get(self.vendor or "",
                                                                        "unknown")

    @property
    def target(self) -> str | None:
        """"gfx1100" or "CC 8.9"."""
        if self.gfx_target:
            return self.gfx_target
        return f"CC {self.compute_capability}" if self.compute_capability else None

    @property
    def vram_text(self) -> str | None:
        return format_bytes(self.vram_total_bytes) if self.vram_total_bytes else None

    @property
    def pci_id_text(self) -> str | None:
        if not (self.pci_vendor_id and self.pci_device_id):
            return None
        return f"{self.pci_vendor_id.removeprefix('0x')}:{self.pci_device_id.removeprefix('0x')}"

    def to_gpu(self) -> Gpu:
        """The model's Gpu, for the knowledge base (`compare.profile_for_gpu`, `gpu_spec`)."""
        vendor = _enum_value(Vendor, self.vendor)
        kind = _enum_value(GpuKind, self.kind)
        return Gpu(index=self.index, vendor=vendor, name=self.name,
                   name_candidates=self.name_candidates, board_name=self.board_name,
                   architecture=self.architecture, kind=kind, pci_bus=self.pci_bus,
                   pci_vendor_id=self.pci_vendor_id, pci_device_id=self.pci_device_id,
                   gfx_target=self.gfx_target, compute_capability=self.compute_capability,
                   vram_total_bytes=self.vram_total_bytes, compute_units=self.compute_units,
                   kernel_driver=self.kernel_driver, driver_version=self.driver_version,
                   pcie_link=self.pcie_link, power_cap_w=self.power_cap_w)

    def spec(self) -> GpuSpec | None:
        """The card in the knowledge base, or None."""
        if not (self.name or self.pci_device_id):
            return None
        return gpu_spec(self.name or None, vendor_id=self.pci_vendor_id,
                        device_id=self.pci_device_id, vram_bytes=self.vram_total_bytes)


@dataclass(frozen=True, slots=True)
class ReportLayer:
    name: str
    state: str  # a LayerState value
    text: str
    finding: str | None = None  # the finding id behind the state

    @property
    def word(self) -> str:
        return LAYER_WORDS.get(self.state, self.state)

    @property
    def mark(self) -> str:
        return LAYER_MARKS.get(self.state, "?")


@dataclass(frozen=True, slots=True)
class GpuLayers:
    gpu: int
    rows: tuple[ReportLayer, ...]


@dataclass(frozen=True, slots=True)
class ReportFramework:
    name: str
    version: str | None = None
    build: str = "unknown"
    build_version: str | None = None
    gpu_available: bool | None = None
    python: str | None = None
    devices: tuple[str, ...] = ()
    smoke_test: str | None = None
    error: str | None = None
    # The doctor's verdict per GPU ("GPU 0: yes as device 0"), as the window shows it.
    verdicts: tuple[str, ...] = ()

    @property
    def build_text(self) -> str:
        return f"{self.build} {self.build_version or ''}".strip()

    @property
    def sees_text(self) -> str:
        if self.verdicts:
            return "; ".join(self.verdicts)
        if self.error:
            return "could not inspect"
        return {True: "yes", False: "no", None: "not checked"}[self.gpu_available]


@dataclass(frozen=True, slots=True)
class ReportFinding:
    id: str
    severity: str  # a Severity value
    title: str
    detail: str = ""
    fix: str | None = None
    gpu: int | None = None
    evidence: tuple[str, ...] = ()
    # Complete shell lines, shown as code; `fix` is the plain-words explanation.
    fix_commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # public URLs

    @property
    def word(self) -> str:
        return SEVERITY_WORDS.get(self.severity, self.severity)

    @property
    def mark(self) -> str:
        return SEVERITY_MARKS.get(self.severity, "?")


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One benchmark result against the datasheet, with the verdict's words."""

    id: str
    title: str
    status: str  # a ResultStatus value
    unit: str
    value: float | None = None
    peak_value: float | None = None
    peak_label: str | None = None
    percent_of_peak: float | None = None
    band_pct: tuple[float, float] | None = None  # the published range, % of the peak
    level: str = VerdictLevel.UNKNOWN.value  # a VerdictLevel value, "unsupported" or "failed"
    verdict: str = ""
    higher_is_better: bool = True

    @property
    def level_word(self) -> str:
        return VERDICT_WORDS.get(self.level, self.level)

    @property
    def value_text(self) -> str:
        if self.value is None:
            return self.status
        return f"{format_number(self.value)} {self.unit}"

    @property
    def peak_text(self) -> str:
        if self.peak_value is None:
            return "–"
        return f"{format_number(self.peak_value)} {self.unit}"

    @property
    def percent_text(self) -> str:
        return format_percent(self.percent_of_peak) if self.percent_of_peak is not None else "–"


@dataclass(frozen=True, slots=True)
class BenchSection:
    """One benchmark run: where it ran, with what, and each result against the datasheet."""

    device: str  # "AMD Radeon RX 7900 XTX (cuda:0)" or "CPU"
    card: str | None  # the knowledge base's card compared against, or None
    torch: str  # "torch 2.7.1+rocm6.3 (rocm 6.3)" or "no torch"
    started_unix_s: float
    duration_s: float
    rows: tuple[BenchRow, ...]
    errors: tuple[str, ...] = ()
    not_run: tuple[str, ...] = ()
    note: str | None = None  # the worker's note ("ran on the CPU: ...")
    gpu_index: int | None = None


@dataclass(frozen=True, slots=True)
class MetricStats:
    metric: str  # a Metric value
    label: str
    unit: str  # as shown: "%", "MHz", "W", "°C", "GiB"
    min: float
    avg: float
    max: float
    samples: int
    spark: tuple[float | None, ...] = ()  # bucket means in the shown unit, None for a gap


@dataclass(frozen=True, slots=True)
class DeviceTelemetry:
    key: str  # PCI bus address or "host"
    label: str
    metrics: tuple[MetricStats, ...]

    def metric(self, metric: Metric | str) -> MetricStats | None:
        wanted = metric.value if isinstance(metric, Metric) else metric
        return next((m for m in self.metrics if m.metric == wanted), None)


@dataclass(frozen=True, slots=True)
class TelemetrySummary:
    """Min/avg/max (and a sparkline) of the strip's metrics per GPU and for the host, over a
    recording or the live ring buffers."""

    source: str  # "live sampler" or "recording r.sqlite"
    live: bool
    started_unix_s: float | None
    duration_s: float | None
    devices: tuple[DeviceTelemetry, ...]


@dataclass(frozen=True, slots=True)
class DeviceSeries:
    """The input of `summarise_telemetry`: one device's samples in stored units (bytes, MHz,
    W, °C, %), NaN where a sample is missing."""

    key: str
    label: str
    times_s: Sequence[float]
    values: Mapping[str, Sequence[float]]  # metric id -> one value per time


@dataclass(frozen=True, slots=True)
class ShareReport:
    """The report as every writer draws it. `document` is the JSON it was read from
    (redacted unless `redacted` is False); `problems` lists parts that could not be read."""

    generated_unix_s: float | None
    gpuscope_version: str | None
    origin: ReportOrigin
    redacted: bool
    platform: ReportPlatform
    gpus: tuple[ReportGpu, ...]
    layers: tuple[GpuLayers, ...]
    stack: tuple[tuple[str, str], ...]  # (label, value) of the versions and facts found
    environment: tuple[tuple[str, str], ...]  # variables that are set
    device_nodes: tuple[tuple[str, str], ...]  # (path, access)
    frameworks: tuple[ReportFramework, ...]
    findings: tuple[ReportFinding, ...]
    bench: tuple[BenchSection, ...]
    bench_runs: tuple[BenchRun, ...]
    telemetry: TelemetrySummary | None
    document: Mapping[str, Any] = field(compare=False, hash=False, repr=False)
    problems: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        if not self.gpus:
            return "GPU report: no GPU found"
        names = list(dict.fromkeys(g.name for g in self.gpus))
        counted = [f"{sum(1 for g in self.gpus if g.name == n)}× {n}"
                   if sum(1 for g in self.gpus if g.name == n) > 1 else n for n in names]
        return "GPU report: " + ", ".join(counted)

    def layers_of(self, gpu: int) -> tuple[ReportLayer, ...]:
        return next((entry.rows for entry in self.layers if entry.gpu == gpu), ())

    def counts(self) -> tuple[int, int]:
        """(errors, warnings)."""
        return (sum(1 for f in self.findings if f.severity == "error"),
                sum(1 for f in self.findings if f.severity == "warning"))

    def verdict_line(self) -> str:
        errors, warnings = self.counts()
        if not self.gpus:
            return "No GPU found."
        if errors == 0 and warnings == 0:
            return "The doctor found nothing wrong."
        parts = [f"{n} {w}{'s' if n != 1 else ''}" for n, w in
                 ((errors, "error"), (warnings, "warning")) if n]
        return "The doctor found " + " and ".join(parts) + "."


@dataclass(frozen=True, slots=True)
class PreparedReport:
    """A report ready to export, and what redaction took out of it (for the preview)."""

    report: ShareReport
    replacements: tuple[Replacement, ...]


@dataclass(frozen=True, slots=True)
class LoadedReport:
    """`load_report_json`'s answer: the report, or why there is none."""

    report: ShareReport | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.report is not None


# ----------------------------------------------------------------------------- formatting


def format_number(value: float) -> str:
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def format_percent(value: float) -> str:
    return f"{value:.1f}%" if abs(value) < 10 else f"{value:.0f}%"


def format_unix(unix_s: float | None) -> str:
    if unix_s is None or not math.isfinite(unix_s):
        return "unknown time"
    try:
        moment = _dt.datetime.fromtimestamp(unix_s, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "unknown time"
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def format_utc(text: str) -> str:
    try:
        moment = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return text.strip()
    if moment.tzinfo is not None:
        return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def format_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "unknown duration"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def format_stat(value: float, unit: str) -> str:
    text = format_number(value) if unit not in ("%", "°C", "W", "MHz") else f"{value:.0f}"
    return f"{text} {unit}".strip() if unit != "%" else f"{text}%"


def _enum_value(cls: Any, value: str | None) -> Any:
    try:
        return cls(value) if value is not None else None
    except ValueError:
        return None


# ----------------------------------------------------------------------------- telemetry


def _bucket_means(values: np.ndarray[Any, Any], points: int) -> tuple[float | None, ...]:
    if len(values) == 0:
        return ()
    chunks = np.array_split(values, min(points, len(values)))
    out: list[float | None] = []
    for chunk in chunks:
        finite = chunk[np.isfinite(chunk)]
        out.append(round(float(finite.mean()), 3) if len(finite) else None)
    return tuple(out)


def summarise_telemetry(devices: Sequence[DeviceSeries], *, source: str,
                        live: bool) -> TelemetrySummary | None:
    """Min/avg/max and a sparkline of the strip's metrics of each device, in the shown units;
    None when no device has a single value of them."""
    summaries: list[DeviceTelemetry] = []
    starts: list[float] = []
    ends: list[float] = []
    for device in devices:
        metrics: list[MetricStats] = []
        for metric in STRIP_METRICS:
            raw = device.values.get(metric.value)
            if raw is None:
                continue
            info = CATALOGUE[metric]
            values = np.asarray(raw, dtype=float) * info.display_scale
            finite = values[np.isfinite(values)]
            if len(finite) == 0:
                continue
            metrics.append(MetricStats(
                metric=metric.value, label=info.label, unit=info.unit,
                min=round(float(finite.min()), 3), avg=round(float(finite.mean()), 3),
                max=round(float(finite.max()), 3), samples=len(finite),
                spark=_bucket_means(values, SPARK_POINTS)))
        if not metrics:
            continue
        times = np.asarray(device.times_s, dtype=float)
        times = times[np.isfinite(times)]
        if len(times):
            starts.append(float(times.min()))
            ends.append(float(times.max()))
        summaries.append(DeviceTelemetry(device.key, device.label, tuple(metrics)))
    if not summaries:
        return None
    # GPUs first, the host last
    summaries.sort(key=lambda d: d.key == HOST_DEVICE)
    started = min(starts) if starts else None
    duration = max(ends) - started if starts and started is not None else None
    return TelemetrySummary(source=source, live=live, started_unix_s=started,
                            duration_s=duration, devices=tuple(summaries))


def telemetry_to_json(summary: TelemetrySummary) -> dict[str, Any]:
    doc = to_jsonable(summary)
    assert isinstance(doc, dict)
    return {"schema": TELEMETRY_SCHEMA, **doc}


def telemetry_from_json(raw: Any) -> TelemetrySummary | None:
    data = _dict(raw)
    devices: list[DeviceTelemetry] = []
    for entry in _list(data.get("devices")):
        device = _dict(entry)
        metrics: list[MetricStats] = []
        for item in _list(device.get("metrics")):
            stat = _dict(item)
            metric, low, avg, high = (_str(stat.get("metric")), _float(stat.get("min")),
                                      _float(stat.get("avg")), _float(stat.get("max")))
            if metric is None or low is None or avg is None or high is None:
                continue
            spark = tuple(_float(v) for v in _list(stat.get("spark"))[:SPARK_POINTS * 4])
            metrics.append(MetricStats(metric, _str(stat.get("label")) or metric,
                                       _str(stat.get("unit")) or "", low, avg, high,
                                       _int(stat.get("samples")) or 0, spark))
        key = _str(device.get("key"))
        if key and metrics:
            devices.append(DeviceTelemetry(key, _str(device.get("label")) or key,
                                           tuple(metrics)))
    if not devices:
        return None
    return TelemetrySummary(source=_str(data.get("source")) or "unknown source",
                            live=_bool(data.get("live")) or False,
                            started_unix_s=_float(data.get("started_unix_s")),
                            duration_s=_float(data.get("duration_s")), devices=tuple(devices))


# ----------------------------------------------------------------------------- writing


def _origin_json(data: DoctorInput) -> dict[str, Any]:
    origin = data.inventory.origin
    source = origin.source
    if source and origin.kind is OriginKind.REPLAY:
        source = source.replace("\\", "/").rsplit("/", 1)[-1]  # the file's name, not its path
    kind = origin.kind.value
    # "label" is for a person reading the JSON; readers go by "kind".
    label = ReportOrigin(kind if kind in ("live", "replay", "imported") else "unknown").title
    return {"kind": kind, "label": label, "source": source,
            "captured_utc": origin.captured_utc, "gpuscope_version": origin.gpuscope_version}


def _verdicts_json(data: DoctorInput, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """The doctor's verdict per (framework, GPU): what the Frameworks page shows."""
    return [{"framework": to_jsonable(verdict.framework), "gpu": verdict.gpu,
             "state": verdict.state.value, "reason": verdict.reason.value,
             "text": verdict.text, "finding_ids": list(verdict.finding_ids),
             "flavour": verdict.flavour, "arch_covered": verdict.arch.covered,
             "smoke_test": verdict.smoke.status, "host": verdict.host.status}
            for framework in data.frameworks
            for verdict in framework_verdicts(data, findings, framework)]


def _layers_json(data: DoctorInput, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for gpu in data.inventory.gpus:
        rows = [{"name": row.name, "state": row.state.value, "text": row.text,
                 "finding": row.finding.id if row.finding is not None else None}
                for row in layers_for(data, findings, gpu)]
        out.append({"gpu": gpu.index, "rows": rows})
    return out


def report_document(data: DoctorInput, findings: Sequence[Finding], *,
                    bench_runs: Sequence[BenchRun] = (),
                    telemetry: TelemetrySummary | None = None,
                    generated_unix_s: float | None = None) -> dict[str, Any]:
    """The `gpuscope.report/1` document, unredacted ("redacted": false)."""
    host = data.inventory.host
    return {
        "schema": REPORT_SCHEMA,
        "generated_unix_s": round(time.time() if generated_unix_s is None
                                  else generated_unix_s, 3),
        "gpuscope_version": __version__,
        "origin": _origin_json(data),
        "redacted": False,
        "diagnosis": diagnosis_document(data, tuple(findings)),
        "host": {"architecture": host.architecture, "cpu_model": host.cpu_model,
                 "cpu_physical_cores": host.cpu_physical_cores,
                 "cpu_logical_cores": host.cpu_logical_cores,
                 "ram_total_bytes": host.ram_total_bytes},
        "layers": _layers_json(data, findings),
        "framework_verdicts": _verdicts_json(data, findings),
        "bench_runs": [run_to_json(run) for run in bench_runs],
        "telemetry_summary": telemetry_to_json(telemetry) if telemetry is not None else None,
    }


def redactor_for(data: DoctorInput, document: Mapping[str, Any],
                 identity: Identity | None = None,
                 identity_sources: Sequence[Any] = ()) -> Redactor:
    """The redactor of one export: this process's user, host and home, what the machine's
    inventory and frameworks say about themselves, `identity` and whatever
    `identity_sources` (a replayed snapshot's JSON) name."""
    return Redactor.for_export(data.inventory, data.frameworks, document, *identity_sources,
                               identity=identity)


def prepare_report(data: DoctorInput, findings: Sequence[Finding], *,
                   bench_runs: Sequence[BenchRun] = (),
                   telemetry: TelemetrySummary | None = None, redact: bool = True,
                   identity: Identity | None = None, identity_sources: Sequence[Any] = (),
                   generated_unix_s: float | None = None) -> PreparedReport:
    """The report of `data` ready to export: redacted (unless `redact` is False) before any
    format is made from it, with the list of what was replaced."""
    document = report_document(data, findings, bench_runs=bench_runs, telemetry=telemetry,
                               generated_unix_s=generated_unix_s)
    replacements: tuple[Replacement, ...] = ()
    if redact:
        redactor = redactor_for(data, document, identity, identity_sources)
        document = redactor.redact_json({**document, "redacted": True})
        replacements = redactor.preview()
    return PreparedReport(report_from_document(document), replacements)


def preview_replacements(data: DoctorInput, findings: Sequence[Finding], *,
                         bench_runs: Sequence[BenchRun] = (),
                         telemetry: TelemetrySummary | None = None,
                         identity: Identity | None = None,
                         identity_sources: Sequence[Any] = ()) -> tuple[Replacement, ...]:
    """What redaction will remove from this report: kind, original, placeholder."""
    return prepare_report(data, findings, bench_runs=bench_runs, telemetry=telemetry,
                          identity=identity, identity_sources=identity_sources).replacements


def report_json_text(report: ShareReport) -> str:
    """The JSON export: the document the report was read from."""
    return json.dumps(report.document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


# ----------------------------------------------------------------------------- reading


def _str(value: Any, limit: int = 4000) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip()[:limit] or None







# A finding's source as a report may show it: a web address with nothing that could close the
# link or the attribute it is written into.
_PUBLIC_URL = re.compile(r"https?://[^\s<>\"'`\\]+")


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(s for s in (_str(v) for v in _list(value)) if s)


def _link(raw: Any) -> PcieLink | None:
    data = _dict(raw)
    if not data:
        return None
    return PcieLink(current_speed_gt_s=_float(data.get("current_speed_gt_s")),
                    current_width=_int(data.get("current_width")),
                    max_speed_gt_s=_float(data.get("max_speed_gt_s")),
                    max_width=_int(data.get("max_width")),
                    measured_at=_str(data.get("measured_at")))


def _gpus(diagnosis: Mapping[str, Any]) -> tuple[ReportGpu, ...]:
    gpus: list[ReportGpu] = []
    for position, raw in enumerate(_list(diagnosis.get("gpus"))):
        data = _dict(raw)
        if not data:
            continue
        index = _int(data.get("index"))
        gpus.append(ReportGpu(
            index=index if index is not None else position,
            name=_str(data.get("name")) or "unknown GPU",
            vendor=_str(data.get("vendor")), kind=_str(data.get("kind")),
            gfx_target=_str(data.get("gfx_target")),
            compute_capability=_str(data.get("compute_capability")),
            architecture=_str(data.get("architecture")),
            board_name=_str(data.get("board_name")),
            pci_vendor_id=_str(data.get("pci_vendor_id")),
            pci_device_id=_str(data.get("pci_device_id")),
            pci_bus=_str(data.get("pci_bus")),
            vram_total_bytes=_int(data.get("vram_total_bytes")),
            compute_units=_int(data.get("compute_units")),
            kernel_driver=_str(data.get("kernel_driver")),
            driver_version=_str(data.get("driver_version")),
            pcie_link=_link(data.get("pcie_link")),
            name_candidates=_strings(data.get("name_candidates")),
            power_cap_w=_float(data.get("power_cap_w"))))
    return tuple(gpus)


def _platform(diagnosis: Mapping[str, Any], host: Mapping[str, Any]) -> ReportPlatform:
    data = _dict(diagnosis.get("platform"))
    return ReportPlatform(
        os=_str(data.get("os")) or "unknown", distro=_str(data.get("distro")),
        kernel=_str(data.get("kernel")), container=_bool(data.get("container")),
        virtual_machine=_bool(data.get("virtual_machine")),
        architecture=_str(host.get("architecture")), cpu_model=_str(host.get("cpu_model")),
        cpu_physical_cores=_int(host.get("cpu_physical_cores")),
        cpu_logical_cores=_int(host.get("cpu_logical_cores")),
        ram_total_bytes=_int(host.get("ram_total_bytes")))


_STACK_FIELDS: tuple[tuple[str, str], ...] = (
    ("rocm_version", "ROCm"), ("hip_runtime_version", "HIP runtime"),
    ("hsa_runtime_version", "HSA runtime"), ("amdgpu_driver_version", "amdgpu-dkms"),
    ("amdgpu_loaded", "amdgpu loaded"), ("kfd_loaded", "KFD loaded"),
    ("nvidia_driver_version", "NVIDIA driver"), ("cuda_driver_version", "CUDA (driver)"),
    ("nvml_library_version", "NVML library"), ("amdsmi_library_version", "amdsmi library"),
    ("rocm_path", "ROCm path"),
)
_STACK_EXTRAS: tuple[tuple[str, str], ...] = (
    ("cuda_toolkit_version", "CUDA toolkit"), ("rocm_version_full", "ROCm (full)"),
)


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return _str(value, 400)


def _stack(diagnosis: Mapping[str, Any]) -> tuple[tuple[tuple[str, str], ...],
                                                  tuple[tuple[str, str], ...],
                                                  tuple[tuple[str, str], ...]]:
    stack = _dict(diagnosis.get("stack"))
    rows: list[tuple[str, str]] = []
    platform = _dict(diagnosis.get("platform"))
    kernel = _str(platform.get("kernel"))
    if kernel:
        rows.append(("Kernel", kernel))
    for key, label in _STACK_FIELDS:
        text = _scalar_text(stack.get(key))
        if text is not None:
            rows.append((label, text))
    extras = _dict(stack.get("extras"))
    for key, label in _STACK_EXTRAS:
        text = _scalar_text(extras.get(key))
        if text is not None:
            rows.append((label, text))
    environment = tuple((str(k), text) for k, v in _dict(stack.get("environment")).items()
                        if (text := _scalar_text(v)) is not None)
    nodes: list[tuple[str, str]] = []
    for raw in _list(stack.get("device_nodes")):
        node = _dict(raw)
        path = _str(node.get("path"))
        if path is None:
            continue
        if node.get("exists") is False:
            access = "missing"
        elif node.get("can_open") is True:
            access = "this user can open it"
        elif node.get("can_open") is False:
            access = _str(node.get("reason")) or "this user cannot open it"
        else:
            access = "not checked"
        owner = ":".join(p for p in (_str(node.get("owner_user")),
                                     _str(node.get("owner_group"))) if p)
        mode = " ".join(p for p in (_str(node.get("mode")), owner) if p)
        nodes.append((path, f"{access}{f' ({mode})' if mode else ''}"))
    return tuple(rows), environment, tuple(nodes)


def _frameworks(diagnosis: Mapping[str, Any],
                verdicts: Sequence[Any] = ()) -> tuple[ReportFramework, ...]:
    out: list[ReportFramework] = []
    for raw in _list(diagnosis.get("frameworks")):
        data = _dict(raw)
        name = _str(data.get("name"))
        if name is None:
            continue
        devices = tuple(n for n in (_str(_dict(d).get("name")) for d in
                                    _list(data.get("devices"))) if n)
        out.append(ReportFramework(
            name=name, version=_str(data.get("version")), build=_str(data.get("build"))
            or "unknown", build_version=_str(data.get("build_version")),
            gpu_available=_bool(data.get("gpu_available")), python=_str(data.get("python")),
            devices=devices, smoke_test=_str(data.get("smoke_test")),
            error=_str(data.get("error")), verdicts=tuple(
                f"GPU {_int(_dict(v).get('gpu'))}: {_str(_dict(v).get('text'))}"
                for v in verdicts if _dict(_dict(v).get("framework")) == {
                    "name": name, "python": _str(data.get("python")),
                    "version": _str(data.get("version"))}
                and _str(_dict(v).get("text")) is not None)))
    return tuple(out)


def _findings(diagnosis: Mapping[str, Any]) -> tuple[ReportFinding, ...]:
    out: list[ReportFinding] = []
    for raw in _list(diagnosis.get("findings")):
        data = _dict(raw)
        finding_id, title = _str(data.get("id")), _str(data.get("title"))
        if finding_id is None or title is None:
            continue
        severity = _str(data.get("severity")) or "info"
        out.append(ReportFinding(
            id=finding_id, severity=severity if severity in SEVERITY_ORDER else "info",
            title=title, detail=_str(data.get("detail"), 8000) or "",
            fix=_str(data.get("fix"), 4000), gpu=_int(data.get("gpu")),
            evidence=_strings(data.get("evidence")),
            fix_commands=tuple(c for c in (_str(v, 2000) for v in _list(
                data.get("fix_commands"))[:20]) if c),
            sources=tuple(u for u in (_str(v, 500) for v in _list(data.get("sources"))[:20])
                          if u and _PUBLIC_URL.fullmatch(u))))
    out.sort(key=lambda f: SEVERITY_ORDER.index(f.severity))
    return tuple(out)


def _layers(raw: Any) -> tuple[GpuLayers, ...]:
    out: list[GpuLayers] = []
    for entry in _list(raw):
        data = _dict(entry)
        gpu = _int(data.get("gpu"))
        if gpu is None:
            continue
        rows = []
        for item in _list(data.get("rows")):
            row = _dict(item)
            name, state = _str(row.get("name")), _str(row.get("state"))
            if name is None or state is None:
                continue
            rows.append(ReportLayer(name, state if state in LAYER_WORDS else "unknown",
                                    _str(row.get("text")) or "", _str(row.get("finding"))))
        out.append(GpuLayers(gpu, tuple(rows)))
    return tuple(out)


# ----------------------------------------------------------------------------- benchmarks


def _bench_section(run: BenchRun, gpus: Sequence[ReportGpu]) -> BenchSection:
    hello = run.hello
    # The matching (worker device -> GPU -> card and slot link) and the judging live in the
    # bench layer, shared with `gpuscope bench` and the Benchmarks page.
    assessment = assess_run(run, [g.to_gpu() for g in gpus])
    rows: list[BenchRow] = []
    for result in run.results:
        judged = assessment.result(result.id)
        title = judged.title if judged is not None else result.id
        if judged is None or result.status is not ResultStatus.OK or result.value is None:
            rows.append(BenchRow(result.id, title, result.status.value, result.unit,
                                 level=result.status.value,
                                 verdict=result.reason or result.status.value,
                                 higher_is_better=result.higher_is_better))
            continue
        peak = judged.peak
        rows.append(BenchRow(
            result.id, title, result.status.value, result.unit, value=result.value,
            peak_value=peak.value if peak is not None else None,
            peak_label=peak.label if peak is not None else None,
            percent_of_peak=judged.percent_of_peak, band_pct=judged.band_pct,
            level=judged.level, verdict=judged.text,
            higher_is_better=result.higher_is_better))
    if hello is not None and hello.torch_version:
        torch = f"torch {hello.torch_version}"
        if hello.build:
            torch += f" ({hello.build}{f' {hello.build_version}' if hello.build_version else ''})"
    else:
        torch = "no torch"
    errors = tuple(f"{e.kind.value}: {e.message}" for e in run.errors)
    card = assessment.card
    target = assessment.target
    return BenchSection(device=assessment.device_label,
                        card=card.name if card is not None else None,
                        torch=torch, started_unix_s=run.started_unix_s,
                        duration_s=run.duration_s, rows=tuple(rows), errors=errors,
                        not_run=run.not_run,
                        note=hello.device_note if hello is not None else None,
                        gpu_index=target.gpu_index if target is not None else None)


# ----------------------------------------------------------------------------- the document


def report_from_document(raw: Any) -> ShareReport:
    """A report from its JSON document. Never raises: what cannot be read is left out and
    named in `problems`. Raises ReportError only for something that is no report at all."""
    doc = _dict(raw)
    if doc.get("schema") != REPORT_SCHEMA:
        found = doc.get("schema") if doc else type(raw).__name__
        raise ReportError(f"not a gpuscope report (schema {found!r}, expected "
                          f"{REPORT_SCHEMA!r})")
    problems: list[str] = []
    diagnosis = _dict(doc.get("diagnosis"))
    if not diagnosis:
        problems.append("the report holds no diagnosis")
    origin_raw = doc.get("origin")
    origin_data = _dict(origin_raw)
    if isinstance(origin_raw, str):  # a diagnosis-style origin
        origin_data = {"kind": origin_raw}
    kind = _str(origin_data.get("kind")) or _str(diagnosis.get("origin")) or "unknown"
    origin = ReportOrigin(kind=kind if kind in ("live", "replay", "imported") else "unknown",
                          source=_str(origin_data.get("source"), 400)
                          or _str(diagnosis.get("origin_source"), 400),
                          captured_utc=_str(origin_data.get("captured_utc")),
                          gpuscope_version=_str(origin_data.get("gpuscope_version")))
    gpus = _gpus(diagnosis)
    stack, environment, nodes = _stack(diagnosis)
    runs: list[BenchRun] = []
    for number, raw_run in enumerate(_list(doc.get("bench_runs")), start=1):
        run = run_from_json(raw_run)
        if run is None:
            problems.append(f"benchmark run {number} could not be read")
        else:
            runs.append(run)
    sections: list[BenchSection] = []
    for run in runs:
        try:
            sections.append(_bench_section(run, gpus))
        except (ValueError, TypeError, KeyError, OSError) as exc:  # a knowledge table problem
            problems.append(f"benchmark run of {format_unix(run.started_unix_s)}: {exc}")
    telemetry_raw = doc.get("telemetry_summary")
    telemetry = telemetry_from_json(telemetry_raw) if telemetry_raw is not None else None
    if telemetry_raw is not None and telemetry is None:
        problems.append("the telemetry summary could not be read")
    redacted = doc.get("redacted")
    return ShareReport(
        generated_unix_s=_float(doc.get("generated_unix_s")),
        gpuscope_version=_str(doc.get("gpuscope_version")),
        origin=origin, redacted=redacted is True,
        platform=_platform(diagnosis, _dict(doc.get("host"))),
        gpus=gpus, layers=_layers(doc.get("layers")), stack=stack, environment=environment,
        device_nodes=nodes, frameworks=_frameworks(diagnosis, _list(doc.get("framework_verdicts"))),
        findings=_findings(diagnosis),
        bench=tuple(sorted(sections, key=lambda s: -s.started_unix_s)),
        bench_runs=tuple(runs), telemetry=telemetry, document=doc,
        problems=tuple(problems))


def load_report_json(text: str | bytes) -> LoadedReport:
    """Someone's `gpuscope report --format json`, for Compare. Never raises: garbage, another
    JSON document or a damaged file gives a LoadedReport with `error` saying why."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return LoadedReport(None, "not a gpuscope report: the file is not UTF-8 text")
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return LoadedReport(None, f"not a gpuscope report: not valid JSON ({exc})"
                            if isinstance(exc, json.JSONDecodeError)
                            else "not a gpuscope report: nested too deeply")
    try:
        return LoadedReport(report_from_document(raw))
    except ReportError as exc:
        return LoadedReport(None, str(exc))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # No reader bug may take the Compare page down; say what broke instead.
        return LoadedReport(None, f"the report could not be read: {type(exc).__name__}: {exc}")

