"""A version 3 recording opened on the page reads its stored summaries, never its samples,
and answers what a recording read whole answers: the same ticks (with pause breaks), the
same extremes and means, the same throttle shares, the same report summary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpuscope.app.report_inputs import telemetry_from_recording
from gpuscope.metrics import Metric, series_name
from gpuscope.telemetry import recording_chunks
from gpuscope.telemetry.feed import synthetic_telemetry
from gpuscope.telemetry.feed_adapters import load_recording_feed
from gpuscope.telemetry.recorder import open_recording, write_recording
from gpuscope.telemetry.recording_feed import RecordingRing
from gpuscope.ui.telemetry.strips import shares_of_counts, throttle_shares

RATE_HZ = 2.0


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same 40 minutes (with a 5-minute pause) as version 2 and version 3."""
    data = synthetic_telemetry(3, 2400, RATE_HZ, seed=3, end_s=1.8e9, throttle=True, cores=2)
    times = data.times.copy()
    times[3000:] += 300.0
    columns = {name: values for device in data.values.values()
               for name, values in device.items()}
    folder = tmp_path_factory.mktemp("pair")
    old, new = folder / "v2.sqlite", folder / "v3.sqlite"
    write_recording(old, times, columns, rate_hz=RATE_HZ, format_version=2)
    write_recording(new, times, columns, rate_hz=RATE_HZ)
    return old, new


