"""A small fake of nvidia-ml-py's `pynvml`, driven by a recorded table.

The table maps a call to its answer: `("nvmlDeviceGetName", 0)` -> `"NVIDIA GeForce RTX 4090"`,
where a device handle is written as its index, or to `Fail("NotSupported")` to raise the NVML
error of that name. A call the table lacks raises NVMLError_FunctionNotFound, as NVML does for a
function the driver does not have. Errors are built the way pynvml builds them:
`NVMLError(code)` returns the subclass `NVMLError_<Name>`, with `.value` the code.

Once a device raised GpuIsLost, every later call on it raises GpuIsLost too, as on real
hardware. Calls before `nvmlInit` raise Uninitialized.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# nvml.h codes and pynvml's class-name spelling (NVML_ERROR_GPU_IS_LOST -> NVMLError_GpuIsLost).
ERROR_CODES: dict[str, int] = {
    "Uninitialized": 1, "InvalidArgument": 2, "NotSupported": 3, "NoPermission": 4,
    "AlreadyInitialized": 5, "NotFound": 6, "InsufficientSize": 7, "InsufficientPower": 8,
    "DriverNotLoaded": 9, "Timeout": 10, "IrqIssue": 11, "LibraryNotFound": 12,
    "FunctionNotFound": 13, "CorruptedInforom": 14, "GpuIsLost": 15, "ResetRequired": 16,
    "OperatingSystem": 17, "LibRmVersionMismatch": 18, "InUse": 19, "Memory": 20, "NoData": 21,
    "Unknown": 999,
}

# pynvml's messages (NVMLError._errcode_to_string).
_MESSAGES: dict[int, str] = {
    1: "Uninitialized", 2: "Invalid Argument", 3: "Not Supported",
    4: "Insufficient Permissions", 5: "Already Initialized", 6: "Not Found",
    7: "Insufficient Size", 8: "Insufficient External Power", 9: "Driver Not Loaded",
    10: "Timeout", 11: "Interrupt Request Issue", 12: "NVML Shared Library Not Found",
    13: "Function Not Found", 14: "Corrupted infoROM", 15: "GPU is lost",
    16: "GPU requires restart", 17: "The operating system has blocked the request.",
    18: "RM has detected an NVML/RM version mismatch.", 20: "Insufficient Memory",
    999: "Unknown Error",
}


class NVMLError(Exception):
    """As pynvml's: `NVMLError(code)` is an instance of the code's subclass."""

    _classes: dict[int, type[NVMLError]] = {}  # noqa: RUF012 - filled once below
    value: int

    def __new__(cls, value: int) -> NVMLError:
        if cls is NVMLError:
            cls = NVMLError._classes.get(value, NVMLError)
        error = Exception.__new__(cls)
        error.value = value
        return error

    def __init__(self, value: int) -> None:
        super().__init__(value)

    def __str__(self) -> str:
        return _MESSAGES.get(self.value, f"NVML Error with code {self.value}")


def _make_error_class(name: str, code: int) -> type[NVMLError]:
    def new(cls: type[NVMLError], *args: Any) -> NVMLError:
        return NVMLError.__new__(cls, code)

    def init(self: NVMLError, *args: Any) -> None:
        Exception.__init__(self, code)

    return type(f"NVMLError_{name}", (NVMLError,), {"__new__": new, "__init__": init})


ERROR_CLASSES: dict[str, type[NVMLError]] = {}
for _name, _code in ERROR_CODES.items():
    ERROR_CLASSES[_name] = NVMLError._classes[_code] = _make_error_class(_name, _code)


@dataclass(frozen=True)
class Fail:
    """A recorded failure: the NVML error name, as in `NVMLError_<name>`."""

    error: str


@dataclass(frozen=True)
class FakeHandle:
    index: int


Table = Mapping[tuple[Any, ...], Any]


class FakePynvml(types.ModuleType):
    """Stands in for the `pynvml` module. Unknown `nvml*` names answer from the table."""

    NVML_CLOCK_GRAPHICS = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_DEVICE_MIG_DISABLE = 0
    NVML_DEVICE_MIG_ENABLE = 1
    NVMLError = NVMLError

    def __init__(
        self,
        table: Table,
        *,
        init_error: str | None = None,
        missing_functions: tuple[str, ...] = (),
        strings_as_bytes: bool = False,
    ) -> None:
        super().__init__("pynvml")
        self.table: dict[tuple[Any, ...], Any] = dict(table)
        self.init_error = init_error
        self.missing_functions = set(missing_functions)
        self.strings_as_bytes = strings_as_bytes  # bindings before 11.5 returned bytes
        self.calls: list[tuple[Any, ...]] = []
        self.initialised = 0
        self.shutdowns = 0
        self.lost: set[int] = set()
        for name, cls in ERROR_CLASSES.items():
            setattr(self, f"NVMLError_{name}", cls)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        # Only called for names not found otherwise: the table's calls.
        if name.startswith("nvml") and name not in self.missing_functions:
            return lambda *args: self._answer(name, args)
        raise AttributeError(f"module 'pynvml' has no attribute {name!r}")

    def nvmlInit(self) -> None:
        self.calls.append(("nvmlInit",))
        if self.init_error is not None:
            raise ERROR_CLASSES[self.init_error](ERROR_CODES[self.init_error])
        self.initialised += 1

    def nvmlShutdown(self) -> None:
        self.calls.append(("nvmlShutdown",))
        if self.initialised <= 0:
            raise NVMLError(ERROR_CODES["Uninitialized"])
        self.initialised -= 1
        self.shutdowns += 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeHandle:
        self._answer("nvmlDeviceGetHandleByIndex", (index,), default=None)
        return FakeHandle(index)

    def _answer(self, name: str, args: tuple[Any, ...], default: Any = Fail("")) -> Any:
        key = (name, *(a.index if isinstance(a, FakeHandle) else a for a in args))
        self.calls.append(key)
        if self.initialised <= 0:
            raise NVMLError(ERROR_CODES["Uninitialized"])
        device = args[0].index if args and isinstance(args[0], FakeHandle) else None
        if name == "nvmlDeviceGetHandleByIndex":
            device = args[0]
        if device in self.lost:
            raise NVMLError(ERROR_CODES["GpuIsLost"])
        if key not in self.table:
            if default == Fail(""):
                raise NVMLError(ERROR_CODES["FunctionNotFound"])
            return default
        value = self.table[key]
        if isinstance(value, Fail):
            if value.error == "GpuIsLost" and device is not None:
                self.lost.add(device)
            raise ERROR_CLASSES[value.error](ERROR_CODES[value.error])
        if isinstance(value, str) and self.strings_as_bytes:
            return value.encode()
        return value


def pci_info(bus_id: str, bus: int, device_id: int, subsystem_id: int) -> types.SimpleNamespace:
    """nvmlPciInfo_t as pynvml gives it (busId decoded to str by _PrintableStructure)."""
    return types.SimpleNamespace(
        busIdLegacy=bus_id[-12:], domain=0, bus=bus, device=0, pciDeviceId=device_id,
        pciSubSystemId=subsystem_id, busId=bus_id,
    )


def memory_info(total: int, used: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(total=total, free=total - used, used=used)


GEFORCE_NOT_SUPPORTED = ("nvmlDeviceGetSerial", "nvmlDeviceGetMigMode", "nvmlDeviceGetAttributes")


def desktop_table(lost_gpu: int | None = None, lost_call: str = "nvmlDeviceGetMemoryInfo"
                  ) -> dict[tuple[Any, ...], Any]:
    """A desktop with an RTX 4090 (0000:01:00.0, x16 CPU slot) and an RTX 3060 12GB
    (0000:05:00.0, x4 chipset slot) on driver 550.54.14 / CUDA 12.4. GeForce cards answer
    NotSupported for the serial number, MIG mode and device attributes; both links idle at
    gen 1. `lost_gpu` makes that GPU fall off the bus at `lost_call`.

    PCI ids and compute capabilities are the real ones (pci.ids, CUDA docs); the UUIDs,
    subsystem ids and VBIOS versions are illustrative."""
    table: dict[tuple[Any, ...], Any] = {
        ("nvmlSystemGetDriverVersion",): "550.54.14",
        ("nvmlSystemGetNVMLVersion",): "12.550.54.14",
        ("nvmlSystemGetCudaDriverVersion",): 12040,
        ("nvmlSystemGetCudaDriverVersion_v2",): 12040,
        ("nvmlDeviceGetCount",): 2,
    }
    gpus: list[dict[str | tuple[str, int], Any]] = [
        {
            "nvmlDeviceGetName": "NVIDIA GeForce RTX 4090",
            "nvmlDeviceGetUUID": "GPU-5f3c2a1e-8b4d-4c7a-9e21-7d0b6a3f9c12",
            "nvmlDeviceGetPciInfo": pci_info("00000000:01:00.0", 1, 0x268410DE, 0x167C10DE),
            "nvmlDeviceGetMemoryInfo": memory_info(25757220864, 1288699904),
            "nvmlDeviceGetCudaComputeCapability": (8, 9),
            "nvmlDeviceGetVbiosVersion": "95.02.18.80.87",
            "nvmlDeviceGetPowerManagementLimit": 450000,
            "nvmlDeviceGetPowerManagementLimitConstraints": [150000, 600000],
            ("nvmlDeviceGetMaxClockInfo", 0): 3120,
            ("nvmlDeviceGetMaxClockInfo", 2): 10501,
            "nvmlDeviceGetMaxPcieLinkGeneration": 4,
            "nvmlDeviceGetMaxPcieLinkWidth": 16,
            "nvmlDeviceGetCurrPcieLinkGeneration": 1,
            "nvmlDeviceGetCurrPcieLinkWidth": 16,
            "nvmlDeviceGetVirtualizationMode": 0,
        },
        {
            "nvmlDeviceGetName": "NVIDIA GeForce RTX 3060",
            "nvmlDeviceGetUUID": "GPU-b7e1d4c2-3a9f-4e65-8d10-2c4f7a9b1e03",
            "nvmlDeviceGetPciInfo": pci_info("00000000:05:00.0", 5, 0x250410DE, 0x87F31043),
            "nvmlDeviceGetMemoryInfo": memory_info(12884901888, 268435456),
            "nvmlDeviceGetCudaComputeCapability": (8, 6),
            "nvmlDeviceGetVbiosVersion": "94.06.2F.00.9A",
            "nvmlDeviceGetPowerManagementLimit": 170000,
            "nvmlDeviceGetPowerManagementLimitConstraints": [100000, 180000],
            ("nvmlDeviceGetMaxClockInfo", 0): 2100,
            ("nvmlDeviceGetMaxClockInfo", 2): 7501,
            "nvmlDeviceGetMaxPcieLinkGeneration": 4,
            "nvmlDeviceGetMaxPcieLinkWidth": 4,
            "nvmlDeviceGetCurrPcieLinkGeneration": 1,
            "nvmlDeviceGetCurrPcieLinkWidth": 4,
            "nvmlDeviceGetVirtualizationMode": 0,
        },
    ]
    for index, answers in enumerate(gpus):
        table[("nvmlDeviceGetHandleByIndex", index)] = None
        for call, value in answers.items():
            if isinstance(call, tuple):
                table[(call[0], index, call[1])] = value
            else:
                table[(call, index)] = value
        for call in GEFORCE_NOT_SUPPORTED:
            table[(call, index)] = Fail("NotSupported")
    if lost_gpu is not None:
        table[(lost_call, lost_gpu)] = Fail("GpuIsLost")
    return table
