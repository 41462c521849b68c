"""The host probe: CPU, RAM, OS, distribution, kernel, and whether gpuscope runs under WSL,
in a container or in a virtual machine.

Evidence comes from psutil and the `platform` module (each through `system.library`) and from
files: /etc/os-release, /proc/cpuinfo, /proc/meminfo, /proc/version, DMI ids in sysfs, and the
marker files container engines leave behind. `gather_host_evidence` does all the reading;
`build_host_result` turns that evidence into a ProbeResult and is pure, so tests can feed it
evidence directly.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuscope.evidence import FileRead, StatInfo, System
from gpuscope.model import (
    DeviceNodeAccess,
    Host,
    JsonValue,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    format_bytes,
)

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


# ----------------------------------------------------------------------------- parsers

_OS_RELEASE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# In double quotes the shell honours a backslash only before these characters.
_DOUBLE_QUOTED_ESCAPE = re.compile(r'\\([$"\\`])')
_UNQUOTED_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unquote_os_release_value(raw: str) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if value[0] == "'":
            return inner
        return _DOUBLE_QUOTED_ESCAPE.sub(r"\1", inner)
    return _UNQUOTED_ESCAPE.sub(r"\1", value)


def parse_os_release(text: str) -> dict[str, str]:
    """os-release(5): `KEY=value` lines, values optionally in single or double quotes with
    shell-style backslash escapes; `#` comments and blank lines ignored."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or "=" not in stripped:
            continue
        key, _, raw = stripped.partition("=")
        key = key.strip()
        if _OS_RELEASE_KEY.match(key):
            values[key] = _unquote_os_release_value(raw)
    return values


def os_release_pretty_name(values: Mapping[str, str]) -> str | None:
    """PRETTY_NAME, else NAME with VERSION_ID (or VERSION), else NAME."""
    pretty = values.get("PRETTY_NAME", "").strip()
    if pretty:
        return pretty
    name = values.get("NAME", "").strip()
    version = values.get("VERSION_ID", "").strip() or values.get("VERSION", "").strip()
    if name and version:
        return f"{name} {version}"
    return name or None


@dataclass(frozen=True, slots=True)
class CpuInfo:
    model: str | None = None
    model_field: str | None = None  # which /proc/cpuinfo field gave `model`
    logical_cpus: int | None = None
    physical_cores: int | None = None
    flags: frozenset[str] = frozenset()

    @property
    def hypervisor_flag(self) -> bool:
        return "hypervisor" in self.flags


def parse_cpuinfo(text: str) -> CpuInfo:
    """/proc/cpuinfo: `model name` on x86, `Hardware` or `Model` on ARM boards; logical CPUs
    are the `processor` entries; physical cores the distinct (`physical id`, `core id`)."""
    fields: dict[str, str] = {}
    processors = 0
    cores: set[tuple[str, str]] = set()
    flags: set[str] = set()
    physical_id = ""
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip().lower()
        value = value.strip()
        if key == "processor":
            processors += 1
            physical_id = ""
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            cores.add((physical_id, value))
        elif key in ("flags", "features"):
            flags.update(value.split())
        if value and key not in fields:
            fields[key] = value
    model: str | None = None
    model_field: str | None = None
    for candidate in ("model name", "hardware", "model", "cpu model", "cpu"):
        found = fields.get(candidate)
        # x86's `model` is a number (the family's model id), not a name.
        if found and not (candidate == "model" and found.isdigit()):
            model, model_field = " ".join(found.split()), candidate
            break
    return CpuInfo(
        model=model, model_field=model_field,
        logical_cpus=processors or None, physical_cores=len(cores) or None,
        flags=frozenset(flags),
    )


def parse_meminfo_kib(text: str, key: str) -> int | None:
    """A `/proc/meminfo` value in bytes: `MemTotal:  32803740 kB` -> 33591029760."""
    pattern = re.compile(rf"^{re.escape(key)}:\s*(\d+)\s*(kB)?\s*$", re.MULTILINE)
    match = pattern.search(text)
    if match is None:
        return None
    value = int(match.group(1))
    return value * 1024 if match.group(2) else value


def parse_proc_version_release(text: str) -> str | None:
    """`Linux version 6.8.0-45-generic (buildd@...) ...` -> `6.8.0-45-generic`."""
    match = re.search(r"\bLinux version (\S+)", text)
    return match.group(1) if match else None


