"""The NVIDIA kernel module's own word that it will not drive a GPU: a GPU only a legacy
branch supports, the open module without the GPU's GSP, a GPU only the open module drives, a GPU
this release does not know. Each is `nvidia.driver_not_loaded` for that GPU, with the fix the
kernel's words point to (never a newer driver for a GPU that newer branches dropped)."""

from __future__ import annotations

import re

from gpuscope.doctor.inputs import DoctorInput, refs
from gpuscope.i18n import join, message
from gpuscope.knowledge.cuda import has_gsp, kernel_module_urls
from gpuscope.model import Finding, Gpu, Layer, Severity, Signal, Vendor

NVIDIA_LEGACY_GPUS_URL = "https://www.nvidia.com/object/IO_32667.html"
NVIDIA_DRIVER_DOWNLOADS_URL = "https://www.nvidia.com/Download/index.aspx"
NVIDIA_MODULE_SWITCH_URL = (
    "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/advanced-options.html")
NIXOS_NVIDIA_URL = "https://wiki.nixos.org/wiki/NVIDIA"
DKMS_MANUAL_URL = "https://man.archlinux.org/man/dkms.8.en"

REFUSAL_KINDS = ("nvidia.legacy_gpu", "nvidia.open_module_unsupported",
                 "nvidia.open_module_required", "nvidia.device_unsupported")

# Ubuntu and the distributions built on its packages (nvidia-driver-<branch>[-open]).
_UBUNTU_FAMILY = re.compile(r"ubuntu|pop!?_?os|linux mint|elementary|zorin|kubuntu|xubuntu",
                            re.IGNORECASE)
# Distributions whose kernel headers are the package linux-headers-<release> (Debian's and
# Ubuntu's families).
_APT_HEADERS_FAMILY = re.compile(r"ubuntu|debian|pop!?_?os|linux mint|elementary|zorin|kali|"
                                 r"kubuntu|xubuntu|neon|proxmox", re.IGNORECASE)
# A kernel release a command may name bare ("5.17.5-76051705-generic").
_RELEASE_WORD = re.compile(r"[0-9][\w.+~-]{0,79}")
_BRANCH = re.compile(r"^(\d{2,3})\.")
# The oldest branches Ubuntu's current releases package, and NixOS's nvidiaPackages.legacy_*.
_UBUNTU_OLDEST_BRANCH = 470
_UBUNTU_OLDEST_OPEN_BRANCH = 515  # the first branch with the open kernel modules
_NIXOS_OLDEST_LEGACY = 340
# The last branch whose proprietary module drives Maxwell, Pascal and Volta GPUs.
_LAST_BRANCH_BEFORE_TURING = 580
_NOUVEAU_ERA = 390  # legacy branches older than this run only on old kernels and X servers


def refusal_findings(data: DoctorInput) -> list[Finding]:
    """One `nvidia.driver_not_loaded` per GPU the kernel module refuses, in its own words."""
    findings: list[Finding] = []
    seen: set[int | None] = set()
    for kind in REFUSAL_KINDS:
        for signal in data.signals_of(kind):
            gpu = _gpu_of(data, signal)
            key = gpu.index if gpu else None
            if key in seen:
                continue
            seen.add(key)
            findings.append(_finding(data, kind, signal, gpu))
    return findings


