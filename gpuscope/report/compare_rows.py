"""The rows of the Compare table: how each figure of a card is written, explained and ranked.

Each row makes one `Cell` per card from its profile (`gpuscope.knowledge.compare`) at the
user's price; the texts are English, written through `translate` (see
`gpuscope.report.compare_table`).
"""

from __future__ import annotations

import datetime as _dt

from gpuscope.bench.results import ResultStatus
from gpuscope.i18n import localise
from gpuscope.knowledge.compare import CardProfile
from gpuscope.knowledge.model_fit import DEFAULT_CONTEXT_TOKENS, Precision, fits, model_shape
from gpuscope.knowledge.specs import GpuSpec
from gpuscope.metrics import shown_unit
from gpuscope.report.compare_table import (
    QT_TRANSLATE_NOOP,
    Better,
    CardOrigin,
    Cell,
    CellMaker,
    ColorRole,
    CompareCard,
    Row,
    Translate,
)
from gpuscope.report.formatting import MISSING, format_dollars, format_figure
from gpuscope.report.what_fits import speed_cell

# How sure a datasheet figure is (GpuSpec.confidence), in words.
CONFIDENCE_WORDS = {
    "primary": QT_TRANSLATE_NOOP("ComparePage",
                                 "read in a primary source (the vendor's documentation or code)"),
    "secondary": QT_TRANSLATE_NOOP("ComparePage",
                                   "read in a secondary source (a review or a spec database)"),
    "derived": QT_TRANSLATE_NOOP("ComparePage", "derived by arithmetic from published figures"),
    "unverified": QT_TRANSLATE_NOOP("ComparePage", "a widely published vendor figure not "
                                    "re-read in the sources at hand: to verify"),
    "conflicting": QT_TRANSLATE_NOOP("ComparePage", "uncertain or conflicting sources"),
}


def _figure_tooltip(spec: GpuSpec | None, figure: str, what: str, text: str,
                    translate: Translate) -> str:
    lines = [f"{translate('ComparePage', what)}: {text}"]
    words = CONFIDENCE_WORDS.get(spec.confidence(figure) or "") if spec is not None else None
    if words:
        lines.append(translate("ComparePage", words))
    if spec is not None and spec.sources:
        # One source a line: a label and its public URL.
        lines.append(translate("ComparePage", "Sources: {sources}").format(
            sources="".join(f"\n  {source}" for source in spec.sources)))
    return "\n".join(lines)


def _missing_figure(card: CompareCard, what: str, translate: Translate) -> str:
    spec = card.profile.spec
    what = translate("ComparePage", what)
    if spec is None:
        return translate("ComparePage", "{name} is not in gpuscope's spec table, so there is "
                         "no datasheet {what}; a report only says what the machine itself "
                         "reported.").format(name=card.profile.name, what=what)
    note = f" {spec.notes}" if spec.notes else ""
    return translate("ComparePage", "The spec table has no {what} figure for the "
                     "{name}.").format(what=what, name=spec.name) + note


# The number formats a card may lack the hardware for (the spec table's `unsupported`).
_FIGURE_FORMATS = {"fp16_tflops": "fp16", "bf16_tflops": "bf16", "int8_tops": "int8"}


def _unsupported_cell(spec: GpuSpec | None, figure: str, what: str,
                      translate: Translate) -> Cell | None:
    """"✗ no native rate" for a format the card's hardware lacks (BF16 on RDNA2), with the
    table's notes saying why; None for a figure that is merely not known."""
    number_format = _FIGURE_FORMATS.get(figure)
    if spec is None or number_format not in spec.unsupported_formats:
        return None
    why = translate("ComparePage", "The {name} has no native {what} rate: its hardware has no "
                    "{what} matrix instructions.").format(name=spec.name,
                                                          what=translate("ComparePage", what))
    return Cell(translate("ComparePage", "✗ no native rate"),
                tooltip=why + (f"\n{spec.notes}" if spec.notes else ""), role=ColorRole.MUTED)


