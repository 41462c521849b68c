"""The main window over replayed snapshots, with slow and hanging probes, its menus,
shortcuts and kept settings, and its entry points (run_gui, the render module)."""

from __future__ import annotations

import gc
import itertools
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
import slow_probes
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QImage, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gpuscope.app.settings import CONFIG_DIR_ENV, SETTINGS_FILE_NAME, Settings, SettingsStore
from gpuscope.evidence import LiveSystem, ReplaySystem
from gpuscope.inventory import PROBES
from gpuscope.model import Layer, Origin, OriginKind, ProbeState
from gpuscope.ui import render
from gpuscope.ui.app import run_gui
from gpuscope.ui.loader import live_probe_threads
from gpuscope.ui.main_window import PAGE_NAMES, PLACEHOLDERS, MainWindow, replay_banner_text
from gpuscope.ui.overview_page import RUNNING
from gpuscope.ui.shortcuts import ShortcutsDialog
from gpuscope.ui.theme import ThemeChoice, app_theme, gpu_color

WindowFactory = Callable[..., MainWindow]


def wait_finished(qtbot: Any, window: MainWindow, timeout_ms: int = 10_000) -> None:
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=timeout_ms)


SNAPSHOTS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """run_gui keeps settings in the user's config dir: here, a temporary one."""
    folder = tmp_path / "config"
    monkeypatch.setenv(CONFIG_DIR_ENV, str(folder))
    yield folder
    gc.collect()  # windows a test dropped go now, not in the middle of the restyle
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app_theme().set_choice(ThemeChoice.SYSTEM)


def replay(name: str) -> ReplaySystem:
    path = SNAPSHOTS_DIR / name
    if not path.exists():
        pytest.fail(f"fixture snapshot {path} is missing")
    return ReplaySystem.from_file(path)


def card_text(window: MainWindow, index: int) -> str:
    return "\n".join(window.overview_page.cards()[index].texts())


# ----------------------------------------------------------------------------- replays


