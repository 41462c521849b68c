"""The Report page: the whole machine in one view, as it will be shared, and the exports.

The preview is the PNG export itself, drawn scaled to the page (`report_render`): GPUs, the
stack per layer with verdicts, frameworks, doctor findings with fixes, benchmark
results against the datasheet and a small telemetry strip; a replayed or imported machine is
labelled at its top. The benchmark runs are those added from files and, for this machine, the
successful saved runs of its devices that "Saved runs" chooses (the latest per device by
default); a failed run never goes into a report (`build`). Buttons export PNG, HTML,
Markdown or JSON through non-blocking file dialogs, and copy the image or the Markdown to the
clipboard.

Redaction is on by default: the toggle turns it off (with a warning), and "What is removed"
lists each value found and the placeholder it becomes. The report is written in the window's
language, or in English (the "Report language" choice) for a post on an upstream tracker; the
JSON export is English in both. Making the report (redaction runs over
the whole document) and writing files happen off the GUI thread; the page regenerates only
while it is shown, or when an export asks for it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.app.report_build import BuiltReport, build_report
from gpuscope.app.report_inputs import ReportInputs, read_bench_runs
from gpuscope.bench.results import BenchRun
from gpuscope.i18n import language, localise
from gpuscope.model import OriginKind
from gpuscope.report.formats import export_text
from gpuscope.report.redact import Replacement
from gpuscope.report.view_model import ShareReport
from gpuscope.safe_write import atomic_path, write_text
from gpuscope.telemetry.feed import TelemetryFeed
from gpuscope.ui.background import BackgroundTask
from gpuscope.ui.doctor_loader import Diagnosis
from gpuscope.ui.i18n import ENGLISH, QT_TRANSLATE_NOOP, installed_language
from gpuscope.ui.report.bench_choice import SavedRunPicker
from gpuscope.ui.report.render import REPORT_WIDTH_PX, paint_report, render_report_image
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, WARN_COLOR
from gpuscope.ui.widgets import make_label, plain_tooltip
from gpuscope.ui.window_texts import LANGUAGE_LABELS

FORMATS: tuple[str, ...] = ("png", "html", "md", "json")
SUFFIXES = {"png": ".png", "html": ".html", "md": ".md", "json": ".json"}
BENCH_FILTER = QT_TRANSLATE_NOOP("ReportPage", "gpuscope benchmark runs (*.json);;All files (*)")
KIND_WORDS = {"host": QT_TRANSLATE_NOOP("ReportPage", "host name"),
              "user": QT_TRANSLATE_NOOP("ReportPage", "user name"),
              "home": QT_TRANSLATE_NOOP("ReportPage", "home path"),
              "serial": QT_TRANSLATE_NOOP("ReportPage", "serial number"),
              "uuid": "UUID", "mac": QT_TRANSLATE_NOOP("ReportPage", "MAC address"),
              "ip": QT_TRANSLATE_NOOP("ReportPage", "IP address")}
# The page's grey around the paper of the preview.
_PAPER_SHADOW = QColor(0, 0, 0, 40)

TelemetrySource = Callable[[], TelemetryFeed | None]


def _write_text(path: str, text: str) -> str:
    write_text(path, text)  # all or nothing: a failure leaves the old file
    return path


def _write_image(path: str, image: QImage) -> str:
    with atomic_path(path) as temporary:
        if not image.save(str(temporary), "PNG"):  # type: ignore[call-overload]
            raise OSError(f"cannot write the PNG to {path}")
    return path


# ----------------------------------------------------------------------------- the preview


class ReportView(QWidget):
    """The report drawn as the PNG export draws it, scaled down to the view's width (never
    up): what a forum shows when it shrinks the picture."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._report: ShareReport | None = None
        self._language = ENGLISH
        self._height_px = 0
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    @property
    def report(self) -> ShareReport | None:
        return self._report

    def set_report(self, report: ShareReport | None, written_in: str = ENGLISH) -> None:
        """Show `report` written in the language `written_in`."""
        self._report = report
        self._language = written_in
        self._height_px = 0
        if report is not None:
            # Measured once per report; painting runs the same layout at the view's scale.
            from gpuscope.ui.report.render import report_height

            with language(written_in):
                self._height_px = report_height(report)
        self.updateGeometry()
        self.update()

    def scale(self, width: int | None = None) -> float:
        available = (self.width() if width is None else width) - 16
        return max(0.2, min(1.0, available / REPORT_WIDTH_PX))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if self._report is None:
            return 0
        return math.ceil(self._height_px * self.scale(width)) + 16

    def sizeHint(self) -> QSize:
        return QSize(REPORT_WIDTH_PX + 16, self.heightForWidth(REPORT_WIDTH_PX + 16))

    def minimumSizeHint(self) -> QSize:
        return QSize(240, 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._report is None:
            return
        scale = self.scale()
        paper_w = REPORT_WIDTH_PX * scale
        x = max(8.0, (self.width() - paper_w) / 2)
        painter = QPainter(self)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            painter.fillRect(int(x) + 2, 10, int(paper_w), int(self._height_px * scale),
                             _PAPER_SHADOW)
            painter.translate(x, 8)
            painter.scale(scale, scale)
            painter.setClipRect(0, 0, REPORT_WIDTH_PX, self._height_px)
            with language(self._language):
                paint_report(painter, self._report)
        finally:
            painter.end()


# ----------------------------------------------------------------------------- the page


class ReportPage(QWidget):
    """The share report of the machine on show. `set_machine` gives it the diagnosis (and
    what redaction must know of a replayed or imported machine); `set_telemetry_source` a
    function returning the Telemetry page's feed; `set_bench_runs` benchmark runs to show."""

    report_ready = Signal()
    exported = Signal(str, str)  # path, format
    export_failed = Signal(str, str)  # path or format, reason

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._diagnosis: Diagnosis | None = None
        self._identity_sources: tuple[Any, ...] = ()
        self._bench_runs: tuple[BenchRun, ...] = ()
        self._telemetry_source: TelemetrySource = lambda: None
        self._built: BuiltReport | None = None
        self._stale = True
        self._pending: list[tuple[str, str | None]] = []  # (action, path) once built
        self._dialog: QFileDialog | None = None

        column = QVBoxLayout(self)
        column.setContentsMargins(18, 14, 18, 8)
        column.setSpacing(8)
        column.addWidget(make_label(self.tr("Report"), bold=True, scale=1.3, wrap=False))
        self.summary = make_label("", color=MUTED_COLOR)
        column.addWidget(self.summary)

        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        self.export_buttons: dict[str, QPushButton] = {}
        for fmt, label, tip in (
                ("png", self.tr("Export PNG…"),
                 self.tr("A 1200-pixel-wide picture for a forum post or a chat")),
                ("html", self.tr("Export HTML…"),
                 self.tr("One self-contained web page: nothing is loaded from anywhere")),
                ("md", self.tr("Export Markdown…"),
                 self.tr("For GitHub issues and forums; the long parts fold away")),
                ("json", self.tr("Export JSON…"),
                 self.tr("The diagnosis and benchmark results, for gpuscope's Compare page"))):
            button = QPushButton(label)
            button.setToolTip(plain_tooltip(tip))
            button.clicked.connect(lambda _checked=False, f=fmt: self.choose_export(f))
            buttons.addWidget(button)
            self.export_buttons[fmt] = button
        buttons.addStretch(1)
        column.addLayout(buttons)
        # A second row: the page stays narrow enough for a small window.
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        self.copy_image_button = QPushButton(self.tr("Copy image"))
        self.copy_image_button.setToolTip(plain_tooltip(self.tr(
            "Put the report picture on the clipboard, to paste into a post")))
        self.copy_image_button.clicked.connect(self.copy_image)
        buttons.addWidget(self.copy_image_button)
        self.copy_markdown_button = QPushButton(self.tr("Copy Markdown"))
        self.copy_markdown_button.setToolTip(plain_tooltip(self.tr(
            "Put the Markdown report on the clipboard, to paste into a GitHub issue")))
        self.copy_markdown_button.clicked.connect(self.copy_markdown)
        buttons.addWidget(self.copy_markdown_button)
        buttons.addSpacing(14)
        self.bench_button = QPushButton(self.tr("Add benchmark run…"))
        self.bench_button.setToolTip(plain_tooltip(self.tr(
            "Show the results of a benchmark run saved with 'gpuscope bench -o FILE'")))
        self.bench_button.clicked.connect(self.choose_bench_file)
        buttons.addWidget(self.bench_button)
        # Which saved runs of this machine (a replayed or imported one has none here).
        self.saved_runs = SavedRunPicker()
        self.saved_runs.choice_changed.connect(self._invalidate)
        buttons.addWidget(self.saved_runs)
        buttons.addStretch(1)
        column.addLayout(buttons)

        redaction = QHBoxLayout()
        redaction.setSpacing(10)
        self.redact_box = QCheckBox(self.tr("Redact personal details"))
        self.redact_box.setChecked(True)
        self.redact_box.setToolTip(plain_tooltip(self.tr(
            "Host and user names, home paths, serial numbers, UUIDs, MAC and IP addresses "
            "become placeholders such as <host-1> in every export")))
        self.redact_box.toggled.connect(self._on_redaction_toggled)
        redaction.addWidget(self.redact_box)
        self.preview_button = QToolButton()
        self.preview_button.setCheckable(True)
        self.preview_button.setText(self.tr("What is removed"))
        self.preview_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.preview_button.setArrowType(Qt.ArrowType.RightArrow)
        self.preview_button.toggled.connect(self._on_preview_toggled)
        # Never narrower than its words (the note beside it wraps instead).
        self.preview_button.setSizePolicy(QSizePolicy.Policy.Minimum,
                                          QSizePolicy.Policy.Fixed)
        redaction.addWidget(self.preview_button)
        self.redaction_note = make_label("", wrap=True)
        redaction.addWidget(self.redaction_note, 1)
        # The window's language, or English for a post on an upstream tracker.
        redaction.addWidget(make_label(self.tr("Report language:"), wrap=False))
        self.language_box = QComboBox()
        for code in dict.fromkeys((installed_language(), ENGLISH)):
            self.language_box.addItem(LANGUAGE_LABELS.get(code, code), code)
        self.language_box.setEnabled(self.language_box.count() > 1)
        self.language_box.setToolTip(plain_tooltip(self.tr(
            "The language of the picture, the web page and the Markdown; the JSON is English "
            "in every language")))
        self.language_box.currentIndexChanged.connect(lambda _index: self._on_language())
        redaction.addWidget(self.language_box)
        column.addLayout(redaction)

        self.preview_table = QTableWidget(0, 4)
        self.preview_table.setHorizontalHeaderLabels(
            [self.tr("What"), self.tr("Found"), self.tr("Becomes"), self.tr("Times")])
        self.preview_table.verticalHeader().hide()
        self.preview_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.preview_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.preview_table.hide()
        column.addWidget(self.preview_table)

        self.message = make_label("")
        self.message.hide()
        column.addWidget(self.message)

        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = QWidget()
        content_column = QVBoxLayout(content)
        content_column.setContentsMargins(0, 0, 0, 0)
        self.placeholder = make_label(self.tr("Making the report…"), color=MUTED_COLOR)
        content_column.addWidget(self.placeholder)
        self.view = ReportView()
        content_column.addWidget(self.view)
        content_column.addStretch(1)
        self.scroll_area.setWidget(content)
        column.addWidget(self.scroll_area, 1)

        self._task = BackgroundTask("report", parent=self)
        self._task.done.connect(self._on_built)
        self._task.failed.connect(self._on_build_failed)
        self._writer = BackgroundTask("report-export", parent=self)
        self._writer.done.connect(self._on_written)
        self._writer.failed.connect(self._on_write_failed)
        self._bench_reader = BackgroundTask("report-bench", parent=self)
        self._bench_reader.done.connect(self._on_bench_read)
        self._bench_reader.failed.connect(lambda reason: self._show_message(
            self.tr("Could not read the benchmark run: {0}").format(reason), error=True))
        self._writing: tuple[str, str] | None = None
        self._update_redaction_note()
        self._sync_buttons()

    # ------------------------------------------------------------------ inputs

    def set_machine(self, diagnosis: Diagnosis, identity_sources: Sequence[Any] = ()) -> None:
        """The machine to report on, and what redaction reads for its names (a replayed
        snapshot's evidence, pasted outputs)."""
        self._diagnosis = diagnosis
        self._identity_sources = tuple(identity_sources)
        self._invalidate()

    def set_telemetry_source(self, source: TelemetrySource) -> None:
        """A function giving the telemetry feed to summarise (called at each generation)."""
        self._telemetry_source = source
        self._invalidate()

    def set_bench_runs(self, runs: Sequence[BenchRun]) -> None:
        """Benchmark runs to show, newest first (only the newest are drawn)."""
        self._bench_runs = tuple(sorted(runs, key=lambda r: -r.started_unix_s))
        self._invalidate()

    @property
    def bench_runs(self) -> tuple[BenchRun, ...]:
        return self._bench_runs

    # ------------------------------------------------------------------ state

    @property
    def report(self) -> ShareReport | None:
        """The report on show, once made (None before)."""
        return self._built.report if self._built is not None else None

    @property
    def replacements(self) -> tuple[Replacement, ...]:
        """What redaction removes (or, while it is off, would remove)."""
        return self._built.replacements if self._built is not None else ()

    @property
    def redact(self) -> bool:
        return self.redact_box.isChecked()

    def set_redact(self, redact: bool) -> None:
        self.redact_box.setChecked(redact)

    @property
    def report_language(self) -> str:
        """The language the report is written in ("en", or the window's)."""
        return str(self.language_box.currentData())

    def set_report_language(self, code: str) -> None:
        index = self.language_box.findData(code)
        if index < 0:
            raise ValueError(f"the report is written in {self.report_language} or English, "
                             f"not {code!r}")
        self.language_box.setCurrentIndex(index)

    @property
    def is_busy(self) -> bool:
        return self._task.is_running or self._writer.is_running or self._bench_reader.is_running

    @property
    def is_stale(self) -> bool:
        return self._stale

    def regenerate(self) -> None:
        """Make the report again now, off the GUI thread."""
        if self._diagnosis is None:
            return
        self._stale = False
        diagnosis = self._diagnosis
        inputs = ReportInputs(diagnosis.data, diagnosis.findings, self._bench_runs, None,
                              self._identity_sources)
        self.placeholder.setText(self.tr("Making the report…"))
        self.placeholder.setVisible(self._built is None)
        # This machine's saved runs belong in its report, not in a replayed or imported one.
        live = diagnosis.imported is None and \
            diagnosis.inventory.origin.kind is OriginKind.LIVE
        self.saved_runs.setVisible(live)
        self._task.start(build_report, inputs, self._telemetry_source(), self.redact,
                         live, self.saved_runs.choice)
        self._sync_buttons()

    def shutdown(self) -> None:
        self._task.cancel()
        self._writer.cancel()
        self._bench_reader.cancel()
        self._pending.clear()
        if self._dialog is not None:
            self._dialog.close()

    # ------------------------------------------------------------------ exports

    def choose_export(self, fmt: str) -> QFileDialog:
        """Ask where to write the `fmt` export (a non-blocking dialog), then write it."""
        base = "gpuscope-report" + SUFFIXES[fmt]
        filters = {"png": self.tr("PNG image (*.png)"), "html": self.tr("Web page (*.html)"),
                   "md": self.tr("Markdown (*.md)"), "json": self.tr("JSON report (*.json)")}
        dialog = QFileDialog(self, self.tr("Export the report"), base, filters[fmt])
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(SUFFIXES[fmt].lstrip("."))
        dialog.fileSelected.connect(lambda path, f=fmt: self.export_to(f, path))
        self._dialog = dialog
        dialog.open()
        return dialog

    def export_to(self, fmt: str, path: str) -> None:
        """Write the `fmt` export to `path` off the GUI thread (after making the report if
        it is not made yet); `exported` or `export_failed` says how it went."""
        if fmt not in FORMATS:
            raise ValueError(f"no export format {fmt!r}; one of {FORMATS}")
        self._when_built(fmt, path)

    def copy_image(self) -> None:
        """The report picture to the clipboard."""
        self._when_built("copy-image", None)

    def copy_markdown(self) -> None:
        """The Markdown report to the clipboard."""
        self._when_built("copy-md", None)

    def choose_bench_file(self) -> QFileDialog:
        dialog = QFileDialog(self, self.tr("Add a benchmark run"), "", self.tr(BENCH_FILTER))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(self.add_bench_files)
        self._dialog = dialog
        dialog.open()
        return dialog

    def add_bench_files(self, paths: Sequence[str]) -> None:
        """Read `gpuscope bench -o` files off the GUI thread and show their runs."""
        if paths:
            self._bench_reader.start(read_bench_runs, list(paths))

    # ------------------------------------------------------------------ events

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale and not self._task.is_running:
            self.regenerate()

    # ------------------------------------------------------------------ internals

    def _invalidate(self) -> None:
        self._stale = True
        if self.isVisible():
            self.regenerate()

    def _when_built(self, action: str, path: str | None) -> None:
        if self._built is not None and not self._stale and not self._task.is_running:
            self._run_action(action, path)
            return
        self._pending.append((action, path))
        if not self._task.is_running:
            self.regenerate()

    def _run_action(self, action: str, path: str | None) -> None:
        built = self._built
        if built is None:
            return
        report = built.report
        if action == "copy-image":
            with language(self.report_language):
                QGuiApplication.clipboard().setImage(render_report_image(report))
            self._show_message(self.tr("The report picture is on the clipboard."))
            return
        if action == "copy-md":
            with language(self.report_language):
                QGuiApplication.clipboard().setText(export_text(report, "md"))
            self._show_message(self.tr("The Markdown report is on the clipboard."))
            return
        assert path is not None
        if self._writer.is_running:
            self._pending.append((action, path))
            return
        self._writing = (path, action)
        self._show_message(self.tr("Writing {0}…").format(os.path.basename(path)))
        # Written here, in the language chosen (the language is the whole process's);
        # painting and formatting are quick, encoding and writing the file are the slow part.
        with language(self.report_language):
            if action == "png":
                self._writer.start(_write_image, path, render_report_image(report))
            else:
                self._writer.start(_write_text, path, export_text(report, action))
        self._sync_buttons()

    def _on_built(self, built: object) -> None:
        if not isinstance(built, BuiltReport):
            return
        self._built = built
        self.saved_runs.set_runs(built.saved)
        self.placeholder.hide()
        self.view.set_report(built.report, self.report_language)
        self._fill_preview(built.replacements)
        self._update_summary()
        self._update_redaction_note()
        self._sync_buttons()
        self.report_ready.emit()
        pending, self._pending = self._pending, []
        for action, path in pending:
            self._run_action(action, path)

    def _on_build_failed(self, reason: str) -> None:
        self.placeholder.setText(self.tr("The report could not be made: {0}").format(reason))
        self.placeholder.show()
        self._show_message(self.tr("The report could not be made: {0}").format(reason),
                           error=True)
        for action, path in self._pending:
            self.export_failed.emit(path or action, reason)
        self._pending.clear()
        self._sync_buttons()

    def _on_written(self, path: object) -> None:
        done = self._writing
        self._writing = None
        fmt = done[1] if done is not None else ""
        self._show_message(self.tr("Wrote {0}").format(str(path)))
        self.exported.emit(str(path), fmt)
        self._sync_buttons()
        self._next_pending_write()

    def _on_write_failed(self, reason: str) -> None:
        done = self._writing
        self._writing = None
        path = done[0] if done is not None else ""
        self._show_message(self.tr("Could not write {0}: {1}").format(path, reason),
                           error=True)
        self.export_failed.emit(path, reason)
        self._sync_buttons()
        self._next_pending_write()

    def _next_pending_write(self) -> None:
        writes = [(a, p) for a, p in self._pending if p is not None]
        if writes and self._built is not None and not self._task.is_running:
            self._pending.remove(writes[0])
            self._run_action(*writes[0])

    def _on_bench_read(self, runs: object) -> None:
        if not isinstance(runs, tuple):
            return
        found = [r for r in runs if isinstance(r, BenchRun)]
        self.set_bench_runs([*found, *self._bench_runs])
        self._show_message(self.tr("Added {0} benchmark run(s).").format(len(found)))
        if not self.isVisible():
            self.regenerate()

    def _on_language(self) -> None:
        if self._built is not None:
            self.view.set_report(self._built.report, self.report_language)

    def _on_redaction_toggled(self, _checked: bool) -> None:
        self._update_redaction_note()
        self._invalidate()

    def _on_preview_toggled(self, shown: bool) -> None:
        self.preview_button.setArrowType(Qt.ArrowType.DownArrow if shown
                                         else Qt.ArrowType.RightArrow)
        self.preview_table.setVisible(shown)

    def _fill_preview(self, replacements: Sequence[Replacement]) -> None:
        table = self.preview_table
        table.setRowCount(len(replacements))
        for row, entry in enumerate(replacements):
            kind = KIND_WORDS.get(entry.kind.value, entry.kind.value)
            cells = (self.tr(kind), entry.original,
                     entry.placeholder, str(entry.occurrences))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tooltip(text))
                table.setItem(row, column, item)
        count = len(replacements)
        self.preview_button.setText(self.tr("What is removed ({0})").format(count))
        # As tall as its rows, up to a handful; then it scrolls.
        rows_height = sum(table.rowHeight(row) for row in range(min(count, 5)))
        table.setFixedHeight(table.horizontalHeader().height() + max(rows_height, 24)
                             + 2 * table.frameWidth())

    def _update_redaction_note(self) -> None:
        if self.redact:
            count = len(self.replacements)
            if self._built is None:
                text = self.tr("Personal details will be replaced by placeholders.")
            elif count == 0:
                text = self.tr("Nothing personal was found to remove.")
            else:
                text = self.tr("{0} value(s) are replaced by placeholders in every export.") \
                    .format(count)
            self.redaction_note.setText(text)
            self.redaction_note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        else:
            self.redaction_note.setText(self.tr(
                "Not redacted: the exports may contain your host and user names, home paths, "
                "serial numbers, UUIDs, MAC and IP addresses."))
            self.redaction_note.setStyleSheet(f"color: {WARN_COLOR.name()}; font-weight: bold;")

    def _update_summary(self) -> None:
        """What the report holds, in the window's language."""
        report = self.report
        if report is None:
            return
        origin = report.origin
        if origin.is_live:
            where = self.tr("This machine, read live.")
        else:
            where = self.tr("{title}: {sentence}").format(
                title=localise(origin.title),
                sentence=localise(origin.sentence(report.generated_unix_s)))
        parts = [where, localise(report.verdict_line())]
        if report.bench:
            parts.append(self.tr("{0} benchmark run(s).").format(len(report.bench)))
        else:
            parts.append(self.tr("No benchmark results (Add benchmark run…)."))
        if report.telemetry is None:
            parts.append(self.tr("No telemetry yet."))
        notes = self._built.notes if self._built is not None else ()
        self.summary.setText(" ".join(parts + [localise(note) for note in notes]))

    def _sync_buttons(self) -> None:
        ready = self._diagnosis is not None
        for button in self.export_buttons.values():
            button.setEnabled(ready)
        self.copy_image_button.setEnabled(ready)
        self.copy_markdown_button.setEnabled(ready)

    def _show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setText(text)
        color = ERROR_COLOR if error else self.palette().color(self.foregroundRole())
        self.message.setStyleSheet(f"color: {color.name()};")
        self.message.setVisible(bool(text))

    def message_text(self) -> str:
        return self.message.text() if not self.message.isHidden() else ""
