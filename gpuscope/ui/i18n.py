"""Languages in the window: English (the source) and Simplified Chinese, chosen from the
locale, and the CJK font that shows Chinese on machines that have none.

    GPUSCOPE_LANG=zh_CN gpuscope        # this run in Chinese, whatever the locale says
    LANG=zh_CN.UTF-8 gpuscope           # Chinese from the locale
    GPUSCOPE_LANG=en gpuscope           # English

The window and the Qt-free core share one gettext catalogue (`gpuscope.i18n`,
`resources/i18n/<language>.po`, compiled to `.mo`): a QTranslator answers Qt's lookups from it,
the Qt context being the entry's msgctxt. `tools/update_translations.py` extracts the strings
(`self.tr(...)`, `translate(ctx, ...)`, `QT_TRANSLATE_NOOP(ctx, ...)` here; `message(...)`,
`N_(...)` in the core) and compiles the catalogue.

The bundled font (`resources/fonts/`, a subset of Noto Sans CJK SC made by
`tools/subset_cjk_font.py`) is added to the application font's families after the UI font, so
that text in the UI font's script uses it, and only characters the UI font lacks (Chinese)
come from the CJK font. It is loaded in every language: a GPU or a folder can have a Chinese
name in an English UI too.

Texts of the core (findings, metric labels, probe titles, layer names) are shown through
`core_text()`, which localises them (`gpuscope.i18n.localise`); the fixed names the window
shows are also listed below with `QT_TRANSLATE_NOOP("core", ...)` ("core": no msgctxt).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QObject,
    QTranslator,
)
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from gpuscope import i18n as core_i18n
from gpuscope.app.settings import ENGLISH as ENGLISH
from gpuscope.app.settings import LANGUAGE_AUTO as LANGUAGE_AUTO
from gpuscope.app.settings import LANGUAGE_CHOICES as LANGUAGE_CHOICES
from gpuscope.app.settings import LANGUAGES as LANGUAGES
from gpuscope.app.settings import SIMPLIFIED_CHINESE as SIMPLIFIED_CHINESE
from gpuscope.doctor.layers import verdict_row_text as layer_verdict_text
from gpuscope.doctor.verdicts import FrameworkVerdict
from gpuscope.i18n import LANGUAGE_ENV as LANGUAGE_ENV
from gpuscope.i18n import normalise_language as normalise_language

log = logging.getLogger(__name__)

RESOURCE_PACKAGE = core_i18n.RESOURCE_PACKAGE
FONT_RESOURCES: tuple[str, ...] = ("fonts/gpuscope-cjk-sc-regular.otf",
                                   "fonts/gpuscope-cjk-sc-bold.otf")
CORE_CONTEXT = "core"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """`text`, unchanged: marks a constant for the extraction, under `context`; show it with
    `translate(context, constant)` (or `self.tr(constant)` in that class). Qt's own
    QT_TRANSLATE_NOOP does the same, typed as returning `object`."""
    return text


def translate(context: str, text: str) -> str:
    """`text` in the language installed, from `context` (the class name, for texts of
    module-level functions of a page). The extraction finds `translate("Ctx", "literal")`
    calls by this name."""
    return QCoreApplication.translate(context, text)


def core_text(text: str) -> str:
    """A text of the Qt-free core (a finding, a metric label, a probe title, a layer name)
    in the language installed, when the catalogue has it; unchanged otherwise."""
    return core_i18n.localise(text) if text else text


# ----------------------------------------------------------------------------- choosing


def choose_language(
    environ: Mapping[str, str] | None = None, setting: str | None = None,
    system_languages: Sequence[str] | None = None,
) -> str:
    """`gpuscope.i18n.choose_language`, with the system's UI languages from Qt (Windows and
    macOS set no locale variables)."""
    languages = (system_languages if system_languages is not None
                 else QLocale.system().uiLanguages())
    return core_i18n.choose_language(environ, setting, languages)


# ----------------------------------------------------------------------------- installing


class CatalogueTranslator(QTranslator):
    """Qt's lookups answered from gpuscope's gettext catalogue (`gpuscope.i18n`): the Qt
    context is the entry's msgctxt, "core" the core's texts (no msgctxt). None (no
    translation) lets Qt show the source text."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def translate(self, context: str, source_text: str, disambiguation: str | None = None,
                  n: int = -1) -> str | None:
        return core_i18n.pgettext(None if context == CORE_CONTEXT else context, source_text)

    def isEmpty(self) -> bool:
        return core_i18n.current_language() == ENGLISH


