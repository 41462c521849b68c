"""Which interpreter `gpuscope bench` and the Benchmarks page run without --python: chosen from
inspection answers (fakes of the framework probe's answers, not of torch), and the one line
when none has PyTorch."""

from __future__ import annotations

import io
import json
import shlex
import subprocess

import pytest

from gpuscope.bench.command import bench_command
from gpuscope.bench.interpreter import BenchInterpreters, choose, install_line
from gpuscope.inventory import FrameworkInspection, InterpreterAnswer
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
    ProbeState,
    ProbeStatus,
    Stack,
    Vendor,
)
from gpuscope.probes.frameworks import FrameworkProbeResult
from gpuscope.probes.python_envs import InterpreterChoice

RX6700 = Gpu(index=0, vendor=Vendor.AMD, name="AMD Radeon RX 6700 XT", gfx_target="gfx1031",
             kind=GpuKind.DISCRETE, kfd_node=1, kernel_driver="amdgpu", pci_bus="0000:03:00.0",
             seen_by=(Layer.SYSFS, Layer.KFD))
RTX4090 = Gpu(index=0, vendor=Vendor.NVIDIA, name="NVIDIA GeForce RTX 4090",
              kind=GpuKind.DISCRETE, compute_capability="8.9", kernel_driver="nvidia",
              pci_bus="0000:01:00.0", seen_by=(Layer.NVML,))


def inventory(*gpus: Gpu, stack: Stack | None = None) -> Inventory:
    return Inventory(gpus=gpus, stack=stack or Stack(rocm_version="6.2.4", kfd_loaded=True),
                     host=Host(os="linux"), probes=(), device_index=(),
                     origin=Origin(OriginKind.LIVE))


def answer(python: str, why: str, torch: Framework | None) -> InterpreterAnswer:
    status = ProbeStatus(f"frameworks:{python}", ProbeState.OK)
    frameworks = (torch,) if torch is not None else ()
    missing = () if torch is not None else ("torch",)
    return InterpreterAnswer(InterpreterChoice(python, why), FrameworkProbeResult(
        status, frameworks, missing, python=python, executable=python, python_version="3.12.3"))


def torch(python: str, build: str, *, devices: int = 0, smoke: str | None = None,
          version: str | None = None) -> Framework:
    found = tuple(FrameworkDevice(i, name="AMD Radeon RX 6700 XT", arch="gfx1031")
                  for i in range(devices))
    return Framework("torch", version or f"2.5.1+{build}", build,
                     "6.2" if build == "rocm" else None, gpu_available=bool(devices),
                     devices=found, python=python, smoke_test=smoke)


OWN = "/opt/gpuscope/bin/python"
AI = "/home/me/venvs/ai/bin/python"
CPU_ENV = "/home/me/venvs/cpu/bin/python"


def test_a_gpu_build_that_can_use_the_gpu_wins_over_a_cpu_build_and_the_order() -> None:
    inspection = FrameworkInspection((
        answer(OWN, "gpuscope", None),
        answer(CPU_ENV, "python3 on PATH", torch(CPU_ENV, "cpu")),
        answer(AI, "VIRTUAL_ENV", torch(AI, "rocm", devices=1, smoke="ok")),
    ))
    pick = choose(inspection, (RX6700,))
    assert pick.python == AI and pick.uses_gpu and pick.build == "rocm"
    assert pick.reason == (f"{AI} (VIRTUAL_ENV): PyTorch 2.5.1+rocm (rocm 6.2) can use GPU 0 "
                           "(AMD Radeon RX 6700 XT, gfx1031)")
    # Asked for the CPU, the first interpreter with any torch runs it.
    pick = choose(inspection, (RX6700,), "cpu")
    assert pick.python == CPU_ENV and not pick.uses_gpu
    assert pick.reason.endswith("runs the benchmarks on the CPU")
    # A GPU index torch does not have: the GPU build cannot use it, the CPU build goes first.
    pick = choose(inspection, (RX6700,), "3")
    assert pick.python == CPU_ENV and "so the benchmarks run on the CPU" in pick.reason


