"""`/api/history`: the sampler's readings over the last few minutes, so that a window adding
this machine fills its charts at once instead of starting from an empty axis.

The exporter keeps its own small ring per device (`RecentHistory`), at most
`MAX_HISTORY_S` seconds and `MAX_ROWS` rows of it whatever the sampler's rate, appended on the
sampler thread on each tick from the tick's own values (one row copy per device, no lock the
sampler waits on but the ring's own). A request copies the rows it asks for out of the rings
and writes them as compact JSON:

    {"schema": "gpuscope.history/1", "now_s": 1764230000.5, "seconds": 60, "rate_hz": 1,
     "devices": [{"device": "0000:03:00.0", "gpu": 0, "name": "AMD Radeon RX 7900 XTX",
                  "t0_s": 1764229940.5, "times_s": [0, 1.0, ...],
                  "series": {"temp_edge_c": {"unit": "°C", "source": "amdsmi",
                                             "values": [45.0, null, ...],
                                             "reason": "why it is missing now"}}}]}

`times_s` are offsets from `t0_s` in seconds (milliseconds kept); a missing value is null;
`reason` is present only while the series has no value, `source` once one was read.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from gpuscope.model import Gpu
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.sampler import Sampler, SeriesInfo, TickEvent
from gpuscope.telemetry.sources import gpu_device_id

SCHEMA = "gpuscope.history/1"
MAX_HISTORY_S = 600.0
MAX_ROWS = 6000  # 600 s at 10 Hz; faster samplers are thinned to this
_SIGNIFICANT_DIGITS = 7


class HistoryQueryError(ValueError):
    """A query `/api/history` does not take (the reply is 400 with this text)."""


def seconds_of_query(values: Mapping[str, Sequence[str]]) -> float:
    """The `seconds` of `/api/history?seconds=N`: 1 to 600, default 600."""
    given = values.get("seconds")
    if not given:
        return MAX_HISTORY_S
    try:
        seconds = float(given[-1])
    except ValueError:
        raise HistoryQueryError("seconds must be a number") from None
    if not math.isfinite(seconds) or seconds <= 0 or seconds > MAX_HISTORY_S:
        raise HistoryQueryError(f"seconds must be more than 0 and at most {MAX_HISTORY_S:g}")
    return seconds


class RecentHistory:
    """The last `MAX_HISTORY_S` seconds of every series the sampler reads, per device."""

    def __init__(self, gpus: Sequence[Gpu] = ()) -> None:
        self._gpus = {gpu_device_id(gpu): gpu for gpu in gpus}
        self._lock = threading.Lock()  # guards the dictionaries below, not the rings
        self._rings: dict[str, SeriesRing] = {}
        self._units: dict[str, str] = {}
        self._reasons: dict[str, str] = {}
        self._sources: dict[str, str] = {}
        self._rate_hz = 1.0
        self._min_gap_s = 0.0
        self._last_row_s = -math.inf
        self._unsubscribe: Callable[[], None] | None = None
        self.update_cost_s = 0.0  # what the last tick cost the sampler thread

    def attach(self, sampler: Sampler) -> None:
        """Keep `sampler`'s readings from its next tick on."""
        self.detach()
        rate_hz = max(sampler.rate_hz, 1e-3)
        rows = min(MAX_ROWS, math.ceil(MAX_HISTORY_S * rate_hz) + 2)
        by_device: dict[str, list[SeriesInfo]] = {}
        for info in sampler.series:
            by_device.setdefault(info.device, []).append(info)
        with self._lock:
            self._rate_hz = rate_hz
            # A sampler faster than MAX_ROWS in MAX_HISTORY_S keeps every n-th tick.
            self._min_gap_s = MAX_HISTORY_S / MAX_ROWS * 0.999 if rows >= MAX_ROWS else 0.0
            self._rings = {device: SeriesRing(tuple(i.name for i in infos), rows)
                           for device, infos in by_device.items()}
            self._units = {info.name: info.unit for info in sampler.series}
        self._unsubscribe = sampler.subscribe(self._on_tick)
        # Ticks give sources and reasons only when they change: take those in force now.
        latest = dict(sampler.latest)
        with self._lock:
            for name, reading in latest.items():
                if reading.source:
                    self._sources.setdefault(name, reading.source)
                if reading.missing_reason and reading.value is None:
                    self._reasons.setdefault(name, reading.missing_reason)

    def detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_tick(self, event: TickEvent) -> None:
        started = time.perf_counter()
        with self._lock:
            for name, reason in event.reasons.items():
                if reason:
                    self._reasons[name] = reason
                else:
                    self._reasons.pop(name, None)
            self._sources.update(event.sources)
            if event.time_s - self._last_row_s < self._min_gap_s:
                self.update_cost_s = time.perf_counter() - started
                return
            self._last_row_s = event.time_s
            rings = self._rings
        for ring in rings.values():
            values = event.values
            row = np.fromiter((values.get(name, math.nan) for name in ring.series),
                              dtype=np.float64, count=len(ring.series))
            ring.append_array(event.time_s, row)
        self.update_cost_s = time.perf_counter() - started

    def document(self, seconds: float, now_s: float | None = None) -> dict[str, object]:
        """The last `seconds` (at most MAX_HISTORY_S) as the JSON object described above."""
        seconds = min(max(seconds, 0.0), MAX_HISTORY_S)
        now = time.time() if now_s is None else now_s
        with self._lock:
            rings = dict(self._rings)
            units = dict(self._units)
            reasons = dict(self._reasons)
            sources = dict(self._sources)
            rate_hz = self._rate_hz
        devices: list[dict[str, object]] = []
        for device, ring in rings.items():
            times, columns = ring.snapshot(since_s=now - seconds)
            t0 = float(times[0]) if len(times) else now
            gpu = self._gpus.get(device)
            series: dict[str, dict[str, object]] = {}
            for name, values in columns.items():
                metric = name.rpartition("/")[2]
                entry: dict[str, object] = {"unit": units.get(name, ""),
                                            "values": [_compact(v) for v in values]}
                if name in sources:
                    entry["source"] = sources[name]
                if name in reasons:
                    entry["reason"] = reasons[name]
                series[metric] = entry
            devices.append({
                "device": device,
                "gpu": gpu.index if gpu is not None else None,
                "name": (gpu.name or "") if gpu is not None else "",
                "t0_s": round(t0, 3),
                "times_s": [round(float(t) - t0, 3) for t in times],
                "series": series,
            })
        return {"schema": SCHEMA, "now_s": round(now, 3), "seconds": seconds,
                "rate_hz": rate_hz, "devices": devices}

    def body(self, seconds: float) -> bytes:
        """`document` as the endpoint's body."""
        return json.dumps(self.document(seconds), separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False).encode("utf-8")


def _compact(value: float) -> float | int | None:
    if math.isnan(value) or math.isinf(value):
        return None
    number = float(f"{value:.{_SIGNIFICANT_DIGITS}g}")
    return int(number) if number.is_integer() and abs(number) < 2**53 else number
