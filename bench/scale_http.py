"""Serving the filled league with gunicorn and timing its pages with a small, bounded load generator.

Each client is a thread with its own keep-alive http.client connection; a measurement stops at its
request count or its time limit, whichever comes first, so a slow page cannot hold the run hostage.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Timing:
    path: str
    status: int
    count: int
    p50: float  # milliseconds
    p95: float
    p99: float
    rate: float  # requests per second
    errors: int
    cpu_ms: float | None = None  # server CPU (web workers and database backends) per request

    def line(self, name: str) -> str:
        if not self.count:
            return f"{name:<22} {self.path:<34} HTTP {self.status}: not measured"
        return (
            f"{name:<22} {self.path:<34} n={self.count:<5} p50 {self.p50:7.1f} ms  p95 {self.p95:7.1f} ms  "
            f"p99 {self.p99:7.1f} ms  {self.rate:6.1f} req/s"
            + ("" if self.cpu_ms is None else f"  server CPU {self.cpu_ms:5.1f} ms/req")
            + (f"  ({self.errors} errors)" if self.errors else "")
        )


def fetch(connection: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    connection.request("GET", path, headers={"Host": HOST})
    response = connection.getresponse()
    return response.status, response.read()


def status_of(port: int, path: str) -> int:
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    try:
        return fetch(connection, path)[0]
    finally:
        connection.close()


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User plus system CPU seconds each process has used so far (processes that are gone are left out)."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime and stime, fields 14 and 15 of stat(5)
    return used


def children(parent: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


class CpuMeter:
    """Server-side CPU per request, which a machine shared with other work skews far less than wall time:
    the gunicorn workers' and their database backends' (found by `backends()`) CPU seconds."""

    def __init__(self, server: subprocess.Popen, backends: Callable[[], list[int]]) -> None:
        self.server = server
        self.backends = backends

    def snapshot(self) -> dict[int, float]:
        return cpu_seconds(children(self.server.pid) + self.backends())

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def measure(
    port: int,
    path: str,
    requests: int,
    seconds: float,
    clients: int = 1,
    warmup: int = 3,
    meter: CpuMeter | None = None,
) -> Timing:
    """Latency percentiles and throughput of GET `path` from `clients` threads, after a few warm-up requests."""
    status = 0
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    for _ in range(warmup):
        status, _ = fetch(connection, path)
    connection.close()
    if status != 200:
        return Timing(path, status, 0, 0.0, 0.0, 0.0, 0.0, 0)
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    budget = [requests]

    def client() -> None:
        own = http.client.HTTPConnection(HOST, port, timeout=60)
        mine: list[float] = []
        while time.monotonic() < deadline:
            with lock:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
            began = time.perf_counter()
            try:
                code, _ = fetch(own, path)
            except (OSError, http.client.HTTPException):
                code = 0
                own.close()
                own = http.client.HTTPConnection(HOST, port, timeout=60)
            mine.append(time.perf_counter() - began)
            if code != 200:
                with lock:
                    errors[0] += 1
        own.close()
        with lock:
            latencies.extend(mine)

    before = meter.snapshot() if meter else {}
    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    cpu_ms = 1000.0 * CpuMeter.spent(before, meter.snapshot()) / len(latencies) if meter and latencies else None
    ms = np.array(latencies) * 1000.0
    p50, p95, p99 = (float(np.percentile(ms, q)) for q in (50, 95, 99)) if len(ms) else (0.0, 0.0, 0.0)
    rate = len(ms) / elapsed if elapsed else 0.0
    return Timing(path, status, len(ms), p50, p95, p99, rate, errors[0], cpu_ms)
