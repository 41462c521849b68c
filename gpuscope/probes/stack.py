"""The stack probe: which ROCm, HIP and HSA runtime are installed, whether amdgpu and KFD are
loaded (and whether amdgpu is the out-of-tree amdgpu-dkms build), the NVIDIA kernel driver's
version, and the environment variables that change what frameworks see.

Every result is a `Fact` keyed by a `Stack` field name (`rocm_version`, `amdgpu_loaded`, ...)
or `env:NAME` for an environment variable. The CUDA driver version comes from NVML (the nvml
probe), not from here.

Where the versions are recorded:
- ROCm release: `<root>/.info/version`, e.g. `6.2.4-120` (release, then build number).
- HIP: `KEY=VALUE` lines (`HIP_VERSION_MAJOR`, `_MINOR`, `_PATCH`, `_GITHASH`) written by the
  HIP build (ROCm/clr hipamd/CMakeLists.txt). hipconfig reads them from
  `<HIP_PATH>/share/hip/version` on Linux and `<HIP_PATH>/bin/.hipVersion` on Windows
  (ROCm/HIPCC bin/hipvars.pm); older Linux installs also have `bin/.hipVersion`.
- HSA runtime (ROCr): the versioned file name `<root>/lib/libhsa-runtime64.so.1.X.Y`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.evidence import System
from gpuscope.i18n import join, message
from gpuscope.model import Fact, ProbeResult, ProbeState, ProbeStatus
from gpuscope.probes.sourced import probe_bug
from gpuscope.probes.windows_collectors import is_windows

PROBE_NAME = "stack"

# The variables that change which GPUs a framework sees and how it treats them.
# HSA_OVERRIDE_GFX_VERSION_<n> is the per-device form (https://docs.ollama.com/gpu).
FRAMEWORK_ENV_VARS: tuple[str, ...] = (
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "CUDA_DEVICE_ORDER",
    "HCC_AMDGPU_TARGET",
    "PYTORCH_ROCM_ARCH",
    "ROCM_PATH",
    "HIP_PATH",
    *(f"HSA_OVERRIDE_GFX_VERSION_{index}" for index in range(8)),
)

DEFAULT_ROCM_ROOT = "/opt/rocm"
OPT_DIR = "/opt"
DISTRO_HIP_VERSION_PATH = "/usr/share/hip/version"  # ROCm packaged by Fedora/Debian into /usr
AMDGPU_MODULE_PATH = "/sys/module/amdgpu"
AMDGPU_VERSION_PATH = "/sys/module/amdgpu/version"
KFD_SYSFS_PATH = "/sys/class/kfd/kfd"
KFD_DEVICE_PATH = "/dev/kfd"
NVIDIA_PROC_VERSION_PATH = "/proc/driver/nvidia/version"
NVIDIA_MODULE_VERSION_PATH = "/sys/module/nvidia/version"


# ----------------------------------------------------------------------------- parsers

_ROCM_VERSION = re.compile(r"\s*(\d+(?:\.\d+)+)")


def parse_rocm_version(text: str) -> tuple[str, str] | None:
    """`<root>/.info/version`: `6.2.4-120` -> (`6.2.4`, `6.2.4-120`)."""
    lines = text.strip().splitlines()
    if not lines:
        return None
    first = lines[0].strip()
    match = _ROCM_VERSION.match(first)
    if match is None:
        return None
    return match.group(1), first


def parse_hip_version(text: str) -> str | None:
    """The HIP version file (`HIP_VERSION_MAJOR=6` ... lines) -> `6.2.41134`."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.lstrip().startswith("#"):
            values.setdefault(key.strip(), value.strip())
    numbers: list[str] = []
    for key in ("HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "HIP_VERSION_PATCH"):
        match = re.match(r"\d+", values.get(key, ""))
        if match is None:
            if key == "HIP_VERSION_PATCH" and len(numbers) == 2:
                break
            return None
        numbers.append(str(int(match.group(0))))
    return ".".join(numbers)


_HSA_LIBRARY = re.compile(r"libhsa-runtime64\.so\.(\d+)\.(\d+)(?:\.(\d+))?\Z")


def parse_hsa_runtime_filename(name: str) -> tuple[str, tuple[int, int, int]] | None:
    """`libhsa-runtime64.so.1.14.60204` -> (`1.14`, (1, 14, 60204)); other names -> None."""
    match = _HSA_LIBRARY.fullmatch(name.strip())
    if match is None:
        return None
    major, minor, patch = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    return f"{major}.{minor}", (major, minor, patch)


_NVRM = re.compile(r"NVRM version:([^\n]*)")
_DOTTED = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)*)(?![\w.])")


@dataclass(frozen=True, slots=True)
class NvidiaKernelModule:
    version: str
    open_kernel_module: bool


