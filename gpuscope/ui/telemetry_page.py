"""The Telemetry page: one chart per metric, one line per GPU (in the GPU's colour used across
the app), over a time window ending "now", read from a `TelemetryFeed`.

Charts redraw on the page's own timer (4 Hz by default), never on sample arrival. Each redraw
takes the window from each device's ring buffer, decimates it to about two points per pixel
column (`decimate.py`: spikes and gaps survive) and `setData`s curves created once. Texts
(legend tables, the y range) change at most once a second, and only when they differ. While
paused the charts hold still; the feed keeps filling its rings, and Resume catches up.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QHideEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPalette,
    QPixmap,
    QPolygonF,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGraphicsItem,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gpuscope.telemetry.metrics import (
    CATALOGUE,
    GPU_METRICS,
    HOST_METRICS,
    Metric,
    MetricInfo,
    series_name,
)
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.ui.decimate import decimate_block
from gpuscope.ui.telemetry_feed import FeedDevice, TelemetryFeed
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, gpu_color

FloatArray = npt.NDArray[np.float64]

NO_FEED_TEXT = "Live telemetry starts when a sampler is attached"
WINDOWS_S: tuple[int, ...] = (60, 300, 900, 3600)
DEFAULT_WINDOW_S = 300
DEFAULT_REDRAW_HZ = 4.0
TEXT_INTERVAL_S = 1.0  # legend tables and y ranges change at most this often
BASE_REFRESH_S = 4.0  # a device's window is decimated afresh about this often
HOST_COLOR = QColor("#5b5b5b")
# Shown as the top of another chart's y range, not as charts of their own.
REFERENCE_TOPS: dict[Metric, Metric] = {
    Metric.VRAM_USED_BYTES: Metric.VRAM_TOTAL_BYTES, Metric.POWER_W: Metric.POWER_CAP_W,
}
CHART_GPU_METRICS: tuple[Metric, ...] = tuple(
    m for m in GPU_METRICS if m not in REFERENCE_TOPS.values())
CHART_METRICS: tuple[Metric, ...] = CHART_GPU_METRICS + HOST_METRICS
PLOT_HEIGHT = 180
MIN_CHART_WIDTH = 380
# Axis tick spacing (major, minor) in seconds for each window.
_TICKS_S: dict[int, tuple[float, float]] = {
    60: (10, 5), 300: (60, 30), 900: (180, 60), 3600: (600, 300),
}
_WARN_HALO = QColor(ERROR_COLOR.red(), ERROR_COLOR.green(), ERROR_COLOR.blue(), 110)


def window_label(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds >= 60 else f"{seconds} s"


def format_value(value: float | None) -> str:
    """A shown value with precision that suits its size: 1234, 73.4, 5.27."""
    if value is None or not math.isfinite(value):
        return "—"
    magnitude = abs(value)
    if magnitude < 0.005:
        return "0"
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def format_ago(seconds: float) -> str:
    """"now", "−45 s", "−2:35"."""
    seconds = max(0.0, seconds)
    if seconds < 0.5:
        return "now"
    if seconds < 60:
        return f"−{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"−{minutes}:{rest:02d}"


def chart_title(info: MetricInfo) -> str:
    return f"{info.label} ({info.unit})" if info.unit else info.label


class RelativeTimeAxis(pg.AxisItem):  # type: ignore[misc]
    """The x axis in seconds before "now": "−5 min … now"."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom")
        self.window_s = DEFAULT_WINDOW_S

    def set_window(self, seconds: int) -> None:
        self.window_s = seconds
        major, minor = _TICKS_S.get(seconds, (seconds / 5, seconds / 10))
        self.setTickSpacing(major, minor)

    def boundingRect(self) -> QRectF:
        # Room for the labels centred on the two ends ("−5 min", "now"); with a grid,
        # pyqtgraph's own rect has none and drops them.
        rect: QRectF = super().boundingRect()
        return rect.adjusted(-30, 0, 30, 0)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        strings = []
        for value in values:
            ago = -value
            if abs(ago) < 1e-6:
                strings.append("now")
            elif self.window_s >= 300:
                strings.append(f"−{ago / 60:g} min")
            else:
                strings.append(f"−{ago:g} s")
        return strings


