"""Nothing lost, nothing clobbered (issue #16, item 3): a recording is locked by its writer;
an output that is an input is refused; a full disk stops `record` at once and leaves a file
marked incomplete; the main .sqlite alone holds nearly everything after `kill -9`; files are
written through an exclusive temporary, never through a planted symlink, and a failed write
leaves the old file."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from gpuscope import safe_write
from gpuscope.bench.import_command import write_json_file
from gpuscope.cli import main
from gpuscope.telemetry.recorder import Recorder, RecordingError, open_recording, write_recording

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = REPO / "tests" / "fixtures" / "snapshots" / "rx7900xtx_rocm.json"
T0 = 1_750_000_000.0
SERIES = "0000:03:00.0/power_w"  # a series the replayed RX 7900 XTX gives every tick


def _gpuscope(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpuscope", "--replay", str(SNAPSHOT), *args]


def _start_record(path: Path, *extra: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(_gpuscope("record", "-o", str(path), "--rate", "10", *extra),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=REPO)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not Path(f"{path}.lock").exists():
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    return process


def _small_recording(path: Path) -> Path:
    times = T0 + np.arange(20) * 0.5
    write_recording(path, times, {"host/host_cpu_percent": np.arange(20, dtype=float)},
                    rate_hz=2.0)
    return path


def _wait_for_ticks(path: Path, ticks: int, timeout_s: float = 30.0) -> None:
    """Until the recording being written holds `ticks` sample times (read through SQLite's
    WAL beside its writer), or `timeout_s` has passed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(sqlite3.Error), contextlib.closing(
                sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)) as db:
            held = db.execute("SELECT (SELECT COUNT(*) FROM tail) + "
                              "(SELECT COALESCE(SUM(ticks), 0) FROM chunks)").fetchone()[0]
            if held >= ticks:
                return
        time.sleep(0.2)


def _only_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and stderr.startswith("gpuscope: "), stderr
    return stderr[len("gpuscope: "):].rstrip("\n")


# ----------------------------------------------------------------------------- the writer lock


@pytest.mark.skipif(os.name == "nt", reason="SIGTERM ends a process at once on Windows")
@pytest.mark.parametrize("overwrite", [True, False], ids=["--overwrite", "plain"])
def test_a_second_record_is_refused_while_the_first_runs(tmp_path: Path,
                                                         overwrite: bool) -> None:
    path = tmp_path / "r.sqlite"
    first = _start_record(path, "--json")  # until SIGTERM: running whatever the load here
    try:
        time.sleep(1.0)
        second = subprocess.run(
            _gpuscope("record", "-o", str(path), "--duration", "1",
                      *(["--overwrite"] if overwrite else [])),
            capture_output=True, text=True, timeout=60, check=False, cwd=REPO)
        assert first.poll() is None
        _wait_for_ticks(path, 30)  # the first run goes on whatever the load here
        first.send_signal(signal.SIGTERM)
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 1
    line = _only_line(second.stderr)
    assert line == (f"{path} is being recorded by process {first.pid}; stop that recording "
                    "first or record into another file")
    assert first.returncode == 0, err
    summary = json.loads(out)
    assert summary["stopped_by"] == "signal"
    with open_recording(path) as recording:  # the first run's data, all of it
        assert recording.meta.complete
        times, _ = recording.read(SERIES)
        assert len(times) == summary["ticks"] >= 30
        assert recording.sample_count() == summary["samples"]
    assert not Path(f"{path}.lock").exists()


def test_the_lock_names_this_process_and_ends_with_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    first = Recorder(path, rate_hz=2.0)
    try:
        with pytest.raises(RecordingError, match=f"being recorded by process {os.getpid()};"):
            Recorder(path, overwrite=True)
        assert path.exists()
    finally:
        first.close()
    Recorder(path, overwrite=True).close()  # released: taken again
    # A lock file left by a killed writer holds no lock: it is taken over.
    Path(f"{path}.lock").write_text("999999\n")
    Recorder(path, overwrite=True).close()
    assert not Path(f"{path}.lock").exists()


# ----------------------------------------------------------------------------- outputs onto inputs


