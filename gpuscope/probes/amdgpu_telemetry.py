"""Live amdgpu readings for the telemetry sampler, from the driver's sysfs and hwmon files
(read through `System`, so a replayed snapshot gives its recorded values). Needs no ROCm.

`AmdgpuSysfsReader` finds every path once (the hwmon directory, the temperature labels, the
PCIe link behind AMD's on-board switch) and checks it by a trial read; a tick then reads only
the files that answered, at their resolved paths (no symlink walk per tick).

Units (amdgpu_pm.c, https://docs.kernel.org/gpu/amdgpu/thermal.html): temperatures in
millidegrees C, power in µW, hwmon clocks in Hz, pwm1 0-255; memory in bytes.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Collection
from dataclasses import dataclass

from gpuscope.evidence import FileRead, OpenFile, System
from gpuscope.i18n import N_, join, message
from gpuscope.metrics import GPU_METRICS, Metric, Raw
from gpuscope.model import pcie_generation
from gpuscope.probes.amdgpu_sysfs import (
    DRM_CLASS,
    current_dpm_mhz,
    hwmon_dirs,
    parse_int,
    parse_link_speed,
    parse_link_width,
    read_pcie_link,
)
from gpuscope.probes.sourced import sourced

log = logging.getLogger(__name__)

READER_NAME = "sysfs"
_GPU_METRIC_IDS: tuple[str, ...] = tuple(m.value for m in GPU_METRICS)

@dataclass(frozen=True, slots=True)
class _SysfsEntry:
    metric: str
    read: Callable[[], FileRead]  # reads the resolved path: no symlink walk per tick
    source: str  # shown: the /sys/class/drm/cardN/device/... path and its unit
    parse: Callable[[str], float | None]


def _int_scaled(scale: float) -> Callable[[str], float | None]:
    def parse(text: str) -> float | None:
        value = parse_int(text)
        return value * scale if value is not None else None
    return parse


def _dpm_current(text: str) -> float | None:
    return current_dpm_mhz(text)


def _link_generation(text: str) -> float | None:
    generation = pcie_generation(parse_link_speed(text))
    return float(generation) if generation is not None else None


def _link_width(text: str) -> float | None:
    value = parse_link_width(text)
    return float(value) if value is not None else None


_HWMON_TEMP_LABELS = {"edge": Metric.TEMP_EDGE_C, "junction": Metric.TEMP_JUNCTION_C,
                      "hotspot": Metric.TEMP_JUNCTION_C, "mem": Metric.TEMP_MEMORY_C,
                      "memory": Metric.TEMP_MEMORY_C, "vram": Metric.TEMP_MEMORY_C}
_GONE_ERRORS = frozenset({"ENOENT", "ENODEV", "EIO", "ENXIO"})
REASON_SYSFS_GONE = N_("GPU fell off the bus (its sysfs files are gone: {error})")


class AmdgpuSysfsReader:
    """amdgpu's sysfs and hwmon files of one card, read through `System`. Every path is found
    once (hwmon directory, temperature labels, the PCIe link behind AMD's on-board switch) and
    checked by a trial read; a tick reads only the files that answered."""

    name = READER_NAME

    def __init__(self, system: System, card: str) -> None:
        self._system = system
        self.card = card
        self.lost: str | None = None
        self.generation = 1
        self.supported: dict[str, str] = {}
        self.unsupported: dict[str, str] = {}
        self._entries: dict[str, _SysfsEntry] = {}
        self._open_files: list[OpenFile] = []
        self._static: dict[str, Raw] = {}
        self._discover()

    def _discover(self) -> None:
        system = self._system
        base = f"{DRM_CLASS}/{self.card}/device"
        real = system.realpath(base)
        candidates: list[tuple[str, str, str, Callable[[str], float | None], str]] = [
            # (metric, file relative to the device, unit note, parser, "static" or "")
            (Metric.GPU_UTIL_PERCENT, "gpu_busy_percent", "%", _int_scaled(1.0), ""),
            (Metric.VRAM_USED_BYTES, "mem_info_vram_used", "bytes", _int_scaled(1.0), ""),
            (Metric.VRAM_TOTAL_BYTES, "mem_info_vram_total", "bytes", _int_scaled(1.0), "static"),
            (Metric.GTT_USED_BYTES, "mem_info_gtt_used", "bytes", _int_scaled(1.0), ""),
        ]
        hwmons = hwmon_dirs(system, real)
        hwmon = hwmons[0][len(real) + 1:] if hwmons else None
        if hwmon is not None:
            temps: dict[str, str] = {}
            for index in (1, 2, 3):
                label = (system.read_text(f"{real}/{hwmon}/temp{index}_label").stripped()
                         or "").lower()
                sensor = _HWMON_TEMP_LABELS.get(label) or (
                    Metric.TEMP_EDGE_C if index == 1 else None)
                if sensor and sensor not in temps:
                    temps[sensor] = f"{hwmon}/temp{index}_input"
            candidates += [(metric, path, "millidegrees C", _int_scaled(1e-3), "")
                           for metric, path in temps.items()]
            candidates += [
                # power1_input (instantaneous) where the kernel has it, else the average.
                (Metric.POWER_W, f"{hwmon}/power1_input", "µW", _int_scaled(1e-6), ""),
                (Metric.POWER_W, f"{hwmon}/power1_average", "µW", _int_scaled(1e-6), ""),
                (Metric.POWER_CAP_W, f"{hwmon}/power1_cap", "µW", _int_scaled(1e-6), ""),
                (Metric.SCLK_MHZ, f"{hwmon}/freq1_input", "Hz", _int_scaled(1e-6), ""),
                (Metric.MCLK_MHZ, f"{hwmon}/freq2_input", "Hz", _int_scaled(1e-6), ""),
                (Metric.FAN_RPM, f"{hwmon}/fan1_input", "RPM", _int_scaled(1.0), ""),
                (Metric.FAN_PERCENT, f"{hwmon}/pwm1", "PWM 0-255", _int_scaled(100.0 / 255.0), ""),
            ]
        candidates += [
            (Metric.SCLK_MHZ, "pp_dpm_sclk", "level marked *", _dpm_current, ""),
            (Metric.MCLK_MHZ, "pp_dpm_mclk", "level marked *", _dpm_current, ""),
        ]
        link_dir = self._link_dir(real)
        if link_dir is not None:
            candidates += [
                (Metric.PCIE_GEN, posixpath.join(link_dir, "current_link_speed"), "GT/s",
                 _link_generation, ""),
                (Metric.PCIE_WIDTH, posixpath.join(link_dir, "current_link_width"), "lanes",
                 _link_width, ""),
            ]

        tried: dict[str, list[str]] = {}
        why: str
        for metric, relative, unit, parse, static in candidates:
            if metric in self.supported:
                continue
            path = relative if relative.startswith("/") else f"{real}/{relative}"
            shown = relative if relative.startswith("/") else f"{base}/{relative}"
            read = system.read_text(path)
            text = read.stripped()
            value = parse(text) if text is not None else None
            if value is None:
                why = read.error or (message("empty") if not text else
                                     message("not a value: {text!r}", text=text[:40]))
                tried.setdefault(metric, []).append(message("{source}: {reason}", source=shown,
                                                            reason=why))
                continue
            source = f"{shown} ({unit})"
            self.supported[metric] = source
            if static:
                self._static[metric] = (value, source)
            else:
                self._entries[metric] = _SysfsEntry(metric, self._reader_of(path), source, parse)
        no_hwmon = message("{path}/hwmon has no hwmon* directory", path=base)
        for metric in _GPU_METRIC_IDS:
            if metric in self.supported:
                continue
            reasons = tried.get(metric)
            if reasons:
                self.unsupported[metric] = join("; ", reasons)
            elif metric.startswith(("temp_", "power", "fan_")) and hwmon is None:
                self.unsupported[metric] = no_hwmon
            elif metric in (Metric.PCIE_RX_BYTES_S, Metric.PCIE_TX_BYTES_S,
                            Metric.PCIE_BANDWIDTH_BYTES_S):
                # Reading pcie_bw makes the driver count for a whole second.
                self.unsupported[metric] = message("amdgpu's pcie_bw file blocks for a second "
                                                   "per read, so it is not sampled")
            elif metric == Metric.THROTTLE_REASONS:
                self.unsupported[metric] = message("amdgpu shows it only in its binary "
                                                   "gpu_metrics table (amdsmi reads it)")
            elif metric.startswith("pcie_"):
                self.unsupported[metric] = message(
                    "{path}: no PCIe link attributes (no external link)", path=base)
            elif metric == Metric.TEMP_JUNCTION_C or metric == Metric.TEMP_MEMORY_C:
                self.unsupported[metric] = message(
                    "amdgpu reports this sensor only on SOC15 dGPUs")
            else:
                self.unsupported[metric] = message("amdgpu has no sysfs file for it")
        for metric, reason in self.unsupported.items():
            log.debug("sysfs %s: %s not available: %s", self.card, metric, reason)

    def _reader_of(self, path: str) -> Callable[[], FileRead]:
        """How a tick reads `path`: kept open and read from its start where the system can
        (one system call a reading, as sysfs monitors do)."""
        handle = self._system.open_file(path)
        self._open_files.append(handle)
        return handle.read

    def _link_dir(self, real: str) -> str | None:
        link, source = read_pcie_link(self._system, real)
        if link is None:
            return None
        return source.split("/current_link_speed", 1)[0]

    def read(self, metrics: Collection[str]) -> dict[str, Raw]:
        out: dict[str, Raw] = {}
        attempted = failed = 0
        gone: str | None = None
        for metric in metrics:
            static = self._static.get(metric)
            if static is not None:
                out[metric] = static
                continue
            entry = self._entries.get(metric)
            if entry is None:
                continue
            attempted += 1
            result = entry.read()
            text = result.text
            value = entry.parse(text) if text is not None and result.error is None else None
            if value is None:
                failed += 1
                if result.error in _GONE_ERRORS:
                    gone = result.error
            out[metric] = sourced(value, entry.source, result.error or message("not a value"))
        if attempted and failed == attempted and gone is not None:
            self.lost = message(REASON_SYSFS_GONE, error=gone)
        elif failed < attempted:
            self.lost = None
        return out

    def close(self) -> None:
        """Closes the files kept open."""
        handles, self._open_files = self._open_files, []
        for handle in handles:
            handle.close()


