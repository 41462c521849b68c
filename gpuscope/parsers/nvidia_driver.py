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

The kernel's words for a GPU the loaded driver will not drive, whatever the driver generation
(each message is joined over the NVRM lines it spans):

- the legacy notice, ``NVRM: The NVIDIA GeForce GT 710 GPU installed in this system is`` /
  ``supported through the NVIDIA 470.xx Legacy drivers. ... The 535.129.03 NVIDIA driver will
  ignore`` / ``this GPU.`` (branches "1.0-96xx", "96.43.xx", "173.14.xx", "304.xx", "340.xx",
  "390.xx", "470.xx", "580.xx"; the GPU's name as the kernel prints it, the ignoring driver's
  version);
- ``NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:139a)`` followed by "is not supported by
  open nvidia.ko because it does not include the required GPU System Processor (GSP)" (the open
  module), "requires use of the NVIDIA open kernel modules" (the proprietary module), "is not
  supported by the NVIDIA 535.54.03 driver release" / "by the 280.13 NVIDIA Linux graphics
  driver release", or "has fallen off the bus".

Each names a GPU: a `Layer.PCI` sighting (vendor NVIDIA, the printed name, the bus, the device
id; the vendor half of "PCI ID" is not read, as only NVIDIA's GPUs reach this driver).

NVIDIA Container Toolkit errors (``nvidia-container-cli: initialization error: ...``), which
speak of the host's driver: "WSL environment detected but no adapters were found" (a WSL guest
without a GPU adapter), "nvml error: driver not loaded", "load library failed:
libnvidia-ml.so.1", "nvml error: driver/library version mismatch".

Signal kinds emitted:

- ``nvml.driver_library_mismatch`` (detail = "client X, kernel module Y") for an NVRM API
  mismatch or the container toolkit's NVML mismatch (no detail);
- ``nvidia.legacy_gpu`` (detail = the legacy branch as printed: "580.xx"): the loaded driver
  ignores a GPU that only a legacy branch supports;
- ``nvidia.open_module_unsupported`` (detail = bus): the open module refuses a GPU (no GSP);
- ``nvidia.open_module_required`` (detail = bus): the proprietary module refuses a GPU that
  only the open module drives;
- ``nvidia.device_unsupported`` (detail = bus): this driver release does not know the GPU;
- ``nvidia.gpu_unreachable`` (detail = bus): the GPU fell off the bus;
- ``wsl.no_gpu_adapter``, ``nvidia.driver_not_loaded``, ``nvml.library_missing``: the container
  toolkit's errors above;
- ``nvidia.module_missing`` (detail = the kernel release whose module directory lacks it, or
  None): modprobe or modinfo finds no NVIDIA kernel module for the running kernel, or finds
  one built for another kernel: ``modprobe: FATAL: Module nvidia not found in directory
  /lib/modules/5.17.5-76051705-generic`` (also ``nvidia_drm``, ``nvidia_uvm``, Debian's
  ``nvidia-current``, the 2011 ``FATAL: Module nvidia not found.``, ``modinfo: ERROR: Module
  nvidia not found.``) and a module file this kernel cannot load: ``modprobe: ERROR: could not
  insert 'nvidia': Invalid module format`` / ``Exec format error``, insmod's ``could not insert
  module nvidia.ko: ...`` and module-init-tools' ``FATAL: Error inserting nvidia (/lib/modules/
  .../nvidia.ko): Invalid module format``.

Only the lines holding the words of the messages above are read, at most 2,000 per word (a
paste that repeats a message more often says nothing more; `parse` says when lines were left
out).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import GpuFacts, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import Collector, lowered_text, never_raises, none_on_error

FORMATS: tuple[str, ...] = ("nvidia-driver-version",)

_MAX_LINES = 200_000
_MAX_LINE_CHARS = 2000
_MAX_SHOWN_CHARS = 400
_MESSAGE_LINES = 6  # NVRM lines one API-mismatch message spans at most
_GPU_MESSAGE_LINES = 9  # NVRM lines one message about a GPU spans at most (the GSP one: 8)
_MAX_GPUS = 64  # more GPUs are not one machine's kernel log
_SNIFF_LINES = 20

_MODULE = re.compile(
    r"NVIDIA UNIX (?P<open>Open )?(?:\S{1,20} )?Kernel Module(?: for \S{1,20})?\s{1,8}"
    r"(?P<version>\d{1,4}(?:\.\d{1,4}){1,3})\b")
