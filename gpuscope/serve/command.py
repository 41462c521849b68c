"""`gpuscope serve`: everything the command does, for the CLI to call after parsing.

It binds first (a taken port fails at once), then probes the machine, starts the one sampler
of a `LiveSession`, the doctor (at start and every few minutes) and the HTTP server and/or the
textfile writer, and runs until Ctrl-C or SIGTERM, when it stops them all. A configuration it
refuses (a non-loopback address with neither token nor TLS, a token on the command line of a
unit, half a TLS pair) is one line on stderr and exit 2; a failure at run time, exit 1.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from gpuscope.i18n import message
from gpuscope.serve.listen import ServeConfigError, TlsFiles, is_loopback

if TYPE_CHECKING:
    from prometheus_client.registry import CollectorRegistry

    from gpuscope.serve.documents import DoctorRunner
    from gpuscope.serve.exporter import LatestReadings
    from gpuscope.serve.history import RecentHistory
    from gpuscope.serve.server import ExporterServer
    from gpuscope.telemetry.sampler import Sampler

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9840
DEFAULT_RATE_HZ = 1.0
DEFAULT_DOCTOR_INTERVAL_MIN = 10.0
MAX_TOKEN_FILE_BYTES = 4096


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """The options of `gpuscope serve` (the argparse names of `add_serve_arguments`)."""

    listen: str | None = None
    port: int | None = None
    token: str | None = None
    token_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    client_ca: str | None = None
    rate: float = DEFAULT_RATE_HZ
    doctor_interval: float = DEFAULT_DOCTOR_INTERVAL_MIN  # minutes
    python: tuple[str, ...] | None = None  # None: the default interpreters
    no_frameworks: bool = False
    textfile: str | None = None
    textfile_interval: float = 15.0  # seconds
    no_http: bool = False
    install_unit: bool = False
    user: bool = False
    replay: str | None = None  # the global --replay: serve a snapshot (tests, demos)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ServeOptions:
        values = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}
        if values.get("python") is not None:
            values["python"] = tuple(values["python"])
        return cls(**values)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `gpuscope serve` (the global --replay serves a snapshot)."""
    parser.add_argument("--listen", metavar="ADDR[:PORT]",
                        help=f"the address to listen on (default {DEFAULT_HOST}; any other "
                             "than loopback needs --token/--token-file or --tls-cert)")
    parser.add_argument("--port", type=int, metavar="PORT",
                        help=f"the port to listen on (default {DEFAULT_PORT}; 0: any free one)")
    parser.add_argument("--token", help="a bearer token every request must carry (visible to "
                                        "other users in the process list: prefer --token-file)")
    parser.add_argument("--token-file", metavar="FILE",
                        help="read the bearer token from the first line of FILE")
    parser.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate "
                                                           "(PEM, with --tls-key)")
    parser.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    parser.add_argument("--client-ca", metavar="FILE",
                        help="mutual TLS: accept only clients with a certificate this CA signed")
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE_HZ, metavar="HZ",
                        help=f"samples per second (0.5 to 20, default {DEFAULT_RATE_HZ:g})")
    parser.add_argument("--doctor-interval", type=float, default=DEFAULT_DOCTOR_INTERVAL_MIN,
                        metavar="MINUTES", help="run the doctor again this often (default "
                                                f"{DEFAULT_DOCTOR_INTERVAL_MIN:g}, at least 1)")
    parser.add_argument("--python", action="append", metavar="PATH",
                        help="inspect this interpreter's frameworks (repeatable; default: the "
                             "usual set)")
    parser.add_argument("--no-frameworks", action="store_true",
                        help="inspect no Python interpreter's frameworks")
    parser.add_argument("--textfile", metavar="DIR",
                        help="also write DIR/gpuscope.prom for node_exporter's textfile "
                             "collector")
    parser.add_argument("--textfile-interval", type=float, default=15.0, metavar="SECONDS",
                        help="write the textfile this often (default 15)")
    parser.add_argument("--no-http", action="store_true",
                        help="serve no HTTP, only write --textfile")
    parser.add_argument("--install-unit", action="store_true",
                        help="write a systemd unit running 'gpuscope serve' with these options "
                             "and exit")
    parser.add_argument("--user", action="store_true",
                        help="with --install-unit: a user unit instead of a system one")


