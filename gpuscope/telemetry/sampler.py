"""The sampler: a background thread that samples every GPU and the host at a steady rate.

Each tick asks every isolated source (one per GPU) on a worker thread of its own, one after
the other, and waits at most `min(answer_timeout_s, 0.6 / rate_hz)` for the answers, so one GPU
that hangs in its driver, or fell off the bus, holds the others back at most once, by its share
of that wait: its row is NaN, and once it has not answered for
`answer_timeout_s` it is marked lost ("no answer within 0.5 s") until it answers again. The host
is read inline (psutil reads /proc and does not hang).

One tick writes one row per device into that device's `SeriesRing` (NaN where a metric is
missing), keeps the latest `Reading` of every series (value, source, or why it is missing) for
"not available (reason)", and calls each subscriber with a `TickEvent`. Subscribers run on the
sampler thread: the UI bridges them to its own thread with a queued signal, the recorder puts
the event on its queue. Slow per-GPU work (NVML's process lists and PCIe counters) runs on the
GPU's worker after its readings are in, off the fast path.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType, TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import (
    ProcessSnapshot,
    Reading,
    metric_label,
    series_name,
    stored_unit,
)
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.sources import DeviceLostError, TelemetrySource

log = logging.getLogger(__name__)

MIN_RATE_HZ = 0.5
MAX_RATE_HZ = 20.0
DEFAULT_RATE_HZ = 2.0
DEFAULT_HISTORY_S = 3600.0
DEFAULT_ANSWER_TIMEOUT_S = 0.5
DEFAULT_PROCESS_INTERVAL_S = 5.0
_NAN = float("nan")


class DeviceStatus(str, Enum):
    WAITING = "waiting"  # no answer yet
    OK = "ok"
    LOST = "lost"  # no answer in time, or the GPU fell off the bus
    ERROR = "error"  # the source raised; it is asked again every tick


@dataclass(frozen=True, slots=True)
class DeviceState:
    device: str
    label: str
    status: DeviceStatus
    reason: str | None = None
    since_s: float | None = None  # unix time this status began
    last_answer_s: float | None = None  # unix time of the last answer


@dataclass(frozen=True, slots=True)
class SeriesInfo:
    name: str  # "0000:03:00.0/power_w"
    device: str
    metric: str
    unit: str  # of the stored values: "W", "B", "%"
    label: str


@dataclass(frozen=True, slots=True)
class TickEvent:
    """One tick, as subscribers get it. `values` holds every series (NaN where missing);
    `sources` only the series whose source changed at this tick (all of them at the first);
    `reasons` only the series whose reason for being missing changed at this tick: the new
    reason, or "" for a series that has a value again."""

    time_s: float  # unix time
    index: int
    values: Mapping[str, float]
    sources: Mapping[str, str]
    duration_s: float
    reasons: Mapping[str, str] = field(default_factory=dict)


TickCallback = Callable[[TickEvent], None]


class _Device:
    """Per-device bookkeeping: its series, its ring's column order, its worker."""

    def __init__(self, source: TelemetrySource) -> None:
        self.source = source
        self.device = source.device
        self.metrics: tuple[str, ...] = tuple(source.metrics())
        self.series: tuple[str, ...] = tuple(series_name(self.device, m) for m in self.metrics)
        self.columns: dict[str, int] = {m: i for i, m in enumerate(self.metrics)}
        self.row: npt.NDArray[np.float64] = np.full(len(self.metrics), np.nan)
        self.state = DeviceState(self.device, source.label, DeviceStatus.WAITING)
        self.missing_cache: dict[str, Reading] = {}
        self.worker: _Worker | None = None
        self.last_answer_mono: float | None = None

    def missing(self, reason: str) -> Reading:
        reading = self.missing_cache.get(reason)
        if reading is None:
            if len(self.missing_cache) > 16:
                self.missing_cache.clear()
            reading = self.missing_cache[reason] = Reading(None, None, reason)
        return reading


