"""Import pasted or captured outputs (rocminfo, nvidia-smi, collect_env, ...) as one machine.

Several files given together describe one machine: their sightings join into GPUs the same
way live probes' do, and the result is labelled imported in every view.

Each input is outside data: only a regular file (or standard input) is read, at most
MAX_PASTE_BYTES of it, decompressed too when it is gzip. A file that cannot be read raises
InputFileError. One that is read but is no tool output (empty, an image, random bytes, a
gpuscope snapshot, text in no format gpuscope knows) is *rejected*: it is listed in
`ImportedMachine.rejected` and as an import probe in error, with a one-line reason that names
the file, and the others are still imported. `ImportedMachine.refused` says which of them
stop a diagnosis.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuscope.inventory import assemble
from gpuscope.knowledge.hypervisors import hypervisor_of_cpu_model
from gpuscope.model import (
    Fact,
    Framework,
    Host,
    Inventory,
    LlmRuntime,
    Origin,
    OriginKind,
    ParsedOutput,
    ProbeResult,
    ProbeState,
    ProbeStatus,
    Signal,
)
from gpuscope.parsers import parse_any
from gpuscope.parsers._llm_common import merge_runtimes
from gpuscope.parsers.llm_logs import with_llm_runtimes
from gpuscope.untrusted import (
    MAX_PASTE_BYTES,
    UntrustedInputError,
    gunzip,
    gunzip_head,
    is_gzip,
    load_json,
    read_head,
    read_regular_file,
    read_stream,
    too_large,
)

MAX_FILE_BYTES = MAX_PASTE_BYTES
STDIN_NAME = "stdin"

# What --from and the Import dialog read, in the words users know the tools by; each parser
# format is named here (a test keeps the two in step).
ACCEPTED_OUTPUTS = (
    "rocminfo, rocm-smi, amd-smi, nvidia-smi, /proc/driver/nvidia/version, clinfo, "
    "PyTorch's collect_env, a Python session or PyTorch's warnings, dmesg or "
    "journalctl, lspci, dkms status, dpkg -l, a package list (rpm -qa, dnf, pacman -Q, apt "
    "list, zypper) or install log (apt, amdgpu-install), pip show, pip list, pip freeze or "
    "conda list, nvcc --version, lshw -class display, uname -a or /etc/os-release, an "
    "Ollama log (ollama serve, journalctl -u ollama), llama.cpp's output (llama-cli, "
    "llama-server, --list-devices, --version), an LM Studio log, hipInfo.exe or hipconfig, "
    "Win32_VideoController (Get-CimInstance, Get-WmiObject, ConvertTo-Json, wmic), dxdiag /t, "
    "wsl -l -v or wsl --status, or an error message"
)
FORMAT_FAMILIES: dict[str, str] = {
    "rocminfo": "rocminfo", "rocm-smi": "rocm-smi", "amd-smi": "amd-smi",
    "nvidia-smi": "nvidia-smi", "clinfo": "clinfo", "collect_env": "collect_env",
    "kernel-log": "dmesg", "lspci": "lspci", "dkms-status": "dkms status",
    "dpkg-list": "dpkg -l", "nvcc-version": "nvcc --version", "error-text": "error message",
    "package-": "package list", "pip-": "pip", "host-info": "uname -a or /etc/os-release",
    "nvidia-driver": "/proc/driver/nvidia/version", "python-": "a Python session",
    "lshw": "lshw -class display", "ollama-log": "Ollama log", "llama-cpp-": "llama.cpp's output",
    "lmstudio-log": "LM Studio log", "hipinfo": "hipInfo", "hipconfig": "hipconfig",
    "win32-videocontroller": "Win32_VideoController", "dxdiag": "dxdiag /t",
    "wsl-list": "wsl -l -v",
}

# Binary files people pick by mistake, by their first bytes.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x7fELF", "a program (ELF)"),
    (b"SQLite format 3\x00", "an SQLite database (a gpuscope recording opens with "
                             "--recording)"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
    (b"BZh", "a bzip2 archive"),
)
_HEAD_BYTES = 64 * 1024
# A snapshot as `gpuscope snapshot` writes it: sorted keys, so "access" comes first.
_SNAPSHOT_HEAD = re.compile(rb'\s*\{\s*"access"\s*:\s*\{')


@dataclass(frozen=True, slots=True)
class RejectedInput:
    """An input that was read but is no tool output gpuscope reads, and why (one line that
    names it). `unrecognised_text` marks text in no format gpuscope knows (a `uname -a`, a
    `vulkaninfo`), which may sit beside outputs it does know; the others (empty, binary, a
    gpuscope snapshot) are never a tool's output."""

    source: str
    reason: str
    unrecognised_text: bool = False


