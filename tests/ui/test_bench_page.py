"""The Benchmarks page: nothing runs when the window opens; a real quick run on this CPU fills
the table (against the datasheet, with the host's telemetry) and the chart and is kept in the
history; a scripted GPU worker is judged against the RX 7900 XTX datasheet with its replayed
telemetry; crash, abort, out of memory and hang (short timeouts) end the run with a clear error
naming what happened, and the page stays usable; Cancel; past runs shown and compared."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
import threading
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuscope.bench.history import RunHistory
from gpuscope.bench.interpreter import BenchInterpreter, BenchInterpreters, choose
from gpuscope.bench.results import BenchmarkResult, BenchRun, ResultStatus, Spread, WorkerHello
from gpuscope.bench.session import BenchMachine
from gpuscope.evidence import ReplaySystem, System
from gpuscope.inventory import FrameworkInspection, InterpreterAnswer, collect_inventory
from gpuscope.model import (
    Framework,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    ProbeState,
    ProbeStatus,
    Stack,
    Vendor,
)
from gpuscope.probes.frameworks import FrameworkProbeResult
from gpuscope.probes.python_envs import InterpreterChoice, PythonEnv
from gpuscope.telemetry.sources import SourceSet, build_sources, host_source
from gpuscope.ui.bench.page import COLUMNS, BenchPage
from gpuscope.ui.main_window import MainWindow

if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed here", allow_module_level=True)

SNAPSHOTS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots"
RUN_TIMEOUT_MS = 90_000
QUICK_TITLES = ["FP32 matmul", "FP16 matmul", "BF16 matmul", "memory copy", "memory triad",
                "kernel launch round trip"]
PageFactory = Callable[..., BenchPage]


def bench_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate()
            if t.is_alive() and (t.name.startswith("gpuscope-bench-")
                                 or t.name.startswith("telemetry-"))]


@pytest.fixture(autouse=True)
def tiny_benchmarks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Sizes and budgets x 0.05 (the real worker, in about a second per benchmark); no fault
    unless a test asks; no run leaves a thread behind."""
    for name in list(os.environ):
        if name.startswith("GPUSCOPE_BENCH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GPUSCOPE_BENCH_SCALE", "0.05")
    monkeypatch.setenv("GPUSCOPE_DATA_DIR", str(tmp_path / "data"))
    yield
    deadline = threading.Event()
    for _ in range(100):
        if not bench_threads():
            break
        deadline.wait(0.1)
    assert not bench_threads(), [t.name for t in bench_threads()]


def fake_psutil() -> Any:
    return types.SimpleNamespace(
        cpu_percent=lambda interval=None, percpu=False: [90.0, 96.0] if percpu else 93.0,
        virtual_memory=lambda: types.SimpleNamespace(total=8 * 2**30, available=5 * 2**30),
        swap_memory=lambda: types.SimpleNamespace(total=0, used=0))


def host_machine() -> BenchMachine:
    return BenchMachine((), SourceSet((host_source(fake_psutil(), "test box"),)))


def no_environments(system: System, python: str) -> tuple[PythonEnv, ...]:
    return (PythonEnv("/opt/envs/rocm/bin/python", "venv", "rocm", "torch 2.7.1+rocm6.3"),)


@pytest.fixture
def make_page(qtbot: Any, tmp_path: Path) -> Iterator[PageFactory]:
    pages: list[BenchPage] = []

    def factory(**kwargs: Any) -> BenchPage:
        kwargs.setdefault("machine", host_machine)
        kwargs.setdefault("history", RunHistory(tmp_path / "runs.sqlite"))
        kwargs.setdefault("find_environments", no_environments)
        kwargs.setdefault("choose_interpreter", None)  # tests of the default pass their own
        page = BenchPage(**kwargs)
        qtbot.addWidget(page)
        page.resize(930, 700)
        page.show()
        pages.append(page)
        qtbot.waitUntil(lambda: not page.is_discovering, timeout=5000)
        return page

    yield factory
    for page in pages:
        page.shutdown()


def run_and_wait(qtbot: Any, page: BenchPage, suite: str) -> None:
    page.run_suite(suite)
    assert page.is_running
    qtbot.waitUntil(lambda: not page.is_running, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not page.past_runs.busy, timeout=5000)