@dataclass(frozen=True, slots=True)
class SeriesStats:
    """One series over the window on show, in display units; None where it has no sample."""

    current: float | None
    minimum: float | None
    mean: float | None
    maximum: float | None


_NO_STATS = SeriesStats(None, None, None, None)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k at or above `value` (> 0)."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        candidate = step * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return candidate
    return 10.0 ** (exponent + 1)


@dataclass(frozen=True, slots=True)
class LegendRow:
    """One device's line in a chart's table: its numbers, or a note (lost, not available)."""

    color: str  # "#4c8df6"
    name: str  # "GPU 0"
    cells: tuple[str, str, str, str] = ("", "", "", "")  # now, min, avg, max
    note: str = ""  # replaces the cells: "lost: …", "not available: …"
    note_is_error: bool = False
    warning: bool = False  # "now" at or above the chart's warning threshold
    tooltip: str = ""

    def plain_text(self) -> str:
        return f"{self.name}  {self.note}" if self.note else "  ".join((self.name, *self.cells))


LEGEND_HEADERS = ("now", "min", "avg", "max")


class LegendTable(QWidget):
    """A chart's table of current/min/avg/max per device, painted directly: a change of
    numbers repaints it, and only a change in the number of rows changes its size, so the
    once-a-second update never re-lays out the page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.rows: tuple[LegendRow, ...] = ()
        # The painted table, kept until the rows or the size change: repaints just blit it.
        self._picture: QPixmap | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self._resize_for(0)

    def line_height(self) -> int:
        return self.fontMetrics().height() + 1

    def _resize_for(self, count: int) -> None:
        self.setFixedHeight((count + 1) * self.line_height() + 2)

    def set_rows(self, rows: Sequence[LegendRow]) -> bool:
        """Show `rows`; whether anything changed."""
        rows = tuple(rows)
        if rows == self.rows:
            return False
        if len(rows) != len(self.rows):
            self._resize_for(len(rows))
        self.rows = rows
        self._picture = None
        self.update()
        return True

    def plain_text(self) -> str:
        return "\n".join(row.plain_text() for row in self.rows)

    def _columns(self) -> tuple[int, int]:
        """x of the end of the name column, and the width of a number column."""
        metrics = self.fontMetrics()
        name_width = max((metrics.horizontalAdvance(row.name) for row in self.rows),
                         default=0)
        return 14 + name_width + 8, metrics.horizontalAdvance("−00000.0") + 10

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = event.pos().y() // self.line_height() - 1
            tip = self.rows[index].tooltip if 0 <= index < len(self.rows) else ""
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        ratio = self.devicePixelRatioF()
        picture = self._picture
        if (picture is None or picture.deviceIndependentSize().toSize() != self.size()
                or picture.devicePixelRatioF() != ratio):
            picture = QPixmap((self.size().toSizeF() * ratio).toSize())
            picture.setDevicePixelRatio(ratio)
            picture.fill(Qt.GlobalColor.transparent)
            self._paint_table(picture)
            self._picture = picture
        painter = QPainter(self)
        painter.drawPixmap(0, 0, picture)
        painter.end()

    def _paint_table(self, device: QPixmap) -> None:
        painter = QPainter(device)
        painter.setFont(self.font())
        metrics = self.fontMetrics()
        line = self.line_height()
        name_end, number_width = self._columns()
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.setPen(MUTED_COLOR)
        for column, header in enumerate(LEGEND_HEADERS):
            x = name_end + column * number_width
            painter.drawText(QRectF(x, 0, number_width, line), right, header)
        bold = QFont(self.font())
        bold.setBold(True)
        for index, row in enumerate(self.rows):
            y = (index + 1) * line
            swatch = max(6, metrics.ascent() - 3)
            painter.fillRect(QRectF(1, y + (line - swatch) / 2, swatch, swatch),
                             QColor(row.color))
            painter.setPen(text_color)
            painter.drawText(QRectF(14, y, name_end - 14, line), left, row.name)
            if row.note:
                painter.setPen(ERROR_COLOR if row.note_is_error else MUTED_COLOR)
                width = max(0, self.width() - name_end - 4)
                painter.drawText(QRectF(name_end + 6, y, width, line), left,
                                 metrics.elidedText(row.note, Qt.TextElideMode.ElideRight,
                                                    width))
                continue
            for column, cell in enumerate(row.cells):
                x = name_end + column * number_width
                if column == 0 and row.warning:
                    painter.setFont(bold)
                    painter.setPen(ERROR_COLOR)
                else:
                    painter.setPen(text_color)
                painter.drawText(QRectF(x, y, number_width, line), right, cell)
                if column == 0 and row.warning:
                    painter.setFont(self.font())
        painter.end()


# What PlotCurveItem.updateData resets; `FastCurve.set_points` resets the same, and falls back
# to setData if a pyqtgraph release names them differently.
_CURVE_CACHES = ("path", "fillPath", "_fillPathList", "_mouseShape")


class FastCurve(pg.PlotCurveItem):  # type: ignore[misc]
    """A PlotCurveItem for the redraw loop: `set_points` takes arrays as they are (no checks,
    signals or per-call profiling), its bounds come from the data once per update instead of
    at every paint, and its path is one polygon per run of finite points (NaN = a gap), or
    pyqtgraph's fastest path when there is no gap."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._bounds: tuple[float, float, float, float] | None = None
        self._bounds_known = True
        super().__init__(*args, **kwargs)
        self._fast = all(hasattr(self, name) for name in (*_CURVE_CACHES, "xData", "yData"))

    def set_points(self, x: FloatArray, y: FloatArray) -> None:
        """Show points (x, y), x increasing, y NaN where a sample is missing. Bounds and the
        path are worked out when the curve is painted, so a curve off screen costs nothing
        more."""
        if not self._fast:
            self._bounds_known = False
            self.setData(x, y)
            return
        self.prepareGeometryChange()  # with the old bounds, as Qt asks
        self._bounds_known = False
        self.xData = x
        self.yData = y
        for name in _CURVE_CACHES:
            setattr(self, name, None)
        self._lineSegmentsRendered = False
        self.invalidateBounds()
        self.update()

    def _data_bounds(self) -> tuple[float, float, float, float] | None:
        if not self._bounds_known:
            self._bounds_known = True
            self._bounds = None
            x, y = self.xData, self.yData
            if x is not None and y is not None and len(y):
                with np.errstate(invalid="ignore"):
                    low, high = float(np.fmin.reduce(y)), float(np.fmax.reduce(y))
                if math.isfinite(low) and math.isfinite(high):
                    self._bounds = (float(x[0]), float(x[-1]), low, high)
        return self._bounds

    def generatePath(self, x: FloatArray, y: FloatArray) -> QPainterPath:
        finite = ~np.isnan(y)
        if finite.all():
            whole: QPainterPath = pg.functions.arrayToQPath(x, y, connect="all",
                                                            finiteCheck=False)
            return whole
        path = QPainterPath()
        edges = np.flatnonzero(np.diff(np.concatenate(([0], finite.view(np.int8), [0]))))
        for start, stop in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            if stop - start >= 2:  # one point alone draws no line
                path.addPolygon(_polygon(x[start:stop], y[start:stop]))
        return path

    def dataBounds(self, ax: int, frac: float = 1.0,
                   orthoRange: object = None) -> tuple[float | None, float | None]:
        bounds = self._data_bounds()
        if bounds is None or frac < 1.0 or orthoRange is not None:
            return super().dataBounds(ax, frac, orthoRange)  # type: ignore[no-any-return]
        x0, x1, y0, y1 = bounds
        return (x0, x1) if ax == 0 else (y0, y1)

    def boundingRect(self) -> QRectF:
        bounds = self._data_bounds()
        if bounds is None:
            return QRectF()
        x0, x1, y0, y1 = bounds
        pad_x = (x1 - x0) * 0.01 + 1e-9
        pad_y = (y1 - y0) * 0.02 + 1e-9
        return QRectF(x0 - pad_x, y0 - pad_y, (x1 - x0) + 2 * pad_x, (y1 - y0) + 2 * pad_y)


