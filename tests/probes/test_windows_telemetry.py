"""The Windows GPU counter reader: real instance names from public captures
(tests/fixtures/windows_counters/SOURCES.md), Task Manager's utilisation rule, several ticks,
AMD and NVIDIA adapters, a LUID the counters do not name, malformed answers, the ctypes layer
driven by a fake pdh.dll, and a recorded answer replayed."""

from __future__ import annotations

import ctypes
import itertools
import math
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.i18n import Message
from gpuscope.metrics import GPU_METRICS, Metric, Raw
from gpuscope.model import JsonValue, Vendor
from gpuscope.probes import windows_telemetry as wt
from gpuscope.probes.metric_reader import MetricReader
from gpuscope.probes.windows_telemetry import (
    DEDICATED_COUNTER,
    ENGINE_COUNTER,
    LIBRARY_NAME,
    SHARED_COUNTER,
    PdhQuery,
    WindowsCounterSession,
    adapter_utilization_percent,
    engine_type_utilization,
    normalise_luid,
    parse_adapter_instance,
    parse_engine_instance,
    record_counters,
    sample_from_answer,
)
from gpuscope.telemetry.sources import DeviceLostError, ReaderSource

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "windows_counters"
GIB = 2**30
AMD_LUID = "0x00000000_0x0000b750"  # yanrk capture, AMD
NVIDIA_LUID = "0x00000000_0x0000dabc"  # yanrk capture, NVIDIA
STRIX_LUID = "0x00000000_0x0001532a"  # unsloth #8863, AMD Radeon 8060S


def _lines(name: str) -> list[str]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def engine_capture(section: str) -> dict[str, float | None]:
    """A section of the yanrk capture: instance -> value (None where it gave none)."""
    out: dict[str, float | None] = {}
    current = ""
    for line in _lines("yanrk_resource_monitor_engines.txt"):
        if line.startswith("["):
            current = line.strip("[]")
            continue
        if current != section:
            continue
        name, _, value = line.partition(" - ")
        out[name] = float(value) if value else None
    return out


def memory_capture() -> dict[str, tuple[float, float]]:
    """The unsloth capture: instance -> (dedicated, shared) bytes (GB x 2^30; approximate)."""
    rows = {}
    for line in _lines("unsloth_8863_adapter_memory.txt"):
        name, _luid, dedicated, shared = (cell.strip() for cell in line.split("|"))
        rows[name] = (float(dedicated) * GIB, float(shared) * GIB)
    return rows


def answer(engines: dict[str, float] | None = None, dedicated: dict[str, float] | None = None,
           shared: dict[str, float] | None = None, *, warming: Sequence[str] = (),
           errors: dict[str, str] | None = None) -> dict[str, JsonValue]:
    """The JSON a collection answers (PdhQuery.collect's form)."""
    counters: dict[str, JsonValue] = {}
    for path, instances in ((ENGINE_COUNTER, engines), (DEDICATED_COUNTER, dedicated),
                            (SHARED_COUNTER, shared)):
        if instances is not None and path not in warming:
            counters[path] = dict(instances)
    return {"status": "ok", "counters": counters, "errors": dict(errors or {}),
            "warming_up": list(warming)}


def amd_machine(three_d: float = 25.7208) -> dict[str, JsonValue]:
    """Assembled (SOURCES.md): the yanrk AMD engines (3D at the captured 25.7208 % unless
    `three_d` says otherwise), with adapter memory named for the same LUID carrying the unsloth
    capture's AMD values (0.947 GB dedicated, 0.141 GB shared)."""
    engines = {name: (value or 0.0) for name, value in engine_capture("AMD").items()}
    engines["pid_18360_luid_0x00000000_0x0000B750_phys_0_eng_0_engtype_3D"] = three_d
    dedicated, shared = memory_capture()["luid_0x00000000_0x0001532a_phys_0"]
    return answer(engines, {"luid_0x00000000_0x0000B750_phys_0": dedicated},
                  {"luid_0x00000000_0x0000B750_phys_0": shared})


def replay(doc: JsonValue) -> ReplaySystem:
    snapshot = Snapshot()
    snapshot.libraries[LIBRARY_NAME] = doc
    return ReplaySystem(snapshot)


class ScriptedQuery:
    """A fake CounterQuery answering recorded collections in order, then the last again."""

    def __init__(self, answers: Sequence[JsonValue]) -> None:
        self.answers = list(answers)
        self.collections = 0
        self.closed = False

    def collect(self) -> JsonValue:
        self.collections += 1
        return self.answers[min(self.collections, len(self.answers)) - 1]

    def close(self) -> None:
        self.closed = True


