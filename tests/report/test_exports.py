"""The text exports: HTML loads nothing from anywhere, Markdown folds its long parts away,
both label replayed data and escape what the machine said; the SVG charts are safe to inline."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fixture_paths import SNAPSHOTS_DIR
from report_fixtures import bench_run, telemetry_summary

from gpuscope.doctor import DoctorInput, diagnose
from gpuscope.evidence import ReplaySystem
from gpuscope.inventory import collect_frameworks, collect_inventory
from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import code, report_markdown, text
from gpuscope.report.export_svg import bench_bars_svg, sparkline_svg
from gpuscope.report.share import prepare_report
from gpuscope.report.view_model import BenchRow, ShareReport


def _report(snapshot: str = "rx7900xtx_rocm.json", *, extras: bool = True) -> ShareReport:
    system = ReplaySystem.from_file(SNAPSHOTS_DIR / snapshot)
    inventory = collect_inventory(system)
    data = DoctorInput(inventory, collect_frameworks(system, []))
    return prepare_report(data, diagnose(data), bench_runs=(bench_run(),) if extras else (),
                          telemetry=telemetry_summary() if extras else None,
                          identity_sources=(system.snapshot.to_json(),)).report


class _Resources(HTMLParser):
    """Every URL an HTML page would fetch or link to."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "srcset", "poster", "data", "action", "xlink:href") \
                    and value:
                self.urls.append(value)


# ----------------------------------------------------------------------------- HTML


@pytest.mark.parametrize("snapshot", sorted(p.name for p in SNAPSHOTS_DIR.glob("*.json")))
def test_html_references_no_external_resource(snapshot: str) -> None:
    page = report_html(_report(snapshot))
    # Public https sources may be named in the text (issue #10); nothing is loaded from them.
    assert "http://" not in page
    assert not re.search(r"url\(", page, re.IGNORECASE)
    assert "@import" not in page
    parser = _Resources()
    parser.feed(page)
    assert all(url.startswith("data:") or url.startswith("#") for url in parser.urls), \
        parser.urls
    assert not {"script", "link", "iframe", "img", "object", "embed"} & set(parser.tags) \
        or all(url.startswith("data:") for url in parser.urls)
    assert "default-src 'none'" in page  # the browser is told so as well


def test_html_holds_every_part_and_labels_the_replay() -> None:
    page = report_html(_report())
    for heading in ("Machine", "Stack", "Frameworks", "Doctor findings", "Benchmarks",
                    "Telemetry"):
        assert f"<h2>{heading}</h2>" in page
    assert "REPLAYED SNAPSHOT" in page and "origin-replay" in page
    assert "<svg" in page and "<polyline" in page  # bars and sparklines, inline
    assert page.count("<details>") >= 3  # the long parts fold away
    assert "Raw report JSON" in page


def test_html_escapes_what_the_machine_says() -> None:
    report = _report(extras=False)
    gpu = dataclasses.replace(report.gpus[0], name='<script>alert("x")</script> & <host-1>')
    page = report_html(dataclasses.replace(report, gpus=(gpu,)))
    assert "<script>" not in page
    assert "&lt;script&gt;" in page and "&lt;host-1&gt;" in page


# ----------------------------------------------------------------------------- Markdown


def test_markdown_folds_the_long_parts() -> None:
    markdown = report_markdown(_report())
    opened = markdown.count("<details>")
    assert opened >= 3 and opened == markdown.count("</details>")
    assert "<summary>Raw report JSON (gpuscope.report/1)</summary>" in markdown
    # the summary stays outside: headings and the tables of the short parts
    before_details = markdown.split("<details>", 1)[0]
    assert "## Machine" in before_details and "| # | GPU |" in before_details
    # a blank line after <summary> lets GitHub render the Markdown inside
    assert re.search(r"</summary>\n\n", markdown)


def test_markdown_labels_the_replay_and_says_redacted() -> None:
    markdown = report_markdown(_report())
    first_lines = "\n".join(markdown.splitlines()[:6])
    assert "(replay)" in first_lines and "REPLAYED SNAPSHOT" in first_lines
    assert "redacted" in first_lines.lower()


def test_markdown_leaves_the_raw_json_out_of_a_post_too_long() -> None:
    markdown = report_markdown(_report(), max_chars=6000)
    assert "Raw report JSON" not in markdown
    assert "attach the JSON export" in markdown


def test_markdown_escaping() -> None:
    assert text("<host-1>") == "&lt;host-1&gt;"
    assert text("a|b*c_d") == r"a\|b\*c\_d"
    assert text("6.8.0-49-generic") == "6.8.0-49-generic"  # no stray backslash
    assert text("1. not a list") == r"1\. not a list"
    assert text("# not a heading") == r"\# not a heading"
    assert code("a`b") == "``a`b``"
    assert code("x|y") == r"`x\|y`"


def test_markdown_tables_keep_their_columns() -> None:
    """No cell breaks its table: every row of a table has the header's number of cells."""
    markdown = report_markdown(_report())
    tables: list[list[str]] = []
    previous_was_row = False
    for line in markdown.splitlines():
        is_row = line.startswith("|")
        if is_row and not previous_was_row:
            tables.append([])
        if is_row:
            tables[-1].append(line)
        previous_was_row = is_row
    assert len(tables) >= 4
    for table in tables:
        counts = {len(re.findall(r"(?<!\\)\|", row)) for row in table}
        assert len(counts) == 1, table


# ----------------------------------------------------------------------------- SVG


def _row(title: str, percent: float | None, band: tuple[float, float] | None = None) -> BenchRow:
    return BenchRow(id="matmul.fp16", title=title, status="ok", unit="TFLOPS", value=10.0,
                    peak_value=20.0, percent_of_peak=percent, band_pct=band, level="normal")


def test_bars_leave_out_results_without_a_peak_and_escape_titles() -> None:
    svg = bench_bars_svg([_row("<b>fp16</b>", 50.0, (70.0, 85.0)), _row("no peak", None)])
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "&lt;b&gt;fp16&lt;/b&gt;" in svg and "<b>" not in svg
    assert "no peak" not in svg
    assert "published: 70–85% of the peak" in svg
    assert "http" not in svg and "xlink" not in svg
    assert bench_bars_svg([_row("x", None)]) == ""


def test_sparkline_breaks_at_gaps() -> None:
    svg = sparkline_svg([1.0, 2.0, None, 3.0, 4.0, None, 5.0])
    assert svg.count("<polyline") == 2 and svg.count("<circle") == 1
    assert sparkline_svg([1.0]) == "" and sparkline_svg([None, None]) == ""
    flat = sparkline_svg([2.0, 2.0, 2.0])
    assert "<polyline" in flat and "nan" not in flat.lower()


def test_exports_of_a_report_read_back_from_json(tmp_path: Path) -> None:
    """Someone's JSON report renders the same as the report it was made from."""
    from gpuscope.report.reading import load_report_json
    from gpuscope.report.share import report_json_text

    report = _report()
    loaded = load_report_json(report_json_text(report))
    assert loaded.report is not None
    assert report_markdown(loaded.report) == report_markdown(report)
    assert report_html(loaded.report) == report_html(report)
