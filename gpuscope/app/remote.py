"""Another machine's `gpuscope serve`, as the window shows it: its doctor answer, its recent
telemetry and its live readings, polled on a background thread.

    machine = RemoteMachine("http://workstation:9840", token="...")
    machine.start()
    machine.state        # reachable, or unreachable with the reason ("connection refused")
    machine.doctor       # its GPUs, stack and findings (`RemoteDoctor`), once fetched
    machine.rings        # per device, the last minutes (from /api/history) and each poll since
    machine.latest       # series -> Reading, from its /metrics
    machine.stop()

It fetches `/api/doctor` on connecting and every few minutes, `/api/history` on connecting
(so charts start full), and `/metrics` every `interval_s` (parsed with
prometheus_client.parser and mapped back to catalogue metrics through the exporter's own
family table, `gpuscope.metrics_prometheus`). A machine that stops answering is unreachable
with the reason (connection refused, a refused token, a TLS error, a timeout); it is tried
again after 1, 2, 4 ... seconds, at most `max_backoff_s` (30 s), and comes back by itself.
Nothing here raises into its caller.
"""

from __future__ import annotations

import enum
import http.client
import json
import logging
import math
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from prometheus_client.parser import text_string_to_metric_families

from gpuscope import metrics_prometheus as F
from gpuscope.decode import decode
from gpuscope.i18n import message
from gpuscope.metrics import (
    HOST_DEVICE,
    Metric,
    Reading,
    cpu_core_metric,
    series_name,
)
from gpuscope.model import (
    Finding,
    Framework,
    Gpu,
    Host,
    Interpreter,
    Inventory,
    LlmRuntime,
    Origin,
    OriginKind,
    ProbeStatus,
    Severity,
    Stack,
)
from gpuscope.report.compare_import import (
    CompareImport,
    CompareImportFailure,
    compare_report_from_json,
)
from gpuscope.telemetry.feed import FeedDevice, gpu_label, host_label
from gpuscope.telemetry.ring import SeriesRing
from gpuscope.telemetry.texts import LabelText, verbatim

log = logging.getLogger(__name__)

DEFAULT_PORT = 9840
DEFAULT_INTERVAL_S = 2.0
DEFAULT_TIMEOUT_S = 5.0
MAX_BACKOFF_S = 30.0
DOCTOR_REFRESH_S = 120.0
HISTORY_SECONDS = 600
REPORT_PATH = "/api/report"
MAX_ANSWER_BYTES = 16 * 2**20
# Rows a device's ring keeps: the history and an hour of polls at the fastest interval.
MAX_RING_ROWS = 20_000


class RemoteStatus(str, enum.Enum):
    CONNECTING = "connecting"  # not answered yet
    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True, slots=True)
class RemoteState:
    status: RemoteStatus
    reason: str | None = None  # why it is unreachable (a sentence for people)
    since_s: float = 0.0  # unix time this status began
    retry_in_s: float | None = None  # while unreachable: when the next try is


@dataclass(frozen=True, slots=True)
class RemoteDoctor:
    """A machine's `doctor --json` document read back: its inventory (GPUs, stack, host
    platform, probes; no device index), frameworks, interpreters and the doctor's findings
    as that machine's doctor made them."""

    inventory: Inventory
    frameworks: tuple[Framework, ...]
    interpreters: tuple[Interpreter, ...]
    llm_runtimes: tuple[LlmRuntime, ...]
    findings: tuple[Finding, ...]
    problems: tuple[str, ...] = ()  # what could not be read, "gpus[1].vendor: ..."


class RemoteError(Exception):
    """One request that failed, with its reason for people."""


def normalise_url(address: str) -> str:
    """"host:9840" -> "http://host:9840"; "https://h/" -> "https://h"; a bare host gets the
    default port. RemoteError for what is not an http(s) address."""
    text = address.strip()
    if not text:
        raise RemoteError(message("no address given"))
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteError(message("{address} is not an http:// or https:// address",
                                  address=address.strip()))
    try:
        port = parts.port
    except ValueError:
        raise RemoteError(message("{address} has no valid port", address=address.strip())
                          ) from None
    netloc = parts.netloc if port is not None else f"{parts.netloc}:{DEFAULT_PORT}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


# ----------------------------------------------------------------------------- documents


