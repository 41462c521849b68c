"""What PyTorch in this environment is built for and sees: CUDA and ROCm, XPU, MPS or the CPU,
each device's capabilities, and the smoke tests to run."""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable
from typing import Any

from .children import run_smoke_tests, start_smoke_tests
from .recording import (
    Recorder,
    as_int,
    as_text,
    cudnn_version_string,
    distributions,
    miopen_version_string,
    pci_bus,
)


def inspect_torch(info: dict[str, Any], rec: Recorder, deadline: float, smoke: bool) -> None:
    info["distributions"] = distributions(("torch",))
    torch: Any = importlib.import_module("torch")
    info["version"] = as_text(getattr(torch, "__version__", None))
    info["location"] = os.path.dirname(getattr(torch, "__file__", None) or "") or None
    version = getattr(torch, "version", None)
    hip = as_text(getattr(version, "hip", None))
    cuda = as_text(getattr(version, "cuda", None))
    xpu = as_text(getattr(version, "xpu", None))
    info.update(hip_version=hip, cuda_version=cuda, xpu_version=xpu)
    xpu_module = getattr(torch, "xpu", None)
    xpu_available = (rec.call("torch.xpu.is_available()", lambda: bool(xpu_module.is_available()))
                     if xpu_module is not None and not (hip or cuda) else None)
    mps_available = (rec.call("torch.backends.mps.is_available()",
                              lambda: bool(torch.backends.mps.is_available()))
                     if not (hip or cuda or xpu or xpu_available) else None)
    build_version: str | None
    if hip:
        build, build_version = "rocm", hip
    elif cuda:
        build, build_version = "cuda", cuda
    elif xpu or xpu_available:
        build, build_version = "xpu", xpu
    elif mps_available:
        build, build_version = "mps", None
    else:
        build, build_version = "cpu", None
    info["build"] = build
    info["build_version"] = build_version

    pending: Callable[[], list[dict[str, Any]]] | None = None
    if build in ("rocm", "cuda"):
        pending = _inspect_torch_cuda(torch, info, rec, build, deadline if smoke else None)
    elif build == "xpu":
        _inspect_torch_xpu(torch, info, rec)
    elif build == "mps":
        info.update(gpu_available=True, device_count=1, arch_list=[],
                    devices=[{"index": 0, "name": "Apple MPS", "fp16": True}])
    else:
        info.update(gpu_available=False, device_count=0, arch_list=[], devices=[])

    if pending is not None:
        info["smoke_tests"] = pending()
    elif smoke:
        targets, note = _torch_smoke_targets(info)
        info["smoke_tests"] = run_smoke_tests(targets, deadline, note)


def _inspect_torch_cuda(torch: Any, info: dict[str, Any], rec: Recorder, build: str,
                        smoke_deadline: float | None,
                        ) -> Callable[[], list[dict[str, Any]]] | None:
    """Fill `info` from torch.cuda. With a smoke deadline and GPUs seen, the smoke tests start
    as soon as the devices are counted, beside the rest of the inspection (a first CUDA or HIP
    context takes seconds), and the function that collects them is returned."""
    cuda = torch.cuda
    available = rec.call("torch.cuda.is_available()", lambda: bool(cuda.is_available()))
    info["gpu_available"] = available
    count = rec.call("torch.cuda.device_count()", lambda: int(cuda.device_count()), default=0)
    info["device_count"] = count
    pending = (start_smoke_tests([("cuda", index) for index in range(count)], smoke_deadline)
               if smoke_deadline is not None and available and count else None)
    info["arch_list"] = [str(a) for a in rec.call(
        "torch.cuda.get_arch_list()", lambda: list(cuda.get_arch_list()), default=[])]

    cudnn = getattr(torch.backends, "cudnn", None)
    library = "MIOpen" if build == "rocm" else "cuDNN"
    if cudnn is not None and rec.call("torch.backends.cudnn.is_available()",
                                      lambda: bool(cudnn.is_available()), default=False):
        raw = as_int(rec.call("torch.backends.cudnn.version()", cudnn.version))
        if raw:
            decoded = (miopen_version_string(raw) if build == "rocm"
                       else cudnn_version_string(raw))
            info["math_library"] = {"name": library, "version_int": raw, "version": decoded}

    with warnings.catch_warnings():
        # allow_tf32 is deprecated in favour of fp32_precision in recent releases.
        warnings.simplefilter("ignore")
        info["tf32_settings"] = {
            "matmul_allow_tf32": rec.call("torch.backends.cuda.matmul.allow_tf32",
                                          lambda: bool(torch.backends.cuda.matmul.allow_tf32)),
            "cudnn_allow_tf32": rec.call("torch.backends.cudnn.allow_tf32",
                                         lambda: bool(torch.backends.cudnn.allow_tf32)),
            "float32_matmul_precision": rec.call(
                "torch.get_float32_matmul_precision()",
                lambda: str(torch.get_float32_matmul_precision())),
        }
    sdpa: dict[str, bool] = {}
    backends = getattr(torch.backends, "cuda", None)
    for name in ("flash", "mem_efficient", "math", "cudnn"):
        function = getattr(backends, f"{name}_sdp_enabled", None)
        if function is not None:
            value = rec.call(f"torch.backends.cuda.{name}_sdp_enabled()", function)
            if value is not None:
                sdpa[name] = bool(value)
    info["sdpa"] = sdpa
    info["sdpa_backends"] = [name for name, enabled in sdpa.items() if enabled]

    devices = []
    for index in range(count or 0):
        devices.append(_torch_cuda_device(torch, index, rec, build))
    info["devices"] = devices
    return pending


