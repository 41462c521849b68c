"""Min/max decimation (gpuscope.telemetry.decimate): properties over arbitrary series, with gaps."""

from __future__ import annotations

import functools
import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.telemetry.decimate import (
    MinMaxPyramid,
    bin_columns,
    column_edges,
    decimate,
    decimate_block,
)

FloatArray = npt.NDArray[np.float64]

values_st = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.just(math.nan))


@st.composite
def series(draw: st.DrawFn, strictly_increasing: bool = False,
           max_size: int = 300) -> tuple[FloatArray, FloatArray]:
    n = draw(st.integers(0, max_size))
    low = 1e-3 if strictly_increasing else 0.0
    steps = draw(st.lists(st.floats(low, 10.0), min_size=n, max_size=n))
    times = 1000.0 + np.cumsum(np.asarray(steps, dtype=np.float64))
    # Runs of NaN (gaps) are more telling than scattered ones: draw some of both.
    values = np.asarray(draw(st.lists(values_st, min_size=n, max_size=n)), dtype=np.float64)
    if n and draw(st.booleans()):
        start = draw(st.integers(0, n - 1))
        values[start:start + draw(st.integers(1, 20))] = np.nan
    return times, values


@st.composite
def case(draw: st.DrawFn, strictly_increasing: bool = False
         ) -> tuple[FloatArray, FloatArray, float, float, int]:
    times, values = draw(series(strictly_increasing))
    columns = draw(st.integers(1, 40))
    if len(times):
        span = float(times[-1] - times[0]) + 1.0
        t_start = float(times[0]) + draw(st.floats(-0.2, 0.8)) * span
        t_end = t_start + draw(st.floats(0.01, 1.2)) * span
    else:
        t_start, t_end = 0.0, 10.0
    return times, values, t_start, t_end, columns


def input_points(times: FloatArray, values: FloatArray) -> set[tuple[float, float | None]]:
    return {(float(t), None if math.isnan(v) else float(v)) for t, v in zip(times, values,
                                                                            strict=True)}


@settings(max_examples=300, deadline=None)
@given(case())
def test_every_output_point_is_an_input_point_in_time_order(
        data: tuple[FloatArray, FloatArray, float, float, int]) -> None:
    times, values, t_start, t_end, columns = data
    x, y = decimate(times, values, t_start, t_end, columns)
    assert len(x) == len(y)
    known = input_points(times, values)
    for t, v in zip(x, y, strict=True):
        assert (float(t), None if math.isnan(v) else float(v)) in known
    assert np.all(np.diff(x) >= 0)


@settings(max_examples=300, deadline=None)
@given(case())
def test_output_is_bounded_by_about_two_points_per_column(
        data: tuple[FloatArray, FloatArray, float, float, int]) -> None:
    times, values, t_start, t_end, columns = data
    _, y = decimate(times, values, t_start, t_end, columns)
    finite = int(np.isfinite(y).sum())
    assert finite <= 2 * columns + 2  # two per column, plus a sample past each edge
    assert len(y) <= 4 * columns + 5  # and at most one gap marker between two of those


@settings(max_examples=300, deadline=None)
@given(case())
def test_each_columns_min_and_max_survive(
        data: tuple[FloatArray, FloatArray, float, float, int]) -> None:
    times, values, t_start, t_end, columns = data
    x, y = decimate(times, values, t_start, t_end, columns)
    first = int(np.searchsorted(times, t_start, side="left"))
    stop = int(np.searchsorted(times, t_end, side="right"))
    if stop <= first or t_end <= t_start:
        return
    edges = column_edges(t_start, t_end, columns)
    column_in = np.searchsorted(edges, times[first:stop], side="right")
    column_out = np.searchsorted(edges, x, side="right")
    inside = (x >= t_start) & (x <= t_end)
    for column in np.unique(column_in):
        chunk = values[first:stop][column_in == column]
        chunk = chunk[np.isfinite(chunk)]
        if not len(chunk):
            continue
        shown = y[inside & (column_out == column)]
        assert chunk.min() in shown and chunk.max() in shown


@settings(max_examples=300, deadline=None)
@given(case(strictly_increasing=True))
def test_gaps_stay_gaps(data: tuple[FloatArray, FloatArray, float, float, int]) -> None:
    times, values, t_start, t_end, columns = data
    x, y = decimate(times, values, t_start, t_end, columns)
    assert_no_line_across_a_gap(times, values, x, y)


