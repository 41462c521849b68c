"""Every fix a rule can emit runs as pasted, and nothing a user reads cites internal notes.

Findings are gathered over every fixture (snapshots replayed, each pasted output imported on
its own, each corpus case imported as its expect.json lists) and over hand-made machines
that reach the rules no fixture reaches (containers, VMs, WSL, odd group names). Each distinct
command is checked once with `bash -n`, in-process imports keep it quick.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from fixture_paths import CORPUS_DIR, FIXTURES_DIR, SNAPSHOTS_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.importer import import_texts
from gpuscope.inventory import build_device_index, collect_frameworks, collect_inventory
from gpuscope.inventory.llm_runtimes import resolve_runtimes
from gpuscope.knowledge.sources import INTERNAL_PROVENANCE as INTERNAL_MARK_RE
from gpuscope.model import (
    DeviceNodeAccess,
    EvidenceRef,
    Finding,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Signal,
    Stack,
    Vendor,
)
from gpuscope.probes.llm_runtimes import probe_llm_runtimes

OUTPUTS_DIR = FIXTURES_DIR / "outputs"
BASH = shutil.which("bash")
# What a command must never contain: a placeholder to fill in, prose alternatives, an
# ellipsis for "the rest of your command", or a comment carrying advice.
NOT_RUNNABLE = re.compile(r"<[^<>\s]*>|\(or\b|\.\.\.|…|\s#|^#|,\s*then\b")
WSL_FORBIDDEN = re.compile(r"modprobe|amdgpu-dkms|usermod|newgrp|--device=/dev/kfd")


@functools.cache
def bash_accepts(command: str) -> bool:
    assert BASH is not None
    done = subprocess.run([BASH, "-n", "-c", command], capture_output=True, text=True,
                          timeout=10, check=False)
    return done.returncode == 0 and not done.stderr


def powershell_balanced(command: str) -> bool:
    """The quoting of a PowerShell line closes: '...' (with '' inside) and "..." (with `"
    inside), and its brackets pair. No PowerShell runs here, so this is the check that a
    Windows-native fix (the windows.* findings' commands) is one complete line."""
    stack: list[str] = []
    pairs = {")": "(", "}": "{", "]": "["}
    position = 0
    while position < len(command):
        char = command[position]
        if char == "'":
            end = position + 1
            while True:
                end = command.find("'", end)
                if end < 0:
                    return False
                if command[end + 1:end + 2] == "'":
                    end += 2
                    continue
                break
            position = end + 1
            continue
        if char == '"':
            end = position + 1
            while end < len(command) and command[end] != '"':
                end += 2 if command[end] == "`" else 1
            if end >= len(command):
                return False
            position = end + 1
            continue
        if char in "({[":
            stack.append(char)
        elif char in pairs and (not stack or stack.pop() != pairs[char]):
            return False
        position += 1
    return not stack


def runnable(finding: Finding, command: str) -> bool:
    """bash -n for a POSIX line; the PowerShell check for a Windows-native fix."""
    if finding.id.startswith("windows."):
        return powershell_balanced(command)
    return bash_accepts(command)


def user_texts(finding: Finding) -> list[str]:
    return [finding.title, finding.detail, finding.fix or "", *finding.fix_commands,
            *(ref.label() for ref in finding.evidence)]


# ----------------------------------------------------------------------------- fixtures


def _snapshot_inputs() -> Iterator[tuple[str, DoctorInput]]:
    for path in sorted(SNAPSHOTS_DIR.glob("*.json")):
        system = ReplaySystem.from_file(path)
        inventory = collect_inventory(system)
        yield path.name, DoctorInput(inventory, collect_frameworks(system, []), llm_runtimes=(
            resolve_runtimes(probe_llm_runtimes(system), inventory.gpus)))


def _imported(texts: list[tuple[str, str]]) -> DoctorInput:
    machine = import_texts(texts)
    return DoctorInput(machine.inventory, machine.frameworks, machine.signals,
                       llm_runtimes=resolve_runtimes(machine.llm_runtimes,
                                                     machine.inventory.gpus))


def _output_inputs() -> Iterator[tuple[str, DoctorInput]]:
    for path in sorted(p for p in OUTPUTS_DIR.rglob("*") if p.is_file()):
        if path.name == "SOURCES.md" or path.suffix == ".py":
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        yield str(path.relative_to(OUTPUTS_DIR)), _imported([(path.name, text)])


def _corpus_inputs() -> Iterator[tuple[str, DoctorInput]]:
    for case in sorted(p for p in CORPUS_DIR.iterdir() if (p / "expect.json").is_file()):
        files = json.loads((case / "expect.json").read_text())["files"]
        yield case.name, _imported([(name, (case / name).read_bytes().decode(
            "utf-8", errors="replace")) for name in files])


# ----------------------------------------------------------------------------- made by hand

LIVE = Origin(OriginKind.LIVE)


def _amd(index: int = 0, gfx: str = "gfx1100", kind: GpuKind = GpuKind.DISCRETE,
         seen_by: tuple[Layer, ...] = (Layer.SYSFS, Layer.KFD), kfd_node: int | None = 1,
         name: str = "AMD Radeon RX 7900 XTX") -> Gpu:
    return Gpu(index=index, vendor=Vendor.AMD, name=name, gfx_target=gfx, kind=kind,
               kfd_node=kfd_node, kernel_driver="amdgpu", pci_bus=f"0000:0{index + 3}:00.0",
               seen_by=seen_by)


def _nvidia(index: int = 0, seen_by: tuple[Layer, ...] = (Layer.NVML,),
            driver: str | None = "nvidia") -> Gpu:
    return Gpu(index=index, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090",
               kind=GpuKind.DISCRETE, seen_by=seen_by, kernel_driver=driver,
               pci_bus=f"0000:0{index + 1}:00.0")


def machine(gpus: list[Gpu], stack: Stack | None = None, host: Host | None = None,
            signals: tuple[Signal, ...] = ()) -> DoctorInput:
    stack = stack or Stack(rocm_version="6.2.4", kfd_loaded=True)
    inventory = Inventory(gpus=tuple(gpus), stack=stack, host=host or Host(os="linux"),
                          probes=(), device_index=build_device_index(gpus, stack.environment),
                          origin=LIVE)
    return DoctorInput(inventory, (), signals)


def sig(kind: str, detail: str | None = None) -> Signal:
    return Signal(kind, detail, (EvidenceRef("pasted.txt", 1, "a line"),))


def denied(group: str | None, granted: bool = False) -> Stack:
    return Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess(
        "/dev/kfd", exists=True, owner_group=group, can_open=False,
        group_granted_not_active=granted, reason="permission denied: /dev/kfd"),))


