"""Telemetry during a benchmark run: clocks, power, temperatures and throttle reasons of the GPU
under test (the host's CPU load and memory for a CPU run), summarised per benchmark.

`TelemetryCapture` subscribes to a running `Sampler` and keeps, per device, the ticks of the
metrics a benchmark result is read against. `summary(device, started, ended)` turns the ticks
inside one benchmark's time into a `BenchTelemetry`: min/median/max per metric with its source,
the metrics that could not be read and why, and the throttle reasons seen. So a shared number
shows whether the card throttled while it was measured.
"""

from __future__ import annotations

import collections
import math
import statistics
import threading
from collections.abc import Callable, Iterable, Mapping

from gpuscope.bench.results import BenchTelemetry, MetricSummary
from gpuscope.i18n import join, message
from gpuscope.metrics import (
    HOST_DEVICE,
    Metric,
    metric_label,
    split_series_name,
    stored_unit,
    throttle_reason_names,
)
from gpuscope.telemetry.sampler import Sampler, TickEvent

# What a GPU result is read against, in this order.
GPU_METRICS: tuple[Metric, ...] = (
    Metric.SCLK_MHZ, Metric.MCLK_MHZ, Metric.POWER_W, Metric.POWER_CAP_W, Metric.TEMP_EDGE_C,
    Metric.TEMP_JUNCTION_C, Metric.TEMP_MEMORY_C, Metric.GPU_UTIL_PERCENT,
    # The link under load: an idle link trains down, so the inventory's reading can be low.
    Metric.PCIE_GEN, Metric.PCIE_WIDTH,
)
# A CPU run: the host's load (a neighbour's load shows here) and memory.
HOST_METRICS: tuple[Metric, ...] = (Metric.HOST_CPU_PERCENT, Metric.HOST_RAM_USED_BYTES)
_THROTTLE = Metric.THROTTLE_REASONS.value
_WANTED = frozenset(m.value for m in (*GPU_METRICS, *HOST_METRICS, Metric.THROTTLE_REASONS))
# Enough ticks for a long full suite at the bench sampling rate; older ticks are dropped.
MAX_TICKS = 50_000
DEFAULT_RATE_HZ = 5.0
_NO_READING = message("no reading during this benchmark")


class TelemetryCapture:
    """The ticks of one sampler since `attach`, for the metrics benchmark results are read
    against. Thread-safe: the sampler thread adds ticks, any thread asks for summaries."""

    def __init__(self, max_ticks: int = MAX_TICKS) -> None:
        self._lock = threading.Lock()
        # device -> deque of (unix time, {metric: value}); NaN values are not kept.
        self._ticks: dict[str, collections.deque[tuple[float, dict[str, float]]]] = {}
        self._max_ticks = max_ticks
        self._sources: dict[tuple[str, str], str] = {}
        self._reasons: dict[tuple[str, str], str] = {}
        self._labels: dict[str, str] = {}
        self._first_tick_s: float | None = None
        self._last_tick_s: float | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.rate_hz: float | None = None

    # -- feeding

    def attach(self, sampler: Sampler) -> None:
        """Subscribe to `sampler` (it may be running already): the sources and missing reasons
        known so far are taken from its latest readings."""
        self.rate_hz = sampler.rate_hz
        with self._lock:
            for info in sampler.series:
                self._labels.setdefault(info.device, info.device)
            for name, reading in list(sampler.latest.items()):
                device, metric = split_series_name(name)
                if metric not in _WANTED:
                    continue
                if reading.source:
                    self._sources[(device, metric)] = reading.source
                if reading.value is None and reading.missing_reason:
                    self._reasons[(device, metric)] = reading.missing_reason
        self._unsubscribe = sampler.subscribe(self.on_tick)

    def set_labels(self, labels: Mapping[str, str]) -> None:
        with self._lock:
            self._labels.update(labels)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_tick(self, event: TickEvent) -> None:
        """A sampler tick (on the sampler thread)."""
        rows: dict[str, dict[str, float]] = {}
        for name, value in event.values.items():
            device, metric = split_series_name(name)
            if metric not in _WANTED:
                continue
            row = rows.setdefault(device, {})
            if value == value and math.isfinite(value):  # NaN: missing this tick
                row[metric] = float(value)
        with self._lock:
            for name, source in event.sources.items():
                device, metric = split_series_name(name)
                if metric in _WANTED and source:
                    self._sources[(device, metric)] = source
            for name, reason in event.reasons.items():
                device, metric = split_series_name(name)
                if metric in _WANTED:
                    if reason:
                        self._reasons[(device, metric)] = reason
                    else:
                        self._reasons.pop((device, metric), None)
            for device, row in rows.items():
                ticks = self._ticks.get(device)
                if ticks is None:
                    ticks = self._ticks[device] = collections.deque(maxlen=self._max_ticks)
                ticks.append((event.time_s, row))
            if self._first_tick_s is None:
                self._first_tick_s = event.time_s
            self._last_tick_s = event.time_s

    # -- reading

    @property
    def first_tick_s(self) -> float | None:
        """The unix time of the first tick since `attach`."""
        with self._lock:
            return self._first_tick_s

    @property
    def devices(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._ticks)

    def summary(self, device: str, started_unix_s: float | None, ended_unix_s: float | None,
                *, label: str | None = None) -> BenchTelemetry:
        """The telemetry of `device` ("host" or a GPU's PCI bus address) between the two
        times; a note says why it is thin or empty."""
        gpu = device != HOST_DEVICE
        metrics = GPU_METRICS if gpu else HOST_METRICS
        with self._lock:
            shown = label or self._labels.get(device, device)
            if started_unix_s is None or ended_unix_s is None:
                return BenchTelemetry(device, shown, 0, self.rate_hz,
                                      note=message("the benchmark's start or end time is "
                                                   "unknown"))
            ticks = [(t, row) for t, row in self._ticks.get(device, ())
                     if started_unix_s <= t <= ended_unix_s]
            first, last = self._first_tick_s, self._last_tick_s
            sources = {m: s for (d, m), s in self._sources.items() if d == device}
            reasons = {m: r for (d, m), r in self._reasons.items() if d == device}
        duration = max(0.0, ended_unix_s - started_unix_s)
        note = None
        if not ticks:
            if first is None or first > ended_unix_s:
                why = message("telemetry sampling had not started yet")
            elif last is not None and last < started_unix_s:
                why = message("telemetry sampling had stopped")
            elif self.rate_hz:
                why = message("the benchmark took {seconds} s; a sample every {period} s",
                              seconds=f"{duration:.2f}", period=f"{1 / self.rate_hz:.1f}")
            else:
                why = message("the benchmark took {seconds} s", seconds=f"{duration:.2f}")
            note = message("no telemetry sample during this benchmark: {why}", why=why)
        elif first is not None and first > started_unix_s + 1.0:
            note = message("telemetry sampling began {seconds} s into this benchmark",
                           seconds=f"{first - started_unix_s:.1f}")
        summaries: list[MetricSummary] = []
        missing: dict[str, str] = {}
        for metric in metrics:
            key = metric.value
            values = [row[key] for _t, row in ticks if key in row]
            if values:
                summaries.append(_summarise(key, values, sources.get(key)))
            elif ticks:
                missing[key] = reasons.get(key) or _NO_READING
        throttle_values = [row[_THROTTLE] for _t, row in ticks if _THROTTLE in row]
        seen: list[str] = []
        throttled = 0
        for value in throttle_values:
            words = _real_throttle(throttle_reason_names(value))
            if words:
                throttled += 1
            seen.extend(w for w in words if w not in seen)
        throttle_source = sources.get(_THROTTLE) if throttle_values else None
        if gpu and ticks and not throttle_values:
            missing[_THROTTLE] = reasons.get(_THROTTLE) or _NO_READING
        return BenchTelemetry(device=device, label=shown, samples=len(ticks),
                              rate_hz=self.rate_hz, metrics=tuple(summaries), missing=missing,
                              throttle_reasons=tuple(seen), throttled_samples=throttled,
                              throttle_source=throttle_source, note=note)


