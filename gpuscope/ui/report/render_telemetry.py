"""The telemetry strip of the report's picture (`render`): a row of tiles per GPU and for the
host, each with its metric's name (wrapped onto two lines where it needs them, never cut at
the tile's edge), its average, a sparkline and its range; or, for a replayed snapshot's single
readings, the reading "at capture" alone, with no range or line that would pass for a
measurement over time (the capture time is said once, under the strip's heading)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainterPath, QPen, QTextOption

from gpuscope.metrics import HOST_DEVICE
from gpuscope.report import style
from gpuscope.report.export_markdown import telemetry_line
from gpuscope.report.formatting import format_stat
from gpuscope.report.telemetry_summary import shown
from gpuscope.report.view_model import DeviceTelemetry, MetricStats, ShareReport
from gpuscope.ui.i18n import translate
from gpuscope.ui.report.canvas import BODY_PX, SMALL_PX, Canvas, laid_out, report_font

TILE_COLUMNS = 5
TILE_GAP_PX = 12
TILE_PAD_PX = 10
# A metric's name takes at most this many lines of its tile; a longer one ends in "…".
LABEL_LINES = 2
VALUE_PX = 19
SPARK_PX = 26


def tile_width(c: Canvas) -> float:
    """The width of one tile of a row of `TILE_COLUMNS` across the page."""
    return (c.inner - TILE_GAP_PX * (TILE_COLUMNS - 1)) / TILE_COLUMNS


def label_lines(text: str, font: QFont, width: float, lines: int = LABEL_LINES) -> list[str]:
    """`text` wrapped at its spaces ("Temperature" over "(junction/hotspot)") into at most
    `lines` lines no wider than `width`, a word wider than that broken inside; the last line
    cut short with "…" when more would be needed."""
    metrics = QFontMetricsF(font)
    out: list[str] = []
    for word in text.split():
        candidate = f"{out[-1]} {word}" if out else word
        if out and metrics.horizontalAdvance(candidate) <= width:
            out[-1] = candidate
        else:
            out += _broken(word, font, width)
    if len(out) > lines:
        rest = " ".join(out[lines - 1:])
        out = [*out[:lines - 1], metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width)]
    return out


def _broken(word: str, font: QFont, width: float) -> list[str]:
    """`word` in pieces no wider than `width` (itself when it fits), as Qt breaks it."""
    _layout, lines = laid_out(word, font, width, QTextOption.WrapMode.WrapAnywhere)
    pieces = [word[line.textStart():line.textStart() + line.textLength()] for line in lines]
    return pieces or [word]


def _line_px(font: QFont) -> float:
    return math.ceil(QFontMetricsF(font).lineSpacing())


def _sparkline(c: Canvas, values: Sequence[float | None], x: float, y: float, w: float,
               h: float, color: str) -> None:
    points = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if c.painter is None or len(points) < 2 or len(values) < 2:
        return
    low = min(v for _, v in points)
    high = max(v for _, v in points)
    span = high - low if high > low else 1.0
    step = w / (len(values) - 1)
    path = QPainterPath()
    previous = -2
    for i, v in points:
        point = QPointF(x + i * step, y + h - (v - low) / span * h)
        if i != previous + 1:
            path.moveTo(point)
        else:
            path.lineTo(point)
        previous = i
    pen = QPen(QColor(color), 2.2)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    c.painter.setPen(pen)
    c.painter.drawPath(path)


def _tile(c: Canvas, stat: MetricStats, x: float, y: float, width: float, label_h: float,
          height: float, color: str, at_capture: bool) -> None:
    c.rect(x, y, width, height, style.PAGE, radius=6, border=style.BORDER)
    inner = width - 2 * TILE_PAD_PX
    left = x + TILE_PAD_PX
    label_font = report_font(SMALL_PX)
    line_px = _line_px(label_font)
    for number, line in enumerate(label_lines(shown(stat.label), label_font, inner)):
        c.text(line, label_font, style.MUTED, left, y + 6 + number * line_px, inner,
               one_line=True)
    top = y + 6 + label_h + 4
    value = format_stat(stat.avg, stat.unit)
    if at_capture:  # one reading: no average, no range, no line over time
        c.text(value, report_font(VALUE_PX + 3, bold=True), style.TEXT, left, top, inner,
               one_line=True)
        c.text(translate("ReportImage", "at capture"), label_font, style.MUTED, left,
               top + VALUE_PX + 12, inner, one_line=True)
        return
    c.text(translate("ReportImage", "{value} avg").format(value=value),
           report_font(VALUE_PX, bold=True), style.TEXT, left, top, inner, one_line=True)
    _sparkline(c, stat.spark, left, top + 30, inner, SPARK_PX, color)
    c.text(f"{format_stat(stat.min, stat.unit)} – {format_stat(stat.max, stat.unit)}",
           label_font, style.MUTED, left, top + 30 + SPARK_PX + 4, inner, one_line=True)


def _device_tiles(c: Canvas, device: DeviceTelemetry, color: str, at_capture: bool) -> None:
    c.y += c.text(shown(device.label), report_font(BODY_PX, bold=True), style.TEXT, c.left,
                  c.y, c.inner) + 6
    width = tile_width(c)
    label_font = report_font(SMALL_PX)
    line_px = _line_px(label_font)
    # Below the name: the reading and "at capture", or the average, the line and the range.
    body_h = (VALUE_PX + 12 + line_px + 8) if at_capture else (30 + SPARK_PX + 4 + line_px + 8)
    for start in range(0, len(device.metrics), TILE_COLUMNS):
        row = device.metrics[start:start + TILE_COLUMNS]
        # Every tile of a row as tall as the one whose name takes the most lines.
        label_h = line_px * max(len(label_lines(shown(stat.label), label_font,
                                                width - 2 * TILE_PAD_PX)) for stat in row)
        height = 6 + label_h + 4 + body_h
        for number, stat in enumerate(row):
            _tile(c, stat, c.left + number * (width + TILE_GAP_PX), c.y, width, label_h,
                  height, color, at_capture)
        c.y += height + TILE_GAP_PX


def draw_telemetry(c: Canvas, report: ShareReport) -> None:
    """The strip's heading, its source and time, and the tiles of each device."""
    summary = report.telemetry
    if summary is None:
        return
    c.heading(translate("ReportImage", "Telemetry"))
    c.paragraph(telemetry_line(summary), color=style.MUTED, px=SMALL_PX)
    gpu_number = 0
    for device in summary.devices:
        host = device.key == HOST_DEVICE
        _device_tiles(c, device, style.series_color(gpu_number, host), summary.at_capture)
        gpu_number += 0 if host else 1
