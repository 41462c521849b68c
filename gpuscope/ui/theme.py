"""Colours shared by every page: one colour per GPU, and a few semantic colours.

The GPU palette is of mid lightness and high saturation so that it reads on a light and on a
dark window background alike; charts, cards and the report all take a GPU's colour from here,
so the same GPU has the same colour everywhere.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from gpuscope.model import ProbeState

# Ordered so that neighbours differ in hue and lightness (GPU 0 and GPU 1 never look alike).
_GPU_PALETTE: tuple[str, ...] = (
    "#4c8df6",  # blue
    "#f28e2b",  # orange
    "#25a99a",  # teal
    "#d65db1",  # magenta
    "#9b7bea",  # violet
    "#c9a227",  # ochre
    "#e8575a",  # red
    "#5fa84f",  # green
)

OK_COLOR = QColor("#2e9e4f")
MUTED_COLOR = QColor("#8c8c8c")
WARN_COLOR = QColor("#c77700")
ERROR_COLOR = QColor("#d64545")
# The replay banner sets both colours itself, so it reads the same in a dark theme.
BANNER_BACKGROUND = QColor("#ffc857")
BANNER_TEXT = QColor("#1f1f1f")


def gpu_color(index: int) -> QColor:
    """The colour of GPU `index`; past the palette, the palette again, lighter or darker."""
    base = QColor(_GPU_PALETTE[index % len(_GPU_PALETTE)])
    lap = index // len(_GPU_PALETTE)
    if lap == 0:
        return base
    return base.lighter(100 + 25 * lap) if lap % 2 else base.darker(100 + 20 * lap)


def state_color(state: ProbeState | None) -> QColor:
    """The colour of a probe state; `None` is a probe still running."""
    if state is None:
        return MUTED_COLOR
    if state is ProbeState.OK:
        return OK_COLOR
    if state in (ProbeState.TIMEOUT, ProbeState.ERROR):
        return ERROR_COLOR
    if state in (ProbeState.NOT_APPLICABLE, ProbeState.NOT_CAPTURED):
        return MUTED_COLOR
    return WARN_COLOR
