"""The one catalogue of live metrics: what each is, its unit and range. Charts, tables,
recordings and exports are all driven from it, so a metric is never a bare string."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class MetricKind(str, enum.Enum):
    PERCENT = "percent"
    BYTES = "bytes"
    TEMPERATURE = "temperature"
    POWER = "power"
    CLOCK = "clock"
    FAN = "fan"
    LINK = "link"
    COUNT = "count"


class Metric(str, enum.Enum):
    """Metric ids: stable strings, used as column names in recordings and CSV exports."""

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
