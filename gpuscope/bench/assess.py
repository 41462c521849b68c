"""Each benchmark result against the card's datasheet.

Two steps. `match_target` finds the machine's GPU the worker ran on (by PCI bus address, else by
name, else by target and VRAM) and with it the card of the knowledge base and the negotiated
PCIe link; the run keeps that as its `BenchTarget`. `assess_run` then puts each result next to
the datasheet peak for that card and precision (`knowledge.bench_expectations.datasheet_peak`)
and the verdict against published bands (`judge`), or says "no datasheet entry" and why.

Verdicts are not stored with a run: they are worked out again whenever a run is shown, so an
old run gets today's knowledge base. The share report and the Benchmarks page both call this.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gpuscope.bench.catalog import spec as catalog_spec
from gpuscope.bench.results import (
    BenchDevice,
    BenchmarkResult,
    BenchRun,
    BenchTarget,
    ResultStatus,
    Scalar,
    WorkerHello,
    format_bench_value,
)
from gpuscope.bench.stability import Stability, result_stability
from gpuscope.i18n import Message, join, message
from gpuscope.knowledge.bench_expectations import (
    BENCHMARKS as EXPECTATIONS,
)
from gpuscope.knowledge.bench_expectations import (
    Peak,
    VerdictLevel,
    datasheet_peak,
    judge,
)
from gpuscope.knowledge.sources import Source, sources_text
from gpuscope.knowledge.specs import GpuSpec, gpu_spec
from gpuscope.metrics import Metric
from gpuscope.model import Gpu, Vendor, pcie_generation

# A Radeon card's own link fields describe its on-board PCIe switch, not the slot
# (https://github.com/ilya-zlobintsev/LACT/issues/334): such a link is no peak for a host
# transfer.
_GPU_OWN_LINK_PREFIXES = ("GPU function", "amd-smi static")

NO_DATASHEET = "no datasheet entry"
_NO_DATASHEET_TEMPLATE = "no datasheet entry: {note}"
_CPU_WHY = message("gpuscope's knowledge base has datasheet peaks for GPUs, not for CPUs")
CPU_NO_DATASHEET = message("no datasheet entry: {note}", note=_CPU_WHY)
_CPU_NO_DATASHEET_TEXT = message("no datasheet entry: {note}.", note=_CPU_WHY)

# The words of a level, as tables show them (translatable).
LEVEL_WORDS: dict[str, str] = {
    VerdictLevel.NORMAL.value: message("normal"), VerdictLevel.LOW.value: message("low"),
    VerdictLevel.HIGH.value: message("above published"),
    VerdictLevel.UNKNOWN.value: message("no reference"),
    ResultStatus.UNSUPPORTED.value: message("unsupported"),
    ResultStatus.FAILED.value: message("failed"),
}
_NO_DATASHEET_WORD = message("no datasheet")

# How the worker's device was found (`BenchTarget.matched_by`), marked for translation: a run
# read back from the history has them as plain text.
_MATCHED_BY = (message("PCI bus address"), message("name"), message("target"),
               message("target and VRAM"), message("name in the knowledge base"),
               message("name torch reported"))


@dataclass(frozen=True, slots=True)
class ResultAssessment:
    """One result against the datasheet: the peak used (or why there is none), the percentage,
    and the verdict's level and words."""

    id: str
    title: str
    status: str  # a ResultStatus value
    level: str  # a VerdictLevel value, or "unsupported" / "failed"
    text: str  # the verdict in words, or the reason it is unsupported/failed
    percent_of_peak: float | None = None
    peak: Peak | None = None
    peak_missing: str | None = None  # "no datasheet entry: ..." when there is no peak
    band_pct: tuple[float, float] | None = None  # the published range, % of the peak
    sources: tuple[Source, ...] = ()  # the public sources the verdict rests on
    known_issue: str | None = None
    stability: Stability | None = None  # how far the repeats spread; None: not measured

    @property
    def unstable(self) -> bool:
        return self.stability is not None and self.stability.unstable

    @property
    def source(self) -> str:
        """The verdict's sources as one line: "label (https://...); ..."; "" when none."""
        return sources_text(self.sources)

    @property
    def level_word(self) -> str:
        if self.level == VerdictLevel.UNKNOWN.value and self.peak is None:
            return _NO_DATASHEET_WORD
        return LEVEL_WORDS.get(self.level, self.level)


