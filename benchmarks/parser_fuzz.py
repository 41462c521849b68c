"""Mutate every real captured output and time `parse_any` on each mutant: the proof that any
paste, however malformed, parses in linear time, without an exception and without a parser
bug.

Inputs: every file under tests/fixtures/outputs/ and tests/fixtures/corpus/*/ (the real
captures), grouped by the format `parse_any` reads them as. For each format, `--per-format`
mutants of its files: byte flips, line deletions and duplications, truncations, splices with
other captures, shuffled lines, inserted long lines (runs of one character or of a piece of the
text itself: the food of regex backtracking), control characters, joined lines, CRLF, quoted or
indented pastes; some are real captures repeated up to a few MB, and a few up to the 10 MB
paste limit. Besides those, every capture repeated to the 10 MB paste limit, unmutated (a
long log says the same lines again and again: the most work per character).
Each mutant also goes through every parser's own `parse` (not only the one
`parse_any` picks) when it is small.

Prints one JSON object: per format the inputs, exceptions (anything escaping `parse_any` or a
parser), unexpected parser errors (a "parser error: ..." problem: a parser's catch-all caught a
bug), the worst `parse_any` time and the input that took it (written to `--save-worst DIR`),
and a verdict over all: "pass" when there is no exception, no unexpected parser error and no
input over `--limit-s` (2 s). Exit status 1 on "fail".

    python benchmarks/parser_fuzz.py                      # 2,000 mutants per format
    python benchmarks/parser_fuzz.py --per-format 200 --seed 7 --save-worst /tmp/worst
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import random
import signal
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpuscope.parsers import MAX_INPUT_CHARS, PARSER_MODULES, parse_any  # noqa: E402
from gpuscope.parsers.errors import parse_error_text  # noqa: E402

LIMIT_S = 2.0
PASTE_CHARS = 10_000_000  # the paste limit: the largest input the limit applies to
DIRECT_MAX_CHARS = 200_000  # mutants up to this size also go through every parser directly
_NOT_CAPTURES = {"SOURCES.md", "README.md", "case.toml", "expect.json", "diagnosis-schema.md"}

# Runs of these are what makes a backtracking regex go quadratic or worse.
_PATHOLOGICAL = (" ", "\t", ":", "0", "9.", "a", "a ", " :", ": ", "| ", "|", "-", "=", "*",
                 "[", "(", "\"", "\\", "\"\\", "\"a\": ", "{", "0x", "gfx", "GPU", "1,", ", ",
                 "/", "#", "% ", "W ", "MiB ", "x" * 7 + " ", "\u00e9", "\u2028", "\x00")
_CONTROL = ("\x00", "\r", "\x0b", "\x0c", "\x1b[2J", "\x1b]0;title\x07", "\x1c", "\x85",
            "\u2028", "\u2029", "\ufeff", "\x7f", "\ud800")


@dataclass(frozen=True)
class Capture:
    path: str  # relative to the repository
    text: str
    format: str


@dataclass
class Mutant:
    text: str
    base: str
    steps: list[str] = field(default_factory=list)


def captures() -> list[Capture]:
    """Every real capture in the fixtures, with the format `parse_any` reads it as."""
    found = []
    folders = [FIXTURES / "outputs", *sorted(p for p in (FIXTURES / "corpus").glob("*")
                                             if p.is_dir())]
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.name in _NOT_CAPTURES:
                continue
            text = path.read_bytes().decode("utf-8", errors="replace")
            found.append(Capture(str(path.relative_to(ROOT)), text,
                                 parse_any(text, path.name).format))
    return found


# ----------------------------------------------------------------------------- mutations


def _lines(text: str) -> list[str]:
    return text.split("\n")


def byte_flips(rng: random.Random, text: str, pool: list[Capture]) -> str:
    data = bytearray(text.encode("utf-8", errors="replace"))
    if not data:
        return text
    for _ in range(rng.randint(1, max(1, min(2000, len(data) // 200)))):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return data.decode("utf-8", errors="replace")


def delete_lines(rng: random.Random, text: str, pool: list[Capture]) -> str:
    lines = _lines(text)
    count = rng.randint(1, max(1, len(lines) // 5))
    gone = set(rng.sample(range(len(lines)), min(count, len(lines))))
    return "\n".join(line for i, line in enumerate(lines) if i not in gone)


def duplicate_lines(rng: random.Random, text: str, pool: list[Capture]) -> str:
    lines = _lines(text)
    budget = 2_000_000  # characters the copies may add
    for _ in range(rng.randint(1, 20)):
        i = rng.randrange(len(lines))
        copies = min(rng.choice((2, 3, 10, 200, 2000)), budget // (len(lines[i]) + 1))
        if copies < 2:
            break
        budget -= copies * (len(lines[i]) + 1)
        lines[i:i + 1] = [lines[i]] * copies
    return "\n".join(lines)


def truncate(rng: random.Random, text: str, pool: list[Capture]) -> str:
    if not text:
        return text
    start = rng.randrange(len(text)) if rng.random() < 0.3 else 0
    return text[start:rng.randint(start, len(text))]


def splice(rng: random.Random, text: str, pool: list[Capture]) -> str:
    other = rng.choice(pool).text
    cut, other_cut = rng.randint(0, len(text)), rng.randint(0, len(other))
    if rng.random() < 0.5:
        return text[:cut] + other[other_cut:]
    return text[:cut] + other[:other_cut] + text[cut:]


def shuffle_lines(rng: random.Random, text: str, pool: list[Capture]) -> str:
    lines = _lines(text)
    rng.shuffle(lines)
    return "\n".join(lines)


def long_line(rng: random.Random, text: str, pool: list[Capture]) -> str:
    """A line of 1 kB to 1 MB: a run of one pathological piece, or of a piece of a real line,
    after a real line's start (so that the line still looks like the format's)."""
    lines = _lines(text)
    source = rng.choice(lines) if lines else ""
    if rng.random() < 0.5 or len(source) < 2:
        piece = rng.choice(_PATHOLOGICAL)
    else:
        start = rng.randrange(len(source) - 1)
        piece = source[start:start + rng.randint(1, 24)]
    length = rng.choice((1_000, 5_000, 20_000, 100_000, 1_000_000))
    run = piece * max(1, length // max(1, len(piece)))
    head = source[:rng.randint(0, len(source))]
    tail = rng.choice(("", "x", ":", "\x00", source[-8:]))
    i = rng.randrange(len(lines) + 1)
    lines.insert(i, head + run + tail)
    return "\n".join(lines)


def join_lines(rng: random.Random, text: str, pool: list[Capture]) -> str:
    """Newlines lost (a paste through a form that joins lines): real long lines."""
    lines = _lines(text)
    if len(lines) < 2:
        return text
    start = rng.randrange(len(lines) - 1)
    end = rng.randint(start + 2, len(lines))
    joiner = rng.choice(("", " ", "\t", "\\n", "#012"))
    return "\n".join([*lines[:start], joiner.join(lines[start:end]), *lines[end:]])


def control_characters(rng: random.Random, text: str, pool: list[Capture]) -> str:
    cuts = sorted(rng.randint(0, len(text)) for _ in range(rng.randint(1, 50)))
    parts, start = [], 0
    for cut in cuts:
        parts += [text[start:cut], rng.choice(_CONTROL)]
        start = cut
    return "".join([*parts, text[start:]])


def line_endings(rng: random.Random, text: str, pool: list[Capture]) -> str:
    style = rng.randrange(4)
    if style == 0:
        return text.replace("\n", "\r\n")
    if style == 1:
        return text.replace("\n", "\r")
    if style == 2:
        return "\n".join("> " + line for line in _lines(text))  # quoted in markdown
    return "\n".join("    " + line for line in _lines(text))  # indented as a code block


MUTATIONS: dict[str, Callable[[random.Random, str, list[Capture]], str]] = {
    "byte_flips": byte_flips, "delete_lines": delete_lines,
    "duplicate_lines": duplicate_lines, "truncate": truncate, "splice": splice,
    "shuffle_lines": shuffle_lines, "long_line": long_line, "join_lines": join_lines,
    "control_characters": control_characters, "line_endings": line_endings,
}
_WEIGHTS = {"byte_flips": 4, "delete_lines": 3, "duplicate_lines": 2, "truncate": 2,
            "splice": 2, "shuffle_lines": 1, "long_line": 3, "join_lines": 2,
            "control_characters": 2, "line_endings": 1}


def grow(rng: random.Random, base: Capture, same_format: list[Capture],
         pool: list[Capture], chars: int) -> str:
    """Real captures, mostly of the base's format, concatenated up to `chars`."""
    parts, size = [base.text], len(base.text)
    while size < chars:
        part = rng.choice(same_format if rng.random() < 0.8 else pool).text or "\n"
        parts.append(part)
        size += len(part)
    return "\n".join(parts)[:chars]


