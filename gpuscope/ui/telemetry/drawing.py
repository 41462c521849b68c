"""How the Telemetry page draws its curves, injected into the page (`TelemetryPage(drawing=…)`):
the curve item each device gets on each chart, the points it is given, whether a device's
decimated window is reused between full passes, and who sets the y range.

`CurveDrawing` is the page's own: a `FastCurve` per device, the window decimated to about two
points per pixel column, reused between passes, the y range from the catalogue widened to
the data. benchmarks/dashboard.py measures other strategies against it (pyqtgraph's own
downsampling, no reuse).
"""

from __future__ import annotations

import pyqtgraph as pg

from gpuscope.telemetry.decimate import decimate_block
from gpuscope.telemetry.frame import FloatArray, Points
from gpuscope.ui.telemetry.chart import FastCurve, TelemetryChart


class CurveDrawing:
    """The page's curves: fast, decimated, reused."""

    # Reuse each device's decimated window between full passes.
    reuse_windows = True
    # The page sets each chart's y range (False: the curve items' own auto-range does).
    page_sets_y_range = True

    def new_curve(self, chart: TelemetryChart, pen: object) -> pg.GraphicsObject:
        """A curve created once per device and chart; pen width 1, no antialiasing."""
        return FastCurve(pen=pen, antialias=False)

    def series_data(self, times: FloatArray, block: FloatArray, start: float, end: float,
                    columns: int) -> list[Points]:
        """What each curve is given: the window decimated to ~2 points per pixel column."""
        return decimate_block(times, block, start, end, columns)
