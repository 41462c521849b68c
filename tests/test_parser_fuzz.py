"""Mutated real captures never make a parser raise or reach its catch-all (a "parser error: ..."
problem), and never hang: a seeded slice of benchmarks/parser_fuzz.py, which also measures the
time per input (2 s at most up to the 10 MB paste limit; `python benchmarks/parser_fuzz.py`).

The guard here is generous on purpose (CI machines vary): it only turns a hang, the
catastrophic backtracking issue #10 found, into a failure instead of a stuck suite."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import parser_fuzz

from gpuscope.parsers import PARSER_MODULES, parse_any

GUARD_S = 20.0


@pytest.fixture(scope="module")
def pool() -> list[parser_fuzz.Capture]:
    return parser_fuzz.captures()


def _report(result: dict[str, object]) -> str:
    return "\n\n".join(str(f) for f in result["failures"])  # type: ignore[union-attr]


def test_every_format_has_real_captures(pool: list[parser_fuzz.Capture]) -> None:
    formats = {c.format for c in pool}
    for expected in ("rocminfo", "rocm-smi-text", "rocm-smi-json", "amd-smi-text",
                     "amd-smi-json", "clinfo", "nvidia-smi-table", "nvidia-smi-q",
                     "nvidia-smi-xml", "collect_env", "lspci", "kernel-log", "dpkg-list",
                     "host-info", "error-text"):
        assert expected in formats, expected
    assert len(pool) > 150


def test_mutated_captures_of_every_format() -> None:
    # Six mutants per format, each also through every parser directly.
    result = parser_fuzz.run(per_format=6, seed=7, large_every=0, huge=0, repeat_each=False,
                             limit_s=GUARD_S, hang_s=GUARD_S)
    assert result["inputs"] >= 100
    assert result["exceptions"] == 0, _report(result)
    assert result["unexpected_parser_errors"] == 0, _report(result)
    assert result["over_limit"] == 0, _report(result)


def test_large_mutated_pastes(pool: list[parser_fuzz.Capture]) -> None:
    # A handful of real captures grown to 1-3 MB, then mutated: the shapes that froze the
    # parsers (long runs of blanks, joined lines, repeated lines) at the sizes that made it
    # take minutes.
    rng = random.Random(11)
    for fmt in ("rocminfo", "rocm-smi-text", "amd-smi-text", "clinfo", "kernel-log"):
        same = [c for c in pool if c.format == fmt]
        text = parser_fuzz.grow(rng, same[0], same, pool, rng.randint(1_000_000, 3_000_000))
        for mutation in ("long_line", "join_lines", "byte_flips"):
            mutated = parser_fuzz.MUTATIONS[mutation](rng, text, pool)
            with parser_fuzz.guard(GUARD_S):
                parsed = parse_any(mutated, f"{fmt}.txt")
            assert not parser_fuzz.parser_errors(parsed.problems), (fmt, mutation,
                                                                     parsed.problems)


def test_pathological_lines_for_every_parser() -> None:
    # The inputs that were cubic or quadratic before issue #10: runs of blanks after a key or
    # a slot, digits before a unit, quotes and backslashes, blank lines by the thousand.
    import importlib

    lines = ("Name:" + "\t" * 5000 + "x", "GPU[0]\t\t: " + " " * 5000 + "x",
             "0000:01:00.0 VGA" + " " * 5000 + "\x00", "| " + "0" * 5000 + "W",
             '"' + '\\"' * 3000, "kfd kfd: " + " " * 5000 + "not supported in kfd x",
             "  Product Name" + " " * 5000 + "x", "1" * 5000 + " MiB /", "\n" * 50_000)
    modules = [importlib.import_module(f"gpuscope.parsers.{name}") for name in PARSER_MODULES]
    for line in lines:
        text = (line + "\n") * 20
        for module in modules:
            with parser_fuzz.guard(GUARD_S):
                module.sniff(text)
                parsed = module.parse(text, "x")
            assert not parser_fuzz.parser_errors(parsed.problems), (module.__name__, line[:20])
        with parser_fuzz.guard(GUARD_S):
            assert not parser_fuzz.parser_errors(parse_any(text, "x").problems)
