"""The Benchmarks page's chart: measured matmul throughput per precision beside the card's
datasheet peak for it (pyqtgraph bars), with the percentage over each measured bar. Without a
datasheet (the CPU, an unknown card) the measured bars stand alone and a note says why."""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from gpuscope.bench.assess import RunAssessment, no_datasheet_reason
from gpuscope.bench.results import BenchRun, ResultStatus
from gpuscope.knowledge.bench_expectations import BENCHMARKS as EXPECTATIONS
from gpuscope.metrics import shown_unit
from gpuscope.ui.i18n import core_text
from gpuscope.ui.theme import MUTED_COLOR, gpu_color
from gpuscope.ui.widgets import PlotPanel, make_label

MEASURED_COLOR = gpu_color(0)
PEAK_COLOR = QColor("#9aa5b1")
# The throughput benchmarks that have a datasheet peak per precision, in chart order.
CHART_BENCHMARKS: tuple[str, ...] = (
    "matmul.fp32", "matmul.tf32", "matmul.fp16", "matmul.bf16", "matmul.int8", "matmul.fp8",
)
_BAR_WIDTH = 0.36


@dataclass(frozen=True, slots=True)
class ChartBar:
    benchmark: str
    label: str  # "FP16"
    measured: float
    peak: float | None
    percent: float | None
    unit: str


def chart_bars(run: BenchRun, assessment: RunAssessment) -> list[ChartBar]:
    """The bars of a run: each ok matmul result, with its datasheet peak when there is one."""
    bars: list[ChartBar] = []
    for benchmark in CHART_BENCHMARKS:
        result = run.result(benchmark)
        if result is None or result.status is not ResultStatus.OK or result.value is None:
            continue
        judged = assessment.result(benchmark)
        peak = judged.peak.value if judged is not None and judged.peak is not None else None
        label = EXPECTATIONS[benchmark].label if benchmark in EXPECTATIONS else benchmark
        bars.append(ChartBar(benchmark, label, result.value, peak,
                             judged.percent_of_peak if judged is not None else None,
                             shown_unit(result.unit)))
    return bars


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.1f}"
    return f"{value:.3g}"


class BenchChart(PlotPanel):
    """Grouped bars: measured (solid) and datasheet peak (grey) per precision."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.title = make_label(self.tr("Matmul throughput: measured vs datasheet peak"),
                                bold=True, wrap=False)
        column.addWidget(self.title)
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setMinimumHeight(150)
        self.plot.getPlotItem().showGrid(x=False, y=True, alpha=0.18)
        # Plain numbers on the axis: a CPU's 0.2 TFLOPS is not "200 (x0.001)".
        self.plot.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
        column.addWidget(self.plot, 1)
        self.note = make_label("", color=MUTED_COLOR)
        column.addWidget(self.note)
        self._bars: list[ChartBar] = []
        self._empty_text = self.tr("Run a suite with matmul benchmarks to see the chart.")
        self._apply_palette()
        self._draw()

    @property
    def bars(self) -> list[ChartBar]:
        return list(self._bars)

    def set_run(self, run: BenchRun | None, assessment: RunAssessment | None) -> None:
        self._bars = chart_bars(run, assessment) if run is not None and assessment else []
        if not self._bars:
            self.note.setText(self._empty_text)
        elif all(bar.peak is None for bar in self._bars):
            why = core_text(no_datasheet_reason(assessment.compared_with)
                            if assessment is not None else "")
            self.note.setText(self.tr("No datasheet peak to draw: {why}.").format(why=why))
        else:
            missing = [bar.label for bar in self._bars if bar.peak is None]
            self.note.setText(
                self.tr("Grey: the datasheet peak of {card}.").format(
                    card=assessment.card.name if assessment is not None and assessment.card
                    else self.tr("this card"))
                + (" " + self.tr("No datasheet figure for {labels}.").format(
                    labels=", ".join(missing)) if missing else ""))
        self._draw()

    def _draw(self) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        bars = self._bars
        foreground = self.palette().color(QPalette.ColorRole.Text)
        plot.showAxis("left", bool(bars))
        plot.showAxis("bottom", bool(bars))
        plot.showGrid(x=False, y=bool(bars), alpha=0.18)
        if not bars:
            plot.setXRange(-0.5, 0.5, padding=0)
            plot.setYRange(0, 1, padding=0)
            empty = pg.TextItem(self.tr("No matmul result to draw"), color=MUTED_COLOR,
                                anchor=(0.5, 0.5))
            empty.setPos(0, 0.5)
            plot.addItem(empty)
            return
        with_peaks = any(bar.peak is not None for bar in bars)
        offset = _BAR_WIDTH / 2 if with_peaks else 0.0
        top = max(max(bar.measured, bar.peak or 0.0) for bar in bars)
        for index, bar in enumerate(bars):
            measured = pg.BarGraphItem(x=[index - offset], height=[bar.measured],
                                       width=_BAR_WIDTH if with_peaks else 0.5,
                                       brush=MEASURED_COLOR,
                                       pen=pg.mkPen(MEASURED_COLOR.darker(130)))
            plot.addItem(measured)
            text = _number(bar.measured)
            if bar.percent is not None:
                text += f"\n{bar.percent:.0f}%"
            label = pg.TextItem(text, color=foreground, anchor=(0.5, 1.0))
            label.setPos(index - offset, bar.measured)
            plot.addItem(label)
            if bar.peak is not None:
                peak = pg.BarGraphItem(x=[index + offset], height=[bar.peak], width=_BAR_WIDTH,
                                       brush=PEAK_COLOR, pen=pg.mkPen(PEAK_COLOR.darker(130)))
                plot.addItem(peak)
                peak_label = pg.TextItem(_number(bar.peak), color=MUTED_COLOR, anchor=(0.5, 1.0))
                peak_label.setPos(index + offset, bar.peak)
                plot.addItem(peak_label)
        axis = plot.getAxis("bottom")
        axis.setTicks([[(i, bar.label) for i, bar in enumerate(bars)]])
        units = sorted({bar.unit for bar in bars})
        plot.getAxis("left").setLabel(" / ".join(units))
        plot.setXRange(-0.6, len(bars) - 0.4, padding=0)
        # Room above the tallest bar for its two-line label.
        plot.setYRange(0, top * 1.3, padding=0)
        plot.getViewBox().setDefaultPadding(0)
        self.plot.setToolTip(self.tr("Measured (blue) and datasheet peak (grey) per precision"))

