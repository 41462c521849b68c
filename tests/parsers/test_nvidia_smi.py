"""nvidia-smi importers over real captures: corpus cases 004 (XML, MIG), 016 (NVML mismatch),
019 (table layouts 440/460/470) and tests/fixtures/outputs/nvidia-smi-*/ (SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import property_tests, read

from gpuscope.model import GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers import nvidia_smi, parse_any
from gpuscope.parsers.nvidia_smi import parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs"
CASE_019 = CORPUS / "019-nvidia-smi-table-layout-variants-440-460-470"
MIB = 1024**2


def load(path: Path) -> ParsedOutput:
    return parse(read(path), path.name)


def stack(parsed: ParsedOutput) -> dict[str, object]:
    return {f.key: f.value for f in parsed.stack_facts}


def signal_details(parsed: ParsedOutput, kind: str) -> list[str | None]:
    return [s.detail for s in parsed.signals if s.kind == kind]


def assert_nvml_gpu(sighting: GpuSighting) -> None:
    assert sighting.layer is Layer.NVML
    assert sighting.facts.vendor is Vendor.NVIDIA
    assert sighting.facts.kind is GpuKind.DISCRETE
    for name in ("vendor", "kind", "name"):
        assert name in sighting.field_sources


def test_formats_are_declared() -> None:
    assert set(nvidia_smi.FORMATS) == {"nvidia-smi-table", "nvidia-smi-q", "nvidia-smi-xml",
                                       "nvidia-smi-list", "nvidia-smi-csv", "nvidia-smi-error"}


# ----------------------------------------------------------------------------- table

def test_table_440_case_019() -> None:
    path = CASE_019 / "nvidia-smi-440.txt"
    assert sniff(read(path)) == ("nvidia-smi-table", 0.95)
    parsed = load(path)
    assert parsed.format == "nvidia-smi-table"
    (gpu,) = parsed.sightings
    assert_nvml_gpu(gpu)
    assert gpu.facts.name == "GeForce RTX 207..."  # kept as nvidia-smi truncated it
    assert gpu.facts.pci_bus == "0000:01:00.0"
    assert gpu.facts.vram_total_bytes == 8360296448 == 7973 * MIB
    assert gpu.facts.smi_index == 0
    assert gpu.field_sources["pci_bus"] == "nvidia-smi-440.txt:8"
    assert gpu.field_sources["vram_total_bytes"] == "nvidia-smi-440.txt:9"
    assert stack(parsed) == {"nvidia_driver_version": "440.100", "cuda_driver_version": "10.2"}
    assert {f.source for f in parsed.stack_facts} == {"nvidia-smi-440.txt:3"}
    assert parsed.signals == ()  # pre-MIG layout: no MIG, nothing wrong


def test_table_460_and_470_layouts() -> None:
    p460 = load(CASE_019 / "nvidia-smi-460.txt")
    (gpu,) = p460.sightings
    assert gpu.facts.name == "GeForce RTX 2070"
    assert stack(p460)["nvidia_driver_version"] == "460.39"
    assert signal_details(p460, "nvidia.mig_enabled") == []  # MIG M. column says N/A
    p470 = load(CASE_019 / "nvidia-smi-470.txt")
    (gpu,) = p470.sightings
    assert gpu.facts.name == "NVIDIA GeForce ..."
    assert gpu.facts.vram_total_bytes == 16116 * MIB
    assert stack(p470) == {"nvidia_driver_version": "470.63.01", "cuda_driver_version": "11.4"}


def test_table_580_layout_two_gpus() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-table" / "hami-1903-580-a800x2.txt")
    assert [(s.facts.smi_index, s.facts.name, s.facts.pci_bus) for s in parsed.sightings] == [
        (0, "NVIDIA A800 80GB PCIe", "0000:01:00.0"),
        (1, "NVIDIA A800 80GB PCIe", "0000:81:00.0")]
    assert all(s.facts.vram_total_bytes == 81920 * MIB for s in parsed.sightings)
    assert stack(parsed) == {"nvidia_driver_version": "580.119.02",
                             "cuda_driver_version": "13.0"}
    assert parsed.signals == ()


def test_table_mig_enabled_per_gpu_and_mig_devices_are_not_gpus() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-table" / "ollama-4814-510-a100-mig.txt")
    assert len(parsed.sightings) == 2
    assert signal_details(parsed, "nvidia.mig_enabled") == ["0000:05:00.0", "0000:86:00.0"]
    mig = next(s for s in parsed.signals if s.kind == "nvidia.mig_enabled")
    assert mig.evidence[0].line == 10
    fragment = load(OUTPUTS / "nvidia-smi-table" / "nvitop-8-mig-devices-fragment.txt")
    assert fragment.sightings == ()


def test_table_lower_cases_the_bus() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-table" / "go-nvml-57-520-a100-mig.txt")
    assert [s.facts.pci_bus for s in parsed.sightings] == ["0000:31:00.0", "0000:b1:00.0"]
    assert len(signal_details(parsed, "nvidia.mig_enabled")) == 2


def test_table_440_three_quadros() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-table" / "yamda-10-440-quadro-rtx6000.txt")
    assert [s.facts.pci_bus for s in parsed.sightings] == [
        "0000:3b:00.0", "0000:5e:00.0", "0000:af:00.0"]
    assert {s.facts.vram_total_bytes for s in parsed.sightings} == {22698 * MIB}


def test_table_under_wsl2() -> None:
    for name, driver in (("ollama-684-wsl2-535.txt", "537.42"),
                         ("pytorch-84550-wsl2-515.txt", "516.94")):
        parsed = load(OUTPUTS / "nvidia-smi-table" / name)
        assert stack(parsed)["nvidia_driver_version"] == driver  # the Windows driver
        assert "platform.wsl" in {s.kind for s in parsed.signals}
        assert [(f.key, f.value) for f in parsed.host_facts] == [("os", "wsl")]
        assert len(parsed.sightings) == 1


# ----------------------------------------------------------------------------- XML

def test_xml_a100_mig_case_004() -> None:
    path = CORPUS / "004-a100-sxm4-mig-nvidia-smi-xml" / "nvidia-smi-q.xml"
    assert sniff(read(path)) == ("nvidia-smi-xml", 0.97)
    parsed = load(path)
    (gpu,) = parsed.sightings  # attached_gpus=4 counts MIG devices; one physical GPU
    assert_nvml_gpu(gpu)
    facts = gpu.facts
    assert facts.name == "NVIDIA A100-SXM4-80GB"
    assert (facts.pci_device_id, facts.pci_vendor_id) == ("0x20b2", "0x10de")
    assert (facts.pci_subsystem_device_id, facts.pci_subsystem_vendor_id) == ("0x147f", "0x10de")
    assert facts.pci_bus == "0000:01:00.0"
    assert facts.vram_total_bytes == 85899345920
    assert facts.uuid == "GPU-513536b6-7d19-9063-b049-1e69664bb298"
    assert facts.architecture == "Ampere"
    assert facts.pcie_link is not None and facts.pcie_link.max_generation == 4
    assert facts.pcie_link.max_width == 16
    assert gpu.field_sources["name"] == "nvidia-smi-q.xml:9"
    assert stack(parsed) == {"nvidia_driver_version": "535.54.03", "cuda_driver_version": "12.2"}
    assert signal_details(parsed, "nvidia.mig_enabled") == ["0000:01:00.0"]
    assert "nvidia.driver_not_loaded" not in {s.kind for s in parsed.signals}
    assert parsed.problems == ()


def test_xml_v10_trimmed_capture() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-xml" / "telegraf-gtx-1070-ti-v10.xml")
    (gpu,) = parsed.sightings
    assert gpu.facts.name == "GeForce GTX 1070 Ti"
    assert gpu.facts.pci_bus == "0000:01:00.0"  # from <gpu id=...>
    assert gpu.facts.vram_total_bytes == 4096 * MIB
    assert gpu.facts.pci_device_id is None
    assert "pci_device_id" in gpu.missing_reasons
    assert parsed.stack_facts == ()


def test_xml_cut_short_keeps_complete_gpus() -> None:
    text = read(CORPUS / "004-a100-sxm4-mig-nvidia-smi-xml" / "nvidia-smi-q.xml")
    cut = text[: text.index("</gpu>") + len("</gpu>") + 1]
    parsed = parse(cut, "cut.xml")
    assert len(parsed.sightings) == 1
    assert stack(parsed)["nvidia_driver_version"] == "535.54.03"
    assert any("cut short" in p for p in parsed.problems)
    head_only = parse(text[:400], "head.xml")
    assert head_only.sightings == ()
    assert stack(head_only)["nvidia_driver_version"] == "535.54.03"


def test_xml_with_entities_is_refused() -> None:
    text = ('<?xml version="1.0"?><!DOCTYPE nvidia_smi_log [<!ENTITY a "aaaa">]>'
            "<nvidia_smi_log><driver_version>&a;</driver_version></nvidia_smi_log>")
    parsed = parse(text, "bomb.xml")
    assert parsed.sightings == () and parsed.problems


# ----------------------------------------------------------------------------- -q text

def test_q_text_windows_laptop() -> None:
    path = OUTPUTS / "nvidia-smi-q" / "jesse3692-566-rtx4070-laptop-windows.txt"
    assert sniff(read(path)) == ("nvidia-smi-q", 0.95)
    parsed = load(path)
    (gpu,) = parsed.sightings
    assert_nvml_gpu(gpu)
    facts = gpu.facts
    assert facts.name == "NVIDIA GeForce RTX 4070 Laptop GPU"
    assert (facts.pci_device_id, facts.pci_vendor_id) == ("0x2860", "0x10de")
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1043", "0x3628")
    assert facts.pci_bus == "0000:01:00.0"
    assert facts.vram_total_bytes == 8188 * MIB
    assert facts.architecture == "Ada Lovelace"
    assert facts.vbios_version == "95.06.32.00.38"
    assert facts.max_graphics_clock_mhz == 3105 and facts.max_memory_clock_mhz == 8001
    assert facts.power_cap_w == 61.24 and facts.power_cap_max_w == 140.0
    assert facts.pcie_link is not None
    assert (facts.pcie_link.max_generation, facts.pcie_link.max_width) == (4, 8)
    assert facts.serial_number is None  # "N/A" is not a value
    assert gpu.field_sources["pci_device_id"].endswith(":68")
    assert stack(parsed) == {"nvidia_driver_version": "566.36", "cuda_driver_version": "12.7"}
    assert [(f.key, f.value) for f in parsed.host_facts] == [("os", "windows")]  # WDDM
    assert parsed.signals == ()


def test_q_text_cut_after_first_gpu_header() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-q" / "k8s-device-plugin-343-a100x8-450-excerpt.txt")
    (gpu,) = parsed.sightings
    assert gpu.facts.name == "A100-SXM4-40GB"
    assert gpu.facts.pci_bus == "0000:07:00.0"
    assert stack(parsed)["nvidia_driver_version"] == "450.203.03"
    assert signal_details(parsed, "nvidia.mig_enabled") == []  # Current: Disabled
    assert any("Attached GPUs" in p for p in parsed.problems)


def test_q_text_mig_enabled() -> None:
    # The 450 A100 capture above with its MIG mode switched on, as nvidia-smi -q prints it.
    text = read(OUTPUTS / "nvidia-smi-q" / "k8s-device-plugin-343-a100x8-450-excerpt.txt")
    text = text.replace("Current                           : Disabled",
                        "Current                           : Enabled")
    parsed = parse(text, "q.txt")
    (signal,) = parsed.signals
    assert (signal.kind, signal.detail, signal.evidence[0].line) == (
        "nvidia.mig_enabled", "0000:07:00.0", 13)
    assert parsed.problems == ()  # with MIG on, Attached GPUs may count instances


# ----------------------------------------------------------------------------- -L

def test_list_with_mig_devices() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-list" / "datadog-33120-a100-mig7.txt")
    (gpu,) = parsed.sightings  # seven MIG lines are instances of GPU 0
    assert_nvml_gpu(gpu)
    assert gpu.facts.name == "NVIDIA A100-SXM4-80GB"
    assert gpu.facts.uuid == "GPU-7fdaf0a5-179b-f636-d15d-daf243e3ff16"
    assert "pci_bus" in gpu.missing_reasons
    (mig,) = [s for s in parsed.signals if s.kind == "nvidia.mig_enabled"]
    assert mig.detail == gpu.facts.uuid
    assert [e.line for e in mig.evidence] == [2, 3, 4, 5, 6, 7, 8]


def test_list_with_prompt_line_and_plain_gpu() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-list" / "nvidia-container-toolkit-203-a100-mig2.txt")
    assert [s.facts.name for s in parsed.sightings] == ["NVIDIA A100 80GB PCIe"]
    plain = load(OUTPUTS / "nvidia-smi-list" / "jesse3692-rtx4070-laptop.txt")
    assert [s.facts.name for s in plain.sightings] == ["NVIDIA GeForce RTX 4070 Laptop GPU"]
    assert plain.signals == ()


# ----------------------------------------------------------------------------- errors

def test_driver_library_mismatch_case_016() -> None:
    path = CORPUS / "016-nvml-driver-library-mismatch-570" / "nvidia-smi.txt"
    assert sniff(read(path)) == ("nvidia-smi-error", 0.85)
    parsed = load(path)
    assert parsed.format == "nvidia-smi-error"
    assert parsed.sightings == ()
    assert [s.kind for s in parsed.signals] == ["nvml.driver_library_mismatch"]
    assert [(f.key, f.value, f.source) for f in parsed.stack_facts] == [
        ("nvml_library_version", "570.124", "nvidia-smi.txt:2")]


def test_driver_not_loaded_messages() -> None:
    for name in ("self-hosted-runners-40-not-communicate.txt",
                 "qixuema-envs-4-not-communicate-curly-quote.txt"):
        parsed = load(OUTPUTS / "nvidia-smi-error" / name)
        assert [s.kind for s in parsed.signals] == ["nvidia.driver_not_loaded"], name
        assert parsed.signals[0].evidence[0].line == 1


def test_no_devices_message() -> None:
    parsed = load(OUTPUTS / "nvidia-smi-error" / "open-gpu-kernel-modules-862-no-devices.txt")
    assert [(s.kind, s.evidence[0].line) for s in parsed.signals] == [("nvidia.no_devices", 2)]


def test_sniff_leaves_other_formats_alone() -> None:
    others = [CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt",
              CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "rocm-smi.txt",
              CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
              OUTPUTS / "collect_env" / "vllm-6408-h100x8-cu121.txt",
              OUTPUTS / "error-text" / "dalle-playground-104-container-nvml-mismatch.txt",
              OUTPUTS / "kernel-log" / "open-gpu-kernel-modules-862-rminit-syslog.txt",
              CASE_019 / "nvcc-V-440-era.txt"]
    for path in others:
        assert sniff(read(path)) is None, path.name


# ----------------------------------------------------------------------------- properties

REAL = sorted(p for d in ("nvidia-smi-table", "nvidia-smi-q", "nvidia-smi-xml",
                          "nvidia-smi-list", "nvidia-smi-error")
              for p in (OUTPUTS / d).iterdir() if p.suffix in (".txt", ".xml"))
REAL_TEXTS = [read(p) for p in REAL] + [
    read(CORPUS / "004-a100-sxm4-mig-nvidia-smi-xml" / "nvidia-smi-q.xml"),
    read(CORPUS / "016-nvml-driver-library-mismatch-570" / "nvidia-smi.txt"),
    read(CASE_019 / "nvidia-smi-440.txt"), read(CASE_019 / "nvidia-smi-470.txt")]


(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)


# ----------------------------------------------------------------------------- virtual GPUs

_VGPU_Q = """==============NVSMI LOG==============