def parse_nvidia_proc_version(text: str) -> NvidiaKernelModule | None:
    """/proc/driver/nvidia/version's first line:
    `NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024`
    or, for the open kernel modules,
    `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build ...`."""
    match = _NVRM.search(text)
    if match is None:
        return None
    line = match.group(1)
    version = _DOTTED.search(line)
    if version is None:
        return None
    return NvidiaKernelModule(version.group(1), "open kernel module" in line.lower())


def parse_module_version(text: str) -> str | None:
    """A /sys/module/<name>/version file: one version string, e.g. `6.8.5`."""
    value = text.strip()
    if not value or len(value) > 64 or any(c.isspace() for c in value):
        return None
    return value


_ROCM_DIR = re.compile(r"rocm-(\d+(?:\.\d+)+\S*)\Z")


def versioned_rocm_dirs(entries: Sequence[str]) -> list[str]:
    """`rocm-6.1.0`-style directory names among `/opt`'s entries, newest first."""

    def key(name: str) -> tuple[int, ...]:
        match = re.match(r"rocm-(\d+(?:\.\d+)*)", name)
        return tuple(int(p) for p in match.group(1).split(".")) if match else ()

    return sorted((e for e in entries if _ROCM_DIR.fullmatch(e)), key=key, reverse=True)


# ----------------------------------------------------------------------------- the probe


class _Facts:
    def __init__(self) -> None:
        self.facts: list[Fact] = []

    def found(self, key: str, value: str | int | float | bool, source: str) -> None:
        self.facts.append(Fact(key, value, source=source))

    def missing(self, key: str, reason: str, source: str | None = None) -> None:
        self.facts.append(Fact(key, None, source=source, missing_reason=reason))

    def value(self, key: str) -> str | int | float | bool | None:
        return next((f.value for f in self.facts if f.key == key), None)

    def reason(self, key: str) -> str | None:
        return next((f.missing_reason for f in self.facts if f.key == key), None)


def _join(root: str, *parts: str, windows: bool) -> str:
    if windows:
        return root.rstrip("\\/") + "\\" + "\\".join(parts)
    return posixpath.join(root, *parts)


def _exists(system: System, path: str) -> bool:
    return system.stat(path).exists


def _probe_rocm(system: System, facts: _Facts, env: dict[str, str | None],
                windows: bool) -> None:
    rocm_path_env = (env.get("ROCM_PATH") or "").strip() or None
    hip_path_env = (env.get("HIP_PATH") or "").strip() or None
    if rocm_path_env:
        root: str | None = rocm_path_env
        root_source = "environment variable ROCM_PATH"
    elif windows and hip_path_env:
        root, root_source = hip_path_env, "environment variable HIP_PATH (HIP SDK)"
    elif windows:
        root, root_source = None, ""
    else:
        root, root_source = DEFAULT_ROCM_ROOT, f"default {DEFAULT_ROCM_ROOT}"

    if root is None:
        reason = message("HIP_PATH is not set: the HIP SDK is not installed (its installer "
                         "sets it)")
        for key in ("rocm_path", "rocm_version", "hip_runtime_version", "hsa_runtime_version"):
            facts.missing(key, reason, source="environment variable HIP_PATH")
        return

    root_exists = _exists(system, root)
    if root_exists:
        resolved = system.realpath(root)
        shown = root_source if resolved.rstrip("/\\") == root.rstrip("/\\") \
            else f"{root_source} (-> {resolved})"
        facts.found("rocm_path", root, shown)
    else:
        what = f"ROCM_PATH={root}" if rocm_path_env else root
        facts.missing("rocm_path", message("{path} does not exist", path=what),
                      source=root_source)

    # ROCm release.
    info_path = _join(root, ".info", "version", windows=windows)
    info = system.read_text(info_path)
    parsed = parse_rocm_version(info.text) if info.ok and info.text is not None else None
    if parsed is not None:
        facts.found("rocm_version", parsed[0], info_path)
        facts.found("rocm_version_full", parsed[1], info_path)
    else:
        if info.ok:
            reason = message("{path} holds no version ({text!r})", path=info_path,
                             text=(info.text or "").strip()[:40])
        else:
            reason = message("{path} missing", path=info_path) if info.error == "ENOENT" \
                else message("{path} unreadable ({error})", path=info_path, error=info.error)
        folder = re.search(r"(\d+\.\d+(?:\.\d+)?)[\\/]*\Z", root) if windows else None
        if folder is not None and root_exists:
            # The HIP SDK installs into a folder named after its release, e.g. ROCm\6.2\.
            facts.found("rocm_version", folder.group(1), f"{root_source}: folder name")
        else:
            if not windows:
                listing = system.list_dir(OPT_DIR)
                found = versioned_rocm_dirs(listing.entries or ())
                if found:
                    reason = join("; ", [reason, message(
                        "found {folders}", folders=", ".join(f"{OPT_DIR}/{d}" for d in found))])
                elif listing.ok:
                    reason = join("; ", [reason, message("no rocm-X.Y.Z folder in {path}",
                                                         path=OPT_DIR)])
            facts.missing("rocm_version", reason, source=info_path)
            facts.missing("rocm_version_full", reason, source=info_path)

    # HIP runtime.
    if windows:
        candidates = [_join(root, "bin", ".hipVersion", windows=True)]
    else:
        candidates = [_join(root, "share", "hip", "version", windows=False),
                      _join(root, "bin", ".hipVersion", windows=False),
                      _join(root, "hip", "bin", ".hipVersion", windows=False)]
        if hip_path_env and hip_path_env.rstrip("/") != root.rstrip("/"):
            candidates += [posixpath.join(hip_path_env, "share", "hip", "version"),
                           posixpath.join(hip_path_env, "bin", ".hipVersion")]
        if not rocm_path_env and not root_exists:
            candidates.append(DISTRO_HIP_VERSION_PATH)
    hip_version = None
    looked: list[str] = []
    for path in candidates:
        read = system.read_text(path)
        if read.ok and read.text is not None:
            hip_version = parse_hip_version(read.text)
            if hip_version:
                facts.found("hip_runtime_version", hip_version, path)
                break
            looked.append(message("{path} (no HIP_VERSION_MAJOR/MINOR)", path=path))
        else:
            looked.append(message("{path} ({error})", path=path, error=read.error)
                          if read.error else message("{path} (unreadable)", path=path))
    if hip_version is None:
        facts.missing("hip_runtime_version",
                      message("no HIP version file: {looked}", looked=join(", ", looked)),
                      source=candidates[0])

    # HSA runtime (ROCr).
    if windows:
        facts.missing("hsa_runtime_version",
                      message("the Windows HIP SDK has no HSA runtime (ROCr is Linux-only)"))
        return
    _probe_hsa(system, facts, root)


