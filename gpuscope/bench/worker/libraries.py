"""Which math library torch uses for a benchmark (BLAS, oneDNN, cuDNN/MIOpen), as far as torch
says."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any

from .measure import Context


def _config_value(torch: Any, key: str) -> str | None:
    try:
        text = str(torch.__config__.show())
    except Exception:
        return None
    found = re.search(rf"\b{re.escape(key)}=([^,\s]+)", text)
    return found.group(1) if found else None


def _onednn_version(torch: Any) -> str | None:
    try:
        text = str(torch.__config__.show())
    except Exception:
        return None
    found = re.search(r"MKL-DNN v([\d.]+)", text) or re.search(r"oneDNN v([\d.]+)", text)
    return found.group(1) if found else None


_CPU_BLAS = {"mkl": "MKL", "open": "OpenBLAS", "openblas": "OpenBLAS", "accelerate": "Accelerate",
             "blis": "BLIS", "flame": "BLIS", "eigen": "Eigen", "armpl": "Arm PL"}


def preferred_blas(torch: Any, build: str) -> str | None:
    """The GPU BLAS library torch prefers for matmul (torch.backends.cuda.preferred_blas_library;
    on ROCm TORCH_BLAS_PREFER_HIPBLASLT sets its default)."""
    function = getattr(getattr(torch.backends, "cuda", None), "preferred_blas_library", None)
    if function is None:
        return None
    try:
        name = str(function()).split(".")[-1].lower()
    except Exception:
        return None
    if build == "rocm":
        return {"cublas": "rocBLAS", "cublaslt": "hipBLASLt", "ck": "Composable Kernel"}.get(name)
    return {"cublas": "cuBLAS", "cublaslt": "cuBLASLt"}.get(name)


def math_library(ctx: Context, precision: str) -> str | None:
    torch = ctx.torch
    if ctx.is_gpu:
        if precision in ("int8", "fp8"):  # _int_mm and _scaled_mm call the Lt library
            return "hipBLASLt" if ctx.build == "rocm" else "cuBLASLt"
        return preferred_blas(torch, ctx.build)
    if precision in ("fp32", "tf32"):
        blas = _config_value(torch, "BLAS_INFO")
        return _CPU_BLAS.get((blas or "").lower(), blas)
    return None  # oneDNN or ATen's own kernels, chosen inside torch: not detectable


def math_hints(torch: Any, build: str) -> dict[str, Any]:
    hints: dict[str, Any] = {
        "blas_info": _config_value(torch, "BLAS_INFO"),
        "lapack_info": _config_value(torch, "LAPACK_INFO"),
        "onednn_version": _onednn_version(torch),
        "cpu_capability": None,
        "preferred_blas": preferred_blas(torch, build) if build in ("rocm", "cuda") else None,
        "TORCH_BLAS_PREFER_HIPBLASLT": os.environ.get("TORCH_BLAS_PREFER_HIPBLASLT"),
        "dnn_library": None,
    }
    with contextlib.suppress(Exception):
        hints["cpu_capability"] = str(torch.backends.cpu.get_cpu_capability())
    try:
        cudnn = torch.backends.cudnn
        if build in ("rocm", "cuda") and cudnn.is_available():
            raw = int(cudnn.version())
            hints["dnn_library"] = f"MIOpen {raw}" if build == "rocm" else f"cuDNN {raw}"
    except Exception:
        pass
    return hints
