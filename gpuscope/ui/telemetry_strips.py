"""Strips on the Telemetry page's time axis: a row per GPU of why its clocks are held back
(throttle reasons), and a row per host CPU core of its load (a heat strip).

A strip is one image, a pixel column per time column: the page bins the visible range
(`decimate.bin_columns`: OR of the reason bits, mean of a core's load) and hands the
colours here. One image item per strip costs one paint, whatever the number of rows.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFrame, QGraphicsItem, QLabel, QSizePolicy, QVBoxLayout

from gpuscope.metrics import ThrottleReason, throttle_reason_names
from gpuscope.ui.i18n import core_text, translate
from gpuscope.ui.telemetry_chart import chart_header
from gpuscope.ui.telemetry_time import TimeAxis
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR
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
SLOWING = int(ThrottleReason.POWER | ThrottleReason.THERMAL | ThrottleReason.CURRENT
              | ThrottleReason.HARDWARE | ThrottleReason.SETTING | ThrottleReason.OTHER)
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

        palette = self.palette()
        self.time_axis = TimeAxis()
        self.row_axis = RowAxis()
        self.plot_widget = pg.PlotWidget(
            background=palette.color(QPalette.ColorRole.Base),
            axisItems={"bottom": self.time_axis, "left": self.row_axis})
        self.plot_item = self.plot_widget.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self.plot_item.setMouseEnabled(x=True, y=False)
        self.plot_item.disableAutoRange()
        self.view_box.invertY(True)
        self.plot_item.showGrid(x=True, y=False, alpha=0.18)
        color_plot(self.plot_widget, palette)
        for name in ("left", "bottom"):
            self.plot_item.getAxis(name).setCacheMode(
                QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.row_axis.setWidth(44)
        self.time_axis.setStyle(hideOverlappingLabels=False)
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
        self._hover: Callable[[StripChart, float | None, int | None], None] | None = None
        self._proxy: pg.SignalProxy | None = None
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
        self._hover = handler
        self._proxy = pg.SignalProxy(self.plot_widget.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_mouse_moved, threadSafe=False)

    def stop_proxy(self) -> None:
        if self._proxy is not None:
            self._proxy.timer.stop()

    def _on_mouse_moved(self, event: object) -> None:
        args = event if isinstance(event, tuple) else (event,)
        point = args[0] if args else None
        if not isinstance(point, QPointF) or self._hover is None:
            return
        if not self.view_box.sceneBoundingRect().contains(point):
            self._hover(self, None, None)
            return
        view = self.view_box.mapSceneToView(point)
        row = int(view.y())
        self._hover(self, float(view.x()), row if 0 <= row < len(self.rows) else None)

    def leaveEvent(self, event: QEvent) -> None:
        if self._hover is not None:
            self._hover(self, None, None)
        super().leaveEvent(event)


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
