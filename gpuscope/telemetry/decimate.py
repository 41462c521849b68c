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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gpuscope.metrics import ThrottleReason
from gpuscope.telemetry.window_stats import NO_STATS, WindowStats

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
    count = window.shape[1]
    starts, lengths = _segments(times, column_edges(t_start, t_end, columns), count)
    col_min, _, arg_min, arg_max = _segment_extremes(window, starts, lengths)
    earlier = np.minimum(arg_min, arg_max)
    later = np.maximum(arg_min, arg_max)
    later[later == earlier] = -1  # a flat column: one point is enough
    earlier[np.isnan(col_min)] = -1
    later[np.isnan(col_min)] = -1
    kept = np.empty((window.shape[0], 2 * len(starts)), dtype=np.intp)
    kept[:, 0::2] = earlier
    kept[:, 1::2] = later
    return kept


def _segments(times: FloatArray, edges: FloatArray, count: int) -> tuple[IntArray, IntArray]:
    """The start and length of each non-empty run of `times` between consecutive `edges`."""
    bounds = np.searchsorted(times, edges, side="left")
    starts = np.concatenate(([0], bounds)).astype(np.intp)
    lengths = np.diff(np.append(starts, count))
    nonempty = lengths > 0
    return starts[nonempty], lengths[nonempty]


# Segments up to this long are reduced by gathering them into a padded (rows, segments,
# longest) array: one vectorised pass, where reduceat pays ~20 ns per row and segment.
_PADDED_MAX_LENGTH = 48


def _padded_extreme(window: FloatArray, starts: IntArray, lengths: IntArray,
                    maximum: bool) -> tuple[FloatArray, IntArray]:
    """The minimum (or maximum) per row and segment, NaN for a segment without a number,
    and the window index of its first occurrence, for short segments."""
    longest = int(lengths.max())
    index = starts[:, np.newaxis] + np.minimum(np.arange(longest), lengths[:, np.newaxis] - 1)
    gathered = window[:, index]  # (rows, segments, longest); padding repeats a segment's last
    fill = -np.inf if maximum else np.inf
    filled = np.where(np.isnan(gathered), fill, gathered)
    position = (filled.argmax(axis=2) if maximum else filled.argmin(axis=2))
    extreme = np.take_along_axis(filled, position[:, :, np.newaxis], axis=2)[:, :, 0]
    extreme[extreme == fill] = np.nan
    where = index[np.arange(len(starts))[np.newaxis, :], position]
    return extreme, where.astype(np.intp)


def _two_points(t_lo: FloatArray, v_lo: FloatArray, t_hi: FloatArray, v_hi: FloatArray,
                empty: npt.NDArray[np.bool_]) -> list[tuple[FloatArray, FloatArray]]:
    """Per row, each column's minimum and maximum points in time order (one where they are
    the same sample, none in an empty column): columns are already in time order."""
    flat_t, flat_v, flat_kept = _two_point_arrays(t_lo, v_lo, t_hi, v_hi, empty)
    return [(flat_t[row][flat_kept[row]], flat_v[row][flat_kept[row]])
            for row in range(flat_t.shape[0])]


