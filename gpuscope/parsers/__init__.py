"""Importers for the outputs people paste: pure functions from text to `ParsedOutput`.

`parse_any` recognises the format by content (a file name is only a hint), parses it, and
adds the error signals found anywhere in the text (people paste error lines inside other
outputs). Each parser module exposes `FORMATS`, `sniff(text)` and `parse(text, source)`.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
from collections.abc import Sequence
from types import ModuleType

from gpuscope.model import Fact, GpuSighting, ParsedOutput, Signal
from gpuscope.parsers._common import parser_error

log = logging.getLogger(__name__)

PARSER_MODULES: tuple[str, ...] = (
    "rocminfo", "rocm_smi", "amd_smi", "clinfo", "nvidia_smi", "collect_env", "lspci",
    "nvidia_driver", "python_text",
    "kernel_log", "packages", "host", "pip_list",
    "hipinfo", "win32_video", "dxdiag", "wsl_list",
)

# Modules whose `scan(text, source)` reads what shows inside any format (NVRM lines in a
# journal, PyTorch's messages in a log): it joins every parse where the parser did not say it.
SCANNER_MODULES: tuple[str, ...] = ("nvidia_driver", "python_text", "container_engine")

# The paste limit: characters of one input that are parsed. Every parser is linear in the size
# of its input (benchmarks/parser_fuzz.py measures it), so the limit bounds the time too.
MAX_INPUT_CHARS = 10_000_000


def _modules() -> list[ModuleType]:
    modules = []
    for name in PARSER_MODULES:
        try:
            modules.append(importlib.import_module(f"gpuscope.parsers.{name}"))
        except ImportError:  # a parser not written yet must not break the others
            log.warning("parser module %s is missing", name)
    return modules


def detect_format(text: str, modules: Sequence[ModuleType] | None = None
                  ) -> tuple[ModuleType, str, float] | None:
    """The parser (of `modules`; default: all) whose `sniff` is most confident about this
    text (the first listed on a tie), or None."""
    best: tuple[ModuleType, str, float] | None = None
    for module in _modules() if modules is None else modules:
        try:
            found = module.sniff(text)
        except Exception:  # a sniffer bug must not hide the other formats
            log.exception("sniff of %s failed", module.__name__)
            continue
        if found is not None and (best is None or found[1] > best[2]):
            best = (module, found[0], float(found[1]))
    return best


def parse_any(text: str, source: str) -> ParsedOutput:
    """Parse whatever this is; never raises. Unknown text still yields its error signals and
    the host facts it shows (a kernel release, a container's or a VM's trace)."""
    from gpuscope.parsers import errors, host

    cut = len(text) > MAX_INPUT_CHARS
    if cut:
        text = text[:MAX_INPUT_CHARS]
    detected = detect_format(text)
    if detected is None:
        parsed = errors.parse_error_text(text, source)
    else:
        module, format_name, _confidence = detected
        try:
            parsed = module.parse(text, source)
        except Exception as exc:  # parsers promise not to raise; keep that promise for them
            log.exception("parser %s failed on %s", module.__name__, source)
            parsed = parser_error(format_name, source, exc)
        seen = {(s.kind, s.gfx_target) for s in parsed.signals}
        extra = tuple(s for s in errors.scan_signals(text, source)
                      if (s.kind, s.gfx_target) not in seen)
        if extra:
            parsed = dataclasses.replace(parsed, signals=parsed.signals + extra)
    parsed = _with_scans(parsed, text, source, detected[0] if detected else None)
    errors_found = bool(parsed.signals)
    parsed = _with_host_traces(parsed, *host.scan_host(text, source))
    if detected is None and not errors_found and not parsed.host_facts:
        parsed = dataclasses.replace(
            parsed, format="unknown",
            problems=(*parsed.problems, f"{source}: not a format gpuscope recognises"))
    elif detected is None and not errors_found:
        parsed = dataclasses.replace(parsed, format="host-info")
    parsed = _derived(parsed)
    if cut:
        parsed = dataclasses.replace(parsed, problems=(
            *parsed.problems, f"{source}: only the first {MAX_INPUT_CHARS:,} characters "
                              "were read"))
    return parsed


def _derived(parsed: ParsedOutput) -> ParsedOutput:
    """Facts that follow from what any parser found: the ROCm release one ROCm path names
    (/opt/rocm-6.4.0, a build path's compute-rocm-rel-3.3), and a virtual machine where a GPU
    is an SR-IOV virtual function or an NVIDIA vGPU (a host gives those to its guests)."""
    stack, host, signals = list(parsed.stack_facts), list(parsed.host_facts), []
    versions = {s.detail for s in parsed.signals if s.kind == "rocm.path_version" and s.detail}
    if len(versions) == 1 and not any(f.key == "rocm_version" for f in stack):
        signal = next(s for s in parsed.signals if s.kind == "rocm.path_version")
        where = signal.evidence[0].label() if signal.evidence else parsed.source
        stack.append(Fact("rocm_version", versions.pop(), where))
    keys = {f.key for f in host}
    wsl = any(f.key == "os" and f.value == "wsl" for f in host)
    functions = [s for s in parsed.signals if s.kind == "gpu.virtual_function"]
    if functions and "virtual_machine" not in keys and not wsl:
        evidence = functions[0].evidence
        where = evidence[0].label() if evidence else parsed.source
        host += [Fact("virtual_machine", True, where),
                 Fact("virtual_machine_hint", "a virtual GPU (an SR-IOV function or vGPU)",
                      where)]
        signals.append(Signal("platform.virtual_machine", "virtual GPU", evidence=evidence))
    if len(stack) == len(parsed.stack_facts) and len(host) == len(parsed.host_facts):
        return parsed
    return dataclasses.replace(parsed, stack_facts=tuple(stack), host_facts=tuple(host),
                               signals=parsed.signals + tuple(signals))


def _with_host_traces(parsed: ParsedOutput, facts: tuple[Fact, ...],
                      signals: tuple[Signal, ...]) -> ParsedOutput:
    """`parsed` with the host facts and platform signals found anywhere in its text that its
    parser did not report itself (the parser's own come first and win)."""
    keys = {f.key for f in parsed.host_facts}
    new_facts = tuple(f for f in facts if f.key not in keys)
    if "os" in keys:  # the parser knew the OS: a trace does not overrule it
        new_facts = tuple(f for f in new_facts if f.key != "os")
    wsl = any(f.key == "os" and f.value == "wsl" for f in (*parsed.host_facts, *new_facts))
    if wsl:  # WSL 2 runs in a utility VM by design (virtio devices): no VM the user set up
        new_facts = tuple(f for f in new_facts if not f.key.startswith("virtual_machine"))
    seen = {(s.kind, s.detail) for s in parsed.signals}
    new_signals = tuple(s for s in signals if (s.kind, s.detail) not in seen
                        and not (s.kind == "platform.wsl" and "os" in keys
                                 and "wsl" not in {f.value for f in parsed.host_facts})
                        and not (wsl and s.kind == "platform.virtual_machine"))
    if not new_facts and not new_signals:
        return parsed
    return dataclasses.replace(parsed, host_facts=parsed.host_facts + new_facts,
                               signals=parsed.signals + new_signals)


def _with_scans(parsed: ParsedOutput, text: str, source: str,
                parser: ModuleType | None) -> ParsedOutput:
    """`parsed` with the facts, signals and GPUs of `SCANNER_MODULES` that its parser did not
    report (per fact key, per signal kind and target, and per GPU name for a GPU without a bus
    address: the parser's own win)."""
    stack = {f.key for f in parsed.stack_facts}
    host_keys = {f.key for f in parsed.host_facts}
    seen = {(s.kind, s.gfx_target) for s in parsed.signals}
    named = {(s.facts.vendor, s.facts.name) for s in parsed.sightings if s.facts.name}
    facts: list[Fact] = []
    host_facts: list[Fact] = []
    signals: list[Signal] = []
    sightings: list[GpuSighting] = []
    for name in SCANNER_MODULES:
        try:
            module = importlib.import_module(f"gpuscope.parsers.{name}")
        except ImportError:
            continue
        if module is parser:
            continue
        scanned: ParsedOutput = module.scan(text, source)
        for fact in scanned.stack_facts:
            if fact.key not in stack:
                stack.add(fact.key)
                facts.append(fact)
        for fact in scanned.host_facts:
            if fact.key not in host_keys:
                host_keys.add(fact.key)
                host_facts.append(fact)
        for signal in scanned.signals:
            if (signal.kind, signal.gfx_target) not in seen:
                seen.add((signal.kind, signal.gfx_target))
                signals.append(signal)
        # A GPU with a bus address joins the parser's GPU at that address in the inventory.
        sightings += [s for s in scanned.sightings
                      if s.facts.pci_bus or (s.facts.vendor, s.facts.name) not in named]
    if not facts and not host_facts and not signals and not sightings:
        return parsed
    return dataclasses.replace(parsed, stack_facts=parsed.stack_facts + tuple(facts),
                               host_facts=parsed.host_facts + tuple(host_facts),
                               signals=parsed.signals + tuple(signals),
                               sightings=parsed.sightings + tuple(sightings))