@settings(max_examples=200, deadline=None)
@given(case(strictly_increasing=True), st.floats(0.0, 1.0))
def test_newer_samples_appended_to_an_output_never_join_across_a_gap(
        data: tuple[FloatArray, FloatArray, float, float, int], cut: float) -> None:
    """The page appends the samples newer than its last full decimation to it, raw."""
    times, values, _, _, columns = data
    if len(times) < 2:
        return
    split = max(1, int(cut * len(times)))
    x, y = decimate(times[:split], values[:split], float(times[0]) - 1.0,
                    float(times[split - 1]), columns)
    joined_x = np.concatenate((x, times[split:]))
    joined_y = np.concatenate((y, values[split:]))
    assert_no_line_across_a_gap(times, values, joined_x, joined_y)


def assert_no_line_across_a_gap(times: FloatArray, values: FloatArray, x: FloatArray,
                                y: FloatArray) -> None:
    """Between two consecutive finite output points (a line is drawn), the input has no
    NaN."""
    index = np.searchsorted(times, x)
    assert np.array_equal(times[index], x)
    for i in range(len(x) - 1):
        if np.isfinite(y[i]) and np.isfinite(y[i + 1]):
            between = values[index[i]:index[i + 1] + 1]
            assert not np.isnan(between).any(), (
                f"a line joins t={x[i]} and t={x[i + 1]} across a missing sample")


def test_a_one_sample_spike_in_a_long_series_stays_visible() -> None:
    times = np.arange(100_000, dtype=np.float64) * 0.1
    values = np.full(len(times), 40.0)
    values[73_210] = 95.0
    x, y = decimate(times, values, 0.0, float(times[-1]), 300)
    assert 95.0 in y and float(times[73_210]) in x
    assert len(x) <= 2 * 300 + 2


def test_constant_input_gives_one_point_per_column() -> None:
    times = np.arange(10_000, dtype=np.float64)
    values = np.full(len(times), 7.0)
    x, y = decimate(times, values, 0.0, 9_999.0, 50)
    assert np.all(y == 7.0)
    assert len(x) <= 50 + 2
    assert x[0] == 0.0 and x[-1] >= 9_800.0


def test_empty_input_and_empty_window() -> None:
    empty = np.empty(0)
    x, y = decimate(empty, empty, 0.0, 10.0, 20)
    assert len(x) == 0 and len(y) == 0
    times = np.arange(10, dtype=np.float64)
    x, y = decimate(times, times * 2, 100.0, 200.0, 20)  # window after every sample
    assert list(x) == [9.0] and list(y) == [18.0]  # only the left edge sample


def test_a_long_gap_is_a_gap_in_the_output() -> None:
    times = np.arange(50_000, dtype=np.float64)
    values = np.sin(times / 500.0)
    values[20_000:30_000] = np.nan
    x, y = decimate(times, values, 0.0, 49_999.0, 200)
    finite = np.isfinite(y)
    assert not finite.all()
    left = x[finite & (x < 20_000)].max()
    right = x[finite & (x >= 30_000)].min()
    gap = (x > left) & (x < right)
    assert gap.any() and np.isnan(y[gap]).all()
    assert left >= 19_500 and right <= 30_500  # the gap is not widened past a column


def test_block_rows_match_one_row_at_a_time() -> None:
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.uniform(0.05, 0.15, 20_000))
    block = np.cumsum(rng.standard_normal((4, len(times))), axis=1)
    block[1, 5_000:5_300] = np.nan
    block[3, ::97] = np.nan
    results = decimate_block(times, block, float(times[100]), float(times[-200]), 333)
    for row in range(4):
        x, y = decimate(times, block[row], float(times[100]), float(times[-200]), 333)
        assert np.array_equal(results[row][0], x)
        assert np.array_equal(results[row][1], y, equal_nan=True)


def test_rejects_bad_arguments() -> None:
    times = np.arange(5, dtype=np.float64)
    with pytest.raises(ValueError):
        decimate(times, times, 0.0, 5.0, 0)
    with pytest.raises(ValueError):
        decimate_block(times, np.zeros((2, 4)), 0.0, 5.0, 10)
    with pytest.raises(ValueError):
        column_edges(0.0, 1.0, 0)


# ----------------------------------------------------------------------------- column bins


@settings(max_examples=200, deadline=None)
@given(case(), st.sampled_from(["mean", "max", "or"]))
def test_bins_reduce_each_column_of_the_range(
        data: tuple[FloatArray, FloatArray, float, float, int], how: str) -> None:
    times, values, t_start, t_end, columns = data
    if how == "or":
        values = np.where(np.isnan(values), np.nan, np.abs(np.round(values)) % 64)
    out = bin_columns(times, values[np.newaxis, :], t_start, t_end, columns, how)[0]
    assert out.shape == (columns,)
    inside = (times >= t_start) & (times <= t_end)
    edges = column_edges(t_start, t_end, columns)
    column_of = np.searchsorted(edges, times, side="right")
    for column in range(columns):
        chunk = values[inside & (column_of == column)]
        chunk = chunk[~np.isnan(chunk)]
        if t_end <= t_start or len(chunk) == 0:
            assert math.isnan(out[column])
        elif how == "mean":
            assert out[column] == pytest.approx(chunk.mean(), rel=1e-9, abs=1e-6)
        elif how == "max":
            assert out[column] == chunk.max()
        else:
            assert out[column] == float(np.bitwise_or.reduce(chunk.astype(np.int64)))


