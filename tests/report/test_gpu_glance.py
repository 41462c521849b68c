"""Each GPU at a glance (the Overview's verdict line): from replayed snapshots that work and
that are blocked, and from a hand-made ROCm machine with a PyTorch build in a virtualenv."""

from __future__ import annotations

import sys
from dataclasses import replace

from fixture_paths import SNAPSHOTS_DIR

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.layers import LayerState
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import (
    DEFAULT_INSPECTION_BUDGET_S,
    collect_inventory,
    inspect_interpreters,
)
from gpuscope.model import Finding, Framework, FrameworkDevice, FrameworkRef, Severity
from gpuscope.probes.python_envs import default_interpreters
from gpuscope.report.gpu_glance import (
    GpuGlance,
    PartKind,
    environment_of,
    gpu_glance,
    machine_findings,
    major_minor,
)


def replayed(snapshot: str) -> tuple[DoctorInput, tuple[Finding, ...]]:
    """The doctor's input over a snapshot, its frameworks as the capture answered them."""
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot)
    inventory = collect_inventory(system)
    inspection = inspect_interpreters(system, default_interpreters(system, sys.executable, ()),
                                      DEFAULT_INSPECTION_BUDGET_S)
    data = DoctorInput(inventory, inspection.frameworks, interpreters=inspection.interpreters)
    return data, diagnose(data)


def glances(snapshot: str, home: str | None = None) -> list[GpuGlance]:
    data, findings = replayed(snapshot)
    return [gpu_glance(data, findings, gpu, home=home) for gpu in data.inventory.gpus]


def test_a_working_gpu_says_driver_and_pytorch_with_ticks() -> None:
    (glance,) = glances("nvidia_h200.json")
    assert glance.text == ("NVIDIA 580.159.04 (CUDA 13.0) ✓ · "
                           "PyTorch 2.11 (CUDA 13.0) ✓ in /opt/torch/.venv")
    assert glance.state is LayerState.OK and glance.blocker is None
    assert glance.findings == () and glance.caveat is None
    # Under the interpreter's home it is named from there.
    (glance,) = glances("nvidia_h200.json", home="/opt/torch")
    assert glance.text.endswith("✓ in ~/.venv")


def test_a_rocm_build_in_a_virtualenv_reads_as_in_the_issue() -> None:
    data, _ = replayed("rx7900xtx_rocm.json")
    gpu = data.inventory.gpus[0]
    torch = Framework(name="torch", version="2.5.1+rocm6.2", build="rocm", build_version="6.2",
                      gpu_available=True, arch_list=("gfx1100",), python=
                      "/home/ann/venvs/ai/bin/python", smoke_test="ok",
                      devices=(FrameworkDevice(0, gpu.name, "gfx1100", pci_bus=gpu.pci_bus),))
    data = replace(data, frameworks=(torch,))
    glance = gpu_glance(data, diagnose(data), gpu, home="/home/ann")
    assert glance.text == "ROCm 6.2.4 ✓ · PyTorch 2.5 (ROCm 6.2) ✓ in ~/venvs/ai"
    assert glance.state is LayerState.OK


def test_a_blocked_gpu_names_the_blocking_finding_and_its_commands() -> None:
    (glance,) = glances("amd_kfd_no_access.json")
    assert glance.state is LayerState.BLOCKED
    assert glance.text == "✗ This user cannot open the GPU device nodes"
    assert glance.blocker is not None and glance.blocker.finding is not None
    assert glance.blocker.finding.id == "kfd.permission_denied"
    assert glance.blocker.fix_commands == ("sudo usermod -aG render,video $USER",)
    # The warning beside it is listed too, with its own fix; the blocker is not repeated.
    assert [f.id for f in glance.findings] == ["rocm.gfx_unsupported"]
    assert glance.findings[0].fix_commands == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",)


def test_the_igpu_beside_a_discrete_gpu_is_blocked_the_discrete_one_not() -> None:
    dgpu, igpu = glances("apu_dgpu.json")
    assert dgpu.state is LayerState.UNKNOWN  # no PyTorch inspected in that capture
    assert dgpu.text == "ROCm 7.2.0 ✓ · PyTorch not inspected"
    assert igpu.blocker is not None and igpu.blocker.fix_commands == (
        "export HIP_VISIBLE_DEVICES=0",)


