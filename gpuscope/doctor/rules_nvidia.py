"""NVIDIA rules: the driver (and the GPUs its kernel module refuses, rules_nvidia_kernel), NVML,
MIG, a CUDA toolkit newer than the driver, and a driver PyTorch itself calls too old."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.fixes import (
    NVIDIA_CUDA_COMPATIBILITY_URL,
    NVIDIA_MIG_URL,
    NVIDIA_WSL_URL,
    in_container,
)
from gpuscope.doctor.inputs import DoctorInput, refs, version_tuple
from gpuscope.doctor.rules_nvidia_kernel import module_missing_finding, refusal_findings
from gpuscope.doctor.rules_platform import guest_without_gpu
from gpuscope.doctor.torch_fixes import install_fix
from gpuscope.i18n import join, message
from gpuscope.model import (
    EvidenceRef,
    Finding,
    FrameworkRef,
    Gpu,
    Layer,
    Severity,
    Signal,
    Vendor,
)


def rule_nvidia(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    mismatch = data.signals_of("nvml.driver_library_mismatch")
    if mismatch:
        findings.append(_mismatch_finding(data, mismatch))
    # The kernel module's own word on a GPU it refuses says why, and its fix replaces the
    # generic one (under WSL there is no NVIDIA kernel module to refuse anything).
    refused = refusal_findings(data) if data.os != "wsl" else []
    findings += refused
    not_loaded = data.signals_of("nvidia.driver_not_loaded")
    unbound = [g for g in data.gpus_of(Vendor.NVIDIA)
               if g.kernel_driver not in (None, "nvidia") and Layer.NVML not in g.seen_by]
    # modprobe's "Module nvidia not found in directory /lib/modules/<release>" speaks of the
    # running kernel only on a host (a container has its image's /lib/modules, WSL none).
    missing = [] if data.os == "wsl" or in_container(data) or any(
        Layer.NVML in g.seen_by for g in data.gpus_of(Vendor.NVIDIA)) else (
        data.signals_of("nvidia.module_missing"))
    if (not_loaded or unbound or missing) and not mismatch and not refused and (
            Vendor.NVIDIA not in guest_without_gpu(data)[0]):
        findings.append(module_missing_finding(data, missing, not_loaded) if missing
                        else _not_loaded_finding(data, not_loaded, unbound))
    mig = data.signals_of("nvidia.mig_enabled")
    # Live NVML records MIG as a stack extra per bus; pasted nvidia-smi as a signal.
    # Compare buses by "bb:dd.f": nvidia-smi writes 8-digit domains, sysfs 4.
    mig_buses = {(s.detail or "").lower()[-7:] for s in mig} | {
        key.split(":", 1)[1].lower()[-7:]
        for key, on in data.inventory.stack.extras.items()
        if key.startswith("nvml_mig_enabled:") and on is True
    }
    mig_buses.discard("")
    for gpu in data.gpus_of(Vendor.NVIDIA):
        if gpu.pci_bus and gpu.pci_bus.lower()[-7:] in mig_buses:
            findings.append(_mig_finding(gpu.index, mig))
    if mig and not any(f.id == "nvidia.mig_enabled" for f in findings):
        findings.append(_mig_finding(None, mig))
    findings += _toolkit_newer_than_driver(data)
    findings += _driver_insufficient(data)
    return findings


def _versions(data: DoctorInput, mismatch: Sequence[Signal]) -> list[str]:
    """What the evidence says of the two versions: the signals' own words ("client 367.44,
    kernel module 367.35"), then the versions the stack shows that they do not name: the loaded
    module's (/proc/driver/nvidia/version, NVRM), the installed user-space driver's (its
    packages) and NVML's."""
    stack = data.inventory.stack
    said = list(dict.fromkeys(s.detail for s in mismatch if s.detail))
    named = " ".join(said)
    userspace = stack.extras.get("nvidia_userspace_version")
    loaded = stack.nvidia_driver_version
    sources = stack.field_sources
    if loaded and userspace is not None and sources.get("nvidia_driver_version") == \
            sources.get("nvidia_userspace_version"):
        loaded = None  # both read from the packages: what is installed, not what is loaded
    parts = []
    for version, words in (
            (loaded, message("the loaded kernel module is {version}", version=loaded)),
            (str(userspace) if userspace is not None else None,
             message("the installed user-space driver is {version}", version=userspace)),
            (stack.nvml_library_version, message("the installed libraries are {version}",
                                                 version=stack.nvml_library_version))):
        if version and version not in named:
            parts.append(words)
            named += " " + version
    sentences = ([message("Versions seen: {versions}.", versions="; ".join(said))]
                 if said else [])
    if parts:
        listed = parts[0] if len(parts) == 1 else message(
            "{first} and {last}", first=join(", ", parts[:-1]), last=parts[-1])
        sentences.append(message("Here {versions}.", versions=listed))
    return sentences


