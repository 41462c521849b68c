"""gpuscope's settings between runs: one small JSON file in the user's config directory.

    ~/.config/gpuscope/settings.json        (Linux; platformdirs' user config dir elsewhere)
    $GPUSCOPE_CONFIG_DIR/settings.json      (when set: tests, portable installs)

Reading never fails: a missing file gives the defaults, a corrupt one the defaults (the file is
kept beside as settings.json.corrupt so nothing the user wrote is lost), a bad value the
default of that one field; each reason goes to the log and to `SettingsStore.problems`.
Writing never raises either: it goes through a temporary file and a rename, so a crash leaves
the old file or the new one, never half of one.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import enum
import json
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gpuscope.app.prices import PriceBook, price_book_from_json, price_book_to_json

# The file's place is shared with the command line, which reads the added interpreters.
from gpuscope.config import APP_DIR_NAME as APP_DIR_NAME
from gpuscope.config import CONFIG_DIR_ENV as CONFIG_DIR_ENV
from gpuscope.config import INTERPRETERS_KEY, default_settings_path, interpreters_from_json
from gpuscope.config import SETTINGS_FILE_NAME as SETTINGS_FILE_NAME
from gpuscope.config import default_config_dir as default_config_dir
from gpuscope.safe_write import write_text
from gpuscope.telemetry.sampler import MAX_RATE_HZ, MIN_RATE_HZ

log = logging.getLogger(__name__)

# The languages of the window (resources/i18n holds one translation per language but English).
ENGLISH = "en"
SIMPLIFIED_CHINESE = "zh_CN"
LANGUAGES: tuple[str, ...] = (ENGLISH, SIMPLIFIED_CHINESE)
# The setting's value for "what the locale says".
LANGUAGE_AUTO = "auto"
LANGUAGE_CHOICES: tuple[str, ...] = (LANGUAGE_AUTO, *LANGUAGES)


class ThemeChoice(enum.Enum):
    """What the user picked in View > Theme; SYSTEM follows the desktop's light/dark setting."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


SCHEMA_VERSION = 1
CORRUPT_SUFFIX = ".corrupt"

DEFAULT_TELEMETRY_HZ = 2.0
MIN_TELEMETRY_HZ = MIN_RATE_HZ  # what the sampler accepts
MAX_TELEMETRY_HZ = MAX_RATE_HZ

# Keys of `Settings.dialog_dirs`: the last folder of each file dialog.
DIR_IMPORT = "import"
DIR_RECORDING = "recording"
DIR_EXPORT = "export"
COMPARE_PRICES_KEY = "compare_prices"
REMOTE_MACHINES_KEY = "remote_machines"
MAX_REMOTE_MACHINES = 32


@dataclass(frozen=True, slots=True)
class RemoteMachineSetting:
    """A machine added by the address of its `gpuscope serve` ("http://host:9840"), with the
    bearer token it wants and the CA file that signed its TLS certificate, when it does."""

    url: str
    token: str | None = None
    ca_file: str | None = None


