"""Where each live metric comes from: one source per GPU and one for the host.

A GPU's source asks its readers in order of preference, per metric: for an AMD GPU amdsmi
first, then amdgpu's sysfs/hwmon files for every metric amdsmi does not give (or fails to give
this tick); for an NVIDIA GPU, NVML; for the host, psutil. Every reading carries its source
("amdsmi:amdsmi_get_temp_metric(EDGE, CURRENT)", "sysfs:/sys/class/drm/card1/device/...") or
the reason it is missing, and a metric no reader gives is reported missing with every reader's
reason, never as 0.

Capabilities are found once, when the sources are built (trial reads, bounded in time); the
sampler then reads only what is supported, through paths and calls prepared up front.
"""

from __future__ import annotations

import logging
import posixpath
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

from gpuscope.evidence import System
from gpuscope.metrics import (
    GPU_METRICS,
    HOST_DEVICE,
    HOST_METRICS,
    GpuProcess,
    Metric,
    ProcessSnapshot,
    Raw,
    Reading,
)
from gpuscope.model import Gpu, Inventory, OriginKind, Vendor, pcie_generation
from gpuscope.probes.amdgpu_sysfs import (
    DRM_CLASS,
    current_dpm_mhz,
    hwmon_dirs,
    parse_int,
    parse_link_speed,
    read_pcie_link,
)
from gpuscope.probes.amdsmi_telemetry import AmdsmiSession
from gpuscope.probes.host_telemetry import HostReader
from gpuscope.probes.nvml_telemetry import NvmlSession

log = logging.getLogger(__name__)

DEFAULT_DISCOVERY_TIMEOUT_S = 10.0
GPU_METRIC_IDS: tuple[str, ...] = tuple(m.value for m in GPU_METRICS)
HOST_METRIC_IDS: tuple[str, ...] = tuple(m.value for m in HOST_METRICS)


class DeviceLostError(Exception):
    """Raised by a source's `read` when its device is gone ("GPU fell off the bus")."""


class TelemetrySource(Protocol):
    """One device's readings per tick. The sampler calls `read` on a worker thread of its own
    when `isolated` (GPUs), so a source that hangs stalls nothing else."""

    device: str  # a GPU's PCI bus address, or "host"
    label: str
    isolated: bool

    def metrics(self) -> tuple[str, ...]: ...

    def read(self) -> Mapping[str, Reading]: ...

    def background(self, now: float) -> None: ...

    def processes(self) -> ProcessSnapshot | None: ...

    def close(self) -> None: ...


class BaseSource:
    """Defaults for a source: isolated, no slow work, no process list."""

    device: str = ""
    label: str = ""
    isolated: bool = True

    def metrics(self) -> tuple[str, ...]:
        raise NotImplementedError

    def read(self) -> Mapping[str, Reading]:
        raise NotImplementedError

    def background(self, now: float) -> None:
        """Slow work, off the fast path (the sampler calls it after a tick's readings)."""

    def processes(self) -> ProcessSnapshot | None:
        return None

    def close(self) -> None:
        """Nothing to release."""


class MetricReader(Protocol):
    """A vendor library's or the kernel's view of one device (the probes' readers)."""

    name: str
    supported: dict[str, str]
    unsupported: dict[str, str]
    lost: str | None
    generation: int

    def read(self, metrics: Collection[str]) -> dict[str, Raw]: ...

    def close(self) -> None: ...


# ----------------------------------------------------------------------------- amdgpu sysfs


@dataclass(frozen=True, slots=True)
class _SysfsEntry:
    metric: str
    path: str  # read here (the resolved path: no symlink walk per tick)
    source: str  # shown: the /sys/class/drm/cardN/device/... path and its unit
    parse: Callable[[str], float | None]


def _int_scaled(scale: float) -> Callable[[str], float | None]:
    def parse(text: str) -> float | None:
        value = parse_int(text)
        return value * scale if value is not None else None
    return parse


def _dpm_current(text: str) -> float | None:
    return current_dpm_mhz(text)


def _link_generation(text: str) -> float | None:
    generation = pcie_generation(parse_link_speed(text))
    return float(generation) if generation is not None else None


