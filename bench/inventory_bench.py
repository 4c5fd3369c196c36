"""Inventory benchmark: `ansible-inventory --list` over 1,000 Nubes instances (writes bench/results/inventory.json).

The emulator holds 1,000 running instances of four services (postgres with an address output, redis, flask,
dummy; one s3 that the postgres instances reference). Each case runs the real `ansible-inventory -i
<file>.nubes.yml --list` and records its wall time and the deck-api calls the emulator logged:

- start: `ansible-inventory` on an empty inventory (what every run pays before any plugin works);
- details: the default (paged list + one `GET /instances/{uid}` per instance, 8 at a time);
- list only: `instance_details: false` (the paged list alone);
- cached: the second run with the standard cache on (no API call);
- with 20 ms of latency on every instance read (a remote API instead of loopback), `concurrency` 8 against 1.

Run: .venv/bin/python bench/inventory_bench.py [--instances 1000]  (BENCH_QUICK=1: fewer rounds)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import BIN, ROOT, api_calls, ensure_repo_on_path, quick, save, summary

ensure_repo_on_path()

from tests.emulator import EmulatorServer  # noqa: E402
from tests.integration.inventory.runner import plain  # noqa: E402
from tests.integration.inventory.seed import Seed, Seeder  # noqa: E402

# Targets (justified in docs/inventory.md, "Performance"): a default run lists 1,000 instances within 10 s; its
# 1,010 API reads add at most half of what Ansible and the plugin spend on the same hosts without any API call (the
# cached run); with 20 ms per read, reading 8 at a time is at least 2.5x faster than one at a time.
TARGET_DETAILS_SECONDS = 10.0
TARGET_DETAILS_OVER_CACHED = 1.5
TARGET_CONCURRENCY_SPEEDUP = 2.5
LATENCY_MS = 20
REALM = "k8s-3.ext.nubes.ru"


def seed(emu: EmulatorServer, instances: int) -> None:
    """instances - 1 of postgres, redis, flask and dummy in turn, plus the s3 the postgres ones use."""
    with Seeder(emu.endpoint, emu.token) as seeder:
        s3 = Seed(12, "bench-s3", {"resourceRealm": "s3.nubes.ru", "displayName": "bench-s3"})
        seeder.seed([s3])
        kinds = [
            (90, {"resourceRealm": REALM, "s3Uid": s3.uid}),
            (91, {"resourceRealm": REALM}),
            (89, {"resourceRealm": REALM, "gitPath": "https://git.example.org/app.git"}),
            (1, {"resourceRealm": "dummy"}),
        ]
        seeds = []
        for n in range(instances - 1):
            service_id, params = kinds[n % len(kinds)]
            seeds.append(Seed(service_id, f"bench-{n:04d}", params))
        seeder.seed(seeds)


def child_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the emulator is a thread, not a child)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Runner:
    def __init__(self, emu: EmulatorServer, workdir: Path) -> None:
        self.emu = emu
        self.workdir = workdir
        self.env = dict(os.environ)
        self.env.update(
            ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".collections"),
            ANSIBLE_CONFIG=str(ROOT / "ansible.cfg"),
            ANSIBLE_INVENTORY_UNPARSED_FAILED="true",
            NUBES_API_ENDPOINT=emu.endpoint,
            NUBES_API_TOKEN=emu.token,
            PATH=f"{BIN}{os.pathsep}{self.env.get('PATH', '')}",
        )

    def run(self, source: Path) -> tuple[float, float, int, str]:
        """Wall time, CPU time (user + system, which unlike wall time does not grow with the machine's load),
        deck-api calls and stdout of one `ansible-inventory --list`."""
        since = self.emu.last_seq
        cpu_before = child_cpu()
        start = time.perf_counter()
        proc = subprocess.run(
            [str(BIN / "ansible-inventory"), "-i", str(source), "--list"],
            env=self.env,
            cwd=self.workdir,
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )
        wall = time.perf_counter() - start
        cpu = child_cpu() - cpu_before
        if proc.returncode != 0:
            raise RuntimeError(f"ansible-inventory -i {source} failed:\n{proc.stderr[-4000:]}")
        return wall, cpu, len(api_calls(self.emu.requests(since=since))), proc.stdout

    def config(self, name: str, **options: Any) -> Path:
        path = self.workdir / f"{name}.nubes.yml"
        path.write_text(yaml.safe_dump({"plugin": "nubes.cloud.nubes", **options}), encoding="utf-8")
        return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1000)
    args = parser.parse_args()
    rounds = 3 if quick() else 5
    started = time.perf_counter()
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    calls: dict[str, int] = {}
    with EmulatorServer(seed=3, op_duration=0.05) as emu, tempfile.TemporaryDirectory(prefix="nubes-inv-") as tmp:
        workdir = Path(tmp)
        seed_started = time.perf_counter()
        seed(emu, args.instances)
        seed_seconds = time.perf_counter() - seed_started
        runner = Runner(emu, workdir)
        sources = {
            "details": runner.config("details"),
            "list only": runner.config("list", instance_details=False),
        }
        cache = {"cache": True, "cache_plugin": "ansible.builtin.jsonfile", "cache_timeout": 3600}
        cached = runner.config("cached", cache_connection=str(workdir / "cache"), **cache)
        _wall, _cpu, _calls, listed = runner.run(sources["details"])
        hosts = len(plain(json.loads(listed))["_meta"]["hostvars"])
        if hosts != args.instances:
            raise RuntimeError(f"inventory lists {hosts} hosts, expected {args.instances}")
        empty = workdir / "empty.yml"
        empty.write_text("all: {}\n", encoding="utf-8")
        sources = {"start (empty inventory)": empty, **sources}
        runner.run(cached)  # fills the cache
        sources["cached"] = cached
        for index in range(rounds):
            print(f"inventory: round {index + 1}/{rounds}", flush=True)
            for label, source in sources.items():
                wall, cpu, count, _out = runner.run(source)
                walls.setdefault(label, []).append(wall)
                cpus.setdefault(label, []).append(cpu)
                calls[label] = count
        emu.set_faults([{"kind": "latency", "ms": LATENCY_MS, "path": "/instances/*", "method": "GET"}])
        latency_rounds = 1 if quick() else 2
        for concurrency in (8, 1):
            label = f"details, {LATENCY_MS} ms latency, concurrency {concurrency}"
            source = runner.config(f"latency{concurrency}", concurrency=concurrency)
            for _index in range(latency_rounds):
                wall, cpu, count, _out = runner.run(source)
                walls.setdefault(label, []).append(wall)
                cpus.setdefault(label, []).append(cpu)
                calls[label] = count
        emu.clear_faults()
    ratios = [d / c for d, c in zip(walls["details"], walls["cached"])]
    parallel, sequential = (walls[f"details, {LATENCY_MS} ms latency, concurrency {n}"] for n in (8, 1))
    speedups = [one / eight for one, eight in zip(sequential, parallel)]
    details = summary(walls["details"], 2)
    result: dict[str, Any] = {
        "instances": args.instances,
        "latency_ms": LATENCY_MS,
        "seed_seconds": round(seed_seconds, 1),
        "cases": {
            label: {"wall": summary(values, 2), "cpu": summary(cpus[label], 2), "api_calls": calls[label]}
            for label, values in walls.items()
        },
        "details_over_cached": summary(ratios, 2),
        "concurrency_speedup": summary(speedups, 2),
        "targets": {
            "details_seconds": TARGET_DETAILS_SECONDS,
            "details_over_cached": TARGET_DETAILS_OVER_CACHED,
            "concurrency_speedup": TARGET_CONCURRENCY_SPEEDUP,
        },
        "targets_met": {
            "details_seconds": details["median"] is not None and details["median"] <= TARGET_DETAILS_SECONDS,
            "details_over_cached": statistics.median(ratios) <= TARGET_DETAILS_OVER_CACHED,
            "concurrency_speedup": statistics.median(speedups) >= TARGET_CONCURRENCY_SPEEDUP,
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    save("inventory", result)
    for label, case in result["cases"].items():
        wall, cpu = case["wall"]["median"], case["cpu"]["median"]
        print(f"  {label:45s} {wall:7.2f} s wall {cpu:7.2f} s CPU {case['api_calls']:5d} API calls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
