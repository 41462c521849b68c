"""The one table from gpuscope's metric catalogue (`gpuscope.metrics.CATALOGUE`) to Prometheus
metric families, as `gpuscope serve` exposes them on `/metrics` and `--textfile` writes them,
and as the window's remote machines (`gpuscope.app.remote`) read them back. It sits beside the
metric vocabulary so that both the exporter (`gpuscope.serve`) and the app layer can use it.

Names follow Prometheus' conventions (https://prometheus.io/docs/practices/naming/): base
units (bytes, seconds, hertz, celsius, watts, ratios 0..1) as the name's suffix, one family per
quantity with a label telling its instances apart. Every GPU series carries the labels
`gpu` (gpuscope's GPU index, "0", "1", ...), `pci_bus` ("0000:03:00.0", "" when unknown) and
`name` ("Radeon RX 7900 XTX", "" when unknown). A series is absent while its metric has no
value; `gpuscope_metric_available` says why.

GPU gauges (labels gpu, pci_bus, name, plus any extra label shown), each from a catalogue
metric (`gpuscope.metrics.Metric` id in parentheses):

- gpuscope_gpu_utilization_ratio (gpu_util_percent / 100)
- gpuscope_gpu_memory_used_bytes (vram_used_bytes)
- gpuscope_gpu_memory_total_bytes (vram_total_bytes)
- gpuscope_gpu_gtt_used_bytes (gtt_used_bytes)
- gpuscope_gpu_temperature_celsius{sensor="edge"|"junction"|"memory"} (temp_edge_c,
  temp_junction_c, temp_memory_c)
- gpuscope_gpu_power_watts (power_w)
- gpuscope_gpu_power_cap_watts (power_cap_w)
- gpuscope_gpu_clock_hertz{clock="graphics"|"memory"} (sclk_mhz, mclk_mhz, times 1e6)
- gpuscope_gpu_fan_speed_rpm (fan_rpm)
- gpuscope_gpu_fan_speed_ratio (fan_percent / 100)
- gpuscope_gpu_pcie_link_generation (pcie_gen; no unit)
- gpuscope_gpu_pcie_link_width_lanes (pcie_width)
- gpuscope_gpu_pcie_throughput_bytes_per_second{direction="rx"|"tx"} (pcie_rx_bytes_s,
  pcie_tx_bytes_s)
- gpuscope_gpu_pcie_bandwidth_bytes_per_second (pcie_bandwidth_bytes_s, both directions)
- gpuscope_gpu_throttle_reason{reason="power"|"thermal"|"current"|"hardware"|"setting"|
  "idle"|"other"} 1 while that reason holds the clocks back, else 0 (throttle_reasons bits;
  absent while the reasons cannot be read)

Host gauges (no gpu labels):

- gpuscope_host_cpu_utilization_ratio (host_cpu_percent / 100)
- gpuscope_host_cpu_core_utilization_ratio{core="0".."N-1"} (host/cpuN_percent / 100)
- gpuscope_host_memory_used_bytes (host_ram_used_bytes)
- gpuscope_host_swap_used_bytes (host_swap_used_bytes)

State, info and self metrics (gauges; `*_info` and `gpuscope_finding` are always 1):

- gpuscope_metric_available{gpu,metric,reason} 1|0: one per catalogue metric a device's source
  offers; `gpu` is the GPU index or "host", `metric` the catalogue id ("temp_junction_c"),
  `reason` why it is missing ("" when available).
- gpuscope_gpu_up{gpu,pci_bus,name} 1 when the GPU answered the last tick, 0 when lost/failed.
- gpuscope_gpu_info{gpu,pci_bus,name,vendor,architecture,gfx_target,compute_capability} 1
- gpuscope_driver_info{driver,version,kernel} 1, one per kernel driver in use (amdgpu, nvidia)
- gpuscope_rocm_info{version,hip_version} 1, when ROCm is installed
- gpuscope_cuda_info{driver_cuda_version,toolkit_version} 1, when the NVIDIA driver or a CUDA
  toolkit is found
- gpuscope_build_info{version} 1
- gpuscope_finding{id,severity,gpu} 1, one per doctor finding (`gpu` "" for the whole system);
  the doctor runs at start and every few minutes, not per scrape
- gpuscope_doctor_last_run_timestamp_seconds: unix time the doctor last finished
- gpuscope_sampler_tick_duration_seconds: how long the sampler's last tick took
- gpuscope_sampler_ticks: ticks taken since the exporter started (a counter; exposed as
  gpuscope_sampler_ticks_total)
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuscope.metrics import CATALOGUE, Metric, ThrottleReason

GPU_LABELS: tuple[str, ...] = ("gpu", "pci_bus", "name")
# The `gpu` label of a host metric in gpuscope_metric_available.
HOST_GPU_LABEL = "host"


@dataclass(frozen=True, slots=True)
class Family:
    """One Prometheus metric family: its name (without a counter's `_total`), type, unit
    suffix (Prometheus' unit, "" for none), its labels in order, and its HELP text."""

    name: str
    type: str  # "gauge" | "counter" (the *_info families are gauges of 1)
    unit: str
    labels: tuple[str, ...]
    help: str


@dataclass(frozen=True, slots=True)
class MetricFamily:
    """A catalogue metric's place in a family: the family, the label it adds (name, value) or
    None, and the factor from the catalogue's stored unit to the family's."""

    metric: Metric
    family: Family
    extra_label: tuple[str, str] | None = None
    scale: float = 1.0


def _gpu(name: str, unit: str, help_text: str, *extra: str) -> Family:
    return Family(name, "gauge", unit, (*GPU_LABELS, *extra), help_text)


def _label(metric: Metric) -> str:
    return CATALOGUE[metric].label


def _by(label: str, members: tuple[tuple[str, Metric], ...]) -> str:
    return ", ".join(f"{label}={value}: {_label(metric)}" for value, metric in members)


_TEMPERATURES = (("edge", Metric.TEMP_EDGE_C), ("junction", Metric.TEMP_JUNCTION_C),
                 ("memory", Metric.TEMP_MEMORY_C))
_CLOCKS = (("graphics", Metric.SCLK_MHZ), ("memory", Metric.MCLK_MHZ))
_PCIE_DIRECTIONS = (("rx", Metric.PCIE_RX_BYTES_S), ("tx", Metric.PCIE_TX_BYTES_S))

GPU_UTILIZATION = _gpu("gpuscope_gpu_utilization_ratio", "ratio",
                       f"{_label(Metric.GPU_UTIL_PERCENT)} (0 to 1)")
GPU_MEMORY_USED = _gpu("gpuscope_gpu_memory_used_bytes", "bytes",
                       f"{_label(Metric.VRAM_USED_BYTES)} (bytes)")
GPU_MEMORY_TOTAL = _gpu("gpuscope_gpu_memory_total_bytes", "bytes",
                        f"{_label(Metric.VRAM_TOTAL_BYTES)} (bytes)")
GPU_GTT_USED = _gpu("gpuscope_gpu_gtt_used_bytes", "bytes",
                    f"{_label(Metric.GTT_USED_BYTES)} (bytes)")
GPU_TEMPERATURE = _gpu("gpuscope_gpu_temperature_celsius", "celsius",
                       f"GPU temperature (degrees Celsius) by sensor: "
                       f"{_by('sensor', _TEMPERATURES)}", "sensor")
GPU_POWER = _gpu("gpuscope_gpu_power_watts", "watts", f"{_label(Metric.POWER_W)} (watts)")
GPU_POWER_CAP = _gpu("gpuscope_gpu_power_cap_watts", "watts",
                     f"{_label(Metric.POWER_CAP_W)} (watts)")
GPU_CLOCK = _gpu("gpuscope_gpu_clock_hertz", "hertz",
                 f"GPU clock (hertz): {_by('clock', _CLOCKS)}", "clock")
GPU_FAN_RPM = _gpu("gpuscope_gpu_fan_speed_rpm", "rpm",
                   f"{_label(Metric.FAN_RPM)} (revolutions per minute)")
GPU_FAN_RATIO = _gpu("gpuscope_gpu_fan_speed_ratio", "ratio",
                     f"{_label(Metric.FAN_PERCENT)} (0 to 1 of its maximum speed)")
GPU_PCIE_GENERATION = _gpu("gpuscope_gpu_pcie_link_generation", "",
                           f"{_label(Metric.PCIE_GEN)} of the current link")
GPU_PCIE_WIDTH = _gpu("gpuscope_gpu_pcie_link_width_lanes", "lanes",
                      f"{_label(Metric.PCIE_WIDTH)} of the current link (lanes)")
GPU_PCIE_THROUGHPUT = _gpu("gpuscope_gpu_pcie_throughput_bytes_per_second", "bytes_per_second",
                           f"PCIe traffic (bytes per second): "
                           f"{_by('direction', _PCIE_DIRECTIONS)}", "direction")
GPU_PCIE_BANDWIDTH = _gpu("gpuscope_gpu_pcie_bandwidth_bytes_per_second", "bytes_per_second",
                          f"{_label(Metric.PCIE_BANDWIDTH_BYTES_S)} (bytes per second)")
GPU_THROTTLE_REASON = _gpu("gpuscope_gpu_throttle_reason", "",
                           f"{_label(Metric.THROTTLE_REASONS)}: 1 while this reason holds "
                           f"the GPU's clocks back, else 0", "reason")

HOST_CPU = Family("gpuscope_host_cpu_utilization_ratio", "gauge", "ratio", (),
                  f"{_label(Metric.HOST_CPU_PERCENT)} (0 to 1, all cores)")
HOST_CPU_CORE = Family("gpuscope_host_cpu_core_utilization_ratio", "gauge", "ratio", ("core",),
                       "Host CPU core (0 to 1)")
HOST_MEMORY_USED = Family("gpuscope_host_memory_used_bytes", "gauge", "bytes", (),
                          f"{_label(Metric.HOST_RAM_USED_BYTES)} (bytes)")
HOST_SWAP_USED = Family("gpuscope_host_swap_used_bytes", "gauge", "bytes", (),
                        f"{_label(Metric.HOST_SWAP_USED_BYTES)} (bytes)")

METRIC_AVAILABLE = Family(
    "gpuscope_metric_available", "gauge", "", ("gpu", "metric", "reason"),
    "1 when a device's metric has a value, 0 with the reason it is not available "
    "(gpu is the GPU index or \"host\", metric the gpuscope metric id)")
GPU_UP = _gpu("gpuscope_gpu_up", "",
              "1 when the GPU answered the sampler's last tick, 0 when it is lost or failed")
GPU_INFO = Family("gpuscope_gpu_info", "gauge", "",
                  (*GPU_LABELS, "vendor", "architecture", "gfx_target", "compute_capability"),
                  "A GPU gpuscope found, with its vendor and architecture (always 1)")
DRIVER_INFO = Family("gpuscope_driver_info", "gauge", "", ("driver", "version", "kernel"),
                     "A GPU kernel driver in use, its version (\"\" for a driver built into "
                     "the kernel) and the kernel's (always 1)")
ROCM_INFO = Family("gpuscope_rocm_info", "gauge", "", ("version", "hip_version"),
                   "The ROCm installation found (always 1)")
CUDA_INFO = Family("gpuscope_cuda_info", "gauge", "", ("driver_cuda_version", "toolkit_version"),
                   "The CUDA version the NVIDIA driver supports and the CUDA toolkit found "
                   "(always 1)")
BUILD_INFO = Family("gpuscope_build_info", "gauge", "", ("version",),
                    "The gpuscope version exporting these metrics (always 1)")
FINDING = Family("gpuscope_finding", "gauge", "", ("id", "severity", "gpu"),
                 "A finding of gpuscope's doctor (always 1; gpu is \"\" for the whole system)")
DOCTOR_LAST_RUN = Family("gpuscope_doctor_last_run_timestamp_seconds", "gauge", "seconds", (),
                         "Unix time gpuscope's doctor last finished")
TICK_DURATION = Family("gpuscope_sampler_tick_duration_seconds", "gauge", "seconds", (),
                       "How long the telemetry sampler's last tick took")
TICKS = Family("gpuscope_sampler_ticks", "counter", "", (),
               "Telemetry ticks taken since the exporter started")

# Catalogue metric -> its family. Every catalogue metric but THROTTLE_REASONS (a set of
# flags, exposed per reason below) has exactly one row.
METRIC_FAMILIES: dict[Metric, MetricFamily] = {row.metric: row for row in (
    MetricFamily(Metric.GPU_UTIL_PERCENT, GPU_UTILIZATION, scale=0.01),
    MetricFamily(Metric.VRAM_USED_BYTES, GPU_MEMORY_USED),
    MetricFamily(Metric.VRAM_TOTAL_BYTES, GPU_MEMORY_TOTAL),
    MetricFamily(Metric.GTT_USED_BYTES, GPU_GTT_USED),
    *(MetricFamily(metric, GPU_TEMPERATURE, ("sensor", sensor))
      for sensor, metric in _TEMPERATURES),
    MetricFamily(Metric.POWER_W, GPU_POWER),
    MetricFamily(Metric.POWER_CAP_W, GPU_POWER_CAP),
    *(MetricFamily(metric, GPU_CLOCK, ("clock", clock), 1e6) for clock, metric in _CLOCKS),
    MetricFamily(Metric.FAN_RPM, GPU_FAN_RPM),
    MetricFamily(Metric.FAN_PERCENT, GPU_FAN_RATIO, scale=0.01),
    MetricFamily(Metric.PCIE_GEN, GPU_PCIE_GENERATION),
    MetricFamily(Metric.PCIE_WIDTH, GPU_PCIE_WIDTH),
    *(MetricFamily(metric, GPU_PCIE_THROUGHPUT, ("direction", direction))
      for direction, metric in _PCIE_DIRECTIONS),
    MetricFamily(Metric.PCIE_BANDWIDTH_BYTES_S, GPU_PCIE_BANDWIDTH),
    MetricFamily(Metric.HOST_CPU_PERCENT, HOST_CPU, scale=0.01),
    MetricFamily(Metric.HOST_RAM_USED_BYTES, HOST_MEMORY_USED),
    MetricFamily(Metric.HOST_SWAP_USED_BYTES, HOST_SWAP_USED),
)}

# The `reason` label of gpuscope_gpu_throttle_reason for each ThrottleReason bit.
THROTTLE_LABELS: dict[ThrottleReason, str] = {
    reason: (reason.name or str(reason.value)).lower() for reason in ThrottleReason}

# Every family the exporter can write, in the order it writes them.
ALL_FAMILIES: tuple[Family, ...] = (
    GPU_UTILIZATION, GPU_MEMORY_USED, GPU_MEMORY_TOTAL, GPU_GTT_USED, GPU_TEMPERATURE,
    GPU_POWER, GPU_POWER_CAP, GPU_CLOCK, GPU_FAN_RPM, GPU_FAN_RATIO, GPU_PCIE_GENERATION,
    GPU_PCIE_WIDTH, GPU_PCIE_THROUGHPUT, GPU_PCIE_BANDWIDTH, GPU_THROTTLE_REASON,
    HOST_CPU, HOST_CPU_CORE, HOST_MEMORY_USED, HOST_SWAP_USED,
    METRIC_AVAILABLE, GPU_UP, GPU_INFO, DRIVER_INFO, ROCM_INFO, CUDA_INFO, BUILD_INFO,
    FINDING, DOCTOR_LAST_RUN, TICK_DURATION, TICKS,
)


def cpu_core_of(metric_id: str) -> int | None:
    """The core of a per-core host CPU metric id ("cpu3_percent" -> 3), else None."""
    if metric_id.startswith("cpu") and metric_id.endswith("_percent"):
        digits = metric_id[3:-len("_percent")]
        if digits.isdigit():
            return int(digits)
    return None
