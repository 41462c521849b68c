"""AMD rules: the amdgpu kernel driver, /dev/kfd and the render nodes, the ROCm runtime,
official gfx support and an iGPU beside a dGPU."""

from __future__ import annotations

import re

from gpuscope.doctor.fixes import (
    DOCKER_RUN_AMD,
    GROUPS_COMMAND,
    ROCM_AMDGPU_INSTALL_URL,
    ROCM_DOCKER_URL,
    ROCM_GPU_ISOLATION_URL,
    ROCM_PCIE_ATOMICS_URL,
    ROCM_PERMISSIONS_URL,
    in_container,
    in_virtual_machine,
)
from gpuscope.doctor.inputs import DoctorInput, first_sentences, gpu_refs, refs, version_tuple
from gpuscope.doctor.rules_platform import guest_without_gpu
from gpuscope.i18n import join, message
from gpuscope.knowledge.amdgpu_releases import DriverRelease, rocm_release_of_driver
from gpuscope.knowledge.distros import wsl_gpu_support
from gpuscope.knowledge.overrides import caveat_urls, hsa_override_for
from gpuscope.knowledge.rocm_support import (
    SupportVerdict,
    known_rocm_releases,
    official_support,
)
from gpuscope.model import (
    DeviceNodeAccess,
    EvidenceRef,
    Finding,
    Gpu,
    GpuKind,
    Layer,
    Severity,
    Signal,
    Vendor,
)

_GROUP_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
# rocminfo checked only the video group while /dev/kfd moved to render, and reported the EACCES
# as OUT_OF_RESOURCES, until this change (first in ROCm 3.5).
ROCMINFO_RENDER_GROUP_URL = (
    "https://github.com/ROCm/rocminfo/commit/cd4b7cea858bb1169f1aa3b8bcdeca1ad0022c2e")


def _amd_driver_serves_a_gpu(data: DoctorInput) -> bool:
    return any(
        layer in gpu.seen_by
        for gpu in data.gpus_of(Vendor.AMD)
        for layer in (Layer.SYSFS, Layer.KFD, Layer.ROCM, Layer.ROCM_SMI, Layer.AMDSMI)
    )


def _not_passed_through(data: DoctorInput) -> bool:
    """gpu.not_passed_through explains this machine's missing AMD GPU: the rules below would
    only contradict it (no driver to load, no node to fix, in a guest that has no GPU)."""
    return Vendor.AMD in guest_without_gpu(data)[0]


_DKMS_MODULE = re.compile(r"(amdgpu)/([A-Za-z0-9][\w.+~-]{0,80})")


def _dkms_never_installed(data: DoctorInput) -> list[Signal]:
    """dkms knows the amdgpu module but never installed it for any kernel ("added" or
    "built" only): no kernel can load that driver."""
    return [s for s in data.signals_of("dkms.not_installed")
            if (s.detail or "").lower().startswith("amdgpu/")]


def _runtime_failed(data: DoctorInput) -> bool:
    return bool(data.signals_of("hsa.error") or data.signals_of("kfd.not_loaded")
                or data.signals_of("hip.no_device"))


def _driver_not_loaded(data: DoctorInput) -> bool:
    if data.os in ("wsl", "windows"):
        return False
    stack = data.inventory.stack
    not_loaded = data.signals_of("kfd.not_loaded")
    unbound = [g for g in data.gpus_of(Vendor.AMD)
               if Layer.PCI in g.seen_by and g.kernel_driver not in (None, "amdgpu")
               and Layer.SYSFS not in g.seen_by]
    # The in-tree amdgpu may run without any dkms module: a never-built one speaks only where
    # the runtime failed or a GPU is known to have no amdgpu bound.
    never_built = bool(_dkms_never_installed(data)) and stack.kfd_loaded is not True and (
        _runtime_failed(data) or bool(unbound))
    return bool((not_loaded or stack.kfd_loaded is False or never_built)
                and not _amd_driver_serves_a_gpu(data) and (not_loaded or unbound or never_built)
                and not _not_passed_through(data))


