"""The Telemetry page over a RingFeed of two GPUs and the host (hand-made traces)."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QColor, QImage

from gpuscope.evidence import ReplaySystem, Snapshot
from gpuscope.metrics import HOST_DEVICE, Metric, Reading, series_name
from gpuscope.telemetry.feed import DEMO_LABEL, FeedDevice, RingFeed, TelemetryFeed
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.texts import verbatim
from gpuscope.ui import render
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.telemetry.page import (
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
GPU0 = FeedDevice("0000:03:00.0", verbatim("GPU 0: AMD Radeon RX 7900 XTX"), 0)
GPU1 = FeedDevice("0000:0a:00.0", verbatim("GPU 1: NVIDIA GeForce RTX 4090"), 1)
HOST = FeedDevice(HOST_DEVICE, verbatim("Host"), None)
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
    assert page.warning_keys(Metric.TEMP_JUNCTION_C) == {GPU1.key}
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
    assert page.warning_keys(Metric.POWER_W) == frozenset()


def test_a_lost_gpu_shows_its_reason_in_its_legend_entry(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    lost = FeedDevice(GPU1.key, GPU1.name, 1, lost_reason="NVML: GPU is lost (Xid 79)")
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
    assert chart.hover is not None
    chart.hover.on_mouse_moved((scene_point,))
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
    from gpuscope.telemetry.feed import demo_feed

    page.set_feed(demo_feed(2, minutes=2))
    assert page.source_label.text().startswith(DEMO_LABEL.english())
    assert "demo data" in page.source_label.text().lower()


def write_empty_snapshot(folder: Path) -> Path:
    path = folder / "empty.json"
    path.write_text(json.dumps(Snapshot(meta={"description": "nothing"}).to_json()))
    return path


def test_fast_curve_bounds_and_path_follow_each_update(qtbot: Any) -> None:
    import pyqtgraph as pg

    from gpuscope.ui.telemetry.page import FastCurve

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


# ----------------------------------------------------------------------------- browsing


def send_wheel(widget: Any, steps: int, at: float = 0.5) -> None:
    """Wheel steps over a chart, `at` across its width (positive steps: zoom in)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    viewport = widget.viewport()
    viewport.repaint()  # as on screen: the view maps the mouse with its last painted range
    centre = QPointF(viewport.width() * at, viewport.height() / 2)
    event = QWheelEvent(centre, viewport.mapToGlobal(centre), QPoint(0, 0),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, event)


