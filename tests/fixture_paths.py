"""Where the test fixtures live (imported by tests; `conftest` is ambiguous across folders)."""

from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent
FIXTURES_DIR = TESTS_DIR / "fixtures"
SNAPSHOTS_DIR = FIXTURES_DIR / "snapshots"
CORPUS_DIR = FIXTURES_DIR / "corpus"
