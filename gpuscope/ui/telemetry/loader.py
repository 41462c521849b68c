"""Opening a recording off the GUI thread: a long one takes seconds to read and summarise.

`RecordingLoader.start(path)` reads it on a daemon thread named like the window's probe
threads (so the test guards see it) and answers on the GUI thread through queued signals:
`progress(fraction, what)` at most about 20 times a second, then `loaded(path, feed)` or
`failed(path, reason)`. Starting another load or `cancel()` makes the thread stop at its next
series and its answer ignored.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal, Slot

from gpuscope.telemetry.feed import RingFeed
from gpuscope.telemetry.feed_adapters import LoadProgress, load_recording_feed
from gpuscope.telemetry.recorder import LoadCancelled, RecordingError
from gpuscope.telemetry.texts import LabelText
from gpuscope.ui.loader import THREAD_NAME_PREFIX
from gpuscope.ui.telemetry.texts import shown

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_S = 0.05
# load(path, progress, cancelled) -> feed: `load_recording_feed`, or a test's stand-in.
FeedLoader = Callable[[str, LoadProgress, Callable[[], bool]], RingFeed]


class _Relay(QObject):
    progressed = Signal(int, float, str)  # generation, fraction, what
    answered = Signal(int, str, object, str)  # generation, path, feed or None, error


class RecordingLoader(QObject):
    """Loads one recording at a time into a `RingFeed`, off the GUI thread."""

    progress = Signal(float, str)
    loaded = Signal(str, object)  # path, RingFeed
    failed = Signal(str, str)  # path, one-line reason

    def __init__(self, parent: QObject | None = None,
                 load: FeedLoader | None = None) -> None:
        super().__init__(parent)
        self._load: FeedLoader = load or _load
        self._generation = 0
        self._cancel: threading.Event | None = None
        self._path: str | None = None
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._relay.answered.connect(self._on_answer, Qt.ConnectionType.QueuedConnection)

    @property
    def is_running(self) -> bool:
        return self._path is not None

    @property
    def path(self) -> str | None:
        """The recording being loaded, or None."""
        return self._path

    def start(self, path: str | Path) -> None:
        """Load `path`; a load still running is cancelled."""
        self.cancel()
        self._generation += 1
        self._path = str(path)
        cancel = self._cancel = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(self._generation, self._path, cancel),
            name=f"{THREAD_NAME_PREFIX}recording", daemon=True)
        thread.start()

    def cancel(self) -> None:
        """Stop the load in progress (at its next series) and ignore its answer."""
        if self._cancel is not None:
            self._cancel.set()
            self._cancel = None
        self._generation += 1
        self._path = None

    def _run(self, generation: int, path: str, cancel: threading.Event) -> None:
        """Worker thread: never touches a widget."""
        relay = self._relay
        last = 0.0

        def progress(fraction: float, what: LabelText) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PROGRESS_INTERVAL_S or fraction >= 1.0:
                last = now
                try:
                    relay.progressed.emit(generation, fraction, shown(what))
                except RuntimeError:  # the page is gone
                    cancel.set()

        feed: RingFeed | None = None
        error = ""
        try:
            feed = self._load(path, progress, cancel.is_set)
        except LoadCancelled:
            return
        except RecordingError as exc:
            error = str(exc)
        except MemoryError:
            error = f"{path} is too large to load into memory"
        except Exception as exc:  # shown as the load's failure, not a crash
            log.exception("loading recording %s failed", path)
            error = f"{type(exc).__name__}: {exc}"
        try:
            relay.answered.emit(generation, path, feed, error)
        except RuntimeError:
            log.debug("a recording finished loading after its page closed")

    @Slot(int, float, str)
    def _on_progress(self, generation: int, fraction: float, what: str) -> None:
        if generation == self._generation:
            self.progress.emit(fraction, what)

    @Slot(int, str, object, str)
    def _on_answer(self, generation: int, path: str, feed: object, error: str) -> None:
        if generation != self._generation:
            return
        self._path = None
        self._cancel = None
        if isinstance(feed, RingFeed) and not error:
            self.loaded.emit(path, feed)
        else:
            self.failed.emit(path, error or "the recording could not be read")


def _load(path: str, progress: LoadProgress, cancelled: Callable[[], bool]) -> RingFeed:
    return load_recording_feed(path, progress, cancelled)
