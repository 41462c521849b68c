"""lspci as people paste it: plain, ``-nn``, ``-n``, ``-mm``/``-mmnn`` (quoted fields),
``-vmm`` (one ``Tag:\\tvalue`` record per device), and ``-v``/``-vv``/``-k`` with their indented
"Subsystem:" and "Kernel driver in use:" lines.

Display controllers (class 0300 VGA, 0301 XGA, 0302 3D, 0380 other display) become sightings
of the PCI layer; so do AMD and NVIDIA "Processing accelerators" (class 1200: Instinct
MI300/MI325 list themselves so). Everything else — PCIe switch functions of a card, its HDMI
audio, bridges — is not a GPU. A second display function of a device whose function 0 is
already a display controller of the same vendor (old Intel IGPs' 00:02.1) is the same GPU.

``name`` is lspci's pci.ids device name ("Navi 22 [Radeon RX 6700/6700 XT/6750 XT /
6800M/6850M XT]"); lspci's placeholder "Device 73df" is not a name but still gives the id.

Also ``lspci -t``/``-tv`` (the tree: no classes, so GPUs by vendor and a name that is no
audio, USB, bridge or PSP function; buses from the tree's brackets) and ``lshw -class display``
(format "lshw": ``*-display`` nodes, ``bus info: pci@...``, ``UNCLAIMED`` = no driver bound).

Kinds: an AMD GPU whose pci.ids name is an APU's codename (Raphael, Phoenix1, Picasso, ...),
whose device id is an iGPU's, or whose name is an integrated one is integrated; an SR-IOV
virtual function (VF/MxGPU names and device ids) is virtual. A hypervisor's emulated display
adapter (VMware SVGA, Hyper-V virtual VGA, QEMU, virtio, VirtualBox) is no GPU: it makes the
host facts ``virtual_machine`` and ``virtual_machine_hint``.

Signal kinds emitted:

- ``gpu.virtual_function``: an SR-IOV virtual function (detail = PCI bus).
- ``platform.virtual_machine``: a hypervisor's display adapter (detail = the hypervisor).
- ``platform.wsl``: Microsoft's paravirtual GPU (1414:008e, "Microsoft Corporation Device
  008e") is the display device: this is a WSL2 guest. It is not a GPU sighting.
- ``pci.driver_not_bound``: ``-k`` output lists kernel modules for a display device but no
  "Kernel driver in use" (detail = PCI bus): the driver did not bind (failed or blacklisted).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import GpuFacts, GpuKind, GpuSighting, Layer, ParsedOutput, Signal, Vendor
from gpuscope.parsers._common import (
    Collector,
    integrated_reason,
    never_raises,
    read_lines,
    sniff_lines,
    virtual_function_reason,
)

FORMATS: tuple[str, ...] = ("lspci", "lshw")

_MAX_LINE_CHARS = 400
# lspci lines are a few hundred characters; longer ones are not lspci and would only make the
# regular expressions work quadratically.
_MAX_SCAN = 1000
_MAX_GPUS = 256  # more display functions are not one machine's lspci
_DISPLAY_CLASSES = {"0300", "0301", "0302", "0380"}
_ACCELERATOR_CLASS = "1200"
_CLASS_CODES = {"vga compatible controller": "0300", "xga compatible controller": "0301",
                 "3d controller": "0302", "display controller": "0380",
                 "processing accelerators": "1200"}
_GPU_VENDOR_IDS = {"0x1002", "0x10de"}
# The emulated display adapters of hypervisors (QEMU's std VGA and QXL, virtio-gpu, VMware's
# SVGA, VirtualBox's, Hyper-V's virtual VGA), by PCI vendor id.
_HYPERVISOR_VENDORS = {"0x1b36": "QEMU", "0x1af4": "QEMU/KVM", "0x15ad": "VMware",
                       "0x80ee": "VirtualBox", "0x1234": "QEMU", "0x1414": "Hyper-V"}
# pci.ids' names of the integrated GPUs of AMD's APUs (their codenames).
_APU_CODENAME = re.compile(
    r"\b(?:Phoenix\d?|Raphael|Rembrandt|Renoir|Cezanne|Barcelo|Lucienne|Picasso|Raven(?: Ridge)?|"
    r"Mendocino|Strix(?: Halo| Point)?|Krackan|Hawk Point|Van Gogh|Kaveri|Carrizo|Stoney|Kabini|"
    r"Mullins|Beema|Trinity|Richland|Wrestler|Sumo|Godavari|Cyan Skillfish|Aqua Vanjaram "
    r"\[Instinct MI300A\])\b")

_SLOT = (r"(?:(?P<domain>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2}):"
         r"(?P<dev>[0-1][0-9a-fA-F])\.(?P<fn>[0-7])")
# A device line: the slot, whitespace, then "class [code]: rest" (split with str methods).
_SLOT_RE = re.compile(rf"^{_SLOT}(?=\s)")
_CLASS_CODE_RE = re.compile(r"\[(?P<code>[0-9a-fA-F]{4})\]$")
_NUMERIC_RE = re.compile(
    rf"^{_SLOT}\s+(?P<code>[0-9a-fA-F]{{4}}):\s*(?P<vendor>[0-9a-fA-F]{{4}}):(?P<device>[0-9a-fA-F]{{4}})"
    r"(?:\s*\(rev (?P<rev>[0-9a-fA-F]{2})\))?")
_MM_RE = re.compile(rf"^{_SLOT}\s+\"")
_IDS_RE = re.compile(r"\[(?P<vendor>[0-9a-fA-F]{4}):(?P<device>[0-9a-fA-F]{4})\]")
_REV_RE = re.compile(r"\(rev (?P<rev>[0-9a-fA-F]{2})\)")
_PROGIF_RE = re.compile(r"\s{0,8}\(prog-if [^)]{0,60}\)")
_PLACEHOLDER_RE = re.compile(r"^Device (?P<id>[0-9a-fA-F]{4})$")
_VMM_RE = re.compile(r"^(?P<key>Slot|Class|Vendor|Device|SVendor|SDevice|Rev|ProgIf|Driver|"
                     r"Module|NUMANode|IOMMUGroup|PhySlot):\s+(?P<value>.*)$")

# Vendor names as pci.ids spells them, longest first, to split "vendor device" when lspci
# prints no ids.
_VENDOR_NAMES: tuple[tuple[str, str], ...] = (
    ("Advanced Micro Devices, Inc. [AMD/ATI]", "0x1002"),
    ("Advanced Micro Devices [AMD] nee ATI", "0x1002"),
    ("Advanced Micro Devices, Inc. [AMD]", "0x1022"), ("ATI Technologies Inc", "0x1002"),
    ("NVIDIA Corporation", "0x10de"), ("nVidia Corporation", "0x10de"),
    ("Intel Corporation", "0x8086"), ("Microsoft Corporation", "0x1414"),
    ("Matrox Electronics Systems Ltd.", "0x102b"), ("ASPEED Technology, Inc.", "0x1a03"),
    ("Red Hat, Inc.", "0x1af4"), ("VMware", "0x15ad"),
    ("InnoTek Systemberatung GmbH", "0x80ee"), ("Cirrus Logic", "0x1013"),
    ("Moore Threads Technology Co.,Ltd", "0x1ed5"),
)


def sniff(text: str) -> tuple[str, float] | None:
    head = text[:200_000]
    lines = sniff_lines(head)
    if not lines:
        return None
    if any(_LSHW_NODE_RE.match(line) for line in lines) and any(
            "bus info: pci@" in line for line in lines):
        return ("lshw", 0.85)
    if any(_TREE_ROOT_RE.match(line) for line in lines[:50]):
        return ("lspci", 0.85)  # lspci -t / -tv
    device_lines = sum(1 for line in lines if _device_line(line.strip()) is not None)
    if device_lines == 0:
        slots = sum(1 for line in lines if re.match(rf"^(?:Slot|Device):\s+{_SLOT}\s*$", line))
        if slots and any(line.startswith("Class:") for line in lines):
            return ("lspci", 0.85)
        return None
    detail = sum(1 for line in lines if line[:1] in (" ", "\t"))
    share = device_lines / max(1, len(lines) - detail)
    if share >= 0.5:
        return ("lspci", 0.9)
    if device_lines >= 1 and share >= 0.2:
        return ("lspci", 0.6)
    return None


@dataclasses.dataclass
class _Device:
    line: int
    domain: str
    bus: str
    dev: str
    fn: str
    class_code: str | None
    class_name: str | None
    vendor_id: str | None = None
    device_id: str | None = None
    vendor_name: str | None = None
    device_name: str | None = None
    revision: str | None = None
    subsystem_vendor_id: str | None = None
    subsystem_device_id: str | None = None
    subsystem_line: int | None = None
    driver: str | None = None
    driver_line: int | None = None
    modules_line: int | None = None

    @property
    def address(self) -> str:
        return f"{self.domain}:{self.bus}:{self.dev}.{self.fn}"

    @property
    def slot(self) -> str:
        return f"{self.domain}:{self.bus}:{self.dev}"


def _domain(raw: str | None) -> str:
    if not raw:
        return "0000"
    raw = raw.lower()
    return raw[-4:] if int(raw, 16) <= 0xFFFF else raw.lstrip("0")


def _device_line(line: str) -> _Device | None:
    """A device header line in any of the one-line layouts, or None."""
    if _MM_RE.match(line):
        return _parse_mm(line)
    numeric = _NUMERIC_RE.match(line)
    if numeric:
        return _Device(
            line=0, domain=_domain(numeric.group("domain")), bus=numeric.group("bus").lower(),
            dev=numeric.group("dev").lower(), fn=numeric.group("fn"),
            class_code=numeric.group("code").lower(), class_name=None,
            vendor_id=f"0x{numeric.group('vendor').lower()}",
            device_id=f"0x{numeric.group('device').lower()}",
            revision=f"0x{numeric.group('rev').lower()}" if numeric.group("rev") else None)
    header = _device_header(line)
    if not header:
        return None
    slot, klass, code, rest = header
    class_name = klass.strip()
    code = (code or _CLASS_CODES.get(class_name.lower(), "")).lower() or None
    if code is None and not re.search(r"controller|bridge|device|interface|accelerator",
                                      class_name, re.IGNORECASE):
        return None  # not an lspci class ("Error: ...", a log line with a colon)
    device = _Device(
        line=0, domain=_domain(slot.group("domain")), bus=slot.group("bus").lower(),
        dev=slot.group("dev").lower(), fn=slot.group("fn"), class_code=code,
        class_name=class_name)
    rev = _REV_RE.search(rest)
    if rev:
        device.revision = f"0x{rev.group('rev').lower()}"
    rest = _PROGIF_RE.sub("", _REV_RE.sub("", rest)).strip()
    all_ids = list(_IDS_RE.finditer(rest))  # the last [vvvv:dddd] is the device's ids
    ids = all_ids[-1] if all_ids else None
    if ids is not None:
        device.vendor_id = f"0x{ids.group('vendor').lower()}"
        device.device_id = f"0x{ids.group('device').lower()}"
        rest = (rest[: ids.start()] + rest[ids.end():]).strip()
    _split_names(device, rest)
    return device


def _device_header(line: str) -> tuple[re.Match[str], str, str | None, str] | None:
    """`SLOT CLASS [CODE]: REST` as (slot, class, code, rest), read with string methods
    (linear on any line): the class is what lies between the slot and the first colon, and
    holds no bracket or quote but its code."""
    slot = _SLOT_RE.match(line)
    if slot is None:
        return None
    after = line[slot.end():]
    klass, colon, rest = after.partition(":")
    if not colon or not klass.strip() or '"' in klass:
        return None
    code = None
    if "[" in klass:
        head = klass.rstrip()
        found = _CLASS_CODE_RE.search(head)
        if found is None or "[" in head[:found.start()]:
            return None
        klass, code = head[:found.start()], found.group("code")
    if not klass.strip():
        return None
    return slot, klass, code, rest.strip()


def _split_names(device: _Device, text: str) -> None:
    for vendor_name, vendor_id in _VENDOR_NAMES:
        if text.startswith(vendor_name):
            device.vendor_name = vendor_name
            device.vendor_id = device.vendor_id or vendor_id
            _set_device_name(device, text[len(vendor_name):].strip())
            return
    device.device_name = text or None  # vendor unknown to us: keep the whole description


def _set_device_name(device: _Device, name: str) -> None:
    placeholder = _PLACEHOLDER_RE.match(name)
    if placeholder:
        device.device_id = device.device_id or f"0x{placeholder.group('id').lower()}"
        return
    device.device_name = name or None


def _parse_mm(line: str) -> _Device | None:
    """`lspci -mm[nn]`: slot "class [cccc]" "vendor [vvvv]" "device [dddd]" -rXX -pXX
    "subsystem vendor [vvvv]" "subsystem device [dddd]"."""
    slot = re.match(_SLOT, line)
    if not slot:
        return None
    quoted = re.findall(r"\"([^\"]*)\"", line)
    if len(quoted) < 3:
        return None
    device = _Device(line=0, domain=_domain(slot.group("domain")), bus=slot.group("bus").lower(),
                     dev=slot.group("dev").lower(), fn=slot.group("fn"), class_code=None,
                     class_name=None)
    class_text, code = _name_and_id(quoted[0])
    device.class_name = class_text
    device.class_code = code or _CLASS_CODES.get(class_text.lower())
    vendor_text, vendor_id = _name_and_id(quoted[1])
    device.vendor_name = vendor_text or None
    device.vendor_id = f"0x{vendor_id}" if vendor_id else _vendor_id_of(vendor_text)
    name_text, device_id = _name_and_id(quoted[2])
    pair = re.search(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]\s*$", quoted[2])
    if pair:  # some builds print [vvvv:dddd] in the device field
        device_id = pair.group(2).lower()
        name_text = quoted[2][: pair.start()].strip()
    if device_id:
        device.device_id = f"0x{device_id}"
    _set_device_name(device, name_text)
    rev = re.search(r"\s-r([0-9a-fA-F]{2})\b", line)
    if rev:
        device.revision = f"0x{rev.group(1).lower()}"
    if len(quoted) >= 5:
        _, sub_vendor = _name_and_id(quoted[3])
        _, sub_device = _name_and_id(quoted[4])
        if sub_vendor and sub_device:
            device.subsystem_vendor_id = f"0x{sub_vendor}"
            device.subsystem_device_id = f"0x{sub_device}"
    return device


def _name_and_id(text: str) -> tuple[str, str | None]:
    """"Name [abcd]" -> ("Name", "abcd"); without a trailing id, (the text, None)."""
    stripped = text.strip()
    if len(stripped) >= 6 and stripped[-1] == "]" and stripped[-6] == "[" and all(
            c in "0123456789abcdefABCDEF" for c in stripped[-5:-1]):
        return stripped[:-6].strip(), stripped[-5:-1].lower()
    return stripped, None


def _vendor_id_of(name: str | None) -> str | None:
    if not name:
        return None
    for vendor_name, vendor_id in _VENDOR_NAMES:
        if name.startswith(vendor_name):
            return vendor_id
    return None


@never_raises("lspci")
def parse(text: str, source: str) -> ParsedOutput:
    """lspci output (or lshw's display nodes) to PCI-layer sightings of the display devices."""
    found = sniff(text)
    if found is not None and found[0] == "lshw":
        return _parse_lshw(text, source)
    if found is not None and any(_TREE_ROOT_RE.match(line)
                                 for line in text[:20_000].split("\n", 50)[:50]):
        return _parse_tree(text, source)
    lines, cut = read_lines(text)
    lines = [line[:_MAX_SCAN] for line in lines]
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, cut=cut)
    display, any_device, shows_drivers = _read_devices(lines)  # their lines are 0-based
    if len(display) > _MAX_GPUS:
        out.problems.append(f"more than {_MAX_GPUS} display devices: the rest were not read")
        display = display[:_MAX_GPUS]
    function_zero = {d.slot: d for d in display if d.fn == "0"}
    sightings: list[GpuSighting] = []
    signals: list[Signal] = []  # one per device, not merged by kind
    for device in display:
        header = out.where(device.line + 1)
        if device.vendor_id == "0x1414" and (
                device.device_id in (None, "0x008e")
                and "virtual vga" not in (device.device_name or "").lower()):
            # Hyper-V GPU-PV (1414:008e): the host's GPUs, seen from WSL2. Hyper-V's virtual
            # VGA (1414:5353) is a VM's display adapter instead.
            signals.append(Signal("platform.wsl", evidence=(out.ref(device.line + 1),)))
            out.host_fact("os", "wsl", header)
            continue
        first = function_zero.get(device.slot)
        if device.fn != "0" and first is not None and first.vendor_id == device.vendor_id:
            continue  # another display function of the same GPU
        values: dict[str, Any] = {"pci_bus": device.address}
        sources: dict[str, str] = {"pci_bus": header}
        missing: dict[str, str] = {}
        for name, value, at in (
                ("vendor", Vendor.from_pci_vendor_id(device.vendor_id), header),
                ("pci_vendor_id", device.vendor_id, header),
                ("pci_device_id", device.device_id, header),
                ("pci_revision", device.revision, header),
                ("name", device.device_name, header),
                ("pci_subsystem_vendor_id", device.subsystem_vendor_id,
                 out.where((device.subsystem_line or device.line) + 1)),
                ("pci_subsystem_device_id", device.subsystem_device_id,
                 out.where((device.subsystem_line or device.line) + 1)),
                ("kernel_driver", device.driver,
                 out.where((device.driver_line or device.line) + 1))):
            if value is not None:
                values[name] = value
                sources[name] = at
        if device.vendor_id in _HYPERVISOR_VENDORS:
            # A hypervisor's emulated display adapter: no GPU to compute on, the trace of a VM.
            _virtual_display(out, signals, device.vendor_id, device.line)
            continue
        if device.vendor_id == "0x1002":
            if virtual_function_reason(device.device_name, device.device_id):
                values["kind"], sources["kind"] = GpuKind.VIRTUAL, header
                signals.append(Signal("gpu.virtual_function", detail=device.address,
                                      evidence=(out.ref(device.line + 1),)))
            elif (device.device_name and _APU_CODENAME.search(device.device_name)) or (
                    integrated_reason(device.device_name, None, device.device_id)):
                values["kind"], sources["kind"] = GpuKind.INTEGRATED, header
        elif device.vendor_id == "0x10de" and device.class_code == "0302":
            # NVIDIA's 3D controllers are display-less GPUs of their own: a laptop's (Optimus)
            # or a data-center card, never an integrated one
            values["kind"], sources["kind"] = GpuKind.DISCRETE, header
        if device.device_id is None:
            missing["pci_device_id"] = message("lspci printed no numeric ids (use lspci -nn)")
        if device.device_name is None:
            missing["name"] = message("lspci's pci.ids has no name for this device")
        if device.driver is None:
            if shows_drivers and device.modules_line is not None:
                missing["kernel_driver"] = message("lspci -k lists modules but no driver in use")
                signals.append(Signal("pci.driver_not_bound", detail=device.address,
                                      evidence=(out.ref(device.line + 1),
                                                out.ref(device.modules_line + 1))))
            elif not shows_drivers:
                missing["kernel_driver"] = message(
                    "this lspci output has no kernel driver lines (-k)")
        facts = dataclasses.replace(GpuFacts(), **values)
        sightings.append(GpuSighting(layer=Layer.PCI, facts=facts, field_sources=sources,
                                     missing_reasons=missing))
    if not any_device:
        out.problems.append("no lspci device lines found")
    return ParsedOutput(format="lspci", source=source, sightings=tuple(sightings),
                        signals=tuple(signals[:_MAX_GPUS]), host_facts=tuple(out.host.values()),
                        problems=tuple(out.problems))


