"""A container engine's words on GPU devices and its Windows traces, read inside any paste:
real captures in tests/fixtures/outputs/container-engine/ (SOURCES.md there) and corpus case
267 (Docker Desktop on Windows without /dev/kfd)."""

from __future__ import annotations

from pathlib import Path

import pytest
from parser_properties import assert_clean, property_tests, read, signals_of

from gpuscope.model import ParsedOutput
from gpuscope.parsers import SCANNER_MODULES, parse_any
from gpuscope.parsers.container_engine import FORMATS, scan

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OUTPUTS = FIXTURES / "outputs" / "container-engine"
REAL = sorted(OUTPUTS.glob("*.txt"))
(CASE_267,) = (FIXTURES / "corpus").glob("267-*")


def details(parsed: ParsedOutput, kind: str) -> list[str | None]:
    return [s.detail for s in signals_of(parsed, kind)]


def test_it_is_a_scanner_of_every_paste() -> None:
    assert FORMATS == ("container-engine",)
    assert "container_engine" in SCANNER_MODULES


@pytest.mark.parametrize(("name", "devices"), [
    ("sd-rocm-docker-8-ubuntu2204-kfd.txt", "/dev/kfd"),
    ("tdarr-509-windows11-docker-desktop-dri.txt", "/dev/dri"),
    ("therock-2573-compose-ci-runner-kfd.txt", "/dev/kfd"),
    ("sextant-397-kubelet-json-nvidia0.txt", "/dev/nvidia0"),  # JSON-escaped quotes, lstat
    ("nvidia-container-toolkit-885-podman-cdi-renderd129.txt", "/dev/dri/renderD129"),  # CDI
])
def test_a_device_the_engine_could_not_add(name: str, devices: str) -> None:
    text = read(OUTPUTS / name)
    scanned = scan(text, name)
    assert details(scanned, "container.device_missing") == [devices]
    # parse_any keeps it whatever format the paste is read as
    assert details(parse_any(text, name), "container.device_missing") == [devices]


def test_every_device_of_a_paste_is_one_signal_with_every_line() -> None:
    text = read(CASE_267 / "docker-run.txt")
    (signal,) = signals_of(scan(text, "docker-run.txt"), "container.device_missing")
    assert signal.detail == "/dev/kfd /dev/dri"
    assert [ref.line for ref in signal.evidence] == [3, 6]


def test_devices_of_no_gpu_are_not_reported() -> None:
    text = ('docker: Error response from daemon: error gathering device information while '
            'adding custom device "/dev/kvm": no such file or directory.\n'
            'Error: error gathering device information while adding custom device '
            '"/dev/video0": no such file or directory\n')
    assert not scan(text, "x").signals


@pytest.mark.parametrize(("name", "driver"), [
    ("docker-for-win-6217-cmd-prompt-gpus.txt", None),
    ("gpu-hot-18-compose-nvidia-driver.txt", "nvidia"),
    ("nvidia-docker-1642-no-driver-name.txt", None),
])
def test_an_engine_without_gpu_support(name: str, driver: str | None) -> None:
    scanned = scan(read(OUTPUTS / name), name)
    assert details(scanned, "container.gpu_request_failed") == [driver]


def test_an_unknown_nvidia_runtime_is_a_failed_gpu_request() -> None:
    text = ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.\n"
            "See 'docker run --help'.\n")
    assert details(scan(text, "x"), "container.gpu_request_failed") == ["nvidia"]


@pytest.mark.parametrize(("path", "how"), [
    (OUTPUTS / "docker-for-win-6217-cmd-prompt-gpus.txt", "a Windows prompt"),
    (OUTPUTS / "wpa-sec-docker-nvidia-5-cmd-userprofile-mount.txt",
     "a bind mount from a Windows path"),
    (OUTPUTS / "docker-for-win-13685-docker-version-windows-client.txt",
     "the engine's client is a Windows program"),
    (CASE_267 / "docker-run.txt", "a bind mount from a Windows path"),
])
def test_an_engine_on_windows(path: Path, how: str) -> None:
    assert details(scan(read(path), path.name), "container.windows_host") == [how]


@pytest.mark.parametrize("line", [
    "PS C:\\work> docker compose up -d",
    "(.venv) D:\\models>docker run --rm -it rocm/pytorch",
    "docker run --mount type=bind,source=D:/models,target=/models rocm/pytorch",
    'docker run -v "C:\\Program Files\\data":/data ubuntu',
    "docker run -v %cd%:/work ubuntu",
    "error during connect: open //./pipe/dockerDesktopLinuxEngine: The system cannot find "
    "the file specified.",
])
def test_other_windows_traces(line: str) -> None:
    assert signals_of(scan(line + "\n", "x"), "container.windows_host")


@pytest.mark.parametrize("line", [
    "docker run -it --device=/dev/kfd -v /home/me/data:/data rocm/pytorch",
    "docker run -v $HOME/dockerx:/dockerx rocm/pytorch",
    "docker run -v ${PWD}:/work ubuntu",  # bash and PowerShell alike
    "user@host:~$ docker run --rm --gpus all ubuntu nvidia-smi",
    " OS/Arch:           linux/amd64",
    "C:\\Users\\me>dir",  # a Windows prompt, but no container command
])
def test_no_windows_trace(line: str) -> None:
    assert not signals_of(scan(line + "\n", "x"), "container.windows_host")


def test_a_huge_line_is_read_around_its_anchor_only() -> None:
    text = "docker run " + "-v " * 200_000 + 'C:\\x:/x\nadding custom device "/dev/kfd"' + (
        ": no such file or directory\n")
    scanned = scan(text, "x")
    assert details(scanned, "container.device_missing") == ["/dev/kfd"]


def _scan_clean(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    assert parsed.format == "container-engine"


test_scan_random_text_never_raises, test_scan_truncated_real_output_never_raises, \
    test_scan_shuffled_real_output_never_raises = property_tests(
        lambda text: None, scan, [read(p) for p in REAL], _scan_clean)
