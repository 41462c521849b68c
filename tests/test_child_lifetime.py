"""No child outlives gpuscope (issue #13, item 6): a hung benchmark worker, a hung framework
probe (and the framework child it started), and an external program started through
`start_child` all die within 2 s of their parent's death, by kill -9, SIGTERM or SIGHUP (and
Ctrl-C). Real processes, found through /proc; every wait polls against a deadline, so a busy
2-core machine only makes them slower."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuscope.child import lifetime
from gpuscope.probes.worker_process import (
    WorkerProcess,
    children_end_first,
    end_children,
    forget,
    live_children,
    start_child,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the parent-death signal and /proc are Linux's")

REPO = Path(__file__).resolve().parent.parent
GONE_WITHIN_S = 2.0
STARTUP_DEADLINE_S = 120.0  # importing torch on a loaded machine
SIGNALS = [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP]

# ----------------------------------------------------------------------------- /proc helpers


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat after the command name: [state, ppid, pgrp, ...]; None once gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def _alive(pid: int) -> bool:
    """Running or sleeping; a zombie (dead, not yet reaped by init) is not alive."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            "utf-8", "replace")
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and fields[1] == str(pid) and fields[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def _wait_for(what: str, find: Callable[[], int | None], deadline_s: float,
              process: subprocess.Popen[bytes] | None = None) -> int:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        found = find()
        if found is not None:
            return found
        if process is not None and process.poll() is not None:
            pytest.fail(f"the parent exited ({process.returncode}) before {what} appeared")
        time.sleep(0.05)
    pytest.fail(f"{what} did not appear within {deadline_s:g} s")


def _child_running(parent: int, words: str) -> Callable[[], int | None]:
    def find() -> int | None:
        for pid in _children(parent):
            if words in _cmdline(pid):
                return pid
        return None

    return find


def _assert_gone(pids: list[int], within_s: float = GONE_WITHIN_S) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.02)
    alive = [f"{pid} ({_cmdline(pid)[:100]})" for pid in pids if _alive(pid)]
    assert not alive, f"still running {within_s:g} s after their parent's death: {alive}"


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def leftovers() -> Iterator[list[int]]:
    """Pids a failing test must not leave running."""
    pids: list[int] = []
    yield pids
    _kill_all(pids)


def _torch_mapped(pid: int) -> bool:
    try:
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:  # not allowed to read another process's maps: do not wait for it
        return True


