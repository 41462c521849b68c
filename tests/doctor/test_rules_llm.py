"""The llm.* findings: a model on the CPU beside a usable GPU, a runtime build without a
backend for the GPU, and a GPU reached only through HSA_OVERRIDE_GFX_VERSION."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_inventory
from gpuscope.inventory.llm_runtimes import resolve_runtimes
from gpuscope.model import Finding, LlmModel, LlmRuntime, Severity
from gpuscope.probes.llm_runtimes import probe_llm_runtimes

REPO = Path(__file__).resolve().parents[2]
OLLAMA_CPU = SNAPSHOTS_DIR / "rx7900xtx_ollama_cpu.json"


def _doctor(snapshot: Path, *runtimes: LlmRuntime) -> tuple[Finding, ...]:
    system = ReplaySystem.from_file(snapshot)
    inventory = collect_inventory(system)
    found = runtimes or probe_llm_runtimes(system)
    return diagnose(DoctorInput(inventory, llm_runtimes=resolve_runtimes(found,
                                                                         inventory.gpus)))


def _bash_n(command: str) -> None:
    done = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True,
                          check=False, timeout=10)
    assert done.returncode == 0 and not done.stderr, (command, done.stderr)


def test_a_model_on_the_cpu_beside_a_usable_gpu_is_a_cpu_fallback() -> None:
    findings = _doctor(OLLAMA_CPU)
    [fallback] = [f for f in findings if f.id == "llm.cpu_fallback"]
    assert fallback.severity is Severity.WARNING and fallback.gpu == 0
    assert "mistral:latest" in fallback.title and "CPU" in fallback.title
    assert fallback.fix_commands and fallback.sources
    for command in fallback.fix_commands:
        _bash_n(command)
    # Ollama's install here carries CUDA only: the fix installs the GPU's libraries.
    assert any("install.sh" in c for c in fallback.fix_commands)
    assert any(f.id == "llm.backend_unsupported" and f.gpu == 0 for f in findings)
    assert any(f.id == "gpu.usable" for f in findings)


def test_the_replay_through_the_cli_lists_runtimes_and_the_finding() -> None:
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "gpuscope"), "--replay", str(OLLAMA_CPU), "doctor",
         "--json"], capture_output=True, text=True, timeout=120, check=False, cwd=REPO)
    assert done.returncode in (0, 1, 2), done.stderr
    doc = json.loads(done.stdout)
    assert [r["name"] for r in doc["llm_runtimes"]] == [
        "ollama", "llama.cpp", "lmstudio", "vllm", "sglang"]
    ollama = doc["llm_runtimes"][0]
    assert ollama["found"] and ollama["backend"] == "cpu"
    assert ollama["models"][0]["size_vram_bytes"] == 0
    assert all(r["reason"] for r in doc["llm_runtimes"][1:])
    fallback = next(f for f in doc["findings"] if f["id"] == "llm.cpu_fallback")
    assert fallback["fix_commands"]


def test_a_model_fully_in_vram_is_no_fallback() -> None:
    ollama = LlmRuntime("ollama", True, "0.5.1", backends=("rocm", "cpu"), models=(
        LlmModel("mistral:latest", 5137025024, 5137025024),))
    assert not any(f.id.startswith("llm.") for f in _doctor(OLLAMA_CPU, ollama))


def test_a_partial_offload_is_a_fallback_with_an_unload_command() -> None:
    ollama = LlmRuntime("ollama", True, "0.5.1", backends=("rocm", "cpu"), models=(
        LlmModel("mistral:latest", 5137025024, 2147483648),))
    [fallback] = [f for f in _doctor(OLLAMA_CPU, ollama) if f.id == "llm.cpu_fallback"]
    assert "partly" in fallback.title
    assert "ollama stop mistral:latest" in fallback.fix_commands


def test_a_model_bigger_than_the_vram_is_no_fallback() -> None:
    ollama = LlmRuntime("ollama", True, backends=("rocm", "cpu"), models=(
        LlmModel("llama3:70b", 42 * 2**30, 20 * 2**30),))
    assert not any(f.id == "llm.cpu_fallback" for f in _doctor(OLLAMA_CPU, ollama))


def test_an_ollama_rocm_build_without_the_target_needs_the_override() -> None:
    # RX 6700 XT (gfx1031) of amd_kfd_no_access.json; Ollama's rocBLAS carries gfx1030.
    ollama = LlmRuntime("ollama", True, backends=("rocm", "cpu"),
                        rocm_targets=("gfx1030", "gfx1100"))
    findings = _doctor(SNAPSHOTS_DIR / "amd_kfd_no_access.json", ollama)
    [override] = [f for f in findings if f.id == "llm.override_needed"]
    assert "HSA_OVERRIDE_GFX_VERSION" in override.title
    assert any("HSA_OVERRIDE_GFX_VERSION=10.3.0" in c for c in override.fix_commands)
    assert override.fix_commands[-1] == "sudo systemctl restart ollama"
    for command in override.fix_commands:
        _bash_n(command)


def test_a_target_without_any_override_is_unsupported() -> None:
    ollama = LlmRuntime("ollama", True, backends=("rocm", "cpu"), rocm_targets=("gfx900",))
    findings = _doctor(SNAPSHOTS_DIR / "amd_kfd_no_access.json", ollama)
    assert any(f.id == "llm.backend_unsupported" for f in findings)
    assert not any(f.id == "llm.override_needed" for f in findings)


@pytest.mark.parametrize("snapshot", ["rx7900xtx_rocm.json", "nvidia_rtx4090.json"])
def test_a_cuda_only_llama_cpp_build_cannot_run_an_amd_gpu(snapshot: str) -> None:
    cuda_only = LlmRuntime("llama.cpp", True, backends=("cuda", "cpu"))
    findings = _doctor(SNAPSHOTS_DIR / snapshot, cuda_only)
    unsupported = [f for f in findings if f.id == "llm.backend_unsupported"]
    if snapshot.startswith("rx7900"):
        [finding] = unsupported
        assert any("-DGGML_HIP=ON" in c and "gfx1100" in c for c in finding.fix_commands)
        for command in finding.fix_commands:
            _bash_n(command)
    else:
        assert not unsupported
