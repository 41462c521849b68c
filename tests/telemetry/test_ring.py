"""SeriesRing: bounded, ordered, NaN for missing, whole-row and many-row writes agree."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.telemetry.ring import SeriesRing

SERIES = ("gpu/a", "gpu/b", "gpu/c")

values = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, width=32))
rows = st.lists(st.fixed_dictionaries({}, optional={name: values for name in SERIES}),
                max_size=60)


def expected_column(appended: list[dict[str, float | None]], name: str) -> list[float]:
    out = []
    for row in appended:
        value = row.get(name)
        out.append(math.nan if value is None else float(value))
    return out


def same(a: np.ndarray, b: list[float]) -> bool:
    return bool(np.array_equal(a, np.asarray(b, dtype=np.float64), equal_nan=True))


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 20), appended=rows)
def test_capacity_is_never_exceeded_and_order_is_kept(
        capacity: int, appended: list[dict[str, float | None]]) -> None:
    ring = SeriesRing(SERIES, capacity)
    nbytes = ring.nbytes
    for t, row in enumerate(appended):
        ring.append(float(t), row)
        assert len(ring) <= capacity
    assert ring.nbytes == nbytes  # no growth
    kept = appended[-capacity:] if appended else []
    times, columns = ring.snapshot()
    assert len(ring) == len(kept) == len(times)
    assert list(times) == [float(t) for t in range(len(appended) - len(kept), len(appended))]
    for name in SERIES:
        assert same(columns[name], expected_column(kept, name))


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 20), appended=rows, since=st.floats(-5, 70))
def test_window_snapshot_holds_exactly_the_rows_at_or_after_since(
        capacity: int, appended: list[dict[str, float | None]], since: float) -> None:
    ring = SeriesRing(SERIES, capacity)
    for t, row in enumerate(appended):
        ring.append(float(t), row)
    all_times, all_columns = ring.snapshot()
    times, columns = ring.snapshot(since_s=since, series=["gpu/b"])
    keep = all_times >= since
    assert np.array_equal(times, all_times[keep])
    assert set(columns) == {"gpu/b"}
    assert np.array_equal(columns["gpu/b"], all_columns["gpu/b"][keep], equal_nan=True)


@settings(max_examples=150, deadline=None)
@given(capacity=st.integers(1, 20), appended=rows, split=st.integers(0, 60))
def test_append_rows_is_the_same_as_appending_one_by_one(
        capacity: int, appended: list[dict[str, float | None]], split: int) -> None:
    one_by_one = SeriesRing(SERIES, capacity)
    in_blocks = SeriesRing(SERIES, capacity)
    for t, row in enumerate(appended):
        one_by_one.append(float(t), row)
    for start, end in ((0, min(split, len(appended))), (min(split, len(appended)),
                                                        len(appended))):
        block = appended[start:end]
        times = np.arange(start, end, dtype=np.float64)
        columns = {name: np.asarray(expected_column(block, name)) for name in SERIES}
        in_blocks.append_rows(times, columns)
    a_times, a_columns = one_by_one.snapshot()
    b_times, b_columns = in_blocks.snapshot()
    assert np.array_equal(a_times, b_times)
    for name in SERIES:
        assert np.array_equal(a_columns[name], b_columns[name], equal_nan=True)
    assert len(one_by_one) == len(in_blocks)


@settings(max_examples=150, deadline=None)
@given(capacity=st.integers(1, 20), appended=rows)
def test_append_array_is_the_same_as_append(
        capacity: int, appended: list[dict[str, float | None]]) -> None:
    by_name = SeriesRing(SERIES, capacity)
    by_array = SeriesRing(SERIES, capacity)
    for t, row in enumerate(appended):
        by_name.append(float(t), row)
        by_array.append_array(float(t), np.asarray(
            [math.nan if row.get(n) is None else row[n] for n in SERIES], dtype=np.float64))
    for ring in (by_name, by_array):
        assert len(ring) == min(len(appended), capacity)
    a_times, a_columns = by_name.snapshot()
    b_times, b_columns = by_array.snapshot()
    assert np.array_equal(a_times, b_times)
    for name in SERIES:
        assert np.array_equal(a_columns[name], b_columns[name], equal_nan=True)
        assert by_name.latest(name) == by_array.latest(name)


def test_missing_series_are_nan_and_latest_says_none() -> None:
    ring = SeriesRing(SERIES, 4)
    ring.append(1.0, {"gpu/a": 3.0, "gpu/b": None, "unknown/x": 9.0})
    times, columns = ring.snapshot()
    assert list(times) == [1.0]
    assert columns["gpu/a"][0] == 3.0
    assert math.isnan(columns["gpu/b"][0]) and math.isnan(columns["gpu/c"][0])
    assert ring.latest("gpu/a") == 3.0
    assert ring.latest("gpu/b") is None
    assert ring.latest("not/there") is None


def test_wrap_around_keeps_the_newest_rows_in_order() -> None:
    ring = SeriesRing(SERIES, 5)
    for t in range(13):
        ring.append(float(t), {"gpu/a": t * 10.0})
    times, columns = ring.snapshot()
    assert list(times) == [8.0, 9.0, 10.0, 11.0, 12.0]
    assert list(columns["gpu/a"]) == [80.0, 90.0, 100.0, 110.0, 120.0]
    assert ring.latest("gpu/a") == 120.0
    assert len(ring) == 5


def test_append_rows_longer_than_capacity_keeps_the_tail() -> None:
    ring = SeriesRing(SERIES, 3)
    ring.append_rows(np.arange(10.0), {"gpu/c": np.arange(10.0) * 2})
    times, columns = ring.snapshot()
    assert list(times) == [7.0, 8.0, 9.0]
    assert list(columns["gpu/c"]) == [14.0, 16.0, 18.0]
    assert np.isnan(columns["gpu/a"]).all()


def test_bad_construction_is_refused() -> None:
    with pytest.raises(ValueError):
        SeriesRing(SERIES, 0)
    with pytest.raises(ValueError):
        SeriesRing(("a", "a"), 3)


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 20), appended=rows, since=st.floats(-5, 70),
       width=st.floats(0, 40))
def test_a_range_snapshot_holds_exactly_the_rows_in_the_range(
        capacity: int, appended: list[dict[str, float | None]], since: float,
        width: float) -> None:
    """Wrapped or not, `snapshot(since, until)` is the full snapshot cut to the range, and
    `time_span` its two ends."""
    ring = SeriesRing(SERIES, capacity)
    for t, row in enumerate(appended):
        ring.append(float(t), row)
    all_times, all_columns = ring.snapshot()
    times, columns = ring.snapshot(since_s=since, series=["gpu/a", "gpu/c"],
                                   until_s=since + width)
    keep = (all_times >= since) & (all_times <= since + width)
    assert np.array_equal(times, all_times[keep])
    for name in ("gpu/a", "gpu/c"):
        assert np.array_equal(columns[name], all_columns[name][keep], equal_nan=True)
    until_only, _ = ring.snapshot(until_s=since, series=())
    assert np.array_equal(until_only, all_times[all_times <= since])
    span = ring.time_span()
    if len(all_times):
        assert span == (all_times[0], all_times[-1])
    else:
        assert span is None
