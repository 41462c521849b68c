"""One answer to "can framework F, in interpreter P, use GPU G": a structured verdict per
(framework, interpreter, GPU), read by the Stack page, the Frameworks page, the `doctor` text
and the report alike.

A verdict gathers the build flavour, whether the build's arch list covers the GPU (ROCm gfx
targets; CUDA compute capabilities, where a cubin runs on the same major and an equal or
higher minor, and PTX is compiled for newer GPUs), the smoke test, how the build's ROCm or
CUDA fits the host (host ROCm, NVIDIA driver), its state, a reason code with parameters (the
UI translates the code, the CLI prints `text`), the ids of the findings behind it and their
fix. The analysis functions here (`arch_coverage`, `smoke_failures`) are also what the
torch rules (`rules_torch`) emit their findings from, so rules and verdicts cannot disagree.
Findings are tied to a framework by `Finding.framework` (a `FrameworkRef`), never by words.
"""

from __future__ import annotations

import enum
import re
import shlex
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from gpuscope.doctor.inputs import DoctorInput
from gpuscope.i18n import N_, message
from gpuscope.knowledge.cuda import arch_list_covers, driver_supports
from gpuscope.knowledge.overrides import gfx_for_override_value
from gpuscope.knowledge.torch_builds import (
    default_arch_list,
    official_wheel_coverage,
    parse_torch_version,
)
from gpuscope.knowledge.versions import is_therock_build, rocm_release
from gpuscope.model import Finding, Framework, FrameworkRef, Gpu, GpuKind, Severity, Vendor


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


class VerdictReason(str, enum.Enum):
    """Why a verdict is what it is: the key the UI translates (with the verdict's params)."""

    USABLE = "usable"
    USABLE_WITH_WARNING = "usable_with_warning"
    USABLE_UNCONFIRMED = "usable_unconfirmed"  # sees it; the time budget cut its smoke test short
    NOT_INSPECTED = "not_inspected"  # the framework could not be inspected
    NOT_INSTALLED = "not_installed"  # the interpreter has no PyTorch
    VENDOR_NOT_CHECKED = "vendor_not_checked"  # an Intel or other GPU
    CPU_BUILD = "cpu_build"
    WRONG_VENDOR = "wrong_vendor"  # a CUDA build and an AMD GPU, or the reverse
    OTHER_BUILD = "other_build"  # xpu, mps, directml, unknown
    ARCH_MISSING = "arch_missing"
    SMOKE_FAILED = "smoke_failed"
    DRIVER_TOO_OLD = "driver_too_old"
    LOWER_LAYER = "lower_layer"  # the driver, device nodes or runtime block the GPU
    SEES_NO_GPU = "sees_no_gpu"
    NOT_AMONG_DEVICES = "not_among_devices"
    NOT_REPORTED = "not_reported"  # it did not say whether it sees a GPU


