"""Naming a joined GPU from gpuscope's device table: name, family, kind and targets where the
layers left them open, and the chip's own gfx target where the runtime runs under
HSA_OVERRIDE_GFX_VERSION."""

from __future__ import annotations

import dataclasses
import re

from gpuscope.knowledge.devices import identify_device
from gpuscope.model import DEVICE_TABLE_SOURCE, Gpu, GpuKind, Layer, Vendor

_GENERIC_NAME_WORDS = ("navi", "vega", "device 0x", "amd radeon graphics", "0x")


def _name_is_generic(name: str | None) -> bool:
    if not name:
        return True
    lowered = name.strip().lower()
    return lowered.startswith(_GENERIC_NAME_WORDS) or lowered.startswith("gfx")


def identify_gpu(gpu: Gpu) -> Gpu:
    """Fill name, family, kind and targets from gpuscope's device table where the layers left
    them open; a vendor library's marketing name wins over the table, a codename does not."""
    vendor = gpu.vendor or Vendor.from_pci_vendor_id(gpu.pci_vendor_id)
    changes: dict[str, object] = {}
    sources = dict(gpu.field_sources)
    if vendor is not None and gpu.vendor is None:
        changes["vendor"] = vendor
        sources["vendor"] = "PCI vendor id " + str(gpu.pci_vendor_id)
    identity = None
    # Pasted outputs name the vendor but rarely its PCI id.
    vendor_id = gpu.pci_vendor_id or _PCI_VENDOR_IDS.get(vendor) if vendor else gpu.pci_vendor_id
    if vendor_id and gpu.pci_device_id:
        identity = identify_device(
            vendor_id, gpu.pci_device_id, vram_total_bytes=gpu.vram_total_bytes,
            compute_units=gpu.compute_units, subsystem_device_id=gpu.pci_subsystem_device_id,
            revision=gpu.pci_revision,
        )
    if identity is not None:
        source = f"{DEVICE_TABLE_SOURCE} ({identity.source})"
        name_from_table = identity.name
        if _name_is_generic(gpu.name) or (
            len(identity.candidates) <= 1 and _is_pci_ids_name(gpu)
        ):
            changes["name"] = name_from_table
            sources["name"] = f"{source}; {identity.how}" if identity.how else source
        if not gpu.name_candidates and len(identity.candidates) > 1:
            changes["name_candidates"] = tuple(identity.candidates)
        for field_name in ("family", "architecture", "gfx_target", "compute_capability"):
            table_value = getattr(identity, field_name, None)
            if table_value and getattr(gpu, field_name) is None:
                changes[field_name] = table_value
                sources[field_name] = source
        overridden = _overridden_target(gpu, identity.gfx_target)
        if overridden is not None:
            changes["gfx_target"] = identity.gfx_target
            sources["gfx_target"] = f"{source}; {overridden}"
        if identity.kind and gpu.kind is None:
            changes["kind"] = GpuKind(identity.kind)
            sources["kind"] = source
    if gpu.name is None and "name" not in changes:
        device = gpu.pci_device_id or "unknown device"
        changes["name"] = f"{(vendor or Vendor.OTHER).value.upper()} GPU {device}"
        sources["name"] = "PCI ids (no name in pci.ids or gpuscope's device table)"
    if gpu.kind is None and "kind" not in changes:
        changes["kind"] = GpuKind.UNKNOWN
    if not changes:
        return gpu
    missing = {k: v for k, v in gpu.missing_reasons.items() if k not in changes}
    return dataclasses.replace(gpu, field_sources=sources, missing_reasons=missing,
                               **changes)  # type: ignore[arg-type]


_PCI_VENDOR_IDS = {Vendor.AMD: "0x1002", Vendor.NVIDIA: "0x10de", Vendor.INTEL: "0x8086"}
# Layers that show the target ROCm's runtime reports, which HSA_OVERRIDE_GFX_VERSION changes
# (KFD's topology, sysfs and amd-smi show the chip's own).
_RUNTIME_TARGET_LAYERS = frozenset({Layer.ROCM.value, Layer.OPENCL.value, Layer.TORCH.value})
_GFX_GENERATION = re.compile(r"gfx(\d{1,2})[0-9a-f]{2}")


def _overridden_target(gpu: Gpu, chip_target: str | None) -> str | None:
    """Why the runtime's target is not this chip's, or None. A runtime reporting another
    generation than the chip's device id (gfx1201 on a 0x1586 Strix Halo, gfx1151) runs under
    HSA_OVERRIDE_GFX_VERSION: the chip's target is the real one. Within one generation (an
    RX 6700 XT's gfx1031 run as gfx1030) the id alone does not say which is meant."""
    reported = gpu.gfx_target
    if not chip_target or not reported or reported == chip_target:
        return None
    layer = gpu.field_sources.get("gfx_target", "").partition(":")[0]
    ours, theirs = _GFX_GENERATION.fullmatch(chip_target), _GFX_GENERATION.fullmatch(reported)
    if layer not in _RUNTIME_TARGET_LAYERS or ours is None or theirs is None \
            or ours.group(1) == theirs.group(1):
        return None
    return (f"{layer} reported {reported}, another generation than this chip's "
            f"{chip_target}: HSA_OVERRIDE_GFX_VERSION is set for it")


def _is_pci_ids_name(gpu: Gpu) -> bool:
    return "pci.ids" in gpu.field_sources.get("name", "")
