"""gpuscope's framework probe: what PyTorch, JAX, TensorFlow, ONNX Runtime and torch-directml
in *this* Python environment can do with the GPUs.

Standalone on purpose: gpuscope runs it by path with whichever interpreter the user picks, so it
uses the standard library and the frameworks only (no gpuscope import) and keeps to Python 3.9
syntax.

    python framework_probe_script.py [--timeout-s N] [--no-smoke-test] [--only torch,jax]

It prints versioned JSON lines on stdout, logs on stderr:

    {"type": "hello", "protocol": 1, "python": ..., "python_version": ..., ...}
    {"type": "progress", "framework": "torch", "stage": "started"}
    {"type": "result", "framework": {"name": "torch", "installed": true, ...}}
    {"type": "result", "framework": {"name": "jax", "installed": false}}
    {"type": "done"}

Each installed framework is inspected in a child process of its own (this script again, with
`--framework NAME`): an import that segfaults, aborts or hangs, or two frameworks that load
clashing cuDNN/ROCm libraries, then cost that framework's result only. Each child has its own
time budget (TensorFlow's import alone can take tens of seconds). The GPU smoke test is a
grandchild per device, since a missing kernel image aborts the whole process
(hipErrorNoBinaryForGpu raises SIGABRT).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import logging
import os
import platform
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from typing import IO, Any

PROTOCOL = 1

# Inspected in this order; module name == framework name.
FRAMEWORKS = ("torch", "torch_directml", "onnxruntime", "jax", "tensorflow")

# What changes which GPUs a framework sees, or how; reported in `hello`.
ENV_NAMES = (
    "HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "CUDA_DEVICE_ORDER", "HIP_PLATFORM",
    "ROCM_PATH", "ROCM_HOME", "HIP_PATH", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
    "PYTHONPATH", "PYTORCH_ROCM_ARCH", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF",
    "TORCH_BLAS_PREFER_HIPBLASLT", "JAX_PLATFORMS", "XLA_FLAGS", "XLA_PYTHON_CLIENT_PREALLOCATE",
    "TF_FORCE_GPU_ALLOW_GROWTH", "ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR",
    "CONDA_DEFAULT_ENV", "CONDA_PREFIX", "VIRTUAL_ENV",
)
ENV_PREFIXES = ("HSA_OVERRIDE_GFX_VERSION_",)

STDERR_TAIL_LINES = 30
STDERR_TAIL_CHARS = 3000
MAX_RECORDED = 20  # warnings or errors kept per framework
MARGIN_S = 1.0  # time a parent keeps for itself after a child's budget
# A smoke test killed sooner than this was cut short by the inspection's time budget, not shown
# to hang: a first CUDA or HIP context (with cuBLAS) can take seconds on a large GPU in a VM
# (an H200 needed more than the 3 s a 10 s budget left it). It is "unfinished", not "failed".
SMOKE_HANG_S = 30.0

SMOKE_OK = "GPUSCOPE_SMOKE_OK"
SMOKE_WRONG = "GPUSCOPE_SMOKE_WRONG"
SMOKE_WRONG_EXIT = 3

# The smoke test, run as `python -c SMOKE_PROGRAM KIND INDEX`. An elementwise op (PyTorch's own
# kernel) and a 256x256 matmul (the BLAS library's kernel): a GPU target missing from either
# fails here. The result is checked against the CPU, which also catches a wrong
# HSA_OVERRIDE_GFX_VERSION that runs but computes garbage.
SMOKE_PROGRAM = r"""
import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
import time
kind, index = sys.argv[1], int(sys.argv[2])
import torch
started = time.monotonic()
if kind == "directml":
    import torch_directml
    device = torch_directml.device(index)
elif kind in ("cpu", "mps"):
    device = torch.device(kind)
else:
    device = torch.device(kind, index)
generator = torch.Generator().manual_seed(0)
a = torch.randn(256, 256, generator=generator)
b = torch.randn(256, 256, generator=generator)
expected = (a * 2.0) @ b
result = (a.to(device) * 2.0) @ b.to(device)
if kind == "cuda":
    torch.cuda.synchronize(device)
elif kind == "xpu":
    torch.xpu.synchronize(device)
elif kind == "mps":
    torch.mps.synchronize()
got = result.to("cpu")
error = float((got - expected).abs().max())
scale = float(expected.abs().max())
if not error <= 1e-2 * scale + 1e-3:
    print("GPUSCOPE_SMOKE_WRONG max_abs_error=%g" % error, flush=True)
    sys.exit(3)
