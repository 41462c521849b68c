"""The host probe: CPU, RAM, OS, distribution, kernel, and whether gpuscope runs under WSL,
in a container or in a virtual machine.

Evidence comes from psutil and the `platform` module (each through `system.library`) and from
files: /etc/os-release, /proc/cpuinfo, /proc/meminfo, /proc/version, DMI ids in sysfs, and the
marker files container engines leave behind (their parsers are in host_files.py).
`gather_host_evidence` does all the reading; `build_host_result` turns that evidence into a
ProbeResult and is pure, so tests can feed it evidence directly. `build_host` reads one group of
fields a step (kernel, OS, distribution, CPU, memory, container, virtual machine), each with its
source or the reason it is missing.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuscope.evidence import FileRead, StatInfo, System
from gpuscope.i18n import join, message
from gpuscope.model import (
    DeviceNodeAccess,
    Host,
    JsonValue,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    format_bytes,
)
from gpuscope.probes.host_files import (
    CpuInfo,
    container_engines_in_cgroup,
    dmi_hypervisor,
    is_wsl_kernel,
    os_release_pretty_name,
    parse_containerenv_engine,
    parse_cpuinfo,
    parse_meminfo_kib,
    parse_os_release,
    parse_proc_version_release,
    wsl_generation,
)
from gpuscope.probes.sourced import probe_bug

PROBE_NAME = "host"

OS_RELEASE_PATHS = ("/etc/os-release", "/usr/lib/os-release")
CPUINFO_PATH = "/proc/cpuinfo"
MEMINFO_PATH = "/proc/meminfo"
PROC_VERSION_PATH = "/proc/version"
OSRELEASE_PATH = "/proc/sys/kernel/osrelease"
HOSTNAME_PATH = "/proc/sys/kernel/hostname"
PID1_CGROUP_PATH = "/proc/1/cgroup"
DOCKERENV_PATH = "/.dockerenv"
CONTAINERENV_PATH = "/run/.containerenv"
DXG_PATH = "/dev/dxg"
DMI_SYS_VENDOR_PATH = "/sys/class/dmi/id/sys_vendor"
DMI_PRODUCT_NAME_PATH = "/sys/class/dmi/id/product_name"
HYPERVISOR_TYPE_PATH = "/sys/hypervisor/type"

_FILE_PATHS = (
    *OS_RELEASE_PATHS, CPUINFO_PATH, PROC_VERSION_PATH, OSRELEASE_PATH, HOSTNAME_PATH,
    PID1_CGROUP_PATH, CONTAINERENV_PATH, DMI_SYS_VENDOR_PATH, DMI_PRODUCT_NAME_PATH,
    HYPERVISOR_TYPE_PATH,
)
_STAT_PATHS = (DOCKERENV_PATH, CONTAINERENV_PATH, DXG_PATH)
_ENV_NAMES = ("container", "WSL_DISTRO_NAME")


# ----------------------------------------------------------------------------- collectors


def collect_psutil() -> JsonValue:
    """CPU counts, RAM and swap from psutil (passed to `system.library("psutil", ...)`)."""
    try:
        psutil: Any = importlib.import_module("psutil")
    except ImportError as exc:
        return {"status": ProbeState.LIBRARY_MISSING.value,
                "error": f"psutil is not installed ({exc})"}
    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value}
    errors: list[str] = []
    calls: tuple[tuple[str, Any], ...] = (
        ("cpu_logical", lambda: psutil.cpu_count(logical=True)),
        ("cpu_physical", lambda: psutil.cpu_count(logical=False)),
        ("ram_total_bytes", lambda: psutil.virtual_memory().total),
        ("swap_total_bytes", lambda: psutil.swap_memory().total),
    )
    for key, call in calls:
        try:
            value = call()
            answer[key] = int(value) if value is not None else None
        except Exception as exc:  # psutil raises its own errors per platform; keep each one
            answer[key] = None
            errors.append(f"{key}: {type(exc).__name__}: {exc}")
    if errors:
        answer["field_errors"] = list(errors)
    return answer


def collect_platform() -> JsonValue:
    """The `platform` module's answers (passed to `system.library("platform", ...)`)."""
    import platform

    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value}
    calls: tuple[tuple[str, Any], ...] = (
        ("system", platform.system), ("release", platform.release),
        ("version", platform.version), ("machine", platform.machine),
        ("node", platform.node), ("python_version", platform.python_version),
        ("processor", platform.processor),
    )
    for key, call in calls:
        try:
            answer[key] = str(call())
        except Exception:  # e.g. processor() runs `uname -p`, which can fail; keep the rest
            answer[key] = None
    system_name = answer.get("system")
    try:
        if system_name == "Windows":
            answer["win32_ver"] = [str(v) for v in platform.win32_ver()]
            answer["win32_edition"] = str(platform.win32_edition() or "") or None
        elif system_name == "Darwin":
            release, _versioninfo, machine = platform.mac_ver()
            answer["mac_ver"] = [str(release), str(machine)]
    except Exception as exc:
        answer["os_version_error"] = f"{type(exc).__name__}: {exc}"
    return answer


