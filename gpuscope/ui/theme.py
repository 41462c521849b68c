"""Colours shared by every page: one colour per GPU, a few semantic colours, and the light
and dark application palettes.

The GPU palette is of mid lightness and high saturation so that it reads on a light and on a
dark window background alike; charts, cards and the report all take a GPU's colour from here,
so the same GPU has the same colour everywhere. The semantic colours are picked the same way,
so a page needs no second set for the dark theme.

`ThemeController` puts the light or the dark palette on the application: the one the system
asks for (following it live), or the one the user chose in View > Theme.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import Callable, Iterator
from importlib import resources
from typing import cast

import shiboken6
from PySide6.QtCore import QByteArray, QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QStyle, QStyleFactory, QToolTip

from gpuscope.app.settings import ThemeChoice as ThemeChoice
from gpuscope.model import ProbeState
from gpuscope.ui.i18n import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

# The one icon file: resources/gpuscope.svg, installed as gpuscope.resources (the .desktop
# file beside it names it "gpuscope").
ICON_PACKAGE = "gpuscope.resources"
ICON_RESOURCE = "gpuscope.svg"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)

# Ordered so that neighbours differ in hue and lightness (GPU 0 and GPU 1 never look alike).
_GPU_PALETTE: tuple[str, ...] = (
    "#4c8df6",  # blue
    "#f28e2b",  # orange
    "#25a99a",  # teal
    "#d65db1",  # magenta
    "#9b7bea",  # violet
    "#c9a227",  # ochre
    "#e8575a",  # red
    "#5fa84f",  # green
)

OK_COLOR = QColor("#2e9e4f")
MUTED_COLOR = QColor("#8c8c8c")
WARN_COLOR = QColor("#c77700")
ERROR_COLOR = QColor("#da4848")  # 3:1 on the dark Base as well as on white
# The replay banner sets both colours itself, so it reads the same in a dark theme.
BANNER_BACKGROUND = QColor("#ffc857")
BANNER_TEXT = QColor("#1f1f1f")


def gpu_color(index: int) -> QColor:
    """The colour of GPU `index`; past the palette, the palette again, lighter or darker."""
    base = QColor(_GPU_PALETTE[index % len(_GPU_PALETTE)])
    lap = index // len(_GPU_PALETTE)
    if lap == 0:
        return base
    return base.lighter(100 + 25 * lap) if lap % 2 else base.darker(100 + 20 * lap)


def state_color(state: ProbeState | None) -> QColor:
    """The colour of a probe state; `None` is a probe still running."""
    if state is None:
        return MUTED_COLOR
    if state is ProbeState.OK:
        return OK_COLOR
    if state in (ProbeState.TIMEOUT, ProbeState.ERROR):
        return ERROR_COLOR
    if state in (ProbeState.NOT_APPLICABLE, ProbeState.NOT_CAPTURED):
        return MUTED_COLOR
    return WARN_COLOR


def app_icon() -> QIcon:
    """gpuscope's icon from the packaged resources, drawn at the sizes desktops ask for; an
    empty icon if it cannot be read."""
    try:
        data = resources.files(ICON_PACKAGE).joinpath(ICON_RESOURCE).read_bytes()
    except (OSError, ModuleNotFoundError) as exc:
        log.warning("no application icon: %s", exc)
        return QIcon()
    renderer = QSvgRenderer(QByteArray(data))
    if not renderer.isValid():
        log.warning("no application icon: Qt cannot read %s", ICON_RESOURCE)
        return QIcon()
    icon = QIcon()
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        icon.addPixmap(QPixmap.fromImage(image))
    return icon


# ----------------------------------------------------------------------------- themes


# English sources; `theme_label` gives them in the language installed.
THEME_LABELS: dict[ThemeChoice, str] = {
    ThemeChoice.SYSTEM: QT_TRANSLATE_NOOP("ThemeChoice", "Follow the system"),
    ThemeChoice.LIGHT: QT_TRANSLATE_NOOP("ThemeChoice", "Light"),
    ThemeChoice.DARK: QT_TRANSLATE_NOOP("ThemeChoice", "Dark"),
}


def theme_label(choice: ThemeChoice) -> str:
    """The name of a theme choice (View > Theme) in the language installed."""
    return QCoreApplication.translate("ThemeChoice", THEME_LABELS[choice])

_Role = QPalette.ColorRole
_Group = QPalette.ColorGroup

# Neutral greys with a faint blue cast; the GPU and semantic colours above keep a contrast
# of at least 3:1 against the window and base colours here. Base is lighter than Window:
# Fusion outlines check boxes in Window darkened, which vanishes on a darker Base.
_DARK_ROLES: dict[QPalette.ColorRole, str] = {
    _Role.Window: "#202328",
    _Role.WindowText: "#e4e6ea",
    _Role.Base: "#2d3137",
    _Role.AlternateBase: "#33373e",
    _Role.ToolTipBase: "#33373e",
    _Role.ToolTipText: "#e4e6ea",
    _Role.PlaceholderText: "#8a9099",
    _Role.Text: "#e4e6ea",
    _Role.Button: "#2f333a",
    _Role.ButtonText: "#e4e6ea",
    _Role.BrightText: "#ff6b6b",
    _Role.Light: "#454a53",
    _Role.Midlight: "#383c44",
    _Role.Mid: "#4a4f58",
    _Role.Dark: "#16181b",
    _Role.Shadow: "#0c0d0f",
    _Role.Highlight: "#3d7bd9",
    _Role.HighlightedText: "#ffffff",
    _Role.Link: "#79aefc",
    _Role.LinkVisited: "#b59cf2",
}
_DARK_DISABLED: dict[QPalette.ColorRole, str] = {
    _Role.WindowText: "#7d838c",
    _Role.Text: "#7d838c",
    _Role.ButtonText: "#7d838c",
    _Role.Base: "#26292e",
    _Role.Highlight: "#4a4f58",
    _Role.HighlightedText: "#c4c7cc",
}


def light_palette() -> QPalette:
    """Fusion's own light palette: what Qt draws with when nobody changes anything."""
    # The stubs say never None; a Qt built without Fusion would answer None.
    style = cast("QStyle | None", QStyleFactory.create("Fusion"))
    if style is None:
        return QPalette()
    return QPalette(style.standardPalette())


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, color in _DARK_ROLES.items():
        palette.setColor(role, QColor(color))
    for role, color in _DARK_DISABLED.items():
        palette.setColor(_Group.Disabled, role, QColor(color))
    return palette