def repeated(text: str, chars: int = PASTE_CHARS) -> str:
    """`text` over and over up to `chars`: a long log or a `--watch` paste says the same
    lines again and again, the most work per character for a parser."""
    return (text * (chars // max(len(text), 1) + 1))[:chars] if text else text


def mutants(rng: random.Random, fmt: str, pool: list[Capture], count: int,
            large_every: int, huge: int, repeat_each: bool = True) -> Iterator[Mutant]:
    """Each capture of `fmt` repeated to the paste limit (`repeat_each`), then `count`
    mutants of them; one in `large_every` grown to 0.5-4 MB first, and the last `huge` to
    about 10 MB."""
    same = [c for c in pool if c.format == fmt]
    if repeat_each:
        for base in same:
            if base.text:
                yield Mutant(repeated(base.text), base.path, ["repeated to the paste limit"])
    names = list(MUTATIONS)
    weights = [_WEIGHTS[name] for name in names]
    for number in range(count):
        base = rng.choice(same)
        mutant = Mutant(base.text, base.path)
        if number >= count - huge:
            mutant.text = grow(rng, base, same, pool, PASTE_CHARS - rng.randint(0, 100_000))
            mutant.steps.append(f"grown to {len(mutant.text):,} chars")
        elif large_every and rng.randrange(large_every) == 0:
            mutant.text = grow(rng, base, same, pool, rng.randint(500_000, 4_000_000))
            mutant.steps.append(f"grown to {len(mutant.text):,} chars")
        for name in rng.choices(names, weights, k=rng.randint(1, 4)):
            mutant.text = MUTATIONS[name](rng, mutant.text, pool)
            mutant.steps.append(name)
            if len(mutant.text) > PASTE_CHARS:
                mutant.text = mutant.text[:PASTE_CHARS]
                mutant.steps.append("cut to the paste limit")
        yield mutant


# ----------------------------------------------------------------------------- running


class Hang(BaseException):
    """A call still running at the guard's limit (not an `Exception`, so that the parsers'
    catch-alls do not turn it into a parser error)."""


@contextlib.contextmanager
def guard(seconds: float) -> Iterator[None]:
    """Turn a call running past `seconds` into `Hang` (SIGALRM; the regex engine checks for
    signals while it matches). Without SIGALRM (Windows, a thread) there is no guard."""
    usable = hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) in (
        signal.SIG_DFL, signal.SIG_IGN, None)

    def ring(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds:g} s")

    if not usable:
        yield
        return
    try:
        signal.signal(signal.SIGALRM, ring)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


@dataclass
class FormatStats:
    inputs: int = 0
    large_inputs: int = 0
    largest_chars: int = 0
    exceptions: int = 0
    unexpected_parser_errors: int = 0
    over_limit: int = 0
    seconds: list[float] = field(default_factory=list)
    worst: tuple[float, Mutant] | None = None
    direct_worst: tuple[float, str] = (0.0, "")
    direct_over_limit: int = 0

    def report(self, saved: str | None) -> dict[str, object]:
        worst_s, worst = self.worst if self.worst else (0.0, None)
        return {
            "inputs": self.inputs,
            "large_inputs": self.large_inputs,
            "largest_chars": self.largest_chars,
            "exceptions": self.exceptions,
            "unexpected_parser_errors": self.unexpected_parser_errors,
            "over_limit": self.over_limit,
            "median_s": round(statistics.median(self.seconds), 5) if self.seconds else None,
            "worst_s": round(worst_s, 4),
            "worst_input": None if worst is None else {
                "chars": len(worst.text), "base": worst.base, "mutations": worst.steps,
                "saved": saved},
            # every parser called on the small mutants, whichever parse_any would pick
            "direct_worst_s": round(self.direct_worst[0], 4),
            "direct_worst_parser": self.direct_worst[1] or None,
            "direct_over_limit": self.direct_over_limit,
        }


def parser_errors(problems: tuple[str, ...]) -> list[str]:
    return [p for p in problems if p.startswith("parser error")]


def expected_to_fail(mutant: Mutant) -> bool:
    """No mutant may make a parser fail: malformed input is read as far as it goes and the
    rest said in `problems`. (The hook stays for a mutation that should.)"""
    return False


def run(per_format: int, seed: int, *, formats: set[str] | None = None, large_every: int = 60,
        huge: int = 2, limit_s: float = LIMIT_S, hang_s: float = 120.0,
        save_worst: Path | None = None, direct: bool = True, repeat_each: bool = True,
        progress: Callable[[str], None] | None = None) -> dict[str, object]:
    """Fuzz every format; the JSON-ready result (see the module docstring)."""
    pool = captures()
    rng = random.Random(seed)
    modules: list[ModuleType] = [importlib.import_module(f"gpuscope.parsers.{name}")
                                 for name in PARSER_MODULES]
    direct_calls: list[tuple[str, Callable[[str, str], object]]] = [
        (f"{m.__name__.rsplit('.', 1)[1]}.parse", m.parse) for m in modules]
    direct_calls.append(("errors.parse_error_text", parse_error_text))
    wanted = sorted({c.format for c in pool} if formats is None else formats)
    stats: dict[str, FormatStats] = {}
    failures: list[str] = []
    started = time.perf_counter()

    def fail(message: str) -> None:
        if len(failures) < 20:
            failures.append(message)

    for fmt in wanted:
        if not any(c.format == fmt for c in pool):
            continue
        entry = stats.setdefault(fmt, FormatStats())
        for mutant in mutants(rng, fmt, pool, per_format, large_every, huge, repeat_each):
            entry.inputs += 1
            entry.large_inputs += len(mutant.text) >= 500_000
            entry.largest_chars = max(entry.largest_chars, len(mutant.text))
            begun = time.perf_counter()
            try:
                with guard(hang_s):
                    parsed = parse_any(mutant.text, "fuzz.txt")
            except Hang:
                parsed = None
            except Exception as exc:
                elapsed = time.perf_counter() - begun
                entry.exceptions += 1
                fail(f"{fmt}: parse_any raised {type(exc).__name__}: {exc} "
                     f"({mutant.base}, {mutant.steps}): {traceback.format_exc(limit=-3)}")
                parsed = None
            else:
                elapsed = time.perf_counter() - begun
            entry.seconds.append(elapsed)
            if elapsed > limit_s and len(mutant.text) <= PASTE_CHARS:
                entry.over_limit += 1
                fail(f"{fmt}: {elapsed:.2f} s on {len(mutant.text):,} chars "
                     f"({mutant.base}, {mutant.steps})")
            if entry.worst is None or elapsed > entry.worst[0]:
                entry.worst = (elapsed, mutant)
            if parsed is not None and not expected_to_fail(mutant):
                for problem in parser_errors(parsed.problems):
                    entry.unexpected_parser_errors += 1
                    fail(f"{fmt}: parse_any: {problem} ({mutant.base}, {mutant.steps})")
            if direct and len(mutant.text) <= DIRECT_MAX_CHARS:
                for name, call in direct_calls:
                    begun = time.perf_counter()
                    try:
                        with guard(hang_s):
                            result = call(mutant.text, "fuzz.txt")
                    except Hang:
                        entry.over_limit += 1
                        fail(f"{fmt}: {name} still running after {hang_s:g} s "
                             f"({mutant.base}, {mutant.steps})")
                        continue
                    except Exception as exc:
                        entry.exceptions += 1
                        fail(f"{fmt}: {name} raised {type(exc).__name__}: {exc} "
                             f"({mutant.base}, {mutant.steps})")
                        continue
                    spent = time.perf_counter() - begun
                    if spent > entry.direct_worst[0]:
                        entry.direct_worst = (spent, name)
                    if spent > limit_s:
                        entry.direct_over_limit += 1
                        fail(f"{fmt}: {name} took {spent:.2f} s on {len(mutant.text):,} chars "
                             f"({mutant.base}, {mutant.steps})")
                    problems = getattr(result, "problems", ())
                    if not expected_to_fail(mutant):
                        for problem in parser_errors(problems):
                            entry.unexpected_parser_errors += 1
                            fail(f"{fmt}: {name}: {problem} ({mutant.base}, {mutant.steps})")
        if progress is not None:
            worst_s = entry.worst[0] if entry.worst else 0.0
            progress(f"{fmt}: {entry.inputs} inputs, worst {worst_s:.3f} s")

    saved: dict[str, str] = {}
    if save_worst is not None:
        save_worst.mkdir(parents=True, exist_ok=True)
        for fmt, entry in stats.items():
            if entry.worst is not None:
                path = save_worst / f"{fmt}.txt"
                path.write_text(entry.worst[1].text, encoding="utf-8", errors="surrogatepass")
                saved[fmt] = str(path)
    exceptions = sum(e.exceptions for e in stats.values())
    unexpected = sum(e.unexpected_parser_errors for e in stats.values())
    over = sum(e.over_limit for e in stats.values())
    direct_over = sum(e.direct_over_limit for e in stats.values())
    worst_s = max((e.worst[0] for e in stats.values() if e.worst), default=0.0)
    return {
        "seed": seed,
        "per_format": per_format,
        "captures": len(pool),
        "limit_s": limit_s,
        "max_input_chars": MAX_INPUT_CHARS,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform()},
        "formats": {fmt: entry.report(saved.get(fmt)) for fmt, entry in stats.items()},
        "inputs": sum(e.inputs for e in stats.values()),
        "exceptions": exceptions,
        "unexpected_parser_errors": unexpected,
        "over_limit": over,
        "direct_over_limit": direct_over,
        "worst_s": round(worst_s, 4),
        "seconds": round(time.perf_counter() - started, 1),
        "verdict": "pass" if not (exceptions or unexpected or over or direct_over) else "fail",
        "failures": failures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-format", type=int, default=2000, help="mutants per format")
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--save-worst", type=Path, help="write each format's slowest input here")
    parser.add_argument("--format", action="append", dest="formats",
                        help="only this format (repeatable)")
    parser.add_argument("--large-every", type=int, default=60,
                        help="one mutant in N is grown to 0.5-4 MB first (0: none)")
    parser.add_argument("--huge", type=int, default=2,
                        help="mutants per format grown to the 10 MB paste limit")
    parser.add_argument("--no-repeat-each", action="store_true",
                        help="skip each capture repeated to the paste limit (one input per "
                             "capture, on top of --per-format)")
    parser.add_argument("--limit-s", type=float, default=LIMIT_S)
    parser.add_argument("--hang-s", type=float, default=120.0,
                        help="give up on one call after this long (counted over the limit)")
    parser.add_argument("--no-direct", action="store_true",
                        help="only parse_any, not every parser on every small mutant")
    parser.add_argument("--progress", action="store_true", help="a line per format on stderr")
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    args = parser.parse_args()
    result = run(args.per_format, args.seed,
                 formats=set(args.formats) if args.formats else None,
                 large_every=args.large_every, huge=args.huge, limit_s=args.limit_s,
                 hang_s=args.hang_s,
                 save_worst=args.save_worst, direct=not args.no_direct,
                 repeat_each=not args.no_repeat_each,
                 progress=(lambda line: print(line, file=sys.stderr, flush=True))
                 if args.progress else None)
    print(json.dumps(result, indent=1))
    sys.exit(0 if result["verdict"] == "pass" else 1)


if __name__ == "__main__":
    main()