# ----------------------------------------------------------------------------- evidence


def _not_captured() -> JsonValue:
    return {"status": ProbeState.NOT_CAPTURED.value}


@dataclass(frozen=True, slots=True)
class HostEvidence:
    """Everything the host probe read. Files absent from `files` read as ENOENT, paths absent
    from `stats` as not existing."""

    psutil: JsonValue = field(default_factory=_not_captured)
    platform: JsonValue = field(default_factory=_not_captured)
    files: Mapping[str, FileRead] = field(default_factory=dict)
    stats: Mapping[str, StatInfo] = field(default_factory=dict)
    env: Mapping[str, str | None] = field(default_factory=dict)
    commands: Mapping[str, str] = field(default_factory=dict)  # "sysctl ..." -> stdout

    def read(self, path: str) -> FileRead:
        return self.files.get(path, FileRead(error="ENOENT"))

    def text(self, path: str) -> str | None:
        return self.read(path).stripped()

    def exists(self, path: str) -> bool:
        info = self.stats.get(path)
        return info is not None and info.exists


_MACOS_CPU_COMMAND = ("sysctl", "-n", "machdep.cpu.brand_string")


def gather_host_evidence(system: System) -> HostEvidence:
    """All the reads of the host probe, through `system`."""
    psutil_answer = system.library("psutil", collect_psutil)
    platform_answer = system.library("platform", collect_platform)
    files = {path: system.read_text(path) for path in _FILE_PATHS}
    if (_library_status(psutil_answer)[0] is not ProbeState.OK
            or _int_field(_payload(psutil_answer), "ram_total_bytes") is None):
        files[MEMINFO_PATH] = system.read_text(MEMINFO_PATH)
    stats = {path: system.stat(path) for path in _STAT_PATHS}
    env = {name: system.env(name) for name in _ENV_NAMES}
    commands: dict[str, str] = {}
    if _payload(platform_answer).get("system") == "Darwin":
        result = system.run(_MACOS_CPU_COMMAND, timeout_s=5.0)
        if result.ok:
            commands[" ".join(_MACOS_CPU_COMMAND)] = result.stdout
    return HostEvidence(psutil=psutil_answer, platform=platform_answer, files=files,
                        stats=stats, env=env, commands=commands)


# ----------------------------------------------------------------------------- building


def _payload(answer: JsonValue) -> dict[str, JsonValue]:
    return answer if isinstance(answer, dict) else {}


def _library_status(answer: JsonValue) -> tuple[ProbeState, str | None]:
    payload = _payload(answer)
    raw = payload.get("status")
    error = payload.get("error")
    error_text = str(error) if error is not None else None
    try:
        state = ProbeState(raw)
    except (ValueError, TypeError):  # TypeError: an unhashable status such as a list
        return ProbeState.ERROR, error_text or message("unexpected answer: {answer}",
                                                       answer=str(answer)[:200])
    return state, error_text


def _library_problem(name: str, answer: JsonValue) -> str:
    """Why a library gave nothing usable, as a short phrase."""
    state, error = _library_status(answer)
    if state is ProbeState.NOT_CAPTURED:
        return message("{library} not captured in this snapshot", library=name)
    if state is ProbeState.LIBRARY_MISSING:
        return message("{library} is not installed", library=name)
    return message("{library} failed ({error})", library=name, error=error or state.value)


