"""Live GPU readings on Windows, from the performance counters Task Manager reads: utilisation
by engine and dedicated and shared memory of each adapter, for every vendor, without an SDK.

Counters (English names, so that a localised Windows answers too):
`\\GPU Engine(*)\\Utilization Percentage`, one instance per process and engine, named
`pid_18360_luid_0x00000000_0x0000B750_phys_0_eng_0_engtype_3D`, and
`\\GPU Adapter Memory(*)\\Dedicated Usage` / `Shared Usage` (bytes), one instance per adapter,
named `luid_0x00000000_0x0001532a_phys_0` (real names: yanrk/resource_monitor's
src/resource_monitor_impl.cpp, https://github.com/unslothai/unsloth/pull/8863). The LUID ties
them to the DXGI adapter, `GpuFacts.luid`; Windows writes its hex digits in either case.

A GPU's utilisation is Task Manager's: each engine's utilisation summed over the processes
using it, then the busiest engine (https://devblogs.microsoft.com/directx/gpus-in-the-task-manager/;
https://github.com/microsoft/PowerToys/pull/48710 fixed a sum over engines that passed 100 %).

Mechanism: the PDH API through ctypes, one query kept open for the session. Utilisation is a
rate counter: PDH computes it between the query's last two collections, so the first collection
has no value, and a fresh `typeperf -sc 1` or `Get-Counter` process per tick would pay that
second of warm-up (and PowerShell's start: Get-Counter took 1.3 s a sample in
https://github.com/unslothai/unsloth/pull/9362) every time; an open query costs milliseconds a
collection. One `WindowsCounterSession` collects for all GPUs, at most once per
`min_interval_s`, through `System.library("windows-gpu-counters", ...)`, so a recorded snapshot
replays the answer (`record_counters` records a complete one). The ctypes part (`PdhQuery`) only
turns counters into that JSON answer; everything after it is plain Python that tests drive with
recorded answers. The answer:

    {"status": "ok",
     "counters": {"\\GPU Engine(*)\\Utilization Percentage": {"pid_..._engtype_3D": 25.72},
                  "\\GPU Adapter Memory(*)\\Dedicated Usage": {"luid_..._phys_0": 1016070144.0},
                  "\\GPU Adapter Memory(*)\\Shared Usage": {...}},
     "errors": {"<counter path>": "PdhAddEnglishCounterW: 0xC0000BB8 (PDH_CSTATUS_NO_OBJECT)"},
     "warming_up": ["\\GPU Engine(*)\\Utilization Percentage"]}

or {"status": "error", "error": "..."}. `\\GPU Local Adapter Memory(*)\\Local Usage` is not read:
Dedicated Usage is what Task Manager shows as dedicated GPU memory.

Temperature, power, clocks, fan and the PCIe link are not among these counters; for AMD GPUs
Windows gives them only through AMD's SDK, so they are unsupported with that reason. NVIDIA
GPUs keep NVML for them: a source lists this reader after NVML's.
"""

from __future__ import annotations

import ctypes
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gpuscope.evidence import System
from gpuscope.i18n import N_, message
from gpuscope.metrics import GPU_METRICS, Metric, Raw
from gpuscope.model import JsonValue, Vendor
from gpuscope.probes.sourced import recorded_reason

log = logging.getLogger(__name__)

READER_NAME = "pdh"
LIBRARY_NAME = "windows-gpu-counters"
ENGINE_COUNTER = "\\GPU Engine(*)\\Utilization Percentage"
DEDICATED_COUNTER = "\\GPU Adapter Memory(*)\\Dedicated Usage"
SHARED_COUNTER = "\\GPU Adapter Memory(*)\\Shared Usage"
COUNTER_PATHS: tuple[str, ...] = (ENGINE_COUNTER, DEDICATED_COUNTER, SHARED_COUNTER)
RATE_COUNTERS = frozenset({ENGINE_COUNTER})
DEFAULT_MIN_INTERVAL_S = 0.1

_HEX = "0x([0-9a-f]{1,8})_0x([0-9a-f]{1,8})"
_ENGINE_NAME = re.compile(rf"pid_(\d+)_luid_{_HEX}_phys_(\d+)_eng_(\d+)_engtype_(.*)", re.I)
_ADAPTER_NAME = re.compile(rf"luid_{_HEX}_phys_(\d+)", re.I)
_LUID = re.compile(rf"(?:luid_)?{_HEX}", re.I)

