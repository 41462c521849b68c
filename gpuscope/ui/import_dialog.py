"""The "Import outputs" dialog: files or pasted text from another machine (rocminfo, rocm-smi,
amd-smi, nvidia-smi, collect_env, dmesg, lspci, ...), read and parsed off the GUI thread.

On success the dialog emits `imported(ImportOutcome)` and closes; a file that cannot be read,
or text that is no format gpuscope knows, is one line in the dialog, which stays open.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope.importer import ImportedMachine, InputFileError, import_texts, read_input
from gpuscope.ui.background import BackgroundTask
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR
from gpuscope.ui.widgets import make_label

# English sources, shown through translate("ImportDialog", ...).
PASTE_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "ImportDialog", "Paste rocminfo, rocm-smi, amd-smi, nvidia-smi, collect_env, dmesg, lspci "
    "output here")
# The name of pasted text as a source of evidence: kept in English, like file names.
PASTED_SOURCE = "pasted text"
NOT_RECOGNISED = QT_TRANSLATE_NOOP("ImportDialog", "not a format gpuscope recognises")


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What an import produced: the machine, or the one-line reason there is none.
    `ignored` names the inputs that were no format gpuscope knows (the others were used)."""

    machine: ImportedMachine | None
    error: str | None = None
    ignored: tuple[str, ...] = ()


def _recognised(machine: ImportedMachine) -> tuple[list[str], list[str]]:
    used, ignored = [], []
    for parsed in machine.parsed:
        if parsed.format == "unknown" and not parsed.signals:
            ignored.append(parsed.source)
        else:
            used.append(parsed.source)
    return used, ignored


def import_inputs(paths: Sequence[str], pasted: str = "") -> ImportOutcome:
    """Read `paths` and the pasted text, and import them as one machine. Never raises: a file
    that cannot be read, or nothing recognised, is the outcome's `error`."""
    texts: list[tuple[str, str]] = []
    for path in paths:
        try:
            texts.append(read_input(path))
        except InputFileError as exc:
            return ImportOutcome(None, str(exc))
    if pasted.strip():
        texts.append((PASTED_SOURCE, pasted))
    if not texts:
        return ImportOutcome(None, translate("ImportDialog",
                                             "Choose files or paste an output first."))
    machine = import_texts(texts)
    used, ignored = _recognised(machine)
    if not used:
        names = ", ".join(ignored)
        return ImportOutcome(None, f"{names}: {translate('ImportDialog', NOT_RECOGNISED)}",
                             tuple(ignored))
    if ignored:  # import what was understood, without the rest
        kept = [text for text, parsed in zip(texts, machine.parsed, strict=True)
                if not (parsed.format == "unknown" and not parsed.signals)]
        machine = import_texts(kept)
    return ImportOutcome(machine, None, tuple(ignored))


class ImportDialog(QDialog):
    """Two ways in: open files (several at once), or paste text. Import parses them in a
    background thread."""

    imported = Signal(object)  # ImportOutcome with a machine

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Import outputs"))
        self.resize(720, 560)
        self._paths: list[str] = []
        self._task = BackgroundTask("import", self)
        self._task.done.connect(self._on_done)
        self._task.failed.connect(self._on_failed)

        column = QVBoxLayout(self)
        column.setSpacing(8)
        column.addWidget(make_label(
            self.tr("Diagnose another machine from what its tools printed. Several outputs "
                    "from one machine are read together, as one machine."), color=MUTED_COLOR))

        column.addWidget(make_label(self.tr("Files"), bold=True, wrap=False))
        files_row = QHBoxLayout()
        self.files_list = QListWidget()
        self.files_list.setMaximumHeight(110)
        files_row.addWidget(self.files_list, 1)
        file_buttons = QVBoxLayout()
        self.open_button = QPushButton(self.tr("Open files…"))
        self.open_button.clicked.connect(self._choose_files)
        self.clear_button = QPushButton(self.tr("Clear"))
        self.clear_button.clicked.connect(self.clear_files)
        file_buttons.addWidget(self.open_button)
        file_buttons.addWidget(self.clear_button)
        file_buttons.addStretch(1)
        files_row.addLayout(file_buttons)
        column.addLayout(files_row)

        column.addWidget(make_label(self.tr("Or paste"), bold=True, wrap=False))
        self.paste_edit = QPlainTextEdit()
        self.paste_edit.setPlaceholderText(self.tr(PASTE_PLACEHOLDER))
        self.paste_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        column.addWidget(self.paste_edit, 1)

        self.error_label = QLabel()
        self.error_label.setObjectName("importError")
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {ERROR_COLOR.name()};")
        self.error_label.hide()
        column.addWidget(self.error_label)

        buttons = QHBoxLayout()
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setFixedWidth(120)
        self.busy_bar.hide()
        self.busy_label = make_label(self.tr("Reading…"), color=MUTED_COLOR, wrap=False)
        self.busy_label.hide()
        buttons.addWidget(self.busy_bar)
        buttons.addWidget(self.busy_label)
        buttons.addStretch(1)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.reject)
        self.import_button = QPushButton(self.tr("Import"))
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.start_import)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.import_button)
        column.addLayout(buttons)

    # ------------------------------------------------------------------ inputs

    def paths(self) -> list[str]:
        return list(self._paths)

    def add_files(self, paths: Sequence[str]) -> None:
        for path in paths:
            if path not in self._paths:
                self._paths.append(path)
                self.files_list.addItem(os.path.basename(path) or path)
                item = self.files_list.item(self.files_list.count() - 1)
                item.setToolTip(path)
        self._show_error(None)

    def clear_files(self) -> None:
        self._paths.clear()
        self.files_list.clear()

    def _choose_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(
            self, self.tr("Choose tool outputs"), "",
            self.tr("Text outputs (*.txt *.log *.xml *.json *.csv);;All files (*)"))
        if paths:
            self.add_files(paths)

    def error_text(self) -> str | None:
        return None if self.error_label.isHidden() else self.error_label.text()

    def _show_error(self, text: str | None) -> None:
        self.error_label.setText(text or "")
        self.error_label.setVisible(bool(text))

    # ------------------------------------------------------------------ import

    @property
    def is_busy(self) -> bool:
        return self._task.is_running

    def start_import(self) -> None:
        pasted = self.paste_edit.toPlainText()
        if not self._paths and not pasted.strip():
            self._show_error(self.tr("Choose files or paste an output first."))
            return
        self._show_error(None)
        self._set_busy(True)
        self._task.start(import_inputs, tuple(self._paths), pasted)

    def _set_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        self.busy_label.setVisible(busy)
        self.import_button.setEnabled(not busy)
        self.open_button.setEnabled(not busy)

    def _on_done(self, outcome: object) -> None:
        self._set_busy(False)
        if not isinstance(outcome, ImportOutcome):
            self._show_error(self.tr("The import returned nothing"))
            return
        if outcome.machine is None:
            self._show_error(" ".join((outcome.error or self.tr("nothing imported")).split()))
            return
        self.imported.emit(outcome)
        self.accept()

    def _on_failed(self, message: str) -> None:
        self._set_busy(False)
        self._show_error(self.tr("The import failed: {message}").format(message=message))

    def cancel_import(self) -> None:
        """Stop waiting for an import in progress (its thread ends when parsing does)."""
        self._task.cancel()
        self._set_busy(False)

    def reject(self) -> None:
        self.cancel_import()
        super().reject()
