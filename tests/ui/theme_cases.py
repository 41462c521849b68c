"""Light and dark themes: following the system live, the manual override, pages restyled on a
switch, readable colours in both palettes, and `render --theme`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QFrame, QVBoxLayout, QWidget

from gpuscope.app.settings import SettingsStore
from gpuscope.evidence import ReplaySystem
from gpuscope.ui import render, theme
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.stack_page import INFO_COLOR
from gpuscope.ui.theme import (
    ERROR_COLOR,
    MUTED_COLOR,
    OK_COLOR,
    WARN_COLOR,
    ThemeChoice,
    ThemeController,
    app_theme,
    dark_palette,
    gpu_color,
    is_dark,
    light_palette,
)

SNAPSHOTS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
Role = QPalette.ColorRole


def window_color() -> str:
    return str(QApplication.palette().color(Role.Window).name())


def emit_system_scheme(scheme: Qt.ColorScheme) -> None:
    """What Qt does when the desktop switches between light and dark."""
    QGuiApplication.styleHints().colorSchemeChanged.emit(scheme)


@pytest.fixture(autouse=True)
def light_again(qapp: QApplication) -> Iterator[None]:
    """Every test starts and ends on the light palette, following a 'light' system."""
    app_theme().set_choice(ThemeChoice.SYSTEM)
    emit_system_scheme(Qt.ColorScheme.Unknown)
    yield
    app_theme().set_choice(ThemeChoice.SYSTEM)
    emit_system_scheme(Qt.ColorScheme.Unknown)
    assert window_color() == light_palette().color(Role.Window).name()


@pytest.fixture
def standalone() -> Iterator[Callable[..., ThemeController]]:
    """`standalone(choice, system_scheme=...)`: a controller of its own, deleted after."""
    made: list[ThemeController] = []

    def factory(choice: ThemeChoice, **kwargs: Any) -> ThemeController:
        controller = ThemeController(choice, **kwargs)
        made.append(controller)
        return controller

    yield factory
    for controller in made:
        if shiboken6.isValid(controller):
            shiboken6.delete(controller)


def test_the_palettes_are_light_and_dark() -> None:
    assert not is_dark(light_palette())
    assert is_dark(dark_palette())
    dark = dark_palette()
    # Fusion outlines check boxes in Window darkened: Base must stand apart from that.
    assert dark.color(Role.Base).lightness() > dark.color(Role.Window).lightness()
    # Disabled text is dimmer than enabled text, but still there.
    disabled = dark.color(QPalette.ColorGroup.Disabled, Role.Text)
    assert 0 < disabled.lightness() < dark.color(Role.Text).lightness()


def test_system_mode_follows_the_system_live(qapp: QApplication) -> None:
    controller = app_theme()
    changes: list[object] = []
    controller.changed.connect(changes.append)
    assert controller.choice is ThemeChoice.SYSTEM
    assert window_color() == light_palette().color(Role.Window).name()
    emit_system_scheme(Qt.ColorScheme.Dark)
    assert controller.effective_scheme is Qt.ColorScheme.Dark
    assert window_color() == dark_palette().color(Role.Window).name()
    emit_system_scheme(Qt.ColorScheme.Light)
    assert window_color() == light_palette().color(Role.Window).name()
    assert changes == [Qt.ColorScheme.Dark, Qt.ColorScheme.Light]


def test_an_override_ignores_the_system(qapp: QApplication) -> None:
    controller = app_theme()
    controller.set_choice(ThemeChoice.LIGHT)
    emit_system_scheme(Qt.ColorScheme.Dark)
    assert window_color() == light_palette().color(Role.Window).name()
    controller.set_choice(ThemeChoice.DARK)
    assert window_color() == dark_palette().color(Role.Window).name()
    emit_system_scheme(Qt.ColorScheme.Light)
    assert window_color() == dark_palette().color(Role.Window).name()


def test_back_to_system_reads_the_system_again(
    qapp: QApplication, standalone: Callable[..., ThemeController],
) -> None:
    system = [Qt.ColorScheme.Dark]
    # The shared controller must not answer the emitted signals of this test: park it.
    app_theme().set_choice(ThemeChoice.LIGHT)
    controller = standalone(ThemeChoice.LIGHT, system_scheme=lambda: system[0])
    controller.apply()
    assert window_color() == light_palette().color(Role.Window).name()
    controller.set_choice(ThemeChoice.SYSTEM)
    assert controller.system_scheme is Qt.ColorScheme.Dark
    assert window_color() == dark_palette().color(Role.Window).name()
    system[0] = Qt.ColorScheme.Light
    emit_system_scheme(Qt.ColorScheme.Light)
    assert window_color() == light_palette().color(Role.Window).name()
    shiboken6.delete(controller)
    app_theme().set_choice(ThemeChoice.SYSTEM)


def test_an_unknown_system_scheme_is_light(standalone: Callable[..., ThemeController]) -> None:
    controller = standalone(ThemeChoice.SYSTEM, system_scheme=lambda: Qt.ColorScheme.Unknown)
    assert controller.effective_scheme is Qt.ColorScheme.Light


def test_style_sheets_with_palette_colours_follow_a_switch(
    qapp: QApplication, qtbot: Any,
) -> None:
    """Qt resolves palette(base) when a sheet is set; a switch must resolve it again."""
    holder = QWidget()
    qtbot.addWidget(holder)
    column = QVBoxLayout(holder)
    card = QFrame()
    card.setObjectName("card")
    card.setStyleSheet("QFrame#card { background: palette(base); border: none; }")
    card.setMinimumSize(80, 80)
    column.addWidget(card)
    holder.show()
    qtbot.waitExposed(holder)

    def card_pixel() -> str:
        return str(card.grab().toImage().pixelColor(40, 40).name())

    assert card_pixel() == light_palette().color(Role.Base).name()
    app_theme().set_choice(ThemeChoice.DARK)
    assert card_pixel() == dark_palette().color(Role.Base).name()
    app_theme().set_choice(ThemeChoice.LIGHT)
    assert card_pixel() == light_palette().color(Role.Base).name()


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours."""
    def luminance(color: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
        return (0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF())
                + 0.0722 * channel(color.blueF()))
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("name", ["OK", "MUTED", "WARN", "ERROR", "INFO"])
def test_state_colours_read_on_the_dark_theme(name: str) -> None:
    color = {"OK": OK_COLOR, "MUTED": MUTED_COLOR, "WARN": WARN_COLOR, "ERROR": ERROR_COLOR,
             "INFO": INFO_COLOR}[name]
    dark = dark_palette()
    for role in (Role.Window, Role.Base):
        assert contrast(color, dark.color(role)) >= 3.0, (name, role)
    # and they are no worse than before on the light one
    assert contrast(color, light_palette().color(Role.Base)) >= 3.3