REASON_NO_LUID = N_("this GPU has no adapter LUID, which ties the performance counters to it")
REASON_NOT_NAMED = N_("no GPU performance counter names this adapter's LUID {luid} (they name "
                      "{luids})")
REASON_GONE = N_("the performance counters of this GPU (LUID {luid}) are gone: it was removed "
                 "or its driver stopped")
REASON_WARMING = N_("a rate counter has no value before its second collection")
REASON_NO_ANSWER = N_("the answer holds no {counter} counter")
REASON_NOT_INSTANCE = N_("no {counter} instance names this adapter's LUID")
REASON_NO_TOTAL = N_("the performance counters give no total, and the inventory found none")
_AMD_REASONS: dict[str, str] = {
    "temp": N_("Windows does not expose the temperature of AMD GPUs without AMD's SDK"),
    "power": N_("Windows does not expose the power draw of AMD GPUs without AMD's SDK"),
    "clock": N_("Windows does not expose the clocks of AMD GPUs without AMD's SDK"),
    "fan": N_("Windows does not expose the fan speed of AMD GPUs without AMD's SDK"),
    "pcie": N_("Windows does not expose the PCIe link of AMD GPUs without AMD's SDK"),
    "throttle": N_("Windows does not expose why AMD GPUs throttle without AMD's SDK"),
}
REASON_NVIDIA_ELSEWHERE = N_("Windows' GPU performance counters do not give it (NVML does)")
REASON_NOT_COUNTED = N_("Windows' GPU performance counters do not give it")

_GROUPS: dict[str, str] = {
    Metric.TEMP_EDGE_C: "temp", Metric.TEMP_JUNCTION_C: "temp", Metric.TEMP_MEMORY_C: "temp",
    Metric.POWER_W: "power", Metric.POWER_CAP_W: "power",
    Metric.SCLK_MHZ: "clock", Metric.MCLK_MHZ: "clock",
    Metric.FAN_RPM: "fan", Metric.FAN_PERCENT: "fan",
    Metric.PCIE_GEN: "pcie", Metric.PCIE_WIDTH: "pcie", Metric.PCIE_RX_BYTES_S: "pcie",
    Metric.PCIE_TX_BYTES_S: "pcie", Metric.PCIE_BANDWIDTH_BYTES_S: "pcie",
    Metric.THROTTLE_REASONS: "throttle",
}


# ----------------------------------------------------------------------------- instance names


def normalise_luid(text: str | None) -> str | None:
    """"0x00000000_0x0000D1A2", "luid_0x0_0xd1a2..." -> "0x00000000_0x0000d1a2"; None if none."""
    if not text:
        return None
    match = _LUID.search(text)
    if match is None:
        return None
    return f"0x{int(match.group(1), 16):08x}_0x{int(match.group(2), 16):08x}"


@dataclass(frozen=True, slots=True)
class EngineInstance:
    """One `\\GPU Engine` instance: a process's use of one engine of one adapter."""

    pid: int
    luid: str  # normalised
    phys: int
    engine: int
    engine_type: str  # as Windows names it: "3D", "Compute_0", "Video Decode 1", "Cuda"


def parse_engine_instance(name: str) -> EngineInstance | None:
    match = _ENGINE_NAME.fullmatch(name.strip())
    if match is None:
        return None
    pid, high, low, phys, engine, engine_type = match.groups()
    return EngineInstance(int(pid), f"0x{int(high, 16):08x}_0x{int(low, 16):08x}", int(phys),
                          int(engine), engine_type.strip())


def parse_adapter_instance(name: str) -> tuple[str, int] | None:
    """`luid_0x..._0x..._phys_0` -> (normalised LUID, physical adapter index)."""
    match = _ADAPTER_NAME.fullmatch(name.strip())
    if match is None:
        return None
    high, low, phys = match.groups()
    return f"0x{int(high, 16):08x}_0x{int(low, 16):08x}", int(phys)


# ----------------------------------------------------------------------------- one answer