def test_export_onto_its_own_recording_is_refused(tmp_path: Path) -> None:
    recording = _small_recording(tmp_path / "R")
    before = recording.read_bytes()
    result = subprocess.run([sys.executable, "-m", "gpuscope", "export", str(recording), "--csv",
                             str(recording)], capture_output=True, text=True, timeout=60,
                            check=False, cwd=REPO)
    assert result.returncode == 2
    assert "would overwrite the recording" in _only_line(result.stderr)
    assert recording.read_bytes() == before
    # In Chinese too, as JSON lines as well as CSV.
    for option in ("--csv", "--json-lines"):
        result = subprocess.run([sys.executable, "-m", "gpuscope", "--lang", "zh_CN", "export",
                                 str(recording), option, str(recording)], capture_output=True,
                                text=True, timeout=60, check=False, cwd=REPO)
        assert result.returncode == 2
        assert "会覆盖录制文件" in _only_line(result.stderr)
    assert recording.read_bytes() == before


def test_other_names_of_an_input_are_refused_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recording = _small_recording(tmp_path / "r.sqlite")
    before = recording.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "alias.sqlite").symlink_to(recording)
    for output in (tmp_path / "alias.sqlite", tmp_path / "sub" / ".." / "r.sqlite",
                   Path(f"{recording}-wal")):
        assert main(["export", str(recording), "--csv", str(output)]) == 2
        assert "would overwrite the recording" in _only_line(capsys.readouterr().err)
    assert main(["report", "--recording", str(recording), "--replay", str(SNAPSHOT),
                 "--no-frameworks", "--no-bench", "-q", "-o", str(recording)]) == 2
    assert "would overwrite the input" in _only_line(capsys.readouterr().err)
    assert recording.read_bytes() == before
    assert not Path(f"{recording}-wal").exists()


def test_record_and_snapshot_onto_the_replay_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "machine.json"
    shutil.copyfile(SNAPSHOT, replay)
    before = replay.read_bytes()
    for args in (["record", "-o", str(replay), "--overwrite", "--duration", "1"],
                 ["snapshot", "-o", str(replay), "--no-frameworks"]):
        assert main(["--replay", str(replay), *args]) == 2
        assert f"would overwrite the input {replay}" in _only_line(capsys.readouterr().err)
    assert replay.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["machine.json"]


