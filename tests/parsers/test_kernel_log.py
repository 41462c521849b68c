"""Kernel log importer over real dmesg / journalctl / syslog pastes in
tests/fixtures/outputs/kernel-log/ (SOURCES.md there)."""

from __future__ import annotations

from pathlib import Path

from parser_properties import property_tests, read

from gpuscope.model import ParsedOutput
from gpuscope.parsers.kernel_log import FORMATS, parse, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OUTPUTS = FIXTURES / "outputs" / "kernel-log"


def load(name: str) -> ParsedOutput:
    path = OUTPUTS / name
    parsed = parse(read(path), name)
    assert parsed.format == "kernel-log"
    assert parsed.problems == ()
    return parsed


def signals(parsed: ParsedOutput) -> list[tuple[str, str | None, list[int | None]]]:
    return [(s.kind, s.detail, [e.line for e in s.evidence]) for s in parsed.signals]


def stack(parsed: ParsedOutput) -> dict[str, object]:
    return {f.key: f.value for f in parsed.stack_facts}


def test_formats_and_every_fixture_sniffs() -> None:
    assert FORMATS == ("kernel-log",)
    for path in sorted(OUTPUTS.glob("*.txt")):
        # A boot log without a GPU driver's line is still a kernel log, with less confidence.
        expected = 0.5 if path.name == "rocm-1626-vmware-guest-boot.txt" else 0.85
        assert sniff(read(path)) == ("kernel-log", expected), path.name


def test_pci_rejects_atomics() -> None:
    parsed = load("legacy-rocm-1214-pci-rejects-atomics.txt")
    assert signals(parsed) == [("kfd.pcie_atomics_missing", "1002:67df", [1])]
    assert parsed.signals[0].evidence[0].text == (
        "[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics")


def test_kfd_added_then_skipped() -> None:
    parsed = load("legacy-rocm-364-kfd-added-then-skipped.txt")
    assert signals(parsed) == [("kfd.loaded", "1002:67df", [4]),
                               ("kfd.pcie_atomics_missing", "1002:67df", [5])]
    assert stack(parsed) == {"kfd_loaded": True}


def test_amdgpu_init_failed_with_firmware_missing() -> None:
    parsed = load("rocm-amdgpu-113-firmware-init-failed.txt")
    assert signals(parsed) == [
        ("amdgpu.firmware_missing", "amdgpu/vega20_rlc.bin", [2]),
        # line 4 names no device: it joins the failure the driver reports next, for 43:00.0
        ("amdgpu.init_failed", "0000:43:00.0", [4, 5, 6, 8])]


def test_init_failure_without_a_bus() -> None:
    parsed = load("freebsd-drm-kmod-211-console.txt")
    assert signals(parsed) == [("amdgpu.init_failed", None, [1, 2, 3])]
    psp = load("legacy-rocm-2995-dkms-6.3.6-psp-failed.txt")
    assert signals(psp) == [("amdgpu.init_failed", None, [16])]
    assert stack(psp) == {"amdgpu_loaded": True, "amdgpu_driver_version": "6.3.6"}


def test_kfd_device_unsupported_both_wordings() -> None:
    assert signals(load("legacy-rocm-2232-pitcairn-not-supported-in-kfd.txt")) == [
        ("kfd.device_unsupported", "PITCAIRN", [1])]
    old = load("legacy-rocm-558-kfd-not-supported-on-asic.txt")
    assert signals(old) == [("kfd.device_unsupported", "0000:02:00.0", [2])]
    assert stack(old) == {"kfd_loaded": True}  # the module itself initialised


def test_amdgpu_dkms_version_from_boot_log() -> None:
    parsed = load("ollama-2453-amdgpu-dkms-6.2.4-polaris.txt")
    assert stack(parsed) == {"amdgpu_loaded": True, "amdgpu_driver_version": "6.2.4"}
    assert [f.source for f in parsed.stack_facts] == [
        "ollama-2453-amdgpu-dkms-6.2.4-polaris.txt:1",
        "ollama-2453-amdgpu-dkms-6.2.4-polaris.txt:2"]
    assert parsed.signals == ()