CONTAINER = Host(os="linux", container=True, container_hint="docker (/.dockerenv)")
VM = Host(os="linux", virtual_machine=True, virtual_machine_hint="KVM")
WSL = Host(os="wsl", wsl=True)
NO_KFD = Stack(kfd_loaded=True, device_nodes=(DeviceNodeAccess("/dev/kfd", exists=False),))

HAND_MADE: dict[str, DoctorInput] = {
    "groups": machine([_amd()], denied("render")),
    "group granted after login": machine([_amd()], denied("render", granted=True)),
    "odd group name": machine([_amd()], denied("gpu users; rm -rf ~")),
    "other group": machine([_amd()], denied("kvm")),
    "groups in a container": machine([_amd()], denied("render"), CONTAINER),
    "kfd missing on the host": machine([_amd(seen_by=(Layer.SYSFS,), kfd_node=None)],
                                       Stack(kfd_loaded=False, device_nodes=(
                                           DeviceNodeAccess("/dev/kfd", exists=False),))),
    "container without /dev/kfd": machine([_amd(seen_by=(Layer.SYSFS, Layer.PCI),
                                                kfd_node=None)], NO_KFD, CONTAINER),
    "container without --gpus": machine([_nvidia(seen_by=(Layer.PCI,), driver=None)],
                                        Stack(nvidia_driver_version="550.54.14"), CONTAINER),
    "container with both": machine([_amd(seen_by=(Layer.PCI,), kfd_node=None),
                                    _nvidia(1, seen_by=(Layer.PCI,), driver=None)],
                                   NO_KFD, CONTAINER),
    "vm without a GPU": machine([], Stack(), VM, (sig("nvidia.no_devices"),
                                                  sig("kfd.not_loaded"))),
    "vm with pcie atomics": machine([_amd()], host=VM,
                                    signals=(sig("kfd.pcie_atomics_missing", "no atomics"),)),
    "vf": machine([_amd(kind=GpuKind.VIRTUAL, gfx="gfx942")], host=VM,
                  signals=(sig("gpu.virtual_function"),)),
    "wsl nvidia without adapter": machine([], Stack(), WSL, (sig("wsl.no_gpu_adapter"),
                                                             sig("nvidia.driver_not_loaded"))),
    "wsl rocm not working": machine([], Stack(hip_runtime_version="6.1.40093"), WSL,
                                    (sig("platform.wsl"), sig("rocm.runtime_missing"))),
    "wsl nvidia mismatch": machine([_nvidia()], Stack(), WSL,
                                   (sig("nvml.driver_library_mismatch"),)),
    "driver not loaded": machine([], Stack(kfd_loaded=False), signals=(sig("kfd.not_loaded"),)),
    "driver not loaded in a container": machine([], Stack(kfd_loaded=False), CONTAINER,
                                                (sig("kfd.not_loaded"),)),
    "init failed": machine([], signals=(sig("amdgpu.init_failed", "psp failed"),)),
    "device unsupported with dkms": machine(
        [], Stack(amdgpu_driver_version="6.2.4"),
        signals=(sig("kfd.device_unsupported", "DID 7340 is missing"),)),
    "runtime missing": machine([_amd()], signals=(sig("rocm.runtime_missing"),)),
    "unsupported target with override": machine([_amd(gfx="gfx1031", name="RX 6700 XT")]),
    "unsupported on an older ROCm": machine([_amd(gfx="gfx1201", name="R9700")],
                                            Stack(rocm_version="6.2.4")),
    "igpu beside dgpu": machine([_amd(0, "gfx1201", kfd_node=1),
                                 _amd(1, "gfx1036", GpuKind.INTEGRATED, kfd_node=2)],
                                Stack(rocm_version="7.2.0")),
    "nvidia mismatch": machine([_nvidia()], signals=(sig("nvml.driver_library_mismatch"),)),
    "nvidia mismatch in a container": machine([_nvidia()], host=CONTAINER, signals=(
        sig("nvml.driver_library_mismatch"),)),
    "nouveau": machine([_nvidia(seen_by=(Layer.SYSFS,), driver="nouveau")], Stack()),
    "mig": machine([_nvidia()], Stack(extras={"nvml_mig_enabled:0000:01:00.0": True})),
    "toolkit newer": machine([_nvidia()], Stack(cuda_driver_version="11.8",
                                                extras={"cuda_toolkit_version": "12.4"})),
    "distribution": machine([_amd()], Stack(rocm_version="6.4.1"),
                            Host(os="linux", distro="Debian GNU/Linux 12 (bookworm)")),
}