@dataclass
class _Installed:
    language: str = ENGLISH
    translators: list[QTranslator] = field(default_factory=list)
    font_families: tuple[str, ...] | None = None


_installed = _Installed()


def read_resource(name: str) -> bytes | None:
    """The bytes of a packaged resource (resources/NAME), or None with the reason logged."""
    try:
        return resources.files(RESOURCE_PACKAGE).joinpath(name).read_bytes()
    except (OSError, ModuleNotFoundError) as exc:
        log.warning("cannot read resource %s: %s", name, exc)
        return None


def installed_language() -> str:
    """The language `install_language` last installed ("en" before any)."""
    return _installed.language


def install_language(language: str) -> bool:
    """Make `language` the application's and the core's: remove the translators installed
    before, and for a language other than English install gpuscope's catalogue and Qt's own
    translation (the texts of standard dialogs and buttons). Needs a QCoreApplication;
    widgets built afterwards are in the new language. Whether gpuscope's catalogue loaded
    (True for English); one that cannot be loaded leaves English, with the reason logged."""
    app = QCoreApplication.instance()
    if app is None:
        log.warning("no application: the %s translation is not installed", language)
        return False
    for translator in _installed.translators:
        app.removeTranslator(translator)
        translator.deleteLater()
    _installed.translators.clear()
    _installed.language = ENGLISH
    if not core_i18n.set_language(language):
        return False
    if language == ENGLISH:
        return True
    qt_translator = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_translator.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt_translator)
        _installed.translators.append(qt_translator)
    else:
        log.info("Qt has no qtbase_%s.qm in %s: standard dialogs stay in English", language,
                 qt_dir)
    translator = CatalogueTranslator(app)
    app.installTranslator(translator)  # installed last, so it is asked first
    _installed.translators.append(translator)
    _installed.language = language
    log.info("language: %s", language)
    return True


def load_cjk_font() -> tuple[str, ...]:
    """Register the bundled CJK font (once) and add its family after the application font's
    families, so characters the UI font lacks come from it. The families of the font; ()
    when it cannot be read (Chinese text then shows in whatever the system has)."""
    app = QCoreApplication.instance()
    if not isinstance(app, QGuiApplication):
        log.warning("no GUI application: the CJK font is not loaded")
        return ()
    if _installed.font_families is None:
        families: list[str] = []
        for name in FONT_RESOURCES:
            data = read_resource(name)
            if data is None:
                continue
            font_id = QFontDatabase.addApplicationFontFromData(QByteArray(data))
            if font_id < 0:
                log.warning("Qt cannot read the font %s", name)
                continue
            families.extend(f for f in QFontDatabase.applicationFontFamilies(font_id)
                            if f not in families)
        _installed.font_families = tuple(families)
    families_added = _installed.font_families
    if families_added:
        font = QGuiApplication.font()
        # The family the UI font resolves to ("Sans Serif" is an alias of fontconfig's, and
        # an alias with a substitute would be replaced by it, Latin and all).
        primary = QFontInfo(font).family()
        wanted = [primary, *(f for f in families_added if f != primary)]
        if list(font.families()) != wanted:
            font.setFamilies(wanted)
            QGuiApplication.setFont(font)
        # Fonts that name a family of their own (the monospace of the fix lines) fall back
        # to the CJK font too.
        fixed = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)).family()
        extra = [f for f in families_added if f not in QFont.substitutes(fixed) and f != fixed]
        if extra:
            QFont.insertSubstitutions(fixed, extra)
    return families_added


