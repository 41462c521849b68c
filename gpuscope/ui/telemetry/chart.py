"""One chart of the Telemetry page: a metric's plot with a line per device, its crosshair
readout, "not available (reason)" in place of the plot, and a table of now/min/avg/max per
device; and the pieces it is drawn with (`FastCurve`, `LegendTable`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPalette,
    QPixmap,
    QPolygonF,
    QResizeEvent,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gpuscope.metrics import CATALOGUE, Metric, MetricInfo
from gpuscope.telemetry.feed import FeedDevice
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.telemetry.time_axis import TimeAxis
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import color_plot, panel_column

FloatArray = npt.NDArray[np.float64]

HOST_COLOR = QColor("#5b5b5b")
PLOT_HEIGHT = 180
_WARN_HALO = QColor(ERROR_COLOR.red(), ERROR_COLOR.green(), ERROR_COLOR.blue(), 110)


def window_label(seconds: int) -> str:
    return (translate("TelemetryPage", "{minutes} min").format(minutes=seconds // 60)
            if seconds >= 60 else
            translate("TelemetryPage", "{seconds} s").format(seconds=seconds))


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
        return translate("TimeAxis", "now")
    if seconds < 60:
        return "−" + translate("TelemetryPage", "{seconds} s").format(seconds=f"{seconds:.0f}")
    minutes, rest = divmod(round(seconds), 60)
    return f"−{minutes}:{rest:02d}"


def chart_title(info: MetricInfo) -> str:
    label = core_text(info.label)
    return f"{label} ({core_text(info.unit)})" if info.unit else label


# The old name of the charts' time axis.
RelativeTimeAxis = TimeAxis


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


# English, and painted in the language installed; "last" replaces "now" over a past range.
LEGEND_HEADERS = (QT_TRANSLATE_NOOP("LegendTable", "now"),
                  QT_TRANSLATE_NOOP("LegendTable", "min"),
                  QT_TRANSLATE_NOOP("LegendTable", "avg"),
                  QT_TRANSLATE_NOOP("LegendTable", "max"))
PAST_LEGEND_HEADERS = (QT_TRANSLATE_NOOP("LegendTable", "last"), *LEGEND_HEADERS[1:])


class LegendTable(QWidget):
    """A chart's table of current/min/avg/max per device, painted directly: a change of
    numbers repaints it, and only a change in the number of rows changes its size, so the
    once-a-second update never re-lays out the page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.rows: tuple[LegendRow, ...] = ()
        self.headers: tuple[str, ...] = LEGEND_HEADERS
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

    def set_headers(self, headers: tuple[str, str, str, str]) -> None:
        """The column titles: ("now", "min", "avg", "max") live, ("last", …) over a range in
        the past."""
        if headers != self.headers:
            self.headers = headers
            self._picture = None
            self.update()

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
        for column, header in enumerate(self.headers):
            x = name_end + column * number_width
            painter.drawText(QRectF(x, 0, number_width, line), right, self.tr(header))
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


