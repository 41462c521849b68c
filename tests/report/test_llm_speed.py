"""Tokens/s in the What-fits cells, the Compare table's LLM rows and the share report, each
figure labelled measured, imported, published or estimated (issue #13, item 5)."""

from __future__ import annotations

import dataclasses
import json
from html.parser import HTMLParser
from pathlib import Path

from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import bench_run

from gpuscope.bench.import_command import read_import
from gpuscope.bench.results import BenchmarkResult, BenchTarget, ResultStatus
from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.knowledge.bench_expectations import VerdictLevel
from gpuscope.knowledge.compare import card_profile
from gpuscope.knowledge.model_fit import Precision, model_shape
from gpuscope.knowledge.specs import gpu_spec
from gpuscope.report.compare_rows import ROWS
from gpuscope.report.compare_table import CardOrigin, CompareCard, english, row_tooltip
from gpuscope.report.llm_speed import (
    imported_observations,
    judge_imported,
    measured_decode_ratio,
    measured_observations,
    report_speed_rows,
    shape_for_parameters,
    speed_html,
    speed_json,
    speed_markdown,
)
from gpuscope.report.share import prepare_report
from gpuscope.report.view_model import ShareReport
from gpuscope.report.what_fits import (
    SPEED_ESTIMATED,
    SPEED_IMPORTED,
    SPEED_LABELS,
    SPEED_MEASURED,
    SPEED_PUBLISHED,
    LlmObservation,
    speed_cell,
)

LLAMA_8B = model_shape("Llama 3 8B")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llama_bench"


def test_a_published_row_is_shown_with_its_source() -> None:
    spec = gpu_spec("RTX 4090")
    assert LLAMA_8B is not None and spec is not None
    cell = speed_cell(spec, LLAMA_8B, Precision.Q4_K_M, 4096)
    assert cell.label == SPEED_PUBLISHED and cell.tokens_per_s == 130.58
    assert cell.source_url == "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference"
    assert "130.58 tokens/s" in cell.tooltip and cell.text() == "131 t/s · published"
    # Past 4k of context the published short-context figure says less than the estimate.
    # The row measured nearest the asked context stands for it: the RX 7900 XTX's tg64 after
    # 4096 tokens at 4k, its tg64 after none at 2k.
    xtx = gpu_spec("RX 7900 XTX")
    assert speed_cell(xtx, LLAMA_8B, Precision.Q4_K_M, 4096).tokens_per_s == 98.54
    assert speed_cell(xtx, LLAMA_8B, Precision.Q4_K_M, 2048).tokens_per_s == 105.81
    long = speed_cell(spec, LLAMA_8B, Precision.Q4_K_M, 32768)
    assert long.label == SPEED_ESTIMATED and long.tokens_per_s is not None
    assert long.tokens_per_s < 130.58 and "Published decode" in long.tooltip


def test_an_estimate_says_its_basis() -> None:
    assert LLAMA_8B is not None
    published_basis = speed_cell(gpu_spec("RTX 4090"), LLAMA_8B, Precision.INT8, 4096)
    assert published_basis.label == SPEED_ESTIMATED
    assert "ratio from published results" in published_basis.tooltip
    assert "Ratio from: Meta-Llama-3-8B Q4_K_M, CUDA, tg512" in published_basis.tooltip
    datasheet = speed_cell(gpu_spec("RX 6950 XT"), LLAMA_8B, Precision.Q4_K_M, 4096)
    assert "ratio from datasheet bandwidth only" in datasheet.tooltip
    measured = speed_cell(gpu_spec("RX 6950 XT"), LLAMA_8B, Precision.Q4_K_M, 4096,
                          measured_ratio=0.5)
    assert "ratio from measured ratio" in measured.tooltip
    unknown = speed_cell(None, LLAMA_8B, Precision.Q4_K_M, 4096)
    assert unknown.tokens_per_s is None and unknown.text() == "—"
    bare = speed_cell(None, LLAMA_8B, Precision.Q4_K_M, 4096, bandwidth_gb_s=960.0)
    assert bare.label == SPEED_ESTIMATED


def test_measured_and_imported_figures_come_first() -> None:
    spec = gpu_spec("RTX 4090")
    assert LLAMA_8B is not None and spec is not None
    seen = (LlmObservation(SPEED_IMPORTED, spec.name, "Llama 3 8B", Precision.Q4_K_M, 120.5,
                           "bench.md"),
            LlmObservation(SPEED_MEASURED, spec.name, "Llama 3 8B", Precision.Q4_K_M, 99.0,
                           "llm.decode, gpuscope bench"))
    cell = speed_cell(spec, LLAMA_8B, Precision.Q4_K_M, 4096, observations=seen)
    assert cell.label == SPEED_MEASURED and cell.tokens_per_s == 99.0
    imported = speed_cell(spec, LLAMA_8B, Precision.Q4_K_M, 4096, observations=seen[:1])
    assert imported.label == SPEED_IMPORTED and "bench.md" in imported.tooltip
    # Another card's or precision's figure is not this cell's.
    assert speed_cell(spec, LLAMA_8B, Precision.FP16, 4096,
                      observations=seen).label == SPEED_PUBLISHED