def _is_gpu(device: _Device) -> bool:
    if device.class_code in _DISPLAY_CLASSES:
        return True
    return device.class_code == _ACCELERATOR_CLASS and device.vendor_id in _GPU_VENDOR_IDS


_DETAIL_KEYS = ("Subsystem:", "Kernel driver in use:", "Kernel modules:")  # those read


def _read_devices(lines: list[str]) -> tuple[list[_Device], bool, bool]:
    """The display devices (one more than `_MAX_GPUS` at most), whether there was any device
    and whether any showed drivers (-k); a line or -vmm record is read once, or for each kept."""
    display: list[_Device] = []
    any_device = shows_drivers = False
    current: _Device | None = None  # the device whose detail lines are read
    others = _Device(0, "", "", "", "", None, None)  # stands for the devices not kept
    vmm: dict[str, tuple[str, int]] = {}
    known: dict[object, Any] = {}  # line/record -> -vmm (tag, value), device, others, None

    def read(key: object, reader: Callable[..., Any], *args: Any) -> Any:
        nonlocal any_device, shows_drivers
        found = known[key] if key in known else known.setdefault(key, reader(*args))
        if not isinstance(found, _Device) or found is others:
            return found
        any_device = True
        shows_drivers |= found.driver_line is not None or found.modules_line is not None
        if _is_gpu(found) and len(display) <= _MAX_GPUS:
            display.append(reader(*args))  # a device of its own
            return display[-1]
        known[key] = others  # for good: the display devices kept are all there will be
        return others

    for index, raw in enumerate([*lines, ""]):  # a blank line ends the last -vmm record
        line = raw.strip()
        if not line:
            if vmm:
                read(tuple((key, value) for key, (value, _) in vmm.items()), _from_vmm, vmm)
                vmm = {}
            current = None
            continue
        if raw[:1] in (" ", "\t"):
            if current is None or not line.startswith(_DETAIL_KEYS):
                continue  # nothing of it is used
            key, _, value = line.partition(":")
            if key == "Subsystem":
                current.subsystem_line = index
                ids = _IDS_RE.search(value)
                if ids:
                    current.subsystem_vendor_id = f"0x{ids.group('vendor').lower()}"
                    current.subsystem_device_id = f"0x{ids.group('device').lower()}"
            elif key == "Kernel modules":
                current.modules_line = index
            else:
                current.driver, current.driver_line = value.strip() or None, index
            shows_drivers |= key != "Subsystem"
            continue
        found = known.get(raw)
        if found is not others and not isinstance(found, tuple):
            found = read(raw, _read_line, raw, line)
        if isinstance(found, tuple):
            key, value = found
            if key == "Device" and "Slot" not in vmm and re.fullmatch(_SLOT, value):
                key = "Slot"  # pciutils before 3.x printed the slot as "Device:"
            vmm[key] = (value, index)
            continue
        if found is not None and found is not others:
            found.line = index
        current = found
    return display, any_device, shows_drivers


