"""The Telemetry page: one chart per metric, one line per GPU (in the GPU's colour used across
the app), read from a `TelemetryFeed`; a strip of throttle reasons per GPU, a heat strip of
the host's CPU cores, a table of the processes on each GPU, and an overview of everything
there is with the visible range boxed.

Two ways to look: *following* (the last 1/5/15/60 min, or all, ending "now"; live feeds move
on) and *browsing* a fixed range of time (wheel zoom, drag pan, the overview's box, or
`set_view_range`). Zooming or panning a live feed into the past stops following; "Back to
live" (or a window preset) follows again. Every chart and strip shows the same range.

Charts redraw on the page's own timer (4 Hz by default), never on sample arrival. While
following, each redraw takes the window from each device's ring buffer, decimates it to about
two points per pixel column (`decimate.py`: spikes and gaps survive) and `setData`s curves
created once; between full passes (about every 4 s) it appends the newer samples. While
browsing, the visible range and one range-width on each side (so a drag shows data at once)
are decimated afresh only when the range, the width or the data in it change; an opened
recording's min/max pyramid makes that cheap however wide the range. The stats (now or last,
min, avg, max) are over the visible range. Texts (legend tables, the y range, the process
table) change at most once a second, and only when they differ.
"""

from __future__ import annotations

import html
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpuscope.metrics import (
    CATALOGUE,
    GPU_METRICS,
    HOST_DEVICE,
    HOST_METRICS,
    Metric,
    MetricKind,
    series_name,
    throttle_reason_names,
)
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.ui import pixmap_cache
from gpuscope.ui.decimate import MinMaxPyramid, bin_columns, decimate_block
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.telemetry_chart import (
    _NO_STATS,
    HOST_COLOR,
    LEGEND_HEADERS,
    PAST_LEGEND_HEADERS,
    PLOT_HEIGHT,
    FastCurve,
    LegendRow,
    LegendTable,
    RelativeTimeAxis,
    SeriesStats,
    TelemetryChart,
    chart_title,
    format_ago,
    format_value,
    nice_ceiling,
    window_label,
)
from gpuscope.ui.telemetry_feed import (
    FeedDevice,
    ProcessFeed,
    ReasonFeed,
    SummaryFeed,
    TelemetryFeed,
)
from gpuscope.ui.telemetry_loader import RecordingLoader
from gpuscope.ui.telemetry_overview import OverviewStrip
from gpuscope.ui.telemetry_processes import ProcessRow, ProcessTable, process_rows
from gpuscope.ui.telemetry_strips import (
    CORE_ROW_PX_RANGE,
    StripChart,
    heat_gradient_css,
    heat_rgba,
    throttle_legend_html,
    throttle_rgba,
    throttle_shares,
)
from gpuscope.ui.telemetry_time import MIN_VIEW_S, TimeRange, clamp_range
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, gpu_color

__all__ = [
    "CHART_METRICS", "DEFAULT_REDRAW_HZ", "DEFAULT_WINDOW_S", "HOST_COLOR", "LEGEND_HEADERS",
    "NO_FEED_TEXT", "PLOT_HEIGHT", "WINDOWS_S", "FastCurve", "LegendRow", "LegendTable",
    "RelativeTimeAxis", "SeriesStats", "TelemetryChart", "TelemetryPage", "chart_title",
    "format_ago", "format_value", "nice_ceiling", "window_label",
]

FloatArray = npt.NDArray[np.float64]

NO_FEED_TEXT = QT_TRANSLATE_NOOP("TelemetryPage",
                                 "Live telemetry starts when a sampler is attached")
WINDOWS_S: tuple[int, ...] = (60, 300, 900, 3600)
DEFAULT_WINDOW_S = 300
DEFAULT_REDRAW_HZ = 4.0
TEXT_INTERVAL_S = 1.0  # legend tables and y ranges change at most this often
BASE_REFRESH_S = 4.0  # a device's window is decimated afresh about this often
OVERVIEW_REFRESH_S = 2.0  # a live overview is redrawn about this often
RANGE_SETTLE_MS = 40  # after a wheel step or drag move, redraw once the burst settles
ALL_BUTTON_ID = 0
# Shown as the top of another chart's y range, not as charts of their own.
REFERENCE_TOPS: dict[Metric, Metric] = {
    Metric.VRAM_USED_BYTES: Metric.VRAM_TOTAL_BYTES, Metric.POWER_W: Metric.POWER_CAP_W,
}
# Throttle reasons are flags, drawn as a strip, never as a line.
CHART_GPU_METRICS: tuple[Metric, ...] = tuple(
    m for m in GPU_METRICS
    if m not in REFERENCE_TOPS.values() and CATALOGUE[m].kind is not MetricKind.FLAGS)
CHART_METRICS: tuple[Metric, ...] = CHART_GPU_METRICS + HOST_METRICS
MIN_CHART_WIDTH = 380
_CORE_METRIC = re.compile(r"^cpu(\d+)_percent$")
OVERVIEW_METRICS: tuple[Metric, ...] = (Metric.GPU_UTIL_PERCENT, Metric.HOST_CPU_PERCENT)


def span_text(seconds: float) -> str:
    """"45 s", "5 min", "2 h 13 min", "3 d 4 h"."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return translate("TelemetryPage", "{seconds} s").format(seconds=f"{seconds:.0f}")
    minutes = round(seconds / 60)
    if minutes < 120:
        return translate("TelemetryPage", "{minutes} min").format(minutes=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return (translate("TelemetryPage", "{hours} h {minutes} min").format(
            hours=hours, minutes=minutes) if minutes
            else translate("TelemetryPage", "{hours} h").format(hours=hours))
    days, hours = divmod(hours, 24)
    return (translate("TelemetryPage", "{days} d {hours} h").format(days=days, hours=hours)
            if hours else translate("TelemetryPage", "{days} d").format(days=days))


@dataclass(frozen=True, slots=True)
class _Base:
    """Following: a device's last full decimation of its window."""

    key: tuple[int, int]  # (window, columns) it was decimated for
    last_time: float  # the newest sample it holds
    points: list[tuple[FloatArray, FloatArray]]  # per series: absolute times, stored values
    means: tuple[float | None, ...]  # per series, over the window, in stored units
    built_at: float  # page clock


@dataclass(frozen=True, slots=True)
class _Browsed:
    """Browsing: what a device's curves show, and its stats over the visible range."""

    key: tuple[float, float, int, float | None]  # (start, end, columns, newest sample)
    stats: tuple[SeriesStats, ...]  # per charted series, in stored units


@dataclass(frozen=True, slots=True)
class _StripBuild:
    key: tuple[float, float, int, float | None]  # (lo, hi, columns, newest sample)
    lo: float  # unix seconds of the image's two ends
    hi: float


@dataclass(frozen=True, slots=True)
class _ThrottleRow:
    device: FeedDevice
    name: str | None  # the series, None where the ring has none
    last: float | None  # the newest flags in the shown range
    shares: tuple[float, dict[str, float]] | None  # slowed share and per reason, in range


