"""The Telemetry page's reading of a browsed range's samples on a worker thread: a
`ViewSamples` with a one-thread executor, whose answers reach the GUI thread as `ready`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from gpuscope.telemetry.frame import FrameModel, ViewCurves
from gpuscope.telemetry.view_samples import ViewSamples
from gpuscope.ui.background import Relay


class BackgroundViewReader(QObject):
    """Becomes `frame.view_samples`; `ready` (on the GUI thread) when the samples of the view
    asked for last are read. `shutdown()` drops the reading."""

    ready = Signal()

    def __init__(self, parent: QObject, frame: FrameModel) -> None:
        super().__init__(parent)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpuscope-view")
        self._relay = Relay(lambda _generation, _payload: self.ready.emit(), self)
        self.samples: ViewSamples[ViewCurves] = ViewSamples(self._executor,
                                                            on_ready=self._send_ready)
        frame.view_samples = self.samples

    def _send_ready(self) -> None:  # on the worker thread
        self._relay.send(0, None)

    def shutdown(self) -> None:
        """Stop reading off the thread (the window closes): a frame drawn after this reads
        its samples when it asks, as renders do."""
        self.samples.executor = None
        self.samples.forget()
        self._executor.shutdown(wait=False, cancel_futures=True)
