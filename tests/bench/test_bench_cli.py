"""`gpuscope bench` as a user runs it: a real process, the real worker, exit statuses, JSON on
stdout. One run of the real quick suite at full size; the rest at a tiny scale."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gpuscope.bench.command import ProgressBar, bench_command, format_run_text, parse_device
from gpuscope.bench.results import BenchmarkResult, ResultStatus, run_from_json
from gpuscope.bench.runner import BenchmarkProgress, ResultReceived

if importlib.util.find_spec("torch") is None:
    if os.environ.get("CI"):
        pytest.fail("torch is not installed: pip install -e '.[test]'", pytrace=False)
    pytest.skip("torch is not installed here", allow_module_level=True)

QUICK = {"matmul.fp32", "matmul.fp16", "matmul.bf16", "memory.copy", "memory.triad",
         "latency.launch"}


def gpuscope(*args: str, env: dict[str, str] | None = None,
             timeout_s: float = 150) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpuscope", *args], capture_output=True,
                          text=True, timeout=timeout_s, env=env, check=False)


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GPUSCOPE_BENCH_")}


def test_the_real_quick_suite_as_json_within_two_minutes() -> None:
    started = time.monotonic()
    result = gpuscope("bench", "--suite", "quick", "--json", env=_clean_env())
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-3000:]
    assert elapsed < 120
    doc: dict[str, Any] = json.loads(result.stdout)
    assert doc["schema"] == "gpuscope.bench/1" and doc["ok"] is True and doc["error"] is None
    assert doc["python"] == sys.executable
    results = {r["id"]: r for r in doc["results"]}
    assert set(results) == QUICK
    for benchmark, r in results.items():
        assert r["status"] == "ok", r
        assert r["value"] > 0
        assert r["spread"]["min"] <= r["spread"]["median"] <= r["spread"]["max"]
        assert r["spread"]["count"] >= 3
        if benchmark.startswith("matmul."):
            assert r["unit"] == "TFLOPS"
            assert 0 < r["relative_error"] <= r["relative_error_tolerance"]
        # Against the datasheet: the CPU has none, and says so.
        assert r["peak"] is None and r["percent_of_peak"] is None
        assert r["peak_missing"] == ("no datasheet entry: gpuscope's knowledge base has "
                                     "datasheet peaks for GPUs, not for CPUs")
        assert r["verdict"]["level"] == "unknown" and r["verdict"]["words"] == "no datasheet"
        # The host's load while it ran (a full-size benchmark takes seconds: several ticks).
        telemetry = r["telemetry"]
        assert telemetry["device"] == "host" and telemetry["samples"] >= 3, telemetry
        cpu = next(m for m in telemetry["metrics"] if m["metric"] == "host_cpu_percent")
        assert 0 <= cpu["min"] <= cpu["median"] <= cpu["max"] <= 100
        assert cpu["source"].startswith("psutil")
    assert doc["card"] is None and doc["target"] is None
    assert doc["history"]["id"] >= 1 and doc["history"]["not_saved"] is None
    fp32 = results["matmul.fp32"]
    assert fp32["parameters"]["n"] == 2048  # full size on the CPU
    assert results["memory.copy"]["unit"] == "GB/s"
    assert results["latency.launch"]["unit"] == "us"
    run = run_from_json(doc)
    assert run is not None and run.ok


@pytest.mark.parametrize(("fault", "kind", "words"), [
    ("crash", "crash", "crashed (SIGSEGV) while running matmul.fp32"),
    ("abort", "abort", "hipErrorNoBinaryForGpu"),
    ("oom", "oom", "out of memory"),
])
def test_a_fault_exits_1_with_a_json_error_naming_it(fault: str, kind: str, words: str) -> None:
    env = {**_clean_env(), "GPUSCOPE_BENCH_FAULT": fault, "GPUSCOPE_BENCH_SCALE": "0.05"}
    started = time.monotonic()
    result = gpuscope("bench", "--suite", "quick", "--json", env=env)
    assert time.monotonic() - started < 60
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["ok"] is False
    assert doc["error"]["kind"] == kind
    assert words in doc["error"]["message"]
    assert doc["error"]["benchmark"] == "matmul.fp32"


def test_ctrl_c_stops_the_worker_prints_what_arrived_and_exits_130() -> None:
    # The worker stops at memory.copy (an injected hang that would last 20 s): the Ctrl-C
    # surely comes mid-run, after the matmul results.
    env = {**_clean_env(), "GPUSCOPE_BENCH_SCALE": "0.05", "GPUSCOPE_BENCH_FAULT": "hang",
           "GPUSCOPE_BENCH_FAULT_AT": "memory.copy"}
    process = subprocess.Popen(
        [sys.executable, "-m", "gpuscope", "bench", "--suite", "quick", "--json", "--python",
         sys.executable],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # The hang holds from about 5 s (a quiet machine) until 20 s later; a busy machine reaches
    # it later (on a shared 2-core box, after 8 s).
    time.sleep(14)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == 130, stderr
    doc = json.loads(stdout)
    assert doc["cancelled"] is True and doc["error"]["kind"] == "cancelled"
    assert doc["error"]["message"] == "cancelled by the user while running memory.copy"
    assert [r["id"] for r in doc["results"]] == ["matmul.fp32", "matmul.fp16", "matmul.bf16"]
    pid = doc["hello"]["pid"]
    assert not Path(f"/proc/{pid}").exists() or \
        Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_text_output_and_the_output_file(tmp_path: Path) -> None:
    env = {**_clean_env(), "GPUSCOPE_BENCH_SCALE": "0.05"}
    out = tmp_path / "run.json"
    result = gpuscope("bench", "--suite", "latency", "matmul.tf32", "-o", str(out), env=env)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Benchmarks on cpu" in text and "torch 2.13.0" in text
    assert "ran on the CPU: this torch build has no GPU support" in text
    assert "3 of 3 benchmarks reported" in text
    lines = {line.split()[0]: line for line in text.splitlines()[3:] if line.strip()}
    # "UNSTABLE" when this machine is busy enough to scatter the repeats (see stability.py).
    assert re.search(" (ok|UNSTABLE) ", lines["latency.launch"]) and " µs " in \
        lines["latency.launch"]
    assert "unsupported" in lines["latency.sync"] and "no GPU" in lines["latency.sync"]
    assert "TF32 is an NVIDIA tensor-core mode" in lines["matmul.tf32"]
    saved = run_from_json(json.loads(out.read_text()))
    assert saved is not None and [r.id for r in saved.results] == [
        "matmul.tf32", "latency.launch", "latency.sync"]


def test_usage_errors_exit_2() -> None:
    result = gpuscope("bench", "--suite", "fastest")
    assert result.returncode == 2
    assert "unknown suite or benchmark 'fastest'" in result.stderr
    result = gpuscope("bench", "--device", "gpu7")
    assert result.returncode == 2
    assert "--device takes a GPU index" in result.stderr
    assert parse_device(None) == "auto" and parse_device("cuda:1") == "1"
    assert parse_device("CPU") == "cpu"


def test_a_missing_interpreter_exits_1_with_the_reason(tmp_path: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    python = str(tmp_path / "no-python")
    code = bench_command(["memory"], python=python, as_json=True, stdout=stdout, stderr=stderr)
    assert code == 1
    doc = json.loads(stdout.getvalue())
    assert doc["error"] == {"kind": "start", "message": f"Python interpreter not found: {python}",
                            "benchmark": None, "signal": None, "detail": None}
    assert doc["not_run"] == ["memory.copy", "memory.triad"]
    code = bench_command(["memory"], python=python, stdout=stdout, stderr=stderr)
    assert code == 1
    assert stderr.getvalue().strip() == f"gpuscope bench: start: Python interpreter not found: " \
                                        f"{python}"
    run = run_from_json(doc)
    assert run is not None and "Errors:\n  start: Python interpreter not found" in \
        format_run_text(run)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal, stdout = _Tty(), io.StringIO()
    bar = ProgressBar(terminal)
    bar.show(BenchmarkProgress("matmul.fp32", 0, 2, 0.5, "measure", 0.25))
    bar.show(ResultReceived(BenchmarkResult("matmul.fp32", "cpu", ResultStatus.OK, "TFLOPS",
                                            True, 0.1712), 0, 2))
    bar.close()
    drawn = terminal.getvalue()
    assert "[######..................]  25%  1/2 matmul.fp32 measure" in drawn
    assert "matmul.fp32: 0.171 TFLOPS" in drawn
    pipe = io.StringIO()  # not a terminal: no bar, only the table on stdout
    monkeypatch.setenv("GPUSCOPE_BENCH_SCALE", "0.05")
    code = bench_command(["latency.launch"], python=sys.executable, stdout=stdout, stderr=pipe)
    assert code == 0 and pipe.getvalue() == ""
    assert "latency.launch" in stdout.getvalue()
