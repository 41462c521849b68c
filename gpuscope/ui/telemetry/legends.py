"""The Telemetry page's texts, from the frame model: each chart's table of now/min/avg/max per
device (or why a device has none), its y range, the process table, and the note on what the
view shows. Texts change at most once a second, and only when they differ."""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence

from PySide6.QtGui import QColor

from gpuscope.metrics import Metric, ProcessSnapshot, series_name
from gpuscope.telemetry.feed import FeedDevice, ProcessFeed, TelemetryFeed
from gpuscope.telemetry.frame import FrameModel
from gpuscope.ui.i18n import core_text, translate
from gpuscope.ui.telemetry.chart import (
    LegendRow,
    TelemetryChart,
    format_ago,
    format_value,
    nice_ceiling,
)
from gpuscope.ui.telemetry.processes import ProcessRow, ProcessTable, process_rows
from gpuscope.ui.telemetry.texts import device_label, device_short_label
from gpuscope.ui.theme import MUTED_COLOR, gpu_color

# Shown as the top of another chart's y range, not as charts of their own.
REFERENCE_TOPS: dict[Metric, Metric] = {
    Metric.VRAM_USED_BYTES: Metric.VRAM_TOTAL_BYTES, Metric.POWER_W: Metric.POWER_CAP_W,
}
# Why a series is missing now, or at the end of the range on show.
ReasonOf = Callable[[TelemetryFeed, str], str | None]


def span_text(seconds: float) -> str:
    """"45 s", "5 min", "2 h 13 min", "3 d 4 h"."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return translate("TelemetryPage", "{seconds} s").format(seconds=f"{seconds:.0f}")
    minutes = round(seconds / 60)
    if minutes < 120:
        return translate("TelemetryPage", "{minutes} min").format(minutes=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return (translate("TelemetryPage", "{hours} h {minutes} min").format(
            hours=hours, minutes=minutes) if minutes
            else translate("TelemetryPage", "{hours} h").format(hours=hours))
    days, hours = divmod(hours, 24)
    return (translate("TelemetryPage", "{days} d {hours} h").format(days=days, hours=hours)
            if hours else translate("TelemetryPage", "{days} d").format(days=days))


def clock_text(time_s: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(time_s))


def update_legend(model: FrameModel, feed: TelemetryFeed, chart: TelemetryChart,
                  reason_of: ReasonOf) -> None:
    """A chart's table of now/min/avg/max per device, or the note that replaces a device's
    numbers (lost, not available, no samples); the plot replaced by why no device has data."""
    devices = {d.key: d for d in model.devices}
    following = model.time.following
    rows: list[LegendRow] = []
    reasons: list[str] = []
    any_data = False
    for member in chart.devices:
        device = devices.get(member.key, member)
        stats = model.stats_of(device.key, chart.chart_metric)
        color = chart.color_of(device).name()
        name = device_short_label(device)
        label = device_label(device)
        if stats.current is not None:
            any_data = True
        if device.lost_reason:
            note = translate("TelemetryPage", "lost: {reason}").format(
                reason=device.lost_reason)
            rows.append(LegendRow(color, name, note=note, note_is_error=True,
                                  tooltip=f"{label}: {note}"))
            continue
        if stats.current is None:
            reason = reason_of(feed, series_name(device.key, chart.chart_metric))
            if reason:
                reasons.append(reason)
            note = (translate("TelemetryPage", "not available: {reason}").format(
                        reason=reason) if reason else
                    translate("TelemetryPage", "no samples in this window") if following else
                    translate("TelemetryPage", "no samples in this range"))
            rows.append(LegendRow(color, name, note=note, tooltip=f"{label}: {note}"))
            continue
        above = chart.warn_at is not None and stats.current >= chart.warn_at
        cells = (format_value(stats.current), format_value(stats.minimum),
                 format_value(stats.mean), format_value(stats.maximum))
        tip = label
        if above:
            tip += ": " + translate("TelemetryPage",
                                    "at or above the warning level ({level})").format(
                level=f"{chart.warn_at:g} {core_text(chart.info.unit)}")
        rows.append(LegendRow(color, name, cells, warning=above, tooltip=tip))
    chart.set_legend(rows)
    if any_data:
        chart.show_message("")
    elif reasons:
        chart.show_message(translate("TelemetryPage", "not available: {reason}").format(
            reason="; ".join(dict.fromkeys(reasons))))
    else:
        chart.show_message(translate("TelemetryPage", "waiting for samples") if following
                           else translate("TelemetryPage", "no samples in this range"))


def warning_keys(model: FrameModel, chart: TelemetryChart) -> frozenset[str]:
    """The devices whose "now" is at or above the chart's warning level."""
    if chart.warn_at is None:
        return frozenset()
    return frozenset(d.key for d in chart.devices
                     if not d.lost_reason
                     and (now := model.stats_of(d.key, chart.chart_metric).current) is not None
                     and now >= chart.warn_at)


def initial_y_range(chart: TelemetryChart) -> None:
    info = chart.info
    low = (info.minimum or 0.0) * info.display_scale
    high = (info.maximum * info.display_scale if info.maximum is not None else low + 1.0)
    chart.set_y_range(low, high)