def _read_line(raw: str, line: str) -> tuple[str, str] | _Device | None:
    """An unindented line: an `lspci -vmm` tag and its value, else a device line, else None."""
    if (vmm_match := _VMM_RE.match(raw)) is not None:
        return vmm_match.group("key"), vmm_match.group("value").strip()
    return _device_line(line)


def _from_vmm(record: dict[str, tuple[str, int]]) -> _Device | None:
    """The device of one `lspci -vmm[nn][k]` record."""
    if "Slot" not in record or "Class" not in record:
        return None
    slot_text, slot_line = record["Slot"]
    slot = re.fullmatch(_SLOT, slot_text)
    if not slot:
        return None
    class_text, code = _name_and_id(record["Class"][0])
    device = _Device(line=slot_line, domain=_domain(slot.group("domain")),
                     bus=slot.group("bus").lower(), dev=slot.group("dev").lower(),
                     fn=slot.group("fn"), class_code=code or _CLASS_CODES.get(class_text.lower()),
                     class_name=class_text)
    if "Vendor" in record:
        vendor_text, vendor_id = _name_and_id(record["Vendor"][0])
        device.vendor_name = vendor_text
        device.vendor_id = f"0x{vendor_id}" if vendor_id else _vendor_id_of(vendor_text)
    if "Device" in record:
        name_text, device_id = _name_and_id(record["Device"][0])
        if device_id:
            device.device_id = f"0x{device_id}"
        _set_device_name(device, name_text)
    if "Rev" in record and re.fullmatch(r"[0-9a-fA-F]{2}", record["Rev"][0]):
        device.revision = f"0x{record['Rev'][0].lower()}"
    if "SVendor" in record and "SDevice" in record:
        _, sub_vendor = _name_and_id(record["SVendor"][0])
        _, sub_device = _name_and_id(record["SDevice"][0])
        if sub_vendor and sub_device:
            device.subsystem_vendor_id = f"0x{sub_vendor}"
            device.subsystem_device_id = f"0x{sub_device}"
            device.subsystem_line = record["SVendor"][1]
    if "Driver" in record:
        device.driver, device.driver_line = record["Driver"][0] or None, record["Driver"][1]
    if "Module" in record:
        device.modules_line = record["Module"][1]
    return device


