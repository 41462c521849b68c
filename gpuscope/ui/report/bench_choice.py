"""The Report page's choice of saved benchmark runs: the newest successful run of each of this
machine's devices (the default), none, or one run of the history, newest first. Only
successful runs on this machine's devices are listed; a failed run stays in the history."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from gpuscope.app.report_inputs import (
    LATEST_PER_DEVICE,
    NO_SAVED_RUNS,
    SavedRun,
    SavedRunChoice,
)
from gpuscope.i18n import localise
from gpuscope.report.formatting import format_unix
from gpuscope.ui.widgets import make_label, plain_tooltip


class SavedRunPicker(QWidget):
    """A label and a combo box; `choice_changed` when the user (or a run gone from the
    history) changes which saved runs the report takes."""

    choice_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(make_label(self.tr("Saved runs:"), wrap=False))
        self.box = QComboBox()
        # As wide as its longest run, never cut: the page's row has room for it.
        self.box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.box.setToolTip(plain_tooltip(self.tr(
            "Which benchmark runs saved on this machine go into the report: the latest "
            "successful run of each device, none, or one run. Failed runs stay in the "
            "history and never go into a report.")))
        row.addWidget(self.box)
        self.set_runs(())
        self.box.currentIndexChanged.connect(lambda _index: self.choice_changed.emit())

    @property
    def choice(self) -> SavedRunChoice:
        data = self.box.currentData()
        return data if isinstance(data, (str, int)) else LATEST_PER_DEVICE

    def set_choice(self, choice: SavedRunChoice) -> None:
        index = self.box.findData(choice)
        if index < 0:
            raise ValueError(f"no saved-run choice {choice!r}")
        self.box.setCurrentIndex(index)

    def runs(self) -> list[int]:
        """The ids of the runs listed, in order (newest first)."""
        return [data for index in range(self.box.count())
                if isinstance(data := self.box.itemData(index), int)]

    def set_runs(self, saved: Sequence[SavedRun]) -> None:
        """List `saved` (newest first), keeping the choice while its run is listed; back to
        the latest per device (with `choice_changed`) when it is gone."""
        choice = self.choice
        with QSignalBlocker(self.box):
            self.box.clear()
            self.box.addItem(self.tr("Latest per device"), LATEST_PER_DEVICE)
            self.box.addItem(self.tr("None"), NO_SAVED_RUNS)
            for item in saved:
                entry = item.entry
                self.box.addItem(self.tr("{when}: {device}").format(
                    when=localise(format_unix(entry.started_unix_s)),
                    device=localise(entry.device)), entry.id)
                self.box.setItemData(self.box.count() - 1, plain_tooltip(self.tr(
                    "{device}, {torch}, with {python}: {benchmarks}").format(
                    device=localise(entry.device), torch=entry.torch or "?",
                    python=entry.python, benchmarks=", ".join(entry.benchmarks))),
                    Qt.ItemDataRole.ToolTipRole)
            index = self.box.findData(choice)
            self.box.setCurrentIndex(max(0, index))
        if index < 0:
            self.choice_changed.emit()

