"""The Frameworks page: the environment list, inspection off the GUI thread (a fake slow
collector, cancel, and one real inspection of this interpreter), the per-GPU verdicts, and
the Stack page following the inspection."""

from __future__ import annotations

import importlib.util
import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer

from gpuscope.doctor.layers import LayerState
from gpuscope.doctor.verdicts import FrameworkVerdict
from gpuscope.doctor.verdicts import framework_verdict as engine_verdict
from gpuscope.evidence import LiveSystem, ReplaySystem, System
from gpuscope.importer import import_files
from gpuscope.model import (
    Framework,
    FrameworkDevice,
    Gpu,
    GpuKind,
    Host,
    Inventory,
    Layer,
    Origin,
    OriginKind,
    Stack,
    Vendor,
)
from gpuscope.probes.python_envs import PythonEnv
from gpuscope.ui.doctor_loader import Diagnosis, make_diagnosis
from gpuscope.ui.main_window import MainWindow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SLOW_COLLECT_S = 1.5
OTHER_PYTHON = "/opt/envs/rocm/bin/python"
WindowFactory = Callable[..., MainWindow]


def rocm_torch(python: str, *, arch: tuple[str, ...] = ("gfx1100",),
               available: bool = True) -> Framework:
    return Framework(
        name="torch", version="2.5.1+rocm6.2", build="rocm", build_version="6.2",
        gpu_available=available, arch_list=arch, python=python, python_version="3.11.7",
        devices=(FrameworkDevice(0, name="AMD Radeon RX 7900 XTX", arch="gfx1100",
                                 pci_bus="0000:03:00.0"),) if available else (),
        smoke_test="ok" if available else None,
    )


class SlowCollector:
    """collect(system, pythons, timeout_s) that takes its time, or waits to be released."""

    def __init__(self, seconds: float = SLOW_COLLECT_S, wait_for_release: bool = False) -> None:
        self.seconds = seconds
        self.wait_for_release = wait_for_release
        self.release = threading.Event()
        self.calls: list[tuple[str, ...]] = []
        self.on_gui_thread: list[bool] = []

    def __call__(self, system: System, pythons: Sequence[str],
                 timeout_s: float) -> tuple[Framework, ...]:
        self.calls.append(tuple(pythons))
        self.on_gui_thread.append(threading.current_thread() is threading.main_thread())
        if self.wait_for_release:
            self.release.wait(timeout=4)
        else:
            time.sleep(self.seconds)
        return tuple(rocm_torch(p) for p in pythons)


@pytest.fixture
def windows(qtbot: Any) -> Iterator[WindowFactory]:
    made: list[MainWindow] = []

    def factory(system: System, **kwargs: Any) -> MainWindow:
        window = MainWindow(system, **kwargs)
        qtbot.addWidget(window)
        made.append(window)
        window.show()
        return window

    yield factory
    for window in made:
        window.close()


def test_the_environment_list_holds_the_current_interpreter_ticked(
    qtbot: Any, windows: WindowFactory,
) -> None:
    window = windows(LiveSystem(), probes=())
    page = window.frameworks_page
    assert page.environments() == []  # nothing looked for until the page is shown
    window.select_page("frameworks")
    qtbot.waitUntil(lambda: bool(page.environments()) and not page.is_discovering,
                    timeout=10_000)
    assert page.environments()[0] == sys.executable
    assert page.checked_pythons() == [sys.executable]
    assert page.status_label.text().endswith("found")
    page.add_interpreter(OTHER_PYTHON)
    assert page.environments()[-1] == OTHER_PYTHON
    assert page.checked_pythons() == [sys.executable, OTHER_PYTHON]


