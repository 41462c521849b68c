"""Framework rules: which PyTorch build each interpreter has, whether it fits the GPUs and the
host's ROCm or NVIDIA driver, and the PyTorch to install where none is. Every finding names
its framework structurally (`Finding.framework`) and carries the shell lines of its fix.

The kernel rules (no code for the GPU's target, a failed smoke test) are in
`rules_torch_kernels`, re-exported here.
"""

from __future__ import annotations

from gpuscope.doctor.inputs import DoctorInput, refs
from gpuscope.doctor.rules_torch_kernels import rule_arch_missing, rule_smoke_failed
from gpuscope.doctor.torch_fixes import (
    COMPUTE_LAYERS,
    PYTORCH_CUDA_URL,
    PYTORCH_HIP_URL,
    check_command,
    hiding_variables,
    install_fix,
    interpreter_for,
)
from gpuscope.doctor.verdicts import built_rocm
from gpuscope.i18n import join, message
from gpuscope.knowledge.cuda import driver_supports
from gpuscope.knowledge.versions import rocm_release
from gpuscope.model import (
    Finding,
    Framework,
    FrameworkRef,
    GpuKind,
    Interpreter,
    Severity,
    Vendor,
)

__all__ = ["rule_arch_missing", "rule_not_installed", "rule_smoke_failed", "rule_torch_builds"]

_VISIBLE_DEVICES = {
    "rocm": ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
             "GPU_DEVICE_ORDINAL"),
    "cuda": ("CUDA_VISIBLE_DEVICES",),
}


