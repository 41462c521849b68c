"""The Report page: the report made off the GUI thread, exports through non-blocking dialogs,
the clipboard, and the redaction toggle with its preview."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR, TESTS_DIR
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QFileDialog

from gpuscope.app.report_inputs import LATEST_PER_DEVICE, NO_SAVED_RUNS, identity_sources_of
from gpuscope.bench.history import RunHistory
from gpuscope.bench.results import BenchError, ErrorKind
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.model import OriginKind
from gpuscope.report.compare_import import ImportedReport, read_compare_report
from gpuscope.ui.doctor_loader import make_diagnosis
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.report.page import ReportPage

sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import (
    BENCH_STARTED_UNIX_S,
    PLANTED_HOME,
    PLANTED_NAMES,
    PLANTED_SERIAL,
    bench_run,
    planted_snapshot,
)

WAIT_MS = 20_000


@pytest.fixture
def page(qtbot: Any, tmp_path: Path) -> ReportPage:
    """A shown Report page over the planted machine, with a benchmark run from its home."""
    system = ReplaySystem.from_file(planted_snapshot(tmp_path))
    report_page = ReportPage()
    qtbot.addWidget(report_page)
    report_page.resize(1000, 800)
    report_page.set_machine(make_diagnosis(collect_inventory(system)),
                            identity_sources_of(system))
    report_page.set_bench_runs([bench_run(python=f"{PLANTED_HOME}/venv/bin/python")])
    with qtbot.waitSignal(report_page.report_ready, timeout=WAIT_MS):
        report_page.show()
    return report_page


def test_the_report_is_made_off_the_gui_thread(qtbot: Any, page: ReportPage) -> None:
    report = page.report
    assert report is not None and report.redacted
    assert report.origin.kind == "replay"
    assert "REPLAYED SNAPSHOT" in page.summary.text()
    assert page.view.report is report and page.view.height() > 400
    page.regenerate()
    assert page.is_busy  # started, not finished: the call did not wait for it
    qtbot.waitUntil(lambda: not page.is_busy, timeout=WAIT_MS)


def test_the_preview_lists_what_is_removed(page: ReportPage) -> None:
    found = {page.preview_table.item(row, 1).text()
             for row in range(page.preview_table.rowCount())}
    assert {PLANTED_HOME, PLANTED_SERIAL} <= found
    assert page.preview_table.isHidden()
    page.preview_button.setChecked(True)
    assert not page.preview_table.isHidden()
    assert f"({page.preview_table.rowCount()})" in page.preview_button.text()


@pytest.mark.parametrize("fmt", ["png", "html", "md", "json"])
def test_each_export_is_written(qtbot: Any, page: ReportPage, tmp_path: Path,
                                fmt: str) -> None:
    path = tmp_path / f"out.{fmt}"
    with qtbot.waitSignal(page.exported, timeout=WAIT_MS) as blocker:
        page.export_to(fmt, str(path))
    assert blocker.args == [str(path), fmt]
    assert path.exists()
    if fmt == "png":
        assert QImage(str(path)).width() == 1200
        return
    text = path.read_text(encoding="utf-8")
    assert [n for n in PLANTED_NAMES if n.lower() in text.lower()] == []
    if fmt == "html":
        # Public https sources may be named as text; nothing is loaded (tests/report).
        assert "http://" not in text and 'src="https://' not in text
    if fmt == "json":
        assert isinstance(read_compare_report(path), ImportedReport)
        assert json.loads(text)["redacted"] is True
    assert "REPLAYED SNAPSHOT" in text


def test_the_file_dialog_does_not_block(qtbot: Any, page: ReportPage, tmp_path: Path) -> None:
    dialog = page.choose_export("md")
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    path = tmp_path / "picked.md"
    with qtbot.waitSignal(page.exported, timeout=WAIT_MS):
        dialog.fileSelected.emit(str(path))
        dialog.close()
    assert path.read_text(encoding="utf-8").startswith("# GPU report")


def test_a_failed_write_says_why(qtbot: Any, page: ReportPage, tmp_path: Path) -> None:
    target = tmp_path / "no-such-folder" / "r.html"
    with qtbot.waitSignal(page.export_failed, timeout=WAIT_MS) as blocker:
        page.export_to("html", str(target))
    assert blocker.args[0] == str(target)
    assert "No such file" in page.message_text()


def test_copy_image_and_markdown(qtbot: Any, page: ReportPage) -> None:
    clipboard = QGuiApplication.clipboard()
    page.copy_markdown()
    assert clipboard.text().startswith("# GPU report: AMD Radeon RX 7900 XTX (replay)")
    page.copy_image()
    image = clipboard.image()
    assert not image.isNull() and image.width() == 1200


def test_turning_redaction_off_warns_and_shows_the_names(qtbot: Any, page: ReportPage) -> None:
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        page.set_redact(False)
    report = page.report
    assert report is not None and not report.redacted
    assert "Not redacted" in page.redaction_note.text()
    assert any(run.python == f"{PLANTED_HOME}/venv/bin/python" for run in report.bench_runs)
    # the preview still says what redaction would remove
    assert page.preview_table.rowCount() >= 2
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        page.set_redact(True)
    assert page.report is not None and page.report.redacted


def test_an_export_asked_before_the_report_exists_waits_for_it(qtbot: Any,
                                                               tmp_path: Path) -> None:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "nvidia_rtx4090.json")
    hidden = ReportPage()
    qtbot.addWidget(hidden)
    hidden.set_machine(make_diagnosis(collect_inventory(system)))
    assert hidden.report is None  # not shown: nothing made yet
    path = tmp_path / "r.json"
    with qtbot.waitSignal(hidden.exported, timeout=WAIT_MS):
        hidden.export_to("json", str(path))
    assert json.loads(path.read_text())["diagnosis"]["gpus"][0]["name"] == \
        "NVIDIA GeForce RTX 4090"


def test_the_window_has_compare_and_report_pages(make_window: Any, qtbot: Any) -> None:
    window: MainWindow = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR
                                                            / "rx7900xtx_rocm.json"))
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=WAIT_MS)
    window.select_page("Report")
    assert window.pages.currentWidget() is window.report_page
    qtbot.waitUntil(lambda: window.report_page.report is not None
                    and not window.report_page.is_busy, timeout=WAIT_MS)
    report = window.report_page.report
    assert report is not None and report.origin.kind == "replay"
    assert report.gpus[0].name == "AMD Radeon RX 7900 XTX"
    window.select_page("Compare")
    assert window.pages.currentWidget() is window.compare_page
    assert window.compare_page.card_names()[0] == "AMD Radeon RX 7900 XTX"
    assert not window.compare_page.is_suggested(0) and window.compare_page.is_suggested(1)


def test_the_report_is_written_in_the_windows_language_or_english(
        chinese: None, qtbot: Any, tmp_path: Path) -> None:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "amd_kfd_no_access.json")
    page = ReportPage()
    qtbot.addWidget(page)
    page.resize(1000, 800)
    page.set_machine(make_diagnosis(collect_inventory(system)), identity_sources_of(system))
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        page.show()
    assert page.report_language == "zh_CN"  # the window's, by default
    written: dict[tuple[str, str], str] = {}
    for language in ("zh_CN", "en"):
        page.set_report_language(language)
        for fmt in ("md", "json"):
            path = tmp_path / f"{language}.{fmt}"
            with qtbot.waitSignal(page.exported, timeout=WAIT_MS):
                page.export_to(fmt, str(path))
            written[language, fmt] = path.read_text(encoding="utf-8")
    assert written["zh_CN", "md"].startswith("# GPU 报告：AMD Radeon RX 6700 XT（回放）")
    assert written["en", "md"].startswith("# GPU report: AMD Radeon RX 6700 XT (replay)")
    assert written["zh_CN", "json"] == written["en", "json"]  # English in both
    assert page.summary.text().startswith("回放的快照")  # the page stays in the window's
    with pytest.raises(ValueError):
        page.set_report_language("fr")


def test_the_page_chooses_among_the_successful_saved_runs_of_this_machine(
        qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Live, the page lists the successful saved runs on this machine's devices, newest
    first, and takes the latest per device unless told one run or none; a failed run or a
    run on another card is never offered."""
    from test_saved_runs import _other_cards_run

    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path / "data"))
    history = RunHistory()
    older, newer = bench_run(BENCH_STARTED_UNIX_S), bench_run(BENCH_STARTED_UNIX_S + 3600)
    for run in (older, newer, _other_cards_run(BENCH_STARTED_UNIX_S + 5400),
                dataclasses.replace(bench_run(BENCH_STARTED_UNIX_S + 7200), results=(),
                                    errors=(BenchError(ErrorKind.HANG, "hung"),))):
        history.save(run)
    inventory = collect_inventory(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    live = dataclasses.replace(inventory, origin=dataclasses.replace(
        inventory.origin, kind=OriginKind.LIVE, source=None))
    page = ReportPage()
    qtbot.addWidget(page)
    page.resize(1000, 800)
    page.set_machine(make_diagnosis(live))
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        page.show()
    picker = page.saved_runs
    assert picker.isVisible() and picker.choice == LATEST_PER_DEVICE
    ids = picker.runs()
    assert len(ids) == 2
    assert picker.box.itemText(2).endswith(": AMD Radeon RX 7900 XTX (cuda:0)")

    def started() -> list[float]:
        report = page.report
        assert report is not None
        return [run.started_unix_s for run in report.bench_runs]

    assert started() == [newer.started_unix_s]
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        picker.set_choice(ids[1])
    assert started() == [older.started_unix_s]
    with qtbot.waitSignal(page.report_ready, timeout=WAIT_MS):
        picker.set_choice(NO_SAVED_RUNS)
    assert started() == []
    report = page.report
    assert report is not None and report.bench == ()


def test_a_replay_offers_no_saved_runs(page: ReportPage) -> None:
    assert page.saved_runs.isHidden()
    report = page.report
    assert report is not None and len(report.bench_runs) == 1  # the run added from a file
