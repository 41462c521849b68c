"""The "What fits" panel's verdicts, without Qt: whether a language model fits a card's VRAM
(fits, tight, does not fit) and the cell's short text. The estimate is
`gpuscope.knowledge.model_fit`; the panel that lays it out is `gpuscope.ui.compare.what_fits`."""

from __future__ import annotations

import functools

from gpuscope.knowledge.model_fit import FitResult, FitRow, fit_table
from gpuscope.report.formatting import format_gb

# Fits, but with less than this share of the VRAM to spare: the desktop, a second program or
# a longer prompt can tip it over.
TIGHT_FRACTION = 0.10
FITS_MARK, TIGHT_MARK, NO_MARK = "✓", "!", "✗"


class FitState:
    FITS = "fits"
    TIGHT = "tight"
    NO = "does not fit"


def fit_state(result: FitResult) -> str:
    if not result.fits:
        return FitState.NO
    if result.headroom_bytes < TIGHT_FRACTION * result.vram_bytes:
        return FitState.TIGHT
    return FitState.FITS


@functools.lru_cache(maxsize=64)
def cached_fit_table(vram_bytes: int, context_tokens: int) -> tuple[FitRow, ...]:
    """`fit_table` for one VRAM size and context; the page asks again on every repaint."""
    return fit_table(vram_bytes, context_tokens)


def cell_text(result: FitResult) -> str:
    """"✓ 15.0 GB": the verdict's mark and what the model needs."""
    state = fit_state(result)
    mark = {FitState.FITS: FITS_MARK, FitState.TIGHT: TIGHT_MARK}.get(state, NO_MARK)
    return f"{mark} {format_gb(result.needed_bytes)}"
