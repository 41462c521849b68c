"""What the Windows importers share: text as Windows tools save it, and the signs of Windows.

PowerShell and cmd redirect the output of `wsl.exe`, `wmic` and `Out-File` as UTF-16LE: read as
UTF-8 or Latin-1 it shows a BOM ("\\ufeff" or "ÿþ") and a NUL after every ASCII letter.
`clean_windows_text` undoes both. GitHub renders a quoted paste with "> " before each line
(`unquoted`), and collapses the line breaks of an issue form's one-line fields.
"""

from __future__ import annotations

import re

from gpuscope.model import Vendor
from gpuscope.parsers._common import Collector

# A drive path (C:\Users, S:\gitroot), a PowerShell prompt, or a Windows-only tool or target.
_WINDOWS_SIGN = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]:\\|\bPS [A-Za-z]:\\|\bhipinfo\.exe\b|\bnvidia-smi\.exe\b|"
    r"\bwsl\.exe\b|x86_64-pc-windows-msvc|\bWDDM\b", re.IGNORECASE)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")

# The NVIDIA release in Windows' driver version: its last five digits
# ("31.0.15.7652" -> 576.52, "32.0.15.8180" -> 581.80; the mapping used by
# https://github.com/the-database/mpv-AnimeJaNai/pull/81).
_NVIDIA_WINDOWS_VERSION = re.compile(r"^\d{1,2}\.\d{1,2}\.1(\d)\.(\d{2})(\d{2})$")


def vendor_from_text(text: str) -> Vendor | None:
    """The GPU maker a Windows listing names in words ("Advanced Micro Devices, Inc.",
    "NVIDIA GeForce ...") where no PCI vendor id is given."""
    lowered = text.lower()
    if "advanced micro devices" in lowered or "radeon" in lowered or "amd " in lowered:
        return Vendor.AMD
    if "nvidia" in lowered:
        return Vendor.NVIDIA
    if "intel" in lowered:
        return Vendor.INTEL
    return None


def clean_windows_text(text: str) -> str:
    """`text` without the BOM and the NULs of UTF-16 read as bytes, and with CRLF as LF."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text.startswith(("\ufeff", "\xff\xfe", "\xfe\xff", "\ufffd\ufffd")):
        text = text.lstrip("\ufeff\xff\xfe\ufffd")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def unquoted(line: str) -> str:
    """A line without the "> " GitHub shows before a quoted paste."""
    return _QUOTE.sub("", line, count=1)


def windows_sign_line(lines: list[str], limit: int = 5000) -> int | None:
    """The 1-based number of the first of `lines` (at most `limit` read) that shows a Windows
    path, prompt or tool; None when none does."""
    for number, line in enumerate(lines[:limit], start=1):
        if _WINDOWS_SIGN.search(line[:2000]):
            return number
    return None


def host_windows(out: Collector, number: int | None) -> None:
    """Host fact os=windows, from line `number` (None: the format itself says so)."""
    out.host_fact("os", "windows", out.where(number, "(a Windows tool's output)"))


def nvidia_release(windows_version: str) -> str | None:
    """NVIDIA's release number in a Windows driver version ("32.0.15.8180" -> "581.80"), or
    None when the version is not of that form."""
    match = _NVIDIA_WINDOWS_VERSION.match(windows_version.strip())
    if match is None:
        return None
    return f"{match.group(1)}{match.group(2)}.{match.group(3)}"