_ARCH = re.compile(r"NVIDIA UNIX (?:Open Kernel Module for (\S{1,20})|(\S{1,20}) Kernel Module)")
_MISMATCH = re.compile(
    r"API mismatch: the client (?:'[^']{0,200}' \(pid \d{1,10}\) )?has the version "
    r"(?P<client>\d{1,4}(?:\.\d{1,4}){1,3}), but this kernel module has the version "
    r"(?P<kernel>\d{1,4}(?:\.\d{1,4}){1,3})")

# A message about one GPU: "The NVIDIA GPU <bus> (PCI ID: <vendor>:<device>)" or, in the
# legacy notice, "The NVIDIA <name> GPU installed in this system".
_GPU_BUS = re.compile(
    r"^The NVIDIA GPU (?P<bus>[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])"
    r"(?:\s{1,4}\(PCI ID: [0-9a-fA-F]{4}:(?P<device>[0-9a-fA-F]{4})\))?")
_LEGACY_NAME_END = " GPU installed in this system"
_LEGACY_BRANCH = re.compile(r"supported through the NVIDIA (?P<branch>[\w.-]{1,20}) Legacy driver")
_VERSION = r"\d{1,4}(?:\.\d{1,4}){1,3}|1\.0-\d{4}"
_IGNORES = re.compile(rf"The (?P<version>{_VERSION}) NVIDIA driver will ignore")
_UNSUPPORTED_RELEASE = re.compile(
    rf"not supported by the(?: NVIDIA)? (?P<version>{_VERSION})?(?: NVIDIA)?(?: Linux)?"
    r"(?: graphics)? ?driver release")
# What the kernel says of the GPU, in the message after its bus: (words, signal kind, the
# flavour of the module that prints it).
_GPU_VERDICTS: tuple[tuple[str, str, str | None], ...] = (
    ("not supported by open nvidia.ko", "nvidia.open_module_unsupported", "open"),
    ("requires use of the NVIDIA open kernel modules", "nvidia.open_module_required",
     "proprietary"),
    ("driver release", "nvidia.device_unsupported", None),
    ("fallen off the bus", "nvidia.gpu_unreachable", None),
)
# NVRM lines that begin another message: a message about a GPU stops before them.
_OTHER_MESSAGES = ("The NVIDIA ", "GPU 0", "No NVIDIA", "None of the", "loading NVIDIA",
                   "API mismatch", "Xid", "RmInit", "rm_init")
# The NVIDIA Container Toolkit's errors (libnvidia-container), words -> signal kind.
_TOOLKIT_ERRORS: tuple[tuple[str, str], ...] = (
    ("WSL environment detected but no adapters were found", "wsl.no_gpu_adapter"),
    ("nvml error: driver not loaded", "nvidia.driver_not_loaded"),
    ("load library failed: libnvidia-ml.so", "nvml.library_missing"),
    ("nvml error: driver/library version mismatch", "nvml.driver_library_mismatch"),
)


# modprobe/modinfo: an NVIDIA module missing from the kernel's module directory, and a module
# file that this kernel cannot load (built for another one).
_MODULE_NOT_FOUND = re.compile(
    r"(?:FATAL|ERROR): (?:Module )?nvidia[\w-]{0,30} not found"
    r"(?: in directory \S{0,300}?/lib/modules/(?P<release>[\w.+~-]{1,80}))?", re.IGNORECASE)
_MODULE_WRONG_KERNEL = re.compile(
    r"(?:could not insert (?:module )?'?|Error inserting )(?:[^\s':]{0,200}/)?nvidia[\w-]{0,30}"
    r"(?:\.ko)?'?(?: \([^)]{0,300}\))?: (?:Invalid module format|Exec format error)",
    re.IGNORECASE)


# Every line that shows something holds one of these (case as given), and only those lines
# are read: "not found" and "insert" with "vidia" in any case, and an NVRM message that begins
# "The NVIDIA " (not PyTorch's "The NVIDIA driver on your system is too old", as a long
# session may print it thousands of times).
_WORDS = ("API mismatch", "Kernel Module", "nvidia-container-cli")
_MODULE_WORDS = ("not found", "insert")
_VIDIA = re.compile("vidia", re.IGNORECASE)
_GPU_MESSAGE_START = re.compile(r"NVRM:[^\S\n]*The NVIDIA ")
_CHUNK = 1 << 20  # characters searched at a time
# Lines holding one word that `scan` reads: a paste that repeats them thousands of times says
# nothing more (evidence is capped, facts are first-wins), and `scan` runs on every paste.
_MAX_WORD_LINES = 2_000
_MODULE_LINES = "'not found' or 'insert' with 'nvidia'"
_GPU_MESSAGES = "'NVRM: The NVIDIA '"


