"""Scale benchmark: one playbook managing 50 dummy instances with forks 10 (writes bench/results/scale.json).

Fifty inventory hosts (connection local) each own one instance; one shared state file (the file backend's
lock is part of what is measured). Figures: wall time of the first converge (every instance created, 2 s
operations in the emulator) and of the no-op re-run, API calls of each, and, as the floor, the same
50 hosts x forks 10 running `ansible.builtin.ping`. The converge and the first no-op run as modules
(`NUBES_EXECUTION=module`: the rows of issue 19); a second no-op runs in the controller's process, the default
for a local target (issue 26: <= 0.6x the ping floor).

Run: .venv/bin/python bench/scale_bench.py [--instances 50] [--forks 10]  (BENCH_QUICK=1: one round)
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (
    ROOT,
    Playbooks,
    api_calls,
    count_by_method,
    ensure_repo_on_path,
    local_play,
    quick,
    save,
    summary,
    venvs,
)

ensure_repo_on_path()

from tests.emulator import EmulatorServer  # noqa: E402

OPERATION_SECONDS = 2.0
# (phase, every instance changed): the converge and the first no-op run as modules (`NUBES_EXECUTION=module`, the
# rows of issue 19), the second no-op in the controller's process, the default for a local target (issue 26)
PHASES = (("converge", True), ("no-op", False), ("no-op in-process", False))
EXECUTION = {"converge": "module", "no-op": "module", "no-op in-process": ""}
KEYS = {"converge": "converge", "no-op": "no-op", "no-op in-process": "no-op_inprocess"}  # of the figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=50)
    parser.add_argument("--forks", type=int, default=10)
    args = parser.parse_args()
    rounds = 1 if quick() else 3
    started = time.perf_counter()
    # Issue 19: the runtime-only venv is the headline (top-level figures), the dev venv beside it under "dev".
    bins = venvs()
    result = measure(args.instances, args.forks, rounds, bins["runtime-only"])
    result["dev"] = measure(args.instances, args.forks, rounds, bins["dev"])
    result["seconds"] = round(time.perf_counter() - started, 1)
    save("scale", result)
    return 0


def measure(instances: int, forks: int, rounds: int, bin_dir: Path) -> dict[str, Any]:
    """First converge and no-op re-run of `instances` hosts, and the ping floor, in the venv of `bin_dir`."""
    figures: dict[str, list[float]] = {}
    methods: dict[str, dict[str, list[float]]] = {phase: {} for phase, _changed in PHASES}

    def add(key: str, value: float) -> None:
        figures.setdefault(key, []).append(value)

    with EmulatorServer(seed=1, op_duration=OPERATION_SECONDS) as emu:
        playbooks = Playbooks(emu.endpoint, emu.token, bin_dir=bin_dir)
        inventory = playbooks.workdir / "scale.ini"
        inventory.write_text(
            "[bench]\n" + "".join(f"i{n:03d} ansible_connection=local\n" for n in range(instances)),
            encoding="utf-8",
        )
        for index in range(rounds):
            print(f"scale: round {index + 1}/{rounds}", flush=True)
            prefix = f"bench-scale-{uuid.uuid4().hex[:6]}"
            task = {
                "name": "instance",
                "nubes.cloud.dummy": {"resource_name": prefix + "-{{ inventory_hostname }}", "resource_realm": "dummy"},
            }
            play = [local_play([task], hosts="bench")]
            ping = playbooks.run(
                [local_play([{"name": "ping", "ansible.builtin.ping": {}}], hosts="bench")],
                inventory=str(inventory),
                forks=forks,
            )
            add("ping_wall", ping.wall)
            for phase, expect_changed in PHASES:
                playbooks.extra_env = {"NUBES_EXECUTION": EXECUTION[phase]}
                since = emu.last_seq
                run = playbooks.run(play, inventory=str(inventory), forks=forks)
                calls = api_calls(emu.requests(since=since))
                changed = sum(1 for t in run.tasks if t.changed)
                if len(run.tasks) != instances or changed != (instances if expect_changed else 0):
                    raise RuntimeError(f"scale {phase}: {len(run.tasks)} results, {changed} changed")
                key = KEYS[phase]
                add(f"{key}_wall", run.wall)
                add(f"{key}_calls", float(len(calls)))
                add(f"{key}_calls_per_instance", len(calls) / instances)
                add(f"{key}_emulator_busy_seconds", sum(float(e.get("ms") or 0) for e in calls) / 1000)
                add(f"{key}_requests_per_second", len(calls) / run.wall)
                for method, count in count_by_method(calls).items():
                    methods[phase].setdefault(method, []).append(float(count))
            playbooks.extra_env = {}
            add("converge_vs_ping", figures["converge_wall"][-1] / ping.wall)
            add("noop_vs_ping", figures["no-op_wall"][-1] / ping.wall)
            add("noop_inprocess_vs_ping", figures["no-op_inprocess_wall"][-1] / ping.wall)
    return {
        "venv": str(bin_dir.parent.relative_to(ROOT)),
        "instances": instances,
        "forks": forks,
        "operation_seconds": OPERATION_SECONDS,
        "figures": {key: summary(values, 2) for key, values in figures.items()},
        "calls_by_method": {
            phase: {method: summary(values, 1) for method, values in sorted(by_method.items())}
            for phase, by_method in methods.items()
        },
    }


if __name__ == "__main__":
    sys.exit(main())
