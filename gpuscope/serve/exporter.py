"""The Prometheus collector of `gpuscope serve`: the sampler's latest readings, the machine's
versions and the doctor's findings as the families of `gpuscope.serve.families`.

A scrape never touches the sampler: `LatestReadings` subscribes to the sampler and, on each
tick (on the sampler thread), swaps in a copy of the latest readings under a lock, a few
microseconds of the sampler's time; a scrape takes that copy and builds its families from it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from gpuscope import __version__
from gpuscope.metrics import (
    CATALOGUE,
    HOST_DEVICE,
    Reading,
    ThrottleReason,
    split_series_name,
)
from gpuscope.metrics import Metric as CatalogueMetric
from gpuscope.model import Finding, Gpu, Inventory, Stack
from gpuscope.serve import families as F
from gpuscope.telemetry.sampler import DeviceStatus, Sampler, TickEvent
from gpuscope.telemetry.sources import gpu_device_id

_EMPTY: Mapping[str, Reading] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class TickSnapshot:
    """What one tick left: every series' latest Reading, which devices answered, and the
    sampler's own numbers."""

    time_s: float
    readings: Mapping[str, Reading]
    device_up: Mapping[str, bool]
    tick_count: int
    tick_duration_s: float


class LatestReadings:
    """The sampler's latest readings as of its last tick, safe to read from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot: TickSnapshot | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.update_cost_s = 0.0  # what the last update cost the sampler thread

    def attach(self, sampler: Sampler) -> None:
        """Follow `sampler`'s ticks from now on (and take what it has already)."""
        self.detach()
        self._take(sampler, time.time())

        def on_tick(event: TickEvent) -> None:
            self._take(sampler, event.time_s)
        self._unsubscribe = sampler.subscribe(on_tick)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _take(self, sampler: Sampler, time_s: float) -> None:
        started = time.perf_counter()
        # The sampler replaces values in `latest` (never adds or removes a key after it
        # starts) while it holds no lock here, so the copy is made on its own thread.
        snapshot = TickSnapshot(
            time_s, dict(sampler.latest),
            {device: state.status is DeviceStatus.OK
             for device, state in sampler.device_state.items()},
            sampler.tick_count, sampler.last_tick_duration_s)
        with self._lock:
            self._snapshot = snapshot
        self.update_cost_s = time.perf_counter() - started

    def current(self) -> TickSnapshot | None:
        with self._lock:
            return self._snapshot


@dataclass(frozen=True, slots=True)
class DoctorState:
    """The doctor's last verdict, as the collector shows it."""

    findings: tuple[Finding, ...]
    finished_s: float
    inventory: Inventory | None = None  # the inventory the doctor judged (fresher versions)


class _GpuLabels:
    """The gpu, pci_bus and name labels of each sampled device."""

    def __init__(self, gpus: tuple[Gpu, ...]) -> None:
        self.by_device: dict[str, tuple[str, str, str]] = {
            gpu_device_id(gpu): (str(gpu.index), gpu.pci_bus or "", gpu.name or "")
            for gpu in gpus}