def test_a_cpu_build_comes_before_a_gpu_build_that_cannot_use_the_gpu() -> None:
    failed = torch(AI, "rocm", devices=1, smoke="failed: HIP error: invalid device function")
    blind = torch(OWN, "rocm")  # sees no GPU
    inspection = FrameworkInspection((answer(OWN, "gpuscope", blind),
                                      answer(AI, "VIRTUAL_ENV", failed),
                                      answer(CPU_ENV, "python3 on PATH", torch(CPU_ENV, "cpu"))))
    pick = choose(inspection, (RX6700,))
    assert pick.python == CPU_ENV and pick.build == "cpu" and not pick.uses_gpu
    assert pick.reason == (
        f"{CPU_ENV} (python3 on PATH): PyTorch 2.5.1+cpu (cpu) is a cpu build, and no "
        "interpreter inspected has a PyTorch that can use GPU 0 (AMD Radeon RX 6700 XT, "
        "gfx1031), so the benchmarks run on the CPU")
    # Only GPU builds that cannot use it: the first is still run, and says why.
    pick = choose(FrameworkInspection(inspection.answers[:2]), (RX6700,))
    assert pick.python == OWN and "cannot use GPU 0" in pick.reason
    assert "a rocm build that sees no GPU" in pick.reason


def test_a_torch_that_could_not_be_inspected_in_time_is_tried_last() -> None:
    # On a busy machine importing torch can outlast the inspection's budget: it is there.
    slow = Framework("torch", None, error="inspecting torch: timed out after 17 s (its process "
                                          "was killed)", python=OWN)
    inspection = FrameworkInspection((answer(OWN, "gpuscope's interpreter", slow),))
    pick = choose(inspection, ())
    assert pick.python == OWN and pick.torch_version is None
    assert pick.reason == (f"{OWN} (gpuscope's interpreter): PyTorch is installed but could not "
                           "be inspected (inspecting torch: timed out after 17 s (its process was "
                           "killed)); the benchmarks try it")
    with_cpu = FrameworkInspection((*inspection.answers,
                                    answer(CPU_ENV, "python3 on PATH", torch(CPU_ENV, "cpu"))))
    assert choose(with_cpu, ()).python == CPU_ENV


def test_no_torch_anywhere_names_the_gpu_python_and_the_doctors_install_command() -> None:
    inspection = FrameworkInspection((answer(OWN, "gpuscope", None),
                                      answer(AI, "VIRTUAL_ENV", None)))
    chooser = BenchInterpreters(inventory=inventory(RX6700), inspection=inspection)
    pick = chooser.choose("auto")
    assert pick.python is None and pick.install_command is not None
    line = pick.reason
    assert "\n" not in line and "no_torch" not in line
    assert line.startswith("no interpreter inspected has PyTorch to run the benchmarks on "
                           "GPU 0 (AMD Radeon RX 6700 XT, gfx1031)")
    assert f"looked at: {OWN} (gpuscope), {AI} (VIRTUAL_ENV)" in line
    assert "--python PATH" in line
    # The doctor's command: a ROCm wheel from pytorch.org's index, into the virtualenv (the
    # doctor prefers it over gpuscope's own), as a line a shell runs.
    command = pick.install_command
    assert f"install it with: {command}, or" in line
    assert f"{AI} -m pip install" in command
    assert "--index-url https://download.pytorch.org/whl/rocm" in command
    subprocess.run(["bash", "-n", "-c", command], check=True)
    assert shlex.split(command)
    # An interpreter that did not answer in time may have PyTorch: the line says so.
    late = InterpreterAnswer(InterpreterChoice(CPU_ENV, "CONDA_PREFIX"), FrameworkProbeResult(
        ProbeStatus(f"frameworks:{CPU_ENV}", ProbeState.TIMEOUT, "timed out after 20 s"),
        python=CPU_ENV))
    pick = choose(FrameworkInspection((*inspection.answers, late)), (RX6700,), "auto", command)
    assert f"{CPU_ENV} (CONDA_PREFIX; not inspected: timed out after 20 s)" in pick.reason


def test_the_install_command_follows_the_gpu_vendor_and_falls_back_to_the_cpu_wheel() -> None:
    nvidia = install_line(inventory(RTX4090, stack=Stack(nvidia_driver_version="550.54",
                                                         cuda_driver_version="12.4")),
                          python="/srv/env/bin/python", python_version="3.11.9")
    assert nvidia.startswith("/srv/env/bin/python -m pip install")
    assert "download.pytorch.org/whl/cu" in nvidia
    cpu = install_line(inventory(), python="/srv/env/bin/python")
    assert cpu == ("/srv/env/bin/python -m pip install torch --index-url "
                   "https://download.pytorch.org/whl/cpu")
    pick = choose(FrameworkInspection((answer(OWN, "gpuscope", None),)), (), "auto", cpu)
    assert pick.reason.startswith("no interpreter inspected has PyTorch to run the benchmarks "
                                  "on the CPU (no GPU was found)")