def _real_throttle(words: Iterable[str]) -> tuple[str, ...]:
    # NVIDIA counts "idle" as a clocks-event reason; it is no throttling of a busy GPU.
    return tuple(w for w in words if w != "idle")


def _summarise(metric: str, values: list[float], source: str | None) -> MetricSummary:
    return MetricSummary(metric=metric, label=metric_label(metric), unit=stored_unit(metric),
                         min=min(values), median=float(statistics.median(values)),
                         max=max(values), samples=len(values), source=source,
                         first=values[0], last=values[-1])


def telemetry_words(telemetry: BenchTelemetry | None) -> str:
    """One short line for a table cell, the throttling first when it was read: "throttled:
    power cap, max 71 °C, clock 1900-2500 MHz, max 305 W"; for the host "CPU 97%, RAM 5.1 GiB";
    or why there is none."""
    if telemetry is None:
        return message("no telemetry")
    if telemetry.samples == 0:
        return telemetry.note or message("no telemetry sample")
    parts: list[str] = []
    if telemetry.device == HOST_DEVICE:
        cpu = telemetry.metric(Metric.HOST_CPU_PERCENT.value)
        if cpu is not None:
            parts.append(message("CPU {percent}% (max {most}%)", percent=f"{cpu.median:.0f}",
                                 most=f"{cpu.max:.0f}") if cpu.max - cpu.median >= 5
                         else f"CPU {cpu.median:.0f}%")
        ram = telemetry.metric(Metric.HOST_RAM_USED_BYTES.value)
        if ram is not None:
            parts.append(f"RAM {ram.max / 2**30:.1f} GiB")
    else:
        if telemetry.throttle_reasons:
            parts.append(message("throttled: {reasons}",
                                 reasons=", ".join(telemetry.throttle_reasons)))
        elif telemetry.throttle_source is not None:
            parts.append(message("not throttled"))
        temps = [m for m in (telemetry.metric(k.value) for k in (
            Metric.TEMP_JUNCTION_C, Metric.TEMP_EDGE_C)) if m is not None]
        if temps:
            parts.append(message("max {temperature} °C", temperature=f"{temps[0].max:.0f}"))
        clock = telemetry.metric(Metric.SCLK_MHZ.value)
        if clock is not None:
            same = round(clock.min) == round(clock.max)
            span = f"{clock.max:.0f}" if same else f"{clock.min:.0f}-{clock.max:.0f}"
            parts.append(message("clock {span} MHz", span=span))
        power = telemetry.metric(Metric.POWER_W.value)
        if power is not None:
            parts.append(message("max {power} W", power=f"{power.max:.0f}"))
        if telemetry.throttle_source is None:
            parts.append(message("throttling not readable"))
    if not parts:
        return message("no metric could be read")
    return join(", ", parts)