print("GPUSCOPE_SMOKE_OK %.3f" % (time.monotonic() - started), flush=True)
"""

# A line that names what went wrong, most telling first.
_KEY_LINE_PATTERNS = (
    re.compile(r"hipErrorNoBinaryForGpu|no kernel image is available|invalid device function"
               r"|rocBLAS error|hipBLASLt error|TensileLibrary|Cannot find Symbol"),
    re.compile(r"HIP error|CUDA error|HSA_STATUS_ERROR|hipError\w+|cudaError\w+|out of memory",
               re.IGNORECASE),
    re.compile(r"error|fatal|abort|segmentation fault|illegal instruction", re.IGNORECASE),
)

log = logging.getLogger("gpuscope.framework_probe")

_OUT: IO[str] = sys.stdout
_OUT_LOCK = threading.Lock()


# ------------------------------------------------------------------------------- output


def _claim_stdout() -> None:
    """Keep the real stdout for JSON lines and point fd 1 at stderr, so that whatever a
    framework prints (from Python or from C) lands in the log, not between our messages."""
    global _OUT
    try:
        sys.stdout.flush()
        fd = os.dup(1)
        os.dup2(2, 1)
        _OUT = os.fdopen(fd, "w", encoding="utf-8", errors="replace", newline="\n")
    except (OSError, ValueError, AttributeError):
        _OUT = sys.stdout
    sys.stdout = sys.stderr


def emit(message: dict[str, Any]) -> None:
    try:
        line = json.dumps(message, default=str)
    except (TypeError, ValueError) as exc:
        line = json.dumps({"type": "error", "error": f"cannot encode a message: {exc}"})
    with _OUT_LOCK:
        _OUT.write(line + "\n")
        _OUT.flush()


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _tail(text: str) -> str:
    lines = text.rstrip().splitlines()[-STDERR_TAIL_LINES:]
    return "\n".join(lines)[-STDERR_TAIL_CHARS:]


def key_error_line(stderr: str) -> str | None:
    """The line of a child's stderr that says what failed: the exception line of the last
    traceback, or else the first line naming a known GPU failure, or else the last line."""
    raw = stderr.splitlines()
    lines = [line.strip() for line in raw if line.strip()]
    if not lines:
        return None
    starts = [n for n, line in enumerate(raw)
              if line.strip().startswith("Traceback (most recent call last)")]
    if starts:
        # The exception line is the first unindented line after the frames.
        for line in raw[starts[-1] + 1:]:
            if line.strip() and not line[:1].isspace():
                return line.strip()[:300]
    for pattern in _KEY_LINE_PATTERNS:
        for line in lines:
            if pattern.search(line):
                return line[:300]
    return lines[-1][:300]


# ------------------------------------------------------------------------------- children


def _python_flags() -> list[str]:
    """The interpreter flags this process runs with, so that children see the same paths."""
    flags = []
    if sys.flags.isolated:
        flags.append("-I")
    else:
        if sys.flags.no_user_site:
            flags.append("-s")
        if sys.flags.ignore_environment:
            flags.append("-E")
        if getattr(sys.flags, "safe_path", False):
            flags.append("-P")
    return flags


def _signal_name(returncode: int) -> str | None:
    if returncode >= 0 or os.name == "nt":
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class ChildRun:
    def __init__(self) -> None:
        self.returncode: int | None = None
        self.stdout = ""
        self.stderr = ""
        self.timed_out = False
        self.start_error: str | None = None
        self.duration_s = 0.0


def run_child(argv: list[str], timeout_s: float, env: dict[str, str] | None = None) -> ChildRun:
    """Run a child to completion or until `timeout_s`, then kill it. Never raises."""
    run = ChildRun()
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        run.start_error = _describe(exc)
        return run
    try:
        out, err = process.communicate(timeout=max(0.1, timeout_s))
    except subprocess.TimeoutExpired:
        run.timed_out = True
        process.kill()
        try:
            out, err = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    run.returncode = process.returncode
    run.stdout = (out or b"").decode("utf-8", "replace")
    run.stderr = (err or b"").decode("utf-8", "replace")
    run.duration_s = round(time.monotonic() - started, 3)
    return run


def _failure_reason(run: ChildRun, what: str) -> str:
    if run.start_error:
        return f"could not start {what}: {run.start_error}"
    key = key_error_line(run.stderr)
    if run.timed_out:
        reason = f"timed out after {run.duration_s:.0f} s ({what} was killed)"
        return reason + (": " + key if key else "")
    signame = _signal_name(run.returncode if run.returncode is not None else 0)
    if signame:
        return f"killed by {signame}" + (f" ({key})" if key else "")
    if key:
        return key
    return f"exit status {run.returncode}"


# ------------------------------------------------------------------------------- smoke test


def run_smoke_test(kind: str, index: int, timeout_s: float, note: str | None) -> dict[str, Any]:
    device = kind if kind in ("cpu", "mps") else f"{kind}:{index}"
    argv = [sys.executable, *_python_flags(), "-c", SMOKE_PROGRAM, kind, str(index)]
    run = run_child(argv, timeout_s)
    record: dict[str, Any] = {
        "device": device, "returncode": run.returncode, "signal": None,
        "duration_s": run.duration_s, "stderr_tail": _tail(run.stderr),
    }
    if note:
        record["note"] = note
    if run.returncode is not None:
        record["signal"] = _signal_name(run.returncode)
    if (not run.timed_out and run.returncode == 0 and SMOKE_OK in run.stdout):
        record["status"] = "ok"
        return record
    if run.timed_out and timeout_s < SMOKE_HANG_S:
        record["status"] = "unfinished"
        record["reason"] = (f"did not finish in the {timeout_s:.0f} s the inspection had left "
                            "(not a sign of a hang)")
        return record
    record["status"] = "failed"
    if run.returncode == SMOKE_WRONG_EXIT and SMOKE_WRONG in run.stdout:
        detail = run.stdout.split(SMOKE_WRONG, 1)[1].strip().splitlines()[0]
        record["reason"] = f"wrong result on {device} ({detail})"
    else:
        record["reason"] = _failure_reason(run, "the smoke test")
    record["key_line"] = key_error_line(run.stderr)
    log.warning("smoke test on %s failed: %s", device, record["reason"])
    return record


def start_smoke_tests(targets: list[tuple[str, int]], deadline: float,
                      note: str | None = None) -> Callable[[], list[dict[str, Any]]]:
    """One child per device, all started now, each bounded by the deadline; the function
    returned waits for them and gives their records."""
    results: list[dict[str, Any] | None] = [None] * len(targets)

    def work(position: int, kind: str, index: int) -> None:
        timeout = max(1.0, deadline - time.monotonic())
        results[position] = run_smoke_test(kind, index, timeout, note)

    threads = [threading.Thread(target=work, args=(n, kind, index), daemon=True)
               for n, (kind, index) in enumerate(targets)]
    for thread in threads:
        thread.start()

    def finish() -> list[dict[str, Any]]:
        for thread in threads:
            thread.join()
        return [r for r in results if r is not None]

    return finish


def run_smoke_tests(targets: list[tuple[str, int]], deadline: float,
                    note: str | None = None) -> list[dict[str, Any]]:
    """One child per device, all at once, each bounded by the deadline."""
    return start_smoke_tests(targets, deadline, note)()


# ------------------------------------------------------------------------------- helpers


class _Recorder:
    """Per-call failures and warnings of one framework's inspection."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def call(self, label: str, function: Callable[..., Any], *args: Any,
             default: Any = None) -> Any:
        try:
            return function(*args)
        except Exception as exc:  # each failed call is a fact about the framework
            if len(self.errors) < MAX_RECORDED:
                self.errors.append(f"{label}: {_describe(exc)}")
            return default

    def warn(self, text: str) -> None:
        text = text.strip().splitlines()[0][:300] if text.strip() else ""
        if text and text not in self.warnings and len(self.warnings) < MAX_RECORDED:
            self.warnings.append(text)


