"""Live NVIDIA readings for the telemetry sampler, from NVML (nvidia-ml-py's `pynvml`).

`NvmlSession` initialises NVML once and shuts it down at `close`; it hands out one
`NvmlDeviceReader` per GPU. A reader finds its capabilities once, by a trial read of every
query when it is made: a query NVML answers with NotSupported, NoPermission or
FunctionNotFound (or that this binding lacks) is remembered as unsupported with its reason,
logged once and never asked again. GpuIsLost marks the GPU lost (every later call on it fails
the same way) until a call answers again.

NVML takes a driver-wide lock for each call and some calls are slow (the process lists take
milliseconds, `nvmlDeviceGetPcieThroughput` samples a counter over 20 ms), so those run in
`background()` / `processes()`, which the sampler calls off the fast path, at a lower rate.

Units (nvml.h; https://docs.nvidia.com/deploy/nvml-api/): power and limits in mW, clocks in
MHz, temperatures in °C, memory in bytes, PCIe throughput in KB/s (KiB, as nvidia-smi and nvtop
scale it).
"""

from __future__ import annotations

import importlib
import logging
import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import Any

from gpuscope.i18n import N_, join, message
from gpuscope.metrics import Metric, Raw, ThrottleReason
from gpuscope.probes.metric_reader import LibraryDeviceReader
from gpuscope.probes.nvml import (
    _FIELD_REASONS,
    _INIT_FAILURES,
    _REASON_LIBRARY_NOT_FOUND,
    _REASON_NO_COUNT,
    _REASON_NO_START,
)
from gpuscope.probes.sourced import sourced

log = logging.getLogger(__name__)

READER_NAME = "nvml"

# nvml.h constants, for bindings that lack a name.
_NVML_TEMPERATURE_GPU = 0
_NVML_CLOCK_GRAPHICS = 0
_NVML_CLOCK_MEM = 2
_NVML_FI_DEV_MEMORY_TEMP = 82

# NVML return codes.
_INVALID_ARGUMENT = 2
_NOT_SUPPORTED = 3
_NO_PERMISSION = 4
_NOT_FOUND = 6
_FUNCTION_NOT_FOUND = 13
_GPU_IS_LOST = 15
_PERMANENT_CODES = frozenset({_INVALID_ARGUMENT, _NOT_SUPPORTED, _NO_PERMISSION, _NOT_FOUND,
                              _FUNCTION_NOT_FOUND})

REASON_LOST = N_("GPU fell off the bus (NVML: GPU is lost)")
# RX and TX take turns: each is refreshed about once a second.
PCIE_THROUGHPUT_INTERVAL_S = 0.5
_THROUGHPUT_COUNTERS: tuple[tuple[str, str, int, str], ...] = (
    (Metric.PCIE_RX_BYTES_S, "NVML_PCIE_UTIL_RX_BYTES", 1, "RX"),
    (Metric.PCIE_TX_BYTES_S, "NVML_PCIE_UTIL_TX_BYTES", 0, "TX"),
)

# nvmlClocksEventReason* bits (nvml.h) -> the neutral bits.
_CLOCK_EVENT_BITS: tuple[tuple[int, int], ...] = (
    (0x1, ThrottleReason.IDLE),  # GpuIdle
    (0x2, ThrottleReason.SETTING),  # ApplicationsClocksSetting
    (0x4, ThrottleReason.POWER),  # SwPowerCap
    (0x8, ThrottleReason.HARDWARE),  # HwSlowdown
    (0x10, ThrottleReason.SETTING),  # SyncBoost
    (0x20, ThrottleReason.THERMAL),  # SwThermalSlowdown
    (0x40, ThrottleReason.THERMAL | ThrottleReason.HARDWARE),  # HwThermalSlowdown
    (0x80, ThrottleReason.POWER | ThrottleReason.HARDWARE),  # HwPowerBrakeSlowdown
    (0x100, ThrottleReason.SETTING),  # DisplayClockSetting
)
_KNOWN_CLOCK_EVENT_BITS = 0x1FF


def throttle_flags_from_nvml(mask: int) -> int:
    """NVML's clocks-event (throttle) reasons bitmask -> gpuscope's neutral bits."""
    flags = 0
    for bit, flag in _CLOCK_EVENT_BITS:
        if mask & bit:
            flags |= flag
    if mask & ~_KNOWN_CLOCK_EVENT_BITS:
        flags |= ThrottleReason.OTHER
    return flags


