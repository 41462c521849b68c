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
from gpuscope.report import style
from gpuscope.report.share import prepare_report
from gpuscope.report.view_model import ReportFinding, ShareReport
from gpuscope.ui.report import render as report_render
from gpuscope.ui.report.render import (
    MARGIN_PX,
    REPORT_WIDTH_PX,
    SMALL_PX,
    render_report_image,
    report_height,
    save_report_png,
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
    original = report_render._Canvas.text

    def spy(self: Any, text: str, font: QFont, color: str, x: float, y: float, width: float,
            **kwargs: Any) -> float:
        if self.painter is not None:
            seen.append((text, QFont(font), x, width))
        return float(original(self, text, font, color, x, y, width, **kwargs))

    monkeypatch.setattr(report_render._Canvas, "text", spy)
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
