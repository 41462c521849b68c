"""NVML probe: the NVIDIA GPUs that the driver's management library sees (through nvidia-ml-py).

`collect_nvml` is the only code that touches `pynvml`; it returns plain JSON that a snapshot
keeps. Every call's answer is recorded as `{"call": ..., "value": ...}` or
`{"call": ..., "error": ..., "error_class": "NVMLError_NotSupported", "error_code": 3}`, raw
(integers as NVML gives them), so `parse_nvml` (pure) does every conversion and a replay parses
exactly what a live run would.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from gpuscope.evidence import System
from gpuscope.i18n import N_, join, message
from gpuscope.model import (
    Fact,
    GpuKind,
    GpuSighting,
    JsonValue,
    Layer,
    PcieLink,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)
from gpuscope.parsers import nvidia_smi
from gpuscope.probes._library_calls import (
    NO_SUCH_CALL,
    LibraryCalls,
    as_dict,
    as_int,
    as_str,
)
from gpuscope.probes.sourced import SightingBuilder, recorded_reason
from gpuscope.probes.windows_collectors import is_windows

PROBE_NAME = "nvml"
LIBRARY_NAME = "nvml"

# pynvml's constants, with the values of nvml.h should an old binding lack a name.
_NVML_CLOCK_GRAPHICS = 0
_NVML_CLOCK_MEM = 2
_NVML_DEVICE_MIG_ENABLE = 1
_NVML_GPU_VIRTUALIZATION_MODE_VGPU = 2  # the device is a vGPU inside a virtual machine

# The reasons are recorded in English, as the collect step words them, and read back
# translatable (`LibraryCalls.known_reasons`).
_REASON_LIBRARY_NOT_FOUND = N_(
    "NVML library not found (libnvidia-ml.so.1, or nvml.dll on Windows): the NVIDIA driver is "
    "not installed"
)
# The words snapshots taken before nvml.dll was named still hold, read back translated.
_REASON_LIBRARY_NOT_FOUND_BEFORE = N_(
    "NVML library not found (libnvidia-ml.so.1): the NVIDIA driver is not installed")
_REASON_NOT_INSTALLED = N_("nvidia-ml-py is not installed")
_REASON_LOST = N_("a GPU fell off the bus")
_REASON_MISMATCH = N_(
    "driver/library version mismatch: the loaded kernel module and libnvidia-ml differ "
    "(reboot after a driver update)"
)
_REASON_NO_START = N_("NVML could not start: {error}")
_REASON_NO_COUNT = N_("NVML could not count the GPUs: {error}")
_REASON_DRIVER_NOT_LOADED = N_("NVIDIA driver not loaded")
_REASON_NO_PERMISSION = N_(
    "no permission to use NVML (the /dev/nvidia* device nodes are not accessible)")

# Init failures: NVML error class -> (state, reason). Others are errors with NVML's message.
_INIT_FAILURES: dict[str, tuple[ProbeState, str]] = {
    "NVMLError_LibraryNotFound": (ProbeState.LIBRARY_MISSING, _REASON_LIBRARY_NOT_FOUND),
    "NVMLError_DriverNotLoaded": (ProbeState.DRIVER_MISSING, _REASON_DRIVER_NOT_LOADED),
    "NVMLError_NoPermission": (ProbeState.PERMISSION_DENIED, _REASON_NO_PERMISSION),
    "NVMLError_GpuIsLost": (ProbeState.ERROR, _REASON_LOST),
    "NVMLError_LibRmVersionMismatch": (ProbeState.ERROR, _REASON_MISMATCH),
}

_HINTS: dict[str, str] = {
    "ImportError": N_(
        "Install nvidia-ml-py (`pip install nvidia-ml-py`); gpuscope depends on it."),
    "NVMLError_LibraryNotFound": N_(
        "Install the NVIDIA driver for this GPU (it ships libnvidia-ml.so.1, or nvml.dll on "
        "Windows); on a machine without an NVIDIA GPU nothing is wrong."
    ),
    "NVMLError_DriverNotLoaded": N_(
        "Load the kernel module (`sudo modprobe nvidia`) and read `sudo dmesg` for why it did "
        "not load: Secure Boot refuses unsigned modules, and a new kernel needs the DKMS "
        "module rebuilt."
    ),
    "NVMLError_NoPermission": N_(
        "Make /dev/nvidiactl and /dev/nvidia* readable and writable for this user; in a "
        "container, start it with the GPUs passed through (`docker run --gpus all`)."
    ),
    "NVMLError_GpuIsLost": N_(
        "Read `sudo dmesg` for Xid 79 (GPU has fallen off the bus): check the power cables "
        "and the seating of the card, then reboot."
    ),
    "NVMLError_LibRmVersionMismatch": N_(
        "Reboot, or unload and reload the nvidia kernel modules, so that the running module "
        "matches the updated user-space driver."
    ),
}

# Per-field failures: NVML error class -> why the field is missing.
_FIELD_REASONS: dict[str, str] = {
    "NVMLError_NotSupported": N_("not supported by this GPU or driver"),
    "NVMLError_NoPermission": N_("no permission"),
    "NVMLError_FunctionNotFound": N_("this driver's NVML lacks the function"),
    "NVMLError_Uninitialized": N_("NVML was not initialised"),
    "NVMLError_Timeout": N_("NVML timed out"),
    "NVMLError_GpuIsLost": N_("the GPU fell off the bus (GPU is lost)"),
    "NVMLError_InsufficientPower": N_("the GPU's external power cables are not connected"),
    "NVMLError_CorruptedInforom": N_("the GPU's infoROM is corrupted"),
    "NVMLError_ResetRequired": N_("the GPU needs a reset"),
    "NVMLError_NoData": N_("NVML has no data for it"),
    "NVMLError_NotFound": N_("NVML found nothing"),
    "NVMLError_InvalidArgument": N_("NVML rejected the query as invalid for this GPU"),
}

# PCIe generation -> transfer rate per lane (GT/s).
_PCIE_GEN_SPEED_GT_S: dict[int, float] = {
    1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0, 7: 128.0,
}

_BUS_ID = re.compile(
    r"^\s*(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])\s*$"
)


# ---------------------------------------------------------------------------------------------
# Collect: the only code that touches pynvml.


def collect_nvml() -> JsonValue:
    """Ask NVML everything gpuscope shows, one guarded call at a time. Never raises."""
    try:
        import pynvml
    except ImportError as exc:
        return {
            "status": ProbeState.LIBRARY_MISSING.value,
            "error": _REASON_NOT_INSTALLED,
            "error_class": "ImportError",
            "error_message": str(exc),
        }
    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value}
    binding = _binding_version()
    if binding is not None:
        answer["binding_version"] = binding
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # every init failure is evidence; NVML's classes are generated
        error_class = type(exc).__name__
        state, reason = _INIT_FAILURES.get(
            error_class, (ProbeState.ERROR, _REASON_NO_START.format(error=_message(exc)))
        )
        answer.update({
            "status": state.value, "error": reason, "error_class": error_class,
            "error_message": _message(exc), "error_code": _error_code(exc),
        })
        return answer
    try:
        answer["system"] = _collect_system(pynvml)
        count = _attempt(pynvml, "nvmlDeviceGetCount", (), _to_int)
        answer["device_count"] = count
        count_value = count.get("value")
        if not isinstance(count_value, int):
            error_class = str(count.get("error_class"))
            known = _INIT_FAILURES.get(error_class)
            reason = known[1] if known else _REASON_NO_COUNT.format(error=count.get("error"))
            answer.update({"status": ProbeState.ERROR.value, "error": reason,
                           "error_class": error_class})
        else:
            answer["devices"] = [_collect_device(pynvml, index) for index in range(count_value)]
    finally:
        shutdown = _attempt(pynvml, "nvmlShutdown", (), lambda _value: None)
        if "error" in shutdown:
            answer["shutdown"] = shutdown
    return answer


def _binding_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("nvidia-ml-py")
    except metadata.PackageNotFoundError:
        return None


def _collect_system(nvml: Any) -> dict[str, JsonValue]:
    system: dict[str, JsonValue] = {
        "driver_version": _attempt(nvml, "nvmlSystemGetDriverVersion", (), _to_text),
        "nvml_version": _attempt(nvml, "nvmlSystemGetNVMLVersion", (), _to_text),
    }
    # v1 falls back to a version the driver supports when libcuda is absent; v2 reads libcuda.
    cuda = _attempt(nvml, "nvmlSystemGetCudaDriverVersion", (), _to_int)
    if "error" in cuda:
        cuda_v2 = _attempt(nvml, "nvmlSystemGetCudaDriverVersion_v2", (), _to_int)
        if "error" not in cuda_v2:
            cuda = cuda_v2
    system["cuda_driver_version"] = cuda
    return system


def _collect_device(nvml: Any, index: int) -> dict[str, JsonValue]:
    handle_record: dict[str, JsonValue] = {"call": "nvmlDeviceGetHandleByIndex"}
    fields: dict[str, JsonValue] = {}
    device: dict[str, JsonValue] = {
        "index": index, "lost": False, "handle": handle_record, "fields": fields,
    }
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except Exception as exc:  # recorded, as every per-GPU failure
        handle_record.update(_error_record(exc))
        if handle_record.get("error_class") == "NVMLError_GpuIsLost":
            device.update(lost=True, lost_reason=_REASON_LOST,
                          lost_call="nvmlDeviceGetHandleByIndex")
        return device

    graphics = getattr(nvml, "NVML_CLOCK_GRAPHICS", _NVML_CLOCK_GRAPHICS)
    memory = getattr(nvml, "NVML_CLOCK_MEM", _NVML_CLOCK_MEM)
    queries: list[tuple[str, str, tuple[Any, ...], Callable[[Any], JsonValue], str | None]] = [
        ("name", "nvmlDeviceGetName", (), _to_text, None),
        ("uuid", "nvmlDeviceGetUUID", (), _to_text, None),
        ("pci_info", "nvmlDeviceGetPciInfo", (), _pci_info, None),
        ("memory_info", "nvmlDeviceGetMemoryInfo", (), _memory_info, None),
        ("cuda_compute_capability", "nvmlDeviceGetCudaComputeCapability", (), _int_list, None),
        ("vbios_version", "nvmlDeviceGetVbiosVersion", (), _to_text, None),
        ("serial", "nvmlDeviceGetSerial", (), _to_text, None),
        ("power_limit_mw", "nvmlDeviceGetPowerManagementLimit", (), _to_int, None),
        ("power_limit_constraints_mw", "nvmlDeviceGetPowerManagementLimitConstraints", (),
         _int_list, None),
        ("max_clock_graphics_mhz", "nvmlDeviceGetMaxClockInfo", (graphics,), _to_int,
         "nvmlDeviceGetMaxClockInfo(NVML_CLOCK_GRAPHICS)"),
        ("max_clock_memory_mhz", "nvmlDeviceGetMaxClockInfo", (memory,), _to_int,
         "nvmlDeviceGetMaxClockInfo(NVML_CLOCK_MEM)"),
        ("pcie_max_generation", "nvmlDeviceGetMaxPcieLinkGeneration", (), _to_int, None),
        ("pcie_max_width", "nvmlDeviceGetMaxPcieLinkWidth", (), _to_int, None),
        ("pcie_current_generation", "nvmlDeviceGetCurrPcieLinkGeneration", (), _to_int, None),
        ("pcie_current_width", "nvmlDeviceGetCurrPcieLinkWidth", (), _to_int, None),
        ("mig_mode", "nvmlDeviceGetMigMode", (), _int_list, None),
        ("virtualization_mode", "nvmlDeviceGetVirtualizationMode", (), _to_int, None),
        # The SM count. nvmlDeviceGetNumGpuCores counts CUDA cores, not SMs: not used.
        ("attributes", "nvmlDeviceGetAttributes", (), _attributes, None),
    ]
    for key, call, extra, convert, label in queries:
        record = _attempt(nvml, call, (handle, *extra), convert, label)
        fields[key] = record
        if record.get("error_class") == "NVMLError_GpuIsLost":
            # Every further call on a lost GPU fails the same way; the others still report.
            device.update(lost=True, lost_reason=_REASON_LOST, lost_call=record.get("call"))
            break
    return device


def _error_record(exc: BaseException) -> dict[str, JsonValue]:
    return {"error": _message(exc), "error_class": type(exc).__name__,
            "error_code": _error_code(exc)}


def _message(exc: BaseException) -> str:
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # pynvml's __str__ calls back into the library, which may be gone
        return type(exc).__name__


def _error_code(exc: BaseException) -> int | None:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _to_text(value: Any) -> JsonValue:
    if isinstance(value, bytes):  # old bindings return bytes
        return value.decode("utf-8", errors="replace").strip("\x00").strip()
    return str(value).strip()


def _to_int(value: Any) -> JsonValue:
    return int(value)


def _int_list(value: Any) -> JsonValue:
    return [int(item) for item in value]


def _pci_info(info: Any) -> JsonValue:
    bus_id = _to_text(getattr(info, "busId", b"") or b"")
    if not bus_id:
        bus_id = _to_text(getattr(info, "busIdLegacy", b"") or b"")
    result: dict[str, JsonValue] = {"bus_id": bus_id}
    for key, attribute in (("domain", "domain"), ("bus", "bus"), ("device", "device"),
                           ("pci_device_id", "pciDeviceId"),
                           ("pci_subsystem_id", "pciSubSystemId")):
        raw = getattr(info, attribute, None)
        result[key] = int(raw) if raw is not None else None
    return result


def _memory_info(info: Any) -> JsonValue:
    return {"total": int(info.total)}


def _attributes(attributes: Any) -> JsonValue:
    return {"multiprocessor_count": int(attributes.multiprocessorCount)}


# ---------------------------------------------------------------------------------------------
# Parse: JSON -> ProbeResult, pure.


def probe_nvml(system: System) -> ProbeResult:
    """The NVML probe: what NVML sees on `system` (live, or replayed from a snapshot); on
    Windows, nvidia-smi's table when NVML cannot be used from Python."""
    result = parse_nvml(system.library(LIBRARY_NAME, collect_nvml))
    if result.status.state is ProbeState.OK or not is_windows(system):
        return result
    return _nvidia_smi_fallback(system, result)