class GpuscopeCollector(Collector):
    """A prometheus_client custom collector over `LatestReadings` and the doctor's state.
    Every call of `collect` builds its families afresh from the newest copies; it never
    waits on the sampler or the doctor."""

    def __init__(self, inventory: Inventory, readings: LatestReadings,
                 doctor: Callable[[], DoctorState | None] = lambda: None) -> None:
        self._inventory = inventory
        self._labels = _GpuLabels(inventory.gpus)
        self._readings = readings
        self._doctor = doctor

    def describe(self) -> list[Metric]:
        return []  # registered without a trial collect; names are checked by the tests

    def collect(self) -> Iterator[Metric]:
        snapshot = self._readings.current()
        readings = snapshot.readings if snapshot is not None else _EMPTY
        doctor = self._doctor()
        inventory = doctor.inventory if doctor is not None and doctor.inventory else (
            self._inventory)
        yield from self._telemetry(readings)
        yield self._availability(readings)
        yield self._gpu_up(snapshot)
        yield from self._info(inventory)
        yield from self._findings(doctor)
        if snapshot is not None:
            yield _gauge(F.TICK_DURATION, snapshot.tick_duration_s)
            ticks = CounterMetricFamily(F.TICKS.name, F.TICKS.help)
            ticks.add_metric([], float(snapshot.tick_count))
            yield ticks

    # ------------------------------------------------------------------ telemetry

    def _telemetry(self, readings: Mapping[str, Reading]) -> Iterator[Metric]:
        built: dict[str, GaugeMetricFamily] = {}

        def family(spec: F.Family) -> GaugeMetricFamily:
            found = built.get(spec.name)
            if found is None:
                found = built[spec.name] = _family(spec)
            return found

        for series, reading in readings.items():
            value = reading.value
            if value is None or math.isnan(value):
                continue
            device, metric_id = split_series_name(series)
            if device == HOST_DEVICE:
                core = F.cpu_core_of(metric_id)
                if core is not None:
                    family(F.HOST_CPU_CORE).add_metric([str(core)], value * 0.01)
                    continue
            try:
                metric = CatalogueMetric(metric_id)
            except ValueError:
                continue
            if device == HOST_DEVICE:
                row = F.METRIC_FAMILIES.get(metric)
                if row is not None and CATALOGUE[metric].host:
                    family(row.family).add_metric([], value * row.scale)
                continue
            gpu = self._labels.by_device.get(device)
            if gpu is None:
                continue
            if metric is CatalogueMetric.THROTTLE_REASONS:
                bits = int(value) if value >= 0 else 0
                throttle = family(F.GPU_THROTTLE_REASON)
                for reason in ThrottleReason:
                    throttle.add_metric([*gpu, F.THROTTLE_LABELS[reason]],
                                        1.0 if bits & reason.value else 0.0)
                continue
            row = F.METRIC_FAMILIES.get(metric)
            if row is None or CATALOGUE[metric].host:
                continue
            extra = [row.extra_label[1]] if row.extra_label is not None else []
            family(row.family).add_metric([*gpu, *extra], value * row.scale)
        order = {spec.name: position for position, spec in enumerate(F.ALL_FAMILIES)}
        yield from sorted(built.values(), key=lambda f: order.get(f.name, len(order)))

    def _availability(self, readings: Mapping[str, Reading]) -> GaugeMetricFamily:
        available = _family(F.METRIC_AVAILABLE)
        for series, reading in readings.items():
            device, metric_id = split_series_name(series)
            if F.cpu_core_of(metric_id) is not None:
                continue  # one per core would crowd the table; the total stands for them
            if device == HOST_DEVICE:
                gpu = F.HOST_GPU_LABEL
            else:
                labels = self._labels.by_device.get(device)
                if labels is None:
                    continue
                gpu = labels[0]
            has_value = reading.value is not None and not math.isnan(reading.value)
            reason = "" if has_value else (reading.missing_reason or "no reason given")
            available.add_metric([gpu, metric_id, reason], 1.0 if has_value else 0.0)
        return available

    def _gpu_up(self, snapshot: TickSnapshot | None) -> GaugeMetricFamily:
        up = _family(F.GPU_UP)
        if snapshot is not None:
            for device, labels in self._labels.by_device.items():
                if device in snapshot.device_up:
                    up.add_metric(list(labels), 1.0 if snapshot.device_up[device] else 0.0)
        return up

    # ------------------------------------------------------------------ info and findings

    def _info(self, inventory: Inventory) -> Iterator[GaugeMetricFamily]:
        gpus = _family(F.GPU_INFO)
        for gpu in inventory.gpus:
            gpus.add_metric([str(gpu.index), gpu.pci_bus or "", gpu.name or "",
                             gpu.vendor.value if gpu.vendor is not None else "",
                             gpu.architecture or "", gpu.gfx_target or "",
                             gpu.compute_capability or ""], 1.0)
        yield gpus
        stack, kernel = inventory.stack, inventory.host.kernel or ""
        drivers = _family(F.DRIVER_INFO)
        for driver, version in _drivers(stack, inventory.gpus):
            drivers.add_metric([driver, version, kernel], 1.0)
        yield drivers
        rocm = _family(F.ROCM_INFO)
        if stack.rocm_version:
            rocm.add_metric([stack.rocm_version, stack.hip_runtime_version or ""], 1.0)
        yield rocm
        cuda = _family(F.CUDA_INFO)
        toolkit = stack.extras.get("cuda_toolkit_version")
        toolkit_text = str(toolkit) if toolkit not in (None, "") else ""
        if stack.cuda_driver_version or toolkit_text:
            cuda.add_metric([stack.cuda_driver_version or "", toolkit_text], 1.0)
        yield cuda
        yield _gauge(F.BUILD_INFO, 1.0, [__version__])

    def _findings(self, doctor: DoctorState | None) -> Iterator[GaugeMetricFamily]:
        findings = _family(F.FINDING)
        if doctor is not None:
            seen: set[tuple[str, str, str]] = set()
            for finding in doctor.findings:
                key = (finding.id, finding.severity.value,
                       "" if finding.gpu is None else str(finding.gpu))
                if key not in seen:  # one series per (id, severity, gpu)
                    seen.add(key)
                    findings.add_metric(list(key), 1.0)
        yield findings
        if doctor is not None:
            yield _gauge(F.DOCTOR_LAST_RUN, doctor.finished_s)


def _drivers(stack: Stack, gpus: tuple[Gpu, ...]) -> list[tuple[str, str]]:
    """(driver, version) of each GPU kernel driver in use: amdgpu (its DKMS version, "" when
    it is the kernel's own) and nvidia."""
    in_use = {gpu.kernel_driver for gpu in gpus if gpu.kernel_driver}
    found: list[tuple[str, str]] = []
    if stack.amdgpu_loaded or stack.amdgpu_driver_version or "amdgpu" in in_use:
        found.append(("amdgpu", stack.amdgpu_driver_version or ""))
    if stack.nvidia_driver_version or "nvidia" in in_use:
        found.append(("nvidia", stack.nvidia_driver_version or ""))
    return found


def _family(spec: F.Family) -> GaugeMetricFamily:
    return GaugeMetricFamily(spec.name, spec.help, labels=list(spec.labels), unit=spec.unit)


def _gauge(spec: F.Family, value: float, labels: list[str] | None = None) -> GaugeMetricFamily:
    family = _family(spec)
    family.add_metric(labels or [], value)
    return family