def _virtual_display(out: Collector, signals: list[Signal], vendor_id: str, index: int) -> None:
    """A hypervisor's display adapter at line `index` (0-based): the host facts and signal of
    a VM guest."""
    name = _HYPERVISOR_VENDORS[vendor_id]
    where = out.where(index + 1)
    out.host_fact("virtual_machine", True, where)
    out.host_fact("virtual_machine_hint", f"{name} (its display adapter)", where)
    signals.append(Signal("platform.virtual_machine", detail=name,
                          evidence=(out.ref(index + 1),)))


# ----------------------------------------------------------------------------- lshw

# `lshw -class display` (or video, or the whole tree): "*-display" or "*-display:1 UNCLAIMED"
# nodes with "product:", "vendor:", "bus info: pci@0000:03:00.0" and "configuration:
# driver=amdgpu ..." lines under them. UNCLAIMED is a device no driver is bound to.
_LSHW_NODE_RE = re.compile(r"^[ \t]*\*-(?P<class>[\w-]{1,40})(?::\d{1,3})?(?P<rest>.*)$")
_LSHW_KV_RE = re.compile(r"^[ \t]+(?P<key>[a-z][a-z ]{1,30}):[ \t](?P<value>.*)$")
_LSHW_BUS_RE = re.compile(rf"^pci@{_SLOT}$")
_LSHW_DRIVER_RE = re.compile(r"(?:^|\s)driver=(?P<driver>[\w.-]{1,40})")
_LSHW_DISPLAY_CLASSES = ("display", "video")