def _datasheet_row(key: str, label: str, figure: str, unit: str, what: str,
                   attribute: str, better: Better, tooltip: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
        value = getattr(profile.datasheet, attribute)
        if value is None:
            return (_unsupported_cell(profile.spec, figure, what, translate)
                    or Cell(MISSING, tooltip=_missing_figure(card, what, translate)))
        text = f"{format_figure(float(value))} {unit}"
        return Cell(text, float(value), _figure_tooltip(profile.spec, figure, what, text,
                                                    translate))

    return Row(key, label, "Datasheet", tooltip, cell, better, unit)


def _vram_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    sheet = profile.datasheet
    if sheet.vram_gib is None:
        return Cell(MISSING, tooltip=_missing_figure(card, "VRAM", translate))
    text = f"{format_figure(sheet.vram_gib)} GB"
    tooltip = _figure_tooltip(profile.spec, "vram_gib", "VRAM", text, translate)
    if profile.spec is None:
        tooltip = translate("ComparePage", "VRAM: {size}, as the report's machine reported "
                            "it").format(size=text)
    return Cell(text, sheet.vram_gib, tooltip)


def _fp16_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    spec, value = profile.spec, profile.datasheet.fp16_tflops
    if value is None:
        return (_unsupported_cell(spec, "fp16_tflops", "FP16", translate)
                or Cell(MISSING, tooltip=_missing_figure(card, "FP16", translate)))
    text = f"{format_figure(value)} TFLOPS"
    tooltip = _figure_tooltip(spec, "fp16_tflops",
                              QT_TRANSLATE_NOOP("ComparePage", "FP16 (dense matrix)"), text,
                              translate)
    if spec is not None and spec.fp16_accumulate == "fp16":
        tooltip += "\n" + translate("ComparePage", "This is the FP16-accumulate tensor rate "
                                    "NVIDIA quotes for GeForce cards; PyTorch matmul "
                                    "accumulates in FP32 (next row).")
        text += " *"
    return Cell(text, value, tooltip)


def _pytorch_fp16_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    spec, value = profile.spec, profile.datasheet.pytorch_fp16_tflops
    if value is None:
        if spec is not None and spec.fp16_accumulate == "fp16":
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "Only the FP16-accumulate figure of the {name} is published; "
                "its FP32-accumulate rate, which PyTorch uses, is not.").format(name=spec.name))
        return Cell(MISSING, tooltip=_missing_figure(card, "FP16", translate))
    text = f"{format_figure(value)} TFLOPS"
    figure = ("fp16_fp32acc_tflops" if spec is not None and spec.fp16_fp32acc_tflops
              is not None else "fp16_tflops")
    return Cell(text, value, _figure_tooltip(
        spec, figure, QT_TRANSLATE_NOOP("ComparePage", "FP16 with FP32 accumulate (what "
                                        "PyTorch fp16 matmul runs at)"), text, translate))


def _architecture_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    eco = profile.ecosystem
    parts = [p for p in (profile.architecture, eco.gfx_target) if p]
    if not parts:
        return Cell(MISSING, tooltip=translate(
            "ComparePage", "Neither the architecture nor the gfx target of {name} is "
            "known.").format(name=profile.name))
    return Cell(" · ".join(parts), tooltip=f"{profile.vendor} {' · '.join(parts)}")


def _launch_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    spec = profile.spec
    if spec is None or not spec.launch_date:
        return Cell(MISSING, tooltip=_missing_figure(
            card, QT_TRANSLATE_NOOP("ComparePage", "launch date"), translate))
    return Cell(spec.launch_date, tooltip=_figure_tooltip(
        spec, "launch_date", QT_TRANSLATE_NOOP("ComparePage", "Launched"), spec.launch_date,
        translate))


def _not_there(translate: Translate, other_vendor: bool, other_vendor_text: str,
               unknown_text: str, name: str) -> Cell:
    """The cell of a figure a card lacks: a thing of the other vendor's cards, or one not
    known for this card; both texts are marked for translation where they are written."""
    text = other_vendor_text if other_vendor else unknown_text
    return Cell(MISSING, tooltip=translate("ComparePage", text).format(name=name))


