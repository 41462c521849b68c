"""Platform rules: WSL, the distribution, partitions, virtual GPUs, and containers or virtual
machines that were started without the host's GPU."""

from __future__ import annotations

from gpuscope.doctor.fixes import (
    DOCKER_RUN_AMD,
    NVIDIA_CONTAINER_TOOLKIT_URL,
    NVIDIA_TOOLKIT_COMMANDS,
    NVIDIA_WSL_URL,
    ROCM_DOCKER_URL,
    ROCM_WSL_URL,
    VFIO_URL,
    in_container,
    in_virtual_machine,
    kfd_loaded_but_node_missing,
)
from gpuscope.doctor.inputs import DoctorInput, and_list, or_list, refs
from gpuscope.i18n import join, message
from gpuscope.knowledge.distros import distro_support, wsl_distro_support
from gpuscope.model import (
    EvidenceRef,
    Finding,
    Gpu,
    GpuKind,
    Layer,
    Severity,
    Signal,
    Vendor,
)

# Public pages behind the advice for a container engine on Windows: AMD's PyTorch on WSL
# guide (its Docker option passes /dev/dxg), AMD's WSL bridge library, and Docker Desktop's
# GPU support (NVIDIA through the WSL 2 backend).
ROCM_WSL_PYTORCH_URL = (
    "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-pytorch.html")
ROCM_DXG_URL = "https://github.com/ROCm/librocdxg"
DOCKER_DESKTOP_GPU_URL = "https://docs.docker.com/desktop/features/gpu/"

_AMD_SIGNAL_PREFIXES = ("rocm.", "kfd.", "amdgpu.", "hsa.", "hip.", "rocminfo.", "amdsmi.")


def _rocm_evidence(data: DoctorInput) -> bool:
    stack = data.inventory.stack
    return bool(data.gpus_of(Vendor.AMD)) or any(
        (stack.rocm_version, stack.hsa_runtime_version, stack.hip_runtime_version,
         stack.amdgpu_driver_version)) or any(
        f.build == "rocm" for f in data.torch_builds()) or any(
        s.kind.startswith(_AMD_SIGNAL_PREFIXES)
        or (s.kind.startswith("dkms.") and "amdgpu" in f"{s.detail} {s.evidence}".lower())
        for s in data.signals)


def rule_wsl(data: DoctorInput) -> list[Finding]:
    if data.os != "wsl" or not _rocm_evidence(data):
        return []
    working = any(layer in g.seen_by for g in data.gpus_of(Vendor.AMD)
                  for layer in (Layer.ROCM, Layer.KFD, Layer.TORCH))
    # amdgpu-install's WSL use case exists for the Ubuntu releases AMD lists only.
    listed = wsl_distro_support(data.inventory.stack.rocm_version,
                                data.inventory.host.distro).supported is not False
    return [Finding(
        "rocm.wsl", Severity.INFO, message("Running under WSL"),
        detail=message("Under WSL, GPUs are reached through the Windows driver (/dev/dxg): "
                       "there is no amdgpu kernel driver and no /dev/kfd inside Linux, so those "
                       "checks do not apply. ROCm on WSL supports only the GPUs AMD lists for "
                       "WSL, with the matching Windows Adrenalin driver."),
        fix=None if working else (
            message("Install ROCm's user-space for WSL without a kernel module: amdgpu-install "
                    "-y --usecase=wsl,rocm --no-dkms; keep the Windows Adrenalin driver "
                    "current, and never build or load amdgpu inside WSL.") if listed else
            message("In a distribution AMD lists for WSL (see the distribution finding), "
                    "install ROCm's user-space for WSL without a kernel module: amdgpu-install "
                    "-y --usecase=wsl,rocm --no-dkms; keep the Windows Adrenalin driver "
                    "current, and never build or load amdgpu inside WSL.")),
        fix_commands=() if working or not listed else (
            "sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms",),
        evidence=refs(data.signals_of("platform.wsl")),
        sources=(ROCM_WSL_URL,),
    )]


