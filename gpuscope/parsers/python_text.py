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
import re
from typing import Any

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
from gpuscope.parsers._common import Collector, never_raises, none_on_error

FORMATS: tuple[str, ...] = ("python-session", "python-output")

_MAX_LINES = 200_000
_MAX_LINE_CHARS = 2000  # characters of a line worth reading
_MAX_SHOWN_CHARS = 400  # of a line quoted as evidence
_MAX_FRAMEWORKS = 50
_MAX_DEVICES = 64
_MAX_EVIDENCE = 20
_SNIFF_CHARS = 200_000

_BANNER = re.compile(r"^Python (\d+\.\d+\.\d+)\S{0,20}\s")
_PLATFORM = re.compile(r"\bon (linux|win32|cygwin|msys|darwin)\s*$")
_PLATFORM_OS = {"linux": "linux", "win32": "windows", "cygwin": "windows", "msys": "windows",
                "darwin": "macos"}
_IPYTHON_IN = re.compile(r"^In \[\d{1,6}\]: ?")
_IPYTHON_OUT = re.compile(r"^Out\[\d{1,6}\]: ?")
_CMD_PROMPT = re.compile(r"^(?:PS )?([A-Za-z]:\\[^>\"]{0,300})>\s?(\S.*)$")
# "$ cmd", "user@host:~/dir$ cmd", "(venv) root@host:/# cmd" (a bare "# " is a heading).
_POSIX_PROMPT = re.compile(r"^(?:\([^()\s]{1,60}\) )?([^\s>]{0,200})([$#%]) (\S.*)$")
_PYTHON_WORD = re.compile(r"(?i)^(?:.*[\\/])?python(?:\d(?:\.\d{1,2})?)?(?:\.exe)?$")
_ONE_LINER = re.compile(r"(?:^|\s)-c\s+(['\"])(.{1,1000})\1\s*$")
_VERSION = re.compile(r"^\d+\.\d+(?:\.\d+)?\S{0,60}$")
_SM_TOKEN = re.compile(r"\b((?:sm|compute)_\d{2,3}[a-z]?)\b")
_SM_WARNING = re.compile(r"with CUDA capability sm_(\d{2,3})[a-z]? is not compatible")
_FOUND_GPU = re.compile(
    r"Found GPU(\d{1,3}) (.{1,120}?) which (?:is of cuda capability (\d{1,2})\.(\d)|requires "
    r"CUDA_VERSION)")
_DRIVER_TOO_OLD = re.compile(r"NVIDIA driver on your system is too old \(found version (\d{4,6})\)")

# Lines only one build flavour prints (lower-case substrings).
_ROCM_MARKERS = ("hiperror", "hip error:", "libtorch_hip", "libamdhip64", "no hip gpus are "
                 "available", "libc10_hip", "/opt/rocm")
# ("which is of cuda capability" is not one: 2020 ROCm builds printed it too, with a made-up
# capability 3.0, for Radeon GPUs.)
_CUDA_MARKERS = ("found no nvidia driver on your system", "no kernel image is available",
                 "libtorch_cuda", "cuda capability sm_", "nvidia driver on your system is too old",
                 "supports cuda capabilities")
_CPU_MARKERS = ("torch not compiled with cuda enabled",)
# Any of these (lower-case) in a line makes text PyTorch's own output.
_TORCH_MARKERS = (*_CUDA_MARKERS, *_CPU_MARKERS, "which is of cuda capability",
                  "site-packages/torch/", "site-packages\\torch\\",
                  "dist-packages/torch/", "libtorch_hip", "import torch", "torch.cuda.",
                  "torch/lib/")
_SCAN_KEYWORDS = ("undefined symbol", "cuda capability", "too old (found version", ".dll")


# ----------------------------------------------------------------------------------- sniff


def _lines(text: str, limit: int = _MAX_LINES) -> list[str]:
    lines = text.split("\n", limit)[:limit]
    return [(line[:-1] if line.endswith("\r") else line)[:_MAX_LINE_CHARS] for line in lines]


