"""The catalogue of benchmark ids, the worker's JSON-lines protocol and the run's JSON form:
ids agree between the worker, the catalogue and the knowledge base; the reader keeps partial
lines and ignores garbage however the stream is cut; no parser raises on any JSON."""

from __future__ import annotations

import ast
import io
import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.bench.catalog import (
    BENCHMARK_IDS,
    SUITES,
    UnknownSuiteError,
    resolve_suites,
)
from gpuscope.bench.protocol import DoneMessage, ProgressMessage, parse_message
from gpuscope.bench.results import (
    BenchError,
    BenchmarkResult,
    BenchRun,
    ErrorKind,
    ResultStatus,
    Spread,
    WorkerHello,
    hello_from_json,
    primary_error,
    result_from_json,
    run_from_json,
    run_to_json,
)
from gpuscope.bench.runner import WORKER_PATH, BenchRequest, run_benchmarks
from gpuscope.bench.worker import benchmarks as worker_benchmarks
from gpuscope.bench.worker import main as worker_main
from gpuscope.bench.worker import measure as worker_measure
from gpuscope.knowledge.bench_expectations import BENCHMARKS as KNOWN
from gpuscope.probes.worker_process import JsonLineReader, key_error_line

CHILD_PATH = WORKER_PATH.parent.parent / "child"


# --- the catalogue ---------------------------------------------------------------------------


def test_the_worker_the_catalogue_and_the_knowledge_base_name_the_same_benchmarks() -> None:
    assert worker_benchmarks.BENCHMARK_IDS == BENCHMARK_IDS
    assert set(KNOWN) == set(BENCHMARK_IDS)
    assert set(worker_benchmarks.registry()) == set(BENCHMARK_IDS)
    for benchmark in BENCHMARK_IDS:  # units and directions agree with the knowledge base
        assert worker_benchmarks.unit_of(benchmark) == KNOWN[benchmark].unit, benchmark


def test_suites_resolve_to_ids_in_catalogue_order() -> None:
    assert resolve_suites([]) == resolve_suites(["quick"]) == (
        "matmul.fp32", "matmul.fp16", "matmul.bf16", "memory.copy", "memory.triad",
        "latency.launch")
    assert resolve_suites(["full"]) == BENCHMARK_IDS
    assert resolve_suites(["latency", "matmul.fp8", "matmul.fp32"]) == (
        "matmul.fp32", "matmul.fp8", "latency.launch", "latency.sync")
    assert resolve_suites(["transfer"]) == tuple(b for b in BENCHMARK_IDS
                                                 if b.startswith("transfer."))
    assert set(SUITES) == {"quick", "full", "matmul", "memory", "transfer", "latency",
                           "attention", "llm"}
    with pytest.raises(UnknownSuiteError, match="unknown suite or benchmark 'fastest'"):
        resolve_suites(["fastest"])


# --- the worker folder's text -----------------------------------------------------------------


@pytest.mark.parametrize("path", sorted([*WORKER_PATH.glob("*.py"), *CHILD_PATH.glob("*.py")]),
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_worker_is_python_3_9_syntax_and_imports_stdlib_only_at_top(path: Path) -> None:
    tree = ast.parse(path.read_text(), feature_version=(3, 9))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):  # its own folder, or gpuscope/child
            assert node.level == 1 or (node.level == 3 and (node.module or "").startswith(
                "child.")), ast.dump(node)
    # torch comes in through importlib.import_module inside main(), in the worker process.
    assert "torch" not in imported and "gpuscope" not in imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    assert not any(isinstance(node, ast.Match) for node in ast.walk(tree))


def test_the_worker_is_a_runnable_package_folder() -> None:
    assert WORKER_PATH.is_dir() and (WORKER_PATH / "__main__.py").is_file()
    assert WORKER_PATH.parent.name == "bench"  # the package gpuscope.bench.worker
    assert (WORKER_PATH / "__init__.py").is_file() and (CHILD_PATH / "__init__.py").is_file()


def test_the_worker_runs_without_the_gpuscope_package(bare_python: str, tmp_path: Path) -> None:
    """In the user's interpreter gpuscope's `__init__` modules never run: the worker's folders
    are bare packages under the name `_gpuscope`, its own folder is off sys.path."""
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        "import sys\n"
        "raise ImportError(' '.join(sorted(m for m in sys.modules if 'gpuscope' in m)) + ' '\n"
        "                  + ' '.join(p for p in sys.path if p.endswith('worker')))\n")
    run = run_benchmarks(BenchRequest(("latency.launch",), python=bare_python,
                                      env={**os.environ, "PYTHONPATH": str(tmp_path)}))
    (error,) = run.errors
    loaded = error.message.split("ImportError: ", 1)[1].split()
    assert "_gpuscope.bench.worker.main" in loaded and "_gpuscope.child.jsonlines" in loaded
    assert all(name.startswith("_gpuscope") for name in loaded), loaded