def rule_distro(data: DoctorInput) -> list[Finding]:
    """AMD supports ROCm only on named distributions for some releases (every GPU on ROCm
    2.x; Radeon GPUs on 5.7 and from 6.4.1 on), and under WSL only on the Ubuntu releases it
    lists; judged only where the distribution (and natively the release and GPU) is known."""
    host, stack = data.inventory.host, data.inventory.stack
    if data.os == "wsl":
        return _wsl_distro(data)
    if data.os != "linux" or not host.distro or not stack.rocm_version:
        return []
    for gpu in data.gpus_of(Vendor.AMD):
        if not gpu.gfx_target or gpu.kind is GpuKind.INTEGRATED:
            continue
        verdict = distro_support(gpu.gfx_target, stack.rocm_version, host.distro)
        if verdict.supported is False:
            listed = ", ".join(verdict.listed)
            values = {"distro": verdict.distro, "version": stack.rocm_version,
                      "scope": verdict.scope, "distros": listed}
            return [Finding(
                "os.unsupported_distro", Severity.WARNING,
                message("{distro} is not a supported distribution for ROCm {version} on "
                        "{scope}", **values) if verdict.scope else
                message("{distro} is not a supported distribution for ROCm {version}",
                        **values),
                detail=join(" ", [
                    message("AMD supports ROCm {version} on {scope} only on {distros}.",
                            **values) if verdict.scope else
                    message("AMD supports ROCm {version} only on {distros}.", **values),
                    message("It often works elsewhere, but kernel and library versions differ "
                            "from what AMD tests.")]),
                fix=message("Use one of {distros} for a supported setup.", distros=listed),
                gpu=gpu.index,
                evidence=(EvidenceRef(host.field_sources.get("distro", "/etc/os-release")),),
                sources=(verdict.source,) if verdict.source else (),
            )]
    return []


def _wsl_distro(data: DoctorInput) -> list[Finding]:
    """ROCm on WSL runs on the Ubuntu releases AMD lists for WSL, whatever the GPU; only
    where something here uses ROCm (CUDA on WSL supports other distributions)."""
    host = data.inventory.host
    if not host.distro or not _rocm_evidence(data):
        return []
    verdict = wsl_distro_support(data.inventory.stack.rocm_version, host.distro)
    if verdict.supported is not False:
        return []
    listed = or_list(verdict.listed)
    return [Finding(
        "os.unsupported_distro", Severity.WARNING,
        message("{distro} is not a supported distribution for ROCm on WSL",
                distro=verdict.distro),
        detail=message("AMD supports ROCm on WSL only in {distros} distributions, with the "
                       "Windows Adrenalin driver AMD names for each ROCm release; the runtime "
                       "reaches the GPU through that Windows driver, not through a Linux kernel "
                       "driver.", distros=listed),
        fix=message("Install {distros} as a WSL 2 distribution from Windows (for example wsl "
                    "--install -d Ubuntu-24.04 in PowerShell), then install ROCm's user space "
                    "for WSL in it as AMD's WSL guide describes. Do not install or load a Linux "
                    "GPU kernel driver inside WSL.", distros=listed),
        evidence=(EvidenceRef(host.field_sources.get("distro", "/etc/os-release")),),
        sources=tuple(dict.fromkeys(s for s in (verdict.source, ROCM_WSL_URL) if s)),
    )]


def rule_partitions(data: DoctorInput) -> list[Finding]:
    partitions = [g for g in data.inventory.gpus if g.kind is GpuKind.PARTITION]
    modes = [s for s in data.signals_of("gpu.partition_mode")
             if (s.detail or "").upper() not in ("", "SPX")]
    findings = []
    if partitions or modes:
        mode = next((s.detail for s in modes if s.detail), None)
        findings.append(Finding(
            "gpu.partitioned", Severity.INFO,
            message("One physical GPU is split into several logical GPUs ({mode})", mode=mode)
            if mode else message("One physical GPU is split into several logical GPUs"),
            detail=message("Each partition shows up as its own device with its own share of "
                           "compute units and memory; the memory of the partitions is not "
                           "additive for one job, and peak numbers are per partition."),
            evidence=refs(modes),
        ))
    return findings + _virtual(data)


