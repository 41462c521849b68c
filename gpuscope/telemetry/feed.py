"""The read side of telemetry: a `TelemetryFeed` (devices, their ring buffers, the latest
reading of each series with its source or why it is missing, and the time axis's "now"), as
the Telemetry page and the share report read it. Qt-free: its names are `LabelText`s, which
the UI translates where it shows them.

The live sampler and opened recordings are adapted to this protocol; `RingFeed` is the plain
implementation over ring buffers that tests, the benchmark and the demo use. The page only
reads from a feed, on its own timer; nothing here pushes to the page.

`synthetic_telemetry()` makes telemetry-like traces (workload phases, lagging temperatures,
spikes, gaps, a lost GPU) for the benchmark and `--demo-telemetry`; they are never shown
except under a label that says "demo data".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import (
    HOST_DEVICE,
    GpuProcess,
    Metric,
    ProcessSnapshot,
    Reading,
    ThrottleReason,
    cpu_core_metric,
    reason_in_force,
    series_name,
)
from gpuscope.telemetry.decimate import MinMaxPyramid
from gpuscope.telemetry.ring import RingView, SeriesRing
from gpuscope.telemetry.texts import LabelText, feed_text, verbatim

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class FeedDevice:
    """One device on the page: a GPU (by PCI bus address) or the host."""

    key: str  # "0000:03:00.0" or "host"
    name: LabelText  # "GPU 0: AMD Radeon RX 7900 XTX" / "Host", translated where shown
    gpu_index: int | None  # for theme.gpu_color; None for the host
    lost_reason: str | None = None  # set while a GPU does not answer

    @property
    def label(self) -> str:
        """The name in English (the share report's)."""
        return self.name.english()

    @property
    def short_label(self) -> str:
        """"GPU 0" from "GPU 0: AMD Radeon RX 7900 XTX", in English."""
        return short_label(self.label)


def short_label(label: str) -> str:
    """The part of a device's label before its colon ("GPU 0"); all of it without one."""
    head, sep, _ = label.partition(":")
    return head.strip() if sep and head.strip() else label


def gpu_label(index: int, name: str | LabelText) -> LabelText:
    """"GPU 0: AMD Radeon RX 7900 XTX" (the part before the colon is the short label)."""
    return feed_text("GPU {index}: {name}", index=index, name=name)


def host_label() -> LabelText:
    return feed_text("Host")


@runtime_checkable
class TelemetryFeed(Protocol):
    """The read side of live telemetry or of a recording."""

    def devices(self) -> Sequence[FeedDevice]: ...

    def ring(self, device_key: str) -> RingView | None: ...

    def latest(self, series: str) -> Reading | None:
        """The newest reading of a series: value and source, or why it is missing."""
        ...

    def now_s(self) -> float:
        """The time axis's "now": time.time() when live, a recording's end otherwise."""
        ...

    @property
    def live(self) -> bool: ...

    @property
    def pausable(self) -> bool:
        """Whether pausing means anything: new samples of this machine arrive (not a
        recording, nor a replay repeating what a snapshot captured)."""
        ...

    @property
    def label(self) -> LabelText:
        """"Live, 2 Hz" / "Recording r.sqlite, 2026-11-22 10:00–10:05"."""
        ...

    @property
    def report_label(self) -> str:
        """`label` in English, for the share report."""
        ...


@runtime_checkable
class ProcessFeed(Protocol):
    """A feed that knows the processes on each GPU (live: the sampler's slow process list)."""

    def processes(self, device_key: str) -> ProcessSnapshot | None:
        """The newest process list of a GPU, or a snapshot saying why there is none; None
        while none was taken yet."""
        ...


@runtime_checkable
class SummaryFeed(Protocol):
    """A feed whose rings no longer change (an opened recording) and that holds a min/max
    pyramid of each, so that wide time ranges are decimated from it."""

    def summary(self, device_key: str) -> MinMaxPyramid | None: ...


@runtime_checkable
class ReasonFeed(Protocol):
    """A feed that knows why a series was missing at any time (a recording that stored its
    reasons), not only now."""

    def reason_at(self, series: str, time_s: float) -> str | None: ...


@runtime_checkable
class CaptureFeed(Protocol):
    """A feed that may hold no history: a replayed snapshot's single readings, repeated.
    Where `at_capture`, its values are shown as read at `captured_at_s` (None: the snapshot
    did not record when), never as curves or statistics over time."""

    @property
    def at_capture(self) -> bool: ...

    @property
    def captured_at_s(self) -> float | None: ...


def is_capture(feed: object) -> bool:
    """Whether `feed` holds a snapshot's single readings rather than samples over time."""
    return isinstance(feed, CaptureFeed) and feed.at_capture


LatestSource = Mapping[str, Reading] | Callable[[str], Reading | None]
NowSource = float | Callable[[], float]
ProcessSource = Mapping[str, ProcessSnapshot] | Callable[[str], ProcessSnapshot | None]


class RingFeed:
    """A `TelemetryFeed` over ring buffers held by the caller.

    `latest` gives readings (with sources and missing reasons) by series name, as a mapping or
    a function; without it (or for a series it does not know) the newest ring value is the
    reading. `now` is a fixed time, a function, or None: `time.time()` when `live`, else the
    newest sample time in the rings. A `label` given as a string is shown as it is."""

    def __init__(self, devices: Sequence[FeedDevice], rings: Mapping[str, RingView],
                 latest: LatestSource | None = None, now: NowSource | None = None,
                 live: bool = False, label: LabelText | str = "Ring buffers", *,
                 processes: ProcessSource | None = None,
                 processes_missing: LabelText | str | None = None,
                 summaries: Mapping[str, MinMaxPyramid] | None = None,
                 reason_changes: Mapping[str, Sequence[tuple[float, str]]] | None = None,
                 report_label: str | None = None,
                 at_capture: bool = False, captured_at_s: float | None = None,
                 ) -> None:
        self._devices: tuple[FeedDevice, ...] = tuple(devices)
        self._at_capture = at_capture
        self._captured_at_s = captured_at_s
        self._report_label = report_label
        self._rings = dict(rings)
        self._latest = latest
        self._now = now
        self._live = live
        self._label = verbatim(label) if isinstance(label, str) else label
        self._processes = processes
        self._processes_missing = (processes_missing.english()
                                   if isinstance(processes_missing, LabelText)
                                   else processes_missing)
        self._summaries = dict(summaries or {})
        self._reason_changes = {name: tuple(changes)
                                for name, changes in (reason_changes or {}).items()}

    def devices(self) -> Sequence[FeedDevice]:
        return self._devices

    def set_devices(self, devices: Sequence[FeedDevice]) -> None:
        """Replace the device list (a GPU lost or back); the page picks it up on its next
        redraw."""
        self._devices = tuple(devices)

    def ring(self, device_key: str) -> RingView | None:
        return self._rings.get(device_key)

    def latest(self, series: str) -> Reading | None:
        if self._latest is not None:
            reading = (self._latest(series) if callable(self._latest)
                       else self._latest.get(series))
            if reading is not None:
                return reading
        device, _, _ = series.rpartition("/")
        ring = self._rings.get(device)
        if ring is None:
            return None
        value = ring.latest(series)
        return None if value is None else Reading(value)

    def processes(self, device_key: str) -> ProcessSnapshot | None:
        """From `processes`; else, with `processes_missing`, a snapshot giving that reason
        ("process lists are not stored in recordings", in English: the UI translates it in
        the feeds' context)."""
        if self._processes is not None:
            snapshot = (self._processes(device_key) if callable(self._processes)
                        else self._processes.get(device_key))
            if snapshot is not None:
                return snapshot
        if self._processes_missing is not None:
            return ProcessSnapshot(self.now_s(), (), None, self._processes_missing)
        return None

    def reason_at(self, series: str, time_s: float) -> str | None:
        """Why `series` was missing at `time_s`, from `reason_changes` ((t, reason) in time
        order, "" once it has values again); else its latest reading's reason."""
        changes = self._reason_changes.get(series)
        if changes is None:
            reading = self.latest(series)
            return reading.missing_reason if reading is not None else None
        return reason_in_force(changes, time_s)

    def summary(self, device_key: str) -> MinMaxPyramid | None:
        pyramid = self._summaries.get(device_key)
        return pyramid if pyramid is not None and pyramid.levels else None

    def set_now(self, now: NowSource | None) -> None:
        self._now = now

    def now_s(self) -> float:
        if self._now is not None:
            return float(self._now() if callable(self._now) else self._now)
        if self._live:
            return time.time()
        newest = [float(times[-1]) for times, _ in
                  (ring.snapshot(series=()) for ring in self._rings.values()) if len(times)]
        return max(newest) if newest else time.time()

    @property
    def live(self) -> bool:
        return self._live

    @property
    def pausable(self) -> bool:
        return self._live and not self._at_capture

    @property
    def at_capture(self) -> bool:
        """Single readings of a snapshot (see `CaptureFeed`)."""
        return self._at_capture

    @property
    def captured_at_s(self) -> float | None:
        return self._captured_at_s

    @property
    def label(self) -> LabelText:
        return self._label

    @property
    def report_label(self) -> str:
        """`label` in English (the share report's), unless the caller gave one."""
        return self._report_label or self._label.english()


# ---------------------------------------------------------------------------- demo traces

# The metrics of the benchmark and the demo: eight per GPU, two for the host.
SYNTHETIC_GPU_METRICS: tuple[Metric, ...] = (
    Metric.GPU_UTIL_PERCENT, Metric.VRAM_USED_BYTES, Metric.TEMP_JUNCTION_C,
    Metric.TEMP_EDGE_C, Metric.POWER_W, Metric.SCLK_MHZ, Metric.MCLK_MHZ, Metric.FAN_RPM,
)
SYNTHETIC_HOST_METRICS: tuple[Metric, ...] = (
    Metric.HOST_CPU_PERCENT, Metric.HOST_RAM_USED_BYTES,
)
DEMO_LABEL = feed_text("Demo data (synthetic traces, not this machine)")
_GIB = float(2**30)


@dataclass
class SyntheticTelemetry:
    """Generated traces: one shared time axis and, per device, a value array per series."""

    devices: tuple[FeedDevice, ...]
    times: FloatArray
    values: dict[str, dict[str, FloatArray]]  # device key -> series name -> values
    readings: dict[str, Reading] = field(default_factory=dict)  # series -> why missing
    processes: dict[str, ProcessSnapshot] = field(default_factory=dict)  # at the end

    def rings(self, rows: int, capacity: int | None = None) -> dict[str, SeriesRing]:
        """Rings of `capacity` rows (default `rows`) holding the first `rows` samples."""
        capacity = capacity or rows
        rings: dict[str, SeriesRing] = {}
        for device in self.devices:
            columns = self.values[device.key]
            ring = SeriesRing(tuple(columns), capacity)
            ring.append_rows(self.times[:rows], {k: v[:rows] for k, v in columns.items()})
            rings[device.key] = ring
        return rings

    def append(self, rings: Mapping[str, SeriesRing], start: int, stop: int) -> None:
        """Append samples [start, stop) to `rings`, as a sampler would."""
        for key, ring in rings.items():
            columns = self.values[key]
            ring.append_rows(self.times[start:stop],
                             {k: v[start:stop] for k, v in columns.items()})

    def latest(self, series: str) -> Reading | None:
        return self.readings.get(series)


def synthetic_telemetry(n_gpus: int, seconds: float, rate_hz: float = 10.0, seed: int = 0,
                        end_s: float | None = None, *, lost_gpu: bool = True,
                        missing_fan: bool = True, throttle: bool = False, cores: int = 0,
                        processes: bool = False) -> SyntheticTelemetry:
    """Telemetry-like traces for `n_gpus` GPUs and the host over `seconds` at `rate_hz`:
    workload phases (idle, partial, full) as steps, utilization and power following them with
    jitter and occasional spikes, temperatures lagging power (one GPU runs hot enough to
    cross the junction warning), clocks and VRAM in steps, the fan following temperature,
    short NaN gaps, one GPU lost for a while (`lost_gpu`, with 3 GPUs or more), and one GPU
    whose fan no source reports (`missing_fan`, with 2 GPUs or more).

    With `throttle`, a throttle-reason series per GPU (power cap near the power limit,
    thermal on the hot GPU, idle when idle; the fourth GPU reports none); with `cores`, that
    many per-core host CPU series; with `processes`, a process list per GPU at the end (the
    third GPU's cannot be read)."""
    rng = np.random.default_rng(seed)
    n = max(2, round(seconds * rate_hz))
    end = time.time() if end_s is None else end_s
    times = end - (n - 1 - np.arange(n, dtype=np.float64)) / rate_hz
    devices: list[FeedDevice] = []
    values: dict[str, dict[str, FloatArray]] = {}
    readings: dict[str, Reading] = {}
    processes_of: dict[str, ProcessSnapshot] = {}
    for index in range(n_gpus):
        key = f"0000:{3 + index:02x}:00.0"
        devices.append(FeedDevice(key, gpu_label(index, feed_text(
            "Demo GPU {index} (synthetic)", index=index)), index))
        traces = _gpu_traces(rng, n, rate_hz, hot=index == (1 if n_gpus > 1 else 0))
        _punch_gaps(rng, traces, n, rate_hz)
        if lost_gpu and n_gpus >= 3 and index == n_gpus - 1:
            start = int(n * 0.55)
            for trace in traces.values():
                trace[start:start + int(40 * rate_hz)] = np.nan
        if missing_fan and n_gpus >= 2 and index == 1:
            traces[Metric.FAN_RPM][:] = np.nan
            readings[series_name(key, Metric.FAN_RPM)] = Reading(
                None, missing_reason="this GPU reports no fan speed (passively cooled)")
        values[key] = {series_name(key, m): traces[m] for m in SYNTHETIC_GPU_METRICS}
        if throttle:
            name = series_name(key, Metric.THROTTLE_REASONS)
            if index == 3:
                values[key][name] = np.full(n, np.nan)
                readings[name] = Reading(None, missing_reason=(
                    "amdsmi: this GPU's gpu_metrics has no throttle status"))
            else:
                values[key][name] = _throttle_trace(rng, traces, n)
        if processes:
            processes_of[key] = _demo_processes(index, float(times[-1]),
                                                float(traces[Metric.VRAM_USED_BYTES][-1]))
    devices.append(FeedDevice(HOST_DEVICE, host_label(), None))
    host = _host_traces(rng, n, rate_hz)
    _punch_gaps(rng, host, n, rate_hz)
    values[HOST_DEVICE] = {series_name(HOST_DEVICE, m): host[m] for m in SYNTHETIC_HOST_METRICS}
    for core in range(cores):
        values[HOST_DEVICE][series_name(HOST_DEVICE, cpu_core_metric(core))] = _core_trace(
            rng, host[Metric.HOST_CPU_PERCENT], core, n, rate_hz)
    return SyntheticTelemetry(tuple(devices), times, values, readings, processes_of)


def _throttle_trace(rng: np.random.Generator, traces: Mapping[Metric, FloatArray],
                    n: int) -> FloatArray:
    """ThrottleReason bits as a GPU reports them: power cap while drawing near its limit,
    thermal past 93 °C junction, idle when idle, and a rare hardware slowdown."""
    power = traces[Metric.POWER_W]
    util = traces[Metric.GPU_UTIL_PERCENT]
    junction = traces[Metric.TEMP_JUNCTION_C]
    with np.errstate(invalid="ignore"):
        limit = np.nanpercentile(power, 97) * 0.97 if np.isfinite(power).any() else np.inf
        flags = np.where(power >= limit, int(ThrottleReason.POWER), 0)
        flags |= np.where(junction >= 93.0, int(ThrottleReason.THERMAL), 0)
        flags |= np.where(util < 4.0, int(ThrottleReason.IDLE), 0)
    slowdown = rng.random(n) < 0.0002
    runs = np.minimum(np.flatnonzero(slowdown)[:, None] + np.arange(30)[None, :], n - 1)
    flags[runs.ravel()] |= int(ThrottleReason.HARDWARE)
    out = flags.astype(np.float64)
    out[np.isnan(util)] = np.nan
    return out


def _core_trace(rng: np.random.Generator, total: FloatArray, core: int, n: int,
                rate_hz: float) -> FloatArray:
    """One core: the host's load, more or less of it per core, with phases of its own."""
    share = 0.4 + 1.4 * rng.random()
    own = _phases(rng, n, rate_hz, (0.0, 5.0, 40.0, 95.0), 60.0 + 20.0 * core)
    noise = _lag(rng.standard_normal(n), rate_hz) * 6.0
    trace = np.clip(total * share * 0.7 + own * 0.5 + noise, 0.0, 100.0)
    trace[np.isnan(total)] = np.nan
    return trace


_DEMO_PROCESS_NAMES = (("python3", "compute"), ("ollama", "compute"),
                       ("Xorg", "graphics"), ("firefox", "graphics"))


def _demo_processes(index: int, time_s: float, vram_used_bytes: float) -> ProcessSnapshot:
    if index == 2:
        return ProcessSnapshot(time_s, (), None,
                               "nvml: nvmlDeviceGetComputeRunningProcesses: Insufficient "
                               "Permissions")
    shares = ((0.78, 0), (0.17, 1), (0.04, 2)) if index % 2 == 0 else ((0.9, 0), (0.08, 3))
    used = max(vram_used_bytes, 0.5 * _GIB) if math.isfinite(vram_used_bytes) else _GIB
    found = tuple(GpuProcess(4100 + 37 * index + slot, _DEMO_PROCESS_NAMES[slot][0],
                             used * share, _DEMO_PROCESS_NAMES[slot][1])
                  for share, slot in shares)
    return ProcessSnapshot(time_s, found, "demo:synthetic process list")


def demo_feed(n_gpus: int, minutes: float = 15.0, rate_hz: float = 10.0,
              seed: int = 0, *, cores: int = 8) -> RingFeed:
    """A finished (not live) feed of `minutes` of synthetic traces, with throttle reasons,
    `cores` per-core CPU series and process lists, labelled as demo data."""
    data = synthetic_telemetry(n_gpus, minutes * 60.0, rate_hz, seed, throttle=True,
                               cores=cores, processes=True)
    rings = data.rings(len(data.times))
    words: dict[str, LabelText | str | int | float] = {"demo": DEMO_LABEL, "count": n_gpus,
                                                       "rate": f"{rate_hz:g}"}
    label = (feed_text("{demo}: {count} GPU, {rate} Hz", **words) if n_gpus == 1
             else feed_text("{demo}: {count} GPUs, {rate} Hz", **words))
    return RingFeed(data.devices, rings, latest=data.latest, now=float(data.times[-1]),
                    live=False, label=label, processes=data.processes)


def _lag(signal: FloatArray, tau_samples: float) -> FloatArray:
    """First-order lag (exponential smoothing) of `signal`, by FFT convolution: no loop."""
    n = len(signal)
    length = int(min(n, max(2, 6 * tau_samples)))
    kernel = np.exp(-np.arange(length) / max(tau_samples, 1e-9))
    kernel /= kernel.sum()
    padded = np.concatenate((np.full(length, signal[0]), signal))
    size = 1 << int(np.ceil(np.log2(len(padded) + length)))
    out = np.fft.irfft(np.fft.rfft(padded, size) * np.fft.rfft(kernel, size), size)
    return np.asarray(out[length:length + n], dtype=np.float64)


def _phases(rng: np.random.Generator, n: int, rate_hz: float,
            levels: Sequence[float], mean_s: float) -> FloatArray:
    """A step signal: phases of random length (mean `mean_s`) at levels drawn from
    `levels`."""
    lengths = rng.exponential(mean_s * rate_hz, size=max(2, int(n / (mean_s * rate_hz)) * 3))
    counts = np.maximum(1, lengths.astype(np.int64))
    while counts.sum() < n:
        counts = np.concatenate((counts, counts))
    chosen = rng.choice(np.asarray(levels, dtype=np.float64), size=len(counts))
    return np.repeat(chosen, counts)[:n]


def _gpu_traces(rng: np.random.Generator, n: int, rate_hz: float,
                hot: bool) -> dict[Metric, FloatArray]:
    load = _phases(rng, n, rate_hz, (2.0, 35.0, 70.0, 97.0, 99.0), 150.0)
    jitter = _lag(rng.standard_normal(n), 3 * rate_hz) * 25.0
    util = np.clip(_lag(load, 0.5 * rate_hz) + jitter * (load > 10), 0, 100)
    tdp, idle_w = (355.0, 28.0) if hot else (rng.uniform(250, 330), rng.uniform(12, 30))
    power = idle_w + (tdp - idle_w) * util / 100.0 + rng.standard_normal(n) * 3.0
    spikes = rng.random(n) < 0.0015  # one-sample transients, as power sensors show
    power[spikes] *= rng.uniform(1.2, 1.45, spikes.sum())
    ambient = rng.uniform(28, 36)
    junction = ambient + _lag(power, 45 * rate_hz) * (0.2 if hot else 0.145) + (
        _lag(rng.standard_normal(n), 2 * rate_hz) * 1.5)
    edge = junction - 12.0 - util * 0.06
    boost = rng.uniform(2300, 2550)
    sclk = np.where(util > 8, boost - util * 1.5 + rng.standard_normal(n) * 25, 50 + util * 10)
    mclk = np.where(util > 8, 1249.0, np.where(util > 3, 456.0, 96.0))
    vram_steps = _phases(rng, n, rate_hz, (0.4, 3.5, 9.0, 15.0, 21.0), 400.0)
    vram = (np.maximum(vram_steps, _lag(vram_steps, 20 * rate_hz)) * _GIB
            + _lag(rng.standard_normal(n), 30 * rate_hz) * 0.05 * _GIB)
    fan = np.where(junction > 55, 700 + (junction - 55) * 55, 0.0)
    fan = _lag(fan, 8 * rate_hz)
    fan[fan < 1.0] = 0.0  # the FFT's round-off around a stopped fan
    return {
        Metric.GPU_UTIL_PERCENT: util, Metric.VRAM_USED_BYTES: np.maximum(vram, 0.2 * _GIB),
        Metric.TEMP_JUNCTION_C: junction, Metric.TEMP_EDGE_C: edge, Metric.POWER_W: power,
        Metric.SCLK_MHZ: sclk, Metric.MCLK_MHZ: mclk, Metric.FAN_RPM: fan,
    }


def _host_traces(rng: np.random.Generator, n: int, rate_hz: float) -> dict[Metric, FloatArray]:
    cpu = np.clip(_lag(_phases(rng, n, rate_hz, (4.0, 12.0, 30.0, 60.0), 90.0), rate_hz)
                  + _lag(rng.standard_normal(n), rate_hz) * 8, 0, 100)
    ram = (_lag(_phases(rng, n, rate_hz, (9.0, 14.0, 22.0, 28.0), 500.0), 10 * rate_hz)
           + _lag(rng.standard_normal(n), 20 * rate_hz) * 0.1) * _GIB
    return {Metric.HOST_CPU_PERCENT: cpu, Metric.HOST_RAM_USED_BYTES: ram}


def _punch_gaps(rng: np.random.Generator, traces: Mapping[Metric, FloatArray], n: int,
                rate_hz: float) -> None:
    """A few missing samples and short missing runs, as a sensor read timing out gives."""
    for trace in traces.values():
        trace[rng.integers(0, n, size=max(1, n // 4000))] = np.nan
        for start in rng.integers(0, n, size=max(1, n // 20000)):
            trace[start:start + int(rng.uniform(1, 6) * rate_hz)] = np.nan
