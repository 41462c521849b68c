"""The device-index table in the report (JSON, Markdown, HTML; the PNG in
tests/ui/test_report_render.py), when its numbers disagree, and one number format per unit."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from fixture_paths import SNAPSHOTS_DIR

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.metrics import CATALOGUE
from gpuscope.report.device_index import COLUMNS, IndexRow, index_from_json, indices_disagree
from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.formatting import format_percent, format_stat
from gpuscope.report.reading import load_report_json
from gpuscope.report.share import prepare_report, report_json_text
from gpuscope.report.view_model import BenchRow, ShareReport

HIDDEN = IndexRow(gpu=1, name="AMD Radeon Graphics", pci_bus="0000:13:00.0", kind="integrated",
                  drm_card="card2", drm_render_minor=129, kfd_node=2, smi_index=1,
                  hidden_by="HIP_VISIBLE_DEVICES=0")


def report_of(snapshot: str) -> ShareReport:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot)
    data = DoctorInput(collect_inventory(system), collect_frameworks(system, []))
    return prepare_report(data, diagnose(data),
                          identity_sources=(system.snapshot.to_json(),)).report


def test_the_json_holds_the_device_index_and_reads_it_back() -> None:
    report = report_of("apu_dgpu.json")
    document = json.loads(report_json_text(report))
    entries = document["device_index"]
    assert [(e["gpu_index"], e["pci_bus"], e["kfd_node"], e["hip_index"]) for e in entries] \
        == [(0, "0000:03:00.0", 1, 0), (1, "0000:13:00.0", 2, 1)]
    loaded = load_report_json(json.dumps(document)).report
    assert loaded is not None and loaded.device_index == report.device_index
    assert [row.cells() for row in loaded.device_index] == [
        ("0", "0000:03:00.0", "card1 / renderD128", "1", "–", "0", "–"),
        ("1", "0000:13:00.0", "card2 / renderD129", "2", "–", "1", "–")]


def test_a_damaged_device_index_is_left_out_not_fatal() -> None:
    assert index_from_json("nope") == ()
    rows = index_from_json([{"gpu_index": "0", "pci_bus": 7, "hip_index": 1}, 3,
                            {"gpu_index": 2, "note": "x" * 5000}])
    assert rows[0] == IndexRow(gpu=None, hip_index=1)
    assert rows[1].gpu == 2 and rows[1].note is not None and len(rows[1].note) == 300


def test_markdown_and_html_show_the_table_and_its_remarks() -> None:
    report = report_of("nvidia_rtx4090.json")
    markdown = report_markdown(report)
    assert "### Device index" in markdown
    assert "| " + " | ".join(COLUMNS) + " |" in markdown
    assert "| 1 | 0000:05:00.0 | card1 / renderD129 | – | 1 | – | – |" in markdown
    assert re.search(r"- GPUs 0, 1: CUDA numbers the fastest GPU first .*CUDA\\_DEVICE\\_ORDER",
                     markdown)
    page = report_html(report)
    assert '<h3 id="device-index">Device index</h3>' in page
    assert "<td>0000:05:00.0</td><td>card1 / renderD129</td>" in page
    assert "GPUs 0, 1: CUDA numbers the fastest GPU first" in page
    # A GPU hidden from the frameworks says by what.
    hidden = dataclasses.replace(report, device_index=(HIDDEN,))
    assert "- GPU 1: hidden by HIP\\_VISIBLE\\_DEVICES=0" in report_markdown(hidden)
    assert "GPU 1: hidden by HIP_VISIBLE_DEVICES=0" in report_html(hidden)
    # Without a device index (an older report), no empty section.
    bare = dataclasses.replace(report, device_index=())
    assert "Device index" not in report_markdown(bare).split("Raw report JSON")[0]
    assert "Device index" not in report_html(bare).split("Raw report JSON")[0]


def test_indices_disagree_when_a_framework_numbers_a_gpu_otherwise() -> None:
    same = IndexRow(gpu=0, smi_index=0, hip_index=0)
    assert not indices_disagree([same, IndexRow(gpu=1, smi_index=1, hip_index=1)])
    assert not indices_disagree([IndexRow(gpu=0)])  # no framework number: nothing to confuse
    assert indices_disagree([same, HIDDEN])
    assert indices_disagree([IndexRow(gpu=1, cuda_index=0)])  # torch's cuda:0 is GPU 1
    assert indices_disagree([IndexRow(gpu=0, smi_index=1, hip_index=0)])
    assert indices_disagree([IndexRow(gpu=0, note="CUDA numbers the fastest GPU first")])
    assert not indices_disagree(report_of("apu_dgpu.json").device_index)
    assert indices_disagree(report_of("nvidia_rtx4090.json").device_index)


# ----------------------------------------------------------------------------- number formats


@pytest.mark.parametrize("unit", sorted({info.unit for info in CATALOGUE.values()}))
def test_one_format_per_unit_of_the_metric_catalogue(unit: str) -> None:
    """A small and a large reading of one unit have as many decimals ("3.0" and "67.3",
    never "3.00" next to "67.3")."""

    def decimals(text: str) -> int:
        number = re.search(r"[\d,]+(?:\.(\d+))?", text)
        assert number is not None, text
        return len(number.group(1) or "")

    assert decimals(format_stat(3.0, unit)) == decimals(format_stat(67.3, unit)) \
        == decimals(format_stat(1234.5, unit))


def test_percentages_are_whole_numbers_everywhere_in_the_report() -> None:
    assert [format_percent(v) for v in (0.0, 0.2, 3.0, 6.5, 67.3, 99.6, 100.0)] == [
        "0%", "<1%", "3%", "7%", "67%", "100%", "100%"]
    assert format_stat(3.0, "%") == "3%" and format_stat(67.3, "%") == "67%"
    assert format_stat(3.0, "GiB") == "3.0 GiB" and format_stat(67.25, "GiB") == "67.2 GiB"
    row = BenchRow("matmul.int8", "INT8 matmul", "ok", "TOPS", value=129.0, peak_value=1979.0,
                   percent_of_peak=6.52)
    assert row.percent_text == "7%"
