"""The loaded NVIDIA kernel module's version: /proc/driver/nvidia/version and NVRM lines, over
real pastes (tests/fixtures/outputs/nvidia-driver-version/, SOURCES.md there; corpus cases 206
to 208; the kernel-log captures with NVRM API mismatches)."""

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


test_random_text_never_raises, test_truncated_real_output_never_raises, \
    test_shuffled_real_output_never_raises = property_tests(sniff, parse, [read(p) for p in REAL])
