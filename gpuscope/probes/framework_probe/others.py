"""torch-directml, ONNX Runtime, JAX and TensorFlow: their builds and the devices they see."""

from __future__ import annotations

import importlib
import re
from typing import Any

from ...child.jsonlines import describe
from .children import run_smoke_tests
from .recording import Recorder, as_int, as_text, distributions


def inspect_torch_directml(info: dict[str, Any], rec: Recorder, deadline: float,
                           smoke: bool) -> None:
    info["build"] = "directml"
    info["distributions"] = distributions(("torch-directml",))
    dml: Any = importlib.import_module("torch_directml")
    dists = info["distributions"]
    info["version"] = (as_text(getattr(dml, "__version__", None))
                       or (dists[0]["version"] if dists else None))
    info["gpu_available"] = rec.call("torch_directml.is_available()",
                                     lambda: bool(dml.is_available()))
    count = rec.call("torch_directml.device_count()", lambda: int(dml.device_count()), default=0)
    info["device_count"] = count
    info["devices"] = [
        {"index": i, "name": as_text(rec.call(f"torch_directml.device_name({i})",
                                           dml.device_name, i))}
        for i in range(count or 0)
    ]
    if smoke and count:
        info["smoke_tests"] = run_smoke_tests([("directml", i) for i in range(count)], deadline)


def inspect_onnxruntime(info: dict[str, Any], rec: Recorder, deadline: float,
                        smoke: bool) -> None:
    # Several onnxruntime packages can share the one `onnxruntime` module; the last one
    # installed wins, a classic reason for a missing CUDA provider.
    info["distributions"] = distributions((), prefix="onnxruntime")
    ort: Any = importlib.import_module("onnxruntime")
    info["version"] = as_text(getattr(ort, "__version__", None))
    providers = [str(p) for p in rec.call("onnxruntime.get_available_providers()",
                                          lambda: list(ort.get_available_providers()),
                                          default=[])]
    info["providers"] = providers
    info["device"] = rec.call("onnxruntime.get_device()", lambda: as_text(ort.get_device()))
    if {"ROCMExecutionProvider", "MIGraphXExecutionProvider"} & set(providers):
        build = "rocm"
    elif {"CUDAExecutionProvider", "TensorrtExecutionProvider"} & set(providers):
        build = "cuda"
    elif "DmlExecutionProvider" in providers:
        build = "directml"
    elif "CoreMLExecutionProvider" in providers:
        build = "mps"
    elif providers == ["CPUExecutionProvider"]:
        build = "cpu"
    else:
        build = "unknown"
    info["build"] = build


def inspect_jax(info: dict[str, Any], rec: Recorder, deadline: float, smoke: bool) -> None:
    info["distributions"] = distributions((), prefix="jax")
    jax: Any = importlib.import_module("jax")
    info["version"] = as_text(getattr(jax, "__version__", None))
    try:
        jaxlib: Any = importlib.import_module("jaxlib")
        info["jaxlib_version"] = as_text(getattr(jaxlib, "__version__", None)) or as_text(
            getattr(getattr(jaxlib, "version", None), "__version__", None))
    except Exception as exc:  # jax without jaxlib is a finding, not a crash
        rec.errors.append(f"import jaxlib: {describe(exc)}")
    info["default_backend"] = rec.call("jax.default_backend()", lambda: str(jax.default_backend()))
    raw_devices = rec.call("jax.devices()", lambda: list(jax.devices()), default=[])
    devices = []
    platforms = []
    for n, device in enumerate(raw_devices):
        platform_name = as_text(getattr(device, "platform", None)) or "unknown"
        platforms.append(platform_name.lower())
        device_id = as_int(getattr(device, "id", None))
        devices.append({
            "index": device_id if device_id is not None else n,
            "name": as_text(getattr(device, "device_kind", None)),
            "platform": platform_name,
            "device_kind": as_text(getattr(device, "device_kind", None)),
        })
    info["devices"] = devices
    platform_version = None
    if raw_devices:
        platform_version = rec.call(
            "jax.devices()[0].client.platform_version",
            lambda: as_text(raw_devices[0].client.platform_version))
    info["platform_version"] = platform_version
    plugins = " ".join(d["name"] for d in info["distributions"])
    gpu = [p for p in platforms if p in ("gpu", "cuda", "rocm")]
    hint = (platform_version or "").lower() + " " + " ".join(gpu)
    if "rocm" in hint or "hip" in hint:
        build = "rocm"
    elif "cuda" in hint:
        build = "cuda"
    elif gpu:
        build = "unknown"
    elif "metal" in platforms:
        build = "mps"
    elif "rocm" in plugins:
        build = "rocm"
    elif "cuda" in plugins:
        build = "cuda"
    elif platforms and all(p == "cpu" for p in platforms):
        build = "cpu"
    else:
        build = "unknown"
    info["build"] = build
    info["gpu_available"] = bool(gpu or "metal" in platforms)
    info["device_count"] = len(gpu)


def inspect_tensorflow(info: dict[str, Any], rec: Recorder, deadline: float,
                       smoke: bool) -> None:
    info["distributions"] = distributions((
        "tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-rocm", "tensorflow-macos",
        "tensorflow-intel", "intel-tensorflow", "tf-nightly"))
    tf: Any = importlib.import_module("tensorflow")
    info["version"] = as_text(getattr(tf, "__version__", None))
    build_info = rec.call("tf.sysconfig.get_build_info()",
                          lambda: dict(tf.sysconfig.get_build_info()), default={})
    plain: dict[str, Any] = {}
    for key, value in build_info.items():
        if isinstance(value, (bool, int, float, str)) or value is None:
            plain[str(key)] = value
        elif isinstance(value, (list, tuple)):
            plain[str(key)] = [str(v) for v in value]
        else:
            plain[str(key)] = str(value)
    info["build_info"] = plain
    if plain.get("is_rocm_build"):
        info["build"] = "rocm"
        info["build_version"] = as_text(plain.get("rocm_version"))
    elif plain.get("is_cuda_build"):
        info["build"] = "cuda"
        info["build_version"] = as_text(plain.get("cuda_version"))
        cudnn = as_text(plain.get("cudnn_version"))
        if cudnn:
            info["math_library"] = {"name": "cuDNN", "version": cudnn}
    elif build_info:
        info["build"] = "cpu"
    else:
        info["build"] = "unknown"
    capabilities = plain.get("cuda_compute_capabilities")
    info["arch_list"] = capabilities if isinstance(capabilities, list) else []
    gpus = rec.call('tf.config.list_physical_devices("GPU")',
                    lambda: list(tf.config.list_physical_devices("GPU")), default=[])
    devices = []
    for n, gpu in enumerate(gpus):
        name = as_text(getattr(gpu, "name", None))
        device: dict[str, Any] = {"index": n, "tf_name": name}
        match = re.search(r":(\d+)$", name or "")
        if match:
            device["index"] = int(match.group(1))
        details = rec.call(f"tf.config.experimental.get_device_details({name})",
                           tf.config.experimental.get_device_details, gpu, default={})
        if not isinstance(details, dict):
            details = {}
        device["name"] = as_text(details.get("device_name"))
        capability = details.get("compute_capability")
        if isinstance(capability, (tuple, list)) and len(capability) == 2:
            device["compute_capability"] = f"{capability[0]}.{capability[1]}"
            if info["build"] == "cuda":
                device["arch"] = f"sm_{capability[0]}{capability[1]}"
        devices.append(device)
    info["devices"] = devices
    info["device_count"] = len(devices)
    info["gpu_available"] = bool(devices)
