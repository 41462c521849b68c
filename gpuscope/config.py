"""Where gpuscope keeps its settings, without Qt: the folder, the file, and the one setting
the command line reads too, the Python interpreters the user added.

    ~/.config/gpuscope/settings.json        (Linux; platformdirs' user config dir elsewhere)
    $GPUSCOPE_CONFIG_DIR/settings.json      (when set: tests, portable installs)

The window's settings model (`gpuscope.app.settings`) reads and writes the whole file and
parses its `interpreters` with `interpreters_from_json` below; `gpuscope doctor`, `snapshot`
and `report` read only that list (`added_interpreters`), so that they inspect the
interpreters added in the window as well.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import platformdirs

log = logging.getLogger(__name__)

APP_DIR_NAME = "gpuscope"
CONFIG_DIR_ENV = "GPUSCOPE_CONFIG_DIR"
SETTINGS_FILE_NAME = "settings.json"
INTERPRETERS_KEY = "interpreters"
MAX_ADDED_INTERPRETERS = 32
MAX_PATH_CHARS = 4096
MAX_SETTINGS_BYTES = 1024 * 1024  # the file holds a few kilobytes; more is not ours


def default_config_dir() -> Path:
    """$GPUSCOPE_CONFIG_DIR when set, else platformdirs' user config dir for gpuscope."""
    override = os.environ.get(CONFIG_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path(APP_DIR_NAME, appauthor=False)


def default_settings_path() -> Path:
    return default_config_dir() / SETTINGS_FILE_NAME


def interpreters_from_json(value: object) -> tuple[tuple[str, ...], list[str]]:
    """The interpreters in a settings file's `interpreters` value (a list of paths), each
    once, and what was wrong with it. Never raises."""
    if value is None:
        return (), []
    if not isinstance(value, list):
        return (), [f"{INTERPRETERS_KEY} is not a list of paths; dropped"]
    problems: list[str] = []
    found: dict[str, None] = {}
    for item in value:
        if isinstance(item, str) and item.strip() and len(item) <= MAX_PATH_CHARS \
                and "\x00" not in item:
            found.setdefault(item.strip(), None)
        else:
            problems.append(f"{INTERPRETERS_KEY}: {str(item)[:60]!r} is not a path; dropped")
    if len(found) > MAX_ADDED_INTERPRETERS:
        problems.append(f"{INTERPRETERS_KEY}: more than {MAX_ADDED_INTERPRETERS}; the rest "
                        "dropped")
    return tuple(found)[:MAX_ADDED_INTERPRETERS], problems


def added_interpreters(path: Path | str | None = None) -> tuple[str, ...]:
    """The interpreters the user added in the window (the settings file at `path`, default
    `default_settings_path()`); () when there is no file or it cannot be read (logged).
    Never raises."""
    target = Path(path) if path is not None else default_settings_path()
    try:
        with open(target, "rb") as handle:
            raw = handle.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return ()
    except OSError as exc:
        log.warning("cannot read the settings file %s: %s", target, exc.strerror or exc)
        return ()
    if len(raw) > MAX_SETTINGS_BYTES:
        log.warning("the settings file %s is over %d bytes; not read", target,
                    MAX_SETTINGS_BYTES)
        return ()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        log.warning("the settings file %s is not JSON (%s)", target, type(exc).__name__)
        return ()
    if not isinstance(data, dict):
        return ()
    interpreters, problems = interpreters_from_json(data.get(INTERPRETERS_KEY))
    for problem in problems:
        log.warning("settings file %s: %s", target, problem)
    return interpreters