def doctor_from_document(doc: Any, url: str) -> RemoteDoctor:
    """A `gpuscope.diagnosis/1` document as model objects; RemoteError when it is not one."""
    if not isinstance(doc, dict) or doc.get("schema") != "gpuscope.diagnosis/1":
        raise RemoteError(message("{url} did not answer a gpuscope doctor document", url=url))
    problems: list[str] = []

    def many(cls: type[Any], key: str, convert: Callable[[dict[str, Any]], dict[str, Any]]
             = lambda item: item) -> tuple[Any, ...]:
        items = doc.get(key)
        found = []
        for position, item in enumerate(items if isinstance(items, list) else []):
            decoded = decode(cls, convert(item) if isinstance(item, dict) else item)
            problems.extend(f"{key}[{position}].{p}" for p in decoded.problems)
            if decoded.value is not None:
                found.append(decoded.value)
        return tuple(found)

    gpus: tuple[Gpu, ...] = many(Gpu, "gpus")
    raw_stack = doc.get("stack")
    stack = decode(Stack, raw_stack if isinstance(raw_stack, dict) else {})
    problems.extend(f"stack.{p}" for p in stack.problems)
    raw_platform = doc.get("platform")
    platform: dict[str, Any] = raw_platform if isinstance(raw_platform, dict) else {}
    host = decode(Host, {key: platform.get(key) for key in
                         ("os", "distro", "kernel", "container", "virtual_machine")
                         if platform.get(key) is not None})
    probes: tuple[ProbeStatus, ...] = many(ProbeStatus, "probes")
    kind = doc.get("origin")
    inventory = Inventory(
        gpus=gpus, stack=stack.value or Stack(), host=host.value or Host(), probes=probes,
        device_index=(),
        origin=Origin(OriginKind(kind) if kind in ("live", "replay") else OriginKind.LIVE,
                      source=url))
    return RemoteDoctor(
        inventory, many(Framework, "frameworks", _with_evidence),
        many(Interpreter, "interpreters"), many(LlmRuntime, "llm_runtimes", _with_evidence),
        _findings(doc.get("findings"), problems), tuple(problems))


def empty_doctor(url: str) -> RemoteDoctor:
    """What a machine shows before its doctor document has come: no GPUs, nothing found."""
    return RemoteDoctor(Inventory((), Stack(), Host(), (), (), Origin(OriginKind.LIVE, url)),
                        (), (), (), ())


def _evidence(labels: object) -> list[dict[str, Any]]:
    """"rocminfo.txt:123" -> {"source": "rocminfo.txt", "line": 123}."""
    found: list[dict[str, Any]] = []
    for label in labels if isinstance(labels, list) else []:
        if not isinstance(label, str):
            continue
        source, _, line = label.rpartition(":")
        found.append({"source": source, "line": int(line)} if source and line.isdigit()
                     else {"source": label})
    return found


def _with_evidence(item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "evidence": _evidence(item.get("evidence"))}


def _findings(items: object, problems: list[str]) -> tuple[Finding, ...]:
    found: list[Finding] = []
    for position, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        decoded = decode(Finding, _with_evidence(item))
        problems.extend(f"findings[{position}].{p}" for p in decoded.problems)
        if decoded.value is not None:
            found.append(decoded.value)
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.OK: 3}
    return tuple(sorted(found, key=lambda f: order.get(f.severity, 4)))


# Prometheus family name -> (extra label, its value) -> the catalogue metric it came from.
_BY_FAMILY: dict[str, dict[tuple[str, str] | None, F.MetricFamily]] = {}
for _row in F.METRIC_FAMILIES.values():
    _BY_FAMILY.setdefault(_row.family.name, {})[_row.extra_label] = _row


