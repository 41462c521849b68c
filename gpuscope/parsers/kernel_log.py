"""Kernel log lines of the GPU drivers (amdgpu, amdkfd, nvidia) as people paste them: ``dmesg``
(``[   12.345678]``, ``dmesg -T``'s ``[Mon Dec 18 08:34:36 2023]``, ``dmesg -x``'s
``kern  :err   :``), ``journalctl -k`` / syslog (``Nov 22 10:00:00 host kernel: ...``, whatever
the month's language), printk caller ids (``[   T1343]``), syslog's ``#012`` for newlines,
continuation lines of multi-line NVRM messages, or bare messages.

Stack facts: ``amdgpu_loaded``, ``amdgpu_driver_version`` (only amdgpu-dkms prints
"[drm] amdgpu version: 6.2.4"; the in-tree driver does not), ``kfd_loaded``,
``nvidia_driver_version`` ("NVRM: loading NVIDIA UNIX ... Kernel Module  550.54.14").
Host facts: ``kernel`` and ``os`` from "Linux version ...", ``virtual_machine`` from "Hypervisor
detected".

Signal kinds emitted:

- ``amdgpu.init_failed``: "Fatal error during GPU init", "amdgpu_device_ip_init failed",
  "... init failed", "probe of ... failed", "hw_init of IP block <psp> failed" (detail = bus
  when the log names one).
- ``amdgpu.firmware_missing``: "Failed to load firmware" / "Direct firmware load for amdgpu/...
  failed" (detail = the firmware file).
- ``kfd.loaded``: "kfd kfd: amdgpu: added device 1002:744c" (detail = vendor:device).
- ``kfd.device_unsupported``: "kfd kfd: amdgpu: PITCAIRN  not supported in kfd",
  "kfd not supported on this ASIC" (detail = the ASIC named, or the bus).
- ``kfd.pcie_atomics_missing``: "skipped device 1002:67df, PCI rejects atomics", "PCIE atomic
  ops is not supported" (detail = vendor:device or bus).
- ``nvml.driver_library_mismatch``: "NVRM: API mismatch: the client has the version X, but this
  kernel module has the version Y" (detail = "client X, kernel module Y") and other NVRM
  version mismatches.
- ``nvidia.init_failed``: "NVRM: GPU 0000:01:00.0: RmInitAdapter failed!" (detail = bus).
- ``nvidia.no_devices``: "NVRM: No NVIDIA graphics adapter found/probed".
- ``nvidia.probe_not_called``: "NVRM: The NVIDIA probe routine was not called for N device(s)"
  (another driver, usually nouveau, owns the GPU).
- ``nvidia.device_unsupported``: "NVRM: The NVIDIA GPU ... is not supported by the NVIDIA ...
  driver release" (detail = bus).
- ``nvidia.xid``: "NVRM: Xid (PCI:0000:01:00): 79, ..." (detail = the Xid number).
- ``kernel.unsigned_module_rejected``: Secure Boot lockdown refusing an unsigned module
  ("Lockdown: modprobe: unsigned module loading is restricted", "Key was rejected by service").
"""

from __future__ import annotations

import dataclasses
import re

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import Collector, never_raises

FORMATS: tuple[str, ...] = ("kernel-log",)

_MAX_LINE_CHARS = 400
_MAX_SCAN = 2000  # characters of a line, or of a joined multi-line message, worth matching
_BUS = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

_SYSLOG_RE = re.compile(r"^.{1,80}?\skernel:\s?")
_PREFIX_RES = (
    re.compile(r"^\[\s*\d+\.\d+\]\s?"),
    re.compile(r"^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\]\s?"),
    re.compile(r"^\[\s*[TC]\d+\]\s?"),
    re.compile(r"^<\d>"),
    re.compile(r"^[a-z]+\s*:[a-z]+\s*:\s"),  # dmesg -x: "kern  :err   : "
)
_MARKER_RE = re.compile(
    r"^(?:\[drm\]|\[drm:|amdgpu[ :]|kfd[ :]|kfd2kgd|NVRM|nvidia(?:-[\w]+)?[ :]|nouveau |"
    r"radeon |drmn\d+:|Lockdown:)")


@dataclasses.dataclass
class _Record:
    message: str
    line: int  # 0-based index of the first line
    prefixed: bool


def _strip_prefixes(line: str) -> tuple[str, bool]:
    """(message, whether a log prefix was found)."""
    text = line.strip()
    prefixed = False
    syslog = _SYSLOG_RE.match(text)
    if syslog:
        text, prefixed = text[syslog.end():], True
    changed = True
    while changed:
        changed = False
        for pattern in _PREFIX_RES:
            match = pattern.match(text)
            if match:
                text, prefixed, changed = text[match.end():], True, True
    return text.strip(), prefixed


