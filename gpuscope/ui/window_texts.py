"""The main window's words: page names and titles, the replay and import banners, the
language menu's names, and the page shown where one is not built yet."""

from __future__ import annotations

import datetime as _dt
import os

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gpuscope.model import Origin, OriginKind
from gpuscope.ui.i18n import LANGUAGE_AUTO, QT_TRANSLATE_NOOP, translate
from gpuscope.ui.theme import MUTED_COLOR

# The pages' names in code, tests, settings and `select_page` (English, whatever the
# language); `page_title` is the name shown.
PAGE_NAMES: tuple[str, ...] = (
    "Overview", "Stack", "Frameworks", "Telemetry", "Benchmarks", "Compare", "Report",
)
PAGE_TITLES: dict[str, str] = {
    "Overview": QT_TRANSLATE_NOOP("MainWindow", "Overview"),
    "Stack": QT_TRANSLATE_NOOP("MainWindow", "Stack"),
    "Frameworks": QT_TRANSLATE_NOOP("MainWindow", "Frameworks"),
    "Telemetry": QT_TRANSLATE_NOOP("MainWindow", "Telemetry"),
    "Benchmarks": QT_TRANSLATE_NOOP("MainWindow", "Benchmarks"),
    "Compare": QT_TRANSLATE_NOOP("MainWindow", "Compare"),
    "Report": QT_TRANSLATE_NOOP("MainWindow", "Report"),
}
# What each page not built yet will hold; shown on the page so it never pretends to work.
PLACEHOLDERS: dict[str, str] = {}
COMING_LATER = QT_TRANSLATE_NOOP("MainWindow", " — coming in a later release")
# Imported outputs get a blue banner, replays the amber one: two different kinds of "not live".
IMPORT_BANNER_BACKGROUND = QColor("#9cc8ff")
BACK_TO_LIVE = QT_TRANSLATE_NOOP("MainWindow", "Back to this machine")
# View > Language: the setting's value and its name in the menu (a language by its own name).
LANGUAGE_LABELS: dict[str, str] = {
    LANGUAGE_AUTO: QT_TRANSLATE_NOOP("MainWindow", "Automatic (from the system)"),
    "en": "English",
    "zh_CN": "简体中文",
}
# The Telemetry page's source line for a replay (and, in English, the report's).
REPLAY_FEED_LABEL = QT_TRANSLATE_NOOP(
    "MainWindow", "Replay of {source}: values as captured — not live")
# How long a passing note (settings file, recording opened) stays in the status bar.
SETTINGS_NOTE_MS = 15_000
RECORDING_FILTER = QT_TRANSLATE_NOOP(
    "MainWindow", "Telemetry recordings (*.sqlite *.sqlite3 *.db);;All files (*)")


def page_title(name: str) -> str:
    """The name of page `name` (one of PAGE_NAMES) as the sidebar and the menu show it."""
    title = PAGE_TITLES.get(name, name)
    return translate("MainWindow", title)


def replay_banner_text(origin: Origin) -> str | None:
    """The banner for a replayed or imported inventory; None when live."""
    if origin.kind is OriginKind.LIVE:
        return None
    if origin.kind is OriginKind.IMPORTED:
        sources = origin.source or translate("MainWindow", "pasted outputs")
        return translate("MainWindow", "Imported from {sources} — pasted outputs, not this "
                         "machine").format(sources=sources)
    name = (os.path.basename(origin.source) if origin.source
            else translate("MainWindow", "a snapshot"))
    when = _format_captured(origin.captured_utc) if origin.captured_utc else None
    version = origin.gpuscope_version
    if when and version:
        captured = translate("MainWindow", "captured {when} by gpuscope {version}").format(
            when=when, version=version)
    elif when:
        captured = translate("MainWindow", "captured {when} (gpuscope version not "
                             "recorded)").format(when=when)
    elif version:
        captured = translate("MainWindow", "captured by gpuscope {version} (date not "
                             "recorded)").format(version=version)
    else:
        captured = translate("MainWindow", "capture date and gpuscope version not recorded")
    return translate("MainWindow", "Replay of {name} — {captured}; nothing here is "
                     "live").format(name=name, captured=captured)


def _format_captured(captured_utc: str) -> str:
    text = captured_utc.strip()
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(_dt.timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M")


def placeholder_page(name: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(28, 28, 28, 28)
    title = QLabel(page_title(name))
    font = title.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    title.setFont(font)
    text = QLabel(PLACEHOLDERS.get(name, name) + translate("MainWindow", COMING_LATER))
    text.setObjectName("placeholderText")
    text.setWordWrap(True)
    note = QLabel(translate("MainWindow",
                            "Not built yet: nothing on this page is working in this release."))
    note.setStyleSheet(f"color: {MUTED_COLOR.name()};")
    layout.addWidget(title)
    layout.addWidget(text)
    layout.addWidget(note)
    layout.addStretch(1)
    return page
