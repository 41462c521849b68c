"""The probe's child processes: running one to completion or its time budget, reading why it
failed from its stderr, and the GPU smoke test (one child per device)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ...child.jsonlines import describe
from ...child.lifetime import guarded_argv
from .limits import SMOKE_HANG_S
from .recording import log

STDERR_TAIL_LINES = 30
STDERR_TAIL_CHARS = 3000

SMOKE_OK = "GPUSCOPE_SMOKE_OK"
SMOKE_WRONG = "GPUSCOPE_SMOKE_WRONG"
SMOKE_WRONG_EXIT = 3

# The smoke test, run as `python -c SMOKE_PROGRAM KIND INDEX` in the user's interpreter; like
# the rest of the env probe (torch_probe.py), it loads torch with importlib, never with an
# import statement that could be taken for one of gpuscope's own. An elementwise op (PyTorch's
# own kernel) and a 256x256 matmul (the BLAS library's kernel): a GPU target missing from
# either fails here. The result is checked against the CPU, which also catches a wrong
# HSA_OVERRIDE_GFX_VERSION that runs but computes garbage.
SMOKE_PROGRAM = r"""
import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
import importlib
import time
kind, index = sys.argv[1], int(sys.argv[2])
torch = importlib.import_module("torch")
started = time.monotonic()
if kind == "directml":
    device = importlib.import_module("torch_directml").device(index)
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


def stderr_tail(text: str) -> str:
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


def python_flags() -> list[str]:
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
        # Through the parent-death shim: a hung smoke test dies with the probe (Linux).
        process = subprocess.Popen(
            guarded_argv(argv, env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env,
        )
    except OSError as exc:
        run.start_error = describe(exc)
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


def failure_reason(run: ChildRun, what: str) -> str:
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
    argv = [sys.executable, *python_flags(), "-c", SMOKE_PROGRAM, kind, str(index)]
    run = run_child(argv, timeout_s)
    record: dict[str, Any] = {
        "device": device, "returncode": run.returncode, "signal": None,
        "duration_s": run.duration_s, "stderr_tail": stderr_tail(run.stderr),
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
        record["reason"] = failure_reason(run, "the smoke test")
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
