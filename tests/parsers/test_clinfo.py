"""clinfo importer: corpus case 024 and the fixtures under tests/fixtures/outputs/clinfo/ (see
SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import assert_clean, property_tests, read, signals_of

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers import clinfo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "clinfo"


def _output(name: str) -> ParsedOutput:
    return clinfo.parse(read(OUTPUTS / name), name)


def _details(parsed: ParsedOutput, kind: str) -> list[str | None]:
    return [s.detail for s in signals_of(parsed, kind)]


REAL_TEXTS = [
    read(next(CORPUS.glob("024-*")) / "clinfo.txt"),
    *(read(p) for p in sorted(OUTPUTS.glob("*.txt"))),
]


def test_024_platform_without_devices() -> None:
    parsed = clinfo.parse(read(next(CORPUS.glob("024-*")) / "clinfo.txt"), "clinfo.txt")
    assert parsed.format == "clinfo" and parsed.sightings == ()
    present = signals_of(parsed, "opencl.platform_present")
    assert [s.detail for s in present] == ["AMD Accelerated Parallel Processing"]
    assert present[0].evidence[0].line == 4
    empty = signals_of(parsed, "opencl.no_devices")
    assert [s.detail for s in empty] == ["AMD Accelerated Parallel Processing"]
    assert empty[0].evidence[0].line == 10


def test_amd_clinfo_layout_of_rocm19() -> None:
    parsed = _output("rocm19-gfx900-amd-clinfo.txt")
    assert len(parsed.sightings) == 1
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert sighting.layer is Layer.OPENCL and facts.vendor is Vendor.AMD
    assert facts.gfx_target == "gfx900"
    assert facts.pci_bus == "0000:03:00.0"  # PCI[ B#3, D#0, F#0 ]
    assert facts.pci_device_id == "0x687f"  # "Board name: Device 687f" is no name
    assert facts.name is None
    assert facts.vram_total_bytes == 8573157376
    assert facts.compute_units == 56  # GCN: OpenCL counts CUs
    assert facts.max_graphics_clock_mhz == 1622
    assert facts.kind is None  # "Unified memory for Host and Device: 0"
    assert sighting.field_sources["pci_bus"] == "rocm19-gfx900-amd-clinfo.txt:14"
    assert _details(parsed, "opencl.platform_present") == [
        "AMD Accelerated Parallel Processing"]
    assert signals_of(parsed, "opencl.no_devices") == []


def test_ocl_icd_clinfo_interleaved_with_dmesg() -> None:
    parsed = _output("rocm-gfx701-hawaii-issue1624.txt")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert facts.name == "AMD Radeon (TM) R9 390 Series"
    assert facts.gfx_target == "gfx701"
    assert facts.pci_device_id == "0x67b0"
    assert facts.pci_bus == "0000:41:00.0"
    assert facts.compute_units == 44
    assert facts.vram_total_bytes is None  # the paste stops before "Global memory size"


def test_list_output() -> None:
    parsed = _output("list-gfx701-issue1624.txt")
    assert [(s.facts.gfx_target, s.facts.vendor) for s in parsed.sightings] == [
        ("gfx701", Vendor.AMD)]
    assert "clinfo -l" in parsed.sightings[0].missing_reasons["pci_bus"]
    assert signals_of(parsed, "opencl.no_devices") == []


def test_list_with_an_empty_amd_platform_intel_and_nvidia() -> None:
    parsed = _output("list-amd-no-devices-intel-nvidia-canopy.txt")
    assert [(s.facts.vendor, s.facts.name) for s in parsed.sightings] == [
        (Vendor.NVIDIA, "NVIDIA GeForce GTX 1660 SUPER")]
    assert _details(parsed, "opencl.no_devices") == ["AMD Accelerated Parallel Processing"]
    assert _details(parsed, "opencl.platform_present") == [
        "AMD Accelerated Parallel Processing", "Intel(R) OpenCL Graphics", "Intel(R) OpenCL",
        "Intel(R) FPGA Emulation Platform for OpenCL(TM)", "NVIDIA CUDA"]


def test_rdna_compute_units_are_work_group_processors() -> None:
    text = "\n".join([
        "Number of platforms                               1",
        "  Platform Name                                   AMD Accelerated Parallel Processing",
        "  Platform Name                                   AMD Accelerated Parallel Processing",
        "Number of devices                                 1",
        "  Device Name                                     gfx1100",
        "  Device Vendor ID                                0x1002",
        "  Device Type                                     GPU",
        "  Device Board Name (AMD)                         Radeon RX 7900 XTX",
        "  Device PCI-e ID (AMD)                           0x744c",
        "  Device Topology (AMD)                           PCI-E, 0000:2d:00.0",
        "  Max compute units                               48",
        "  Global memory size                              25753026560 (23.98GiB)",
        "  Unified memory for Host and Device              No",
    ])
    sighting = clinfo.parse(text, "p").sightings[0]
    assert sighting.facts.compute_units is None
    assert "work-group" in sighting.missing_reasons["compute_units"]
    assert (sighting.facts.pci_bus, sighting.facts.vram_total_bytes) == (
        "0000:2d:00.0", 25753026560)


def test_cpu_and_mesa_devices_are_no_sightings_and_apu_kind() -> None:
    text = "\n".join([
        "Number of platforms                               2",
        "  Platform Name                                   Clover",
        "  Platform Vendor                                 Mesa",
        "  Platform Name                                   AMD Accelerated Parallel Processing",
        "",
        "  Platform Name                                   Clover",
        "Number of devices                                 1",
        "  Device Name                                     Radeon RX 580 Series (polaris10)",
        "  Device Vendor                                   AMD",
        "  Device Type                                     GPU",
        "",
        "  Platform Name                                   AMD Accelerated Parallel Processing",
        "Number of devices                                 2",
        "  Device Name                                     AMD Ryzen 7 5800H",
        "  Device Vendor ID                                0x1002",
        "  Device Type                                     CPU",
        "  Device Name                                     gfx90c:xnack-",
        "  Device Vendor ID                                0x1002",
        "  Device Type                                     GPU",
        "  Unified memory for Host and Device              Yes",
        "",
        "NULL platform behavior",
        "  clGetPlatformInfo(NULL, CL_PLATFORM_NAME, ...)  Clover",
        "    Device Name                                   gfx90c",
    ])
    parsed = clinfo.parse(text, "p")
    assert [s.facts.gfx_target for s in parsed.sightings] == ["gfx90c"]
    assert parsed.sightings[0].facts.kind is GpuKind.INTEGRATED


def test_nvidia_device_and_driver() -> None:
    text = "\n".join([
        "Number of platforms                               1",
        "  Platform Name                                   NVIDIA CUDA",
        "  Platform Name                                   NVIDIA CUDA",
        "Number of devices                                 1",
        "  Device Name                                     NVIDIA GeForce RTX 3090",
        "  Device Vendor                                   NVIDIA Corporation",
        "  Device Vendor ID                                0x10de",
        "  Driver Version                                  535.104.05",
        "  Device Type                                     GPU",
        "  Device Topology (NV)                            PCI-E, 01:00.0",
        "  Max compute units                               82",
        "  NVIDIA Compute Capability                       8.6",
    ])
    parsed = clinfo.parse(text, "p")
    facts = parsed.sightings[0].facts
    assert (facts.vendor, facts.pci_bus, facts.compute_units, facts.compute_capability) == (
        Vendor.NVIDIA, "0000:01:00.0", 82, "8.6")
    assert [(f.key, f.value) for f in parsed.stack_facts] == [
        ("nvidia_driver_version", "535.104.05")]


def test_no_platforms() -> None:
    parsed = clinfo.parse("Number of platforms                               0\n", "p")
    assert _details(parsed, "opencl.no_platforms") == [None]


def test_sniff_keeps_formats_apart() -> None:
    assert clinfo.sniff(read(next(CORPUS.glob("024-*")) / "clinfo.txt")) == ("clinfo", 0.95)
    for other in ("001-*/rocm-smi.json", "013-*/rocminfo.txt", "024-*/rocminfo.txt",
                  "031-*/amd-smi-version.txt", "016-*/nvidia-smi.txt"):
        assert clinfo.sniff(read(next(CORPUS.glob(other)))) is None, other


def _assert_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    for sighting in parsed.sightings:
        assert sighting.layer is Layer.OPENCL
        assert sighting.facts.vendor in (Vendor.AMD, Vendor.NVIDIA)


(
    test_random_text_never_raises,
    test_truncated_real_outputs_never_raise,
    test_shuffled_real_outputs_never_raise,
) = property_tests(clinfo.sniff, clinfo.parse, REAL_TEXTS, _assert_clean)


def test_an_apu_target_reads_as_integrated() -> None:
    # The same ROCm clinfo layout with the device an iGPU target (gfx1036, Raphael).
    text = read(OUTPUTS / "rocm19-gfx900-amd-clinfo.txt").replace("gfx900", "gfx1036")
    parsed = clinfo.parse(text, "clinfo.txt")
    assert_clean(parsed)
    assert [(s.facts.gfx_target, s.facts.kind) for s in parsed.sightings] == [
        ("gfx1036", GpuKind.INTEGRATED)]
