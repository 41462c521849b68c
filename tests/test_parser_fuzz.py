"""No parser raises on random, truncated, shuffled or spliced inputs (the full 10,000-input
run is `python benchmarks/parser_fuzz.py`; the suite runs a seeded slice of it)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import parser_fuzz


def test_no_parser_raises_on_mangled_real_outputs() -> None:
    result = parser_fuzz.run(count=600, seed=7)
    assert result["exceptions"] == 0, "\n\n".join(map(str, result["first"]))
    assert result["parser_calls"] == 600 * (2 * 9 + 3)
