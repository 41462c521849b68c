"""Live AMD readings for the telemetry sampler, from ROCm's AMD SMI library (`import amdsmi`).

`AmdsmiSession` initialises amdsmi once (`amdsmi_init(INIT_AMD_GPUS)`) and shuts it down at
`close`; it hands out one `AmdsmiDeviceReader` per GPU, found by PCI address. A reader finds its
capabilities once, by a trial read of every query when it is made: consumer Radeons answer
NOT_SUPPORTED to many getters, and a query that does (or answers "N/A") is remembered as
unsupported with its reason, logged once and not asked again. The sampler then reads that
metric from amdgpu's sysfs files instead (per metric).

Units (amdsmi.h and amdsmi_interface.py, https://github.com/ROCm/amdsmi): memory in bytes,
temperatures in °C, clocks in MHz, socket power in W, power caps in µW, PCIe speed in MT/s and
bandwidth in Mb/s; values the library cannot read come back as the string "N/A".
"""

from __future__ import annotations

import contextlib
import importlib
import io
import logging
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from gpuscope.i18n import N_, message
from gpuscope.metrics import Metric, Raw, ThrottleReason
from gpuscope.probes.amdsmi import (
    _FIELD_REASONS,
    _REASON_IMPORT_FAILED,
    _REASON_LIBRARY_MISSING,
    _REASON_NO_LIST,
    _REASON_NO_START,
    _REASON_PACKAGE_MISSING,
)
from gpuscope.probes.metric_reader import LibraryDeviceReader
from gpuscope.probes.sourced import sourced

log = logging.getLogger(__name__)

READER_NAME = "amdsmi"

# AMDSMI_STATUS_* codes that will not change while gpuscope runs.
_NOT_SUPPORTED = 2
_NOT_YET_IMPLEMENTED = 3
_NO_PERM = 10
_FILE_NOT_FOUND = 52
_PERMANENT_CODES = frozenset({_NOT_SUPPORTED, _NOT_YET_IMPLEMENTED, _NO_PERM, _FILE_NOT_FOUND})

# amdsmi_interface.AMDSMI_MAX_FAN_SPEED: fan speed is 0..255 unless the GPU says otherwise.
_DEFAULT_FAN_MAX = 255

# amdgpu's ASIC-independent throttler bits (SMU_THROTTLER_*_BIT, drivers/gpu/drm/amd/pm/swsmu/
# inc/amdgpu_smu.h): 0-7 power (PPT, SPL, FPPT, SPPT), 16-23 current (TDC, EDC, APCC),
# 32-43 temperature, 44-47 VR hot and PROCHOT, 56-57 PPM and FIT.
_THROTTLER_RANGES: tuple[tuple[int, int, int], ...] = (
    (0, 16, ThrottleReason.POWER),
    (16, 32, ThrottleReason.CURRENT),
    (32, 44, ThrottleReason.THERMAL),
    (44, 48, ThrottleReason.HARDWARE),
    (48, 64, ThrottleReason.OTHER),
)


def throttle_flags_from_amdgpu(indep_throttle_status: int) -> int:
    """amdgpu's `indep_throttle_status` (gpu_metrics) -> gpuscope's neutral bits."""
    flags = 0
    for first, end, flag in _THROTTLER_RANGES:
        if indep_throttle_status & (((1 << (end - first)) - 1) << first):
            flags |= flag
    return flags


# PCIe transfer rate (GT/s = 1000 MT/s) -> generation.
_PCIE_GENERATIONS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6, 128.0: 7}


def pcie_generation_from_speed(speed: float | None) -> float | None:
    """amdsmi's pcie_speed (MT/s, 16000 -> gen 4); a small number is taken as a generation
    already, as some amdsmi versions report it."""
    if speed is None or speed <= 0:
        return None
    if speed <= 7:
        return float(int(speed))
    generation = _PCIE_GENERATIONS.get(round(speed / 1000.0, 1))
    return float(generation) if generation is not None else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None  # "N/A" and friends
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _key(answer: Any, *keys: str) -> tuple[float | None, str | None]:
    """The first numeric value of `keys` in a dict answer, with its key."""
    if not isinstance(answer, Mapping):
        return None, None
    for key in keys:
        number = _number(answer.get(key))
        if number is not None:
            return number, key
    return None, None


