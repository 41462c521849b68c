"""Ollama's server log as people paste it: `ollama serve` output, `journalctl -u ollama`, the
Windows `server.log`, docker logs; every release's wording since 0.1.2x.

What it reads (besides the llama.cpp lines its runner prints, read by `llama_cpp_log`):
- the version: `msg="Listening on 127.0.0.1:11434 (version 0.9.6)"`, `ollama version is X`;
- GPU discovery: `msg="inference compute" id=... library=rocm|ROCm|cuda|Vulkan|cpu
  compute=gfx1100 ... name=... description=... pci_id=03:00.0 total="24.0 GiB"
  available="23.6 GiB"`, `no compatible GPUs were discovered`, `amdgpu is not supported
  (supported types:[...]) gpu_type=gfx1031` (older: `supported_types="[...]"`, oldest:
  `amdgpu [0] gfx1010 is not supported by /tmp/.../rocm [...]`), `amdgpu detected, but no
  compatible rocm library found`, `permission problems block access` / `permissions not set up
  properly`, `skipping rocm gfx compatibility check HSA_OVERRIDE_GFX_VERSION=11.0.2` and the
  `server config` environment;
- the runners its build carries (`Dynamic LLM libraries [rocm_v60000 cpu_avx ...]`);
- model loads: `msg=offload ... layers.model=33 layers.offload=0`, `offloaded 15/49 layers to
  GPU`, `msg="model weights" buffer=ROCm0 size="19.0 GiB"`.

Signals: see `_llm_common`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpuscope.i18n import message
from gpuscope.model import (
    EvidenceRef,
    GpuFacts,
    GpuSighting,
    Layer,
    LlmDevice,
    LlmModel,
    LlmRuntime,
    ParsedOutput,
    Vendor,
)
from gpuscope.parsers._common import SNIFF_CHARS, never_raises, none_on_error, pci_bus
from gpuscope.parsers._llm_common import (
    MAX_DEVICES,
    backend_name,
    device_sighting,
    gfx_of,
    log_lines,
    logfmt,
    ref,
    size_bytes,
    sniff_head,
    unique_devices,
    unique_models,
)
from gpuscope.parsers.llama_cpp_log import UNNAMED_MODEL, LlamaFindings, read_llama_lines

FORMATS: tuple[str, ...] = ("ollama-log",)

_VERSION = re.compile(r"Listening on \S{1,200} \(version ([^)\s]{1,40})\)|"
                      r"ollama version(?: is)? (\d{1,3}\.\d{1,3}\.\d{1,3}[\w.+-]{0,30})")
_OVERRIDE = re.compile(r"HSA_OVERRIDE_GFX_VERSION[:=]\"?([^\s\]\"]{1,40})")
_SUPPORTED = re.compile(r"supported[ _]types\"?[:=]\"?\[([^\]]{0,2000})\]")
_OLD_UNSUPPORTED = re.compile(
    r"amdgpu \[(\d{1,3})\] (gfx[0-9a-f]{3,4}) is not supported by \S{1,400}(?: \[([^\]]{0,2000})"
    r"\]?)?")
_RUNNERS = re.compile(r"Dynamic LLM libraries\"? (?:runners=\"?)?\[([^\]]{0,400})\]")
_PERMISSION_PATH = re.compile(r"(/dev/(?:kfd|dri/\w{1,20}))\S{0,3}[ \t]{0,3}permission denied",
                              re.IGNORECASE)
_PCI_IDS = re.compile(r"^(?:0x)?([0-9a-fA-F]{4}):(?:0x)?([0-9a-fA-F]{4})$")
_BLOB = re.compile(r"--model (\S{1,400})|\bmodel=(\S{1,400})")
_SNIFF = re.compile(
    r"msg=\"?inference compute|source=(?:routes|gpu|amd_linux|amd_windows|sched|server|types|"
    r"images|ggml|runner|discover|llama_server|payload|payload_common|cpu_common|memory|"
    r"device|types)\.go:\d+|ollama\[\d+\]:|Listening on \S+ \(version |"
    r"no compatible GPUs were discovered|\[GIN\] \d{4}/\d\d/\d\d|OLLAMA_(?:HOST|MODELS)",
    re.MULTILINE)


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    head = sniff_head(text)
    markers = len(_SNIFF.findall(head, 0, SNIFF_CHARS))
    if markers >= 2:
        return ("ollama-log", 0.95)
    if markers == 1 and ("msg=" in head or "ollama" in head.lower()):
        # Ollama's own lines: whatever llama.cpp lines its runner printed beside them
        return ("ollama-log", 0.95 if "msg=" in head else 0.8)
    if re.search(r"^ollama version(?: is)? \d", head, re.MULTILINE):
        return ("ollama-log", 0.9)
    return None


@dataclass
class _Ollama:
    source: str
    version: str | None = None
    devices: list[tuple[LlmDevice, EvidenceRef, str | None, GpuFacts | None]] = field(
        default_factory=list)
    backends: list[str] = field(default_factory=list)
    gpu_backend: str | None = None
    cpu_only: EvidenceRef | None = None  # an "inference compute" line of the CPU
    offload: tuple[int, int] | None = None
    weights_bytes: int | None = None
    weights_vram_bytes: int | None = None
    model_name: str | None = None  # the blob a log names ("sha256-...")
    unsupported: list[tuple[str, EvidenceRef]] = field(default_factory=list)  # gfx targets
    evidence: list[EvidenceRef] = field(default_factory=list)

    def backend(self, name: str) -> None:
        if name not in self.backends:
            self.backends.append(name)


def _read(lines: list[str], source: str, llama: LlamaFindings) -> _Ollama:
    found = _Ollama(source)
    for index, line in enumerate(lines):
        if len(line) > 4000:
            line = line[:4000]
        try:
            _read_line(found, llama, index, line)
        except (ValueError, IndexError):  # a damaged line is skipped, not the log
            continue
    return found


def _read_line(found: _Ollama, llama: LlamaFindings, index: int, line: str) -> None:
    signals = llama.signals
    where = ref(found.source, index, line)
    if not found.evidence and "msg=" in line and "level=" in line:
        found.evidence.append(where)  # Ollama's first line: it ran here
    if found.version is None and ("version" in line):
        match = _VERSION.search(line)
        if match is not None:
            found.version = match.group(1) or match.group(2)
            found.evidence.append(where)
    if "inference compute" in line:
        _inference_compute(found, logfmt(line), where)
        return
    if "HSA_OVERRIDE_GFX_VERSION" in line:
        match = _OVERRIDE.search(line)
        value = match.group(1) if match else None
        if value and not value.startswith(("usage", "HTTP")):
            signals.add("llm.override_in_use", where, detail=value)
    if "is not supported" in line and "amdgpu" in line:
        _unsupported(found, llama, line, where)
        return
    if "no compatible GPUs were discovered" in line:
        signals.add_one("llm.no_gpu_found", where, detail="no compatible GPUs were discovered")
        return
    if ("no compatible rocm library found" in line or "unable to verify rocm library" in line
            or "no suitable rocm found" in line):
        signals.add("llm.rocm_library_missing", where, gfx_target=gfx_of(line))
        return
    low = line.lower()
    if ("permission problems block access" in low or "permissions not set up properly" in low
            or ("permission denied" in low and "/dev/" in low)):
        match = _PERMISSION_PATH.search(line)
        signals.add("llm.permission_denied", where,
                    detail=match.group(1) if match else None)
        return
    if "llama runner process has terminated" in line:
        detail = line.split("llama runner process has terminated", 1)[1].strip(' :"')
        signals.add_one("llm.model_load_failed", where, detail=detail[:200] or None)
        return
    if "Dynamic LLM libraries" in line:
        match = _RUNNERS.search(line)
        for runner in (match.group(1).replace('"', "").split() if match else ()):
            backend = backend_name(runner)
            if backend is not None:
                found.backend(backend)
        return
    if "msg=offload" in line or 'msg="offload' in line:
        fields = logfmt(line)
        backend = backend_name(fields.get("library"))
        if backend is not None:
            found.gpu_backend = found.gpu_backend or (backend if backend != "cpu" else None)
        layers, offload = fields.get("layers.model"), fields.get("layers.offload")
        if layers and offload and layers.isdigit() and offload.isdigit():
            found.offload = (int(offload), int(layers))
            if int(offload) < int(layers):
                signals.add("llm.cpu_offload", where, detail=f"{offload}/{layers}")
        return
    if "model=" in line or "--model " in line:
        match = _BLOB.search(line)
        if match is not None:
            path = (match.group(1) or match.group(2)).strip('"')
            found.model_name = re.split(r"[\\/]", path)[-1] or found.model_name
    if "model weights" in line:
        fields = logfmt(line)
        size = size_bytes(fields.get("size"))
        buffer = fields.get("buffer") or fields.get("device") or ""
        backend = backend_name(buffer)
        if backend is not None:
            found.backend(backend)
            if backend != "cpu":
                found.gpu_backend = found.gpu_backend or backend
        if size is not None:
            found.weights_bytes = (found.weights_bytes or 0) + size
            on_gpu = size if buffer and not buffer.upper().startswith("CPU") else 0
            found.weights_vram_bytes = (found.weights_vram_bytes or 0) + on_gpu


def _inference_compute(found: _Ollama, fields: dict[str, str], where: EvidenceRef) -> None:
    backend = backend_name(fields.get("library"))
    if backend is None:
        return
    found.backend(backend)
    if backend == "cpu":
        found.cpu_only = found.cpu_only or where
        return
    found.gpu_backend = found.gpu_backend or backend
    if len(found.devices) >= MAX_DEVICES:
        return
    compute = fields.get("compute") or None
    name = fields.get("description") or fields.get("name") or None
    ids = _PCI_IDS.match(name or "")
    extra = None
    if ids is not None:  # 0.3-0.5 named an AMD GPU by its PCI ids ("1002:744c")
        extra = GpuFacts(pci_vendor_id=f"0x{ids.group(1).lower()}",
                         pci_device_id=f"0x{ids.group(2).lower()}")
        name = None
    device_id = fields.get("id", "")
    device = LlmDevice(
        backend=backend, name=name, index=int(device_id) if device_id.isdigit() else None,
        gfx_target=gfx_of(compute) if backend == "rocm" else compute,
        total_bytes=size_bytes(fields.get("total")),
        free_bytes=size_bytes(fields.get("available")))
    bus = pci_bus(fields["pci_id"]) if fields.get("pci_id") else None
    found.devices.append((device, where, bus, extra))
    found.evidence.append(where)


def _unsupported(found: _Ollama, llama: LlamaFindings, line: str, where: EvidenceRef) -> None:
    old = _OLD_UNSUPPORTED.search(line)
    if old is not None:
        target, listed = old.group(2).lower(), old.group(3)
    else:
        fields = logfmt(line)
        target = gfx_of(fields.get("gpu_type")) or gfx_of(line.split("msg=", 1)[-1])
        match = _SUPPORTED.search(line)
        listed = match.group(1) if match else None
    supported = ", ".join(listed.split()) if listed else None
    llama.signals.add("llm.gpu_unsupported", where, detail=supported or None,
                      gfx_target=target)
    if target and target not in {t for t, _w in found.unsupported}:
        found.unsupported.append((target, where))
    found.backend("rocm")
    found.evidence.append(where)


def _sightings(found: _Ollama, llama: LlamaFindings) -> tuple[GpuSighting, ...]:
    sightings = []
    for device, where, bus, extra in found.devices:
        sighting = device_sighting(device, "Ollama", where, pci_bus=bus)
        if sighting is None:
            continue
        if extra is not None:
            facts = GpuFacts(**{**{f: getattr(sighting.facts, f) for f in _FACT_FIELDS},
                                "pci_vendor_id": extra.pci_vendor_id,
                                "pci_device_id": extra.pci_device_id})
            sources = dict(sighting.field_sources)
            sources.update(pci_vendor_id=where.label(), pci_device_id=where.label())
            sighting = GpuSighting(sighting.layer, facts, sources, sighting.missing_reasons)
        sightings.append(sighting)
    targets = {s.facts.gfx_target for s in sightings}
    for target, where in found.unsupported[:MAX_DEVICES]:
        if target in targets:
            continue
        label = where.label()  # a GPU Ollama found and refused: named by its target only
        sightings.append(GpuSighting(
            Layer.LLM, GpuFacts(vendor=Vendor.AMD, gfx_target=target),
            {"vendor": label, "gfx_target": label},
            {"pci_bus": message("{runtime}'s log names the GPU without its PCI address",
                                runtime="Ollama")}))
    named = {(s.facts.name, s.facts.gfx_target) for s in sightings}
    # The runner's own device lines (ggml_cuda_init) name the same GPUs again.
    sightings += [s for s in llama.sightings("Ollama")
                  if (s.facts.name, s.facts.gfx_target) not in named
                  and s.facts.name not in {n for n, _g in named}]
    return tuple(sightings)


_FACT_FIELDS = tuple(GpuFacts.__dataclass_fields__)


def _models(found: _Ollama, llama: LlamaFindings) -> tuple[LlmModel, ...]:
    models = list(llama.models)
    if found.weights_bytes is not None:
        if models:
            last = models[-1]
            models[-1] = LlmModel(
                name=last.name,
                size_bytes=last.size_bytes if last.size_bytes is not None
                else found.weights_bytes,
                size_vram_bytes=found.weights_vram_bytes, context_tokens=last.context_tokens)
        else:
            models.append(LlmModel(name=found.model_name or message(UNNAMED_MODEL),
                                   size_bytes=found.weights_bytes,
                                   size_vram_bytes=found.weights_vram_bytes))
    return unique_models(models)


def _backend(found: _Ollama, llama: LlamaFindings) -> str | None:
    offload = llama.offload or found.offload
    if offload is not None and offload[0] == 0:
        return "cpu"
    gpu = found.gpu_backend or next((b for b in llama.backends if b != "cpu"), None)
    if gpu is not None:
        return gpu
    if found.cpu_only is not None or llama.signals.has("llm.no_gpu_found"):
        return "cpu"
    return None


@never_raises("ollama-log")
def parse(text: str, source: str) -> ParsedOutput:
    """An Ollama server log. Never raises."""
    lines, cut = log_lines(text)
    llama = read_llama_lines(lines, source, "ollama")
    found = _read(lines, source, llama)
    llama.finish(rocm="rocm" in found.backends)
    if (found.cpu_only is not None and not found.devices and not llama.devices
            and not llama.signals.has("llm.no_gpu_found")):
        llama.signals.add_one("llm.no_gpu_found", found.cpu_only, detail="CPU only")
    devices = unique_devices([d for d, _w, _b, _e in found.devices] + llama.devices)
    backends = tuple(dict.fromkeys(found.backends + llama.backends))
    runtime = LlmRuntime(
        name="ollama", found=True, version=found.version, backend=_backend(found, llama),
        models=_models(found, llama), devices=devices, backends=backends,
        evidence=tuple((found.evidence + llama.evidence)[:20]))
    return ParsedOutput(format="ollama-log", source=source,
                        sightings=_sightings(found, llama), signals=llama.signals.signals(),
                        problems=(cut,) if cut else (), llm_runtimes=(runtime,))
