"""Hostile inputs through the command line (`gpuscope.cli.main`): each answered by its exit
status and one line on stderr, never a verdict, a traceback or a hang (tests/fixtures/hostile/
cases.toml); text from outside printed without terminal controls; and the readers' bounds
(`gpuscope.untrusted`) one by one."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES_DIR, SNAPSHOTS_DIR

import gpuscope.importer
from gpuscope.cli import main
from gpuscope.importer import ACCEPTED_OUTPUTS, FORMAT_FAMILIES
from gpuscope.parsers import PARSER_MODULES
from gpuscope.untrusted import (
    MAX_PASTE_BYTES,
    UntrustedInputError,
    clean_text,
    escape_json_controls,
    gunzip,
    load_json,
    one_line,
    read_regular_file,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10, where tomli is a dependency
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

HOSTILE_DIR = FIXTURES_DIR / "hostile"
CASES: list[dict[str, Any]] = tomllib.loads(
    (HOSTILE_DIR / "cases.toml").read_text(encoding="utf-8"))["case"]
# What a terminal acts on: C0 but tab and newline, DEL, C1.
TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
RUN_LIMIT_S = 60.0


@dataclass(frozen=True)
class Outcome:
    status: int
    stdout: str
    stderr: str


@pytest.fixture(autouse=True)
def _fresh_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard input is read once per process; each test is a process of its own here."""
    monkeypatch.setattr(gpuscope.importer, "_stdin_bytes", None)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> Outcome:
    """`gpuscope ARGS` in this process, on a daemon thread, so that a hang fails the test
    instead of stopping the suite."""
    answer: list[int] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            answer.append(main(list(args)))
        except BaseException as exc:  # any escape is the failure looked for
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(RUN_LIMIT_S)
    assert not thread.is_alive(), f"gpuscope {' '.join(args)} did not finish (a hang)"
    assert not errors, f"gpuscope {' '.join(args)} raised {errors[0]!r}"
    captured = capsys.readouterr()
    return Outcome(answer[0], captured.out, captured.err)


