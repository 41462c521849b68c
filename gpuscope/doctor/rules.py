"""Rules: the model (live, replayed or imported) to findings with stable ids.

Never guess: a layer that could not be checked yields no finding either way (under WSL
there is no /dev/kfd; a pasted rocm-smi alone does not prove ROCm can compute).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from gpuscope.knowledge.cuda import driver_supports
from gpuscope.knowledge.distros import radeon_distro_support
from gpuscope.knowledge.overrides import hsa_override_for
from gpuscope.knowledge.rocm_support import official_support
from gpuscope.knowledge.torch_builds import default_arch_list, install_command
from gpuscope.model import (
    DeviceNodeAccess,
    EvidenceRef,
    Finding,
    Framework,
    Gpu,
    GpuKind,
    Inventory,
    Layer,
    OriginKind,
    Severity,
    Signal,
    Vendor,
)

# Layers whose sighting proves that a GPU can compute, per vendor.
_COMPUTE_LAYERS = {
    Vendor.AMD: (Layer.KFD, Layer.ROCM, Layer.TORCH),
    Vendor.NVIDIA: (Layer.NVML, Layer.TORCH),
}
# A finding id's prefix tells which vendor's stack it blocks (None: any).
_BLOCKS: dict[str, Vendor | None] = {
    "amdgpu.": Vendor.AMD, "kfd.": Vendor.AMD, "rocm.": Vendor.AMD,
    "nvidia.": Vendor.NVIDIA, "torch.cuda_build_on_amd": Vendor.AMD,
    "torch.rocm_build_on_nvidia": Vendor.NVIDIA, "torch.": None,
}


@dataclass(frozen=True, slots=True)
class DoctorInput:
    inventory: Inventory
    frameworks: tuple[Framework, ...] = ()
    signals: tuple[Signal, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def imported(self) -> bool:
        return self.inventory.origin.kind is OriginKind.IMPORTED

    @property
    def os(self) -> str:
        if any(s.kind == "platform.wsl" for s in self.signals):
            return "wsl"
        return self.inventory.host.os

    def signals_of(self, kind: str) -> list[Signal]:
        return [s for s in self.signals if s.kind == kind]

    def gpus_of(self, vendor: Vendor) -> list[Gpu]:
        return [g for g in self.inventory.gpus if g.vendor is vendor]

    def torch_builds(self) -> list[Framework]:
        return [f for f in self.frameworks if f.name == "torch" and f.version is not None]


def _refs(signals: Iterable[Signal]) -> tuple[EvidenceRef, ...]:
    return tuple(dict.fromkeys(ref for s in signals for ref in s.evidence))


def _gpu_refs(gpu: Gpu, *fields: str) -> tuple[EvidenceRef, ...]:
    refs = []
    for name in fields:
        source = gpu.field_sources.get(name)
        if source:
            layer, _, where = source.partition(": ")
            label = where or layer
            file, _, line = label.rpartition(":")
            refs.append(EvidenceRef(file, int(line)) if file and line.isdigit()
                        else EvidenceRef(label))
    return tuple(dict.fromkeys(refs))


def _major_minor(version: str | None) -> str | None:
    if not version:
        return None
    parts = version.split(".")
    digits = [p for p in parts[:2] if p.isdigit()]
    return ".".join(digits) if len(digits) == 2 else None


# ----------------------------------------------------------------------------- platform


def rule_wsl(data: DoctorInput) -> list[Finding]:
    stack = data.inventory.stack
    rocm_evidence = bool(data.gpus_of(Vendor.AMD)) or any(
        (stack.rocm_version, stack.hsa_runtime_version, stack.hip_runtime_version)) or any(
        f.build == "rocm" for f in data.torch_builds())
    if data.os != "wsl" or not rocm_evidence:
        return []
    return [Finding(
        "rocm.wsl", Severity.INFO, "Running under WSL",
        detail=("Under WSL, GPUs are reached through the Windows driver (/dev/dxg): there is "
                "no amdgpu kernel driver and no /dev/kfd inside Linux, so those checks do not "
                "apply. ROCm on WSL supports only the GPUs AMD lists for WSL, with the "
                "matching Windows Adrenalin driver."),
        evidence=_refs(data.signals_of("platform.wsl")),
    )]


# ----------------------------------------------------------------------------- AMD kernel side


def _amd_driver_serves_a_gpu(data: DoctorInput) -> bool:
    return any(
        layer in gpu.seen_by
        for gpu in data.gpus_of(Vendor.AMD)
        for layer in (Layer.SYSFS, Layer.KFD, Layer.ROCM, Layer.ROCM_SMI, Layer.AMDSMI)
    )


def rule_amdgpu_driver(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    if data.os in ("wsl", "windows"):
        return findings
    not_loaded = data.signals_of("kfd.not_loaded")
    stack = data.inventory.stack
    unbound = [g for g in data.gpus_of(Vendor.AMD)
               if Layer.PCI in g.seen_by and g.kernel_driver not in (None, "amdgpu")
               and Layer.SYSFS not in g.seen_by]
    if (not_loaded or stack.kfd_loaded is False) and not _amd_driver_serves_a_gpu(data) and (
        not_loaded or unbound
    ):
        findings.append(Finding(
            "amdgpu.driver_not_loaded", Severity.ERROR,
            "The amdgpu kernel driver is not loaded",
            detail=("ROCm's runtime found no KFD (\"ROCk module is NOT loaded\"): the amdgpu "
                    "kernel driver is not running for any GPU, so nothing above it can work."),
            fix=("sudo modprobe amdgpu  # if it fails, read `sudo dmesg | grep -i amdgpu`; "
                 "with amdgpu-dkms, reinstall it for the running kernel "
                 "(sudo apt install --reinstall amdgpu-dkms) and reboot"),
            evidence=_refs(not_loaded),
        ))
    for signal in data.signals_of("amdgpu.init_failed"):
        findings.append(Finding(
            "amdgpu.init_failed", Severity.ERROR, "The kernel log shows amdgpu failed to start",
            detail=signal.detail or "amdgpu reported a fatal error while bringing the GPU up.",
            fix=("Read the lines around it in `sudo dmesg`; firmware missing (install "
                 "linux-firmware), an unsupported kernel, or a board fault are the usual causes"),
            evidence=signal.evidence,
        ))
    return findings


def _node_fix(node: DeviceNodeAccess, user: str | None) -> str:
    who = user or "$USER"
    if node.group_granted_not_active:
        return (f"Log out and back in (or run `newgrp {node.owner_group or 'render'}`): {who} "
                f"was added to the group after this session started")
    group = node.owner_group if node.owner_group not in (None, "root") else "render"
    groups = "render,video" if group in ("render", "video") else group
    return f"sudo usermod -aG {groups} {who}, then log out and back in"


def rule_kfd(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    if data.os in ("wsl", "windows"):
        return findings
    stack = data.inventory.stack
    amd_gpus = [g for g in data.gpus_of(Vendor.AMD) if Layer.SYSFS in g.seen_by]
    kfd_node = next((n for n in stack.device_nodes if n.path == "/dev/kfd"), None)
    node_missing = kfd_node is not None and not kfd_node.exists and bool(amd_gpus)
    if node_missing or data.signals_of("kfd.missing"):
        findings.append(Finding(
            "kfd.missing", Severity.ERROR, "/dev/kfd does not exist",
            detail=("The GPU is present but the KFD device node is missing: ROCm cannot reach "
                    "it. In a container, the node was not passed through; on the host, the "
                    "driver was built without KFD or did not load it."),
            fix=("docker run --device=/dev/kfd --device=/dev/dri --group-add video "
                 "--group-add render ...  (in a container); on the host: sudo modprobe amdgpu "
                 "and check `sudo dmesg | grep kfd`"),
            evidence=_refs(data.signals_of("kfd.missing")) or (EvidenceRef("/dev/kfd"),),
        ))
    denied_nodes = [n for n in stack.device_nodes
                    if n.exists and n.can_open is False
                    and (n.path == "/dev/kfd" or n.path.startswith("/dev/dri/render"))]
    denied_signals = data.signals_of("kfd.permission_denied")
    if denied_nodes or denied_signals:
        node = denied_nodes[0] if denied_nodes else None
        user = _user_from_reason(node.reason if node else None)
        fix = _node_fix(node, user) if node else (
            "sudo usermod -aG render,video $USER, then log out and back in")
        detail = "; ".join(n.reason for n in denied_nodes if n.reason) or (
            "ROCm could not open /dev/kfd read-write: this user is not allowed to use the GPU "
            "(on most distributions the render group, on older ones video).")
        findings.append(Finding(
            "kfd.permission_denied", Severity.ERROR,
            "This user cannot open the GPU device nodes", detail=detail, fix=fix,
            evidence=_refs(denied_signals) or tuple(EvidenceRef(n.path) for n in denied_nodes),
        ))
    for kind, title, fix in (
        ("kfd.device_unsupported", "The KFD driver does not support this GPU",
         "Use a newer kernel or amdgpu-dkms that knows this device id"),
        ("kfd.pcie_atomics_missing", "The GPU needs PCIe atomics that this slot does not give",
         "Move the card to a CPU-attached PCIe slot (not behind a chipset or riser without "
         "atomics), and enable Above 4G decoding / Resizable BAR in the firmware setup"),
    ):
        signals = data.signals_of(kind)
        if signals:
            findings.append(Finding(kind, Severity.ERROR, title,
                                    detail=signals[0].detail or "", fix=fix,
                                    evidence=_refs(signals)))
    return findings


def _user_from_reason(reason: str | None) -> str | None:
    if not reason or " user " not in reason:
        return None
    return reason.split(" user ", 1)[1].split()[0]


def rule_runtime(data: DoctorInput) -> list[Finding]:
    signals = data.signals_of("rocm.runtime_missing")
    if not signals:
        return []
    return [Finding(
        "rocm.runtime_missing", Severity.ERROR, "The ROCm runtime is missing or broken",
        detail=signals[0].detail or "The HSA runtime (libhsa-runtime64) could not be loaded.",
        fix="Install ROCm's runtime (amdgpu-install --usecase=rocm, or your distribution's "
            "rocm-hip-runtime package)",
        evidence=_refs(signals),
    )]


# ----------------------------------------------------------------------------- AMD targets


def _blocked_targets(data: DoctorInput) -> dict[str, list[Signal]]:
    """gfx target (or "" when unnamed) -> the signals saying no kernel runs on it."""
    found: dict[str, list[Signal]] = {}
    for kind in ("hip.invalid_device_function", "hip.no_binary_for_gpu", "cuda.no_kernel_image"):
        for signal in data.signals_of(kind):
            found.setdefault(signal.gfx_target or "", []).append(signal)
    return found


def rule_gfx_support(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    amd = data.gpus_of(Vendor.AMD)
    has_discrete = any(g.kind is GpuKind.DISCRETE for g in amd)
    rocm_version = data.inventory.stack.rocm_version or next(
        (s.detail for s in data.signals_of("rocm.path_version") if s.detail), None)
    os_name = data.os if data.os in ("linux", "windows") else (
        "linux" if data.os == "unknown" else None)
    override = data.inventory.stack.environment.get("HSA_OVERRIDE_GFX_VERSION")
    for gpu in amd:
        if not gpu.gfx_target or os_name is None:
            continue
        if gpu.kind is GpuKind.INTEGRATED and has_discrete:
            continue  # hidden, not overridden: rocm.igpu_enumerated says how
        verdict = official_support(gpu.gfx_target, rocm_version, os_name)
        if verdict.supported is not False:
            continue
        advice = hsa_override_for(gpu.gfx_target)
        release = verdict.release_checked or rocm_version or "the newest ROCm"
        detail = (f"{gpu.gfx_target} is not on AMD's list of supported GPUs for ROCm {release} "
                  f"on {os_name.capitalize()}"
                  + ("" if rocm_version else
                     " (the ROCm version is unknown, so the newest release gpuscope knows was "
                     "checked)") + ".")
        fix = None
        if advice is not None:
            fix = f"export HSA_OVERRIDE_GFX_VERSION={advice.value}"
            detail += (f" The usual workaround runs it as {advice.pretends_to_be}: "
                       f"{_first_sentences(advice.caveat, 2)}")
        if override:
            detail += f" HSA_OVERRIDE_GFX_VERSION={override} is set in this environment."
        title = (f"{gpu.gfx_target} is not officially supported by ROCm {release}"
                 if rocm_version else
                 f"{gpu.gfx_target} is not officially supported by ROCm (up to {release})")
        findings.append(Finding(
            "rocm.gfx_unsupported", Severity.WARNING, title,
            detail=detail, fix=fix, gpu=gpu.index,
            evidence=_gpu_refs(gpu, "gfx_target"),
        ))
    return findings


def _first_sentences(text: str, count: int) -> str:
    sentences = text.replace("\n", " ").split(". ")
    short = ". ".join(sentences[:count]).strip()
    return short if short.endswith(".") else short + "."


def rule_distro(data: DoctorInput) -> list[Finding]:
    """From ROCm 6.4.1 on (and for the RX 7900 on 5.7), AMD supports Radeon GPUs only on
    named distributions; judged only where the release, the distribution and the GPU are
    known."""
    host, stack = data.inventory.host, data.inventory.stack
    if data.os != "linux" or not host.distro or not stack.rocm_version:
        return []
    for gpu in data.gpus_of(Vendor.AMD):
        if not gpu.gfx_target or gpu.kind is GpuKind.INTEGRATED:
            continue
        verdict = radeon_distro_support(gpu.gfx_target, stack.rocm_version, host.distro)
        if verdict.supported is False:
            return [Finding(
                "os.unsupported_distro", Severity.WARNING,
                f"{verdict.distro} is not a supported distribution for ROCm "
                f"{stack.rocm_version} on Radeon GPUs",
                detail=(f"AMD supports ROCm {stack.rocm_version} on Radeon GPUs only on "
                        f"{', '.join(verdict.listed)}. It often works elsewhere, but kernel "
                        f"and library versions differ from what AMD tests ({verdict.source})."),
                fix=f"Use one of {', '.join(verdict.listed)} for a supported setup",
                gpu=gpu.index,
                evidence=(EvidenceRef(host.field_sources.get("distro", "/etc/os-release")),),
            )]
    return []


def rule_igpu(data: DoctorInput) -> list[Finding]:
    rocm_sees = [g for g in data.gpus_of(Vendor.AMD)
                 if Layer.KFD in g.seen_by or Layer.ROCM in g.seen_by]
    igpus = [g for g in rocm_sees if g.kind is GpuKind.INTEGRATED]
    dgpus = [g for g in rocm_sees if g.kind is GpuKind.DISCRETE]
    if not (igpus and dgpus):
        return []
    index = {e.gpu_index: e for e in data.inventory.device_index}
    hidden = [g for g in igpus if index.get(g.index) and index[g.index].hidden_by]
    if len(hidden) == len(igpus):
        return []
    order = sorted(rocm_sees, key=lambda g: (g.kfd_node if g.kfd_node is not None else 99, g.index))
    keep = ",".join(str(order.index(g)) for g in dgpus)
    return [Finding(
        "rocm.igpu_enumerated", Severity.WARNING,
        "The integrated GPU is enumerated beside the discrete one",
        detail=(f"ROCm lists {', '.join(g.name or g.gfx_target or 'the iGPU' for g in igpus)} "
                f"as a device next to {', '.join(g.name or 'the dGPU' for g in dgpus)}. "
                "Frameworks may pick it, split work onto it, or fail on its unsupported target."),
        fix=f"export HIP_VISIBLE_DEVICES={keep}  (or ROCR_VISIBLE_DEVICES={keep}; or disable "
            "the iGPU in the firmware setup)",
        gpu=igpus[0].index,
        evidence=_gpu_refs(igpus[0], "gfx_target", "name"),
    )]


def rule_partitions(data: DoctorInput) -> list[Finding]:
    partitions = [g for g in data.inventory.gpus if g.kind is GpuKind.PARTITION]
    modes = [s for s in data.signals_of("gpu.partition_mode")
             if (s.detail or "").upper() not in ("", "SPX")]
    findings = []
    if partitions or modes:
        mode = next((s.detail for s in modes if s.detail), None)
        findings.append(Finding(
            "gpu.partitioned", Severity.INFO,
            "One physical GPU is split into several logical GPUs" + (f" ({mode})" if mode else ""),
            detail=("Each partition shows up as its own device with its own share of compute "
                    "units and memory; the memory of the partitions is not additive for one "
                    "job, and peak numbers are per partition."),
            evidence=_refs(modes),
        ))
    vfs = [g for g in data.inventory.gpus if g.kind is GpuKind.VIRTUAL]
    vf_signals = data.signals_of("gpu.virtual_function")
    if vfs or vf_signals:
        findings.append(Finding(
            "gpu.virtual_function", Severity.INFO, "A virtual GPU (VF or VM guest)",
            detail=("Some controls and metrics (power caps, clocks, fan) are not available to a "
                    "virtual function or guest."),
            gpu=vfs[0].index if vfs else None, evidence=_refs(vf_signals),
        ))
    return findings


# ----------------------------------------------------------------------------- frameworks


def rule_torch_builds(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    amd, nvidia = data.gpus_of(Vendor.AMD), data.gpus_of(Vendor.NVIDIA)
    for torch in data.torch_builds():
        where = f" in {torch.python}" if torch.python else ""
        refs = torch.evidence
        if torch.build == "cpu":
            wanted = "rocm" if amd and not nvidia else ("cuda" if nvidia else None)
            findings.append(Finding(
                "torch.cpu_build", Severity.WARNING if wanted else Severity.INFO,
                f"PyTorch {torch.version}{where} is a CPU-only build",
                detail=("This build has no GPU backend: torch.cuda.is_available() is False "
                        "whatever the GPU and drivers." + (
                            "" if wanted else " No GPU was found here, so nothing is lost.")),
                fix=install_command(wanted) if wanted else None, evidence=refs,
            ))
        elif torch.build == "cuda" and amd and not nvidia:
            findings.append(Finding(
                "torch.cuda_build_on_amd", Severity.ERROR,
                f"PyTorch {torch.version}{where} is a CUDA build, but the GPUs are AMD",
                detail="A CUDA build cannot use AMD GPUs; install a ROCm build.",
                fix=install_command("rocm"), evidence=refs,
            ))
        elif torch.build == "rocm" and nvidia and not amd:
            findings.append(Finding(
                "torch.rocm_build_on_nvidia", Severity.ERROR,
                f"PyTorch {torch.version}{where} is a ROCm build, but the GPUs are NVIDIA",
                detail="A ROCm build cannot use NVIDIA GPUs; install a CUDA build.",
                fix=install_command("cuda"), evidence=refs,
            ))
        elif torch.build in ("rocm", "cuda") and torch.gpu_available is False:
            findings.append(Finding(
                "torch.no_gpu", Severity.ERROR,
                f"PyTorch {torch.version}{where} is a {torch.build.upper()} build but sees no GPU",
                detail=("The build has a GPU backend, yet torch.cuda.is_available() is False: "
                        "a layer below it (driver, device nodes, runtime) blocks it; see the "
                        "other findings."),
                evidence=refs,
            ))
        findings += _rocm_mismatch(data, torch)
        findings += _driver_too_old(data, torch)
    return findings


def _rocm_mismatch(data: DoctorInput, torch: Framework) -> list[Finding]:
    host = _major_minor(data.inventory.stack.rocm_version)
    built = _major_minor(torch.build_version)
    if torch.build != "rocm" or host is None or built is None or host == built:
        return []
    if "rocmsdk" in (torch.version or "") or "a" in (torch.build_version or "").split(".")[-1]:
        return []  # TheRock wheels carry their own ROCm; their version fields differ by design
    return [Finding(
        "torch.rocm_mismatch", Severity.WARNING,
        f"PyTorch was built for ROCm {built}, the host has ROCm {host}",
        detail=("PyTorch's ROCm wheels bring their own ROCm libraries, but they still need a "
                "kernel driver new enough for them, and extensions built against the host's "
                "ROCm will not match this PyTorch."),
        fix=install_command("rocm", data.inventory.stack.rocm_version),
        evidence=torch.evidence,
    )]


def _driver_too_old(data: DoctorInput, torch: Framework) -> list[Finding]:
    driver = data.inventory.stack.nvidia_driver_version
    if torch.build != "cuda" or not driver or not torch.build_version:
        return []
    # Under WSL the driver is the Windows one, with Windows' version numbers.
    verdict = driver_supports(driver, torch.build_version,
                              "windows" if data.os in ("windows", "wsl") else "linux")
    if verdict.status not in ("too_old", "minor_compat"):
        return []
    too_old = verdict.status == "too_old"
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR if too_old else Severity.WARNING,
        f"NVIDIA driver {driver} is older than CUDA {torch.build_version} of this PyTorch wants",
        detail=verdict.note, fix="Update the NVIDIA driver, or install a PyTorch built for an "
        "older CUDA: " + install_command("cuda"), evidence=torch.evidence,
    )]


def rule_arch_missing(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    blocked = _blocked_targets(data)
    amd = data.gpus_of(Vendor.AMD)
    reported: set[int | None] = set()
    for target, signals in blocked.items():
        gpu = next((g for g in amd if g.gfx_target == target), None) if target else (
            amd[0] if len(amd) == 1 else None)
        if gpu is None and not target and len(data.gpus_of(Vendor.NVIDIA)) == 1:
            gpu = data.gpus_of(Vendor.NVIDIA)[0]
        gfx = target or (gpu.gfx_target if gpu else None)
        backend = "cuda" if all(s.kind.startswith("cuda.") for s in signals) else "rocm"
        findings.append(_arch_finding(gfx, gpu, signals, backend=backend))
        reported.add(gpu.index if gpu else None)
    for torch in data.torch_builds():
        if torch.build != "rocm":
            continue
        arch_list = torch.arch_list or default_arch_list(torch.version, "rocm",
                                                        torch.build_version) or ()
        if not arch_list:
            continue
        for gpu in amd:
            if gpu.index in reported or not gpu.gfx_target or gpu.gfx_target in arch_list:
                continue
            if gpu.kind is GpuKind.INTEGRATED and any(g.kind is GpuKind.DISCRETE for g in amd):
                continue
            findings.append(_arch_finding(gpu.gfx_target, gpu, [], torch, backend="rocm"))
            reported.add(gpu.index)
    return findings


def _arch_finding(gfx: str | None, gpu: Gpu | None, signals: Sequence[Signal],
                  torch: Framework | None = None, *, backend: str) -> Finding:
    advice = hsa_override_for(gfx) if gfx and gfx.startswith("gfx") else None
    shown = gfx or "this GPU"
    if signals:
        what = signals[0].evidence[0].text if signals[0].evidence else signals[0].kind
        detail = (f"The framework found no kernels compiled for {shown} ({what}): the build's "
                  f"list of GPU targets does not include it.")
    else:
        assert torch is not None
        detail = (f"PyTorch {torch.version} was compiled for {', '.join(torch.arch_list)}; "
                  f"{shown} is not among them, so its first GPU operation will fail.")
    if advice is not None:
        fix = f"export HSA_OVERRIDE_GFX_VERSION={advice.value}"
        detail += (f" Running it as {advice.pretends_to_be} is the usual workaround: "
                   f"{_first_sentences(advice.caveat, 2)}")
    else:
        fix = (f"Install a build that includes this target ({install_command(backend)}), "
               "or build from source")
    return Finding(
        "torch.arch_missing", Severity.ERROR, f"The framework has no kernels for {shown}",
        detail=detail, fix=fix, gpu=gpu.index if gpu else None,
        evidence=_refs(signals) or (torch.evidence if torch else ()),
    )


# ----------------------------------------------------------------------------- NVIDIA


def rule_nvidia(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    mismatch = data.signals_of("nvml.driver_library_mismatch")
    if mismatch:
        findings.append(Finding(
            "nvidia.driver_library_mismatch", Severity.ERROR,
            "NVIDIA driver and library versions do not match",
            detail=("The NVIDIA kernel module that is loaded is not the version of the "
                    "installed user-space libraries (libnvidia-ml): usually a driver update "
                    "without a reboot."),
            fix="sudo reboot  # or unload and reload the nvidia modules: sudo rmmod nvidia_uvm "
                "nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia",
            evidence=_refs(mismatch),
        ))
    not_loaded = data.signals_of("nvidia.driver_not_loaded")
    unbound = [g for g in data.gpus_of(Vendor.NVIDIA)
               if g.kernel_driver not in (None, "nvidia") and Layer.NVML not in g.seen_by]
    if (not_loaded or unbound) and not mismatch:
        findings.append(Finding(
            "nvidia.driver_not_loaded", Severity.ERROR, "The NVIDIA driver is not loaded",
            detail=("nvidia-smi cannot talk to the driver" if not_loaded else
                    f"{unbound[0].name} is bound to {unbound[0].kernel_driver}, not nvidia"),
            fix="sudo modprobe nvidia  # if that fails: reinstall the driver for the running "
                "kernel (e.g. sudo ubuntu-drivers install) and check Secure Boot module signing",
            gpu=unbound[0].index if unbound else None,
            evidence=_refs(not_loaded),
        ))
    mig = data.signals_of("nvidia.mig_enabled")
    # Live NVML records MIG as a stack extra per bus; pasted nvidia-smi as a signal.
    # Compare buses by "bb:dd.f": nvidia-smi writes 8-digit domains, sysfs 4.
    mig_buses = {(s.detail or "").lower()[-7:] for s in mig} | {
        key.split(":", 1)[1].lower()[-7:]
        for key, on in data.inventory.stack.extras.items()
        if key.startswith("nvml_mig_enabled:") and on is True
    }
    mig_buses.discard("")
    for gpu in data.gpus_of(Vendor.NVIDIA):
        if gpu.pci_bus and gpu.pci_bus.lower()[-7:] in mig_buses:
            findings.append(_mig_finding(gpu.index, mig))
    if mig and not any(f.id == "nvidia.mig_enabled" for f in findings):
        findings.append(_mig_finding(None, mig))
    findings += _toolkit_newer_than_driver(data)
    return findings


def _mig_finding(gpu: int | None, signals: Sequence[Signal]) -> Finding:
    return Finding(
        "nvidia.mig_enabled", Severity.INFO, "MIG mode is on",
        detail=("The GPU is split into MIG instances: CUDA programs see an instance, not the "
                "whole GPU, and must be pointed at one (CUDA_VISIBLE_DEVICES=MIG-...)."),
        fix="nvidia-smi -L  # lists the MIG instances and their UUIDs",
        gpu=gpu, evidence=_refs(signals),
    )


def _version_tuple(version: str | None) -> tuple[int, ...] | None:
    if not version:
        return None
    parts = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


def _toolkit_newer_than_driver(data: DoctorInput) -> list[Finding]:
    """nvcc's CUDA above the driver's CUDA: programs built with it need minor-version
    compatibility (same major) or fail outright (newer major)."""
    stack = data.inventory.stack
    toolkit = stack.extras.get("cuda_toolkit_version")
    driver_cuda = _version_tuple(stack.cuda_driver_version)
    toolkit_version = _version_tuple(str(toolkit)) if toolkit is not None else None
    if driver_cuda is None or toolkit_version is None or toolkit_version[:2] <= driver_cuda[:2]:
        return []
    newer_major = toolkit_version[0] > driver_cuda[0]
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR if newer_major else Severity.WARNING,
        f"The CUDA toolkit ({toolkit}) is newer than the driver's CUDA "
        f"({stack.cuda_driver_version})",
        detail=("Programs built with this toolkit need a driver that supports its CUDA "
                "version" + ("." if newer_major else "; within one major version they run "
                             "through minor-version compatibility, without newer features.")),
        fix="Update the NVIDIA driver to one that lists CUDA "
            f"{'.'.join(str(p) for p in toolkit_version[:2])} in nvidia-smi",
        evidence=(EvidenceRef(stack.field_sources.get("cuda_toolkit_version", "nvcc")),),
    )]


# ----------------------------------------------------------------------------- usable


def _blocks(finding: Finding, gpu: Gpu) -> bool:
    if finding.severity is not Severity.ERROR:
        return False
    if finding.gpu is not None:
        return finding.gpu == gpu.index
    for prefix, vendor in _BLOCKS.items():
        if finding.id.startswith(prefix):
            return vendor is None or vendor is gpu.vendor
    return True


def rule_usable(data: DoctorInput, findings: Sequence[Finding]) -> list[Finding]:
    usable = []
    torch_sees = any(f.gpu_available for f in data.torch_builds())
    for gpu in data.inventory.gpus:
        layers = _COMPUTE_LAYERS.get(gpu.vendor or Vendor.OTHER, ())
        seen = [layer for layer in layers if layer in gpu.seen_by]
        if Layer.TORCH in seen and not torch_sees and len(seen) == 1:
            seen = []
        if not seen or any(_blocks(f, gpu) for f in findings):
            continue
        usable.append(Finding(
            "gpu.usable", Severity.OK, f"{gpu.name or 'GPU'} is usable",
            detail=f"Seen by {', '.join(layer.value for layer in seen)}; nothing blocks it.",
            gpu=gpu.index,
        ))
    return usable


RULES: tuple[Callable[[DoctorInput], list[Finding]], ...] = (
    rule_wsl, rule_amdgpu_driver, rule_kfd, rule_runtime, rule_gfx_support, rule_distro,
    rule_igpu,
    rule_partitions, rule_arch_missing, rule_torch_builds, rule_nvidia,
)

_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.OK: 3}


def diagnose(data: DoctorInput) -> tuple[Finding, ...]:
    findings: list[Finding] = []
    for rule in RULES:
        findings += rule(data)
    findings += rule_usable(data, findings)
    unique = list(dict.fromkeys(findings))
    return tuple(sorted(unique, key=lambda f: (_SEVERITY_ORDER[f.severity],
                                                f.gpu if f.gpu is not None else -1)))