def _virtual(data: DoctorInput) -> list[Finding]:
    """An SR-IOV virtual function, or any GPU used from inside a virtual machine."""
    vfs = [g for g in data.inventory.gpus if g.kind is GpuKind.VIRTUAL]
    vf_signals = data.signals_of("gpu.virtual_function")
    guest = in_virtual_machine(data) and bool(data.inventory.gpus)
    if not (vfs or vf_signals or guest):
        return []
    if vfs or vf_signals:
        title = message("A virtual GPU (an SR-IOV virtual function)")
        detail = message("This GPU is a slice of a physical GPU that the host shares between "
                         "virtual machines. Power caps, clocks, fans and firmware belong to the "
                         "host: they cannot be read or changed from here, and driver or slot "
                         "changes are made on the host.")
    else:
        title = message("The GPU is used from inside a virtual machine")
        detail = message("The GPU is passed through to this virtual machine. Some controls and "
                         "metrics (power caps, clocks, fans, the PCIe slot) belong to the host "
                         "and may not be available here.")
    return [Finding(
        "gpu.virtual_function", Severity.INFO, title,
        detail=_with_hypervisor(data, detail),
        gpu=vfs[0].index if vfs else None, evidence=refs(vf_signals),
    )]


# ----------------------------------------------------------------------------- pass-through


# Layers that show a GPU exists somewhere (the host's PCI bus and sysfs are visible from most
# containers) without showing that this environment can compute on it.
_PRESENCE_ONLY = {Layer.PCI, Layer.SYSFS}
_COMPUTE = {Vendor.AMD: {Layer.KFD, Layer.ROCM, Layer.TORCH},
            Vendor.NVIDIA: {Layer.NVML, Layer.TORCH}}
# Signals that a GPU stack expected a GPU and found none it could use. In a container the
# kernel is the host's, so "ROCk is not loaded" there speaks of the host, not of pass-through.
_NOTHING_TO_USE = {
    "container": ("nvidia.driver_not_loaded", "nvml.library_missing", "nvml.init_failed",
                  "kfd.missing",
                  "hip.no_device", "amdgpu.no_drm_devices", "container.gpu_request_failed"),
    "virtual machine": ("nvidia.no_devices", "nvidia.driver_not_loaded", "kfd.not_loaded",
                        "kfd.missing", "hip.no_device", "amdgpu.no_drm_devices"),
    # Under WSL the GPU comes from the Windows driver through /dev/dxg.
    "wsl": ("nvidia.no_devices", "nvidia.driver_not_loaded", "nvml.library_missing",
            "hip.no_device", "wsl.no_gpu_adapter", "container.gpu_request_failed"),
}
_NVIDIA_KINDS = ("nvidia.", "nvml.", "wsl.no_gpu_adapter", "container.gpu_request_failed")


def _unreachable(data: DoctorInput, vendor: Vendor) -> list[Gpu]:
    return [g for g in data.gpus_of(vendor)
            if g.seen_by and set(g.seen_by) <= _PRESENCE_ONLY]


# What a container engine said while it started a container, and its Windows traces
# (parsers/container_engine): an engine's error is about a container even where no other
# trace of one was pasted.
_ENGINE_KINDS = ("container.device_missing", "container.gpu_request_failed",
                 "container.windows_host")


def _guest_kind(data: DoctorInput) -> str | None:
    if data.os == "wsl":
        return "wsl"
    engine = bool(data.signals_of("container.device_missing")
                  or data.signals_of("container.gpu_request_failed"))
    if data.os == "windows" and not engine and not (
            in_container(data) and data.signals_of("container.windows_host")):
        return None  # (a Linux container started from a Windows prompt is still a container)
    if in_container(data) or engine or kfd_loaded_but_node_missing(data):
        return "container"
    return "virtual machine" if in_virtual_machine(data) else None


def _missing_devices(data: DoctorInput) -> list[str]:
    """The GPU device nodes a container engine could not add: its host has none of them."""
    return [device for signal in data.signals_of("container.device_missing")
            for device in (signal.detail or "").split()]


