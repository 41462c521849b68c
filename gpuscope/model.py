"""The data model: frozen dataclasses that every probe, view and export shares.

Units are in field names (`vram_total_bytes`, `power_cap_w`). A value nobody could read is
`None`; why it is missing lives beside it in `missing_reasons`, and where a value came from in
`field_sources`. PCI ids are lower-case hex strings with `0x` (`"0x744c"`), as in the public
`doctor --json` schema.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from gpuscope.i18n import message

JsonValue: TypeAlias = (
    bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
)


class Vendor(str, enum.Enum):
    AMD = "amd"
    NVIDIA = "nvidia"
    INTEL = "intel"
    OTHER = "other"

    @classmethod
    def from_pci_vendor_id(cls, vendor_id: str | None) -> Vendor | None:
        if vendor_id is None:
            return None
        return {
            "0x1002": cls.AMD,
            "0x1022": cls.AMD,
            "0x10de": cls.NVIDIA,
            "0x8086": cls.INTEL,
        }.get(vendor_id.lower(), cls.OTHER)


class GpuKind(str, enum.Enum):
    DISCRETE = "discrete"
    INTEGRATED = "integrated"
    VIRTUAL = "virtual"
    PARTITION = "partition"
    UNKNOWN = "unknown"


class Layer(str, enum.Enum):
    """A layer of the stack that can see a GPU (the `seen_by` vocabulary of the schema)."""

    SYSFS = "sysfs"  # the kernel driver's DRM device under /sys/class/drm
    KFD = "kfd"  # the KFD topology: what ROCm's runtime will enumerate
    AMDSMI = "amdsmi"
    NVML = "nvml"
    ROCM = "rocm"  # the ROCm runtime itself (rocminfo)
    ROCM_SMI = "rocm-smi"  # rocm-smi output (the rocm_smi library over amdgpu's sysfs)
    PCI = "pci"  # the PCI bus listing (lspci)
    OPENCL = "opencl"
    VULKAN = "vulkan"
    TORCH = "torch"
    LLM = "llm"  # an LLM runtime's own log or device list (Ollama, llama.cpp, LM Studio)
    # The Windows display driver (WDDM) as Windows lists it: the display class key in the
    # registry, Win32_VideoController, DXGI, dxdiag.
    WINDOWS = "windows"


class ProbeState(str, enum.Enum):
    OK = "ok"
    LIBRARY_MISSING = "library_missing"
    DRIVER_MISSING = "driver_missing"
    PERMISSION_DENIED = "permission_denied"
    NOT_APPLICABLE = "not_applicable"  # e.g. no AMD GPU, so nothing for KFD to see
    NOT_CAPTURED = "not_captured"  # a replayed snapshot holds no evidence for this probe
    TIMEOUT = "timeout"
    ERROR = "error"


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    OK = "ok"


class OriginKind(str, enum.Enum):
    LIVE = "live"
    REPLAY = "replay"
    IMPORTED = "imported"


@dataclass(frozen=True, slots=True)
class ProbeStatus:
    """What one probe could do: available, or unavailable with the reason and a hint."""

    name: str
    state: ProbeState
    reason: str | None = None
    hint: str | None = None

    @property
    def available(self) -> bool:
        return self.state is ProbeState.OK

    def summary(self) -> str:
        if self.available:
            return (message("available") if not self.reason
                    else message("available: {reason}", reason=self.reason))
        return message("unavailable: {reason}", reason=self.reason or self.state.value)


@dataclass(frozen=True, slots=True)
class PcieLink:
    """A PCIe link. `measured_at` says which device's link this is (the slot, or the GPU's
    internal link behind an on-board switch)."""

    current_speed_gt_s: float | None = None
    current_width: int | None = None
    max_speed_gt_s: float | None = None
    max_width: int | None = None
    measured_at: str | None = None

    @property
    def current_generation(self) -> int | None:
        return pcie_generation(self.current_speed_gt_s)

    @property
    def max_generation(self) -> int | None:
        return pcie_generation(self.max_speed_gt_s)


_PCIE_GENERATIONS: tuple[tuple[float, int], ...] = (
    (2.5, 1), (5.0, 2), (8.0, 3), (16.0, 4), (32.0, 5), (64.0, 6), (128.0, 7),
)


def pcie_generation(speed_gt_s: float | None) -> int | None:
    if speed_gt_s is None:
        return None
    for speed, generation in _PCIE_GENERATIONS:
        if abs(speed - speed_gt_s) < 0.01:
            return generation
    return None


@dataclass(frozen=True, slots=True)
class GpuFacts:
    """Static facts about one GPU as one layer saw them. Every field is optional: each layer
    knows a different part, and the inventory joins them by PCI bus address."""

    vendor: Vendor | None = None
    name: str | None = None
    # Several retail cards share one PCI id (0x744c: RX 7900 XTX, XT and GRE). When the
    # evidence cannot tell them apart, `name` names the family and this lists the candidates.
    name_candidates: tuple[str, ...] = ()
    board_name: str | None = None  # the board maker's product: "NITRO+ RX 7900 XTX Vapor-X"
    family: str | None = None  # die/codename: "Navi 31", "AD102"
    architecture: str | None = None  # "RDNA3", "Ada Lovelace"
    kind: GpuKind | None = None
    pci_bus: str | None = None  # "0000:03:00.0"
    # Windows: the DXGI adapter LUID ("0x00000000_0x0000d1a2", high part first, as the GPU
    # performance counters name it), which ties counters to the adapter.
    luid: str | None = None
    pci_vendor_id: str | None = None
    pci_device_id: str | None = None
    pci_subsystem_vendor_id: str | None = None
    pci_subsystem_device_id: str | None = None
    pci_revision: str | None = None
    gfx_target: str | None = None  # AMD, canonical: "gfx1100", no feature suffix
    compute_capability: str | None = None  # NVIDIA: "8.9"
    vram_total_bytes: int | None = None
    visible_vram_total_bytes: int | None = None
    gtt_total_bytes: int | None = None
    compute_units: int | None = None  # AMD CUs or NVIDIA SMs
    simd_count: int | None = None
    kernel_driver: str | None = None  # the bound kernel driver: "amdgpu", "nvidia", "radeon"
    driver_version: str | None = None
    uuid: str | None = None
    serial_number: str | None = None
    vbios_version: str | None = None
    boot_vga: bool | None = None
    drm_card: str | None = None  # "card0"
    drm_render_minor: int | None = None  # 128 for /dev/dri/renderD128
    kfd_node: int | None = None
    kfd_gpu_id: int | None = None
    smi_index: int | None = None  # index in amdsmi or NVML enumeration
    pcie_link: PcieLink | None = None
    max_graphics_clock_mhz: int | None = None
    max_memory_clock_mhz: int | None = None
    power_cap_w: float | None = None
    power_cap_max_w: float | None = None


# The `field_sources` prefix of a fact gpuscope took from its own device table (its public
# sources follow in parentheses).
DEVICE_TABLE_SOURCE = "gpuscope device table"


@dataclass(frozen=True, slots=True)
class GpuSighting:
    """One GPU as one layer saw it. `field_sources` maps a GpuFacts field name to where the
    value was read (`/sys/class/drm/card0/device/mem_info_vram_total`, `nvmlDeviceGetName`);
    `missing_reasons` maps a field name to why it could not be read."""

    layer: Layer
    facts: GpuFacts
    field_sources: Mapping[str, str] = field(default_factory=dict)
    missing_reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Gpu(GpuFacts):
    """One physical GPU: the sightings of all layers joined by PCI bus address."""

    index: int = 0
    seen_by: tuple[Layer, ...] = ()
    field_sources: Mapping[str, str] = field(default_factory=dict)
    missing_reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DeviceNodeAccess:
    """Whether this user can open a device node such as /dev/kfd or /dev/dri/renderD128."""

    path: str
    exists: bool
    mode: str | None = None  # "crw-rw----"
    owner_user: str | None = None
    owner_group: str | None = None
    can_open: bool | None = None
    # The user is in the node's group in /etc/group but this login session predates it,
    # so the process does not carry the group yet (log out and in, or `newgrp`).
    group_granted_not_active: bool = False
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Fact:
    """One named stack fact as a probe found it, with its source or why it is missing."""

    key: str
    value: str | int | float | bool | None
    source: str | None = None
    missing_reason: str | None = None


@dataclass(frozen=True, slots=True)
class Stack:
    rocm_version: str | None = None
    rocm_path: str | None = None
    hip_runtime_version: str | None = None
    hsa_runtime_version: str | None = None
    amdgpu_driver_version: str | None = None  # out-of-tree amdgpu-dkms; None for in-tree
    amdgpu_loaded: bool | None = None
    kfd_loaded: bool | None = None
    nvidia_driver_version: str | None = None
    cuda_driver_version: str | None = None  # the CUDA version the driver supports
    nvml_library_version: str | None = None
    amdsmi_library_version: str | None = None
    # The variables that change what frameworks see; unset variables map to None.
    environment: Mapping[str, str | None] = field(default_factory=dict)
    device_nodes: tuple[DeviceNodeAccess, ...] = ()
    # Facts that are no field of their own: "cuda_toolkit_version", "rocm_version_full",
    # "nvml_mig_enabled:0000:01:00.0", ...
    extras: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    field_sources: Mapping[str, str] = field(default_factory=dict)
    missing_reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Host:
    os: str = "unknown"  # linux | windows | wsl | macos | unknown
    distro: str | None = None
    kernel: str | None = None
    architecture: str | None = None  # "x86_64"
    cpu_model: str | None = None
    cpu_physical_cores: int | None = None
    cpu_logical_cores: int | None = None
    ram_total_bytes: int | None = None
    swap_total_bytes: int | None = None
    hostname: str | None = None
    python_version: str | None = None
    wsl: bool = False
    container: bool = False
    container_hint: str | None = None
    virtual_machine: bool = False
    virtual_machine_hint: str | None = None
    field_sources: Mapping[str, str] = field(default_factory=dict)
    missing_reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What one probe returns: its status and whatever it found. A probe never raises."""

    status: ProbeStatus
    sightings: tuple[GpuSighting, ...] = ()
    stack_facts: tuple[Fact, ...] = ()
    device_nodes: tuple[DeviceNodeAccess, ...] = ()
    host: Host | None = None


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    """Where a finding's evidence stands: a file (or command) and a 1-based line."""

    source: str  # "rocminfo.txt", "/sys/class/kfd/kfd/topology/nodes/1/properties", "nvml"
    line: int | None = None
    text: str | None = None  # the line itself, trimmed

    def label(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source


@dataclass(frozen=True, slots=True)
class Signal:
    """Something a parser recognised that the rules act on, with the lines that show it.

    `kind` is a dotted name: "kfd.not_loaded", "kfd.permission_denied",
    "hip.invalid_device_function", "hip.no_binary_for_gpu", "cuda.no_kernel_image",
    "hsa.error", "nvml.driver_library_mismatch", "nvidia.driver_not_loaded",
    "rocblas.tensile_missing", "amdgpu.init_failed", "kfd.device_unsupported",
    "kfd.pcie_atomics_missing", "platform.wsl", ... (parsers document the kinds they emit)."""

    kind: str
    detail: str | None = None
    evidence: tuple[EvidenceRef, ...] = ()
    gfx_target: str | None = None  # the target the text names, when it names one


@dataclass(frozen=True, slots=True)
class FrameworkDevice:
    index: int
    name: str | None = None
    arch: str | None = None  # gfx target without feature suffix ("gfx1100") or "sm_89"
    compute_capability: str | None = None
    total_memory_bytes: int | None = None
    pci_bus: str | None = None
    fp16: bool | None = None
    bf16: bool | None = None
    tf32: bool | None = None


@dataclass(frozen=True, slots=True)
class Framework:
    """One framework in one Python environment, as its own probe (or pasted output) saw it."""

    name: str  # "torch", "jax", "tensorflow", "onnxruntime", "torch_directml"
    version: str | None = None
    build: str = "unknown"  # rocm | cuda | cpu | xpu | mps | directml | unknown
    build_version: str | None = None  # the ROCm/HIP or CUDA version of the build
    gpu_available: bool | None = None
    arch_list: tuple[str, ...] = ()
    devices: tuple[FrameworkDevice, ...] = ()
    python: str | None = None  # the interpreter path, or "pasted collect_env" for imports
    python_version: str | None = None
    math_library_version: str | None = None  # cuDNN or MIOpen
    sdpa_backends: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()  # ONNX Runtime execution providers
    # The 256x256 matmul in a child process: "ok", "failed: <reason>", or None if not run.
    smoke_test: str | None = None
    error: str | None = None  # why the framework could not be inspected
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Interpreter:
    """One Python interpreter whose frameworks gpuscope inspected, or tried to: what lets the
    doctor tell "no interpreter has PyTorch" from "no interpreter was looked at"."""

    python: str  # the path as asked for
    inspected: bool  # the probe ran to its end and answered
    why: str | None = None  # why it was chosen: "gpuscope", "python3 on PATH", "VIRTUAL_ENV", ...
    executable: str | None = None  # sys.executable as the interpreter reported it
    python_version: str | None = None
    not_installed: tuple[str, ...] = ()  # frameworks it cannot import at all ("torch", ...)
    error: str | None = None  # why it could not be inspected
    # LLM serving packages installed there (vllm, sglang) -> version, read from metadata.
    packages: Mapping[str, str] = field(default_factory=dict)
    # PEP 668: a distribution's Python where pip refuses to install (None: not known).
    externally_managed: bool | None = None


@dataclass(frozen=True, slots=True)
class LlmModel:
    """A model an LLM runtime has loaded (Ollama's /api/ps) and how much of it sits in VRAM."""

    name: str
    size_bytes: int | None = None
    size_vram_bytes: int | None = None  # 0: it runs on the CPU; below size_bytes: partly
    context_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class LlmDevice:
    """A device an LLM runtime's build says it can use: a line of `llama-cli --list-devices`
    ("ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24000 MiB free)") or of Ollama's
    "inference compute" log line."""

    backend: str  # rocm | cuda | vulkan | metal | sycl | cpu
    name: str | None = None
    index: int | None = None  # the runtime's own device number ("ROCm0" -> 0)
    gfx_target: str | None = None  # "gfx1100", or NVIDIA's compute capability "8.9"
    total_bytes: int | None = None
    free_bytes: int | None = None


LLM_RUNTIME_NAMES = ("ollama", "llama.cpp", "lmstudio", "vllm", "sglang")
LLM_BACKENDS = ("rocm", "cuda", "vulkan", "metal", "sycl", "cpu")


@dataclass(frozen=True, slots=True)
class LlmRuntime:
    """One local LLM runtime as gpuscope found it (schema: the `llm_runtimes` list of
    `doctor --json`). Not found is a value with its reason, never an absence."""

    name: str  # one of LLM_RUNTIME_NAMES
    found: bool
    version: str | None = None
    reason: str | None = None  # why not found, or why a part could not be read
    backend: str | None = None  # the backend it uses or would use: one of LLM_BACKENDS
    gpus: tuple[int, ...] = ()  # indices into Inventory.gpus it would use
    models: tuple[LlmModel, ...] = ()  # loaded models (Ollama), with their VRAM share
    devices: tuple[LlmDevice, ...] = ()  # what its build lists
    backends: tuple[str, ...] = ()  # the backends its build carries
    # The AMD gfx targets its ROCm libraries carry (Ollama's bundled rocBLAS); empty: unknown.
    rocm_targets: tuple[str, ...] = ()
    path: str | None = None  # the binary, or the interpreter for Python packages
    server: str | None = None  # the address that answered ("http://127.0.0.1:11434")
    torch_build: str | None = None  # vLLM/SGLang: the torch build beneath (rocm | cuda | cpu)
    evidence: tuple[EvidenceRef, ...] = ()


@dataclass(frozen=True, slots=True)
class LlamaBenchResult:
    """One throughput llama.cpp reported: a `llama-bench` test ("pp512", "tg128",
    "pp512+tg128", "tg128 @ d4096") or a `llama-cli`/`llama-server` timing ("prompt eval",
    "eval"), with what it ran on as far as the text says (None: not said)."""

    tool: str  # one of gpuscope.parsers.llama_bench.TOOLS
    format: str  # one of gpuscope.parsers.llama_bench.FORMATS
    test: str
    tokens_per_s: float
    tokens_per_s_stddev: float | None = None
    samples_tokens_per_s: tuple[float, ...] = ()
    n_prompt: int | None = None
    n_gen: int | None = None
    n_depth: int | None = None
    model_type: str | None = None  # llama_model_desc: "llama 8B Q4_K - Medium"
    model_filename: str | None = None
    quantisation: str | None = None  # "Q4_K_M", "Q4_0", "IQ4_NL", "F16"
    model_size_bytes: int | None = None  # from a table: rounded to the 2 decimals shown
    model_params: int | None = None
    backend: str | None = None  # as printed: "ROCm", "ROCm,RPC", "BLAS,MTL", "Vulkan"
    backend_id: str | None = None  # one of LLM_BACKENDS, None when unknown
    n_gpu_layers: int | None = None
    gpu_name: str | None = None  # "AMD Radeon RX 7900 XTX" (several joined by ", ")
    cpu_info: str | None = None
    build_commit: str | None = None
    build_number: int | None = None
    test_time: str | None = None  # RFC 3339, UTC
    settings: Mapping[str, str] = field(default_factory=dict)  # fa, n_ubatch, type_k, ...
    line: int | None = None  # 1-based line of the text it was read from


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    """What one pasted or captured output says, in the model's terms. Parsers never raise:
    what they could not read goes into `problems`."""

    format: str  # "rocminfo", "rocm-smi-json", "nvidia-smi-xml", "collect_env", ...
    source: str  # the file name, or "pasted text"
    sightings: tuple[GpuSighting, ...] = ()
    stack_facts: tuple[Fact, ...] = ()
    # Platform facts: keys "os" (linux | windows | wsl | macos), "distro", "kernel",
    # "container", "virtual_machine".
    host_facts: tuple[Fact, ...] = ()
    frameworks: tuple[Framework, ...] = ()
    signals: tuple[Signal, ...] = ()
    problems: tuple[str, ...] = ()
    llm_runtimes: tuple[LlmRuntime, ...] = ()  # what an LLM runtime's log or output shows


@dataclass(frozen=True, slots=True)
class FrameworkRef:
    """Which framework in which interpreter a finding concerns: the structural link between
    a finding and a `Framework` (never matched on titles)."""

    name: str  # "torch"
    python: str | None = None  # the interpreter path, or "pasted collect_env"
    version: str | None = None

    @classmethod
    def of(cls, framework: Framework) -> FrameworkRef:
        return cls(framework.name, framework.python, framework.version)

    def matches(self, framework: Framework) -> bool:
        return (self.name, self.python, self.version) == (
            framework.name, framework.python, framework.version)


@dataclass(frozen=True, slots=True)
class Finding:
    id: str  # stable: "torch.arch_missing"; see the diagnosis schema
    severity: Severity
    title: str
    detail: str = ""
    # The fix in plain words; `fix_commands` the same fix as complete POSIX shell lines, each
    # runnable exactly as pasted ($USER, never a name; no prose, no <placeholders>).
    fix: str | None = None
    gpu: int | None = None  # index into the GPU list, or None for the whole system
    evidence: tuple[EvidenceRef, ...] = ()
    fix_commands: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # public URLs the finding's knowledge comes from
    framework: FrameworkRef | None = None  # for framework findings: which build it concerns


@dataclass(frozen=True, slots=True)
class DeviceIndexEntry:
    """How one GPU is numbered by each layer. `hip_index` and `cuda_index` are the indices a
    framework will use after the visible-devices variables; None with `hidden_by` when hidden."""

    pci_bus: str | None
    vendor: Vendor | None
    kind: GpuKind
    name: str | None = None
    gpu_index: int | None = None  # index into Inventory.gpus
    drm_card: str | None = None
    drm_render_minor: int | None = None
    kfd_node: int | None = None
    kfd_gpu_id: int | None = None
    smi_index: int | None = None
    hip_index: int | None = None
    cuda_index: int | None = None
    hidden_by: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    kind: OriginKind
    source: str | None = None  # the snapshot or imported file
    captured_utc: str | None = None
    gpuscope_version: str | None = None
    # How long each probe took in this run: a property of the run, not of the machine, so it
    # lives here (and `info --json` of a replay equals live apart from `origin`).
    probe_durations_s: Mapping[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        if self.kind is OriginKind.LIVE:
            return message("Live")
        if self.kind is OriginKind.REPLAY:
            return (message("Replay of {source}", source=self.source) if self.source
                    else message("Replay"))
        return (message("Imported from {source}", source=self.source) if self.source
                else message("Imported"))


@dataclass(frozen=True, slots=True)
class Inventory:
    gpus: tuple[Gpu, ...]
    stack: Stack
    host: Host
    probes: tuple[ProbeStatus, ...]
    device_index: tuple[DeviceIndexEntry, ...]
    origin: Origin


def to_jsonable(value: Any) -> JsonValue:
    """Dataclasses, enums, tuples and mappings to plain JSON values (a dataclass's properties
    are not included; its fields are, in declaration order)."""
    if isinstance(value, enum.Enum):  # before str: our enums are str subclasses
        return to_jsonable(value.value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"not JSON-able: {type(value).__name__}")


# Reading JSON that may be foreign or damaged (a report someone pasted, a worker's line, a file
# from an older gpuscope): each reader gives the value when it has the expected type, else an
# empty one, and never raises.


def json_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def json_float(value: Any) -> float | None:
    """A finite number (ints count); None for NaN, infinities, booleans and the rest."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def json_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def json_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def json_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def format_bytes(size_bytes: int | None) -> str:
    """Binary units, as GPU memory is sold: 25753026560 -> '24.0 GiB'."""
    if size_bytes is None:
        return "unknown"
    size = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")