def _cut(text: str, start: int, stop: int) -> str:
    """The line text[start:stop] as read: without the "\r" of a CRLF, cut to
    `_MAX_LINE_CHARS` (and no more of a long line copied than that)."""
    if stop - start > _MAX_LINE_CHARS:
        return text[start:start + _MAX_LINE_CHARS]
    line = text[start:stop]
    return line[:-1] if line.endswith("\r") else line


def _ends(text: str, word: str, chunk: int, chunk_end: int) -> list[int]:
    """The end of each line of text[chunk:chunk_end] that holds `word`, in order."""
    find = text.find
    found = []
    at = find(word, chunk, chunk_end)
    while at >= 0:
        end = find("\n", at, chunk_end)
        end = chunk_end if end < 0 else end
        found.append(end)
        at = find(word, end + 1, chunk_end)
    return found


def _module_ends(text: str, chunk: int, chunk_end: int) -> list[int]:
    """The end of each line of text[chunk:chunk_end] that holds one of `_MODULE_WORDS` and
    "vidia" in any case, in order. Many lines with the words: the chunk is lower-cased once,
    and the lines of the rarer of the words and "vidia" are read."""
    hits = sum(text.count(word, chunk, chunk_end) for word in _MODULE_WORDS)
    if hits == 0:
        return []
    lowered = lowered_text(text[chunk:chunk_end]) if hits > 16 else None
    if lowered is not None and lowered.count("vidia") < hits:
        found, at = [], lowered.find("vidia")
        while at >= 0:
            start = text.rfind("\n", 0, chunk + at) + 1
            end = text.find("\n", chunk + at, chunk_end)
            end = chunk_end if end < 0 else end
            stop = min(end, start + _MAX_LINE_CHARS)
            if any(text.find(word, start, stop) >= 0 for word in _MODULE_WORDS):
                found.append(end)
            at = lowered.find("vidia", end + 1 - chunk)
        return found
    ends: set[int] = set()
    for word in _MODULE_WORDS:
        for end in _ends(text, word, chunk, chunk_end):
            start = text.rfind("\n", 0, end) + 1
            stop = min(end, start + _MAX_LINE_CHARS)
            if (_VIDIA.search(text, start, stop) if lowered is None
                    else lowered.find("vidia", start - chunk, stop - chunk) >= 0):
                ends.add(end)
    return sorted(ends)


def _gpu_message_ends(text: str, chunk: int, chunk_end: int) -> list[int]:
    """The end of each line of text[chunk:chunk_end] with an NVRM message about a GPU."""
    found = []
    position = chunk
    while (match := _GPU_MESSAGE_START.search(text, position, chunk_end)) is not None:
        end = text.find("\n", match.start(), chunk_end)
        end = chunk_end if end < 0 else end
        found.append(end)
        position = end + 1
    return found


def _word_lines(text: str, per_word: int,
                unread: dict[str, int]) -> Iterator[tuple[int, str, int]]:
    """(1-based number, line as read, offset of its end) of the first `_MAX_LINES` lines that
    may show something, in order, at most `per_word` of them for each word (`unread`: the end
    of the first line left out, by word): a search of the whole text per word, a chunk at a
    time, and no work for the other lines."""
    size = len(text)
    left = dict.fromkeys((*_WORDS, _MODULE_LINES, _GPU_MESSAGES), per_word)
    number = 1  # of the line that starts at `counted`
    counted = chunk = 0
    while chunk < size:
        chunk_end = text.find("\n", chunk + _CHUNK) + 1 or size
        ends: set[int] = set()
        for word in left:
            if left[word] <= 0:
                continue
            if word == _MODULE_LINES:
                found = _module_ends(text, chunk, chunk_end)
            elif word == _GPU_MESSAGES:
                found = _gpu_message_ends(text, chunk, chunk_end)
            else:
                found = _ends(text, word, chunk, chunk_end)
            ends.update(found[:left[word]])
            if len(found) > left[word]:
                unread.setdefault(word, found[left[word]])
            left[word] -= len(found)
        for end in sorted(ends):
            start = text.rfind("\n", 0, end) + 1
            number += text.count("\n", counted, start)
            counted = start
            if number > _MAX_LINES:
                return
            yield number, _cut(text, start, end), end
        chunk = chunk_end


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """``/proc/driver/nvidia/version``: its first line, after at most a prompt line."""
    head = [line.strip() for line in text[:20_000].split("\n", _SNIFF_LINES)[:_SNIFF_LINES]
            if line.strip()]
    for line in head[:2]:
        if line.startswith("NVRM version:") and _MODULE.search(line):
            return ("nvidia-driver-version", 0.9)
    return None