# English texts of the reasons, formatted with the verdict's params; `text` is a message
# whose template the views translate.
REASON_TEXTS: Mapping[VerdictReason, str] = {
    VerdictReason.USABLE: N_("yes"),
    VerdictReason.USABLE_WITH_WARNING: N_("yes, but: {warning}"),
    VerdictReason.USABLE_UNCONFIRMED:
        N_("it sees the GPU, not yet confirmed: the smoke test {result}"),
    VerdictReason.NOT_INSPECTED: N_("not known: the framework could not be inspected"),
    VerdictReason.NOT_INSTALLED: N_("no: PyTorch is not installed in {python}"),
    VerdictReason.VENDOR_NOT_CHECKED:
        N_("not checked: gpuscope checks AMD and NVIDIA GPUs, this is {vendor}"),
    VerdictReason.CPU_BUILD: N_("no: a CPU-only build never uses a GPU"),
    VerdictReason.WRONG_VENDOR: N_("no: a {build} build cannot use {vendor} GPUs"),
    VerdictReason.OTHER_BUILD: N_("not known: a {build} build"),
    VerdictReason.ARCH_MISSING: N_("no: the framework has no kernels for {target}"),
    VerdictReason.SMOKE_FAILED: N_("no: the smoke test {result}"),
    VerdictReason.DRIVER_TOO_OLD: N_("no: the NVIDIA driver is too old for its CUDA {cuda}"),
    VerdictReason.LOWER_LAYER: N_("no: {reason}"),
    VerdictReason.SEES_NO_GPU: N_("no: the build sees no GPU"),
    VerdictReason.NOT_AMONG_DEVICES:
        N_("not among the devices it lists (hidden by a *_VISIBLE_DEVICES variable?)"),
    VerdictReason.NOT_REPORTED: N_("not known: it did not say whether it sees a GPU"),
}
# Variants chosen by a param: "yes as device 0", "...; the layers below it work".
DEVICE_TEXTS: Mapping[VerdictReason, str] = {
    VerdictReason.USABLE: N_("yes as device {device}"),
    VerdictReason.USABLE_WITH_WARNING: N_("yes as device {device}, but: {warning}"),
    VerdictReason.USABLE_UNCONFIRMED:
        N_("it sees the GPU as device {device}, not yet confirmed: the smoke test {result}"),
}
BELOW_TEXTS: Mapping[VerdictReason, str] = {
    VerdictReason.SEES_NO_GPU: N_("no: the build sees no GPU (a layer below it blocks it)"),
    VerdictReason.NOT_REPORTED:
        N_("not known: it did not say whether it sees a GPU; the layers below it work"),
}

VENDOR_BUILD = {Vendor.AMD: "rocm", Vendor.NVIDIA: "cuda"}
VENDOR_NAMES = {Vendor.AMD: "AMD", Vendor.NVIDIA: "NVIDIA", Vendor.INTEL: "Intel",
                Vendor.OTHER: "other"}
BUILD_NAMES = {"rocm": "ROCm", "cuda": "CUDA", "cpu": "CPU", "xpu": "XPU", "mps": "MPS",
               "directml": "DirectML", "unknown": "unknown"}
# Finding id prefixes of the layers below a framework, and the vendor whose stack they block.
_LOWER_LAYERS: Mapping[str, Vendor | None] = {
    "amdgpu.": Vendor.AMD, "kfd.": Vendor.AMD, "rocm.": Vendor.AMD, "nvidia.": Vendor.NVIDIA,
    "gpu.not_passed_through": None,
}
_OVERRIDE_VARIABLE = "HSA_OVERRIDE_GFX_VERSION"


# ----------------------------------------------------------------------------- analysis


@dataclass(frozen=True, slots=True)
class ArchCoverage:
    """Whether a build carries code for a GPU's target."""

    target: str | None  # what the GPU needs: "gfx1031", or "sm_89" for compute capability 8.9
    covered: bool | None  # None: not known (no list, no table row, no target)
    how: str  # "listed", "cubin", "ptx", "not_listed", "unknown", "not_applicable"
    arch_list: tuple[str, ...] = ()  # the list judged
    from_table: bool = False  # the official wheel's list from the knowledge base
    runs_as: str | None = None  # the target HSA_OVERRIDE_GFX_VERSION makes it run as


@dataclass(frozen=True, slots=True)
class SmokeFailure:
    """One device's failed smoke test, and what the message means."""

    device: str | None  # "cuda:1", when the framework tested several
    message: str
    cause: str  # a key of SMOKE_CAUSES
    gpu: int | None  # the GPU it ran on, when it can be told


@dataclass(frozen=True, slots=True)
class SmokeResult:
    status: str  # "ok", "failed", "unfinished" (cut short by the time budget), "not_run"
    message: str | None = None
    cause: str | None = None