# ----------------------------------------------------------------------------- the pyramid


def long_block(n: int = 200_000, seed: int = 5) -> tuple[FloatArray, FloatArray]:
    rng = np.random.default_rng(seed)
    times = 1.8e9 + np.arange(n, dtype=np.float64) * 0.1
    block = np.cumsum(rng.standard_normal((3, n)), axis=1)
    block[1, 50_000:60_000] = np.nan  # a long gap
    block[2, ::777] = np.nan  # scattered missing samples
    block[0, int(n * 0.62)] = 1e4  # a one-sample spike
    return times, block


def test_the_pyramid_keeps_extremes_spikes_and_gaps_of_a_wide_range() -> None:
    times, block = long_block()
    pyramid = MinMaxPyramid(times, block)
    assert [level.block for level in pyramid.levels][:3] == [16, 128, 1024]
    assert pyramid.nbytes < block.nbytes  # a summary, not a copy
    start, end = float(times[0]), float(times[-1])
    results = pyramid.decimate(start, end, 500)
    assert results is not None
    exact = decimate_block(times, block, start, end, 500)
    known = [dict(zip(times.tolist(), block[row].tolist(), strict=True)) for row in range(3)]
    for row, (x, y) in enumerate(results):
        assert np.all(np.diff(x) >= 0)
        finite = np.isfinite(y)
        assert finite.sum() <= 2 * 500 + 2
        for t, v in zip(x[finite], y[finite], strict=True):
            assert known[row][t] == v  # every point is a sample
        assert np.nanmax(y) == np.nanmax(block[row]) == np.nanmax(exact[row][1])
        assert np.nanmin(y) == np.nanmin(block[row])
    assert 1e4 in results[0][1]
    x, y = results[1]
    finite = np.isfinite(y)
    left = x[finite & (x < times[50_000])].max()
    right = x[finite & (x > times[59_999])].min()
    between = (x > left) & (x < right)
    assert between.any() and np.isnan(y[between]).all()  # the gap is not drawn over


def test_the_pyramid_leaves_narrow_ranges_to_the_samples() -> None:
    times, block = long_block(20_000)
    pyramid = MinMaxPyramid(times, block)
    assert pyramid.decimate(float(times[100]), float(times[600]), 400) is None
    assert MinMaxPyramid(times[:20], block[:, :20]).levels == []


@functools.cache
def long_pyramid() -> tuple[FloatArray, FloatArray, MinMaxPyramid]:
    times, block = long_block()
    return times, block, MinMaxPyramid(times, block)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 150_000), st.integers(2_000, 50_000), st.integers(50, 900))
def test_pyramid_ranges_match_the_samples(first: int, length: int, columns: int) -> None:
    times, block, pyramid = long_pyramid()
    stop = min(len(times) - 1, first + length)
    start_s, end_s = float(times[first]), float(times[stop])
    results = pyramid.decimate(start_s, end_s, columns)
    stats = pyramid.stats(start_s, end_s)
    assert stats is not None
    level = pyramid.levels[0]
    # Stats are over whole finest blocks that start in the range.
    lo = int(np.searchsorted(level.starts, start_s)) * level.block
    hi = min(len(times), (int(np.searchsorted(level.starts, end_s, side="right"))
                          * level.block))
    for row in range(3):
        window = block[row, lo:hi]
        finite = window[~np.isnan(window)]
        if len(finite) == 0:  # inside the long gap
            assert stats[row] == type(stats[row])(None, None, None, None)
            continue
        assert stats[row].minimum == finite.min() and stats[row].maximum == finite.max()
        assert stats[row].mean == pytest.approx(finite.mean(), rel=1e-9, abs=1e-9)
        assert stats[row].current == finite[-1]
        if results is not None:
            # The curve's extremes are exactly those of the blocks (of the level it was drawn
            # from) that start in the range.
            _, y = results[row]
            # Two extremes a block at two blocks a column, and a column's first and last
            # missing sample.
            assert np.isfinite(y).sum() <= 4 * columns + 4
            assert np.isnan(y).sum() <= 2 * columns + 2
            used = pyramid._level_for(start_s, end_s, columns)
            assert used is not None
            size, first_block, stop_block = used[0].block, used[1], used[2]
            covered = block[row, first_block * size:stop_block * size]
            assert np.nanmax(y) == np.nanmax(covered)
            assert np.nanmin(y) == np.nanmin(covered)
