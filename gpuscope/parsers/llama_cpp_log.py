"""llama.cpp as people paste it: the start-up output of `llama-cli`, `llama-server` and
`llama-bench` (and the same lines inside Ollama's and LM Studio's logs, whose runners are
llama.cpp), `llama-cli --list-devices`, and `llama-cli --version`.

What it reads:
- devices: `ggml_cuda_init: found 1 ROCm devices:` then `  Device 0: AMD Radeon RX 7900 XTX,
  gfx1100 (0x1100), VMM: no, Wave Size: 32` (CUDA: `..., compute capability 8.9, VMM: yes`);
  `ggml_vulkan: Found 1 Vulkan devices:` then `ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV
  NAVI31) (radv) | uma: 0 | fp16: 1 | ...` (older: `Vulkan0: ... | uma: 0`);
  `--list-devices`: `Available devices:` then `  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB,
  24112 MiB free)`; `using device ROCm0 (AMD Radeon RX 7900 XTX) - 24288 MiB free`.
- the version: `version: 4567 (abcdef1)`, `build: 4567 (abcdef1) with cc ...`,
  `main: build = 3400 (abcdef)`; the backends: `load_backend: loaded ROCm backend from ...`.
- models: `loaded meta data ... from PATH`, `general.name str = ...`, `model size = 4.58 GiB`,
  the GPU buffers (`ROCm0 model buffer size = 4403.49 MiB`), `n_ctx = 8192`, and
  `offloaded 33/33 layers to GPU`.

Signals: see `_llm_common` (``llm.cpu_offload``, ``llm.no_gpu_found``,
``llm.permission_denied``, ``llm.rocm_library_missing``, ``hip.invalid_device_function``,
``hip.no_binary_for_gpu``). The error lines that `errors` knows (HIP, CUDA, rocBLAS) are added
to every parse by `parse_any` as well.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpuscope.i18n import N_, message
from gpuscope.model import (
    EvidenceRef,
    GpuSighting,
    LlmDevice,
    LlmModel,
    LlmRuntime,
    ParsedOutput,
    Signal,
)
from gpuscope.parsers._common import SNIFF_CHARS, never_raises, none_on_error
from gpuscope.parsers._llm_common import (
    MAX_DEVICES,
    SignalSet,
    backend_name,
    device_sighting,
    gfx_of,
    joined_sightings,
    log_lines,
    ref,
    sighting_name,
    size_bytes,
    sniff_head,
    unique_devices,
    unique_models,
)

FORMATS: tuple[str, ...] = ("llama-cpp-log", "llama-cpp-devices", "llama-cpp-version")

_MIB = 1024 * 1024
_LIST_HEADER = re.compile(r"^\s*Available devices:\s*$")
# "  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24112 MiB free)"; Metal's device is "Metal"
# or "MTL0"; the description may hold parentheses of its own ("(RADV NAVI31)").
_LIST_DEVICE = re.compile(
    r"^\s*(?:- )?(?P<dev>[A-Za-z][A-Za-z_]{0,20}?)(?P<index>\d{0,3}) {0,8}: (?P<desc>.{0,300}?) "
    r"\((?P<total>\d{1,9}) MiB, (?P<free>\d{1,9}) MiB free\)\s*$")
_VERSION = re.compile(
    r"^\s*(?:common_params_print_info: )?(?:version: |build:? |main: build = )"
    r"(?P<number>\d{1,7})"
    r" \((?P<commit>[0-9a-f]{4,40}|unknown)\)")
_FOUND = re.compile(r"ggml_cuda_init: found (\d{1,3}) (ROCm|CUDA|MUSA) devices?:?")
_CUDA_DEVICE = re.compile(
    r"^\s*Device (?P<index>\d{1,3}): (?P<name>.{1,200}?), (?:(?P<gfx>gfx[0-9a-f]{3,4})"
    r"(?::[^\s,]{0,40})? \(0x[0-9a-f]{1,6}\)|compute capability (?P<cc>\d{1,2}\.\d{1,2}))"
    r"(?:.{0,80}?, VRAM: (?P<vram>\d{1,9}) MiB)?")
_FAILED_INIT = re.compile(r"ggml_cuda_init: failed to initialize (ROCm|CUDA|MUSA): (.{0,200})")
_VULKAN_FOUND = re.compile(r"ggml_vulkan: Found (\d{1,3}) Vulkan devices?")
_VULKAN_DEVICE = re.compile(
    r"^\s*(?:ggml_vulkan: (?P<a>\d{1,3}) = |Vulkan(?P<b>\d{1,3}): )(?P<name>.{1,300}?)"
    r" \| uma: (?P<uma>\d)")
# The Vulkan driver's name that newer builds print after the device's ("(radv)", "(NVIDIA)").
_VULKAN_DRIVER = re.compile(
    r" \((?:radv|amdvlk|nvidia|amd proprietary driver|amd open-source driver|"
    r"intel open-source mesa driver|intel proprietary driver|moltenvk|llvmpipe|"
    r"nvk|mesa turnip|qualcomm proprietary driver)\)$", re.IGNORECASE)
_USING_DEVICE = re.compile(
    r"using device (?P<dev>[A-Za-z][A-Za-z_]{0,20}?)(?P<index>\d{0,3}) \((?P<name>.{1,200})\)"
    r"(?: - (?P<free>\d{1,9}) MiB free)?\s*$")
_LOAD_BACKEND = re.compile(r"load_backend: loaded (\S{1,30}) backend from")
_OFFLOADED = re.compile(r"offloaded (\d{1,4})/(\d{1,4}) layers to GPU")
_META_FROM = re.compile(r"loaded meta data with .{0,80} from (?P<path>.{1,400}?)"
                        r"(?: \(version GGUF[^)]{0,40}\)+)?\s*$")
_GENERAL_NAME = re.compile(r"general\.name\s+str\s+=\s+(.{1,200}?)\s*$")
_MODEL_SIZE = re.compile(r"(?:print_info|llm_load_print_meta): model size\s+=\s+(.{1,40})")
_BUFFER = re.compile(r"(?:load_tensors|llm_load_tensors):\s+(?P<buf>[\w-]{1,30}) "
                     r"(?:model )?buffer size =\s+(?P<size>\d{1,9}(?:\.\d{1,3})?) MiB")
_N_CTX = re.compile(r"^\s*(?:llama_context|llama_new_context_with_model|llama_init_from_model)"
                    r":\s+n_ctx\s+=\s+(\d{1,9})")
_GPU_BUFFER = re.compile(r"^(?:ROCm|CUDA|Vulkan|SYCL|MUSA|Metal|MTL|CANN)\d{0,3}$")
_ROCM_ERROR = re.compile(r"\bROCm error: (invalid device function|no kernel image is available"
                         r"|.{0,20}device kernel image is invalid)")
_TENSILE = re.compile(r"TensileLibrary\S{0,80}\.dat.{0,80}(?:No such file|not found)"
                      r"|Cannot read \S{0,200}TensileLibrary", re.IGNORECASE)
_LOAD_ERROR = re.compile(r"error loading model(?: architecture)?: (.{1,200})|"
                         r"failed to load model(?: '[^']{0,300}')?", re.IGNORECASE)
_PERMISSION = re.compile(r"(/dev/(?:kfd|dri/\w{1,20}))\S{0,3}.{0,80}permission denied",
                         re.IGNORECASE)

_BACKENDS_OF_DEVICES = {"rocm": "rocm", "cuda": "cuda", "vulkan": "vulkan", "sycl": "sycl",
                        "metal": "metal", "mtl": "metal", "musa": "cuda"}
_SNIFF_MARKERS = re.compile(
    r"ggml_cuda_init: |ggml_vulkan: Found|llama_model_loader: |llm_load_tensors: |"
    r"load_tensors: |llama_model_load_from_file|print_info: |llm_load_print_meta: |"
    r"^build: \d+ \(\w+\) with |^version: \d+ \(\w+\)|^Available devices:|"
    r"load_backend: loaded |llama_new_context_with_model: |main: build = \d+|"
    r"common_params_print_info: |ggml_backend_cuda_|"
    r"^\s*(?:- )?(?:ROCm|CUDA|Vulkan)\d+ {0,8}: .{1,300}MiB free\)",
    re.MULTILINE)


def parse_llama_version(text: str) -> str | None:
    """The version `llama-cli --version` (or the start-up `build:` line) prints:
    "4567 (abcdef1)" for `version: 4567 (abcdef1)`; None when the text names none."""
    try:
        lines, _cut = log_lines(text)
        for line in lines:
            found = _version_of(line)
            if found is not None:
                return found
    except Exception:  # a reader of outside text never raises
        return None
    return None


def _version_of(line: str) -> str | None:
    match = _VERSION.match(line)
    if match is None:
        return None
    return f"{match.group('number')} ({match.group('commit')})"


def parse_list_devices(text: str) -> tuple[LlmDevice, ...]:
    """The devices `llama-cli --list-devices` lists after "Available devices:" (every such
    line of the text when the header is missing). Never raises."""
    try:
        lines, _cut = log_lines(text)
        return unique_devices(d for _i, d in _listed_devices(lines))
    except Exception:
        return ()


def _listed_devices(lines: Sequence[str]) -> list[tuple[int, LlmDevice]]:
    found: list[tuple[int, LlmDevice]] = []
    for index, line in enumerate(lines):
        if "MiB free)" not in line:
            continue
        device = _list_device(line)
        if device is not None:
            found.append((index, device))
    return found


def _list_device(line: str) -> LlmDevice | None:
    match = _LIST_DEVICE.match(line)
    if match is None:
        return None
    backend = _BACKENDS_OF_DEVICES.get(match.group("dev").lower())
    if backend is None:  # "RPC[...]", "BLAS", an unknown accelerator: not a GPU backend known
        return None
    desc = match.group("desc").strip()
    total = int(match.group("total")) * _MIB
    # "(0 MiB, 0 MiB free)": the backend could not read the memory (cudaMemGetInfo failed)
    read = total > 0
    return LlmDevice(backend=backend, name=desc,
                     index=int(match.group("index")) if match.group("index") else None,
                     gfx_target=gfx_of(desc), total_bytes=total if read else None,
                     free_bytes=int(match.group("free")) * _MIB if read else None)


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    head = sniff_head(text)
    if "Available devices:" in head and "MiB free)" in head:
        return ("llama-cpp-devices", 0.9)
    markers = len(_SNIFF_MARKERS.findall(head, 0, SNIFF_CHARS))
    if markers >= 2 or re.search(r"ggml_cuda_init: (?:found|failed)|ggml_vulkan: Found", head):
        return ("llama-cpp-log", 0.9)
    if markers == 1 and re.search(r"^(?:version: \d+ \(\w+\)|build: \d+ \(\w+\) with )",
                                  head, re.MULTILINE):
        return ("llama-cpp-version", 0.9)
    return None  # one line such as "print_info: " is no llama.cpp log


# The name of a model whose loading a log shows without naming it (an Ollama log names its
# models by their blob's hash at most, and a pasted excerpt may not hold that line).
UNNAMED_MODEL = N_("(a model the log does not name)")


@dataclass
class _Model:
    name: str
    size_bytes: int | None = None
    gpu_buffers_bytes: int | None = None
    buffers_bytes: int | None = None
    context_tokens: int | None = None


@dataclass
class LlamaFindings:
    """What llama.cpp's own lines in a log show (also read inside Ollama's and LM Studio's
    logs): the devices, models, backends, version and signals, with the lines."""

    source: str
    runtime: str = "llama.cpp"  # whose log: the detail of the HIP signals it emits
    version: str | None = None
    devices: list[LlmDevice] = field(default_factory=list)
    device_refs: list[EvidenceRef] = field(default_factory=list)  # the line of each device
    backends: list[str] = field(default_factory=list)
    used_backend: str | None = None
    offload: tuple[int, int] | None = None  # the last model's (on GPU, of all) layers
    models: list[LlmModel] = field(default_factory=list)
    evidence: list[EvidenceRef] = field(default_factory=list)
    signals: SignalSet = field(default_factory=SignalSet)
    listed: bool = False  # a --list-devices output
    # "CUDA error: invalid device function": a HIP build's words before it named itself ROCm
    cuda_invalid_function: list[EvidenceRef] = field(default_factory=list)
    _model: _Model | None = None
    _found_backend: str | None = None

    def add_device(self, device: LlmDevice, index: int, line: str) -> None:
        if len(self.devices) >= 4 * MAX_DEVICES:
            return
        where = ref(self.source, index, line)
        self.devices.append(device)
        self.device_refs.append(where)
        if device.backend not in self.backends:
            self.backends.append(device.backend)
        if len(self.evidence) < 20:
            self.evidence.append(where)

    def sightings(self, runtime: str) -> tuple[GpuSighting, ...]:
        """One sighting per GPU device named (the line that first names it as the source).
        A GPU that two backends list (ROCm0 and Vulkan0 of one card) is one sighting when
        each lists one device of that name."""
        first: dict[tuple[str, int | None, str | None], EvidenceRef] = {}
        for device, where in zip(self.devices, self.device_refs, strict=False):
            first.setdefault((device.backend, device.index, device.name), where)
        devices = unique_devices(self.devices)
        per_backend: dict[tuple[str, str], int] = {}
        for device in devices:
            key = (device.backend, sighting_name(device.name) or "")
            per_backend[key] = per_backend.get(key, 0) + 1
        found: list[GpuSighting] = []
        by_name: dict[str, int] = {}
        for device in devices:
            at = first.get((device.backend, device.index, device.name))
            sighting = device_sighting(device, runtime, at or EvidenceRef(self.source))
            if sighting is None:
                continue
            name = sighting.facts.name or ""
            earlier = by_name.get(name)
            if (earlier is not None and name and per_backend[(device.backend, name)] == 1
                    and found[earlier].facts.vendor is sighting.facts.vendor):
                found[earlier] = joined_sightings(found[earlier], sighting)
                continue
            by_name.setdefault(name, len(found))
            found.append(sighting)
        return tuple(found)

    def finish(self, rocm: bool) -> None:
        """Judge what needs the whole log: "CUDA error: invalid device function" is HIP's
        error when the build is ROCm's."""
        if rocm or "rocm" in self.backends:
            for where in self.cuda_invalid_function:
                self.signals.add("hip.invalid_device_function", where, detail=self.runtime,
                                 gfx_target=_only_gfx(self))

    def close_model(self) -> None:
        model, self._model = self._model, None
        if model is None:
            return
        size = model.size_bytes if model.size_bytes is not None else model.buffers_bytes
        self.models.append(LlmModel(name=model.name, size_bytes=size,
                                    size_vram_bytes=model.gpu_buffers_bytes,
                                    context_tokens=model.context_tokens))

    def model(self) -> _Model:
        """The model being loaded: the last one opened, or an unnamed one."""
        if self._model is None:
            self._model = _Model(name=message(UNNAMED_MODEL))
        return self._model

    def backend(self) -> str | None:
        """The backend in use: the GPU backend layers went to, "cpu" when none did."""
        gpu = self.used_backend or next((b for b in self.backends if b != "cpu"), None)
        if self.offload is not None and self.offload[0] == 0:
            return "cpu"
        if not self.devices and self.signals.has("llm.no_gpu_found"):
            return "cpu"  # its GPU backend found no device
        if gpu is None and (self.offload is not None or self.signals.has("llm.no_gpu_found")):
            return "cpu"
        return gpu


