"""Throughputs measured by llama.cpp, not by gpuscope: what `gpuscope bench --import FILE` and
`gpuscope bench --llama-bench PATH` keep in the run history, each labelled "imported".

An imported result has its own identity, never a benchmark id of the catalogue: its id is the
tool and its test, ``llama-bench.tg128``, ``llama-bench.pp512``, ``llama-bench.pp512+tg128``,
``llama-bench.tg128@d4096``, ``llama-cli.eval``, ``llama-server.prompt_eval``; its unit is always
tokens/s. It carries the model, quantisation, backend, ngl, GPU and build as llama.cpp printed
them (`ImportedLlamaResult`), the file it came from and when it was imported. The history
keeps these in a table of their own, apart from measured runs.

This module does not import the parser (the report and the Compare page read imported results,
and views never import parsers): the parser's record, `gpuscope.model.LlamaBenchResult`, is
kept as it is (`ImportedLlamaResult` names it here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuscope.bench.results import BenchTelemetry
from gpuscope.decode import Decoder
from gpuscope.i18n import N_, localise, message
from gpuscope.model import JsonValue, LlamaBenchResult, to_jsonable

TOOLS: tuple[str, ...] = ("llama-bench", "llama-cli", "llama-server")
IMPORTED_KIND = "imported"
TOKENS_PER_S = "tokens/s"
# What a file's format is called in words.
FORMAT_WORDS: dict[str, str] = {
    "md": N_("llama-bench markdown"), "csv": N_("llama-bench CSV"),
    "json": N_("llama-bench JSON"), "jsonl": N_("llama-bench JSONL"),
    "sql": N_("llama-bench SQL"), "llama-cli": N_("llama-cli timings"),
    "llama-server": N_("llama-server timings"),
}


# The parser's record itself (it lives in the model: report/ reads it, and may not import
# parsers).
ImportedLlamaResult = LlamaBenchResult


@dataclass(frozen=True, slots=True)
class ImportedResult:
    """One throughput imported from llama.cpp's output (`kind` is always "imported")."""

    id: str  # "llama-bench.tg128": the tool and its test, never a catalogue benchmark id
    source_file: str  # the file's name as it was given ("bench-7900xtx.md")
    imported_unix_s: float
    result: ImportedLlamaResult
    kind: str = IMPORTED_KIND
    unit: str = TOKENS_PER_S
    ran_by_gpuscope: bool = False  # `bench --llama-bench`: gpuscope started llama-bench
    telemetry: tuple[BenchTelemetry, ...] = ()  # per device, while its test ran (runs only)

    @property
    def tokens_per_s(self) -> float:
        return self.result.tokens_per_s


@dataclass(frozen=True, slots=True)
class FileImport:
    """What one file gave: its results, the formats found, the parser's problems, and the
    one-line error when it gave none (unreadable, or no results)."""

    path: str
    results: tuple[ImportedResult, ...] = ()
    formats: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    error: str | None = None


def imported_id(result: ImportedLlamaResult) -> str:
    """"llama-bench.tg128", "llama-bench.tg128@d4096", "llama-cli.prompt_eval"."""
    test = result.test.replace(" @ ", "@").replace(" ", "_")
    tool = result.tool if result.tool in TOOLS else "llama.cpp"
    return f"{tool}.{test}"


def imported_to_json(item: ImportedResult) -> dict[str, JsonValue]:
    document = to_jsonable(item)
    assert isinstance(document, dict)
    return document


_DECODER = Decoder()


def imported_from_json(raw: Any) -> ImportedResult | None:
    """An imported result as `imported_to_json` wrote it; None when it is not one."""
    item = _DECODER.decode(ImportedResult, raw).value
    if item is None or item.kind != IMPORTED_KIND or item.result.tokens_per_s <= 0:
        return None
    return item


# ----------------------------------------------------------------------------- words


def throughput_words(result: ImportedLlamaResult) -> str:
    """Tokens/s as llama-bench prints them: "105.23 ± 0.51"."""
    value = f"{result.tokens_per_s:.2f}"
    if result.tokens_per_s_stddev is None:
        return value
    return f"{value} ± {result.tokens_per_s_stddev:.2f}"


def model_words(result: ImportedLlamaResult) -> str:
    return result.model_type or (Path(result.model_filename).name if result.model_filename
                                 else "-")


def imported_row(item: ImportedResult, ident: str) -> list[str]:
    """A table row: id, result, model, quantisation, backend, ngl, GPU, tokens/s, source."""
    result = item.result
    ngl = "" if result.n_gpu_layers is None else str(result.n_gpu_layers)
    return [ident, item.id, model_words(result), result.quantisation or "-",
            result.backend or "-", ngl or "-", result.gpu_name or "-", throughput_words(result),
            item.source_file]


def imported_header() -> list[str]:
    return [localise(word) for word in (
        N_("id"), N_("result"), N_("model"), N_("quant"), N_("backend"), N_("ngl"), N_("GPU"),
        N_("tokens/s"), N_("source"))]


def format_words(formats: Sequence[str]) -> str:
    return ", ".join(localise(FORMAT_WORDS.get(f, f)) for f in formats)


def imported_heading(count: int) -> str:
    """The heading over imported results, which says they are imported."""
    return (message("1 imported result (measured by llama.cpp, not by gpuscope):")
            if count == 1 else
            message("{count} imported results (measured by llama.cpp, not by gpuscope):",
                    count=count))
