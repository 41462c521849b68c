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