@dataclass(frozen=True, slots=True)
class HostCompat:
    """How the build's ROCm or CUDA fits the host."""

    status: str  # "ok", "mismatch", "minor_compat", "too_old", "unknown", "not_applicable"
    note: str = ""


# Known smoke-test messages and their causes, checked in order (the first match wins).
SMOKE_CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("no_kernels", re.compile(
        r"hipErrorNoBinaryForGpu|no binary for gpu|invalid device function|"
        r"no kernel image is available|cudaErrorNoKernelImageForDevice|TensileLibrary",
        re.IGNORECASE)),
    ("out_of_memory", re.compile(r"out of memory|hipErrorOutOfMemory|"
                                 r"cudaErrorMemoryAllocation", re.IGNORECASE)),
    ("driver_too_old", re.compile(r"driver version is insufficient|cudaErrorInsufficientDriver",
                                  re.IGNORECASE)),
    ("ptx_toolchain", re.compile(r"unsupported toolchain|cudaErrorUnsupportedPtxVersion",
                                 re.IGNORECASE)),
    ("no_device", re.compile(r"no CUDA-capable device|hipErrorNoDevice|no HIP GPUs|"
                             r"invalid device ordinal|found no NVIDIA driver", re.IGNORECASE)),
    ("wrong_result", re.compile(r"^wrong result", re.IGNORECASE)),
    ("timeout", re.compile(r"^timed out", re.IGNORECASE)),
    ("hsa_init", re.compile(r"HSA_STATUS_ERROR|hsa api call failure", re.IGNORECASE)),
    ("crash", re.compile(r"^killed by SIG|segmentation fault|core dumped", re.IGNORECASE)),
)
_DEVICE_PREFIX = re.compile(r"([a-z_]+:\d+): ")
_DEVICE_SPLIT = re.compile(r";\s+(?=[a-z_]+:\d+: )")
_MAX_MESSAGE = 2000


def smoke_cause(message: str) -> str:
    """The cause a smoke-test message names: "no_kernels", "out_of_memory", ... or "other"."""
    text = message[:_MAX_MESSAGE]
    for cause, pattern in SMOKE_CAUSES:
        if pattern.search(text):
            return cause
    return "other"


def _smoke_parts(framework: Framework, status: str, empty: str) -> list[tuple[str | None, str]]:
    """(device, message) of each device in a smoke test summary of this status: "<status>:
    <reason>" for one device tested (device None), "<status>: cuda:0: <reason>; cuda:1: ..."
    for several. [] when the summary has another status."""
    result = framework.smoke_test or ""
    if not result.startswith(status):
        return []
    rest = result[len(status):].lstrip(": ").strip()[:_MAX_MESSAGE] or empty
    if _DEVICE_PREFIX.match(rest) is None:
        return [(None, rest)]
    parts = []
    for part in _DEVICE_SPLIT.split(rest):
        match = _DEVICE_PREFIX.match(part)
        parts.append((match.group(1), part[match.end():]) if match else (None, part))
    return parts


def smoke_failures(data: DoctorInput, torch: Framework) -> list[SmokeFailure]:
    """The failed smoke tests of a framework, each with its cause and GPU."""
    return [SmokeFailure(device, message, smoke_cause(message), _smoke_gpu(data, torch, device))
            for device, message in _smoke_parts(torch, "failed", "no reason given")]


def _smoke_gpu(data: DoctorInput, torch: Framework, device: str | None) -> int | None:
    gpus = [g for g in data.inventory.gpus if VENDOR_BUILD.get(g.vendor or Vendor.OTHER)
            == torch.build]
    index = int(device.rsplit(":", 1)[1]) if device else None
    if index is None:
        if len(torch.devices) == 1:
            index = torch.devices[0].index
        elif len(gpus) == 1:
            return gpus[0].index
        else:
            return None
    for gpu in gpus:
        if matching_device(torch, gpu) == index:
            return gpu.index
    return gpus[0].index if len(gpus) == 1 and len(torch.devices) <= 1 else None


