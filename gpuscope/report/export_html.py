"""The share report as one self-contained HTML file: inline CSS, charts as inline SVG, nothing
loaded from anywhere (a Content-Security-Policy of `default-src 'none'` says so to the
browser as well). Long parts (finding details and evidence, verdicts in full, the raw JSON)
are collapsed in `<details>`.

Every text from the machine is escaped; placeholders such as `<host-1>` show as written.
Written in the language chosen, as the Markdown is (`export_markdown`); the raw JSON stays
English.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence

from gpuscope.i18n import ENGLISH, current_language, gettext, localise
from gpuscope.metrics import HOST_DEVICE
from gpuscope.report import style
from gpuscope.report.device_index import COLUMNS, remark_lines
from gpuscope.report.export_markdown import (
    NOT_REDACTED_NOTE,
    REDACTED_NOTE,
    UNSTABLE_MARK,
    telemetry_line,
)
from gpuscope.report.export_svg import bench_bars_svg, sparkline_svg
from gpuscope.report.formatting import format_duration, format_stat, format_unix
from gpuscope.report.llm_speed import speed_html
from gpuscope.report.telemetry_summary import shown
from gpuscope.report.view_model import (
    UNSTABLE_WORD,
    BenchSection,
    DeviceTelemetry,
    ReportFinding,
    ReportGpu,
    ShareReport,
)
from gpuscope.untrusted import clean_text

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = f"""
*{{box-sizing:border-box}}
body{{margin:0;background:#e9edf2;color:{style.TEXT};
 font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}}
main{{max-width:1040px;margin:24px auto;background:{style.PAGE};border-radius:10px;
 box-shadow:0 1px 4px rgba(0,0,0,.12);padding:28px 36px 36px}}
h1{{font-size:28px;margin:0 0 12px}}
h2{{font-size:21px;margin:30px 0 10px;padding-bottom:4px;border-bottom:2px solid {style.BORDER}}}
h3{{font-size:17px;margin:18px 0 8px}}
.origin{{border-radius:8px;padding:12px 16px;margin:0 0 12px;color:{style.ORIGIN_TEXT}}}
.origin b{{font-size:18px;display:block}}
.meta{{color:{style.MUTED};margin:0 0 6px}}
.verdict{{font-weight:600;font-size:18px;margin:8px 0 0}}
table{{border-collapse:collapse;width:100%;margin:6px 0 10px}}
th,td{{text-align:left;padding:6px 10px;border-bottom:1px solid {style.BORDER};
 vertical-align:top}}
th{{background:{style.PANEL};font-weight:600}}
table.kv th{{width:130px;background:none}}
.num{{text-align:right;white-space:nowrap}}
.gpus{{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}}
.card{{border:1px solid {style.BORDER};border-radius:8px;padding:12px 14px;
 background:{style.PANEL}}}
.card .name{{font-weight:700;font-size:18px}}
.card dl{{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:8px 0 0}}
.card dt{{color:{style.MUTED}}}
.card dd{{margin:0}}
.chip{{display:inline-block;border-radius:999px;padding:1px 10px;color:#fff;font-weight:600;
 font-size:14px;white-space:nowrap}}
.layers td:first-child{{width:230px}}
.finding{{border-left:5px solid;border-radius:4px;padding:8px 14px;margin:10px 0;
 background:{style.PANEL}}}
.finding .title{{font-weight:700}}
.finding .id{{color:{style.MUTED};font-size:14px}}
code,pre{{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:14px}}
code{{background:{style.CODE_BACKGROUND};border-radius:3px;padding:0 3px}}
pre{{background:{style.CODE_BACKGROUND};border-radius:6px;padding:8px 12px;overflow-x:auto;
 white-space:pre-wrap;word-break:break-word;margin:6px 0}}
pre code{{background:none;padding:0}}
details{{margin:6px 0}}
summary{{cursor:pointer;color:{style.ACCENT};font-weight:600}}
.tiles{{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:10px;
 margin:6px 0 14px}}
