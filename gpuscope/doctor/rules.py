"""Rules: the model (live, replayed or imported) to findings with stable ids.

Never guess: a layer that could not be checked yields no finding either way (under WSL
there is no /dev/kfd; a pasted rocm-smi alone does not prove ROCm can compute). The rules
live in one module per part of the stack (rules_platform, rules_amd, rules_nvidia,
rules_torch); this module orders them and adds `gpu.usable` where nothing blocks a GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpuscope.doctor.inputs import DoctorInput
from gpuscope.doctor.rules_amd import (
    rule_amdgpu_driver,
    rule_gfx_support,
    rule_igpu,
    rule_kfd,
    rule_runtime,
)
from gpuscope.doctor.rules_llm import rule_llm
from gpuscope.doctor.rules_nvidia import rule_nvidia
from gpuscope.doctor.rules_platform import (
    rule_distro,
    rule_not_passed_through,
    rule_partitions,
    rule_wsl,
)
from gpuscope.doctor.rules_torch import (
    rule_arch_missing,
    rule_not_installed,
    rule_smoke_failed,
    rule_torch_builds,
)
from gpuscope.doctor.rules_windows import rule_windows
from gpuscope.i18n import message
from gpuscope.model import Finding, Gpu, Layer, Severity, Vendor

__all__ = ["RULES", "DoctorInput", "diagnose", "rule_usable"]

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
    "gpu.not_passed_through": None,
}




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
            "gpu.usable", Severity.OK,
            message("{gpu} is usable", gpu=gpu.name) if gpu.name else message("GPU is usable"),
            detail=message("Seen by {layers}; nothing blocks it.",
                           layers=", ".join(layer.value for layer in seen)),
            gpu=gpu.index,
        ))
    return usable


RULES: tuple[Callable[[DoctorInput], list[Finding]], ...] = (
    rule_wsl, rule_not_passed_through, rule_amdgpu_driver, rule_kfd, rule_runtime,
    rule_gfx_support, rule_windows, rule_distro, rule_igpu,
    rule_partitions, rule_arch_missing, rule_smoke_failed, rule_torch_builds, rule_nvidia,
    rule_not_installed,
)

_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.OK: 3}


def diagnose(data: DoctorInput) -> tuple[Finding, ...]:
    findings: list[Finding] = []
    for rule in RULES:
        findings += rule(data)
    findings += rule_usable(data, findings)
    findings += rule_llm(data, findings)
    unique = list(dict.fromkeys(findings))
    return tuple(sorted(unique, key=lambda f: (_SEVERITY_ORDER[f.severity],
                                                f.gpu if f.gpu is not None else -1)))
