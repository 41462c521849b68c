"""The report's telemetry summary: min/avg/max and a sparkline of the strip's metrics per GPU
and for the host, over a recording or the live ring buffers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuscope.i18n import Message, localise, pgettext
from gpuscope.metrics import CATALOGUE, HOST_DEVICE, Metric
from gpuscope.report.view_model import DeviceTelemetry, MetricStats, TelemetrySummary
from gpuscope.telemetry.texts import LabelText
from gpuscope.telemetry.window_stats import window_stats

# Points of a sparkline: enough for a shape, few enough for a small report.
SPARK_POINTS = 60
# What the telemetry strip shows, in this order: clocks, power, temperature, utilization.
STRIP_METRICS: tuple[Metric, ...] = (
    Metric.GPU_UTIL_PERCENT, Metric.SCLK_MHZ, Metric.MCLK_MHZ, Metric.POWER_W,
    Metric.TEMP_EDGE_C, Metric.TEMP_JUNCTION_C, Metric.TEMP_MEMORY_C, Metric.VRAM_USED_BYTES,
    Metric.HOST_CPU_PERCENT, Metric.HOST_RAM_USED_BYTES,
)


class FeedLabel(Message):
    """A telemetry feed's label as the report's source: its English (what the JSON keeps),
    shown in the language chosen from the feed's `LabelText`, whose texts are listed in the
    window's "TelemetryFeed" context."""

    label: LabelText


def feed_label(label: LabelText, english: str | None = None) -> str:
    """The report's name of a feed labelled `label` (`english`: its report_label, when the
    feed was given one of its own, shown as it is)."""
    text = label.english()
    if english is not None and english != text:
        return english
    made = FeedLabel(text, {})
    made.label = label
    return made


def _catalogue(context: str, text: str) -> str:
    return pgettext(context or None, text) or text


def shown(text: str) -> str:
    """A text of the telemetry strip (its source, a device or metric label) in the language
    chosen."""
    if isinstance(text, FeedLabel):
        return text.label.render(_catalogue)
    return localise(text)


@dataclass(frozen=True, slots=True)
class DeviceSeries:
    """The input of `summarise_telemetry`: one device's samples in stored units (bytes, MHz,
    W, °C, %), NaN where a sample is missing."""

    key: str
    label: str
    times_s: Sequence[float]
    values: Mapping[str, Sequence[float]]  # metric id -> one value per time


@dataclass(frozen=True, slots=True)
class ReducedMetric:
    """One metric already reduced over the whole span, in stored units: what a long
    recording's stored summaries give without reading its samples."""

    minimum: float
    mean: float
    maximum: float
    samples: int
    spark: tuple[float | None, ...]  # SPARK_POINTS means over equal spans of time


@dataclass(frozen=True, slots=True)
class DeviceReduced:
    """The other input of `summarise_telemetry`: one device's metrics reduced already."""

    key: str
    label: str
    span_s: tuple[float, float] | None
    metrics: Mapping[str, ReducedMetric]  # metric id -> its reduction


def _bucket_means(values: np.ndarray[Any, Any], points: int) -> tuple[float | None, ...]:
    if len(values) == 0:
        return ()
    chunks = np.array_split(values, min(points, len(values)))
    out: list[float | None] = []
    for chunk in chunks:
        finite = chunk[np.isfinite(chunk)]
        out.append(round(float(finite.mean()), 3) if len(finite) else None)
    return tuple(out)


def _reduced_stats(device: DeviceReduced) -> list[MetricStats]:
    out: list[MetricStats] = []
    for metric in STRIP_METRICS:
        reduced = device.metrics.get(metric.value)
        if reduced is None or reduced.samples == 0:
            continue
        info = CATALOGUE[metric]
        scale = info.display_scale
        out.append(MetricStats(
            metric=metric.value, label=info.label, unit=info.unit,
            min=round(reduced.minimum * scale, 3), avg=round(reduced.mean * scale, 3),
            max=round(reduced.maximum * scale, 3), samples=reduced.samples,
            spark=tuple(None if v is None else round(v * scale, 3) for v in reduced.spark)))
    return out


def summarise_telemetry(devices: Sequence[DeviceSeries | DeviceReduced], *, source: str,
                        live: bool, at_capture: bool = False,
                        captured_at_s: float | None = None) -> TelemetrySummary | None:
    """Min/avg/max and a sparkline of the strip's metrics of each device, in the shown units;
    None when no device has a single value of them. `at_capture`: the devices hold a replayed
    snapshot's single readings, taken at `captured_at_s` (None: not recorded), whatever the
    times of their rows say: no sparkline, no duration."""
    summaries: list[DeviceTelemetry] = []
    starts: list[float] = []
    ends: list[float] = []
    for device in devices:
        if isinstance(device, DeviceReduced):
            reduced = _reduced_stats(device)
            if reduced:
                if device.span_s is not None:
                    starts.append(device.span_s[0])
                    ends.append(device.span_s[1])
                summaries.append(DeviceTelemetry(device.key, device.label, tuple(reduced)))
            continue
        metrics: list[MetricStats] = []
        for metric in STRIP_METRICS:
            raw = device.values.get(metric.value)
            if raw is None:
                continue
            info = CATALOGUE[metric]
            values = np.asarray(raw, dtype=float) * info.display_scale
            values[~np.isfinite(values)] = np.nan
            (stats,) = window_stats(np.arange(values.size, dtype=float), values[np.newaxis, :])
            if stats.minimum is None or stats.mean is None or stats.maximum is None:
                continue
            metrics.append(MetricStats(
                metric=metric.value, label=info.label, unit=info.unit,
                min=round(stats.minimum, 3), avg=round(stats.mean, 3),
                max=round(stats.maximum, 3), samples=int(np.count_nonzero(~np.isnan(values))),
                spark=() if at_capture else _bucket_means(values, SPARK_POINTS)))
        if not metrics:
            continue
        times = np.asarray(device.times_s, dtype=float)
        times = times[np.isfinite(times)]
        if len(times):
            starts.append(float(times.min()))
            ends.append(float(times.max()))
        summaries.append(DeviceTelemetry(device.key, device.label, tuple(metrics)))
    if not summaries:
        return None
    # GPUs first, the host last
    summaries.sort(key=lambda d: d.key == HOST_DEVICE)
    if at_capture:
        return TelemetrySummary(source=source, live=False, started_unix_s=captured_at_s,
                                duration_s=None, devices=tuple(summaries), at_capture=True)
    started = min(starts) if starts else None
    duration = max(ends) - started if starts and started is not None else None
    return TelemetrySummary(source=source, live=live, started_unix_s=started,
                            duration_s=duration, devices=tuple(summaries))