@dataclasses.dataclass
class _Gpu:
    """One GPU the kernel's messages name, by bus or (the legacy notice) by name."""

    line: int  # 1-based, the first message naming it
    bus: str | None = None
    device_id: str | None = None
    name: str | None = None


@dataclasses.dataclass
class _Seen:
    """What a line did, with the lines after it that it read (`after`, each with its "\n"):
    its facts and GPUs were set the first time, so the same lines again only add evidence to
    the same signals, the same problems, and the GPU names it set."""

    after: str
    after_lines: int
    signals: list[tuple[str, str | None]] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    names: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    full: bool = False  # every signal holds all the evidence it keeps


class _Out(Collector):
    def __init__(self, source: str, text: str) -> None:
        self.shown: dict[int, str] = {}  # the lines read, by number
        super().__init__(source, [], max_line_chars=_MAX_SHOWN_CHARS, max_evidence=20,
                         read=self.shown)
        self.text = text
        self.gpus: dict[str, _Gpu] = {}
        self.noted: _Seen | None = None
        self.after_lines = 0  # lines read after the line being read
        self.cut_short = False  # that read ran into the end of the text or `_MAX_LINES`

    def note(self, kind: str, detail: str | None) -> None:
        if self.noted is not None:
            self.noted.signals.append((kind, detail))

    def signal_at(self, kind: str, detail: str | None, number: int) -> None:
        self.note(kind, detail)
        super().signal_at(kind, detail, number)

    def signal_lines(self, kind: str, detail: str | None, first: int, last: int) -> None:
        """A signal shown by lines `first` to `last` (the first four of them)."""
        self.note(kind, detail)
        if not self.signal_full(kind, detail):
            last = min(last, first + 3)
            self.signal(kind, detail, *(self.ref(n) for n in range(first, last + 1)))

    def lines_after(self, number: int, end: int, count: int) -> Iterator[str]:
        """Up to `count` lines after line `number`, which ends at offset `end`."""
        text, size = self.text, len(self.text)
        for following in range(number + 1, number + count + 1):
            if following > _MAX_LINES or end >= size:
                self.cut_short = True
                return
            start = end + 1
            end = text.find("\n", start)
            if end < 0:
                end = size
                self.cut_short = True  # the last line: a longer one elsewhere starts the same
            line = self.shown[following] = _cut(text, start, end)
            self.after_lines = max(self.after_lines, following - number)
            yield line

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
            self.problem(f"an NVIDIA Jetson kernel module (L4T {version}): its version "
                         "is an L4T release, not a driver branch")
        else:
            self.stack_fact("nvidia_driver_version", version, self.where(number))
        self.stack_fact("nvidia_kernel_module", "open" if found.group("open") else "proprietary",
                        self.where(number))
        self.host_fact("os", "linux", self.where(number))

    def problem(self, text: str) -> None:
        self.problems.append(text)
        if self.noted is not None:
            self.noted.problems.append(text)

    def gpu(self, key: str, number: int) -> _Gpu | None:
        if key not in self.gpus and len(self.gpus) < _MAX_GPUS:
            self.gpus[key] = _Gpu(number)
        return self.gpus.get(key)

    def name_gpu(self, key: str, name: str, number: int) -> None:
        gpu = self.gpu(key, number)
        if gpu is not None:
            gpu.name = name
        if self.noted is not None:
            self.noted.names.append((key, name))

    def sightings(self) -> list[GpuSighting]:
        built = []
        for gpu in self.gpus.values():
            where = self.where(gpu.line)
            values: dict[str, Any] = {"vendor": Vendor.NVIDIA, "pci_vendor_id": "0x10de"}
            if gpu.bus is not None:
                values["pci_bus"] = gpu.bus
            if gpu.device_id is not None:
                values["pci_device_id"] = gpu.device_id
            if gpu.name is not None:
                values["name"] = gpu.name
            missing = {"kernel_driver": message(
                "the NVIDIA driver refused this GPU (kernel log)")}
            built.append(GpuSighting(
                layer=Layer.PCI, facts=dataclasses.replace(GpuFacts(), **values),
                field_sources={key: where for key in values}, missing_reasons=missing))
        return built


