"""The Windows importers (hipInfo/hipconfig, Win32_VideoController, dxdiag, wsl.exe) over the
real captures of tests/fixtures/corpus-windows/ (sources in its SOURCES.md), the existing
importers over the Windows variants of their formats, and format detection: each capture goes
to its parser, and no existing capture is taken by a Windows parser."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.model import GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers import (
    PARSER_MODULES,
    detect_format,
    dxdiag,
    hipinfo,
    parse_any,
    win32_video,
    wsl_list,
)
from gpuscope.parsers._windows_text import clean_windows_text, nvidia_release
from gpuscope.parsers.llm_logs import parse_llm_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus-windows"
GIB = 1 << 30
MIB = 1 << 20

WINDOWS_MODULES: tuple[ModuleType, ...] = (hipinfo, win32_video, dxdiag, wsl_list)
# The parsers there were before these (whether or not PARSER_MODULES lists these yet).
EXISTING_MODULES: tuple[ModuleType, ...] = tuple(
    module for module in (__import__(f"gpuscope.parsers.{name}", fromlist=["sniff"])
                          for name in PARSER_MODULES)
    if module not in WINDOWS_MODULES)
# The files each Windows parser owns, by prefix.
OWNER = {"hipinfo-": hipinfo, "hipconfig-": hipinfo, "win32-": win32_video,
         "dxdiag-": dxdiag, "wsl-": wsl_list}


def _owned() -> list[tuple[Path, ModuleType]]:
    return [(path, module) for path in sorted(CORPUS.glob("*.txt"))
            for prefix, module in OWNER.items() if path.name.startswith(prefix)]


def parse(name: str) -> ParsedOutput:
    path = CORPUS / name
    module = next(m for prefix, m in OWNER.items() if name.startswith(prefix))
    parsed: ParsedOutput = module.parse(read(path), name)
    assert_clean(parsed)
    assert not parsed.problems, parsed.problems
    return parsed


def gpus(parsed: ParsedOutput) -> list[tuple[object, ...]]:
    return [(s.facts.name, s.facts.gfx_target, s.facts.pci_bus, s.facts.vram_total_bytes)
            for s in parsed.sightings]


# ----------------------------------------------------------------------------- detection


@pytest.mark.parametrize(("path", "module"), _owned(), ids=lambda v: getattr(v, "name", ""))
def test_each_capture_goes_to_its_parser(path: Path, module: ModuleType) -> None:
    found = detect_format(read(path), (*EXISTING_MODULES, *WINDOWS_MODULES))
    assert found is not None and found[0] is module, found


def _existing_captures() -> list[Path]:
    roots = [FIXTURES / "corpus", FIXTURES / "outputs", FIXTURES / "corpus-llm"]
    return sorted(p for root in roots for p in root.rglob("*")
                  if p.is_file() and p.suffix in {".txt", ".log", ".json", ".xml", ""})


def test_no_existing_capture_is_taken_by_a_windows_parser() -> None:
    taken, gained = [], []
    for path in _existing_captures():
        text = path.read_text(encoding="utf-8", errors="replace")
        before = detect_format(text, EXISTING_MODULES)
        after = detect_format(text, (*EXISTING_MODULES, *WINDOWS_MODULES))
        if after is not None and after[0] in WINDOWS_MODULES:
            shown = str(path.relative_to(FIXTURES))
            (taken if before is not None else gained).append((shown, after[1]))
    assert not taken, taken
    # A `hipcc --version` no existing parser read is now read as hipconfig's version line.
    assert gained == [("corpus/151-wsl2-rx7900xtx-rocm613-modprobe-amdsmi-collect-env/"
                       "hipcc-version.txt", "hipconfig")]


def test_hipcc_version_of_the_existing_corpus() -> None:
    path = (FIXTURES / "corpus" / "151-wsl2-rx7900xtx-rocm613-modprobe-amdsmi-collect-env"
            / "hipcc-version.txt")
    parsed = hipinfo.parse(read(path), "hipcc-version.txt")
    assert fact(parsed, "hip_runtime_version") == "6.1.40093"
    assert fact(parsed, "os") == "absent"  # WSL's Linux: no Windows path


# ----------------------------------------------------------------------------- hipInfo


def test_hipinfo_windows_rx7900xtx() -> None:
    parsed = parse("hipinfo-rocm4514-win-rx7900xtx.txt")
    assert parsed.format == "hipinfo"
    (gpu,) = parsed.sightings
    assert gpu.layer is Layer.ROCM and gpu.facts.vendor is Vendor.AMD
    assert gpus(parsed) == [("AMD Radeon RX 7900 XTX", "gfx1100", "0000:03:00.0",
                             round(23.98 * GIB))]
    # RDNA: HIP's 48 are work-group processors, not the 96 CUs.
    assert gpu.facts.compute_units is None and "compute_units" in gpu.missing_reasons
    assert fact(parsed, "os") == "windows"  # "hipinfo.exe" in the paste


def test_hipinfo_igpu_and_dgpu() -> None:
    parsed = parse("hipinfo-rocm5440-win-gfx1036-rx7900xtx.txt")
    assert gpus(parsed) == [
        ("AMD Radeon(TM) Graphics", "gfx1036", "0000:12:00.0", round(12.20 * GIB)),
        ("AMD Radeon RX 7900 XTX", "gfx1100", "0000:03:00.0", round(23.98 * GIB))]
    assert [s.facts.kind for s in parsed.sightings] == [GpuKind.INTEGRATED, None]
    assert fact(parsed, "os") == "absent"  # the paste shows no Windows path


def test_hipinfo_quoted_with_error_lines() -> None:
    parsed = parse("hipinfo-rocm6167-win-r9700-gfx1036-quoted.txt")
    assert gpus(parsed) == [
        ("AMD Radeon AI PRO R9700", "gfx1201", "0000:03:00.0", round(31.86 * GIB)),
        ("AMD Radeon(TM) Graphics", "gfx1036", "0000:79:00.0", round(49.09 * GIB))]
    assert fact(parsed, "os") == "windows"  # S:\gitroot\... in the error line
    # The error of the run without the dGPU, quoted above the devices.
    assert [s.evidence[0].line for s in signals_of(parsed, "hip.no_device")] == [5]


def test_hipinfo_that_found_no_device() -> None:
    text = "".join(line[2:] + "\n" for line in read(
        CORPUS / "hipinfo-rocm6167-win-r9700-gfx1036-quoted.txt").splitlines()[:5])
    assert hipinfo.sniff(text) == ("hipinfo", 0.9)
    parsed = hipinfo.parse(text, "hipinfo-no-device")
    assert not parsed.sightings and not parsed.problems
    assert signals_of(parsed, "hip.no_device")


def test_hipinfo_gcn_feature_suffix_and_compute_units() -> None:
    parsed = parse("hipinfo-rocm5128-win-radeon-pro-vii.txt")
    (gpu,) = parsed.sightings
    assert (gpu.facts.name, gpu.facts.gfx_target) == ("AMD Radeon Pro VII", "gfx906")
    assert gpu.facts.compute_units == 60  # GCN: multiProcessorCount is the CU count
    assert gpu.facts.pci_bus == "0000:0b:00.0"


def test_hipinfo_collapsed_issue_field_with_hipcc_version() -> None:
    parsed = parse("hipinfo-rocm4459-win-hipcc-version-collapsed.txt")
    assert gpus(parsed) == [("AMD Radeon RX 7900 XTX", "gfx1100", "0000:03:00.0",
                             round(23.98 * GIB))]
    assert fact(parsed, "hip_runtime_version") == "6.2.41512"
    assert fact(parsed, "hip_sdk_version") == "6.2"
    assert fact(parsed, "os") == "windows"


@pytest.mark.parametrize(("name", "version", "hip_path", "platform"), [
    ("hipconfig-hip3521-linux-6.2.txt", "6.2.41133", "/opt/rocm-6.2.0", "amd"),
    ("hipconfig-legacy1518-linux-4.2-full.txt", "4.2.21155", "/opt/hip", "amd"),
    ("hipconfig-legacy1140-linux-3.5.txt", "3.5.20214", "/opt/rocm-3.5.0/hip", "hcc"),
])
def test_hipconfig(name: str, version: str, hip_path: str, platform: str) -> None:
    parsed = parse(name)
    assert parsed.format == "hipconfig" and not parsed.sightings
    assert fact(parsed, "hip_runtime_version") == version
    assert fact(parsed, "hip_path") == hip_path
    assert fact(parsed, "hip_platform") == platform
    assert fact(parsed, "hip_sdk_version") == "absent"  # Linux: no HIP SDK
    assert fact(parsed, "os") == "absent"


def test_hipconfig_version_alone() -> None:
    # `hipconfig --version` prints the version alone.
    assert hipinfo.sniff("6.2.41512-db3292736\n") == ("hipconfig", 0.6)
    parsed = hipinfo.parse("6.2.41512-db3292736\n", "v")
    assert fact(parsed, "hip_runtime_version") == "6.2.41512"


# ------------------------------------------------------------------- Win32_VideoController


def test_win32_format_table_names_the_device_from_video_processor() -> None:
    parsed = parse("win32-ollama5124-wmiobject-format-table.txt")
    assert [(s.facts.name, s.facts.vendor, s.facts.pci_device_id, s.facts.driver_version,
             s.facts.kind) for s in parsed.sightings] == [
        ("AMD Radeon(TM) Graphics", Vendor.AMD, "0x164e", "31.0.24019.1006",
         GpuKind.INTEGRATED),
        ("AMD Radeon RX 7900 XTX", Vendor.AMD, "0x744c", "31.0.24019.1006", None)]
    assert all(s.layer is Layer.WINDOWS for s in parsed.sightings)
    assert fact(parsed, "os") == "windows"


def test_win32_list_layout_pnp_ids() -> None:
    (gpu,) = parse("win32-rainbowminer1451-cim-fl-rx580.txt").sightings
    facts = gpu.facts
    assert (facts.name, facts.vendor, facts.pci_vendor_id, facts.pci_device_id) == (
        "Radeon RX 580 Series", Vendor.AMD, "0x1002", "0x67df")
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id,
            facts.pci_revision) == ("0x1682", "0xc580", "0xe7")
    assert "pci_bus" in gpu.missing_reasons


def test_win32_intel_adapter() -> None:
    (gpu,) = parse("win32-sysinfo790-cim-fl-intel-uhd.txt").sightings
    assert (gpu.facts.vendor, gpu.facts.pci_device_id) == (Vendor.INTEL, "0x9bc4")


def test_win32_adapter_ram_at_its_cap_is_no_vram() -> None:
    (gpu,) = parse("win32-vulkanloader283-wmiobject-gtx1660.txt").sightings
    assert (gpu.facts.name, gpu.facts.vendor) == ("NVIDIA GeForce GTX 1660", Vendor.NVIDIA)
    assert gpu.facts.vram_total_bytes is None
    assert "4 GB" in gpu.missing_reasons["vram_total_bytes"]


# Built from win32-rainbowminer1451-cim-fl-rx580.txt's values and the GTX 1660's AdapterRAM
# (no public ConvertTo-Json of the class was found): the shape `ConvertTo-Json` writes, a list
# of objects, and the raw CIM instance's `CimInstanceProperties` list.
_JSON_LIST = json.dumps([
    {"Name": "Radeon RX 580 Series", "AdapterRAM": 4293918720,
     "PNPDeviceID": "PCI\\VEN_1002&DEV_67DF&SUBSYS_C5801682&REV_E7\\4&26519AED&0&00E6",
     "AdapterCompatibility": "Advanced Micro Devices, Inc.", "DriverVersion": None},
    {"Name": "Microsoft Remote Display Adapter", "AdapterRAM": None,
     "PNPDeviceID": "SWD\\REMOTEDISPLAYENUM\\RDPIDD_INDIRECTDISPLAY&SESSIONID_0002",
     "AdapterCompatibility": "Microsoft"}], indent=4)
_JSON_CIM = json.dumps({"CimInstanceProperties": [
    {"Name": "Name", "Value": "Radeon RX 580 Series", "CimType": 14},
    {"Name": "AdapterRAM", "Value": 2147479552, "CimType": 6},
    {"Name": "PNPDeviceID", "Value": "PCI\\VEN_1002&DEV_67DF&SUBSYS_C5801682&REV_E7\\4",
     "CimType": 14}]}, indent=2)


def test_win32_json_list_skips_non_pci_adapters() -> None:
    assert win32_video.sniff(_JSON_LIST) is not None
    parsed = win32_video.parse(_JSON_LIST, "json")
    assert_clean(parsed)
    (gpu,) = parsed.sightings
    assert (gpu.facts.name, gpu.facts.pci_device_id) == ("Radeon RX 580 Series", "0x67df")
    assert "vram_total_bytes" in gpu.missing_reasons


def test_win32_json_cim_instance_properties() -> None:
    (gpu,) = win32_video.parse(_JSON_CIM, "cim").sightings
    assert gpu.facts.vram_total_bytes == 2147479552  # below the cap: a size


# Built from the same capture in `wmic path win32_VideoController get
# AdapterRAM,DriverVersion,Name,PNPDeviceID`'s layout (columns in alphabetical order, each as
# wide as its widest value plus two blanks) and written as UTF-16LE read as Latin-1 (a NUL
# after each letter, the BOM as "ÿþ"), as a redirected wmic file is.
_WMIC = ("AdapterRAM  DriverVersion     Name                  PNPDeviceID\n"
         "4293918720  31.0.12044.3      Radeon RX 580 Series  "
         "PCI\\VEN_1002&DEV_67DF&SUBSYS_C5801682&REV_E7\\4&26519AED&0&00E6\n\n")


def test_wmic_columns_in_utf16() -> None:
    garbled = ("\ufeff" + _WMIC).encode("utf-16-le").decode("latin-1")
    assert "\x00" in garbled
    assert win32_video.sniff(garbled) is not None
    parsed = win32_video.parse(garbled, "wmic.txt")
    (gpu,) = parsed.sightings
    assert (gpu.facts.name, gpu.facts.pci_device_id, gpu.facts.driver_version) == (
        "Radeon RX 580 Series", "0x67df", "31.0.12044.3")


def test_wmic_value_layout() -> None:
    text = "\n".join(f"{line.split(' : ')[0].strip()}={line.split(' : ', 1)[1].strip()}"
                     for line in read(CORPUS / "win32-rainbowminer1451-cim-fl-rx580.txt")
                     .splitlines() if " : " in line)
    (gpu,) = win32_video.parse(text, "value").sightings
    assert gpu.facts.pci_device_id == "0x67df"


# ----------------------------------------------------------------------------- dxdiag


def test_dxdiag_ids_memory_and_driver() -> None:
    (gpu,) = parse("dxdiag-simc3516-r9-390.txt").sightings
    facts = gpu.facts
    assert gpu.layer is Layer.WINDOWS
    assert (facts.name, facts.vendor, facts.pci_vendor_id, facts.pci_device_id) == (
        "AMD Radeon (TM) R9 390 Series", Vendor.AMD, "0x1002", "0x67b0")
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id,
            facts.pci_revision) == ("0x174b", "0xe324", "0x80")
    assert facts.vram_total_bytes == 3072 * MIB
    assert facts.driver_version == "21.19.413.0"


@pytest.mark.parametrize(("name", "vendor", "device", "vram_mib", "kind"), [
    ("dxdiag-gameguru1649-r9-200.txt", Vendor.AMD, "0x6939", 4070, None),
    ("dxdiag-colmanian12-rtx3090.txt", Vendor.NVIDIA, "0x2204", 24348, None),
    ("dxdiag-dxcam18-radeon-graphics-apu.txt", Vendor.AMD, "0x1638", 496, GpuKind.INTEGRATED),
])
def test_dxdiag_display_devices(name: str, vendor: Vendor, device: str, vram_mib: int,
                                kind: GpuKind | None) -> None:
    parsed = parse(name)
    (gpu,) = parsed.sightings
    assert (gpu.facts.vendor, gpu.facts.pci_device_id, gpu.facts.vram_total_bytes,
            gpu.facts.kind) == (vendor, device, vram_mib * MIB, kind)
    assert fact(parsed, "os") == "windows"


def test_dxdiag_system_information_and_nvidia_release() -> None:
    parsed = parse("dxdiag-llvm598-rtx5070-system-info.txt")
    assert fact(parsed, "distro") == "Windows 11 Pro 64-bit (10.0, Build 26100)"
    assert fact(parsed, "kernel") == "10.0.26100"
    assert fact(parsed, "cpu_model") == "Intel(R) Core(TM) i5-14400F"
    (gpu,) = parsed.sightings  # no PCI ids in the excerpt: the vendor from its name
    assert (gpu.facts.name, gpu.facts.vendor, gpu.facts.driver_version) == (
        "NVIDIA GeForce RTX 5070", Vendor.NVIDIA, "32.0.15.8180")
    assert fact(parsed, "nvidia_driver_version") == "581.80"


@pytest.mark.parametrize(("windows", "release"), [
    ("32.0.15.8180", "581.80"), ("31.0.15.7652", "576.52"), ("27.21.14.5671", "456.71"),
    ("31.0.24019.1006", None), ("garbage", None)])
def test_nvidia_release(windows: str, release: str | None) -> None:
    assert nvidia_release(windows) == release


# ----------------------------------------------------------------------------- wsl.exe


def test_wsl_list_verbose() -> None:
    parsed = parse("wsl-dockerforwin14686-list-verbose.txt")
    assert parsed.format == "wsl-list" and not parsed.sightings
    assert fact(parsed, "wsl_distros") == ("Ubuntu (WSL2, Running), Legacy (WSL1, Stopped), "
                                           "Ubuntu-18.04 (WSL1, Stopped), "
                                           "docker-desktop (WSL2, Running)")
    assert fact(parsed, "wsl_default_distro") == "Ubuntu"
    assert fact(parsed, "os") == "windows"
    (signal,) = signals_of(parsed, "platform.wsl_available")
    assert signal.detail == "4" and len(signal.evidence) == 4


def test_wsl_version_and_ragged_list() -> None:
    parsed = parse("wsl-dockerforwin14217-version-and-list.txt")
    assert fact(parsed, "wsl_version") == "2.2.4.0"
    assert fact(parsed, "kernel") == "10.0.22631"  # Windows' build, not WSL's Linux kernel
    assert fact(parsed, "wsl_distros") == ("Ubuntu (WSL2, Running), docker-desktop (WSL2, "
                                           "Running), docker-desktop-data (WSL2, Running)")


@pytest.mark.parametrize(("name", "default_version", "default_distro"), [
    ("wsl-wsl12302-list-and-status.txt", 1, "absent"),
    ("wsl-wsl9633-status-and-version.txt", 2, "openSUSE-Tumbleweed"),
    ("wsl-wsl9448-status-debian.txt", 2, "Debian"),
])
def test_wsl_status(name: str, default_version: int, default_distro: str) -> None:
    parsed = parse(name)
    assert fact(parsed, "wsl_default_version") == default_version
    assert fact(parsed, "wsl_default_distro") == default_distro
    assert signals_of(parsed, "platform.wsl_available")


def test_wsl_list_verbose_pasted_twice_keeps_the_later_state() -> None:
    parsed = parse("wsl-docs1061-list-verbose-twice.txt")
    assert fact(parsed, "wsl_distros") == "Ubuntu (WSL1, Stopped)"  # the prompts are no rows


@pytest.mark.parametrize(("name", "distros", "default"), [
    ("wsl-docs201-list-legacy-default.txt", "Legacy", "Legacy"),
    ("wsl-wsl6486-list-portuguese-italic.txt", "Ubuntu, Ubuntu-20.04", "Ubuntu"),
])
def test_wsl_list_without_verbose(name: str, distros: str, default: str) -> None:
    parsed = parse(name)
    assert fact(parsed, "wsl_distros") == distros
    assert fact(parsed, "wsl_default_distro") == default


def test_wsl_list_redirected_as_utf16() -> None:
    text = read(CORPUS / "wsl-dockerforwin14686-list-verbose.txt")
    garbled = ("\ufeff" + text.replace("\n", "\r\n")).encode("utf-16-le").decode("latin-1")
    assert wsl_list.sniff(garbled) == ("wsl-list", 0.9)
    assert (fact(wsl_list.parse(garbled, "u16"), "wsl_distros")
            == fact(wsl_list.parse(text, "u8"), "wsl_distros"))
    assert clean_windows_text(garbled) == text


# -------------------------------------------------- existing importers, Windows captures


def test_nvidia_smi_windows_wddm_table() -> None:
    text = read(CORPUS / "nvidia-smi-ollama4270-win-rtx4060-wddm.txt")
    parsed = parse_any(text, "smi")
    assert parsed.format == "nvidia-smi-table" and not parsed.problems
    (gpu,) = parsed.sightings
    assert (gpu.facts.name, gpu.facts.pci_bus) == ("NVIDIA GeForce RTX 4060", "0000:01:00.0")
    assert fact(parsed, "nvidia_driver_version") == "537.70"
    assert fact(parsed, "os") == "windows"


@pytest.mark.parametrize(("name", "device", "capability", "vram"), [
    ("llamacpp-6758-win-cuda-rtx4050-llama-server.txt", "NVIDIA GeForce RTX 4050 Laptop GPU",
     "8.9", None),
    ("llamacpp-turboquant3-win-cuda-rtx3090-vram.txt", "NVIDIA GeForce RTX 3090", "8.6",
     24575 * MIB),
])
def test_llama_cpp_windows_cuda(name: str, device: str, capability: str,
                                vram: int | None) -> None:
    parsed = parse_llm_log(read(CORPUS / name), name)
    assert parsed is not None and parsed.format == "llama-cpp-log"
    (gpu,) = parsed.sightings
    assert (gpu.facts.name, gpu.facts.compute_capability, gpu.facts.vram_total_bytes) == (
        device, capability, vram)


@pytest.mark.parametrize(("name", "devices"), [
    ("ollama-amd87-win-rx9070xt-rocm-gfx1201.log", [("AMD Radeon RX 9070 XT", "gfx1201")]),
    ("ollama-5124-win-rx7900xtx-inference-compute.log",
     [("AMD Radeon RX 7900 XTX", "gfx1100")] * 2),  # two runs of one GPU pasted together
])
def test_ollama_windows_rocm(name: str, devices: list[tuple[str, str]]) -> None:
    parsed = parse_llm_log(read(CORPUS / name), name)
    assert parsed is not None and parsed.format == "ollama-log"
    assert [(s.facts.name, s.facts.gfx_target) for s in parsed.sightings] == devices


def test_ollama_windows_0_1_29_detection() -> None:
    parsed = parse_llm_log(read(CORPUS / "ollama-3189-win-0.1.29-amd-detection.log"), "o")
    assert parsed is not None
    (runtime,) = parsed.llm_runtimes
    assert runtime.version == "0.1.29"


def test_ollama_windows_markdown_bold_in_a_pasted_line() -> None:
    parsed = parse_llm_log(read(CORPUS / "ollama-4962-win-igpu-skipped-rx7600.log"), "o")
    assert parsed is not None
    assert [s.facts.name for s in parsed.sightings] == ["AMD Radeon RX 7600"]


# ----------------------------------------------------------------------------- never raises


def _texts(prefixes: tuple[str, ...]) -> list[str]:
    return [read(p) for p in sorted(CORPUS.glob("*.txt")) if p.name.startswith(prefixes)]


(test_hipinfo_random_text_never_raises, test_hipinfo_truncated_never_raises,
 test_hipinfo_shuffled_never_raises) = property_tests(
    hipinfo.sniff, hipinfo.parse, _texts(("hipinfo-", "hipconfig-")))
(test_win32_random_text_never_raises, test_win32_truncated_never_raises,
 test_win32_shuffled_never_raises) = property_tests(
    win32_video.sniff, win32_video.parse, [*_texts(("win32-",)), _JSON_LIST, _JSON_CIM])
(test_dxdiag_random_text_never_raises, test_dxdiag_truncated_never_raises,
 test_dxdiag_shuffled_never_raises) = property_tests(
    dxdiag.sniff, dxdiag.parse, _texts(("dxdiag-",)))
(test_wsl_random_text_never_raises, test_wsl_truncated_never_raises,
 test_wsl_shuffled_never_raises) = property_tests(
    wsl_list.sniff, wsl_list.parse, _texts(("wsl-",)))


@pytest.mark.parametrize("module", WINDOWS_MODULES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("text", [
    "", "\x00\x00", "\ufeff", "device#", "device# 0\nName:", "gcnArchName: gfx\ndevice# 99999",
    "pciBusID: 999\npciDeviceID: 77\ndevice# 1\nmultiProcessorCount: -3",
    "Card name:\nDevice Key: Enum\\PCI\\VEN_ZZZZ", "Vendor ID: 0x\nCard name: x\nSubSys ID: 0x1",
    "Name\n----\n", "AdapterRAM : -1\nName : x\nPNPDeviceID : PCI\\VEN_1002&DEV_744C",
    "[{\"AdapterRAM\": 99999999999999999999, \"Name\": []}]", "{\"AdapterRAM\":", "[" * 500,
    "  NAME STATE VERSION\n* \n  x y 3", "Default Version: 9", "totalGlobalMem: 1e999 GB",
])
def test_malformed_inputs_never_raise(module: ModuleType, text: str) -> None:
    module.sniff(text)
    assert_clean(module.parse(text, "bad"))


def _only_sightings(parsed: ParsedOutput) -> list[GpuSighting]:
    return list(parsed.sightings)


def test_many_devices_are_bounded() -> None:
    block = read(CORPUS / "hipinfo-rocm4514-win-rx7900xtx.txt")
    parsed = hipinfo.parse(block * 100, "many")
    assert len(_only_sightings(parsed)) == 64
    assert any("more than 64" in p for p in parsed.problems)