def _mismatch_finding(data: DoctorInput, mismatch: Sequence[Signal]) -> Finding:
    detail = [message("The NVIDIA kernel module that is loaded is not the version of the "
                      "installed user-space libraries (libnvidia-ml): usually a driver update "
                      "without a reboot."), *_versions(data, mismatch)]
    title = message("NVIDIA driver and library versions do not match")
    if data.os == "wsl":
        return Finding(
            "nvidia.driver_library_mismatch", Severity.ERROR, title,
            detail=join(" ", [*detail, message("Under WSL both come from the Windows driver.")]),
            fix=message("Restart WSL after the Windows driver update: run wsl --shutdown in a "
                        "Windows terminal, then open WSL again. Do not install a Linux NVIDIA "
                        "driver inside WSL."),
            evidence=refs(mismatch), sources=(NVIDIA_WSL_URL,),
        )
    container = in_container(data)
    if container:
        detail.append(message("A container gets both from its host."))
    return Finding(
        "nvidia.driver_library_mismatch", Severity.ERROR, title,
        detail=join(" ", detail),
        fix=(message("Reboot the host (the container uses the host's driver), then start the "
                     "container again.") if container else
             message("Reboot, so that the kernel module matches the updated libraries "
                     "(unloading and reloading the nvidia modules does the same when nothing "
                     "uses the GPU).")),
        fix_commands=() if container else ("sudo reboot",),
        evidence=refs(mismatch),
    )


def _not_loaded_finding(data: DoctorInput, not_loaded: Sequence[Signal],
                        unbound: Sequence[Gpu]) -> Finding:
    detail = (message("nvidia-smi cannot talk to the driver.") if not_loaded else
              message("{gpu} is bound to {driver}, not nvidia.", gpu=unbound[0].name,
                      driver=unbound[0].kernel_driver))
    gpu = unbound[0].index if unbound else None
    if data.os == "wsl":
        return Finding(
            "nvidia.driver_not_loaded", Severity.ERROR,
            message("The NVIDIA driver is not reachable"),
            detail=join(" ", [detail, message(
                "Under WSL the GPU is reached through the Windows driver.")]),
            fix=message("Install or update the NVIDIA driver on Windows (it provides the GPU "
                        "to WSL) and restart WSL with wsl --shutdown; do not install a Linux "
                        "NVIDIA driver inside WSL."),
            gpu=gpu, evidence=refs(not_loaded), sources=(NVIDIA_WSL_URL,),
        )
    other = unbound[0].kernel_driver if unbound and not not_loaded else None
    if other is not None:
        # Another driver holds the GPU (nouveau, vfio-pci): loading nvidia cannot take it over.
        fix = (message("The GPU is bound to {driver}, not to NVIDIA's driver. Install NVIDIA's "
                       "driver for the running kernel (on Ubuntu: sudo ubuntu-drivers "
                       "install), which blacklists nouveau, then reboot.", driver=other)
               if other == "nouveau" else
               message("The GPU is bound to {driver}, not to NVIDIA's driver. Install NVIDIA's "
                       "driver for the running kernel (on Ubuntu: sudo ubuntu-drivers "
                       "install), which needs {driver} to release the GPU first, then reboot.",
                       driver=other))
        commands: tuple[str, ...] = ()
    else:
        fix = message("Load the nvidia module; if that fails, reinstall the driver for the "
                      "running kernel (on Ubuntu: sudo ubuntu-drivers install) and check that "
                      "Secure Boot accepts the module's signature.")
        commands = ("sudo modprobe nvidia",)
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR, message("The NVIDIA driver is not loaded"),
        detail=detail, fix=fix, fix_commands=commands,
        gpu=gpu, evidence=refs(not_loaded),
    )