def matching_device(framework: Framework, gpu: Gpu) -> int | None:
    """The framework's device index of this GPU: by PCI address, else by a target only it
    has, else by a name only it has (collect_env's "GPU 0: NVIDIA H200" names no target)."""
    bus = gpu.pci_bus.lower()[-7:] if gpu.pci_bus else None  # "bb:dd.f": domains differ
    for device in framework.devices:
        if bus and device.pci_bus and device.pci_bus.lower()[-7:] == bus:
            return device.index
    same = [d for d in framework.devices
            if (gpu.gfx_target and d.arch == gpu.gfx_target)
            or (gpu.compute_capability and d.compute_capability == gpu.compute_capability)]
    if len(same) == 1:
        return same[0].index
    if same:
        return None
    name = (gpu.name or "").strip().lower()
    named = [d for d in framework.devices if name and (d.name or "").strip().lower() == name]
    return named[0].index if len(named) == 1 else None


def override_target(data: DoctorInput) -> str | None:
    """The gfx target HSA_OVERRIDE_GFX_VERSION in the environment makes AMD GPUs run as."""
    value = data.inventory.stack.environment.get(_OVERRIDE_VARIABLE)
    return gfx_for_override_value(value) if isinstance(value, str) else None


def _cc_target(torch: Framework, gpu: Gpu) -> str | None:
    if gpu.compute_capability:
        return gpu.compute_capability
    device = matching_device(torch, gpu)
    found = next((d.compute_capability for d in torch.devices if d.index == device), None)
    return found


def arch_coverage(data: DoctorInput, torch: Framework, gpu: Gpu) -> ArchCoverage:
    """Whether `torch` carries code for `gpu`: its own arch list when the probe reported one,
    else the official wheel's list from the knowledge base."""
    build = torch.build
    if build not in ("rocm", "cuda") or VENDOR_BUILD.get(gpu.vendor or Vendor.OTHER) != build:
        return ArchCoverage(None, None, "not_applicable")
    if build == "rocm":
        target = gpu.gfx_target
        if not target:
            return ArchCoverage(None, None, "unknown")
        runs_as = override_target(data)
        effective = runs_as or target
        listed = tuple(entry.split(":", 1)[0] for entry in torch.arch_list)
        from_table = False
        if not listed:
            listed = default_arch_list(torch.version, "rocm", torch.build_version) or ()
            from_table = bool(listed)
        if listed:
            covered = effective in listed
            return ArchCoverage(target, covered, "listed" if covered else "not_listed", listed,
                                from_table, runs_as)
        coverage = official_wheel_coverage(torch.version, "rocm", torch.build_version,
                                           effective)
        return ArchCoverage(target, None if coverage is None else coverage == "native",
                            "unknown" if coverage is None else (
                                "listed" if coverage == "native" else "not_listed"),
                            (), True, runs_as)
    cc = _cc_target(torch, gpu)
    if not cc:
        return ArchCoverage(None, None, "unknown")
    sm = "sm_" + cc.replace(".", "")
    how = arch_list_covers(torch.arch_list, cc)
    if how != "unknown":
        return ArchCoverage(sm, how != "none", "not_listed" if how == "none" else how,
                            torch.arch_list)
    coverage = official_wheel_coverage(torch.version, "cuda", torch.build_version, cc)
    if coverage is None:
        return ArchCoverage(sm, None, "unknown")
    table = default_arch_list(torch.version, "cuda", torch.build_version) or ()
    return ArchCoverage(sm, coverage != "none",
                        {"native": "cubin", "ptx": "ptx", "none": "not_listed"}[coverage],
                        table, True)


