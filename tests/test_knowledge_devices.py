"""The device table (resources/gpu_devices.toml) and identify_device."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpuscope.knowledge.devices import (
    DeviceTableError,
    device_table,
    identify_device,
    joined_names,
    normalise_id,
    parse_device_table,
)
from gpuscope.knowledge.sources import INTERNAL_PROVENANCE
from gpuscope.model import GpuKind

GIB = 1 << 30
# What sysfs reports for a 24 GiB RX 7900 XTX (a WSL2 rocminfo capture of the public corpus).
XTX_VRAM_BYTES = 25753026560


def vram(gib: int) -> int:
    return gib * GIB - 16 * (1 << 20)  # a little under nominal, as the driver reports it


# ----------------------------------------------------------------------------- 0x744c


@pytest.mark.parametrize(("vram_bytes", "card"), [
    (XTX_VRAM_BYTES, "AMD Radeon RX 7900 XTX"),
    (vram(20), "AMD Radeon RX 7900 XT"),
    (vram(16), "AMD Radeon RX 7900 GRE"),
    (16 * GIB, "AMD Radeon RX 7900 GRE"),
])
def test_navi31_is_told_apart_by_vram(vram_bytes: int, card: str) -> None:
    identity = identify_device("0x1002", "0x744c", vram_total_bytes=vram_bytes)
    assert identity is not None
    assert identity.name == card
    assert identity.candidates == (card,)
    assert (identity.family, identity.architecture, identity.gfx_target) == (
        "Navi 31", "RDNA3", "gfx1100")
    assert identity.kind is GpuKind.DISCRETE
    assert identity.compute_capability is None
    assert identity.how.startswith(
        "0x744c is shared by AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE")
    assert identity.how.endswith(f"means the {card}")
    assert "https://rocm.docs.amd.com/" in identity.source
    assert "https://github.com/pciutils/pciids" in identity.source


def test_navi31_without_vram_lists_the_candidates() -> None:
    identity = identify_device("0x1002", "0x744c")
    assert identity is not None
    assert identity.name == "AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE"
    assert identity.candidates == (
        "AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XT", "AMD Radeon RX 7900 GRE")
    assert identity.gfx_target == "gfx1100"
    assert "no VRAM size, compute-unit count or board id" in identity.how


def test_vram_far_from_every_card_decides_nothing() -> None:
    identity = identify_device("0x1002", "0x744c", vram_total_bytes=4 * GIB)
    assert identity is not None and len(identity.candidates) == 3
    assert "4.0 GiB of VRAM matches none of them" in identity.how


def test_compute_units_decide_when_vram_cannot() -> None:
    identity = identify_device("0x1002", "0x744c", compute_units=84)
    assert identity is not None and identity.name == "AMD Radeon RX 7900 XT"
    navi21 = identify_device("0x1002", "0x73bf", vram_total_bytes=vram(16), compute_units=72)
    assert navi21 is not None and navi21.name == "AMD Radeon RX 6800 XT"
    assert "72 compute units" in navi21.how
    same_vram = identify_device("0x1002", "0x73bf", vram_total_bytes=vram(16))
    assert same_vram is not None
    assert same_vram.name == "AMD Radeon RX 6900 XT / 6800 XT / 6800"
    assert "fits all of them" in same_vram.how


def test_a_board_listed_in_pci_ids_decides_between_identical_cards() -> None:
    # RX 6700 XT and RX 6750 XT are both 12 GiB / 40 CUs; the Sapphire boards differ.
    pulse_6700 = identify_device("1002", "73DF", vram_total_bytes=12868124672,
                                 compute_units=40, subsystem_device_id="0x445e")
    assert pulse_6700 is not None and pulse_6700.name == "AMD Radeon RX 6700 XT"
    assert "1da2:445e" in pulse_6700.how and "Sapphire PULSE" in pulse_6700.how
    pulse_6750 = identify_device("1002", "73df", vram_total_bytes=12868124672,
                                 subsystem_vendor_id="0x1da2", subsystem_device_id="0x465e")
    assert pulse_6750 is not None and pulse_6750.name == "AMD Radeon RX 6750 XT"
    other_vendor = identify_device("1002", "73df", vram_total_bytes=12868124672,
                                   subsystem_vendor_id="0x1043", subsystem_device_id="0x445e")
    assert other_vendor is not None
    assert other_vendor.name == "AMD Radeon RX 6700 XT / 6750 XT"
    unknown_board = identify_device("1002", "73df", vram_total_bytes=12868124672,
                                    subsystem_device_id="0x0001")
    assert unknown_board is not None and len(unknown_board.candidates) == 2


def test_revision_is_accepted_but_not_used() -> None:
    assert identify_device("0x1002", "0x744c", revision="0xc8") == identify_device(
        "0x1002", "0x744c")


# ----------------------------------------------------------------------------- other ids


@pytest.mark.parametrize(("vram_bytes", "card"), [
    (vram(16), "AMD Radeon RX 7800 XT"), (vram(12), "AMD Radeon RX 7700 XT")])
def test_navi32(vram_bytes: int, card: str) -> None:
    identity = identify_device("0x1002", "0x747e", vram_total_bytes=vram_bytes)
    assert identity is not None and identity.name == card
    assert identity.gfx_target == "gfx1101"
    unknown = identify_device("0x1002", "0x747e")
    assert unknown is not None and unknown.name == "AMD Radeon RX 7800 XT / 7700 XT"


def test_raphael_igpu_is_integrated() -> None:
    identity = identify_device("0x1002", "0x164e", vram_total_bytes=536870912, compute_units=2)
    assert identity is not None
    assert identity.kind is GpuKind.INTEGRATED
    assert identity.gfx_target == "gfx1036"
    assert identity.family == "Raphael" and identity.architecture == "RDNA2"
    assert "Raphael" in identity.name
    assert identity.candidates == (identity.name,)
    assert "no other card has this id" in identity.how


def test_r9700() -> None:
    identity = identify_device("0x1002", "0x7551", vram_total_bytes=34208743424)
    assert identity is not None and identity.name == "AMD Radeon AI PRO R9700"
    assert (identity.architecture, identity.gfx_target) == ("RDNA4", "gfx1201")


def test_nvidia() -> None:
    identity = identify_device("0x10de", "0x2684", vram_total_bytes=25757220864)
    assert identity is not None
    assert identity.name == "NVIDIA GeForce RTX 4090"
    assert (identity.family, identity.architecture) == ("AD102", "Ada Lovelace")
    assert identity.compute_capability == "8.9" and identity.gfx_target is None
    h100 = identify_device("10de", "2330")
    assert h100 is not None and h100.compute_capability == "9.0"
    assert h100.architecture == "Hopper"


def test_mi250_gcds_are_told_apart_by_compute_units() -> None:
    mi250x = identify_device("0x1002", "0x740c", vram_total_bytes=vram(64), compute_units=110)
    assert mi250x is not None and mi250x.name == "AMD Instinct MI250X"
    mi300a = identify_device("0x1002", "0x74a0")
    assert mi300a is not None and mi300a.kind is GpuKind.INTEGRATED


@pytest.mark.parametrize(("device", "kind", "gfx", "name"), [
    # SR-IOV virtual functions: what a cloud VM sees of a shared GPU (corpus 103, 104, 114).
    ("0x74b5", GpuKind.VIRTUAL, "gfx942", "AMD Instinct MI300X VF"),
    ("0x74b9", GpuKind.VIRTUAL, "gfx942", "AMD Instinct MI325X VF"),
    ("0x686c", GpuKind.VIRTUAL, "gfx900", "MI25 MxGPU"),
    ("0x73ae", GpuKind.VIRTUAL, "gfx1030", "AMD Radeon Pro V620 MxGPU"),
    # Older discrete GPUs the kernel log names by id (corpus 107, 108, 113).
    ("0x7340", GpuKind.DISCRETE, "gfx1012", "RX 5500"),
    ("0x731f", GpuKind.DISCRETE, "gfx1010", "RX 5700 XT"),
    ("0x67ef", GpuKind.DISCRETE, "gfx803", "560X"),
    ("0x67df", GpuKind.DISCRETE, "gfx803", "RX 580"),
    ("0x687f", GpuKind.DISCRETE, "gfx900", "RX Vega 64"),
    # GCN APUs: KFD reports Raven/Picasso as gfx902 and Renoir's family as gfx90c.
    ("0x15d8", GpuKind.INTEGRATED, "gfx902", "Picasso"),
    ("0x15dd", GpuKind.INTEGRATED, "gfx902", "Raven Ridge"),
    ("0x1636", GpuKind.INTEGRATED, "gfx90c", "Renoir"),
    ("0x1638", GpuKind.INTEGRATED, "gfx90c", "Cezanne"),
])
def test_virtual_functions_older_gpus_and_gcn_apus(device: str, kind: GpuKind, gfx: str,
                                                   name: str) -> None:
    identity = identify_device("0x1002", device)
    assert identity is not None, device
    assert (identity.kind, identity.gfx_target) == (kind, gfx)
    assert name in identity.name
    assert "pci.ids" in identity.source


def test_mi25_mxgpu_lists_the_cards_sharing_the_vf_id() -> None:
    identity = identify_device("0x1002", "0x686c")
    assert identity is not None and len(identity.candidates) == 4
    assert identity.name.startswith("AMD Radeon Instinct MI25 MxGPU / ")


@pytest.mark.parametrize(("vendor", "device"), [
    ("0x1002", "0xffff"), ("0x8086", "0x744c"), ("0x1002", "nonsense"), ("", ""),
    ("0x1002", "0x1744c"),
])
def test_unknown_or_malformed_ids(vendor: str, device: str) -> None:
    assert identify_device(vendor, device) is None


# ----------------------------------------------------------------------------- the table

# Every AMD and NVIDIA discrete card id and every APU the table is meant to cover.
AMD_DGPUS = [
    "744c", "7448", "744a", "745e", "7449", "747e", "7470", "7460", "7461", "7480", "7550",
    "7551", "7590", "73a5", "73bf", "73af", "73a3", "73a1", "73df", "73ff", "73ef", "743f",
    "66af", "66a1", "738c", "738e", "740f", "740c", "7408", "74a1", "74a0", "74a2", "74a5",
    "75a0", "75a3", "75a8",
]
NVIDIA_GPUS = [
    "2684", "2685", "2704", "2702", "2703", "2705", "2689", "2803", "2805", "2204", "2203",
    "2503", "2504", "2544", "2509", "2b85", "2c02", "20b0", "20b1", "20f1", "20b2", "20b5",
    "2330", "2331", "2335", "233b",
]
AMD_APUS = ["1681", "15bf", "15c8", "1900", "1901", "150e", "1586", "1114", "163f",
                  "164e", "13c0", "15dd", "15d8", "1636", "164c", "1638", "15e7"]


def test_the_table_covers_every_listed_id() -> None:
    table = device_table()
    for device in AMD_DGPUS + AMD_APUS:
        assert ("0x1002", f"0x{device}") in table, device
    for device in NVIDIA_GPUS:
        assert ("0x10de", f"0x{device}") in table, device
    for device in AMD_APUS:
        assert table[("0x1002", f"0x{device}")].kind is GpuKind.INTEGRATED


def test_every_row_is_complete() -> None:
    for (vendor, device), entry in device_table().items():
        where = f"{vendor}:{device}"
        assert "https://" in entry.source and not INTERNAL_PROVENANCE.search(entry.source), \
            where
        assert entry.family and entry.architecture and entry.kind, where
        if vendor == "0x1002":
            assert entry.gfx_target and re.fullmatch(r"gfx\d+[0-9a-f]{2}", entry.gfx_target)
            assert all(c.name.startswith("AMD ") for c in entry.cards), where
        else:
            assert entry.compute_capability and re.fullmatch(r"\d+\.\d", entry.compute_capability)
            assert all(c.name.startswith("NVIDIA ") for c in entry.cards), where


def test_the_table_is_loaded_once() -> None:
    assert device_table() is device_table()


def table_doc(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"vendor_id": "0x1002", "device_id": "0x744c", "sources": ["pci_ids"],
                           "kind": "discrete", "card": [{"name": "AMD Radeon X", "vram_gib": 8}]}
    row.update(overrides)
    pci_ids = {"url": "https://github.com/pciutils/pciids/blob/master/pci.ids", "label": "pci.ids"}
    return {"sources": {"pci_ids": pci_ids}, "device": [row]}


def test_parse_device_table_rejects_malformed_rows() -> None:
    assert ("0x1002", "0x744c") in parse_device_table(table_doc())
    with pytest.raises(DeviceTableError, match="duplicate"):
        parse_device_table({**table_doc(), "device": table_doc()["device"] * 2})
    with pytest.raises(DeviceTableError, match="non-empty list"):
        parse_device_table(table_doc(sources=[]))
    with pytest.raises(DeviceTableError, match="non-empty list"):
        parse_device_table(table_doc(sources="facts.md §1.3: pci.ids [V]"))
    with pytest.raises(DeviceTableError, match="neither"):
        parse_device_table(table_doc(sources=["pci.ids"]))
    with pytest.raises(DeviceTableError, match="internal notes"):
        parse_device_table({**table_doc(), "sources": {"pci_ids": {
            "url": "https://github.com/pciutils/pciids", "label": "pci.ids [V]"}}})
    entry = parse_device_table(table_doc(sources=["pci_ids", "https://example.com/navi31"]))
    assert entry[("0x1002", "0x744c")].source == (
        "pci.ids (https://github.com/pciutils/pciids/blob/master/pci.ids); "
        "https://example.com/navi31")
    with pytest.raises(DeviceTableError, match="unknown kind"):
        parse_device_table(table_doc(kind="gaseous"))
    with pytest.raises(DeviceTableError, match=re.escape("no [[device.card]]")):
        parse_device_table(table_doc(card=[]))
    with pytest.raises(DeviceTableError, match="unknown card"):
        parse_device_table(table_doc(board=[{"subsystem": "0x1da2:0xe471", "card": "Y"}]))
    with pytest.raises(DeviceTableError, match="vram_gib"):
        parse_device_table(table_doc(card=[{"name": "AMD Radeon X", "vram_gib": "lots"}]))
    with pytest.raises(DeviceTableError, match="bad ids"):
        parse_device_table(table_doc(device_id="navi"))
    with pytest.raises(DeviceTableError):
        parse_device_table({})


def test_joined_names() -> None:
    assert joined_names(["AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XT",
                         "AMD Radeon RX 7900 GRE"]) == "AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE"
    assert joined_names(["NVIDIA GeForce RTX 4080", "NVIDIA GeForce RTX 4080 SUPER"]) == (
        "NVIDIA GeForce RTX 4080 / 4080 SUPER")
    assert joined_names(["AMD Radeon 780M", "AMD Radeon 760M"]) == "AMD Radeon 780M / 760M"
    assert joined_names(["AMD Instinct MI250", "AMD Radeon VII"]) == (
        "AMD Instinct MI250 / Radeon VII")
    assert joined_names(["Only"]) == "Only"
    assert joined_names([]) == ""


def test_normalise_id() -> None:
    assert normalise_id("0x744C") == "0x744c"
    assert normalise_id("2") == "0x0002"
    assert normalise_id("0xZZ") is None
