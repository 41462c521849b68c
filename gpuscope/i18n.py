"""The language of what gpuscope says: one gettext catalogue per language for every layer.

    GPUSCOPE_LANG=zh_CN gpuscope doctor      # this run in Chinese, whatever the locale says
    gpuscope --lang zh_CN doctor             # the same
    LANG=zh_CN.UTF-8 gpuscope doctor         # Chinese from the locale

The catalogue is `resources/i18n/<language>.po` (standard gettext, compiled by Babel into the
`.mo` that ships), made by `tools/update_translations.py`. The window reads the same catalogue
through a QTranslator (`gpuscope.ui.i18n`): a Qt context is the entry's `msgctxt`; texts of the
Qt-free core have no context.

The core writes its texts in English and marks them for the extraction, then the views show
them translated; `--json` keeps the English:

    title = message("{target} needs HSA_OVERRIDE_GFX_VERSION", target=gfx)  # a str, English
    localise(title)               # the same text in the language chosen, values unchanged
    LABEL = N_("Temperature (edge)")  # a constant: localise(LABEL) at the point of showing

Commands, ids, paths and versions are parameters of a message, never part of its template, so
they stay as they are in every language.
"""

from __future__ import annotations

import gettext as _gettext
import io
import logging
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)

ENGLISH = "en"
SIMPLIFIED_CHINESE = "zh_CN"
LANGUAGES: tuple[str, ...] = (ENGLISH, SIMPLIFIED_CHINESE)
LANGUAGE_ENV = "GPUSCOPE_LANG"

RESOURCE_PACKAGE = "gpuscope.resources"
CATALOGUE_RESOURCE = "i18n/{language}.mo"

# POSIX order of precedence for the language of messages (LANGUAGE is read after them, as
# GNU gettext does, unless the locale is C).
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
_C_LOCALES = frozenset({"c", "posix"})
# Chinese written in Traditional characters: not this translation.
_TRADITIONAL = frozenset({"tw", "hk", "mo", "hant"})


# ----------------------------------------------------------------------------- marking


class Message(str):
    """An English text that remembers its template and values, so that a view can show it in
    another language. It is a `str` (the English), so JSON, sorting and comparisons see the
    English; slicing or concatenating gives a plain str, which `localise` leaves as is."""

    template: str
    params: Mapping[str, object]

    def __new__(cls, template: str, params: Mapping[str, object]) -> Message:
        text = template.format_map(params) if params else template
        made = super().__new__(cls, text)
        made.template = template
        made.params = dict(params)
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Message, (self.template, dict(self.params)))


def message(template: str, /, **params: object) -> str:
    """`template` formatted with `params`, in English, able to be shown translated by
    `localise`. The extraction finds the template of every `message("literal", ...)` call."""
    return Message(template, params)


def N_(text: str) -> str:
    """`text`, unchanged: marks a constant for the extraction; show it with `localise`."""
    return text


def join(separator: str, parts: Sequence[str]) -> str:
    """`separator.join(parts)` that stays translatable part by part."""
    if not any(isinstance(part, Message) for part in parts):
        return separator.join(parts)
    names = [f"p{index}" for index in range(len(parts))]
    template = separator.replace("{", "{{").replace("}", "}}").join(
        "{" + name + "}" for name in names)
    joined = _Joined(template, dict(zip(names, parts, strict=True)))
    joined.separator = separator
    return joined


class _Joined(Message):
    """Parts joined by a separator: translated part by part, never looked up whole."""

    separator: str = " "

    def __reduce__(self) -> tuple[Any, ...]:
        return (join, (self.separator, list(self.params.values())))


# The separators of a join between texts (not between values) as Chinese writes them.
_WIDE_SEPARATORS = {"; ": "；", ", ": "，"}
# Chinese sentences follow each other without a space (after "。", "；", "）"...).
_WIDE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _join_localised(joined: _Joined) -> str:
    parts = [localise(part) if isinstance(part, Message) else str(part)
             for part in joined.params.values()]
    if joined.separator != " ":
        separator = joined.separator
        if _state.language == SIMPLIFIED_CHINESE:
            separator = _WIDE_SEPARATORS.get(separator, separator)
        return separator.join(parts)
    out = parts[0] if parts else ""
    for part in parts[1:]:
        wide = out and part and _WIDE.match(out[-1]) and _WIDE.match(part[0])
        out += ("" if wide else " ") + part
    return out


