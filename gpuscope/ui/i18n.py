"""Languages: English (the source) and Simplified Chinese, chosen from the locale, and the CJK
font that shows Chinese on machines that have none.

    GPUSCOPE_LANG=zh_CN gpuscope        # this run in Chinese, whatever the locale says
    LANG=zh_CN.UTF-8 gpuscope           # Chinese from the locale
    GPUSCOPE_LANG=en gpuscope           # English

The translations are Qt translation files: `resources/i18n/gpuscope_zh_CN.ts` is the source
(Qt Linguist XML), `gpuscope_zh_CN.qm` its compiled form, which is what ships and loads.
`tools/update_translations.py` extracts the strings (`self.tr(...)`, `translate(ctx, ...)`,
`QT_TRANSLATE_NOOP(ctx, ...)`) from `gpuscope/ui/**/*.py` (and the Qt-free modules it names)
and compiles the .qm.

The bundled font (`resources/fonts/`, a subset of Noto Sans CJK SC made by
`tools/subset_cjk_font.py`) is added to the application font's families after the UI font, so
that text in the UI font's script uses it, and only characters the UI font lacks (Chinese)
come from the CJK font. It is loaded in every language: a GPU or a folder can have a Chinese
name in an English UI too.

Text that comes from the Qt-free core (metric labels, probe titles, layer names) stays
English there; `core_text()` looks it up in the "core" context, where the strings the UI
shows are listed below with `QT_TRANSLATE_NOOP` so that the extraction finds them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QTranslator,
)
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from gpuscope.app.settings import ENGLISH as ENGLISH
from gpuscope.app.settings import LANGUAGE_AUTO as LANGUAGE_AUTO
from gpuscope.app.settings import LANGUAGE_CHOICES as LANGUAGE_CHOICES
from gpuscope.app.settings import LANGUAGES as LANGUAGES
from gpuscope.app.settings import SIMPLIFIED_CHINESE as SIMPLIFIED_CHINESE
from gpuscope.doctor.verdicts import FrameworkVerdict, VerdictReason

log = logging.getLogger(__name__)

LANGUAGE_ENV = "GPUSCOPE_LANG"

RESOURCE_PACKAGE = "gpuscope.resources"
TRANSLATION_RESOURCE = "i18n/gpuscope_{language}.qm"
FONT_RESOURCES: tuple[str, ...] = ("fonts/gpuscope-cjk-sc-regular.otf",
                                   "fonts/gpuscope-cjk-sc-bold.otf")
CORE_CONTEXT = "core"

# POSIX order of precedence for the language of messages (LANGUAGE is read after them, as
# GNU gettext does, unless the locale is C).
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
_C_LOCALES = frozenset({"c", "posix"})
# Chinese written in Traditional characters: not this translation.
_TRADITIONAL = frozenset({"tw", "hk", "mo", "hant"})


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
    """A string of the Qt-free core (a metric label, a probe title, a layer name) in the
    language installed, when the "core" context has it; unchanged otherwise."""
    return QCoreApplication.translate(CORE_CONTEXT, text) if text else text


# ----------------------------------------------------------------------------- choosing


def normalise_language(tag: str) -> str | None:
    """The supported language a locale name or language tag asks for: "zh_CN.UTF-8",
    "zh-Hans-CN", "zh_SG" and "zh" -> "zh_CN"; "en_US", "C" and "POSIX" -> "en"; None for
    any other language (Traditional Chinese included) or an empty tag."""
    name = tag.strip().split(".", 1)[0].split("@", 1)[0].replace("-", "_")
    if not name:
        return None
    if name.lower() in _C_LOCALES:
        return ENGLISH
    parts = [part.lower() for part in name.split("_")]
    language, rest = parts[0], parts[1:]
    if language == "en":
        return ENGLISH
    if language == "zh":
        return None if any(part in _TRADITIONAL for part in rest) else SIMPLIFIED_CHINESE
    return None


def choose_language(
    environ: Mapping[str, str] | None = None, setting: str | None = None,
    system_languages: Sequence[str] | None = None,
) -> str:
    """The language to show: $GPUSCOPE_LANG, else the setting (unless "auto"), else the
    locale's language of messages (LC_ALL, LC_MESSAGES, LANG, then the LANGUAGE list), else
    the system's UI languages (Windows and macOS set no locale variables), else English.
    A language gpuscope has no translation for gives English."""
    env = os.environ if environ is None else environ
    override = env.get(LANGUAGE_ENV, "").strip()
    if override:
        chosen = normalise_language(override)
        if chosen is not None:
            return chosen
        log.warning("%s=%r is not one of %s; using the locale", LANGUAGE_ENV, override,
                    ", ".join(LANGUAGES))
    if setting and setting != LANGUAGE_AUTO:
        chosen = normalise_language(setting)
        if chosen is not None:
            return chosen
        log.warning("language setting %r is not one of %s; using the locale", setting,
                    ", ".join(LANGUAGE_CHOICES))
    effective = next((env[name].strip() for name in _LOCALE_VARIABLES
                      if env.get(name, "").strip()), "")
    if effective:
        if effective.split(".", 1)[0].split("@", 1)[0].lower() in _C_LOCALES:
            return ENGLISH  # gettext ignores LANGUAGE under the C locale
        for entry in env.get("LANGUAGE", "").split(":"):
            chosen = normalise_language(entry)
            if chosen is not None:
                return chosen
        return normalise_language(effective) or ENGLISH
    languages = (system_languages if system_languages is not None
                 else QLocale.system().uiLanguages())
    for entry in languages:
        chosen = normalise_language(entry)
        if chosen is not None:
            return chosen
    return ENGLISH


# ----------------------------------------------------------------------------- installing


@dataclass
class _Installed:
    language: str = ENGLISH
    translators: list[QTranslator] = field(default_factory=list)
    # QTranslator.load(bytes) reads the data in place: keep it alive as long as it is used.
    data: list[bytes] = field(default_factory=list)
    font_families: tuple[str, ...] | None = None


_installed = _Installed()


def read_resource(name: str) -> bytes | None:
    """The bytes of a packaged resource (resources/NAME), or None with the reason logged."""
    try:
        return resources.files(RESOURCE_PACKAGE).joinpath(name).read_bytes()
    except (OSError, ModuleNotFoundError) as exc:
        log.warning("cannot read resource %s: %s", name, exc)
        return None


def translation_resource(language: str) -> str:
    return TRANSLATION_RESOURCE.format(language=language)


def installed_language() -> str:
    """The language `install_language` last installed ("en" before any)."""
    return _installed.language


def install_language(language: str) -> bool:
    """Make `language` the application's: remove the translators installed before, and for
    a language other than English install gpuscope's and Qt's own (the texts of standard
    dialogs and buttons). Needs a QCoreApplication; widgets built afterwards are in the new
    language. Whether gpuscope's translation loaded (True for English); a translation that
    cannot be loaded leaves the UI in English, with the reason logged."""
    app = QCoreApplication.instance()
    if app is None:
        log.warning("no application: the %s translation is not installed", language)
        return False
    for translator in _installed.translators:
        app.removeTranslator(translator)
        translator.deleteLater()
    _installed.translators.clear()
    _installed.data.clear()
    _installed.language = ENGLISH
    if language == ENGLISH:
        return True
    if language not in LANGUAGES:
        log.warning("no translation for %r: showing English", language)
        return False
    data = read_resource(translation_resource(language))
    translator = QTranslator(app)
    if data is None or not translator.load(data):
        log.warning("cannot load the %s translation: showing English", language)
        return False
    _installed.data.append(data)
    qt_translator = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_translator.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt_translator)
        _installed.translators.append(qt_translator)
    else:
        log.info("Qt has no qtbase_%s.qm in %s: standard dialogs stay in English", language,
                 qt_dir)
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
    # Layer names and fixed layer texts (gpuscope.doctor.layers)
    QT_TRANSLATE_NOOP("core", "Kernel driver (amdgpu)"),
    QT_TRANSLATE_NOOP("core", "Device nodes (/dev/kfd)"),
    QT_TRANSLATE_NOOP("core", "ROCm runtime (KFD/HSA)"),
    QT_TRANSLATE_NOOP("core", "Kernel driver (nvidia)"),
    QT_TRANSLATE_NOOP("core", "Driver library (NVML)"),
    QT_TRANSLATE_NOOP("core", "CUDA driver"),
    QT_TRANSLATE_NOOP("core", "Framework (PyTorch)"),
    QT_TRANSLATE_NOOP("core", "not checked"),
    QT_TRANSLATE_NOOP("core", "this user can open them"),
    QT_TRANSLATE_NOOP("core", "NVML answers"),
    QT_TRANSLATE_NOOP("core", "the Windows driver serves the GPU here"),
    QT_TRANSLATE_NOOP("core", "no /dev/kfd under WSL or Windows"),
    QT_TRANSLATE_NOOP("core", "not checked (no rocminfo or KFD evidence)"),
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
# The doctor's framework verdicts (`gpuscope.doctor.verdicts`) in the language installed: one
# translation for the Frameworks page and the Stack page, so that both say the same. The engine
# gives a reason code, its parameters and the English template; the templates are listed here
# for the extraction and looked up at run time under the "Verdict" context.

VERDICT_CONTEXT = "Verdict"
# Every template the engine uses (REASON_TEXTS, DEVICE_TEXTS, BELOW_TEXTS), marked for the
# extraction; a test checks that none is missing.
TEMPLATES: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("Verdict", "yes"),
    QT_TRANSLATE_NOOP("Verdict", "yes, but: {warning}"),
    QT_TRANSLATE_NOOP("Verdict", "yes as device {device}"),
    QT_TRANSLATE_NOOP("Verdict", "yes as device {device}, but: {warning}"),
    QT_TRANSLATE_NOOP("Verdict",
                      "it sees the GPU, not yet confirmed: the smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "it sees the GPU as device {device}, not yet confirmed: the "
                                 "smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "not known: the framework could not be inspected"),
    QT_TRANSLATE_NOOP("Verdict", "no: PyTorch is not installed in {python}"),
    QT_TRANSLATE_NOOP("Verdict",
                      "not checked: gpuscope checks AMD and NVIDIA GPUs, this is {vendor}"),
    QT_TRANSLATE_NOOP("Verdict", "no: a CPU-only build never uses a GPU"),
    QT_TRANSLATE_NOOP("Verdict", "no: a {build} build cannot use {vendor} GPUs"),
    QT_TRANSLATE_NOOP("Verdict", "not known: a {build} build"),
    QT_TRANSLATE_NOOP("Verdict", "no: the framework has no kernels for {target}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the smoke test {result}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the NVIDIA driver is too old for its CUDA {cuda}"),
    QT_TRANSLATE_NOOP("Verdict", "no: {reason}"),
    QT_TRANSLATE_NOOP("Verdict", "no: the build sees no GPU"),
    QT_TRANSLATE_NOOP("Verdict", "no: the build sees no GPU (a layer below it blocks it)"),
    QT_TRANSLATE_NOOP("Verdict", "not among the devices it lists (hidden by a "
                                 "*_VISIBLE_DEVICES variable?)"),
    QT_TRANSLATE_NOOP("Verdict", "not known: it did not say whether it sees a GPU"),
    QT_TRANSLATE_NOOP("Verdict",
                      "not known: it did not say whether it sees a GPU; the layers below it "
                      "work"),
)
# Parameters that are words of gpuscope's own (vendor and build names), not machine data.
_CORE_PARAMS = ("vendor", "build")


class _Defaulting(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def verdict_text(verdict: FrameworkVerdict) -> str:
    """The verdict's words ("yes as device 0", "no: the smoke test failed: ...") in the
    language installed."""
    params = {key: core_text(value) if key in _CORE_PARAMS else value
              for key, value in verdict.params.items()}
    return translate(VERDICT_CONTEXT, verdict.template).format_map(_Defaulting(params))


def verdict_row_text(verdict: FrameworkVerdict) -> str:
    """The Stack page's framework layer: the framework it judges, then the verdict's words
    (the same words as on the Frameworks page)."""
    words = verdict_text(verdict)
    if verdict.reason is VerdictReason.NOT_INSTALLED or verdict.framework.version is None:
        return words  # not installed, or known only from a pasted error
    ref = verdict.framework
    if ref.python:
        return translate("Verdict", "PyTorch {version} in {python}: {verdict}").format(
            version=ref.version or "?", python=ref.python, verdict=words)
    return translate("Verdict", "PyTorch {version}: {verdict}").format(
        version=ref.version or "?", verdict=words)
