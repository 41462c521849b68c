"""Importers for the outputs people paste: pure functions from text to `ParsedOutput`.

`parse_any` recognises the format by content (a file name is only a hint), parses it, and
adds the error signals found anywhere in the text (people paste error lines inside other
outputs). Each parser module exposes `FORMATS`, `sniff(text)` and `parse(text, source)`.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
from types import ModuleType

from gpuscope.model import ParsedOutput
from gpuscope.parsers._common import parser_error

log = logging.getLogger(__name__)

PARSER_MODULES: tuple[str, ...] = (
    "rocminfo", "rocm_smi", "amd_smi", "clinfo", "nvidia_smi", "collect_env", "lspci",
    "kernel_log", "packages",
)

# Pasted outputs are bounded so that a wrong file (a video, a core dump) cannot stall us.
MAX_INPUT_CHARS = 5_000_000


def _modules() -> list[ModuleType]:
    modules = []
    for name in PARSER_MODULES:
        try:
            modules.append(importlib.import_module(f"gpuscope.parsers.{name}"))
        except ImportError:  # a parser not written yet must not break the others
            log.warning("parser module %s is missing", name)
    return modules


def detect_format(text: str) -> tuple[ModuleType, str, float] | None:
    """The parser whose `sniff` is most confident about this text, or None."""
    best: tuple[ModuleType, str, float] | None = None
    for module in _modules():
        try:
            found = module.sniff(text)
        except Exception:  # a sniffer bug must not hide the other formats
            log.exception("sniff of %s failed", module.__name__)
            continue
        if found is not None and (best is None or found[1] > best[2]):
            best = (module, found[0], float(found[1]))
    return best


def parse_any(text: str, source: str) -> ParsedOutput:
    """Parse whatever this is; never raises. Unknown text still yields its error signals."""
    from gpuscope.parsers import errors

    text = text[:MAX_INPUT_CHARS]
    detected = detect_format(text)
    if detected is None:
        parsed = errors.parse_error_text(text, source)
        if not parsed.signals:
            return dataclasses.replace(
                parsed, format="unknown",
                problems=(*parsed.problems, f"{source}: not a format gpuscope recognises"),
            )
        return parsed
    module, format_name, _confidence = detected
    try:
        parsed = module.parse(text, source)
    except Exception as exc:  # parsers promise not to raise; keep that promise for them
        log.exception("parser %s failed on %s", module.__name__, source)
        parsed = parser_error(format_name, source, exc)
    extra = tuple(s for s in errors.scan_signals(text, source)
                  if (s.kind, s.gfx_target) not in {(p.kind, p.gfx_target) for p in parsed.signals})
    return dataclasses.replace(parsed, signals=parsed.signals + extra) if extra else parsed
