"""Which backend each LLM runtime uses or would use, and on which of the inventory's GPUs.

The probe (`gpuscope.probes.llm_runtimes`) and the log importers say what a runtime's build
carries and what it lists or loaded; this module joins that with the GPUs gpuscope found, the
same way live, replayed and pasted.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gpuscope.model import Gpu, LlmDevice, LlmRuntime, Vendor

# The backends a vendor's GPU can run on, best first, as the runtimes pick them.
_VENDOR_BACKENDS: dict[Vendor, tuple[str, ...]] = {
    Vendor.AMD: ("rocm", "vulkan"),
    Vendor.NVIDIA: ("cuda", "vulkan"),
    Vendor.INTEL: ("sycl", "vulkan"),
}
_BACKEND_VENDOR = {"rocm": Vendor.AMD, "cuda": Vendor.NVIDIA, "sycl": Vendor.INTEL}
_NAME_VENDOR = ((re.compile(r"\b(amd|radeon|instinct)\b", re.I), Vendor.AMD),
                (re.compile(r"\b(nvidia|geforce|rtx|quadro|tesla)\b", re.I), Vendor.NVIDIA),
                (re.compile(r"\b(intel|arc)\b", re.I), Vendor.INTEL))
_WORDS = re.compile(r"[a-z0-9]+")
_NOISE = {"amd", "nvidia", "radeon", "geforce", "graphics", "tm", "r", "series", "corporation"}


def _words(name: str | None) -> set[str]:
    return {w for w in _WORDS.findall((name or "").lower()) if w not in _NOISE}


def device_vendor(device: LlmDevice) -> Vendor | None:
    if device.backend in _BACKEND_VENDOR:
        return _BACKEND_VENDOR[device.backend]
    for pattern, vendor in _NAME_VENDOR:
        if device.name and pattern.search(device.name):
            return vendor
    return None


def match_device(device: LlmDevice, gpus: Sequence[Gpu]) -> Gpu | None:
    """The inventory GPU a runtime's device is: by gfx target or name, else the only GPU of
    its vendor."""
    vendor = device_vendor(device)
    candidates = [g for g in gpus if vendor is None or g.vendor is vendor]
    if device.gfx_target:
        by_target = [g for g in candidates if g.gfx_target == device.gfx_target
                     or g.compute_capability == device.gfx_target]
        if len(by_target) == 1:
            return by_target[0]
        candidates = by_target or candidates
    wanted = _words(device.name)
    if wanted:
        scored = sorted(((len(wanted & _words(g.name)), g) for g in candidates),
                        key=lambda pair: -pair[0])
        if scored and scored[0][0] >= max(2, len(wanted) - 1) and (
                len(scored) == 1 or scored[1][0] < scored[0][0]):
            return scored[0][1]
    return candidates[0] if len(candidates) == 1 else None


def _backend_for(gpu: Gpu, runtime: LlmRuntime) -> str | None:
    for backend in _VENDOR_BACKENDS.get(gpu.vendor or Vendor.OTHER, ()):
        if backend not in runtime.backends:
            continue
        if backend == "rocm" and runtime.rocm_targets \
                and gpu.gfx_target not in runtime.rocm_targets:
            continue
        return backend
    return None


def _compute_gpus(gpus: Sequence[Gpu]) -> list[Gpu]:
    return [g for g in gpus if g.vendor in _VENDOR_BACKENDS]


def resolve_runtime(runtime: LlmRuntime, gpus: Sequence[Gpu]) -> LlmRuntime:
    """`runtime` with `backend` and `gpus` filled in where the evidence tells them (what a
    log said stays as it was)."""
    if not runtime.found or (runtime.backend is not None and runtime.gpus):
        return runtime
    candidates = _compute_gpus(gpus)
    listed = [d for d in runtime.devices if d.backend != "cpu" and d.name is not None]
    if listed:
        matched = [g for d in listed if (g := match_device(d, candidates)) is not None]
        backend = runtime.backend or listed[0].backend
        return dataclasses.replace(runtime, backend=backend, gpus=tuple(
            dict.fromkeys(g.index for g in matched)))
    if runtime.backend is not None:
        return dataclasses.replace(runtime, gpus=tuple(
            g.index for g in candidates if runtime.backend in _VENDOR_BACKENDS[g.vendor or
                                                                             Vendor.OTHER]))
    if runtime.models and all(m.size_vram_bytes == 0 for m in runtime.models):
        return dataclasses.replace(runtime, backend="cpu")
    if runtime.torch_build is not None:
        users = [g for g in candidates if runtime.torch_build in _VENDOR_BACKENDS[
            g.vendor or Vendor.OTHER]]
        return dataclasses.replace(runtime, backend=runtime.torch_build if users or
                                   runtime.torch_build == "cpu" else None,
                                   gpus=tuple(g.index for g in users))
    choices = [(g, chosen) for g in candidates if (chosen := _backend_for(g, runtime))]
    if not choices:
        return dataclasses.replace(runtime, backend="cpu" if runtime.backends else None)
    first = choices[0][1]
    return dataclasses.replace(runtime, backend=first,
                               gpus=tuple(g.index for g, b in choices if b == first))


def resolve_runtimes(runtimes: Sequence[LlmRuntime], gpus: Sequence[Gpu]
                     ) -> tuple[LlmRuntime, ...]:
    return tuple(resolve_runtime(r, gpus) for r in runtimes)
