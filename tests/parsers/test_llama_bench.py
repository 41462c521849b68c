"""llama.cpp's benchmark numbers read from real outputs in each format llama-bench writes
(md, csv, json, jsonl, sql) and from llama-cli and llama-server timing lines; see
tests/fixtures/llama_bench/SOURCES.md for where each capture comes from."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuscope.parsers.llama_bench import (
    LlamaBenchParse,
    LlamaBenchResult,
    backend_id,
    bench_test_name,
    parse_llama_bench,
    quantisation_of,
    sniff,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llama_bench"
ALL_FILES = sorted(p for p in FIXTURES.iterdir() if p.name != "SOURCES.md")


def parsed(name: str) -> LlamaBenchParse:
    return parse_llama_bench((FIXTURES / name).read_text(encoding="utf-8"))


def by_test(results: tuple[LlamaBenchResult, ...]) -> dict[str, LlamaBenchResult]:
    return {r.test: r for r in results}


def test_every_fixture_is_listed_with_its_source() -> None:
    sources = (FIXTURES / "SOURCES.md").read_text(encoding="utf-8")
    for path in ALL_FILES:
        assert f"`{path.name}`" in sources, path.name


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_real_capture_gives_results_and_is_sniffed(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = parse_llama_bench(text)
    assert result.results, result.problems
    assert sniff(text)
    assert all(r.tokens_per_s > 0 for r in result.results)


def test_markdown_rocm_with_device_lines_and_build() -> None:
    result = parsed("md_rocm_radeon8060s_geerlingguy21.txt")
    assert result.formats == ("md",)
    assert result.problems == ()
    tests = by_test(result.results)
    assert list(tests) == ["pp512", "tg128", "pp512+tg128"]
    tg = tests["tg128"]
    assert (tg.tokens_per_s, tg.tokens_per_s_stddev) == (74.98, 0.0)
    assert (tg.n_prompt, tg.n_gen, tg.n_depth) == (0, 128, 0)
    assert tg.model_type == "llama 3B Q4_K - Medium"
    assert tg.quantisation == "Q4_K_M"
    assert tg.backend == "ROCm,RPC" and tg.backend_id == "rocm"
    assert tg.n_gpu_layers == 99
    assert tg.gpu_name == "Radeon 8060S Graphics"
    assert (tg.build_commit, tg.build_number) == ("c81de6e1", 6092)
    assert tg.settings == {"flash_attn": "1"}
    assert tg.model_size_bytes == round(1.87 * 1024**3)
    assert tg.model_params == 3_210_000_000
    assert tests["pp512+tg128"].tokens_per_s == 244.87
    assert tests["pp512+tg128"].tokens_per_s_stddev == 0.2


def test_markdown_vulkan_names_each_vulkan_device_without_its_driver() -> None:
    result = parsed("md_vulkan_rx7900xt_geerlingguy23.txt")
    tests = by_test(result.results)
    assert list(tests) == ["pp512", "pp4096", "tg128", "pp4096+tg128"]
    tg = tests["tg128"]
    assert tg.backend_id == "vulkan"
    assert tg.gpu_name == "AMD Radeon RX 7900 XT (RADV NAVI31), V3D 7.1.10.2 (V3DV Mesa)"
    # the build line came before the table (in the block above it)
    assert (tg.build_commit, tg.build_number) == ("1d0125bc", 6552)
    assert tg.quantisation == "Q4_K_M" and tg.model_type == "qwen2 14B Q4_K - Medium"


def test_markdown_of_2024_with_spaced_test_names() -> None:
    result = parsed("md_rocm_rx7900xt_old_issue4763.txt")
    tests = by_test(result.results)
    assert list(tests) == ["pp512", "tg128"]
    assert tests["tg128"].tokens_per_s == 67.2
    assert tests["pp512"].n_prompt == 512
    assert tests["tg128"].gpu_name == "AMD Radeon RX 7900 XT"
    assert tests["tg128"].backend_id == "rocm"
    assert tests["tg128"].n_gpu_layers == 33
    assert tests["tg128"].build_commit is None  # the post has no build line


def test_markdown_extra_columns_go_to_settings() -> None:
    result = parsed("md_cuda_rtx3090ti_pr4812.txt")
    assert [(r.test, r.settings.get("nkvo"), r.tokens_per_s) for r in result.results] == [
        ("pp512", "0", 4035.47), ("tg128", "0", 127.43), ("pp512", "1", 237.84),
        ("tg128", "1", 59.99)]
    assert {r.gpu_name for r in result.results} == {"NVIDIA GeForce RTX 3090 Ti"}
    assert {r.build_number for r in result.results} == {1786}


def test_indented_markdown_with_new_columns() -> None:
    result = parsed("md_rocm_rx6700xt_indented_issue26702.txt")
    tests = by_test(result.results)
    assert list(tests) == ["pp8192", "tg512"]
    tg = tests["tg512"]
    assert tg.quantisation == "IQ4_NL"
    assert tg.gpu_name == "AMD Radeon RX 6700 XT"
    assert tg.settings == {"n_batch": "1024", "n_ubatch": "1024", "type_k": "q8_0",
                           "type_v": "q8_0", "flash_attn": "1"}
    assert (tg.build_commit, tg.build_number) == ("0a50d9909", 10108)


def test_markdown_metal_without_ngl_column() -> None:
    result = parsed("md_metal_apple_m5_issue25547.txt")
    tests = by_test(result.results)
    assert tests["tg64"].tokens_per_s == 20.21
    assert tests["tg64"].backend == "BLAS,MTL" and tests["tg64"].backend_id == "metal"
    assert tests["tg64"].n_gpu_layers is None
    assert tests["tg64"].settings == {"n_threads": "4"}


def test_the_same_run_in_csv_json_jsonl_and_sql() -> None:
    for name, fmt, values in (
            ("readme_cuda_rtx4080.csv", "csv", (7285.676949, 119.915244)),
            ("readme_cuda_rtx4080.json", "json", (7100.002165, 118.881588)),
            ("readme_cuda_rtx4080.jsonl", "jsonl", (7263.609157, 119.844681)),
            ("readme_cuda_rtx4080.sql", "sql", (7324.546977, 120.346696))):
        result = parsed(name)
        assert result.formats == (fmt,), name
        assert result.problems == (), name
        tests = by_test(result.results)
        assert list(tests) == ["pp512", "tg128"], name
        assert (tests["pp512"].tokens_per_s, tests["tg128"].tokens_per_s) == values
        for r in result.results:
            assert r.gpu_name == "NVIDIA GeForce RTX 4080"
            assert r.cpu_info == "AMD Ryzen 7 7800X3D 8-Core Processor"
            assert r.backend == "CUDA" and r.backend_id == "cuda"
            assert r.model_type == "qwen2 7B Q4_K - Medium" and r.quantisation == "Q4_K_M"
            assert r.model_filename == "models/Qwen2.5-7B-Instruct-Q4_K_M.gguf"
            assert r.model_size_bytes == 4677120000 and r.model_params == 7615616512
            assert r.n_gpu_layers == 99
            assert (r.build_commit, r.build_number) == ("8cf427ff", 5163)
            assert r.test_time is not None and r.test_time.startswith("2025-04-24T")
            assert r.settings["type_k"] == "f16"
            assert r.settings["flash_attn"] == "0"  # csv/sql write 0, json false: one form
    json_tg = by_test(parsed("readme_cuda_rtx4080.json").results)["tg128"]
    assert json_tg.samples_tokens_per_s == (119.03, 120.178, 119.43, 118.307, 117.464)
    assert json_tg.tokens_per_s_stddev == 1.041811


def test_sql_of_newer_builds_names_the_table_llama_bench() -> None:
    # Derived, not captured: llama.cpp PR 15003 renamed the table `test` to `llama_bench`
    # (sql_printer in tools/llama-bench/llama-bench.cpp); nothing else in a line changed.
    text = (FIXTURES / "readme_cuda_rtx4080.sql").read_text(encoding="utf-8")
    renamed = text.replace("INSERT INTO test (", "INSERT INTO llama_bench (").replace(
        "CREATE TABLE IF NOT EXISTS test (", "CREATE TABLE IF NOT EXISTS llama_bench (")
    assert renamed != text
    result = parse_llama_bench(renamed)
    assert [r.test for r in result.results] == ["pp512", "tg128"]


def test_json_after_the_device_lines_llama_bench_prints_first() -> None:
    # Issue 15554: with -o json a Vulkan build still prints its device lines before the array.
    # Those two real lines (https://github.com/ggml-org/llama.cpp/issues/15554) before the
    # README's real array.
    lines = ("ggml_vulkan: Found 1 Vulkan devices:\n"
             "ggml_vulkan: 0 = AMD Radeon RX 580 Series (RADV POLARIS10) (radv) | uma: 0 | "
             "fp16: 0 | bf16: 0 | warp size: 64 | shared memory: 65536 | int dot: 0 | "
             "matrix cores: none\n")
    result = parse_llama_bench(lines + (FIXTURES / "readme_cuda_rtx4080.json").read_text())
    assert [r.tokens_per_s for r in result.results] == [7100.002165, 118.881588]
    assert result.problems == ()


def test_llama_cli_timings() -> None:
    result = parsed("cli_perf_context_issue34.txt")
    assert result.formats == ("llama-cli",)
    prompt, gen = result.results
    assert (prompt.tool, prompt.test, prompt.tokens_per_s, prompt.n_prompt) == (
        "llama-cli", "prompt eval", 102.0, 9)
    assert (gen.test, gen.tokens_per_s, gen.n_gen) == ("eval", 57.04, 127)
    assert gen.model_filename == "~/models/Llama-3.2-1B-Instruct-Q4_K_M.gguf"
    assert gen.quantisation == "Q4_K_M"
    assert gen.backend is None  # no device lines: the post does not say
    # the sampler's line is no throughput of the model
    assert len(result.results) == 2


def test_older_llama_print_timings() -> None:
    result = parsed("cli_print_timings_issue2237.txt")
    assert [(r.test, r.tokens_per_s) for r in result.results] == [
        ("prompt eval", 43.05), ("eval", 4.43)]


def test_llama_server_timings() -> None:
    result = parsed("server_timings_issue9013.txt")
    assert result.formats == ("llama-server",)
    assert [(r.tool, r.test, r.tokens_per_s) for r in result.results] == [
        ("llama-server", "prompt eval", 55.73), ("llama-server", "eval", 11.94)]


def test_a_row_without_its_header_is_not_taken_for_a_result() -> None:
    result = parsed("mixed_details_issue4763.txt")
    assert [(r.tool, r.test, r.tokens_per_s) for r in result.results] == [
        ("llama-cli", "prompt eval", 2210.64)]  # not the headerless row, not "inf" sampling


def test_several_formats_in_one_paste() -> None:
    text = "\n\n".join((FIXTURES / name).read_text(encoding="utf-8") for name in (
        "md_rocm_radeon8060s_geerlingguy21.txt", "readme_cuda_rtx4080.csv",
        "server_timings_issue9013.txt"))
    result = parse_llama_bench(text)
    assert result.formats == ("md", "csv", "llama-server")
    assert len(result.results) == 3 + 2 + 2
    # the device lines above the table are not given to the csv rows, which name their GPU
    assert {r.gpu_name for r in result.results if r.format == "csv"} == {
        "NVIDIA GeForce RTX 4080"}


def test_damaged_rows_are_problems_not_results() -> None:
    text = (FIXTURES / "md_cuda_rtx3090ti_pr4812.txt").read_text(encoding="utf-8")
    damaged = text.replace("127.43 ± 0.18", "n/a").replace(
        "237.84 ± 10.28 |", "237.84 ± 10.28 | extra |")
    result = parse_llama_bench(damaged)
    assert [r.tokens_per_s for r in result.results] == [4035.47, 59.99]
    assert len(result.problems) == 2
    assert any("no throughput" in p for p in result.problems)
    assert any("cells under a header" in p for p in result.problems)
    csv_text = (FIXTURES / "readme_cuda_rtx4080.csv").read_text(encoding="utf-8")
    cut = csv_text.replace(',"0.430617"', "")
    result = parse_llama_bench(cut)
    assert [r.test for r in result.results] == ["pp512"]
    assert any("values under a header" in p for p in result.problems)


@pytest.mark.parametrize("text", ["", "   \n", "hello world\n| a | b |\n", "\x00\x01binary"])
def test_no_results_is_said(text: str) -> None:
    result = parse_llama_bench(text)
    assert result.results == ()
    assert result.problems
    assert not sniff(text)


def test_names_as_llama_bench_writes_them() -> None:
    assert bench_test_name(512, 0, 0) == "pp512"
    assert bench_test_name(0, 128, 4096) == "tg128 @ d4096"
    assert bench_test_name(512, 128, None) == "pp512+tg128"
    assert bench_test_name(0, 0, 0) is None
    assert quantisation_of("llama 7B mostly Q4_0") == "Q4_0"
    assert quantisation_of("gpt-oss 20B MXFP4 MoE") == "MXFP4"
    assert quantisation_of("qwen3moe 30B.A3B Q4_K - Medium") == "Q4_K_M"
    assert quantisation_of("llama 8B F16") == "F16"
    assert quantisation_of("nonsense") is None
    assert backend_id("ROCm,RPC") == "rocm"
    assert backend_id("BLAS,MTL") == "metal"
    assert backend_id("CPU") == "cpu"
    assert backend_id("CANN") is None


_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
REAL_TEXTS = [p.read_text(encoding="utf-8") for p in ALL_FILES]


def _no_internal_error(result: LlamaBenchParse) -> None:
    assert isinstance(result, LlamaBenchParse)
    assert not any(p.startswith("parser error") for p in result.problems), result.problems
    for r in result.results:
        assert r.tokens_per_s > 0


@_SETTINGS
@given(st.text(max_size=3000))
def test_random_text_never_raises(text: str) -> None:
    _no_internal_error(parse_llama_bench(text))


@_SETTINGS
@given(st.sampled_from(REAL_TEXTS), st.integers(min_value=0, max_value=10_000))
def test_truncated_real_output_never_raises(text: str, cut: int) -> None:
    _no_internal_error(parse_llama_bench(text[:cut]))


@_SETTINGS
@given(st.sampled_from(REAL_TEXTS), st.randoms(use_true_random=False))
def test_shuffled_real_output_never_raises(text: str, rng: random.Random) -> None:
    lines = text.split("\n")
    rng.shuffle(lines)
    _no_internal_error(parse_llama_bench("\n".join(lines)))


def test_a_large_paste_is_read_in_linear_time() -> None:
    table = (FIXTURES / "md_cuda_rtx3090ti_pr4812.txt").read_text(encoding="utf-8")
    lines = table.splitlines()
    rows = [line for line in lines if "± " in line]
    big = "\n".join(lines[:3] + rows * 5000)  # 20,000 rows under one header
    started = time.perf_counter()
    result = parse_llama_bench(big)
    elapsed_s = time.perf_counter() - started
    assert len(result.results) == 10_000  # kept at MAX_RESULTS, and said
    assert any("only the first" in p for p in result.problems)
    assert elapsed_s < 10.0
