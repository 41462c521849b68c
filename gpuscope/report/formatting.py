"""Numbers, times and durations as the report and the Compare table write them: one module for
the formatting of the report layer (English, no Qt; the UI translates the words around them)."""

from __future__ import annotations

import datetime as _dt
import math

from gpuscope.i18n import message

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


# One format per unit, for every unit the metric catalogue (gpuscope.metrics) shows: a column
# of readings never mixes "3.00" with "67.3".
UNIT_FORMATS: dict[str, str] = {
    "%": ".0f", "°C": ".0f", "W": ".0f", "MHz": ",.0f", "RPM": ",.0f", "GiB": ".1f",
    "MB/s": ",.0f", "lanes": ".0f", "": ".0f",
}


def format_percent(value: float) -> str:
    """A percentage, the same way everywhere in the report (utilization, share of a datasheet
    peak): whole numbers; a share above zero that would round to 0 is "<1%"."""
    if 0 < value < 0.5:
        return "<1%"
    return f"{math.floor(value + 0.5) or 0}%"  # half up: 6.5 -> 7, as people round


def format_stat(value: float, unit: str) -> str:
    """A reading in its shown unit, in that unit's one format: "73%", "2,480 MHz", "1.5 GiB"."""
    if unit == "%":
        return format_percent(value)
    spec = UNIT_FORMATS.get(unit)
    text = format(value, spec) if spec is not None else format_number(value)
    return f"{text} {unit}".strip()


def format_unix(unix_s: float | None) -> str:
    if unix_s is None or not math.isfinite(unix_s):
        return message("unknown time")
    try:
        moment = _dt.datetime.fromtimestamp(unix_s, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return message("unknown time")
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
        return message("unknown duration")
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
