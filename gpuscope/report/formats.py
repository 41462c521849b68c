"""The report's text formats by name, for the command line and the Report page (the PNG is
drawn by `gpuscope.ui.report.render`, the only format that needs Qt)."""

from __future__ import annotations

from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.share import report_json_text
from gpuscope.report.view_model import ShareReport
from gpuscope.untrusted import clean_text, escape_json_controls

TEXT_FORMATS: tuple[str, ...] = ("html", "md", "json")


def export_text(report: ShareReport, fmt: str) -> str:
    """The text of one export format: "html", "md" or "json"."""
    # Text from the machine may hold terminal controls (a GPU name in a shared snapshot):
    # stripped from the documents people open in a terminal or paste, escaped in the JSON.
    if fmt == "html":
        return clean_text(report_html(report))
    if fmt == "md":
        return clean_text(report_markdown(report))
    if fmt == "json":
        return escape_json_controls(report_json_text(report))
    raise ValueError(f"no text export {fmt!r}; one of {', '.join(TEXT_FORMATS)}")
