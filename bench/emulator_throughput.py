"""Throughput of the deck-api emulator: simple GETs over one keep-alive connection.

The emulator runs in its own process (`python -m tests.emulator serve`), pinned to one CPU core where the
OS allows it; the client (httpx, keep-alive) sends a fixed number of requests and prints requests/second and,
on Linux, requests per CPU-second the emulator spent (its one-core capacity, independent of machine load).

    .venv/bin/python bench/emulator_throughput.py [--requests 3000] [--no-pin]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def start_emulator(pin: bool) -> tuple[subprocess.Popen[str], str, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.emulator", "serve", "--op-duration", "0.1"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    endpoint = proc.stdout.readline().strip().split("=", 1)[1]
    token = proc.stdout.readline().strip().split("=", 1)[1]
    if pin and hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(proc.pid, {cpus[-1]})
    return proc, endpoint, token


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), or None where that is not available."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(client: httpx.Client, url: str, count: int, pid: int) -> tuple[float, float | None]:
    """(requests per wall-clock second, requests per CPU-second of the emulator process)."""
    cpu_before = cpu_seconds(pid)
    started = time.perf_counter()
    for _index in range(count):
        response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"GET {url} answered {response.status_code}: {response.text[:200]}")
    wall = time.perf_counter() - started
    cpu_after = cpu_seconds(pid)
    per_cpu = (
        count / (cpu_after - cpu_before) if cpu_before is not None and cpu_after and cpu_after > cpu_before else None
    )
    return count / wall, per_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="requests per measured path")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the emulator to one CPU core")
    args = parser.parse_args()
    proc, endpoint, token = start_emulator(pin=not args.no_pin)
    try:
        with httpx.Client(headers={"Authorization": f"Bearer {token}"}, verify=False, timeout=10) as client:
            created = client.post(endpoint + "/instances", json={"serviceId": 1, "displayName": "bench", "descr": ""})
            uid = created.headers["Location"][2:]
            paths = {"GET /instances/{uid}": f"/instances/{uid}", "GET /services/90": "/services/90"}
            measure(client, endpoint + paths["GET /instances/{uid}"], 200, proc.pid)  # warm-up
            for label, path in paths.items():
                rate, per_cpu = measure(client, endpoint + path, args.requests, proc.pid)
                capacity = f"{per_cpu:8.0f} req per emulator CPU-second" if per_cpu else "(CPU time not available)"
                print(f"{label:24s} {args.requests} requests  {rate:8.0f} req/s  {capacity}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
