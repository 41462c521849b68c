"""The Compare page: cards from the knowledge base and from someone's JSON report (made by
`gpuscope report --format json`), side by side, with editable prices and what fits."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR, TESTS_DIR
from PySide6.QtCore import Qt

from gpuscope.cli import main
from gpuscope.model import Gpu, Vendor
from gpuscope.report.compare_table import CardOrigin
from gpuscope.report.what_fits import FitState
from gpuscope.ui.compare.page import ComparePage

sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import bench_run_document

WAIT_MS = 20_000


@pytest.fixture
def page(qtbot: Any) -> ComparePage:
    compare = ComparePage()
    qtbot.addWidget(compare)
    compare.resize(1000, 900)
    compare.show()
    qtbot.waitUntil(lambda: compare.catalogue_ready, timeout=WAIT_MS)
    return compare


@pytest.fixture
def json_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> Path:
    """`gpuscope report --format json` of the RX 7900 XTX snapshot with a benchmark run."""
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path / "data"))
    run = tmp_path / "run.json"
    run.write_text(json.dumps(bench_run_document()))
    out = tmp_path / "friend-report.json"
    code = main(["report", "--replay", str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                 "--format", "json", "-o", str(out), "--bench", str(run), "-q"])
    capsys.readouterr()
    assert code == 0 and out.exists()
    return out


def test_knowledge_base_cards_side_by_side(page: ComparePage) -> None:
    assert page.add_card("RTX 4090") is None
    assert page.add_card("RX 7900 XT") is None
    assert page.card_names() == ["NVIDIA GeForce RTX 4090", "AMD Radeon RX 7900 XT"]
    assert page.cell_text("vram", 0) == "24 GB" and page.cell_text("vram", 1) == "20 GB"
    assert page.is_best("vram", 0) and not page.is_best("vram", 1)
    assert page.is_best("tdp", 1)  # lower board power is better
    assert page.cell_text("cuda_cc", 0) == "8.9" and page.cell_text("cuda_cc", 1) == "—"
    assert page.cell_text("rocm_linux", 1).startswith("✓")
    assert page.add_card("not a card") is not None and "not in gpuscope" in page.message_text()


def test_a_json_report_re_imports(page: ComparePage, json_report: Path) -> None:
    page.add_card("RTX 4090")
    assert page.import_report(str(json_report)) is None
    card = page.cards[1]
    assert card.origin is CardOrigin.IMPORTED and card.source == "friend-report.json"
    assert card.profile.name == "AMD Radeon RX 7900 XTX"
    assert page.cell_text("measured.matmul.fp16", 1) == "98.6 TFLOPS · 80%"
    assert page.cell_text("measured.memory.copy", 1) == "812.5 GB/s · 85%"
    assert page.cell_text("measured.matmul.fp16", 0) == "—"
    assert "replayed snapshot" in page.message_text()
    # the same file again replaces its cards where they stood
    assert page.import_report(str(json_report)) is None
    assert len(page.cards) == 2


def test_import_runs_off_the_gui_thread(qtbot: Any, page: ComparePage,
                                        json_report: Path) -> None:
    page.import_report_async(str(json_report))
    qtbot.waitUntil(lambda: not page.is_importing and len(page.cards) == 1, timeout=WAIT_MS)
    assert page.cards[0].origin is CardOrigin.IMPORTED


def test_a_file_that_is_no_report_is_refused(page: ComparePage, tmp_path: Path) -> None:
    bad = tmp_path / "photo.json"
    bad.write_bytes(b"\x89PNG\r\n")
    reason = page.import_report(str(bad))
    assert reason is not None and "not a gpuscope report" in reason
    assert "Could not import" in page.message_text() and page.cards == ()


def test_prices_drive_the_price_rows(page: ComparePage) -> None:
    page.add_card("RX 7900 XTX")
    assert page.cell_text("price", 0) == "$999"
    assert page.cell_text("usd_per_gb", 0) == "$41.62"
    page.set_price(0, 720.0)
    assert page.cell_text("usd_per_gb", 0) == "$30.00"
    page.price_box(0).setValue(0)
    assert page.cell_text("usd_per_gb", 0) == "—"
    page.reset_prices()
    assert page.cell_text("usd_per_gb", 0) == "$41.62"


def test_what_fits_follows_the_cards(page: ComparePage) -> None:
    page.add_card("RTX 4090")
    page.add_card("RX 7900 XT")
    panel = page.what_fits
    fp16_8b = panel.cell("Llama 3 8B", 0, 0)
    assert fp16_8b is not None and fp16_8b.data(Qt.ItemDataRole.UserRole) == FitState.FITS
    int4_70b = panel.cell("Llama 3 70B", 1, 2)
    assert int4_70b is not None and int4_70b.data(Qt.ItemDataRole.UserRole) == FitState.NO
    assert panel.table.columnCount() == 1 + 2 * 3


def test_this_machine_comes_first(page: ComparePage) -> None:
    page.add_card("RTX 4090")
    gpu = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX",
              pci_vendor_id="0x1002", pci_device_id="0x744c", gfx_target="gfx1100",
              vram_total_bytes=25753026560)
    page.set_machine_gpus([gpu, gpu])
    assert page.card_names()[0] == "AMD Radeon RX 7900 XTX"
    assert page.cards[0].origin is CardOrigin.MACHINE and page.cards[0].count == 2
    assert page.cards[0].origin_label() == "this machine (×2)"


def test_a_report_of_a_machine_without_a_gpu_adds_nothing(page: ComparePage, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "container.json"
    assert main(["report", "--replay", str(SNAPSHOTS_DIR / "dev_container_live.json"),
                 "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    assert page.import_report(str(out)) is None
    assert page.cards == ()
    assert "without a GPU: no card to add" in page.message_text()


def test_datasheet_tooltips_name_public_sources_and_no_internal_markers(
        page: ComparePage) -> None:
    assert page.add_card("RX 7900 XT") is None
    assert page.add_card("RTX 4060 Ti 16GB") is None
    for key in ("vram", "bandwidth", "fp32", "fp16", "tdp", "price"):
        for index in (0, 1):
            item = page.cell(key, index)
            assert item is not None, key
            tip = item.toolTip()
            assert not re.search(r"facts\.md|§|\[[SKVD?]\]|corpus \d", tip), (key, tip)
    bandwidth = page.cell("bandwidth", 0)
    assert bandwidth is not None
    tip = bandwidth.toolTip()
    assert "read in a secondary source" in tip
    assert "https://www.guru3d.com/review/" in tip and "Guru3D" in tip
    assert "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html" in tip
    tdp = page.cell("tdp", 0)
    assert tdp is not None and "uncertain or conflicting sources" in tdp.toolTip()
    unverified = page.cell("fp32", 1)
    assert unverified is not None and "not re-read" in unverified.toolTip()
