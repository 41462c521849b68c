"""`gpuscope serve --textfile DIR`: the same metrics as `/metrics`, written for node_exporter's
textfile collector (https://github.com/prometheus/node_exporter#textfile-collector) as
DIR/gpuscope.prom every interval. prometheus_client.write_to_textfile writes a temporary file
beside it and renames it over the old one, so node_exporter never reads half a file."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from prometheus_client.exposition import generate_latest
from prometheus_client.registry import CollectorRegistry

from gpuscope.i18n import message
from gpuscope.safe_write import write_bytes

log = logging.getLogger(__name__)

TEXTFILE_NAME = "gpuscope.prom"
DEFAULT_TEXTFILE_INTERVAL_S = 15.0
MIN_TEXTFILE_INTERVAL_S = 1.0


class TextfileError(Exception):
    """The textfile directory cannot be written (one line)."""


def check_directory(directory: str | Path) -> Path:
    """The directory, when it exists and this process may write there; else TextfileError."""
    path = Path(directory)
    if not path.is_dir():
        raise TextfileError(message("--textfile {path}: no such directory", path=str(path)))
    if not os.access(path, os.W_OK | os.X_OK):
        raise TextfileError(message("--textfile {path}: not writable by this user",
                                    path=str(path)))
    return path


def write_textfile(directory: str | Path, registry: CollectorRegistry) -> Path:
    """Write the registry's metrics to DIRECTORY/gpuscope.prom atomically; its path."""
    target = Path(directory) / TEXTFILE_NAME
    try:
        write_bytes(target, generate_latest(registry))
    except OSError as exc:
        raise TextfileError(message("cannot write {path}: {error}", path=str(target),
                                    error=exc.strerror or str(exc))) from None
    return target


class TextfileWriter:
    """Writes the textfile now and then every `interval_s` seconds on a daemon thread. A
    failed write is logged (once per distinct error) and tried again next time."""

    def __init__(self, directory: str | Path, registry: CollectorRegistry,
                 interval_s: float = DEFAULT_TEXTFILE_INTERVAL_S) -> None:
        self.directory = Path(directory)
        self._registry = registry
        self.interval_s = max(MIN_TEXTFILE_INTERVAL_S, interval_s)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.writes = 0
        self.last_error: str | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, daemon=True,
                                            name="gpuscope-serve-textfile")
            self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def write_once(self) -> None:
        try:
            write_textfile(self.directory, self._registry)
        except TextfileError as exc:
            if str(exc) != self.last_error:
                log.warning("gpuscope serve: %s", exc)
            self.last_error = str(exc)
            return
        self.writes += 1
        self.last_error = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.write_once()
            self._stop.wait(self.interval_s)