def scripted_session(answers: Sequence[JsonValue]) -> tuple[WindowsCounterSession, ScriptedQuery]:
    query = ScriptedQuery(answers)
    ticks = itertools.count()
    session = WindowsCounterSession(LiveSystem(), open_query=lambda paths: query,
                                    clock=lambda: float(next(ticks)))
    return session, query


# ----------------------------------------------------------------------------- names and rules


def test_real_instance_names_parse() -> None:
    amd = [parse_engine_instance(name) for name in engine_capture("AMD")]
    nvidia = [parse_engine_instance(name) for name in engine_capture("NVIDIA")]
    assert all(amd) and all(nvidia)
    types = {e.engine_type for e in amd if e is not None}
    assert {"3D", "High Priority Compute", "Video Codec 0", "True Audio 1", "Copy"} <= types
    assert {e.luid for e in amd if e is not None} == {AMD_LUID}
    cuda = parse_engine_instance("pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_9_engtype_Cuda")
    assert cuda == wt.EngineInstance(25832, NVIDIA_LUID, 0, 9, "Cuda")
    (oshi,) = _lines("oshi_2114_get_counter.txt")
    lowered = parse_engine_instance(oshi.partition(" - ")[0])
    assert lowered is not None and lowered.luid == "0x00000000_0x0000f814"
    for name in memory_capture():
        assert parse_adapter_instance(name) is not None
    assert parse_adapter_instance("luid_0x00000000_0x0001532a_phys_0") == (STRIX_LUID, 0)
    for junk in ("", "_Total", "pid_x_luid_0x0_0x1_phys_0_eng_0_engtype_3D", "luid_0x1_phys_0"):
        assert parse_engine_instance(junk) is None
        assert parse_adapter_instance(junk) is None


def test_luids_match_whatever_the_case() -> None:
    assert normalise_luid("0x00000000_0x0000D1A2") == "0x00000000_0x0000d1a2"
    assert normalise_luid("luid_0x0_0xd1a2_phys_0") == "0x00000000_0x0000d1a2"
    assert normalise_luid("0X00000000_0X0000D1A2") == "0x00000000_0x0000d1a2"
    assert normalise_luid("not a luid") is None
    assert normalise_luid(None) is None


def test_the_captured_values_give_task_managers_number() -> None:
    amd = {name: value or 0.0 for name, value in engine_capture("AMD").items()}
    assert adapter_utilization_percent(amd, AMD_LUID) == pytest.approx(25.7208)
    assert engine_type_utilization(amd, AMD_LUID)["3D"] == pytest.approx(25.7208)
    (oshi,) = _lines("oshi_2114_get_counter.txt")
    name, _, value = oshi.partition(" - ")
    assert adapter_utilization_percent({name: float(value)}, "0x00000000_0x0000F814".lower()) \
        == pytest.approx(3.05119782746321)
    assert adapter_utilization_percent(amd, NVIDIA_LUID) is None


def test_engines_sum_over_processes_and_the_busiest_engine_wins() -> None:
    # Inputs of this test: the NVIDIA capture's names (no values there) used by two processes.
    names = list(engine_capture("NVIDIA"))
    engines = {name: 0.0 for name in names}
    three_d = "pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_0_engtype_3D"
    cuda = "pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_9_engtype_Cuda"
    engines[three_d] = 30.0
    engines[three_d.replace("pid_25832", "pid_4")] = 25.0  # the same engine, another process
    engines[cuda] = 40.0
    engines["pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_12_engtype_Copy"] = 20.0
    engines["pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_13_engtype_Copy"] = 35.0
    assert adapter_utilization_percent(engines, NVIDIA_LUID) == pytest.approx(55.0)
    by_type = engine_type_utilization(engines, NVIDIA_LUID)
    assert by_type["3D"] == pytest.approx(55.0) and by_type["Cuda"] == pytest.approx(40.0)
    assert by_type["Copy"] == pytest.approx(35.0)  # the busiest Copy engine, not 55
    engines[three_d] = 99.0  # processes' shares summing past 100 read as 100
    assert adapter_utilization_percent(engines, NVIDIA_LUID) == 100.0


# ----------------------------------------------------------------------------- readers