# A sentence ends at ".", "!" or "?" followed by a space and a capital letter or a bracket
# ("e.g. the" and "v1.2" do not end one).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[\"'])")


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph, as the extraction cuts the prose of the knowledge files
    (tools/update_translations.py uses this function)."""
    return [part.strip() for part in _SENTENCE_END.split(text.replace("\n", " "))
            if part.strip()]


def prose(text: str) -> str:
    """A paragraph of the knowledge files (a caveat, a note) able to be shown translated
    sentence by sentence: each sentence is a catalogue entry of its own."""
    parts = sentences(text)
    return join(" ", [Message(part, {}) for part in parts]) if parts else text


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
    system_languages: Sequence[str] = (),
) -> str:
    """The language to show: $GPUSCOPE_LANG, else `setting` (a --lang option or the window's
    setting, unless "auto"), else the locale's language of messages (LC_ALL, LC_MESSAGES,
    LANG, then the LANGUAGE list), else the system's UI languages (Windows and macOS set no
    locale variables), else English. A language without a translation gives English."""
    env = os.environ if environ is None else environ
    override = env.get(LANGUAGE_ENV, "").strip()
    if override:
        chosen = normalise_language(override)
        if chosen is not None:
            return chosen
        log.warning("%s=%r is not one of %s; using the locale", LANGUAGE_ENV, override,
                    ", ".join(LANGUAGES))
    if setting and setting != "auto":
        chosen = normalise_language(setting)
        if chosen is not None:
            return chosen
        log.warning("language %r is not one of %s; using the locale", setting,
                    ", ".join(LANGUAGES))
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
    for entry in system_languages:
        chosen = normalise_language(entry)
        if chosen is not None:
            return chosen
    return ENGLISH


# ----------------------------------------------------------------------------- the catalogue


class _State:
    language: str = ENGLISH
    catalogue: _gettext.NullTranslations = _gettext.NullTranslations()


_state = _State()


def catalogue_resource(language: str) -> str:
    return CATALOGUE_RESOURCE.format(language=language)


def load_catalogue(language: str) -> _gettext.GNUTranslations | None:
    """The compiled catalogue of `language`, or None with the reason logged."""
    try:
        data = resources.files(RESOURCE_PACKAGE).joinpath(
            catalogue_resource(language)).read_bytes()
        return _gettext.GNUTranslations(io.BytesIO(data))
    except (OSError, ModuleNotFoundError) as exc:
        log.warning("cannot read the %s translation: %s", language, exc)
    except Exception as exc:
        log.warning("cannot read the %s translation (damaged catalogue?): %s", language, exc)
    return None


# Catalogues loaded once per process: an English preview from a Chinese window switches back
# and forth, and each switch used to reread and reparse the .mo file.
_LOADED: dict[str, _gettext.GNUTranslations] = {}


def set_language(language: str) -> bool:
    """Make `language` the one every view shows. Whether its catalogue loaded (True for
    English); a catalogue that cannot be loaded leaves English, with the reason logged."""
    _state.language, _state.catalogue = ENGLISH, _gettext.NullTranslations()
    if language == ENGLISH:
        return True
    if language not in LANGUAGES:
        log.warning("no translation for %r: showing English", language)
        return False
    catalogue = _LOADED.get(language) or load_catalogue(language)
    if catalogue is None:
        return False
    _LOADED[language] = catalogue
    _state.language, _state.catalogue = language, catalogue
    return True


def current_language() -> str:
    return _state.language


@contextmanager
def language(chosen: str) -> Iterator[str]:
    """Show everything in `chosen` for the time of the block (a report written in English
    from a Chinese window), then the language before it again; gives the language in force
    (English when `chosen` has no catalogue). The window's Qt texts follow too: its
    QTranslator asks `pgettext`."""
    before = (_state.language, _state.catalogue)
    if chosen != before[0]:
        set_language(chosen)
    try:
        yield _state.language
    finally:
        _state.language, _state.catalogue = before


def pgettext(context: str | None, text: str) -> str | None:
    """The translation of `text` in `context` (None: the core's texts), or None when the
    catalogue has none."""
    if _state.language == ENGLISH or not text:
        return None
    catalogue = _state.catalogue
    translated = (catalogue.gettext(text) if context is None
                  else catalogue.pgettext(context, text))
    return translated if translated != text else None


def gettext(text: str) -> str:
    """A core text (marked with N_ or given to `message`) in the language chosen."""
    return pgettext(None, text) or text


class _KeepMissing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def localise(text: str) -> str:
    """`text` in the language chosen: a `message` has its template translated and its
    values put in, as they are (a value is localised only when it is a message itself); a
    plain text is looked up whole (the constants marked with N_); anything without a
    translation stays English."""
    if _state.language == ENGLISH or not text:
        return str(text)
    if isinstance(text, _Joined):
        return _join_localised(text)
    if isinstance(text, Message):
        template = pgettext(None, text.template) or text.template
        if template == text.template and not any(
                isinstance(value, Message) for value in text.params.values()):
            return str.__str__(text)
        values = {key: localise(value) if isinstance(value, Message) else value
                  for key, value in text.params.items()}
        try:
            return template.format_map(_KeepMissing(values))
        except (ValueError, IndexError, KeyError) as exc:  # a broken translation
            log.warning("translation of %r cannot be formatted: %s", text.template, exc)
            return str.__str__(text)
    return gettext(text)
