"""The report picture: 1200 px wide, tall enough for everything, text never under 15 px or
past the margin, a replay banner in its colour, and nothing but redacted text drawn."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR, TESTS_DIR
from PySide6.QtGui import QColor, QFont, QImage

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.metrics import CATALOGUE
from gpuscope.report import style
from gpuscope.report.share import prepare_report
from gpuscope.report.telemetry_summary import STRIP_METRICS, DeviceSeries, summarise_telemetry
from gpuscope.report.view_model import ReportFinding, ShareReport, TelemetrySummary
from gpuscope.ui.report import canvas as report_canvas
from gpuscope.ui.report.canvas import Canvas
from gpuscope.ui.report.render import (
    MARGIN_PX,
    REPORT_WIDTH_PX,
    SMALL_PX,
    render_report_image,
    report_height,
    save_report_png,
)
from gpuscope.ui.report.render_telemetry import (
    TILE_COLUMNS,
    TILE_GAP_PX,
    TILE_PAD_PX,
    tile_width,
)

sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import (
    PLANTED_HOME,
    PLANTED_NAMES,
    PLANTED_SERIAL,
    bench_run,
    planted_snapshot,
    telemetry_summary,
)


def _report(snapshot: Path, *, redact: bool = True, python: str | None = None) -> ShareReport:
    system = ReplaySystem.from_file(snapshot)
    data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
    runs = (bench_run(python=python),) if python else (bench_run(),)
    return prepare_report(data, diagnose(data), bench_runs=runs, telemetry=telemetry_summary(),
                          redact=redact, identity_sources=(system.snapshot.to_json(),)).report


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, QFont, float, float]]:
    """Every text the picture draws: (text, font, x, width)."""
    seen: list[tuple[str, QFont, float, float]] = []
    original = report_canvas.Canvas.text

    def spy(self: Any, text: str, font: QFont, color: str, x: float, y: float, width: float,
            **kwargs: Any) -> float:
        if self.painter is not None:
            seen.append((text, QFont(font), x, width))
        return float(original(self, text, font, color, x, y, width, **kwargs))

    monkeypatch.setattr(report_canvas.Canvas, "text", spy)
    return seen


def test_the_picture_is_1200_px_wide_and_holds_everything(qapp: Any, tmp_path: Path,
                                                          drawn: list[Any]) -> None:
    report = _report(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
    path = tmp_path / "r.png"
    image = save_report_png(report, path)
    saved = QImage(str(path))
    assert saved.width() == REPORT_WIDTH_PX == 1200
    assert saved.height() == image.height() == report_height(report) > 1500
    texts = [t for t, _, _, _ in drawn]
    for heading in ("Machine", "Stack, layer by layer", "Frameworks", "Doctor findings (1)",
                    "Benchmarks against the datasheet", "Telemetry"):
        assert heading in texts
    assert "GPU 0: AMD Radeon RX 7900 XTX" in texts
    assert any(t.startswith("98.6 TFLOPS") for t in texts)


def test_text_stays_readable_and_inside_the_margins(qapp: Any, drawn: list[Any]) -> None:
    render_report_image(_report(SNAPSHOTS_DIR / "apu_dgpu.json"))
    assert drawn
    assert min(font.pixelSize() for _, font, _, _ in drawn) >= SMALL_PX >= 15
    for text, _font, x, width in drawn:
        assert x >= MARGIN_PX - 1 and x + width <= REPORT_WIDTH_PX - MARGIN_PX + 1, text


def test_a_replay_is_labelled_in_its_colour(qapp: Any, drawn: list[Any]) -> None:
    image = render_report_image(_report(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    assert any("REPLAYED SNAPSHOT" in t for t, _, _, _ in drawn)
    amber = QColor(style.ORIGIN_BACKGROUNDS["replay"])
    row = 110  # through the banner under the title
    found = [image.pixelColor(x, row) for x in range(MARGIN_PX + 4, REPORT_WIDTH_PX // 2, 25)]
    assert sum(1 for c in found if c.rgb() == amber.rgb()) > len(found) // 2


def test_only_redacted_text_is_drawn(qapp: Any, tmp_path: Path, drawn: list[Any]) -> None:
    snapshot = planted_snapshot(tmp_path)
    render_report_image(_report(snapshot, python=f"{PLANTED_HOME}/venv/bin/python"))
    everything = "\n".join(t for t, _, _, _ in drawn).lower()
    assert [n for n in PLANTED_NAMES if n.lower() in everything] == []
    drawn.clear()
    # Not redacted, the planted serial would be drawn: the check above can fail.
    report = _report(snapshot, redact=False, python=f"{PLANTED_HOME}/venv/bin/python")
    render_report_image(dataclasses.replace(report, findings=(ReportFinding(
        "test.serial", "info", f"Serial Number: {PLANTED_SERIAL}"),)))
    assert any(PLANTED_SERIAL in t for t, _, _, _ in drawn)


def test_many_findings_and_no_gpu_still_draw(qapp: Any, drawn: list[Any]) -> None:
    report = _report(SNAPSHOTS_DIR / "dev_container_live.json")
    findings = tuple(ReportFinding(f"test.{n}", "warning", f"Finding {n} " + "word " * 40,
                                   detail="detail " * 200, fix="sudo true\n" * 100)
                     for n in range(30))
    image = render_report_image(dataclasses.replace(report, findings=findings))
    assert image.width() == 1200 and image.height() == report_height(
        dataclasses.replace(report, findings=findings))
    texts = [t for t, _, _, _ in drawn]
    assert "… and 16 more findings: see the HTML, Markdown or JSON export." in texts
    assert all(len(t) <= 700 for t in texts)  # details and fixes are cut short


def test_the_device_index_is_drawn_cell_by_cell_on_one_line(qapp: Any,
                                                            drawn: list[Any]) -> None:
    from PySide6.QtGui import QFontMetricsF

    report = _report(SNAPSHOTS_DIR / "nvidia_rtx4090.json")
    bare = dataclasses.replace(report, device_index=())
    assert report_height(report) > report_height(bare)  # measured as it is drawn
    render_report_image(report)
    texts = [text for text, *_ in drawn]
    start = texts.index("Device index")
    assert texts[start + 1:start + 8] == ["GPU", "PCI bus", "DRM", "KFD node", "SMI", "HIP",
                                          "CUDA"]
    cells = ["1", "0000:05:00.0", "card1 / renderD129", "–", "1", "–", "–"]
    assert any(texts[i:i + 7] == cells for i in range(start, start + 30))
    assert any(text.startswith("GPUs 0, 1: CUDA numbers the fastest GPU first")
               for text in texts[start:])
    for text, font, _x, width in drawn:
        if text in ("card1 / renderD129", "0000:05:00.0", "KFD node"):  # never wrapped
            assert QFontMetricsF(font).horizontalAdvance(text) <= width, text


def test_a_benchmark_value_never_runs_under_its_verdict_chip(qapp: Any,
                                                             drawn: list[Any]) -> None:
    from gpuscope.app.report_inputs import read_bench_runs

    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "nvidia_h200.json")
    data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
    runs = read_bench_runs([str(TESTS_DIR / "fixtures" / "bench" / "nvidia_h200_full.json")])
    report = prepare_report(data, diagnose(data), bench_runs=runs).report
    render_report_image(report)
    chip_words = ("no reference", "normal", "low", "above published")
    from PySide6.QtGui import QFontMetricsF

    checked = 0
    for number, (text, font, x, width) in enumerate(drawn):
        if " · " not in text or not text.endswith("%"):
            continue
        # The row's chip is drawn right after its value.
        chip_x = next(cx for t, _, cx, _ in drawn[number + 1:] if t in chip_words) - 10
        assert x + width <= chip_x, text  # its room ends before the chip begins
        assert QFontMetricsF(font).horizontalAdvance(text) <= width, text  # one line
        checked += 1
    assert checked >= 10


def test_the_picture_is_drawn_in_the_language_chosen(chinese: None,
                                                     drawn: list[Any]) -> None:
    from gpuscope.i18n import language
    from gpuscope.ui.i18n import translate

    report = _report(SNAPSHOTS_DIR / "amd_kfd_no_access.json")
    render_report_image(report)
    chinese = [text for text, *_ in drawn]
    assert "GPU 报告：AMD Radeon RX 6700 XT" in chinese and "机器" in chinese
    assert "此用户无法打开 GPU 设备节点" in chinese  # a finding, redacted then translated
    assert any("<user-1>" in text for text in chinese) and not any("bob" in t for t in chinese)
    drawn.clear()
    # A Chinese window writes an English report: Qt's translate() asks the same catalogue,
    # so the picture's own words switch with the report's messages.
    with language("en"):
        assert translate("ReportImage", "Machine") == "Machine"
        render_report_image(report)
    assert translate("ReportImage", "Machine") == "机器"
    english = [text for text, *_ in drawn]
    assert "GPU report: AMD Radeon RX 6700 XT" in english and "Machine" in english
    assert not any("\u4e00" <= ch <= "\u9fff" for text in english for ch in text)


# ----------------------------------------------------------------------------- telemetry tiles


def _strip_of_every_metric(*, at_capture: bool = False) -> TelemetrySummary:
    """Test data: one GPU with every metric of the strip (the long names among them) and the
    host."""
    times = [1_795_000_000.0 + t for t in range(60)]
    gpu = {m.value: [float(10 + t % 7) for t in range(60)] for m in STRIP_METRICS
           if not CATALOGUE[m].host}
    host = {m.value: [float(20 + t % 5) for t in range(60)] for m in STRIP_METRICS
            if CATALOGUE[m].host}
    devices = [DeviceSeries("0000:03:00.0", "GPU 0: AMD Radeon RX 7900 XTX", times, gpu),
               DeviceSeries("host", "Host (CPU and RAM)", times, host)]
    summary = summarise_telemetry(devices, source="test data", live=False,
                                  at_capture=at_capture,
                                  captured_at_s=times[0] if at_capture else None)
    assert summary is not None
    return summary


def _tile_texts(drawn: list[Any]) -> list[tuple[str, QFont, float, float]]:
    """What was drawn inside the telemetry tiles: the texts as wide as a tile's inside."""
    inside = tile_width(Canvas(None, REPORT_WIDTH_PX)) - 2 * TILE_PAD_PX
    return [(t, f, x, w) for t, f, x, w in drawn if abs(w - inside) < 0.5]


