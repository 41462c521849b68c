"""Telemetry pictures worth posting (issue #12): a recording fills its charts, a replay's
single readings show "at capture", clock ticks never repeat a label, titles fit, and
`gpuscope screenshot --recording` shows the recording on the page and in the report."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fixture_paths import SNAPSHOTS_DIR
from PySide6.QtGui import QImage

from gpuscope.metrics import HOST_DEVICE, Metric, Reading, series_name
from gpuscope.telemetry.feed import FeedDevice, RingFeed
from gpuscope.telemetry.feed_adapters import recording_feed
from gpuscope.telemetry.frame import FIT_STEPS_S
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.texts import verbatim
from gpuscope.ui.telemetry.chart import ElidedLabel, TelemetryChart
from gpuscope.ui.telemetry.page import TelemetryPage
from gpuscope.ui.telemetry.time_axis import TimeAxis
from gpuscope.ui.theme import gpu_color

RECORDING = SNAPSHOTS_DIR.parent / "recordings" / "nvidia_h200_bench.sqlite"
RX7900 = str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
T0 = 1_795_746_665.0  # 2026-11-27 02:31:05 UTC
GPU0 = FeedDevice("0000:03:00.0", verbatim("GPU 0: AMD Radeon RX 7900 XTX"), 0)
HOST = FeedDevice(HOST_DEVICE, verbatim("Host"), None)
FAN_REASON = "amdsmi: vendor libraries are not read for a replayed snapshot"


@pytest.fixture
def page(qtbot: Any) -> Iterator[TelemetryPage]:
    widget = TelemetryPage()
    qtbot.addWidget(widget)
    widget.resize(1100, 750)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.close()


def pixels_of(image: QImage) -> np.ndarray:
    """(height, width, 3) of blue, green, red."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = data.reshape(image.height(), image.bytesPerLine() // 4, 4)
    return rows[:, : image.width(), :3].astype(int)


def bluish(image: QImage) -> np.ndarray:
    """A (height, width) mask of the pixels drawn in a saturated blue, as GPU 0's lines
    (#4c8df6) are, antialiased edges included; never the greys of grids, axes and text."""
    blue, green, red = np.moveaxis(pixels_of(image), 2, 0)
    return np.asarray((blue - red >= 50) & (blue - green >= 20))


def curve_pixels(chart: TelemetryChart) -> np.ndarray:
    """A (height, width) mask of what the chart's curves draw: its plot with them, against
    its plot without them."""
    drawn = pixels_of(chart.plot_widget.grab().toImage())
    for curve in chart.curves.values():
        curve.setVisible(False)
    try:
        bare = pixels_of(chart.plot_widget.grab().toImage())
    finally:
        for curve in chart.curves.values():
            curve.setVisible(True)
    return np.asarray((drawn != bare).any(axis=2))


def spread(mask: np.ndarray) -> int:
    """How many pixel columns lie between the first and the last column drawn in."""
    columns = np.flatnonzero(mask.any(axis=0))
    return int(columns[-1] - columns[0]) if len(columns) else 0


# ----------------------------------------------------------------------------- a recording


def test_a_recording_fills_every_chart_that_has_data_with_visible_curves(
        page: TelemetryPage, qtbot: Any) -> None:
    feed = recording_feed(RECORDING)
    page.resize(1100, 3200)  # every chart on screen
    page.set_feed(feed)
    page.fit_all()
    qtbot.wait(50)
    page.redraw(force=True)
    extent = page.data_extent()
    view = page.view_range
    assert extent is not None and view is not None
    assert (view.start_s, view.end_s) == pytest.approx(extent)  # all of it, nothing more
    with_data = [c for c in page.charts.values() if not c.message]
    assert len(with_data) >= 10
    for chart in with_data:
        assert chart.body.isVisible() and chart.plot_widget.isVisible(), chart.info.label
        device = chart.devices[0]
        x, _ = chart.curve_data[device.key]
        x0, x1 = chart.x_range or (0.0, 0.0)
        assert x[0] <= x0 + 1.0 and x[-1] >= x1 - 1.0, chart.info.label  # end to end
        # A line across the plot, not a sliver at one end.
        assert spread(curve_pixels(chart)) > 0.8 * chart.view_box.width(), chart.info.label


def test_a_preset_window_longer_than_a_recording_shows_all_of_it(page: TelemetryPage) -> None:
    page.set_feed(recording_feed(RECORDING))
    page.fit_all()
    page.set_window_s(300)
    extent = page.data_extent()
    view = page.view_range
    assert extent is not None and view is not None
    assert view.start_s <= extent[0] + 1e-6 and view.end_s >= extent[1] - 1e-6
    assert view.width_s < 60  # the 48 s there are, not 5 minutes of nothing