class ElidedLabel(QLabel):
    """A one-line plain-text label that never widens its panel: where its text does not
    fit, it is drawn cut with "…", and the whole text is its tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().horizontalAdvance("…") * 6),
                     hint.height())

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def shown_text(self) -> str:
        """The text as drawn: cut with "…" where it does not fit."""
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())

    def setText(self, text: str) -> None:
        super().setText(text)
        self._sync_tooltip()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._sync_tooltip()

    def _sync_tooltip(self) -> None:
        self.setToolTip(self.text() if self.is_elided() else "")

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
        painter.end()


def chart_header(column: QVBoxLayout, title: str) -> tuple[QLabel, QLabel]:
    """The header row of a chart or strip: its bold title (cut with "…" where the panel is
    too narrow, whole in its tooltip), and the hover readout on the right. Added to
    `column`; returns (title, readout)."""
    header = QHBoxLayout()
    header.setSpacing(8)
    title_label = ElidedLabel(title)
    font = title_label.font()
    font.setBold(True)
    title_label.setFont(font)
    readout = QLabel()
    readout.setObjectName("readout")
    readout.setTextFormat(Qt.TextFormat.RichText)
    readout.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    readout.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    header.addWidget(title_label)
    header.addWidget(readout, 1)
    column.addLayout(header)
    return title_label, readout


class TelemetryChart(QFrame):
    """One metric: a title with the crosshair readout, the plot (or why it is not available),
    and a table of current/min/avg/max per device over the window."""

    def __init__(self, metric: Metric, devices: Sequence[FeedDevice],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart_metric = metric
        self.info = CATALOGUE[metric]
        self.devices: tuple[FeedDevice, ...] = tuple(devices)
        column = panel_column(self, "telemetryChart")

        self.title, self.readout = chart_header(column, chart_title(self.info))

        self.time_axis = TimeAxis()
        self.plot_widget = time_plot(self.palette(), self.time_axis, None, grid_y=True)
        self.plot_widget.setFixedHeight(PLOT_HEIGHT)
        self.plot_item = self.plot_widget.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        self.plot_item.getAxis("left").setStyle(hideOverlappingLabels=False)

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
        # A snapshot's single readings, in place of the plot and the table.
        self.capture_view = QLabel()
        self.capture_view.setObjectName("captureView")
        self.capture_view.setTextFormat(Qt.TextFormat.RichText)
        self.capture_view.setWordWrap(True)
        self.capture_view.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.capture_view.setVisible(False)
        column.addWidget(self.capture_view)
        column.addStretch(1)  # a panel taller than its contents keeps them at the top
        self._capture = ""

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
                label=f"{self.warn_at:g} {core_text(self.info.unit)}",
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
        self.y_range: tuple[float, float] | None = None
        self.x_range: tuple[float, float] | None = None
        self._message = ""
        self.hover: PlotHover | None = None

    # ------------------------------------------------------------------ hover

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "plot_widget"):
            color_plot(self.plot_widget, self.palette(), axes=("left", "bottom"))

    def connect_hover(self, handler: Callable[[Metric, float | None], None]) -> None:
        """Call `handler(metric, x_s)` as the mouse moves over the plot (throttled to 30 Hz),
        and `handler(metric, None)` when it leaves."""
        self.hover = PlotHover(self, self.plot_widget, self.view_box, lambda point: handler(
            self.chart_metric, None if point is None else float(point.x())))

    def stop_proxy(self) -> None:
        if self.hover is not None:
            self.hover.stop()

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
        """Show the `window_s` before "now" (x = 0), labelled relative to now."""
        self.time_axis.set_window(window_s)
        # A sliver past "now", so that its tick label has room.
        self.set_x_range(-window_s, window_s * 0.03)

    def set_x_range(self, x0: float, x1: float) -> None:
        """Show x0..x1 (seconds from the page's origin), when it is not shown already."""
        if self.x_range != (x0, x1):
            self.x_range = (x0, x1)
            self.plot_item.setXRange(x0, x1, padding=0)

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

    def show_capture(self, text_html: str) -> None:
        """Replace the plot and the table by `text_html`: single readings as a snapshot
        captured them; "" shows the plot and the table again."""
        if text_html == self._capture:
            return
        self._capture = text_html
        self.capture_view.setText(text_html)
        self.capture_view.setVisible(bool(text_html))
        self.body.setVisible(not text_html)
        self.legend.setVisible(not text_html)

    @property
    def capture_text(self) -> str:
        """The single readings on show, as plain text ("" while the plot is on show)."""
        return self.capture_view.text() and QTextDocumentFragment.fromHtml(
            self.capture_view.text()).toPlainText()

    @property
    def message(self) -> str:
        return self._message

    def set_legend(self, rows: Sequence[LegendRow]) -> None:
        self.legend.set_rows(rows)

    @property
    def legend_text(self) -> str:
        """The table as plain text, a line per device."""
        return self.legend.plain_text()


def time_plot(palette: QPalette, time_axis: TimeAxis, left_axis: pg.AxisItem | None, *,
              grid_y: bool) -> pg.PlotWidget:
    """A plot over the page's time axis, as every chart and strip has: no menu or buttons,
    wheel zoom and drag pan of x only (the page keeps every chart on one range), no
    auto-range, a faint grid, the left axis 44 px wide, the edge labels kept ("now", the
    range's ends), and axes painted from a pixmap (they change only with the range)."""
    axes: dict[str, pg.AxisItem] = {"bottom": time_axis}
    if left_axis is not None:
        axes["left"] = left_axis
    plot_widget = pg.PlotWidget(background=palette.color(QPalette.ColorRole.Base),
                                axisItems=axes)
    item = plot_widget.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.setMouseEnabled(x=True, y=False)
    item.disableAutoRange()
    item.showGrid(x=True, y=grid_y, alpha=0.18)
    color_plot(plot_widget, palette)
    item.getAxis("left").setWidth(44)
    time_axis.setStyle(hideOverlappingLabels=False)
    for name in ("left", "bottom"):
        item.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    return plot_widget


class PlotHover(QObject):
    """The mouse over a plot, 30 times a second at most (its scene reports every pixel):
    `moved(point)` with the view coordinates while it is over the view box, `moved(None)`
    once it is not, or has left `owner` (the chart or strip)."""

    def __init__(self, owner: QWidget, plot_widget: pg.PlotWidget, view_box: pg.ViewBox,
                 moved: Callable[[QPointF | None], None]) -> None:
        super().__init__(owner)
        self.view_box = view_box
        self.moved = moved
        self._proxy = pg.SignalProxy(plot_widget.scene().sigMouseMoved, rateLimit=30,
                                     slot=self.on_mouse_moved, threadSafe=False)
        owner.installEventFilter(self)

    def stop(self) -> None:
        self._proxy.timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Leave:
            self.moved(None)
        return False

    def on_mouse_moved(self, event: object) -> None:
        args = event if isinstance(event, tuple) else (event,)
        point = args[0] if args else None
        if not isinstance(point, QPointF):
            return
        if not self.view_box.sceneBoundingRect().contains(point):
            self.moved(None)
            return
        self.moved(self.view_box.mapSceneToView(point))