def test_opening_reads_summaries_not_samples(pair: tuple[Path, Path],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("a sample was read while opening")

    monkeypatch.setattr(recording_chunks.ChunkReader, "decoded", refuse)
    feed = load_recording_feed(pair[1])
    ring = feed.ring("0000:03:00.0")
    assert isinstance(ring, RecordingRing) and len(ring) == 4800
    assert feed.summary("0000:03:00.0") is not None


def test_a_range_reads_the_same_ticks_and_values(pair: tuple[Path, Path]) -> None:
    old, new = (load_recording_feed(p) for p in pair)
    name = series_name("0000:04:00.0", Metric.POWER_W)
    span = old.ring("0000:04:00.0").time_span()  # type: ignore[union-attr]
    assert span == new.ring("0000:04:00.0").time_span()  # type: ignore[union-attr]
    assert span is not None
    middle = (span[0] + span[1]) / 2
    for since, until in ((span[0], span[1]), (middle - 400, middle + 400), (middle, middle)):
        old_times, old_values = old.ring("0000:04:00.0").snapshot(  # type: ignore[union-attr]
            since, [name], until)
        new_times, new_values = new.ring("0000:04:00.0").snapshot(  # type: ignore[union-attr]
            since, [name], until)
        assert np.allclose(old_times, new_times, rtol=0, atol=1e-6)
        assert np.array_equal(np.isnan(old_values[name]), np.isnan(new_values[name]))
        assert np.nanmax(np.abs(old_values[name] - new_values[name]), initial=0) <= 5e-4
    # the pause is a NaN row in both
    times, values = new.ring("0000:04:00.0").snapshot(  # type: ignore[union-attr]
        span[0], [name], span[1])
    gap = np.flatnonzero(np.diff(times) > 100)
    assert len(gap) == 0 or np.isnan(values[name][gap[0]])


def test_stored_summaries_give_the_extremes_and_means_of_the_samples(
        pair: tuple[Path, Path]) -> None:
    old, new = (load_recording_feed(p) for p in pair)
    for key in ("0000:03:00.0", "host"):
        ring = old.ring(key)
        assert ring is not None
        span = ring.time_span()
        assert span is not None
        times, columns = ring.snapshot()
        stats = new.summary(key).stats(span[0], span[1])  # type: ignore[union-attr]
        assert stats is not None
        for row, name in enumerate(ring.series):
            values = columns[name]
            if np.isnan(values).all():
                continue
            assert stats[row].minimum == pytest.approx(np.nanmin(values), abs=5e-4)
            assert stats[row].maximum == pytest.approx(np.nanmax(values), abs=5e-4)
            assert stats[row].mean == pytest.approx(np.nanmean(values), rel=1e-4, abs=1e-3)
        # a whole-span curve from the summaries keeps the real extremes, at their times
        pyramid = new.summary(key)
        assert pyramid is not None
        curves = pyramid.decimate(span[0], span[1], 300)
        assert curves is not None
        for (x, y), name in zip(curves, ring.series, strict=True):
            values = columns[name]
            if np.isnan(values).all():
                continue
            at = int(np.nanargmax(values))
            assert np.nanmax(y) == pytest.approx(values[at], abs=5e-4)
            assert times[at] in set(np.round(x, 6)) or np.isclose(x, times[at]).any()


def test_throttle_shares_from_counts_match_the_samples(pair: tuple[Path, Path]) -> None:
    old, new = (load_recording_feed(p) for p in pair)
    key = "0000:03:00.0"
    name = series_name(key, Metric.THROTTLE_REASONS)
    ring = old.ring(key)
    assert ring is not None
    span = ring.time_span()
    assert span is not None
    _, columns = ring.snapshot(series=[name])
    pyramid = new.summary(key)
    assert pyramid is not None
    row = ring.series.index(name)
    from_counts = shares_of_counts(pyramid.flag_shares(span[0], span[1], row))
    from_samples = throttle_shares(columns[name])
    assert from_counts is not None and from_samples is not None
    assert from_counts[0] == pytest.approx(from_samples[0])
    assert from_counts[1] == pytest.approx(from_samples[1])
    strip = pyramid.binned(span[0], span[1], 200, [row], "or")
    assert strip is not None and np.nanmax(strip) > 0


def test_the_report_summary_is_the_same_from_summaries(pair: tuple[Path, Path]) -> None:
    old_summary, _ = telemetry_from_recording(str(pair[0]))
    new_summary, _ = telemetry_from_recording(str(pair[1]))
    assert old_summary is not None and new_summary is not None
    assert [d.key for d in old_summary.devices] == [d.key for d in new_summary.devices]
    assert new_summary.duration_s == pytest.approx(old_summary.duration_s)
    for old_device, new_device in zip(old_summary.devices, new_summary.devices, strict=True):
        assert old_device.label == new_device.label
        for old_metric, new_metric in zip(old_device.metrics, new_device.metrics,
                                          strict=True):
            assert old_metric.metric == new_metric.metric
            assert old_metric.samples == new_metric.samples
            assert new_metric.min == pytest.approx(old_metric.min, abs=1e-3)
            assert new_metric.max == pytest.approx(old_metric.max, abs=1e-3)
            assert new_metric.avg == pytest.approx(old_metric.avg, rel=1e-3, abs=1e-3)
            assert len(new_metric.spark) == len(old_metric.spark)


def test_a_killed_writers_tail_reads_too(tmp_path: Path) -> None:
    """Ticks still in the tail table (no closed chunk) are read by every path."""
    path = tmp_path / "tail.sqlite"
    times = 1.8e9 + np.arange(30) / RATE_HZ
    write_recording(path, times, {"host/host_cpu_percent": np.arange(30.0)}, rate_hz=RATE_HZ)
    import sqlite3
    db = sqlite3.connect(path)
    with db:  # as a writer killed before its first chunk closed leaves it
        rows = [(round(float(t) * 1e6), np.array([v]).tobytes())
                for t, v in zip(times, np.arange(30.0), strict=True)]
        db.execute("DELETE FROM chunks")
        db.executemany("INSERT INTO tail (t_us, data) VALUES (?, ?)", rows)
    db.close()
    with open_recording(path) as recording:
        assert recording.sample_count() == 30
        assert recording.read("host/host_cpu_percent")[1].tolist() == list(np.arange(30.0))
    feed = load_recording_feed(path)
    stats = feed.summary("host").stats(times[0], times[-1])  # type: ignore[union-attr]
    assert stats is not None and stats[0].maximum == 29.0


def test_a_narrow_range_draws_the_samples_of_the_view_and_summaries_beside_it(
        pair: tuple[Path, Path]) -> None:
    """Too narrow for the summaries: the view's own samples are read (every one of them,
    few enough), the range-width either side comes from the finest summary blocks; the
    curve stays in time order."""
    from gpuscope.telemetry.frame import FrameModel, TimeRange

    feed = load_recording_feed(pair[1])
    key = "0000:03:00.0"
    name = series_name(key, Metric.POWER_W)
    model = FrameModel(window_s=300)
    devices = tuple(feed.devices())
    model.reset(feed, devices, {key: [(Metric.POWER_W, name)]})
    ring = feed.ring(key)
    assert ring is not None and ring.time_span() is not None
    start = ring.time_span()[0] + 600.0  # type: ignore[index]
    model.time.browse(TimeRange(start, start + 120.0), start)
    model.draw_browsing(feed, 400, True, True)
    curve = model.curve(key, Metric.POWER_W)
    assert curve is not None
    x, y = curve
    assert np.all(np.diff(x) >= 0)
    times, values = ring.snapshot(start, [name], start + 120.0)
    shown = x + model.time.origin
    inside = (shown >= start) & (shown <= start + 120.0)
    assert np.allclose(shown[inside], times, atol=1e-6)
    assert np.allclose(y[inside], values[name], equal_nan=True)
    assert (shown < start - 60.0).any() and (shown > start + 180.0).any()  # the sides


def test_the_decoded_chunks_kept_hold_no_more_memory_than_they_count(
        pair: tuple[Path, Path]) -> None:
    """Chunks are decoded in batches, into one array a batch: what the cache keeps is its
    own array, not a view that would keep the whole batch alive behind its count."""
    with open_recording(pair[1]) as recording:
        assert recording.chunked
        reader = recording._chunks
        assert reader is not None
        reader.decoded_many(list(range(len(reader.index.ids))))
        assert reader._cache
        for _times, block in reader._cache.values():
            assert block.base is None and block.flags.owndata
        assert reader._cached_bytes == sum(b.nbytes + t.nbytes
                                           for t, b in reader._cache.values())
