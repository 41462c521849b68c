"""Which saved benchmark runs a report takes: the newest successful one per device."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from report_fixtures import BENCH_STARTED_UNIX_S, bench_run

from gpuscope.app.report_inputs import latest_saved_runs
from gpuscope.bench.history import RunHistory
from gpuscope.bench.results import BenchError, ErrorKind


def test_a_failed_run_stays_in_the_history_and_out_of_the_report(tmp_path: Path) -> None:
    history_path = str(tmp_path / "runs.sqlite")
    history = RunHistory(history_path)
    good = bench_run(BENCH_STARTED_UNIX_S)
    failed = replace(bench_run(BENCH_STARTED_UNIX_S + 600), results=(), errors=(
        BenchError(ErrorKind.HANG, "the benchmark worker hung", benchmark="matmul.fp16"),))
    history.save(good)
    history.save(failed)  # newer, same device
    assert [entry.ok for entry in history.list()] == [False, True]
    runs, problem = latest_saved_runs(history_path)
    assert problem is None
    assert [run.started_unix_s for run in runs] == [BENCH_STARTED_UNIX_S]


def test_no_successful_run_means_no_benchmarks_in_the_report(tmp_path: Path) -> None:
    history_path = str(tmp_path / "runs.sqlite")
    history = RunHistory(history_path)
    history.save(replace(bench_run(), results=(), errors=(
        BenchError(ErrorKind.NO_TORCH, "No module named 'torch'"),)))
    assert latest_saved_runs(history_path) == ((), None)
