"""The history of past runs: saved whole (telemetry and matched card included), listed newest
first, loaded, deleted, compared benchmark by benchmark; a damaged or unwritable file is a
one-line HistoryError; `gpuscope bench` keeps runs unless --no-save, and its history commands."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from gpuscope.bench.command import bench_command, history_command
from gpuscope.bench.history import (
    DATA_DIR_ENV,
    HistoryError,
    RunHistory,
    compare_runs,
    default_history_path,
)
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    BenchTarget,
    BenchTelemetry,
    ErrorKind,
    MetricSummary,
    ResultStatus,
    Spread,
    WorkerHello,
)

HELLO = WorkerHello(protocol=1, python="/usr/bin/python3", torch_version="2.7.1+rocm6.3",
                    build="rocm", build_version="6.3", device="cuda:0",
                    device_name="AMD Radeon RX 7900 XTX")


def result(benchmark: str, value: float, low: float, high: float, unit: str = "TFLOPS",
           higher: bool = True) -> BenchmarkResult:
    return BenchmarkResult(benchmark, "cuda:0", ResultStatus.OK, unit, higher, value,
                           Spread(low, value, high, 10))


def make_run(started: float, *results: BenchmarkResult, **extra: object) -> BenchRun:
    fields = {"python": "/usr/bin/python3", "benchmarks": tuple(r.id for r in results),
              "device_request": "auto", "hello": HELLO, "results": results, "errors": (),
              "started_unix_s": started, "ended_unix_s": started + 20.0}
    fields.update(extra)
    return BenchRun(**fields)  # type: ignore[arg-type]


def test_the_history_lives_in_the_data_dir(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "elsewhere"))
    assert default_history_path() == tmp_path / "elsewhere" / "bench_runs.sqlite"
    monkeypatch.delenv(DATA_DIR_ENV)
    assert default_history_path().name == "bench_runs.sqlite"
    assert "gpuscope" in str(default_history_path())


def test_save_list_load_delete(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    assert history.list() == ()  # no file yet: no runs, and nothing created
    assert not history.path.exists()
    telemetry = BenchTelemetry("0000:03:00.0", "RX 7900 XTX", 9, 5.0, (
        MetricSummary("sclk_mhz", "Graphics clock", "MHz", 2400.0, 2500.0, 2550.0, 9,
                      "sysfs:/sys/class/drm/card1/device/pp_dpm_sclk"),),
        {"throttle_reasons": "amdgpu shows it only in its binary gpu_metrics table"})
    old = make_run(1000.0, dataclasses.replace(result("matmul.fp16", 100.0, 99.0, 101.0),
                                               telemetry=telemetry),
                   target=BenchTarget("PCI bus address", 0, "AMD Radeon RX 7900 XTX",
                                      "0000:03:00.0", "AMD Radeon RX 7900 XTX", 4, 16))
    new = make_run(2000.0, result("matmul.fp16", 90.0, 89.0, 91.0),
                   errors=(BenchError(ErrorKind.CRASH, "the benchmark worker crashed "
                                      "(SIGSEGV) while running matmul.bf16", "matmul.bf16"),),
                   not_run=("matmul.bf16",))
    first, second = history.save(old), history.save(new)
    assert second > first
    listed = history.list()
    assert [r.id for r in listed] == [second, first]  # newest first
    newest, oldest = listed
    assert oldest.ok and oldest.error is None and oldest.card == "AMD Radeon RX 7900 XTX"
    assert oldest.device == "AMD Radeon RX 7900 XTX (cuda:0)"
    assert oldest.torch == "2.7.1+rocm6.3 (rocm 6.3)" and oldest.results == 1
    assert not newest.ok and newest.error is not None
    assert newest.error.startswith("crash: the benchmark worker crashed (SIGSEGV)")
    assert history.load(first) == old  # whole: telemetry and target too
    assert history.load(second) == new
    assert history.delete(first) == 1
    assert [r.id for r in history.list()] == [second]
    with pytest.raises(HistoryError, match=f"there is no run {first} in the history"):
        history.load(first)
    assert history.delete([first, 999]) == 0


def test_a_damaged_or_unwritable_history_is_one_readable_error(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database, just text " * 100)
    with pytest.raises(HistoryError, match="cannot be used: file is not a database"):
        RunHistory(garbage).list()
    history = RunHistory(tmp_path / "runs.sqlite")
    run_id = history.save(make_run(1.0, result("matmul.fp16", 1.0, 1.0, 1.0)))
    with sqlite3.connect(history.path) as connection:
        connection.execute("UPDATE runs SET document = '{not json' WHERE id = ?", (run_id,))
    with pytest.raises(HistoryError, match=f"run {run_id} in the history is damaged"):
        history.load(run_id)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(HistoryError, match="cannot"):
            RunHistory(locked / "sub" / "runs.sqlite").save(make_run(1.0))


def test_compare_two_runs_per_benchmark() -> None:
    a = make_run(1000.0, result("matmul.fp16", 100.0, 98.0, 102.0),
                 result("memory.copy", 800.0, 790.0, 805.0, "GB/s"),
                 result("latency.launch", 10.0, 9.5, 10.5, "us", higher=False),
                 result("matmul.bf16", 90.0, 89.0, 91.0))
    b_results = (result("matmul.fp16", 80.0, 79.0, 81.0),
                 result("memory.copy", 802.0, 795.0, 806.0, "GB/s"),
                 result("latency.launch", 8.0, 7.9, 8.2, "us", higher=False),
                 BenchmarkResult("matmul.fp8", "cuda:0", ResultStatus.UNSUPPORTED, "TFLOPS",
                                 True, reason="no fp8 here"))
    b = dataclasses.replace(make_run(2000.0, *b_results),
                            hello=dataclasses.replace(HELLO, torch_version="2.8.0+rocm6.4"))
    comparison = compare_runs(a, b)
    fp16 = comparison.row("matmul.fp16")
    assert fp16 is not None and fp16.change == "worse"
    assert fp16.delta == pytest.approx(-20.0) and fp16.delta_pct == pytest.approx(-20.0)
    copy = comparison.row("memory.copy")
    assert copy is not None and copy.change == "within spread"  # the ranges overlap
    launch = comparison.row("latency.launch")
    assert launch is not None and launch.change == "better"  # lower is better for latency
    bf16 = comparison.row("matmul.bf16")
    assert bf16 is not None and bf16.change == "only in A" and bf16.value_b is None
    assert bf16.note == "A: ok; B: not run"
    fp8 = comparison.row("matmul.fp8")
    assert fp8 is not None and fp8.change == "not comparable"
    assert fp8.note == "A: not run; B: unsupported: no fp8 here"
    assert comparison.notes == ("different torch: A 2.7.1+rocm6.3, B 2.8.0+rocm6.4",)


def test_the_cli_keeps_runs_and_lists_shows_compares_deletes(
        tmp_path: Path, tiny_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUSCOPE_BENCH_SCALE", tiny_env["GPUSCOPE_BENCH_SCALE"])
    history = RunHistory(tmp_path / "runs.sqlite")
    out, err = io.StringIO(), io.StringIO()
    python = sys.executable
    assert bench_command(["latency.launch"], python=python, as_json=True, history=history,
                         machine=None, stdout=out, stderr=err) == 0
    document = json.loads(out.getvalue())
    first = document["history"]["id"]
    assert document["history"] == {"id": first, "path": str(history.path), "not_saved": None}
    out = io.StringIO()
    assert bench_command(["latency.launch"], python=python, history=history, machine=None,
                         stdout=out, stderr=err) == 0
    assert f"Kept as run {first + 1} in {history.path}" in out.getvalue()
    out = io.StringIO()
    assert bench_command(["latency.launch"], python=python, history=history, machine=None,
                         save=False, stdout=out, stderr=err) == 0
    assert "Kept as run" not in out.getvalue()
    assert [r.id for r in history.list()] == [first + 1, first]

    out = io.StringIO()
    assert history_command(list_runs=True, history=history, stdout=out) == 0
    assert "2 benchmark runs in" in out.getvalue() and "CPU (" in out.getvalue()
    out = io.StringIO()
    assert history_command(show="last", as_json=True, history=history, stdout=out) == 0
    assert json.loads(out.getvalue())["results"][0]["id"] == "latency.launch"
    out = io.StringIO()
    assert history_command(compare=[str(first), "last"], history=history, stdout=out) == 0
    assert out.getvalue().startswith(f"Run {first} (A, ")
    assert "latency.launch" in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert history_command(show="77", history=history, stdout=out, stderr=err) == 1
    assert err.getvalue() == "gpuscope bench: there is no run 77 in the history\n"
    assert history_command(show="first", history=history, stdout=out, stderr=err) == 2
    assert history_command(delete=[str(first)], history=history, stdout=out) == 0
    assert [r.id for r in history.list()] == [first + 1]