def _parse_lshw(text: str, source: str) -> ParsedOutput:
    lines, cut = read_lines(text)
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, cut=cut)
    nodes: list[tuple[int, bool, dict[str, tuple[str, int]]]] = []
    current: dict[str, tuple[str, int]] | None = None
    for index, line in enumerate(lines):
        node = _LSHW_NODE_RE.match(line)
        if node is not None:
            current = None
            if node.group("class").lower() in _LSHW_DISPLAY_CLASSES and len(nodes) < _MAX_GPUS:
                current = {}
                nodes.append((index, "UNCLAIMED" in node.group("rest").upper(), current))
            continue
        if current is not None and (kv := _LSHW_KV_RE.match(line)) is not None:
            current.setdefault(kv.group("key"), (kv.group("value").strip(), index))
    sightings: list[GpuSighting] = []
    signals: list[Signal] = []
    for index, unclaimed, values in nodes:
        built = _lshw_sighting(out, index, unclaimed, values, signals)
        if built is not None:
            sightings.append(built)
    if not nodes:
        out.problems.append("no lshw display nodes found")
    return ParsedOutput(format="lshw", source=source, sightings=tuple(sightings),
                        signals=tuple(signals), host_facts=tuple(out.host.values()),
                        problems=tuple(out.problems))


