"""`gpuscope serve` over HTTPS and mutual TLS, with certificates made by the system's openssl
in the test (skipped where there is no openssl)."""

from __future__ import annotations

import http.client
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from serve_helpers import TOKEN, raw_request, start_exporter

from gpuscope.serve.command import ServeOptions, serve_command

OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="no openssl to make certificates")
EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def _openssl(*args: str, cwd: Path) -> None:
    assert OPENSSL is not None
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """server.pem/server.key (self-signed for 127.0.0.1), ca.pem/ca.key and client.pem/
    client.key signed by that CA, and other.pem/other.key self-signed by no one we trust."""
    folder = tmp_path_factory.mktemp("tls")
    _openssl("req", "-x509", *EC, "-keyout", "server.key", "-out", "server.pem", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", cwd=folder)
    _openssl("req", "-x509", *EC, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=gpuscope test CA", cwd=folder)
    _openssl("req", "-new", *EC, "-keyout", "client.key", "-out", "client.csr",
             "-subj", "/CN=prometheus", cwd=folder)
    _openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "client.pem", "-days", "2", cwd=folder)
    _openssl("req", "-x509", *EC, "-keyout", "other.key", "-out", "other.pem", "-days", "2",
             "-subj", "/CN=intruder", cwd=folder)
    return folder


def _client(certificates: Path, cert: str | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(certificates / "server.pem"))
    if cert is not None:
        context.load_cert_chain(str(certificates / f"{cert}.pem"),
                                str(certificates / f"{cert}.key"))
    return context


def _get(port: int, context: ssl.SSLContext, token: str | None = None) -> int:
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    try:
        connection.request("GET", "/metrics",
                           headers={"Authorization": f"Bearer {token}"} if token else {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_https_with_a_token(certificates: Path) -> None:
    started = start_exporter(ServeOptions(
        replay=str(Path(__file__).parents[1] / "fixtures/snapshots/rx7900xtx_rocm.json"),
        port=0, token=TOKEN, no_frameworks=True, tls_cert=str(certificates / "server.pem"),
        tls_key=str(certificates / "server.key")), wait_doctor=False)
    try:
        assert started.running.url is not None and started.running.url.startswith("https://")
        assert _get(started.port, _client(certificates), TOKEN) == 200
        assert _get(started.port, _client(certificates)) == 401
        # Plain HTTP to the TLS port gets no metrics.
        answer = raw_request(started.port, b"GET /metrics HTTP/1.0\r\n\r\n")
        assert b"gpuscope_" not in answer
        assert _get(started.port, _client(certificates), TOKEN) == 200  # still serving
    finally:
        assert started.close() == 0


def test_mutual_tls_needs_a_client_certificate_of_the_ca(certificates: Path) -> None:
    started = start_exporter(ServeOptions(
        replay=str(Path(__file__).parents[1] / "fixtures/snapshots/rx7900xtx_rocm.json"),
        port=0, no_frameworks=True, tls_cert=str(certificates / "server.pem"),
        tls_key=str(certificates / "server.key"), client_ca=str(certificates / "ca.pem")),
        wait_doctor=False)
    try:
        assert _get(started.port, _client(certificates, "client")) == 200
        for cert in (None, "other"):
            with pytest.raises((ssl.SSLError, ConnectionError, OSError)):
                _get(started.port, _client(certificates, cert))
        assert _get(started.port, _client(certificates, "client")) == 200
    finally:
        assert started.close() == 0


def test_tls_on_any_address_is_accepted_and_bad_files_refused(
        certificates: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gpuscope.serve.command import check_options

    host, _port, token, tls = check_options(ServeOptions(
        listen="0.0.0.0:0", tls_cert=str(certificates / "server.pem"),
        tls_key=str(certificates / "server.key")))
    assert host == "0.0.0.0" and token is None and tls is not None
    code = serve_command(ServeOptions(port=0, tls_cert=str(certificates / "server.pem"),
                                      tls_key=str(certificates / "other.key")))
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("gpuscope serve: --tls-cert") and err.count("\n") == 1