def test_an_amd_adapter_from_a_replayed_answer() -> None:
    session = WindowsCounterSession(replay(amd_machine()))
    reader: MetricReader = session.reader("0x00000000_0x0000B750", Vendor.AMD,
                                          vram_total_bytes=25753026560,
                                          vram_total_source="registry qwMemorySize")
    readings = reader.read(list(reader.supported))
    assert readings[Metric.GPU_UTIL_PERCENT][0] == pytest.approx(25.7208)
    assert "Utilization Percentage" in readings[Metric.GPU_UTIL_PERCENT][1]
    assert readings[Metric.VRAM_USED_BYTES][0] == pytest.approx(0.947 * GIB)
    assert readings[Metric.GTT_USED_BYTES][0] == pytest.approx(0.141 * GIB)
    assert readings[Metric.VRAM_TOTAL_BYTES] == (25753026560.0,
                                                 "inventory (registry qwMemorySize)")
    assert reader.unsupported[Metric.TEMP_EDGE_C] == (
        "Windows does not expose the temperature of AMD GPUs without AMD's SDK")
    assert "power" in reader.unsupported[Metric.POWER_W]
    assert "fan" in reader.unsupported[Metric.FAN_RPM]
    every = {m.value for m in GPU_METRICS}
    assert set(reader.supported) | set(reader.unsupported) == every
    assert not set(reader.supported) & set(reader.unsupported)
    assert all(isinstance(why, Message) for why in reader.unsupported.values())
    assert reader.lost is None


def test_an_nvidia_adapter_keeps_nvml_first_and_the_counters_fill_in() -> None:
    nvml = StubNvml()
    engines = {name: 0.0 for name in engine_capture("NVIDIA")}
    engines["pid_25832_luid_0x00000000_0x0000DABC_phys_0_eng_9_engtype_Cuda"] = 62.5
    doc = answer(engines, {"luid_0x00000000_0x0000DABC_phys_0": 3.0 * GIB},
                 {"luid_0x00000000_0x0000DABC_phys_0": 0.5 * GIB})
    counters = WindowsCounterSession(replay(doc)).reader(NVIDIA_LUID, Vendor.NVIDIA)
    assert counters.unsupported[Metric.TEMP_EDGE_C] == (
        "Windows' GPU performance counters do not give it (NVML does)")
    source = ReaderSource("0000:01:00.0", "RTX", [m.value for m in GPU_METRICS], [nvml, counters])
    first = source.read()
    assert first[Metric.GPU_UTIL_PERCENT].value == 97.0
    assert first[Metric.GPU_UTIL_PERCENT].source == "nvml:nvmlDeviceGetUtilizationRates().gpu"
    assert first[Metric.TEMP_EDGE_C].value == 61.0
    assert first[Metric.GTT_USED_BYTES].value == 0.5 * GIB  # NVML has no shared memory
    assert (first[Metric.GTT_USED_BYTES].source or "").startswith("pdh:")
    nvml.failing = True  # NVML fails a tick: the counters give utilisation and VRAM
    second = source.read()
    assert second[Metric.GPU_UTIL_PERCENT].value == 62.5
    assert (second[Metric.GPU_UTIL_PERCENT].source or "").startswith("pdh:")
    assert second[Metric.VRAM_USED_BYTES].value == 3.0 * GIB
    assert second[Metric.TEMP_EDGE_C].value is None
    # Only readers that give a metric are its fallback: the temperature's reason is NVML's.
    assert second[Metric.TEMP_EDGE_C].missing_reason == "nvml: NVML error: Unknown Error"


class StubNvml:
    """A stand-in NVML reader (its own tests are in test_nvml.py): fixed readings, or a
    failure this tick."""

    name = "nvml"
    lost: str | None = None
    generation = 1

    def __init__(self) -> None:
        self.failing = False
        self.supported = {Metric.GPU_UTIL_PERCENT: "nvmlDeviceGetUtilizationRates().gpu",
                          Metric.VRAM_USED_BYTES: "nvmlDeviceGetMemoryInfo()",
                          Metric.TEMP_EDGE_C: "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)"}
        self.unsupported = {Metric.GTT_USED_BYTES: "NVML has no shared memory figure"}

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        values = {Metric.GPU_UTIL_PERCENT: 97.0, Metric.VRAM_USED_BYTES: 5.0 * GIB,
                  Metric.TEMP_EDGE_C: 61.0}
        return {m: ((None, "NVML error: Unknown Error") if self.failing
                    else (values[m], self.supported[m])) for m in metrics if m in values}

    def close(self) -> None:
        """Nothing held."""