def _empty_dirs() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything gpuscope keeps between runs. `window_geometry` and `window_state` are
    Qt's own opaque blobs (QWidget.saveGeometry, QMainWindow.saveState). `language` is
    "auto" (from the locale), "en" or "zh_CN"; $GPUSCOPE_LANG overrides it, and a change
    shows from the next start. `interpreters` are the Python interpreters the user added
    on the Frameworks page; the window and `gpuscope doctor` inspect them by default.
    `compare_prices` are the prices typed on the Compare page and the currency chosen there."""

    theme: ThemeChoice = ThemeChoice.SYSTEM
    last_page: str | None = None
    window_geometry: bytes | None = None
    window_state: bytes | None = None
    telemetry_rate_hz: float = DEFAULT_TELEMETRY_HZ
    dialog_dirs: Mapping[str, str] = field(default_factory=_empty_dirs)
    language: str = LANGUAGE_AUTO
    interpreters: tuple[str, ...] = ()
    compare_prices: PriceBook = field(default_factory=PriceBook)
    remote_machines: tuple[RemoteMachineSetting, ...] = ()

    def dialog_dir(self, key: str) -> str:
        """The last folder of the file dialog `key` ("" when there is none yet)."""
        return self.dialog_dirs.get(key, "")

    def with_dialog_dir(self, key: str, directory: str) -> Settings:
        dirs = dict(self.dialog_dirs)
        dirs[key] = directory
        return dataclasses.replace(self, dialog_dirs=MappingProxyType(dirs))

    def with_interpreter(self, python: str) -> Settings:
        """These settings with `python` among the interpreters the user added."""
        if not python or python in self.interpreters:
            return self
        return dataclasses.replace(self, interpreters=(*self.interpreters, python))


# ----------------------------------------------------------------------------- JSON


def settings_to_json(settings: Settings) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "theme": settings.theme.value,
        "last_page": settings.last_page,
        "window_geometry": _encode(settings.window_geometry),
        "window_state": _encode(settings.window_state),
        "telemetry_rate_hz": settings.telemetry_rate_hz,
        "dialog_dirs": dict(sorted(settings.dialog_dirs.items())),
        "language": settings.language,
        INTERPRETERS_KEY: list(settings.interpreters),
        COMPARE_PRICES_KEY: price_book_to_json(settings.compare_prices),
        REMOTE_MACHINES_KEY: [
            {key: value for key, value in (("url", m.url), ("token", m.token),
                                           ("ca_file", m.ca_file)) if value is not None}
            for m in settings.remote_machines],
    }


def settings_from_json(data: object) -> tuple[Settings, list[str]]:
    """The settings in a parsed JSON document, and what was wrong with it (each field that
    is missing or wrong keeps its default). Never raises."""
    defaults = Settings()
    if not isinstance(data, dict):
        return defaults, [f"expected a JSON object, found {type(data).__name__}; "
                          "using the defaults"]
    problems: list[str] = []
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        problems.append("no schema_version; reading the fields this version knows")
    elif version > SCHEMA_VERSION:
        problems.append(f"written by a newer gpuscope (schema {version}, this one reads "
                        f"{SCHEMA_VERSION}); reading the fields this version knows")

    theme = defaults.theme
    raw_theme = data.get("theme")
    if raw_theme is not None:
        try:
            theme = ThemeChoice(raw_theme)
        except ValueError:
            choices = ", ".join(choice.value for choice in ThemeChoice)
            problems.append(f"theme {raw_theme!r} is not one of {choices}; using "
                            f"{theme.value}")

    last_page = _optional_str(data, "last_page", problems)
    geometry = _optional_blob(data, "window_geometry", problems)
    state = _optional_blob(data, "window_state", problems)

    rate_hz = defaults.telemetry_rate_hz
    raw_rate = data.get("telemetry_rate_hz")
    if raw_rate is not None:
        if (isinstance(raw_rate, (int, float)) and not isinstance(raw_rate, bool)
                and math.isfinite(raw_rate)
                and MIN_TELEMETRY_HZ <= raw_rate <= MAX_TELEMETRY_HZ):
            rate_hz = float(raw_rate)
        else:
            problems.append(f"telemetry_rate_hz {raw_rate!r} is not a number from "
                            f"{MIN_TELEMETRY_HZ:g} to {MAX_TELEMETRY_HZ:g}; using {rate_hz:g}")

    dirs: dict[str, str] = {}
    raw_dirs = data.get("dialog_dirs")
    if isinstance(raw_dirs, dict):
        for key, value in raw_dirs.items():
            if isinstance(value, str) and value:
                dirs[str(key)] = value
            else:
                problems.append(f"dialog_dirs[{key!r}] is not a folder name; dropped")
    elif raw_dirs is not None:
        problems.append("dialog_dirs is not an object; dropped")

    language = defaults.language
    raw_language = data.get("language")
    if raw_language is not None:
        if raw_language in LANGUAGE_CHOICES:
            language = str(raw_language)
        else:
            problems.append(f"language {raw_language!r} is not one of "
                            f"{', '.join(LANGUAGE_CHOICES)}; using {language}")

    interpreters, interpreter_problems = interpreters_from_json(data.get(INTERPRETERS_KEY))
    problems.extend(interpreter_problems)
    prices, price_problems = price_book_from_json(data.get(COMPARE_PRICES_KEY),
                                                  COMPARE_PRICES_KEY)
    problems.extend(price_problems)
    remote_machines = _remote_machines(data.get(REMOTE_MACHINES_KEY), problems)

    return Settings(theme=theme, last_page=last_page, window_geometry=geometry,
                    window_state=state, telemetry_rate_hz=rate_hz,
                    dialog_dirs=MappingProxyType(dirs), language=language,
                    interpreters=interpreters, compare_prices=prices,
                    remote_machines=remote_machines), problems


def _remote_machines(raw: object, problems: list[str]) -> tuple[RemoteMachineSetting, ...]:
    """The `remote_machines` list: objects with a "url" and an optional "token" and
    "ca_file"; an entry without a usable url is dropped, with the reason."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(f"{REMOTE_MACHINES_KEY} is not a list; dropped")
        return ()
    found: list[RemoteMachineSetting] = []
    for position, entry in enumerate(raw):
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not url.strip():
            problems.append(f"{REMOTE_MACHINES_KEY}[{position}] has no url; dropped")
            continue
        extras = {key: entry.get(key) for key in ("token", "ca_file")}
        for key, value in extras.items():
            if value is not None and not isinstance(value, str):
                problems.append(f"{REMOTE_MACHINES_KEY}[{position}].{key} is not a string; "
                                "ignored")
        token, ca_file = (value if isinstance(value, str) and value else None
                          for value in extras.values())
        if any(machine.url == url.strip() for machine in found):
            continue
        found.append(RemoteMachineSetting(url.strip(), token, ca_file))
    if len(found) > MAX_REMOTE_MACHINES:
        problems.append(f"{REMOTE_MACHINES_KEY}: more than {MAX_REMOTE_MACHINES}; the rest "
                        "dropped")
    return tuple(found[:MAX_REMOTE_MACHINES])


