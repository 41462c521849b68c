"""Fake probes for the window tests, loaded by spec string ("slow_probes:slow_probe").

tests/ui is on sys.path (tests/ui/conftest.py puts it there), so the loader's
`importlib.import_module("slow_probes")` and the tests' `import slow_probes` are one module,
and the events below are shared.
"""

from __future__ import annotations

import threading
import time

from gpuscope.evidence import System
from gpuscope.inventory import ProbeSpec
from gpuscope.model import (
    GpuFacts,
    GpuSighting,
    Layer,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Vendor,
)

SLOW_PROBE_S = 2.0

# Set by the hanging probe when it starts; the test sets `release` to let it answer.
hang_started = threading.Event()
release = threading.Event()

SLOW = ProbeSpec("slow", "Slow fake probe", "slow_probes:slow_probe")
HANG = ProbeSpec("hang", "Hanging fake probe", "slow_probes:hanging_probe")
FAST = ProbeSpec("fast", "Fast fake probe", "slow_probes:fast_probe")


def slow_probe(system: System) -> ProbeResult:
    time.sleep(SLOW_PROBE_S)
    return ProbeResult(ProbeStatus("slow", ProbeState.OK, reason=f"slept {SLOW_PROBE_S:g} s"))


def fast_probe(system: System) -> ProbeResult:
    return ProbeResult(ProbeStatus("fast", ProbeState.OK, reason="answered at once"))


def hanging_probe(system: System) -> ProbeResult:
    """Blocks until released (30 s at most), then answers with a GPU: if that late answer
    were taken, a card would appear."""
    hang_started.set()
    release.wait(timeout=30)
    sighting = GpuSighting(Layer.NVML, GpuFacts(vendor=Vendor.NVIDIA, name="Late GPU",
                                                pci_bus="0000:99:00.0"))
    return ProbeResult(ProbeStatus("hang", ProbeState.OK, reason="answered late"),
                       sightings=(sighting,))
