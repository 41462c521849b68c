"""`gpuscope bench --llama-bench PATH --model FILE.gguf` against a fake llama-bench (an
external binary's stand-in, tests/bench/fake_llama_bench.py, printing real captured JSONL):
results imported with telemetry, and the worker's handling of a crash, an abort, a hang, a
failure and a cancel, with no process left behind."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from gpuscope.bench.history import RunHistory
from gpuscope.bench.llama_run import (
    LlamaBenchRequest,
    LlamaBenchRunner,
    llama_bench_command,
)
from gpuscope.bench.results import ErrorKind
from gpuscope.bench.session import BenchMachine
from gpuscope.telemetry.sources import SourceSet, host_source

FAKE = Path(__file__).resolve().parent / "fake_llama_bench.py"

pytestmark = pytest.mark.skipif(os.name == "nt", reason="the fake is run by a POSIX shell")


@pytest.fixture
def fake(tmp_path: Path) -> str:
    """An executable `llama-bench` that runs the fake with this interpreter."""
    program = tmp_path / "llama-bench"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n', encoding="utf-8")
    program.chmod(0o755)
    return str(program)


@pytest.fixture
def model(tmp_path: Path) -> str:
    path = tmp_path / "Qwen2.5-7B-Instruct-Q4_K_M.gguf"
    path.write_bytes(b"GGUF")
    return str(path)


def host_machine() -> BenchMachine:
    return BenchMachine((), SourceSet((host_source(psutil, "this box"),)))


def no_process_left(pidfile: Path) -> None:
    pid = int(pidfile.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return
        time.sleep(0.05)
    raise AssertionError(f"llama-bench {pid} is still running")


def test_a_run_is_imported_with_telemetry(fake: str, model: str, tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    out, err = io.StringIO(), io.StringIO()
    status = llama_bench_command(fake, model, as_json=True, machine=host_machine,
                                 history=history, stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    document = json.loads(out.getvalue())
    assert document["command"][1:] == ["-m", model, "-o", "jsonl"]
    assert document["error"] is None
    results = document["results"]
    assert [r["id"] for r in results] == ["llama-bench.pp512", "llama-bench.tg128"]
    assert [r["result"]["tokens_per_s"] for r in results] == [7263.609157, 119.844681]
    for entry in results:
        assert entry["kind"] == "imported" and entry["ran_by_gpuscope"] is True
        assert entry["source_file"] == "llama-bench Qwen2.5-7B-Instruct-Q4_K_M.gguf"
        (telemetry,) = entry["telemetry"]
        assert telemetry["device"] == "host"
        assert telemetry["samples"] >= 1
    stored = history.list_imported()
    assert [s.item.id for s in stored] == ["llama-bench.pp512", "llama-bench.tg128"]
    assert stored[0].item.telemetry and stored[0].item.ran_by_gpuscope
    assert "result 2 arrived" in err.getvalue()


def test_text_output_names_the_results_and_telemetry(fake: str, model: str,
                                                     tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = llama_bench_command(fake, model, machine=host_machine,
                                 history=RunHistory(tmp_path / "r.sqlite"), stdout=out,
                                 stderr=err)
    assert status == 0
    text = out.getvalue()
    assert "2 imported results (measured by llama.cpp, not by gpuscope)" in text
    assert "7263.61 ± 90.94" in text
    assert "Telemetry during each test:" in text


@pytest.mark.parametrize("mode, kind, results", [
    ("crash", ErrorKind.CRASH, 1),
    ("abort", ErrorKind.ABORT, 1),
    ("fail", ErrorKind.EXITED, 0),
    ("none", ErrorKind.EXITED, 0),
])
def test_failures_keep_what_arrived(fake: str, model: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, mode: str,
                                    kind: ErrorKind, results: int) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("FAKE_LLAMA_BENCH_MODE", mode)
    monkeypatch.setenv("FAKE_LLAMA_BENCH_PIDFILE", str(pidfile))
    run = LlamaBenchRunner(LlamaBenchRequest(fake, model), machine=None).run()
    assert run.error is not None and run.error.kind is kind, run.error
    assert len(run.results) == results
    assert all(item.ran_by_gpuscope and not item.telemetry for item in run.results)
    if mode == "fail":
        assert "failed to load model" in run.error.message
    no_process_left(pidfile)


def test_a_hang_is_stopped(fake: str, model: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("FAKE_LLAMA_BENCH_MODE", "hang")
    monkeypatch.setenv("FAKE_LLAMA_BENCH_PIDFILE", str(pidfile))
    started = time.monotonic()
    run = LlamaBenchRunner(LlamaBenchRequest(fake, model, stall_timeout_s=1.5),
                           machine=None).run()
    assert time.monotonic() - started < 15
    assert run.error is not None and run.error.kind is ErrorKind.HANG
    assert [r.id for r in run.results] == ["llama-bench.pp512"]
    no_process_left(pidfile)


def test_a_cancel_stops_it(fake: str, model: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("FAKE_LLAMA_BENCH_MODE", "hang")
    monkeypatch.setenv("FAKE_LLAMA_BENCH_PIDFILE", str(pidfile))
    runner = LlamaBenchRunner(LlamaBenchRequest(fake, model), machine=None)
    first = threading.Event()
    timer = threading.Thread(target=lambda: (first.wait(10), runner.cancel()))
    timer.start()
    run = runner.run(lambda count: first.set())
    timer.join()
    assert run.error is not None and run.error.kind is ErrorKind.CANCELLED
    assert len(run.results) == 1
    no_process_left(pidfile)


def test_missing_program_model_and_option(fake: str, model: str, tmp_path: Path) -> None:
    run = LlamaBenchRunner(LlamaBenchRequest(str(tmp_path / "nope"), model),
                           machine=None).run()
    assert run.error is not None and run.error.kind is ErrorKind.START
    run = LlamaBenchRunner(LlamaBenchRequest(fake, str(tmp_path / "none.gguf")),
                           machine=None).run()
    assert run.error is not None and "model file not found" in run.error.message
    err = io.StringIO()
    assert llama_bench_command(fake, None, stderr=err, machine=None) == 2
    assert "--model" in err.getvalue()
