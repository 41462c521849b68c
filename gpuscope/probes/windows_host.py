"""The Windows host probe: whether WSL is there and which distributions it has (`wsl --status`,
`wsl -l -v`), and the Pythons the `py` launcher knows (`py -0p`). Stack facts `wsl_distros`,
`wsl_default_version`, `wsl_default_distro` and `py_launcher_pythons`.

wsl.exe writes UTF-16LE when its output is not a console (unless WSL_UTF8=1 is set), which a
caller decoding it as the ANSI code page sees as letters with NULs between them; `decode_wsl`
undoes that. `py -0p` prints one line per runtime, `" %-16s %s"` of its `-V:TAG` (with " *"
for the default) and its path (CPython PC/launcher2.c `_printEnvironment`); launchers before
Python 3.11 print `-3.9-64` style tags in the same place.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from gpuscope.evidence import CommandResult, System
from gpuscope.i18n import join, message
from gpuscope.model import Fact, ProbeResult, ProbeState, ProbeStatus
from gpuscope.parsers import wsl_list
from gpuscope.probes.sourced import probe_bug
from gpuscope.probes.windows_collectors import is_windows

PROBE_NAME = "windows_host"
WSL_STATUS = ("wsl", "--status")
WSL_LIST = ("wsl", "-l", "-v")
PY_LIST = ("py", "-0p")

_DEFAULT_VERSION = re.compile(r"^\s*Default Version\s*:\s*([12])\s*$", re.IGNORECASE)
_DEFAULT_DISTRO = re.compile(r"^\s*Default Distribution\s*:\s*(\S+)\s*$", re.IGNORECASE)
# "* Ubuntu-22.04    Running         2": default mark, name, state, WSL version.
_DISTRO_ROW = re.compile(r"^\s*(\*)?\s*(\S+)\s+(\S+)\s+([12])\s*$")
_PY_ROW = re.compile(r"^\s*(-V:\S+|-\d[\w.\-]*)(\s+\*)?\s+(\S.*?)\s*$")
_ENCODINGS = ("cp1252", "latin-1", "utf-8")


def decode_wsl(text: str) -> str:
    """wsl.exe's UTF-16LE output as read by a caller that decoded it as 8-bit text: the bytes
    recovered and decoded as UTF-16LE; else, at least, the NULs and byte order mark dropped."""
    if "\x00" not in text:
        return text.lstrip("\ufeff")
    for encoding in _ENCODINGS:
        try:
            raw = text.encode(encoding)
        except UnicodeEncodeError:
            continue
        if len(raw) % 2:
            raw += b"\x00"
        try:
            return raw.decode("utf-16-le").lstrip("\ufeff")
        except UnicodeDecodeError:
            continue
    return text.replace("\x00", "").lstrip("\ufeff\xff\xfe")


@dataclass(frozen=True, slots=True)
class WslDistro:
    name: str
    state: str
    version: int
    default: bool


def parse_wsl_list(text: str) -> list[WslDistro]:
    """The rows of `wsl -l -v` (the header line, in Windows' language, has no version number
    at its end and is skipped)."""
    rows: list[WslDistro] = []
    for line in decode_wsl(text).splitlines():
        match = _DISTRO_ROW.match(line)
        if match is not None:
            rows.append(WslDistro(name=match.group(2), state=match.group(3),
                                  version=int(match.group(4)), default=bool(match.group(1))))
    return rows


def parse_wsl_status(text: str) -> tuple[str | None, str | None]:
    """(default version, default distribution) of `wsl --status`, English lines only."""
    version = distro = None
    for line in decode_wsl(text).splitlines():
        if version is None and (match := _DEFAULT_VERSION.match(line)):
            version = match.group(1)
        if distro is None and (match := _DEFAULT_DISTRO.match(line)):
            distro = match.group(1)
    return version, distro


@dataclass(frozen=True, slots=True)
class LauncherPython:
    tag: str  # "3.12", "Astral/CPython3.11.9", "3.9-64"
    path: str
    default: bool


def parse_py_list(text: str) -> list[LauncherPython]:
    """The runtimes of `py -0p`."""
    found: list[LauncherPython] = []
    for line in text.splitlines():
        match = _PY_ROW.match(line)
        if match is None:
            continue
        tag = match.group(1)
        tag = tag[3:] if tag.startswith("-V:") else tag[1:]
        found.append(LauncherPython(tag=tag, path=match.group(3),
                                    default=bool(match.group(2))))
    return found


@dataclass(slots=True)
class _Host:
    facts: list[Fact] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def found(self, key: str, value: str, source: str) -> None:
        self.facts.append(Fact(key, value, source=source))

    def missing(self, key: str, reason: str, source: str) -> None:
        self.facts.append(Fact(key, None, source=source, missing_reason=reason))


def _failure(result: CommandResult, command: str) -> str:
    if result.error == "not_found":
        return message("{command} not found", command=command)
    if result.error:
        return message("{command} failed ({error})", command=command, error=result.error)
    output = decode_wsl(result.stdout).strip() or decode_wsl(result.stderr).strip()
    first = next((line.strip() for line in output.splitlines() if line.strip()), "")
    return message("{command} exited with status {code}: {output}", command=command,
                   code=result.returncode, output=first[:200])


def _parsed_fact(text: str, source: str, key: str) -> str | None:
    """`key` as gpuscope.parsers.wsl_list reads `text` (it knows localised tables too), or
    None when that parser is not there or finds no value."""
    parsed = wsl_list.parse(decode_wsl(text), source)
    for fact in (*parsed.stack_facts, *parsed.host_facts):
        if fact.key == key and isinstance(fact.value, (str, int)) and str(fact.value):
            return str(fact.value)
    return None


def _read_wsl(host: _Host, listed: CommandResult, status: CommandResult) -> None:
    command = " ".join(WSL_LIST)
    if listed.ok:
        distros = parse_wsl_list(listed.stdout)
        # The parser reads states in Windows' display language too ("Wird ausgeführt").
        text = _parsed_fact(listed.stdout, command, "wsl_distros") or ", ".join(
            f"{d.name} (WSL{d.version}, {d.state})" for d in distros)
        default = next((d.name for d in distros if d.default), None) or _parsed_fact(
            listed.stdout, command, "wsl_default_distro")
        if text:
            host.found("wsl_distros", text, command)
        else:
            host.missing("wsl_distros", message("{command} listed no distribution",
                                                command=command), command)
        if default:
            host.found("wsl_default_distro", default, f"{command} (marked *)")
    elif listed.error == "not_found":
        host.missing("wsl_distros", message("wsl.exe not found: WSL is not installed"),
                     command)
    else:
        # No distribution installed yet ends with a non-zero status and a sentence.
        host.missing("wsl_distros", _failure(listed, command), command)
    status_command = " ".join(WSL_STATUS)
    version, _distro = parse_wsl_status(status.stdout) if status.ok else (None, None)
    if status.ok and version is None:
        version = _parsed_fact(status.stdout, status_command, "wsl_default_version")
    if version:
        host.found("wsl_default_version", version, f"{status_command}: Default Version")
    elif status.ok:
        host.missing("wsl_default_version", message(
            "{command} has no English 'Default Version' line", command=status_command),
            status_command)
    else:
        host.missing("wsl_default_version", _failure(status, status_command), status_command)


def _read_py(host: _Host, result: CommandResult) -> None:
    command = " ".join(PY_LIST)
    if not result.ok:
        host.missing("py_launcher_pythons", _failure(result, command), command)
        return
    pythons = parse_py_list(result.stdout)
    if not pythons:
        host.missing("py_launcher_pythons", message("{command} listed no Python",
                                                    command=command), command)
        return
    host.found("py_launcher_pythons", ", ".join(
        f"{p.tag}{' (default)' if p.default else ''}: {p.path}" for p in pythons), command)


def probe_windows_host(system: System) -> ProbeResult:
    """WSL and the py launcher's Pythons (Windows). Never raises."""
    try:
        if not is_windows(system):
            return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.NOT_APPLICABLE,
                                           reason=message("not Windows")))
        host = _Host()
        # At once: `wsl --status` alone can take seconds, and the inventory waits 10 s.
        with ThreadPoolExecutor(max_workers=3, thread_name_prefix="windows-host") as pool:
            listed, status, pythons = pool.map(
                lambda argv: system.run(argv, timeout_s=6.0), (WSL_LIST, WSL_STATUS, PY_LIST))
        _read_wsl(host, listed, status)
        _read_py(host, pythons)
        found = [f for f in host.facts if f.value is not None]
        parts = [message("{key}: {value}", key=f.key, value=f.value) for f in found]
        reason = join("; ", parts) if parts else message("no WSL and no py launcher")
        return ProbeResult(ProbeStatus(PROBE_NAME, ProbeState.OK, reason=reason),
                           stack_facts=tuple(host.facts))
    except Exception as exc:  # a probe never raises: the failure becomes its status
        return probe_bug(PROBE_NAME, message("Windows host probe failed: {error}",
                                             error=f"{type(exc).__name__}: {exc}"))
