"""Preallocated ring buffers of samples: NaN for a missing sample, never growing.

One `SeriesRing` holds the timestamps of a series group and a value column per series;
writers append whole rows (one tick), readers take a consistent copy of any time window.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@runtime_checkable
class RingView(Protocol):
    """What readers of ring buffers use: a `SeriesRing`, or a recording read on demand
    (`recording_feed.RecordingRing`)."""

    series: tuple[str, ...]

    def __len__(self) -> int: ...

    def snapshot(self, since_s: float | None = None, series: Sequence[str] | None = None,
                 until_s: float | None = None) -> tuple[FloatArray, dict[str, FloatArray]]: ...

    def time_span(self) -> tuple[float, float] | None: ...

    def latest(self, name: str) -> float | None: ...


class SeriesRing:
    """`capacity` rows of (time, value per series). Thread-safe: one writer (the sampler),
    any number of readers (the charts). Memory is allocated once, at construction."""

    def __init__(self, series: Sequence[str], capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        if len(set(series)) != len(series):
            raise ValueError("series names must be unique")
        self.series: tuple[str, ...] = tuple(series)
        self.capacity = capacity
        self._column = {name: i for i, name in enumerate(self.series)}
        self._times = np.full(capacity, np.nan)
        self._values = np.full((len(self.series), capacity), np.nan)
        self._next = 0  # index of the next row to write
        self._count = 0  # rows written, up to capacity
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._count

    @property
    def nbytes(self) -> int:
        return int(self._times.nbytes + self._values.nbytes)

    def append(self, time_s: float, values: Mapping[str, float | None]) -> None:
        """One row; series absent from `values` (or None) are NaN in this row."""
        with self._lock:
            row = self._next
            self._times[row] = time_s
            self._values[:, row] = np.nan
            for name, value in values.items():
                column = self._column.get(name)
                if column is not None and value is not None:
                    self._values[column, row] = value
            self._next = (row + 1) % self.capacity
            self._count = min(self._count + 1, self.capacity)

    def append_array(self, time_s: float, values: FloatArray) -> None:
        """One row given as an array in series order (NaN where missing): the sampler's fast
        path, without a name lookup per value."""
        with self._lock:
            row = self._next
            self._times[row] = time_s
            self._values[:, row] = values
            self._next = (row + 1) % self.capacity
            self._count = min(self._count + 1, self.capacity)

    def append_rows(self, times_s: FloatArray, values: Mapping[str, FloatArray]) -> None:
        """Many rows at once (replaying a recording, filling history in benchmarks)."""
        n = len(times_s)
        if n == 0:
            return
        if n > self.capacity:  # only the newest rows fit
            times_s = times_s[-self.capacity:]
            values = {k: v[-self.capacity:] for k, v in values.items()}
            n = self.capacity
        with self._lock:
            rows = (self._next + np.arange(n)) % self.capacity
            self._times[rows] = times_s
            self._values[:, rows] = np.nan
            for name, column_values in values.items():
                column = self._column.get(name)
                if column is not None:
                    self._values[column, rows] = column_values
            self._next = int((self._next + n) % self.capacity)
            self._count = min(self._count + n, self.capacity)

    def _order(self) -> npt.NDArray[np.intp]:
        start = (self._next - self._count) % self.capacity
        return (start + np.arange(self._count)) % self.capacity

    def _position(self, time_s: float, side: Literal["left", "right"]) -> int:
        """The logical row (0 = oldest) where `time_s` would be inserted, found in the two
        sorted runs of the circular buffer without copying it."""
        start = (self._next - self._count) % self.capacity
        first_run = min(self._count, self.capacity - start)
        head = self._times[start:start + first_run]
        position = int(np.searchsorted(head, time_s, side=side))
        if position < first_run or first_run == self._count:
            return position
        tail = self._times[:self._count - first_run]
        return first_run + int(np.searchsorted(tail, time_s, side=side))

    def snapshot(self, since_s: float | None = None,
                 series: Sequence[str] | None = None,
                 until_s: float | None = None) -> tuple[FloatArray, dict[str, FloatArray]]:
        """Copies of (times, {series: values}) in time order, rows with
        `since_s <= time <= until_s`. Only those rows are copied: a narrow window of a long
        recording costs what the window holds."""
        names = self.series if series is None else tuple(series)
        with self._lock:
            first = 0 if since_s is None else self._position(since_s, "left")
            stop = self._count if until_s is None else self._position(until_s, "right")
            stop = max(first, stop)
            start = (self._next - self._count) % self.capacity
            order = (start + np.arange(first, stop)) % self.capacity
            times = self._times[order]
            values = {name: self._values[self._column[name], order] for name in names
                      if name in self._column}
        return times, values

    def time_span(self) -> tuple[float, float] | None:
        """(oldest, newest) sample time, or None while empty."""
        with self._lock:
            if self._count == 0:
                return None
            start = (self._next - self._count) % self.capacity
            return (float(self._times[start]),
                    float(self._times[(self._next - 1) % self.capacity]))

    def latest(self, name: str) -> float | None:
        """The newest value of a series, or None when it is missing (NaN) or empty."""
        with self._lock:
            if self._count == 0 or name not in self._column:
                return None
            value = float(self._values[self._column[name], (self._next - 1) % self.capacity])
        return None if np.isnan(value) else value
