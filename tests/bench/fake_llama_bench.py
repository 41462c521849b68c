"""A stand-in for llama.cpp's llama-bench in tests: checks it was called as gpuscope calls it
(`-m FILE -o jsonl`), then prints real captured JSONL lines (tests/fixtures/llama_bench/
readme_cuda_rtx4080.jsonl, from llama.cpp's README) one at a time. FAKE_LLAMA_BENCH_MODE picks
what goes wrong: ok, crash (SIGSEGV after the first line), abort, hang (silent after the first
line), fail (exit 1 with an error on stderr), none (prints no result). FAKE_LLAMA_BENCH_PIDFILE
gets its pid. Run by the tests through a wrapper that names the interpreter."""

import os
import signal
import sys
import time
from pathlib import Path

LINES = (Path(__file__).resolve().parents[1] / "fixtures" / "llama_bench" /
         "readme_cuda_rtx4080.jsonl").read_text(encoding="utf-8").splitlines()


def main() -> int:
    args = sys.argv[1:]
    pidfile = os.environ.get("FAKE_LLAMA_BENCH_PIDFILE")
    if pidfile:
        Path(pidfile).write_text(str(os.getpid()), encoding="utf-8")
    if "-m" not in args or args[args.index("-o") + 1:args.index("-o") + 2] != ["jsonl"]:
        print("error: expected -m FILE -o jsonl, got " + " ".join(args), file=sys.stderr)
        return 1
    mode = os.environ.get("FAKE_LLAMA_BENCH_MODE", "ok")
    if mode == "fail":
        print("error: failed to load model '" + args[args.index("-m") + 1] + "'",
              file=sys.stderr)
        return 1
    if mode == "none":
        return 0
    for index, line in enumerate(LINES):
        print(line, flush=True)
        time.sleep(0.3)
        if index == 0 and mode == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if index == 0 and mode == "abort":
            print("GGML_ASSERT failed", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGABRT)
        if index == 0 and mode == "hang":
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
