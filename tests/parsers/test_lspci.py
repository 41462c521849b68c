"""lspci importer over real pastes: corpus case 035 (lspci | grep VGA) and
tests/fixtures/outputs/lspci/ (SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import property_tests, read

from gpuscope.model import GpuKind, Layer, ParsedOutput, Vendor
from gpuscope.parsers.lspci import FORMATS, parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "lspci"


def load(path: Path) -> ParsedOutput:
    return parse(read(path), path.name)


def test_formats() -> None:
    assert FORMATS == ("lspci", "lshw")


def test_plain_vga_line_case_035() -> None:
    path = CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "lspci-vga.txt"
    assert sniff(read(path)) == ("lspci", 0.9)
    parsed = load(path)
    (gpu,) = parsed.sightings
    assert gpu.layer is Layer.PCI
    facts = gpu.facts
    assert facts.pci_bus == "0000:83:00.0"  # the domain lspci left out, added
    assert (facts.vendor, facts.pci_vendor_id) == (Vendor.AMD, "0x1002")
    assert facts.name == "Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]"
    assert facts.pci_revision == "0xc1"
    assert facts.pci_device_id is None and "pci_device_id" in gpu.missing_reasons
    assert gpu.field_sources["pci_bus"] == "lspci-vga.txt:1"
    assert parsed.signals == () and parsed.problems == ()


def test_verbose_nn_with_subsystem() -> None:
    parsed = load(OUTPUTS / "nixos-31301-rx550-v-nn.txt")
    (gpu,) = parsed.sightings
    facts = gpu.facts
    assert (facts.pci_vendor_id, facts.pci_device_id, facts.pci_revision) == (
        "0x1002", "0x699f", "0xc7")
    assert facts.name == "Lexa PRO [Radeon RX 550]"
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1da2", "0xe367")
    assert gpu.field_sources["pci_subsystem_vendor_id"] == "nixos-31301-rx550-v-nn.txt:2"
    rv620 = load(OUTPUTS / "system-monitoring-center-103-vvnn-rv620.txt")
    (gpu,) = rv620.sightings
    assert (gpu.facts.pci_device_id, gpu.facts.pci_subsystem_vendor_id) == ("0x95c4", "0x1043")


def test_nn_with_glued_prog_if_and_old_vendor_name() -> None:
    parsed = load(OUTPUTS / "acpi-call-40-nn-two-amd.txt")
    assert [(s.facts.pci_bus, s.facts.pci_device_id, s.facts.name) for s in parsed.sightings] == [
        ("0000:01:05.0", "0x9712", "RS880M [Mobility Radeon HD 4225/4250]"),
        ("0000:02:00.0", "0x68c1", "Madison [Mobility Radeon HD 5650/5750 / 6550M]")]
    assert {s.facts.vendor for s in parsed.sightings} == {Vendor.AMD}


def test_switch_functions_and_audio_are_not_gpus() -> None:
    parsed = load(OUTPUTS / "legacy-rocm-259-nvidia-plus-vega-bridges.txt")
    assert [(s.facts.pci_bus, s.facts.vendor, s.facts.name) for s in parsed.sightings] == [
        ("0000:01:00.0", Vendor.NVIDIA, "GM204 [GeForce GTX 970]"),
        ("0000:04:00.0", Vendor.AMD, "Vega [Radeon RX Vega]")]


def test_3d_controller_with_domain_and_placeholder_name() -> None:
    parsed = load(OUTPUTS / "bigdata-133-3d-controller-domain.txt")
    assert [(s.facts.pci_bus, s.facts.pci_device_id, s.facts.name) for s in parsed.sightings] == [
        ("0000:5a:00.0", "0x1db6", None), ("0000:5e:00.0", "0x1db6", None)]
    assert all("name" in s.missing_reasons for s in parsed.sightings)


def test_machine_readable_nnmm_and_second_display_function() -> None:
    parsed = load(OUTPUTS / "ubuntuforums-bcm4312-nnm-i945.txt")
    (gpu,) = parsed.sightings  # 00:02.1 [0380] is the same GPU's second function
    facts = gpu.facts
    assert (facts.pci_bus, facts.vendor, facts.pci_device_id, facts.pci_revision) == (
        "0000:00:02.0", Vendor.INTEL, "0x27ae", "0x03")
    assert facts.name == "Mobile 945GME Express Integrated Graphics Controller"
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x17aa", "0x3870")


def test_kernel_driver_in_use() -> None:
    parsed = load(OUTPUTS / "lact-948-phoenix-v-k.txt")
    (gpu,) = parsed.sightings
    assert gpu.facts.kernel_driver == "amdgpu"
    assert gpu.field_sources["kernel_driver"] == "lact-948-phoenix-v-k.txt:9"
    assert gpu.facts.name == "Phoenix1"
    assert parsed.signals == ()


def test_modules_without_driver_in_use() -> None:
    # `lspci -k` shape of the Phoenix device above with the bound-driver line removed.
    text = read(OUTPUTS / "lact-948-phoenix-v-k.txt").replace(
        "        Kernel driver in use: amdgpu\n", "")
    parsed = parse(text, "k.txt")
    (gpu,) = parsed.sightings
    assert gpu.facts.kernel_driver is None and "kernel_driver" in gpu.missing_reasons
    (signal,) = parsed.signals
    assert (signal.kind, signal.detail) == ("pci.driver_not_bound", "0000:63:00.0")


def test_wsl2_paravirtual_gpu_is_not_a_gpu() -> None:
    parsed = load(OUTPUTS / "cloaks-wsl2-microsoft-3d.txt")
    assert parsed.sightings == ()
    assert [(s.kind, s.evidence[0].line) for s in parsed.signals] == [("platform.wsl", 5)]
    assert [(f.key, f.value) for f in parsed.host_facts] == [("os", "wsl")]


def test_vmm_records_old_pciutils() -> None:
    path = OUTPUTS / "dell-firmware-tools-vmmnD-firegl-x1.txt"
    assert sniff(read(path)) == ("lspci", 0.85)
    parsed = load(path)
    (gpu,) = parsed.sightings  # 01:00.1 "(Secondary)" [0380] is the same card
    facts = gpu.facts
    assert (facts.pci_bus, facts.vendor, facts.pci_vendor_id, facts.pci_device_id) == (
        "0000:01:00.0", Vendor.AMD, "0x1002", "0x4e47")
    assert facts.name == "Radeon R300 NG [FireGL X1]"
    assert (facts.pci_subsystem_vendor_id, facts.pci_subsystem_device_id) == ("0x1002", "0x0172")
    assert facts.pci_revision == "0x80"
    assert gpu.field_sources["pci_bus"] == "dell-firmware-tools-vmmnD-firegl-x1.txt:26"


def test_sniff_leaves_other_formats_alone() -> None:
    for path in (CORPUS / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt",
                 CORPUS / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
                 CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt",
                 CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "rocm-smi.txt",
                 FIXTURES / "outputs" / "kernel-log" / "rocm-amdgpu-113-firmware-init-failed.txt",
                 FIXTURES / "outputs" / "nvidia-smi-table" / "hami-1903-580-a800x2.txt"):
        assert sniff(read(path)) is None, path.name


# ----------------------------------------------------------------------------- properties

REAL_TEXTS = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))] + [
    read(CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "lspci-vga.txt")]


(
    test_random_text_never_raises,
    test_truncated_real_output_never_raises,
    test_shuffled_real_output_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)


# ----------------------------------------------------------------------------- kinds of devices


def _kinds(parsed: ParsedOutput) -> list[tuple[str | None, str | None, str | None]]:
    return [(s.facts.pci_bus, s.facts.pci_device_id, s.facts.kind.value if s.facts.kind else None)
            for s in parsed.sightings]


def test_igpu_beside_dgpu_and_the_phoenix_fixture() -> None:
    text = ("0c:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] "
            "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M] [1002:744c] (rev c8)\n"
            "0c:00.1 Audio device [0403]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 HDMI/DP "
            "Audio [1002:ab30]\n"
            "12:00.0 VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] "
            "Raphael [1002:164e] (rev c6)\n")
    assert _kinds(parse(text, "lspci.txt")) == [("0000:0c:00.0", "0x744c", None),
                                                ("0000:12:00.0", "0x164e", "integrated")]
    phoenix = parse(read(OUTPUTS / "lact-948-phoenix-v-k.txt"), "lspci.txt")
    assert [s.facts.kind for s in phoenix.sightings] == [GpuKind.INTEGRATED]  # "Phoenix1"


def test_virtual_functions_and_a_vms_own_display() -> None:
    text = ("0000:05:00.0 Processing accelerators [1200]: Advanced Micro Devices, Inc. [AMD/ATI] "
            "Aqua Vanjaram [Instinct MI300X VF] [1002:74b5]\n"
            "0000:00:08.0 VGA compatible controller [0300]: Microsoft Corporation Hyper-V "
            "virtual VGA [1414:5353]\n")
    parsed = parse(text, "lspci.txt")
    # the VF is a GPU; Hyper-V's emulated VGA is no GPU (and no WSL), the trace of a VM
    assert _kinds(parsed) == [("0000:05:00.0", "0x74b5", "virtual")]
    assert [(s.kind, s.detail) for s in parsed.signals] == [
        ("gpu.virtual_function", "0000:05:00.0"), ("platform.virtual_machine", "Hyper-V")]
    assert {f.key: f.value for f in parsed.host_facts} == {
        "virtual_machine": True, "virtual_machine_hint": "Hyper-V (its display adapter)"}


def test_device_lines_of_any_length_are_read_in_linear_time() -> None:
    # A slot, a class and then 200,000 blanks and no colon: once a cubic regex (issue #10).
    line = "0000:01:00.0 VGA" + " " * 200_000 + "x"
    assert parse(line + "\n" + line + "\n", "lspci.txt").sightings == ()


# ----------------------------------------------------------------------------- lshw

LSHW = OUTPUTS.parent / "lshw"


def test_lshw_display_nodes_in_a_vm_with_an_unclaimed_virtual_function() -> None:
    name = "lshw-display-azure-hyperv-mi25-mxgpu-issue1638.txt"
    text = read(LSHW / name)
    assert sniff(text) == ("lshw", 0.85)
    parsed = parse(text, name)
    assert parsed.format == "lshw" and not parsed.problems
    rows = [(s.facts.vendor, s.facts.name, s.facts.pci_bus, s.facts.kind, s.facts.kernel_driver)
            for s in parsed.sightings]
    assert rows == [  # Hyper-V's emulated VGA is no GPU
        (Vendor.AMD, "Vega 10 [Radeon Instinct MI25 MxGPU]", "af8c:00:00.0", GpuKind.VIRTUAL,
         None)]
    assert parsed.sightings[0].missing_reasons["kernel_driver"].startswith("lshw shows the "
                                                                          "device UNCLAIMED")
    assert [(s.kind, s.detail) for s in parsed.signals] == [
        ("platform.virtual_machine", "Hyper-V"), ("pci.driver_not_bound", "af8c:00:00.0"),
        ("gpu.virtual_function", "af8c:00:00.0")]
    assert {f.key: f.value for f in parsed.host_facts} == {
        "virtual_machine": True, "virtual_machine_hint": "Hyper-V (its display adapter)"}


def test_lshw_of_a_vmware_guest() -> None:
    parsed = parse(read(LSHW / "lshw-display-vmware-svga-issue1626.txt"), "lshw.txt")
    assert parsed.sightings == ()  # VMware's SVGA adapter is no GPU: this guest has none
    assert [(s.kind, s.detail) for s in parsed.signals] == [
        ("platform.virtual_machine", "VMware")]


def test_tree_of_an_igpu_beside_a_card() -> None:
    # lspci -tv (ROCm/ROCm#719): no classes; the GPUs by vendor and name, buses from the tree.
    name = "rocm-719-tv-picasso-beside-rx560x.txt"
    text = read(OUTPUTS / name)
    assert sniff(text) == ("lspci", 0.85)
    parsed = parse(text, name)
    assert [(s.facts.pci_bus, s.facts.vendor, s.facts.kind) for s in parsed.sightings] == [
        ("0000:01:00.0", Vendor.AMD, None), ("0000:05:00.0", Vendor.AMD, GpuKind.INTEGRATED)]
    assert parsed.sightings[1].facts.name == "Picasso"  # not its HDMI audio or PSP functions
