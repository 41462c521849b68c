"""What Windows says about its display adapters, read on Windows and kept as plain JSON: the
registry's display class key (through `winreg`) and DXGI's adapter list (through `ctypes` over
dxgi.dll). Each collector is passed to `system.library(...)`, so a snapshot keeps its answer and
a replay on Linux reads it back; the turning of that JSON into sightings is in
windows_display.py.

The modules are injected (`collect_registry(winreg_module)`), so that tests run the collector
over a fake winreg on Linux; the ctypes part is as thin as it can be.
"""

from __future__ import annotations

import ctypes
import importlib
from collections.abc import Callable
from typing import Any, ClassVar

from gpuscope.evidence import System
from gpuscope.model import JsonValue, ProbeState
from gpuscope.probes.host import collect_platform

# The display adapters' device setup class (GUID_DEVCLASS_DISPLAY): one numbered subkey per
# driver instance (https://learn.microsoft.com/en-us/windows-hardware/drivers/install/
# system-defined-device-setup-classes-available-to-vendors).
DISPLAY_CLASS_GUID = "{4d36e968-e325-11ce-bfc1-08002be10318}"
DISPLAY_CLASS_KEY = rf"SYSTEM\CurrentControlSet\Control\Class\{DISPLAY_CLASS_GUID}"
# The PCI devices' instances; each names its driver key ("{4d36e968-...}\0000") in `Driver`.
PCI_ENUM_KEY = r"SYSTEM\CurrentControlSet\Enum\PCI"

# Values of a display class subkey. HardwareInformation.* is what the display miniport driver
# registers (https://learn.microsoft.com/en-us/windows-hardware/drivers/display/
# registering-hardware-information); qwMemorySize is the 64-bit VRAM size WDDM drivers add
# beside the 32-bit MemorySize. RadeonSoftwareVersion / RadeonSoftwareEdition are the
# Adrenalin release AMD's installer writes to the same key
# (https://github.com/MaynardMiner/SWARM/issues/49), Catalyst_Version its older name.
DISPLAY_VALUES = (
    "DriverDesc", "DriverVersion", "DriverDate", "MatchingDeviceId", "ProviderName",
    "HardwareInformation.qwMemorySize", "HardwareInformation.MemorySize",
    "HardwareInformation.AdapterString", "HardwareInformation.ChipType",
    "RadeonSoftwareVersion", "RadeonSoftwareEdition", "ReleaseVersion", "Catalyst_Version",
)
DEVICE_VALUES = ("Driver", "LocationInformation", "DeviceDesc", "HardwareID", "ClassGUID")

_MAX_SUBKEYS = 512  # more numbered subkeys than any machine has adapters (old ones stay)


def is_windows(system: System) -> bool:
    """Whether the machine behind `system` runs Windows: the host probe's `platform` answer
    (the same evidence, asked with the same collector, so a replay reads the recorded one),
    else Windows' own OS=Windows_NT, as the stack probe reads it."""
    answer = system.library("platform", collect_platform)
    name = answer.get("system") if isinstance(answer, dict) else None
    if isinstance(name, str) and name:
        return name == "Windows"
    return system.env("OS") == "Windows_NT"


def _type_names(winreg: Any) -> dict[int, str]:
    names = ("REG_SZ", "REG_EXPAND_SZ", "REG_MULTI_SZ", "REG_DWORD", "REG_QWORD",
             "REG_BINARY", "REG_NONE")
    return {getattr(winreg, name): name for name in names if hasattr(winreg, name)}


