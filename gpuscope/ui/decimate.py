"""Min/max ("peak") decimation of time series to what a plot can show: about two points per
pixel column.

Pure numpy, O(n) per call, no Python loop over samples (only over the few series of a block).
A time window [t_start, t_end] is cut into `columns` equal time columns; each column keeps the
input samples holding its minimum and its maximum, in time order, so a one-sample spike stays
visible. Missing samples (NaN) stay gaps: wherever the input has a NaN between two kept
points, the output has that NaN sample between them, so a line drawn with `connect="finite"`
breaks there; a NaN before the first or after the last kept point is kept too, so newer
samples can be appended to an output without joining across a gap. Every output point
(time, value) is an input point.

Several series that share one time axis (all the metrics of one device ring) are decimated
in one call (`decimate_block`), so the column search and the numpy call overhead are paid
once per device, not once per series.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def column_edges(t_start: float, t_end: float, columns: int) -> FloatArray:
    """The `columns - 1` inner boundaries of the time columns: column j holds the samples with
    edge[j-1] <= t < edge[j] (the first column starts at t_start, the last ends at t_end,
    both included)."""
    if columns < 1:
        raise ValueError("columns must be at least 1")
    return t_start + (t_end - t_start) * (np.arange(1, columns, dtype=np.float64) / columns)


def decimate(times: FloatArray, values: FloatArray, t_start: float, t_end: float,
             columns: int, *, edges: bool = True) -> tuple[FloatArray, FloatArray]:
    """One series: (times, values) of at most about 2 * `columns` points of `values` within
    [t_start, t_end] (plus, with `edges`, the nearest sample outside each end, so a line
    reaches the plot's edges), and NaN samples where the input has gaps. `times` must be
    sorted ascending."""
    return decimate_block(times, np.asarray(values, dtype=np.float64)[np.newaxis, :],
                          t_start, t_end, columns, edges=edges)[0]


def decimate_block(times: FloatArray, values: FloatArray, t_start: float, t_end: float,
                   columns: int, *, edges: bool = True) -> list[tuple[FloatArray, FloatArray]]:
    """`decimate` for every row of `values` (shape (series, samples)), sharing `times`."""
    if columns < 1:
        raise ValueError("columns must be at least 1")
    times = np.asarray(times, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != len(times):
        raise ValueError("values must have shape (series, len(times))")
    rows = values.shape[0]
    first = int(np.searchsorted(times, t_start, side="left"))
    stop = int(np.searchsorted(times, t_end, side="right"))
    lo_edge = first - 1 if edges and first > 0 else None
    hi_edge = stop if edges and stop < len(times) else None
    count = stop - first
    if count <= 0 or t_end <= t_start:
        index = np.array([i for i in (lo_edge, hi_edge) if i is not None], dtype=np.intp)
        return [(times[index], values[row, index]) for row in range(rows)]

    if count <= 2 * columns:
        # Already no more than a screen can show: every sample, gaps and all.
        ext_first = first if lo_edge is None else lo_edge
        ext_stop = stop if hi_edge is None else hi_edge + 1
        return [(times[ext_first:ext_stop].copy(), values[row, ext_first:ext_stop].copy())
                for row in range(rows)]

    window = values[:, first:stop]
    kept = _column_extremes(times[first:stop], window, t_start, t_end, columns)
    ext_first = first if lo_edge is None else lo_edge
    ext_stop = stop if hi_edge is None else hi_edge + 1
    missing = np.isnan(values[:, ext_first:ext_stop])
    missing_rows: npt.NDArray[np.bool_] = np.asarray(missing.any(axis=1))
    results: list[tuple[FloatArray, FloatArray]] = []
    for row in range(rows):
        index = kept[row]
        index = index[index >= 0] + first
        if lo_edge is not None:
            index = np.concatenate(([lo_edge], index))
        if hi_edge is not None:
            index = np.concatenate((index, [hi_edge]))
        if missing_rows[row]:
            index = _with_gaps(np.flatnonzero(missing[row]) + ext_first, index)
        results.append((times[index], values[row, index]))
    return results


def _column_extremes(times: FloatArray, window: FloatArray, t_start: float, t_end: float,
                     columns: int) -> IntArray:
    """Per row, the window-relative indices of each column's minimum and maximum in time
    order (-1 where a column has no finite sample or the two are the same sample), shape
    (rows, 2 * non-empty columns)."""
    rows, count = window.shape
    bounds = np.searchsorted(times, column_edges(t_start, t_end, columns), side="left")
    starts = np.concatenate(([0], bounds)).astype(np.intp)
    lengths = np.diff(np.append(starts, count))
    nonempty = lengths > 0
    starts = starts[nonempty]
    lengths = lengths[nonempty]
    ncols = len(starts)
    with np.errstate(invalid="ignore"):
        # fmin/fmax skip NaN; a column of only NaN gives NaN, which equals nothing below.
        col_min = np.fmin.reduceat(window, starts, axis=1)
        col_max = np.fmax.reduceat(window, starts, axis=1)
    # Where each extreme sits: the first sample equal to it. `(n - index) * match`, reduced
    # by max per column, is n minus the first matching index: two passes, no sort.
    countdown = (count - np.arange(count)).astype(np.int32 if count < 2**31 else np.int64)
    arg_min = count - np.maximum.reduceat(
        (window == np.repeat(col_min, lengths, axis=1)) * countdown, starts, axis=1)
    arg_max = count - np.maximum.reduceat(
        (window == np.repeat(col_max, lengths, axis=1)) * countdown, starts, axis=1)
    earlier = np.minimum(arg_min, arg_max)
    later = np.maximum(arg_min, arg_max)
    later[later == earlier] = -1  # a flat column: one point is enough
    earlier[np.isnan(col_min)] = -1
    later[np.isnan(col_min)] = -1
    kept = np.empty((rows, 2 * ncols), dtype=np.intp)
    kept[:, 0::2] = earlier
    kept[:, 1::2] = later
    return kept


def _with_gaps(nan_index: IntArray, index: IntArray) -> IntArray:
    """`index` (increasing) with, between two kept samples that have a NaN sample between
    them, the index of the first such NaN (`nan_index`: the NaN samples, increasing); and a
    NaN before the first and after the last kept sample when there is one, so that points
    appended after the output (newer samples) never join across a gap."""
    if len(nan_index) == 0:
        return index
    if len(index) == 0:
        return nan_index[:1]
    if nan_index[0] < index[0]:
        index = np.concatenate((nan_index[nan_index < index[0]][-1:], index))
    if nan_index[-1] > index[-1]:
        index = np.concatenate((index, nan_index[nan_index > index[-1]][:1]))
    if len(index) < 2:
        return index
    # The first NaN at or after each kept sample; a gap follows kept[i] when that NaN lies
    # before kept[i + 1].
    next_nan_pos = np.searchsorted(nan_index, index[:-1], side="left")
    has_next = next_nan_pos < len(nan_index)
    next_nan = np.where(has_next, nan_index[np.minimum(next_nan_pos, len(nan_index) - 1)], -1)
    gap = has_next & (next_nan < index[1:]) & (next_nan > index[:-1])
    if not gap.any():
        return index
    merged = np.concatenate((index, next_nan[gap]))
    merged.sort(kind="stable")
    return merged
