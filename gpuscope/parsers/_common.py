"""What the importers share: the never-raise wrappers of `parse` and `sniff`, the readers of a
paste's lines (bounded lines, the lines holding a word or matching a pattern, each distinct
line read once), a collector of evidence, signals, facts and problems, and the GPU record and
decoders of the two AMD SMI tools."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from gpuscope.model import (
    EvidenceRef,
    Fact,
    Framework,
    GpuFacts,
    GpuKind,
    GpuSighting,
    Layer,
    ParsedOutput,
    Signal,
    Vendor,
)

R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")
_Parse = Callable[[str, str], R]  # parse(text, source)

# A path like /opt/rocm-6.2.4 names the installed ROCm (signal `rocm.path_version`), and so does
# the build path old ROCm tools print in their errors (".../compute-rocm-rel-3.3/rocminfo/...",
# ".../rocm-rel-2.1/rocm-2.1-96-20190201/...").
ROCM_PATH_RE = re.compile(
    r"(?:/opt/rocm-|/(?:compute-)?rocm-rel-)(\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)(?![\d.]{0,20}\d)")

# Characters of one line that a parser reads. No tool prints a longer line that matters, and
# a bound per line keeps the work per paste linear in its size whatever a line holds.
MAX_LINE_CHARS = 2000
# Lines of one paste that a parser reads line by line (the largest real outputs, a rocminfo of
# 64 partitions or an lspci -vvv of a big server, have tens of thousands).
MAX_LINES = 200_000
# Characters, and lines, at the start of a paste that a sniffer looks at.
SNIFF_CHARS = 200_000
SNIFF_LINES = 5_000
# Problems kept per parse: past these, one line says how many more there were.
MAX_PROBLEMS = 50
# Lines of evidence kept per signal: more only repeat it (and a list searched per line would
# make a paste of repeated lines quadratic).
MAX_EVIDENCE = 20
# Distinct lines whose reading `LineReads` remembers (a paste repeats its lines: each is read
# once; the bound keeps the memory of a paste without repeats in check).
MAX_MEMO_LINES = 50_000

_GFX = re.compile(r"^gfx([0-9a-f]{3,5})$")

# gfx targets made only as the integrated GPU of an APU (LLVM's AMDGPU processor table marks
# them "APU"): a GPU with one of these is integrated whatever a tool calls it.
APU_TARGETS = frozenset({
    "gfx801", "gfx810", "gfx902", "gfx909", "gfx90c", "gfx1013", "gfx1033", "gfx1035",
    "gfx1036", "gfx1037", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
})
# The marketing names of integrated GPUs: "AMD Radeon Graphics" (ROCm's name for most APUs),
# "Radeon 780M", "Radeon 8060S Graphics", "AMD Instinct MI300A", "Ryzen ... w/ Radeon 890M".
_APU_NAME = re.compile(
    r"\bRadeon(?:\(TM\))? \d{3,4}[MS]\b|\bInstinct MI300A\b|\bw/ Radeon\b|"
    r"\bRadeon Vega \d{1,2} Graphics\b", re.IGNORECASE)
# ROCm's name for most APUs, and for nothing it knows to be discrete: a hint only when the gfx
# target is not known.
_GENERIC_APU_NAME = re.compile(r"^(?:AMD )?Radeon(?:\(TM\))? Graphics$", re.IGNORECASE)
# PCI device ids of AMD's integrated GPUs (pci.ids: Raven 15dd, Picasso 15d8, Renoir 1636,
# Lucienne 164c, Cezanne 1638, Barcelo 15e7, Van Gogh 163f, Rembrandt 1681, Mendocino 1506,
# Raphael 164e, Phoenix 15bf/15c8, Phoenix3 1900, Strix 150e, Strix Halo 1586, Granite Ridge
# 13c0; the MI300A 74a0).
APU_DEVICE_IDS = frozenset({
    "0x15dd", "0x15d8", "0x1636", "0x164c", "0x1638", "0x15e7", "0x163f", "0x1681", "0x1506",
    "0x164e", "0x15bf", "0x15c8", "0x1900", "0x150e", "0x1586", "0x13c0", "0x74a0",
})
# PCI device ids of SR-IOV virtual functions of AMD GPUs (pci.ids: "MxGPU", "VF").
VF_DEVICE_IDS = frozenset({"0x686c", "0x73ae", "0x73ce", "0x7461", "0x74b5", "0x74b9"})
_VF_NAME = re.compile(r"\bVF\b|\bMxGPU\b|\bSR-?IOV\b|\bVirtual Function\b", re.IGNORECASE)


def integrated_reason(name: str | None, gfx_target: str | None,
                      device_id: str | None = None) -> str | None:
    """Why a GPU is an APU's integrated GPU, from its gfx target, PCI device id or marketing
    name; None when none says so."""
    if gfx_target in APU_TARGETS:
        return f"{gfx_target} is made only as an APU's integrated GPU"
    if device_id is not None and device_id.lower() in APU_DEVICE_IDS:
        return f"device id {device_id.lower()} is an APU's integrated GPU"
    if name and (_APU_NAME.search(name[:200])
                 or (gfx_target is None and _GENERIC_APU_NAME.match(name.strip()))):
        return f"{name.strip()!r} is the name of an integrated GPU"
    return None


def virtual_function_reason(name: str | None, device_id: str | None) -> str | None:
    """Why a GPU is an SR-IOV virtual function (a slice of a physical GPU that a host gives a
    virtual machine), from its name or PCI device id; None when neither says so."""
    if device_id is not None and device_id.lower() in VF_DEVICE_IDS:
        return f"device id {device_id.lower()} is a virtual function"
    if name and _VF_NAME.search(name[:200]):
        return f"{name.strip()!r} names a virtual function"
    return None
_BUS = re.compile(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$")


def read_lines(text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_LINE_CHARS,
               ) -> tuple[list[str], str | None]:
    """The first `max_lines` lines of `text` (split on "\n", without the "\r" of a CRLF),
    each cut to `max_chars`, and a problem to report when lines were left out. Lines are
    copied only when some line needs it."""
    lines = text.split("\n", max_lines)
    note = None
    if len(lines) > max_lines:
        del lines[max_lines:]
        note = (f"only the first {max_lines:,} lines were read "
                f"(the paste has {text.count(chr(10)) + 1:,})")
    if "\r" in text:
        lines = [line[:-1] if line[-1:] == "\r" else line for line in lines]
    if max(map(len, lines)) > max_chars:
        lines = [line[:max_chars] for line in lines]
    return lines, note


def sniff_lines(text: str) -> list[str]:
    """The non-blank lines a sniffer looks at: at most `SNIFF_LINES` from the first
    `SNIFF_CHARS` characters, each cut to `MAX_LINE_CHARS`."""
    found: list[str] = []
    for line in text[:SNIFF_CHARS].split("\n", SNIFF_LINES * 4):
        if line.strip():
            found.append(line[:MAX_LINE_CHARS])
            if len(found) >= SNIFF_LINES:
                break
    return found


def lines_holding(lines: Sequence[str], needles: Iterable[str]) -> list[int]:
    """The 0-based indexes, in order, of the `lines` that hold one of `needles` (case as
    given). The search runs over the joined lines at C speed, so a long paste whose lines hold
    none of them costs no Python work per line."""
    joined = "\n".join(lines)
    starts: list[int] | None = None
    found: set[int] = set()
    for needle in needles:
        at = joined.find(needle)
        if at < 0:
            continue
        if starts is None:
            starts = [0, *itertools.accumulate(len(line) + 1 for line in lines)]
        while at >= 0:
            index = bisect.bisect_right(starts, at) - 1
            found.add(index)
            at = joined.find(needle, starts[index + 1])
    return sorted(found)


class LineReads(dict[K, V]):
    """What `read` makes of each distinct line (or other key), made once: `reads[line]` reads
    a line not seen before and remembers it while fewer than `max_lines` are remembered. A
    long paste repeats its lines, and a line seen before costs one dict lookup. `read` must
    depend on the line only."""

    def __init__(self, read: Callable[[K], V], max_lines: int = MAX_MEMO_LINES) -> None:
        super().__init__()
        self._read = read
        self._max_lines = max_lines

    def __missing__(self, line: K) -> V:
        value = self._read(line)
        if len(self) < self._max_lines:
            self[line] = value
        return value


def line_around(text: str, at: int, max_chars: int = MAX_LINE_CHARS) -> tuple[int, int]:
    """(start, end) offsets of the line of `text` that holds offset `at`, without its "\n";
    a line longer than `max_chars` is read as the `max_chars` around `at`."""
    size = len(text)
    low = max(0, at - max_chars // 2)
    start = text.rfind("\n", low, at) + 1 or low
    end = text.find("\n", at, min(size, start + max_chars))
    return start, (min(size, start + max_chars) if end < 0 else end)


def key_value(line: str, separator: str = ":") -> tuple[str, str] | None:
    """`key: value` split at the first separator, both stripped (a run of separators after
    the key is one separator: rocminfo's "Name::"); None without a separator or a key. String
    operations, not a regex: linear on any line."""
    key, found, value = line.partition(separator)
    key = key.strip()
    if not found or not key:
        return None
    return key, value.lstrip(separator).strip()


_last_lowered: tuple[str, str] = ("", "")  # (text, lowered): the scanners of one paste share it


def lowered_text(text: str) -> str:
    """`text` lower-cased with every character where it was (only U+0130 lower-cases to two
    characters)."""
    global _last_lowered
    last = _last_lowered
    if last[0] is text:
        return last[1]
    lowered = (text.replace("\u0130", "i") if "\u0130" in text else text).lower()
    if len(text) > 100_000:  # only a long paste is worth keeping
        _last_lowered = (text, lowered)
    return lowered


def anchored_lines(text: str, lowered: str, anchors: tuple[str, ...],
                   max_per_anchor: int, max_chars: int = MAX_LINE_CHARS,
                   ) -> list[tuple[int, str, int]]:
    """(0-based line index, line, offset of its end) of every line holding one of `anchors`
    (lower-case; found in `lowered`, the paste lower-cased with its characters in place), in
    order, at most
    `max_per_anchor` lines per anchor. A line longer than `max_chars` is read as the
    `max_chars` around its anchor. Linear in the size of the paste."""
    spans: dict[int, int] = {}  # start of what is read -> its end
    for anchor in anchors:
        position, seen = 0, 0
        while seen < max_per_anchor:
            at = lowered.find(anchor, position)
            if at < 0:
                break
            start, end = line_around(text, at, max_chars)
            if spans.get(start, -1) < end:
                spans[start] = end
            seen += 1
            position = max(end, at + 1)
    lines = LinesFound(text)
    for start in sorted(spans):
        lines.add(start, spans[start])
    return lines.found


def matching_lines(text: str, lowered: str, pattern: re.Pattern[str], max_lines: int,
                   max_chars: int = MAX_LINE_CHARS) -> tuple[list[tuple[int, str, int]], bool]:
    """Like `anchored_lines`, for the lines where `pattern` (searched in `lowered`) matches,
    in order, at most `max_lines` of them; and whether lines were left out. One search per
    line that matches: linear in the size of the paste when `pattern` is."""
    lines = LinesFound(text)
    for start, end in matching_spans(text, lowered, pattern, max_chars):
        if len(lines.found) >= max_lines:
            return lines.found, True
        lines.add(start, end)
    return lines.found, False


def matching_spans(text: str, lowered: str, pattern: re.Pattern[str], max_chars: int,
                   position: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of each line (as `line_around` reads it) where `pattern`,
    searched in `lowered` from `position` to `end`, matches, in order; one search per line
    that matches."""
    end = len(lowered) if end is None else end
    while (match := pattern.search(lowered, position, end)) is not None:
        at = match.start()
        start, stop = line_around(text, at, max_chars)
        yield start, stop
        position = max(stop, match.end(), at + 1)


class LinesFound:
    """Lines read out of a paste in the order of their offsets: `found` holds (0-based line
    index, the line without a CR, offset of its end), the index counted as lines are added."""

    __slots__ = ("_counted", "_line", "found", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[tuple[int, str, int]] = []
        self._line = self._counted = 0

    def add(self, start: int, end: int) -> None:
        """The line (or part of one) from offset `start` to `end`, at or after the last."""
        self._line += self.text.count("\n", self._counted, start)
        self._counted = start
        self.found.append((self._line, self.text[start:end].rstrip("\r"), end))


def parser_error(fmt: str, source: str, exc: Exception) -> ParsedOutput:
    """The output of a parser that failed: no findings, one problem naming the exception.
    Tests tell it from a real parse by its text, "parser error: <Type>: <message>"."""
    return ParsedOutput(format=fmt, source=source,
                        problems=(f"parser error: {type(exc).__name__}: {exc}",))


def never_raises(fmt: str) -> Callable[[_Parse[R]], _Parse[R | ParsedOutput]]:
    """Decorate a `parse(text, source)` so that an exception in it becomes
    `parser_error(fmt, ...)`: the promise of every parser, a problem, never an exception."""

    def decorate(parse: _Parse[R]) -> _Parse[R | ParsedOutput]:
        @functools.wraps(parse)
        def guarded(text: str, source: str) -> R | ParsedOutput:
            try:
                return parse(text, source)
            except Exception as exc:
                return parser_error(fmt, source, exc)

        return guarded

    return decorate


def none_on_error(sniff: Callable[[str], R]) -> Callable[[str], R | None]:
    """Decorate a `sniff(text)` so that an exception in it answers None (not this format):
    sniffing must never break format detection."""

    @functools.wraps(sniff)
    def guarded(text: str) -> R | None:
        try:
            return sniff(text)
        except Exception:
            return None

    return guarded


class Collector:
    """What one parse finds besides sightings, with the lines that show it.

    `ref`/`where` take 1-based line numbers of `lines` (or of `read`, the lines by their
    numbers, when a parser reads only some). Signals are kept one per
    (kind, detail) in order of first sight, each with its evidence once (at most
    `max_evidence` refs, `MAX_EVIDENCE` unless said); facts are first-wins per key. `cut`:
    the problem `read_lines` reported, the first problem."""

    def __init__(self, source: str, lines: Sequence[str], *, max_line_chars: int = 300,
                 max_evidence: int | None = MAX_EVIDENCE,
                 read: Mapping[int, str] | None = None, cut: str | None = None) -> None:
        self.source = source
        self.lines = lines
        self.read = read
        self.max_line_chars = max_line_chars
        self.max_evidence = max_evidence
        self.stack: dict[str, Fact] = {}
        self.host: dict[str, Fact] = {}
        self.signals: dict[tuple[str, str | None], list[EvidenceRef]] = {}
        self.problems: list[str] = [cut] if cut else []

    def line(self, number: int) -> str | None:
        """Line `number` (1-based), when it was read."""
        if self.read is not None:
            return self.read.get(number)
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else None

    def ref(self, number: int | None) -> EvidenceRef:
        """Line `number` with its trimmed text; no number (or none in range): the source."""
        text = self.line(number) if number is not None else None
        if text is None:
            return EvidenceRef(source=self.source)
        return EvidenceRef(source=self.source, line=number,
                           text=text.strip()[:self.max_line_chars])

    def where(self, number: int | None, fallback: str = "") -> str:
        return f"{self.source}:{number}" if number is not None else f"{self.source} {fallback}"

    def signal(self, kind: str, detail: str | None, *refs: EvidenceRef) -> None:
        found = self.signals.setdefault((kind, detail), [])
        for ref in refs:
            if self.max_evidence is not None and len(found) >= self.max_evidence:
                return
            if ref not in found:
                found.append(ref)

    def signal_full(self, kind: str, detail: str | None) -> bool:
        """Whether this signal holds all the evidence it keeps (a long log says the same
        thing thousands of times: later lines need not be read for it)."""
        found = self.signals.get((kind, detail))
        return (found is not None and self.max_evidence is not None
                and len(found) >= self.max_evidence)

    def signal_at(self, kind: str, detail: str | None, number: int) -> None:
        """A signal shown by line `number` (1-based)."""
        if not self.signal_full(kind, detail):
            self.signal(kind, detail, self.ref(number))

    def has_signal(self, kind: str) -> bool:
        return any(k == kind for k, _ in self.signals)

    def stack_fact(self, key: str, value: str | int | float | bool | None, where: str,
                   missing_reason: str | None = None) -> None:
        if key not in self.stack:
            self.stack[key] = Fact(key, value, where, missing_reason)

    def host_fact(self, key: str, value: str | int | float | bool | None, where: str) -> None:
        if key not in self.host:
            self.host[key] = Fact(key, value, where)

    def built_signals(self) -> tuple[Signal, ...]:
        return tuple(Signal(kind=k, detail=d, evidence=tuple(refs))
                     for (k, d), refs in self.signals.items())

    def result(self, fmt: str, sightings: Sequence[GpuSighting] = (),
               frameworks: Sequence[Framework] = ()) -> ParsedOutput:
        return ParsedOutput(format=fmt, source=self.source, sightings=tuple(sightings),
                            stack_facts=tuple(self.stack.values()),
                            host_facts=tuple(self.host.values()), frameworks=tuple(frameworks),
                            signals=self.built_signals(), problems=capped_problems(self.problems))


def capped_problems(problems: Sequence[str]) -> tuple[str, ...]:
    """At most `MAX_PROBLEMS` problems, the last saying how many more there were."""
    if len(problems) <= MAX_PROBLEMS:
        return tuple(problems)
    more = len(problems) - MAX_PROBLEMS + 1
    return (*problems[:MAX_PROBLEMS - 1], f"... and {more:,} more problems like these")


# ----------------------------------------------------------------------------- AMD SMI tools


@dataclass
class SmiGpu:
    """One GPU as rocm-smi or amd-smi number it: its facts being filled (first value wins),
    where each came from, why some are missing, and its compute partition mode."""

    index: int
    first_seen: str = ""
    values: dict[str, object] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    partition: tuple[str, EvidenceRef] | None = None

    def put(self, name: str, value: object, where: str) -> None:
        if name not in self.values:
            self.values[name] = value
            self.sources[name] = where

    def sighting(self, layer: Layer,
                 extra: Mapping[str, tuple[object, str]] | None = None) -> GpuSighting:
        """The sighting: vendor AMD unless the tool said otherwise, `smi_index`, and the
        `extra` (field -> (value, source)) the caller works out itself."""
        values = dict(self.values)
        sources = dict(self.sources)
        if "vendor" not in values:
            values["vendor"] = Vendor.AMD
            sources["vendor"] = self.first_seen
        values["smi_index"] = self.index
        sources["smi_index"] = self.first_seen
        for name, (value, where) in (extra or {}).items():
            values[name] = value
            sources[name] = where
        missing = {k: v for k, v in self.missing.items() if k not in values}
        facts = GpuFacts(**values)  # type: ignore[arg-type]
        return GpuSighting(layer=layer, facts=facts, field_sources=sources,
                           missing_reasons=missing)


GpuT = TypeVar("GpuT", bound=SmiGpu)


class SmiCollector(Collector, Generic[GpuT]):
    """A `Collector` that also gathers the GPUs of an SMI tool by index, merging outputs."""

    def __init__(self, source: str, lines: list[str],
                 new_gpu: Callable[[int, str], GpuT]) -> None:
        super().__init__(source, lines)
        self._new_gpu = new_gpu
        self.gpus: dict[int, GpuT] = {}

    def gpu(self, index: int, where: str) -> GpuT:
        if index not in self.gpus:
            self.gpus[index] = self._new_gpu(index, where)
        return self.gpus[index]

    def mark_identity(self, gpu: SmiGpu) -> None:
        """An SR-IOV virtual function (a signal too) or an APU's integrated GPU, told by the
        GPU's name, device id or gfx target; a kind already set (a partition) stays."""
        name, device, gfx = (gpu.values.get(key) for key in
                             ("name", "pci_device_id", "gfx_target"))
        name = name if isinstance(name, str) else None
        if virtual_function_reason(name, device if isinstance(device, str) else None):
            where = gpu.sources.get("name") or gpu.sources.get("pci_device_id", gpu.first_seen)
            if "kind" not in gpu.values:
                gpu.values["kind"], gpu.sources["kind"] = GpuKind.VIRTUAL, where
            self.signal("gpu.virtual_function",
                        str(gpu.values.get("pci_bus", f"GPU {gpu.index}")),
                        self.ref(line_of(where)))
        elif "kind" not in gpu.values and integrated_reason(
                name, gfx if isinstance(gfx, str) else None,
                device if isinstance(device, str) else None):
            apu_source = gpu.sources.get("gfx_target") if gfx in APU_TARGETS else None
            gpu.values["kind"] = GpuKind.INTEGRATED
            gpu.sources["kind"] = apu_source or gpu.sources.get(
                "name", gpu.sources.get("pci_device_id", gpu.first_seen))

    def mark_partition(self, gpu: SmiGpu) -> None:
        """A compute partition other than SPX makes the GPU a partition, and a signal."""
        if gpu.partition is not None and gpu.partition[0] != "SPX":
            mode, ref = gpu.partition
            gpu.values["kind"] = GpuKind.PARTITION
            gpu.sources["kind"] = ref.label()
            self.signal("gpu.partition_mode", mode, ref)


def decode_gfx_version(value: str) -> str | None:
    """An SMI tool's gfx version to a canonical target. Some releases pack major, minor and
    stepping decimally ('gfx11001' = 11.0.1 = gfx1101, 'gfx9010' = 9.0.10 = gfx90a, 'gfx9402'
    = gfx942); proper names ('gfx1031', 'gfx90a', 'gfx908:sramecc+', 'GFX940') pass through,
    lower-cased."""
    token = re.split(r"[:+\s]", value.strip().lower(), maxsplit=1)[0]
    match = _GFX.match(token)
    if match is None:
        return None
    digits = match.group(1)
    if digits.isdigit():
        packed: tuple[int, int, int] | None = None
        if len(digits) == 5:  # two-digit major: 11001 -> 11, 0, 01
            packed = (int(digits[:2]), int(digits[2]), int(digits[3:]))
        elif len(digits) == 4 and digits[0] != "1":  # one-digit major: 9010 -> 9, 0, 10
            packed = (int(digits[0]), int(digits[1]), int(digits[2:]))
        if packed is not None:
            major, minor, stepping = packed
            if minor > 15 or stepping > 15:
                return None
            return f"gfx{major}{minor:x}{stepping:x}"
    return token


def pci_bus(value: str) -> str | None:
    """'0000:2D:00.0' / '03:00.0' -> '0000:2d:00.0' (a missing domain is 0000)."""
    match = _BUS.match(value.strip())
    if match is None:
        return None
    domain = int(match.group(1) or "0", 16)
    return (f"{domain:04x}:{match.group(2).lower()}:{match.group(3).lower()}."
            f"{match.group(4)}")


def line_of(where: str) -> int | None:
    """The line number of a "file:line" source, or None."""
    tail = where.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None
