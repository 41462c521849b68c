"""What the LLM runtime log importers share (Ollama, llama.cpp, LM Studio): the lines of a log
as people paste them (ANSI colours, CRLF, a journal's or docker compose's prefix stripped),
sizes as the runtimes print them, the GPU sighting of a device a runtime names, and the
merging of what several parsers found into one `LlmRuntime` per runtime.

Signal kinds of the LLM importers (the doctor's rules read them):

- ``llm.gpu_unsupported``: the runtime says this GPU's target is not supported (gfx target
  set; detail = the supported list when the log gives it).
- ``llm.no_gpu_found``: no compatible GPU discovered; the runtime runs on the CPU.
- ``llm.cpu_offload``: a model loaded with fewer layers on the GPU than it has (detail "N/M").
- ``llm.override_in_use``: ``HSA_OVERRIDE_GFX_VERSION`` applied (detail = the value).
- ``llm.permission_denied``: /dev/kfd or /dev/dri could not be opened.
- ``llm.rocm_library_missing``: an AMD GPU was found but no ROCm library for it (Ollama's
  "no compatible rocm library", rocBLAS's missing TensileLibrary; gfx target when named).
- ``hip.invalid_device_function``, ``hip.no_binary_for_gpu``: llama.cpp's "ROCm error: ..."
  (its HIP build names the backend ROCm where `errors` expects "HIP error:"), and its older
  "CUDA error: invalid device function" in a ROCm build. Their detail is the runtime whose log
  shows them ("llama.cpp", "ollama", "lmstudio"): a rule tells them from PyTorch's by it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gpuscope.i18n import message
from gpuscope.model import (
    EvidenceRef,
    GpuFacts,
    GpuSighting,
    Layer,
    LlmDevice,
    LlmModel,
    LlmRuntime,
    Signal,
    Vendor,
)
from gpuscope.parsers._common import MAX_EVIDENCE, SNIFF_CHARS, read_lines

MAX_EVIDENCE_TEXT = 300
MAX_DEVICES = 64
MAX_MODELS = 64

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,40}[ -/]{0,4}[@-~]|\x1b[()][0-9A-Za-z]")
# The prefix a log collector puts before each line of the runtime's own output:
# journalctl ("Mar 03 12:00:00 host ollama[1234]: ", month names of any language,
# short-iso "2024-03-03T12:00:00+0100 host ollama[1234]: "), syslog with a year, and docker
# compose ("ollama  | ", "ollama-1  | ").
_JOURNAL = re.compile(
    r"^(?:\S{1,12}\.? {1,2}\d{1,2},? (?:\d{4} )?\d{1,2}:\d\d:\d\d(?:\.\d{1,9})?"
    r"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)"
    r" [^\s:]{1,100} [^\s:\[]{1,100}(?:\[\d{1,10}\])?: ")
_COMPOSE = re.compile(r"^[a-z0-9][\w.-]{0,60} {1,40}\| ")
# LM Studio's log lines ("[2026-01-14 11:07:45][DEBUG][LM Studio] ", "[2026-01-14 11:07:45]
# [DEBUG] ", "2026-03-03 15:29:35 [DEBUG] ") and llama.cpp's own since late 2025
# ("[50962] 0.00.054.013 I cmn  common_param: ", "0.00.352.296 I ").
_BRACKETED = re.compile(
    r"^(?:\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d{1,9})?\]\[[A-Za-z]{1,10}\]"
    r"(?:\[[^\]]{0,200}\])* ?"
    r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? \[[A-Za-z]{1,10}\] ?"
    r"|(?:\[\d{1,10}\] )?\d{1,4}\.\d\d\.\d{3}\.\d{3} [A-Z] (?:[a-z]{1,10} {1,3}\w{1,40}: )?)")
_SIZE = re.compile(r"(\d{1,12}(?:\.\d{1,6})?)[ \t]?([KMGT]i?B|B)\b", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}
_GFX = re.compile(r"(?<![A-Za-z0-9])gfx([0-9][0-9a-f]{2,3})(?![0-9a-z])", re.IGNORECASE)
# A value may follow Markdown bold a user put into a pasted line (name=**"AMD Radeon RX 7600").
_LOGFMT = re.compile(r'([A-Za-z_][\w.]{0,60})=\*{0,2}("(?:[^"\\]|\\.){0,2000}"|\S{0,2000})')

BACKEND_NAMES = {"rocm": "rocm", "hip": "rocm", "cuda": "cuda", "vulkan": "vulkan",
                 "metal": "metal", "mtl": "metal", "sycl": "sycl", "cpu": "cpu"}


def sniff_head(text: str) -> str:
    """The start of a paste that a sniffer reads, without a terminal's colour codes."""
    head = text[:SNIFF_CHARS]
    return _ANSI.sub("", head) if "\x1b" in head else head


