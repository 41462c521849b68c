"""The sampler with fake sources: one that hangs and one that raises mid-stream must not stop
the others; the hung one is marked lost and recovers; rate changes, pause/resume, subscribers,
and no thread left behind."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping

import pytest

from gpuscope.metrics import ProcessSnapshot, Reading
from gpuscope.telemetry.sampler import DeviceStatus, Sampler, TickEvent
from gpuscope.telemetry.sources import BaseSource, DeviceLostError

METRICS = ("gpu_util_percent", "power_w")


class CountingSource(BaseSource):
    """Answers reads with its read count; `fail_from` makes reads from that count on fail
    through `failure()` until `heal()`."""

    def __init__(self, device: str, isolated: bool = True) -> None:
        self.device = device
        self.label = f"fake {device}"
        self.isolated = isolated
        self.reads = 0
        self.fail_from: int | None = None
        self.failure: Callable[[], None] = lambda: None
        self.background_calls = 0
        self.process_calls = 0

    def metrics(self) -> tuple[str, ...]:
        return METRICS

    def read(self) -> Mapping[str, Reading]:
        self.reads += 1
        if self.fail_from is not None and self.reads >= self.fail_from:
            self.failure()
        return {"gpu_util_percent": Reading(float(self.reads), "fake:count"),
                "power_w": Reading(None, None, "this fake has no power sensor")}

    def heal(self) -> None:
        self.fail_from = None

    def background(self, now: float) -> None:
        self.background_calls += 1

    def processes(self) -> ProcessSnapshot | None:
        self.process_calls += 1
        return ProcessSnapshot(time.time(), (), "fake:processes")


class HangingSource(CountingSource):
    """Hangs inside `read` from read `hang_from` on, until `release()`: a GPU stuck in its
    driver."""

    def __init__(self, device: str, hang_from: int) -> None:
        super().__init__(device)
        self.hang_from = hang_from
        self.released = threading.Event()
        self.hanging = threading.Event()

    def read(self) -> Mapping[str, Reading]:
        if self.reads + 1 >= self.hang_from and not self.released.is_set():
            self.hanging.set()
            self.released.wait(10)
        return super().read()

    def release(self) -> None:
        self.released.set()


def telemetry_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("telemetry-")]


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 3
    while telemetry_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not telemetry_threads(), telemetry_threads()


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def values(sampler: Sampler, device: str, metric: str = "gpu_util_percent") -> list[float]:
    _times, columns = sampler.rings[device].snapshot()
    return list(columns[f"{device}/{metric}"])


def test_a_hung_gpu_stalls_nothing_is_marked_lost_and_recovers() -> None:
    good = CountingSource("0000:01:00.0")
    hung = HangingSource("0000:02:00.0", hang_from=3)
    host = CountingSource("host", isolated=False)
    sampler = Sampler([good, hung, host], rate_hz=20.0, answer_timeout_s=0.1)
    try:
        for _ in range(2):
            sampler.tick()
        assert sampler.device_state["0000:02:00.0"].status is DeviceStatus.OK
        durations = []
        for _ in range(8):  # the hung GPU holds its worker; each tick still ends on time
            started = time.monotonic()
            sampler.tick()
            durations.append(time.monotonic() - started)
            time.sleep(0.05 - durations[-1])  # ticks 50 ms apart, as at 20 Hz
        assert hung.hanging.is_set()
        assert max(durations) < 0.09  # 0.6 / 20 Hz = 30 ms of waiting, never the hang
        state = sampler.device_state["0000:02:00.0"]
        assert state.status is DeviceStatus.LOST
        assert state.reason == "no answer within 0.1 s"
        assert sampler.latest["0000:02:00.0/gpu_util_percent"].value is None
        assert sampler.latest["0000:02:00.0/gpu_util_percent"].missing_reason == (
            "no answer within 0.1 s")
        # The others kept sampling every tick.
        assert values(sampler, "0000:01:00.0") == [float(i) for i in range(1, 11)]
        assert values(sampler, "host") == [float(i) for i in range(1, 11)]
        hung_values = values(sampler, "0000:02:00.0")
        assert hung_values[:2] == [1.0, 2.0]
        assert all(math.isnan(v) for v in hung_values[2:])
        assert sampler.device_state["0000:01:00.0"].status is DeviceStatus.OK

        hung.release()
        wait_until(lambda: not sampler._answers.empty())  # the hung read returned
        sampler.tick()
        sampler.tick()
        assert sampler.device_state["0000:02:00.0"].status is DeviceStatus.OK
        assert sampler.device_state["0000:02:00.0"].reason is None
        assert sampler.latest["0000:02:00.0/gpu_util_percent"].value == float(hung.reads)
        assert not math.isnan(values(sampler, "0000:02:00.0")[-1])
    finally:
        hung.release()
        assert sampler.stop()



def test_gpus_asked_after_a_hung_one_still_answer_every_tick() -> None:
    """Workers are asked one after the other: a GPU that hangs first in line holds the next
    back by its share of the wait on the tick it hangs, and is not asked again while busy."""
    hung = HangingSource("0000:01:00.0", hang_from=2)
    goods = [CountingSource(f"0000:0{n}:00.0") for n in (2, 3, 4)]
    sampler = Sampler([hung, *goods], rate_hz=20.0, answer_timeout_s=0.1)
    try:
        durations = []
        for _ in range(6):
            started = time.monotonic()
            sampler.tick()
            durations.append(time.monotonic() - started)
            time.sleep(max(0.0, 0.05 - durations[-1]))
        assert hung.hanging.is_set()
        assert max(durations) < 0.09  # 0.6 / 20 Hz = 30 ms of waiting, never the hang
        for good in goods:
            assert values(sampler, good.device) == [float(i) for i in range(1, 7)]
        hung_values = values(sampler, "0000:01:00.0")
        assert hung_values[0] == 1.0 and all(math.isnan(v) for v in hung_values[1:])
    finally:
        hung.release()
        assert sampler.stop()

def test_the_running_sampler_marks_a_hung_gpu_lost_after_half_a_second() -> None:
    good = CountingSource("0000:01:00.0")
    hung = HangingSource("0000:02:00.0", hang_from=2)
    sampler = Sampler([good, hung], rate_hz=10.0)
    sampler.start()
    try:
        wait_until(lambda: sampler.device_state["0000:02:00.0"].status is DeviceStatus.LOST)
        assert sampler.device_state["0000:02:00.0"].reason == "no answer within 0.5 s"
        reads = good.reads
        wait_until(lambda: good.reads >= reads + 3)  # still sampling the healthy GPU
        hung.release()
        wait_until(lambda: sampler.device_state["0000:02:00.0"].status is DeviceStatus.OK)
    finally:
        hung.release()
        assert sampler.stop()
    assert not sampler.running


def test_a_source_that_raises_mid_stream_is_an_error_until_it_answers() -> None:
    good = CountingSource("0000:01:00.0")
    flaky = CountingSource("0000:02:00.0")
    flaky.fail_from = 3

    def boom() -> None:
        raise RuntimeError("driver said EIO")

    flaky.failure = boom
    sampler = Sampler([good, flaky], rate_hz=20.0)
    try:
        for _ in range(5):
            sampler.tick()
        state = sampler.device_state["0000:02:00.0"]
        assert state.status is DeviceStatus.ERROR
        assert state.reason == "RuntimeError: driver said EIO"
        assert sampler.latest["0000:02:00.0/power_w"].missing_reason == (
            "RuntimeError: driver said EIO")
        flaky_values = values(sampler, "0000:02:00.0")
        assert flaky_values[:2] == [1.0, 2.0] and all(math.isnan(v) for v in flaky_values[2:])
        assert values(sampler, "0000:01:00.0") == [1.0, 2.0, 3.0, 4.0, 5.0]
        flaky.heal()
        sampler.tick()
        assert sampler.device_state["0000:02:00.0"].status is DeviceStatus.OK
        assert values(sampler, "0000:02:00.0")[-1] == 6.0
    finally:
        assert sampler.stop()


def test_a_gpu_that_fell_off_the_bus_is_lost_with_that_reason() -> None:
    gone = CountingSource("0000:03:00.0")
    gone.fail_from = 2

    def lost() -> None:
        raise DeviceLostError("GPU fell off the bus (NVML: GPU is lost)")

    gone.failure = lost
    sampler = Sampler([gone], rate_hz=20.0)
    try:
        sampler.tick()
        sampler.tick()
        state = sampler.device_state["0000:03:00.0"]
        assert state.status is DeviceStatus.LOST
        assert state.reason == "GPU fell off the bus (NVML: GPU is lost)"
        assert sampler.latest["0000:03:00.0/gpu_util_percent"].missing_reason == state.reason
    finally:
        assert sampler.stop()


def test_missing_readings_keep_their_reason_and_are_nan_in_the_ring() -> None:
    sampler = Sampler([CountingSource("0000:01:00.0")], rate_hz=2.0)
    try:
        before = sampler.latest["0000:01:00.0/power_w"]
        assert before.value is None and before.missing_reason == "no sample yet"
        sampler.tick()
        reading = sampler.latest["0000:01:00.0/power_w"]
        assert reading == Reading(None, None, "this fake has no power sensor")
        assert math.isnan(values(sampler, "0000:01:00.0", "power_w")[0])
        assert sampler.latest["0000:01:00.0/gpu_util_percent"] == Reading(1.0, "fake:count")
    finally:
        assert sampler.stop()


def test_rate_change_reallocates_the_rings_and_keeps_the_newest_samples() -> None:
    source = CountingSource("0000:01:00.0")
    sampler = Sampler([source], rate_hz=2.0, history_s=10.0)
    try:
        assert sampler.rings["0000:01:00.0"].capacity == 20
        for _ in range(15):
            sampler.tick()
        ring = sampler.rings["0000:01:00.0"]
        sampler.set_rate(2.0)  # unchanged: the same ring
        assert sampler.rings["0000:01:00.0"] is ring
        sampler.set_rate(1.0)
        smaller = sampler.rings["0000:01:00.0"]
        assert smaller.capacity == 10 and smaller is not ring
        assert values(sampler, "0000:01:00.0") == [float(i) for i in range(6, 16)]
        sampler.set_rate(20.0)
        assert sampler.rings["0000:01:00.0"].capacity == 200
        assert sampler.rate_hz == 20.0
        assert len(sampler.rings["0000:01:00.0"]) == 10
        for bad in (0.4, 21.0, 0.0):
            with pytest.raises(ValueError, match=r"0\.5 to 20 Hz"):
                sampler.set_rate(bad)
        with pytest.raises(ValueError):
            Sampler([source], rate_hz=50.0)
    finally:
        assert sampler.stop()


def test_rate_changes_while_running_take_effect() -> None:
    source = CountingSource("0000:01:00.0")
    sampler = Sampler([source], rate_hz=0.5)
    sampler.start()
    try:
        wait_until(lambda: sampler.tick_count >= 1)
        sampler.set_rate(20.0)  # from one tick per 2 s to 20 per second
        count = sampler.tick_count
        time.sleep(0.5)
        assert sampler.tick_count - count >= 5
    finally:
        assert sampler.stop()


def test_pause_stops_sampling_and_resume_restarts_it() -> None:
    source = CountingSource("0000:01:00.0")
    sampler = Sampler([source], rate_hz=20.0)
    sampler.start()
    try:
        wait_until(lambda: sampler.tick_count >= 3)
        sampler.pause()
        assert sampler.paused
        time.sleep(0.1)
        paused_at = sampler.tick_count
        time.sleep(0.3)
        assert sampler.tick_count == paused_at
        sampler.resume()
        wait_until(lambda: sampler.tick_count >= paused_at + 3)
    finally:
        assert sampler.stop()


def test_stop_joins_every_thread() -> None:
    sources = [CountingSource(f"0000:0{i}:00.0") for i in range(1, 4)]
    sampler = Sampler([*sources, CountingSource("host", isolated=False)], rate_hz=20.0)
    sampler.start()
    wait_until(lambda: sampler.tick_count >= 2)
    names = {t.name for t in telemetry_threads()}
    assert names == {"telemetry-sampler", "telemetry-worker-0000:01:00.0",
                     "telemetry-worker-0000:02:00.0", "telemetry-worker-0000:03:00.0"}
    assert sampler.stop(timeout=2.0) is True
    assert not telemetry_threads()
    with pytest.raises(RuntimeError):
        sampler.start()


def test_subscribers_get_every_tick_with_values_and_new_sources() -> None:
    sampler = Sampler([CountingSource("0000:01:00.0"), CountingSource("host", False)],
                      rate_hz=20.0)
    events: list[TickEvent] = []

    def broken(event: TickEvent) -> None:
        raise ValueError("a subscriber bug")

    unsubscribe = sampler.subscribe(events.append)
    sampler.subscribe(broken)
    try:
        sampler.tick()
        sampler.tick()
        unsubscribe()
        sampler.tick()
        assert [e.index for e in events] == [1, 2]
        first, second = events
        assert first.values["0000:01:00.0/gpu_util_percent"] == 1.0
        assert math.isnan(first.values["host/power_w"])
        assert set(first.values) == {s.name for s in sampler.series}
        assert first.sources == {"0000:01:00.0/gpu_util_percent": "fake:count",
                                 "host/gpu_util_percent": "fake:count"}
        assert second.sources == {}  # unchanged sources are not repeated
        assert second.time_s >= first.time_s
    finally:
        assert sampler.stop()


def test_slow_work_and_processes_run_off_the_fast_path() -> None:
    source = CountingSource("0000:01:00.0")
    sampler = Sampler([source], rate_hz=20.0, process_interval_s=3600.0)
    try:
        for _ in range(4):
            sampler.tick()
        wait_until(lambda: source.background_calls >= 4)
        assert source.process_calls == 1  # once at the start, then every hour
        snapshot = sampler.processes["0000:01:00.0"]
        assert snapshot.source == "fake:processes"
    finally:
        assert sampler.stop()


def test_series_carry_units_and_labels() -> None:
    sampler = Sampler([CountingSource("0000:01:00.0")], rate_hz=2.0)
    try:
        info = {s.name: s for s in sampler.series}
        power = info["0000:01:00.0/power_w"]
        assert (power.device, power.metric, power.unit, power.label) == (
            "0000:01:00.0", "power_w", "W", "Power")
        assert info["0000:01:00.0/gpu_util_percent"].unit == "%"
        with pytest.raises(ValueError, match="two sources"):
            Sampler([CountingSource("x"), CountingSource("x")])
    finally:
        sampler.stop()


def test_ticks_carry_the_changes_of_why_a_series_is_missing() -> None:
    """A reason is sent when it appears or changes, "" when the series has values again: what
    a recording stores."""
    source = CountingSource("0000:01:00.0", isolated=False)
    sampler = Sampler([source], rate_hz=20.0)
    events: list[TickEvent] = []
    sampler.subscribe(events.append)
    try:
        sampler.tick()
        sampler.tick()
        source.fail_from = 3
        source.failure = lambda: (_ for _ in ()).throw(OSError("sensor read failed"))
        sampler.tick()
        source.heal()
        sampler.tick()
    finally:
        sampler.stop()
    first, second, failed, healed = events
    assert first.reasons == {"0000:01:00.0/power_w": "this fake has no power sensor"}
    assert second.reasons == {}  # unchanged: not repeated
    assert failed.reasons == {"0000:01:00.0/gpu_util_percent": "OSError: sensor read failed",
                              "0000:01:00.0/power_w": "OSError: sensor read failed"}
    assert healed.reasons == {"0000:01:00.0/gpu_util_percent": "",
                              "0000:01:00.0/power_w": "this fake has no power sensor"}
