"""The Telemetry page's time axis.

Charts plot seconds relative to an origin (the frame's "now" while following live, a fixed
time while browsing), never raw unix times, so that coordinates stay small. `TimeAxis`
labels them "−5 min … now" while following live, and as clock times ("10:42:30"), on ticks
aligned to the clock, everywhere else. The range on show (`TimeRange`, `clamp_range`) is
Qt-free, in `gpuscope.telemetry.frame`.
"""

from __future__ import annotations

import math
import time

import pyqtgraph as pg
from PySide6.QtCore import QRectF

from gpuscope.ui.i18n import translate

# Axis tick spacing (major, minor) in seconds for each preset window, while following live.
RELATIVE_TICKS_S: dict[int, tuple[float, float]] = {
    60: (10, 5), 300: (60, 30), 900: (180, 60), 3600: (600, 300),
}
# Clock tick spacings (seconds) and the minor spacing that goes with each.
_CLOCK_STEPS: tuple[tuple[float, float], ...] = (
    (1, 0.5), (2, 1), (5, 1), (10, 5), (15, 5), (30, 10), (60, 30), (120, 60), (300, 60),
    (600, 300), (900, 300), (1800, 600), (3600, 1800), (7200, 3600), (10800, 3600),
    (21600, 7200), (43200, 21600), (86400, 43200), (172800, 86400), (604800, 86400),
)
MIN_LABEL_SPACING_PX = 70.0


def clock_spacing(span_s: float, pixels: float) -> tuple[float, float]:
    """(major, minor) tick spacing in seconds: the smallest clock step that leaves at least
    MIN_LABEL_SPACING_PX between labels over `span_s` drawn `pixels` wide."""
    wanted = span_s * MIN_LABEL_SPACING_PX / max(pixels, 1.0)
    for major, minor in _CLOCK_STEPS:
        if major >= wanted:
            return major, minor
    days = math.ceil(wanted / 86400.0)
    return days * 86400.0, 86400.0


def utc_offset_s(time_s: float) -> float:
    """Seconds east of UTC of the local time zone at `time_s` (clock ticks align to local
    minutes, hours and midnights)."""
    return float(time.localtime(time_s).tm_gmtoff)


def clock_resolution_s(spacing_s: float) -> float:
    """What `clock_text` shows of a time on ticks `spacing_s` apart: seconds, minutes or
    days."""
    return 1.0 if spacing_s < 60 else 60.0 if spacing_s < 86400 else 86400.0


def clock_labels(times_s: list[float], spacing_s: float, span_s: float = 0.0) -> list[str]:
    """The labels of ticks at `times_s` (unix seconds), `spacing_s` apart, on an axis
    `span_s` wide, such that no two ticks read the same: a tick between two clock steps of
    its label (half seconds) gets none, and times of day on an axis a day or more wide say
    their day too."""
    resolution = clock_resolution_s(spacing_s)
    with_day = resolution < 86400 and span_s >= 86400 - 1
    labels = []
    for time_s in times_s:
        local = (time_s + utc_offset_s(time_s)) / resolution
        exact = abs(local - round(local)) * resolution < 1e-3
        text = clock_text(time_s, spacing_s) if exact else ""
        if text and with_day:
            text = clock_text(time_s, 86400) + " " + text
        labels.append(text)
    return labels


def clock_text(time_s: float, spacing_s: float) -> str:
    if spacing_s < 60:
        return time.strftime("%H:%M:%S", time.localtime(time_s))
    if spacing_s < 86400:
        return time.strftime("%H:%M", time.localtime(time_s))
    # A strftime format: the order of day and month is the language's.
    return time.strftime(translate("TimeAxis", "%d %b"), time.localtime(time_s))


class TimeAxis(pg.AxisItem):  # type: ignore[misc]
    """The x axis of every telemetry chart: seconds relative to `origin_s`."""

    def __init__(self) -> None:
        super().__init__(orientation="bottom")
        self.window_s = 300
        self.clock = False
        self.origin_s = 0.0
        self.span_s = 0.0  # the width of the axis last laid out, in seconds

    def set_window(self, seconds: int) -> None:
        """Label ticks relative to "now" (following live), spaced for a window of
        `seconds`."""
        self.window_s = seconds
        if self.clock:
            self.prepareGeometryChange()
        self.clock = False
        major, minor = RELATIVE_TICKS_S.get(seconds) or clock_spacing(seconds, 450.0)
        self.setTickSpacing(major, minor)
        # Keep "now" at the right end even where it would overlap the axis' end.
        self.setStyle(hideOverlappingLabels=False)

    def set_clock(self, origin_s: float) -> None:
        """Label ticks with clock times, x being seconds after `origin_s`."""
        if self.clock and self.origin_s == origin_s:
            return
        self.prepareGeometryChange()  # the bounding rect depends on the mode
        self.clock = True
        self.origin_s = origin_s
        self.setTickSpacing()  # automatic again: `tickSpacing` below decides
        # Clock ticks fall anywhere: drop a label the plot's edge would cut.
        self.setStyle(hideOverlappingLabels=True)
        self.picture = None
        self.update()

    def boundingRect(self) -> QRectF:
        rect: QRectF = super().boundingRect()
        if self.clock:
            return rect  # labels past the ends would be cut: they are dropped
        # Room for the labels centred on the two ends ("−5 min", "now"); with a grid,
        # pyqtgraph's own rect has none and drops them.
        return rect.adjusted(-30, 0, 30, 0)

    def tickSpacing(self, minVal: float, maxVal: float,
                    size: float) -> list[tuple[float, float]]:
        if not self.clock:
            levels: list[tuple[float, float]] = super().tickSpacing(minVal, maxVal, size)
            return levels
        self.span_s = maxVal - minVal
        major, minor = clock_spacing(maxVal - minVal, size)
        zone = utc_offset_s(self.origin_s + minVal)
        # Offsets that put ticks on whole clock steps of local time.
        return [(major, (-(self.origin_s + zone)) % major),
                (minor, (-(self.origin_s + zone)) % minor)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        if self.clock:
            return clock_labels([self.origin_s + value for value in values], spacing,
                                self.span_s)
        strings = []
        for value in values:
            ago = -value
            if abs(ago) < 1e-6:
                strings.append(self.tr("now"))
            elif self.window_s >= 300 or spacing % 60 == 0:
                strings.append("−" + self.tr("{minutes} min").format(minutes=f"{ago / 60:g}"))
            else:
                strings.append("−" + self.tr("{seconds} s").format(seconds=f"{ago:g}"))
        return strings