@dataclass(frozen=True, slots=True)
class _Query:
    """One NVML call giving one or more metrics. `calls` are alternatives, newest first;
    `label` may name the one used as {call}."""

    metrics: tuple[str, ...]
    calls: tuple[str, ...]
    args: tuple[Any, ...]
    label: str
    extract: Callable[[Any], dict[str, float | None]]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _scaled(value: Any, scale: float) -> float | None:
    number = _number(value)
    return number * scale if number is not None else None


class NvmlSession:
    """NVML, initialised once for every NVIDIA GPU; `close` shuts it down."""

    name = READER_NAME

    def __init__(self, module: Any | None = None) -> None:
        self.error: str | None = None
        self.devices: dict[str, int] = {}  # PCI bus address -> NVML index
        self.broken: dict[int, str] = {}  # NVML index -> why it could not be opened
        self._handles: dict[int, Any] = {}
        self._nvml: Any = module
        self._open = False
        if self._nvml is None:
            try:
                self._nvml = importlib.import_module("pynvml")
            except ImportError as exc:
                self.error = message("nvidia-ml-py is not installed ({error})", error=str(exc))
                return
        try:
            self._nvml.nvmlInit()
        except Exception as exc:  # NVML's error classes are generated; map by name
            known = _INIT_FAILURES.get(type(exc).__name__)
            self.error = (message(known[1]) if known
                          else message(_REASON_NO_START, error=_message(exc)))
            if type(exc).__name__ == "NVMLError_LibraryNotFound":
                self.error = message(_REASON_LIBRARY_NOT_FOUND)
            return
        self._open = True
        try:
            count = int(self._nvml.nvmlDeviceGetCount())
        except Exception as exc:  # as above
            self.error = message(_REASON_NO_COUNT, error=_message(exc))
            return
        for index in range(count):
            try:
                handle = self._nvml.nvmlDeviceGetHandleByIndex(index)
                bus = _bus_id(self._nvml.nvmlDeviceGetPciInfo(handle))
            except Exception as exc:  # recorded per GPU; the others still work
                self.broken[index] = (message(REASON_LOST) if _code(exc) == _GPU_IS_LOST
                                      else message("NVML could not open GPU {index}: {error}",
                                                   index=index, error=_message(exc)))
                continue
            self._handles[index] = handle
            if bus:
                self.devices[bus] = index

    @property
    def ok(self) -> bool:
        return self._open and self.error is None

    def reader(self, bus: str | None, index: int | None = None) -> NvmlDeviceReader | None:
        """The reader of the GPU at PCI address `bus` (else NVML index `index`), or None when
        NVML does not list it."""
        if not self.ok:
            return None
        position = self.devices.get(bus) if bus else None
        if position is None and index is not None:
            position = index
        if position is None:
            return None
        if position in self.broken:
            return NvmlDeviceReader(self._nvml, None, position, bus or f"index {position}",
                                    broken=self.broken[position])
        handle = self._handles.get(position)
        if handle is None:
            return None
        return NvmlDeviceReader(self._nvml, handle, position, bus or f"index {position}")

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                self._nvml.nvmlShutdown()
            except Exception as exc:  # shutting down a broken driver: nothing left to do
                log.debug("nvmlShutdown failed: %s", _message(exc))