def all_inputs() -> Iterator[tuple[str, DoctorInput]]:
    yield from _snapshot_inputs()
    yield from _output_inputs()
    yield from _corpus_inputs()
    yield from HAND_MADE.items()


@functools.cache
def all_findings() -> tuple[tuple[str, DoctorInput, Finding], ...]:
    return tuple((name, data, finding) for name, data in all_inputs()
                 for finding in diagnose(data))


# ----------------------------------------------------------------------------- the checks


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_every_command_parses_with_bash_n() -> None:
    commands: dict[str, str] = {}
    findings: dict[str, Finding] = {}
    for name, _, finding in all_findings():
        for command in finding.fix_commands:
            commands.setdefault(command, f"{name}: {finding.id}")
            findings.setdefault(command, finding)
    assert len(commands) >= 15, sorted(commands)  # the hand-made machines reach most rules
    broken = {c: where for c, where in commands.items() if not runnable(findings[c], c)}
    assert not broken, broken
    prose = {c: where for c, where in commands.items() if NOT_RUNNABLE.search(c)}
    assert not prose, prose


def test_bash_n_can_fail() -> None:
    if BASH is None:
        pytest.skip("needs bash")
    assert not bash_accepts("export HIP_VISIBLE_DEVICES=0  (or ROCR_VISIBLE_DEVICES=0)")
    assert not bash_accepts("sudo usermod -aG render <user-1>")
    assert NOT_RUNNABLE.search("docker run --device=/dev/kfd ...  (in a container)")
    assert powershell_balanced("& 'C:\\Program Files\\O''Neil\\python.exe' -m pip install torch")
    assert powershell_balanced('& "$env:HIP_PATH\\bin\\hipInfo.exe"')
    assert not powershell_balanced("& 'C:\\Program Files\\python.exe -m pip install torch")
    assert not powershell_balanced('py -3.12 -m pip install "torch[device-gfx1100]')
    assert not powershell_balanced("Get-Item (Join-Path $env:HIP_PATH bin")


def test_no_user_visible_text_cites_internal_notes() -> None:
    leaks = [(name, finding.id, text) for name, _, finding in all_findings()
             for text in user_texts(finding) if INTERNAL_MARK_RE.search(text)]
    assert not leaks, leaks[:10]


def test_sources_are_public_urls() -> None:
    bad = [(name, finding.id, url) for name, _, finding in all_findings()
           for url in finding.sources if not re.fullmatch(r"https://[^\s<>\"']+", url)]
    assert not bad, bad


def test_no_wsl_fix_suggests_a_kernel_module_or_kfd_groups() -> None:
    under_wsl = [(name, finding) for name, data, finding in all_findings() if data.os == "wsl"]
    assert {f.id for _, f in under_wsl} >= {"rocm.wsl", "gpu.not_passed_through",
                                           "nvidia.driver_library_mismatch"}
    wrong = [(name, finding.id, text) for name, finding in under_wsl
             for text in (finding.fix or "", *finding.fix_commands)
             if WSL_FORBIDDEN.search(text)]
    assert not wrong, wrong