def _probe_hsa(system: System, facts: _Facts, root: str) -> None:
    looked: list[str] = []
    for lib_dir in (posixpath.join(root, "lib"), posixpath.join(root, "hsa", "lib")):
        listing = system.list_dir(lib_dir)
        best: tuple[str, tuple[int, int, int], str] | None = None
        for entry in listing.entries or ():
            parsed = parse_hsa_runtime_filename(entry)
            if parsed is not None and (best is None or parsed[1] > best[1]):
                best = (parsed[0], parsed[1], entry)
        if best is None and listing.ok:
            # Only the unversioned link listed: its target carries the version.
            link = posixpath.join(lib_dir, "libhsa-runtime64.so.1")
            target = posixpath.basename(system.realpath(link))
            parsed = parse_hsa_runtime_filename(target)
            if parsed is not None:
                best = (parsed[0], parsed[1], target)
        if best is not None:
            facts.found("hsa_runtime_version", best[0], posixpath.join(lib_dir, best[2]))
            return
        looked.append(lib_dir if listing.ok else f"{lib_dir} ({listing.error})")
    facts.missing("hsa_runtime_version",
                  message("no libhsa-runtime64.so.1.X.Y in {folders}", folders=", ".join(looked)),
                  source=posixpath.join(root, "lib"))


def _probe_amdgpu(system: System, facts: _Facts, windows: bool) -> None:
    if windows:
        reason = message("Linux kernel module; not applicable on Windows")
        for key in ("amdgpu_loaded", "amdgpu_driver_version", "kfd_loaded"):
            facts.missing(key, reason)
        return
    if _exists(system, AMDGPU_MODULE_PATH):
        facts.found("amdgpu_loaded", True, AMDGPU_MODULE_PATH)
        read = system.read_text(AMDGPU_VERSION_PATH)
        version = parse_module_version(read.text) if read.ok and read.text else None
        if version is not None:
            facts.found("amdgpu_driver_version", version, AMDGPU_VERSION_PATH)
        elif read.ok:
            facts.missing("amdgpu_driver_version",
                          message("{path} holds no version", path=AMDGPU_VERSION_PATH),
                          source=AMDGPU_VERSION_PATH)
        else:
            facts.missing("amdgpu_driver_version",
                          message("in-tree amdgpu (no {path})", path=AMDGPU_VERSION_PATH),
                          source=AMDGPU_VERSION_PATH)
    else:
        facts.found("amdgpu_loaded", False, f"{AMDGPU_MODULE_PATH} absent")
        facts.missing("amdgpu_driver_version", message("amdgpu kernel module not loaded"),
                      source=AMDGPU_MODULE_PATH)

    for path in (KFD_SYSFS_PATH, KFD_DEVICE_PATH):
        if _exists(system, path):
            facts.found("kfd_loaded", True, path)
            break
    else:
        facts.found("kfd_loaded", False, f"{KFD_SYSFS_PATH} and {KFD_DEVICE_PATH} absent")


