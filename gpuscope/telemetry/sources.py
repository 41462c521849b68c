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
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol

from gpuscope.evidence import System
from gpuscope.metrics import (
    GPU_METRICS,
    HOST_DEVICE,
    HOST_METRICS,
    GpuProcess,
    ProcessSnapshot,
    Reading,
)
from gpuscope.model import Gpu, Inventory, OriginKind, Vendor
from gpuscope.probes.amdgpu_telemetry import AmdgpuSysfsReader
from gpuscope.probes.amdsmi_telemetry import AmdsmiSession
from gpuscope.probes.host_telemetry import HostReader
from gpuscope.probes.metric_reader import MetricReader
from gpuscope.probes.nvml_telemetry import NvmlSession
from gpuscope.probes.windows_telemetry import WindowsCounterSession

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


# ----------------------------------------------------------------------------- a device


class ReaderSource(BaseSource):
    """One device read through its readers, each metric from the first reader that gives it;
    a reader's failure this tick falls back to the next reader that supports the metric."""

    def __init__(self, device: str, label: str, metrics: Sequence[str],
                 readers: Sequence[MetricReader], missing: Mapping[str, str] | None = None,
                 *, isolated: bool = True) -> None:
        self.device = device
        self.label = label
        self.isolated = isolated
        self._metrics = tuple(dict.fromkeys(metrics))
        self._readers: tuple[MetricReader, ...] = tuple(readers)
        self._missing = dict(missing or {})  # reader name -> why it is not there
        self._generation = -1
        self._plan: list[tuple[MetricReader, tuple[str, ...]]] = []
        self._chains: dict[str, tuple[MetricReader, ...]] = {}
        self._absent: dict[str, Reading] = {}
        self._source_names: dict[tuple[str, str], str] = {}
        self._last: dict[str, Reading] = {}
        self._replan()

    def metrics(self) -> tuple[str, ...]:
        return self._metrics

    @property
    def readers(self) -> tuple[MetricReader, ...]:
        return self._readers

    def _replan(self) -> None:
        self._generation = sum(int(r.generation) for r in self._readers)
        chains: dict[str, tuple[MetricReader, ...]] = {}
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

    def _source_name(self, reader: MetricReader, source: str) -> str:
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
    # Windows: the GPU performance counters, tied to a GPU by its adapter LUID; read through
    # `system`, so a replayed Windows snapshot gives its recorded counters.
    counters: WindowsCounterSession | None = None
    if any(gpu.luid for gpu in inventory.gpus):
        counters = WindowsCounterSession(system)
        sessions.append(counters)
    on_linux_amd = any(g.vendor is Vendor.AMD and not g.luid for g in inventory.gpus)
    if live and on_linux_amd:
        amdsmi = AmdsmiSession(amdsmi_module)
        sessions.append(amdsmi)
        if amdsmi.error:
            notes.append(f"amdsmi: {amdsmi.error}; AMD GPUs are read from sysfs")

    def _nvml_readers(gpu: Gpu, missing: dict[str, str]) -> list[MetricReader]:
        if nvml is not None and nvml.ok:
            nvml_reader = nvml.reader(gpu.pci_bus, gpu.smi_index)
            if nvml_reader is not None:
                return [nvml_reader]
            missing["nvml"] = "NVML does not list this GPU"
        else:
            missing["nvml"] = (nvml.error or "not opened") if nvml else not_live
        return []

    def make(gpu: Gpu) -> TelemetrySource:
        device, label = gpu_device_id(gpu), gpu_label(gpu)
        readers: list[MetricReader] = []
        missing: dict[str, str] = {}
        if gpu.luid and counters is not None:
            # Windows: no amdsmi or sysfs there; NVML (above) stays first for NVIDIA.
            if gpu.vendor is Vendor.NVIDIA:
                readers.extend(_nvml_readers(gpu, missing))
            readers.append(counters.reader(gpu.luid, gpu.vendor, gpu.vram_total_bytes,
                                           gpu.field_sources.get("vram_total_bytes")))
            return ReaderSource(device, label, GPU_METRIC_IDS, readers, missing)
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
            readers.extend(_nvml_readers(gpu, missing))
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