def _lshw_sighting(out: Collector, index: int, unclaimed: bool,
                   values: dict[str, tuple[str, int]], signals: list[Signal]) -> GpuSighting | None:
    bus_info = values.get("bus info")
    slot = _LSHW_BUS_RE.match(bus_info[0]) if bus_info else None
    if slot is None or bus_info is None:
        return None  # not a PCI display device (a framebuffer, a USB adapter)
    header = out.where(bus_info[1] + 1)
    device = _Device(line=index, domain=_domain(slot.group("domain")),
                     bus=slot.group("bus").lower(), dev=slot.group("dev").lower(),
                     fn=slot.group("fn"), class_code=None, class_name=None)
    vendor_text = values.get("vendor", ("", 0))[0]
    vendor_id = _vendor_id_of(vendor_text) or _vendor_id_of(
        {"VMware": "VMware", "Red Hat, Inc.": "Red Hat, Inc."}.get(vendor_text, ""))
    product = values.get("product")
    name = product[0] if product and product[0] else None
    facts: dict[str, Any] = {"pci_bus": device.address}
    sources: dict[str, str] = {"pci_bus": header}
    missing: dict[str, str] = {"pci_device_id": message("lshw prints no PCI ids")}
    vendor = Vendor.from_pci_vendor_id(vendor_id) if vendor_id else None
    if vendor is not None:
        facts["vendor"], facts["pci_vendor_id"] = vendor, vendor_id
        sources["vendor"] = sources["pci_vendor_id"] = out.where(values["vendor"][1] + 1)
    if name is not None and product is not None:
        facts["name"], sources["name"] = name, out.where(product[1] + 1)
    configuration = values.get("configuration")
    driver = _LSHW_DRIVER_RE.search(configuration[0]) if configuration else None
    if driver is not None and configuration is not None:
        facts["kernel_driver"] = driver.group("driver")
        sources["kernel_driver"] = out.where(configuration[1] + 1)
    elif unclaimed:
        missing["kernel_driver"] = message(
            "lshw shows the device UNCLAIMED: no driver is bound to it")
        signals.append(Signal("pci.driver_not_bound", detail=device.address,
                              evidence=(out.ref(index + 1),)))
    where = sources.get("name", header)
    if vendor_id in _HYPERVISOR_VENDORS:
        _virtual_display(out, signals, vendor_id, index)
        return None
    if vendor is Vendor.AMD and virtual_function_reason(name, None):
        facts["kind"], sources["kind"] = GpuKind.VIRTUAL, where
        signals.append(Signal("gpu.virtual_function", detail=device.address,
                              evidence=(out.ref((product or bus_info)[1] + 1),)))
    elif vendor is Vendor.AMD and name and (_APU_CODENAME.search(name)
                                            or integrated_reason(name, None)):
        facts["kind"], sources["kind"] = GpuKind.INTEGRATED, where
    built = dataclasses.replace(GpuFacts(), **facts)
    return GpuSighting(layer=Layer.PCI, facts=built, field_sources=sources,
                       missing_reasons=missing)