def test_several_ticks_warm_up_then_follow_the_counters_and_the_gpu_is_lost() -> None:
    warming = answer(dedicated={"luid_0x00000000_0x0000B750_phys_0": 1.0 * GIB},
                     shared={"luid_0x00000000_0x0000B750_phys_0": 0.1 * GIB},
                     warming=[ENGINE_COUNTER])
    # Later ticks: the AMD capture's names with values given by this test.
    other_adapter = {"luid_0x00000000_0x00017034_phys_0": 0.0}  # unsloth: Basic Render Driver
    gone = answer({}, other_adapter, other_adapter)
    session, query = scripted_session([warming, amd_machine(10.0), amd_machine(80.0), gone,
                                       amd_machine(5.0)])
    reader = session.reader(AMD_LUID, Vendor.AMD)
    assert Metric.GPU_UTIL_PERCENT in reader.supported  # known before its first value
    metrics = [Metric.GPU_UTIL_PERCENT, Metric.VRAM_USED_BYTES]
    values = []
    for _tick in range(3):
        values.append(reader.read(metrics)[Metric.GPU_UTIL_PERCENT][0])
    assert values == [pytest.approx(10.0), pytest.approx(80.0), None]
    assert reader.lost is not None and "0x0000b750" in reader.lost
    lost_reading = reader.read(metrics)
    assert lost_reading[Metric.GPU_UTIL_PERCENT] == (pytest.approx(5.0),
                                                     reader._sources[Metric.GPU_UTIL_PERCENT])
    assert reader.lost is None  # the adapter's counters came back
    assert query.collections == 5


def test_a_lost_adapter_raises_device_lost_in_its_source() -> None:
    other = {"luid_0x00000000_0x00017034_phys_0": 0.0}
    session, _query = scripted_session([amd_machine(), answer({}, other, other)])
    reader = session.reader(AMD_LUID, Vendor.AMD)
    source = ReaderSource("win:b750", "RX", [m.value for m in GPU_METRICS], [reader])
    with pytest.raises(DeviceLostError, match="removed or its driver stopped"):
        source.read()


def test_the_first_tick_warming_up_says_why() -> None:
    warming = answer(dedicated={"luid_0x00000000_0x0000B750_phys_0": 1.0 * GIB},
                     warming=[ENGINE_COUNTER])
    session, _query = scripted_session([warming])
    reader = session.reader(AMD_LUID, Vendor.AMD)
    value, why = reader.read([Metric.GPU_UTIL_PERCENT])[Metric.GPU_UTIL_PERCENT]
    assert value is None and "second collection" in why
    assert Metric.GTT_USED_BYTES in reader.unsupported  # the shared counter was not answered


def test_an_adapter_no_process_uses_reads_idle() -> None:
    doc = answer({}, {"luid_0x00000000_0x0001532a_phys_0": 0.947 * GIB},
                 {"luid_0x00000000_0x0001532a_phys_0": 0.141 * GIB})
    reader = WindowsCounterSession(replay(doc)).reader(STRIX_LUID, Vendor.AMD)
    assert reader.read([Metric.GPU_UTIL_PERCENT])[Metric.GPU_UTIL_PERCENT][0] == 0.0


def test_a_luid_the_counters_do_not_name_and_a_gpu_without_one() -> None:
    rows = memory_capture()
    doc = answer({}, {n: d for n, (d, _s) in rows.items()}, {n: s for n, (_d, s) in rows.items()})
    reader = WindowsCounterSession(replay(doc)).reader("0x00000000_0x0000d1a2", Vendor.AMD)
    assert not {Metric.GPU_UTIL_PERCENT, Metric.VRAM_USED_BYTES} & set(reader.supported)
    why = reader.unsupported[Metric.VRAM_USED_BYTES]
    assert "0x00000000_0x0000d1a2" in why and STRIX_LUID in why
    assert reader.read([m.value for m in GPU_METRICS]) == {}
    nameless = WindowsCounterSession(replay(doc)).reader(None, Vendor.NVIDIA)
    assert "no adapter LUID" in nameless.unsupported[Metric.GPU_UTIL_PERCENT]
    assert nameless.read([Metric.GPU_UTIL_PERCENT]) == {}


def test_a_snapshot_without_counters_says_so() -> None:
    reader = WindowsCounterSession(ReplaySystem(Snapshot())).reader(AMD_LUID, Vendor.AMD)
    assert "holds no answer" in reader.unsupported[Metric.GPU_UTIL_PERCENT]


