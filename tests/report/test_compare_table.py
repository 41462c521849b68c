"""The Compare table without Qt: the cards and prices (`CompareTable`), the rows' cells with
their colour roles, and the best value of a row."""

from __future__ import annotations

from gpuscope.knowledge.compare import card_profile
from gpuscope.model import Gpu, Vendor
from gpuscope.report.compare_import import ImportedCard, ImportedReport
from gpuscope.report.compare_rows import ROWS, row_positions
from gpuscope.report.compare_table import (
    MAX_CARDS,
    Better,
    CardOrigin,
    ColorRole,
    CompareTable,
    best_columns,
    card_tooltip,
    english,
)
from gpuscope.report.formatting import MISSING

ROW = {row.key: row for row in ROWS}


def _table(*names: str) -> CompareTable:
    table = CompareTable()
    for name in names:
        profile = card_profile(name)
        assert profile is not None, name
        table.add_knowledge_card(profile)
    return table


def _texts(table: CompareTable, key: str) -> list[str]:
    return [cell.text for cell in table.cells(ROW[key])]


def test_cells_are_english_with_a_colour_role_and_no_qt() -> None:
    table = _table("RTX 4090", "RX 7900 XT")
    assert _texts(table, "vram") == ["24 GB", "20 GB"]
    assert _texts(table, "cuda_cc") == ["8.9", MISSING]
    nvidia_rocm, amd_rocm = table.cells(ROW["rocm_linux"])
    assert nvidia_rocm.text == MISSING and nvidia_rocm.shown_role is ColorRole.MUTED
    assert "does not run on NVIDIA" in nvidia_rocm.tooltip
    assert amd_rocm.text.startswith("✓") and amd_rocm.role is ColorRole.OK
    assert table.cells(ROW["vram"])[0].shown_role is None  # a plain figure


def test_translate_is_applied_to_every_text() -> None:
    table = _table("RX 7900 XT")
    marked = table.cells(ROW["rocm_linux"], lambda _context, text: f"«{text}»")[0]
    assert marked.text.startswith("«✓ supported") and "«Source: " in marked.tooltip
    assert english("ComparePage", "Datasheet") == "Datasheet"


def test_best_columns_rank_by_the_rows_direction() -> None:
    assert best_columns([24.0, 20.0, None], Better.HIGHER) == {0}
    assert best_columns([450.0, 300.0], Better.LOWER) == {1}
    assert best_columns([1.0, 1.0], Better.HIGHER) == set()  # nothing to choose
    assert best_columns([1.0, None], Better.HIGHER) == set()
    assert best_columns([1.0, 2.0], Better.NONE) == set()


def test_prices_drive_the_price_rows() -> None:
    table = _table("RX 7900 XTX")
    key = table.cards[0].key
    assert _texts(table, "price") == ["$999"] and _texts(table, "usd_per_gb") == ["$41.62"]
    table.set_price(key, 720.0)
    assert _texts(table, "usd_per_gb") == ["$30.00"]
    table.set_price(key, 0.0)
    assert _texts(table, "usd_per_gb") == [MISSING]
    table.edit_price(key, 999)  # typing the launch price goes back to it
    assert table.prices == {} and _texts(table, "usd_per_gb") == ["$41.62"]


def test_machine_cards_come_first_and_replace_the_same_knowledge_card() -> None:
    table = _table("RX 7900 XTX", "RTX 4090")
    gpu = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX",
              pci_vendor_id="0x1002", pci_device_id="0x744c")
    assert table.set_machine_gpus([gpu, gpu])
    assert [(c.origin, c.count) for c in table.cards] == [(CardOrigin.MACHINE, 2),
                                                         (CardOrigin.KNOWLEDGE, 1)]
    assert table.cards[0].origin_label() == "this machine (×2)"
    assert not table.set_machine_gpus([gpu, gpu])  # the same cards: nothing changes
    profile = card_profile("RX 7900 XTX")
    assert profile is not None and table.column_of(profile) == 0


def test_an_imported_report_replaces_its_own_cards_and_respects_the_limit() -> None:
    profile = card_profile("RTX 4090")
    assert profile is not None
    gpu = Gpu(index=0, vendor=Vendor.NVIDIA, name=profile.name)
    report = ImportedReport(source="friend.json", schema="gpuscope.report/1", origin="live",
                            redacted=True, cards=(ImportedCard(gpu, profile, count=1),))
    table = _table("RX 7900 XT")
    added = table.add_imported(report)
    assert added is not None and [c.origin for c in table.cards] == [CardOrigin.KNOWLEDGE,
                                                                   CardOrigin.IMPORTED]
    assert "imported from friend.json" in card_tooltip(table.cards[1])
    table.add_imported(report)  # again: in place, not twice
    assert len(table.cards) == 2
    table.remove([0])
    assert [c.origin for c in table.cards] == [CardOrigin.IMPORTED]
    full = _table(*["RTX 4090"] * MAX_CARDS)
    assert full.add_imported(report) is None and len(full.cards) == MAX_CARDS


def test_rows_sit_under_their_section_titles() -> None:
    positions = row_positions()
    assert positions[ROWS[0].key] == 1  # row 0 is the first section's title
    assert sorted(positions.values()) == list(positions.values())


def test_a_format_the_hardware_lacks_says_so_instead_of_a_dash() -> None:
    table = _table("RX 6700 XT", "RTX 3060 12GB")
    bf16, ampere = table.cells(ROW["bf16"])
    assert bf16.text == "✗ no native rate" and bf16.value is None
    assert "no native BF16 rate" in bf16.tooltip and "emulated" in bf16.tooltip.lower()
    assert ampere.value is not None  # Ampere has BF16 tensor cores


def test_the_launch_date_row_shows_the_sourced_date() -> None:
    table = _table("RX 7900 XTX", "RTX 4090")
    assert _texts(table, "launch") == ["2022-12-13", "2022-10-12"]
    assert "Sources:" in table.cells(ROW["launch"])[0].tooltip
