"""Recordings: a recording process killed with SIGKILL leaves a file that opens and holds all
but about the last second; round trips through the recorder, the reader and the CSV export;
files that are not recordings give one-line errors."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.metrics import Reading
from gpuscope.telemetry.export import export_csv
from gpuscope.telemetry.recorder import (
    LoadCancelled,
    Recorder,
    RecordingError,
    open_recording,
    write_recording,
)
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import BaseSource

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
T0 = 1_750_000_000.0


class StepSource(BaseSource):
    """utilization = the tick number; power missing every third tick; a fixed memory value."""

    def __init__(self, device: str, isolated: bool = True) -> None:
        self.device = device
        self.label = device
        self.isolated = isolated
        self.reads = 0

    def metrics(self) -> tuple[str, ...]:
        return ("gpu_util_percent", "power_w", "vram_used_bytes")

    def read(self) -> Mapping[str, Reading]:
        self.reads += 1
        power = (Reading(None, None, "no power this tick") if self.reads % 3 == 0
                 else Reading(100.0 + self.reads / 4, "fake:power"))
        return {"gpu_util_percent": Reading(float(self.reads), "fake:util"),
                "power_w": power,
                "vram_used_bytes": Reading(25753026560.0, "fake:vram")}


def record_ticks(path: Path, ticks: int, **recorder_options: object) -> Sampler:
    clock = {"t": T0}
    sampler = Sampler([StepSource("0000:03:00.0"), StepSource("host", False)], rate_hz=10.0,
                      clock=lambda: clock["t"])
    system = ReplaySystem.from_file(SNAPSHOTS / "rx7900xtx_rocm.json")
    recorder = Recorder(path, rate_hz=10.0, inventory=collect_inventory(system),
                        **recorder_options)  # type: ignore[arg-type]
    recorder.attach(sampler)
    try:
        for _ in range(ticks):
            clock["t"] += 0.1
            sampler.tick()
    finally:
        sampler.stop()
        recorder.close()
    assert recorder.error is None
    assert recorder.ticks_written == ticks
    return sampler


def test_a_recording_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    sampler = record_ticks(path, 30)
    with open_recording(path) as recording:
        meta = recording.meta
        assert (meta.format, meta.version, meta.rate_hz, meta.complete) == (
            "gpuscope-recording", 3, 10.0, True)
        assert meta.started_utc and meta.gpuscope_version
        assert isinstance(meta.inventory, dict)
        assert meta.inventory["gpus"][0]["pci_bus"] == "0000:03:00.0"
        series = {s.name: s for s in recording.series}
        assert set(series) == {s.name for s in sampler.series}
        power = series["0000:03:00.0/power_w"]
        assert (power.unit, power.source, power.device, power.metric) == (
            "W", "fake:power", "0000:03:00.0", "power_w")
        assert series["host/vram_used_bytes"].unit == "B"
        assert series["host/gpu_util_percent"].unit == "%"
        assert recording.devices == ("0000:03:00.0", "host")
        assert recording.device_labels() == {
            "0000:03:00.0": "AMD Radeon RX 7900 XTX (0000:03:00.0)", "host": "alice-desktop"}
        # 30 ticks x 2 devices x 3 series, less the missing power every third tick.
        assert recording.sample_count() == 30 * 2 * 3 - 2 * 10
        first, last = recording.time_range() or (0.0, 0.0)
        assert first == pytest.approx(T0 + 0.1) and last == pytest.approx(T0 + 3.0)
        times, values = recording.read("0000:03:00.0/gpu_util_percent")
        assert list(values) == [float(i) for i in range(1, 31)]
        assert np.allclose(times, T0 + 0.1 * np.arange(1, 31))
        times, values = recording.read("0000:03:00.0/gpu_util_percent", since=T0 + 1.05,
                                       until=T0 + 1.55)
        assert list(values) == [11.0, 12.0, 13.0, 14.0, 15.0]
        power_times, _ = recording.read("0000:03:00.0/power_w")
        assert len(power_times) == 20
        with pytest.raises(RecordingError, match="no series"):
            recording.read("nope/power_w")
        rings = recording.load_into_rings()
        live_times, live = sampler.rings["0000:03:00.0"].snapshot()
        loaded_times, loaded = rings["0000:03:00.0"].snapshot()
        assert np.allclose(loaded_times, live_times)
        for name, column in live.items():
            assert np.array_equal(loaded[name], column, equal_nan=True), name
        tail = recording.load_into_rings(max_rows=5)["host"]
        assert len(tail) == 5 and tail.latest("host/gpu_util_percent") == 30.0


def test_csv_export_is_wide_with_units_and_empty_cells(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record_ticks(path, 4)
    out = tmp_path / "r.csv"
    summary = export_csv(path, out)
    assert (summary.rows, summary.columns) == (4, 6)
    with open(out, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["time_utc", "time_s",
                       "0000:03:00.0/gpu_util_percent [%]", "0000:03:00.0/power_w [W]",
                       "0000:03:00.0/vram_used_bytes [B]", "host/gpu_util_percent [%]",
                       "host/power_w [W]", "host/vram_used_bytes [B]"]
    assert rows[1][0].endswith("Z") and rows[1][0].startswith("2025-06-15T")
    assert [r[1] for r in rows[1:]] == ["0.000", "0.100", "0.200", "0.300"]
    assert rows[1][2:] == ["1", "100.25", "25753026560", "1", "100.25", "25753026560"]
    assert rows[3][3] == "" and rows[3][6] == ""  # the third tick had no power
    assert summary.first_utc == rows[1][0] and summary.last_utc == rows[4][0]


def test_commits_reach_the_file_while_recording(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    recorder = Recorder(path, rate_hz=10.0, commit_interval_s=0.3)
    sampler = Sampler([StepSource("host", False)], rate_hz=10.0)
    recorder.attach(sampler)
    try:
        for _ in range(5):
            sampler.tick()
        deadline = time.monotonic() + 5
        count = 0
        while time.monotonic() < deadline and count < 14:
            time.sleep(0.1)
            with open_recording(path) as other:
                count = other.sample_count()
        assert count == 14  # 5 ticks x 3 series, one power missing: visible before close
    finally:
        sampler.stop()
        recorder.close()


RECORD_SCRIPT = textwrap.dedent("""
    import sys
    from gpuscope.evidence import LiveSystem
    from gpuscope.telemetry.commands import record

    record(LiveSystem(), sys.argv[1], rate_hz=20.0)
