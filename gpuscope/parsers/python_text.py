"""Text that Python and PyTorch print, as people paste it: interactive sessions (``>>>`` and
IPython prompts, the interpreter banner, ``python -c "..."`` one-liners) and what PyTorch itself
prints (its warnings, errors and tracebacks), with or without Markdown quote markers, journal
prefixes or Windows paths.

What it becomes: one `Framework` ("torch") per PyTorch the text shows (a second session, or a
second answer to ``torch.__version__``, is another one), with the GPUs PyTorch named as sightings
of the torch layer:

- the answers of ``torch.__version__``, ``torch.version.cuda`` / ``.hip``,
  ``torch.cuda.is_available()``, ``device_count()``, ``get_device_name(i)``,
  ``get_device_capability(i)``, ``get_device_properties(i)``, ``get_arch_list()``,
  ``torch.backends.cudnn.version()``, ``sys.executable`` and ``sys.version``, echoed by the REPL
  or printed (also inside literal text: ``print("CUDA:", torch.cuda.is_available())``);
- PyTorch's capability warnings: "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not
  compatible with the current PyTorch installation" with the arch list on the next line (the GPU,
  its compute capability, a CUDA build and its arch list), and "Found GPU0 ... which is of cuda
  capability 3.0" (PyTorch 1.x's "too old", 2.8's minimum and maximum);
- "The NVIDIA driver on your system is too old (found version 11080)": a CUDA build that sees no
  GPU, and the driver's CUDA version (`cuda_driver_version` 11.8);
- a build flavour from what only one flavour prints: HIP errors, ``libtorch_hip.so`` and ROCm
  libraries (ROCm); "Found no NVIDIA driver", "no kernel image is available" (CUDA); "Torch not
  compiled with CUDA enabled" (CPU);
- the interpreter: a ``.../site-packages/torch/...`` path (``D:\\app\\runtime\\lib\\site-packages``
  is ``D:\\app\\runtime\\python.exe``; ``/env/lib/python3.11/site-packages`` is
  ``/env/bin/python3.11`` of Python 3.11), ``sys.executable``, or the prompt line that started
  it; the host OS from the banner (``on linux``, ``on win32``, ``on darwin``), from those
  paths, or from a Windows library a line names (``torch\\lib\\c10.dll``, ``nvcuda.dll``,
  ``cudnn64_9.dll``: Windows, unless the text is from WSL, which shows the Windows driver's
  files);
- an ``import torch`` that failed: the framework's `error`.

Signal kinds emitted (also by `scan`, over text of any format):

- ``rocm.undefined_symbol``: "<library>: undefined symbol: <name>" where the library is ROCm's
  (``/opt/rocm*/``) or PyTorch's HIP library (detail = the library path); the ROCm version in
  that path becomes `rocm_version`.
- ``cuda.no_kernel_image``: PyTorch 1.x's "Found GPU0 <name> which is of cuda capability 3.0.
  PyTorch no longer supports this GPU because it is too old" (detail = ``sm_30``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

from gpuscope.i18n import message
from gpuscope.model import (
    Framework,
    FrameworkDevice,
    GpuFacts,
    GpuSighting,
    Layer,
    ParsedOutput,
    Vendor,
)
from gpuscope.parsers import python_env as env
from gpuscope.parsers import python_repl as repl
from gpuscope.parsers._common import (
    Collector,
    LineReads,
    anchored_lines,
    lowered_text,
    never_raises,
    none_on_error,
)

FORMATS: tuple[str, ...] = ("python-session", "python-output")

_MAX_LINES = 200_000
_MAX_LINE_CHARS = 2000  # characters of a line worth reading
_MAX_SHOWN_CHARS = 400  # of a line quoted as evidence
_MAX_FRAMEWORKS = 50
_MAX_DEVICES = 64
_MAX_EVIDENCE = 20
_SNIFF_CHARS = 200_000
# Distinct lines and statements whose reading is remembered: a long log repeats its lines,
# and each is read once (the bound keeps the memory of one without repeats in check).
_MAX_MEMO = 50_000
# Different statements about PyTorch read (each costs a parse of its code): past these, a paste
# of thousands of sessions is read for PyTorch's messages only.
_MAX_STATEMENTS = 5000
_MAX_SCAN_LINES = 1000  # lines `scan` reads per keyword


# Any of these (lower-case) in a line makes text PyTorch's own output.
_TORCH_MARKERS = (*env.CUDA_MARKERS, *env.CPU_MARKERS, "which is of cuda capability",
                  "site-packages/torch/", "site-packages\\torch\\",
                  "dist-packages/torch/", "libtorch_hip", "import torch", "torch.cuda.",
                  "torch/lib/")
_SCAN_KEYWORDS = ("undefined symbol", "cuda capability", "too old (found version", ".dll")


# ----------------------------------------------------------------------------------- sniff


def _lines(text: str, limit: int = _MAX_LINES) -> list[str]:
    """The first `limit` lines, without the "\r" of a CRLF, each cut to `_MAX_LINE_CHARS`."""
    lines = text.split("\n", limit)
    del lines[limit:]
    if "\r" in text:
        lines = [line[:-1] if line[-1:] == "\r" else line for line in lines]
    if max(map(len, lines)) > _MAX_LINE_CHARS:
        lines = [line[:_MAX_LINE_CHARS] for line in lines]
    return lines


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """A Python session (a prompt or the banner) or PyTorch's own output (its warnings, a
    traceback through torch)."""
    lines = _lines(text[:_SNIFF_CHARS], 5000)
    session = output = False
    for raw in lines:
        line = repl.unquoted(raw)
        if line.startswith(">>>") or repl.BANNER.match(line) or repl.IPYTHON_IN.match(line):
            session = True
            break
        if not output:
            lowered = line.lower()
            output = any(marker in lowered for marker in _TORCH_MARKERS)
    if session:
        return ("python-session", 0.75)
    return ("python-output", 0.6) if output else None


# ----------------------------------------------------------------------------------- model


@dataclasses.dataclass
class _Device:
    name: str | None = None
    compute_capability: str | None = None
    arch: str | None = None
    memory_bytes: int | None = None
    line: int = 0


@dataclasses.dataclass
class _Torch:
    """What the text says about one PyTorch, being filled (first answer wins)."""

    version: str | None = None
    cuda: str | None = None
    hip: str | None = None
    asked_cuda: bool = False
    asked_hip: bool = False
    available: bool | None = None
    device_count: int | None = None
    arch_list: tuple[str, ...] = ()
    devices: dict[int, _Device] = dataclasses.field(default_factory=dict)
    python: str | None = None
    python_version: str | None = None
    math_version: str | None = None
    error: str | None = None
    markers: set[str] = dataclasses.field(default_factory=set)
    imported: bool = False
    evidence: list[int] = dataclasses.field(default_factory=list)

    def informative(self) -> bool:
        """Whether the text said anything about this PyTorch (its interpreter alone is not)."""
        return bool(self.version or self.markers or self.asked_cuda or self.asked_hip
                    or self.available is not None or self.devices or self.arch_list
                    or self.error or (self.imported and self.python))

    def saw(self, line: int) -> None:
        if len(self.evidence) < _MAX_EVIDENCE and line not in self.evidence:
            self.evidence.append(line)

    def device(self, index: int, line: int) -> _Device | None:
        if index not in self.devices and len(self.devices) >= _MAX_DEVICES:
            return None
        return self.devices.setdefault(index, _Device(line=line))

    def named_device(self, name: str, line: int) -> _Device | None:
        """The device called `name` (a warning names no index), else the next index."""
        for known in self.devices.values():
            if known.name == name:
                return known
        device = self.device(len(self.devices), line)
        if device is not None:
            device.name = name
        return device


class _Reader:
    """One pass over the lines: sessions, statements and PyTorch's messages. `scan` gives it
    no lines but the `text` and `read`, the lines it reads by their numbers."""

    def __init__(self, source: str, lines: list[str] | None, text: str,
                 read: dict[int, str] | None = None) -> None:
        self.out = Collector(source, lines or (), max_line_chars=_MAX_SHOWN_CHARS,
                             max_evidence=_MAX_EVIDENCE, read=read)
        self.lines = lines
        self.text = text
        self.torches: list[_Torch] = [_Torch()]
        self.os: tuple[str, int] | None = None
        self.statement: tuple[str, int] | None = None  # code and its line (1-based)
        self.outputs: list[tuple[str, int]] = []
        self.one_liner = False
        self.dropped = 0  # PyTorch sessions past _MAX_FRAMEWORKS
        self.unread = 0  # statements past _MAX_STATEMENTS
        self.plans: dict[tuple[str, ...], repl.Plan] = {}
        # line or statement -> the PyTorch it can tell nothing more (`settles`)
        self.settled: dict[object, _Torch] = {}
        self.ends: dict[int, int] = {}  # `scan`: line number -> offset of its end in `text`
        self._wsl: bool | None = None

    @property
    def torch(self) -> _Torch:
        return self.torches[-1]

    @property
    def wsl(self) -> bool:
        """WSL shows the Windows driver's files: a library name there says nothing of the OS.
        (Worked out only when a line names a library.)"""
        if self._wsl is None:
            self._wsl = "wsl" in lowered_text(self.text) and any(
                "wsl" in line.lower() for line in (self.lines or _lines(self.text)))
        return self._wsl

    def line_after(self, number: int) -> str | None:
        """Line `number` + 1, when the lines read go that far."""
        if self.lines is not None:
            return self.lines[number] if number < len(self.lines) else None
        end = self.ends.get(number)
        if end is None or end >= len(self.text) or number >= _MAX_LINES:
            return None
        after = self.text.find("\n", end + 1)
        line = self.text[end + 1:len(self.text) if after < 0 else after]
        return (line[:-1] if line[-1:] == "\r" else line)[:_MAX_LINE_CHARS]

    def boundary(self) -> None:
        """Another interpreter starts: facts from here on belong to a new PyTorch."""
        self.finish_statement()
        if not self.torch.informative():
            self.torches[-1] = _Torch()
        elif len(self.torches) <= _MAX_FRAMEWORKS:
            self.torches.append(_Torch())  # the one past the limit is scratch, never reported
        else:
            self.dropped += 1
            self.torches[-1] = _Torch()

    def host_os(self, name: str, line: int) -> None:
        if self.os is None:
            self.os = (name, line)

    def state(self) -> tuple[object, ...] | None:
        """All a line or a statement can change, when the PyTorch holds all the evidence it
        keeps (else None): what changed nothing once never will on this PyTorch, as every
        fact is first-wins (a long log says the same lines thousands of times)."""
        t = self.torch
        if len(t.evidence) < _MAX_EVIDENCE or len(t.devices) >= _MAX_DEVICES:
            return None
        return (t.version, t.cuda, t.hip, t.asked_cuda, t.asked_hip, t.available,
                t.device_count, t.arch_list, t.python, t.python_version, t.math_version,
                t.error, len(t.markers), t.imported, len(t.evidence), self.os,
                [(d.name, d.compute_capability, d.arch, d.memory_bytes)
                 for d in t.devices.values()], len(self.torches), self.dropped,
                len(self.out.stack), [len(refs) for refs in self.out.signals.values()])

    def settles(self, key: object, torch: _Torch, before: tuple[object, ...] | None) -> None:
        """`key`, read when the state was `before`, changed nothing: skip it from now on."""
        if before is not None and self.torch is torch and self.state() == before \
                and len(self.settled) < _MAX_MEMO:
            self.settled[key] = torch

    # ---- lines

    def read(self) -> None:
        reads = LineReads(repl.line_of, _MAX_MEMO)
        for number, raw in enumerate(self.lines or (), start=1):
            info = reads.get(raw)
            again = info is not None  # (only a line seen before may settle)
            if info is None:
                info = reads[raw]
            if isinstance(info, str):
                if self.statement is not None:
                    if not info and self.one_liner:
                        self.finish_statement()
                    elif len(self.outputs) < repl.MAX_OUTPUT_LINES:
                        self.outputs.append((info, number))
                continue
            if info.message is not None and not again:
                self.message(info.message, number)
            elif info.message is not None:
                key: object = raw
                if info.message.found is not None and not info.message.found[4]:
                    key = (raw, "too old" in (self.line_after(number) or "").lower())
                torch = self.torch
                if self.settled.get(key) is not torch:
                    before = self.state()
                    self.message(info.message, number)
                    self.settles(key, torch, before)
            if info.code is not None:
                self.finish_statement()
                self.statement = (info.code, number)
                self.one_liner = False
                continue
            if info.more is not None and self.statement is not None and not self.outputs:
                if info.more:
                    self.statement = (self.statement[0] + "\n" + info.more, self.statement[1])
                continue
            if info.ipython_in is not None:
                self.finish_statement()
                self.statement = (info.ipython_in, number)
                self.one_liner = False
                continue
            if info.ipython_out is not None and self.statement is not None:
                self.outputs.append((info.ipython_out, number))
                continue
            if info.prompt is not None:
                self.prompt(info.prompt, number)
                continue
            if info.banner is not None:
                self.banner(*info.banner, number)
                continue
            if self.statement is not None:
                if not info.text and self.one_liner:
                    self.finish_statement()
                elif len(self.outputs) < repl.MAX_OUTPUT_LINES:
                    self.outputs.append((info.text, number))
        self.finish_statement()

    def banner(self, version: str, platform: str | None, number: int) -> None:
        self.finish_statement()
        if self.torch.informative():
            self.boundary()
        self.torch.python_version = version
        if self.os is not None:
            return  # (the first OS the text names wins)
        after = self.line_after(number) if platform is None else None
        if after is not None and (found := repl.PLATFORM.search(after[:200])):
            platform, number = found.group(1), number + 1  # "[GCC 7.3.0] on linux"
        if platform:
            self.host_os(repl.PLATFORM_OS[platform], number)

    def prompt(self, prompt: tuple[bool, str | None, str | None], number: int) -> None:
        """A shell prompt that starts Python: a new session (a one-liner's program becomes the
        statement whose prints follow), and the interpreter when the command names it."""
        windows, python, program = prompt
        self.boundary()
        if windows:
            self.host_os("windows", number)
        if python:
            self.torch.python = python
        if program is not None:
            self.statement = (program, number)
            self.one_liner = True

    # ---- statements

    def finish_statement(self) -> None:
        if self.statement is None:
            return
        code, number = self.statement
        outputs, self.outputs, self.statement = self.outputs, [], None
        if "torch" not in code and "sys." not in code:
            return  # no statement about PyTorch or the interpreter
        key = (code, *(text for text, _ in outputs))
        plan = self.plans.get(key)
        torch = self.torch
        if plan is None:
            if len(self.plans) >= _MAX_STATEMENTS:
                self.unread += 1
                return
            plan = self.plans[key] = repl.plan_of(code, [text for text, _ in outputs])
            before = None  # (only a statement seen before may settle)
        elif self.settled.get(key) is torch:
            return
        else:
            before = self.state() if plan.failure is None else None
        if plan.imports:
            self.torch.imported = True
            self.torch.saw(number)
            if plan.failure is not None:
                self.torch.error = plan.failure[0]
                self.torch.saw(outputs[plan.failure[1]][1])
                return
        for answer, index in plan.answers:
            self.apply(answer, outputs[index][1], number)
        self.settles(key, torch, before)

    def apply(self, answer: repl.Answer, line: int, code_line: int) -> None:
        """An answer a statement's output gave (on `line`), into the current PyTorch."""
        torch = self.torch
        kind, value = answer.kind, answer.value
        if kind == "version":
            if torch.version not in (None, value):
                self.boundary()
                torch = self.torch
            torch.version = str(value)
        elif kind == "cuda":
            torch.asked_cuda, torch.cuda = True, torch.cuda or _text(value)
        elif kind == "hip":
            torch.asked_hip, torch.hip = True, torch.hip or _text(value)
        elif kind == "available":
            torch.available = bool(value) if torch.available is None else torch.available
        elif kind == "count":
            if torch.device_count is None and isinstance(value, int):
                torch.device_count = value
        elif kind == "arch":
            torch.arch_list = torch.arch_list or (value if isinstance(value, tuple) else ())
        elif kind == "math":
            torch.math_version = torch.math_version or _text(value)
        elif kind == "python":
            torch.python = torch.python or _text(value)
            if answer.os:
                self.host_os(answer.os, line)
        elif kind == "python_version":
            torch.python_version = torch.python_version or _text(value)
        elif kind == "os":
            self.host_os(str(value), line)
        else:
            device = torch.device(answer.index, line)
            if device is None:
                return
            if kind == "name":
                device.name = device.name or _text(value)
            elif kind == "capability":
                device.compute_capability = device.compute_capability or _text(value)
            else:
                facts = repl.device_facts(value)  # type: ignore[arg-type]
                for key, known in facts.items():
                    if getattr(device, key) is None:
                        setattr(device, key, known)
        torch.saw(code_line)
        torch.saw(line)

    # ---- what PyTorch itself prints, anywhere

    def message(self, message: env.Message, number: int) -> None:
        torch = self.torch
        for build in message.builds:
            torch.markers.add(build)
            torch.saw(number)
        if message.path is not None:
            self.torch_path(message.path, number)
        if message.warning is not None:
            self.capability_warning(message.warning, number)
        elif message.found is not None:
            self.found_gpu(message.found, number)
        elif message.arch and not torch.arch_list:
            torch.arch_list = message.arch
            torch.saw(number)
        out = self.out
        if message.driver is not None:
            torch.available = False if torch.available is None else torch.available
            version = message.driver[0]
            if version and "cuda_driver_version" not in out.stack:
                out.stack_fact("cuda_driver_version", version, out.where(number))
        if message.unavailable:
            torch.available = False if torch.available is None else torch.available
        if message.undefined is not None:
            library, rocm = message.undefined
            out.signal_at("rocm.undefined_symbol", library, number)
            if rocm and "rocm_version" not in out.stack:
                out.stack_fact("rocm_version", rocm, out.where(number))
        if message.dll and self.os is None and not self.wsl:
            self.host_os("windows", number)

    def capability_warning(self, warning: tuple[str, str, str], number: int) -> None:
        """"<GPU> with CUDA capability sm_120 is not compatible with the current PyTorch"."""
        torch = self.torch
        name, cc, arch = warning
        device = torch.named_device(name, number) if name else None
        if device is not None:
            device.compute_capability = device.compute_capability or cc
            device.arch = device.arch or arch
        torch.available = True if torch.available is None else torch.available
        torch.saw(number)

    def found_gpu(self, found: tuple[int, str, str | None, str, bool], number: int) -> None:
        """"Found GPU0 <GPU> which is of cuda capability 3.0" (PyTorch 1.x: too old)."""
        torch = self.torch
        index, name, cc, sm, too_old = found
        device = torch.device(index, number)
        if device is None:
            return
        device.name = device.name or name
        if _vendor_of(device.name, "unknown") is Vendor.AMD:
            # a ROCm build of 2020: its "cuda capability 3.0" means nothing for a Radeon
            torch.markers.add("rocm")
        elif cc is not None:
            torch.markers.add("cuda")
            device.compute_capability = device.compute_capability or cc
            if not self.out.signal_full("cuda.no_kernel_image", sm) and (
                    too_old or "too old" in (self.line_after(number) or "").lower()):
                self.out.signal_at("cuda.no_kernel_image", sm, number)
        torch.available = True if torch.available is None else torch.available
        torch.saw(number)

    def torch_path(self, path: tuple[str | None, str | None, str | None], number: int) -> None:
        os_name, interpreter, version = path
        if os_name:
            self.host_os(os_name, number)
        if interpreter is None:
            return
        if self.torch.python not in (None, interpreter) and self.torch.informative():
            self.boundary()
        if self.torch.python is None:
            self.torch.python = interpreter
            self.torch.python_version = self.torch.python_version or version
            self.torch.saw(number)