def _nvidia_smi_fallback(system: System, failed: ProbeResult) -> ProbeResult:
    """nvidia-smi (which the Windows driver puts in System32) read as a user would paste it:
    names, bus ids, memory and the driver version, when nvml.dll does not load here."""
    program = system.which("nvidia-smi")
    if program is None:
        return failed
    answer = system.run([program], timeout_s=10.0)
    if not answer.ok:
        return failed
    parsed = nvidia_smi.parse(answer.stdout, "nvidia-smi")
    if not parsed.sightings:
        return failed
    return ProbeResult(
        ProbeStatus(PROBE_NAME, ProbeState.OK, reason=message(
            "{count} GPU(s) from nvidia-smi; NVML from Python: {reason}",
            count=len(parsed.sightings), reason=failed.status.reason or "?")),
        sightings=parsed.sightings, stack_facts=parsed.stack_facts)


def parse_nvml(answer: JsonValue) -> ProbeResult:
    """Turn `collect_nvml`'s JSON into a ProbeResult. Pure; never raises on any JSON."""
    status = _CALLS.status(answer, _status_hint)
    if not isinstance(answer, dict):
        return ProbeResult(status)
    system = as_dict(answer.get("system")) or {}
    driver_version, driver_source, _ = _field(system, "driver_version")
    facts = _system_facts(system)

    sightings: list[GpuSighting] = []
    lost: list[str] = []
    devices = answer.get("devices")
    if isinstance(devices, list):
        for position, entry in enumerate(devices):
            device = as_dict(entry)
            if device is None:
                continue
            sighting, device_facts = _parse_device(
                device, position, as_str(driver_version), driver_source
            )
            sightings.append(sighting)
            facts.extend(device_facts)
            if device.get("lost") is True:
                lost.append(sighting.facts.pci_bus
                            or message("index {index}", index=sighting.facts.smi_index))

    if status.state is ProbeState.OK:
        if lost:
            status = ProbeStatus(
                PROBE_NAME, ProbeState.OK,
                message("{lost} of {count} GPUs lost (fell off the bus): {which}",
                        lost=len(lost), count=len(sightings), which=join(", ", lost)),
                message(_HINTS["NVMLError_GpuIsLost"]),
            )
        elif isinstance(devices, list) and not sightings:
            status = ProbeStatus(PROBE_NAME, ProbeState.OK,
                                 message("NVML works but reports no GPU"))
    return ProbeResult(status=status, sightings=tuple(sightings), stack_facts=tuple(facts))


