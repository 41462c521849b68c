"""Doctor rules over a container engine's words, a missing NVIDIA module and a driver known only
by its CUDA version, on real captures: corpus cases 267 (Docker Desktop on Windows without
/dev/kfd), 268 (no NVIDIA module for a new kernel), 269 (a CUDA 11.4 driver under a CUDA 12
torch) and 271 (Windows from DLL names), tests/fixtures/outputs/container-engine/ and the
modprobe captures in tests/fixtures/outputs/nvidia-driver-version/ (SOURCES.md there)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.importer import import_files, import_texts
from gpuscope.model import Finding

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ENGINE = FIXTURES / "outputs" / "container-engine"
MODULES = FIXTURES / "outputs" / "nvidia-driver-version"


def case(prefix: str, *names: str) -> list[Path]:
    (folder,) = (FIXTURES / "corpus").glob(prefix + "*")
    return [folder / name for name in names]


def doctor(paths: list[Path], distro: str | None = "keep") -> dict[str, list[Finding]]:
    machine = import_files([str(p) for p in paths])
    inventory = machine.inventory
    if distro != "keep":
        inventory = dataclasses.replace(
            inventory, host=dataclasses.replace(inventory.host, distro=distro))
    found: dict[str, list[Finding]] = {}
    for finding in diagnose(DoctorInput(inventory, machine.frameworks, machine.signals)):
        found.setdefault(finding.id, []).append(finding)
    return found


def texts(*pairs: tuple[str, str]) -> dict[str, list[Finding]]:
    machine = import_texts(list(pairs))
    found: dict[str, list[Finding]] = {}
    for finding in diagnose(DoctorInput(machine.inventory, machine.frameworks, machine.signals)):
        found.setdefault(finding.id, []).append(finding)
    return found


# ----------------------------------------------------------------------------- container engine


def test_docker_desktop_on_windows_routes_rocm_to_wsl_case_267() -> None:
    found = doctor(case("267", "docker-run.txt", "container-dev.txt", "python-session.txt"))
    (finding,) = found["gpu.not_passed_through"]
    assert finding.fix is not None and "WSL 2" in finding.fix and "/dev/dxg" in finding.fix
    assert "runs on Windows" in finding.title
    assert '"/dev/kfd": no such file or directory' in finding.detail
    assert finding.fix_commands == ()  # nothing to paste in the Windows shell it ran from
    assert any("/wsl/" in url for url in finding.sources)
    assert {e.label() for e in finding.evidence} >= {"docker-run.txt:3", "docker-run.txt:5"}
    # not a driver to load, not a permission, and nothing usable
    assert not {"amdgpu.driver_not_loaded", "kfd.permission_denied", "gpu.usable"} & set(found)


def test_an_nvidia_gpu_request_from_a_windows_prompt_gets_the_wsl2_backend() -> None:
    found = doctor([ENGINE / "docker-for-win-6217-cmd-prompt-gpus.txt"])
    (finding,) = found["gpu.not_passed_through"]
    assert finding.fix is not None and "--gpus all" in finding.fix
    assert "WSL 2 backend" in finding.fix and "AMD" not in finding.fix
    assert "https://docs.docker.com/desktop/features/gpu/" in finding.sources


def test_a_linux_host_without_kfd_loads_the_driver_on_the_host() -> None:
    found = doctor([ENGINE / "sd-rocm-docker-8-ubuntu2204-kfd.txt"])
    (finding,) = found["gpu.not_passed_through"]
    assert "has no /dev/kfd" in finding.title
    assert finding.fix_commands == ("sudo modprobe amdgpu", "ls -l /dev/kfd /dev/dri",
                                    "docker context ls")
    assert finding.fix is not None and "docker context use default" in finding.fix
    assert "WSL" not in finding.fix


def test_a_host_without_nvidia0_gets_the_container_toolkit() -> None:
    found = doctor([ENGINE / "sextant-397-kubelet-json-nvidia0.txt"])
    (finding,) = found["gpu.not_passed_through"]
    assert "/dev/nvidia0" in finding.title
    assert "sudo nvidia-ctk runtime configure --runtime=docker" in finding.fix_commands
    assert "sudo modprobe amdgpu" not in finding.fix_commands


def test_dri_alone_names_no_vendor() -> None:
    # Tdarr on Docker Desktop with an RTX 2080: /dev/dri is any GPU's
    assert "gpu.not_passed_through" not in doctor(
        [ENGINE / "tdarr-509-windows11-docker-desktop-dri.txt"])


def test_a_windows_engine_alone_is_no_finding() -> None:
    assert not doctor([ENGINE / "docker-for-win-13685-docker-version-windows-client.txt"])


# ----------------------------------------------------------------------------- module missing


def test_no_module_for_the_new_kernel_builds_it_case_268() -> None:
    found = doctor(case("268", "os-release.txt", "uname-r.txt", "nvidia-smi.txt",
                        "modprobe-nvidia.txt"))
    (finding,) = found["nvidia.driver_not_loaded"]
    assert "5.17.5-76051705-generic" in finding.title and "5.17.5" in finding.detail
    assert finding.fix_commands == (
        "sudo apt install linux-headers-5.17.5-76051705-generic",  # Pop!_OS: Ubuntu's packages
        "sudo dkms autoinstall -k 5.17.5-76051705-generic", "dkms status")
    assert not any("modprobe" in line for line in finding.fix_commands)
    assert finding.fix is not None and "previous kernel" in finding.fix
    assert {"nvidia-smi.txt:1", "modprobe-nvidia.txt:1"} <= {e.label() for e in finding.evidence}
    assert "nvidia.driver_library_mismatch" not in found and "gpu.usable" not in found


@pytest.mark.parametrize(("name", "release", "apt"), [
    ("nvidia-xrun-135-fedora30-modprobe-module-not-found.txt", "5.2.13-200.fc30.x86_64", False),
    # Ubuntu's AWS kernel: its release names the distribution
    ("compiler-explorer-infra-1413-aws-kernel-module-not-found.txt", "6.8.0-1015-aws", True),
    ("bumblebee-old-71-2011-module-not-found.txt", None, False),
])
def test_modprobe_alone_is_enough(name: str, release: str | None, apt: bool) -> None:
    (finding,) = doctor([MODULES / name])["nvidia.driver_not_loaded"]
    word = release or '"$(uname -r)"'
    assert finding.fix_commands[-2:] == (f"sudo dkms autoinstall -k {word}", "dkms status")
    assert any(line.startswith("sudo apt") for line in finding.fix_commands) is apt


def test_debian_gets_its_headers_package() -> None:
    found = doctor([MODULES / "nvidia-xrun-148-debian10-nvidia-current-not-found.txt"],
                   distro="Debian GNU/Linux 10 (buster)")
    (finding,) = found["nvidia.driver_not_loaded"]
    assert finding.fix_commands[0] == "sudo apt install linux-headers-4.19.0-9-amd64"


def test_modprobe_in_a_container_or_wsl_says_nothing_of_the_host() -> None:
    line = "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic\n"
    in_container = texts(("prompt.txt", "root@d7197a0a618a:/workspace# nvidia-smi\n"),
                         ("modprobe.txt", line))
    assert all("not built for the running kernel" not in f.title
               for f in in_container.get("nvidia.driver_not_loaded", []))
    wsl = texts(("uname.txt", "Linux host 5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 "
                              "23:14:13 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n"),
                ("modprobe.txt", line))
    assert "nvidia.driver_not_loaded" not in wsl


# ----------------------------------------------------------------------------- driver's CUDA


def test_a_driver_known_by_its_cuda_gets_a_cuda11_wheel_case_269() -> None:
    found = doctor(case("269", "torch-warning.txt"))
    (finding,) = found["nvidia.driver_too_old"]
    assert finding.fix_commands == (
        "/opt/python11Venv/bin/python3.11 -m pip uninstall -y torch",
        "/opt/python11Venv/bin/python3.11 -m pip install torch --index-url "
        "https://download.pytorch.org/whl/cu118")
    assert finding.fix is not None and "minor-version compatibility" in finding.fix
    assert "nvidia.driver_not_loaded" not in found and "torch.cpu_build" not in found


# ----------------------------------------------------------------------------- Windows commands


def test_windows_from_dll_names_gets_python_not_python3_case_271() -> None:
    machine = import_files([str(p) for p in case("271", "whisper-gui-output.txt")])
    assert machine.inventory.host.os == "windows"
    found = doctor(case("271", "whisper-gui-output.txt"))
    (finding,) = found["torch.arch_missing"]
    assert finding.fix_commands and all(line.startswith("python -m pip ")
                                        for line in finding.fix_commands)
    assert "cu128" in (finding.fix or "")