def drag(qtbot: Any, widget: Any, from_x: int, to_x: int) -> None:
    """A left-button drag across a chart, paced as a hand moves (pyqtgraph drops mouse
    moves that come faster than 100 Hz)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    viewport = widget.viewport()
    viewport.repaint()
    y = viewport.height() / 2
    left = Qt.MouseButton.LeftButton
    none = Qt.MouseButton.NoButton

    def send(kind: QEvent.Type, x: float, button: Qt.MouseButton,
             buttons: Qt.MouseButton) -> None:
        point = QPointF(x, y)
        QApplication.sendEvent(viewport, QMouseEvent(
            kind, point, viewport.mapToGlobal(point), button, buttons,
            Qt.KeyboardModifier.NoModifier))

    send(QEvent.Type.MouseButtonPress, from_x, left, left)
    steps = 6
    for step in range(1, steps + 1):
        qtbot.wait(15)
        send(QEvent.Type.MouseMove, from_x + (to_x - from_x) * step / steps, none, left)
    qtbot.wait(15)
    send(QEvent.Type.MouseButtonRelease, to_x, left, none)


def x_range(page: TelemetryPage, metric: Metric) -> tuple[float, float]:
    (x0, x1), _ = page.charts[metric].view_box.viewRange()
    return float(x0), float(x1)


def test_a_range_in_the_middle_is_decimated_at_the_plot_width_and_all_charts_show_it(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    start, end = T0 - 2700.0, T0 - 900.0  # 30 min in the middle of the hour
    page.set_view_range(start, end)
    assert not page.is_following
    assert page.view_range is not None
    assert (page.view_range.start_s, page.view_range.end_s) == (start, end)
    ranges = {x_range(page, metric) for metric in page.charts}
    assert len(ranges) == 1  # every chart on the one range
    x0, x1 = ranges.pop()
    width = int(page.charts[Metric.POWER_W].view_box.width())
    for metric in (Metric.POWER_W, Metric.TEMP_JUNCTION_C):
        x = curve_x(page, metric, GPU1)
        # The visible range and one range width either side, nothing more.
        assert x.min() >= x0 - (x1 - x0) - 2 and x.max() <= x1 + (x1 - x0) + 2
        visible = (x >= x0) & (x <= x1)
        assert visible.sum() <= 2 * width + 4 < 1800  # decimated, not every sample
    # Min/max decimation: the sine's swings over the range survive.
    y = curve_y(page, Metric.POWER_W, GPU0)
    visible = (curve_x(page, Metric.POWER_W, GPU0) >= x0) & (
        curve_x(page, Metric.POWER_W, GPU0) <= x1)
    assert np.nanmax(y[visible]) == pytest.approx(150.0, abs=0.1)
    assert np.nanmin(y[visible]) == pytest.approx(50.0, abs=0.1)
    # The overview boxes the range; the axis shows clock times.
    region = page.overview.region_s
    assert region[0] == pytest.approx(start) and region[1] == pytest.approx(end)
    assert page.charts[Metric.POWER_W].time_axis.clock
    assert "stats are over this range" in page.view_note.text()


def test_stats_follow_the_visible_range(page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(3600)
    # The junction ramp of GPU 1 goes from 60 °C an hour ago to 99 °C now.
    rows = {row.name: row for row in page.charts[Metric.TEMP_JUNCTION_C].legend.rows}
    assert rows["GPU 1"].cells[0] == "99.0"
    page.set_view_range(T0 - 2400.0, T0 - 1200.0)
    chart = page.charts[Metric.TEMP_JUNCTION_C]
    assert chart.legend.headers == ("last", "min", "avg", "max")
    rows = {row.name: row for row in chart.legend.rows}
    ramp = 60.0 + 39.0 * (np.arange(3600) / 3599.0)
    sample_times = T0 - 3599.0 + np.arange(3600)
    inside = ramp[(sample_times >= T0 - 2400.0) & (sample_times <= T0 - 1200.0)]
    last, low, mean, high = (float(c) for c in rows["GPU 1"].cells)
    assert last == pytest.approx(inside[-1], abs=0.05)
    assert low == pytest.approx(inside.min(), abs=0.05)
    assert mean == pytest.approx(inside.mean(), abs=0.05)
    assert high == pytest.approx(inside.max(), abs=0.05)
    assert not rows["GPU 1"].warning  # 86 °C at the end of this range: below 95
    # A preset over a finished feed: that much up to the end of the range on show.
    page.set_window_s(300)
    assert not page.is_following and page.view_range == type(page.view_range)(
        T0 - 1500.0, T0 - 1200.0)
    page.follow_live()  # the newest samples again: "now"
    assert page.is_following
    assert page.charts[Metric.TEMP_JUNCTION_C].legend.headers[0] == "now"


def test_wheel_zoom_stops_following_a_live_feed_and_back_to_live_follows_again(
        qtbot: Any, page: TelemetryPage, data: Fixture) -> None:
    live = RingFeed((GPU0, GPU1, HOST), data.rings, latest=data.readings, now=data.clock,
                    live=True, label="Live test feed")
    page.set_feed(live)
    page.set_window_s(900)
    assert page.is_following and not page.live_button.isVisible()
    chart = page.charts[Metric.GPU_UTIL_PERCENT]
    send_wheel(chart.plot_widget, 3, at=0.4)  # zoom in, left of the middle
    assert not page.is_following
    assert page.live_button.isVisible()
    view = page.view_range
    assert view is not None and view.width_s < 900 * 0.9
    assert view.end_s < data.clock.now  # the zoom moved away from "now"
    assert len({x_range(page, metric) for metric in page.charts}) == 1
    # The redraw follows once the burst of wheel steps settles.
    qtbot.waitUntil(lambda: curve_x(page, Metric.POWER_W, GPU0).max() <= (
        view.end_s + view.width_s - page.x_origin + 2.0), timeout=2000)
    # New samples arrive: the range on show stays where it is.
    data.grow(30)
    page.redraw()
    assert page.view_range == view
    assert checked_window(page) is None
    page.live_button.click()
    assert page.is_following and not page.live_button.isVisible()
    assert page.frame_now == data.clock.now
    assert x_range(page, Metric.GPU_UTIL_PERCENT) == (-900.0, 900.0 * 0.03)
    assert checked_window(page) == 900


def checked_window(page: TelemetryPage) -> int | None:
    button = page.window_buttons.checkedButton()
    return None if button is None else page.window_buttons.id(button)


def test_drag_pans_and_stays_inside_the_data(qtbot: Any, page: TelemetryPage,
                                             data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_view_range(T0 - 1800.0, T0 - 1200.0)
    before = page.view_range
    assert before is not None
    widget = page.charts[Metric.POWER_W].plot_widget
    drag(qtbot, widget, 100, 300)  # content to the right: earlier times
    after = page.view_range
    assert after is not None
    assert after.width_s == pytest.approx(before.width_s)
    assert after.start_s < before.start_s - 60
    for _ in range(4):  # far past the oldest sample
        drag(qtbot, widget, 50, 450)
    oldest = page.view_range
    first, _last = page.data_extent() or (0.0, 0.0)
    assert oldest is not None and oldest.start_s == pytest.approx(first)
    assert oldest.width_s == pytest.approx(before.width_s)
    assert len({x_range(page, metric) for metric in page.charts}) == 1


def test_the_overview_box_moves_the_charts_and_fit_all_shows_everything(
        qtbot: Any, page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_window_s(300)
    page.overview.range_requested.emit(T0 - 3000.0, T0 - 2400.0)  # the user moved the box
    qtbot.waitUntil(lambda: page.view_range is not None
                    and page.view_range.start_s == T0 - 3000.0, timeout=1000)
    assert not page.is_following
    page.overview.centre_on(T0 - 1000.0)  # a click beside the box
    view = page.view_range
    assert view is not None and view.start_s == pytest.approx(T0 - 1300.0)
    # "5 min" over a recording-like feed: 5 min up to the end of the range on show.
    page.window_buttons.button(300).click()
    assert page.view_range == type(view)(view.end_s - 300.0, view.end_s)
    page.all_button.click()
    first, last = page.data_extent() or (0.0, 0.0)
    assert page.view_range is not None
    assert (page.view_range.start_s, page.view_range.end_s) == (first, last)
    assert page.all_button.isChecked()
    x = curve_x(page, Metric.POWER_W, GPU0)
    width = int(page.charts[Metric.POWER_W].view_box.width())
    column_s = (last - first) / width
    assert first - page.x_origin <= x.min() <= first - page.x_origin + column_s
    assert len(x) <= 2 * width + 4


def test_crosshair_readout_while_browsing_reads_the_time_under_the_mouse(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    page.set_view_range(T0 - 2400.0, T0 - 1200.0)
    x = (T0 - 1800.0) - page.x_origin
    text = page.readout_text(Metric.GPU_UTIL_PERCENT, x)
    assert time.strftime("%H:%M:%S", time.localtime(T0 - 1800.0)) in text
    assert "(−29:59)" in text and "GPU 1 80.0" in text  # "now" is the newest sample, T0 - 1


def test_a_long_static_feed_is_browsed_from_its_pyramid(page: TelemetryPage) -> None:
    """A day at 2 Hz: fitting it all decimates a summary, not 172,800 samples, and keeps the
    one-sample spike; the stats are the whole day's."""
    from gpuscope.telemetry.decimate import MinMaxPyramid

    n = 172_800
    times = T0 - 86_400.0 + np.arange(n) * 0.5
    power = 100.0 + 20.0 * np.sin(np.arange(n) / 5000.0)
    power[123_456] = 480.0
    name = series_name(GPU0.key, Metric.POWER_W)
    ring = SeriesRing([name], n)
    ring.append_rows(times, {name: power})
    pyramid = MinMaxPyramid(times, power[np.newaxis, :])
    feed = RingFeed((GPU0,), {GPU0.key: ring}, summaries={GPU0.key: pyramid})
    page.set_feed(feed)
    page.fit_all()
    chart = page.charts[Metric.POWER_W]
    x, y = chart.curve_data[GPU0.key]
    width = int(chart.view_box.width())
    assert len(y) <= 4 * width + 8
    assert 480.0 in y and float(times[123_456]) - page.x_origin in x
    rows = {row.name: row for row in chart.legend.rows}
    assert rows["GPU 0"].cells == (format_value(power[-1]), format_value(power.min()),
                                   format_value(power.mean()), "480")
    # Zoomed into a few minutes: the samples themselves.
    page.set_view_range(float(times[1000]), float(times[1400]))
    x, y = chart.curve_data[GPU0.key]
    visible = (x >= times[1000] - page.x_origin) & (x <= times[1400] - page.x_origin)
    assert visible.sum() == 401