@dataclass(frozen=True, slots=True)
class CounterSample:
    """One collection as the evidence answered it: per counter path, instance -> value; the
    counters that gave nothing, with why; the rate counters still warming up."""

    error: str | None = None  # the whole answer failed
    values: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    warming_up: frozenset[str] = frozenset()
    malformed: int = 0  # entries dropped: not a name, not a finite value >= 0


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def sample_from_answer(answer: JsonValue) -> CounterSample:
    """A recorded or live answer read defensively: anything malformed is dropped and counted."""
    if not isinstance(answer, dict):
        return CounterSample(error=message("not a counter answer: {kind}",
                                           kind=type(answer).__name__))
    if answer.get("status") != "ok":
        error = answer.get("error")
        return CounterSample(error=recorded_reason(str(error)) if error else message(
            "the counters answered {status}", status=str(answer.get("status"))))
    counters = answer.get("counters")
    if not isinstance(counters, dict):
        return CounterSample(error=message("the answer holds no counters"))
    values: dict[str, dict[str, float]] = {}
    malformed = 0
    for path, instances in counters.items():
        if not isinstance(instances, dict):
            malformed += 1
            continue
        good: dict[str, float] = {}
        for name, raw in instances.items():
            number = _finite(raw)
            if number is None or not name:
                malformed += 1
                continue
            good[name] = number
        values[path] = good
    raw_errors = answer.get("errors")
    errors = ({str(path): recorded_reason(str(why)) for path, why in raw_errors.items()}
              if isinstance(raw_errors, dict) else {})
    raw_warming = answer.get("warming_up")
    warming = (frozenset(p for p in raw_warming if isinstance(p, str))
               if isinstance(raw_warming, list) else frozenset())
    return CounterSample(None, values, errors, warming, malformed)


def engine_utilization(engines: Mapping[str, float], luid: str) -> dict[tuple[int, int], float]:
    """(phys, engine) -> that engine's utilisation on adapter `luid`, summed over processes."""
    busy: dict[tuple[int, int], float] = {}
    for name, value in engines.items():
        instance = parse_engine_instance(name)
        if instance is not None and instance.luid == luid:
            key = (instance.phys, instance.engine)
            busy[key] = busy.get(key, 0.0) + value
    return busy


def engine_type_utilization(engines: Mapping[str, float], luid: str) -> dict[str, float]:
    """Engine type ("3D", "Copy", "Compute_0") -> its busiest engine's utilisation (%, 0-100)
    on adapter `luid`, as Task Manager's per-engine graphs show it."""
    types: dict[tuple[int, int], str] = {}
    for name in engines:
        instance = parse_engine_instance(name)
        if instance is not None and instance.luid == luid:
            types[(instance.phys, instance.engine)] = instance.engine_type
    out: dict[str, float] = {}
    for key, value in engine_utilization(engines, luid).items():
        kind = types[key]
        out[kind] = max(out.get(kind, 0.0), min(value, 100.0))
    return out


def adapter_utilization_percent(engines: Mapping[str, float], luid: str) -> float | None:
    """Task Manager's GPU utilisation of adapter `luid`: the busiest engine, its utilisation
    summed over processes, within 0-100; None when no instance names the adapter."""
    busy = engine_utilization(engines, luid)
    return min(max(busy.values()), 100.0) if busy else None


def adapter_memory_bytes(instances: Mapping[str, float], luid: str) -> float | None:
    """An adapter memory counter of `luid`, summed over its physical adapters (linked GPUs);
    None when no instance names it."""
    found = [value for name, value in instances.items()
             if (parsed := parse_adapter_instance(name)) is not None and parsed[0] == luid]
    return sum(found) if found else None


def luids_named(sample: CounterSample) -> set[str]:
    """Every adapter LUID the sample's instances name."""
    found: set[str] = set()
    for path, instances in sample.values.items():
        for name in instances:
            if path == ENGINE_COUNTER:
                engine = parse_engine_instance(name)
                if engine is not None:
                    found.add(engine.luid)
            elif (adapter := parse_adapter_instance(name)) is not None:
                found.add(adapter[0])
    return found


# ----------------------------------------------------------------------------- PDH (ctypes)