def _unquoted(line: str) -> str:
    """A line without Markdown quote markers ("> " before a ``>>>`` prompt or any text)."""
    stripped = line.lstrip()
    if not stripped.startswith(">") or stripped.startswith(">>>"):
        return stripped
    for _ in range(8):
        if stripped.startswith(">>>") or not stripped.startswith(">"):
            break
        if len(stripped) > 1 and stripped[1] not in " \t":
            break
        stripped = stripped[1:].lstrip()
    return stripped


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """A Python session (a prompt or the banner) or PyTorch's own output (its warnings, a
    traceback through torch)."""
    lines = _lines(text[:_SNIFF_CHARS], 5000)
    session = output = False
    for raw in lines:
        line = _unquoted(raw)
        if line.startswith(">>>") or _BANNER.match(line) or _IPYTHON_IN.match(line):
            session = True
            break
        lowered = line.lower()
        if not output and any(marker in lowered for marker in _TORCH_MARKERS):
            output = True
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
        if line not in self.evidence and len(self.evidence) < _MAX_EVIDENCE:
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
    """One pass over the lines: sessions, statements and PyTorch's messages."""

    def __init__(self, source: str, lines: list[str]) -> None:
        self.out = Collector(source, lines, max_line_chars=_MAX_SHOWN_CHARS,
                             max_evidence=_MAX_EVIDENCE)
        self.lines = lines
        self.torches: list[_Torch] = [_Torch()]
        self.os: tuple[str, int] | None = None
        self.statement: tuple[str, int] | None = None  # code and its line (1-based)
        self.outputs: list[tuple[str, int]] = []
        self.one_liner = False
        self.dropped = 0  # PyTorch sessions past _MAX_FRAMEWORKS
        # WSL shows the Windows driver's files: a library name there says nothing of the OS.
        self.wsl = any("wsl" in line.lower() for line in lines)

    @property
    def torch(self) -> _Torch:
        return self.torches[-1]

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

    # ---- lines

    def read(self) -> None:
        for number, raw in enumerate(self.lines, start=1):
            line = _unquoted(raw)
            self.message(raw, number)
            if line.startswith(">>>"):
                self.finish_statement()
                self.statement = (line[3:].strip(), number)
                self.one_liner = False
                continue
            if line.startswith("...") and self.statement is not None and not self.outputs:
                code = line[3:].strip()
                if code:
                    self.statement = (self.statement[0] + "\n" + code, self.statement[1])
                continue
            ipython_in = _IPYTHON_IN.match(line)
            if ipython_in:
                self.finish_statement()
                self.statement = (line[ipython_in.end():].strip(), number)
                self.one_liner = False
                continue
            ipython_out = _IPYTHON_OUT.match(line)
            if ipython_out and self.statement is not None:
                self.outputs.append((line[ipython_out.end():], number))
                continue
            if self.prompt(line, number):
                continue
            banner = _BANNER.match(line)
            if banner:
                self.banner(line, number, banner.group(1))
                continue
            if self.statement is not None:
                if not line.strip() and self.one_liner:
                    self.finish_statement()
                elif len(self.outputs) < repl.MAX_OUTPUT_LINES:
                    self.outputs.append((line.strip(), number))
        self.finish_statement()

    def banner(self, line: str, number: int, version: str) -> None:
        self.finish_statement()
        if self.torch.informative():
            self.boundary()
        self.torch.python_version = version
        platform = _PLATFORM.search(line)
        if platform is None and number < len(self.lines):
            platform = _PLATFORM.search(self.lines[number][:200])  # "[GCC 7.3.0] on linux"
            number += 1 if platform else 0
        if platform:
            self.host_os(_PLATFORM_OS[platform.group(1)], number)

    def prompt(self, line: str, number: int) -> bool:
        """A shell prompt that starts Python: a new session (a one-liner's program becomes the
        statement whose prints follow), and the interpreter when the command names it."""
        if "ython" not in line and "YTHON" not in line:
            return False  # no prompt that starts Python
        cmd = _CMD_PROMPT.match(line)
        posix = None if cmd else _POSIX_PROMPT.match(line)
        if cmd is None and posix is None:
            return False
        if posix is not None and posix.group(2) == "#" and not posix.group(1):
            return False
        command = cmd.group(2) if cmd else posix.group(3) if posix else ""
        words = command.split()
        launcher = next((w.strip("\"'") for w in words[:12] if _PYTHON_WORD.match(w.strip("\"'"))),
                        None)
        if launcher is None:
            return False
        self.boundary()
        if cmd is not None:
            self.host_os("windows", number)
            if not re.match(r"[A-Za-z]:\\", launcher) and ("\\" in launcher or "/" in launcher):
                launcher = cmd.group(1).rstrip("\\") + "\\" + launcher.replace("/", "\\")
        if re.match(r"[A-Za-z]:\\|/", launcher) and ("\\" in launcher or "/" in launcher):
            self.torch.python = launcher
        one_liner = _ONE_LINER.search(command)
        if one_liner:
            self.statement = (one_liner.group(2), number)
            self.one_liner = True
        return True

    # ---- statements

    def finish_statement(self) -> None:
        if self.statement is None:
            return
        code, number = self.statement
        outputs, self.outputs, self.statement = self.outputs, [], None
        if "torch" not in code and "sys." not in code:
            return  # no statement about PyTorch or the interpreter
        simple = [s for line in code.split("\n") for s in repl.statements(line)]
        if any(repl.is_torch_import(s) for s in simple):
            self.torch.imported = True
            self.torch.saw(number)
            failure = repl.import_failure(outputs)
            if failure is not None and simple and repl.is_torch_import(simple[0]):
                self.torch.error = failure[0]
                self.torch.saw(failure[1])
                if "no module named 'torch'" in failure[0].lower():
                    self.torch.error = "PyTorch is not installed (" + failure[0] + ")"
                return
        if "\n" in code:
            return  # a compound statement: its output is no one expression's value
        shown = [item for item in (repl.shown(s) for s in simple) if item is not None]
        values = repl.value_lines(outputs)
        if not shown or not values:
            return
        single = shown[0].expressions if len(shown) == 1 else ()
        if len(single) == 1 and all(kind == "expr" for kind, _ in shown[0].parts):
            for candidate, line in repl.candidates(values):
                if self.apply(single[0], candidate, line, number, shown[0].repr_form):
                    break
            return
        for item, (text, line) in zip(shown, values, strict=False):
            for expression, value in repl.match_output(item.parts, text).items():
                self.apply(expression, value, line, number, False)

    def apply(self, expression: str, value: str, line: int, code_line: int,
              echoed: bool) -> bool:
        """The value an expression printed (`echoed`: its repr, so strings are quoted), into
        the current PyTorch; whether it was one."""
        if echoed and repl.STRING_VALUED.get(expression, False) and not repl.quoted(value):
            return False
        torch = self.torch
        known = True
        if expression in ("torch.__version__", "torch.version.__version__"):
            version = repl.unquote(value)
            if not version or not _VERSION.match(version):
                return False
            if torch.version not in (None, version):
                self.boundary()
                torch = self.torch
            torch.version = version
        elif expression == "torch.version.cuda":
            torch.asked_cuda = True
            torch.cuda = torch.cuda or _clean_version(repl.unquote(value))
        elif expression == "torch.version.hip":
            torch.asked_hip = True
            torch.hip = torch.hip or _clean_version(repl.unquote(value))
        elif expression == "torch.cuda.is_available()":
            available = repl.as_bool(value)
            if available is None:
                return False
            torch.available = available if torch.available is None else torch.available
        elif expression == "torch.cuda.device_count()":
            count = repl.as_int(value)
            if count is None:
                return False
            torch.device_count = count if torch.device_count is None else torch.device_count
        elif expression == "torch.cuda.get_arch_list()":
            arch = repl.as_string_list(value)
            if not arch:
                return False
            torch.arch_list = torch.arch_list or arch
        elif expression == "torch.backends.cudnn.version()":
            number = repl.as_int(value)
            if number is None:
                return False
            torch.math_version = torch.math_version or str(number)
        elif expression in ("sys.executable", "torch.__file__"):
            path = repl.unquote(value)
            if not path:
                return False
            interpreter = path if expression == "sys.executable" else env.interpreter_of(path)
            if interpreter is None:
                return False
            torch.python = torch.python or interpreter
            os_name = env.os_of_path(path)
            if os_name:
                self.host_os(os_name, line)
        elif expression == "sys.version":
            match = re.match(r"(\d+\.\d+\.\d+)", repl.unquote(value) or "")
            if not match:
                return False
            torch.python_version = torch.python_version or match.group(1)
        elif expression == "sys.platform":
            platform = repl.unquote(value)
            if platform not in _PLATFORM_OS:
                return False
            self.host_os(_PLATFORM_OS[platform], line)
        else:
            known = self.apply_device(expression, value, line)
        if known:
            torch.saw(code_line)
            torch.saw(line)
        return known

    def apply_device(self, expression: str, value: str, line: int) -> bool:
        for call in ("torch.cuda.get_device_name", "torch.cuda.get_device_capability",
                     "torch.cuda.get_device_properties"):
            if not expression.startswith(call + "("):
                continue
            index = repl.device_argument(expression, call)
            if index is None:
                return False
            if call.endswith("_name"):
                name = repl.unquote(value)
                device = self.torch.device(index, line) if name else None
                if device is None:
                    return False
                device.name = device.name or name
            elif call.endswith("_capability"):
                cc = repl.as_compute_capability(value)
                device = self.torch.device(index, line) if cc else None
                if device is None:
                    return False
                device.compute_capability = device.compute_capability or cc
            else:
                fields = repl.as_properties(value)
                device = self.torch.device(index, line) if fields else None
                if device is None:
                    return False
                for key, known in repl.device_facts(fields).items():
                    if getattr(device, key) is None:
                        setattr(device, key, known)
            return True
        return False

    # ---- what PyTorch itself prints, anywhere

    def message(self, raw: str, number: int) -> None:
        lowered = raw.lower()
        if not _may_be_message(lowered):
            return
        torch = self.torch
        for marker, build, needs in ((_ROCM_MARKERS, "rocm", ("hip", "rocm")),
                                     (_CUDA_MARKERS, "cuda", ("cuda", "nvidia", "kernel image")),
                                     (_CPU_MARKERS, "cpu", ("cuda",))):
            if any(word in lowered for word in needs) and any(m in lowered for m in marker):
                torch.markers.add(build)
                torch.saw(number)
        if "site-packages" in lowered or "dist-packages" in lowered:
            self.torch_path(raw, number)
        if "cuda capability" in lowered:
            self.capability_warning(raw, number)
        elif "supports cuda capabilities" in lowered:
            arch = tuple(_SM_TOKEN.findall(raw[lowered.index("supports cuda capabilities"):]))
            if arch and not torch.arch_list:
                torch.arch_list = arch
                torch.saw(number)
        if "too old (found version" in lowered:
            found = _DRIVER_TOO_OLD.search(raw)
            if found:
                torch.available = False if torch.available is None else torch.available
                version = env.cuda_of_driver_api(int(found.group(1)))
                if version:
                    self.out.stack_fact("cuda_driver_version", version, self.out.where(number))
        if "found no nvidia driver" in lowered or "no hip gpus are available" in lowered \
                or "torch not compiled with cuda enabled" in lowered:
            torch.available = False if torch.available is None else torch.available
        if "undefined symbol" in lowered:
            env.undefined_symbol(self.out, raw, number)
        if ".dll" in lowered and not self.wsl and env.windows_library(raw) is not None:
            self.host_os("windows", number)

    def capability_warning(self, raw: str, number: int) -> None:
        torch = self.torch
        warning = _SM_WARNING.search(raw)
        if warning:
            before = raw[:warning.start()]
            name = before.rsplit(": ", 1)[-1].strip().strip("\"'`").strip()
            sm = warning.group(1)
            cc = f"{int(sm[:-1])}.{sm[-1]}"
            device = torch.named_device(name, number) if name else None
            if device is not None:
                device.compute_capability = device.compute_capability or cc
                device.arch = device.arch or f"sm_{sm}"
            torch.available = True if torch.available is None else torch.available
            torch.saw(number)
            return
        found = _FOUND_GPU.search(raw)
        if found is None:
            return
        device = torch.device(int(found.group(1)), number)
        if device is None:
            return
        device.name = device.name or found.group(2).strip()
        if _vendor_of(device.name, "unknown") is Vendor.AMD:
            # a ROCm build of 2020: its "cuda capability 3.0" means nothing for a Radeon
            torch.markers.add("rocm")
        elif found.group(3) is not None:
            torch.markers.add("cuda")
            cc = f"{int(found.group(3))}.{found.group(4)}"
            device.compute_capability = device.compute_capability or cc
            if "too old" in raw.lower() or (number < len(self.lines) and "too old" in
                                             self.lines[number].lower()):
                self.out.signal_at("cuda.no_kernel_image", f"sm_{found.group(3)}{found.group(4)}",
                                   number)
        torch.available = True if torch.available is None else torch.available
        torch.saw(number)

    def torch_path(self, raw: str, number: int) -> None:
        path = env.torch_package_path(raw)
        if path is None:
            return
        interpreter = env.interpreter_of(path)
        os_name = env.os_of_path(path)
        if os_name:
            self.host_os(os_name, number)
        if interpreter is None:
            return
        if self.torch.python not in (None, interpreter) and self.torch.informative():
            self.boundary()
        if self.torch.python is None:
            self.torch.python = interpreter
            self.torch.python_version = self.torch.python_version or env.python_version_of(path)
            self.torch.saw(number)