def read_llama_lines(lines: Sequence[str], source: str, runtime: str = "llama.cpp"
                     ) -> LlamaFindings:
    """Read llama.cpp's lines among `lines` (as `log_lines` gives them), in `runtime`'s log
    (one of LLM_RUNTIME_NAMES)."""
    found = LlamaFindings(source, runtime)
    for index, line in enumerate(lines):
        if len(line) > 4000:
            line = line[:4000]
        _read_line(found, index, line)
    found.close_model()
    found.models = list(unique_models(found.models))
    return found


def _read_line(found: LlamaFindings, index: int, line: str) -> None:
    if found.version is None and ("build" in line or "version" in line):
        version = _version_of(line)
        if version is not None:
            found.version = version
            found.evidence.append(ref(found.source, index, line))
            return
    if "MiB free)" in line and (device := _list_device(line)) is not None:
        found.listed = True
        found.add_device(device, index, line)
        return
    if "ggml_cuda_init" in line:
        _read_cuda_init(found, index, line)
        return
    if "Device " in line and found._found_backend is not None:
        match = _CUDA_DEVICE.match(line)
        if match is not None:
            gfx = match.group("gfx")
            found.add_device(LlmDevice(
                backend=found._found_backend, name=match.group("name").strip(),
                index=int(match.group("index")),
                gfx_target=gfx.lower() if gfx else match.group("cc"),
                total_bytes=int(match.group("vram")) * _MIB if match.group("vram") else None),
                index, line)
            return
    if "uma: " in line:
        match = _VULKAN_DEVICE.match(line)
        if match is not None:
            name = _VULKAN_DRIVER.sub("", match.group("name").strip())
            number = match.group("a") or match.group("b")
            found.add_device(LlmDevice(backend="vulkan", name=name, index=int(number),
                                       gfx_target=gfx_of(name)), index, line)
            return
    if "ggml_vulkan: Found" in line and _VULKAN_FOUND.search(line):
        if "vulkan" not in found.backends:
            found.backends.append("vulkan")
        return
    if "using device" in line:
        _read_using_device(found, index, line)
        return
    if "load_backend: loaded" in line:
        match = _LOAD_BACKEND.search(line)
        backend = backend_name(match.group(1)) if match else None
        if backend is not None and backend not in found.backends:
            found.backends.append(backend)
        return
    _read_model_line(found, index, line)
    _read_error_line(found, index, line)


