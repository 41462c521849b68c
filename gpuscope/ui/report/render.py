"""The share report as a picture: 1200 px wide, drawn with QPainter in the report's own
colours (gpuscope.report.style), whatever the window's theme.

Sized to stay readable when a forum scales it down to half: body text 18 px, nothing under
15 px, strong contrast. Long parts that the HTML and Markdown collapse (finding details,
evidence, the raw JSON) are shortened or left out here; the picture says so.

Drawn in the language chosen (`gpuscope.i18n`; the Report page and `gpuscope report` pick it
with `gpuscope.i18n.language`): the report's messages through `localise`, the picture's own
words through Qt's `translate`, which asks the same catalogue.

One drawing routine serves two ends: `render_report_image` paints a QImage (the PNG export,
the clipboard), and the Report page paints the same routine scaled into its preview. Layout
runs twice, once to measure the height and once to draw, so nothing is ever clipped.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter

from gpuscope.i18n import localise
from gpuscope.report import style
from gpuscope.report.device_index import COLUMNS, remark_lines
from gpuscope.report.export_markdown import NOT_REDACTED_NOTE, REDACTED_NOTE, UNSTABLE_MARK
from gpuscope.report.formatting import format_duration, format_unix
from gpuscope.report.view_model import (
    UNSTABLE_WORD,
    BenchRow,
    BenchSection,
    ReportFinding,
    ReportGpu,
    ShareReport,
)
from gpuscope.ui.i18n import CatalogueTranslator, translate
from gpuscope.ui.report.canvas import (
    BODY_PX,
    H3_PX,
    MARGIN_PX,
    REPORT_WIDTH_PX,
    SMALL_PX,
    TITLE_PX,
    Canvas,
    report_font,
)
from gpuscope.ui.report.render_telemetry import draw_telemetry

__all__ = ["MARGIN_PX", "REPORT_WIDTH_PX", "SMALL_PX", "paint_report", "render_report_image",
           "report_height", "save_report_png"]

MAX_FINDINGS = 14
MAX_BENCH_SECTIONS = 2
MAX_DETAIL_CHARS = 320
MAX_FIX_CHARS = 600
# A benchmark row: its title, the bar chart between, then the value and the verdict's chip.
BENCH_LABEL_PX, BENCH_VALUE_PX = 250.0, 370.0

def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split()) if "\n" not in text else text.strip()
    return flat if len(flat) <= limit else flat[:limit - 1].rstrip() + "…"


# ----------------------------------------------------------------------------- sections


def _header(c: Canvas, report: ShareReport) -> None:
    c.y += c.text(localise(report.title), report_font(TITLE_PX, bold=True), style.TEXT, c.left,
                  c.y, c.inner)
    c.y += 12
    origin = report.origin
    background = style.ORIGIN_BACKGROUNDS.get(origin.kind, style.ORIGIN_BACKGROUNDS["unknown"])
    pad = 16
    title = ("" if origin.is_live else "⚠ ") + localise(origin.title)
    sentence = localise(origin.sentence(report.generated_unix_s))
    measure = Canvas(None, c.width)
    height = (measure.text(title, report_font(H3_PX, bold=True), "", 0, 0, c.inner - 2 * pad) + 6
              + measure.text(sentence, report_font(BODY_PX), "", 0, 0, c.inner - 2 * pad))
    c.rect(c.left, c.y, c.inner, height + 2 * pad, background, radius=8)
    y = c.y + pad
    y += c.text(title, report_font(H3_PX, bold=True), style.ORIGIN_TEXT, c.left + pad, y,
                c.inner - 2 * pad) + 6
    c.text(sentence, report_font(BODY_PX), style.ORIGIN_TEXT, c.left + pad, y, c.inner - 2 * pad)
    c.y += height + 2 * pad + 12
    made = translate("ReportImage", "Made by gpuscope {version} on {when}.").format(
        version=report.gpuscope_version or "?",
        when=localise(format_unix(report.generated_unix_s)))
    c.paragraph(made, color=style.MUTED, px=SMALL_PX, gap=2)
    if report.redacted:
        c.paragraph(localise(REDACTED_NOTE), color=style.MUTED, px=SMALL_PX, gap=10)
    else:
        c.paragraph("⚠ " + localise(NOT_REDACTED_NOTE), color=style.WARNING, px=SMALL_PX,
                    bold=True, gap=10)
    errors, warnings = report.counts()
    if not report.gpus:
        color = style.WARNING
    else:
        color = style.ERROR if errors else style.WARNING if warnings else style.OK
    c.paragraph(localise(report.verdict_line()), color=color, px=H3_PX, bold=True, gap=4)


def _gpu_card(c: Canvas, gpu: ReportGpu, x: float, y: float, width: float,
              height: float | None) -> float:
    pad = 14
    inner = width - 2 * pad
    if height is not None:
        c.rect(x, y, width, height, style.PANEL, radius=8, border=style.BORDER)
    top = y + pad
    top += c.text(f"GPU {gpu.index}: {localise(gpu.name)}", report_font(20, bold=True), style.TEXT,
                  x + pad, top, inner) + 8
    top += c.key_values(_localised(gpu.facts()), x + pad, top, inner, label_width=140, px=17)
    return top - y + pad - 4


def _machine(c: Canvas, report: ShareReport) -> None:
    c.heading(translate("ReportImage", "Machine"))
    c.y += c.key_values(_localised(report.platform.rows()), c.left, c.y, c.inner) + 10
    if not report.gpus:
        c.paragraph(translate("ReportImage", "No GPU found."), bold=True)
        return
    columns = 1 if len(report.gpus) == 1 else 2
    gap = 16
    width = (c.inner - gap * (columns - 1)) / columns
    for start in range(0, len(report.gpus), columns):
        row = report.gpus[start:start + columns]
        measure = Canvas(None, c.width)
        height = max(_gpu_card(measure, g, 0, 0, width, None) for g in row)
        for number, gpu in enumerate(row):
            _gpu_card(c, gpu, c.left + number * (width + gap), c.y, width, height)
        c.y += height + gap
    _device_index(c, report)


def _device_index(c: Canvas, report: ShareReport) -> None:
    """How each layer numbers each GPU (HIP and CUDA: after the *_VISIBLE_DEVICES variables)."""
    if not report.device_index:
        return
    c.subheading(translate("ReportImage", "Device index"))
    _table(c, [localise(column) for column in COLUMNS],
           [row.cells() for row in report.device_index],
           (0.08, 0.22, 0.24, 0.12, 0.1, 0.12, 0.12), px=SMALL_PX + 1)
    for remark in remark_lines(report.device_index):
        c.paragraph(localise(remark), color=style.MUTED, px=SMALL_PX, gap=4)


def _localised(rows: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(localise(label), localise(value)) for label, value in rows]


def _table(c: Canvas, header: Sequence[str], rows: Sequence[Sequence[str]],
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
    head_font = report_font(SMALL_PX, bold=True)
    measure = Canvas(None, c.width)
    head_h = max(measure.text(h, head_font, "", 0, 0, w - 2 * pad)
                 for h, w in zip(header, cols, strict=True)) + 2 * pad - 4
    c.rect(c.left, c.y, total, head_h, style.PANEL)
    for h, x, w in zip(header, xs, cols, strict=True):
        c.text(h, head_font, style.MUTED, x + pad, c.y + pad - 2, w - 2 * pad)
    c.y += head_h
    body = report_font(px)
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


def _stack(c: Canvas, report: ShareReport) -> None:
    c.heading(translate("ReportImage", "Stack, layer by layer"))
    shown = False
    for gpu in report.gpus:
        rows = report.layers_of(gpu.index)
        if not rows:
            continue
        shown = True
        if len(report.gpus) > 1:
            c.subheading(f"GPU {gpu.index}: {localise(gpu.name)}")
        _table(c, [translate("ReportImage", "Layer"), translate("ReportImage", "State"),
                   translate("ReportImage", "What gpuscope found")],
               [(localise(r.name), f"{r.mark} {localise(r.word)}", localise(r.text))
                for r in rows], (0.28, 0.18, 0.54),
               colors=[(None, style.LAYER_COLORS.get(r.state, style.UNKNOWN), None)
                       for r in rows], chips=1)
    if not shown:
        c.paragraph(translate("ReportImage", "No GPU, so no layers to check."),
                    color=style.MUTED)
    if report.stack:
        c.subheading(translate("ReportImage", "Versions"))
        columns = 2
        gap = 24
        width = (c.inner - gap) / columns
        half = math.ceil(len(report.stack) / columns)
        heights = []
        for number in range(columns):
            part = _localised(report.stack[number * half:(number + 1) * half])
            heights.append(c.key_values(part, c.left + number * (width + gap), c.y, width,
                                        label_width=170, px=17))
        c.y += max(heights) + 6


def _frameworks(c: Canvas, report: ShareReport) -> None:
    c.heading(translate("ReportImage", "Frameworks"))
    if not report.frameworks:
        c.paragraph(translate("ReportImage", "No framework inspected ({command} inspects "
                                             "one).").format(
            command="gpuscope doctor --python PATH"), color=style.MUTED)
        return
    rows = []
    colors: list[list[str | None]] = []
    for fw in report.frameworks:
        sees = localise(fw.sees_text) + (f" ({', '.join(fw.devices)})" if fw.devices else "")
        smoke = localise(fw.error or fw.smoke_test or "") or translate("ReportImage", "not run")
        rows.append((fw.name, fw.version or "?", localise(fw.build_text), sees, smoke,
                     fw.python or "?"))
        sees_color = (style.OK if fw.gpu_available else style.ERROR if fw.gpu_available is False
                      else style.MUTED)
        colors.append([None, None, None, sees_color,
                       style.ERROR if fw.error else None, style.MUTED])
    _table(c, [translate("ReportImage", "Framework"), translate("ReportImage", "Version"),
               translate("ReportImage", "Build"), translate("ReportImage", "Sees a GPU"),
               translate("ReportImage", "Smoke test"), "Python"], rows,
           (0.13, 0.13, 0.13, 0.2, 0.19, 0.22), colors=colors)


def _finding(c: Canvas, finding: ReportFinding, draw_y: float, measure_only: bool) -> float:
    target = Canvas(None, c.width) if measure_only else c
    color = style.SEVERITY_COLORS.get(finding.severity, style.UNKNOWN)
    x = c.left + 20
    width = c.inner - 28
    y = draw_y + 12
    chip_w, chip_h = target.chip(f"{finding.mark} {localise(finding.word)}", color, x, y)
    where = f", GPU {finding.gpu}" if finding.gpu is not None else ""
    title_h = target.text(localise(finding.title), report_font(BODY_PX + 1, bold=True), style.TEXT,
                          x + chip_w + 10, y + 1, width - chip_w - 10)
    y += max(chip_h, title_h) + 4
    y += target.text(f"{finding.id}{where}", report_font(SMALL_PX), style.MUTED, x, y, width) + 4
    if finding.detail:
        detail = " ".join(localise(finding.detail).splitlines())
        y += target.text(_shorten(detail, MAX_DETAIL_CHARS), report_font(17),
                         style.TEXT, x, y, width) + 6
    if finding.fix:
        fix = translate("ReportImage", "Fix: {fix}").format(
            fix=_shorten(localise(finding.fix), MAX_FIX_CHARS))
        y += target.text(fix, report_font(17), style.TEXT, x, y, width) + 4
    if finding.fix_commands:  # the commands as code, apart from the words
        commands = _shorten("\n".join(finding.fix_commands), MAX_FIX_CHARS)
        mono = report_font(16, mono=True)
        fix_h = Canvas(None, c.width).text(commands, mono, "", 0, 0, width - 24)
        target.rect(x, y, width, fix_h + 16, style.CODE_BACKGROUND, radius=6)
        target.text(commands, mono, style.TEXT, x + 12, y + 8, width - 24)
        y += fix_h + 16 + 4
    return y - draw_y + 8


def _findings(c: Canvas, report: ShareReport) -> None:
    c.heading(translate("ReportImage", "Doctor findings ({count})").format(
        count=len(report.findings)))
    if not report.findings:
        c.paragraph(translate("ReportImage", "No findings."), color=style.MUTED)
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
        more = (translate("ReportImage", "… and 1 more finding: see the HTML, Markdown or "
                                         "JSON export.") if hidden == 1
                else translate("ReportImage", "… and {count} more findings: see the HTML, "
                                              "Markdown or JSON export.").format(count=hidden))
        c.paragraph(more, color=style.MUTED)


def _bench_row(c: Canvas, row: BenchRow, y: float, scale_pct: float) -> float:
    label_w, value_w = BENCH_LABEL_PX, BENCH_VALUE_PX
    chart_x = c.left + label_w
    chart_w = c.inner - label_w - value_w
    # The value sits between the chart and the verdict's chip, never under it.
    word = localise(row.level_word)
    chip_w = Canvas(None, c.width).text_width(word, report_font(SMALL_PX, bold=True)) + 20
    value = localise(row.value_text)
    if row.percent_of_peak is not None:
        value += f" · {row.percent_text}"
    value_x = c.left + c.inner - value_w + 12
    value_room = value_w - 12 - chip_w - 10
    measure = Canvas(None, c.width)
    title = localise(row.title)
    title_h = c.text(title, report_font(17), style.TEXT, c.left, y + 4, label_w - 12)
    if row.unstable:  # under its title: the repeats spread too far to believe the median
        title_h += c.text(f"{UNSTABLE_MARK} {localise(UNSTABLE_WORD)}",
                          report_font(SMALL_PX, bold=True), style.WARNING, c.left,
                          y + 4 + title_h, label_w - 12)
    text_h = max(title_h, measure.text(value, report_font(17, bold=True), "", 0, 0,
                                       value_room))
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
        c.text(translate("ReportImage", "no datasheet peak") if row.value is not None
               else localise(row.verdict or row.status),
               report_font(SMALL_PX), style.MUTED, chart_x + 6, y + 7, chart_w - 12,
               one_line=True)
    c.text(value, report_font(17, bold=True), style.TEXT, value_x, y + 4, value_room)
    c.chip(word, style.VERDICT_COLORS.get(row.level, style.UNKNOWN),
           c.left + c.inner - chip_w, y + 3)
    return height


def _bench_section(c: Canvas, section: BenchSection) -> None:
    c.subheading(localise(section.device))
    when, duration = (localise(format_unix(section.started_unix_s)),
                      localise(format_duration(section.duration_s)))
    line = (translate("ReportImage", "{torch}; {when}, {duration}, against the {card} "
                                     "datasheet.").format(
        torch=localise(section.torch), when=when, duration=duration, card=section.card)
        if section.card else translate("ReportImage", "{torch}; {when}, {duration}, no "
                                                      "datasheet to compare with.").format(
        torch=localise(section.torch), when=when, duration=duration))
    c.paragraph(line, color=style.MUTED, px=SMALL_PX, gap=4)
    if section.note:
        c.paragraph(localise(section.note), color=style.MUTED, px=SMALL_PX, gap=4)
    if section.rows:
        highest = max([110.0] + [float(r.percent_of_peak or 0) for r in section.rows]
                      + [r.band_pct[1] for r in section.rows if r.band_pct is not None])
        scale_pct = math.ceil(highest / 10) * 10
        label_w, value_w = BENCH_LABEL_PX, BENCH_VALUE_PX
        chart_x = c.left + label_w
        chart_w = c.inner - label_w - value_w
        c.y += 4
        for pct in (0, 50, 100):
            x = chart_x + pct * chart_w / scale_pct
            word = (translate("ReportImage", "{percent}% of peak").format(percent=pct)
                    if pct == 100 else f"{pct}%")
            width = Canvas(None, c.width).text_width(word, report_font(SMALL_PX))
            c.text(word, report_font(SMALL_PX), style.MUTED, x - width / 2, c.y, width + 4)
        c.y += SMALL_PX + 8
        for row in section.rows:
            c.y += _bench_row(c, row, c.y, scale_pct) + 4
        c.paragraph(translate("ReportImage", "Bar: measured share of the datasheet peak (line "
                                             "at 100%); shaded: the range published "
                                             "measurements reach."),
                    color=style.MUTED, px=SMALL_PX)
    for error in section.errors:
        c.paragraph(f"✗ {localise(error)}", color=style.ERROR, px=17, gap=4)
    if section.not_run:
        c.paragraph(translate("ReportImage", "Not run: {benchmarks}").format(
            benchmarks=", ".join(localise(name) for name in section.not_run)),
            color=style.MUTED, px=SMALL_PX)


def _bench(c: Canvas, report: ShareReport) -> None:
    if not report.bench:
        return
    c.heading(translate("ReportImage", "Benchmarks against the datasheet"))
    for section in report.bench[:MAX_BENCH_SECTIONS]:
        _bench_section(c, section)
    hidden = len(report.bench) - MAX_BENCH_SECTIONS
    if hidden > 0:
        more = (translate("ReportImage", "… and 1 older run in the JSON export.")
                if hidden == 1 else translate(
                    "ReportImage", "… and {count} older runs in the JSON export.").format(
                    count=hidden))
        c.paragraph(more, color=style.MUTED, px=SMALL_PX)



def _footer(c: Canvas, report: ShareReport) -> None:
    c.y += 14
    c.line(c.left, c.y, c.left + c.inner, c.y, style.BORDER)
    c.y += 10
    parts = [f"gpuscope {report.gpuscope_version or '?'}", localise(report.origin.title),
             translate("ReportImage", "redacted") if report.redacted
             else translate("ReportImage", "NOT redacted"),
             translate("ReportImage", "details, evidence and raw JSON: the HTML, Markdown or "
                                      "JSON export")]
    if report.problems:
        parts.append(translate("ReportImage", "could not read: {problems}").format(
            problems="; ".join(localise(problem) for problem in report.problems)))
    c.paragraph(" · ".join(parts), color=style.MUTED, px=SMALL_PX, gap=0)


def paint_report(painter: QPainter | None, report: ShareReport,
                 width: int = REPORT_WIDTH_PX) -> int:
    """Draw `report` from the top of `painter` (None: only measure); the height it takes."""
    c = Canvas(painter, float(width))
    if painter is not None:
        painter.fillRect(QRectF(0, 0, width, report_height(report, width)),
                         QColor(style.PAGE))
    _header(c, report)
    _machine(c, report)
    _stack(c, report)
    _frameworks(c, report)
    _findings(c, report)
    _bench(c, report)
    draw_telemetry(c, report)
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
    # The picture's own words ask gpuscope's catalogue, in the language chosen at the time.
    app.installTranslator(CatalogueTranslator(app))
    if app.platformName() == "offscreen":
        from gpuscope.ui.app import quiet_offscreen_noise

        quiet_offscreen_noise()
    return app