def built_rocm(torch: Framework) -> tuple[int, int] | None:
    """The ROCm (major, minor) a ROCm build was made for: its wheel tag (+rocm6.2.4), else its
    HIP version; None for AMD's TheRock builds, which bring their own ROCm whatever the host
    has, and for versions nobody can read."""
    parsed = parse_torch_version(torch.version or "")
    local = (parsed.local or "").lower() if parsed else ""
    if local.startswith("rocmsdk") or is_therock_build(torch.build_version) or (
            parsed is not None and is_therock_build(parsed.build_version)):
        return None
    source = parsed.build_version if parsed and parsed.build == "rocm" and \
        parsed.build_version else torch.build_version
    release = rocm_release(source)
    return release[:2] if release else None


def host_compat(data: DoctorInput, torch: Framework) -> HostCompat:
    """The build's ROCm against the host's, or its CUDA against the NVIDIA driver."""
    stack = data.inventory.stack
    if torch.build == "rocm":
        built, host = built_rocm(torch), rocm_release(stack.rocm_version)
        if built is None or host is None:
            return HostCompat("unknown")
        if built == host[:2]:
            return HostCompat("ok")
        return HostCompat("mismatch", f"built for ROCm {built[0]}.{built[1]}, the host has "
                                      f"ROCm {host[0]}.{host[1]}")
    if torch.build == "cuda":
        driver = stack.nvidia_driver_version
        if not driver or not torch.build_version:
            return HostCompat("unknown")
        verdict = driver_supports(driver, torch.build_version,
                                  "windows" if data.os in ("windows", "wsl") else "linux")
        return HostCompat(verdict.status, verdict.note)
    return HostCompat("not_applicable")


# ----------------------------------------------------------------------------- verdicts


@dataclass(frozen=True, slots=True)
class FrameworkVerdict:
    """Whether one framework in one interpreter can use one GPU, and why."""

    framework: FrameworkRef
    gpu: int
    gpu_name: str | None
    state: LayerState  # ok: it can; blocked: it cannot; warning: it can, with a caveat
    reason: VerdictReason
    params: Mapping[str, str] = field(hash=False, default_factory=dict)
    build: str = "unknown"
    build_version: str | None = None
    device: int | None = None  # the framework's index of this GPU
    arch: ArchCoverage = ArchCoverage(None, None, "not_applicable")
    smoke: SmokeResult = SmokeResult("not_run")
    host: HostCompat = HostCompat("not_applicable")
    finding_ids: tuple[str, ...] = ()  # the findings behind the verdict, the primary first
    fix: str | None = None
    fix_commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    # The findings behind it, in the order of finding_ids (the primary first).
    causes: tuple[Finding, ...] = field(default=(), compare=False, repr=False)

    @property
    def flavour(self) -> str | None:
        """The build's wheel tag ("rocm6.2.4", "cu128", "cpu", "rocmsdk20251116"), when its
        version carries one."""
        parsed = parse_torch_version(self.framework.version or "")
        return parsed.local if parsed else None

    @property
    def finding(self) -> Finding | None:
        """The primary finding: the one whose fix the verdict carries."""
        return self.causes[0] if self.causes else None

    @property
    def usable(self) -> bool | None:
        if self.state in (LayerState.OK, LayerState.WARNING):
            return True
        if self.state is LayerState.BLOCKED:
            return False
        return None

    @property
    def template(self) -> str:
        """The English template of `text` (the UI translates the same template)."""
        if "device" in self.params and self.reason in DEVICE_TEXTS:
            return DEVICE_TEXTS[self.reason]
        if self.params.get("below") == "yes" and self.reason in BELOW_TEXTS:
            return BELOW_TEXTS[self.reason]
        return REASON_TEXTS[self.reason]

    @property
    def text(self) -> str:
        """The verdict's words, English; a message the views show translated (the vendor and
        build names are words of gpuscope's own, translated too)."""
        values: dict[str, object] = {
            name: "?" for _, name, _, _ in string.Formatter().parse(self.template) if name}
        for key, value in self.params.items():
            values[key] = message(value) if key in _WORD_PARAMS else value
        return message(self.template, **values)


