"""AMD SMI probe: the AMD GPUs that ROCm's management library (`import amdsmi`) sees.

`collect_amdsmi` is the only code that touches `amdsmi`; it records each call's answer as
`{"call": ..., "value": ...}` or `{"call": ..., "error": ..., "error_class": ...,
"error_code": ...}` in plain JSON, and `parse_amdsmi` (pure) turns that into sightings.

The amdsmi wheel does not bundle libamd_smi.so: without ROCm's library, `import amdsmi` prints
"Unable to find libamd_smi.so ..." to stdout and then raises KeyError (seen with the PyPI wheel
amdsmi 7.0.2, https://pypi.org/project/amdsmi/), so the import is guarded broadly and its
output kept out of gpuscope's own stdout.
"""

from __future__ import annotations

import contextlib
import enum
import io
import re
from collections.abc import Callable, Mapping
from typing import Any

from gpuscope.evidence import System
from gpuscope.i18n import N_, message
from gpuscope.model import (
    Fact,
    GpuSighting,
    JsonValue,
    Layer,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)
from gpuscope.probes._library_calls import (
    NO_SUCH_CALL,
    LibraryCalls,
    as_dict,
    as_int,
    as_str,
)
from gpuscope.probes.sourced import SightingBuilder, recorded_reason

PROBE_NAME = "amdsmi"
LIBRARY_NAME = "amdsmi"

# The reasons are recorded in English, as the collect step words them, and read back
# translatable (`LibraryCalls.known_reasons`).
_REASON_PACKAGE_MISSING = N_(
    "amdsmi Python package not installed (pip install 'gpuscope[amd]')")
_REASON_LIBRARY_MISSING = N_("AMD SMI library not installed (part of ROCm)")
_REASON_IMPORT_FAILED = N_("importing amdsmi failed: {error}")
_REASON_NO_LIST = N_("amdsmi could not list the GPUs: {reason}")
_REASON_NO_PERMISSION = N_("no permission to use the GPUs through amdsmi")
_REASON_DRIVER_NOT_LOADED = N_("amdgpu driver not loaded")
_REASON_NO_LIBRARY = N_("amdsmi could not load a library it needs: {error}")
_REASON_NO_INIT = N_("amdsmi could not initialise: {error}")
_REASON_NO_START = N_("amdsmi could not start: {error}")

_HINT_PACKAGE_MISSING = N_(
    "Install it with `pip install 'gpuscope[amd]'`, or pip-install the copy ROCm ships in "
    "/opt/rocm/share/amd_smi so that it matches your ROCm. Without it gpuscope still reads "
    "amdgpu's sysfs and the KFD topology."
)
_HINT_LIBRARY_MISSING = N_(
    "Install ROCm's amd-smi-lib package (it provides libamd_smi.so), or point ROCM_PATH at "
    "your ROCm install. Without it gpuscope still reads amdgpu's sysfs and the KFD topology."
)

# AMDSMI_STATUS_* codes (amdsmi.h, amdsmi_wrapper.py of amdsmi 7.0.2).
_NOT_SUPPORTED = 2
_NOT_YET_IMPLEMENTED = 3
_FAIL_LOAD_MODULE = 4
_FAIL_LOAD_SYMBOL = 5
_TIMEOUT = 8
_RETRY = 9
_NO_PERM = 10
_IO = 12
_FILE_ERROR = 14
_INIT_ERROR = 18
_BUSY = 30
_NOT_FOUND = 31
_NOT_INIT = 32
_DRIVER_NOT_LOADED = 34
_NO_DATA = 40
_FILE_NOT_FOUND = 52

_FIELD_REASONS: dict[int, str] = {
    _NOT_SUPPORTED: N_("not supported by this GPU or driver"),
    _NOT_YET_IMPLEMENTED: N_("not implemented in this amdsmi"),
    _NO_PERM: N_("no permission"),
    _NOT_INIT: N_("amdsmi was not initialised"),
    _DRIVER_NOT_LOADED: _REASON_DRIVER_NOT_LOADED,
    _TIMEOUT: N_("amdsmi timed out"),
    _RETRY: N_("the GPU was busy (amdsmi asked to retry)"),
    _BUSY: N_("the GPU was busy"),
    _NO_DATA: N_("amdsmi has no data for it"),
    _NOT_FOUND: N_("amdsmi did not find it"),
    _IO: N_("amdsmi could not read the driver's files"),
    _FILE_ERROR: N_("amdsmi could not read the driver's files"),
    _FILE_NOT_FOUND: N_("the driver does not provide the file amdsmi reads"),
}

