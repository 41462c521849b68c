"""The LLM runtime probe against recorded answers: a local HTTP server (127.0.0.1 only) serving
Ollama's `/api/version` and `/api/ps` bodies, replays of what it recorded, and old snapshots."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, Snapshot
from gpuscope.inventory.llm_runtimes import resolve_runtime
from gpuscope.model import Gpu, LlmDevice, LlmRuntime, Vendor
from gpuscope.probes.llm_runtimes import (
    ollama_backends,
    ollama_base_url,
    ollama_models,
    probe_llm_runtimes,
    probe_ollama,
)

# The example of Ollama's API documentation, "List Running Models"
# (https://github.com/ollama/ollama/blob/main/docs/api.md); the CPU and partial variants change
# only size_vram, as a server reports a model on the CPU ("'size_vram': 0, denoting 100% CPU",
# https://github.com/ollama/ollama/issues/4840) or split between CPU and GPU.
DOCS_MODEL: dict[str, Any] = {
    "name": "mistral:latest", "model": "mistral:latest", "size": 5137025024,
    "digest": "2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8",
    "details": {"parent_model": "", "format": "gguf", "family": "llama",
                "families": ["llama"], "parameter_size": "7.2B", "quantization_level": "Q4_0"},
    "expires_at": "2024-06-04T14:38:31.83753-07:00", "size_vram": 5137025024}
VERSION = {"version": "0.5.1"}  # docs/api.md, "Version"


def _ps(size_vram: int | None) -> dict[str, Any]:
    model = dict(DOCS_MODEL)
    if size_vram is None:
        del model["size_vram"]  # older servers left a zero out
    else:
        model["size_vram"] = size_vram
    return {"models": [model]}


class _NoBinaries(LiveSystem):
    """This machine, except that no runtime binary is on PATH (so a developer's own Ollama
    never answers for the test's)."""

    def which(self, program: str) -> str | None:
        return None


@pytest.fixture
def ollama_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    answers: dict[str, Any] = {"/api/version": VERSION, "/api/ps": _ps(0)}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = answers.get(self.path)
            if body is None:
                self.send_response(404)
                self.end_headers()
                return
            raw = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.server_address[1]}")
    try:
        yield answers
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("size_vram", "expected"), [
    (0, 0), (None, 0), (2147483648, 2147483648), (5137025024, 5137025024)])
def test_ollama_loaded_models_with_their_vram_share(
        ollama_server: dict[str, Any], size_vram: int | None, expected: int) -> None:
    ollama_server["/api/ps"] = _ps(size_vram)
    runtime = probe_ollama(_NoBinaries())
    assert runtime.found and runtime.version == "0.5.1" and runtime.reason is None
    assert runtime.server is not None and runtime.server.startswith("http://127.0.0.1:")
    [model] = runtime.models
    assert (model.name, model.size_bytes, model.size_vram_bytes) == (
        "mistral:latest", 5137025024, expected)


def test_a_recording_of_the_server_replays_the_same_runtimes(
        ollama_server: dict[str, Any]) -> None:
    recorder = RecordingSystem(_NoBinaries())
    live = probe_llm_runtimes(recorder)
    snapshot = Snapshot.from_json(json.loads(json.dumps(recorder.snapshot.to_json())))
    assert probe_llm_runtimes(ReplaySystem(snapshot)) == live
    assert [r.name for r in live] == ["ollama", "llama.cpp", "lmstudio", "vllm", "sglang"]


def test_no_server_and_no_binary_is_not_found_with_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # discard: nothing listens
    runtime = probe_ollama(_NoBinaries())
    assert not runtime.found
    assert runtime.reason and "ollama is not on PATH" in runtime.reason


def test_a_snapshot_from_before_the_runtimes_were_looked_for_says_so() -> None:
    runtimes = probe_llm_runtimes(ReplaySystem(Snapshot()))
    assert len(runtimes) == 5 and not any(r.found for r in runtimes)
    assert all("not recorded in this snapshot" in (r.reason or "") for r in runtimes)


@pytest.mark.parametrize(("value", "url"), [
    (None, "http://127.0.0.1:11434"),
    ("0.0.0.0", "http://127.0.0.1:11434"),
    ("0.0.0.0:8080", "http://127.0.0.1:8080"),
    ("http://gpu-box:11434", "http://gpu-box:11434"),
    ("https://ollama.example.org", "https://ollama.example.org:11434"),
    (":11500", "http://127.0.0.1:11500"),
    ("[::1]:11434", "http://[::1]:11434"),
])
def test_ollama_host_is_read_as_ollama_reads_it(value: str | None, url: str) -> None:
    assert ollama_base_url(value) == url


def test_backends_of_an_ollama_install() -> None:
    # ollama/ollama issue 10848: a tarball install's /usr/local/lib/ollama (CUDA only).
    entries = ["cuda_v11", "cuda_v12", "libggml-base.so", "libggml-cpu-haswell.so"]
    assert ollama_backends(entries) == ("cuda", "cpu")
    assert ollama_backends(["rocm", "libggml-base.so"]) == ("rocm", "cpu")