def _is_nvidia(profile: CardProfile) -> bool:
    return profile.ecosystem.compute_capability is not None or profile.vendor == "NVIDIA"


def _rocm_cell(os_name: str) -> CellMaker:
    def cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
        eco = profile.ecosystem
        status = eco.rocm_linux if os_name == "linux" else eco.rocm_windows
        if status is None:
            return _not_there(translate, _is_nvidia(profile), QT_TRANSLATE_NOOP(
                "ComparePage", "ROCm is AMD's compute stack; it does not run on NVIDIA cards "
                "(CUDA does)."), QT_TRANSLATE_NOOP(
                "ComparePage", "The gfx target of {name} is not known, so its ROCm support "
                "cannot be looked up."), profile.name)
        release = f" {status.release_checked}" if status.release_checked else ""
        text, role = {
            "supported": (translate("ComparePage", "✓ supported{release}"), ColorRole.OK),
            "deprecated": (translate("ComparePage", "! deprecated{release}"), ColorRole.WARNING),
            "listed": (translate("ComparePage", "✓ listed{release}"), ColorRole.OK),
            "runtime_only": (translate("ComparePage", "! runtime only"), ColorRole.WARNING),
            "unsupported": (translate("ComparePage", "✗ not supported"), ColorRole.ERROR),
            "uncertain": (translate("ComparePage", "? not readable"), ColorRole.MUTED),
            "unknown": (translate("ComparePage", "? unknown"), ColorRole.MUTED),
        }.get(status.level, (f"? {status.level}", ColorRole.MUTED))
        text = text.format(release=release)
        if status.level == "unsupported" and status.latest_release_listing:
            text = translate("ComparePage", "✗ dropped after {release}").format(
                release=status.latest_release_listing)
        return Cell(text, tooltip=localise(status.note) + "\n" + translate(
            "ComparePage", "Source: {source}").format(source=status.source), role=role)

    return cell


def _override_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    eco = profile.ecosystem
    if eco.gfx_target is None:
        return _not_there(translate, _is_nvidia(profile), QT_TRANSLATE_NOOP(
            "ComparePage", "HSA_OVERRIDE_GFX_VERSION is a ROCm setting; NVIDIA cards do not "
            "use it."), QT_TRANSLATE_NOOP(
            "ComparePage", "The gfx target of this card is not known."), profile.name)
    advice = eco.hsa_override
    if eco.override_needed and advice is not None:
        return Cell(f"! {advice.env_var.removeprefix('HSA_OVERRIDE_')}={advice.value}",
                    tooltip=translate(
                        "ComparePage", "{assignment}: PyTorch's official ROCm wheel has no "
                        "code for {target}, so it runs as {pretends}.").format(
                            assignment=advice.assignment, target=eco.gfx_target,
                            pretends=advice.pretends_to_be)
                    + f"\n{localise(advice.caveat)}\n"
                    + translate("ComparePage", "Source: {source}").format(source=advice.source),
                    role=ColorRole.WARNING)
    linux = eco.rocm_linux
    if advice is None and linux is not None and linux.supported is False:
        return Cell(translate("ComparePage", "none known"), tooltip=translate(
            "ComparePage", "No HSA_OVERRIDE_GFX_VERSION value is known to make {target} "
            "work.").format(target=eco.gfx_target), role=ColorRole.MUTED)
    return Cell(translate("ComparePage", "✓ not needed"), tooltip=translate(
        "ComparePage", "{target} runs without HSA_OVERRIDE_GFX_VERSION.").format(
            target=eco.gfx_target), role=ColorRole.OK)