def rule_torch_builds(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    amd, nvidia = data.gpus_of(Vendor.AMD), data.gpus_of(Vendor.NVIDIA)
    for torch in data.torch_builds():
        link = FrameworkRef.of(torch)
        if torch.build == "cpu":
            wanted = Vendor.AMD if amd and not nvidia else (Vendor.NVIDIA if nvidia else None)
            detail = message("This build has no GPU backend: torch.cuda.is_available() is False "
                             "whatever the GPU and drivers.")
            title = (message("PyTorch {version} in {python} is a CPU-only build",
                             version=torch.version, python=torch.python) if torch.python
                     else message("PyTorch {version} is a CPU-only build", version=torch.version))
            if wanted is None:
                findings.append(Finding(
                    "torch.cpu_build", Severity.INFO, title,
                    detail=join(" ", [detail, message(
                        "No GPU was found here, so nothing is lost.")]),
                    evidence=torch.evidence, framework=link,
                    sources=(PYTORCH_CUDA_URL,)))
                continue
            fix = install_fix(data, wanted, torch.python, torch.python_version, replace=True)
            findings.append(Finding(
                "torch.cpu_build", Severity.WARNING, title,
                detail=detail, fix=fix.fix, fix_commands=fix.commands, sources=fix.sources,
                evidence=torch.evidence, framework=link))
        elif (torch.build == "cuda" and amd and not nvidia) or (
                torch.build == "rocm" and nvidia and not amd):
            findings.append(_wrong_vendor(data, torch, link))
        elif torch.build in ("rocm", "cuda") and torch.gpu_available is False:
            findings.append(_no_gpu(data, torch))
        findings += _rocm_mismatch(data, torch)
        findings += _driver_too_old(data, torch)
    findings += _undefined_rocm_symbol(data)
    return findings


def _undefined_rocm_symbol(data: DoctorInput) -> list[Finding]:
    """A pasted import error: a library of the host's ROCm lacks a symbol PyTorch wants
    (`rocm.undefined_symbol`, "/opt/rocm-5.7.1/lib/libhipsolver.so.0: undefined symbol: ..."),
    so this PyTorch was built for another ROCm than the one it loaded."""
    signals = data.signals_of("rocm.undefined_symbol")
    if not signals or any(f.build == "rocm" and f.version for f in data.frameworks):
        return []  # an inspected ROCm build is judged by its own versions
    host = rocm_release(data.inventory.stack.rocm_version)
    fix = install_fix(data, Vendor.AMD, None, replace=True)
    line = (signals[0].evidence[0].text if signals[0].evidence else None) or signals[0].detail
    return [Finding(
        "torch.rocm_mismatch", Severity.ERROR,
        message("PyTorch was built for another ROCm than the host's ROCm {version}",
                version=f"{host[0]}.{host[1]}") if host else
        message("PyTorch was built for another ROCm than the host's ROCm"),
        detail=message("Importing it fails: \"{error}\". A library of the host's ROCm "
                       "lacks a function this PyTorch was linked against, so the two are from "
                       "different ROCm releases.", error=line),
        fix=fix.fix, fix_commands=fix.commands, sources=fix.sources,
        evidence=refs(signals))]


def _no_gpu(data: DoctorInput, torch: Framework) -> Finding:
    hidden = hiding_variables(data, _VISIBLE_DEVICES[torch.build])
    if hidden:
        detail = message("The build has a GPU backend, yet torch.cuda.is_available() is False: "
                         "{variables} is set so that it hides every GPU.",
                         variables=", ".join(hidden))
        fix = message("Unset {variables} (or set it to the GPUs to use).",
                      variables=", ".join(hidden))
        commands = tuple(f"unset {name}" for name in hidden)
    else:
        detail = message("The build has a GPU backend, yet torch.cuda.is_available() is False: "
                         "a layer below it (driver, device nodes, runtime) blocks it; see the "
                         "other findings.")
        fix = message("Fix the layer the other findings name; the command prints whether "
                      "PyTorch sees a GPU, and its own error when it does not.")
        commands = (check_command(data, torch),)
    build = torch.build.upper()
    return Finding(
        "torch.no_gpu", Severity.ERROR,
        message("PyTorch {version} in {python} is a {build} build but sees no GPU",
                version=torch.version, python=torch.python, build=build) if torch.python else
        message("PyTorch {version} is a {build} build but sees no GPU", version=torch.version,
                build=build),
        detail=detail, fix=fix, fix_commands=commands,
        sources=(PYTORCH_HIP_URL if torch.build == "rocm" else PYTORCH_CUDA_URL,),
        evidence=torch.evidence, framework=FrameworkRef.of(torch))


def _wrong_vendor(data: DoctorInput, torch: Framework, link: FrameworkRef) -> Finding:
    """A CUDA build where the GPUs are AMD, or a ROCm build where they are NVIDIA."""
    on_amd = torch.build == "cuda"
    fix = install_fix(data, Vendor.AMD if on_amd else Vendor.NVIDIA, torch.python,
                      torch.python_version, replace=True)
    build, vendor, wanted = ("CUDA", "AMD", "ROCm") if on_amd else ("ROCm", "NVIDIA", "CUDA")
    return Finding(
        "torch.cuda_build_on_amd" if on_amd else "torch.rocm_build_on_nvidia", Severity.ERROR,
        message("PyTorch {version} in {python} is a {build} build, but the GPUs are {vendor}",
                version=torch.version, python=torch.python, build=build, vendor=vendor)
        if torch.python else
        message("PyTorch {version} is a {build} build, but the GPUs are {vendor}",
                version=torch.version, build=build, vendor=vendor),
        detail=message("A {build} build cannot use {vendor} GPUs; install a {wanted} build.",
                       build=build, vendor=vendor, wanted=wanted),
        fix=fix.fix, fix_commands=fix.commands, sources=fix.sources,
        evidence=torch.evidence, framework=link)


def _rocm_mismatch(data: DoctorInput, torch: Framework) -> list[Finding]:
    if torch.build != "rocm":
        return []
    built, host = built_rocm(torch), rocm_release(data.inventory.stack.rocm_version)
    if built is None or host is None or built == host[:2]:
        return []
    fix = install_fix(data, Vendor.AMD, torch.python, torch.python_version, replace=True)
    return [Finding(
        "torch.rocm_mismatch", Severity.WARNING,
        message("PyTorch {version} was built for ROCm {built}, the host has ROCm {host}",
                version=torch.version, built=f"{built[0]}.{built[1]}",
                host=f"{host[0]}.{host[1]}"),
        detail=message("PyTorch's ROCm wheels bring their own ROCm libraries, but they still "
                       "need a kernel driver new enough for them, and extensions built against "
                       "the host's ROCm will not match this PyTorch."),
        fix=fix.fix, fix_commands=fix.commands, sources=fix.sources,
        evidence=torch.evidence, framework=FrameworkRef.of(torch),
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
    install = install_fix(data, Vendor.NVIDIA, torch.python, torch.python_version,
                          replace=True)
    needed = verdict.requirement.min_driver if verdict.requirement else None
    update = (message("Update the NVIDIA driver to {version} or newer, or install a PyTorch "
                      "built for a CUDA this driver runs.", version=needed) if needed
              else message("Update the NVIDIA driver, or install a PyTorch built for a CUDA "
                           "this driver runs."))
    fix = join(" ", [update, install.fix])
    urls = verdict.requirement.urls if verdict.requirement else ()
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR if too_old else Severity.WARNING,
        message("NVIDIA driver {driver} is older than CUDA {cuda} of this PyTorch wants",
                driver=driver, cuda=torch.build_version),
        detail=verdict.note, fix=fix, fix_commands=install.commands,
        sources=tuple(dict.fromkeys(urls + install.sources)),
        evidence=torch.evidence, framework=FrameworkRef.of(torch),
    )]


# ----------------------------------------------------------------------------- not installed

# Where an interpreter came from, most likely the user's own first.
_WHY_ORDER = ("VIRTUAL_ENV", "CONDA_PREFIX", "settings", "python3", "python", "gpuscope")


def _preference(interpreter: Interpreter) -> int:
    why = (interpreter.why or "").lower()
    return next((n for n, key in enumerate(_WHY_ORDER) if key.lower() in why), len(_WHY_ORDER))


def rule_not_installed(data: DoctorInput) -> list[Finding]:
    """A GPU that can compute, interpreters inspected, and PyTorch in none of them: the
    command that installs the build for this GPU and stack into the likeliest one."""
    inspected = [i for i in data.interpreters if i.inspected]
    lacking = [i for i in inspected if "torch" in i.not_installed]
    if not lacking or any(f.name == "torch" and f.version for f in data.frameworks):
        return []
    able = [g for g in data.inventory.gpus
            if any(layer in g.seen_by for layer in COMPUTE_LAYERS.get(g.vendor or Vendor.OTHER,
                                                                       ()))]
    if not able:
        return []
    gpu = min(able, key=lambda g: 0 if g.kind is not GpuKind.INTEGRATED else 1)
    vendor = gpu.vendor or Vendor.AMD
    target = min(lacking, key=_preference)
    python = target.executable or target.python
    fix = install_fix(data, vendor, python, target.python_version, replace=False)
    names = ", ".join(f"{i.python} ({i.why})" if i.why else i.python for i in inspected)
    target_name = gpu.gfx_target or gpu.compute_capability
    what = gpu.name or message("The GPU")
    return [Finding(
        "torch.not_installed", Severity.WARNING,
        message("PyTorch is not installed in {python}", python=python) if len(inspected) == 1
        else message("PyTorch is not installed in any interpreter inspected"),
        detail=message("{gpu} ({target}) can compute, but none of the interpreters inspected "
                       "has PyTorch: {interpreters}.", gpu=what, target=target_name,
                       interpreters=names) if target_name else
        message("{gpu} can compute, but none of the interpreters inspected has PyTorch: "
                "{interpreters}.", gpu=what, interpreters=names),
        fix=fix.fix, fix_commands=fix.commands, sources=fix.sources,
        gpu=gpu.index if len(able) == 1 else None,
        framework=FrameworkRef("torch", interpreter_for(data, python), None),
    )]