def _vendors_of_devices(data: DoctorInput, devices: list[str]) -> set[Vendor]:
    """/dev/kfd and /dev/dxg are ROCm's, /dev/nvidia* NVIDIA's; /dev/dri belongs to any GPU,
    so it names AMD only beside other ROCm evidence."""
    vendors: set[Vendor] = set()
    for device in devices:
        if device.startswith(("/dev/kfd", "/dev/dxg")):
            vendors.add(Vendor.AMD)
        elif device.startswith("/dev/nvidia"):
            vendors.add(Vendor.NVIDIA)
    if any(d.startswith("/dev/dri") for d in devices) and _rocm_evidence(data):
        vendors.add(Vendor.AMD)
    return vendors


def guest_without_gpu(data: DoctorInput) -> tuple[set[Vendor], bool]:
    """The vendors whose GPU this container, VM or WSL cannot use although there is evidence
    of one, and whether that evidence is about the host itself (strong) rather than a stack
    that merely expected a GPU (weak). A VM that shows the GPU on its PCI bus has it passed
    through (its own driver is then the question), so only a container counts those."""
    where = _guest_kind(data)
    if where is None or any(set(g.seen_by) & _COMPUTE.get(g.vendor or Vendor.OTHER, set())
                            for g in data.inventory.gpus):
        return set(), False  # not a guest, or something here does reach a GPU
    vendors: set[Vendor] = set()
    strong = False
    if kfd_loaded_but_node_missing(data):
        vendors.add(Vendor.AMD)
        strong = True
    if where == "container":
        missing = _vendors_of_devices(data, _missing_devices(data))
        if missing:  # the engine's own word that its host has no such node
            vendors |= missing
            strong = True
        for vendor in (Vendor.AMD, Vendor.NVIDIA):
            if _unreachable(data, vendor):
                vendors.add(vendor)
                strong = True
        if data.inventory.stack.nvidia_driver_version:
            vendors.add(Vendor.NVIDIA)  # the host's kernel module answers, NVML does not
            strong = True
    if not data.inventory.gpus:
        for kind in _NOTHING_TO_USE[where]:
            if data.signals_of(kind):
                vendors.add(Vendor.NVIDIA if kind.startswith(_NVIDIA_KINDS) else Vendor.AMD)
    return vendors, strong


def rule_not_passed_through(data: DoctorInput) -> list[Finding]:
    vendors, strong = guest_without_gpu(data)
    where = _guest_kind(data)
    if not vendors or where is None:
        return []
    signals = [s for kind in ("kfd.loaded", *_NOTHING_TO_USE[where], *_ENGINE_KINDS)
               for s in data.signals_of(kind)]
    severity = Severity.ERROR if strong else Severity.WARNING
    if where == "wsl":
        return [_wsl_without_gpu(data, vendors, signals, severity)]
    if where == "virtual machine":
        return [_vm_without_gpu(data, signals, severity)]
    return [_container_without_gpu(data, vendors, strong, signals, severity)]


def _with_hypervisor(data: DoctorInput, detail: str) -> str:
    """`detail`, then the hypervisor's name where the host knows it."""
    hint = data.inventory.host.virtual_machine_hint
    return join(" ", [detail, message("Hypervisor: {hypervisor}.", hypervisor=hint)]) if hint \
        else detail


def _wsl_without_gpu(data: DoctorInput, vendors: set[Vendor], signals: list[Signal],
                     severity: Severity) -> Finding:
    driver = and_list([name for vendor, name in (
        (Vendor.NVIDIA, message("NVIDIA's Windows driver")),
        (Vendor.AMD, message("AMD's Adrenalin driver"))) if vendor in vendors])
    return Finding(
        "gpu.not_passed_through", severity, message("No GPU reaches this WSL environment"),
        detail=message("Under WSL, Linux reaches the GPU through the Windows driver (/dev/dxg); "
                       "here no GPU adapter was found. WSL 1 never has one; WSL 2 has one only "
                       "with a Windows GPU driver that supports WSL."),
        fix=message("Run this distribution under WSL 2 with {driver} installed on Windows (not "
                    "a Linux driver inside WSL), then restart WSL with wsl --shutdown from "
                    "Windows.", driver=driver),
        evidence=refs(signals),
        sources=(NVIDIA_WSL_URL,) if Vendor.NVIDIA in vendors else (ROCM_WSL_URL,),
    )


