"""The running exporter of `gpuscope serve`: bind, probe, sample, diagnose, serve, and stop it
all cleanly. `command.serve_command` checks the options and calls `run_exporter`."""

from __future__ import annotations

import logging
import ssl
import threading
from collections.abc import Callable
from typing import TextIO

from prometheus_client.registry import CollectorRegistry

from gpuscope.app.live_session import LiveSession
from gpuscope.app.machine import system_for
from gpuscope.i18n import message
from gpuscope.serve.command import RunningExporter, ServeOptions, take_signals
from gpuscope.serve.documents import DoctorRunner
from gpuscope.serve.exporter import GpuscopeCollector, LatestReadings
from gpuscope.serve.history import RecentHistory
from gpuscope.serve.server import (
    DOCTOR_PATH,
    METRICS_PATH,
    REPORT_PATH,
    SNAPSHOT_PATH,
    ExporterServer,
    serve_in_thread,
)
from gpuscope.serve.textfile import TextfileWriter

log = logging.getLogger(__name__)


def _pythons(options: ServeOptions) -> tuple[str, ...] | None:
    return () if options.no_frameworks else (options.python or None)


def run_exporter(options: ServeOptions, host: str, port: int, token: str | None,
                 tls: ssl.SSLContext | None, *, stop: threading.Event,
                 on_ready: Callable[[RunningExporter], None] | None, err: TextIO) -> int:
    """Run until `stop` is set (or SIGINT/SIGTERM on the main thread); 0 after a clean stop,
    1 when something could not start (one line on `err`)."""
    from gpuscope.evidence import SnapshotError
    from gpuscope.inventory import collect_inventory

    restore_signals = take_signals(stop)
    server: ExporterServer | None = None
    session: LiveSession | None = None
    readings = LatestReadings()
    history: RecentHistory | None = None
    doctor: DoctorRunner | None = None
    writer: TextfileWriter | None = None
    serving: threading.Thread | None = None
    registry = CollectorRegistry(auto_describe=False)
    documents: dict[str, Callable[[], bytes | None]] = {}
    try:
        if not options.no_http:
            try:  # before the slow steps: a taken port fails at once
                server = ExporterServer((host, port), registry, documents, token=token, tls=tls)
            except OSError as exc:
                print("gpuscope serve: " + message(
                    "cannot listen on {address}: {error}", address=f"{host}:{port}",
                    error=exc.strerror or str(exc)), file=err)
                return 1
        try:
            system = system_for(options.replay)
        except SnapshotError as exc:
            print(f"gpuscope serve: {exc}", file=err)
            return 2 if exc.wrong_kind else 1
        inventory = collect_inventory(system)
        session = LiveSession(system)
        session.claim_start()
        sampler = session.start_sampler(inventory, options.rate)
        if sampler is None:
            return 1
        readings.attach(sampler)
        history = RecentHistory(inventory.gpus)
        history.attach(sampler)
        if server is not None:
            server.history = history.body
        doctor = DoctorRunner(system, _pythons(options), options.doctor_interval * 60.0)
        runner = doctor
        documents[DOCTOR_PATH] = lambda: _document(runner, "doctor")
        documents[SNAPSHOT_PATH] = lambda: _document(runner, "snapshot")
        documents[REPORT_PATH] = lambda: _document(runner, "report")
        registry.register(GpuscopeCollector(inventory, readings, doctor.state))
        doctor.start()
        if options.textfile:
            writer = TextfileWriter(options.textfile, registry, options.textfile_interval)
            writer.start()
        url = None
        if server is not None:
            serving = serve_in_thread(server)
            url = server.url
            print("gpuscope serve: " + message(
                "serving {url} ({count} GPU(s); the doctor runs every {minutes} min)",
                url=url + METRICS_PATH, count=len(inventory.gpus),
                minutes=f"{doctor.interval_s / 60:g}"), file=err, flush=True)
        if writer is not None:
            print("gpuscope serve: " + message("writing {path} every {seconds} s",
                                               path=str(writer.directory / "gpuscope.prom"),
                                               seconds=f"{writer.interval_s:g}"),
                  file=err, flush=True)
        if on_ready is not None:
            on_ready(RunningExporter(server, registry, url, stop, doctor, sampler, readings,
                                     history))
        while not stop.wait(0.5):
            pass
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        restore_signals()
        if server is not None:
            if serving is not None:
                server.shutdown()
            server.server_close()
        if writer is not None:
            writer.stop()
        if doctor is not None:
            doctor.stop(0.5)
        readings.detach()
        if history is not None:
            history.detach()
        if session is not None:
            session.close()


def _document(runner: DoctorRunner, which: str) -> bytes | None:
    latest = runner.latest
    if latest is None:
        return None
    if which == "report":
        return latest.report_json
    return latest.doctor_json if which == "doctor" else latest.snapshot_json