def test_syslog_prefix_and_dmesg_timestamp_together() -> None:
    parsed = load("chyves-3-syslog-amdgpu-fiji.txt")
    assert stack(parsed) == {"amdgpu_loaded": True, "kfd_loaded": True}
    assert parsed.signals == ()  # in-tree driver: no amdgpu_driver_version either


def test_nvidia_module_load() -> None:
    parsed = load("k8s-device-plugin-480-nvidia-525-boot.txt")
    assert stack(parsed) == {"nvidia_driver_version": "525.147.05"}
    assert parsed.stack_facts[0].source == "k8s-device-plugin-480-nvidia-525-boot.txt:6"
    assert parsed.signals == ()  # a tainted kernel is not a problem


def test_api_mismatch_in_three_log_shapes() -> None:
    assert signals(load("ansible-slurm-287-api-mismatch-syslog-012.txt")) == [
        ("nvml.driver_library_mismatch", "client 535.54.03, kernel module 530.30.02", [1])]
    assert signals(load("open-gpu-kernel-modules-712-api-mismatch-caller-id.txt")) == [
        ("nvml.driver_library_mismatch", "client 550.100, kernel module 550.90.07", [1])]
    journal = load("open-gpu-kernel-modules-626-open-module-journal.txt")
    assert signals(journal) == [
        ("nvml.driver_library_mismatch", "client 550.76, kernel module 550.67", [3])]
    assert stack(journal) == {"nvidia_driver_version": "550.67"}  # the open kernel module


def test_rm_init_adapter_failed() -> None:
    assert signals(load("open-gpu-kernel-modules-862-rminit-syslog.txt")) == [
        ("nvidia.init_failed", "0000:01:00.0", [1, 2])]
    assert signals(load("open-gpu-kernel-modules-789-gsp-rminit.txt")) == [
        ("nvidia.init_failed", "0000:98:00.0", [2, 3])]


def test_nouveau_owns_the_device() -> None:
    assert signals(load("mattshma-133-nouveau-owns-device.txt")) == [
        ("nvidia.no_devices", None, [1]), ("nvidia.probe_not_called", None, [4])]


def test_dmesg_T_timestamps() -> None:
    parsed = load("legacy-rocm-2747-dmesg-T-psp.txt")
    assert parsed.signals == ()  # "PSP create ring failed" alone is not an init failure


def test_host_facts_from_linux_version_line() -> None:
    # The "Linux version" line of ROCm/legacy-rocm-build#558's dmesg.
    text = ("[    0.000000] Linux version 4.15.0-34-generic (buildd@lgw01-amd64-037) (gcc "
            "version 5.4.0 20160609 (Ubuntu 5.4.0-6ubuntu1~16.04.10)) #37~16.04.1-Ubuntu SMP "
            "Tue Aug 28 10:44:06 UTC 2018 (Ubuntu 4.15.0-34.37~16.04.1-generic 4.15.18)\n"
            + read(OUTPUTS / "legacy-rocm-558-kfd-not-supported-on-asic.txt"))
    parsed = parse(text, "dmesg.txt")
    assert {f.key: f.value for f in parsed.host_facts} == {
        "kernel": "4.15.0-34-generic", "os": "linux", "distro_hint": "Ubuntu"}


