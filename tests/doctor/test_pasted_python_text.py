"""The doctor over pasted Python sessions, PyTorch's own messages and NVIDIA module versions:
a finding names the interpreter whose PyTorch printed the error, and a driver/library mismatch
names the versions it saw (corpus cases 158, 160, 206, 207, 208, 209)."""

from __future__ import annotations

import json
from pathlib import Path

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.importer import import_files
from gpuscope.model import Finding

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"


def findings_of(prefix: str) -> dict[str, Finding]:
    (case,) = CORPUS.glob(prefix + "*")
    names = json.loads((case / "expect.json").read_text(encoding="utf-8"))["files"]
    machine = import_files([str(case / name) for name in names])
    found = diagnose(DoctorInput(machine.inventory, machine.frameworks, machine.signals))
    return {f.id: f for f in found}


def test_arch_missing_names_the_interpreter_of_the_warning() -> None:
    missing = findings_of("160")["torch.arch_missing"]
    assert missing.framework is not None
    assert missing.framework.python == "D:\\RVC\\RVC1006Nvidia\\runtime\\python.exe"
    assert all(c.startswith("D:\\RVC\\RVC1006Nvidia\\runtime\\python.exe -m pip")
               for c in missing.fix_commands)


def test_a_warning_with_no_interpreter_links_its_build_anyway() -> None:
    missing = findings_of("159")["torch.arch_missing"]
    assert missing.framework is not None and missing.framework.python is None


def test_driver_too_old_for_the_session_torch() -> None:
    too_old = findings_of("158")["nvidia.driver_too_old"]
    assert too_old.framework is not None and too_old.framework.version == "2.1.2+cu121"


def test_mismatch_names_the_loaded_module_and_the_installed_driver() -> None:
    dpkg = findings_of("206")["nvidia.driver_library_mismatch"].detail
    assert "loaded kernel module is 520.56.06" in dpkg
    assert "installed user-space driver is 525.85.12" in dpkg
    nvml = findings_of("208")["nvidia.driver_library_mismatch"].detail
    assert "loaded kernel module is 580.173.02" in nvml and "libraries are 580.178" in nvml
    journal = findings_of("207")["nvidia.driver_library_mismatch"].detail
    assert journal.count("367.35") == 1 and journal.count("367.44") == 1  # said once


def test_undefined_rocm_symbol_is_a_rocm_mismatch() -> None:
    findings = findings_of("209")
    assert "torch.rocm_mismatch" in findings and "torch.arch_missing" not in findings


def diagnose_files(prefix: str, names: list[str]) -> list[Finding]:
    (case,) = CORPUS.glob(prefix + "*")
    machine = import_files([str(case / name) for name in names])
    return list(diagnose(DoctorInput(machine.inventory, machine.frameworks, machine.signals)))


def test_pytorch_saying_the_driver_is_too_old_is_enough() -> None:
    """Only PyTorch's warning and nvidia-smi: no torch version, yet the driver is too old."""
    (too_old,) = [f for f in diagnose_files("158", ["nvidia-smi.txt", "torch-warning.txt"])
                  if f.id == "nvidia.driver_too_old"]
    assert "CUDA 11.8 at most" in too_old.detail
    assert too_old.fix_commands[-1].endswith("--index-url https://download.pytorch.org/whl/cu118")
    alone = [f for f in diagnose_files("158", ["torch-warning.txt"])
             if f.id == "nvidia.driver_too_old"]
    # No driver version: the CUDA version it reports (11.8) chooses a wheel it runs.
    assert len(alone) == 1
    assert alone[0].fix_commands[-1].endswith("--index-url https://download.pytorch.org/whl/cu118")
    every = [f for f in diagnose_files("158", [
        "lspci-grep-nvidia.txt", "nvidia-smi.txt", "nvcc-version.txt",
        "python-torch-version.txt", "torch-warning.txt"]) if f.id == "nvidia.driver_too_old"]
    assert len(every) == 1 and every[0].framework is not None  # the session's torch judges it
    assert every[0].framework.version == "2.1.2+cu121"
