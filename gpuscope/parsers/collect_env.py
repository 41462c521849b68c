"""``python -m torch.utils.collect_env`` as pasted into bug reports, 2019 to 2026 layouts:
Linux, Windows, WSL and macOS; CUDA, ROCm (including TheRock's ``rocmsdk`` wheels), XPU and
CPU builds; with or without the "Collecting environment information..." banner and the warnings
people's environments print before it.

What it becomes: one `Framework` ("torch") with its build, the GPUs it lists, host facts and the
driver/runtime versions it reports. Where the GPU names come from matters: a ROCm build prints
``torch.cuda.get_device_name()`` with the gfx target ("AMD Radeon RX 7900 XTX (gfx1100)"), so
those are sightings of the torch layer; a CUDA build prints ``nvidia-smi -L`` ("GPU 0: ..."),
so those are sightings of the NVML layer, and of torch only when "Is CUDA available" is true.
The "CUDA runtime version" line is the toolkit (nvcc) collect_env found, not the driver's CUDA.

Signal kinds emitted: ``platform.wsl`` (the platform string names a microsoft-standard WSL
kernel).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import (
    Framework,
    FrameworkDevice,
    GpuFacts,
    GpuKind,
    GpuSighting,
    Layer,
    ParsedOutput,
    Vendor,
)
from gpuscope.parsers._common import (
    MAX_LINE_CHARS,
    MAX_LINES,
    Collector,
    LineReads,
    integrated_reason,
    never_raises,
    read_lines,
    virtual_function_reason,
)

FORMATS: tuple[str, ...] = ("collect_env",)

_MAX_LINE_CHARS = 400
_MAX_SCAN = 2000  # characters of a line worth matching
_MAX_GPUS = 256  # more is not one machine's collect_env
# Lines kept of a multi-line value and of the CPU section (a paste of one report many times
# over says no more than the first): a bound that leaves every real report whole.
_MAX_MORE = 1000
_KV_RE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9 _./()-]{1,60}?):(?:\s(?P<value>.*)|$)")
_GPU_LINE_RE = re.compile(r"^GPU (?P<index>\d+): (?P<name>\S.*)$")
_ARCH_RE = re.compile(r"gfx[0-9a-z]+", re.IGNORECASE)
_CANONICAL_GFX_RE = re.compile(r"^(gfx[0-9][0-9a-f]{2,3})", re.IGNORECASE)
_PLATFORM_KERNEL_RE = re.compile(
    r"^Linux-(?P<kernel>.{1,120}?)-(?:x86_64|aarch64|arm64|ppc64le|s390x|armv\w+|i[3-6]86|"
    r"riscv64)(?:-|$)")
_ARCH_SUFFIXES = ("(x86_64)", "(aarch64)", "(arm64)", "(ppc64le)", "(s390x)", "(i686)")
_NOT_A_VALUE = {"", "n/a", "none", "could not collect", "no cuda", "unknown"}

# Keys whose value may continue on the lines below, until a blank line.
_MULTILINE_KEYS = {"GPU models and configuration", "cuDNN version"}


def sniff(text: str) -> tuple[str, float] | None:
    head = text[:100_000]
    if "PyTorch version:" in head and ("Is debug build:" in head
                                       or "CUDA used to build PyTorch:" in head):
        return ("collect_env", 0.96)
    if "Collecting environment information..." in head and "PyTorch version" in head:
        return ("collect_env", 0.9)
    return None


@dataclasses.dataclass
class _Entry:
    value: str
    line: int  # 1-based
    more: list[tuple[str, int]] = dataclasses.field(default_factory=list)


# A line as `_read_entries` reads it (worked out once per distinct line): stripped, the key and
# value of a "Key: value" line (or None, ""), and whether it may go on a multi-line value (its
# stripped text has no "Key:", or is a "GPU 0: ..." line).
_Line = tuple[str, str | None, str, bool]
_BLANK: _Line = ("", None, "", True)
_CPU: _Line = ("CPU:", None, "", False)  # the CPU section's heading


def _line_of(raw: str) -> _Line:
    line = raw.rstrip()
    text = line.strip()
    if not text or text == "CPU:":
        return _CPU if text else _BLANK
    match = _KV_RE.match(line)
    goes_on = (match is None if text is line else not _KV_RE.match(text)) or (
        text.startswith("GPU ") and _gpu_listed(text) is not None)
    if match is None:
        return text, None, "", goes_on
    return text, match.group("key").strip(), (match.group("value") or "").strip(), goes_on


def _read_entries(lines: list[str]) -> tuple[dict[str, _Entry], list[tuple[str, int]]]:
    """Key/value lines (first occurrence wins) and the lines of the CPU section, from the
    first "PyTorch version:" on."""
    entries: dict[str, _Entry] = {}
    cpu: list[tuple[str, int]] = []
    more: list[tuple[str, int]] | None = None  # of the multi-line value being read
    in_cpu = False
    start = next((i for i, raw in enumerate(lines) if raw.startswith("PyTorch version:")),
                 len(lines))
    reads = LineReads(_line_of)
    remember = True
    for number, raw in enumerate(itertools.islice(lines, start, None), start=start + 1):
        info = reads[raw] if remember else _line_of(raw)
        if remember and number >= 10_000 and len(reads) >= number // 2:
            remember = False  # a paste that does not repeat its lines gains nothing from it
        if info is _BLANK:
            more = None
            in_cpu = False
            continue
        if in_cpu:
            if len(cpu) < _MAX_MORE:
                cpu.append((info[0], number))
            continue
        if more is not None:
            if info[3]:
                if len(more) < _MAX_MORE:
                    more.append((info[0], number))
                continue
            more = None
        if info is _CPU:
            in_cpu = True
            continue
        key = info[1]
        if key is None:
            continue
        if key not in entries:
            entries[key] = _Entry(info[2], number)
        if key in _MULTILINE_KEYS:
            more = entries[key].more
    return entries, cpu


def _lines(text: str) -> tuple[list[str], str | None]:
    """The first `MAX_LINES` lines without the "\r" of a CRLF, each cut to `_MAX_SCAN`."""
    return read_lines(text, MAX_LINES, min(_MAX_SCAN, MAX_LINE_CHARS))


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return None if value.lower() in _NOT_A_VALUE else value


def _truth(value: str | None) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    return None


def _build(version: str | None, cuda_raw: str | None, rocm_raw: str | None,
           xpu: bool | None, os_name: str | None, platform: str | None) -> tuple[str, str | None]:
    """(build, build_version): the wheel's local suffix first, then the "used to build" lines.

    `cuda_raw`/`rocm_raw` are the lines' values as printed (None when the line is absent):
    "None" and "N/A" mean the build has no such backend, "Could not collect" means unknown."""
    cuda, rocm = _clean(cuda_raw), _clean(rocm_raw)
    suffix = version.split("+", 1)[1].lower() if version and "+" in version else ""
    if suffix.startswith("rocm"):
        digits = re.match(r"rocm(\d+(?:\.\d+)*)", suffix)
        return "rocm", rocm or (digits.group(1) if digits else None)
    if re.match(r"cu\d+", suffix):
        digits = re.match(r"cu(\d+)(\d)$", suffix)
        return "cuda", cuda or (f"{digits.group(1)}.{digits.group(2)}" if digits else None)
    if suffix.startswith("xpu"):
        return "xpu", None
    if suffix.startswith("cpu"):
        return "cpu", None
    if rocm:
        return "rocm", rocm
    if cuda:
        return "cuda", cuda
    if xpu:
        return "xpu", None
    absent = ("none", "n/a")
    cuda_absent = cuda_raw is not None and cuda_raw.strip().lower() in absent
    rocm_absent = rocm_raw is None or rocm_raw.strip().lower() in absent
    if version is None or not (cuda_absent and rocm_absent):
        return "unknown", None
    if os_name == "macos" and platform and "arm64" in platform:
        return "mps", None  # macOS arm64 wheels carry the MPS backend and no other
    return "cpu", None


def _os_of(os_line: str | None, platform: str | None) -> str | None:
    if platform and re.search(r"microsoft-standard|-microsoft-|WSL2", platform, re.IGNORECASE):
        return "wsl"
    for text in (platform, os_line):
        if not text:
            continue
        lowered = text.lower()
        if lowered.startswith("windows") or "microsoft windows" in lowered:
            return "windows"
        if lowered.startswith("macos") or lowered.startswith("darwin") or "mac osx" in lowered:
            return "macos"
        if lowered.startswith("linux") or re.search(r"\(x86_64\)|\(aarch64\)|linux", lowered):
            return "linux"
    if os_line:  # a distribution name alone ("Ubuntu 18.04.4 LTS", 2020 layouts) is Linux
        return "linux"
    return None


def _vendor_of(name: str, build: str) -> Vendor | None:
    lowered = name.lower()
    if any(word in lowered for word in ("amd", "radeon", "instinct")) or build == "rocm":
        return Vendor.AMD
    if any(word in lowered for word in ("nvidia", "geforce", "tesla", "quadro", "titan")) \
            or build == "cuda":
        return Vendor.NVIDIA
    if "intel" in lowered or build == "xpu":
        return Vendor.INTEL
    return None


@never_raises("collect_env")
def parse(text: str, source: str) -> ParsedOutput:
    """collect_env text to a torch `Framework`, sightings, host and stack facts."""
    lines, cut = _lines(text)
    entries, cpu_lines = _read_entries(lines)
    if "PyTorch version" not in entries:
        return ParsedOutput(format="collect_env", source=source,
                            problems=("no 'PyTorch version:' line: not collect_env output",))
    out = Collector(source, lines, max_line_chars=_MAX_LINE_CHARS, cut=cut)
    ref, where = out.ref, out.where

    def value(key: str) -> str | None:
        entry = entries.get(key)
        return _clean(entry.value) if entry else None

    def raw(key: str) -> str | None:
        entry = entries.get(key)
        return entry.value if entry else None

    version = value("PyTorch version")
    platform = value("Python platform")
    os_line = value("OS")
    os_name = _os_of(os_line, platform)
    xpu = _truth(value("Is XPU available"))
    build, build_version = _build(version, raw("CUDA used to build PyTorch"),
                                  raw("ROCM used to build PyTorch"), xpu, os_name, platform)
    available = _truth(value("Is CUDA available"))
    if build == "xpu" and xpu is not None:
        available = xpu
    elif build == "mps":
        available = None  # collect_env reports CUDA's availability, not MPS's
    evidence = [ref(entries[key].line) for key in (
        "PyTorch version", "CUDA used to build PyTorch", "ROCM used to build PyTorch",
        "Is CUDA available") if key in entries]

    # ---- GPUs
    sightings: list[GpuSighting] = []
    devices: list[FrameworkDevice] = []
    gpu_entry = entries.get("GPU models and configuration")
    if gpu_entry is not None:
        gpu_lines = ([(gpu_entry.value, gpu_entry.line)] if _clean(gpu_entry.value) else []) \
            + gpu_entry.more
        if len(gpu_lines) > _MAX_GPUS:
            out.problems.append(f"more than {_MAX_GPUS} GPU lines: the rest were not read")
            gpu_lines = gpu_lines[:_MAX_GPUS]
        evidence.append(ref(gpu_entry.line))
        for device_index, (gpu_text, line) in enumerate(
                (t, i) for t, i in gpu_lines if _clean(t)):
            listed = _gpu_listed(gpu_text)
            if listed:  # nvidia-smi -L as collect_env prints it (UUIDs removed)
                number, name = listed
                sightings.append(_sighting(Layer.NVML, name, None, build, where(line),
                                           nvidia_listed=True))
                if available:
                    sightings.append(_sighting(Layer.TORCH, name, None, build, where(line)))
                    devices.append(FrameworkDevice(index=number, name=name))
                continue
            with_arch = _name_arch(gpu_text)
            name = (with_arch[0] if with_arch else gpu_text).strip()
            arch = _canonical(with_arch[1]) if with_arch else None
            pci_device_id = None
            unnamed = re.fullmatch(r"Device ([0-9a-fA-F]{4})", name)
            if unnamed:  # ROCm 3.x printed the PCI device id when it had no marketing name
                pci_device_id = f"0x{unnamed.group(1).lower()}"
            sightings.append(_sighting(Layer.TORCH, name or None, arch, build, where(line),
                                       pci_device_id=pci_device_id))
            devices.append(FrameworkDevice(index=device_index, name=name or None, arch=arch))
            if evidence[-1].line != line:
                evidence.append(ref(line))

    # ---- math library
    math_version = None
    cudnn = entries.get("cuDNN version")
    if cudnn is not None:
        candidates = [cudnn.value] + [t for t, _ in cudnn.more]
        for candidate in candidates:
            match = (re.search(r"libcudnn\.so\.(\d+(?:\.\d+)*)", candidate)
                     or re.search(r"cudnn\w*?64_(\d+)\.dll", candidate, re.IGNORECASE))
            if match:
                math_version = match.group(1)
                break
        if math_version is None and re.fullmatch(r"\d+(?:\.\d+)*", cudnn.value.strip()):
            math_version = cudnn.value.strip()
    if math_version is None:
        math_version = value("MIOpen runtime version")

    python_version = None
    python_line = value("Python version")
    if python_line:
        match = re.match(r"(\d+\.\d+(?:\.\d+)?)", python_line)
        python_version = match.group(1) if match else None

    framework = Framework(
        name="torch", version=version, build=build, build_version=build_version,
        gpu_available=available, devices=tuple(devices), python="pasted collect_env",
        python_version=python_version, math_library_version=math_version,
        error=None if version else "collect_env could not import torch (PyTorch version: N/A)",
        evidence=tuple(evidence))

    # ---- host
    os_index = entries["Python platform"].line if platform and "Python platform" in entries \
        else (entries["OS"].line if "OS" in entries else None)
    if os_name and os_index is not None:
        out.host_fact("os", os_name, where(os_index))
    if os_name == "wsl" and "Python platform" in entries:
        out.signal("platform.wsl", None, ref(entries["Python platform"].line))
    if os_line and "OS" in entries:
        distro = os_line.rstrip()
        if distro.endswith(_ARCH_SUFFIXES):
            distro = distro[:distro.rfind("(")].rstrip()
        out.host_fact("distro", distro, where(entries["OS"].line))
    if platform:
        kernel = _PLATFORM_KERNEL_RE.match(platform)
        if kernel:
            out.host_fact("kernel", kernel.group("kernel"),
                          where(entries["Python platform"].line))
    cpu = _cpu_model(cpu_lines)
    if cpu:
        out.host_fact("cpu_model", cpu[0], where(cpu[1]))

    # ---- stack
    for key, fact_key in (("HIP runtime version", "hip_runtime_version"),
                          ("Nvidia driver version", "nvidia_driver_version")):
        found = value(key)
        if found and re.match(r"\d", found):
            out.stack_fact(fact_key, found, where(entries[key].line))
    toolkit = value("CUDA runtime version")
    if toolkit:
        match = re.match(r"(\d+\.\d+)", toolkit)
        if match:  # the toolkit collect_env found (nvcc), not the driver's CUDA version
            out.stack_fact("cuda_toolkit_version", match.group(1),
                           where(entries["CUDA runtime version"].line))
    if version is None:
        out.problems.append("PyTorch version is N/A: torch could not be imported")
    return out.result("collect_env", sightings, frameworks=(framework,))


def _gpu_listed(text: str) -> tuple[int, str] | None:
    """nvidia-smi -L as collect_env prints it: "GPU 0: NAME (UUID: ...)" -> (0, NAME)."""
    match = _GPU_LINE_RE.match(text.strip())
    if match is None:
        return None
    name = match.group("name").rstrip()
    cut = name.rfind(" (UUID: ")
    if cut >= 0 and name.endswith(")") and ")" not in name[cut:-1]:
        name = name[:cut]
    return int(match.group("index")), name.strip()


def _name_arch(text: str) -> tuple[str, str] | None:
    """"AMD Radeon RX 7900 XTX (gfx1100:sramecc-)" -> (name, "gfx1100:..."'s target part)."""
    body = text.rstrip()
    start = body.lower().rfind("(gfx")
    if start < 0 or not body.endswith(")"):
        return None
    inner = body[start + 1:-1]
    arch = inner.split(":", 1)[0]
    if ")" in inner or not _ARCH_RE.fullmatch(arch):
        return None
    return body[:start].strip(), arch


def _canonical(arch: str) -> str | None:
    match = _CANONICAL_GFX_RE.match(arch)
    return match.group(1).lower() if match else None


def _sighting(layer: Layer, name: str | None, arch: str | None, build: str, where: str,
              *, pci_device_id: str | None = None, nvidia_listed: bool = False) -> GpuSighting:
    values: dict[str, Any] = {"name": name}
    vendor = Vendor.NVIDIA if nvidia_listed else _vendor_of(name or "", build)
    values["vendor"] = vendor
    if arch:
        values["gfx_target"] = arch
    if pci_device_id:
        values["pci_device_id"] = pci_device_id
    if vendor is Vendor.AMD:
        if virtual_function_reason(name, pci_device_id):
            values["kind"] = GpuKind.VIRTUAL
        elif integrated_reason(name, arch, pci_device_id):
            values["kind"] = GpuKind.INTEGRATED
    sources = {key: where for key, item in values.items() if item is not None}
    missing = {"pci_bus": message("collect_env does not print PCI addresses")}
    facts = dataclasses.replace(GpuFacts(), **{k: v for k, v in values.items() if v is not None})
    return GpuSighting(layer=layer, facts=facts, field_sources=sources, missing_reasons=missing)


def _cpu_model(cpu_lines: list[tuple[str, int]]) -> tuple[str, int] | None:
    """lscpu's "Model name:", wmic's "Name=" / "Name:", or macOS's bare brand string."""
    for text, index in cpu_lines:
        match = re.match(r"^(?:Model name|Name)\s*[:=]\s*(?P<model>.+)$", text)
        if match and match.group("model").strip():
            return match.group("model").strip(), index
    if len(cpu_lines) == 1 and ":" not in cpu_lines[0][0] and "=" not in cpu_lines[0][0]:
        return cpu_lines[0]
    return None
