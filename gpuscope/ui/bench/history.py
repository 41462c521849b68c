"""Past benchmark runs on the Benchmarks page: the list from the run history (SQLite), Show,
Compare two, Delete, and the comparison dialog. Every read and write of the history runs off
the GUI thread (`BackgroundTask`); answers come back through queued signals."""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuscope.bench.assess import device_label
from gpuscope.bench.history import RunComparison, RunHistory, StoredRun, compare_runs
from gpuscope.bench.results import BenchRun, format_bench_value
from gpuscope.ui.doctor_loader import BackgroundTask
from gpuscope.ui.i18n import core_text
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR
from gpuscope.ui.widgets import make_label, plain_tooltip


def format_value(value: float | None) -> str:
    return format_bench_value(value, missing="–")


class BenchCompareDialog(QDialog):
    """Two past runs, benchmark by benchmark (not modal)."""

    def __init__(self, comparison: RunComparison, id_a: int, id_b: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison = comparison
        self.setWindowTitle(self.tr("Compare runs {a} and {b}").format(a=id_a, b=id_b))
        self.resize(860, 420)
        column = QVBoxLayout(self)

        def describe(run: BenchRun) -> str:
            started = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_unix_s))
            torch = run.hello.torch_version if run.hello is not None else None
            return f"{core_text(device_label(run.hello))}, {started}, torch {torch or '–'}"

        column.addWidget(make_label(self.tr("A: run {id} — {what}").format(
            id=id_a, what=describe(comparison.a))))
        column.addWidget(make_label(self.tr("B: run {id} — {what}").format(
            id=id_b, what=describe(comparison.b))))
        for note in comparison.notes:
            column.addWidget(make_label(core_text(note), color=WARN_COLOR))
        headers = [self.tr("Benchmark"), self.tr("A"), self.tr("B"), self.tr("Unit"),
                   self.tr("B vs A"), self.tr("Change"), self.tr("Note")]
        self.table = QTableWidget(len(comparison.rows), len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        colors = {"better": OK_COLOR, "worse": ERROR_COLOR}
        for row, delta in enumerate(comparison.rows):
            cells = [core_text(delta.title), format_value(delta.value_a),
                     format_value(delta.value_b), delta.unit,
                     f"{delta.delta_pct:+.1f}%" if delta.delta_pct is not None else "–",
                     core_text(delta.change), core_text(delta.note)]
            for column_index, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tooltip(text))
                if column_index == 5 and delta.change in colors:
                    item.setForeground(colors[delta.change])
                self.table.setItem(row, column_index, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
        column.addWidget(self.table, 1)
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.close)
        row_layout = QHBoxLayout()
        row_layout.addStretch(1)
        row_layout.addWidget(close)
        column.addLayout(row_layout)

    def cells(self) -> list[list[str]]:
        """The table as text (tests)."""
        rows = []
        for row in range(self.table.rowCount()):
            items = [self.table.item(row, c) for c in range(self.table.columnCount())]
            rows.append([item.text() if item is not None else "" for item in items])
        return rows


