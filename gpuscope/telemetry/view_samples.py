"""The samples of a browsed range of a recording read on demand, read and decimated for all
of its devices at once, off the GUI thread where an executor is given.

A range too narrow for a recording's summaries needs its samples: tens of chunks decoded,
40 ms or so for an 8-GPU recording, too long for a frame. With an executor the page asks,
draws a stand-in from the finest summaries while the samples are read there, and is told
(`on_ready`, called on the worker thread) when they are ready. Without one (renders, the
CLI, tests of the frame) they are read when asked.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Executor, Future
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

Result = TypeVar("Result")


class ViewSamples(Generic[Result]):
    """The result of the last view asked for, by key, computed now or on `executor`."""

    def __init__(self, executor: Executor | None = None,
                 on_ready: Callable[[], None] | None = None) -> None:
        self.executor = executor
        self.on_ready = on_ready
        self._lock = threading.RLock()  # a cancel in get() calls _finished at once
        self._done: tuple[Hashable, Result | BaseException] | None = None
        self._pending: tuple[Hashable, Future[Result]] | None = None

    def get(self, key: Hashable, compute: Callable[[], Result]) -> Result | None:
        """The result for `key`: at once when it is at hand (or there is no executor), else
        None while `compute` runs on the executor. What `compute` raised is raised again
        for as long as the same key is asked."""
        with self._lock:
            done = self._done
            if done is None or done[0] != key:
                done = self._collect(key)
        if done is not None:
            if isinstance(done[1], BaseException):
                raise done[1]
            return done[1]
        if self.executor is None:
            result = compute()
            with self._lock:
                self._done = (key, result)
            return result
        with self._lock:
            if self._pending is not None and self._pending[0] == key:
                return None
            self._drop_pending()
            future = self.executor.submit(compute)
            self._pending = (key, future)
        future.add_done_callback(self._finished)
        return None

    @property
    def pending(self) -> bool:
        """Whether a view's samples are being read."""
        with self._lock:
            return self._pending is not None and not self._pending[1].done()

    def wait(self, timeout_s: float) -> bool:
        """Block until the view being read is ready (a render before it grabs the page);
        False when it is not within `timeout_s`."""
        with self._lock:
            pending = self._pending
        if pending is None:
            return True
        try:
            pending[1].exception(timeout=timeout_s)
        except CancelledError:
            return True
        except TimeoutError:
            return False
        return True

    def forget(self) -> None:
        """Drop what was read and what is being read (a new feed)."""
        with self._lock:
            self._done = None
            self._drop_pending()

    def _collect(self, key: Hashable) -> tuple[Hashable, Result | BaseException] | None:
        """The pending result for `key`, moved to `_done`, if it is ready (under the lock)."""
        pending = self._pending
        if pending is None or pending[0] != key or not pending[1].done():
            return None
        future = pending[1]
        self._pending = None
        try:
            self._done = (key, future.result())
        except CancelledError:
            return None
        except Exception as exc:  # kept, and raised to the frame that asks
            self._done = (key, exc)
        return self._done

    def _drop_pending(self) -> None:
        if self._pending is not None:
            self._pending[1].cancel()  # only if it has not started: else it runs out unused
            self._pending = None

    def _finished(self, future: Future[Result]) -> None:
        if future.cancelled() or self.on_ready is None:  # cancelled under the lock, in get()
            return
        with self._lock:  # a view left behind while it was read: nothing new to draw
            if self._pending is None or self._pending[1] is not future:
                return
        try:
            self.on_ready()
        except Exception:  # a worker thread has no one to raise to
            log.exception("telling the page that a view's samples are ready failed")
