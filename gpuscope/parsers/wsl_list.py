"""`wsl -l -v` (`wsl --list --verbose`), `wsl -l`, `wsl --status` and `wsl --version`, as
pasted from PowerShell or cmd. `wsl.exe` writes UTF-16LE when redirected: a NUL between the
letters and a BOM are tolerated.

`wsl -l -v` is a table, NAME / STATE / VERSION, the default distribution marked `*`:
```
  NAME              STATE           VERSION
* Ubuntu            Running         2
  docker-desktop    Stopped         2
```
`wsl --status` says `Default Distribution: Ubuntu` and `Default Version: 2` (in the display
language: `默认分发:` / `默认版本:`), `wsl --version` the versions of WSL and Windows.

What it yields (no GPU): host fact os=windows (and `kernel` "10.0.22631" from `wsl --version`'s
Windows version), stack facts `wsl_distros` ("Ubuntu-22.04 (WSL2, Running), docker-desktop
(WSL2, Stopped)"), `wsl_default_distro`, `wsl_default_version` and `wsl_version`.

Signals emitted:
- `platform.wsl_available`: WSL is installed on this Windows; detail = the number of
  distributions, evidence = their lines.
"""

from __future__ import annotations

import re

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import (
    SNIFF_CHARS,
    Collector,
    never_raises,
    none_on_error,
    read_lines,
)
from gpuscope.parsers._windows_text import clean_windows_text, host_windows

FORMATS: tuple[str, ...] = ("wsl-list",)

_HEADER = re.compile(r"^[ \t]*NAME[ \t]+STATE[ \t]+VERSION[ \t]*$")
# A row: the default mark, the name, the state in words of letters (localised: "Running",
# "Wird ausgeführt"), the WSL version.
_ROW = re.compile(r"^[ \t]*(\*?)[ \t]*([^\s*][^\s]{0,80})[ \t]+([^\W\d_]+(?: [^\W\d_]+){0,3})"
                  r"[ \t]+([12])[ \t]*$")
_DEFAULT_DISTRO = re.compile(
    r"^[ \t]*(?:Default Distribution|DefaultWSLDistro|默认分发|默认发行版)[ \t]*[:：][ \t]*(\S.*?)"
    r"[ \t]*$")
_DEFAULT_VERSION = re.compile(
    r"^[ \t]*(?:Default Version|DefaultVersion|默认版本)[ \t]*[:：][ \t]*([12])[ \t]*$")
_WSL_VERSION = re.compile(r"^[ \t]*(?:WSL version|WSL 版本)[ \t]*[:：][ \t]*(\d+(?:\.\d+){1,3})")
_WINDOWS_VERSION = re.compile(
    r"^[ \t]*(?:Windows version|Windows 版本)[ \t]*[:：][ \t]*(\d+\.\d+)\.(\d{4,6})")
# `wsl -l`'s title and default mark in English and Portuguese (microsoft/WSL#6486).
_LIST_TITLE = re.compile(r"^[ \t]*(?:Windows Subsystem for Linux Distributions|"
                         r"Distribuições do Subsistema do Windows para Linux):[ \t]*$")
_LISTED = re.compile(r"^[ \t]*([^\s(]{1,80})(?:[ \t]+\((Default|Padrão)\))?[ \t]*$")
# Markdown's italics or inline code around a pasted block ("_Distribuições ...:" ...
# "Ubuntu-20.04_", "`Windows Subsystem ...:" ... "Legacy (Default)`").
_ITALIC = re.compile(r"^[_`](?=\S)|(?<=\S)[_`]$")
_NO_DISTROS = re.compile(r"has no installed distributions|没有已安装的分发", re.IGNORECASE)
_SNIFF = (re.compile(r"^[ \t]*NAME[ \t]+STATE[ \t]+VERSION[ \t]*$", re.MULTILINE),
          re.compile(r"^[ \t]*(?:Default Version|DefaultVersion|默认版本)[ \t]*[:：][ \t]*[12]"
                     r"[ \t]*$", re.MULTILINE),
          re.compile(r"^[ \t_`]*(?:Windows Subsystem for Linux Distributions|"
                     r"Distribuições do Subsistema do Windows para Linux):", re.MULTILINE),
          re.compile(r"^[ \t]*WSL (?:version|版本)[ \t]*[:：][ \t]*\d", re.MULTILINE))
