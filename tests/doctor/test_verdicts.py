"""The verdict engine (`gpuscope.doctor.verdicts`) and the torch rules it shares its analysis
with: the regressions of issue #10 (a smoke test that found no kernels, CUDA compute
capability coverage, a git hash with an "a", a host ROCm point release), the smoke-test causes,
the structural framework link, `torch.not_installed`, and every command the rules can emit
passing `bash -n` over a matrix of machines."""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace

import pytest

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.doctor.layers import LayerState, layers_for
from gpuscope.doctor.verdicts import (
    REASON_TEXTS,
    VerdictReason,
    arch_coverage,
    framework_verdict,
    framework_verdicts,
    gpu_framework_verdict,
    smoke_cause,
    smoke_failures,
)
from gpuscope.inventory import build_device_index
from gpuscope.model import (
    DeviceNodeAccess,
    Finding,
    Framework,
    FrameworkDevice,
    Gpu,
    GpuKind,
    Host,
    Interpreter,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Severity,
    Stack,
    Vendor,
)

PYTHON = "/home/me/venv/bin/python"
INTERNAL = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")
NO_KERNEL = ("failed: RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code "
             "object for all current devices!")


def amd(index: int = 0, gfx: str = "gfx1100", name: str = "AMD Radeon RX 7900 XTX",
        kind: GpuKind = GpuKind.DISCRETE) -> Gpu:
    return Gpu(index=index, vendor=Vendor.AMD, name=name, gfx_target=gfx, kind=kind,
               kernel_driver="amdgpu", pci_bus=f"0000:0{index + 3}:00.0", kfd_node=index + 1,
               seen_by=(Layer.SYSFS, Layer.KFD))


def nvidia(index: int = 0, cc: str = "8.9", name: str = "NVIDIA GeForce RTX 4090") -> Gpu:
    return Gpu(index=index, vendor=Vendor.NVIDIA, name=name, kind=GpuKind.DISCRETE,
               compute_capability=cc, kernel_driver="nvidia", pci_bus=f"0000:0{index + 1}:00.0",
               seen_by=(Layer.NVML,))


def machine(gpus: list[Gpu], frameworks: tuple[Framework, ...] = (), *,
            rocm: str | None = "6.2.4", driver: str | None = None, os: str = "linux",
            environment: dict[str, str | None] | None = None,
            interpreters: tuple[Interpreter, ...] = ()) -> DoctorInput:
    stack = Stack(rocm_version=rocm, kfd_loaded=True, nvidia_driver_version=driver,
                  environment=environment or {},
                  device_nodes=(DeviceNodeAccess("/dev/kfd", exists=True, can_open=True),))
    inventory = Inventory(gpus=tuple(gpus), stack=stack, host=Host(os=os), probes=(),
                          device_index=build_device_index(gpus, stack.environment),
                          origin=Origin(OriginKind.LIVE))
    return DoctorInput(inventory, frameworks, interpreters=interpreters)


def torch(build: str, version: str, build_version: str | None = None, *,
          available: bool | None = True, arch: tuple[str, ...] = (),
          smoke: str | None = "ok", python: str = PYTHON,
          devices: tuple[FrameworkDevice, ...] = ()) -> Framework:
    return Framework(name="torch", version=version, build=build, build_version=build_version,
                     gpu_available=available, arch_list=arch, python=python,
                     python_version="3.12.3", smoke_test=smoke, devices=devices)


def by_id(findings: tuple[Finding, ...]) -> dict[str, Finding]:
    return {f.id: f for f in findings}


def framework_row(data: DoctorInput, index: int = 0) -> tuple[LayerState, str]:
    findings = diagnose(data)
    row = layers_for(data, findings, data.inventory.gpus[index])[-1]
    assert row.name == "Framework (PyTorch)"
    return row.state, row.text


# ----------------------------------------------------------------------------- regressions


