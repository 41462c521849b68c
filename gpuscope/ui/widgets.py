"""Small widgets every page uses: plain-text labels (machine text is never markup)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLabel


def css_color(color: QColor) -> str:
    return str(color.name())


def make_label(
    text: str, *, bold: bool = False, color: QColor | None = None, wrap: bool = True,
    tooltip: str | None = None, italic: bool = False, scale: float = 1.0,
) -> QLabel:
    """A plain-text, selectable label."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)  # machine text is never markup
    label.setText(text)
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


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally (Qt would guess markup in it) and wraps."""
    return "<p>" + html.escape(text).replace("\n", "<br>") + "</p>"
