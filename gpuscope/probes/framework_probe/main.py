"""The probe's main: says hello (the interpreter, the environment variables that matter), then
inspects each installed framework in a child process of its own (`--framework NAME`) and sends
each result as it comes."""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import platform
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

from ...child.jsonlines import Channel, claim_stdout, describe
from .children import ChildRun, failure_reason, python_flags, run_child, stderr_tail
from .others import inspect_jax, inspect_onnxruntime, inspect_tensorflow, inspect_torch_directml
from .recording import LogCapture, Recorder, distributions, log
from .torch_probe import inspect_torch

PROTOCOL = 1

# Inspected in this order; module name == framework name.
LLM_PACKAGES = ("vllm", "sglang")
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
MARGIN_S = 1.0  # time a parent keeps for itself after a child's budget

CHANNEL = Channel(lambda why: {"type": "error", "error": why})
emit = CHANNEL.emit

# This folder, run again for each framework: `python <folder> --framework NAME`.
FOLDER = os.path.dirname(os.path.abspath(__file__))

INSPECTORS: dict[str, Callable[[dict[str, Any], Recorder, float, bool], None]] = {
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
    rec = Recorder()
    handler = LogCapture(rec)
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
            info["error"] = describe(exc)
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
        return True, describe(exc)


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
                  "error": f"inspecting {name}: {failure_reason(run, 'its process')}"}
        if run.timed_out:
            result["timed_out"] = True
    result["name"] = name
    result["stderr_tail"] = stderr_tail(run.stderr)
    result["process_duration_s"] = run.duration_s
    return result


def _externally_managed() -> bool:
    """PEP 668: pip refuses to install into this interpreter (a distribution's Python, not a
    virtual environment), so a fix must make a venv first."""
    import sysconfig

    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return False
    try:
        return os.path.isfile(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
    except (KeyError, OSError, TypeError):
        return False


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
    claim_stdout()
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
        # LLM serving packages, read from metadata without importing them.
        "packages": {d["name"]: d["version"] for d in distributions(LLM_PACKAGES)},
        "externally_managed": _externally_managed(),
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
            argv = [sys.executable, *python_flags(), FOLDER,
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
