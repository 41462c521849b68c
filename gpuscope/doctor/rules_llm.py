"""LLM runtimes: a model running on the CPU beside a usable GPU (`llm.cpu_fallback`), a build
without a backend for this GPU (`llm.backend_unsupported`), and a GPU a runtime reaches only
through HSA_OVERRIDE_GFX_VERSION (`llm.override_needed`).

They read the runtimes (live, replayed or from pasted logs) and the `llm.*` signals of pasted
Ollama, llama.cpp and LM Studio logs. They run after `gpu.usable` is known: a fallback only
matters where a GPU could have taken the model.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from gpuscope.doctor.inputs import DoctorInput, or_list, refs
from gpuscope.i18n import message
from gpuscope.knowledge.overrides import OverrideAdvice, hsa_override_for
from gpuscope.model import (
    LLM_RUNTIME_NAMES,
    EvidenceRef,
    Finding,
    Gpu,
    LlmModel,
    LlmRuntime,
    Severity,
    Signal,
    Vendor,
    format_bytes,
)

OLLAMA_GPU_DOC = "https://github.com/ollama/ollama/blob/main/docs/gpu.md"
OLLAMA_TROUBLESHOOTING = "https://github.com/ollama/ollama/blob/main/docs/troubleshooting.md"
OLLAMA_LINUX_DOC = "https://github.com/ollama/ollama/blob/main/docs/linux.md"
OLLAMA_API_PS = "https://github.com/ollama/ollama/blob/main/docs/api.md#list-running-models"
LLAMA_CPP_BUILD_DOC = "https://github.com/ggml-org/llama.cpp/blob/main/docs/build.md"
LMSTUDIO_DOC = "https://lmstudio.ai/docs/app/advanced/lm-runtimes"
VLLM_ROCM_DOC = "https://docs.vllm.ai/en/latest/getting_started/installation/gpu.html"

_TITLES = {"ollama": "Ollama", "llama.cpp": "llama.cpp", "lmstudio": "LM Studio",
           "vllm": "vLLM", "sglang": "SGLang"}
_GPU_BACKENDS = {Vendor.AMD: ("rocm", "vulkan"), Vendor.NVIDIA: ("cuda", "vulkan"),
                 Vendor.INTEL: ("sycl", "vulkan")}
_OLLAMA_LOG = ("journalctl -u ollama --no-pager -n 400 | grep -iE "
               "'inference compute|compatible GPU|amdgpu|library=|offload'")
_OLLAMA_DROP_IN = "/etc/systemd/system/ollama.service.d"


def runtime_title(name: str) -> str:
    return _TITLES.get(name, name)


def _usable_gpus(data: DoctorInput, findings: Sequence[Finding]) -> list[Gpu]:
    usable = {f.gpu for f in findings if f.id == "gpu.usable"}
    return [g for g in data.inventory.gpus if g.index in usable]


def _ollama_override_commands(advice: OverrideAdvice) -> tuple[str, ...]:
    return (f"sudo mkdir -p {_OLLAMA_DROP_IN}",
            "printf '[Service]\\nEnvironment=\"" + advice.assignment + "\"\\n' | "
            f"sudo tee {_OLLAMA_DROP_IN}/gfx-override.conf",
            "sudo systemctl daemon-reload",
            "sudo systemctl restart ollama")


def _llama_cpp_build_commands(gpu: Gpu) -> tuple[str, ...]:
    clone = "git clone https://github.com/ggml-org/llama.cpp ~/llama.cpp"
    if gpu.vendor is Vendor.AMD:
        target = gpu.gfx_target or "gfx1100"
        return (clone, "cd ~/llama.cpp && HIPCXX=\"$(hipconfig -l)/clang\" "
                "HIP_PATH=\"$(hipconfig -R)\" cmake -S . -B build -DGGML_HIP=ON "
                f"-DAMDGPU_TARGETS={target} -DCMAKE_BUILD_TYPE=Release && "
                "cmake --build build --config Release -j \"$(nproc)\"")
    if gpu.vendor is Vendor.NVIDIA:
        return (clone, "cd ~/llama.cpp && cmake -B build -DGGML_CUDA=ON && "
                "cmake --build build --config Release -j \"$(nproc)\"")
    return (clone, "cd ~/llama.cpp && cmake -B build -DGGML_VULKAN=ON && "
            "cmake --build build --config Release -j \"$(nproc)\"")


# ----------------------------------------------------------------------------- cpu fallback


def _fallback(runtime: LlmRuntime, model: LlmModel, gpus: Sequence[Gpu]) -> Finding | None:
    size, in_vram = model.size_bytes, model.size_vram_bytes
    if size is None or in_vram is None or in_vram >= size:
        return None
    roomy = [g for g in gpus if g.vram_total_bytes and g.vram_total_bytes >= size]
    if not roomy:
        return None
    gpu = roomy[0]
    name = runtime_title(runtime.name)
    if in_vram == 0:
        title = message("{runtime} runs {model} on the CPU, not on {gpu}", runtime=name,
                        model=model.name, gpu=gpu.name or message("the GPU"))
    else:
        title = message("{runtime} runs {model} partly on the CPU ({vram} of {size} in VRAM)",
                        runtime=name, model=model.name, vram=format_bytes(in_vram),
                        size=format_bytes(size))
    detail = message(
        "The loaded model takes {size}, and {vram} of it is in VRAM; {gpu} has {total} of "
        "VRAM. Layers on the CPU decode several times slower.", size=format_bytes(size),
        vram=format_bytes(in_vram), gpu=gpu.name or message("the GPU"),
        total=format_bytes(gpu.vram_total_bytes))
    commands: list[str] = []
    sources = [OLLAMA_API_PS, OLLAMA_TROUBLESHOOTING]
    if runtime.name == "ollama":
        commands.append(_OLLAMA_LOG)
        if in_vram > 0:
            fix = message("Another model or program holds part of the VRAM, or the context is "
                          "large. Unload the model and load it again alone; the server log "
                          "says how many layers it offloaded and why.")
            commands += ["ollama ps", f"ollama stop {shlex.quote(model.name)}"]
        elif runtime.backends and not any(
                b in runtime.backends for b in _GPU_BACKENDS.get(gpu.vendor or Vendor.OTHER, ())):
            fix = message("This Ollama install carries no library for {gpu} ({backends}), so "
                          "it runs models on the CPU. Its install script adds the libraries "
                          "for the GPU it finds.", gpu=gpu.name or message("the GPU"),
                          backends=", ".join(runtime.backends))
            commands = ["curl -fsSL https://ollama.com/install.sh | sh"]
            sources.append(OLLAMA_LINUX_DOC)
        elif gpu.vendor is Vendor.AMD:
            fix = message("Ollama found no GPU it can use. Its log's \"inference compute\" "
                          "lines say why; the usual causes are the ollama service user "
                          "lacking the render and video groups, and an unsupported gfx "
                          "target (see the other findings).")
            commands += ["sudo usermod -aG render,video ollama",
                         "sudo systemctl restart ollama"]
            sources.append(OLLAMA_GPU_DOC)
        else:
            fix = message("Ollama found no GPU it can use. Its log's \"inference compute\" "
                          "lines say why; after a suspend or a driver update, reloading "
                          "the NVIDIA UVM module and restarting the service brings the GPU "
                          "back.")
            commands += ["sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm",
                         "sudo systemctl restart ollama"]
    else:
        fix = message("Load the model with all its layers on the GPU (llama.cpp: -ngl 999).")
    return Finding("llm.cpu_fallback", Severity.WARNING, title, detail=detail, fix=fix,
                   gpu=gpu.index, evidence=runtime.evidence,
                   fix_commands=tuple(commands), sources=tuple(sources))


def _offload_fallbacks(data: DoctorInput, runtimes: Sequence[LlmRuntime]) -> list[Finding]:
    """What pasted logs say: a model offloaded to the GPU in part or not at all."""
    findings = []
    gpu_named = bool(data.inventory.gpus) or any(
        d.backend != "cpu" for r in runtimes for d in r.devices)
    for signal in data.signals_of("llm.cpu_offload"):
        done, _, total = (signal.detail or "").partition("/")
        if not (done.isdigit() and total.isdigit()) or int(done) >= int(total) \
                or not gpu_named:
            continue
        findings.append(Finding(
            "llm.cpu_fallback", Severity.WARNING,
            message("Only {done} of {total} layers were offloaded to the GPU", done=done,
                    total=total),
            detail=message("The rest run on the CPU, several times slower."),
            fix=message("Give the model all its layers on the GPU: free VRAM (other models, "
                        "other programs), use a smaller quantisation or context, and check "
                        "the log for why the GPU was not used."),
            evidence=signal.evidence, fix_commands=(_OLLAMA_LOG,),
            sources=(OLLAMA_TROUBLESHOOTING,)))
    for signal in data.signals_of("llm.no_gpu_found"):
        if not data.inventory.gpus:
            continue
        findings.append(Finding(
            "llm.cpu_fallback", Severity.WARNING,
            message("The LLM runtime found no GPU it can use and runs on the CPU"),
            detail=_log_says(signal.detail), evidence=signal.evidence,
            fix=message("Give the service user access to the GPU device nodes and restart "
                        "it; the other findings name a missing library or target."),
            fix_commands=("sudo usermod -aG render,video ollama",
                          "sudo systemctl restart ollama"),
            sources=(OLLAMA_GPU_DOC, OLLAMA_TROUBLESHOOTING)))
    return findings


# ----------------------------------------------------------------------------- backends


def _override_finding(name: str, gpu: Gpu | None, target: str, advice: OverrideAdvice,
                      evidence: tuple[EvidenceRef, ...]) -> Finding:
    if name == "ollama":
        commands = _ollama_override_commands(advice)
        fix = message("Set {assignment} in the Ollama service's environment and restart it.",
                      assignment=advice.assignment)
        sources: tuple[str, ...] = (OLLAMA_GPU_DOC, *advice.urls)
    else:
        commands = (f"export {advice.assignment}",)
        fix = message("Set {assignment} in the environment before starting {runtime}.",
                      assignment=advice.assignment, runtime=runtime_title(name))
        sources = advice.urls
    return Finding(
        "llm.override_needed", Severity.WARNING,
        message("{runtime} runs on {target} only through HSA_OVERRIDE_GFX_VERSION",
                runtime=runtime_title(name), target=target),
        detail=message("Its ROCm libraries carry no code for {target}; with the override the "
                       "GPU runs the code built for {other}.", target=target,
                       other=advice.pretends_to_be),
        fix=fix, gpu=gpu.index if gpu else None, evidence=evidence, fix_commands=commands,
        sources=sources)


def _unsupported(name: str, gpu: Gpu, why: str, evidence: tuple[EvidenceRef, ...]
                 ) -> Finding:
    if name == "ollama":
        commands: tuple[str, ...] = ("curl -fsSL https://ollama.com/install.sh | sh",)
        fix = message("Install Ollama with its script, which adds the ROCm or CUDA libraries "
                      "for the GPU it finds; for a GPU Ollama's ROCm build does not carry, "
                      "llama.cpp's Vulkan build runs it.")
        sources: tuple[str, ...] = (OLLAMA_LINUX_DOC, OLLAMA_GPU_DOC)
    elif name == "lmstudio":
        commands = ("lms runtime ls",)
        fix = message("Install the Vulkan (or ROCm/CUDA) runtime for this GPU in LM Studio's "
                      "runtime settings, then select it.")
        sources = (LMSTUDIO_DOC,)
    elif name in ("vllm", "sglang"):
        commands = ("docker pull rocm/vllm:latest",) if gpu.vendor is Vendor.AMD else (
            "python -m pip install --upgrade vllm",)
        fix = message("Install the {runtime} build for this GPU's stack (ROCm builds come as "
                      "AMD's container images).", runtime=runtime_title(name))
        sources = (VLLM_ROCM_DOC,)
    else:
        commands = _llama_cpp_build_commands(gpu)
        if gpu.vendor is Vendor.AMD and gpu.gfx_target:
            fix = message("Build llama.cpp's HIP backend for {target} (-DAMDGPU_TARGETS={target}), "
                          "or its Vulkan backend, which runs on any GPU with a Vulkan driver.",
                          target=gpu.gfx_target)
        else:
            fix = message("Build llama.cpp with the backend for this GPU (HIP for ROCm, CUDA, "
                          "or Vulkan, which runs on any of them).")
        sources = (LLAMA_CPP_BUILD_DOC,)
    return Finding(
        "llm.backend_unsupported", Severity.WARNING,
        message("{runtime} has no backend for {gpu}", runtime=runtime_title(name),
                gpu=gpu.name or message("this GPU")),
        detail=why, fix=fix, gpu=gpu.index, evidence=evidence, fix_commands=commands,
        sources=sources)


def _runtime_support(runtime: LlmRuntime, gpus: Sequence[Gpu]) -> list[Finding]:
    if not runtime.found or not runtime.backends:
        return []
    findings = []
    for gpu in gpus:
        wanted = _GPU_BACKENDS.get(gpu.vendor or Vendor.OTHER)
        if not wanted:
            continue
        carried = [b for b in wanted if b in runtime.backends]
        if runtime.name in ("vllm", "sglang"):
            carried = [b for b in wanted if b == runtime.torch_build]
        if not carried:
            findings.append(_unsupported(runtime.name, gpu, message(
                "Its build carries {backends}; this GPU needs {wanted}.",
                backends=", ".join(runtime.backends) or message("no GPU backend"),
                wanted=or_list(wanted)),
                runtime.evidence))
            continue
        target = gpu.gfx_target
        if carried == ["rocm"] and runtime.rocm_targets and target \
                and target not in runtime.rocm_targets:
            advice = hsa_override_for(target)
            if advice is not None and advice.pretends_to_be != target \
                    and advice.pretends_to_be in runtime.rocm_targets:
                findings.append(_override_finding(runtime.name, gpu, target, advice,
                                                  runtime.evidence))
            else:
                findings.append(_unsupported(runtime.name, gpu, message(
                    "Its ROCm libraries carry {targets}, not {target}.",
                    targets=", ".join(runtime.rocm_targets), target=target),
                    runtime.evidence))
    return findings


def _log_says(text: str | None) -> str:
    """A log's own words, quoted in a translatable sentence."""
    return message("The log says: {text}", text=text) if text else ""


