"""Whether a result's repeats agree well enough to believe its median, and if not, the likely
reason read from the telemetry recorded during the run.

A benchmark times 5 to 50 batches ("repeats"); the result is their median, with min, max and
(from workers since quartiles were added) the first and third quartile. A result is
**unstable** when, with at least `MIN_REPEATS` repeats:

- the middle half of the repeats spreads more than `UNSTABLE_IQR_PCT` (10 %) of the median:
  (q3 - q1) / median > 0.10; or
- the extremes differ by `UNSTABLE_RATIO` (3x) or more: max / min >= 3 (the only test for runs
  stored without quartiles).

A single slow repeat in forty (a first batch at a lower clock, one late launch) moves neither
test; a bf16 matmul that ranged 0.029 to 0.882 TFLOPS (30x) fails both.

The likely reasons, from what was recorded: a throttle reason in force (power cap, thermal...);
clocks still ramping (the graphics clock rose over the benchmark); another load on the machine
(the GPU already 20% busy before the first benchmark, or for a CPU run the host's CPUs busy
by 20% more than the worker importing torch on one core accounts for; other processes on the
GPU). None of these is a proof; they are said as "likely".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    BenchTelemetry,
    ResultStatus,
    format_bench_value,
)
from gpuscope.i18n import join, message
from gpuscope.metrics import HOST_DEVICE, Metric, shown_unit

MIN_REPEATS = 3
UNSTABLE_IQR_PCT = 10.0
UNSTABLE_RATIO = 3.0
# Telemetry thresholds of the reasons.
RAMP_RISE = 1.10  # the clock's last reading over its first
BUSY_BEFORE_PCT = 20.0  # GPU utilisation (or host CPU) before the first benchmark


@dataclass(frozen=True, slots=True)
class Stability:
    """How far a result's repeats spread, whether that makes it unstable, and why it likely
    did."""

    unstable: bool
    ratio: float | None  # max / min of the repeats
    iqr_pct: float | None  # (q3 - q1) / median x 100; None without quartiles
    text: str  # "repeats ranged 0.029-0.882 TFLOPS (30x)"
    reasons: tuple[str, ...] = ()  # likely causes read from the telemetry

    @property
    def words(self) -> str:
        """One line: what spread and, when unstable, the likely reason."""
        if not self.unstable:
            return self.text
        return message("unstable: {detail}", detail=self.detail)

    @property
    def detail(self) -> str:
        """What spread and the likely reason, without the leading "unstable: "."""
        if self.reasons:
            return message("{spread}; likely: {reasons}", spread=self.text,
                           reasons=join("; ", self.reasons))
        return message("{spread}; no telemetry says why", spread=self.text)


def _ratio(low: float, high: float) -> float | None:
    if low > 0 and high > 0:
        return high / low
    return None


def result_stability(result: BenchmarkResult, run: BenchRun | None = None) -> Stability | None:
    """The stability of an ok result with a spread; None otherwise. `run` adds the telemetry
    from before the run and the other processes seen."""
    spread = result.spread
    if result.status is not ResultStatus.OK or spread is None or spread.count < MIN_REPEATS:
        return None
    ratio = _ratio(spread.min, spread.max)
    iqr_pct = None
    if spread.q1 is not None and spread.q3 is not None and spread.median > 0:
        iqr_pct = (spread.q3 - spread.q1) / spread.median * 100
    unstable = (ratio is not None and ratio >= UNSTABLE_RATIO) or (
        iqr_pct is not None and iqr_pct > UNSTABLE_IQR_PCT)
    unit = shown_unit(result.unit)
    values = {"low": format_bench_value(spread.min), "high": format_bench_value(spread.max),
              "unit": unit}
    if ratio is not None and iqr_pct is not None:
        text = message("repeats ranged {low}-{high} {unit} ({ratio}), middle half spans {iqr}% "
                       "of the median", ratio=_times(ratio), iqr=f"{iqr_pct:.0f}", **values)
    elif ratio is not None:
        text = message("repeats ranged {low}-{high} {unit} ({ratio})", ratio=_times(ratio),
                       **values)
    elif iqr_pct is not None:
        text = message("repeats ranged {low}-{high} {unit}, middle half spans {iqr}% of the "
                       "median", iqr=f"{iqr_pct:.0f}", **values)
    else:
        text = message("repeats ranged {low}-{high} {unit}", **values)
    reasons = likely_reasons(result.telemetry, run) if unstable else ()
    return Stability(unstable, ratio, iqr_pct, text, reasons)


def _times(ratio: float) -> str:
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"


def likely_reasons(telemetry: BenchTelemetry | None, run: BenchRun | None = None) -> tuple[
        str, ...]:
    """What the recorded telemetry says could have disturbed a benchmark, most telling first."""
    reasons: list[str] = []
    if telemetry is not None and telemetry.samples > 0:
        if telemetry.throttle_reasons:
            reasons.append(message("the GPU throttled ({reasons}) in {count} of {total} samples",
                                   reasons=", ".join(telemetry.throttle_reasons),
                                   count=telemetry.throttled_samples, total=telemetry.samples))
        clock = telemetry.metric(Metric.SCLK_MHZ.value)
        if clock is not None and clock.first is not None and clock.last is not None \
                and clock.first > 0 and clock.last >= clock.first * RAMP_RISE:
            reasons.append(message("clocks still ramping: the graphics clock rose from "
                                   "{first} to {last} MHz during the benchmark",
                                   first=f"{clock.first:.0f}", last=f"{clock.last:.0f}"))
    before = run.telemetry_before if run is not None else None
    if before is not None and before.samples > 0:
        busy = before.metric(Metric.HOST_CPU_PERCENT.value if before.device == HOST_DEVICE
                             else Metric.GPU_UTIL_PERCENT.value)
        threshold = BUSY_BEFORE_PCT
        if before.device == HOST_DEVICE and run is not None and run.hello is not None \
                and run.hello.threads:
            # Before the first benchmark the worker imports torch on one core: not a load.
            threshold += 100 / run.hello.threads
        if busy is not None and busy.median >= threshold:
            busy_pct = f"{busy.median:.0f}"
            reasons.append(
                message("another load on the machine: the host's CPUs were {percent}% busy "
                        "before the run started", percent=busy_pct)
                if before.device == HOST_DEVICE else
                message("another load on the machine: the GPU was {percent}% busy before the "
                        "run started", percent=busy_pct))
    others: Sequence[str] = run.other_processes if run is not None else ()
    if others:
        reasons.append(message("another load on the machine: other processes on the GPU "
                               "({processes})", processes=", ".join(others[:5])
                               + (", ..." if len(others) > 5 else "")))
    return tuple(reasons)


def unstable_results(run: BenchRun) -> tuple[tuple[BenchmarkResult, Stability], ...]:
    """The run's unstable results with their stability."""
    found = []
    for result in run.results:
        stability = result_stability(result, run)
        if stability is not None and stability.unstable:
            found.append((result, stability))
    return tuple(found)