def _link_width(text: str) -> float | None:
    value = parse_int(text)
    return float(value) if value is not None and value > 0 else None


_HWMON_TEMP_LABELS = {"edge": Metric.TEMP_EDGE_C, "junction": Metric.TEMP_JUNCTION_C,
                      "hotspot": Metric.TEMP_JUNCTION_C, "mem": Metric.TEMP_MEMORY_C,
                      "memory": Metric.TEMP_MEMORY_C, "vram": Metric.TEMP_MEMORY_C}
_GONE_ERRORS = frozenset({"ENOENT", "ENODEV", "EIO", "ENXIO"})
REASON_SYSFS_GONE = "GPU fell off the bus (its sysfs files are gone: {error})"


class AmdgpuSysfsReader:
    """amdgpu's sysfs and hwmon files of one card, read through `System`. Every path is found
    once (hwmon directory, temperature labels, the PCIe link behind AMD's on-board switch) and
    checked by a trial read; a tick reads only the files that answered."""

    name = "sysfs"

    def __init__(self, system: System, card: str) -> None:
        self._system = system
        self.card = card
        self.lost: str | None = None
        self.generation = 1
        self.supported: dict[str, str] = {}
        self.unsupported: dict[str, str] = {}
        self._entries: dict[str, _SysfsEntry] = {}
        self._static: dict[str, Raw] = {}
        self._discover()

    def _discover(self) -> None:
        system = self._system
        base = f"{DRM_CLASS}/{self.card}/device"
        real = system.realpath(base)
        candidates: list[tuple[str, str, str, Callable[[str], float | None], str]] = [
            # (metric, file relative to the device, unit note, parser, "static" or "")
            (Metric.GPU_UTIL_PERCENT, "gpu_busy_percent", "%", _int_scaled(1.0), ""),
            (Metric.VRAM_USED_BYTES, "mem_info_vram_used", "bytes", _int_scaled(1.0), ""),
            (Metric.VRAM_TOTAL_BYTES, "mem_info_vram_total", "bytes", _int_scaled(1.0), "static"),
            (Metric.GTT_USED_BYTES, "mem_info_gtt_used", "bytes", _int_scaled(1.0), ""),
        ]
        hwmons = hwmon_dirs(system, real)
        hwmon = hwmons[0][len(real) + 1:] if hwmons else None
        if hwmon is not None:
            temps: dict[str, str] = {}
            for index in (1, 2, 3):
                label = (system.read_text(f"{real}/{hwmon}/temp{index}_label").stripped()
                         or "").lower()
                sensor = _HWMON_TEMP_LABELS.get(label) or (
                    Metric.TEMP_EDGE_C if index == 1 else None)
                if sensor and sensor not in temps:
                    temps[sensor] = f"{hwmon}/temp{index}_input"
            candidates += [(metric, path, "millidegrees C", _int_scaled(1e-3), "")
                           for metric, path in temps.items()]
            candidates += [
                # power1_input (instantaneous) where the kernel has it, else the average.
                (Metric.POWER_W, f"{hwmon}/power1_input", "µW", _int_scaled(1e-6), ""),
                (Metric.POWER_W, f"{hwmon}/power1_average", "µW", _int_scaled(1e-6), ""),
                (Metric.POWER_CAP_W, f"{hwmon}/power1_cap", "µW", _int_scaled(1e-6), ""),
                (Metric.SCLK_MHZ, f"{hwmon}/freq1_input", "Hz", _int_scaled(1e-6), ""),
                (Metric.MCLK_MHZ, f"{hwmon}/freq2_input", "Hz", _int_scaled(1e-6), ""),
                (Metric.FAN_RPM, f"{hwmon}/fan1_input", "RPM", _int_scaled(1.0), ""),
                (Metric.FAN_PERCENT, f"{hwmon}/pwm1", "PWM 0-255", _int_scaled(100.0 / 255.0), ""),
            ]
        candidates += [
            (Metric.SCLK_MHZ, "pp_dpm_sclk", "level marked *", _dpm_current, ""),
            (Metric.MCLK_MHZ, "pp_dpm_mclk", "level marked *", _dpm_current, ""),
        ]
        link_dir = self._link_dir(real)
        if link_dir is not None:
            candidates += [
                (Metric.PCIE_GEN, posixpath.join(link_dir, "current_link_speed"), "GT/s",
                 _link_generation, ""),
                (Metric.PCIE_WIDTH, posixpath.join(link_dir, "current_link_width"), "lanes",
                 _link_width, ""),
            ]

        tried: dict[str, list[str]] = {}
        for metric, relative, unit, parse, static in candidates:
            if metric in self.supported:
                continue
            path = relative if relative.startswith("/") else f"{real}/{relative}"
            shown = relative if relative.startswith("/") else f"{base}/{relative}"
            read = system.read_text(path)
            text = read.stripped()
            value = parse(text) if text is not None else None
            if value is None:
                why = read.error or ("empty" if not text else f"not a value: {text[:40]!r}")
                tried.setdefault(metric, []).append(f"{shown}: {why}")
                continue
            source = f"{shown} ({unit})"
            self.supported[metric] = source
            if static:
                self._static[metric] = (value, source)
            else:
                self._entries[metric] = _SysfsEntry(metric, path, source, parse)
        no_hwmon = f"{base}/hwmon has no hwmon* directory"
        for metric in GPU_METRIC_IDS:
            if metric in self.supported:
                continue
            reasons = tried.get(metric)
            if reasons:
                self.unsupported[metric] = "; ".join(reasons)
            elif metric.startswith(("temp_", "power", "fan_")) and hwmon is None:
                self.unsupported[metric] = no_hwmon
            elif metric in (Metric.PCIE_RX_BYTES_S, Metric.PCIE_TX_BYTES_S,
                            Metric.PCIE_BANDWIDTH_BYTES_S):
                # Reading pcie_bw makes the driver count for a whole second.
                self.unsupported[metric] = ("amdgpu's pcie_bw file blocks for a second per "
                                            "read, so it is not sampled")
            elif metric == Metric.THROTTLE_REASONS:
                self.unsupported[metric] = ("amdgpu shows it only in its binary gpu_metrics "
                                            "table (amdsmi reads it)")
            elif metric.startswith("pcie_"):
                self.unsupported[metric] = f"{base}: no PCIe link attributes (no external link)"
            elif metric == Metric.TEMP_JUNCTION_C or metric == Metric.TEMP_MEMORY_C:
                self.unsupported[metric] = "amdgpu reports this sensor only on SOC15 dGPUs"
            else:
                self.unsupported[metric] = "amdgpu has no sysfs file for it"
        for metric, reason in self.unsupported.items():
            log.debug("sysfs %s: %s not available: %s", self.card, metric, reason)

    def _link_dir(self, real: str) -> str | None:
        link, source = read_pcie_link(self._system, real)
        if link is None:
            return None
        return source.split("/current_link_speed", 1)[0]

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        read_text = self._system.read_text
        out: dict[str, Raw] = {}
        attempted = failed = 0
        gone: str | None = None
        for metric in metrics:
            static = self._static.get(metric)
            if static is not None:
                out[metric] = static
                continue
            entry = self._entries.get(metric)
            if entry is None:
                continue
            attempted += 1
            result = read_text(entry.path)
            text = result.text
            value = entry.parse(text) if text is not None and result.error is None else None
            if value is None:
                failed += 1
                if result.error in _GONE_ERRORS:
                    gone = result.error
                out[metric] = (None, f"{entry.source}: {result.error or 'not a value'}")
            else:
                out[metric] = (value, entry.source)
        if attempted and failed == attempted and gone is not None:
            self.lost = REASON_SYSFS_GONE.format(error=gone)
        elif failed < attempted:
            self.lost = None
        return out

    def close(self) -> None:
        """Nothing is held open."""