# Parameters that are words of gpuscope's own (vendor and build names), not machine data.
_WORD_PARAMS = ("vendor", "build")


def concerns(finding: Finding, framework: Framework) -> bool:
    """Whether a finding is about this framework: structurally, by its `framework` link."""
    return finding.framework is not None and finding.framework.matches(framework)


def _about(findings: Sequence[Finding], framework: Framework, gpu: Gpu,
           *ids: str) -> list[Finding]:
    """This framework's findings with these ids on this GPU (or on no GPU in particular); a
    finding without a framework link (from a pasted error) counts for every framework whose
    build can serve the GPU."""
    out = []
    for finding in findings:
        if finding.id not in ids or finding.gpu not in (None, gpu.index):
            continue
        if concerns(finding, framework) or (finding.framework is None and finding.gpu is not None):
            out.append(finding)
    return out


def _verdict(framework: Framework, gpu: Gpu, state: LayerState, why: VerdictReason,
             causes: Sequence[Finding] = (), params: Mapping[str, str] | None = None,
             ) -> FrameworkVerdict:
    primary = next(iter(causes), None)
    return FrameworkVerdict(
        framework=FrameworkRef.of(framework), gpu=gpu.index, gpu_name=gpu.name, state=state,
        reason=why, params=dict(params or {}), build=framework.build,
        build_version=framework.build_version,
        finding_ids=tuple(dict.fromkeys(f.id for f in causes)),
        fix=primary.fix if primary else None,
        fix_commands=primary.fix_commands if primary else (),
        sources=primary.sources if primary else (), causes=tuple(causes))


def framework_verdict(data: DoctorInput, findings: Sequence[Finding], framework: Framework,
                      gpu: Gpu) -> FrameworkVerdict:
    """Can `framework` use `gpu`? From its build, its arch list, its smoke test, the host's
    ROCm or driver, and the doctor's findings (linked to it by `Finding.framework`)."""
    verdict = _decide(data, findings, framework, gpu)
    if verdict.reason in (VerdictReason.NOT_INSPECTED, VerdictReason.VENDOR_NOT_CHECKED,
                          VerdictReason.CPU_BUILD, VerdictReason.OTHER_BUILD,
                          VerdictReason.WRONG_VENDOR):
        return verdict
    smoke = framework.smoke_test or ""
    failures = [f for f in smoke_failures(data, framework) if f.gpu in (None, gpu.index)]
    unfinished = _unfinished_smoke(framework, matching_device(framework, gpu))
    result = (SmokeResult("failed", failures[0].message, failures[0].cause) if failures
              else SmokeResult("unfinished", unfinished) if unfinished is not None
              else SmokeResult("ok" if smoke.startswith("ok") else "not_run"))
    return FrameworkVerdict(
        framework=verdict.framework, gpu=verdict.gpu, gpu_name=verdict.gpu_name,
        state=verdict.state, reason=verdict.reason, params=verdict.params,
        build=verdict.build, build_version=verdict.build_version,
        device=matching_device(framework, gpu), arch=arch_coverage(data, framework, gpu),
        smoke=result, host=host_compat(data, framework), finding_ids=verdict.finding_ids,
        fix=verdict.fix, fix_commands=verdict.fix_commands, sources=verdict.sources,
        causes=verdict.causes)