_HINTS: dict[str, str] = {
    "permission_denied": N_(
        "Add this user to the render and video groups (`sudo usermod -aG render,video $USER`), "
        "then log out and back in."
    ),
    "driver_missing": N_(
        "Load the amdgpu kernel module (`sudo modprobe amdgpu`) and read `sudo dmesg` for why "
        "it did not load."
    ),
    "error": N_("Run `amd-smi static` to see whether ROCm's own tool works on this machine."),
}

# A canonical LLVM target: gfx + major (6-9, or 10-19) + minor and stepping as hex digits.
# This rejects the decimal misformatting of some amdsmi versions ("gfx11000", "gfx9010").
_CANONICAL_GFX = re.compile(r"^gfx(?:[6-9][0-9a-f]{2}|1[0-9][0-9a-f]{2})$")

_BDF = re.compile(r"^\s*(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])\s*$")

_NOT_AVAILABLE = "N/A"


# ---------------------------------------------------------------------------------------------
# Collect: the only code that touches amdsmi.


def collect_amdsmi() -> JsonValue:
    """Ask amdsmi everything gpuscope shows, one guarded call at a time. Never raises."""
    printed = io.StringIO()
    try:
        # The binding prints to stdout when libamd_smi.so is missing; keep `--json` clean.
        with contextlib.redirect_stdout(printed):
            import amdsmi
    except ImportError as exc:
        return {
            "status": ProbeState.LIBRARY_MISSING.value, "error": _REASON_PACKAGE_MISSING,
            "error_class": type(exc).__name__, "error_message": str(exc),
        }
    except (KeyError, OSError) as exc:
        return {
            "status": ProbeState.LIBRARY_MISSING.value, "error": _REASON_LIBRARY_MISSING,
            "error_class": type(exc).__name__, "error_message": str(exc),
            "printed": printed.getvalue().strip()[-2000:],
        }
    except Exception as exc:  # any other import failure is evidence too
        return {
            "status": ProbeState.ERROR.value,
            "error": _REASON_IMPORT_FAILED.format(error=f"{type(exc).__name__}: {exc}"),
            "error_class": type(exc).__name__, "error_message": str(exc),
            "printed": printed.getvalue().strip()[-2000:],
        }

    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value}
    version = getattr(amdsmi, "__version__", None)
    if isinstance(version, str):
        answer["package_version"] = version
    try:
        flags = getattr(amdsmi, "AmdSmiInitFlags", None)
        if flags is not None:
            amdsmi.amdsmi_init(flags.INIT_AMD_GPUS)
        else:
            amdsmi.amdsmi_init()
    except Exception as exc:  # mapped to a state by the parse step
        record = _error_record(exc)
        state, reason = _init_failure(record)
        answer.update(record)
        answer.update(status=state.value, error=reason, error_message=record.get("error"))
        return answer
    try:
        answer["lib_version"] = _attempt(amdsmi, "amdsmi_get_lib_version", (), _jsonable)
        handles_record: dict[str, JsonValue] = {"call": "amdsmi_get_processor_handles"}
        answer["processor_handles"] = handles_record
        try:
            handles = list(amdsmi.amdsmi_get_processor_handles())
        except Exception as exc:  # recorded
            handles_record.update(_error_record(exc))
            answer.update(status=ProbeState.ERROR.value,
                          error=_REASON_NO_LIST.format(reason=_field_reason(handles_record)))
        else:
            handles_record["value"] = len(handles)
            answer["devices"] = [
                _collect_device(amdsmi, index, handle) for index, handle in enumerate(handles)
            ]
    finally:
        shutdown = _attempt(amdsmi, "amdsmi_shut_down", (), lambda _value: None)
        if "error" in shutdown:
            answer["shutdown"] = shutdown
    return answer