def _optional_str(data: dict[str, Any], key: str, problems: list[str]) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"{key} is not a string; ignored")
    return None


def _optional_blob(data: dict[str, Any], key: str, problems: list[str]) -> bytes | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return base64.b64decode(value.encode("ascii"), validate=True)
        except (ValueError, binascii.Error):
            pass
    problems.append(f"{key} is not base64 text; ignored")
    return None


def _encode(blob: bytes | None) -> str | None:
    return base64.b64encode(blob).decode("ascii") if blob is not None else None


# ----------------------------------------------------------------------------- the file


class SettingsStore:
    """The settings file at `path` (default: `default_settings_path()`), and the settings
    of this run. `current` is read from the file on first use; `put()` changes it in
    memory, `save()` writes it."""

    def __init__(self, path: Path | str | None = None) -> None:
        self._path = Path(path) if path is not None else default_settings_path()
        self._current: Settings | None = None
        self._problems: list[str] = []

    @property
    def path(self) -> Path:
        return self._path

    @property
    def problems(self) -> tuple[str, ...]:
        """What went wrong reading or writing the file, in this run; empty when nothing."""
        return tuple(self._problems)

    @property
    def current(self) -> Settings:
        if self._current is None:
            self._current = self.load()
        return self._current

    def put(self, settings: Settings) -> None:
        self._current = settings

    def load(self) -> Settings:
        """Read the file; the defaults, with the reason logged, when it cannot be read."""
        self._current = self._read()
        return self._current

    def save(self) -> bool:
        """Write `current` to the file; False, with the reason logged, when it cannot."""
        text = json.dumps(settings_to_json(self.current), indent=2, ensure_ascii=False) + "\n"
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            write_text(self._path, text, mode=0o600)  # a temporary renamed into place
        except OSError as exc:
            self._problem(f"cannot save settings to {self._path}: {_os_reason(exc)}")
            return False
        return True

    def _read(self) -> Settings:
        try:
            text = self._path.read_text(encoding="utf-8")
        except FileNotFoundError:
            log.info("no settings file at %s yet: using the defaults", self._path)
            return Settings()
        except (OSError, UnicodeDecodeError) as exc:
            reason = _os_reason(exc) if isinstance(exc, OSError) else "not UTF-8 text"
            self._problem(f"cannot read settings from {self._path}: {reason}; using the "
                          "defaults")
            return Settings()
        try:
            data = json.loads(text)
        except ValueError as exc:
            kept = self._keep_corrupt()
            self._problem(f"settings file {self._path} is not valid JSON ({exc}); using the "
                          f"defaults{kept}")
            return Settings()
        settings, problems = settings_from_json(data)
        for problem in problems:
            self._problem(f"settings file {self._path}: {problem}")
        return settings

    def _keep_corrupt(self) -> str:
        backup = self._path.with_name(self._path.name + CORRUPT_SUFFIX)
        try:
            os.replace(self._path, backup)
        except OSError as exc:
            return f" (could not keep a copy as {backup.name}: {_os_reason(exc)})"
        return f"; the file is kept as {backup}"

    def _problem(self, message: str) -> None:
        log.warning("%s", message)
        self._problems.append(message)


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