def _polygon(x: FloatArray, y: FloatArray) -> QPolygonF:
    polygon: QPolygonF = pg.functions.create_qpolygonf(len(x))
    points = pg.functions.ndarray_from_qpolygonf(polygon)
    points[:, 0] = x
    points[:, 1] = y
    return polygon


class TelemetryChart(QFrame):
    """One metric: a title with the crosshair readout, the plot (or why it is not available),
    and a table of current/min/avg/max per device over the window."""

    def __init__(self, metric: Metric, devices: Sequence[FeedDevice],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart_metric = metric
        self.info = CATALOGUE[metric]
        self.devices: tuple[FeedDevice, ...] = tuple(devices)
        self.setObjectName("telemetryChart")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(3)

        header = QHBoxLayout()
        header.setSpacing(8)
        self.title = QLabel(chart_title(self.info))
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.readout = QLabel()
        self.readout.setObjectName("readout")
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.readout.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        header.addWidget(self.title)
        header.addWidget(self.readout, 1)
        column.addLayout(header)

        palette = self.palette()
        background = palette.color(QPalette.ColorRole.Base)
        foreground = palette.color(QPalette.ColorRole.Text)
        self.time_axis = RelativeTimeAxis()
        self.plot_widget = pg.PlotWidget(background=background,
                                         axisItems={"bottom": self.time_axis})
        self.plot_widget.setFixedHeight(PLOT_HEIGHT)
        self.plot_item = self.plot_widget.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self.plot_item.setMouseEnabled(x=False, y=False)
        self.plot_item.disableAutoRange()
        self.plot_item.showGrid(x=True, y=True, alpha=0.18)
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.setPen(pg.mkPen(foreground))
            axis.setTextPen(pg.mkPen(foreground))
        self.plot_item.getAxis("left").setWidth(44)
        # Keep the edge labels ("now", the range's ends) instead of dropping them.
        self.time_axis.setStyle(hideOverlappingLabels=False)
        self.plot_item.getAxis("left").setStyle(hideOverlappingLabels=False)
        for name in ("left", "bottom"):
            # Ticks, labels and grid change only with the range: paint them from a pixmap.
            self.plot_item.getAxis(name).setCacheMode(
                QGraphicsItem.CacheMode.DeviceCoordinateCache)

        self.not_available = QLabel()
        self.not_available.setObjectName("notAvailable")
        self.not_available.setTextFormat(Qt.TextFormat.PlainText)
        self.not_available.setWordWrap(True)
        self.not_available.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.not_available.setFixedHeight(PLOT_HEIGHT)
        self.not_available.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.body = QStackedWidget()
        self.body.addWidget(self.plot_widget)
        self.body.addWidget(self.not_available)
        self.body.setFixedHeight(PLOT_HEIGHT)
        column.addWidget(self.body)

        self.legend = LegendTable()
        column.addWidget(self.legend)

        self.curves: dict[str, pg.GraphicsObject] = {}
        self.curve_data: dict[str, tuple[FloatArray, FloatArray]] = {}
        self.threshold: pg.InfiniteLine | None = None
        self.warn_curve: pg.PlotCurveItem | None = None
        self.warn_at = (None if self.info.warn_at is None
                        else self.info.warn_at * self.info.display_scale)
        if self.warn_at is not None:
            self.threshold = pg.InfiniteLine(
                pos=self.warn_at, angle=0, movable=False,
                pen=pg.mkPen(ERROR_COLOR, width=1, style=Qt.PenStyle.DashLine),
                label=f"{self.warn_at:g} {self.info.unit}",
                labelOpts={"position": 0.04, "color": ERROR_COLOR, "anchors": [(0, 1), (0, 1)]})
            self.plot_item.addItem(self.threshold, ignoreBounds=True)
            self.warn_curve = pg.PlotCurveItem(pen=pg.mkPen(_WARN_HALO, width=5),
                                               antialias=False)
            self.warn_curve.setZValue(-5)
            self.warn_curve.setVisible(False)
            self.plot_item.addItem(self.warn_curve)
        self.crosshair = pg.InfiniteLine(angle=90, movable=False,
                                         pen=pg.mkPen(MUTED_COLOR, width=1))
        self.crosshair.setVisible(False)
        self.plot_item.addItem(self.crosshair, ignoreBounds=True)
        self.warning_keys: frozenset[str] = frozenset()
        self.stats: dict[str, SeriesStats] = {}
        self.y_range: tuple[float, float] | None = None
        self._message = ""
        self._hover: Callable[[Metric, float | None], None] | None = None
        self._proxy: pg.SignalProxy | None = None

    # ------------------------------------------------------------------ hover

    def connect_hover(self, handler: Callable[[Metric, float | None], None]) -> None:
        """Call `handler(metric, x_s)` as the mouse moves over the plot (throttled to 30 Hz),
        and `handler(metric, None)` when it leaves."""
        self._hover = handler
        self._proxy = pg.SignalProxy(self.plot_widget.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_mouse_moved, threadSafe=False)

    def stop_proxy(self) -> None:
        if self._proxy is not None:
            self._proxy.timer.stop()

    def _on_mouse_moved(self, event: object) -> None:
        point = _hover_point(event)
        if point is None or self._hover is None:
            return
        if not self.view_box.sceneBoundingRect().contains(point):
            self._hover(self.chart_metric, None)
            return
        self._hover(self.chart_metric, float(self.view_box.mapSceneToView(point).x()))

    def leaveEvent(self, event: QEvent) -> None:
        if self._hover is not None:
            self._hover(self.chart_metric, None)
        super().leaveEvent(event)

    # ------------------------------------------------------------------ curves

    def color_of(self, device: FeedDevice) -> QColor:
        return HOST_COLOR if device.gpu_index is None else gpu_color(device.gpu_index)

    def add_curve(self, device: FeedDevice, curve: pg.GraphicsObject) -> None:
        self.curves[device.key] = curve
        self.curve_data[device.key] = (np.empty(0), np.empty(0))
        self.plot_item.addItem(curve)

    def set_curve(self, key: str, x: FloatArray, y: FloatArray) -> None:
        curve = self.curves.get(key)
        if curve is None:
            return
        self.curve_data[key] = (x, y)
        if isinstance(curve, FastCurve):
            curve.set_points(x, y)
        elif isinstance(curve, pg.PlotCurveItem):
            finite = ~np.isnan(y)
            if finite.all():
                # No gaps: pyqtgraph can skip its own per-point finiteness pass.
                curve.setData(x, y, connect="all", skipFiniteCheck=True)
            else:
                # Gaps: say which points join, which takes pyqtgraph's vectorized path
                # builder instead of one polygon per finite run.
                joins = np.zeros(len(y), dtype=bool)
                joins[:-1] = finite[:-1] & finite[1:]
                curve.setData(x, y, connect=joins)
        else:
            curve.setData(x, y)

    def update_warning_overlay(self) -> None:
        """The segments at or above the warning threshold, as a red halo under the lines."""
        if self.warn_curve is None or self.warn_at is None:
            return
        xs: list[FloatArray] = []
        ys: list[FloatArray] = []
        links: list[npt.NDArray[np.bool_]] = []
        for x, y in self.curve_data.values():
            if len(y) < 2:
                continue
            with np.errstate(invalid="ignore"):
                above = y >= self.warn_at
            if not above.any():
                continue
            link = (above[:-1] | above[1:]) & np.isfinite(y[:-1]) & np.isfinite(y[1:])
            xs.append(x)
            ys.append(np.nan_to_num(y, nan=self.warn_at))
            links.append(np.append(link, False))
        if not xs:
            if self.warn_curve.isVisible():
                self.warn_curve.setVisible(False)
            return
        self.warn_curve.setData(np.concatenate(xs), np.concatenate(ys),
                                connect=np.concatenate(links))
        self.warn_curve.setVisible(True)

    # ------------------------------------------------------------------ texts

    def set_x_window(self, window_s: int) -> None:
        self.time_axis.set_window(window_s)
        # A sliver past "now", so that its tick label has room.
        self.plot_item.setXRange(-window_s, window_s * 0.03, padding=0)

    def set_y_range(self, low: float, high: float) -> None:
        if self.y_range != (low, high):
            self.y_range = (low, high)
            self.plot_item.setYRange(low, high, padding=0.04)

    def show_message(self, message: str) -> None:
        """Replace the plot by `message` ("not available: …"); an empty message shows the
        plot."""
        if message == self._message:
            return
        self._message = message
        self.not_available.setText(message)
        self.body.setCurrentWidget(self.not_available if message else self.plot_widget)

    @property
    def message(self) -> str:
        return self._message

    def set_legend(self, rows: Sequence[LegendRow]) -> None:
        self.legend.set_rows(rows)

    @property
    def legend_text(self) -> str:
        """The table as plain text, a line per device."""
        return self.legend.plain_text()


class TelemetryPage(QWidget):
    """Live charts of every GPU and the host from a `TelemetryFeed` (`set_feed`)."""

    # Reuse each device's decimated window between text refreshes (the benchmark's naive
    # page turns it off).
    reuse_base = True

    def __init__(self, parent: QWidget | None = None, *,
                 redraw_hz: float = DEFAULT_REDRAW_HZ) -> None:
        super().__init__(parent)
        self._feed: TelemetryFeed | None = None
        self._devices: tuple[FeedDevice, ...] = ()
        self._window_s = DEFAULT_WINDOW_S
        self._paused = False
        self._frame_now: float | None = None
        self._texts_due_at = 0.0
        self._columns_count = 0
        self.charts: dict[Metric, TelemetryChart] = {}
        # Per device: the (metric, series name) pairs charted from its ring.
        self._device_series: dict[str, list[tuple[Metric, str]]] = {}
        # Per device: the last full decimation of its window, reused until the next text
        # refresh (newer samples are appended to it as they are).
        self._bases: dict[str, _Base] = {}
        self.frames_drawn = 0
        # The clock of the once-a-second text refresh; the benchmark steps it per frame.
        self.clock: Callable[[], float] = time.monotonic

        self.timer = QTimer(self)
        self.timer.setObjectName("telemetryRedrawTimer")
        self.timer.setInterval(max(10, round(1000.0 / redraw_hz)))
        self.timer.timeout.connect(self.redraw)

        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 8)
        column.setSpacing(8)

        bar = QHBoxLayout()
        bar.setSpacing(6)
        title = QLabel("Telemetry")
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
        self.window_buttons = QButtonGroup(self)
        self.window_buttons.setExclusive(True)
        for seconds in WINDOWS_S:
            button = QPushButton(window_label(seconds))
            button.setCheckable(True)
            button.setChecked(seconds == self._window_s)
            button.setToolTip(f"Show the last {window_label(seconds)}")
            self.window_buttons.addButton(button, seconds)
            bar.addWidget(button)
        self.window_buttons.idClicked.connect(self.set_window_s)
        self.pause_button = QPushButton("Pause")
        self.pause_button.setToolTip("Hold the charts still; samples keep being collected")
        self.pause_button.clicked.connect(self.toggle_pause)
        bar.addSpacing(8)
        bar.addWidget(self.pause_button)
        column.addLayout(bar)

        self.device_legend = QLabel()
        self.device_legend.setObjectName("deviceLegend")
        self.device_legend.setTextFormat(Qt.TextFormat.RichText)
        self.device_legend.setWordWrap(True)
        column.addWidget(self.device_legend)
        self.pause_note = QLabel()
        self.pause_note.setObjectName("pauseNote")
        self.pause_note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.pause_note.setVisible(False)
        column.addWidget(self.pause_note)

        self.stack = QStackedWidget()
        self.empty_label = QLabel(NO_FEED_TEXT)
        self.empty_label.setObjectName("noFeed")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(10)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.scroll_area.setWidget(self.grid_host)
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(self.scroll_area)
        column.addWidget(self.stack, 1)
        self._show_feed_state()

    # ------------------------------------------------------------------ public

    @property
    def feed(self) -> TelemetryFeed | None:
        return self._feed

    def set_feed(self, feed: TelemetryFeed | None) -> None:
        """Chart `feed` (None: show that no sampler is attached)."""
        self._feed = feed
        self._frame_now = None
        self._rebuild_charts()
        self._show_feed_state()
        if feed is not None:
            self.redraw(force=True)
        self._sync_timer()

    @property
    def window_s(self) -> int:
        return self._window_s

    def set_window_s(self, seconds: int) -> None:
        """Show the last `seconds` (one of WINDOWS_S, or any positive number)."""
        if seconds <= 0:
            raise ValueError("the window must be positive")
        self._window_s = int(seconds)
        button = self.window_buttons.button(self._window_s)
        if button is not None and not button.isChecked():
            button.setChecked(True)
        for chart in self.charts.values():
            chart.set_x_window(self._window_s)
        self.redraw(force=True)

    @property
    def is_paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        """Hold the charts still (the feed keeps collecting)."""
        if self._paused:
            return
        self._paused = True
        self.pause_button.setText("Resume")
        self.pause_button.setToolTip("Catch up with the samples collected while paused")
        when = (time.strftime("%H:%M:%S", time.localtime(self._frame_now))
                if self._frame_now is not None else "")
        self.pause_note.setText(f"Paused at {when}: charts hold still while samples keep "
                                "being collected. Resume to catch up." if when else
                                "Paused: samples keep being collected. Resume to catch up.")
        self.pause_note.setVisible(True)
        self._sync_timer()

    def resume(self) -> None:
        if not self._paused:
            return
        self._paused = False
        self.pause_button.setText("Pause")
        self.pause_button.setToolTip("Hold the charts still; samples keep being collected")
        self.pause_note.setVisible(False)
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
        """Stop redrawing (the window closes); safe to call more than once."""
        self.timer.stop()
        for chart in self.charts.values():
            chart.stop_proxy()

    def redraw(self, force: bool = False) -> None:
        """One frame: take the window from the rings, decimate, update every chart. The timer
        calls it; `force` redraws even while paused and refreshes every text now."""
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
        self._draw_frame(feed, now, force, texts_due)
        if texts_due:
            self._texts_due_at = self.clock() + TEXT_INTERVAL_S
        self.frames_drawn += 1

    def readout_text(self, metric: Metric, x_s: float) -> str:
        """The crosshair readout of chart `metric` at `x_s` seconds relative to the frame's
        "now": the time, then each device's value there (plain text)."""
        chart = self.charts.get(metric)
        if chart is None or self._feed is None or self._frame_now is None:
            return ""
        when = self._frame_now + x_s
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
        when = self._frame_now + x_s
        pieces = [html.escape(self._when_text(when))]
        for device, value in self._values_at(chart, when):
            color = chart.color_of(device).name()
            pieces.append(f"<span style='color:{color}'>■</span>&nbsp;"
                          f"{html.escape(device.short_label)}&nbsp;{format_value(value)}")
        unit = f" {html.escape(chart.info.unit)}" if chart.info.unit else ""
        chart.readout.setText("&nbsp;&nbsp;".join(pieces) + unit)

    # ------------------------------------------------------------------ events

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._feed is not None and not self._paused:
            self.redraw(force=True)
        self._sync_timer()

    def hideEvent(self, event: QHideEvent) -> None:
        self.timer.stop()
        for chart in self.charts.values():
            chart.stop_proxy()
        super().hideEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._layout_charts()

    # ------------------------------------------------------------------ internals

    def _sync_timer(self) -> None:
        running = self._feed is not None and not self._paused and self.isVisible()
        if running and not self.timer.isActive():
            self.timer.start()
        elif not running and self.timer.isActive():
            self.timer.stop()

    def _show_feed_state(self) -> None:
        feed = self._feed
        if feed is None:
            self.source_label.setText("")
            self.stack.setCurrentWidget(self.empty_label)
        else:
            self.source_label.setText(feed.label)
            self.stack.setCurrentWidget(self.scroll_area)
        self.pause_button.setEnabled(feed is not None)
        for button in self.window_buttons.buttons():
            button.setEnabled(feed is not None)

    def _rebuild_charts(self) -> None:
        for chart in self.charts.values():
            chart.stop_proxy()
            self.grid.removeWidget(chart)
            chart.deleteLater()
        self.charts = {}
        self._device_series = {}
        self._bases = {}
        self._columns_count = 0
        feed = self._feed
        self._devices = tuple(feed.devices()) if feed is not None else ()
        self._update_device_legend()
        if feed is None:
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
            self._init_y_range(chart)
            self.charts[metric] = chart
        self._layout_charts()

    def _layout_charts(self) -> None:
        if not self.charts:
            return
        layout = self.layout()
        margins = layout.contentsMargins() if layout is not None else None
        width = self.width() - (margins.left() + margins.right() if margins else 0)
        count = 2 if width >= 2 * MIN_CHART_WIDTH else 1
        if count == self._columns_count:
            return
        self._columns_count = count
        for chart in self.charts.values():
            self.grid.removeWidget(chart)
        for position, chart in enumerate(self.charts.values()):
            self.grid.addWidget(chart, position // count, position % count)
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

    def _draw_frame(self, feed: TelemetryFeed, now: float, force: bool,
                    texts_due: bool) -> None:
        window = float(self._window_s)
        start = now - window
        columns = self._plot_columns()
        key = (self._window_s, columns)
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
                chart.stats = {d.key: self._curve_stats(chart, d.key) for d in chart.devices}
                self._update_texts(feed, chart)
        if texts_due:
            self._update_device_legend()

    def _curve_stats(self, chart: TelemetryChart, key: str) -> SeriesStats:
        """Now/min/max from the curve on show (decimation keeps every column's extremes),
        the mean from the device's last full pass over the window."""
        x, y = chart.curve_data.get(key, (np.empty(0), np.empty(0)))
        inside = y[x >= -self._window_s]
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
                note = f"lost: {device.lost_reason}"
                rows.append(LegendRow(color, name, note=note, note_is_error=True,
                                      tooltip=f"{device.label}: {note}"))
                continue
            if stats.current is None:
                reading = feed.latest(series_name(device.key, chart.chart_metric))
                reason = reading.missing_reason if reading is not None else None
                if reason:
                    reasons.append(reason)
                note = f"not available: {reason}" if reason else "no samples in this window"
                rows.append(LegendRow(color, name, note=note, tooltip=f"{device.label}: {note}"))
                continue
            above = chart.warn_at is not None and stats.current >= chart.warn_at
            if above:
                warning.add(device.key)
            cells = (format_value(stats.current), format_value(stats.minimum),
                     format_value(stats.mean), format_value(stats.maximum))
            tip = device.label
            if above:
                tip += f": at or above the warning level ({chart.warn_at:g} {chart.info.unit})"
            rows.append(LegendRow(color, name, cells, warning=above, tooltip=tip))
        chart.set_legend(rows)
        chart.warning_keys = frozenset(warning)
        if any_data:
            chart.show_message("")
        elif reasons:
            chart.show_message("not available: " + "; ".join(dict.fromkeys(reasons)))
        else:
            chart.show_message("waiting for samples")
        self._apply_y_range(feed, chart)

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
        columns = self._plot_columns()
        tolerance = max(2.0 * self._window_s / columns, 1.0)
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


@dataclass(frozen=True, slots=True)
class _Base:
    key: tuple[int, int]  # (window, columns) it was decimated for
    last_time: float  # the newest sample it holds
    points: list[tuple[FloatArray, FloatArray]]  # per series: absolute times, stored values
    means: tuple[float | None, ...]  # per series, over the window, in stored units
    built_at: float  # page clock


def _means(block: FloatArray) -> tuple[float | None, ...]:
    """The mean of each row of `block`, ignoring NaN; None for a row without a number."""
    finite = ~np.isnan(block)
    counts = finite.sum(axis=1)
    sums = np.where(finite, block, 0.0).sum(axis=1)
    return tuple(float(sums[i] / counts[i]) if counts[i] else None
                 for i in range(block.shape[0]))


def _take(ring: SeriesRing, names: Sequence[str], since_s: float,
          until_s: float) -> tuple[FloatArray, FloatArray]:
    """Rows of `ring` with since_s <= time <= until_s, as (times, values[series, row])."""
    times, columns = ring.snapshot(since_s=since_s, series=names)
    stop = int(np.searchsorted(times, until_s, side="right"))
    block = np.empty((len(names), stop))
    for row, name in enumerate(names):
        block[row] = columns[name][:stop]
    return times[:stop], block


def _has_series(feed: TelemetryFeed, ring: SeriesRing | None, name: str) -> bool:
    return (ring is not None and name in ring.series) or feed.latest(name) is not None


def _value_near(ring: SeriesRing | None, name: str, when: float, tolerance: float,
                scale: float) -> float | None:
    if ring is None or name not in ring.series:
        return None
    times, values = ring.snapshot(since_s=when - tolerance, series=(name,))
    if len(times) == 0:
        return None
    column = values[name]
    nearest = int(np.argmin(np.abs(times - when)))
    value = float(column[nearest])
    if abs(float(times[nearest]) - when) > tolerance or not math.isfinite(value):
        return None
    return value * scale


def _hover_point(event: object) -> QPointF | None:
    args = event if isinstance(event, tuple) else (event,)
    point = args[0] if args else None
    return point if isinstance(point, QPointF) else None