def test_importing_the_worker_module_does_not_import_torch() -> None:
    # This test process may have torch loaded by other tests; check in a fresh one.
    import subprocess

    code = ("import sys; import gpuscope.bench.worker.main, gpuscope.bench; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "False"


# --- the JSON-lines reader on bench messages ---------------------------------------------------


MESSAGES: list[dict[str, Any]] = [
    {"type": "hello", "protocol": 1, "torch": {"version": "2.13.0+cpu", "build": "cpu"},
     "device": "cpu", "device_name": "AMD EPYC ✓"},
    {"type": "progress", "benchmark": "matmul.fp32", "fraction": 0.5, "stage": "measure"},
    {"type": "result", "result": {"id": "matmul.fp32", "device": "cpu", "status": "ok",
                                  "value": 0.18, "unit": "TFLOPS", "higher_is_better": True,
                                  "spread": {"min": 0.1, "median": 0.18, "max": 0.2,
                                             "count": 7}}},
    {"type": "error", "kind": "oom", "benchmark": "matmul.fp16", "message": "out of memory"},
    {"type": "done", "results": 1},
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=1200), max_size=16),
       st.lists(st.sampled_from([b"HIP warning: x\n", b"{broken\n", b"[1, 2]\n", b"\n",
                                 b"\xff\xfe garbage\n", b'{"no": "type"}\n']), max_size=5))
def test_reader_gives_the_same_messages_however_the_stream_is_cut(
        cuts: list[int], garbage: list[bytes]) -> None:
    stream = b"".join(b"".join(garbage) + json.dumps(m, ensure_ascii=False).encode() + b"\n"
                      for m in MESSAGES)
    received: list[dict[str, Any]] = []
    reader = JsonLineReader(on_message=received.append)
    start = 0
    for point in [*sorted({min(c, len(stream)) for c in cuts}), len(stream)]:
        reader.feed(stream[start:point])
        start = point
    reader.close()
    assert received == MESSAGES
    parsed = [parse_message(m) for m in received]
    assert [type(p) for p in parsed] == [WorkerHello, ProgressMessage, BenchmarkResult,
                                         BenchError, DoneMessage]


def test_a_last_line_without_newline_still_counts() -> None:
    received: list[dict[str, Any]] = []
    reader = JsonLineReader(on_message=received.append)
    reader.feed(b'{"type": "done", "resu')
    assert received == []
    reader.feed(b'lts": 0}')
    reader.close()
    assert received == [{"type": "done", "results": 0}]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "result", "id", "status", "value", "spread",
                                       "min", "median", "max", "count", "kind", "message",
                                       "benchmark", "fraction", "protocol", "torch",
                                       "devices", "parameters", "results", "python",
                                       "started_unix_s", "ended_unix_s", "errors"])
                      | st.text(max_size=8), children, max_size=6),
    max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(JSON, st.sampled_from(["hello", "progress", "result", "error", "done", "other"]))
def test_no_parser_raises_on_any_json(raw: Any, kind: str) -> None:
    message = {**raw, "type": kind} if isinstance(raw, dict) else raw
    parse_message(message)
    parse_message({"type": kind, "result": raw, "benchmark": raw, "fraction": raw})
    result_from_json(raw)
    hello_from_json(raw)
    run = run_from_json(raw)
    if run is not None:
        json.dumps(run_to_json(run), allow_nan=False)


def test_a_result_with_ok_status_but_no_value_is_failed() -> None:
    result = result_from_json({"id": "matmul.fp32", "status": "ok", "value": float("nan")})
    assert result is not None
    assert result.status is ResultStatus.FAILED
    assert result.reason == "the worker reported no value"
    odd = result_from_json({"id": "x", "status": "exploded"})
    assert odd is not None and odd.status is ResultStatus.FAILED
    assert odd.reason == "unknown status 'exploded'"


def test_a_worker_cannot_claim_a_crash_the_runner_did_not_see() -> None:
    message = parse_message({"type": "error", "kind": "crash", "message": "I crashed"})
    assert isinstance(message, BenchError)
    assert message.kind is ErrorKind.WORKER


# --- the run's JSON ----------------------------------------------------------------------------