def _status_hint(answer: Mapping[str, JsonValue], state: ProbeState) -> str | None:
    hint = _HINTS.get(as_str(answer.get("error_class")) or "")
    if hint is not None:
        return message(hint)
    if state is ProbeState.ERROR:
        return message("Run `nvidia-smi`: if it fails too, the driver installation is broken.")
    return None


def _system_facts(system: Mapping[str, JsonValue]) -> list[Fact]:
    facts: list[Fact] = []
    for key, fact_key, convert in (
        ("driver_version", "nvidia_driver_version", as_str),
        ("cuda_driver_version", "cuda_driver_version", _cuda_version),
        ("nvml_version", "nvml_library_version", as_str),
    ):
        if key not in system:
            continue
        value, source, reason = _field(system, key)
        converted = convert(value) if value is not None else None
        if converted is None and reason is None:
            reason = message("NVML answered {value!r}, not a version", value=value)
        facts.append(Fact(fact_key, converted, source, None if converted is not None else reason))
    return facts


def _cuda_version(value: JsonValue) -> str | None:
    """NVML encodes the CUDA version as 1000 * major + 10 * minor: 12040 -> "12.4"."""
    number = as_int(value)
    if number is None or number <= 0:
        return None
    return f"{number // 1000}.{(number % 1000) // 10}"


