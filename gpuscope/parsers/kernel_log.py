"""Kernel log lines of the GPU drivers (amdgpu, amdkfd, nvidia) as people paste them: ``dmesg``
(``[   12.345678]``, ``dmesg -T``'s ``[Mon Dec 18 08:34:36 2023]``, ``dmesg -x``'s
``kern  :err   :``), ``journalctl -k`` / syslog (``Nov 22 10:00:00 host kernel: ...``, whatever
the month's language), printk caller ids (``[   T1343]``), syslog's ``#012`` for newlines,
continuation lines of multi-line NVRM messages, or bare messages.

GPUs: a log is often the only evidence of a GPU, so every GPU it names is a `Layer.PCI`
sighting: by bus from the PCI scan (``pci 0000:03:00.0: [1002:744c] type 00 class 0x030000``,
display classes only) and from driver lines (``amdgpu 0000:03:00.0: ...``, ``[drm] Initialized
amdgpu ... for 0000:03:00.0``), by ids from amdgpu's and kfd's (``initializing kernel
modesetting (... 0x1002:0x744C ...)``, ``added device 1002:744c``, ``skipped device 1002:67df``,
``DID 7340 is missing``, ``Topology: Add APU node [0x15dd:0x1002]``, which makes it integrated).
Ids without a bus join the one bus without ids of their vendor. Only the lines that name a GPU
driver are read (found by a search of the whole paste per word), so a log of any size costs
little, and a message seen before costs only the evidence it adds.

Stack facts: ``amdgpu_loaded``, ``amdgpu_driver_version`` (only amdgpu-dkms prints
"[drm] amdgpu version: 6.2.4"; the in-tree driver does not), ``kfd_loaded``,
``nvidia_driver_version`` ("NVRM: loading NVIDIA UNIX ... Kernel Module  550.54.14").
Host facts (parsers/host.py's traces): ``kernel``, ``os`` and ``distro_hint`` from "Linux
version ...", ``virtual_machine`` from "Hypervisor detected", a hypervisor's "DMI:" line.

Signal kinds emitted:

- ``amdgpu.init_failed``: "Fatal error during GPU init", "amdgpu_device_ip_init failed",
  "... init failed", "probe of ... failed", "hw_init of IP block <psp> failed" (detail = bus
  when the log names one).
- ``amdgpu.firmware_missing``: "Failed to load firmware" / "Direct firmware load for amdgpu/...
  failed" (detail = the firmware file).
- ``kfd.loaded``: "kfd kfd: amdgpu: added device 1002:744c" (detail = vendor:device).
- ``kfd.device_unsupported``: "kfd kfd: amdgpu: PITCAIRN  not supported in kfd",
  "kfd not supported on this ASIC", "DID 7340 is missing in supported_devices" (detail = the
  ASIC named, the bus, or "1002:<did>").
- ``gpu.virtual_function`` (new): a driver running on an SR-IOV virtual function ("Running in
  SR-IOV VF mode"; not the host's "VF(n) BAR" lines of a physical function); detail = bus.
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

import bisect
import dataclasses
import re
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import GpuFacts, GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import (
    SNIFF_CHARS,
    Collector,
    LineReads,
    LinesFound,
    integrated_reason,
    lowered_text,
    matching_spans,
    never_raises,
    sniff_lines,
    virtual_function_reason,
)
from gpuscope.parsers.host import HostTraces

FORMATS: tuple[str, ...] = ("kernel-log",)

_MAX_LINE_CHARS = 400
_MAX_SCAN = 2000  # characters of a line, or of a joined multi-line message, worth matching
_MAX_RECORDS = 50_000  # lines naming a GPU driver read per paste (a boot log has hundreds)
_MAX_GPUS = 64  # more GPUs are not one machine's kernel log
# HostTraces keeps the first 20 traces of each kind, so a line that follows the same line
# adds nothing past its 20th time.
_HOST_REPEATS = 20
_CHUNK = 1 << 20  # characters searched for the words below at a time
_BUS = r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"

# The lines worth reading (searched in the lower-cased paste): every rule below needs one.
_INTERESTING_RE = re.compile(
    r"amdgpu|kfd|drm|nvrm|nvidia|nouveau|radeon|firmware|linux version|hypervisor|"
    r"unsigned module|key was rejected|pci \S{0,12}: \[|dmi: |paravirtualized kernel|vfio|"
    r"sr-?iov")
# The same words as strings: str.find skips a long paste far faster than the regex does.
_ANCHORS = ("amdgpu", "drm", "nvrm", "kfd", "nvidia", "nouveau", "radeon", "firmware", "pci ",
            "linux version", "hypervisor", "dmi: ", "vfio", "sr-iov", "sriov",
            "paravirtualized kernel", "unsigned module", "key was rejected")
_PCI_ANCHOR_RE = re.compile(r"pci \S{0,12}: \[")
_SYSLOG_RE = re.compile(r"^.{1,80}?\skernel:\s?")
# dmesg's "[   12.345678]" and "-T" time, printk's caller id "[   T1343]", "<4>", and dmesg -x's
# "kern  :err   : ", in any order (no two can match at one place).
_PREFIXES_RE = re.compile(
    r"(?:\[\s*\d+\.\d+\]\s?"
    r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\]\s?"
    r"|\[\s*[TC]\d+\]\s?"
    r"|<\d>"
    r"|[a-z]+ *:[a-z]+ *: )*")
_MARKER_RE = re.compile(
    r"^(?:\[drm\]|\[drm:|amdgpu[ :]|kfd[ :]|kfd2kgd|NVRM|nvidia(?:-[\w]+)?[ :]|nouveau |"
    r"radeon |drmn\d+:|Lockdown:)")


@dataclasses.dataclass(slots=True)
class _Record:
    message: str
    line: int  # 0-based index of the first line
    prefixed: bool
    raw: str = ""  # the first line as written


def _strip_prefixes(line: str) -> tuple[str, bool]:
    """(message, whether a log prefix was found)."""
    text = line.strip()
    if text.startswith(">"):  # a paste quoted in markdown
        text = text[1:].strip()
    prefixed = False
    syslog = _SYSLOG_RE.match(text) if "kernel:" in text[:100] else None
    if syslog:
        text, prefixed = text[syslog.end():], True
    found = _PREFIXES_RE.match(text)
    if found is not None and found.end():
        text, prefixed = text[found.end():], True
    return text.strip(), prefixed


def _stripped(raw: str) -> tuple[str, bool]:
    """`_strip_prefixes` of a log line, syslog's escaped newlines ("#012") read as blanks."""
    return _strip_prefixes(raw.replace("#012NVRM:", " ").replace("#012", " "))


