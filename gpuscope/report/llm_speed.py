"""Tokens per second in the share report and from the run history, without Qt: what fits in
each GPU's VRAM and the decode speed to expect, each figure labelled measured, imported,
published or estimated (`gpuscope.report.what_fits.speed_cell`).

Like the benchmark verdicts, nothing here is stored in the report: the section is worked out
from the report's GPUs and runs against today's knowledge base whenever it is shown.

The run history's LLM results (`imported_observations`, `measured_observations`,
`measured_decode_ratio`) are also what the Compare page's What-fits panel shows as measured and
imported figures (`ComparePage.set_llm_results`); `judge_imported` gives an imported result its
verdict against the published figures, as the matmul results get theirs.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gpuscope.bench.imported import ImportedResult
from gpuscope.bench.results import BenchRun
from gpuscope.i18n import N_, gettext, localise, message
from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.llm_reference import QUANT_PRECISION, LlmVerdict, judge
from gpuscope.knowledge.model_fit import (
    DEFAULT_CONTEXT_TOKENS,
    TABLE_PRECISIONS,
    ModelShape,
    Precision,
    all_models,
    fits,
    model_shape,
    precision_info,
)
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.report.formatting import MISSING, format_gb
from gpuscope.report.view_model import ShareReport
from gpuscope.report.what_fits import (
    SPEED_IMPORTED,
    SPEED_MEASURED,
    FitState,
    LlmObservation,
    SpeedCell,
    fit_state,
    speed_cell,
)

# The models the report lists: one per size class a 8-24 GB card decides between.
REPORT_MODELS: tuple[str, ...] = ("Llama 3 8B", "Qwen2.5 14B", "Qwen2.5 32B", "Llama 3 70B")
FIT_WORDS = {FitState.FITS: N_("fits"), FitState.TIGHT: N_("tight"),
             FitState.NO: N_("does not fit")}
# An imported model is the table's model whose parameter count is within this share of the
# count llama-bench printed (Llama 3 and 3.1 8B share a shape; 7B models differ by > 4 %).
PARAMETER_TOLERANCE = 0.015
_DTYPE_PRECISION = {"float16": Precision.FP16, "bfloat16": Precision.BF16}
_DECODE_IDS = ("llm.decode", "llm.decode_long")


def shape_for_parameters(parameters: int | None) -> ModelShape | None:
    """The model of resources/model_shapes.toml with this many parameters, within
    PARAMETER_TOLERANCE; None when none or several are that close."""
    if not parameters or parameters <= 0:
        return None
    near = [m for m in all_models()
            if abs(m.parameter_count - parameters) <= PARAMETER_TOLERANCE * parameters]
    return near[0] if len(near) == 1 else None


def imported_observations(items: Iterable[ImportedResult]) -> tuple[LlmObservation, ...]:
    """Imported llama.cpp decode results (tg tests, newest first as the history lists them) as
    the What-fits panel's "imported" figures: those naming one known card, a model of the
    table (by parameter count) and a quantisation gpuscope has a size for."""
    seen: list[LlmObservation] = []
    for item in items:
        result = item.result
        if not result.test.startswith("tg") or "@" in result.test or result.tokens_per_s <= 0:
            continue
        spec = gpu_spec(result.gpu_name) if result.gpu_name else None
        shape = shape_for_parameters(result.model_params)
        precision = QUANT_PRECISION.get((result.quantisation or "").upper())
        if spec is None or shape is None or precision is None:
            continue
        seen.append(LlmObservation(SPEED_IMPORTED, spec.name, shape.name, precision,
                                   result.tokens_per_s, item.source_file))
    return tuple(seen)


def measured_observations(runs: Iterable[BenchRun]) -> tuple[LlmObservation, ...]:
    """This machine's LLM benchmark decode results (newest run first) on a card of the spec
    table, at the dtype they ran in, as "measured" figures. Extrapolated results count: the
    benchmark states the layers measured, and the tooltip names the run."""
    seen: list[LlmObservation] = []
    for run in runs:
        spec_name = run.target.spec_name if run.target is not None else None
        if spec_name is None:
            continue
        for result in run.results:
            if result.id not in _DECODE_IDS or result.value is None or result.value <= 0:
                continue
            shape = model_shape(str(result.parameters.get("model_shape") or ""))
            precision = _DTYPE_PRECISION.get(str(result.parameters.get("dtype") or ""))
            if shape is None or precision is None:
                continue
            seen.append(LlmObservation(SPEED_MEASURED, spec_name, shape.name, precision,
                                       result.value, f"{result.id}, gpuscope bench"))
    return tuple(seen)


def measured_decode_ratio(runs: Iterable[BenchRun]) -> tuple[str, float] | None:
    """The newest measured decode's ceiling ratio and the card it ran on: (spec name, ratio);
    None without one. The ratio is to the measured bandwidth of that card."""
    for run in runs:
        spec_name = run.target.spec_name if run.target is not None else None
        for result in run.results:
            ratio = result.parameters.get("ceiling_ratio")
            if spec_name and result.id in _DECODE_IDS and isinstance(ratio, (int, float)) \
                    and not isinstance(ratio, bool) and 0 < ratio <= 1.5:
                return spec_name, float(ratio)
    return None


def _backend_name(printed: str | None) -> str | None:
    """llama-bench's backend column ("ROCm,RPC", "BLAS,MTL", "Vulkan") as the reference table
    names it; None when it names none of ROCm, Vulkan, CUDA or Metal."""
    parts = [p.strip().upper() for p in (printed or "").split(",")]
    for part, name in (("ROCM", "ROCm"), ("HIP", "ROCm"), ("VULKAN", "Vulkan"),
                       ("CUDA", "CUDA"), ("MTL", "Metal"), ("METAL", "Metal")):
        if part in parts:
            return name
    return None


def judge_imported(item: ImportedResult) -> LlmVerdict:
    """An imported llama.cpp result against the published ones of its card, model (by shape,
    else by llama-bench's model text), quantisation, backend and test."""
    result = item.result
    backend = _backend_name(result.backend)
    test = "".join(result.test.split())  # "tg 128" and "tg128 @ d4096" as the table writes
    if backend is None or not result.quantisation or not result.gpu_name:
        return LlmVerdict(VerdictLevel.UNKNOWN, message(
            "{value} tokens/s; the output does not name the GPU, the quantisation and the "
            "backend, so gpuscope cannot compare it with published results.",
            value=f"{result.tokens_per_s:.1f}"), None, ())
    shape = shape_for_parameters(result.model_params)
    model = shape.name if shape is not None else (result.model_type or "")
    verdict = judge(result.gpu_name, model, result.quantisation, backend, test,
                    result.tokens_per_s)
    if verdict.references or shape is None or not result.model_type:
        return verdict
    # The table may name the model as llama-bench does rather than by its shape.
    return judge(result.gpu_name, result.model_type, result.quantisation, backend, test,
                 result.tokens_per_s)


# ----------------------------------------------------------------------------- the report


@dataclass(frozen=True, slots=True)
class SpeedRow:
    """One GPU, model and precision: whether it fits and the decode speed to expect."""

    card: str  # the spec table's name
    model: str
    precision: Precision
    fit: str  # a FitState value
    needed_bytes: int
    vram_bytes: int
    speed: SpeedCell  # tokens_per_s None: not shown (it does not fit, or nothing is known)


def report_speed_rows(report: ShareReport,
                      context_tokens: int = DEFAULT_CONTEXT_TOKENS) -> tuple[SpeedRow, ...]:
    """Each of the report's cards (once per kind) with a spec entry and a VRAM size, at each
    of REPORT_MODELS and the What-fits precisions; its runs give the measured figures."""
    observations = measured_observations(report.bench_runs)
    ratio = measured_decode_ratio(report.bench_runs)
    rows: list[SpeedRow] = []
    seen: set[str] = set()
    for gpu in report.gpus:
        model_gpu = gpu.to_gpu()
        spec = gpu_spec(model_gpu.name, vendor_id=model_gpu.pci_vendor_id,
                        device_id=model_gpu.pci_device_id,
                        vram_bytes=model_gpu.vram_total_bytes)
        vram = gpu.vram_total_bytes or (spec.vram_bytes if spec is not None else None)
        if spec is None or not vram or spec.name in seen:
            continue
        seen.add(spec.name)
        card_ratio = ratio[1] if ratio is not None and ratio[0] == spec.name else None
        for name in REPORT_MODELS:
            shape = model_shape(name)
            if shape is None:
                continue
            for precision in TABLE_PRECISIONS:
                result = fits(vram, shape, precision, context_tokens)
                speed = speed_cell(spec, shape, precision, context_tokens,
                                   measured_ratio=card_ratio, observations=observations)
                if not result.fits:
                    speed = SpeedCell(None, "", speed.lines)
                rows.append(SpeedRow(spec.name, shape.name, precision, fit_state(result),
                                     result.needed_bytes, vram, speed))
    return tuple(rows)


def speed_json(rows: Sequence[SpeedRow]) -> list[dict[str, Any]]:
    """The rows for the JSON export (English, like every --json output)."""
    return [{"card": r.card, "model": r.model, "precision": r.precision.value,
             "fit": r.fit, "needed_bytes": r.needed_bytes, "vram_bytes": r.vram_bytes,
             "decode_tokens_per_s": r.speed.tokens_per_s, "label": r.speed.label or None,
             "basis": [str(line) for line in r.speed.lines],
             "source_url": r.speed.source_url} for r in rows]


def _speed_text(row: SpeedRow) -> str:
    if row.speed.tokens_per_s is None:
        return MISSING
    return f"{row.speed.tokens_per_s:.0f}"


def _cells(row: SpeedRow) -> list[str]:
    return [row.card, row.model, precision_info(row.precision).label,
            f"{localise(FIT_WORDS[row.fit])} ({format_gb(row.needed_bytes)})",
            _speed_text(row), localise(row.speed.label) if row.speed.label else MISSING]


def _heading() -> tuple[str, str, list[str]]:
    title = gettext("LLM: what fits and tokens/s")
    note = gettext("Decode tokens/s for one user after {tokens} tokens of context, each figure "
                   "labelled: measured (this machine's benchmark), imported (llama-bench), "
                   "published (a llama.cpp result for the card, with its source) or estimated "
                   "(memory bandwidth x the share of it llama.cpp reaches / bytes read per "
                   "token).").format(tokens=DEFAULT_CONTEXT_TOKENS)
    header = [gettext("GPU"), gettext("Model"), gettext("Precision"), gettext("Fits in VRAM"),
              gettext("Decode tokens/s"), gettext("Label")]
    return title, note, header


def speed_markdown(report: ShareReport) -> list[str]:
    """The report's section as Markdown lines; none without a card of the spec table."""
    rows = report_speed_rows(report)
    if not rows:
        return []
    title, note, header = _heading()
    lines = ["## " + title, "", note, "", "| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in _cells(r)) + " |" for r in rows]
    sources = sorted({r.speed.source_url for r in rows if r.speed.source_url})
    if sources:
        lines += ["", gettext("Published figures from:")] + [f"- <{url}>" for url in sources]
    bases = [f"{r.card}, {r.model}, {precision_info(r.precision).label}: "
             f"{localise(r.speed.lines[1])}" for r in rows
             if r.speed.tokens_per_s is not None and len(r.speed.lines) > 1
             and r.speed.source_url is None and r.speed.label not in (SPEED_MEASURED,
                                                                         SPEED_IMPORTED)]
    if bases:
        lines += ["", gettext("How the estimates were made:")] + [f"- {b}" for b in bases]
    return [*lines, ""]


def speed_html(report: ShareReport) -> str:
    """The report's section as an HTML fragment; "" without a card of the spec table."""
    rows = report_speed_rows(report)
    if not rows:
        return ""
    title, note, header = _heading()
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = [esc(c) for c in _cells(row)]
        if row.speed.source_url:  # named, never linked: the page loads and links nothing
            cells[5] = f"{cells[5]} ({esc(row.speed.source_url)})"
        tip = esc(row.speed.tooltip)
        body.append("<tr>" + "".join(f'<td title="{tip}">{c}</td>' for c in cells) + "</tr>")
    return (f'<section id="llm-speed"><h2>{esc(title)}</h2><p class="meta">{esc(note)}</p>'
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            "</section>")