def _hangup_by_default() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _gpuscope(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    log = (tmp_path / "gpuscope.log").open("wb")
    try:
        # As from a terminal: SIGHUP at its default even when the tests run under nohup
        # (gpuscope leaves an ignored SIGHUP ignored, on purpose).
        return subprocess.Popen([sys.executable, "-m", "gpuscope", *args], env=env, cwd=REPO,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                preexec_fn=_hangup_by_default)
    finally:
        log.close()


def _end(process: subprocess.Popen[bytes], signum: int) -> None:
    process.send_signal(signum)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
        pytest.fail(f"gpuscope did not end on {signal.Signals(signum).name}")


# ----------------------------------------------------------------------------- benchmark worker


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.parametrize("signum", [*SIGNALS, signal.SIGINT], ids=lambda s: s.name)
def test_a_hung_benchmark_worker_dies_with_gpuscope(signum: signal.Signals, tmp_path: Path,
                                                    leftovers: list[int]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUSCOPE_BENCH_")}
    env.update(GPUSCOPE_BENCH_FAULT="hang", GPUSCOPE_BENCH_SCALE="0.05",
               GPUSCOPE_DATA_DIR=str(tmp_path / "data"))
    process = _gpuscope(["bench", "--suite", "quick", "--json", "--no-save", "--python",
                         sys.executable], env, tmp_path)
    try:
        worker = _wait_for("the benchmark worker",
                           _child_running(process.pid, os.path.join("bench", "worker")),
                           STARTUP_DEADLINE_S, process)
        leftovers.append(worker)
        # The hang comes with the first benchmark, once torch is loaded.
        _wait_for("torch in the worker", lambda: worker if _torch_mapped(worker) else None,
                  STARTUP_DEADLINE_S, process)
        _end(process, signum)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    _assert_gone([worker])
    # SIGINT cancels the run (gpuscope exits 130); the others end gpuscope by that signal.
    assert process.returncode == (130 if signum == signal.SIGINT else -signum)


# ----------------------------------------------------------------------------- framework probe


@pytest.fixture(scope="module")
def hanging_torch_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter whose `import torch` never returns: the framework probe hangs in its
    child for torch, as on a GPU whose driver hangs at initialisation."""
    root = tmp_path_factory.mktemp("hanging-torch") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   capture_output=True, timeout=120)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    package = Path(purelib) / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import time\nwhile True:\n    time.sleep(3600)\n")
    return str(python)


@pytest.mark.parametrize("signum", [*SIGNALS, signal.SIGINT], ids=lambda s: s.name)
def test_a_hung_framework_probe_and_its_child_die_with_gpuscope(
        signum: signal.Signals, hanging_torch_python: str, tmp_path: Path,
        leftovers: list[int]) -> None:
    env = dict(os.environ, GPUSCOPE_DATA_DIR=str(tmp_path / "data"))
    process = _gpuscope(["doctor", "--json", "--python", hanging_torch_python], env, tmp_path)
    try:
        probe = _wait_for("the framework probe",
                          _child_running(process.pid, "framework_probe"),
                          STARTUP_DEADLINE_S, process)
        leftovers.append(probe)
        inspector = _wait_for("the probe's child for torch",
                              _child_running(probe, "--framework torch"),
                              STARTUP_DEADLINE_S, process)
        leftovers.append(inspector)
        _end(process, signum)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    _assert_gone([probe, inspector])
    assert process.returncode == (130 if signum == signal.SIGINT else -signum)


def test_a_worker_ends_with_its_group_when_its_stdin_pipe_closes(
        hanging_torch_python: str, leftovers: list[int]) -> None:
    """The watchdog that works on every system: here the parent (this test) stays alive, so
    only the closed pipe can end the probe and the child it started."""
    env = dict(os.environ, **{lifetime.PARENT_PID_ENV: str(os.getpid()),
                              lifetime.WATCH_STDIN_ENV: "1"})
    probe = subprocess.Popen(
        [hanging_torch_python, str(REPO / "gpuscope" / "probes" / "framework_probe"),
         "--no-smoke-test"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    leftovers.append(probe.pid)
    try:
        inspector = _wait_for("the probe's child for torch",
                              _child_running(probe.pid, "--framework torch"),
                              STARTUP_DEADLINE_S, probe)
        leftovers.append(inspector)
        assert _alive(probe.pid)
        assert probe.stdin is not None
        probe.stdin.close()
        probe.wait(timeout=GONE_WITHIN_S + 3)
        _assert_gone([inspector])
    finally:
        if probe.poll() is None:
            probe.kill()
        probe.wait(timeout=10)
    assert probe.returncode == -signal.SIGKILL  # the worker killed its own group


# ----------------------------------------------------------------------------- any program

_PARENT = textwrap.dedent("""
    import subprocess, sys, threading, time
    from gpuscope.child.lifetime import guarded_argv
    from gpuscope.probes.worker_process import WorkerProcess, start_child

    started = []
    def start():  # from a thread that ends at once: the children must outlive it
        started.append(start_child(["sleep", "600"], stdout=None, stderr=None))
        started.append(WorkerProcess.start(["sleep", "601"], name="stand-in").process)
    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    # What a plain subprocess call gets from guarded_argv (children of the framework probe).
    started.append(subprocess.Popen(guarded_argv(["sleep", "602"])))
    print(" ".join(str(p.pid) for p in started), flush=True)
    time.sleep(600)
""")


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_an_external_program_dies_with_its_parent(signum: signal.Signals,
                                                  leftovers: list[int]) -> None:
    """`sleep` stands in for llama-bench; the parent is any gpuscope process (no CLI, so no
    signal handlers: the parent-death signal alone does it, also for `guarded_argv`)."""
    parent = subprocess.Popen([sys.executable, "-c", _PARENT], cwd=REPO,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert parent.stdout is not None
        pids = [int(pid) for pid in parent.stdout.readline().split()]
        leftovers.extend(pids)
        assert len(pids) == 3
        for pid in pids:  # execed the program, still running after the starting thread ended
            _wait_for(f"sleep as {pid}", lambda pid=pid: pid if "sleep" in _cmdline(pid)
                      .split(" ", 1)[0] else None, 30, parent)
            assert _alive(pid)
        parent.send_signal(signum)
        parent.wait(timeout=30)
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.wait(timeout=10)
    _assert_gone(pids)


def test_the_shim_does_not_start_a_program_whose_parent_is_already_gone() -> None:
    """The race the parent check closes: the parent died before prctl ran."""
    wrong_parent = 1 if os.getpid() != 1 else 2
    result = subprocess.run(lifetime.shim_argv(["sh", "-c", "echo ran"], sys.executable,
                                               wrong_parent),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == lifetime.EXIT_PARENT_GONE
    assert "ran" not in result.stdout


def test_a_missing_or_forbidden_program_fails_as_popen_would(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        start_child([str(tmp_path / "no-such-program")])
    with pytest.raises(FileNotFoundError):
        start_child(["gpuscope-no-such-program-on-path"])
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(PermissionError):
        start_child([str(script)])
    with pytest.raises(PermissionError):
        start_child([str(tmp_path)])


def test_the_worker_process_keeps_its_exit_status_and_output() -> None:
    worker = WorkerProcess.start([sys.executable, "-c",
                                  "import sys; print('{\"type\": \"done\"}'); sys.exit(3)"])
    assert worker.wait_exit(60)
    assert worker.finish() == 3
    assert worker.reader.messages == [{"type": "done"}]
    assert worker.process not in live_children()


# ----------------------------------------------------------------------------- the registry


def test_end_children_stops_every_live_child() -> None:
    processes = [start_child(["sleep", "600"], stdout=None, stderr=None) for _ in range(2)]
    try:
        assert all(any(p is q for q in live_children()) for p in processes)
        assert end_children(processes=processes) == 2
        for process in processes:
            assert process.wait(timeout=10) == -signal.SIGTERM
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
            forget(process)
    assert not any(any(p is q for q in live_children()) for p in processes)


def test_children_end_first_installs_and_restores_the_handlers() -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)}
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup: stays ignored
    try:
        with children_end_first():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
            assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            # Ctrl-C ends the children, then interrupts as before.
            process = start_child(["sleep", "600"], stdout=None, stderr=None)
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
            assert process.wait(timeout=10) == -signal.SIGTERM
            forget(process)
            leftover = start_child(["sleep", "600"], stdout=None, stderr=None)
        # Leaving ends what was started meanwhile.
        assert leftover.wait(timeout=10) == -signal.SIGTERM
        forget(leftover)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_children_end_first_does_nothing_off_the_main_thread() -> None:
    handlers: list[object] = []

    def work() -> None:
        with children_end_first():
            handlers.append(signal.getsignal(signal.SIGTERM))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=30)
    assert handlers == [signal.getsignal(signal.SIGTERM)]


def test_the_worker_side_needs_no_gpuscope_package() -> None:
    """lifetime.py runs in the user's interpreter by path, standard library only."""
    path = Path(lifetime.__file__)
    result = subprocess.run(
        [sys.executable, "-I", "-c", "import runpy, sys; ns = runpy.run_path(sys.argv[1]); "
         "print(ns['set_parent_death_signal']())", str(path)],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"