def test_malformed_ps_bodies_give_no_models() -> None:
    for body in (None, [], {"models": "x"}, {"models": [1, {"size": 3}]}):
        assert ollama_models(body) == ()


def _gpu(index: int, vendor: Vendor, name: str, target: str | None = None) -> Gpu:
    return Gpu(index=index, vendor=vendor, name=name, gfx_target=target)


def test_llama_cpp_devices_are_matched_to_the_inventory() -> None:
    gpus = (_gpu(0, Vendor.AMD, "AMD Radeon RX 7900 XTX", "gfx1100"),
            _gpu(1, Vendor.AMD, "AMD Radeon Graphics (Ryzen 7000 Raphael iGPU)", "gfx1036"))
    runtime = LlmRuntime("llama.cpp", True, devices=(
        LlmDevice("rocm", "AMD Radeon RX 7900 XTX", 0, total_bytes=25753026560),),
        backends=("rocm", "cpu"))
    resolved = resolve_runtime(runtime, gpus)
    assert (resolved.backend, resolved.gpus) == ("rocm", (0,))


def test_ollama_rocm_build_without_the_target_uses_the_cpu() -> None:
    gpus = (_gpu(0, Vendor.AMD, "AMD Radeon RX 6700 XT", "gfx1031"),)
    runtime = LlmRuntime("ollama", True, backends=("rocm", "cpu"),
                         rocm_targets=("gfx1030", "gfx1100"))
    assert resolve_runtime(runtime, gpus).backend == "cpu"
    supported = LlmRuntime("ollama", True, backends=("rocm", "cpu"),
                           rocm_targets=("gfx1030", "gfx1031"))
    assert (resolve_runtime(supported, gpus).backend, resolve_runtime(supported, gpus).gpus) \
        == ("rocm", (0,))


# ggml-org/llama.cpp issue 16659 (tests/fixtures/corpus-llm/SOURCES.md): a Vulkan build on an
# RTX 2060, `--version` and `--list-devices` as the user pasted them.
VULKAN_VERSION = """ggml_vulkan: Found 1 Vulkan devices:
ggml_vulkan: 0 = NVIDIA GeForce RTX 2060 (NVIDIA) | uma: 0 | fp16: 1 | bf16: 1 | warp size: 32 | shared memory: 49152 | int dot: 1 | matrix cores: NV_coopmat2
version: 6795 (unknown)
built with FreeBSD clang version 19.1.7 (https://github.com/llvm/llvm-project.git llvmorg-19.1.7-0-gcd708029e0b2) for x86_64-unknown-freebsd14.3
"""  # noqa: E501
VULKAN_DEVICES = """ggml_vulkan: Found 1 Vulkan devices:
ggml_vulkan: 0 = NVIDIA GeForce RTX 2060 (NVIDIA) | uma: 0 | fp16: 1 | bf16: 1 | warp size: 32 | shared memory: 49152 | int dot: 1 | matrix cores: NV_coopmat2
Available devices:
  Vulkan0: NVIDIA GeForce RTX 2060 (6144 MiB, 5136 MiB free)
"""  # noqa: E501


def _llama_snapshot(list_devices: dict[str, Any]) -> Snapshot:
    cli = "/usr/local/bin/llama-cli"
    return Snapshot.from_json({
        "format": "gpuscope-snapshot", "version": 1,
        "which": {"llama-cli": cli},
        "libraries": {"llm-runtimes": {"status": "ok"}},
        "commands": [
            {"argv": [cli, "--version"], "returncode": 0, "stdout": "",
             "stderr": VULKAN_VERSION},
            {"argv": [cli, "--list-devices"], **list_devices},
        ]})


def test_llama_cpp_version_and_devices_from_its_own_output() -> None:
    system = ReplaySystem(_llama_snapshot({"returncode": 0, "stdout": VULKAN_DEVICES,
                                           "stderr": ""}))
    [llama] = [r for r in probe_llm_runtimes(system) if r.name == "llama.cpp"]
    assert llama.found and llama.version and llama.version.startswith("6795")
    assert llama.backends == ("vulkan", "cpu")
    [device] = llama.devices
    assert (device.backend, device.name, device.index) == ("vulkan", "NVIDIA GeForce RTX 2060", 0)
    gpus = (_gpu(0, Vendor.NVIDIA, "NVIDIA GeForce RTX 2060"),)
    resolved = resolve_runtime(llama, gpus)
    assert (resolved.backend, resolved.gpus) == ("vulkan", (0,))


def test_an_old_llama_cpp_without_list_devices_leaves_its_backends_unknown() -> None:
    system = ReplaySystem(_llama_snapshot({"returncode": 1, "stdout": "",
                                           "stderr": "error: invalid argument: --list-devices"}))
    [llama] = [r for r in probe_llm_runtimes(system) if r.name == "llama.cpp"]
    assert llama.found and llama.backends == () and llama.reason