def _collect_device(amdsmi: Any, index: int, handle: Any) -> dict[str, JsonValue]:
    memory_types = getattr(amdsmi, "AmdSmiMemoryType", None)
    queries: list[tuple[str, str, tuple[Any, ...], str | None]] = [
        ("bdf", "amdsmi_get_gpu_device_bdf", (), None),
        ("uuid", "amdsmi_get_gpu_device_uuid", (), None),
        ("asic_info", "amdsmi_get_gpu_asic_info", (), None),
        ("vram_info", "amdsmi_get_gpu_vram_info", (), None),
        ("driver_info", "amdsmi_get_gpu_driver_info", (), None),
        ("vbios_info", "amdsmi_get_gpu_vbios_info", (), None),
        ("power_cap_info", "amdsmi_get_power_cap_info", (), None),
        ("kfd_info", "amdsmi_get_gpu_kfd_info", (), None),
    ]
    if memory_types is not None:
        queries.insert(3, ("memory_total_vram", "amdsmi_get_gpu_memory_total",
                           (memory_types.VRAM,), "amdsmi_get_gpu_memory_total(VRAM)"))
    fields: dict[str, JsonValue] = {}
    for key, call, extra, label in queries:
        fields[key] = _attempt(amdsmi, call, (handle, *extra), _jsonable, label)
    return {"index": index, "fields": fields}


def _error_record(exc: BaseException) -> dict[str, JsonValue]:
    code: int | None = None
    get_code = getattr(exc, "get_error_code", None)
    try:
        raw = get_code() if callable(get_code) else getattr(exc, "err_code", None)
        code = int(raw) if raw is not None else None
    except Exception:  # a malformed exception object: keep its message only
        code = None
    message: str
    try:
        get_info = getattr(exc, "get_error_info", None)
        message = str(get_info()) if callable(get_info) else str(exc)
    except Exception:  # same
        message = type(exc).__name__
    return {"error": message or type(exc).__name__, "error_class": type(exc).__name__,
            "error_code": code}