def test_a_smoke_test_with_no_kernels_blocks_the_gpu() -> None:
    """(a) A ROCm torch whose smoke test died with hipErrorNoBinaryForGpu got "usable"."""
    build = torch("rocm", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", arch=(), smoke=NO_KERNEL)
    data = machine([amd(gfx="gfx1102", name="AMD Radeon RX 7600")], (build,))
    found = by_id(diagnose(data))
    missing = found["torch.arch_missing"]
    assert missing.severity is Severity.ERROR and missing.gpu == 0
    assert "hipErrorNoBinaryForGpu" in missing.detail
    assert missing.framework is not None and missing.framework.matches(build)
    assert "torch.smoke_failed" not in found and "gpu.usable" not in found
    verdict = framework_verdict(data, diagnose(data), build, data.inventory.gpus[0])
    assert (verdict.state, verdict.reason) == (LayerState.BLOCKED, VerdictReason.ARCH_MISSING)
    assert verdict.smoke.status == "failed" and verdict.smoke.cause == "no_kernels"
    assert verdict.flavour == "rocm6.2" and verdict.host.status == "ok"
    assert verdict.finding_ids == ("torch.arch_missing",)
    assert framework_row(data) == (
        LayerState.BLOCKED, f"PyTorch 2.5.1+rocm6.2 in {PYTHON}: no: the framework has no "
                            "kernels for gfx1102")


@pytest.mark.parametrize("message", [
    "RuntimeError: HIP error: invalid device function",
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "killed by SIGABRT (hipErrorNoBinaryForGpu: Unable to find code object)",
])
def test_every_no_kernel_message_is_arch_missing(message: str) -> None:
    cuda = "CUDA" in message
    build = (torch("cuda", "2.5.1+cu124", "12.4", smoke=f"failed: {message}") if cuda
             else torch("rocm", "2.5.1+rocm6.2", "6.2", smoke=f"failed: {message}"))
    data = machine([nvidia() if cuda else amd()], (build,), driver="560.35.05")
    found = by_id(diagnose(data))
    assert "torch.arch_missing" in found and "torch.smoke_failed" not in found


def test_a_cuda_build_without_the_gpus_capability_is_blocked() -> None:
    """(b) A CUDA torch built for sm_37..sm_70 on an RTX 4090 (8.9) passed as "sees it"."""
    build = torch("cuda", "1.12.1+cu113", "11.3", arch=("sm_37", "sm_50", "sm_60", "sm_70"),
                  devices=(FrameworkDevice(0, compute_capability="8.9",
                                           pci_bus="00000000:01:00.0"),))
    data = machine([nvidia()], (build,), rocm=None, driver="550.54.14")
    found = by_id(diagnose(data))
    missing = found["torch.arch_missing"]
    assert missing.gpu == 0 and "sm_70" in missing.detail and "8.9" in missing.detail
    assert "gpu.usable" not in found
    # The fix installs a wheel that carries 8.9 and that driver 550 runs (not cu130).
    assert missing.fix_commands[-1].endswith("/whl/cu126")
    assert missing.fix_commands[0] == f"{PYTHON} -m pip uninstall -y torch"
    coverage = arch_coverage(data, build, data.inventory.gpus[0])
    assert (coverage.target, coverage.covered, coverage.how) == ("sm_89", False, "not_listed")


@pytest.mark.parametrize(("arch", "covered", "how"), [
    (("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"), True, "cubin"),  # 8.6 runs on 8.9
    (("sm_70", "compute_70"), True, "ptx"),
    (("sm_90",), False, "not_listed"),
])
def test_cuda_coverage_follows_binary_compatibility(arch: tuple[str, ...], covered: bool,
                                                    how: str) -> None:
    build = torch("cuda", "2.1.0+cu121", "12.1", arch=arch)
    data = machine([nvidia()], (build,), driver="550.54.14")
    coverage = arch_coverage(data, build, data.inventory.gpus[0])
    assert (coverage.covered, coverage.how) == (covered, how)


def test_a_hip_hash_with_an_a_still_gets_the_rocm_mismatch() -> None:
    """(c) torch.rocm_mismatch was skipped whenever the HIP version's hash held an "a"."""
    build = torch("rocm", "2.4.1+rocm6.0", "6.0.32830-d62f6a171", arch=("gfx1100",))
    found = by_id(diagnose(machine([amd()], (build,), rocm="6.2.4")))
    mismatch = found["torch.rocm_mismatch"]
    assert mismatch.title == "PyTorch 2.4.1+rocm6.0 was built for ROCm 6.0, the host has ROCm 6.2"
    assert mismatch.fix_commands[-1].endswith("/whl/rocm6.2.4")
    assert mismatch.framework is not None and mismatch.framework.matches(build)


def test_therock_builds_carry_their_own_rocm() -> None:
    for build in (torch("rocm", "2.10.0a0+rocm7.10.0a20251120", "7.10.0a20251120"),
                  torch("rocm", "2.9.0+rocmsdk20251116", "7.1.52802-561cc400e1")):
        found = by_id(diagnose(machine([amd()], (build,), rocm="7.2.0")))
        assert "torch.rocm_mismatch" not in found


def test_a_host_rocm_point_release_never_crashes() -> None:
    """(f) Host ROCm 6.0.2 and a torch for another ROCm raised ValueError in install_command."""
    build = torch("rocm", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", arch=("gfx1100",))
    for host in ("6.0.2", "6.0.2-115", "6.0.2.60002-115~22.04", "5.3", "7.10.0a20251120",
                 "unknown", ""):
        findings = diagnose(machine([amd()], (build,), rocm=host))
        for finding in findings:
            for command in finding.fix_commands:
                assert "--index-url https://download.pytorch.org/whl/rocm" in command or (
                    "pip install" not in command)
    mismatch = by_id(diagnose(machine([amd()], (build,), rocm="6.0.2")))["torch.rocm_mismatch"]
    assert mismatch.fix_commands[-1].endswith("/whl/rocm6.0")


def test_a_cpu_torch_beside_driver_550_is_never_sent_to_cu130() -> None:
    """(e) The fix pointed at cu130 wheels, which need driver 580 or newer."""
    data = machine([nvidia()], (torch("cpu", "2.5.1+cpu", available=False),), rocm=None,
                   driver="550.54.14")
    cpu = by_id(diagnose(data))["torch.cpu_build"]
    assert cpu.severity is Severity.WARNING
    assert cpu.fix_commands == (f"{PYTHON} -m pip uninstall -y torch",
                                f"{PYTHON} -m pip install torch --index-url "
                                "https://download.pytorch.org/whl/cu126")
    assert "cu130" not in " ".join(cpu.fix_commands)
    assert cpu.fix is not None and "https://download.pytorch.org/whl/cu126" in cpu.fix


def test_driver_550_and_a_cuda_11_3_torch_is_no_warning() -> None:
    """(d) "NVIDIA driver 550.54.14 is older than CUDA 11.3" was a false warning."""
    build = torch("cuda", "1.12.1+cu113", "11.3", arch=("sm_75", "sm_80", "sm_86"))
    found = by_id(diagnose(machine([nvidia()], (build,), rocm=None, driver="550.54.14")))
    assert "nvidia.driver_too_old" not in found and "gpu.usable" in found


def test_a_driver_too_old_for_the_build_blocks_with_a_runnable_fix() -> None:
    build = torch("cuda", "2.1.2+cu121", "12.1", available=False)
    data = machine([nvidia(cc="6.1", name="Tesla P40")], (build,), rocm=None,
                   driver="520.61.05")
    too_old = by_id(diagnose(data))["nvidia.driver_too_old"]
    assert too_old.severity is Severity.ERROR and "530.30.02" in (too_old.fix or "")
    assert too_old.fix_commands[-1].endswith("/whl/cu118")
    assert too_old.framework is not None and too_old.framework.matches(build)
    assert "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html" in too_old.sources
    verdict = framework_verdict(data, diagnose(data), build, data.inventory.gpus[0])
    assert verdict.reason is VerdictReason.DRIVER_TOO_OLD


# ----------------------------------------------------------------------------- smoke test


@pytest.mark.parametrize(("message", "cause"), [
    ("RuntimeError: HIP error: hipErrorNoBinaryForGpu", "no_kernels"),
    ("RuntimeError: CUDA error: out of memory", "out_of_memory"),
    ("RuntimeError: CUDA driver version is insufficient for CUDA runtime version",
     "driver_too_old"),
    ("RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
     "ptx_toolchain"),
    ("RuntimeError: No HIP GPUs are available", "no_device"),
    ("wrong result on cuda:0 (max_abs_error=1e+30)", "wrong_result"),
    ("timed out after 20 s (the smoke test was killed)", "timeout"),
    ("HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate", "hsa_init"),
    ("killed by SIGSEGV", "crash"),
    ("exit status 1", "other"),
])
def test_smoke_causes(message: str, cause: str) -> None:
    assert smoke_cause(message) == cause


def test_a_failed_smoke_test_is_an_error_that_quotes_it() -> None:
    build = torch("cuda", "2.5.1+cu124", "12.4", smoke="failed: RuntimeError: CUDA error: "
                  "out of memory", devices=(FrameworkDevice(0, pci_bus="00000000:01:00.0"),))
    data = machine([nvidia()], (build,), rocm=None, driver="560.35.05")
    findings = diagnose(data)
    failed = by_id(findings)["torch.smoke_failed"]
    assert failed.severity is Severity.ERROR and failed.gpu == 0
    assert "RuntimeError: CUDA error: out of memory" in failed.detail
    assert "another process holds its memory" in failed.detail
    assert failed.fix_commands == (
        "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",)
    verdict = framework_verdict(data, findings, build, data.inventory.gpus[0])
    assert (verdict.state, verdict.reason) == (LayerState.BLOCKED, VerdictReason.SMOKE_FAILED)
    assert verdict.text == "no: the smoke test failed: RuntimeError: CUDA error: out of memory"
    assert "gpu.usable" not in by_id(findings)


def test_a_smoke_test_cut_short_by_the_budget_is_no_error() -> None:
    # On a real H200 the default 10 s check left the smoke test 4 s: a first CUDA context with
    # cuBLAS on a 141 GB GPU in a VM took longer. It sees the GPU; nothing says it hangs.
    build = torch("cuda", "2.11.0+cu130", "13.0", arch=("sm_80", "sm_90"),
                  smoke="unfinished: did not finish in the 4 s the inspection had left (not a "
                        "sign of a hang)",
                  devices=(FrameworkDevice(0, pci_bus="00000000:01:00.0"),))
    data = machine([nvidia(cc="9.0", name="NVIDIA H200")], (build,), rocm=None,
                   driver="580.159.04")
    findings = diagnose(data)
    assert "torch.smoke_failed" not in by_id(findings)
    verdict = framework_verdict(data, findings, build, data.inventory.gpus[0])
    assert (verdict.state, verdict.reason) == (LayerState.WARNING,
                                               VerdictReason.USABLE_UNCONFIRMED)
    assert verdict.text == ("it sees the GPU as device 0, not yet confirmed: the smoke test did "
                            "not finish in the 4 s the inspection had left (not a sign of a "
                            "hang)")
    assert verdict.smoke.status == "unfinished"
    assert verdict.fix_commands == (f"gpuscope doctor --python {PYTHON}",)


def test_several_devices_failing_are_told_apart() -> None:
    build = torch("rocm", "2.7.1+rocm6.3", "6.3", arch=("gfx1100", "gfx1101"),
                  smoke="failed: cuda:1: timed out after 20 s (the smoke test was killed)",
                  devices=(FrameworkDevice(0, pci_bus="0000:03:00.0"),
                           FrameworkDevice(1, pci_bus="0000:04:00.0")))
    data = machine([amd(0), amd(1, "gfx1101", "AMD Radeon RX 7800 XT")], (build,), rocm="6.3.0")
    failures = smoke_failures(data, build)
    assert [(f.device, f.cause, f.gpu) for f in failures] == [("cuda:1", "timeout", 1)]
    findings = diagnose(data)
    smoke = by_id(findings)["torch.smoke_failed"]
    assert smoke.gpu == 1 and smoke.fix_commands[0].endswith(
        'device="cuda:1"); print((x @ x).sum().item())\'')
    verdicts = framework_verdicts(data, findings, build)
    assert [v.state for v in verdicts] == [LayerState.OK, LayerState.BLOCKED]
    assert verdicts[0].text == "yes as device 0"


def test_a_wrong_result_under_an_override_says_to_unset_it() -> None:
    build = torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1030",),
                  smoke="failed: wrong result on cuda:0 (max_abs_error=3.2e+07)")
    data = machine([amd(gfx="gfx1031", name="AMD Radeon RX 6700 XT")], (build,),
                   environment={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    found = by_id(diagnose(data))
    assert "torch.arch_missing" not in found  # it runs as gfx1030, which the build carries
    assert found["torch.smoke_failed"].fix_commands[0] == "unset HSA_OVERRIDE_GFX_VERSION"


# ----------------------------------------------------------------------------- the link


def test_findings_are_linked_to_their_framework_not_matched_by_title() -> None:
    """Two interpreters with the same torch version: each finding belongs to one of them."""
    cpu = torch("cpu", "2.5.1+cpu", available=False, python="/a/bin/python")
    rocm = torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1100",), python="/b/bin/python")
    data = machine([amd()], (cpu, rocm))
    findings = diagnose(data)
    for finding in findings:
        if finding.id.startswith("torch."):
            assert finding.framework is not None
    gpu = data.inventory.gpus[0]
    assert framework_verdict(data, findings, cpu, gpu).finding_ids == ("torch.cpu_build",)
    assert framework_verdict(data, findings, rocm, gpu).state is LayerState.OK
    # The Stack page's row: the interpreter that can use the GPU.
    chosen = gpu_framework_verdict(data, findings, gpu)
    assert chosen is not None and chosen.framework.python == "/b/bin/python"


def test_a_lower_layer_blocks_the_framework_without_repeating_its_finding() -> None:
    build = torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1100",), available=False)
    data = machine([amd()], (build,))
    data = replace(data, inventory=replace(data.inventory, stack=replace(
        data.inventory.stack, device_nodes=(DeviceNodeAccess(
            "/dev/kfd", exists=True, owner_group="render", can_open=False,
            reason="permission denied"),))))
    findings = diagnose(data)
    row = layers_for(data, findings, data.inventory.gpus[0])[-1]
    assert row.state is LayerState.BLOCKED and row.finding is None
    assert row.verdict is not None and row.verdict.reason is VerdictReason.LOWER_LAYER


def test_verdict_texts_are_the_engines_templates() -> None:
    from gpuscope.doctor.verdicts import BELOW_TEXTS, DEVICE_TEXTS

    build = torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1100",))
    data = machine([amd()], (build,))
    verdict = framework_verdict(data, diagnose(data), build, data.inventory.gpus[0])
    assert verdict.template in {*REASON_TEXTS.values(), *DEVICE_TEXTS.values(),
                                *BELOW_TEXTS.values()}
    assert set(REASON_TEXTS) == set(VerdictReason)


# ----------------------------------------------------------------------------- not installed


def interpreters(*lacking: str) -> tuple[Interpreter, ...]:
    return tuple(Interpreter(python, True, why=why, executable=python,
                             python_version="3.12.3", not_installed=("torch", "jax"))
                 for python, why in zip(lacking, ("gpuscope", "python3 on PATH", "VIRTUAL_ENV"),
                                        strict=False))


def test_no_torch_anywhere_installs_the_wheel_for_this_gpu() -> None:
    data = machine([amd()], rocm="6.2.4", interpreters=interpreters(
        "/opt/gpuscope/bin/python", "/usr/bin/python3", "/home/me/venv/bin/python"))
    findings = diagnose(data)
    missing = by_id(findings)["torch.not_installed"]
    assert missing.severity is Severity.WARNING
    # The user's own environment first, and the ROCm 6.2.4 index, which carries gfx1100.
    assert missing.fix_commands == (
        "/home/me/venv/bin/python -m pip install torch --index-url "
        "https://download.pytorch.org/whl/rocm6.2.4",)
    assert "/usr/bin/python3" in missing.detail and "gfx1100" in missing.detail
    assert missing.framework is not None and missing.framework.python == "/home/me/venv/bin/python"
    assert "gpu.usable" in by_id(findings)  # not installed is no block on the GPU
    state, text = framework_row(data)
    assert state is LayerState.WARNING
    assert text == "no: PyTorch is not installed in /home/me/venv/bin/python"


def test_a_distribution_python_gets_a_virtual_environment_first() -> None:
    # PEP 668: Debian's and Ubuntu's /usr/bin/python3 carries EXTERNALLY-MANAGED and its pip
    # refuses `pip install`; the fix makes a venv and installs there.
    system_python = Interpreter("/usr/bin/python3", True, why="python3 on PATH",
                                executable="/usr/bin/python3", python_version="3.12.3",
                                not_installed=("torch",), externally_managed=True)
    missing = by_id(diagnose(machine([amd()], rocm="6.2.4", interpreters=(system_python,))))[
        "torch.not_installed"]
    assert missing.fix_commands == (
        '/usr/bin/python3 -m venv "$HOME/venvs/torch"',
        '"$HOME/venvs/torch/bin/python" -m pip install torch --index-url '
        "https://download.pytorch.org/whl/rocm6.2.4")
    assert "PEP 668" in (missing.fix or "")
    assert "https://peps.python.org/pep-0668/" in missing.sources
    # A venv's interpreter (not externally managed) installs in place, as before.
    venv = Interpreter("/home/me/venv/bin/python", True, why="VIRTUAL_ENV",
                       executable="/home/me/venv/bin/python", python_version="3.12.3",
                       not_installed=("torch",), externally_managed=False)
    in_place = by_id(diagnose(machine([amd()], rocm="6.2.4", interpreters=(venv,))))[
        "torch.not_installed"]
    assert in_place.fix_commands[0].startswith("/home/me/venv/bin/python -m pip install")


@pytest.mark.parametrize(("gfx", "commands"), [
    ("gfx1031", ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",
                 "python3 -m pip install torch --index-url "
                 "https://download.pytorch.org/whl/rocm6.2.4")),
])
def test_no_wheel_carries_the_target_so_the_override_comes_first(
        gfx: str, commands: tuple[str, ...]) -> None:
    data = machine([amd(gfx=gfx, name="AMD Radeon RX 6700 XT")], rocm="6.2.4",
                   interpreters=(Interpreter("python3", True, why="python3 on PATH",
                                             not_installed=("torch",)),))
    assert by_id(diagnose(data))["torch.not_installed"].fix_commands == commands


def test_no_torch_on_nvidia_and_on_windows() -> None:
    data = machine([nvidia()], rocm=None, driver="550.54.14",
                   interpreters=interpreters("/usr/bin/python3"))
    missing = by_id(diagnose(data))["torch.not_installed"]
    assert missing.fix_commands == ("/usr/bin/python3 -m pip install torch --index-url "
                                    "https://download.pytorch.org/whl/cu126",)
    windows = machine([amd()], rocm=None, os="windows", interpreters=(Interpreter(
        "C:\\Python312\\python.exe", True, why="python on PATH", not_installed=("torch",)),))
    route = by_id(diagnose(windows))["torch.not_installed"]
    assert route.fix_commands == ("C:\\Python312\\python.exe -m pip install torch-directml",)
    assert any("rocm.docs.amd.com" in url for url in route.sources)


def test_no_finding_without_evidence_for_it() -> None:
    lacking = interpreters("/usr/bin/python3")
    # Nothing inspected: no claim.
    assert "torch.not_installed" not in by_id(diagnose(machine([amd()])))
    # A torch somewhere, even a broken one's neighbour: no claim.
    with_torch = machine([amd()], (torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1100",)),),
                         interpreters=lacking)
    assert "torch.not_installed" not in by_id(diagnose(with_torch))
    # No GPU a compute layer sees: no claim.
    unseen = replace(amd(), seen_by=(Layer.PCI,))
    assert "torch.not_installed" not in by_id(diagnose(machine([unseen], interpreters=lacking)))
    # An interpreter that could not be inspected says nothing about torch.
    failed = (Interpreter("/usr/bin/python3", False, error="timed out"),)
    assert "torch.not_installed" not in by_id(diagnose(machine([amd()], interpreters=failed)))


# ----------------------------------------------------------------------------- every command


def _machines() -> Iterator[DoctorInput]:
    """A matrix of machines: vendors, builds, smoke failures, host versions, drivers,
    interpreter paths (with spaces, quotes and $), environments and operating systems."""
    pythons = ["/usr/bin/python3", "/home/me/my env/bin/python", "/tmp/it's/python",
               "/opt/$HOME/python", "pasted collect_env", "C:\\Python312\\python.exe"]
    smokes = [None, "ok", NO_KERNEL, "failed: RuntimeError: CUDA error: out of memory",
              "failed: timed out after 20 s (the smoke test was killed)",
              "failed: wrong result on cuda:0 (max_abs_error=1e+30)",
              "failed: killed by SIGSEGV", "failed: RuntimeError: CUDA driver version is "
              "insufficient for CUDA runtime version", "failed: exit status 1"]
    builds = [("rocm", "2.5.1+rocm6.2", "6.2.41133-dd7f95766", ("gfx900", "gfx1030")),
              ("rocm", "2.4.1+rocm6.0", "6.0.32830-d62f6a171", ()),
              ("cuda", "2.1.2+cu121", "12.1", ("sm_50", "sm_60", "sm_70")),
              ("cuda", "2.7.1+cu128", "12.8", ()), ("cpu", "2.5.1+cpu", None, ())]
    gpu_sets = [[amd()], [amd(gfx="gfx1031", name="RX 6700 XT")], [nvidia()],
                [nvidia(cc="12.0", name="RTX 5090")], [nvidia(cc="6.1", name="P40")],
                [amd(), amd(1, "gfx1036", "Radeon Graphics", GpuKind.INTEGRATED)]]
    hosts = [("linux", "6.0.2", "550.54.14", {}),
             ("linux", None, "520.61.05", {"CUDA_VISIBLE_DEVICES": "-1"}),
             ("windows", None, "528.49", {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}),
             ("linux", "7.2.0", None, {"HIP_VISIBLE_DEVICES": ""})]
    # Every build, smoke result and GPU set; the interpreter paths and hosts in turn.
    for number, ((build, version, build_version, arch), smoke, gpus) in enumerate(
            itertools.product(builds, smokes, gpu_sets)):
        python = pythons[number % len(pythons)]
        os, rocm, driver, env = hosts[number % len(hosts)]
        for available in (True, False):
            framework = torch(build, version, build_version, arch=arch, smoke=smoke,
                              python=python, available=available and build != "cpu")
            yield machine(gpus, (framework,), rocm=rocm, driver=driver, os=os,
                          environment=dict(env))
    for python, gpus, (os, rocm, driver, _env) in itertools.product(pythons, gpu_sets, hosts):
        yield machine(gpus, rocm=rocm, driver=driver, os=os, interpreters=(Interpreter(
            python, True, not_installed=("torch",)),))


@functools.cache
def _commands_and_texts() -> tuple[set[str], list[tuple[str, str]]]:
    commands: set[str] = set()
    texts: list[tuple[str, str]] = []
    for data in _machines():
        for finding in diagnose(data):
            if not finding.id.startswith("windows."):  # PowerShell: test_fix_commands
                commands.update(finding.fix_commands)
            for text in (finding.title, finding.detail, finding.fix or "", *finding.sources):
                texts.append((finding.id, text))
            for url in finding.sources:
                assert url.startswith("https://") and " " not in url, (finding.id, url)
    return commands, texts


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_every_command_the_framework_rules_emit_passes_bash_n() -> None:
    commands, _texts = _commands_and_texts()
    assert len(commands) > 30  # the matrix reaches the rules' commands
    bad = []
    for command in sorted(commands):
        assert "\n" not in command
        assert not re.search(r"[<>]|\(or |\.\.\.|\bthen\b", command), command
        result = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True,
                                check=False)
        if result.returncode != 0:
            bad.append((command, result.stderr.strip()))
    assert not bad, bad


def test_no_user_visible_text_cites_internal_notes() -> None:
    _commands, texts = _commands_and_texts()
    leaks = [(finding, text) for finding, text in texts if INTERNAL.search(text)]
    assert not leaks, leaks[:5]


def test_the_report_reads_the_same_verdicts() -> None:
    from gpuscope.report.reading import report_from_document
    from gpuscope.report.share import report_document

    build = torch("rocm", "2.5.1+rocm6.2", "6.2", arch=("gfx1100",),
                  smoke="failed: killed by SIGSEGV")
    data = machine([amd()], (build,))
    findings = diagnose(data)
    report = report_from_document(report_document(data, findings, generated_unix_s=0.0))
    (framework,) = report.frameworks
    assert framework.sees_text == "GPU 0: no: the smoke test failed: killed by SIGSEGV"
    (layers,) = report.layers
    assert layers.rows[-1].text == (
        f"PyTorch 2.5.1+rocm6.2 in {PYTHON}: no: the smoke test failed: killed by SIGSEGV")


def test_an_undefined_rocm_symbol_at_import_is_a_rocm_mismatch() -> None:
    from gpuscope.model import EvidenceRef, Signal

    line = ("OSError: /opt/rocm-5.7.1/lib/libhipsolver.so.0: undefined symbol: "
            "rocsolver_zhegvdx_inplace")
    data = replace(machine([], rocm="5.7.1"), signals=(Signal(
        "rocm.undefined_symbol", "/opt/rocm-5.7.1/lib/libhipsolver.so.0",
        (EvidenceRef("torch-error.txt", 1, line),)),))
    mismatch = by_id(diagnose(data))["torch.rocm_mismatch"]
    assert mismatch.severity is Severity.ERROR and line in mismatch.detail
    assert mismatch.title == "PyTorch was built for another ROCm than the host's ROCm 5.7"
    assert mismatch.fix_commands == (
        "python3 -m pip uninstall -y torch",
        "python3 -m pip install torch --index-url https://download.pytorch.org/whl/rocm5.7")


def test_a_replay_without_torch_gets_the_rocm_wheel_that_carries_gfx1100(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Acceptance (issue #10): an RX 7900 XTX replay whose interpreters lack torch."""
    import json

    from fixture_paths import SNAPSHOTS_DIR

    from gpuscope.cli import main
    from gpuscope.knowledge.torch_builds import official_wheel_has_target, wheel_table

    code = main(["--replay", str(SNAPSHOTS_DIR / "rx7900xtx_no_torch.json"), "doctor", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    (missing,) = [f for f in doc["findings"] if f["id"] == "torch.not_installed"]
    (command,) = missing["fix_commands"]
    flavour = re.fullmatch(r"\S+ -m pip install torch --index-url "
                           r"https://download\.pytorch\.org/whl/rocm([\d.]+)", command)
    assert flavour is not None, command
    published = [r.version for r in wheel_table().releases.values()
                 if flavour.group(1) in r.rocm]
    assert published and official_wheel_has_target(published[-1], "rocm", flavour.group(1),
                                                   "gfx1100") is True
    assert missing["framework"]["python"] == "/home/alice/venvs/llm/bin/python"
