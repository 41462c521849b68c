"""Which saved benchmark runs a report takes: successful runs on this machine's devices, the
newest per device by default, or the one chosen; a failed run never."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import BENCH_STARTED_UNIX_S, bench_run, bench_run_document

from gpuscope.app.report_inputs import (
    LATEST_PER_DEVICE,
    NO_SAVED_RUNS,
    choose_saved_runs,
    gather_report_inputs,
    latest_saved_runs,
    on_this_machine,
    read_bench_runs,
    successful_only,
    successful_saved_runs,
)
from gpuscope.bench.history import RunHistory
from gpuscope.bench.results import BenchError, BenchRun, ErrorKind, run_from_json
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.model import Gpu


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


def _other_cards_run(started_unix_s: float) -> BenchRun:
    """The fixture's run as if made on an RTX 4090 at another PCI address (not this machine's
    card)."""
    doc = bench_run_document(started_unix_s)
    hello = doc["hello"]
    hello.update(device_name="NVIDIA GeForce RTX 4090", build="cuda", build_version="12.6",
                 torch_version="2.7.1+cu126")
    hello["devices"][0].update(name="NVIDIA GeForce RTX 4090", arch="sm_89",
                               gcn_arch_name=None, pci_bus="0000:0a:00.0")
    for result in doc["results"]:
        result["device_name"] = "NVIDIA GeForce RTX 4090"
    run = run_from_json(doc)
    assert run is not None
    return run


def _rx7900_gpus() -> tuple[Gpu, ...]:
    return collect_inventory(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")).gpus


def test_only_runs_on_this_machines_devices_are_offered(tmp_path: Path) -> None:
    history_path = str(tmp_path / "runs.sqlite")
    history = RunHistory(history_path)
    ours = bench_run(BENCH_STARTED_UNIX_S)
    theirs = _other_cards_run(BENCH_STARTED_UNIX_S + 60)
    gpus = _rx7900_gpus()
    assert on_this_machine(ours, gpus) and not on_this_machine(theirs, gpus)
    history.save(ours)
    history.save(theirs)
    saved, problem = successful_saved_runs(history_path, gpus=gpus)
    assert problem is None
    assert [s.run.started_unix_s for s in saved] == [BENCH_STARTED_UNIX_S]
    runs, _ = latest_saved_runs(history_path, gpus=gpus)
    assert [r.started_unix_s for r in runs] == [BENCH_STARTED_UNIX_S]
    # Without a machine to match, every successful run counts.
    assert len(successful_saved_runs(history_path)[0]) == 2


def test_the_choice_takes_the_latest_per_device_one_run_or_none(tmp_path: Path) -> None:
    history_path = str(tmp_path / "runs.sqlite")
    history = RunHistory(history_path)
    older, newer = bench_run(BENCH_STARTED_UNIX_S), bench_run(BENCH_STARTED_UNIX_S + 3600)
    history.save(older)
    history.save(newer)
    history.save(replace(bench_run(BENCH_STARTED_UNIX_S + 7200), results=(), errors=(
        BenchError(ErrorKind.CRASH, "the benchmark worker crashed"),)))
    saved, _ = successful_saved_runs(history_path, gpus=_rx7900_gpus())
    assert [s.run.started_unix_s for s in saved] == [newer.started_unix_s,
                                                     older.started_unix_s]
    assert [r.started_unix_s for r in choose_saved_runs(saved)] == [newer.started_unix_s]
    assert choose_saved_runs(saved, LATEST_PER_DEVICE) == choose_saved_runs(saved)
    older_id = saved[1].entry.id
    assert [r.started_unix_s for r in choose_saved_runs(saved, older_id)] == [
        older.started_unix_s]
    assert choose_saved_runs(saved, NO_SAVED_RUNS) == ()
    assert choose_saved_runs(saved, 9999) == ()  # a run gone from the history


def test_a_failed_run_given_as_a_file_is_left_out_with_a_note(tmp_path: Path) -> None:
    failed = bench_run_document(BENCH_STARTED_UNIX_S + 600)
    failed["results"] = []
    failed["errors"] = [{"kind": "no_torch", "message": "No module named 'torch'"}]
    good_file, failed_file = tmp_path / "good.json", tmp_path / "failed.json"
    good_file.write_text(json.dumps(bench_run_document()))
    failed_file.write_text(json.dumps(failed))
    inputs = gather_report_inputs(replay=str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"),
                                  pythons=(), bench_files=[str(good_file), str(failed_file)],
                                  sample_s=0)
    assert [r.started_unix_s for r in inputs.bench_runs] == [BENCH_STARTED_UNIX_S]
    assert inputs.notes == ("1 failed benchmark run left out: a report shows successful runs "
                            "only",)
    kept, note = successful_only(read_bench_runs([str(failed_file)]))
    assert kept == () and note is not None
