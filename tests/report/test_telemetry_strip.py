"""The report's telemetry strip from a feed: a replayed snapshot's single readings "at capture"
(at the capture time, never today's; no min/avg/max over time, no sparkline), and a recording
whole, however long."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import telemetry_summary

from gpuscope.app.report_inputs import TELEMETRY_WINDOW_S, gather_report_inputs, telemetry_from_feed
from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import ENGLISH, language
from gpuscope.inventory import collect_inventory
from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.reading import telemetry_from_json
from gpuscope.report.share import prepare_report, telemetry_to_json
from gpuscope.report.view_model import ShareReport, TelemetrySummary
from gpuscope.telemetry.feed import FeedDevice, RingFeed
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.texts import verbatim

KEY = "0000:03:00.0"
UTIL = f"{KEY}/gpu_util_percent"
POWER = f"{KEY}/power_w"
CAPTURED_AT_S = 1_795_000_000.0  # 2026-11-18 11:06:40 UTC


def _ring(times: list[float], util: list[float], power: list[float]) -> SeriesRing:
    ring = SeriesRing((UTIL, POWER), max(8, len(times)))
    ring.append_rows(times, {UTIL: util, POWER: power})
    return ring


def _feed(times: list[float], util: list[float], power: list[float], *, live: bool,
          at_capture: bool = False, captured_at_s: float | None = None) -> RingFeed:
    device = FeedDevice(KEY, verbatim("GPU 0: Test GPU"), 0)
    return RingFeed([device], {KEY: _ring(times, util, power)}, live=live,
                    label="Replay of test data", at_capture=at_capture,
                    captured_at_s=captured_at_s)


def test_a_snapshots_readings_are_shown_at_capture_not_over_time() -> None:
    now = time.time()
    times = [now - 3 + i for i in range(4)]
    util, power = [1.0, 2.0, 9.0, 3.0], [20.0, 30.0, 40.0, 27.0]
    strip = telemetry_from_feed(_feed(times, util, power, live=True, at_capture=True,
                                      captured_at_s=CAPTURED_AT_S), replayed=True)
    assert strip is not None and strip.at_capture and not strip.live
    # The capture's time, not the time the sampler repeated the values at.
    assert strip.started_unix_s == CAPTURED_AT_S and strip.duration_s is None
    stats = {m.metric: m for m in strip.devices[0].metrics}
    assert (stats["gpu_util_percent"].min, stats["gpu_util_percent"].avg,
            stats["gpu_util_percent"].max) == (3.0, 3.0, 3.0)
    assert stats["power_w"].avg == 27.0 and stats["power_w"].samples == 1
    assert all(m.spark == () for m in strip.devices[0].metrics)
    # The same rings as a feed of samples over time: the statistics of all of them.
    over_time = telemetry_from_feed(_feed(times, util, power, live=True), replayed=False)
    assert over_time is not None and not over_time.at_capture
    assert over_time.devices[0].metric("gpu_util_percent").max == 9.0  # type: ignore[union-attr]


def test_a_snapshot_without_a_capture_time_says_so_and_never_today() -> None:
    now = time.time()
    strip = telemetry_from_feed(_feed([now], [3.0], [27.0], live=True, at_capture=True))
    assert strip is not None and strip.at_capture and strip.started_unix_s is None
    report = _report(strip)
    with language(ENGLISH):
        markdown = report_markdown(report)
    today = time.strftime("%Y-%m-%d", time.gmtime(now))
    section = markdown.split("## Telemetry", 1)[1].split("<details>", 1)[0]
    assert "single readings at capture (the snapshot does not say when)" in section
    assert today not in section


def test_the_exports_show_one_reading_at_capture_with_its_time_once() -> None:
    strip = telemetry_from_feed(_feed([time.time()], [3.0], [27.0], live=True,
                                      at_capture=True, captured_at_s=CAPTURED_AT_S))
    assert strip is not None
    report = _report(strip)
    with language(ENGLISH):
        markdown = report_markdown(report)
        page = report_html(report)
    section = markdown.split("## Telemetry", 1)[1].split("<details>", 1)[0]
    assert "single readings at capture, 2026-11-18 11:06 UTC." in section
    assert section.count("2026-11-18") == 1
    assert "| Device | Metric | At capture |" in section
    assert "| GPU utilization | 3% |" in section
    assert "Min" not in section and "Avg" not in section
    telemetry = page.split('<section id="telemetry">', 1)[1].split("</section>", 1)[0]
    assert "3% <span" in telemetry and "at capture" in telemetry
    assert 'class="spark"' not in telemetry and "min" not in telemetry
    # Over time, the same exports give min, avg and max and sparklines.
    with language(ENGLISH):
        timed = report_html(_report(telemetry_summary()))
    assert 'class="spark"' in timed.split('<section id="telemetry">', 1)[1]


def test_at_capture_goes_into_the_json_and_back_and_old_json_reads_as_false() -> None:
    strip = telemetry_from_feed(_feed([time.time()], [3.0], [27.0], live=True,
                                      at_capture=True, captured_at_s=CAPTURED_AT_S))
    assert strip is not None
    report = _report(strip)
    assert report.document["telemetry_summary"]["at_capture"] is True
    assert report.telemetry is not None and report.telemetry.at_capture
    read = telemetry_from_json(json.loads(json.dumps(telemetry_to_json(strip))))
    assert read is not None and read.at_capture and read.started_unix_s == CAPTURED_AT_S
    old = telemetry_to_json(telemetry_summary())
    del old["at_capture"]
    again = telemetry_from_json(old)
    assert again is not None and again.at_capture is False


def test_a_recording_longer_than_the_live_window_is_taken_whole() -> None:
    end = 1_795_000_000.0
    minutes = 40
    times = [end - minutes * 60 + t for t in range(0, minutes * 60 + 1, 10)]
    util = [100.0 if t < end - 30 * 60 else 5.0 for t in times]  # busy only long ago
    power = [300.0 if u > 50 else 30.0 for u in util]
    recording = _feed(times, util, power, live=False)
    strip = telemetry_from_feed(recording)
    assert strip is not None and not strip.live
    assert strip.started_unix_s == times[0]
    assert strip.duration_s is not None and math.isclose(strip.duration_s, minutes * 60)
    assert strip.devices[0].metric("gpu_util_percent").max == 100.0  # type: ignore[union-attr]
    # A live feed keeps to its last 15 minutes.
    live = _feed(times, util, power, live=True)
    live.set_now(end)
    recent = telemetry_from_feed(live)
    assert recent is not None and recent.duration_s is not None
    assert recent.duration_s <= TELEMETRY_WINDOW_S
    assert recent.devices[0].metric("gpu_util_percent").max == 5.0  # type: ignore[union-attr]


def test_the_command_line_reports_a_replays_readings_at_its_capture_time(
        tmp_path: Path) -> None:
    doc = json.loads((SNAPSHOTS_DIR / "rx7900xtx_rocm.json").read_text())
    doc["meta"]["captured_utc"] = "2026-11-18T11:06:40+00:00"
    snapshot = tmp_path / "captured.json"
    snapshot.write_text(json.dumps(doc))
    inputs = gather_report_inputs(replay=str(snapshot), pythons=(), saved_runs=False)
    strip = inputs.telemetry
    assert strip is not None and strip.at_capture and not strip.live
    assert strip.started_unix_s == CAPTURED_AT_S
    gpu = strip.devices[0]
    assert gpu.metric("gpu_util_percent").avg == 3.0  # type: ignore[union-attr]
    assert all(m.samples == 1 and m.spark == () for m in gpu.metrics)
    # No strip at all when asked for none.
    assert gather_report_inputs(replay=str(snapshot), pythons=(), saved_runs=False,
                                sample_s=0).telemetry is None
    # A snapshot that holds no reading (this H200 capture has none) says so.
    bare = gather_report_inputs(replay=str(SNAPSHOTS_DIR / "nvidia_h200.json"), pythons=(),
                                saved_runs=False)
    assert bare.telemetry is None
    assert bare.notes == ("no telemetry: the snapshot holds no reading of the strip's "
                          "metrics",)


def _report(strip: TelemetrySummary) -> ShareReport:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
    data = DoctorInput(collect_inventory(system), ())
    return prepare_report(data, diagnose(data), telemetry=strip).report
