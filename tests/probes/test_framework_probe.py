"""The framework probe: the real script against this machine's CPU build of torch, against a
bare venv, and against fake `torch` packages that fail the ways real ones do (an import that
raises, a ROCm build whose smoke test aborts, an import that hangs); the JSON-lines reader;
and parse_framework_answer on recorded answers."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.inventory import inspect_interpreters
from gpuscope.model import Interpreter, JsonValue, ProbeState
from gpuscope.probes.framework_probe import children as probe_children
from gpuscope.probes.framework_probe import recording as probe_recording
from gpuscope.probes.frameworks import (
    PROBE_PATH,
    FrameworkProbeResult,
    JsonLineReader,
    normalise_build,
    parse_framework_answer,
    probe_python_env,
    run_probe_script,
    smoke_test_summary,
)
from gpuscope.probes.python_envs import InterpreterChoice

TESTS = Path(__file__).resolve().parents[1]
CORPUS = TESTS / "fixtures" / "corpus"
CHILD_PATH = PROBE_PATH.parent.parent / "child"
OTHERS = ("torch_directml", "onnxruntime", "jax", "tensorflow")
ALL_FRAMEWORKS = ("torch", *OTHERS)
PYENV = Path.home() / ".pyenv" / "versions"

HAS_TORCH = importlib.util.find_spec("torch") is not None


def _result(answer: dict[str, Any], name: str) -> dict[str, Any]:
    matches = [r for r in answer["results"] if r.get("name") == name]
    assert len(matches) == 1, answer["results"]
    found: dict[str, Any] = matches[0]
    return found


def _gone(pid: int) -> bool:
    """True when the process no longer runs (a zombie waiting for a reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _wait_gone(pid: int, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


# --- the real script on this machine ----------------------------------------------------


@pytest.fixture(scope="module")
def real_answer() -> dict[str, Any]:
    """One real run against this environment's torch (the CPU build, torch==2.13.0)."""
    if not HAS_TORCH:
        # The test extra installs torch==2.13.0; in CI a missing torch is a broken install.
        if os.environ.get("CI"):
            pytest.fail("torch is not installed: pip install -e '.[test]' installs torch==2.13.0")
        pytest.skip("torch is not installed in this environment (pip install torch==2.13.0)")
    started = time.monotonic()
    answer = run_probe_script(sys.executable, timeout_s=120)
    answer["_test_wall_s"] = round(time.monotonic() - started, 2)
    return answer


def test_real_torch_cpu_build_is_read_and_smoke_tested_on_the_cpu(
        real_answer: dict[str, Any]) -> None:
    assert real_answer["status"] == "ok", real_answer.get("error")
    hello = real_answer["hello"]
    assert hello["protocol"] == 1
    assert hello["python"] == sys.executable
    assert hello["python_version"] == ".".join(map(str, sys.version_info[:3]))
    assert "HSA_OVERRIDE_GFX_VERSION" in hello["env"]

    torch = _result(real_answer, "torch")
    assert torch["installed"] is True
    assert torch["version"].startswith("2.13.0")
    assert torch["build"] == "cpu"
    assert torch["build_version"] is None
    assert torch["hip_version"] is None and torch["cuda_version"] is None
    assert torch["gpu_available"] is False
    assert torch["device_count"] == 0
    assert torch["devices"] == []
    assert torch["arch_list"] == []
    assert torch["distributions"] == [{"name": "torch", "version": torch["version"]}]
    assert "error" not in torch and torch["errors"] == []
    (smoke,) = torch["smoke_tests"]
    assert smoke["device"] == "cpu"
    assert smoke["status"] == "ok", smoke
    assert smoke["returncode"] == 0 and smoke["signal"] is None
    assert "CPU" in smoke["note"]
    for name in OTHERS:
        assert _result(real_answer, name) == {"name": name, "installed": False}
    assert real_answer["_test_wall_s"] < 60


def test_real_answer_parses_to_a_cpu_framework(real_answer: dict[str, Any]) -> None:
    result = parse_framework_answer(real_answer, sys.executable)
    assert result.status.name == f"frameworks:{sys.executable}"
    assert result.status.state is ProbeState.OK
    assert result.status.reason is not None and "torch 2.13.0" in result.status.reason
    (torch,) = result.frameworks
    assert torch.name == "torch"
    assert torch.build == "cpu"
    assert torch.version is not None and torch.version.startswith("2.13.0")
    assert torch.gpu_available is False
    assert torch.devices == ()
    assert torch.smoke_test == "ok (ran on the CPU: this torch build has no GPU support)"
    assert torch.python == sys.executable
    assert torch.error is None
    assert set(result.not_installed) == set(OTHERS)
    assert result.python_version == ".".join(map(str, sys.version_info[:3]))


def test_a_recorded_answer_replays_to_the_same_result(real_answer: dict[str, Any]) -> None:
    key = f"python-env:{sys.executable}"
    snapshot = Snapshot(libraries={key: json.loads(json.dumps(real_answer))})
    replayed = probe_python_env(ReplaySystem(snapshot), sys.executable)
    assert replayed == parse_framework_answer(real_answer, sys.executable)

    missing = probe_python_env(ReplaySystem(Snapshot()), sys.executable)
    assert missing.status.state is ProbeState.NOT_CAPTURED
    assert missing.frameworks == ()
    assert "not captured" in (missing.status.reason or "")


# --- a bare venv and fake frameworks ------------------------------------------------------


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An interpreter with no framework at all."""
    root = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   capture_output=True, timeout=120)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    assert python.exists()
    return str(python)


def test_a_bare_venv_has_no_framework(bare_python: str) -> None:
    answer = run_probe_script(bare_python, timeout_s=30)
    assert answer["status"] == "ok"
    assert answer["hello"]["python"] == bare_python
    assert [r["name"] for r in answer["results"]] == list(ALL_FRAMEWORKS)
    assert all(r["installed"] is False for r in answer["results"])
    result = parse_framework_answer(answer, bare_python)
    assert result.status.state is ProbeState.OK
    assert result.frameworks == ()
    assert result.not_installed == ALL_FRAMEWORKS
    assert result.status.reason == "no framework installed"


def test_probe_python_env_records_the_answer_under_the_interpreter(bare_python: str) -> None:
    recorder = RecordingSystem(LiveSystem())
    result = probe_python_env(recorder, bare_python, timeout_s=30)
    assert isinstance(result, FrameworkProbeResult)
    assert result.status.state is ProbeState.OK
    stored = recorder.snapshot.libraries[f"python-env:{bare_python}"]
    assert parse_framework_answer(stored, bare_python) == result


def _fake_torch(root: Path, source: str) -> dict[str, str]:
    package = root / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(source))
    return {**os.environ, "PYTHONPATH": str(root)}


FAKE_ROCM_TORCH = '''
    import os, sys

    if sys.argv and sys.argv[0] == "-c":  # the smoke-test child
        override = os.environ.get("HSA_OVERRIDE_GFX_VERSION")
        sys.stderr.write("HSA_OVERRIDE_GFX_VERSION=%s\\n" % override)
        if os.environ.get("FAKE_TORCH_SMOKE") == "hip_error":
            raise RuntimeError(
                "HIP error: invalid device function\\n"
                "HIP kernel errors might be asynchronously reported at some other API call, "
                "so the stacktrace below might be incorrect.\\n"
                "For debugging consider passing AMD_SERIALIZE_KERNEL=3")
        sys.stderr.write(
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\\n")
        sys.stderr.flush()
        os.abort()

    __version__ = "2.3.1+rocm6.0"

    class version:
        hip = "6.0.32830-d62f6a171"
        cuda = None

    class _Props:
        name = "AMD Radeon RX 6700 XT"
        gcnArchName = os.environ.get("FAKE_TORCH_GCN", "gfx1031")
        major, minor = 10, 3
        total_memory = 12868124672
        multi_processor_count = 20
        pci_domain_id, pci_bus_id, pci_device_id = 0, 3, 0

    class _Device:
        def __init__(self, index): self.index = index
        def __enter__(self): return self
        def __exit__(self, *exc): return False

    class cuda:
        is_available = staticmethod(lambda: True)
        device_count = staticmethod(lambda: 1)
        get_arch_list = staticmethod(
            lambda: ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"])
        get_device_properties = staticmethod(lambda index: _Props())
        device = _Device
        is_bf16_supported = staticmethod(lambda including_emulation=True: True)

    class backends:
        class cudnn:
            is_available = staticmethod(lambda: True)
            version = staticmethod(lambda: 3001000)
            allow_tf32 = True

        class cuda:
            class matmul:
                allow_tf32 = False
            flash_sdp_enabled = staticmethod(lambda: True)
            mem_efficient_sdp_enabled = staticmethod(lambda: True)
            math_sdp_enabled = staticmethod(lambda: True)

    def get_float32_matmul_precision():
        return "highest"
'''


def test_a_torch_import_that_raises_is_reported_not_crashed(
        bare_python: str, tmp_path: Path) -> None:
    env = _fake_torch(tmp_path, '''
        import warnings
        warnings.warn("CUDA initialization: The NVIDIA driver on your system is too old "
                      "(found version 11040)")
        raise ImportError(
            "libamdhip64.so.6: cannot open shared object file: No such file or directory")
    ''')
    answer = run_probe_script(bare_python, timeout_s=30, env=env)
    assert answer["status"] == "ok"
    torch = _result(answer, "torch")
    assert torch["installed"] is True
    assert torch["error"] == ("ImportError: libamdhip64.so.6: cannot open shared object file: "
                              "No such file or directory")
    assert "Traceback" in torch["stderr_tail"]
    assert torch["warnings"] == ["UserWarning: CUDA initialization: The NVIDIA driver on your "
                                 "system is too old (found version 11040)"]
    (framework,) = parse_framework_answer(answer, bare_python).frameworks
    assert framework.error is not None and framework.error.startswith("ImportError: libamdhip64")
    assert framework.smoke_test is None
    assert framework.evidence[0].text == framework.error


def test_a_rocm_build_whose_smoke_test_aborts(bare_python: str, tmp_path: Path) -> None:
    env = _fake_torch(tmp_path, FAKE_ROCM_TORCH)
    env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    answer = run_probe_script(bare_python, timeout_s=60, env=env)
    assert answer["status"] == "ok", answer.get("error")
    assert answer["hello"]["env"]["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"

    torch = _result(answer, "torch")
    assert "error" not in torch, torch
    assert torch["errors"] == [] and torch["warnings"] == []
    assert torch["build"] == "rocm"
    assert torch["math_library"] == {"name": "MIOpen", "version_int": 3001000,
                                     "version": "3.1.0"}
    (device,) = torch["devices"]
    assert device["gcn_arch_name"] == "gfx1031"
    (smoke,) = torch["smoke_tests"]
    assert smoke["device"] == "cuda:0"
    assert smoke["status"] == "failed"
    assert smoke["signal"] == "SIGABRT"
    assert smoke["reason"] == ("killed by SIGABRT (hipErrorNoBinaryForGpu: Unable to find code "
                               "object for all current devices!)")
    # The environment reached the grandchild too.
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in smoke["stderr_tail"]

    result = parse_framework_answer(answer, bare_python)
    (framework,) = result.frameworks
    assert framework.build == "rocm"
    assert framework.version == "2.3.1+rocm6.0"
    assert framework.build_version == "6.0.32830-d62f6a171"
    assert framework.gpu_available is True
    assert "gfx1030" in framework.arch_list and "gfx1031" not in framework.arch_list
    assert framework.math_library_version == "MIOpen 3.1.0"
    assert framework.sdpa_backends == ("flash", "mem_efficient", "math")
    (gpu,) = framework.devices
    assert (gpu.index, gpu.name, gpu.arch) == (0, "AMD Radeon RX 6700 XT", "gfx1031")
    assert gpu.compute_capability == "10.3"
    assert gpu.total_memory_bytes == 12868124672
    assert gpu.pci_bus == "0000:03:00.0"
    assert (gpu.fp16, gpu.bf16, gpu.tf32) == (True, True, None)
    assert framework.smoke_test is not None
    assert framework.smoke_test.startswith("failed: killed by SIGABRT (hipErrorNoBinaryForGpu")
    assert any("hipErrorNoBinaryForGpu" in (e.text or "") for e in framework.evidence)
    assert result.environment["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"


def test_a_rocm_smoke_test_that_raises_names_the_hip_error(
        bare_python: str, tmp_path: Path) -> None:
    env = _fake_torch(tmp_path, FAKE_ROCM_TORCH)
    env.update(FAKE_TORCH_SMOKE="hip_error", FAKE_TORCH_GCN="gfx90a:sramecc+:xnack-")
    answer = run_probe_script(bare_python, timeout_s=60, env=env)
    torch = _result(answer, "torch")
    (device,) = torch["devices"]
    assert device["gcn_arch_name"] == "gfx90a:sramecc+:xnack-"  # raw string kept
    assert device["arch"] == "gfx90a"
    (smoke,) = torch["smoke_tests"]
    assert smoke["status"] == "failed"
    assert smoke["signal"] is None and smoke["returncode"] == 1
    assert smoke["reason"] == "RuntimeError: HIP error: invalid device function"
    (framework,) = parse_framework_answer(answer, bare_python).frameworks
    assert framework.smoke_test == "failed: RuntimeError: HIP error: invalid device function"
    assert framework.devices[0].arch == "gfx90a"


HANGING_TORCH = '''
    import os, time
    with open(os.environ["FAKE_TORCH_PIDFILE"], "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(600)
'''


def test_a_hanging_import_costs_only_that_framework(bare_python: str, tmp_path: Path) -> None:
    env = _fake_torch(tmp_path / "fake", HANGING_TORCH)
    env["FAKE_TORCH_PIDFILE"] = str(tmp_path / "pid")
    started = time.monotonic()
    answer = run_probe_script(bare_python, timeout_s=30, script_timeout_s=3, env=env)
    elapsed = time.monotonic() - started
    assert answer["status"] == "ok"
    assert elapsed < 15
    torch = _result(answer, "torch")
    assert torch["timed_out"] is True
    assert "timed out after" in torch["error"]
    assert _result(answer, "jax") == {"name": "jax", "installed": False}
    assert _wait_gone(int((tmp_path / "pid").read_text()))
    (framework,) = parse_framework_answer(answer, bare_python).frameworks
    assert framework.error is not None and "timed out" in framework.error


def test_the_runner_timeout_kills_the_whole_probe(bare_python: str, tmp_path: Path) -> None:
    env = _fake_torch(tmp_path / "fake", HANGING_TORCH)
    env["FAKE_TORCH_PIDFILE"] = str(tmp_path / "pid")
    started = time.monotonic()
    answer = run_probe_script(bare_python, timeout_s=3, script_timeout_s=120, env=env)
    elapsed = time.monotonic() - started
    assert answer["status"] == "timeout"
    assert 3 <= elapsed < 8
    assert answer["hello"]["protocol"] == 1  # what arrived before the kill is kept
    # The framework child (a grandchild of the runner) was killed with the process group.
    assert _wait_gone(int((tmp_path / "pid").read_text()))
    result = parse_framework_answer(answer, bare_python)
    assert result.status.state is ProbeState.TIMEOUT
    assert "did not finish within 3 s" in (result.status.reason or "")
    assert result.status.hint is not None


def test_a_missing_interpreter_is_library_missing(tmp_path: Path) -> None:
    python = str(tmp_path / "nowhere" / "bin" / "python")
    answer = run_probe_script(python, timeout_s=5)
    assert answer["status"] == "library_missing"
    result = parse_framework_answer(answer, python)
    assert result.status.state is ProbeState.LIBRARY_MISSING
    assert result.status.reason == f"Python interpreter not found: {python}"


@pytest.mark.skipif(not (PYENV / "2.7.18" / "bin" / "python").exists(),
                    reason="no Python 2.7 interpreter here")
def test_a_python_too_old_for_the_script_is_an_error_with_the_reason() -> None:
    python = str(PYENV / "2.7.18" / "bin" / "python")
    answer = run_probe_script(python, timeout_s=10)
    result = parse_framework_answer(answer, python)
    assert result.status.state is ProbeState.ERROR
    assert "needs Python 3.9 or newer" in (result.status.reason or "")
    assert "SyntaxError" in (result.status.reason or "")


@pytest.mark.skipif(not (PYENV / "3.9.18" / "bin" / "python").exists(),
                    reason="no Python 3.9 interpreter here")
def test_the_script_runs_on_python_3_9(tmp_path: Path) -> None:
    python = str(PYENV / "3.9.18" / "bin" / "python")
    env = _fake_torch(tmp_path, FAKE_ROCM_TORCH)
    answer = run_probe_script(python, timeout_s=30, smoke_test=False, env=env)
    assert answer["status"] == "ok", answer.get("error")
    assert answer["hello"]["python_version"].startswith("3.9.")
    torch = _result(answer, "torch")
    assert torch["build"] == "rocm" and torch["devices"][0]["arch"] == "gfx1031"
    assert "smoke_tests" not in torch


# --- the script's text and packaging ------------------------------------------------------


@pytest.mark.parametrize("path", sorted([*PROBE_PATH.glob("*.py"), *CHILD_PATH.glob("*.py")]),
                         ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_script_is_python_3_9_syntax_and_stdlib_only(path: Path) -> None:
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
    assert "gpuscope" not in imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    assert not any(isinstance(node, ast.Match) for node in ast.walk(tree))


def test_the_script_is_a_runnable_package_folder() -> None:
    assert PROBE_PATH.is_dir() and (PROBE_PATH / "__main__.py").is_file()
    assert PROBE_PATH.parent.name == "probes"  # the package gpuscope.probes.framework_probe
    assert (PROBE_PATH / "__init__.py").is_file()


def test_the_script_does_not_let_gpuscope_modules_shadow_packages(
        bare_python: str, tmp_path: Path) -> None:
    # gpuscope/probes holds amdsmi.py and nvml.py; torch on ROCm imports the real amdsmi.
    env = _fake_torch(tmp_path, '''
        import importlib.util
        spec = importlib.util.find_spec("amdsmi")
        raise ImportError("amdsmi resolved to %s" % (spec.origin if spec else None))
    ''')
    torch = _result(run_probe_script(bare_python, timeout_s=30, env=env), "torch")
    assert torch["error"] == "ImportError: amdsmi resolved to None"


# --- the JSON-lines reader ------------------------------------------------------------------


def test_garbage_and_partial_lines_around_the_messages(tmp_path: Path) -> None:
    fake = tmp_path / "chatty_probe.py"
    fake.write_text(textwrap.dedent('''
        import json, sys, time
        def send(text):
            sys.stdout.write(text)
            sys.stdout.flush()
        send(json.dumps({"type": "hello", "protocol": 1, "python": sys.executable}) + "\\n")
        send("Loading CUDA libraries... done\\n")
        send("{not json\\n[1, 2]\\n\\n")
        line = json.dumps({"type": "result", "framework": {"name": "torch", "installed": True,
                                                          "version": "2.5.1+cu124",
                                                          "build": "cuda"}})
        send(line[:17])  # the line arrives in two pieces
        time.sleep(0.3)
        send(line[17:] + "\\n")
        send(json.dumps({"type": "done"}) + "\\n")
        send('{"type": "resu')  # cut off: no newline, not JSON
    '''))
    answer = run_probe_script(sys.executable, timeout_s=20, script=fake)
    assert answer["status"] == "ok", answer
    assert answer["results"] == [{"name": "torch", "installed": True, "version": "2.5.1+cu124",
                                  "build": "cuda"}]
    assert answer["log_lines"] == ["Loading CUDA libraries... done", "{not json", "[1, 2]",
                                   '{"type": "resu']


def test_a_done_line_without_its_newline_still_counts(tmp_path: Path) -> None:
    fake = tmp_path / "terse_probe.py"
    fake.write_text('import sys\nsys.stdout.write(\'{"type": "hello", "protocol": 1}\\n'
                    '{"type": "done"}\')\n')
    answer = run_probe_script(sys.executable, timeout_s=20, script=fake)
    assert answer["status"] == "ok"


def test_a_probe_that_dies_before_done_is_an_error_with_stderr(tmp_path: Path) -> None:
    fake = tmp_path / "dying_probe.py"
    fake.write_text('import os, sys\nprint(\'{"type": "hello", "protocol": 1}\', flush=True)\n'
                    'sys.stderr.write("Fatal Python error: Segmentation fault\\n")\n'
                    'sys.stderr.flush()\nos.abort()\n')
    answer = run_probe_script(sys.executable, timeout_s=20, script=fake)
    assert answer["status"] == "error"
    assert answer["signal"] == "SIGABRT"
    assert answer["error"] == ("the framework probe ended before it was done (SIGABRT): "
                               "Fatal Python error: Segmentation fault")


@pytest.mark.skipif(os.name == "nt", reason="process groups are POSIX")
def test_stragglers_are_swept_after_a_normal_exit(tmp_path: Path) -> None:
    fake = tmp_path / "leaky_probe.py"
    pidfile = tmp_path / "straggler"
    fake.write_text(textwrap.dedent(f'''
        import subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pidfile)!r}, "w").write(str(child.pid))
        print('{{"type": "hello", "protocol": 1}}')
        print('{{"type": "done"}}')
    '''))
    started = time.monotonic()
    answer = run_probe_script(sys.executable, timeout_s=20, script=fake)
    assert answer["status"] == "ok"
    assert time.monotonic() - started < 10
    assert _wait_gone(int(pidfile.read_text()))


def test_a_newer_protocol_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "future_probe.py"
    fake.write_text('print(\'{"type": "hello", "protocol": 2}\')\nprint(\'{"type": "done"}\')\n')
    answer = run_probe_script(sys.executable, timeout_s=20, script=fake)
    assert answer["status"] == "error"
    assert "protocol 2" in answer["error"]


MESSAGES = [
    {"type": "hello", "protocol": 1, "python": "/usr/bin/python3"},
    {"type": "result", "framework": {"name": "jax", "installed": False}},
    {"type": "result", "framework": {"name": "torch", "note": "ünïcode ✓"}},
    {"type": "done"},
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_reader_gives_the_same_messages_however_the_stream_is_cut(cuts: list[int]) -> None:
    stream = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\nnoise line\n"
                      for m in MESSAGES)
    reader = JsonLineReader()
    points = sorted({min(c, len(stream)) for c in cuts})
    start = 0
    for point in [*points, len(stream)]:
        reader.feed(stream[start:point])
        start = point
    reader.close()
    assert reader.messages == MESSAGES
    assert list(reader.log_lines) == ["noise line"] * len(MESSAGES)


# --- the script's pure pieces --------------------------------------------------------------


def test_key_error_line_on_a_real_hip_error() -> None:
    text = (CORPUS / "035-rx6700xt-gfx1031-invalid-device-function" / "torch-error.txt")
    assert probe_children.key_error_line(text.read_text()) == (
        "RuntimeError: HIP error: invalid device function")


def test_key_error_line_prefers_the_last_traceback_and_known_failures() -> None:
    chained = textwrap.dedent('''\
        Traceback (most recent call last):
          File "<string>", line 3, in <module>
        KeyError: 'x'

        During handling of the above exception, another exception occurred:

        Traceback (most recent call last):
          File "<string>", line 5, in <module>
        torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device
        CUDA kernel errors might be asynchronously reported at some other API call.
    ''')
    assert probe_children.key_error_line(chained) == (
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on "
        "the device")
    rocblas = ("\nrocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
               "No such file or directory for GPU arch : gfx1103\n List of available "
               "TensileLibrary Files : \n")
    assert probe_children.key_error_line(rocblas) == (
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such "
        "file or directory for GPU arch : gfx1103")
    assert probe_children.key_error_line("  \n") is None
    assert probe_children.key_error_line("just a line\nlast line\n") == "last line"


def test_library_version_encodings() -> None:
    assert probe_recording.cudnn_version_string(90100) == "9.1.0"
    assert probe_recording.cudnn_version_string(91002) == "9.10.2"
    assert probe_recording.cudnn_version_string(8902) == "8.9.2"
    assert probe_recording.miopen_version_string(3004000) == "3.4.0"
    assert probe_recording.miopen_version_string(2020000) == "2.20.0"
    assert probe_recording.pci_bus(0, 0xC1, 0) == "0000:c1:00.0"
    assert probe_recording.pci_bus(None, None, 0) is None


# --- parse_framework_answer on recorded answers ----------------------------------------------

HELLO = {"type": "hello", "protocol": 1, "python": "/home/ada/miniconda3/envs/rocm/bin/python",
         "python_version": "3.11.9", "env": {"HSA_OVERRIDE_GFX_VERSION": None,
                                               "HIP_VISIBLE_DEVICES": "0"}}

ROCM_GFX1031: dict[str, Any] = {
    "status": "ok", "hello": HELLO, "stderr_tail": "",
    "results": [
        {"name": "torch_directml", "installed": False},
        {"name": "torch", "installed": True, "version": "2.5.1+rocm6.2",
         "distributions": [{"name": "torch", "version": "2.5.1+rocm6.2"}],
         "hip_version": "6.2.41133-dd7f95766", "cuda_version": None, "build": "rocm",
         "build_version": "6.2.41133-dd7f95766", "gpu_available": True, "device_count": 1,
         "arch_list": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100", "gfx942"],
         "math_library": {"name": "MIOpen", "version_int": 3002000, "version": "3.2.0"},
         "sdpa": {"flash": True, "mem_efficient": True, "math": True, "cudnn": False},
         "sdpa_backends": ["flash", "mem_efficient", "math"],
         "devices": [{"index": 0, "name": "AMD Radeon RX 6700 XT",
                      "gcn_arch_name": "gfx1031", "arch": "gfx1031",
                      "compute_capability": "10.3", "total_memory_bytes": 12868124672,
                      "multi_processor_count": 20, "pci_domain_id": 0, "pci_bus_id": 3,
                      "pci_device_id": 0, "pci_bus": "0000:03:00.0", "fp16": True,
                      "bf16": True, "tf32": False}],
         "smoke_tests": [{"device": "cuda:0", "status": "failed", "returncode": 1,
                          "signal": None,
                          "reason": "RuntimeError: HIP error: invalid device function",
                          "key_line": "RuntimeError: HIP error: invalid device function"}],
         "errors": [], "warnings": []},
        {"name": "onnxruntime", "installed": True, "version": "1.22.2",
         "providers": ["MIGraphXExecutionProvider", "ROCMExecutionProvider",
                       "CPUExecutionProvider"], "build": "rocm"},
        {"name": "jax", "installed": False},
        {"name": "tensorflow", "installed": False},
    ],
}

CUDA_H100: dict[str, Any] = {
    "status": "ok", "hello": {**HELLO, "python": "/opt/venv/bin/python"},
    "results": [
        {"name": "tensorflow", "installed": True, "version": "2.18.0", "build": "cuda",
         "build_version": "12.5.1", "math_library": {"name": "cuDNN", "version": "9"},
         "arch_list": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"],
         "gpu_available": True, "devices": [{"index": 0, "tf_name": "/physical_device:GPU:0",
                                             "name": "NVIDIA H100 80GB HBM3",
                                             "compute_capability": "9.0", "arch": "sm_90"}]},
        {"name": "torch", "installed": True, "version": "2.7.1+cu126", "build": "cuda",
         "build_version": "12.6", "gpu_available": True,
         "arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"],
         "math_library": {"name": "cuDNN", "version_int": 90501, "version": "9.5.1"},
         "sdpa_backends": ["flash", "mem_efficient", "math", "cudnn"],
         "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "arch": "sm_90",
                      "compute_capability": "9.0", "total_memory_bytes": 85029158912,
                      "pci_bus": "0000:1B:00.0", "fp16": True, "bf16": True, "tf32": True},
                     {"index": 1, "name": "NVIDIA H100 80GB HBM3", "arch": "sm_90",
                      "compute_capability": "9.0", "total_memory_bytes": 85029158912,
                      "pci_bus": "0000:2a:00.0", "fp16": True, "bf16": True, "tf32": True}],
         "smoke_tests": [{"device": "cuda:0", "status": "ok"},
                         {"device": "cuda:1", "status": "failed",
                          "reason": "timed out after 50 s (the smoke test was killed)"}]},
    ],
}


def test_parse_a_rocm_build_on_a_gfx1031_card() -> None:
    python = "/home/ada/miniconda3/envs/rocm/bin/python"
    result = parse_framework_answer(ROCM_GFX1031, python)
    assert result.status.state is ProbeState.OK
    assert result.status.reason == ("torch 2.5.1+rocm6.2 (rocm), onnxruntime 1.22.2 (rocm)")
    torch, ort = result.frameworks
    assert torch.name == "torch" and ort.name == "onnxruntime"
    assert torch.build == "rocm" and torch.build_version == "6.2.41133-dd7f95766"
    assert torch.arch_list == ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100",
                               "gfx942")
    assert torch.devices[0].arch == "gfx1031"
    assert torch.devices[0].arch not in torch.arch_list  # the doctor's "arch missing" case
    assert torch.math_library_version == "MIOpen 3.2.0"
    assert torch.smoke_test == "failed: RuntimeError: HIP error: invalid device function"
    assert torch.evidence[0].source == f"framework probe of {python}: smoke test on cuda:0"
    assert torch.python_version == "3.11.9"
    assert ort.providers == ("MIGraphXExecutionProvider", "ROCMExecutionProvider",
                             "CPUExecutionProvider")
    assert result.not_installed == ("torch_directml", "jax", "tensorflow")
    assert result.environment == {"HSA_OVERRIDE_GFX_VERSION": None, "HIP_VISIBLE_DEVICES": "0"}
    assert result.executable == python


def test_parse_a_cuda_build_with_two_gpus() -> None:
    result = parse_framework_answer(CUDA_H100, "/opt/venv/bin/python")
    torch, tf = result.frameworks  # listed in the canonical order, not arrival order
    assert (torch.name, tf.name) == ("torch", "tensorflow")
    assert torch.build == "cuda" and torch.build_version == "12.6"
    assert torch.math_library_version == "cuDNN 9.5.1"
    assert [d.pci_bus for d in torch.devices] == ["0000:1b:00.0", "0000:2a:00.0"]
    assert all(d.tf32 and d.bf16 and d.arch == "sm_90" for d in torch.devices)
    assert torch.sdpa_backends == ("flash", "mem_efficient", "math", "cudnn")
    assert torch.smoke_test == "failed: cuda:1: timed out after 50 s (the smoke test was killed)"
    assert tf.math_library_version == "cuDNN 9"
    assert tf.devices[0].compute_capability == "9.0"
    assert tf.devices[0].total_memory_bytes is None


def test_parse_a_cpu_build_and_the_absent_cases() -> None:
    cpu = {"status": "ok", "hello": HELLO, "results": [
        {"name": "torch", "installed": True, "version": "2.6.0+cpu", "build": "cpu",
         "gpu_available": False, "devices": [],
         "smoke_tests": [{"device": "cpu", "status": "ok",
                          "note": "ran on the CPU: this torch build has no GPU support"}]}]}
    (torch,) = parse_framework_answer(cpu, "/usr/bin/python3").frameworks
    assert torch.build == "cpu" and torch.gpu_available is False
    assert torch.smoke_test == "ok (ran on the CPU: this torch build has no GPU support)"

    not_captured = parse_framework_answer(
        {"status": "not_captured", "error": "this snapshot holds no answer from this library"},
        "/usr/bin/python3")
    assert not_captured.status.state is ProbeState.NOT_CAPTURED
    assert not_captured.status.reason == (
        "frameworks of /usr/bin/python3 not captured in this snapshot")

    for malformed in (None, [], "ok", 3, {"status": "ok", "results": "torch"},
                      {"status": "weird", "results": [{"name": 3}, "x", {"installed": True}]}):
        result = parse_framework_answer(malformed, "/usr/bin/python3")
        assert result.frameworks == ()
    assert parse_framework_answer([], "p").status.state is ProbeState.ERROR
    weird = parse_framework_answer({"status": "weird", "error": "boom"}, "p")
    assert weird.status.state is ProbeState.ERROR
    assert weird.status.reason == "unexpected status 'weird': boom"


def test_parse_keeps_what_it_can_from_junk_fields() -> None:
    answer = {"status": "ok", "results": [{
        "name": "torch", "version": 2, "build": "ROCm6.2", "gpu_available": "yes",
        "arch_list": ["gfx90a", 3, None, ""], "devices": [
            {"index": "0", "name": 5, "gcn_arch_name": "gfx942:sramecc+:xnack-",
             "total_memory_bytes": -1, "fp16": 1},
            "not a device"],
        "smoke_tests": [{"status": "failed"}, "x"], "math_library": {"version": 3}}]}
    (torch,) = parse_framework_answer(answer, "p").frameworks
    assert torch.version is None
    assert torch.build == "rocm"
    assert torch.gpu_available is None
    assert torch.arch_list == ("gfx90a",)
    (device,) = torch.devices
    assert (device.index, device.name, device.arch) == (0, None, "gfx942")
    assert device.total_memory_bytes is None and device.fp16 is None
    assert torch.smoke_test == "failed: failed"
    assert torch.math_library_version is None


def test_normalise_build_vocabulary() -> None:
    cases = {"rocm": "rocm", "ROCm": "rocm", "hip": "rocm", "cuda": "cuda", "cu126": "cuda",
             "cpu": "cpu", "xpu": "xpu", "mps": "mps", "METAL": "mps", "directml": "directml",
             "dml": "directml", "tpu": "unknown", None: "unknown", 3: "unknown", "": "unknown"}
    for raw, build in cases.items():
        assert normalise_build(raw) == build, raw


def test_smoke_test_summary() -> None:
    assert smoke_test_summary(None) is None
    assert smoke_test_summary([]) is None
    assert smoke_test_summary([{"status": "ok"}, {"status": "ok"}]) == "ok"
    assert smoke_test_summary([{"device": "cuda:0", "status": "ok"},
                               {"device": "cuda:1", "status": "failed", "reason": "boom"},
                               {"device": "cuda:2", "status": "failed"}]) == (
        "failed: cuda:1: boom; cuda:2: failed")


def test_a_smoke_test_the_budget_cut_short_is_unfinished_not_failed() -> None:
    cut = {"device": "cuda:0", "status": "unfinished",
           "reason": "did not finish in the 4 s the inspection had left (not a sign of a hang)"}
    assert smoke_test_summary([cut]) == (
        "unfinished: did not finish in the 4 s the inspection had left (not a sign of a hang)")
    # A real failure on another device outweighs it.
    boom = {"device": "cuda:1", "status": "failed", "reason": "boom"}
    assert smoke_test_summary([cut, boom]) == "failed: cuda:1: boom"
    # Captures from before the probe said so recorded a budget kill as a failure: read again.
    old = {"device": "cuda:0", "status": "failed", "returncode": -9,
           "reason": "timed out after 4 s (the smoke test was killed)"}
    assert smoke_test_summary([old]) == (
        "unfinished: did not finish in the 4 s the inspection had left (not a sign of a hang)")
    # Killed after SMOKE_HANG_S or more, it is a hang.
    hung = {**old, "reason": "timed out after 50 s (the smoke test was killed)"}
    assert smoke_test_summary([hung]) == "failed: timed out after 50 s (the smoke test was killed)"


json_values: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)
field_names = st.sampled_from([
    "name", "installed", "version", "build", "build_version", "gpu_available", "arch_list",
    "devices", "math_library", "sdpa_backends", "providers", "smoke_tests", "error",
    "distributions", "index", "arch", "gcn_arch_name", "total_memory_bytes", "pci_bus", "fp16",
    "status", "reason", "device", "note", "version_int"])
structured: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(field_names, children, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_parse_never_raises_on_any_json(answer: JsonValue) -> None:
    result = parse_framework_answer(answer, "/usr/bin/python3")
    assert isinstance(result, FrameworkProbeResult)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["ok", "error", "timeout", "not_captured", "library_missing", "x"]),
       st.lists(structured, max_size=4), json_values)
def test_parse_never_raises_on_answers_shaped_like_the_real_ones(
        status: str, results: list[JsonValue], hello: JsonValue) -> None:
    answer: JsonValue = {"status": status, "hello": hello, "results": results}
    result = parse_framework_answer(answer, "/usr/bin/python3")
    for framework in result.frameworks:
        assert framework.build in ("rocm", "cuda", "cpu", "xpu", "mps", "directml", "unknown")


# --- inspecting several interpreters at once (inventory.inspect_interpreters) ---------------


def _hanging_python(folder: Path) -> tuple[str, Path]:
    """An 'interpreter' that never answers: it notes its pid and sleeps a minute."""
    python = folder / "bin" / "python"
    python.parent.mkdir(parents=True)
    pidfile = folder / "pid"
    python.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 60\n")
    python.chmod(0o755)
    return str(python), pidfile


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell script stands for the interpreter")
def test_inspection_runs_all_at_once_bounded_and_kills_what_is_left(
    bare_python: str, tmp_path: Path,
) -> None:
    hanging, pidfile = _hanging_python(tmp_path / "hang")
    arrived: list[str] = []
    started = time.monotonic()
    inspection = inspect_interpreters(
        LiveSystem(), [InterpreterChoice(hanging, "python3 on PATH"),
                       InterpreterChoice(bare_python, "VIRTUAL_ENV")],
        budget_s=3, on_answer=lambda answer: arrived.append(answer.choice.python))
    elapsed = time.monotonic() - started
    assert elapsed < 6, elapsed  # the one-minute sleeper was not waited for
    assert arrived == [bare_python, hanging]  # each as it came, the quick one first
    hung, bare = inspection.interpreters  # in the order chosen
    assert (hung.python, hung.why, hung.inspected) == (hanging, "python3 on PATH", False)
    assert hung.error == "no answer within 3 s (the probe was killed)"
    assert _wait_gone(int(pidfile.read_text()))
    assert (bare.python, bare.why, bare.inspected) == (bare_python, "VIRTUAL_ENV", True)
    assert bare.executable == bare_python and bare.error is None
    assert bare.not_installed == ALL_FRAMEWORKS
    assert inspection.unusable() == []  # running out of time is an answer, not a bad path
    (reason,) = inspection.frameworks  # the interpreter that could not be inspected, and why
    assert (reason.name, reason.python) == ("python", hanging)
    assert reason.error is not None and "no answer within 3 s" in reason.error


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell script stands for the interpreter")
def test_cancel_kills_the_workers_and_returns_at_once(tmp_path: Path) -> None:
    hanging, pidfile = _hanging_python(tmp_path / "hang")
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    started = time.monotonic()
    inspection = inspect_interpreters(LiveSystem(), [InterpreterChoice(hanging, "added")],
                                      budget_s=60, cancel=cancel)
    assert time.monotonic() - started < 5
    (interpreter,) = inspection.interpreters
    assert not interpreter.inspected
    assert interpreter.error is not None and "cancelled" in interpreter.error
    assert _wait_gone(int(pidfile.read_text()))


def test_a_snapshot_records_the_inspection_and_a_replay_repeats_it(
    bare_python: str, tmp_path: Path,
) -> None:
    missing = str(tmp_path / "gone" / "bin" / "python")
    choices = [InterpreterChoice(bare_python, "VIRTUAL_ENV"),
               InterpreterChoice(missing, "added in gpuscope")]
    recorder = RecordingSystem(LiveSystem())
    live = inspect_interpreters(recorder, choices, budget_s=30)
    assert live.unusable() == [(missing, f"Python interpreter not found: {missing}")]
    saved = tmp_path / "s.json"
    recorder.snapshot.save(saved)

    replay = ReplaySystem.from_file(saved)
    replayed = inspect_interpreters(replay, choices, budget_s=30)
    assert replayed.interpreters == live.interpreters
    assert replayed.frameworks == live.frameworks
    # A replay starts nothing: an interpreter the capture did not inspect is not captured.
    other = inspect_interpreters(replay, [InterpreterChoice(sys.executable, "--python")])
    ((python, reason),) = other.unusable()
    assert python == sys.executable and "not captured in this snapshot" in reason


def test_two_paths_to_one_environment_count_once_with_both_reasons(bare_python: str) -> None:
    python3 = str(Path(bare_python).with_name("python3"))
    assert Path(python3).exists()
    inspection = inspect_interpreters(
        LiveSystem(), [InterpreterChoice(python3, "python3 on PATH"),
                       InterpreterChoice(bare_python, "python on PATH")], budget_s=30)
    (only,) = inspection.interpreters  # one prefix, one version: one environment
    assert (only.python, only.why) == (python3, "python3 on PATH, python on PATH")


def test_a_probe_result_as_the_model_interpreter() -> None:
    answer = {"status": "ok", "python": "/env/bin/python",
              "hello": {"protocol": 1, "python": "/env/bin/python3.12", "prefix": "/env",
                        "python_version": "3.12.3"},
              "results": [{"name": "torch", "installed": False},
                          {"name": "jax", "installed": False}]}
    result = parse_framework_answer(answer, "/env/bin/python")
    assert result.prefix == "/env"
    assert result.interpreter("CONDA_PREFIX") == Interpreter(
        python="/env/bin/python", inspected=True, why="CONDA_PREFIX",
        executable="/env/bin/python3.12", python_version="3.12.3",
        not_installed=("torch", "jax"))
    broken = parse_framework_answer({"status": "error", "error": "exit status 1"}, "/x")
    assert broken.interpreter() == Interpreter(python="/x", inspected=False,
                                               error="exit status 1")
