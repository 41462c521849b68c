"""The worker's main: says hello (torch, the devices, the math libraries), runs each benchmark
asked for in turn and sends its result, whatever it raises."""

from __future__ import annotations

import argparse
import ctypes
import faulthandler
import gc
import importlib
import math
import os
import platform
import sys
import time
import traceback
from typing import Any

from ...child.jsonlines import claim_stdout, describe
from . import llm
from .benchmarks import registry, unit_of
from .libraries import math_hints
from .llm_shape import parse_shapes
from .measure import (
    BUDGET_S,
    OOM_PATTERN,
    PROTOCOL,
    Context,
    Progress,
    Unsupported,
    WrongResult,
    emit,
    log,
)

FAULTS = ("crash", "hang", "oom", "abort")


# ------------------------------------------------------------------------------- faults


def inject_fault(ctx: Context | None, fault: str) -> None:
    log(f"injected fault: {fault}")
    if fault == "crash":
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        os.kill(os.getpid(), 11)
    elif fault == "abort":
        # What a ROCm build prints before aborting on a GPU whose target it lacks.
        sys.stderr.write('"hipErrorNoBinaryForGpu: Unable to find code object for all current '
                         'devices!"\n')
        sys.stderr.flush()
        os.abort()
    elif fault == "oom":
        torch = ctx.torch if ctx is not None else importlib.import_module("torch")
        if ctx is not None and ctx.is_gpu:
            total = ctx.total_memory_bytes() or (1 << 40)
            torch.empty(total * 4, dtype=torch.uint8, device=ctx.device)
        else:
            torch.empty(1 << 62, dtype=torch.uint8)  # a real allocation failure
        raise MemoryError("out of memory (injected): the allocation unexpectedly succeeded")
    elif fault == "hang":
        while True:
            time.sleep(3600)


def is_oom(torch: Any, exc: BaseException) -> bool:
    for holder in (torch, getattr(torch, "cuda", None)):
        cls = getattr(holder, "OutOfMemoryError", None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return isinstance(exc, MemoryError) or bool(OOM_PATTERN.search(str(exc)))


# ------------------------------------------------------------------------------- main


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def _gpu_devices(torch: Any, build: str) -> list[dict[str, Any]]:
    devices = []
    for index in range(int(torch.cuda.device_count())):
        entry: dict[str, Any] = {"index": index}
        try:
            props = torch.cuda.get_device_properties(index)
        except Exception as exc:
            entry["error"] = describe(exc)
            devices.append(entry)
            continue
        entry["name"] = str(getattr(props, "name", "") or "") or None
        entry["total_memory_bytes"] = int(getattr(props, "total_memory", 0) or 0) or None
        entry["multi_processor_count"] = getattr(props, "multi_processor_count", None)
        major, minor = getattr(props, "major", None), getattr(props, "minor", None)
        gcn = str(getattr(props, "gcnArchName", "") or "")
        if build == "rocm" and gcn:
            entry["gcn_arch_name"] = gcn
            entry["arch"] = gcn.split(":", 1)[0]
        elif major is not None and minor is not None:
            entry["compute_capability"] = f"{major}.{minor}"
            entry["arch"] = f"sm_{major}{minor}"
        # gpuscope finds the machine's GPU (its telemetry, its PCIe link) by this address.
        pci = {key: _small_int(getattr(props, key, None))
               for key in ("pci_domain_id", "pci_bus_id", "pci_device_id")}
        if pci["pci_bus_id"] is not None and pci["pci_device_id"] is not None:
            entry.update(pci)
            # The properties carry no PCI function; a GPU is function 0.
            entry["pci_bus"] = (f"{pci['pci_domain_id'] or 0:04x}:{pci['pci_bus_id']:02x}:"
                                f"{pci['pci_device_id']:02x}.0")
        uuid = getattr(props, "uuid", None)
        if uuid is not None and str(uuid).strip():
            entry["uuid"] = str(uuid).strip()
        devices.append(entry)
    return devices


def _small_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 1 << 32 else None


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="gpuscope benchmark worker")
    parser.add_argument("--benchmarks", required=True,
                        help="comma-separated benchmark ids, run in this order")
    parser.add_argument("--device", default="auto", help="auto, cpu, or a GPU index")
    parser.add_argument("--scale", type=float, default=None,
                        help="0 < F <= 1 shrinks sizes and budgets (default: "
                             "GPUSCOPE_BENCH_SCALE or 1)")
    parser.add_argument("--budget-s", type=float, default=None,
                        help=f"measuring time per benchmark (default {BUDGET_S:g} s x scale)")
    parser.add_argument("--llm-shape", default=None,
                        help="JSON: the model shapes of the llm benchmarks, "
                             '{"cpu": {...}, "gpu": {...}} (gpuscope passes them)')
    return parser.parse_args(argv)


