"""The one catalogue of live metrics: what each is, its unit and range. Charts, tables,
recordings and exports are all driven from it, so a metric is never a bare string."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

# One reading: (value, source) when read, (None, why it is missing) when not.
Raw = tuple[float | None, str]


class MetricKind(str, enum.Enum):
    PERCENT = "percent"
    BYTES = "bytes"
    TEMPERATURE = "temperature"
    POWER = "power"
    CLOCK = "clock"
    FAN = "fan"
    LINK = "link"
    COUNT = "count"
    FLAGS = "flags"  # a set of reasons (ThrottleReason bits), shown as words, not charted


class Metric(str, enum.Enum):
    """Metric ids: stable strings, used as column names in recordings and CSV exports. A member
    reads as its id wherever a string is made of it (str(), f-strings, %s)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    GPU_UTIL_PERCENT = "gpu_util_percent"
    VRAM_USED_BYTES = "vram_used_bytes"
    VRAM_TOTAL_BYTES = "vram_total_bytes"
    GTT_USED_BYTES = "gtt_used_bytes"
    TEMP_EDGE_C = "temp_edge_c"
    TEMP_JUNCTION_C = "temp_junction_c"  # AMD junction, NVIDIA hotspot
    TEMP_MEMORY_C = "temp_memory_c"
    POWER_W = "power_w"
    POWER_CAP_W = "power_cap_w"
    SCLK_MHZ = "sclk_mhz"  # graphics clock
    MCLK_MHZ = "mclk_mhz"  # memory clock
    FAN_RPM = "fan_rpm"
    FAN_PERCENT = "fan_percent"
    PCIE_GEN = "pcie_gen"
    PCIE_WIDTH = "pcie_width"
    PCIE_RX_BYTES_S = "pcie_rx_bytes_s"
    PCIE_TX_BYTES_S = "pcie_tx_bytes_s"
    HOST_CPU_PERCENT = "host_cpu_percent"
    HOST_RAM_USED_BYTES = "host_ram_used_bytes"
    HOST_SWAP_USED_BYTES = "host_swap_used_bytes"
    # Added with the sampler: amdsmi's combined PCIe bandwidth (both directions), and why the
    # clocks are held back (ThrottleReason bits).
    PCIE_BANDWIDTH_BYTES_S = "pcie_bandwidth_bytes_s"
    THROTTLE_REASONS = "throttle_reasons"


@dataclass(frozen=True, slots=True)
class MetricInfo:
    metric: Metric
    label: str
    unit: str  # as shown: "%", "GiB", "°C", "W", "MHz", "RPM", "B/s"
    kind: MetricKind
    # Display range; None where it depends on the device (VRAM total, power cap).
    minimum: float | None = 0.0
    maximum: float | None = None
    # Scale from the stored SI value to the shown unit (bytes -> GiB).
    display_scale: float = 1.0
    # A reading at or above this is drawn in the warning colour (junction temperature).
    warn_at: float | None = None
    host: bool = False  # a host metric, not per GPU


_GIB = 1.0 / 2**30