def _interesting_lines(text: str, lowered: str) -> tuple[list[tuple[int, str, int]], bool]:
    """What `matching_lines(text, lowered, _INTERESTING_RE, _MAX_RECORDS, _MAX_SCAN)` answers,
    found a chunk at a time with one `str.find` per word and line that holds it; only a line
    longer than half of `_MAX_SCAN` (read in windows around its words) is searched with the
    regex."""
    size, half = len(text), _MAX_SCAN // 2
    find = lowered.find
    lines = LinesFound(text)
    found = lines.found
    chunk = 0
    while chunk < size:
        chunk_end = find("\n", chunk + _CHUNK) + 1 or size
        ends: set[int] = set()  # the end of each line holding a word
        add = ends.add
        for word in _ANCHORS:
            at = find(word, chunk, chunk_end)
            while at >= 0:
                if word == "pci " and _PCI_ANCHOR_RE.match(lowered, at, chunk_end) is None:
                    at = find(word, at + 1, chunk_end)  # not the PCI scan's device line
                    continue
                end = find("\n", at, chunk_end)
                end = chunk_end if end < 0 else end
                add(end)
                at = find(word, end + 1, chunk_end)
        for end in sorted(ends):
            line_start = lowered.rfind("\n", 0, end) + 1
            if end - line_start <= half:  # the whole line, whichever of its words came first
                if len(found) >= _MAX_RECORDS:
                    return found, True
                lines.add(line_start, end)
                continue
            for start, stop in matching_spans(text, lowered, _INTERESTING_RE, _MAX_SCAN,
                                              line_start, end):
                if len(found) >= _MAX_RECORDS:
                    return found, True
                lines.add(start, stop)
        chunk = chunk_end
    return found, False