def _records(lines: list[str]) -> list[_Record]:
    records: list[_Record] = []
    for index, raw in enumerate(lines):
        if not raw.strip():
            continue
        joined = raw[:_MAX_SCAN].replace("#012NVRM:", " ").replace("#012", " ")  # syslog's \n
        message, prefixed = _strip_prefixes(joined)
        continuation = (not prefixed and records and records[-1].message.startswith("NVRM")
                        and (raw[:1].isspace() or message.startswith("NVRM:")))
        if continuation:
            if len(records[-1].message) < _MAX_SCAN:
                tail = message.removeprefix("NVRM:").strip()
                records[-1].message = f"{records[-1].message} {tail}"[:_MAX_SCAN]
            continue
        records.append(_Record(message, index, prefixed))
    return records


def sniff(text: str) -> tuple[str, float] | None:
    lines = [line for line in text[:300_000].split("\n") if line.strip()]
    if not lines:
        return None
    markers = prefixed = 0
    for line in lines[:5000]:
        message, has_prefix = _strip_prefixes(line[:_MAX_SCAN])
        prefixed += has_prefix
        if _MARKER_RE.match(message) or (has_prefix and re.match(r"kfd kfd", message)):
            markers += 1
    total = min(len(lines), 5000)
    if markers == 0:
        return None
    if prefixed / total >= 0.5 or markers / total >= 0.5:
        return ("kernel-log", 0.85)
    if markers >= 3:
        return ("kernel-log", 0.5)
    return None


_AMDGPU_BUS = rf"amdgpu (?P<bus>{_BUS}): (?:amdgpu: )?"
_RULES: tuple[tuple[re.Pattern[str], str, str | None], ...] = (
    # (pattern, signal kind, the named group that is the detail)
    (re.compile(_AMDGPU_BUS + r"(?:Fatal error(?: -?\d+)? during GPU init|"
                r"amdgpu_device_ip_init failed|.*\binit failed)"), "amdgpu.init_failed", "bus"),
    (re.compile(rf"amdgpu: probe of (?P<bus>{_BUS}) failed with error"),
     "amdgpu.init_failed", "bus"),
    (re.compile(r"Failed to load firmware \"?(?P<fw>[\w./-]+?)\"?$|"
                r"Direct firmware load for (?P<fw2>amdgpu/\S+) failed"),
     "amdgpu.firmware_missing", "fw"),
    (re.compile(r"kfd kfd: (?:amdgpu: )?added device (?P<ids>[0-9a-fA-F]{4}:[0-9a-fA-F]{4})"),
     "kfd.loaded", "ids"),
    (re.compile(r"kfd kfd: (?:amdgpu: )?(?P<asic>\S.*?)\s+not supported in kfd"),
     "kfd.device_unsupported", "asic"),
    (re.compile(rf"(?:amdgpu (?P<bus>{_BUS}): |kfd2kgd: )kfd not supported on this ASIC"),
     "kfd.device_unsupported", "bus"),
    (re.compile(r"skipped device (?P<ids>[0-9a-fA-F]{4}:[0-9a-fA-F]{4}), PCI rejects atomics"),
     "kfd.pcie_atomics_missing", "ids"),
    (re.compile(_AMDGPU_BUS + r"PCIE atomic ops is not supported"),
     "kfd.pcie_atomics_missing", "bus"),
    (re.compile(rf"NVRM: GPU (?P<bus>{_BUS}): (?:RmInitAdapter|rm_init_adapter) failed"),
     "nvidia.init_failed", "bus"),
    (re.compile(r"NVRM: No NVIDIA (?:graphics adapter|GPU)s? (?:found|probed)"),
     "nvidia.no_devices", None),
    (re.compile(r"NVRM: The NVIDIA probe routine was not called"),
     "nvidia.probe_not_called", None),
    (re.compile(rf"NVRM: The NVIDIA GPU (?P<bus>{_BUS}).*?is not supported by the NVIDIA"),
     "nvidia.device_unsupported", "bus"),
    (re.compile(r"NVRM: Xid \([^)]*\): (?P<xid>\d+)"), "nvidia.xid", "xid"),
    (re.compile(r"unsigned module loading is restricted|Loading of unsigned module is rejected|"
                r"Key was rejected by service"), "kernel.unsigned_module_rejected", None),
)
_IP_BLOCK_FAILED_RE = re.compile(
    r"\*ERROR\*.*\b(?:sw_init|hw_init|early_init|late_init) of IP block <\w+> failed|"
    r"^drmn\d+: Fatal error(?: -?\d+)? during GPU init|^(?:\S+: )?amdgpu_device_ip_init failed")
_API_MISMATCH_RE = re.compile(
    r"NVRM: API mismatch: the client(?: '[^']*' \(pid \d+\))?\s+has the version (?P<client>[\w.]+),"
    r"\s*but\s+this kernel module has\s+the version (?P<kernel>[\w.]+)")
_NVRM_MISMATCH_RE = re.compile(r"NVRM:.*version mismatch", re.IGNORECASE)
_NVIDIA_LOADING_RE = re.compile(
    r"NVRM: loading NVIDIA UNIX .*?Kernel Module(?: for \S+)?\s+(?P<version>\d+\.\d+(?:\.\d+)?)")
