"""The report's text formats by name, for the command line and the Report page (the PNG is
drawn by `gpuscope.ui.report_render`, the only format that needs Qt)."""

from __future__ import annotations

from gpuscope.report.export_html import report_html
from gpuscope.report.export_markdown import report_markdown
from gpuscope.report.share import ShareReport, report_json_text

TEXT_FORMATS: tuple[str, ...] = ("html", "md", "json")


def export_text(report: ShareReport, fmt: str) -> str:
    """The text of one export format: "html", "md" or "json"."""
    if fmt == "html":
        return report_html(report)
    if fmt == "md":
        return report_markdown(report)
    if fmt == "json":
        return report_json_text(report)
    raise ValueError(f"no text export {fmt!r}; one of {', '.join(TEXT_FORMATS)}")
