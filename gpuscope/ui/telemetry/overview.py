"""The Telemetry page's overview: the whole history (or recording) in one slim strip, with
the range the charts show as a box to drag, stretch, or move by clicking elsewhere.

It draws each GPU's utilization (and the host's CPU load) over everything there is,
decimated to its width, and emits `range_requested(start_s, end_s)` (unix seconds) when the
user moves the box; `set_region` moves the box without emitting.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QFrame, QGraphicsItem, QHBoxLayout, QLabel, QSizePolicy, QWidget

from gpuscope.metrics import Metric, series_name
from gpuscope.telemetry.decimate import decimate_block
from gpuscope.telemetry.feed import FeedDevice, SummaryFeed, TelemetryFeed
from gpuscope.telemetry.frame import TimeRange, take
from gpuscope.ui.telemetry.chart import HOST_COLOR, FastCurve
from gpuscope.ui.telemetry.time_axis import TimeAxis
from gpuscope.ui.theme import MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import color_plot

FloatArray = npt.NDArray[np.float64]
OVERVIEW_HEIGHT = 58
OVERVIEW_REFRESH_S = 2.0  # a live overview is redrawn about this often
OVERVIEW_METRICS: tuple[Metric, ...] = (Metric.GPU_UTIL_PERCENT, Metric.HOST_CPU_PERCENT)
_REGION_BRUSH = QColor(76, 141, 246, 45)
_REGION_PEN = QColor(76, 141, 246, 200)


class OverviewStrip(QFrame):
    """All of the data, the visible range boxed."""

    range_requested = Signal(float, float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("telemetryOverview")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.caption = QLabel(self.tr("Overview"))
        self.caption.setObjectName("overviewCaption")
        self.caption.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.caption.setToolTip(self.tr("GPU utilization (and host CPU) over everything there "
                                        "is. Drag the box, stretch its edges, or click to move "
                                        "it."))
        row.addWidget(self.caption)
        palette = self.palette()
        self.time_axis = TimeAxis()
        self.plot_widget = pg.PlotWidget(background=palette.color(QPalette.ColorRole.Base),
                                         axisItems={"bottom": self.time_axis})
        self.plot_widget.setFixedHeight(OVERVIEW_HEIGHT)
        self.plot_item = self.plot_widget.getPlotItem()
        self.view_box = self.plot_item.getViewBox()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self.plot_item.setMouseEnabled(x=False, y=False)
        self.plot_item.disableAutoRange()
        self.plot_item.hideAxis("left")
        color_plot(self.plot_widget, palette, axes=("bottom",))
        self.plot_item.getAxis("bottom").setCacheMode(
            QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.time_axis.setStyle(hideOverlappingLabels=False, tickLength=-4)
        self.plot_item.setYRange(0.0, 100.0, padding=0.05)
        self.region = pg.LinearRegionItem(
            values=(0.0, 1.0), brush=pg.mkBrush(_REGION_BRUSH), pen=pg.mkPen(_REGION_PEN,
                                                                               width=2),
            swapMode="block")
        self.region.setZValue(10)
        self.plot_item.addItem(self.region, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._on_region_moved)
        self.plot_widget.scene().sigMouseClicked.connect(self._on_clicked)
        row.addWidget(self.plot_widget, 1)
        self.origin_s = 0.0
        self.extent: tuple[float, float] | None = None  # unix seconds
        self.curves: list[FastCurve] = []
        self._quiet = False
        self._key: tuple[tuple[float, float], int, int] | None = None
        self._due_at = 0.0

    def forget(self) -> None:
        """A new feed: a new origin, and lines to draw afresh."""
        self.extent = None
        self._key = None

    def refresh(self, feed: TelemetryFeed, devices: Sequence[FeedDevice],
                extent: tuple[float, float], clock: float, view: TimeRange | None) -> None:
        """Draw the lines over `extent` (unix seconds) where what they show changed, and box
        `view`. Not on every forced frame (each step of a zoom is one); live, once time has
        moved on by a pixel column, and not more often than every OVERVIEW_REFRESH_S of
        `clock`."""
        columns = max(64, int(self.view_box.width()) or 600)
        key = (extent, columns, len(devices))
        if key != self._key and (not feed.live or clock >= self._due_at or self._key is None):
            self._key = key
            self._due_at = clock + max(OVERVIEW_REFRESH_S, (extent[1] - extent[0]) / columns)
            first, last = extent
            lines = overview_lines(feed, devices, OVERVIEW_METRICS, first, last, columns)
            self.set_lines(lines, extent, self.origin_s if self.extent is not None else last)
        if view is not None:
            self.set_region(view.start_s, view.end_s)

    # ------------------------------------------------------------------ data

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "plot_widget"):
            color_plot(self.plot_widget, self.palette(), axes=("bottom",))

    def set_lines(self, lines: Sequence[tuple[QColor, FloatArray, FloatArray]],
                  extent: tuple[float, float], origin_s: float) -> None:
        """Draw `lines` ((colour, unix times, percent)) over `extent` (unix seconds)."""
        self.origin_s = origin_s
        self.time_axis.set_clock(origin_s)
        while len(self.curves) < len(lines):
            curve = FastCurve(antialias=False)
            # Redrawn every few seconds, painted every frame: paint it from a pixmap.
            curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.plot_item.addItem(curve)
            self.curves.append(curve)
        for index, curve in enumerate(self.curves):
            if index < len(lines):
                color, times, values = lines[index]
                curve.setPen(pg.mkPen(color, width=1))
                curve.set_points(times - origin_s, values)
                curve.setVisible(True)
            else:
                curve.setVisible(False)
        self.extent = extent
        first, last = extent
        span = max(last - first, 1.0)
        self.plot_item.setXRange(first - origin_s, first - origin_s + span, padding=0.0)

    def set_region(self, start_s: float, end_s: float) -> None:
        """Box [start, end] (unix seconds), without emitting `range_requested`."""
        low, high = start_s - self.origin_s, end_s - self.origin_s
        current = self.region.getRegion()
        # Less than half a pixel (a live window moving on): not worth a repaint.
        span = (self.extent[1] - self.extent[0]) if self.extent is not None else 0.0
        still = 0.5 * span / max(self.view_box.width(), 1.0)
        if abs(current[0] - low) <= still and abs(current[1] - high) <= still:
            return
        self._quiet = True
        try:
            self.region.setRegion((low, high))
        finally:
            self._quiet = False

    @property
    def region_s(self) -> tuple[float, float]:
        low, high = self.region.getRegion()
        return float(low) + self.origin_s, float(high) + self.origin_s

    # ------------------------------------------------------------------ the user

    def _on_region_moved(self) -> None:
        if self._quiet:
            return
        start, end = self.region_s
        self.range_requested.emit(start, end)

    def _on_clicked(self, event: object) -> None:
        """A click beside the box centres the box there."""
        accepted = getattr(event, "isAccepted", None)
        if callable(accepted) and accepted():
            return
        pos = getattr(event, "scenePos", None)
        button = getattr(event, "button", None)
        if pos is None or (callable(button) and button() != Qt.MouseButton.LeftButton):
            return
        point = pos()
        if not isinstance(point, QPointF) or not self.view_box.sceneBoundingRect().contains(
                point):
            return
        self.centre_on(float(self.view_box.mapSceneToView(point).x()) + self.origin_s)

    def centre_on(self, time_s: float) -> None:
        """Move the box to be centred on `time_s` (unix seconds), keeping its width."""
        start, end = self.region_s
        half = (end - start) / 2.0
        self.range_requested.emit(time_s - half, time_s + half)


def overview_lines(feed: TelemetryFeed, devices: Sequence[FeedDevice],
                   metrics: Sequence[Metric], first: float, last: float,
                   columns: int) -> list[tuple[QColor, FloatArray, FloatArray]]:
    """The overview's lines: `metrics` of every device over [first, last], decimated to
    `columns` (from a recording's pyramid where it has one), in the device's colour."""
    lines: list[tuple[QColor, FloatArray, FloatArray]] = []
    for device in devices:
        ring = feed.ring(device.key)
        if ring is None:
            continue
        for metric in metrics:
            name = series_name(device.key, metric)
            if name not in ring.series:
                continue
            pyramid = feed.summary(device.key) if isinstance(feed, SummaryFeed) else None
            points = (pyramid.decimate(first, last, columns, [ring.series.index(name)])
                      if pyramid is not None else None)
            if points is not None:
                x, y = points[0]
            else:
                times, block = take(ring, [name], first, last)
                x, y = decimate_block(times, block, first, last, columns)[0]
            color = HOST_COLOR if device.gpu_index is None else gpu_color(device.gpu_index)
            lines.append((color, x, y))
    return lines