_WSL_MARKER = re.compile(r"microsoft|wsl", re.IGNORECASE)


def is_wsl_kernel(kernel_text: str) -> bool:
    """WSL kernels say so: `5.15.153.1-microsoft-standard-WSL2` (WSL2), `4.4.0-19041-Microsoft`
    (WSL1)."""
    return bool(_WSL_MARKER.search(kernel_text))


def wsl_generation(kernel_text: str, dxg_present: bool) -> str:
    lowered = kernel_text.lower()
    if "wsl2" in lowered or "microsoft-standard" in lowered or dxg_present:
        return "WSL2"
    if re.search(r"-microsoft\b", lowered):
        return "WSL1"
    return "WSL"


_CGROUP_CONTAINER = re.compile(r"\b(docker|kubepods|containerd|lxc|libpod)\b")


def container_engines_in_cgroup(text: str) -> list[str]:
    """Container runtimes named in /proc/1/cgroup (cgroup v1 paths such as
    `/docker/<id>`, `/kubepods/...`, `/lxc/<name>`, `libpod-<id>.scope`)."""
    found: list[str] = []
    for line in text.splitlines():
        for match in _CGROUP_CONTAINER.finditer(line):
            if match.group(1) not in found:
                found.append(match.group(1))
    return found


def parse_containerenv_engine(text: str) -> str | None:
    """/run/.containerenv (podman) may hold `engine="podman-4.9.3"`."""
    values = parse_os_release(text)
    engine = values.get("engine", "").strip()
    return engine or None


# (name shown, pattern) in the order checked; the DMI product name is tried before the vendor
# so that a KVM guest whose vendor is "QEMU" but whose product is "KVM" reads as KVM.
_DMI_HYPERVISORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("KVM", re.compile(r"\bKVM\b")),
    ("QEMU", re.compile(r"\bQEMU\b", re.IGNORECASE)),
    ("VMware", re.compile(r"VMware", re.IGNORECASE)),
    ("VirtualBox", re.compile(r"VirtualBox|innotek", re.IGNORECASE)),
    ("Xen", re.compile(r"\bXen\b|HVM domU", re.IGNORECASE)),
    ("Amazon EC2", re.compile(r"Amazon EC2")),
    ("Google Compute Engine", re.compile(r"Google Compute Engine")),
    ("Parallels", re.compile(r"Parallels", re.IGNORECASE)),
    ("Bochs", re.compile(r"Bochs", re.IGNORECASE)),
)


def dmi_hypervisor(sys_vendor: str | None, product_name: str | None) -> str | None:
    """A hint such as `KVM (DMI product name 'KVM')` when the DMI ids name a hypervisor."""
    vendor = (sys_vendor or "").strip()
    product = (product_name or "").strip()
    # Microsoft's own hardware (Surface) shares the vendor; only Hyper-V says "Virtual Machine".
    if vendor == "Microsoft Corporation" and product == "Virtual Machine":
        return f"Hyper-V (DMI sys_vendor {vendor!r}, product name {product!r})"
    for name, pattern in _DMI_HYPERVISORS:
        if product and pattern.search(product):
            return f"{name} (DMI product name {product!r})"
        if vendor and pattern.search(vendor):
            return f"{name} (DMI sys_vendor {vendor!r})"
    return None


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
        return ProbeState.ERROR, error_text or f"unexpected answer: {str(answer)[:200]}"
    return state, error_text


def _library_problem(name: str, answer: JsonValue) -> str:
    """Why a library gave nothing usable, as a short phrase."""
    state, error = _library_status(answer)
    if state is ProbeState.NOT_CAPTURED:
        return f"{name} not captured in this snapshot"
    if state is ProbeState.LIBRARY_MISSING:
        return f"{name} is not installed"
    return f"{name} failed ({error or state.value})"


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