@pytest.mark.parametrize("at_capture", [False, True])
def test_every_tile_label_is_drawn_whole_and_inside_its_tile(qapp: Any, drawn: list[Any],
                                                             at_capture: bool) -> None:
    from PySide6.QtGui import QFontMetricsF

    strip = _strip_of_every_metric(at_capture=at_capture)
    report = dataclasses.replace(_report(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                                 telemetry=strip)
    render_report_image(report)
    width = tile_width(Canvas(None, REPORT_WIDTH_PX))
    rights = [MARGIN_PX + k * (width + TILE_GAP_PX) + width for k in range(TILE_COLUMNS)]
    tiles = _tile_texts(drawn)
    assert tiles
    for text, font, x, room in tiles:
        right = next(r for r in rights if x < r)
        assert x + room <= right - TILE_PAD_PX + 0.5, text  # its box ends inside its tile
        assert QFontMetricsF(font).horizontalAdvance(text) <= room + 0.5, text  # and the text
    texts = [t for t, *_ in tiles]
    labels = [stat.label for device in strip.devices for stat in device.metrics]
    assert "Temperature (junction/hotspot)" in labels
    for label in labels:  # on one line, or on two in a row: never cut short
        assert any(texts[i] == label or " ".join(texts[i:i + 2]) == label
                   for i in range(len(texts))), label
    assert not any(t.endswith("…") for t in texts)


def test_single_readings_are_drawn_at_capture_without_ranges_or_lines(
        qapp: Any, drawn: list[Any]) -> None:
    strip = _strip_of_every_metric(at_capture=True)
    report = dataclasses.replace(_report(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                                 telemetry=strip)
    render_report_image(report)
    texts = [t for t, *_ in _tile_texts(drawn)]
    count = sum(len(device.metrics) for device in strip.devices)
    assert texts.count("at capture") == count
    assert not any(t.endswith(" avg") or " – " in t for t in texts)
    heading = [t for t, *_ in drawn if "single readings at capture" in t]
    assert heading == ["test data: single readings at capture, 2026-11-18 11:06 UTC."]
    # Over time: averages and ranges, no "at capture".
    drawn.clear()
    render_report_image(dataclasses.replace(report, telemetry=_strip_of_every_metric()))
    timed = [t for t, *_ in _tile_texts(drawn)]
    assert "at capture" not in timed and sum(t.endswith(" avg") for t in timed) == count


def test_an_unstable_result_is_marked_beside_its_row(qapp: Any, drawn: list[Any]) -> None:
    from test_unstable_mark import unstable_report

    render_report_image(unstable_report())
    texts = [t for t, *_ in drawn]
    assert texts.count("⚠ unstable") == 1
    mark = texts.index("⚠ unstable")
    assert texts[mark - 1] == "BF16 matmul"  # under its title