def readings_from_metrics(text: str) -> tuple[dict[str, Reading], dict[str, str]]:
    """A `/metrics` page as (series name -> Reading in the catalogue's units, GPU device id
    -> its `gpu` label). A series without a value is a Reading of None with the reason
    `gpuscope_metric_available` gives. ValueError for text that is not the format."""
    readings: dict[str, Reading] = {}
    device_of_gpu: dict[str, str] = {}  # the `gpu` label -> the sampler's device id
    available: list[tuple[str, str, str]] = []
    throttle: dict[str, int] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if family.name == F.METRIC_AVAILABLE.name:
                if sample.value == 0:
                    available.append((labels.get("gpu", ""), labels.get("metric", ""),
                                      labels.get("reason", "")))
                continue
            device = HOST_DEVICE
            if "gpu" in labels and "pci_bus" in labels:
                device = labels.get("pci_bus") or f"gpu{labels['gpu']}"
                device_of_gpu[labels["gpu"]] = device
            if family.name == F.GPU_THROTTLE_REASON.name:
                flag = next((r for r, label in F.THROTTLE_LABELS.items()
                             if label == labels.get("reason")), None)
                bits = throttle.setdefault(device, 0)
                if flag is not None and sample.value >= 0.5:
                    throttle[device] = bits | int(flag)
                continue
            if family.name == F.HOST_CPU_CORE.name:
                core = labels.get("core", "")
                if core.isdigit():
                    readings[series_name(HOST_DEVICE, cpu_core_metric(int(core)))] = Reading(
                        sample.value * 100.0, "gpuscope serve")
                continue
            rows = _BY_FAMILY.get(family.name)
            if not rows:
                continue
            row = next((r for extra, r in rows.items()
                        if extra is None or labels.get(extra[0]) == extra[1]), None)
            if row is None or not row.scale:
                continue
            readings[series_name(device, row.metric)] = Reading(sample.value / row.scale,
                                                                "gpuscope serve")
    for device, bits in throttle.items():
        readings[series_name(device, Metric.THROTTLE_REASONS)] = Reading(float(bits),
                                                                         "gpuscope serve")
    for gpu, metric_id, reason in available:
        owner = HOST_DEVICE if gpu == F.HOST_GPU_LABEL else device_of_gpu.get(gpu)
        if owner is not None:
            name = series_name(owner, metric_id)
            if name not in readings or readings[name].value is None:
                readings[name] = Reading(None, missing_reason=reason or None)
    return readings, device_of_gpu


@dataclass
class _History:
    """`/api/history` read into rings, shifted onto this machine's clock."""

    rings: dict[str, SeriesRing] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


def history_rings(doc: Any, clock_offset_s: float, extra_rows: int) -> _History:
    """The devices of a `gpuscope.history/1` document as rings with room for `extra_rows`
    more rows each. RemoteError when it is not one."""
    if not isinstance(doc, dict) or doc.get("schema") != "gpuscope.history/1":
        raise RemoteError(message("not a gpuscope history document"))
    history = _History()
    devices = doc.get("devices")
    for device in devices if isinstance(devices, list) else []:
        if not isinstance(device, dict) or not isinstance(device.get("device"), str):
            continue
        key = device["device"]
        raw_series, raw_times, t0 = device.get("series"), device.get("times_s"), device.get(
            "t0_s")
        series: dict[Any, Any] = raw_series if isinstance(raw_series, dict) else {}
        start_s = float(t0) if isinstance(t0, (int, float)) else 0.0
        times = np.array([float(t) if isinstance(t, (int, float)) else math.nan
                          for t in (raw_times if isinstance(raw_times, list) else [])],
                         dtype=np.float64) + start_s + clock_offset_s
        columns: dict[str, np.ndarray[Any, np.dtype[np.float64]]] = {}
        for metric_id, entry in series.items():
            if not isinstance(entry, dict) or not isinstance(metric_id, str):
                continue
            name = series_name(key, metric_id)
            raw_values = entry.get("values")
            values: list[Any] = raw_values if isinstance(raw_values, list) else []
            column = np.full(len(times), math.nan)
            for position, value in enumerate(values[:len(times)]):
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    column[position] = float(value)
            columns[name] = column
            for target, field_name in ((history.sources, "source"),
                                       (history.reasons, "reason"),
                                       (history.units, "unit")):
                if isinstance(entry.get(field_name), str):
                    target[name] = entry[field_name]
        keep = np.isfinite(times)
        ring = SeriesRing(tuple(columns), max(1, min(MAX_RING_ROWS,
                                                     int(keep.sum()) + extra_rows)))
        ring.append_rows(times[keep], {name: c[keep] for name, c in columns.items()})
        history.rings[key] = ring
    return history


# ----------------------------------------------------------------------------- the client


