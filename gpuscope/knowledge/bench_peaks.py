"""The datasheet figure a microbenchmark result is a fraction of: which benchmarks there are, and
for each the peak to compare against (PyTorch fp16 matmul against the FP32-accumulate rate, a
copy against the memory bandwidth, a PCIe transfer against the negotiated link), with the
public sources of the figure. bench_expectations.py judges a result against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpuscope.i18n import join, message
from gpuscope.knowledge.sources import Source, sources_text
from gpuscope.knowledge.specs import GpuSpec


@dataclass(frozen=True, slots=True)
class BenchmarkInfo:
    """What a benchmark id measures."""

    unit: str  # "TFLOPS", "TOPS", "GB/s", "us"
    label: str  # "FP16", "copy bandwidth"
    higher_is_better: bool = True


BENCHMARKS: Mapping[str, BenchmarkInfo] = {
    "matmul.fp32": BenchmarkInfo("TFLOPS", "FP32"),
    "matmul.tf32": BenchmarkInfo("TFLOPS", "TF32"),
    "matmul.fp16": BenchmarkInfo("TFLOPS", "FP16"),
    "matmul.bf16": BenchmarkInfo("TFLOPS", "BF16"),
    "matmul.int8": BenchmarkInfo("TOPS", "INT8"),
    "matmul.fp8": BenchmarkInfo("TFLOPS", "FP8"),
    "memory.copy": BenchmarkInfo("GB/s", message("memory bandwidth")),
    "memory.triad": BenchmarkInfo("GB/s", message("memory bandwidth")),
    "transfer.h2d_pinned": BenchmarkInfo("GB/s", message("host-to-device (pinned)")),
    "transfer.d2h_pinned": BenchmarkInfo("GB/s", message("device-to-host (pinned)")),
    "transfer.h2d_pageable": BenchmarkInfo("GB/s", message("host-to-device (pageable)")),
    "transfer.d2h_pageable": BenchmarkInfo("GB/s", message("device-to-host (pageable)")),
    "latency.launch": BenchmarkInfo("us", message("kernel launch latency"),
                                    higher_is_better=False),
    "latency.sync": BenchmarkInfo("us", message("synchronisation latency"),
                                  higher_is_better=False),
    "attention.flash": BenchmarkInfo("TFLOPS", message("attention (flash)")),
    "attention.efficient": BenchmarkInfo("TFLOPS", message("attention (memory-efficient)")),
    "attention.math": BenchmarkInfo("TFLOPS", message("attention (math)")),
}

# PCIe generation -> (GT/s per lane, payload bits per transferred bit). Gens 3-5 use 128b/130b,
# gens 1-2 8b/10b. Gen 6 changes the encoding (FLIT), which the knowledge base does not cover,
# so it gets no theoretical figure.
_PCIE: Mapping[int, tuple[float, float]] = {
    1: (2.5, 8 / 10),
    2: (5.0, 8 / 10),
    3: (8.0, 128 / 130),
    4: (16.0, 128 / 130),
    5: (32.0, 128 / 130),
}
PCIE_SOURCE = Source("https://en.wikipedia.org/wiki/PCI_Express",
                     "Wikipedia: PCI Express (per-lane rates and encodings)")
_PCIE_MAX_WIDTH = 32


@dataclass(frozen=True, slots=True)
class Peak:
    """The datasheet figure a benchmark result is a fraction of."""

    value: float
    unit: str
    figure: str  # gpu_specs.toml key ("fp16_fp32acc_tflops") or "pcie_theoretical_gb_s"
    label: str  # "FP16", "memory bandwidth", "PCIe 4.0 x16"
    confidence: str | None  # a sources.CONFIDENCE word: how sure the figure is
    sources: tuple[Source, ...]
    note: str = ""

    @property
    def source(self) -> str:
        """The sources as one line: "label (https://...); ..."."""
        return sources_text(self.sources)



def pcie_theoretical_gb_s(generation: int, width: int) -> float | None:
    """Theoretical PCIe rate per direction in GB/s (1e9 B/s): 4.0 x16 -> 31.5; None for a
    generation or width gpuscope has no formula for."""
    known = _PCIE.get(generation)
    if known is None or not 1 <= width <= _PCIE_MAX_WIDTH:
        return None
    gt_s, efficiency = known
    return gt_s * width * efficiency / 8


def datasheet_peak(spec: GpuSpec | None, benchmark_id: str, *,
                   pcie_generation: int | None = None,
                   pcie_width: int | None = None) -> Peak | None:
    """The datasheet figure to compare a result of `benchmark_id` against; None when there is
    none (no card, the CPU, latencies, a figure the spec table lacks).

    matmul.fp16 uses the FP16-in/FP32-accumulate rate that PyTorch runs at (RTX 4090: 165.2,
    not 330.3), attention.* the same FP16 matrix peak, memory.* the memory bandwidth.
    transfer.* needs the *negotiated* link (generation and width) and does not depend on the
    card; on Radeon cards read it at the upstream port, not the GPU function, whose link
    fields describe the card's own PCIe switch.
    """
    if benchmark_id.startswith("transfer."):
        return _pcie_peak(pcie_generation, pcie_width) if benchmark_id in BENCHMARKS else None
    if spec is None or benchmark_id not in BENCHMARKS:
        return None
    info = BENCHMARKS[benchmark_id]
    if benchmark_id in ("matmul.fp16", "attention.flash", "attention.efficient",
                        "attention.math"):
        value = spec.pytorch_fp16_tflops
        if value is None:
            return None
        figure = ("fp16_fp32acc_tflops" if spec.fp16_fp32acc_tflops is not None
                  else "fp16_tflops")
        if figure == "fp16_fp32acc_tflops":
            note = message("FP16 with FP32 accumulate, the rate PyTorch matmul uses (the "
                           "datasheet's {value} is the FP16-accumulate rate)",
                           value=short_number(spec.fp16_tflops))
        else:
            note = message("dense FP16 matrix rate")
        if benchmark_id.startswith("attention."):
            note = join("; ", [note, message("attention in fp16 is matmul-bound, so this is "
                                             "its ceiling")])
        label = "FP16" if benchmark_id == "matmul.fp16" else message("FP16 matrix")
        return _spec_peak(spec, value, info.unit, figure, label, note)
    simple: dict[str, tuple[str, str]] = {
        "matmul.fp32": ("fp32_tflops", message("vector FP32 rate")),
        "matmul.tf32": ("tf32_tflops", message("dense TF32 tensor rate")),
        "matmul.bf16": ("bf16_tflops", message("dense BF16 matrix rate (FP32 accumulate)")),
        "matmul.int8": ("int8_tops", message("dense INT8 matrix rate")),
        "matmul.fp8": ("fp8_tflops", message("dense FP8 matrix rate")),
        "memory.copy": ("memory_bandwidth_gb_s", message("theoretical memory bandwidth")),
        "memory.triad": ("memory_bandwidth_gb_s", message("theoretical memory bandwidth")),
    }
    if benchmark_id not in simple:
        return None  # latency: no datasheet gives one
    figure, note = simple[benchmark_id]
    number = getattr(spec, figure)
    if number is None:
        return None
    value = float(number)
    if figure == "fp32_tflops" and spec.architecture == "RDNA3":
        note = join("; ", [note, message("counts RDNA3 dual-issue ({single} single-issue), "
                                         "which GEMM does not reach",
                                         single=short_number(value / 2))])
    return _spec_peak(spec, value, info.unit, figure, info.label, note)


def _spec_peak(spec: GpuSpec, value: float, unit: str, figure: str, label: str,
               note: str) -> Peak:
    return Peak(value=value, unit=unit, figure=figure, label=label,
                confidence=spec.confidence(figure), sources=spec.sources, note=note)


def _pcie_peak(generation: int | None, width: int | None) -> Peak | None:
    if generation is None or width is None:
        return None
    value = pcie_theoretical_gb_s(generation, width)
    if value is None:
        return None
    gt_s, efficiency = _PCIE[generation]
    encoding = "128/130" if efficiency > 0.9 else "8/10"
    return Peak(value=value, unit="GB/s", figure="pcie_theoretical_gb_s",
                label=f"PCIe {generation}.0 x{width}", confidence="derived",
                sources=(PCIE_SOURCE,),
                note=message("theoretical per direction: {rate} GT/s x {width} lanes x "
                             "{encoding} / 8", rate=short_number(gt_s), width=width,
                             encoding=encoding))


def short_number(value: float | None) -> str:
    """A figure without trailing zeros: two decimals below 10 (0.12, 8), one from 10 (31.5)."""
    if value is None:
        return "?"
    text = f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return text.rstrip("0").rstrip(".")