_PDH_FMT_DOUBLE = 0x00000200
_PDH_FMT_NOCAP100 = 0x00008000
_PDH_CSTATUS_VALID_DATA = 0x0
_PDH_CSTATUS_NEW_DATA = 0x1
_PDH_MORE_DATA = 0x800007D2
_PDH_NO_DATA = 0x800007D5
_PDH_CSTATUS_NO_INSTANCE = 0x800007D1
_PDH_STATUS_NAMES = {
    0x800007D1: "PDH_CSTATUS_NO_INSTANCE", 0x800007D2: "PDH_MORE_DATA",
    0x800007D5: "PDH_NO_DATA", 0x800007D6: "PDH_CALC_NEGATIVE_DENOMINATOR",
    0xC0000BB8: "PDH_CSTATUS_NO_OBJECT", 0xC0000BB9: "PDH_CSTATUS_NO_COUNTER",
    0xC0000BBA: "PDH_CSTATUS_INVALID_DATA", 0xC0000BBB: "PDH_MEMORY_ALLOCATION_FAILURE",
    0xC0000BBC: "PDH_INVALID_HANDLE", 0xC0000BBD: "PDH_INVALID_ARGUMENT",
    0xC0000BC0: "PDH_CSTATUS_BAD_COUNTERNAME", 0xC0000BC2: "PDH_INSUFFICIENT_BUFFER",
    0xC0000BC4: "PDH_INVALID_PATH", 0xC0000BC6: "PDH_INVALID_DATA",
}


def pdh_status_text(status: int) -> str:
    """0xC0000BB8 -> "0xC0000BB8 (PDH_CSTATUS_NO_OBJECT)" (pdhmsg.h)."""
    code = status & 0xFFFFFFFF
    name = _PDH_STATUS_NAMES.get(code)
    return f"0x{code:08X}" + (f" ({name})" if name else "")


class _FmtValue(ctypes.Union):
    _fields_ = [("longValue", ctypes.c_int32), ("doubleValue", ctypes.c_double),
                ("largeValue", ctypes.c_int64), ("AnsiStringValue", ctypes.c_char_p),
                ("WideStringValue", ctypes.c_wchar_p)]


class _FmtCounterValue(ctypes.Structure):  # PDH_FMT_COUNTERVALUE
    _fields_ = [("CStatus", ctypes.c_uint32), ("value", _FmtValue)]


class _FmtCounterValueItemW(ctypes.Structure):  # PDH_FMT_COUNTERVALUE_ITEM_W
    _fields_ = [("szName", ctypes.c_wchar_p), ("FmtValue", _FmtCounterValue)]


def _load_pdh() -> Any:
    loader = getattr(ctypes, "WinDLL", None)
    if loader is None:
        raise OSError("pdh.dll is part of Windows, and this is not Windows")
    pdh = loader("pdh.dll")
    handle, u32, text = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_wchar_p
    signatures: dict[str, list[Any]] = {
        "PdhOpenQueryW": [text, ctypes.c_size_t, ctypes.POINTER(handle)],
        "PdhAddEnglishCounterW": [handle, text, ctypes.c_size_t, ctypes.POINTER(handle)],
        "PdhCollectQueryData": [handle],
        "PdhGetFormattedCounterArrayW": [handle, u32, ctypes.POINTER(u32), ctypes.POINTER(u32),
                                         handle],
        "PdhCloseQuery": [handle],
    }
    for name, argtypes in signatures.items():
        function = getattr(pdh, name)
        function.argtypes = argtypes
        function.restype = u32
    return pdh


class CounterQuery(Protocol):
    """An open counter query: each `collect` answers the JSON that the evidence records."""

    def collect(self) -> JsonValue: ...

    def close(self) -> None: ...