# ----------------------------------------------------------------------------- helpers


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _sighting(device: _Device, build: str, where: str) -> GpuSighting | None:
    if not device.name and not device.compute_capability and not device.arch:
        return None
    values: dict[str, Any] = {"name": device.name}
    vendor = _vendor_of(device.name or "", build)
    values["vendor"] = vendor
    if vendor is Vendor.NVIDIA:
        values["compute_capability"] = device.compute_capability
    elif device.arch and device.arch.startswith("gfx"):
        values["gfx_target"] = device.arch
    values["vram_total_bytes"] = device.memory_bytes
    facts = dataclasses.replace(GpuFacts(), **{k: v for k, v in values.items() if v is not None})
    sources = {key: where for key, value in values.items() if value is not None}
    return GpuSighting(layer=Layer.TORCH, facts=facts, field_sources=sources,
                       missing_reasons={
                           "pci_bus": message("PyTorch's output names no PCI address")})


@functools.lru_cache(maxsize=256)
def _vendor_of(name: str, build: str) -> Vendor | None:
    lowered = name.lower()
    if any(w in lowered for w in ("nvidia", "geforce", "tesla", "quadro", "titan")):
        return Vendor.NVIDIA
    if any(w in lowered for w in ("amd", "radeon", "instinct", "vega", "ellesmere", "navi")):
        return Vendor.AMD
    return {"cuda": Vendor.NVIDIA, "rocm": Vendor.AMD}.get(build)