def log_lines(text: str) -> tuple[list[str], str | None]:
    """The lines of a pasted log, bounded, each without ANSI colour codes, a CR, or the
    prefix a journal or docker compose put before it; and the problem when lines were left
    out. Line i of the result is line i + 1 of the paste."""
    lines, cut = read_lines(text)
    cleaned = []
    for line in lines:
        if "\x1b" in line:
            line = _ANSI.sub("", line)
        line = line.rstrip("\r")
        for prefix in (_COMPOSE, _JOURNAL, _BRACKETED):  # in the order they nest
            match = prefix.match(line)
            if match:
                line = line[match.end():]
        cleaned.append(line)
    return cleaned, cut


def logfmt(line: str) -> dict[str, str]:
    """The key=value pairs of a Go slog line (`time=... level=INFO msg="..." total="24 GiB"`),
    quotes removed; the first of a repeated key wins."""
    found: dict[str, str] = {}
    for match in _LOGFMT.finditer(line):
        key, value = match.group(1), match.group(2)
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1].replace('\\"', '"')
        found.setdefault(key, value)
    return found


def size_bytes(text: str | None) -> int | None:
    """'24.0 GiB', '512 MiB', '0 B', '4.58 GiB', '24560 MiB' -> bytes; None when no size."""
    if not text:
        return None
    match = _SIZE.search(text)
    if match is None:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def gfx_of(text: str | None) -> str | None:
    """The first gfx target in `text`, lower-case, without feature suffix."""
    match = _GFX.search(text or "")
    return f"gfx{match.group(1).lower()}" if match else None


def backend_name(text: str | None) -> str | None:
    """A runtime's word for a backend ("ROCm", "hip", "CUDA", "cuda_v12", "Vulkan",
    "rocm_v6", "cpu_avx2") as one of LLM_BACKENDS, or None."""
    if not text:
        return None
    word = re.split(r"[_\s\d/(]", text.strip().lower(), maxsplit=1)[0]
    return BACKEND_NAMES.get(word)


def vendor_of(name: str | None, backend: str | None, gfx_target: str | None = None
              ) -> Vendor | None:
    """The vendor of a device a runtime names."""
    if (gfx_target or "").startswith("gfx") or backend == "rocm":
        return Vendor.AMD
    if backend == "cuda":
        return Vendor.NVIDIA
    low = (name or "").lower()
    if "nvidia" in low or "geforce" in low or "quadro" in low or "tesla" in low:
        return Vendor.NVIDIA
    if "amd" in low or "radeon" in low or "instinct" in low or "radv" in low:
        return Vendor.AMD
    if "intel" in low:
        return Vendor.INTEL
    return None


def ref(source: str, index: int, line: str) -> EvidenceRef:
    """Evidence: 0-based line `index` of `source`, trimmed."""
    return EvidenceRef(source, index + 1, line.strip()[:MAX_EVIDENCE_TEXT])


_RADV = re.compile(r"\s*\((?:RADV|LLVM) [^()]{0,60}\)$")


def sighting_name(name: str | None) -> str | None:
    """A device's name as a GPU's: Mesa's "(RADV NAVI31)" after a Vulkan device's name
    left out."""
    return _RADV.sub("", name).strip() or None if name else None


def joined_sightings(first: GpuSighting, second: GpuSighting) -> GpuSighting:
    """One sighting of a GPU that two backends named: `first`'s facts, `second`'s where
    `first` has none."""
    values = {}
    sources = dict(first.field_sources)
    for name in GpuFacts.__dataclass_fields__:
        value = getattr(first.facts, name)
        if value is None and getattr(second.facts, name) is not None:
            value = getattr(second.facts, name)
            if name in second.field_sources:
                sources[name] = second.field_sources[name]
        values[name] = value
    return GpuSighting(first.layer, GpuFacts(**values), sources, first.missing_reasons)


def device_sighting(device: LlmDevice, runtime: str, where: EvidenceRef,
                    pci_bus: str | None = None) -> GpuSighting | None:
    """The GPU sighting of a device a runtime names (None for its CPU device)."""
    if device.backend == "cpu":
        return None
    vendor = vendor_of(device.name, device.backend, device.gfx_target)
    amd = vendor is Vendor.AMD
    facts = GpuFacts(
        vendor=vendor, name=sighting_name(device.name), pci_bus=pci_bus,
        gfx_target=device.gfx_target if amd else None,
        compute_capability=device.gfx_target if vendor is Vendor.NVIDIA else None,
        vram_total_bytes=device.total_bytes)
    label = where.label()
    sources = {name: label for name in ("vendor", "name", "pci_bus", "gfx_target",
                                        "compute_capability", "vram_total_bytes")
               if getattr(facts, name) is not None}
    missing = {} if pci_bus else {"pci_bus": message(
        "{runtime}'s log names the GPU without its PCI address", runtime=runtime)}
    return GpuSighting(layer=Layer.LLM, facts=facts,
                       field_sources=sources, missing_reasons=missing)