class PdhQuery:
    """One PDH query over `paths` (wildcard instances), open until `close`. `pdh` is pdh.dll
    (injectable). Raises OSError when the query cannot be opened; `collect` never raises for
    one counter's failure, which is that counter's entry in "errors"."""

    def __init__(self, paths: Sequence[str], rate_paths: Collection[str] = RATE_COUNTERS,
                 pdh: Any | None = None) -> None:
        self._pdh = pdh if pdh is not None else _load_pdh()
        self._query = ctypes.c_void_p()
        status = self._pdh.PdhOpenQueryW(None, 0, ctypes.byref(self._query))
        if status:
            raise OSError(f"PdhOpenQueryW: {pdh_status_text(status)}")
        self._counters: dict[str, ctypes.c_void_p] = {}
        self._add_errors: dict[str, JsonValue] = {}
        for path in paths:
            counter = ctypes.c_void_p()
            status = self._pdh.PdhAddEnglishCounterW(self._query, path, 0, ctypes.byref(counter))
            if status:
                self._add_errors[path] = f"PdhAddEnglishCounterW: {pdh_status_text(status)}"
            else:
                self._counters[path] = counter
        self._rate_paths = frozenset(rate_paths)
        self._collections = 0

    def collect(self) -> JsonValue:
        status = self._pdh.PdhCollectQueryData(self._query)
        self._collections += 1
        if status:
            return {"status": "error", "error": f"PdhCollectQueryData: {pdh_status_text(status)}"}
        counters: dict[str, JsonValue] = {}
        errors: dict[str, JsonValue] = dict(self._add_errors)
        warming: list[JsonValue] = []
        for path, counter in self._counters.items():
            if self._collections == 1 and path in self._rate_paths:
                warming.append(path)
                continue
            try:
                counters[path] = dict(self._instances(counter))
            except OSError as exc:
                errors[path] = str(exc)
        return {"status": "ok", "counters": counters, "errors": errors, "warming_up": warming}

    def _instances(self, counter: ctypes.c_void_p) -> dict[str, float]:
        form = _PDH_FMT_DOUBLE | _PDH_FMT_NOCAP100
        for _attempt in range(4):
            size, count = ctypes.c_uint32(0), ctypes.c_uint32(0)
            status = self._pdh.PdhGetFormattedCounterArrayW(
                counter, form, ctypes.byref(size), ctypes.byref(count), None)
            if status in (0, _PDH_NO_DATA, _PDH_CSTATUS_NO_INSTANCE):
                return {}
            if status != _PDH_MORE_DATA:
                raise OSError(f"PdhGetFormattedCounterArrayW: {pdh_status_text(status)}")
            if not size.value:
                return {}
            buffer = ctypes.create_string_buffer(size.value)
            status = self._pdh.PdhGetFormattedCounterArrayW(
                counter, form, ctypes.byref(size), ctypes.byref(count),
                ctypes.cast(buffer, ctypes.c_void_p))
            if status == _PDH_MORE_DATA:  # instances appeared between the two calls
                continue
            if status:
                raise OSError(f"PdhGetFormattedCounterArrayW: {pdh_status_text(status)}")
            items = ctypes.cast(buffer, ctypes.POINTER(_FmtCounterValueItemW))
            out: dict[str, float] = {}
            for index in range(count.value):
                item = items[index]
                if (item.FmtValue.CStatus in (_PDH_CSTATUS_VALID_DATA, _PDH_CSTATUS_NEW_DATA)
                        and item.szName):
                    out[str(item.szName)] = float(item.FmtValue.value.doubleValue)
            return out
        raise OSError("PdhGetFormattedCounterArrayW: the instances kept changing")

    def close(self) -> None:
        if self._query:
            self._pdh.PdhCloseQuery(self._query)
            self._query = ctypes.c_void_p()


def open_pdh_query(paths: Sequence[str]) -> CounterQuery:
    return PdhQuery(paths)


def record_counters(system: System,
                    open_query: Callable[[Sequence[str]], CounterQuery] = open_pdh_query,
                    interval_s: float = 1.0,
                    sleep: Callable[[float], None] = time.sleep) -> JsonValue:
    """One complete answer (two collections `interval_s` apart, so utilisation has a value),
    recorded under LIBRARY_NAME: what a snapshot keeps for a replay's telemetry."""
    def collect() -> JsonValue:
        query = open_query(COUNTER_PATHS)
        try:
            query.collect()
            sleep(interval_s)
            return query.collect()
        finally:
            query.close()
    return system.library(LIBRARY_NAME, collect)


# ----------------------------------------------------------------------------- the session


