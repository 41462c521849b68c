"""The NVML calls of the live telemetry, added to the fake `pynvml` of fake_pynvml.py.

`telemetry_table()` extends `desktop_table()` (an RTX 4090 at 0000:01:00.0 and an RTX 3060 at
0000:05:00.0) with what the sampler asks every tick: utilization, temperatures, power, clocks,
fans, PCIe link and throughput, clocks-event reasons and the process lists. GeForce cards
answer NotSupported for the memory temperature (an HBM field); the 3060's driver path lacks
nvmlDeviceGetCurrentClocksEventReasons (FunctionNotFound) and answers the older
...ThrottleReasons, and its fan has no RPM reading.

Values are illustrative, in NVML's units (mW, MHz, °C, KB/s); the call names and return shapes
are those of nvidia-ml-py 13 (pynvml.py, pypi.org/project/nvidia-ml-py).
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any

from fakes.fake_pynvml import ERROR_CODES, Fail, FakePynvml, desktop_table

NVML_FI_DEV_MEMORY_TEMP = 82


def field_value(value: int, nvml_return: int = 0) -> types.SimpleNamespace:
    """nvmlFieldValue_t as pynvml gives it (valueType 1: unsigned int)."""
    return types.SimpleNamespace(fieldId=NVML_FI_DEV_MEMORY_TEMP, valueType=1,
                                 nvmlReturn=nvml_return, value=types.SimpleNamespace(uiVal=value))


def process(pid: int, used_bytes: int | None) -> types.SimpleNamespace:
    return types.SimpleNamespace(pid=pid, usedGpuMemory=used_bytes, gpuInstanceId=0xFFFFFFFF,
                                 computeInstanceId=0xFFFFFFFF)


class FakePynvmlTelemetry(FakePynvml):
    """FakePynvml whose nvmlDeviceGetFieldValues takes a list of field ids, as pynvml's does
    (the table keys it by a tuple)."""

    NVML_TEMPERATURE_GPU = 0
    NVML_PCIE_UTIL_TX_BYTES = 0
    NVML_PCIE_UTIL_RX_BYTES = 1
    NVML_FI_DEV_MEMORY_TEMP = NVML_FI_DEV_MEMORY_TEMP

    def nvmlDeviceGetFieldValues(self, handle: Any, field_ids: Sequence[int]) -> Any:
        return self._answer("nvmlDeviceGetFieldValues", (handle, tuple(field_ids)))

    def lose(self, index: int) -> None:
        """The GPU falls off the bus: every later call on it raises GpuIsLost."""
        self.lost.add(index)

    def recover(self, index: int) -> None:
        self.lost.discard(index)


def telemetry_table() -> dict[tuple[Any, ...], Any]:
    table = desktop_table()
    per_gpu: list[dict[Any, Any]] = [
        {
            "nvmlDeviceGetUtilizationRates": types.SimpleNamespace(gpu=97, memory=61),
            ("nvmlDeviceGetTemperature", 0): 71,
            ("nvmlDeviceGetFieldValues", (NVML_FI_DEV_MEMORY_TEMP,)):
                [field_value(0, ERROR_CODES["NotSupported"])],
            "nvmlDeviceGetPowerUsage": 412345,
            "nvmlDeviceGetEnforcedPowerLimit": 450000,
            ("nvmlDeviceGetClockInfo", 0): 2715,
            ("nvmlDeviceGetClockInfo", 2): 10501,
            "nvmlDeviceGetFanSpeed": 64,
            "nvmlDeviceGetFanSpeedRPM": 1810,
            "nvmlDeviceGetCurrPcieLinkGeneration": 4,
            "nvmlDeviceGetCurrPcieLinkWidth": 16,
            "nvmlDeviceGetCurrentClocksEventReasons": 0x4 | 0x20,  # SwPowerCap, SwThermal
            ("nvmlDeviceGetPcieThroughput", 1): 1_200_000,
            ("nvmlDeviceGetPcieThroughput", 0): 250_000,
            "nvmlDeviceGetComputeRunningProcesses": [process(4242, 20 * 2**30)],
            "nvmlDeviceGetGraphicsRunningProcesses": [process(1337, 512 * 2**20)],
        },
        {
            "nvmlDeviceGetUtilizationRates": types.SimpleNamespace(gpu=0, memory=0),
            ("nvmlDeviceGetTemperature", 0): 38,
            ("nvmlDeviceGetFieldValues", (NVML_FI_DEV_MEMORY_TEMP,)):
                [field_value(0, ERROR_CODES["NotSupported"])],
            "nvmlDeviceGetPowerUsage": 15021,
            "nvmlDeviceGetEnforcedPowerLimit": 170000,
            ("nvmlDeviceGetClockInfo", 0): 210,
            ("nvmlDeviceGetClockInfo", 2): 405,
            "nvmlDeviceGetFanSpeed": 0,
            "nvmlDeviceGetFanSpeedRPM": Fail("NotSupported"),
            "nvmlDeviceGetCurrPcieLinkGeneration": 1,
            "nvmlDeviceGetCurrPcieLinkWidth": 4,
            "nvmlDeviceGetCurrentClocksThrottleReasons": 0x1,  # GpuIdle
            ("nvmlDeviceGetPcieThroughput", 1): 0,
            ("nvmlDeviceGetPcieThroughput", 0): 0,
            "nvmlDeviceGetComputeRunningProcesses": [],
            "nvmlDeviceGetGraphicsRunningProcesses": Fail("NotSupported"),
        },
    ]
    for index, answers in enumerate(per_gpu):
        for call, value in answers.items():
            if isinstance(call, tuple):
                table[(call[0], index, *call[1:])] = value
            else:
                table[(call, index)] = value
    table[("nvmlSystemGetProcessName", 4242)] = "python3"
    table[("nvmlSystemGetProcessName", 1337)] = "Xorg"
    return table
