"""`gpuscope bench --import FILE`: real llama.cpp outputs in each format kept in the run history,
labelled imported, apart from measured runs; `--history` lists them; unreadable files and
files without results are one-line errors with exit status 1; an older history file stays
readable."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gpuscope.bench.command import history_command
from gpuscope.bench.history import RunHistory
from gpuscope.bench.import_command import import_command, read_import
from gpuscope.bench.imported import ImportedLlamaResult, imported_from_json, imported_to_json
from gpuscope.bench.results import BenchmarkResult, BenchRun, ResultStatus, Spread, WorkerHello
from gpuscope.parsers.llama_bench import LlamaBenchResult

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llama_bench"
REPO = Path(__file__).resolve().parents[2]


def run_import(history: RunHistory, *files: Path | str, as_json: bool = False,
               save: bool = True) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = import_command([str(f) for f in files], as_json=as_json, save=save,
                            history=history, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def history_json(history: RunHistory) -> dict[str, object]:
    out = io.StringIO()
    assert history_command(list_runs=True, as_json=True, history=history, stdout=out) == 0
    document = json.loads(out.getvalue())
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize("name, ids", [
    ("md_rocm_radeon8060s_geerlingguy21.txt",
     ["llama-bench.pp512", "llama-bench.tg128", "llama-bench.pp512+tg128"]),
    ("readme_cuda_rtx4080.csv", ["llama-bench.pp512", "llama-bench.tg128"]),
    ("readme_cuda_rtx4080.json", ["llama-bench.pp512", "llama-bench.tg128"]),
    ("readme_cuda_rtx4080.jsonl", ["llama-bench.pp512", "llama-bench.tg128"]),
    ("readme_cuda_rtx4080.sql", ["llama-bench.pp512", "llama-bench.tg128"]),
    ("cli_perf_context_issue34.txt", ["llama-cli.prompt_eval", "llama-cli.eval"]),
    ("server_timings_issue9013.txt", ["llama-server.prompt_eval", "llama-server.eval"]),
])
def test_each_format_is_kept_and_listed_as_imported(tmp_path: Path, name: str,
                                                    ids: list[str]) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    status, out, err = run_import(history, FIXTURES / name)
    assert status == 0, err
    assert err == ""
    assert "imported" in out and name in out
    document = history_json(history)
    assert document["runs"] == []  # never taken for a measured run
    imported = document["imported"]
    assert isinstance(imported, list)
    assert [entry["id"] for entry in imported] == ids
    for entry in imported:
        assert entry["kind"] == "imported"
        assert entry["unit"] == "tokens/s"
        assert entry["source_file"] == name
        assert entry["result"]["tokens_per_s"] > 0
        assert str(entry["history_id"]).startswith("i")
    assert history.list() == ()


def test_the_acceptance_markdown_table_through_the_cli(tmp_path: Path) -> None:
    """`gpuscope bench --import <a real llama-bench markdown table>` then `--history`."""
    env = dict(os.environ, GPUSCOPE_DATA_DIR=str(tmp_path / "data"), GPUSCOPE_LANG="en")
    table = FIXTURES / "md_vulkan_rx7900xt_geerlingguy23.txt"
    done = subprocess.run([sys.executable, "-m", "gpuscope", "bench", "--import", str(table)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([sys.executable, "-m", "gpuscope", "bench", "--history"],
                            capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "4 imported results (measured by llama.cpp, not by gpuscope)" in listed.stdout
    assert "llama-bench.tg128" in listed.stdout
    assert "7.16 ± 0.15" in listed.stdout
    assert "AMD Radeon RX 7900 XT (RADV NAVI31)" in listed.stdout
    assert "Q4_K_M" in listed.stdout and "Vulkan" in listed.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "gpuscope", "bench", "--history", "--json"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    document = json.loads(as_json.stdout)
    tg = next(e for e in document["imported"] if e["id"] == "llama-bench.tg128")
    assert tg["result"]["gpu_name"].startswith("AMD Radeon RX 7900 XT")
    assert tg["result"]["n_gpu_layers"] == 99
    assert tg["result"]["build_number"] == 6552


def test_import_json_document(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    status, out, _ = run_import(history, FIXTURES / "readme_cuda_rtx4080.json", as_json=True)
    assert status == 0
    document = json.loads(out)
    assert document["kind"] == "imported"
    assert document["history"]["saved"] is True
    (entry,) = document["files"]
    assert entry["formats"] == ["json"]
    assert [r["history_id"] for r in entry["results"]] == ["i1", "i2"]
    assert entry["results"][1]["result"]["samples_tokens_per_s"] == [
        119.03, 120.178, 119.43, 118.307, 117.464]


def test_no_save_keeps_nothing(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    status, out, _ = run_import(history, FIXTURES / "readme_cuda_rtx4080.csv", save=False)
    assert status == 0 and "llama-bench.tg128" in out
    assert not history.path.exists()


def test_unreadable_file_and_file_without_results(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    missing = tmp_path / "nope.md"
    status, _, err = run_import(history, missing)
    assert status == 1
    assert err.count("\n") == 1 and f"cannot read {missing}" in err
    empty = tmp_path / "notes.txt"
    empty.write_text("my GPU is fast\n| a | b |\n", encoding="utf-8")
    status, _, err = run_import(history, empty)
    assert status == 1
    assert err.count("\n") == 1 and "no llama.cpp results in" in err
    binary = tmp_path / "model.gguf"
    binary.write_bytes(b"GGUF\x00\x00\x03" + bytes(range(256)))
    status, _, err = run_import(history, binary)
    assert status == 1 and "is not text" in err
    # the good file beside a bad one is still kept, and the status says one failed
    status, _, err = run_import(history, missing, FIXTURES / "readme_cuda_rtx4080.sql")
    assert status == 1 and err.count("\n") == 1
    assert len(history.list_imported()) == 2


def test_unwritable_history_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    history = RunHistory(blocker / "runs.sqlite")
    status, _, err = run_import(history, FIXTURES / "readme_cuda_rtx4080.csv")
    assert status == 1
    assert err.startswith("gpuscope bench: the results were not kept:")
    assert err.count("\n") == 1


def test_measured_runs_and_imported_results_side_by_side(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    hello = WorkerHello(protocol=1, python="/usr/bin/python3", torch_version="2.7.1",
                        device="cpu")
    run = BenchRun("/usr/bin/python3", ("memory.copy",), "cpu", hello, (BenchmarkResult(
        "memory.copy", "cpu", ResultStatus.OK, "GB/s", True, 10.0,
        Spread(9.0, 10.0, 11.0, 5)),), (), 1000.0, 1010.0)
    run_id = history.save(run)
    run_import(history, FIXTURES / "md_cuda_rtx3090ti_pr4812.txt")
    document = history_json(history)
    assert [r["id"] for r in document["runs"]] == [run_id]
    assert len(document["imported"]) == 4
    out = io.StringIO()
    history_command(list_runs=True, history=history, stdout=out)
    text = out.getvalue()
    assert "1 benchmark run in" in text
    assert "4 imported results (measured by llama.cpp, not by gpuscope)" in text
    # delete one imported result by its "i" id, and the run by its number
    out = io.StringIO()
    status = history_command(delete=["i2", str(run_id)], history=history, stdout=out)
    assert status == 0, out.getvalue()
    assert history.list() == ()
    assert [s.id for s in history.list_imported()] == [1, 3, 4]


def test_a_history_file_from_before_imports_stays_readable(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    # The schema of the first history files, with one run in it.
    with sqlite3.connect(path) as connection:
        connection.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('schema_version', '1');
            CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, saved_unix_s REAL NOT NULL,
                started_unix_s REAL NOT NULL, duration_s REAL NOT NULL, device TEXT NOT NULL,
                card TEXT, python TEXT NOT NULL, torch TEXT, benchmarks TEXT NOT NULL,
                results INTEGER NOT NULL, ok INTEGER NOT NULL, error TEXT,
                document TEXT NOT NULL);
            INSERT INTO runs VALUES (1, 5.0, 1.0, 2.0, 'CPU', NULL, '/usr/bin/python3', NULL,
                'memory.copy', 0, 0, NULL, '{"schema": "gpuscope.bench/1"}');
        """)
    connection.close()
    history = RunHistory(path)
    assert [r.id for r in history.list()] == [1]
    assert history.list_imported() == ()
    status, _, err = run_import(history, FIXTURES / "readme_cuda_rtx4080.jsonl")
    assert status == 0, err
    assert [r.id for r in history.list()] == [1]
    assert len(history.list_imported()) == 2


def test_a_damaged_imported_row_is_left_out(tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "runs.sqlite")
    run_import(history, FIXTURES / "readme_cuda_rtx4080.csv")
    with sqlite3.connect(history.path) as connection:
        connection.execute("UPDATE imported SET document = 'garbage' WHERE id = 1")
    connection.close()
    assert [s.id for s in history.list_imported()] == [2]


def test_imported_json_round_trip() -> None:
    found = read_import(str(FIXTURES / "md_rocm_rx6700xt_indented_issue26702.txt"), now=5.0)
    assert found.error is None
    for item in found.results:
        assert imported_from_json(json.loads(json.dumps(imported_to_json(item)))) == item
    assert imported_from_json({"kind": "measured"}) is None
    assert imported_from_json("garbage") is None


def test_the_stored_record_has_the_parser_s_fields() -> None:
    """`ImportedLlamaResult` (read by the report, which may not import parsers) mirrors
    `LlamaBenchResult` field for field, type for type."""
    parser_fields = [(f.name, str(f.type), f.default) for f in
                     dataclasses.fields(LlamaBenchResult)]
    stored_fields = [(f.name, str(f.type), f.default) for f in
                     dataclasses.fields(ImportedLlamaResult)]
    assert stored_fields == parser_fields