def _str_field(payload: Mapping[str, JsonValue], key: str) -> str | None:
    value = payload.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _int_field(payload: Mapping[str, JsonValue], key: str) -> int | None:
    value = payload.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _str_list(payload: Mapping[str, JsonValue], key: str) -> list[str]:
    value = payload.get(key)
    if not isinstance(value, list):
        return []
    return [str(v) for v in value if v is not None]


_WINDOWS_11_FIRST_BUILD = 22000  # Windows 11 reports release "10" before Python 3.12


def _windows_distro(payload: Mapping[str, JsonValue]) -> str | None:
    win32 = _str_list(payload, "win32_ver")
    release = (win32[0] if win32 else "") or (_str_field(payload, "release") or "")
    version = (win32[1] if len(win32) > 1 else "") or (_str_field(payload, "version") or "")
    build_match = re.search(r"^\d+\.\d+\.(\d+)", version)
    build = int(build_match.group(1)) if build_match else None
    if release == "10" and build is not None and build >= _WINDOWS_11_FIRST_BUILD:
        release = "11"
    if not release:
        return None
    parts = [f"Windows {release}"]
    edition = _str_field(payload, "win32_edition")
    if edition:
        parts.append(edition)
    if build is not None:
        parts.append(f"(build {build})")
    return " ".join(parts)


