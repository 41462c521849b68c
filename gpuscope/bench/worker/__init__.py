"""gpuscope's benchmark worker: AI microbenchmarks with the PyTorch of *this* Python environment.

Standalone on purpose: gpuscope runs this folder by path with whichever interpreter the user
picks (the environment that holds their ROCm or CUDA build of torch), so it uses the standard
library and torch only, without the gpuscope package (see `gpuscope/child`), and keeps to Python
3.9 syntax. gpuscope's own process never imports torch.

    python gpuscope/bench/worker --benchmarks matmul.fp32,memory.copy [--device auto|cpu|N]
                                 [--scale F] [--budget-s S] [--llm-shape JSON]

It prints versioned JSON lines on stdout, logs on stderr:

    {"type": "hello", "protocol": 1, "torch": {...}, "device": "cuda:0", ...}
    {"type": "progress", "benchmark": "matmul.fp32", "fraction": 0.4, "stage": "measure"}
    {"type": "result", "result": {"id": "matmul.fp32", "status": "ok", "value": 52.1, ...}}
    {"type": "error", "benchmark": "matmul.fp16", "kind": "oom", "message": "..."}
    {"type": "done", "results": 2}

Progress comes from the main thread between timed batches, never from a helper thread: a GPU
call that hangs then stops the output, which is how the runner tells a hang.

Fault injection for tests: GPUSCOPE_BENCH_FAULT=crash|hang|oom|abort fails the worker at the
start of the benchmark GPUSCOPE_BENCH_FAULT_AT names (default: the first one).
GPUSCOPE_BENCH_SCALE (0 < F <= 1) shrinks sizes and time budgets, for tests.

`main` says hello and runs the benchmarks; `measure` holds the timing loop and the device under
test, `benchmarks` the benchmarks themselves, `llm` the LLM prefill and decode (a decoder with
the shapes gpuscope passes in --llm-shape), `libraries` what torch says of its math libraries.
"""