_MAX_DISTROS = 100


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """The wsl.exe listing or status by its header or keys; never raises."""
    head = clean_windows_text(text[:SNIFF_CHARS])
    if any(pattern.search(head) for pattern in _SNIFF):
        return ("wsl-list", 0.9)
    return None


@never_raises("wsl-list")
def parse(text: str, source: str) -> ParsedOutput:
    """wsl.exe output to the distributions, WSL's defaults and a `platform.wsl_available`
    signal; never raises."""
    lines, cut = read_lines(clean_windows_text(text))
    out = Collector(source, lines, cut=cut)
    host_windows(out, None)
    # name -> (state, version, line); a paste of two listings keeps the later state
    distros: dict[str, tuple[str | None, str | None, int]] = {}
    in_table = in_list = False
    none_line: int | None = None
    for number, raw in enumerate(lines, start=1):
        line = _ITALIC.sub("", raw.rstrip())
        if _HEADER.match(line):
            in_table, in_list = True, False
            continue
        if _LIST_TITLE.match(line):
            in_list, in_table = True, False
            continue
        if (match := _DEFAULT_DISTRO.match(line)) is not None:
            out.stack_fact("wsl_default_distro", match.group(1), out.where(number))
            continue
        if (match := _DEFAULT_VERSION.match(line)) is not None:
            out.stack_fact("wsl_default_version", int(match.group(1)), out.where(number))
            continue
        if (match := _WSL_VERSION.match(line)) is not None:
            out.stack_fact("wsl_version", match.group(1), out.where(number))
            continue
        if (match := _WINDOWS_VERSION.match(line)) is not None:
            out.host_fact("kernel", f"{match.group(1)}.{match.group(2)}", out.where(number))
            continue
        if _NO_DISTROS.search(line):
            none_line = number
            continue
        if in_table and (match := _ROW.match(line)) is not None:
            if len(distros) < _MAX_DISTROS or match.group(2) in distros:
                distros[match.group(2)] = (match.group(3).strip(), match.group(4), number)
            if match.group(1):
                out.stack_fact("wsl_default_distro", match.group(2), out.where(number))
            continue
        if in_list and (match := _LISTED.match(line)) is not None:
            if len(distros) < _MAX_DISTROS or match.group(1) in distros:
                distros[match.group(1)] = (None, None, number)
            if match.group(2):
                out.stack_fact("wsl_default_distro", match.group(1), out.where(number))
            continue
        if line.strip():
            in_table = in_list = False
    _facts(out, distros, none_line)
    if not distros and not out.stack and none_line is None:
        out.problems.append(f"{source}: no WSL distribution or status found")
    return out.result("wsl-list")


def _facts(out: Collector, distros: dict[str, tuple[str | None, str | None, int]],
           none_line: int | None) -> None:
    if distros:
        described = []
        for name, (state, version, _line) in distros.items():
            parts = [f"WSL{version}" if version else "", state or ""]
            inside = ", ".join(p for p in parts if p)
            described.append(f"{name} ({inside})" if inside else name)
        first = min(line for _state, _version, line in distros.values())
        out.stack_fact("wsl_distros", ", ".join(described), out.where(first))
        for _state, _version, number in distros.values():
            out.signal_at("platform.wsl_available", str(len(distros)), number)
    elif none_line is not None:
        out.stack_fact("wsl_distros", "", out.where(none_line))
        out.signal_at("platform.wsl_available", "0", none_line)
    elif out.stack:
        line = next((int(f.source.rpartition(":")[2]) for f in out.stack.values()
                     if f.source and f.source.rpartition(":")[2].isdigit()), None)
        if line is not None:
            out.signal_at("platform.wsl_available", None, line)
