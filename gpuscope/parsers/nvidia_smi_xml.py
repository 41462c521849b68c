"""`nvidia-smi -q -x` (see nvidia_smi.py for what it yields): the XML read with ElementTree
(entities refused; a cut paste keeps its complete `<gpu>` elements), each value's line found
again in the text by its tag, for the evidence."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from gpuscope.i18n import message
from gpuscope.model import GpuSighting
from gpuscope.parsers import nvidia_smi_fields as smi
from gpuscope.parsers._common import lines_holding


def parse_xml(text: str, out: smi.Output) -> None:
    """The GPUs and versions of `-q -x` output into `out`."""
    start = text.find("<nvidia_smi_log")
    body = text[start:] if start >= 0 else text
    if "<!ENTITY" in body:  # nvidia-smi never declares entities; refuse expansion games
        out.problems.append("XML declares entities; not nvidia-smi output")
        return
    end = body.rfind("</nvidia_smi_log>")
    root: ET.Element | None = None
    if end >= 0:
        root = _try_xml(body[: end + len("</nvidia_smi_log>")])
    if root is None:
        # A paste cut mid-way: keep the complete <gpu> elements.
        last_gpu = body.rfind("</gpu>")
        if last_gpu >= 0:
            root = _try_xml(body[: last_gpu + len("</gpu>")] + "</nvidia_smi_log>")
        if root is not None:
            out.problems.append("XML is cut short: only complete <gpu> elements were read")
    line_offset = text.count("\n", 0, start) if start >= 0 else 0
    if root is None:
        out.problems.append("XML could not be parsed")
        _xml_versions_by_regex(out)
        return
    finder = _LineFinder(out.lines)
    for key, tag in (("nvidia_driver_version", "driver_version"),
                     ("cuda_driver_version", "cuda_version")):
        value = smi.clean(root.findtext(tag))
        if value:
            out.fact(key, value, finder.find(f"<{tag}>", 0, len(out.lines)))
    gpu_lines = [i for i, line in enumerate(out.lines)
                 if "<gpu id=" in line or line.strip() == "<gpu>"]
    gpus = root.findall("gpu")
    for order, gpu in enumerate(gpus):
        if out.full():
            break
        begin = gpu_lines[order] if order < len(gpu_lines) else line_offset
        stop = gpu_lines[order + 1] if order + 1 < len(gpu_lines) else len(out.lines)
        out.sightings.append(_xml_sighting(out, gpu, order, finder, begin, stop))
    attached = smi.first_number(root.findtext("attached_gpus"))
    if attached is not None and int(attached) > len(gpus) and not out.has_signal(
            "nvidia.mig_enabled"):
        out.problems.append(f"attached_gpus says {int(attached)} but {len(gpus)} <gpu> "
                            "elements are present (output cut?)")


def _try_xml(xml_text: str) -> ET.Element | None:
    try:
        # as bytes: a lone surrogate (text that was never UTF-8) becomes "?", not an exception
        return ET.fromstring(xml_text.encode("utf-8", errors="replace"))
    except ET.ParseError:
        return None


_XML_VERSION_TAGS = (
    ("nvidia_driver_version", re.compile(r"<driver_version>([^<]+)</driver_version>")),
    ("cuda_driver_version", re.compile(r"<cuda_version>([^<]+)</cuda_version>")))


def _xml_versions_by_regex(out: smi.Output) -> None:
    for index in lines_holding(out.lines, ("_version>",)):
        line = out.lines[index]
        for key, pattern in _XML_VERSION_TAGS:
            match = pattern.search(line)
            if match:
                out.fact(key, smi.clean(match.group(1)), index)


class _LineFinder:
    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def find(self, needle: str, begin: int, end: int) -> int:
        for index in range(max(begin, 0), min(end, len(self.lines))):
            if needle in self.lines[index]:
                return index
        return begin


def _xml_sighting(out: smi.Output, gpu: ET.Element, order: int, finder: _LineFinder,
                  begin: int, stop: int) -> GpuSighting:
    facts = smi.Facts(out)

    def text_at(path: str) -> tuple[str | None, int]:
        value = smi.clean(gpu.findtext(path))
        tag = path.rsplit("/", 1)[-1]
        return value, finder.find(f"<{tag}>", begin, stop)

    bus_text, line = text_at("pci/pci_bus_id")
    bus = smi.normalise_bus(bus_text) or smi.normalise_bus(gpu.get("id"))
    facts.set("pci_bus", bus, line if bus_text else begin)
    facts.set("smi_index", order, begin)
    for name in ("vendor", "kind"):
        facts.sources[name] = out.where(begin + 1)
    smi.common_gpu_facts(facts)
    for field_name, path in (("name", "product_name"), ("architecture", "product_architecture"),
                             ("uuid", "uuid"), ("serial_number", "serial"),
                             ("vbios_version", "vbios_version")):
        value, line = text_at(path)
        facts.set(field_name, value, line)
    ids, line = text_at("pci/pci_device_id")
    pair = smi.pci_id_pair(ids)
    if pair:
        facts.set("pci_device_id", pair[0], line)
        facts.set("pci_vendor_id", pair[1], line)
    else:
        facts.miss("pci_device_id", message("no <pci_device_id> in this capture"))
    sub, line = text_at("pci/pci_sub_system_id")
    sub_pair = smi.pci_id_pair(sub)
    if sub_pair:
        facts.set("pci_subsystem_device_id", sub_pair[0], line)
        facts.set("pci_subsystem_vendor_id", sub_pair[1], line)
    total, line = text_at("fb_memory_usage/total")
    facts.set("vram_total_bytes", smi.size_bytes(total), line)
    for field_name, path in (("max_graphics_clock_mhz", "max_clocks/graphics_clock"),
                             ("max_memory_clock_mhz", "max_clocks/mem_clock")):
        value, line = text_at(path)
        number = smi.first_number(value)
        facts.set(field_name, int(number) if number is not None else None, line)
    for field_name, path in (("power_cap_w", "gpu_power_readings/current_power_limit"),
                             ("power_cap_w", "power_readings/power_limit"),
                             ("power_cap_max_w", "gpu_power_readings/max_power_limit"),
                             ("power_cap_max_w", "power_readings/max_power_limit")):
        value, line = text_at(path)
        facts.set(field_name, smi.first_number(value), line)
    link_base = "pci/pci_gpu_link_info/"
    max_gen, line = text_at(link_base + "pcie_gen/max_link_gen")
    link = smi.pcie_link(max_gen, text_at(link_base + "pcie_gen/current_link_gen")[0],
                     text_at(link_base + "link_widths/max_link_width")[0],
                     text_at(link_base + "link_widths/current_link_width")[0])
    facts.set("pcie_link", link, line)
    driver_model, line = text_at("driver_model/current_dm")
    if driver_model in ("WDDM", "TCC", "MCDM"):
        out.host_fact("os", "windows", out.where(line + 1))
    mig, line = text_at("mig_mode/current_mig")
    if mig == "Enabled":
        out.signal_at("nvidia.mig_enabled", bus, line + 1)
    mode, line = text_at("gpu_virtualization_mode/virtualization_mode")
    smi.virtualization(out, facts, mode, line if mode else None, bus)
    return facts.sighting()

