"""The NVIDIA kernel module's refusals (rules_nvidia_kernel) on real kernel logs: corpus cases
231, 232, 240 and tests/fixtures/outputs/nvidia-driver-version/ (SOURCES.md there), and the
fixes they point to: the legacy branch the kernel names, the proprietary module for a GPU
without a GSP, the open module for a GPU only it drives."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import pytest

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.importer import import_files
from gpuscope.model import Finding, Gpu, GpuKind, Layer, Severity, Vendor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
OUTPUTS = FIXTURES / "outputs" / "nvidia-driver-version"


def case(prefix: str) -> Path:
    (folder,) = (FIXTURES / "corpus").glob(prefix + "*")
    return folder


def doctor(*paths: Path, distro: str | None = None,
           extra: tuple[Gpu, ...] = ()) -> tuple[DoctorInput, dict[str, list[Finding]]]:
    machine = import_files([str(p) for p in paths])
    inventory = machine.inventory
    if distro is not None or extra:
        inventory = dataclasses.replace(
            inventory, host=dataclasses.replace(inventory.host, distro=distro),
            gpus=(*inventory.gpus, *extra))
    data = DoctorInput(inventory, machine.frameworks, machine.signals)
    found: dict[str, list[Finding]] = {}
    for finding in diagnose(data):
        found.setdefault(finding.id, []).append(finding)
    return data, found


def not_loaded(found: dict[str, list[Finding]]) -> Finding:
    (finding,) = found["nvidia.driver_not_loaded"]
    assert finding.severity is Severity.ERROR
    return finding


@pytest.mark.parametrize("paths", [
    ("231", ("nvidia-smi.txt", "journalctl.txt")), ("240", ("dmesg.txt",))])
def test_a_gpu_the_driver_dropped_needs_the_legacy_branch(
        paths: tuple[str, tuple[str, ...]]) -> None:
    folder = case(paths[0])
    data, found = doctor(*(folder / name for name in paths[1]))
    finding = not_loaded(found)
    (gpu,) = data.inventory.gpus
    assert finding.gpu == gpu.index and "GTX 1050" in (gpu.name or "")
    assert "580.xx legacy" in finding.title and "580" in (finding.fix or "")
    # neither a newer driver nor a driver too old, and no command for an unknown distribution
    assert "nvidia.driver_too_old" not in found and "gpu.usable" not in found
    assert finding.fix_commands == ()
    assert data.inventory.host.os == "linux"


def test_the_legacy_fix_is_distribution_aware() -> None:
    log = case("240") / "dmesg.txt"
    ubuntu = not_loaded(doctor(log, distro="Ubuntu 24.04.2 LTS")[1])
    assert ubuntu.fix_commands == ("sudo apt install nvidia-driver-580", "sudo reboot")
    nixos = not_loaded(doctor(log, distro="NixOS 26.05 (Yarara)")[1])
    assert nixos.fix_commands == ()
    assert "nvidiaPackages.legacy_580" in (nixos.fix or "") and "Ubuntu" not in (nixos.fix or "")
    assert "https://wiki.nixos.org/wiki/NVIDIA" in nixos.sources


def test_a_branch_too_old_for_current_distributions_gets_words_only() -> None:
    finding = not_loaded(doctor(
        OUTPUTS / "plex-media-player-71-ion-legacy-340-dmesg.txt", distro="Ubuntu 22.04")[1])
    assert "340.xx" in finding.title
    assert finding.fix_commands == ()  # Ubuntu's current releases have no 340 package
    assert "nouveau" in (finding.fix or "")


def test_the_open_module_without_gsp_points_to_the_proprietary_one() -> None:
    folder = case("232")
    data, found = doctor(folder / "dmesg.txt", folder / "lspci.txt")
    finding = not_loaded(found)
    (gpu,) = data.inventory.gpus
    assert (gpu.pci_device_id, gpu.kind) == ("0x139a", GpuKind.DISCRETE)
    assert finding.gpu == gpu.index
    assert "open" in (finding.fix or "") and "proprietary" in (finding.fix or "")
    assert finding.fix_commands == ()
    assert {"nvidia.driver_too_old", "nvidia.driver_library_mismatch"}.isdisjoint(found)


def test_a_gsp_message_for_a_gpu_that_has_one_is_no_module_flavour_problem() -> None:
    _, found = doctor(OUTPUTS / "open-gpu-kernel-modules-587-h100-snp-guest-gsp-message.txt")
    finding = not_loaded(found)
    assert "could not identify" in finding.title
    assert "proprietary" not in (finding.fix or "") and finding.fix_commands == ()


def test_a_gpu_only_the_open_module_drives() -> None:
    log = OUTPUTS / "autonomy-kilted-rtx5090-laptop-open-required-580.txt"
    finding = not_loaded(doctor(log)[1])
    assert "open kernel module" in finding.title
    assert "nvidia-driver-580-open" in (finding.fix or "")
    ubuntu = not_loaded(doctor(log, distro="Ubuntu 24.04.3 LTS")[1])
    assert ubuntu.fix_commands == ("sudo apt install nvidia-driver-580-open", "sudo reboot")


def test_a_gpu_this_release_does_not_know() -> None:
    finding = not_loaded(doctor(OUTPUTS / "flatcar-1283-p40-not-supported-535-release.txt")[1])
    assert "does not support this GPU" in finding.title
    assert "535.104.05" in finding.detail and "vGPU" in (finding.fix or "")


def test_a_working_gpu_beside_a_refused_one_stays_usable() -> None:
    working = Gpu(index=1, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 3090",
                  kind=GpuKind.DISCRETE, seen_by=(Layer.NVML,), pci_bus="0000:05:00.0",
                  kernel_driver="nvidia")
    data, found = doctor(case("240") / "dmesg.txt", extra=(working,))
    refused = next(g for g in data.inventory.gpus if "GTX 1050" in (g.name or ""))
    assert not_loaded(found).gpu == refused.index
    assert [f.gpu for f in found["gpu.usable"]] == [1]


def test_every_refusal_fix_runs_as_pasted() -> None:
    logs = [*OUTPUTS.glob("*.txt"), case("231") / "journalctl.txt", case("232") / "dmesg.txt"]
    for distro in (None, "Ubuntu 24.04 LTS", "NixOS 25.11"):
        for log in logs:
            for finding in doctor(log, distro=distro)[1].get("nvidia.driver_not_loaded", []):
                for command in finding.fix_commands:
                    assert not re.search(r"<[a-z]", command), command
                    subprocess.run(["bash", "-n", "-c", command], check=True)