# ----------------------------------------------------------------------------- a device


class ReaderSource(BaseSource):
    """One device read through its readers, each metric from the first reader that gives it;
    a reader's failure this tick falls back to the next reader that supports the metric."""

    def __init__(self, device: str, label: str, metrics: Sequence[str],
                 readers: Sequence[Any], missing: Mapping[str, str] | None = None,
                 *, isolated: bool = True) -> None:
        self.device = device
        self.label = label
        self.isolated = isolated
        self._metrics = tuple(dict.fromkeys(metrics))
        self._readers: tuple[Any, ...] = tuple(readers)
        self._missing = dict(missing or {})  # reader name -> why it is not there
        self._generation = -1
        self._plan: list[tuple[Any, tuple[str, ...]]] = []
        self._chains: dict[str, tuple[Any, ...]] = {}
        self._absent: dict[str, Reading] = {}
        self._source_names: dict[tuple[str, str], str] = {}
        self._last: dict[str, Reading] = {}
        self._replan()

    def metrics(self) -> tuple[str, ...]:
        return self._metrics

    @property
    def readers(self) -> tuple[Any, ...]:
        return self._readers

    def _replan(self) -> None:
        self._generation = sum(int(r.generation) for r in self._readers)
        chains: dict[str, tuple[Any, ...]] = {}
        groups: dict[int, list[str]] = {}
        absent: dict[str, Reading] = {}
        for metric in self._metrics:
            chain = tuple(r for r in self._readers if metric in r.supported)
            if chain:
                chains[metric] = chain
                groups.setdefault(id(chain[0]), []).append(metric)
            else:
                absent[metric] = Reading(None, None, self._why_missing(metric))
        by_id = {id(r): r for r in self._readers}
        self._plan = [(by_id[key], tuple(metrics)) for key, metrics in groups.items()]
        self._chains = chains
        self._absent = absent

    def _why_missing(self, metric: str) -> str:
        # Readers that could not be opened come first: they were the first choice.
        reasons = [f"{name}: {why}" for name, why in self._missing.items()]
        reasons += [f"{r.name}: {r.unsupported[metric]}" for r in self._readers
                    if metric in r.unsupported]
        return "; ".join(reasons) or "no reader gives this metric"

    def describe(self) -> dict[str, str]:
        """metric -> "reader:source" of its first choice, or "missing: why"."""
        out: dict[str, str] = {}
        for metric in self._metrics:
            chain = self._chains.get(metric)
            if chain:
                out[metric] = f"{chain[0].name}:{chain[0].supported[metric]}"
            else:
                out[metric] = f"missing: {self._absent[metric].missing_reason}"
        return out

    def _source_name(self, reader: Any, source: str) -> str:
        key = (reader.name, source)
        name = self._source_names.get(key)
        if name is None:
            name = self._source_names[key] = f"{reader.name}:{source}"
        return name

    def read(self) -> Mapping[str, Reading]:
        if sum(int(r.generation) for r in self._readers) != self._generation:
            self._replan()
        out: dict[str, Reading] = dict(self._absent)
        failed: dict[str, str] = {}
        last = self._last
        for reader, metrics in self._plan:
            raws = reader.read(metrics)
            for metric in metrics:
                raw = raws.get(metric)
                if raw is None:
                    failed[metric] = f"{reader.name}: no answer"
                    continue
                value, text = raw
                if value is None:
                    failed[metric] = f"{reader.name}: {text}"
                    continue
                source = self._source_name(reader, text)
                previous = last.get(metric)
                if previous is not None and previous.value == value and previous.source == source:
                    out[metric] = previous
                else:
                    out[metric] = last[metric] = Reading(value, source)
        for metric, reason in failed.items():
            reading = self._fallback(metric, reason)
            out[metric] = reading
            last.pop(metric, None)
        for reader in self._readers:
            if reader.lost:
                raise DeviceLostError(reader.lost)
        return out

    def _fallback(self, metric: str, reason: str) -> Reading:
        reasons = [reason]
        for reader in self._chains.get(metric, ())[1:]:
            value, text = reader.read((metric,)).get(metric, (None, "no answer"))
            if value is not None:
                return Reading(value, self._source_name(reader, text))
            reasons.append(f"{reader.name}: {text}")
        return Reading(None, None, "; ".join(reasons))

    def background(self, now: float) -> None:
        for reader in self._readers:
            work = getattr(reader, "background", None)
            if work is not None:
                work(now)

    def processes(self) -> ProcessSnapshot | None:
        """The processes on this GPU from the first reader that lists them; for a GPU that
        no reader can list, a snapshot saying why (None for the host)."""
        if not any(getattr(r, "processes", None) is not None for r in self._readers):
            if self.device == HOST_DEVICE:
                return None
            reasons = [f"{name}: {why}" for name, why in self._missing.items()]
            reasons += [f"{r.name} has no per-process memory" for r in self._readers]
            return ProcessSnapshot(time.time(), (), None,
                                   "; ".join(reasons) or "no reader lists processes")
        for reader in self._readers:
            lister = getattr(reader, "processes", None)
            if lister is None:
                continue
            answer = lister()
            now = time.time()
            if isinstance(answer, str):
                return ProcessSnapshot(now, (), None, f"{reader.name}: {answer}")
            entries, source = answer
            return ProcessSnapshot(now, tuple(
                GpuProcess(int(e["pid"]), e.get("name"), e.get("used_bytes"), str(e.get("kind")))
                for e in entries), f"{reader.name}:{source}")
        return None

    def close(self) -> None:
        for reader in self._readers:
            try:
                reader.close()
            except Exception as exc:  # closing must not stop the others from closing
                log.debug("closing %s of %s: %s", reader.name, self.device, exc)