def build_host(evidence: HostEvidence) -> tuple[Host, tuple[DeviceNodeAccess, ...]]:
    """Pure: the evidence to a Host (and the /dev/dxg node under WSL)."""
    b = _HostBuilder()
    plat = _payload(evidence.platform)
    plat_ok = _library_status(evidence.platform)[0] is ProbeState.OK
    ps = _payload(evidence.psutil)
    ps_ok = _library_status(evidence.psutil)[0] is ProbeState.OK
    plat_problem = None if plat_ok else _library_problem("platform", evidence.platform)
    ps_problem = None if ps_ok else _library_problem("psutil", evidence.psutil)
    system_name = _str_field(plat, "system") if plat_ok else None

    # Kernel release: the file first, then platform.release(), then /proc/version.
    osrelease = evidence.text(OSRELEASE_PATH)
    proc_version = evidence.text(PROC_VERSION_PATH)
    if system_name == "Windows":
        win32 = _str_list(plat, "win32_ver")
        kernel = (win32[1] if len(win32) > 1 else "") or _str_field(plat, "version")
        if kernel:
            b.set("kernel", kernel, "platform.win32_ver()")
    elif osrelease:
        b.set("kernel", osrelease, OSRELEASE_PATH)
    elif plat_ok and _str_field(plat, "release"):
        b.set("kernel", _str_field(plat, "release"), "platform.release()")
    elif proc_version and parse_proc_version_release(proc_version):
        b.set("kernel", parse_proc_version_release(proc_version), PROC_VERSION_PATH)
    if system_name == "Windows":
        b.miss("kernel", "platform.win32_ver() gave no version")
    else:
        b.miss("kernel", f"{OSRELEASE_PATH} unreadable ({evidence.read(OSRELEASE_PATH).error})"
               + (f"; {plat_problem}" if plat_problem else ""))
    kernel_text = " ".join(t for t in (b.values.get("kernel"), proc_version) if t)

    # Operating system.
    linux_evidence = osrelease is not None or proc_version is not None
    dxg_present = evidence.exists(DXG_PATH)
    wsl = False
    if system_name == "Windows":
        b.set("os", "windows", "platform.system()")
    elif system_name == "Darwin":
        b.set("os", "macos", "platform.system()")
    elif system_name == "Linux" or (system_name is None and linux_evidence):
        source = "platform.system()" if system_name else (
            OSRELEASE_PATH if osrelease is not None else PROC_VERSION_PATH)
        wsl = is_wsl_kernel(kernel_text)
        if wsl:
            b.set("os", "wsl", f"{source}; 'microsoft'/'WSL' in the kernel string")
        else:
            b.set("os", "linux", source)
    else:
        b.miss("os", f"platform.system() said {system_name!r}" if system_name
               else (plat_problem or "platform gave no system name") + " and no /proc")
    wsl_kind = wsl_generation(kernel_text, dxg_present) if wsl else None
    if wsl:
        detail = f"{wsl_kind}: kernel {b.values.get('kernel')!r}"
        detail += "; /dev/dxg present (GPU paravirtualisation)" if dxg_present else \
            "; no /dev/dxg (no GPU paravirtualisation)"
        distro_name = evidence.env.get("WSL_DISTRO_NAME")
        if distro_name:
            detail += f"; WSL_DISTRO_NAME={distro_name}"
        b.set("wsl", True, detail)

    # Distribution.
    if system_name == "Windows":
        distro = _windows_distro(plat)
        if distro:
            b.set("distro", distro, "platform.win32_ver(), platform.win32_edition()")
        else:
            b.miss("distro", "platform.win32_ver() gave no release")
    elif system_name == "Darwin":
        mac = _str_list(plat, "mac_ver")
        if mac and mac[0]:
            b.set("distro", f"macOS {mac[0]}", "platform.mac_ver()")
        else:
            b.miss("distro", "platform.mac_ver() gave no release")
    else:
        reasons = []
        for path in OS_RELEASE_PATHS:
            read = evidence.read(path)
            if read.ok and read.text is not None:
                values = parse_os_release(read.text)
                name = os_release_pretty_name(values)
                if name:
                    key = "PRETTY_NAME" if values.get("PRETTY_NAME", "").strip() else "NAME"
                    b.set("distro", name, f"{path} {key}")
                    break
                reasons.append(f"{path} has no PRETTY_NAME or NAME")
            else:
                reasons.append(f"{path} unreadable ({read.error})")
        b.miss("distro", "; ".join(reasons))

    # Architecture, hostname, Python.
    for name, key, call in (("architecture", "machine", "platform.machine()"),
                            ("hostname", "node", "platform.node()"),
                            ("python_version", "python_version", "platform.python_version()")):
        value = _str_field(plat, key) if plat_ok else None
        if value:
            b.set(name, value, call)
        else:
            b.miss(name, plat_problem or f"{call} was empty")
    if "hostname" not in b.values and evidence.text(HOSTNAME_PATH):
        b.set("hostname", evidence.text(HOSTNAME_PATH), HOSTNAME_PATH)

    # CPU.
    cpuinfo_read = evidence.read(CPUINFO_PATH)
    cpu = parse_cpuinfo(cpuinfo_read.text) if cpuinfo_read.ok and cpuinfo_read.text else CpuInfo()
    cpuinfo_problem = (f"{CPUINFO_PATH} unreadable ({cpuinfo_read.error})"
                       if not cpuinfo_read.ok else None)
    if cpu.model:
        b.set("cpu_model", cpu.model, f"{CPUINFO_PATH} {cpu.model_field!r}")
    else:
        sysctl = evidence.commands.get(" ".join(_MACOS_CPU_COMMAND), "").strip()
        processor = _str_field(plat, "processor") if plat_ok else None
        if sysctl:
            b.set("cpu_model", sysctl, " ".join(_MACOS_CPU_COMMAND))
        elif processor and processor.lower() not in {
            "unknown", "arm", "i386", (_str_field(plat, "machine") or "").lower(),
        }:
            b.set("cpu_model", processor, "platform.processor()")
        if system_name in ("Windows", "Darwin"):
            b.miss("cpu_model", "platform.processor() named no CPU model")
        else:
            b.miss("cpu_model", cpuinfo_problem or f"{CPUINFO_PATH} names no CPU model")

    if ps_ok:
        for name, key in (("cpu_logical_cores", "cpu_logical"),
                          ("cpu_physical_cores", "cpu_physical")):
            count = _int_field(ps, key)
            if count:
                b.set(name, count, f"psutil.cpu_count(logical={key == 'cpu_logical'})")
    for name, counted in (("cpu_logical_cores", cpu.logical_cpus),
                          ("cpu_physical_cores", cpu.physical_cores)):
        if name not in b.values and counted:
            what = ("'processor' entries" if name == "cpu_logical_cores"
                    else "distinct 'physical id'/'core id' pairs")
            note = f" ({ps_problem})" if ps_problem else ""
            b.set(name, counted, f"{CPUINFO_PATH} {what}{note}")
        b.miss(name, "; ".join(p for p in (
            ps_problem or "psutil gave no count",
            cpuinfo_problem or (f"{CPUINFO_PATH} has no 'core id'"
                                if name == "cpu_physical_cores" else None),
        ) if p))

    # Memory.
    meminfo_read = evidence.read(MEMINFO_PATH)
    for name, ps_key, meminfo_key, call in (
        ("ram_total_bytes", "ram_total_bytes", "MemTotal", "psutil.virtual_memory().total"),
        ("swap_total_bytes", "swap_total_bytes", "SwapTotal", "psutil.swap_memory().total"),
    ):
        size = _int_field(ps, ps_key) if ps_ok else None
        if size is not None and (size > 0 or name == "swap_total_bytes"):
            b.set(name, size, call)
            continue
        fallback = (parse_meminfo_kib(meminfo_read.text, meminfo_key)
                    if meminfo_read.ok and meminfo_read.text else None)
        why = ps_problem or f"{call} gave nothing"
        if fallback is not None:
            b.set(name, fallback, f"{MEMINFO_PATH} {meminfo_key} ({why})")
        elif meminfo_read.ok:
            b.miss(name, f"{why}; {MEMINFO_PATH} has no {meminfo_key}")
        else:
            b.miss(name, f"{why}; {MEMINFO_PATH} unreadable ({meminfo_read.error})")

    # Container.
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
        b.set("container", True, "; ".join(container_hints))
        b.values["container_hint"] = "; ".join(container_hints)
    elif system_name in (None, "Linux"):
        b.sources["container"] = (f"no {DOCKERENV_PATH}, no {CONTAINERENV_PATH}, no env "
                                  f"container, nothing in {PID1_CGROUP_PATH}")

    # Virtual machine.
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
        b.set("virtual_machine", True, "; ".join(vm_hints))
        b.values["virtual_machine_hint"] = "; ".join(vm_hints)
    elif system_name in (None, "Linux") and cpuinfo_read.ok:
        b.sources["virtual_machine"] = (f"no hypervisor CPU flag, DMI ids name no hypervisor, "
                                        f"no {HYPERVISOR_TYPE_PATH}")
    elif system_name in (None, "Linux"):
        b.missing["virtual_machine"] = cpuinfo_problem or "no evidence read"

    nodes: tuple[DeviceNodeAccess, ...] = ()
    if wsl or dxg_present:
        dxg = evidence.stats.get(DXG_PATH)
        nodes = (DeviceNodeAccess(
            path=DXG_PATH, exists=dxg_present,
            mode=dxg.mode_string if dxg is not None else None,
            reason=("WSL2 GPU paravirtualisation device" if dxg_present else
                    "no /dev/dxg: this WSL instance has no GPU paravirtualisation"),
        ),)

    host = Host(
        os=b.values.get("os", "unknown"),
        distro=b.values.get("distro"),
        kernel=b.values.get("kernel"),
        architecture=b.values.get("architecture"),
        cpu_model=b.values.get("cpu_model"),
        cpu_physical_cores=b.values.get("cpu_physical_cores"),
        cpu_logical_cores=b.values.get("cpu_logical_cores"),
        ram_total_bytes=b.values.get("ram_total_bytes"),
        swap_total_bytes=b.values.get("swap_total_bytes"),
        hostname=b.values.get("hostname"),
        python_version=b.values.get("python_version"),
        wsl=bool(b.values.get("wsl", False)),
        container=bool(b.values.get("container", False)),
        container_hint=b.values.get("container_hint"),
        virtual_machine=bool(b.values.get("virtual_machine", False)),
        virtual_machine_hint=b.values.get("virtual_machine_hint"),
        field_sources=dict(sorted(b.sources.items())),
        missing_reasons=dict(sorted(b.missing.items())),
    )
    return host, nodes


