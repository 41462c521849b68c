"""Each GPU at a glance, as the Overview's cards say it: one verdict line from the doctor's
layers and verdict engine ("ROCm 6.2.4 ✓ · PyTorch 2.5 (ROCm 6.2) ✓ in ~/venvs/ai"), or the
finding that blocks the GPU with its fix, and every warning or error about it.

Qt-free and structured: the window translates each part from its kind and values; `text` is
the English line.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath

from gpuscope.doctor.inputs import DoctorInput
from gpuscope.doctor.layers import LayerRow, layers_for
from gpuscope.doctor.verdicts import (
    BUILD_NAMES,
    FrameworkVerdict,
    LayerState,
    VerdictReason,
    gpu_framework_verdict,
)
from gpuscope.model import Finding, Gpu, Layer, Severity, Vendor

# Where an interpreter's own folder says nothing: show the interpreter, not "/usr".
_SYSTEM_PREFIXES = frozenset({"/", "/usr", "/usr/local", "/opt/homebrew", "/opt/local"})
_MAJOR_MINOR = re.compile(r"^(\d+)\.(\d+)")
_SHOWN_SEVERITIES = (Severity.ERROR, Severity.WARNING)
UNKNOWN = "unknown"  # a ROCm part's detail: ROCm is there, its version not known


class PartKind(str, enum.Enum):
    ROCM = "rocm"  # the host's ROCm: version, state of the layers below the framework
    NVIDIA = "nvidia"  # the NVIDIA driver: version, detail "CUDA 12.4"
    TORCH = "torch"  # version "2.5", detail "ROCm 6.2", where "~/venvs/ai"
    NO_TORCH = "no_torch"  # where (one interpreter) or count (several)
    NOT_INSPECTED = "not_inspected"  # no interpreter inspected
    NOT_IN_OUTPUTS = "not_in_outputs"  # imported outputs, none of them from PyTorch
    NOT_CHECKED = "not_checked"  # a GPU of another vendor


@dataclass(frozen=True, slots=True)
class GlancePart:
    kind: PartKind
    state: LayerState
    version: str | None = None
    detail: str | None = None
    where: str | None = None
    count: int = 0  # NO_TORCH: the interpreters inspected, when more than one

    @property
    def mark(self) -> str:
        """"✓", "!" or "✗"; "" where the words say it all (unknown, not applicable)."""
        if self.state in (LayerState.OK, LayerState.WARNING, LayerState.BLOCKED):
            return self.state.mark
        return ""

    @property
    def text(self) -> str:
        mark = f" {self.mark}" if self.mark else ""
        if self.kind is PartKind.ROCM:
            if self.version:
                return f"ROCm {self.version}{mark}"
            return f"ROCm version unknown{mark}" if self.detail == UNKNOWN else "ROCm not found"
        if self.kind is PartKind.NVIDIA:
            driver = f"NVIDIA {self.version}" if self.version else "NVIDIA driver"
            return driver + (f" ({self.detail})" if self.detail else "") + mark
        if self.kind is PartKind.TORCH:
            text = f"PyTorch {self.version or '?'}"
            text += (f" ({self.detail})" if self.detail else "") + mark
            return text + (f" in {self.where}" if self.where else "")
        if self.kind is PartKind.NO_TORCH:
            if self.count > 1:
                return f"no PyTorch in the {self.count} interpreters inspected"
            return f"no PyTorch in {self.where}" if self.where else "no PyTorch found"
        if self.kind is PartKind.NOT_INSPECTED:
            return "PyTorch not inspected"
        if self.kind is PartKind.NOT_IN_OUTPUTS:
            return "no PyTorch output among the imported files"
        return "gpuscope checks AMD and NVIDIA GPUs only"


@dataclass(frozen=True, slots=True)
class Blocker:
    """What stops the GPU from being used: the first blocked layer, with its fix."""

    layer: str  # the layer's name ("Device nodes (/dev/kfd)")
    title: str  # the finding's title, else the layer's text
    finding: Finding | None = None
    verdict: FrameworkVerdict | None = None  # the framework layer's verdict, when it blocks
    fix: str | None = None
    fix_commands: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GpuGlance:
    gpu: int
    state: LayerState  # blocked, warning, ok, or unknown (some part not checked)
    parts: tuple[GlancePart, ...]
    blocker: Blocker | None
    # The warnings and errors about this GPU, errors first, the blocker's own finding left out.
    findings: tuple[Finding, ...]
    # The framework verdict's own caveat when no finding is behind it (a smoke test the time
    # budget cut short), with its fix.
    caveat: FrameworkVerdict | None = None

    @property
    def text(self) -> str:
        """The verdict line in English."""
        if self.blocker is not None:
            return f"✗ {self.blocker.title}"
        return " · ".join(part.text for part in self.parts)


def major_minor(version: str | None) -> str | None:
    """"2.5.1+rocm6.2" -> "2.5"; None when it does not start with two numbers."""
    match = _MAJOR_MINOR.match(version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def environment_of(python: str | None, home: str | None = None) -> str | None:
    """Where an interpreter lives, as a person names it: its environment's folder for
    ".../venvs/ai/bin/python" ("~/venvs/ai" under `home`), the interpreter itself for a system
    one ("/usr/bin/python3"), and anything that is no path ("pasted collect_env") as it is."""
    if not python:
        return None
    windows = "\\" in python
    path = PureWindowsPath(python) if windows else PurePosixPath(python)
    if not path.is_absolute():
        return python
    shown = str(path)
    env = path.parent.parent
    if path.parent.name.lower() in ("bin", "scripts") and str(env) not in _SYSTEM_PREFIXES \
            and len(env.parts) > 1:
        shown = str(env)
    if home and not windows:
        home = home.rstrip("/")
        if shown == home:
            return "~"
        if home and shown.startswith(home + "/"):
            return "~" + shown[len(home):]
    return shown


def _worst(states: Sequence[LayerState]) -> LayerState:
    for state in (LayerState.BLOCKED, LayerState.WARNING, LayerState.UNKNOWN, LayerState.OK):
        if state in states:
            return state
    return LayerState.NOT_APPLICABLE


def _platform_part(data: DoctorInput, gpu: Gpu, below: Sequence[LayerRow]) -> GlancePart:
    state = _worst([row.state for row in below])
    stack = data.inventory.stack
    if gpu.vendor is Vendor.AMD:
        version = stack.rocm_version.split("-", 1)[0] if stack.rocm_version else None
        # Pasted outputs rarely name the version; rocminfo answering shows ROCm is there.
        there = data.imported or Layer.ROCM in gpu.seen_by
        return GlancePart(PartKind.ROCM, state, version, UNKNOWN if there else None)
    version = stack.nvidia_driver_version or gpu.driver_version
    cuda = f"CUDA {stack.cuda_driver_version}" if stack.cuda_driver_version else None
    return GlancePart(PartKind.NVIDIA, state, version, cuda)


def _framework_part(data: DoctorInput, verdict: FrameworkVerdict | None,
                    home: str | None) -> GlancePart:
    if verdict is None:
        return GlancePart(PartKind.NOT_IN_OUTPUTS if data.imported else PartKind.NOT_INSPECTED,
                          LayerState.UNKNOWN)
    ref = verdict.framework
    if verdict.reason is VerdictReason.NOT_INSTALLED:
        inspected = [i for i in data.interpreters if i.inspected]
        return GlancePart(PartKind.NO_TORCH, verdict.state,
                          where=environment_of(ref.python, home), count=len(inspected))
    build = BUILD_NAMES.get(verdict.build) if verdict.build in ("rocm", "cuda") else None
    built_for = major_minor(verdict.build_version) or verdict.build_version
    detail = f"{build} {built_for}" if build and built_for and len(built_for) <= 12 else build
    if verdict.build == "cpu":
        detail = "CPU"
    return GlancePart(PartKind.TORCH, verdict.state,
                      major_minor(ref.version) or ref.version, detail,
                      environment_of(ref.python, home))


def _blocker(rows: Sequence[LayerRow], findings: Sequence[Finding], gpu: Gpu) -> Blocker | None:
    for row in rows:
        if row.state is not LayerState.BLOCKED:
            continue
        source = row.fix_source
        verdict = row.verdict if row.finding is None else None
        return Blocker(row.name, row.finding.title if row.finding is not None else row.text,
                       row.finding, verdict, source.fix if source is not None else None,
                       source.fix_commands if source is not None else ())
    # An error about this GPU that no layer row names (not passed through, ...) blocks too.
    error = next((f for f in findings if f.gpu == gpu.index and f.severity is Severity.ERROR),
                 None)
    if error is not None:
        return Blocker("", error.title, error, None, error.fix, error.fix_commands)
    return None


def _by_severity(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    shown = [f for f in findings if f.severity in _SHOWN_SEVERITIES]
    return tuple(sorted(shown, key=lambda f: _SHOWN_SEVERITIES.index(f.severity)))


def gpu_glance(data: DoctorInput, findings: Sequence[Finding], gpu: Gpu, *,
               home: str | None = None) -> GpuGlance:
    """`gpu` at a glance: its verdict line's parts, what blocks it, and its warnings and
    errors. `home` shortens interpreter paths under it to "~/..."."""
    rows = layers_for(data, findings, gpu)
    below = [row for row in rows if row.verdict is None and not row.name.startswith("Framework")]
    blocker = _blocker(rows, findings, gpu)
    parts: list[GlancePart] = []
    if gpu.vendor in (Vendor.AMD, Vendor.NVIDIA):
        parts.append(_platform_part(data, gpu, below))
        parts.append(_framework_part(data, gpu_framework_verdict(data, findings, gpu), home))
    else:
        parts.append(GlancePart(PartKind.NOT_CHECKED, LayerState.NOT_APPLICABLE))
    mine = _by_severity([f for f in findings if f.gpu == gpu.index
                         and (blocker is None or f is not blocker.finding)])
    caveat = next((row.verdict for row in rows if row.state is LayerState.WARNING
                   and row.verdict is not None and row.fix_source is row.verdict), None)
    if blocker is not None:
        state = LayerState.BLOCKED
    elif any(p.state is LayerState.WARNING for p in parts) or mine or caveat is not None:
        state = LayerState.WARNING
    elif parts and all(p.state is LayerState.OK for p in parts):
        state = LayerState.OK
    else:
        state = LayerState.UNKNOWN
    return GpuGlance(gpu.index, state, tuple(parts), blocker, mine, caveat)


def machine_findings(findings: Sequence[Finding],
                     glances: Sequence[GpuGlance] = ()) -> tuple[Finding, ...]:
    """The warnings and errors about the whole machine (no GPU of their own), errors first,
    less those a GPU's verdict line already names as what blocks it."""
    named = {id(g.blocker.finding) for g in glances
             if g.blocker is not None and g.blocker.finding is not None}
    return _by_severity([f for f in findings if f.gpu is None and id(f) not in named])
