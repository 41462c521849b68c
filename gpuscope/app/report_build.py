"""What the Report page makes off the GUI thread: the telemetry strip from the feed on show, the
benchmark runs chosen (runs added from files, and the successful saved runs of this machine's
devices that the page's choice takes), then the report, redacted or not, and what redaction
removes. Failed runs never go into a report."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gpuscope.app.report_inputs import (
    LATEST_PER_DEVICE,
    ReportInputs,
    SavedRun,
    SavedRunChoice,
    choose_saved_runs,
    snapshot_source,
    successful_only,
    successful_saved_runs,
    telemetry_from_feed,
)
from gpuscope.bench.results import BenchRun
from gpuscope.i18n import message
from gpuscope.model import OriginKind
from gpuscope.report.redact import Replacement
from gpuscope.report.view_model import PreparedReport, ShareReport
from gpuscope.telemetry.feed import TelemetryFeed


@dataclass(frozen=True, slots=True)
class BuiltReport:
    """What a generation gives the page: the report on show (redacted or not), what redaction
    removes (or would remove), and the saved runs there were to choose among (the successful
    runs of this machine's devices, newest first; none for a replayed or imported machine)."""

    prepared: PreparedReport
    replacements: tuple[Replacement, ...]
    notes: tuple[str, ...] = ()
    saved: tuple[SavedRun, ...] = ()

    @property
    def report(self) -> ShareReport:
        return self.prepared.report


def _run_key(run: BenchRun) -> tuple[float, str, str]:
    hello = run.hello
    return run.started_unix_s, run.python, (hello.device or "") if hello is not None else ""


def build_report(inputs: ReportInputs, feed: TelemetryFeed | None, redact: bool,
                 saved_runs: bool = False,
                 choice: SavedRunChoice = LATEST_PER_DEVICE,
                 history_path: str | None = None) -> BuiltReport:
    """Off the GUI thread: the telemetry strip from `feed`; the successful runs of
    `inputs.bench_runs` and, with `saved_runs`, the saved runs of this machine's devices that
    `choice` takes from the history at `history_path` (None: the default); then the report
    (redacted unless `redact` is False) and the redaction preview."""
    notes: list[str] = list(inputs.notes)
    origin = inputs.data.inventory.origin.kind
    if origin is OriginKind.IMPORTED:
        feed = None  # the telemetry is this machine's, not the imported one's
    runs, left_out = successful_only(inputs.bench_runs)
    if left_out:
        notes.append(left_out)
    saved: tuple[SavedRun, ...] = ()
    if saved_runs:
        saved, problem = successful_saved_runs(history_path, gpus=inputs.data.inventory.gpus)
        if problem:
            notes.append(problem)
        added = {_run_key(run) for run in runs}
        runs += tuple(run for run in choose_saved_runs(saved, choice)
                      if _run_key(run) not in added)
    inputs = dataclasses.replace(inputs, bench_runs=tuple(
        sorted(runs, key=lambda r: -r.started_unix_s)))
    telemetry = inputs.telemetry
    if feed is not None and telemetry is None:
        try:
            telemetry = telemetry_from_feed(feed, replayed=origin is not OriginKind.LIVE)
            source = inputs.data.inventory.origin.source
            if telemetry is not None and telemetry.at_capture and source:
                # Named as `gpuscope report --replay` names it, not by the page's long label.
                telemetry = dataclasses.replace(telemetry, source=snapshot_source(source))
        except (ValueError, RuntimeError, OSError) as exc:  # a feed that died under us
            notes.append(message("no telemetry strip: {error}", error=str(exc)))
    full = dataclasses.replace(inputs, telemetry=telemetry, notes=tuple(notes))
    redacted = full.prepare(redact=True)
    shown = redacted if redact else full.prepare(redact=False)
    return BuiltReport(shown, redacted.replacements, tuple(notes), saved)
