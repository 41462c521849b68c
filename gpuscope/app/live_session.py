"""The machine the window shows while it runs: its inventory and the one telemetry sampler that
the Telemetry page, the Benchmarks page and the report share, and the feed the report
summarises. Qt-free: the window drives it and runs its slow steps off the GUI thread.
"""

from __future__ import annotations

import threading

from gpuscope.bench.session import BenchMachine, live_machine
from gpuscope.evidence import LiveSystem, System
from gpuscope.model import Inventory
from gpuscope.telemetry.feed import TelemetryFeed
from gpuscope.telemetry.sampler import Sampler
from gpuscope.telemetry.sources import SourceSet, build_sources


class LiveSession:
    """One inventory and at most one running sampler for the machine on show.

    `start_sampler` runs on a worker thread (opening NVML or amdsmi can take seconds);
    `close` may come meanwhile from the GUI thread, and then the late sampler is stopped
    at once instead of being kept. Everything else is thread-safe and quick."""

    def __init__(self, system: System) -> None:
        self.system = system
        self._lock = threading.Lock()
        self._closed = False
        self._starting = False
        self._inventory: Inventory | None = None
        self._sampler: Sampler | None = None
        self._sources: SourceSet | None = None
        self._feed: TelemetryFeed | None = None

    @property
    def inventory(self) -> Inventory | None:
        with self._lock:
            return self._inventory

    @property
    def sampler(self) -> Sampler | None:
        with self._lock:
            return self._sampler

    @property
    def telemetry_feed(self) -> TelemetryFeed | None:
        """What the report summarises: the feed on show (the live sampler's, or a recording
        the user opened), None before there is one."""
        with self._lock:
            return self._feed

    def set_telemetry_feed(self, feed: TelemetryFeed | None) -> None:
        with self._lock:
            self._feed = feed

    def claim_start(self) -> bool:
        """True once: the caller is to run `start_sampler` (no sampler runs or is starting)."""
        with self._lock:
            if self._closed or self._starting or self._sampler is not None:
                return False
            self._starting = True
            return True

    def start_sampler(self, inventory: Inventory, rate_hz: float) -> Sampler | None:
        """Worker thread: build a source per GPU and the host, and start sampling. None when
        the session was closed meanwhile (the sampler is stopped again)."""
        sources = build_sources(self.system, inventory)
        sampler = Sampler(sources.sources, rate_hz=rate_hz)
        sampler.start()
        with self._lock:
            self._starting = False
            if not self._closed:
                self._inventory = inventory
                self._sampler, self._sources = sampler, sources
                return sampler
        sampler.stop()
        sources.close()
        return None

    def start_failed(self) -> None:
        """`start_sampler` raised: a later `claim_start` may try again."""
        with self._lock:
            self._starting = False

    def bench_machine(self) -> BenchMachine:
        """What a benchmark run measures against. Benchmarks always run on this machine: when
        the session samples it live, the run listens to the running sampler (not owned);
        otherwise (a replay on show, no sampler yet) it reads the machine on its own."""
        with self._lock:
            sampler, inventory = self._sampler, self._inventory
        if sampler is not None and inventory is not None and isinstance(self.system, LiveSystem):
            return BenchMachine(gpus=inventory.gpus, sampler=sampler)
        return live_machine()

    def close(self) -> None:
        """Stop the sampler and close its sources; safe to call more than once, and from
        another thread than a `start_sampler` still running (that one stops its own)."""
        with self._lock:
            self._closed = True
            sampler, sources = self._sampler, self._sources
            self._sampler, self._sources, self._feed = None, None, None
        if sampler is not None:
            sampler.stop()
        if sources is not None:
            sources.close()
