"""Per GPU, the layers from hardware to framework, each with its state and the finding
behind it: what the readable `doctor` report prints and the Stack page draws. The framework
layer is the verdict engine's (`gpuscope.doctor.verdicts`), as on the Frameworks page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.doctor.rules import DoctorInput
from gpuscope.doctor.verdicts import (
    FrameworkVerdict,
    LayerState,
    VerdictReason,
    gpu_framework_verdict,
)
from gpuscope.i18n import message
from gpuscope.model import Finding, Gpu, Layer, Severity, Vendor

__all__ = ["NOT_INSPECTED_TEXT", "LayerRow", "LayerState", "layers_for", "verdict_row_text"]

# The CLI's words; the Stack page says where to inspect in the window instead.
NOT_INSPECTED_TEXT = message("no PyTorch inspected ({command})",
                             command="doctor --python PATH")
_NOT_CHECKED = message("not checked")
_FRAMEWORK = message("Framework (PyTorch)")


@dataclass(frozen=True, slots=True)
class LayerRow:
    name: str
    state: LayerState
    text: str
    finding: Finding | None = None
    # The framework layer's verdict (None on other layers, and when nothing was inspected).
    verdict: FrameworkVerdict | None = None

    @property
    def fix_source(self) -> Finding | FrameworkVerdict | None:
        """What carries this row's fix when it is blocked or warned: its finding, else a
        framework verdict with a fix of its own and no finding behind it (a smoke test the
        time budget cut short)."""
        if self.state not in (LayerState.BLOCKED, LayerState.WARNING):
            return None
        if self.finding is not None:
            return self.finding
        if self.verdict is not None and not self.verdict.causes and (
                self.verdict.fix or self.verdict.fix_commands):
            return self.verdict
        return None


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


def verdict_row_text(verdict: FrameworkVerdict) -> str:
    """"PyTorch 2.5.1+rocm6.2 in /usr/bin/python3: yes as device 0": the framework layer's
    text, the verdict's own words after the framework it judges."""
    ref = verdict.framework
    if verdict.reason is VerdictReason.NOT_INSTALLED or ref.version is None:
        return verdict.text  # not installed, or known only from a pasted error
    if ref.python:
        return message("PyTorch {version} in {python}: {verdict}", version=ref.version,
                       python=ref.python, verdict=verdict.text)
    return message("PyTorch {version}: {verdict}", version=ref.version, verdict=verdict.text)


def _framework_row(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu) -> LayerRow:
    verdict = gpu_framework_verdict(data, findings, gpu)
    if verdict is None:
        return LayerRow(_FRAMEWORK, LayerState.UNKNOWN, NOT_INSPECTED_TEXT)
    # A layer below blocks it: that layer's row shows the finding; this one names it.
    finding = verdict.finding if verdict.reason is not VerdictReason.LOWER_LAYER else None
    return LayerRow(_FRAMEWORK, verdict.state, verdict_row_text(verdict), finding,
                    verdict)


def _windows_amd_rows(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu
                      ) -> list[LayerRow]:
    """On Windows: the display driver (AMD Software: Adrenalin), the HIP SDK and the HIP
    runtime's view of the GPU (hipInfo) stand where amdgpu, /dev/kfd and KFD stand on Linux."""
    seen = set(gpu.seen_by)
    extras = data.inventory.stack.extras
    adrenalin = extras.get("amd_driver_version")
    driver_text = (message("AMD Software {version} (driver {driver})", version=adrenalin,
                           driver=gpu.driver_version or "?") if adrenalin
                   else message("driver {driver}", driver=gpu.driver_version)
                   if gpu.driver_version else message("Windows lists it"))
    sdk = extras.get("hip_sdk_version") or data.inventory.stack.rocm_version
    return [
        _row(message("Windows driver (AMD Software)"), findings, gpu,
             ("windows.driver_too_old",), Layer.WINDOWS in seen or gpu.driver_version is not None,
             driver_text, _NOT_CHECKED),
        _row(message("HIP SDK"), findings, gpu,
             ("windows.hip_sdk_missing", "windows.rocm_gpu_unsupported"), sdk is not None,
             message("HIP SDK {version}", version=sdk), _NOT_CHECKED),
        _row(message("HIP runtime (hipInfo)"), findings, gpu, (), Layer.ROCM in seen,
             message("sees {target}", target=gpu.gfx_target) if gpu.gfx_target
             else message("sees it"),
             message("not checked (no hipInfo evidence)")),
    ]


