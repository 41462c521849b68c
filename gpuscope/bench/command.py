"""`gpuscope bench`: run suites through a `BenchSession` (the worker, telemetry during the run,
the machine's GPU), show progress, print a table or JSON with each result against the card's
datasheet, and keep the run in the history of past runs (unless --no-save).

    gpuscope bench [--suite NAME ...] [--device N] [--python PATH] [--json] [-o FILE] [--no-save]
    gpuscope bench --history | --show ID | --compare A B | --delete ID ...   [--json]
    gpuscope bench --import FILE ...   (llama.cpp's numbers: `gpuscope.bench.import_command`)

Without --python, the interpreter is the inspected one whose PyTorch can use the device
(`interpreter`: a GPU build first, then a CPU build); stderr says which and why in one line.
When none has PyTorch, or the one named has none, one line names --python and the doctor's
command that installs PyTorch for this machine's GPU, and the exit status is 1.

Exit status: 0 when every benchmark ran (unsupported ones count as run), 1 when the worker
crashed, aborted, hung, ran out of memory or a benchmark failed (with --json the document's
`error` names what happened), 2 for an unknown suite or device, 130 after Ctrl-C (the worker is
stopped first; what arrived is still printed). The history commands exit 1 when the history
cannot be read or a run id is unknown.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
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
from gpuscope.bench.import_command import (
    imported_history_json,
    imported_history_text,
    parse_imported_ident,
    say,
    write_json_file,
)
from gpuscope.bench.interpreter import BenchInterpreter, BenchInterpreters
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    ErrorKind,
    ResultStatus,
    WorkerHello,
    primary_error,
    run_to_json,
    status_words,
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
from gpuscope.doctor.text import display_width, padded
from gpuscope.i18n import N_, Message, localise, message
from gpuscope.metrics import shown_unit
from gpuscope.model import JsonValue, to_jsonable

log = logging.getLogger(__name__)

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
    raise ValueError(message("--device takes a GPU index (0, 1, ...) or 'cpu', not {text}",
                             text=repr(text)))


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
        error = localise(message("{error} (not repeatable)", error=error))
    note = localise(result.reason or "")
    percent = verdict = ""
    if assessment is not None and result.status is ResultStatus.OK:
        percent = format_percent(assessment.percent_of_peak)
        if assessment.peak is not None:
            percent = localise(message("{percent} of {peak}", percent=percent,
                                       peak=format_value(assessment.peak.value)))
        verdict = localise(assessment.level_word)
    status = localise(status_words(result.status))
    if assessment is not None and assessment.unstable:
        status = localise(N_("UNSTABLE"))  # an ok result whose median is not to be believed
    return [result.id, status, format_value(result.value),
            shown_unit(result.unit) if result.value is not None else "", spread, error, percent,
            verdict, result.math_library or "", note]


def _table(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Rows as aligned columns (wide characters take two), the last column left ragged."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join([*(padded(cell, width) for cell, width
                                   in zip(row, widths, strict=False)), row[-1]])).rstrip()
            for row in rows]


def _line(text: str, indent: str = "") -> str:
    return indent + localise(text)


def _torch_words(hello: WorkerHello) -> str:
    if not hello.torch_version:
        return message("no torch")
    build = hello.build or message("unknown")
    if hello.build_version:
        return message("torch {version} ({build} build {build_version})",
                       version=hello.torch_version, build=build,
                       build_version=hello.build_version)
    return message("torch {version} ({build} build)", version=hello.torch_version, build=build)


def _run_heading(run: BenchRun, hello: WorkerHello) -> str:
    values: dict[str, object] = {
        "torch": _torch_words(hello), "python": run.python,
        "version": f"Python {hello.python_version}" if hello.python_version else "Python"}
    if hello.device and hello.device_name:
        return message("Benchmarks on {device} ({name}) with {torch}, {version} at {python}",
                       device=hello.device, name=hello.device_name, **values)
    if hello.device:
        return message("Benchmarks on {device} with {torch}, {version} at {python}",
                       device=hello.device, **values)
    # none when the worker stopped before choosing one (no torch)
    return message("Benchmarks with {torch}, {version} at {python}", **values)


def format_run_text(run: BenchRun, assessment: RunAssessment | None = None) -> str:
    """The run as a readable table: what ran where, each result against the datasheet, the
    telemetry during each benchmark, and every error."""
    if assessment is None:
        assessment = assess_run(run)
    lines: list[str] = []
    hello = run.hello
    if hello is not None:
        lines.append(localise(_run_heading(run, hello)))
        if hello.device_note:
            lines.append(f"  {hello.device_note}")
        lines.append(_line(message("compared with: {what}", what=assessment.compared_with),
                           "  "))
    else:
        lines.append(localise(message("Benchmarks with {python}", python=run.python)))
    lines.append(_line(message("{count} of {total} benchmarks reported in {seconds} s",
                               count=len(run.results), total=len(run.benchmarks),
                               seconds=f"{run.duration_s:.1f}"), "  "))
    if run.results:
        header = [localise(word) for word in (
            N_("benchmark"), N_("status"), N_("value"), N_("unit"), N_("min..max (repeats)"),
            N_("rel. error"), N_("% of peak"), N_("verdict"), N_("library"), N_("note"))]
        lines.append("")
        lines.extend(_table([header] + [_result_row(r, assessment.result(r.id))
                                        for r in run.results]))
        judged = [a for a in assessment.results if a.status == ResultStatus.OK.value
                  and not a.text.startswith(assessment.compared_with)]
        # LLM tokens/s are judged against the bandwidth ceiling measured in the run itself.
        for heading, group in (
                (N_("Against the datasheet:"), [a for a in judged if not a.id.startswith("llm.")]),
                (N_("LLM tokens/s against the memory-bandwidth ceiling:"),
                 [a for a in judged if a.id.startswith("llm.")])):
            if group:
                lines.append("")
                lines.append(localise(heading))
                lines.extend(f"  {a.id}: {localise(a.text)}" for a in group)
        unstable = [a for a in assessment.results if a.stability is not None and a.unstable]
        if unstable:
            lines.append("")
            lines.append(localise(N_("Unstable (the repeats disagree; do not trust the "
                                     "median):")))
            lines.extend(f"  {a.id}: {localise(a.stability.words)}" for a in unstable
                         if a.stability is not None)
        lines.extend(_telemetry_lines(run))
    if run.not_run:
        lines.append("")
        lines.append(localise(message("Not run: {ids}", ids=", ".join(run.not_run))))
    if run.errors:
        lines.append("")
        lines.append(localise(N_("Errors:")))
        for error in run.errors:
            lines.append(f"  {error.kind.value}: {localise(error.message)}")
    return "\n".join(lines) + "\n"


def _telemetry_lines(run: BenchRun) -> list[str]:
    with_telemetry = [r for r in run.results
                      if r.telemetry is not None and r.status is ResultStatus.OK]
    first = with_telemetry[0].telemetry if with_telemetry else None
    if first is not None:
        what = message("host {label}", label=first.label) if first.device == "host" \
            else first.label
        heading = (message("Telemetry during each benchmark ({what}, sampled at {rate} Hz):",
                           what=what, rate=f"{first.rate_hz:g}") if first.rate_hz else
                   message("Telemetry during each benchmark ({what}):", what=what))
        return ["", localise(heading), *(f"  {r.id}: {localise(telemetry_words(r.telemetry))}"
                                         for r in with_telemetry)]
    if run.telemetry_note:
        return ["", localise(message("Telemetry: none ({note})", note=run.telemetry_note))]
    return []


def _peak_json(assessment: ResultAssessment) -> JsonValue:
    peak = assessment.peak
    if peak is None:
        return None
    return {"value": peak.value, "unit": peak.unit, "label": peak.label, "figure": peak.figure,
            "confidence": peak.confidence, "source": peak.source, "note": peak.note}


def run_document(run: BenchRun, assessment: RunAssessment | None = None) -> dict[str, JsonValue]:
    """What `--json` prints: the run (`run_to_json`) with, on each result, the percentage of
    the datasheet peak, the peak used (value, label, source) or why there is none
    (`peak_missing`, "no datasheet entry: ..."), the verdict against published bands, and
    `unstable` with `stability` (how far the repeats spread, the likely reasons: see
    `gpuscope.bench.stability`). These are worked out, not stored: reading the run back
    ignores them."""
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
            stability = judged.stability
            entry["unstable"] = judged.unstable
            entry["stability"] = None if stability is None else {
                "unstable": stability.unstable,
                "max_over_min": round(stability.ratio, 3) if stability.ratio else None,
                "iqr_pct": round(stability.iqr_pct, 2) if stability.iqr_pct is not None
                else None,
                "text": stability.words, "reasons": list(stability.reasons)}
    document["card"] = assessment.card.name if assessment.card is not None else None
    document["compared_with"] = assessment.compared_with
    return document


def _stored_run_json(stored: StoredRun) -> JsonValue:
    return to_jsonable(stored)


def format_history_text(runs: Sequence[StoredRun], path: str) -> str:
    if not runs:
        return localise(message("No benchmark runs kept yet ({path}).", path=path)) + "\n"
    heading = (message("1 benchmark run in {path}:", path=path) if len(runs) == 1 else
               message("{count} benchmark runs in {path}:", count=len(runs), path=path))
    lines = [localise(heading), ""]
    header = [localise(word) for word in (N_("id"), N_("started"), N_("device"), N_("torch"),
                                          N_("results"), N_("outcome"))]
    rows = [header]
    for stored in runs:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored.started_unix_s))
        outcome = (status_words(ResultStatus.OK) if stored.ok
                   else _stored(stored.error) if stored.error else message("not ok"))
        rows.append([str(stored.id), when, localise(_stored(stored.device)),
                     stored.torch or localise(message("no torch")),
                     f"{stored.results}/{len(stored.benchmarks)}", localise(outcome)])
    lines.extend(_table(rows))
    return "\n".join(lines) + "\n"


def _stored(text: str) -> str:
    """A text kept in the history (plain English), translatable again when the catalogue has
    it whole ("none: no torch")."""
    return Message(text, {}) if text and not isinstance(text, Message) else text


def format_comparison_text(comparison: RunComparison, id_a: int, id_b: int) -> str:
    lines = [localise(message("Run {a} (A, {device_a}) against run {b} (B, {device_b}):",
                              a=id_a, device_a=device_words(comparison.a), b=id_b,
                              device_b=device_words(comparison.b)))]
    lines.extend(_line(message("note: {note}", note=note), "  ") for note in comparison.notes)
    lines.append("")
    header = [localise(word) for word in (N_("benchmark"), "A", "B", N_("unit"), N_("B vs A"),
                                          N_("change"), N_("note"))]
    rows = [header]
    for row in comparison.rows:
        rows.append([row.id, format_value(row.value_a), format_value(row.value_b), row.unit,
                     f"{row.delta_pct:+.1f}%" if row.delta_pct is not None else "-",
                     localise(row.change), localise(row.note)])
    lines.extend(_table(rows))
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
                     else f"{localise(status_words(result.status))}: "
                          f"{localise(result.reason or '')}")
            self._write("\r" + f"  {result.id}: {value}"[:100].ljust(78) + "\n")
        elif isinstance(event, ErrorRaised):
            self._write(("\r  " + localise(message(
                "error ({kind}): {message}", kind=event.error.kind.value,
                message=event.error.message))).ljust(79) + "\n")
        elif isinstance(event, HelloReceived):
            hello = event.hello
            device = (f"{hello.device or '?'} ({hello.device_name})" if hello.device_name
                      else hello.device or "?")
            self._write(localise(message("worker: torch {version} on {device}",
                                         version=hello.torch_version or "-", device=device))
                        + "\n")

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
        return None, message("the worker never started, so there is nothing to keep")
    try:
        return history.save(run), None
    except HistoryError as exc:
        return None, _exception_text(exc)


def _exception_text(exc: BaseException) -> str:
    """An exception's message, still translatable when it was made with `message`."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Message) else str(exc)


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
    interpreters: BenchInterpreters | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    llm_shape: str | None = None,
) -> int:
    """What `gpuscope bench` does; returns the exit status. `machine` lists the GPUs and
    telemetry sources (None: no telemetry, no card); `history` is where the run is kept;
    `interpreters` chooses the interpreter when `python` is None (the inspected one whose
    PyTorch can use the device; the choice and why go to stderr in one line) and words the
    error when the interpreter has no PyTorch."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        benchmarks = resolve_suites(suites or ())
        device_request = parse_device(device)
    except (UnknownSuiteError, ValueError) as exc:
        say(err, _exception_text(exc))
        return EXIT_USAGE
    chooser = interpreters or BenchInterpreters()
    if python is None:
        try:
            pick = chooser.choose(device_request)
        except Exception as exc:  # a probe bug must not cost the run: gpuscope's own Python
            log.exception("choosing the interpreter failed")
            pick = BenchInterpreter(sys.executable, message(
                "{python}: choosing an interpreter failed ({error})", python=sys.executable,
                error=f"{type(exc).__name__}: {exc}"))
        if pick.python is None:
            return _no_torch(pick.reason, benchmarks, device_request, as_json, output, out, err)
        say(err, message("using {reason}", reason=pick.reason))
        python = pick.python
    request = BenchRequest(benchmarks, python=python, device=device_request, llm_shape=llm_shape)
    session = BenchSession(request, machine)
    bar = ProgressBar(err) if err.isatty() else None
    interrupted = [False]
    with _sigint_cancels(session, interrupted):
        try:
            run = session.run(bar.show if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
    run = _worded_no_torch(run, chooser, device_request)
    assessment = assess_run(run)
    document = run_document(run, assessment)
    saved_id: int | None = None
    store = history or RunHistory()
    if save:
        saved_id, why_not = _save(run, store)
        document["history"] = {"id": saved_id, "path": str(store.path), "not_saved": why_not}
        if why_not is not None and run.hello is not None:
            say(err, message("the run was not kept: {why}", why=why_not))
    if output and not write_json_file(output, document, err):
        return EXIT_FAILED
    if as_json:
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        out.write(format_run_text(run, assessment))
        if saved_id is not None:
            out.write("\n" + localise(message(
                "Kept as run {id} in {path} ({command} lists past runs)", id=saved_id,
                path=str(store.path), command="gpuscope bench --history")) + "\n")
    if interrupted[0] or run.cancelled:
        return EXIT_INTERRUPTED
    if run.ok:
        return EXIT_OK
    error = primary_error(run)
    if error is not None and error.kind is ErrorKind.NO_TORCH:
        say(err, error.message)  # names --python and the install
    elif not as_json and error is not None:
        err.write(f"gpuscope bench: {error.kind.value}: {localise(error.message)}\n")
    return EXIT_FAILED


def _worded_no_torch(run: BenchRun, chooser: BenchInterpreters, device: str) -> BenchRun:
    """A run whose interpreter cannot import torch, its error saying what to install where
    (the worker's own words kept as the detail)."""
    errors = list(run.errors)
    for position, error in enumerate(errors):
        if error.kind is ErrorKind.NO_TORCH:
            why = error.message.rpartition(": ")[2] or None
            try:
                line = chooser.no_torch_line(run.python, run.hello.python_version
                                             if run.hello is not None else None, device, why)
            except Exception:  # the inventory failing must not cost the run's own error
                log.exception("wording the missing torch failed")
                return run
            errors[position] = dataclasses.replace(error, message=line, detail=error.message)
            return dataclasses.replace(run, errors=tuple(errors))
    return run


def _no_torch(reason: str, benchmarks: Sequence[str], device: str, as_json: bool,
              output: str | None, out: TextIO, err: TextIO) -> int:
    """No interpreter inspected has torch: one line on stderr (naming --python and the
    install command), the document of a run that never started with --json or -o."""
    now = time.time()
    run = BenchRun("", tuple(benchmarks), device, None, (), (BenchError(
        ErrorKind.NO_TORCH, reason),), now, now, not_run=tuple(benchmarks))
    document = run_document(run)
    say(err, reason)
    if output:
        write_json_file(output, document, err)
    if as_json:
        json.dump(document, out, indent=2)
        out.write("\n")
    return EXIT_FAILED


def _run_id(text: str, runs: Sequence[StoredRun]) -> int:
    """A run id, or "last" / "last-1" for the newest runs. ValueError otherwise."""
    value = text.strip().lower()
    if value.startswith("last"):
        back = value[4:]
        offset = int(back[1:]) if back.startswith("-") and back[1:].isdigit() else 0
        if back and not back.startswith("-"):
            raise ValueError(message("not a run id: {text}", text=repr(text)))
        if offset >= len(runs):
            raise ValueError(message("there are only {count} runs in the history",
                                     count=len(runs)))
        return runs[offset].id
    if value.isdigit():
        return int(value)
    raise ValueError(message("not a run id: {text} (a number from --history, or last, last-1)",
                             text=repr(text)))


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
            imported = store.list_imported()  # llama.cpp's numbers, kept apart from runs
            if as_json:
                json.dump({"path": str(store.path), "runs": [_stored_run_json(r) for r in runs],
                           "imported": imported_history_json(imported)}, out, indent=2)
                out.write("\n")
            else:
                out.write(format_history_text(runs, str(store.path)) +
                          imported_history_text(imported))
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
                say(err, message("--compare takes two run ids"))
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
            imported_ids = [i for i in map(parse_imported_ident, delete) if i is not None]
            ids = [_run_id(text, runs) for text in delete if parse_imported_ident(text) is None]
            removed = (store.delete(ids) if ids else 0) + store.delete_imported(imported_ids)
            ids += imported_ids
            out.write(localise(message("Deleted {removed} of {count} runs from {path}",
                                       removed=removed, count=len(ids),
                                       path=str(store.path))) + "\n")
            return EXIT_OK if removed == len(ids) else EXIT_FAILED
    except ValueError as exc:
        say(err, _exception_text(exc))
        return EXIT_USAGE
    except HistoryError as exc:
        say(err, _exception_text(exc))
        return EXIT_FAILED
    say(err, message("nothing to do"))
    return EXIT_USAGE
