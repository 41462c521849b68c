"""The share report as Markdown for GitHub issues and forums: tables for the summary, the long
parts (evidence, full finding details, verdicts in full, the raw JSON) in `<details>` blocks.

Every piece of text from the machine is escaped: a placeholder such as `<host-1>` would be
taken for an HTML tag and vanish, a `|` would break a table.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from gpuscope.report.formatting import format_duration, format_stat, format_unix
from gpuscope.report.view_model import BenchSection, ReportFinding, ShareReport
from gpuscope.untrusted import clean_text

# GitHub refuses comments over 65,536 characters; forums are stricter still.
MAX_CHARS = 60_000
VERDICT_MARKS = {"normal": "✓", "low": "▼", "high": "▲", "unknown": "–", "unsupported": "–",
                 "failed": "✗"}
REDACTED_NOTE = ("Personal details are redacted: host and user names, home paths, serial "
                 "numbers, UUIDs, MAC and IP addresses appear as placeholders such as "
                 "<host-1>.")
NOT_REDACTED_NOTE = ("Not redacted: this report may contain host and user names, home paths, "
                     "serial numbers, UUIDs, MAC and IP addresses.")

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def text(value: str) -> str:
    """Inline Markdown text showing `value` literally: HTML and Markdown specials escaped,
    line breaks folded into spaces."""
    escaped = clean_text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _SPECIAL.sub(r"\\\1", escaped)
    escaped = " ".join(escaped.split())
    # A line that starts like a heading, a list or a quote would become one. Only ASCII
    # punctuation can be escaped: "1. " becomes "1\. ", never "\1." (shown as written).
    escaped = re.sub(r"^(\d+)([.)])(?=\s|$)", r"\1\\\2", escaped)
    return re.sub(r"^([#>+\-=])", r"\\\1", escaped)


def code(value: str) -> str:
    """An inline code span holding `value` literally (placeholders need no escaping here)."""
    flat = " ".join(clean_text(value).split()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def code_block(value: str, language: str = "") -> list[str]:
    value = clean_text(value)
    longest = max((len(run) for run in re.findall(r"`{3,}", value)), default=2)
    fence = "`" * (longest + 1)
    return [f"{fence}{language}", *value.rstrip("\n").split("\n"), fence]


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GFM table; the cells are Markdown already (escape them with `text`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return lines


def details(summary: str, body: Sequence[str]) -> list[str]:
    # The blank lines let Markdown inside the block be parsed as Markdown.
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _head(report: ShareReport) -> list[str]:
    origin = report.origin
    suffix = "" if origin.is_live else f" ({'replay' if origin.kind == 'replay' else origin.kind})"
    lines = [f"# {text(report.title)}{suffix}", ""]
    warning = "" if origin.is_live else "⚠ "
    lines += [f"> **{warning}{text(origin.title)}.** "
              f"{text(origin.sentence(report.generated_unix_s))}", ""]
    made = (f"Made by gpuscope {text(report.gpuscope_version or '?')} on "
            f"{format_unix(report.generated_unix_s)}.")
    note = text(REDACTED_NOTE if report.redacted else "⚠ " + NOT_REDACTED_NOTE)
    lines += [f"{made} {note} **{text(report.verdict_line())}**", ""]
    return lines


def _machine(report: ShareReport) -> list[str]:
    rows = report.platform.rows()
    lines = ["## Machine", ""]
    lines += table(["", ""], [(f"**{label}**", text(value)) for label, value in rows])
    lines.append("")
    lines += ["### GPUs", ""]
    if not report.gpus:
        lines += ["No GPU found.", ""]
        return lines
    rows_gpu = []
    for gpu in report.gpus:
        name = text(gpu.name)
        if gpu.board_name:
            name += f"<br>{text(gpu.board_name)}"
        if gpu.name_candidates:
            name += f"<br>could be: {text(' / '.join(gpu.name_candidates))}"
        driver = " ".join(p for p in (gpu.kernel_driver, gpu.driver_version) if p)
        rows_gpu.append((str(gpu.index), name, gpu.vendor_label, text(gpu.target or "?"),
                         text(gpu.vram_text or "?"), text(driver or "?"),
                         text(" ".join(p for p in (gpu.pci_id_text, gpu.pci_bus) if p) or "?")))
    lines += table(["#", "GPU", "Vendor", "Target", "VRAM", "Driver", "PCI"], rows_gpu)
    lines.append("")
    return lines


def _stack(report: ShareReport) -> list[str]:
    lines = ["## Stack", ""]
    for gpu in report.gpus:
        rows = report.layers_of(gpu.index)
        if not rows:
            continue
        lines += [f"**GPU {gpu.index}: {text(gpu.name)}**", ""]
        lines += table(["Layer", "State", "What gpuscope found"],
                       [(text(row.name), f"{row.mark} {row.word}", text(row.text))
                        for row in rows])
        lines.append("")
    if report.stack:
        lines += table(["Component", "Version"],
                       [(text(label), text(value)) for label, value in report.stack])
        lines.append("")
    extra: list[str] = []
    if report.environment:
        extra += table(["Variable", "Value"],
                       [(code(name), code(value)) for name, value in report.environment])
        extra.append("")
    if report.device_nodes:
        extra += table(["Device node", "Access"],
                       [(code(path), text(access)) for path, access in report.device_nodes])
    if extra:
        lines += details("Environment variables and device nodes", extra)
    return lines


def _frameworks(report: ShareReport) -> list[str]:
    lines = ["## Frameworks", ""]
    if not report.frameworks:
        return [*lines, "No framework inspected (run `gpuscope doctor --python PATH`).", ""]
    rows = []
    for fw in report.frameworks:
        smoke = fw.error or fw.smoke_test or "not run"
        rows.append((text(fw.name), text(fw.version or "?"), text(fw.build_text),
                     text(fw.sees_text) + (f" ({text(', '.join(fw.devices))})"
                                           if fw.devices else ""),
                     text(smoke), code(fw.python) if fw.python else "?"))
    lines += table(["Framework", "Version", "Build", "Sees a GPU", "Smoke test", "Python"],
                   rows)
    lines.append("")
    return lines


def _finding(finding: ReportFinding) -> list[str]:
    where = f", GPU {finding.gpu}" if finding.gpu is not None else ""
    lines = [f"**{finding.mark} {text(finding.word)}: {text(finding.title)}** "
             f"({code(finding.id)}{where})", ""]
    if finding.fix:
        lines += [f"Fix: {text(finding.fix)}", ""]
    if finding.fix_commands:
        lines += [*code_block("\n".join(finding.fix_commands), "sh"), ""]
    body: list[str] = []
    if finding.detail:
        body += [text(finding.detail), ""]
    if finding.evidence:
        body += ["Evidence:", ""] + [f"- {code(ref)}" for ref in finding.evidence] + [""]
    if finding.sources:
        body += ["Sources:", ""] + [f"- <{url}>" for url in finding.sources]
    if body:
        lines += details("Details and evidence", body)
    return lines


def _findings(report: ShareReport) -> list[str]:
    lines = ["## Doctor findings", ""]
    if not report.findings:
        return [*lines, "No findings.", ""]
    for finding in report.findings:
        lines += _finding(finding)
    return lines


def _bench_section(section: BenchSection) -> list[str]:
    card = f" against the {text(section.card)} datasheet" if section.card else ""
    lines = [f"**{text(section.device)}**, {text(section.torch)}: "
             f"{format_unix(section.started_unix_s)}, {format_duration(section.duration_s)}"
             f"{card}", ""]
    if section.note:
        lines += [f"_{text(section.note)}_", ""]
    if section.rows:
        rows = []
        for row in section.rows:
            peak = row.peak_text + (f" ({text(row.peak_label)})" if row.peak_label else "")
            rows.append((text(row.title), text(row.value_text), text(peak),
                         row.percent_text,
                         f"{VERDICT_MARKS.get(row.level, '–')} {text(row.level_word)}"))
        lines += table(["Benchmark", "Measured", "Datasheet peak", "% of peak", "Verdict"],
                       rows)
        lines.append("")
        lines += details("Verdicts in full", [f"- **{text(row.title)}**: {text(row.verdict)}"
                                              for row in section.rows if row.verdict])
    for error in section.errors:
        lines += [f"✗ {text(error)}", ""]
    if section.not_run:
        lines += [f"Not run: {text(', '.join(section.not_run))}", ""]
    return lines


def _bench(report: ShareReport) -> list[str]:
    if not report.bench:
        return []
    lines = ["## Benchmarks", ""]
    for section in report.bench:
        lines += _bench_section(section)
    return lines


def _telemetry(report: ShareReport) -> list[str]:
    summary = report.telemetry
    if summary is None:
        return []
    when = (f" from {format_unix(summary.started_unix_s)}"
            if summary.started_unix_s is not None else "")
    lines = ["## Telemetry", "",
             f"{text(summary.source)}: {format_duration(summary.duration_s)}{when}.", ""]
    rows = []
    for device in summary.devices:
        for number, stat in enumerate(device.metrics):
            rows.append((f"**{text(device.label)}**" if number == 0 else "",
                         text(stat.label), text(format_stat(stat.min, stat.unit)),
                         text(format_stat(stat.avg, stat.unit)),
                         text(format_stat(stat.max, stat.unit))))
    lines += table(["Device", "Metric", "Min", "Avg", "Max"], rows)
    lines.append("")
    return lines


def report_markdown(report: ShareReport, *, max_chars: int = MAX_CHARS) -> str:
    """The report as Markdown. The raw JSON goes in a collapsed block at the end, unless the
    post would then be longer than `max_chars`: then a line says to attach the JSON export."""
    lines = _head(report)
    lines += _machine(report)
    lines += _stack(report)
    lines += _frameworks(report)
    lines += _findings(report)
    lines += _bench(report)
    lines += _telemetry(report)
    if report.problems:
        lines += ["Parts of this report could not be read: "
                  + text("; ".join(report.problems)), ""]
    body = "\n".join(lines)
    raw = json.dumps(report.document, indent=1, ensure_ascii=False)
    block = "\n".join(details(f"Raw report JSON ({text(str(report.document.get('schema', '?')))})",
                              code_block(raw, "json")))
    if len(body) + len(block) + 1 <= max_chars:
        return body + "\n" + block
    return body + ("\n_The raw JSON is too long for one post: attach the JSON export "
                   "(`gpuscope report --format json`)._\n")
