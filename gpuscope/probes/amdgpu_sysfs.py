"""The kernel driver's view: every GPU under /sys/class/drm, with the amdgpu driver's own
files read for amdgpu-bound devices. Needs no ROCm and no privileges.

Formats: the generic PCI attributes (`vendor`, `device`, `current_link_speed`, ...) and the
amdgpu files documented in the kernel (amdgpu_pm.c, amdgpu_vram_mgr.c; see
https://docs.kernel.org/gpu/amdgpu/thermal.html and .../driver-misc.html).
Names come from the board's own `product_name` where it has one, else from the system's
pci.ids (hwdata); the inventory refines a shared id from gpuscope's device table.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpuscope.evidence import System
from gpuscope.i18n import N_, message
from gpuscope.model import (
    GpuSighting,
    Layer,
    PcieLink,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)
from gpuscope.probes.pci_ids import lookup_pci_names
from gpuscope.probes.sourced import SightingBuilder, error_text

PROBE_NAME = "amdgpu_sysfs"
DRM_CLASS = "/sys/class/drm"

# The on-board PCIe switch of Radeon dGPUs (pci.ids: "Navi 10 XL Upstream/Downstream Port of
# PCI Express Switch"). Behind it the GPU function's own link is the internal one, not the
# slot's (https://github.com/ilya-zlobintsev/LACT/issues/334).
AMD_VENDOR_ID = "0x1002"
AMD_SWITCH_UPSTREAM_ID = "0x1478"
AMD_SWITCH_DOWNSTREAM_ID = "0x1479"

_CARD_RE = re.compile(r"^card(\d+)$")
_PCI_BUS_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_HEX_ID_RE = re.compile(r"^0x[0-9a-f]{1,8}$")
_DPM_LINE_RE = re.compile(r"^\s*(\d+):\s*(\d+(?:\.\d+)?)\s*mhz\s*(\*)?\s*$", re.IGNORECASE)
_BOOT_VGA = {"0": False, "1": True}
_SPEED_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*GT/s", re.IGNORECASE)


# ----------------------------------------------------------------------------- pure parsers


@dataclass(frozen=True, slots=True)
class DpmLevel:
    """One line of `pp_dpm_sclk` / `pp_dpm_mclk`: `1: 2526Mhz *` (`*` = current level)."""

    level: int
    mhz: float
    current: bool


def parse_dpm_levels(text: str) -> tuple[DpmLevel, ...]:
    """All well-formed DPM lines; anything else is skipped."""
    levels: list[DpmLevel] = []
    for line in text.splitlines():
        match = _DPM_LINE_RE.match(line)
        if match:
            levels.append(DpmLevel(int(match.group(1)), float(match.group(2)),
                                   match.group(3) is not None))
    return tuple(levels)


def max_dpm_mhz(text: str) -> int | None:
    levels = parse_dpm_levels(text)
    return int(max(level.mhz for level in levels)) if levels else None


def current_dpm_mhz(text: str) -> float | None:
    for level in parse_dpm_levels(text):
        if level.current:
            return level.mhz
    return None


def parse_link_speed(text: str) -> float | None:
    """`16.0 GT/s PCIe` (or the older `8 GT/s`) -> 16.0; `Unknown` -> None."""
    match = _SPEED_RE.match(text)
    if not match:
        return None
    speed = float(match.group(1))
    return speed if speed > 0 else None


def parse_link_width(text: str) -> int | None:
    value = parse_int(text)
    return value if value is not None and value > 0 else None


def parse_int(text: str) -> int | None:
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return int(stripped, 0) if stripped.lower().startswith("0x") else int(stripped)
    except ValueError:
        return None


def parse_hex_id(text: str) -> str | None:
    """`0x744C\\n` -> `0x744c`; anything that is not a hex id -> None."""
    stripped = text.strip().lower()
    if not stripped.startswith("0x"):
        stripped = "0x" + stripped
    return stripped if _HEX_ID_RE.match(stripped) else None


def microwatts_to_watts(text: str) -> float | None:
    value = parse_int(text)
    return value / 1_000_000 if value is not None and value >= 0 else None


# ----------------------------------------------------------------------------- helpers


def is_linux(system: System) -> bool:
    """Whether the machine behind `system` runs a Linux kernel (WSL included). Read through
    the system so that a replayed snapshot answers for the machine it was taken on."""
    return system.read_text("/proc/sys/kernel/osrelease").ok or system.read_text(
        "/proc/version").ok


def is_wsl(system: System) -> bool:
    version = system.read_text("/proc/version").stripped() or ""
    return "microsoft" in version.lower()


def drm_cards(entries: Iterable[str]) -> list[str]:
    """`card<N>` entries sorted by N; connectors (`card0-DP-1`) and render nodes are not GPUs."""
    cards = [(int(m.group(1)), e) for e in entries if (m := _CARD_RE.match(e))]
    return [name for _, name in sorted(cards)]


def _read(system: System, path: str) -> tuple[str | None, str]:
    """(stripped text, path) or (None, why it could not be read)."""
    result = system.read_text(path)
    text = result.stripped()
    if text is None:
        return None, (message("{path}: {error}", path=path, error=result.error) if result.error
                      else message("{path}: unreadable", path=path))
    return text, path


def _basename_if_link(system: System, path: str) -> str | None:
    target = system.realpath(path)
    if not target or target == path:
        return None
    return posixpath.basename(target.rstrip("/"))


def render_minor(system: System, device_dir: str) -> int | None:
    listing = system.list_dir(f"{device_dir}/drm")
    for entry in listing.entries or ():
        if entry.startswith("renderD") and entry[7:].isdigit():
            return int(entry[7:])
    return None


def hwmon_dirs(system: System, device_dir: str) -> list[str]:
    listing = system.list_dir(f"{device_dir}/hwmon")
    names = sorted((e for e in listing.entries or () if e.startswith("hwmon")),
                   key=lambda e: (len(e), e))
    return [f"{device_dir}/hwmon/{name}" for name in names]


# ----------------------------------------------------------------------------- PCIe link


def _link_at(system: System, directory: str) -> PcieLink | None:
    values: dict[str, str | None] = {}
    for name in ("current_link_speed", "current_link_width", "max_link_speed",
                 "max_link_width"):
        values[name], _ = _read(system, f"{directory}/{name}")
    link = PcieLink(
        current_speed_gt_s=parse_link_speed(values["current_link_speed"] or ""),
        current_width=parse_link_width(values["current_link_width"] or ""),
        max_speed_gt_s=parse_link_speed(values["max_link_speed"] or ""),
        max_width=parse_link_width(values["max_link_width"] or ""),
    )
    if (link.current_speed_gt_s, link.current_width, link.max_speed_gt_s,
            link.max_width) == (None, None, None, None):
        return None  # absent, or "Unknown" as on integrated GPUs without an external link
    return link


def read_pcie_link(system: System, device_realpath: str) -> tuple[PcieLink | None, str]:
    """The slot's link: behind AMD's on-board switch that is the switch's upstream port (which
    links to the root port), otherwise the GPU function's own link. Returns (link, source or
    the reason it is missing)."""
    function = posixpath.basename(device_realpath)
    parent = posixpath.dirname(device_realpath)
    grandparent = posixpath.dirname(parent)
    upstream = posixpath.basename(grandparent)
    if (
        _PCI_BUS_RE.match(posixpath.basename(parent))
        and _PCI_BUS_RE.match(upstream)
        and _pci_id(system, parent, "vendor") == AMD_VENDOR_ID
        and _pci_id(system, parent, "device") == AMD_SWITCH_DOWNSTREAM_ID
        and _pci_id(system, grandparent, "vendor") == AMD_VENDOR_ID
        and _pci_id(system, grandparent, "device") == AMD_SWITCH_UPSTREAM_ID
    ):
        link = _link_at(system, grandparent)
        if link is not None:
            return (
                PcieLink(link.current_speed_gt_s, link.current_width, link.max_speed_gt_s,
                         link.max_width, measured_at=f"slot (upstream port {upstream})"),
                f"{grandparent}/current_link_speed (upstream port of the GPU's on-board "
                "PCIe switch)",
            )
    link = _link_at(system, device_realpath)
    if link is None:
        return None, message("{path}/current_link_speed: missing or Unknown (no external PCIe "
                             "link)", path=device_realpath)
    return (
        PcieLink(link.current_speed_gt_s, link.current_width, link.max_speed_gt_s,
                 link.max_width, measured_at=f"GPU function {function}"),
        f"{device_realpath}/current_link_speed",
    )


def _pci_id(system: System, directory: str, name: str) -> str | None:
    text, _ = _read(system, f"{directory}/{name}")
    return parse_hex_id(text) if text is not None else None


# ----------------------------------------------------------------------------- the probe


def _put_read(system: System, fields: SightingBuilder, field: str, path: str,
              parse: Callable[[str], object | None], unparsed: str, note: str = "") -> None:
    """`field` from the file at `path`: its parsed value with the path (and `note`) as source,
    or why not: the file's error, or `unparsed` (a template marked with N_; "{text!r}" in it
    is the text read)."""
    text, source = _read(system, path)
    value = parse(text) if text is not None else None
    if value is not None:
        fields.put(field, value, f"{source}{note}")
    else:
        fields.miss_also(field, source if text is None
                         else message("{source}: {reason}", source=source,
                                      reason=message(unparsed, text=text)))


def _read_card(system: System, card: str) -> GpuSighting | None:
    base = f"{DRM_CLASS}/{card}/device"
    device_realpath = system.realpath(base)
    fields = SightingBuilder(Layer.SYSFS)
    vendor_text, vendor_source = _read(system, f"{base}/vendor")
    if vendor_text is None:
        return None  # a virtual DRM device (vgem, vkms) has no PCI function behind it
    vendor_id = parse_hex_id(vendor_text)
    if vendor_id is None:
        return None
    fields.put("pci_vendor_id", vendor_id, vendor_source)
    fields.put("vendor", Vendor.from_pci_vendor_id(vendor_id), vendor_source)
    fields.put("drm_card", card, f"{DRM_CLASS}/{card}")

    bus = posixpath.basename(device_realpath.rstrip("/")) if device_realpath != base else ""
    if _PCI_BUS_RE.match(bus):
        fields.put("pci_bus", bus, f"realpath of {base}")
    else:
        fields.miss("pci_bus", message("{path} does not resolve to a PCI function ({target})",
                                       path=base, target=device_realpath))

    for field, name in (("pci_device_id", "device"),
                        ("pci_subsystem_vendor_id", "subsystem_vendor"),
                        ("pci_subsystem_device_id", "subsystem_device"),
                        ("pci_revision", "revision")):
        _put_read(system, fields, field, f"{base}/{name}", parse_hex_id,
                  N_("not a hex id: {text!r}"))

    _name_from_pci_ids(system, fields)

    _put_read(system, fields, "boot_vga", f"{base}/boot_vga", _BOOT_VGA.get, N_("{text!r}"))

    driver = _basename_if_link(system, f"{base}/driver")
    if driver:
        fields.put("kernel_driver", driver, f"realpath of {base}/driver")
    else:
        fields.miss("kernel_driver", message("no driver is bound to {card} ({path}/driver is no "
                                             "link)", card=card, path=base))

    minor = render_minor(system, base)
    if minor is not None:
        fields.put("drm_render_minor", minor, f"{base}/drm/renderD{minor}")
    else:
        fields.miss_also("drm_render_minor", message("{path}/drm lists no renderD* node",
                                                     path=base))

    if bus and _PCI_BUS_RE.match(bus):
        link, link_source = read_pcie_link(system, device_realpath)
        if link is not None:
            fields.put("pcie_link", link, link_source)
        else:
            fields.miss_also("pcie_link", link_source)

    if driver == "amdgpu":
        _read_amdgpu_static(system, base, fields)
    else:
        fields.miss_also("vram_total_bytes", message(
            "not read from sysfs: {card} is bound to {driver}, not amdgpu", card=card,
            driver=driver) if driver else message(
            "not read from sysfs: {card} is bound to no driver, not amdgpu", card=card))
    return fields.sighting()


def _name_from_pci_ids(system: System, fields: SightingBuilder) -> None:
    vendor_id = fields.values.get("pci_vendor_id")
    device_id = fields.values.get("pci_device_id")
    if not isinstance(vendor_id, str) or not isinstance(device_id, str):
        return
    subvendor = fields.values.get("pci_subsystem_vendor_id")
    subdevice = fields.values.get("pci_subsystem_device_id")
    names = lookup_pci_names(system, vendor_id, device_id,
                             subvendor if isinstance(subvendor, str) else None,
                             subdevice if isinstance(subdevice, str) else None)
    where = f"pci.ids {names.database_version or ''} ({names.database or names.source})"
    if names.device_name:
        fields.put("name", names.device_name, where.replace("  ", " "))
    else:
        fields.miss_also("name", names.reason or message("pci.ids does not list this device"))
    if names.subsystem_name:
        fields.put("board_name", names.subsystem_name, where.replace("  ", " "))


def _read_amdgpu_static(system: System, base: str, fields: SightingBuilder) -> None:
    for field, name in (("vram_total_bytes", "mem_info_vram_total"),
                        ("visible_vram_total_bytes", "mem_info_vis_vram_total"),
                        ("gtt_total_bytes", "mem_info_gtt_total")):
        _put_read(system, fields, field, f"{base}/{name}", parse_int, N_("not a number"))

    for field, name in (("max_graphics_clock_mhz", "pp_dpm_sclk"),
                        ("max_memory_clock_mhz", "pp_dpm_mclk")):
        _put_read(system, fields, field, f"{base}/{name}", max_dpm_mhz, N_("no DPM levels"),
                  " (highest level)")

    hwmons = hwmon_dirs(system, base)
    for field, name in (("power_cap_w", "power1_cap"), ("power_cap_max_w", "power1_cap_max")):
        reason = message("{path}/hwmon has no hwmon* directory", path=base)
        for hwmon in hwmons:
            text, source = _read(system, f"{hwmon}/{name}")
            watts = microwatts_to_watts(text) if text is not None else None
            if watts is not None:
                fields.put(field, watts, f"{source} (µW)")
                break
            reason = source
        fields.miss_also(field, reason)

    for field, name in (("name", "product_name"), ("vbios_version", "vbios_version"),
                        ("serial_number", "serial_number"), ("uuid", "unique_id")):
        text, source = _read(system, f"{base}/{name}")
        if text:
            fields.put(field, text, source)
        else:
            fields.miss_also(field, message("not exposed by this board ({source})",
                                            source=source) if text is None
                             else message("{source} is empty", source=source))


def probe_amdgpu_sysfs(system: System) -> ProbeResult:
    """Every GPU the kernel's DRM subsystem shows, as Layer.SYSFS sightings."""
    try:
        return _probe(system)
    except Exception as exc:  # the probe contract: a bug becomes this probe's error status
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.ERROR,
                                       reason=error_text(exc)))


