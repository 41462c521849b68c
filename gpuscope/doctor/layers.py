"""Per GPU, the layers from hardware to framework, each with its state and the finding
behind it: what the readable `doctor` report prints and the Stack page draws."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.doctor.rules import DoctorInput
from gpuscope.model import Finding, Gpu, Layer, Severity, Vendor


class LayerState(str, enum.Enum):
    OK = "ok"
    WARNING = "warning"
    BLOCKED = "blocked"
    UNKNOWN = "unknown"  # no evidence either way: not checked, never guessed
    NOT_APPLICABLE = "not_applicable"

    @property
    def mark(self) -> str:
        return {"ok": "✓", "warning": "!", "blocked": "✗", "unknown": "?",
                "not_applicable": "–"}[self.value]


@dataclass(frozen=True, slots=True)
class LayerRow:
    name: str
    state: LayerState
    text: str
    finding: Finding | None = None


def _finding(findings: Sequence[Finding], gpu: Gpu, *ids: str) -> Finding | None:
    for finding in findings:
        if finding.id in ids and finding.gpu in (None, gpu.index):
            return finding
    return None


def _row(name: str, findings: Sequence[Finding], gpu: Gpu, ids: tuple[str, ...],
         ok: bool, ok_text: str, unknown_text: str) -> LayerRow:
    finding = _finding(findings, gpu, *ids)
    if finding is not None:
        state = {Severity.ERROR: LayerState.BLOCKED, Severity.WARNING: LayerState.WARNING}.get(
            finding.severity, LayerState.OK if ok else LayerState.UNKNOWN)
        return LayerRow(name, state, finding.title, finding)
    if ok:
        return LayerRow(name, LayerState.OK, ok_text)
    return LayerRow(name, LayerState.UNKNOWN, unknown_text)


def _framework_row(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu) -> LayerRow:
    torches = data.torch_builds()
    ids = ("torch.arch_missing", "torch.no_gpu", "torch.cuda_build_on_amd",
           "torch.rocm_build_on_nvidia", "torch.cpu_build", "torch.rocm_mismatch")
    wanted = "rocm" if gpu.vendor is Vendor.AMD else "cuda"
    sees = [t for t in torches if t.build == wanted and t.gpu_available]
    text = (f"PyTorch {sees[0].version} ({wanted.upper()} {sees[0].build_version or ''})".strip()
            if sees else "no PyTorch inspected (doctor --python PATH)")
    return _row("Framework (PyTorch)", findings, gpu, ids, bool(sees), text + " sees it", text)


def layers_for(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu) -> list[LayerRow]:
    seen = set(gpu.seen_by)
    wsl_or_windows = data.os in ("wsl", "windows")
    if gpu.vendor is Vendor.AMD:
        driver_seen = bool(seen & {Layer.SYSFS, Layer.ROCM_SMI, Layer.AMDSMI, Layer.KFD,
                                   Layer.ROCM}) or gpu.kernel_driver == "amdgpu"
        runtime_seen = bool(seen & {Layer.KFD, Layer.ROCM})
        rows = [
            LayerRow("Kernel driver (amdgpu)", LayerState.NOT_APPLICABLE,
                     "the Windows driver serves the GPU here")
            if wsl_or_windows else
            _row("Kernel driver (amdgpu)", findings, gpu,
                 ("amdgpu.driver_not_loaded", "amdgpu.init_failed"), driver_seen,
                 f"amdgpu serves it ({', '.join(sorted(x.value for x in seen))})",
                 "not checked"),
            LayerRow("Device nodes (/dev/kfd)", LayerState.NOT_APPLICABLE,
                     "no /dev/kfd under WSL or Windows")
            if wsl_or_windows else
            _row("Device nodes (/dev/kfd)", findings, gpu,
                 ("kfd.permission_denied", "kfd.missing"),
                 (runtime_seen and not data.imported) or Layer.ROCM in seen,
                 "this user can open them", "not checked"),
            _row("ROCm runtime (KFD/HSA)", findings, gpu,
                 ("rocm.runtime_missing", "kfd.device_unsupported", "kfd.pcie_atomics_missing",
                  "rocm.gfx_unsupported", "rocm.igpu_enumerated"),
                 runtime_seen, f"sees {gpu.gfx_target or 'it'}",
                 "not checked (no rocminfo or KFD evidence)"),
        ]
    elif gpu.vendor is Vendor.NVIDIA:
        nvml = Layer.NVML in seen
        rows = [
            _row("Kernel driver (nvidia)", findings, gpu,
                 ("nvidia.driver_not_loaded", "nvidia.driver_library_mismatch"),
                 nvml or gpu.kernel_driver == "nvidia",
                 f"nvidia {data.inventory.stack.nvidia_driver_version or ''}".strip(),
                 "not checked"),
            _row("Driver library (NVML)", findings, gpu,
                 ("nvidia.driver_library_mismatch", "nvidia.mig_enabled"), nvml,
                 "NVML answers", "not checked"),
            _row("CUDA driver", findings, gpu, ("nvidia.driver_too_old",),
                 data.inventory.stack.cuda_driver_version is not None,
                 f"supports CUDA {data.inventory.stack.cuda_driver_version}", "not checked"),
        ]
    else:
        rows = []
    rows.append(_framework_row(data, findings, gpu))
    return rows
