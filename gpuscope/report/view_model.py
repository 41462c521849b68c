"""The share report's view model: what every writer (Markdown, HTML, PNG) draws and what Compare
reads from someone's report. Made from a report document by `gpuscope.report.reading`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuscope.bench.results import BenchRun
from gpuscope.doctor.layers import LayerState
from gpuscope.i18n import N_, join, message
from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.specs import GpuSpec, gpu_spec
from gpuscope.metrics import Metric, shown_unit
from gpuscope.model import Gpu, GpuKind, OriginKind, PcieLink, Vendor, format_bytes
from gpuscope.report.device_index import IndexRow
from gpuscope.report.formatting import format_number, format_percent, format_unix, format_utc
from gpuscope.report.redact import Replacement

REPORT_SCHEMA = "gpuscope.report/1"
TELEMETRY_SCHEMA = "gpuscope.telemetry-summary/1"
SEVERITY_ORDER: tuple[str, ...] = ("error", "warning", "info", "ok")
# The words are English (N_): a writer shows them with `localise`.
SEVERITY_WORDS: Mapping[str, str] = {"error": N_("error"), "warning": N_("warning"),
                                     "info": N_("note"), "ok": N_("ok")}
SEVERITY_MARKS: Mapping[str, str] = {"error": "✗", "warning": "!", "info": "i", "ok": "✓"}
LAYER_WORDS: Mapping[str, str] = {
    LayerState.OK.value: N_("works"), LayerState.WARNING.value: N_("warning"),
    LayerState.BLOCKED.value: N_("blocked"), LayerState.UNKNOWN.value: N_("not checked"),
    LayerState.NOT_APPLICABLE.value: N_("does not apply"),
}
LAYER_MARKS: Mapping[str, str] = {state.value: state.mark for state in LayerState}
VERDICT_WORDS: Mapping[str, str] = {
    VerdictLevel.NORMAL.value: N_("normal"), VerdictLevel.LOW.value: N_("low"),
    VerdictLevel.HIGH.value: N_("above published"), VerdictLevel.UNKNOWN.value: N_("no reference"),
    "unsupported": N_("unsupported"), "failed": N_("failed"),
}
# Beside a result whose repeats spread too far to believe its median.
UNSTABLE_WORD = N_("unstable")


class ReportError(ValueError):
    """A text that is not a gpuscope report (the message says why)."""


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
        if self.kind == "live":
            return message("Live reading of this machine")
        if self.kind == "replay":
            return message("REPLAYED SNAPSHOT — not a live reading")
        if self.kind == "imported":
            return message("IMPORTED OUTPUTS — not probed by gpuscope")
        return message("ORIGIN UNKNOWN — not a live reading")

    def sentence(self, generated_unix_s: float | None = None) -> str:
        when = format_utc(self.captured_utc) if self.captured_utc else None
        if self.kind == "live":
            at = when or (format_unix(generated_unix_s) if generated_unix_s else None)
            return (message("Read from the machine by gpuscope at {when}.", when=at) if at
                    else message("Read from the machine by gpuscope."))
        if self.kind == "replay":
            source = self.source or message("(unnamed)")
            if not when:
                return message("Replay of the snapshot {source}, capture date not recorded: "
                               "values as they were then, not the machine's state now.",
                               source=source)
            if self.gpuscope_version:
                return message("Replay of the snapshot {source}, captured {when} by gpuscope "
                               "{version}: values as they were then, not the machine's state "
                               "now.", source=source, when=when, version=self.gpuscope_version)
            return message("Replay of the snapshot {source}, captured {when}: values as they "
                           "were then, not the machine's state now.", source=source, when=when)
        if self.kind == "imported":
            return message("Diagnosed from pasted tool outputs ({source}): gpuscope did not "
                           "probe this machine, and what the outputs do not show is unknown.",
                           source=self.source or message("pasted text"))
        return message("The report does not say where its data came from.")


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
            self.os) or message("unknown OS")
        text = message("{distro} ({os})", distro=self.distro, os=name) if self.distro else name
        if self.container and self.virtual_machine:
            return message("{os}, in a container and virtual machine", os=text)
        if self.container:
            return message("{os}, in a container", os=text)
        if self.virtual_machine:
            return message("{os}, in a virtual machine", os=text)
        return text

    @property
    def cpu_text(self) -> str | None:
        if not self.cpu_model:
            return None
        cores = []
        if self.cpu_physical_cores:
            cores.append(message("{count} cores", count=self.cpu_physical_cores))
        if self.cpu_logical_cores:
            cores.append(message("{count} threads", count=self.cpu_logical_cores))
        if not cores:
            return self.cpu_model
        return message("{cpu} ({cores})", cpu=self.cpu_model, cores=join(", ", cores))

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) of the Machine section, as every format shows it."""
        rows = [(N_("OS"), self.os_text)]
        if self.kernel:
            rows.append((N_("Kernel"), self.kernel))
        if self.cpu_text:
            rows.append(("CPU", join(", ", [self.cpu_text, self.architecture])
                         if self.architecture else self.cpu_text))
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
        return {"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel"}.get(
            self.vendor or "") or message("unknown")

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

    def facts(self) -> list[tuple[str, str]]:
        """(label, value) of the GPU's card, as every format shows it; unknown facts left out."""
        facts = [(N_("Vendor"), self.vendor_label), (N_("Target"), self.target),
                 ("VRAM", self.vram_text),
                 (N_("Compute units"), str(self.compute_units) if self.compute_units else None),
                 (N_("Driver"), " ".join(p for p in (self.kernel_driver, self.driver_version)
                                         if p)),
                 ("PCI", " ".join(p for p in (self.pci_id_text, self.pci_bus) if p)),
                 (N_("Board"), self.board_name),
                 (N_("Could be"), " / ".join(self.name_candidates) if self.name_candidates
                  else None)]
        return [(label, value) for label, value in facts if value]

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
            return join("; ", self.verdicts)
        if self.error:
            return message("could not inspect")
        if self.gpu_available is None:
            return message("not checked")
        return message("yes") if self.gpu_available else message("no")


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
    # The repeats spread too far to believe the median (gpuscope.bench.stability); `stability`
    # says how far and the likely reason.
    unstable: bool = False
    stability: str | None = None

    @property
    def level_word(self) -> str:
        return VERDICT_WORDS.get(self.level, self.level)

    @property
    def value_text(self) -> str:
        if self.value is None:
            return self.status
        return f"{format_number(self.value)} {shown_unit(self.unit)}"

    @property
    def peak_text(self) -> str:
        if self.peak_value is None:
            return "–"
        return f"{format_number(self.peak_value)} {shown_unit(self.unit)}"

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
    recording or the live ring buffers; or, `at_capture`, the single readings of a replayed
    snapshot (min = avg = max, no sparkline), taken at `started_unix_s` (None: not
    recorded)."""

    source: str  # "live sampler" or "recording r.sqlite"
    live: bool
    started_unix_s: float | None
    duration_s: float | None
    devices: tuple[DeviceTelemetry, ...]
    at_capture: bool = False


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
    # How each layer numbers each GPU (the document's "device_index").
    device_index: tuple[IndexRow, ...] = ()
    # (found, line) per LLM runtime: found or not with why, its backend and loaded models.
    llm_runtimes: tuple[tuple[bool, str], ...] = ()

    @property
    def title(self) -> str:
        if not self.gpus:
            return message("GPU report: no GPU found")
        names = list(dict.fromkeys(g.name for g in self.gpus))
        counted = [f"{sum(1 for g in self.gpus if g.name == n)}× {n}"
                   if sum(1 for g in self.gpus if g.name == n) > 1 else n for n in names]
        return message("GPU report: {gpus}", gpus=join(", ", counted))

    def layers_of(self, gpu: int) -> tuple[ReportLayer, ...]:
        return next((entry.rows for entry in self.layers if entry.gpu == gpu), ())

    def counts(self) -> tuple[int, int]:
        """(errors, warnings)."""
        return (sum(1 for f in self.findings if f.severity == "error"),
                sum(1 for f in self.findings if f.severity == "warning"))

    def verdict_line(self) -> str:
        """The report's headline. Without a GPU the title and the GPUs section already say
        "no GPU found": the headline gives the findings that may say why, if any."""
        errors, warnings = self.counts()
        if errors == 0 and warnings == 0:
            if not self.gpus:
                return message("The doctor has no GPU to judge.")
            return message("The doctor found nothing wrong.")
        error_text = (message("1 error") if errors == 1
                      else message("{count} errors", count=errors))
        warning_text = (message("1 warning") if warnings == 1
                        else message("{count} warnings", count=warnings))
        if errors and warnings:
            return message("The doctor found {errors} and {warnings}.", errors=error_text,
                           warnings=warning_text)
        return message("The doctor found {problems}.",
                       problems=error_text if errors else warning_text)


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



def _enum_value(cls: Any, value: str | None) -> Any:
    try:
        return cls(value) if value is not None else None
    except ValueError:
        return None
