"""rocm-smi importer (--json and text): corpus cases 001, 024, 031, 035 and the fixtures under
tests/fixtures/outputs/rocm-smi/ (see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers import rocm_smi

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "rocm-smi"


def _corpus(case: str, name: str) -> ParsedOutput:
    folder = next(CORPUS.glob(f"{case}-*"))
    return rocm_smi.parse(read(folder / name), name)


def _output(name: str) -> ParsedOutput:
    return rocm_smi.parse(read(OUTPUTS / name), name)


REAL_TEXTS = [
    *(read(p) for p in sorted(CORPUS.glob("*/rocm-smi*"))),
    *(read(p) for p in sorted(OUTPUTS.glob("*.*")) if p.suffix in {".txt", ".json"}),
]


# ----------------------------------------------------------------------------- corpus


def test_001_mi100_json_four_cards() -> None:
    parsed = _corpus("001", "rocm-smi.json")
    assert parsed.format == "rocm-smi-json" and not parsed.problems
    assert len(parsed.sightings) == 4
    buses = [s.facts.pci_bus for s in parsed.sightings]
    assert buses == ["0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"]
    for index, sighting in enumerate(parsed.sightings):
        facts = sighting.facts
        assert sighting.layer is Layer.ROCM_SMI
        assert facts.vendor is Vendor.AMD
        assert facts.smi_index == index
        assert facts.pci_device_id == "0x738c"
        assert facts.vram_total_bytes == 34342961152
        assert facts.name == "Arcturus GL-XL [Instinct MI100]"
        assert facts.gfx_target is None  # no GFX Version key: the inventory maps 0x738c
        assert "gfx_target" in sighting.missing_reasons
        assert facts.power_cap_w == 290.0
    first = parsed.sightings[0]
    assert first.field_sources["pci_device_id"] == "rocm-smi.json:3"
    assert first.field_sources["pci_bus"] == "rocm-smi.json:49"
    assert first.facts.uuid == "0x79ccd55167a2124a"


def test_001_driver_version_and_no_kfd_facts() -> None:
    parsed = _corpus("001", "rocm-smi.json")
    assert fact(parsed, "amdgpu_driver_version") == "6.3.6"
    assert fact(parsed, "amdgpu_loaded") is True
    assert fact(parsed, "kfd_loaded") == "absent"  # rocm-smi proves nothing about KFD
    assert [f.source for f in parsed.stack_facts if f.key == "amdgpu_driver_version"] == [
        "rocm-smi.json:291"]


def test_024_no_drm_devices() -> None:
    parsed = _corpus("024", "rocm-smi.txt")
    assert parsed.sightings == ()
    signal = signals_of(parsed, "amdgpu.no_drm_devices")
    assert len(signal) == 1 and [e.line for e in signal[0].evidence] == [1, 2]
    assert fact(parsed, "amdgpu_loaded") == "absent"


def test_031_tpx_table_three_partitions() -> None:
    parsed = _corpus("031", "rocm-smi-tpx.txt")
    assert parsed.format == "rocm-smi-text"
    assert len(parsed.sightings) == 3
    for index, sighting in enumerate(parsed.sightings):
        facts = sighting.facts
        assert facts.smi_index == index
        assert facts.kind is GpuKind.PARTITION
        assert facts.pci_device_id == "0x74a0"
        assert facts.kfd_node == index + 1
        assert facts.power_cap_w == 550.0
    assert [s.facts.kfd_gpu_id for s in parsed.sightings] == [39408, 8689, 43505]
    modes = signals_of(parsed, "gpu.partition_mode")
    assert [s.detail for s in modes] == ["TPX"]
    assert [e.line for e in modes[0].evidence] == [8, 9, 10]


def test_031_meminfo_vram_per_partition() -> None:
    parsed = _corpus("031", "rocm-smi-showmeminfo-vram-tpx.txt")
    assert [s.facts.vram_total_bytes for s in parsed.sightings] == [33580773376] * 3
    assert [s.facts.smi_index for s in parsed.sightings] == [0, 1, 2]
    assert parsed.sightings[2].field_sources["vram_total_bytes"] == (
        "rocm-smi-showmeminfo-vram-tpx.txt:9")


def test_031_spx_is_no_partition() -> None:
    table = _corpus("031", "rocm-smi-spx.txt")
    # SPX is no partition; the MI300A (0x74a0) is an APU, so its one GPU is integrated
    assert len(table.sightings) == 1 and table.sightings[0].facts.kind is GpuKind.INTEGRATED
    assert signals_of(table, "gpu.partition_mode") == []
    ids = _corpus("031", "rocm-smi-i-spx.txt")
    facts = ids.sightings[0].facts
    assert (facts.name, facts.pci_device_id, facts.pci_subsystem_device_id, facts.kfd_gpu_id
            ) == ("AMD Instinct MI300A", "0x74a0", "0x74a0", 32223)
    assert facts.pci_revision == "0x00"


def test_035_rocm5_concise_table() -> None:
    parsed = _corpus("035", "rocm-smi.txt")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert facts.smi_index == 0 and facts.power_cap_w == 186.0
    assert facts.pci_bus is None and facts.name is None
    assert fact(parsed, "amdgpu_loaded") is True


# ----------------------------------------------------------------------------- fixtures


def test_rocm612_json_gfx_version_and_ids() -> None:
    parsed = _output("rx6700xt-rocm612.json")
    facts = parsed.sightings[0].facts
    assert facts.gfx_target == "gfx1031"
    assert facts.pci_device_id == "0x73df" and facts.pci_revision == "0xc1"
    assert facts.pci_subsystem_device_id == "0x6601"
    assert facts.kfd_node == 1 and facts.kfd_gpu_id == 55069
    assert facts.name == "Navi 22 [Radeon RX 6700/6700 XT / 6800M]"
    assert facts.visible_vram_total_bytes == 268435456
    assert facts.uuid is None  # "N/A"


def test_rocm430_json_hex_card_series_is_no_name() -> None:
    parsed = _output("rx6700xt-rocm430.json")
    sighting = parsed.sightings[0]
    assert sighting.facts.pci_device_id == "0x73df"  # "GPU ID"
    assert sighting.facts.name is None and "0x1002" in sighting.missing_reasons["name"]
    assert sighting.facts.board_name is None
    assert fact(parsed, "amdgpu_driver_version") == "6.3.6"


def test_in_tree_driver_version_is_the_kernel() -> None:
    parsed = _output("rx6600-pve-showallinfo.json")
    assert fact(parsed, "kernel") == "7.0.0-3-pve"
    assert fact(parsed, "amdgpu_driver_version") is None
    facts = parsed.sightings[0].facts
    assert facts.gfx_target == "gfx1032" and facts.pci_bus == "0000:0b:00.0"


def test_rocm40_showproductname_hex_series() -> None:
    parsed = _output("mi100-rocm40-showproductname.txt")
    sighting = parsed.sightings[0]
    assert sighting.facts.name is None
    assert "0x738c" in sighting.missing_reasons["name"]
    assert sighting.field_sources["smi_index"] == "mi100-rocm40-showproductname.txt:3"


def test_rocm6_model_revision_layout_with_name_line() -> None:
    parsed = _output("mi300x-x4-rocm6-concise.txt")
    assert len(parsed.sightings) == 4
    for sighting in parsed.sightings:
        assert sighting.facts.name == "AMD Instinct MI300X"
        assert sighting.facts.pci_device_id == "0x74a1"
        assert sighting.facts.pci_revision == "0x00"
        assert sighting.facts.power_cap_w == 750.0
        assert sighting.facts.kind is None
    assert parsed.sightings[1].field_sources["name"] == "mi300x-x4-rocm6-concise.txt:10"


def test_showall_sections_merge_per_gpu() -> None:
    parsed = _output("mi300x-x4-rocm6-showall-head.txt")
    assert len(parsed.sightings) == 4
    assert fact(parsed, "amdgpu_driver_version") == "6.7.0"
    third = parsed.sightings[2].facts
    assert (third.pci_device_id, third.uuid, third.vbios_version, third.power_cap_w) == (
        "0x74a1", "0xe8986800e182538a", "113-MI3SRIOV-001", 750.0)


def test_rocm62_amd_smi_compat_table_with_decimal_did() -> None:
    # `amd-smi --rocm-smi` prints the DID in decimal (29856 = 0x74a0).
    text = (
        "=============== ROCm System Management Interface ===============\n"
        "Device  Node  IDs         Temp      Power    Partitions          SCLK     MCLK     "
        "Fan   Perf   PwrCap  VRAM%  GPU%\n"
        "            (DID,  GUID)  (Edge)    (Avg)    (Mem, Compute, ID)\n"
        "=================================================================\n"
        "0       1     29856,  63046  47.0°C  110.0W   NPS1, CPX, 0        210Mhz   1300Mhz  "
        "0%    auto   550.0W  0%     0%\n")
    parsed = rocm_smi.parse(text, "compat")
    facts = parsed.sightings[0].facts
    assert (facts.pci_device_id, facts.kfd_gpu_id, facts.kind) == (
        "0x74a0", 63046, GpuKind.PARTITION)
    assert [s.detail for s in signals_of(parsed, "gpu.partition_mode")] == ["CPX"]


def test_showcomputepartition_and_showproductname_sections() -> None:
    text = (
        "\n\n============================ ROCm System Management Interface ==================\n"
        "=============================== Current Compute Partition ======================\n"
        "GPU[0]\t\t: Compute Partition: DPX\n"
        "GPU[1]\t\t: Compute Partition: DPX\n"
        "================================== Product Info ================================\n"
        "GPU[0]\t\t: Card Series: \t\tAMD Instinct MI300X\n"
        "GPU[0]\t\t: GFX Version: \t\tgfx9402\n"
        "GPU[1]\t\t: Card Series: \t\tAMD Instinct MI300X\n"
        "=================================== PCI Bus ID =================================\n"
        "GPU[0]\t\t: PCI Bus: 0000:0C:00.0\n"
        "============================= End of ROCm SMI Log ==============================\n")
    parsed = rocm_smi.parse(text, "sections.txt")
    first, second = parsed.sightings
    assert (first.facts.kind, first.facts.gfx_target, first.facts.pci_bus) == (
        GpuKind.PARTITION, "gfx942", "0000:0c:00.0")
    assert first.field_sources["kind"] == "sections.txt:5"
    assert second.facts.kind is GpuKind.PARTITION and second.facts.pci_bus is None
    assert [s.detail for s in signals_of(parsed, "gpu.partition_mode")] == ["DPX"]


@pytest.mark.parametrize(("value", "target"), [
    ("gfx11001", "gfx1101"), ("gfx9010", "gfx90a"), ("gfx9402", "gfx942"),
    ("gfx11000", "gfx1100"), ("gfx10300", "gfx1030"), ("gfx12001", "gfx1201"),
    ("gfx908", "gfx908"), ("gfx1031", "gfx1031"), ("gfx90a", "gfx90a"), ("gfx1151", "gfx1151"),
    ("gfx942:sramecc+:xnack-", "gfx942"), ("N/A", None), ("gfx9999", None),
])
def test_gfx_version_decoding(value: str, target: str | None) -> None:
    assert rocm_smi.decode_gfx_version(value) == target


def test_json_with_warning_before_it() -> None:
    text = ("WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/"
            'runtime_status\n{"card0": {"GFX Version": "gfx11001", "PCI Bus": "0000:03:00.0"}}\n')
    parsed = rocm_smi.parse(text, "warn.json")
    assert parsed.format == "rocm-smi-json"
    assert parsed.sightings[0].facts.gfx_target == "gfx1101"
    assert parsed.sightings[0].facts.pci_bus == "0000:03:00.0"


def test_cut_json_is_read_pair_by_pair() -> None:
    parsed = rocm_smi.parse('{"card0": {"Device ID": "0x738c", "PCI Bus": "0000:83:00.0", '
                            '"Card series": "Arcturus', "broken.json")
    assert parsed.format == "rocm-smi-json"
    assert parsed.problems and "not valid JSON" in parsed.problems[0]
    facts = parsed.sightings[0].facts
    assert (facts.pci_device_id, facts.pci_bus, facts.name) == ("0x738c", "0000:83:00.0", None)


def test_single_line_json_as_rocm_smi_prints_it() -> None:
    text = read(next(CORPUS.glob("001-*")) / "rocm-smi.json")
    one_line = json.dumps(json.loads(text))
    parsed = rocm_smi.parse(one_line, "one.json")
    assert [s.facts.pci_bus for s in parsed.sightings][-1] == "0000:e3:00.0"
    assert parsed.sightings[0].field_sources["pci_bus"] == "one.json:1"


def test_sniff_keeps_formats_apart() -> None:
    assert rocm_smi.sniff(read(next(CORPUS.glob("001-*")) / "rocm-smi.json")) == (
        "rocm-smi-json", 0.93)
    assert rocm_smi.sniff(read(next(CORPUS.glob("035-*")) / "rocm-smi.txt")) == (
        "rocm-smi-text", 0.95)
    for other in ("013-*/rocminfo.txt", "024-*/clinfo.txt", "031-*/amd-smi-version.txt",
                  "016-*/nvidia-smi.txt", "004-*/nvidia-smi-q.xml"):
        assert rocm_smi.sniff(read(next(CORPUS.glob(other)))) is None, other


# ----------------------------------------------------------------------------- --showhw


def test_106_showhw_rocm5_layout_ids_buses_and_vbios() -> None:
    parsed = _corpus("106", "rocm-smi-showhw.txt")
    assert parsed.format == "rocm-smi-text" and not parsed.problems
    ids = [(s.facts.smi_index, s.facts.pci_device_id, s.facts.pci_bus, s.facts.vbios_version)
           for s in parsed.sightings]
    assert ids == [(0, "0x164e", "0000:12:00.0", "102-RAPHAEL-008"),
                   (1, "0x744c", "0000:03:00.0", "115-D702BS0-101")]
    assert parsed.sightings[0].field_sources["pci_device_id"] == "rocm-smi-showhw.txt:4"
    # the Raphael iGPU (0x164e) beside the Navi 31 card: integrated and discrete (unsaid)
    assert [s.facts.kind for s in parsed.sightings] == [GpuKind.INTEGRATED, None]


def test_112_showhw_rocm6_layout_decodes_gfx_ver() -> None:
    parsed = _corpus("112", "rocm-smi-showhw.txt")
    rows = [(f.pci_device_id, f.gfx_target, f.kfd_node, f.kfd_gpu_id, f.pci_bus)
            for f in (s.facts for s in parsed.sightings)]
    assert rows == [
        ("0x7480", "gfx1102", 1, 3799, "0000:03:00.0"),  # rocm-smi prints gfx11002
        ("0x164e", "gfx1036", 2, 39463, "0000:12:00.0")]


def test_showhw_masked_guid_is_no_kfd_id() -> None:
    parsed = _output("showhw-rocm64-mi210x2-issue5315.txt")
    rows = [(s.facts.pci_bus, s.facts.gfx_target, s.facts.kfd_gpu_id) for s in parsed.sightings]
    assert rows == [("0000:18:00.0", "gfx90a", None),
                    ("0000:42:00.0", "gfx90a", None)]  # GUID 544XX: masked


def test_showhw_partitions_sharing_a_bus_stay_apart() -> None:
    parsed = _output("showhw-rocm611-mi300a-tpx-changelog.txt")
    assert len(parsed.sightings) == 12
    assert all(s.facts.kind is GpuKind.PARTITION and s.facts.pci_bus is None
               for s in parsed.sightings)
    assert "3 partitions share the PCI address 0001:01:00.0" in (
        parsed.sightings[4].missing_reasons["pci_bus"])
    assert [s.facts.kfd_node for s in parsed.sightings] == list(range(4, 16))


def test_showhw_rocm43_with_other_sections() -> None:
    parsed = _output("showhw-rocm431-rx5700xt-fedora34-blog.txt")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert (facts.pci_device_id, facts.pci_bus, facts.vbios_version) == (
        "0x731f", "0000:0c:00.0", "115-D182PI0-100")  # DID printed without 0x is hex
    assert fact(parsed, "kernel") == "5.14.11-200.fc34.x86_64"


def test_showhw_rocm18_layout_without_banner() -> None:
    text = read(OUTPUTS / "hw-rocm18-vega-x6-issue511.txt")
    assert rocm_smi.sniff(text) == ("rocm-smi-text", 0.85)
    parsed = rocm_smi.parse(text, "hw.txt")
    by_index = {s.facts.smi_index: s.facts for s in parsed.sightings}
    assert sorted(by_index) == list(range(7))
    assert by_index[5].pci_device_id == "0x687f" and by_index[5].vbios_version == (
        "113-D0500100-103")
    assert by_index[0].vbios_version is None  # "None"


def test_showhw_and_the_default_table_merge_by_index() -> None:
    table = _corpus("106", "rocm-smi.txt")
    showhw = _corpus("106", "rocm-smi-showhw.txt")
    from gpuscope.importer import import_texts

    machine = import_texts([("rocm-smi.txt", read(next(CORPUS.glob("106-*")) / "rocm-smi.txt")),
                            ("hw.txt", read(next(CORPUS.glob("106-*")) / "rocm-smi-showhw.txt"))])
    assert len(table.sightings) == len(showhw.sightings) == len(machine.inventory.gpus) == 2
    igpu = next(g for g in machine.inventory.gpus if g.pci_device_id == "0x164e")
    assert (igpu.kind, igpu.gfx_target, igpu.power_cap_w) == (GpuKind.INTEGRATED, "gfx1036", None)


def test_showhw_cut_row_is_read_by_column_offsets() -> None:
    text = ("GPU  DID   GFX RAS  SDMA RAS  UMC RAS  VBIOS            BUS\n"
            "0    731f  N/A      N/A       N/A                       0000:0C:00.0\n")
    facts = rocm_smi.parse(text, "cut").sightings[0].facts
    assert (facts.pci_device_id, facts.vbios_version, facts.pci_bus) == (
        "0x731f", None, "0000:0c:00.0")


# ----------------------------------------------------------------------------- properties


def _assert_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    for sighting in parsed.sightings:
        assert sighting.layer is Layer.ROCM_SMI and sighting.facts.smi_index is not None


(
    test_random_text_never_raises,
    test_truncated_real_outputs_never_raise,
    test_shuffled_real_outputs_never_raise,
) = property_tests(rocm_smi.sniff, rocm_smi.parse, REAL_TEXTS, _assert_clean)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=30), st.one_of(
    st.text(max_size=30), st.integers(), st.none(), st.booleans(),
    st.dictionaries(st.text(max_size=20), st.text(max_size=20), max_size=5)), max_size=8))
def test_arbitrary_json_cards_never_raise(card: dict[str, object]) -> None:
    text = json.dumps({"card0": card, "system": {"Driver version": card.get("x", "6.3.6")}})
    _assert_clean(rocm_smi.parse(text, "random.json"))
