"""A replayed snapshot on the Telemetry page: its single readings "at capture", with the
capture time, in place of curves and now/min/avg/max over a window that a snapshot does not
have (flat lines stamped with today's time would pass for a measurement)."""

from __future__ import annotations

import html
import math
import time
from collections.abc import Iterable, Sequence

from PySide6.QtGui import QFont

from gpuscope.metrics import series_name
from gpuscope.telemetry.feed import CaptureFeed, FeedDevice, TelemetryFeed
from gpuscope.ui.i18n import core_text, translate
from gpuscope.ui.telemetry.chart import TelemetryChart, format_value
from gpuscope.ui.telemetry.legends import ReasonOf
from gpuscope.ui.telemetry.texts import device_short_label
from gpuscope.ui.theme import ERROR_COLOR, MUTED_COLOR

VALUE_SIZE = 1.6  # the value's font, times the page's


def capture_time_text(time_s: float | None) -> str:
    """"2026-11-27 02:31:05 UTC" (local time), or "" when the snapshot did not record it."""
    if time_s is None or not math.isfinite(time_s):
        return ""
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(time_s))


def at_capture_text(feed: TelemetryFeed) -> str:
    """The label under a snapshot's values: "at capture, 2026-11-27 02:31:05 UTC"."""
    when = capture_time_text(feed.captured_at_s if isinstance(feed, CaptureFeed) else None)
    return (translate("TelemetryPage", "at capture, {time}").format(time=when) if when else
            translate("TelemetryPage", "at capture"))


def capture_note(feed: TelemetryFeed) -> str:
    """What the page shows of a snapshot, and how to see more."""
    when = capture_time_text(feed.captured_at_s if isinstance(feed, CaptureFeed) else None)
    head = (translate("TelemetryPage", "A snapshot holds one reading of each metric, taken "
                      "at {time}.").format(time=when) if when else
            translate("TelemetryPage", "A snapshot holds one reading of each metric."))
    return head + " " + translate("TelemetryPage", "For charts over time, record with "
                                  "'gpuscope record' and open the recording.")


def capture_html(feed: TelemetryFeed, chart: TelemetryChart, devices: Iterable[FeedDevice],
                 reason_of: ReasonOf) -> str:
    """A chart's devices, each with its value as captured (large) or why there is none,
    then, under values, the "at capture" label."""
    info = chart.info
    unit = html.escape(core_text(info.unit)) if info.unit else ""
    muted = MUTED_COLOR.name()
    shown = {d.key: d for d in devices}
    rows: list[str] = []
    captured = False
    for member in chart.devices:
        device = shown.get(member.key, member)
        name = (f"<span style='color:{chart.color_of(device).name()}'>■</span>&nbsp;"
                f"{html.escape(device_short_label(device))}")
        series = series_name(device.key, chart.chart_metric)
        reading = feed.latest(series)
        value = reading.value if reading is not None else None
        if value is None or not math.isfinite(value):
            reason = reason_of(feed, series)
            note = (translate("TelemetryPage", "not available: {reason}").format(reason=reason)
                    if reason else translate("TelemetryPage", "not captured"))
            rows.append(f"<tr><td>{name}</td><td colspan='2' style='color:{muted}'>"
                        f"{html.escape(note)}</td></tr>")
            continue
        captured = True
        shown_value = value * info.display_scale
        warn = chart.warn_at is not None and shown_value >= chart.warn_at
        color = f"color:{ERROR_COLOR.name()};" if warn else ""
        font: QFont = chart.font()  # the value is drawn larger than the page's text
        size = font.pointSizeF() * VALUE_SIZE
        rows.append(f"<tr><td style='vertical-align:middle'>{name}&nbsp;&nbsp;</td>"
                    f"<td align='right' style='vertical-align:middle'>"
                    f"<span style='font-size:{size:.1f}pt;font-weight:bold;{color}'>"
                    f"{html.escape(format_value(shown_value))}</span></td>"
                    f"<td style='vertical-align:middle'>&nbsp;{unit}</td></tr>")
    when = (f"<div style='color:{muted}'>{html.escape(at_capture_text(feed))}</div>"
            if captured else "")
    return f"<table cellspacing='0' cellpadding='2'>{''.join(rows)}</table>{when}"


def update_captures(feed: TelemetryFeed, charts: Iterable[TelemetryChart],
                    devices: Sequence[FeedDevice], reason_of: ReasonOf) -> None:
    for chart in charts:
        chart.show_capture(capture_html(feed, chart, devices, reason_of))