class TelemetryPage(QWidget):
    """Charts of every GPU and the host from a `TelemetryFeed` (`set_feed`, or
    `open_recording(path)`)."""

    # Reuse each device's decimated window between text refreshes (the benchmark's naive
    # page turns it off).
    reuse_base = True

    recording_opened = Signal(str)  # path
    recording_failed = Signal(str, str)  # path, reason

    def __init__(self, parent: QWidget | None = None, *,
                 redraw_hz: float = DEFAULT_REDRAW_HZ) -> None:
        super().__init__(parent)
        self._feed: TelemetryFeed | None = None
        self._devices: tuple[FeedDevice, ...] = ()
        self._window_s = DEFAULT_WINDOW_S
        self._fit_all = False  # following everything there is, not a window
        self._following = True
        self._view: TimeRange | None = None  # browsing: the range on show (unix seconds)
        self._origin = 0.0  # browsing: the time at chart x = 0
        self._x_origin = 0.0  # the time at chart x = 0 in the frame on show
        self._frame_window = float(DEFAULT_WINDOW_S)
        self._paused = False
        self._frame_now: float | None = None
        self._texts_due_at = 0.0
        self._overview_due_at = 0.0
        self._overview_key: tuple[tuple[float, float], int, int] | None = None
        self._columns_count = 0
        self.charts: dict[Metric, TelemetryChart] = {}
        self.throttle_strip: StripChart | None = None
        self.cores_strip: StripChart | None = None
        # Per device: the (metric, series name) pairs charted from its ring.
        self._device_series: dict[str, list[tuple[Metric, str]]] = {}
        self._bases: dict[str, _Base] = {}
        self._browsed: dict[str, _Browsed] = {}
        self._throttle_rows: tuple[_ThrottleRow, ...] = ()
        self._throttle_build: _StripBuild | None = None
        self._core_series: tuple[tuple[int, str], ...] = ()
        self._cores_build: _StripBuild | None = None
        self._core_means: tuple[float | None, ...] = ()
        self.frames_drawn = 0
        # The clock of the once-a-second text refresh; the benchmark steps it per frame.
        self.clock: Callable[[], float] = time.monotonic

        self.timer = QTimer(self)
        self.timer.setObjectName("telemetryRedrawTimer")
        self.timer.setInterval(max(10, round(1000.0 / redraw_hz)))
        self.timer.timeout.connect(self.redraw)
        self._settle = QTimer(self)
        self._settle.setObjectName("telemetryRangeSettleTimer")
        self._settle.setSingleShot(True)
        self._settle.setInterval(RANGE_SETTLE_MS)
        self._settle.timeout.connect(lambda: self.redraw(force=True))
        self.loader = RecordingLoader(self)
        self.loader.progress.connect(self._on_load_progress)
        self.loader.loaded.connect(self._on_recording_loaded)
        self.loader.failed.connect(self._on_recording_failed)

        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 8)
        column.setSpacing(6)
        column.addLayout(self._build_bar())

        self.device_legend = QLabel()
        self.device_legend.setObjectName("deviceLegend")
        self.device_legend.setTextFormat(Qt.TextFormat.RichText)
        self.device_legend.setWordWrap(True)
        column.addWidget(self.device_legend)
        self.overview = OverviewStrip()
        self.overview.range_requested.connect(self._on_overview_range)
        column.addWidget(self.overview)
        self.view_note = QLabel()
        self.view_note.setObjectName("viewNote")
        self.view_note.setTextFormat(Qt.TextFormat.PlainText)
        self.view_note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.view_note.setWordWrap(True)
        column.addWidget(self.view_note)
        self.pause_note = QLabel()
        self.pause_note.setObjectName("pauseNote")
        self.pause_note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.pause_note.setVisible(False)
        column.addWidget(self.pause_note)

        self.stack = QStackedWidget()
        self.empty_label = QLabel(self.tr(NO_FEED_TEXT))
        self.empty_label.setObjectName("noFeed")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.loading_panel = self._build_loading_panel()
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(10)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.process_table = ProcessTable()
        self.process_table.setVisible(False)
        self.scroll_area.setWidget(self.grid_host)
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.loading_panel)
        self.stack.addWidget(self.scroll_area)
        column.addWidget(self.stack, 1)
        self._show_feed_state()

    def _build_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        bar.setSpacing(6)
        title = QLabel(self.tr("Telemetry"))
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        title.setFont(font)
        bar.addWidget(title)
        self.source_label = QLabel()
        self.source_label.setObjectName("feedLabel")
        self.source_label.setTextFormat(Qt.TextFormat.PlainText)
        self.source_label.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.source_label.setWordWrap(True)  # a long label wraps, never widens the window
        bar.addWidget(self.source_label, 1)
        self.live_button = QPushButton(self.tr("Back to live"))
        self.live_button.setObjectName("liveButton")
        self.live_button.setToolTip(self.tr("Follow the newest samples again"))
        self.live_button.setStyleSheet(f"color: {ERROR_COLOR.name()}; font-weight: bold;")
        self.live_button.clicked.connect(self.follow_live)
        self.live_button.setVisible(False)
        bar.addWidget(self.live_button)
        self.window_buttons = QButtonGroup(self)
        self.window_buttons.setExclusive(True)
        for seconds in WINDOWS_S:
            button = QPushButton(window_label(seconds))
            button.setCheckable(True)
            button.setChecked(seconds == self._window_s)
            button.setToolTip(self.tr("Show the last {window}").format(
                window=window_label(seconds)))
            self.window_buttons.addButton(button, seconds)
            bar.addWidget(button)
        self.all_button = QPushButton(self.tr("All"))
        self.all_button.setCheckable(True)
        self.all_button.setToolTip(self.tr("Fit everything there is"))
        self.window_buttons.addButton(self.all_button, ALL_BUTTON_ID)
        bar.addWidget(self.all_button)
        self.window_buttons.idClicked.connect(self._on_window_button)
        self.pause_button = QPushButton(self.tr("Pause"))
        self.pause_button.setToolTip(self.tr("Hold the charts still; samples keep being "
                                             "collected"))
        self.pause_button.clicked.connect(self.toggle_pause)
        bar.addSpacing(8)
        bar.addWidget(self.pause_button)
        return bar

    def _build_loading_panel(self) -> QWidget:
        panel = QWidget()
        column = QVBoxLayout(panel)
        column.addStretch(1)
        self.loading_label = QLabel()
        self.loading_label.setObjectName("loadingLabel")
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.loading_label.setWordWrap(True)
        column.addWidget(self.loading_label)
        self.loading_bar = QProgressBar()
        self.loading_bar.setRange(0, 1000)
        self.loading_bar.setTextVisible(False)
        self.loading_bar.setMaximumWidth(420)
        column.addWidget(self.loading_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        self.loading_cancel = QPushButton(self.tr("Cancel"))
        self.loading_cancel.clicked.connect(self.cancel_loading)
        column.addWidget(self.loading_cancel, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        return panel

    # ------------------------------------------------------------------ public

    @property
    def feed(self) -> TelemetryFeed | None:
        return self._feed

    def set_feed(self, feed: TelemetryFeed | None) -> None:
        """Chart `feed` (None: show that no sampler is attached), following its newest
        samples with the current window."""
        self._feed = feed
        self._frame_now = None
        self._following = True
        self._fit_all = False
        self._view = None
        self._rebuild_charts()
        self._show_feed_state()
        self._sync_buttons()
        if feed is not None:
            self.redraw(force=True)
        self._sync_timer()

    def open_recording(self, path: str | Path) -> None:
        """Read the recording at `path` off the GUI thread (with progress and Cancel) and
        chart all of it; `recording_opened(path)` or `recording_failed(path, reason)` follows.
        """
        self.loading_label.setText(self.tr("Opening {name}…").format(name=Path(path).name))
        self.loading_bar.setValue(0)
        self.stack.setCurrentWidget(self.loading_panel)
        self.loader.start(path)

    def cancel_loading(self) -> None:
        """Stop opening a recording; the page shows what it showed before."""
        self.loader.cancel()
        self._show_feed_state()

    @property
    def is_loading(self) -> bool:
        return self.loader.is_running

    @property
    def window_s(self) -> int:
        return self._window_s

    def set_window_s(self, seconds: int) -> None:
        """Show a window of `seconds` (one of WINDOWS_S, or any positive number): the last
        `seconds` of a live feed, following it; of anything else, the `seconds` up to the end
        of the range on show."""
        if seconds <= 0:
            raise ValueError("the window must be positive")
        self._window_s = int(seconds)
        self._fit_all = False
        feed = self._feed
        if feed is not None and not feed.live and not self._following and self._view:
            end = self._view.end_s
            self._browse_to(end - seconds, end, defer=False)
            self._sync_buttons()
            return
        self._start_following()

    def fit_all(self) -> None:
        """Show everything there is: a live feed's whole history, following it; all of a
        recording."""
        feed = self._feed
        self._fit_all = True
        if feed is None or feed.live:
            self._start_following()
            return
        extent = self._extent(feed, feed.now_s())
        if extent is not None:
            self._browse_to(extent[0], extent[1], defer=False, fit_all=True)
        self._sync_buttons()

    def set_view_range(self, start_s: float, end_s: float) -> None:
        """Browse [start, end] (unix seconds, kept inside the data): a live feed stops being
        followed until `follow_live()`."""
        self._browse_to(start_s, end_s, defer=False)

    def data_extent(self) -> tuple[float, float] | None:
        """(first, last) unix time of the data (a live feed's last is "now")."""
        feed = self._feed
        if feed is None:
            return None
        return self._extent(feed, self._frame_now if self._frame_now is not None
                            else feed.now_s())

    @property
    def view_range(self) -> TimeRange | None:
        """The range on show, in unix seconds (None before the first frame)."""
        if not self._following:
            return self._view
        if self._frame_now is None:
            return None
        return TimeRange(self._frame_now - self._frame_window, self._frame_now)

    @property
    def is_following(self) -> bool:
        return self._following

    def follow_live(self) -> None:
        """Follow the newest samples again, with the last window chosen (resumes if
        paused)."""
        if self._paused:
            self._paused = False
            self._show_pause_state()
        self._start_following()
        self._sync_timer()

    @property
    def is_paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        """Hold the charts still (the feed keeps collecting)."""
        if self._paused:
            return
        self._paused = True
        self._show_pause_state()
        self._sync_timer()

    def resume(self) -> None:
        if not self._paused:
            return
        self._paused = False
        self._show_pause_state()
        self.redraw(force=True)
        self._sync_timer()

    def toggle_pause(self) -> None:
        if self._paused:
            self.resume()
        else:
            self.pause()

    @property
    def frame_now(self) -> float | None:
        """The "now" of the frame on show."""
        return self._frame_now

    def shutdown(self) -> None:
        """Stop redrawing and loading (the window closes); safe to call more than once."""
        self.timer.stop()
        self._settle.stop()
        self.loader.cancel()
        for chart in self.charts.values():
            chart.stop_proxy()
        for strip in self._strips():
            strip.stop_proxy()

    def redraw(self, force: bool = False) -> None:
        """One frame: take the range on show from the rings, decimate, update every chart.
        The timer calls it; `force` redraws even while paused and refreshes every text now."""
        feed = self._feed
        if feed is None or (self._paused and not force):
            return
        devices = tuple(feed.devices())
        if tuple(d.key for d in devices) != tuple(d.key for d in self._devices):
            self._rebuild_charts()
            force = True
        elif devices != self._devices:
            self._devices = devices
            force = True
        frozen = self._frame_now if self._paused else None
        now = frozen if frozen is not None else feed.now_s()
        self._frame_now = now
        texts_due = force or self.clock() >= self._texts_due_at
        if self._following:
            self._draw_following(feed, now, force, texts_due)
        else:
            self._draw_browsing(feed, force, texts_due)
        self._draw_strips(feed, force or texts_due)
        self._draw_overview(feed, now)
        if texts_due:
            self._texts_due_at = self.clock() + TEXT_INTERVAL_S
            self._update_device_legend()
            self._update_strip_texts(feed)
            self._update_processes(feed)
            self._update_view_note()
        self.frames_drawn += 1

    def readout_text(self, metric: Metric, x_s: float) -> str:
        """The crosshair readout of chart `metric` at `x_s` seconds from the frame's origin
        (its "now" while following): the time, then each device's value there (plain
        text)."""
        chart = self.charts.get(metric)
        if chart is None or self._feed is None or self._frame_now is None:
            return ""
        when = self._x_origin + x_s
        parts = [self._when_text(when)]
        for device, value in self._values_at(chart, when):
            parts.append(f"{device.short_label} {format_value(value)}")
        return "  ".join(parts) + (f" {chart.info.unit}" if chart.info.unit else "")

    def show_readout(self, metric: Metric, x_s: float | None) -> None:
        """Show the crosshair of chart `metric` at `x_s` (None hides it)."""
        chart = self.charts.get(metric)
        if chart is None:
            return
        if x_s is None or self._frame_now is None or self._feed is None:
            chart.crosshair.setVisible(False)
            chart.readout.setText("")
            return
        chart.crosshair.setPos(x_s)
        chart.crosshair.setVisible(True)
        when = self._x_origin + x_s
        pieces = [html.escape(self._when_text(when))]
        for device, value in self._values_at(chart, when):
            color = chart.color_of(device).name()
            pieces.append(f"<span style='color:{color}'>■</span>&nbsp;"
                          f"{html.escape(device.short_label)}&nbsp;{format_value(value)}")
        unit = f" {html.escape(chart.info.unit)}" if chart.info.unit else ""
        chart.readout.setText("&nbsp;&nbsp;".join(pieces) + unit)

    def strip_readout_text(self, strip: StripChart, x_s: float, row: int | None) -> str:
        """The hover readout of a strip at `x_s` (plain text): the time, then the reasons of
        each GPU (or the one under the mouse), or the load of the core under the mouse."""
        feed = self._feed
        if feed is None:
            return ""
        when = self._x_origin + x_s
        tolerance = self._tolerance()
        parts = [self._when_text(when)]
        if strip is self.throttle_strip:
            rows = self._throttle_rows
            chosen = [rows[row]] if row is not None and row < len(rows) else list(rows)
            for entry in chosen:
                value = (None if entry.name is None else
                         _value_near(feed.ring(entry.device.key), entry.name, when,
                                     tolerance, 1.0))
                words = (self.tr("no sample") if value is None else
                         _reason_words(value) or self.tr("not throttled"))
                parts.append(f"{entry.device.short_label}: {words}")
        elif strip is self.cores_strip and row is not None and row < len(self._core_series):
            core, name = self._core_series[row]
            value = _value_near(feed.ring(HOST_DEVICE), name, when, tolerance, 1.0)
            parts.append(self.tr("core {core}: {load} %").format(core=core,
                                                                 load=format_value(value)))
        return "  ".join(parts)

    # ------------------------------------------------------------------ events

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._feed is not None and not self._paused:
            self.redraw(force=True)
        self._sync_timer()

    def hideEvent(self, event: QHideEvent) -> None:
        self.timer.stop()
        self._settle.stop()
        for chart in self.charts.values():
            chart.stop_proxy()
        for strip in self._strips():
            strip.stop_proxy()
        super().hideEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        pixmap_cache.ensure_room(self.width(), self.height(), self.devicePixelRatioF())
        self._layout_charts()

    # ------------------------------------------------------------------ the range

    def _on_window_button(self, button_id: int) -> None:
        if button_id == ALL_BUTTON_ID:
            self.fit_all()
        else:
            self.set_window_s(button_id)

    def _start_following(self) -> None:
        self._following = True
        self._view = None
        self._bases = {}
        self._browsed = {}
        self._sync_buttons()
        self.redraw(force=True)

    def _browse_to(self, start_s: float, end_s: float, *, defer: bool,
                   fit_all: bool = False) -> None:
        """Show [start, end] (kept inside the data), not following. `defer`: a burst of
        mouse moves is redrawn once it settles; the axes move at once."""
        feed = self._feed
        if feed is None:
            return
        now = self._frame_now if self._frame_now is not None else feed.now_s()
        extent = self._extent(feed, now)
        if extent is None:
            return
        first, last = extent
        pad = (end_s - start_s) * 0.03 if feed.live else 0.0
        view = clamp_range(start_s, end_s, first, last, min(MIN_VIEW_S, max(last - first, 1e-3)),
                           pad)
        self._fit_all = fit_all
        if self._following:
            self._origin = self._x_origin if self._frame_now is not None else now
            self._following = False
            self._sync_buttons()
        self._view = view
        self._x_origin = self._origin
        self._sync_buttons()
        self._apply_x_range(view.start_s - self._origin, view.end_s - self._origin)
        self._update_view_note()
        self.overview.set_region(view.start_s, view.end_s)
        if defer:
            self._settle.start()
        else:
            self._settle.stop()
            self.redraw(force=True)

    def _on_manual_range(self, view_box: pg.ViewBox) -> None:
        """The user zoomed or panned one chart: every chart follows, and it stops following
        the newest samples."""
        (x0, x1), _ = view_box.viewRange()
        # Moved by the mouse: set it again (clamped) even where it equals the last range set.
        for chart in self.charts.values():
            if chart.view_box is view_box:
                chart.x_range = None
        for strip in self._strips():
            if strip.view_box is view_box:
                strip.x_range = None
        self._browse_to(self._x_origin + float(x0), self._x_origin + float(x1), defer=True)

    def _on_overview_range(self, start_s: float, end_s: float) -> None:
        self._browse_to(start_s, end_s, defer=True)

    def _apply_x_range(self, x0: float, x1: float) -> None:
        for chart in self.charts.values():
            chart.set_x_range(x0, x1)
        for strip in self._strips():
            strip.set_x_range(x0, x1)

    def _set_axes(self, clock: bool, origin: float, window_s: float) -> None:
        axes = [chart.time_axis for chart in self.charts.values()]
        axes += [strip.time_axis for strip in self._strips()]
        for axis in axes:
            if clock:
                axis.set_clock(origin)
            elif axis.clock or axis.window_s != round(window_s):
                axis.set_window(round(window_s))

    def _extent(self, feed: TelemetryFeed, now: float) -> tuple[float, float] | None:
        """(first, last) sample time over every device; a live feed's last is "now"."""
        spans = [span for d in self._devices
                 if (ring := feed.ring(d.key)) is not None and (span := ring.time_span())]
        if not spans:
            return None
        first = min(s[0] for s in spans)
        last = max(s[1] for s in spans)
        return first, max(last, now) if feed.live else last

    def _sync_buttons(self) -> None:
        feed = self._feed
        live = feed is not None and feed.live
        self.live_button.setVisible(live and not self._following)
        wanted = (self.all_button if self._fit_all and (self._following or not live)
                  else self.window_buttons.button(self._window_s) if self._following
                  else None)
        if wanted is not None:
            wanted.setChecked(True)
        elif (checked := self.window_buttons.checkedButton()) is not None:
            # A range of the user's own: no preset is on.
            self.window_buttons.setExclusive(False)
            checked.setChecked(False)
            self.window_buttons.setExclusive(True)
        for seconds in WINDOWS_S:
            label = window_label(seconds)
            self.window_buttons.button(seconds).setToolTip(
                self.tr("Show the last {window}").format(window=label) if live or self._following
                else self.tr("Show {window} up to the end of the range on show").format(
                    window=label))

    def _update_view_note(self) -> None:
        feed = self._feed
        if feed is None:
            self.view_note.setVisible(False)
            return
        view = self.view_range
        if self._following or view is None:
            text = (self.tr("Wheel over a chart zooms, dragging pans; the overview's box moves "
                            "too.")
                    if feed.live else
                    self.tr("Wheel over a chart zooms, dragging pans; drag the overview's box "
                            "to go anywhere."))
        else:
            extent = self._extent(feed, self._frame_now or view.end_s)
            day = time.strftime("%Y-%m-%d", time.localtime(view.start_s))
            text = (self.tr("Showing {day} {start} to {end} ({width} of {total}); stats are "
                            "over this range.") if extent else
                    self.tr("Showing {day} {start} to {end} ({width}); stats are over this "
                            "range.")).format(
                day=day, start=_clock(view.start_s), end=_clock(view.end_s),
                width=span_text(view.width_s),
                total=span_text(extent[1] - extent[0]) if extent else "")
            if feed.live:
                text += " " + self.tr("Not following live: “Back to live” follows the newest "
                                      "samples.")
        if self.view_note.text() != text:
            self.view_note.setText(text)
        self.view_note.setVisible(True)

    # ------------------------------------------------------------------ internals

    def _show_pause_state(self) -> None:
        if self._paused:
            self.pause_button.setText(self.tr("Resume"))
            self.pause_button.setToolTip(self.tr("Catch up with the samples collected while "
                                                 "paused"))
            when = (time.strftime("%H:%M:%S", time.localtime(self._frame_now))
                    if self._frame_now is not None else "")
            self.pause_note.setText(
                self.tr("Paused at {time}: charts hold still while samples keep being "
                        "collected. Resume to catch up.").format(time=when) if when else
                self.tr("Paused: samples keep being collected. Resume to catch up."))
            self.pause_note.setVisible(True)
        else:
            self.pause_button.setText(self.tr("Pause"))
            self.pause_button.setToolTip(self.tr("Hold the charts still; samples keep being "
                                                 "collected"))
            self.pause_note.setVisible(False)

    def _sync_timer(self) -> None:
        running = self._feed is not None and not self._paused and self.isVisible()
        if running and not self.timer.isActive():
            self.timer.start()
        elif not running and self.timer.isActive():
            self.timer.stop()

    def _show_feed_state(self) -> None:
        feed = self._feed
        if self.loader.is_running:
            self.stack.setCurrentWidget(self.loading_panel)
        elif feed is None:
            self.source_label.setText("")
            self.stack.setCurrentWidget(self.empty_label)
        else:
            self.source_label.setText(feed.label)
            self.stack.setCurrentWidget(self.scroll_area)
        self.pause_button.setEnabled(feed is not None)
        # A recording holds still by itself: nothing arrives to pause.
        self.pause_button.setVisible(feed is None or feed.live)
        for button in self.window_buttons.buttons():
            button.setEnabled(feed is not None)
        self.overview.setVisible(feed is not None)
        self._update_view_note()

    def _on_load_progress(self, fraction: float, what: str) -> None:
        self.loading_bar.setValue(round(1000 * min(max(fraction, 0.0), 1.0)))
        path = self.loader.path
        name = Path(path).name if path else self.tr("the recording")
        self.loading_label.setText(self.tr("Opening {name}: {step}").format(name=name, step=what))

    def _on_recording_loaded(self, path: str, feed: object) -> None:
        if not isinstance(feed, TelemetryFeed):
            return
        self.set_feed(feed)
        self.fit_all()
        self.recording_opened.emit(path)

    def _on_recording_failed(self, path: str, reason: str) -> None:
        self._show_feed_state()
        message = self.tr("Could not open {name}: {reason}").format(name=Path(path).name,
                                                                     reason=reason)
        if self._feed is None:
            self.empty_label.setText(message)
        else:
            self.view_note.setText(message)
            self.view_note.setVisible(True)
        self.recording_failed.emit(path, reason)

    def _strips(self) -> list[StripChart]:
        return [s for s in (self.throttle_strip, self.cores_strip) if s is not None]

    def _rebuild_charts(self) -> None:
        for chart in self.charts.values():
            chart.stop_proxy()
            self.grid.removeWidget(chart)
            chart.deleteLater()
        for strip in self._strips():
            strip.stop_proxy()
            self.grid.removeWidget(strip)
            strip.deleteLater()
        self.grid.removeWidget(self.process_table)
        self.charts = {}
        self.throttle_strip = None
        self.cores_strip = None
        self._device_series = {}
        self._bases = {}
        self._browsed = {}
        self._throttle_rows = ()
        self._throttle_build = None
        self._core_series = ()
        self._cores_build = None
        self._core_means = ()
        self._columns_count = 0
        self.overview.extent = None  # a new feed: a new origin
        self._overview_key = None
        feed = self._feed
        self._devices = tuple(feed.devices()) if feed is not None else ()
        self._update_device_legend()
        if feed is None:
            self.process_table.setVisible(False)
            return
        rings = {d.key: feed.ring(d.key) for d in self._devices}
        for metric in CHART_METRICS:
            info = CATALOGUE[metric]
            members = [d for d in self._devices
                       if (d.gpu_index is None) == info.host
                       and _has_series(feed, rings[d.key], series_name(d.key, metric))]
            if not members:
                continue
            chart = TelemetryChart(metric, members)
            chart.set_x_window(self._window_s)
            for device in members:
                ring = rings[device.key]
                name = series_name(device.key, metric)
                pen = pg.mkPen(chart.color_of(device), width=1)
                chart.add_curve(device, self._new_curve(chart, pen))
                if ring is not None and name in ring.series:
                    self._device_series.setdefault(device.key, []).append((metric, name))
            chart.connect_hover(self.show_readout)
            chart.view_box.sigRangeChangedManually.connect(
                lambda _mask, box=chart.view_box: self._on_manual_range(box))
            self._init_y_range(chart)
            self.charts[metric] = chart
        self._build_strips(feed, rings)
        self._layout_charts()

    def _build_strips(self, feed: TelemetryFeed,
                      rings: dict[str, SeriesRing | None]) -> None:
        rows: list[_ThrottleRow] = []
        for device in self._devices:
            if device.gpu_index is None:
                continue
            name = series_name(device.key, Metric.THROTTLE_REASONS)
            ring = rings[device.key]
            in_ring = ring is not None and name in ring.series
            if in_ring or feed.latest(name) is not None:
                rows.append(_ThrottleRow(device, name if in_ring else None, None, None))
        if rows:
            strip = StripChart(self.tr("Throttling (why the clocks are held back)"))
            strip.set_rows([r.device.short_label for r in rows])
            self._connect_strip(strip)
            self.throttle_strip = strip
            self._throttle_rows = tuple(rows)
        host = rings.get(HOST_DEVICE)
        if host is not None:
            cores = sorted((int(m.group(1)), name) for name in host.series
                           if (m := _CORE_METRIC.match(name.rpartition("/")[2])))
            if cores:
                low, high = CORE_ROW_PX_RANGE
                row_px = max(low, min(high, 120 // len(cores)))
                strip = StripChart(self.tr("Host CPU per core (%)"), row_px=row_px)
                every = max(1, math.ceil(14 / row_px))
                strip.set_rows([str(core) for core, _ in cores], every)
                self._connect_strip(strip)
                self.cores_strip = strip
                self._core_series = tuple(cores)

    def _connect_strip(self, strip: StripChart) -> None:
        strip.time_axis.set_window(self._window_s)
        strip.connect_hover(self._on_strip_hover)
        strip.view_box.sigRangeChangedManually.connect(
            lambda _mask, box=strip.view_box: self._on_manual_range(box))

    def _on_strip_hover(self, strip: StripChart, x_s: float | None, row: int | None) -> None:
        if x_s is None or self._frame_now is None:
            strip.crosshair.setVisible(False)
            strip.readout.setText("")
            return
        strip.crosshair.setPos(x_s)
        strip.crosshair.setVisible(True)
        strip.readout.setText(html.escape(self.strip_readout_text(strip, x_s, row)))

    def _layout_charts(self) -> None:
        if not self.charts and not self._strips():
            return
        layout = self.layout()
        margins = layout.contentsMargins() if layout is not None else None
        width = self.width() - (margins.left() + margins.right() if margins else 0)
        count = 2 if width >= 2 * MIN_CHART_WIDTH else 1
        if count == self._columns_count:
            return
        self._columns_count = count
        for widget in (*self.charts.values(), *self._strips(), self.process_table):
            self.grid.removeWidget(widget)
        row = 0
        if self.throttle_strip is not None:
            self.grid.addWidget(self.throttle_strip, row, 0, 1, count)
            row += 1
        charts = list(self.charts.values())
        # The process table under the first row of charts (utilization, VRAM): near the
        # VRAM it breaks down.
        first_row, rest = charts[:count], charts[count:]
        for position, chart in enumerate(first_row):
            self.grid.addWidget(chart, row, position)
        row += 1
        self.grid.addWidget(self.process_table, row, 0, 1, count)
        row += 1
        for position, chart in enumerate(rest):
            self.grid.addWidget(chart, row + position // count, position % count)
        row += math.ceil(len(rest) / count)
        if self.cores_strip is not None:
            self.grid.addWidget(self.cores_strip, row, 0, 1, count)
        for col in range(2):
            self.grid.setColumnStretch(col, 1 if col < count else 0)

    def _update_device_legend(self) -> None:
        entries = []
        for device in self._devices:
            color = (HOST_COLOR if device.gpu_index is None else gpu_color(device.gpu_index))
            text = html.escape(device.label)
            if device.lost_reason:
                text += (f" <span style='color:{ERROR_COLOR.name()}'>(lost: "
                         f"{html.escape(device.lost_reason)})</span>")
            entries.append(f"<span style='color:{color.name()}'>■</span>&nbsp;{text}")
        self.device_legend.setText("&nbsp;&nbsp;&nbsp; ".join(entries))
        self.device_legend.setVisible(bool(entries))

    def _plot_columns(self) -> int:
        widths = [int(chart.view_box.width()) for chart in self.charts.values()]
        widest = max(widths, default=0)
        return widest if widest >= 16 else 400

    def _tolerance(self) -> float:
        view = self.view_range
        width = view.width_s if view is not None else float(self._window_s)
        return max(2.0 * width / self._plot_columns(), 1.0)

    # ------------------------------------------------------------------ following

    def _draw_following(self, feed: TelemetryFeed, now: float, force: bool,
                        texts_due: bool) -> None:
        if self._fit_all:
            extent = self._extent(feed, now)
            span = now - extent[0] if extent is not None else float(self._window_s)
            # Whole minutes, so that the axes change once a minute, not every frame.
            window = float(max(60, math.ceil(span / 60.0) * 60))
            key_window = -1
        else:
            window = float(self._window_s)
            key_window = self._window_s
        self._frame_window = window
        self._x_origin = now
        self._set_axes(not feed.live, now, window)
        self._apply_x_range(-window, window * 0.03)
        start = now - window
        columns = self._plot_columns()
        key = (key_window, columns)
        # Enough before the window for the sample that carries the line to its left edge.
        slack = max(2.0 * window / columns, 5.0)
        clock = self.clock()
        charted = [d for d in self._devices
                   if self._device_series.get(d.key) and feed.ring(d.key) is not None]
        # Decimate a device's whole window when its last one is unusable, and otherwise a few
        # devices per frame, stalest first, so each is redone about every 4 s without all
        # landing on one frame; other frames append only the samples newer than it.
        rebuild = {d.key for d in charted
                   if force or not self.reuse_base or self._bases.get(d.key) is None
                   or self._bases[d.key].key != key or now < self._bases[d.key].last_time}
        quota = max(1, math.ceil(len(charted) / 12))
        for device in sorted((d for d in charted if d.key not in rebuild),
                             key=lambda d: self._bases[d.key].built_at)[:quota]:
            if clock - self._bases[device.key].built_at >= BASE_REFRESH_S:
                rebuild.add(device.key)
        for device in charted:
            pairs = self._device_series[device.key]
            ring = feed.ring(device.key)
            assert ring is not None
            names = [name for _, name in pairs]
            base = self._bases.get(device.key)
            if device.key in rebuild or base is None:
                times, block = _take(ring, names, start - slack, now)
                results = self._series_data(times, block, start, now, columns)
                first = int(np.searchsorted(times, start, side="left"))
                means = _means(block[:, first:])
                last = float(times[-1]) if len(times) else start - slack
                self._bases[device.key] = _Base(key, last, results, means, clock)
            else:
                times, block = _take(ring, names, base.last_time, now)
                fresh = int(np.searchsorted(times, base.last_time, side="right"))
                results = [(np.concatenate((x, times[fresh:])),
                            np.concatenate((y, block[row, fresh:])))
                           for row, (x, y) in enumerate(base.points)]
            for (metric, _), (x, y) in zip(pairs, results, strict=True):
                chart = self.charts[metric]
                scale = chart.info.display_scale
                chart.set_curve(device.key, x - now, y * scale if scale != 1.0 else y)
        for chart in self.charts.values():
            chart.update_warning_overlay()
            if texts_due:
                chart.legend.set_headers(LEGEND_HEADERS)
                chart.stats = {d.key: self._curve_stats(chart, d.key) for d in chart.devices}
                self._update_texts(feed, chart)

    def _curve_stats(self, chart: TelemetryChart, key: str) -> SeriesStats:
        """Now/min/max from the curve on show (decimation keeps every column's extremes),
        the mean from the device's last full pass over the window."""
        x, y = chart.curve_data.get(key, (np.empty(0), np.empty(0)))
        inside = y[x >= -self._frame_window]
        finite = inside[np.isfinite(inside)]
        if len(finite) == 0:
            return _NO_STATS
        base = self._bases.get(key)
        mean: float | None = None
        if base is not None:
            row = [metric for metric, _ in self._device_series.get(key, [])]
            if chart.chart_metric in row:
                raw = base.means[row.index(chart.chart_metric)]
                mean = None if raw is None else raw * chart.info.display_scale
        return SeriesStats(float(finite[-1]), float(finite.min()), mean, float(finite.max()))

    # ------------------------------------------------------------------ browsing

    def _draw_browsing(self, feed: TelemetryFeed, force: bool, texts_due: bool) -> None:
        view = self._view
        if view is None:
            return
        origin = self._origin
        self._x_origin = origin
        self._frame_window = view.width_s
        self._set_axes(True, origin, view.width_s)
        self._apply_x_range(view.start_s - origin, view.end_s - origin)
        columns = self._plot_columns()
        # One range width either side, at the same density, so a drag shows data at once.
        lo, hi = view.start_s - view.width_s, view.end_s + view.width_s
        total_columns = columns * 3
        slack = max(2.0 * view.width_s / columns, 1e-3)
        changed = False
        for device in self._devices:
            pairs = self._device_series.get(device.key)
            ring = feed.ring(device.key)
            if not pairs or ring is None:
                continue
            span = ring.time_span()
            newest = span[1] if span is not None and span[1] >= lo else None
            key = (view.start_s, view.end_s, columns, newest)
            done = self._browsed.get(device.key)
            # The same range: redone only for new samples in it, and those at most once a
            # second (a live feed browsed near "now").
            if done is not None and not force and (
                    done.key == key or (done.key[:3] == key[:3] and not texts_due)):
                continue
            changed = True
            names = [name for _, name in pairs]
            pyramid = feed.summary(device.key) if isinstance(feed, SummaryFeed) else None
            results, stats = self._browse_data(ring, pyramid, names, lo, hi, total_columns,
                                               view, slack)
            for (metric, _), (x, y) in zip(pairs, results, strict=True):
                chart = self.charts[metric]
                scale = chart.info.display_scale
                chart.set_curve(device.key, x - origin, y * scale if scale != 1.0 else y)
            self._browsed[device.key] = _Browsed(key, stats)
        for chart in self.charts.values():
            if changed:
                chart.update_warning_overlay()
            if texts_due or changed:
                chart.legend.set_headers(PAST_LEGEND_HEADERS)
                chart.stats = {d.key: self._browse_stats(chart, d.key) for d in chart.devices}
                self._update_texts(feed, chart)

    def _browse_data(self, ring: SeriesRing, pyramid: MinMaxPyramid | None,
                     names: list[str], lo: float, hi: float, columns: int, view: TimeRange,
                     slack: float,
                     ) -> tuple[list[tuple[FloatArray, FloatArray]], tuple[SeriesStats, ...]]:
        """The curves over lo..hi and the stats over the view: from the pyramid when the
        range is wide, from the samples otherwise."""
        if pyramid is not None:
            rows = [ring.series.index(name) for name in names]
            decimated = pyramid.decimate(lo, hi, columns, rows)
            summary = pyramid.stats(view.start_s, view.end_s) if decimated else None
            if decimated is not None and summary is not None:
                return (decimated,
                        tuple(SeriesStats(summary[r].last, summary[r].minimum, summary[r].mean,
                                          summary[r].maximum) for r in rows))
        times, block = _take(ring, names, lo - slack, hi + slack)
        results = self._series_data(times, block, lo, hi, columns)
        first = int(np.searchsorted(times, view.start_s, side="left"))
        stop = int(np.searchsorted(times, view.end_s, side="right"))
        return results, _range_stats(block[:, first:stop])

    def _browse_stats(self, chart: TelemetryChart, key: str) -> SeriesStats:
        done = self._browsed.get(key)
        row = [metric for metric, _ in self._device_series.get(key, [])]
        if done is None or chart.chart_metric not in row:
            return _NO_STATS
        stats = done.stats[row.index(chart.chart_metric)]
        scale = chart.info.display_scale

        def shown(value: float | None) -> float | None:
            return None if value is None else value * scale
        return SeriesStats(shown(stats.current), shown(stats.minimum), shown(stats.mean),
                           shown(stats.maximum))

    # ------------------------------------------------------------------ strips

    def _strip_range(self) -> tuple[float, float, float]:
        """(lo, hi, density factor): what the strips bin, in unix seconds."""
        view = self.view_range
        if view is None:
            return 0.0, 0.0, 1.0
        if self._following:
            return view.start_s, view.end_s, 1.0
        return view.start_s - view.width_s, view.end_s + view.width_s, 3.0

    def _draw_strips(self, feed: TelemetryFeed, due: bool) -> None:
        if not self._strips() or self._frame_now is None:
            return
        lo, hi, factor = self._strip_range()
        if hi <= lo:
            return
        for strip in self._strips():
            columns = max(16, int(strip.view_box.width()) or 400)
            step = (hi - lo) / (columns * factor)
            build = (self._throttle_build if strip is self.throttle_strip
                     else self._cores_build)
            rebuild = (build is None or due or build.key[2] != columns
                       or abs((build.hi - build.lo) - (hi - lo)) > step
                       or (not self._following and build.key[:2] != (lo, hi))
                       or (self._following and abs(lo - build.lo) >= step))
            if rebuild:
                bins = round(columns * factor)
                if strip is self.throttle_strip:
                    self._throttle_build = self._bin_throttle(feed, strip, lo, hi, bins,
                                                              columns)
                else:
                    self._cores_build = self._bin_cores(feed, strip, lo, hi, bins, columns)
                build = (self._throttle_build if strip is self.throttle_strip
                         else self._cores_build)
            if build is not None:
                strip.place(build.lo - self._x_origin, build.hi - self._x_origin)

    def _bin_throttle(self, feed: TelemetryFeed, strip: StripChart, lo: float, hi: float,
                      bins: int, columns: int) -> _StripBuild:
        flags = np.full((len(self._throttle_rows), bins), np.nan)
        view = self.view_range
        rows: list[_ThrottleRow] = []
        newest: float | None = None
        for index, entry in enumerate(self._throttle_rows):
            ring = feed.ring(entry.device.key)
            last: float | None = None
            shares = None
            if entry.name is not None and ring is not None:
                times, columns_of = ring.snapshot(lo, (entry.name,), hi)
                values = columns_of[entry.name]
                flags[index] = _stretch(bin_columns(
                    times, values[np.newaxis, :], lo, hi, _bins_for(bins, len(times)),
                    "or")[0], bins)
                if view is not None:
                    first = int(np.searchsorted(times, view.start_s, side="left"))
                    stop = int(np.searchsorted(times, view.end_s, side="right"))
                    inside = values[first:stop]
                    shares = throttle_shares(inside)
                    finite = inside[~np.isnan(inside)]
                    last = float(finite[-1]) if len(finite) else None
                if len(times):
                    newest = max(newest or float(times[-1]), float(times[-1]))
            rows.append(_ThrottleRow(entry.device, entry.name, last, shares))
        self._throttle_rows = tuple(rows)
        strip.set_image(throttle_rgba(flags), lo - self._x_origin, hi - self._x_origin)
        return _StripBuild((lo, hi, columns, newest), lo, hi)

    def _bin_cores(self, feed: TelemetryFeed, strip: StripChart, lo: float, hi: float,
                   bins: int, columns: int) -> _StripBuild:
        ring = feed.ring(HOST_DEVICE)
        names = [name for _, name in self._core_series]
        if ring is None:
            strip.set_image(np.zeros((0, 0, 4), dtype=np.uint8), 0.0, 0.0)
            return _StripBuild((lo, hi, columns, None), lo, hi)
        times, block = _take(ring, names, lo, hi)
        binned = bin_columns(times, block, lo, hi, _bins_for(bins, len(times)), "mean")
        view = self.view_range
        if view is not None:
            first = int(np.searchsorted(times, view.start_s, side="left"))
            stop = int(np.searchsorted(times, view.end_s, side="right"))
            self._core_means = tuple(m for m in _means(block[:, first:stop]))
        strip.set_image(heat_rgba(binned), lo - self._x_origin, hi - self._x_origin)
        newest = float(times[-1]) if len(times) else None
        return _StripBuild((lo, hi, columns, newest), lo, hi)

    def _update_strip_texts(self, feed: TelemetryFeed) -> None:
        strip = self.throttle_strip
        if strip is not None:
            lines = []
            where = (self.tr("now") if self._following and feed.live
                     else self.tr("at the end"))
            for entry in self._throttle_rows:
                device = entry.device
                color = gpu_color(device.gpu_index or 0).name()
                head = (f"<span style='color:{color}'>■</span>&nbsp;"
                        f"{html.escape(device.short_label)}")
                reading = feed.latest(series_name(device.key, Metric.THROTTLE_REASONS))
                reason = self._reason(feed, series_name(device.key, Metric.THROTTLE_REASONS))
                if entry.shares is None:
                    why = reason or self.tr("no samples in this range")
                    lines.append(f"{head}: <span style='color:{MUTED_COLOR.name()}'>"
                                 + html.escape(self.tr("not available: {reason}").format(
                                     reason=why)) + "</span>")
                    continue
                value = (reading.value if self._following and feed.live and reading is not None
                         and reading.value is not None else entry.last)
                words = _reason_words(value) or self.tr("not throttled")
                slowed, per_reason = entry.shares
                detail = ", ".join(f"{core_text(word)} {_percent(share)}" for word, share in
                                   sorted(per_reason.items(), key=lambda kv: -kv[1]))
                text = f"{head}: " + html.escape(self.tr(
                    "{reasons} {when}; slowed {share} of the range").format(
                        reasons=words, when=where, share=_percent(slowed)))
                if detail:
                    text += f" ({html.escape(detail)})"
                lines.append(text)
            lines.append(f"<span style='color:{MUTED_COLOR.name()}'>"
                         f"{throttle_legend_html()}</span>")
            strip.set_caption("<br>".join(lines))
        cores = self.cores_strip
        if cores is not None:
            busiest = [(mean, core) for (core, _), mean in
                       zip(self._core_series, self._core_means, strict=False)
                       if mean is not None]
            note = ""
            if busiest:
                mean, core = max(busiest)
                note = "; " + self.tr("busiest in the range: core {core} (avg {load} %)").format(
                    core=core, load=f"{mean:.0f}")
            gradient = (f"<span style='{heat_gradient_css()}'>"
                        "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span>")
            cores.set_caption(f"<span style='color:{MUTED_COLOR.name()}'>"
                              + html.escape(self.tr("Mean load per column: 0 %"))
                              + f"</span> {gradient} <span style='color:"
                              f"{MUTED_COLOR.name()}'>100 %{html.escape(note)}</span>")

    # ------------------------------------------------------------------ overview, processes

    def _draw_overview(self, feed: TelemetryFeed, now: float) -> None:
        extent = self._extent(feed, now)
        if extent is None:
            return
        clock = self.clock()
        columns = max(64, int(self.overview.view_box.width()) or 600)
        key = (extent, columns, len(self._devices))
        # Not on every forced frame (each step of a zoom is one) but when what it shows
        # changed; live, once time has moved on by a pixel column (and not more often).
        if key != self._overview_key and (not feed.live or clock >= self._overview_due_at
                                          or self._overview_key is None):
            self._overview_key = key
            self._overview_due_at = clock + max(OVERVIEW_REFRESH_S,
                                                (extent[1] - extent[0]) / columns)
            lines: list[tuple[QColor, FloatArray, FloatArray]] = []
            first, last = extent
            for device in self._devices:
                ring = feed.ring(device.key)
                if ring is None:
                    continue
                for metric in OVERVIEW_METRICS:
                    name = series_name(device.key, metric)
                    if name not in ring.series:
                        continue
                    pyramid = feed.summary(device.key) if isinstance(feed, SummaryFeed) else None
                    points = (pyramid.decimate(first, last, columns,
                                               [ring.series.index(name)])
                              if pyramid is not None else None)
                    if points is not None:
                        x, y = points[0]
                    else:
                        times, block = _take(ring, [name], first, last)
                        x, y = decimate_block(times, block, first, last, columns)[0]
                    color = (HOST_COLOR if device.gpu_index is None
                             else gpu_color(device.gpu_index))
                    lines.append((color, x, y))
            origin = self.overview.origin_s if self.overview.extent is not None else last
            self.overview.set_lines(lines, extent, origin)
        view = self.view_range
        if view is not None:
            self.overview.set_region(view.start_s, view.end_s)

    def _update_processes(self, feed: TelemetryFeed) -> None:
        table = self.process_table
        gpus = [d for d in self._devices if d.gpu_index is not None]
        if not gpus or not isinstance(feed, ProcessFeed):
            table.setVisible(False)
            return
        entries = [(d, gpu_color(d.gpu_index or 0), feed.processes(d.key)) for d in gpus]
        if not feed.live and all(snapshot is None for _, _, snapshot in entries):
            table.setVisible(False)
            return
        rows = process_rows(entries, self.tr("waiting for the first process list"))
        notes = {(row.note, row.note_is_error) for row in rows}
        if len(rows) > 1 and len(notes) == 1 and rows[0].note:
            # Every GPU says the same ("not stored in recordings"): say it once.
            first_row = rows[0]
            rows = (ProcessRow(self.tr("All GPUs"), MUTED_COLOR.name(), note=first_row.note,
                               tooltip=first_row.note),)
        taken = [s.time_s for _, _, s in entries if s is not None and s.missing_reason is None]
        when = _clock(max(taken)) if taken else None
        if feed.live:
            note = (self.tr("Per-process VRAM, listed every few seconds off the sampling path; "
                            "last list at {time}").format(time=when) if when
                    else self.tr("Per-process VRAM, listed every few seconds off the sampling "
                                 "path"))
        else:
            note = (self.tr("Per-process VRAM as listed at {time}").format(time=when) if when
                    else "")
        table.set_rows(rows, note)
        table.setVisible(True)

    # ------------------------------------------------------------------ texts

    def _update_texts(self, feed: TelemetryFeed, chart: TelemetryChart) -> None:
        devices = {d.key: d for d in self._devices}
        rows: list[LegendRow] = []
        reasons: list[str] = []
        warning: set[str] = set()
        any_data = False
        for member in chart.devices:
            device = devices.get(member.key, member)
            stats = chart.stats.get(device.key, _NO_STATS)
            color = chart.color_of(device).name()
            name = device.short_label
            if stats.current is not None:
                any_data = True
            if device.lost_reason:
                note = self.tr("lost: {reason}").format(reason=device.lost_reason)
                rows.append(LegendRow(color, name, note=note, note_is_error=True,
                                      tooltip=f"{device.label}: {note}"))
                continue
            if stats.current is None:
                reason = self._reason(feed, series_name(device.key, chart.chart_metric))
                if reason:
                    reasons.append(reason)
                note = (self.tr("not available: {reason}").format(reason=reason) if reason else
                        self.tr("no samples in this window") if self._following else
                        self.tr("no samples in this range"))
                rows.append(LegendRow(color, name, note=note, tooltip=f"{device.label}: {note}"))
                continue
            above = chart.warn_at is not None and stats.current >= chart.warn_at
            if above:
                warning.add(device.key)
            cells = (format_value(stats.current), format_value(stats.minimum),
                     format_value(stats.mean), format_value(stats.maximum))
            tip = device.label
            if above:
                tip += ": " + self.tr("at or above the warning level ({level})").format(
                    level=f"{chart.warn_at:g} {core_text(chart.info.unit)}")
            rows.append(LegendRow(color, name, cells, warning=above, tooltip=tip))
        chart.set_legend(rows)
        chart.warning_keys = frozenset(warning)
        if any_data:
            chart.show_message("")
        elif reasons:
            chart.show_message(self.tr("not available: {reason}").format(
                reason="; ".join(dict.fromkeys(reasons))))
        else:
            chart.show_message(self.tr("waiting for samples") if self._following else
                               self.tr("no samples in this range"))
        self._apply_y_range(feed, chart)

    def _reason(self, feed: TelemetryFeed, series: str) -> str | None:
        """Why `series` is missing: now, or at the end of the range on show when the feed
        knows its reasons over time."""
        view = self.view_range
        if not self._following and view is not None and isinstance(feed, ReasonFeed):
            return feed.reason_at(series, view.end_s)
        reading = feed.latest(series)
        return reading.missing_reason if reading is not None else None

    def _init_y_range(self, chart: TelemetryChart) -> None:
        info = chart.info
        low = (info.minimum or 0.0) * info.display_scale
        high = (info.maximum * info.display_scale if info.maximum is not None
                else low + 1.0)
        chart.set_y_range(low, high)

    def _apply_y_range(self, feed: TelemetryFeed, chart: TelemetryChart) -> None:
        """The y range from the catalogue, widened to the data (and to the VRAM total or the
        power cap): set only when it changes, so the axis is not re-laid out per frame."""
        info = chart.info
        scale = info.display_scale
        maxima = [s.maximum for s in chart.stats.values() if s.maximum is not None]
        minima = [s.minimum for s in chart.stats.values() if s.minimum is not None]
        reference = REFERENCE_TOPS.get(chart.chart_metric)
        if reference is not None:
            for device in chart.devices:
                reading = feed.latest(series_name(device.key, reference))
                if reading is not None and reading.value is not None:
                    maxima.append(reading.value * scale)
        if info.minimum is not None:
            low = info.minimum * scale
        elif minima:
            low = -nice_ceiling(-min(minima) * 1.05) if min(minima) < 0 else 0.0
        else:
            low = 0.0
        top = max(maxima) if maxima else None
        if info.maximum is not None:
            high = info.maximum * scale
            if top is not None and top > high:
                high = nice_ceiling(top * 1.05)
        else:
            # At least one shown unit tall: a flat 0 RPM fan gets 0–1.2, not 0–1e-9.
            high = nice_ceiling(max((top or 0.0) * 1.05, low + 1.0))
        chart.set_y_range(low, max(high, low + 1e-9))

    def _values_at(self, chart: TelemetryChart,
                   when: float) -> list[tuple[FeedDevice, float | None]]:
        feed = self._feed
        if feed is None:
            return []
        tolerance = self._tolerance()
        scale = chart.info.display_scale
        out: list[tuple[FeedDevice, float | None]] = []
        for device in chart.devices:
            ring = feed.ring(device.key)
            out.append((device, _value_near(ring, series_name(device.key, chart.chart_metric),
                                            when, tolerance, scale)))
        return out

    def _when_text(self, when: float) -> str:
        ago = (self._frame_now or when) - when
        clock = time.strftime("%H:%M:%S", time.localtime(when))
        return f"{clock} ({format_ago(ago)})"

    # The two steps the benchmark's naive page replaces.

    def _new_curve(self, chart: TelemetryChart, pen: object) -> pg.GraphicsObject:
        """A curve created once per device and chart; pen width 1, no antialiasing."""
        return FastCurve(pen=pen, antialias=False)

    def _series_data(self, times: FloatArray, block: FloatArray, start: float, end: float,
                     columns: int) -> list[tuple[FloatArray, FloatArray]]:
        """What each curve is given: the window decimated to ~2 points per pixel column."""
        return decimate_block(times, block, start, end, columns)


def _bins_for(columns: int, samples: int) -> int:
    """Time columns for a strip: one per pixel column, but no more than about half the
    samples, so that sparse samples do not leave empty stripes between them."""
    return max(1, min(columns, samples // 2))


def _stretch(row: FloatArray, columns: int) -> FloatArray:
    """A row of fewer bins widened to `columns` by repeating each bin."""
    if len(row) == columns:
        return row
    index = (np.arange(columns) * len(row)) // columns
    return row[index]


def _reason_words(value: float | None) -> str:
    """"power cap, thermal": the throttle reasons of a value, in the language installed."""
    return ", ".join(core_text(word) for word in throttle_reason_names(value))


def _percent(share: float) -> str:
    """0.234 -> "23 %"; a share above 0 but under 1 % -> "<1 %"."""
    if 0 < share < 0.005:
        return "<1 %"
    return f"{share * 100:.0f} %"


def _clock(time_s: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(time_s))


def _means(block: FloatArray) -> tuple[float | None, ...]:
    """The mean of each row of `block`, ignoring NaN; None for a row without a number."""
    finite = ~np.isnan(block)
    counts = finite.sum(axis=1)
    sums = np.where(finite, block, 0.0).sum(axis=1)
    return tuple(float(sums[i] / counts[i]) if counts[i] else None
                 for i in range(block.shape[0]))


def _range_stats(block: FloatArray) -> tuple[SeriesStats, ...]:
    """Per row of `block` (samples of a range): last, min, mean, max, ignoring NaN."""
    out: list[SeriesStats] = []
    means = _means(block)
    for row in range(block.shape[0]):
        values = block[row]
        finite = values[~np.isnan(values)]
        if len(finite) == 0:
            out.append(_NO_STATS)
            continue
        out.append(SeriesStats(float(finite[-1]), float(finite.min()), means[row],
                               float(finite.max())))
    return tuple(out)


def _take(ring: SeriesRing, names: Sequence[str], since_s: float,
          until_s: float) -> tuple[FloatArray, FloatArray]:
    """Rows of `ring` with since_s <= time <= until_s, as (times, values[series, row])."""
    times, columns = ring.snapshot(since_s=since_s, series=names, until_s=until_s)
    block = np.empty((len(names), len(times)))
    for row, name in enumerate(names):
        block[row] = columns[name]
    return times, block


def _has_series(feed: TelemetryFeed, ring: SeriesRing | None, name: str) -> bool:
    return (ring is not None and name in ring.series) or feed.latest(name) is not None


def _value_near(ring: SeriesRing | None, name: str, when: float, tolerance: float,
                scale: float) -> float | None:
    if ring is None or name not in ring.series:
        return None
    times, values = ring.snapshot(since_s=when - tolerance, series=(name,),
                                  until_s=when + tolerance)
    if len(times) == 0:
        return None
    column = values[name]
    nearest = int(np.argmin(np.abs(times - when)))
    value = float(column[nearest])
    if abs(float(times[nearest]) - when) > tolerance or not math.isfinite(value):
        return None
    return value * scale