def _records(text: str, lowered: str) -> tuple[list[_Record], bool]:
    """The log records that may matter, and whether some were left out: the lines naming a
    GPU driver, each with the continuation lines of a multi-line NVRM message joined."""
    found, cut = _interesting_lines(text, lowered)
    records: list[_Record] = []
    joined_upto = -1
    size = len(text)
    # A long log repeats its lines: each distinct line is stripped once. A line after an NVRM
    # message -> what it adds to the message, None when it is not part of it.
    stripped = LineReads(_stripped)
    goes_on = LineReads(_continuation)
    for index, raw, end in found:
        if index <= joined_upto:
            continue
        known = stripped[raw]
        record = _Record(known[0], index, known[1], raw)
        records.append(record)
        if not record.message.startswith("NVRM"):
            continue
        # Continuation lines: unprefixed, indented or repeating "NVRM:" (at most a few).
        position = end
        for step in range(1, 6):
            if position >= size:
                break
            stop = text.find("\n", position + 1, position + 1 + _MAX_SCAN)
            stop = min(size, position + 1 + _MAX_SCAN) if stop < 0 else stop
            following = text[position + 1:stop].rstrip("\r")
            tail = goes_on[following]
            if tail is None:
                break
            if len(record.message) < _MAX_SCAN:
                record.message = f"{record.message} {tail}"[:_MAX_SCAN]
            joined_upto = index + step
            position = stop
    return records, cut


def _continuation(following: str) -> str | None:
    """What a line adds to the NVRM message before it, or None when it does not go on with it
    (it has a log prefix, is blank, or is neither indented nor an "NVRM:" line)."""
    rest, has_prefix = _strip_prefixes(following)
    if has_prefix or not rest or not (following[:1].isspace() or rest.startswith("NVRM:")):
        return None
    return rest.removeprefix("NVRM:").strip()


def sniff(text: str) -> tuple[str, float] | None:
    lines = sniff_lines(text[:SNIFF_CHARS])
    if not lines:
        return None
    markers = prefixed = 0
    for line in lines:
        message, has_prefix = _strip_prefixes(line)
        prefixed += has_prefix
        if _MARKER_RE.match(message) or (has_prefix and message.startswith("kfd kfd")):
            markers += 1
    total = len(lines)
    if markers == 0:
        # A kernel log without a GPU driver's line still says what the machine is.
        return ("kernel-log", 0.5) if total >= 3 and prefixed / total >= 0.8 else None
    if prefixed / total >= 0.5 or markers / total >= 0.5:
        return ("kernel-log", 0.85)
    if markers >= 3:
        return ("kernel-log", 0.5)
    return None


_AMDGPU_BUS_RE = re.compile(rf"amdgpu (?P<bus>{_BUS}): (?:amdgpu: )?")
_INIT_FAILED_RE = re.compile(r"\binit failed")
_FATAL_RE = re.compile(r"Fatal error(?: -?\d+)? during GPU init")
_RULES: tuple[tuple[re.Pattern[str], str, str | None], ...] = (
    # (pattern, signal kind, the named group that is the detail)
    (re.compile(rf"amdgpu: probe of (?P<bus>{_BUS}) failed with error"),
     "amdgpu.init_failed", "bus"),
    (re.compile(r"Failed to load firmware \"?(?P<fw>[\w./-]{1,200})\"?[ \t]*$|"
                r"Direct firmware load for (?P<fw2>amdgpu/\S{1,200}) failed"),
     "amdgpu.firmware_missing", "fw"),
    (re.compile(r"kfd kfd: (?:amdgpu: )?added device (?P<ids>[0-9a-fA-F]{4}:[0-9a-fA-F]{4})"),
     "kfd.loaded", "ids"),
    (re.compile(rf"(?:amdgpu (?P<bus>{_BUS}): |kfd2kgd: )kfd not supported on this ASIC"),
     "kfd.device_unsupported", "bus"),
    (re.compile(r"kfd kfd: (?:amdgpu: )?DID (?P<did>[0-9a-fA-F]{4}) is missing in "
                r"supported_devices"), "kfd.device_unsupported", "did"),
    (re.compile(r"skipped device (?P<ids>[0-9a-fA-F]{4}:[0-9a-fA-F]{4}), PCI rejects atomics"),
     "kfd.pcie_atomics_missing", "ids"),
    (re.compile(rf"amdgpu (?P<bus>{_BUS}): (?:amdgpu: )?PCIE atomic ops is not supported"),
     "kfd.pcie_atomics_missing", "bus"),
    (re.compile(rf"NVRM: GPU (?P<bus>{_BUS}): (?:RmInitAdapter|rm_init_adapter) failed"),
     "nvidia.init_failed", "bus"),
    (re.compile(r"NVRM: No NVIDIA (?:graphics adapter|GPU)s? (?:found|probed)"),
     "nvidia.no_devices", None),
    (re.compile(r"NVRM: The NVIDIA probe routine was not called"),
     "nvidia.probe_not_called", None),
    (re.compile(r"NVRM: Xid \([^)]{0,40}\): (?P<xid>\d+)"), "nvidia.xid", "xid"),
    (re.compile(r"unsigned module loading is restricted|Loading of unsigned module is rejected|"
                r"Key was rejected by service"), "kernel.unsigned_module_rejected", None),
)
_KFD_UNSUPPORTED = " not supported in kfd"
_NVIDIA_UNSUPPORTED_RE = re.compile(rf"NVRM: The NVIDIA GPU (?P<bus>{_BUS})")
_IP_BLOCK_RE = re.compile(r"\b(?:sw_init|hw_init|early_init|late_init) of IP block <\w+> failed")
_LOOSE_INIT_RE = re.compile(r"^drmn\d+: Fatal error(?: -?\d+)? during GPU init|"
                            r"^(?:\S+: )?amdgpu_device_ip_init failed")
