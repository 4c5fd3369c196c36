"""Benchmark orchestrator: runs the areas, keeps each area's figures in bench/results/<area>.json and rewrites
docs/benchmarks.md (+ charts) from every result file present.

    .venv/bin/python bench/run.py [--area cloud,inprocess,parallel,scale,generator,component,emulator,inventory]
                                  [--report-only]
    BENCH_QUICK=1 ...    fewer repetitions

Areas: cloud (bench/cloud_bench.py), inprocess (bench/inprocess_bench.py: both execution paths of issue 26 side by
side), parallel (bench/parallel_bench.py: three creates one after the other against
side by side), scale (bench/scale_bench.py), generator (bench/generator_bench.py, owned by the generator), component
(bench/component_compare.py; needs the local control plane and starts it), emulator (bench/emulator_throughput.py,
owned by the emulator), inventory (bench/inventory_bench.py: the inventory plugin over 1,000 instances).

A run of some areas only updates their sections and target rows of docs/benchmarks.md in place (report.py
--areas), so the figures of the other areas stay as published; all areas (or --report-only) rewrite the page from
every bench/results/*.json.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import regression
from benchlib import BIN, ROOT, quick, save, summary

BENCH = ROOT / "bench"
AREAS = ("cloud", "inprocess", "parallel", "scale", "generator", "component", "emulator", "inventory")
GENERATOR_LINE = re.compile(r"^\s+(?P<label>.+?)\s+best (?P<best>[0-9.]+) s\s+median (?P<median>[0-9.]+) s$")
EMULATOR_LINE = re.compile(
    r"^(?P<label>GET \S+)\s+(?P<n>\d+) requests\s+(?P<rate>[0-9.]+) req/s\s+(?P<cpu>[0-9.]+) req per"
)
GENERATOR_TARGET = 3.0


def script(name: str, *args: str, verdict_codes: tuple[int, ...] = (0,)) -> str:
    """Run a bench script with the project venv; returns stdout (fails loudly). `verdict_codes`: exit codes that
    only state a verdict (generator_bench.py exits 1 when a round is over its target) and still carry figures."""
    proc = subprocess.run([str(BIN / "python"), str(BENCH / name), *args], capture_output=True, text=True, check=False)
    if proc.returncode not in verdict_codes:
        raise RuntimeError(
            f"bench/{name} {' '.join(args)} failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        )
    return proc.stdout


def generator_area() -> None:
    """Warm rounds from generator_bench.py --repeat N, and cold runs (a fresh interpreter each, imports included)."""
    rounds = 3 if quick() else 5
    warm: dict[str, dict[str, float]] = {}
    out = script("generator_bench.py", "--repeat", str(rounds), verdict_codes=(0, 1))
    for line in out.splitlines():
        match = GENERATOR_LINE.match(line)
        if match:
            warm[match["label"].strip()] = {"best": float(match["best"]), "median": float(match["median"])}
    header = out.splitlines()[0] if out else ""
    cold_process, cold_round = [], []
    for _run in range(rounds):
        start = time.perf_counter()
        cold = script("generator_bench.py", "--repeat", "1", verdict_codes=(0, 1))
        cold_process.append(time.perf_counter() - start)
        for line in cold.splitlines():
            match = GENERATOR_LINE.match(line)
            if match and match["label"].strip() == "round":
                cold_round.append(float(match["best"]))
    save(
        "generator",
        {
            "description": header,
            "warm_rounds": rounds,
            "warm": warm,
            "cold_round_seconds": summary(cold_round),
            "cold_process_seconds": summary(cold_process),
            "target_seconds": GENERATOR_TARGET,
        },
    )


def emulator_area() -> None:
    rounds = 2 if quick() else 3
    requests = "1000" if quick() else "3000"
    rates: dict[str, dict[str, list[float]]] = {}
    for _run in range(rounds):
        for line in script("emulator_throughput.py", "--requests", requests).splitlines():
            match = EMULATOR_LINE.match(line.strip())
            if match:
                bucket = rates.setdefault(match["label"], {"wall": [], "cpu": []})
                bucket["wall"].append(float(match["rate"]))
                bucket["cpu"].append(float(match["cpu"]))
    save(
        "emulator",
        {
            "requests_per_path": int(requests),
            "paths": {
                label: {"req_per_s": summary(v["wall"], 0), "req_per_cpu_s": summary(v["cpu"], 0)}
                for label, v in rates.items()
            },
        },
    )


def run_area(area: str) -> None:
    started = time.perf_counter()
    print(f"bench: === {area} ===", flush=True)
    if area == "cloud":
        subprocess.run([str(BIN / "python"), str(BENCH / "cloud_bench.py")], check=True)
    elif area == "inprocess":
        subprocess.run([str(BIN / "python"), str(BENCH / "inprocess_bench.py")], check=True)
    elif area == "scale":
        subprocess.run([str(BIN / "python"), str(BENCH / "scale_bench.py")], check=True)
    elif area == "inventory":
        subprocess.run([str(BIN / "python"), str(BENCH / "inventory_bench.py")], check=True)
    elif area == "parallel":
        subprocess.run([str(BIN / "python"), str(BENCH / "parallel_bench.py")], check=True)
    elif area == "component":
        subprocess.run([str(BIN / "python"), str(BENCH / "component_compare.py")], check=True)
    elif area == "generator":
        generator_area()
    elif area == "emulator":
        emulator_area()
    failures = regression.check(area)  # an area with checks: > 20 % worse than bench/baselines/<area>.json fails
    if failures:
        raise RuntimeError("regressed against its baseline: " + "; ".join(failures))
    print(f"bench: {area} took {time.perf_counter() - started:.0f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", default=",".join(AREAS), help="comma-separated areas (default: all)")
    parser.add_argument("--report-only", action="store_true", help="only rewrite docs/benchmarks.md from the results")
    args = parser.parse_args()
    areas = [a for a in args.area.split(",") if a]
    unknown = [a for a in areas if a not in AREAS]
    if unknown:
        parser.error(f"unknown area(s) {', '.join(unknown)}; choose from {', '.join(AREAS)}")
    failed: list[str] = []
    if not args.report_only:
        for area in areas:
            try:
                run_area(area)
            except (RuntimeError, subprocess.CalledProcessError) as exc:
                print(f"bench: {area} FAILED: {exc}", file=sys.stderr, flush=True)
                failed.append(area)
    subprocess.run(["bash", str(BENCH / "setup.sh")], check=True)
    partial = [] if args.report_only or set(areas) == set(AREAS) else [a for a in areas if a not in failed]
    report = [str(ROOT / ".cache/bench-venv/bin/python"), str(BENCH / "report.py")]
    if partial:
        report += ["--areas", ",".join(partial)]
    if partial or args.report_only or set(areas) == set(AREAS):
        subprocess.run(report, check=True)
    if failed:
        print(f"bench: FAILED areas: {', '.join(failed)} (their previous figures, if any, stay in the report)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