# ----------------------------------------------------------------------------- lspci -tv

# The tree: "-[0000:00]-+-00.0  Vendor Device" at the root, a bridge's secondary bus in brackets
# ("+-01.1-[01]----00.0  Advanced Micro Devices, Inc. [AMD/ATI] Baffin ..."), the other
# functions of a bus under it ("|            +-00.1  ..."). It prints no class: a GPU is told
# by its vendor and a name that is no audio, USB or bridge function.
_TREE_ROOT_RE = re.compile(r"^[ \t]*[+\\|-]{0,3}\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]-")
_TREE_BUS_RE = re.compile(r"\[(?:(?P<domain>[0-9a-fA-F]{4}):)?(?P<bus>[0-9a-fA-F]{2})"
                          r"(?:-[0-9a-fA-F]{2})?\]")
_TREE_DEVICE_RE = re.compile(r"(?P<dev>[0-1][0-9a-fA-F])\.(?P<fn>[0-7])  (?P<name>\S.*)$")
_TREE_NOT_GPU = re.compile(
    r"Audio|HDMI|USB|UCSI|Serial|I2C|SMBus|Upstream|Downstream|Port|Bridge|Switch|Root Complex|"
    r"Platform Security|Cryptographic|Sensor Fusion|Data Fabric|Azalia|Dummy", re.IGNORECASE)