Driver Version                            : 550.54.15
CUDA Version                              : 12.4

Attached GPUs                             : 1
GPU 00000000:02:00.0
    Product Name                          : GRID A100-4C
    GPU Virtualization Mode
        Virtualization Mode               : VGPU
        Host VGPU Mode                    : N/A
"""

_VGPU_TABLE = """\
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
|===============================+======================+======================|
|   0  GRID T4-16Q         On   | 00000000:02:02.0 Off |                  N/A |
| N/A   N/A    P8    N/A /  N/A |   2220MiB / 16384MiB |      0%      Default |
"""


def test_a_vgpu_is_virtual_and_its_machine_a_guest() -> None:
    for text, bus in ((_VGPU_Q, "0000:02:00.0"), (_VGPU_TABLE, "0000:02:02.0")):
        parsed = parse_any(text, "nvidia-smi.txt")
        assert [s.facts.kind for s in parsed.sightings] == [GpuKind.VIRTUAL]
        assert ("gpu.virtual_function", bus) in [(s.kind, s.detail) for s in parsed.signals]
        assert {f.key: f.value for f in parsed.host_facts}["virtual_machine"] is True


def test_pass_through_is_a_guest_with_a_whole_gpu() -> None:
    text = _VGPU_Q.replace("GRID A100-4C", "NVIDIA A100-SXM4-40GB").replace(
        ": VGPU", ": Pass-Through")
    parsed = parse(text, "q.txt")
    assert [s.facts.kind for s in parsed.sightings] == [GpuKind.DISCRETE]
    assert {f.key: f.value for f in parsed.host_facts}["virtual_machine"] is True
    assert not any(s.kind == "gpu.virtual_function" for s in parsed.signals)
