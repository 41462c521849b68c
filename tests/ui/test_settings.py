"""The settings file: round trip, defaults for what is missing or wrong, a corrupt file kept
aside, an unwritable place that never crashes, and where the file lives."""

from __future__ import annotations

import json
import logging
import math
import os
from pathlib import Path

import platformdirs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuscope.app.settings import (
    CONFIG_DIR_ENV,
    CORRUPT_SUFFIX,
    DEFAULT_TELEMETRY_HZ,
    DIR_IMPORT,
    DIR_RECORDING,
    SCHEMA_VERSION,
    Settings,
    SettingsStore,
    default_settings_path,
    settings_from_json,
    settings_to_json,
)
from gpuscope.ui.theme import ThemeChoice

GEOMETRY = bytes(range(256)) * 2  # every byte value: base64 must carry it unchanged


def full_settings() -> Settings:
    return Settings(
        theme=ThemeChoice.DARK, last_page="Stack", window_geometry=GEOMETRY,
        window_state=b"\x00\xffstate", telemetry_rate_hz=5.0,
    ).with_dialog_dir(DIR_IMPORT, "/home/ann/outputs").with_dialog_dir(
        DIR_RECORDING, "/home/ann/recordings")


def test_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config" / "settings.json"  # the folder does not exist yet
    store = SettingsStore(path)
    assert store.current == Settings()  # no file: the defaults, and no problem
    assert store.problems == ()
    store.put(full_settings())
    assert store.save()
    again = SettingsStore(path).load()
    assert again == full_settings()
    assert again.dialog_dir(DIR_IMPORT) == "/home/ann/outputs"
    assert again.dialog_dir("export") == ""
    # Plain, versioned JSON a person can read; no temporary file left beside it.
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["theme"] == "dark" and data["last_page"] == "Stack"
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]


def test_settings_are_immutable() -> None:
    settings = full_settings()
    with pytest.raises(AttributeError):
        settings.theme = ThemeChoice.LIGHT  # type: ignore[misc]
    with pytest.raises(TypeError):
        settings.dialog_dirs["x"] = "y"  # type: ignore[index]
    changed = settings.with_dialog_dir(DIR_IMPORT, "/elsewhere")
    assert settings.dialog_dir(DIR_IMPORT) == "/home/ann/outputs"
    assert changed.dialog_dir(DIR_IMPORT) == "/elsewhere"


def test_a_corrupt_file_gives_the_defaults_and_is_kept_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark", "last_page": ', encoding="utf-8")
    store = SettingsStore(path)
    with caplog.at_level(logging.WARNING, logger="gpuscope.app.settings"):
        settings = store.load()
    assert settings == Settings()
    assert len(store.problems) == 1
    assert "is not valid JSON" in store.problems[0] and "using the defaults" in store.problems[0]
    assert store.problems[0] in caplog.text
    # What the user had is kept, and the next save writes a good file.
    kept = path.with_name(path.name + CORRUPT_SUFFIX)
    assert kept.read_text(encoding="utf-8") == '{"theme": "dark", "last_page": '
    assert not path.exists()
    assert store.save()
    assert SettingsStore(path).load() == Settings()


def test_binary_garbage_gives_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    store = SettingsStore(path)
    assert store.load() == Settings()
    assert "not UTF-8" in store.problems[0]


def test_each_bad_field_keeps_its_own_default() -> None:
    settings, problems = settings_from_json({
        "schema_version": SCHEMA_VERSION,
        "theme": "purple",
        "last_page": 7,
        "window_geometry": "not base64 !!!",
        "window_state": "AAEC",
        "telemetry_rate_hz": 1e9,
        "dialog_dirs": {"import": "/data", "recording": 5},
    })
    assert settings.theme is ThemeChoice.SYSTEM
    assert settings.last_page is None
    assert settings.window_geometry is None
    assert settings.window_state == b"\x00\x01\x02"  # the good field next to bad ones
    assert settings.telemetry_rate_hz == DEFAULT_TELEMETRY_HZ
    assert dict(settings.dialog_dirs) == {"import": "/data"}
    joined = "\n".join(problems)
    for word in ("theme 'purple'", "last_page", "window_geometry", "telemetry_rate_hz",
                 "dialog_dirs['recording']"):
        assert word in joined
    assert len(problems) == 5


@pytest.mark.parametrize("rate", [True, "2", float("nan"), float("inf"), -1, 0, 0.2, 21])
def test_an_odd_rate_is_refused(rate: object) -> None:
    settings, problems = settings_from_json({"schema_version": 1, "telemetry_rate_hz": rate})
    assert settings.telemetry_rate_hz == DEFAULT_TELEMETRY_HZ
    assert len(problems) == 1


def test_not_an_object_and_a_newer_schema(tmp_path: Path) -> None:
    settings, problems = settings_from_json([1, 2])
    assert settings == Settings() and "expected a JSON object" in problems[0]
    newer, problems = settings_from_json({"schema_version": SCHEMA_VERSION + 1,
                                          "theme": "light", "something_new": {"a": 1}})
    assert newer.theme is ThemeChoice.LIGHT
    assert problems == [f"written by a newer gpuscope (schema {SCHEMA_VERSION + 1}, this one "
                        f"reads {SCHEMA_VERSION}); reading the fields this version knows"]


def test_an_unwritable_place_never_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    # A file where the config folder should be: fails for root too (unlike permissions).
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    store = SettingsStore(blocker / "settings.json")
    assert store.current == Settings()  # reading: the defaults, and the reason...
    assert "cannot read settings" in store.problems[0]
    store.put(full_settings())
    with caplog.at_level(logging.WARNING, logger="gpuscope.app.settings"):
        assert store.save() is False
    assert "cannot save settings to" in store.problems[-1]
    assert "cannot save settings to" in caplog.text
    assert store.current == full_settings()  # ...and the run goes on with what it has


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes through directory permissions")
def test_a_read_only_folder_never_raises(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        store = SettingsStore(folder / "settings.json")
        assert store.save() is False
        assert "cannot save settings" in store.problems[-1]
    finally:
        folder.chmod(0o700)


def test_a_folder_where_the_file_should_be(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()
    store = SettingsStore(path)
    assert store.load() == Settings()
    assert "cannot read settings" in store.problems[0]
    assert store.save() is False  # cannot replace a folder with a file: said, not raised


def test_the_file_lives_in_the_env_dir_or_the_user_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "cfg"))
    assert default_settings_path() == tmp_path / "cfg" / "settings.json"
    assert SettingsStore().path == tmp_path / "cfg" / "settings.json"
    monkeypatch.delenv(CONFIG_DIR_ENV)
    expected = platformdirs.user_config_path("gpuscope", appauthor=False) / "settings.json"
    assert default_settings_path() == expected  # only compared: never written here


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                 max_size=4),
    max_leaves=12,
)
known_keys = st.sampled_from(["schema_version", "theme", "last_page", "window_geometry",
                              "window_state", "telemetry_rate_hz", "dialog_dirs"])


@given(st.dictionaries(known_keys | st.text(max_size=8), json_values, max_size=8) | json_values)
def test_no_document_makes_reading_fail(data: object) -> None:
    settings, problems = settings_from_json(data)
    assert isinstance(settings, Settings)
    assert all(isinstance(problem, str) for problem in problems)
    assert math.isfinite(settings.telemetry_rate_hz)
    # Whatever was read can be written and read back the same.
    again, again_problems = settings_from_json(json.loads(json.dumps(settings_to_json(settings))))
    assert again == settings and again_problems == []
