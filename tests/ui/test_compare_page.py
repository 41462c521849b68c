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

from gpuscope.app.compare_defaults import hobbyist_pair, spec_peers
from gpuscope.cli import main
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.model import Gpu, Vendor
from gpuscope.report.compare_rows import CONFIDENCE_WORDS
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
    # Each figure's tooltip says how sure the table is of it, whichever word that is.
    rtx = gpu_spec("RTX 4060 Ti 16GB")
    confidence = rtx.confidence("fp32_tflops") if rtx is not None else None
    fp32 = page.cell("fp32", 1)
    assert confidence is not None and fp32 is not None
    assert CONFIDENCE_WORDS[confidence] in fp32.toolTip()


# ----------------------------------------------------------------------------- before any input

XTX_GPU = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", pci_vendor_id="0x1002",
              pci_device_id="0x744c", gfx_target="gfx1100", vram_total_bytes=25753026560)


def test_without_a_gpu_the_page_starts_from_the_reference_pair(page: ComparePage) -> None:
    assert page.cards == ()  # nothing until the machine's GPUs are known
    page.set_machine_gpus([])
    assert page.card_names() == [spec.name for spec in hobbyist_pair()]
    assert all(page.is_suggested(i) for i in range(2)) and page.is_suggesting
    assert all(card.origin is CardOrigin.KNOWLEDGE for card in page.cards)
    assert "No GPU in this machine" in page.summary.text()
    # What fits shows them too: a model column and three precisions per card.
    assert page.what_fits.table.columnCount() == 1 + 2 * 3
    heading = page.table.horizontalHeaderItem(0)
    assert heading is not None and "suggested" in heading.text()
    assert "largest VRAM" in heading.toolTip()


def test_this_machines_card_comes_with_its_peers(page: ComparePage) -> None:
    page.set_machine_gpus([])  # probes still running: the reference pair first
    page.set_machine_gpus([XTX_GPU])
    xtx = gpu_spec("RX 7900 XTX")
    assert xtx is not None
    assert page.card_names() == [xtx.name, *(spec.name for spec in spec_peers(xtx))]
    assert page.cards[0].origin is CardOrigin.MACHINE and not page.is_suggested(0)
    assert page.is_suggested(1) and page.is_suggested(2)
    assert "2 suggested" in page.summary.text()
    # Once the user picks a card, the page is theirs: the suggestions stay as plain cards
    # and a new GPU list no longer brings others.
    assert page.add_card("RTX 3090") is None
    assert not page.is_suggesting and not page.is_suggested(1)
    shown = page.card_names()[1:]
    page.set_machine_gpus([])
    assert page.card_names() == shown  # the machine's card goes, nothing comes


def test_the_table_and_what_fits_fill_the_width(page: ComparePage, qtbot: Any) -> None:
    page.set_machine_gpus([XTX_GPU])
    for width in (900, 1700):
        page.resize(width, 900)
        qtbot.waitUntil(lambda width=width: page.table.width() > width - 100)
        for table in (page.table, page.what_fits.table):
            used = sum(table.columnWidth(c) for c in range(table.columnCount()))
            assert used == table.viewport().width(), (width, table)
        # The cards' columns are as wide as each other.
        assert len({page.table.columnWidth(c) for c in range(3)}) == 1


# ----------------------------------------------------------------------------- currencies


def test_prices_in_another_currency_are_remembered_and_never_converted(
        page: ComparePage, qtbot: Any) -> None:
    page.add_card("RX 7900 XTX")
    page.add_card("RTX 4090")
    with qtbot.waitSignal(page.prices_changed) as changed:
        page.price_controls.currency_box.setCurrentIndex(
            page.price_controls.currency_box.findData("CNY"))
    assert page.currency == "CNY" and changed.args[0].currency == "CNY"
    # No CNY price yet: the launch prices (USD) still rank, in their own currency.
    assert page.cell_text("price", 1) == "$1,599"
    assert page.price_box(1).text() == "launch $1,599"
    page.price_box(0).setValue(7999)  # typed in the box, in CNY
    assert page.cell_text("price", 0) == "¥7,999"
    assert page.cell_text("usd_per_gb", 0) == "¥333" and page.cell_text("usd_per_gb", 1) == "$66.62"
    assert not page.is_best("usd_per_gb", 0) and not page.is_best("usd_per_gb", 1)
    assert "does not convert" in page.price_note_text()
    label = page.table.verticalHeaderItem(page.row_index("usd_per_gb"))
    assert label is not None and label.text() == "Price per GB of VRAM"
    page.chart.set_metric("usd_per_gb")
    assert page.chart.values() == [None, None]
    assert "several currencies" in page.chart.better_label.text()

    page.set_price(1, 12999)
    assert page.price_note_text() == ""
    # The rows are redrawn under the boxes; the boxes stay, showing the prices.
    assert page.table.cellWidget(page.row_index("price"), 1) is page.price_box(1)
    assert page.price_box(1).text() == "¥ 12,999"
    assert page.is_best("usd_per_gb", 0)
    label = page.table.verticalHeaderItem(page.row_index("usd_per_gb"))
    assert label is not None and label.text() == "¥ per GB of VRAM"
    assert page.chart.values() == pytest.approx([7999 / 24, 12999 / 24])

    # Another page (the next start) given the book the window kept shows the same prices.
    book = page.price_book
    again = ComparePage()
    qtbot.addWidget(again)
    again.add_card("RX 7900 XTX")
    again.set_price_book(book)
    assert again.currency == "CNY" and again.cell_text("price", 0) == "¥7,999"
    assert again.price_controls.currency == "CNY"
    # Back in USD the launch prices show; the CNY ones are kept for later.
    again.set_currency("USD")
    assert again.cell_text("price", 0) == "$999"
    assert again.price_book.typed("AMD Radeon RX 7900 XTX", "CNY") == 7999