def test_inspection_keeps_the_gui_responsive_then_shows_results_and_updates_the_stack(
    qtbot: Any, windows: WindowFactory,
) -> None:
    collect = SlowCollector()
    window = windows(ReplaySystem.from_file(FIXTURES / "snapshots" / "rx7900xtx_rocm.json"),
                     framework_collector=collect)
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    window.select_page("frameworks")
    page = window.frameworks_page
    page.add_interpreter("/opt/envs/a/bin/python")
    page.add_interpreter("/opt/envs/b/bin/python")
    assert page.checked_pythons() == ["/opt/envs/a/bin/python", "/opt/envs/b/bin/python"]
    before = window.stack_page.stacks()[0].box("Framework")
    assert before.state is LayerState.UNKNOWN

    ticks: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(20)
    heartbeat.timeout.connect(lambda: ticks.append(time.monotonic()))
    heartbeat.start()
    try:
        started = time.monotonic()
        page.inspect_button.click()
        assert page.is_inspecting
        assert page.progress_text() == "Inspecting 2 environments…"
        assert page.progress_bar.isVisible() and page.progress_bar.maximum() == 0
        assert page.cancel_button.isVisible() and not page.inspect_button.isEnabled()
        qtbot.waitUntil(lambda: not page.is_inspecting, timeout=10_000)
        elapsed = time.monotonic() - started
    finally:
        heartbeat.stop()
    assert elapsed >= SLOW_COLLECT_S - 0.1
    assert collect.calls == [("/opt/envs/a/bin/python", "/opt/envs/b/bin/python")]
    assert collect.on_gui_thread == [False]
    assert len(ticks) >= 40, f"only {len(ticks)} timer ticks in {elapsed:.1f} s"
    longest_gap = max(b - a for a, b in itertools.pairwise(ticks))
    assert longest_gap < 0.5, f"the GUI thread was blocked for {longest_gap:.2f} s"

    assert page.progress_text() is None and page.inspect_button.isEnabled()
    assert page.status_label.text().startswith("Inspected 2 environments in ")
    rows = page.result_rows()
    assert [(r.python, r.name, r.version, r.build, r.gpu_available, r.arch_list, r.smoke_test)
            for r in rows] == [
        (p, "torch", "2.5.1+rocm6.2", "ROCm 6.2", "yes (1 device)", "gfx1100", "ok")
        for p in ("/opt/envs/a/bin/python", "/opt/envs/b/bin/python")]
    (verdict,) = page.verdicts()[("/opt/envs/a/bin/python", "torch")]
    assert verdict.gpu == 0 and verdict.usable is True
    assert verdict.text == "yes as device 0"

    # The diagnosis was recomputed with the frameworks, and the Stack page follows.
    assert window.diagnosis.frameworks == collect(LiveSystem(), [
        "/opt/envs/a/bin/python", "/opt/envs/b/bin/python"], 1.0)
    after = window.stack_page.stacks()[0].box("Framework")
    assert after.state is LayerState.OK
    assert after.text_label.text() == (
        "PyTorch 2.5.1+rocm6.2 in /opt/envs/a/bin/python: yes as device 0")


def test_cancel_stops_waiting_and_a_late_answer_is_ignored(
    qtbot: Any, windows: WindowFactory,
) -> None:
    collect = SlowCollector(wait_for_release=True)
    window = windows(LiveSystem(), probes=(), framework_collector=collect,
                     find_environments=lambda system, current: (
                         PythonEnv(current, "current", "here"),))
    window.select_page("frameworks")
    page = window.frameworks_page
    qtbot.waitUntil(lambda: page.environments() == [sys.executable], timeout=5000)
    try:
        page.inspect()
        assert page.progress_text() == "Inspecting 1 environment…"
        page.cancel_button.click()
        assert not page.is_inspecting and page.progress_text() is None
        assert page.status_label.text().startswith("Cancelled")
    finally:
        collect.release.set()
    qtbot.wait(300)  # the worker answers now; the page must not take it
    assert page.result_rows() == []
    assert window.diagnosis.frameworks == ()


def test_nothing_ticked_is_said_not_inspected(qtbot: Any, windows: WindowFactory) -> None:
    collect = SlowCollector(seconds=0)
    window = windows(LiveSystem(), probes=(), framework_collector=collect,
                     find_environments=lambda system, current: (
                         PythonEnv(current, "current", "here"),))
    window.select_page("frameworks")
    page = window.frameworks_page
    qtbot.waitUntil(lambda: bool(page.environments()), timeout=5000)
    page.set_checked([])
    page.inspect()
    assert collect.calls == [] and not page.is_inspecting
    assert page.status_label.text() == "Tick at least one environment to inspect."


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="torch is not installed in this interpreter")
def test_real_inspection_of_this_interpreter_finds_the_cpu_torch(
    qtbot: Any, windows: WindowFactory,
) -> None:
    """Starts this interpreter for real (about 3 s): the one test that does."""
    window = windows(LiveSystem(), probes=())
    window.select_page("frameworks")
    page = window.frameworks_page
    qtbot.waitUntil(lambda: bool(page.environments()) and not page.is_discovering,
                    timeout=10_000)
    page.set_checked([sys.executable])
    page.inspect()
    assert page.progress_text() == "Inspecting 1 environment…"
    qtbot.waitUntil(lambda: not page.is_inspecting, timeout=120_000)
    rows = [row for row in page.result_rows() if row.name == "torch"]
    assert len(rows) == 1, page.result_rows()
    torch = rows[0]
    assert torch.python == sys.executable
    assert torch.version.startswith("2.13.0")
    assert torch.build == "CPU"
    assert torch.gpu_available == "no"
    assert torch.smoke_test.startswith("ok"), torch.smoke_test
    assert torch.error == ""
    # This machine has no GPU: no verdicts, and the doctor knows the CPU build.
    assert page.verdicts()[(sys.executable, "torch")] == []
    assert any(f.id == "torch.cpu_build" for f in window.diagnosis.findings)


