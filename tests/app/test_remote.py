"""The window's remote machine client against a real `gpuscope serve` started in the test on
loopback (the replayed RX 7900 XTX), stopped and started again."""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.app.remote import (
    RemoteError,
    RemoteFeed,
    RemoteMachine,
    RemoteStatus,
    normalise_url,
    readings_from_metrics,
)
from gpuscope.metrics import Metric, series_name
from gpuscope.serve.command import RunningExporter, ServeOptions, serve_command

REPLAY = str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
TOKEN = "remote-test-token"
GPU = "0000:03:00.0"


@dataclass
class Exporter:
    running: RunningExporter
    thread: threading.Thread
    stop: threading.Event

    @property
    def port(self) -> int:
        assert self.running.server is not None
        return self.running.server.port

    def close(self) -> None:
        self.stop.set()
        self.thread.join(15)
        assert not self.thread.is_alive(), "the exporter did not stop"


def start_exporter(port: int = 0, token: str | None = TOKEN, **tls: str) -> Exporter:
    ready = threading.Event()
    stop = threading.Event()
    holder: list[RunningExporter] = []
    err = io.StringIO()

    def on_ready(running: RunningExporter) -> None:
        holder.append(running)
        ready.set()

    def run() -> None:
        serve_command(ServeOptions(replay=REPLAY, port=port, token=token, no_frameworks=True,
                                   rate=5.0, **tls), stop=stop, on_ready=on_ready,
                      out=io.StringIO(), err=err)
        ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(60) and holder, f"the exporter did not start: {err.getvalue()}"
    assert holder[0].doctor.wait_first(60)
    return Exporter(holder[0], thread, stop)


def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def exporter() -> Iterator[Exporter]:
    started = start_exporter()
    time.sleep(1.0)  # a few ticks of history
    yield started
    started.close()


def _machine(url: str, token: str | None = TOKEN, **options: float) -> RemoteMachine:
    settings: dict[str, float] = {"interval_s": 0.2, "timeout_s": 2.0, "max_backoff_s": 0.5,
                                  **options}
    return RemoteMachine(url, token, **settings)  # type: ignore[arg-type]


def test_addresses() -> None:
    assert normalise_url("workstation") == "http://workstation:9840"
    assert normalise_url(" host:9000/ ") == "http://host:9000"
    assert normalise_url("https://[::1]:9840/") == "https://[::1]:9840"
    for bad in ("", "ftp://host", "http://", "http://host:port"):
        with pytest.raises(RemoteError):
            normalise_url(bad)
    machine = RemoteMachine("ftp://nowhere")  # never raises: unreachable, with why
    machine.start()
    assert not machine.running
    assert machine.state.status is RemoteStatus.UNREACHABLE
    assert "http://" in (machine.state.reason or "")


def test_doctor_history_and_readings(exporter: Exporter) -> None:
    machine = _machine(f"http://127.0.0.1:{exporter.port}")
    machine.start()
    try:
        wait_for(lambda: machine.state.status is RemoteStatus.REACHABLE
                 and machine.doctor is not None, "the first poll")
        doctor = machine.doctor
        assert doctor is not None
        (gpu,) = doctor.inventory.gpus
        assert gpu.name is not None and "7900 XTX" in gpu.name and gpu.pci_bus == GPU
        assert gpu.gfx_target == "gfx1100"
        assert doctor.inventory.stack.rocm_version == "6.2.4"
        assert doctor.findings and doctor.inventory.origin.source == machine.url
        # The history fills the rings at once: more rows than polls so far.
        ring = machine.rings[GPU]
        assert len(ring) >= 3
        edge = series_name(GPU, Metric.TEMP_EDGE_C)
        times, columns = ring.snapshot(series=[edge])
        assert times[-1] <= time.time() + 1 and (columns[edge] > 0).any()
        # Readings from /metrics, back in the catalogue's units (MHz, %, bytes).
        readings = machine.latest
        wait_for(lambda: machine.latest.get(edge) is not None
                 and machine.latest[edge].value is not None, "a temperature")
        readings = machine.latest
        expected = exporter.running.readings.current()
        assert expected is not None
        for metric in (Metric.TEMP_EDGE_C, Metric.SCLK_MHZ, Metric.VRAM_USED_BYTES,
                       Metric.POWER_W):
            name = series_name(GPU, metric)
            want = expected.readings[name].value
            assert want is not None and readings[name].value == pytest.approx(want), name
        # A series the replay cannot read is missing with the exporter's reason.
        missing = [r for r in readings.values() if r.value is None]
        assert missing and all(r.missing_reason for r in missing)
        feed = RemoteFeed(machine, "Remote: test")
        devices = feed.devices()
        assert devices[0].key == GPU and "7900 XTX" in devices[0].label
        assert devices[-1].key == "host"
        assert feed.ring(GPU) is not None and feed.latest(edge) is not None
    finally:
        machine.stop()
    assert not machine.running


def test_a_wrong_or_missing_token_says_so(exporter: Exporter) -> None:
    for token, words in (("wrong", "token was refused"), (None, "needs a token")):
        machine = _machine(f"http://127.0.0.1:{exporter.port}", token)
        machine.start()
        try:
            wait_for(lambda m=machine: m.state.status is RemoteStatus.UNREACHABLE,  # type: ignore[misc]
                     "401")
            assert words in (machine.state.reason or "") and "401" in (
                machine.state.reason or "")
            assert machine.doctor is None
        finally:
            machine.stop()