def _summary(host: Host, wsl_kind: str | None) -> str:
    parts = [host.distro or {"wsl": "WSL", "linux": "Linux", "windows": "Windows",
                             "macos": "macOS"}.get(host.os, "unknown OS")]
    if host.wsl:
        parts[0] += f" ({wsl_kind or 'WSL'})"
    if host.kernel:
        parts.append(f"kernel {host.kernel}")
    if host.cpu_logical_cores:
        parts.append(f"{host.cpu_logical_cores} logical CPUs")
    if host.ram_total_bytes:
        parts.append(f"{format_bytes(host.ram_total_bytes)} RAM")
    text = ", ".join(parts)
    if host.container and host.container_hint:
        text += f"; container: {host.container_hint.split(' (', 1)[0]}"
    # Under WSL2 the hypervisor is a given; elsewhere name it when the DMI ids did.
    if host.virtual_machine and host.virtual_machine_hint and not host.wsl:
        first = host.virtual_machine_hint.split("; ", 1)[0]
        if first.startswith("hypervisor CPU flag"):
            text += "; virtual machine (hypervisor CPU flag)"
        else:
            text += f"; virtual machine: {first.split(' (', 1)[0]}"
    return text


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
                                 reason="host details not captured in this snapshot")
        else:
            status = ProbeStatus(
                PROBE_NAME, ProbeState.ERROR,
                reason="nothing about the host could be read (no platform, psutil or /proc)",
                hint="run gpuscope on the machine itself, or capture a snapshot there",
            )
        return ProbeResult(status=status, host=host, device_nodes=nodes)
    hint = None
    ps_state = _library_status(evidence.psutil)[0]
    if ps_state is ProbeState.LIBRARY_MISSING:
        hint = "install psutil (pip install psutil) for CPU core and memory counts on any OS"
    return ProbeResult(
        status=ProbeStatus(PROBE_NAME, ProbeState.OK, reason=_summary(host, wsl_kind), hint=hint),
        host=host, device_nodes=nodes,
    )


def probe_host(system: System) -> ProbeResult:
    """CPU, RAM, OS, distribution, kernel, WSL, container and virtual machine. Never raises."""
    try:
        return build_host_result(gather_host_evidence(system))
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return ProbeResult(status=ProbeStatus(
            PROBE_NAME, ProbeState.ERROR,
            reason=f"host probe failed: {type(exc).__name__}: {exc}",
            hint="this is a gpuscope bug; please report it with a snapshot (gpuscope snapshot)",
        ))
