"""The LLM runtime log importers (Ollama, llama.cpp, LM Studio) over real captures from public
trackers (tests/fixtures/corpus-llm/, each beside its expect.json; sources in SOURCES.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from parser_properties import assert_clean, property_tests, read

from gpuscope.importer import (
    ACCEPTED_OUTPUTS,
    FORMAT_FAMILIES,
    ImportedMachine,
    import_files,
    import_texts,
)
from gpuscope.model import LLM_BACKENDS, Layer, LlmDevice, ParsedOutput
from gpuscope.parsers import llama_cpp_log, lmstudio_log, ollama_log
from gpuscope.parsers._llm_common import log_lines
from gpuscope.parsers.llama_cpp_log import parse_list_devices, parse_llama_version
from gpuscope.parsers.llm_logs import LLM_FORMATS, detect_llm_log, parse_llm_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus-llm"
MIB = 1024 * 1024


# ------------------------------------------------------- llama-cli --version / --list-devices


def test_list_devices_vulkan_llama_server() -> None:
    devices = parse_list_devices(read(CORPUS / "llamacpp-16659-vulkan-list-devices.txt"))
    assert devices == (LlmDevice(backend="vulkan", name="NVIDIA GeForce RTX 2060", index=0,
                                 total_bytes=6144 * MIB, free_bytes=5136 * MIB),)


def test_list_devices_two_cuda_devices() -> None:
    devices = parse_list_devices(read(CORPUS / "ollama-16508-cuda-list-devices.txt"))
    assert [(d.backend, d.index, d.name) for d in devices] == [
        ("cuda", 0, "NVIDIA GeForce RTX 3080 Ti"),
        ("cuda", 1, "NVIDIA RTX PRO 4000 Blackwell SFF Edition")]
    assert devices[1].total_bytes == 24026 * MIB
    assert devices[1].free_bytes == 23795 * MIB


def test_list_devices_reads_the_device_lines_whatever_the_backend() -> None:
    # The format of llama.cpp's common/arg.cpp, one device of each kind of backend name; RPC
    # servers are no GPU of this machine.
    text = ("Available devices:\n"
            "  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24112 MiB free)\r\n"
            "  \x1b[0mMTL0: Apple M2 Max (49152 MiB, 49151 MiB free)\n"
            "  SYCL0: Intel(R) Arc(TM) A770 Graphics (16225 MiB, 16225 MiB free)\n"
            "  RPC[192.168.1.2:50052]: RPC[192.168.1.2:50052] (8000 MiB, 7000 MiB free)\n")
    devices = parse_list_devices(text)
    assert [(d.backend, d.index, d.name) for d in devices] == [
        ("rocm", 0, "AMD Radeon RX 7900 XTX"), ("metal", 0, "Apple M2 Max"),
        ("sycl", 0, "Intel(R) Arc(TM) A770 Graphics")]
    assert devices[0].total_bytes == 24560 * MIB


def test_list_devices_of_no_device_list_is_empty() -> None:
    assert parse_list_devices("") == ()
    assert parse_list_devices("Available devices:\n") == ()
    assert parse_list_devices(read(CORPUS / "llamacpp-aosc-rocm-gfx1151-version.txt")) == ()


def test_llama_version() -> None:
    assert parse_llama_version(read(CORPUS / "llamacpp-16659-vulkan-list-devices.txt")) == (
        "6795 (unknown)")
    assert parse_llama_version(read(CORPUS / "llamacpp-9716-vulkan-cpu-offload-windows.txt")
                               ) == "3865 (00b7317e)"
    assert parse_llama_version(read(CORPUS / "llamacpp-aosc-rocm-gfx1151-version.txt")) == (
        "0 (unknown)")
    assert parse_llama_version("build: 4567 (abcdef1) with cc (GCC) 13.2.0 for x86_64") == (
        "4567 (abcdef1)")
    assert parse_llama_version("no version here\nversion:\n") is None
    assert parse_llama_version("\x00\xff" * 1000) is None


# ------------------------------------------------------------ every capture, as --from reads it

CAPTURES = sorted(p for p in CORPUS.iterdir() if p.suffix in (".log", ".txt"))


def expectation(capture: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        capture.with_name(capture.stem + ".expect.json").read_text(encoding="utf-8"))
    return loaded


def reading(machine: ImportedMachine) -> dict[str, Any]:
    """What an import says, in the terms of the expect.json files."""
    (runtime,) = machine.llm_runtimes
    return {
        "format": machine.parsed[0].format,
        "runtime": runtime.name,
        "version": runtime.version,
        "backend": runtime.backend,
        "backends": sorted(runtime.backends),
        "devices": [{"backend": d.backend, "name": d.name, "gfx_target": d.gfx_target,
                     "total_bytes": d.total_bytes} for d in runtime.devices],
        "models": [{"size_bytes": m.size_bytes, "size_vram_bytes": m.size_vram_bytes,
                    "context_tokens": m.context_tokens} for m in runtime.models],
        "gpus": [{"vendor": g.vendor.value if g.vendor else None, "name": g.name,
                  "gfx_target": g.gfx_target, "compute_capability": g.compute_capability,
                  "pci_bus": g.pci_bus} for g in machine.inventory.gpus],
        "signals": [{"kind": s.kind, "detail": s.detail, "gfx_target": s.gfx_target,
                     "lines": [e.line for e in s.evidence]} for s in machine.signals],
    }


def test_the_corpus_covers_each_runtime_and_case() -> None:
    assert len(CAPTURES) >= 12
    expected = [expectation(c) for c in CAPTURES]
    assert {e["runtime"] for e in expected} == {"ollama", "llama.cpp", "lmstudio"}
    assert {e["backend"] for e in expected} >= {"rocm", "cuda", "vulkan", "cpu"}
    kinds = {s["kind"] for e in expected for s in e["signals"]}
    assert kinds >= {"llm.gpu_unsupported", "llm.no_gpu_found", "llm.cpu_offload",
                     "llm.override_in_use", "llm.permission_denied",
                     "hip.invalid_device_function"}
    assert all(e["source"].startswith("https://github.com/") for e in expected)
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    assert all(c.name in sources and expectation(c)["source"] in sources for c in CAPTURES)


@pytest.mark.parametrize("capture", CAPTURES, ids=[c.name for c in CAPTURES])
def test_capture_reads_as_expected(capture: Path) -> None:
    expected = expectation(capture)
    del expected["source"]
    machine = import_files([str(capture)])
    assert not machine.rejected
    assert reading(machine) == expected
    (runtime,) = machine.llm_runtimes
    assert runtime.found and runtime.evidence
    assert all(e.source == capture.name and e.line for e in runtime.evidence)
    assert all(s.layer is Layer.LLM for s in machine.parsed[0].sightings)


@pytest.mark.parametrize("capture", CAPTURES, ids=[c.name for c in CAPTURES])
def test_capture_reads_the_same_however_it_was_pasted(capture: Path) -> None:
    """A Windows editor's CRLF, a terminal's colours and docker compose's prefix change
    nothing (the lines stay where they were)."""
    text = read(capture)
    plain = import_texts([(capture.name, text)])
    pasted = ["\r\n".join(text.split("\n")),
              "\n".join(f"\x1b[32m{line}\x1b[0m" if line else line
                        for line in text.split("\n")),
              "\n".join(f"ollama-1  | {line}" for line in text.split("\n"))]
    for variant in pasted:
        machine = import_texts([(capture.name, variant)])
        assert reading(machine) == reading(plain)


def test_journal_prefix_of_any_locale_is_stripped() -> None:
    """journalctl's prefix in Chinese (2月 02) and Russian (июл 28) month names, as in the
    captures, and in English."""
    for capture, first in (("ollama-8772-rx6750-gfx1031-unsupported-journal-zh.log", "time="),
                           ("ollama-11557-gfx1102-override-journal-ru.log", "time="),
                           ("ollama-10833-cuda-partial-offload-journal.log", "load_tensors:")):
        lines, cut = log_lines(read(CORPUS / capture))
        assert cut is None
        assert lines[0].startswith(first), lines[0]


def test_several_logs_of_one_runtime_are_one_runtime() -> None:
    machine = import_files([str(CORPUS / "ollama-12564-win-rx7900xtx-rocm-discovery.log"),
                            str(CORPUS / "ollama-11420-rx7900xtx-partial-offload-journal.log"),
                            str(CORPUS / "llamacpp-5104-rocm-7900gre-llama-cli.txt")])
    assert [r.name for r in machine.llm_runtimes] == ["ollama", "llama.cpp"]
    ollama = machine.llm_runtimes[0]
    assert ollama.version == "0.12.4"
    assert ollama.backend == "rocm"
    assert [d.name for d in ollama.devices] == ["AMD Radeon RX 7900 XTX"]
    assert ollama.models[0].size_vram_bytes == int(19.0 * 1024**3)
    assert "llm.cpu_offload" in {s.kind for s in machine.signals}


# ------------------------------------------------------------------------- format detection


def test_each_runtime_log_is_recognised_and_named() -> None:
    formats = {expectation(c)["format"] for c in CAPTURES}
    assert formats <= set(LLM_FORMATS)
    assert {"ollama-log", "lmstudio-log", "llama-cpp-log", "llama-cpp-devices"} <= formats
    for fmt in LLM_FORMATS:
        family = next((word for prefix, word in FORMAT_FAMILIES.items()
                       if fmt.startswith(prefix)), None)
        assert family is not None and family in ACCEPTED_OUTPUTS, fmt


def test_rocminfo_is_no_llm_log() -> None:
    text = read(FIXTURES / "corpus" / "005-wsl2-rx7900xtx-rocminfo" / "rocminfo.txt")
    assert parse_llm_log(text, "rocminfo.txt") is None
    machine = import_texts([("rocminfo.txt", text)])
    assert machine.parsed[0].format == "rocminfo"
    assert machine.llm_runtimes == ()


def test_a_kernel_log_is_no_llm_log() -> None:
    folder = FIXTURES / "outputs" / "kernel-log"
    for path in sorted(folder.glob("*.txt"))[:10]:
        assert parse_llm_log(read(path), path.name) is None, path.name


def test_one_llama_cpp_word_is_no_llama_cpp_log() -> None:
    assert llama_cpp_log.sniff("print_info: file type = Q4_K - Medium\n") is None
    machine = import_texts([("notes.txt", "I ran it and print_info: said nothing useful\n")])
    assert machine.llm_runtimes == ()


def test_random_text_is_still_rejected_with_its_reason() -> None:
    machine = import_texts([("notes.txt", "my gpu is slow\nwhat should I buy?\n")])
    assert machine.llm_runtimes == ()
    (refusal,) = machine.rejected
    assert refusal.reason.startswith("notes.txt is in no format gpuscope knows")
    assert "Ollama log" in refusal.reason and "LM Studio log" in refusal.reason


def test_ollama_beats_llama_cpp_in_its_own_log() -> None:
    # Ollama's runner prints llama.cpp's lines: the log is Ollama's.
    text = read(CORPUS / "ollama-11265-rx7900xtx-rocm-runner.log")
    assert llama_cpp_log.sniff(text) is not None
    detected = detect_llm_log(text)
    assert detected is not None and detected[1] == "ollama-log"


# ------------------------------------------------------------------------- hostile input

REAL_TEXTS = [read(c) for c in CAPTURES]


@pytest.mark.parametrize("module", [ollama_log, llama_cpp_log, lmstudio_log],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_hostile_input_never_raises(module: ModuleType) -> None:
    junk = bytes(range(256)).decode("latin-1") * 64
    long_line = "ggml_cuda_init: found 1 ROCm devices:" + "x" * 1_000_000
    for text in ("", "\x00" * 1000, junk, long_line, "msg=\"inference compute\" " * 50_000,
                 "Available devices:\n" + "  ROCm0: " + "(" * 100_000 + "\n",
                 "amdgpu is not supported (supported types:[" + "gfx1030 " * 100_000):
        module.sniff(text)
        started = time.monotonic()
        parsed = module.parse(text, "hostile")
        assert_clean(parsed)
        assert time.monotonic() - started < 10


def test_hostile_input_through_the_importer() -> None:
    long_line = "time=x level=INFO msg=\"inference compute\" name=" + "A" * 1_000_000
    machine = import_texts([("long.log", long_line)])
    assert len(machine.llm_runtimes) <= 1
    assert parse_list_devices("\x00\xff" * 100_000) == ()


def _check(parsed: ParsedOutput) -> None:
    assert_clean(parsed)
    for runtime in parsed.llm_runtimes:
        assert runtime.backend is None or runtime.backend in LLM_BACKENDS
        assert set(runtime.backends) <= set(LLM_BACKENDS)


(test_ollama_random_text_never_raises, test_ollama_truncated_real_output_never_raises,
 test_ollama_shuffled_real_output_never_raises) = property_tests(
    ollama_log.sniff, ollama_log.parse, REAL_TEXTS, _check)
(test_llama_random_text_never_raises, test_llama_truncated_real_output_never_raises,
 test_llama_shuffled_real_output_never_raises) = property_tests(
    llama_cpp_log.sniff, llama_cpp_log.parse, REAL_TEXTS, _check)
(test_lmstudio_random_text_never_raises, test_lmstudio_truncated_real_output_never_raises,
 test_lmstudio_shuffled_real_output_never_raises) = property_tests(
    lmstudio_log.sniff, lmstudio_log.parse, REAL_TEXTS, _check)


# ------------------------------------------------------------------------- the command line


def test_doctor_from_an_ollama_log_lists_its_runtime() -> None:
    capture = CORPUS / "ollama-8772-rx6750-gfx1031-unsupported-journal-zh.log"
    result = subprocess.run([sys.executable, "-m", "gpuscope", "doctor", "--json", "--from",
                             str(capture)], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode in (0, 1, 2), result.stderr[-2000:]  # exit codes carry severity
    doc = json.loads(result.stdout)
    assert doc["origin"] == "imported"
    assert [(r["name"], r["found"], r["backend"]) for r in doc["llm_runtimes"]] == [
        ("ollama", True, "cpu")]


def test_a_rocm_build_that_finds_no_device() -> None:
    # The line as llama.cpp prints it, quoted in the titles of
    # https://github.com/ggml-org/llama.cpp/issues/20142 and
    # https://github.com/ollama/ollama/issues/10421.
    line = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
    machine = import_texts([("llama-cli.txt", line)])
    (runtime,) = machine.llm_runtimes
    assert (runtime.name, runtime.backend, runtime.backends) == ("llama.cpp", "cpu", ("rocm",))
    assert [(s.kind, s.detail) for s in machine.signals] == [
        ("llm.no_gpu_found", line.strip())]