def _never_built_finding(data: DoctorInput, dkms: list[Signal]) -> Finding:
    detail_text = dkms[0].detail or "amdgpu"
    module = _DKMS_MODULE.fullmatch(detail_text.partition(": ")[0])
    kernel = data.inventory.host.kernel
    commands: tuple[str, ...] = ()
    if module is not None:
        name = f"{module.group(1)}/{module.group(2)}"
        commands = (f'sudo dkms install {name} -k "$(uname -r)"',
                    f"cat /var/lib/dkms/{name}/build/make.log")
    return Finding(
        "amdgpu.driver_not_loaded", Severity.ERROR,
        message("The amdgpu kernel driver is not loaded: dkms never built it"),
        detail=message("dkms lists the ROCm kernel driver as \"{module}\": it was never built "
                       "and installed for any kernel, so no amdgpu/KFD driver from it is running "
                       "and ROCm's runtime finds no GPU it can use.", module=detail_text),
        fix=join(" ", [
            message("Build and install the module for the running kernel ({kernel}).",
                    kernel=kernel) if kernel else
            message("Build and install the module for the running kernel."),
            message("If the build fails, this kernel is one the module does not support (its "
                    "make.log says why): boot a kernel that this ROCm release's install guide "
                    "lists, then reinstall the driver package so dkms builds it for that "
                    "kernel.")]),
        fix_commands=commands,
        evidence=refs([*dkms, *data.signals_of("hsa.error"), *data.signals_of("kfd.not_loaded")]),
        sources=(ROCM_AMDGPU_INSTALL_URL,),
    )