def _read_cuda_init(found: LlamaFindings, index: int, line: str) -> None:
    match = _FOUND.search(line)
    if match is not None:
        backend = _BACKENDS_OF_DEVICES[match.group(2).lower()]
        found._found_backend = backend
        if backend not in found.backends:
            found.backends.append(backend)
        if match.group(1) == "0":
            found.signals.add_one("llm.no_gpu_found", ref(found.source, index, line),
                              detail=line.strip()[:200])
        return
    failed = _FAILED_INIT.search(line)
    if failed is not None:
        backend = _BACKENDS_OF_DEVICES[failed.group(1).lower()]
        if backend not in found.backends:
            found.backends.append(backend)  # the build carries it; it found no device
        found.signals.add_one("llm.no_gpu_found", ref(found.source, index, line),
                          detail=failed.group(0).strip())


def _read_using_device(found: LlamaFindings, index: int, line: str) -> None:
    match = _USING_DEVICE.search(line)
    if match is None:
        return
    backend = _BACKENDS_OF_DEVICES.get(match.group("dev").lower())
    if backend is None:
        return
    found.used_backend = found.used_backend or backend
    free = match.group("free")
    found.add_device(LlmDevice(
        backend=backend, name=match.group("name").strip(),
        index=int(match.group("index")) if match.group("index") else None,
        free_bytes=int(free) * _MIB if free else None), index, line)