def _build(torch: _Torch) -> tuple[str, str | None]:
    """(build, build_version): the wheel's local tag, then torch.version.hip/.cuda, then
    what only one flavour prints."""
    local = torch.version.split("+", 1)[1].lower() if torch.version and "+" in torch.version \
        else ""
    tagged = re.match(r"(cu|rocm)(\d+(?:\.\d+)*)", local)
    if tagged and tagged.group(1) == "rocm":
        return "rocm", torch.hip or tagged.group(2)
    if tagged:
        digits = tagged.group(2)
        return "cuda", torch.cuda or (f"{digits[:-1]}.{digits[-1]}" if len(digits) >= 2 else None)
    if local.startswith(("cpu", "xpu")):
        return local[:3], None
    if torch.hip:
        return "rocm", torch.hip
    if torch.cuda:
        return "cuda", torch.cuda
    for build in ("rocm", "cuda", "cpu"):
        if build in torch.markers and len(torch.markers) == 1:
            return build, None
    if torch.asked_cuda and torch.asked_hip:
        return "cpu", None  # both None: no GPU backend at all
    if torch.arch_list:
        first = torch.arch_list[0]
        return ("rocm" if first.startswith("gfx") else "cuda"), None
    return "unknown", None


def _framework(torch: _Torch, out: Collector) -> tuple[Framework, list[GpuSighting]]:
    build, build_version = _build(torch)
    available = torch.available
    if available is None and torch.device_count is not None:
        available = torch.device_count > 0
    devices: list[FrameworkDevice] = []
    sightings: list[GpuSighting] = []
    for index in sorted(torch.devices):
        device = torch.devices[index]
        arch = device.arch or (f"sm_{device.compute_capability.replace('.', '')}"
                               if device.compute_capability and build == "cuda" else None)
        devices.append(FrameworkDevice(index=index, name=device.name, arch=arch,
                                       compute_capability=device.compute_capability,
                                       total_memory_bytes=device.memory_bytes))
        sighting = _sighting(device, build, out.where(device.line))
        if sighting is not None:
            sightings.append(sighting)
    if available is None and any(d.name for d in torch.devices.values()) and build != "cuda":
        available = True  # the build enumerated the device itself
    framework = Framework(
        name="torch", version=torch.version, build=build, build_version=build_version,
        gpu_available=available, arch_list=torch.arch_list, devices=tuple(devices),
        python=torch.python, python_version=torch.python_version,
        math_library_version=torch.math_version, error=torch.error,
        evidence=tuple(out.ref(n) for n in sorted(torch.evidence)))
    return framework, sightings


