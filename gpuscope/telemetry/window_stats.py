"""Statistics of telemetry over a time window: the newest value, minimum, mean and maximum of
each series, NaN (a missing sample) ignored.

One function, `window_stats`, for every place that sums a window up: the Telemetry page's
legends (live and over a browsed range), its hover readout (`value_near`, the sample under
the mouse), the share report and the benchmark summary. A recording's min/max pyramid
answers the same question from its blocks (`MinMaxPyramid.stats`) with the same type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class WindowStats:
    """One series over a window; None where the window holds no number. `current` is the
    newest number ("now" while following live, "last" over a range in the past)."""

    current: float | None
    minimum: float | None
    mean: float | None
    maximum: float | None

    def scaled(self, factor: float) -> WindowStats:
        """The same statistics in other units (stored bytes -> shown GiB)."""
        if factor == 1.0:
            return self

        def times(value: float | None) -> float | None:
            return None if value is None else value * factor
        return WindowStats(times(self.current), times(self.minimum), times(self.mean),
                           times(self.maximum))


NO_STATS = WindowStats(None, None, None, None)


def row_means(block: FloatArray) -> tuple[float | None, ...]:
    """The mean of each row of `block` (series, samples), NaN ignored; None for a row
    without a number."""
    finite = ~np.isnan(block)
    counts = finite.sum(axis=1)
    sums = np.where(finite, block, 0.0).sum(axis=1)
    return tuple(float(sums[i] / counts[i]) if counts[i] else None
                 for i in range(block.shape[0]))


def window_stats(times: FloatArray, block: FloatArray, start_s: float | None = None,
                 end_s: float | None = None) -> tuple[WindowStats, ...]:
    """Per row of `block` (shape (series, samples), sharing sorted `times`): the newest
    number, minimum, mean and maximum of the samples with start_s <= time <= end_s (an
    end left None is open)."""
    block = np.asarray(block, dtype=np.float64)
    first = 0 if start_s is None else int(np.searchsorted(times, start_s, side="left"))
    stop = len(times) if end_s is None else int(np.searchsorted(times, end_s, side="right"))
    inside = block[:, first:stop]
    means = row_means(inside)
    out: list[WindowStats] = []
    for row in range(inside.shape[0]):
        finite = inside[row][~np.isnan(inside[row])]
        if len(finite) == 0:
            out.append(NO_STATS)
            continue
        out.append(WindowStats(float(finite[-1]), float(finite.min()), means[row],
                               float(finite.max())))
    return tuple(out)


def value_near(times: FloatArray, values: FloatArray, when_s: float,
               tolerance_s: float) -> float | None:
    """The sample nearest `when_s` when it lies within `tolerance_s` and is a number."""
    if len(times) == 0:
        return None
    nearest = int(np.argmin(np.abs(times - when_s)))
    value = float(values[nearest])
    if abs(float(times[nearest]) - when_s) > tolerance_s or not math.isfinite(value):
        return None
    return value
