"""Parsers of the text the host probe reads: /etc/os-release, /proc/cpuinfo, /proc/meminfo,
/proc/version, /proc/1/cgroup, /run/.containerenv and the DMI ids, and what a kernel release
says about WSL. Pure functions of text; they never raise."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

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