@dataclass(frozen=True, slots=True)
class RunAssessment:
    """A run's results against the datasheet of the card it ran on."""

    target: BenchTarget | None
    card: GpuSpec | None  # the knowledge base's card, None: no datasheet entry
    device_label: str  # "AMD Radeon RX 7900 XTX (cuda:0)", "CPU (Intel Xeon ...)"
    compared_with: str  # one line: which datasheet the percentages are of, or why none
    results: tuple[ResultAssessment, ...]

    def result(self, benchmark_id: str) -> ResultAssessment | None:
        return next((r for r in self.results if r.id == benchmark_id), None)


# ----------------------------------------------------------------------------- matching


def is_gpu_run(hello: WorkerHello | None) -> bool:
    return hello is not None and bool(hello.device) and str(hello.device).startswith("cuda")


def _device_index(device: str) -> int | None:
    _, _, number = device.partition(":")
    return int(number) if number.isdigit() else 0 if device == "cuda" else None


def worker_device(hello: WorkerHello | None) -> BenchDevice | None:
    """What the worker said about the device under test."""
    if not is_gpu_run(hello):
        return None
    assert hello is not None and hello.device is not None
    index = _device_index(hello.device)
    return next((d for d in hello.devices if d.index == index), None)


def _short_bus(bus: str | None) -> str | None:
    """"0000:03:00.0" -> "03:00": domains and functions are reported differently by torch
    (function always 0) and the probes."""
    if not bus:
        return None
    text = bus.strip().lower()
    parts = text.split(":")
    if len(parts) < 2:
        return None
    return f"{parts[-2]}:{parts[-1].split('.')[0]}"


def _normal_arch(arch: str | None) -> str | None:
    if not arch:
        return None
    return arch.split(":", 1)[0].strip().lower()


def _same_arch(gpu: Gpu, arch: str) -> bool:
    if _normal_arch(gpu.gfx_target) == arch:
        return True
    return bool(gpu.compute_capability) and arch == "sm_" + str(gpu.compute_capability) \
        .replace(".", "")


def slot_link(gpu: Gpu | None) -> tuple[int | None, int | None, str | None]:
    """(generation, width, note) of the link to compare host transfers with; the note says
    why there is none."""
    if gpu is None:
        return None, None, None
    link = gpu.pcie_link
    if link is None:
        return None, None, message("the GPU's PCIe link was not read")
    if gpu.vendor is Vendor.AMD and link.measured_at and link.measured_at.startswith(
            _GPU_OWN_LINK_PREFIXES):
        return None, None, message("only the GPU's own link was read, which on Radeon cards is "
                                   "the on-board PCIe switch, not the slot")
    generation = pcie_generation(link.current_speed_gt_s)
    if generation is None or link.current_width is None:
        return None, None, message("the negotiated PCIe speed or width was not read")
    most = pcie_generation(link.max_speed_gt_s)
    if most is not None and most > generation:
        # An idle link trains down to save power (NVIDIA cards sit at 2.5 GT/s): the speed
        # read at rest is not the speed of a transfer.
        width = max(link.current_width, link.max_width or 0)
        return most, width, message(
            "the link was at PCIe {generation}.0 x{width} when read (idle links slow down); "
            "compared with its maximum, PCIe {most}.0 x{most_width}", generation=generation,
            width=link.current_width, most=most, most_width=width)
    return generation, link.current_width, None


