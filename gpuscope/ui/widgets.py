"""Small widgets every page uses: plain-text labels (machine text is never markup)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Generic, TypeVar

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QLayout,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuscope.ui.theme import MUTED_COLOR
from gpuscope.untrusted import clean_text


def css_color(color: QColor) -> str:
    return str(color.name())


def make_label(
    text: str, *, bold: bool = False, color: QColor | None = None, wrap: bool = True,
    tooltip: str | None = None, italic: bool = False, scale: float = 1.0,
) -> QLabel:
    """A plain-text, selectable label."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)  # machine text is never markup
    label.setText(clean_text(text))  # nor terminal controls (a GPU name in a shared file)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold or italic or scale != 1.0:
        font = QFont(label.font())
        font.setBold(bold)
        font.setItalic(italic)
        if scale != 1.0:
            font.setPointSizeF(font.pointSizeF() * scale)
        label.setFont(font)
    if color is not None:
        label.setStyleSheet(f"color: {css_color(color)};")
    if tooltip:
        label.setToolTip(plain_tooltip(tooltip))
    return label


def color_plot(plot_widget: pg.PlotWidget, palette: QPalette,
               axes: Sequence[str] = ("left", "bottom")) -> None:
    """A plot's background and axes (ticks, labels, grid) in the palette's colours. Charts
    call it again on a PaletteChange so that they follow a theme switched while running."""
    plot_widget.setBackground(palette.color(QPalette.ColorRole.Base))
    pen = pg.mkPen(palette.color(QPalette.ColorRole.Text))
    for name in axes:
        axis = plot_widget.getPlotItem().getAxis(name)
        axis.setPen(pen)
        axis.setTextPen(pen)


class PlotPanel(QWidget):
    """A widget drawing one pyqtgraph plot (`self.plot`) with `_draw()`: it redraws in the
    palette's colours when the theme changes."""

    plot: pg.PlotWidget

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "plot"):
            self._apply_palette()
            self._draw()

    def _apply_palette(self) -> None:
        color_plot(self.plot, self.palette())

    def _draw(self) -> None:
        raise NotImplementedError


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally (Qt would guess markup in it) and wraps."""
    return "<p>" + html.escape(clean_text(text)).replace("\n", "<br>") + "</p>"


def scrolling_page(page: QWidget, title: str) -> tuple[QScrollArea, QVBoxLayout, QLabel]:
    """The frame of a page: a borderless scroll area filling `page`, a content column with a
    bold title and a muted summary line."""
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    scroll_area = QScrollArea(page)
    scroll_area.setWidgetResizable(True)
    scroll_area.setFrameShape(QFrame.Shape.NoFrame)
    outer.addWidget(scroll_area)
    content = QWidget()
    column = QVBoxLayout(content)
    column.setContentsMargins(18, 14, 18, 18)
    column.setSpacing(8)
    scroll_area.setWidget(content)
    column.addWidget(make_label(title, bold=True, scale=1.3, wrap=False))
    summary = make_label("", color=MUTED_COLOR)
    column.addWidget(summary)
    return scroll_area, column, summary


def clear_layout(layout: QLayout) -> None:
    """Remove and delete every widget of `layout`, nested layouts included."""
    while layout.count():
        item = layout.takeAt(0)
        if item is None:
            break
        widget = item.widget()
        if widget is not None:
            widget.hide()
            widget.deleteLater()
        child = item.layout()
        if child is not None:
            clear_layout(child)


ItemWidget = TypeVar("ItemWidget", bound=QWidget)


class FlowGrid(QWidget, Generic[ItemWidget]):
    """Widgets in as many equal columns as fit the width it is offered (the scroll area's, not
    its own: its own minimum grows with the columns, so it could never shrink back).
    `fill_row_only`: never more columns than items (one GPU's stack keeps its width)."""

    def __init__(self, min_item_width: int, spacing: int, *, initial_width: int,
                 fill_row_only: bool = False,
                 alignment: Qt.AlignmentFlag | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(spacing)
        self._min_item_width = min_item_width
        self._spacing = spacing
        self._fill_row_only = fill_row_only
        self._alignment = alignment
        self._items: list[ItemWidget] = []
        self._columns = 0
        self._available_width = initial_width

    def set_available_width(self, width: int) -> None:
        if width != self._available_width:
            self._available_width = width
            self._reflow()

    @property
    def items(self) -> list[ItemWidget]:
        return list(self._items)

    @property
    def columns(self) -> int:
        return self._columns

    def position(self, item: ItemWidget) -> tuple[int, int]:
        """(row, column) of an item in the grid."""
        index = self._grid.indexOf(item)
        if index < 0:
            raise KeyError("not in the grid")
        position: tuple[int, int, int, int] = self._grid.getItemPosition(index)  # type: ignore[assignment]
        return position[0], position[1]

    def set_items(self, items: Sequence[ItemWidget]) -> None:
        for item in self._items:
            self._grid.removeWidget(item)
            item.hide()
            item.deleteLater()
        self._items = list(items)
        self._columns = 0
        self._reflow()

    def _reflow(self) -> None:
        columns = max(1, (self._available_width + self._spacing)
                      // (self._min_item_width + self._spacing))
        if self._fill_row_only:
            columns = max(1, min(columns, len(self._items)))
        if columns == self._columns:
            return
        for item in self._items:
            self._grid.removeWidget(item)
        for position, item in enumerate(self._items):
            if self._alignment is None:
                self._grid.addWidget(item, position // columns, position % columns)
            else:
                self._grid.addWidget(item, position // columns, position % columns,
                                     self._alignment)
        for column in range(max(columns, self._grid.columnCount())):
            self._grid.setColumnStretch(column, 1 if column < columns else 0)
        self._columns = columns


def panel_column(frame: QFrame, object_name: str) -> QVBoxLayout:
    """`frame` as one of the Telemetry page's panels (a styled frame, its height its own), and
    the column its contents go in."""
    frame.setObjectName(object_name)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    frame.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    column = QVBoxLayout(frame)
    column.setContentsMargins(8, 6, 8, 6)
    column.setSpacing(3)
    return column


def boxed_column(frame: QFrame, object_name: str, *, radius_px: int,
                 margins: tuple[int, int, int, int], spacing: int) -> QVBoxLayout:
    """`frame` as a box on the page's base colour with a thin border, and its column."""
    frame.setObjectName(object_name)
    frame.setStyleSheet(
        f"QFrame#{object_name} {{ background: palette(base); border: 1px solid palette(mid);"
        f" border-radius: {radius_px}px; }}")
    column = QVBoxLayout(frame)
    column.setContentsMargins(*margins)
    column.setSpacing(spacing)
    return column