def layers_for(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu) -> list[LayerRow]:
    seen = set(gpu.seen_by)
    wsl_or_windows = data.os in ("wsl", "windows")
    if gpu.vendor is Vendor.AMD and data.os == "windows" and (
            not data.imported or seen & {Layer.WINDOWS, Layer.ROCM}):
        rows = _windows_amd_rows(data, findings, gpu)
    elif gpu.vendor is Vendor.AMD:
        driver_seen = bool(seen & {Layer.SYSFS, Layer.ROCM_SMI, Layer.AMDSMI, Layer.KFD,
                                   Layer.ROCM}) or gpu.kernel_driver == "amdgpu"
        runtime_seen = bool(seen & {Layer.KFD, Layer.ROCM})
        rows = [
            LayerRow(message("Kernel driver (amdgpu)"), LayerState.NOT_APPLICABLE,
                     message("the Windows driver serves the GPU here"))
            if wsl_or_windows else
            _row(message("Kernel driver (amdgpu)"), findings, gpu,
                 ("amdgpu.driver_not_loaded", "amdgpu.init_failed"), driver_seen,
                 message("amdgpu serves it ({layers})",
                         layers=", ".join(sorted(x.value for x in seen))),
                 _NOT_CHECKED),
            LayerRow(message("Device nodes (/dev/kfd)"), LayerState.NOT_APPLICABLE,
                     message("no /dev/kfd under WSL or Windows"))
            if wsl_or_windows else
            _row(message("Device nodes (/dev/kfd)"), findings, gpu,
                 ("kfd.permission_denied", "kfd.missing"),
                 (runtime_seen and not data.imported) or Layer.ROCM in seen,
                 message("this user can open them"), _NOT_CHECKED),
            _row(message("ROCm runtime (KFD/HSA)"), findings, gpu,
                 ("rocm.runtime_missing", "kfd.device_unsupported", "kfd.pcie_atomics_missing",
                  "rocm.gfx_unsupported", "rocm.igpu_enumerated"),
                 runtime_seen,
                 message("sees {target}", target=gpu.gfx_target) if gpu.gfx_target
                 else message("sees it"),
                 message("not checked (no rocminfo or KFD evidence)")),
        ]
    elif gpu.vendor is Vendor.NVIDIA:
        nvml = Layer.NVML in seen
        rows = [
            _row(message("Windows driver (nvidia)") if data.os == "windows"
                 else message("Kernel driver (nvidia)"), findings, gpu,
                 ("nvidia.driver_not_loaded", "nvidia.driver_library_mismatch"),
                 nvml or gpu.kernel_driver == "nvidia",
                 f"nvidia {data.inventory.stack.nvidia_driver_version or ''}".strip(),
                 _NOT_CHECKED),
            _row(message("Driver library (NVML)"), findings, gpu,
                 ("nvidia.driver_library_mismatch", "nvidia.mig_enabled"), nvml,
                 message("NVML answers"), _NOT_CHECKED),
            _row(message("CUDA driver"), findings, gpu, ("nvidia.driver_too_old",),
                 data.inventory.stack.cuda_driver_version is not None,
                 message("supports CUDA {version}",
                         version=data.inventory.stack.cuda_driver_version),
                 _NOT_CHECKED),
        ]
    else:
        rows = []
    rows.append(_framework_row(data, findings, gpu))
    return rows