def _two_point_arrays(t_lo: FloatArray, v_lo: FloatArray, t_hi: FloatArray, v_hi: FloatArray,
                      empty: npt.NDArray[np.bool_],
                      ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """`_two_points` as (times, values, kept), each shape (rows, 2 * columns)."""
    first_is_lo = t_lo <= t_hi
    rows, columns = t_lo.shape
    point_t = np.empty((rows, columns, 2))
    point_v = np.empty((rows, columns, 2))
    point_t[:, :, 0] = np.where(first_is_lo, t_lo, t_hi)
    point_v[:, :, 0] = np.where(first_is_lo, v_lo, v_hi)
    point_t[:, :, 1] = np.where(first_is_lo, t_hi, t_lo)
    point_v[:, :, 1] = np.where(first_is_lo, v_hi, v_lo)
    kept = np.empty((rows, columns, 2), dtype=bool)
    kept[:, :, 0] = ~empty
    kept[:, :, 1] = ~empty & (t_lo != t_hi)
    return point_t.reshape(rows, -1), point_v.reshape(rows, -1), kept.reshape(rows, -1)


def _segment_extremes(window: FloatArray, starts: IntArray, lengths: IntArray,
                      ) -> tuple[FloatArray, FloatArray, IntArray, IntArray]:
    """Per row and segment (non-empty runs of columns of `window`): the minimum, the maximum
    (NaN for a segment without a number), and the window indices of their first
    occurrences."""
    if len(lengths) and int(lengths.max()) <= _PADDED_MAX_LENGTH:
        low, arg_low = _padded_extreme(window, starts, lengths, maximum=False)
        high, arg_high = _padded_extreme(window, starts, lengths, maximum=True)
        return low, high, arg_low, arg_high
    count = window.shape[1]
    with np.errstate(invalid="ignore"):
        # fmin/fmax skip NaN; a segment of only NaN gives NaN, which equals nothing below.
        seg_min = np.fmin.reduceat(window, starts, axis=1)
        seg_max = np.fmax.reduceat(window, starts, axis=1)
    # Where each extreme sits: the first sample equal to it. `(n - index) * match`, reduced
    # by max per segment, is n minus the first matching index: two passes, no sort.
    countdown = (count - np.arange(count)).astype(np.int32 if count < 2**31 else np.int64)
    arg_min = count - np.maximum.reduceat(
        (window == np.repeat(seg_min, lengths, axis=1)) * countdown, starts, axis=1)
    arg_max = count - np.maximum.reduceat(
        (window == np.repeat(seg_max, lengths, axis=1)) * countdown, starts, axis=1)
    return seg_min, seg_max, arg_min.astype(np.intp), arg_max.astype(np.intp)


def _segment_extreme(window: FloatArray, starts: IntArray, lengths: IntArray,
                     reduce: np.ufunc) -> tuple[FloatArray, IntArray]:
    """`_segment_extremes` for one extreme (`np.fmin` or `np.fmax`): its value per row and
    segment, and the window index of its first occurrence."""
    if len(lengths) and int(lengths.max()) <= _PADDED_MAX_LENGTH:
        return _padded_extreme(window, starts, lengths, maximum=reduce is np.fmax)
    count = window.shape[1]
    with np.errstate(invalid="ignore"):
        extreme = reduce.reduceat(window, starts, axis=1)
    countdown = (count - np.arange(count)).astype(np.int32 if count < 2**31 else np.int64)
    where = count - np.maximum.reduceat(
        (window == np.repeat(extreme, lengths, axis=1)) * countdown, starts, axis=1)
    return extreme, where.astype(np.intp)


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


# ------------------------------------------------------------------------- column binning


def bin_columns(times: FloatArray, values: FloatArray, t_start: float, t_end: float,
                columns: int, how: str = "mean") -> FloatArray:
    """Every row of `values` (shape (series, samples), sharing sorted `times`) reduced to
    `columns` equal time columns over [t_start, t_end]: shape (series, columns), NaN where a
    column holds no number. `how`: "mean", "max", or "or" (the bitwise OR of flag values,
    such as ThrottleReason bits). For strips drawn one pixel column per column."""
    if columns < 1:
        raise ValueError("columns must be at least 1")
    if how not in ("mean", "max", "or"):
        raise ValueError(f"unknown reduction {how!r}")
    values = np.asarray(values, dtype=np.float64)
    rows = values.shape[0]
    out = np.full((rows, columns), np.nan)
    first = int(np.searchsorted(times, t_start, side="left"))
    stop = int(np.searchsorted(times, t_end, side="right"))
    if stop <= first or t_end <= t_start:
        return out
    window = values[:, first:stop]
    count = stop - first
    bounds = np.searchsorted(times[first:stop], column_edges(t_start, t_end, columns),
                             side="left")
    all_starts = np.concatenate(([0], bounds)).astype(np.intp)
    lengths = np.diff(np.append(all_starts, count))
    nonempty = np.flatnonzero(lengths > 0)
    starts = all_starts[nonempty]
    finite = ~np.isnan(window)
    counts = np.add.reduceat(finite, starts, axis=1)
    if how == "mean":
        sums = np.add.reduceat(np.where(finite, window, 0.0), starts, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            reduced = sums / counts
    elif how == "max":
        with np.errstate(invalid="ignore"):
            reduced = np.fmax.reduceat(window, starts, axis=1)
    else:
        flags = np.where(finite, window, 0.0).astype(np.int64)
        reduced = np.bitwise_or.reduceat(flags, starts, axis=1).astype(np.float64)
    reduced[counts == 0] = np.nan
    out[:, nonempty] = reduced
    return out


# ------------------------------------------------------------------------- the pyramid

PYRAMID_FIRST_BLOCK = 16  # samples per block of the finest level
PYRAMID_FACTOR = 8  # blocks of one level per block of the next
PYRAMID_MIN_ROWS = 20_000  # below this, decimating the samples themselves is fast enough


@dataclass(frozen=True, slots=True)
class Level:
    """Per block of `block` samples: its start time (shared by every series), and per
    series its minimum and maximum with their times, the sum and count of its numbers (for
    means), and the times of its first and last missing sample (NaN where none)."""

    block: int
    starts: FloatArray  # (blocks,)
    vmin: FloatArray  # (series, blocks)
    tmin: FloatArray
    vmax: FloatArray
    tmax: FloatArray
    total: FloatArray
    count: FloatArray
    gap_first: FloatArray
    gap_last: FloatArray
    last: FloatArray | None = None  # the finest level: each block's last number
    # For the flag series (throttle reasons) at the rows `flag_rows`, in that order: per
    # mask of FLAG_MASKS and block, how many samples have a bit of the mask, shape
    # (len(flag_rows), masks, blocks). None: not counted.
    flag_counts: FloatArray | None = None
    flag_rows: tuple[int, ...] = ()

    def rows(self, pick: Sequence[int]) -> Level:
        """The same level for the series `pick` only (in that order)."""
        index = np.asarray(pick, dtype=np.intp)
        flags = None
        flag_rows: tuple[int, ...] = ()
        if self.flag_counts is not None:
            kept = [(new, self.flag_rows.index(old)) for new, old in enumerate(pick)
                    if old in self.flag_rows]
            flag_rows = tuple(new for new, _ in kept)
            flags = self.flag_counts[[at for _, at in kept]]
        return Level(self.block, self.starts, self.vmin[index], self.tmin[index],
                     self.vmax[index], self.tmax[index], self.total[index], self.count[index],
                     self.gap_first[index], self.gap_last[index],
                     None if self.last is None else self.last[index], flags, flag_rows)

    @property
    def nbytes(self) -> int:
        arrays = (self.starts, self.vmin, self.tmin, self.vmax, self.tmax, self.total,
                  self.count, self.gap_first, self.gap_last,
                  *(() if self.last is None else (self.last,)),
                  *(() if self.flag_counts is None else (self.flag_counts,)))
        return int(sum(a.nbytes for a in arrays))


# The masks whose samples a level of flag series counts: each throttle reason alone, then
# any reason that slows the GPU (all but idle).
FLAG_MASKS: tuple[int, ...] = (*(int(r) for r in ThrottleReason),
                               sum(int(r) for r in ThrottleReason if r is not ThrottleReason.IDLE))


def flag_counts(values: FloatArray, starts: IntArray) -> FloatArray:
    """Per row of flag values (NaN: no sample) and block starting at `starts`: how many
    samples have a bit of each of FLAG_MASKS, shape (rows, masks, blocks)."""
    bits = np.where(np.isnan(values), 0.0, values).astype(np.int64)
    return np.stack([np.add.reduceat((bits & mask) != 0, starts, axis=1).astype(np.float64)
                     for mask in FLAG_MASKS], axis=1)


class MinMaxPyramid:
    """Coarser and coarser min/max summaries of a block of series that no longer changes (an
    opened recording), so that a wide time range is decimated from a few points per pixel
    column instead of from every sample: zooming out over a day of samples costs what a few
    thousand blocks cost.

    Level k holds blocks of 16 * 8**k samples. `decimate` uses the coarsest level that
    still has at least `min_blocks_per_column` blocks per pixel column, and answers None
    when even the finest has fewer (decimate the samples then: they are few). Its output
    follows `decimate`'s contract except at block granularity: every point is an input
    point, each column's extremes are kept (a block that straddles a column edge counts in
    the column of its start), and a column with missing samples holds NaN points at the
    first and the last of them, so lines break there (a gap narrower than a pixel column
    may be drawn over).

    Building it reads every sample once; do it off the GUI thread (the recording loader
    does)."""

    def __init__(self, times: FloatArray, values: FloatArray, *,
                 first_block: int = PYRAMID_FIRST_BLOCK, factor: int = PYRAMID_FACTOR,
                 min_blocks_per_column: float = 2.0) -> None:
        times = np.asarray(times, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 2 or values.shape[1] != len(times):
            raise ValueError("values must have shape (series, len(times))")
        if first_block < 2 or factor < 2:
            raise ValueError("blocks must hold at least two samples or blocks")
        self.series_count = values.shape[0]
        self.min_blocks_per_column = min_blocks_per_column
        self.levels: list[Level] = []
        if len(times) < 2 * first_block:
            return
        self._stack(first_level(times, values, first_block), factor)

    @classmethod
    def from_level(cls, level: Level, *, factor: int = PYRAMID_FACTOR,
                   min_blocks_per_column: float = 2.0) -> MinMaxPyramid:
        """A pyramid whose finest level is `level` (summaries read from a recording, not
        built from samples), with the coarser levels above it."""
        pyramid = cls(np.empty(0), np.empty((level.vmin.shape[0], 0)),
                      min_blocks_per_column=min_blocks_per_column)
        if len(level.starts):
            pyramid._stack(level, factor)
        return pyramid

    def _stack(self, level: Level, factor: int) -> None:
        self.levels.append(level)
        while len(level.starts) >= 2 * factor:
            level = _next_level(level, factor)
            self.levels.append(level)

    @property
    def nbytes(self) -> int:
        return sum(level.nbytes for level in self.levels)

    def _level_for(self, t_start: float, t_end: float, columns: int,
                   ) -> tuple[Level, int, int] | None:
        for level in reversed(self.levels):
            first = int(np.searchsorted(level.starts, t_start, side="left"))
            stop = int(np.searchsorted(level.starts, t_end, side="right"))
            if stop - first >= self.min_blocks_per_column * columns:
                return level, first, stop
        return None

    def decimate(self, t_start: float, t_end: float, columns: int,
                 rows: Sequence[int] | None = None, *, finest: bool = False,
                 ) -> list[tuple[FloatArray, FloatArray]] | None:
        """Per series (or per series of `rows`, in that order), (times, values) of about two
        points per column over [t_start, t_end]; None when no level is coarse enough to
        help. `finest`: from the finest level however few blocks it has there (coarser
        than the columns: a stand-in until the samples are read)."""
        if columns < 1:
            raise ValueError("columns must be at least 1")
        if t_end <= t_start:
            return None
        found = self._level_for(t_start, t_end, columns)
        if found is None and finest and self.levels:
            level = self.levels[0]
            found = (level, int(np.searchsorted(level.starts, t_start, side="left")),
                     int(np.searchsorted(level.starts, t_end, side="right")))
            if found[2] <= found[1]:
                return None
        if found is None:
            return None
        level, first, stop = found
        count = stop - first
        pick = (np.arange(self.series_count) if rows is None
                else np.asarray(rows, dtype=np.intp))
        col_min = level.vmin[pick, first:stop]
        col_max = level.vmax[pick, first:stop]
        if count <= 2 * columns:  # two blocks a column at most: each block's own extremes
            starts = np.arange(0, count, 2)  # the gaps of two blocks together, as a column
            t_lo = level.tmin[pick, first:stop]
            t_hi = level.tmax[pick, first:stop]
            empty = np.isnan(col_min)
        else:
            starts, lengths = _segments(level.starts[first:stop],
                                        column_edges(t_start, t_end, columns), count)
            col_min, arg_min = _segment_extreme(col_min, starts, lengths, np.fmin)
            col_max, arg_max = _segment_extreme(col_max, starts, lengths, np.fmax)
            empty = np.isnan(col_min)
            safe_min = np.where(empty, 0, arg_min) + first
            safe_max = np.where(empty, 0, arg_max) + first
            t_lo = level.tmin[pick[:, np.newaxis], safe_min]
            t_hi = level.tmax[pick[:, np.newaxis], safe_max]
        gaps = level.gap_first[pick, first:stop]
        gap_rows, gap_blocks = np.nonzero(~np.isnan(gaps))
        if not len(gap_rows):  # no missing sample in the range: two points a column
            return _two_points(t_lo, col_min, t_hi, col_max, empty)
        # Each column's first and last missing sample, NaN values so that lines break there,
        # go between the extremes: one sort of every row's points, keyed by row then time.
        point_t, point_v, kept = _two_point_arrays(t_lo, col_min, t_hi, col_max, empty)
        count_rows = point_t.shape[0]
        point_rows = np.broadcast_to(np.arange(count_rows)[:, np.newaxis], point_t.shape)
        # A column's first and last missing sample: two points at most, however many of
        # its blocks have gaps.
        gap_columns = np.searchsorted(starts, gap_blocks, side="right") - 1
        shape = (count_rows, len(starts))
        column_first = np.full(shape, np.nan)
        column_last = np.full(shape, np.nan)
        np.fmin.at(column_first, (gap_rows, gap_columns), gaps[gap_rows, gap_blocks])
        np.fmax.at(column_last, (gap_rows, gap_columns),
                   level.gap_last[pick[gap_rows], first + gap_blocks])
        gap_rows, gap_columns = np.nonzero(~np.isnan(column_first))
        gap_times = np.concatenate((column_first[gap_rows, gap_columns],
                                    column_last[gap_rows, gap_columns]))
        all_rows = np.concatenate((point_rows[kept], gap_rows, gap_rows))
        all_t = np.concatenate((point_t[kept], gap_times))
        all_v = np.concatenate((point_v[kept], np.full(len(gap_times), np.nan)))
        width = max(float(t_end - t_start), 1.0) * 4.0
        key = all_rows * width + (all_t - t_start)
        order = np.argsort(key, kind="stable")
        key, all_t, all_v = key[order], all_t[order], all_v[order]
        unique = np.concatenate(([True], np.diff(key) > 0))  # one gap point per time
        all_t, all_v, all_rows = all_t[unique], all_v[unique], all_rows[order][unique]
        bounds = np.cumsum(np.bincount(all_rows, minlength=count_rows))[:-1]
        return list(zip(np.split(all_t, bounds), np.split(all_v, bounds), strict=True))

    def binned(self, t_start: float, t_end: float, columns: int, rows: Sequence[int],
               how: str = "mean") -> FloatArray | None:
        """`bin_columns` of the series `rows` from the coarsest level with a block per column
        or more: shape (rows, columns), NaN where a column has no number; None when no level
        is fine enough (or, for "or", when the level holds no flag counts)."""
        if columns < 1 or t_end <= t_start:
            return None
        chosen = None
        for level in reversed(self.levels):
            first = int(np.searchsorted(level.starts, t_start, side="left"))
            stop = int(np.searchsorted(level.starts, t_end, side="right"))
            if stop - first >= columns:
                chosen = level, first, stop
                break
        if chosen is None:
            return None
        level, first, stop = chosen
        if how == "or" and (level.flag_counts is None
                            or any(r not in level.flag_rows for r in rows)):
            return None
        pick = np.asarray(rows, dtype=np.intp)
        bounds = np.searchsorted(level.starts[first:stop], column_edges(t_start, t_end, columns),
                                 side="left")
        all_starts = np.concatenate(([0], bounds)).astype(np.intp)
        lengths = np.diff(np.append(all_starts, stop - first))
        nonempty = np.flatnonzero(lengths > 0)
        starts = all_starts[nonempty]
        counts = np.add.reduceat(level.count[pick, first:stop], starts, axis=1)
        if how == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                reduced = np.add.reduceat(level.total[pick, first:stop], starts, axis=1) / counts
        elif how == "max":
            with np.errstate(invalid="ignore"):
                reduced = np.fmax.reduceat(level.vmax[pick, first:stop], starts, axis=1)
        elif how == "or":
            assert level.flag_counts is not None
            at = [level.flag_rows.index(r) for r in rows]
            present = np.add.reduceat(level.flag_counts[at][:, :, first:stop], starts,
                                      axis=2) > 0
            reduced = np.zeros((len(pick), len(starts)))
            for index, mask in enumerate(FLAG_MASKS[:-1]):
                reduced += np.where(present[:, index, :], float(mask), 0.0)
        else:
            raise ValueError(f"unknown reduction {how!r}")
        reduced[counts == 0] = np.nan
        out = np.full((len(pick), columns), np.nan)
        out[:, nonempty] = reduced
        return out

    def flag_shares(self, t_start: float, t_end: float, row: int,
                    ) -> tuple[int, dict[int, int]] | None:
        """Over the finest level's blocks starting in [t_start, t_end], a flag series'
        samples and, per mask of FLAG_MASKS, how many have a bit of it; None without flag
        counts."""
        if not self.levels or self.levels[0].flag_counts is None:
            return None
        level = self.levels[0]
        if row not in level.flag_rows or level.flag_counts is None:
            return None
        first = int(np.searchsorted(level.starts, t_start, side="left"))
        stop = int(np.searchsorted(level.starts, t_end, side="right"))
        total = int(level.count[row, first:stop].sum())
        sums = level.flag_counts[level.flag_rows.index(row), :, first:stop].sum(axis=1)
        return total, {mask: int(sums[i]) for i, mask in enumerate(FLAG_MASKS)}

    def stats(self, t_start: float, t_end: float) -> list[WindowStats] | None:
        """Per series, `window_stats` of the finest level's blocks that start in
        [t_start, t_end] (None when there is no level). Whole blocks of a coarser level
        stand for the fine blocks they hold: the same numbers from far fewer blocks."""
        if not self.levels or t_end < t_start:
            return None
        level = self.levels[0]
        first = int(np.searchsorted(level.starts, t_start, side="left"))
        stop = int(np.searchsorted(level.starts, t_end, side="right"))
        if stop <= first:
            return [NO_STATS] * self.series_count
        low = np.full(self.series_count, np.nan)
        high = np.full(self.series_count, np.nan)
        total = np.zeros(self.series_count)
        count = np.zeros(self.series_count)
        for piece, a, b in self._pieces(first, stop):
            if b <= a:
                continue
            with np.errstate(invalid="ignore"):
                low = np.fmin(low, np.fmin.reduce(piece.vmin[:, a:b], axis=1))
                high = np.fmax(high, np.fmax.reduce(piece.vmax[:, a:b], axis=1))
            total += piece.total[:, a:b].sum(axis=1)
            count += piece.count[:, a:b].sum(axis=1)
        lasts = self._lasts(first, stop)
        return [NO_STATS if count[row] == 0 else
                WindowStats(lasts[row], float(low[row]), float(total[row] / count[row]),
                            float(high[row]))
                for row in range(self.series_count)]

    def _pieces(self, first: int, stop: int) -> list[tuple[Level, int, int]]:
        """The fine blocks [first, stop) as (level, start, stop) pieces: fine blocks up to a
        boundary of a coarser level, its whole blocks, the fine blocks after."""
        fine = self.levels[0]
        for level in reversed(self.levels[1:]):
            per = level.block // fine.block  # fine blocks per block of this level
            a = -(-first // per) * per
            b = (stop // per) * per
            if b - a >= per and per * 4 <= stop - first:
                return [(fine, first, a), (level, a // per, b // per), (fine, b, stop)]
        return [(fine, first, stop)]

    def _lasts(self, first: int, stop: int) -> list[float | None]:
        """Per series, its last number in the fine blocks [first, stop)."""
        level = self.levels[0]
        if level.last is None:
            return [None] * self.series_count
        out: list[float | None] = []
        for row in range(self.series_count):
            look = max(first, stop - 64)
            has = np.flatnonzero(level.count[row, look:stop] > 0)
            if not len(has) and look > first:
                has = np.flatnonzero(level.count[row, first:look] > 0)
                look = first
            out.append(float(level.last[row, look + has[-1]]) if len(has) else None)
        return out


def first_level(times: FloatArray, values: FloatArray, block: int) -> Level:
    n = len(times)
    starts = np.arange(0, n, block, dtype=np.intp)
    lengths = np.diff(np.append(starts, n))
    vmin, vmax, arg_min, arg_max = _segment_extremes(values, starts, lengths)
    finite = ~np.isnan(values)
    count = np.add.reduceat(finite, starts, axis=1).astype(np.float64)
    total = np.add.reduceat(np.where(finite, values, 0.0), starts, axis=1)
    missing = ~finite
    countdown = (n - np.arange(n)).astype(np.int64)
    first_nan = n - np.maximum.reduceat(missing * countdown, starts, axis=1)
    last_nan = np.maximum.reduceat(missing * np.arange(1, n + 1), starts, axis=1) - 1
    has_nan = last_nan >= 0
    gap_first = np.where(has_nan, times[np.minimum(first_nan, n - 1)], np.nan)
    gap_last = np.where(has_nan, times[np.maximum(last_nan, 0)], np.nan)
    empty = np.isnan(vmin)
    tmin = np.where(empty, np.nan, times[np.minimum(arg_min, n - 1)])
    tmax = np.where(empty, np.nan, times[np.minimum(arg_max, n - 1)])
    # Each block's last number: its index is the largest (index + 1) * finite, less one.
    last_index = np.maximum.reduceat(finite * np.arange(1, n + 1), starts, axis=1) - 1
    rows = np.arange(values.shape[0])[:, np.newaxis]
    last = np.where(last_index >= 0, values[rows, np.maximum(last_index, 0)], np.nan)
    return Level(block, times[starts].copy(), vmin, tmin, vmax, tmax, total, count,
                  gap_first, gap_last, last)


def _next_level(level: Level, factor: int) -> Level:
    n = len(level.starts)
    starts = np.arange(0, n, factor, dtype=np.intp)
    lengths = np.diff(np.append(starts, n))
    vmin, _, arg_min, _ = _segment_extremes(level.vmin, starts, lengths)
    _, vmax, _, arg_max = _segment_extremes(level.vmax, starts, lengths)
    rows = np.arange(level.vmin.shape[0])[:, np.newaxis]
    empty = np.isnan(vmin)
    tmin = np.where(empty, np.nan, level.tmin[rows, np.minimum(arg_min, n - 1)])
    tmax = np.where(empty, np.nan, level.tmax[rows, np.minimum(arg_max, n - 1)])
    flags = (None if level.flag_counts is None
             else np.add.reduceat(level.flag_counts, starts, axis=2))
    return Level(level.block * factor, level.starts[starts].copy(), vmin, tmin, vmax, tmax,
                  np.add.reduceat(level.total, starts, axis=1),
                  np.add.reduceat(level.count, starts, axis=1),
                  np.fmin.reduceat(level.gap_first, starts, axis=1),
                  np.fmax.reduceat(level.gap_last, starts, axis=1), flag_counts=flags,
                  flag_rows=level.flag_rows)
