"""The Compare page's bar chart: one row of the table as bars, one per card in its colour."""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QComboBox, QWidget

from gpuscope.report.compare_rows import CHART_ROWS, ROWS
from gpuscope.report.compare_table import Better, row_label
from gpuscope.report.formatting import MISSING
from gpuscope.ui.compare.what_fits import titled_column
from gpuscope.ui.i18n import translate
from gpuscope.ui.theme import MUTED_COLOR
from gpuscope.ui.widgets import PlotPanel, make_label

CHART_HEIGHT = 230


class BarChart(PlotPanel):
    """One row of the table as bars, one per card in its colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column, header = titled_column(self, self.tr("Chart"))
        self.metric_box = QComboBox()
        for row in ROWS:
            if row.key in CHART_ROWS:
                self.metric_box.addItem(row_label(row, translate), row.key)
        self.metric_box.setCurrentIndex(max(0, self.metric_box.findData("fp16_pytorch")))
        header.addWidget(self.metric_box)
        self.better_label = make_label("", color=MUTED_COLOR, wrap=False)
        header.addWidget(self.better_label)
        header.addStretch(1)
        column.addLayout(header)
        self.plot = pg.PlotWidget()
        self.plot.setFixedHeight(CHART_HEIGHT)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.getPlotItem().showGrid(x=False, y=True, alpha=0.18)
        column.addWidget(self.plot)
        self._bars: list[tuple[str, QColor, float | None, str]] = []
        self._unit = ""
        self._apply_palette()

    @property
    def chart_metric(self) -> str:
        data = self.metric_box.currentData()
        return str(data) if data is not None else CHART_ROWS[0]

    def set_metric(self, key: str) -> None:
        index = self.metric_box.findData(key)
        if index < 0:
            raise ValueError(f"no chart for {key!r}; one of {CHART_ROWS}")
        self.metric_box.setCurrentIndex(index)

    def set_labels(self, labels: dict[str, str]) -> None:
        """Rename the metrics whose key is in `labels` ("¥ per GB of VRAM")."""
        for index in range(self.metric_box.count()):
            key = self.metric_box.itemData(index)
            if key in labels and self.metric_box.itemText(index) != labels[key]:
                self.metric_box.setItemText(index, labels[key])

    def set_bars(self, bars: Sequence[tuple[str, QColor, float | None, str]], unit: str,
                 better: Better, note: str = "") -> None:
        """(label, colour, value or None, value text) per card; `note`, when given, says
        beside the metric why the bars are missing instead of which way is better."""
        self._bars = list(bars)
        self._unit = unit
        self.better_label.setText(note or {Better.HIGHER: self.tr("higher is better"),
                                           Better.LOWER: self.tr("lower is better")}.get(
            better, ""))
        self._draw()

    def values(self) -> list[float | None]:
        return [value for _, _, value, _ in self._bars]

    def _draw(self) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        bars = self._bars
        foreground = self.palette().color(QPalette.ColorRole.Text)
        known = [value for _, _, value, _ in bars if value is not None]
        top = max(known) if known else 1.0
        for index, (_label, color, value, text) in enumerate(bars):
            if value is None:
                label = pg.TextItem(MISSING + " " + self.tr("no figure"), color=MUTED_COLOR,
                                    anchor=(0.5, 1.0))
                label.setPos(index, top * 0.02)
                plot.addItem(label)
                continue
            item = pg.BarGraphItem(x=[index], height=[value], width=0.6, brush=color,
                                   pen=pg.mkPen(color.darker(130)))
            plot.addItem(item)
            label = pg.TextItem(text, color=foreground, anchor=(0.5, 1.0))
            label.setPos(index, value)
            plot.addItem(label)
        axis = plot.getAxis("bottom")
        axis.setTicks([[(i, label) for i, (label, _, _, _) in enumerate(bars)]])
        plot.getAxis("left").setLabel(self._unit)
        plot.setXRange(-0.6, max(0, len(bars) - 1) + 0.6, padding=0)
        plot.setYRange(0, top * 1.18, padding=0)
