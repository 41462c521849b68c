"""Switching the UI tests' application to another language and back."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from gpuscope.ui.i18n import ENGLISH, install_language, setup_language


@contextlib.contextmanager
def ui_language(language: str) -> Iterator[None]:
    """The application in `language` with the CJK font, as `setup_application` leaves it;
    English and the fonts as they were afterwards."""
    font = QGuiApplication.font()
    fixed = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)).family()
    assert setup_language(environ={"GPUSCOPE_LANG": language}) == language
    try:
        yield
    finally:
        install_language(ENGLISH)
        QGuiApplication.setFont(font)
        QFont.removeSubstitutions(fixed)
