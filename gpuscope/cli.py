"""gpuscope's command line: `gpuscope` opens the window; `info`, `snapshot` and the global
`--replay FILE` work without a display.

Exit status: 0 on success, 2 on a usage error, 1 on a failure (one line on stderr).
A file given that is not the kind of thing its option takes (a directory, a FIFO or a device;
for --from, a file in no format gpuscope reads or a snapshot; for --replay, no snapshot) is a
usage error; one that is but cannot be read (missing, damaged, over a size bound) a failure.
`doctor --from` with such a file prints no verdict; with --json it still prints the document,
whose `probes` list the file and why, and then exits 2. Text in no format gpuscope knows
beside outputs it does know (a `uname -a` beside a rocminfo) is only named, in a note on
stderr, and the others are diagnosed.

Text from outside (snapshots, pasted outputs) goes through `clean_text` before it is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpuscope import __version__
from gpuscope.app.machine import snapshot_meta as _snapshot_meta
from gpuscope.app.machine import system_for
from gpuscope.evidence import RecordingSystem, SnapshotError, System
from gpuscope.i18n import (
    LANGUAGE_ENV,
    LANGUAGES,
    choose_language,
    gettext,
    localise,
    normalise_language,
    set_language,
)
from gpuscope.serve.command import add_serve_arguments, serve_command
from gpuscope.untrusted import UntrustedInputError, clean_text, one_line

if TYPE_CHECKING:
    from gpuscope.inventory import FrameworkInspection


class CliError(Exception):
    """A failure to report as one line on stderr with exit status 1."""


class CliUsageError(Exception):
    """A bad argument (an interpreter that cannot be run) to report as one line on stderr
    with exit status 2, as argparse does its own."""


_DEFAULT_PYTHONS = ("the one running gpuscope, python3 and python on PATH, the active "
                    "virtualenv and conda environment, and those added in the window; a "
                    "replay inspects what its capture did")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpuscope",
        description="Which GPUs this machine has, and which layer of the stack can use each one. "
                    "With no command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"gpuscope {__version__}")
    parser.add_argument("--lang", metavar="LANG",
                        help="the language of the window and of text output: en or zh_CN "
                             "(default: $GPUSCOPE_LANG, else the locale); --json output is "
                             "English in every language")
    parser.add_argument("--replay", metavar="FILE",
                        help="answer from a snapshot file instead of this machine")
    parser.add_argument("--recording", metavar="FILE",
                        help="open a recording (gpuscope record) on the Telemetry page")
    parser.add_argument("--from", dest="gui_inputs", action="append", metavar="FILE",
                        help="open the window on pasted outputs (rocminfo, nvidia-smi, "
                             "collect_env, ...; repeatable) instead of this machine")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    info = commands.add_parser("info", help="the inventory: GPUs, stack, host, probes")
    info.add_argument("--json", action="store_true", help="print JSON instead of text")

    snapshot = commands.add_parser(
        "snapshot", help="write every piece of evidence gpuscope reads to a file (JSON; .gz to "
                         "compress) that others open with --replay")
    snapshot.add_argument("-o", "--output", required=True, metavar="FILE")
    snapshot.add_argument("--description", help="a note stored in the snapshot")
    snapshot.add_argument("--json", action="store_true",
                          help="print what was written as JSON")
    snapshot.add_argument("--python", action="append", metavar="PATH",
                          help="record the frameworks of this interpreter (repeatable; "
                               f"default: {_DEFAULT_PYTHONS})")
    snapshot.add_argument("--no-frameworks", action="store_true",
                          help="do not start Python interpreters to inspect frameworks")

    record = commands.add_parser(
        "record", help="sample every GPU and the host into a recording file (SQLite), headless")
    record.add_argument("-o", "--output", required=True, metavar="FILE")
    record.add_argument("--rate", type=float, default=2.0, metavar="HZ",
                        help="samples per second, 0.5 to 20 (default 2)")
    record.add_argument("--duration", type=float, metavar="S",
                        help="stop after this many seconds (default: until Ctrl+C)")
    record.add_argument("--overwrite", action="store_true", help="replace an existing file")
    record.add_argument("--json", action="store_true", help="print the summary as JSON")

    export = commands.add_parser(
        "export", help="export a recording to CSV or JSON lines",
        description="Stream a recording as CSV (time_utc, time_s since the first tick exported, "
                    "then a '<series> [<unit>]' column per series) or as JSON lines (a header "
                    "object, then {time_utc, time_s, values: {series: number}} per tick). A "
                    "missing sample is an empty cell in CSV and left out of JSON; a tick "
                    "with no value to export is left out.")
    export.add_argument("recording", metavar="FILE", help="a recording (gpuscope record)")
    output = export.add_mutually_exclusive_group(required=True)
    output.add_argument("--csv", metavar="OUT", help="write CSV to OUT (-: standard output)")
    output.add_argument("--json-lines", metavar="OUT",
                        help="write JSON lines to OUT (-: standard output)")
    export.add_argument("--from", dest="since", metavar="TIME",
                        help="from TIME on (inclusive): ISO 8601 (2026-11-27T10:00:00Z; "
                             "'2026-11-27 10:00' is local time) or +SECONDS after the "
                             "recording's first sample (+90)")
    export.add_argument("--to", dest="until", metavar="TIME",
                        help="up to TIME (inclusive), written as for --from")
    export.add_argument("--series", action="append", metavar="PATTERN",
                        help="only series matching this shell pattern ('0000:03:00.0/*', "
                             "'*/power_w', 'host/*'); repeatable")
    export.add_argument("--json", action="store_true", help="print the summary as JSON "
                        "(on stderr when the export goes to standard output)")

    doctor = commands.add_parser(
        "doctor", help="per GPU and per layer: can ROCm/CUDA and PyTorch use it, and the fix")
    doctor.add_argument("--json", action="store_true",
                        help="print the gpuscope.diagnosis/1 JSON document")
    doctor.add_argument("--python", action="append", metavar="PATH",
                        help="inspect the frameworks of this interpreter (repeatable; default: "
                             f"{_DEFAULT_PYTHONS})")
    doctor.add_argument("--from", dest="inputs", action="append", metavar="FILE",
                        help="diagnose pasted outputs instead of this machine (rocminfo, "
                             "rocm-smi, amd-smi, nvidia-smi, collect_env, dmesg, lspci, ...; "
                             "repeatable; - reads standard input; up to 10 MB each). A file "
                             "that is no such output gives no verdict and exit status 2 (with "
                             "--json, after the document, which lists it under probes); text "
                             "in no known format beside known outputs is named and skipped")
    doctor.add_argument("--no-frameworks", action="store_true",
                        help="do not start Python interpreters to inspect frameworks")

    bench = commands.add_parser(
        "bench", help="microbenchmarks (matmul, memory, transfer, latency, attention) in a "
                      "worker process with this or another Python's torch")
    bench.add_argument("--suite", dest="suites", action="extend", nargs="+", metavar="NAME",
                       help="quick (default), full, a family (matmul, memory, transfer, "
                            "latency, attention) or a benchmark id such as matmul.fp16; "
                            "repeatable")
    bench.add_argument("--device", metavar="N",
                       help="GPU index as torch numbers them, or 'cpu' (default: the first "
                            "GPU, else the CPU)")
    bench.add_argument("--python", metavar="PATH",
                       help="the interpreter whose torch runs the benchmarks (default: of "
                            "the interpreters the doctor inspects, the one whose PyTorch can "
                            "use the device, a GPU build first, then a CPU build)")
    bench.add_argument("--json", action="store_true", help="print the run as JSON")
    bench.add_argument("-o", "--output", metavar="FILE", help="also write the run as JSON")
    bench.add_argument("--no-save", action="store_true",
                       help="do not keep the run in the history of past runs")
    past = bench.add_mutually_exclusive_group()
    past.add_argument("--history", action="store_true",
                      help="list the past runs kept (runs nothing)")
    past.add_argument("--show", metavar="ID", help="print a past run (an id, or last)")
    past.add_argument("--compare", nargs=2, metavar=("A", "B"),
                      help="compare two past runs, benchmark by benchmark")
    past.add_argument("--delete", nargs="+", metavar="ID",
                      help="delete past runs (and imported results: i1, i2, ...)")
    past.add_argument("--import", dest="import_files", nargs="+", metavar="FILE",
                      help="keep llama.cpp's own numbers in the history, labelled imported: "
                           "llama-bench output in any format (md, csv, json, jsonl, sql) or "
                           "the timing lines of llama-cli and llama-server (runs nothing)")
    past.add_argument("--llama-bench", metavar="PATH",
                      help="run this llama-bench on --model (-o jsonl) as a benchmark process, "
                           "with telemetry, and keep its results in the history as imported")
    bench.add_argument("--model", metavar="FILE.gguf", help="the model --llama-bench runs")
    bench.add_argument("--llm-shape", metavar="MODEL",
                       help="the model whose shapes the llm suite builds, e.g. 'Qwen2.5 7B' "
                            "(default: Qwen2.5 0.5B on a CPU, Llama 3 8B on a GPU)")

    report = commands.add_parser(
        "report", help="the share report of this machine (or a snapshot, or pasted outputs) "
                       "as PNG, HTML, Markdown or JSON; redacted unless --no-redact")
    report.add_argument("--format", choices=REPORT_FORMATS,
                        help="png (1200 px wide), html (self-contained), md (GitHub and "
                             "forums) or json (re-importable into Compare); default: from the "
                             "-o file's extension, else md. Written in the language of --lang "
                             "(gpuscope --lang en report: English); json is English always")
    report.add_argument("-o", "--output", metavar="FILE",
                        help="write the report here (default: standard output; for png, "
                             "gpuscope-report.png)")
    report.add_argument("--no-redact", action="store_true",
                        help="keep host and user names, home paths, serial numbers, UUIDs, "
                             "MAC and IP addresses (redacted by default)")
    report.add_argument("--replay", dest="report_replay", metavar="FILE",
                        help="report on a snapshot file instead of this machine")
    report.add_argument("--from", dest="report_inputs", action="append", metavar="FILE",
                        help="report on pasted outputs (rocminfo, nvidia-smi, collect_env, "
                             "...; repeatable) instead of this machine")
    report.add_argument("--python", action="append", metavar="PATH",
                        help="inspect the frameworks of this interpreter (repeatable; "
                             f"default: {_DEFAULT_PYTHONS})")
    report.add_argument("--no-frameworks", action="store_true",
                        help="do not start Python interpreters to inspect frameworks")
    report.add_argument("--bench", action="append", metavar="FILE",
                        help="benchmark results from a 'gpuscope bench -o FILE' file "
                             "(repeatable; default: the newest runs 'gpuscope bench' saved)")
    report.add_argument("--no-bench", action="store_true",
                        help="leave benchmark results out")
    report.add_argument("--recording", dest="report_recording", metavar="FILE",
                        help="the telemetry strip from a recording ('gpuscope record')")
    report.add_argument("--sample", type=float, default=3.0, metavar="S",
                        help="live: sample telemetry for the strip this many seconds; a "
                             "replay shows the snapshot's readings at capture (default 3; 0 "
                             "for no strip)")
    report.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on standard error")

    serve = commands.add_parser(
        "serve", help="a Prometheus exporter of this machine (GPU telemetry, versions, doctor "
                      "findings) on /metrics, with /api/doctor and /api/snapshot (redacted "
                      "JSON); --textfile for node_exporter; --install-unit for systemd")
    add_serve_arguments(serve)

    entry = commands.add_parser(
        "desktop-entry", help="put gpuscope in the desktop's application menu for this user "
                              "(Linux: a .desktop file and icon in ~/.local/share; Windows: "
                              "a Start-menu shortcut), or take it out")
    action = entry.add_mutually_exclusive_group(required=True)
    action.add_argument("--install", action="store_true",
                        help="write ~/.local/share/applications/gpuscope.desktop and its icon")
    action.add_argument("--uninstall", action="store_true",
                        help="remove the menu entry and icon written by --install")

    screenshot = commands.add_parser(
        "screenshot", help="render every page of the window and the report to PNG files, "
                           "offscreen (no display needed)")
    screenshot.add_argument("--out", required=True, metavar="DIR",
                            help="the folder to write the PNG files to (made if needed)")
    screenshot.add_argument("--replay", dest="screenshot_replay", metavar="FILE",
                            help="show a snapshot file instead of this machine")
    screenshot.add_argument("--from", dest="screenshot_inputs", action="append",
                            metavar="FILE",
                            help="show pasted outputs instead of this machine (repeatable)")
    screenshot.add_argument("--size", default="1100x750", metavar="WxH",
                            help="window size (default 1100x750)")
    screenshot.add_argument("--telemetry", type=float, default=3.0, metavar="S",
                            help="seconds of telemetry to sample before the pictures "
                                 "(default 3; 0 for none)")
    screenshot.add_argument("--recording", dest="screenshot_recording", metavar="FILE",
                            help="show a recording (gpuscope record) on the Telemetry page "
                                 "and in the report instead of sampling")
    screenshot.add_argument("--theme", choices=("light", "dark"), default="light",
                            help="the window's theme in the pictures (default light)")
    return parser


REPORT_FORMATS = ("png", "html", "md", "json")
_REPORT_SUFFIXES = {".png": "png", ".html": "html", ".htm": "html", ".md": "md",
                    ".markdown": "md", ".json": "json"}


def _system(replay: str | None) -> System:
    try:
        return system_for(replay)
    except SnapshotError as exc:
        raise _input_error(exc) from exc


def _input_error(exc: UntrustedInputError) -> Exception:
    """A refused input file as the command line reports it: the wrong kind of file is a usage
    error (exit 2), one that cannot be read a failure (exit 1)."""
    return CliUsageError(str(exc)) if exc.wrong_kind else CliError(str(exc))


def _check_imports(paths: Sequence[str]) -> None:
    """Read and recognise the --from files before anything else is done with them (a window,
    a report): a file that cannot be read, or is no tool output, stops here in one line."""
    from gpuscope.importer import InputFileError, import_files

    try:
        machine = import_files(paths)
    except InputFileError as exc:
        raise _input_error(exc) from exc
    if machine.refused:
        raise CliUsageError(machine.refused[0].reason)
    for ignored in machine.rejected:
        print(f"gpuscope: note: {one_line(ignored.reason)}", file=sys.stderr)


# The commands that read the global --from and --recording (the window is `None`).
_GLOBAL_FROM_COMMANDS = (None, "doctor", "report", "screenshot")
# `export` takes its recording as an argument of the same name, which overwrites the global one.
_GLOBAL_RECORDING_COMMANDS = (None, "report", "screenshot", "export")


def _cmd_info(args: argparse.Namespace) -> int:
    from gpuscope.inventory import collect_inventory
    from gpuscope.report.inventory_text import format_inventory_text, inventory_to_json

    inventory = collect_inventory(_system(args.replay))
    if args.json:
        json.dump(inventory_to_json(inventory), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(clean_text(format_inventory_text(inventory)))
    return 0


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from gpuscope.inventory import collect_inventory

    _refuse_overwriting(args.output, args.replay)
    recorder = RecordingSystem(_system(args.replay))
    inventory = collect_inventory(recorder)
    inspection = _inspect_frameworks(args, recorder)
    from gpuscope.app.doctor_inputs import llm_runtimes

    llm_runtimes(recorder, inventory, inspection)  # recorded for the replay's doctor
    if any(gpu.luid for gpu in inventory.gpus):  # Windows: the GPU counters, for telemetry
        from gpuscope.probes.windows_telemetry import record_counters

        record_counters(recorder)
    snapshot = recorder.snapshot
    snapshot.meta = _snapshot_meta(args.description)
    if args.replay:
        snapshot.meta["recorded_from_replay"] = os.path.basename(args.replay)
    output = Path(args.output)
    try:
        snapshot.save(output)  # a temporary file renamed into place
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror or exc}") from exc
    summary = {
        "output": str(output),
        "bytes": output.stat().st_size,
        "files": len(snapshot.files),
        "directories": len(snapshot.dirs),
        "commands": len(snapshot.commands),
        "library_answers": len(snapshot.libraries),
        "gpus": len(inventory.gpus),
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"Wrote {output} ({summary['bytes']:,} bytes): {summary['files']} files, "
              f"{summary['directories']} directories, {summary['commands']} commands, "
              f"{summary['library_answers']} library answers; {summary['gpus']} GPU(s).")
        print(f"It may contain your host name, user name and GPU serial numbers. "
              f"Others open it with: gpuscope --replay {output.name} info")
    return 0


def _inspect_frameworks(args: argparse.Namespace, system: System) -> FrameworkInspection:
    """The frameworks of --python (or of the default set; none with --no-frameworks); a
    --python that cannot be run at all is a usage error."""
    from gpuscope.app.doctor_inputs import UnusableInterpreterError, inspect_frameworks

    try:
        return inspect_frameworks(system, _pythons_asked(args))
    except UnusableInterpreterError as exc:
        raise CliUsageError(str(exc)) from exc


def _pythons_asked(args: argparse.Namespace) -> Sequence[str] | None:
    """--python's interpreters, () with --no-frameworks, None for the default set."""
    return () if args.no_frameworks else (args.python or None)