def test_no_pytorch_and_a_smoke_test_cut_short() -> None:
    (glance,) = glances("rx7900xtx_no_torch.json")
    assert glance.parts[1].kind is PartKind.NO_TORCH
    assert glance.text == "ROCm 6.2.4 ✓ · no PyTorch in the 2 interpreters inspected"
    assert [f.id for f in glance.findings] == ["torch.not_installed"]
    (glance,) = glances("nvidia_h200_smoke_cut_short.json")
    assert glance.state is LayerState.WARNING
    assert "PyTorch 2.11 (CUDA 13.0) ! in" in glance.text
    assert glance.caveat is not None
    assert glance.caveat.fix_commands == (
        "gpuscope doctor --python /opt/torch/.venv/bin/python3",)


def test_every_warning_and_error_is_listed_and_the_machine_ones_once() -> None:
    data, _ = replayed("apu_dgpu.json")
    torch = FrameworkRef("torch", "/usr/bin/python3", "2.5.1")
    findings = (
        Finding("rocm.igpu_enumerated", Severity.ERROR, "iGPU enumerated", gpu=1,
                fix_commands=("export HIP_VISIBLE_DEVICES=0",)),
        Finding("a.first", Severity.WARNING, "first warning", gpu=0),
        Finding("b.second", Severity.WARNING, "second warning", gpu=0, framework=torch),
        Finding("c.error", Severity.ERROR, "an error about GPU 1", gpu=1),
        Finding("d.note", Severity.INFO, "a note", gpu=0),
        Finding("e.machine", Severity.WARNING, "about the whole machine"),
        Finding("f.machine", Severity.ERROR, "an error of the machine"),
    )
    dgpu, igpu = (gpu_glance(data, findings, gpu) for gpu in data.inventory.gpus)
    assert [f.id for f in dgpu.findings] == ["a.first", "b.second"]
    assert dgpu.state is LayerState.WARNING
    assert igpu.blocker is not None and igpu.blocker.title == "iGPU enumerated"
    assert [f.id for f in igpu.findings] == ["c.error"]
    assert [f.id for f in machine_findings(findings, [dgpu, igpu])] == ["f.machine",
                                                                         "e.machine"]


def test_environment_names() -> None:
    assert environment_of("/home/ann/venvs/ai/bin/python", "/home/ann") == "~/venvs/ai"
    assert environment_of("/home/ann/venvs/ai/bin/python", "/home/bob") == "/home/ann/venvs/ai"
    assert environment_of("/home/ann/miniconda3/envs/rocm/bin/python3.12", "/home/ann/") \
        == "~/miniconda3/envs/rocm"
    assert environment_of("/usr/bin/python3") == "/usr/bin/python3"
    assert environment_of("/usr/local/bin/python3.12") == "/usr/local/bin/python3.12"
    assert environment_of("/home/ann/bin/python", "/home/ann") == "~"
    assert environment_of("C:\\Users\\ann\\ai\\Scripts\\python.exe") == "C:\\Users\\ann\\ai"
    assert environment_of("pasted collect_env") == "pasted collect_env"
    assert environment_of(None) is None
    assert major_minor("2.5.1+rocm6.2") == "2.5" and major_minor("rocmsdk2025") is None


def test_pasted_outputs_say_what_they_do_not_show() -> None:
    from gpuscope.importer import import_files

    folder = next((SNAPSHOTS_DIR.parent / "corpus").glob("005-*"))
    machine = import_files([str(folder / "rocminfo.txt")])
    data = DoctorInput(machine.inventory, machine.frameworks, machine.signals)
    (gpu,) = data.inventory.gpus
    glance = gpu_glance(data, diagnose(data), gpu)
    assert glance.parts[0].version is None
    assert glance.text.startswith("ROCm version unknown")  # rocminfo answered: ROCm is there
    assert glance.text.endswith(" · no PyTorch output among the imported files")