def test_bench_exits_1_with_one_line_when_no_interpreter_has_torch(
        capsys: pytest.CaptureFixture[str]) -> None:
    chooser = BenchInterpreters(inventory=inventory(RX6700), inspection=FrameworkInspection((
        answer(OWN, "gpuscope", None),)))
    out, err = io.StringIO(), io.StringIO()
    assert bench_command(["quick"], interpreters=chooser, machine=None, stdout=out,
                         stderr=err) == 1
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and out.getvalue() == ""
    assert lines[0].startswith("gpuscope bench: no interpreter inspected has PyTorch")
    assert "--python" in lines[0] and "GPU 0 (AMD Radeon RX 6700 XT, gfx1031)" in lines[0]
    assert "pip install" in lines[0] and "no_torch" not in lines[0].split(": ", 1)[1]
    out, err = io.StringIO(), io.StringIO()
    assert bench_command(["quick"], interpreters=chooser, machine=None, as_json=True,
                         stdout=out, stderr=err) == 1
    document = json.loads(out.getvalue())
    assert document["ok"] is False and document["error"]["kind"] == "no_torch"
    assert document["error"]["message"] == lines[0].removeprefix("gpuscope bench: ")
    assert len(err.getvalue().splitlines()) == 1


def test_bench_says_which_interpreter_it_chose_on_stderr_only(
        tiny_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setenv("GPUSCOPE_BENCH_SCALE", tiny_env["GPUSCOPE_BENCH_SCALE"])
    chooser = BenchInterpreters(inventory=inventory(), inspection=FrameworkInspection((
        answer("/nowhere/python", "python3 on PATH", None),
        answer(sys.executable, "gpuscope", torch(sys.executable, "cpu")))))
    out, err = io.StringIO(), io.StringIO()
    code = bench_command(["latency.launch"], interpreters=chooser, machine=None, as_json=True,
                         save=False, stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert err.getvalue() == (f"gpuscope bench: using {sys.executable} (gpuscope): PyTorch "
                              "2.5.1+cpu (cpu) runs the benchmarks on the CPU (no GPU was "
                              "found)\n")
    document = json.loads(out.getvalue())
    assert document["python"] == sys.executable and document["ok"] is True


def test_a_named_interpreter_without_torch_gets_the_install_line(bare_python: str) -> None:
    chooser = BenchInterpreters(inventory=inventory(RX6700), inspection=FrameworkInspection())
    out, err = io.StringIO(), io.StringIO()
    code = bench_command(["latency.launch"], python=bare_python, interpreters=chooser,
                         machine=None, save=False, stdout=out, stderr=err)
    assert code == 1
    line = err.getvalue().strip()
    assert "\n" not in line
    assert line.startswith(f"gpuscope bench: {bare_python} has no PyTorch (No module named "
                           "'torch'), so nothing ran on GPU 0 (AMD Radeon RX 6700 XT, gfx1031); "
                           "install it with: ")
    # The doctor's command for a gfx1031: the override it needs, and the ROCm wheel.
    assert (f"install it with: export HSA_OVERRIDE_GFX_VERSION=10.3.0 && {bare_python} -m pip "
            "install torch --index-url https://download.pytorch.org/whl/rocm") in line
    assert line.endswith("or name an interpreter that has it with --python PATH")
    assert "Benchmarks with no torch" in out.getvalue()
    assert " on ?" not in out.getvalue() and "unknown device" not in out.getvalue()


def test_without_torch_in_gpuscopes_interpreter_another_inspected_one_runs(
        bare_python: str, tiny_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The real inspection of this machine, gpuscope's own interpreter being one without torch:
    # the interpreter added in the window (this test's, which has torch) is chosen.
    import sys

    monkeypatch.setenv("GPUSCOPE_BENCH_SCALE", tiny_env["GPUSCOPE_BENCH_SCALE"])
    # A generous budget: this machine may be busy (the CLI's is the doctor's 20 s).
    chooser = BenchInterpreters(own_python=bare_python, added=(sys.executable,), budget_s=90)
    pick = chooser.choose("auto")
    assert pick.python is not None and pick.python != bare_python
    assert pick.torch_version is not None
    imported = subprocess.run([pick.python, "-c", "import torch"], check=False, timeout=120)
    assert imported.returncode == 0
    out, err = io.StringIO(), io.StringIO()
    assert bench_command(["latency.launch"], interpreters=chooser, as_json=True, save=False,
                         machine=None, stdout=out, stderr=err) == 0, err.getvalue()
    assert err.getvalue().startswith(f"gpuscope bench: using {pick.python} (")
    assert json.loads(out.getvalue())["python"] == pick.python