def test_nothing_runs_when_the_window_opens(qtbot: Any, tmp_path: Path) -> None:
    def finder(system: System, python: str) -> tuple[PythonEnv, ...]:
        return ()

    window = MainWindow(ReplaySystem.from_file(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")),
                        find_environments=finder)
    qtbot.addWidget(window)
    window.show()
    window.select_page("Benchmarks")
    page = window.bench_page
    assert window.pages.currentWidget() is page
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    qtbot.waitUntil(lambda: not page.past_runs.busy and not page.is_discovering, timeout=5000)
    assert not page.is_running and page.shown_run is None and page.result_rows() == []
    assert not bench_threads()
    assert "No run yet" in page.overall_label.text()
    # The window shows a replay; the page says where benchmarks run.
    assert "benchmarks always run on this machine" in page.replay_note.text()
    window.close()


def test_a_real_quick_run_on_the_cpu_fills_the_table_chart_and_history(
        qtbot: Any, make_page: PageFactory) -> None:
    page = make_page()
    assert page.pythons() == [sys.executable, "/opt/envs/rocm/bin/python"]
    assert page.python() == sys.executable and page.device() == "auto"
    run_and_wait(qtbot, page, "quick")
    rows = page.result_rows()
    assert [r["benchmark"] for r in rows] == QUICK_TITLES
    for row in rows:
        # Unstable where this (tiny, shared) machine scatters the repeats.
        assert row["verdict"] in ("no datasheet", "unstable · no datasheet")
        assert row["percent"] == "–"
        assert row["telemetry"].startswith("CPU 93%"), row
        assert "(n=" in row["spread"]
    assert rows[0]["value"].endswith(" TFLOPS") and rows[0]["error"]
    assert rows[3]["value"].endswith(" GB/s") and rows[5]["value"].endswith(" µs")
    assert page.error_text() == ""
    assert page.overall_label.text().startswith("Done: 6 benchmarks")
    assert page.overall_bar.value() == 1000
    assert "compared with: no datasheet entry" in page.run_info.text()
    bars = page.chart.bars
    assert [b.label for b in bars] == ["FP32", "FP16", "BF16"]
    assert all(b.peak is None and b.measured > 0 for b in bars)
    assert "No datasheet peak to draw" in page.chart.note.text()
    # The run is kept, and the list shows it.
    qtbot.waitUntil(lambda: len(page.past_runs.stored_runs()) == 1, timeout=5000)
    stored = page.past_runs.stored_runs()[0]
    assert stored.ok and stored.results == 6 and stored.device.startswith("CPU")
    # The worker told us its devices: Auto and CPU (no GPU in a CPU build).
    assert [page.device_box.itemData(i) for i in range(page.device_box.count())] == [
        "auto", "cpu"]
    # Selecting a row shows its verdict in words.
    page.table.selectRow(0)
    assert page.verdict_label.text().startswith("matmul.fp32: no datasheet entry")


@pytest.mark.parametrize(("fault", "words"), [
    ("crash", "The benchmark worker crashed (SIGSEGV) while running memory.copy"),
    ("abort", "The benchmark worker aborted (SIGABRT) while running memory.copy"),
    ("oom", "Out of memory in memory.copy: "),
])
def test_a_dying_worker_is_named_and_the_page_stays_usable(
        qtbot: Any, make_page: PageFactory, monkeypatch: pytest.MonkeyPatch, fault: str,
        words: str) -> None:
    page = make_page()
    monkeypatch.setenv("GPUSCOPE_BENCH_FAULT", fault)
    run_and_wait(qtbot, page, "memory")
    text = page.error_text()
    assert words in text, text
    if fault == "abort":
        assert "hipErrorNoBinaryForGpu" in text
    assert page.run_buttons["quick"].isEnabled() and not page.cancel_button.isEnabled()
    assert page.python_box.isEnabled()
    # The same page runs again, and clears the error.
    monkeypatch.delenv("GPUSCOPE_BENCH_FAULT")
    run_and_wait(qtbot, page, "latency")
    assert page.error_text() == ""
    assert [r["benchmark"] for r in page.result_rows()] == [
        "kernel launch round trip", "synchronise, nothing queued"]


def test_a_hang_is_stopped_after_the_stall_timeout_and_said(
        qtbot: Any, make_page: PageFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    page = make_page(request_options={"stall_timeout_s": 2.0})
    monkeypatch.setenv("GPUSCOPE_BENCH_FAULT", "hang")
    monkeypatch.setenv("GPUSCOPE_BENCH_FAULT_AT", "memory.triad")
    run_and_wait(qtbot, page, "memory")
    text = page.error_text()
    assert text.startswith("The benchmark worker hung: no output for 2 s while running "
                           "memory.triad, killed"), text
    assert "The 1 results before it are kept below." in text
    assert [r["benchmark"] for r in page.result_rows()] == ["memory copy"]
    assert page.overall_label.text() == "Ended early: 1 of 2 reported"
    assert page.run_buttons["memory"].isEnabled()


def test_cancel_stops_the_worker_and_keeps_what_arrived(
        qtbot: Any, make_page: PageFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    page = make_page()
    monkeypatch.setenv("GPUSCOPE_BENCH_FAULT", "hang")
    monkeypatch.setenv("GPUSCOPE_BENCH_FAULT_AT", "memory.triad")
    page.run_suite("memory")
    qtbot.waitUntil(lambda: len(page.result_rows()) == 1, timeout=RUN_TIMEOUT_MS)
    assert page.cancel_button.isEnabled()
    page.cancel()
    qtbot.waitUntil(lambda: not page.is_running, timeout=10_000)
    assert page.error_text() == ("Cancelled: cancelled by the user while running "
                                 "memory.triad")
    assert page.overall_label.text() == "Cancelled: 1 of 2 reported"


def _gpu_worker(tmp_path: Path) -> str:
    """A worker that claims an RX 7900 XTX and reports plausible results."""
    path = tmp_path / "gpu_worker.py"
    path.write_text(textwrap.dedent("""
        import json, sys, time
        def send(m):
            sys.stdout.write(json.dumps(m) + "\\n")
            sys.stdout.flush()
        send({"type": "hello", "protocol": 1, "device": "cuda:0",
              "device_name": "AMD Radeon RX 7900 XTX", "python": sys.executable,
              "torch": {"version": "2.7.1+rocm6.3", "build": "rocm", "build_version": "6.3"},
              "devices": [{"index": 0, "name": "AMD Radeon RX 7900 XTX", "arch": "gfx1100",
                           "pci_bus": "0000:03:00.0"}]})
        values = {"matmul.fp32": 27.5, "matmul.fp16": 101.2, "matmul.bf16": 38.0,
                  "memory.copy": 812.0, "memory.triad": 826.0, "latency.launch": 9.4}
        for b in sys.argv[sys.argv.index("--benchmarks") + 1].split(","):
            began = time.time()
            for _ in range(8):
                send({"type": "progress", "benchmark": b, "fraction": 0.5, "stage": "measure"})
                time.sleep(0.05)
            v = values[b]
            unit = "us" if b.startswith("latency") else "GB/s" if b.startswith("memory") \\
                else "TFLOPS"
            send({"type": "result", "result": {
                "id": b, "device": "cuda:0", "status": "ok", "unit": unit, "value": v,
                "higher_is_better": not b.startswith("latency"),
                "spread": {"min": v * 0.97, "median": v, "max": v * 1.01, "count": 12},
                "relative_error": 2e-4 if b.startswith("matmul") else None,
                "math_library": "hipBLASLt" if b.startswith("matmul") else None,
                "started_unix_s": began, "ended_unix_s": time.time()}})
        send({"type": "done", "results": 6})
    """))
    return str(path)


def xtx_machine() -> BenchMachine:
    system = ReplaySystem.from_file(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    inventory = collect_inventory(system)
    return BenchMachine(inventory.gpus, build_sources(system, inventory))


def test_a_gpu_run_is_judged_against_the_cards_datasheet(
        qtbot: Any, make_page: PageFactory, tmp_path: Path) -> None:
    page = make_page(machine=xtx_machine, request_options={"script": _gpu_worker(tmp_path)})
    run_and_wait(qtbot, page, "quick")
    rows = {r["benchmark"]: r for r in page.result_rows()}
    fp16 = rows["FP16 matmul"]
    assert fp16["percent"] == "82% of 123" and fp16["verdict"] == "normal"
    assert rows["FP32 matmul"]["verdict"] == "normal"  # RDNA3: ~45% of dual-issue is normal
    assert rows["BF16 matmul"]["verdict"] == "low"
    assert rows["kernel launch round trip"]["verdict"] == "no datasheet"
    assert rows["memory copy"]["percent"].endswith("of 960")
    assert fp16["library"] == "hipBLASLt"
    # Replayed sysfs telemetry of the card, whose throttle reasons sysfs cannot read.
    assert fp16["telemetry"].startswith("max "), fp16["telemetry"]
    assert fp16["telemetry"].endswith("throttling not readable")
    assert "MHz" in fp16["telemetry"]
    assert "compared with: datasheet of the AMD Radeon RX 7900 XTX (matched by PCI bus " \
           "address)" in page.run_info.text()
    bars = {b.label: b for b in page.chart.bars}
    assert bars["FP16"].peak == pytest.approx(122.8)
    assert bars["FP16"].percent == pytest.approx(101.2 / 122.8 * 100)
    assert "Grey: the datasheet peak of AMD Radeon RX 7900 XTX." in page.chart.note.text()
    # The device list now names the GPU the worker saw.
    assert page.device_box.itemText(2) == "GPU 0: AMD Radeon RX 7900 XTX"
    # The verdict's tooltip gives the peak and its public sources, no internal markers.
    verdict_column = COLUMNS.index("verdict")
    tips = {page.table.item(row, 0).text(): page.table.item(row, verdict_column).toolTip()
            for row in range(page.table.rowCount())}
    assert "Peak: 122.8 TFLOPS FP16" in tips["FP16 matmul"]
    assert "https://www.guru3d.com/review/" in tips["FP16 matmul"]
    assert "https://rocm.docs.amd.com/" in tips["FP16 matmul"]
    assert all(not re.search(r"facts\.md|§|\[[SKVD?]\]|corpus \d", tip)
               for tip in tips.values()), tips


def test_past_runs_are_shown_compared_and_deleted(
        qtbot: Any, make_page: PageFactory, tmp_path: Path) -> None:
    page = make_page()
    run_and_wait(qtbot, page, "latency")
    run_and_wait(qtbot, page, "latency")
    qtbot.waitUntil(lambda: len(page.past_runs.stored_runs()) == 2, timeout=5000)
    newer, older = (s.id for s in page.past_runs.stored_runs())
    page.past_runs.select([older])
    assert page.past_runs.show_button.isEnabled() and not page.past_runs.compare_button.isEnabled()
    page.past_runs.show_selected()
    qtbot.waitUntil(lambda: page.overall_label.text() == f"Showing past run #{older}",
                    timeout=5000)
    assert page.run_info.text().startswith(f"Past run #{older} of ")
    page.past_runs.select([older, newer])
    assert page.past_runs.compare_button.isEnabled()
    page.past_runs.compare_selected()
    qtbot.waitUntil(lambda: page.past_runs.compare_dialog is not None, timeout=5000)
    dialog = page.past_runs.compare_dialog
    assert dialog is not None
    cells = dialog.cells()
    assert [row[0] for row in cells] == ["kernel launch round trip",
                                         "synchronise, nothing queued"]
    assert cells[0][5] in ("better", "worse", "within spread")
    assert cells[1][5] == "not comparable"
    dialog.close()
    page.past_runs.delete([older])
    qtbot.waitUntil(lambda: [s.id for s in page.past_runs.stored_runs()] == [newer],
                    timeout=5000)


# ----------------------------------------------------------------------------- the interpreter


GPUSCOPE_OWN = "/opt/gpuscope/bin/python"
RX6700 = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 6700 XT", gfx_target="gfx1031",
             kind=GpuKind.DISCRETE, kfd_node=1, kernel_driver="amdgpu", pci_bus="0000:03:00.0",
             seen_by=(Layer.SYSFS, Layer.KFD))
MACHINE = Inventory(gpus=(RX6700,), stack=Stack(rocm_version="6.2.4", kfd_loaded=True),
                    host=Host(os="linux"), probes=(), device_index=(),
                    origin=Origin(OriginKind.LIVE))


def inspected(*pythons: tuple[str, Framework | None]) -> FrameworkInspection:
    """Answers of the framework probe as it gives them (the probe itself is tested apart)."""
    answers = []
    for python, torch in pythons:
        answers.append(InterpreterAnswer(InterpreterChoice(python, "python3 on PATH"),
                                         FrameworkProbeResult(
            ProbeStatus(f"frameworks:{python}", ProbeState.OK),
            (torch,) if torch is not None else (), () if torch is not None else ("torch",),
            python=python, executable=python, python_version="3.11.7")))
    return FrameworkInspection(tuple(answers))


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter without torch."""
    root = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   capture_output=True, timeout=120)
    return str(root / "bin" / "python")


def test_the_page_defaults_to_the_inspected_interpreter_whose_torch_runs(
        qtbot: Any, make_page: PageFactory, bare_python: str) -> None:
    cpu_torch = Framework("torch", "2.13.0+cpu", "cpu", python=sys.executable)
    inspection = inspected((GPUSCOPE_OWN, None), (sys.executable, cpu_torch))
    page = make_page(current_python=GPUSCOPE_OWN,
                     choose_interpreter=lambda own: BenchInterpreters(
                         inventory=MACHINE, inspection=inspection).choose("auto"))
    qtbot.waitUntil(lambda: page.default_interpreter.pick is not None, timeout=5000)
    assert page.python() == sys.executable
    assert page.interpreter_note.text() == (
        f"Default: {sys.executable} (python3 on PATH): PyTorch 2.13.0+cpu (cpu) is a cpu build, "
        "and no interpreter inspected has a PyTorch that can use GPU 0 (AMD Radeon RX 6700 XT, "
        "gfx1031), so the benchmarks run on the CPU")
    # A choice by hand stays when the doctor's inspection arrives later; run without torch,
    # the error names the interpreter that has it.
    page.set_python(bare_python)
    page.use_inspection(inspection, MACHINE)
    assert page.python() == bare_python
    run_and_wait(qtbot, page, "latency.launch")
    assert page.error_text().splitlines()[1] == (f"{sys.executable} has PyTorch: choose it "
                                                 "above.")


def test_without_torch_anywhere_the_page_says_what_to_install(
        qtbot: Any, make_page: PageFactory, bare_python: str) -> None:
    python = bare_python
    chooser = BenchInterpreters(inventory=MACHINE, inspection=inspected((python, None)))
    expected = chooser.choose("auto").reason  # what `gpuscope bench` prints
    page = make_page(current_python=python, choose_interpreter=lambda own: chooser.choose())
    qtbot.waitUntil(lambda: page.default_interpreter.pick is not None, timeout=5000)
    assert page.interpreter_note.text() == expected
    assert "--python PATH" in expected and f"{python} -m pip install" in expected
    assert "download.pytorch.org/whl/rocm" in expected
    assert page.python() == python  # nothing better to run
    run_and_wait(qtbot, page, "latency.launch")
    lines = page.error_text().splitlines()
    assert lines[0].startswith("No torch in this interpreter: cannot import torch with ")
    assert lines[1] == expected
    assert page.run_info.text() == (f"Nothing ran on GPU 0 (AMD Radeon RX 6700 XT, gfx1031): "
                                    f"{python} has no PyTorch.")


def test_an_unstable_result_is_marked_on_the_page(qtbot: Any, make_page: PageFactory) -> None:
    hello = WorkerHello(1, python=sys.executable, python_version="3.11.7",
                        torch_version="2.13.0+cpu", build="cpu", device="cpu",
                        device_name="AMD EPYC", threads=2)
    shaky = BenchmarkResult("matmul.bf16", "cpu", ResultStatus.OK, "TFLOPS", True, 0.19,
                            Spread(0.029, 0.19, 0.882, 20), started_unix_s=1001.0,
                            ended_unix_s=1003.0)
    steady = BenchmarkResult("matmul.fp32", "cpu", ResultStatus.OK, "TFLOPS", True, 0.5,
                             Spread(0.49, 0.5, 0.51, 20, 0.495, 0.505))
    run = BenchRun(sys.executable, ("matmul.fp32", "matmul.bf16"), "cpu", hello,
                   (steady, shaky), (), 1000.0, 1010.0)
    page = make_page()
    run_id = page.history.save(run)
    page.past_runs.refresh()
    qtbot.waitUntil(lambda: len(page.past_runs.stored_runs()) == 1, timeout=5000)
    page.past_runs.select([run_id])
    page.past_runs.show_selected()
    qtbot.waitUntil(lambda: page.overall_label.text() == f"Showing past run #{run_id}",
                    timeout=5000)
    rows = {r["benchmark"]: r for r in page.result_rows()}
    assert rows["BF16 matmul"]["verdict"] == "unstable · no datasheet"
    assert rows["FP32 matmul"]["verdict"] == "no datasheet"
    page.table.selectRow(1)
    assert page.verdict_label.text().splitlines()[1] == (
        "Unstable: repeats ranged 0.029-0.882 TFLOPS (30x); no telemetry says why")


def test_over_a_replay_the_interpreter_is_chosen_when_a_run_asks(
        qtbot: Any, make_page: PageFactory, bare_python: str) -> None:
    asked: list[str] = []

    def picker(own: str) -> BenchInterpreter:
        asked.append(own)
        return choose(inspected((own, None), (sys.executable, Framework(
            "torch", "2.13.0+cpu", "cpu", python=sys.executable))), ())

    replay = ReplaySystem.from_file(str(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"))
    page = make_page(system=replay, current_python=bare_python, choose_interpreter=picker)
    assert asked == [] and page.python() == bare_python  # a replay on show: nothing inspected
    page.run_suite("latency.launch")
    qtbot.waitUntil(lambda: page.is_running, timeout=5000)
    assert asked == [bare_python] and page.python() == sys.executable
    qtbot.waitUntil(lambda: not page.is_running, timeout=RUN_TIMEOUT_MS)
    assert page.shown_run is not None and page.shown_run.python == sys.executable
    assert page.error_text() == ""