class RemoteMachine:
    """One `gpuscope serve` polled on a thread of its own (`start`, `stop`). Every property
    is a consistent copy, safe from any thread; `changes` counts updates, so a view can
    redraw only when something new came."""

    def __init__(self, url: str, token: str | None = None, ca_file: str | None = None, *,
                 interval_s: float = DEFAULT_INTERVAL_S, timeout_s: float = DEFAULT_TIMEOUT_S,
                 max_backoff_s: float = MAX_BACKOFF_S,
                 doctor_refresh_s: float = DOCTOR_REFRESH_S) -> None:
        self.address = url.strip()
        self.token = token or None
        self.ca_file = ca_file or None
        self.interval_s = max(0.05, interval_s)
        self.timeout_s = timeout_s
        self.max_backoff_s = max_backoff_s
        self.doctor_refresh_s = doctor_refresh_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._state = RemoteState(RemoteStatus.CONNECTING, since_s=time.time())
        self._doctor: RemoteDoctor | None = None
        self._rings: dict[str, SeriesRing] = {}
        self._latest: dict[str, Reading] = {}
        self._sources: dict[str, str] = {}
        self._changes = 0
        self._rings_generation = 0
        self._context: ssl.SSLContext | None = None
        self.url = ""
        try:
            self.url = normalise_url(url)
        except RemoteError as exc:
            self._state = RemoteState(RemoteStatus.UNREACHABLE, str(exc), time.time())

    # ------------------------------------------------------------------ what it holds

    @property
    def state(self) -> RemoteState:
        with self._lock:
            return self._state

    @property
    def doctor(self) -> RemoteDoctor | None:
        with self._lock:
            return self._doctor

    @property
    def rings(self) -> Mapping[str, SeriesRing]:
        with self._lock:
            return dict(self._rings)

    @property
    def latest(self) -> Mapping[str, Reading]:
        with self._lock:
            return dict(self._latest)

    @property
    def changes(self) -> int:
        with self._lock:
            return self._changes

    @property
    def rings_generation(self) -> int:
        """Counts replacements of the rings (on each connection): charts rebuild then."""
        with self._lock:
            return self._rings_generation

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        if self.running or not self.url:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"gpuscope-remote {self.url}")
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._thread = None

    def retry_now(self) -> None:
        """Try an unreachable machine at once instead of after its backoff."""
        self._wake.set()

    def fetch_report(self) -> CompareImport:
        """Its `/api/report` (the share report, with its saved benchmark runs) read for the
        Compare page, its cards labelled with this address, or why not. Blocks: call it off
        the GUI thread. Never raises."""
        try:
            if not self.url:
                raise RemoteError(self.state.reason or message("no address given"))
            return compare_report_from_json(self._get_json(REPORT_PATH), source=self.url)
        except _HttpStatusError as exc:
            reason = {503: message("its report is not ready yet (its doctor is on its first "
                                   "run, or the report failed: see its log)"),
                      404: message("its gpuscope serve is too old to give its report")
                      }.get(exc.code, str(exc))
        except Exception as exc:  # a failure is a reason to show
            reason = str(exc) if isinstance(exc, RemoteError) else message(
                "unexpected error: {error}", error=f"{type(exc).__name__}: {exc}")
        return CompareImportFailure(message("{address}: {reason}",
                                            address=self.url or self.address, reason=reason))

    # ------------------------------------------------------------------ the poll thread

    def _run(self) -> None:
        failures = 0
        connected = False
        next_doctor_mono = 0.0
        while not self._stop.is_set():
            try:
                if not connected:
                    self._connect()
                    connected = True
                    next_doctor_mono = time.monotonic() + self.doctor_refresh_s
                elif time.monotonic() >= next_doctor_mono:
                    self._fetch_doctor()
                    next_doctor_mono = time.monotonic() + self.doctor_refresh_s
                self._poll_metrics()
                failures = 0
                wait_s = self.interval_s
            except Exception as exc:  # a failure is a state to show, never a crash
                reason = exc.args[0] if isinstance(exc, RemoteError) and exc.args else (
                    message("unexpected error: {error}", error=f"{type(exc).__name__}: {exc}"))
                if not isinstance(exc, RemoteError):
                    log.debug("remote machine %s", self.url, exc_info=True)
                connected = False
                wait_s = min(self.max_backoff_s, 2.0 ** failures)
                failures += 1
                self._set_state(RemoteStatus.UNREACHABLE, str(reason), wait_s)
            self._wake.wait(wait_s)
            self._wake.clear()

    def _connect(self) -> None:
        self._fetch_doctor()
        extra_rows = int(3600 / self.interval_s)
        before_s = time.time()
        try:
            doc = self._get_json(f"/api/history?seconds={HISTORY_SECONDS}")
            history = history_rings(doc, 0.0, extra_rows)
        except _HttpStatusError as exc:  # an exporter without /api/history: charts start empty
            log.info("remote machine %s: no history (%s)", self.url, exc)
            history = _History()
        else:
            # The remote clock may differ from ours: its "now" is ours at the request.
            remote_now = doc.get("now_s") if isinstance(doc, dict) else None
            if isinstance(remote_now, (int, float)):
                offset = (before_s + time.time()) / 2 - float(remote_now)
                if abs(offset) > 1.0:
                    history = history_rings(doc, offset, extra_rows)
        with self._lock:
            self._rings = history.rings
            self._sources = history.sources
            self._latest = {name: Reading(None, history.sources.get(name), reason)
                            for name, reason in history.reasons.items()}
            self._rings_generation += 1
            self._changes += 1

    def _fetch_doctor(self) -> None:
        try:
            doc = self._get_json("/api/doctor")
        except _NotReadyError:
            return  # its doctor's first run is not done: the next poll asks again
        doctor = doctor_from_document(doc, self.url)
        with self._lock:
            self._doctor = doctor
            self._changes += 1

    def _poll_metrics(self) -> None:
        text = self._get("/metrics").decode("utf-8", "replace")
        try:
            readings, _ = readings_from_metrics(text)
        except ValueError as exc:
            raise RemoteError(message("{url} answered /metrics with something that is not "
                                      "the Prometheus format ({error})",
                                      url=self.url, error=str(exc))) from None
        now = time.time()
        with self._lock:
            sources = self._sources
            self._latest = {name: Reading(r.value, sources.get(name, r.source),
                                          r.missing_reason)
                            for name, r in readings.items()}
            for ring in self._rings.values():
                ring.append(now, {name: readings[name].value for name in ring.series
                                  if name in readings})
            if self._rings == {} and readings:
                self._rings = _rings_of(readings, int(3600 / self.interval_s))
                for ring in self._rings.values():
                    ring.append(now, {name: readings[name].value for name in ring.series})
                self._rings_generation += 1
            if self._state.status is not RemoteStatus.REACHABLE:
                self._state = RemoteState(RemoteStatus.REACHABLE, since_s=now)
            self._changes += 1

    def _set_state(self, status: RemoteStatus, reason: str | None,
                   retry_in_s: float | None = None) -> None:
        with self._lock:
            since = (self._state.since_s if self._state.status is status
                     and self._state.reason == reason else time.time())
            self._state = RemoteState(status, reason, since, retry_in_s)
            self._changes += 1

    # ------------------------------------------------------------------ HTTP

    def _get_json(self, path: str) -> Any:
        body = self._get(path)
        try:
            return json.loads(body)
        except ValueError:
            raise RemoteError(message("{url} answered {path} with something that is not "
                                      "JSON", url=self.url, path=path)) from None

    def _ssl_context(self) -> ssl.SSLContext:
        if self._context is None:
            try:
                self._context = ssl.create_default_context(cafile=self.ca_file)
            except (OSError, ssl.SSLError) as exc:
                raise RemoteError(message("cannot use the CA file {path}: {error}",
                                          path=self.ca_file or "",
                                          error=getattr(exc, "strerror", None) or str(exc))
                                  ) from None
        return self._context

    def _get(self, path: str) -> bytes:
        headers = {"User-Agent": "gpuscope-remote", "Accept": "*/*"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, headers=headers)
        context = self._ssl_context() if self.url.startswith("https:") else None
        handlers: list[urllib.request.BaseHandler] = [urllib.request.ProxyHandler({})]
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        opener = urllib.request.build_opener(*handlers)
        try:
            with opener.open(request, timeout=self.timeout_s) as response:
                body: bytes = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc.code, path) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise RemoteError(self._network_reason(exc)) from None
        if len(body) > MAX_ANSWER_BYTES:
            raise RemoteError(message("{url} answered {path} with more than {size} MiB",
                                      url=self.url, path=path,
                                      size=MAX_ANSWER_BYTES // 2**20))
        return body

    def _http_error(self, code: int, path: str) -> RemoteError:
        if code == 401:
            return RemoteError(message("the token was refused (HTTP 401)") if self.token
                               else message("it needs a token (HTTP 401)"))
        if code == 503 and path == "/api/doctor":
            return _NotReadyError("not ready")
        return _HttpStatusError(message("{path} answered HTTP {code}", path=path, code=code),
                                code)

    def _network_reason(self, exc: BaseException) -> str:
        reason: object = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, ssl.SSLCertVerificationError):
            return message("TLS error: the certificate was not accepted ({error})",
                           error=reason.verify_message or str(reason))
        if isinstance(reason, ssl.SSLError):
            return message("TLS error: {error}", error=reason.reason or str(reason))
        if isinstance(reason, ConnectionRefusedError):
            return message("connection refused (is gpuscope serve running there?)")
        if isinstance(reason, (TimeoutError, socket.timeout)):
            return message("no answer within {seconds} s", seconds=f"{self.timeout_s:g}")
        if isinstance(reason, socket.gaierror):
            return message("unknown host: {error}", error=reason.strerror or str(reason))
        if isinstance(reason, ConnectionResetError):
            return message("the connection was reset")
        if isinstance(reason, OSError) and reason.strerror:
            return reason.strerror
        return str(reason) or type(reason).__name__


class _NotReadyError(RemoteError):
    """The remote doctor has not finished its first run (HTTP 503)."""


class _HttpStatusError(RemoteError):
    """An answer of an HTTP status other than 401 (a path this exporter does not serve)."""

    def __init__(self, reason: str, code: int = 0) -> None:
        super().__init__(reason)
        self.code = code


def _rings_of(readings: Mapping[str, Reading], rows: int) -> dict[str, SeriesRing]:
    """Rings for the series a /metrics page has, when the machine serves no history."""
    by_device: dict[str, list[str]] = {}
    for name in readings:
        device, _, _ = name.rpartition("/")
        by_device.setdefault(device, []).append(name)
    return {device: SeriesRing(tuple(names), max(1, min(MAX_RING_ROWS, rows)))
            for device, names in by_device.items()}


def describe_devices(machine: RemoteMachine) -> Sequence[tuple[str, Gpu | None]]:
    """(device key, its GPU in the doctor document or None) of each device with a ring,
    GPUs first in index order, the host last."""
    doctor = machine.doctor
    gpus = {gpu.pci_bus or f"gpu{gpu.index}": gpu
            for gpu in (doctor.inventory.gpus if doctor is not None else ())}
    keys = list(machine.rings)
    keys.sort(key=lambda k: (k == HOST_DEVICE, gpus[k].index if k in gpus else 999, k))
    return [(key, gpus.get(key)) for key in keys]



class RemoteFeed:
    """A `TelemetryFeed` over a `RemoteMachine`: its rings (history, then each poll) and its
    latest readings, live. `label` as shown (the window translates it)."""

    def __init__(self, machine: RemoteMachine, label: LabelText | str) -> None:
        self.machine = machine
        self._label = verbatim(label) if isinstance(label, str) else label

    def devices(self) -> Sequence[FeedDevice]:
        state = self.machine.state
        lost = state.reason if state.status is RemoteStatus.UNREACHABLE else None
        devices: list[FeedDevice] = []
        for key, gpu in describe_devices(self.machine):
            if key == HOST_DEVICE:
                devices.append(FeedDevice(key, host_label(), None, lost))
            elif gpu is not None:
                devices.append(FeedDevice(key, gpu_label(gpu.index, gpu.name or key),
                                          gpu.index, lost))
            else:
                devices.append(FeedDevice(key, verbatim(key), None, lost))
        return devices

    def ring(self, device_key: str) -> SeriesRing | None:
        return self.machine.rings.get(device_key)

    def latest(self, series: str) -> Reading | None:
        return self.machine.latest.get(series)

    def now_s(self) -> float:
        return time.time()

    @property
    def live(self) -> bool:
        return True

    @property
    def pausable(self) -> bool:
        return True

    @property
    def label(self) -> LabelText:
        return self._label

    @property
    def report_label(self) -> str:
        return self._label.english()