def test_gpu_colours_read_on_the_dark_theme() -> None:
    dark = dark_palette()
    for index in range(8):
        assert contrast(gpu_color(index), dark.color(Role.Base)) >= 3.0, index


def test_the_window_switches_theme_from_the_view_menu(
    tmp_path: Path, qtbot: Any, make_window: Callable[..., MainWindow],
) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    window = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                         probes=(), settings=store)
    assert window.theme is app_theme()
    assert window.theme_actions[ThemeChoice.SYSTEM].isChecked()
    assert [a.text() for a in window.theme_menu.actions()] == [
        "Follow the system", "Light", "Dark"]
    window.theme_actions[ThemeChoice.DARK].trigger()
    assert window_color() == dark_palette().color(Role.Window).name()
    # Kept at once, not only at close.
    assert SettingsStore(store.path).load().theme is ThemeChoice.DARK
    # Qt hands the new palette to the widgets through posted events.
    dark_window = dark_palette().color(Role.Window)
    qtbot.waitUntil(lambda: window.palette().color(Role.Window) == dark_window, timeout=3000)
    picture = window.grab().toImage()
    assert picture.pixelColor(80, picture.height() // 2) == dark_palette().color(Role.Base)
    window.theme_actions[ThemeChoice.SYSTEM].trigger()
    assert window_color() == light_palette().color(Role.Window).name()
    assert SettingsStore(store.path).load().theme is ThemeChoice.SYSTEM


def test_a_window_opens_in_the_theme_it_was_left_in(
    tmp_path: Path, make_window: Callable[..., MainWindow],
) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    first = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                        probes=(), settings=store)
    first.set_theme(ThemeChoice.DARK)
    first.close()
    app_theme().set_choice(ThemeChoice.SYSTEM)
    assert window_color() == light_palette().color(Role.Window).name()
    second = make_window(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                         probes=(), settings=SettingsStore(store.path))
    assert second.theme_actions[ThemeChoice.DARK].isChecked()
    assert window_color() == dark_palette().color(Role.Window).name()


@pytest.mark.parametrize("choice", ["dark", "light"])
def test_render_draws_in_the_theme_asked_for(
    choice: str, tmp_path: Path, qapp: QApplication,
) -> None:
    out = tmp_path / f"stack-{choice}.png"
    code = render.main(["--replay", str(SNAPSHOTS_DIR / "amd_kfd_no_access.json"),
                        "--page", "stack", "--theme", choice, "-o", str(out)])
    assert code == 0
    image = QImage(str(out))
    palette = dark_palette() if choice == "dark" else light_palette()
    # The status bar is drawn in Window, the sidebar in Base, of that theme.
    assert image.pixelColor(700, image.height() - 10) == palette.color(Role.Window)
    assert image.pixelColor(80, 500) == palette.color(Role.Base)
    # The amber replay banner reads the same in both.
    assert image.pixelColor(550, 30).name() == theme.BANNER_BACKGROUND.name()
    # And the application is left as it was.
    assert window_color() == light_palette().color(Role.Window).name()


def test_telemetry_charts_follow_a_theme_switched_while_running(
    qapp: QApplication, qtbot: Any,
) -> None:
    """The charts, the throttling strip and the overview are drawn on the palette's base
    colour after a switch, not on the colour they were built with."""
    from gpuscope.telemetry.feed import demo_feed
    from gpuscope.ui.telemetry.page import TelemetryPage

    page = TelemetryPage()
    qtbot.addWidget(page)
    page.resize(1100, 750)
    page.set_feed(demo_feed(1, minutes=2))
    page.show()
    qtbot.waitExposed(page)
    plots = [chart.plot_widget for chart in page.charts.values()]
    plots.append(page.overview.plot_widget)
    assert len(plots) > 2

    def backgrounds() -> set[str]:
        return {plot.backgroundBrush().color().name() for plot in plots}

    assert backgrounds() == {light_palette().color(Role.Base).name()}
    app_theme().set_choice(ThemeChoice.DARK)
    assert backgrounds() == {dark_palette().color(Role.Base).name()}
    app_theme().set_choice(ThemeChoice.LIGHT)
    assert backgrounds() == {light_palette().color(Role.Base).name()}
    page.shutdown()
