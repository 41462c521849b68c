"""The doctor of `gpuscope serve`: run once at start and then every few minutes on a thread of
its own (never per scrape), keeping its findings for the collector and, ready to send, the
redacted JSON of `/api/doctor` (the `gpuscope doctor --json` document), `/api/snapshot`
(the `gpuscope snapshot` file) and `/api/report` (the share report of `gpuscope report
--format json`, with the newest successful benchmark runs saved on this machine's GPUs, so
another machine's Compare page can take its measured results, and, under
"imported_llm_results", the llama-bench results imported here) of that run.

One run records the evidence it reads (`RecordingSystem`), so the snapshot it serves is the
evidence its findings came from. Both documents go through the report's redaction before they
are kept: host and user names, home paths, serials, UUIDs and addresses never leave.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.app.doctor_inputs import machine_input
from gpuscope.app.machine import snapshot_meta
from gpuscope.app.report_inputs import ReportInputs, identity_sources_of, latest_saved_runs
from gpuscope.bench.history import HistoryError, RunHistory
from gpuscope.bench.imported import imported_to_json
from gpuscope.doctor import diagnose, diagnosis_document
from gpuscope.doctor.inputs import DoctorInput
from gpuscope.evidence import RecordingSystem, System
from gpuscope.i18n import message
from gpuscope.model import Finding
from gpuscope.report.compare_import import IMPORTED_LLM_KEY, MAX_IMPORTED_LLM_RESULTS
from gpuscope.report.formats import export_text
from gpuscope.report.redact import Redactor
from gpuscope.serve.exporter import DoctorState
from gpuscope.untrusted import escape_json_controls

log = logging.getLogger(__name__)

DEFAULT_DOCTOR_INTERVAL_S = 10 * 60.0
MIN_DOCTOR_INTERVAL_S = 60.0


@dataclass(frozen=True, slots=True)
class DoctorRun:
    """One finished run: its state for the collector and its documents (UTF-8 JSON,
    redacted), or why the run failed."""

    state: DoctorState | None
    doctor_json: bytes | None
    snapshot_json: bytes | None
    error: str | None = None
    report_json: bytes | None = None  # None when the report failed (logged; doctor served)


def run_doctor(system: System, pythons: Sequence[str] | None,
               clock: Callable[[], float] = time.time, *,
               history_path: str | None = None) -> DoctorRun:
    """Diagnose `system` with the frameworks of `pythons` (None: the default set; (): none)
    and make the redacted documents; the report takes its saved benchmark runs from the run
    history at `history_path` (None: `gpuscope bench`'s own). Never raises: a failure is the
    run's `error`."""
    try:
        recorder = RecordingSystem(system)
        machine = machine_input(system=recorder, pythons=pythons)
        data = machine.data
        if any(gpu.luid for gpu in data.inventory.gpus):  # Windows, as `gpuscope snapshot`
            from gpuscope.probes.windows_telemetry import record_counters

            record_counters(recorder)
        findings = diagnose(data)
        doctor: dict[str, Any] = diagnosis_document(data, findings)
        snapshot = recorder.snapshot
        snapshot.meta = snapshot_meta("gpuscope serve")
        snapshot_document = snapshot.to_json()
        redactor = Redactor.for_export(data.inventory, data.frameworks, doctor,
                                       snapshot_document, *identity_sources_of(system))
        doctor = redactor.redact_json({**doctor, "redacted": True})
        snapshot_document = redactor.redact_json(snapshot_document)
        return DoctorRun(
            DoctorState(findings, clock(), data.inventory),
            _json_bytes(doctor, indent=2, sort_keys=False),
            _json_bytes(snapshot_document, indent=1, sort_keys=True),
            report_json=make_report_json(data, findings, identity_sources_of(system),
                                         history_path))
    except Exception as exc:  # the exporter goes on; the next run may succeed
        log.warning("gpuscope serve: the doctor failed: %s", exc, exc_info=True)
        return DoctorRun(None, None, None,
                         message("the doctor failed: {error}", error=f"{type(exc).__name__}: "
                                                                     f"{exc}"))


def make_report_json(data: DoctorInput, findings: Sequence[Finding],
                     identity_sources: Sequence[Any], history_path: str | None
                     ) -> bytes | None:
    """The redacted share report of this doctor run (as `gpuscope report --format json`
    makes it, from the same evidence rather than a second probe, without a telemetry strip)
    with the newest successful saved run of each benchmarked device of these GPUs, and the
    llama-bench results imported here under IMPORTED_LLM_KEY (redacted too); None when it
    cannot be made (logged: the doctor's own documents are still served)."""
    try:
        runs, problem = latest_saved_runs(history_path, gpus=data.inventory.gpus)
        if problem:
            log.info("gpuscope serve: %s", problem)
        inputs = ReportInputs(data, tuple(findings), runs,
                              identity_sources=tuple(identity_sources))
        text = export_text(inputs.prepare(redact=True).report, "json")
    except Exception as exc:
        log.warning("gpuscope serve: the report failed: %s", exc, exc_info=True)
        return None
    try:
        imported = _imported_llm_results(history_path)
        if imported:
            redactor = Redactor.for_export(data.inventory, data.frameworks, imported,
                                           *identity_sources)
            document = {**json.loads(text),
                        IMPORTED_LLM_KEY: redactor.redact_json(imported)}
            text = escape_json_controls(json.dumps(document, indent=2, ensure_ascii=False,
                                                   allow_nan=False) + "\n")
    except Exception as exc:  # the report goes without them
        log.warning("gpuscope serve: the imported llama-bench results were left out: %s",
                    exc, exc_info=True)
    return text.encode("utf-8")


def _imported_llm_results(history_path: str | None) -> list[dict[str, Any]]:
    """The newest llama-bench results imported into the run history (`gpuscope bench
    --import`), as the history keeps them; none when it cannot be read (logged)."""
    try:
        stored = RunHistory(history_path).list_imported(limit=MAX_IMPORTED_LLM_RESULTS)
        return [dict(imported_to_json(entry.item)) for entry in stored]
    except HistoryError as exc:
        log.info("gpuscope serve: the imported llama-bench results: %s", exc)
        return []


def _json_bytes(value: Any, *, indent: int, sort_keys: bool) -> bytes:
    return (json.dumps(value, indent=indent, sort_keys=sort_keys) + "\n").encode("utf-8")


class DoctorRunner:
    """Runs `run_doctor` at start and every `interval_s` seconds on a daemon thread. The
    latest successful run stays until a newer one succeeds."""

    def __init__(self, system: System, pythons: Sequence[str] | None,
                 interval_s: float = DEFAULT_DOCTOR_INTERVAL_S,
                 run: Callable[[System, Sequence[str] | None], DoctorRun] | None = None, *,
                 history_path: str | None = None) -> None:
        self._system = system
        self._pythons = pythons
        self.interval_s = max(MIN_DOCTOR_INTERVAL_S, interval_s)
        self._run = run or (lambda s, p: run_doctor(s, p, history_path=history_path))
        self._lock = threading.Lock()
        self._latest: DoctorRun | None = None
        self._last_error: str | None = None
        self._stop = threading.Event()
        self._first_done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, daemon=True,
                                            name="gpuscope-serve-doctor")
            self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def wait_first(self, timeout_s: float) -> bool:
        """True once the first run has finished (well or not) within `timeout_s`."""
        return self._first_done.wait(timeout_s)

    def run_now(self) -> DoctorRun:
        """One run on the caller's thread, kept as the latest when it succeeds."""
        result = self._run(self._system, self._pythons)
        with self._lock:
            if result.error is None:
                self._latest = result
            self._last_error = result.error
        return result

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.run_now()
            self._first_done.set()
            self._stop.wait(self.interval_s)

    @property
    def latest(self) -> DoctorRun | None:
        with self._lock:
            return self._latest

    @property
    def last_error(self) -> str | None:
        with self._lock:
            return self._last_error

    def state(self) -> DoctorState | None:
        latest = self.latest
        return latest.state if latest is not None else None

