"""`gpuscope record` as a user runs it, including being killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuscope.telemetry.recorder import open_recording


def test_record_then_export(tmp_path: Path) -> None:
    recording, csv = tmp_path / "r.sqlite", tmp_path / "r.csv"
    result = subprocess.run(
        [sys.executable, "-m", "gpuscope", "record", "-o", str(recording), "--duration", "2",
         "--rate", "10"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "stopped by duration" in result.stdout
    with open_recording(recording) as opened:
        assert opened.meta.complete
        host_series = [s for s in opened.series if s.name.startswith("host/")]
        assert host_series
        times, values = opened.read("host/host_ram_used_bytes")
        assert 15 <= len(times) <= 25 and all(v > 0 for v in values)
    exported = subprocess.run([sys.executable, "-m", "gpuscope", "export", str(recording),
                               "--csv", str(csv)], capture_output=True, text=True, timeout=60,
                              check=False)
    assert exported.returncode == 0, exported.stderr
    header = csv.read_text().splitlines()[0]
    assert header.startswith("time_utc,time_s,") and "host/host_cpu_percent [%]" in header


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL is POSIX")
def test_a_killed_recording_keeps_all_but_about_the_last_second(tmp_path: Path) -> None:
    recording = tmp_path / "killed.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-m", "gpuscope", "record", "-o", str(recording), "--rate", "10"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not recording.exists():
            time.sleep(0.1)
        time.sleep(3.0)
        killed_at = time.time()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == -signal.SIGKILL
    with open_recording(recording) as opened:
        assert not opened.meta.complete  # no clean close was written
        times, _values = opened.read("host/host_ram_used_bytes")
    assert len(times) >= 15
    assert killed_at - times[-1] <= 1.6, f"lost {killed_at - times[-1]:.2f} s"


def test_the_window_refuses_a_file_that_is_not_a_recording(tmp_path: Path) -> None:
    bogus = tmp_path / "not-a-recording.sqlite"
    bogus.write_text("hello")
    result = subprocess.run([sys.executable, "-m", "gpuscope", "--recording", str(bogus)],
                            capture_output=True, text=True, timeout=60, check=False,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 1
    assert result.stderr.startswith("gpuscope: ") and result.stderr.count("\n") == 1