class _Worker:
    """A thread that reads one source on request. Requests and answers travel through
    `queue.SimpleQueue`s (C-level locks, no Python-level Condition per handoff); only the
    sampler thread touches `busy` and `result`."""

    def __init__(self, sampler: Sampler, device: _Device) -> None:
        self._sampler = sampler
        self.device = device
        self.source = device.source
        self._inbox: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self.busy = False  # asked and not answered yet (sampler thread only)
        self.requested_mono = 0.0
        self.result: tuple[str, Any] | None = None  # an answer not yet recorded
        self._next_processes = 0.0
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name=f"telemetry-worker-{device.device}")

    def start(self) -> None:
        self.thread.start()

    def submit(self, now_mono: float, token: int) -> None:
        self.busy = True
        self.requested_mono = now_mono
        self._inbox.put(token)

    def stop(self) -> None:
        self._inbox.put(None)

    def _run(self) -> None:
        answers = self._sampler._answers
        while True:
            token = self._inbox.get()
            if token is None:
                return
            result: tuple[str, Any]
            try:
                result = ("ok", self.source.read())
            except DeviceLostError as exc:
                result = ("lost", str(exc) or "GPU fell off the bus")
            except Exception as exc:  # a source bug or a driver error: this tick's reason
                result = ("error", f"{type(exc).__name__}: {exc}")
            answers.put((self, result))
            self._sampler._answered(token)
            if self._sampler._stop.is_set():
                return
            self._slow_work()

    def _slow_work(self) -> None:
        now = time.monotonic()
        try:
            self.source.background(now)
            if now >= self._next_processes:
                self._next_processes = now + self._sampler.process_interval_s
                snapshot = self.source.processes()
                if snapshot is not None:
                    self._sampler._processes[self.device.device] = snapshot
        except Exception as exc:  # slow work failing must not end the worker
            log.debug("slow telemetry work of %s failed: %s", self.device.device, exc)


