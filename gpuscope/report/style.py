"""Colours of the share report, one set for HTML, SVG and the PNG (ui/report_png.py), chosen
for at least 4.5:1 contrast of text on white (WCAG AA) so that a scaled-down image stays
readable."""

from __future__ import annotations

from collections.abc import Mapping

TEXT = "#1d1f23"
MUTED = "#5c6370"  # 6.1:1 on white
BORDER = "#d5d9e0"
PANEL = "#f4f6f9"
PAGE = "#ffffff"
OK = "#1e7b34"  # 5.5:1
WARNING = "#a35a00"  # 5.0:1
ERROR = "#c0262d"  # 5.9:1
INFO = "#1f5fb8"  # 6.1:1
UNKNOWN = "#5c6370"
NOT_APPLICABLE = "#7b8290"
CODE_BACKGROUND = "#eef1f5"
ACCENT = "#2b4a8b"

ORIGIN_BACKGROUNDS: Mapping[str, str] = {
    "live": "#e3f4e8", "replay": "#ffc857", "imported": "#9cc8ff", "unknown": "#ffc857",
}
ORIGIN_TEXT = "#1f1f1f"

LAYER_COLORS: Mapping[str, str] = {
    "ok": OK, "warning": WARNING, "blocked": ERROR, "unknown": UNKNOWN,
    "not_applicable": NOT_APPLICABLE,
}
SEVERITY_COLORS: Mapping[str, str] = {"error": ERROR, "warning": WARNING, "info": INFO,
                                      "ok": OK}
VERDICT_COLORS: Mapping[str, str] = {
    "normal": OK, "low": WARNING, "high": INFO, "unknown": UNKNOWN, "unsupported": UNKNOWN,
    "failed": ERROR,
}
# Published range behind a bar, and the bar itself when there is no verdict colour.
BAND = "#cfe3d4"
BAR = ACCENT
# Sparkline colour per device position (the host last, in grey).
SERIES_COLORS: tuple[str, ...] = ("#1f5fb8", "#c0262d", "#1e7b34", "#8a3ffc", "#a35a00",
                                  "#007d79")
HOST_SERIES = "#5c6370"


def series_color(position: int, host: bool = False) -> str:
    return HOST_SERIES if host else SERIES_COLORS[position % len(SERIES_COLORS)]
