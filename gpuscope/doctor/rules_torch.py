"""Framework rules: which PyTorch build each interpreter has, and whether it can use the GPUs."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.inputs import DoctorInput, blocked_targets, first_sentences, major_minor, refs
from gpuscope.knowledge.cuda import driver_supports
from gpuscope.knowledge.overrides import hsa_override_for
from gpuscope.knowledge.torch_builds import default_arch_list, install_command
from gpuscope.model import (
    Finding,
    Framework,
    Gpu,
    GpuKind,
    Severity,
    Signal,
    Vendor,
)


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
    host = major_minor(data.inventory.stack.rocm_version)
    built = major_minor(torch.build_version)
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
    blocked = blocked_targets(data)
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
                   f"{first_sentences(advice.caveat, 2)}")
    else:
        fix = (f"Install a build that includes this target ({install_command(backend)}), "
               "or build from source")
    return Finding(
        "torch.arch_missing", Severity.ERROR, f"The framework has no kernels for {shown}",
        detail=detail, fix=fix, gpu=gpu.index if gpu else None,
        evidence=refs(signals) or (torch.evidence if torch else ()),
    )

