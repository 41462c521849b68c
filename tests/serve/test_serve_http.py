"""`gpuscope serve` over HTTP: routes, formats, the token, redaction, hostile requests."""

from __future__ import annotations

import http.client
import json

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families
from serve_helpers import TOKEN, Started, raw_request, status_of

from gpuscope.serve.server import MAX_HEAD_BYTES, MAX_REQUEST_LINE_BYTES

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _get(started: Started, path: str, headers: dict[str, str] | None = None
         ) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", started.port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_metrics_in_the_text_format(replay_exporter: Started) -> None:
    status, headers, body = _get(replay_exporter, "/metrics", AUTH)
    assert status == 200
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = body.decode("utf-8")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert "# HELP gpuscope_gpu_temperature_celsius " in text
    assert "# TYPE gpuscope_gpu_temperature_celsius gauge" in text
    temperature = families["gpuscope_gpu_temperature_celsius"]
    assert {s.labels["sensor"] for s in temperature.samples} == {"edge", "junction", "memory"}
    assert all(s.labels["pci_bus"] == "0000:03:00.0" for s in temperature.samples)
    assert families["gpuscope_finding"].samples, "the doctor's first run is in"
    assert families["gpuscope_rocm_info"].samples[0].labels["version"] == "6.2.4"


def test_openmetrics_when_asked(replay_exporter: Started) -> None:
    status, headers, body = _get(replay_exporter, "/metrics", {
        **AUTH, "Accept": "application/openmetrics-text; version=1.0.0; charset=utf-8"})
    assert status == 200
    assert headers["Content-Type"].startswith("application/openmetrics-text")
    text = body.decode("utf-8")
    assert text.endswith("# EOF\n")
    assert "# UNIT gpuscope_gpu_temperature_celsius celsius" in text
    families = {f.name: f for f in openmetrics_families(text)}
    assert families["gpuscope_gpu_power_watts"].unit == "watts"
    assert families["gpuscope_sampler_ticks"].type == "counter"


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"},
    {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": "Bearer"},
])
def test_no_or_a_wrong_token_is_401(replay_exporter: Started, headers: dict[str, str]) -> None:
    for path in ("/metrics", "/api/doctor", "/api/snapshot", "/nothing"):
        status, answer, body = _get(replay_exporter, path, headers)
        assert status == 401, path
        assert answer["WWW-Authenticate"].startswith("Bearer")
        assert b"gpuscope_" not in body and b"schema" not in body


def test_json_endpoints_are_redacted(replay_exporter: Started) -> None:
    status, headers, body = _get(replay_exporter, "/api/doctor", AUTH)
    assert status == 200 and headers["Content-Type"] == "application/json"
    doctor = json.loads(body)
    assert doctor["schema"] == "gpuscope.diagnosis/1"
    assert doctor["origin"] == "replay" and doctor["redacted"] is True
    assert doctor["gpus"][0]["pci_bus"] == "0000:03:00.0"
    status, _, body = _get(replay_exporter, "/api/snapshot", AUTH)
    assert status == 200
    snapshot = json.loads(body)
    assert snapshot["format"] and snapshot["files"]
    assert snapshot["meta"]["description"] == "gpuscope serve"
    for document in (json.dumps(doctor), json.dumps(snapshot)):
        # The snapshot's host name (alice-desktop) and user (alice, /home/alice).
        assert "alice" not in document.lower()
    assert "<host-1>" in json.dumps(snapshot)


@pytest.mark.parametrize("path", [
    b"/", b"/../metrics", b"/metrics/../api/doctor", b"/%2e%2e/metrics", b"/%2E%2E/%2e%2e/etc",
    b"/api/../metrics", b"/metrics/", b"//metrics", b"/api/doctor/../../etc/passwd",
    b"/api/snapshot%00", b"http://127.0.0.1/metrics", b"/METRICS",
])
def test_other_paths_are_404(replay_exporter: Started, path: bytes) -> None:
    answer = raw_request(replay_exporter.port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n"
                         b"Authorization: Bearer " + TOKEN.encode() + b"\r\n\r\n")
    assert status_of(answer) == 404
    assert b"root:" not in answer and b"gpuscope_" not in answer


def test_oversized_requests_are_refused(replay_exporter: Started) -> None:
    port = replay_exporter.port
    long_line = b"GET /metrics?" + b"a" * MAX_REQUEST_LINE_BYTES + b" HTTP/1.1\r\n\r\n"
    assert status_of(raw_request(port, long_line)) == 414
    big_headers = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"b" * 1000)
                           for i in range(MAX_HEAD_BYTES // 1000 + 2))
    answer = raw_request(port, b"GET /metrics HTTP/1.1\r\n" + big_headers + b"\r\n")
    assert status_of(answer) == 431
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(150))
    assert status_of(raw_request(port, b"GET /metrics HTTP/1.1\r\n" + many + b"\r\n")) == 431
    body = (b"GET /metrics HTTP/1.1\r\nAuthorization: Bearer " + TOKEN.encode() +
            b"\r\nContent-Length: 5\r\n\r\nhello")
    assert status_of(raw_request(port, body)) == 413
    post = b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
    assert status_of(raw_request(port, post)) == 405


def test_garbage_gets_400_and_the_server_lives_on(replay_exporter: Started) -> None:
    answer = raw_request(replay_exporter.port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\r\n\r\n")
    assert status_of(answer) == 400
    status, _, _ = _get(replay_exporter, "/metrics", AUTH)
    assert status == 200


def test_a_trickling_client_is_cut_off(replay_exporter: Started,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import time

    import gpuscope.serve.server as server_module

    monkeypatch.setattr(server_module, "REQUEST_TIMEOUT_S", 1.0)
    started = time.monotonic()
    closed_after = None
    with socket.create_connection(("127.0.0.1", replay_exporter.port), timeout=5) as sock:
        sock.sendall(b"GET /metrics HTTP/1.1\r\n")
        for _ in range(12):  # a header byte every 0.25 s, never the blank line
            time.sleep(0.25)
            try:
                sock.sendall(b"X")
                sock.settimeout(0.01)
                if sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
    assert closed_after is not None and closed_after < 2.5
    status, _, _ = _get(replay_exporter, "/metrics", AUTH)
    assert status == 200
