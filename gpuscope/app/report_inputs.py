"""What a share report is made of, gathered for `gpuscope report` and the Report page: the
doctor's input and findings, benchmark runs, a telemetry summary, and what redaction must
know about the machine (a replayed snapshot's or pasted outputs' own names).

Qt-free on purpose: the command line makes HTML, Markdown and JSON reports without loading
Qt (`gpuscope report` imports nothing of `gpuscope.ui`). It sits above `report/` because it
runs the doctor on live or replayed evidence, which the layers keep away from `report/`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuscope.bench.assess import is_gpu_run, match_target
from gpuscope.bench.history import StoredRun
from gpuscope.bench.results import RUN_SCHEMA, BenchRun, run_from_json
from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem, System
from gpuscope.i18n import N_, message
from gpuscope.metrics import HOST_DEVICE, split_series_name
from gpuscope.model import Finding, Gpu, Inventory, OriginKind
from gpuscope.report.share import prepare_report
from gpuscope.report.telemetry_summary import (
    SPARK_POINTS,
    DeviceReduced,
    DeviceSeries,
    ReducedMetric,
    feed_label,
    summarise_telemetry,
)
from gpuscope.report.view_model import PreparedReport, TelemetrySummary
from gpuscope.telemetry.decimate import MinMaxPyramid
from gpuscope.telemetry.feed import CaptureFeed, SummaryFeed, TelemetryFeed, is_capture
from gpuscope.telemetry.recording_feed import RecordingRing
from gpuscope.telemetry.ring import RingView
from gpuscope.untrusted import UntrustedInputError, load_json, read_regular_file

# A benchmark run file is a few kilobytes; anything this big is not one.
MAX_BENCH_FILE_BYTES = 8 * 1024 * 1024
# The live strip of `gpuscope report`: long enough for a shape, short enough to wait for.
DEFAULT_SAMPLE_S = 3.0
SAMPLE_RATE_HZ = 4.0
# Long enough for a sampler over a replayed snapshot to read each captured value once.
CAPTURE_SAMPLE_S = 0.6
# What the telemetry strip summarises of a long feed: its last 15 minutes.
TELEMETRY_WINDOW_S = 15 * 60.0

Progress = Callable[[str], None]


class ReportInputError(Exception):
    """An input of the report that cannot be used (one line, for the CLI or the page)."""


class UnusableInterpreterError(ReportInputError):
    """An interpreter asked for by name that cannot be run at all (a usage error)."""


@dataclass(frozen=True, slots=True)
class ReportInputs:
    """Everything one report is made from. `notes` say what was left out and why."""

    data: DoctorInput
    findings: tuple[Finding, ...]
    bench_runs: tuple[BenchRun, ...] = ()
    telemetry: TelemetrySummary | None = None
    identity_sources: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()

    def prepare(self, redact: bool = True) -> PreparedReport:
        """The report, redacted unless `redact` is False (`share.prepare_report`)."""
        return prepare_report(self.data, self.findings, bench_runs=self.bench_runs,
                              telemetry=self.telemetry, redact=redact,
                              identity_sources=self.identity_sources)


def identity_sources_of(system: System | None, imported: Any = None) -> tuple[Any, ...]:
    """What redaction reads for the names of the machine described: a replayed snapshot's
    whole evidence, or the pasted outputs of an import."""
    sources: list[Any] = []
    if isinstance(system, ReplaySystem):
        sources.append(system.snapshot.to_json())
    if imported is not None:
        sources.append(imported)
    return tuple(sources)


# ----------------------------------------------------------------------------- benchmarks


def read_bench_runs(paths: Sequence[str]) -> tuple[BenchRun, ...]:
    """The runs in `gpuscope bench -o FILE` files (one run each, or a list of runs), newest
    first. ReportInputError names the file that is not one."""
    runs: list[BenchRun] = []
    for path in paths:
        name = os.path.basename(path) or path
        # Outside data: a regular file only (a FIFO would block), capped, bounded JSON.
        try:
            raw = load_json(read_regular_file(path, MAX_BENCH_FILE_BYTES, name=name,
                                              what="a benchmark run"), name=name)
        except UntrustedInputError as exc:
            if exc.kind == "unreadable" and not os.path.lexists(path):
                raise ReportInputError(f"{name}: no such file") from None
            if exc.kind == "malformed":
                raise ReportInputError(f"{name}: not a benchmark run "
                                       f"({str(exc).removeprefix(name + ': ')})") from None
            raise ReportInputError(str(exc)) from None
        items = raw if isinstance(raw, list) else [raw]
        for position, item in enumerate(items, start=1):
            run = run_from_json(item)
            if run is None:
                schema = item.get("schema") if isinstance(item, dict) else None
                where = f" (entry {position})" if isinstance(raw, list) else ""
                raise ReportInputError(
                    f"{name}{where}: not a benchmark run (schema {schema!r}, expected "
                    f"{RUN_SCHEMA!r}; make one with 'gpuscope bench -o FILE')")
            runs.append(run)
    return tuple(sorted(runs, key=lambda r: -r.started_unix_s))


def successful_only(runs: Sequence[BenchRun]) -> tuple[tuple[BenchRun, ...], str | None]:
    """(the runs of `runs` that succeeded, a note saying how many failed ones are left out, or
    None): a failed run (no torch, a crash, a hang, a failed benchmark) is never in a
    report."""
    kept = tuple(run for run in runs if run.ok)
    failed = len(runs) - len(kept)
    if failed == 0:
        return kept, None
    return kept, (message("1 failed benchmark run left out: a report shows successful runs "
                          "only") if failed == 1 else
                  message("{count} failed benchmark runs left out: a report shows successful "
                          "runs only", count=failed))


# The newest saved run of each of this many devices goes into a report.
SAVED_RUN_DEVICES = 2
# How many of the newest saved runs the report looks through.
SAVED_RUN_LIMIT = 50
# Which saved runs a report takes: the newest successful run of each device, none, or the
# id of one run in the history.
LATEST_PER_DEVICE = "latest"
NO_SAVED_RUNS = "none"
SavedRunChoice = str | int


@dataclass(frozen=True, slots=True)
class SavedRun:
    """A successful run of the history of past runs, as listed and as loaded."""

    entry: StoredRun
    run: BenchRun


def on_this_machine(run: BenchRun, gpus: Sequence[Gpu]) -> bool:
    """Whether `run` ran on a device of the machine whose GPUs are `gpus`: the CPU, or one
    of these GPUs (by the PCI bus address kept with the run, else as the bench layer matches
    a worker's device)."""
    if not is_gpu_run(run.hello):
        return run.hello is not None and run.hello.device == "cpu"
    buses = {g.pci_bus for g in gpus if g.pci_bus}
    if run.target is not None and run.target.pci_bus in buses:
        return True
    target = match_target(run.hello, gpus)
    return target is not None and target.gpu_index is not None


def successful_saved_runs(history_path: str | None = None, *,
                          gpus: Sequence[Gpu] | None = None,
                          limit: int = SAVED_RUN_LIMIT) -> tuple[tuple[SavedRun, ...], str | None]:
    """(the successful runs among the newest `limit` of the history of past runs (`gpuscope
    bench` keeps it), newest first, those on the devices of a machine with `gpus` only
    (None: any device); why they could not be read, or None). A failed run (no torch, a
    crash, a hang, a failed benchmark) stays in the history only: a report shows what the
    card does, not what went wrong once."""
    from gpuscope.bench.history import HistoryError, RunHistory

    history = RunHistory(history_path)
    try:
        found: list[SavedRun] = []
        for entry in history.list(limit=limit):  # newest first
            if not entry.ok:
                continue
            run = history.load(entry.id)
            if run.ok and (gpus is None or on_this_machine(run, gpus)):
                found.append(SavedRun(entry, run))
    except HistoryError as exc:
        return (), message("the saved benchmark runs could not be read: {error}",
                           error=str(exc))
    return tuple(found), None


def choose_saved_runs(saved: Sequence[SavedRun], choice: SavedRunChoice = LATEST_PER_DEVICE,
                      devices: int = SAVED_RUN_DEVICES) -> tuple[BenchRun, ...]:
    """The runs of `saved` (newest first) a report takes: `LATEST_PER_DEVICE`, the newest
    run of each of the `devices` most recently benchmarked devices; `NO_SAVED_RUNS`; or the
    run of that id (none when it is no longer there)."""
    if choice == NO_SAVED_RUNS:
        return ()
    if isinstance(choice, int):
        return tuple(s.run for s in saved if s.entry.id == choice)[:1]
    chosen: dict[str, BenchRun] = {}
    for item in saved:
        if item.entry.device not in chosen and len(chosen) < devices:
            chosen[item.entry.device] = item.run
    return tuple(sorted(chosen.values(), key=lambda r: -r.started_unix_s))


def latest_saved_runs(history_path: str | None = None, devices: int = SAVED_RUN_DEVICES, *,
                      gpus: Sequence[Gpu] | None = None,
                      ) -> tuple[tuple[BenchRun, ...], str | None]:
    """(the newest successful run of each of the `devices` most recently benchmarked devices
    of the machine with `gpus` (None: any), newest first; why none could be read or None)."""
    saved, problem = successful_saved_runs(history_path, gpus=gpus)
    return choose_saved_runs(saved, LATEST_PER_DEVICE, devices), problem


# ----------------------------------------------------------------------------- telemetry


HOST_LABEL = N_("Host (CPU and RAM)")


def _series(key: str, label: str, ring: RingView, since_s: float | None, *,
            newest_only: bool = False) -> DeviceSeries | None:
    times, columns = ring.snapshot(since_s=since_s)
    if len(times) == 0:
        return None
    if newest_only:
        times, columns = times[-1:], {name: column[-1:] for name, column in columns.items()}
    values = {split_series_name(name)[1]: np.asarray(column, dtype=float).tolist()
              for name, column in columns.items()}
    return DeviceSeries(key, HOST_LABEL if key == HOST_DEVICE else label, times.tolist(),
                        values)


def series_from_feed(feed: TelemetryFeed, window_s: float | None = TELEMETRY_WINDOW_S, *,
                     newest_only: bool = False) -> list[DeviceSeries]:
    """The samples of every device of a telemetry feed (the live sampler, an opened
    recording), the last `window_s` seconds of each (None: all of it); `newest_only`: the
    newest row of each."""
    since = None if window_s is None or newest_only else feed.now_s() - window_s
    out: list[DeviceSeries] = []
    for device in feed.devices():
        ring = feed.ring(device.key)
        series = (_series(device.key, device.label, ring, since, newest_only=newest_only)
                  if ring is not None else None)
        if series is not None:
            out.append(series)
    return out


def reduced_from_pyramid(key: str, label: str, ring: RingView,
                         pyramid: MinMaxPyramid) -> DeviceReduced | None:
    """A device of a recording reduced from its stored summaries: min/avg/max and the
    sparkline of every series, without reading a sample."""
    span = ring.time_span()
    if span is None or not pyramid.levels:
        return None
    stats = pyramid.stats(span[0], span[1]) or []
    spark = pyramid.binned(span[0], span[1], SPARK_POINTS, range(len(ring.series)), "mean")
    counts = pyramid.levels[0].count.sum(axis=1)
    metrics: dict[str, ReducedMetric] = {}
    for row, name in enumerate(ring.series):
        row_stats = stats[row] if row < len(stats) else None
        if (row_stats is None or row_stats.minimum is None or row_stats.mean is None
                or row_stats.maximum is None):
            continue
        means = () if spark is None else tuple(
            None if np.isnan(v) else float(v) for v in spark[row])
        metrics[split_series_name(name)[1]] = ReducedMetric(
            row_stats.minimum, row_stats.mean, row_stats.maximum, int(counts[row]), means)
    return DeviceReduced(key, HOST_LABEL if key == HOST_DEVICE else label, span, metrics)


def _feed_devices(feed: TelemetryFeed) -> list[DeviceSeries | DeviceReduced]:
    """The devices of a feed that is not live: reduced from a recording's stored summaries
    where it has them, else its samples."""
    out: list[DeviceSeries | DeviceReduced] = []
    for device in feed.devices():
        ring = feed.ring(device.key)
        if ring is None:
            continue
        pyramid = feed.summary(device.key) if isinstance(feed, SummaryFeed) else None
        if isinstance(ring, RecordingRing) and pyramid is not None:
            reduced = reduced_from_pyramid(device.key, device.label, ring, pyramid)
            if reduced is not None:
                out.append(reduced)
            continue
        series = _series(device.key, device.label, ring, None)
        if series is not None:
            out.append(series)
    return out


def telemetry_from_feed(feed: TelemetryFeed, window_s: float | None = TELEMETRY_WINDOW_S,
                        *, replayed: bool = False) -> TelemetrySummary | None:
    """The report's telemetry strip from what a feed holds; None when it holds nothing.
    `replayed`: the machine is a replay, so even a running sampler repeats recorded values
    (the feed's label says so) and the strip is not live.

    A feed of a snapshot's single readings (`is_capture`) gives them "at capture": the newest
    row of each ring, at the snapshot's capture time, never today's. A feed that is not live
    (a recording) gives all of it, as `gpuscope report --recording` does; `window_s` bounds
    a live one."""
    # The feed's English label for the JSON, shown in the report's language.
    source = feed_label(feed.label, feed.report_label)
    if is_capture(feed):
        captured = feed.captured_at_s if isinstance(feed, CaptureFeed) else None
        return summarise_telemetry(series_from_feed(feed, newest_only=True), source=source,
                                   live=False, at_capture=True, captured_at_s=captured)
    live = feed.live and not replayed
    if live:
        source = message("live sampler")
    if not feed.live:
        return summarise_telemetry(_feed_devices(feed), source=source, live=live)
    return summarise_telemetry(series_from_feed(feed, window_s), source=source, live=live)


def _gpu_labels(gpus: Sequence[Any]) -> dict[str, str]:
    return {str(g.pci_bus): f"GPU {g.index}: {g.name or 'GPU'}" for g in gpus if g.pci_bus}


def telemetry_from_recording(path: str) -> tuple[TelemetrySummary | None, Any]:
    """(the strip of a whole recording, the inventory it recorded, for redaction). Raises
    ReportInputError for a file that is not a readable recording. A version 3 recording is
    summarised from its stored summaries, without reading its samples."""
    from gpuscope.telemetry.recorder import RecordingError, open_recording
    from gpuscope.telemetry.recording_feed import recording_pyramids, recording_rings

    devices: list[DeviceSeries | DeviceReduced] = []
    try:
        with open_recording(path) as recording:
            labels = recording.device_labels()
            inventory = recording.meta.inventory
            listed = inventory.get("gpus") if isinstance(inventory, dict) else None
            index_by_bus = {g.get("pci_bus"): g.get("index") for g in
                            (listed if isinstance(listed, list) else []) if isinstance(g, dict)}

            def label_of(key: str) -> str:
                index = index_by_bus.get(key)
                name = labels.get(key, key)
                return f"GPU {index}: {name}" if isinstance(index, int) else name

            if recording.chunked:
                chunked = recording_rings(recording)
                pyramids = recording_pyramids(recording, chunked)
                for key, ring in chunked.items():
                    pyramid = pyramids.get(key)
                    reduced = (reduced_from_pyramid(key, label_of(key), ring, pyramid)
                               if pyramid is not None else None)
                    if reduced is not None:
                        devices.append(reduced)
            else:
                for key, whole in recording.load_into_rings().items():
                    series = _series(key, label_of(key), whole, None)
                    if series is not None:
                        devices.append(series)
    except RecordingError as exc:
        raise ReportInputError(str(exc)) from exc
    summary = summarise_telemetry(devices, source=message("recording {file}",
                                                          file=os.path.basename(path)),
                                  live=False)
    return summary, inventory


def _sampled_series(system: System, inventory: Inventory, seconds: float, rate_hz: float,
                    *, newest_only: bool = False) -> list[DeviceSeries]:
    from gpuscope.telemetry.sampler import Sampler
    from gpuscope.telemetry.sources import build_sources

    sources = build_sources(system, inventory)
    try:
        sampler = Sampler(sources.sources, rate_hz=rate_hz, history_s=max(10.0, seconds * 2))
        sampler.start()
        try:
            time.sleep(seconds)
        finally:
            sampler.stop()
        labels = _gpu_labels(inventory.gpus)
        return [series for key, ring in sampler.rings.items()
                if (series := _series(key, labels.get(key, key), ring, None,
                                      newest_only=newest_only)) is not None]
    finally:
        sources.close()


def sample_live_telemetry(system: System, inventory: Inventory,
                          seconds: float = DEFAULT_SAMPLE_S,
                          rate_hz: float = SAMPLE_RATE_HZ) -> TelemetrySummary | None:
    """Sample every GPU and the host for `seconds`; the strip of what came back. Blocks for
    `seconds`: for the command line, never the GUI thread."""
    return summarise_telemetry(_sampled_series(system, inventory, seconds, rate_hz),
                               source=message("live sample"), live=True)


def captured_telemetry(system: ReplaySystem, inventory: Inventory) -> TelemetrySummary | None:
    """A replayed snapshot's single readings "at capture", at its capture time (a sampler
    over a replay repeats them): what the Report page shows of a replay. Blocks for a
    fraction of a second."""
    from gpuscope.telemetry.feed_adapters import capture_time_s

    series = _sampled_series(system, inventory, CAPTURE_SAMPLE_S, SAMPLE_RATE_HZ,
                             newest_only=True)
    return summarise_telemetry(
        series, source=snapshot_source(system.source), live=False, at_capture=True,
        captured_at_s=capture_time_s(inventory.origin.captured_utc))


def snapshot_source(path: str | None) -> str:
    """The report's name of a replayed snapshot's readings: "snapshot rx7900xtx.json"."""
    return message("snapshot {file}", file=os.path.basename(path or "") or "?")


# ----------------------------------------------------------------------------- the command


def _quiet(_message: str) -> None:
    return None


def gather_report_inputs(
    *,
    replay: str | None = None,
    imports: Sequence[str] = (),
    pythons: Sequence[str] | None = None,
    bench_files: Sequence[str] = (),
    saved_runs: bool = True,
    recording: str | None = None,
    sample_s: float = DEFAULT_SAMPLE_S,
    progress: Progress = _quiet,
) -> ReportInputs:
    """What `gpuscope report` reports on: this machine (or the snapshot `replay`, or the
    pasted outputs `imports`), the frameworks of `pythons` (None: the default set, see
    `default_interpreters`, bounded to 20 s in all, or those a snapshot inspected; () for
    none; an interpreter named here that cannot be run raises UnusableInterpreterError),
    the benchmark runs in `bench_files` (else, for this machine and with `saved_runs`, the
    newest successful runs `gpuscope bench` saved on its devices), and a telemetry strip from
    `recording` or, live, a sample of `sample_s` seconds, or a snapshot's readings at capture
    (`sample_s` 0: none). `progress(text)` says what it is doing, and `notes` what was left
    out (messages: show them with `gpuscope.i18n.localise`). Raises ReportInputError."""
    from gpuscope.app import doctor_inputs
    from gpuscope.app.machine import system_for
    from gpuscope.evidence import SnapshotError
    from gpuscope.importer import InputFileError

    if replay and imports:
        raise ReportInputError("--from and --replay describe different machines; give one")
    notes: list[str] = []
    system: System | None = None
    if not imports:
        try:
            system = system_for(replay or None)
        except SnapshotError as exc:
            raise ReportInputError(str(exc)) from exc
        progress(message("probing the GPUs and the stack") if replay is None
                 else message("replaying {file}", file=os.path.basename(replay)))
    try:
        machine = doctor_inputs.machine_input(system=system, imports=imports,
                                              pythons=pythons, progress=progress)
    except InputFileError as exc:
        raise ReportInputError(str(exc)) from exc
    except doctor_inputs.UnusableInterpreterError as exc:
        raise UnusableInterpreterError(str(exc)) from exc
    data, imported = machine.data, machine.imported
    findings = diagnose(data)
    live = system is not None and data.inventory.origin.kind is OriginKind.LIVE
    bench_runs: tuple[BenchRun, ...] = ()
    if bench_files:
        bench_runs, left_out = successful_only(read_bench_runs(bench_files))
        if left_out:
            notes.append(left_out)
    elif saved_runs and live:
        progress(message("reading the saved benchmark runs"))
        bench_runs, problem = latest_saved_runs(gpus=data.inventory.gpus)
        if problem:
            notes.append(problem)
    telemetry: TelemetrySummary | None = None
    sources = list(identity_sources_of(system, imported))
    if recording:
        progress(message("reading the recording {file}", file=os.path.basename(recording)))
        telemetry, recorded_inventory = telemetry_from_recording(recording)
        if recorded_inventory:
            sources.append(recorded_inventory)
        if telemetry is None:
            notes.append(message("the recording {file} holds no sample of the strip's metrics",
                                 file=os.path.basename(recording)))
    elif sample_s > 0 and isinstance(system, ReplaySystem):
        progress(message("reading the snapshot's telemetry readings"))
        try:
            telemetry = captured_telemetry(system, data.inventory)
            if telemetry is None:
                notes.append(message("no telemetry: the snapshot holds no reading of the "
                                     "strip's metrics"))
        except (OSError, RuntimeError, ValueError) as exc:
            notes.append(message("no telemetry: the snapshot's readings could not be read "
                                 "({error})", error=str(exc)))
    elif sample_s > 0 and system is not None and live:
        progress(message("sampling telemetry for {seconds} s", seconds=f"{sample_s:g}"))
        try:
            telemetry = sample_live_telemetry(system, data.inventory, sample_s)
        except (OSError, RuntimeError, ValueError) as exc:
            notes.append(message("no telemetry: the live sample failed ({error})",
                                 error=str(exc)))
    return ReportInputs(data, tuple(findings), bench_runs, telemetry, tuple(sources),
                        tuple(notes))
