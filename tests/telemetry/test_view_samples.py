"""Reading a browsed view's samples off the GUI thread: what is asked before they are ready
gets None (a stand-in), `on_ready` says when, and the frame then draws the samples."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from gpuscope.metrics import Metric, series_name
from gpuscope.telemetry.feed import synthetic_telemetry
from gpuscope.telemetry.feed_adapters import load_recording_feed
from gpuscope.telemetry.frame import FrameModel, TimeRange
from gpuscope.telemetry.recorder import write_recording
from gpuscope.telemetry.recording_meta import RecordingError
from gpuscope.telemetry.view_samples import ViewSamples


def test_without_an_executor_the_result_is_computed_when_asked_and_kept() -> None:
    calls: list[str] = []
    samples: ViewSamples[str] = ViewSamples()
    assert samples.get("a", lambda: calls.append("a") or "A") == "A"
    assert samples.get("a", lambda: calls.append("again") or "?") == "A"
    assert samples.get("b", lambda: calls.append("b") or "B") == "B"
    assert calls == ["a", "b"] and not samples.pending and samples.wait(0.0)


def test_with_an_executor_asking_early_gives_none_and_on_ready_says_when() -> None:
    release = threading.Event()
    ready = threading.Event()

    def slow() -> str:
        release.wait(10)
        return "read"

    with ThreadPoolExecutor(max_workers=1) as executor:
        samples: ViewSamples[str] = ViewSamples(executor, on_ready=ready.set)
        assert samples.get("view", slow) is None
        assert samples.pending and samples.get("view", slow) is None  # not asked twice
        assert not samples.wait(0.05)
        release.set()
        assert ready.wait(10) and samples.wait(10)
        assert samples.get("view", slow) == "read" and not samples.pending


def test_a_newer_view_replaces_one_not_started_and_errors_come_back_for_their_view() -> None:
    gate = threading.Event()
    ran: list[str] = []

    def job(name: str) -> str:
        gate.wait(10)
        ran.append(name)
        if name == "bad":
            raise RecordingError("a damaged chunk")
        return name

    with ThreadPoolExecutor(max_workers=1) as executor:
        samples: ViewSamples[str] = ViewSamples(executor)
        blocker: ViewSamples[str] = ViewSamples(executor)
        assert blocker.get("busy", lambda: job("busy")) is None  # holds the one thread
        assert samples.get(1, lambda: job("first")) is None
        assert samples.get(2, lambda: job("bad")) is None  # the first never starts
        gate.set()
        assert samples.wait(10)
        assert "first" not in ran
        for _ in range(2):  # the same view: the same error, not read again
            with pytest.raises(RecordingError, match="damaged chunk"):
                samples.get(2, lambda: job("again"))
        assert ran.count("bad") == 1
        samples.forget()
        assert samples.get(2, lambda: "fine") is None and samples.wait(10)
        assert samples.get(2, lambda: "unused") == "fine"


def test_a_view_left_behind_while_it_is_read_does_not_ask_for_a_redraw() -> None:
    started, release = threading.Event(), threading.Event()
    told: list[int] = []

    def first() -> str:
        started.set()
        release.wait(10)
        return "first"

    with ThreadPoolExecutor(max_workers=1) as executor:
        samples: ViewSamples[str] = ViewSamples(executor, on_ready=lambda: told.append(1))
        assert samples.get("a", first) is None
        assert started.wait(10)  # running: it cannot be cancelled
        assert samples.get("b", lambda: "second") is None
        release.set()
        assert samples.wait(10)
    assert told == [1]  # for "b" only
    assert samples.get("b", lambda: "unused") == "second"


def test_the_frame_draws_a_stand_in_then_the_samples(tmp_path: Path) -> None:
    rate_hz = 2.0
    data = synthetic_telemetry(2, 3600, rate_hz, seed=8, end_s=1.8e9, throttle=True, cores=2)
    columns = {name: values for device in data.values.values()
               for name, values in device.items()}
    path = tmp_path / "r.sqlite"
    write_recording(path, data.times, columns, rate_hz=rate_hz)
    feed = load_recording_feed(path)
    devices = tuple(feed.devices())
    charted = {d.key: [(Metric.POWER_W, series_name(d.key, Metric.POWER_W)),
                       (Metric.GPU_UTIL_PERCENT, series_name(d.key, Metric.GPU_UTIL_PERCENT))]
               for d in devices if feed.ring(d.key) is not None and d.key != "host"}
    start = float(data.times[0]) + 1500.0
    view = TimeRange(start, start + 400.0)  # too narrow for the summaries

    def model_with(samples: ViewSamples) -> FrameModel:  # type: ignore[type-arg]
        model = FrameModel(window_s=300)
        model.view_samples = samples
        model.reset(feed, devices, charted)
        model.time.browse(view, start)
        return model

    exact = model_with(ViewSamples())
    assert exact.draw_browsing(feed, 450, True, True) == set(charted)
    ready = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as executor:
        model = model_with(ViewSamples(executor, on_ready=ready.set))
        model.draw_browsing(feed, 450, True, True)
        key = next(iter(charted))  # the first device asks: a stand-in, surely
        # (the others may already find the samples read)
        standing_in = {k for k, done in model._browsed.items() if done.stand_in}
        assert key in standing_in
        stand_in = model.curve(key, Metric.POWER_W)
        assert stand_in is not None and len(stand_in[0]) > 0  # drawn from the summaries
        stand_in_stats = model.stats_of(key, Metric.POWER_W)
        assert stand_in_stats.maximum is not None
        assert ready.wait(30)
        # Not forced and the same range: still redrawn, since what is on show stands in.
        assert model.draw_browsing(feed, 450, False, False) == standing_in
    for device_key, pairs in charted.items():
        for metric, _ in pairs:
            x, y = model.curve(device_key, metric)  # type: ignore[misc]
            ex, ey = exact.curve(device_key, metric)  # type: ignore[misc]
            assert np.array_equal(x, ex) and np.array_equal(y, ey, equal_nan=True)
            assert model.stats_of(device_key, metric) == exact.stats_of(device_key, metric)
    # The stand-in's maximum is that of the whole summary blocks starting in the view: a
    # sample's value (as stored: within 1 mW), though not always one inside the view.
    written = columns[series_name(key, Metric.POWER_W)]
    assert np.isclose(written, stand_in_stats.maximum, rtol=0, atol=1e-3).any()
    assert not model.draw_browsing(feed, 450, False, False)  # now settled: nothing to redo