def test_tls_to_a_plain_server_is_a_tls_error(exporter: Exporter) -> None:
    machine = _machine(f"https://127.0.0.1:{exporter.port}")
    machine.start()
    try:
        wait_for(lambda: machine.state.status is RemoteStatus.UNREACHABLE, "TLS error")
        assert (machine.state.reason or "").startswith("TLS error")
    finally:
        machine.stop()


def test_a_silent_server_times_out() -> None:
    with socket.socket() as listener:  # accepts connections (backlog) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        machine = _machine(f"http://127.0.0.1:{listener.getsockname()[1]}", timeout_s=0.3)
        machine.start()
        try:
            wait_for(lambda: machine.state.status is RemoteStatus.UNREACHABLE, "timeout")
            assert "no answer within 0.3 s" in (machine.state.reason or "")
        finally:
            machine.stop()


def test_unreachable_then_back_by_itself() -> None:
    first = start_exporter()
    port = first.port
    machine = _machine(f"http://127.0.0.1:{port}")
    machine.start()
    second: Exporter | None = None
    try:
        wait_for(lambda: machine.state.status is RemoteStatus.REACHABLE, "reachable")
        generation = machine.rings_generation
        first.close()
        # A request in flight may see the connection reset; the next ones are refused.
        wait_for(lambda: machine.state.status is RemoteStatus.UNREACHABLE
                 and "connection refused" in (machine.state.reason or ""), "refused")
        assert machine.doctor is not None  # what it showed stays, marked unreachable
        assert machine.state.retry_in_s is not None and machine.state.retry_in_s <= 0.5
        second = start_exporter(port)
        wait_for(lambda: machine.state.status is RemoteStatus.REACHABLE, "back")
        assert machine.rings_generation > generation  # the new run's history
        assert machine.doctor is not None
    finally:
        machine.stop()
        if second is not None:
            second.close()


def test_readings_of_a_page_without_gpus() -> None:
    text = ("# HELP gpuscope_host_cpu_utilization_ratio Host CPU\n"
            "# TYPE gpuscope_host_cpu_utilization_ratio gauge\n"
            "gpuscope_host_cpu_utilization_ratio 0.25\n"
            "# HELP gpuscope_metric_available available\n"
            "# TYPE gpuscope_metric_available gauge\n"
            'gpuscope_metric_available{gpu="host",metric="host_swap_used_bytes",'
            'reason="no swap"} 0\n')
    readings, gpus = readings_from_metrics(text)
    assert gpus == {}
    assert readings["host/host_cpu_percent"].value == pytest.approx(25.0)
    assert readings["host/host_swap_used_bytes"].missing_reason == "no swap"


def test_remote_machines_in_the_settings_file() -> None:
    from gpuscope.app.settings import (
        RemoteMachineSetting,
        Settings,
        settings_from_json,
        settings_to_json,
    )
    settings = Settings(remote_machines=(
        RemoteMachineSetting("http://a:9840"),
        RemoteMachineSetting("https://b:9840", "tok", "/etc/ca.pem")))
    document = settings_to_json(settings)
    assert document["remote_machines"] == [
        {"url": "http://a:9840"},
        {"url": "https://b:9840", "token": "tok", "ca_file": "/etc/ca.pem"}]
    read, problems = settings_from_json(document)
    assert read.remote_machines == settings.remote_machines and problems == []
    read, problems = settings_from_json({"remote_machines": [
        {"url": "http://a:9840", "token": 5}, {"token": "x"}, "http://c", {"url": "http://a:9840"}]})
    assert read.remote_machines == (RemoteMachineSetting("http://a:9840"),)
    assert any("token is not a string" in p for p in problems)
    assert sum("has no url" in p for p in problems) == 2
    assert settings_from_json({"remote_machines": "x"})[0].remote_machines == ()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a certificate")
def test_https_with_the_ca_file_and_without(tmp_path: Path) -> None:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key", "-out",
                    "server.pem", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    exporter = start_exporter(tls_cert=str(tmp_path / "server.pem"),
                              tls_key=str(tmp_path / "server.key"))
    url = f"https://127.0.0.1:{exporter.port}"
    trusting = RemoteMachine(url, TOKEN, str(tmp_path / "server.pem"), interval_s=0.2,
                             max_backoff_s=0.5)
    doubting = _machine(url)
    missing_ca = RemoteMachine(url, TOKEN, str(tmp_path / "nothing.pem"), max_backoff_s=0.5)
    machines = (trusting, doubting, missing_ca)
    try:
        for machine in machines:
            machine.start()
        wait_for(lambda: trusting.state.status is RemoteStatus.REACHABLE
                 and trusting.doctor is not None, "https")
        wait_for(lambda: doubting.state.status is RemoteStatus.UNREACHABLE, "refused cert")
        assert (doubting.state.reason or "").startswith(
            "TLS error: the certificate was not accepted")
        wait_for(lambda: missing_ca.state.status is RemoteStatus.UNREACHABLE, "no CA file")
        assert "cannot use the CA file" in (missing_ca.state.reason or "")
    finally:
        for machine in machines:
            machine.stop()
        exporter.close()
