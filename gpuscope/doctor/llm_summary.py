"""One line per LLM runtime for the views (doctor text, the window, the report): found or
not with why, its version, the backend and GPUs it uses or would use, and its loaded models."""

from __future__ import annotations

from collections.abc import Sequence

from gpuscope.doctor.rules_llm import runtime_title
from gpuscope.i18n import message
from gpuscope.model import Gpu, LlmModel, LlmRuntime, format_bytes

_BACKEND_WORDS = {"rocm": "ROCm", "cuda": "CUDA", "vulkan": "Vulkan", "metal": "Metal",
                  "sycl": "SYCL", "cpu": "CPU"}


def backend_words(backend: str | None) -> str:
    return _BACKEND_WORDS.get(backend or "", backend or "?")


def _model_words(model: LlmModel) -> str:
    if model.size_bytes is None or model.size_vram_bytes is None:
        return model.name
    if model.size_vram_bytes >= model.size_bytes:
        return message("{model} ({size}, all in VRAM)", model=model.name,
                       size=format_bytes(model.size_bytes))
    return message("{model} ({vram} of {size} in VRAM)", model=model.name,
                   vram=format_bytes(model.size_vram_bytes), size=format_bytes(model.size_bytes))


def runtime_line(runtime: LlmRuntime, gpus: Sequence[Gpu]) -> str:
    name = runtime_title(runtime.name)
    if runtime.version:
        name = f"{name} {runtime.version}"
    if not runtime.found:
        return message("{runtime}: not found ({reason})", runtime=name,
                       reason=runtime.reason or message("no reason recorded"))
    names = [g.name or f"GPU {g.index}" for g in gpus if g.index in runtime.gpus]
    if runtime.backend is None:
        where = message("backend unknown")
    elif names:
        where = message("{backend} on {gpus}", backend=backend_words(runtime.backend),
                        gpus=", ".join(names))
    else:
        where = backend_words(runtime.backend)
    text = message("{runtime}: {where}", runtime=name, where=where)
    if runtime.models:
        text = message("{text}; loaded: {models}", text=text,
                       models=", ".join(_model_words(m) for m in runtime.models))
    if runtime.reason:
        text = message("{text} ({reason})", text=text, reason=runtime.reason)
    return text
