"""The Telemetry page over a RingFeed of two GPUs and the host (hand-made traces)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QColor, QImage

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.telemetry.metrics import HOST_DEVICE, Metric, Reading, series_name
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.ui import render
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.telemetry_feed import DEMO_LABEL, FeedDevice, RingFeed, TelemetryFeed
from gpuscope.ui.telemetry_page import (
    DEFAULT_REDRAW_HZ,
    HOST_COLOR,
    NO_FEED_TEXT,
    TelemetryPage,
    format_ago,
    format_value,
    nice_ceiling,
)
from gpuscope.ui.theme import gpu_color

T0 = 1_800_000_000.0
GPU0 = FeedDevice("0000:03:00.0", "GPU 0: AMD Radeon RX 7900 XTX", 0)
GPU1 = FeedDevice("0000:0a:00.0", "GPU 1: NVIDIA GeForce RTX 4090", 1)
HOST = FeedDevice(HOST_DEVICE, "Host", None)
GPU_SERIES = (Metric.GPU_UTIL_PERCENT, Metric.VRAM_USED_BYTES, Metric.TEMP_JUNCTION_C,
              Metric.POWER_W, Metric.FAN_RPM)
FAN_REASON = "fan speed is not reported (no hwmon fan1_input)"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def gpu_values(index: int, times: np.ndarray) -> dict[Metric, np.ndarray]:
    n = len(times)
    ramp = np.linspace(0.0, 1.0, n)
    return {
        Metric.GPU_UTIL_PERCENT: np.full(n, 50.0 if index == 0 else 80.0),
        Metric.VRAM_USED_BYTES: np.full(n, (4.0 if index == 0 else 12.0) * 2**30),
        # GPU 1 heats up to 99 °C, past the 95 °C junction warning.
        Metric.TEMP_JUNCTION_C: 60.0 + (0.0 if index == 0 else 39.0) * ramp,
        Metric.POWER_W: 100.0 + 50.0 * np.sin(times / 60.0) + 100.0 * index,
        Metric.FAN_RPM: np.full(n, np.nan),
    }


class Fixture:
    """A feed of `minutes` at 1 Hz; `grow(seconds)` appends samples and moves "now"."""

    def __init__(self, minutes: float = 60.0) -> None:
        self.clock = Clock(T0)
        self.rings: dict[str, SeriesRing] = {}
        capacity = int(minutes * 60) + 600
        for device in (GPU0, GPU1):
            self.rings[device.key] = SeriesRing(
                [series_name(device.key, m) for m in GPU_SERIES], capacity)
        self.rings[HOST_DEVICE] = SeriesRing(
            [series_name(HOST_DEVICE, Metric.HOST_CPU_PERCENT)], capacity)
        self.readings = {series_name(d.key, Metric.FAN_RPM): Reading(
            None, missing_reason=FAN_REASON) for d in (GPU0, GPU1)}
        self.feed = RingFeed((GPU0, GPU1, HOST), self.rings, latest=self.readings,
                             now=self.clock, label="Test feed, 1 Hz")
        self.next_time = T0 - minutes * 60
        self.grow(minutes * 60)

    def grow(self, seconds: float) -> None:
        times = self.next_time + np.arange(int(seconds), dtype=np.float64)
        for index, device in enumerate((GPU0, GPU1)):
            values = gpu_values(index, times)
            self.rings[device.key].append_rows(
                times, {series_name(device.key, m): v for m, v in values.items()})
        self.rings[HOST_DEVICE].append_rows(
            times, {series_name(HOST_DEVICE, Metric.HOST_CPU_PERCENT): np.full(len(times), 25.0)})
        self.next_time = float(times[-1]) + 1.0
        self.clock.now = float(times[-1])


@pytest.fixture
def data() -> Fixture:
    return Fixture()


@pytest.fixture
def page(qtbot: Any) -> Iterator[TelemetryPage]:
    """A shown page, closed before the leftover-timer guard runs."""
    widget = TelemetryPage()
    qtbot.addWidget(widget)
    widget.resize(1100, 750)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.close()


def curve_y(page: TelemetryPage, metric: Metric, device: FeedDevice) -> np.ndarray:
    return page.charts[metric].curve_data[device.key][1]


def curve_x(page: TelemetryPage, metric: Metric, device: FeedDevice) -> np.ndarray:
    return page.charts[metric].curve_data[device.key][0]


# ----------------------------------------------------------------------------- structure


def test_without_a_feed_the_page_says_a_sampler_starts_it(page: TelemetryPage) -> None:
    assert page.feed is None
    assert page.stack.currentWidget() is page.empty_label
    assert page.empty_label.text() == NO_FEED_TEXT
    assert page.charts == {}
    assert not page.timer.isActive()
    assert not page.pause_button.isEnabled()


def test_one_chart_per_metric_one_curve_per_gpu_in_the_gpu_colours(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    assert set(page.charts) == {*GPU_SERIES, Metric.HOST_CPU_PERCENT}
    assert page.source_label.text() == "Test feed, 1 Hz"
    for metric in GPU_SERIES:
        chart = page.charts[metric]
        assert set(chart.curves) == {GPU0.key, GPU1.key}
        assert chart.curves[GPU0.key].opts["pen"].color() == gpu_color(0)
        assert chart.curves[GPU1.key].opts["pen"].color() == gpu_color(1)
        assert chart.curves[GPU0.key].opts["pen"].width() <= 1
        assert not chart.curves[GPU0.key].opts["antialias"]
    host = page.charts[Metric.HOST_CPU_PERCENT]
    assert set(host.curves) == {HOST.key}
    assert host.curves[HOST.key].opts["pen"].color() == HOST_COLOR
    # The device legend names each GPU in its colour.
    legend = page.device_legend.text()
    assert "GPU 0: AMD Radeon RX 7900 XTX" in legend and gpu_color(1).name() in legend


def test_units_titles_and_scaled_values(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    assert page.charts[Metric.TEMP_JUNCTION_C].title.text() == (
        "Temperature (junction/hotspot) (°C)")
    assert page.charts[Metric.VRAM_USED_BYTES].title.text() == "VRAM used (GiB)"
    vram = curve_y(page, Metric.VRAM_USED_BYTES, GPU1)
    assert np.nanmax(vram) == pytest.approx(12.0)  # bytes shown as GiB
    low, high = page.charts[Metric.VRAM_USED_BYTES].y_range or (0, 0)
    assert low == 0.0 and 12.0 < high <= 15.0
    assert page.charts[Metric.GPU_UTIL_PERCENT].y_range == (0.0, 100.0)


def test_the_window_is_decimated_to_the_plot_width(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(3600)
    chart = page.charts[Metric.POWER_W]
    width = int(chart.view_box.width())
    x = curve_x(page, Metric.POWER_W, GPU0)
    assert 100 < width < 600  # two columns of charts at 1100 px
    assert len(x) <= 2 * width + 2 < 3600
    assert x.min() < -3590 and x.max() == 0.0
    # A swing of the sine survives decimation: its extremes are on show.
    y = curve_y(page, Metric.POWER_W, GPU0)
    assert np.nanmax(y) == pytest.approx(150.0, abs=0.1)
    assert np.nanmin(y) == pytest.approx(50.0, abs=0.1)


def test_a_shorter_window_narrows_the_data(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(3600)
    assert curve_x(page, Metric.GPU_UTIL_PERCENT, GPU0).min() < -3000
    page.window_buttons.button(60).click()
    assert page.window_s == 60
    x = curve_x(page, Metric.GPU_UTIL_PERCENT, GPU0)
    assert x.min() >= -62.0 and x.max() == 0.0  # the window, plus one sample at its edge
    assert len(x) <= 62
    assert page.charts[Metric.GPU_UTIL_PERCENT].view_box.viewRange()[0][0] == -60


# ----------------------------------------------------------------------------- time


def test_redraws_come_from_the_page_timer_not_from_samples(
        qtbot: Any, page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    assert page.timer.isActive()
    assert page.timer.interval() == round(1000 / DEFAULT_REDRAW_HZ)
    drawn = page.frames_drawn
    data.grow(5)  # samples arrive: nothing is drawn until the timer says so
    assert page.frames_drawn == drawn
    qtbot.waitUntil(lambda: page.frames_drawn > drawn, timeout=2000)
    assert page.frame_now == data.clock.now


def test_pause_holds_the_charts_while_samples_arrive_and_resume_catches_up(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(60)
    before = curve_x(page, Metric.GPU_UTIL_PERCENT, GPU0).copy()
    paused_at = page.frame_now
    page.pause_button.click()
    assert page.is_paused and page.pause_button.text() == "Resume"
    assert not page.timer.isActive()
    assert page.pause_note.isVisible()
    data.grow(30)  # the feed keeps collecting
    page.redraw()  # a stray tick changes nothing
    assert page.frame_now == paused_at
    assert np.array_equal(curve_x(page, Metric.GPU_UTIL_PERCENT, GPU0), before)
    assert len(data.rings[GPU0.key]) > 0
    page.pause_button.click()
    assert not page.is_paused and page.timer.isActive()
    assert page.frame_now == data.clock.now == paused_at + 30
    # Caught up: the newest sample is at "now" again, and the 30 new samples (a fresh ramp
    # from 60 °C) are on show.
    assert curve_x(page, Metric.GPU_UTIL_PERCENT, GPU0).max() == 0.0
    x = curve_x(page, Metric.TEMP_JUNCTION_C, GPU1)
    y = curve_y(page, Metric.TEMP_JUNCTION_C, GPU1)
    assert y[x == -29.0] == pytest.approx(60.0)


def test_frames_between_full_decimations_append_the_new_samples(
        page: TelemetryPage, data: Fixture) -> None:
    clock = Clock(0.0)
    page.clock = clock  # the page's clock for text refreshes and full decimations
    page.set_feed(data.feed)
    page.set_window_s(3600)
    width = int(page.charts[Metric.POWER_W].view_box.width())
    assert len(curve_x(page, Metric.POWER_W, GPU0)) <= 2 * width + 2
    data.grow(3)
    page.redraw()  # no full pass due: the 3 new samples are appended as they are
    x = curve_x(page, Metric.POWER_W, GPU0)
    y = curve_y(page, Metric.POWER_W, GPU0)
    assert list(x[-4:]) == [-3.0, -2.0, -1.0, 0.0]
    assert y[-1] == pytest.approx(100.0 + 50.0 * math.sin(data.clock.now / 60.0))
    clock.now = 10.0  # full passes due again, one device per frame
    for _ in range(3):
        page.redraw()
    x = curve_x(page, Metric.POWER_W, GPU0)
    assert len(x) <= 2 * width + 2 and x.max() == 0.0


# ----------------------------------------------------------------------------- states


def test_a_metric_no_source_gives_says_why_and_is_never_zero(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    chart = page.charts[Metric.FAN_RPM]
    assert chart.message == f"not available: {FAN_REASON}"
    assert chart.body.currentWidget() is chart.not_available
    assert chart.not_available.text() == f"not available: {FAN_REASON}"
    assert f"GPU 0  not available: {FAN_REASON}" in chart.legend_text
    for device in (GPU0, GPU1):
        y = curve_y(page, Metric.FAN_RPM, device)
        assert not np.isfinite(y).any()  # gaps, not a flat 0
    # A metric with data shows its plot.
    assert page.charts[Metric.POWER_W].message == ""


def test_junction_above_95_shows_the_warning(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(3600)
    chart = page.charts[Metric.TEMP_JUNCTION_C]
    assert chart.warning_keys == {GPU1.key}
    assert chart.threshold is not None and chart.threshold.value() == 95.0
    assert chart.warn_curve is not None and chart.warn_curve.isVisible()
    # The ramp crosses 95 °C about 369 s before now: the red halo covers just that part.
    halo_x = chart.warn_curve.getData()[0]
    drawn = halo_x[np.asarray(chart.warn_curve.opts["connect"], dtype=bool)]
    assert -400.0 < drawn.min() < -340.0 and drawn.max() < 0.0
    rows = {row.name: row for row in chart.legend.rows}
    assert rows["GPU 1"].warning and not rows["GPU 0"].warning
    assert rows["GPU 1"].cells[0] == "99.0"
    # Power has no threshold: no warning, no line.
    assert page.charts[Metric.POWER_W].threshold is None
    assert page.charts[Metric.POWER_W].warning_keys == frozenset()


def test_a_lost_gpu_shows_its_reason_in_its_legend_entry(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    lost = FeedDevice(GPU1.key, GPU1.label, 1, lost_reason="NVML: GPU is lost (Xid 79)")
    data.feed.set_devices((GPU0, lost, HOST))
    page.redraw()
    legend = page.charts[Metric.POWER_W].legend_text
    assert "GPU 1  lost: NVML: GPU is lost (Xid 79)" in legend
    assert "lost: NVML: GPU is lost (Xid 79)" in page.device_legend.text()
    data.feed.set_devices((GPU0, GPU1, HOST))
    page.redraw()
    assert "lost" not in page.charts[Metric.POWER_W].legend_text


def test_legend_shows_current_min_avg_max_over_the_window(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(3600)
    rows = {row.name: row for row in page.charts[Metric.GPU_UTIL_PERCENT].legend.rows}
    assert rows["GPU 0"].cells == ("50.0", "50.0", "50.0", "50.0")
    assert rows["GPU 1"].cells == ("80.0", "80.0", "80.0", "80.0")
    junction = {row.name: row for row in page.charts[Metric.TEMP_JUNCTION_C].legend.rows}
    now, low, mean, high = junction["GPU 1"].cells
    assert (now, high) == ("99.0", "99.0")
    assert 60.0 <= float(low) < 61.0 and 79.0 < float(mean) < 80.0


# ----------------------------------------------------------------------------- hover


def test_crosshair_readout_for_a_hover_position(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(300)
    text = page.readout_text(Metric.GPU_UTIL_PERCENT, -30.0)
    assert "(−30 s)" in text
    assert "GPU 0 50.0" in text and "GPU 1 80.0" in text and text.endswith(" %")
    assert "GPU 0 —" in page.readout_text(Metric.FAN_RPM, -30.0)  # no value: a dash

    chart = page.charts[Metric.GPU_UTIL_PERCENT]
    scene_point = chart.view_box.mapViewToScene(QPointF(-120.0, 50.0))
    chart._on_mouse_moved((scene_point,))
    assert chart.crosshair.isVisible()
    assert chart.crosshair.value() == pytest.approx(-120.0, abs=1.0)
    assert "−2:0" in chart.readout.text() and "80.0" in chart.readout.text()
    page.show_readout(Metric.GPU_UTIL_PERCENT, None)
    assert not chart.crosshair.isVisible() and chart.readout.text() == ""


def test_moving_the_mouse_over_a_chart_shows_the_readout(
        qtbot: Any, page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    chart = page.charts[Metric.GPU_UTIL_PERCENT]
    view = chart.plot_widget
    target = view.mapFromScene(chart.view_box.mapViewToScene(QPointF(-100.0, 50.0)))
    qtbot.mouseMove(view.viewport(), QPoint(target.x(), target.y()))
    qtbot.waitUntil(lambda: "GPU 1&nbsp;80.0" in chart.readout.text(), timeout=3000)
    assert "GPU 0&nbsp;50.0" in chart.readout.text() and chart.crosshair.isVisible()


# ----------------------------------------------------------------------------- lifetime


def test_the_timer_stops_when_the_page_is_hidden_or_closed(
        qtbot: Any, data: Fixture) -> None:
    page = TelemetryPage()
    qtbot.addWidget(page)
    page.set_feed(data.feed)
    assert not page.timer.isActive()  # not on screen: nothing to redraw
    page.show()
    qtbot.waitExposed(page)
    assert page.timer.isActive()
    page.hide()
    assert not page.timer.isActive()
    page.show()
    assert page.timer.isActive()
    page.close()
    assert not page.timer.isActive()


def empty_system() -> ReplaySystem:
    return ReplaySystem(Snapshot())


def test_main_window_hosts_the_page_and_stops_it_off_screen(
        qtbot: Any, make_window: Callable[..., MainWindow], data: Fixture) -> None:
    window = make_window(empty_system(), probes=())
    page = window.telemetry_page
    window.select_page("telemetry")
    assert window.pages.currentWidget() is page
    assert page.empty_label.text() == NO_FEED_TEXT and page.empty_label.isVisible()
    page.set_feed(data.feed)
    assert page.timer.isActive() and Metric.POWER_W in page.charts
    window.select_page("overview")
    assert not page.timer.isActive()
    window.select_page("telemetry")
    assert page.timer.isActive()
    window.close()
    assert not page.timer.isActive()


def test_feed_protocol_and_ring_feed_defaults(data: Fixture) -> None:
    assert isinstance(data.feed, TelemetryFeed)
    plain = RingFeed((GPU0,), {GPU0.key: data.rings[GPU0.key]})
    assert plain.now_s() == data.clock.now  # not live: the newest sample
    reading = plain.latest(series_name(GPU0.key, Metric.GPU_UTIL_PERCENT))
    assert reading is not None and reading.value == 50.0
    assert plain.latest(series_name(GPU0.key, Metric.FAN_RPM)) is None
    assert plain.ring("nope") is None and not plain.live
    assert GPU0.short_label == "GPU 0" and HOST.short_label == "Host"


def test_formatting_helpers() -> None:
    assert format_value(None) == "—" and format_value(math.nan) == "—"
    assert format_value(-0.0001) == "0"
    assert (format_value(1234.4), format_value(73.44), format_value(5.268)) == (
        "1234", "73.4", "5.27")
    assert format_ago(0.1) == "now" and format_ago(45) == "−45 s" and format_ago(155) == "−2:35"
    assert nice_ceiling(2691) == 3000 and nice_ceiling(12.6) == 15 and nice_ceiling(0) == 1


# ----------------------------------------------------------------------------- picture


def test_render_demo_telemetry_png_is_labelled_and_draws_gpu_lines(tmp_path: Path) -> None:
    out = tmp_path / "telemetry.png"
    code = render.main(["--page", "telemetry", "--demo-telemetry", "2", "--replay",
                        str(write_empty_snapshot(tmp_path)), "-o", str(out)])
    assert code == 0 and out.exists()
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1100, 750)
    sample = image.convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(sample.constBits(), dtype=np.uint32).reshape(
        sample.height(), sample.bytesPerLine() // 4)[:, :sample.width()]
    for index in (0, 1):
        color = QColor(gpu_color(index)).rgb() & 0xFFFFFFFF
        assert (pixels == color).sum() > 200, f"no line in GPU {index}'s colour"


def test_demo_feed_is_labelled_demo_data(qtbot: Any, page: TelemetryPage) -> None:
    from gpuscope.ui.telemetry_feed import demo_feed

    page.set_feed(demo_feed(2, minutes=2))
    assert page.source_label.text().startswith(DEMO_LABEL)
    assert "demo data" in page.source_label.text().lower()


def write_empty_snapshot(folder: Path) -> Path:
    path = folder / "empty.json"
    path.write_text(json.dumps(Snapshot(meta={"description": "nothing"}).to_json()))
    return path


def test_fast_curve_bounds_and_path_follow_each_update(qtbot: Any) -> None:
    import pyqtgraph as pg

    from gpuscope.ui.telemetry_page import FastCurve

    curve = FastCurve(pen=pg.mkPen("b"))
    curve.set_points(np.array([-10.0, -5.0, 0.0]), np.array([1.0, 3.0, 2.0]))
    rect = curve.boundingRect()
    assert rect.top() <= 1.0 and rect.bottom() >= 3.0 and rect.bottom() < 4.0
    curve.set_points(np.array([-10.0, -5.0, -4.0, -3.0, 0.0]),
                     np.array([10.0, 30.0, np.nan, 5.0, 20.0]))
    rect = curve.boundingRect()  # the new data's, not the old one's
    assert rect.top() <= 5.0 and rect.bottom() >= 30.0
    path = curve.getPath()
    # Two runs: (-10, -5) and (-3, 0); nothing joins across the missing sample at -4.
    assert path.elementCount() == 4
    xs = [path.elementAt(i).x for i in range(4)]
    assert xs == [-10.0, -5.0, -3.0, 0.0]
    assert not path.elementAt(2).isLineTo()  # a move, not a line, after the gap
