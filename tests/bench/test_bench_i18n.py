"""`gpuscope bench` in Chinese: the text output (headings, column names, status words, the
verdicts, stability and telemetry lines, history and comparison), the interpreter's line and
errors shown in the language chosen, with values (ids, numbers, paths, commands) as they are and
the columns still aligned; `--json` stays English byte for byte."""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_bench_interpreter import AI, OWN, RX6700, answer, inventory

from gpuscope.bench.assess import assess_run
from gpuscope.bench.command import format_run_text
from gpuscope.bench.history import RunHistory, compare_runs
from gpuscope.bench.interpreter import BenchInterpreters
from gpuscope.bench.results import (
    BenchmarkResult,
    BenchRun,
    BenchTelemetry,
    MetricSummary,
    ResultStatus,
    Spread,
    WorkerHello,
    run_from_json,
)
from gpuscope.bench.stability import result_stability
from gpuscope.cli import main
from gpuscope.i18n import ENGLISH, Message, localise, set_language
from gpuscope.inventory import FrameworkInspection

FIXTURE = Path(__file__).parents[1] / "fixtures" / "bench" / "nvidia_h200_full.json"
_CHINESE = re.compile(r"[\u4e00-\u9fff]")
_HEADINGS = ("基准测试", "状态", "数值", "单位", "相对误差", "峰值占比", "判断", "数学库", "备注")


def _has_chinese(text: str) -> bool:
    return bool(_CHINESE.search(text))


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _stored_run() -> BenchRun:
    run = run_from_json(json.loads(FIXTURE.read_text(encoding="utf-8")))
    assert run is not None
    return run


@pytest.fixture
def chinese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """$GPUSCOPE_LANG=zh_CN, as a user sets it; English again afterwards."""
    if not set_language("zh_CN"):
        pytest.skip("no compiled Chinese catalogue")
    set_language(ENGLISH)
    monkeypatch.setenv("GPUSCOPE_LANG", "zh_CN")
    yield
    set_language(ENGLISH)


@pytest.fixture
def kept_run() -> int:
    """The real H200 run kept in this test's own history (GPUSCOPE_DATA_DIR)."""
    return RunHistory().save(_stored_run())


