"""What nvidia-smi's outputs share, whichever shows them (the table, `-q` text, `-q -x` XML,
`-L`, `--query-gpu` CSV): the collector of one paste with its sightings, the facts of one GPU
being filled, and the decoders of nvidia-smi's values."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from gpuscope.model import GpuFacts, GpuKind, GpuSighting, Layer, PcieLink, Vendor
from gpuscope.parsers._common import Collector

MAX_GPUS = 256  # more is not one machine's nvidia-smi output
_MAX_LINE_CHARS = 400
BUS_RE = re.compile(r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])")
# vGPU profiles as a guest sees them: GRID boards and "<board>-<framebuffer GB><series>".
VGPU_NAME_RE = re.compile(r"^(?:NVIDIA )?GRID\b|\b[A-Z]{1,3}\d{1,4}[A-Za-z]{0,3}-\d{1,3}[QCABS]$")

_NOT_A_VALUE = {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown error",
                "[unknown error]", "insufficient permissions", "none", "not found"}

# PCIe generation to transfer rate per lane (GT/s), for nvidia-smi's "PCIe Generation".
_GEN_SPEED_GT_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0, 7: 128.0}


class Output(Collector):
    """What one nvidia-smi paste shows. Its readers count lines from 0 (`index`); `where`,
    `ref` and `signal_at` take 1-based line numbers. Evidence is capped at 20 lines a signal."""

    def __init__(self, source: str, lines: list[str], cut: str | None = None) -> None:
        super().__init__(source, lines, max_line_chars=_MAX_LINE_CHARS, max_evidence=20,
                         cut=cut)
        self.sightings: list[GpuSighting] = []

    def full(self) -> bool:
        if len(self.sightings) < MAX_GPUS:
            return False
        if not self.problems or not self.problems[-1].startswith("more than"):
            self.problems.append(f"more than {MAX_GPUS} GPUs: the rest were not read")
        return True

    def fact(self, key: str, value: str | None, index: int) -> None:
        """A stack fact shown by line `index` (0-based), when it has a value."""
        if value:
            self.stack_fact(key, value, self.where(index + 1))


class Facts:
    """GpuFacts being filled, with where each value came from."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}
        self.missing: dict[str, str] = {}

    def set(self, name: str, value: Any, index: int | None, where: str | None = None) -> None:
        if value is None or name in self.values:
            return
        self.values[name] = value
        if where is None:
            where = self.out.where(index + 1) if index is not None else self.out.source
        self.sources[name] = where

    def miss(self, name: str, why: str) -> None:
        if name not in self.values:
            self.missing.setdefault(name, why)

    def sighting(self) -> GpuSighting:
        facts = dataclasses.replace(GpuFacts(), **self.values)
        missing = {k: v for k, v in self.missing.items() if k not in self.values}
        return GpuSighting(layer=Layer.NVML, facts=facts, field_sources=dict(self.sources),
                           missing_reasons=missing)



def clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if value.lower() in _NOT_A_VALUE or value.startswith("Requested functionality"):
        return None
    return value


def normalise_bus(bus: str | None) -> str | None:
    """nvidia-smi's 00000000:01:00.0 -> 0000:01:00.0 (lower-case, 4-digit domain)."""
    if not bus:
        return None
    match = BUS_RE.search(bus)
    if not match:
        return None
    domain, rest = match.group("bus").split(":", 1)
    domain = domain[-4:] if int(domain, 16) <= 0xFFFF else domain.lstrip("0")
    return f"{domain.lower().rjust(4, '0')}:{rest.lower()}"


def size_bytes(value: str | None) -> int | None:
    """nvidia-smi's "81559 MiB" (KiB to TiB, KB to TB, B; all binary) to bytes."""
    value = clean(value)
    if value is None:
        return None
    match = re.match(r"^([\d.]+)\s*(KiB|MiB|GiB|TiB|KB|MB|GB|B)?\b", value)
    if not match:
        return None
    unit = (match.group(2) or "B").upper().replace("I", "")
    scale = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}[unit]
    return int(float(match.group(1)) * scale)


def first_number(value: str | None) -> float | None:
    value = clean(value)
    if value is None:
        return None
    match = re.match(r"^(-?\d+(?:\.\d+)?)", value)
    return float(match.group(1)) if match else None


def pci_id_pair(value: str | None) -> tuple[str, str] | None:
    """0x20B210DE -> ("0x20b2", "0x10de"): NVML packs device id over vendor id."""
    value = clean(value)
    if value is None:
        return None
    hex_digits = value.lower().removeprefix("0x")
    if not re.fullmatch(r"[0-9a-f]{8}", hex_digits):
        return None
    return f"0x{hex_digits[:4]}", f"0x{hex_digits[4:]}"


def pcie_link(max_gen: str | None, cur_gen: str | None, max_width: str | None,
              cur_width: str | None) -> PcieLink | None:
    def speed(gen: str | None) -> float | None:
        number = first_number(gen)
        return _GEN_SPEED_GT_S.get(int(number)) if number is not None else None

    def width(value: str | None) -> int | None:
        number = first_number(value)
        return int(number) if number is not None else None

    link = PcieLink(current_speed_gt_s=speed(cur_gen), current_width=width(cur_width),
                    max_speed_gt_s=speed(max_gen), max_width=width(max_width),
                    measured_at="gpu")
    if all(v is None for v in (link.current_speed_gt_s, link.current_width,
                               link.max_speed_gt_s, link.max_width)):
        return None
    return link


def common_gpu_facts(facts: Facts) -> None:
    facts.values.setdefault("vendor", Vendor.NVIDIA)
    facts.values.setdefault("kind", GpuKind.DISCRETE)

def virtualization(out: Output, facts: Facts, mode: str | None, index: int | None,
                    bus: str | None) -> None:
    """nvidia-smi's "Virtualization Mode": VGPU is a vGPU in a guest (a virtual GPU, and a
    VM), Pass-Through a whole GPU given to a guest (a VM); None and Host VGPU say nothing of
    this machine being a guest."""
    if mode is None or index is None:
        return
    lowered = mode.lower()
    if lowered == "vgpu":
        facts.values["kind"], facts.sources["kind"] = GpuKind.VIRTUAL, out.where(index + 1)
        out.signal_at("gpu.virtual_function", bus, index + 1)
    if lowered in ("vgpu", "pass-through", "passthrough"):
        out.host_fact("virtual_machine", True, out.where(index + 1))
        out.host_fact("virtual_machine_hint", f"the GPU's virtualization mode is {mode}",
                      out.where(index + 1))
