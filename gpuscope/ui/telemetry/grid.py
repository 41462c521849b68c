"""The Telemetry page's grid of charts: the throttle strip on top, a chart per metric in one
or two columns, the process table under the first row (near the VRAM it breaks down), the
per-core strip at the bottom. Built once per feed (or device list); every chart and strip
shows the same time range."""

from __future__ import annotations

import math
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QWidget

from gpuscope.metrics import CATALOGUE, Metric, series_name
from gpuscope.telemetry.feed import FeedDevice, TelemetryFeed
from gpuscope.telemetry.ring import RingView
from gpuscope.ui.telemetry.chart import TelemetryChart
from gpuscope.ui.telemetry.drawing import CurveDrawing
from gpuscope.ui.telemetry.legends import initial_y_range
from gpuscope.ui.telemetry.processes import ProcessTable
from gpuscope.ui.telemetry.strips import PageStrips, StripChart

MIN_CHART_WIDTH = 380
# Per device key, the (metric, series name) pairs charted from its ring.
DeviceSeries = dict[str, list[tuple[Metric, str]]]


class ChartGrid(QWidget):
    """The charts, strips and process table of one feed, laid out for the page's width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(10)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.process_table = ProcessTable(self)  # laid out by `build`; deleted with the grid
        self.process_table.setVisible(False)
        self.charts: dict[Metric, TelemetryChart] = {}
        self.strips: PageStrips | None = None
        self._columns_count = 0

    def all_charts(self) -> list[TelemetryChart | StripChart]:
        """Every chart and strip: what shares the time axis."""
        strips = self.strips.charts() if self.strips is not None else []
        return [*self.charts.values(), *strips]

    def stop_proxies(self) -> None:
        for chart in self.all_charts():
            chart.stop_proxy()

    def clear(self) -> None:
        self.stop_proxies()
        for chart in self.all_charts():
            self.grid.removeWidget(chart)
            chart.deleteLater()
        self.grid.removeWidget(self.process_table)
        self.charts = {}
        self.strips = None
        self._columns_count = 0

    def build(self, feed: TelemetryFeed, devices: tuple[FeedDevice, ...], window_s: int,
              drawing: CurveDrawing, metrics: tuple[Metric, ...],
              hover: Callable[[Metric, float | None], None],
              strip_hover: Callable[[StripChart, float | None, int | None], None],
              manual_range: Callable[[pg.ViewBox], None], *,
              strips: bool = True) -> DeviceSeries:
        """A chart per metric of `metrics` that some device has (a line per device), and
        (with `strips`) the strips; which series each device's ring gives the charts."""
        device_series: DeviceSeries = {}
        rings = {d.key: feed.ring(d.key) for d in devices}
        for metric in metrics:
            info = CATALOGUE[metric]
            members = [d for d in devices
                       if (d.gpu_index is None) == info.host
                       and _has_series(feed, rings[d.key], series_name(d.key, metric))]
            if not members:
                continue
            chart = TelemetryChart(metric, members)
            chart.set_x_window(window_s)
            for device in members:
                ring = rings[device.key]
                name = series_name(device.key, metric)
                pen = pg.mkPen(chart.color_of(device), width=1)
                chart.add_curve(device, drawing.new_curve(chart, pen))
                if ring is not None and name in ring.series:
                    device_series.setdefault(device.key, []).append((metric, name))
            chart.connect_hover(hover)
            initial_y_range(chart)
            self.charts[metric] = chart
        self.strips = PageStrips(feed, devices, rings, window_s) if strips else None
        for strip in self.strips.charts() if self.strips is not None else ():
            strip.connect_hover(strip_hover)
        for item in self.all_charts():
            item.view_box.sigRangeChangedManually.connect(
                lambda _mask, box=item.view_box: manual_range(box))
        return device_series

    def lay_out(self, width: int) -> None:
        """Two columns of charts where `width` has room for them, else one."""
        if not self.all_charts():
            return
        count = 2 if width >= 2 * MIN_CHART_WIDTH else 1
        if count == self._columns_count:
            return
        self._columns_count = count
        for widget in (*self.all_charts(), self.process_table):
            self.grid.removeWidget(widget)
        row = 0
        strips = self.strips
        if strips is not None and strips.throttle is not None:
            self.grid.addWidget(strips.throttle, row, 0, 1, count)
            row += 1
        charts = list(self.charts.values())
        first_row, rest = charts[:count], charts[count:]
        for position, chart in enumerate(first_row):
            self.grid.addWidget(chart, row, position)
        row += 1
        self.grid.addWidget(self.process_table, row, 0, 1, count)
        row += 1
        for position, chart in enumerate(rest):
            self.grid.addWidget(chart, row + position // count, position % count)
        row += math.ceil(len(rest) / count)
        if strips is not None and strips.cores is not None:
            self.grid.addWidget(strips.cores, row, 0, 1, count)
        for col in range(2):
            self.grid.setColumnStretch(col, 1 if col < count else 0)

    def apply_x_range(self, x0: float, x1: float) -> None:
        for chart in self.all_charts():
            chart.set_x_range(x0, x1)

    def set_axes(self, clock: bool, origin: float, window_s: float) -> None:
        """Clock times from `origin`, or times before "now" for a window of `window_s`."""
        for chart in self.all_charts():
            axis = chart.time_axis
            if clock:
                axis.set_clock(origin)
            elif axis.clock or axis.window_s != round(window_s):
                axis.set_window(round(window_s))

    def plot_columns(self) -> int:
        """Pixel columns of the widest plot (400 before the first layout)."""
        widths = [int(chart.view_box.width()) for chart in self.charts.values()]
        widest = max(widths, default=0)
        return widest if widest >= 16 else 400


def _has_series(feed: TelemetryFeed, ring: RingView | None, name: str) -> bool:
    return (ring is not None and name in ring.series) or feed.latest(name) is not None