@dataclass(frozen=True, slots=True)
class _Query:
    """One amdsmi call giving one or more metrics. `args` name enum members ("AmdSmiClkType.GFX")
    resolved against the module at start."""

    metrics: tuple[str, ...]
    call: str
    args: tuple[str, ...]
    label: str
    extract: Callable[[Any], dict[str, float | None]]
    static: bool = False  # read once at start (VRAM total) and repeated


def _power(answer: Any) -> dict[str, float | None]:
    value, _key_used = _key(answer, "current_socket_power", "socket_power",
                            "average_socket_power")
    return {Metric.POWER_W: value}


def _throttle(answer: Any) -> dict[str, float | None]:
    """amdgpu's throttler bits where the binding keeps them. amdsmi 7.x turns both statuses into
    bools (`_validate_if_max_uint(..., isBool=True)`): throttled or not, not why, so True reads
    as ThrottleReason.OTHER."""
    if isinstance(answer, Mapping):
        for key in ("indep_throttle_status", "throttle_status"):
            raw = answer.get(key)
            if key == "indep_throttle_status" and not isinstance(raw, bool):
                bits = _number(raw)
                if bits is not None:
                    return {Metric.THROTTLE_REASONS: float(throttle_flags_from_amdgpu(int(bits)))}
                continue
            status = raw if isinstance(raw, bool) else _number(raw)
            if status is not None:
                return {Metric.THROTTLE_REASONS: float(ThrottleReason.OTHER) if status else 0.0}
    return {Metric.THROTTLE_REASONS: None}


def _pcie(answer: Any) -> dict[str, float | None]:
    metric = answer.get("pcie_metric") if isinstance(answer, Mapping) else None
    speed, _ = _key(metric, "pcie_speed")
    width, _ = _key(metric, "pcie_width")
    bandwidth, _ = _key(metric, "pcie_bandwidth")
    return {
        Metric.PCIE_GEN: pcie_generation_from_speed(speed),
        Metric.PCIE_WIDTH: width if width is not None and width > 0 else None,
        # Mb/s -> bytes/s
        Metric.PCIE_BANDWIDTH_BYTES_S: bandwidth * 125_000.0 if bandwidth is not None else None,
    }


