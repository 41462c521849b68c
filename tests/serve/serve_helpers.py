"""Helpers of the `gpuscope serve` tests: exporters started in-process on free ports
(`serve_command`), raw HTTP requests. A module of its own name: `conftest` is ambiguous
across folders."""

from __future__ import annotations

import io
import socket
import threading
from dataclasses import dataclass

from fixture_paths import SNAPSHOTS_DIR

from gpuscope.serve.command import RunningExporter, ServeOptions, serve_command

REPLAY = str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
TOKEN = "s3cret-token-for-tests"


@dataclass
class Started:
    running: RunningExporter
    thread: threading.Thread
    stop: threading.Event
    err: io.StringIO
    result: list[int]

    @property
    def port(self) -> int:
        assert self.running.server is not None
        return self.running.server.port

    def close(self) -> int:
        self.stop.set()
        self.thread.join(10)
        assert not self.thread.is_alive(), "the exporter did not stop"
        return self.result[0]


def start_exporter(options: ServeOptions, *, wait_doctor: bool = True) -> Started:
    """Run serve_command on a thread until it is ready (and the doctor's first run is done)."""
    ready = threading.Event()
    stop = threading.Event()
    err = io.StringIO()
    holder: list[RunningExporter] = []
    result: list[int] = []

    def on_ready(running: RunningExporter) -> None:
        holder.append(running)
        ready.set()

    def run() -> None:
        result.append(serve_command(options, stop=stop, on_ready=on_ready, out=io.StringIO(),
                                    err=err))
        ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(60), "the exporter did not start"
    assert holder, f"the exporter failed: {err.getvalue()}"
    running = holder[0]
    if wait_doctor:
        assert running.doctor.wait_first(60)
    return Started(running, thread, stop, err, result)


def raw_request(port: int, data: bytes, *, timeout_s: float = 10.0) -> bytes:
    """Send `data` as is (no client normalises the path) and read the whole answer."""
    chunks: list[bytes] = []
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        try:  # the server may answer and close before it has read everything
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
    return b"".join(chunks)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])
