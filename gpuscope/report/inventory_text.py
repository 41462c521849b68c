"""The inventory as JSON (`gpuscope info --json`, English) and as a readable summary
(`gpuscope info`, in the language chosen: `gpuscope.i18n`)."""

from __future__ import annotations

import unicodedata
from typing import Any

from gpuscope.i18n import gettext, localise
from gpuscope.model import (
    Gpu,
    Inventory,
    Layer,
    OriginKind,
    ProbeStatus,
    Vendor,
    format_bytes,
    to_jsonable,
)
from gpuscope.report.device_index import remark_lines, rows_of

INVENTORY_SCHEMA = "gpuscope.inventory/1"

_LAYERS_BY_VENDOR: dict[Vendor, tuple[Layer, ...]] = {
    Vendor.AMD: (Layer.SYSFS, Layer.KFD, Layer.AMDSMI),
    Vendor.NVIDIA: (Layer.SYSFS, Layer.NVML),
}
_WINDOWS_LAYERS_BY_VENDOR: dict[Vendor, tuple[Layer, ...]] = {
    Vendor.AMD: (Layer.WINDOWS, Layer.ROCM),
    Vendor.NVIDIA: (Layer.WINDOWS, Layer.NVML),
}


def inventory_to_json(inventory: Inventory) -> dict[str, Any]:
    doc = to_jsonable(inventory)
    assert isinstance(doc, dict)
    return {"schema": INVENTORY_SCHEMA, **doc}


LABEL_COLUMNS = 14


def _label(text: str) -> str:
    """`text` padded to the column of values; a Chinese character takes two columns."""
    return text + " " * max(1, LABEL_COLUMNS - _width(text))


def _layer_marks(gpu: Gpu) -> str:
    if Layer.WINDOWS in gpu.seen_by:
        layers = _WINDOWS_LAYERS_BY_VENDOR.get(gpu.vendor or Vendor.OTHER, (Layer.WINDOWS,))
    else:
        layers = _LAYERS_BY_VENDOR.get(gpu.vendor or Vendor.OTHER, (Layer.SYSFS,))
    return "  ".join(f"{layer.value} {gettext('yes') if layer in gpu.seen_by else gettext('no')}"
                     for layer in layers)


def _gpu_lines(gpu: Gpu) -> list[str]:
    target = gpu.gfx_target or (gettext("compute capability {version}").format(
        version=gpu.compute_capability) if gpu.compute_capability else None)
    head = f"GPU {gpu.index}: {gpu.name}"
    lines = [head]
    if gpu.name_candidates:
        lines.append("    " + gettext("could be: {names}").format(
            names=" / ".join(gpu.name_candidates)))
    details = [
        (gettext("vendor"), gpu.vendor.value if gpu.vendor else None),
        (gettext("kind"), gpu.kind.value if gpu.kind else None),
        (gettext("board"), gpu.board_name),
        (gettext("target"), target),
        ("VRAM", format_bytes(gpu.vram_total_bytes) if gpu.vram_total_bytes else None),
        (gettext("compute units"), str(gpu.compute_units) if gpu.compute_units else None),
        ("PCI", " ".join(p for p in (gpu.pci_bus, _pci_ids(gpu)) if p) or None),
        (gettext("driver"), " ".join(p for p in (gpu.kernel_driver, gpu.driver_version)
                                      if p) or None),
        ("PCIe", _link_text(gpu)),
    ]
    lines.extend(f"    {_label(label)}{value}" for label, value in details if value)
    lines.append(f"    {_label(gettext('seen by'))}{_layer_marks(gpu)}")
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

    text = gettext("{current} of max {most}").format(
        current=one(link.current_speed_gt_s, link.current_width, link.current_generation),
        most=one(link.max_speed_gt_s, link.max_width, link.max_generation))
    return f"{text}, {link.measured_at}" if link.measured_at else text


def _probe_summary(probe: ProbeStatus) -> str:
    reason = localise(probe.reason) if probe.reason else None
    if probe.available:
        return (gettext("available: {reason}").format(reason=reason) if reason
                else gettext("available"))
    return gettext("unavailable: {reason}").format(reason=reason or probe.state.value)


