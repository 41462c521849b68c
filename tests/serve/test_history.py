"""`/api/history`: the exporter's own ring of recent readings, over HTTP and on its own."""

from __future__ import annotations

import http.client
import json
import math
import time
from collections.abc import Callable

import pytest
from serve_helpers import TOKEN, Started

from gpuscope.metrics import Reading
from gpuscope.serve.history import MAX_HISTORY_S, MAX_ROWS, SCHEMA, RecentHistory
from gpuscope.telemetry.sampler import SeriesInfo, TickCallback, TickEvent

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _get(started: Started, path: str, headers: dict[str, str] | None = None
         ) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", started.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _wait_rows(started: Started, rows: int) -> dict[str, object]:
    deadline = time.monotonic() + 20
    while True:
        status, body = _get(started, "/api/history?seconds=60", AUTH)
        assert status == 200, body
        document = json.loads(body)
        devices = document["devices"]
        if devices and all(len(d["times_s"]) >= rows for d in devices):
            return dict(document)
        assert time.monotonic() < deadline, "the history did not fill"
        time.sleep(0.2)


def test_history_of_the_replayed_gpu(replay_exporter: Started) -> None:
    document = _wait_rows(replay_exporter, 3)
    assert document["schema"] == SCHEMA
    assert document["rate_hz"] == 4.0
    devices = {d["device"]: d for d in document["devices"]}  # type: ignore[attr-defined]
    gpu = devices["0000:03:00.0"]
    assert gpu["gpu"] == 0 and "7900 XTX" in gpu["name"]
    times = gpu["times_s"]
    assert times[0] == 0 and times == sorted(times)
    assert abs(gpu["t0_s"] + times[-1] - document["now_s"]) < 60  # type: ignore[operator]
    edge = gpu["series"]["temp_edge_c"]
    assert edge["unit"] == "°C"
    assert len(edge["values"]) == len(times)
    assert all(isinstance(v, (int, float)) and 0 < v < 120 for v in edge["values"])
    assert edge["source"]
    assert gpu["series"]["vram_used_bytes"]["unit"] == "B"
    for name, entry in gpu["series"].items():  # a series with no value says why
        if all(v is None for v in entry["values"]):
            assert entry.get("reason"), name
    assert "host" in devices


def test_history_is_cut_to_the_seconds_asked(replay_exporter: Started) -> None:
    _wait_rows(replay_exporter, 4)
    status, body = _get(replay_exporter, "/api/history?seconds=0.3", AUTH)
    assert status == 200
    for device in json.loads(body)["devices"]:
        assert len(device["times_s"]) <= 3  # 4 Hz: at most two ticks in 0.3 s, and the edge


@pytest.mark.parametrize("query", ["seconds=abc", "seconds=601", "seconds=0", "seconds=-5",
                                   "seconds=nan", "seconds=inf"])
def test_a_bad_seconds_is_400(replay_exporter: Started, query: str) -> None:
    status, body = _get(replay_exporter, f"/api/history?{query}", AUTH)
    assert status == 400
    assert b"seconds" in body


def test_history_needs_the_token(replay_exporter: Started) -> None:
    status, body = _get(replay_exporter, "/api/history?seconds=60")
    assert status == 401
    assert b"series" not in body


class _TickingSampler:
    """What RecentHistory takes from a sampler, ticked by the test."""

    def __init__(self, rate_hz: float, series: tuple[SeriesInfo, ...]) -> None:
        self.rate_hz = rate_hz
        self.series = series
        self.callbacks: list[TickCallback] = []
        self.latest: dict[str, Reading] = {}

    def subscribe(self, callback: TickCallback) -> Callable[[], None]:
        self.callbacks.append(callback)
        return lambda: self.callbacks.remove(callback)

    def tick(self, event: TickEvent) -> None:
        for callback in self.callbacks:
            callback(event)


def test_the_ring_stays_bounded_at_a_fast_rate() -> None:
    series = (SeriesInfo("0000:03:00.0/power_w", "0000:03:00.0", "power_w", "W", "Power"),
              SeriesInfo("0000:03:00.0/fan_rpm", "0000:03:00.0", "fan_rpm", "RPM", "Fan"))
    sampler = _TickingSampler(100.0, series)
    history = RecentHistory()
    history.attach(sampler)  # type: ignore[arg-type]
    start = 1_700_000_000.0
    costs_s: list[float] = []
    for index in range(100 * 700):  # 700 s at 100 Hz
        reasons = {"0000:03:00.0/fan_rpm": "no fan on this card"} if index == 0 else {}
        sampler.tick(TickEvent(start + index / 100, index,
                               {"0000:03:00.0/power_w": float(index % 300),
                                "0000:03:00.0/fan_rpm": math.nan},
                               {"0000:03:00.0/power_w": "test"} if index == 0 else {}, 0.0,
                               reasons))
        costs_s.append(history.update_cost_s)
    now = start + 700
    document = history.document(MAX_HISTORY_S, now_s=now)
    (device,) = document["devices"]  # type: ignore[misc]
    assert len(device["times_s"]) <= MAX_ROWS
    assert device["t0_s"] >= now - MAX_HISTORY_S - 1
    power = device["series"]["power_w"]
    assert power["unit"] == "W" and power["source"] == "test" and "reason" not in power
    fan = device["series"]["fan_rpm"]
    assert set(fan["values"]) == {None} and fan["reason"] == "no fan on this card"
    assert device["gpu"] is None  # not in the (empty) inventory
    assert sorted(costs_s)[len(costs_s) // 2] < 0.001  # the median tick's cost
    body = history.body(30.0)
    assert b"NaN" not in body and json.loads(body)["seconds"] == 30.0
    history.detach()
    assert not sampler.callbacks