class WindowsCounterSession:
    """The counters of every adapter, collected at most once per `min_interval_s` however many
    GPU readers ask (from their own threads), through `system` so that a replay answers."""

    def __init__(self, system: System,
                 open_query: Callable[[Sequence[str]], CounterQuery] = open_pdh_query,
                 min_interval_s: float = DEFAULT_MIN_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._system = system
        self._open_query = open_query
        self._min_interval_s = min_interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._query: CounterQuery | None = None
        self._open_error: str | None = None
        self._last: CounterSample | None = None
        self._last_at = 0.0
        self._closed = False

    def _collect(self) -> JsonValue:
        if self._closed:
            return {"status": "error", "error": "the counter session is closed"}
        if self._open_error is not None:
            return {"status": "error", "error": self._open_error}
        if self._query is None:
            try:
                self._query = self._open_query(COUNTER_PATHS)
            except Exception as exc:  # no pdh.dll, no counters: the answer says why, once
                self._open_error = f"{type(exc).__name__}: {exc}"
                log.info("Windows GPU counters unavailable: %s", self._open_error)
                return {"status": "error", "error": self._open_error}
        return self._query.collect()

    def sample(self) -> CounterSample:
        with self._lock:
            now = self._clock()
            if self._last is None or now - self._last_at >= self._min_interval_s:
                try:
                    answer = self._system.library(LIBRARY_NAME, self._collect)
                except Exception as exc:  # a recording system's failure is this tick's reason
                    answer = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
                self._last = sample_from_answer(answer)
                self._last_at = now
            return self._last

    def reader(self, luid: str | None, vendor: Vendor | None,
               vram_total_bytes: int | None = None,
               vram_total_source: str | None = None) -> WindowsCounterReader:
        return WindowsCounterReader(self, luid, vendor, vram_total_bytes, vram_total_source)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            query, self._query = self._query, None
        if query is not None:
            try:
                query.close()
            except Exception as exc:  # closing must not raise into the source set's close
                log.debug("closing the PDH query: %s", exc)


# ----------------------------------------------------------------------------- the reader


def _other_reason(metric: str, vendor: Vendor | None) -> str:
    group = _GROUPS.get(metric)
    if vendor is Vendor.AMD and group is not None:
        return message(_AMD_REASONS[group])
    if vendor is Vendor.NVIDIA:
        return message(REASON_NVIDIA_ELSEWHERE)
    return message(REASON_NOT_COUNTED)


class WindowsCounterReader:
    """One adapter, by its LUID, in the session's counters (a `MetricReader`)."""

    name = READER_NAME

    def __init__(self, session: WindowsCounterSession, luid: str | None,
                 vendor: Vendor | None, vram_total_bytes: int | None = None,
                 vram_total_source: str | None = None) -> None:
        self._session = session
        self.luid = normalise_luid(luid)
        self.vendor = vendor
        self.lost: str | None = None
        self.generation = 1
        self.supported: dict[str, str] = {}
        self.unsupported: dict[str, str] = {}
        self._seen = False
        self._static: dict[str, Raw] = {}
        self._counter_of: dict[str, str] = {
            Metric.GPU_UTIL_PERCENT: ENGINE_COUNTER,
            Metric.VRAM_USED_BYTES: DEDICATED_COUNTER,
            Metric.GTT_USED_BYTES: SHARED_COUNTER,
        }
        luid_text = self.luid or "?"
        self._sources: dict[str, str] = {
            Metric.GPU_UTIL_PERCENT: (f"\\GPU Engine(pid_*_luid_{luid_text}_*)\\Utilization "
                                      "Percentage (busiest engine, summed over processes)"),
            Metric.VRAM_USED_BYTES: (f"\\GPU Adapter Memory(luid_{luid_text}_phys_*)\\"
                                     "Dedicated Usage (bytes)"),
            Metric.GTT_USED_BYTES: (f"\\GPU Adapter Memory(luid_{luid_text}_phys_*)\\"
                                    "Shared Usage (bytes)"),
        }
        if vram_total_bytes is not None and vram_total_bytes > 0:
            source = f"inventory ({vram_total_source or 'GPU facts'})"
            self.supported[Metric.VRAM_TOTAL_BYTES] = source
            self._static[Metric.VRAM_TOTAL_BYTES] = (float(vram_total_bytes), source)
        else:
            self.unsupported[Metric.VRAM_TOTAL_BYTES] = message(REASON_NO_TOTAL)
        for metric in (m.value for m in GPU_METRICS):
            if metric not in self._counter_of and metric != Metric.VRAM_TOTAL_BYTES:
                self.unsupported[metric] = _other_reason(metric, vendor)
        self._discover()

    def _discover(self) -> None:
        counted = list(self._counter_of)
        if self.luid is None:
            for metric in counted:
                self.unsupported[metric] = message(REASON_NO_LUID)
            return
        sample = self._session.sample()
        if sample.error is not None:
            for metric in counted:
                self.unsupported[metric] = message("{source}: {reason}", source=LIBRARY_NAME,
                                                   reason=sample.error)
            return
        self._seen = self._names_us(sample)
        if not self._seen:
            named = sorted(luids_named(sample))
            reason = message(REASON_NOT_NAMED, luid=self.luid, luids=", ".join(named) or "none")
            for metric in counted:
                self.unsupported[metric] = reason
            return
        for metric, counter in self._counter_of.items():
            if counter in sample.errors:
                self.unsupported[metric] = message("{source}: {reason}", source=counter,
                                                   reason=sample.errors[counter])
            elif counter not in sample.values and counter not in sample.warming_up:
                self.unsupported[metric] = message(REASON_NO_ANSWER, counter=counter)
            elif (counter != ENGINE_COUNTER and adapter_memory_bytes(
                    sample.values[counter], self.luid) is None):
                self.unsupported[metric] = message(REASON_NOT_INSTANCE, counter=counter)
            else:
                self.supported[metric] = self._sources[metric]
        for metric, reason in self.unsupported.items():
            log.debug("pdh %s: %s not available: %s", self.luid, metric, reason)

    def _names_us(self, sample: CounterSample) -> bool:
        luid = self.luid or ""
        return any(adapter_memory_bytes(sample.values.get(path, {}), luid) is not None
                   for path in (DEDICATED_COUNTER, SHARED_COUNTER)) or bool(
            engine_utilization(sample.values.get(ENGINE_COUNTER, {}), luid))

    def engine_types(self) -> dict[str, float]:
        """The last sample's utilisation per engine type ("3D", "Copy", ...), for views that
        show Task Manager's engine graphs; empty when the engines have no value."""
        if self.luid is None:
            return {}
        sample = self._session.sample()
        return engine_type_utilization(sample.values.get(ENGINE_COUNTER, {}), self.luid)

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        out: dict[str, Raw] = {}
        asked = [m for m in metrics if m in self.supported]
        for metric in asked:
            if metric in self._static:
                out[metric] = self._static[metric]
        live = [m for m in asked if m in self._counter_of]
        if not live or self.luid is None:
            return out
        sample = self._session.sample()
        if sample.error is not None:
            reason = message("{source}: {reason}", source=LIBRARY_NAME, reason=sample.error)
            return out | {metric: (None, reason) for metric in live}
        present = self._names_us(sample)
        adapters_answered = any(sample.values.get(path) for path in
                                (DEDICATED_COUNTER, SHARED_COUNTER))
        if not present and adapters_answered and self._seen:
            self.lost = message(REASON_GONE, luid=self.luid)
            return out | {metric: (None, self.lost) for metric in live}
        if present:
            self.lost = None
            self._seen = True
        for metric in live:
            out[metric] = self._value(metric, sample, present)
        return out

    def _value(self, metric: str, sample: CounterSample, present: bool) -> Raw:
        counter = self._counter_of[metric]
        source = self._sources[metric]
        luid = self.luid or ""
        if counter in sample.warming_up:
            return None, message("{source}: {reason}", source=source,
                                 reason=message(REASON_WARMING))
        if counter in sample.errors:
            return None, message("{source}: {reason}", source=source,
                                 reason=sample.errors[counter])
        instances = sample.values.get(counter)
        if instances is None:
            return None, message(REASON_NO_ANSWER, counter=counter)
        if counter == ENGINE_COUNTER:
            value = adapter_utilization_percent(instances, luid)
            if value is None and present:
                # The adapter is there and no process has an engine of it open: idle.
                value = 0.0
        else:
            value = adapter_memory_bytes(instances, luid)
        if value is None:
            return None, message("{source}: {reason}", source=source,
                                 reason=message(REASON_NOT_INSTANCE, counter=counter))
        return value, source

    def close(self) -> None:
        """The session owns the query; a reader holds nothing of its own."""