def _json_value(value: Any) -> JsonValue:
    """A registry value as JSON: bytes as hex, lists of strings as lists."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _read_values(winreg: Any, key: Any, names: tuple[str, ...],
                 errors: list[JsonValue]) -> dict[str, JsonValue]:
    """Each value that exists as {"type", "value"}; a missing one is left out, another failure
    goes to `errors`."""
    types = _type_names(winreg)
    found: dict[str, JsonValue] = {}
    for name in names:
        try:
            value, kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            errors.append(f"{name}: {_error(exc)}")
            continue
        found[name] = {"type": types.get(kind, str(kind)), "value": _json_value(value)}
    return found


def _subkeys(winreg: Any, key: Any) -> list[str]:
    names: list[str] = []
    for index in range(_MAX_SUBKEYS):
        try:
            names.append(str(winreg.EnumKey(key, index)))
        except OSError:  # ERROR_NO_MORE_ITEMS ends the enumeration
            break
    return names


def _display_devices(winreg: Any, errors: list[JsonValue]) -> dict[str, dict[str, JsonValue]]:
    """The PCI device instances whose driver is a display class subkey: "0000" -> its
    instance id and Enum values (LocationInformation, ...)."""
    devices: dict[str, dict[str, JsonValue]] = {}
    try:
        pci = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, PCI_ENUM_KEY)
    except OSError as exc:
        errors.append(f"{PCI_ENUM_KEY}: {_error(exc)}")
        return devices
    prefix = DISPLAY_CLASS_GUID.lower() + "\\"
    with pci:
        for device_name in _subkeys(winreg, pci):
            if not device_name.upper().startswith("VEN_"):
                continue
            try:
                device_key = winreg.OpenKey(pci, device_name)
            except OSError:
                continue
            with device_key:
                for instance in _subkeys(winreg, device_key):
                    try:
                        instance_key = winreg.OpenKey(device_key, instance)
                    except OSError:
                        continue
                    with instance_key:
                        values = _read_values(winreg, instance_key, DEVICE_VALUES, [])
                    driver = values.get("Driver")
                    link = driver.get("value") if isinstance(driver, dict) else None
                    if isinstance(link, str) and link.lower().startswith(prefix):
                        devices[link[len(prefix):]] = {
                            "instance_id": f"PCI\\{device_name}\\{instance}", "values": values}
    return devices


def collect_registry(winreg: Any) -> JsonValue:
    """The display class key's numbered subkeys with their values, each joined to its PCI
    device instance. Never raises: a denied or missing key is an error entry."""
    errors: list[JsonValue] = []
    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value,
                                    "key": f"HKLM\\{DISPLAY_CLASS_KEY}", "errors": errors}
    try:
        display = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, DISPLAY_CLASS_KEY)
    except PermissionError as exc:
        answer.update(status=ProbeState.PERMISSION_DENIED.value, error=_error(exc))
        return answer
    except OSError as exc:
        answer.update(status=ProbeState.ERROR.value, error=_error(exc))
        return answer
    devices = _display_devices(winreg, errors)
    adapters: list[JsonValue] = []
    with display:
        for name in _subkeys(winreg, display):
            if not (len(name) == 4 and name.isdigit()):  # "Configuration", "Properties"
                continue
            entry_errors: list[JsonValue] = []
            try:
                subkey = winreg.OpenKey(display, name)
            except OSError as exc:
                adapters.append({"subkey": name, "values": {}, "errors": [_error(exc)]})
                continue
            with subkey:
                values = _read_values(winreg, subkey, DISPLAY_VALUES, entry_errors)
            entry: dict[str, JsonValue] = {"subkey": name, "values": values,
                                           "errors": entry_errors}
            if name in devices:
                entry["device"] = devices[name]
            adapters.append(entry)
    answer["adapters"] = adapters
    return answer


def collect_registry_live() -> JsonValue:
    """`collect_registry` over the standard library's winreg (Windows only)."""
    try:
        winreg = importlib.import_module("winreg")
    except ImportError as exc:
        return {"status": ProbeState.LIBRARY_MISSING.value,
                "error": f"no winreg module (not Windows): {exc}"}
    return collect_registry(winreg)


# ----------------------------------------------------------------------------- DXGI

# IID_IDXGIFactory1 {770aae78-f26f-4dba-a829-253c83d1b387} (dxgi.h).
_IID_FACTORY1 = (0x770AAE78, 0xF26F, 0x4DBA, (0xA8, 0x29, 0x25, 0x3C, 0x83, 0xD1, 0xB3, 0x87))
# Vtable slots, in dxgi.h's declaration order: IUnknown 0-2 (Release 2), IDXGIObject 3-6,
# IDXGIFactory 7-11, IDXGIFactory1::EnumAdapters1 12; IDXGIAdapter 7-9,
# IDXGIAdapter1::GetDesc1 10 (py-win32more's generated Dxgi module gives EnumAdapters1
# @commethod(12): https://github.com/ynkdir/py-win32more).
_SLOT_RELEASE = 2
# ctypes' WinDLL and WINFUNCTYPE exist on Windows only; typed loosely so that mypy on Linux
# accepts them (on Linux the AttributeError is the "not Windows" answer).
_WINDOWS_CTYPES: Any = ctypes
_SLOT_ENUM_ADAPTERS1 = 12
_SLOT_GET_DESC1 = 10
_DXGI_ERROR_NOT_FOUND = 0x887A0002  # EnumAdapters1 past the last adapter
_MAX_ADAPTERS = 64


class _Guid(ctypes.Structure):
    _fields_: ClassVar[list[tuple[str, Any]]] = [
        ("Data1", ctypes.c_uint32), ("Data2", ctypes.c_uint16), ("Data3", ctypes.c_uint16),
        ("Data4", ctypes.c_ubyte * 8)]