def _read_model_line(found: LlamaFindings, index: int, line: str) -> None:
    if "loaded meta data" in line:
        match = _META_FROM.search(line)
        if match is not None:
            found.close_model()
            path = match.group("path").strip()
            found._model = _Model(name=re.split(r"[\\/]", path)[-1] or path)
            found.evidence.append(ref(found.source, index, line))
        return
    if "general.name" in line and found._model is not None:
        match = _GENERAL_NAME.search(line)
        if match is not None and found._model.name.startswith("sha256"):
            found._model.name = match.group(1)  # Ollama's blobs are named by their hash only
        return
    if "model size" in line:
        match = _MODEL_SIZE.search(line)
        if match is not None:
            found.model().size_bytes = size_bytes(match.group(1))
        return
    if "buffer size" in line:
        match = _BUFFER.search(line)
        if match is None:
            return
        model, add = found.model(), int(float(match.group("size")) * _MIB)
        model.buffers_bytes = (model.buffers_bytes or 0) + add
        model.gpu_buffers_bytes = model.gpu_buffers_bytes or 0
        if _GPU_BUFFER.match(match.group("buf")):
            model.gpu_buffers_bytes += add
            backend = backend_name(match.group("buf"))
            if backend is not None and backend not in found.backends:
                found.backends.append(backend)
        return
    if "n_ctx" in line:
        match = _N_CTX.match(line)
        if match is not None and found.model().context_tokens is None:
            found.model().context_tokens = int(match.group(1))
        return
    if "layers to GPU" in line:
        match = _OFFLOADED.search(line)
        if match is not None:
            on_gpu, total = int(match.group(1)), int(match.group(2))
            found.offload = (on_gpu, total)
            if len(found.evidence) < 20:
                found.evidence.append(ref(found.source, index, line))
            if on_gpu < total:
                found.signals.add("llm.cpu_offload", ref(found.source, index, line),
                                  detail=f"{on_gpu}/{total}")


