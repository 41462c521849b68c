"""The Windows display probe: every GPU as Windows' display driver (WDDM) lists it.

Three sources, each read through the evidence layer so that a replay on Linux reads a Windows
machine's answers:
- the registry's display class key (`windows-registry-display`, collected by
  windows_collectors.collect_registry_live): the driver's description, version and date, the
  device's PCI ids and location, the true VRAM size (`HardwareInformation.qwMemorySize`) and
  AMD's Adrenalin release;
- when that answer is missing or failed, PowerShell's `Get-CimInstance Win32_VideoController`
  as JSON (its AdapterRAM is a 32-bit field that stops at 4 GB);
- DXGI's adapters (`windows-dxgi-adapters`), for the LUID that names a GPU in the performance
  counters Task Manager reads, and the dedicated memory when the registry has no size.

Registry entries and DXGI adapters are paired by PCI vendor, device and subsystem ids, in the
order each lists them. When DXGI answered, a registry entry it does not list is left out: the
class key keeps the entries of cards that were removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gpuscope.evidence import System
from gpuscope.i18n import join, message
from gpuscope.knowledge.devices import identify_device
from gpuscope.model import (
    DEVICE_TABLE_SOURCE,
    Fact,
    GpuKind,
    GpuSighting,
    JsonValue,
    Layer,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)
from gpuscope.parsers._common import integrated_reason
from gpuscope.parsers.windows_ids import PnpIds, parse_pnp_device_id, pci_bus_from_location
from gpuscope.probes.sourced import SightingBuilder, probe_bug, recorded_reason
from gpuscope.probes.windows_collectors import (
    collect_dxgi,
    collect_registry_live,
    is_windows,
)
from gpuscope.untrusted import UntrustedInputError, load_json

PROBE_NAME = "windows_display"
REGISTRY_LIBRARY = "windows-registry-display"
DXGI_LIBRARY = "windows-dxgi-adapters"
CIM_COMMAND = ("powershell", "-NoProfile", "-NonInteractive", "-Command",
               "Get-CimInstance Win32_VideoController | ConvertTo-Json")
CIM_SOURCE = "Get-CimInstance Win32_VideoController"

MICROSOFT_VENDOR_ID = "0x1414"  # Basic Render Driver (0x008c), Hyper-V's virtual displays
_DXGI_ADAPTER_FLAG_SOFTWARE = 2  # DXGI_ADAPTER_FLAG_SOFTWARE (dxgi.h)
_FOUR_GIB = 1 << 32
# A 32-bit size at its top (0xFFF00000, AdapterRAM's "4 GB") says only "4 GiB or more".
_CAPPED_32_BIT = _FOUR_GIB - (1 << 20)
_INTEL_IGPU_NAME = re.compile(r"\b(?:UHD|Iris|HD) Graphics\b", re.IGNORECASE)
_BASIC_DISPLAY = re.compile(r"Microsoft Basic (?:Display|Render)", re.IGNORECASE)


# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class DisplayAdapter:
    """One display adapter as the registry (or Win32_VideoController) lists it."""

    where: str  # the registry key or "Win32_VideoController[0]"
    name: str | None = None
    name_source: str = ""
    ids: PnpIds | None = None
    ids_source: str = ""
    pci_bus: str | None = None
    bus_source: str = ""
    driver_version: str | None = None
    driver_version_source: str = ""
    driver_date: str | None = None
    provider: str | None = None
    vram_total_bytes: int | None = None
    vram_source: str = ""
    vram_missing: str | None = None
    adrenalin_version: str | None = None
    adrenalin_edition: str | None = None
    basic_display: bool = False
    # Win32_VideoController lists present devices only; the class key keeps removed ones.
    present: bool = False
    errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DxgiAdapter:
    """One adapter `IDXGIFactory1::EnumAdapters1` listed."""

    index: int
    description: str
    vendor_id: str
    device_id: str
    subsystem_vendor_id: str
    subsystem_device_id: str
    revision: str
    dedicated_video_memory_bytes: int
    dedicated_system_memory_bytes: int
    shared_system_memory_bytes: int
    luid: str
    software: bool


def format_luid(high: int, low: int) -> str:
    """The LUID as the GPU performance counters name their instances, high part first
    ("luid_0x00000000_0x0000D1A2_phys_0"; dxgkrnl prints it with %08X, so a reader compares
    without regard to case), here in lower case as gpuscope writes PCI ids."""
    return f"0x{high & 0xFFFFFFFF:08x}_0x{low & 0xFFFFFFFF:08x}"


def _payload(answer: JsonValue) -> dict[str, JsonValue]:
    return answer if isinstance(answer, dict) else {}


def _problem(library: str, answer: JsonValue) -> str | None:
    """Why a recorded library answer holds nothing usable, or None when it is "ok"."""
    payload = _payload(answer)
    status = payload.get("status")
    if status == ProbeState.OK.value:
        return None
    if status == ProbeState.NOT_CAPTURED.value:
        return message("{library} not captured in this snapshot", library=library)
    error = payload.get("error")
    return message("{library} failed ({error})", library=library,
                   error=recorded_reason(str(error)) if error else str(status))


def _value(values: Mapping[str, JsonValue], name: str) -> JsonValue:
    entry = values.get(name)
    return entry.get("value") if isinstance(entry, dict) else None


def _text(values: Mapping[str, JsonValue], name: str) -> str | None:
    value = _value(values, name)
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    return value.strip() if isinstance(value, str) and value.strip() else None


def registry_text(values: Mapping[str, JsonValue], name: str) -> str | None:
    """A string value; REG_BINARY (kept as hex) is read as the UTF-16LE text display drivers
    write there (HardwareInformation.AdapterString, ChipType)."""
    entry = values.get(name)
    if isinstance(entry, dict) and entry.get("type") == "REG_BINARY":
        raw = entry.get("value")
        try:
            text = bytes.fromhex(raw).decode("utf-16-le") if isinstance(raw, str) else ""
        except ValueError:  # odd length or not hex: UnicodeDecodeError is a ValueError
            return None
        return text.split("\x00", 1)[0].strip() or None
    return _text(values, name)


def registry_size(values: Mapping[str, JsonValue], name: str) -> int | None:
    """A size value: a REG_QWORD/REG_DWORD number, or REG_BINARY little-endian bytes (kept as
    hex), as drivers write HardwareInformation.qwMemorySize and MemorySize."""
    value = _value(values, name)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else value & 0xFFFFFFFFFFFFFFFF
    if isinstance(value, str) and re.fullmatch(r"(?:[0-9a-fA-F]{2}){4}|(?:[0-9a-fA-F]{2}){8}",
                                               value):
        return int.from_bytes(bytes.fromhex(value), "little")
    return None


def _registry_adapter(key: str, entry: Mapping[str, JsonValue]) -> DisplayAdapter:
    subkey = str(entry.get("subkey", "?"))
    where = f"{key}\\{subkey}"
    values = _payload(entry.get("values"))
    device = _payload(entry.get("device"))
    device_values = _payload(device.get("values"))
    instance = device.get("instance_id")
    ids, ids_source = None, ""
    if isinstance(instance, str) and (ids := parse_pnp_device_id(instance)) is not None:
        ids_source = f"PnP device {instance}"
    elif (matching := _text(values, "MatchingDeviceId")) is not None:
        ids = parse_pnp_device_id(matching)
        ids_source = f"{where} MatchingDeviceId"
    location = _text(device_values, "LocationInformation")
    bus = pci_bus_from_location(location) if location else None
    desc = _text(values, "DriverDesc")
    name, name_source = desc, f"{where} DriverDesc"
    if name is None and (adapter_string := registry_text(values,
                                                         "HardwareInformation.AdapterString")):
        name, name_source = adapter_string, f"{where} HardwareInformation.AdapterString"
    basic = bool(desc and _BASIC_DISPLAY.search(desc))
    vram, vram_source, vram_missing = _registry_vram(values, where)
    errors = entry.get("errors")
    return DisplayAdapter(
        where=where, name=None if basic else name, name_source=name_source, ids=ids,
        ids_source=ids_source, pci_bus=bus,
        bus_source=f"{instance} LocationInformation {location!r}" if bus else "",
        driver_version=_text(values, "DriverVersion"),
        driver_version_source=f"{where} DriverVersion",
        driver_date=_text(values, "DriverDate"), provider=_text(values, "ProviderName"),
        vram_total_bytes=vram, vram_source=vram_source, vram_missing=vram_missing,
        adrenalin_version=_text(values, "RadeonSoftwareVersion"),
        adrenalin_edition=_text(values, "RadeonSoftwareEdition"),
        basic_display=basic,
        errors=tuple(str(e) for e in errors) if isinstance(errors, list) else (),
    )


def _registry_vram(values: Mapping[str, JsonValue],
                   where: str) -> tuple[int | None, str, str | None]:
    qword = registry_size(values, "HardwareInformation.qwMemorySize")
    if qword:
        return qword, f"{where} HardwareInformation.qwMemorySize", None
    dword = registry_size(values, "HardwareInformation.MemorySize")
    if dword and dword < _CAPPED_32_BIT:
        return dword, f"{where} HardwareInformation.MemorySize", None
    if dword:
        return None, "", message("{where} has no qwMemorySize, and its 32-bit MemorySize "
                                 "stops at 4 GiB", where=where)
    return None, "", message("{where} has no HardwareInformation.qwMemorySize or MemorySize",
                             where=where)


def parse_registry(answer: JsonValue) -> tuple[list[DisplayAdapter], str | None]:
    """The adapters of a `windows-registry-display` answer, or why there are none."""
    problem = _problem(REGISTRY_LIBRARY, answer)
    if problem is not None:
        return [], problem
    payload = _payload(answer)
    key = str(payload.get("key") or "display class key")
    entries = payload.get("adapters")
    if not isinstance(entries, list):
        return [], message("{library} holds no adapter list", library=REGISTRY_LIBRARY)
    return [_registry_adapter(key, e) for e in entries if isinstance(e, dict)], None


def _int(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _hex16(value: int) -> str:
    return f"0x{value & 0xFFFF:04x}"


def parse_dxgi(answer: JsonValue) -> tuple[list[DxgiAdapter], str | None]:
    """The adapters of a `windows-dxgi-adapters` answer, or why there are none."""
    problem = _problem(DXGI_LIBRARY, answer)
    if problem is not None:
        return [], problem
    found: list[DxgiAdapter] = []
    entries = _payload(answer).get("adapters")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        numbers = {key: _int(entry.get(key)) for key in (
            "index", "vendor_id", "device_id", "subsys_id", "revision",
            "dedicated_video_memory_bytes", "dedicated_system_memory_bytes",
            "shared_system_memory_bytes", "luid_high", "luid_low", "flags")}
        if any(v is None for v in numbers.values()):
            continue  # a GetDesc1 that failed: its error is in the snapshot
        n = {key: value or 0 for key, value in numbers.items()}
        found.append(DxgiAdapter(
            index=n["index"], description=str(entry.get("description") or "").strip(),
            vendor_id=_hex16(n["vendor_id"]), device_id=_hex16(n["device_id"]),
            # SubSysId holds the subsystem device id high, the subsystem vendor id low.
            subsystem_vendor_id=_hex16(n["subsys_id"]),
            subsystem_device_id=_hex16(n["subsys_id"] >> 16),
            revision=f"0x{n['revision'] & 0xFF:02x}",
            dedicated_video_memory_bytes=n["dedicated_video_memory_bytes"],
            dedicated_system_memory_bytes=n["dedicated_system_memory_bytes"],
            shared_system_memory_bytes=n["shared_system_memory_bytes"],
            luid=format_luid(n["luid_high"], n["luid_low"]),
            software=bool(n["flags"] & _DXGI_ADAPTER_FLAG_SOFTWARE),
        ))
    return found, None


def parse_cim_json(text: str) -> tuple[list[DisplayAdapter], str | None]:
    """`Get-CimInstance Win32_VideoController | ConvertTo-Json` (one object or a list)."""
    try:
        doc = load_json(text.lstrip("\ufeff"), name=CIM_SOURCE) if text.strip() else None
    except UntrustedInputError as exc:
        return [], message("{source} printed no JSON ({error})", source=CIM_SOURCE,
                           error=str(exc)[:120])
    rows = doc if isinstance(doc, list) else [doc] if isinstance(doc, dict) else []
    adapters: list[DisplayAdapter] = []
    for index, row in enumerate(r for r in rows if isinstance(r, dict)):
        where = f"Win32_VideoController[{index}]"
        name = row.get("Name") if isinstance(row.get("Name"), str) else None
        pnp = row.get("PNPDeviceID")
        ids = parse_pnp_device_id(pnp) if isinstance(pnp, str) else None
        ram = _int(row.get("AdapterRAM"))
        version = row.get("DriverVersion")
        vram, vram_source, vram_missing = None, "", None
        if ram is not None and 0 < ram < _CAPPED_32_BIT:
            vram, vram_source = ram, f"{where} AdapterRAM"
        elif ram is None:
            vram_missing = message("{where} has no AdapterRAM", where=where)
        else:
            vram_missing = message("Win32_VideoController's AdapterRAM is a 32-bit field that "
                                   "stops at 4 GB")
        basic = bool(name and _BASIC_DISPLAY.search(name))
        adapters.append(DisplayAdapter(
            where=where, name=None if basic else name, name_source=f"{where} Name", ids=ids,
            ids_source=f"{where} PNPDeviceID", driver_version=version.strip()
            if isinstance(version, str) and version.strip() else None,
            driver_version_source=f"{where} DriverVersion", vram_total_bytes=vram,
            vram_source=vram_source, vram_missing=vram_missing, basic_display=basic,
            present=True,
        ))
    return adapters, None


# ----------------------------------------------------------------------------- joining


def _same_card(adapter: DisplayAdapter, dxgi: DxgiAdapter) -> bool:
    ids = adapter.ids
    if ids is None or ids.vendor_id != dxgi.vendor_id or ids.device_id != dxgi.device_id:
        return False
    if ids.subsystem_device_id is not None and dxgi.subsystem_vendor_id != "0x0000":
        return (ids.subsystem_vendor_id, ids.subsystem_device_id) == (
            dxgi.subsystem_vendor_id, dxgi.subsystem_device_id)
    return True


def pair_adapters(
    adapters: Sequence[DisplayAdapter], dxgi: Sequence[DxgiAdapter], dxgi_answered: bool,
) -> tuple[list[tuple[DisplayAdapter | None, DxgiAdapter | None]], list[str]]:
    """(registry entry, DXGI adapter) per physical GPU, and notes on what was left out."""
    notes: list[str] = []
    hardware = [d for d in dxgi if not d.software and d.vendor_id != MICROSOFT_VENDOR_ID]
    pairs: list[tuple[DisplayAdapter | None, DxgiAdapter | None]] = []
    taken: set[int] = set()
    for listed in hardware:
        match = next((i for i, a in enumerate(adapters)
                      if i not in taken and _same_card(a, listed)), None)
        if match is not None:
            taken.add(match)
        pairs.append((adapters[match] if match is not None else None, listed))
    for index, adapter in enumerate(adapters):
        if index in taken:
            continue
        label = adapter.name or adapter.where
        if adapter.ids is None:
            notes.append(message("{adapter} is no PCI device (a virtual or remote display)",
                                 adapter=label))
        elif adapter.ids.vendor_id == MICROSOFT_VENDOR_ID:
            notes.append(message("{adapter} is a Microsoft virtual display", adapter=label))
        # A card on the Basic Display driver stays: DXGI lists it as Microsoft's.
        elif dxgi_answered and not (adapter.present or adapter.basic_display):
            notes.append(message("{adapter} is not among DXGI's adapters: a card no longer "
                                 "installed, or one whose driver did not start", adapter=label))
        else:
            pairs.append((adapter, None))
    return pairs, notes


# ----------------------------------------------------------------------------- building


def _kind(builder: SightingBuilder, vendor_id: str, device_id: str, name: str | None,
          vram_total_bytes: int | None, subsystem_device_id: str | None) -> None:
    """Kind and gfx target from gpuscope's device table, as the PCI listing gets them; else an
    APU's device id or an integrated GPU's marketing name."""
    identity = identify_device(vendor_id, device_id, vram_total_bytes=vram_total_bytes,
                               subsystem_device_id=subsystem_device_id)
    source = f"{DEVICE_TABLE_SOURCE} ({identity.source})" if identity else ""
    if identity is not None and identity.gfx_target:
        builder.put("gfx_target", identity.gfx_target, source)
    if identity is not None and identity.kind is not None:
        builder.put("kind", identity.kind, source)
    elif (reason := integrated_reason(name, None, device_id)) is not None:
        builder.put("kind", GpuKind.INTEGRATED, reason)
    elif vendor_id == "0x8086" and name and _INTEL_IGPU_NAME.search(name):
        builder.put("kind", GpuKind.INTEGRATED, f"{name!r} is the name of an Intel iGPU")


def build_sighting(adapter: DisplayAdapter | None, dxgi: DxgiAdapter | None,
                   dxgi_problem: str | None) -> GpuSighting:
    """One physical GPU from its registry (or CIM) entry and its DXGI adapter."""
    builder = SightingBuilder(Layer.WINDOWS)
    ids = adapter.ids if adapter is not None else None
    if adapter is not None:
        if adapter.name:
            builder.put("name", adapter.name, adapter.name_source)
        elif adapter.basic_display:
            builder.miss("name", message("the Microsoft Basic Display Adapter drives it: the "
                                         "vendor's display driver is not installed"))
        if adapter.driver_version:
            detail = ", ".join(p for p in (adapter.provider, adapter.driver_date) if p)
            builder.put("driver_version", adapter.driver_version,
                        adapter.driver_version_source + (f" ({detail})" if detail else ""))
        if adapter.pci_bus:
            builder.put("pci_bus", adapter.pci_bus, adapter.bus_source)
        else:
            builder.miss("pci_bus", message("{where} names no PCI location",
                                            where=adapter.where))
        if adapter.vram_total_bytes is not None:
            builder.put("vram_total_bytes", adapter.vram_total_bytes, adapter.vram_source)
        elif adapter.vram_missing:
            builder.miss("vram_total_bytes", adapter.vram_missing)
    if ids is not None and adapter is not None:
        for name, value in ids.facts().items():
            builder.put(name, value, adapter.ids_source)
    if dxgi is not None:
        where = f"DXGI adapter {dxgi.index}"
        builder.put("luid", dxgi.luid, f"{where} AdapterLuid")
        if "name" not in builder.values and not adapter:
            builder.put("name", dxgi.description, f"{where} Description")
        for name, value in (("pci_vendor_id", dxgi.vendor_id), ("pci_device_id", dxgi.device_id),
                            ("pci_subsystem_vendor_id", dxgi.subsystem_vendor_id),
                            ("pci_subsystem_device_id", dxgi.subsystem_device_id),
                            ("pci_revision", dxgi.revision)):
            if name not in builder.values and not (value == "0x0000" and "subsystem" in name):
                builder.put(name, value, f"{where} DXGI_ADAPTER_DESC1")
        if "vram_total_bytes" not in builder.values and dxgi.dedicated_video_memory_bytes:
            builder.put("vram_total_bytes", dxgi.dedicated_video_memory_bytes,
                        f"{where} DedicatedVideoMemory")
    else:
        builder.miss("luid", dxgi_problem or message("no DXGI adapter has these PCI ids"))
    vendor_id = builder.values.get("pci_vendor_id")
    device_id = builder.values.get("pci_device_id")
    if isinstance(vendor_id, str):
        vendor = Vendor.from_pci_vendor_id(vendor_id)
        if vendor is not None:
            builder.put("vendor", vendor, builder.sources["pci_vendor_id"])
        if isinstance(device_id, str):
            _kind(builder, vendor_id, device_id, builder.values.get("name"),
                  builder.values.get("vram_total_bytes"),
                  builder.values.get("pci_subsystem_device_id"))
    return builder.sighting()


def _stack_facts(pairs: Sequence[tuple[DisplayAdapter | None, DxgiAdapter | None]],
                 sightings: Sequence[GpuSighting]) -> list[Fact]:
    facts: list[Fact] = []
    amd = [(a, s) for (a, _), s in zip(pairs, sightings, strict=True)
           if s.facts.vendor is Vendor.AMD and a is not None]
    with_version = [(a, s) for a, s in amd if a.adrenalin_version]
    if with_version:
        first = with_version[0][0]
        edition = f" ({first.adrenalin_edition})" if first.adrenalin_edition else ""
        facts.append(Fact("amd_driver_version", first.adrenalin_version,
                          source=f"{first.where} RadeonSoftwareVersion{edition}"))
    elif amd:
        facts.append(Fact("amd_driver_version", None, missing_reason=message(
            "{where} has no RadeonSoftwareVersion: the display driver was installed without "
            "AMD Software: Adrenalin Edition", where=amd[0][0].where)))
    for (adapter, _), sighting in zip(pairs, sightings, strict=True):
        if adapter is None or not adapter.driver_version:
            continue
        subkey = adapter.where.rsplit("\\", 1)[-1]
        key = f"windows_display_driver:{sighting.facts.pci_bus or subkey}"
        detail = ", ".join(p for p in (adapter.provider, adapter.driver_date) if p)
        facts.append(Fact(key, adapter.driver_version + (f" ({detail})" if detail else ""),
                          source=adapter.driver_version_source))
    return facts


# ----------------------------------------------------------------------------- the probe


@dataclass(slots=True)
class _Evidence:
    adapters: list[DisplayAdapter] = field(default_factory=list)
    adapters_problem: str | None = None
    source: str = REGISTRY_LIBRARY
    dxgi: list[DxgiAdapter] = field(default_factory=list)
    dxgi_problem: str | None = None


def _gather(system: System) -> _Evidence:
    evidence = _Evidence()
    evidence.adapters, problem = parse_registry(system.library(REGISTRY_LIBRARY,
                                                               collect_registry_live))
    if problem is not None:
        result = system.run(CIM_COMMAND, timeout_s=8.0)
        if result.ok:
            evidence.adapters, cim_problem = parse_cim_json(result.stdout)
            evidence.source = CIM_SOURCE
            evidence.adapters_problem = join("; ", [problem] + ([cim_problem] if cim_problem
                                                                  else []))
        else:
            why = result.error or message("exit status {code}", code=result.returncode)
            evidence.adapters_problem = join("; ", [problem, message(
                "{source} failed ({error})", source=CIM_SOURCE, error=why)])
    evidence.dxgi, evidence.dxgi_problem = parse_dxgi(system.library(DXGI_LIBRARY, collect_dxgi))
    return evidence


def build_result(evidence: _Evidence) -> ProbeResult:
    """Pure: what the probe read to its result."""
    dxgi_answered = evidence.dxgi_problem is None
    pairs, notes = pair_adapters(evidence.adapters, evidence.dxgi, dxgi_answered)
    sightings = [build_sighting(a, d, evidence.dxgi_problem) for a, d in pairs]
    problems = [p for p in (evidence.adapters_problem, evidence.dxgi_problem) if p]
    if not sightings:
        if problems and not evidence.adapters and not evidence.dxgi:
            captured = any("not captured" not in p for p in problems)
            state = ProbeState.ERROR if captured else ProbeState.NOT_CAPTURED
            return ProbeResult(ProbeStatus(PROBE_NAME, state, reason=join("; ", problems)))
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.OK, reason=join("; ", [
            message("no display adapter with a GPU"), *notes, *problems])))
    names = [s.facts.name or s.facts.pci_device_id or "?" for s in sightings]
    reason = join("; ", [message("GPUs seen: {names}", names=", ".join(names)), *notes,
                         *problems])
    return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.OK, reason=reason),
                       sightings=tuple(sightings),
                       stack_facts=tuple(_stack_facts(pairs, sightings)))


def probe_windows_display(system: System) -> ProbeResult:
    """Every GPU Windows' display driver lists, with its LUID. Never raises."""
    try:
        if not is_windows(system):
            return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                           reason=message("not Windows")))
        return build_result(_gather(system))
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return probe_bug(PROBE_NAME, message("Windows display probe failed: {error}",
                                             error=f"{type(exc).__name__}: {exc}"))
