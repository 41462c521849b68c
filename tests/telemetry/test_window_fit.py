"""A chart window never shows less data than it could (issue #12): with seconds of data the
window fits the data, and a replay's single readings are told apart from samples over time."""

from __future__ import annotations

import numpy as np
import pytest

from gpuscope.metrics import Metric, series_name
from gpuscope.telemetry.feed import FeedDevice, RingFeed, is_capture
from gpuscope.telemetry.feed_adapters import capture_time_s
from gpuscope.telemetry.frame import FIT_STEPS_S, FrameModel, fitted_window_s
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.texts import verbatim

T0 = 1_800_000_000.0
GPU = FeedDevice("0000:03:00.0", verbatim("GPU 0: Test"), 0)
UTIL = series_name(GPU.key, Metric.GPU_UTIL_PERCENT)


@pytest.mark.parametrize(("window_s", "span_s", "expected"), [
    (300, 3.0, 5.0),  # seconds of data: not a sliver at "now" on a 5-minute axis
    (300, 5.0, 5.0),
    (300, 12.0, 15.0),
    (300, 48.0, 60.0),
    (300, 200.0, 240.0),
    (300, 299.0, 300.0),
    (300, 4000.0, 300.0),  # more data than the window: the window chosen
    (60, 3600.0, 60.0),
    (3600, 2000.0, 2700.0),
    (300, None, 300.0),  # no data yet
])
def test_the_window_narrows_to_the_data_there_is(window_s: int, span_s: float | None,
                                                 expected: float) -> None:
    assert fitted_window_s(window_s, span_s) == expected


def test_fit_all_takes_the_step_just_wider_than_all_the_data() -> None:
    assert fitted_window_s(300, 48.0, fit_all=True) == 60.0
    assert fitted_window_s(60, 1000.0, fit_all=True) == 1200.0
    assert fitted_window_s(60, 3 * 3600.0 + 1, fit_all=True) == 4 * 3600.0
    assert fitted_window_s(60, None, fit_all=True) == FIT_STEPS_S[0]


def test_every_span_fits_inside_its_window_and_fills_most_of_it() -> None:
    for span in np.linspace(0.1, 3600.0, 2000):
        window = fitted_window_s(3600, float(span))
        assert span <= window
        if span >= FIT_STEPS_S[0]:
            assert span / window >= 0.5, (span, window)  # no step is twice the last


def feed_of(seconds: float, rate_hz: float = 4.0, **kwargs: object) -> RingFeed:
    n = int(seconds * rate_hz) + 1
    times = T0 + np.arange(n) / rate_hz
    ring = SeriesRing([UTIL], n)
    ring.append_rows(times, {UTIL: np.linspace(0.0, 100.0, n)})
    return RingFeed((GPU,), {GPU.key: ring}, now=float(times[-1]), **kwargs)  # type: ignore[arg-type]


def test_following_three_seconds_shows_them_across_the_chart() -> None:
    feed = feed_of(3.0)
    model = FrameModel(300)
    model.reset(feed, feed.devices(), {GPU.key: [(Metric.GPU_UTIL_PERCENT, UTIL)]})
    now = feed.now_s()
    model.draw_following(feed, now, 400, force=True, texts_due=True)
    assert model.time.frame_window == 5.0
    x, _ = model.curve(GPU.key, Metric.GPU_UTIL_PERCENT) or (np.empty(0), np.empty(0))
    # The curve spans 3 of the 5 seconds on show, not 3 of 300.
    assert x[0] == pytest.approx(-3.0) and x[-1] == pytest.approx(0.0)
    assert (x[-1] - x[0]) / model.time.frame_window >= 0.6


def test_following_more_data_than_the_window_keeps_the_window() -> None:
    feed = feed_of(900.0, rate_hz=1.0)
    model = FrameModel(300)
    model.reset(feed, feed.devices(), {GPU.key: [(Metric.GPU_UTIL_PERCENT, UTIL)]})
    model.draw_following(feed, feed.now_s(), 400, force=True, texts_due=True)
    assert model.time.frame_window == 300.0


def test_a_growing_feed_widens_its_window_step_by_step() -> None:
    n = 400
    ring = SeriesRing([UTIL], n)
    feed = RingFeed((GPU,), {GPU.key: ring}, live=False)
    model = FrameModel(300)
    model.reset(feed, feed.devices(), {GPU.key: [(Metric.GPU_UTIL_PERCENT, UTIL)]})
    windows = []
    for second in range(n):
        ring.append_rows(np.array([T0 + second]), {UTIL: np.array([50.0])})
        model.draw_following(feed, T0 + second, 400, force=False, texts_due=False)
        windows.append(model.time.frame_window)
        x, _ = model.curve(GPU.key, Metric.GPU_UTIL_PERCENT) or (np.empty(0), None)
        # All the data there is, up to the window (between full passes, a curve keeps the
        # samples that have left the window until its next pass; the axis hides them).
        assert x[0] <= -min(second, 300.0) + 1e-9
        assert min(second, 300.0) <= windows[-1] <= max(2 * second, 5.0)
    assert windows == sorted(windows) and windows[-1] == 300.0
    assert len(set(windows)) <= len(FIT_STEPS_S)  # steps, not a new axis every frame


def test_a_replay_feed_is_at_capture_and_samples_are_not() -> None:
    assert not is_capture(feed_of(3.0))
    replay = feed_of(0.0, at_capture=True, captured_at_s=T0)
    assert is_capture(replay) and replay.captured_at_s == T0
    assert not replay.pausable
    assert not is_capture(None) and not is_capture(object())


def test_a_snapshots_capture_time_is_read_from_its_origin() -> None:
    assert capture_time_s("2026-11-27T02:31:05+00:00") == 1795746665.0
    assert capture_time_s("2026-11-27T02:31:05Z") == 1795746665.0
    assert capture_time_s("2026-11-27T02:31:05") == 1795746665.0  # UTC when unmarked
    assert capture_time_s(None) is None
    assert capture_time_s("yesterday") is None