def palette_for(scheme: Qt.ColorScheme) -> QPalette:
    """The dark palette for `Qt.ColorScheme.Dark`, the light one for anything else."""
    return dark_palette() if scheme is Qt.ColorScheme.Dark else light_palette()


def is_dark(palette: QPalette) -> bool:
    """Whether `palette` draws light text on a dark window."""
    return palette.color(_Role.Window).lightness() < palette.color(_Role.WindowText).lightness()


def system_color_scheme() -> Qt.ColorScheme:
    """The light/dark setting the platform reports (Unknown where it reports none)."""
    return QGuiApplication.styleHints().colorScheme()


# Ends the application style sheet; changing it makes Qt restyle every widget.
_RESTYLE_MARKER = "\n/* gpuscope theme: "


def refresh_style_sheets(app: QApplication, scheme: Qt.ColorScheme) -> None:
    """Make widgets with a style sheet take up a new application palette.

    Qt resolves `palette(base)` in a widget's style sheet once and keeps the result. A new
    application style sheet (here: the old one with a comment naming the scheme) makes Qt
    drop those results and restyle every widget, in C++, without walking the widgets from
    Python (which races with widgets being deleted)."""
    sheet = app.styleSheet()
    kept = sheet.split(_RESTYLE_MARKER, 1)[0]
    if scheme is not Qt.ColorScheme.Dark and sheet != kept:
        app.setStyleSheet(kept)  # back to light: dropping the comment is change enough
    else:
        app.setStyleSheet(f"{kept}{_RESTYLE_MARKER}{scheme.name} */")