def test_seconds_of_live_data_fill_the_chart_instead_of_a_sliver(page: TelemetryPage) -> None:
    name = series_name(GPU0.key, Metric.GPU_UTIL_PERCENT)
    ring = SeriesRing([name], 100)
    ring.append_rows(T0 + np.arange(13, dtype=np.float64) * 0.25,
                     {name: np.linspace(0.0, 100.0, 13)})
    page.set_feed(RingFeed((GPU0,), {GPU0.key: ring}, now=T0 + 3.0, live=True))
    chart = page.charts[Metric.GPU_UTIL_PERCENT]
    x0, x1 = chart.x_range or (0.0, 0.0)
    assert x1 - x0 < 10.0  # a 5 s window (and the sliver past "now"), not 300 s
    assert spread(curve_pixels(chart)) > 0.5 * chart.view_box.width()


# ----------------------------------------------------------------------------- a replay


def capture_feed() -> RingFeed:
    names = {m: series_name(GPU0.key, m) for m in
             (Metric.GPU_UTIL_PERCENT, Metric.TEMP_JUNCTION_C, Metric.FAN_RPM)}
    ring = SeriesRing(list(names.values()), 10)
    ring.append_rows(np.array([time.time()]), {
        names[Metric.GPU_UTIL_PERCENT]: np.array([3.0]),
        names[Metric.TEMP_JUNCTION_C]: np.array([48.0]),
        names[Metric.FAN_RPM]: np.array([np.nan])})
    host = series_name(HOST_DEVICE, Metric.HOST_CPU_PERCENT)
    host_ring = SeriesRing([host], 10)
    host_ring.append_rows(np.array([time.time()]), {host: np.array([12.5])})
    latest = {names[Metric.FAN_RPM]: Reading(None, missing_reason=FAN_REASON)}
    return RingFeed((GPU0, HOST), {GPU0.key: ring, HOST_DEVICE: host_ring}, latest=latest,
                    live=True, label="Replay of x.json", at_capture=True, captured_at_s=T0)


def test_a_replay_shows_single_readings_at_capture_not_min_avg_max(
        page: TelemetryPage) -> None:
    page.set_feed(capture_feed())
    captured = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(T0))
    util = page.charts[Metric.GPU_UTIL_PERCENT]
    text = util.capture_text
    assert "3.00" in text and "%" in text
    assert f"at capture, {captured}" in text
    # Neither a flat line nor a table of min/avg/max of one value.
    assert not util.body.isVisible() and not util.legend.isVisible()
    assert util.capture_view.isVisible()
    assert "min" not in text and "avg" not in text and "–" not in text
    assert "12.5" in page.charts[Metric.HOST_CPU_PERCENT].capture_text
    fan = page.charts[Metric.FAN_RPM].capture_text
    assert f"not available: {FAN_REASON}" in fan and "at capture" not in fan
    # No time to choose among: no window presets, overview or time strips.
    assert not page.overview.isVisible()
    assert not any(b.isVisible() for b in page.window_buttons.buttons())
    assert page.strips is None
    assert page.pause_button.isHidden()
    assert captured in page.view_note.text() and "gpuscope record" in page.view_note.text()


def test_a_replay_without_its_capture_time_says_so(page: TelemetryPage) -> None:
    feed = capture_feed()
    page.set_feed(RingFeed(feed.devices(), {d.key: r for d in feed.devices()
                                            if (r := feed.ring(d.key)) is not None},
                           live=True, at_capture=True))
    text = page.charts[Metric.GPU_UTIL_PERCENT].capture_text
    assert text.splitlines()[-1] == "at capture"
    assert time.strftime("%Y-%m-%d") not in text  # never stamped with today's date
    assert "A snapshot holds one reading of each metric." in page.view_note.text()


def test_a_feed_over_time_after_a_replay_shows_its_curves_again(page: TelemetryPage) -> None:
    page.set_feed(capture_feed())
    page.set_feed(recording_feed(RECORDING))
    chart = page.charts[Metric.GPU_UTIL_PERCENT]
    assert not chart.body.isHidden() and not chart.legend.isHidden()
    assert chart.capture_view.isHidden() and not page.overview.isHidden()


# ----------------------------------------------------------------------------- time labels


@pytest.mark.parametrize("span_s", [2.0, 3.0, 4.5, 12.0, 48.0, 100.0, 700.0, 5000.0,
                                    90_000.0, 400_000.0])