def _parse_tree(text: str, source: str) -> ParsedOutput:
    lines, cut = read_lines(text)
    lines = [line[:_MAX_SCAN] for line in lines]
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, cut=cut)
    buses: dict[int, tuple[str, str]] = {}  # column of a "[bus]" -> (domain, bus)
    domain = "0000"
    sightings: list[GpuSighting] = []
    signals: list[Signal] = []
    for index, line in enumerate(lines):
        for bracket in _TREE_BUS_RE.finditer(line):
            if bracket.group("domain"):
                domain = bracket.group("domain").lower()
                # a new root: the columns of the last tree say nothing about this one
                buses = {column: bus for column, bus in buses.items()
                         if column < bracket.start()}
            buses[bracket.start()] = (domain, bracket.group("bus").lower())
        device = _TREE_DEVICE_RE.search(line)
        if device is None:
            continue
        left = [column for column in buses if column < device.start()]
        if not left:
            continue
        bus_domain, bus = buses[max(left)]
        name_text = device.group("name").strip()
        entry = _Device(line=index, domain=bus_domain, bus=bus, dev=device.group("dev").lower(),
                        fn=device.group("fn"), class_code=None, class_name=None)
        pair = _IDS_RE.search(name_text)
        if pair is not None:  # lspci -tvnn
            entry.vendor_id = f"0x{pair.group('vendor').lower()}"
            entry.device_id = f"0x{pair.group('device').lower()}"
            name_text = (name_text[:pair.start()] + name_text[pair.end():]).strip()
        _split_names(entry, name_text)
        if entry.vendor_id not in _GPU_VENDOR_IDS or (
                entry.device_name and _TREE_NOT_GPU.search(entry.device_name)):
            if entry.vendor_id in _HYPERVISOR_VENDORS and entry.device_name and (
                    "vga" in entry.device_name.lower() or "svga" in entry.device_name.lower()):
                _virtual_display(out, signals, entry.vendor_id, index)
            continue
        if len(sightings) >= _MAX_GPUS:
            break
        sightings.append(_tree_sighting(out, entry, signals))
    return ParsedOutput(format="lspci", source=source, sightings=tuple(sightings),
                        signals=tuple(signals), host_facts=tuple(out.host.values()),
                        problems=tuple(out.problems))


def _tree_sighting(out: Collector, entry: _Device, signals: list[Signal]) -> GpuSighting:
    where = out.where(entry.line + 1)
    facts: dict[str, Any] = {"pci_bus": entry.address, "pci_vendor_id": entry.vendor_id,
                             "vendor": Vendor.from_pci_vendor_id(entry.vendor_id)}
    if entry.device_id:
        facts["pci_device_id"] = entry.device_id
    if entry.device_name:
        facts["name"] = entry.device_name
    name = entry.device_name
    if facts["vendor"] is Vendor.AMD:
        if virtual_function_reason(name, entry.device_id):
            facts["kind"] = GpuKind.VIRTUAL
            signals.append(Signal("gpu.virtual_function", detail=entry.address,
                                  evidence=(out.ref(entry.line + 1),)))
        elif (name and _APU_CODENAME.search(name)) or integrated_reason(name, None,
                                                                        entry.device_id):
            facts["kind"] = GpuKind.INTEGRATED
    missing = {"kernel_driver": message("lspci -t shows no drivers")}
    if not entry.device_id:
        missing["pci_device_id"] = message("lspci -t printed no numeric ids (use lspci -tvnn)")
    return GpuSighting(layer=Layer.PCI, facts=dataclasses.replace(GpuFacts(), **facts),
                       field_sources={key: where for key in facts}, missing_reasons=missing)
