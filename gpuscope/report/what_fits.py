"""The "What fits" panel's verdicts, without Qt: whether a language model fits a card's VRAM
(fits, tight, does not fit) and the cell's short text, and the decode tokens/s to expect, each
figure labelled measured, imported, published or estimated (`speed_cell`). The estimate is
`gpuscope.knowledge.model_fit`; the panel that lays it out is `gpuscope.ui.compare.what_fits`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.i18n import N_, localise, message
from gpuscope.knowledge.llm_reference import (
    estimate_decode_tokens_per_s,
    published_decode,
    row_context_tokens,
)
from gpuscope.knowledge.model_fit import FitResult, FitRow, ModelShape, Precision, fit_table
from gpuscope.knowledge.specs import GpuSpec
from gpuscope.report.formatting import MISSING, format_gb

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


# ----------------------------------------------------------------------------- tokens per second

# What a tokens/s figure rests on; every figure shown carries one of these words.
SPEED_MEASURED = N_("measured")  # this machine's LLM benchmark
SPEED_IMPORTED = N_("imported")  # a llama-bench result the user imported
SPEED_PUBLISHED = N_("published")  # a row of resources/llm_reference.toml
SPEED_ESTIMATED = N_("estimated")  # bandwidth x ratio / bytes per token
SPEED_LABELS = (SPEED_MEASURED, SPEED_IMPORTED, SPEED_PUBLISHED, SPEED_ESTIMATED)
# A published decode figure stands for the asked context when it was measured within this many
# tokens of it (tg128 after no prompt stands for up to 4k); further off, the estimate (which
# counts the KV cache read per token) says more than the figure does.
PUBLISHED_CONTEXT_LIMIT_TOKENS = 4096


@dataclass(frozen=True, slots=True)
class LlmObservation:
    """A decode tokens/s this machine measured or the user imported, for one card, model and
    precision (the hook through which run-history results reach the panel and the table)."""

    kind: str  # SPEED_MEASURED or SPEED_IMPORTED
    card: str  # the spec table's name
    model: str  # a model_shapes.toml name
    precision: Precision
    tokens_per_s: float
    source: str  # "run 12, 2026-11-27", the imported file


@dataclass(frozen=True, slots=True)
class SpeedCell:
    """Expected decode tokens/s of one model on one card, and what it rests on."""

    tokens_per_s: float | None
    label: str  # one of SPEED_LABELS (English; translate on display); "" when unknown
    lines: tuple[str, ...]  # the figure, its basis, its sources (messages: localise to show)
    source_url: str | None = None  # a published row's page

    @property
    def tooltip(self) -> str:
        """The lines in the language chosen."""
        return "\n".join(localise(line) for line in self.lines)

    def text(self, label_word: str | None = None) -> str:
        """"118 t/s · estimated"; the label as given (translated) or the English one."""
        if self.tokens_per_s is None:
            return MISSING
        return f"{self.tokens_per_s:.0f} t/s · {label_word or self.label}"


def speed_cell(spec: GpuSpec | None, model: ModelShape, precision: Precision,
               context_tokens: int, *, bandwidth_gb_s: float | None = None,
               measured_ratio: float | None = None,
               observations: Sequence[LlmObservation] = ()) -> SpeedCell:
    """The decode figure a cell shows, first found of: a measured or imported result for this
    card, model and precision; a published one measured within PUBLISHED_CONTEXT_LIMIT_TOKENS
    of the asked context; the estimate (`llm_reference.estimate_decode_tokens_per_s`), with
    its basis."""
    name = spec.name if spec is not None else None
    for kind in (SPEED_MEASURED, SPEED_IMPORTED):
        for seen in observations:
            if seen.kind == kind and seen.card == name and seen.model == model.name and \
                    seen.precision is precision and seen.tokens_per_s > 0:
                return SpeedCell(seen.tokens_per_s, kind, (message(
                    "{value} tokens/s decode, {kind} ({source})",
                    value=f"{seen.tokens_per_s:.1f}", kind=message(kind), source=seen.source),))
    published = published_decode(spec, model, precision) if spec is not None else ()
    # The row measured nearest the asked context (tg64@d4096 for 4k, tg128 for 2k); the
    # fastest of equally near ones.
    near = sorted(published, key=lambda r: (abs(row_context_tokens(r.test) - context_tokens),
                                            -r.tokens_per_s))
    if near and abs(row_context_tokens(near[0].test) - context_tokens) <= \
            PUBLISHED_CONTEXT_LIMIT_TOKENS:
        best = near[0]
        lines = [message("Published decode: {row}", row=r.describe()) for r in published]
        if best.note:
            lines.append(best.note)
        return SpeedCell(best.tokens_per_s, SPEED_PUBLISHED, tuple(lines), best.source)
    card: GpuSpec | float | None = spec if spec is not None else bandwidth_gb_s
    estimate = (estimate_decode_tokens_per_s(card, model, precision, context_tokens,
                                             measured_ratio)
                if card is not None else None)
    if estimate is None:
        return SpeedCell(None, "", (message("No tokens/s estimate: the memory bandwidth of "
                                            "this card is not known."),))
    lines = [message("Estimated decode after {tokens} tokens of context: {value} tokens/s",
                     tokens=context_tokens, value=f"{estimate.tokens_per_s:.0f}"),
             estimate.explain()]
    lines += [message("Published decode: {row}", row=r.describe()) for r in published]
    lines += [message("Ratio from: {row}", row=r.describe()) for r in estimate.references]
    return SpeedCell(estimate.tokens_per_s, SPEED_ESTIMATED, tuple(lines))


# The label as a cell shows it, short enough for the narrow What-fits columns; the legend and
# the tooltip say it in full.
SHORT_SPEED_LABELS = {SPEED_MEASURED: N_("meas."), SPEED_IMPORTED: N_("imp."),
                      SPEED_PUBLISHED: N_("pub."), SPEED_ESTIMATED: N_("est.")}