def _cmd_doctor(args: argparse.Namespace) -> int:
    from gpuscope.app.doctor_inputs import UnusableInterpreterError, machine_input
    from gpuscope.doctor import diagnose, diagnosis_document
    from gpuscope.doctor.text import format_doctor_text
    from gpuscope.importer import InputFileError
    from gpuscope.model import Severity

    inputs = (args.inputs or []) + (args.gui_inputs or [])
    if inputs and args.replay:
        raise CliError("--from and --replay describe different machines; give one")
    try:
        machine = machine_input(system=None if inputs else _system(args.replay),
                                imports=inputs, pythons=_pythons_asked(args))
    except InputFileError as exc:
        raise _input_error(exc) from exc
    except UnusableInterpreterError as exc:
        raise CliUsageError(str(exc)) from exc
    for ignored in machine.ignored:  # beside known outputs
        print(f"gpuscope: note: {one_line(ignored)}", file=sys.stderr)
    data, rejected = machine.data, machine.refused
    findings = diagnose(data)
    if args.json:
        json.dump(diagnosis_document(data, findings), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not rejected:  # no verdict on inputs that were not all read
        sys.stdout.write(clean_text(format_doctor_text(data, findings)))
    if rejected:
        sys.stdout.flush()
        for reason in rejected:
            print(f"gpuscope: {one_line(reason)}", file=sys.stderr)
        return 2
    return 3 if any(f.severity is Severity.ERROR for f in findings) else 0


def _cmd_record(args: argparse.Namespace) -> int:
    from gpuscope.telemetry.commands import record_command

    return record_command(_system(args.replay), args.output, rate_hz=args.rate,
                          duration_s=args.duration, overwrite=args.overwrite,
                          as_json=args.json, inputs=[args.replay])


def _cmd_export(args: argparse.Namespace) -> int:
    from gpuscope.telemetry.commands import export_command

    return export_command(args.recording, csv_out=args.csv, json_lines_out=args.json_lines,
                          since=args.since, until=args.until, series=args.series,
                          as_json=args.json)


def _refuse_overwriting(output: str | None, *inputs: str | None) -> None:
    """An output that is one of the inputs would destroy it: a usage error, before any work."""
    from gpuscope.safe_write import input_overwritten

    overwritten = input_overwritten(output, inputs) if output else None
    if overwritten is not None:
        raise CliUsageError(f"the output {output} would overwrite the input {overwritten}; "
                            "choose another file name")


def _cmd_bench(args: argparse.Namespace) -> int:
    from gpuscope.bench.command import bench_command, history_command

    if args.import_files:
        from gpuscope.bench.import_command import import_command

        return import_command(args.import_files, as_json=args.json, save=not args.no_save)
    if args.llama_bench:
        from gpuscope.bench.llama_run import llama_bench_command

        return llama_bench_command(args.llama_bench, args.model, as_json=args.json,
                                   save=not args.no_save)
    if args.history or args.show or args.compare or args.delete:
        return history_command(list_runs=args.history, show=args.show, compare=args.compare,
                               delete=args.delete, as_json=args.json)
    if args.llm_shape is not None:
        from gpuscope.bench.catalog import llm_shape_names

        if args.llm_shape not in llm_shape_names():
            raise CliUsageError(f"--llm-shape {args.llm_shape!r}: not a known model; known: "
                                + ", ".join(llm_shape_names()))
    return bench_command(args.suites, device=args.device, python=args.python,
                         as_json=args.json, output=args.output, save=not args.no_save,
                         llm_shape=args.llm_shape)


def _cmd_report(args: argparse.Namespace) -> int:
    from gpuscope.app.report_inputs import (
        ReportInputError,
        UnusableInterpreterError,
        gather_report_inputs,
    )

    replay = args.report_replay or args.replay
    imports = (args.report_inputs or []) + (args.gui_inputs or [])
    recording = args.report_recording or args.recording
    fmt = args.format
    output = args.output
    if fmt is None:
        suffix = Path(output).suffix.lower() if output else ""
        fmt = _REPORT_SUFFIXES.get(suffix, "md")
    if fmt == "png" and not output:
        output = "gpuscope-report.png"
    if imports:
        _check_imports(imports)
    _refuse_overwriting(output, replay, recording, *imports, *(args.bench or ()))

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"gpuscope: {localise(message)}…", file=sys.stderr, flush=True)

    pythons: list[str] | None = None if not args.no_frameworks else []
    if args.python:
        pythons = list(args.python)
    try:
        inputs = gather_report_inputs(
            replay=replay, imports=imports, pythons=pythons, bench_files=args.bench or (),
            saved_runs=not args.no_bench, recording=recording,
            sample_s=max(0.0, args.sample), progress=progress)
    except UnusableInterpreterError as exc:
        raise CliUsageError(str(exc)) from exc
    except ReportInputError as exc:
        raise CliError(str(exc)) from exc
    if args.no_bench:
        import dataclasses

        inputs = dataclasses.replace(inputs, bench_runs=())
    progress(gettext("making the report") if args.no_redact
             else gettext("making the report and redacting it"))
    prepared = inputs.prepare(redact=not args.no_redact)
    report = prepared.report
    # In the language chosen (--lang, $GPUSCOPE_LANG, the locale); JSON stays English.
    described = gettext("{format} report").format(format=fmt.upper())
    if fmt == "png":
        try:
            from gpuscope.ui.report.render import ensure_gui_application, save_report_png
        except ImportError as exc:
            raise CliError(f"a PNG report needs PySide6, which failed to load: {exc}") from exc
        _app = ensure_gui_application()  # kept alive until the picture is written
        progress(gettext("drawing the picture"))
        from gpuscope.safe_write import atomic_path

        try:
            with atomic_path(output) as temporary:  # Qt writes by name: renamed into place
                image = save_report_png(report, str(temporary))
        except OSError as exc:  # Qt's failure names the temporary: name the target
            raise CliError(f"cannot write the PNG to {output}"
                           + (f": {exc.strerror}" if exc.strerror else "")) from exc
        described = gettext("PNG report, {width}x{height} px").format(
            width=image.width(), height=image.height())
    else:
        from gpuscope.report.formats import export_text

        text = export_text(report, fmt)
        if output:
            try:
                from gpuscope.safe_write import write_text

                write_text(output, text)  # a temporary file renamed into place
            except OSError as exc:
                raise CliError(f"cannot write {output}: {exc.strerror or exc}") from exc
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    # What was done goes to stdout only when stdout is not the report itself.
    summary = sys.stdout if output else sys.stderr
    if output:
        print(gettext("Wrote {file} ({what}).").format(file=output, what=described),
              file=summary)
    if args.no_redact:
        print(gettext("Not redacted: it may contain your host and user names, home paths, "
                      "serial numbers, UUIDs, MAC and IP addresses."), file=summary)
    elif prepared.replacements:
        kinds: dict[str, int] = {}
        for entry in prepared.replacements:
            kinds[entry.kind.value] = kinds.get(entry.kind.value, 0) + 1
        listed = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        example = prepared.replacements[0].placeholder
        print(gettext("Redacted: {listed} (as placeholders such as {example}).").format(
            listed=listed, example=example), file=summary)
    else:
        print(gettext("Redacted: nothing personal was found."), file=summary)
    if not report.origin.is_live:
        print(gettext("Labelled: {origin}.").format(
            origin=one_line(localise(report.origin.title))), file=summary)
    for note in inputs.notes:
        print(gettext("note: {note}").format(note=one_line(localise(note))), file=sys.stderr)
    return 0


