"""resources/gpu_specs.toml and gpu_spec: figures, their public sources and confidence."""

from __future__ import annotations

import datetime
import importlib.resources
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.knowledge.devices import identify_device
from gpuscope.knowledge.sources import CONFIDENCE, Source
from gpuscope.knowledge.specs import (
    FIGURES,
    GIB,
    SpecTableError,
    all_specs,
    gpu_spec,
    normalise_name,
    parse_spec_table,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

XTX_VRAM_BYTES = 25753026560  # what sysfs reports for a 24 GiB RX 7900 XTX (devices tests)


def raw_table() -> dict[str, Any]:
    resource = importlib.resources.files("gpuscope.resources").joinpath("gpu_specs.toml")
    with resource.open("rb") as handle:
        return tomllib.load(handle)


def spec(name: str) -> Any:
    found = gpu_spec(name)
    assert found is not None, name
    return found


# ----------------------------------------------------------------------------- the table


def test_at_least_40_cards_of_both_vendors_and_segments() -> None:
    specs = all_specs()
    assert len(specs) >= 40
    assert {s.vendor for s in specs} == {"AMD", "NVIDIA"}
    tags = {t for s in specs for t in s.tags}
    assert {"consumer", "workstation", "datacenter"} <= tags


def test_every_row_has_public_sources_and_every_figure_a_confidence() -> None:
    for s in all_specs():
        assert s.sources, s.name
        assert all(src.url.startswith("https://") and src.label for src in s.sources), s.name
        figures = {k for k in FIGURES if getattr(s, k) is not None}
        assert set(s.field_confidence) == figures, s.name
        assert set(s.field_confidence.values()) <= set(CONFIDENCE)


def test_every_card_of_the_comparison_set_is_present() -> None:
    # The hobbyist comparison set (the A100 80GB row covers the SXM and PCIe cards).
    for name in ["RX 7900 XTX", "RX 7900 XT", "RX 7900 GRE", "RX 7800 XT", "RX 9070 XT",
                 "RX 6800 XT", "Radeon PRO W7900", "RTX 4090", "RTX 4080", "RTX 4080 SUPER",
                 "RTX 4070 Ti SUPER", "RTX 4060 Ti 16GB", "RTX 3090", "RTX 3060 12GB",
                 "RTX 5090", "RTX 5080", "A100 40GB SXM", "A100 80GB SXM", "A100 80GB PCIe",
                 "H100 SXM", "H100 PCIe", "H200 SXM", "MI300X", "MI250X", "MI325X", "MI355X"]:
        assert gpu_spec(name) is not None, name


def test_table_types_units_and_required_keys() -> None:
    doc = raw_table()
    assert doc["schema_version"] == 1
    for row in doc["gpu"]:
        where = row["name"]
        assert {"name", "vendor", "aliases", "sources", "tags", "field_confidence"} <= set(row), \
            where
        assert row["vendor"] in ("AMD", "NVIDIA")
        for key, (kind, low, high) in FIGURES.items():
            if key in row:
                assert isinstance(row[key], (int, float)) and not isinstance(row[key], bool)
                if kind is int:
                    assert isinstance(row[key], int), (where, key)
                assert low <= row[key] <= high, (where, key)
        for pci in row.get("pci_ids", []):
            vendor, device = pci.split(":")
            assert vendor == {"AMD": "0x1002", "NVIDIA": "0x10de"}[row["vendor"]]
            assert device == device.lower() and len(device) == 6
        assert not isinstance(row.get("launch_date"), datetime.date) or row["launch_date"]
        # Peak figures are consistent with each other where both exist.
        if "fp16_fp32acc_tflops" in row:
            assert row["fp16_fp32acc_tflops"] < row["fp16_tflops"], where
        if "fp32_tflops" in row and "fp16_tflops" in row:
            assert row["fp16_tflops"] >= row["fp32_tflops"], where


def test_pci_ids_agree_with_the_device_table() -> None:
    """identify_device's name for each PCI id of a spec leads back to that spec (for a shared
    id, one of the candidates does), so the doctor can chain the two lookups."""
    checked = 0
    for s in all_specs():
        for vendor, device in s.pci_ids:
            identity = identify_device(vendor, device)
            assert identity is not None, (s.name, device)
            # A name shared by two memory sizes (RX 9060 XT) needs the VRAM too.
            found = {gpu_spec(c, vendor_id=vendor, device_id=device, vram_bytes=s.vram_bytes)
                     for c in identity.candidates}
            assert s in found, (s.name, device, identity.candidates)
            checked += 1
    assert checked >= 45


@pytest.mark.parametrize(("patch", "message"), [
    ({"vendor": "Intel"}, "vendor"),
    ({"fp32_tflops": "61.4"}, "must be a number"),
    ({"tdp_w": 355.5}, "must be an integer"),
    ({"memory_bandwidth_gb_s": 960_000}, "outside"),
    ({"sources": []}, "non-empty list"),
    ({"sources": ["a blog"]}, "neither a \\[sources\\] key nor an https URL"),
    ({"sources": ["http://example.com/specs"]}, "neither"),
    ({"sources": ["rocm_gpu_specs", "rocm_gpu_specs"]}, "cited twice"),
    ({"notes": "FP16 from facts.md §3 [S]"}, "internal notes"),
    ({"notes": "FP16 [K]: to verify"}, "internal notes"),
    ({"field_confidence": {"vram_gib": "primary"}}, "field_confidence must cover exactly"),
    ({"field_confidence": {"vram_gib": "V"}}, "must be one of"),
    ({"pci_ids": ["0x10de:0x2684"]}, "not a AMD id"),
    ({"pci_ids": ["0x1002:0x744C"]}, "lower case"),
    ({"fp16_fp32acc_tflops": 60.0}, "needs fp16_accumulate"),
    ({"launch_year": 2022}, "unknown keys"),
    ({"launch_date": "2022-13-01"}, "launch_date"),
    ({"unsupported": ["fp4"]}, "unsupported may only list"),
    ({"unsupported": ["int8"]}, "int8 is unsupported but int8_tops is given"),
    ({"gfx_target": "8.9"}, "bad gfx_target"),
])
def test_malformed_rows_are_rejected(patch: dict[str, Any], message: str) -> None:
    doc = raw_table()
    doc["gpu"][0].update(patch)  # the RX 7900 XTX row
    if "fp16_fp32acc_tflops" in patch:
        doc["gpu"][0]["field_confidence"]["fp16_fp32acc_tflops"] = "unverified"
    with pytest.raises(SpecTableError, match=message):
        parse_spec_table(doc)


@pytest.mark.parametrize(("patch", "message"), [
    ({"rocm_gpu_specs": {"url": "rocm.docs.amd.com/reference", "label": "ROCm"}},
     "not an https URL"),
    ({"rocm_gpu_specs": {"url": "https://example.com", "label": "facts.md §1.3"}},
     "internal notes"),
    ({"rocm_gpu_specs": {"url": "https://example.com", "label": "x", "tag": "V"}},
     "key = { url, label }"),
    ({"never_cited": {"url": "https://example.com/unused", "label": "unused"}},
     "no row cites"),
])
def test_malformed_sources_are_rejected(patch: dict[str, Any], message: str) -> None:
    doc = raw_table()
    doc["sources"].update(patch)
    with pytest.raises(SpecTableError, match=message):
        parse_spec_table(doc)


def test_a_row_may_cite_an_https_url_directly() -> None:
    doc = raw_table()
    doc["gpu"][0]["sources"].append("https://example.com/rx-7900-xtx")
    parsed = parse_spec_table(doc)[0]
    assert parsed.sources[-1] == Source("https://example.com/rx-7900-xtx")
    assert str(parsed.sources[0]).endswith(f"({parsed.sources[0].url})")


def test_two_cards_answering_to_one_spelling_are_rejected() -> None:
    doc = raw_table()
    doc["gpu"][1]["aliases"].append("Radeon RX 7900 XTX")  # the XT row claiming the XTX
    with pytest.raises(SpecTableError, match="would match"):
        parse_spec_table(doc)


# ----------------------------------------------------------------------------- figures


def test_rtx_4090_fp16_for_pytorch_is_165_not_330() -> None:
    rtx = spec("NVIDIA GeForce RTX 4090")
    assert rtx.fp16_tflops == 330.3
    assert rtx.fp16_accumulate == "fp16"
    assert rtx.fp16_fp32acc_tflops == 165.2
    assert rtx.pytorch_fp16_tflops == 165.2
    assert rtx.bf16_tflops == 165.2
    assert (rtx.vram_gib, rtx.vram_bytes) == (24.0, 24 * GIB)
    assert (rtx.memory_bandwidth_gb_s, rtx.fp32_tflops, rtx.int8_tops) == (1008.0, 82.6, 660.6)
    assert (rtx.tdp_w, rtx.launch_price_usd, rtx.compute_capability) == (450, 1599, "8.9")
    assert rtx.confidence("fp16_fp32acc_tflops") == "secondary"


def test_rx_7900_figures() -> None:
    xtx, xt = spec("RX 7900 XTX"), spec("RX 7900 XT")
    assert (xtx.fp32_tflops, xtx.fp16_tflops, xtx.memory_bandwidth_gb_s) == (61.4, 122.8, 960)
    assert xtx.pytorch_fp16_tflops == 122.8  # no GeForce accumulate split on AMD
    assert (xt.vram_gib, xt.fp32_tflops, xt.fp16_tflops, xt.memory_bandwidth_gb_s) == (
        20.0, 51.6, 103.0, 800.0)
    assert xt.confidence("tdp_w") == "conflicting"  # 300 W (Guru3D, AMD) vs 315 W
    assert "315 W" in xt.notes
    assert xtx.compute_units == 96 and xtx.gfx_target == "gfx1100"


def test_figures_no_source_gives_are_absent() -> None:
    # A GeForce row with only the FP16-accumulate rate has no figure to compare PyTorch with.
    (geforce,) = parse_spec_table({
        "sources": {"s": {"url": "https://example.com/rtx", "label": "x"}},
        "gpu": [{"name": "GeForce RTX Test", "vendor": "NVIDIA", "fp16_tflops": 419.0,
                 "fp16_accumulate": "fp16", "field_confidence": {"fp16_tflops": "secondary"},
                 "sources": ["s"]}]})
    assert geforce.fp16_tflops == 419.0 and geforce.pytorch_fp16_tflops is None
    rx6800 = spec("RX 6800 XT")
    assert rx6800.bf16_tflops is None and rx6800.unsupported_formats == ("bf16",)  # no BF16 rate
    assert "BF16" in rx6800.notes
    assert spec("MI250X").tdp_w is None  # only a 500-560 W range, unverified
    assert spec("H100 SXM").launch_price_usd is None  # datacenter: not published
    assert spec("H100 SXM").launch_date is None  # no source at hand gives one
    assert spec("RX 7900 XTX").launch_date == "2022-12-13"


def test_derived_and_unverified_figures_say_so() -> None:
    gre = spec("RX 7900 GRE")
    assert (gre.fp32_tflops, gre.confidence("fp32_tflops")) == (46.0, "derived")
    assert "2.245 GHz" in gre.notes  # the formula
    assert gre.confidence("launch_price_usd") == "unverified"
    assert "no public source at hand states $549" in gre.notes
    assert spec("H100 SXM").confidence("fp16_tflops") == "primary"
    assert spec("MI300X").confidence("tdp_w") == "unverified"
    assert spec("H100 SXM").confidence("launch_price_usd") is None  # no such figure


def test_datacenter_rows() -> None:
    h100 = spec("NVIDIA H100 80GB HBM3")
    assert h100.name == "NVIDIA H100 SXM5 80GB"
    assert (h100.bf16_tflops, h100.fp8_tflops, h100.memory_bandwidth_gb_s) == (989.0, 1979.0, 3350)
    mi300x = spec("AMD Instinct MI300X")
    assert (mi300x.vram_gib, mi300x.fp16_tflops, mi300x.memory_bandwidth_gb_s) == (192, 1307, 5300)
    assert spec("NVIDIA A100-SXM4-80GB").tf32_tflops == 156.0


# ----------------------------------------------------------------------------- name matching


@pytest.mark.parametrize("name", [
    "RTX 4090", "GeForce RTX 4090", "NVIDIA GeForce RTX 4090", "nvidia geforce rtx 4090",
    "NVIDIA GeForce RTX(TM) 4090"])
def test_rtx_4090_spellings(name: str) -> None:
    assert spec(name).name == "NVIDIA GeForce RTX 4090"


@pytest.mark.parametrize("name", [
    "RX 7900 XT", "Radeon RX 7900 XT", "AMD Radeon RX 7900 XT", "AMD Radeon™ RX 7900 XT"])
def test_7900_xt_never_matches_the_xtx(name: str) -> None:
    assert spec(name).name == "AMD Radeon RX 7900 XT"


@pytest.mark.parametrize("name", [
    "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 4090 Ti", "RTX 4060 Ti",
    "AMD Radeon Pro VII", "RX 7900", "AMD Radeon Graphics", "Navi 31 [Radeon RX 7900 XT/7900 XTX]",
    "", "NVIDIA", "AMD Radeon PRO W7900 Triple Slot", "AMD Radeon RX 9060 XT"])
def test_near_misses_match_nothing(name: str) -> None:
    assert gpu_spec(name) is None


def test_normalise_name() -> None:
    assert normalise_name("NVIDIA GeForce RTX 4060 Ti 16 GB") == "rtx 4060 ti 16gb"
    assert normalise_name("NVIDIA A100-SXM4-80GB") == "a100 sxm4 80gb"
    assert normalise_name("AMD Radeon VII") == "vii"
    assert normalise_name("AMD Radeon Pro VII") == "pro vii"


# ----------------------------------------------------------------------------- PCI ids


def test_lookup_by_pci_id() -> None:
    assert spec("RTX 4090") is gpu_spec(vendor_id="0x10de", device_id="0x2684")
    assert gpu_spec(vendor_id="0x10DE", device_id="2684") is spec("RTX 4090")
    assert gpu_spec(device_id="0x74a1") is spec("MI300X")
    # 0x744c is the 7900 XTX, XT and GRE: the id alone does not decide.
    assert gpu_spec(vendor_id="0x1002", device_id="0x744c") is None
    assert gpu_spec(vendor_id="0x1002", device_id="0x744c",
                    vram_bytes=XTX_VRAM_BYTES) is spec("RX 7900 XTX")
    assert gpu_spec("AMD Radeon RX 7900 XT", vendor_id="0x1002",
                    device_id="0x744c") is spec("RX 7900 XT")


def test_pci_id_settles_a_name_the_table_does_not_spell() -> None:
    # NVML calls the 12 GB card "NVIDIA GeForce RTX 3060"; 0x2503 is the 12 GB one (pci.ids).
    assert gpu_spec("NVIDIA GeForce RTX 3060", vendor_id="0x10de",
                    device_id="0x2503") is spec("RTX 3060 12GB")


def test_name_contradicting_the_pci_id_gives_none() -> None:
    assert gpu_spec("RTX 4090", vendor_id="0x10de", device_id="0x2204") is None
    assert gpu_spec(vendor_id="0x10de", device_id="0xffff") is None
    assert gpu_spec(vendor_id="nvidia", device_id="0x2684") is None


@given(st.one_of(st.none(), st.text(max_size=40)), st.one_of(st.none(), st.text(max_size=8)),
       st.one_of(st.none(), st.text(max_size=8)), st.one_of(st.none(), st.integers()))
def test_lookup_never_raises(name: str | None, vendor: str | None, device: str | None,
                             vram: int | None) -> None:
    gpu_spec(name, vendor_id=vendor, device_id=device, vram_bytes=vram)


def test_rtx_40_super_prices_come_from_nvidias_announcement() -> None:
    for name, price, date in (("RTX 4080 SUPER", 999, "2024-01-31"),
                              ("RTX 4070 Ti SUPER", 799, "2024-01-24")):
        card = spec(name)
        assert (card.launch_price_usd, card.launch_date) == (price, date), name
        assert card.confidence("launch_price_usd") == "secondary"
        assert any(src.url == "https://nvidianews.nvidia.com/news/geforce-rtx-40-super-series"
                   for src in card.sources), name