CATALOGUE: dict[Metric, MetricInfo] = {info.metric: info for info in (
    MetricInfo(Metric.GPU_UTIL_PERCENT, "GPU utilization", "%", MetricKind.PERCENT, 0, 100),
    MetricInfo(Metric.VRAM_USED_BYTES, "VRAM used", "GiB", MetricKind.BYTES,
               display_scale=_GIB),
    MetricInfo(Metric.VRAM_TOTAL_BYTES, "VRAM total", "GiB", MetricKind.BYTES,
               display_scale=_GIB),
    MetricInfo(Metric.GTT_USED_BYTES, "GTT used (system memory)", "GiB", MetricKind.BYTES,
               display_scale=_GIB),
    MetricInfo(Metric.TEMP_EDGE_C, "Temperature (edge)", "°C", MetricKind.TEMPERATURE, 0, 110),
    # amdgpu throttles at 110 °C junction on RDNA; 95 °C is a sensible early warning.
    MetricInfo(Metric.TEMP_JUNCTION_C, "Temperature (junction/hotspot)", "°C",
               MetricKind.TEMPERATURE, 0, 115, warn_at=95.0),
    MetricInfo(Metric.TEMP_MEMORY_C, "Temperature (memory)", "°C", MetricKind.TEMPERATURE,
               0, 115, warn_at=95.0),
    MetricInfo(Metric.POWER_W, "Power", "W", MetricKind.POWER),
    MetricInfo(Metric.POWER_CAP_W, "Power cap", "W", MetricKind.POWER),
    MetricInfo(Metric.SCLK_MHZ, "Graphics clock", "MHz", MetricKind.CLOCK),
    MetricInfo(Metric.MCLK_MHZ, "Memory clock", "MHz", MetricKind.CLOCK),
    MetricInfo(Metric.FAN_RPM, "Fan", "RPM", MetricKind.FAN),
    MetricInfo(Metric.FAN_PERCENT, "Fan", "%", MetricKind.PERCENT, 0, 100),
    MetricInfo(Metric.PCIE_GEN, "PCIe generation", "", MetricKind.LINK, 0, 6),
    MetricInfo(Metric.PCIE_WIDTH, "PCIe width", "lanes", MetricKind.LINK, 0, 16),
    MetricInfo(Metric.PCIE_RX_BYTES_S, "PCIe receive", "MB/s", MetricKind.LINK,
               display_scale=1e-6),
    MetricInfo(Metric.PCIE_TX_BYTES_S, "PCIe transmit", "MB/s", MetricKind.LINK,
               display_scale=1e-6),
    MetricInfo(Metric.PCIE_BANDWIDTH_BYTES_S, "PCIe bandwidth (both directions)", "MB/s",
               MetricKind.LINK, display_scale=1e-6),
    MetricInfo(Metric.THROTTLE_REASONS, "Throttling", "", MetricKind.FLAGS, None, None),
    MetricInfo(Metric.HOST_CPU_PERCENT, "Host CPU", "%", MetricKind.PERCENT, 0, 100,
               host=True),
    MetricInfo(Metric.HOST_RAM_USED_BYTES, "Host RAM used", "GiB", MetricKind.BYTES,
               display_scale=_GIB, host=True),
    MetricInfo(Metric.HOST_SWAP_USED_BYTES, "Host swap used", "GiB", MetricKind.BYTES,
               display_scale=_GIB, host=True),
)}

GPU_METRICS: tuple[Metric, ...] = tuple(m for m, info in CATALOGUE.items() if not info.host)
HOST_METRICS: tuple[Metric, ...] = tuple(m for m, info in CATALOGUE.items() if info.host)


@dataclass(frozen=True, slots=True)
class Reading:
    """One metric's value at one tick, with where it came from, or why it is missing."""

    value: float | None
    source: str | None = None  # "amdsmi", "sysfs:/sys/class/drm/card1/device/gpu_busy_percent"
    missing_reason: str | None = None


HOST_DEVICE = "host"


def series_name(device: str, metric: Metric | str) -> str:
    """The series id in ring buffers, recordings and exports: "<device>/<metric>", where the
    device is a GPU's PCI bus address (stable across runs) or "host"; per-core host CPU
    series are "host/cpu<N>_percent"."""
    return f"{device}/{metric.value if isinstance(metric, Metric) else metric}"


def split_series_name(name: str) -> tuple[str, str]:
    device, _, metric = name.rpartition("/")
    return device, metric


# ------------------------------------------------------------------- added for the sampler


class ThrottleReason(enum.IntFlag):
    """Why a GPU's clocks are held back, vendor-neutral. The THROTTLE_REASONS series holds these
    bits as a number; the vendor readers map NVML's clocks-event reasons and amdgpu's
    ASIC-independent throttler bits (SMU_THROTTLER_*) onto them."""

    POWER = 1  # power cap / package power tracking
    THERMAL = 2  # a temperature limit
    CURRENT = 4  # a current limit (AMD TDC/EDC)
    HARDWARE = 8  # hardware slowdown: VR hot, PROCHOT, power brake
    SETTING = 16  # application clocks, sync boost, display clock
    IDLE = 32  # nothing to do (NVIDIA reports idle as a reason)
    OTHER = 64  # a reason gpuscope does not name


