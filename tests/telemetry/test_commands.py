"""`record` and `export`, as the CLI calls them: on this machine for real, and their errors."""

from __future__ import annotations

import csv
import signal
import threading
from pathlib import Path

import pytest

from gpuscope.evidence import LiveSystem, ReplaySystem
from gpuscope.telemetry.commands import RecordProgress, export, record
from gpuscope.telemetry.recorder import RecordingError, open_recording

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"


def test_record_on_this_machine_for_two_seconds_at_10_hz(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    progress: list[RecordProgress] = []
    summary = record(LiveSystem(), path, rate_hz=10.0, duration_s=2.0, progress=progress.append)
    assert summary.stopped_by == "duration"
    assert summary.error is None and summary.dropped_ticks == 0
    assert 2.0 <= summary.duration_s < 3.5
    assert 15 <= summary.ticks <= 22  # 10 Hz for 2 s
    assert summary.series >= 4 and summary.samples >= summary.ticks * 4
    assert progress and progress[-1].ticks >= 5
    with open_recording(path) as recording:
        assert recording.meta.complete and recording.meta.rate_hz == 10.0
        names = {s.name for s in recording.series}
        assert {"host/host_cpu_percent", "host/host_ram_used_bytes",
                "host/host_swap_used_bytes", "host/cpu0_percent"} <= names
        times, ram = recording.read("host/host_ram_used_bytes")
        assert len(times) == summary.ticks
        assert (ram > 0).all()
        _, cpu = recording.read("host/host_cpu_percent")
        assert ((cpu >= 0) & (cpu <= 100)).all()
        assert isinstance(recording.meta.inventory, dict)
        assert len(recording.meta.inventory["gpus"]) == summary.gpus
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0

    out = tmp_path / "r.csv"
    exported = export(path, out)
    assert exported.rows == summary.ticks
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert len(rows) == summary.ticks + 1
    assert "host/host_ram_used_bytes [B]" in rows[0]
    assert all(row[rows[0].index("host/host_ram_used_bytes [B]")] for row in rows[1:])


def test_record_stops_on_its_stop_event_and_sigterm(tmp_path: Path) -> None:
    stop = threading.Event()
    timer = threading.Timer(0.7, stop.set)
    timer.start()
    summary = record(LiveSystem(), tmp_path / "a.sqlite", rate_hz=5.0, stop_event=stop)
    timer.join()
    assert summary.stopped_by == "stop" and summary.ticks >= 2

    # SIGTERM, as `kill` sends it: the handler is installed on the main thread (pytest's).
    def terminate() -> None:
        signal.raise_signal(signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    timer = threading.Timer(0.7, terminate)
    timer.start()
    summary = record(LiveSystem(), tmp_path / "b.sqlite", rate_hz=5.0)
    timer.join()
    assert summary.stopped_by == "signal"
    assert signal.getsignal(signal.SIGTERM) == previous  # restored
    with open_recording(tmp_path / "b.sqlite") as recording:
        assert recording.meta.complete and recording.sample_count() > 0


def test_record_of_a_replayed_machine_records_its_gpu_readings(tmp_path: Path) -> None:
    system = ReplaySystem.from_file(SNAPSHOTS / "rx7900xtx_rocm.json")
    summary = record(system, tmp_path / "replay.sqlite", rate_hz=20.0, duration_s=0.5)
    assert summary.gpus == 1
    with open_recording(tmp_path / "replay.sqlite") as recording:
        _, temps = recording.read("0000:03:00.0/temp_junction_c")
        assert len(temps) >= 5 and set(temps.tolist()) == {48.0}
        source = {s.name: s.source for s in recording.series}["0000:03:00.0/temp_junction_c"]
        assert source == ("sysfs:/sys/class/drm/card1/device/hwmon/hwmon2/temp2_input "
                          "(millidegrees C)")


@pytest.mark.parametrize(("rate", "duration", "message"), [
    (0.1, 1.0, "--rate must be 0.5 to 20 Hz"),
    (50.0, 1.0, "--rate must be 0.5 to 20 Hz"),
    (2.0, 0.0, "--duration must be positive"),
])
def test_record_refuses_bad_arguments(tmp_path: Path, rate: float, duration: float,
                                      message: str) -> None:
    with pytest.raises(RecordingError, match=message):
        record(LiveSystem(), tmp_path / "r.sqlite", rate_hz=rate, duration_s=duration)
    assert not (tmp_path / "r.sqlite").exists()


def test_record_refuses_an_existing_file_and_export_a_bad_one(tmp_path: Path) -> None:
    existing = tmp_path / "taken.sqlite"
    existing.write_text("my thesis")
    with pytest.raises(RecordingError, match="exists"):
        record(LiveSystem(), existing, rate_hz=2.0, duration_s=1.0)
    assert existing.read_text() == "my thesis"
    with pytest.raises(RecordingError, match="not a gpuscope recording"):
        export(existing, tmp_path / "out.csv")