def _gpu_for_target(data: DoctorInput, target: str | None) -> Gpu | None:
    return next((g for g in data.inventory.gpus if target and g.gfx_target == target), None)


def _log_support(data: DoctorInput) -> list[Finding]:
    """What pasted logs say about support: an unsupported target or missing libraries."""
    findings = []
    overridden = bool(data.signals_of("llm.override_in_use"))
    default = next((r.name for r in data.llm_runtimes if r.found), "ollama")
    signals: list[Signal] = [*data.signals_of("llm.gpu_unsupported"),
                             *data.signals_of("llm.rocm_library_missing")]
    # A runtime's build without kernels for the GPU (llama.cpp's "invalid device function").
    signals += [s for kind in ("hip.invalid_device_function", "hip.no_binary_for_gpu",
                               "cuda.no_kernel_image")
                for s in data.signals_of(kind) if s.detail in LLM_RUNTIME_NAMES]
    def runtime_of(signal: Signal) -> str:
        return signal.detail if signal.detail in LLM_RUNTIME_NAMES else default

    for runtime, target in dict.fromkeys((runtime_of(s), s.gfx_target) for s in signals):
        group = [s for s in signals if s.gfx_target == target and runtime_of(s) == runtime]
        gpu = _gpu_for_target(data, target)
        advice = hsa_override_for(target) if target else None
        if advice is not None and advice.pretends_to_be == target:
            advice = None  # the override only exposes the target: no other code to run
        if advice is not None and not overridden:
            findings.append(_override_finding(runtime, gpu, target or "", advice, refs(group)))
        elif gpu is not None:
            said = next((s.detail for s in group if s.detail not in LLM_RUNTIME_NAMES), None)
            findings.append(_unsupported(runtime, gpu, _log_says(said) or message(
                "The runtime's log says it cannot use this GPU."), refs(group)))
        else:
            findings.append(Finding(
                "llm.backend_unsupported", Severity.WARNING,
                message("{runtime} cannot use the GPU ({target})",
                        runtime=runtime_title(runtime), target=target or message("unnamed")),
                detail=_log_says(next((s.detail for s in group
                                       if s.detail not in LLM_RUNTIME_NAMES), None)),
                evidence=refs(group),
                fix=message("Run a build with a backend for this GPU: llama.cpp's Vulkan "
                            "build runs on any GPU with a Vulkan driver."),
                fix_commands=("git clone https://github.com/ggml-org/llama.cpp ~/llama.cpp",
                              "cd ~/llama.cpp && cmake -B build -DGGML_VULKAN=ON && "
                              "cmake --build build --config Release -j \"$(nproc)\""),
                sources=(LLAMA_CPP_BUILD_DOC,)))
    return findings


def rule_llm(data: DoctorInput, findings: Sequence[Finding]) -> list[Finding]:
    """The llm.* findings; `findings` are the others, `gpu.usable` among them."""
    usable = _usable_gpus(data, findings)
    compute = [g for g in data.inventory.gpus if g.vendor in _GPU_BACKENDS]
    found: list[Finding] = []
    for runtime in data.llm_runtimes:
        for model in runtime.models:
            if (finding := _fallback(runtime, model, usable)) is not None:
                found.append(finding)
        found += _runtime_support(runtime, compute)
    found += _offload_fallbacks(data, data.llm_runtimes)
    found += _log_support(data)
    return list(dict.fromkeys(found))