.tile{{border:1px solid {style.BORDER};border-radius:8px;padding:8px 10px}}
.tile .label{{color:{style.MUTED};font-size:14px}}
.tile .stats{{font-size:14px}}
.tile .avg{{font-size:18px;font-weight:700}}
svg.bars{{max-width:100%;height:auto;display:block;margin:8px 0}}
footer{{color:{style.MUTED};font-size:14px;margin-top:28px}}
"""


def esc(value: object) -> str:
    """`value` localised (a message, a constant marked N_) and escaped."""
    text = localise(value) if isinstance(value, str) else str(value)
    return html.escape(clean_text(text), quote=True)


def _chip(word: str, color: str, *, title: str = "") -> str:
    hint = f' title="{esc(title)}"' if title else ""
    return f'<span class="chip" style="background:{color}"{hint}>{esc(word)}</span>'


def _kv_table(rows: Iterable[tuple[str, str]], css: str = "kv") -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<table class="{css}">{body}</table>'


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], css: str = "") -> str:
    """`rows` are HTML already."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                   for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _header(report: ShareReport) -> str:
    origin = report.origin
    background = style.ORIGIN_BACKGROUNDS.get(origin.kind, style.ORIGIN_BACKGROUNDS["unknown"])
    mark = "" if origin.is_live else "⚠ "
    note = esc(REDACTED_NOTE) if report.redacted else "⚠ " + esc(NOT_REDACTED_NOTE)
    made = gettext("Made by gpuscope {version} on {when}.").format(
        version=report.gpuscope_version or "?",
        when=localise(format_unix(report.generated_unix_s)))
    return (f"<header><h1>{esc(report.title)}</h1>"
            f'<div class="origin origin-{esc(origin.kind)}" style="background:{background}">'
            f"<b>{mark}{esc(origin.title)}</b>{esc(origin.sentence(report.generated_unix_s))}"
            f"</div>"
            f'<p class="meta">{esc(made)} {note}</p>'
            f'<p class="verdict">{esc(report.verdict_line())}</p></header>')


def _gpu_card(gpu: ReportGpu) -> str:
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in gpu.facts())
    return (f'<div class="card"><div class="name">GPU {gpu.index}: {esc(gpu.name)}</div>'
            f"<dl>{rows}</dl></div>")


def _machine(report: ShareReport) -> str:
    rows = report.platform.rows()
    gpus = ("".join(_gpu_card(g) for g in report.gpus) if report.gpus
            else f"<p>{esc(gettext('No GPU found.'))}</p>")
    return (f'<section id="machine"><h2>{esc(gettext("Machine"))}</h2>{_kv_table(rows)}'
            f'<div class="gpus">{gpus}</div>{_device_index(report)}</section>')


def _device_index(report: ShareReport) -> str:
    """How each layer numbers each GPU (HIP and CUDA: after the *_VISIBLE_DEVICES variables)."""
    if not report.device_index:
        return ""
    remarks = "".join(f'<p class="meta">{esc(line)}</p>'
                      for line in remark_lines(report.device_index))
    return (f'<h3 id="device-index">{esc(gettext("Device index"))}</h3>'
            + _table(COLUMNS, [[esc(cell) for cell in row.cells()]
                               for row in report.device_index], "device-index") + remarks)


def _stack(report: ShareReport) -> str:
    parts = [f'<section id="stack"><h2>{esc(gettext("Stack"))}</h2>']
    for gpu in report.gpus:
        rows = report.layers_of(gpu.index)
        if not rows:
            continue
        parts.append(f"<h3>GPU {gpu.index}: {esc(gpu.name)}</h3>")
        parts.append(_table(
            [gettext("Layer"), gettext("State"), gettext("What gpuscope found")],
            [(esc(r.name), _chip(f"{r.mark} {localise(r.word)}",
                                 style.LAYER_COLORS.get(r.state, style.UNKNOWN)),
              esc(r.text)) for r in rows], "layers"))
    if report.stack:
        parts.append(f"<h3>{esc(gettext('Versions'))}</h3>" + _kv_table(report.stack))
    extra = ""
    if report.environment:
        extra += _table([gettext("Variable"), gettext("Value")], [(f"<code>{esc(k)}</code>",
                                                 f"<code>{esc(v)}</code>")
                                                for k, v in report.environment])
    if report.device_nodes:
        extra += _table([gettext("Device node"), gettext("Access")],
                        [(f"<code>{esc(p)}</code>", esc(a)) for p, a in report.device_nodes])
    if extra:
        parts.append(f"<details><summary>"
                     f"{esc(gettext('Environment variables and device nodes'))}</summary>"
                     f"{extra}</details>")
    parts.append("</section>")
    return "".join(parts)


