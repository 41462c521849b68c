"""The Overview's device-index table: how each layer numbers each GPU (PCI bus, DRM card, KFD
node, SMI, and the HIP and CUDA index a framework uses), collapsible, and open by itself when
the numbers disagree (a GPU hidden by a *_VISIBLE_DEVICES variable, or "cuda:0" being
gpuscope's GPU 1)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QToolButton, QVBoxLayout, QWidget

from gpuscope.report.device_index import COLUMNS, IndexRow, indices_disagree
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP, core_text, translate
from gpuscope.ui.theme import MUTED_COLOR, WARN_COLOR
from gpuscope.ui.widgets import clear_layout, make_label

# Each column's heading (the report's English words, translated) and what it means.
HEADINGS: dict[str, tuple[str, str]] = {
    "GPU": (QT_TRANSLATE_NOOP("DeviceIndexTable", "GPU"),
            QT_TRANSLATE_NOOP("DeviceIndexTable", "gpuscope's number, as on the cards")),
    "PCI bus": (QT_TRANSLATE_NOOP("DeviceIndexTable", "PCI bus"),
                QT_TRANSLATE_NOOP("DeviceIndexTable", "The slot's address: the same in every "
                                                      "layer")),
    "DRM": ("DRM", QT_TRANSLATE_NOOP("DeviceIndexTable", "The kernel's DRM card and render "
                                                         "node (/dev/dri)")),
    "KFD node": (QT_TRANSLATE_NOOP("DeviceIndexTable", "KFD node"),
                 QT_TRANSLATE_NOOP("DeviceIndexTable", "The node in the KFD topology, which "
                                                       "ROCm reads")),
    "SMI": ("SMI", QT_TRANSLATE_NOOP("DeviceIndexTable", "The index amd-smi or nvidia-smi "
                                                         "shows")),
    "HIP": ("HIP", QT_TRANSLATE_NOOP("DeviceIndexTable", "The index HIP and PyTorch on ROCm "
                                                         "use (cuda:N), after "
                                                         "ROCR/HIP_VISIBLE_DEVICES")),
    "CUDA": ("CUDA", QT_TRANSLATE_NOOP("DeviceIndexTable", "The index CUDA and PyTorch use "
                                                           "(cuda:N), after "
                                                           "CUDA_VISIBLE_DEVICES")),
}


class DeviceIndexTable(QWidget):
    """A header button that opens and closes the table. Closed unless the numbers disagree;
    once the user opens or closes it, their choice holds while the page is updated."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: tuple[IndexRow, ...] = ()
        self._chosen: bool | None = None  # the user's choice, once made
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.toggle.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.toggle.setStyleSheet("QToolButton { border: none; background: transparent;"
                                  " padding: 0px; }")
        font = self.toggle.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.3)
        self.toggle.setFont(font)
        self.toggle.clicked.connect(self._on_clicked)
        column.addWidget(self.toggle)
        self.summary = make_label("", color=MUTED_COLOR)
        column.addWidget(self.summary)
        self.box = QFrame()
        self.box.setObjectName("deviceIndexBox")
        self.box.setStyleSheet(
            "QFrame#deviceIndexBox { background: palette(base); border: 1px solid palette(mid);"
            " border-radius: 4px; }")
        self._grid = QGridLayout(self.box)
        self._grid.setContentsMargins(14, 10, 14, 10)
        self._grid.setHorizontalSpacing(18)
        self._grid.setVerticalSpacing(4)
        column.addWidget(self.box)
        self._cells: list[tuple[str, ...]] = []
        self._remarks: list[str] = []
        self._show_open(False)

    # ------------------------------------------------------------------ public

    def set_rows(self, rows: Sequence[IndexRow]) -> None:
        self._rows = tuple(rows)
        self.setVisible(bool(self._rows))
        disagree = indices_disagree(self._rows)
        self.summary.setText(
            self.tr("The layers number these GPUs differently: pick a GPU by the number its "
                    "tool uses.") if disagree
            else self.tr("Every layer numbers these GPUs alike."))
        self.summary.setStyleSheet(
            f"color: {(WARN_COLOR if disagree else MUTED_COLOR).name()};")
        self._fill()
        self._show_open(disagree if self._chosen is None else self._chosen)

    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, shown: bool) -> None:
        """Open or close it as the user would (the choice then holds)."""
        self._chosen = shown
        self._show_open(shown)

    def rows(self) -> list[tuple[str, ...]]:
        """The cells of each row, as shown."""
        return list(self._cells)

    def remarks(self) -> list[str]:
        return list(self._remarks)

    # ------------------------------------------------------------------ private

    def _on_clicked(self, checked: bool) -> None:
        self.set_open(checked)

    def _show_open(self, shown: bool) -> None:
        self.toggle.setChecked(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.toggle.setText(self.tr("Device index"))
        self.box.setVisible(shown and bool(self._rows))

    def _fill(self) -> None:
        clear_layout(self._grid)
        self._cells, self._remarks = [], []
        top = Qt.AlignmentFlag.AlignTop
        for number, key in enumerate(COLUMNS):
            heading, tip = HEADINGS[key]
            self._grid.addWidget(make_label(translate("DeviceIndexTable", heading), bold=True,
                                            wrap=False,
                                            tooltip=translate("DeviceIndexTable", tip)),
                                 0, number, top)
        for line, row in enumerate(self._rows, start=1):
            cells = row.cells()
            for number, cell in enumerate(cells):
                self._grid.addWidget(make_label(cell, wrap=False, tooltip=row.name
                                                if number == 0 else None), line, number, top)
            self._cells.append(cells)
        self._grid.setColumnStretch(len(COLUMNS) - 1, 1)
        grouped: dict[str, list[str]] = {}  # a remark -> the GPUs it is about
        for row in self._rows:
            texts = [self.tr("hidden by {variable}").format(variable=row.hidden_by)
                     if row.hidden_by else "", core_text(row.note) if row.note else ""]
            for text in filter(None, texts):
                grouped.setdefault(text, []).append("–" if row.gpu is None else str(row.gpu))
        for text, gpus in grouped.items():
            template = self.tr("GPU {gpus}: {remark}") if len(gpus) == 1 \
                else self.tr("GPUs {gpus}: {remark}")
            self._remarks.append(template.format(gpus=", ".join(gpus), remark=text))
        for offset, remark in enumerate(self._remarks):
            self._grid.addWidget(make_label(remark, color=WARN_COLOR),
                                 len(self._rows) + 1 + offset, 0, 1, len(COLUMNS))