# ----------------------------------------------------------------------------- verdicts


AMD = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 6700 XT", kind=GpuKind.DISCRETE,
          pci_bus="0000:03:00.0", gfx_target="gfx1031", kernel_driver="amdgpu",
          seen_by=(Layer.SYSFS, Layer.KFD))
NVIDIA = Gpu(index=1, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090",
             kind=GpuKind.DISCRETE, pci_bus="0000:01:00.0", compute_capability="8.9",
             kernel_driver="nvidia", seen_by=(Layer.NVML,))


def framework_verdict(diagnosis: Diagnosis, framework: Framework,
                      gpu: Gpu) -> FrameworkVerdict:
    return engine_verdict(diagnosis.data, diagnosis.findings, framework, gpu)


def _inventory(*gpus: Gpu) -> Inventory:
    return Inventory(gpus=gpus, stack=Stack(nvidia_driver_version="550.54.14",
                                            cuda_driver_version="12.4"),
                     host=Host(os="linux"), probes=(), device_index=(),
                     origin=Origin(OriginKind.LIVE))


def test_verdicts_follow_the_build_and_the_findings() -> None:
    python = "/env/bin/python"
    cpu = Framework(name="torch", version="2.5.1+cpu", build="cpu", gpu_available=False,
                    python=python)
    cuda = Framework(name="torch", version="2.5.1+cu124", build="cuda", build_version="12.4",
                     gpu_available=True, python=python,
                     devices=(FrameworkDevice(0, compute_capability="8.9",
                                              pci_bus="00000000:01:00.0"),))
    rocm_no_kernels = rocm_torch(python, arch=("gfx1030", "gfx1100"), available=True)
    frameworks = (cpu, cuda, rocm_no_kernels)
    diagnosis = make_diagnosis(_inventory(AMD, NVIDIA), frameworks)

    verdict = framework_verdict(diagnosis, cpu, AMD)
    assert verdict.state is LayerState.BLOCKED and verdict.usable is False
    assert verdict.text == "no: a CPU-only build never uses a GPU"
    assert verdict.fix_commands[-1].startswith("/env/bin/python -m pip install torch ")
    assert "cu130" not in verdict.fix_commands[-1]  # driver 550 cannot run CUDA 13

    verdict = framework_verdict(diagnosis, cuda, AMD)
    assert verdict.state is LayerState.BLOCKED
    assert verdict.text == "no: a CUDA build cannot use AMD GPUs"
    verdict = framework_verdict(diagnosis, cuda, NVIDIA)
    assert verdict.state is LayerState.OK and verdict.text == "yes as device 0"

    verdict = framework_verdict(diagnosis, rocm_no_kernels, AMD)
    assert verdict.state is LayerState.BLOCKED
    assert verdict.text == "no: the framework has no kernels for gfx1031"
    assert verdict.fix_commands == ("export HSA_OVERRIDE_GFX_VERSION=10.3.0",)
    assert verdict.finding_ids == ("torch.arch_missing",)
    verdict = framework_verdict(diagnosis, rocm_no_kernels, NVIDIA)
    assert verdict.text == "no: a ROCm build cannot use NVIDIA GPUs"


def test_a_gpu_build_that_sees_no_gpu_is_blocked() -> None:
    torch = rocm_torch("/env/bin/python", arch=("gfx1031",), available=False)
    diagnosis = make_diagnosis(_inventory(AMD), (torch,))
    verdict = framework_verdict(diagnosis, torch, AMD)
    assert verdict.state is LayerState.BLOCKED
    assert verdict.text.startswith("no: the build sees no GPU")
    broken = Framework(name="torch", python="/env/bin/python", error="import failed")
    assert framework_verdict(diagnosis, broken, AMD).state is LayerState.UNKNOWN


