"""Keyboard shortcuts: one table of bindings, the platform's standard keys first, and the
"Keyboard shortcuts" dialog, which lists what the window's actions really have (so it cannot
drift from the menus)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuscope.ui.widgets import make_label

_Std = QKeySequence.StandardKey


@dataclass(frozen=True, slots=True)
class Binding:
    """The keys of one command: the platform's `standard` key where Qt has one (it is
    empty on some platforms, like Quit on Windows), then `portable` keys, which every
    platform gets too."""

    standard: QKeySequence.StandardKey | None
    portable: tuple[str, ...] = ()


IMPORT = Binding(_Std.Open, ("Ctrl+O", "Ctrl+I"))
OPEN_RECORDING = Binding(None, ("Ctrl+Shift+O",))
REFRESH = Binding(_Std.Refresh, ("F5",))
FULL_SCREEN = Binding(_Std.FullScreen, ("F11",))
QUIT = Binding(_Std.Quit, ("Ctrl+Q",))
SHORTCUTS_HELP = Binding(_Std.HelpContents, ("F1",))
MAX_PAGE_SHORTCUTS = 9


def page_binding(index: int) -> Binding:
    """Ctrl+1 … Ctrl+9 for the first nine pages (`index` from 0); no keys past them."""
    if 0 <= index < MAX_PAGE_SHORTCUTS:
        return Binding(None, (f"Ctrl+{index + 1}",))
    return Binding(None)


def key_sequences(binding: Binding) -> list[QKeySequence]:
    """The binding's keys, the platform's standard ones first, without repeats."""
    keys: list[QKeySequence] = []
    if binding.standard is not None:
        keys.extend(QKeySequence.keyBindings(binding.standard))
    for text in binding.portable:
        sequence = QKeySequence(text)
        if not sequence.isEmpty() and sequence not in keys:
            keys.append(sequence)
    return [key for key in keys if not key.isEmpty()]


def bind(action: QAction, binding: Binding) -> QAction:
    """Give `action` the binding's keys; the menu shows the first."""
    action.setShortcuts(key_sequences(binding))
    return action


def _on_ordinary_keyboard(sequence: QKeySequence) -> bool:
    # Qt's standard keys include dedicated keys ("Open", "Refresh", "Help") that few
    # keyboards have; they work, but listing them only confuses.
    if sequence.count() == 0:
        return False
    first = sequence[0]  # type: ignore[index]  # the stubs lack QKeySequence.__getitem__
    return bool(first.key().value < _FIRST_DEDICATED_KEY)


_FIRST_DEDICATED_KEY = Qt.Key.Key_Help.value  # Help, Back, Refresh, Open, ... follow it


def keys_text(action: QAction) -> str:
    """The action's keys as the platform writes them ("Ctrl+O, Ctrl+I"), without the
    dedicated keys of multimedia keyboards."""
    return ", ".join(key.toString(QKeySequence.SequenceFormat.NativeText)
                     for key in action.shortcuts() if _on_ordinary_keyboard(key))


def _plain(text: str) -> str:
    # "&File" -> "File"; "&&" is a literal ampersand.
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def shortcut_rows(menus: Sequence[QMenu]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(menu title, [(command, keys)]) for every action with keys in `menus` and their
    submenus, in menu order."""
    groups: list[tuple[str, list[tuple[str, str]]]] = []

    def walk(menu: QMenu, title: str) -> None:
        rows: list[tuple[str, str]] = []
        for action in menu.actions():
            submenu = action.menu()
            if isinstance(submenu, QMenu):
                walk(submenu, f"{title} › {_plain(submenu.title())}")
            elif not action.isSeparator() and keys_text(action):
                rows.append((_plain(action.text()).rstrip("…").rstrip("."),
                             keys_text(action)))
        if rows:
            groups.append((title, rows))

    for menu in menus:
        walk(menu, _plain(menu.title()))
    return groups


class ShortcutsDialog(QDialog):
    """Help > Keyboard shortcuts: every command with keys, grouped by menu."""

    def __init__(self, menus: Sequence[QMenu], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        column = QVBoxLayout(self)
        column.addWidget(make_label(self.tr("Every command with a key, by menu; they work from "
                                            "anywhere in the window.")))
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([self.tr("Command"), self.tr("Keys")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        for title, rows in shortcut_rows(menus):
            group = QTreeWidgetItem([title, ""])
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(group)
            group.setFirstColumnSpanned(True)
            for command, keys in rows:
                item = QTreeWidgetItem([f"    {command}", keys])
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.tree.addTopLevelItem(item)
        column.addWidget(self.tree, 1)
        rows_height = sum(self.tree.sizeHintForRow(0) or 20
                          for _ in range(self.tree.topLevelItemCount()))
        self.tree.setMinimumHeight(min(600, rows_height + self.tree.header().sizeHint().height()
                                       + 2 * self.tree.frameWidth() + 4))
        self.tree.setMinimumWidth(max(380, self.tree.sizeHintForColumn(0)
                                      + self.tree.sizeHintForColumn(1) + 60))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def rows(self) -> list[tuple[str, str]]:
        """(command, keys) as shown, group titles with empty keys."""
        items = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        return [(item.text(0).strip(), item.text(1)) for item in items if item is not None]
