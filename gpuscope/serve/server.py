"""The HTTP side of `gpuscope serve`, on the standard library's ThreadingHTTPServer.

Routes, all GET, nothing else (any other path is 404; `/../metrics` and `/%2e%2e/` are other
paths, never resolved): `/metrics` (Prometheus text format, OpenMetrics when the Accept header
asks for it), `/api/doctor` (the `gpuscope doctor --json` document) and `/api/snapshot` (the
`gpuscope snapshot` file) and `/api/report` (the `gpuscope report --format json` share report,
with this machine's saved benchmark runs), all redacted and all from the doctor's last run, and
`/api/history?seconds=N` (the last N <= 600 seconds of telemetry, `serve/history.py`).

Bounded: a request line of at most 8 KiB, at most 32 KiB of request line and headers together
(431 past it), no request body (413), at most 32 connections at once, 10 s to send a request.
With a token every request needs `Authorization: Bearer <token>` (401 otherwise, compared in
constant time). With TLS the handshake runs on the connection's own thread, so a slow client
never holds up the others; a client CA makes it mutual TLS (no client certificate, no
connection).
"""

from __future__ import annotations

import contextlib
import hmac
import http.server
import io
import logging
import socket
import socketserver
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import CollectorRegistry

from gpuscope.serve.history import HistoryQueryError, seconds_of_query
from gpuscope.serve.listen import ServeConfigError, TlsFiles

log = logging.getLogger(__name__)

MAX_REQUEST_LINE_BYTES = 8 * 1024
MAX_HEAD_BYTES = 32 * 1024
MAX_CONNECTIONS = 32
REQUEST_TIMEOUT_S = 10.0

METRICS_PATH = "/metrics"
DOCTOR_PATH = "/api/doctor"
SNAPSHOT_PATH = "/api/snapshot"
REPORT_PATH = "/api/report"
HISTORY_PATH = "/api/history"