def _llm_runtimes(report: ShareReport) -> str:
    if not report.llm_runtimes:
        return ""
    items = "".join(f"<li>{'✓' if found else '✗'} {esc(localise(line))}</li>"
                    for found, line in report.llm_runtimes)
    return (f'<section id="llm-runtimes"><h2>{esc(gettext("LLM runtimes"))}</h2>'
            f"<ul>{items}</ul></section>")


def _frameworks(report: ShareReport) -> str:
    if not report.frameworks:
        body = "<p>" + esc(gettext("No framework inspected (run {command}).")).format(
            command="<code>gpuscope doctor --python PATH</code>") + "</p>"
    else:
        body = _table([gettext("Framework"), gettext("Version"), gettext("Build"),
                       gettext("Sees a GPU"), gettext("Smoke test"), "Python"], [
            (esc(f.name), esc(f.version or "?"), esc(f.build_text),
             esc(f.sees_text) + (esc(f" ({', '.join(f.devices)})") if f.devices else ""),
             esc(f.error or f.smoke_test or gettext("not run")),
             f"<code>{esc(f.python)}</code>" if f.python else "?")
            for f in report.frameworks])
    return (f'<section id="frameworks"><h2>{esc(gettext("Frameworks"))}</h2>{body}'
            "</section>")


def _finding(finding: ReportFinding) -> str:
    color = style.SEVERITY_COLORS.get(finding.severity, style.UNKNOWN)
    where = f", GPU {finding.gpu}" if finding.gpu is not None else ""
    parts = [f'<div class="finding" style="border-color:{color}">',
             f"{_chip(f'{finding.mark} {localise(finding.word)}', color)} "
             f'<span class="title">{esc(finding.title)}</span> '
             f'<span class="id">({esc(finding.id)}{where})</span>']
    if finding.fix:
        parts.append(f"<p>{esc(gettext('Fix: {fix}').format(fix=localise(finding.fix)))}</p>")
    if finding.fix_commands:
        parts.append(f"<pre><code>{esc(chr(10).join(finding.fix_commands))}</code></pre>")
    # Sources stay in the JSON and the Markdown: the page names no address outside itself.
    body = ""
    if finding.detail:
        body += "".join(f"<p>{esc(part)}</p>"
                        for part in localise(finding.detail).splitlines())
    if finding.evidence:
        body += (f"<p>{esc(gettext('Evidence:'))}</p><ul>"
                 + "".join(f"<li><code>{esc(e)}</code></li>" for e in finding.evidence)
                 + "</ul>")

    if body:
        parts.append(f"<details><summary>{esc(gettext('Details and evidence'))}</summary>"
                     f"{body}</details>")
    parts.append("</div>")
    return "".join(parts)


def _findings(report: ShareReport) -> str:
    body = ("".join(_finding(f) for f in report.findings)
            or f"<p>{esc(gettext('No findings.'))}</p>")
    return (f'<section id="findings"><h2>{esc(gettext("Doctor findings"))}</h2>{body}'
            "</section>")


