"""Kernel rules: a PyTorch with no code for a GPU's target (`torch.arch_missing`, from a pasted
error, the build's arch list, or a smoke test that died with hipErrorNoBinaryForGpu, "invalid
device function" or CUDA's "no kernel image is available"), and a smoke test that failed for
another reason (`torch.smoke_failed`, quoting the error and naming its cause)."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.inputs import DoctorInput, blocked_targets, first_sentences, refs
from gpuscope.doctor.torch_fixes import (
    PYTORCH_CUDA_URL,
    PYTORCH_HIP_URL,
    install_fix,
    interpreter_for,
    repeat_test_command,
)
from gpuscope.doctor.verdicts import (
    ArchCoverage,
    SmokeFailure,
    arch_coverage,
    is_integrated_beside_discrete,
    override_target,
    smoke_failures,
)
from gpuscope.i18n import join, message
from gpuscope.knowledge.cuda import cuda_table, parse_cc
from gpuscope.knowledge.overrides import OverrideAdvice, hsa_override_for
from gpuscope.knowledge.torch_builds import wheel_table
from gpuscope.knowledge.wheel_choice import choose_cuda_wheel
from gpuscope.model import (
    EvidenceRef,
    Finding,
    Framework,
    FrameworkRef,
    Gpu,
    Severity,
    Signal,
    Vendor,
)

# What a failed smoke test's message means, and what to do, in plain words.
# (Messages: English here, shown translated by the views.)
SMOKE_CAUSE_TEXTS: dict[str, tuple[str, str]] = {
    "out_of_memory": (
        message("The GPU ran out of memory for a tiny test: another process holds its memory."),
        message("Close the programs that use the GPU and run again; the command lists them.")),
    "driver_too_old": (
        message("The NVIDIA driver is older than this build's CUDA needs."),
        message("Install a PyTorch built for a CUDA this driver runs, or update the driver.")),
    "ptx_toolchain": (
        message("The build's PTX was made by a newer CUDA than this driver can compile."),
        message("Install a PyTorch built for a CUDA this driver runs, or update the driver.")),
    "no_device": (
        message("The runtime found no usable device although PyTorch listed one: device "
                "permissions, or a *_VISIBLE_DEVICES variable."),
        message("See the device-node and visible-devices findings; the command repeats the "
                "test with its full error.")),
    "wrong_result": (
        message("The GPU computed a wrong result: usually an HSA_OVERRIDE_GFX_VERSION naming a "
                "target whose code does not fit this GPU."),
        message("Unset HSA_OVERRIDE_GFX_VERSION, or set the value documented for this GPU.")),
    "timeout": (
        message("The test hung until it was killed: the GPU or its driver stopped answering."),
        message("Repeat the test to see where it hangs, and read the kernel log for amdgpu or "
                "NVRM errors.")),
    "hsa_init": (
        message("The ROCm runtime (HSA) failed to start on the device."),
        message("See the device-node and runtime findings; the command repeats the test with "
                "its full error.")),
    "crash": (
        message("The test process crashed. On ROCm a crash on the first operation usually "
                "means that no code for the GPU's target was loaded (a missing target, or a "
                "wrong HSA_OVERRIDE_GFX_VERSION)."),
        message("Repeat the test to see the full error.")),
    "other": ("", message("Repeat the test to see the full error.")),
}


def rule_arch_missing(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    amd = data.gpus_of(Vendor.AMD)
    reported: set[tuple[FrameworkRef | None, int | None]] = set()
    # A pasted error names no framework: one finding per GPU it names.
    for target, signals in blocked_targets(data).items():
        gpu = next((g for g in amd if g.gfx_target == target), None) if target else (
            amd[0] if len(amd) == 1 else None)
        if gpu is None and not target and len(data.gpus_of(Vendor.NVIDIA)) == 1:
            gpu = data.gpus_of(Vendor.NVIDIA)[0]
        gfx = target or (gpu.gfx_target if gpu else None)
        what = signals[0].evidence[0].text if signals[0].evidence else signals[0].kind
        backend = Vendor.NVIDIA if all(s.kind.startswith("cuda.") for s in signals) \
            else Vendor.AMD
        # PyTorch's warning names the capability ("sm_120") when nothing else does.
        named = next((parse_cc(s.detail) for s in signals if s.detail and parse_cc(s.detail)),
                     None)
        cc = f"{named[0]}.{named[1]}" if named and backend is Vendor.NVIDIA else None
        shown = gfx or (f"sm_{cc.replace('.', '')}" if cc else message("this GPU"))
        detail = message("The framework found no kernels compiled for {target} ({error}): the "
                         "build's list of GPU targets does not include it.",
                         target=shown, error=what)
        findings.append(_arch_finding(data, gfx, gpu, detail, refs(signals),
                                      _printed_by(data, signals), backend,
                                      shown, cc))
        reported.add((None, gpu.index if gpu else None))
    # Each PyTorch against each GPU: its arch list, and a smoke test that found no kernels.
    for torch in data.torch_builds():
        if torch.build not in ("rocm", "cuda"):
            continue
        link = FrameworkRef.of(torch)
        no_kernels = {f.gpu: f for f in smoke_failures(data, torch) if f.cause == "no_kernels"}
        for gpu in data.inventory.gpus:
            if (None, gpu.index) in reported or (link, gpu.index) in reported:
                continue
            coverage = arch_coverage(data, torch, gpu)
            failure = no_kernels.get(gpu.index) or (
                no_kernels.get(None) if coverage.how != "not_applicable" else None)
            if failure is None and coverage.covered is not False:
                continue
            if failure is None and is_integrated_beside_discrete(gpu, data.inventory.gpus):
                continue  # the iGPU is hidden, not served (rocm.igpu_enumerated says how)
            findings.append(_framework_arch_finding(data, torch, gpu, coverage, failure))
            reported.add((link, gpu.index))
    return findings


def _printed_by(data: DoctorInput, signals: Sequence[Signal]) -> Framework | None:
    """The one PyTorch read from the file that printed these errors (its own warning names
    its interpreter), or None."""
    files = {ref.source for signal in signals for ref in signal.evidence}
    found = [f for f in data.frameworks if f.name == "torch"
             and any(ref.source in files for ref in f.evidence)]
    return found[0] if len(found) == 1 else None


def _framework_arch_finding(data: DoctorInput, torch: Framework, gpu: Gpu,
                            coverage: ArchCoverage, failure: SmokeFailure | None) -> Finding:
    shown = coverage.target or gpu.gfx_target or message("this GPU")
    archs = ", ".join(coverage.arch_list)
    if failure is not None:
        detail = message("Its smoke test on {gpu} failed with \"{error}\": the build has no "
                         "kernels for {target}.", gpu=gpu.name or message("the GPU"),
                         error=failure.message, target=shown)
    elif torch.build == "cuda":
        cc = shown.removeprefix("sm_")
        detail = message("PyTorch {version} carries code for {archs}; a GPU of compute "
                         "capability {capability} needs a cubin of the same major version and "
                         "an equal or lower minor one, or PTX of an equal or lower capability, "
                         "so CUDA will report \"no kernel image is available\".",
                         version=torch.version, archs=archs, capability=f"{cc[:-1]}.{cc[-1:]}")
    elif coverage.arch_list and coverage.from_table:
        detail = message("The official wheels of PyTorch {version} carry code for {archs}; "
                         "{target} is not among them, so its first GPU operation will fail.",
                         version=torch.version, archs=archs, target=shown)
    elif coverage.arch_list:
        detail = message("This build of PyTorch {version} carry code for {archs}; {target} is "
                         "not among them, so its first GPU operation will fail.",
                         version=torch.version, archs=archs, target=shown)
    else:
        detail = message("No official PyTorch wheel carries code for {target}, so its first "
                         "GPU operation will fail.", target=shown)
    vendor = Vendor.NVIDIA if torch.build == "cuda" else Vendor.AMD
    evidence = torch.evidence
    return _arch_finding(data, gpu.gfx_target if vendor is Vendor.AMD else None, gpu, detail,
                         evidence, torch, vendor, shown)


def _arch_finding(data: DoctorInput, gfx: str | None, gpu: Gpu | None, detail: str,
                  evidence: Sequence[EvidenceRef], torch: Framework | None, vendor: Vendor,
                  shown: str | None = None, cc: str | None = None) -> Finding:
    shown = shown or gfx or message("this GPU")
    python = torch.python if torch else None
    advice = (hsa_override_for(gfx) if vendor is Vendor.AMD and gfx and gfx.startswith("gfx")
              and override_target(data) is None else None)
    if advice is not None and advice.pretends_to_be != gfx:
        detail = join(" ", [detail, message(
            "Running it as {target} is the usual workaround: {caveat}",
            target=advice.pretends_to_be, caveat=first_sentences(advice.caveat, 2))])
        fix = message("Set {assignment} before starting Python, so that the GPU runs the code "
                      "built for {target}; or install a build that carries {shown}.",
                      assignment=advice.assignment, target=advice.pretends_to_be, shown=shown)
        commands: tuple[str, ...] = (f"export {advice.assignment}",)
        sources = advice.urls + _arch_urls(vendor)
    else:
        install = install_fix(data, vendor, python, torch.python_version if torch else None,
                              replace=torch is not None, compute_capability=cc)
        if install.covers_target:
            fix, commands = install.fix, install.commands
        elif install.covers_target is None:
            fix = join(" ", [message("Install a build with kernels for {target}.", target=shown),
                             install.fix])
            commands = install.commands
        else:
            fix = join(" ", [message("No official PyTorch wheel is known to carry {target}: "
                                     "build PyTorch from source for it, or use a build made "
                                     "for it.", target=shown), install.fix])
            commands = ()
        sources = install.sources + _arch_urls(vendor)
    return Finding(
        "torch.arch_missing", Severity.ERROR,
        message("The framework has no kernels for {target}", target=shown),
        detail=detail, fix=fix, fix_commands=commands,
        sources=tuple(dict.fromkeys(sources)), gpu=gpu.index if gpu else None,
        evidence=tuple(evidence), framework=FrameworkRef.of(torch) if torch else None)


def _arch_urls(vendor: Vendor) -> tuple[str, ...]:
    table = wheel_table()
    if vendor is Vendor.AMD:
        return table.never_urls
    return tuple(dict.fromkeys(url for row in table.cuda_arch for url in row.urls))[:2]


def _advice_urls(advice: OverrideAdvice | None) -> tuple[str, ...]:
    return advice.urls if advice is not None else ()


# ----------------------------------------------------------------------------- smoke test


def rule_smoke_failed(data: DoctorInput) -> list[Finding]:
    """A smoke test that failed for a reason other than missing kernels (those are
    `torch.arch_missing`, from rule_arch_missing)."""
    findings: list[Finding] = []
    for torch in data.torch_builds():
        if torch.build not in ("rocm", "cuda"):
            continue
        for failure in smoke_failures(data, torch):
            if failure.cause == "no_kernels":
                continue
            gpu = next((g for g in data.inventory.gpus if g.index == failure.gpu), None)
            if gpu is not None and arch_coverage(data, torch, gpu).covered is False:
                continue  # torch.arch_missing already says why it fails there
            findings.append(_smoke_finding(data, torch, failure, gpu))
    return findings


def _smoke_finding(data: DoctorInput, torch: Framework, failure: SmokeFailure,
                   gpu: Gpu | None) -> Finding:
    meaning, advice = SMOKE_CAUSE_TEXTS.get(failure.cause, SMOKE_CAUSE_TEXTS["other"])
    on = gpu.name if gpu is not None and gpu.name else failure.device
    detail = (message("PyTorch {version} sees the GPU, but a 256×256 matrix product on "
                      "{device} failed: \"{error}\".", version=torch.version, device=on,
                      error=failure.message) if on else
              message("PyTorch {version} sees the GPU, but a 256×256 matrix product failed: "
                      "\"{error}\".", version=torch.version, error=failure.message))
    if meaning:
        detail = join(" ", [detail, meaning])
    repeat = repeat_test_command(data, torch, failure.device)
    commands: tuple[str, ...] = (repeat,)
    sources: tuple[str, ...] = (PYTORCH_HIP_URL if torch.build == "rocm" else PYTORCH_CUDA_URL,)
    if failure.cause == "out_of_memory":
        commands = ("rocm-smi --showpids",) if torch.build == "rocm" else (
            "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",)
    elif failure.cause in ("driver_too_old", "ptx_toolchain"):
        choice = choose_cuda_wheel(data.inventory.stack.nvidia_driver_version,
                                   gpu.compute_capability if gpu else None, data.os,
                                   torch.python_version)
        commands = choice.commands(interpreter_for(data, torch.python), replace=True) or (
            repeat,)
        advice = join(" ", [advice, choice.note])
        sources += choice.urls
    elif failure.cause == "wrong_result" and override_target(data) is not None:
        commands = ("unset HSA_OVERRIDE_GFX_VERSION", repeat)
    elif failure.cause == "timeout":
        commands = (repeat, "sudo dmesg --level=err,warn | tail -n 50")
    elif failure.cause in ("crash", "wrong_result"):
        advice_row = hsa_override_for(gpu.gfx_target) if gpu and gpu.gfx_target else None
        sources += _advice_urls(advice_row)
    if failure.cause in ("driver_too_old", "ptx_toolchain"):
        sources += tuple(dict.fromkeys(url for row in cuda_table().toolkits[-1:]
                                       for url in row.urls))
    return Finding(
        "torch.smoke_failed", Severity.ERROR,
        message("PyTorch {version} sees the GPU, but a test operation on it fails",
                version=torch.version),
        detail=detail, fix=advice, fix_commands=commands,
        sources=tuple(dict.fromkeys(sources)), gpu=gpu.index if gpu else None,
        evidence=torch.evidence, framework=FrameworkRef.of(torch))