def _wheel_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    eco = profile.ecosystem
    release = eco.pytorch_release_checked
    which = f"torch {release}" if release else translate("ComparePage", "the newest torch")
    has = eco.pytorch_wheel_has_target
    target = eco.gfx_target or (translate("ComparePage", "compute capability {cc}").format(
        cc=eco.compute_capability) if eco.compute_capability else None)
    if has is None or target is None:
        return Cell(translate("ComparePage", "? unknown"), tooltip=translate(
            "ComparePage", "Whether {which}'s official wheel carries code for this card is "
            "not known.").format(which=which), role=ColorRole.MUTED)
    if has:
        return Cell(translate("ComparePage", "✓ native ({release})").format(release=release)
                    if release else translate("ComparePage", "✓ native"),
                    tooltip=translate("ComparePage", "{which}'s official wheel carries native "
                                      "code for {target}.").format(which=which, target=target),
                    role=ColorRole.OK)
    return Cell(translate("ComparePage", "✗ no native code"), tooltip=translate(
        "ComparePage", "{which}'s official wheel has no native code for {target}.").format(
            which=which, target=target), role=ColorRole.ERROR)


def _cuda_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    eco = profile.ecosystem
    if eco.compute_capability is None:
        return _not_there(translate, eco.gfx_target is not None or profile.vendor == "AMD",
                          QT_TRANSLATE_NOOP("ComparePage", "The CUDA compute capability is "
                                            "NVIDIA's; AMD cards run ROCm and HIP."),
                          QT_TRANSLATE_NOOP("ComparePage", "The compute capability of this "
                                            "card is not known."), profile.name)
    text = eco.compute_capability
    tooltip = translate("ComparePage", "Compute capability {cc}").format(cc=text)
    if eco.cuda_architecture:
        tooltip += f" ({eco.cuda_architecture})"
    if eco.cuda_dropped_in:
        text += translate("ComparePage", " · dropped in CUDA {version}").format(
            version=eco.cuda_dropped_in)
        tooltip += translate("ComparePage", "; CUDA {version} no longer supports it.").format(
            version=eco.cuda_dropped_in)
    return Cell(text, tooltip=tooltip,
                role=ColorRole.WARNING if eco.cuda_dropped_in else None)


