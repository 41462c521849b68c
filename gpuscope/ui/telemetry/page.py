"""The Telemetry page: one chart per metric, one line per GPU (in the GPU's colour used across
the app), read from a `TelemetryFeed`; a strip of throttle reasons per GPU, a heat strip of
the host's CPU cores, a table of the processes on each GPU, and an overview of everything
there is with the visible range boxed.

Two ways to look: *following* (the last 1/5/15/60 min, or all, ending "now"; live feeds move
on) and *browsing* a fixed range of time (wheel zoom, drag pan, the overview's box, or
`set_view_range`). Zooming or panning a live feed into the past stops following; "Back to
live" (or a window preset) follows again. Every chart and strip shows the same range.

Charts redraw on the page's own timer (4 Hz by default), never on sample arrival. What a
frame shows (the time view, and per device and metric the curve and its now/min/avg/max) is
worked out without Qt by `gpuscope.telemetry.frame.FrameModel`; this page hands it to the
widgets, which keep only what they draw. How curves are drawn is injected
(`telemetry_drawing.CurveDrawing`). Texts (legend tables, the y range, the process table)
change at most once a second (`telemetry_legends`), and only when they differ.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gpuscope.metrics import CATALOGUE, GPU_METRICS, HOST_METRICS, Metric, MetricKind
from gpuscope.telemetry.feed import ReasonFeed, TelemetryFeed, is_capture
from gpuscope.telemetry.frame import MIN_VIEW_S, FrameModel, TimeRange, clamp_range
from gpuscope.telemetry.recording_meta import RecordingError
from gpuscope.ui import pixmap_cache
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP
from gpuscope.ui.telemetry.bar import ALL_BUTTON_ID, WINDOWS_S, LoadingPanel, TelemetryBar
from gpuscope.ui.telemetry.capture import capture_note, update_captures
from gpuscope.ui.telemetry.chart import (
    HOST_COLOR,
    LEGEND_HEADERS,
    PAST_LEGEND_HEADERS,
    PLOT_HEIGHT,
    FastCurve,
    LegendRow,
    LegendTable,
    RelativeTimeAxis,
    TelemetryChart,
    chart_title,
    format_ago,
    format_value,
    nice_ceiling,
    window_label,
)
from gpuscope.ui.telemetry.drawing import CurveDrawing
from gpuscope.ui.telemetry.grid import ChartGrid
from gpuscope.ui.telemetry.legends import (
    REFERENCE_TOPS,
    apply_y_range,
    readout_html,
    readout_values,
    span_text,
    update_legend,
    update_processes,
    view_note,
    warning_keys,
    when_text,
)
from gpuscope.ui.telemetry.loader import RecordingLoader
from gpuscope.ui.telemetry.overview import OverviewStrip
from gpuscope.ui.telemetry.strips import PageStrips, StripChart
from gpuscope.ui.telemetry.texts import device_label, device_short_label, shown
from gpuscope.ui.telemetry.view_reader import BackgroundViewReader
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, gpu_color

__all__ = [
    "CHART_METRICS", "DEFAULT_REDRAW_HZ", "DEFAULT_WINDOW_S", "HOST_COLOR", "LEGEND_HEADERS",
    "NO_FEED_TEXT", "PLOT_HEIGHT", "WINDOWS_S", "CurveDrawing", "FastCurve", "LegendRow",
    "LegendTable", "RelativeTimeAxis", "TelemetryChart", "TelemetryPage", "chart_title",
    "format_ago", "format_value", "nice_ceiling", "span_text", "window_label",
]

NO_FEED_TEXT = QT_TRANSLATE_NOOP("TelemetryPage",
                                 "Live telemetry starts when a sampler is attached")
DEFAULT_WINDOW_S = 300
DEFAULT_REDRAW_HZ = 4.0
TEXT_INTERVAL_S = 1.0  # legend tables and y ranges change at most this often
RANGE_SETTLE_MS = 40  # after a wheel step or drag move, redraw once the burst settles
# Throttle reasons are flags, drawn as a strip, never as a line.
CHART_GPU_METRICS: tuple[Metric, ...] = tuple(
    m for m in GPU_METRICS
    if m not in REFERENCE_TOPS.values() and CATALOGUE[m].kind is not MetricKind.FLAGS)
CHART_METRICS: tuple[Metric, ...] = CHART_GPU_METRICS + HOST_METRICS


class TelemetryPage(QWidget):
    """Charts of every GPU and the host from a `TelemetryFeed` (`set_feed`, or
    `open_recording(path)`)."""

    recording_opened = Signal(str)  # path
    recording_failed = Signal(str, str)  # path, reason
    feed_changed = Signal(object)  # the TelemetryFeed now charted, or None

    def __init__(self, parent: QWidget | None = None, *,
                 redraw_hz: float = DEFAULT_REDRAW_HZ,
                 drawing: CurveDrawing | None = None) -> None:
        super().__init__(parent)
        self.drawing = drawing or CurveDrawing()
        self.frame = FrameModel(DEFAULT_WINDOW_S, self.drawing.series_data,
                                self.drawing.reuse_windows)
        self.view_reader = BackgroundViewReader(self, self.frame)  # samples read off thread
        self.view_reader.ready.connect(lambda: self.redraw(force=True))
        self._paused = False
        self._texts_due_at = 0.0
        self.frames_drawn = 0

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
        self.bar = TelemetryBar(self.window_s)
        column.addLayout(self.bar)
        self.source_label, self.live_button = self.bar.source_label, self.bar.live_button
        self.window_buttons, self.all_button = self.bar.window_buttons, self.bar.all_button
        self.pause_button = self.bar.pause_button
        self.live_button.clicked.connect(self.follow_live)
        self.window_buttons.idClicked.connect(self._on_window_button)
        self.pause_button.clicked.connect(self.toggle_pause)

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
        self.loading_panel = LoadingPanel()
        self.loading_label = self.loading_panel.loading_label
        self.loading_bar = self.loading_panel.loading_bar
        self.loading_panel.loading_cancel.clicked.connect(self.cancel_loading)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.chart_grid = ChartGrid()
        self.process_table = self.chart_grid.process_table
        self.scroll_area.setWidget(self.chart_grid)
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.loading_panel)
        self.stack.addWidget(self.scroll_area)
        column.addWidget(self.stack, 1)
        self._show_feed_state()

    # ------------------------------------------------------------------ public

    @property
    def feed(self) -> TelemetryFeed | None:
        return self.frame.feed

    @property
    def clock(self) -> Callable[[], float]:
        """The clock of the once-a-second text refresh; the benchmark steps it per frame."""
        return self.frame.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.frame.clock = clock

    @property
    def charts(self) -> dict[Metric, TelemetryChart]:
        return self.chart_grid.charts

    @property
    def strips(self) -> PageStrips | None:
        return self.chart_grid.strips

    @property
    def throttle_strip(self) -> StripChart | None:
        return self.strips.throttle if self.strips is not None else None

    @property
    def cores_strip(self) -> StripChart | None:
        return self.strips.cores if self.strips is not None else None

    @property
    def x_origin(self) -> float:
        """The unix time at x = 0 of the charts in the frame on show."""
        return self.frame.time.x_origin

    def warning_keys(self, metric: Metric) -> frozenset[str]:
        """The devices whose "now" on chart `metric` is at or above its warning level."""
        chart = self.charts.get(metric)
        return warning_keys(self.frame, chart) if chart is not None else frozenset()

    def set_feed(self, feed: TelemetryFeed | None) -> None:
        """Chart `feed` (None: show that no sampler is attached), following its newest
        samples with the current window."""
        view = self.frame.time
        self.frame.feed = feed
        view.frame_now = None
        view.following = True
        view.fit_all = False
        view.view = None
        self._rebuild_charts()
        self._show_feed_state()
        self._sync_buttons()
        self.feed_changed.emit(feed)
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
        return self.frame.time.window_s

    def set_window_s(self, seconds: int) -> None:
        """Show a window of `seconds` (one of WINDOWS_S, or any positive number): the last
        `seconds` of a live feed, following it; of anything else, the `seconds` up to the end
        of the range on show."""
        if seconds <= 0:
            raise ValueError("the window must be positive")
        view = self.frame.time
        view.window_s = int(seconds)
        view.fit_all = False
        feed = self.feed
        if feed is not None and not feed.live and not view.following and view.view:
            end = view.view.end_s
            self._browse_to(end - seconds, end, defer=False)
            self._sync_buttons()
            return
        self._start_following()

    def fit_all(self) -> None:
        """Show everything there is: a live feed's whole history, following it; all of a
        recording."""
        feed = self.feed
        self.frame.time.fit_all = True
        if feed is None or feed.live:
            self._start_following()
            return
        extent = self.frame.extent(feed.now_s())
        if extent is not None:
            self._browse_to(extent[0], extent[1], defer=False, fit_all=True)
        self._sync_buttons()

    def set_view_range(self, start_s: float, end_s: float) -> None:
        """Browse [start, end] (unix seconds, kept inside the data): a live feed stops being
        followed until `follow_live()`."""
        self._browse_to(start_s, end_s, defer=False)

    def data_extent(self) -> tuple[float, float] | None:
        """(first, last) unix time of the data (a live feed's last is "now")."""
        return self.frame.extent()

    @property
    def view_range(self) -> TimeRange | None:
        """The range on show, in unix seconds (None before the first frame)."""
        return self.frame.time.view_range

    @property
    def is_following(self) -> bool:
        return self.frame.time.following

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
        return self.frame.time.frame_now

    def shutdown(self) -> None:
        """Stop redrawing and loading (the window closes); safe to call more than once."""
        self.timer.stop()
        self._settle.stop()
        self.loader.cancel()
        self.chart_grid.stop_proxies()
        self.view_reader.shutdown()

    def redraw(self, force: bool = False) -> None:
        """One frame: take the range on show from the rings, decimate, update every chart.
        The timer calls it; `force` redraws even while paused and refreshes every text now.
        A recording read on demand whose samples turn out damaged says so in the view note
        (the range keeps what was drawn before)."""
        try:
            self._draw_frame(force)
        except RecordingError as exc:
            self.view_note.setText(self.tr("Could not read this part of the recording: "
                                           "{reason}").format(reason=str(exc)))
            self.view_note.setVisible(True)

    def draw_settled(self, timeout_s: float = 10.0) -> None:
        """A frame with the browsed range's samples read (a picture shows no stand-in)."""
        self.redraw(force=True)
        if self.frame.view_samples.pending and self.frame.view_samples.wait(timeout_s):
            self.redraw(force=True)

    def _draw_frame(self, force: bool) -> None:
        feed = self.feed
        if feed is None or (self._paused and not force):
            return
        model, view = self.frame, self.frame.time
        devices = tuple(feed.devices())
        if tuple(d.key for d in devices) != tuple(d.key for d in model.devices):
            self._rebuild_charts()
            force = True
        elif devices != model.devices:
            model.devices = devices
            force = True
        frozen = view.frame_now if self._paused else None
        now = frozen if frozen is not None else feed.now_s()
        view.frame_now = now
        texts_due = force or self.clock() >= self._texts_due_at
        if is_capture(feed):  # a snapshot's single readings: no curves, no overview
            if texts_due:
                self._texts_due_at = self.clock() + TEXT_INTERVAL_S
                update_captures(feed, self.charts.values(), model.devices, self._reason)
                self._update_device_legend()
                update_processes(self.process_table, feed, model.devices)
            self.frames_drawn += 1
            return
        columns = self.chart_grid.plot_columns()
        if view.following:
            changed = model.draw_following(feed, now, columns, force, texts_due)
            self.chart_grid.set_axes(not feed.live, now, view.frame_window)
            self.chart_grid.apply_x_range(-view.frame_window, view.frame_window * 0.03)
        elif view.view is not None:
            self.chart_grid.set_axes(True, view.origin, view.view.width_s)
            self.chart_grid.apply_x_range(view.view.start_s - view.origin,
                                          view.view.end_s - view.origin)
            changed = model.draw_browsing(feed, columns, force, texts_due)
        else:
            changed = set()
        self._draw_charts(feed, changed, texts_due)
        if self.strips is not None:
            self.strips.draw(feed, model, force or texts_due)
        self._draw_overview(feed, now)
        if texts_due:
            self._texts_due_at = self.clock() + TEXT_INTERVAL_S
            self._update_device_legend()
            if self.strips is not None:
                self.strips.update_texts(feed, view.following, self._reason)
            update_processes(self.process_table, feed, model.devices)
            self._update_view_note()
        self.frames_drawn += 1

    def readout_text(self, metric: Metric, x_s: float) -> str:
        """The crosshair readout of chart `metric` at `x_s` seconds from the frame's origin
        (its "now" while following): the time, then each device's value there (plain
        text)."""
        chart = self.charts.get(metric)
        if chart is None or self.feed is None or self.frame_now is None:
            return ""
        when = self.x_origin + x_s
        parts = [when_text(when, self.frame_now)]
        for device, value in readout_values(self.frame, chart, when, self._tolerance()):
            parts.append(f"{device_short_label(device)} {format_value(value)}")
        return "  ".join(parts) + (f" {chart.info.unit}" if chart.info.unit else "")

    def show_readout(self, metric: Metric, x_s: float | None) -> None:
        """Show the crosshair of chart `metric` at `x_s` (None hides it)."""
        chart = self.charts.get(metric)
        if chart is None:
            return
        if x_s is None or self.frame_now is None or self.feed is None:
            chart.crosshair.setVisible(False)
            chart.readout.setText("")
            return
        chart.crosshair.setPos(x_s)
        chart.crosshair.setVisible(True)
        chart.readout.setText(readout_html(self.frame, chart, self.x_origin + x_s,
                                           self._tolerance(), self.frame_now))

    def strip_readout_text(self, strip: StripChart, x_s: float, row: int | None) -> str:
        """The hover readout of a strip at `x_s` (plain text): the time, then the reasons of
        each GPU (or the one under the mouse), or the load of the core under the mouse."""
        if self.feed is None or self.strips is None:
            return ""
        when = self.x_origin + x_s
        parts = [when_text(when, self.frame_now)]
        parts += self.strips.readout_parts(self.frame, strip, when, self._tolerance(), row)
        return "  ".join(parts)

    # ------------------------------------------------------------------ events

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.feed is not None and not self._paused:
            self.redraw(force=True)
        self._sync_timer()

    def hideEvent(self, event: QHideEvent) -> None:
        self.timer.stop()
        self._settle.stop()
        self.chart_grid.stop_proxies()
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
        self.frame.time.follow()
        self.frame.forget()
        self._sync_buttons()
        self.redraw(force=True)

    def _browse_to(self, start_s: float, end_s: float, *, defer: bool,
                   fit_all: bool = False) -> None:
        """Show [start, end] (kept inside the data), not following. `defer`: a burst of
        mouse moves is redrawn once it settles; the axes move at once."""
        feed = self.feed
        if feed is None:
            return
        view = self.frame.time
        now = view.frame_now if view.frame_now is not None else feed.now_s()
        extent = self.frame.extent(now)
        if extent is None:
            return
        first, last = extent
        pad = (end_s - start_s) * 0.03 if feed.live else 0.0
        shown_range = clamp_range(start_s, end_s, first, last,
                                  min(MIN_VIEW_S, max(last - first, 1e-3)), pad)
        view.fit_all = fit_all
        view.browse(shown_range, now)
        self._sync_buttons()
        self.chart_grid.apply_x_range(shown_range.start_s - view.origin,
                                      shown_range.end_s - view.origin)
        self._update_view_note()
        self.overview.set_region(shown_range.start_s, shown_range.end_s)
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
        for chart in self.chart_grid.all_charts():
            if chart.view_box is view_box:
                chart.x_range = None
        self._browse_to(self.x_origin + float(x0), self.x_origin + float(x1), defer=True)

    def _on_overview_range(self, start_s: float, end_s: float) -> None:
        self._browse_to(start_s, end_s, defer=True)

    def _sync_buttons(self) -> None:
        feed = self.feed
        self.bar.sync(feed is not None and feed.live, self.frame.time)

    def _show_pause_state(self) -> None:
        self.bar.show_pause(self._paused, self.frame_now, self.pause_note)

    def _update_view_note(self) -> None:
        feed = self.feed
        if feed is None:
            self.view_note.setVisible(False)
            return
        text = capture_note(feed) if is_capture(feed) else view_note(self.frame, feed)
        if self.view_note.text() != text:
            self.view_note.setText(text)
        self.view_note.setVisible(True)

    # ------------------------------------------------------------------ internals

    def _sync_timer(self) -> None:
        running = self.feed is not None and not self._paused and self.isVisible()
        if running and not self.timer.isActive():
            self.timer.start()
        elif not running and self.timer.isActive():
            self.timer.stop()

    def _show_feed_state(self) -> None:
        feed = self.feed
        if self.loader.is_running:
            self.stack.setCurrentWidget(self.loading_panel)
        elif feed is None:
            self.source_label.setText("")
            self.stack.setCurrentWidget(self.empty_label)
        else:
            self.source_label.setText(shown(feed.label))
            self.stack.setCurrentWidget(self.scroll_area)
        self.pause_button.setEnabled(feed is not None)
        # A recording holds still by itself, and a replay repeats the same values: nothing
        # new arrives to pause.
        self.pause_button.setVisible(feed is None or feed.pausable)
        capture = is_capture(feed)  # no time to choose among
        for button in self.window_buttons.buttons():
            button.setEnabled(feed is not None)
            button.setVisible(not capture)
        self.overview.setVisible(feed is not None and not capture)
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
        if self.feed is None:
            self.empty_label.setText(message)
        else:
            self.view_note.setText(message)
            self.view_note.setVisible(True)
        self.recording_failed.emit(path, reason)

    def _rebuild_charts(self) -> None:
        self.chart_grid.clear()
        self.overview.forget()  # a new feed: a new origin
        feed = self.feed
        devices = tuple(feed.devices()) if feed is not None else ()
        self.frame.reset(feed, devices, {})
        self._update_device_legend()
        if feed is None:
            self.process_table.setVisible(False)
            return
        self.frame.device_series = self.chart_grid.build(
            feed, devices, self.window_s, self.drawing, CHART_METRICS, self.show_readout,
            self._on_strip_hover, self._on_manual_range, strips=not is_capture(feed))
        self._layout_charts()

    def _on_strip_hover(self, strip: StripChart, x_s: float | None, row: int | None) -> None:
        if x_s is None or self.frame_now is None:
            strip.crosshair.setVisible(False)
            strip.readout.setText("")
            return
        strip.crosshair.setPos(x_s)
        strip.crosshair.setVisible(True)
        strip.readout.setText(html.escape(self.strip_readout_text(strip, x_s, row)))

    def _layout_charts(self) -> None:
        layout = self.layout()
        margins = layout.contentsMargins() if layout is not None else None
        self.chart_grid.lay_out(
            self.width() - (margins.left() + margins.right() if margins else 0))

    def _update_device_legend(self) -> None:
        entries = []
        for device in self.frame.devices:
            color = (HOST_COLOR if device.gpu_index is None else gpu_color(device.gpu_index))
            text = html.escape(device_label(device))
            if device.lost_reason:
                text += (f" <span style='color:{ERROR_COLOR.name()}'>(lost: "
                         f"{html.escape(device.lost_reason)})</span>")
            entries.append(f"<span style='color:{color.name()}'>■</span>&nbsp;{text}")
        self.device_legend.setText("&nbsp;&nbsp;&nbsp; ".join(entries))
        self.device_legend.setVisible(bool(entries))

    def _tolerance(self) -> float:
        view = self.view_range
        width = view.width_s if view is not None else float(self.window_s)
        return max(2.0 * width / self.chart_grid.plot_columns(), 1.0)

    # ------------------------------------------------------------------ charts

    def _draw_charts(self, feed: TelemetryFeed, changed: set[str], texts_due: bool) -> None:
        """Hand the frame model's curves of the devices in `changed` to the charts; with the
        texts due (or, browsing, new curves), the legends and y ranges too."""
        following = self.frame.time.following
        for chart in self.charts.values():
            for device in chart.devices:
                if device.key in changed:
                    points = self.frame.curve(device.key, chart.chart_metric)
                    if points is not None:
                        chart.set_curve(device.key, *points)
            if following or changed:
                chart.update_warning_overlay()
            if texts_due or (changed and not following):
                chart.legend.set_headers(LEGEND_HEADERS if following else PAST_LEGEND_HEADERS)
                update_legend(self.frame, feed, chart, self._reason)
                if self.drawing.page_sets_y_range:
                    apply_y_range(self.frame, feed, chart)

    def _reason(self, feed: TelemetryFeed, series: str) -> str | None:
        """Why `series` is missing: now, or at the end of the range on show when the feed
        knows its reasons over time."""
        view = self.view_range
        if not self.is_following and view is not None and isinstance(feed, ReasonFeed):
            return feed.reason_at(series, view.end_s)
        reading = feed.latest(series)
        return reading.missing_reason if reading is not None else None

    # ------------------------------------------------------------------ overview

    def _draw_overview(self, feed: TelemetryFeed, now: float) -> None:
        extent = self.frame.extent(now)
        if extent is not None:
            self.overview.refresh(feed, self.frame.devices, extent, self.clock(),
                                  self.view_range)
