"""A small fake of the standard library's `winreg` (Windows only), over a dictionary of keys.

It follows the real module (https://docs.python.org/3/library/winreg.html): `OpenKey(key,
sub_key, reserved=0, access=KEY_READ)` returns a handle usable as a context manager and raises
FileNotFoundError for a key that does not exist (PermissionError for one marked denied);
`EnumKey(key, index)` names the index-th subkey and raises OSError past the last one;
`QueryValueEx(key, name)` returns `(value, type)` and raises FileNotFoundError for a missing
value. Key and value names compare without regard to case, as the registry does. The REG_*
and HKEY_* constants have winreg's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

HKEY_LOCAL_MACHINE = 0x80000002
KEY_READ = 0x20019
REG_NONE = 0
REG_SZ = 1
REG_EXPAND_SZ = 2
REG_BINARY = 3
REG_DWORD = 4
REG_MULTI_SZ = 7
REG_QWORD = 11

_ROOTS = {HKEY_LOCAL_MACHINE: "HKLM"}


@dataclass
class FakeKey:
    """One key: its values (name -> (value, REG_* type)), and whether opening it is denied."""

    values: Mapping[str, tuple[Any, int]] = field(default_factory=dict)
    denied: bool = False


class HKEYType:
    """An open key: the path it names, closed by `Close` or the end of a `with` block."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.closed = False

    def Close(self) -> None:
        self.closed = True

    def __enter__(self) -> HKEYType:
        return self

    def __exit__(self, *exc: object) -> None:
        self.Close()


class FakeWinreg:
    """The module: `keys` maps "HKLM\\SYSTEM\\..." paths to FakeKey. Parent keys exist
    implicitly when a descendant is listed."""

    HKEY_LOCAL_MACHINE = HKEY_LOCAL_MACHINE
    KEY_READ = KEY_READ
    REG_NONE = REG_NONE
    REG_SZ = REG_SZ
    REG_EXPAND_SZ = REG_EXPAND_SZ
    REG_BINARY = REG_BINARY
    REG_DWORD = REG_DWORD
    REG_MULTI_SZ = REG_MULTI_SZ
    REG_QWORD = REG_QWORD

    def __init__(self, keys: Mapping[str, FakeKey]) -> None:
        self._keys = {path.lower(): key for path, key in keys.items()}
        self._names = {path.lower(): path for path in keys}
        self.opened: list[HKEYType] = []

    def _path(self, key: HKEYType | int, sub_key: str) -> str:
        base = _ROOTS[key] if isinstance(key, int) else key.path
        return f"{base}\\{sub_key}" if sub_key else base

    def _exists(self, path: str) -> bool:
        lowered = path.lower()
        return lowered in self._keys or any(p.startswith(lowered + "\\") for p in self._keys)

    def OpenKey(self, key: HKEYType | int, sub_key: str, reserved: int = 0,
                access: int = KEY_READ) -> HKEYType:
        if isinstance(key, HKEYType) and key.closed:
            raise OSError(6, "The handle is invalid")
        path = self._path(key, sub_key)
        if not self._exists(path):
            raise FileNotFoundError(2, "The system cannot find the file specified")
        entry = self._keys.get(path.lower())
        if entry is not None and entry.denied:
            raise PermissionError(5, "Access is denied")
        handle = HKEYType(path)
        self.opened.append(handle)
        return handle

    def EnumKey(self, key: HKEYType, index: int) -> str:
        prefix = key.path.lower() + "\\"
        children: list[str] = []
        for lowered, original in self._names.items():
            if lowered.startswith(prefix):
                child = original[len(prefix):].split("\\", 1)[0]
                if child not in children:
                    children.append(child)
        if index >= len(children):
            raise OSError(259, "No more data is available")
        return children[index]

    def QueryValueEx(self, key: HKEYType, value_name: str) -> tuple[Any, int]:
        entry = self._keys.get(key.path.lower())
        values = {name.lower(): found for name, found in (entry.values if entry else {}).items()}
        found = values.get(value_name.lower())
        if found is None:
            raise FileNotFoundError(2, "The system cannot find the file specified")
        return found