def _fragment(line: str) -> str | None:
    """The text after the last "NVRM:" of a line (each piece of a syslog "#012" line is one)."""
    index = line.rfind("NVRM:")
    return line[index + 5:].strip() if index >= 0 else None


def _message(out: _Out, number: int, end: int, first: str, limit: int) -> tuple[str, int]:
    """The message that starts with `first` (the text after NVRM: on line `number`, which ends
    at offset `end`, with the rest of a syslog "#012" line), joined with the NVRM lines that go
    on with it (at most `limit`), and its last line's number."""
    pieces = [first]
    last = number
    for following in out.lines_after(number, end, 0 if "#012" in first else limit):
        piece = _fragment(following)
        if not piece or piece.startswith(_OTHER_MESSAGES):
            break
        pieces.append(piece)
        last += 1
    return " ".join(" ".join(pieces).split()), last


def _gpu_message(out: _Out, first: str, number: int, end: int) -> None:
    """A message naming one GPU: a sighting, what the kernel says of it, the driver version."""
    message, last = _message(out, number, end, first, _GPU_MESSAGE_LINES)
    # ">" ends a line journalctl cut at the terminal's width
    message = " ".join(message.replace("#012", " ").replace(">", " ").split())
    where = out.where(number)
    found = _GPU_BUS.match(message)
    if found is not None:
        bus = _bus(found.group("bus"))
        gpu = out.gpu(bus, number)
        if gpu is not None:
            gpu.bus = bus
            device = found.group("device")
            gpu.device_id = gpu.device_id or (f"0x{device.lower()}" if device else None)
        rest = message[found.end():]
        for words, kind, flavour in _GPU_VERDICTS:
            if words in rest:
                out.signal_lines(kind, bus, number, last)
                if flavour is not None:
                    out.stack_fact("nvidia_kernel_module", flavour, where)
                break
        release = _UNSUPPORTED_RELEASE.search(rest) if "driver release" in rest else None
        if release is not None and release.group("version"):
            out.stack_fact("nvidia_driver_version", release.group("version"), where)
        out.host_fact("os", "linux", where)
        return
    end_of_name = message.find(_LEGACY_NAME_END, 0, 200)
    branch = _LEGACY_BRANCH.search(message)
    if end_of_name < 0 or branch is None:
        return
    name = message[len("The NVIDIA "):end_of_name].strip()
    if name:
        out.name_gpu(f"name:{name.lower()}", name, number)
    out.signal_lines("nvidia.legacy_gpu", branch.group("branch"), number, last)
    ignores = _IGNORES.search(message)
    if ignores is not None:
        out.stack_fact("nvidia_driver_version", ignores.group("version"), where)
    out.host_fact("os", "linux", where)


def _bus(bus: str) -> str:
    """'0000:01:00.0' / '00000000:01:00.0' -> '0000:01:00.0' (lower-case, 4-digit domain)."""
    domain, rest = bus.lower().split(":", 1)
    domain = domain[-4:] if int(domain, 16) <= 0xFFFF else domain.lstrip("0")
    return f"{domain.rjust(4, '0')}:{rest}"


def _toolkit_line(out: _Out, line: str, number: int) -> None:
    for words, kind in _TOOLKIT_ERRORS:
        if words in line:
            out.signal_at(kind, None, number)
            if kind == "wsl.no_gpu_adapter":
                out.host_fact("os", "wsl", out.where(number))
            return


def _module_line(out: _Out, line: str, number: int) -> None:
    """modprobe's or modinfo's word that no NVIDIA module fits the running kernel."""
    missing = _MODULE_NOT_FOUND.search(line)
    if missing is not None:
        out.signal_at("nvidia.module_missing", missing.group("release"), number)
        out.host_fact("os", "linux", out.where(number))
    elif _MODULE_WRONG_KERNEL.search(line) is not None:
        out.signal_at("nvidia.module_missing", None, number)
        out.host_fact("os", "linux", out.where(number))