class _HostBuilder:
    """Collects field values with their sources and reasons."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}
        self.missing: dict[str, str] = {}

    def set(self, name: str, value: Any, source: str) -> None:
        self.values[name] = value
        self.sources[name] = source
        self.missing.pop(name, None)

    def miss(self, name: str, reason: str) -> None:
        if name not in self.values:
            self.missing[name] = reason

    def host(self) -> Host:
        values = self.values
        return Host(
            os=values.get("os", "unknown"),
            distro=values.get("distro"),
            kernel=values.get("kernel"),
            architecture=values.get("architecture"),
            cpu_model=values.get("cpu_model"),
            cpu_physical_cores=values.get("cpu_physical_cores"),
            cpu_logical_cores=values.get("cpu_logical_cores"),
            ram_total_bytes=values.get("ram_total_bytes"),
            swap_total_bytes=values.get("swap_total_bytes"),
            hostname=values.get("hostname"),
            python_version=values.get("python_version"),
            wsl=bool(values.get("wsl", False)),
            container=bool(values.get("container", False)),
            container_hint=values.get("container_hint"),
            virtual_machine=bool(values.get("virtual_machine", False)),
            virtual_machine_hint=values.get("virtual_machine_hint"),
            field_sources=dict(sorted(self.sources.items())),
            missing_reasons=dict(sorted(self.missing.items())),
        )


@dataclass(frozen=True, slots=True)
class _LibraryAnswers:
    """What the platform module and psutil answered, and why not where they did not."""

    platform: Mapping[str, JsonValue]
    platform_ok: bool
    platform_problem: str | None
    psutil: Mapping[str, JsonValue]
    psutil_ok: bool
    psutil_problem: str | None
    system_name: str | None  # platform.system(): "Linux", "Windows", "Darwin"

    @classmethod
    def of(cls, evidence: HostEvidence) -> _LibraryAnswers:
        platform_ok = _library_status(evidence.platform)[0] is ProbeState.OK
        psutil_ok = _library_status(evidence.psutil)[0] is ProbeState.OK
        platform = _payload(evidence.platform)
        return cls(
            platform=platform, platform_ok=platform_ok,
            platform_problem=None if platform_ok else _library_problem("platform",
                                                                       evidence.platform),
            psutil=_payload(evidence.psutil), psutil_ok=psutil_ok,
            psutil_problem=None if psutil_ok else _library_problem("psutil", evidence.psutil),
            system_name=_str_field(platform, "system") if platform_ok else None,
        )


def build_host(evidence: HostEvidence) -> tuple[Host, tuple[DeviceNodeAccess, ...]]:
    """Pure: the evidence to a Host (and the /dev/dxg node under WSL)."""
    found = _HostBuilder()
    libs = _LibraryAnswers.of(evidence)
    kernel_text = _read_kernel(found, evidence, libs)
    wsl = _read_os(found, evidence, libs, kernel_text)
    _read_distro(found, evidence, libs)
    _read_platform_names(found, evidence, libs)
    cpuinfo_read = evidence.read(CPUINFO_PATH)
    cpu = parse_cpuinfo(cpuinfo_read.text) if cpuinfo_read.ok and cpuinfo_read.text else CpuInfo()
    cpuinfo_problem = (_unreadable(CPUINFO_PATH, cpuinfo_read.error)
                       if not cpuinfo_read.ok else None)
    _read_cpu_model(found, evidence, libs, cpu, cpuinfo_problem)
    _read_cpu_counts(found, libs, cpu, cpuinfo_problem)
    _read_memory(found, evidence, libs)
    _read_container(found, evidence, libs)
    _read_virtual_machine(found, evidence, libs, cpu, cpuinfo_problem)
    return found.host(), _device_nodes(evidence, wsl)


def _read_kernel(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers) -> str:
    """The kernel release: the file first, then platform.release(), then /proc/version.
    Returns the text WSL is recognised by (the release and /proc/version)."""
    plat = libs.platform
    osrelease = evidence.text(OSRELEASE_PATH)
    proc_version = evidence.text(PROC_VERSION_PATH)
    if libs.system_name == "Windows":
        win32 = _str_list(plat, "win32_ver")
        kernel = (win32[1] if len(win32) > 1 else "") or _str_field(plat, "version")
        if kernel:
            found.set("kernel", kernel, "platform.win32_ver()")
    elif osrelease:
        found.set("kernel", osrelease, OSRELEASE_PATH)
    elif libs.platform_ok and _str_field(plat, "release"):
        found.set("kernel", _str_field(plat, "release"), "platform.release()")
    elif proc_version and parse_proc_version_release(proc_version):
        found.set("kernel", parse_proc_version_release(proc_version), PROC_VERSION_PATH)
    if libs.system_name == "Windows":
        found.miss("kernel", message("platform.win32_ver() gave no version"))
    else:
        problem = libs.platform_problem
        unreadable = _unreadable(OSRELEASE_PATH, evidence.read(OSRELEASE_PATH).error)
        found.miss("kernel", join("; ", [unreadable, problem]) if problem else unreadable)
    return " ".join(t for t in (found.values.get("kernel"), proc_version) if t)


def _read_os(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers,
             kernel_text: str) -> bool:
    """The operating system, and whether it is WSL (returned)."""
    system_name = libs.system_name
    osrelease = evidence.text(OSRELEASE_PATH)
    linux_evidence = osrelease is not None or evidence.text(PROC_VERSION_PATH) is not None
    wsl = False
    if system_name == "Windows":
        found.set("os", "windows", "platform.system()")
    elif system_name == "Darwin":
        found.set("os", "macos", "platform.system()")
    elif system_name == "Linux" or (system_name is None and linux_evidence):
        source = "platform.system()" if system_name else (
            OSRELEASE_PATH if osrelease is not None else PROC_VERSION_PATH)
        wsl = is_wsl_kernel(kernel_text)
        if wsl:
            found.set("os", "wsl", f"{source}; 'microsoft'/'WSL' in the kernel string")
        else:
            found.set("os", "linux", source)
    else:
        found.miss("os", message("platform.system() said {name!r}", name=system_name)
                   if system_name else message(
                       "{problem} and no /proc", problem=libs.platform_problem
                       or message("platform gave no system name")))
    if wsl:
        dxg_present = evidence.exists(DXG_PATH)
        kernel = found.values.get("kernel")
        detail = f"{wsl_generation(kernel_text, dxg_present)}: kernel {kernel!r}"
        detail += "; /dev/dxg present (GPU paravirtualisation)" if dxg_present else \
            "; no /dev/dxg (no GPU paravirtualisation)"
        distro_name = evidence.env.get("WSL_DISTRO_NAME")
        if distro_name:
            detail += f"; WSL_DISTRO_NAME={distro_name}"
        found.set("wsl", True, detail)
    return wsl


def _read_distro(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers) -> None:
    """Windows and macOS from the platform module, anything else from os-release."""
    if libs.system_name == "Windows":
        distro = _windows_distro(libs.platform)
        if distro:
            found.set("distro", distro, "platform.win32_ver(), platform.win32_edition()")
        else:
            found.miss("distro", message("platform.win32_ver() gave no release"))
        return
    if libs.system_name == "Darwin":
        mac = _str_list(libs.platform, "mac_ver")
        if mac and mac[0]:
            found.set("distro", f"macOS {mac[0]}", "platform.mac_ver()")
        else:
            found.miss("distro", message("platform.mac_ver() gave no release"))
        return
    reasons: list[str] = []
    for path in OS_RELEASE_PATHS:
        read = evidence.read(path)
        if read.ok and read.text is not None:
            values = parse_os_release(read.text)
            name = os_release_pretty_name(values)
            if name:
                key = "PRETTY_NAME" if values.get("PRETTY_NAME", "").strip() else "NAME"
                found.set("distro", name, f"{path} {key}")
                break
            reasons.append(message("{path} has no PRETTY_NAME or NAME", path=path))
        else:
            reasons.append(_unreadable(path, read.error))
    found.miss("distro", join("; ", reasons))


def _read_platform_names(found: _HostBuilder, evidence: HostEvidence,
                         libs: _LibraryAnswers) -> None:
    """Architecture, hostname (else the kernel's hostname file) and Python version."""
    for name, key, call in (("architecture", "machine", "platform.machine()"),
                            ("hostname", "node", "platform.node()"),
                            ("python_version", "python_version", "platform.python_version()")):
        value = _str_field(libs.platform, key) if libs.platform_ok else None
        if value:
            found.set(name, value, call)
        else:
            found.miss(name, libs.platform_problem or message("{call} was empty", call=call))
    if "hostname" not in found.values and evidence.text(HOSTNAME_PATH):
        found.set("hostname", evidence.text(HOSTNAME_PATH), HOSTNAME_PATH)


def _read_cpu_model(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers,
                    cpu: CpuInfo, cpuinfo_problem: str | None) -> None:
    """/proc/cpuinfo's model, else macOS's sysctl, else platform.processor() when it names
    more than the architecture."""
    if cpu.model:
        found.set("cpu_model", cpu.model, f"{CPUINFO_PATH} {cpu.model_field!r}")
        return
    plat = libs.platform
    sysctl = evidence.commands.get(" ".join(_MACOS_CPU_COMMAND), "").strip()
    processor = _str_field(plat, "processor") if libs.platform_ok else None
    if sysctl:
        found.set("cpu_model", sysctl, " ".join(_MACOS_CPU_COMMAND))
    elif processor and processor.lower() not in {
        "unknown", "arm", "i386", (_str_field(plat, "machine") or "").lower(),
    }:
        found.set("cpu_model", processor, "platform.processor()")
    if libs.system_name in ("Windows", "Darwin"):
        found.miss("cpu_model", message("platform.processor() named no CPU model"))
    else:
        found.miss("cpu_model", cpuinfo_problem
                   or message("{path} names no CPU model", path=CPUINFO_PATH))


def _read_cpu_counts(found: _HostBuilder, libs: _LibraryAnswers, cpu: CpuInfo,
                     cpuinfo_problem: str | None) -> None:
    """Logical and physical cores from psutil, else counted in /proc/cpuinfo."""
    if libs.psutil_ok:
        for name, key in (("cpu_logical_cores", "cpu_logical"),
                          ("cpu_physical_cores", "cpu_physical")):
            count = _int_field(libs.psutil, key)
            if count:
                found.set(name, count, f"psutil.cpu_count(logical={key == 'cpu_logical'})")
    ps_problem = libs.psutil_problem
    for name, counted in (("cpu_logical_cores", cpu.logical_cpus),
                          ("cpu_physical_cores", cpu.physical_cores)):
        if name not in found.values and counted:
            what = ("'processor' entries" if name == "cpu_logical_cores"
                    else "distinct 'physical id'/'core id' pairs")
            note = f" ({ps_problem})" if ps_problem else ""
            found.set(name, counted, f"{CPUINFO_PATH} {what}{note}")
        found.miss(name, join("; ", [p for p in (
            ps_problem or message("psutil gave no count"),
            cpuinfo_problem or (message("{path} has no 'core id'", path=CPUINFO_PATH)
                                if name == "cpu_physical_cores" else None),
        ) if p]))


def _read_memory(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers) -> None:
    """RAM and swap totals from psutil, else /proc/meminfo."""
    meminfo_read = evidence.read(MEMINFO_PATH)
    for name, ps_key, meminfo_key, call in (
        ("ram_total_bytes", "ram_total_bytes", "MemTotal", "psutil.virtual_memory().total"),
        ("swap_total_bytes", "swap_total_bytes", "SwapTotal", "psutil.swap_memory().total"),
    ):
        size = _int_field(libs.psutil, ps_key) if libs.psutil_ok else None
        if size is not None and (size > 0 or name == "swap_total_bytes"):
            found.set(name, size, call)
            continue
        fallback = (parse_meminfo_kib(meminfo_read.text, meminfo_key)
                    if meminfo_read.ok and meminfo_read.text else None)
        why = libs.psutil_problem or message("{call} gave nothing", call=call)
        if fallback is not None:
            found.set(name, fallback, f"{MEMINFO_PATH} {meminfo_key} ({why})")
        elif meminfo_read.ok:
            found.miss(name, join("; ", [why, message("{path} has no {key}", path=MEMINFO_PATH,
                                                      key=meminfo_key)]))
        else:
            found.miss(name, join("; ", [why, _unreadable(MEMINFO_PATH, meminfo_read.error)]))


def _read_container(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers) -> None:
    """The marks container engines leave: /.dockerenv, /run/.containerenv, the `container`
    variable and PID 1's cgroup."""
    container_hints: list[str] = []
    if evidence.exists(DOCKERENV_PATH):
        container_hints.append(f"docker ({DOCKERENV_PATH})")
    containerenv = evidence.read(CONTAINERENV_PATH)
    if evidence.exists(CONTAINERENV_PATH) or containerenv.ok:
        engine = parse_containerenv_engine(containerenv.text or "")
        label = "podman" if not engine or engine.startswith("podman") else engine
        container_hints.append(f"{label} ({CONTAINERENV_PATH})")
    container_env = (evidence.env.get("container") or "").strip()
    if container_env:
        container_hints.append(f"{container_env} (env container={container_env})")
    cgroup = evidence.text(PID1_CGROUP_PATH)
    for engine in container_engines_in_cgroup(cgroup or ""):
        container_hints.append(f"{engine} ({PID1_CGROUP_PATH})")
    if container_hints:
        found.set("container", True, "; ".join(container_hints))
        found.values["container_hint"] = "; ".join(container_hints)
    elif libs.system_name in (None, "Linux"):
        found.sources["container"] = (f"no {DOCKERENV_PATH}, no {CONTAINERENV_PATH}, no env "
                                  f"container, nothing in {PID1_CGROUP_PATH}")


def _read_virtual_machine(found: _HostBuilder, evidence: HostEvidence, libs: _LibraryAnswers,
                          cpu: CpuInfo, cpuinfo_problem: str | None) -> None:
    """A hypervisor named by the DMI ids or /sys/hypervisor, or the CPU's hypervisor flag."""
    vm_hints: list[str] = []
    dmi = dmi_hypervisor(evidence.text(DMI_SYS_VENDOR_PATH), evidence.text(DMI_PRODUCT_NAME_PATH))
    if dmi:
        vm_hints.append(dmi)
    hypervisor_type = evidence.text(HYPERVISOR_TYPE_PATH)
    if hypervisor_type:
        vm_hints.append(f"{hypervisor_type} ({HYPERVISOR_TYPE_PATH})")
    if cpu.hypervisor_flag:
        vm_hints.append(f"hypervisor CPU flag ({CPUINFO_PATH})")
    if vm_hints:
        found.set("virtual_machine", True, "; ".join(vm_hints))
        found.values["virtual_machine_hint"] = "; ".join(vm_hints)
    elif libs.system_name in (None, "Linux") and cpuinfo_problem is None:
        found.sources["virtual_machine"] = (f"no hypervisor CPU flag, DMI ids name no hypervisor, "
                                        f"no {HYPERVISOR_TYPE_PATH}")
    elif libs.system_name in (None, "Linux"):
        found.missing["virtual_machine"] = cpuinfo_problem or message("no evidence read")


def _device_nodes(evidence: HostEvidence, wsl: bool) -> tuple[DeviceNodeAccess, ...]:
    """/dev/dxg, WSL2's GPU paravirtualisation device, under WSL or wherever it exists."""
    dxg_present = evidence.exists(DXG_PATH)
    if not (wsl or dxg_present):
        return ()
    dxg = evidence.stats.get(DXG_PATH)
    return (DeviceNodeAccess(
        path=DXG_PATH, exists=dxg_present,
        mode=dxg.mode_string if dxg is not None else None,
        reason=(message("WSL2 GPU paravirtualisation device") if dxg_present else
                message("no /dev/dxg: this WSL instance has no GPU paravirtualisation")),
    ),)


def _summary(host: Host, wsl_kind: str | None) -> str:
    os_name = host.distro or {"wsl": "WSL", "linux": "Linux", "windows": "Windows",
                              "macos": "macOS"}.get(host.os) or message("unknown OS")
    parts = [message("{os} ({kind})", os=os_name, kind=wsl_kind or "WSL") if host.wsl
             else os_name]
    if host.kernel:
        parts.append(message("kernel {kernel}", kernel=host.kernel))
    if host.cpu_logical_cores:
        parts.append(message("{count} logical CPUs", count=host.cpu_logical_cores))
    if host.ram_total_bytes:
        parts.append(message("{size} RAM", size=format_bytes(host.ram_total_bytes)))
    sections = [join(", ", parts)]
    if host.container and host.container_hint:
        sections.append(message("container: {engine}",
                                engine=host.container_hint.split(" (", 1)[0]))
    # Under WSL2 the hypervisor is a given; elsewhere name it when the DMI ids did.
    if host.virtual_machine and host.virtual_machine_hint and not host.wsl:
        first = host.virtual_machine_hint.split("; ", 1)[0]
        if first.startswith("hypervisor CPU flag"):
            sections.append(message("virtual machine (hypervisor CPU flag)"))
        else:
            sections.append(message("virtual machine: {hypervisor}",
                                    hypervisor=first.split(" (", 1)[0]))
    return join("; ", sections)


def _unreadable(path: str, error: str | None) -> str:
    return message("{path} unreadable ({error})", path=path, error=error)


def build_host_result(evidence: HostEvidence) -> ProbeResult:
    """Pure: the evidence to the host probe's result."""
    host, nodes = build_host(evidence)
    wsl_kind = (wsl_generation(host.kernel or "", evidence.exists(DXG_PATH))
                if host.wsl else None)
    read_any = any(
        (name in host.field_sources) for name in (
            "os", "distro", "kernel", "architecture", "cpu_model", "cpu_logical_cores",
            "ram_total_bytes", "hostname", "python_version",
        )
    )
    if not read_any:
        plat_state = _library_status(evidence.platform)[0]
        ps_state = _library_status(evidence.psutil)[0]
        if plat_state is ProbeState.NOT_CAPTURED and ps_state is ProbeState.NOT_CAPTURED:
            status = ProbeStatus(PROBE_NAME, ProbeState.NOT_CAPTURED,
                                 reason=message("host details not captured in this snapshot"))
        else:
            status = ProbeStatus(
                PROBE_NAME, ProbeState.ERROR,
                reason=message("nothing about the host could be read (no platform, psutil or "
                               "/proc)"),
                hint=message("run gpuscope on the machine itself, or capture a snapshot there"),
            )
        return ProbeResult(status=status, host=host, device_nodes=nodes)
    hint = None
    ps_state = _library_status(evidence.psutil)[0]
    if ps_state is ProbeState.LIBRARY_MISSING:
        hint = message("install psutil (pip install psutil) for CPU core and memory counts on "
                       "any OS")
    return ProbeResult(
        status=ProbeStatus(PROBE_NAME, ProbeState.OK, reason=_summary(host, wsl_kind), hint=hint),
        host=host, device_nodes=nodes,
    )


def probe_host(system: System) -> ProbeResult:
    """CPU, RAM, OS, distribution, kernel, WSL, container and virtual machine. Never raises."""
    try:
        return build_host_result(gather_host_evidence(system))
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return probe_bug(PROBE_NAME, message("host probe failed: {error}",
                                             error=f"{type(exc).__name__}: {exc}"))
