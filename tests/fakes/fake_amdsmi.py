"""A small fake of the `amdsmi` Python package (7.0.2 API), driven by a recorded table.

The table maps a call to its answer: `("amdsmi_get_gpu_asic_info", 0)` -> a dict as amdsmi
7.0.2 returns it, where a processor handle is written as its index, or to `Fail(code)` to raise
`AmdSmiLibraryException(code)`. A call the table lacks raises AMDSMI_STATUS_NOT_YET_IMPLEMENTED.

`BrokenImport` makes `import amdsmi` fail the way the real wheel does without ROCm: it prints
"Unable to find libamd_smi.so ..." to stdout, then raises KeyError('libamd_smi.so').
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

# AMDSMI_STATUS_* (amdsmi.h / amdsmi_wrapper.py).
STATUS_NOT_SUPPORTED = 2
STATUS_NOT_YET_IMPLEMENTED = 3
STATUS_NO_PERM = 10
STATUS_INIT_ERROR = 18
STATUS_NOT_INIT = 32
STATUS_DRIVER_NOT_LOADED = 34

_INFO: dict[int, str] = {
    STATUS_NOT_SUPPORTED: "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported",
    STATUS_NOT_YET_IMPLEMENTED: "AMDSMI_STATUS_NOT_YET_IMPLEMENTED - Feature not yet implemented",
    STATUS_NO_PERM: "AMDSMI_STATUS_NO_PERM - Permission Denied",
    STATUS_INIT_ERROR: "AMDSMI_STATUS_INIT_ERROR - Initialization error",
    STATUS_NOT_INIT: "AMDSMI_STATUS_NOT_INIT - Device not initialized",
    STATUS_DRIVER_NOT_LOADED: "AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded",
}


class AmdSmiException(Exception):
    """Base smi exception class"""


class AmdSmiLibraryException(AmdSmiException):
    def __init__(self, err_code: int) -> None:
        err_code = abs(err_code)
        super().__init__(err_code)
        self.err_code = err_code
        self.err_info = _INFO.get(
            err_code, "AMDSMI_STATUS_UNKNOWN_ERROR - An unknown error occurred")

    def __str__(self) -> str:
        return f"Error code:\n\t{self.err_code} | {self.err_info}"

    def get_error_info(self, detailed: bool = True) -> str:
        return self.err_info if detailed else self.err_info.split(" - ")[0]

    def get_error_code(self) -> int:
        return self.err_code


class AmdSmiInitFlags(IntEnum):
    INIT_ALL_PROCESSORS = 0xFFFFFFFF
    INIT_AMD_CPUS = 1
    INIT_AMD_GPUS = 2
    INIT_NON_AMD_CPUS = 4
    INIT_NON_AMD_GPUS = 8
    INIT_AMD_APUS = 3


class AmdSmiMemoryType(IntEnum):
    VRAM = 0
    VIS_VRAM = 1
    GTT = 2


@dataclass(frozen=True)
class Fail:
    """A recorded failure: an AMDSMI_STATUS_* code."""

    code: int


@dataclass(frozen=True)
class FakeHandle:
    index: int


class FakeAmdsmi(types.ModuleType):
    """Stands in for the `amdsmi` module. Unknown `amdsmi_*` names answer from the table."""

    AmdSmiException = AmdSmiException
    AmdSmiLibraryException = AmdSmiLibraryException
    AmdSmiInitFlags = AmdSmiInitFlags
    AmdSmiMemoryType = AmdSmiMemoryType
    __version__ = "7.0.2"

    def __init__(self, table: Mapping[tuple[Any, ...], Any], gpu_count: int,
                 *, init_error: int | None = None) -> None:
        super().__init__("amdsmi")
        self.table: dict[tuple[Any, ...], Any] = dict(table)
        self.gpu_count = gpu_count
        self.init_error = init_error
        self.init_flags: list[Any] = []
        self.calls: list[tuple[Any, ...]] = []
        self.initialised = 0
        self.shutdowns = 0

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("amdsmi_"):
            return lambda *args: self._answer(name, args)
        raise AttributeError(f"module 'amdsmi' has no attribute {name!r}")

    def amdsmi_init(self, flag: Any = AmdSmiInitFlags.INIT_AMD_GPUS) -> None:
        self.calls.append(("amdsmi_init",))
        self.init_flags.append(flag)
        if self.init_error is not None:
            raise AmdSmiLibraryException(self.init_error)
        self.initialised += 1

    def amdsmi_shut_down(self) -> None:
        self.calls.append(("amdsmi_shut_down",))
        if self.initialised <= 0:
            raise AmdSmiLibraryException(STATUS_NOT_INIT)
        self.initialised -= 1
        self.shutdowns += 1

    def amdsmi_get_processor_handles(self) -> list[FakeHandle]:
        self._check_init()
        return [FakeHandle(i) for i in range(self.gpu_count)]

    def _check_init(self) -> None:
        if self.initialised <= 0:
            raise AmdSmiLibraryException(STATUS_NOT_INIT)

    def _answer(self, name: str, args: tuple[Any, ...]) -> Any:
        key = (name, *(a.index if isinstance(a, FakeHandle) else a for a in args))
        self.calls.append(key)
        self._check_init()
        if key not in self.table:
            raise AmdSmiLibraryException(STATUS_NOT_YET_IMPLEMENTED)
        value = self.table[key]
        if isinstance(value, Fail):
            raise AmdSmiLibraryException(value.code)
        return value


def two_radeons_table(target_format: str = "7.0.2") -> dict[tuple[Any, ...], Any]:
    """An RX 7900 XTX (0000:03:00.0, gfx1100) and an RX 7800 XT (0000:0b:00.0, gfx1101) as
    amdsmi 7.0.2 reports them (vendor and device ids as numbers, the other ids as hex strings);
    the 7800 XT answers NOT_SUPPORTED for its power cap.

    `target_format="24.7"` gives the target strings of the ROCm 6.3-era Python layer, which
    formats the library's number as decimal ("gfx11000", as amdsmi 6.x printed it).

    PCI ids, CU counts and VRAM sizes are the real ones (pci.ids, ROCm's GPU specs, amdgpu's
    mem_info_vram_total); UUIDs, serials, VBIOS strings and subsystem ids are illustrative."""
    targets = ("gfx1100", "gfx1101") if target_format == "7.0.2" else ("gfx11000", "gfx11001")
    table: dict[tuple[Any, ...], Any] = {
        ("amdsmi_get_lib_version",): {"major": 25, "minor": 5, "release": 1, "build": "0"},
    }
    gpus: list[dict[str | tuple[str, AmdSmiMemoryType], Any]] = [
        {
            "amdsmi_get_gpu_device_bdf": "0000:03:00.0",
            "amdsmi_get_gpu_device_uuid": "f1ff744c-0000-1000-80c8-2a1b3c4d5e6f",
            "amdsmi_get_gpu_asic_info": {
                "market_name": "AMD Radeon RX 7900 XTX", "vendor_id": 0x1002,
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": "0x1da2", "device_id": 0x744C, "rev_id": "0xc8",
                "asic_serial": "0x4A1B2C3D4E5F6071", "oam_id": "N/A",
                "num_compute_units": 96, "target_graphics_version": targets[0],
                "subsystem_id": "0x471e",
            },
            ("amdsmi_get_gpu_memory_total", AmdSmiMemoryType.VRAM): 25753026560,
            "amdsmi_get_gpu_vram_info": {
                "vram_type": 9, "vram_vendor": "N/A", "vram_size": 24560,
                "vram_bit_width": 384, "vram_max_bandwidth": "N/A",
            },
            "amdsmi_get_gpu_driver_info": {
                "driver_name": "amdgpu", "driver_version": "6.8.0-45-generic",
                "driver_date": "2015/01/01 00:00",
            },
            "amdsmi_get_gpu_vbios_info": {
                "name": "NAVI31 XTX", "build_date": "2022/11/08 11:07",
                "part_number": "113-D7070100-100", "version": "022.001.002.008.000001",
            },
            "amdsmi_get_power_cap_info": {
                "power_cap": 339000000, "default_power_cap": 339000000, "dpm_cap": 0,
                "min_power_cap": 0, "max_power_cap": 389000000,
            },
            "amdsmi_get_gpu_kfd_info": {"kfd_id": 48467, "node_id": 1,
                                        "current_partition_id": 0},
        },
        {
            "amdsmi_get_gpu_device_bdf": "0000:0b:00.0",
            "amdsmi_get_gpu_device_uuid": "38ff747e-0000-1000-80c8-6f5e4d3c2b1a",
            "amdsmi_get_gpu_asic_info": {
                "market_name": "AMD Radeon RX 7800 XT", "vendor_id": 0x1002,
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "subvendor_id": "0x1da2", "device_id": 0x747E, "rev_id": "0xc8",
                "asic_serial": "0x1122334455667788", "oam_id": "N/A",
                "num_compute_units": 60, "target_graphics_version": targets[1],
                "subsystem_id": "0xe471",
            },
            ("amdsmi_get_gpu_memory_total", AmdSmiMemoryType.VRAM): 17163091968,
            "amdsmi_get_gpu_vram_info": {
                "vram_type": 9, "vram_vendor": "N/A", "vram_size": 16368,
                "vram_bit_width": 256, "vram_max_bandwidth": "N/A",
            },
            "amdsmi_get_gpu_driver_info": {
                "driver_name": "amdgpu", "driver_version": "6.8.0-45-generic",
                "driver_date": "2015/01/01 00:00",
            },
            "amdsmi_get_gpu_vbios_info": {
                "name": "NAVI32", "build_date": "2023/08/01 09:12",
                "part_number": "113-D7120100-101", "version": "022.001.002.021.000001",
            },
            "amdsmi_get_power_cap_info": Fail(STATUS_NOT_SUPPORTED),
            "amdsmi_get_gpu_kfd_info": {"kfd_id": 1219, "node_id": 2,
                                        "current_partition_id": 0},
        },
    ]
    for index, answers in enumerate(gpus):
        for call, value in answers.items():
            if isinstance(call, tuple):
                table[(call[0], index, call[1])] = value
            else:
                table[(call, index)] = value
    return table


class BrokenImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta-path finder under which `import amdsmi` fails as the real wheel does without
    libamd_smi.so (or with any exception given). Install it at the front of sys.meta_path
    after removing any `amdsmi` from sys.modules."""

    def __init__(self, error: BaseException | None = None,
                 printed: str = ("libamd_smi.so: cannot open shared object file: No such file "
                                 "or directory\nUnable to find libamd_smi.so library try "
                                 "installing amd-smi-lib from your package manager")) -> None:
        self.error = error if error is not None else KeyError("libamd_smi.so")
        self.printed = printed

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "amdsmi":
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        print(self.printed, file=sys.stdout)
        raise self.error