def _cmd_screenshot(args: argparse.Namespace) -> int:
    replay = args.screenshot_replay or args.replay
    imports = (args.screenshot_inputs or []) + (args.gui_inputs or [])
    try:
        width_text, _, height_text = args.size.lower().partition("x")
        size = (int(width_text), int(height_text))
    except ValueError:
        raise CliError(f"--size wants WIDTHxHEIGHT, not {args.size!r}") from None
    if imports:
        _check_imports(imports)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from gpuscope.ui.screenshot import ScreenshotError, take_screenshots
    except ImportError as exc:
        raise CliError(f"screenshots need PySide6, which failed to load: {exc}") from exc

    def progress(message: str) -> None:
        print(f"gpuscope: {message}…", file=sys.stderr, flush=True)

    try:
        paths = take_screenshots(args.out, replay=replay, imports=imports, size=size,
                                 telemetry_s=max(0.0, args.telemetry),
                                 recording=args.screenshot_recording or args.recording,
                                 dark=args.theme == "dark", progress=progress)
    except ScreenshotError as exc:
        raise CliError(str(exc)) from exc
    for path in paths:
        print(path)
    return 0


def _cmd_desktop_entry(args: argparse.Namespace) -> int:
    from gpuscope.app.desktop import DesktopEntryError, desktop_entry_command

    try:
        print(desktop_entry_command(args.install, os.environ))
    except DesktopEntryError as exc:
        raise CliError(str(exc)) from exc
    return 0


