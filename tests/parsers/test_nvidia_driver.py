"""The loaded NVIDIA kernel module's version, and the GPUs it refuses: /proc/driver/nvidia/version
and NVRM lines, over real pastes (tests/fixtures/outputs/nvidia-driver-version/, SOURCES.md
there; corpus cases 206 to 208, 231, 232 and 240; the kernel-log captures with NVRM API
mismatches); and the NVIDIA Container Toolkit's errors (corpus case 153)."""

from __future__ import annotations

from pathlib import Path

import pytest
from parser_properties import assert_clean, fact, property_tests, read, signals_of

from gpuscope.model import ParsedOutput
from gpuscope.parsers import parse_any
from gpuscope.parsers.nvidia_driver import FORMATS, parse, scan, sniff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
OUTPUTS = FIXTURES / "outputs" / "nvidia-driver-version"
KERNEL_LOGS = FIXTURES / "outputs" / "kernel-log"
REAL = sorted(OUTPUTS.glob("*.txt"))


def case(prefix: str, name: str) -> Path:
    (folder,) = CORPUS.glob(prefix + "*")
    return folder / name


def load(path: Path) -> ParsedOutput:
    parsed = parse(read(path), path.name)
    assert_clean(parsed)
    return parsed


def test_formats() -> None:
    assert FORMATS == ("nvidia-driver-version",)


@pytest.mark.parametrize(("path", "version", "flavour"), [
    (case("206", "proc-driver-nvidia-version.txt"), "520.56.06", "proprietary"),
    (case("208", "proc-driver-nvidia-version.txt"), "580.173.02", "proprietary"),
    (OUTPUTS / "nixgl-121-open-525-arch.txt", "525.60.11", "open"),
    (OUTPUTS / "nixgl-186-open-565-ubuntu2404.txt", "565.57.01", "open"),
    (OUTPUTS / "neofetch-876-proprietary-384-ubuntu-prompt.txt", "384.98", "proprietary"),
])
def test_proc_version_file(path: Path, version: str, flavour: str) -> None:
    text = read(path)
    assert sniff(text) == ("nvidia-driver-version", 0.9)
    assert parse_any(text, path.name).format == "nvidia-driver-version"
    parsed = load(path)
    assert fact(parsed, "nvidia_driver_version") == version
    assert fact(parsed, "nvidia_kernel_module") == flavour
    assert fact(parsed, "os") == "linux"
    assert not parsed.problems


def test_jetson_reports_an_l4t_release_not_a_driver() -> None:
    parsed = load(OUTPUTS / "nixgl-139-jetson-orin-l4t-35.txt")
    assert fact(parsed, "nvidia_driver_version") == "absent"
    assert fact(parsed, "nvidia_l4t_version") == "35.3.1"
    assert parsed.problems and "L4T" in parsed.problems[0]


@pytest.mark.parametrize(("path", "client", "kernel"), [
    (OUTPUTS / "nvidia-all-394-dmesg-api-mismatch-client-pid.txt", "595.84", "595.80"),
    (OUTPUTS / "open-gpu-kernel-modules-829-journal-api-mismatch-powerd.txt", "570.133.07",
     "575.51.02"),
    (OUTPUTS / "dalle-playground-104-dmesg-api-mismatch-515.txt", "515.48.07", "510.73.05"),
    (case("207", "journalctl.txt"), "367.44", "367.35"),
    (KERNEL_LOGS / "ansible-slurm-287-api-mismatch-syslog-012.txt", "535.54.03", "530.30.02"),
    (KERNEL_LOGS / "open-gpu-kernel-modules-712-api-mismatch-caller-id.txt", "550.100",
     "550.90.07"),
])
def test_api_mismatch_over_several_nvrm_lines(path: Path, client: str, kernel: str) -> None:
    text = read(path)
    scanned = scan(text, path.name)
    assert fact(scanned, "nvidia_driver_version") == kernel
    assert fact(scanned, "nvidia_userspace_version") == client
    (signal,) = signals_of(scanned, "nvml.driver_library_mismatch")
    assert signal.detail == f"client {client}, kernel module {kernel}"
    # whatever parses the file, the facts join it
    parsed = parse_any(text, path.name)
    assert fact(parsed, "nvidia_driver_version") == kernel
    assert fact(parsed, "os") == "linux"
    assert len(signals_of(parsed, "nvml.driver_library_mismatch")) == 1


def test_nothing_from_text_without_nvrm() -> None:
    scanned = scan("NVIDIA-SMI 550.54.14  Driver Version: 550.54.14\n", "x")
    assert not scanned.stack_facts and not scanned.signals
    assert sniff("Linux version 6.1.0\n") is None
    assert load_text_problem("hello") == "no 'NVRM version: NVIDIA UNIX ... Kernel Module " \
                                          "<version>' line"


def load_text_problem(text: str) -> str:
    (problem,) = parse(text, "x").problems
    return problem


# ----------------------------------------------------------------------- GPUs the driver refuses


