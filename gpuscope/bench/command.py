"""`gpuscope bench`: run suites through the runner, show progress, print a table or JSON.

Exit status: 0 when every benchmark ran (unsupported ones count as run), 1 when the worker
crashed, aborted, hung, ran out of memory or a benchmark failed (with --json the document's
`error` names what happened), 2 for an unknown suite or device, 130 after Ctrl-C (the worker is
stopped first; what arrived is still printed).
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TextIO

from gpuscope.bench.catalog import UnknownSuiteError, resolve_suites
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    ResultStatus,
    primary_error,
    run_to_json,
)
from gpuscope.bench.runner import (
    BenchEvent,
    BenchmarkProgress,
    BenchRequest,
    BenchRunner,
    ErrorRaised,
    HelloReceived,
    ResultReceived,
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
_BAR_WIDTH = 24


def parse_device(text: str | None) -> str:
    """`--device`: None/auto, cpu, or a GPU index. Raises ValueError otherwise."""
    if text is None or text.strip().lower() in ("", "auto"):
        return "auto"
    value = text.strip().lower()
    if value == "cpu":
        return "cpu"
    if value.startswith("cuda:"):
        value = value[5:]
    if value.isdigit():
        return str(int(value))
    raise ValueError(f"--device takes a GPU index (0, 1, ...) or 'cpu', not {text!r}")


def format_value(value: float | None) -> str:
    if value is None:
        return "-"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _result_row(result: BenchmarkResult) -> list[str]:
    if result.status is ResultStatus.OK and result.spread is not None:
        spread = (f"{format_value(result.spread.min)}..{format_value(result.spread.max)}"
                  f" (n={result.spread.count})")
    else:
        spread = ""
    error = f"{result.relative_error:.1e}" if result.relative_error is not None else ""
    if result.bit_identical is False:
        error += " (not repeatable)"
    note = result.reason or ""
    return [result.id, result.status.value, format_value(result.value),
            result.unit if result.value is not None else "", spread, error,
            result.math_library or "", note]


def format_run_text(run: BenchRun) -> str:
    """The run as a readable table, with what ran where and every error."""
    lines: list[str] = []
    hello = run.hello
    if hello is not None:
        where = hello.device or "?"
        if hello.device_name:
            where += f" ({hello.device_name})"
        torch = (f"torch {hello.torch_version} ({hello.build or '?'} build"
                 + (f" {hello.build_version}" if hello.build_version else "") + ")"
                 if hello.torch_version else "no torch")
        lines.append(f"Benchmarks on {where} with {torch}, Python {hello.python_version or '?'} "
                     f"at {run.python}")
        if hello.device_note:
            lines.append(f"  {hello.device_note}")
    else:
        lines.append(f"Benchmarks with {run.python}")
    lines.append(f"  {len(run.results)} of {len(run.benchmarks)} benchmarks reported in "
                 f"{run.duration_s:.1f} s")
    if run.results:
        header = ["benchmark", "status", "value", "unit", "min..max (repeats)", "rel. error",
                  "library", "note"]
        rows = [header] + [_result_row(r) for r in run.results]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        lines.append("")
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            lines.append(("  ".join([*cells, row[-1]])).rstrip())
    if run.not_run:
        lines.append("")
        lines.append("Not run: " + ", ".join(run.not_run))
    if run.errors:
        lines.append("")
        lines.append("Errors:")
        for error in run.errors:
            lines.append(f"  {error.kind.value}: {error.message}")
    return "\n".join(lines) + "\n"


class ProgressBar:
    """One line on a terminal, redrawn in place."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def show(self, event: BenchEvent) -> None:
        if isinstance(event, BenchmarkProgress):
            filled = round(event.overall_fraction * _BAR_WIDTH)
            bar = "#" * filled + "." * (_BAR_WIDTH - filled)
            position = f"{event.index + 1}/{event.count}" if event.index >= 0 else ""
            text = (f"\r[{bar}] {event.overall_fraction * 100:3.0f}%  {position} "
                    f"{event.benchmark} {event.stage}")
            self._write(text.ljust(78)[:100])
        elif isinstance(event, ResultReceived):
            result = event.result
            value = (f"{format_value(result.value)} {result.unit}" if result.value is not None
                     else f"{result.status.value}: {result.reason or ''}")
            self._write("\r" + f"  {result.id}: {value}"[:100].ljust(78) + "\n")
        elif isinstance(event, ErrorRaised):
            self._write("\r" + f"  error ({event.error.kind.value}): {event.error.message}"
                        .ljust(78) + "\n")
        elif isinstance(event, HelloReceived):
            hello = event.hello
            self._write(f"worker: torch {hello.torch_version or '-'} on {hello.device or '?'}"
                        + (f" ({hello.device_name})" if hello.device_name else "") + "\n")

    def _write(self, text: str) -> None:
        self.shown = True
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 78 + "\r")
            self.stream.flush()


@contextlib.contextmanager
def _sigint_cancels(runner: BenchRunner, interrupted: list[bool]) -> Iterator[None]:
    """Ctrl-C cancels the run (the worker is stopped, what arrived is kept) instead of
    unwinding through it. Only the main thread can install signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        interrupted[0] = True
        runner.cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def bench_command(
    suites: Sequence[str] | None,
    *,
    device: str | None = None,
    python: str | None = None,
    as_json: bool = False,
    output: str | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """What `gpuscope bench` does; returns the exit status."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        benchmarks = resolve_suites(suites or ())
        device_request = parse_device(device)
    except (UnknownSuiteError, ValueError) as exc:
        err.write(f"gpuscope bench: {exc}\n")
        return EXIT_USAGE
    request = BenchRequest(benchmarks, python=python or sys.executable, device=device_request)
    runner = BenchRunner(request)
    bar = ProgressBar(err) if err.isatty() else None
    interrupted = [False]
    with _sigint_cancels(runner, interrupted):
        try:
            run = runner.run(bar.show if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
    document = run_to_json(run)
    if output:
        try:
            Path(output).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            err.write(f"gpuscope bench: cannot write {output}: {exc.strerror or exc}\n")
            return EXIT_FAILED
    if as_json:
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        out.write(format_run_text(run))
    if interrupted[0] or run.cancelled:
        return EXIT_INTERRUPTED
    if run.ok:
        return EXIT_OK
    error = primary_error(run)
    if not as_json and error is not None:
        err.write(f"gpuscope bench: {error.kind.value}: {error.message}\n")
    return EXIT_FAILED