def rule_amdgpu_driver(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    if data.os in ("wsl", "windows"):
        return findings
    not_loaded = data.signals_of("kfd.not_loaded")
    never_built = _dkms_never_installed(data)
    # A dkms version installed for some kernel is another story (built for another kernel).
    if never_built and not data.inventory.stack.amdgpu_driver_version and (
            _driver_not_loaded(data)):
        findings.append(_never_built_finding(data, never_built))
    elif _driver_not_loaded(data):
        on_host = in_container(data)
        findings.append(Finding(
            "amdgpu.driver_not_loaded", Severity.ERROR,
            message("The amdgpu kernel driver is not loaded"),
            detail=join(" ", [message(
                "ROCm's runtime found no KFD (\"ROCk module is NOT loaded\"): the amdgpu kernel "
                "driver is not running for any GPU, so nothing above it can work."), *([message(
                    "A container uses its host's kernel, so the driver must be loaded on the "
                    "host.")] if on_host else [])]),
            fix=(message("On the host (not in the container), load the amdgpu driver; if that "
                         "fails, the kernel log says why. With amdgpu-dkms, reinstall it for "
                         "the running kernel and reboot.") if on_host else
                 message("load the amdgpu driver; if that fails, the kernel log says why. With "
                         "amdgpu-dkms, reinstall it for the running kernel and reboot.")),
            fix_commands=("sudo modprobe amdgpu", "sudo dmesg | grep -i amdgpu"),
            evidence=refs(not_loaded), sources=(ROCM_AMDGPU_INSTALL_URL,),
        ))
    for signal in data.signals_of("amdgpu.init_failed"):
        findings.append(Finding(
            "amdgpu.init_failed", Severity.ERROR,
            message("The kernel log shows amdgpu failed to start"),
            detail=signal.detail or message(
                "amdgpu reported a fatal error while bringing the GPU up."),
            fix=message("Read the kernel log around this line: missing firmware (install your "
                        "distribution's linux-firmware package), a kernel too old for the GPU, "
                        "or a board fault are the usual causes."),
            fix_commands=("sudo dmesg | grep -iE 'amdgpu|drm'",),
            evidence=signal.evidence,
        ))
    return findings


def _group_name(value: str | None) -> str | None:
    """A group name fit for a shell line (it comes from the evidence, so it is checked)."""
    return value if value is not None and _GROUP_NAME.fullmatch(value) else None


def _node_fix(node: DeviceNodeAccess | None, container: bool) -> tuple[str, tuple[str, ...]]:
    owner = _group_name(node.owner_group) if node is not None else None
    if node is not None and node.group_granted_not_active:
        group = owner or "render"
        return (message("Log out and back in: your user was added to the {group} group after "
                        "this session started, so running programs do not have it yet (newgrp "
                        "gives a shell that has it now).", group=group), (f"newgrp {group}",))
    if container:
        return (message("Inside a container, start it with --group-add video --group-add render "
                        "(or run as root); adding the user to groups inside the container does "
                        "not change what the host's device nodes allow. Add the flags to your "
                        "own docker run command; the line below is a complete example."),
                (DOCKER_RUN_AMD,))
    other = owner if owner not in ("root", "render", "video") else None
    if other is not None:
        return (message("Add your user to the {group} group that owns the node, then log out "
                        "and back in.", group=other), (f"sudo usermod -aG {other} $USER",))
    return (message("Add your user to the render and video groups, then log out and back in."),
            (GROUPS_COMMAND,))


def rule_kfd(data: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    if data.os in ("wsl", "windows"):
        return findings
    stack = data.inventory.stack
    amd_gpus = [g for g in data.gpus_of(Vendor.AMD) if Layer.SYSFS in g.seen_by]
    kfd_node = next((n for n in stack.device_nodes if n.path == "/dev/kfd"), None)
    node_missing = kfd_node is not None and not kfd_node.exists and bool(amd_gpus)
    if (node_missing or data.signals_of("kfd.missing")) and not _not_passed_through(data) \
            and not _driver_not_loaded(data):
        present = bool(data.gpus_of(Vendor.AMD))
        findings.append(Finding(
            "kfd.missing", Severity.ERROR, message("/dev/kfd does not exist"),
            detail=(message("The GPU is present but the KFD device node is missing, so ROCm "
                            "cannot reach it: the amdgpu driver did not create it (not loaded, "
                            "or built without KFD).") if present else
                    message("ROCm finds no GPU because the KFD device node is missing: the "
                            "amdgpu driver did not create it (not loaded, or built without "
                            "KFD).")),
            fix=message("Load the amdgpu driver and look in the kernel log for why KFD did not "
                        "start; in a container, pass the node in with --device=/dev/kfd."),
            fix_commands=("sudo modprobe amdgpu", "sudo dmesg | grep -i kfd"),
            evidence=refs(data.signals_of("kfd.missing")) or (EvidenceRef("/dev/kfd"),),
            sources=(ROCM_DOCKER_URL,),
        ))
    denied_nodes = [n for n in stack.device_nodes
                    if n.exists and n.can_open is False
                    and (n.path == "/dev/kfd" or n.path.startswith("/dev/dri/render"))]
    denied_signals = data.signals_of("kfd.permission_denied")
    if denied_nodes or denied_signals:
        node = denied_nodes[0] if denied_nodes else None
        fix, commands = _node_fix(node, in_container(data))
        # The probes' own reasons (messages when live, English from a snapshot).
        detail = join("; ", [n.reason for n in denied_nodes if n.reason]) or message(
            "ROCm could not open /dev/kfd read-write: this user is not allowed to use the GPU "
            "(on most distributions the render group, on older ones video).")
        findings.append(Finding(
            "kfd.permission_denied", Severity.ERROR,
            message("This user cannot open the GPU device nodes"), detail=detail, fix=fix,
            fix_commands=commands,
            evidence=refs(denied_signals) or tuple(EvidenceRef(n.path) for n in denied_nodes),
            sources=(ROCM_PERMISSIONS_URL,),
        ))
    elif old_denied := _old_rocminfo_denied(data):
        fix, commands = _node_fix(None, in_container(data))
        version = installed_rocm_version(data)
        findings.append(Finding(
            "kfd.permission_denied", Severity.ERROR,
            message("This user most likely cannot open /dev/kfd"),
            detail=message("rocminfo of ROCm {version} stopped with "
                           "HSA_STATUS_ERROR_OUT_OF_RESOURCES although the kernel driver is "
                           "loaded. Before ROCm 3.5 rocminfo reported a /dev/kfd it was not "
                           "allowed to open this way, and it checked only the video group, "
                           "while newer udev rules give /dev/kfd to the render group. If the "
                           "same command works with sudo, this is the cause; if it fails as "
                           "root too, the kernel log (dmesg | grep kfd) names a device problem "
                           "instead.", version=version),
            fix=fix, fix_commands=commands, evidence=refs(old_denied),
            sources=(ROCM_PERMISSIONS_URL, ROCMINFO_RENDER_GROUP_URL),
        ))
    findings += _kfd_kernel_findings(data)
    return findings


# Signals that explain rocminfo's failure otherwise than by a permission.
_OTHER_KFD_CAUSES = ("kfd.device_unsupported", "kfd.pcie_atomics_missing", "kfd.open_failed",
                     "kfd.missing", "kfd.not_loaded", "rocm.runtime_missing")


def _old_rocminfo_denied(data: DoctorInput) -> list[Signal]:
    """rocminfo before ROCm 3.5 printed no reason when it could not open /dev/kfd: the error
    is HSA_STATUS_ERROR_OUT_OF_RESOURCES right after "ROCk module is loaded" (later releases
    say "Unable to open /dev/kfd read-write: ..."). Nothing else here may explain it."""
    out_of_resources = [s for s in data.signals_of("hsa.error")
                        if s.detail == "HSA_STATUS_ERROR_OUT_OF_RESOURCES"]
    if not out_of_resources or data.os in ("wsl", "windows"):
        return []
    kfd_loaded = data.inventory.stack.kfd_loaded is True or bool(data.signals_of("kfd.loaded"))
    version = version_tuple(installed_rocm_version(data))
    if not kfd_loaded or version is None or version >= (3, 5):
        return []
    if any(data.signals_of(kind) for kind in _OTHER_KFD_CAUSES) or _driver_not_loaded(data) \
            or _not_passed_through(data):
        return []
    return [*data.signals_of("kfd.loaded"), *out_of_resources]


def _kfd_kernel_findings(data: DoctorInput) -> list[Finding]:
    findings = []
    unsupported = data.signals_of("kfd.device_unsupported")
    if unsupported:
        dkms = bool(data.inventory.stack.amdgpu_driver_version) or any(
            s.kind.startswith("dkms.") for s in data.signals)
        findings.append(Finding(
            "kfd.device_unsupported", Severity.ERROR,
            message("The KFD driver does not support this GPU"),
            detail=unsupported[0].detail or "",
            fix=message("The KFD driver that is running does not know this device id. Build "
                        "AMD's amdgpu-dkms module for the running kernel (it is often built for "
                        "another kernel only), or use a newer kernel whose own KFD knows the "
                        "GPU; GPUs older than ROCm's oldest supported generation are not "
                        "handled by KFD at all."),
            fix_commands=('sudo dkms autoinstall -k "$(uname -r)"',) if dkms else (),
            evidence=refs(unsupported),
        ))
    atomics = data.signals_of("kfd.pcie_atomics_missing")
    if atomics:
        fix = (message("The hypervisor does not give this virtual machine PCIe atomics: pass the "
                       "GPU through with its root port on a host whose CPU and slot support "
                       "them, or run on the host.") if in_virtual_machine(data) else
               message("Move the card to a PCIe slot wired to the CPU (not behind the chipset "
                       "or a riser without atomics support), and enable Above 4G decoding and "
                       "Resizable BAR in the firmware setup."))
        findings.append(Finding(
            "kfd.pcie_atomics_missing", Severity.ERROR,
            message("The GPU needs PCIe atomics that this slot does not give"),
            detail=atomics[0].detail or "", fix=fix, evidence=refs(atomics),
            sources=(ROCM_PCIE_ATOMICS_URL,),
        ))
    return findings


def rule_runtime(data: DoctorInput) -> list[Finding]:
    signals = data.signals_of("rocm.runtime_missing")
    if not signals:
        return []
    command = ("sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms" if data.os == "wsl"
               else "sudo amdgpu-install -y --usecase=rocm")
    return [Finding(
        "rocm.runtime_missing", Severity.ERROR, message("The ROCm runtime is missing or broken"),
        detail=signals[0].detail or message(
            "The HSA runtime (libhsa-runtime64) could not be loaded."),
        fix=message("Install ROCm's runtime with AMD's amdgpu-install (after adding AMD's "
                    "package repository), or your distribution's rocm-hip-runtime package."),
        fix_commands=(command,), evidence=refs(signals), sources=(ROCM_AMDGPU_INSTALL_URL,),
    )]


# ----------------------------------------------------------------------------- gfx support


def installed_rocm_version(data: DoctorInput) -> str | None:
    """The ROCm release installed here, from the first source that names it: the stack's
    version, an /opt/rocm-X.Y.Z path in an output, or the HIP runtime (HIP 6.2.41133 ships with
    ROCm 6.2; HIP before 5 did not follow ROCm's numbering)."""
    stack = data.inventory.stack
    if stack.rocm_version:
        return stack.rocm_version
    paths = [s.detail for s in data.signals_of("rocm.path_version") if s.detail]
    if paths:
        return max(paths, key=lambda v: version_tuple(v) or ())
    hip = version_tuple(stack.hip_runtime_version)
    if hip is not None and len(hip) >= 2 and hip[0] >= 5:
        return f"{hip[0]}.{hip[1]}"
    return None


def driver_rocm_release(data: DoctorInput) -> DriverRelease | None:
    """The ROCm release the installed amdgpu-dkms driver ships with, where no output names
    the ROCm version itself (the driver and ROCm usually come from one amdgpu-install)."""
    if installed_rocm_version(data) is not None:
        return None
    return rocm_release_of_driver(data.inventory.stack.amdgpu_driver_version)


def _support_os(data: DoctorInput) -> str | None:
    return data.os if data.os in ("linux", "windows") else (
        "linux" if data.os == "unknown" else None)


def target_support(data: DoctorInput, target: str) -> SupportVerdict | None:
    """AMD's list for the installed ROCm (or, when no output names it, the release of the
    installed amdgpu-dkms: unsupported only when no list of that series names the target),
    on this OS; None where it is not judged (WSL has its own list)."""
    os_name = _support_os(data)
    if os_name is None:
        return None
    driver = driver_rocm_release(data)
    if driver is None:
        return official_support(target, installed_rocm_version(data), os_name)
    series = [r for r in known_rocm_releases(os_name)
              if r == driver.rocm or r.startswith(driver.rocm + ".")] or [driver.rocm]
    verdicts = [official_support(target, release, os_name) for release in series]
    return next((v for v in verdicts if v.supported is not False), verdicts[-1])


def rule_gfx_support(data: DoctorInput) -> list[Finding]:
    if data.os == "windows":  # the HIP SDK's and the wheels' lists: rules_windows
        return []
    if data.os == "wsl":
        return _wsl_gpu_findings(data)
    findings: list[Finding] = []
    amd = data.gpus_of(Vendor.AMD)
    has_discrete = any(g.kind is GpuKind.DISCRETE for g in amd)
    os_name = _support_os(data)
    override = data.inventory.stack.environment.get("HSA_OVERRIDE_GFX_VERSION")
    for gpu in amd:
        if not gpu.gfx_target or os_name is None:
            continue
        if gpu.kind is GpuKind.INTEGRATED and has_discrete:
            continue  # hidden, not overridden: rocm.igpu_enumerated says how
        finding = _gfx_finding(data, gpu, gpu.gfx_target, os_name, override)
        if finding is not None:
            findings.append(finding)
    return findings


def _gfx_finding(data: DoctorInput, gpu: Gpu, target: str, os_name: str,
                 override: str | None) -> Finding | None:
    verdict = target_support(data, target)
    if verdict is None or verdict.supported is not False:
        return None
    driver = driver_rocm_release(data)
    rocm_version = driver.rocm if driver is not None else installed_rocm_version(data)
    advice = hsa_override_for(target)
    release = verdict.release_checked or rocm_version or message("the newest ROCm")
    installed = rocm_version or release
    values = {"target": target, "version": installed, "os": os_name.capitalize()}
    detail = [
        message("{target} is not on AMD's list of supported GPUs for ROCm {version} on {os} "
                "(the ROCm release of the installed amdgpu-dkms {driver} driver: no output here "
                "names the ROCm version itself).", driver=driver.driver_version, **values)
        if driver else
        message("{target} is not on AMD's list of supported GPUs for ROCm {version} on {os}.",
                **values) if rocm_version else
        message("{target} is not on AMD's list of supported GPUs for ROCm {version} on {os} "
                "(the ROCm version is unknown, so the newest release gpuscope knows was "
                "checked).", **values)]
    newer = _newer_release_lists(verdict.first_supported_release, rocm_version)
    fixes: list[str] = []
    commands: tuple[str, ...] = ()
    sources = [verdict.source] if verdict.source else []
    if driver is not None:
        sources += driver.sources
    last = verdict.last_supported_release
    if newer:
        fixes.append(message("ROCm {version} and later list {target}: upgrading ROCm gives it "
                             "official support.", version=verdict.first_supported_release,
                             target=target))
    elif last is not None and _newer_release_lists(rocm_version, last):
        fixes.append(message("ROCm {version} is the last release that lists {target}: use "
                             "that release for official support.", version=last,
                             target=target))
    if advice is not None:
        commands = (f"export {advice.assignment}",)
        # The caveat is the knowledge table's text, cut to its first two sentences.
        detail.append(message("The usual workaround runs it as {target}: {caveat}",
                              target=advice.pretends_to_be,
                              caveat=first_sentences(advice.caveat, 2)))
        fixes.append(message("Set {assignment} in the environment before starting the "
                             "program, so ROCm runs the code built for {target}.",
                             assignment=advice.assignment, target=advice.pretends_to_be))
        sources += [*advice.urls, *caveat_urls()]
    if not fixes:
        fixes.append(message("No ROCm release lists {target} and no override is known for it: "
                             "only builds that include the target (some distributions build "
                             "ROCm for more GPUs than AMD lists) can run it, or a GPU on AMD's "
                             "list.", target=target))
    if override:
        detail.append(message("HSA_OVERRIDE_GFX_VERSION={value} is set in this environment.",
                              value=override))
    title = (message("{target} is not officially supported by ROCm {version}", target=target,
                     version=installed)
             if rocm_version else
             message("{target} is not officially supported by ROCm (up to {version})",
                     target=target, version=release))
    return Finding(
        "rocm.gfx_unsupported", Severity.WARNING, title,
        detail=join(" ", detail), fix=join(" ", fixes), gpu=gpu.index,
        evidence=gpu_refs(gpu, "gfx_target"), fix_commands=commands,
        sources=tuple(dict.fromkeys(sources)),
    )


def _newer_release_lists(first: str | None, installed: str | None) -> bool:
    first_key, installed_key = version_tuple(first), version_tuple(installed)
    return first_key is not None and installed_key is not None and first_key > installed_key


def _wsl_gpu_findings(data: DoctorInput) -> list[Finding]:
    """Under WSL, ROCm reaches the GPU through the Windows driver, and AMD supports only the
    GPUs of its WSL list there: a GPU of a family the list never names is listed by rocminfo
    and PyTorch but hangs or fails when used, and no override helps (rocm.wsl, per GPU)."""
    findings = []
    for gpu in data.gpus_of(Vendor.AMD):
        verdict = wsl_gpu_support(gpu.gfx_target)
        if verdict.supported is not False or not gpu.gfx_target:
            continue
        name = gpu.name or message("This GPU")
        findings.append(Finding(
            "rocm.wsl", Severity.ERROR,
            message("{gpu} ({target}) is not supported by ROCm on WSL", gpu=name,
                    target=gpu.gfx_target),
            detail=message("AMD supports ROCm under WSL only for the GPUs on its WSL list, "
                           "Radeon RDNA3 and newer and some Ryzen APUs; no {target} GPU has "
                           "been on it. Under WSL ROCm reaches the GPU through the Windows "
                           "driver: rocminfo and PyTorch may list this GPU, but work on it "
                           "hangs or fails, and HSA_OVERRIDE_GFX_VERSION does not change that.",
                           target=gpu.gfx_target),
            fix=message("Run ROCm on a native Linux installation (for example a dual boot), "
                        "where AMD's Linux list for the GPU applies; under Windows itself, use "
                        "a route that supports this GPU (DirectML, or a Vulkan build of the "
                        "program)."),
            gpu=gpu.index, evidence=gpu_refs(gpu, "gfx_target", "name"),
            sources=(verdict.source,) if verdict.source else (),
        ))
    return findings


# ----------------------------------------------------------------------------- iGPU beside dGPU

# Layers that enumerate what ROCm programs will see (amd-smi and rocm-smi list the same
# amdgpu devices; OpenCL and PyTorch go through ROCm's runtime).
_ENUMERATING = (Layer.KFD, Layer.ROCM, Layer.AMDSMI, Layer.ROCM_SMI, Layer.OPENCL, Layer.TORCH)


def _kfd_added(data: DoctorInput) -> dict[str, int]:
    """vendor:device ids -> the order in which KFD added them ("kfd kfd: added device
    1002:7340" in a kernel log); ROCm's runtime enumerates KFD's devices in that order."""
    order: dict[str, int] = {}
    for signal in data.signals_of("kfd.loaded"):
        if signal.detail and ":" in signal.detail:
            order.setdefault(signal.detail.lower(), len(order))
    return order


def _pci_ids(gpu: Gpu) -> str | None:
    vendor, device = gpu.pci_vendor_id, gpu.pci_device_id
    if not vendor or not device:
        return None
    return f"{vendor.lower().removeprefix('0x')}:{device.lower().removeprefix('0x')}"


def _kfd_rejected(data: DoctorInput, gpu: Gpu) -> bool:
    """KFD refused this GPU ("DID 15d8 is missing in supported_devices", "kfd not supported on
    this ASIC") and ROCm's runtime did not list it: amdgpu drives it (the SMI tools show it),
    ROCm programs never see it."""
    if Layer.KFD in gpu.seen_by or Layer.ROCM in gpu.seen_by:
        return False
    names = {n for n in (_pci_ids(gpu), gpu.pci_bus) if n}
    return any((s.detail or "").lower() in names
               for s in data.signals_of("kfd.device_unsupported"))


def rule_igpu(data: DoctorInput) -> list[Finding]:
    added = _kfd_added(data)
    rocm_sees = [g for g in data.gpus_of(Vendor.AMD)
                 if (any(layer in g.seen_by for layer in _ENUMERATING)
                     or _pci_ids(g) in added) and not _kfd_rejected(data, g)]
    igpus = [g for g in rocm_sees if g.kind is GpuKind.INTEGRATED]
    dgpus = [g for g in rocm_sees if g.kind is GpuKind.DISCRETE]
    if not (igpus and dgpus):
        return []
    index = {e.gpu_index: e for e in data.inventory.device_index}
    hidden = [g for g in igpus if index.get(g.index) and index[g.index].hidden_by]
    if len(hidden) == len(igpus):
        return []
    order = sorted(rocm_sees, key=lambda g: (
        g.kfd_node if g.kfd_node is not None else 99,
        added.get(_pci_ids(g) or "", 99),
        g.smi_index if g.smi_index is not None else 99, g.index))
    keep = ",".join(str(order.index(g)) for g in dgpus)
    # An iGPU whose target the installed ROCm does not list cannot run ROCm's libraries: it is
    # in the way, not a GPU to use (an error for that iGPU, so it is not called usable).
    unsupported = [(g, v) for g in igpus if g.gfx_target
                   and (v := target_support(data, g.gfx_target)) is not None
                   and v.supported is False]
    igpu, verdict = unsupported[0] if unsupported else (igpus[0], None)
    detail = [message(
        "ROCm lists {igpus} as a device next to {dgpus}.",
        igpus=join(", ", [g.name or g.gfx_target or message("the iGPU") for g in igpus]),
        dgpus=join(", ", [g.name or message("the dGPU") for g in dgpus])), message(
        "Frameworks may pick it, split work onto it, or fail on its unsupported target.")]
    title = message("The integrated GPU is enumerated beside the discrete one")
    sources = [ROCM_GPU_ISOLATION_URL]
    if verdict is not None:
        release = verdict.release_checked or message("the newest release")
        title = message("The integrated GPU ({target}) is enumerated beside the discrete one, "
                        "and ROCm does not support it", target=igpu.gfx_target)
        unknown = installed_rocm_version(data) is None and driver_rocm_release(data) is None
        detail.append(
            message("{target} is not on AMD's list of supported GPUs for ROCm {version} (the "
                    "ROCm version is unknown: the newest release gpuscope knows was checked): "
                    "ROCm's libraries carry no code for it, so programs that use it fail; it is "
                    "not a GPU to compute on here.", target=igpu.gfx_target, version=release)
            if unknown else
            message("{target} is not on AMD's list of supported GPUs for ROCm {version}: "
                    "ROCm's libraries carry no code for it, so programs that use it fail; it is "
                    "not a GPU to compute on here.", target=igpu.gfx_target, version=release))
        sources += [verdict.source] if verdict.source else []
    return [Finding(
        "rocm.igpu_enumerated", Severity.ERROR if verdict is not None else Severity.WARNING,
        title, detail=join(" ", detail),
        fix=message("Hide the integrated GPU from ROCm programs: HIP_VISIBLE_DEVICES={keep} "
                    "keeps only the discrete GPU (ROCR_VISIBLE_DEVICES={keep} does the same one "
                    "layer lower); or disable the iGPU in the firmware setup.", keep=keep),
        fix_commands=(f"export HIP_VISIBLE_DEVICES={keep}",),
        gpu=igpu.index,
        evidence=refs(s for s in data.signals_of("kfd.loaded")
                      if s.detail and s.detail.lower() in {_pci_ids(g) for g in rocm_sees})
        or gpu_refs(igpu, "gfx_target", "name"),
        sources=tuple(dict.fromkeys(sources)),
    )]