def link_during(result: BenchmarkResult) -> tuple[int | None, int | None]:
    """The PCIe link sampled while `result` ran (the highest generation and width seen), from
    sources that read the slot's link: amdsmi reports a Radeon card's own link, which is its
    on-board switch, so it is not used."""
    telemetry = result.telemetry
    if telemetry is None:
        return None, None
    generation = telemetry.metric(Metric.PCIE_GEN.value)
    width = telemetry.metric(Metric.PCIE_WIDTH.value)
    if generation is None or width is None:
        return None, None
    if any((m.source or "").startswith("amdsmi") for m in (generation, width)):
        return None, None
    return round(generation.max), round(width.max)


def _spec_of(gpu: Gpu) -> GpuSpec | None:
    if not (gpu.name or gpu.pci_device_id):
        return None
    return gpu_spec(gpu.name or None, vendor_id=gpu.pci_vendor_id, device_id=gpu.pci_device_id,
                    vram_bytes=gpu.vram_total_bytes)


def _find_gpu(hello: WorkerHello, device: BenchDevice | None,
              gpus: Sequence[Gpu]) -> tuple[Gpu | None, str]:
    bus = _short_bus(device.pci_bus if device is not None else None)
    if bus is not None:
        by_bus = [g for g in gpus if _short_bus(g.pci_bus) == bus]
        if len(by_bus) == 1:
            return by_bus[0], "PCI bus address"
    name = hello.device_name or (device.name if device is not None else None)
    named = [g for g in gpus if name and g.name and g.name.lower() == name.strip().lower()]
    if len(named) == 1:
        return named[0], "name"
    arch = _normal_arch(device.arch if device is not None else None)
    if arch is not None:
        candidates = [g for g in (named or gpus) if _same_arch(g, arch)]
        if len(candidates) == 1:
            return candidates[0], "target"
        memory = device.total_memory_bytes if device is not None else None
        if memory and len(candidates) > 1:
            sized = [g for g in candidates if g.vram_total_bytes and
                     abs(g.vram_total_bytes - memory) <= 0.05 * g.vram_total_bytes]
            if len(sized) == 1:
                return sized[0], "target and VRAM"
    if len(gpus) == 1 and name and gpu_spec(name) is not None and \
            gpu_spec(name) == _spec_of(gpus[0]):
        return gpus[0], "name in the knowledge base"
    return None, ""


def match_target(hello: WorkerHello | None, gpus: Sequence[Gpu]) -> BenchTarget | None:
    """The machine's GPU the worker ran on, and its card in the knowledge base. None for a
    CPU run or a run without a hello. When no inventory GPU matches, the card is still looked
    up by the name torch reported (`matched_by` says so), without a PCIe link."""
    if not is_gpu_run(hello):
        return None
    assert hello is not None
    device = worker_device(hello)
    gpu, how = _find_gpu(hello, device, gpus)
    if gpu is not None:
        spec = _spec_of(gpu)
        name = hello.device_name or (device.name if device is not None else None)
        if spec is None and name:
            spec = gpu_spec(name)
        generation, width, note = slot_link(gpu)
        return BenchTarget(matched_by=how, gpu_index=gpu.index, gpu_name=gpu.name,
                           pci_bus=gpu.pci_bus, spec_name=spec.name if spec else None,
                           pcie_generation=generation, pcie_width=width, pcie_note=note)
    name = hello.device_name or (device.name if device is not None else None)
    spec = gpu_spec(name) if name else None
    return BenchTarget(
        matched_by=_MATCHED_BY[-1] if spec is not None else "not matched",
        gpu_name=name, pci_bus=device.pci_bus if device is not None else None,
        spec_name=spec.name if spec is not None else None,
        pcie_note=message("the GPU was not found among the machine's GPUs, so its PCIe link "
                          "is unknown"))


# ----------------------------------------------------------------------------- judging