def _read_error_line(found: LlamaFindings, index: int, line: str) -> None:
    low = line.lower()
    if "cuda error: invalid device function" in low:
        found.cuda_invalid_function.append(ref(found.source, index, line))
    if "rocm error" in low:
        match = _ROCM_ERROR.search(line)
        if match is not None:
            kind = ("hip.invalid_device_function" if "invalid device function"
                    in match.group(1) else "hip.no_binary_for_gpu")
            if "rocm" not in found.backends:
                found.backends.append("rocm")
            found.signals.add(kind, ref(found.source, index, line), detail=found.runtime,
                              gfx_target=gfx_of(line) or _only_gfx(found))
    if "tensile" in low and _TENSILE.search(line):
        found.signals.add("llm.rocm_library_missing", ref(found.source, index, line),
                          gfx_target=gfx_of(line))
    if "error loading model" in low or "failed to load model" in low:
        match = _LOAD_ERROR.search(line)
        if match is not None:
            found.signals.add_one("llm.model_load_failed", ref(found.source, index, line),
                                  detail=(match.group(1) or match.group(0)).strip()[:200])
    if "permission denied" in low:
        match = _PERMISSION.search(line)
        if match is not None:
            found.signals.add("llm.permission_denied", ref(found.source, index, line),
                              detail=match.group(1))


