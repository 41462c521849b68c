"""Strips on the Telemetry page's time axis: a row per GPU of why its clocks are held back
(throttle reasons), and a row per host CPU core of its load (a heat strip); and `PageStrips`,
the page's two strips with their captions (reasons now or at the end, the share of the range
slowed, the busiest core) and hover readouts.

A strip is one image, a pixel column per time column: the page bins the visible range
(`decimate.bin_columns`: OR of the reason bits, mean of a core's load) and hands the
colours here. One image item per strip costs one paint, whatever the number of rows.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout

from gpuscope.metrics import (
    HOST_DEVICE,
    Metric,
    ThrottleReason,
    series_name,
    throttle_reason_names,
)
from gpuscope.telemetry.decimate import FLAG_MASKS, MinMaxPyramid, bin_columns
from gpuscope.telemetry.feed import FeedDevice, SummaryFeed, TelemetryFeed
from gpuscope.telemetry.frame import FrameModel, take
from gpuscope.telemetry.ring import RingView
from gpuscope.telemetry.window_stats import row_means
from gpuscope.ui.i18n import core_text, translate
from gpuscope.ui.telemetry.chart import PlotHover, chart_header, format_value, time_plot
from gpuscope.ui.telemetry.texts import device_short_label
from gpuscope.ui.telemetry.time_axis import TimeAxis
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import color_plot

FloatArray = npt.NDArray[np.float64]
Rgba = npt.NDArray[np.uint8]

# The colour of a time column: its most serious reason, in this order.
THROTTLE_COLORS: tuple[tuple[ThrottleReason, QColor], ...] = (
    (ThrottleReason.THERMAL, QColor(ERROR_COLOR)),
    (ThrottleReason.HARDWARE, QColor("#8e44ad")),
    (ThrottleReason.CURRENT, QColor("#e377c2")),
    (ThrottleReason.POWER, QColor("#f0a030")),
    (ThrottleReason.SETTING, QColor("#5b8db8")),
    (ThrottleReason.OTHER, QColor("#7f7f7f")),
    (ThrottleReason.IDLE, QColor("#c6dbef")),
)
NO_SAMPLE_COLOR = QColor(200, 200, 200, 150)
# Reasons that mean the GPU runs slower than it could under load (idle does not).
SLOWING = FLAG_MASKS[-1]  # every reason but idle
# Light to dark blue: a core's load, 0 to 100 %.
HEAT_STOPS: tuple[tuple[float, str], ...] = (
    (0.0, "#e6edf6"), (0.25, "#c6dbef"), (0.5, "#6baed6"), (0.75, "#2171b5"), (1.0, "#08306b"),
)
STRIP_ROW_PX = 14
CORE_ROW_PX_RANGE = (4, 14)


def _rgba(color: QColor) -> tuple[int, int, int, int]:
    return color.red(), color.green(), color.blue(), color.alpha()


def throttle_rgba(flags: FloatArray) -> Rgba:
    """Colours of binned reason bits (rows, columns): the most serious reason's colour,
    transparent where not throttled, grey where there is no sample (NaN)."""
    rows, columns = flags.shape
    out = np.zeros((rows, columns, 4), dtype=np.uint8)
    missing = np.isnan(flags)
    bits = np.where(missing, 0, flags).astype(np.int64)
    painted = np.zeros((rows, columns), dtype=bool)
    for reason, color in THROTTLE_COLORS:
        hit = ((bits & int(reason)) != 0) & ~painted
        out[hit] = _rgba(color)
        painted |= hit
    out[missing] = _rgba(NO_SAMPLE_COLOR)
    return out


def heat_lut() -> Rgba:
    """256 colours from HEAT_STOPS."""
    positions = np.array([p for p, _ in HEAT_STOPS])
    colors = np.array([_rgba(QColor(c))[:3] for _, c in HEAT_STOPS], dtype=np.float64)
    x = np.linspace(0.0, 1.0, 256)
    lut = np.empty((256, 4), dtype=np.uint8)
    for channel in range(3):
        lut[:, channel] = np.round(np.interp(x, positions, colors[:, channel]))
    lut[:, 3] = 255
    return lut


_HEAT_LUT = heat_lut()


def heat_rgba(values: FloatArray, low: float = 0.0, high: float = 100.0) -> Rgba:
    """Colours of binned loads (rows, columns); transparent where there is no sample."""
    missing = np.isnan(values)
    scaled = np.clip((np.where(missing, low, values) - low) / (high - low), 0.0, 1.0)
    out = _HEAT_LUT[np.round(scaled * 255).astype(np.intp)]
    out[missing] = 0
    return out


def heat_gradient_css() -> str:
    stops = ", ".join(f"stop:{p:g} {c}" for p, c in HEAT_STOPS)
    return f"background: qlineargradient(x1:0, y1:0, x2:1, y2:0, {stops});"


class RowAxis(pg.AxisItem):  # type: ignore[misc]
    """The left axis of a strip: a name per row, rows top to bottom."""

    def __init__(self) -> None:
        super().__init__(orientation="left")
        self.names: tuple[str, ...] = ()
        self.every = 1

    def set_names(self, names: Sequence[str], every: int = 1) -> None:
        self.names = tuple(names)
        self.every = max(1, every)
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float,
                   size: float) -> list[tuple[float, list[float]]]:
        return [(1.0, [i + 0.5 for i in range(0, len(self.names), self.every)])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for value in values:
            index = int(value)
            out.append(self.names[index] if 0 <= index < len(self.names) else "")
        return out


class StripChart(QFrame):
    """A titled strip: an image of rows over the shared time axis, a hover readout, and a
    caption (the legend, or why there is nothing to show)."""

    def __init__(self, title: str, row_px: int = STRIP_ROW_PX,
                 parent: QFrame | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("telemetryStrip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.row_px = row_px
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(3)
        self.title, self.readout = chart_header(column, title)

        self.time_axis = TimeAxis()
        self.row_axis = RowAxis()
        self.plot_widget = time_plot(self.palette(), self.time_axis, self.row_axis,
                                     grid_y=False)
        self.plot_item = self.plot_widget.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        self.view_box.invertY(True)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image)
        self.crosshair = pg.InfiniteLine(angle=90, movable=False,
                                         pen=pg.mkPen(MUTED_COLOR, width=1))
        self.crosshair.setVisible(False)
        self.plot_item.addItem(self.crosshair, ignoreBounds=True)
        column.addWidget(self.plot_widget)

        self.caption = QLabel()
        self.caption.setObjectName("stripCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        column.addWidget(self.caption)
        self.rows: tuple[str, ...] = ()
        self.image_data: Rgba = np.zeros((0, 0, 4), dtype=np.uint8)
        self.image_span: tuple[float, float] | None = None  # x of the image's two ends
        self.x_range: tuple[float, float] | None = None
        self.hover: PlotHover | None = None
        self.set_rows(())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "plot_widget"):
            color_plot(self.plot_widget, self.palette(), axes=("left", "bottom"))

    def set_rows(self, names: Sequence[str], every: int = 1) -> None:
        self.rows = tuple(names)
        self.row_axis.set_names(self.rows, every)
        height = max(1, len(self.rows)) * self.row_px
        self.plot_widget.setFixedHeight(height + 30)
        self.plot_item.setYRange(0, max(1, len(self.rows)), padding=0)

    def set_image(self, rgba: Rgba, x0: float, x1: float) -> None:
        """Show `rgba` (rows, columns, 4) stretched over x0..x1 (chart x)."""
        self.image_data = rgba
        self.image_span = (x0, x1)
        if rgba.size == 0 or x1 <= x0:
            self.image.setVisible(False)
            return
        self.image.setImage(rgba, autoLevels=False)
        self.image.setRect(QRectF(x0, 0.0, x1 - x0, float(rgba.shape[0])))
        self.image.setVisible(True)

    def place(self, x0: float, x1: float) -> None:
        """Move the image on show to x0..x1 (the origin moved), without redrawing it."""
        if self.image_span == (x0, x1) or self.image_data.size == 0 or x1 <= x0:
            return
        self.image_span = (x0, x1)
        self.image.setRect(QRectF(x0, 0.0, x1 - x0, float(self.image_data.shape[0])))

    def set_x_range(self, x0: float, x1: float) -> None:
        if self.x_range != (x0, x1):
            self.x_range = (x0, x1)
            self.plot_item.setXRange(x0, x1, padding=0)

    def set_caption(self, text_html: str) -> None:
        if self.caption.text() != text_html:
            self.caption.setText(text_html)

    @property
    def caption_text(self) -> str:
        """The caption as plain text (for tests and accessibility)."""
        doc = self.caption.text().replace("<br>", "\n")
        return html.unescape(re.sub(r"<[^>]+>", "", doc)).replace("\xa0", " ")

    # ------------------------------------------------------------------ hover

    def connect_hover(self, handler: Callable[[StripChart, float | None, int | None], None],
                      ) -> None:
        """Call `handler(strip, x, row)` as the mouse moves over the strip (30 Hz at most),
        `handler(strip, None, None)` when it leaves."""
        def moved(point: QPointF | None) -> None:
            if point is None:
                handler(self, None, None)
                return
            row = int(point.y())
            handler(self, float(point.x()), row if 0 <= row < len(self.rows) else None)
        self.hover = PlotHover(self, self.plot_widget, self.view_box, moved)

    def stop_proxy(self) -> None:
        if self.hover is not None:
            self.hover.stop()


def throttle_legend_html() -> str:
    """Swatches of the reason colours."""
    parts = []
    for reason, color in THROTTLE_COLORS:
        word = core_text(throttle_reason_names(float(reason))[0])
        parts.append(f"<span style='color:{color.name()}'>■</span>&nbsp;{html.escape(word)}")
    parts.append(f"<span style='color:{NO_SAMPLE_COLOR.name()}'>■</span>&nbsp;"
                 + html.escape(translate("TelemetryPage", "no sample")))
    return "&nbsp;&nbsp;".join(parts)


def throttle_shares(flags: FloatArray) -> tuple[float, dict[str, float]] | None:
    """Over samples `flags` (NaN = no sample): the share of samples slowed by any reason
    but idle, and the share per reason word; None without a sample."""
    finite = flags[~np.isnan(flags)]
    if len(finite) == 0:
        return None
    bits = finite.astype(np.int64)
    shares: dict[str, float] = {}
    for reason, _ in THROTTLE_COLORS:
        if reason is ThrottleReason.IDLE:
            continue
        count = int(np.count_nonzero(bits & int(reason)))
        if count:
            shares[throttle_reason_names(float(reason))[0]] = count / len(bits)
    return float(np.count_nonzero(bits & SLOWING)) / len(bits), shares


# ------------------------------------------------------------------------- the page's strips

_CORE_METRIC = re.compile(r"^cpu(\d+)_percent$")
# Why a series is missing now, or at the end of the range on show.
ReasonOf = Callable[[TelemetryFeed, str], str | None]


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


class PageStrips:
    """The throttle strip and the per-core strip of one feed (either may be absent)."""

    def __init__(self, feed: TelemetryFeed, devices: tuple[FeedDevice, ...],
                 rings: dict[str, RingView | None], window_s: int) -> None:
        self.throttle: StripChart | None = None
        self.cores: StripChart | None = None
        self._throttle_rows: tuple[_ThrottleRow, ...] = ()
        self._throttle_build: _StripBuild | None = None
        self._core_series: tuple[tuple[int, str], ...] = ()
        self._cores_build: _StripBuild | None = None
        self._core_means: tuple[float | None, ...] = ()
        rows: list[_ThrottleRow] = []
        for device in devices:
            if device.gpu_index is None:
                continue
            name = series_name(device.key, Metric.THROTTLE_REASONS)
            ring = rings[device.key]
            in_ring = ring is not None and name in ring.series
            if in_ring or feed.latest(name) is not None:
                rows.append(_ThrottleRow(device, name if in_ring else None, None, None))
        if rows:
            strip = StripChart(translate("TelemetryPage",
                                         "Throttling (why the clocks are held back)"))
            strip.set_rows([device_short_label(r.device) for r in rows])
            strip.time_axis.set_window(window_s)
            self.throttle = strip
            self._throttle_rows = tuple(rows)
        host = rings.get(HOST_DEVICE)
        if host is not None:
            cores = sorted((int(m.group(1)), name) for name in host.series
                           if (m := _CORE_METRIC.match(name.rpartition("/")[2])))
            if cores:
                low, high = CORE_ROW_PX_RANGE
                row_px = max(low, min(high, 120 // len(cores)))
                strip = StripChart(translate("TelemetryPage", "Host CPU per core (%)"),
                                   row_px=row_px)
                every = max(1, math.ceil(14 / row_px))
                strip.set_rows([str(core) for core, _ in cores], every)
                strip.time_axis.set_window(window_s)
                self.cores = strip
                self._core_series = tuple(cores)

    def charts(self) -> list[StripChart]:
        return [s for s in (self.throttle, self.cores) if s is not None]

    # ------------------------------------------------------------------ drawing

    def draw(self, feed: TelemetryFeed, model: FrameModel, due: bool) -> None:
        """Bin the range on show into each strip's image, when it moved on by a column or
        the texts are due; place the image on the charts' x axis."""
        view = model.time.view_range
        if not self.charts() or view is None:
            return
        following = model.time.following
        if following:
            lo, hi, factor = view.start_s, view.end_s, 1.0
        else:
            lo, hi, factor = view.start_s - view.width_s, view.end_s + view.width_s, 3.0
        if hi <= lo:
            return
        x_origin = model.time.x_origin
        for strip in self.charts():
            columns = max(16, int(strip.view_box.width()) or 400)
            step = (hi - lo) / (columns * factor)
            build = self._throttle_build if strip is self.throttle else self._cores_build
            rebuild = (build is None or due or build.key[2] != columns
                       or abs((build.hi - build.lo) - (hi - lo)) > step
                       or (not following and build.key[:2] != (lo, hi))
                       or (following and abs(lo - build.lo) >= step))
            if rebuild:
                bins = round(columns * factor)
                if strip is self.throttle:
                    build = self._throttle_build = self._bin_throttle(
                        feed, model, strip, lo, hi, bins, columns)
                else:
                    build = self._cores_build = self._bin_cores(feed, model, strip, lo, hi,
                                                                bins, columns)
            if build is not None:
                strip.place(build.lo - x_origin, build.hi - x_origin)

    def _bin_throttle(self, feed: TelemetryFeed, model: FrameModel, strip: StripChart,
                      lo: float, hi: float, bins: int, columns: int) -> _StripBuild:
        flags = np.full((len(self._throttle_rows), bins), np.nan)
        view = model.time.view_range
        rows: list[_ThrottleRow] = []
        newest: float | None = None
        for index, entry in enumerate(self._throttle_rows):
            ring = feed.ring(entry.device.key)
            last: float | None = None
            shares = None
            summary = (_summary_of(feed, entry.device.key, ring, entry.name, lo, hi, bins)
                       if entry.name is not None and ring is not None else None)
            if summary is not None and entry.name is not None and ring is not None:
                pyramid, row, binned = summary
                flags[index] = binned[0]
                if view is not None:
                    shares = shares_of_counts(pyramid.flag_shares(view.start_s, view.end_s,
                                                                  row))
                    stats = pyramid.stats(view.start_s, view.end_s)
                    last = stats[row].current if stats else None
                span = ring.time_span()
                if span is not None:
                    newest = max(newest or span[1], span[1])
            elif entry.name is not None and ring is not None:
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
        x_origin = model.time.x_origin
        strip.set_image(throttle_rgba(flags), lo - x_origin, hi - x_origin)
        return _StripBuild((lo, hi, columns, newest), lo, hi)

    def _bin_cores(self, feed: TelemetryFeed, model: FrameModel, strip: StripChart,
                   lo: float, hi: float, bins: int, columns: int) -> _StripBuild:
        ring = feed.ring(HOST_DEVICE)
        names = [name for _, name in self._core_series]
        if ring is None:
            strip.set_image(np.zeros((0, 0, 4), dtype=np.uint8), 0.0, 0.0)
            return _StripBuild((lo, hi, columns, None), lo, hi)
        pyramid = feed.summary(HOST_DEVICE) if isinstance(feed, SummaryFeed) else None
        view = model.time.view_range
        if pyramid is not None and all(name in ring.series for name in names):
            rows = [ring.series.index(name) for name in names]
            summed = pyramid.binned(lo, hi, bins, rows, "mean")
            stats = pyramid.stats(view.start_s, view.end_s) if view is not None else None
            if summed is not None:
                if stats is not None:
                    self._core_means = tuple(stats[row].mean for row in rows)
                x_origin = model.time.x_origin
                strip.set_image(heat_rgba(summed), lo - x_origin, hi - x_origin)
                span = ring.time_span()
                return _StripBuild((lo, hi, columns, span[1] if span else None), lo, hi)
        times, block = take(ring, names, lo, hi)
        binned = bin_columns(times, block, lo, hi, _bins_for(bins, len(times)), "mean")
        if view is not None:
            first = int(np.searchsorted(times, view.start_s, side="left"))
            stop = int(np.searchsorted(times, view.end_s, side="right"))
            self._core_means = row_means(block[:, first:stop])
        x_origin = model.time.x_origin
        strip.set_image(heat_rgba(binned), lo - x_origin, hi - x_origin)
        newest = float(times[-1]) if len(times) else None
        return _StripBuild((lo, hi, columns, newest), lo, hi)

    # ------------------------------------------------------------------ texts

    def update_texts(self, feed: TelemetryFeed, following: bool, reason_of: ReasonOf) -> None:
        strip = self.throttle
        if strip is not None:
            lines = []
            now = following and feed.live
            where = (translate("TelemetryPage", "now") if now
                     else translate("TelemetryPage", "at the end"))
            for entry in self._throttle_rows:
                device = entry.device
                color = gpu_color(device.gpu_index or 0).name()
                head = (f"<span style='color:{color}'>■</span>&nbsp;"
                        f"{html.escape(device_short_label(device))}")
                name = series_name(device.key, Metric.THROTTLE_REASONS)
                reading = feed.latest(name)
                reason = reason_of(feed, name)
                if entry.shares is None:
                    why = reason or translate("TelemetryPage", "no samples in this range")
                    why = translate("TelemetryPage", "not available: {reason}").format(
                        reason=why)
                    lines.append(f"{head}: <span style='color:{MUTED_COLOR.name()}'>"
                                 f"{html.escape(why)}</span>")
                    continue
                value = (reading.value if now and reading is not None
                         and reading.value is not None else entry.last)
                words = reason_words(value) or translate("TelemetryPage", "not throttled")
                slowed, per_reason = entry.shares
                detail = ", ".join(f"{core_text(word)} {percent(share)}" for word, share in
                                   sorted(per_reason.items(), key=lambda kv: -kv[1]))
                text = f"{head}: " + html.escape(translate(
                    "TelemetryPage", "{reasons} {when}; slowed {share} of the range").format(
                        reasons=words, when=where, share=percent(slowed)))
                if detail:
                    text += f" ({html.escape(detail)})"
                lines.append(text)
            lines.append(f"<span style='color:{MUTED_COLOR.name()}'>"
                         f"{throttle_legend_html()}</span>")
            strip.set_caption("<br>".join(lines))
        cores = self.cores
        if cores is not None:
            busiest = [(mean, core) for (core, _), mean in
                       zip(self._core_series, self._core_means, strict=False)
                       if mean is not None]
            note = ""
            if busiest:
                mean, core = max(busiest)
                note = "; " + translate(
                    "TelemetryPage", "busiest in the range: core {core} (avg {load} %)").format(
                        core=core, load=f"{mean:.0f}")
            gradient = (f"<span style='{heat_gradient_css()}'>"
                        "&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span>")
            cores.set_caption(f"<span style='color:{MUTED_COLOR.name()}'>"
                              + html.escape(translate("TelemetryPage", "Mean load per column: 0 %"))
                              + f"</span> {gradient} <span style='color:"
                              f"{MUTED_COLOR.name()}'>100 %{html.escape(note)}</span>")

    def readout_parts(self, model: FrameModel, strip: StripChart, when: float,
                      tolerance: float, row: int | None) -> list[str]:
        """What a strip's hover readout says at `when` after the time: the reasons of each
        GPU (or of the one under the mouse), or the load of the core under the mouse."""
        parts: list[str] = []
        if strip is self.throttle:
            rows = self._throttle_rows
            chosen = [rows[row]] if row is not None and row < len(rows) else list(rows)
            for entry in chosen:
                value = (None if entry.name is None else
                         model.value_at(entry.device.key, entry.name, when, tolerance))
                words = (translate("TelemetryPage", "no sample") if value is None else
                         reason_words(value) or translate("TelemetryPage", "not throttled"))
                parts.append(f"{device_short_label(entry.device)}: {words}")
        elif strip is self.cores and row is not None and row < len(self._core_series):
            core, name = self._core_series[row]
            value = model.value_at(HOST_DEVICE, name, when, tolerance)
            parts.append(translate("TelemetryPage", "core {core}: {load} %").format(core=core,
                                                            load=format_value(value)))
        return parts