def _jsonable(value: Any, depth: int = 0) -> JsonValue:
    """amdsmi's answers (dicts of str, int, IntEnum, lists) as plain JSON."""
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, int):
        return int(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace").strip("\x00")
    if depth < 6 and isinstance(value, Mapping):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if depth < 6 and isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    return str(value)


def _init_failure(record: Mapping[str, JsonValue]) -> tuple[ProbeState, str]:
    code = as_int(record.get("error_code"))
    error = as_str(record.get("error")) or "unknown error"
    if code == _NO_PERM:
        return ProbeState.PERMISSION_DENIED, _REASON_NO_PERMISSION
    if code == _DRIVER_NOT_LOADED:
        return ProbeState.DRIVER_MISSING, _REASON_DRIVER_NOT_LOADED
    if code in (_FAIL_LOAD_MODULE, _FAIL_LOAD_SYMBOL):
        return ProbeState.ERROR, _REASON_NO_LIBRARY.format(error=error)
    if code in (_NOT_INIT, _INIT_ERROR):
        return ProbeState.ERROR, _REASON_NO_INIT.format(error=error)
    return ProbeState.ERROR, _REASON_NO_START.format(error=error)


# ---------------------------------------------------------------------------------------------
# Parse: JSON -> ProbeResult, pure.


def probe_amdsmi(system: System) -> ProbeResult:
    """The AMD SMI probe: what amdsmi sees on `system` (live, or replayed from a snapshot)."""
    return parse_amdsmi(system.library(LIBRARY_NAME, collect_amdsmi))


def parse_amdsmi(answer: JsonValue) -> ProbeResult:
    """Turn `collect_amdsmi`'s JSON into a ProbeResult. Pure; never raises on any JSON."""
    status = _CALLS.status(answer, _status_hint)
    if not isinstance(answer, dict):
        return ProbeResult(status)
    facts: list[Fact] = []
    if "lib_version" in answer:
        value, source, reason = _field(answer, "lib_version")
        version = _lib_version(value) if reason is None else None
        facts.append(Fact("amdsmi_library_version", version, source,
                          None if version else reason
                          or message("amdsmi answered {value!r}", value=value)))
    package = as_str(answer.get("package_version"))
    if package:
        facts.append(Fact("amdsmi_package_version", package, "amdsmi.__version__"))

    sightings: list[GpuSighting] = []
    devices = answer.get("devices")
    if isinstance(devices, list):
        for position, entry in enumerate(devices):
            if isinstance(entry, dict):
                sightings.append(_parse_device(entry, position))
    if status.state is ProbeState.OK and isinstance(devices, list) and not sightings:
        status = ProbeStatus(PROBE_NAME, ProbeState.OK,
                             message("amdsmi works but reports no AMD GPU"))
    return ProbeResult(status=status, sightings=tuple(sightings), stack_facts=tuple(facts))


def _status_hint(answer: Mapping[str, JsonValue], state: ProbeState) -> str | None:
    if state is ProbeState.LIBRARY_MISSING:
        package_missing = answer.get("error_class") in ("ImportError", "ModuleNotFoundError")
        return message(_HINT_PACKAGE_MISSING if package_missing else _HINT_LIBRARY_MISSING)
    hint = _HINTS.get(state.value)
    return message(hint) if hint is not None else None


def _lib_version(value: JsonValue) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    parts = as_dict(value)
    if parts is None:
        return None
    numbers = [as_int(parts.get(k)) for k in ("major", "minor", "release")]
    if any(n is None for n in numbers):
        # amdsmi 6.x named them year/major/minor/release.
        numbers = [as_int(parts.get(k)) for k in ("year", "major", "minor", "release")]
        if any(n is None for n in numbers):
            return None
    return ".".join(str(n) for n in numbers)


def _parse_device(device: Mapping[str, JsonValue], position: int) -> GpuSighting:
    index = as_int(device.get("index"))
    if index is None:
        index = position
    fields = as_dict(device.get("fields")) or {}
    sighting = SightingBuilder(Layer.AMDSMI)
    sighting.put("smi_index", index, "amdsmi_get_processor_handles")

    def take(name: str, key: str, sub: str | None, convert: Callable[[JsonValue], Any]) -> None:
        value, source, reason = _field(fields, key)
        if reason is None and sub is not None:
            record = as_dict(value)
            value = record.get(sub) if record is not None else None
        converted = convert(value) if reason is None else None
        sighting.take(name, converted, source or "amdsmi", reason or _unreadable(value))

    take("pci_bus", "bdf", None, _bdf)
    take("uuid", "uuid", None, _text)
    take("name", "asic_info", "market_name", _text)
    take("pci_vendor_id", "asic_info", "vendor_id", _pci_id)
    take("pci_device_id", "asic_info", "device_id", _pci_id)
    take("pci_subsystem_vendor_id", "asic_info", "subvendor_id", _pci_id)
    take("pci_subsystem_device_id", "asic_info", "subsystem_id", _pci_id)
    take("pci_revision", "asic_info", "rev_id", _revision)
    take("compute_units", "asic_info", "num_compute_units", _positive_int)
    if "compute_units" not in sighting.values:
        take("compute_units", "asic_info", "num_of_compute_units", _positive_int)
    take("kernel_driver", "driver_info", "driver_name", _text)
    take("driver_version", "driver_info", "driver_version", _text)
    take("vbios_version", "vbios_info", "version", _text)
    if "vbios_version" not in sighting.values:
        take("vbios_version", "vbios_info", "vbios_version_string", _text)
    take("power_cap_w", "power_cap_info", "power_cap", _microwatts_to_watts)
    take("power_cap_max_w", "power_cap_info", "max_power_cap", _microwatts_to_watts)
    take("kfd_node", "kfd_info", "node_id", _non_negative_int)
    take("kfd_gpu_id", "kfd_info", "kfd_id", _positive_int)
    _take_vram(fields, sighting)
    _take_gfx_target(fields, sighting)

    vendor = Vendor.from_pci_vendor_id(sighting.values.get("pci_vendor_id"))
    sighting.take("vendor", vendor, sighting.sources.get("pci_vendor_id") or "amdsmi",
                  sighting.missing.get("pci_vendor_id") or message("amdsmi gave no vendor id"))
    return sighting.sighting()


def _take_vram(
    fields: Mapping[str, JsonValue], sighting: SightingBuilder,
) -> None:
    value, source, reason = _field(fields, "memory_total_vram")
    total = _positive_int(value) if reason is None else None
    if total is not None:  # bytes
        sighting.put("vram_total_bytes", total, source or "amdsmi")
        return
    info, info_source, info_reason = _field(fields, "vram_info")
    info_dict = as_dict(info) if info_reason is None else None
    size_mb = _positive_int(info_dict.get("vram_size")) if info_dict is not None else None
    if size_mb is not None:  # amdsmi_vram_info_t.vram_size is in MB (amd-smi prints "MB")
        sighting.put("vram_total_bytes", size_mb * 1024 * 1024,
                     f"{info_source or 'amdsmi_get_gpu_vram_info'} (vram_size, MB)")
        return
    sighting.miss("vram_total_bytes", reason or info_reason or _unreadable(value))


def _take_gfx_target(
    fields: Mapping[str, JsonValue], sighting: SightingBuilder,
) -> None:
    value, source, reason = _field(fields, "asic_info")
    if reason is not None:
        sighting.miss("gfx_target", reason)
        return
    info = as_dict(value) or {}
    raw = info.get("target_graphics_version")
    text = _text(raw)
    if text is None:
        sighting.miss("gfx_target", _unreadable(raw))
        return
    target = text.split(":", 1)[0].strip().lower()
    if _CANONICAL_GFX.match(target):
        sighting.put("gfx_target", target,
                     f"{source or 'amdsmi_get_gpu_asic_info'} (target_graphics_version)")
    else:
        sighting.miss("gfx_target",
                      message("amdsmi reported {text!r}, not a canonical target; KFD's value is "
                              "used", text=text))


def _field_reason(record: Mapping[str, JsonValue]) -> str:
    code = as_int(record.get("error_code"))
    if code is not None and code in _FIELD_REASONS:
        return message(_FIELD_REASONS[code])
    error = as_str(record.get("error")) or as_str(record.get("error_class"))
    if not error:
        return message("amdsmi error: unknown")
    if record.get("error_class") == "AttributeError":
        return recorded_reason(error, NO_SUCH_CALL)
    return message("amdsmi error: {error}", error=error)


_CALLS = LibraryCalls(probe=PROBE_NAME, binding="amdsmi", library="amdsmi",
                      error_record=_error_record, failure_reason=_field_reason,
                      no_record=N_("not read"),
                      known_reasons=(
                          _REASON_PACKAGE_MISSING, _REASON_LIBRARY_MISSING,
                          _REASON_IMPORT_FAILED, _REASON_NO_LIST, _REASON_NO_PERMISSION,
                          _REASON_DRIVER_NOT_LOADED, _REASON_NO_LIBRARY, _REASON_NO_INIT,
                          _REASON_NO_START))
_attempt = _CALLS.attempt
_field = _CALLS.field


def _unreadable(value: JsonValue) -> str:
    if value is None or value == _NOT_AVAILABLE or value == "":
        return message("amdsmi reported N/A")
    return message("amdsmi answered {value!r}", value=value)


def _text(value: JsonValue) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if text and text != _NOT_AVAILABLE else None


def _hex_number(value: JsonValue, digits: int, smallest: int) -> str | None:
    """A number amdsmi gives as an int or a hex string ("0x744C", "744c" or 29772) written
    with `digits` hex digits ("0x744c"); None outside smallest..16**digits - 1."""
    number = as_int(value)
    if number is None and isinstance(value, str):
        text = value.strip().lower().removeprefix("0x")
        if 0 < len(text) <= digits and all(c in "0123456789abcdef" for c in text):
            number = int(text, 16)
    if number is None or not smallest <= number < 16**digits:
        return None
    return f"0x{number:0{digits}x}"


def _pci_id(value: JsonValue) -> str | None:
    return _hex_number(value, 4, 1)


def _revision(value: JsonValue) -> str | None:
    return _hex_number(value, 2, 0)


def _bdf(value: JsonValue) -> str | None:
    text = as_str(value)
    match = _BDF.match(text) if text else None
    if not match:
        return None
    domain = int(match.group(1), 16) if match.group(1) else 0
    return (f"{domain:04x}:{int(match.group(2), 16):02x}:{int(match.group(3), 16):02x}."
            f"{match.group(4)}")


def _microwatts_to_watts(value: JsonValue) -> float | None:
    number = _positive_int(value)
    # amdsmi_power_cap_info_t is in microwatts (amdsmi.h); 0 means no cap reported.
    return number / 1_000_000 if number is not None else None


def _positive_int(value: JsonValue) -> int | None:
    number = as_int(value)
    return number if number is not None and number > 0 else None


def _non_negative_int(value: JsonValue) -> int | None:
    number = as_int(value)
    return number if number is not None and number >= 0 else None
