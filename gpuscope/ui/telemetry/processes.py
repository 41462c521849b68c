"""The Telemetry page's table of processes per GPU and the VRAM each holds, from the
sampler's slow process list (NVML, amdsmi), or why a GPU's processes are not known."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from gpuscope.metrics import ProcessSnapshot
from gpuscope.telemetry.feed import FeedDevice
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.telemetry.texts import device_label, device_short_label, feed_reason
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR
from gpuscope.ui.widgets import panel_column

# English; shown in the language installed.
HEADERS = ("GPU", "PID", QT_TRANSLATE_NOOP("ProcessTable", "Process"),
           QT_TRANSLATE_NOOP("ProcessTable", "VRAM (GiB)"),
           QT_TRANSLATE_NOOP("ProcessTable", "Kind"))
MAX_VISIBLE_ROWS = 12
_GIB = float(2**30)


@dataclass(frozen=True, slots=True)
class ProcessRow:
    """One line of the table: a process, or a note for a GPU ("not available: …")."""

    gpu: str  # "GPU 0"
    color: str
    pid: str = ""
    name: str = ""
    vram: str = ""
    kind: str = ""
    note: str = ""
    note_is_error: bool = False
    tooltip: str = ""


def process_rows(entries: Sequence[tuple[FeedDevice, QColor, ProcessSnapshot | None]],
                 waiting_text: str) -> tuple[ProcessRow, ...]:
    """The table's lines: per GPU its processes, biggest VRAM first, or a note."""
    rows: list[ProcessRow] = []
    for device, color, snapshot in entries:
        label = device_label(device)
        name = device_short_label(device)
        swatch = color.name()
        if snapshot is None:
            rows.append(ProcessRow(name, swatch, note=waiting_text, tooltip=label))
            continue
        source_tip = translate("ProcessTable", "{device}, from {source}").format(
            device=label, source=snapshot.source)
        if snapshot.missing_reason is not None:
            note = translate("ProcessTable", "not available: {reason}").format(
                reason=feed_reason(snapshot.missing_reason))
            rows.append(ProcessRow(name, swatch, note=note, tooltip=f"{label}: {note}"))
            continue
        if not snapshot.processes:
            rows.append(ProcessRow(name, swatch,
                                   note=translate("ProcessTable", "no processes on this GPU"),
                                   tooltip=source_tip))
            continue
        ordered = sorted(snapshot.processes,
                         key=lambda p: (-(p.used_bytes or -1.0), p.pid))
        for process in ordered:
            vram = ("—" if process.used_bytes is None
                    else f"{process.used_bytes / _GIB:.2f}")
            rows.append(ProcessRow(
                name, swatch, str(process.pid) if process.pid >= 0 else "?",
                process.name or translate("ProcessTable", "(name not readable)"), vram,
                core_text(process.kind or ""),
                tooltip=(source_tip + ("; " + translate(
                    "ProcessTable", "the driver does not say how much VRAM")
                    if process.used_bytes is None else ""))))
    return tuple(rows)


class ProcessTable(QFrame):
    """Per GPU: its processes and the VRAM each holds, sampled every few seconds."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = panel_column(self, "telemetryProcesses")
        self.title = QLabel(self.tr("GPU processes"))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        column.addWidget(self.title)
        self.note = QLabel()
        self.note.setObjectName("processesNote")
        self.note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
        self.note.setWordWrap(True)
        column.addWidget(self.note)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels([self.tr(header) for header in HEADERS])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        column.addWidget(self.table)
        self.rows: tuple[ProcessRow, ...] = ()
        self._icons: dict[str, QIcon] = {}
        self._fit_height()

    def set_rows(self, rows: Sequence[ProcessRow], note: str) -> None:
        """Show `rows` (rebuilt only when they change) under `note`."""
        self.note.setVisible(bool(note))
        if self.note.text() != note:
            self.note.setText(note)
        rows = tuple(rows)
        if rows == self.rows:
            return
        self.rows = rows
        table = self.table
        table.clearSpans()
        table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            gpu = QTableWidgetItem(self._icon(row.color), row.gpu)
            gpu.setToolTip(row.tooltip)
            table.setItem(index, 0, gpu)
            if row.note:
                item = QTableWidgetItem(row.note)
                item.setForeground(ERROR_COLOR if row.note_is_error else MUTED_COLOR)
                item.setToolTip(row.tooltip)
                table.setItem(index, 1, item)
                for col in range(2, len(HEADERS)):
                    table.setItem(index, col, QTableWidgetItem(""))
                table.setSpan(index, 1, 1, len(HEADERS) - 1)
                continue
            cells = (row.pid, row.name, row.vram, row.kind)
            for col, text in enumerate(cells, start=1):
                item = QTableWidgetItem(text)
                item.setToolTip(row.tooltip)
                if col in (1, 3):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(index, col, item)
        self._fit_height()

    def plain_text(self) -> str:
        lines = []
        for row in self.rows:
            if row.note:
                lines.append(f"{row.gpu}  {row.note}")
            else:
                lines.append("  ".join((row.gpu, row.pid, row.name, row.vram, row.kind)))
        return "\n".join(lines)

    def _icon(self, color: str) -> QIcon:
        icon = self._icons.get(color)
        if icon is None:
            pixmap = QPixmap(10, 10)
            pixmap.fill(QColor(color))
            icon = self._icons[color] = QIcon(pixmap)
        return icon

    def _fit_height(self) -> None:
        shown = max(1, min(len(self.rows), MAX_VISIBLE_ROWS))
        rows_height = shown * self.table.verticalHeader().defaultSectionSize()
        header = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(rows_height + header + 2 * self.table.frameWidth() + 2)
