"""The inventory as JSON (`gpuscope info --json`) and as a readable summary (`gpuscope info`)."""

from __future__ import annotations

from typing import Any

from gpuscope.model import Gpu, Inventory, Layer, OriginKind, Vendor, format_bytes, to_jsonable

INVENTORY_SCHEMA = "gpuscope.inventory/1"

_LAYERS_BY_VENDOR: dict[Vendor, tuple[Layer, ...]] = {
    Vendor.AMD: (Layer.SYSFS, Layer.KFD, Layer.AMDSMI),
    Vendor.NVIDIA: (Layer.SYSFS, Layer.NVML),
}


def inventory_to_json(inventory: Inventory) -> dict[str, Any]:
    doc = to_jsonable(inventory)
    assert isinstance(doc, dict)
    return {"schema": INVENTORY_SCHEMA, **doc}


def _layer_marks(gpu: Gpu) -> str:
    layers = _LAYERS_BY_VENDOR.get(gpu.vendor or Vendor.OTHER, (Layer.SYSFS,))
    return "  ".join(f"{layer.value} {'yes' if layer in gpu.seen_by else 'no'}" for layer in layers)


def _gpu_lines(gpu: Gpu) -> list[str]:
    target = gpu.gfx_target or (f"compute capability {gpu.compute_capability}"
                                if gpu.compute_capability else None)
    head = f"GPU {gpu.index}: {gpu.name}"
    lines = [head]
    if gpu.name_candidates:
        lines.append(f"    could be: {' / '.join(gpu.name_candidates)}")
    details = [
        ("vendor", gpu.vendor.value if gpu.vendor else None),
        ("kind", gpu.kind.value if gpu.kind else None),
        ("board", gpu.board_name),
        ("target", target),
        ("VRAM", format_bytes(gpu.vram_total_bytes) if gpu.vram_total_bytes else None),
        ("compute units", str(gpu.compute_units) if gpu.compute_units else None),
        ("PCI", " ".join(p for p in (gpu.pci_bus, _pci_ids(gpu)) if p) or None),
        ("driver", " ".join(p for p in (gpu.kernel_driver, gpu.driver_version) if p) or None),
        ("PCIe", _link_text(gpu)),
    ]
    lines.extend(f"    {label:<14}{value}" for label, value in details if value)
    lines.append(f"    {'seen by':<14}{_layer_marks(gpu)}")
    return lines


def _pci_ids(gpu: Gpu) -> str | None:
    if not (gpu.pci_vendor_id and gpu.pci_device_id):
        return None
    return f"[{gpu.pci_vendor_id[2:]}:{gpu.pci_device_id[2:]}]"


def _link_text(gpu: Gpu) -> str | None:
    link = gpu.pcie_link
    if link is None or (link.max_speed_gt_s is None and link.current_speed_gt_s is None):
        return None

    def one(speed: float | None, width: int | None, generation: int | None) -> str:
        gen = f"Gen{generation} " if generation else ""
        return f"{gen}x{width if width is not None else '?'} ({speed:g} GT/s)" if speed else "?"

    text = (f"{one(link.current_speed_gt_s, link.current_width, link.current_generation)} "
            f"of max {one(link.max_speed_gt_s, link.max_width, link.max_generation)}")
    return f"{text}, {link.measured_at}" if link.measured_at else text


def format_inventory_text(inventory: Inventory) -> str:
    lines: list[str] = []
    origin = inventory.origin
    if origin.kind is not OriginKind.LIVE:
        captured = f", captured {origin.captured_utc}" if origin.captured_utc else ""
        lines += [f"*** {origin.label}{captured}: not this machine's live state ***", ""]
    host = inventory.host
    lines.append("Host")
    cpu = host.cpu_model or "unknown CPU"
    cores = (f" ({host.cpu_physical_cores} cores, {host.cpu_logical_cores} threads)"
             if host.cpu_logical_cores else "")
    flags = [name for name, on in (("WSL", host.wsl), ("container", host.container),
                                   ("virtual machine", host.virtual_machine)) if on]
    lines += [
        f"    {'OS':<14}{host.distro or host.os}" + (f" ({', '.join(flags)})" if flags else ""),
        f"    {'kernel':<14}{host.kernel or 'unknown'}",
        f"    {'CPU':<14}{cpu}{cores}",
        f"    {'RAM':<14}{format_bytes(host.ram_total_bytes)}",
        "",
    ]
    if inventory.gpus:
        for gpu in inventory.gpus:
            lines += [*_gpu_lines(gpu), ""]
    else:
        reasons = [f"{p.name}: {p.summary()}" for p in inventory.probes if not p.available]
        lines.append("No GPU found.")
        lines += [f"    {reason}" for reason in reasons]
        lines.append("")
    if inventory.device_index:
        lines += [*_device_index_lines(inventory), ""]
    stack = inventory.stack
    lines.append("Stack")
    for label, value in (
        ("ROCm", stack.rocm_version), ("HIP runtime", stack.hip_runtime_version),
        ("amdgpu", _amdgpu_text(inventory)), ("KFD", _yes_no(stack.kfd_loaded)),
        ("NVIDIA driver", stack.nvidia_driver_version),
        ("CUDA (driver)", stack.cuda_driver_version),
    ):
        lines.append(f"    {label:<14}{value if value else 'not found'}")
    set_env = {k: v for k, v in stack.environment.items() if v is not None}
    for name, value in set_env.items():
        lines.append(f"    {name}={value}")
    for node in stack.device_nodes:
        if node.reason:
            lines.append(f"    {node.path}: {node.reason}")
    lines += ["", "Probes"]
    for probe in inventory.probes:
        lines.append(f"    {probe.name:<14}{probe.summary()}")
        if probe.hint and not probe.available:
            lines.append(f"    {'':<14}hint: {probe.hint}")
    return "\n".join(lines) + "\n"


def _device_index_lines(inventory: Inventory) -> list[str]:
    """How each layer numbers each GPU; HIP and CUDA after the *_VISIBLE_DEVICES variables."""

    def cell(value: object) -> str:
        return "-" if value is None else str(value)

    header = ("GPU", "PCI bus", "kind", "DRM", "KFD node", "SMI", "HIP", "CUDA")
    rows = [header]
    gpus_by_note: dict[str, list[str]] = {}
    for entry in inventory.device_index:
        rows.append((cell(entry.gpu_index), cell(entry.pci_bus), entry.kind.value,
                     cell(entry.drm_card), cell(entry.kfd_node), cell(entry.smi_index),
                     cell(entry.hip_index), cell(entry.cuda_index)))
        for text in (entry.hidden_by and f"hidden by {entry.hidden_by}", entry.note):
            if text:
                gpus_by_note.setdefault(text, []).append(cell(entry.gpu_index))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    table = ["    " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    notes = [f"    GPU{'s' if len(gpus) > 1 else ''} {', '.join(gpus)}: {text}"
             for text, gpus in gpus_by_note.items()]
    return ["Device index", *table, *notes]


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else ("loaded" if value else "not loaded")


def _amdgpu_text(inventory: Inventory) -> str | None:
    stack = inventory.stack
    if stack.amdgpu_driver_version:
        return f"amdgpu-dkms {stack.amdgpu_driver_version}"
    if stack.amdgpu_loaded:
        return "in-tree driver loaded"
    return None if stack.amdgpu_loaded is None else "not loaded"