@dataclass(frozen=True, slots=True)
class RunningExporter:
    """What a started exporter is made of (for tests and the benchmark)."""

    server: ExporterServer | None
    registry: CollectorRegistry
    url: str | None
    stop: threading.Event
    doctor: DoctorRunner
    sampler: Sampler
    readings: LatestReadings  # the sampler's latest readings, as scrapes see them
    history: RecentHistory | None = None  # the last minutes of them, for /api/history


def parse_listen(listen: str | None, port: int | None) -> tuple[str, int]:
    """(host, port) of --listen ADDR[:PORT] and --port; "[::1]:9840" for IPv6."""
    host, listen_port = DEFAULT_HOST, None
    if listen:
        text = listen.strip()
        if text.startswith("["):
            inside, _, rest = text[1:].partition("]")
            host = inside
            if rest:
                if not rest.startswith(":"):
                    raise ServeConfigError(message("--listen {value}: not ADDR[:PORT]",
                                                   value=listen))
                listen_port = _port(rest[1:], listen)
        elif text.count(":") == 1:
            host, _, port_text = text.partition(":")
            listen_port = _port(port_text, listen)
        else:
            host = text  # a name, an IPv4 address or a bare IPv6 address
        if not host:
            raise ServeConfigError(message("--listen {value}: no address", value=listen))
    if listen_port is not None and port is not None and listen_port != port:
        raise ServeConfigError(message("--listen {value} and --port {port} name two ports; "
                                       "give one", value=listen, port=port))
    chosen = listen_port if listen_port is not None else port
    if chosen is not None and not 0 <= chosen <= 65535:
        raise ServeConfigError(message("--port {port}: not a port (0 to 65535)", port=chosen))
    return host, DEFAULT_PORT if chosen is None else chosen