class _LogCapture(logging.Handler):
    def __init__(self, recorder: _Recorder) -> None:
        super().__init__(logging.WARNING)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == log.name:  # the probe's own messages are not the framework's
            return
        # A bad log record must not break the probe.
        with contextlib.suppress(Exception):
            self.recorder.warn(f"{record.name}: {record.getMessage()}")


def _str(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _distributions(names: tuple[str, ...], prefix: str | None = None) -> list[dict[str, str]]:
    """Installed distributions (pip packages) among `names`, or whose name starts with
    `prefix`; read from metadata, without importing anything."""
    try:
        from importlib import metadata
    except ImportError:
        return []
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for name in names:
        try:
            version = metadata.version(name)
        except Exception:  # PackageNotFoundError, or broken metadata
            continue
        found.append({"name": name, "version": str(version)})
        seen.add(name)
    if prefix:
        try:
            for dist in metadata.distributions():
                raw = dist.metadata["Name"] or ""
                name = re.sub(r"[-_.]+", "-", str(raw)).lower()
                if name.startswith(prefix) and name not in seen:
                    seen.add(name)
                    found.append({"name": name, "version": str(dist.version)})
        except Exception as exc:  # a broken dist-info must not hide the framework
            log.warning("could not list distributions: %s", _describe(exc))
    return found


def _cudnn_version_string(value: int) -> str:
    # cuDNN 9 encodes MAJOR*10000 + MINOR*100 + PATCH; cuDNN 8 and older MAJOR*1000 + MINOR*100.
    if value >= 10000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


def _miopen_version_string(value: int) -> str:
    # torch's cudnn.version() on ROCm is MIOpen's MAJOR*1000000 + MINOR*1000 + PATCH
    # (torch/csrc/cuda/shared/cudnn.cpp, getVersionInt).
    return f"{value // 1000000}.{(value // 1000) % 1000}.{value % 1000}"


def _pci_bus(domain: Any, bus: Any, device: Any) -> str | None:
    d, b, s = _int(domain), _int(bus), _int(device)
    if b is None or s is None:
        return None
    # The properties carry no PCI function; a GPU is function 0.
    return f"{d or 0:04x}:{b:02x}:{s:02x}.0"


# ------------------------------------------------------------------------------- torch


def inspect_torch(info: dict[str, Any], rec: _Recorder, deadline: float, smoke: bool) -> None:
    info["distributions"] = _distributions(("torch",))
    torch: Any = importlib.import_module("torch")
    info["version"] = _str(getattr(torch, "__version__", None))
    info["location"] = os.path.dirname(getattr(torch, "__file__", None) or "") or None
    version = getattr(torch, "version", None)
    hip = _str(getattr(version, "hip", None))
    cuda = _str(getattr(version, "cuda", None))
    xpu = _str(getattr(version, "xpu", None))
    info.update(hip_version=hip, cuda_version=cuda, xpu_version=xpu)
    xpu_module = getattr(torch, "xpu", None)
    xpu_available = (rec.call("torch.xpu.is_available()", lambda: bool(xpu_module.is_available()))
                     if xpu_module is not None and not (hip or cuda) else None)
    mps_available = (rec.call("torch.backends.mps.is_available()",
                              lambda: bool(torch.backends.mps.is_available()))
                     if not (hip or cuda or xpu or xpu_available) else None)
    build_version: str | None
    if hip:
        build, build_version = "rocm", hip
    elif cuda:
        build, build_version = "cuda", cuda
    elif xpu or xpu_available:
        build, build_version = "xpu", xpu
    elif mps_available:
        build, build_version = "mps", None
    else:
        build, build_version = "cpu", None
    info["build"] = build
    info["build_version"] = build_version

    pending: Callable[[], list[dict[str, Any]]] | None = None
    if build in ("rocm", "cuda"):
        pending = _inspect_torch_cuda(torch, info, rec, build, deadline if smoke else None)
    elif build == "xpu":
        _inspect_torch_xpu(torch, info, rec)
    elif build == "mps":
        info.update(gpu_available=True, device_count=1, arch_list=[],
                    devices=[{"index": 0, "name": "Apple MPS", "fp16": True}])
    else:
        info.update(gpu_available=False, device_count=0, arch_list=[], devices=[])

    if pending is not None:
        info["smoke_tests"] = pending()
    elif smoke:
        targets, note = _torch_smoke_targets(info)
        info["smoke_tests"] = run_smoke_tests(targets, deadline, note)


def _inspect_torch_cuda(torch: Any, info: dict[str, Any], rec: _Recorder, build: str,
                        smoke_deadline: float | None,
                        ) -> Callable[[], list[dict[str, Any]]] | None:
    """Fill `info` from torch.cuda. With a smoke deadline and GPUs seen, the smoke tests start
    as soon as the devices are counted, beside the rest of the inspection (a first CUDA or HIP
    context takes seconds), and the function that collects them is returned."""
    cuda = torch.cuda
    available = rec.call("torch.cuda.is_available()", lambda: bool(cuda.is_available()))
    info["gpu_available"] = available
    count = rec.call("torch.cuda.device_count()", lambda: int(cuda.device_count()), default=0)
    info["device_count"] = count
    pending = (start_smoke_tests([("cuda", index) for index in range(count)], smoke_deadline)
               if smoke_deadline is not None and available and count else None)
    info["arch_list"] = [str(a) for a in rec.call(
        "torch.cuda.get_arch_list()", lambda: list(cuda.get_arch_list()), default=[])]

    cudnn = getattr(torch.backends, "cudnn", None)
    library = "MIOpen" if build == "rocm" else "cuDNN"
    if cudnn is not None and rec.call("torch.backends.cudnn.is_available()",
                                      lambda: bool(cudnn.is_available()), default=False):
        raw = _int(rec.call("torch.backends.cudnn.version()", cudnn.version))
        if raw:
            decoded = (_miopen_version_string(raw) if build == "rocm"
                       else _cudnn_version_string(raw))
            info["math_library"] = {"name": library, "version_int": raw, "version": decoded}

    with warnings.catch_warnings():
        # allow_tf32 is deprecated in favour of fp32_precision in recent releases.
        warnings.simplefilter("ignore")
        info["tf32_settings"] = {
            "matmul_allow_tf32": rec.call("torch.backends.cuda.matmul.allow_tf32",
                                          lambda: bool(torch.backends.cuda.matmul.allow_tf32)),
            "cudnn_allow_tf32": rec.call("torch.backends.cudnn.allow_tf32",
                                         lambda: bool(torch.backends.cudnn.allow_tf32)),
            "float32_matmul_precision": rec.call(
                "torch.get_float32_matmul_precision()",
                lambda: str(torch.get_float32_matmul_precision())),
        }
    sdpa: dict[str, bool] = {}
    backends = getattr(torch.backends, "cuda", None)
    for name in ("flash", "mem_efficient", "math", "cudnn"):
        function = getattr(backends, f"{name}_sdp_enabled", None)
        if function is not None:
            value = rec.call(f"torch.backends.cuda.{name}_sdp_enabled()", function)
            if value is not None:
                sdpa[name] = bool(value)
    info["sdpa"] = sdpa
    info["sdpa_backends"] = [name for name, enabled in sdpa.items() if enabled]

    devices = []
    for index in range(count or 0):
        devices.append(_torch_cuda_device(torch, index, rec, build))
    info["devices"] = devices
    return pending


def _torch_cuda_device(torch: Any, index: int, rec: _Recorder, build: str) -> dict[str, Any]:
    cuda = torch.cuda
    device: dict[str, Any] = {"index": index}
    props = rec.call(f"torch.cuda.get_device_properties({index})",
                     lambda: cuda.get_device_properties(index))
    if props is None:
        return device
    device["name"] = _str(getattr(props, "name", None))
    major, minor = _int(getattr(props, "major", None)), _int(getattr(props, "minor", None))
    if major is not None and minor is not None:
        device["compute_capability"] = f"{major}.{minor}"
    gcn = _str(getattr(props, "gcnArchName", None))
    if build == "rocm":
        if gcn:
            device["gcn_arch_name"] = gcn
            device["arch"] = gcn.split(":", 1)[0]
    elif major is not None and minor is not None:
        device["arch"] = f"sm_{major}{minor}"
    device["total_memory_bytes"] = _int(getattr(props, "total_memory", None))
    device["multi_processor_count"] = _int(getattr(props, "multi_processor_count", None))
    uuid = _str(getattr(props, "uuid", None))
    if uuid:
        device["uuid"] = uuid
    pci = {key: _int(getattr(props, key, None))
           for key in ("pci_domain_id", "pci_bus_id", "pci_device_id")}
    if any(v is not None for v in pci.values()):
        device.update(pci)
        device["pci_bus"] = _pci_bus(pci["pci_domain_id"], pci["pci_bus_id"],
                                     pci["pci_device_id"])

    # fp16: every ROCm target has it; on CUDA from compute capability 5.3.
    if build == "rocm":
        device["fp16"] = True
    elif major is not None and minor is not None:
        device["fp16"] = (major, minor) >= (5, 3)

    def with_device(function: Callable[[], Any]) -> Callable[[], Any]:
        def call() -> Any:
            with cuda.device(index):
                return function()
        return call

    def bf16() -> bool:
        try:
            return bool(cuda.is_bf16_supported(including_emulation=False))
        except TypeError:  # torch before 2.3 has no including_emulation
            return bool(cuda.is_bf16_supported())

    device["bf16"] = rec.call(f"torch.cuda.is_bf16_supported() on {index}", with_device(bf16))
    tf32_supported = getattr(cuda, "is_tf32_supported", None)
    if tf32_supported is not None:
        device["tf32"] = rec.call(f"torch.cuda.is_tf32_supported() on {index}",
                                  with_device(lambda: bool(tf32_supported())))
    elif build == "cuda" and major is not None:
        device["tf32"] = major >= 8
    return device


def _inspect_torch_xpu(torch: Any, info: dict[str, Any], rec: _Recorder) -> None:
    xpu = torch.xpu
    info["gpu_available"] = rec.call("torch.xpu.is_available()", lambda: bool(xpu.is_available()))
    count = rec.call("torch.xpu.device_count()", lambda: int(xpu.device_count()), default=0)
    info["device_count"] = count
    info["arch_list"] = [str(a) for a in rec.call(
        "torch.xpu.get_arch_list()", lambda: list(xpu.get_arch_list()), default=[])]
    devices = []
    for index in range(count or 0):
        device: dict[str, Any] = {"index": index}
        props = rec.call(f"torch.xpu.get_device_properties({index})",
                         xpu.get_device_properties, index)
        if props is not None:
            device["name"] = _str(getattr(props, "name", None))
            device["total_memory_bytes"] = _int(getattr(props, "total_memory", None))
            device["driver_version"] = _str(getattr(props, "driver_version", None))
            has_fp16 = getattr(props, "has_fp16", None)
            device["fp16"] = bool(has_fp16) if has_fp16 is not None else None
        if hasattr(xpu, "is_bf16_supported"):
            device["bf16"] = rec.call("torch.xpu.is_bf16_supported()",
                                      lambda: bool(xpu.is_bf16_supported()))
        devices.append(device)
    info["devices"] = devices


def _torch_smoke_targets(info: dict[str, Any]) -> tuple[list[tuple[str, int]], str | None]:
    build = info.get("build")
    devices = info.get("devices") or []
    kind = {"rocm": "cuda", "cuda": "cuda", "xpu": "xpu", "mps": "mps"}.get(str(build))
    if kind and devices and info.get("gpu_available"):
        return [(kind, int(d.get("index", n))) for n, d in enumerate(devices)], None
    if build == "cpu":
        note = "ran on the CPU: this torch build has no GPU support"
    else:
        note = f"ran on the CPU: this {build} build of torch sees no GPU"
    return [("cpu", 0)], note


# ------------------------------------------------------------------------------- others


def inspect_torch_directml(info: dict[str, Any], rec: _Recorder, deadline: float,
                           smoke: bool) -> None:
    info["build"] = "directml"
    info["distributions"] = _distributions(("torch-directml",))
    dml: Any = importlib.import_module("torch_directml")
    dists = info["distributions"]
    info["version"] = (_str(getattr(dml, "__version__", None))
                       or (dists[0]["version"] if dists else None))
    info["gpu_available"] = rec.call("torch_directml.is_available()",
                                     lambda: bool(dml.is_available()))
    count = rec.call("torch_directml.device_count()", lambda: int(dml.device_count()), default=0)
    info["device_count"] = count
    info["devices"] = [
        {"index": i, "name": _str(rec.call(f"torch_directml.device_name({i})",
                                           dml.device_name, i))}
        for i in range(count or 0)
    ]
    if smoke and count:
        info["smoke_tests"] = run_smoke_tests([("directml", i) for i in range(count)], deadline)


def inspect_onnxruntime(info: dict[str, Any], rec: _Recorder, deadline: float,
                        smoke: bool) -> None:
    # Several onnxruntime packages can share the one `onnxruntime` module; the last one
    # installed wins, a classic reason for a missing CUDA provider.
    info["distributions"] = _distributions((), prefix="onnxruntime")
    ort: Any = importlib.import_module("onnxruntime")
    info["version"] = _str(getattr(ort, "__version__", None))
    providers = [str(p) for p in rec.call("onnxruntime.get_available_providers()",
                                          lambda: list(ort.get_available_providers()),
                                          default=[])]
    info["providers"] = providers
    info["device"] = rec.call("onnxruntime.get_device()", lambda: _str(ort.get_device()))
    if {"ROCMExecutionProvider", "MIGraphXExecutionProvider"} & set(providers):
        build = "rocm"
    elif {"CUDAExecutionProvider", "TensorrtExecutionProvider"} & set(providers):
        build = "cuda"
    elif "DmlExecutionProvider" in providers:
        build = "directml"
    elif "CoreMLExecutionProvider" in providers:
        build = "mps"
    elif providers == ["CPUExecutionProvider"]:
        build = "cpu"
    else:
        build = "unknown"
    info["build"] = build


def inspect_jax(info: dict[str, Any], rec: _Recorder, deadline: float, smoke: bool) -> None:
    info["distributions"] = _distributions((), prefix="jax")
    jax: Any = importlib.import_module("jax")
    info["version"] = _str(getattr(jax, "__version__", None))
    try:
        jaxlib: Any = importlib.import_module("jaxlib")
        info["jaxlib_version"] = _str(getattr(jaxlib, "__version__", None)) or _str(
            getattr(getattr(jaxlib, "version", None), "__version__", None))
    except Exception as exc:  # jax without jaxlib is a finding, not a crash
        rec.errors.append(f"import jaxlib: {_describe(exc)}")
    info["default_backend"] = rec.call("jax.default_backend()", lambda: str(jax.default_backend()))
    raw_devices = rec.call("jax.devices()", lambda: list(jax.devices()), default=[])
    devices = []
    platforms = []
    for n, device in enumerate(raw_devices):
        platform_name = _str(getattr(device, "platform", None)) or "unknown"
        platforms.append(platform_name.lower())
        device_id = _int(getattr(device, "id", None))
        devices.append({
            "index": device_id if device_id is not None else n,
            "name": _str(getattr(device, "device_kind", None)),
            "platform": platform_name,
            "device_kind": _str(getattr(device, "device_kind", None)),
        })
    info["devices"] = devices
    platform_version = None
    if raw_devices:
        platform_version = rec.call(
            "jax.devices()[0].client.platform_version",
            lambda: _str(raw_devices[0].client.platform_version))
    info["platform_version"] = platform_version
    plugins = " ".join(d["name"] for d in info["distributions"])
    gpu = [p for p in platforms if p in ("gpu", "cuda", "rocm")]
    hint = (platform_version or "").lower() + " " + " ".join(gpu)
    if "rocm" in hint or "hip" in hint:
        build = "rocm"
    elif "cuda" in hint:
        build = "cuda"
    elif gpu:
        build = "unknown"
    elif "metal" in platforms:
        build = "mps"
    elif "rocm" in plugins:
        build = "rocm"
    elif "cuda" in plugins:
        build = "cuda"
    elif platforms and all(p == "cpu" for p in platforms):
        build = "cpu"
    else:
        build = "unknown"
    info["build"] = build
    info["gpu_available"] = bool(gpu or "metal" in platforms)
    info["device_count"] = len(gpu)


def inspect_tensorflow(info: dict[str, Any], rec: _Recorder, deadline: float,
                       smoke: bool) -> None:
    info["distributions"] = _distributions((
        "tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-rocm", "tensorflow-macos",
        "tensorflow-intel", "intel-tensorflow", "tf-nightly"))
    tf: Any = importlib.import_module("tensorflow")
    info["version"] = _str(getattr(tf, "__version__", None))
    build_info = rec.call("tf.sysconfig.get_build_info()",
                          lambda: dict(tf.sysconfig.get_build_info()), default={})
    plain: dict[str, Any] = {}
    for key, value in build_info.items():
        if isinstance(value, (bool, int, float, str)) or value is None:
            plain[str(key)] = value
        elif isinstance(value, (list, tuple)):
            plain[str(key)] = [str(v) for v in value]
        else:
            plain[str(key)] = str(value)
    info["build_info"] = plain
    if plain.get("is_rocm_build"):
        info["build"] = "rocm"
        info["build_version"] = _str(plain.get("rocm_version"))
    elif plain.get("is_cuda_build"):
        info["build"] = "cuda"
        info["build_version"] = _str(plain.get("cuda_version"))
        cudnn = _str(plain.get("cudnn_version"))
        if cudnn:
            info["math_library"] = {"name": "cuDNN", "version": cudnn}
    elif build_info:
        info["build"] = "cpu"
    else:
        info["build"] = "unknown"
    capabilities = plain.get("cuda_compute_capabilities")
    info["arch_list"] = capabilities if isinstance(capabilities, list) else []
    gpus = rec.call('tf.config.list_physical_devices("GPU")',
                    lambda: list(tf.config.list_physical_devices("GPU")), default=[])
    devices = []
    for n, gpu in enumerate(gpus):
        name = _str(getattr(gpu, "name", None))
        device: dict[str, Any] = {"index": n, "tf_name": name}
        match = re.search(r":(\d+)$", name or "")
        if match:
            device["index"] = int(match.group(1))
        details = rec.call(f"tf.config.experimental.get_device_details({name})",
                           tf.config.experimental.get_device_details, gpu, default={})
        if not isinstance(details, dict):
            details = {}
        device["name"] = _str(details.get("device_name"))
        capability = details.get("compute_capability")
        if isinstance(capability, (tuple, list)) and len(capability) == 2:
            device["compute_capability"] = f"{capability[0]}.{capability[1]}"
            if info["build"] == "cuda":
                device["arch"] = f"sm_{capability[0]}{capability[1]}"
        devices.append(device)
    info["devices"] = devices
    info["device_count"] = len(devices)
    info["gpu_available"] = bool(devices)


INSPECTORS: dict[str, Callable[[dict[str, Any], _Recorder, float, bool], None]] = {
    "torch": inspect_torch,
    "torch_directml": inspect_torch_directml,
    "onnxruntime": inspect_onnxruntime,
    "jax": inspect_jax,
    "tensorflow": inspect_tensorflow,
}


# ------------------------------------------------------------------------------- modes


def framework_child(name: str, timeout_s: float, smoke: bool) -> None:
    """Inspect one framework in this process and print its one result line."""
    started = time.monotonic()
    deadline = started + max(1.0, timeout_s - MARGIN_S / 2)
    rec = _Recorder()
    handler = _LogCapture(rec)
    logging.getLogger().addHandler(handler)
    if name == "jax":
        # jax.devices() would otherwise take 75% of every GPU's memory, which could starve
        # the torch smoke test running beside it.
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    info: dict[str, Any] = {"name": name, "installed": True}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            INSPECTORS[name](info, rec, deadline, smoke)
        except BaseException as exc:  # an import that raises anything is the finding
            if isinstance(exc, KeyboardInterrupt):
                raise
            info["error"] = _describe(exc)
            log.warning("inspecting %s failed:\n%s", name, traceback.format_exc())
    for warning in caught:
        rec.warn(f"{warning.category.__name__}: {warning.message}")
        log.warning("%s: %s", warning.category.__name__, warning.message)
    logging.getLogger().removeHandler(handler)
    if name == "jax":
        info["env_overrides"] = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    info["errors"] = rec.errors
    info["warnings"] = rec.warnings
    info["duration_s"] = round(time.monotonic() - started, 3)
    emit({"type": "result", "framework": info})


def _installed(name: str) -> tuple[bool, str | None]:
    try:
        return importlib.util.find_spec(name) is not None, None
    except Exception as exc:  # a broken package can make find_spec raise
        return True, _describe(exc)


def _child_result(name: str, run: ChildRun) -> dict[str, Any]:
    result: dict[str, Any] | None = None
    for line in run.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if (isinstance(message, dict) and message.get("type") == "result"
                and isinstance(message.get("framework"), dict)):
            result = message["framework"]
    if result is None or run.timed_out:
        result = {"name": name, "installed": True,
                  "error": f"inspecting {name}: {_failure_reason(run, 'its process')}"}
        if run.timed_out:
            result["timed_out"] = True
    result["name"] = name
    result["stderr_tail"] = _tail(run.stderr)
    result["process_duration_s"] = run.duration_s
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--timeout-s", type=float, default=60.0,
                        help="time budget for the whole probe (default 60)")
    parser.add_argument("--no-smoke-test", action="store_true",
                        help="do not run the 256x256 matmul on each device")
    parser.add_argument("--only", default="",
                        help="comma-separated frameworks to inspect (default: all)")
    parser.add_argument("--framework", choices=FRAMEWORKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="[gpuscope framework probe] %(message)s")
    _claim_stdout()
    smoke = not args.no_smoke_test
    if args.framework:
        framework_child(args.framework, args.timeout_s, smoke)
        return 0

    started = time.monotonic()
    deadline = started + max(1.0, args.timeout_s)
    env = {name: os.environ.get(name) for name in ENV_NAMES}
    env.update({k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)})
    emit({
        "type": "hello", "protocol": PROTOCOL, "python": sys.executable,
        "python_version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": sys.platform, "machine": platform.machine(),
        "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "pid": os.getpid(), "env": env,
    })
    wanted = [n.strip() for n in args.only.split(",") if n.strip()] or list(FRAMEWORKS)
    threads = []
    for name in FRAMEWORKS:
        if name not in wanted:
            continue
        installed, problem = _installed(name)
        if not installed:
            emit({"type": "result", "framework": {"name": name, "installed": False}})
            continue
        if problem:
            log.warning("finding %s raised %s; inspecting it anyway", name, problem)

        def work(name: str = name) -> None:
            budget = max(1.0, deadline - time.monotonic() - MARGIN_S)
            emit({"type": "progress", "framework": name, "stage": "started"})
            argv = [sys.executable, *_python_flags(), os.path.abspath(__file__),
                    "--framework", name, "--timeout-s", f"{budget:.1f}"]
            if not smoke:
                argv.append("--no-smoke-test")
            run = run_child(argv, budget)
            if run.stderr.strip():
                for line in run.stderr.rstrip().splitlines()[-200:]:
                    sys.stderr.write(f"[{name}] {line}\n")
                sys.stderr.flush()
            emit({"type": "result", "framework": _child_result(name, run)})

        thread = threading.Thread(target=work, daemon=True, name=f"inspect-{name}")
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(max(0.0, deadline + 10 - time.monotonic()))
    emit({"type": "done", "duration_s": round(time.monotonic() - started, 3)})
    return 0


def _drop_own_directory_from_path() -> None:
    # Run by path, Python puts this file's folder first on sys.path, where gpuscope's own
    # probe modules (amdsmi.py, nvml.py) would shadow the real packages torch imports.
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and sys.path[0] and os.path.abspath(sys.path[0]) == here:
        del sys.path[0]


if __name__ == "__main__":
    _drop_own_directory_from_path()
    status = main()
    try:
        _OUT.flush()
        sys.stderr.flush()
    finally:
        # Skip interpreter teardown: some GPU runtimes crash or hang in their exit handlers,
        # and that must not turn a finished probe into a failed one.
        os._exit(status)