""")


def test_a_recording_killed_with_sigkill_opens_and_holds_all_but_the_last_second(
        tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    process = subprocess.Popen([sys.executable, "-c", RECORD_SCRIPT, str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        first_seen = None
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
            if path.exists():
                try:
                    with open_recording(path) as recording:
                        span = recording.time_range()
                except RecordingError:
                    span = None
                if span is not None:
                    first_seen = span[0]
                    break
            time.sleep(0.1)
        assert first_seen is not None, "the recording never got a sample"
        time.sleep(3.0)
        killed_at = time.time()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == -signal.SIGKILL
    assert Path(f"{path}-wal").exists()  # the writer died with its log not checkpointed

    with open_recording(path) as recording:
        assert recording.meta.complete is False  # never closed
        assert recording.meta.rate_hz == 20.0
        first, last = recording.time_range() or (0.0, 0.0)
        assert killed_at - last <= 1.0, f"lost {killed_at - last:.2f} s"
        assert last - first >= 2.5
        times, values = recording.read("host/host_ram_used_bytes")
        assert len(times) >= 0.8 * 20 * (last - first)  # about 20 Hz, nothing skipped
        assert np.all(np.diff(times) > 0) and np.all(values > 0)
        cpu_times, _ = recording.read("host/host_cpu_percent")
        assert len(cpu_times) == len(times)
        series = {s.name: s for s in recording.series}
        assert series["host/host_cpu_percent"].source == "psutil:psutil.cpu_percent()"
        count = len(times)

    # It opens again (the log replayed once is not needed twice) and exports.
    out = tmp_path / "killed.csv"
    summary = export_csv(path, out)
    assert summary.rows == count
    with open(out, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert "host/host_cpu_percent [%]" in header and "host/host_ram_used_bytes [B]" in header


# ----------------------------------------------------------------------------- bad files


def make_sqlite(path: Path, script: str) -> None:
    with sqlite3.connect(path) as db:
        db.executescript(script)


@pytest.mark.parametrize(("setup", "message"), [
    ("missing", "no such file"),
    ("empty", "not a gpuscope recording (an empty file)"),
    ("text", "not a gpuscope recording (not an SQLite file)"),
    ("directory", "is a directory, not a recording"),
    ("foreign", "is an SQLite file but not a gpuscope recording"),
    ("other_format", "not a gpuscope recording (format 'something-else')"),
    ("newer", "recording version 4 is newer than this gpuscope reads (3)"),
    ("garbage", "damaged recording"),
    ("bad_version", "recording version 'one' is not a number"),
])
def test_files_that_are_not_recordings_give_one_line_errors(
        tmp_path: Path, setup: str, message: str) -> None:
    path = tmp_path / "bad.sqlite"
    schema = ("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
              "CREATE TABLE series (id INTEGER PRIMARY KEY, name TEXT, unit TEXT, source TEXT);"
              "CREATE TABLE samples (t REAL, series_id INTEGER, value REAL);")
    if setup == "empty":
        path.write_bytes(b"")
    elif setup == "text":
        path.write_text("time,power\n1,2\n")
    elif setup == "directory":
        path.mkdir()
    elif setup == "foreign":
        make_sqlite(path, "CREATE TABLE photos (id INTEGER, name TEXT);")
    elif setup == "other_format":
        make_sqlite(path, schema + "INSERT INTO meta VALUES ('format', 'something-else');")
    elif setup == "newer":
        make_sqlite(path, schema + "INSERT INTO meta VALUES ('format', 'gpuscope-recording');"
                                   "INSERT INTO meta VALUES ('version', '4');")
    elif setup == "bad_version":
        make_sqlite(path, schema + "INSERT INTO meta VALUES ('format', 'gpuscope-recording');"
                                   "INSERT INTO meta VALUES ('version', 'one');")
    elif setup == "garbage":
        path.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    with pytest.raises(RecordingError) as caught:
        open_recording(path)
    text = str(caught.value)
    assert message in text and "\n" not in text
    if setup not in ("missing", "directory"):
        with pytest.raises(RecordingError):
            export_csv(path, tmp_path / "out.csv")


def test_a_truncated_recording_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record_ticks(path, 200)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    try:
        with open_recording(path) as recording:
            recording.sample_count()
            list(recording.iter_rows())
    except RecordingError as exc:
        assert "\n" not in str(exc)


def test_the_recorder_refuses_to_overwrite_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record_ticks(path, 3)
    with pytest.raises(RecordingError, match="exists"):
        Recorder(path)
    record_ticks(path, 5, overwrite=True)
    with open_recording(path) as recording:
        assert recording.sample_count() == 5 * 2 * 3 - 2
    with pytest.raises(RecordingError, match="cannot write a recording"):
        Recorder(tmp_path / "no" / "such" / "dir" / "r.sqlite")


def test_a_version_3_file_holds_chunks_and_plain_json_meta(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record_ticks(path, 3)
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert {"chunks", "tail", "series", "meta", "missing"} <= tables
        assert "samples" not in tables
        assert db.execute("SELECT ticks, series, samples FROM chunks").fetchall() == [(3, 6, 16)]
        assert db.execute("SELECT COUNT(*) FROM tail").fetchone()[0] == 0  # folded in
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        assert json.loads(meta["inventory"])["host"]["hostname"] == "alice-desktop"
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert (meta["version"], meta["min_reader_version"]) == ("3", "3")


def test_version_2_nan_values_are_not_stored_and_meta_is_plain_json(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record_ticks(path, 3, format_version=2)
    with sqlite3.connect(path) as db:
        nulls = db.execute("SELECT COUNT(*) FROM samples WHERE value IS NULL").fetchone()[0]
        assert nulls == 0
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        assert json.loads(meta["inventory"])["host"]["hostname"] == "alice-desktop"
        index = db.execute("SELECT sql FROM sqlite_master WHERE name = 'samples_series_t'")
        assert "(series_id, t)" in index.fetchone()[0]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not math.isnan(float(meta["rate_hz"]))


# ----------------------------------------------------------------------------- version 2


def test_why_a_series_is_missing_is_recorded_when_it_changes(tmp_path: Path) -> None:
    """StepSource's power is missing every third tick: the recording holds each change of
    reason (and "" when power is back), not a row per tick."""
    path = tmp_path / "r.sqlite"
    record_ticks(path, 7)
    with open_recording(path) as recording:
        assert recording.meta.version == 3
        changes = recording.missing_reasons("0000:03:00.0/power_w")["0000:03:00.0/power_w"]
        ticks = [T0 + 0.1 * i for i in range(1, 8)]
        assert [(round(t, 3), why) for t, why in changes] == [
            (round(ticks[2], 3), "no power this tick"), (round(ticks[3], 3), ""),
            (round(ticks[5], 3), "no power this tick"), (round(ticks[6], 3), "")]
        assert recording.reason_at("0000:03:00.0/power_w", ticks[2] + 0.05) == (
            "no power this tick")
        assert recording.reason_at("0000:03:00.0/power_w", ticks[4]) is None
        assert "0000:03:00.0/gpu_util_percent" not in recording.missing_reasons()
    with sqlite3.connect(path) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    assert (meta["version"], meta["min_reader_version"]) == ("3", "3")


def test_a_version_1_recording_still_opens_without_reasons(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    record_ticks(path, 6, format_version=2)
    with sqlite3.connect(path) as db:  # what gpuscope wrote before reasons were stored
        db.execute("DROP TABLE missing")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
        db.execute("DELETE FROM meta WHERE key = 'min_reader_version'")
    with open_recording(path) as recording:
        assert recording.meta.version == 1
        assert recording.missing_reasons() == {}
        assert recording.reason_at("0000:03:00.0/power_w", T0 + 0.3) is None
        assert recording.sample_count() == 6 * 2 * 3 - 2 * 2
        assert len(recording.load_into_rings()["0000:03:00.0"]) == 6


def test_a_newer_recording_that_older_readers_can_read_opens(tmp_path: Path) -> None:
    for version in (2, 3):
        path = tmp_path / f"v9-like-v{version}.sqlite"
        record_ticks(path, 3, format_version=version)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = '9' WHERE key = 'version'")
            db.execute("UPDATE meta SET value = ? WHERE key = 'min_reader_version'",
                       (str(version),))
        with open_recording(path) as recording:
            assert recording.meta.version == 9 and recording.sample_count() == 3 * 2 * 3 - 2
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '4' WHERE key = 'min_reader_version'")
    with pytest.raises(RecordingError, match="version 9 is newer than this gpuscope reads"):
        open_recording(path)


def test_arrays_written_as_a_recording_read_back(tmp_path: Path) -> None:
    path = tmp_path / "arrays.sqlite"
    times = T0 + np.arange(50, dtype=np.float64) * 0.5
    util = np.linspace(0.0, 98.0, 50)
    util[10:15] = np.nan
    write_recording(path, times, {"0000:03:00.0/gpu_util_percent": util,
                                  "host/host_cpu_percent": np.full(50, 12.5)},
                    rate_hz=2.0, sources={"host/host_cpu_percent": "psutil.cpu_percent()"},
                    reasons={"0000:03:00.0/fan_rpm": "no fan"})
    with open_recording(path) as recording:
        assert recording.meta.complete and recording.meta.rate_hz == 2.0
        read_times, values = recording.read("0000:03:00.0/gpu_util_percent")
        assert len(read_times) == 45 and values[-1] == 98.0
        series = {s.name: s for s in recording.series}
        assert series["host/host_cpu_percent"].source == "psutil.cpu_percent()"
        assert recording.reason_at("0000:03:00.0/fan_rpm", T0 + 10) == "no fan"
        progress: list[tuple[int, int]] = []
        rings = recording.load_into_rings(progress=lambda done, total: progress.append(
            (done, total)))
        assert progress and progress[-1][0] == progress[-1][1]
        _, columns = rings["0000:03:00.0"].snapshot()
        assert np.array_equal(columns["0000:03:00.0/gpu_util_percent"], util,
                              equal_nan=True)
        with pytest.raises(LoadCancelled):
            recording.load_into_rings(cancelled=lambda: True)


def test_a_lost_gpu_and_a_pause_in_recording_are_gaps_in_the_rings(tmp_path: Path) -> None:
    path = tmp_path / "gaps.sqlite"
    times = T0 + np.concatenate((np.arange(20.0), 40.0 + np.arange(10.0)))  # a 21 s pause
    util = np.full(len(times), 50.0)
    util[5:9] = np.nan  # the GPU gave nothing while the host did: lost
    write_recording(path, times, {"0000:03:00.0/gpu_util_percent": util,
                                  "host/host_cpu_percent": np.full(len(times), 10.0)},
                    rate_hz=1.0)
    with open_recording(path) as recording:
        rings = recording.load_into_rings()
    ring_times, columns = rings["0000:03:00.0"].snapshot()
    gpu = columns["0000:03:00.0/gpu_util_percent"]
    assert np.isnan(gpu[5:9]).all() and ring_times[5] == T0 + 5
    pause = np.flatnonzero(ring_times == T0 + 20.0)  # one period after the last sample
    assert len(pause) == 1 and np.isnan(gpu[pause[0]])
    host_times, _ = rings["host"].snapshot()
    assert np.array_equal(host_times, ring_times)
