"""Help > About (versions, Copy), the application icon, and the desktop entry."""

from __future__ import annotations

import configparser
import importlib.metadata
import importlib.resources
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy
import pyqtgraph
import PySide6
import pytest
from PySide6.QtCore import QByteArray, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from gpuscope import __version__
from gpuscope.app.settings import SettingsStore
from gpuscope.evidence import ReplaySystem
from gpuscope.ui.about_dialog import NOT_INSTALLED, AboutDialog, package_version, version_rows
from gpuscope.ui.main_window import MainWindow
from gpuscope.ui.theme import ICON_RESOURCE, app_icon

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10; tomli is a dependency there
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "resources"
DESKTOP_FILE = RESOURCES / "gpuscope.desktop"
SNAPSHOT = REPO / "tests" / "fixtures" / "snapshots" / "rx7900xtx_rocm.json"


def test_versions_are_the_real_ones(qapp: QApplication) -> None:
    rows = dict(version_rows())
    assert rows["gpuscope"] == __version__
    assert rows["Python"].startswith(platform.python_version())
    assert rows["Qt"].startswith(qVersion()) and "offscreen" in rows["Qt"]
    assert rows["PySide6"] == PySide6.__version__
    assert rows["pyqtgraph"] == pyqtgraph.__version__
    assert rows["numpy"] == numpy.__version__
    assert rows["Platform"] == platform.platform()
    assert list(rows)[:2] == ["gpuscope", "Python"]


def test_a_missing_package_is_said_not_raised() -> None:
    assert package_version("gpuscope-no-such-distribution") == NOT_INSTALLED
    assert package_version("gpuscope-no-such-distribution", "1.2") == "1.2"


def test_copy_puts_every_version_on_the_clipboard(qapp: QApplication, qtbot: Any) -> None:
    dialog = AboutDialog(app_icon(), extra=[("Settings file", "/tmp/x/settings.json")])
    qtbot.addWidget(dialog)
    QGuiApplication.clipboard().clear()
    dialog.copy_button.click()
    text = QGuiApplication.clipboard().text()
    for name, value in dialog.rows():
        assert f"{name}: {value}\n" in text
    assert "Settings file: /tmp/x/settings.json" in text
    assert f"gpuscope: {__version__}" in text and f"numpy: {numpy.__version__}" in text
    assert dialog.copied_label.text() == "Copied to the clipboard"


def test_the_help_menu_opens_about_with_the_settings_file(
    tmp_path: Path, make_window: Callable[..., MainWindow],
) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    window = make_window(ReplaySystem.from_file(SNAPSHOT), probes=(), settings=store)
    assert [a.text() for a in window.help_menu.actions()] == [
        "&Keyboard shortcuts", "&About gpuscope"]
    window.about_action.trigger()
    dialog = window.open_about_dialog()
    assert dialog.isVisible() and dialog.parent() is window
    assert ("Settings file", str(store.path)) in dialog.rows()
    dialog.reject()


def test_the_icon_is_the_packaged_svg_and_draws(qapp: QApplication) -> None:
    data = importlib.resources.files("gpuscope.resources").joinpath(ICON_RESOURCE).read_bytes()
    assert data == (RESOURCES / "gpuscope.svg").read_bytes()  # one file, not a copy
    assert QSvgRenderer(QByteArray(data)).isValid()
    icon = app_icon()
    assert not icon.isNull()
    for size in (16, 48, 256):
        image = icon.pixmap(size, size).toImage()
        assert image.width() == size
        opaque = sum(1 for x in range(size) for y in range(size)
                     if image.pixelColor(x, y).alpha() > 200)
        assert opaque > size * size // 3, f"the {size} px icon is mostly empty"
    # The package data pattern ships it with an installed gpuscope.
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.svg" in pyproject["tool"]["setuptools"]["package-data"]["gpuscope.resources"]


def read_desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_desktop_entry_names_what_exists() -> None:
    entry = read_desktop_entry()
    for key in ("Type", "Name", "Exec", "Icon", "Categories", "Comment"):
        assert entry.get(key), f"{key} is missing"
    assert entry["Type"] == "Application"
    assert entry["Terminal"] == "false"
    # Exec runs the gui-script the project installs; Icon names the one icon file.
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert entry["Exec"].split()[0] in pyproject["project"]["gui-scripts"]
    assert (RESOURCES / f"{entry['Icon']}.svg").is_file()
    # The window's WM class and Qt's desktop file name match it.
    assert entry["StartupWMClass"] == "gpuscope"
    categories = entry["Categories"].split(";")
    assert categories[-1] == "" and "System" in categories  # ';'-terminated list
    for key in ("Categories", "Keywords"):
        assert entry[key].endswith(";")


def test_desktop_file_validate_accepts_it() -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        # The key checks above still ran; the full validator comes with desktop-file-utils.
        pytest.skip("desktop-file-validate is not installed (apt install desktop-file-utils)")
    result = subprocess.run([tool, str(DESKTOP_FILE)], capture_output=True, text=True,
                            timeout=30, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in (result.stdout + result.stderr).lower()