class Sampler:
    """Samples `sources` at `rate_hz` on a background thread into ring buffers holding
    `history_s` seconds (capacity `history_s * rate_hz` rows per device, reallocated only when
    the rate changes). Thread-safe: the UI reads `rings`, `latest`, `device_state` at any time.
    """

    def __init__(
        self,
        sources: Sequence[TelemetrySource],
        rate_hz: float = DEFAULT_RATE_HZ,
        history_s: float = DEFAULT_HISTORY_S,
        *,
        answer_timeout_s: float = DEFAULT_ANSWER_TIMEOUT_S,
        process_interval_s: float = DEFAULT_PROCESS_INTERVAL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        _check_rate(rate_hz)
        if history_s <= 0:
            raise ValueError("history_s must be positive")
        devices = [_Device(source) for source in sources]
        names = [d.device for d in devices]
        if len(set(names)) != len(names):
            raise ValueError(f"two sources for one device: {names}")
        self._devices = devices
        self._rate_hz = float(rate_hz)
        self.history_s = float(history_s)
        self.answer_timeout_s = float(answer_timeout_s)
        self.process_interval_s = float(process_interval_s)
        self._clock = clock
        self._lock = threading.Lock()  # rings swap and writes
        self._answers: queue.SimpleQueue[tuple[_Worker, tuple[str, Any]]] = (
            queue.SimpleQueue())
        # The tick waits on `_all_answered`, a lock its last worker releases: one wakeup of
        # the sampler thread per tick, whatever the number of GPUs.
        self._count_lock = threading.Lock()
        self._all_answered = threading.Lock()
        self._all_answered.acquire()
        self._token = 0
        self._remaining = 0
        self._rings: dict[str, SeriesRing] = {
            d.device: SeriesRing(d.series, self._capacity(self._rate_hz)) for d in devices}
        self._latest: dict[str, Reading] = {}
        for device in devices:
            waiting = device.missing("no sample yet")
            for name in device.series:
                self._latest[name] = waiting
        self._series_source: dict[str, str] = {}
        self._series_reason: dict[str, str] = {}
        self._processes: dict[str, ProcessSnapshot] = {}
        self._subscribers: list[TickCallback] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._paused = False
        self._workers_started = False
        self._closed = False
        self.tick_count = 0
        self.last_tick_duration_s = 0.0
        self._series_info = tuple(
            SeriesInfo(series_name(d.device, m), d.device, m, stored_unit(m), metric_label(m))
            for d in devices for m in d.metrics)

    # ------------------------------------------------------------------ public state

    @property
    def rate_hz(self) -> float:
        return self._rate_hz

    @property
    def rings(self) -> Mapping[str, SeriesRing]:
        """device -> its ring ("host" and each GPU's PCI bus address). A new mapping after a
        rate change: take it afresh for each redraw."""
        with self._lock:
            return dict(self._rings)

    @property
    def latest(self) -> Mapping[str, Reading]:
        """series name -> its latest Reading (value and source, or why it is missing)."""
        return MappingProxyType(self._latest)

    @property
    def device_state(self) -> Mapping[str, DeviceState]:
        return {d.device: d.state for d in self._devices}

    @property
    def devices(self) -> tuple[str, ...]:
        return tuple(d.device for d in self._devices)

    @property
    def series(self) -> tuple[SeriesInfo, ...]:
        return self._series_info

    @property
    def processes(self) -> Mapping[str, ProcessSnapshot]:
        """device -> the processes on it (refreshed every `process_interval_s`)."""
        return dict(self._processes)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def paused(self) -> bool:
        return self._paused

    def subscribe(self, callback: TickCallback) -> Callable[[], None]:
        """Call `callback(event)` after every tick, on the sampler thread. Returns the
        function that unsubscribes it."""
        with self._lock:
            self._subscribers = [*self._subscribers, callback]

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = [c for c in self._subscribers if c is not callback]
        return unsubscribe

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        if self._closed:
            raise RuntimeError("a stopped sampler cannot start again")
        if self.running:
            return
        self._start_workers()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True, name="telemetry-sampler")
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop sampling and end the threads; True when every thread ended within `timeout`
        (a worker stuck in a driver call ends when the call returns)."""
        self._closed = True
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        ended = True
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
            ended = not self._thread.is_alive()
        workers = [d.worker for d in self._devices if d.worker is not None]
        for worker in workers:
            worker.stop()
        for worker in workers:
            worker.thread.join(max(0.0, deadline - time.monotonic()))
            ended = ended and not worker.thread.is_alive()
        return ended

    def pause(self) -> None:
        self._paused = True
        self._wake.set()

    def resume(self) -> None:
        self._paused = False
        self._wake.set()

    def set_rate(self, rate_hz: float) -> None:
        """Change the sampling rate (0.5 to 20 Hz) while running; the rings are reallocated
        for `history_s` at the new rate, keeping the newest samples that fit."""
        _check_rate(rate_hz)
        if rate_hz == self._rate_hz:
            return
        capacity = self._capacity(rate_hz)
        with self._lock:
            rings: dict[str, SeriesRing] = {}
            for device, old in self._rings.items():
                ring = SeriesRing(old.series, capacity)
                times, values = old.snapshot()
                ring.append_rows(times, values)
                rings[device] = ring
            self._rings = rings
            self._rate_hz = float(rate_hz)
        self._wake.set()

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # ------------------------------------------------------------------ the loop

    def _capacity(self, rate_hz: float) -> int:
        return max(1, math.ceil(self.history_s * rate_hz))

    def _start_workers(self) -> None:
        if self._workers_started:
            return
        self._workers_started = True
        for device in self._devices:
            if device.source.isolated:
                device.worker = _Worker(self, device)
                device.worker.start()

    def _run(self) -> None:
        next_tick = time.monotonic()
        while not self._stop.is_set():
            if self._paused:
                self._wake.wait(0.5)
                self._wake.clear()
                next_tick = time.monotonic()
                continue
            now = time.monotonic()
            period = 1.0 / self._rate_hz
            next_tick = min(next_tick, now + period)  # a faster rate takes effect at once
            if now < next_tick:
                self._wake.wait(next_tick - now)
                self._wake.clear()
                continue
            try:
                self.tick()
            except Exception:  # a bug in a tick must not end sampling
                log.exception("telemetry tick failed")
            next_tick += period
            if next_tick < time.monotonic():  # fell behind: skip, do not burst
                next_tick = time.monotonic() + period

    def tick(self) -> TickEvent:
        """Take one sample of every device now. The background thread calls this; benchmarks
        and tests may call it directly instead of `start()` (never both at once)."""
        self._start_workers()
        started = time.monotonic()
        t = self._clock()
        period = 1.0 / self._rate_hz
        wait_s = min(self.answer_timeout_s, 0.6 * period)

        self._collect_answers()  # late answers of earlier ticks free their workers
        submit = [w for d in self._devices if (w := d.worker) is not None and not w.busy]
        with self._count_lock:
            self._token += 1
            token = self._token
            self._remaining = len(submit)
            self._all_answered.acquire(blocking=False)  # undo a late release for an old tick
        answers: dict[_Device, tuple[str, Any] | None] = {}
        for device in self._devices:
            if device.worker is None:
                answers[device] = self._read_inline(device.source)
        if submit:
            deadline = started + wait_s
            self._hand_out(submit, token, started, deadline)
            remaining = deadline - time.monotonic()
            if remaining > 0:
                self._all_answered.acquire(timeout=remaining)
        self._collect_answers()

        now_mono = time.monotonic()
        for device in self._devices:
            if device.worker is None:
                continue
            worker = device.worker
            answer, worker.result = worker.result, None
            if answer is None and worker.busy and (
                    now_mono - worker.requested_mono >= self.answer_timeout_s - 1e-3):
                answer = ("lost", f"no answer within {self.answer_timeout_s:g} s")
            answers[device] = answer

        subscribers = self._subscribers
        values: dict[str, float] | None = {} if subscribers else None
        changed: dict[str, str] | None = {} if subscribers else None
        reasons: dict[str, str] = {}
        with self._lock:
            for device in self._devices:
                self._record(device, answers.get(device), t, now_mono, values, changed)
        if subscribers:
            self._changed_reasons(reasons)
        self.tick_count += 1
        duration = time.monotonic() - started
        self.last_tick_duration_s = duration
        event = TickEvent(t, self.tick_count, values or {}, changed or {}, duration, reasons)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # one subscriber's bug must not stop the others or sampling
                log.exception("telemetry subscriber failed")
        return event

    def _hand_out(self, workers: Sequence[_Worker], token: int, started: float,
                  deadline: float) -> None:
        """Ask the workers one after the other: each reads while the others wait, so their
        reads do not contend for the interpreter (with 8 GPUs of sysfs files, contention cost
        more CPU than the reads). A worker that has not answered within its share of the
        wait is left to answer late, and the next one is asked: a hung GPU delays the others
        by its share once, then it stays busy and is not asked again until it answers."""
        share_s = (deadline - started) / len(workers)
        for position, worker in enumerate(workers):
            worker.submit(started, token)
            if position + 1 < len(workers):
                self._await_answer(worker, min(time.monotonic() + share_s, deadline))

    def _await_answer(self, worker: _Worker, until_mono: float) -> None:
        """Take answers as they come until `worker` has answered or `until_mono` passes."""
        while worker.busy:
            remaining = until_mono - time.monotonic()
            if remaining <= 0:
                return
            try:
                answered, result = self._answers.get(timeout=remaining)
            except queue.Empty:
                return
            self._take_answer(answered, result)

    def _changed_reasons(self, out: dict[str, str]) -> None:
        """The series whose missing reason changed since the last tick with subscribers."""
        known = self._series_reason
        for name, reading in self._latest.items():
            reason = "" if reading.value is not None else (reading.missing_reason or "")
            if known.get(name, "") != reason:
                known[name] = reason
                out[name] = reason

    @staticmethod
    def _read_inline(source: TelemetrySource) -> tuple[str, Any]:
        try:
            return "ok", source.read()
        except DeviceLostError as exc:
            return "lost", str(exc) or "device lost"
        except Exception as exc:  # as in the worker
            return "error", f"{type(exc).__name__}: {exc}"

    def _answered(self, token: int) -> None:
        with self._count_lock:
            if token == self._token:
                self._remaining -= 1
                if self._remaining == 0:
                    self._all_answered.release()

    def _collect_answers(self) -> None:
        while True:
            try:
                worker, result = self._answers.get_nowait()
            except queue.Empty:
                return
            self._take_answer(worker, result)

    @staticmethod
    def _take_answer(worker: _Worker, result: tuple[str, Any]) -> None:
        worker.busy = False
        worker.result = result  # a newer answer replaces an unrecorded older one

    def _record(self, device: _Device, answer: tuple[str, Any] | None, t: float,
                now_mono: float, values: dict[str, float] | None,
                changed: dict[str, str] | None) -> None:
        row = device.row
        row.fill(_NAN)
        latest = self._latest
        if answer is not None and answer[0] == "ok":
            readings: Mapping[str, Reading] = answer[1]
            columns = device.columns
            series = device.series
            for metric, reading in readings.items():
                column = columns.get(metric)
                if column is None:
                    continue
                name = series[column]
                latest[name] = reading
                value = reading.value
                if value is not None:
                    row[column] = value
                if changed is not None and reading.source is not None and (
                        self._series_source.get(name) != reading.source):
                    self._series_source[name] = reading.source
                    changed[name] = reading.source
            device.last_answer_mono = now_mono
            if device.state.status is not DeviceStatus.OK:
                if device.state.status is DeviceStatus.LOST:
                    log.info("telemetry: %s answers again", device.device)
                device.state = DeviceState(device.device, device.source.label, DeviceStatus.OK,
                                           None, t, t)
            elif device.state.last_answer_s != t:
                device.state = DeviceState(device.device, device.source.label, DeviceStatus.OK,
                                           None, device.state.since_s, t)
        elif answer is not None:
            kind, reason = answer
            status = DeviceStatus.LOST if kind == "lost" else DeviceStatus.ERROR
            if device.state.status is not status or device.state.reason != reason:
                if status is DeviceStatus.LOST:
                    log.warning("telemetry: %s lost: %s", device.device, reason)
                else:
                    log.info("telemetry: %s failed: %s", device.device, reason)
                device.state = DeviceState(device.device, device.source.label, status, reason,
                                           t, device.state.last_answer_s)
            missing = device.missing(reason)
            for name in device.series:
                latest[name] = missing
        ring = self._rings.get(device.device)
        if ring is not None:
            ring.append_array(t, row)
        if values is not None:
            for name, value in zip(device.series, row.tolist(), strict=True):
                values[name] = value


def _check_rate(rate_hz: float) -> None:
    if not (MIN_RATE_HZ <= rate_hz <= MAX_RATE_HZ):
        raise ValueError(f"the sampling rate must be {MIN_RATE_HZ:g} to {MAX_RATE_HZ:g} Hz, "
                         f"not {rate_hz:g}")
