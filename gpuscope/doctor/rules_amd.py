"""AMD rules: the amdgpu kernel driver, /dev/kfd and the render nodes, the ROCm runtime,
official gfx support and an iGPU beside a dGPU."""

from __future__ import annotations

from gpuscope.doctor.inputs import DoctorInput, first_sentences, gpu_refs, refs
from gpuscope.knowledge.overrides import hsa_override_for
from gpuscope.knowledge.rocm_support import official_support
from gpuscope.model import (
    DeviceNodeAccess,
    EvidenceRef,
    Finding,
    GpuKind,
    Layer,
    Severity,
    Vendor,
)


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
            evidence=refs(not_loaded),
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
            evidence=refs(data.signals_of("kfd.missing")) or (EvidenceRef("/dev/kfd"),),
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
            evidence=refs(denied_signals) or tuple(EvidenceRef(n.path) for n in denied_nodes),
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
                                    evidence=refs(signals)))
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
        evidence=refs(signals),
    )]



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
                       f"{first_sentences(advice.caveat, 2)}")
        if override:
            detail += f" HSA_OVERRIDE_GFX_VERSION={override} is set in this environment."
        title = (f"{gpu.gfx_target} is not officially supported by ROCm {release}"
                 if rocm_version else
                 f"{gpu.gfx_target} is not officially supported by ROCm (up to {release})")
        findings.append(Finding(
            "rocm.gfx_unsupported", Severity.WARNING, title,
            detail=detail, fix=fix, gpu=gpu.index,
            evidence=gpu_refs(gpu, "gfx_target"),
        ))
    return findings



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
        evidence=gpu_refs(igpus[0], "gfx_target", "name"),
    )]