_API_MISMATCH_RE = re.compile(
    r"NVRM: API mismatch: the client(?: '[^']{0,200}' \(pid \d+\))?\s+has the version "
    r"(?P<client>[\w.]+),\s*but\s+this kernel module has\s+the version (?P<kernel>[\w.]+)")
_NVIDIA_LOADING_RE = re.compile(
    r"NVRM: loading NVIDIA UNIX .{0,120}?Kernel Module(?: for \S{1,40})?\s+"
    r"(?P<version>\d+\.\d+(?:\.\d+)?)")
_AMDGPU_VERSION_RE = re.compile(r"\[drm\] amdgpu version: (?P<version>\d+\.\d+(?:\.\d+)*)")
_AMDGPU_LOADED_RE = re.compile(
    rf"\[drm\] amdgpu kernel modesetting enabled|\[drm\] Initialized amdgpu [\d.]+ \d+ for {_BUS}")
_KFD_LOADED_RE = re.compile(r"kfd kfd: (?:amdgpu: )?(?:Initialized module|added device)")
# Every expression above needs one of these in the message: a cheap test first.
_KEYWORDS = ("amdgpu", "kfd", "drm", "nvrm", "firmware", "unsigned module", "key was rejected",
             "nvidia", "nouveau", "radeon", "pci ", "sr-iov", "sriov", "vfio")

# GPUs the log names: a device line of the PCI scan, a driver's line about its device, and
# the ids amdgpu and kfd print.
_PCI_SCAN_RE = re.compile(
    rf"^pci (?P<bus>{_BUS}): \[(?P<vendor>[0-9a-fA-F]{{4}}):(?P<device>[0-9a-fA-F]{{4}})\] "
    r"type [0-9a-fA-F]{2} class 0x(?P<class>[0-9a-fA-F]{4})")
_DRIVER_LINE_RE = re.compile(
    rf"^(?P<driver>amdgpu|radeon|nvidia|nouveau|vfio-pci) (?P<bus>{_BUS}):")
_DRM_INITIALIZED_RE = re.compile(
    rf"\[drm\] Initialized (?P<driver>amdgpu|radeon|nvidia-drm|nouveau) [\d.]+ \d+ for "
    rf"(?P<bus>{_BUS})")
_MODESETTING_IDS_RE = re.compile(
    r"initializing kernel modesetting \((?P<asic>[\w ]{1,40}) 0x(?P<vendor>[0-9a-fA-F]{4}):"
    r"0x(?P<device>[0-9a-fA-F]{4})")
_TOPOLOGY_NODE_RE = re.compile(
    r"Topology: Add (?P<kind>APU|dGPU) node \[0x(?P<device>[0-9a-fA-F]{4}):"
    r"0x(?P<vendor>[0-9a-fA-F]{4})\]")