def host_source(psutil_module: Any | None = None, label: str = "Host") -> ReaderSource:
    """The host's CPU, RAM and swap through psutil, read inline by the sampler (psutil reads
    /proc and does not hang)."""
    reader = HostReader(psutil_module)
    metrics = reader.metrics() if reader.error is None else HOST_METRIC_IDS
    return ReaderSource(HOST_DEVICE, label, metrics, [reader], isolated=False)


def missing_source(device: str, label: str, metrics: Sequence[str], reason: str,
                   *, isolated: bool = True) -> ReaderSource:
    """A device that no reader can read: every metric missing with `reason`."""
    return ReaderSource(device, label, metrics, [], {"telemetry": reason}, isolated=isolated)


# ----------------------------------------------------------------------------- the set


@dataclass
class SourceSet:
    """The sources of a machine and the library sessions behind them. `close()` closes the
    sources, then shuts the libraries down (once each)."""

    sources: tuple[TelemetrySource, ...]
    notes: tuple[str, ...] = ()
    sessions: tuple[Any, ...] = field(default=(), repr=False)
    _closed: bool = field(default=False, repr=False)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for source in self.sources:
            try:
                source.close()
            except Exception as exc:  # one source's failure must not leak the libraries
                log.debug("closing %s: %s", source.device, exc)
        for session in self.sessions:
            session.close()

    def __enter__(self) -> SourceSet:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def gpu_device_id(gpu: Gpu) -> str:
    """The series device of a GPU: its PCI bus address, stable across runs."""
    return gpu.pci_bus or f"gpu{gpu.index}"