def _gpu_of(data: DoctorInput, signal: Signal) -> Gpu | None:
    """The GPU a kernel message names: by its bus, else by the line that named it."""
    nvidia = [g for g in data.gpus_of(Vendor.NVIDIA) if Layer.NVML not in g.seen_by]
    bus = (signal.detail or "").lower()
    if re.fullmatch(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", bus):
        by_bus = [g for g in nvidia if g.pci_bus and g.pci_bus.lower()[-7:] == bus[-7:]]
        if by_bus:
            return by_bus[0]
    labels = {ref.label() for ref in signal.evidence}
    named = [g for g in nvidia if any(source.partition(": ")[2] in labels
                                      for source in g.field_sources.values())]
    if named:
        return named[0]
    return nvidia[0] if len(nvidia) == 1 else None


def _distro(data: DoctorInput) -> str | None:
    """"ubuntu" (Ubuntu and its derivatives), "nixos", or None when not known."""
    name = data.inventory.host.distro or ""
    if _UBUNTU_FAMILY.search(name):
        return "ubuntu"
    if "nixos" in name.lower():
        return "nixos"
    return None


def _major(version: str | None) -> int | None:
    found = _BRANCH.match(version or "")
    return int(found.group(1)) if found else None


def _finding(data: DoctorInput, kind: str, signal: Signal, gpu: Gpu | None) -> Finding:
    if kind == "nvidia.legacy_gpu":
        return _legacy(data, signal, gpu)
    if kind == "nvidia.open_module_unsupported":
        return _open_without_gsp(data, signal, gpu)
    if kind == "nvidia.open_module_required":
        return _open_required(data, signal, gpu)
    return _unknown_to_release(data, signal, gpu)


def _which(gpu: Gpu | None, signal: Signal) -> str:
    """How the text names the GPU: its name, else its bus and device id."""
    if gpu is not None and gpu.name and not gpu.name.startswith("NVIDIA GPU "):
        return gpu.name
    bus = gpu.pci_bus if gpu and gpu.pci_bus else signal.detail
    if not bus:
        return message("this GPU")
    if gpu and gpu.pci_device_id:
        return message("the GPU at {bus} (device id {device})", bus=bus,
                       device=gpu.pci_device_id)
    return message("the GPU at {bus}", bus=bus)


def _legacy(data: DoctorInput, signal: Signal, gpu: Gpu | None) -> Finding:
    branch = signal.detail or "legacy"
    major = _major(branch)
    version = data.inventory.stack.nvidia_driver_version
    which = _which(gpu, signal)
    if version:
        detail = message("The kernel log says {gpu} is supported only through NVIDIA's {branch} "
                         "legacy drivers, and the installed {version} driver ignores it: no "
                         "NVIDIA driver drives this GPU, so neither CUDA nor nvidia-smi can use "
                         "it. Newer driver branches dropped this GPU generation; a newer driver "
                         "does not help.", gpu=which, branch=branch, version=version)
        fix = [message("Install NVIDIA's {branch} legacy driver in place of the {version} "
                       "driver, then reboot.", branch=branch, version=version)]
    else:
        detail = message("The kernel log says {gpu} is supported only through NVIDIA's {branch} "
                         "legacy drivers, and the installed driver ignores it: no NVIDIA driver "
                         "drives this GPU, so neither CUDA nor nvidia-smi can use it. Newer "
                         "driver branches dropped this GPU generation; a newer driver does not "
                         "help.", gpu=which, branch=branch)
        fix = [message("Install NVIDIA's {branch} legacy driver in place of the current driver, "
                       "then reboot.", branch=branch)]
    commands: tuple[str, ...] = ()
    sources = [NVIDIA_LEGACY_GPUS_URL]
    distro = _distro(data)
    ubuntu = major is not None and major >= _UBUNTU_OLDEST_BRANCH
    nixos = major is not None and major >= _NIXOS_OLDEST_LEGACY
    nix_line = ("hardware.nvidia.package = "
                f"config.boot.kernelPackages.nvidiaPackages.legacy_{major};")
    package = f"nvidia-driver-{major}"
    if distro == "ubuntu" and ubuntu:
        fix.append(message("On Ubuntu its package is {package}.", package=package))
        commands = (f"sudo apt install nvidia-driver-{major}", "sudo reboot")
    elif distro == "nixos" and nixos:
        fix.append(message("On NixOS set {setting} in configuration.nix, then run nixos-rebuild "
                           "switch.", setting=nix_line))
        sources.append(NIXOS_NVIDIA_URL)
    elif distro is None and (ubuntu or nixos):
        examples = ([message("{package} on Ubuntu", package=package)] if ubuntu else []) + (
            [message("{setting} on NixOS", setting=nix_line.rstrip(";"))] if nixos else [])
        fix.append(message("Use your distribution's package of that branch (for example "
                           "{examples}).",
                           examples=examples[0] if len(examples) == 1 else message(
                               "{first} or {second}", first=examples[0],
                               second=examples[1])))
    if major is not None and major < _NOUVEAU_ERA:
        fix.append(message("Legacy branches this old run only on old kernels and X servers; the "
                           "open-source nouveau driver still drives the display, but not CUDA."))
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR,
        message("The NVIDIA driver ignores this GPU: it needs the {branch} legacy driver",
                branch=branch),
        detail=detail, fix=join(" ", fix), fix_commands=commands,
        gpu=gpu.index if gpu else None,
        evidence=refs([signal, *data.signals_of("nvidia.driver_not_loaded")]),
        sources=tuple(sources),
    )