def test_sniff_leaves_other_formats_alone() -> None:
    corpus = FIXTURES / "corpus"
    for path in (corpus / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt",
                 corpus / "035-rx6700xt-gfx1031-invalid-device-function" / "lspci-vga.txt",
                 corpus / "035-rx6700xt-gfx1031-invalid-device-function" / "dkms-status.txt",
                 corpus / "035-rx6700xt-gfx1031-invalid-device-function" / "torch-error.txt",
                 corpus / "016-nvml-driver-library-mismatch-570" / "nvidia-smi.txt",
                 corpus / "029-windows-cpu-only-torch-collect-env" / "collect_env.txt",
                 FIXTURES / "outputs" / "lspci" / "lact-948-phoenix-v-k.txt"):
        assert sniff(read(path)) is None, path.name


# ----------------------------------------------------------------------------- properties

REAL_TEXTS = [read(p) for p in sorted(OUTPUTS.glob("*.txt"))]


(
    test_random_text_never_raises,
    test_truncated_real_log_never_raises,
    test_shuffled_real_log_never_raises,
) = property_tests(sniff, parse, REAL_TEXTS)


# ----------------------------------------------------------------------------- GPUs a log names


def gpus(parsed: ParsedOutput) -> list[tuple[object, ...]]:
    return [(s.layer.value, s.facts.vendor.value if s.facts.vendor else None, s.facts.pci_bus,
             s.facts.pci_device_id, s.facts.kind.value if s.facts.kind else None,
             s.facts.kernel_driver) for s in parsed.sightings]


def test_kfd_lines_alone_name_the_gpus_and_what_is_wrong_with_them() -> None:
    # A laptop's dGPU added and its Picasso iGPU missing from KFD's table (ROCm/ROCm#719).
    parsed = load("rocm-719-picasso-15d8-beside-rx560x.txt")
    assert gpus(parsed) == [("pci", "amd", None, "0x67ef", None, None),
                            ("pci", "amd", None, "0x15d8", "integrated", None)]
    assert signals(parsed) == [("kfd.loaded", "1002:67ef", [2]),
                               ("kfd.device_unsupported", "1002:15d8", [3])]
    missing = load("rocm-1318-kfd-did-7340-missing.txt")
    assert gpus(missing) == [("pci", "amd", None, "0x7340", None, None)]
    assert signals(missing) == [("kfd.device_unsupported", "1002:7340", [1])]
    assert missing.sightings[0].missing_reasons["pci_bus"].startswith("the kernel log names")


def test_quoted_paste_of_rejected_atomics() -> None:
    parsed = load("rocm-653-quoted-kfd-rejects-atomics.txt")
    assert signals(parsed) == [("kfd.pcie_atomics_missing", "1002:67ef", [2])]
    assert gpus(parsed) == [("pci", "amd", None, "0x67ef", None, None)]
    assert stack(parsed) == {"kfd_loaded": True}


def test_driver_lines_name_the_bus() -> None:
    parsed = load("rocm-1711-kvm-guest-navi21-boot.txt")
    assert gpus(parsed) == [("pci", "amd", "0000:03:00.0", None, None, "amdgpu")]
    assert parsed.sightings[0].field_sources["pci_bus"] == "rocm-1711-kvm-guest-navi21-boot.txt:1"
    assert not any(s.kind == "amdgpu.init_failed" for s in parsed.signals)


def test_pci_scan_ids_join_the_driver_lines_of_the_same_bus() -> None:
    text = "\n".join([
        "[    0.41] pci 0000:03:00.0: [1002:744c] type 00 class 0x030000 PCIe Legacy Endpoint",
        "[    0.41] pci 0000:03:00.1: [1002:ab30] type 00 class 0x040300 PCIe Legacy Endpoint",
        "[    0.42] pci 0000:0e:00.0: [1002:164e] type 00 class 0x030000 PCIe Legacy Endpoint",
        "[    0.43] pci 0000:02:00.0: [1002:1479] type 01 class 0x060400 PCIe Switch",
        "[    3.10] amdgpu 0000:03:00.0: amdgpu: initializing kernel modesetting (IP DISCOVERY "
        "0x1002:0x744C 0x1DA2:0xE471 0xC8).",
        "[    3.50] amdgpu 0000:0e:00.0: amdgpu: Fatal error during GPU init",
    ])
    parsed = parse(text, "dmesg.txt")
    # the audio function and the bridge are no GPUs; the iGPU (Raphael) is integrated
    assert gpus(parsed) == [("pci", "amd", "0000:03:00.0", "0x744c", None, "amdgpu"),
                            ("pci", "amd", "0000:0e:00.0", "0x164e", "integrated", "amdgpu")]
    assert signals(parsed) == [("amdgpu.init_failed", "0000:0e:00.0", [6])]


