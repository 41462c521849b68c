"""rocminfo importer: corpus cases 005, 007, 010, 013, 024, 035 and the fixtures under
tests/fixtures/outputs/rocminfo/ (see SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

import pytest
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers import rocminfo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "rocminfo"


def _corpus(case: str, name: str = "rocminfo.txt") -> ParsedOutput:
    folder = next(CORPUS.glob(f"{case}-*"))
    return rocminfo.parse(read(folder / name), name)


def _output(name: str) -> ParsedOutput:
    return rocminfo.parse(read(OUTPUTS / name), name)


def _kinds(parsed: ParsedOutput) -> set[str]:
    return {s.kind for s in parsed.signals}


REAL_TEXTS = [
    *(read(p) for p in sorted(CORPUS.glob("*/rocminfo*.txt"))),
    *(read(p) for p in sorted(OUTPUTS.glob("*.txt"))),
]


# ----------------------------------------------------------------------------- corpus


def test_005_wsl_one_gpu_agent_with_its_facts() -> None:
    parsed = _corpus("005")
    assert parsed.format == "rocminfo" and not parsed.problems
    assert len(parsed.sightings) == 1  # the gfx11-generic ISA is no second GPU
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert sighting.layer is Layer.ROCM
    assert facts.vendor is Vendor.AMD
    assert facts.gfx_target == "gfx1100"
    assert facts.name == "AMD Radeon RX 7900 XTX"
    assert facts.pci_device_id == "0x744c"
    assert facts.compute_units == 96
    assert facts.vram_total_bytes == 25149440 * 1024 == 25753026560
    assert facts.max_graphics_clock_mhz == 2526
    assert facts.pci_bus is None and "BDFID" in sighting.missing_reasons["pci_bus"]
    assert facts.kfd_node is None  # no KFD under WSL
    assert sighting.field_sources["gfx_target"] == "rocminfo.txt:83"
    assert sighting.field_sources["vram_total_bytes"] == "rocminfo.txt:131"


def test_005_wsl_banner_is_the_platform_and_says_nothing_about_kfd() -> None:
    parsed = _corpus("005")
    assert fact(parsed, "os") == "wsl"
    assert fact(parsed, "hsa_runtime_version") == "1.1"
    assert fact(parsed, "kfd_loaded") == "absent"
    assert fact(parsed, "cpu_model") == "Intel(R) Core(TM) i9-9900K CPU @ 3.60GHz"
    assert _kinds(parsed) == {"platform.wsl"}
    assert signals_of(parsed, "platform.wsl")[0].evidence[0].line == 1


def test_007_permission_denied_with_the_render_group_line() -> None:
    parsed = _corpus("007")
    assert parsed.sightings == ()
    assert fact(parsed, "kfd_loaded") is True
    denied = signals_of(parsed, "kfd.permission_denied")
    assert len(denied) == 1
    assert [e.line for e in denied[0].evidence] == [2, 3]
    assert "render" in (denied[0].evidence[1].text or "")
    assert "kfd.missing" not in _kinds(parsed)


def test_007_sudo_segfault_is_no_gpu_list() -> None:
    parsed = _corpus("007", "rocminfo-sudo.txt")
    assert parsed.sightings == ()
    assert fact(parsed, "kfd_loaded") is True
    crashed = signals_of(parsed, "rocminfo.crashed")
    assert crashed and crashed[0].evidence[0].line == 2


def test_010_apu_gfx1103_bdfid_and_carve_out() -> None:
    parsed = _corpus("010")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert facts.gfx_target == "gfx1103"
    assert facts.pci_device_id == "0x15bf"
    assert facts.compute_units == 12
    assert facts.pci_bus == "0000:c3:00.0"  # BDFID 49920
    assert facts.vram_total_bytes == 536870912
    assert facts.name == "AMD Radeon Graphics"
    assert facts.kind is GpuKind.INTEGRATED  # no "Memory Properties: APU" in ROCm 5.7: gfx1103
    assert facts.uuid is None and "GPU-XX" in parsed.sightings[0].missing_reasons["uuid"]
    assert fact(parsed, "kfd_loaded") is True
    assert fact(parsed, "hsa_runtime_version") == "1.1"


def test_013_dgpu_and_igpu_named_after_the_cpu() -> None:
    parsed = _corpus("013")
    assert len(parsed.sightings) == 2  # gfx12-generic and gfx10-3-generic are ISAs
    dgpu, igpu = (s.facts for s in parsed.sightings)
    assert (dgpu.gfx_target, dgpu.name, dgpu.pci_device_id, dgpu.compute_units) == (
        "gfx1201", "AMD Radeon AI PRO R9700", "0x7551", 64)
    assert dgpu.pci_bus == "0000:03:00.0" and dgpu.kind is None
    assert dgpu.uuid == "GPU-ae866dfe401a6542"
    assert igpu.gfx_target == "gfx1036"
    assert igpu.name == "AMD Ryzen 7 7800X3D 8-Core Processor"  # kept as the agent says
    assert igpu.kind is GpuKind.INTEGRATED  # "Memory Properties: APU"
    assert igpu.pci_device_id == "0x164e" and igpu.pci_bus == "0000:13:00.0"
    assert fact(parsed, "hsa_runtime_version") == "1.18"
    assert fact(parsed, "kfd_loaded") is True
    assert fact(parsed, "amdgpu_driver_version") == "absent"  # in-tree: no version


def test_024_rock_not_loaded_no_kfd_and_hsa_error() -> None:
    parsed = _corpus("024")
    assert parsed.sightings == ()
    assert fact(parsed, "kfd_loaded") is False
    assert signals_of(parsed, "kfd.not_loaded")[0].evidence[0].line == 1
    hsa = signals_of(parsed, "hsa.error")
    assert [s.detail for s in hsa] == ["HSA_STATUS_ERROR_OUT_OF_RESOURCES"]
    assert [e.line for e in hsa[0].evidence] == [4, 5]
    assert "kfd.permission_denied" not in _kinds(parsed)  # "is member of video group"
    assert signals_of(parsed, "kfd.missing")[0].detail == "No such file or directory"


def test_035_two_cpu_agents_one_gpu() -> None:
    parsed = _corpus("035")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert (facts.gfx_target, facts.name, facts.pci_device_id, facts.compute_units) == (
        "gfx1031", "AMD Radeon RX 6700 XT", "0x73df", 40)
    assert facts.pci_bus == "0000:83:00.0"  # BDFID 33536
    assert facts.vram_total_bytes == 12566528 * 1024
    assert facts.kfd_node == 2
    assert fact(parsed, "cpu_model") == "AMD EPYC 7453 28-Core Processor"


# ----------------------------------------------------------------------------- fixtures


def test_rocm19_layout_without_marketing_name_or_hex() -> None:
    parsed = _output("rocm19-rx470-issue589.txt")
    assert not parsed.problems
    assert len(parsed.sightings) == 1
    sighting = parsed.sightings[0]
    facts = sighting.facts
    assert facts.gfx_target == "gfx803"
    assert facts.pci_device_id == "0x67df"  # Chip ID 26591
    assert facts.pci_bus == "0000:01:00.0"  # BDFID 256
    assert facts.vram_total_bytes == 4194304 * 1024
    assert facts.compute_units == 32
    assert facts.max_graphics_clock_mhz == 1281  # "Max Clock Frequency (MHz):1281"
    assert facts.name is None and "Marketing Name" in sighting.missing_reasons["name"]
    assert fact(parsed, "kfd_loaded") == "absent"  # ROCm 1.x prints no ROCk line
    assert fact(parsed, "hsa_runtime_version") == "1.1"


def test_rock_module_version_is_the_dkms_driver_and_apu_kind() -> None:
    parsed = _output("rocm711-gfx1151-strix-halo-issue5817.txt")
    assert fact(parsed, "amdgpu_driver_version") == "6.16.6"
    assert fact(parsed, "kfd_loaded") is True
    assert fact(parsed, "hsa_runtime_version") == "1.18"
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert facts.gfx_target == "gfx1151"
    assert facts.pci_bus == "0000:f4:00.0"  # BDFID 62464
    assert facts.kind is GpuKind.INTEGRATED
    assert facts.simd_count == 80


def test_container_without_dev_kfd() -> None:
    parsed = _output("docker-no-kfd-issue4358.txt")
    assert parsed.sightings == ()
    assert fact(parsed, "amdgpu_driver_version") == "6.10.5"
    assert signals_of(parsed, "kfd.missing")[0].evidence[0].line == 3
    # "Failed to get user name ..." alone is no permission problem
    assert "kfd.permission_denied" not in _kinds(parsed)
    assert [s.detail for s in signals_of(parsed, "rocm.path_version")] == ["5.7.2"]


def test_quoted_first_line_and_old_wsl_without_banner() -> None:
    parsed = _output("wsl2-rx580-rock-not-loaded-issue1361.txt")
    assert fact(parsed, "kfd_loaded") is False
    assert fact(parsed, "os") == "absent"
    assert {"kfd.not_loaded", "hsa.error", "kfd.missing"} <= _kinds(parsed)


def test_other_open_errors_and_group_lines() -> None:
    text = ("ROCk module is loaded\n\nUnable to open /dev/kfd read-write: Invalid argument\n"
            "Failed to get user name to check for video group membership\n")
    parsed = rocminfo.parse(text, "paste")
    assert [s.detail for s in signals_of(parsed, "kfd.open_failed")] == ["Invalid argument"]
    text = ('ROCk module is loaded\nbob is not member of "render" group, the default DRM '
            "access group.\n")
    denied = signals_of(rocminfo.parse(text, "paste"), "kfd.permission_denied")
    assert denied and denied[0].detail == 'not in the "render" group'


def test_markdown_quoted_paste() -> None:
    text = read(next(CORPUS.glob("035-*")) / "rocminfo.txt")
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
    parsed = rocminfo.parse(quoted, "quoted.md")
    assert [s.facts.pci_bus for s in parsed.sightings] == ["0000:83:00.0"]
    assert fact(parsed, "kfd_loaded") is True


def test_shared_bdfid_is_not_a_bus_address() -> None:
    # Four MI300A share BDFID 256 across PCI domains 0000..0003: rocminfo has no domain.
    agent = ("*******\nAgent {n}\n*******\n  Name:                    gfx942\n"
             "  Device Type:             GPU\n  BDFID:                   256\n")
    text = "".join(agent.format(n=n) for n in (1, 2))
    parsed = rocminfo.parse(text, "paste")
    assert len(parsed.sightings) == 2
    assert all(s.facts.pci_bus is None and "shared" in s.missing_reasons["pci_bus"]
               for s in parsed.sightings)


def test_feature_suffix_and_generic_isa_names() -> None:
    text = ("*******\nAgent 1\n*******\n  Name:                    gfx90a:sramecc+:xnack-\n"
            "  Marketing Name:          AMD Instinct MI210\n  Device Type:             GPU\n")
    assert rocminfo.parse(text, "p").sightings[0].facts.gfx_target == "gfx90a"
    text = ("*******\nAgent 1\n*******\n  Name:                    something\n"
            "  Device Type:             GPU\n  ISA Info:\n    ISA 1\n"
            "      Name:                    amdgcn-amd-amdhsa--gfx11-generic\n    ISA 2\n"
            "      Name:                    amdgcn-amd-amdhsa--gfx1101\n")
    assert rocminfo.parse(text, "p").sightings[0].facts.gfx_target == "gfx1101"


def test_sniff_recognises_rocminfo_and_nothing_else() -> None:
    assert rocminfo.sniff(read(next(CORPUS.glob("013-*")) / "rocminfo.txt")) == (
        "rocminfo", 0.97)
    assert rocminfo.sniff(read(next(CORPUS.glob("024-*")) / "rocminfo.txt")) is not None
    for other in ("001-*/rocm-smi.json", "024-*/clinfo.txt", "031-*/amd-smi-version.txt",
                  "016-*/nvidia-smi.txt", "035-*/rocm-smi.txt"):
        path = next(CORPUS.glob(other))
        assert rocminfo.sniff(read(path)) is None, other


# ----------------------------------------------------------------------------- properties


def _assert_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    for sighting in parsed.sightings:
        assert sighting.layer is Layer.ROCM and sighting.facts.vendor is Vendor.AMD


(
    test_random_text_never_raises,
    test_truncated_real_outputs_never_raise,
    test_shuffled_real_outputs_never_raise,
) = property_tests(rocminfo.sniff, rocminfo.parse, REAL_TEXTS, _assert_clean)


# ----------------------------------------------------------------------------- kinds of agents


def test_generic_isa_beside_gfx942_is_one_virtual_function() -> None:
    # ROCm 6.4 in a cloud VM (ROCm/ROCm#4677): one MI300X VF whose ISAs are gfx942 and the
    # generic gfx9-4-generic; one GPU, target gfx942, an SR-IOV virtual function.
    parsed = _output("rocm640-mi300x-vf-gfx9-4-generic-issue4677.txt")
    assert len(parsed.sightings) == 1
    facts = parsed.sightings[0].facts
    assert (facts.gfx_target, facts.name, facts.pci_device_id, facts.kind) == (
        "gfx942", "AMD Instinct MI300X VF", "0x74b5", GpuKind.VIRTUAL)
    assert [s.detail for s in signals_of(parsed, "gpu.virtual_function")] == ["0000:05:00.0"]
    assert parsed.sightings[0].field_sources["gfx_target"].endswith(":87")  # Name: gfx942


def test_grep_of_rocminfo_without_agent_headers() -> None:
    # `rocminfo | grep Name` of eight MI300X VFs (ROCm/ROCm#4489), between os-release and
    # cpuinfo lines: eight agents, each with its ISA line, none of them the ISA itself.
    text = read(OUTPUTS / "grep-8x-mi300x-vf-azure-issue4489.txt")
    assert rocminfo.sniff(text) == ("rocminfo", 0.7)
    parsed = rocminfo.parse(text, "sysinfo.txt")
    assert_clean(parsed)
    assert [(s.facts.gfx_target, s.facts.name, s.facts.kind) for s in parsed.sightings] == [
        ("gfx942", "AMD Instinct MI300X VF", GpuKind.VIRTUAL)] * 8
    assert parsed.sightings[0].field_sources["gfx_target"] == "sysinfo.txt:6"
    assert len(signals_of(parsed, "gpu.virtual_function")) == 8


@pytest.mark.parametrize(("name", "gfx"), [
    ("rocm70rc1-strix-point-gfx1150-issue5108.txt", "gfx1150"),
    ("rocm603-raphael-igpu-only-issue3015.txt", "gfx1036"),
])
def test_apus_read_as_integrated_without_memory_properties(name: str, gfx: str) -> None:
    parsed = _output(name)
    gpu = [s.facts for s in parsed.sightings]
    assert [(f.gfx_target, f.name, f.kind) for f in gpu] == [
        (gfx, "AMD Radeon Graphics", GpuKind.INTEGRATED)]


def test_igpu_beside_dgpu_corpus_013() -> None:
    parsed = _corpus("013")
    assert [(s.facts.gfx_target, s.facts.kind) for s in parsed.sightings] == [
        ("gfx1201", None), ("gfx1036", GpuKind.INTEGRATED)]
