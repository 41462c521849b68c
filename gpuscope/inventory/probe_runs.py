"""Running the probes: each one named by a `ProbeSpec`, all of them in parallel threads, each
bounded by a timeout, and the origin (live machine or replayed snapshot) of what they found."""

from __future__ import annotations

import datetime as _dt
import importlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gpuscope import __version__
from gpuscope.evidence import ReplaySystem, System
from gpuscope.i18n import message
from gpuscope.inventory.assembly import assemble
from gpuscope.model import (
    Inventory,
    Origin,
    OriginKind,
    ProbeResult,
    ProbeState,
    ProbeStatus,
)
from gpuscope.probes.sourced import probe_bug

log = logging.getLogger(__name__)

DEFAULT_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class ProbeSpec:
    """A probe the inventory runs: `function` is `module:attribute`, imported when first run
    so that a broken probe module becomes that probe's error, not gpuscope's crash."""

    name: str
    title: str
    function: str

    def load(self) -> Callable[[System], ProbeResult]:
        module_name, _, attribute = self.function.partition(":")
        probe: Callable[[System], ProbeResult] = getattr(
            importlib.import_module(module_name), attribute
        )
        return probe


PROBES: tuple[ProbeSpec, ...] = (
    ProbeSpec("amdgpu_sysfs", "Kernel driver (sysfs)",
              "gpuscope.probes.amdgpu_sysfs:probe_amdgpu_sysfs"),
    ProbeSpec("kfd", "KFD topology (ROCm)", "gpuscope.probes.kfd:probe_kfd"),
    ProbeSpec("amdsmi", "AMD SMI", "gpuscope.probes.amdsmi:probe_amdsmi"),
    ProbeSpec("nvml", "NVIDIA NVML", "gpuscope.probes.nvml:probe_nvml"),
    ProbeSpec("host", "Host", "gpuscope.probes.host:probe_host"),
    ProbeSpec("stack", "Stack versions", "gpuscope.probes.stack:probe_stack"),
    ProbeSpec("windows_display", "Windows display adapters",
              "gpuscope.probes.windows_display:probe_windows_display"),
    ProbeSpec("hip_sdk", "HIP SDK (Windows)", "gpuscope.probes.hip_sdk:probe_hip_sdk"),
    ProbeSpec("windows_host", "Windows host (WSL, py launcher)",
              "gpuscope.probes.windows_host:probe_windows_host"),
)


def run_probe(spec: ProbeSpec, system: System) -> ProbeResult:
    """Run one probe; whatever goes wrong comes back as that probe's error status."""
    try:
        return spec.load()(system)
    except Exception as exc:  # a probe bug must not take the others down; show it instead
        log.exception("probe %s failed", spec.name)
        return probe_bug(spec.name, message("probe failed: {error}",
                                            error=f"{type(exc).__name__}: {exc}"))


def timed_out_result(spec: ProbeSpec, timeout_s: float) -> ProbeResult:
    return ProbeResult(ProbeStatus(
        spec.name, ProbeState.TIMEOUT,
        reason=message("no answer within {seconds} s", seconds=f"{timeout_s:g}"),
        hint=message("a GPU or its driver may be hung; check the kernel log (dmesg)"),
    ))


def collect_inventory(
    system: System,
    probes: Sequence[ProbeSpec] = PROBES,
    probe_timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
) -> Inventory:
    """Run every probe in parallel, each bounded by `probe_timeout_s`, and assemble."""
    results: dict[str, ProbeResult] = {}
    durations: dict[str, float] = {}
    lock = threading.Lock()

    def work(spec: ProbeSpec) -> None:
        started = time.monotonic()
        result = run_probe(spec, system)
        with lock:
            results[spec.name] = result
            durations[spec.name] = round(time.monotonic() - started, 4)

    # Daemon threads: a probe stuck inside a vendor library cannot be cancelled, and must
    # neither block the answer nor keep the process alive at exit.
    threads = [threading.Thread(target=work, args=(spec,), daemon=True, name=f"probe-{spec.name}")
               for spec in probes]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + probe_timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    with lock:
        ordered = [results.get(spec.name) or timed_out_result(spec, probe_timeout_s)
                   for spec in probes]
        timings = dict(durations)
    return assemble(ordered, origin_for(system, timings))



def origin_for(system: System, probe_durations_s: Mapping[str, float] | None = None) -> Origin:
    durations = dict(probe_durations_s or {})
    if isinstance(system, ReplaySystem):
        meta = system.snapshot.meta
        return Origin(
            kind=OriginKind.REPLAY, source=system.source,
            captured_utc=_str_or_none(meta.get("captured_utc")),
            gpuscope_version=_str_or_none(meta.get("gpuscope_version")),
            probe_durations_s=durations,
        )
    return Origin(
        kind=system.origin_kind,
        captured_utc=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        gpuscope_version=__version__, probe_durations_s=durations,
    )


def _str_or_none(value: object) -> str | None:
    return str(value) if value is not None else None
