"""The LLM runtime logs (Ollama, llama.cpp, LM Studio) among whatever else a paste holds.

Their lines come inside other outputs too (a `journalctl -b` with the kernel's lines, a
`dmesg` beside an Ollama log), so the importer reads every input for them after its own
format's parser: `with_llm_runtimes` adds the runtime, its GPUs and signals to that parse,
and names the format when the paste is in no other known one. Ollama's and LM Studio's logs
hold llama.cpp's lines (their engine is llama.cpp): their own parser wins.
"""

from __future__ import annotations

import dataclasses
import logging
from types import ModuleType

from gpuscope.model import ParsedOutput
from gpuscope.parsers import detect_format, llama_cpp_log, lmstudio_log, ollama_log
from gpuscope.parsers._common import parser_error

log = logging.getLogger(__name__)

LLM_MODULES: tuple[ModuleType, ...] = (ollama_log, lmstudio_log, llama_cpp_log)
LLM_FORMATS: tuple[str, ...] = tuple(f for m in LLM_MODULES for f in m.FORMATS)
# Formats that only say "no tool's output, but some lines gpuscope knows": an LLM log there is
# the paste's format.
_GENERIC_FORMATS = frozenset({"unknown", "error-text", "host-info", "kernel-log"})


def detect_llm_log(text: str) -> tuple[ModuleType, str, float] | None:
    """The LLM log parser most confident about this text (the first listed on a tie)."""
    return detect_format(text, LLM_MODULES)


def parse_llm_log(text: str, source: str) -> ParsedOutput | None:
    """The paste as an LLM runtime's log, or None when it is none. Never raises."""
    detected = detect_llm_log(text)
    if detected is None:
        return None
    module, fmt, _confidence = detected
    try:
        parsed: ParsedOutput = module.parse(text, source)
    except Exception as exc:  # parsers promise not to raise; keep that promise for them
        log.exception("parser %s failed on %s", module.__name__, source)
        return parser_error(fmt, source, exc)
    return parsed


def with_llm_runtimes(parsed: ParsedOutput, text: str, source: str) -> ParsedOutput:
    """`parsed` (another parser's reading of `text`) with what an LLM runtime's lines in
    `text` show: its runtimes, its GPUs, and the signals it did not already hold (per kind
    and target). The LLM log's format names a paste in no other known format."""
    if parsed.llm_runtimes:  # its parser read them already
        return parsed
    llm = parse_llm_log(text, source)
    if llm is None or not llm.llm_runtimes or not (llm.signals or any(
            r.version or r.devices or r.models or r.backends or r.evidence
            for r in llm.llm_runtimes)):
        return parsed  # a sniffer's guess that no line bore out
    seen = {(s.kind, s.gfx_target) for s in parsed.signals}
    signals = parsed.signals + tuple(s for s in llm.signals
                                     if (s.kind, s.gfx_target) not in seen)
    generic = parsed.format in _GENERIC_FORMATS
    problems = tuple(p for p in parsed.problems
                     if not (generic and p.endswith("not a format gpuscope recognises")))
    return dataclasses.replace(
        parsed, format=llm.format if generic else parsed.format,
        sightings=parsed.sightings + llm.sightings, signals=signals,
        problems=problems + llm.problems, llm_runtimes=llm.llm_runtimes)