def format_inventory_text(inventory: Inventory) -> str:
    """`gpuscope info`: the inventory in the language chosen (`gpuscope.i18n`)."""
    lines: list[str] = []
    origin = inventory.origin
    if origin.kind is not OriginKind.LIVE:
        label = localise(origin.label)
        banner = (gettext("{origin}, captured {when}: not this machine's live state").format(
            origin=label, when=origin.captured_utc) if origin.captured_utc
            else gettext("{origin}: not this machine's live state").format(origin=label))
        lines += [f"*** {banner} ***", ""]
    host = inventory.host
    lines.append(gettext("Host"))
    cpu = host.cpu_model or gettext("unknown CPU")
    if host.cpu_logical_cores:
        cpu = gettext("{cpu} ({cores} cores, {threads} threads)").format(
            cpu=cpu, cores=host.cpu_physical_cores, threads=host.cpu_logical_cores)
    flags = [name for name, on in (("WSL", host.wsl), (gettext("container"), host.container),
                                   (gettext("virtual machine"), host.virtual_machine)) if on]
    lines += [
        f"    {_label(gettext('OS'))}{host.distro or host.os}"
        + (f" ({', '.join(flags)})" if flags else ""),
        f"    {_label(gettext('kernel'))}{host.kernel or gettext('unknown')}",
        f"    {_label('CPU')}{cpu}",
        f"    {_label('RAM')}{format_bytes(host.ram_total_bytes)}",
        "",
    ]
    if inventory.gpus:
        for gpu in inventory.gpus:
            lines += [*_gpu_lines(gpu), ""]
    else:
        reasons = [f"{localise(p.name)}: {_probe_summary(p)}" for p in inventory.probes
                   if not p.available]
        lines.append(gettext("No GPU found."))
        lines += [f"    {reason}" for reason in reasons]
        lines.append("")
    if inventory.device_index:
        lines += [*_device_index_lines(inventory), ""]
    stack = inventory.stack
    lines.append(gettext("Stack"))
    # Windows has no amdgpu or KFD: the HIP SDK and AMD Software (Adrenalin) stand there.
    amd_rows: tuple[tuple[str, object], ...] = (
        (("HIP SDK", stack.extras.get("hip_sdk_version")),
         ("AMD Software", stack.extras.get("amd_driver_version")))
        if inventory.host.os == "windows" else
        (("amdgpu", _amdgpu_text(inventory)), ("KFD", _yes_no(stack.kfd_loaded))))
    for label, value in (
        ("ROCm", stack.rocm_version), (gettext("HIP runtime"), stack.hip_runtime_version),
        *amd_rows,
        (gettext("NVIDIA driver"), stack.nvidia_driver_version),
        (gettext("CUDA (driver)"), stack.cuda_driver_version),
    ):
        lines.append(f"    {_label(label)}{value if value else gettext('not found')}")
    set_env = {k: v for k, v in stack.environment.items() if v is not None}
    for name, value in set_env.items():
        lines.append(f"    {name}={value}")
    for node in stack.device_nodes:
        if node.reason:
            lines.append(f"    {node.path}: {localise(node.reason)}")
    lines += ["", gettext("Probes")]
    for probe in inventory.probes:
        lines.append(f"    {_label(localise(probe.name))}{_probe_summary(probe)}")
        if probe.hint and not probe.available:
            lines.append(f"    {_label('')}"
                         + gettext("hint: {hint}").format(hint=localise(probe.hint)))
    return "\n".join(lines) + "\n"


def _device_index_lines(inventory: Inventory) -> list[str]:
    """How each layer numbers each GPU; HIP and CUDA after the *_VISIBLE_DEVICES variables."""

    def cell(value: object) -> str:
        return "-" if value is None else str(value)

    header = ("GPU", gettext("PCI bus"), gettext("kind"), "DRM", gettext("KFD node"), "SMI",
              "HIP", "CUDA")
    rows = [header]
    for entry in inventory.device_index:
        rows.append((cell(entry.gpu_index), cell(entry.pci_bus), entry.kind.value,
                     cell(entry.drm_card), cell(entry.kfd_node), cell(entry.smi_index),
                     cell(entry.hip_index), cell(entry.cuda_index)))
    widths = [max(_width(row[i]) for row in rows) for i in range(len(header))]
    table = ["    " + "  ".join(c + " " * (w - _width(c))
                                for c, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    # The remarks as the Overview and the report word them.
    notes = ["    " + localise(line) for line in remark_lines(rows_of(inventory.device_index))]
    return [gettext("Device index"), *table, *notes]


def _width(text: str) -> int:
    """The columns `text` takes in a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else (gettext("loaded") if value else gettext("not loaded"))


def _amdgpu_text(inventory: Inventory) -> str | None:
    stack = inventory.stack
    if stack.amdgpu_driver_version:
        return f"amdgpu-dkms {stack.amdgpu_driver_version}"
    if stack.amdgpu_loaded:
        return gettext("in-tree driver loaded")
    return None if stack.amdgpu_loaded is None else gettext("not loaded")
