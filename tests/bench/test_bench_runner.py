"""The runner with the real worker on this machine's CPU build of torch (torch==2.13.0), at a
tiny scale: sane results; crash, abort, hang and out-of-memory injected into the real worker,
each reported as what it was with the results before it kept; cancel mid-run; and small fake
workers for what the real one cannot be made to do (a newer protocol, a benchmark that never
ends, a SIGKILL)."""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from gpuscope.bench.results import BenchRun, ErrorKind, ResultStatus
from gpuscope.bench.runner import (
    BenchEvent,
    BenchmarkProgress,
    BenchRequest,
    BenchRunner,
    HelloReceived,
    ResultReceived,
    RunFinished,
    RunStarted,
    run_benchmarks,
)

if importlib.util.find_spec("torch") is None:  # the test extra installs torch==2.13.0
    if os.environ.get("CI"):
        pytest.fail("torch is not installed: pip install -e '.[test]'", pytrace=False)
    pytest.skip("torch is not installed here", allow_module_level=True)

PYENV = Path.home() / ".pyenv" / "versions"
MATMUL_TOLERANCE = {"matmul.fp32": 1e-4, "matmul.fp16": 1e-2, "matmul.bf16": 2e-2,
                    "matmul.int8": 0.0, "matmul.fp8": 3e-2}


def _gone(pid: int, timeout_s: float = 5.0) -> bool:
    """True once `pid` no longer runs (a zombie waiting for its reaper counts as gone)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return True
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _run(benchmarks: tuple[str, ...], env: dict[str, str], **options: object
         ) -> tuple[BenchRun, list[BenchEvent]]:
    events: list[BenchEvent] = []
    run = BenchRunner(BenchRequest(benchmarks, env=env, **options)).run(  # type: ignore[arg-type]
        events.append)
    return run, events


def _pid(events: list[BenchEvent]) -> int:
    (started,) = [e for e in events if isinstance(e, RunStarted)]
    return started.pid


# --- the real worker, healthy -------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_tiny_run() -> tuple[BenchRun, list[BenchEvent]]:
    """The full suite, all 20 benchmarks, at scale 0.05 on the CPU."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSCOPE_BENCH_")}
    env["GPUSCOPE_BENCH_SCALE"] = "0.05"
    from gpuscope.bench.catalog import BENCHMARK_IDS

    started = time.monotonic()
    run, events = _run(BENCHMARK_IDS, env)
    assert time.monotonic() - started < 90
    return run, events


def test_the_real_worker_runs_every_benchmark_on_the_cpu(
        full_tiny_run: tuple[BenchRun, list[BenchEvent]]) -> None:
    run, _ = full_tiny_run
    assert run.errors == (), run.errors
    assert run.ok and run.not_run == ()
    assert [r.id for r in run.results] == list(run.benchmarks)
    hello = run.hello
    assert hello is not None and hello.protocol == 1
    assert hello.torch_version is not None and hello.torch_version.startswith("2.13.0")
    assert hello.build == "cpu" and hello.device == "cpu" and hello.devices == ()
    assert hello.device_note == "ran on the CPU: this torch build has no GPU support"
    assert hello.python == sys.executable
    assert hello.math.get("blas_info") == "mkl"
    for result in run.results:
        assert result.device == "cpu"
        assert result.started_unix_s is not None and result.ended_unix_s is not None
        assert run.started_unix_s <= result.started_unix_s <= result.ended_unix_s
        assert result.ended_unix_s <= run.ended_unix_s