def apply_y_range(model: FrameModel, feed: TelemetryFeed, chart: TelemetryChart) -> None:
    """The y range from the catalogue, widened to the data (and to the VRAM total or the
    power cap): set only when it changes, so the axis is not re-laid out per frame."""
    info = chart.info
    scale = info.display_scale
    stats = [model.stats_of(d.key, chart.chart_metric) for d in chart.devices]
    maxima = [s.maximum for s in stats if s.maximum is not None]
    minima = [s.minimum for s in stats if s.minimum is not None]
    reference = REFERENCE_TOPS.get(chart.chart_metric)
    if reference is not None:
        for device in chart.devices:
            reading = feed.latest(series_name(device.key, reference))
            if reading is not None and reading.value is not None:
                maxima.append(reading.value * scale)
    if info.minimum is not None:
        low = info.minimum * scale
    elif minima:
        low = -nice_ceiling(-min(minima) * 1.05) if min(minima) < 0 else 0.0
    else:
        low = 0.0
    top = max(maxima) if maxima else None
    if info.maximum is not None:
        high = info.maximum * scale
        if top is not None and top > high:
            high = nice_ceiling(top * 1.05)
    else:
        # At least one shown unit tall: a flat 0 RPM fan gets 0–1.2, not 0–1e-9.
        high = nice_ceiling(max((top or 0.0) * 1.05, low + 1.0))
    chart.set_y_range(low, max(high, low + 1e-9))


def update_processes(table: ProcessTable, feed: TelemetryFeed,
                     devices: Sequence[FeedDevice]) -> None:
    """The process table: per GPU its processes, or why they are not known; hidden for a
    feed that never had any."""
    gpus = [d for d in devices if d.gpu_index is not None]
    if not gpus or not isinstance(feed, ProcessFeed):
        table.setVisible(False)
        return
    entries: list[tuple[FeedDevice, QColor, ProcessSnapshot | None]] = [
        (d, gpu_color(d.gpu_index or 0), feed.processes(d.key)) for d in gpus]
    if not feed.live and all(snapshot is None for _, _, snapshot in entries):
        table.setVisible(False)
        return
    rows = process_rows(entries, translate("TelemetryPage",
                                           "waiting for the first process list"))
    notes = {(row.note, row.note_is_error) for row in rows}
    if len(rows) > 1 and len(notes) == 1 and rows[0].note:
        # Every GPU says the same ("not stored in recordings"): say it once.
        first_row = rows[0]
        rows = (ProcessRow(translate("TelemetryPage", "All GPUs"), MUTED_COLOR.name(),
                           note=first_row.note, tooltip=first_row.note),)
    taken = [s.time_s for _, _, s in entries if s is not None and s.missing_reason is None]
    when = clock_text(max(taken)) if taken else None
    if feed.live:
        note = (translate("TelemetryPage", "Per-process VRAM, listed every few seconds off "
                          "the sampling path; last list at {time}").format(time=when) if when
                else translate("TelemetryPage", "Per-process VRAM, listed every few seconds "
                               "off the sampling path"))
    else:
        note = (translate("TelemetryPage", "Per-process VRAM as listed at {time}").format(
            time=when) if when else "")
    table.set_rows(rows, note)
    table.setVisible(True)


def view_note(model: FrameModel, feed: TelemetryFeed) -> str:
    """How to move the view, or what range it shows and that stats are over it."""
    view = model.time.view_range
    shown_s, chosen_s = model.time.frame_window, model.time.window_s
    if model.time.following and not model.time.fit_all and shown_s < chosen_s:
        # Narrowed to the data there is (`frame.fitted_window_s`): say why it is not the
        # window chosen.
        return (translate("TelemetryPage", "Showing the last {width}: the chart widens to "
                          "{window} as samples arrive.") if feed.live else
                translate("TelemetryPage", "Showing the last {width}, all there is of the "
                          "{window} chosen.")).format(width=span_text(shown_s),
                                                      window=span_text(chosen_s))
    if model.time.following or view is None:
        return (translate("TelemetryPage", "Wheel over a chart zooms, dragging pans; the "
                          "overview's box moves too.")
                if feed.live else
                translate("TelemetryPage", "Wheel over a chart zooms, dragging pans; drag "
                          "the overview's box to go anywhere."))
    extent = model.extent(model.time.frame_now or view.end_s)
    day = time.strftime("%Y-%m-%d", time.localtime(view.start_s))
    text = (translate("TelemetryPage", "Showing {day} {start} to {end} ({width} of {total}); "
                      "stats are over this range.") if extent else
            translate("TelemetryPage", "Showing {day} {start} to {end} ({width}); stats are "
                      "over this range.")).format(
        day=day, start=clock_text(view.start_s), end=clock_text(view.end_s),
        width=span_text(view.width_s),
        total=span_text(extent[1] - extent[0]) if extent else "")
    if feed.live:
        text += " " + translate("TelemetryPage", "Not following live: “Back to live” "
                                "follows the newest samples.")
    return text


def readout_values(model: FrameModel, chart: TelemetryChart, when: float,
                   tolerance: float) -> list[tuple[FeedDevice, float | None]]:
    """The hover readout: each device's sample of the chart's metric nearest `when`."""
    scale = chart.info.display_scale
    return [(device, model.value_at(device.key, series_name(device.key, chart.chart_metric),
                                    when, tolerance, scale))
            for device in chart.devices]


def when_text(when: float, frame_now: float | None) -> str:
    """"10:42:30 (−2:35)": a time, and how long before the frame's "now"."""
    ago = (frame_now or when) - when
    return f"{clock_text(when)} ({format_ago(ago)})"


def readout_html(model: FrameModel, chart: TelemetryChart, when: float, tolerance: float,
                 frame_now: float | None) -> str:
    """The crosshair readout as rich text: the time, then each device's value in its colour."""
    pieces = [html.escape(when_text(when, frame_now))]
    for device, value in readout_values(model, chart, when, tolerance):
        pieces.append(f"<span style='color:{chart.color_of(device).name()}'>■</span>&nbsp;"
                      f"{html.escape(device_short_label(device))}&nbsp;{format_value(value)}")
    unit = f" {html.escape(chart.info.unit)}" if chart.info.unit else ""
    return "&nbsp;&nbsp;".join(pieces) + unit
