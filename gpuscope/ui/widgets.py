"""Small widgets every page uses: plain-text labels (machine text is never markup)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

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