def _decide(data: DoctorInput, findings: Sequence[Finding], framework: Framework,
            gpu: Gpu) -> FrameworkVerdict:
    def verdict(state: LayerState, why: VerdictReason, causes: Sequence[Finding] = (),
                **params: str) -> FrameworkVerdict:
        return _verdict(framework, gpu, state, why, causes, params)

    if framework.error or framework.version is None:
        return verdict(LayerState.UNKNOWN, VerdictReason.NOT_INSPECTED)
    wanted = VENDOR_BUILD.get(gpu.vendor) if gpu.vendor else None
    build = framework.build
    if wanted is None:
        return verdict(LayerState.NOT_APPLICABLE, VerdictReason.VENDOR_NOT_CHECKED,
                       vendor=VENDOR_NAMES.get(gpu.vendor or Vendor.OTHER, "other"))
    if build == "cpu":
        return verdict(LayerState.BLOCKED, VerdictReason.CPU_BUILD,
                       _about(findings, framework, gpu, "torch.cpu_build"))
    if build in ("rocm", "cuda") and build != wanted:
        return verdict(LayerState.BLOCKED, VerdictReason.WRONG_VENDOR,
                       _about(findings, framework, gpu, "torch.cuda_build_on_amd",
                              "torch.rocm_build_on_nvidia"),
                       build=BUILD_NAMES[build], vendor=VENDOR_NAMES[gpu.vendor or Vendor.OTHER])
    if build not in ("rocm", "cuda"):
        return verdict(LayerState.UNKNOWN, VerdictReason.OTHER_BUILD,
                       build=BUILD_NAMES.get(build, build))
    # The framework itself: no kernels for this GPU, a failing smoke test, a driver too old.
    missing = _about(findings, framework, gpu, "torch.arch_missing")
    coverage = arch_coverage(data, framework, gpu)
    if missing or coverage.covered is False:
        return verdict(LayerState.BLOCKED, VerdictReason.ARCH_MISSING, missing,
                       target=coverage.target or gpu.gfx_target or "this GPU")
    smoke = _about(findings, framework, gpu, "torch.smoke_failed")
    if smoke:
        return verdict(LayerState.BLOCKED, VerdictReason.SMOKE_FAILED, smoke,
                       result=framework.smoke_test or "failed")
    too_old = [f for f in _about(findings, framework, gpu, "nvidia.driver_too_old")
               if concerns(f, framework)]
    if too_old and too_old[0].severity is Severity.ERROR:
        return verdict(LayerState.BLOCKED, VerdictReason.DRIVER_TOO_OLD, too_old,
                       cuda=framework.build_version or "?")
    # The layers below it.
    for finding in findings:
        if (finding.severity is not Severity.ERROR or finding.framework is not None
                or finding.gpu not in (None, gpu.index)):
            continue
        blocks = next((v for prefix, v in _LOWER_LAYERS.items()
                       if finding.id.startswith(prefix)), False)
        if blocks is None or blocks is gpu.vendor:
            return verdict(LayerState.BLOCKED, VerdictReason.LOWER_LAYER, [finding],
                           reason=finding.title)
    no_gpu = _about(findings, framework, gpu, "torch.no_gpu")
    if framework.gpu_available is False:
        return verdict(LayerState.BLOCKED, VerdictReason.SEES_NO_GPU, no_gpu,
                       **({"below": "yes"} if no_gpu else {}))
    device = matching_device(framework, gpu)
    if framework.gpu_available and (device is not None or not framework.devices):
        warnings = [f for f in findings if f.severity is Severity.WARNING and (
            f.gpu == gpu.index or (concerns(f, framework) and f.gpu is None))]
        extra = {"device": str(device)} if device is not None else {}
        if warnings:
            return verdict(LayerState.WARNING, VerdictReason.USABLE_WITH_WARNING, warnings,
                           warning=warnings[0].title, **extra)
        unfinished = _unfinished_smoke(framework, device)
        if unfinished is not None:
            python = framework.python or "python3"
            return replace(
                verdict(LayerState.WARNING, VerdictReason.USABLE_UNCONFIRMED, (),
                        result=unfinished, **extra),
                fix="Inspect this interpreter on its own: gpuscope then allows its smoke test "
                    "up to 120 s.",
                fix_commands=(f"gpuscope doctor --python {shlex.quote(python)}",))
        return verdict(LayerState.OK, VerdictReason.USABLE, (), **extra)
    if framework.gpu_available and framework.devices:
        return verdict(LayerState.UNKNOWN, VerdictReason.NOT_AMONG_DEVICES)
    usable = any(f.id == "gpu.usable" and f.gpu == gpu.index for f in findings)
    return verdict(LayerState.UNKNOWN, VerdictReason.NOT_REPORTED, (),
                   **({"below": "yes"} if usable else {}))


