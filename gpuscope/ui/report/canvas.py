"""The drawing primitives of the share report's picture (`render`): the report's fonts and
sizes, and a cursor over the page that draws wrapped text, boxes, lines and chips, or with no
painter only measures them (layout runs twice: once to measure, once to draw)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
    QTextLayout,
    QTextLine,
    QTextOption,
)

from gpuscope.i18n import ENGLISH, current_language
from gpuscope.report import style
from gpuscope.ui.i18n import load_cjk_font

REPORT_WIDTH_PX = 1200
MARGIN_PX = 44
# Sizes in pixels; the smallest text is SMALL_PX.
TITLE_PX, H2_PX, H3_PX, BODY_PX, SMALL_PX = 34, 26, 21, 18, 15
FONT_FAMILIES = ("DejaVu Sans", "Noto Sans", "Segoe UI", "Helvetica Neue", "Arial",
                 "Noto Sans CJK SC", "sans-serif")
MONO_FAMILIES = ("DejaVu Sans Mono", "Noto Sans Mono", "Consolas", "Menlo", "monospace")


def report_font(px: int, *, bold: bool = False, mono: bool = False) -> QFont:
    font = QFont()
    # The bundled CJK font last: the characters the others lack.
    font.setFamilies([*(MONO_FAMILIES if mono else FONT_FAMILIES), *_cjk_families()])
    if mono:
        font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPixelSize(px)
    font.setBold(bold)
    return font


_cjk: list[tuple[str, ...]] = []


def _cjk_families() -> tuple[str, ...]:
    """The bundled CJK font's families, loaded the first time a report is drawn in a language
    other than English (the command line has no window that loaded it)."""
    if not _cjk and current_language() != ENGLISH:
        _cjk.append(load_cjk_font())
    return _cjk[0] if _cjk else ()



def laid_out(text: str, font: QFont, width: float, wrap: QTextOption.WrapMode
             ) -> tuple[QTextLayout, list[QTextLine]]:
    """`text` broken into lines no wider than `width` as Qt breaks it, each placed under the
    one before."""
    # QTextLayout breaks lines at U+2028 (QChar::LineSeparator), not at "\n".
    layout = QTextLayout(text.replace("\n", "\u2028"), font)
    option = QTextOption()
    option.setWrapMode(wrap)
    layout.setTextOption(option)
    lines: list[QTextLine] = []
    height = 0.0
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(1.0, width))
        line.setPosition(QPointF(0, height))
        height += line.height()
        lines.append(line)
    layout.endLayout()
    return layout, lines


@dataclass
class Canvas:
    """A cursor over the page. With `painter` None it only measures."""

    painter: QPainter | None
    width: float
    y: float = MARGIN_PX

    @property
    def left(self) -> float:
        return MARGIN_PX

    @property
    def inner(self) -> float:
        return self.width - 2 * MARGIN_PX

    # ------------------------------------------------------------------ primitives

    def text(self, text: str, font: QFont, color: str, x: float, y: float, width: float,
             *, one_line: bool = False) -> float:
        """Draw `text` wrapped into `width` at (x, y) (`one_line`: cut short with "…"
        instead); its height."""
        if one_line:
            text = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, width)
        layout, lines = laid_out(text, font, width,
                                 QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        height = sum(line.height() for line in lines)
        if self.painter is not None:
            self.painter.setPen(QColor(color))
            self.painter.setFont(font)
            layout.draw(self.painter, QPointF(x, y))
        return math.ceil(height)

    def text_width(self, text: str, font: QFont) -> float:
        layout = QTextLayout(text, font)
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(100_000)
        layout.endLayout()
        return float(line.naturalTextWidth()) if line.isValid() else 0.0

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, radius: float = 0,
             border: str | None = None) -> None:
        if self.painter is None:
            return
        painter = self.painter
        painter.setPen(QPen(QColor(border), 1) if border else Qt.PenStyle.NoPen)
        painter.setBrush(QColor(fill))
        if radius:
            painter.drawRoundedRect(QRectF(x, y, w, h), radius, radius)
        else:
            painter.drawRect(QRectF(x, y, w, h))
        painter.setBrush(Qt.BrushStyle.NoBrush)

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str, width: float = 1,
             dashed: bool = False) -> None:
        if self.painter is None:
            return
        pen = QPen(QColor(color), width)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        self.painter.setPen(pen)
        self.painter.drawLine(QPointF(x1, y1), QPointF(x2, y2))

    def chip(self, word: str, color: str, x: float, y: float) -> tuple[float, float]:
        """A rounded label with white text; its (width, height)."""
        font = report_font(SMALL_PX, bold=True)
        width = self.text_width(word, font) + 20
        height = SMALL_PX + 12
        self.rect(x, y, width, height, color, radius=height / 2)
        self.text(word, font, "#ffffff", x + 10, y + 5, width - 18)
        return width, height

    # ------------------------------------------------------------------ blocks

    def heading(self, text: str) -> None:
        self.y += 26
        font = report_font(H2_PX, bold=True)
        self.y += self.text(text, font, style.TEXT, self.left, self.y, self.inner)
        self.y += 6
        self.line(self.left, self.y, self.left + self.inner, self.y, style.BORDER, 2)
        self.y += 14

    def subheading(self, text: str) -> None:
        self.y += 8
        self.y += self.text(text, report_font(H3_PX, bold=True), style.TEXT, self.left, self.y,
                            self.inner)
        self.y += 8

    def paragraph(self, text: str, *, color: str = style.TEXT, px: int = BODY_PX,
                  bold: bool = False, gap: float = 8) -> None:
        self.y += self.text(text, report_font(px, bold=bold), color, self.left, self.y, self.inner)
        self.y += gap

    def key_values(self, rows: Sequence[tuple[str, str]], x: float, y: float, width: float,
                   label_width: float = 130, px: int = BODY_PX) -> float:
        """Rows of a muted label and a value; their height."""
        top = y
        for label, value in rows:
            label_h = self.text(label, report_font(px), style.MUTED, x, y, label_width - 10)
            value_h = self.text(value, report_font(px), style.TEXT, x + label_width, y,
                                width - label_width)
            y += max(label_h, value_h) + 4
        return y - top