_NVIDIA_PCI_ID_RE = re.compile(r"PCI ID: (?P<vendor>10[dD][eE]):(?P<device>[0-9a-fA-F]{4})")
_VF_MODE_RE = re.compile(r"SR-?IOV VF\b|\bVF mode\b|\bvirtual function\b", re.IGNORECASE)
_DISPLAY_CLASSES = ("0300", "0301", "0302", "0380")
_DRIVER_VENDORS = {"amdgpu": Vendor.AMD, "radeon": Vendor.AMD, "nvidia": Vendor.NVIDIA,
                   "nouveau": Vendor.NVIDIA, "nvidia-drm": Vendor.NVIDIA}


@dataclasses.dataclass
class _Gpu:
    """One GPU the log names, by bus address (or, without one, by its PCI ids)."""

    bus: str | None
    line: int  # 1-based, the first line that names it
    vendor_id: str | None = None
    device_id: str | None = None
    driver: str | None = None
    driver_line: int | None = None
    kind: tuple[GpuKind, int] | None = None
    ids_line: int | None = None

    def ids(self, vendor: str, device: str, number: int) -> None:
        if self.device_id is None:
            self.vendor_id, self.device_id = f"0x{vendor.lower()}", f"0x{device.lower()}"
            self.ids_line = number


class _Gpus:
    def __init__(self) -> None:
        self.by_bus: dict[str, _Gpu] = {}
        self.loose: list[_Gpu] = []  # named by ids only
        self.kinds: dict[str, tuple[GpuKind, int]] = {}  # device id -> kind (kfd topology)

    def at(self, bus: str, number: int) -> _Gpu | None:
        bus = _normalise_bus(bus)
        if bus not in self.by_bus:
            if len(self.by_bus) >= _MAX_GPUS:
                return None
            self.by_bus[bus] = _Gpu(bus, number)
        return self.by_bus[bus]

    def named(self, vendor: str, device: str, number: int) -> None:
        device_id = f"0x{device.lower()}"
        if any(g.device_id == device_id for g in (*self.by_bus.values(), *self.loose)):
            return
        if len(self.loose) < _MAX_GPUS:
            gpu = _Gpu(None, number)
            gpu.ids(vendor, device, number)
            self.loose.append(gpu)

    def sightings(self, out: Collector) -> list[GpuSighting]:
        # A GPU named only by its ids is the one bus address without ids, when there is
        # exactly one of each for its vendor (kfd prints ids, amdgpu the bus).
        for gpu in list(self.loose):
            vendor = Vendor.from_pci_vendor_id(gpu.vendor_id)
            open_buses = [g for g in self.by_bus.values() if g.device_id is None
                          and _vendor_of(g) in (vendor, None)]
            loose_same = [g for g in self.loose if Vendor.from_pci_vendor_id(g.vendor_id)
                          is vendor]
            if len(open_buses) == 1 and len(loose_same) == 1:
                target = open_buses[0]
                target.vendor_id, target.device_id = gpu.vendor_id, gpu.device_id
                target.ids_line = gpu.ids_line
                self.loose.remove(gpu)
        built = []
        for gpu in (*sorted(self.by_bus.values(), key=lambda g: g.bus or ""), *self.loose):
            if gpu.kind is None and gpu.device_id in self.kinds:
                gpu.kind = self.kinds[gpu.device_id]
            sighting = _sighting(gpu, out)
            if sighting is not None:
                built.append(sighting)
        return built


def _vendor_of(gpu: _Gpu) -> Vendor | None:
    if gpu.vendor_id is not None:
        return Vendor.from_pci_vendor_id(gpu.vendor_id)
    return _DRIVER_VENDORS.get(gpu.driver or "")