@dataclass(frozen=True, slots=True)
class ImportedMachine:
    inventory: Inventory
    frameworks: tuple[Framework, ...]
    signals: tuple[Signal, ...]
    parsed: tuple[ParsedOutput, ...]  # one per input, in order (rejected ones as "unknown")
    rejected: tuple[RejectedInput, ...] = ()
    # The LLM runtimes the inputs show (Ollama's, llama.cpp's, LM Studio's logs), one per
    # runtime: several logs of one runtime are joined.
    llm_runtimes: tuple[LlmRuntime, ...] = ()

    @property
    def refused(self) -> tuple[RejectedInput, ...]:
        """The rejected inputs that stop a diagnosis: all of them when nothing was
        recognised, else those that are no text output at all (text in no known format
        beside known outputs is only named)."""
        if len(self.rejected) == len(self.parsed):
            return self.rejected
        return tuple(r for r in self.rejected if not r.unrecognised_text)


class InputFileError(UntrustedInputError):
    """A file that cannot be read at all (missing, unreadable, not a regular file, too large),
    with a one-line reason; `kind` as UntrustedInputError's."""


@dataclass(frozen=True, slots=True)
class InputText:
    """One input, read: its name as a source of evidence, its text, and, when it is no tool
    output, the one-line reason (the text is then empty)."""

    source: str
    text: str
    rejected: str | None = None
    shown: str = ""  # the name as the user gave it, for messages (default: `source`)


_stdin_bytes: bytes | None = None


def _read_stdin() -> bytes:
    """Standard input, read once per process (a check before the import reads it again)."""
    global _stdin_bytes
    if _stdin_bytes is None:
        stream = sys.stdin.buffer if sys.stdin is not None else None
        _stdin_bytes = read_stream(stream, MAX_PASTE_BYTES, name="standard input")
    return _stdin_bytes


def load_input(path: str) -> InputText:
    """Read one input: a path, or '-' for standard input. Raises InputFileError when it cannot
    be read; a file that is read but is no tool output comes back with `rejected` set."""
    shown = "standard input" if path == "-" else path
    source = STDIN_NAME if path == "-" else (os.path.basename(path) or path)
    try:
        data = _read_stdin() if path == "-" else read_regular_file(
            path, MAX_PASTE_BYTES, name=path, what="a pasted output")
    except UntrustedInputError as exc:
        head = b"" if path == "-" or exc.kind != "too_large" else read_head(path, _HEAD_BYTES)
        if head and _looks_like_snapshot(gunzip_head(head, _HEAD_BYTES) if is_gzip(head)
                                         else head):
            raise InputFileError(_snapshot_reason(shown), kind="wrong_kind") from None
        raise InputFileError(str(exc), kind=exc.kind) from None
    if is_gzip(data):
        if _looks_like_snapshot(gunzip_head(data, _HEAD_BYTES)):
            return InputText(source, "", _snapshot_reason(shown), shown)
        try:
            data = gunzip(data, MAX_PASTE_BYTES, name=shown, what="a pasted output")
        except UntrustedInputError as exc:
            raise InputFileError(str(exc), kind=exc.kind) from None
    binary = _binary_kind(data)
    if binary is not None:
        return InputText(source, "", _no_output(shown, f"is {binary}, not a tool's output"), shown)
    text = _decode(data)
    return InputText(source, text, text_rejection(shown, text), shown)