def sightings(parsed: ParsedOutput) -> list[tuple[str | None, str | None, str | None]]:
    """(name, bus, device id) of the GPUs NVRM lines name."""
    return [(s.facts.name, s.facts.pci_bus, s.facts.pci_device_id) for s in parsed.sightings]


@pytest.mark.parametrize(("path", "name", "branch", "version"), [
    (case("231", "journalctl.txt"), "NVIDIA GeForce GTX 1050", "580.xx", "595.58.03"),
    (case("240", "dmesg.txt"), "NVIDIA GeForce GTX 1050", "580.xx", "595.71.05"),
    (OUTPUTS / "talos-8764-gt710-legacy-470-kern-err.txt", "GeForce GT 710", "470.xx",
     "535.129.03"),
    (OUTPUTS / "negativo17-nvidia-driver-30-geforce320m-legacy-340-repeated.txt",
     "GeForce 320M", "340.xx", "384.69"),
    (OUTPUTS / "plex-media-player-71-ion-legacy-340-dmesg.txt", "Second Generation ION",
     "340.xx", "346.72"),
])
def test_a_gpu_only_a_legacy_branch_drives(path: Path, name: str, branch: str,
                                           version: str) -> None:
    text = read(path)
    scanned = scan(text, path.name)
    # one GPU however often the driver probed it, named as the kernel prints it
    assert sightings(scanned) == [(name, None, None)]
    assert scanned.sightings[0].facts.vendor is not None
    assert [s.detail for s in signals_of(scanned, "nvidia.legacy_gpu")] == [branch]
    assert fact(scanned, "nvidia_driver_version") == version
    assert fact(scanned, "os") == "linux"
    parsed = parse_any(text, path.name)  # a kernel log: the scan's GPU joins its parse
    assert (name, None, None) in sightings(parsed)
    assert fact(parsed, "nvidia_driver_version") == version


@pytest.mark.parametrize(("path", "bus", "device"), [
    (case("232", "dmesg.txt"), "0000:01:00.0", "0x139a"),  # "18de:139a" as the reporter typed
    (OUTPUTS / "negativo17-nvidia-driver-158-gt1030-open-no-gsp-journal.txt", "0000:09:00.0",
     "0x1d01"),
    (OUTPUTS / "open-gpu-kernel-modules-696-gtx1080-open-no-gsp.txt", "0000:02:00.0",
     "0x1b82"),
    (OUTPUTS / "open-gpu-kernel-modules-587-h100-snp-guest-gsp-message.txt", "0000:01:00.0",
     "0x2331"),
])
def test_the_open_module_refusing_a_gpu_without_gsp(path: Path, bus: str, device: str) -> None:
    scanned = scan(read(path), path.name)
    assert sightings(scanned) == [(None, bus, device)]
    (signal,) = signals_of(scanned, "nvidia.open_module_unsupported")
    assert signal.detail == bus and len(signal.evidence) >= 3  # the message's lines
    assert fact(scanned, "nvidia_kernel_module") == "open"
    assert not signals_of(scanned, "nvidia.device_unsupported")


def test_the_proprietary_module_refusing_a_gpu_only_the_open_one_drives() -> None:
    path = OUTPUTS / "autonomy-kilted-rtx5090-laptop-open-required-580.txt"
    scanned = scan(read(path), path.name)
    assert sightings(scanned) == [(None, "0000:02:00.0", "0x2c58")]
    assert [s.detail for s in signals_of(scanned, "nvidia.open_module_required")] == [
        "0000:02:00.0"]
    assert fact(scanned, "nvidia_kernel_module") == "proprietary"
    assert fact(scanned, "nvidia_driver_version") == "580.105.08"


@pytest.mark.parametrize(("path", "bus", "device", "version"), [
    (OUTPUTS / "flatcar-1283-p40-not-supported-535-release.txt", "0000:02:00.0", "0x1b38",
     "535.104.05"),
    (OUTPUTS / "bumblebee-583-gt520m-not-supported-280-graphics-release.txt", "0000:01:00.0",
     "0x1050", "280.13"),
    (OUTPUTS / "bumblebee-537-syslog-not-supported-280.txt", "0000:01:00.0", "0x0a75",
     "280.04"),
])
def test_a_gpu_this_release_does_not_know(path: Path, bus: str, device: str,
                                          version: str) -> None:
    scanned = scan(read(path), path.name)
    assert sightings(scanned) == [(None, bus, device)]
    assert [s.detail for s in signals_of(scanned, "nvidia.device_unsupported")] == [bus]
    assert fact(scanned, "nvidia_driver_version") == version


def test_a_syslog_line_with_the_message_joined_by_012() -> None:
    # rsyslog writes a multi-line printk as one line, "#012" for each newline: the plex capture
    # in that layout
    lines = read(OUTPUTS / "plex-media-player-71-ion-legacy-340-dmesg.txt").splitlines()[:5]
    text = "Oct 27 10:00:00 host kernel: " + "#012".join(
        line.split("] ", 1)[1] for line in lines) + "\n"
    scanned = scan(text, "syslog")
    assert sightings(scanned) == [("Second Generation ION", None, None)]
    assert [s.detail for s in signals_of(scanned, "nvidia.legacy_gpu")] == ["340.xx"]
    assert fact(scanned, "nvidia_driver_version") == "346.72"


