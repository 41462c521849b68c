from __future__ import annotations

import os
import sys
from pathlib import Path

# Qt must never look for a display in tests; set before any test imports PySide6.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TESTS_DIR = Path(__file__).resolve().parent

import pytest  # noqa: E402

# Shared assertion helpers get pytest's detailed assert messages too.
pytest.register_assert_rewrite("parser_properties")

# Test helper modules (fakes, slow probes) are imported by dotted name from here.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))


@pytest.fixture(autouse=True)
def _private_config_dir(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows made by tests keep their settings in a temporary folder, never in ~/.config."""
    monkeypatch.setenv("GPUSCOPE_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    # ... and read and keep benchmark runs in one too, never in ~/.local/share.
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path_factory.mktemp("data")))
