"""The share report as a picture: 1200 px wide, drawn with QPainter in the report's own
colours (gpuscope.report.style), whatever the window's theme.

Sized to stay readable when a forum scales it down to half: body text 18 px, nothing under
15 px, strong contrast. Long parts that the HTML and Markdown collapse (finding details,
evidence, the raw JSON) are shortened or left out here; the picture says so.

One drawing routine serves two ends: `render_report_image` paints a QImage (the PNG export,
the clipboard), and the Report page paints the same routine scaled into its preview. Layout
runs twice, once to measure the height and once to draw, so nothing is ever clipped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QTextLayout,
    QTextOption,
)

from gpuscope.metrics import HOST_DEVICE
from gpuscope.report import style
from gpuscope.report.export_markdown import NOT_REDACTED_NOTE, REDACTED_NOTE
from gpuscope.report.formatting import format_duration, format_stat, format_unix
from gpuscope.report.view_model import (
    BenchRow,
    BenchSection,
    DeviceTelemetry,
    ReportFinding,
    ReportGpu,
    ShareReport,
)

REPORT_WIDTH_PX = 1200
MARGIN_PX = 44
# Sizes in pixels; the smallest text is SMALL_PX.
TITLE_PX, H2_PX, H3_PX, BODY_PX, SMALL_PX = 34, 26, 21, 18, 15
MAX_FINDINGS = 14
MAX_BENCH_SECTIONS = 2
MAX_DETAIL_CHARS = 320
MAX_FIX_CHARS = 600
TILE_COLUMNS = 5
FONT_FAMILIES = ("DejaVu Sans", "Noto Sans", "Segoe UI", "Helvetica Neue", "Arial",
                 "Noto Sans CJK SC", "sans-serif")
MONO_FAMILIES = ("DejaVu Sans Mono", "Noto Sans Mono", "Consolas", "Menlo", "monospace")


def _font(px: int, *, bold: bool = False, mono: bool = False) -> QFont:
    font = QFont()
    font.setFamilies(list(MONO_FAMILIES if mono else FONT_FAMILIES))
    if mono:
        font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPixelSize(px)
    font.setBold(bold)
    return font


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split()) if "\n" not in text else text.strip()
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


@dataclass
class _Canvas:
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
        layout = QTextLayout(text, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        height = 0.0
        layout.beginLayout()
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(1.0, width))
            line.setPosition(QPointF(0, height))
            height += line.height()
        layout.endLayout()
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
        font = _font(SMALL_PX, bold=True)
        width = self.text_width(word, font) + 20
        height = SMALL_PX + 12
        self.rect(x, y, width, height, color, radius=height / 2)
        self.text(word, font, "#ffffff", x + 10, y + 5, width - 18)
        return width, height

    # ------------------------------------------------------------------ blocks

    def heading(self, text: str) -> None:
        self.y += 26
        font = _font(H2_PX, bold=True)
        self.y += self.text(text, font, style.TEXT, self.left, self.y, self.inner)
        self.y += 6
        self.line(self.left, self.y, self.left + self.inner, self.y, style.BORDER, 2)
        self.y += 14

    def subheading(self, text: str) -> None:
        self.y += 8
        self.y += self.text(text, _font(H3_PX, bold=True), style.TEXT, self.left, self.y,
                            self.inner)
        self.y += 8

    def paragraph(self, text: str, *, color: str = style.TEXT, px: int = BODY_PX,
                  bold: bool = False, gap: float = 8) -> None:
        self.y += self.text(text, _font(px, bold=bold), color, self.left, self.y, self.inner)
        self.y += gap

    def key_values(self, rows: Sequence[tuple[str, str]], x: float, y: float, width: float,
                   label_width: float = 130, px: int = BODY_PX) -> float:
        """Rows of a muted label and a value; their height."""
        top = y
        for label, value in rows:
            label_h = self.text(label, _font(px), style.MUTED, x, y, label_width - 10)
            value_h = self.text(value, _font(px), style.TEXT, x + label_width, y,
                                width - label_width)
            y += max(label_h, value_h) + 4
        return y - top


# ----------------------------------------------------------------------------- sections


def _header(c: _Canvas, report: ShareReport) -> None:
    c.y += c.text(report.title, _font(TITLE_PX, bold=True), style.TEXT, c.left, c.y, c.inner)
    c.y += 12
    origin = report.origin
    background = style.ORIGIN_BACKGROUNDS.get(origin.kind, style.ORIGIN_BACKGROUNDS["unknown"])
    pad = 16
    title = ("" if origin.is_live else "⚠ ") + origin.title
    sentence = origin.sentence(report.generated_unix_s)
    measure = _Canvas(None, c.width)
    height = (measure.text(title, _font(H3_PX, bold=True), "", 0, 0, c.inner - 2 * pad) + 6
              + measure.text(sentence, _font(BODY_PX), "", 0, 0, c.inner - 2 * pad))
    c.rect(c.left, c.y, c.inner, height + 2 * pad, background, radius=8)
    y = c.y + pad
    y += c.text(title, _font(H3_PX, bold=True), style.ORIGIN_TEXT, c.left + pad, y,
                c.inner - 2 * pad) + 6
    c.text(sentence, _font(BODY_PX), style.ORIGIN_TEXT, c.left + pad, y, c.inner - 2 * pad)
    c.y += height + 2 * pad + 12
    made = (f"Made by gpuscope {report.gpuscope_version or '?'} on "
            f"{format_unix(report.generated_unix_s)}.")
    c.paragraph(made, color=style.MUTED, px=SMALL_PX, gap=2)
    if report.redacted:
        c.paragraph(REDACTED_NOTE, color=style.MUTED, px=SMALL_PX, gap=10)
    else:
        c.paragraph("⚠ " + NOT_REDACTED_NOTE, color=style.WARNING, px=SMALL_PX, bold=True,
                    gap=10)
    errors, warnings = report.counts()
    if not report.gpus:
        color = style.WARNING
    else:
        color = style.ERROR if errors else style.WARNING if warnings else style.OK
    c.paragraph(report.verdict_line(), color=color, px=H3_PX, bold=True, gap=4)


def _gpu_card(c: _Canvas, gpu: ReportGpu, x: float, y: float, width: float,
              height: float | None) -> float:
    pad = 14
    inner = width - 2 * pad
    if height is not None:
        c.rect(x, y, width, height, style.PANEL, radius=8, border=style.BORDER)
    top = y + pad
    top += c.text(f"GPU {gpu.index}: {gpu.name}", _font(20, bold=True), style.TEXT,
                  x + pad, top, inner) + 8
    top += c.key_values(gpu.facts(), x + pad, top, inner, label_width=140, px=17)
    return top - y + pad - 4


def _machine(c: _Canvas, report: ShareReport) -> None:
    c.heading("Machine")
    c.y += c.key_values(report.platform.rows(), c.left, c.y, c.inner) + 10
    if not report.gpus:
        c.paragraph("No GPU found.", bold=True)
        return
    columns = 1 if len(report.gpus) == 1 else 2
    gap = 16
    width = (c.inner - gap * (columns - 1)) / columns
    for start in range(0, len(report.gpus), columns):
        row = report.gpus[start:start + columns]
        measure = _Canvas(None, c.width)
        height = max(_gpu_card(measure, g, 0, 0, width, None) for g in row)
        for number, gpu in enumerate(row):
            _gpu_card(c, gpu, c.left + number * (width + gap), c.y, width, height)
        c.y += height + gap


def _table(c: _Canvas, header: Sequence[str], rows: Sequence[Sequence[str]],
           widths: Sequence[float], *, colors: Sequence[Sequence[str | None]] | None = None,
           chips: int | None = None, px: int = 17) -> None:
    """A table with wrapped cells; `widths` are fractions of the page; column `chips` holds
    chip words, coloured by `colors`."""
    total = c.inner
    xs = [c.left]
    for fraction in widths[:-1]:
        xs.append(xs[-1] + fraction * total)
    cols = [fraction * total for fraction in widths]
    pad = 8
    head_font = _font(SMALL_PX, bold=True)
    measure = _Canvas(None, c.width)
    head_h = max(measure.text(h, head_font, "", 0, 0, w - 2 * pad)
                 for h, w in zip(header, cols, strict=True)) + 2 * pad - 4
    c.rect(c.left, c.y, total, head_h, style.PANEL)
    for h, x, w in zip(header, xs, cols, strict=True):
        c.text(h, head_font, style.MUTED, x + pad, c.y + pad - 2, w - 2 * pad)
    c.y += head_h
    body = _font(px)
    for number, row in enumerate(rows):
        heights: list[float] = []
        for column, (cell, w) in enumerate(zip(row, cols, strict=True)):
            if column == chips:
                heights.append(SMALL_PX + 12)
            else:
                heights.append(measure.text(cell, body, "", 0, 0, w - 2 * pad))
        height = max(heights) + 2 * pad - 2
        for column, (cell, x, w) in enumerate(zip(row, xs, cols, strict=True)):
            color = colors[number][column] if colors is not None else None
            if column == chips:
                c.chip(cell, color or style.UNKNOWN, x + pad, c.y + pad - 2)
            else:
                c.text(cell, body, color or style.TEXT, x + pad, c.y + pad, w - 2 * pad)
        c.y += height
        c.line(c.left, c.y, c.left + total, c.y, style.BORDER)
    c.y += 10


def _stack(c: _Canvas, report: ShareReport) -> None:
    c.heading("Stack, layer by layer")
    shown = False
    for gpu in report.gpus:
        rows = report.layers_of(gpu.index)
        if not rows:
            continue
        shown = True
        if len(report.gpus) > 1:
            c.subheading(f"GPU {gpu.index}: {gpu.name}")
        _table(c, ["Layer", "State", "What gpuscope found"],
               [(r.name, f"{r.mark} {r.word}", r.text) for r in rows], (0.28, 0.18, 0.54),
               colors=[(None, style.LAYER_COLORS.get(r.state, style.UNKNOWN), None)
                       for r in rows], chips=1)
    if not shown:
        c.paragraph("No GPU, so no layers to check.", color=style.MUTED)
    if report.stack:
        c.subheading("Versions")
        columns = 2
        gap = 24
        width = (c.inner - gap) / columns
        half = math.ceil(len(report.stack) / columns)
        heights = []
        for number in range(columns):
            part = report.stack[number * half:(number + 1) * half]
            heights.append(c.key_values(part, c.left + number * (width + gap), c.y, width,
                                        label_width=170, px=17))
        c.y += max(heights) + 6


def _frameworks(c: _Canvas, report: ShareReport) -> None:
    c.heading("Frameworks")
    if not report.frameworks:
        c.paragraph("No framework inspected (gpuscope doctor --python PATH inspects one).",
                    color=style.MUTED)
        return
    rows = []
    colors: list[list[str | None]] = []
    for fw in report.frameworks:
        sees = fw.sees_text + (f" ({', '.join(fw.devices)})" if fw.devices else "")
        smoke = fw.error or fw.smoke_test or "not run"
        rows.append((fw.name, fw.version or "?", fw.build_text, sees, smoke, fw.python or "?"))
        sees_color = (style.OK if fw.gpu_available else style.ERROR if fw.gpu_available is False
                      else style.MUTED)
        colors.append([None, None, None, sees_color,
                       style.ERROR if fw.error else None, style.MUTED])
    _table(c, ["Framework", "Version", "Build", "Sees a GPU", "Smoke test", "Python"], rows,
           (0.13, 0.13, 0.13, 0.2, 0.19, 0.22), colors=colors)


def _finding(c: _Canvas, finding: ReportFinding, draw_y: float, measure_only: bool) -> float:
    target = _Canvas(None, c.width) if measure_only else c
    color = style.SEVERITY_COLORS.get(finding.severity, style.UNKNOWN)
    x = c.left + 20
    width = c.inner - 28
    y = draw_y + 12
    chip_w, chip_h = target.chip(f"{finding.mark} {finding.word}", color, x, y)
    where = f", GPU {finding.gpu}" if finding.gpu is not None else ""
    title_h = target.text(finding.title, _font(BODY_PX + 1, bold=True), style.TEXT,
                          x + chip_w + 10, y + 1, width - chip_w - 10)
    y += max(chip_h, title_h) + 4
    y += target.text(f"{finding.id}{where}", _font(SMALL_PX), style.MUTED, x, y, width) + 4
    if finding.detail:
        y += target.text(_shorten(finding.detail, MAX_DETAIL_CHARS), _font(17), style.TEXT,
                         x, y, width) + 6
    if finding.fix:
        y += target.text(f"Fix: {_shorten(finding.fix, MAX_FIX_CHARS)}", _font(17),
                         style.TEXT, x, y, width) + 4
    if finding.fix_commands:  # the commands as code, apart from the words
        commands = _shorten("\n".join(finding.fix_commands), MAX_FIX_CHARS)
        mono = _font(16, mono=True)
        fix_h = _Canvas(None, c.width).text(commands, mono, "", 0, 0, width - 24)
        target.rect(x, y, width, fix_h + 16, style.CODE_BACKGROUND, radius=6)
        target.text(commands, mono, style.TEXT, x + 12, y + 8, width - 24)
        y += fix_h + 16 + 4
    return y - draw_y + 8


def _findings(c: _Canvas, report: ShareReport) -> None:
    c.heading(f"Doctor findings ({len(report.findings)})")
    if not report.findings:
        c.paragraph("No findings.", color=style.MUTED)
        return
    for finding in report.findings[:MAX_FINDINGS]:
        height = _finding(c, finding, c.y, measure_only=True)
        color = style.SEVERITY_COLORS.get(finding.severity, style.UNKNOWN)
        c.rect(c.left, c.y, c.inner, height, style.PANEL, radius=6)
        c.rect(c.left, c.y, 6, height, color)
        _finding(c, finding, c.y, measure_only=False)
        c.y += height + 10
    hidden = len(report.findings) - MAX_FINDINGS
    if hidden > 0:
        c.paragraph(f"… and {hidden} more finding{'s' if hidden != 1 else ''}: see the HTML, "
                    "Markdown or JSON export.", color=style.MUTED)


def _bench_row(c: _Canvas, row: BenchRow, y: float, scale_pct: float) -> float:
    label_w, value_w = 250.0, 300.0
    chart_x = c.left + label_w
    chart_w = c.inner - label_w - value_w
    text_h = c.text(row.title, _font(17), style.TEXT, c.left, y + 4, label_w - 12)
    height = max(34.0, text_h + 10)
    if row.percent_of_peak is not None:
        per = chart_w / scale_pct
        if row.band_pct is not None:
            low, high = row.band_pct
            c.rect(chart_x + low * per, y + 3, max(2.0, (high - low) * per), height - 6,
                   style.BAND)
        color = style.VERDICT_COLORS.get(row.level, style.BAR)
        c.rect(chart_x, y + 9, max(2.0, min(row.percent_of_peak, scale_pct) * per),
               height - 18, color, radius=3)
        c.line(chart_x + 100 * per, y, chart_x + 100 * per, y + height, style.MUTED, 1.5)
    else:
        c.text("no datasheet peak" if row.value is not None else row.verdict or row.status,
               _font(SMALL_PX), style.MUTED, chart_x + 6, y + 7, chart_w - 12, one_line=True)
    value = row.value_text
    if row.percent_of_peak is not None:
        value += f" · {row.percent_text}"
    value_x = c.left + c.inner - value_w + 12
    c.text(value, _font(17, bold=True), style.TEXT, value_x, y + 4, value_w - 12)
    word = row.level_word
    chip_w = _Canvas(None, c.width).text_width(word, _font(SMALL_PX, bold=True)) + 20
    c.chip(word, style.VERDICT_COLORS.get(row.level, style.UNKNOWN),
           c.left + c.inner - chip_w, y + 3)
    return height


def _bench_section(c: _Canvas, section: BenchSection) -> None:
    c.subheading(section.device)
    against = f", against the {section.card} datasheet" if section.card else \
        ", no datasheet to compare with"
    c.paragraph(f"{section.torch}; {format_unix(section.started_unix_s)}, "
                f"{format_duration(section.duration_s)}{against}.", color=style.MUTED,
                px=SMALL_PX, gap=4)
    if section.note:
        c.paragraph(section.note, color=style.MUTED, px=SMALL_PX, gap=4)
    if section.rows:
        highest = max([110.0] + [float(r.percent_of_peak or 0) for r in section.rows]
                      + [r.band_pct[1] for r in section.rows if r.band_pct is not None])
        scale_pct = math.ceil(highest / 10) * 10
        label_w, value_w = 250.0, 300.0
        chart_x = c.left + label_w
        chart_w = c.inner - label_w - value_w
        c.y += 4
        for pct in (0, 50, 100):
            x = chart_x + pct * chart_w / scale_pct
            word = f"{pct}%" + (" of peak" if pct == 100 else "")
            width = _Canvas(None, c.width).text_width(word, _font(SMALL_PX))
            c.text(word, _font(SMALL_PX), style.MUTED, x - width / 2, c.y, width + 4)
        c.y += SMALL_PX + 8
        for row in section.rows:
            c.y += _bench_row(c, row, c.y, scale_pct) + 4
        c.paragraph("Bar: measured share of the datasheet peak (line at 100%); shaded: the "
                    "range published measurements reach.", color=style.MUTED, px=SMALL_PX)
    for error in section.errors:
        c.paragraph(f"✗ {error}", color=style.ERROR, px=17, gap=4)
    if section.not_run:
        c.paragraph(f"Not run: {', '.join(section.not_run)}", color=style.MUTED, px=SMALL_PX)


def _bench(c: _Canvas, report: ShareReport) -> None:
    if not report.bench:
        return
    c.heading("Benchmarks against the datasheet")
    for section in report.bench[:MAX_BENCH_SECTIONS]:
        _bench_section(c, section)
    hidden = len(report.bench) - MAX_BENCH_SECTIONS
    if hidden > 0:
        c.paragraph(f"… and {hidden} older run{'s' if hidden != 1 else ''} in the JSON export.",
                    color=style.MUTED, px=SMALL_PX)


def _sparkline(c: _Canvas, values: Sequence[float | None], x: float, y: float, w: float,
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


def _device_tiles(c: _Canvas, device: DeviceTelemetry, color: str) -> None:
    c.y += c.text(device.label, _font(BODY_PX, bold=True), style.TEXT, c.left, c.y,
                  c.inner) + 6
    columns = TILE_COLUMNS
    gap = 12
    width = (c.inner - gap * (columns - 1)) / columns
    height = 112.0
    for start in range(0, len(device.metrics), columns):
        for number, stat in enumerate(device.metrics[start:start + columns]):
            x = c.left + number * (width + gap)
            c.rect(x, c.y, width, height, style.PAGE, radius=6, border=style.BORDER)
            c.text(stat.label, _font(SMALL_PX), style.MUTED, x + 10, c.y + 6, width - 20,
                   one_line=True)
            c.text(f"{format_stat(stat.avg, stat.unit)} avg", _font(19, bold=True), style.TEXT,
                   x + 10, c.y + 26, width - 20, one_line=True)
            _sparkline(c, stat.spark, x + 10, c.y + 56, width - 20, 26, color)
            c.text(f"{format_stat(stat.min, stat.unit)} – {format_stat(stat.max, stat.unit)}",
                   _font(SMALL_PX), style.MUTED, x + 10, c.y + 86, width - 20, one_line=True)
        c.y += height + gap


def _telemetry(c: _Canvas, report: ShareReport) -> None:
    summary = report.telemetry
    if summary is None:
        return
    c.heading("Telemetry")
    when = (f" from {format_unix(summary.started_unix_s)}"
            if summary.started_unix_s is not None else "")
    c.paragraph(f"{summary.source}: {format_duration(summary.duration_s)}{when}.",
                color=style.MUTED, px=SMALL_PX)
    gpu_number = 0
    for device in summary.devices:
        host = device.key == HOST_DEVICE
        _device_tiles(c, device, style.series_color(gpu_number, host))
        gpu_number += 0 if host else 1


def _footer(c: _Canvas, report: ShareReport) -> None:
    c.y += 14
    c.line(c.left, c.y, c.left + c.inner, c.y, style.BORDER)
    c.y += 10
    parts = [f"gpuscope {report.gpuscope_version or '?'}", report.origin.title,
             "redacted" if report.redacted else "NOT redacted",
             "details, evidence and raw JSON: the HTML, Markdown or JSON export"]
    if report.problems:
        parts.append("could not read: " + "; ".join(report.problems))
    c.paragraph(" · ".join(parts), color=style.MUTED, px=SMALL_PX, gap=0)


def paint_report(painter: QPainter | None, report: ShareReport,
                 width: int = REPORT_WIDTH_PX) -> int:
    """Draw `report` from the top of `painter` (None: only measure); the height it takes."""
    c = _Canvas(painter, float(width))
    if painter is not None:
        painter.fillRect(QRectF(0, 0, width, report_height(report, width)),
                         QColor(style.PAGE))
    _header(c, report)
    _machine(c, report)
    _stack(c, report)
    _frameworks(c, report)
    _findings(c, report)
    _bench(c, report)
    _telemetry(c, report)
    _footer(c, report)
    return math.ceil(c.y + MARGIN_PX)


def report_height(report: ShareReport, width: int = REPORT_WIDTH_PX) -> int:
    return paint_report(None, report, width)


def render_report_image(report: ShareReport, width: int = REPORT_WIDTH_PX,
                        scale: float = 1.0) -> QImage:
    """The report as an image `width * scale` pixels wide (a GUI application must exist)."""
    if QGuiApplication.instance() is None:
        raise RuntimeError("render_report_image needs a QGuiApplication")
    height = report_height(report, width)
    image = QImage(round(width * scale), round(height * scale), QImage.Format.Format_RGB32)
    image.fill(QColor(style.PAGE))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        if scale != 1.0:
            painter.scale(scale, scale)
        paint_report(painter, report, width)
    finally:
        painter.end()
    return image


def save_report_png(report: ShareReport, path: str | os.PathLike[str],
                    width: int = REPORT_WIDTH_PX) -> QImage:
    """Write the report to `path` as PNG; the image. OSError when it cannot be written."""
    image = render_report_image(report, width)
    if not image.save(os.fspath(path), "PNG"):  # type: ignore[call-overload]
        raise OSError(f"cannot write the PNG to {path}")
    return image


def ensure_gui_application() -> QGuiApplication:
    """The running Qt application, or a new offscreen one for the command line."""
    existing = QGuiApplication.instance()
    if isinstance(existing, QGuiApplication):
        return existing
    # A picture needs no screen: offscreen works with or without a display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QGuiApplication(["gpuscope"])
    if app.platformName() == "offscreen":
        from gpuscope.ui.app import quiet_offscreen_noise

        quiet_offscreen_noise()
    return app
