"""What a Prometheus scrape of `gpuscope serve` costs, and whether scrapes slow the sampler.

Starts the exporter in-process (`serve_command`, port 0) on the replayed RX 7900 XTX snapshot
(or this machine with --live) sampling at --rate Hz, then:

1. samples the sampler's tick time (its `TickEvent.duration_s`) for --seconds with no scrapes;
2. runs --clients threads scraping `/metrics` back to back for --seconds, timing each scrape
   (HTTP round trip over loopback) and the sampler's ticks meanwhile;
3. times the collection alone (`generate_latest` on the exporter's registry) and what the
   per-tick copy of the latest readings costs the sampler thread (`LatestReadings`).

Prints JSON: `scrape_ms_median`/`scrape_ms_p95` (HTTP), `collect_ms_median`,
`tick_ms_median_idle`, `tick_ms_median_scraped` (and p95s), `snapshot_update_us_median`, with
the configuration. Times are wall-clock milliseconds on this machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from prometheus_client import generate_latest

from gpuscope.serve.command import RunningExporter, ServeOptions, serve_command
from gpuscope.telemetry.sampler import TickEvent

FIXTURE = (Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "snapshots"
           / "rx7900xtx_rocm.json")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _scrape(port: int) -> float:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/metrics")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"/metrics answered {response.status}")
    finally:
        connection.close()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="this machine, not the fixture")
    parser.add_argument("--rate", type=float, default=10.0, help="sampling rate (Hz)")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--clients", type=int, default=2, help="scraping threads")
    args = parser.parse_args()

    ready = threading.Event()
    stop = threading.Event()
    holder: list[RunningExporter] = []

    def on_ready(running: RunningExporter) -> None:
        holder.append(running)
        ready.set()

    options = ServeOptions(port=0, replay=None if args.live else str(FIXTURE),
                           no_frameworks=True, rate=args.rate)
    server_thread = threading.Thread(target=serve_command, args=(options,),
                                     kwargs={"stop": stop, "on_ready": on_ready}, daemon=True)
    server_thread.start()
    if not ready.wait(60) or not holder:
        raise SystemExit("the exporter did not start")
    running = holder[0]
    assert running.server is not None
    port = running.server.port
    running.doctor.wait_first(60)

    ticks: list[float] = []
    updates: list[float] = []
    readings = running.readings

    def on_tick(event: TickEvent) -> None:
        ticks.append(event.duration_s)
        updates.append(readings.update_cost_s)  # its subscriber ran before this one

    unsubscribe = running.sampler.subscribe(on_tick)
    time.sleep(args.seconds)
    idle_ticks = list(ticks)
    ticks.clear()

    scrapes: list[float] = []
    lock = threading.Lock()
    until = time.monotonic() + args.seconds

    def client() -> None:
        while time.monotonic() < until:
            took = _scrape(port)
            with lock:
                scrapes.append(took)

    clients = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    scraped_ticks = list(ticks)
    unsubscribe()

    collects: list[float] = []
    for _ in range(200):
        started = time.perf_counter()
        generate_latest(running.registry)
        collects.append(time.perf_counter() - started)
    stop.set()
    server_thread.join(10)

    result: dict[str, Any] = {
        "machine": "live" if args.live else FIXTURE.name,
        "rate_hz": args.rate,
        "clients": args.clients,
        "scrapes": len(scrapes),
        "scrape_ms_median": round(statistics.median(scrapes) * 1e3, 3),
        "scrape_ms_p95": round(_percentile(scrapes, 0.95) * 1e3, 3),
        "collect_ms_median": round(statistics.median(collects) * 1e3, 3),
        "metrics_bytes": len(generate_latest(running.registry)),
        "ticks_idle": len(idle_ticks),
        "tick_ms_median_idle": round(statistics.median(idle_ticks) * 1e3, 3),
        "tick_ms_p95_idle": round(_percentile(idle_ticks, 0.95) * 1e3, 3),
        "ticks_scraped": len(scraped_ticks),
        "tick_ms_median_scraped": round(statistics.median(scraped_ticks) * 1e3, 3),
        "tick_ms_p95_scraped": round(_percentile(scraped_ticks, 0.95) * 1e3, 3),
        "snapshot_update_us_median": round(statistics.median(updates) * 1e6, 2),
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