def _vm_without_gpu(data: DoctorInput, signals: list[Signal], severity: Severity) -> Finding:
    return Finding(
        "gpu.not_passed_through", severity,
        message("No GPU is passed through to this virtual machine"),
        detail=_with_hypervisor(data, message(
            "No GPU is visible in this virtual machine, although a GPU driver or runtime is "
            "installed here and looked for one. A VM sees a GPU only when the host hands the "
            "whole device to it (VFIO PCI pass-through) or gives it a virtual function (SR-IOV, "
            "vGPU).")),
        fix=message("On the host, bind the GPU to vfio-pci and assign it to this VM (in "
                    "libvirt, Proxmox or your cloud's console), then install the GPU driver "
                    "inside the VM."),
        evidence=refs(signals), sources=(VFIO_URL,),
    )


def _container_without_gpu(data: DoctorInput, vendors: set[Vendor], strong: bool,
                           signals: list[Signal], severity: Severity) -> Finding:
    if data.signals_of("container.windows_host"):
        return _windows_engine_without_gpu(data, vendors, signals, severity)
    missing = _missing_devices(data)
    if missing and _vendors_of_devices(data, missing):
        return _host_without_node(data, vendors, missing, signals, severity)
    parts: list[str] = []
    commands: list[str] = []
    sources: list[str] = []
    if Vendor.AMD in vendors:
        parts.append(message("for an AMD GPU add --device=/dev/kfd --device=/dev/dri (and the "
                             "video and render groups for a user other than root)"))
        commands.append(DOCKER_RUN_AMD)
        sources.append(ROCM_DOCKER_URL)
    if Vendor.NVIDIA in vendors:
        parts.append(message("for an NVIDIA GPU install the NVIDIA Container Toolkit on the "
                             "host and add --gpus all"))
        commands += NVIDIA_TOOLKIT_COMMANDS
        sources.append(NVIDIA_CONTAINER_TOOLKIT_URL)
    why = (message("the kernel has the amdgpu KFD driver loaded, but /dev/kfd does not exist "
                   "here") if kfd_loaded_but_node_missing(data) else
           message("the host's GPU is on the PCI bus, but no GPU runtime here can reach it")
           if strong else
           message("a GPU driver or runtime is installed here but finds no GPU"))
    hint = data.inventory.host.container_hint
    detail = message("This looks like a container started without the host's GPU: {why}. A "
                     "container sees a GPU only when its device nodes are passed in when it "
                     "starts.", why=why)
    return Finding(
        "gpu.not_passed_through", severity,
        message("The GPU is not passed through to this container"),
        detail=join(" ", [detail, message("Container: {container}.", container=hint)])
        if hint else detail,
        fix=message("Start the container again with the GPU passed through: {flags}. Add these "
                    "flags to your own docker run (or compose devices:) command; the lines "
                    "below are a complete example.", flags=join("; ", parts)),
        evidence=refs(signals), fix_commands=tuple(commands), sources=tuple(sources),
    )


def _engine_words(data: DoctorInput) -> str:
    """The engine's own line about a device it could not add, quoted ("" when none)."""
    for signal in data.signals_of("container.device_missing"):
        for ref in signal.evidence:
            if ref.text:
                words = ref.text.split("daemon: ", 1)[-1].rstrip(".")
                return f'"{words}"'
    return ""