def test_imported_collect_env_is_shown_without_inspecting(
    qtbot: Any, windows: WindowFactory,
) -> None:
    collect = SlowCollector(seconds=0)
    window = windows(LiveSystem(), probes=(), framework_collector=collect)
    (folder,) = (FIXTURES / "corpus").glob("015-*")
    machine = import_files(sorted(str(p) for p in folder.glob("collect_env*.txt")))
    window.show_imported(machine)
    window.select_page("frameworks")
    page = window.frameworks_page
    assert page.imported and page.env_panel.isHidden()
    assert collect.calls == []
    rows = page.result_rows()
    assert {row.version for row in rows} == {"2.10.0a0+rocm7.10.0a20251120",
                                             "2.9.0+rocmsdk20251116"}
    # One result box per pasted file, each verdict from the pasted device list.
    assert [results.python for results in page.results()] == [
        "collect_env-torch2.10-nightly.txt", "collect_env-torch2.9-rocm711.txt"]
    for verdicts in page.verdicts().values():
        assert [(v.gpu, v.usable) for v in verdicts] == [(0, True)]
    window.show_live()
    assert not page.imported and not page.env_panel.isHidden()
    assert page.result_rows() == []



# ----------------------------------------------------------------------------- one verdict


def crashing_torch(python: str) -> Framework:
    """A ROCm torch that sees the RX 7900 XTX but whose smoke test crashes."""
    return replace(rocm_torch(python), smoke_test="failed: killed by SIGSEGV")


def test_both_pages_show_the_same_verdict_for_a_failing_smoke_test(
    qtbot: Any, windows: WindowFactory, tmp_path: Path,
) -> None:
    """Acceptance (issue #10): one replay, one interpreter whose smoke test fails; the Frameworks
    page and the Stack page say the same, because both read the doctor's verdict."""
    python = "/opt/envs/rocm/bin/python"

    def collect(system: System, pythons: Sequence[str],
                timeout_s: float) -> tuple[Framework, ...]:
        return tuple(crashing_torch(p) for p in pythons)

    window = windows(ReplaySystem.from_file(FIXTURES / "snapshots" / "rx7900xtx_rocm.json"),
                     framework_collector=collect)
    qtbot.waitUntil(lambda: not window.loader.is_running, timeout=10_000)
    qtbot.waitUntil(lambda: not window.frameworks_page.is_inspecting, timeout=10_000)
    page = window.frameworks_page
    window.select_page("frameworks")
    page.set_checked([])
    page.add_interpreter(python)
    page.inspect()
    qtbot.waitUntil(lambda: not page.is_inspecting and bool(page.results()), timeout=10_000)

    (verdict,) = page.verdicts()[(python, "torch")]
    assert verdict.state is LayerState.BLOCKED and verdict.smoke.status == "failed"
    assert verdict.finding_ids == ("torch.smoke_failed",)
    assert verdict.text == "no: the smoke test failed: killed by SIGSEGV"
    (results,) = [r for r in page.results() if r.python == python]
    shown = results.verdict_labels[0].text()
    assert shown.endswith(": no: the smoke test failed: killed by SIGSEGV")

    window.select_page("stack")
    box = window.stack_page.stacks()[0].box("Framework")
    assert box.row.verdict == verdict  # the same verdict object's value: one engine
    assert box.state is verdict.state
    assert box.text_label.text() == (
        f"PyTorch 2.5.1+rocm6.2 in {python}: no: the smoke test failed: killed by SIGSEGV")
    assert box.text_label.text().endswith(shown.split(": ", 1)[1])
    assert box.fix_line is not None and box.fix_line.commands == verdict.fix_commands

    # Pictures of both pages, offscreen.
    for name, widget in (("frameworks", page), ("stack", window.stack_page)):
        window.select_page(name)
        path = tmp_path / f"{name}.png"
        assert widget.grab().save(str(path))
        assert path.stat().st_size > 10_000


def test_a_replay_without_interpreters_says_the_snapshot_holds_none(
    qtbot: Any, windows: WindowFactory,
) -> None:
    window = windows(ReplaySystem.from_file(FIXTURES / "snapshots" / "amd_kfd_no_access.json"),
                     probes=())
    window.select_page("frameworks")
    page = window.frameworks_page
    qtbot.waitUntil(lambda: "snapshot" in page.status_label.text(), timeout=5000)
    assert page.environments() == []
    assert "recorded no Python interpreter" in page.status_label.text()
    assert "add an interpreter" not in page.status_label.text()