@pytest.fixture
def made_inputs(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """The inputs too big to commit, or that are no files."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    # 70 gzip members of 4 MB of blanks: 280 MB once decompressed, 280 KB on disk.
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * 4_000_000, mtime=0) * 70)
    folder = tmp_path / "folder"
    folder.mkdir()
    made = {"deep.json": deep, "bomb.json.gz": bomb, "directory": folder,
            "/dev/zero": Path("/dev/zero"), "/dev/urandom": Path("/dev/urandom")}
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)  # and no writer: a reader that opens it blocks
        made["fifo"] = fifo
    yield made


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_hostile_input(case: dict[str, Any], made_inputs: dict[str, Path],
                       capsys: pytest.CaptureFixture[str]) -> None:
    if "made" in case:
        if case["made"] not in made_inputs or not made_inputs[case["made"]].exists():
            pytest.skip(f"{case['made']} cannot be made here")
        path = str(made_inputs[case["made"]])
    else:
        path = str(HOSTILE_DIR / case["file"])
    args = [arg.replace("{file}", path) for arg in case["args"]]
    args = [str((HOSTILE_DIR / a).resolve()) if a.startswith("../") else a for a in args]
    outcome = run_cli(capsys, *args)
    assert outcome.status == case["exit"], outcome.stderr
    assert "Traceback" not in outcome.stderr
    if "stderr" in case:
        lines = outcome.stderr.splitlines()
        assert len(lines) == 1, outcome.stderr
        assert lines[0].startswith("gpuscope: ")
        pattern = case["stderr"].replace("{file}", re.escape(path))
        assert re.fullmatch(pattern, lines[0].removeprefix("gpuscope: ")), lines[0]
        assert outcome.stdout == ""  # no verdict on input that was refused
    if case.get("stdout_clean"):
        assert outcome.stdout and not TERMINAL_CONTROL.search(outcome.stdout), [
            line for line in outcome.stdout.splitlines() if TERMINAL_CONTROL.search(line)]
        assert case["stdout_has"] in outcome.stdout
        assert not TERMINAL_CONTROL.search(outcome.stderr)


def test_every_committed_hostile_file_has_a_case() -> None:
    named = {c["file"] for c in CASES if "file" in c}
    committed = {p.name for p in HOSTILE_DIR.iterdir()
                 if p.suffix not in (".py", ".toml") and p.name != "__pycache__"}
    assert committed <= named, committed - named


def test_the_json_document_lists_a_refused_file_under_probes_and_exits_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    known = FIXTURES_DIR / "outputs" / "nvidia-smi-table" / "yamda-10-440-quadro-rtx6000.txt"
    photo = HOSTILE_DIR / "photo.jpg"
    outcome = run_cli(capsys, "doctor", "--json", "--from", str(known), "--from", str(photo))
    assert outcome.status == 2
    doc = json.loads(outcome.stdout)
    probes = {p["name"]: p for p in doc["probes"]}
    refused = probes["import:photo.jpg"]
    assert refused["state"] == "error"
    assert outcome.stderr == f"gpuscope: {refused['reason']}\n"
    assert refused["reason"].startswith(f"{photo} is a JPEG image")
    assert probes["import:yamda-10-440-quadro-rtx6000.txt"]["state"] == "ok"
    assert len(doc["gpus"]) == 3  # the known file is still read


def test_the_global_from_is_the_doctors_and_is_refused_elsewhere(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    known = str(FIXTURES_DIR / "outputs" / "nvidia-smi-table" / "yamda-10-440-quadro-rtx6000.txt")
    given = run_cli(capsys, "--from", known, "doctor", "--json")
    own = run_cli(capsys, "doctor", "--json", "--from", known)
    assert given.status == own.status == 0 and given.stdout == own.stdout
    for command in (["info"], ["snapshot", "-o", str(tmp_path / "s.json")],
                    ["record", "-o", str(tmp_path / "r.db"), "--duration", "0.1"],
                    ["bench", "--history"], ["export", "r.db", "--csv", "r.csv"]):
        refused = run_cli(capsys, "--from", known, *command)
        assert refused.status == 2 and refused.stdout == ""
        assert refused.stderr.startswith(f"gpuscope: --from is not read by '{command[0]}'")
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "r.db").exists()
    recording = run_cli(capsys, "--recording", str(tmp_path / "r.db"), "info")
    assert recording.status == 2 and "--recording is not read by 'info'" in recording.stderr


def test_report_and_window_refuse_what_is_no_tool_output_before_starting(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    photo = str(HOSTILE_DIR / "photo.jpg")
    output = tmp_path / "r.md"
    report = run_cli(capsys, "report", "--from", photo, "-o", str(output), "-q")
    assert report.status == 2 and not output.exists()
    assert report.stderr.startswith(f"gpuscope: {photo} is a JPEG image")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    window = run_cli(capsys, "--from", str(HOSTILE_DIR / "snapshot.json.gz"))
    assert window.status == 2
    assert "is a gpuscope snapshot, not a tool's output: use --replay" in window.stderr


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_standard_input_is_capped(capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, b"x" * (MAX_PASTE_BYTES + 1))
    outcome = run_cli(capsys, "doctor", "--from", "-")
    assert outcome.status == 1 and outcome.stdout == ""
    assert outcome.stderr == ("gpuscope: standard input: larger than the 10 MB gpuscope reads "
                              "of a pasted output; not read\n")


def test_a_snapshot_on_standard_input_points_at_replay(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, (SNAPSHOTS_DIR / "nvidia_rtx4090.json").read_bytes())
    outcome = run_cli(capsys, "doctor", "--from", "-")
    assert outcome.status == 2
    assert outcome.stderr == ("gpuscope: standard input is a gpuscope snapshot, not a tool's "
                              "output: save it to a file and use --replay FILE\n")


def test_json_output_escapes_the_controls_it_carries(capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = str(HOSTILE_DIR / "escapes-snapshot.json")
    outcome = run_cli(capsys, "--replay", snapshot, "doctor", "--json", "--no-frameworks")
    assert outcome.status in (0, 3)
    assert not TERMINAL_CONTROL.search(outcome.stdout)
    name = json.loads(outcome.stdout)["gpus"][0]["name"]
    assert "\x1b]0;pwned\x07" in name  # the data is kept, only written escaped
    info = run_cli(capsys, "--replay", snapshot, "info", "--json")
    assert not TERMINAL_CONTROL.search(info.stdout)
    report = run_cli(capsys, "report", "--replay", snapshot, "--format", "json",
                     "--no-frameworks", "--no-bench", "--sample", "0", "-q")
    assert report.status == 0 and not TERMINAL_CONTROL.search(report.stdout)
    assert "\x9b" in json.dumps(json.loads(report.stdout), ensure_ascii=False)


# ----------------------------------------------------------------------------- the readers


@pytest.mark.parametrize(("raw", "shown"), [
    ("Radeon RX 7900 XTX", "Radeon RX 7900 XTX"),
    ("tab\tand\nnewline stay", "tab\tand\nnewline stay"),
    ("Radeon™ 显卡 ünïcode", "Radeon™ 显卡 ünïcode"),
    ("a\x1b]0;pwned\x07b", "ab"),  # OSC ended by BEL: retitles the terminal
    ("a\x1b]8;;https://x.invalid/\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # OSC ended by ST
    ("a\x1b[2Jb\x1b[1;31mc\x1b[0m", "abc"),  # CSI: clear screen, colours
    ("a\x1b[?1049hb", "ab"),  # private CSI: alternate screen
    ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS (sixel)
    ("a\x1bcb", "ab"),  # RIS: full reset
    ("a\x1b(0b", "ab"),  # charset designation
    ("a\x1b]0;no end", "a0;no end"),  # an unterminated OSC loses only its introducer
    ("a\x1b", "a"),
    ("a\rb\x08c\x07d\x00e\x7ff\x9b31mg\x85h", "abcdef31mgh"),
])
def test_clean_text_strips_terminal_controls(raw: str, shown: str) -> None:
    assert clean_text(raw) == shown
    assert clean_text(shown) == shown


def test_one_line_folds_and_cleans() -> None:
    assert one_line("x.json:\n  bad\x1b[2J value\r\n") == "x.json: bad value"


def test_escape_json_controls_keeps_the_value() -> None:
    value = {"name": "a\x7fb\x9bc\x85d\x1be"}
    text = escape_json_controls(json.dumps(value, ensure_ascii=False))
    assert not TERMINAL_CONTROL.search(text)
    assert json.loads(text) == value


def test_load_json_bounds_depth_and_digits() -> None:
    assert load_json("[" * 200 + "]" * 200, name="x") is not None
    for deep in ("[" * 201 + "]" * 201, '{"a": ' * 201 + "1" + "}" * 201,
                 "[" * 100_000 + "]" * 100_000, "[" * 100_000):
        with pytest.raises(UntrustedInputError, match=r"^x: JSON nested deeper than 200 levels$"):
            load_json(deep, name="x")
    assert load_json("[" + "9" * 40 + ", -" + "9" * 40 + ", 1e999, 0.5]", name="x")[3] == 0.5
    for number in ("9" * 41, "-" + "9" * 41, "9" * 5000):
        with pytest.raises(UntrustedInputError, match="digits") as caught:
            load_json(f'{{"n": {number}}}', name="x")
        assert caught.value.kind == "too_large" and "\n" not in str(caught.value)
    with pytest.raises(UntrustedInputError, match="not valid JSON") as caught:
        load_json(b"{oops", name="x")
    assert caught.value.kind == "malformed"
    with pytest.raises(UntrustedInputError, match="not UTF-8"):
        load_json(b"\xff\xfe{}", name="x")


def test_gunzip_reads_every_member_and_stops_at_the_cap() -> None:
    data = gzip.compress(b"ab") + gzip.compress(b"cd") + b"\x00" * 8
    assert gunzip(data, 4, name="x") == b"abcd"
    with pytest.raises(UntrustedInputError, match="once decompressed") as caught:
        gunzip(data, 3, name="x")
    assert caught.value.kind == "too_large"
    with pytest.raises(UntrustedInputError, match="ends too early"):
        gunzip(gzip.compress(b"abcdef" * 100)[:-12], 10_000, name="x")
    with pytest.raises(UntrustedInputError, match="garbage after the end"):
        gunzip(gzip.compress(b"ab") + b"junk", 10, name="x")


def test_read_regular_file_caps_and_refuses_by_type(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"12345")
    assert read_regular_file(path, 5) == b"12345"
    with pytest.raises(UntrustedInputError, match="larger than the 4 bytes") as caught:
        read_regular_file(path, 4, what="a paste")
    assert caught.value.kind == "too_large"
    with pytest.raises(UntrustedInputError, match="it is a directory") as caught:
        read_regular_file(tmp_path, 10)
    assert caught.value.wrong_kind
    with pytest.raises(UntrustedInputError, match="No such file") as caught:
        read_regular_file(tmp_path / "gone", 10)
    assert caught.value.kind == "unreadable"


def test_every_parser_format_is_named_to_the_user() -> None:
    import importlib

    for module_name in PARSER_MODULES:
        module = importlib.import_module(f"gpuscope.parsers.{module_name}")
        for fmt in module.FORMATS:
            family = next((word for prefix, word in FORMAT_FAMILIES.items()
                           if fmt.startswith(prefix)), None)
            assert family is not None, f"{fmt} is not in importer.FORMAT_FAMILIES"
            assert family in ACCEPTED_OUTPUTS, f"{family} is not in ACCEPTED_OUTPUTS"


def test_imported_reports_meet_the_same_bounds(tmp_path: Path) -> None:
    from gpuscope.report.compare_import import CompareImportFailure, read_compare_report

    for name, content in (("deep.json", b"[" * 100_000 + b"]" * 100_000),
                          ("big.json", b'{"schema": "gpuscope.report/1", "n": '
                           + b"9" * 5000 + b"}")):
        path = tmp_path / name
        path.write_bytes(content)
        outcome = read_compare_report(path)
        assert isinstance(outcome, CompareImportFailure)
        assert outcome.reason.startswith(f"{name}: not a gpuscope report: ")
        assert "\n" not in outcome.reason


def test_pasted_text_meets_the_same_rules_as_files() -> None:
    from gpuscope.importer import import_texts

    machine = import_texts([
        ("pasted text", "x" * (MAX_PASTE_BYTES + 1)),
        ("blank", " \n\t\n"),
        ("snapshot", (SNAPSHOTS_DIR / "nvidia_rtx4090.json").read_text()),
        ("deep", "[" * 100_000),
        ("nvidia-smi", (FIXTURES_DIR / "outputs" / "nvidia-smi-table"
                        / "yamda-10-440-quadro-rtx6000.txt").read_text()),
    ])
    reasons = {r.source: r.reason for r in machine.rejected}
    assert reasons == {
        "pasted text": "pasted text: larger than the 10 MB gpuscope reads of a pasted output; "
                       "not read",
        "blank": f"blank holds only blank space. gpuscope reads the output of {ACCEPTED_OUTPUTS}",
        "snapshot": "snapshot is a gpuscope snapshot, not a tool's output: use --replay snapshot",
        "deep": "deep: JSON nested deeper than 200 levels",
    }
    assert len(machine.parsed) == 5 and len(machine.inventory.gpus) == 3
    states = {p.name: p.state.value for p in machine.inventory.probes}
    assert states["import:deep"] == "error" and states["import:nvidia-smi"] == "ok"


def test_text_in_no_known_format_beside_known_outputs_is_named_and_skipped(
        capsys: pytest.CaptureFixture[str]) -> None:
    known = str(FIXTURES_DIR / "outputs" / "nvidia-smi-table" / "yamda-10-440-quadro-rtx6000.txt")
    prose = str(HOSTILE_DIR / "prose.txt")
    outcome = run_cli(capsys, "doctor", "--from", known, "--from", prose)
    assert outcome.status == 0
    assert "GPU 0: Quadro RTX 6000" in outcome.stdout
    assert outcome.stderr == (f"gpuscope: note: {prose} is in no format gpuscope knows. "
                              f"gpuscope reads the output of {ACCEPTED_OUTPUTS}\n")
    # beside a file that is no text output at all, nothing is diagnosed, and one line says why
    photo = str(HOSTILE_DIR / "photo.jpg")
    refused = run_cli(capsys, "doctor", "--from", known, "--from", prose, "--from", photo)
    assert refused.status == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith(f"gpuscope: {photo} ")