class _AdapterDesc1(ctypes.Structure):
    """DXGI_ADAPTER_DESC1 as dxgi.h declares it
    (https://learn.microsoft.com/en-us/windows/win32/api/dxgi/ns-dxgi-dxgi_adapter_desc1):
    WCHAR Description[128]; UINT VendorId, DeviceId, SubSysId, Revision; SIZE_T
    DedicatedVideoMemory, DedicatedSystemMemory, SharedSystemMemory; LUID AdapterLuid
    (DWORD LowPart; LONG HighPart); UINT Flags."""

    _fields_: ClassVar[list[tuple[str, Any]]] = [
        ("Description", ctypes.c_wchar * 128), ("VendorId", ctypes.c_uint),
        ("DeviceId", ctypes.c_uint), ("SubSysId", ctypes.c_uint), ("Revision", ctypes.c_uint),
        ("DedicatedVideoMemory", ctypes.c_size_t), ("DedicatedSystemMemory", ctypes.c_size_t),
        ("SharedSystemMemory", ctypes.c_size_t), ("LuidLowPart", ctypes.c_uint32),
        ("LuidHighPart", ctypes.c_int32), ("Flags", ctypes.c_uint)]


def _method(pointer: Any, slot: int, *argtypes: Any) -> Callable[..., int]:
    """The COM method at `slot` of the object at `pointer`, as a callable (stdcall: Windows
    only)."""
    vtable = ctypes.cast(pointer, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p))).contents
    prototype = _WINDOWS_CTYPES.WINFUNCTYPE(ctypes.c_long, ctypes.c_void_p, *argtypes)
    function: Callable[..., int] = prototype(vtable[slot])
    return function


def adapter_record(index: int, desc: Any) -> dict[str, JsonValue]:
    """One DXGI_ADAPTER_DESC1 as raw JSON (numbers as DXGI gives them)."""
    return {
        "index": index, "description": str(desc.Description),
        "vendor_id": int(desc.VendorId), "device_id": int(desc.DeviceId),
        "subsys_id": int(desc.SubSysId), "revision": int(desc.Revision),
        "dedicated_video_memory_bytes": int(desc.DedicatedVideoMemory),
        "dedicated_system_memory_bytes": int(desc.DedicatedSystemMemory),
        "shared_system_memory_bytes": int(desc.SharedSystemMemory),
        "luid_high": int(desc.LuidHighPart) & 0xFFFFFFFF,
        "luid_low": int(desc.LuidLowPart) & 0xFFFFFFFF,
        "flags": int(desc.Flags),
    }


def collect_dxgi() -> JsonValue:
    """Every adapter `IDXGIFactory1::EnumAdapters1` lists, software adapters included (the
    reader skips them). Never raises."""
    try:
        dxgi = _WINDOWS_CTYPES.WinDLL("dxgi.dll")
    except (AttributeError, OSError) as exc:
        return {"status": ProbeState.LIBRARY_MISSING.value,
                "error": f"dxgi.dll cannot be loaded: {_error(exc)}"}
    iid = _Guid(_IID_FACTORY1[0], _IID_FACTORY1[1], _IID_FACTORY1[2],
                    (ctypes.c_ubyte * 8)(*_IID_FACTORY1[3]))
    factory = ctypes.c_void_p()
    create = dxgi.CreateDXGIFactory1
    create.restype = ctypes.c_long
    create.argtypes = [ctypes.POINTER(_Guid), ctypes.POINTER(ctypes.c_void_p)]
    hresult = create(ctypes.byref(iid), ctypes.byref(factory))
    if hresult != 0 or not factory.value:
        return {"status": ProbeState.ERROR.value,
                "error": f"CreateDXGIFactory1 failed: HRESULT 0x{hresult & 0xFFFFFFFF:08X}"}
    adapters: list[JsonValue] = []
    answer: dict[str, JsonValue] = {"status": ProbeState.OK.value, "adapters": adapters}
    try:
        enum_adapters = _method(factory, _SLOT_ENUM_ADAPTERS1, ctypes.c_uint,
                                ctypes.POINTER(ctypes.c_void_p))
        for index in range(_MAX_ADAPTERS):
            adapter = ctypes.c_void_p()
            hresult = enum_adapters(factory, index, ctypes.byref(adapter))
            if hresult & 0xFFFFFFFF == _DXGI_ERROR_NOT_FOUND:
                break
            if hresult != 0 or not adapter.value:
                answer["error"] = (f"EnumAdapters1({index}) failed: "
                                   f"HRESULT 0x{hresult & 0xFFFFFFFF:08X}")
                break
            try:
                desc = _AdapterDesc1()
                get_desc = _method(adapter, _SLOT_GET_DESC1, ctypes.POINTER(_AdapterDesc1))
                hresult = get_desc(adapter, ctypes.byref(desc))
                if hresult == 0:
                    adapters.append(adapter_record(index, desc))
                else:
                    adapters.append({"index": index, "error": f"GetDesc1 failed: HRESULT "
                                                             f"0x{hresult & 0xFFFFFFFF:08X}"})
            finally:
                _method(adapter, _SLOT_RELEASE)(adapter)
    finally:
        _method(factory, _SLOT_RELEASE)(factory)
    return answer