_AMDGPU_VERSION_RE = re.compile(r"\[drm\] amdgpu version: (?P<version>\d+\.\d+(?:\.\d+)*)")
_AMDGPU_LOADED_RE = re.compile(
    rf"\[drm\] amdgpu kernel modesetting enabled|\[drm\] Initialized amdgpu [\d.]+ \d+ for {_BUS}")
_KFD_LOADED_RE = re.compile(r"kfd kfd: (?:amdgpu: )?(?:Initialized module|added device)")
# Every expression below needs one of these in the message: a cheap test first.
_KEYWORDS = ("amdgpu", "kfd", "drm", "nvrm", "firmware", "linux version", "hypervisor",
             "unsigned module", "key was rejected")
_LINUX_VERSION_RE = re.compile(r"^Linux version (?P<kernel>\S+) \(")
_HYPERVISOR_RE = re.compile(r"^Hypervisor detected: (?P<name>.+)$")


@never_raises("kernel-log")
def parse(text: str, source: str) -> ParsedOutput:
    """Kernel log lines to stack facts and driver signals."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, max_evidence=20)
    loose_init_failures: list[int] = []
    for record in _records(lines):
        message, index = record.message, record.line
        lowered = message.lower()
        if not any(keyword in lowered for keyword in _KEYWORDS):
            continue
        number, where = index + 1, out.where(index + 1)
        for pattern, kind, group in _RULES:
            match = pattern.search(message)
            if not match:
                continue
            detail = None
            if group is not None:
                detail = match.group(group) or (match.groupdict().get(f"{group}2") or None)
            if detail and re.fullmatch(_BUS, detail):
                detail = _normalise_bus(detail)
            elif detail and kind in ("kfd.loaded", "kfd.pcie_atomics_missing"):
                detail = detail.lower()
            if kind == "amdgpu.init_failed" and detail is None:
                loose_init_failures.append(index)
                continue
            out.signal_at(kind, detail, number)
        if _IP_BLOCK_FAILED_RE.search(message) and not any(
                key == "amdgpu.init_failed" and any(r.line == number for r in refs)
                for (key, _), refs in out.signals.items()):
            loose_init_failures.append(index)
        api = _API_MISMATCH_RE.search(message)
        if api:
            out.signal_at("nvml.driver_library_mismatch",
                          f"client {api.group('client').rstrip('.')}, "
                          f"kernel module {api.group('kernel').rstrip('.')}", number)
        elif _NVRM_MISMATCH_RE.search(message):
            out.signal_at("nvml.driver_library_mismatch", None, number)
        loading = _NVIDIA_LOADING_RE.search(message)
        if loading:
            out.stack_fact("nvidia_driver_version", loading.group("version"), where)
        version = _AMDGPU_VERSION_RE.search(message)
        if version:
            out.stack_fact("amdgpu_driver_version", version.group("version"), where)
        if _AMDGPU_LOADED_RE.search(message):
            out.stack_fact("amdgpu_loaded", True, where)
        if _KFD_LOADED_RE.search(message):
            out.stack_fact("kfd_loaded", True, where)
        linux = _LINUX_VERSION_RE.match(message)
        if linux:
            kernel = linux.group("kernel")
            out.host_fact("kernel", kernel, where)
            wsl = re.search(r"microsoft-standard|-microsoft", kernel, re.IGNORECASE)
            out.host_fact("os", "wsl" if wsl else "linux", where)
        hypervisor = _HYPERVISOR_RE.match(message)
        os_fact = out.host.get("os")
        if hypervisor and not (os_fact is not None and os_fact.value == "wsl"):
            out.host_fact("virtual_machine", True, where)
    _attach_loose_init_failures(out, loose_init_failures)
    return out.result("kernel-log")


def _attach_loose_init_failures(out: Collector, indices: list[int]) -> None:
    """Lines that show a failed GPU init without naming the device join the bus-specific
    failure that follows them (the driver names the device on its next line); alone, they are
    a failure of an unnamed device."""
    named = [(key, refs) for key, refs in out.signals.items() if key[0] == "amdgpu.init_failed"]
    for index in sorted(set(indices)):
        following = [(refs[0].line or 0, refs) for _, refs in named
                     if refs and (refs[0].line or 0) > index]
        if following:
            refs = min(following, key=lambda item: item[0])[1]
            if len(refs) < 20 and not any(r.line == index + 1 for r in refs):
                refs.append(out.ref(index + 1))
                refs.sort(key=lambda r: r.line or 0)
        else:
            out.signal_at("amdgpu.init_failed", None, index + 1)


def _normalise_bus(bus: str) -> str:
    domain, rest = bus.split(":", 1)
    domain = domain.lower()
    domain = domain[-4:] if int(domain, 16) <= 0xFFFF else domain.lstrip("0")
    return f"{domain}:{rest.lower()}"
