"""UI tests: Qt offscreen, a window factory, and a guard that fails a test which leaves a
gpuscope probe thread or an active QTimer behind once its windows are closed."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# Before anything creates a QApplication (pytest-qt's qapp does, lazily).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QTimer

from gpuscope.evidence import System
from gpuscope.ui.i18n import ENGLISH, LANGUAGE_ENV, SIMPLIFIED_CHINESE
from gpuscope.ui.loader import live_probe_threads
from gpuscope.ui.main_window import MainWindow

UI_TESTS_DIR = Path(__file__).resolve().parent

# Test probes are named by spec string ("slow_probes:slow_probe"), so their module must be
# importable by that plain name.
if str(UI_TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(UI_TESTS_DIR))

from ui_languages import ui_language  # noqa: E402 (found through the path set above)

# A probe thread ends when its probe returns; give one that was mid-probe at close this long.
THREAD_GRACE_MS = 5000


def active_timers() -> list[QTimer]:
    return [obj for obj in gc.get_objects()
            if isinstance(obj, QTimer) and shiboken6.isValid(obj) and obj.isActive()]


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The UI in English whatever the machine's locale (LANG=zh_CN.UTF-8 included): tests
    compare English texts. A test that wants Chinese installs it itself (test_i18n.py)."""
    monkeypatch.setenv(LANGUAGE_ENV, ENGLISH)


@pytest.fixture(autouse=True)
def no_leftovers(qtbot: Any) -> Iterator[None]:
    """Fails the test if, after it (and so after its windows closed), a gpuscope probe
    thread is still alive past a grace period, or any QTimer is still running."""
    yield
    try:
        qtbot.waitUntil(lambda: not live_probe_threads(), timeout=THREAD_GRACE_MS)
    except Exception:
        names = ", ".join(t.name for t in live_probe_threads())
        pytest.fail(f"probe threads still alive {THREAD_GRACE_MS} ms after the test: {names}")
    timers = active_timers()
    if timers:
        described = ", ".join(f"{t.objectName() or 'QTimer'}(parent={t.parent()!r}, "
                              f"interval={t.interval()})" for t in timers)
        for timer in timers:
            timer.stop()
        pytest.fail(f"QTimers still active after the test: {described}")


@pytest.fixture
def chinese(qapp: Any) -> Iterator[None]:
    """The application in Simplified Chinese (as under LANG=zh_CN.UTF-8) for one test."""
    with ui_language(SIMPLIFIED_CHINESE):
        yield


@pytest.fixture
def make_window(qtbot: Any) -> Iterator[Callable[..., MainWindow]]:
    """`make_window(system, **MainWindow kwargs)`: a shown MainWindow, closed at teardown."""
    windows: list[MainWindow] = []

    def factory(system: System, **kwargs: Any) -> MainWindow:
        window = MainWindow(system, **kwargs)
        windows.append(window)
        window.show()
        return window

    yield factory
    for window in windows:
        if shiboken6.isValid(window):
            window.close()
            assert not window.loader.is_running
            assert window.loader.active_timers() == []
            # Deleted, not only closed: windows left over from earlier tests pile up, and an
            # application-wide restyle (the theme tests) walks every widget still alive.
            window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