def _parse_device(
    device: Mapping[str, JsonValue],
    position: int,
    driver_version: str | None,
    driver_source: str | None,
) -> tuple[GpuSighting, list[Fact]]:
    index = as_int(device.get("index"))
    if index is None:
        index = position
    fields = as_dict(device.get("fields")) or {}
    sighting = SightingBuilder(Layer.NVML)
    sighting.put("smi_index", index, "nvmlDeviceGetHandleByIndex")
    sighting.put("vendor", Vendor.NVIDIA, "NVML (an NVIDIA-only library)")
    facts: list[Fact] = []

    lost = device.get("lost") is True
    unread_reason = message("not read")
    handle = as_dict(device.get("handle")) or {}
    if "error" in handle:
        unread_reason = message("NVML could not open this GPU: {reason}",
                                reason=_failure_reason(handle))
    if lost:
        unread_reason = message(_FIELD_REASONS["NVMLError_GpuIsLost"])

    def take(field_name: str, key: str, convert: Callable[[JsonValue], Any]) -> None:
        if key not in fields:
            sighting.miss(field_name, unread_reason)
            return
        value, source, reason = _field(fields, key)
        converted = convert(value) if reason is None else None
        sighting.take(field_name, converted, source or key,
                      reason or message("NVML answered {value!r}", value=value))

    take("name", "name", _nonempty_str)
    take("uuid", "uuid", _nonempty_str)
    take("vbios_version", "vbios_version", _nonempty_str)
    take("serial_number", "serial", _nonempty_str)
    take("vram_total_bytes", "memory_info", lambda v: _positive(as_dict(v), "total"))
    take("compute_capability", "cuda_compute_capability", _compute_capability)
    take("power_cap_w", "power_limit_mw", _milliwatts_to_watts)
    take("power_cap_max_w", "power_limit_constraints_mw", _max_constraint_w)
    take("max_graphics_clock_mhz", "max_clock_graphics_mhz", _positive_int)
    take("max_memory_clock_mhz", "max_clock_memory_mhz", _positive_int)
    take("compute_units", "attributes",
         lambda v: _positive(as_dict(v), "multiprocessor_count"))
    if "compute_units" in sighting.missing and "attributes" in fields:
        sighting.miss("compute_units",
                      message("NVML reports SM counts only for MIG devices "
                              "(nvmlDeviceGetAttributes): {reason}",
                              reason=sighting.missing["compute_units"]))
    _take_pci(fields, sighting, unread_reason)
    _take_pcie_link(fields, sighting, unread_reason)

    kind, kind_source = GpuKind.DISCRETE, "NVML (assumed discrete)"
    virtualization = _field(fields, "virtualization_mode") if "virtualization_mode" in fields \
        else (None, None, None)
    if as_int(virtualization[0]) == _NVML_GPU_VIRTUALIZATION_MODE_VGPU:
        kind, kind_source = GpuKind.VIRTUAL, virtualization[1] or "nvmlDeviceGetVirtualizationMode"
    sighting.put("kind", kind, kind_source)

    if not lost and "error" not in handle:
        # Only the nvidia kernel driver answers NVML, and its version is system-wide.
        sighting.put("kernel_driver", "nvidia", "NVML (answered by the nvidia kernel driver)")
        if driver_version:
            sighting.put("driver_version", driver_version,
                         driver_source or "nvmlSystemGetDriverVersion")

    bus_label = sighting.values.get("pci_bus") or f"index{index}"
    if "mig_mode" in fields:
        mig, mig_source, _reason = _field(fields, "mig_mode")
        if isinstance(mig, list) and len(mig) >= 2:
            current, pending = as_int(mig[0]), as_int(mig[1])
            source = mig_source or "nvmlDeviceGetMigMode"
            if current == _NVML_DEVICE_MIG_ENABLE:
                facts.append(Fact(f"nvml_mig_enabled:{bus_label}", True, source))
            if current is not None and pending is not None and pending != current:
                facts.append(Fact(f"nvml_mig_pending:{bus_label}",
                                  pending == _NVML_DEVICE_MIG_ENABLE, source))
    if lost:
        facts.append(Fact(f"nvml_gpu_lost:{bus_label}", True,
                          as_str(device.get("lost_call")) or "NVML"))
        sighting.miss("kernel_driver", unread_reason)

    return sighting.sighting(), facts


