"""The version of the NVIDIA kernel module that is loaded, as Linux reports it:
``/proc/driver/nvidia/version`` (``cat`` of it, with or without the prompt line) and the kernel's
NVRM lines in any other text (a journal, dmesg, a syslog with ``#012`` for newlines).

- ``NVRM version: NVIDIA UNIX x86_64 Kernel Module  520.56.06  Thu Oct  6 21:38:55 UTC 2022``
  (the proprietary module; also ``x86``, ``aarch64``, ``ppc64le``), and
  ``NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  (...)``
  (the open module, 515 and later);
- ``NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14 ...`` in a kernel log;
- ``NVRM: API mismatch: the client has the version 367.44, but`` / ``NVRM: this kernel module
  has the version 367.35.  Please ...``, and the 560+ wording ``the client 'nvidia-smi' (pid
  1234)`` / ``NVRM: has the version 595.84, but this kernel module has`` / ``NVRM: the version
  595.80.``, over as many lines as the kernel broke it into.

Stack facts: ``nvidia_driver_version`` (the loaded module), ``nvidia_userspace_version`` (the
client side of an API mismatch: the installed user-space driver), ``nvidia_kernel_module``
("open" or "proprietary"). A Jetson's module reports its L4T release (35.3.1), not a driver
branch: that is ``nvidia_l4t_version``, and no driver version is claimed. Host fact: ``os`` linux
(``/proc/driver/nvidia`` and NVRM kernel messages exist only there among the systems gpuscope
names).

Signal kinds emitted: ``nvml.driver_library_mismatch`` (detail = "client X, kernel module Y")
for an NVRM API mismatch.
"""

from __future__ import annotations

import re

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import Collector, never_raises, none_on_error

FORMATS: tuple[str, ...] = ("nvidia-driver-version",)

_MAX_LINES = 200_000
_MAX_LINE_CHARS = 2000
_MAX_SHOWN_CHARS = 400
_MESSAGE_LINES = 6  # NVRM lines one API-mismatch message spans at most
_SNIFF_LINES = 20

_MODULE = re.compile(
    r"NVIDIA UNIX (?P<open>Open )?(?:\S{1,20} )?Kernel Module(?: for \S{1,20})?\s{1,8}"
    r"(?P<version>\d{1,4}(?:\.\d{1,4}){1,3})\b")
_ARCH = re.compile(r"NVIDIA UNIX (?:Open Kernel Module for (\S{1,20})|(\S{1,20}) Kernel Module)")
_MISMATCH = re.compile(
    r"API mismatch: the client (?:'[^']{0,200}' \(pid \d{1,10}\) )?has the version "
    r"(?P<client>\d{1,4}(?:\.\d{1,4}){1,3}), but this kernel module has the version "
    r"(?P<kernel>\d{1,4}(?:\.\d{1,4}){1,3})")


def _lines(text: str) -> list[str]:
    lines = text.split("\n", _MAX_LINES)[:_MAX_LINES]
    return [(line[:-1] if line.endswith("\r") else line)[:_MAX_LINE_CHARS] for line in lines]


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """``/proc/driver/nvidia/version``: its first line, after at most a prompt line."""
    head = [line.strip() for line in text[:20_000].split("\n", _SNIFF_LINES)[:_SNIFF_LINES]
            if line.strip()]
    for line in head[:2]:
        if line.startswith("NVRM version:") and _MODULE.search(line):
            return ("nvidia-driver-version", 0.9)
    return None


class _Out(Collector):
    def __init__(self, source: str, lines: list[str]) -> None:
        super().__init__(source, lines, max_line_chars=_MAX_SHOWN_CHARS, max_evidence=20)

    def module_line(self, line: str, number: int) -> None:
        found = _MODULE.search(line)
        if found is None:
            return
        version = found.group("version")
        arch = _ARCH.search(line)
        machine = (arch.group(1) or arch.group(2)) if arch else ""
        if machine in ("aarch64", "arm64") and int(version.split(".", 1)[0]) < 100:
            # Jetson (L4T): no desktop or data-center driver branch has ever been below 100
            self.stack_fact("nvidia_l4t_version", version, self.where(number))
            self.problems.append(f"an NVIDIA Jetson kernel module (L4T {version}): its version "
                                 "is an L4T release, not a driver branch")
        else:
            self.stack_fact("nvidia_driver_version", version, self.where(number))
        self.stack_fact("nvidia_kernel_module", "open" if found.group("open") else "proprietary",
                        self.where(number))
        self.host_fact("os", "linux", self.where(number))


def _fragment(line: str) -> str | None:
    """The text after the last "NVRM:" of a line (each piece of a syslog "#012" line is one)."""
    index = line.rfind("NVRM:")
    return line[index + 5:].strip() if index >= 0 else None


def _read(out: _Out) -> None:
    lines = out.lines
    for number, line in enumerate(lines, start=1):
        if "NVRM" not in line:
            continue
        if "Kernel Module" in line:
            out.module_line(line, number)
        if "API mismatch" not in line:
            continue
        # The message goes on over the next NVRM lines (or "#012"-joined pieces of this one).
        pieces = [p for p in (_fragment(piece) for piece in line.split("#012")) if p]
        for following in lines[number:number + _MESSAGE_LINES]:
            piece = _fragment(following)
            if piece is None or "API mismatch" in following:
                break
            pieces.append(piece)
        message = " ".join(" ".join(pieces).split())
        found = _MISMATCH.search(message)
        if found is None:
            continue
        where = out.where(number)
        out.stack_fact("nvidia_driver_version", found.group("kernel"), where)
        out.stack_fact("nvidia_userspace_version", found.group("client"), where)
        out.host_fact("os", "linux", where)
        out.signal_at("nvml.driver_library_mismatch",
                      f"client {found.group('client')}, kernel module {found.group('kernel')}",
                      number)


@never_raises("nvidia-driver-version")
def parse(text: str, source: str) -> ParsedOutput:
    """``/proc/driver/nvidia/version`` to the loaded module's version and flavour."""
    out = _Out(source, _lines(text))
    _read(out)
    if "nvidia_driver_version" not in out.stack and "nvidia_l4t_version" not in out.stack:
        out.problems.append("no 'NVRM version: NVIDIA UNIX ... Kernel Module <version>' line")
    return out.result("nvidia-driver-version")


def scan(text: str, source: str) -> ParsedOutput:
    """The NVRM lines inside text of any format (a journal, dmesg, a pasted session): the
    loaded module's version, an API mismatch and its two versions. Never raises."""
    try:
        out = _Out(source, _lines(text))
        _read(out)
        return ParsedOutput(format="nvidia-driver-version", source=source,
                            stack_facts=tuple(out.stack.values()),
                            host_facts=tuple(out.host.values()), signals=out.built_signals())
    except Exception:  # a scanner bug must not lose the file's parse
        return ParsedOutput(format="nvidia-driver-version", source=source)
