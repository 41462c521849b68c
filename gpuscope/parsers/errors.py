"""Error text that people paste, wherever it appears: a traceback, a log, a line inside another
tool's output. `scan_signals` runs over every input file whatever its format;
`parse_error_text` is the importer for a file that is nothing but such text.

Signal kinds emitted (`Signal.kind`; the detail and gfx target they carry):

- ``hip.invalid_device_function``: "HIP error: invalid device function" /
  ``hipErrorInvalidDeviceFunction`` (the build has no kernel for this GPU's ISA).
- ``hip.no_binary_for_gpu``: ``hipErrorNoBinaryForGpu`` (also the 2020 wording "Coudn't find
  binary"), "HIP error: no binary for GPU", "No device code available for function".
- ``hip.no_device``: "No HIP GPUs are available", ``hipErrorNoDevice``, hipInfo's "no
  ROCm-capable device is detected".
- ``cuda.no_kernel_image``: "no kernel image is available for execution on the device", and
  PyTorch's warning "... with CUDA capability sm_90 is not compatible with the current PyTorch
  installation" (detail = the ``sm_NN`` named).
- ``cuda.driver_insufficient``: "CUDA driver version is insufficient for CUDA runtime version",
  PyTorch's "The NVIDIA driver on your system is too old (found version N)" (detail = N).
- ``torch.cuda_not_compiled``: "Torch not compiled with CUDA enabled" (a CPU build).
- ``hsa.error``: any ``HSA_STATUS_ERROR_*`` name, or old rocminfo's "Call returned 4104"
  (detail = the status name).
- ``nvml.driver_library_mismatch``: "Failed to initialize NVML: Driver/library version mismatch",
  nvidia-container-cli's "nvml error: driver/library version mismatch".
- ``nvidia.driver_not_loaded``: "NVIDIA-SMI has failed because it couldn't communicate with the
  NVIDIA driver", PyTorch's "Found no NVIDIA driver on your system".
- ``nvidia.no_devices``: "No devices were found" (nvidia-smi).
- ``rocblas.tensile_missing``: rocBLAS "Cannot read .../TensileLibrary*.dat: ... for GPU arch :
  gfx1103" (gfx target = that arch) and "Could not initialize Tensile host: No devices found".
- ``rocm.path_version``: a ``/opt/rocm-X.Y.Z`` path (detail = "X.Y.Z").
- ``kfd.not_loaded`` ("ROCk module is NOT loaded"), ``kfd.permission_denied`` ("Unable to open
  /dev/kfd read-write: Permission denied"), ``kfd.missing`` (/dev/kfd: No such file or directory).

A line such as ``torch.cuda.is_available()  False`` is not an error and yields nothing. One signal
per kind, detail and gfx target, carrying every line that shows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuscope.i18n import message
from gpuscope.model import (
    EvidenceRef,
    Fact,
    GpuFacts,
    GpuSighting,
    Layer,
    ParsedOutput,
    Signal,
    Vendor,
)
from gpuscope.parsers._common import (
    anchored_lines,
    lowered_text,
    never_raises,
)

FORMATS: tuple[str, ...] = ("error-text",)

_MAX_EVIDENCE = 20
_MAX_LINE_CHARS = 400
_MAX_LINE_SCAN = 2000  # characters of one line worth matching (a minified blob is not a log)

# Every rule below matches text holding one of these (lower-case) anchors. The scan finds
# them with `str.find` over the whole paste and reads only their lines, so a paste of any
# size costs a few passes in C and work for the lines that name an error.
# (The longer an anchor, the faster its search: each is the longest text its rules require.)
_ANCHORS = (
    "hip error:", "hiperror", "no hip gpus are available",
    "no device code available for function", "kernel image is available",
    "cudaerrornokernelimagefordevice", "with cuda capability",
    "cuda driver version is insufficient", "driver on your system", "not compiled with cuda",
    "hsa_status_error", "call returned", "driver/library version mismatch",
    "nvidia-smi has failed because", "no devices were found", "tensile", "/opt/rocm-",
    "rock module is not loaded", "/dev/kfd", "rocm-rel-",
)

# A gfx target as people and tools print it: gfx1031, gfx90a, gfx942:sramecc+:xnack-, inside
# file names (TensileLibrary_lazy_gfx1102.dat). Generic ISAs (gfx11-generic) do not match.
GFX_RE = re.compile(r"(?<![A-Za-z0-9])gfx([0-9][0-9a-f]{2,3})(?![0-9a-z-])", re.IGNORECASE)
# The same in lower-cased text, led by its literal "gfx" so that a search skips to each "gfx"
# at C speed (a pattern led by a lookbehind is tried at every character).
_GFX_LOWER = r"gfx(?<![a-z0-9]gfx){}([0-9][0-9a-f]{{2,3}})(?![0-9a-z-])"
_GFX_LOWER_RE = re.compile(_GFX_LOWER.format(""))

# Old rocminfo printed the numeric hsa_status_t ("Call returned 4104"); values from hsa.h.
_HSA_STATUS_CODES: dict[int, str] = {
    0x1000: "HSA_STATUS_ERROR",
    0x1001: "HSA_STATUS_ERROR_INVALID_ARGUMENT",
    0x1002: "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION",
    0x1003: "HSA_STATUS_ERROR_INVALID_ALLOCATION",
    0x1004: "HSA_STATUS_ERROR_INVALID_AGENT",
    0x1005: "HSA_STATUS_ERROR_INVALID_REGION",
    0x1006: "HSA_STATUS_ERROR_INVALID_SIGNAL",
    0x1007: "HSA_STATUS_ERROR_INVALID_QUEUE",
    0x1008: "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
    0x1009: "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT",
    0x100A: "HSA_STATUS_ERROR_RESOURCE_FREE",
    0x100B: "HSA_STATUS_ERROR_NOT_INITIALIZED",
}


def canonical_gfx(text: str) -> str | None:
    """The first gfx target named in `text`, lower-case, without feature suffix."""
    match = GFX_RE.search(text)
    return f"gfx{match.group(1).lower()}" if match else None


@dataclass
class _Collector:
    """Signals keyed by (kind, detail, gfx target), evidence lines in order of appearance."""

    source: str
    order: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    evidence: dict[tuple[str, str | None, str | None], list[EvidenceRef]] = field(
        default_factory=dict)

    def add(self, kind: str, index: int, line: str, detail: str | None = None,
            gfx_target: str | None = None) -> None:
        key = (kind, detail, gfx_target)
        refs = self.evidence.get(key)
        if refs is None:
            refs = self.evidence[key] = []
            self.order.append(key)
        if len(refs) < _MAX_EVIDENCE and not any(r.line == index + 1 for r in refs):
            refs.append(EvidenceRef(self.source, index + 1, line.strip()[:_MAX_LINE_CHARS]))

    def signals(self) -> tuple[Signal, ...]:
        return tuple(Signal(kind=k, detail=d, gfx_target=g,
                            evidence=tuple(self.evidence[(k, d, g)]))
                     for k, d, g in self.order)


# (lower-case text a line must hold for the pattern to match, pattern, kind, detail from the
# match, whether the gfx target named nearby applies)
_Rule = tuple[tuple[str, ...], re.Pattern[str], str,
              Callable[[re.Match[str]], str | None] | None, bool]


def _none(_match: re.Match[str]) -> str | None:
    return None


_RULES: tuple[_Rule, ...] = (
    (("hip error: invalid device function", "hiperrorinvaliddevicefunction"),
     re.compile(r"HIP error: invalid device function|hipErrorInvalidDeviceFunction",
                re.IGNORECASE), "hip.invalid_device_function", None, True),
    (("hiperrornobinaryforgpu", "hip error: no binary for gpu", "no device code available"),
     re.compile(r"hipErrorNoBinaryForGpu|HIP error: no binary for GPU|"
                r"No device code available for function", re.IGNORECASE),
     "hip.no_binary_for_gpu", None, True),
    (("no hip gpus are available", "hiperrornodevice"),
     re.compile(r"No HIP GPUs are available|hipErrorNoDevice\b|"
                r"no ROCm-capable device is detected"), "hip.no_device", None, False),
    (("kernel image is available", "cudaerrornokernelimagefordevice"),
     re.compile(r"no kernel image is available for execution on the device|"
                r"cudaErrorNoKernelImageForDevice", re.IGNORECASE),
     "cuda.no_kernel_image", None, False),
    (("with cuda capability sm_",),
     re.compile(r"with CUDA capability (sm_\d+) is not compatible with the current PyTorch"),
     "cuda.no_kernel_image", lambda m: m.group(1), False),
    (("cuda driver version is insufficient",),
     re.compile(r"CUDA driver version is insufficient for CUDA runtime version", re.IGNORECASE),
     "cuda.driver_insufficient", None, False),
    (("driver on your system is too old",),
     re.compile(r"The NVIDIA driver on your system is too old \(found version (\d+)\)"),
     "cuda.driver_insufficient", lambda m: m.group(1), False),
    (("not compiled with cuda",), re.compile(r"Torch not compiled with CUDA enabled"),
     "torch.cuda_not_compiled", None, False),
    (("hsa_status_error",), re.compile(r"\b(HSA_STATUS_ERROR(?:_[A-Z_]{1,60})?)\b"), "hsa.error",
     lambda m: m.group(1).rstrip("_"), False),
    (("call returned",), re.compile(r"Call returned (\d{4})\b"), "hsa.error",
     lambda m: _HSA_STATUS_CODES.get(int(m.group(1))), False),
    (("driver/library version mismatch",),
     re.compile(r"driver/library version mismatch", re.IGNORECASE),
     "nvml.driver_library_mismatch", None, False),
    (("nvidia-smi has failed because", "driver on your system"),
     re.compile(r"NVIDIA-SMI has failed because it couldn.{1,3}t communicate with the NVIDIA "
                r"driver|Found no NVIDIA driver on your system"),
     "nvidia.driver_not_loaded", None, False),
    (("no devices were found",), re.compile(r"^[ \t]*No devices were found[ \t]*$"),
     "nvidia.no_devices", None, False),
    (("tensile host",), re.compile(r"Could not initialize Tensile host: No devices found"),
     "rocblas.tensile_missing", None, False),
    (("rock module is not loaded",), re.compile(r"ROCk module is NOT loaded"), "kfd.not_loaded",
     None, False),
    (("/dev/kfd",), re.compile(r"Unable to open /dev/kfd read-write: Permission denied"),
     "kfd.permission_denied", None, False),
    (("/dev/kfd",),
     re.compile(r"(?:Unable to open )?/dev/kfd(?: read-write)?: No such file or directory"),
     "kfd.missing", None, False),
)

# rocBLAS: "Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or
# directory for GPU arch : gfx1103". Found by its end; the start is checked with `in`.
_TENSILE_ARCH_RE = re.compile(r"for GPU arch[ \t]*:[ \t]*(\S{1,40})", re.IGNORECASE)
_ROCM_PATH_RE = re.compile(
    r"(?:/opt/rocm-|/(?:compute-)?rocm-rel-)(\d{1,4}\.\d{1,4}(?:\.\d{1,6})?)"
    r"(?![\d.]{0,20}\d)")


def _unique_target(lowered: str) -> str | None:
    """The gfx target of the text when it names exactly one (a list of many names none)."""
    found = _GFX_LOWER_RE.search(lowered)
    if found is None:
        return None
    # Another target: a "gfx" not followed by this one's digits (and their end).
    other = re.compile(_GFX_LOWER.format(f"(?!{found.group(1)}(?![0-9a-z-]))"))
    return None if other.search(lowered, found.start() + 1) else f"gfx{found.group(1)}"


def scan_signals(text: str, source: str) -> tuple[Signal, ...]:
    """Every error condition this text shows, one signal per kind/detail/target. Never raises."""
    try:
        return _scan(text, source)
    except Exception:  # a scanner bug must not lose the file's parse
        return ()


def _scan(text: str, source: str) -> tuple[Signal, ...]:
    out = _Collector(source)
    lowered = lowered_text(text)
    text_target: str | None = None
    text_target_known = False
    for index, line, _end in anchored_lines(text, lowered, _ANCHORS, max_per_anchor=200,
                                            max_chars=_MAX_LINE_SCAN):
        low = line.lower()
        if "tensile" in low and "cannot read" in low:
            tensile = _TENSILE_ARCH_RE.search(line)
            if tensile:
                out.add("rocblas.tensile_missing", index, line,
                        gfx_target=canonical_gfx(tensile.group(1)))
        if "/opt/rocm-" in line or "rocm-rel-" in line:
            for match in _ROCM_PATH_RE.finditer(line):
                out.add("rocm.path_version", index, line, detail=match.group(1))
        for needs, pattern, kind, detail_of, takes_target in _RULES:
            if line.isascii() and not any(need in low for need in needs):
                continue  # (a cheap test; other characters may match case-insensitively)
            for match in pattern.finditer(line):
                detail = (detail_of or _none)(match)
                if kind == "hsa.error" and detail is None:
                    continue  # "Call returned N" with N not an hsa_status_t error
                target = None
                if takes_target:
                    target = canonical_gfx(line)
                    if target is None:
                        if not text_target_known:
                            text_target = _unique_target(lowered)
                            text_target_known = True
                        target = text_target
                out.add(kind, index, line, detail=detail, gfx_target=target)
    return out.signals()


@never_raises("error-text")
def parse_error_text(text: str, source: str) -> ParsedOutput:
    """A file that is only error text (a traceback, a library's complaint). Never raises.

    Besides the signals, a ``/opt/rocm-X.Y.Z`` path names the installed ROCm: when the text
    names exactly one such version it becomes the ``rocm_version`` stack fact."""
    signals = scan_signals(text, source)
    facts: list[Fact] = []
    versions = [s for s in signals if s.kind == "rocm.path_version"]
    if len(versions) == 1 and versions[0].evidence:
        facts.append(Fact("rocm_version", versions[0].detail,
                          source=versions[0].evidence[0].label()))
    problems: tuple[str, ...] = ()
    if len(versions) > 1:
        problems = ("several /opt/rocm-X.Y.Z versions named: "
                    + ", ".join(str(s.detail) for s in versions),)
    return ParsedOutput(format="error-text", source=source, signals=signals,
                        stack_facts=tuple(facts), problems=problems,
                        sightings=_devices_named(signals))


# Errors that a library raised on a device of the gfx target they name: that device exists.
_DEVICE_ERRORS = ("rocblas.tensile_missing", "hip.no_binary_for_gpu",
                  "hip.invalid_device_function")


def _devices_named(signals: tuple[Signal, ...]) -> tuple[GpuSighting, ...]:
    """The GPUs an error names by their gfx target (rocBLAS: "... for GPU arch : gfx906"):
    ROCm ran on them. One per target."""
    found: dict[str, GpuSighting] = {}
    for signal in signals:
        target = signal.gfx_target
        if signal.kind not in _DEVICE_ERRORS or target is None or target in found:
            continue
        where = signal.evidence[0].label() if signal.evidence else ""
        found[target] = GpuSighting(
            layer=Layer.ROCM, facts=GpuFacts(vendor=Vendor.AMD, gfx_target=target),
            field_sources={"vendor": where, "gfx_target": where},
            missing_reasons={"pci_bus": message(
                "an error message names the GPU by its gfx target only")})
        if len(found) >= 16:
            break
    return tuple(found.values())
