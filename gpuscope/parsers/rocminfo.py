"""`rocminfo` (and `rocminfo --support`) as people paste it: ROCm 1.x to 7.x layouts.

What it yields:
- one `Layer.ROCM` sighting per GPU agent (`Device Type: GPU`). CPU agents are not GPUs (the
  first one's name becomes the host fact `cpu_model`); generic ISAs (`gfx11-generic`,
  `gfx9-4-generic` beside `gfx942`) are ISAs of a GPU agent, never GPUs nor its target. An
  iGPU agent often carries the CPU's marketing name; it is kept as the name. `kind` is
  integrated when the agent says so (`Memory Properties: APU`) or its gfx target, chip id or
  name is an APU's (gfx1036, gfx1103, gfx1150, "Radeon 780M", "Instinct MI300A"), virtual for
  an SR-IOV virtual function ("AMD Instinct MI300X VF", chip 0x74b5; signal
  `gpu.virtual_function`).
- `rocminfo | grep Name` (Name / Marketing Name lines without agent headers): each Name that
  is no ISA's ("amdgcn-amd-amdhsa--...") starts an agent.
- stack facts `kfd_loaded` (from the ROCk line), `amdgpu_driver_version` (from
  `ROCk module version X is loaded`, an out-of-tree amdgpu-dkms), `hsa_runtime_version`.
- host facts `os` = "wsl" (the WSL banner) and `cpu_model`.

Signals emitted:
- `kfd.loaded` / `kfd.not_loaded`: the ROCk line. Under WSL no ROCk line says nothing.
- `kfd.permission_denied`: `/dev/kfd` could not be opened for lack of permission, or rocminfo
  says the user is not in the render/video group. "Failed to get user name to check for video
  group membership" is only evidence on it: rocminfo prints it whenever getlogin() fails (sudo,
  containers), also when /dev/kfd is simply missing (ROCm/ROCm#1361, #4358) or opens fine.
- `kfd.missing`: "Unable to open /dev/kfd read-write: No such file or directory" (not on WSL).
- `kfd.open_failed` (new): /dev/kfd exists but opening it failed for another reason; detail =
  the error text (e.g. "Invalid argument": a KFD ioctl ABI mismatch).
- `hsa.error`: an `HSA_STATUS_ERROR_*` status; detail = the status name.
- `platform.wsl`: the "WSL environment detected." banner.
- `rocminfo.crashed` (new): rocminfo died ("Segmentation fault"); its output is no GPU list.
- `rocm.path_version`: a `/opt/rocm-X.Y.Z` path in the paste; detail = the version.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from gpuscope.i18n import message
from gpuscope.model import Fact, GpuFacts, GpuKind, GpuSighting, Layer, ParsedOutput, Vendor
from gpuscope.parsers._common import (
    APU_TARGETS,
    MAX_EVIDENCE,
    ROCM_PATH_RE,
    SNIFF_CHARS,
    Collector,
    LineReads,
    integrated_reason,
    key_value,
    never_raises,
    none_on_error,
    read_lines,
    virtual_function_reason,
)

FORMATS: tuple[str, ...] = ("rocminfo",)

_ROCK_LOADED = re.compile(r"ROCk module (?:version (\S+) )?is loaded")
_ROCK_NOT_LOADED = "ROCk module is NOT loaded"
_WSL_BANNER = "WSL environment detected"
_KFD_OPEN = re.compile(r"Unable to open /dev/kfd read-write:[ \t]*(.*)")
# The lookbehind starts the user name only at a word's start: linear on a long word.
_NOT_MEMBER = re.compile(r"(?<!\S)(\S+) is not (?:a )?member of \"?(\w+)\"? group")
_NO_USER = re.compile(r"Failed to get user name to check for \w+ group membership")
_HSA_STATUS = re.compile(r"\b(HSA_STATUS_ERROR\w*)")
_HSA_CALL = "hsa api call failure at"
_SEGFAULT = re.compile(r"\bSegmentation fault\b")
# A line that may be one of the messages above: one search instead of eight per line.
_MESSAGE = re.compile(r"WSL environment|ROCk module|/dev/kfd|member of|Failed to get user|"
                      r"HSA_STATUS_ERROR|Segmentation fault|/opt/rocm-")
_AGENT = re.compile(r"^[ \t]*Agent[ \t]+(\d+)[ \t]*$")
_POOL = re.compile(r"^[ \t]*Pool[ \t]+(\d+)[ \t]*$")
_ISA = re.compile(r"^[ \t]*ISA[ \t]+(\d+)[ \t]*$")
_AGENT_BANNER = re.compile(r"^[ \t]*\*{3,}[ \t]*\r?\n[ \t]*Agent \d+", re.MULTILINE)
_GREP_NAME = re.compile(r"^[ \t]*Name:[ \t]+(?:gfx[0-9a-f]{3,5}|amdgcn-amd-amdhsa--gfx)",
                        re.MULTILINE)
_LEADING_INT = re.compile(r"^(\d+)")
# "4194304KB", "65536(0x10000) KB", "2 GB": each optional part starts with its own character,
# so a failed match backtracks linearly.
_SIZE = re.compile(r"^(\d+)(?:\s*\(0x[0-9a-fA-F]+\))?(?:\s*([KMGT]?B))?(?!\w)", re.IGNORECASE)
_GFX = re.compile(r"^gfx[0-9a-f]{3,5}$")
_VERSION = re.compile(r"^\d+(?:\.\d+)+$")
_MAX_VALUE_CHARS = 200  # of a value: rocminfo's are short
_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
_PERMISSION_WORDS = ("permission denied", "operation not permitted")
# Agents kept: a rocminfo of 64 partitions has some 70; a paste of one repeated has no
# thousands of GPUs.
_MAX_AGENTS = 256
_SCALAR_KEYS = {
    "name", "uuid", "marketing name", "vendor name", "node", "device type", "chip id",
    "max clock freq. (mhz)", "max clock frequency (mhz)", "bdfid", "compute unit",
    "simds per cu", "memory properties",
}


@dataclass
class _Pool:
    segment: str = ""
    size_bytes: int | None = None
    line: int = 0


@dataclass
class _Agent:
    number: int
    line: int
    values: dict[str, tuple[str, int]] = field(default_factory=dict)
    pools: list[_Pool] = field(default_factory=list)
    isas: list[tuple[str, int]] = field(default_factory=list)

    def get(self, key: str) -> tuple[str, int] | None:
        return self.values.get(key)


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    """rocminfo by its banners and messages; never raises."""
    head = text[:SNIFF_CHARS]
    if "HSA System Attributes" in head and "HSA Agents" in head:
        return ("rocminfo", 0.97)
    if "HSA System Attributes" in head or _AGENT_BANNER.search(head):
        return ("rocminfo", 0.9)
    if _ROCK_LOADED.search(head) or _ROCK_NOT_LOADED in head:
        return ("rocminfo", 0.85)
    if "Unable to open /dev/kfd read-write:" in head or _WSL_BANNER in head:
        return ("rocminfo", 0.6)
    if "Marketing Name:" in head and _GREP_NAME.search(head):
        return ("rocminfo", 0.7)  # `rocminfo | grep -E "Name|Marketing"`
    return None


# What a message line says (see `_message`): its kind and detail, and whether it holds the
# WSL banner too.
_Message = tuple[bool, str, str | None, tuple[str, ...]]
_LOADED, _NOT_LOADED, _KFD_OPEN_FAILED, _NOT_A_MEMBER, _NO_USER_NAME, _HSA, _CRASH, _OTHER = (
    "loaded", "not loaded", "open", "member", "user", "hsa", "crash", "other")


def _message(line: str) -> _Message:
    """What a line that `_MESSAGE` finds something in says, whatever comes before it."""
    wsl = _WSL_BANNER in line
    if (match := _ROCK_LOADED.search(line)) is not None:
        return wsl, _LOADED, match.group(1), ()
    if _ROCK_NOT_LOADED in line:
        return wsl, _NOT_LOADED, None, ()
    if (match := _KFD_OPEN.search(line)) is not None:
        return wsl, _KFD_OPEN_FAILED, match.group(1).strip(), ()
    if " is not " in line and _NOT_MEMBER.search(line):
        return wsl, _NOT_A_MEMBER, None, ()
    if _NO_USER.search(line):
        return wsl, _NO_USER_NAME, None, ()
    if (match := _HSA_STATUS.search(line)) is not None:
        return wsl, _HSA, match.group(1), ()
    if _SEGFAULT.search(line):
        return wsl, _CRASH, None, ()
    return wsl, _OTHER, None, tuple(ROCM_PATH_RE.findall(line))


@dataclass
class _Messages:
    """What rocminfo says about the system, besides agents: the banners and errors."""

    wsl: bool = False
    kfd_fact: Fact | None = None
    open_error: tuple[str, int] | None = None
    # the lines of each message, as many as one signal keeps as its evidence
    not_member: list[int] = field(default_factory=list)
    no_user: list[int] = field(default_factory=list)

    def read(self, out: Collector, message: _Message, number: int) -> bool:
        """Take in line `number`, a message; True when the line is a message and nothing
        else."""
        ref, where = out.ref, out.where
        wsl, kind, detail, versions = message
        if wsl and not self.wsl:
            self.wsl = True
            out.host_fact("os", "wsl", where(number))
            out.signal("platform.wsl", None, ref(number))
        if kind == _LOADED:
            if self.kfd_fact is None:
                self.kfd_fact = Fact("kfd_loaded", True, where(number))
                out.signal("kfd.loaded", None, ref(number))
                if detail and _VERSION.match(detail):
                    out.stack_fact("amdgpu_driver_version", detail, where(number))
        elif kind == _NOT_LOADED:
            if self.kfd_fact is None:
                self.kfd_fact = Fact("kfd_loaded", False, where(number))
                out.signal("kfd.not_loaded", None, ref(number))
        elif kind == _KFD_OPEN_FAILED:
            self.open_error = (detail or "", number)
        elif kind == _NOT_A_MEMBER:
            if len(self.not_member) < MAX_EVIDENCE:
                self.not_member.append(number)
        elif kind == _NO_USER_NAME:
            if len(self.no_user) < MAX_EVIDENCE:
                self.no_user.append(number)
        elif kind == _HSA:
            if not out.signal_full("hsa.error", detail):
                evidence = [ref(number)]
                previous = next((n for n in range(number - 1, max(number - 4, 0), -1)
                                 if out.lines[n - 1].strip()), None)
                if previous is not None and _HSA_CALL in out.lines[previous - 1]:
                    evidence.insert(0, ref(previous))
                out.signal("hsa.error", detail, *evidence)
        elif kind == _CRASH:
            out.signal_at("rocminfo.crashed", "Segmentation fault", number)
        else:
            for version in versions:
                out.signal_at("rocm.path_version", version, number)
            return False
        return True


def _unquoted(line: str) -> str:
    """A line of a paste quoted in markdown ("> ...") without its quote marker."""
    left = line.lstrip()
    if left.startswith("> "):
        return left[2:]
    return "" if left == ">" else line


class _Line:
    """One non-blank line as the parse loop reads it, whatever comes before it."""

    __slots__ = ("agent", "isa_header", "isa_info", "key", "message", "pool_header",
                 "pool_info", "value")

    def __init__(self, raw: str, line: str) -> None:
        self.message = _message(line) if _MESSAGE.search(line) is not None else None
        match = _AGENT.match(raw) if line.startswith("Agent") else None
        self.agent = int(match.group(1)) if match is not None else None
        found = key_value(line)
        self.key = found[0].lower() if found is not None else None
        self.value = found[1] if found is not None else ""
        lowered = line.lower()
        self.pool_info = lowered.startswith("pool info")
        self.isa_info = lowered.startswith("isa info")
        self.pool_header = lowered.startswith("pool") and _POOL.match(raw) is not None
        self.isa_header = lowered.startswith("isa") and _ISA.match(raw) is not None


def _read_line(quoted: str) -> _Line | None:
    """The reading of a line; None for a blank one."""
    raw = _unquoted(quoted) if ">" in quoted else quoted
    line = raw.strip()
    return _Line(raw, line) if line else None


@never_raises("rocminfo")
def parse(text: str, source: str) -> ParsedOutput:
    """rocminfo text to sightings, stack/host facts and signals; never raises."""
    lines, cut = read_lines(text)
    out = Collector(source, lines, cut=cut)
    where = out.where
    messages = _Messages()
    agents: list[_Agent] = []
    agent: _Agent | None = None
    section = "system"
    runtime_version: tuple[str, int] | None = None
    grep_form = False  # agents without "Agent N" headers: a grep of rocminfo's output
    full = False  # past `_MAX_AGENTS`: only the messages are read
    reads = LineReads(_read_line)

    for number, quoted in enumerate(lines, start=1):
        read = reads[quoted]
        if read is None:
            continue
        if read.message is not None and messages.read(out, read.message, number):
            continue
        if full:
            continue
        if read.agent is not None:
            if len(agents) >= _MAX_AGENTS:
                full = True
                continue
            grep_form = False
            agent = _Agent(number=read.agent, line=number)
            agents.append(agent)
            section = "agent"
            continue
        key, value = read.key, read.value
        if agent is None or (grep_form and section != "pools"):
            if key == "name":
                # `rocminfo | grep Name` (no agent headers): a Name starts an agent, unless it
                # is an ISA's ("amdgcn-amd-amdhsa--gfx942:...") of the agent above.
                if value.lower().startswith("amdgcn-") and agent is not None:
                    agent.isas.append((value[:_MAX_VALUE_CHARS], number))
                    continue
                if agent is None or grep_form:
                    if len(agents) >= _MAX_AGENTS:
                        full = True
                        continue
                    grep_form = True
                    agent = _Agent(number=len(agents) + 1, line=number)
                    agent.values["name"] = (value[:_MAX_VALUE_CHARS], number)
                    agents.append(agent)
                    section = "agent"
                    continue
            if agent is None:
                if key == "runtime version" and runtime_version is None:
                    runtime_version = (value, number)
                continue
        if read.pool_info:
            section = "pools"
            continue
        if read.isa_info:
            section = "isas"
            continue
        if section == "pools" and read.pool_header:
            agent.pools.append(_Pool(line=number))
            continue
        if section == "isas" and read.isa_header:
            continue
        if key is None:
            continue
        value = value[:_MAX_VALUE_CHARS]
        if section == "agent" and key in _SCALAR_KEYS and key not in agent.values:
            agent.values[key] = (value, number)
        elif section == "pools" and agent.pools:
            pool = agent.pools[-1]
            if key == "segment":
                pool.segment = value.upper()
            elif key == "size":
                size = _size_bytes(value)
                if size is None:
                    out.problems.append(f"{where(number)}: pool size {value!r} not understood")
                pool.size_bytes = size
                pool.line = number
        elif section == "isas" and key == "name":
            agent.isas.append((value, number))

    if full:
        out.problems.append(f"more than {_MAX_AGENTS} agents: the rest were not read")
    wsl, kfd_fact = messages.wsl, messages.kfd_fact
    if runtime_version is not None and _VERSION.match(runtime_version[0]):
        out.stack_fact("hsa_runtime_version", runtime_version[0], where(runtime_version[1]))
    if kfd_fact is not None and not wsl:
        out.stack = {kfd_fact.key: kfd_fact, **out.stack}  # kfd_loaded comes first
    _kfd_access_signals(out, wsl, messages.open_error, messages.not_member,
                        messages.no_user)

    gpus = [a for a in agents if _is_gpu(a)]
    cpus = [a for a in agents if _device_type(a) == "CPU"]
    if cpus:
        cpu_name = (cpus[0].get("marketing name") or cpus[0].get("name"))
        if cpu_name and cpu_name[0]:
            out.host_fact("cpu_model", cpu_name[0], where(cpu_name[1]))
    bdf_counts = Counter(_bdfid(a) for a in gpus)
    sightings = [_sighting(a, out, wsl, bdf_counts) for a in gpus]
    return out.result("rocminfo", sightings)


def _kfd_access_signals(out: Collector, wsl: bool, open_error: tuple[str, int] | None,
                        not_member: list[int], no_user: list[int]) -> None:
    ref = out.ref
    group_refs = [ref(n) for n in not_member]
    user_refs = [ref(n) for n in no_user]
    if open_error is not None:
        reason, number = open_error
        lowered = reason.lower()
        if any(word in lowered for word in _PERMISSION_WORDS):
            out.signal("kfd.permission_denied", reason, ref(number), *group_refs, *user_refs)
            return
        if "no such file" in lowered:
            if not wsl:
                out.signal("kfd.missing", reason, ref(number))
        elif reason:
            out.signal("kfd.open_failed", reason, ref(number))
    if group_refs:
        detail = None
        match = _NOT_MEMBER.search(group_refs[0].text or "")
        if match is not None:
            detail = f'not in the "{match.group(2)}" group'
        out.signal("kfd.permission_denied", detail, *group_refs, *user_refs)


def _is_gpu(agent: _Agent) -> bool:
    device_type = _device_type(agent)
    if device_type is not None:
        return device_type == "GPU"
    name = agent.get("name")
    return name is not None and _canonical_gfx(name[0]) is not None


def _device_type(agent: _Agent) -> str | None:
    found = agent.get("device type")
    return found[0].strip().upper() if found and found[0].strip() else None


def _bdfid(agent: _Agent) -> int | None:
    found = agent.get("bdfid")
    if found is None:
        return None
    match = _LEADING_INT.match(found[0])
    return int(match.group(1)) if match else None


def _sighting(agent: _Agent, out: Collector, wsl: bool,
              bdf_counts: Counter[int | None]) -> GpuSighting:
    source = out.source
    values: dict[str, object] = {"vendor": Vendor.AMD}
    sources: dict[str, str] = {}
    missing: dict[str, str] = {}
    agent_where = f"{source}:{agent.line}"
    vendor_line = agent.get("vendor name")
    sources["vendor"] = f"{source}:{vendor_line[1]}" if vendor_line else agent_where

    def put(name: str, value: object, line: int) -> None:
        values[name] = value
        sources[name] = f"{source}:{line}"

    name_field = agent.get("name")
    gfx = _canonical_gfx(name_field[0]) if name_field else None
    if gfx is not None and name_field is not None:
        put("gfx_target", gfx, name_field[1])
    else:
        for isa, line in agent.isas:
            isa_gfx = _canonical_gfx(isa)
            if isa_gfx is not None:
                put("gfx_target", isa_gfx, line)
                break
        else:
            missing["gfx_target"] = message("{where}: agent {agent} names no gfx target",
                                            where=agent_where, agent=agent.number)

    marketing = agent.get("marketing name")
    if marketing is not None and marketing[0] and _canonical_gfx(marketing[0]) is None:
        put("name", marketing[0], marketing[1])
    else:
        missing["name"] = (message("{where}: no Marketing Name (rocminfo before ROCm 3.x)",
                                   where=agent_where) if marketing is None
                           else message("{where}: empty Marketing Name", where=agent_where))

    chip = agent.get("chip id")
    chip_id = _int_prefix(chip[0]) if chip else None
    if chip is not None and chip_id:
        put("pci_device_id", f"0x{chip_id:04x}", chip[1])
    else:
        missing["pci_device_id"] = message("{where}: no Chip ID", where=agent_where)

    bdfid = _bdfid(agent)
    bdf_line = agent.get("bdfid")
    if bdfid and bdf_line is not None:
        if bdf_counts[bdfid] > 1:
            missing["pci_bus"] = message(
                "{where}: BDFID {bdfid} is shared by {count} agents (it carries no PCI domain)",
                where=f"{source}:{bdf_line[1]}", bdfid=bdfid, count=bdf_counts[bdfid])
        else:
            put("pci_bus", _bus_from_bdfid(bdfid), bdf_line[1])
    else:
        missing["pci_bus"] = (message("{where}: no BDFID (WSL's runtime reports none)",
                                      where=agent_where) if wsl
                              else message("{where}: no usable BDFID", where=agent_where))

    cu = agent.get("compute unit")
    cu_count = _int_prefix(cu[0]) if cu else None
    if cu is not None and cu_count:
        put("compute_units", cu_count, cu[1])
        simds = agent.get("simds per cu")
        per_cu = _int_prefix(simds[0]) if simds else None
        if simds is not None and per_cu:
            put("simd_count", cu_count * per_cu, simds[1])
    else:
        missing["compute_units"] = message("{where}: no Compute Unit count", where=agent_where)

    clock = agent.get("max clock freq. (mhz)") or agent.get("max clock frequency (mhz)")
    clock_mhz = _int_prefix(clock[0]) if clock else None
    if clock is not None and clock_mhz:
        put("max_graphics_clock_mhz", clock_mhz, clock[1])

    uuid = agent.get("uuid")
    if uuid is not None and uuid[0] and not uuid[0].upper().endswith("-XX"):
        put("uuid", uuid[0], uuid[1])
    elif uuid is not None:
        missing["uuid"] = message("{where}: the runtime exposes no unique id ({uuid})",
                                  where=f"{source}:{uuid[1]}", uuid=uuid[0])

    node = agent.get("node")
    node_number = _int_prefix(node[0]) if node else None
    if node is not None and node_number is not None and not wsl:
        put("kfd_node", node_number, node[1])

    memory = agent.get("memory properties")
    if memory is not None and "APU" in memory[0].upper().split():
        put("kind", GpuKind.INTEGRATED, memory[1])
    else:
        _kind_from_identity(agent, out, values, put)

    pool = _vram_pool(agent)
    if pool is not None and pool.size_bytes:
        put("vram_total_bytes", pool.size_bytes, pool.line)
    else:
        missing["vram_total_bytes"] = message("{where}: no GLOBAL memory pool with a size",
                                              where=agent_where)

    facts = GpuFacts(**values)  # type: ignore[arg-type]
    return GpuSighting(layer=Layer.ROCM, facts=facts, field_sources=sources,
                       missing_reasons=missing)


def _kind_from_identity(agent: _Agent, out: Collector, values: dict[str, object],
                        put: Callable[[str, object, int], None]) -> None:
    """An SR-IOV virtual function or an APU's integrated GPU, told by the agent's name, chip
    id or gfx target when its memory properties do not say."""
    name = values.get("name")
    marketing = agent.get("marketing name")
    chip = agent.get("chip id")
    device = values.get("pci_device_id")
    name_text = name if isinstance(name, str) else (marketing[0] if marketing else None)
    if virtual_function_reason(name_text, device if isinstance(device, str) else None):
        line = (marketing or chip or (None, agent.line))[1]
        put("kind", GpuKind.VIRTUAL, line)
        bus = values.get("pci_bus")
        out.signal("gpu.virtual_function", str(bus) if bus else f"agent {agent.number}",
                   out.ref(line))
        return
    gfx = values.get("gfx_target")
    if integrated_reason(name_text, gfx if isinstance(gfx, str) else None,
                         device if isinstance(device, str) else None):
        gfx_line = agent.get("name")
        line = (gfx_line if gfx in APU_TARGETS and gfx_line else marketing or gfx_line
                or (None, agent.line))[1]
        put("kind", GpuKind.INTEGRATED, line)


def _vram_pool(agent: _Agent) -> _Pool | None:
    global_pools = [p for p in agent.pools if p.segment.startswith("GLOBAL")]
    for pool in global_pools:
        if "COARSE" in pool.segment and pool.size_bytes:
            return pool
    return next((p for p in global_pools if p.size_bytes), None)


def _bus_from_bdfid(value: int) -> str:
    # rocminfo's BDFID is KFD's location_id: (bus << 8) | (device << 3) | function.
    bus = (value >> 8) & 0xFF
    domain = value >> 16
    return f"{domain:04x}:{bus:02x}:{(value >> 3) & 0x1F:02x}.{value & 0x7}"


def _size_bytes(value: str) -> int | None:
    match = _SIZE.match(value.strip())
    if match is None:
        return None
    unit = (match.group(2) or "B").upper()
    return int(match.group(1)) * _UNITS.get(unit, 1)


def _int_prefix(value: str) -> int | None:
    match = _LEADING_INT.match(value.strip())
    return int(match.group(1)) if match else None


def _canonical_gfx(value: str) -> str | None:
    """'gfx908:sramecc+:xnack-', 'amdgcn-amd-amdhsa--gfx1100', 'gfx906+sram-ecc' -> the bare
    target; generic ISAs ('gfx11-generic') and anything else -> None."""
    token = value.strip().lower()
    if "--" in token:
        token = token.rsplit("--", 1)[1]
    token = re.split(r"[:+\s]", token, maxsplit=1)[0]
    return token if _GFX.match(token) else None