def _unfinished_smoke(framework: Framework, device: int | None) -> str | None:
    """The words of a smoke test the time budget cut short on this device ("did not finish in
    the 3 s ..."), or None when it finished (or failed) there."""
    for tested, words in _smoke_parts(framework, "unfinished", "did not finish"):
        if tested is None or (device is not None and tested.endswith(f":{device}")):
            return words
    return None


def framework_verdicts(data: DoctorInput, findings: Sequence[Finding],
                       framework: Framework) -> list[FrameworkVerdict]:
    """One verdict per GPU of the machine."""
    return [framework_verdict(data, findings, framework, gpu) for gpu in data.inventory.gpus]


def torch_frameworks(data: DoctorInput) -> list[Framework]:
    """The PyTorch frameworks the doctor judges: inspected, or inspected and broken."""
    return [f for f in data.frameworks if f.name == "torch"]


def _rank(verdict: FrameworkVerdict, gpu: Gpu) -> tuple[int, int, int]:
    wanted = VENDOR_BUILD.get(gpu.vendor or Vendor.OTHER)
    state = {LayerState.OK: 0, LayerState.WARNING: 1, LayerState.BLOCKED: 2,
             LayerState.UNKNOWN: 3, LayerState.NOT_APPLICABLE: 4}[verdict.state]
    return (min(state, 2), 0 if verdict.build == wanted else 1, state)


def gpu_framework_verdict(data: DoctorInput, findings: Sequence[Finding],
                          gpu: Gpu) -> FrameworkVerdict | None:
    """The verdict the Stack page and the `doctor` text show for a GPU's framework layer:
    of every PyTorch inspected, the one that can use it (then the one that can with a caveat),
    else the build meant for this GPU's vendor, blocked before unknown. A machine whose
    inspected interpreters lack PyTorch gets the not-installed verdict; None when no
    interpreter was inspected at all."""
    verdicts = [framework_verdict(data, findings, f, gpu) for f in torch_frameworks(data)]
    if verdicts:
        return min(verdicts, key=lambda v: _rank(v, gpu))  # min keeps the first of equals
    # No framework inspected, but a pasted PyTorch error about this GPU.
    pasted = next((f for f in findings if f.id == "torch.arch_missing" and f.framework is None
                   and f.gpu == gpu.index), None)
    if pasted is not None:
        return FrameworkVerdict(
            framework=FrameworkRef("torch"), gpu=gpu.index, gpu_name=gpu.name,
            state=LayerState.BLOCKED, reason=VerdictReason.ARCH_MISSING,
            params={"target": gpu.gfx_target or gpu.compute_capability or message("this GPU")},
            finding_ids=(pasted.id,), fix=pasted.fix, fix_commands=pasted.fix_commands,
            sources=pasted.sources, causes=(pasted,))
    missing = next((f for f in findings if f.id == "torch.not_installed"), None)
    if missing is None or missing.framework is None:
        return None
    python = missing.framework.python or "?"
    return FrameworkVerdict(
        framework=missing.framework, gpu=gpu.index, gpu_name=gpu.name,
        state=LayerState.WARNING, reason=VerdictReason.NOT_INSTALLED, params={"python": python},
        finding_ids=(missing.id,), fix=missing.fix, fix_commands=missing.fix_commands,
        sources=missing.sources, causes=(missing,))


def is_integrated_beside_discrete(gpu: Gpu, gpus: Sequence[Gpu]) -> bool:
    return gpu.kind is GpuKind.INTEGRATED and any(
        g.kind is GpuKind.DISCRETE and g.vendor is gpu.vendor for g in gpus)