def _sighting(gpu: _Gpu, out: Collector) -> GpuSighting | None:
    vendor = _vendor_of(gpu)
    if vendor is None:
        return None
    values: dict[str, Any] = {"vendor": vendor}
    first = out.where(gpu.line)
    sources: dict[str, str] = {"vendor": first}
    missing: dict[str, str] = {}
    if gpu.bus is not None:
        values["pci_bus"], sources["pci_bus"] = gpu.bus, first
    else:
        missing["pci_bus"] = message("the kernel log names this GPU by its PCI ids only")
    if gpu.device_id is not None:
        where = out.where(gpu.ids_line or gpu.line)
        values["pci_vendor_id"], sources["pci_vendor_id"] = gpu.vendor_id, where
        values["pci_device_id"], sources["pci_device_id"] = gpu.device_id, where
    else:
        missing["pci_device_id"] = message(
            "the kernel log names this GPU by its bus address only")
    if gpu.driver is not None and gpu.driver != "vfio-pci":
        values["kernel_driver"] = "nvidia" if gpu.driver == "nvidia-drm" else gpu.driver
        sources["kernel_driver"] = out.where(gpu.driver_line or gpu.line)
    if gpu.kind is not None:
        values["kind"], sources["kind"] = gpu.kind[0], out.where(gpu.kind[1])
    elif vendor is Vendor.AMD and gpu.device_id is not None:
        where = out.where(gpu.ids_line or gpu.line)
        if virtual_function_reason(None, gpu.device_id):
            values["kind"], sources["kind"] = GpuKind.VIRTUAL, where
        elif integrated_reason(None, None, gpu.device_id):
            values["kind"], sources["kind"] = GpuKind.INTEGRATED, where
    facts = dataclasses.replace(GpuFacts(), **values)
    return GpuSighting(layer=Layer.PCI, facts=facts, field_sources=sources,
                       missing_reasons=missing)


class _Out(Collector):
    """A `Collector` that can note the signals a message shows, to show them again for each
    repeat of the message."""

    def __init__(self, source: str, read: dict[int, str]) -> None:
        super().__init__(source, [], max_line_chars=_MAX_LINE_CHARS, max_evidence=20, read=read)
        self.noted: list[tuple[str, str | None]] | None = None

    def signal_at(self, kind: str, detail: str | None, number: int) -> None:
        if self.noted is not None:
            self.noted.append((kind, detail))
        super().signal_at(kind, detail, number)


@dataclasses.dataclass
class _Seen:
    """What a message did the first time: its facts and GPUs were set then (a repeat changes
    none of them), so a repeat only adds its line to the same signals and loose failures."""

    lowered: str
    signals: list[tuple[str, str | None]]
    loose_failure: bool = False
    vfio_line: bool = False  # a vfio-pci driver line moves the GPU's driver line each time


@never_raises("kernel-log")
def parse(text: str, source: str) -> ParsedOutput:
    """Kernel log lines to stack facts, host facts, the GPUs they name and driver signals."""
    lowered = lowered_text(text)
    records, cut = _records(text, lowered)
    lines: dict[int, str] = {}  # 1-based number -> the message, for evidence
    out = _Out(source, lines)
    if cut:
        out.problems.append(f"only the first {_MAX_RECORDS:,} lines naming a GPU driver "
                            "were read")
    gpus = _Gpus()
    host = HostTraces(out)
    host_reads: dict[tuple[str, str], int] = {}  # (previous message, message) -> times read
    seen: dict[str, _Seen] = {}
    loose_init_failures: list[int] = []
    for record in records:
        message, index = record.message, record.line
        number = index + 1
        lines[number] = record.raw
        known = seen.get(message)
        lowered_message = message.lower() if known is None else known.lowered
        key = (host.previous, message)  # HostTraces reads a line after the one before it
        reads = host_reads.get(key, 0)
        if reads < _HOST_REPEATS:
            host_reads[key] = reads + 1
            host.read(message, number)
        else:
            host.previous = lowered_message  # what the read would have left
        if known is None:
            seen[message] = _read_message(out, gpus, message, lowered_message, number,
                                          loose_init_failures)
            continue
        if known.vfio_line:
            _gpu_lines(gpus, message, number)
        if known.loose_failure:
            loose_init_failures.append(index)
        if known.signals:
            for kind, detail in known.signals:
                out.signal_at(kind, detail, number)
            if all(out.signal_full(kind, detail) for kind, detail in known.signals):
                known.signals = []
    _attach_loose_init_failures(out, loose_init_failures)
    host.finish()
    return out.result("kernel-log", gpus.sightings(out))


