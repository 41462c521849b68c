"""The Benchmarks page's results table: one row per result with its value, spread, % of the
datasheet peak and verdict (unstable when the repeats disagree), the relative error, the
library, and what the clocks, power and temperature did; tooltips give the datasheet source and
every telemetry metric. Also the words above it: the selected result's verdict, and the error
line (what ended a run, and the errors that did not end it)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gpuscope.bench.assess import ResultAssessment, RunAssessment, assess_result, is_gpu_run
from gpuscope.bench.catalog import spec as catalog_spec
from gpuscope.bench.interpreter import BenchInterpreter
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    BenchTarget,
    BenchTelemetry,
    ErrorKind,
    ResultStatus,
    WorkerHello,
    primary_error,
    status_words,
)
from gpuscope.bench.run_telemetry import telemetry_words
from gpuscope.bench.stability import result_stability
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.metrics import shown_unit
from gpuscope.ui.bench.history import format_value
from gpuscope.ui.i18n import core_text, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR
from gpuscope.ui.widgets import plain_tooltip

COLUMNS: tuple[str, ...] = ("benchmark", "value", "spread", "percent", "verdict", "error",
                            "library", "telemetry")
_LEVEL_COLORS: dict[str, QColor] = {
    "normal": OK_COLOR, "low": ERROR_COLOR, "high": WARN_COLOR, "failed": ERROR_COLOR,
    "unsupported": MUTED_COLOR, "unknown": MUTED_COLOR,
}


def telemetry_details(telemetry: BenchTelemetry | None) -> str:
    """Every metric of a result's telemetry, with its source, and why others are missing."""
    if telemetry is None:
        return translate("BenchPage", "No telemetry was recorded for this result.")
    lines = [translate("BenchPage", "{label}: {count} samples").format(
        label=telemetry.label, count=telemetry.samples)
             + (translate("BenchPage", " at {rate} Hz").format(rate=f"{telemetry.rate_hz:g}")
                if telemetry.rate_hz else "")]
    if telemetry.note:
        lines.append(core_text(telemetry.note))
    for metric in telemetry.metrics:
        scale, unit = (2**-30, "GiB") if metric.unit == "B" else (1.0, metric.unit)
        lines.append(f"{metric.label}: {metric.min * scale:.4g} / {metric.median * scale:.4g} / "
                     f"{metric.max * scale:.4g} {unit} "
                     + translate("BenchPage", "(min / median / max)")
                     + (f" — {metric.source}" if metric.source else ""))
    if telemetry.throttle_reasons:
        lines.append(translate("BenchPage", "Throttled in {count} of {total} samples: "
                               "{reasons}").format(count=telemetry.throttled_samples,
                                                   total=telemetry.samples,
                                                   reasons=", ".join(telemetry.throttle_reasons)))
    elif telemetry.throttle_source:
        lines.append(translate("BenchPage", "Not throttled — {source}").format(
            source=telemetry.throttle_source))
    for name, reason in telemetry.missing.items():
        lines.append(translate("BenchPage", "{name}: not available ({reason})").format(
            name=name, reason=core_text(reason)))
    return "\n".join(lines)


def verdict_line(result: BenchmarkResult | None, run: BenchRun | None,
                 assessment: RunAssessment | None, hello: WorkerHello | None,
                 target: BenchTarget | None) -> str:
    """The selected result's verdict in words, and its stability when unstable: from the run
    on show and its assessment, else (a run in progress) judged against the target's card
    once it is known (`hello` given); "" when there is nothing to say."""
    if result is None:
        return ""
    if result.status is not ResultStatus.OK:
        return f"{result.id}: {core_text(result.reason or status_words(result.status))}"
    judged = assessment.result(result.id) if assessment is not None else None
    if judged is None and hello is not None:
        card = gpu_spec(target.spec_name) if target is not None and target.spec_name else None
        judged = assess_result(result, card, gpu_run=is_gpu_run(hello),
                               build=hello.torch_version)
    if judged is None:
        return ""
    stability = judged.stability if run is not None else result_stability(result)
    text = f"{result.id}: {core_text(judged.text)}"
    if stability is not None and stability.unstable:
        text += "\n" + translate("BenchPage", "Unstable: {words}").format(
            words=core_text(stability.detail))
    return text


