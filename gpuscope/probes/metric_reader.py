"""What the telemetry sampler asks of a reader: one device seen through one vendor library
(NVML, amdsmi), the kernel's files (amdgpu sysfs) or psutil (the host).

A reader finds once which metrics it can give (`supported`: metric -> source) and why not
the others (`unsupported`: metric -> reason); `read` then gives each asked metric's value
with its source, or the reason it is missing this tick, and never raises. A reader whose
device is gone says why in `lost`. `generation` changes whenever `supported` does, so that a
source re-plans which reader gives what.

A reader may also have `background(now)` (slow work off the fast path) and `processes()`
(the processes on its GPU); the source looks for them with getattr.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Protocol

from gpuscope.i18n import message
from gpuscope.metrics import Raw
from gpuscope.probes.sourced import sourced

log = logging.getLogger(__name__)


class MetricReader(Protocol):
    """A vendor library's or the kernel's view of one device."""

    name: str
    supported: dict[str, str]
    unsupported: dict[str, str]
    lost: str | None
    generation: int

    def read(self, metrics: Collection[str]) -> dict[str, Raw]: ...

    def close(self) -> None: ...


class LibraryDeviceReader:
    """What the vendor-library readers (NVML, amdsmi) share: their capabilities, the query
    (by its label) that gives each metric, asking each query once a tick, and giving a query
    up for good. A subclass says how a failure reads (`_failure_reason`), whether it is for good
    (`_failure_is_permanent`) and whether it means the GPU is lost (`_lost_by`)."""

    library = ""  # as logged: "NVML", "amdsmi"
    # Why an answer without a value is missing: N_("NVML gave no value") (marked with N_).
    no_value = ""

    def __init__(self, bus: str) -> None:
        self.bus = bus
        self.lost: str | None = None
        self.generation = 0  # bumps whenever `supported` changes
        self.supported: dict[str, str] = {}  # metric -> source
        self.unsupported: dict[str, str] = {}  # metric -> why
        self._metric_query: dict[str, str] = {}  # metric -> label of the query giving it
        self._active: dict[str, Callable[[], dict[str, float | None]]] = {}  # label -> ask

    def _give_up(self, metrics: Collection[str], reason: str) -> None:
        for metric in metrics:
            self.unsupported[metric] = reason
            self.supported.pop(metric, None)
            self._metric_query.pop(metric, None)

    def _log_unsupported(self) -> None:
        for metric, reason in self.unsupported.items():
            log.info("%s GPU %s: %s not available: %s", self.library, self.bus, metric, reason)

    def _query_failed(self, label: str, reason: str, permanent: bool,
                      out: dict[str, Raw]) -> None:
        """A query that failed this tick: its metrics are missing for `reason`; one that
        failed `permanent`ly is dropped, and its metrics are unsupported from now on."""
        query_metrics = [m for m, q in self._metric_query.items() if q == label]
        if permanent:
            log.info("%s GPU %s: %s no longer available: %s", self.library, self.bus,
                     ", ".join(query_metrics), reason)
            self._give_up(query_metrics, reason)
            self._active.pop(label, None)
            self.generation += 1
        for metric in query_metrics:
            out[metric] = (None, reason)

    def _failure_reason(self, exc: BaseException) -> str:
        raise NotImplementedError

    def _failure_is_permanent(self, exc: BaseException) -> bool:
        raise NotImplementedError

    def _lost_by(self, exc: BaseException) -> bool:
        """Whether `exc` says the GPU is gone (and sets `lost`)."""
        return False

    def _read_queries(self, metrics: Collection[str], out: dict[str, Raw]) -> dict[str, Raw]:
        """`out` with the metrics it lacks asked of their queries, each query once."""
        labels = dict.fromkeys(label for metric in metrics if metric not in out
                               if (label := self._metric_query.get(metric)) is not None)
        for label in labels:
            ask = self._active.get(label)
            if ask is None:
                continue
            try:
                values = ask()
            except Exception as exc:  # one query's failure is its metrics' missing reason
                if self._lost_by(exc):
                    return {metric: (None, self.lost or "") for metric in metrics}
                self._query_failed(label, message("{source}: {reason}", source=label,
                                                  reason=self._failure_reason(exc)),
                                   self._failure_is_permanent(exc), out)
                continue
            for metric, value in values.items():
                if metric in self._metric_query:
                    out[metric] = sourced(value, label, message(self.no_value))
        return out
