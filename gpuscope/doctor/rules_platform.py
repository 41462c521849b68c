"""Platform rules: WSL, the distribution, partitions and virtual GPUs."""

from __future__ import annotations

from gpuscope.doctor.inputs import DoctorInput, refs
from gpuscope.knowledge.distros import radeon_distro_support
from gpuscope.model import (
    EvidenceRef,
    Finding,
    GpuKind,
    Severity,
    Vendor,
)


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
        evidence=refs(data.signals_of("platform.wsl")),
    )]



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
            evidence=refs(modes),
        ))
    vfs = [g for g in data.inventory.gpus if g.kind is GpuKind.VIRTUAL]
    vf_signals = data.signals_of("gpu.virtual_function")
    if vfs or vf_signals:
        findings.append(Finding(
            "gpu.virtual_function", Severity.INFO, "A virtual GPU (VF or VM guest)",
            detail=("Some controls and metrics (power caps, clocks, fan) are not available to a "
                    "virtual function or guest."),
            gpu=vfs[0].index if vfs else None, evidence=refs(vf_signals),
        ))
    return findings