def _take_pci(
    fields: Mapping[str, JsonValue],
    sighting: SightingBuilder,
    unread_reason: str,
) -> None:
    names = ("pci_bus", "pci_vendor_id", "pci_device_id", "pci_subsystem_vendor_id",
             "pci_subsystem_device_id")
    if "pci_info" not in fields:
        for name in names:
            sighting.miss(name, unread_reason)
        return
    value, source, reason = _field(fields, "pci_info")
    info = as_dict(value) if reason is None else None
    source = source or "nvmlDeviceGetPciInfo"
    found: dict[str, str | None] = dict.fromkeys(names)
    if info is not None:
        found["pci_bus"] = _normalise_bus_id(info)
        device_id = as_int(info.get("pci_device_id"))
        if device_id is not None and device_id > 0:
            found["pci_device_id"] = f"0x{(device_id >> 16) & 0xFFFF:04x}"
            found["pci_vendor_id"] = f"0x{device_id & 0xFFFF:04x}"
        subsystem = as_int(info.get("pci_subsystem_id"))
        if subsystem is not None and subsystem > 0:
            found["pci_subsystem_device_id"] = f"0x{(subsystem >> 16) & 0xFFFF:04x}"
            found["pci_subsystem_vendor_id"] = f"0x{subsystem & 0xFFFF:04x}"
    for name in names:
        sighting.take(name, found[name], source,
                      reason or message("NVML's PCI information lacks it"))
    vendor_id = sighting.values.get("pci_vendor_id")
    if vendor_id:
        sighting.put("vendor", Vendor.from_pci_vendor_id(vendor_id), source)