@pytest.mark.parametrize("pixels", [300.0, 830.0, 1700.0])
def test_clock_ticks_never_repeat_a_label(qtbot: Any, span_s: float, pixels: float) -> None:
    axis = TimeAxis()
    origin = T0 + 0.37  # a "now" between two seconds, as a live frame's is
    axis.set_clock(origin)
    labels: list[str] = []
    for spacing, values in axis.tickValues(-span_s, 0.0, pixels):
        labels += [text for text in axis.tickStrings(values, 1.0, spacing) if text]
    assert labels and len(labels) == len(set(labels)), labels


@pytest.mark.parametrize("window_s", FIT_STEPS_S)
def test_relative_ticks_of_every_fitted_window_are_distinct(qtbot: Any, window_s: int) -> None:
    axis = TimeAxis()
    axis.set_window(window_s)
    labels: list[str] = []
    for spacing, values in axis.tickValues(-window_s, window_s * 0.03, 450.0):
        labels += [text for text in axis.tickStrings(values, 1.0, spacing) if text]
    assert "now" in labels and len(labels) == len(set(labels)), labels
    assert any(text.startswith("−") for text in labels)


def test_sub_second_ticks_are_left_unlabelled_not_rounded(qtbot: Any) -> None:
    axis = TimeAxis()
    axis.set_clock(T0)
    levels = axis.tickValues(-3.0, 0.0, 830.0)
    assert levels[-1][0] == 0.5  # half-second minor ticks at this width
    assert axis.tickStrings(levels[-1][1], 1.0, 0.5) == [""] * len(levels[-1][1])


# ----------------------------------------------------------------------------- text that fits


@pytest.mark.parametrize("size", [(1100, 750), (1920, 1080)])
def test_every_chart_title_fits_at_the_window_sizes(page: TelemetryPage, qtbot: Any,
                                                    size: tuple[int, int]) -> None:
    # The page inside a 1100x750 or 1920x1080 window: less the sidebar and margins.
    page.resize(size[0] - 170, size[1] - 80)
    page.set_feed(recording_feed(RECORDING))
    qtbot.wait(20)
    titles = [c.title for c in page.charts.values()]
    assert any("junction" in t.text() for t in titles)
    for title in titles:
        assert isinstance(title, ElidedLabel)
        assert not title.is_elided(), title.text()
        assert title.fontMetrics().horizontalAdvance(title.text()) <= title.width()


def test_a_title_too_long_for_its_panel_is_cut_with_its_text_in_the_tooltip(
        qtbot: Any) -> None:
    label = ElidedLabel("Temperature (junction/hotspot) (°C)")
    qtbot.addWidget(label)
    label.resize(90, 20)
    label.show()
    assert label.is_elided() and label.shown_text().endswith("…")
    assert label.toolTip() == "Temperature (junction/hotspot) (°C)"
    assert label.fontMetrics().horizontalAdvance(label.shown_text()) <= label.width()
    assert label.minimumSizeHint().width() < label.sizeHint().width()
    label.resize(600, 20)
    assert not label.is_elided() and label.toolTip() == ""


# ----------------------------------------------------------------------------- screenshot


def test_screenshot_with_a_recording_shows_it_on_the_page_and_in_the_report(
        qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuscope.ui.report import render as report_render
    from gpuscope.ui.screenshot import take_screenshots

    reports: list[Any] = []
    save = report_render.save_report_png

    def keep(report: Any, path: Any) -> Any:
        reports.append(report)
        return save(report, path)

    monkeypatch.setattr(report_render, "save_report_png", keep)
    paths = take_screenshots(tmp_path, replay=RX7900, recording=str(RECORDING))
    telemetry = next(p for p in paths if re.match(r"\d\d-telemetry\.png", p.name))
    assert gpu_color(0).name() == "#4c8df6"
    mask = bluish(QImage(str(telemetry)))
    # The first row of charts (utilization, VRAM), below the overview strip (which draws
    # the utilization too) and the throttle strip: each a line across its plot.
    mask = mask[mask.shape[0] * 2 // 5:]
    width = mask.shape[1]
    for half in (mask[:, : width * 3 // 5], mask[:, width * 3 // 5:]):
        columns = np.flatnonzero(half.any(axis=0))
        assert len(columns) > 250, len(columns)
    strip = reports[0].telemetry
    assert strip is not None and not strip.live
    assert "nvidia_h200_bench.sqlite" in strip.source
    assert strip.started_unix_s == pytest.approx(1795746155.17, abs=1.0)  # its first sample


def test_screenshot_of_a_file_that_is_not_a_recording_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gpuscope", "screenshot", "--out",
                           str(tmp_path / "shots"), "--recording", RX7900],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("gpuscope: ") and "is not a gpuscope recording" in last
    assert "Traceback" not in done.stderr and done.stdout == ""