def test_imported_llama_bench_rows_become_observations() -> None:
    """A real llama-bench table (the fixture keeps its source URL) becomes "imported" figures
    when it names a known card, model size and quantisation."""
    files = sorted(FIXTURES.glob("*.txt"))
    items = [item for path in files for item in read_import(str(path)).results]
    observations = imported_observations(items)
    # Only the RX 7900 XT table names a card of the spec table, a model size of the model
    # table (7.24 B parameters: Mistral 7B's shape) and a quantisation with a known size; its
    # tg128 row is the one decode figure (pp rows are prompt processing).
    assert observations == (LlmObservation(
        SPEED_IMPORTED, "AMD Radeon RX 7900 XT", "Mistral 7B v0.1", Precision.INT8, 67.2,
        "md_rocm_rx7900xt_old_issue4763.txt"),)
    assert shape_for_parameters(8_030_261_248) is LLAMA_8B
    assert shape_for_parameters(None) is None and shape_for_parameters(12) is None


def test_an_imported_result_gets_a_verdict() -> None:
    """The RTX 3090 Ti table of PR 4812 (a fixture with its source URL), against the reference
    row copied from the same post: the KV cache on the GPU is normal; with it on the CPU
    (nkvo 1) decode runs at half the speed, which the verdict calls low."""
    items = read_import(str(FIXTURES / "md_cuda_rtx3090ti_pr4812.txt")).results
    levels = [(item.result.test, judge_imported(item).level) for item in items]
    assert levels == [("pp512", VerdictLevel.NORMAL), ("tg128", VerdictLevel.NORMAL),
                      ("pp512", VerdictLevel.LOW), ("tg128", VerdictLevel.LOW)]
    # llama-cli timings name no GPU or backend: nothing to compare with, and it says why.
    cli = read_import(str(FIXTURES / "cli_perf_context_issue34.txt")).results
    assert cli and all(judge_imported(item).level is VerdictLevel.UNKNOWN for item in cli)
    assert "does not name the GPU" in judge_imported(cli[0]).text


def test_a_measured_run_gives_its_decode_and_ratio() -> None:
    decode = BenchmarkResult(
        id="llm.decode", device="cuda:0", status=ResultStatus.OK, unit="tokens/s",
        higher_is_better=True, value=52.0,
        parameters={"model_shape": "Llama 3 8B", "dtype": "float16", "ceiling_ratio": 0.61})
    run = dataclasses.replace(bench_run(), results=(decode,), target=BenchTarget(
        matched_by="name", spec_name="NVIDIA GeForce RTX 4090"))
    observations = measured_observations([run])
    assert observations == (LlmObservation(SPEED_MEASURED, "NVIDIA GeForce RTX 4090",
                                           "Llama 3 8B", Precision.FP16, 52.0,
                                           "llm.decode, gpuscope bench"),)
    assert measured_decode_ratio([run]) == ("NVIDIA GeForce RTX 4090", 0.61)
    assert measured_decode_ratio([bench_run()]) is None


def test_the_compare_table_labels_its_llm_rows() -> None:
    rows = {row.key: row for row in ROWS if row.section == "LLM"}
    assert set(rows) == {"llm.llama3_8b", "llm.qwen25_14b", "llm.qwen25_32b", "llm.llama3_70b"}
    for name, key in (("RTX 4090", "llm.llama3_8b"), ("RX 6950 XT", "llm.qwen25_14b")):
        spec = gpu_spec(name)
        assert spec is not None
        profile = card_profile(spec)
        cell = rows[key].cell(CompareCard("kb", profile, CardOrigin.KNOWLEDGE), profile,
                              english)
        assert cell.value is not None and cell.value > 0
        assert cell.text.split(" · ")[1] in SPEED_LABELS
    spec = gpu_spec("RTX 4090")
    assert spec is not None
    profile = card_profile(spec)
    too_big = rows["llm.llama3_70b"].cell(CompareCard("kb", profile, CardOrigin.KNOWLEDGE),
                                          profile, english)
    assert too_big.value is None and "does not fit" in too_big.text
    assert "published" in row_tooltip(rows["llm.llama3_8b"])


def _report() -> ShareReport:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
    inventory = collect_inventory(system)
    data = DoctorInput(inventory, collect_frameworks(system, []))
    return prepare_report(data, diagnose(data), identity_sources=(
        system.snapshot.to_json(),)).report


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_report_section_in_markdown_html_and_json() -> None:
    report = _report()
    rows = report_speed_rows(report)
    assert rows and {r.card for r in rows} == {"AMD Radeon RX 7900 XTX"}
    llama_q4 = next(r for r in rows if r.model == "Llama 3 8B"
                    and r.precision is Precision.Q4_K_M)
    assert llama_q4.speed.label == SPEED_PUBLISHED and llama_q4.speed.tokens_per_s == 98.54
    seventy = next(r for r in rows if r.model == "Llama 3 70B"
                   and r.precision is Precision.FP16)
    assert seventy.fit == "does not fit" and seventy.speed.tokens_per_s is None

    markdown = "\n".join(speed_markdown(report))
    assert "## LLM: what fits and tokens/s" in markdown
    assert "| AMD Radeon RX 7900 XTX | Llama 3 8B | INT4 (Q4_K_M) | fits" in markdown
    assert "| 99 | published |" in markdown and "| estimated |" in markdown
    assert "<https://github.com/ggml-org/llama.cpp/pull/26284>" in markdown

    page = speed_html(report)
    parser = _Text()
    parser.feed(page)
    shown = " ".join(parser.text)
    assert "published" in shown and "estimated" in shown
    assert "(https://github.com/ggml-org/llama.cpp/pull/26284)" in page

    document = speed_json(rows)
    json.dumps(document, allow_nan=False)
    labelled = [d for d in document if d["decode_tokens_per_s"] is not None]
    assert labelled and all(d["label"] in SPEED_LABELS for d in labelled)
    assert all(d["label"] is None for d in document if d["decode_tokens_per_s"] is None)