def _torch_cuda_device(torch: Any, index: int, rec: Recorder, build: str) -> dict[str, Any]:
    cuda = torch.cuda
    device: dict[str, Any] = {"index": index}
    props = rec.call(f"torch.cuda.get_device_properties({index})",
                     lambda: cuda.get_device_properties(index))
    if props is None:
        return device
    device["name"] = as_text(getattr(props, "name", None))
    major, minor = as_int(getattr(props, "major", None)), as_int(getattr(props, "minor", None))
    if major is not None and minor is not None:
        device["compute_capability"] = f"{major}.{minor}"
    gcn = as_text(getattr(props, "gcnArchName", None))
    if build == "rocm":
        if gcn:
            device["gcn_arch_name"] = gcn
            device["arch"] = gcn.split(":", 1)[0]
    elif major is not None and minor is not None:
        device["arch"] = f"sm_{major}{minor}"
    device["total_memory_bytes"] = as_int(getattr(props, "total_memory", None))
    device["multi_processor_count"] = as_int(getattr(props, "multi_processor_count", None))
    uuid = as_text(getattr(props, "uuid", None))
    if uuid:
        device["uuid"] = uuid
    pci = {key: as_int(getattr(props, key, None))
           for key in ("pci_domain_id", "pci_bus_id", "pci_device_id")}
    if any(v is not None for v in pci.values()):
        device.update(pci)
        device["pci_bus"] = pci_bus(pci["pci_domain_id"], pci["pci_bus_id"],
                                     pci["pci_device_id"])

    # fp16: every ROCm target has it; on CUDA from compute capability 5.3.
    if build == "rocm":
        device["fp16"] = True
    elif major is not None and minor is not None:
        device["fp16"] = (major, minor) >= (5, 3)

    def with_device(function: Callable[[], Any]) -> Callable[[], Any]:
        def call() -> Any:
            with cuda.device(index):
                return function()
        return call

    def bf16() -> bool:
        try:
            return bool(cuda.is_bf16_supported(including_emulation=False))
        except TypeError:  # torch before 2.3 has no including_emulation
            return bool(cuda.is_bf16_supported())

    device["bf16"] = rec.call(f"torch.cuda.is_bf16_supported() on {index}", with_device(bf16))
    tf32_supported = getattr(cuda, "is_tf32_supported", None)
    if tf32_supported is not None:
        device["tf32"] = rec.call(f"torch.cuda.is_tf32_supported() on {index}",
                                  with_device(lambda: bool(tf32_supported())))
    elif build == "cuda" and major is not None:
        device["tf32"] = major >= 8
    return device


def _inspect_torch_xpu(torch: Any, info: dict[str, Any], rec: Recorder) -> None:
    xpu = torch.xpu
    info["gpu_available"] = rec.call("torch.xpu.is_available()", lambda: bool(xpu.is_available()))
    count = rec.call("torch.xpu.device_count()", lambda: int(xpu.device_count()), default=0)
    info["device_count"] = count
    info["arch_list"] = [str(a) for a in rec.call(
        "torch.xpu.get_arch_list()", lambda: list(xpu.get_arch_list()), default=[])]
    devices = []
    for index in range(count or 0):
        device: dict[str, Any] = {"index": index}
        props = rec.call(f"torch.xpu.get_device_properties({index})",
                         xpu.get_device_properties, index)
        if props is not None:
            device["name"] = as_text(getattr(props, "name", None))
            device["total_memory_bytes"] = as_int(getattr(props, "total_memory", None))
            device["driver_version"] = as_text(getattr(props, "driver_version", None))
            has_fp16 = getattr(props, "has_fp16", None)
            device["fp16"] = bool(has_fp16) if has_fp16 is not None else None
        if hasattr(xpu, "is_bf16_supported"):
            device["bf16"] = rec.call("torch.xpu.is_bf16_supported()",
                                      lambda: bool(xpu.is_bf16_supported()))
        devices.append(device)
    info["devices"] = devices


def _torch_smoke_targets(info: dict[str, Any]) -> tuple[list[tuple[str, int]], str | None]:
    build = info.get("build")
    devices = info.get("devices") or []
    kind = {"rocm": "cuda", "cuda": "cuda", "xpu": "xpu", "mps": "mps"}.get(str(build))
    if kind and devices and info.get("gpu_available"):
        return [(kind, int(d.get("index", n))) for n, d in enumerate(devices)], None
    if build == "cpu":
        note = "ran on the CPU: this torch build has no GPU support"
    else:
        note = f"ran on the CPU: this {build} build of torch sees no GPU"
    return [("cpu", 0)], note