def _only_gfx(found: LlamaFindings) -> str | None:
    targets = {d.gfx_target for d in found.devices
               if d.gfx_target and d.gfx_target.startswith("gfx")}
    return targets.pop() if len(targets) == 1 else None


def runtime_of(found: LlamaFindings, name: str) -> LlmRuntime:
    """The runtime these findings describe, found."""
    return LlmRuntime(
        name=name, found=True, version=found.version, backend=found.backend(),
        models=tuple(found.models), devices=unique_devices(found.devices),
        backends=tuple(found.backends), evidence=tuple(found.evidence[:20]))


@never_raises("llama-cpp-log")
def parse(text: str, source: str) -> ParsedOutput:
    """llama.cpp's start-up output, `--list-devices` or `--version`. Never raises."""
    lines, cut = log_lines(text)
    found = read_llama_lines(lines, source)
    found.finish(rocm=False)
    fmt = ("llama-cpp-devices" if found.listed
           else "llama-cpp-version" if found.version and not found.devices
           and not found.models and not found.backends else "llama-cpp-log")
    signals: tuple[Signal, ...] = found.signals.signals()
    return ParsedOutput(format=fmt, source=source, sightings=found.sightings("llama.cpp"),
                        signals=signals, problems=(cut,) if cut else (),
                        llm_runtimes=(runtime_of(found, "llama.cpp"),))