def _probe_nvidia(system: System, facts: _Facts, windows: bool) -> None:
    if windows:
        facts.missing("nvidia_driver_version",
                      message("no /proc on Windows; NVML reports the driver version there"))
        return
    proc = system.read_text(NVIDIA_PROC_VERSION_PATH)
    if proc.ok and proc.text:
        module = parse_nvidia_proc_version(proc.text)
        if module is not None:
            flavour = "open kernel module" if module.open_kernel_module else "proprietary module"
            facts.found("nvidia_driver_version", module.version,
                        f"{NVIDIA_PROC_VERSION_PATH} ({flavour})")
            return
    sysfs = system.read_text(NVIDIA_MODULE_VERSION_PATH)
    version = parse_module_version(sysfs.text) if sysfs.ok and sysfs.text else None
    if version is not None:
        facts.found("nvidia_driver_version", version, NVIDIA_MODULE_VERSION_PATH)
        return
    if proc.ok or sysfs.ok:
        reason = message("no version in {proc} or {module}", proc=NVIDIA_PROC_VERSION_PATH,
                         module=NVIDIA_MODULE_VERSION_PATH)
    else:
        reason = message("no NVIDIA kernel driver loaded ({proc} and {module} absent)",
                         proc=NVIDIA_PROC_VERSION_PATH, module=NVIDIA_MODULE_VERSION_PATH)
    facts.missing("nvidia_driver_version", reason, source=NVIDIA_PROC_VERSION_PATH)


def _summary(facts: _Facts, env: dict[str, str | None], windows: bool = False) -> str:
    parts: list[str] = []
    rocm = facts.value("rocm_version")
    rocm_path = facts.value("rocm_path")
    hip = facts.value("hip_runtime_version")
    if rocm or hip:
        name, version = ("ROCm", rocm) if rocm else ("HIP", hip)
        parts.append(message("{name} {version} at {path}", name=name, version=version,
                             path=rocm_path) if rocm_path
                     else message("{name} {version}", name=name, version=version))
    elif rocm_path:
        parts.append(message("ROCm at {path} (version unknown)", path=rocm_path))
    else:
        why = facts.reason("rocm_path")
        parts.append(message("no ROCm ({reason})", reason=why) if why else message("no ROCm"))

    loaded = facts.value("amdgpu_loaded")
    dkms = facts.value("amdgpu_driver_version")
    if loaded is True:
        parts.append(message("amdgpu-dkms {version} loaded", version=dkms) if dkms
                     else message("in-tree amdgpu loaded"))
    elif loaded is False:
        parts.append(message("amdgpu not loaded"))

    nvidia = facts.value("nvidia_driver_version")
    if nvidia:
        parts.append(message("NVIDIA driver {version}", version=nvidia))
    elif not windows:  # on Windows NVML, not this probe, knows the driver
        parts.append(message("no NVIDIA driver"))

    set_vars = [name for name in FRAMEWORK_ENV_VARS
                if env.get(name) is not None and name not in ("ROCM_PATH", "HIP_PATH")]
    if set_vars:
        parts.append(message("set: {variables}",
                             variables=", ".join(f"{name}={env[name]}" for name in set_vars)))
    return join("; ", parts)


def probe_stack(system: System) -> ProbeResult:
    """ROCm/HIP/HSA versions, amdgpu/KFD state, the NVIDIA kernel driver version and the
    framework environment variables, as Facts. Never raises."""
    try:
        facts = _Facts()
        env = {name: system.env(name) for name in FRAMEWORK_ENV_VARS}
        # Windows always sets OS=Windows_NT; it tells a replayed Windows snapshot apart too.
        windows = is_windows(system)
        _probe_rocm(system, facts, env, windows)
        _probe_amdgpu(system, facts, windows)
        _probe_nvidia(system, facts, windows)
        for name in FRAMEWORK_ENV_VARS:
            value = env[name]
            if value is None:
                facts.missing(f"env:{name}", message("not set"),
                              source=f"environment variable {name}")
            else:
                facts.found(f"env:{name}", value, f"environment variable {name}")
        return ProbeResult(
            status=ProbeStatus(PROBE_NAME, ProbeState.OK, reason=_summary(facts, env, windows)),
            stack_facts=tuple(facts.facts),
        )
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return probe_bug(PROBE_NAME, message("stack probe failed: {error}",
                                             error=f"{type(exc).__name__}: {exc}"))