def _windows_engine_without_gpu(data: DoctorInput, vendors: set[Vendor],
                                signals: list[Signal], severity: Severity) -> Finding:
    """A container engine on Windows (Docker Desktop): its Linux containers run in a VM with no
    /dev/kfd or /dev/dri. NVIDIA GPUs reach them through the WSL 2 backend and --gpus; ROCm
    runs under WSL 2 itself, where the GPU is /dev/dxg."""
    how = data.signals_of("container.windows_host")[0].detail or message("its traces")
    words = _engine_words(data)
    detail = join(" ", [
        message("The container engine runs on Windows ({how}): Docker Desktop runs Linux "
                "containers in its own virtual machine (WSL 2 or Hyper-V), which has no "
                "/dev/kfd or /dev/dri.", how=how),
        message("So the device flags fail (the engine: {engine}) and, without them, the "
                "container sees no GPU: PyTorch in it runs on the CPU.", engine=words)
        if words else
        message("So device flags cannot pass a GPU in and, without them, the container sees "
                "no GPU: PyTorch in it runs on the CPU.")])
    parts: list[str] = []
    sources: list[str] = []
    if Vendor.AMD in vendors or not vendors:
        parts.append(message(
            "For an AMD GPU, use ROCm under WSL 2 instead: install AMD's Adrenalin driver "
            "with WSL support on Windows, then in an Ubuntu release AMD lists for WSL "
            "install ROCm's WSL user space (amdgpu-install -y --usecase=wsl,rocm --no-dkms; "
            "newer releases reach the GPU through librocdxg) and PyTorch for Radeon on WSL, "
            "as AMD's WSL guides show. Under WSL the GPU is /dev/dxg, not /dev/kfd: a "
            "container started inside WSL gets it with --device=/dev/dxg and WSL's libraries "
            "mounted (the Docker option of AMD's WSL PyTorch guide). Or run the container on "
            "a Linux host with the amdgpu driver."))
        sources += [ROCM_WSL_URL, ROCM_WSL_PYTORCH_URL, ROCM_DXG_URL]
    if Vendor.NVIDIA in vendors:
        parts.append(message(
            "For an NVIDIA GPU, use Docker Desktop's WSL 2 backend with NVIDIA's current "
            "Windows driver (no Linux driver or Container Toolkit is installed on Windows) "
            "and start the container with --gpus all instead of device flags."))
        sources += [DOCKER_DESKTOP_GPU_URL, NVIDIA_WSL_URL]
    return Finding(
        "gpu.not_passed_through", severity,
        message("No GPU can be passed into this container: its engine runs on Windows"),
        detail=detail, fix=join(" ", parts), evidence=refs(signals),
        sources=tuple(dict.fromkeys(sources)),
    )


def _host_without_node(data: DoctorInput, vendors: set[Vendor], missing: list[str],
                       signals: list[Signal], severity: Severity) -> Finding:
    """The engine could not add a GPU's device node because its host has none: the host's
    driver is not loaded, or the engine is Docker Desktop's own VM."""
    nodes = and_list(list(dict.fromkeys(missing)))
    parts: list[str] = []
    commands: list[str] = []
    sources: list[str] = []
    if Vendor.AMD in vendors:
        parts.append(message("load the amdgpu kernel driver (a container uses its host's "
                             "kernel: ROCm's kernel driver belongs on the host, not in the "
                             "image) and check that /dev/kfd and /dev/dri exist"))
        commands += ["sudo modprobe amdgpu", "ls -l /dev/kfd /dev/dri"]
        sources.append(ROCM_DOCKER_URL)
    if Vendor.NVIDIA in vendors:
        parts.append(message("load NVIDIA's driver (nvidia-smi must work on the host) and give "
                             "the container the GPU through the NVIDIA Container Toolkit with "
                             "--gpus all rather than device flags"))
        commands += ["nvidia-smi", *NVIDIA_TOOLKIT_COMMANDS]
        sources.append(NVIDIA_CONTAINER_TOOLKIT_URL)
    commands.append("docker context ls")
    words = _engine_words(data)
    return Finding(
        "gpu.not_passed_through", severity,
        message("The container engine's host has no {nodes} to pass into the container",
                nodes=nodes),
        detail=message("The engine could not add {nodes} ({engine}): the machine it runs on "
                       "has no such device node. The node exists only where the GPU's kernel "
                       "driver is loaded; Docker Desktop, also on Linux, runs containers in "
                       "its own virtual machine, which has none.", nodes=nodes, engine=words)
        if words else
        message("The engine could not add {nodes}: the machine it runs on has no such device "
                "node. The node exists only where the GPU's kernel driver is loaded; Docker "
                "Desktop, also on Linux, runs containers in its own virtual machine, which has "
                "none.", nodes=nodes),
        fix=message("On the host, {steps}. If docker context ls marks Docker Desktop's context "
                    "(desktop-linux) as current, switch to the host's engine with docker "
                    "context use default. Then start the container again.",
                    steps=join("; ", parts)),
        fix_commands=tuple(commands), evidence=refs(signals), sources=tuple(sources),
    )