def _normalise_bus_id(info: Mapping[str, JsonValue]) -> str | None:
    """NVML's "00000000:01:00.0" (32-bit domain) -> "0000:01:00.0"."""
    text = as_str(info.get("bus_id"))
    match = _BUS_ID.match(text) if text else None
    if match:
        domain = int(match.group(1), 16) if match.group(1) else 0
        return (f"{domain:04x}:{int(match.group(2), 16):02x}:{int(match.group(3), 16):02x}."
                f"{match.group(4)}")
    numbers = [as_int(info.get(k)) for k in ("domain", "bus", "device")]
    if any(n is None or n < 0 for n in numbers):
        return None
    dom, bus, dev = (n or 0 for n in numbers)
    return f"{dom:04x}:{bus:02x}:{dev:02x}.0"


def _take_pcie_link(
    fields: Mapping[str, JsonValue],
    sighting: SightingBuilder,
    unread_reason: str,
) -> None:
    parts: dict[str, int | None] = {}
    reasons: list[str] = []
    for key in ("pcie_current_generation", "pcie_current_width", "pcie_max_generation",
                "pcie_max_width"):
        if key not in fields:
            parts[key] = None
            reasons.append(unread_reason)
            continue
        value, _source, reason = _field(fields, key)
        number = as_int(value) if reason is None else None
        parts[key] = number if number is not None and number > 0 else None
        if reason:
            reasons.append(reason)
    if all(v is None for v in parts.values()):
        sighting.miss("pcie_link",
                      reasons[0] if reasons else message("NVML reported no PCIe link"))
        return
    current_gen, max_gen = parts["pcie_current_generation"], parts["pcie_max_generation"]
    # An idle NVIDIA GPU drops its link to a lower generation; "current" is a moment's value.
    link = PcieLink(
        current_speed_gt_s=_PCIE_GEN_SPEED_GT_S.get(current_gen) if current_gen else None,
        current_width=parts["pcie_current_width"],
        max_speed_gt_s=_PCIE_GEN_SPEED_GT_S.get(max_gen) if max_gen else None,
        max_width=parts["pcie_max_width"],
        measured_at="NVML",
    )
    sighting.put("pcie_link", link, "nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}")


