"""The Compare page's tokens/s: the What-fits cells and the LLM rows say whether each figure is
measured, imported, published or estimated (issue #13, item 5)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuscope.bench.import_command import read_import
from gpuscope.bench.imported import imported_to_json
from gpuscope.knowledge.model_fit import Precision
from gpuscope.report.compare_import import IMPORTED_LLM_KEY, REPORT_SCHEMA
from gpuscope.report.what_fits import (
    SPEED_ESTIMATED,
    SPEED_IMPORTED,
    SPEED_MEASURED,
    SPEED_PUBLISHED,
    LlmObservation,
)
from gpuscope.ui.compare.page import ComparePage
from gpuscope.ui.compare.what_fits import SPEED_ROLE

WAIT_MS = 20_000
TESTS_DIR = Path(__file__).resolve().parents[1]
FIXTURES = TESTS_DIR / "fixtures"
sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import bench_run_document  # noqa: E402


@pytest.fixture
def page(qtbot: Any) -> ComparePage:
    compare = ComparePage()
    qtbot.addWidget(compare)
    compare.resize(1000, 900)
    compare.show()
    qtbot.waitUntil(lambda: compare.catalogue_ready, timeout=WAIT_MS)
    return compare


def _speed(page: ComparePage, model: str, card: int, precision: int) -> Any:
    item = page.what_fits.cell(model, card, precision)
    assert item is not None
    return item.data(SPEED_ROLE), item


def test_what_fits_cells_carry_labelled_tokens_per_second(page: ComparePage) -> None:
    page.add_card("RTX 4090")
    page.add_card("RX 6950 XT")
    # Llama 3 8B at Q4_K_M on the RTX 4090: a published llama.cpp figure, with its page.
    published, item = _speed(page, "Llama 3 8B", 0, 2)
    assert published.label == SPEED_PUBLISHED and published.tokens_per_s == 130.58
    assert item.text().splitlines()[1] == "131 pub."
    assert "github.com/XiongjieDai" in item.toolTip() and "(published)" in item.toolTip()
    # Nobody published the RX 6950 XT: an estimate from the datasheet bandwidth.
    estimated, item = _speed(page, "Llama 3 8B", 1, 2)
    assert estimated.label == SPEED_ESTIMATED and item.text().endswith(" est.")
    assert "datasheet bandwidth only" in item.toolTip()
    # A model that does not fit shows no speed in its cell, only in the tooltip.
    _speed_70b, item = _speed(page, "Llama 3 70B", 0, 0)
    assert item.text().splitlines()[1] == "—" and "does not fit" in item.toolTip()
    assert "meas." in page.what_fits.speed_legend.text()


def test_history_results_replace_published_and_estimated(page: ComparePage) -> None:
    page.add_card("RTX 4090")
    page.add_card("RX 6950 XT")
    page.set_llm_results(
        [LlmObservation(SPEED_IMPORTED, "NVIDIA GeForce RTX 4090", "Llama 3 8B",
                        Precision.Q4_K_M, 127.0, "bench.md"),
         LlmObservation(SPEED_MEASURED, "NVIDIA GeForce RTX 4090", "Llama 3 8B",
                        Precision.FP16, 50.5, "llm.decode, gpuscope bench")],
        ("AMD Radeon RX 6950 XT", 0.5))
    imported, item = _speed(page, "Llama 3 8B", 0, 2)
    assert imported.label == SPEED_IMPORTED and item.text().splitlines()[1] == "127 imp."
    measured, item = _speed(page, "Llama 3 8B", 0, 0)
    assert measured.label == SPEED_MEASURED and item.text().splitlines()[1] == "50 meas."
    ratio, item = _speed(page, "Llama 3 8B", 1, 2)
    assert ratio.label == SPEED_ESTIMATED and "measured ratio" in item.toolTip()


def test_the_table_has_labelled_llm_rows(page: ComparePage) -> None:
    page.add_card("RTX 4090")
    page.add_card("RX 6950 XT")
    assert page.cell_text("llm.llama3_8b", 0) == "131 t/s · published"
    assert page.cell_text("llm.llama3_8b", 1).endswith(" t/s · estimated")
    assert page.cell_text("llm.llama3_70b", 0) == "✗ does not fit"
    assert page.is_best("llm.llama3_8b", 0)



def test_a_served_reports_imported_llama_bench_results_reach_what_fits(
        page: ComparePage, tmp_path: Path) -> None:
    """`gpuscope serve`'s /api/report carries the llama-bench results imported on its
    machine (a README capture, tests/fixtures/llama_bench/SOURCES.md): imported here, they
    fill What fits for that card, named as coming from that report."""
    found = read_import(str(FIXTURES / "llama_bench" / "readme_cuda_rtx4080.json"), now=5.0)
    document = {"schema": REPORT_SCHEMA, "bench_runs": [bench_run_document()],
                IMPORTED_LLM_KEY: [imported_to_json(item) for item in found.results]
                + [{"kind": "not a result"}]}
    path = tmp_path / "served.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    page.add_card("RTX 4080")
    column = next(i for i, card in enumerate(page.cards)
                  if card.profile.name == "NVIDIA GeForce RTX 4080")
    before, _ = _speed(page, "Qwen2.5 7B", column, 2)
    assert before.label != SPEED_IMPORTED
    assert page.import_report(str(path)) is None
    imported, item = _speed(page, "Qwen2.5 7B", column, 2)
    assert imported.label == SPEED_IMPORTED and item.text().splitlines()[1] == "119 imp."
    assert "served.json: readme_cuda_rtx4080.json" in item.toolTip()
    assert "1 imported LLM result(s) gpuscope cannot read: skipped" in page.notes.text()
    assert page.import_report(str(path)) is None  # again: the same figures, not twice
    assert page.what_fits._observations.count(page.what_fits._observations[-1]) == 1