_QUERIES: tuple[_Query, ...] = (
    _Query((Metric.GPU_UTIL_PERCENT,), "amdsmi_get_gpu_activity", (),
           "amdsmi_get_gpu_activity() gfx_activity",
           lambda a: {Metric.GPU_UTIL_PERCENT: _key(a, "gfx_activity")[0]}),
    _Query((Metric.VRAM_USED_BYTES,), "amdsmi_get_gpu_memory_usage", ("AmdSmiMemoryType.VRAM",),
           "amdsmi_get_gpu_memory_usage(VRAM)", lambda v: {Metric.VRAM_USED_BYTES: _number(v)}),
    _Query((Metric.VRAM_TOTAL_BYTES,), "amdsmi_get_gpu_memory_total", ("AmdSmiMemoryType.VRAM",),
           "amdsmi_get_gpu_memory_total(VRAM)", lambda v: {Metric.VRAM_TOTAL_BYTES: _number(v)},
           static=True),
    _Query((Metric.GTT_USED_BYTES,), "amdsmi_get_gpu_memory_usage", ("AmdSmiMemoryType.GTT",),
           "amdsmi_get_gpu_memory_usage(GTT)", lambda v: {Metric.GTT_USED_BYTES: _number(v)}),
    _Query((Metric.TEMP_EDGE_C,), "amdsmi_get_temp_metric",
           ("AmdSmiTemperatureType.EDGE", "AmdSmiTemperatureMetric.CURRENT"),
           "amdsmi_get_temp_metric(EDGE, CURRENT)", lambda v: {Metric.TEMP_EDGE_C: _number(v)}),
    _Query((Metric.TEMP_JUNCTION_C,), "amdsmi_get_temp_metric",
           ("AmdSmiTemperatureType.HOTSPOT", "AmdSmiTemperatureMetric.CURRENT"),
           "amdsmi_get_temp_metric(HOTSPOT, CURRENT)",
           lambda v: {Metric.TEMP_JUNCTION_C: _number(v)}),
    _Query((Metric.TEMP_MEMORY_C,), "amdsmi_get_temp_metric",
           ("AmdSmiTemperatureType.VRAM", "AmdSmiTemperatureMetric.CURRENT"),
           "amdsmi_get_temp_metric(VRAM, CURRENT)", lambda v: {Metric.TEMP_MEMORY_C: _number(v)}),
    _Query((Metric.POWER_W,), "amdsmi_get_power_info", (),
           "amdsmi_get_power_info() socket power (W)",
           _power),
    _Query((Metric.POWER_CAP_W,), "amdsmi_get_power_cap_info", (),
           "amdsmi_get_power_cap_info() power_cap (µW)",
           lambda a: {Metric.POWER_CAP_W: (v * 1e-6 if (v := _key(a, "power_cap")[0]) is not None
                                      else None)}),
    _Query((Metric.SCLK_MHZ,), "amdsmi_get_clock_info", ("AmdSmiClkType.GFX",),
           "amdsmi_get_clock_info(GFX) clk", lambda a: {Metric.SCLK_MHZ: _key(a, "clk")[0]}),
    _Query((Metric.MCLK_MHZ,), "amdsmi_get_clock_info", ("AmdSmiClkType.MEM",),
           "amdsmi_get_clock_info(MEM) clk", lambda a: {Metric.MCLK_MHZ: _key(a, "clk")[0]}),
    _Query((Metric.FAN_RPM,), "amdsmi_get_gpu_fan_rpms", ("0",), "amdsmi_get_gpu_fan_rpms(0)",
           lambda v: {Metric.FAN_RPM: _number(v)}),
    _Query((Metric.PCIE_GEN, Metric.PCIE_WIDTH, Metric.PCIE_BANDWIDTH_BYTES_S),
           "amdsmi_get_pcie_info", (),
           "amdsmi_get_pcie_info() pcie_metric", _pcie),
    _Query((Metric.THROTTLE_REASONS,), "amdsmi_get_gpu_metrics_info", (),
           "amdsmi_get_gpu_metrics_info() indep_throttle_status", _throttle),
)