def read_input(path: str) -> tuple[str, str]:
    """(source name, text) for a path, or '-' for standard input. Raises InputFileError when
    it cannot be read, or is no tool output (the reason names it)."""
    item = load_input(path)
    if item.rejected is not None:
        raise InputFileError(item.rejected, kind="wrong_kind")
    return item.source, item.text


def _decode(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # PowerShell's `>` writes UTF-16
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _binary_kind(data: bytes) -> str | None:
    """What a binary file is ("a JPEG image", "binary data"), or None for text."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    head = data[:_HEAD_BYTES]
    if b"\x00" in head:
        return "binary data"
    undecodable = head.decode("utf-8", errors="replace").count("\ufffd")
    return "binary data" if undecodable > max(8, len(head) // 20) else None


def _looks_like_snapshot(head: bytes) -> bool:
    return b'"gpuscope-snapshot"' in head or _SNAPSHOT_HEAD.match(head) is not None


def _snapshot_reason(shown: str) -> str:
    use = ("save it to a file and use --replay FILE" if shown == "standard input"
           else f"use --replay {shown}")
    return f"{shown} is a gpuscope snapshot, not a tool's output: {use}"


def _no_output(shown: str, why: str) -> str:
    return f"{shown} {why}. gpuscope reads the output of {ACCEPTED_OUTPUTS}"


def text_rejection(shown: str, text: str) -> str | None:
    """Why this text is no tool output (one line naming `shown`), or None when it may be one:
    empty, a gpuscope document, or JSON beyond the bounds. Whether it is in a known format
    is the parsers' to say."""
    if len(text) > MAX_PASTE_BYTES:  # pasted into the window rather than read from a file
        return too_large(shown, "a pasted output", MAX_PASTE_BYTES)
    if not text.strip():
        return _no_output(shown, "is empty" if not text else "holds only blank space")
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        doc = load_json(text, name=shown)
    except UntrustedInputError as exc:
        # Text that merely starts with a bracket (a kernel log) is not JSON: the parsers read it.
        return None if exc.kind == "malformed" else str(exc)
    if isinstance(doc, dict):
        if doc.get("format") == "gpuscope-snapshot":
            return _snapshot_reason(shown)
        schema = doc.get("schema")
        if isinstance(schema, str) and schema.startswith("gpuscope."):
            return (f"{shown} is a gpuscope document ({schema[:40]}), not a tool's output: "
                    "open a report on the Compare page")
    return None


def _host_from_facts(facts: Iterable[Fact]) -> Host | None:
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for fact in facts:
        if fact.value is None or fact.key in values:
            continue
        values[fact.key] = fact.value
        if fact.source:
            sources[fact.key] = fact.source
    if not values:
        return None
    os_name = str(values.get("os", "unknown"))
    if "distro" not in values and "distro_hint" in values:
        # Only a kernel release named the distribution ("6.8.0-45-generic" is Ubuntu's): a
        # hint that any file's os-release or lsb_release overrules.
        values["distro"] = values["distro_hint"]
        if "distro_hint" in sources:
            sources["distro"] = sources["distro_hint"]
    hypervisor = hypervisor_of_cpu_model(_str(values.get("cpu_model")))
    if hypervisor and os_name != "wsl" and not values.get("virtual_machine"):
        # A virtual CPU model ("Common KVM processor", rocminfo's CPU agent) is a guest's trace.
        values["virtual_machine"] = True
        values["virtual_machine_hint"] = f"{hypervisor} (virtual CPU {values['cpu_model']})"
        if "cpu_model" in sources:
            sources["virtual_machine"] = sources["cpu_model"]
    return Host(
        os=os_name,
        distro=_str(values.get("distro")),
        kernel=_str(values.get("kernel")),
        cpu_model=_str(values.get("cpu_model")),
        wsl=os_name == "wsl",
        container=bool(values.get("container", False)),
        container_hint=_str(values.get("container_hint")),
        virtual_machine=bool(values.get("virtual_machine", False)),
        virtual_machine_hint=_str(values.get("virtual_machine_hint")),
        field_sources={k: v for k, v in sources.items() if not k.endswith("_hint")},
    )


def _str(value: object) -> str | None:
    return None if value is None else str(value)


# A driver version a dkms listing gives, and the fact naming the kernels it was built for.
_DKMS_KERNELS = {"amdgpu_driver_version": "amdgpu_dkms_kernels",
                 "nvidia_driver_version": "nvidia_dkms_kernels"}


def _for_running_kernel(result: ProbeResult, kernel: str) -> ProbeResult:
    """A dkms module built only for other kernels is not the driver that runs: when another
    input shows the running kernel, its version becomes a missing fact that says why."""
    built = {f.key: str(f.value) for f in result.stack_facts if f.value is not None}
    facts = []
    for fact in result.stack_facts:
        kernels = built.get(_DKMS_KERNELS.get(fact.key, ""))
        if kernels is not None and fact.value is not None and kernel not in kernels.split(","):
            fact = Fact(fact.key, None, fact.source, missing_reason=(
                f"dkms built {fact.value} for {kernels.replace(',', ', ')}, not for the "
                f"running kernel {kernel}: that module is not the one loaded"))
        facts.append(fact)
    return dataclasses.replace(result, stack_facts=tuple(facts))


def _parse(item: InputText) -> tuple[ParsedOutput, RejectedInput | None]:
    """The input parsed, and why it is rejected (None when it is used)."""
    if item.rejected is not None:
        return (ParsedOutput(format="unknown", source=item.source, problems=(item.rejected,)),
                RejectedInput(item.source, item.rejected))
    parsed = with_llm_runtimes(parse_any(item.text, item.source), item.text, item.source)
    if parsed.format == "unknown" and not parsed.signals:
        reason = _no_output(item.shown or item.source, "is in no format gpuscope knows")
        return parsed, RejectedInput(item.source, reason, unrecognised_text=True)
    return parsed, None


def import_items(items: Sequence[InputText]) -> ImportedMachine:
    """Read inputs, as one machine; the rejected ones are listed, not parsed."""
    results: list[ProbeResult] = []
    parsed_all: list[ParsedOutput] = []
    rejected: list[RejectedInput] = []
    for item in items:
        parsed, refusal = _parse(item)
        parsed_all.append(parsed)
        if refusal is not None:
            rejected.append(refusal)
            status = ProbeStatus(f"import:{item.source}", ProbeState.ERROR,
                                 reason=refusal.reason)
        else:
            status = ProbeStatus(
                f"import:{parsed.source}", ProbeState.OK,
                reason=parsed.format + (f" ({'; '.join(parsed.problems)})"
                                        if parsed.problems else ""))
        results.append(ProbeResult(status, sightings=parsed.sightings,
                                   stack_facts=parsed.stack_facts))
    host = _host_from_facts(f for p in parsed_all for f in p.host_facts)
    if host is not None:
        if host.kernel:
            results = [_for_running_kernel(r, host.kernel) for r in results]
        results.append(ProbeResult(ProbeStatus("import:host", ProbeState.OK), host=host))
    origin = Origin(kind=OriginKind.IMPORTED, source=", ".join(item.source for item in items))
    inventory = assemble(results, origin)
    frameworks = tuple(f for p in parsed_all for f in p.frameworks)
    signals = tuple(s for p in parsed_all for s in p.signals)
    runtimes = merge_runtimes([r for p in parsed_all for r in p.llm_runtimes])
    return ImportedMachine(inventory, frameworks, signals, tuple(parsed_all), tuple(rejected),
                           llm_runtimes=runtimes)


def import_texts(texts: Sequence[tuple[str, str]]) -> ImportedMachine:
    """(source name, text) pairs, as one machine."""
    return import_items([InputText(source, text, text_rejection(source, text))
                          for source, text in texts])


def import_files(paths: Sequence[str]) -> ImportedMachine:
    """Files ('-' for standard input), as one machine. Raises InputFileError for the first
    that cannot be read; those that are no tool output are in `rejected`."""
    return import_items([load_input(path) for path in paths])
