"""`/api/report` of `gpuscope serve`: the redacted share report (`gpuscope report --format json`)
with the benchmark runs saved on the served machine's GPUs, read back by the Compare page's
import (`compare_report_from_json`) and by `RemoteMachine.fetch_report`."""

from __future__ import annotations

import json
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from fixture_paths import FIXTURES_DIR, SNAPSHOTS_DIR, TESTS_DIR
from prometheus_client.registry import CollectorRegistry
from serve_helpers import REPLAY, TOKEN, Started, start_exporter

from gpuscope.app.remote import RemoteMachine
from gpuscope.bench.history import RunHistory
from gpuscope.bench.import_command import read_import
from gpuscope.bench.imported import imported_from_json
from gpuscope.bench.results import BenchError, ErrorKind, ResultStatus
from gpuscope.evidence import ReplaySystem
from gpuscope.report.compare_import import (
    CompareImportFailure,
    ImportedReport,
    compare_report_from_json,
)
from gpuscope.serve.command import ServeOptions
from gpuscope.serve.documents import IMPORTED_LLM_KEY, run_doctor
from gpuscope.serve.server import REPORT_PATH, ExporterServer, serve_in_thread

sys.path.insert(0, str(TESTS_DIR / "report"))
from report_fixtures import BENCH_STARTED_UNIX_S, bench_run
from test_saved_runs import _other_cards_run

CARD = "AMD Radeon RX 7900 XTX"


def _get(port: int, path: str, token: str | None = TOKEN) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=20) as answer:
            return int(answer.status), bytes(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _exporter() -> Started:
    return start_exporter(ServeOptions(replay=REPLAY, port=0, token=TOKEN, no_frameworks=True,
                                       rate=4.0))


def _card(imported: ImportedReport) -> Any:
    [card] = [c for c in imported.cards if c.profile.name == CARD]
    return card


def test_the_report_carries_the_saved_run_and_compare_reads_its_measured_result() -> None:
    RunHistory().save(bench_run(BENCH_STARTED_UNIX_S))  # GPUSCOPE_DATA_DIR: this test's own
    started = _exporter()
    try:
        status, body = _get(started.port, REPORT_PATH)
        assert status == 200, body[:200]
        doc = json.loads(body)
        assert doc["schema"] == "gpuscope.report/1" and doc["redacted"] is True
        assert len(doc["bench_runs"]) == 1
        imported = compare_report_from_json(doc, source="served")
        assert isinstance(imported, ImportedReport), imported
        fp16 = _card(imported).result("matmul.fp16")
        assert fp16 is not None and fp16.status is ResultStatus.OK
        assert fp16.value == pytest.approx(98.6) and fp16.unit == "TFLOPS"
        # The same token as every other route.
        assert _get(started.port, REPORT_PATH, token=None)[0] == 401
        assert _get(started.port, REPORT_PATH, token="wrong")[0] == 401

        machine = RemoteMachine(f"127.0.0.1:{started.port}", TOKEN)
        fetched = machine.fetch_report()
        assert isinstance(fetched, ImportedReport), fetched
        assert fetched.source == f"http://127.0.0.1:{started.port}"
        result = _card(fetched).result("memory.copy")
        assert result is not None and result.value == pytest.approx(812.5)
        refused = RemoteMachine(f"127.0.0.1:{started.port}", "wrong").fetch_report()
        assert isinstance(refused, CompareImportFailure)
        assert "token was refused" in refused.reason
    finally:
        assert started.close() == 0


def test_without_saved_runs_the_report_has_the_card_and_no_measured_result() -> None:
    started = _exporter()
    try:
        status, body = _get(started.port, REPORT_PATH)
        assert status == 200
        imported = compare_report_from_json(json.loads(body), source="served")
        assert isinstance(imported, ImportedReport), imported
        assert _card(imported).results == {}
    finally:
        assert started.close() == 0


def test_a_run_on_another_card_and_a_failed_run_stay_out(tmp_path: Any) -> None:
    """Only successful runs on the served machine's GPUs are reported (as `gpuscope report`)."""
    history_path = str(tmp_path / "runs.sqlite")
    history = RunHistory(history_path)
    history.save(_other_cards_run(BENCH_STARTED_UNIX_S + 60))
    history.save(replace(bench_run(BENCH_STARTED_UNIX_S + 120), results=(), errors=(
        BenchError(ErrorKind.HANG, "the benchmark worker hung", benchmark="matmul.fp16"),)))
    run = run_doctor(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), (),
                     history_path=history_path)
    assert run.error is None and run.report_json is not None
    assert json.loads(run.report_json)["bench_runs"] == []
    history.save(bench_run(BENCH_STARTED_UNIX_S))
    again = run_doctor(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), (),
                       history_path=history_path)
    assert again.report_json is not None
    assert [r["started_unix_s"] for r in json.loads(again.report_json)["bench_runs"]] == [
        BENCH_STARTED_UNIX_S]


