"""The interpreters added in the window, as the command line reads them from the settings
file (no Qt), and as the window's settings model keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuscope.config import (
    CONFIG_DIR_ENV,
    MAX_ADDED_INTERPRETERS,
    added_interpreters,
    default_settings_path,
    interpreters_from_json,
)


def test_the_list_is_read_from_the_settings_file_in_the_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path))
    assert default_settings_path() == tmp_path / "settings.json"
    assert added_interpreters() == ()  # no file yet
    (tmp_path / "settings.json").write_text(json.dumps({
        "schema_version": 1, "theme": "dark",
        "interpreters": ["/opt/a/bin/python", " /opt/b/bin/python ", "/opt/a/bin/python"],
    }))
    assert added_interpreters() == ("/opt/a/bin/python", "/opt/b/bin/python")


@pytest.mark.parametrize("content", [
    b"{ not json", b"\xff\xfe", b"[1, 2]", b"[" * 100_000 + b"]" * 100_000,
    json.dumps({"interpreters": "/opt/a/bin/python"}).encode(),
    b"{}", b"",
])
def test_a_file_that_is_not_usable_gives_none_and_never_raises(
    tmp_path: Path, content: bytes,
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    assert added_interpreters(path) == ()


def test_a_folder_or_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    assert added_interpreters(tmp_path) == ()
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"interpreters": ["/opt/a/bin/python"], "pad": "x" * 2_000_000}))
    assert added_interpreters(big) == ()


def test_junk_entries_are_dropped_with_a_reason() -> None:
    found, problems = interpreters_from_json(
        ["/ok/bin/python", 3, "", None, "nul\x00byte", "x" * 5000])
    assert found == ("/ok/bin/python",)
    assert len(problems) == 5
    many, problems = interpreters_from_json([f"/env{n}/bin/python" for n in range(100)])
    assert len(many) == MAX_ADDED_INTERPRETERS and problems


def test_the_window_settings_keep_the_list(tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from gpuscope.app.settings import Settings, SettingsStore, settings_from_json

    store = SettingsStore(tmp_path / "settings.json")
    store.put(Settings().with_interpreter("/opt/a/bin/python")
              .with_interpreter("/opt/a/bin/python").with_interpreter("/opt/b/bin/python"))
    assert store.save()
    assert added_interpreters(tmp_path / "settings.json") == (
        "/opt/a/bin/python", "/opt/b/bin/python")
    assert SettingsStore(tmp_path / "settings.json").load().interpreters == (
        "/opt/a/bin/python", "/opt/b/bin/python")
    settings, problems = settings_from_json({"schema_version": 1, "interpreters": {"a": 1}})
    assert settings.interpreters == () and problems