def _summary_of(feed: TelemetryFeed, key: str, ring: RingView, name: str, lo: float,
                hi: float, bins: int) -> tuple[MinMaxPyramid, int, FloatArray] | None:
    """A recording's stored flag counts of `name` binned over [lo, hi] (with its pyramid
    and row), when the feed has them at a block per bin or finer."""
    pyramid = feed.summary(key) if isinstance(feed, SummaryFeed) else None
    if pyramid is None or name not in ring.series:
        return None
    row = ring.series.index(name)
    binned = pyramid.binned(lo, hi, bins, [row], "or")
    return None if binned is None else (pyramid, row, binned)


def shares_of_counts(counted: tuple[int, dict[int, int]] | None,
                     ) -> tuple[float, dict[str, float]] | None:
    """`throttle_shares` from a recording's stored counts: (samples, samples per mask of
    FLAG_MASKS)."""
    if counted is None or counted[0] == 0:
        return None
    total, counts = counted
    shares: dict[str, float] = {}
    for reason, _ in THROTTLE_COLORS:
        if reason is ThrottleReason.IDLE:
            continue
        count = counts.get(int(reason), 0)
        if count:
            shares[throttle_reason_names(float(reason))[0]] = count / total
    return counts.get(SLOWING, 0) / total, shares


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


def reason_words(value: float | None) -> str:
    """"power cap, thermal": the throttle reasons of a value, in the language installed."""
    return ", ".join(core_text(word) for word in throttle_reason_names(value))


def percent(share: float) -> str:
    """0.234 -> "23 %"; a share above 0 but under 1 % -> "<1 %"."""
    if 0 < share < 0.005:
        return "<1 %"
    return f"{share * 100:.0f} %"