def _open_without_gsp(data: DoctorInput, signal: Signal, gpu: Gpu | None) -> Finding:
    which = _which(gpu, signal)
    device = gpu.pci_device_id if gpu else None
    evidence = refs([signal, *data.signals_of("nvidia.driver_not_loaded")])
    if has_gsp(device):
        return Finding(
            "nvidia.driver_not_loaded", Severity.ERROR,
            message("The NVIDIA driver could not identify this GPU"),
            detail=message("The open NVIDIA kernel module says {gpu} has no GSP (GPU System "
                           "Processor), but device id {device} is a Turing or later GPU, which "
                           "has one: the driver could not read the chip at all. That happens "
                           "when the GPU has dropped off the bus or lacks power, or in a "
                           "virtual machine that does not get the whole device.",
                           gpu=which, device=device),
            fix=message("Power the machine off completely and on again, and check the GPU's "
                        "power cables and seating; in a virtual machine, check that the whole "
                        "GPU is passed through (VFIO). Then read the kernel log again for this "
                        "GPU's errors."),
            gpu=gpu.index if gpu else None, evidence=evidence, sources=kernel_module_urls(),
        )
    major = _major(data.inventory.stack.nvidia_driver_version)
    branch = min(major, _LAST_BRANCH_BEFORE_TURING) if major else _LAST_BRANCH_BEFORE_TURING
    commands: tuple[str, ...] = ()
    if _distro(data) == "ubuntu" and major and major >= _UBUNTU_OLDEST_OPEN_BRANCH:
        commands = (f"sudo apt install nvidia-driver-{branch}", "sudo reboot")
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR,
        message("The open NVIDIA kernel module cannot drive this GPU"),
        detail=message("The kernel log says NVIDIA's open kernel module refuses {gpu}: the GPU "
                       "has no GSP (GPU System Processor), which the open modules require. They "
                       "drive only Turing (GeForce GTX 16xx, RTX 20xx) and newer GPUs; Maxwell, "
                       "Pascal and Volta GPUs need NVIDIA's proprietary kernel module.",
                       gpu=which),
        fix=message("Replace the open kernel module with the proprietary one of a driver branch "
                    "that supports this GPU ({last_branch} is the last branch for Maxwell, "
                    "Pascal and Volta GPUs), then reboot: for example nvidia-driver-{branch} "
                    "instead of nvidia-driver-{branch}-open on Ubuntu and Pop!_OS, or "
                    "--kernel-module-type=proprietary with NVIDIA's .run installer.",
                    last_branch=_LAST_BRANCH_BEFORE_TURING, branch=branch),
        fix_commands=commands, gpu=gpu.index if gpu else None, evidence=evidence,
        sources=(*kernel_module_urls(), NVIDIA_MODULE_SWITCH_URL),
    )


def _open_required(data: DoctorInput, signal: Signal, gpu: Gpu | None) -> Finding:
    major = _major(data.inventory.stack.nvidia_driver_version)
    commands: tuple[str, ...] = ()
    if _distro(data) == "ubuntu" and major and major >= _UBUNTU_OLDEST_OPEN_BRANCH:
        commands = (f"sudo apt install nvidia-driver-{major}-open", "sudo reboot")
    branch = major or _LAST_BRANCH_BEFORE_TURING
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR,
        message("This GPU needs NVIDIA's open kernel module"),
        detail=message("The kernel log says the proprietary NVIDIA kernel module cannot drive "
                       "{gpu}: the newest GPUs (Blackwell, such as the GeForce RTX 50 series) "
                       "are supported only by the open kernel modules.",
                       gpu=_which(gpu, signal)),
        fix=message("Install the open flavour of the driver, then reboot: for example "
                    "nvidia-driver-{branch}-open instead of nvidia-driver-{branch} on Ubuntu, "
                    "or --kernel-module-type=open with NVIDIA's .run installer.",
                    branch=branch),
        fix_commands=commands, gpu=gpu.index if gpu else None,
        evidence=refs([signal, *data.signals_of("nvidia.driver_not_loaded")]),
        sources=(*kernel_module_urls(), NVIDIA_MODULE_SWITCH_URL),
    )


