"""`gpuscope bench`: run suites through a `BenchSession` (the worker, telemetry during the run,
the machine's GPU), show progress, print a table or JSON with each result against the card's
datasheet, and keep the run in the history of past runs (unless --no-save).

    gpuscope bench [--suite NAME ...] [--device N] [--python PATH] [--json] [-o FILE] [--no-save]
    gpuscope bench --history | --show ID | --compare A B | --delete ID ...   [--json]

Exit status: 0 when every benchmark ran (unsupported ones count as run), 1 when the worker
crashed, aborted, hung, ran out of memory or a benchmark failed (with --json the document's
`error` names what happened), 2 for an unknown suite or device, 130 after Ctrl-C (the worker is
stopped first; what arrived is still printed). The history commands exit 1 when the history
cannot be read or a run id is unknown.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TextIO

from gpuscope.bench.assess import ResultAssessment, RunAssessment, assess_run
from gpuscope.bench.catalog import UnknownSuiteError, resolve_suites
from gpuscope.bench.history import (
    HistoryError,
    RunComparison,
    RunHistory,
    StoredRun,
    compare_runs,
)
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    ResultStatus,
    primary_error,
    run_to_json,
)
from gpuscope.bench.results import format_bench_value as format_value
from gpuscope.bench.run_telemetry import telemetry_words
from gpuscope.bench.runner import (
    BenchmarkProgress,
    BenchRequest,
    ErrorRaised,
    HelloReceived,
    ResultReceived,
)
from gpuscope.bench.session import (
    BenchSession,
    MachineProvider,
    SessionEvent,
    live_machine,
)
from gpuscope.metrics import shown_unit
from gpuscope.model import JsonValue, to_jsonable

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


def format_percent(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"


def _result_row(result: BenchmarkResult, assessment: ResultAssessment | None) -> list[str]:
    if result.status is ResultStatus.OK and result.spread is not None:
        spread = (f"{format_value(result.spread.min)}..{format_value(result.spread.max)}"
                  f" (n={result.spread.count})")
    else:
        spread = ""
    error = f"{result.relative_error:.1e}" if result.relative_error is not None else ""
    if result.bit_identical is False:
        error += " (not repeatable)"
    note = result.reason or ""
    percent = verdict = ""
    if assessment is not None and result.status is ResultStatus.OK:
        percent = format_percent(assessment.percent_of_peak)
        if assessment.peak is not None:
            percent += f" of {format_value(assessment.peak.value)}"
        verdict = assessment.level_word
    return [result.id, result.status.value, format_value(result.value),
            shown_unit(result.unit) if result.value is not None else "", spread, error, percent,
            verdict, result.math_library or "", note]


def format_run_text(run: BenchRun, assessment: RunAssessment | None = None) -> str:
    """The run as a readable table: what ran where, each result against the datasheet, the
    telemetry during each benchmark, and every error."""
    if assessment is None:
        assessment = assess_run(run)
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
        lines.append(f"  compared with: {assessment.compared_with}")
    else:
        lines.append(f"Benchmarks with {run.python}")
    lines.append(f"  {len(run.results)} of {len(run.benchmarks)} benchmarks reported in "
                 f"{run.duration_s:.1f} s")
    if run.results:
        header = ["benchmark", "status", "value", "unit", "min..max (repeats)", "rel. error",
                  "% of peak", "verdict", "library", "note"]
        rows = [header] + [_result_row(r, assessment.result(r.id)) for r in run.results]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        lines.append("")
        for row in rows:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            lines.append(("  ".join([*cells, row[-1]])).rstrip())
        judged = [a for a in assessment.results if a.status == ResultStatus.OK.value
                  and not a.text.startswith(assessment.compared_with)]
        if judged:
            lines.append("")
            lines.append("Against the datasheet:")
            lines.extend(f"  {a.id}: {a.text}" for a in judged)
        with_telemetry = [r for r in run.results
                          if r.telemetry is not None and r.status is ResultStatus.OK]
        first = with_telemetry[0].telemetry if with_telemetry else None
        if first is not None:
            rate = f", sampled at {first.rate_hz:g} Hz" if first.rate_hz else ""
            what = f"host {first.label}" if first.device == "host" else first.label
            lines.append("")
            lines.append(f"Telemetry during each benchmark ({what}{rate}):")
            lines.extend(f"  {r.id}: {telemetry_words(r.telemetry)}" for r in with_telemetry)
        elif run.telemetry_note:
            lines.append("")
            lines.append(f"Telemetry: none ({run.telemetry_note})")
    if run.not_run:
        lines.append("")
        lines.append("Not run: " + ", ".join(run.not_run))
    if run.errors:
        lines.append("")
        lines.append("Errors:")
        for error in run.errors:
            lines.append(f"  {error.kind.value}: {error.message}")
    return "\n".join(lines) + "\n"


def _peak_json(assessment: ResultAssessment) -> JsonValue:
    peak = assessment.peak
    if peak is None:
        return None
    return {"value": peak.value, "unit": peak.unit, "label": peak.label, "figure": peak.figure,
            "confidence": peak.confidence, "source": peak.source, "note": peak.note}


def run_document(run: BenchRun, assessment: RunAssessment | None = None) -> dict[str, JsonValue]:
    """What `--json` prints: the run (`run_to_json`) with, on each result, the percentage of
    the datasheet peak, the peak used (value, label, source) or why there is none
    (`peak_missing`, "no datasheet entry: ..."), and the verdict against published bands. These
    are worked out from the knowledge base, not stored: reading the run back ignores them."""
    if assessment is None:
        assessment = assess_run(run)
    document = run_to_json(run)
    results = document.get("results")
    if isinstance(results, list):
        for entry in results:
            if not isinstance(entry, dict):
                continue
            judged = assessment.result(str(entry.get("id")))
            if judged is None:
                continue
            entry["percent_of_peak"] = (round(judged.percent_of_peak, 2)
                                        if judged.percent_of_peak is not None else None)
            entry["peak"] = _peak_json(judged)
            entry["peak_missing"] = judged.peak_missing
            entry["verdict"] = {
                "level": judged.level, "words": judged.level_word, "text": judged.text,
                "band_pct": list(judged.band_pct) if judged.band_pct is not None else None,
                "source": judged.source or None, "known_issue": judged.known_issue}
    document["card"] = assessment.card.name if assessment.card is not None else None
    document["compared_with"] = assessment.compared_with
    return document


def _stored_run_json(stored: StoredRun) -> JsonValue:
    return to_jsonable(stored)


def format_history_text(runs: Sequence[StoredRun], path: str) -> str:
    if not runs:
        return f"No benchmark runs kept yet ({path}).\n"
    lines = [f"{len(runs)} benchmark run{'s' if len(runs) != 1 else ''} in {path}:", ""]
    header = ["id", "started", "device", "torch", "results", "outcome"]
    rows = [header]
    for stored in runs:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored.started_unix_s))
        outcome = "ok" if stored.ok else (stored.error or "not ok")
        rows.append([str(stored.id), when, stored.device, stored.torch or "no torch",
                     f"{stored.results}/{len(stored.benchmarks)}", outcome])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines) + "\n"


def format_comparison_text(comparison: RunComparison, id_a: int, id_b: int) -> str:
    lines = [f"Run {id_a} (A, {device_words(comparison.a)}) against run {id_b} "
             f"(B, {device_words(comparison.b)}):"]
    lines.extend(f"  note: {note}" for note in comparison.notes)
    lines.append("")
    header = ["benchmark", "A", "B", "unit", "B vs A", "change", "note"]
    rows = [header]
    for row in comparison.rows:
        rows.append([row.id, format_value(row.value_a), format_value(row.value_b), row.unit,
                     f"{row.delta_pct:+.1f}%" if row.delta_pct is not None else "-",
                     row.change, row.note])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    for row_cells in rows:
        cells = [cell.ljust(width) for cell, width in zip(row_cells, widths, strict=False)]
        lines.append("  ".join([*cells, row_cells[-1]]).rstrip())
    return "\n".join(lines) + "\n"


def device_words(run: BenchRun) -> str:
    hello = run.hello
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.started_unix_s))
    device = (hello.device_name or hello.device or "?") if hello is not None else "?"
    return f"{device}, {started}"


class ProgressBar:
    """One line on a terminal, redrawn in place."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def show(self, event: SessionEvent) -> None:
        if isinstance(event, BenchmarkProgress):
            filled = round(event.overall_fraction * _BAR_WIDTH)
            bar = "#" * filled + "." * (_BAR_WIDTH - filled)
            position = f"{event.index + 1}/{event.count}" if event.index >= 0 else ""
            text = (f"\r[{bar}] {event.overall_fraction * 100:3.0f}%  {position} "
                    f"{event.benchmark} {event.stage}")
            self._write(text.ljust(78)[:100])
        elif isinstance(event, ResultReceived):
            result = event.result
            value = (f"{format_value(result.value)} {shown_unit(result.unit)}"
                     if result.value is not None
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
def _sigint_cancels(session: BenchSession, interrupted: list[bool]) -> Iterator[None]:
    """Ctrl-C cancels the run (the worker is stopped, what arrived is kept) instead of
    unwinding through it. Only the main thread can install signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        interrupted[0] = True
        session.cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _save(run: BenchRun, history: RunHistory) -> tuple[int | None, str | None]:
    """(id, None) once saved, (None, why not) otherwise."""
    if run.hello is None:
        return None, "the worker never started, so there is nothing to keep"
    try:
        return history.save(run), None
    except HistoryError as exc:
        return None, str(exc)


def bench_command(
    suites: Sequence[str] | None,
    *,
    device: str | None = None,
    python: str | None = None,
    as_json: bool = False,
    output: str | None = None,
    save: bool = True,
    machine: MachineProvider | None = live_machine,
    history: RunHistory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """What `gpuscope bench` does; returns the exit status. `machine` lists the GPUs and
    telemetry sources (None: no telemetry, no card); `history` is where the run is kept."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        benchmarks = resolve_suites(suites or ())
        device_request = parse_device(device)
    except (UnknownSuiteError, ValueError) as exc:
        err.write(f"gpuscope bench: {exc}\n")
        return EXIT_USAGE
    request = BenchRequest(benchmarks, python=python or sys.executable, device=device_request)
    session = BenchSession(request, machine)
    bar = ProgressBar(err) if err.isatty() else None
    interrupted = [False]
    with _sigint_cancels(session, interrupted):
        try:
            run = session.run(bar.show if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
    assessment = assess_run(run)
    document = run_document(run, assessment)
    saved_id: int | None = None
    store = history or RunHistory()
    if save:
        saved_id, why_not = _save(run, store)
        document["history"] = {"id": saved_id, "path": str(store.path), "not_saved": why_not}
        if why_not is not None and run.hello is not None:
            err.write(f"gpuscope bench: the run was not kept: {why_not}\n")
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
        out.write(format_run_text(run, assessment))
        if saved_id is not None:
            out.write(f"\nKept as run {saved_id} in {store.path} (gpuscope bench --history "
                      "lists past runs)\n")
    if interrupted[0] or run.cancelled:
        return EXIT_INTERRUPTED
    if run.ok:
        return EXIT_OK
    error = primary_error(run)
    if not as_json and error is not None:
        err.write(f"gpuscope bench: {error.kind.value}: {error.message}\n")
    return EXIT_FAILED


def _run_id(text: str, runs: Sequence[StoredRun]) -> int:
    """A run id, or "last" / "last-1" for the newest runs. ValueError otherwise."""
    value = text.strip().lower()
    if value.startswith("last"):
        back = value[4:]
        offset = int(back[1:]) if back.startswith("-") and back[1:].isdigit() else 0
        if back and not back.startswith("-"):
            raise ValueError(f"not a run id: {text!r}")
        if offset >= len(runs):
            raise ValueError(f"there are only {len(runs)} runs in the history")
        return runs[offset].id
    if value.isdigit():
        return int(value)
    raise ValueError(f"not a run id: {text!r} (a number from --history, or last, last-1)")


def history_command(
    *,
    list_runs: bool = False,
    show: str | None = None,
    compare: Sequence[str] | None = None,
    delete: Sequence[str] | None = None,
    as_json: bool = False,
    history: RunHistory | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """`gpuscope bench --history | --show ID | --compare A B | --delete ID ...`."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    store = history or RunHistory()
    try:
        runs = store.list()
        if list_runs:
            if as_json:
                json.dump({"path": str(store.path),
                           "runs": [_stored_run_json(r) for r in runs]}, out, indent=2)
                out.write("\n")
            else:
                out.write(format_history_text(runs, str(store.path)))
            return EXIT_OK
        if show is not None:
            run = store.load(_run_id(show, runs))
            if as_json:
                json.dump(run_document(run), out, indent=2)
                out.write("\n")
            else:
                out.write(format_run_text(run))
            return EXIT_OK
        if compare is not None:
            if len(compare) != 2:
                err.write("gpuscope bench: --compare takes two run ids\n")
                return EXIT_USAGE
            id_a, id_b = _run_id(compare[0], runs), _run_id(compare[1], runs)
            comparison = compare_runs(store.load(id_a), store.load(id_b))
            if as_json:
                json.dump({"a": id_a, "b": id_b, "notes": list(comparison.notes),
                           "rows": to_jsonable(comparison.rows)}, out, indent=2)
                out.write("\n")
            else:
                out.write(format_comparison_text(comparison, id_a, id_b))
            return EXIT_OK
        if delete is not None:
            ids = [_run_id(text, runs) for text in delete]
            removed = store.delete(ids)
            out.write(f"Deleted {removed} of {len(ids)} runs from {store.path}\n")
            return EXIT_OK if removed == len(ids) else EXIT_FAILED
    except ValueError as exc:
        err.write(f"gpuscope bench: {exc}\n")
        return EXIT_USAGE
    except HistoryError as exc:
        err.write(f"gpuscope bench: {exc}\n")
        return EXIT_FAILED
    err.write("gpuscope bench: nothing to do\n")
    return EXIT_USAGE