# ----------------------------------------------------------------------------- helpers


def _may_be_message(lowered: str) -> bool:
    """Whether a (lower-cased) line holds a word every message `_Reader.message` reads has:
    the cheap test before the others (no regex: this runs on every line)."""
    return ("hip" in lowered or "cuda" in lowered or "torch" in lowered or "nvidia" in lowered
            or "rocm" in lowered or "-packages" in lowered or "undefined symbol" in lowered
            or "kernel image" in lowered or ".dll" in lowered)


def _clean_version(value: str | None) -> str | None:
    return value if value and re.match(r"\d+\.\d+", value) else None


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
                       missing_reasons={"pci_bus": "PyTorch's output names no PCI address"})


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
    reader = _Reader(source, lines)
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
                for m in env.ROCM_PATH.finditer(line)}
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
        lines = _lines(text)
        reader = _Reader(source, lines)
        for number, raw in enumerate(lines, start=1):
            lowered = raw.lower()
            if any(keyword in lowered for keyword in _SCAN_KEYWORDS):
                reader.message(raw, number)
        out = reader.out
        if reader.os is not None and reader.os[0] == "windows":
            # (a POSIX path is also WSL's or a container's: only Windows is said from here)
            out.host_fact("os", reader.os[0], out.where(reader.os[1]))
        return ParsedOutput(format="python-output", source=source,
                            stack_facts=tuple(out.stack.values()),
                            host_facts=tuple(out.host.values()), signals=out.built_signals())
    except Exception:  # a scanner bug must not lose the file's parse
        return ParsedOutput(format="python-output", source=source)