def test_rx7900xtx_replay_shows_one_card_and_the_banner(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(replay("rx7900xtx_rocm.json"))
    wait_finished(qtbot, window)
    cards = window.overview_page.cards()
    assert len(cards) == 1
    text = card_text(window, 0)
    assert "7900" in cards[0].name_label.text()
    assert "gfx1100" in text
    assert "0000:03:00.0" in text or "03:00.0" in text
    assert cards[0].ticks[Layer.SYSFS] == "✓" and cards[0].ticks[Layer.KFD] == "✓"
    assert cards[0].ticks[Layer.NVML] == "—"
    # The banner names the file and says the data is not live.
    assert window.banner.isVisible()
    assert "rx7900xtx_rocm.json" in window.banner.text()
    assert window.banner.text().startswith("Replay of rx7900xtx_rocm.json — ")
    assert window.banner.text().endswith("nothing here is live")
    assert window.progress_label.text() == f"{len(PROBES)} of {len(PROBES)} probes finished"


def test_apu_and_dgpu_replay_shows_two_cards(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(replay("apu_dgpu.json"))
    wait_finished(qtbot, window)
    cards = window.overview_page.cards()
    assert len(cards) == 2
    dgpu, apu = cards
    assert "R9700" in dgpu.name_label.text()
    assert "gfx1201" in dgpu.texts() and "discrete" in dgpu.texts()
    assert "Raphael" in apu.name_label.text()
    assert "gfx1036" in apu.texts() and "integrated" in apu.texts()
    assert any(t.endswith("shared (GTT)") for t in apu.texts())
    for card in cards:
        assert card.ticks[Layer.SYSFS] == "✓" and card.ticks[Layer.KFD] == "✓"
    # Each card's accent stripe is its GPU's colour.
    assert gpu_color(0).name() in dgpu.styleSheet() and gpu_color(1).name() in apu.styleSheet()
    assert window.banner.isVisible() and "apu_dgpu.json" in window.banner.text()


def test_nvidia_replay_shows_compute_capability_and_nvml(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(replay("nvidia_rtx4090.json"))
    wait_finished(qtbot, window)
    cards = window.overview_page.cards()
    assert [card.name_label.text() for card in cards] == [
        "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3060"]
    assert "8.9" in cards[0].texts() and "8.6" in cards[1].texts()
    for card in cards:
        assert "Compute capability" in card.texts()
        assert card.ticks[Layer.NVML] == "✓" and card.ticks[Layer.KFD] == "—"
        assert not [t for t in card.texts() if t.startswith("⚠")]


def test_kfd_without_access_is_called_out_on_the_card(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(replay("amd_kfd_no_access.json"))
    wait_finished(qtbot, window)
    (card,) = window.overview_page.cards()
    # The doctor's verdict leads the card; every warning follows it.
    qtbot.waitUntil(lambda: card.verdict.text().startswith("✗"), timeout=20000)
    assert card.verdict.text() == "✗ This user cannot open the GPU device nodes"
    assert card.finding_lines[0].texts()[0].startswith("! gfx1031 is not officially supported")
    rows = {row[0]: row for row in window.overview_page.probe_rows()}
    assert rows["KFD topology (ROCm)"][1] == "permission denied"


def test_banner_text_formats() -> None:
    origin = Origin(OriginKind.REPLAY, source="/tmp/x/snap.json",
                    captured_utc="2025-01-15T10:30:00+00:00", gpuscope_version="0.1.0")
    assert replay_banner_text(origin) == (
        "Replay of snap.json — captured 2025-01-15 10:30 UTC by gpuscope 0.1.0; "
        "nothing here is live")
    assert replay_banner_text(Origin(OriginKind.REPLAY, source="s.json")) == (
        "Replay of s.json — capture date and gpuscope version not recorded; nothing here is live")
    assert replay_banner_text(Origin(OriginKind.LIVE)) is None


def test_replay_banner_hidden_when_live(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(LiveSystem())
    wait_finished(qtbot, window, timeout_ms=20_000)
    assert not window.banner.isVisible()
    assert window.windowTitle() == "gpuscope"


# ----------------------------------------------------------------------------- threads


def test_window_stays_responsive_while_a_slow_probe_runs(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(20)
    heartbeat.timeout.connect(lambda: ticks.append(time.monotonic()))
    heartbeat.start()
    try:
        started = time.monotonic()
        window = make_window(replay("rx7900xtx_rocm.json"),
                             probes=(*PROBES, slow_probes.SLOW))
        page = window.overview_page
        # The fast probes' results reach the page while the slow one still sleeps.
        qtbot.waitUntil(lambda: window.loader.pending == ("slow",), timeout=5000)
        assert time.monotonic() - started < slow_probes.SLOW_PROBE_S
        assert len(page.cards()) == 1
        rows = {row[0]: row for row in page.probe_rows()}
        assert rows["Slow fake probe"][1] == RUNNING
        total = len(PROBES) + 1
        assert window.progress_label.text() == f"{total - 1} of {total} probes finished"
        wait_finished(qtbot, window)
        elapsed = time.monotonic() - started
        assert elapsed >= slow_probes.SLOW_PROBE_S - 0.1
        assert {row[0]: row for row in page.probe_rows()}["Slow fake probe"][1] == "ok"
        assert window.progress_label.text() == f"{total} of {total} probes finished"
    finally:
        heartbeat.stop()
    # The GUI thread kept processing events the whole time: ticks every ~20 ms, no long gap.
    assert len(ticks) >= 30, f"only {len(ticks)} timer ticks in {elapsed:.1f} s"
    longest_gap = max(b - a for a, b in itertools.pairwise(ticks))
    assert longest_gap < 0.5, f"the GUI thread was blocked for {longest_gap:.2f} s"


def test_a_probe_that_never_answers_times_out_and_its_late_answer_is_ignored(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    slow_probes.release.clear()
    slow_probes.hang_started.clear()
    try:
        window = make_window(replay("rx7900xtx_rocm.json"),
                             probes=(slow_probes.FAST, slow_probes.HANG), probe_timeout_s=0.5)
        wait_finished(qtbot, window, timeout_ms=3000)
        rows = {row[0]: row for row in window.overview_page.probe_rows()}
        assert rows["Fast fake probe"][1] == "ok"
        assert rows["Hanging fake probe"][1] == "timeout"
        assert rows["Hanging fake probe"][2] == "no answer within 0.5 s"
        assert [s.state for s in window.inventory.probes] == [ProbeState.OK, ProbeState.TIMEOUT]
        assert window.progress_label.text() == "2 of 2 probes finished (1 timed out)"
        assert window.loader.active_timers() == []
        assert slow_probes.hang_started.is_set() and live_probe_threads()
    finally:
        slow_probes.release.set()
    # The late answer (with a GPU in it) arrives and must change nothing.
    qtbot.waitUntil(lambda: not live_probe_threads(), timeout=5000)
    QApplication.processEvents()
    assert window.overview_page.cards() == []
    assert window.inventory.probes[1].state is ProbeState.TIMEOUT
    window.close()
    assert not window.isVisible()


def test_closing_while_a_probe_hangs_is_clean(qtbot: Any, make_window: WindowFactory) -> None:
    slow_probes.release.clear()
    slow_probes.hang_started.clear()
    window = make_window(replay("rx7900xtx_rocm.json"),
                         probes=(slow_probes.HANG,), probe_timeout_s=30)
    qtbot.waitUntil(slow_probes.hang_started.is_set, timeout=3000)
    finished: list[bool] = []
    window.loader.finished.connect(lambda: finished.append(True))
    window.close()
    assert not window.loader.is_running
    assert window.loader.active_timers() == []
    slow_probes.release.set()
    qtbot.waitUntil(lambda: not live_probe_threads(), timeout=5000)
    QApplication.processEvents()
    assert finished == []  # cancelled: the late answer neither finishes nor updates anything
    assert window.inventory.probes == ()


def test_a_probe_answering_after_its_window_was_deleted_is_harmless(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    slow_probes.release.clear()
    slow_probes.hang_started.clear()
    window = make_window(replay("rx7900xtx_rocm.json"),
                         probes=(slow_probes.HANG,), probe_timeout_s=30)
    qtbot.waitUntil(slow_probes.hang_started.is_set, timeout=3000)
    window.close()
    window.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(window)
    slow_probes.release.set()  # the probe thread now posts to a relay that is gone
    qtbot.waitUntil(lambda: not live_probe_threads(), timeout=5000)
    QApplication.processEvents()


# ----------------------------------------------------------------------------- pages


def test_sidebar_lists_every_page_and_placeholders_say_so(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    window = make_window(replay("rx7900xtx_rocm.json"))
    assert [window.sidebar.item(i).text() for i in range(window.sidebar.count())] == list(
        PAGE_NAMES)
    assert window.current_page_name() == "Overview"
    window.select_page("telemetry")
    assert window.current_page_name() == "Telemetry"
    texts = [label.text() for label in window.pages.currentWidget().findChildren(
        type(window.banner))]
    assert "Live telemetry starts when a sampler is attached" in " ".join(texts)
    for name in PLACEHOLDERS:  # the pages not built yet
        window.select_page(name)
        shown = " ".join(label.text() for label in window.pages.currentWidget().findChildren(
            type(window.banner)))
        assert "coming in a later release" in shown
    with pytest.raises(ValueError):
        window.select_page("nope")
    wait_finished(qtbot, window)


# ----------------------------------------------------------------------------- entry points


def test_run_gui_rejects_a_bad_snapshot_before_any_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: QApplication,
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    before = set(map(id, QApplication.topLevelWidgets()))
    assert run_gui(str(bad), argv=["gpuscope"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid JSON" in err and "bad.json" in err
    assert not [w for w in QApplication.topLevelWidgets()
                if id(w) not in before and isinstance(w, MainWindow)]
    assert run_gui(str(tmp_path / "missing.json"), argv=["gpuscope"]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_run_gui_opens_the_window_and_returns_when_it_closes(
    qapp: QApplication, qtbot: Any,
) -> None:
    seen: list[MainWindow] = []

    def close_when_loaded() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                seen.append(widget)
                if not widget.loader.is_running:
                    widget.close()

    poller = QTimer()
    poller.setInterval(50)
    poller.timeout.connect(close_when_loaded)
    poller.start()
    try:
        code = run_gui(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), argv=["gpuscope"])
    finally:
        poller.stop()
    assert code == 0
    assert seen and len(seen[-1].overview_page.cards()) == 1
    assert not seen[-1].banner.isHidden()  # the window is closed, so "shown if it were"
    assert qapp.applicationName() == "gpuscope"
    assert qapp.organizationName() == "gpuscope"
    assert not qapp.windowIcon().isNull()
    assert not seen[-1].windowIcon().isNull()
    assert qapp.style().name().lower() == "fusion"


def test_run_gui_keeps_settings_in_the_config_dir(
    qapp: QApplication, qtbot: Any, config_dir: Path,
) -> None:
    """The second run opens on the page, at the size, in the theme the first one left."""
    seen: list[MainWindow] = []

    def leave_on_stack_when_loaded() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                if widget not in seen:
                    seen.append(widget)
                    widget.resize(730, 560)  # no wider than its minimum allows
                    widget.select_page("Stack")
                    widget.set_theme(ThemeChoice.DARK)
                if not widget.loader.is_running:
                    widget.close()

    poller = QTimer()
    poller.setInterval(50)
    poller.timeout.connect(leave_on_stack_when_loaded)
    poller.start()
    try:
        assert run_gui(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), argv=["gpuscope"]) == 0
    finally:
        poller.stop()
    saved = json.loads((config_dir / SETTINGS_FILE_NAME).read_text(encoding="utf-8"))
    assert saved["last_page"] == "Stack" and saved["theme"] == "dark"
    settings = SettingsStore(config_dir / SETTINGS_FILE_NAME).load()
    # The closed window's widgets go before the application-wide restyle walks the widgets
    # (a restyle over half-deleted windows has crashed Qt under load).
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    app_theme().set_choice(ThemeChoice.SYSTEM)
    window = MainWindow(replay("rx7900xtx_rocm.json"), probes=(),
                        settings=SettingsStore(config_dir / SETTINGS_FILE_NAME))
    try:
        assert window.current_page_name() == "Stack"
        assert window.height() == 560
        assert window.theme.choice is ThemeChoice.DARK
        assert window.settings.window_geometry == settings.window_geometry
    finally:
        window.close()
        window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


# ----------------------------------------------------------------------------- settings


def test_the_window_comes_back_where_it_was_left(
    tmp_path: Path, qtbot: Any, make_window: WindowFactory,
) -> None:
    path = tmp_path / "settings.json"
    first = make_window(replay("rx7900xtx_rocm.json"), probes=(), settings=SettingsStore(path))
    assert first.current_page_name() == "Overview"  # nothing kept yet
    first.resize(700, 520)  # no wider than its minimum allows; the offscreen screen is 800 px
    first.move(40, 30)
    first.select_page("Frameworks")
    QApplication.processEvents()
    left_at = first.geometry()
    first.close()
    assert path.is_file()

    second = make_window(replay("rx7900xtx_rocm.json"), probes=(),
                         settings=SettingsStore(path))
    assert second.current_page_name() == "Frameworks"
    assert second.page_actions[2].isChecked()
    # Qt keeps a restored window on the screen (800 px wide offscreen, narrower than the
    # window's minimum), so only the height and the top edge come back exactly.
    assert second.height() == 520 and left_at.height() == 520
    assert second.geometry().y() == left_at.y()
    assert second.settings.last_page == "Frameworks"


def test_a_window_without_a_store_saves_nothing(
    tmp_path: Path, make_window: WindowFactory, config_dir: Path,
) -> None:
    window = make_window(replay("rx7900xtx_rocm.json"), probes=())
    assert window.settings_store is None
    window.select_page("Stack")
    window.close()
    assert window.settings.last_page == "Stack"  # kept in memory only
    assert not config_dir.exists()


def test_a_corrupt_settings_file_opens_on_the_defaults_and_says_so(
    tmp_path: Path, make_window: WindowFactory,
) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{{{ not json", encoding="utf-8")
    window = make_window(replay("rx7900xtx_rocm.json"), probes=(),
                         settings=SettingsStore(path))
    assert window.current_page_name() == "Overview"
    assert window.settings == Settings()
    message = window.statusBar().currentMessage()
    assert message.startswith("Settings: settings file ") and "not valid JSON" in message
    window.close()
    assert json.loads(path.read_text(encoding="utf-8"))["last_page"] == "Overview"


def test_an_unwritable_settings_place_does_not_stop_the_window(
    tmp_path: Path, make_window: WindowFactory,
) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    window = make_window(replay("rx7900xtx_rocm.json"), probes=(),
                         settings=SettingsStore(blocker / "settings.json"))
    window.set_theme(ThemeChoice.LIGHT)  # saves at once: fails, and says why
    assert window.theme.choice is ThemeChoice.LIGHT
    assert "cannot save settings to" in window.statusBar().currentMessage()
    assert window.save_settings() is False
    window.close()
    assert not window.isVisible()


def test_saved_geometry_that_is_garbage_is_ignored(
    tmp_path: Path, make_window: WindowFactory,
) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.put(Settings(window_geometry=b"garbage", window_state=b"more garbage",
                       last_page="No such page"))
    window = make_window(replay("rx7900xtx_rocm.json"), probes=(), settings=store)
    assert (window.width(), window.height()) == (1100, 750)
    assert window.current_page_name() == "Overview"


# ----------------------------------------------------------------------------- shortcuts


def press(window: MainWindow, key: Qt.Key,
          modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(window.focusWidget() or window, key, modifier)
    QApplication.processEvents()


@pytest.fixture
def active_window(qtbot: Any, make_window: WindowFactory) -> MainWindow:
    window = make_window(replay("rx7900xtx_rocm.json"), probes=())
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


def test_ctrl_digits_switch_pages(active_window: MainWindow) -> None:
    window = active_window
    ctrl = Qt.KeyboardModifier.ControlModifier
    for index, name in enumerate(PAGE_NAMES):
        press(window, Qt.Key(Qt.Key.Key_1.value + index), ctrl)
        assert window.current_page_name() == name
        assert window.page_actions[index].isChecked()
    press(window, Qt.Key.Key_2, ctrl)
    assert window.current_page_name() == "Stack"
    assert window.sidebar.currentRow() == 1


def test_the_menus_show_the_shortcuts(active_window: MainWindow) -> None:
    window = active_window
    assert [menu.title() for menu in window.menus()] == ["&File", "&View", "&Help"]
    assert window.import_action.shortcut() == QKeySequence("Ctrl+O")
    assert QKeySequence("Ctrl+I") in window.import_action.shortcuts()  # the old key still works
    assert window.quit_action.shortcut() == QKeySequence("Ctrl+Q")
    assert window.refresh_action.shortcut() == QKeySequence("F5")
    assert QKeySequence("F11") in window.full_screen_action.shortcuts()
    assert window.shortcuts_action.shortcut() == QKeySequence("F1")
    assert [a.shortcut().toString() for a in window.page_actions] == [
        f"Ctrl+{i}" for i in range(1, len(PAGE_NAMES) + 1)]
    for action in (window.import_action, window.quit_action, window.refresh_action):
        assert action in window.file_menu.actions() + window.view_menu.actions()


def test_f1_lists_every_shortcut_the_menus_have(active_window: MainWindow) -> None:
    window = active_window
    press(window, Qt.Key.Key_F1)
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, ShortcutsDialog) and w.isVisible()]
    assert len(dialogs) == 1
    rows = dict(dialogs[0].rows())
    assert rows["Import outputs"] == "Ctrl+O, Ctrl+I"
    assert rows["Refresh"] == "F5" and rows["Quit"] == "Ctrl+Q"
    assert rows["Full screen"].startswith("F11")
    assert rows["Keyboard shortcuts"] == "F1"
    for index, name in enumerate(PAGE_NAMES):
        assert rows[name] == f"Ctrl+{index + 1}"
    assert {"File", "View", "Help"} <= set(rows)  # group headings
    dialogs[0].reject()


def test_ctrl_o_opens_the_import_dialog(active_window: MainWindow) -> None:
    from gpuscope.ui.import_dialog import ImportDialog

    press(active_window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    dialogs = [w for w in QApplication.topLevelWidgets()
               if isinstance(w, ImportDialog) and w.isVisible()]
    assert len(dialogs) == 1
    dialogs[0].reject()


def test_f11_toggles_full_screen(active_window: MainWindow, qtbot: Any) -> None:
    window = active_window
    press(window, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=3000)
    assert window.full_screen_action.isChecked()
    press(window, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=3000)
    assert not window.full_screen_action.isChecked()


def test_f5_probes_again(qtbot: Any, make_window: WindowFactory) -> None:
    window = make_window(replay("rx7900xtx_rocm.json"))
    wait_finished(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    finished: list[bool] = []
    window.loader.finished.connect(lambda: finished.append(True))
    press(window, Qt.Key.Key_F5)
    assert window.loader.is_running or finished  # started again (a replay may be quick)
    wait_finished(qtbot, window)
    assert finished == [True]
    assert len(window.overview_page.cards()) == 1
    assert window.progress_label.text() == f"{len(PROBES)} of {len(PROBES)} probes finished"


def test_ctrl_q_closes_the_window(active_window: MainWindow, qtbot: Any) -> None:
    press(active_window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not active_window.isVisible(), timeout=3000)


def test_render_module_writes_the_overview_png(tmp_path: Path, qapp: QApplication) -> None:
    out = tmp_path / "overview.png"
    code = render.main(["--replay", str(SNAPSHOTS_DIR / "apu_dgpu.json"), "-o", str(out)])
    assert code == 0
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1100, 750)
    # Not blank: the banner's amber is in the top rows.
    assert image.pixelColor(550, 30).name() == "#ffc857"  # below the menu bar


def test_render_module_reports_a_bad_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    missing, out = tmp_path / "none.json", tmp_path / "x.png"
    assert render.main(["--replay", str(missing), "-o", str(out)]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_live_telemetry_starts_after_the_probes_and_stops_with_the_window(
    qtbot: Any, make_window: WindowFactory,
) -> None:
    """The window's own sampler (over a replayed machine, labelled as such) feeds the page."""
    from gpuscope.telemetry.feed_adapters import SamplerFeed

    window = make_window(replay("rx7900xtx_rocm.json"), live_telemetry_hz=5.0)
    wait_finished(qtbot, window)
    qtbot.waitUntil(lambda: isinstance(window.telemetry_page.feed, SamplerFeed), timeout=10000)
    feed = window.telemetry_page.feed
    label = feed.label.english()
    assert feed.live and "Replay of" in label and "not live" in label
    # The replay repeats captured values: nothing new arrives, so there is no Pause.
    assert not feed.pausable and window.telemetry_page.pause_button.isHidden()
    assert {d.key for d in feed.devices()} == {"0000:03:00.0", "host"}
    qtbot.waitUntil(lambda: feed.latest("0000:03:00.0/temp_edge_c") is not None, timeout=10000)
    sampler = window.session.sampler
    assert sampler is not None and sampler.running
    window.close()
    assert not sampler.running


# ----------------------------------------------------------------------------- recordings


def test_open_recording_charts_it_and_remembers_the_folder(
    tmp_path: Path, qtbot: Any, make_window: WindowFactory,
) -> None:
    from gpuscope.telemetry.commands import record

    folder = tmp_path / "recs"
    folder.mkdir()
    path = folder / "run.sqlite"
    record(replay("rx7900xtx_rocm.json"), path, rate_hz=10.0, duration_s=0.6)
    store = SettingsStore(tmp_path / "settings.json")
    window = make_window(replay("rx7900xtx_rocm.json"), probes=(), settings=store)
    assert window.open_recording_action in window.file_menu.actions()
    assert window.open_recording_action.shortcut() == QKeySequence("Ctrl+Shift+O")
    with qtbot.waitSignal(window.telemetry_page.recording_opened, timeout=10_000):
        window.open_recording(str(path))
    assert window.current_page_name() == "Telemetry"
    feed = window.telemetry_page.feed
    assert feed is not None and not feed.live and "run.sqlite" in feed.label.english()
    assert window.statusBar().currentMessage() == "Opened recording run.sqlite"
    assert window.settings.dialog_dir("recording") == str(folder)
    window.close()
    assert SettingsStore(store.path).load().dialog_dir("recording") == str(folder)


def test_a_file_that_is_no_recording_is_said_in_the_status_bar(
    tmp_path: Path, qtbot: Any, make_window: WindowFactory,
) -> None:
    bad = tmp_path / "notes.sqlite"
    bad.write_text("not a database")
    window = make_window(replay("rx7900xtx_rocm.json"), probes=())
    with qtbot.waitSignal(window.telemetry_page.recording_failed, timeout=10_000):
        window.open_recording(str(bad))
    assert window.statusBar().currentMessage().startswith(
        "Could not open recording notes.sqlite: ")


def test_run_gui_with_a_recording_shows_all_of_it(qapp: QApplication, qtbot: Any) -> None:
    """`gpuscope --recording FILE` opens on the whole recording (48 s of a real H200), as
    File > Open recording does, not on the last 5 minutes with the data squeezed to the right."""
    views: list[tuple[Any, Any]] = []

    def close_when_shown() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                page = widget.telemetry_page
                views.append((page.view_range, page.data_extent()))
                widget.close()

    poller = QTimer()
    poller.setInterval(50)
    poller.timeout.connect(close_when_shown)
    poller.start()
    recording = SNAPSHOTS_DIR.parent / "recordings" / "nvidia_h200_bench.sqlite"
    try:
        code = run_gui(None, recording=str(recording), argv=["gpuscope"])
    finally:
        poller.stop()
    assert code == 0 and views
    shown, extent = views[-1]
    assert extent is not None and shown is not None
    assert (shown.start_s, shown.end_s) == pytest.approx(extent, abs=0.5)
