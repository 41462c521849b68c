"""The amdsmi calls of the live telemetry, added to the fake `amdsmi` of fake_amdsmi.py.

`telemetry_table()` extends `two_radeons_table()` (an RX 7900 XTX at 0000:03:00.0 and an
RX 7800 XT at 0000:0b:00.0) with what the sampler asks every tick, in amdsmi 7.0.2's shapes
(amdsmi_interface.py): dicts with "N/A" where the library has no value. The 7900 XTX answers
NOT_SUPPORTED for its fan RPM and its memory clock (so those come from sysfs), "N/A" for its
current socket power (the average is there) and True for "throttled" (7.0.2 gives the throttle
statuses as bools); the 7800 XT answers NOT_SUPPORTED for the power cap (as in
two_radeons_table) and for the gpu_metrics table.

Values are illustrative; units as amdsmi.h documents them (github.com/ROCm/amdsmi).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from fakes.fake_amdsmi import (
    STATUS_NOT_SUPPORTED,
    AmdSmiMemoryType,
    Fail,
    FakeAmdsmi,
    two_radeons_table,
)

STATUS_RETRY = 9  # AMDSMI_STATUS_RETRY: busy, try again


class AmdSmiTemperatureType(IntEnum):
    EDGE = 0
    HOTSPOT = 1
    JUNCTION = 1
    VRAM = 2
    HBM_0 = 3
    HBM_1 = 4
    HBM_2 = 5
    HBM_3 = 6
    PLX = 7


class AmdSmiTemperatureMetric(IntEnum):
    CURRENT = 0
    MAX = 1


class AmdSmiClkType(IntEnum):
    SYS = 0
    GFX = 0
    DF = 1
    DCEF = 2
    SOC = 3
    MEM = 4


class FakeAmdsmiTelemetry(FakeAmdsmi):
    AmdSmiTemperatureType = AmdSmiTemperatureType
    AmdSmiTemperatureMetric = AmdSmiTemperatureMetric
    AmdSmiClkType = AmdSmiClkType


def _temp(kind: AmdSmiTemperatureType) -> tuple[str, AmdSmiTemperatureType,
                                                AmdSmiTemperatureMetric]:
    return ("amdsmi_get_temp_metric", kind, AmdSmiTemperatureMetric.CURRENT)


def telemetry_table() -> dict[tuple[Any, ...], Any]:
    table = two_radeons_table()
    per_gpu: list[dict[Any, Any]] = [
        {
            "amdsmi_get_gpu_activity": {"gfx_activity": 87, "umc_activity": 40,
                                        "mm_activity": "N/A"},
            ("amdsmi_get_gpu_memory_usage", AmdSmiMemoryType.VRAM): 20_401_094_656,
            ("amdsmi_get_gpu_memory_usage", AmdSmiMemoryType.GTT): 104_857_600,
            _temp(AmdSmiTemperatureType.EDGE): 62,
            _temp(AmdSmiTemperatureType.HOTSPOT): 81,
            _temp(AmdSmiTemperatureType.VRAM): 74,
            "amdsmi_get_power_info": {"current_socket_power": "N/A", "average_socket_power": 301,
                                      "gfx_voltage": 1050, "soc_voltage": 900,
                                      "mem_voltage": 1250, "power_limit": 339000000},
            ("amdsmi_get_clock_info", AmdSmiClkType.GFX): {
                "clk": 2480, "min_clk": 500, "max_clk": 2526, "clk_locked": False,
                "clk_deep_sleep": False},
            ("amdsmi_get_clock_info", AmdSmiClkType.MEM): Fail(STATUS_NOT_SUPPORTED),
            ("amdsmi_get_gpu_fan_rpms", 0): Fail(STATUS_NOT_SUPPORTED),
            ("amdsmi_get_gpu_fan_speed", 0): 102,
            ("amdsmi_get_gpu_fan_speed_max", 0): 255,
            "amdsmi_get_pcie_info": {
                "pcie_static": {"max_pcie_width": 16, "max_pcie_speed": 16000,
                                "pcie_interface_version": 4, "slot_type": "CEM"},
                "pcie_metric": {"pcie_width": 16, "pcie_speed": 16000, "pcie_bandwidth": 8000,
                                "pcie_replay_count": 0, "pcie_l0_to_recovery_count": 0,
                                "pcie_replay_roll_over_count": 0, "pcie_nak_sent_count": 0,
                                "pcie_nak_received_count": 0,
                                "pcie_lc_perf_other_end_recovery_count": "N/A"},
            },
            # amdsmi 7.0.2 keeps only whether the GPU is throttled (a bool), not why.
            "amdsmi_get_gpu_metrics_info": {"throttle_status": True,
                                            "indep_throttle_status": True},
            "amdsmi_get_gpu_process_list": [{
                "name": "python3", "pid": 777, "mem": 4_000_000_000,
                "engine_usage": {"gfx": 0, "enc": 0},
                "memory_usage": {"gtt_mem": 2_097_152, "cpu_mem": 0,
                                 "vram_mem": 4_000_000_000},
                "cu_occupancy": "N/A"}],
        },
        {
            "amdsmi_get_gpu_activity": {"gfx_activity": 0, "umc_activity": 0,
                                        "mm_activity": "N/A"},
            ("amdsmi_get_gpu_memory_usage", AmdSmiMemoryType.VRAM): 536_870_912,
            ("amdsmi_get_gpu_memory_usage", AmdSmiMemoryType.GTT): 20_971_520,
            _temp(AmdSmiTemperatureType.EDGE): 35,
            _temp(AmdSmiTemperatureType.HOTSPOT): 37,
            _temp(AmdSmiTemperatureType.VRAM): 40,
            "amdsmi_get_power_info": {"current_socket_power": 12, "average_socket_power": 13,
                                      "gfx_voltage": "N/A", "soc_voltage": "N/A",
                                      "mem_voltage": "N/A", "power_limit": "N/A"},
            ("amdsmi_get_clock_info", AmdSmiClkType.GFX): {
                "clk": 45, "min_clk": 45, "max_clk": 2430, "clk_locked": False,
                "clk_deep_sleep": True},
            ("amdsmi_get_clock_info", AmdSmiClkType.MEM): {
                "clk": 96, "min_clk": 96, "max_clk": 1218, "clk_locked": False,
                "clk_deep_sleep": False},
            ("amdsmi_get_gpu_fan_rpms", 0): 0,
            ("amdsmi_get_gpu_fan_speed", 0): 0,
            ("amdsmi_get_gpu_fan_speed_max", 0): 255,
            "amdsmi_get_pcie_info": {
                "pcie_static": {"max_pcie_width": 16, "max_pcie_speed": 16000,
                                "pcie_interface_version": 4, "slot_type": "CEM"},
                "pcie_metric": {"pcie_width": 16, "pcie_speed": 2500, "pcie_bandwidth": "N/A"},
            },
            "amdsmi_get_gpu_metrics_info": Fail(STATUS_NOT_SUPPORTED),
            "amdsmi_get_gpu_process_list": [],
        },
    ]
    for index, answers in enumerate(per_gpu):
        for call, value in answers.items():
            if isinstance(call, tuple):
                table[(call[0], index, *call[1:])] = value
            else:
                table[(call, index)] = value
    return table


def fake(table: dict[tuple[Any, ...], Any] | None = None) -> FakeAmdsmiTelemetry:
    return FakeAmdsmiTelemetry(table if table is not None else telemetry_table(), gpu_count=2)
