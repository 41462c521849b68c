"""What a share report is made of, gathered for `gpuscope report` and the Report page: the
doctor's input and findings, benchmark runs, a telemetry summary, and what redaction must
know about the machine (a replayed snapshot's or pasted outputs' own names).

Qt-free on purpose: the command line makes HTML, Markdown and JSON reports without loading
Qt (`gpuscope report` imports nothing of `gpuscope.ui`). It sits above `report/` because it
runs the doctor on live or replayed evidence, which the layers keep away from `report/`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuscope.bench.results import RUN_SCHEMA, BenchRun, run_from_json
from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem, System
from gpuscope.metrics import HOST_DEVICE, split_series_name
from gpuscope.model import Finding, Inventory, OriginKind
from gpuscope.report.share import prepare_report
from gpuscope.report.telemetry_summary import DeviceSeries, summarise_telemetry
from gpuscope.report.view_model import PreparedReport, TelemetrySummary
from gpuscope.telemetry.feed import TelemetryFeed
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.untrusted import UntrustedInputError, load_json, read_regular_file

# A benchmark run file is a few kilobytes; anything this big is not one.
MAX_BENCH_FILE_BYTES = 8 * 1024 * 1024
# The live strip of `gpuscope report`: long enough for a shape, short enough to wait for.
DEFAULT_SAMPLE_S = 3.0
SAMPLE_RATE_HZ = 4.0
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


# The newest saved run of each of this many devices goes into a report.
SAVED_RUN_DEVICES = 2


def latest_saved_runs(history_path: str | None = None,
                      devices: int = SAVED_RUN_DEVICES) -> tuple[tuple[BenchRun, ...], str | None]:
    """(the newest successful run of each of the `devices` most recently benchmarked devices
    in the history of past runs (`gpuscope bench` keeps it), why none could be read or None).
    A failed run (no torch, a crash, a hang, a failed benchmark) stays in the history only: a
    report shows what the card does, not what went wrong once."""
    from gpuscope.bench.history import HistoryError, RunHistory

    history = RunHistory(history_path)
    try:
        stored = history.list(limit=50)
        chosen: dict[str, int] = {}
        for entry in stored:  # newest first
            if entry.ok and entry.device not in chosen and len(chosen) < devices:
                chosen[entry.device] = entry.id
        runs = tuple(history.load(run_id) for run_id in chosen.values())
    except HistoryError as exc:
        return (), f"the saved benchmark runs could not be read: {exc}"
    return tuple(sorted(runs, key=lambda r: -r.started_unix_s)), None


# ----------------------------------------------------------------------------- telemetry


HOST_LABEL = "Host (CPU and RAM)"


def _series(key: str, label: str, ring: SeriesRing, since_s: float | None) -> DeviceSeries | None:
    times, columns = ring.snapshot(since_s=since_s)
    if len(times) == 0:
        return None
    values = {split_series_name(name)[1]: np.asarray(column, dtype=float).tolist()
              for name, column in columns.items()}
    return DeviceSeries(key, HOST_LABEL if key == HOST_DEVICE else label, times.tolist(),
                        values)


def series_from_feed(feed: TelemetryFeed,
                     window_s: float | None = TELEMETRY_WINDOW_S) -> list[DeviceSeries]:
    """The samples of every device of a telemetry feed (the live sampler, an opened
    recording), the last `window_s` seconds of each (None: all of it)."""
    since = None if window_s is None else feed.now_s() - window_s
    out: list[DeviceSeries] = []
    for device in feed.devices():
        ring = feed.ring(device.key)
        series = _series(device.key, device.label, ring, since) if ring is not None else None
        if series is not None:
            out.append(series)
    return out


def telemetry_from_feed(feed: TelemetryFeed, window_s: float | None = TELEMETRY_WINDOW_S,
                        *, replayed: bool = False) -> TelemetrySummary | None:
    """The report's telemetry strip from what a feed holds; None when it holds nothing.
    `replayed`: the machine is a replay, so even a running sampler repeats recorded values
    (the feed's label says so) and the strip is not live."""
    live = feed.live and not replayed
    source = "live sampler" if live else feed.report_label  # the report stays English
    return summarise_telemetry(series_from_feed(feed, window_s), source=source, live=live)


def _gpu_labels(gpus: Sequence[Any]) -> dict[str, str]:
    return {str(g.pci_bus): f"GPU {g.index}: {g.name or 'GPU'}" for g in gpus if g.pci_bus}


def telemetry_from_recording(path: str) -> tuple[TelemetrySummary | None, Any]:
    """(the strip of a whole recording, the inventory it recorded, for redaction). Raises
    ReportInputError for a file that is not a readable recording."""
    from gpuscope.telemetry.recorder import RecordingError, open_recording

    try:
        with open_recording(path) as recording:
            rings = recording.load_into_rings()
            labels = recording.device_labels()
            inventory = recording.meta.inventory
    except RecordingError as exc:
        raise ReportInputError(str(exc)) from exc
    listed = inventory.get("gpus") if isinstance(inventory, dict) else None
    index_by_bus = {g.get("pci_bus"): g.get("index") for g in
                    (listed if isinstance(listed, list) else []) if isinstance(g, dict)}
    devices = []
    for key, ring in rings.items():
        index = index_by_bus.get(key)
        label = f"GPU {index}: {labels.get(key, key)}" if isinstance(index, int) else \
            labels.get(key, key)
        series = _series(key, label, ring, None)
        if series is not None:
            devices.append(series)
    summary = summarise_telemetry(devices, source=f"recording {os.path.basename(path)}",
                                  live=False)
    return summary, inventory


def sample_live_telemetry(system: System, inventory: Inventory,
                          seconds: float = DEFAULT_SAMPLE_S,
                          rate_hz: float = SAMPLE_RATE_HZ) -> TelemetrySummary | None:
    """Sample every GPU and the host for `seconds`; the strip of what came back. Blocks for
    `seconds`: for the command line, never the GUI thread."""
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
        devices = [series for key, ring in sampler.rings.items()
                   if (series := _series(key, labels.get(key, key), ring, None)) is not None]
        return summarise_telemetry(devices, source="live sample", live=True)
    finally:
        sources.close()


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
    the benchmark runs in
    `bench_files` (else, for this machine and with `saved_runs`, the newest runs `gpuscope
    bench` saved), and a telemetry strip from `recording` or, live, a sample of `sample_s`
    seconds (0: none). `progress(text)` says what it is doing. Raises ReportInputError."""
    from gpuscope.app.machine import system_for
    from gpuscope.config import added_interpreters
    from gpuscope.evidence import SnapshotError
    from gpuscope.inventory import (
        DEFAULT_FRAMEWORK_TIMEOUT_S,
        DEFAULT_INSPECTION_BUDGET_S,
        collect_inventory,
        inspect_interpreters,
    )
    from gpuscope.probes.python_envs import default_interpreters, given_interpreters

    if replay and imports:
        raise ReportInputError("--from and --replay describe different machines; give one")
    notes: list[str] = []
    system: System | None = None
    imported: Any = None
    if imports:
        from gpuscope.importer import InputFileError, import_files

        progress(f"reading {len(imports)} pasted output(s)")
        try:
            machine = import_files(list(imports))
        except InputFileError as exc:
            raise ReportInputError(str(exc)) from exc
        data = DoctorInput(machine.inventory, machine.frameworks, machine.signals)
        imported = machine
    else:
        try:
            system = system_for(replay or None)
        except SnapshotError as exc:
            raise ReportInputError(str(exc)) from exc
        progress("probing the GPUs and the stack" if replay is None
                 else f"replaying {os.path.basename(replay)}")
        inventory = collect_inventory(system)
        if pythons is None:
            choices = default_interpreters(system, sys.executable, added_interpreters())
            budget_s = DEFAULT_INSPECTION_BUDGET_S
        else:
            choices = given_interpreters(pythons)
            budget_s = DEFAULT_FRAMEWORK_TIMEOUT_S
        if choices:
            progress(f"inspecting the frameworks of {len(choices)} Python interpreter(s)")
        inspection = inspect_interpreters(system, choices, budget_s)
        if pythons:
            for python, reason in inspection.unusable():
                raise UnusableInterpreterError(f"--python {python}: {reason}")
        data = DoctorInput(inventory, inspection.frameworks,
                           interpreters=inspection.interpreters)
    findings = diagnose(data)
    live = system is not None and data.inventory.origin.kind is OriginKind.LIVE
    bench_runs: tuple[BenchRun, ...] = ()
    if bench_files:
        bench_runs = read_bench_runs(bench_files)
    elif saved_runs and live:
        progress("reading the saved benchmark runs")
        bench_runs, problem = latest_saved_runs()
        if problem:
            notes.append(problem)
    telemetry: TelemetrySummary | None = None
    sources = list(identity_sources_of(system, imported))
    if recording:
        progress(f"reading the recording {os.path.basename(recording)}")
        telemetry, recorded_inventory = telemetry_from_recording(recording)
        if recorded_inventory:
            sources.append(recorded_inventory)
        if telemetry is None:
            notes.append(f"the recording {os.path.basename(recording)} holds no sample of "
                         "the strip's metrics")
    elif sample_s > 0 and system is not None and live:
        progress(f"sampling telemetry for {sample_s:g} s")
        try:
            telemetry = sample_live_telemetry(system, data.inventory, sample_s)
        except (OSError, RuntimeError, ValueError) as exc:
            notes.append(f"no telemetry: the live sample failed ({exc})")
    return ReportInputs(data, tuple(findings), bench_runs, telemetry, tuple(sources),
                        tuple(notes))