def _title(benchmark_id: str) -> str:
    catalog = catalog_spec(benchmark_id)
    if catalog is not None:
        return catalog.title
    expectation = EXPECTATIONS.get(benchmark_id)
    return expectation.label if expectation is not None else benchmark_id


def assess_result(result: BenchmarkResult, card: GpuSpec | None, *, gpu_run: bool,
                  pcie_generation: int | None = None, pcie_width: int | None = None,
                  build: str | None = None, pcie_note: str | None = None) -> ResultAssessment:
    """One result against the datasheet peak of `card` (None: no card known)."""
    title = _title(result.id)
    stability = result_stability(result)
    if result.status is not ResultStatus.OK or result.value is None:
        return ResultAssessment(result.id, title, result.status.value, result.status.value,
                                result.reason or result.status.value)
    if result.id.startswith("llm."):
        return _assess_llm(result, title, stability)
    if not gpu_run:
        return ResultAssessment(result.id, title, result.status.value,
                                VerdictLevel.UNKNOWN.value, _CPU_NO_DATASHEET_TEXT,
                                peak_missing=CPU_NO_DATASHEET, stability=stability)
    if result.id.startswith("transfer."):
        during = link_during(result)
        if during[0] is not None and during[1] is not None:
            pcie_generation, pcie_width = during
            pcie_note = None
    peak = datasheet_peak(card, result.id, pcie_generation=pcie_generation,
                          pcie_width=pcie_width)
    verdict = judge(result.id, result.value, card, peak, build=build)
    used = verdict.peak or peak
    missing = None
    text = verdict.text
    if used is None:
        missing = _first_sentence(text) if text.startswith(NO_DATASHEET) else NO_DATASHEET
        if result.id.startswith("transfer.") and pcie_note:
            note = _known(pcie_note)
            missing = message("no datasheet entry: {note}", note=note)
            text = message("no datasheet entry: {note}.", note=note)
    return ResultAssessment(
        result.id, title, result.status.value, verdict.level.value, text,
        percent_of_peak=verdict.percent_of_peak, peak=used, peak_missing=missing,
        band_pct=verdict.band_pct, sources=verdict.sources, known_issue=verdict.known_issue,
        stability=stability)


def _number(parameters: Mapping[str, Scalar], key: str) -> float | None:
    value = parameters.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def _layers_words(parameters: Mapping[str, Scalar]) -> str:
    """How many layers were timed, and whether the result is scaled from them ("" when the
    result does not say)."""
    measured, total = parameters.get("layers_measured"), parameters.get("layers_total")
    if not isinstance(measured, int) or not isinstance(total, int):
        return ""
    shape = parameters.get("model_shape") or "?"
    if parameters.get("extrapolated") is True:
        return message("{shape}: {measured} of {total} layers measured, extrapolated to all "
                       "{total}.", shape=shape, measured=measured, total=total)
    return message("{shape}: all {total} layers measured.", shape=shape, total=total)