class SignalSet:
    """Signals keyed by (kind, detail, gfx target) in order of first sight, each with at most
    MAX_EVIDENCE lines."""

    def __init__(self) -> None:
        self._refs: dict[tuple[str, str | None, str | None], list[EvidenceRef]] = {}

    def add(self, kind: str, evidence: EvidenceRef, detail: str | None = None,
            gfx_target: str | None = None) -> None:
        refs = self._refs.setdefault((kind, detail, gfx_target), [])
        if len(refs) < MAX_EVIDENCE and evidence not in refs:
            refs.append(evidence)

    def add_one(self, kind: str, evidence: EvidenceRef, detail: str | None = None,
                gfx_target: str | None = None) -> None:
        """Like `add`, for a kind said once per log in several words: one signal, the first
        detail given, every line as its evidence."""
        key = next((k for k in self._refs if k[0] == kind and k[2] == gfx_target), None)
        if key is None:
            self.add(kind, evidence, detail, gfx_target)
            return
        refs = self._refs[key]
        if key[1] is None and detail is not None:
            del self._refs[key]
            key = (kind, detail, gfx_target)
            self._refs[key] = refs
        if len(refs) < MAX_EVIDENCE and evidence not in refs:
            refs.append(evidence)

    def has(self, kind: str) -> bool:
        return any(key[0] == kind for key in self._refs)

    def signals(self) -> tuple[Signal, ...]:
        return tuple(Signal(kind=k, detail=d, gfx_target=g, evidence=tuple(refs))
                     for (k, d, g), refs in self._refs.items())


def unique_devices(devices: Iterable[LlmDevice]) -> tuple[LlmDevice, ...]:
    """Devices without repeats (a log that restarted lists them again, a runner names the
    server's GPUs again); a later sighting of the same device fills what an earlier one
    lacked. A device without a number is the numbered one of its backend and name when
    there is exactly one such."""
    kept: dict[tuple[str, int | None, str | None], LlmDevice] = {}
    for device in devices:
        key = (device.backend, device.index, device.name)
        if key not in kept:
            same = [k for k in kept if k[0] == device.backend and k[2] == device.name
                    and (k[1] is None) != (device.index is None)]
            if len(same) == 1:
                key = same[0]
        old = kept.get(key)
        if old is None:
            if len(kept) < MAX_DEVICES:
                kept[key] = device
            continue
        kept[key] = LlmDevice(
            backend=old.backend, name=old.name,
            index=old.index if old.index is not None else device.index,
            gfx_target=old.gfx_target or device.gfx_target,
            total_bytes=old.total_bytes if old.total_bytes is not None else device.total_bytes,
            free_bytes=device.free_bytes if device.free_bytes is not None else old.free_bytes)
    return tuple(kept.values())


def merge_runtimes(runtimes: Sequence[LlmRuntime]) -> tuple[LlmRuntime, ...]:
    """One runtime per name: several logs of one runtime (or a log and its --list-devices)
    joined, the first known value of each field winning, lists concatenated."""
    by_name: dict[str, LlmRuntime] = {}
    for runtime in runtimes:
        old = by_name.get(runtime.name)
        if old is None:
            by_name[runtime.name] = runtime
            continue
        by_name[runtime.name] = LlmRuntime(
            name=old.name, found=old.found or runtime.found,
            version=old.version or runtime.version,
            reason=old.reason or runtime.reason,
            backend=old.backend or runtime.backend,
            gpus=tuple(dict.fromkeys(old.gpus + runtime.gpus)),
            models=tuple(dict.fromkeys(old.models + runtime.models))[:MAX_MODELS],
            devices=unique_devices(old.devices + runtime.devices),
            backends=tuple(dict.fromkeys(old.backends + runtime.backends)),
            path=old.path or runtime.path, server=old.server or runtime.server,
            torch_build=old.torch_build or runtime.torch_build,
            evidence=(old.evidence + runtime.evidence)[:MAX_EVIDENCE * 2])
    return tuple(by_name.values())


def unique_models(models: Iterable[LlmModel]) -> tuple[LlmModel, ...]:
    """Models without repeats, by name; later readings fill what earlier ones lacked."""
    kept: dict[str, LlmModel] = {}
    for model in models:
        old = kept.get(model.name)
        if old is None:
            if len(kept) < MAX_MODELS:
                kept[model.name] = model
            continue
        kept[model.name] = LlmModel(
            name=model.name,
            size_bytes=old.size_bytes if old.size_bytes is not None else model.size_bytes,
            size_vram_bytes=(model.size_vram_bytes if model.size_vram_bytes is not None
                             else old.size_vram_bytes),
            context_tokens=(old.context_tokens if old.context_tokens is not None
                            else model.context_tokens))
    return tuple(kept.values())