def _bench_section(section: BenchSection) -> str:
    when, duration = (localise(format_unix(section.started_unix_s)),
                      localise(format_duration(section.duration_s)))
    line = (gettext("{when}, {duration} against the {card} datasheet").format(
        when=when, duration=duration, card=section.card) if section.card
        else gettext("{when}, {duration}").format(when=when, duration=duration))
    parts = [f"<h3>{esc(section.device)}</h3>",
             f'<p class="meta">{esc(section.torch)}: {esc(line)}</p>']
    if section.note:
        parts.append(f"<p><i>{esc(section.note)}</i></p>")
    parts.append(bench_bars_svg(section.rows))
    if section.rows:
        parts.append(_table(
            [gettext("Benchmark"), gettext("Measured"), gettext("Datasheet peak"),
             gettext("% of peak"), gettext("Verdict")],
            [(esc(r.title), f'<span class="num">{esc(r.value_text)}</span>',
              esc(r.peak_text) + (esc(f" ({localise(r.peak_label)})") if r.peak_label
                                  else ""),
              f'<span class="num">{esc(r.percent_text)}</span>',
              _chip(r.level_word, style.VERDICT_COLORS.get(r.level, style.UNKNOWN))
              + (" " + _chip(f"{UNSTABLE_MARK} {localise(UNSTABLE_WORD)}", style.WARNING,
                             title=localise(r.stability or "")) if r.unstable else ""))
             for r in section.rows]))
        verdicts = "".join(f"<li><b>{esc(r.title)}</b>: {esc(r.verdict)}"
                           + (f" {UNSTABLE_MARK} {esc(r.stability)}" if r.stability else "")
                           + "</li>" for r in section.rows if r.verdict)
        if verdicts:
            parts.append(f"<details><summary>{esc(gettext('Verdicts in full'))}</summary>"
                         f"<ul>{verdicts}</ul></details>")
    for error in section.errors:
        parts.append(f'<p style="color:{style.ERROR}">✗ {esc(error)}</p>')
    if section.not_run:
        parts.append("<p>" + esc(gettext("Not run: {benchmarks}").format(
            benchmarks=", ".join(localise(name) for name in section.not_run))) + "</p>")
    return "".join(parts)


def _bench(report: ShareReport) -> str:
    if not report.bench:
        return ""
    return (f'<section id="bench"><h2>{esc(gettext("Benchmarks"))}</h2>'
            + "".join(_bench_section(s) for s in report.bench) + "</section>")


def _device_tiles(device: DeviceTelemetry, color: str, at_capture: bool = False) -> str:
    tiles = []
    for stat in device.metrics:
        if at_capture:  # a snapshot's one reading: no sparkline, no min and max
            tiles.append(
                f'<div class="tile"><div class="label">{esc(shown(stat.label))}</div>'
                f'<div class="avg">{esc(format_stat(stat.avg, stat.unit))} <span '
                f'class="label">{esc(gettext("at capture"))}</span></div></div>')
            continue
        spark = sparkline_svg(stat.spark, color=color, width=200, height=38)
        tiles.append(
            f'<div class="tile"><div class="label">{esc(shown(stat.label))}</div>'
            f'<div class="avg">{esc(format_stat(stat.avg, stat.unit))} <span class="label">'
            f"{esc(gettext('avg'))}</span></div>{spark}"
            f'<div class="stats">{esc(gettext("min"))} {esc(format_stat(stat.min, stat.unit))}'
            f" · {esc(gettext('max'))} {esc(format_stat(stat.max, stat.unit))}</div></div>")
    return f'<h3>{esc(shown(device.label))}</h3><div class="tiles">{"".join(tiles)}</div>'


def _telemetry(report: ShareReport) -> str:
    summary = report.telemetry
    if summary is None:
        return ""
    parts = [f'<section id="telemetry"><h2>{esc(gettext("Telemetry"))}</h2>',
             f'<p class="meta">{esc(telemetry_line(summary))}</p>']
    gpu_number = 0
    for device in summary.devices:
        host = device.key == HOST_DEVICE
        parts.append(_device_tiles(device, style.series_color(gpu_number, host),
                                   summary.at_capture))
        gpu_number += 0 if host else 1
    parts.append("</section>")
    return "".join(parts)


def report_html(report: ShareReport) -> str:
    """The report as a standalone HTML page."""
    raw = json.dumps(report.document, indent=1, ensure_ascii=False)
    problems = ("<p>" + esc(gettext("Parts of this report could not be read: {problems}").format(
        problems="; ".join(localise(problem) for problem in report.problems))) + "</p>"
        if report.problems else "")
    lang = "en" if current_language() == ENGLISH else current_language().replace("_", "-")
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(report.title)}</title><style>{CSS}</style></head><body><main>"
        + _header(report) + _machine(report) + _stack(report) + _frameworks(report)
        + _llm_runtimes(report)
        + _findings(report) + _bench(report) + speed_html(report) + _telemetry(report)
        + problems
        + "<details><summary>" + esc(gettext("Raw report JSON ({schema})").format(
            schema=report.document.get("schema", "?")))
        + f"</summary><pre><code>{esc(raw)}</code></pre></details>"
        f"<footer>gpuscope {esc(report.gpuscope_version or '?')} · "
        f"{esc(report.origin.title)}</footer>"
        "</main></body></html>\n")