def import_amdsmi() -> tuple[Any | None, str | None]:
    """(the amdsmi module, None) or (None, why it cannot be used). Without libamd_smi.so the
    binding prints to stdout and raises KeyError (see probes/amdsmi.py): both are caught."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            module = importlib.import_module("amdsmi")
    except ImportError:
        return None, message(_REASON_PACKAGE_MISSING)
    except (KeyError, OSError):
        return None, message(_REASON_LIBRARY_MISSING)
    except Exception as exc:  # any other import failure is the reason
        return None, message(_REASON_IMPORT_FAILED, error=f"{type(exc).__name__}: {exc}")
    return module, None


class AmdsmiSession:
    """amdsmi, initialised once for every AMD GPU; `close` shuts it down."""

    name = READER_NAME

    def __init__(self, module: Any | None = None) -> None:
        self.error: str | None = None
        self.devices: dict[str, Any] = {}  # PCI bus address -> processor handle
        self._amdsmi: Any = module
        self._open = False
        if self._amdsmi is None:
            self._amdsmi, self.error = import_amdsmi()
            if self._amdsmi is None:
                return
        try:
            flags = getattr(self._amdsmi, "AmdSmiInitFlags", None)
            if flags is not None:
                self._amdsmi.amdsmi_init(flags.INIT_AMD_GPUS)
            else:
                self._amdsmi.amdsmi_init()
        except Exception as exc:  # the library's reason, as the probe words it
            self.error = message(_REASON_NO_START, error=_reason(exc))
            return
        self._open = True
        try:
            handles = list(self._amdsmi.amdsmi_get_processor_handles())
        except Exception as exc:  # as above
            self.error = message(_REASON_NO_LIST, reason=_reason(exc))
            return
        for handle in handles:
            try:
                bus = str(self._amdsmi.amdsmi_get_gpu_device_bdf(handle)).strip().lower()
            except Exception as exc:  # a GPU without an address cannot be matched; skip it
                log.info("amdsmi: a GPU without a PCI address: %s", _reason(exc))
                continue
            self.devices[bus] = handle

    @property
    def ok(self) -> bool:
        return self._open and self.error is None

    def reader(self, bus: str | None) -> AmdsmiDeviceReader | None:
        if not self.ok or not bus or bus not in self.devices:
            return None
        return AmdsmiDeviceReader(self._amdsmi, self.devices[bus], bus)

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                self._amdsmi.amdsmi_shut_down()
            except Exception as exc:  # nothing left to do
                log.debug("amdsmi_shut_down failed: %s", _reason(exc))


class AmdsmiDeviceReader(LibraryDeviceReader):
    """The metrics of one AMD GPU through amdsmi. `read` never raises. amdsmi has no "lost"
    answer (`lost` stays None): sysfs notices a lost GPU."""

    name = READER_NAME
    library = "amdsmi"
    no_value = N_("amdsmi answered N/A")

    def __init__(self, amdsmi: Any, handle: Any, bus: str) -> None:
        super().__init__(bus)
        self._amdsmi = amdsmi
        self._handle = handle
        self._static: dict[str, Raw] = {}
        self._fan_max: float = _DEFAULT_FAN_MAX
        self._discover()

    def _resolve(self, names: tuple[str, ...]) -> tuple[Any, ...] | str:
        args: list[Any] = []
        for name in names:
            if name.isdigit():
                args.append(int(name))
                continue
            owner, _, member = name.partition(".")
            enum = getattr(self._amdsmi, owner, None)
            value = getattr(enum, member, None) if enum is not None else None
            if value is None:
                return message("this amdsmi has no {name}", name=name)
            args.append(value)
        return tuple(args)

    def _discover(self) -> None:
        for query in _QUERIES:
            args = self._resolve(query.args)
            if isinstance(args, str):
                self._give_up(query.metrics, args)
                continue
            function = getattr(self._amdsmi, query.call, None)
            if function is None:
                self._give_up(query.metrics, message("this amdsmi has no {name}",
                                                     name=query.call))
                continue
            try:
                values = query.extract(function(self._handle, *args))
            except Exception as exc:  # unsupported, or transient (kept)
                if _is_permanent(exc):
                    self._give_up(query.metrics, message("{source}: {reason}",
                                                         source=query.label,
                                                         reason=_reason(exc)))
                    continue
                values = {}
            for metric in query.metrics:
                if metric in values and values[metric] is None:
                    self._give_up((metric,), message("{source}: {reason}", source=query.label,
                                                     reason=message(self.no_value)))
                    continue
                self.supported[metric] = query.label
                self._metric_query[metric] = query.label
                if query.static and metric in values:
                    value = values[metric]
                    if value is not None:
                        self._static[metric] = (value, query.label)
            if any(m in self.supported for m in query.metrics):
                self._active[query.label] = partial(self._ask, query, args)
        self._discover_fan_percent()
        self._log_unsupported()
        self.generation += 1

    def _discover_fan_percent(self) -> None:
        label = "amdsmi_get_gpu_fan_speed(0) / amdsmi_get_gpu_fan_speed_max(0)"
        speed = getattr(self._amdsmi, "amdsmi_get_gpu_fan_speed", None)
        if speed is None:
            self._give_up((Metric.FAN_PERCENT,), message("this amdsmi has no {name}",
                                                         name="amdsmi_get_gpu_fan_speed"))
            return
        try:
            speed(self._handle, 0)
        except Exception as exc:  # as in _discover
            if _is_permanent(exc):
                self._give_up((Metric.FAN_PERCENT,), message(
                    "{source}: {reason}", source="amdsmi_get_gpu_fan_speed(0)",
                    reason=_reason(exc)))
                return
        maximum = getattr(self._amdsmi, "amdsmi_get_gpu_fan_speed_max", None)
        if maximum is not None:
            try:
                value = _number(maximum(self._handle, 0))
                if value is not None and value > 0:
                    self._fan_max = value
            except Exception as exc:  # the 0..255 default stands
                log.debug("amdsmi_get_gpu_fan_speed_max: %s", _reason(exc))
        self.supported[Metric.FAN_PERCENT] = label

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        out: dict[str, Raw] = {}
        for metric in metrics:
            if metric in self._static:
                out[metric] = self._static[metric]
            elif metric == Metric.FAN_PERCENT and metric in self.supported:
                out[metric] = self._fan_percent()
        return self._read_queries(metrics, out)

    def _ask(self, query: _Query, args: tuple[Any, ...]) -> dict[str, float | None]:
        return query.extract(getattr(self._amdsmi, query.call)(self._handle, *args))

    def _failure_is_permanent(self, exc: BaseException) -> bool:
        return _is_permanent(exc)

    def _failure_reason(self, exc: BaseException) -> str:
        return _reason(exc)

    def _fan_percent(self) -> Raw:
        label = self.supported.get(Metric.FAN_PERCENT, "amdsmi_get_gpu_fan_speed(0)")
        try:
            value = _number(self._amdsmi.amdsmi_get_gpu_fan_speed(self._handle, 0))
        except Exception as exc:  # as in read()
            return None, message("{source}: {reason}", source="amdsmi_get_gpu_fan_speed(0)",
                                 reason=_reason(exc))
        return sourced(min(100.0, 100.0 * value / self._fan_max) if value is not None else None,
                       label, message(self.no_value))

    def background(self, now: float) -> None:
        """amdsmi has no slow fast-path query."""

    def processes(self) -> tuple[list[dict[str, Any]], str] | str:
        """([{pid, name, used_bytes, kind}], source), or why the processes are unknown."""
        call = "amdsmi_get_gpu_process_list"
        function = getattr(self._amdsmi, call, None)
        if function is None:
            return message("this amdsmi has no {name}", name=call)
        try:
            listed = function(self._handle)
        except Exception as exc:  # the reason is the answer
            return message("{source}: {reason}", source=call, reason=_reason(exc))
        found: list[dict[str, Any]] = []
        for entry in listed or ():
            if not isinstance(entry, Mapping):
                return message("{call} of this amdsmi returns process handles, not details",
                               call=call)
            usage = entry.get("memory_usage")
            used = _key(usage, "vram_mem")[0] if isinstance(usage, Mapping) else None
            if used is None:
                used = _number(entry.get("mem"))
            name = entry.get("name")
            pid = _number(entry.get("pid"))
            found.append({"pid": int(pid) if pid is not None else -1,
                          "name": name if isinstance(name, str) and name != "N/A" else None,
                          "used_bytes": used, "kind": ""})
        return sorted(found, key=lambda e: int(e["pid"])), call

    def close(self) -> None:
        """The session owns amdsmi; a device reader holds nothing of its own."""


def _code(exc: BaseException) -> int | None:
    get_code = getattr(exc, "get_error_code", None)
    try:
        raw = get_code() if callable(get_code) else getattr(exc, "err_code", None)
        return abs(int(raw)) if raw is not None else None
    except Exception:  # a malformed exception object
        return None


def _is_permanent(exc: BaseException) -> bool:
    if isinstance(exc, (AttributeError, TypeError)):
        return True
    if type(exc).__name__ in ("AmdSmiParameterException", "AmdSmiKeyException"):
        return True  # this binding does not take the call as gpuscope makes it
    return _code(exc) in _PERMANENT_CODES


def _reason(exc: BaseException) -> str:
    code = _code(exc)
    if code is not None and code in _FIELD_REASONS:
        return message(_FIELD_REASONS[code])
    if isinstance(exc, (AttributeError, TypeError)):
        return message("this amdsmi cannot make the call ({error})",
                       error=f"{type(exc).__name__}: {exc}")
    try:
        info = getattr(exc, "get_error_info", None)
        text = str(info()) if callable(info) else str(exc)
    except Exception:  # a malformed exception object
        text = ""
    return message("{error}", error=text or type(exc).__name__)