class NvmlDeviceReader(LibraryDeviceReader):
    """The metrics of one NVIDIA GPU. `read` never raises: failures become missing readings,
    a lost GPU sets `lost`."""

    name = READER_NAME
    library = "NVML"
    no_value = N_("NVML gave no value")

    def __init__(self, nvml: Any, handle: Any, index: int, bus: str,
                 broken: str | None = None) -> None:
        super().__init__(bus)
        self._nvml = nvml
        self._handle = handle
        self.index = index
        self._throughput: dict[str, Raw] = {}
        self._throughput_at = 0.0
        self._throughput_turn = 0
        if broken is not None:
            self.lost = broken if broken == REASON_LOST else None
            for query in self._all_queries():
                for metric in query.metrics:
                    self.unsupported[metric] = broken
            return
        self._discover()

    # ------------------------------------------------------------------ queries

    def _const(self, name: str, default: int) -> Any:
        return getattr(self._nvml, name, default)

    def _all_queries(self) -> list[_Query]:
        graphics = self._const("NVML_CLOCK_GRAPHICS", _NVML_CLOCK_GRAPHICS)
        memory = self._const("NVML_CLOCK_MEM", _NVML_CLOCK_MEM)
        gpu_sensor = self._const("NVML_TEMPERATURE_GPU", _NVML_TEMPERATURE_GPU)
        memory_temp = self._const("NVML_FI_DEV_MEMORY_TEMP", _NVML_FI_DEV_MEMORY_TEMP)
        return [
            _Query((Metric.GPU_UTIL_PERCENT,), ("nvmlDeviceGetUtilizationRates",), (),
                   "nvmlDeviceGetUtilizationRates().gpu",
                   lambda r: {Metric.GPU_UTIL_PERCENT: _number(r.gpu)}),
            _Query((Metric.VRAM_USED_BYTES, Metric.VRAM_TOTAL_BYTES),
                   ("nvmlDeviceGetMemoryInfo",), (),
                   "nvmlDeviceGetMemoryInfo()",
                   lambda r: {Metric.VRAM_USED_BYTES: _number(r.used),
                              Metric.VRAM_TOTAL_BYTES: _number(r.total)}),
            # NVML's GPU sensor is the die's own, the counterpart of amdgpu's edge sensor.
            _Query((Metric.TEMP_EDGE_C,), ("nvmlDeviceGetTemperature",), (gpu_sensor,),
                   "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)",
                   lambda v: {Metric.TEMP_EDGE_C: _number(v)}),
            # Reported by GPUs with HBM; GeForce cards answer NotSupported.
            _Query((Metric.TEMP_MEMORY_C,), ("nvmlDeviceGetFieldValues",), ([memory_temp],),
                   "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)",
                   lambda v: {Metric.TEMP_MEMORY_C: self._field_value(v)}),
            _Query((Metric.POWER_W,), ("nvmlDeviceGetPowerUsage",), (),
                   "nvmlDeviceGetPowerUsage() (mW)", lambda v: {Metric.POWER_W: _scaled(v, 1e-3)}),
            _Query((Metric.POWER_CAP_W,),
                   ("nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"), (),
                   "{call}() (mW)", lambda v: {Metric.POWER_CAP_W: _scaled(v, 1e-3)}),
            _Query((Metric.SCLK_MHZ,), ("nvmlDeviceGetClockInfo",), (graphics,),
                   "nvmlDeviceGetClockInfo(NVML_CLOCK_GRAPHICS)",
                   lambda v: {Metric.SCLK_MHZ: _number(v)}),
            _Query((Metric.MCLK_MHZ,), ("nvmlDeviceGetClockInfo",), (memory,),
                   "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)",
                   lambda v: {Metric.MCLK_MHZ: _number(v)}),
            _Query((Metric.FAN_PERCENT,), ("nvmlDeviceGetFanSpeed",), (),
                   "nvmlDeviceGetFanSpeed() (%)", lambda v: {Metric.FAN_PERCENT: _number(v)}),
            _Query((Metric.FAN_RPM,), ("nvmlDeviceGetFanSpeedRPM",), (),
                   "nvmlDeviceGetFanSpeedRPM()",
                   lambda v: {Metric.FAN_RPM: _number(getattr(v, "speed", v))}),
            _Query((Metric.PCIE_GEN,), ("nvmlDeviceGetCurrPcieLinkGeneration",), (),
                   "nvmlDeviceGetCurrPcieLinkGeneration()",
                   lambda v: {Metric.PCIE_GEN: _number(v)}),
            _Query((Metric.PCIE_WIDTH,), ("nvmlDeviceGetCurrPcieLinkWidth",), (),
                   "nvmlDeviceGetCurrPcieLinkWidth()", lambda v: {Metric.PCIE_WIDTH: _number(v)}),
            _Query((Metric.THROTTLE_REASONS,), ("nvmlDeviceGetCurrentClocksEventReasons",
                                           "nvmlDeviceGetCurrentClocksThrottleReasons"), (),
                   "{call}()",
                   lambda v: {Metric.THROTTLE_REASONS: float(throttle_flags_from_nvml(int(v)))}),
        ]

    def _field_value(self, values: Any) -> float | None:
        field = values[0]
        code = int(getattr(field, "nvmlReturn", 0))
        if code != 0:
            raise self._nvml.NVMLError(code)
        value = field.value
        member = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal",
                  6: "usVal"}.get(int(getattr(field, "valueType", 1)), "uiVal")
        return _number(getattr(value, member, None))

    def _discover(self) -> None:
        for query in self._all_queries():
            metrics = query.metrics
            call = next((c for c in query.calls if hasattr(self._nvml, c)), None)
            if call is None:
                self._give_up(metrics, message("this nvidia-ml-py has no {calls}",
                                               calls=" or ".join(query.calls)))
                continue
            label = query.label.format(call=call)
            try:
                values = query.extract(getattr(self._nvml, call)(self._handle, *query.args))
            except Exception as exc:  # classified: lost, unsupported, or transient
                if _code(exc) == _GPU_IS_LOST:
                    self.lost = message(REASON_LOST)
                if self._is_permanent(exc) and len(query.calls) > 1:
                    # The newer name can be missing in an older driver; try the older one.
                    older = self._try_older(query, call, metrics)
                    if older:
                        continue
                if self._is_permanent(exc):
                    self._give_up(metrics, message("{source}: {reason}", source=label,
                                                   reason=_reason(exc)))
                    continue
            else:
                for metric in metrics:
                    if values.get(metric) is None and metric in values:
                        # An answer without this value (an invalid field) counts as unsupported.
                        self._give_up((metric,), message("{source}: {reason}", source=label,
                                                         reason=message(self.no_value)))
            for metric in metrics:
                if metric not in self.unsupported:
                    self.supported[metric] = label
                    self._metric_query[metric] = label
            self._active[label] = partial(self._ask, query, call)
        self._refresh_throughput(time.monotonic(), discovering=True)
        self._log_unsupported()
        self.generation += 1

    def _try_older(self, query: _Query, newer: str, metrics: tuple[str, ...]) -> bool:
        for call in query.calls[query.calls.index(newer) + 1:]:
            if not hasattr(self._nvml, call):
                continue
            try:
                query.extract(getattr(self._nvml, call)(self._handle, *query.args))
            except Exception:  # the older name fails too: the caller records the newer's reason
                continue
            label = query.label.format(call=call)
            for metric in metrics:
                self.supported[metric] = label
                self._metric_query[metric] = label
            self._active[label] = partial(self._ask, query, call)
            return True
        return False

    def _ask(self, query: _Query, call: str) -> dict[str, float | None]:
        return query.extract(getattr(self._nvml, call)(self._handle, *query.args))

    @staticmethod
    def _is_permanent(exc: BaseException) -> bool:
        return _code(exc) in _PERMANENT_CODES or isinstance(exc, (AttributeError, TypeError))

    def _failure_is_permanent(self, exc: BaseException) -> bool:
        return self._is_permanent(exc)

    def _failure_reason(self, exc: BaseException) -> str:
        return _reason(exc)

    def _lost_by(self, exc: BaseException) -> bool:
        if _code(exc) != _GPU_IS_LOST:
            return False
        self.lost = message(REASON_LOST)
        return True

    # ------------------------------------------------------------------ the fast path

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        out: dict[str, Raw] = {}
        if self._handle is None:
            return out
        if self.lost is not None and not self._answers_again():
            return {metric: (None, self.lost) for metric in metrics}
        for metric in metrics:
            if metric in self._throughput:
                out[metric] = self._throughput[metric]
        return self._read_queries(metrics, out)

    def _answers_again(self) -> bool:
        """A lost GPU is asked one cheap question per tick; an answer clears `lost`."""
        try:
            self._nvml.nvmlDeviceGetPciInfo(self._handle)
        except Exception:  # still gone
            return False
        self.lost = None
        return True

    # ------------------------------------------------------------------ off the fast path

    def background(self, now: float) -> None:
        """Slow queries, called by the sampler after a tick's readings are in."""
        if now - self._throughput_at >= PCIE_THROUGHPUT_INTERVAL_S and self.lost is None:
            self._refresh_throughput(now)

    def _refresh_throughput(self, now: float, discovering: bool = False) -> None:
        # One counter per call (each samples for 20 ms), alternating, so that a tick waiting
        # behind this slow work waits at most one sample; both at discovery.
        self._throughput_at = now
        if self._handle is None:
            return
        if discovering:
            counters = _THROUGHPUT_COUNTERS
        else:
            counters = (_THROUGHPUT_COUNTERS[self._throughput_turn % 2],)
            self._throughput_turn += 1
        call = "nvmlDeviceGetPcieThroughput"
        for metric, constant, default, name in counters:
            if metric in self.unsupported:
                continue
            counter = self._const(constant, default)
            label = f"{call}(NVML_PCIE_UTIL_{name}_BYTES) (KB/s, about once a second)"
            if not hasattr(self._nvml, call):
                self.unsupported[metric] = message("this nvidia-ml-py has no {calls}", calls=call)
                self._throughput.pop(metric, None)
                continue
            try:
                value = _scaled(getattr(self._nvml, call)(self._handle, counter), 1024.0)
            except Exception as exc:  # as in read()
                if _code(exc) == _GPU_IS_LOST:
                    self.lost = message(REASON_LOST)
                if self._is_permanent(exc):
                    self.unsupported[metric] = message("{source}: {reason}", source=label,
                                                       reason=_reason(exc))
                    self._throughput.pop(metric, None)
                    self.supported.pop(metric, None)
                    if not discovering:
                        log.info("NVML GPU %s: %s no longer available", self.bus, metric)
                        self.generation += 1
                    continue
                self._throughput[metric] = (None, message("{source}: {reason}", source=label,
                                                          reason=_reason(exc)))
            else:
                self._throughput[metric] = sourced(value, label, message(self.no_value))
            self.supported[metric] = label

    def processes(self) -> tuple[list[dict[str, Any]], str] | str:
        """([{pid, name, used_bytes, kind}], source), or why the processes are unknown."""
        if self._handle is None or self.lost is not None:
            return self.lost or message("NVML could not open this GPU")
        found: dict[int, dict[str, Any]] = {}
        errors: list[str] = []
        sources: list[str] = []
        for call, kind in (("nvmlDeviceGetComputeRunningProcesses", "compute"),
                           ("nvmlDeviceGetGraphicsRunningProcesses", "graphics")):
            function = getattr(self._nvml, call, None)
            if function is None:
                errors.append(message("this nvidia-ml-py has no {calls}", calls=call))
                continue
            try:
                listed = function(self._handle)
            except Exception as exc:  # reported as the reason when nothing is listed
                errors.append(message("{source}: {reason}", source=call, reason=_reason(exc)))
                continue
            sources.append(call)
            for process in listed or ():
                pid = int(getattr(process, "pid", -1))
                used = _number(getattr(process, "usedGpuMemory", None))
                entry = found.setdefault(pid, {"pid": pid, "name": None, "used_bytes": used,
                                               "kind": kind})
                if entry["kind"] != kind:
                    entry["kind"] = "compute+graphics"
        if not sources:
            return join("; ", errors) if errors else message("NVML lists no processes")
        name_of = getattr(self._nvml, "nvmlSystemGetProcessName", None)
        for entry in found.values():
            if name_of is not None:
                try:
                    name = name_of(entry["pid"])
                    entry["name"] = (name.decode("utf-8", "replace")
                                     if isinstance(name, bytes) else str(name))
                except Exception:  # a process that ended meanwhile keeps no name
                    entry["name"] = None
        return sorted(found.values(), key=lambda e: e["pid"]), " + ".join(sources)

    def close(self) -> None:
        """The session owns NVML; a device reader holds nothing of its own."""


