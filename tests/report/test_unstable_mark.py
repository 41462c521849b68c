"""A benchmark result whose repeats spread too far to believe its median carries the
"unstable" mark beside its row in every export; a steady one does not. The JSON keeps the
repeats' spread, from which a reader judges the same."""

from __future__ import annotations

import json

from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import bench_run_document

from gpuscope.bench.results import run_from_json
from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.i18n import ENGLISH, language
from gpuscope.inventory import collect_inventory
from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.reading import report_from_document
from gpuscope.report.share import prepare_report
from gpuscope.report.view_model import ShareReport


def unstable_report() -> ShareReport:
    """The fixture's run with bf16 matmul ranging 0.029 to 0.882 TFLOPS over its repeats (the
    case of issue #12), the rest steady."""
    doc = bench_run_document()
    bf16 = next(r for r in doc["results"] if r["id"] == "matmul.bf16")
    bf16.update(value=0.5, spread={"min": 0.029, "median": 0.5, "max": 0.882, "count": 20})
    run = run_from_json(doc)
    assert run is not None
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json")
    data = DoctorInput(collect_inventory(system), ())
    return prepare_report(data, diagnose(data), bench_runs=(run,)).report


def test_the_unstable_result_is_marked_and_the_steady_ones_are_not() -> None:
    report = unstable_report()
    rows = {row.id: row for row in report.bench[0].rows}
    assert rows["matmul.bf16"].unstable
    assert "0.029" in (rows["matmul.bf16"].stability or "")
    assert not rows["matmul.fp16"].unstable and rows["matmul.fp16"].stability is None
    with language(ENGLISH):
        markdown = report_markdown(report)
        page = report_html(report)
    marked = [line for line in markdown.splitlines() if "⚠ unstable" in line]
    assert len(marked) == 1 and marked[0].startswith("| BF16 matmul |")
    assert "0.029-0.882 TFLOPS (30x)" in markdown  # the verdicts in full say how far
    fp16 = next(line for line in markdown.splitlines() if line.startswith("| ")
                and "98.6 TFLOPS" in line)
    assert "unstable" not in fp16
    assert page.count("⚠ unstable</span>") == 1
    assert 'title="repeats ranged 0.029-0.882 TFLOPS (30x)' in page


def test_the_json_keeps_the_spread_and_reads_back_unstable() -> None:
    report = unstable_report()
    document = json.loads(json.dumps(report.document))
    spreads = {r["id"]: r["spread"] for r in document["bench_runs"][0]["results"]
               if r.get("spread")}
    assert spreads["matmul.bf16"]["max"] == 0.882
    again = report_from_document(document)
    assert {row.id for row in again.bench[0].rows if row.unstable} == {"matmul.bf16"}