def _measured_row(key: str, benchmark_id: str, label: str, unit: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
        result = card.results.get(benchmark_id)
        shown_label = translate("ComparePage", label)
        if result is None:
            if card.origin is not CardOrigin.IMPORTED:
                return Cell(MISSING, tooltip=translate(
                    "ComparePage", "Measured results come from imported reports. Import a "
                    "report with benchmark results (gpuscope report --format json) to fill "
                    "this row."))
            return Cell(MISSING, tooltip=translate(
                "ComparePage", "The report from {source} has no {label} result for this "
                "card.").format(source=card.source, label=shown_label))
        if result.status is not ResultStatus.OK or result.value is None:
            unsupported = result.status is ResultStatus.UNSUPPORTED
            word = (translate("ComparePage", "unsupported") if unsupported
                    else translate("ComparePage", "failed"))
            reason = result.reason or translate("ComparePage", "no reason given")
            return Cell(word, tooltip=f"{shown_label} {word}: {reason}",
                        role=ColorRole.MUTED if unsupported else ColorRole.ERROR)
        text = f"{format_figure(result.value)} {shown_unit(result.unit or unit)}"
        lines = [translate("ComparePage", "Measured {value} ({label})").format(
            value=text, label=shown_label)]
        if result.percent_of_peak is not None and result.peak is not None:
            text += f" · {result.percent_of_peak:.0f}%"
            lines.append(translate("ComparePage", "{percent}% of the {peak} {unit} {what} peak "
                                   "({note})").format(
                percent=f"{result.percent_of_peak:.0f}", peak=format_figure(result.peak.value),
                unit=result.peak.unit, what=localise(result.peak.label),
                note=localise(result.peak.note)))
        else:
            lines.append(translate("ComparePage", "No datasheet peak to compare it with."))
        worker = " ".join(p for p in (
            f"torch {result.torch_version}" if result.torch_version else None,
            f"({result.build})" if result.build else None) if p)
        where = (translate("ComparePage", " on {device}").format(device=result.device_name)
                 if result.device_name else "")
        when = ""
        if result.ended_unix_s is not None:
            try:
                moment = _dt.datetime.fromtimestamp(result.ended_unix_s, _dt.timezone.utc)
                when = moment.strftime(", %Y-%m-%d %H:%M UTC")
            except (OverflowError, OSError, ValueError):
                when = ""
        if worker or where or when:
            lines.append(translate("ComparePage", "Run with {worker}{where}{when}").format(
                worker=worker or translate("ComparePage", "an unknown torch"), where=where,
                when=when))
        lines.append(translate("ComparePage", "From {source}").format(source=card.source)
                     if card.source else "")
        return Cell(text, result.value, "\n".join(line for line in lines if line))

    # The tooltip is made from the label by `row_tooltip`.
    return Row(key, label, "Measured", "", cell, Better.HIGHER, unit)


# The LLM rows: decode tokens/s at the 4-bit type most downloads use, after a 4k context.
LLM_PRECISION = Precision.Q4_K_M
LLM_CONTEXT_TOKENS = DEFAULT_CONTEXT_TOKENS


def _llm_row(key: str, model_name: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
        shape = model_shape(model_name)
        if shape is None:
            return Cell(MISSING, tooltip=translate("ComparePage", "{model} is not in gpuscope's "
                                                   "model table.").format(model=model_name))
        vram = profile.datasheet.vram_bytes
        if vram is not None and not fits(vram, shape, LLM_PRECISION, LLM_CONTEXT_TOKENS).fits:
            return Cell(translate("ComparePage", "✗ does not fit"), tooltip=translate(
                "ComparePage", "{model} at Q4_K_M with a {tokens}-token context needs more "
                "than this card's VRAM: the layers left off the GPU run at the CPU's speed."
                ).format(model=model_name, tokens=LLM_CONTEXT_TOKENS), role=ColorRole.MUTED)
        speed = speed_cell(profile.spec, shape, LLM_PRECISION, LLM_CONTEXT_TOKENS,
                           bandwidth_gb_s=profile.datasheet.memory_bandwidth_gb_s)
        if speed.tokens_per_s is None:
            return Cell(MISSING, tooltip=speed.tooltip)
        return Cell(speed.text(localise(speed.label)), speed.tokens_per_s, speed.tooltip)

    return Row(key, model_name, "LLM", "", cell, Better.HIGHER, "tokens/s")


def price_cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
    """The price row's cell (the page shows its tooltip on the price box)."""
    price = profile.price
    if price.price_usd is None:
        return Cell(MISSING, tooltip=translate("ComparePage",
                                               "No launch price is known: type one."))
    launch = profile.datasheet.launch_price_usd
    if price.is_launch_price:
        tooltip = (translate("ComparePage", "Launch price {price}").format(
            price=f"${launch:,}") if launch is not None
            else translate("ComparePage", "Launch price"))
    else:
        tooltip = translate("ComparePage", "Your price (launch price: {price})").format(
            price="$" + format(launch, ",") if launch else translate("ComparePage", "unknown"))
    return Cell(format_dollars(price.price_usd), price.price_usd, tooltip)


def _per_row(key: str, label: str, attribute: str, what: str, per: str,
             tooltip: str) -> Row:
    def cell(card: CompareCard, profile: CardProfile, translate: Translate) -> Cell:
        value = getattr(profile.price, attribute)
        if value is None:
            if profile.price.price_usd is None:
                return Cell(MISSING, tooltip=translate(
                    "ComparePage", "No price: type one in the Price row."))
            return Cell(MISSING, tooltip=_missing_figure(card, what, translate))
        price = profile.price.price_usd or 0.0
        sum_text = f"{format_dollars(price)} / {format_figure(price / value)} {per} = "
        return Cell(f"{format_dollars(value)}", value, sum_text + translate(
            "ComparePage", "{price} per {unit}").format(price=format_dollars(value), unit=per))

    return Row(key, label, "Price", tooltip, cell, Better.LOWER, "USD", price_dependent=True)


# Labels, tooltips and the "what" of each figure are English, marked for translation here and
# translated where they are shown.
ROWS: tuple[Row, ...] = (
    Row("vram", "VRAM", "Datasheet", QT_TRANSLATE_NOOP(
        "ComparePage", "Memory on the card, as sold (a \"24 GB\" card holds 24 GiB)."),
        _vram_cell, Better.HIGHER, "GB"),
    _datasheet_row("bandwidth", QT_TRANSLATE_NOOP("ComparePage", "Memory bandwidth"),
                   "memory_bandwidth_gb_s", "GB/s",
                   QT_TRANSLATE_NOOP("ComparePage", "memory bandwidth"),
                   "memory_bandwidth_gb_s", Better.HIGHER,
                   QT_TRANSLATE_NOOP("ComparePage", "Theoretical memory bandwidth: what token "
                                     "generation of a large model is bound by.")),
    _datasheet_row("fp32", "FP32", "fp32_tflops", "TFLOPS", "FP32", "fp32_tflops",
                   Better.HIGHER, QT_TRANSLATE_NOOP(
                       "ComparePage", "Peak FP32 vector rate (RDNA3 figures count "
                       "dual-issue).")),
    Row("fp16", QT_TRANSLATE_NOOP("ComparePage", "FP16 (datasheet)"), "Datasheet",
        QT_TRANSLATE_NOOP("ComparePage", "The dense FP16 matrix rate as the datasheet quotes "
                          "it. * GeForce: the FP16-accumulate rate, twice what PyTorch gets."),
        _fp16_cell, Better.HIGHER, "TFLOPS"),
    Row("fp16_pytorch", QT_TRANSLATE_NOOP("ComparePage", "FP16 for PyTorch"), "Datasheet",
        QT_TRANSLATE_NOOP("ComparePage", "FP16 inputs with FP32 accumulate: the peak a "
                          "PyTorch fp16 matmul runs against."), _pytorch_fp16_cell,
        Better.HIGHER, "TFLOPS"),
    _datasheet_row("bf16", "BF16", "bf16_tflops", "TFLOPS", "BF16", "bf16_tflops",
                   Better.HIGHER, QT_TRANSLATE_NOOP(
                       "ComparePage", "Dense BF16 matrix rate (FP32 accumulate).")),
    _datasheet_row("int8", "INT8", "int8_tops", "TOPS", "INT8", "int8_tops", Better.HIGHER,
                   QT_TRANSLATE_NOOP("ComparePage", "Dense INT8 matrix rate, in "
                                     "tera-operations per second.")),
    _datasheet_row("tdp", QT_TRANSLATE_NOOP("ComparePage", "Board power (TDP)"), "tdp_w", "W",
                   QT_TRANSLATE_NOOP("ComparePage", "board power"), "tdp_w", Better.LOWER,
                   QT_TRANSLATE_NOOP("ComparePage", "Total board power: what the power supply "
                                     "and cooling must handle. Lower is highlighted.")),
    Row("launch", QT_TRANSLATE_NOOP("ComparePage", "Launched"), "Datasheet",
        QT_TRANSLATE_NOOP("ComparePage", "When the card came out (its launch or first "
                          "availability), from the sources of its row."), _launch_cell),
    Row("architecture", QT_TRANSLATE_NOOP("ComparePage", "Architecture"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "The GPU architecture and, for AMD, the gfx target "
                          "ROCm builds code for."), _architecture_cell),
    Row("rocm_linux", QT_TRANSLATE_NOOP("ComparePage", "ROCm on Linux"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether AMD's official support list of the newest "
                          "ROCm release in gpuscope's table names this card on Linux."),
        _rocm_cell("linux")),
    Row("rocm_windows", QT_TRANSLATE_NOOP("ComparePage", "ROCm on Windows"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "The same for ROCm (HIP SDK) on Windows."),
        _rocm_cell("windows")),
    Row("override", QT_TRANSLATE_NOOP("ComparePage", "HSA override"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether PyTorch needs HSA_OVERRIDE_GFX_VERSION to "
                          "run on this card (its official wheel has no code for it)."),
        _override_cell),
    Row("pytorch_wheel", QT_TRANSLATE_NOOP("ComparePage", "PyTorch wheel"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "Whether the newest official PyTorch wheel (ROCm or "
                          "CUDA build) carries native code for this card."), _wheel_cell),
    Row("cuda_cc", QT_TRANSLATE_NOOP("ComparePage", "CUDA compute capability"), "Ecosystem",
        QT_TRANSLATE_NOOP("ComparePage", "NVIDIA's compute capability: which CUDA releases "
                          "and PyTorch builds support the card."), _cuda_cell),
    _measured_row("measured.matmul.fp16", "matmul.fp16",
                  QT_TRANSLATE_NOOP("ComparePage", "FP16 matmul"), "TFLOPS"),
    _measured_row("measured.matmul.fp32", "matmul.fp32",
                  QT_TRANSLATE_NOOP("ComparePage", "FP32 matmul"), "TFLOPS"),
    _measured_row("measured.memory.copy", "memory.copy",
                  QT_TRANSLATE_NOOP("ComparePage", "Memory copy"), "GB/s"),
    _llm_row("llm.llama3_8b", "Llama 3 8B"),
    _llm_row("llm.qwen25_14b", "Qwen2.5 14B"),
    _llm_row("llm.qwen25_32b", "Qwen2.5 32B"),
    _llm_row("llm.llama3_70b", "Llama 3 70B"),
    Row("price", QT_TRANSLATE_NOOP("ComparePage", "Price (USD)"), "Price",
        QT_TRANSLATE_NOOP("ComparePage", "What the card costs: its launch price until you "
                          "type another. Prices drive the rows below at once."),
        price_cell, Better.LOWER, "USD", price_dependent=True),
    _per_row("usd_per_fp16", QT_TRANSLATE_NOOP("ComparePage", "$ per FP16 TFLOPS"),
             "usd_per_fp16_tflops", "FP16", "TFLOPS",
             QT_TRANSLATE_NOOP("ComparePage", "Price per datasheet FP16 TFLOPS (GeForce: the "
                               "FP16-accumulate rate).")),
    _per_row("usd_per_pytorch_fp16", QT_TRANSLATE_NOOP("ComparePage",
                                                       "$ per PyTorch FP16 TFLOPS"),
             "usd_per_pytorch_fp16_tflops",
             QT_TRANSLATE_NOOP("ComparePage", "FP16 with FP32 accumulate"), "TFLOPS",
             QT_TRANSLATE_NOOP("ComparePage", "Price per FP16 TFLOPS at FP32 accumulate, what "
                               "PyTorch runs at.")),
    _per_row("usd_per_gb", QT_TRANSLATE_NOOP("ComparePage", "$ per GB of VRAM"),
             "usd_per_vram_gib", "VRAM", "GB",
             QT_TRANSLATE_NOOP("ComparePage", "Price per GB of VRAM: what decides which models "
                               "fit.")),
)
ROW_KEYS: tuple[str, ...] = tuple(row.key for row in ROWS)
SECTION_TITLES = {
    "Datasheet": QT_TRANSLATE_NOOP("ComparePage", "Datasheet"),
    "Ecosystem": QT_TRANSLATE_NOOP("ComparePage", "Ecosystem"),
    "Measured": QT_TRANSLATE_NOOP("ComparePage", "Measured (imported reports)"),
    "LLM": QT_TRANSLATE_NOOP("ComparePage", "LLM decode (Q4_K_M, 4k)"),
    "Price": QT_TRANSLATE_NOOP("ComparePage", "Price (USD, editable)"),
}
CHART_ROWS: tuple[str, ...] = tuple(row.key for row in ROWS if row.better is not Better.NONE)


def row_positions() -> dict[str, int]:
    """The table row of each of ROWS' keys, below its section's title row."""
    positions: dict[str, int] = {}
    row, section = 0, None
    for spec in ROWS:
        if spec.section != section:
            section = spec.section
            row += 1
        positions[spec.key] = row
        row += 1
    return positions