def test_real_results_are_sane(full_tiny_run: tuple[BenchRun, list[BenchEvent]]) -> None:
    run, _ = full_tiny_run
    ok = {r.id: r for r in run.results if r.status is ResultStatus.OK}
    # On a CPU build: no TF32, no transfers, no device queue, no memory-efficient SDPA kernel.
    assert set(ok) == {"matmul.fp32", "matmul.fp16", "matmul.bf16", "matmul.int8", "matmul.fp8",
                       "memory.copy", "memory.triad", "latency.launch", "attention.flash",
                       "attention.math", "llm.prefill", "llm.decode", "llm.decode_long"}
    for result in ok.values():
        assert result.value is not None and result.value > 0, result
        spread = result.spread
        assert spread is not None and spread.count >= 3
        assert 0 < spread.min <= spread.median <= spread.max
        assert result.value == spread.median
        assert result.parameters["repeats"] == spread.count
    for benchmark, tolerance in MATMUL_TOLERANCE.items():
        result = ok[benchmark]
        assert result.unit == ("TOPS" if benchmark == "matmul.int8" else "TFLOPS")
        assert result.relative_error is not None
        assert 0 <= result.relative_error <= tolerance
        assert result.relative_error_tolerance == tolerance
        assert result.bit_identical is not None
        assert isinstance(result.parameters["n"], int) and result.parameters["n"] >= 64
        assert isinstance(result.parameters["seed"], int)
    assert ok["matmul.int8"].relative_error == 0.0  # integer products are exact
    assert ok["matmul.fp32"].relative_error > 0  # real float arithmetic, not a copy
    assert ok["matmul.fp32"].math_library == "MKL"
    assert ok["matmul.fp32"].parameters["fp32_precision"] == "ieee"
    assert ok["memory.copy"].unit == "GB/s"
    assert ok["memory.copy"].parameters["bytes_per_call"] == 2 * ok["memory.copy"].parameters[
        "array_bytes"]
    assert ok["memory.triad"].parameters["bytes_per_call"] == 3 * ok["memory.triad"].parameters[
        "array_bytes"]
    launch = ok["latency.launch"]
    assert launch.unit == "us" and launch.higher_is_better is False
    assert 0.05 < launch.value < 10_000  # type: ignore[operator]
    for benchmark in ("attention.flash", "attention.math"):
        assert ok[benchmark].relative_error is not None
        assert ok[benchmark].relative_error <= 1e-4  # type: ignore[operator]

    unsupported = {r.id: r for r in run.results if r.status is ResultStatus.UNSUPPORTED}
    assert set(unsupported) == set(run.benchmarks) - set(ok)
    assert unsupported["matmul.tf32"].reason == "TF32 is an NVIDIA tensor-core mode; no GPU here"
    assert unsupported["transfer.h2d_pinned"].reason == "no GPU: host-device transfers need one"
    assert unsupported["latency.sync"].value is None
    assert "No viable backend" in (unsupported["attention.efficient"].reason or "")


def test_progress_events_cover_each_benchmark_in_order(
        full_tiny_run: tuple[BenchRun, list[BenchEvent]]) -> None:
    run, events = full_tiny_run
    assert isinstance(events[0], RunStarted) and isinstance(events[1], HelloReceived)
    assert isinstance(events[-1], RunFinished) and events[-1].run == run
    progress = [e for e in events if isinstance(e, BenchmarkProgress)]
    assert [p.overall_fraction for p in progress] == sorted(p.overall_fraction for p in progress)
    assert {p.benchmark for p in progress} == set(run.benchmarks)
    assert all(p.count == len(run.benchmarks) and p.index >= 0 for p in progress)
    assert {"start", "warmup", "measure", "check", "end"} <= {p.stage for p in progress}
    results = [e for e in events if isinstance(e, ResultReceived)]
    assert [e.index for e in results] == list(range(len(run.benchmarks)))
    assert _gone(_pid(events))


# --- faults injected into the real worker ---------------------------------------------------------

THREE = ("matmul.fp32", "memory.copy", "latency.launch")


def test_a_segfault_is_a_crash_and_the_results_before_it_are_kept(
        tiny_env: dict[str, str]) -> None:
    env = {**tiny_env, "GPUSCOPE_BENCH_FAULT": "crash", "GPUSCOPE_BENCH_FAULT_AT": "memory.copy"}
    run, events = _run(THREE, env)
    assert [r.id for r in run.results] == ["matmul.fp32"]
    assert run.results[0].status is ResultStatus.OK
    (error,) = run.errors
    assert error.kind is ErrorKind.CRASH
    assert error.signal == "SIGSEGV" and run.signal == "SIGSEGV"
    assert error.benchmark == "memory.copy"
    assert error.message.startswith(
        "the benchmark worker crashed (SIGSEGV) while running memory.copy")
    assert run.not_run == ("memory.copy", "latency.launch")
    assert not run.ok
    assert _gone(_pid(events))


def test_an_abort_names_the_gpu_runtime_s_last_words(tiny_env: dict[str, str]) -> None:
    run, _ = _run(THREE, {**tiny_env, "GPUSCOPE_BENCH_FAULT": "abort"})
    (error,) = run.errors
    assert error.kind is ErrorKind.ABORT and error.signal == "SIGABRT"
    assert error.benchmark == "matmul.fp32"
    assert error.detail is not None and "hipErrorNoBinaryForGpu" in error.detail
    assert "aborted (SIGABRT) while running matmul.fp32" in error.message
    assert "hipErrorNoBinaryForGpu" in error.message
    assert run.results == () and run.not_run == THREE


def test_out_of_memory_fails_that_benchmark_and_the_run_goes_on(tiny_env: dict[str, str]) -> None:
    env = {**tiny_env, "GPUSCOPE_BENCH_FAULT": "oom", "GPUSCOPE_BENCH_FAULT_AT": "memory.copy"}
    run, _ = _run(THREE, env)
    (error,) = run.errors
    assert error.kind is ErrorKind.OOM and error.benchmark == "memory.copy"
    assert "out of memory" in error.message and "can't allocate memory" in error.message
    statuses = {r.id: r.status for r in run.results}
    assert statuses == {"matmul.fp32": ResultStatus.OK, "memory.copy": ResultStatus.FAILED,
                        "latency.launch": ResultStatus.OK}
    failed = run.result("memory.copy")
    assert failed is not None and (failed.reason or "").startswith("out of memory")
    assert run.returncode == 0 and run.not_run == ()
    assert not run.ok


