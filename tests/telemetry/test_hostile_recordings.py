"""Crafted recordings (tests/fixtures/hostile_recordings/): every reader of recordings answers
each with its one expected line, never a traceback: `gpuscope export`, `gpuscope report
--recording`, the Telemetry page's loader and the window's `gpuscope --recording`, and for
version 3 files `open_recording(...).read_block/iter_blocks/finest_level/sample_count`.

A version 3 file is read on demand, so damage to one chunk's samples is met by the readers of
samples, damage to its summary by the readers of summaries (cases.toml `damage`, MEETS
below); the others read the file, and nobody answers anything but the case's line."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpuscope.cli import main
from gpuscope.telemetry.feed_adapters import recording_feed
from gpuscope.telemetry.recorder import RecordingError, open_recording
from gpuscope.telemetry.recording import Recording

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10, where tomli is a dependency
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "hostile_recordings"
SNAPSHOT = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots" / "rx7900xtx_rocm.json"
CASES: list[dict[str, Any]] = tomllib.loads(
    (FOLDER / "cases.toml").read_text(encoding="utf-8"))["case"]


def _maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_hostile_recordings", FOLDER / "make_hostile_recordings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy(case: dict[str, Any], tmp_path: Path) -> Path:
    """The case's file in tmp_path (made there when too big to commit): readers never touch
    the committed one."""
    target = tmp_path / case["file"]
    if case.get("made_by_test"):
        _maker().make(case["file"], target)
    else:
        shutil.copyfile(FOLDER / case["file"], target)
    return target


def _expected(case: dict[str, Any], path: Path) -> re.Pattern[str]:
    # "PATH: damaged recording (...)", or "PATH is an SQLite file but not..."
    return re.compile(re.escape(str(path)) + "(?:: | )" + case["error"])


CLI_READERS = ("export", "report", "loader")
RECORDING_READERS = ("read_block", "iter_blocks", "finest_level", "sample_count")
# Which readers meet each kind of damage (cases.toml `damage`); the others read the file.
MEETS: dict[str | None, frozenset[str]] = {
    None: frozenset(CLI_READERS + RECORDING_READERS),
    "chunk": frozenset(CLI_READERS + RECORDING_READERS) - {"sample_count"},
    "samples": frozenset({"export", "loader", "read_block", "iter_blocks"}),
    "summaries": frozenset({"loader", "finest_level"}),
}
# Readers that may meet it or not, as they read the summaries or the samples.
MAY_MEET: dict[str | None, frozenset[str]] = {"samples": frozenset({"report"}),
                                               "summaries": frozenset({"report"})}


def _meets(case: dict[str, Any], reader: str) -> bool | None:
    """Whether `reader` must answer the case's line (None: it may, or may read the file)."""
    if "error" not in case:
        return False
    damage = case.get("damage")
    if reader in MAY_MEET.get(damage, frozenset()):
        return None
    return reader in MEETS[damage]


def _load_whole(path: Path) -> None:
    """The Telemetry page's loader, then every ring read whole (a version 3 file's rings
    read its chunks on demand)."""
    feed = recording_feed(path)
    for device in feed.devices():
        ring = feed.ring(device.key)
        assert ring is not None
        ring.snapshot()
        for name in ring.series:
            ring.latest(name)


def _read(recording: Recording, reader: str) -> None:
    names = [s.name for s in recording.series]
    if reader == "read_block":
        recording.read_block(names)
    elif reader == "iter_blocks":
        list(recording.iter_blocks())
    elif reader == "finest_level":
        recording.finest_level()
    else:
        recording.sample_count()


def test_every_case_is_committed_or_made_by_the_test() -> None:
    maker = _maker()
    assert {case["file"] for case in CASES} == set(maker.CASES)
    for case in CASES:
        assert (FOLDER / case["file"]).is_file() != bool(case.get("made_by_test")), case


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_export_report_and_the_loader_answer_one_line(
        case: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _copy(case, tmp_path)
    csv = tmp_path / "out.csv"
    csv.write_text("an older export\n")
    report = tmp_path / "report.json"
    exported = main(["export", str(path), "--csv", str(csv)])
    export_out = capsys.readouterr()
    reported = main(["--replay", str(SNAPSHOT), "report", "--recording", str(path), "--format",
                     "json", "--no-frameworks", "--no-bench", "--quiet", "-o", str(report)])
    report_out = capsys.readouterr()
    if "error" not in case:  # odd values are left out: every reader reads it
        assert (exported, reported) == (0, 0), (export_out.err, report_out.err)
        assert recording_feed(path).devices
        _load_whole(path)
        with open_recording(path) as opened:
            assert opened.sample_count() == case.get("samples", 10)
        return
    expected = _expected(case, path)
    for reader, status, out in (("export", exported, export_out),
                                ("report", reported, report_out)):
        meets = _meets(case, reader)
        if status == 0 and meets is not True:
            assert out.err == "", (reader, out.err)
            continue
        assert meets is not False, (reader, status, out.err)
        assert status == 1, (reader, out.err)
        assert out.err.count("\n") == 1, out.err
        assert out.err.startswith("gpuscope: ") and expected.fullmatch(
            out.err[len("gpuscope: "):].rstrip("\n")), out.err
    if exported:
        assert csv.read_text() == "an older export\n"  # the failed export left the old file
    if reported:
        assert not report.exists()
    if exported and reported:
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, "out.csv"])
    if _meets(case, "loader"):
        with pytest.raises(RecordingError) as raised:
            _load_whole(path)
        assert expected.fullmatch(str(raised.value)), str(raised.value)
    else:
        _load_whole(path)


V3_CASES = [c for c in CASES if c["file"].startswith("v3-")]


@pytest.mark.parametrize("case", V3_CASES, ids=[c["file"] for c in V3_CASES])
def test_version_3_readers_answer_one_line_or_read(case: dict[str, Any], tmp_path: Path) -> None:
    path = _copy(case, tmp_path)
    try:
        recording = open_recording(path)
    except RecordingError as exc:  # found on opening: every reader answers this
        assert case.get("damage") is None and "error" in case, str(exc)
        assert _expected(case, path).fullmatch(str(exc)), str(exc)
        return
    with recording:
        for reader in RECORDING_READERS:
            if _meets(case, reader):
                with pytest.raises(RecordingError) as raised:
                    _read(recording, reader)
                assert "\n" not in str(raised.value)
                assert _expected(case, path).fullmatch(str(raised.value)), (reader, raised.value)
            else:
                _read(recording, reader)


@pytest.mark.parametrize("name", ["time-1e300.sqlite", "nested-inventory.sqlite",
                                  "v3-time-1e300.sqlite"])
def test_the_window_answers_one_line(name: str, tmp_path: Path) -> None:
    case = next(c for c in CASES if c["file"] == name)
    path = _copy(case, tmp_path)
    result = subprocess.run([sys.executable, "-m", "gpuscope", "--recording", str(path)],
                            capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert _expected(case, path).fullmatch(result.stderr[len("gpuscope: "):].rstrip("\n"))