def test_the_imported_llama_bench_results_come_along_redacted(tmp_path: Any) -> None:
    """llama-bench results imported here (`gpuscope bench --import`, a README capture, see
    tests/fixtures/llama_bench/SOURCES.md) are served beside the report, home paths out."""
    history_path = str(tmp_path / "runs.sqlite")
    found = read_import(str(FIXTURES_DIR / "llama_bench" / "readme_cuda_rtx4080.json"),
                        now=5.0)
    assert found.results
    home = "/home/alice-tester"
    items = [replace(item, source_file=f"{home}/bench/{item.source_file}")
             for item in found.results]
    RunHistory(history_path).save_imported(items)
    run = run_doctor(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), (),
                     history_path=history_path)
    assert run.report_json is not None
    text = run.report_json.decode("utf-8")
    assert home not in text
    doc = json.loads(text)
    back = [imported_from_json(raw) for raw in doc[IMPORTED_LLM_KEY]]
    assert all(item is not None for item in back)
    assert sorted(item.result.tokens_per_s for item in back if item is not None) == sorted(
        item.result.tokens_per_s for item in items)
    # Nothing imported: no such key (the report as `gpuscope report` makes it).
    plain = run_doctor(ReplaySystem.from_file(SNAPSHOTS_DIR / "rx7900xtx_rocm.json"), (),
                       history_path=str(tmp_path / "empty.sqlite"))
    assert plain.report_json is not None
    assert IMPORTED_LLM_KEY not in json.loads(plain.report_json)


def _bare_server(documents: dict[str, Callable[[], bytes | None]]) -> ExporterServer:
    server = ExporterServer(("127.0.0.1", 0), CollectorRegistry(), documents)
    serve_in_thread(server)
    return server


@pytest.mark.parametrize(("documents", "words"), [
    ({}, "too old to give its report"),  # an exporter without the route: 404
    ({REPORT_PATH: lambda: None}, "not ready yet"),  # no doctor run yet: 503
    ({REPORT_PATH: lambda: b"[1, 2]"}, "not a gpuscope report"),
    ({REPORT_PATH: lambda: b"<html>"}, "not JSON"),
])
def test_fetch_report_says_why_it_has_no_report(
        documents: dict[str, Callable[[], bytes | None]], words: str) -> None:
    server = _bare_server(documents)
    try:
        outcome = RemoteMachine(server.url).fetch_report()
    finally:
        server.shutdown()
        server.server_close()
    assert isinstance(outcome, CompareImportFailure)
    assert outcome.reason.startswith(server.url + ": ") and words in outcome.reason


def test_fetch_report_of_a_machine_not_listening_or_not_an_address() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    refused = RemoteMachine(f"127.0.0.1:{port}", timeout_s=3).fetch_report()
    assert isinstance(refused, CompareImportFailure)
    assert "connection refused" in refused.reason
    bad = RemoteMachine("ftp://somewhere").fetch_report()
    assert isinstance(bad, CompareImportFailure) and "not an http" in bad.reason
