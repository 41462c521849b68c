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
        assert sniff(read(path)) == ("kernel-log", 0.85), path.name


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
        "kernel": "4.15.0-34-generic", "os": "linux", "distro": "Ubuntu"}


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
