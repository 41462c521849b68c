"""Joining what each layer saw into one GPU per PCI bus address: which layer's word counts for
each field, and where a sighting without a bus address belongs."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from gpuscope.i18n import join, message
from gpuscope.inventory.identify import identify_gpu
from gpuscope.model import Gpu, GpuFacts, GpuKind, GpuSighting, Layer

# Which layer's word counts first for a field; the default suits most fields: the vendor
# libraries know names and totals best, then KFD, then the kernel's sysfs.
# On Windows the HIP runtime (hipInfo) and then the display driver's own listing.
_DEFAULT_PRIORITY = (Layer.NVML, Layer.AMDSMI, Layer.KFD, Layer.SYSFS, Layer.ROCM, Layer.WINDOWS)
# Fields the kernel (or Windows' listing) reads off the board itself.
_BOARD_FIRST = (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD, Layer.WINDOWS, Layer.ROCM)
_FIELD_PRIORITY: dict[str, tuple[Layer, ...]] = {
    # gpuscope decodes KFD's gfx_target_version itself; amdsmi's string has been wrong.
    "gfx_target": (Layer.KFD, Layer.AMDSMI, Layer.SYSFS, Layer.NVML, Layer.ROCM, Layer.WINDOWS),
    # sysfs knows the slot behind Radeon's on-board PCIe switch; bytes exactly.
    "pcie_link": (Layer.SYSFS, Layer.NVML, Layer.AMDSMI, Layer.KFD),
    "vram_total_bytes": _BOARD_FIRST,
    "pci_device_id": _BOARD_FIRST,
    "pci_vendor_id": _BOARD_FIRST,
    "pci_revision": (Layer.SYSFS, Layer.AMDSMI, Layer.NVML, Layer.KFD, Layer.WINDOWS),
    # Windows' driver version ("32.0.12033.1030") is the display driver's, not the runtime's.
    "driver_version": (Layer.NVML, Layer.AMDSMI, Layer.SYSFS, Layer.WINDOWS, Layer.ROCM),
    "kernel_driver": _BOARD_FIRST,
}
# In the order GpuFacts declares them, so that field_sources reads the same on every run.
_JOIN_FIELDS = tuple(f.name for f in dataclasses.fields(GpuFacts))


def _normalise_bus(bus: str | None) -> str | None:
    if not bus:
        return None
    bus = bus.strip().lower()
    parts = bus.split(":")
    if len(parts) == 2:  # "03:00.0" without the domain
        return f"0000:{bus}"
    if len(parts) == 3 and len(parts[0]) > 4:  # NVML's 8-digit domain "00000000:01:00.0"
        return f"{parts[0][-4:]}:{parts[1]}:{parts[2]}"
    return bus


def _layer_rank(layer: Layer, field_name: str) -> int:
    order = _FIELD_PRIORITY.get(field_name, _DEFAULT_PRIORITY)
    return order.index(layer) if layer in order else len(order)


def _merge(sightings: Sequence[GpuSighting], index: int) -> Gpu:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}
    for name in _JOIN_FIELDS:
        candidates = sorted(sightings, key=lambda s, n=name: _layer_rank(s.layer, n))  # type: ignore[misc]
        for sighting in candidates:
            value = getattr(sighting.facts, name)
            if value is None or value == ():
                continue
            values[name] = value
            source = sighting.field_sources.get(name)
            sources[name] = f"{sighting.layer.value}: {source}" if source else sighting.layer.value
            break
        else:
            reasons = [message("{source}: {reason}", source=s.layer.value,
                               reason=s.missing_reasons[name])
                       for s in candidates if name in s.missing_reasons]
            if reasons:
                missing[name] = join("; ", reasons)
    if "pci_bus" in values:
        values["pci_bus"] = _normalise_bus(str(values["pci_bus"]))
    seen_by = tuple(dict.fromkeys(s.layer for s in sorted(sightings, key=_layer_order)))
    gpu = Gpu(index=index, seen_by=seen_by, field_sources=sources, missing_reasons=missing,
              **values)  # type: ignore[arg-type]
    return identify_gpu(gpu)


def _layer_order(sighting: GpuSighting) -> int:
    return list(Layer).index(sighting.layer)


def join_gpus(sightings: Iterable[GpuSighting]) -> tuple[Gpu, ...]:
    """One GPU per PCI bus address. A sighting without an address (a pasted collect_env,
    rocm-smi's partitions) joins the one GPU of the same KFD node or KFD gpu id (rocm-smi's
    Node and GUID columns, amd-smi's NODE_ID and KFD_ID, rocminfo's Node), else the GPU that
    the same tool numbered alike in another file, else the one GPU whose gfx target or name it
    matches; never one that already holds a sighting of the same layer from the same file (two
    identical cards stay two). Sightings that name nothing but their number (amd-smi monitor,
    rocm-smi's readings) come last, so that they cannot take a place before the sightings that
    say which GPU they are; one that still cannot be placed among GPUs of its vendor that other
    outputs describe is no GPU of its own (it would count a card twice)."""
    groups: dict[str, list[GpuSighting]] = {}
    loose: list[GpuSighting] = []
    for sighting in sightings:
        bus = _normalise_bus(sighting.facts.pci_bus)
        if bus is None:
            loose.append(sighting)
        else:
            groups.setdefault(bus, []).append(sighting)
    ordered = [groups[bus] for bus in sorted(groups)]
    numbered_only: list[GpuSighting] = []
    for sighting in loose:
        if _numbered_only(sighting):
            numbered_only.append(sighting)
            continue
        target = _kfd_target(sighting, ordered) or _loose_target(sighting, ordered)
        if target is None:
            ordered.append([sighting])
        else:
            target.append(sighting)
    unplaced: list[GpuSighting] = []
    for sighting in numbered_only:
        target = _loose_target(sighting, ordered)
        if target is None:
            unplaced.append(sighting)
        else:
            target.append(sighting)
    placed = _by_bus_order(unplaced, ordered)
    for sighting in unplaced:
        target = placed.get(id(sighting)) or _loose_target(sighting, ordered)
        if target is not None:
            target.append(sighting)
        elif not _others_of_vendor(sighting, ordered):
            ordered.append([sighting])
        # else: a number that cannot be told apart among this vendor's GPUs adds no GPU
    return tuple(_merge(group, index) for index, group in enumerate(ordered))


def _others_of_vendor(sighting: GpuSighting, groups: Sequence[list[GpuSighting]]) -> bool:
    """Some GPU of the sighting's vendor that another file (or layer) described."""
    source = _source_file(sighting)
    return any(any(s.facts.vendor is sighting.facts.vendor for s in group)
               and not any(s.layer is sighting.layer and _source_file(s) == source
                           for s in group)
               for group in groups)


def _numbered_only(sighting: GpuSighting) -> bool:
    """A sighting that says only which number a tool gave the GPU (and its readings)."""
    facts = sighting.facts
    return facts.smi_index is not None and not _identifies(sighting) and \
        facts.kfd_node is None and facts.kfd_gpu_id is None


def _kfd_target(
    sighting: GpuSighting, groups: Sequence[list[GpuSighting]],
) -> list[GpuSighting] | None:
    """The one GPU with this sighting's KFD gpu id or KFD node and no other, and nothing that
    contradicts it (another id, node, device id or target); None when none or several."""
    facts = sighting.facts
    if facts.kfd_gpu_id is None and facts.kfd_node is None:
        return None
    source = _source_file(sighting)
    found = [group for group in groups
             if not any(s.layer is sighting.layer and _source_file(s) == source for s in group)
             and not _contradicts(facts, group)
             and any(s.facts.kfd_gpu_id == facts.kfd_gpu_id is not None
                     or s.facts.kfd_node == facts.kfd_node is not None for s in group)]
    return found[0] if len(found) == 1 else None


_IDENTITY_FIELDS = ("kfd_gpu_id", "kfd_node", "pci_device_id", "gfx_target", "vendor")


def _contradicts(facts: GpuFacts, group: Sequence[GpuSighting]) -> bool:
    """The group already has another KFD gpu id, KFD node, device id, target or vendor."""
    for name in _IDENTITY_FIELDS:
        own = getattr(facts, name)
        theirs = {getattr(s.facts, name) for s in group} - {None}
        if own is not None and theirs and own not in theirs:
            return True
    return False


def _by_bus_order(
    sightings: Sequence[GpuSighting], groups: Sequence[list[GpuSighting]],
) -> dict[int, list[GpuSighting]]:
    """Numbered-only sightings of one amd-smi file, placed by their numbers: amd-smi numbers
    the GPUs in PCI bus order (its library sorts the devices by BDF, in every release since
    amd-smi came with ROCm 6.0), so GPU n is the n-th GPU by bus address. Only when the file
    numbers exactly the GPUs of that vendor it has not described yet, 0 to N-1, and every one
    of them has a bus address; otherwise nothing is placed (id of the sighting -> its GPU).
    rocm-smi's numbers are not placed so: older releases numbered the DRM cards instead."""
    batches: dict[tuple[Layer, str], list[GpuSighting]] = {}
    for sighting in sightings:
        if sighting.layer is Layer.AMDSMI:
            batches.setdefault((sighting.layer, _source_file(sighting)), []).append(sighting)
    placed: dict[int, list[GpuSighting]] = {}
    for (layer, source), batch in batches.items():
        vendor = batch[0].facts.vendor
        if any(s.facts.vendor is not vendor for s in batch):
            continue
        candidates = [g for g in groups
                      if any(s.facts.vendor is vendor for s in g)
                      and not any(s.layer is layer and _source_file(s) == source for s in g)]
        buses = [_group_bus(g) for g in candidates]
        numbers = sorted(s.facts.smi_index or 0 for s in batch)
        if not candidates or None in buses or numbers != list(range(len(candidates))):
            continue
        by_bus = [g for _, g in sorted(zip(buses, candidates, strict=True),
                                       key=lambda pair: str(pair[0]))]
        for sighting in batch:
            placed[id(sighting)] = by_bus[sighting.facts.smi_index or 0]
    return placed


def _group_bus(group: Sequence[GpuSighting]) -> str | None:
    return next((bus for s in group if (bus := _normalise_bus(s.facts.pci_bus))), None)


def _source_file(sighting: GpuSighting) -> str:
    """The file (or path) a sighting was read from: field sources are 'file:line' or paths."""
    for source in sighting.field_sources.values():
        head, _, tail = source.rpartition(":")
        return head if head and tail.isdigit() else source
    return ""


def _comparable_name(name: str | None) -> str:
    if not name:
        return ""
    lowered = name.lower()
    for word in ("amd ", "nvidia ", "geforce ", "radeon ", "(tm)", "(r)"):
        lowered = lowered.replace(word, " ")
    return " ".join(lowered.split())


def _matches(sighting: GpuSighting, group: Sequence[GpuSighting]) -> bool:
    facts = sighting.facts
    vendors = {s.facts.vendor for s in group if s.facts.vendor is not None}
    if facts.vendor is not None and vendors and facts.vendor not in vendors:
        return False
    targets = {s.facts.gfx_target for s in group if s.facts.gfx_target}
    if facts.gfx_target and targets:
        return facts.gfx_target in targets
    devices = {s.facts.pci_device_id for s in group if s.facts.pci_device_id}
    if facts.pci_device_id and devices:  # a kernel log names a GPU by its ids only
        return facts.pci_device_id in devices
    name = _comparable_name(facts.name)
    if not name:
        return False
    return any((other := _comparable_name(s.facts.name)) and (name in other or other in name)
               for s in group)


def _loose_target(
    sighting: GpuSighting, groups: Sequence[list[GpuSighting]],
) -> list[GpuSighting] | None:
    source = _source_file(sighting)
    index = sighting.facts.smi_index
    if index is not None:
        for group in groups:
            if any(s.layer is sighting.layer and s.facts.smi_index == index
                   and _source_file(s) != source for s in group):
                return group
    candidates = [
        group for group in groups
        if _matches(sighting, group)
        and not any(s.layer is sighting.layer and _source_file(s) == source for s in group)
    ]
    # Prefer a GPU this layer has not described yet: with two identical cards, the second
    # device of a listing belongs to the second card.
    fresh = [g for g in candidates if not any(s.layer is sighting.layer for s in g)]
    chosen = fresh or candidates
    if chosen:
        return chosen[0]
    ids_only = bool(sighting.facts.pci_device_id) and not any((
        sighting.facts.gfx_target, sighting.facts.name, sighting.facts.uuid,
        sighting.facts.compute_capability))
    if not _identifies(sighting) or ids_only:
        # A row that names nothing (rocm-smi's concise table: temperatures and clocks only),
        # or only its PCI ids (a kernel log), can only be the machine's one GPU of that
        # vendor (whose ids are not known to differ).
        same_vendor = [g for g in groups if any(
            s.facts.vendor is sighting.facts.vendor for s in g) and not any(
            s.layer is sighting.layer and _source_file(s) == source for s in g) and not (
            ids_only and any(s.facts.pci_device_id not in (None, sighting.facts.pci_device_id)
                             for s in g)) and not _contradicts(sighting.facts, g)]
        if ids_only and len(same_vendor) > 1 and sighting.facts.kind in (
                GpuKind.INTEGRATED, GpuKind.DISCRETE, None):
            # An iGPU beside a card: the ids' kind (an APU's device id, which the parsers
            # know) tells them apart.
            integrated = sighting.facts.kind is GpuKind.INTEGRATED
            same_vendor = [g for g in same_vendor if any(
                s.facts.kind is GpuKind.INTEGRATED for s in g) is integrated]
        if len(same_vendor) == 1:
            return same_vendor[0]
    return None


def _identifies(sighting: GpuSighting) -> bool:
    facts = sighting.facts
    return any((facts.gfx_target, facts.name, facts.pci_device_id, facts.uuid,
                facts.compute_capability))