def _port(text: str, listen: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ServeConfigError(message("--listen {value}: {port} is not a port number",
                                       value=listen, port=text)) from None


def read_token(options: ServeOptions) -> str | None:
    if options.token and options.token_file:
        raise ServeConfigError(message("--token and --token-file both give a token; give one"))
    if options.token is not None:
        if not options.token.strip():
            raise ServeConfigError(message("--token is empty"))
        return options.token.strip()
    if options.token_file is None:
        return None
    try:
        with open(options.token_file, "rb") as handle:
            raw = handle.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as exc:
        raise ServeConfigError(message("--token-file {path}: {error}", path=options.token_file,
                                       error=exc.strerror or str(exc))) from None
    lines = raw[:MAX_TOKEN_FILE_BYTES].decode("utf-8", "replace").splitlines()
    token = lines[0].strip() if lines else ""
    if not token:
        raise ServeConfigError(message("--token-file {path}: the first line is empty",
                                       path=options.token_file))
    return token


def check_options(options: ServeOptions) -> tuple[str, int, str | None, TlsFiles | None]:
    """(host, port, token, TLS files) of a configuration `serve` accepts; ServeConfigError
    (exit 2) with the reason otherwise."""
    host, port = parse_listen(options.listen, options.port)
    token = read_token(options)
    if bool(options.tls_cert) != bool(options.tls_key):
        raise ServeConfigError(message("--tls-cert and --tls-key go together; give both"))
    if options.client_ca and not options.tls_cert:
        raise ServeConfigError(message("--client-ca needs --tls-cert and --tls-key"))
    tls = (TlsFiles(options.tls_cert, options.tls_key, options.client_ca)
           if options.tls_cert and options.tls_key else None)
    if options.no_http and not options.textfile:
        raise ServeConfigError(message("--no-http serves nothing without --textfile DIR"))
    if options.user and not options.install_unit:
        raise ServeConfigError(message("--user goes with --install-unit"))
    if not options.no_http and not is_loopback(host) and token is None and tls is None:
        raise ServeConfigError(message(
            "refusing to listen on {address} without --token/--token-file or --tls-cert/"
            "--tls-key: anyone on the network could read this machine's details; add one, "
            "or listen on 127.0.0.1", address=f"{host}:{port}"))
    from gpuscope.telemetry.sampler import MAX_RATE_HZ, MIN_RATE_HZ

    if not MIN_RATE_HZ <= options.rate <= MAX_RATE_HZ:
        raise ServeConfigError(message("--rate {rate}: the sampling rate must be {low} to "
                                       "{high} Hz", rate=f"{options.rate:g}",
                                       low=f"{MIN_RATE_HZ:g}", high=f"{MAX_RATE_HZ:g}"))
    return host, port, token, tls


def unit_options(options: ServeOptions) -> list[str]:
    """The options a unit's ExecStart repeats (all but --install-unit and --user); paths
    made absolute, since a unit does not start in this folder."""
    if options.token:
        raise ServeConfigError(message("a unit file would show --token to every user; put "
                                       "the token in a file readable only by the service and "
                                       "give --token-file"))
    if options.replay:
        raise ServeConfigError(message("a unit serves this machine, not a replayed snapshot"))
    words: list[str] = []
    paths = {"token_file", "tls_cert", "tls_key", "client_ca", "textfile"}
    defaults = ServeOptions()
    for field in fields(ServeOptions):
        name = field.name
        if name in ("install_unit", "user", "replay", "token"):
            continue
        value = getattr(options, name)
        if value == getattr(defaults, name):
            continue
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            words.append(flag)
        elif isinstance(value, tuple):
            for item in value:
                words += [flag, str(Path(item).absolute())]
        else:
            text = str(Path(value).absolute()) if name in paths else (
                f"{value:g}" if isinstance(value, float) else str(value))
            words += [flag, text]
    return words


def _install(options: ServeOptions, out: TextIO, err: TextIO) -> int:
    from gpuscope.serve.units import UnitError, install_unit

    if not sys.platform.startswith("linux"):
        raise ServeConfigError(message("--install-unit writes a systemd unit: Linux only"))
    words = unit_options(options)
    try:
        installed = install_unit(options.user, words, writable=[
            str(Path(options.textfile).absolute())] if options.textfile else [])
    except UnitError as exc:
        print(f"gpuscope serve: {exc}", file=err)
        return 1
    verb = message("Replaced") if installed.replaced else message("Wrote")
    print(message("{verb} {path}. Next, run:", verb=verb, path=str(installed.path)), file=out)
    for command in installed.next_commands:
        print(f"  {command}", file=out)
    return 0


def serve_command(options: ServeOptions | argparse.Namespace, *,
                  stop: threading.Event | None = None,
                  on_ready: Callable[[RunningExporter], None] | None = None,
                  out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run `gpuscope serve` until `stop` is set, Ctrl-C or SIGTERM (signals are taken only on
    the main thread). 0 after a clean stop, 2 for a refused configuration, 1 for a failure."""
    out = out or sys.stdout
    err = err or sys.stderr
    if isinstance(options, argparse.Namespace):
        options = ServeOptions.from_args(options)
    try:
        if options.install_unit:
            return _install(options, out, err)
        host, port, token, tls_files = check_options(options)
        from gpuscope.serve.server import tls_context

        tls = tls_context(tls_files) if tls_files is not None else None
        if options.textfile:
            from gpuscope.serve.textfile import TextfileError, check_directory

            try:
                check_directory(options.textfile)
            except TextfileError as exc:
                raise ServeConfigError(str(exc)) from None
    except ServeConfigError as exc:
        print(f"gpuscope serve: {exc}", file=err)
        return 2
    from gpuscope.serve.running import run_exporter

    return run_exporter(options, host, port, token, tls, stop=stop or threading.Event(),
                        on_ready=on_ready, err=err)


def take_signals(stop: threading.Event) -> Callable[[], None]:
    """Set `stop` on SIGINT and SIGTERM (main thread only); the function restoring the old
    handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous: dict[int, object] = {}

    def handler(_number: int, _frame: FrameType | None) -> None:
        stop.set()

    for number in (signal.SIGINT, signal.SIGTERM):
        previous[number] = signal.signal(number, handler)

    def restore() -> None:
        for number, old in previous.items():
            signal.signal(number, old)  # type: ignore[arg-type]
    return restore


__all__: Sequence[str] = ("RunningExporter", "ServeOptions", "add_serve_arguments",
                          "serve_command")
