"""Every page as a user sees it, in English and Chinese, at the window's smallest and a large
size: no text drawn wider than its label or button, and no page without content."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fixture_paths import SNAPSHOTS_DIR
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractButton, QLabel, QTableWidget, QWidget
from ui_languages import ui_language

from gpuscope.evidence import ReplaySystem
from gpuscope.ui.i18n import ENGLISH, SIMPLIFIED_CHINESE

SIZES = ((1100, 750), (1920, 1080))


@pytest.fixture(params=[ENGLISH, SIMPLIFIED_CHINESE])
def language(request: pytest.FixtureRequest, qapp: Any) -> Iterator[str]:
    with ui_language(request.param):
        yield request.param


def clipped_texts(page: QWidget) -> list[str]:
    """The visible single-line labels and buttons whose text is wider than they are: cut off
    on screen (a label that wraps, or one elided on purpose to fit, is never wider)."""
    found = []
    for label in page.findChildren(QLabel):
        text = label.text()
        if (not text or not label.isVisibleTo(page) or label.wordWrap()
                or label.textFormat() == Qt.TextFormat.RichText or "<" in text):
            continue
        needed = max(label.fontMetrics().horizontalAdvance(line) for line in text.split("\n"))
        room = label.contentsRect().width() - 2 * label.margin() - max(label.indent(), 0)
        if needed > room + 1:
            found.append(f"label {text!r}: {needed} px in {room} px")
    for button in page.findChildren(QAbstractButton):
        if not button.text() or not button.isVisibleTo(page):
            continue
        if button.sizeHint().width() > button.width() + 1:
            found.append(f"button {button.text()!r}: wants {button.sizeHint().width()} px, "
                         f"has {button.width()} px")
    return found


def content_count(page: QWidget) -> int:
    """How many things with text a page shows: labels, buttons and table cells."""
    count = sum(1 for label in page.findChildren(QLabel)
                if label.text() and label.isVisibleTo(page))
    count += sum(1 for button in page.findChildren(QAbstractButton)
                 if button.text() and button.isVisibleTo(page))
    for table in page.findChildren(QTableWidget):
        if table.isVisibleTo(page):
            count += sum(1 for row in range(table.rowCount())
                         for column in range(table.columnCount())
                         if (item := table.item(row, column)) is not None and item.text())
    return count


def distinct_colours(image: QImage) -> int:
    step_x, step_y = max(1, image.width() // 64), max(1, image.height() // 64)
    return len({image.pixel(x, y) for x in range(0, image.width(), step_x)
                for y in range(0, image.height(), step_y)})


@pytest.mark.parametrize("snapshot", ["amd_kfd_no_access.json", "nvidia_h200.json"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_has_content_and_no_text_cut_off(
        language: str, snapshot: str, size: tuple[int, int], qtbot: Any,
        make_window: Any) -> None:
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot))
    window.resize(*size)
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=20000)
    qtbot.waitUntil(lambda: window.compare_page.catalogue_ready, timeout=20000)
    problems: dict[str, list[str]] = {}
    for name in window.page_names():
        window.select_page(name)
        if name == "Report":  # made in the background: measure the report, not its start
            qtbot.waitUntil(lambda: window.report_page.report is not None
                            and not window.report_page.is_busy, timeout=30000)
        qtbot.wait(30)
        # Laid out for what it shows now (a text set a moment ago asks for a new layout).
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        page = window.pages.currentWidget()
        image = window.grab().toImage()
        assert distinct_colours(image) > 8, f"{name}: the picture is blank"
        assert content_count(page) >= 5, f"{name} ({language}, {size}): no content"
        clipped = clipped_texts(page)
        if clipped:
            problems[name] = clipped
    assert not problems, problems