def test_a_hang_is_killed_after_the_stall_timeout(tiny_env: dict[str, str]) -> None:
    env = {**tiny_env, "GPUSCOPE_BENCH_FAULT": "hang", "GPUSCOPE_BENCH_FAULT_AT": "memory.copy"}
    started = time.monotonic()
    run, events = _run(THREE, env, stall_timeout_s=3.0)
    elapsed = time.monotonic() - started
    (error,) = run.errors
    assert error.kind is ErrorKind.HANG
    assert error.message == "no output for 3 s while running memory.copy, killed"
    assert [r.id for r in run.results] == ["matmul.fp32"]
    assert elapsed < 20
    assert _gone(_pid(events))


def test_the_default_timeouts_end_a_quick_suite_hang_within_a_minute() -> None:
    request = BenchRequest(("matmul.fp32",))
    assert request.startup_timeout_s + 5 < 60  # a hang before hello
    assert request.stall_timeout_s + 5 < 60  # a hang after it


# --- cancel ---------------------------------------------------------------------------------------


def test_cancel_mid_run_stops_the_worker_and_keeps_what_arrived(
        tiny_env: dict[str, str]) -> None:
    # Long measuring budgets: the run would take over a minute without the cancel.
    runner = BenchRunner(BenchRequest(THREE, env=tiny_env, budget_s=30.0))
    events: list[BenchEvent] = []
    measuring = threading.Event()

    def on_event(event: BenchEvent) -> None:
        events.append(event)
        if isinstance(event, BenchmarkProgress) and event.stage == "measure":
            measuring.set()

    runner.start(on_event)
    assert measuring.wait(60)
    cancelled_at = time.monotonic()
    runner.cancel()
    run = runner.wait(30)
    assert run is not None
    assert time.monotonic() - cancelled_at < 5
    assert run.cancelled and not run.ok
    (error,) = run.errors
    assert error.kind is ErrorKind.CANCELLED
    assert error.message == "cancelled by the user while running matmul.fp32"
    assert run.not_run == THREE
    assert _gone(_pid(events))


def test_breaking_off_the_event_iterator_kills_the_worker(tiny_env: dict[str, str]) -> None:
    runner = BenchRunner(BenchRequest(THREE, env=tiny_env, budget_s=30.0))
    pid = None
    events = runner.events()
    for event in events:
        if isinstance(event, RunStarted):
            pid = event.pid
        if isinstance(event, HelloReceived):
            break
    events.close()  # what a GUI does when it drops the run
    assert pid is not None and _gone(pid)
    with pytest.raises(RuntimeError, match="runs once"):
        next(runner.events())


def test_cancel_before_start_runs_nothing() -> None:
    runner = BenchRunner(BenchRequest(THREE))
    runner.cancel()
    run = runner.run()
    assert run.cancelled and run.errors[0].kind is ErrorKind.CANCELLED and run.results == ()


# --- interpreters that cannot run it ------------------------------------------------------------


def test_a_missing_interpreter(tmp_path: Path) -> None:
    python = str(tmp_path / "nowhere" / "python")
    run = run_benchmarks(BenchRequest(THREE, python=python))
    (error,) = run.errors
    assert error.kind is ErrorKind.START
    assert error.message == f"Python interpreter not found: {python}"
    assert run.not_run == THREE and run.hello is None


def test_an_interpreter_without_torch(bare_python: str) -> None:
    run = run_benchmarks(BenchRequest(THREE, python=bare_python))
    (error,) = run.errors
    assert error.kind is ErrorKind.NO_TORCH
    assert error.message.startswith(f"cannot import torch with {bare_python}: ")
    assert "ModuleNotFoundError" in error.message
    assert run.hello is not None and run.hello.torch_version is None
    assert run.not_run == THREE


@pytest.mark.skipif(not (PYENV / "3.9.18" / "bin" / "python").exists(),
                    reason="no Python 3.9 interpreter here")
def test_python_3_9_runs_the_worker_up_to_its_missing_torch() -> None:
    python = str(PYENV / "3.9.18" / "bin" / "python")
    run = run_benchmarks(BenchRequest(THREE, python=python))
    assert run.hello is not None and (run.hello.python_version or "").startswith("3.9.")
    assert [e.kind for e in run.errors] == [ErrorKind.NO_TORCH]


@pytest.mark.skipif(not (PYENV / "2.7.18" / "bin" / "python").exists(),
                    reason="no Python 2.7 interpreter here")