class BenchHistoryPanel(QWidget):
    """The list of past runs with Show, Compare and Delete."""

    run_loaded = Signal(int, object)  # history id, BenchRun: "Show" was pressed

    def __init__(self, history: RunHistory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history = history
        self._stored: tuple[StoredRun, ...] = ()
        self._compare_dialog: BenchCompareDialog | None = None
        self._list_task = BackgroundTask("bench-history", self)
        self._list_task.done.connect(self._on_list)
        self._list_task.failed.connect(self._on_failed)
        self._save_task = BackgroundTask("bench-save", self)
        self._save_task.done.connect(self._on_saved)
        self._save_task.failed.connect(self._on_save_failed)
        self._load_task = BackgroundTask("bench-load", self)
        self._load_task.done.connect(self._on_loaded)
        self._load_task.failed.connect(self._on_failed)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(make_label(self.tr("Past runs"), bold=True, wrap=False))
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("benchHistory")
        self.table.setHorizontalHeaderLabels(
            [self.tr("#"), self.tr("When"), self.tr("Device"), self.tr("Outcome")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._sync_buttons)
        self.table.itemDoubleClicked.connect(lambda _item: self.show_selected())
        column.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        buttons.setSpacing(6)
        self.show_button = QPushButton(self.tr("Show"))
        self.show_button.setToolTip(self.tr("Show the selected run in the table and chart"))
        self.show_button.clicked.connect(self.show_selected)
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setToolTip(self.tr("Select two runs to compare them"))
        self.compare_button.clicked.connect(self.compare_selected)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.clicked.connect(self._confirm_delete)
        for button in (self.show_button, self.compare_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.status = make_label("", color=MUTED_COLOR)
        column.addWidget(self.status)
        self._sync_buttons()

    # -- the list

    def refresh(self) -> None:
        self._list_task.start(self.history.list)

    def save(self, run: BenchRun) -> None:
        """Keep `run` (off the GUI thread), then list the runs again."""
        self._save_task.start(self.history.save, run)

    @property
    def busy(self) -> bool:
        return any(t.is_running for t in (self._list_task, self._save_task, self._load_task))

    def stored_runs(self) -> tuple[StoredRun, ...]:
        return self._stored

    def _on_list(self, runs: object) -> None:
        if not isinstance(runs, tuple):
            return
        self._stored = tuple(r for r in runs if isinstance(r, StoredRun))
        self.table.setRowCount(len(self._stored))
        for row, stored in enumerate(self._stored):
            when = time.strftime("%m-%d %H:%M", time.localtime(stored.started_unix_s))
            outcome = (self.tr("ok, {n} results").format(n=stored.results) if stored.ok
                       else (stored.error or self.tr("not ok")).split(":", 1)[0])
            tip = plain_tooltip(
                f"{core_text(stored.device)}\n{stored.python}\ntorch {stored.torch or '–'}\n"
                f"{', '.join(stored.benchmarks)}" + (f"\n{stored.error}" if stored.error
                                                      else ""))
            for column, text in enumerate((str(stored.id), when, core_text(stored.device),
                                           outcome)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, stored.id)
                item.setToolTip(tip)
                if column == 3 and not stored.ok:
                    item.setForeground(ERROR_COLOR)
                self.table.setItem(row, column, item)
        self.status.setText(
            self.tr("Runs kept: {count}, in {path}").format(count=len(self._stored),
                                                             path=self.history.path)
            if self._stored else self.tr("No runs kept yet."))
        self.status.setToolTip(plain_tooltip(str(self.history.path)))
        self._sync_buttons()

    def _on_failed(self, message: str) -> None:
        self.status.setText(self.tr("Run history: {message}").format(message=message))

    def _on_saved(self, run_id: object) -> None:
        self.status.setText(self.tr("Kept as run {id}.").format(id=run_id))
        self.refresh()

    def _on_save_failed(self, message: str) -> None:
        self.status.setText(self.tr("The run was not kept: {message}").format(message=message))

    # -- selection and actions

    def selected_ids(self) -> list[int]:
        model = self.table.selectionModel()
        rows = sorted({index.row() for index in model.selectedRows()}) if model else []
        return [self._stored[row].id for row in rows if row < len(self._stored)]

    def select(self, run_ids: Sequence[int]) -> None:
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for row, stored in enumerate(self._stored):
            if stored.id in run_ids:
                self.table.selectRow(row)
        self.table.setSelectionMode(mode)

    def _sync_buttons(self) -> None:
        count = len(self.selected_ids())
        self.show_button.setEnabled(count == 1)
        self.compare_button.setEnabled(count == 2)
        self.delete_button.setEnabled(count >= 1)

    def show_selected(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self._load_task.start(_load_one, self.history, ids[0])

    def compare_selected(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 2:
            older, newer = sorted(ids)
            self._load_task.start(_load_two, self.history, older, newer)

    def _on_loaded(self, loaded: object) -> None:
        if isinstance(loaded, tuple) and len(loaded) == 2:
            run_id, run = loaded
            self.run_loaded.emit(int(run_id), run)
        elif isinstance(loaded, tuple) and len(loaded) == 4:
            id_a, run_a, id_b, run_b = loaded
            if self._compare_dialog is not None:
                self._compare_dialog.close()
            self._compare_dialog = BenchCompareDialog(compare_runs(run_a, run_b), id_a, id_b,
                                                      self)
            self._compare_dialog.show()

    @property
    def compare_dialog(self) -> BenchCompareDialog | None:
        return self._compare_dialog

    def _confirm_delete(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Delete runs"),
                          self.tr("Delete {count} past run(s) from the history?").format(
                              count=len(ids)),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda answer: self.delete(ids)
                             if answer == QMessageBox.StandardButton.Yes else None)
        box.open()

    def delete(self, run_ids: Sequence[int]) -> None:
        self._list_task.start(_delete_and_list, self.history, list(run_ids))

    def shutdown(self) -> None:
        for task in (self._list_task, self._save_task, self._load_task):
            task.cancel()
        if self._compare_dialog is not None:
            self._compare_dialog.close()


def _load_one(history: RunHistory, run_id: int) -> tuple[int, BenchRun]:
    return run_id, history.load(run_id)


def _load_two(history: RunHistory, id_a: int, id_b: int) -> tuple[int, BenchRun, int, BenchRun]:
    return id_a, history.load(id_a), id_b, history.load(id_b)


def _delete_and_list(history: RunHistory, run_ids: list[int]) -> tuple[StoredRun, ...]:
    history.delete(run_ids)
    return history.list()
