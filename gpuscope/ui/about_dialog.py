"""Help > About gpuscope: what this is, and the versions of everything it runs on, with a
Copy button for bug reports."""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from collections.abc import Sequence

import PySide6
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gpuscope import __version__
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP
from gpuscope.ui.theme import MUTED_COLOR
from gpuscope.ui.widgets import make_label

# English sources (the Copy text for bug reports stays English); shown translated.
ABOUT_TEXT = QT_TRANSLATE_NOOP(
    "AboutDialog", "Which GPUs this machine has, which layer of the stack (driver, ROCm, CUDA, "
    "PyTorch) can use each one, and why not; live telemetry and short benchmarks.")
NOT_INSTALLED = QT_TRANSLATE_NOOP("AboutDialog", "not installed")
# For the extraction: the one version row named by a word, not by a product.
_ROW_NAMES = (QT_TRANSLATE_NOOP("AboutDialog", "Platform"),)


def package_version(distribution: str, module_version: str | None = None) -> str:
    """The installed version of `distribution`; `module_version` (the module's own
    __version__) where the distribution metadata is missing."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return module_version or NOT_INSTALLED


def _module_version(name: str) -> str | None:
    module = sys.modules.get(name)
    version = getattr(module, "__version__", None) if module is not None else None
    return str(version) if version is not None else None


def version_rows() -> list[tuple[str, str]]:
    """(component, version) for gpuscope and what it runs on. Never raises."""
    python = f"{platform.python_version()} ({platform.python_implementation()})"
    # The Qt that runs, which can differ from the one PySide6 was built against.
    qt = qVersion()
    app = QGuiApplication.instance()
    platform_name = QGuiApplication.platformName() if app is not None else "no application"
    return [
        ("gpuscope", __version__),
        ("Python", python),
        ("Qt", f"{qt} ({platform_name} platform)"),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", package_version("pyqtgraph", _module_version("pyqtgraph"))),
        ("numpy", package_version("numpy", _module_version("numpy"))),
        ("platformdirs", package_version("platformdirs", _module_version("platformdirs"))),
        ("Platform", platform.platform()),
    ]


def about_plain_text(rows: Sequence[tuple[str, str]], extra: Sequence[tuple[str, str]] = ()
                     ) -> str:
    """The text the Copy button puts on the clipboard: one `name: value` line each."""
    lines = [f"{name}: {value}" for name, value in (*rows, *extra)]
    return "\n".join(lines) + "\n"


class AboutDialog(QDialog):
    """The About box: icon, one paragraph, a table of versions, Copy and Close.
    `extra` rows (the settings file, for instance) are shown below the versions."""

    def __init__(self, icon: QIcon | None = None, extra: Sequence[tuple[str, str]] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About gpuscope"))
        self._rows = version_rows()
        self._extra = tuple(extra)

        column = QVBoxLayout(self)
        column.setSpacing(10)
        head = QHBoxLayout()
        head.setSpacing(14)
        if icon is not None and not icon.isNull():
            picture = QLabel()
            picture.setPixmap(icon.pixmap(64, 64))
            picture.setAlignment(Qt.AlignmentFlag.AlignTop)
            head.addWidget(picture, 0)
        text_column = QVBoxLayout()
        text_column.setSpacing(4)
        text_column.addWidget(make_label(f"gpuscope {__version__}", bold=True, scale=1.4,
                                         wrap=False))
        text_column.addWidget(make_label(self.tr(ABOUT_TEXT)))
        text_column.addStretch(1)
        head.addLayout(text_column, 1)
        column.addLayout(head)
        column.addSpacing(4)

        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(3)
        for row_index, (name, value) in enumerate((*self._rows, *self._extra)):
            # Shown in the language installed; the Copy text keeps the English rows.
            grid.addWidget(make_label(self.tr(name), color=MUTED_COLOR, wrap=False), row_index,
                           0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(make_label(self.tr(value) if value == NOT_INSTALLED else value),
                           row_index, 1)
        grid.setColumnStretch(1, 1)
        column.addLayout(grid)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy these versions to the clipboard, for a bug "
                                            "report"))
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_to_clipboard)
        buttons.rejected.connect(self.reject)
        self.copied_label = make_label("", color=MUTED_COLOR, wrap=False)
        bottom = QHBoxLayout()
        bottom.addWidget(self.copied_label, 1)
        bottom.addWidget(buttons)
        column.addLayout(bottom)
        # The wrapped paragraph is as tall as the width makes it: size for that width.
        width = 540
        self.resize(width, column.totalHeightForWidth(width))

    def rows(self) -> list[tuple[str, str]]:
        return [*self._rows, *self._extra]

    def plain_text(self) -> str:
        return about_plain_text(self._rows, self._extra)

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.plain_text())
        self.copied_label.setText(self.tr("Copied to the clipboard"))
