"""Results people can believe: a benchmark whose repeats spread widely is marked unstable, in the
JSON and the text, with the likely reason from the telemetry recorded during the run; and
`bench --compare` calls no change "within spread" that is outside the repeats' scatter."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

from gpuscope.bench.assess import assess_run
from gpuscope.bench.command import (
    format_comparison_text,
    format_run_text,
    history_command,
    run_document,
)
from gpuscope.bench.history import RunHistory, compare_runs
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    BenchTelemetry,
    MetricSummary,
    ResultStatus,
    Spread,
    WorkerHello,
    run_from_json,
    run_to_json,
)
from gpuscope.bench.stability import result_stability

HELLO = WorkerHello(1, python="/venv/bin/python", python_version="3.12.3",
                    torch_version="2.7.1+rocm6.3", build="rocm", build_version="6.3",
                    device="cuda:0", device_name="AMD Radeon RX 7900 XTX")


def matmul(value: float, low: float, high: float, *, q1: float | None = None,
           q3: float | None = None, count: int = 20,
           telemetry: BenchTelemetry | None = None) -> BenchmarkResult:
    return BenchmarkResult("matmul.bf16", "cuda:0", ResultStatus.OK, "TFLOPS", True, value,
                           Spread(low, value, high, count, q1, q3), telemetry=telemetry,
                           started_unix_s=1010.0, ended_unix_s=1012.0)


def run_of(*results: BenchmarkResult, **fields: object) -> BenchRun:
    run = BenchRun("/venv/bin/python", tuple(r.id for r in results), "auto", HELLO, results, (),
                   1000.0, 1020.0)
    return dataclasses.replace(run, **fields)  # type: ignore[arg-type]


def metric(name: str, low: float, high: float, first: float | None = None,
           last: float | None = None) -> MetricSummary:
    return MetricSummary(name, name, "", low, (low + high) / 2, high, 10, first=first,
                         last=last)


def test_the_measured_30x_bf16_matmul_is_unstable_not_ok() -> None:
    # Measured: bf16 matmul ranged 0.029 to 0.882 TFLOPS, and was shown as "ok".
    result = matmul(0.19, 0.029, 0.882)
    stability = result_stability(result)
    assert stability is not None and stability.unstable
    assert stability.ratio is not None and round(stability.ratio) == 30
    assert stability.text == "repeats ranged 0.029-0.882 TFLOPS (30x)"
    run = run_of(result)
    entry = run_document(run)["results"][0]  # type: ignore[index]
    assert entry["status"] == "ok" and entry["unstable"] is True
    assert entry["stability"]["max_over_min"] == 30.414
    assert entry["stability"]["text"].startswith("unstable: repeats ranged 0.029-0.882")
    text = format_run_text(run)
    assert "matmul.bf16  UNSTABLE" in text
    assert "Unstable (the repeats disagree; do not trust the median):\n  matmul.bf16: " \
           "unstable: repeats ranged 0.029-0.882 TFLOPS (30x); no telemetry says why" in text


def test_one_slow_repeat_is_not_instability_but_a_wide_middle_half_is() -> None:
    # The H200's launch latency: one late repeat in 41 (12.2 to 23.5 us), the middle tight.
    latency = BenchmarkResult("latency.launch", "cuda:0", ResultStatus.OK, "us", False, 12.63,
                              Spread(12.17, 12.63, 23.51, 41, 12.5, 12.8))
    stable = result_stability(latency)
    assert stable is not None and not stable.unstable
    assert stable.words == ("repeats ranged 12.17-23.51 µs (1.9x), middle half spans 2% of "
                            "the median")
    wide = result_stability(matmul(100.0, 80.0, 120.0, q1=88.0, q3=110.0))
    assert wide is not None and wide.unstable and wide.iqr_pct == 22.0
    tight = result_stability(matmul(100.0, 97.0, 103.0, q1=99.0, q3=101.0))
    assert tight is not None and not tight.unstable
    # Too few repeats to tell, or not ok: no verdict on stability.
    assert result_stability(matmul(100.0, 10.0, 200.0, count=2)) is None
    assert result_stability(BenchmarkResult("matmul.bf16", "cuda:0", ResultStatus.FAILED,
                                            "TFLOPS", True, reason="oom")) is None


def test_the_likely_reason_comes_from_the_telemetry_recorded_during_the_run() -> None:
    throttled = BenchTelemetry("0000:03:00.0", "GPU 0", 10, 5.0, metrics=(
        metric("sclk_mhz", 500.0, 2500.0, first=500.0, last=2480.0),),
        throttle_reasons=("power cap",), throttled_samples=6, throttle_source="amdsmi")
    busy = BenchTelemetry("0000:03:00.0", "GPU 0", 8, 5.0, metrics=(
        metric("gpu_util_percent", 90.0, 100.0),))
    run = run_of(matmul(0.19, 0.029, 0.882, telemetry=throttled), telemetry_before=busy,
                 other_processes=("blender (pid 4242)",))
    judged = assess_run(run).result("matmul.bf16")
    assert judged is not None and judged.unstable and judged.stability is not None
    assert judged.stability.reasons == (
        "the GPU throttled (power cap) in 6 of 10 samples",
        "clocks still ramping: the graphics clock rose from 500 to 2480 MHz during the "
        "benchmark",
        "another load on the machine: the GPU was 95% busy before the run started",
        "another load on the machine: other processes on the GPU (blender (pid 4242))")
    assert "; likely: the GPU throttled (power cap)" in format_run_text(run)
    # A CPU run: the host's CPUs busy before it.
    host = BenchTelemetry("host", "host", 5, 5.0, metrics=(
        metric("host_cpu_percent", 60.0, 80.0),))
    cpu_run = run_of(matmul(0.19, 0.029, 0.882), telemetry_before=host)
    cpu_judged = assess_run(cpu_run).result("matmul.bf16")
    assert cpu_judged is not None and cpu_judged.stability is not None
    assert cpu_judged.stability.reasons == (
        "another load on the machine: the host's CPUs were 70% busy before the run started",)
    # On a machine with 2 cores, the worker importing torch alone is 50% of the host: 60%
    # before the run is not another load, 80% is.
    two_cores = dataclasses.replace(HELLO, device="cpu", threads=2)
    for median, flagged in ((60.0, False), (80.0, True)):
        busy_host = BenchTelemetry("host", "host", 5, 5.0, metrics=(
            metric("host_cpu_percent", median - 5, median + 5),))
        judged = assess_run(run_of(matmul(0.19, 0.029, 0.882), hello=two_cores,
                                   telemetry_before=busy_host)).result("matmul.bf16")
        assert judged is not None and judged.stability is not None
        assert bool(judged.stability.reasons) is flagged
    # What the reasons rest on is kept with the run.
    assert run_from_json(run_to_json(run)) == run


def test_compare_never_calls_separate_spreads_within_spread() -> None:
    # +360%: A 0.19 (0.17..0.21), B 0.874 (0.86..0.882): the ranges do not overlap.
    a = run_of(matmul(0.19, 0.17, 0.21, q1=0.185, q3=0.195))
    b = run_of(matmul(0.874, 0.86, 0.882, q1=0.87, q3=0.88))
    row = compare_runs(a, b).row("matmul.bf16")
    assert row is not None and row.delta_pct is not None and round(row.delta_pct) == 360
    assert row.change == "better" and row.note == ""
    assert "matmul.bf16  0.19  0.874  TFLOPS  +360.0%  better" in format_comparison_text(
        compare_runs(a, b), 1, 2)
    # The measured case: A's repeats spread 30x, so its range reaches B's; still a change, and
    # the note says A was unstable.
    wide = run_of(matmul(0.19, 0.029, 0.882))
    row = compare_runs(wide, b).row("matmul.bf16")
    assert row is not None and row.change == "better"
    assert row.note == "A unstable: repeats ranged 0.029-0.882 TFLOPS (30x)"
    # Each median inside the other's range: the difference is within the repeats' scatter.
    close = run_of(matmul(0.88, 0.865, 0.89))
    row = compare_runs(b, close).row("matmul.bf16")
    assert row is not None and row.change == "within spread"


def test_bench_compare_on_stored_runs(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    first = history.save(run_of(matmul(0.19, 0.029, 0.882)))
    second = history.save(run_of(matmul(0.874, 0.86, 0.882, q1=0.87, q3=0.88)))
    out = io.StringIO()
    assert history_command(compare=[str(first), str(second)], history=history, stdout=out) == 0
    row = next(line for line in out.getvalue().splitlines() if line.startswith("matmul.bf16"))
    assert "+360.0%  better  A unstable: repeats ranged 0.029-0.882 TFLOPS (30x)" in row
    assert "within spread" not in out.getvalue()
    out = io.StringIO()
    assert history_command(compare=[str(first), str(second)], history=history, as_json=True,
                           stdout=out) == 0
    (entry,) = json.loads(out.getvalue())["rows"]
    assert entry["change"] == "better" and entry["note"].startswith("A unstable")
