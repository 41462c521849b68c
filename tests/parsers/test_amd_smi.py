"""amd-smi importer (text and --json): corpus cases 031 and 261 and the fixtures under
tests/fixtures/outputs/amd-smi/ (see SOURCES.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers import amd_smi

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "amd-smi"


def _output(name: str) -> ParsedOutput:
    return amd_smi.parse(read(OUTPUTS / name), name)


REAL_TEXTS = [
    read(next(CORPUS.glob("031-*")) / "amd-smi-version.txt"),
    *(read(p) for p in sorted(OUTPUTS.glob("*.*")) if p.suffix in {".txt", ".json"}),
]


def test_031_version_line() -> None:
    parsed = amd_smi.parse(read(next(CORPUS.glob("031-*")) / "amd-smi-version.txt"),
                           "amd-smi-version.txt")
    assert parsed.format == "amd-smi-text" and parsed.sightings == ()
    assert fact(parsed, "rocm_version") == "6.3.3"
    assert fact(parsed, "amdsmi_library_version") == "25.1.0.0"
    assert [f.source for f in parsed.stack_facts] == ["amd-smi-version.txt:1"] * 2


def test_version_with_in_tree_amdgpu_gives_the_kernel() -> None:
    parsed = _output("version-rocm72-strix-point.txt")
    assert fact(parsed, "amdsmi_library_version") == "26.2.1"
    assert fact(parsed, "rocm_version") == "7.2.0"
    assert fact(parsed, "kernel") == "6.17.0-1012-oem"
    assert fact(parsed, "amdgpu_driver_version") is None


def test_list_indented_by_a_blog() -> None:
    parsed = _output("list-rocm72-strix-point.txt")
    assert len(parsed.sightings) == 1
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert sighting.layer is Layer.AMDSMI and facts.vendor is Vendor.AMD
    assert (facts.smi_index, facts.pci_bus, facts.kfd_gpu_id, facts.kfd_node) == (
        0, "0000:c5:00.0", 57812, 1)
    assert facts.uuid == "00ff150e-0000-1000-8000-000000000000"
    assert sighting.field_sources["kfd_gpu_id"] == "list-rocm72-strix-point.txt:4"


def test_list_of_rocm62_with_bdf_and_uuid_only() -> None:
    parsed = _output("list-mi300x-rocm-blog.txt")
    assert [s.facts.pci_bus for s in parsed.sightings] == [
        "0000:05:00.0", "0000:26:00.0", "0000:46:00.0"]
    assert [s.facts.smi_index for s in parsed.sightings] == [0, 1, 2]


def test_static_apu_text() -> None:
    parsed = _output("static-rocm72-strix-point.txt")
    assert len(parsed.sightings) == 1
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert facts.name == "AMD Radeon Graphics"
    assert facts.gfx_target == "gfx1150"
    assert facts.pci_device_id == "0x150e" and facts.pci_vendor_id == "0x1002"
    assert facts.pci_subsystem_vendor_id == "0x1f4c"
    assert facts.pci_subsystem_device_id == "0xb020" and facts.pci_revision == "0xe4"
    assert facts.compute_units == 16
    assert facts.pci_bus == "0000:c5:00.0"
    assert facts.vram_total_bytes == 65536 * 1024**2
    assert facts.kernel_driver == "amdgpu"
    assert facts.driver_version is None and "in-tree" in sighting.missing_reasons[
        "driver_version"]
    assert facts.pcie_link is None  # MAX_PCIE_* are N/A on the APU
    assert facts.power_cap_w is None
    assert facts.vbios_version == "113-STRIXEMU-001"
    assert fact(parsed, "kernel") == "6.17.0-1012-oem"
    assert sighting.field_sources["gfx_target"] == "static-rocm72-strix-point.txt:13"


def test_static_mi300a_docs_sample() -> None:
    parsed = _output("static-mi300a-docs.txt")
    assert len(parsed.sightings) == 1  # the CPU block is no GPU
    facts = parsed.sightings[0].facts
    assert (facts.name, facts.board_name) == ("AMD Instinct MI300A",
                                              "Aqua Vanjaram [Instinct MI300A]")
    assert (facts.gfx_target, facts.pci_device_id, facts.compute_units) == (
        "gfx942", "0x74a0", 228)
    assert facts.vram_total_bytes == 96432 * 1024**2
    assert facts.pcie_link is not None
    assert (facts.pcie_link.max_speed_gt_s, facts.pcie_link.max_width) == (32.0, 16)
    assert (facts.power_cap_w, facts.power_cap_max_w) == (550.0, 550.0)
    assert facts.driver_version == "6.14.4"
    assert facts.kind is GpuKind.INTEGRATED  # SPX: the MI300A is an APU
    assert fact(parsed, "amdgpu_driver_version") == "6.14.4"
    assert signals_of(parsed, "gpu.partition_mode") == []


def test_default_table_of_amd_smi_26() -> None:
    parsed = _output("default-mi300a-docs.txt")
    assert fact(parsed, "rocm_version") == "7.2.0"
    assert fact(parsed, "amdgpu_driver_version") == "6.14.4"
    assert [s.facts.pci_bus for s in parsed.sightings] == [
        "0000:01:00.0", "0001:01:00.0", "0002:01:00.0", "0003:01:00.0"]
    for index, sighting in enumerate(parsed.sightings):
        assert sighting.facts.smi_index == index
        assert sighting.facts.vram_total_bytes == 96432 * 1024**2
        assert sighting.facts.power_cap_w == 550.0
        assert sighting.facts.name is None  # "...nstinct MI300A]" is cut
        assert "cuts" in sighting.missing_reasons["name"]


def test_static_json_list_with_value_unit_objects() -> None:
    parsed = _output("static-json-rx6600-pve.json")
    assert parsed.format == "amd-smi-json" and not parsed.problems
    assert len(parsed.sightings) == 1
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert facts.pci_bus == "0000:0b:00.0"
    assert facts.pci_device_id == "0x73ff" and facts.pci_revision == "0xc7"
    assert facts.vram_total_bytes == 8176 * 1024**2
    assert facts.pcie_link is not None and facts.pcie_link.max_speed_gt_s == 16.0
    assert (facts.power_cap_w, facts.power_cap_max_w) == (100.0, 100.0)
    assert facts.gfx_target is None  # this release prints no target_graphics_version
    assert facts.vbios_version == "115-D534P00-100"
    assert fact(parsed, "kernel") == "7.0.0-3-pve"
    assert sighting.field_sources["pci_device_id"] == "static-json-rx6600-pve.json:9"


def test_json_of_newer_releases_and_several_documents() -> None:
    version = [{"tool": "AMDSMI Tool", "version": "26.2.0+021c61fc",
                "amdsmi_library_version": "26.2.0", "rocm_version": "7.0.2",
                "amdgpu_version": "6.16.6", "amd_hsmp_driver_version": "N/A"}]
    static = {"gpu_data": [
        {"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X VF", "device_id": "0x74b5",
                            "target_graphics_version": "gfx942", "num_compute_units": 304},
         "bus": {"bdf": "0000:03:00.0", "max_pcie_speed": {"value": 32, "unit": "GT/s"}},
         "partition": {"compute_partition": "CPX", "memory_partition": "NPS4"},
         "limit": {"ppt0": {"socket_power_limit": {"value": 750, "unit": "W"}}},
         "vram": {"size": {"value": 192, "unit": "GB"}}}]}
    text = "WARNING: banner\n" + json.dumps(version) + "\n" + json.dumps(static, indent=2)
    parsed = amd_smi.parse(text, "paste.json")
    assert parsed.format == "amd-smi-json"
    assert fact(parsed, "amdsmi_library_version") == "26.2.0"
    assert fact(parsed, "rocm_version") == "7.0.2"
    assert fact(parsed, "amdgpu_driver_version") == "6.16.6"
    facts = parsed.sightings[0].facts
    assert (facts.gfx_target, facts.compute_units, facts.kind) == (
        "gfx942", 304, GpuKind.PARTITION)
    assert facts.vram_total_bytes == 192 * 1024**3
    assert facts.power_cap_w == 750.0
    assert [s.detail for s in signals_of(parsed, "gpu.partition_mode")] == ["CPX"]
    assert [s.detail for s in signals_of(parsed, "gpu.virtual_function")] == ["0000:03:00.0"]


def test_errors_and_platform() -> None:
    text = ("AMD System Management Interface | Version: 24.6.4.0 | ROCm version: 6.2.2 | "
            "Platform: Linux Guest (Passthrough)\n"
            "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n"
            "\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded\n")
    parsed = amd_smi.parse(text, "err.txt")
    assert fact(parsed, "rocm_version") == "6.2.2"
    assert fact(parsed, "virtual_machine") is True
    assert signals_of(parsed, "amdsmi.driver_not_loaded")[0].evidence[0].line == 3


def test_title_case_keys_of_older_releases() -> None:
    text = ("GPU: 0\n    ASIC:\n        Market Name: \t\t AMD Radeon RX 7900 XTX\n"
            "        TARGET_GRAPHICS_VERSION: gfx11000\n    BUS:\n        BDF: 0000:2D:00.0\n")
    facts = amd_smi.parse(text, "old.txt").sightings[0].facts
    assert (facts.name, facts.gfx_target, facts.pci_bus) == (
        "AMD Radeon RX 7900 XTX", "gfx1100", "0000:2d:00.0")


def test_sniff_keeps_formats_apart() -> None:
    assert amd_smi.sniff(read(OUTPUTS / "static-json-rx6600-pve.json")) == (
        "amd-smi-json", 0.92)
    assert amd_smi.sniff(read(OUTPUTS / "list-rocm72-strix-point.txt")) is not None
    for other in ("001-*/rocm-smi.json", "013-*/rocminfo.txt", "024-*/clinfo.txt",
                  "031-*/rocm-smi-tpx.txt", "016-*/nvidia-smi.txt", "004-*/nvidia-smi-q.xml"):
        assert amd_smi.sniff(read(next(CORPUS.glob(other)))) is None, other


# ----------------------------------------------------------------------------- monitor, process


def _numbers(parsed: ParsedOutput) -> list[int | None]:
    return [s.facts.smi_index for s in parsed.sightings]


def test_monitor_of_amd_smi_25_names_the_gpu_it_saw() -> None:
    case = next(CORPUS.glob("261-*"))
    parsed = amd_smi.parse(read(case / "amd-smi-monitor.txt"), "amd-smi-monitor.txt")
    assert amd_smi.sniff(read(case / "amd-smi-monitor.txt")) == ("amd-smi-text", 0.88)
    assert parsed.format == "amd-smi-text" and _numbers(parsed) == [0]
    sighting = parsed.sightings[0]
    assert sighting.layer is Layer.AMDSMI and sighting.facts.vendor is Vendor.AMD
    # Readings are not facts: "3.0/191.7 GB" is no VRAM size to trust, 305 W no power cap.
    assert sighting.facts.vram_total_bytes is None and sighting.facts.power_cap_w is None
    assert sighting.field_sources["smi_index"] == "amd-smi-monitor.txt:3"
    # The tool's own group check is not a permission failure of the runtime.
    assert parsed.signals == ()


def test_monitor_with_its_process_table_and_process_blocks() -> None:
    case = next(CORPUS.glob("261-*"))
    both = amd_smi.parse(read(case / "amd-smi-monitor-process.txt"), "both.txt")
    assert _numbers(both) == [0]
    process = amd_smi.parse(read(case / "amd-smi-process.txt"), "process.txt")
    assert amd_smi.sniff(read(case / "amd-smi-process.txt")) == ("amd-smi-text", 0.8)
    assert _numbers(process) == [0]
    assert process.sightings[0].facts.name is None  # the process NAME is not the GPU's
    docs = _output("process-docs-rocm714.txt")
    assert _numbers(docs) == [0, 1]


@pytest.mark.parametrize(("name", "numbers"), [
    ("monitor-mi300a-gtt-docs-rocm714.txt", list(range(4))),
    ("monitor-mi300x-cpx-docs-rocm714.txt", list(range(8))),
    ("monitor-q-process-changelog-rocm62.txt", [0]),
    ("monitor-ptumv-mi300x-changelog.txt", list(range(8))),
    ("monitor-ptv-mi300x-cpx-changelog-rocm63.txt", list(range(32))),
    ("monitor-violation-changelog-rocm63.txt", list(range(16))),
    ("monitor-pcie-changelog.txt", [0]),
    ("monitor-strixhalo-all-na-rocm6035.txt", [0]),
])
def test_monitor_tables_of_every_release(name: str, numbers: list[int]) -> None:
    text = read(OUTPUTS / name)
    assert amd_smi.sniff(text) == ("amd-smi-text", 0.88), name
    parsed = _output(name)
    assert _numbers(parsed) == numbers
    assert all(s.facts.vram_total_bytes is None for s in parsed.sightings)
    assert not parsed.problems


def test_monitor_in_watch_mode_reads_the_number_after_the_timestamp() -> None:
    # amd-smi's logger puts TIMESTAMP (right-aligned to 10) before GPU with --watch.
    text = ("'CTRL' + 'C' to stop watching output:\n"
            " TIMESTAMP  GPU  POWER   GPU_T   MEM_T   GFX_CLK   GFX%   MEM%   ENC%   DEC%"
            "      VRAM_USAGE\n"
            "1753969973    0  750 W   69 \u00b0C   50 \u00b0C  1278 MHz  100 %    1 %    N/A"
            "    0 %    2.0/192.0 GB\n"
            "1753969973    1  178 W   47 \u00b0C   38 \u00b0C  2105 MHz    0 %    0 %    N/A"
            "    0 %    1.7/192.0 GB\n"
            "1753969978    0  748 W   69 \u00b0C   50 \u00b0C  1270 MHz  100 %    1 %    N/A"
            "    0 %    2.0/192.0 GB\n")
    assert amd_smi.sniff(text) == ("amd-smi-text", 0.88)
    assert _numbers(amd_smi.parse(text, "watch.txt")) == [0, 1]


def test_monitor_header_needs_upper_case_amd_smi_columns_and_a_row() -> None:
    # rocm-smi's legacy table and nvidia-smi dmon have a GPU column too.
    legacy = ("GPU  Temp   AvgPwr  SCLK    MCLK    Fan    Perf  PwrCap  VRAM%  GPU%\n"
              "1    25.0c  10.0W   852Mhz  167Mhz  14.9%  auto  170.0W  N/A    0%\n")
    assert amd_smi.sniff(legacy) is None
    dmon = "# gpu   pwr  gtemp  mtemp    sm   mem\n# Idx     W      C      C     %     %\n"
    assert amd_smi.sniff(dmon) is None
    header_only = "GPU  POWER   GPU_T   MEM_T\nthe table was cut here\n"
    assert amd_smi.sniff(header_only) is None
    unknown_columns = "GPU  FOO  BAR\n  0  1  2\n"
    assert amd_smi.sniff(unknown_columns) is None


def test_monitor_and_process_json_records() -> None:
    monitor = json.dumps([{"gpu": 0, "power_usage": {"value": 245, "unit": "W"},
                           "hotspot_temperature": {"value": 63, "unit": "C"},
                           "vram_used": {"value": 8192, "unit": "MB"},
                           "vram_total": {"value": 16384, "unit": "MB"}},
                          {"gpu": 1, "power_usage": "N/A", "vram_total": "N/A"}], indent=4)
    assert amd_smi.sniff(monitor) == ("amd-smi-json", 0.92)
    parsed = amd_smi.parse(monitor, "monitor.json")
    assert parsed.format == "amd-smi-json" and _numbers(parsed) == [0, 1]
    assert parsed.sightings[0].facts.vram_total_bytes is None
    process = json.dumps([{"gpu": 0, "process_list": [{"process_info": {
        "name": "python3", "pid": 12345}}]}])
    assert _numbers(amd_smi.parse(process, "process.json")) == [0]


# ----------------------------------------------------------------------------- properties


def _assert_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    for sighting in parsed.sightings:
        assert sighting.layer is Layer.AMDSMI and sighting.facts.smi_index is not None


(
    test_random_text_never_raises,
    test_truncated_real_outputs_never_raise,
    test_shuffled_real_outputs_never_raise,
) = property_tests(amd_smi.sniff, amd_smi.parse, REAL_TEXTS, _assert_clean)


_JSON_LEAF = st.one_of(st.text(max_size=20), st.integers(), st.floats(allow_nan=False),
                       st.none(), st.booleans())
_JSON = st.recursive(_JSON_LEAF, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.sampled_from(
        ["gpu", "asic", "bus", "bdf", "vram", "size", "value", "unit", "limit", "ppt0",
         "market_name", "target_graphics_version", "partition", "compute_partition",
         "gpu_data", "rocm_version", "amdgpu_version", "driver", "version"]),
        children, max_size=5)), max_leaves=30)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON)
def test_arbitrary_json_shapes_never_raise(document: object) -> None:
    _assert_clean(amd_smi.parse(json.dumps(document), "random.json"))
