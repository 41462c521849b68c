"""Work off the GUI thread: one relay that carries a worker thread's answers to the GUI thread,
and `BackgroundTask`, which runs one function at a time on a daemon thread.

Widgets are touched only on the GUI thread; a worker only calls `Relay.send`, which is safe
from any thread and says False once the receiving window is gone.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

log = logging.getLogger(__name__)

# The test guards look for live threads by this prefix (loader.live_probe_threads).
THREAD_NAME_PREFIX = "gpuscope-probe-"


class Relay(QObject):
    """Carries `(generation, payload)` from worker threads to `receiver` on the GUI thread
    (queued). It is a child of its owner, so the owner's thread deletes it, never a worker.
    The generation lets the receiver drop answers of work it has left behind."""

    delivered = Signal(int, object)

    def __init__(self, receiver: Callable[[int, Any], None], parent: QObject) -> None:
        super().__init__(parent)
        self.delivered.connect(receiver, Qt.ConnectionType.QueuedConnection)

    def send(self, generation: int, payload: object) -> bool:
        """From any thread. False when the receiver's window has been destroyed."""
        try:
            self.delivered.emit(generation, payload)
        except RuntimeError:  # the window, and with it the relay, is already gone
            return False
        return True


class BackgroundTask(QObject):
    """Runs one function at a time in a daemon thread named `gpuscope-probe-<name>` (so the
    test guards see it) and emits `done(result)` or `failed(message)` on the GUI thread.
    A task started while another runs, or `cancel()`, makes the earlier answer ignored."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._generation = 0
        self._running = False
        self._relay = Relay(self._on_answer, self)

    @property
    def is_running(self) -> bool:
        return self._running

    def start(self, function: Callable[..., Any], *args: Any) -> None:
        self._generation += 1
        self._running = True
        thread = threading.Thread(
            target=_run_task, args=(function, args, self._relay, self._generation),
            name=f"{THREAD_NAME_PREFIX}{self._name}", daemon=True,
        )
        thread.start()

    def cancel(self) -> None:
        self._generation += 1
        self._running = False

    @Slot(int, object)
    def _on_answer(self, generation: int, answer: tuple[object, str | None]) -> None:
        if generation != self._generation:
            log.debug("ignoring a late answer of %s", self._name)
            return
        self._running = False
        result, error = answer
        if error is not None:
            self.failed.emit(error)
        else:
            self.done.emit(result)


def _run_task(function: Callable[..., Any], args: tuple[Any, ...], relay: Relay,
              generation: int) -> None:
    """Worker thread: never touches a widget."""
    result: object = None
    error: str | None = None
    try:
        result = function(*args)
    except Exception as exc:  # shown to the user as the task's failure, not a crash
        log.exception("background task failed")
        error = f"{type(exc).__name__}: {exc}"
    if not relay.send(generation, (result, error)):
        log.debug("a background task answered after its window closed")