def _read_message(out: _Out, gpus: _Gpus, message: str, lowered_message: str, number: int,
                  loose_init_failures: list[int]) -> _Seen:
    """The first time a message is seen: everything it shows."""
    known = _Seen(lowered_message, [])
    if not any(keyword in lowered_message for keyword in _KEYWORDS):
        return known
    known.vfio_line = message.startswith("vfio-pci ")
    where = out.where(number)
    out.noted = known.signals
    _gpu_lines(gpus, message, number)
    failures = len(loose_init_failures)
    _init_failures(out, message, number, loose_init_failures)
    known.loose_failure = len(loose_init_failures) > failures
    for pattern, kind, group in _RULES:
        match = pattern.search(message)
        if not match:
            continue
        detail = None
        if group is not None:
            detail = match.group(group) or (match.groupdict().get(f"{group}2") or None)
        out.signal_at(kind, _detail(kind, detail), number)
    if _KFD_UNSUPPORTED in message and "kfd kfd: " in message:
        asic = message.split("kfd kfd: ", 1)[1].removeprefix("amdgpu: ")
        asic = asic.split(_KFD_UNSUPPORTED, 1)[0].strip()
        if asic:
            out.signal_at("kfd.device_unsupported", asic, number)
    if "is not supported by the NVIDIA" in message and (
            found := _NVIDIA_UNSUPPORTED_RE.search(message)) is not None:
        out.signal_at("nvidia.device_unsupported", _normalise_bus(found.group("bus")), number)
    api = _API_MISMATCH_RE.search(message) if "API mismatch" in message else None
    if api:
        out.signal_at("nvml.driver_library_mismatch",
                      f"client {api.group('client').rstrip('.')}, "
                      f"kernel module {api.group('kernel').rstrip('.')}", number)
    elif "nvrm:" in lowered_message and "version mismatch" in lowered_message[
            lowered_message.find("nvrm:"):]:
        out.signal_at("nvml.driver_library_mismatch", None, number)
    if "NVRM: loading NVIDIA UNIX" in message and (
            loading := _NVIDIA_LOADING_RE.search(message)) is not None:
        out.stack_fact("nvidia_driver_version", loading.group("version"), where)
    version = _AMDGPU_VERSION_RE.search(message)
    if version:
        out.stack_fact("amdgpu_driver_version", version.group("version"), where)
    if _AMDGPU_LOADED_RE.search(message):
        out.stack_fact("amdgpu_loaded", True, where)
    if _KFD_LOADED_RE.search(message):
        out.stack_fact("kfd_loaded", True, where)
    if _VF_MODE_RE.search(message) and not re.search(r"\bPF\b", message):
        bus = _DRIVER_LINE_RE.match(message)
        out.signal_at("gpu.virtual_function",
                      _normalise_bus(bus.group("bus")) if bus else None, number)
        if bus is not None and (gpu := gpus.at(bus.group("bus"), number)) is not None:
            gpu.kind = gpu.kind or (GpuKind.VIRTUAL, number)
    out.noted = None
    return known


def _detail(kind: str, detail: str | None) -> str | None:
    if detail and re.fullmatch(_BUS, detail):
        return _normalise_bus(detail)
    if detail and kind in ("kfd.loaded", "kfd.pcie_atomics_missing"):
        return detail.lower()
    if detail and kind == "kfd.device_unsupported" and re.fullmatch(r"[0-9a-fA-F]{4}", detail):
        return f"1002:{detail.lower()}"  # "DID 7340": amdgpu's own device id
    return detail


def _init_failures(out: Collector, message: str, number: int, loose: list[int]) -> None:
    """A failed GPU init: by the bus amdgpu names, or loose (joined to the next named one)."""
    named = False
    bus = _AMDGPU_BUS_RE.search(message) if "amdgpu " in message else None
    if bus is not None:
        rest = message[bus.end():]
        if _FATAL_RE.search(rest) or "amdgpu_device_ip_init failed" in rest or (
                "init failed" in rest and _INIT_FAILED_RE.search(rest)):
            out.signal_at("amdgpu.init_failed", _normalise_bus(bus.group("bus")), number)
            named = True
    if not named and (
            ("*ERROR*" in message and "of IP block <" in message
             and (block := _IP_BLOCK_RE.search(message)) is not None
             and message.find("*ERROR*") < block.start())
            or _LOOSE_INIT_RE.search(message)):
        loose.append(number - 1)


