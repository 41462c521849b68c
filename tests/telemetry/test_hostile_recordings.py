"""Crafted recordings (tests/fixtures/hostile_recordings/): every reader of recordings answers
each with its one expected line, never a traceback: `gpuscope export`, `gpuscope report
--recording`, the Telemetry page's loader and the window's `gpuscope --recording`."""

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
    return re.compile(re.escape(f"{path}: ") + case["error"])


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
        with open_recording(path) as opened:
            assert opened.sample_count() == 10
        return
    expected = _expected(case, path)
    for status, out in ((exported, export_out), (reported, report_out)):
        assert status == 1
        assert out.err.count("\n") == 1, out.err
        assert out.err.startswith("gpuscope: ") and expected.fullmatch(
            out.err[len("gpuscope: "):].rstrip("\n")), out.err
    assert csv.read_text() == "an older export\n"  # the failed export left the old file
    assert not report.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, "out.csv"])
    with pytest.raises(RecordingError) as raised:
        recording_feed(path)
    assert expected.fullmatch(str(raised.value)), str(raised.value)


@pytest.mark.parametrize("name", ["time-1e300.sqlite", "nested-inventory.sqlite"])
def test_the_window_answers_one_line(name: str, tmp_path: Path) -> None:
    case = next(c for c in CASES if c["file"] == name)
    path = _copy(case, tmp_path)
    result = subprocess.run([sys.executable, "-m", "gpuscope", "--recording", str(path)],
                            capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert _expected(case, path).fullmatch(result.stderr[len("gpuscope: "):].rstrip("\n"))