def tls_context(files: TlsFiles) -> ssl.SSLContext:
    """A server context of TLS 1.2 or newer with `files`' certificate; with a client CA,
    clients must show a certificate it signed. ServeConfigError names a file it cannot use."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(files.cert, files.key)
    except (OSError, ssl.SSLError) as exc:
        raise ServeConfigError(f"--tls-cert {files.cert} / --tls-key {files.key}: "
                               f"{_error_text(exc)}") from None
    if files.client_ca:
        try:
            context.load_verify_locations(cafile=files.client_ca)
        except (OSError, ssl.SSLError) as exc:
            raise ServeConfigError(f"--client-ca {files.client_ca}: {_error_text(exc)}"
                                   ) from None
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# JSON documents by path: a getter giving the body, or None while there is none yet.
Documents = dict[str, Callable[[], bytes | None]]
# The body of /api/history for the seconds asked for.
HistoryBody = Callable[[float], bytes]


class _HeadTooLargeError(Exception):
    pass


class _BoundedReader:
    """The request head straight from the connection, refusing more than `limit` bytes of it
    or waiting for it past `deadline_mono`: a client sending a byte now and then cannot hold
    a connection longer than REQUEST_TIMEOUT_S in all. (A buffered reader's readline would
    wait a whole socket timeout per byte.)"""

    def __init__(self, inner: io.BufferedIOBase, limit: int, connection: socket.socket,
                 deadline_mono: float) -> None:
        self._inner = inner  # closed by the handler's finish(); never read
        self._left = limit
        self._connection = connection
        self._deadline_mono = deadline_mono
        self._buffer = bytearray()

    def readline(self, size: int = -1) -> bytes:
        if self._left <= 0:
            raise _HeadTooLargeError
        want = self._left if size is None or size < 0 else min(size, self._left)
        while True:
            end = self._buffer.find(b"\n", 0, want)
            if end >= 0:
                take = end + 1
                break
            if len(self._buffer) >= want:
                take = want
                break
            remaining_s = self._deadline_mono - time.monotonic()
            if remaining_s <= 0:
                raise TimeoutError("the request took too long to arrive")
            self._connection.settimeout(remaining_s)
            chunk = self._connection.recv(4096)
            if not chunk:
                take = len(self._buffer)
                break
            self._buffer += chunk
        line = bytes(self._buffer[:take])
        del self._buffer[:take]
        self._left -= len(line)
        if self._left <= 0 and not line.endswith(b"\n"):
            raise _HeadTooLargeError
        return line

    def read(self, size: int = -1) -> bytes:
        return b""  # a body is never read

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ExporterServer(http.server.ThreadingHTTPServer):
    """The exporter's HTTP(S) server. `token`: the bearer token every request must carry."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 16

    def __init__(self, address: tuple[str, int], registry: CollectorRegistry,
                 documents: Documents, *, token: str | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        host = address[0].strip("[]")
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.registry = registry
        self.documents = documents
        self.token = token.encode("utf-8") if token else None
        self.tls = tls
        self.history: HistoryBody | None = None  # set once the sampler runs
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__((host, address[1]), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        shown = f"[{host}]" if ":" in host else host
        return f"{'https' if self.tls else 'http'}://{shown}:{self.port}"

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):  # too many at once: drop this one
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        request.settimeout(REQUEST_TIMEOUT_S)
        try:
            wrapped = self.tls.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError) as exc:  # no or a wrong client certificate, not TLS
            log.info("gpuscope serve: TLS handshake with %s failed: %s", client_address, exc)
            return
        try:
            super().finish_request(wrapped, client_address)
        finally:
            with contextlib.suppress(OSError):
                wrapped.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("gpuscope serve: request from %s failed", client_address, exc_info=True)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: ExporterServer
    timeout = REQUEST_TIMEOUT_S
    server_version = "gpuscope"
    sys_version = ""

    def setup(self) -> None:
        super().setup()
        self.rfile = _BoundedReader(  # type: ignore[assignment]
            self.rfile, MAX_HEAD_BYTES, self.connection,
            time.monotonic() + REQUEST_TIMEOUT_S)

    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(MAX_REQUEST_LINE_BYTES + 1)
            if len(self.raw_requestline) > MAX_REQUEST_LINE_BYTES:
                self.requestline, self.request_version, self.command = "", "", ""
                self._reply(HTTPStatus.REQUEST_URI_TOO_LONG, b"request line too long\n")
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            if self.command != "GET":
                self._reply(HTTPStatus.METHOD_NOT_ALLOWED, b"only GET\n", {"Allow": "GET"})
                return
            self._get()
            self.wfile.flush()
        except _HeadTooLargeError:
            self.close_connection = True
            self.requestline, self.request_version = "", "HTTP/1.0"
            self._reply(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                        b"request headers too large\n")
        except TimeoutError:
            self.close_connection = True

    def _get(self) -> None:
        self.connection.settimeout(REQUEST_TIMEOUT_S)  # the head is in: time to answer
        server = self.server
        if server.token is not None and not self._authorized(server.token):
            self._reply(HTTPStatus.UNAUTHORIZED, b"a bearer token is needed\n",
                        {"WWW-Authenticate": 'Bearer realm="gpuscope"'})
            return
        if self.headers.get("Content-Length", "0").strip() not in ("", "0") or (
                "Transfer-Encoding" in self.headers):
            self._reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, b"no request body is taken\n")
            return
        # The target as sent: parse_request turns a leading "//" into "/", which is no route.
        words = self.requestline.split()
        path, _, query = (words[1] if len(words) > 1 else self.path).partition("?")
        if path == HISTORY_PATH and server.history is not None:
            self._history(server.history, query)
            return
        if path == METRICS_PATH:
            encoder, content_type = choose_encoder(self.headers.get("Accept", ""))
            self._reply(HTTPStatus.OK, encoder(server.registry), {"Content-Type": content_type})
            return
        document = server.documents.get(path)
        if document is None:
            self._reply(HTTPStatus.NOT_FOUND, b"not found\n")
            return
        body = document()
        if body is None:
            self._reply(HTTPStatus.SERVICE_UNAVAILABLE,
                        b'{"error": "the doctor has not finished its first run yet"}\n',
                        {"Content-Type": "application/json", "Retry-After": "30"})
            return
        self._reply(HTTPStatus.OK, body, {"Content-Type": "application/json"})

    def _history(self, history: HistoryBody, query: str) -> None:
        try:
            values = urllib.parse.parse_qs(query, max_num_fields=8)
            seconds = seconds_of_query(values)
        except (HistoryQueryError, ValueError) as exc:
            self._reply(HTTPStatus.BAD_REQUEST, f"{exc}\n".encode())
            return
        self._reply(HTTPStatus.OK, history(seconds), {"Content-Type": "application/json"})

    def _authorized(self, token: bytes) -> bool:
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(value.strip().encode("utf-8", "replace"), token)

    def _reply(self, status: HTTPStatus, body: bytes,
               headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        fields = {"Content-Type": "text/plain; charset=utf-8", **(headers or {})}
        for name, value in fields.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """parse_request's errors (a bad request line, too many headers) in plain text, with
        a status line even for a request that never said its HTTP version, and without
        echoing what was sent."""
        self.close_connection = True
        if self.request_version not in ("HTTP/1.0", "HTTP/1.1"):
            self.request_version = "HTTP/1.0"
        status = HTTPStatus(code)
        self._reply(status, f"{status.phrase}\n".encode())

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("gpuscope serve: %s " + format, self.address_string(), *args)


def serve_in_thread(server: socketserver.BaseServer) -> threading.Thread:
    """Run `server` on a daemon thread; `server.shutdown()` ends it."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.25},
                              daemon=True, name="gpuscope-serve-http")
    thread.start()
    return thread
