"""The run history's LLM figures for the Compare page and the What-fits panel: this machine's
measured decode results, imported llama-bench results, and the measured decode's share of the
bandwidth ceiling. Qt-free; the window calls it off the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass

from gpuscope.bench.history import HistoryError, RunHistory
from gpuscope.bench.results import BenchRun
from gpuscope.report.llm_speed import (
    imported_observations,
    measured_decode_ratio,
    measured_observations,
)
from gpuscope.report.what_fits import LlmObservation

RECENT_RUNS = 20


@dataclass(frozen=True, slots=True)
class LlmHistory:
    observations: tuple[LlmObservation, ...] = ()
    decode_ratio: tuple[str, float] | None = None  # (the card's spec name, the ratio)
    problem: str | None = None  # why the history could not be read


def llm_history(history: RunHistory | None = None) -> LlmHistory:
    """What the history holds, newest first; a damaged history is a problem, not a crash."""
    history = history if history is not None else RunHistory()
    try:
        runs: list[BenchRun] = []
        for stored in history.list(limit=RECENT_RUNS):
            try:
                runs.append(history.load(stored.id))
            except HistoryError:
                continue
        imported = history.list_imported()
    except HistoryError as exc:
        return LlmHistory(problem=str(exc))
    return LlmHistory(imported_observations(s.item for s in imported)
                      + measured_observations(runs), measured_decode_ratio(runs))