def _display_problem() -> str | None:
    """Why a window cannot open here, or None. Qt itself aborts the process without a
    display, or without the system libraries of its X11 plugin."""
    from gpuscope.app.desktop import x11_problem

    chosen = os.environ.get("QT_QPA_PLATFORM")
    if chosen and not chosen.startswith("xcb"):
        return None
    if not chosen and sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return "no display found (DISPLAY and WAYLAND_DISPLAY are unset)"
    return x11_problem(os.environ)


def _cmd_gui(args: argparse.Namespace) -> int:
    problem = _display_problem()
    if problem:
        raise CliError(
            f"{problem}. Use the command line instead: 'gpuscope info', "
            f"'gpuscope info --json', 'gpuscope snapshot -o FILE' (or set "
            f"QT_QPA_PLATFORM=offscreen)"
        )
    inputs = getattr(args, "gui_inputs", None)
    if inputs and args.replay is not None:
        raise CliError("--from and --replay describe different machines; give one")
    if args.replay is not None:
        _system(args.replay)  # a bad file is reported here, before any window
    if inputs:  # a file that cannot be read or is no tool output stops here, before any window
        _check_imports(inputs)
    try:
        from gpuscope.ui.app import run_gui
    except ImportError as exc:
        raise CliError(f"the window needs PySide6, which failed to load: {exc}") from exc
    return run_gui(args.replay, imports=inputs, recording=args.recording)