def _scale(value: float | None) -> float:
    if value is None:
        try:
            value = float(os.environ.get("GPUSCOPE_BENCH_SCALE", "") or 1.0)
        except ValueError:
            value = 1.0
    if not math.isfinite(value) or value <= 0:
        return 1.0
    return min(1.0, value)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    claim_stdout()
    faulthandler.enable(file=sys.stderr)  # a native crash leaves its Python stack in the log
    wanted = [b.strip() for b in args.benchmarks.split(",") if b.strip()]
    scale = _scale(args.scale)
    budget = args.budget_s if args.budget_s is not None else max(0.05, BUDGET_S * scale)
    fault = os.environ.get("GPUSCOPE_BENCH_FAULT", "").strip().lower() or None
    fault_at = os.environ.get("GPUSCOPE_BENCH_FAULT_AT", "").strip() or (
        wanted[0] if wanted else None)
    hello: dict[str, Any] = {
        "type": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
        "python": sys.executable,
        "python_version": ".".join(str(v) for v in sys.version_info[:3]),
        "platform": platform.platform(), "benchmarks": wanted, "scale": scale,
        "budget_s": budget, "fault": fault,
    }
    try:
        torch = importlib.import_module("torch")
    except BaseException as exc:  # a broken install can raise anything, even SystemExit
        hello["torch"] = None
        emit(hello)
        emit({"type": "error", "kind": "no_torch", "benchmark": None,
              "message": f"cannot import torch with {sys.executable}: {describe(exc)}"})
        emit({"type": "done", "results": 0})
        return 0
    version = getattr(torch, "version", None)
    hip = getattr(version, "hip", None)
    cuda = getattr(version, "cuda", None)
    build = "rocm" if hip else "cuda" if cuda else "cpu"
    hello["torch"] = {"version": str(getattr(torch, "__version__", "")), "build": build,
                      "build_version": hip or cuda, "git_version": getattr(version, "git_version",
                                                                           None)}
    devices: list[dict[str, Any]] = []
    gpu_error = None
    try:
        if build != "cpu" and torch.cuda.is_available():
            devices = _gpu_devices(torch, build)
    except Exception as exc:
        gpu_error = describe(exc)
    hello["devices"] = devices
    hello["math"] = math_hints(torch, build)
    hello["threads"] = int(torch.get_num_threads())

    device_error = None
    if args.device == "cpu" or (args.device == "auto" and not devices):
        device = torch.device("cpu")
        hello["device_name"] = _cpu_name()
        if args.device == "auto" and build == "cpu":
            hello["device_note"] = "ran on the CPU: this torch build has no GPU support"
        elif args.device == "auto":
            why = f" ({gpu_error})" if gpu_error else ""
            hello["device_note"] = f"ran on the CPU: this {build} build of torch sees no GPU{why}"
    else:
        index = 0 if args.device == "auto" else int(args.device) if args.device.isdigit() else -1
        device = torch.device("cuda", max(index, 0))
        if not 0 <= index < len(devices):
            device_error = (f"no GPU {args.device}: this {build} build of torch "
                            f"sees {len(devices)} GPU(s)")
        else:
            hello["device_name"] = devices[index].get("name")
    hello["device"] = "cpu" if device.type == "cpu" else f"cuda:{device.index}"
    emit(hello)
    if device_error is not None:
        emit({"type": "error", "kind": "device", "benchmark": None, "message": device_error})
        emit({"type": "done", "results": 0})
        return 0
    if device.type == "cuda":
        torch.cuda.set_device(device)
    ctx = Context(torch, device, build, scale, budget)
    ctx.llm_shapes = parse_shapes(args.llm_shape)
    functions = registry()
    sent = 0
    for benchmark in wanted:
        if not benchmark.startswith("llm."):
            llm.release()  # the llm benchmarks share one model; nothing else needs it
        progress = Progress(benchmark)
        progress(0.0, "start")
        result: dict[str, Any] = {
            "id": benchmark, "device": ctx.device_name,
            "device_name": hello.get("device_name"), "status": "ok", "reason": None,
            "value": None, "unit": unit_of(benchmark), "spread": None,
            "higher_is_better": not benchmark.startswith("latency."), "parameters": {},
            "relative_error": None, "relative_error_tolerance": None, "bit_identical": None,
            "math_library": None, "started_unix_s": time.time(), "ended_unix_s": None,
        }
        try:
            if fault and benchmark == fault_at:
                inject_fault(ctx, fault)
            function = functions.get(benchmark)
            if function is None:
                raise Unsupported(f"this worker does not know the benchmark {benchmark!r}")
            function(ctx, progress, result)
        except Unsupported as exc:
            result.update(status="unsupported", reason=str(exc), value=None, spread=None)
        except WrongResult as exc:
            result.update(status="failed", reason=str(exc))
            emit({"type": "error", "kind": "wrong_result", "benchmark": benchmark,
                  "message": str(exc)})
        except Exception as exc:
            oom = is_oom(torch, exc)
            reason = ("out of memory: " if oom else "") + describe(exc)
            log(f"{benchmark} failed:\n{traceback.format_exc()}")
            result.update(status="failed", reason=reason[:600], value=None, spread=None)
            emit({"type": "error", "kind": "oom" if oom else "exception",
                  "benchmark": benchmark, "message": reason[:600]})
        finally:
            gc.collect()
            if ctx.is_gpu:
                try:
                    torch.cuda.empty_cache()
                except Exception as exc:  # a sticky device error shows in the next result
                    log(f"empty_cache failed: {describe(exc)}")
        result["ended_unix_s"] = time.time()
        progress(1.0, "end")
        emit({"type": "result", "result": result})
        sent += 1
    llm.release()
    emit({"type": "done", "results": sent})
    return 0
