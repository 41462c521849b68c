"""Small charts of the share report as inline SVG, in pure Python: benchmark results against
the datasheet peak (bars over the published range), and telemetry sparklines.

The SVG is meant to sit inside an HTML page: no `xmlns` (HTML5 does not need one), no
external reference, every text escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from gpuscope.report import style
from gpuscope.report.view_model import BenchRow

_FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif"


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def bench_bars_svg(rows: Sequence[BenchRow], width: int = 760) -> str:
    """One bar per result with a percentage of its datasheet peak: the bar is the measured
    share, the shaded part the published range, the line the datasheet peak. Results without
    a peak are left out; "" when none has one."""
    shown = [r for r in rows if r.percent_of_peak is not None]
    if not shown:
        return ""
    label_w, value_w, row_h, top = 200, 70, 30, 24
    chart_w = width - label_w - value_w
    highest = max([110.0] + [float(r.percent_of_peak or 0) for r in shown]
                  + [r.band_pct[1] for r in shown if r.band_pct is not None])
    scale = chart_w / (math.ceil(highest / 10) * 10)
    height = top + row_h * len(shown) + 8
    x0 = label_w
    parts = [f'<svg class="bars" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="Benchmark results as a share of the datasheet peak" '
             f'style="{_FONT}">']
    for pct in (0, 50, 100):
        x = x0 + pct * scale
        dash = "" if pct == 100 else ' stroke-dasharray="3 3"'
        parts.append(f'<line x1="{_num(x)}" y1="{top - 6}" x2="{_num(x)}" y2="{height - 4}" '
                     f'stroke="{style.MUTED if pct == 100 else style.BORDER}"{dash}/>')
        parts.append(f'<text x="{_num(x)}" y="{top - 10}" font-size="12" text-anchor="middle" '
                     f'fill="{style.MUTED}">{pct}%{" peak" if pct == 100 else ""}</text>')
    for number, row in enumerate(shown):
        y = top + number * row_h
        percent = float(row.percent_of_peak or 0)
        color = style.VERDICT_COLORS.get(row.level, style.BAR)
        parts.append(f'<text x="{label_w - 10}" y="{y + 19}" font-size="14" text-anchor="end" '
                     f'fill="{style.TEXT}">{html.escape(row.title)}</text>')
        if row.band_pct is not None:
            low, high = row.band_pct
            parts.append(f'<rect x="{_num(x0 + low * scale)}" y="{y + 3}" '
                         f'width="{_num(max(2.0, (high - low) * scale))}" height="{row_h - 6}" '
                         f'fill="{style.BAND}"><title>published: {_num(low)}–{_num(high)}% '
                         f'of the peak</title></rect>')
        parts.append(f'<rect x="{x0}" y="{y + 8}" width="{_num(max(1.0, percent * scale))}" '
                     f'height="{row_h - 16}" rx="2" fill="{color}"/>')
        parts.append(f'<text x="{width - 4}" y="{y + 19}" font-size="14" text-anchor="end" '
                     f'fill="{style.TEXT}">{html.escape(row.percent_text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def sparkline_svg(values: Sequence[float | None], *, width: int = 180, height: int = 36,
                  color: str = style.ACCENT, low: float | None = None,
                  high: float | None = None) -> str:
    """A line over the values (gaps where None), scaled to [low, high] (default: their own
    range); "" with fewer than two values."""
    points = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if len(points) < 2 or len(values) < 2:
        return ""
    bottom = min(v for _, v in points) if low is None else low
    top = max(v for _, v in points) if high is None else high
    span = top - bottom if top > bottom else 1.0
    step = (width - 4) / (len(values) - 1)

    def xy(i: int, v: float) -> str:
        y = height - 3 - (v - bottom) / span * (height - 6)
        return f"{_num(2 + i * step)},{_num(y)}"

    runs: list[list[str]] = []
    previous = -2
    for i, v in points:
        if i != previous + 1:
            runs.append([])
        runs[-1].append(xy(i, v))
        previous = i
    lines = "".join(
        f'<polyline points="{" ".join(run)}" fill="none" stroke="{color}" '
        f'stroke-width="1.6" stroke-linejoin="round"/>' if len(run) > 1 else
        f'<circle cx="{run[0].split(",")[0]}" cy="{run[0].split(",")[1]}" r="1.5" '
        f'fill="{color}"/>'
        for run in runs)
    return (f'<svg class="spark" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" aria-hidden="true">{lines}</svg>')