def _failure_reason(record: Mapping[str, JsonValue]) -> str:
    error_class = as_str(record.get("error_class")) or ""
    if error_class in _FIELD_REASONS:
        return message(_FIELD_REASONS[error_class])
    error = as_str(record.get("error")) or error_class
    if not error:
        return message("NVML error: unknown error")
    if error_class == "AttributeError":
        return recorded_reason(error, NO_SUCH_CALL)
    return message("NVML error: {error}", error=error)


_CALLS = LibraryCalls(probe=PROBE_NAME, binding="nvidia-ml-py", library="NVML",
                      error_record=_error_record, failure_reason=_failure_reason,
                      no_record=N_("NVML's answer holds no such record"),
                      known_reasons=(
                          _REASON_LIBRARY_NOT_FOUND, _REASON_LIBRARY_NOT_FOUND_BEFORE,
                          _REASON_NOT_INSTALLED, _REASON_LOST,
                          _REASON_MISMATCH, _REASON_DRIVER_NOT_LOADED, _REASON_NO_PERMISSION,
                          _REASON_NO_START, _REASON_NO_COUNT))
_attempt = _CALLS.attempt
_field = _CALLS.field


def _compute_capability(value: JsonValue) -> str | None:
    if isinstance(value, list) and len(value) == 2:
        major, minor = as_int(value[0]), as_int(value[1])
        if major is not None and minor is not None and major > 0 and minor >= 0:
            return f"{major}.{minor}"
    return None


def _milliwatts_to_watts(value: JsonValue) -> float | None:
    number = as_int(value)
    return number / 1000.0 if number is not None and number > 0 else None


def _max_constraint_w(value: JsonValue) -> float | None:
    if isinstance(value, list) and len(value) == 2:
        return _milliwatts_to_watts(value[1])
    return None


def _positive(mapping: Mapping[str, JsonValue] | None, key: str) -> int | None:
    return _positive_int(mapping.get(key)) if mapping is not None else None


def _positive_int(value: JsonValue) -> int | None:
    number = as_int(value)
    return number if number is not None and number > 0 else None


def _nonempty_str(value: JsonValue) -> str | None:
    text = as_str(value)
    return text.strip() if text and text.strip() else None