@pytest.mark.parametrize("doc", [
    None, [], "text", 3, {"status": "error", "error": "PdhCollectQueryData: 0xC0000BBC"},
    {"status": "ok"}, {"status": "ok", "counters": []}, {"status": "weird"},
    {"status": "ok", "counters": {ENGINE_COUNTER: "x", DEDICATED_COUNTER: None}},
    {"status": "ok", "counters": {DEDICATED_COUNTER: {
        "luid_0x00000000_0x0000B750_phys_0": "12", "luid_0x00000000_0x0000B750_phys_1": math.nan,
        "luid_0x00000000_0x0000B750_phys_2": -5, "luid_0x00000000_0x0000B750_phys_3": True,
        "": 7, "luid_zz": 1}}, "errors": ["x"], "warming_up": "no"},
])
def test_malformed_answers_never_raise(doc: JsonValue) -> None:
    sample = sample_from_answer(doc)
    assert sample.error is not None or not wt.luids_named(sample)
    reader = WindowsCounterSession(replay(doc)).reader(AMD_LUID, Vendor.AMD)
    assert reader.read([m.value for m in GPU_METRICS]).get(Metric.GPU_UTIL_PERCENT) is None
    assert Metric.GPU_UTIL_PERCENT in reader.unsupported


def test_malformed_entries_are_dropped_and_counted() -> None:
    doc = amd_machine()
    counters = doc["counters"]
    assert isinstance(counters, dict) and isinstance(counters[ENGINE_COUNTER], dict)
    counters[ENGINE_COUNTER]["pid_1_luid_0x00000000_0x0000B750_phys_0_eng_0_engtype_3D"] = "9"
    counters[ENGINE_COUNTER]["pid_2_luid_0x00000000_0x0000B750_phys_0_eng_0_engtype_3D"] = math.inf
    sample = sample_from_answer(doc)
    assert sample.malformed == 2
    reader = WindowsCounterSession(replay(doc)).reader(AMD_LUID, Vendor.AMD)
    assert reader.read([Metric.GPU_UTIL_PERCENT])[Metric.GPU_UTIL_PERCENT][0] == pytest.approx(
        25.7208)


def test_one_collection_serves_every_gpu_of_a_tick() -> None:
    query = ScriptedQuery([amd_machine()])
    now = [0.0]
    session = WindowsCounterSession(LiveSystem(), open_query=lambda paths: query,
                                    clock=lambda: now[0])
    readers = [session.reader(AMD_LUID, Vendor.AMD), session.reader(NVIDIA_LUID, Vendor.NVIDIA)]
    for reader in readers:
        reader.read([Metric.GPU_UTIL_PERCENT])
    assert query.collections == 1
    now[0] = 1.0
    for reader in readers:
        reader.read([Metric.GPU_UTIL_PERCENT])
    assert query.collections == 2
    session.close()
    assert query.closed


def test_a_recorded_answer_replays() -> None:
    query = ScriptedQuery([answer(warming=[ENGINE_COUNTER]), amd_machine()])
    slept: list[float] = []
    recorder = RecordingSystem(LiveSystem())
    record_counters(recorder, open_query=lambda paths: query, sleep=slept.append)
    assert slept == [1.0] and query.closed
    reader = WindowsCounterSession(ReplaySystem(recorder.snapshot)).reader(AMD_LUID, Vendor.AMD)
    assert reader.read([Metric.GPU_UTIL_PERCENT])[Metric.GPU_UTIL_PERCENT][0] == pytest.approx(
        25.7208)


def test_without_pdh_the_reason_is_given_once() -> None:
    opened: list[Sequence[str]] = []

    def refuse(paths: Sequence[str]) -> wt.CounterQuery:
        opened.append(paths)
        raise OSError("pdh.dll is part of Windows, and this is not Windows")

    ticks = itertools.count()
    session = WindowsCounterSession(LiveSystem(), open_query=refuse,
                                    clock=lambda: float(next(ticks)))
    reader = session.reader(AMD_LUID, Vendor.AMD)
    assert "not Windows" in reader.unsupported[Metric.GPU_UTIL_PERCENT]
    session.sample()
    assert len(opened) == 1


def test_the_real_loader_fails_cleanly_off_windows() -> None:
    if hasattr(ctypes, "WinDLL"):
        pytest.skip("this is Windows")
    reader = WindowsCounterSession(LiveSystem()).reader(AMD_LUID, Vendor.AMD)
    assert "not Windows" in reader.unsupported[Metric.GPU_UTIL_PERCENT]


# ----------------------------------------------------------------------------- the ctypes layer