def _mig_finding(gpu: int | None, signals: Sequence[Signal]) -> Finding:
    return Finding(
        "nvidia.mig_enabled", Severity.INFO, message("MIG mode is on"),
        detail=message("The GPU is split into MIG instances: CUDA programs see an instance, not "
                       "the whole GPU, and must be pointed at one by its UUID in "
                       "CUDA_VISIBLE_DEVICES."),
        fix=message("List the MIG instances and their UUIDs, then set CUDA_VISIBLE_DEVICES to "
                    "one."),
        fix_commands=("nvidia-smi -L",),
        gpu=gpu, evidence=refs(signals), sources=(NVIDIA_MIG_URL,),
    )


def _toolkit_newer_than_driver(data: DoctorInput) -> list[Finding]:
    """nvcc's CUDA above the driver's CUDA: programs built with it need minor-version
    compatibility (same major) or fail outright (newer major)."""
    stack = data.inventory.stack
    toolkit = stack.extras.get("cuda_toolkit_version")
    driver_cuda = version_tuple(stack.cuda_driver_version)
    toolkit_version = version_tuple(str(toolkit)) if toolkit is not None else None
    if driver_cuda is None or toolkit_version is None or toolkit_version[:2] <= driver_cuda[:2]:
        return []
    newer_major = toolkit_version[0] > driver_cuda[0]
    cuda_wanted = ".".join(str(p) for p in toolkit_version[:2])
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR if newer_major else Severity.WARNING,
        message("The CUDA toolkit ({toolkit}) is newer than the driver's CUDA ({driver_cuda})",
                toolkit=toolkit, driver_cuda=stack.cuda_driver_version),
        detail=(message("Programs built with this toolkit need a driver that supports its "
                        "CUDA version.") if newer_major else
                message("Programs built with this toolkit need a driver that supports its "
                        "CUDA version; within one major version they run through "
                        "minor-version compatibility, without newer features.")),
        fix=(message("Update the NVIDIA driver to one that lists CUDA {version} or newer in "
                     "nvidia-smi (under WSL: the Windows driver).", version=cuda_wanted)
             if data.os == "wsl" else
             message("Update the NVIDIA driver to one that lists CUDA {version} or newer in "
                     "nvidia-smi.", version=cuda_wanted)),
        evidence=(EvidenceRef(stack.field_sources.get("cuda_toolkit_version", "nvcc")),),
        sources=(NVIDIA_CUDA_COMPATIBILITY_URL,),
    )]


def _driver_insufficient(data: DoctorInput) -> list[Finding]:
    """PyTorch's own word that the driver is too old for its CUDA ("found version 11080",
    "CUDA driver version is insufficient"), when no PyTorch of known CUDA version is there for
    rules_torch to judge against the driver."""
    signals = data.signals_of("cuda.driver_insufficient")
    if not signals or any(t.build == "cuda" and t.build_version for t in data.torch_builds()):
        return []
    files = {ref.source for signal in signals for ref in signal.evidence}
    printed = [f for f in data.frameworks if f.name == "torch" and f.build == "cuda"
               and any(ref.source in files for ref in f.evidence)]
    torch = printed[0] if len(printed) == 1 else None
    stack = data.inventory.stack
    detail = [message("PyTorch says so: \"{error}\"; it cannot use the GPU until the driver or "
                      "PyTorch changes.",
                      error=(signals[0].evidence[0].text if signals[0].evidence else None)
                      or signals[0].kind)]
    if stack.cuda_driver_version:
        detail.append(message("It supports CUDA {version} at most.",
                              version=stack.cuda_driver_version))
    words = [message("Update the NVIDIA driver to one that supports the CUDA version of this "
                     "PyTorch, or install a PyTorch built for a CUDA this driver runs.")]
    commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = (NVIDIA_CUDA_COMPATIBILITY_URL,)
    # The driver's version, or the CUDA version it reports, chooses a wheel it can run.
    if stack.nvidia_driver_version or stack.cuda_driver_version:
        install = install_fix(data, Vendor.NVIDIA, torch.python if torch else None,
                              torch.python_version if torch else None, replace=True)
        words.append(install.fix)
        commands = install.commands
        sources += install.sources
    return [Finding(
        "nvidia.driver_too_old", Severity.ERROR,
        message("The NVIDIA driver is too old for the CUDA of this PyTorch"),
        detail=join(" ", detail),
        fix=join(" ", [*words, message("(Under WSL: the Windows driver.)")]
                 if data.os == "wsl" else words),
        fix_commands=commands, sources=tuple(dict.fromkeys(sources)),
        evidence=refs(signals), framework=FrameworkRef.of(torch) if torch else None,
    )]