# ----------------------------------------------------------------------------------- parse


@never_raises("python-text")
def parse(text: str, source: str) -> ParsedOutput:
    """A Python session or PyTorch's output to torch `Framework`s, the GPUs they name and the
    host facts the text shows."""
    found = sniff(text)
    fmt = found[0] if found else "python-output"
    lines = _lines(text)
    reader = _Reader(source, lines, text)
    reader.read()
    out = reader.out
    frameworks: list[Framework] = []
    sightings: list[GpuSighting] = []
    seen: set[tuple[int | None, str | None]] = set()
    if len(reader.torches) > _MAX_FRAMEWORKS and reader.torches[-1].informative():
        reader.dropped += 1
    if reader.dropped:
        out.problems.append(f"more than {_MAX_FRAMEWORKS} PyTorch sessions: "
                            f"{reader.dropped:,} more were not read")
    if reader.unread:
        out.problems.append(f"more than {_MAX_STATEMENTS:,} different statements about PyTorch: "
                            f"{reader.unread:,} more were not read")
    for torch in reader.torches[:_MAX_FRAMEWORKS]:
        if not torch.informative():
            continue
        framework, named = _framework(torch, out)
        frameworks.append(framework)
        for sighting in named:  # one sighting per GPU, however many sessions name it
            key = (sighting.facts.smi_index, sighting.facts.name)
            if key not in seen:
                seen.add(key)
                sightings.append(sighting)
    if reader.os is not None:
        out.host_fact("os", reader.os[0], out.where(reader.os[1]))
    versions = {m.group(1) for line in lines if "/opt/rocm-" in line
                for m in env.ROCM_PATH.finditer(line)} if "/opt/rocm-" in text else set()
    if len(versions) == 1 and "rocm_version" not in out.stack:
        number = next(n for n, line in enumerate(lines, start=1) if "/opt/rocm-" in line)
        out.stack_fact("rocm_version", versions.pop(), out.where(number))
    if not frameworks and not out.signals and not out.stack:
        out.problems.append("no PyTorch facts in this Python text")
    return out.result(fmt, sightings, frameworks=frameworks)


