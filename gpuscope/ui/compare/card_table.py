"""The Compare page's table widget: one column per card under a heading with its colour, one
row per figure, the best value of each row highlighted. It fills the page's width; the cells
come from `gpuscope.report.compare_table` and `gpuscope.app.price_rows`."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QIcon, QPalette, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidgetItem, QWidget

from gpuscope.report.compare_table import Better, Cell, ColorRole, Row, best_columns
from gpuscope.ui.compare.what_fits import FittedTable, tint
from gpuscope.ui.i18n import translate
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR, gpu_color
from gpuscope.ui.widgets import plain_tooltip

LABEL_WIDTH = 232
CARD_WIDTH = 168  # the least; the columns share what the page has beyond
MAX_HEADING_WIDTH = 260  # a longer heading is cut in the middle
HEADER_PADDING = 40  # the colour swatch, its gap and the section's margins
ROW_HEIGHT = 26
BEST_ROLE = Qt.ItemDataRole.UserRole + 1
ROLE_COLORS: dict[ColorRole, QColor] = {
    ColorRole.OK: OK_COLOR, ColorRole.WARNING: WARN_COLOR, ColorRole.ERROR: ERROR_COLOR,
    ColorRole.MUTED: MUTED_COLOR,
}


def swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


class CardTable(FittedTable):
    """Cards side by side; columns are selected whole (a click on a heading)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectColumns)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setWordWrap(False)
        self.setAlternatingRowColors(False)
        self.setShowGrid(False)
        vertical = self.verticalHeader()
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(ROW_HEIGHT)
        vertical.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        vertical.setFixedWidth(LABEL_WIDTH)
        horizontal = self.horizontalHeader()
        horizontal.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        horizontal.setDefaultSectionSize(CARD_WIDTH)
        horizontal.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def bold_font(self) -> QFont:
        bold = QFont(self.font())
        bold.setBold(True)
        return bold

    def set_headings(self, headings: Sequence[tuple[str, str, str]]) -> list[int]:
        """(card name, origin line, tooltip) per column; the least width of each column, as
        wide as its heading (a long one cut in the middle, in full in the tooltip)."""
        bold = self.bold_font()
        metrics = QFontMetrics(bold)
        room = MAX_HEADING_WIDTH - HEADER_PADDING
        widths: list[int] = []
        for index, (name, origin, tooltip) in enumerate(headings):
            lines = [metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)
                     for text in (name, origin)]
            header = QTableWidgetItem("\n".join(lines))
            header.setIcon(swatch(gpu_color(index)))
            header.setToolTip(plain_tooltip(tooltip))
            header.setFont(bold)
            self.setHorizontalHeaderItem(index, header)
            needed = max(metrics.horizontalAdvance(line) for line in lines) + HEADER_PADDING
            widths.append(max(CARD_WIDTH, min(MAX_HEADING_WIDTH, needed)))
        return widths

    def section_row(self, row: int, title: str) -> None:
        """A section's title row, spanning the cards."""
        brush = QBrush(self.palette().color(QPalette.ColorRole.AlternateBase))
        item = QTableWidgetItem(title)
        item.setFont(self.bold_font())
        item.setBackground(brush)
        self.setVerticalHeaderItem(row, item)
        for column in range(self.columnCount()):
            filler = QTableWidgetItem("")
            filler.setBackground(brush)
            filler.setFlags(Qt.ItemFlag.NoItemFlags)
            self.setItem(row, column, filler)
        if self.columnCount() > 1:
            self.setSpan(row, 0, 1, self.columnCount())

    def fill_row(self, spec: Row, row: int, cells: Sequence[Cell]) -> None:
        """The cells of one row, the best of them highlighted (BEST_ROLE set)."""
        best = best_columns([c.value for c in cells], spec.better)
        best_brush = tint(OK_COLOR, 56)
        for column, cell in enumerate(cells):
            item = QTableWidgetItem(cell.text)
            item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            if cell.tooltip:
                item.setToolTip(plain_tooltip(cell.tooltip))
            role = cell.shown_role
            if role is not None:
                item.setForeground(QBrush(ROLE_COLORS[role]))
            if column in best:
                item.setBackground(best_brush)
                item.setFont(self.bold_font())
                item.setData(BEST_ROLE, True)
                best_words = (translate("ComparePage",
                                        "Best of the cards shown (higher is better)")
                              if spec.better is Better.HIGHER
                              else translate("ComparePage",
                                             "Best of the cards shown (lower is better)"))
                item.setToolTip(plain_tooltip(best_words + "\n" + cell.tooltip))
            self.setItem(row, column, item)