def test_older_modesetting_line_gives_the_ids_of_the_one_bus() -> None:
    text = ("[    1.84] amdgpu 0000:01:00.0: enabling device (0000 -> 0003)\n"
            "[    1.85] [drm] initializing kernel modesetting (FIJI 0x1002:0x7300 0x1002:0x0B36 "
            "0xCA).\n")
    assert gpus(parse(text, "d")) == [("pci", "amd", "0000:01:00.0", "0x7300", None, "amdgpu")]


def test_apu_topology_node_makes_the_gpu_integrated() -> None:
    text = ("[    2.1] amdgpu: Topology: Add APU node [0x15dd:0x1002]\n"
            "[    2.2] kfd kfd: amdgpu: added device 1002:15dd\n")
    parsed = parse(text, "d")
    assert gpus(parsed) == [("pci", "amd", None, "0x15dd", "integrated", None)]
    assert parsed.sightings[0].field_sources["kind"] == "d:1"


def test_virtual_function_mode_and_not_the_host_side() -> None:
    guest = parse("[    6.09] amdgpu 0000:00:05.0: amdgpu: Running in SR-IOV VF mode\n", "d")
    assert signals(guest) == [("gpu.virtual_function", "0000:00:05.0", [1])]
    assert gpus(guest) == [("pci", "amd", "0000:00:05.0", None, "virtual", "amdgpu")]
    host = parse("[    0.4] pci 0000:03:00.0: [1002:6929] type 00 class 0x030000\n"
                 "[    0.4] pci 0000:03:00.0: VF(n) BAR0 space: [mem 0x380ee0000000-0x380fdfffffff"
                 " 64bit pref] (contains BAR0 for 16 VFs)\n", "d")
    assert host.signals == ()  # the physical function of a host that shares its GPU
    assert gpus(host) == [("pci", "amd", "0000:03:00.0", "0x6929", None, None)]
    vf_id = parse("[    1.0] kfd kfd: amdgpu: added device 1002:74b5\n", "d")
    assert gpus(vf_id) == [("pci", "amd", None, "0x74b5", "virtual", None)]


def test_a_huge_log_is_read_where_the_gpu_lines_are() -> None:
    # 60,000 unrelated lines before the driver's: found by the anchors over the whole paste.
    noise = "[    1.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"
    kfd = "[    2.0] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics\n"
    text = noise * 60_000 + kfd
    parsed = parse(text, "d")
    assert signals(parsed) == [("kfd.pcie_atomics_missing", "1002:67df", [60_001])]


def test_a_log_pasted_again_and_again_says_the_same() -> None:
    # Each message is read once; a repeat only adds its line to the signals' evidence (20).
    for name in ("k8s-device-plugin-480-nvidia-525-boot.txt",
                 "rocm-1711-kvm-guest-navi21-boot.txt"):
        text = read(OUTPUTS / name)
        once, repeated = parse(text, name), parse("\n".join([text] * 30), name)
        assert repeated.stack_facts == once.stack_facts
        assert repeated.host_facts == once.host_facts
        assert repeated.sightings == once.sightings
        assert [(s.kind, s.detail) for s in repeated.signals] == [
            (s.kind, s.detail) for s in once.signals]
        assert all(len(s.evidence) == min(20, 30 * len(o.evidence))
                   for s, o in zip(repeated.signals, once.signals, strict=True))
