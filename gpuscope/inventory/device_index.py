"""The number each layer and runtime gives each GPU: ROCm/HIP in KFD topology order, CUDA by
bus or speed, both after the *_VISIBLE_DEVICES variables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gpuscope.i18n import message
from gpuscope.model import DeviceIndexEntry, Gpu, GpuKind, Layer, Vendor


def _parse_visible(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def _apply_visible(
    ordered: list[Gpu], variable: str, value: str | None, hidden: dict[int, str],
) -> list[Gpu]:
    """Filter and reorder by a *_VISIBLE_DEVICES value (indices into `ordered`, or UUIDs).
    As the runtimes do, the list stops at the first entry that matches no device."""
    items = _parse_visible(value)
    if items is None:
        return ordered
    chosen: list[Gpu] = []
    for item in items:
        match = None
        if item.isdigit():
            position = int(item)
            match = ordered[position] if position < len(ordered) else None
        else:
            wanted = item.lower().removeprefix("gpu-")
            match = next((g for g in ordered if g.uuid and
                          g.uuid.lower().removeprefix("gpu-").startswith(wanted)), None)
        if match is None or match in chosen:
            break
        chosen.append(match)
    for gpu in ordered:
        if gpu not in chosen:
            hidden.setdefault(gpu.index, f"{variable}={value}")
    return chosen


def build_device_index(
    gpus: Sequence[Gpu], environment: Mapping[str, str | None],
) -> tuple[DeviceIndexEntry, ...]:
    hidden: dict[int, str] = {}
    notes: dict[int, str] = {}

    # ROCm (HIP and so PyTorch's torch.cuda on ROCm) numbers the GPU agents in KFD topology
    # order, after ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (CUDA_VISIBLE_DEVICES is
    # honoured by HIP too).
    amd = sorted((g for g in gpus if g.kfd_node is not None), key=lambda g: g.kfd_node or 0)
    for variable in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        amd = _apply_visible(amd, variable, environment.get(variable), hidden)
    hip_index = {g.index: i for i, g in enumerate(amd)}

    nvidia = [g for g in gpus if g.vendor is Vendor.NVIDIA]
    order = (environment.get("CUDA_DEVICE_ORDER") or "FASTEST_FIRST").upper()
    nvidia.sort(key=lambda g: g.pci_bus or "")
    cuda_known = order == "PCI_BUS_ID" or len(nvidia) <= 1
    if not cuda_known:
        for gpu in nvidia:
            notes[gpu.index] = message("CUDA numbers the fastest GPU first (CUDA_DEVICE_ORDER "
                                       "unset), so its order can differ from nvidia-smi's; set "
                                       "CUDA_DEVICE_ORDER=PCI_BUS_ID")
    nvidia = _apply_visible(nvidia, "CUDA_VISIBLE_DEVICES",
                            environment.get("CUDA_VISIBLE_DEVICES"), hidden)
    cuda_index = {g.index: i for i, g in enumerate(nvidia)} if cuda_known else {}

    entries = []
    for gpu in gpus:
        note = notes.get(gpu.index)
        # Windows has no KFD: HIP there enumerates through the display driver.
        if gpu.vendor is Vendor.AMD and gpu.kfd_node is None and Layer.WINDOWS not in gpu.seen_by:
            note = message("not in the KFD topology: ROCm will not see this GPU")
        entries.append(DeviceIndexEntry(
            pci_bus=gpu.pci_bus, vendor=gpu.vendor, kind=gpu.kind or GpuKind.UNKNOWN,
            name=gpu.name, gpu_index=gpu.index, drm_card=gpu.drm_card,
            drm_render_minor=gpu.drm_render_minor, kfd_node=gpu.kfd_node,
            kfd_gpu_id=gpu.kfd_gpu_id, smi_index=gpu.smi_index,
            hip_index=hip_index.get(gpu.index), cuda_index=cuda_index.get(gpu.index),
            hidden_by=hidden.get(gpu.index), note=note,
        ))
    return tuple(entries)
