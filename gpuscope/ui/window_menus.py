"""The main window's menus: File (import, back to this machine, open a recording, quit), View
(pages, refresh, full screen, theme, language) and Help (shortcuts, about)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup

from gpuscope.ui import shortcuts
from gpuscope.ui.i18n import LANGUAGE_AUTO, LANGUAGE_CHOICES, translate
from gpuscope.ui.theme import ThemeChoice, theme_label
from gpuscope.ui.window_texts import LANGUAGE_LABELS, PAGE_NAMES, page_title

if TYPE_CHECKING:
    from gpuscope.ui.main_window import MainWindow


def build_menus(window: MainWindow) -> None:
    """Add the menus to `window`'s menu bar and keep their actions on it (tests and the
    shortcuts dialog reach them there)."""
    bar = window.menuBar()
    window.file_menu = bar.addMenu(translate("MainWindow", "&File"))
    window.file_menu.addAction(window.import_action)
    window.file_menu.addAction(window.back_action)
    window.file_menu.addSeparator()
    window.open_recording_action = shortcuts.bind(
        QAction(translate("MainWindow", "Open &recording…"), window), shortcuts.OPEN_RECORDING)
    window.open_recording_action.setToolTip(translate("MainWindow",
        "Chart a telemetry recording (made by 'gpuscope record') on the Telemetry page"))
    window.open_recording_action.triggered.connect(window.choose_recording)
    window.file_menu.addAction(window.open_recording_action)
    window.file_menu.addSeparator()
    window.quit_action = shortcuts.bind(QAction(translate("MainWindow", "&Quit"), window),
                                        shortcuts.QUIT)
    window.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    window.quit_action.triggered.connect(window.close)
    window.file_menu.addAction(window.quit_action)

    window.view_menu = bar.addMenu(translate("MainWindow", "&View"))
    window.page_actions = []
    pages_group = QActionGroup(window)
    for index, name in enumerate(PAGE_NAMES):
        action = shortcuts.bind(QAction(page_title(name), window),
                                shortcuts.page_binding(index))
        action.setCheckable(True)
        action.triggered.connect(lambda _checked=False, row=index:
                                 window.sidebar.setCurrentRow(row))
        pages_group.addAction(action)
        window.view_menu.addAction(action)
        window.page_actions.append(action)
    window.view_menu.addSeparator()
    window.refresh_action = shortcuts.bind(QAction(translate("MainWindow", "&Refresh"), window),
                                         shortcuts.REFRESH)
    window.refresh_action.setToolTip(translate("MainWindow", "Probe this machine again"))
    window.refresh_action.triggered.connect(window.refresh)
    window.view_menu.addAction(window.refresh_action)
    window.full_screen_action = shortcuts.bind(
        QAction(translate("MainWindow", "&Full screen"), window), shortcuts.FULL_SCREEN)
    window.full_screen_action.setCheckable(True)
    window.full_screen_action.triggered.connect(window.set_full_screen)
    window.view_menu.addAction(window.full_screen_action)
    window.view_menu.addSeparator()
    window.theme_menu = window.view_menu.addMenu(translate("MainWindow", "&Theme"))
    window.theme_actions = {}
    theme_group = QActionGroup(window)
    for choice in ThemeChoice:
        action = QAction(theme_label(choice), window)
        action.setCheckable(True)
        action.setChecked(choice is window.theme.choice)
        action.triggered.connect(lambda _checked=False, chosen=choice:
                                 window.set_theme(chosen))
        theme_group.addAction(action)
        window.theme_menu.addAction(action)
        window.theme_actions[choice] = action
    window.language_menu = window.view_menu.addMenu(translate("MainWindow", "&Language"))
    window.language_actions = {}
    language_group = QActionGroup(window)
    for language in LANGUAGE_CHOICES:
        label = LANGUAGE_LABELS.get(language, language)
        shown = translate("MainWindow", label) if language == LANGUAGE_AUTO else label
        action = QAction(shown, window)
        action.setCheckable(True)
        action.setChecked(language == window.settings.language)
        action.triggered.connect(lambda _checked=False, chosen=language:
                                 window.set_language(chosen))
        language_group.addAction(action)
        window.language_menu.addAction(action)
        window.language_actions[language] = action

    window.help_menu = bar.addMenu(translate("MainWindow", "&Help"))
    window.shortcuts_action = shortcuts.bind(
        QAction(translate("MainWindow", "&Keyboard shortcuts"), window), shortcuts.SHORTCUTS_HELP)
    window.shortcuts_action.triggered.connect(window.open_shortcuts_dialog)
    window.help_menu.addAction(window.shortcuts_action)
    window.about_action = QAction(translate("MainWindow", "&About gpuscope"), window)
    window.about_action.setMenuRole(QAction.MenuRole.AboutRole)
    window.about_action.triggered.connect(window.open_about_dialog)
    window.help_menu.addAction(window.about_action)
