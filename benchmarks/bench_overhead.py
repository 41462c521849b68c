"""What the benchmark worker costs: the quick suite's fp32 matmul through the real runner against
a bare `torch.matmul` loop at the same size, timed the same way, in the same run.

Both run in a fresh process of the same interpreter: the worker as `gpuscope bench` runs it, through
a `BenchSession` (JSON lines, progress messages, the watchdog, and this machine's telemetry
sampled during the run; `--no-telemetry` leaves the sampling out), the bare loop as a plain
script with no gpuscope in it.
Both warm up, size a batch to about 50 ms, time batches (device events on a GPU, perf_counter
on the CPU) for at least 5 repeats and 2 s (the worker's constants, imported from
`gpuscope.bench.worker.measure`), and take the median per-batch rate. Both call
`torch.matmul(a, b, out=c)` on fp32 inputs with fp32 precision "ieee" (no TF32, no bf16).

On a shared machine a neighbour's load moves either number, so the two alternate for
`--rounds` rounds and each side keeps its best round.

Prints JSON: {"ratio": worker / bare (target >= 0.95), "worker_tflops": ..., "bare_tflops": ...,
"size": N, "device": ..., "rounds": [...]}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from gpuscope.bench import BenchRequest, ResultStatus
from gpuscope.bench.session import BenchSession, live_machine
from gpuscope.bench.worker.measure import (
    BUDGET_S,
    MAX_INNER,
    MAX_REPEATS,
    MIN_REPEATS,
    TARGET_BATCH_S,
)

# The bare loop: nothing but torch, the same measuring steps (and the worker's constants, passed
# on its command line) as the worker's `measure`.
BARE = r"""
import json, math, statistics, sys, time
import torch
n, device_name, budget = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
target_batch_s, max_inner = float(sys.argv[4]), int(sys.argv[5])
min_repeats, max_repeats = int(sys.argv[6]), int(sys.argv[7])
device = torch.device(device_name)
gpu = device.type == "cuda"
owners = [o for o in (torch.backends.cuda.matmul, torch.backends.mkldnn.matmul)
          if isinstance(getattr(o, "fp32_precision", None), str)]
for owner in owners:
    owner.fp32_precision = "ieee"
if not owners:
    torch.set_float32_matmul_precision("highest")
a = torch.randn(n, n, device=device)
b = torch.randn(n, n, device=device)
c = torch.empty(n, n, device=device)

def sync():
    if gpu:
        torch.cuda.synchronize(device)

def batch(inner):
    if gpu:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(inner):
            torch.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1000.0 / inner
    began = time.perf_counter()
    for _ in range(inner):
        torch.matmul(a, b, out=c)
    return (time.perf_counter() - began) / inner

began = time.monotonic()
torch.matmul(a, b, out=c); sync()
while time.monotonic() - began < budget * 0.1:
    torch.matmul(a, b, out=c); sync()
inner = 1
while True:
    took = batch(inner) * inner
    if took >= target_batch_s / 2 or inner >= max_inner:
        break
    inner = min(max_inner, max(inner * 2, int(inner * target_batch_s / max(took, 1e-9) / 2)))
times = []
began = time.monotonic()
while True:
    times.append(batch(inner))
    elapsed = time.monotonic() - began
    if len(times) >= max_repeats or (len(times) >= min_repeats and elapsed >= budget) or \
            (len(times) >= 3 and elapsed >= 3 * budget):
        break
rates = [2.0 * n ** 3 / t / 1e12 for t in times]
print(json.dumps({"tflops": statistics.median(rates), "repeats": len(times), "inner": inner}))
"""


def worker_round(python: str, telemetry: bool) -> dict[str, object]:
    run = BenchSession(BenchRequest(("matmul.fp32",), python=python),
                       live_machine if telemetry else None).run()
    result = run.result("matmul.fp32")
    if result is None or result.status is not ResultStatus.OK or result.value is None:
        errors = "; ".join(e.message for e in run.errors) or (result.reason if result else "")
        raise SystemExit(f"the worker's matmul.fp32 did not run: {errors}")
    return {"tflops": result.value, "size": result.parameters.get("n"),
            "device": result.device, "repeats": result.parameters.get("repeats"),
            "inner": result.parameters.get("inner_iterations"),
            "telemetry_samples": result.telemetry.samples if result.telemetry else 0}


def bare_round(python: str, size: int, device: str, budget_s: float) -> dict[str, object]:
    argv = [python, "-c", BARE, str(size), device, f"{budget_s:g}", f"{TARGET_BATCH_S:g}",
            str(MAX_INNER), str(MIN_REPEATS), str(MAX_REPEATS)]
    completed = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    if completed.returncode != 0:
        raise SystemExit(f"the bare loop failed: {completed.stderr.strip()[-500:]}")
    answer: dict[str, object] = json.loads(completed.stdout.strip().splitlines()[-1])
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose torch runs both (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="JSON output (the only format)")
    parser.add_argument("--no-telemetry", action="store_true",
                        help="run the worker without sampling telemetry during it")
    args = parser.parse_args()
    started = time.perf_counter()
    rounds: list[dict[str, object]] = []
    for _ in range(max(1, args.rounds)):
        worker = worker_round(args.python, not args.no_telemetry)
        size, device = int(str(worker["size"])), str(worker["device"])
        # The worker measures for BUDGET_S at scale 1.
        bare = bare_round(args.python, size, device, BUDGET_S)
        rounds.append({"worker_tflops": worker["tflops"], "bare_tflops": bare["tflops"],
                       "worker_repeats": worker["repeats"], "bare_repeats": bare["repeats"],
                       "worker_inner": worker["inner"], "bare_inner": bare["inner"],
                       "telemetry_samples": worker["telemetry_samples"]})
    worker_best = max(float(str(r["worker_tflops"])) for r in rounds)
    bare_best = max(float(str(r["bare_tflops"])) for r in rounds)
    print(json.dumps({
        "ratio": round(worker_best / bare_best, 4),
        "worker_tflops": worker_best,
        "bare_tflops": bare_best,
        "size": size,
        "device": device,
        "telemetry": not args.no_telemetry,
        "rounds": rounds,
        "wall_s": round(time.perf_counter() - started, 1),
    }))


if __name__ == "__main__":
    main()