def _read(out: _Out) -> dict[str, int]:
    """The lines that may show something, at most `_MAX_WORD_LINES` per word; the words whose
    lines were not all read, each with the end of the first line left out. A line read before,
    followed by the same lines it read then, is read again only while its signals take more
    evidence."""
    text = out.text
    seen: dict[str, list[_Seen]] = {}
    unread: dict[str, int] = {}
    for number, line, end in _word_lines(text, _MAX_WORD_LINES, unread):
        before = seen.get(line, [])
        known = None
        for candidate in before:
            if number + candidate.after_lines <= _MAX_LINES and text.startswith(
                    candidate.after, end + 1):
                known = candidate
                break
        if known is not None and (known.full or all(
                out.signal_full(kind, detail) for kind, detail in known.signals)):
            known.full = True
            if known.problems:
                out.problems.extend(known.problems)
            for key, name in known.names:
                if (gpu := out.gpus.get(key)) is not None:
                    gpu.name = name
            continue
        out.shown[number] = line
        out.noted = noted = _Seen("", 0)
        out.after_lines, out.cut_short = 0, False
        _read_line(out, line, number, end)
        out.noted = None
        if known is None and not out.cut_short and len(before) < 4:
            stop = end
            for _ in range(out.after_lines):
                stop = text.find("\n", stop + 1)
            noted.after, noted.after_lines = text[end + 1:stop + 1], out.after_lines
            seen.setdefault(line, []).append(noted)
    return unread


def _read_line(out: _Out, line: str, number: int, end: int) -> None:
    if "nvidia-container-cli" in line:
        _toolkit_line(out, line, number)
        return
    if ("not found" in line or "could not insert" in line or "rror inserting" in line) \
            and "vidia" in line.lower():
        _module_line(out, line, number)
    if "NVRM" not in line:
        return
    if "Kernel Module" in line:
        out.module_line(line, number)
    if "The NVIDIA " in line:
        parts = line.split("#012")
        for index, part in enumerate(parts):
            first = _fragment(part)
            if first is not None and first.startswith("The NVIDIA "):
                rest = (_fragment(p) or p.strip() for p in parts[index + 1:])
                _gpu_message(out, "#012".join([first, *rest]), number, end)
                break
    if "API mismatch" not in line:
        return
    # The message goes on over the next NVRM lines (or "#012"-joined pieces of this one).
    pieces = [p for p in (_fragment(piece) for piece in line.split("#012")) if p]
    for following in out.lines_after(number, end, _MESSAGE_LINES):
        piece = _fragment(following)
        if piece is None or "API mismatch" in following:
            break
        pieces.append(piece)
    message = " ".join(" ".join(pieces).split())
    found = _MISMATCH.search(message)
    if found is None:
        return
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
    out = _Out(source, text)
    unread = [f"only the first {_MAX_WORD_LINES:,} lines holding "
              f"{word if word in (_MODULE_LINES, _GPU_MESSAGES) else repr(word)} were read"
              for word, end in _read(out).items()
              if text.count("\n", 0, end) < _MAX_LINES]  # else past the lines read anyway
    out.problems[:0] = unread  # first: a paste of repeated lines may have many problems
    if "nvidia_driver_version" not in out.stack and "nvidia_l4t_version" not in out.stack:
        out.problems.append("no 'NVRM version: NVIDIA UNIX ... Kernel Module <version>' line")
    return out.result("nvidia-driver-version", out.sightings())


def scan(text: str, source: str) -> ParsedOutput:
    """The NVRM lines inside text of any format (a journal, dmesg, a pasted session): the
    loaded module's version, an API mismatch and its two versions, the GPUs the driver refuses
    and why; and the NVIDIA Container Toolkit's errors. Never raises."""
    try:
        out = _Out(source, text)
        _read(out)
        return ParsedOutput(format="nvidia-driver-version", source=source,
                            sightings=tuple(out.sightings()),
                            stack_facts=tuple(out.stack.values()),
                            host_facts=tuple(out.host.values()), signals=out.built_signals())
    except Exception:  # a scanner bug must not lose the file's parse
        return ParsedOutput(format="nvidia-driver-version", source=source)