# ----------------------------------------------------------------------------- kill -9


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL is POSIX")
def test_after_kill_9_the_main_file_alone_holds_all_but_the_last_seconds(
        tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    process = _start_record(path)
    try:
        time.sleep(5.0)
        killed_at = time.time()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    alone = tmp_path / "copy" / "killed.sqlite"
    alone.parent.mkdir()
    shutil.copyfile(path, alone)  # the main file only: no -wal, no -shm
    with open_recording(alone) as recording:
        assert not recording.meta.complete
        assert recording.meta.incomplete_reason == (
            "its writer did not close it (still recording, killed or crashed)")
        times, _ = recording.read(SERIES)
    assert len(times) >= 25
    assert killed_at - times[-1] <= 2.5, f"the main file lacks {killed_at - times[-1]:.2f} s"


# ----------------------------------------------------------------------------- a full disk


@contextlib.contextmanager
def _tiny_filesystem(folder: Path) -> Iterator[Path]:
    """A 2 MB tmpfs at `folder` (root only; the test is skipped otherwise, with why)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a 2 MB tmpfs needs root")
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> float:
    """Fill the file system; the monotonic time it was full."""
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(descriptor, b"\0" * 65536)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
        try:
            while True:
                os.write(descriptor, b"\0" * 512)
        except OSError:
            return time.monotonic()
    finally:
        os.close(descriptor)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs is Linux")
def test_record_into_a_full_disk_stops_at_once_and_marks_the_file(tmp_path: Path) -> None:
    with _tiny_filesystem(tmp_path / "tiny") as tiny:
        path = tiny / "r.sqlite"
        process = _start_record(path, "--rate", "20")
        try:
            time.sleep(2.0)
            full_at = _fill(tiny)
            _out, err = process.communicate(timeout=30)
            stopped_after_s = time.monotonic() - full_at
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 1
        line = _only_line(err)
        assert line.startswith(f"writing {path} failed (database or disk is full); it keeps "
                               "the ") and line.endswith(" ticks written before, marked "
                                                         "incomplete")
        assert stopped_after_s <= 2.0, f"{stopped_after_s:.2f} s after the disk filled"
        (tiny / "filler").unlink()
        with open_recording(path) as recording:
            assert not recording.meta.complete
            assert recording.meta.incomplete_reason == line
            times, _ = recording.read(SERIES)
            assert len(times) >= 20
        assert sorted(p.name for p in tiny.iterdir()) == ["r.sqlite"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs is Linux")
def test_exports_and_reports_onto_a_full_disk_leave_the_old_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recording = tmp_path / "big.sqlite"
    times = T0 + np.arange(40_000) * 0.05
    write_recording(recording, times, {f"host/m{i}": np.sin(times + i) for i in range(4)})
    with _tiny_filesystem(tmp_path / "tiny") as tiny:
        csv, report = tiny / "out.csv", tiny / "report.md"
        csv.write_text("the old export\n")
        report.write_text("the old report\n")
        _fill(tiny)
        assert main(["export", str(recording), "--csv", str(csv)]) == 1
        assert "No space left on device" in _only_line(capsys.readouterr().err)
        assert main(["--replay", str(SNAPSHOT), "report", "--no-frameworks", "--no-bench",
                     "-q", "-o", str(report)]) == 1
        assert "No space left on device" in _only_line(capsys.readouterr().err)
        assert csv.read_text() == "the old export\n"
        assert report.read_text() == "the old report\n"
        assert sorted(p.name for p in tiny.iterdir()) == ["filler", "out.csv", "report.md"]


# ----------------------------------------------------------------------------- safe writes


def test_a_symlink_planted_at_the_temporary_name_is_not_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's file\n")
    output = tmp_path / "snap.json"
    # The name the old writer used, and the first random name the new one will draw.
    (tmp_path / ".snap.json.tmp").symlink_to(victim)
    names = iter(["000000000000", "111111111111"])
    monkeypatch.setattr(safe_write.secrets, "token_hex", lambda n: next(names))
    (tmp_path / ".snap.json.000000000000.tmp").symlink_to(victim)
    assert main(["--replay", str(SNAPSHOT), "snapshot", "-o", str(output),
                 "--no-frameworks"]) == 0
    capsys.readouterr()
    assert victim.read_text() == "the victim's file\n"
    assert json.loads(output.read_text())["format"] == "gpuscope-snapshot"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".snap.json.000000000000.tmp", ".snap.json.tmp", "snap.json", "victim.txt"]


def test_a_failing_write_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), safe_write.atomic_output(target) as handle:
        handle.write("half of it")
        raise RuntimeError("the producer failed")
    assert target.read_text() == "old\n"

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(safe_write.os, "fsync", full)
    assert not write_json_file(str(target), {"new": 1}, sys.stderr)  # bench -o
    assert "No space left on device" in capsys.readouterr().err
    recording = _small_recording(tmp_path / "r.sqlite")
    assert main(["export", str(recording), "--csv", str(target)]) == 1
    assert main(["--replay", str(SNAPSHOT), "report", "--no-frameworks", "--no-bench", "-q",
                 "-o", str(target)]) == 1
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "r.sqlite"]


def test_the_safe_writer_keeps_permissions_and_replaces_a_symlinked_target(
        tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text("{}")
    target.chmod(0o640)
    safe_write.write_text(target, '{"a": 1}')
    assert target.read_text() == '{"a": 1}' and target.stat().st_mode & 0o777 == 0o640
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not to be written through\n")
    link = tmp_path / "link.txt"
    link.symlink_to(elsewhere)
    safe_write.write_text(link, "new\n")
    assert not link.is_symlink() and link.read_text() == "new\n"
    assert elsewhere.read_text() == "not to be written through\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_pipe_or_device_target_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    safe_write.write_text(fifo, "through the pipe\n")  # as `export --csv /dev/stdout` does
    reader.join(10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