def _probe(system: System) -> ProbeResult:
    if not is_linux(system):
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                       reason=message("sysfs is Linux-only")))
    listing = system.list_dir(DRM_CLASS)
    sightings = [s for card in drm_cards(listing.entries or ())
                 if (s := _read_card(system, card)) is not None]
    if not sightings:
        if listing.error not in (None, "ENOENT"):
            return ProbeResult(ProbeStatus(
                PROBE_NAME, ProbeState.ERROR,
                reason=message("cannot list {path}: {error}", path=DRM_CLASS,
                               error=listing.error)))
        if is_wsl(system):
            return ProbeResult(ProbeStatus(
                PROBE_NAME, ProbeState.NOT_APPLICABLE,
                reason=message("no GPU in /sys/class/drm: under WSL the GPU is reached through "
                               "/dev/dxg, not a Linux kernel driver")))
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                       reason=message("no GPU in /sys/class/drm"),
                                       hint=message("no kernel GPU driver is bound to a GPU")))
    amdgpu = sum(1 for s in sightings if s.facts.kernel_driver == "amdgpu")
    summary = (message("1 DRM GPU ({amdgpu} amdgpu)", amdgpu=amdgpu) if len(sightings) == 1
               else message("{count} DRM GPUs ({amdgpu} amdgpu)", count=len(sightings),
                            amdgpu=amdgpu))
    return ProbeResult(
        ProbeStatus(PROBE_NAME, ProbeState.OK, reason=summary),
        sightings=tuple(sightings),
    )