@contextlib.contextmanager
def _no_garbage_collection() -> Iterator[None]:
    """An application-wide restyle calls back into Python (event handlers) for every widget;
    a collection there can delete a dropped window in the middle of Qt's walk, which crashes."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


class ThemeController(QObject):
    """Keeps the application palette on the theme chosen, and on the system's light/dark
    setting while the choice is `ThemeChoice.SYSTEM`.

    The palette is set on the application (the Fusion style honours all of it), so every
    window and dialog, and every page that takes its colours from the palette, follows.
    `changed(Qt.ColorScheme)` is emitted after each change, with Light or Dark. The
    application has one, `app_theme()`; two would fight over the palette."""

    changed = Signal(object)

    def __init__(
        self, choice: ThemeChoice = ThemeChoice.SYSTEM, *,
        system_scheme: Callable[[], Qt.ColorScheme] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._choice = choice
        self._query_system = system_scheme or (lambda: system_color_scheme())
        self._system_scheme = self._query_system()
        self._applied: Qt.ColorScheme | None = None
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
        if choice is not ThemeChoice.SYSTEM:
            self._request_platform_scheme()

    @property
    def choice(self) -> ThemeChoice:
        return self._choice

    @property
    def system_scheme(self) -> Qt.ColorScheme:
        """What the system last said: Light, Dark, or Unknown (taken as Light)."""
        return self._system_scheme

    @property
    def effective_scheme(self) -> Qt.ColorScheme:
        """Light or Dark: the scheme the application is drawn in."""
        if self._choice is ThemeChoice.LIGHT:
            return Qt.ColorScheme.Light
        if self._choice is ThemeChoice.DARK:
            return Qt.ColorScheme.Dark
        return (Qt.ColorScheme.Dark if self._system_scheme is Qt.ColorScheme.Dark
                else Qt.ColorScheme.Light)

    def set_choice(self, choice: ThemeChoice) -> None:
        """Switch to `choice` and apply it; the system's setting is read afresh when it is
        `ThemeChoice.SYSTEM`."""
        if choice is self._choice and self._applied is not None:
            return
        self._choice = choice
        self._request_platform_scheme()
        if choice is ThemeChoice.SYSTEM:
            self._system_scheme = self._query_system()
        self.apply()

    def apply(self) -> None:
        """Put the palette of the effective scheme on the application (again)."""
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            log.warning("no QApplication: the %s theme is not applied", self._choice.value)
            return
        scheme = self.effective_scheme
        palette = palette_for(scheme)
        # Restyling every widget is not free: skip it when the palette is already this one.
        if app.palette() != palette:
            with _no_garbage_collection():
                app.setPalette(palette)
                QToolTip.setPalette(palette)
                refresh_style_sheets(app, scheme)
        self._applied = scheme
        log.debug("theme %s: %s palette", self._choice.value, scheme.name)
        self.changed.emit(scheme)

    def _request_platform_scheme(self) -> None:
        # Qt 6.8+: ask the platform for the same scheme, so that what the platform draws
        # itself (title bars on Windows and macOS) matches. Offscreen and most Linux
        # platforms ignore the request; the palette above does the work there.
        hints = QGuiApplication.styleHints()
        if self._choice is ThemeChoice.SYSTEM:
            if hasattr(hints, "unsetColorScheme"):
                hints.unsetColorScheme()
            return
        if hasattr(hints, "setColorScheme"):
            hints.setColorScheme(Qt.ColorScheme.Dark if self._choice is ThemeChoice.DARK
                                 else Qt.ColorScheme.Light)

    def _on_system_scheme(self, scheme: Qt.ColorScheme) -> None:
        if self._choice is not ThemeChoice.SYSTEM:
            # Our own request to the platform comes back through here too; it is not the
            # system's setting.
            return
        self._system_scheme = scheme
        if self.effective_scheme is not self._applied:
            self.apply()


def app_theme() -> ThemeController:
    """The application's theme controller, made on first use (a child of the QApplication,
    which must exist)."""
    global _app_theme
    app = QApplication.instance()
    if (_app_theme is None or not shiboken6.isValid(_app_theme)
            or _app_theme.parent() is not app):
        _app_theme = ThemeController(parent=app)
    return _app_theme


_app_theme: ThemeController | None = None