# ----------------------------------------------------------------------------- processes


def process_feed(data: Fixture, live: bool = True) -> RingFeed:
    from gpuscope.metrics import GpuProcess, ProcessSnapshot

    snapshots = {
        GPU0.key: ProcessSnapshot(T0, (
            GpuProcess(4242, "python3", 6.5 * 2**30, "compute"),
            GpuProcess(1001, "Xorg", 0.25 * 2**30, "graphics"),
            GpuProcess(5150, None, None, "compute"))),
        GPU1.key: ProcessSnapshot(T0, (), None, "nvml: nvmlDeviceGetComputeRunningProcesses: "
                                  "Insufficient Permissions"),
    }
    return RingFeed((GPU0, GPU1, HOST), data.rings, latest=data.readings, now=data.clock,
                    live=live, label="feed with processes", processes=snapshots)


def test_the_process_table_lists_each_gpus_processes_or_why_not(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(process_feed(data))
    table = page.process_table
    assert table.isVisible()
    assert table.plain_text().splitlines() == [
        "GPU 0  4242  python3  6.50  compute",
        "GPU 0  1001  Xorg  0.25  graphics",
        "GPU 0  5150  (name not readable)  —  compute",
        "GPU 1  not available: nvml: nvmlDeviceGetComputeRunningProcesses: Insufficient "
        "Permissions",
    ]
    assert table.table.rowCount() == 4 and table.table.columnSpan(3, 1) == 4
    assert "listed every few seconds" in table.note.text()
    assert time.strftime("%H:%M:%S", time.localtime(T0)) in table.note.text()


def test_a_live_gpu_without_a_process_list_yet_is_waiting_and_a_recording_says_once(
        page: TelemetryPage, data: Fixture) -> None:
    live = RingFeed((GPU0, GPU1, HOST), data.rings, now=data.clock, live=True)
    page.set_feed(live)
    assert page.process_table.plain_text().splitlines() == [
        "All GPUs  waiting for the first process list"]
    recorded = RingFeed((GPU0, GPU1, HOST), data.rings,
                        processes_missing="process lists are not stored in recordings")
    page.set_feed(recorded)
    assert page.process_table.plain_text() == (
        "All GPUs  not available: process lists are not stored in recordings")
    plain = RingFeed((GPU0, GPU1, HOST), data.rings)  # a finished feed that never had any
    page.set_feed(plain)
    assert not page.process_table.isVisible()


# ----------------------------------------------------------------------------- strips


def strip_feed(cores: int = 4) -> tuple[RingFeed, dict[str, SeriesRing]]:
    """Ten minutes at 1 Hz: GPU 0 power-capped in the second half, GPU 1 hot in the last
    minute, GPU 2 without throttle status; per-core host load 0, 33, 66, 100 %."""
    from gpuscope.metrics import ThrottleReason

    gpu2 = FeedDevice("0000:0b:00.0", verbatim("GPU 2: Test GPU"), 2)
    times = T0 - 600.0 + np.arange(600, dtype=np.float64)
    flags0 = np.where(np.arange(600) >= 300, float(ThrottleReason.POWER), 0.0)
    flags1 = np.where(np.arange(600) >= 540,
                      float(ThrottleReason.THERMAL | ThrottleReason.POWER), 0.0)
    flags1[100:110] = np.nan
    rings: dict[str, SeriesRing] = {}
    for device, flags in ((GPU0, flags0), (GPU1, flags1), (gpu2, None)):
        names = [series_name(device.key, Metric.GPU_UTIL_PERCENT),
                 series_name(device.key, Metric.THROTTLE_REASONS)]
        ring = SeriesRing(names, 600)
        ring.append_rows(times, {names[0]: np.full(600, 50.0),
                                 names[1]: flags if flags is not None else np.full(600, np.nan)})
        rings[device.key] = ring
    host_names = [series_name(HOST_DEVICE, Metric.HOST_CPU_PERCENT)] + [
        series_name(HOST_DEVICE, f"cpu{core}_percent") for core in range(cores)]
    host = SeriesRing(host_names, 600)
    columns = {host_names[0]: np.full(600, 50.0)}
    for core in range(cores):
        columns[host_names[1 + core]] = np.full(600, 100.0 * core / max(cores - 1, 1))
    host.append_rows(times, columns)
    rings[HOST_DEVICE] = host
    readings = {series_name(gpu2.key, Metric.THROTTLE_REASONS): Reading(
        None, missing_reason="amdsmi: throttle status not supported by this GPU")}
    feed = RingFeed((GPU0, GPU1, gpu2, HOST), rings, latest=readings, now=float(times[-1]),
                    label="strips")
    return feed, rings


def image_colour(strip: Any, row: int, at: float) -> tuple[int, int, int, int]:
    """The RGBA of a strip's image at `at` across it (0..1), row `row`."""
    image = strip.image_data
    column = min(image.shape[1] - 1, int(at * image.shape[1]))
    return tuple(int(c) for c in image[row, column])  # type: ignore[return-value]


def test_the_throttle_strip_colours_each_gpus_reasons_and_says_why_one_has_none(
        page: TelemetryPage) -> None:
    from gpuscope.ui.telemetry.strips import NO_SAMPLE_COLOR, THROTTLE_COLORS

    colours = {reason.name: color for reason, color in THROTTLE_COLORS}
    feed, _ = strip_feed()
    page.set_feed(feed)
    page.set_window_s(600)
    strip = page.throttle_strip
    assert strip is not None and strip.rows == ("GPU 0", "GPU 1", "GPU 2")
    assert Metric.THROTTLE_REASONS not in page.charts  # flags are not a line
    power = colours["POWER"]
    thermal = colours["THERMAL"]
    assert image_colour(strip, 0, 0.25)[3] == 0  # not throttled: nothing drawn
    assert image_colour(strip, 0, 0.75)[:3] == (power.red(), power.green(), power.blue())
    # GPU 1 at the end: thermal and power, drawn as the more serious, thermal.
    assert image_colour(strip, 1, 0.99)[:3] == (thermal.red(), thermal.green(), thermal.blue())
    grey = NO_SAMPLE_COLOR
    assert image_colour(strip, 2, 0.5) == (grey.red(), grey.green(), grey.blue(), grey.alpha())
    caption = strip.caption_text.splitlines()
    assert caption[0] == "■ GPU 0: power cap at the end; slowed 50 % of the range (power cap 50 %)"
    assert caption[1].startswith("■ GPU 1: power cap, thermal at the end; slowed 10 % of the "
                                 "range")
    assert caption[2] == ("■ GPU 2: not available: amdsmi: throttle status not supported by "
                          "this GPU")
    # Over the first half only, GPU 0 was not throttled.
    page.set_view_range(T0 - 600.0, T0 - 320.0)
    assert page.throttle_strip is not None
    line = page.throttle_strip.caption_text.splitlines()[0]
    assert line == "■ GPU 0: not throttled at the end; slowed 0 % of the range"
    text = page.strip_readout_text(page.throttle_strip, (T0 - 100.0) - page.x_origin, 0)
    assert text.endswith("GPU 0: power cap")


def test_the_per_core_strip_shows_each_cores_load(page: TelemetryPage) -> None:
    from gpuscope.ui.telemetry.strips import heat_lut

    feed, _ = strip_feed(cores=4)
    page.set_feed(feed)
    page.set_window_s(600)
    strip = page.cores_strip
    assert strip is not None and strip.rows == ("0", "1", "2", "3")
    lut = heat_lut()
    assert image_colour(strip, 0, 0.5) == tuple(int(c) for c in lut[0])  # idle core
    assert image_colour(strip, 3, 0.5) == tuple(int(c) for c in lut[255])  # busy core
    assert "busiest in the range: core 3 (avg 100 %)" in strip.caption_text
    text = page.strip_readout_text(strip, -60.0, 1)
    assert text.endswith("core 1: 33.3 %")
    # The host CPU total is still a chart of its own.
    assert Metric.HOST_CPU_PERCENT in page.charts


def test_a_page_without_throttle_or_core_series_has_no_strips(
        page: TelemetryPage, data: Fixture) -> None:
    page.set_feed(data.feed)
    assert page.throttle_strip is None and page.cores_strip is None


# ----------------------------------------------------------------------------- recordings


def test_a_recording_opens_off_the_gui_thread_and_shows_all_of_it_with_reasons(
        qtbot: Any, page: TelemetryPage, tmp_path: Path) -> None:
    from gpuscope.telemetry.recorder import write_recording

    path = tmp_path / "r.sqlite"
    times = T0 + np.arange(1200, dtype=np.float64)
    util = np.full(1200, 40.0)
    fan = np.full(1200, 900.0)
    fan[1000:] = np.nan  # the fan sensor went away for the last 200 s
    write_recording(path, times, {series_name(GPU0.key, Metric.GPU_UTIL_PERCENT): util,
                                  series_name(GPU0.key, Metric.FAN_RPM): fan},
                    rate_hz=1.0)
    import sqlite3

    with sqlite3.connect(path) as db:  # as the recorder writes a reason change
        series_id = db.execute("SELECT id FROM series WHERE name = ?",
                               (series_name(GPU0.key, Metric.FAN_RPM),)).fetchone()[0]
        db.execute("INSERT INTO missing VALUES (?, ?, ?)", (T0 + 1000, series_id,
                                                           "hwmon fan1_input vanished"))
    progress: list[float] = []
    page.loader.progress.connect(lambda fraction, _what: progress.append(fraction))
    with qtbot.waitSignal(page.recording_opened, timeout=10_000) as opened:
        page.open_recording(path)
        assert page.stack.currentWidget() is page.loading_panel
    assert opened.args == [str(path)]
    assert progress and progress[-1] == 1.0
    assert page.stack.currentWidget() is page.scroll_area
    assert page.source_label.text().startswith("Recording r.sqlite, ")
    assert page.pause_button.isHidden()  # nothing arrives to pause
    view = page.view_range
    assert view is not None and (view.start_s, view.end_s) == (T0, T0 + 1199)
    assert page.all_button.isChecked()
    # At the end the fan was missing, with its reason; earlier on it was not.
    page.set_view_range(T0 + 1050, T0 + 1150)
    fan_chart = page.charts[Metric.FAN_RPM]
    assert fan_chart.message == "not available: hwmon fan1_input vanished"
    page.set_view_range(T0 + 100, T0 + 200)
    assert fan_chart.message == ""
    assert fan_chart.legend.rows[0].cells[0] == "900"
    # A preset chosen over a recording stays on while the range is as wide (a pan too).
    assert page.window_buttons.checkedButton() is None  # 100 s: a range of one's own
    page.set_window_s(300)
    assert page.window_buttons.checkedButton() is page.window_buttons.button(300)
    page.set_view_range(T0 + 500, T0 + 800)
    assert page.window_buttons.checkedButton() is page.window_buttons.button(300)
    assert not page.all_button.isChecked()
    page.set_view_range(T0 + 500, T0 + 700)
    assert page.window_buttons.checkedButton() is None


def test_a_narrow_range_of_a_recording_is_read_off_the_gui_thread_then_drawn(
        qtbot: Any, page: TelemetryPage, tmp_path: Path) -> None:
    """Too narrow for its summaries: the samples are read on a worker thread (the frame
    meanwhile stands in with the summaries) and the page redraws once they are read."""
    from gpuscope.telemetry.recorder import write_recording

    path = tmp_path / "r.sqlite"
    times = T0 + np.arange(3600, dtype=np.float64)
    util = np.full(3600, 10.0)
    util[1150], util[1303] = 77.0, 95.0  # in the view, and just after it
    write_recording(path, times, {series_name(GPU0.key, Metric.GPU_UTIL_PERCENT): util},
                    rate_hz=1.0)
    with qtbot.waitSignal(page.recording_opened, timeout=10_000):
        page.open_recording(path)
    drawn = page.frames_drawn
    page.set_view_range(T0 + 1000, T0 + 1300)
    assert page.frame._browsed[GPU0.key].stand_in  # drawn at once, from the summaries
    qtbot.waitUntil(lambda: not page.frame.view_samples.pending
                    and not any(done.stand_in for done in page.frame._browsed.values()),
                    timeout=10_000)
    assert page.frames_drawn >= drawn + 1
    assert page.frame.stats_of(GPU0.key, Metric.GPU_UTIL_PERCENT).maximum == 77.0
    x, _ = page.frame.curve(GPU0.key, Metric.GPU_UTIL_PERCENT)  # type: ignore[misc]
    shown = x + page.frame.time.origin
    inside = (shown >= T0 + 1000) & (shown <= T0 + 1300)
    assert np.array_equal(shown[inside], times[1000:1301])  # every sample of the view


def test_a_file_that_is_not_a_recording_says_why_and_the_page_keeps_going(
        qtbot: Any, page: TelemetryPage, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a recording")
    with qtbot.waitSignal(page.recording_failed, timeout=10_000) as failed:
        page.open_recording(path)
    assert failed.args[0] == str(path)
    assert "not a gpuscope recording" in failed.args[1]
    assert page.stack.currentWidget() is page.empty_label
    assert page.empty_label.text().startswith("Could not open notes.txt: ")
    assert not page.is_loading


def test_a_recording_whose_samples_turn_out_damaged_says_so_while_drawing(
        qtbot: Any, page: TelemetryPage, tmp_path: Path) -> None:
    """Version 3 reads samples on demand: a damaged chunk met while drawing is a line in the
    view note, not an exception out of the timer."""
    source = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_recordings"
    path = tmp_path / "damaged.sqlite"
    path.write_bytes((source / "v3-random-data.sqlite").read_bytes())
    with qtbot.waitSignal(page.recording_opened, timeout=10_000):
        page.open_recording(path)
    page.redraw(force=True)
    assert page.view_note.isVisibleTo(page)
    assert page.view_note.text().startswith("Could not read this part of the recording: ")
    assert "damaged recording" in page.view_note.text()


def test_cancelling_a_load_ignores_its_answer(qtbot: Any, page: TelemetryPage,
                                              tmp_path: Path) -> None:
    from gpuscope.telemetry.recorder import write_recording

    path = tmp_path / "r.sqlite"
    write_recording(path, T0 + np.arange(10.0),
                    {series_name(GPU0.key, Metric.POWER_W): np.full(10, 100.0)}, rate_hz=1.0)
    opened: list[str] = []
    page.recording_opened.connect(opened.append)
    page.open_recording(path)
    page.cancel_loading()
    assert not page.is_loading and page.stack.currentWidget() is page.empty_label
    qtbot.wait(300)
    assert opened == [] and page.feed is None


# ----------------------------------------------------------------------------- the axis


def test_clock_ticks_fall_on_whole_clock_steps_and_ranges_stay_inside_the_data() -> None:
    from gpuscope.telemetry.frame import clamp_range
    from gpuscope.ui.telemetry.time_axis import TimeAxis, clock_spacing, utc_offset_s

    assert clock_spacing(600.0, 420.0) == (120, 60)  # 10 min over 420 px: every 2 min
    assert clock_spacing(86_400.0, 900.0) == (7200, 3600)  # a day: every 2 h
    assert clock_spacing(30 * 86_400.0, 300.0)[0] % 86_400 == 0
    axis = TimeAxis()
    origin = 1_800_000_123.4
    axis.set_clock(origin)
    levels = axis.tickSpacing(-700.0, -100.0, 420.0)
    (major, offset), _ = levels
    first_tick = math.ceil((-700.0 - offset) / major) * major + offset
    assert (origin + first_tick + utc_offset_s(origin)) % major == pytest.approx(0.0, abs=1e-6)
    assert axis.tickStrings([first_tick], 1.0, major) == [
        time.strftime("%H:%M", time.localtime(origin + first_tick))]
    axis.set_window(300)
    assert not axis.clock and axis.tickStrings([0.0, -120.0], 1.0, 60) == ["now", "−2 min"]
    # A pan past the newest sample keeps its width and stops at the end.
    view = clamp_range(900.0, 1300.0, 0.0, 1000.0)
    assert (view.start_s, view.end_s) == (600.0, 1000.0)
    view = clamp_range(-50.0, 50.0, 0.0, 1000.0)
    assert (view.start_s, view.end_s) == (0.0, 100.0)
    assert clamp_range(10.0, 11.0, 0.0, 1000.0).width_s == 5.0  # no narrower than 5 s
    assert clamp_range(-1e9, 1e9, 0.0, 1000.0) == type(view)(0.0, 1000.0)


def test_the_sampler_feed_hands_over_the_samplers_process_lists() -> None:
    from gpuscope.metrics import GpuProcess, ProcessSnapshot
    from gpuscope.telemetry.feed_adapters import SamplerFeed
    from gpuscope.telemetry.sampler import Sampler
    from gpuscope.telemetry.sources import BaseSource

    class Source(BaseSource):
        device = GPU0.key
        label = "fake GPU"

        def metrics(self) -> tuple[str, ...]:
            return ("gpu_util_percent",)

        def read(self) -> dict[str, Reading]:
            return {"gpu_util_percent": Reading(10.0, "fake")}

        def processes(self) -> ProcessSnapshot | None:
            return ProcessSnapshot(T0, (GpuProcess(7, "python3", 2.0**30, "compute"),),
                                   "fake:list")

    sampler = Sampler([Source()], rate_hz=10.0)
    try:
        sampler.tick()
        feed = SamplerFeed(sampler, ())
        deadline = time.monotonic() + 5
        while feed.processes(GPU0.key) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        snapshot = feed.processes(GPU0.key)
        assert snapshot is not None and snapshot.processes[0].name == "python3"
        assert feed.processes("nope") is None
    finally:
        sampler.stop()


def test_render_a_recording_zoomed_into_its_middle(tmp_path: Path) -> None:
    from gpuscope.telemetry.recorder import write_recording

    path = tmp_path / "r.sqlite"
    times = T0 + np.arange(3600, dtype=np.float64)
    util = np.where((times >= T0 + 1500) & (times < T0 + 2100), 95.0, 10.0)
    write_recording(path, times, {series_name(GPU0.key, Metric.GPU_UTIL_PERCENT): util},
                    rate_hz=1.0)
    out = tmp_path / "zoomed.png"
    code = render.main(["--page", "telemetry", "--recording", str(path), "--replay",
                        str(write_empty_snapshot(tmp_path)), "--telemetry-range", "1200:2400",
                        "-o", str(out)])
    assert code == 0 and QImage(str(out)).width() == 1100
    assert render.main(["--page", "telemetry", "--recording", str(path), "--replay",
                        str(write_empty_snapshot(tmp_path)), "--telemetry-range", "soon",
                        "-o", str(out)]) == 2