def scan(text: str, source: str) -> ParsedOutput:
    """What PyTorch's messages say inside text of any format (a traceback pasted after
    rocminfo): the signals above, `rocm_version` from an undefined ROCm symbol,
    `cuda_driver_version` from "found version N", and the host fact `os` "windows" from a
    Windows library or path. Never raises."""
    try:
        read: dict[int, str] = {}
        reader = _Reader(source, None, text, read)
        messages = LineReads(env.message_of)
        for index, line, end in anchored_lines(text, lowered_text(text), _SCAN_KEYWORDS,
                                               _MAX_SCAN_LINES):
            if index >= _MAX_LINES:  # the lines a parser reads
                break
            number = index + 1
            message = messages[line]
            if message is not None:
                read[number], reader.ends[number] = line, end
                reader.message(message, number)
        out = reader.out
        if reader.os is not None and reader.os[0] == "windows":
            # (a POSIX path is also WSL's or a container's: only Windows is said from here)
            out.host_fact("os", reader.os[0], out.where(reader.os[1]))
        return ParsedOutput(format="python-output", source=source,
                            stack_facts=tuple(out.stack.values()),
                            host_facts=tuple(out.host.values()), signals=out.built_signals())
    except Exception:  # a scanner bug must not lose the file's parse
        return ParsedOutput(format="python-output", source=source)
