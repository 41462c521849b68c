"""Feed every parser random, truncated, shuffled and mixed-up inputs; count what escapes.

Inputs come from the real captured outputs in tests/fixtures (corpus and outputs): random
truncations, line shuffles, two files spliced together, lines with bytes flipped, and plain
random text. Each input goes through every parser's `sniff` and `parse`, the error scanner,
and `parse_any` (the dispatcher the importer uses).

Prints JSON: {"inputs": N, "parser_calls": M, "exceptions": 0, "seconds": ..., "first": [...]}.
Exit status 1 when anything escaped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def real_outputs() -> list[str]:
    texts = []
    for folder in (FIXTURES / "corpus", FIXTURES / "outputs"):
        for path in sorted(folder.rglob("*")):
            skipped = path.suffix in (".toml", ".md") or path.name == "expect.json"
            if path.is_file() and not skipped:
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def mutate(rng: random.Random, corpus: list[str]) -> str:
    base = rng.choice(corpus)
    lines = base.splitlines(keepends=True)
    kind = rng.randrange(6)
    if kind == 0:  # truncated at a random point
        return base[: rng.randrange(len(base) + 1)]
    if kind == 1:  # lines shuffled
        rng.shuffle(lines)
        return "".join(lines)
    if kind == 2:  # two outputs spliced
        other = rng.choice(corpus)
        return base[: rng.randrange(len(base) + 1)] + other[rng.randrange(len(other) + 1):]
    if kind == 3:  # characters flipped: digits, separators, units
        chars = list(base)
        for _ in range(rng.randrange(1, 40)):
            if chars:
                chars[rng.randrange(len(chars))] = rng.choice("0x9:|.-\t\n ()[]{}\"'#%GiB\x00é")
        return "".join(chars)
    if kind == 4:  # a random subset of lines, duplicated
        picked = [rng.choice(lines) for _ in range(rng.randrange(1, 60))] if lines else []
        return "".join(picked)
    alphabet = "abcdefgxyzGPU0123456789:.,-_|/\\ \t\n()[]{}<>=\"'"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(400)))


def run(count: int, seed: int) -> dict[str, object]:
    from gpuscope.parsers import PARSER_MODULES, parse_any
    from gpuscope.parsers.errors import parse_error_text, scan_signals

    modules = [importlib.import_module(f"gpuscope.parsers.{name}") for name in PARSER_MODULES]
    rng = random.Random(seed)
    corpus = real_outputs()
    failures: list[str] = []
    calls = 0
    started = time.perf_counter()
    for _ in range(count):
        text = mutate(rng, corpus)
        steps = [(f"{m.__name__}.sniff", m.sniff, (text,)) for m in modules]
        steps += [(f"{m.__name__}.parse", m.parse, (text, "fuzz.txt")) for m in modules]
        steps += [("errors.scan_signals", scan_signals, (text, "fuzz.txt")),
                  ("errors.parse_error_text", parse_error_text, (text, "fuzz.txt")),
                  ("parse_any", parse_any, (text, "fuzz.txt"))]
        for name, function, args in steps:
            calls += 1
            try:
                function(*args)
            except Exception:
                if len(failures) < 5:
                    trace = traceback.format_exc(limit=3)
                    failures.append(f"{name}: {trace}\ninput: {text[:300]!r}")
                else:
                    failures.append(name)
    return {
        "inputs": count,
        "seed": seed,
        "parser_calls": calls,
        "exceptions": len(failures),
        "seconds": round(time.perf_counter() - started, 2),
        "first": failures[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    result = run(args.count, args.seed)
    print(json.dumps(result, indent=1))
    sys.exit(1 if result["exceptions"] else 0)


if __name__ == "__main__":
    main()