_THROUGHPUT_METRICS = (Metric.PCIE_RX_BYTES_S, Metric.PCIE_TX_BYTES_S)

def _code(exc: BaseException) -> int | None:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _message(exc: BaseException) -> str:
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # pynvml's __str__ calls back into the library, which may be gone
        return type(exc).__name__


def _reason(exc: BaseException) -> str:
    if isinstance(exc, (AttributeError, TypeError)):
        return message("this nvidia-ml-py cannot make the call ({error})",
                       error=f"{type(exc).__name__}: {exc}")
    known = _FIELD_REASONS.get(type(exc).__name__)
    return message(known) if known else message("NVML error: {error}", error=_message(exc))


def _bus_id(info: Any) -> str | None:
    raw = getattr(info, "busId", None) or getattr(info, "busIdLegacy", None)
    if isinstance(raw, bytes):
        raw = raw.decode("ascii", "replace")
    if not isinstance(raw, str) or not raw.strip():
        return None
    parts = raw.strip().strip("\x00").lower().split(":")
    if len(parts) == 3:
        domain = parts[0][-4:].rjust(4, "0")
        return f"{domain}:{parts[1][-2:]}:{parts[2]}"
    if len(parts) == 2:
        return f"0000:{parts[0][-2:]}:{parts[1]}"
    return None