def _assess_llm(result: BenchmarkResult, title: str,
                stability: Stability | None) -> ResultAssessment:
    """An LLM result has no datasheet peak: decode is compared with its bandwidth ceiling,
    the measured memory bandwidth over the bytes a token reads, measured in the same run."""
    parameters = result.parameters
    layers = _layers_words(parameters)
    ceiling = _number(parameters, "bandwidth_ceiling_tokens_per_s")
    ratio = _number(parameters, "ceiling_ratio")
    bandwidth = _number(parameters, "measured_bandwidth_gb_s")
    per_token = _number(parameters, "bytes_per_token")
    if ceiling is None or ratio is None or bandwidth is None or per_token is None:
        why = (message("prefill is bound by compute, not memory bandwidth: no ceiling to "
                       "compare with") if result.id == "llm.prefill" else
               message("the worker reported no bandwidth ceiling"))
        return ResultAssessment(
            result.id, title, result.status.value, VerdictLevel.UNKNOWN.value,
            join(" ", [part for part in (message("{why}.", why=why), layers) if part]),
            peak_missing=message("no datasheet entry: {note}", note=why), stability=stability)
    note = message("measured memory bandwidth {bandwidth} GB/s over {megabytes} MB read per "
                   "token (weights and KV cache)", bandwidth=format_bench_value(bandwidth),
                   megabytes=format_bench_value(per_token / 1e6))
    peak = Peak(value=ceiling, unit=result.unit, figure="bandwidth_ceiling_tokens_per_s",
                label=message("bandwidth ceiling"), confidence="derived", sources=(),
                note=note)
    parts = (message("{percent}% of the bandwidth ceiling of {ceiling} tokens/s: {note}.",
                     percent=f"{ratio * 100:.0f}", ceiling=format_bench_value(ceiling),
                     note=note),
             layers, message("No published measurement to judge it by."))
    text = join(" ", [part for part in parts if part])
    return ResultAssessment(result.id, title, result.status.value, VerdictLevel.UNKNOWN.value,
                            text, percent_of_peak=ratio * 100, peak=peak, stability=stability)


def _known(text: str) -> str:
    """A text marked for translation elsewhere, read back as plain text (a stored run):
    translatable again when the catalogue has it whole."""
    return text if isinstance(text, Message) else Message(text, {})


def no_datasheet_reason(text: str) -> str:
    """Why there is no datasheet peak, without the leading "no datasheet entry: " (still
    translatable when it was made here)."""
    if isinstance(text, Message) and text.template == _NO_DATASHEET_TEMPLATE:
        note = text.params.get("note")
        if isinstance(note, str):
            return note
    return text.removeprefix(f"{NO_DATASHEET}: ")


def _first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head.rstrip(".")


def device_label(hello: WorkerHello | None) -> str:
    if is_gpu_run(hello):
        assert hello is not None
        return f"{hello.device_name or 'GPU'} ({hello.device})"
    if hello is not None and hello.device == "cpu":
        return "CPU" + (f" ({hello.device_name})" if hello.device_name else "")
    if hello is not None and not hello.torch_version:
        return message("none: no torch")  # the worker stopped before choosing a device
    return message("unknown device")


def assess_run(run: BenchRun, gpus: Sequence[Gpu] = ()) -> RunAssessment:
    """Every result of `run` against the datasheet. The card is the run's own `target` when
    it has one (a run made by gpuscope keeps it), else it is matched against `gpus` (the
    machine's, or a report's)."""
    hello = run.hello
    gpu_run = is_gpu_run(hello)
    target = run.target if run.target is not None else match_target(hello, gpus)
    card = gpu_spec(target.spec_name) if target is not None and target.spec_name else None
    build = hello.torch_version if hello is not None else None
    results = tuple(
        assess_result(r, card, gpu_run=gpu_run,
                      pcie_generation=target.pcie_generation if target else None,
                      pcie_width=target.pcie_width if target else None,
                      build=build, pcie_note=target.pcie_note if target else None)
        for r in run.results)
    # The run's telemetry before it started and the other processes give the likely reasons.
    results = tuple(replace(a, stability=result_stability(r, run)) if a.unstable else a
                    for a, r in zip(results, run.results, strict=True))
    if not gpu_run:
        compared = (CPU_NO_DATASHEET if hello is not None and hello.device == "cpu"
                    else message("the worker reported no device"))
    elif card is not None:
        if target is not None and target.matched_by not in ("", "not matched"):
            compared = message("datasheet of the {card} (matched by {how})", card=card.name,
                               how=_known(target.matched_by))
        else:
            compared = message("datasheet of the {card}", card=card.name)
    else:
        name = (hello.device_name if hello is not None else None) or message("this GPU")
        compared = message("no datasheet entry: {note}", note=message(
            "{name} is not in gpuscope's spec table", name=name))
    return RunAssessment(target, card, device_label(hello), compared, results)