def _gpu_lines(gpus: _Gpus, message: str, number: int) -> None:
    """The GPUs a log line names, and what it says of them."""
    if message.startswith("pci ") and (scan := _PCI_SCAN_RE.match(message)) is not None:
        vendor, klass = scan.group("vendor").lower(), scan.group("class").lower()
        display = klass in _DISPLAY_CLASSES or (klass == "1200" and vendor in ("1002", "10de"))
        if display and (gpu := gpus.at(scan.group("bus"), number)) is not None:
            gpu.ids(vendor, scan.group("device"), number)
        return
    driver = _DRIVER_LINE_RE.match(message)
    if driver is None:
        driver = _DRM_INITIALIZED_RE.search(message) if "[drm] Initialized" in message else None
    if driver is not None and (gpu := gpus.at(driver.group("bus"), number)) is not None:
        if gpu.driver is None or gpu.driver == "vfio-pci":
            gpu.driver, gpu.driver_line = driver.group("driver"), number
        if (ids := _MODESETTING_IDS_RE.search(message)) is not None:
            gpu.ids(ids.group("vendor"), ids.group("device"), number)
        if (nvidia := _NVIDIA_PCI_ID_RE.search(message)) is not None:
            gpu.ids(nvidia.group("vendor"), nvidia.group("device"), number)
        return
    if (nvidia_unsupported := _NVIDIA_UNSUPPORTED_RE.search(message)) is not None and (
            gpu := gpus.at(nvidia_unsupported.group("bus"), number)) is not None:
        gpu.driver = gpu.driver or "nvidia"
        if (nvidia := _NVIDIA_PCI_ID_RE.search(message)) is not None:
            gpu.ids(nvidia.group("vendor"), nvidia.group("device"), number)
        return
    if (node := _TOPOLOGY_NODE_RE.search(message)) is not None:
        kind = GpuKind.INTEGRATED if node.group("kind") == "APU" else GpuKind.DISCRETE
        gpus.kinds.setdefault(f"0x{node.group('device').lower()}", (kind, number))
        gpus.named(node.group("vendor"), node.group("device"), number)
        return
    if "device " in message and (ids := _KFD_IDS_RE.search(message)) is not None:
        gpus.named(ids.group("vendor"), ids.group("device"), number)
        return
    if "DID " in message and (did := _KFD_DID_RE.search(message)) is not None:
        gpus.named("1002", did.group("device"), number)
        return
    if (ids := _MODESETTING_IDS_RE.search(message)) is not None:
        gpus.named(ids.group("vendor"), ids.group("device"), number)


_KFD_DID_RE = re.compile(r"kfd kfd: (?:amdgpu: )?DID (?P<device>[0-9a-fA-F]{4}) is missing")
_KFD_IDS_RE = re.compile(
    r"kfd kfd: (?:amdgpu: )?(?:added|skipped) device (?P<vendor>[0-9a-fA-F]{4}):"
    r"(?P<device>[0-9a-fA-F]{4})")


def _attach_loose_init_failures(out: Collector, indices: list[int]) -> None:
    """Lines that show a failed GPU init without naming the device join the bus-specific
    failure that follows them (the driver names the device on its next line); alone, they are
    a failure of an unnamed device."""
    named = sorted(((refs[0].line or 0, refs) for key, refs in out.signals.items()
                    if key[0] == "amdgpu.init_failed" and refs), key=lambda item: item[0])
    firsts = [line for line, _ in named]
    for index in sorted(set(indices)):
        following = bisect.bisect_right(firsts, index)  # the first named failure after it
        if following < len(named):
            refs = named[following][1]
            if len(refs) < 20 and not any(r.line == index + 1 for r in refs):
                refs.append(out.ref(index + 1))
                refs.sort(key=lambda r: r.line or 0)
        else:
            out.signal_at("amdgpu.init_failed", None, index + 1)


def _normalise_bus(bus: str) -> str:
    domain, rest = bus.split(":", 1)
    domain = domain.lower()
    domain = domain[-4:] if int(domain, 16) <= 0xFFFF else domain.lstrip("0")
    if len(domain) < 4:
        domain = domain.rjust(4, "0")
    return f"{domain}:{rest.lower()}"