def test_a_python_too_old_for_the_worker() -> None:
    run = run_benchmarks(BenchRequest(THREE, python=str(PYENV / "2.7.18" / "bin" / "python")))
    (error,) = run.errors
    assert error.kind is ErrorKind.START
    assert "needs Python 3.9 or newer" in error.message and "SyntaxError" in error.message


def test_a_gpu_index_torch_does_not_see(tiny_env: dict[str, str]) -> None:
    run, _ = _run(THREE, tiny_env, device="3")
    (error,) = run.errors
    assert error.kind is ErrorKind.DEVICE
    assert error.message == "no GPU 3: this cpu build of torch sees 0 GPU(s)"
    assert run.results == () and run.not_run == THREE


# --- fake workers ---------------------------------------------------------------------------------


def _fake(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fake_worker.py"
    path.write_text("import json, os, signal, sys, time\n"
                    "def send(m):\n    sys.stdout.write(json.dumps(m) + '\\n')\n"
                    "    sys.stdout.flush()\n" + textwrap.dedent(body))
    return str(path)


def test_a_newer_protocol_is_refused(tmp_path: Path) -> None:
    script = _fake(tmp_path, """
        send({"type": "hello", "protocol": 2})
        time.sleep(60)
    """)
    started = time.monotonic()
    run = run_benchmarks(BenchRequest(THREE, script=script))
    assert time.monotonic() - started < 10
    (error,) = run.errors
    assert error.kind is ErrorKind.PROTOCOL
    assert error.message == "the benchmark worker speaks protocol 2, this gpuscope reads 1"


def test_a_benchmark_that_never_ends_times_out(tmp_path: Path) -> None:
    script = _fake(tmp_path, """
        send({"type": "hello", "protocol": 1, "device": "cpu"})
        while True:
            send({"type": "progress", "benchmark": "matmul.fp32", "fraction": 0.5})
            time.sleep(0.1)
    """)
    run = run_benchmarks(BenchRequest(THREE, script=script, benchmark_timeout_s=2.0))
    (error,) = run.errors
    assert error.kind is ErrorKind.TIMEOUT
    assert error.message == ("matmul.fp32 did not finish within 2 s; the worker was killed")


def test_the_overall_timeout(tmp_path: Path) -> None:
    script = _fake(tmp_path, """
        send({"type": "hello", "protocol": 1})
        for n in range(10**6):
            send({"type": "progress", "benchmark": "b%d" % (n // 5), "fraction": 0.1})
            time.sleep(0.1)
    """)
    run = run_benchmarks(BenchRequest(THREE, script=script, overall_timeout_s=2.0))
    (error,) = run.errors
    assert error.kind is ErrorKind.TIMEOUT
    assert error.message.startswith("the run did not finish within 2 s")


def test_no_hello_is_a_hang_at_startup(tmp_path: Path) -> None:
    script = _fake(tmp_path, "time.sleep(60)\n")
    run = run_benchmarks(BenchRequest(THREE, script=script, startup_timeout_s=1.5))
    (error,) = run.errors
    assert error.kind is ErrorKind.HANG
    assert error.message.startswith("no output for 1.5 s after the worker started")


def test_sigkill_from_outside_points_at_the_oom_killer(tmp_path: Path) -> None:
    script = _fake(tmp_path, """
        send({"type": "hello", "protocol": 1})
        send({"type": "progress", "benchmark": "memory.copy", "fraction": 0.2})
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = run_benchmarks(BenchRequest(THREE, script=script))
    (error,) = run.errors
    assert error.kind is ErrorKind.KILLED and error.signal == "SIGKILL"
    assert error.benchmark == "memory.copy"
    assert "out-of-memory killer" in error.message


def test_an_exit_without_done_and_garbage_on_stdout(tmp_path: Path) -> None:
    script = _fake(tmp_path, """
        print("Loading libraries... {not json")
        send({"type": "hello", "protocol": 1})
        sys.stdout.write('{"type": "result", "result": {"id": "matmul.fp32", "status": "unsu')
        sys.stdout.write('pported", "reason": "no", "unit": "TFLOPS"}}\\n[1, 2]\\n')
        sys.stdout.flush()
        sys.stderr.write("RuntimeError: something broke\\n")
        sys.exit(3)
    """)
    run = run_benchmarks(BenchRequest(THREE, script=script))
    assert [r.id for r in run.results] == ["matmul.fp32"]
    assert run.results[0].status is ResultStatus.UNSUPPORTED
    (error,) = run.errors
    assert error.kind is ErrorKind.EXITED
    assert error.message == ("the benchmark worker exited with status 3 before it was done: "
                             "RuntimeError: something broke")
    assert run.not_run == ("memory.copy", "latency.launch")