def _unknown_to_release(data: DoctorInput, signal: Signal, gpu: Gpu | None) -> Finding:
    version = data.inventory.stack.nvidia_driver_version
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR,
        message("This NVIDIA driver release does not support this GPU"),
        detail=message("The kernel log says {gpu} is not supported by the {version} driver "
                       "release, so the driver does not take it; usually the GPU is newer than "
                       "the driver.", gpu=_which(gpu, signal), version=version) if version else
        message("The kernel log says {gpu} is not supported by the driver release, so the "
                "driver does not take it; usually the GPU is newer than the driver.",
                gpu=_which(gpu, signal)),
        fix=message("Install an NVIDIA driver branch that lists this GPU among its supported "
                    "products, usually a newer one (NVIDIA's driver download page finds the "
                    "branch by GPU model; a virtual GPU in a VM needs NVIDIA's vGPU guest "
                    "driver instead), then reboot."),
        gpu=gpu.index if gpu else None,
        evidence=refs([signal, *data.signals_of("nvidia.driver_not_loaded")]),
        sources=(NVIDIA_DRIVER_DOWNLOADS_URL,),
    )


# ----------------------------------------------------------------------------- module missing


def module_missing_finding(data: DoctorInput, missing: list[Signal],
                           not_loaded: list[Signal]) -> Finding:
    """modprobe finds no NVIDIA module for the running kernel (or one built for another): the
    driver was never built for this kernel, usually a kernel update its DKMS build missed.
    Loading it again cannot help; building it for this kernel, or booting the old one, does."""
    release = next((s.detail for s in missing if s.detail), None) or data.inventory.host.kernel
    reason = data.inventory.stack.missing_reasons.get("nvidia_driver_version")
    detail = [_no_module_sentence(release, bool(not_loaded)), message(
        "That usually follows a kernel update whose DKMS build of the NVIDIA module failed or "
        "never ran; the module usually still exists for the previous kernel.")]
    if reason and "dkms" in reason:
        detail.append(message("Here {reason}.", reason=reason))
    word = release if release and _RELEASE_WORD.fullmatch(release) else '"$(uname -r)"'
    commands: list[str] = []
    distro = data.inventory.host.distro or ""
    if _APT_HEADERS_FAMILY.search(distro):
        commands.append(f"sudo apt install linux-headers-{word}" if word != '"$(uname -r)"'
                        else 'sudo apt install "linux-headers-$(uname -r)"')
    commands += [f"sudo dkms autoinstall -k {word}", "dkms status"]
    return Finding(
        "nvidia.driver_not_loaded", Severity.ERROR,
        message("The NVIDIA driver is not built for the running kernel {kernel}", kernel=release)
        if release else message("The NVIDIA driver is not built for the running kernel"),
        detail=join(" ", detail),
        fix=join(" ", [
            message("Build the NVIDIA module for the running kernel {kernel}: install that "
                    "kernel's headers and let DKMS build the modules it knows for it (the "
                    "lines below), then reboot.", kernel=release) if release else
            message("Build the NVIDIA module for the running kernel: install that kernel's "
                    "headers and let DKMS build the modules it knows for it (the lines below), "
                    "then reboot."),
            message("If the build fails, this driver branch does not support that kernel yet: "
                    "boot the previous kernel from the boot menu, where the module exists, and "
                    "reinstall the distribution's NVIDIA driver package (or a newer branch) so "
                    "that it is built for the new kernel. If dkms status lists no NVIDIA module "
                    "at all, no driver is installed: install the distribution's NVIDIA driver "
                    "package. Loading the module again cannot help while it does not exist for "
                    "this kernel.")]),
        fix_commands=tuple(commands),
        evidence=refs([*not_loaded, *missing]),
        sources=(DKMS_MANUAL_URL, NVIDIA_MODULE_SWITCH_URL),
    )


def _no_module_sentence(release: str | None, not_loaded: bool) -> str:
    """modprobe found no module for the running kernel (named when known), after nvidia-smi's
    own failure when it was pasted too."""
    if not_loaded and release:
        return message("nvidia-smi cannot talk to the driver, and modprobe finds no NVIDIA "
                       "kernel module for the running kernel {kernel}: the driver was not "
                       "built for the kernel that is running.", kernel=release)
    if not_loaded:
        return message("nvidia-smi cannot talk to the driver, and modprobe finds no NVIDIA "
                       "kernel module for the running kernel: the driver was not built for the "
                       "kernel that is running.")
    if release:
        return message("modprobe finds no NVIDIA kernel module for the running kernel "
                       "{kernel}: the driver was not built for the kernel that is running.",
                       kernel=release)
    return message("modprobe finds no NVIDIA kernel module for the running kernel: the driver "
                   "was not built for the kernel that is running.")