def test_findings_that_ask_for_action_carry_a_fix() -> None:
    silent = [(name, finding.id) for name, _, finding in all_findings()
              if finding.severity.value in ("error", "warning") and not finding.fix
              and finding.framework is None and not finding.id.startswith("torch.")]
    assert not silent, silent


# ----------------------------------------------------------------------------- property

_KINDS = ("kfd.not_loaded", "kfd.loaded", "kfd.missing", "kfd.permission_denied",
          "kfd.device_unsupported", "kfd.pcie_atomics_missing", "amdgpu.init_failed",
          "rocm.runtime_missing", "rocm.path_version", "nvml.driver_library_mismatch",
          "nvidia.driver_not_loaded", "nvidia.no_devices", "nvidia.mig_enabled",
          "nvml.library_missing", "nvml.init_failed", "hip.no_device", "platform.wsl",
          "platform.container", "platform.virtual_machine", "gpu.virtual_function",
          "gpu.partition_mode", "wsl.no_gpu_adapter", "dkms.build_failed")
_WORDS = st.text(st.characters(codec="ascii", exclude_characters="§[]"), max_size=30)
_GFX = st.sampled_from(["gfx1100", "gfx1031", "gfx1201", "gfx1036", "gfx942", "gfx1151",
                        "gfx803", "gfx1012"])
_LAYERS = st.lists(st.sampled_from(list(Layer)), max_size=4, unique=True).map(tuple)


@st.composite
def machines(draw: st.DrawFn) -> DoctorInput:
    gpus = []
    for index in range(draw(st.integers(0, 3))):
        vendor = draw(st.sampled_from([Vendor.AMD, Vendor.NVIDIA]))
        gpus.append(Gpu(
            index=index, vendor=vendor, name=draw(_WORDS) or None,
            gfx_target=draw(_GFX) if vendor is Vendor.AMD else None,
            kind=draw(st.sampled_from(list(GpuKind))), seen_by=draw(_LAYERS),
            kfd_node=draw(st.none() | st.integers(0, 4)),
            kernel_driver=draw(st.sampled_from([None, "amdgpu", "nvidia", "nouveau", "vfio-pci"])),
            pci_bus=f"0000:{index + 1:02x}:00.0"))
    stack = Stack(
        rocm_version=draw(st.none() | st.sampled_from(["5.7.1", "6.0.2", "6.4.1", "7.2.0"])),
        hip_runtime_version=draw(st.none() | st.sampled_from(["6.2.41133", "4.2.1"])),
        kfd_loaded=draw(st.none() | st.booleans()),
        amdgpu_driver_version=draw(st.none() | st.just("6.12.12")),
        nvidia_driver_version=draw(st.none() | st.just("550.54.14")),
        cuda_driver_version=draw(st.none() | st.just("12.4")),
        environment={"HIP_VISIBLE_DEVICES": draw(st.none() | st.just("0"))},
        device_nodes=tuple(DeviceNodeAccess(
            path, exists=draw(st.booleans()), owner_group=draw(st.none() | _WORDS),
            can_open=draw(st.none() | st.booleans()),
            group_granted_not_active=draw(st.booleans()))
            for path in draw(st.lists(st.sampled_from(["/dev/kfd", "/dev/dri/renderD128"]),
                                      max_size=2, unique=True))),
        extras={"cuda_toolkit_version": "12.6"} if draw(st.booleans()) else {})
    host = Host(os=draw(st.sampled_from(["linux", "wsl", "windows", "unknown"])),
                distro=draw(st.none() | st.sampled_from(["Ubuntu 22.04.5 LTS", "Debian 12"])),
                container=draw(st.booleans()), virtual_machine=draw(st.booleans()))
    signals = tuple(Signal(kind, draw(st.none() | _WORDS), (EvidenceRef("x.txt", 1),),
                           draw(st.none() | _GFX))
                    for kind in draw(st.lists(st.sampled_from(_KINDS), max_size=6)))
    inventory = Inventory(gpus=tuple(gpus), stack=stack, host=host, probes=(),
                          device_index=build_device_index(gpus, stack.environment),
                          origin=LIVE)
    return DoctorInput(inventory, (), signals)


@pytest.mark.skipif(BASH is None, reason="needs bash")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(machines())
def test_any_machine_gets_runnable_fixes_and_public_text(data: DoctorInput) -> None:
    for finding in diagnose(data):
        for text in user_texts(finding):
            assert not INTERNAL_MARK_RE.search(text), (finding.id, text)
        for command in finding.fix_commands:
            assert runnable(finding, command), (finding.id, command)
            assert not NOT_RUNNABLE.search(command), (finding.id, command)
        if data.os == "wsl":
            for text in (finding.fix or "", *finding.fix_commands):
                assert not WSL_FORBIDDEN.search(text), (finding.id, text)
