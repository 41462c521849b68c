"""Numbers, times and durations as the report and the Compare table write them: one module for
the formatting of the report layer (English, no Qt; the UI translates the words around them)."""

from __future__ import annotations

import datetime as _dt
import math

# A figure nobody knows, in a table cell.
MISSING = "—"
_GIB = 1 << 30


# (the least magnitude, the format) of a measured value, largest first; smaller: 3 digits.
_NUMBER_FORMATS: tuple[tuple[float, str], ...] = ((100.0, ",.0f"), (10.0, ".1f"), (1.0, ".2f"))


def format_number(value: float) -> str:
    """A measured value with as many digits as its size deserves: 1,234 · 73.4 · 5.27 · 0.0123."""
    magnitude = abs(value)
    spec = next((spec for least, spec in _NUMBER_FORMATS if magnitude >= least), ".3g")
    return format(value, spec)


def format_figure(value: float) -> str:
    """A datasheet figure without trailing zeros: 1,008 · 165.2 · 24 · 82.6 · 8.9 · 0.5."""
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.0f}"
    if magnitude < 10:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.1f}".removesuffix(".0")


def format_dollars(value_usd: float) -> str:
    """"$7.47" under a hundred dollars, "$1,234" from there."""
    return f"${value_usd:,.2f}" if value_usd < 100 else f"${value_usd:,.0f}"


def format_gb(size_bytes: int) -> str:
    """A size in GiB as cards are sold ("a 24 GB card"): "7.4 GB", "134 GB"."""
    value = size_bytes / _GIB
    return f"{value:.1f} GB" if value < 100 else f"{value:.0f} GB"


def format_percent(value: float) -> str:
    return f"{value:.1f}%" if abs(value) < 10 else f"{value:.0f}%"


def format_stat(value: float, unit: str) -> str:
    """A telemetry statistic in its shown unit: "73%", "2,480 MHz", "1.5 GiB"."""
    text = format_number(value) if unit not in ("%", "°C", "W", "MHz") else f"{value:.0f}"
    return f"{text} {unit}".strip() if unit != "%" else f"{text}%"


def format_unix(unix_s: float | None) -> str:
    if unix_s is None or not math.isfinite(unix_s):
        return "unknown time"
    try:
        moment = _dt.datetime.fromtimestamp(unix_s, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return "unknown time"
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def format_utc(text: str) -> str:
    try:
        moment = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return text.strip()
    if moment.tzinfo is not None:
        return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def format_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "unknown duration"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