def _run(**changes: Any) -> BenchRun:
    result = BenchmarkResult(
        id="matmul.fp32", device="cpu", status=ResultStatus.OK, unit="TFLOPS",
        higher_is_better=True, value=0.18, spread=Spread(0.1, 0.18, 0.2, 7),
        parameters={"n": 2048, "dtype": "float32"}, relative_error=2.5e-7,
        relative_error_tolerance=1e-4, bit_identical=True, math_library="MKL",
        started_unix_s=1.0, ended_unix_s=2.0)
    fields: dict[str, Any] = dict(
        python="/usr/bin/python3", benchmarks=("matmul.fp32",), device_request="auto",
        hello=hello_from_json(MESSAGES[0]), results=(result,), errors=(),
        started_unix_s=0.5, ended_unix_s=2.5)
    fields.update(changes)
    return BenchRun(**fields)


def test_a_run_round_trips_through_json() -> None:
    run = _run()
    document = run_to_json(run)
    assert document["schema"] == "gpuscope.bench/1"
    assert document["ok"] is True and document["error"] is None
    assert document["duration_s"] == 2.0
    assert run_from_json(json.loads(json.dumps(document))) == run


def test_the_primary_error_is_what_ended_the_worker() -> None:
    oom = BenchError(ErrorKind.OOM, "out of memory", "matmul.fp16")
    crash = BenchError(ErrorKind.CRASH, "crashed (SIGSEGV)", "matmul.bf16", "SIGSEGV")
    assert primary_error(_run(errors=(oom, crash))) == crash
    assert primary_error(_run(errors=(oom,))) == oom
    assert primary_error(_run()) is None
    missing = primary_error(_run(not_run=("memory.copy",)))
    assert missing is not None and "memory.copy" in missing.message


def test_key_error_line_prefers_the_gpu_runtime_over_python_s_fatal_error() -> None:
    stderr = ('"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\n'
              "Fatal Python error: Aborted\n\nCurrent thread 0x0001 (most recent call first):\n"
              '  File "worker/main.py", line 10 in main\n')
    assert key_error_line(stderr) == (
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"')
    assert key_error_line("Fatal Python error: Segmentation fault\n\n  File x\n") == (
        "Fatal Python error: Segmentation fault")
    assert key_error_line("") is None


def test_the_worker_reports_each_gpu_s_pci_address() -> None:
    """gpuscope finds the machine's GPU (its telemetry, its slot link) by the bus address
    torch gives (`pci_domain_id`, `pci_bus_id`, `pci_device_id`); older torch lacks them."""
    new = types.SimpleNamespace(name="AMD Radeon RX 7900 XTX", total_memory=25753026560,
                                multi_processor_count=48, major=11, minor=0,
                                gcnArchName="gfx1100", pci_domain_id=0, pci_bus_id=3,
                                pci_device_id=0, uuid="58ff744c-0000-0000-0000-000000000000")
    old = types.SimpleNamespace(name="NVIDIA GeForce RTX 3060", total_memory=12884901888,
                                multi_processor_count=28, major=8, minor=6)
    cuda = types.SimpleNamespace(device_count=lambda: 2,
                                 get_device_properties=lambda i: (new, old)[i])
    torch = types.SimpleNamespace(cuda=cuda)
    first, second = worker_main._gpu_devices(torch, "rocm")
    assert first["pci_bus"] == "0000:03:00.0" and first["arch"] == "gfx1100"
    assert first["uuid"] == "58ff744c-0000-0000-0000-000000000000"
    assert "pci_bus" not in second
    hello = hello_from_json({"type": "hello", "protocol": 1, "devices": [first, second]})
    assert hello is not None
    assert [d.pci_bus for d in hello.devices] == ["0000:03:00.0", None]


def test_the_workers_share_one_json_lines_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench worker sends strict JSON (NaN as null); the framework probe's channel says when
    a message cannot be encoded, in its own error form."""
    from gpuscope.child import jsonlines
    from gpuscope.probes.framework_probe import main as probe_main

    sent = io.StringIO()
    monkeypatch.setattr(jsonlines, "_out", sent)
    worker_measure.emit({"type": "result", "value": float("nan"), "spread": (1.0, float("inf"))})
    looped: dict[str, Any] = {"type": "result"}
    looped["self"] = looped
    probe_main.emit(looped)
    first, second = (json.loads(line) for line in sent.getvalue().splitlines())
    assert first == {"type": "result", "value": None, "spread": [1.0, None]}
    assert second["type"] == "error" and second["error"].startswith("cannot encode a message")