def test_show_prints_chinese_headings_and_keeps_the_values(
        chinese: None, kept_run: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--show", str(kept_run)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("在 cuda:0（NVIDIA H200）上的基准测试：torch 2.11.0+cu130")
    assert lines[1] == "  对照：NVIDIA H200 SXM 141GB 的规格数据（匹配依据：PCI 总线地址）"
    assert lines[2] == "  17 项基准测试中有 17 项报告了结果，用时 42.2 秒"
    header = next(line for line in lines if line.startswith("基准测试 "))
    assert header.split() == [*_HEADINGS[:4], "最小..最大（重复次数）", *_HEADINGS[4:]]
    assert "与规格数据对比：" in lines
    assert any(line.startswith("每项基准测试期间的遥测（") for line in lines)
    assert "  matmul.fp32: 未降频，最高 58 °C，频率 1980 MHz，最高 661 W" in lines
    # Ids, numbers, units and libraries as they are; no English word left in the table.
    fp16 = next(line for line in lines if line.startswith("matmul.fp16 "))
    assert fp16.split()[:7] == ["matmul.fp16", "正常", "656", "TFLOPS", "546..664", "(n=42)",
                                "2.1e-04"]
    assert "989 的 66%" in fp16 and "cuBLAS" in fp16
    # The columns line up although a Chinese character takes two columns of a terminal: the
    # value and the unit (after the Chinese status) start where their headings do.
    rows = lines[lines.index(header) + 1:lines.index(header) + 18]
    assert len(rows) == 17
    for token, heading in ((2, "数值"), (3, "单位")):
        at = _width(header[:header.index(heading)])
        assert {_width(row[:_token_start(row, token)]) for row in rows} == {at}, heading


def _token_start(text: str, number: int) -> int:
    """Where the `number`th (from 0) whitespace-separated token of `text` starts."""
    return [match.start() for match in re.finditer(r"\S+", text)][number]


def test_json_stays_english_byte_for_byte(chinese: None, kept_run: int,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for lang in ([], ["--lang", "en"]):
        assert main([*lang, "bench", "--show", str(kept_run), "--json"]) == 0
        outputs.append(capsys.readouterr().out)
        assert main([*lang, "bench", "--history", "--json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[:2] == outputs[2:]
    assert not any(_has_chinese(text) for text in outputs)
    document = json.loads(outputs[0])
    assert document["compared_with"] == ("datasheet of the NVIDIA H200 SXM 141GB (matched by "
                                         "PCI bus address)")


def test_english_text_is_unchanged_by_the_translation_machinery(
        kept_run: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "en", "bench", "--show", str(kept_run)]) == 0
    out = capsys.readouterr().out
    assert out == format_run_text(_stored_run())
    assert "benchmark              status  value  unit    min..max (repeats)" in out
    assert not _has_chinese(out)


def test_history_and_compare_in_chinese(chinese: None, kept_run: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    second = RunHistory().save(dataclasses.replace(_stored_run(), python="/other/python"))
    assert main(["bench", "--history"]) == 0
    out = capsys.readouterr().out
    assert " 中有 2 次基准测试运行：" in out.splitlines()[0]
    assert out.splitlines()[2].split() == ["编号", "开始时间", "设备", "torch", "结果数", "结果"]
    assert main(["bench", "--compare", str(kept_run), str(second)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"运行 {kept_run}（A，NVIDIA H200, ")
    assert "  注意：解释器不同：A 为 python3，B 为 /other/python" in out
    assert "在波动范围内" in out and "within spread" not in out
    assert main(["bench", "--show", "99"]) == 1
    assert capsys.readouterr().err == "gpuscope bench: 历史记录中没有运行 99\n"


def _unstable_cpu_run() -> BenchRun:
    hello = WorkerHello(protocol=1, python="/usr/bin/python3", torch_version="2.7.1+cpu",
                        build="cpu", device="cpu", device_name="Xeon", threads=8)
    busy = BenchTelemetry("host", "host", 10, 5.0, metrics=(
        MetricSummary("host_cpu_percent", "CPU", "%", 10, 50, 90, 10),))
    result = BenchmarkResult("matmul.fp16", "cpu", ResultStatus.OK, "TFLOPS", True, 0.5,
                             Spread(0.029, 0.5, 0.882, 30, q1=0.1, q3=0.8), telemetry=busy)
    return BenchRun("/usr/bin/python3", ("matmul.fp16",), "cpu", hello, (result,), (), 0.0,
                    10.0, telemetry_before=busy)


def test_stability_and_comparison_words_are_translated_with_their_values(chinese: None) -> None:
    run = _unstable_cpu_run()
    set_language("zh_CN")
    stability = assess_run(run).results[0].stability
    assert stability is not None and stability.unstable
    assert localise(stability.words) == (
        "不稳定：重复测量结果在 0.029-0.882 TFLOPS 之间（30x），中间一半的跨度为中位数的 140%；"
        "可能的原因：本机上有其他负载：运行开始前主机 CPU 占用率为 50%")
    text = format_run_text(run)
    assert "matmul.fp16  不稳定" in text
    assert "不稳定（各次重复测量结果不一致；中位数不可信）：" in text
    row = compare_runs(run, run).rows[0]
    assert localise(row.change) == "在波动范围内"
    spread = result_stability(run.results[0])
    assert spread is not None
    words = localise(spread.text)
    assert localise(row.note) == f"A 不稳定：{words}；B 不稳定：{words}"
    set_language(ENGLISH)
    assert stability.words.startswith("unstable: repeats ranged 0.029-0.882 TFLOPS (30x)")


def test_the_no_torch_line_in_chinese_keeps_the_command_and_paths(chinese: None) -> None:
    inspection = FrameworkInspection((answer(OWN, "gpuscope", None),
                                      answer(AI, "VIRTUAL_ENV", None)))
    pick = BenchInterpreters(inventory=inventory(RX6700), inspection=inspection).choose("auto")
    assert isinstance(pick.reason, Message) and pick.install_command is not None
    set_language("zh_CN")
    shown = localise(pick.reason)
    assert shown.startswith("检查过的解释器都没有可在 GPU 0 (AMD Radeon RX 6700 XT, gfx1031) "
                            "上运行")
    assert pick.install_command in shown and "--python PATH" in shown
    assert f"{OWN} (gpuscope), {AI} (VIRTUAL_ENV)" in shown
