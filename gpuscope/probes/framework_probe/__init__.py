"""gpuscope's framework probe: what PyTorch, JAX, TensorFlow, ONNX Runtime and torch-directml
in *this* Python environment can do with the GPUs.

Standalone on purpose: gpuscope runs this folder by path with whichever interpreter the user
picks, so it uses the standard library and the frameworks only, without the gpuscope package (see
`gpuscope/child`), and keeps to Python 3.9 syntax.

    python gpuscope/probes/framework_probe [--timeout-s N] [--no-smoke-test] [--only torch,jax]

It prints versioned JSON lines on stdout, logs on stderr:

    {"type": "hello", "protocol": 1, "python": ..., "python_version": ..., ...}
    {"type": "progress", "framework": "torch", "stage": "started"}
    {"type": "result", "framework": {"name": "torch", "installed": true, ...}}
    {"type": "result", "framework": {"name": "jax", "installed": false}}
    {"type": "done"}

Each installed framework is inspected in a child process of its own (this folder again, with
`--framework NAME`): an import that segfaults, aborts or hangs, or two frameworks that load
clashing cuDNN/ROCm libraries, then cost that framework's result only. Each child has its own
time budget (TensorFlow's import alone can take tens of seconds). The GPU smoke test is a
grandchild per device, since a missing kernel image aborts the whole process
(hipErrorNoBinaryForGpu raises SIGABRT).

`main` runs the probe and each framework's child; `torch_probe` and `others` inspect the
frameworks, `recording` keeps what went wrong on the way, `children` runs the child processes
and the smoke tests.
"""
