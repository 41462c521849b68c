"""The windows.* findings (issue #14): the PyTorch and LLM routes open to a GPU on Windows, the
HIP SDK missing or not covering the GPU, and a driver too old for a route. The machines are
built here from the facts the Windows probes report (hipInfo's gfx target or only the PCI id
from the registry, the HIP SDK version, Adrenalin's version, the inspected interpreters)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pytest

from gpuscope.doctor import DoctorInput
from gpuscope.doctor.rules_windows import rule_windows
from gpuscope.i18n import Message, localise
from gpuscope.model import (
    Finding,
    Framework,
    Gpu,
    GpuKind,
    Host,
    Interpreter,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Severity,
    Signal,
    Stack,
    Vendor,
)

VENV_PYTHON = r"C:\Users\ana\venv\Scripts\python.exe"
# The interpreter as PowerShell runs it: the call operator on the quoted path.
VENV_WORD = f'& "{VENV_PYTHON}"'
# A placeholder to fill in, an ellipsis, prose alternatives: never in a command.
NOT_RUNNABLE = re.compile(r"<[^<>\s]*>|\.\.\.|…|\(or\b|\s#")
INTERNAL = re.compile(r"facts\.md|§|\[[SKVD?]\]|corpus \d")

XTX = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 7900 XTX", gfx_target="gfx1100",
          kind=GpuKind.DISCRETE, seen_by=(Layer.ROCM, Layer.WINDOWS), pci_vendor_id="0x1002",
          pci_device_id="0x744c", field_sources={"gfx_target": "rocm: hipInfo.txt:14"})
# From the registry only: the gfx target comes from the device table.
RX6700XT = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 6700 XT", kind=GpuKind.DISCRETE,
               seen_by=(Layer.WINDOWS,), pci_vendor_id="0x1002", pci_device_id="0x73df")
RX580 = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 580", kind=GpuKind.DISCRETE,
            seen_by=(Layer.WINDOWS,), pci_vendor_id="0x1002", pci_device_id="0x67df")
RTX4090 = Gpu(index=0, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090",
              compute_capability="8.9", kind=GpuKind.DISCRETE, seen_by=(Layer.NVML,),
              pci_vendor_id="0x10de", pci_device_id="0x2684")
ADRENALIN_NEW = "26.3.1"


def interpreter(version: str = "3.12.7") -> Interpreter:
    return Interpreter(python=VENV_PYTHON, inspected=True, executable=VENV_PYTHON,
                       python_version=version)


def machine(gpus: Sequence[Gpu], extras: Mapping[str, str], *, os: str = "windows",
            frameworks: Sequence[Framework] = (), python: str | None = "3.12.7",
            missing: Mapping[str, str] | None = None, origin: OriginKind = OriginKind.REPLAY,
            signals: Sequence[Signal] = (), **stack: str) -> DoctorInput:
    inventory = Inventory(
        gpus=tuple(gpus),
        stack=Stack(extras=dict(extras), missing_reasons=dict(missing or {}),
                    **stack),  # type: ignore[arg-type]
        host=Host(os=os), probes=(), device_index=(), origin=Origin(kind=origin))
    interpreters = (interpreter(python),) if python else ()
    return DoctorInput(inventory, tuple(frameworks), tuple(signals), interpreters)


def of(findings: Sequence[Finding], finding_id: str) -> list[Finding]:
    return [f for f in findings if f.id == finding_id]


def text(finding: Finding) -> str:
    return " ".join(localise(t) for t in (finding.title, finding.detail, finding.fix or ""))


def check_runnable(findings: Sequence[Finding]) -> None:
    for finding in findings:
        assert finding.sources and all(s.startswith("https://") for s in finding.sources)
        assert not INTERNAL.search(text(finding)), finding.id
        # Shown translated: every text the rule writes is a catalogue template.
        for words in (finding.title, finding.detail, finding.fix):
            assert isinstance(words, Message), (finding.id, words)
        for command in finding.fix_commands:
            assert not NOT_RUNNABLE.search(command), command
            assert command.count('"') % 2 == 0 and command.count("'") % 2 == 0, command


# ----------------------------------------------------------------------------- AMD


def test_an_rx_7900_xtx_with_the_hip_sdk_has_every_route_open() -> None:
    data = machine([XTX], {"hip_sdk_version": "6.2.4", "hip_path": r"C:\Program Files\AMD\ROCm\6.2",
                           "amd_driver_version": ADRENALIN_NEW})
    findings = rule_windows(data)
    assert [f.id for f in findings] == ["windows.pytorch_route"]
    [route] = findings
    assert route.severity is Severity.INFO and route.gpu == 0
    words = text(route)
    for name in ("ROCm PyTorch wheels for Windows: open", "ROCm in WSL 2: open",
                 "DirectML (torch-directml): open", "llama.cpp with Vulkan (LLMs): open",
                 "ZLUDA (third party, not installed by gpuscope)",
                 "SCALE (third party, not installed by gpuscope)"):
        assert name in words, name
    assert "gfx1100 GPUs are on AMD's WSL list" in words
    assert "PyTorch 2.4.1" in words  # DirectML's pin, as its caveat
    assert route.fix_commands == (
        VENV_WORD + " -m pip install --index-url https://rocm.nightlies.amd.com/whl-multi-arch/"
        ' "torch[device-gfx1100]" "torchvision[device-gfx1100]" torchaudio',
        "wsl --install -d Ubuntu-24.04",
        VENV_WORD + " -m pip install torch-directml",
        "winget install --id ggml.llamacpp -e")
    assert "https://github.com/vosen/ZLUDA" in route.sources
    assert "https://docs.scale-lang.com/stable" in route.sources
    assert route.evidence[0].source == "hipInfo.txt"
    check_runnable(findings)


def test_an_rx_6700_xt_is_not_covered_by_the_hip_sdk_and_has_no_wsl_route() -> None:
    data = machine([RX6700XT], {"hip_sdk_version": "6.2", "amd_driver_version": ADRENALIN_NEW,
                                "wsl_distros": "Ubuntu-22.04, docker-desktop"})
    findings = rule_windows(data)
    [route] = of(findings, "windows.pytorch_route")
    words = text(route)
    assert "ROCm in WSL 2: not open" in words and "gfx1031" in words
    assert "DirectML (torch-directml): open" in words
    assert "llama.cpp with Vulkan (LLMs): open" in words
    # TheRock's multi-arch index tests gfx1031 on Windows (SUPPORTED_GPUS.md), so the wheels
    # route is open although the HIP SDK gives this card the runtime only.
    assert "ROCm PyTorch wheels for Windows: open" in words
    assert not any(c.startswith("wsl ") for c in route.fix_commands)
    [unsupported] = of(findings, "windows.rocm_gpu_unsupported")
    assert unsupported.gpu == 0 and "gfx1031" in unsupported.title
    assert "HIP runtime only" in text(unsupported)
    assert ("https://rocm.docs.amd.com/projects/install-on-windows/en/docs-6.2.4/reference/"
            "system-requirements.html") in unsupported.sources
    assert unsupported.fix_commands and "device-gfx1031" in unsupported.fix_commands[0]
    assert unsupported.evidence[0].source == "gpuscope device table: 0x73df"
    assert not of(findings, "windows.hip_sdk_missing")
    check_runnable(findings)


def test_a_gpu_no_rocm_route_covers_is_sent_to_directml() -> None:
    findings = rule_windows(machine([RX580], {"hip_sdk_version": "6.2",
                                              "amd_driver_version": ADRENALIN_NEW}))
    [unsupported] = of(findings, "windows.rocm_gpu_unsupported")
    assert unsupported.severity is Severity.WARNING
    assert "carry no kernels for gfx803" in text(unsupported)
    assert unsupported.fix_commands == (VENV_WORD + " -m pip install torch-directml",)
    [route] = of(findings, "windows.pytorch_route")
    assert "ROCm PyTorch wheels for Windows: not open" in text(route)
    # No route with a driver floor is open: the old-driver rule has nothing to say.
    assert not of(rule_windows(machine([RX580], {"amd_driver_version": "23.1.1"})),
                  "windows.driver_too_old")


def test_an_rx_7900_xtx_without_the_hip_sdk() -> None:
    reason = "HIP_PATH is not set and C:\\Program Files\\AMD\\ROCm has no version folder"
    findings = rule_windows(machine([XTX], {"amd_driver_version": ADRENALIN_NEW},
                                    missing={"hip_sdk_version": reason}))
    [missing] = of(findings, "windows.hip_sdk_missing")
    assert missing.severity is Severity.INFO and missing.gpu is None
    words = text(missing)
    assert f"The Windows probes say: {reason}." in words
    assert "do not need it" in words
    assert missing.fix_commands == ('& "$env:HIP_PATH\\bin\\hipInfo.exe"',)
    assert "https://www.amd.com/en/developer/resources/rocm-hub/hip-sdk.html" in missing.sources
    # The wheels bring their own runtime: the route stays open.
    assert "ROCm PyTorch wheels for Windows: open" in text(of(findings,
                                                              "windows.pytorch_route")[0])
    assert not of(findings, "windows.rocm_gpu_unsupported")
    check_runnable(findings)


def test_a_pasted_output_says_nothing_about_the_hip_sdk() -> None:
    data = machine([XTX], {}, origin=OriginKind.IMPORTED)
    assert not of(rule_windows(data), "windows.hip_sdk_missing")


def test_an_old_adrenalin_is_too_old_for_the_rocm_routes() -> None:
    findings = rule_windows(machine([XTX], {"hip_sdk_version": "6.2",
                                            "amd_driver_version": "24.12.1"}))
    [old] = of(findings, "windows.driver_too_old")
    assert old.severity is Severity.WARNING and old.gpu == 0
    assert "24.12.1" in old.title
    words = text(old)
    assert "ROCm PyTorch wheels for Windows needs AMD Software: Adrenalin Edition 26.2.2" in words
    assert "ROCm in WSL 2 needs" in words
    assert old.fix_commands == (
        "Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion",)
    assert ("https://www.amd.com/en/resources/support-articles/release-notes/"
            "RN-RAD-WIN-26-2-2.html") in old.sources
    check_runnable(findings)
    assert not of(rule_windows(machine([XTX], {"amd_driver_version": "26.2.2"})),
                  "windows.driver_too_old")
    assert not of(rule_windows(machine([XTX], {})), "windows.driver_too_old")


def test_a_python_the_packages_do_not_cover_gets_the_py_launcher() -> None:
    findings = rule_windows(machine([XTX], {"hip_sdk_version": "6.2"}, python="3.13.1"))
    [route] = of(findings, "windows.pytorch_route")
    assert "py -3.12 -m pip install torch-directml" in route.fix_commands
    assert any(c.startswith(VENV_WORD) and "device-gfx1100" in c for c in route.fix_commands)
    assert "The inspected Python is 3.13" in text(route)


def test_an_igpu_beside_the_discrete_gpu_gets_no_advice_of_its_own() -> None:
    igpu = Gpu(index=1, vendor=Vendor.AMD, name="AMD Radeon(TM) Graphics", gfx_target="gfx1036",
               kind=GpuKind.INTEGRATED, seen_by=(Layer.WINDOWS,))
    findings = rule_windows(machine([XTX, igpu], {"hip_sdk_version": "6.2"}))
    assert {f.gpu for f in of(findings, "windows.pytorch_route")} == {0}


def test_a_working_rocm_torch_is_not_installed_again() -> None:
    rocm_torch = Framework(name="torch", version="2.14.0+rocm7.13.0", build="rocm",
                           gpu_available=True, python=VENV_PYTHON, python_version="3.12.7")
    [route] = rule_windows(machine([XTX], {"hip_sdk_version": "6.2"}, frameworks=[rocm_torch]))
    assert not any("device-gfx1100" in c for c in route.fix_commands)
    assert "PyTorch 2.14.0+rocm7.13.0 here is such a build and sees a GPU" in text(route)



@pytest.mark.parametrize(("distros", "command"), [
    ("docker-desktop", "wsl --install -d Ubuntu-24.04"),  # Docker's own distribution only
    ("Ubuntu-22.04\ndocker-desktop", "wsl --update"),
])
def test_the_wsl_line_depends_on_the_distributions(distros: str, command: str) -> None:
    [route] = rule_windows(machine([XTX], {"hip_sdk_version": "6.2", "wsl_distros": distros}))
    assert [c for c in route.fix_commands if c.startswith("wsl ")] == [command]

# ----------------------------------------------------------------------------- NVIDIA


def test_an_rtx_4090_with_a_cpu_torch_gets_the_cuda_wheel() -> None:
    cpu_torch = Framework(name="torch", version="2.14.0+cpu", build="cpu", gpu_available=False,
                          python=VENV_PYTHON, python_version="3.12.7")
    findings = rule_windows(machine([RTX4090], {}, frameworks=[cpu_torch],
                                    nvidia_driver_version="576.88"))
    [route] = findings
    assert route.id == "windows.pytorch_route" and route.gpu == 0
    assert route.fix_commands == (
        VENV_WORD + " -m pip uninstall -y torch",
        VENV_WORD + " -m pip install torch --index-url https://download.pytorch.org/whl/cu126")
    assert "CUDA PyTorch wheels: open" in text(route) and "cpu build" in text(route)
    assert route.framework is not None and route.framework.version == "2.14.0+cpu"
    check_runnable(findings)


def test_a_working_cuda_torch_needs_nothing() -> None:
    cuda_torch = Framework(name="torch", version="2.14.0+cu126", build="cuda",
                           build_version="12.6", gpu_available=True, python=VENV_PYTHON,
                           python_version="3.12.7")
    [route] = rule_windows(machine([RTX4090], {}, frameworks=[cuda_torch],
                                   nvidia_driver_version="576.88"))
    assert route.fix_commands == () and "nothing to install" in text(route)


def test_an_nvidia_driver_older_than_every_cuda_wheel() -> None:
    findings = rule_windows(machine([RTX4090], {}, nvidia_driver_version="450.12"))
    [old] = of(findings, "windows.driver_too_old")
    assert "450.12" in old.title and old.fix_commands == ("nvidia-smi",)
    assert "CUDA PyTorch wheels: not open" in text(of(findings, "windows.pytorch_route")[0])
    check_runnable(findings)


# ----------------------------------------------------------------------------- elsewhere


@pytest.mark.parametrize("os", ["linux", "wsl", "unknown"])
def test_nothing_windows_off_windows(os: str) -> None:
    data = machine([XTX, RTX4090], {"hip_sdk_version": "6.2", "amd_driver_version": "24.12.1"},
                   os=os, nvidia_driver_version="450.12")
    assert rule_windows(data) == []


def test_a_wsl_signal_makes_a_windows_host_wsl() -> None:
    data = machine([XTX], {"amd_driver_version": "24.12.1"},
                   signals=[Signal("platform.wsl")])
    assert rule_windows(data) == []