class FakePdh:
    """pdh.dll's five calls as the ctypes layer makes them (byref'd out-parameters written,
    PDH_FMT_COUNTERVALUE_ITEM_W arrays laid out in the caller's buffer)."""

    def __init__(self, arrays: dict[str, list[tuple[str, int, float]]],
                 add_status: dict[str, int] | None = None, grow_once: bool = False) -> None:
        self.arrays = arrays
        self.add_status = add_status or {}
        self.handles: dict[int, str] = {}
        self.collections = 0
        self.closed = False
        self.grow_once = grow_once
        self._keep: list[Any] = []

    def PdhOpenQueryW(self, source: None, user: int, query: Any) -> int:
        query._obj.value = 0x1234
        return 0

    def PdhAddEnglishCounterW(self, query: Any, path: str, user: int,
                              counter: Any) -> int:
        if path in self.add_status:
            return self.add_status[path]
        handle = 0x100 + len(self.handles)
        self.handles[handle] = path
        counter._obj.value = handle
        return 0

    def PdhCollectQueryData(self, query: Any) -> int:
        self.collections += 1
        return 0

    def PdhGetFormattedCounterArrayW(self, counter: Any, form: int, size: Any,
                                     count: Any, buffer: Any) -> int:
        assert form & 0x200  # PDH_FMT_DOUBLE
        items = self.arrays[self.handles[counter.value]]
        needed = ctypes.sizeof(wt._FmtCounterValueItemW) * len(items)
        if buffer is None or size._obj.value < needed:
            size._obj.value = needed
            return 0x800007D2  # PDH_MORE_DATA
        if self.grow_once:  # an instance appeared between the two calls
            self.grow_once = False
            size._obj.value = needed + 64
            return 0x800007D2
        array = ctypes.cast(buffer, ctypes.POINTER(wt._FmtCounterValueItemW))
        for index, (name, status, value) in enumerate(items):
            text = ctypes.create_unicode_buffer(name)
            self._keep.append(text)
            array[index].szName = ctypes.cast(text, ctypes.c_wchar_p)
            array[index].FmtValue.CStatus = status
            array[index].FmtValue.value.doubleValue = value
        count._obj.value = len(items)
        return 0

    def PdhCloseQuery(self, query: Any) -> int:
        self.closed = True
        return 0


def test_the_ctypes_layer_reads_counter_arrays() -> None:
    three_d = "pid_18360_luid_0x00000000_0x0000B750_phys_0_eng_0_engtype_3D"
    pdh = FakePdh({
        ENGINE_COUNTER: [(three_d, 0, 25.7208),
                         ("pid_18360_luid_0x00000000_0x0000B750_phys_0_eng_8_engtype_Copy",
                          0xC0000BBA, 0.0)],  # PDH_CSTATUS_INVALID_DATA: no value, left out
        DEDICATED_COUNTER: [("luid_0x00000000_0x0000B750_phys_0", 1, 1016070144.0)],
    }, add_status={SHARED_COUNTER: 0xC0000BB9}, grow_once=True)
    query = PdhQuery(wt.COUNTER_PATHS, pdh=pdh)
    first = query.collect()
    assert isinstance(first, dict) and first["warming_up"] == [ENGINE_COUNTER]
    assert first["errors"] == {SHARED_COUNTER:
                               "PdhAddEnglishCounterW: 0xC0000BB9 (PDH_CSTATUS_NO_COUNTER)"}
    second = query.collect()
    assert isinstance(second, dict)
    assert second["counters"] == {ENGINE_COUNTER: {three_d: 25.7208},
                                  DEDICATED_COUNTER: {
                                      "luid_0x00000000_0x0000B750_phys_0": 1016070144.0}}
    assert second["warming_up"] == []
    query.close()
    assert pdh.closed and pdh.collections == 2


def test_the_ctypes_layer_reports_a_failed_array() -> None:
    class Failing(FakePdh):
        def PdhGetFormattedCounterArrayW(self, counter: Any, form: int, size: Any,
                                         count: Any, buffer: Any) -> int:
            return 0xC0000BC6  # PDH_INVALID_DATA

    query = PdhQuery([DEDICATED_COUNTER], pdh=Failing({DEDICATED_COUNTER: []}))
    doc = query.collect()
    assert isinstance(doc, dict)
    assert doc["errors"] == {DEDICATED_COUNTER:
                             "PdhGetFormattedCounterArrayW: 0xC0000BC6 (PDH_INVALID_DATA)"}