class BenchResultsTable(QTableWidget):
    """The results of the run on show; each row carries its benchmark id (UserRole)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        headers = [translate("BenchPage", "Benchmark"), translate("BenchPage", "Value"),
                   translate("BenchPage", "Spread (min–max, n)"),
                   translate("BenchPage", "% of peak"), translate("BenchPage", "Verdict"),
                   translate("BenchPage", "Rel. error"), translate("BenchPage", "Library"),
                   translate("BenchPage", "During the run")]
        self.setObjectName("benchResults")
        self.setHorizontalHeaderLabels(headers)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setDefaultSectionSize(24)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
        # Header and seven rows: the quick suite without scrolling.
        self.setMinimumHeight(26 + 7 * 24)

    def fill(self, results: Sequence[BenchmarkResult],
             assessment: RunAssessment | None) -> None:
        """One row per result, judged against the datasheet; the selection is kept."""
        selected = self.selected_benchmark()
        self.setRowCount(len(results))
        for row, result in enumerate(results):
            judged = assessment.result(result.id) if assessment is not None else None
            catalog = catalog_spec(result.id)
            title = core_text(catalog.title) if catalog is not None else result.id
            ok = result.status is ResultStatus.OK and result.value is not None
            value = (f"{format_value(result.value)} {shown_unit(result.unit)}" if ok
                     else core_text(result.status.value))
            spread = ""
            if ok and result.spread is not None:
                spread = (f"{format_value(result.spread.min)}–{format_value(result.spread.max)}"
                          f" (n={result.spread.count})")
            percent = ""
            verdict = ""
            if judged is not None and ok:
                percent = "–"
                if judged.percent_of_peak is not None:
                    percent = (f"{judged.percent_of_peak:.0f}%" if judged.percent_of_peak >= 10
                               else f"{judged.percent_of_peak:.1f}%")
                    if judged.peak is not None:
                        percent += translate("BenchPage", " of {peak}").format(
                            peak=f"{judged.peak.value:.3g}")
                verdict = core_text(judged.level_word)
                if judged.unstable:  # the median is not to be believed
                    verdict = translate("BenchPage", "unstable · {verdict}").format(
                        verdict=verdict)
            elif not ok:
                verdict = core_text(result.status.value)
            error = ""
            if result.relative_error is not None:
                error = f"{result.relative_error:.1e}"
                if result.bit_identical is False:
                    error += " ≠"
            cells = {
                "benchmark": title, "value": value, "spread": spread, "percent": percent,
                "verdict": verdict, "error": error, "library": result.math_library or "",
                "telemetry": core_text(telemetry_words(result.telemetry) if ok
                                       else (result.reason or "")),
            }
            items = [QTableWidgetItem(cells[key]) for key in COLUMNS]
            for column, item in enumerate(items):
                item.setData(Qt.ItemDataRole.UserRole, result.id)
                if column in (1, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(row, column, item)
            self._decorate(items, result, judged, ok)
        if selected is not None:
            for row in range(self.rowCount()):
                first = self.item(row, 0)
                if first is not None and first.data(Qt.ItemDataRole.UserRole) == selected:
                    self.selectRow(row)

    @staticmethod
    def _decorate(items: Sequence[QTableWidgetItem], result: BenchmarkResult,
                  judged: ResultAssessment | None, ok: bool) -> None:
        name, value, _spread, percent, verdict, error, _library, telemetry = items
        name.setToolTip(plain_tooltip(f"{result.id}\n" + "\n".join(
            f"{k}: {v}" for k, v in result.parameters.items())))
        if judged is not None:
            level = judged.level if ok else result.status.value
            verdict.setForeground(_LEVEL_COLORS.get(level, MUTED_COLOR))
            tip = core_text(judged.text)
            if judged.peak is not None:
                tip += "\n\n" + translate("BenchPage", "Peak: {value} {unit} {what} — {note}\n"
                                           "Source: {source}").format(
                    value=f"{judged.peak.value:g}", unit=judged.peak.unit,
                    what=judged.peak.label, note=judged.peak.note,
                    source="".join(f"\n  {source}" for source in judged.peak.sources))
            elif judged.peak_missing:
                tip += f"\n\n{core_text(judged.peak_missing)}"
            if judged.stability is not None and judged.unstable:
                verdict.setForeground(WARN_COLOR)
                tip = translate("BenchPage", "Unstable: {words}").format(
                    words=core_text(judged.stability.detail)) + "\n\n" + tip
            verdict.setToolTip(plain_tooltip(tip))
            percent.setToolTip(plain_tooltip(tip))
        elif not ok:
            verdict.setForeground(_LEVEL_COLORS.get(result.status.value, MUTED_COLOR))
        if not ok:
            value.setForeground(MUTED_COLOR)
            telemetry.setToolTip(plain_tooltip(core_text(result.reason or "")))
        else:
            telemetry.setToolTip(plain_tooltip(telemetry_details(result.telemetry)))
            if result.telemetry is not None and result.telemetry.throttle_reasons:
                telemetry.setForeground(WARN_COLOR)
        if result.relative_error is not None:
            tolerance = result.relative_error_tolerance
            error.setToolTip(plain_tooltip(
                translate("BenchPage", "normwise relative error vs float64: {error}").format(
                    error=f"{result.relative_error:.3g}")
                + (translate("BenchPage", " (tolerance {tolerance})").format(
                    tolerance=f"{tolerance:.3g}") if tolerance is not None else "")
                + ("\n" + translate("BenchPage", "the same product twice was not "
                                    "bit-identical") if result.bit_identical is False else "")))

    def selected_benchmark(self) -> str | None:
        rows = self.selectionModel().selectedRows() if self.selectionModel() else []
        if not rows:
            return None
        item = self.item(rows[0].row(), 0)
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def result_rows(self) -> list[dict[str, str]]:
        """The table as text, column key -> cell (tests, renders)."""
        rows = []
        for row in range(self.rowCount()):
            cells: dict[str, str] = {}
            for column, key in enumerate(COLUMNS):
                item = self.item(row, column)
                cells[key] = item.text() if item is not None else ""
            rows.append(cells)
        return rows


# Errors that end the worker: the page says what happened in its error line.
ENDING = (ErrorKind.CRASH, ErrorKind.ABORT, ErrorKind.KILLED, ErrorKind.HANG,
          ErrorKind.TIMEOUT, ErrorKind.START, ErrorKind.PROTOCOL, ErrorKind.NO_TORCH,
          ErrorKind.DEVICE, ErrorKind.EXITED)


def error_words(error: BenchError) -> str:
    """One line naming what happened: the runner's own sentence where it names it (a crash,
    an abort, a kill), else a word for the kind before it."""
    message = core_text(error.message)
    if error.kind in (ErrorKind.CRASH, ErrorKind.ABORT, ErrorKind.KILLED, ErrorKind.EXITED):
        return message[:1].upper() + message[1:]
    if error.kind is ErrorKind.OOM:
        detail = message.removeprefix("out of memory: ")
        return translate("BenchPage", "Out of memory in {benchmark}: {detail}").format(
            benchmark=error.benchmark or translate("BenchPage", "the worker"), detail=detail)
    if error.kind is ErrorKind.WRONG_RESULT:
        return translate("BenchPage", "Wrong results in {benchmark}: {message}").format(
            benchmark=error.benchmark or "?", message=message)
    words = {
        ErrorKind.HANG: translate("BenchPage", "The benchmark worker hung"),
        ErrorKind.TIMEOUT: translate("BenchPage", "Out of time"),
        ErrorKind.START: translate("BenchPage", "The benchmark worker could not start"),
        ErrorKind.NO_TORCH: translate("BenchPage", "No torch in this interpreter"),
        ErrorKind.DEVICE: translate("BenchPage", "No such device"),
        ErrorKind.PROTOCOL: translate("BenchPage", "Another version of the benchmark worker"),
        ErrorKind.EXCEPTION: translate("BenchPage", "A benchmark failed"),
    }
    return f"{words.get(error.kind, error.kind.value)}: {message}"


def errors_text(errors: Sequence[BenchError], run: BenchRun | None,
                pick: BenchInterpreter | None = None, python: str | None = None
                ) -> tuple[str, str]:
    """(the error line, its tooltip) for the errors of a run so far (`run` once it ended).
    After "no torch" in `python`, the default interpreter `pick` says which interpreter has
    it, or how to install it."""
    hint = None
    if pick is not None and pick.python is None:
        hint = core_text(pick.reason)
    elif pick is not None and pick.python is not None and pick.python != python:
        hint = translate("BenchPage", "{python} has PyTorch: choose it above.").format(
            python=pick.python)
    ending = next((e for e in errors if e.kind in ENDING), None)
    if run is not None:
        ending = primary_error(run) or ending
    if ending is not None and ending.kind not in (*ENDING, ErrorKind.CANCELLED):
        ending = None  # an out of memory or a wrong result: the run went on
    lines = []
    if ending is not None and ending.kind is ErrorKind.CANCELLED:
        lines.append(translate("BenchPage", "Cancelled: {message}").format(
            message=core_text(ending.message)))
    elif ending is not None and ending.kind in ENDING:
        lines.append(error_words(ending))
        if ending.kind is ErrorKind.NO_TORCH and hint:
            lines.append(hint)
        if run is not None and run.results:
            lines.append(translate("BenchPage", "The {count} results before it are kept below.")
                         .format(count=len(run.results)))
    lines.extend(error_words(e) for e in errors
                 if e is not ending and e.kind is not ErrorKind.CANCELLED)
    tooltip = "\n".join(f"{e.kind.value}: {core_text(e.message)}"
                        + (f"\n  {e.detail}" if e.detail else "")
                        for e in errors)
    return "\n".join(lines), tooltip