def gpu_label(gpu: Gpu) -> str:
    return f"{gpu.name or 'GPU'} ({gpu.pci_bus or gpu.drm_card or f'GPU {gpu.index}'})"


def build_sources(
    system: System,
    inventory: Inventory,
    *,
    nvml_module: Any | None = None,
    amdsmi_module: Any | None = None,
    psutil_module: Any | None = None,
    use_libraries: bool | None = None,
    discovery_timeout_s: float = DEFAULT_DISCOVERY_TIMEOUT_S,
) -> SourceSet:
    """One source per GPU of `inventory` and one for the host. Vendor libraries are opened only
    on a live system (or when `use_libraries`), once each; sysfs is read through `system`, so a
    replayed snapshot gives its recorded values. Finding each GPU's metrics is bounded by
    `discovery_timeout_s`: a GPU that does not answer gets a source with every metric missing."""
    live = system.origin_kind is OriginKind.LIVE if use_libraries is None else use_libraries
    notes: list[str] = []
    sessions: list[Any] = []
    nvml: NvmlSession | None = None
    amdsmi: AmdsmiSession | None = None
    vendors = {gpu.vendor for gpu in inventory.gpus}
    not_live = "vendor libraries are not read for a replayed snapshot"
    if live and Vendor.NVIDIA in vendors:
        nvml = NvmlSession(nvml_module)
        sessions.append(nvml)
        if nvml.error:
            notes.append(f"NVML: {nvml.error}")
    if live and Vendor.AMD in vendors:
        amdsmi = AmdsmiSession(amdsmi_module)
        sessions.append(amdsmi)
        if amdsmi.error:
            notes.append(f"amdsmi: {amdsmi.error}; AMD GPUs are read from sysfs")

    def make(gpu: Gpu) -> TelemetrySource:
        device, label = gpu_device_id(gpu), gpu_label(gpu)
        readers: list[Any] = []
        missing: dict[str, str] = {}
        if gpu.vendor is Vendor.AMD:
            if amdsmi is not None and amdsmi.ok:
                reader = amdsmi.reader(gpu.pci_bus)
                if reader is not None:
                    readers.append(reader)
                else:
                    missing["amdsmi"] = "amdsmi does not list this GPU"
            else:
                missing["amdsmi"] = (amdsmi.error or "not opened") if amdsmi else not_live
        elif gpu.vendor is Vendor.NVIDIA:
            if nvml is not None and nvml.ok:
                nvml_reader = nvml.reader(gpu.pci_bus, gpu.smi_index)
                if nvml_reader is not None:
                    readers.append(nvml_reader)
                else:
                    missing["nvml"] = "NVML does not list this GPU"
            else:
                missing["nvml"] = (nvml.error or "not opened") if nvml else not_live
        if gpu.drm_card and gpu.kernel_driver == "amdgpu":
            readers.append(AmdgpuSysfsReader(system, gpu.drm_card))
        elif gpu.vendor is Vendor.AMD:
            missing["sysfs"] = (f"{gpu.drm_card or 'this GPU'} is bound to "
                                f"{gpu.kernel_driver or 'no driver'}, not amdgpu")
        if not readers and not missing:
            vendor = gpu.vendor.value if gpu.vendor else "unknown"
            missing["telemetry"] = f"gpuscope has no live reader for {vendor} GPUs yet"
        return ReaderSource(device, label, GPU_METRIC_IDS, readers, missing)

    built: dict[int, TelemetrySource] = {}
    lock = threading.Lock()

    def work(position: int, gpu: Gpu) -> None:
        try:
            source = make(gpu)
        except Exception as exc:  # a reader bug becomes this GPU's reason, not a crash
            log.exception("telemetry source of %s failed", gpu_device_id(gpu))
            source = missing_source(gpu_device_id(gpu), gpu_label(gpu), GPU_METRIC_IDS,
                                    f"could not set up: {type(exc).__name__}: {exc}")
        with lock:
            built[position] = source

    # Daemon threads: a GPU stuck inside a vendor library cannot be cancelled.
    threads = [threading.Thread(target=work, args=(i, gpu), daemon=True,
                                name=f"telemetry-discover-{gpu_device_id(gpu)}")
               for i, gpu in enumerate(inventory.gpus)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + discovery_timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    sources: list[TelemetrySource] = []
    with lock:
        for position, gpu in enumerate(inventory.gpus):
            source = built.get(position)
            if source is None:
                reason = f"no answer within {discovery_timeout_s:g} s while finding its metrics"
                notes.append(f"{gpu_device_id(gpu)}: {reason}")
                source = missing_source(gpu_device_id(gpu), gpu_label(gpu), GPU_METRIC_IDS,
                                        reason)
            sources.append(source)
    if live:
        sources.append(host_source(psutil_module, inventory.host.hostname or "Host"))
    else:
        sources.append(missing_source(HOST_DEVICE, inventory.host.hostname or "Host",
                                      HOST_METRIC_IDS,
                                      "a replayed snapshot holds no live host readings",
                                      isolated=False))
    return SourceSet(tuple(sources), tuple(notes), tuple(sessions))
