"""Benchmark: a full render of every service plus the offline drift check (target < 3 s).

Run: ``.venv/bin/python bench/generator_bench.py [--repeat N]``. Reads the committed specs, renders every
module/doc in memory, and runs ``check`` (schema validation + render + compare with the files on disk).
Prints the best and median wall time of each step; exits 1 when the best full round is over the target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from generator import pipeline  # noqa: E402
from generator.render import README_PATH, render_all  # noqa: E402
from generator.workspace import Workspace  # noqa: E402

TARGET_SECONDS = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    workspace = Workspace(ROOT)
    loads, renders, checks, rounds = [], [], [], []
    files = 0
    for _round in range(args.repeat):
        start = time.perf_counter()
        specs = pipeline.load_specs(workspace)
        loaded = time.perf_counter()
        files = len(render_all(specs, workspace.read(README_PATH), **pipeline.render_inputs(workspace)))
        rendered = time.perf_counter()
        report = pipeline.check(workspace)
        checked = time.perf_counter()
        if not report.clean:
            print(report.summary(), file=sys.stderr)
            return 1
        loads.append(loaded - start)
        renders.append(rendered - loaded)
        checks.append(checked - rendered)
        rounds.append(checked - start)
    services = len(pipeline.load_specs(workspace))
    print(f"generator bench: {services} services, {files} generated files, {args.repeat} rounds")
    for label, values in (("load+validate specs", loads), ("render", renders), ("check", checks), ("round", rounds)):
        print(f"  {label:20s} best {min(values):.3f} s  median {statistics.median(values):.3f} s")
    best = min(rounds)
    verdict = "OK" if best < TARGET_SECONDS else "OVER TARGET"
    print(f"  full render + check: {best:.3f} s (target < {TARGET_SECONDS:.0f} s) {verdict}")
    return 0 if best < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