def setup_language(setting: str | None = None,
                   environ: Mapping[str, str] | None = None) -> str:
    """Choose the language (`choose_language`), install it and the CJK font; the language
    installed. Call it before building any widget."""
    language = choose_language(environ, setting)
    load_cjk_font()
    if not install_language(language):
        language = ENGLISH
    return language


# ----------------------------------------------------------------------------- core texts

# Strings of the Qt-free core that the UI shows as they are: listed here for the extraction,
# looked up by `core_text`. tests/ui/test_i18n.py checks the lists against the core.
CORE_TEXTS: tuple[str, ...] = (
    # Probe titles (gpuscope.inventory.PROBES)
    QT_TRANSLATE_NOOP("core", "Kernel driver (sysfs)"),
    QT_TRANSLATE_NOOP("core", "KFD topology (ROCm)"),
    QT_TRANSLATE_NOOP("core", "AMD SMI"),
    QT_TRANSLATE_NOOP("core", "NVIDIA NVML"),
    QT_TRANSLATE_NOOP("core", "Host"),
    QT_TRANSLATE_NOOP("core", "Stack versions"),
    QT_TRANSLATE_NOOP("core", "Windows display adapters"),
    QT_TRANSLATE_NOOP("core", "HIP SDK (Windows)"),
    QT_TRANSLATE_NOOP("core", "Windows host (WSL, py launcher)"),
    # Metric labels and units (gpuscope.metrics.CATALOGUE)
    QT_TRANSLATE_NOOP("core", "GPU utilization"),
    QT_TRANSLATE_NOOP("core", "VRAM used"),
    QT_TRANSLATE_NOOP("core", "VRAM total"),
    QT_TRANSLATE_NOOP("core", "GTT used (system memory)"),
    QT_TRANSLATE_NOOP("core", "Temperature (edge)"),
    QT_TRANSLATE_NOOP("core", "Temperature (junction/hotspot)"),
    QT_TRANSLATE_NOOP("core", "Temperature (memory)"),
    QT_TRANSLATE_NOOP("core", "Power"),
    QT_TRANSLATE_NOOP("core", "Power cap"),
    QT_TRANSLATE_NOOP("core", "Graphics clock"),
    QT_TRANSLATE_NOOP("core", "Memory clock"),
    QT_TRANSLATE_NOOP("core", "Fan"),
    QT_TRANSLATE_NOOP("core", "PCIe generation"),
    QT_TRANSLATE_NOOP("core", "PCIe width"),
    QT_TRANSLATE_NOOP("core", "PCIe receive"),
    QT_TRANSLATE_NOOP("core", "PCIe transmit"),
    QT_TRANSLATE_NOOP("core", "PCIe bandwidth (both directions)"),
    QT_TRANSLATE_NOOP("core", "Throttling"),
    QT_TRANSLATE_NOOP("core", "Host CPU"),
    QT_TRANSLATE_NOOP("core", "Host RAM used"),
    QT_TRANSLATE_NOOP("core", "Host swap used"),
    QT_TRANSLATE_NOOP("core", "lanes"),
    # Throttle reasons (gpuscope.metrics.throttle_reason_names)
    QT_TRANSLATE_NOOP("core", "power cap"),
    QT_TRANSLATE_NOOP("core", "thermal"),
    QT_TRANSLATE_NOOP("core", "current limit"),
    QT_TRANSLATE_NOOP("core", "hardware slowdown"),
    QT_TRANSLATE_NOOP("core", "clock setting"),
    QT_TRANSLATE_NOOP("core", "idle"),
    QT_TRANSLATE_NOOP("core", "other"),
    # Probe states, GPU kinds, finding severities (gpuscope.model), as the UI words them
    QT_TRANSLATE_NOOP("core", "ok"),
    QT_TRANSLATE_NOOP("core", "library missing"),
    QT_TRANSLATE_NOOP("core", "driver missing"),
    QT_TRANSLATE_NOOP("core", "permission denied"),
    QT_TRANSLATE_NOOP("core", "not applicable"),
    QT_TRANSLATE_NOOP("core", "not captured"),
    QT_TRANSLATE_NOOP("core", "timeout"),
    QT_TRANSLATE_NOOP("core", "error"),
    QT_TRANSLATE_NOOP("core", "warning"),
    QT_TRANSLATE_NOOP("core", "info"),
    QT_TRANSLATE_NOOP("core", "discrete"),
    QT_TRANSLATE_NOOP("core", "integrated"),
    QT_TRANSLATE_NOOP("core", "virtual"),
    QT_TRANSLATE_NOOP("core", "partition"),
    QT_TRANSLATE_NOOP("core", "unknown"),
    # Kinds of GPU processes (gpuscope.metrics.GpuProcess.kind)
    QT_TRANSLATE_NOOP("core", "compute"),
    QT_TRANSLATE_NOOP("core", "graphics"),
    # Benchmark titles (gpuscope.bench.catalog.BENCHMARKS)
    QT_TRANSLATE_NOOP("core", "FP32 matmul"),
    QT_TRANSLATE_NOOP("core", "TF32 matmul (NVIDIA)"),
    QT_TRANSLATE_NOOP("core", "FP16 matmul"),
    QT_TRANSLATE_NOOP("core", "BF16 matmul"),
    QT_TRANSLATE_NOOP("core", "INT8 matmul (torch._int_mm)"),
    QT_TRANSLATE_NOOP("core", "FP8 matmul (torch._scaled_mm)"),
    QT_TRANSLATE_NOOP("core", "memory copy"),
    QT_TRANSLATE_NOOP("core", "memory triad"),
    QT_TRANSLATE_NOOP("core", "host to device, pinned"),
    QT_TRANSLATE_NOOP("core", "device to host, pinned"),
    QT_TRANSLATE_NOOP("core", "host to device, pageable"),
    QT_TRANSLATE_NOOP("core", "device to host, pageable"),
    QT_TRANSLATE_NOOP("core", "kernel launch round trip"),
    QT_TRANSLATE_NOOP("core", "synchronise, nothing queued"),
    QT_TRANSLATE_NOOP("core", "attention, flash backend"),
    QT_TRANSLATE_NOOP("core", "attention, memory-efficient backend"),
    QT_TRANSLATE_NOOP("core", "attention, math backend"),
    QT_TRANSLATE_NOOP("core", "LLM prefill, 512-token prompt"),
    QT_TRANSLATE_NOOP("core", "LLM decode after 512 tokens"),
    QT_TRANSLATE_NOOP("core", "LLM decode after 4096 tokens"),
    # Benchmark verdicts and result states (gpuscope.bench.assess, gpuscope.bench.results)
    QT_TRANSLATE_NOOP("core", "normal"),
    QT_TRANSLATE_NOOP("core", "low"),
    QT_TRANSLATE_NOOP("core", "above published"),
    QT_TRANSLATE_NOOP("core", "no reference"),
    QT_TRANSLATE_NOOP("core", "no datasheet"),
    QT_TRANSLATE_NOOP("core", "unsupported"),
    QT_TRANSLATE_NOOP("core", "failed"),
    # How a benchmark changed between two runs (gpuscope.bench.history.BenchDelta.change)
    QT_TRANSLATE_NOOP("core", "better"),
    QT_TRANSLATE_NOOP("core", "worse"),
    QT_TRANSLATE_NOOP("core", "within spread"),
    QT_TRANSLATE_NOOP("core", "not comparable"),
    QT_TRANSLATE_NOOP("core", "only in A"),
    QT_TRANSLATE_NOOP("core", "only in B"),
)


# ----------------------------------------------------------------------------- framework verdicts


def verdict_text(verdict: FrameworkVerdict) -> str:
    """The verdict's words ("yes as device 0", "no: the smoke test failed: ...") in the
    language installed: one translation for the Frameworks page, the Stack page and the
    doctor's text, so that all say the same."""
    return core_text(verdict.text)


def verdict_row_text(verdict: FrameworkVerdict) -> str:
    """The Stack page's framework layer: the framework it judges, then the verdict's words
    (the same words as on the Frameworks page)."""
    return core_text(layer_verdict_text(verdict))