def _check_global_options(args: argparse.Namespace) -> None:
    """The global --from and --recording on a command that would ignore them: a usage error,
    not a silent answer about something else."""
    command = args.command
    if args.gui_inputs and command not in _GLOBAL_FROM_COMMANDS:
        raise CliUsageError(f"--from is not read by '{command}' (it is for doctor, report, "
                            "screenshot and the window); give pasted outputs to "
                            "'gpuscope doctor --from FILE'")
    if args.recording and command not in _GLOBAL_RECORDING_COMMANDS:
        raise CliUsageError(f"--recording is not read by '{command}' (it is for report, "
                            "screenshot and the window)")


def _choose_language(args: argparse.Namespace) -> None:
    """--lang wins over $GPUSCOPE_LANG and the locale, for this process and the window."""
    if args.lang:
        language = normalise_language(args.lang)
        if language is None:
            raise CliUsageError(f"--lang {args.lang}: not one of {', '.join(LANGUAGES)}")
        os.environ[LANGUAGE_ENV] = language
    if args.command is not None:  # the window chooses with its setting too
        set_language(choose_language())


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers: dict[str | None, Callable[[argparse.Namespace], int]] = {
        "info": _cmd_info, "snapshot": _cmd_snapshot, "doctor": _cmd_doctor,
        "record": _cmd_record, "export": _cmd_export, "bench": _cmd_bench,
        "report": _cmd_report, "screenshot": _cmd_screenshot,
        "desktop-entry": _cmd_desktop_entry, "serve": serve_command, None: _cmd_gui}
    # SIGTERM, SIGHUP and Ctrl-C end the workers and probes first; leaving ends those still
    # running (the window closed mid-run). Each also dies with gpuscope by kill -9 (Linux).
    from gpuscope.probes.worker_process import children_end_first

    try:
        with children_end_first(catch_signals=args.command is not None):
            _check_global_options(args)
            _choose_language(args)
            return handlers[args.command](args)
    except CliError as exc:
        print(f"gpuscope: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except CliUsageError as exc:
        print(f"gpuscope: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `gpuscope info | head`
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