def test_the_container_toolkit_finds_no_wsl_adapter() -> None:
    path = case("153", "docker-compose-up.txt")
    scanned = scan(read(path), path.name)
    assert [s.kind for s in scanned.signals] == ["wsl.no_gpu_adapter"]
    assert fact(scanned, "os") == "wsl"
    assert not scanned.sightings


def test_other_nvrm_lines_name_no_gpu() -> None:
    for text in ("NVRM: The NVIDIA probe routine was not called for 1 device(s).\n",
                 "NVRM: The NVIDIA probe routine failed for 1 device(s).\n",
                 "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n",
                 "The NVIDIA GeForce GT 710 GPU installed in this system is\n"):  # no NVRM
        scanned = scan(text, "x")
        assert not scanned.sightings and not scanned.signals, text


@pytest.mark.parametrize(("path", "release", "lines"), [
    (case("268", "modprobe-nvidia.txt"), "5.17.5-76051705-generic", [1]),
    (OUTPUTS / "nvidia-xrun-135-fedora30-modprobe-module-not-found.txt",
     "5.2.13-200.fc30.x86_64", [2, 4, 6, 8]),  # nvidia, nvidia_uvm, nvidia_modeset, nvidia_drm
    (OUTPUTS / "nvidia-xrun-148-debian10-nvidia-current-not-found.txt", "4.19.0-9-amd64", [2]),
    (OUTPUTS / "compiler-explorer-infra-1413-aws-kernel-module-not-found.txt",
     "6.8.0-1015-aws", [1]),
    (OUTPUTS / "nvidia-xrun-144-arch-zen-nvidia-drm-not-found.txt", "5.5.9-zen1-2-zen", [1]),
    (OUTPUTS / "bumblebee-old-71-2011-module-not-found.txt", None, [1]),  # no directory named
])
def test_no_module_for_the_running_kernel(path: Path, release: str | None,
                                          lines: list[int]) -> None:
    text = read(path)
    (signal,) = signals_of(scan(text, path.name), "nvidia.module_missing")
    assert signal.detail == release
    assert [ref.line for ref in signal.evidence] == lines
    assert signals_of(parse_any(text, path.name), "nvidia.module_missing")  # any format


@pytest.mark.parametrize("line", [
    "modprobe: ERROR: could not insert 'nvidia': Invalid module format",
    "modprobe: ERROR: could not insert 'nvidia_uvm': Exec format error",
    "insmod: ERROR: could not insert module /lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko: "
    "Invalid module format",
    "FATAL: Error inserting nvidia_current (/lib/modules/2.6.38-8-generic/updates/dkms/"
    "nvidia-current.ko): Invalid module format",
])
def test_a_module_built_for_another_kernel(line: str) -> None:
    assert [s.detail for s in signals_of(scan(line + "\n", "x"), "nvidia.module_missing")] == [
        None]


@pytest.mark.parametrize("line", [
    "modprobe: FATAL: Module amdgpu not found in directory /lib/modules/6.8.0-45-generic",
    "modprobe: ERROR: could not insert 'nvidia': Operation not permitted",  # Secure Boot
    "FATAL: Error inserting nvidia_current (/lib/modules/2.6.38-8-generic/updates/dkms/"
    "nvidia-current.ko): No such device",  # no GPU for it
    "modprobe: ERROR: could not insert 'nvhda': Exec format error",  # not NVIDIA's driver
    "Package nvidia-driver-535 not found",
])
def test_other_module_messages_are_not_a_missing_driver(line: str) -> None:
    assert not signals_of(scan(line + "\n", "x"), "nvidia.module_missing")


def test_a_paste_that_repeats_a_message_reads_it_2000_times() -> None:
    text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 2024\n"
    text += "modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/6.8.0-45\n"
    parsed = parse(text * 3000, "version")
    assert parsed.problems == (
        "only the first 2,000 lines holding 'Kernel Module' were read",
        "only the first 2,000 lines holding 'not found' or 'insert' with 'nvidia' were read")
    assert fact(parsed, "nvidia_driver_version") == "550.54.14"
    (missing,) = signals_of(parsed, "nvidia.module_missing")
    assert [ref.line for ref in missing.evidence] == list(range(2, 41, 2))
    assert scan(text * 3000, "version").signals == parsed.signals


test_random_text_never_raises, test_truncated_real_output_never_raises, \
    test_shuffled_real_output_never_raises = property_tests(sniff, parse, [read(p) for p in REAL])


def _scan_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)


test_scan_random_text_never_raises, test_scan_truncated_real_output_never_raises, \
    test_scan_shuffled_real_output_never_raises = property_tests(
        sniff, lambda text, source: scan(text, source), [read(p) for p in REAL], _scan_clean)
