"""gpuscope's command line: `gpuscope` opens the window; `info`, `snapshot` and the global
`--replay FILE` work without a display.

Exit status: 0 on success, 2 on a usage error, 1 on a failure (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from gpuscope import __version__
from gpuscope.evidence import LiveSystem, RecordingSystem, ReplaySystem, SnapshotError, System
from gpuscope.evidence import snapshot_meta as _snapshot_meta


class CliError(Exception):
    """A failure to report as one line on stderr with exit status 1."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpuscope",
        description="Which GPUs this machine has, and which layer of the stack can use each one. "
                    "With no command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"gpuscope {__version__}")
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
                          help="also record the frameworks of this interpreter (repeatable; "
                               "default: the one running gpuscope)")
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

    export = commands.add_parser("export", help="export a recording to CSV")
    export.add_argument("recording", metavar="FILE")
    export.add_argument("--csv", required=True, metavar="OUT")
    export.add_argument("--json", action="store_true", help="print the summary as JSON")

    doctor = commands.add_parser(
        "doctor", help="per GPU and per layer: can ROCm/CUDA and PyTorch use it, and the fix")
    doctor.add_argument("--json", action="store_true",
                        help="print the gpuscope.diagnosis/1 JSON document")
    doctor.add_argument("--python", action="append", metavar="PATH",
                        help="inspect the frameworks of this interpreter (repeatable; default: "
                             "the one running gpuscope)")
    doctor.add_argument("--from", dest="inputs", action="append", metavar="FILE",
                        help="diagnose pasted outputs instead of this machine (rocminfo, "
                             "rocm-smi, amd-smi, nvidia-smi, collect_env, dmesg, lspci, ...; "
                             "repeatable; - reads standard input)")
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
                       help="the interpreter whose torch runs the benchmarks (default: the "
                            "one running gpuscope)")
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
    past.add_argument("--delete", nargs="+", metavar="ID", help="delete past runs")
    return parser


def _system(replay: str | None) -> System:
    if replay is None:
        return LiveSystem()
    try:
        return ReplaySystem.from_file(replay)
    except SnapshotError as exc:
        raise CliError(str(exc)) from exc


def _cmd_info(args: argparse.Namespace) -> int:
    from gpuscope.inventory import collect_inventory
    from gpuscope.report.inventory_text import format_inventory_text, inventory_to_json

    inventory = collect_inventory(_system(args.replay))
    if args.json:
        json.dump(inventory_to_json(inventory), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_inventory_text(inventory))
    return 0


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from gpuscope.inventory import collect_frameworks, collect_inventory

    recorder = RecordingSystem(_system(args.replay))
    inventory = collect_inventory(recorder)
    collect_frameworks(recorder, _pythons(args, recorder))
    snapshot = recorder.snapshot
    snapshot.meta = _snapshot_meta(args.description)
    if args.replay:
        snapshot.meta["recorded_from_replay"] = os.path.basename(args.replay)
    output = Path(args.output)
    try:
        snapshot.save(output)
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


def _pythons(args: argparse.Namespace, system: System) -> list[str]:
    if args.no_frameworks:
        return []
    if args.python:
        return list(args.python)
    if isinstance(system, ReplaySystem):  # the interpreters the capture inspected
        return [key.split(":", 1)[1] for key in system.snapshot.libraries
                if key.startswith("python-env:")]
    return [sys.executable]


def _cmd_doctor(args: argparse.Namespace) -> int:
    from gpuscope.doctor import DoctorInput, diagnose, diagnosis_document
    from gpuscope.doctor.text import format_doctor_text
    from gpuscope.model import Severity

    if args.inputs:
        if args.replay:
            raise CliError("--from and --replay describe different machines; give one")
        from gpuscope.importer import InputFileError, import_files

        try:
            machine = import_files(args.inputs)
        except InputFileError as exc:
            raise CliError(str(exc)) from exc
        data = DoctorInput(machine.inventory, machine.frameworks, machine.signals)
    else:
        from gpuscope.inventory import collect_frameworks, collect_inventory

        system = _system(args.replay)
        inventory = collect_inventory(system)
        frameworks = collect_frameworks(system, _pythons(args, system))
        data = DoctorInput(inventory, frameworks)
    findings = diagnose(data)
    if args.json:
        json.dump(diagnosis_document(data, findings), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_doctor_text(data, findings))
    return 3 if any(f.severity is Severity.ERROR for f in findings) else 0


def _cmd_record(args: argparse.Namespace) -> int:
    from gpuscope.telemetry.commands import RecordProgress, record
    from gpuscope.telemetry.recorder import RecordingError

    def progress(state: RecordProgress) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\rrecording: {state.elapsed_s:6.1f} s, {state.ticks} ticks, "
                  f"{state.samples_written} samples", end="", file=sys.stderr, flush=True)

    try:
        summary = record(_system(args.replay), args.output, rate_hz=args.rate,
                         duration_s=args.duration, progress=progress,
                         overwrite=args.overwrite)
    except RecordingError as exc:
        raise CliError(str(exc)) from exc
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    if summary.error:
        raise CliError(summary.error)
    if args.json:
        from gpuscope.model import to_jsonable

        json.dump(to_jsonable(summary), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"Recorded {summary.ticks} ticks ({summary.samples} samples of "
              f"{summary.series} series, {summary.gpus} GPU(s)) at {summary.rate_hz:g} Hz "
              f"for {summary.duration_s:.1f} s into {summary.output} (stopped by "
              f"{summary.stopped_by}).")
        for note in summary.notes:
            print(f"  note: {note}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from gpuscope.telemetry.commands import export
    from gpuscope.telemetry.recorder import RecordingError

    try:
        summary = export(args.recording, args.csv)
    except RecordingError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        from gpuscope.model import to_jsonable

        json.dump(to_jsonable(summary), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"Wrote {summary.csv_path}: {summary.rows} rows x {summary.columns} columns "
              f"({summary.first_utc} to {summary.last_utc}).")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from gpuscope.bench.command import bench_command, history_command

    if args.history or args.show or args.compare or args.delete:
        return history_command(list_runs=args.history, show=args.show, compare=args.compare,
                               delete=args.delete, as_json=args.json)
    return bench_command(args.suites, device=args.device, python=args.python,
                         as_json=args.json, output=args.output, save=not args.no_save)


def _display_problem() -> str | None:
    """Why a window cannot open here, or None. Qt itself aborts the process without one."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return None
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return "no display found (DISPLAY and WAYLAND_DISPLAY are unset)"
    return None


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
    if inputs:
        from gpuscope.importer import InputFileError, read_input

        for path in inputs:  # an unreadable file is reported here, before any window
            try:
                read_input(path)
            except InputFileError as exc:
                raise CliError(str(exc)) from exc
    try:
        from gpuscope.ui.app import run_gui
    except ImportError as exc:
        raise CliError(f"the window needs PySide6, which failed to load: {exc}") from exc
    return run_gui(args.replay, imports=inputs, recording=args.recording)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers = {"info": _cmd_info, "snapshot": _cmd_snapshot, "doctor": _cmd_doctor,
                "record": _cmd_record, "export": _cmd_export, "bench": _cmd_bench,
                None: _cmd_gui}
    try:
        return handlers[args.command](args)
    except CliError as exc:
        print(f"gpuscope: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `gpuscope info | head`
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
