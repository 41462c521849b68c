"""Live host readings for the telemetry sampler: CPU load (total and per core), RAM and swap in
use, from psutil.

The only telemetry code that touches `psutil`. The module is imported once, when the reader
opens; tests pass a fake module instead. `cpu_percent(interval=None)` never blocks: it answers
for the time since the previous call, so the reader primes it at open and every tick measures
the interval since the tick before.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Collection
from typing import Any

from gpuscope.i18n import message
from gpuscope.metrics import Metric, Raw

log = logging.getLogger(__name__)

READER_NAME = "psutil"

CPU_TOTAL = Metric.HOST_CPU_PERCENT
RAM_USED = Metric.HOST_RAM_USED_BYTES
SWAP_USED = Metric.HOST_SWAP_USED_BYTES

SWAP_INTERVAL_S = 1.0


def core_metric(core: int) -> str:
    return f"cpu{core}_percent"


class HostReader:
    """Reads the host's load and memory through psutil. Never raises from `read`."""

    name = READER_NAME

    def __init__(self, psutil_module: Any | None = None) -> None:
        self.lost: str | None = None
        self.generation = 0
        self.supported: dict[str, str] = {}
        self.unsupported: dict[str, str] = {}
        self.error: str | None = None
        self._psutil: Any = psutil_module
        if self._psutil is None:
            try:
                self._psutil = importlib.import_module("psutil")
            except ImportError as exc:
                self.error = message("psutil is not installed ({error})", error=str(exc))
        self._cores = 0
        self._swap: Raw | None = None
        self._swap_at = 0.0
        if self._psutil is not None:
            self._discover()
        if self.error is not None:
            for metric in (CPU_TOTAL, RAM_USED, SWAP_USED):
                self.unsupported[metric] = self.error

    def _discover(self) -> None:
        ps = self._psutil
        try:
            # Primes both counters: the first non-blocking call has no interval to answer for.
            ps.cpu_percent(interval=None)
            per_core = ps.cpu_percent(interval=None, percpu=True)
            self._cores = len(per_core)
            self.supported[CPU_TOTAL] = "psutil.cpu_percent()"
            for core in range(self._cores):
                self.supported[core_metric(core)] = f"psutil.cpu_percent(percpu=True)[{core}]"
        except Exception as exc:  # psutil raises per-platform errors; keep the reason
            self.unsupported[CPU_TOTAL] = _failed("psutil.cpu_percent()", exc)
        for metric, call, source in (
            (RAM_USED, "virtual_memory", "psutil.virtual_memory() total - available"),
            (SWAP_USED, "swap_memory", "psutil.swap_memory().used"),
        ):
            try:
                getattr(ps, call)()
                self.supported[metric] = source
            except Exception as exc:  # as above
                self.unsupported[metric] = _failed(f"psutil.{call}()", exc)
        for name, reason in self.unsupported.items():
            log.info("host: %s not available: %s", name, reason)

    @property
    def core_count(self) -> int:
        return self._cores

    def metrics(self) -> tuple[str, ...]:
        cores = tuple(core_metric(core) for core in range(self._cores))
        return (CPU_TOTAL, *cores, RAM_USED, SWAP_USED)

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        ps = self._psutil
        out: dict[str, Raw] = {}
        if ps is None:
            return out
        wanted = set(metrics)
        if CPU_TOTAL in wanted:
            out[CPU_TOTAL] = _call(lambda: float(ps.cpu_percent(interval=None)),
                                   self.supported.get(CPU_TOTAL, "psutil.cpu_percent()"))
        if self._cores and any(m.startswith("cpu") and m != CPU_TOTAL for m in wanted):
            try:
                per_core = ps.cpu_percent(interval=None, percpu=True)
            except Exception as exc:  # the reason goes to every core's reading
                reason = _failed("psutil.cpu_percent(percpu=True)", exc)
                for core in range(self._cores):
                    out[core_metric(core)] = (None, reason)
            else:
                for core in range(self._cores):
                    metric = core_metric(core)
                    if metric in wanted:
                        out[metric] = ((float(per_core[core]), self.supported[metric])
                                       if core < len(per_core) else
                                       (None, message("CPU core {core} went offline",
                                                      core=core)))
        if RAM_USED in wanted:
            def ram() -> float:
                memory = ps.virtual_memory()
                return float(memory.total - memory.available)

            out[RAM_USED] = _call(ram, self.supported.get(RAM_USED, "psutil.virtual_memory()"))
        if SWAP_USED in wanted:
            now = time.monotonic()
            if self._swap is None or now - self._swap_at >= SWAP_INTERVAL_S:
                # Swap moves slowly and psutil reads two /proc files for it: once a second.
                self._swap = _call(lambda: float(ps.swap_memory().used),
                                   self.supported.get(SWAP_USED, "psutil.swap_memory()"))
                self._swap_at = now
            out[SWAP_USED] = self._swap
        return out

    def close(self) -> None:
        """psutil holds nothing open."""


def _call(function: Any, source: str) -> Raw:
    try:
        return float(function()), source
    except Exception as exc:  # one reading's failure is that reading's missing reason
        return None, _failed(source, exc)


def _failed(call: str, exc: BaseException) -> str:
    return message("{call} failed: {error}", call=call, error=_describe(exc))


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
