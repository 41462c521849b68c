"""LM Studio's logs as people paste them: the developer log (`[2026-01-14 11:07:45][DEBUG]
[LM Studio] GPU Configuration: ...`, `2026-03-03 15:29:35 [DEBUG]` then the message), `lms log
stream`, and the messages its window shows ("Failed to load the model", "GPU survey
unsuccessful"), with the llama.cpp lines of its engine (read by `llama_cpp_log`).

What it reads besides those: LM Studio's version (`LM Studio 0.3.39 (Build 2)`), its engine
(`llama.cpp-win-x86_64-amd-rocm-avx2-2.33.0`, `ROCm llama.cpp (Windows) v1.104.2`) and the
backend that names, and the GPU survey's failure (`Backend '...' requires GPU acceleration,
but GPU survey software was unsuccessful with message: ...`, `Error surveying hardware`).

Signals: see `_llm_common`, and ``llm.model_load_failed`` (detail = the message) for "Error
loading model" / "Failed to load the model".
"""

from __future__ import annotations

import re

from gpuscope.model import EvidenceRef, LlmRuntime, ParsedOutput
from gpuscope.parsers._common import SNIFF_CHARS, never_raises, none_on_error
from gpuscope.parsers._llm_common import log_lines, ref, sniff_head, unique_devices
from gpuscope.parsers.llama_cpp_log import LlamaFindings, read_llama_lines

FORMATS: tuple[str, ...] = ("lmstudio-log",)

_VERSION = re.compile(r"\bLM Studio (?:version )?v?(\d{1,2}\.\d{1,3}\.\d{1,4})\b")
_ENGINE = re.compile(
    r"\bllama\.cpp-(?:win|linux|mac)-[a-z0-9_]{1,20}-(?P<kind>[a-z0-9-]{1,60}?)"
    r"(?:-(?P<version>\d{1,3}\.\d{1,4}\.\d{1,4}))?(?![\w.-])"
    r"|\b(?P<display>ROCm|Vulkan|CUDA(?: \d{1,2})?|Metal|CPU) llama\.cpp"
    r"(?: \((?:Windows|Linux|Mac|macOS)\))?(?: v(?P<dversion>\d{1,3}\.\d{1,4}\.\d{1,4}))?",
    re.IGNORECASE)
_SURVEY = re.compile(r"GPU survey (?:software )?was unsuccessful|GPU survey unsuccessful|"
                     r"Error surveying hardware|No supported GPUs", re.IGNORECASE)
_LOAD_FAILED = re.compile(r"Failed to load (?:the |last used )?model|Error loading model|"
                          r"error loading model: .{1,200}", re.IGNORECASE)
_SNIFF = re.compile(r"\[LM Studio\]|\bLM Studio \d|\blmstudio\b|\.lmstudio[\\/]|llmster|"
                    r"llama\.cpp-(?:win|linux|mac)-|\b(?:ROCm|Vulkan|CUDA|Metal) llama\.cpp "
                    r"\((?:Windows|Linux|Mac)|\blms log stream\b", re.IGNORECASE)


_OWN = re.compile(r"\[LM Studio\]|\bLM Studio \d|llmster|llama\.cpp-(?:win|linux|mac)-|"
                  r"\b(?:ROCm|Vulkan|CUDA|Metal) llama\.cpp|GPU survey")


@none_on_error
def sniff(text: str) -> tuple[str, float] | None:
    head = sniff_head(text)
    markers = len(_SNIFF.findall(head, 0, SNIFF_CHARS))
    if markers == 0:
        return None
    # A llama.cpp log of a model kept under ~/.lmstudio is llama.cpp's, not LM Studio's.
    own = _OWN.search(head)
    return ("lmstudio-log", 0.97) if own else None


def _backend_of_engine(kind: str) -> str | None:
    low = kind.lower()
    for word, backend in (("rocm", "rocm"), ("vulkan", "vulkan"), ("cuda", "cuda"),
                          ("metal", "metal"), ("cpu", "cpu")):
        if word in low:
            return backend
    return "cpu" if re.fullmatch(r"(?:avx\d*|advsimd|arm64|x86_64|-)+", low) else None


def _read(lines: list[str], source: str, llama: LlamaFindings
          ) -> tuple[str | None, list[str], list[EvidenceRef]]:
    version: str | None = None
    backends: list[str] = []
    evidence: list[EvidenceRef] = []
    for index, line in enumerate(lines):
        line = line[:4000]
        if version is None and "LM Studio" in line:
            match = _VERSION.search(line)
            if match is not None:
                version = match.group(1)
                evidence.append(ref(source, index, line))
        if not evidence and _OWN.search(line):
            evidence.append(ref(source, index, line))  # LM Studio's own line: it ran here
        if "llama.cpp" in line:
            for match in _ENGINE.finditer(line):
                kind = match.group("kind") or match.group("display") or ""
                backend = _backend_of_engine(kind)
                if backend is not None and backend not in backends:
                    backends.append(backend)
                    evidence.append(ref(source, index, line))
        if _SURVEY.search(line):
            llama.signals.add_one("llm.no_gpu_found", ref(source, index, line),
                              detail=_survey_message(lines, index))
        match = _LOAD_FAILED.search(line)
        if match is not None:
            llama.signals.add_one("llm.model_load_failed", ref(source, index, line),
                              detail=match.group(0).strip().rstrip("."))
    return version, backends, evidence


def _survey_message(lines: list[str], index: int) -> str | None:
    """What a failed GPU survey said: the text after "with message:", on its line or on the
    next line that is not blank."""
    line = lines[index]
    if "with message:" not in line:
        return None
    rest = line.split("with message:", 1)[1].strip()
    for following in lines[index + 1:index + 4]:
        if rest:
            break
        rest = following.strip()
    return rest[:200] or None


@never_raises("lmstudio-log")
def parse(text: str, source: str) -> ParsedOutput:
    """LM Studio's log or the messages its window shows. Never raises."""
    lines, cut = log_lines(text)
    llama = read_llama_lines(lines, source, "lmstudio")
    version, engine_backends, evidence = _read(lines, source, llama)
    llama.finish(rocm="rocm" in engine_backends)
    backend = llama.backend()
    if len(engine_backends) == 1 and (backend is None or (
            not llama.devices and llama.offload is None)):
        backend = engine_backends[0]  # what its engine is built for, when no load shows more
    runtime = LlmRuntime(
        name="lmstudio", found=True, version=version, backend=backend,
        models=tuple(llama.models), devices=unique_devices(llama.devices),
        backends=tuple(dict.fromkeys(engine_backends + llama.backends)),
        evidence=tuple((evidence + llama.evidence)[:20]))
    return ParsedOutput(format="lmstudio-log", source=source,
                        sightings=llama.sightings("LM Studio"),
                        signals=llama.signals.signals(), problems=(cut,) if cut else (),
                        llm_runtimes=(runtime,))
