"""The share report as Markdown for GitHub issues and forums: tables for the summary, the long
parts (evidence, full finding details, verdicts in full, the raw JSON) in `<details>` blocks.

Every piece of text from the machine is escaped: a placeholder such as `<host-1>` would be
taken for an HTML tag and vanish, a `|` would break a table.

Written in the language chosen (`gpuscope.i18n`; `gpuscope.i18n.language` picks another for
one report): the report's messages through `localise`, its own words through `gettext`. The
raw JSON at the end stays English.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from gpuscope.i18n import N_, gettext, localise
from gpuscope.report.device_index import COLUMNS, remark_lines
from gpuscope.report.formatting import format_duration, format_stat, format_unix
from gpuscope.report.llm_speed import speed_markdown
from gpuscope.report.telemetry_summary import shown
from gpuscope.report.view_model import (
    UNSTABLE_WORD,
    BenchSection,
    ReportFinding,
    ShareReport,
    TelemetrySummary,
)
from gpuscope.untrusted import clean_text

# GitHub refuses comments over 65,536 characters; forums are stricter still.
MAX_CHARS = 60_000
# Beside a result whose repeats spread too far (`BenchRow.unstable`).
UNSTABLE_MARK = "⚠"
VERDICT_MARKS = {"normal": "✓", "low": "▼", "high": "▲", "unknown": "–", "unsupported": "–",
                 "failed": "✗"}
# Shown with `localise`.
REDACTED_NOTE = N_("Personal details are redacted: host and user names, home paths, serial "
                   "numbers, UUIDs, MAC and IP addresses appear as placeholders such as "
                   "<host-1>.")
NOT_REDACTED_NOTE = N_("Not redacted: this report may contain host and user names, home "
                       "paths, serial numbers, UUIDs, MAC and IP addresses.")

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def text(value: str) -> str:
    """Inline Markdown text showing `value` (localised) literally: HTML and Markdown specials
    escaped, line breaks folded into spaces."""
    escaped = clean_text(localise(value))
    escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
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
    kind = (gettext("replay") if origin.kind == "replay"
            else gettext("imported") if origin.kind == "imported" else gettext("unknown"))
    title = (localise(report.title) if origin.is_live
             else gettext("{title} ({kind})").format(title=localise(report.title), kind=kind))
    lines = [f"# {text(title)}", ""]
    warning = "" if origin.is_live else "⚠ "
    lines += [f"> **{warning}{text(gettext('{title}.').format(title=localise(origin.title)))}**"
              f" {text(origin.sentence(report.generated_unix_s))}", ""]
    made = text(gettext("Made by gpuscope {version} on {when}.").format(
        version=report.gpuscope_version or "?", when=localise(format_unix(
            report.generated_unix_s))))
    note = (text(REDACTED_NOTE) if report.redacted
            else "⚠ " + text(NOT_REDACTED_NOTE))
    lines += [f"{made} {note} **{text(report.verdict_line())}**", ""]
    return lines


def _machine(report: ShareReport) -> list[str]:
    rows = report.platform.rows()
    lines = ["## " + gettext("Machine"), ""]
    lines += table(["", ""], [(f"**{text(label)}**", text(value)) for label, value in rows])
    lines.append("")
    lines += ["### " + gettext("GPUs"), ""]
    if not report.gpus:
        lines += [text(gettext("No GPU found.")), ""]
        return lines
    rows_gpu = []
    for gpu in report.gpus:
        name = text(gpu.name)
        if gpu.board_name:
            name += f"<br>{text(gpu.board_name)}"
        if gpu.name_candidates:
            name += "<br>" + text(gettext("could be: {names}").format(
                names=" / ".join(gpu.name_candidates)))
        driver = " ".join(p for p in (gpu.kernel_driver, gpu.driver_version) if p)
        rows_gpu.append((str(gpu.index), name, text(gpu.vendor_label), text(gpu.target or "?"),
                         text(gpu.vram_text or "?"), text(driver or "?"),
                         text(" ".join(p for p in (gpu.pci_id_text, gpu.pci_bus) if p) or "?")))
    lines += table(["#", "GPU", gettext("Vendor"), gettext("Target"), "VRAM",
                    gettext("Driver"), "PCI"], rows_gpu)
    lines.append("")
    return lines + _device_index(report)


def _device_index(report: ShareReport) -> list[str]:
    """How each layer numbers each GPU (HIP and CUDA: after the *_VISIBLE_DEVICES variables)."""
    if not report.device_index:
        return []
    lines = ["### " + gettext("Device index"), ""]
    lines += table([text(column) for column in COLUMNS], [[text(cell) for cell in row.cells()]
                                   for row in report.device_index])
    lines.append("")
    for remark in remark_lines(report.device_index):
        lines += [f"- {text(remark)}"]
    if lines[-1] != "":
        lines.append("")
    return lines


def _stack(report: ShareReport) -> list[str]:
    lines = ["## " + gettext("Stack"), ""]
    for gpu in report.gpus:
        rows = report.layers_of(gpu.index)
        if not rows:
            continue
        lines += [f"**GPU {gpu.index}: {text(gpu.name)}**", ""]
        lines += table([gettext("Layer"), gettext("State"), gettext("What gpuscope found")],
                       [(text(row.name), f"{row.mark} {text(row.word)}", text(row.text))
                        for row in rows])
        lines.append("")
    if report.stack:
        lines += table([gettext("Component"), gettext("Version")],
                       [(text(label), text(value)) for label, value in report.stack])
        lines.append("")
    extra: list[str] = []
    if report.environment:
        extra += table([gettext("Variable"), gettext("Value")],
                       [(code(name), code(value)) for name, value in report.environment])
        extra.append("")
    if report.device_nodes:
        extra += table([gettext("Device node"), gettext("Access")],
                       [(code(path), text(access)) for path, access in report.device_nodes])
    if extra:
        lines += details(text(gettext("Environment variables and device nodes")), extra)
    return lines


def _frameworks(report: ShareReport) -> list[str]:
    lines = ["## " + gettext("Frameworks"), ""]
    if not report.frameworks:
        return [*lines, gettext("No framework inspected (run {command}).").format(
            command="`gpuscope doctor --python PATH`"), ""]
    rows = []
    for fw in report.frameworks:
        smoke = fw.error or fw.smoke_test or gettext("not run")
        rows.append((text(fw.name), text(fw.version or "?"), text(fw.build_text),
                     text(fw.sees_text) + (f" ({text(', '.join(fw.devices))})"
                                           if fw.devices else ""),
                     text(smoke), code(fw.python) if fw.python else "?"))
    lines += table([gettext("Framework"), gettext("Version"), gettext("Build"),
                    gettext("Sees a GPU"), gettext("Smoke test"), "Python"], rows)
    lines.append("")
    return lines


def _llm_runtimes(report: ShareReport) -> list[str]:
    if not report.llm_runtimes:
        return []
    return ["## " + gettext("LLM runtimes"), "",
            *(f"- {'✓' if found else '✗'} {text(localise(line))}"
              for found, line in report.llm_runtimes), ""]


def _finding(finding: ReportFinding) -> list[str]:
    where = f", GPU {finding.gpu}" if finding.gpu is not None else ""
    heading = gettext("{severity}: {title}").format(severity=localise(finding.word),
                                                    title=localise(finding.title))
    lines = [f"**{finding.mark} {text(heading)}** ({code(finding.id)}{where})", ""]
    if finding.fix:
        lines += [text(gettext("Fix: {fix}").format(fix=localise(finding.fix))), ""]
    if finding.fix_commands:
        lines += [*code_block("\n".join(finding.fix_commands), "sh"), ""]
    body: list[str] = []
    if finding.detail:
        for part in localise(finding.detail).splitlines():
            body += [text(part), ""]
    if finding.evidence:
        body += [text(gettext("Evidence:")), ""] + [f"- {code(ref)}"
                                                     for ref in finding.evidence] + [""]
    if finding.sources:
        body += [text(gettext("Sources:")), ""] + [f"- <{url}>" for url in finding.sources]
    if body:
        lines += details(text(gettext("Details and evidence")), body)
    return lines


def _findings(report: ShareReport) -> list[str]:
    lines = ["## " + gettext("Doctor findings"), ""]
    if not report.findings:
        return [*lines, text(gettext("No findings.")), ""]
    for finding in report.findings:
        lines += _finding(finding)
    return lines


def _bench_section(section: BenchSection) -> list[str]:
    when = text(gettext("{when}, {duration}").format(
        when=localise(format_unix(section.started_unix_s)),
        duration=localise(format_duration(section.duration_s))))
    if section.card:
        when = text(gettext("{when}, {duration} against the {card} datasheet").format(
            when=localise(format_unix(section.started_unix_s)),
            duration=localise(format_duration(section.duration_s)), card=section.card))
    lines = [f"**{text(section.device)}**, {text(section.torch)}: {when}", ""]
    if section.note:
        lines += [f"_{text(section.note)}_", ""]
    if section.rows:
        rows = []
        for row in section.rows:
            peak = text(row.peak_text) + (f" ({text(row.peak_label)})" if row.peak_label
                                          else "")
            verdict = f"{VERDICT_MARKS.get(row.level, '–')} {text(row.level_word)}"
            if row.unstable:
                verdict += f" · {UNSTABLE_MARK} {text(UNSTABLE_WORD)}"
            rows.append((text(row.title), text(row.value_text), text(peak),
                         row.percent_text, verdict))
        lines += table([gettext("Benchmark"), gettext("Measured"), gettext("Datasheet peak"),
                        gettext("% of peak"), gettext("Verdict")], rows)
        lines.append("")
        lines += details(text(gettext("Verdicts in full")),
                         [f"- **{text(row.title)}**: {text(row.verdict)}"
                          + (f" {UNSTABLE_MARK} {text(row.stability)}" if row.stability else "")
                          for row in section.rows if row.verdict])
    for error in section.errors:
        lines += [f"✗ {text(error)}", ""]
    if section.not_run:
        lines += [text(gettext("Not run: {benchmarks}").format(
            benchmarks=", ".join(localise(name) for name in section.not_run))), ""]
    return lines


def _bench(report: ShareReport) -> list[str]:
    if not report.bench:
        return []
    lines = ["## " + gettext("Benchmarks"), ""]
    for section in report.bench:
        lines += _bench_section(section)
    return lines


def _telemetry(report: ShareReport) -> list[str]:
    summary = report.telemetry
    if summary is None:
        return []
    lines = ["## " + gettext("Telemetry"), "", text(telemetry_line(summary)), ""]
    rows: list[tuple[str, ...]] = []
    if summary.at_capture:  # one reading each: no min, avg and max over time
        for device in summary.devices:
            for number, stat in enumerate(device.metrics):
                rows.append((f"**{text(shown(device.label))}**" if number == 0 else "",
                             text(shown(stat.label)), text(format_stat(stat.avg, stat.unit))))
        lines += table([gettext("Device"), gettext("Metric"), gettext("At capture")], rows)
        return [*lines, ""]
    for device in summary.devices:
        for number, stat in enumerate(device.metrics):
            rows.append((f"**{text(shown(device.label))}**" if number == 0 else "",
                         text(shown(stat.label)), text(format_stat(stat.min, stat.unit)),
                         text(format_stat(stat.avg, stat.unit)),
                         text(format_stat(stat.max, stat.unit))))
    lines += table([gettext("Device"), gettext("Metric"), gettext("Min"), gettext("Avg"),
                    gettext("Max")], rows)
    lines.append("")
    return lines


def telemetry_line(summary: TelemetrySummary) -> str:
    """"live sampler: 5 min from 2026-01-01 10:00 UTC.", localised (every format says it);
    of a snapshot's single readings, when they were captured."""
    if summary.at_capture:
        if summary.started_unix_s is None:
            return gettext("{source}: single readings at capture (the snapshot does not say "
                           "when).").format(source=shown(summary.source))
        return gettext("{source}: single readings at capture, {when}.").format(
            source=shown(summary.source), when=localise(format_unix(summary.started_unix_s)))
    duration = localise(format_duration(summary.duration_s))
    if summary.started_unix_s is None:
        return gettext("{source}: {duration}.").format(source=shown(summary.source),
                                                       duration=duration)
    return gettext("{source}: {duration} from {when}.").format(
        source=shown(summary.source), duration=duration,
        when=localise(format_unix(summary.started_unix_s)))


def report_markdown(report: ShareReport, *, max_chars: int = MAX_CHARS) -> str:
    """The report as Markdown. The raw JSON goes in a collapsed block at the end, unless the
    post would then be longer than `max_chars`: then a line says to attach the JSON export."""
    lines = _head(report)
    lines += _machine(report)
    lines += _stack(report)
    lines += _frameworks(report)
    lines += _llm_runtimes(report)
    lines += _findings(report)
    lines += _bench(report)
    lines += speed_markdown(report)
    lines += _telemetry(report)
    if report.problems:
        lines += [text(gettext("Parts of this report could not be read: {problems}").format(
            problems="; ".join(localise(problem) for problem in report.problems))), ""]
    body = "\n".join(lines)
    raw = json.dumps(report.document, indent=1, ensure_ascii=False)
    block = "\n".join(details(text(gettext("Raw report JSON ({schema})").format(
        schema=str(report.document.get("schema", "?")))), code_block(raw, "json")))
    if len(body) + len(block) + 1 <= max_chars:
        return body + "\n" + block
    return body + "\n_" + gettext("The raw JSON is too long for one post: attach the JSON "
                                   "export ({command}).").format(
        command="`gpuscope report --format json`") + "_\n"