_THROTTLE_WORDS: dict[ThrottleReason, str] = {
    ThrottleReason.POWER: "power cap",
    ThrottleReason.THERMAL: "thermal",
    ThrottleReason.CURRENT: "current limit",
    ThrottleReason.HARDWARE: "hardware slowdown",
    ThrottleReason.SETTING: "clock setting",
    ThrottleReason.IDLE: "idle",
    ThrottleReason.OTHER: "other",
}


def throttle_reason_names(value: float | None) -> tuple[str, ...]:
    """The words for a THROTTLE_REASONS value: 3.0 -> ("power cap", "thermal"); () for none,
    NaN or None."""
    if value is None or value != value or value < 0:
        return ()
    bits = int(value)
    return tuple(word for flag, word in _THROTTLE_WORDS.items() if bits & flag.value)


def cpu_core_metric(core: int) -> str:
    """The metric id of one host CPU core's load: "cpu3_percent" (series "host/cpu3_percent")."""
    return f"cpu{core}_percent"


# Units of the stored (SI) values, by the suffix of the metric id: a recording's and a CSV's
# unit, where MetricInfo.unit is the unit as shown (GiB, MB/s).
_STORED_UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_bytes_s", "B/s"), ("_bytes", "B"), ("_percent", "%"), ("_c", "°C"), ("_w", "W"),
    ("_mhz", "MHz"), ("_rpm", "RPM"),
)


def stored_unit(metric: Metric | str) -> str:
    """The unit of a metric's values in rings, recordings and exports: "power_w" -> "W",
    "vram_used_bytes" -> "B", "cpu3_percent" -> "%", "pcie_width" -> "lanes"."""
    metric_id = metric.value if isinstance(metric, Metric) else metric
    for suffix, unit in _STORED_UNIT_SUFFIXES:
        if metric_id.endswith(suffix):
            return unit
    try:
        info = CATALOGUE[Metric(metric_id)]
    except ValueError:
        return ""
    return info.unit if info.display_scale == 1.0 else ""


def metric_label(metric: Metric | str) -> str:
    """A human label for any metric id, per-core CPU series included."""
    metric_id = metric.value if isinstance(metric, Metric) else metric
    try:
        return CATALOGUE[Metric(metric_id)].label
    except ValueError:
        if metric_id.startswith("cpu") and metric_id.endswith("_percent"):
            return f"Host CPU core {metric_id[3:-8]}"
        return metric_id


@dataclass(frozen=True, slots=True)
class GpuProcess:
    """A process using a GPU, as the vendor library lists it (per-process memory)."""

    pid: int
    name: str | None
    used_bytes: float | None  # None where the driver does not say (WDDM, MIG)
    kind: str  # "compute", "graphics", or "" when the library does not tell


@dataclass(frozen=True, slots=True)
class ProcessSnapshot:
    """The processes on one GPU at `time_s` (unix time), or why they could not be listed."""

    time_s: float
    processes: tuple[GpuProcess, ...] = ()
    source: str | None = None
    missing_reason: str | None = None


def reason_in_force(changes: Iterable[tuple[float, str]], time_s: float) -> str | None:
    """Why a series was missing at `time_s`, from its reason changes in time order (a reason,
    or "" once it has values again); None when it had values or nothing was said."""
    reason: str | None = None
    for t, text in changes:
        if t > time_s:
            break
        reason = text or None
    return reason


# Units as results store them (ASCII, part of the JSON contracts) -> as people read them.
_SHOWN_UNITS = {"us": "µs"}


def shown_unit(unit: str) -> str:
    """A unit as it is shown: microseconds are stored "us" and shown "µs"."""
    return _SHOWN_UNITS.get(unit, unit)
