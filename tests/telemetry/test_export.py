"""`gpuscope export` (issue #16, item 4): CSV and JSON lines streamed chunk by chunk, time
ranges (--from/--to), series patterns (--series), standard output, one-line usage errors, and
memory that stays flat whatever the recording's length."""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from gpuscope.cli import main
from gpuscope.telemetry.export import (
    ExportUsageError,
    TimeBound,
    export_csv,
    export_json_lines,
    parse_time_bound,
)
from gpuscope.telemetry.recorder import open_recording, write_recording

REPO = Path(__file__).resolve().parents[2]
LEGACY = REPO / "tests" / "fixtures" / "recordings" / "legacy"
GPU, LOST_GPU = "0000:03:00.0", "0000:43:00.0"


def _legacy_maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_legacy", LEGACY /
                                                  "make_legacy_recordings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=[2, 3], ids=["v2", "v3"])
def recording(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Two minutes at 2 Hz of two GPUs and the host, a GPU lost for ten seconds and a pause
    of 20 s: the committed version 2 file, or the same samples written as version 3."""
    path = tmp_path / f"v{request.param}.sqlite"
    if request.param == 2:
        path.write_bytes((LEGACY / "v2.sqlite").read_bytes())
    else:
        times, columns = _legacy_maker().columns()
        write_recording(path, times, columns, rate_hz=2.0,
                        sources={name: f"fake:{name}" for name in columns})
    return path


def _legacy_rows() -> list[list[str]]:
    """What the gpuscope before version 3 exported of the whole recording."""
    with open(LEGACY / "v2.csv", newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _csv_rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _strict_json(line: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON: {line}")

    return json.loads(line, parse_constant=refuse)


def _only_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and stderr.startswith("gpuscope: "), stderr
    return stderr[len("gpuscope: "):].rstrip("\n")


# ----------------------------------------------------------------------------- time ranges


def test_times_are_iso_8601_or_seconds_after_the_start() -> None:
    utc = dt.timezone.utc
    assert parse_time_bound("2026-11-27T10:00:00Z") == TimeBound(
        dt.datetime(2026, 11, 27, 10, tzinfo=utc).timestamp(), False, "2026-11-27T10:00:00Z")
    assert parse_time_bound("2026-11-27T11:00:00+01:00").seconds == dt.datetime(
        2026, 11, 27, 10, tzinfo=utc).timestamp()
    # No zone: local time.
    assert parse_time_bound("2026-11-27 10:00").seconds == dt.datetime(
        2026, 11, 27, 10, 0).timestamp()
    assert parse_time_bound("2026-11-27").seconds == dt.datetime(2026, 11, 27).timestamp()
    assert parse_time_bound("+90") == TimeBound(90.0, True, "+90")
    assert parse_time_bound(" +1.5 ").seconds == 1.5


@pytest.mark.parametrize("text", ["", "yesterday", "+", "+-3", "+1e3", "+inf", "+nan",
                                  "2026-13-01", "10:00:00Z", "0001-01-01T00:00:00Z",
                                  "+" + "9" * 400])
def test_a_bad_time_is_a_one_line_usage_error(text: str) -> None:
    with pytest.raises(ExportUsageError) as raised:
        parse_time_bound(text, "--to")
    assert str(raised.value).startswith(f"--to {text!r}") and "\n" not in str(raised.value)


def test_seconds_without_a_sign_are_refused_with_the_sign_to_give() -> None:
    for text in ("90", "-90"):
        with pytest.raises(ExportUsageError, match=r"with a plus sign: \+90$"):
            parse_time_bound(text)


def test_a_range_exports_its_ticks_with_time_s_from_the_first(recording: Path,
                                                               tmp_path: Path) -> None:
    legacy = _legacy_rows()
    times, _ = _legacy_maker().columns()
    # +10 to +20 s: ticks 20..40; ISO: the same range written as UTC times.
    start = times[0]
    inside = np.flatnonzero((times >= start + 10) & (times <= start + 20))
    iso = [dt.datetime.fromtimestamp(start + s, dt.timezone.utc).isoformat() for s in (10, 20)]
    for since, until in (("+10", "+20"), (iso[0], iso[1])):
        out = tmp_path / "range.csv"
        assert main(["export", str(recording), "--csv", str(out), "--from", since,
                     "--to", until]) == 0
        rows = _csv_rows(out)
        assert rows[0] == legacy[0]
        expected = [legacy[1 + i] for i in inside]
        assert [r[0] for r in rows[1:]] == [r[0] for r in expected]
        assert [r[2:] for r in rows[1:]] == [r[2:] for r in expected]
        offset = float(expected[0][1])
        assert rows[1][1] == "0.000"
        assert [float(r[1]) for r in rows[1:]] == pytest.approx(
            [float(r[1]) - offset for r in expected], abs=0.0015)


def test_a_range_after_the_end_writes_the_header_only_and_says_so(
        recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "empty.jsonl"
    assert main(["export", str(recording), "--json-lines", str(out), "--from", "+3600"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and _strict_json(lines[0])["format"] == "gpuscope-export"
    said = capsys.readouterr().out
    assert "the header only" in said and "no tick from 2025-11-24T17:00:00.251Z" in said


# ----------------------------------------------------------------------------- series


def test_patterns_choose_series_in_the_recordings_order(recording: Path,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "some.csv"
    summary = export_csv(recording, out, series=["host/*", "*/power_w", f"{GPU}/power_w"])
    rows = _csv_rows(out)
    assert rows[0] == ["time_utc", "time_s", f"{GPU}/power_w [W]", f"{LOST_GPU}/power_w [W]",
                       "host/host_cpu_percent [%]", "host/host_ram_used_bytes [B]"]
    legacy = _legacy_rows()
    picked = [legacy[0].index(name) for name in rows[0]]
    assert rows[1:] == [[row[i] for i in picked] for row in legacy[1:]]
    assert (summary.rows, summary.columns) == (240, 4)


def test_a_tick_with_no_value_among_the_chosen_series_is_left_out(recording: Path,
                                                                   tmp_path: Path) -> None:
    # The second GPU was lost for ten seconds (20 ticks): its series have nothing there.
    summary = export_csv(recording, tmp_path / "lost.csv", series=[f"{LOST_GPU}/*"])
    assert (summary.rows, summary.columns) == (220, 7)
    rows = _csv_rows(tmp_path / "lost.csv")[1:]
    assert all(any(cell for cell in row[2:]) for row in rows)


def test_a_pattern_matching_nothing_names_some_series_there_are(
        recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.csv"
    out.write_text("an older export\n")
    assert main(["export", str(recording), "--csv", str(out), "--series", "host/*",
                 "--series", "0000:99:00.0/*"]) == 2
    line = _only_line(capsys.readouterr().err)
    assert line.startswith("--series '0000:99:00.0/*' matches none of the 16 series of ")
    assert f"{GPU}/gpu_util_percent" in line and "host/host_cpu_percent" in line
    assert line.endswith("and 12 more")
    assert out.read_text() == "an older export\n"


# ----------------------------------------------------------------------------- JSON lines


def test_json_lines_read_back_as_the_recordings_samples(recording: Path,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    summary = export_json_lines(recording, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    header = _strict_json(lines[0])
    ticks = [_strict_json(line) for line in lines[1:]]
    assert summary.rows == len(ticks) == 240 and summary.format == "json-lines"
    assert header["format"] == "gpuscope-export" and header["version"] == 1
    assert header["recording"] == str(recording)
    with open_recording(recording) as opened:
        assert header["series"] == [{"name": s.name, "unit": s.unit, "source": s.source}
                                    for s in opened.series]
        first = opened.time_range()
        assert first is not None
        for series in opened.series:
            times, values = opened.read(series.name)
            got = [(tick["time_s"], tick["values"][series.name]) for tick in ticks
                   if series.name in tick["values"]]
            assert [v for _, v in got] == values.tolist(), series.name  # exactly
            assert [t for t, _ in got] == pytest.approx((times - first[0]).tolist(),
                                                        abs=0.0006)
    assert f"{LOST_GPU}/fan_rpm" not in "".join(lines[1:])  # never reported: left out
    moment = dt.datetime.fromisoformat(ticks[0]["time_utc"].replace("Z", "+00:00"))
    assert moment.timestamp() == pytest.approx(first[0], abs=0.001)


def test_json_lines_leave_out_what_json_cannot_hold(tmp_path: Path) -> None:
    path = tmp_path / "odd.sqlite"
    write_recording(path, 1.75e9 + np.arange(4) * 0.5,
                    {"host/a_w": np.array([1.5, np.inf, np.nan, 2.0**60]),
                     "host/b_w": np.array([np.nan, np.nan, np.nan, -0.0])}, rate_hz=2.0)
    out = tmp_path / "odd.jsonl"
    export_json_lines(path, out)
    ticks = [_strict_json(line) for line in out.read_text().splitlines()[1:]]
    # The tick with nothing is left out; the infinity has no JSON: left out of its tick.
    assert [t["values"] for t in ticks] == [{"host/a_w": 1.5}, {},
                                            {"host/a_w": 2.0**60, "host/b_w": 0}]
    assert [t["time_s"] for t in ticks] == [0.0, 0.5, 1.5]


# ----------------------------------------------------------------------------- outputs


def test_standard_output_gets_what_a_file_gets(recording: Path, tmp_path: Path,
                                               capsysbinary: pytest.CaptureFixture[bytes],
                                               ) -> None:
    for option in ("--csv", "--json-lines"):
        file = tmp_path / f"out{option}"
        assert main(["export", str(recording), option, str(file), "--series", f"{GPU}/*",
                     "--to", "+30"]) == 0
        capsysbinary.readouterr()
        assert main(["export", str(recording), option, "-", "--series", f"{GPU}/*",
                     "--to", "+30"]) == 0
        captured = capsysbinary.readouterr()
        assert captured.out == file.read_bytes()  # CSV's CRLF included
        assert captured.err.decode().startswith(  # the summary keeps out of the data
            "Wrote CSV to standard output: 61 rows" if option == "--csv"
            else "Wrote JSON lines to standard output: 61 rows")


def test_json_summary_reports_rows_columns_and_ends(
        recording: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "power.csv"
    assert main(["export", str(recording), "--csv", str(out), "--series", "*/power_w",
                 "--from", "+1", "--to", "+2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {
        "recording": str(recording), "output": str(out), "format": "csv", "rows": 3,
        "columns": 2, "first_utc": "2025-11-24T16:00:01.252Z",
        "last_utc": "2025-11-24T16:00:02.248Z", "since_utc": "2025-11-24T16:00:01.251Z",
        "until_utc": "2025-11-24T16:00:02.251Z"}
    assert main(["export", str(recording), "--json-lines", "-", "--to", "+1", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.err)["rows"] == 2  # on stderr: stdout is the export
    assert [_strict_json(line) for line in captured.out.splitlines()][-1]["time_s"] == 0.502


@pytest.mark.parametrize(("extra", "expected"), [
    (["--from", "90"], "--from '90': seconds after the recording's start are written with "
                       "a plus sign: +90"),
    (["--to", "tomorrow"], "--to 'tomorrow' is not a time: give ISO 8601"),
    (["--from", "+60", "--to", "+10"], "--from +60 is after --to +10"),
    (["--from", "2025-11-24T17:00:00Z", "--to", "2025-11-24T16:00:00Z"],
     "--from 2025-11-24T17:00:00Z is after --to 2025-11-24T16:00:00Z"),
    (["--series", "*/nothing"], "--series '*/nothing' matches none of the 16 series"),
])
def test_usage_errors_are_one_line_with_exit_status_2(
        extra: list[str], expected: str, recording: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    for option in ("--csv", "--json-lines"):
        out = tmp_path / "out"
        out.write_text("an older export\n")
        assert main(["export", str(recording), option, str(out), *extra]) == 2
        captured = capsys.readouterr()
        assert _only_line(captured.err).startswith(expected) and captured.out == ""
        assert out.read_text() == "an older export\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([recording.name, "out"])


def test_an_output_onto_the_recording_is_refused_for_both_formats(
        recording: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = recording.read_bytes()
    for option in ("--csv", "--json-lines"):
        assert main(["export", str(recording), option, str(recording)]) == 2
        assert "would overwrite the recording" in _only_line(capsys.readouterr().err)
    assert recording.read_bytes() == before


def test_a_format_must_be_chosen(recording: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["export", str(recording)])
    assert raised.value.code == 2


def test_a_damaged_recording_is_one_line_with_exit_status_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "not.sqlite"
    path.write_text("not a recording")
    assert main(["export", str(path), "--json-lines", "-"]) == 1
    captured = capsys.readouterr()
    assert _only_line(captured.err).endswith("is not a gpuscope recording (not an SQLite file)")
    assert captured.out == ""


# ----------------------------------------------------------------------------- memory

_MEASURE = textwrap.dedent("""
    import resource, sys
    from gpuscope.telemetry.export import export_csv, export_json_lines
    from gpuscope.telemetry.recording import open_recording

    path, out = sys.argv[1], sys.argv[2]
    with open_recording(path) as warm:  # imports and first reads before the baseline
        warm.time_range()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    export_csv(path, out + ".csv")
    export_json_lines(path, out + ".jsonl", series=["0000:00:00.0/*"])  # 8 of the 40
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * (1 if sys.platform == "darwin" else 1024))
""")


@pytest.mark.skipif(os.name == "nt", reason="ru_maxrss is POSIX")
def test_memory_stays_flat_however_long_the_recording(tmp_path: Path) -> None:
    """Two hours of 40 series at 10 Hz: 2.9 million samples, 23 MB as float64. The peak RSS
    of a fresh process grows by a fraction of that while it exports them (measured so:
    tracemalloc would slow the export ten times)."""
    ticks, series = 2 * 3600 * 10, 40
    rng = np.random.default_rng(3)
    times = 1.75e9 + np.arange(ticks) / 10.0
    columns = {f"0000:{i // 8:02x}:00.0/m{i}_power_w": np.round(
        200 + rng.normal(0, 20, ticks), 3) for i in range(series)}
    data_bytes = ticks * series * 8
    path = tmp_path / "long.sqlite"
    write_recording(path, times, columns, rate_hz=10.0)
    del columns
    result = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120, check=False, cwd=REPO)
    assert result.returncode == 0, result.stderr
    growth_bytes = int(result.stdout)
    with open(tmp_path / "out.jsonl", encoding="utf-8") as written:
        assert sum(1 for _ in written) == ticks + 1
    assert growth_bytes < data_bytes / 2, f"grew {growth_bytes / 2**20:.1f} MiB"
