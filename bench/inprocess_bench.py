"""Issue 26: both execution paths side by side (writes bench/results/inprocess.json).

- cloud: whole `ansible-playbook` runs in turn, the order rotated each round: the play with no task (the baseline),
  10 `ansible.builtin.ping` tasks, 10 no-op `nubes.cloud.dummy` tasks in the controller's process (the default for a
  local target), the same 10 as modules (`NUBES_EXECUTION=module`). Wall and CPU seconds (user + system of
  ansible-playbook and everything it ran); the tasks' cost is each run minus the baseline of its round, and the
  ratios no-op / ping are taken per round (the target: <= 0.4x, wall and CPU).
- component: whole playbooks of one `debug` task and one no-op `nubes.cloud.component` task (300 objects, applied
  once before) on each path; the component's cost above the debug playbook per round (the target: <= +0.3 s).
  Runs against the running local control plane of the tests (tests/cluster/up starts it when it is down, and it is
  left running), or your own cluster with NUBES_TEST_EXTERNAL_CLUSTER=1 KUBECONFIG=<path>.
- profile: where an in-process task's time goes, in the worker ansible-core forks for it (bench/worker_profile.py):
  its CPU and wall seconds, the modules it imports itself, and a cProfile of it, for `debug` tasks (any task's
  floor), no-op `nubes.cloud.dummy` tasks and no-op component tasks; and the API calls of a component no-op.

Run: .venv/bin/python bench/inprocess_bench.py [--part cloud,component,profile]  (BENCH_QUICK=1 for fewer rounds)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import RESULTS, ROOT, Playbooks, local_play, quick, save, summary

TASKS = 10
PATHS = {"in-process": "", "module": "module"}  # NUBES_EXECUTION of each path ("" is the default: auto)
PARTS = ("cloud", "component", "profile")


def rounds() -> int:
    return 2 if quick() else 5


def per_round(raw: dict[str, dict[str, list[float]]], task: str, base: str, key: str) -> list[float]:
    return [value - raw[base][key][index] for index, value in enumerate(raw[task][key])]


def measure_cloud() -> dict[str, Any]:
    from tests.emulator import EmulatorServer

    with EmulatorServer(seed=1, op_duration=0.2) as emu:
        playbooks = Playbooks(endpoint=emu.endpoint, token=emu.token)
        name = f"bench-ip-{uuid.uuid4().hex[:8]}"
        noop = {"nubes.cloud.dummy": {"resource_name": name, "resource_realm": "dummy"}}
        playbooks.run([local_play([{"name": "create", **noop}])])  # the create, not measured
        plays = {
            "baseline": [local_play([])],
            "ping": [local_play([{"name": f"ping {i}", "ansible.builtin.ping": {}} for i in range(TASKS)])],
            **{f"no-op {path}": [local_play([{"name": f"no-op {i}", **noop} for i in range(TASKS)])] for path in PATHS},
        }
        raw: dict[str, dict[str, list[float]]] = {}
        order = list(plays)
        for index in range(rounds()):
            print(f"inprocess: cloud playbooks, round {index + 1}/{rounds()}", flush=True)
            for label in order:
                playbooks.extra_env = {"NUBES_EXECUTION": PATHS.get(label.removeprefix("no-op "), "")}
                run = playbooks.run(plays[label])
                if label.startswith("no-op") and any(task.changed for task in run.tasks):
                    raise RuntimeError(f"{label}: a no-op task reported changed")
                raw.setdefault(label, {}).setdefault("wall", []).append(run.wall)
                raw[label].setdefault("cpu", []).append(run.cpu)
            order = order[1:] + order[:1]
    figures: dict[str, Any] = {}
    for key in ("wall", "cpu"):
        ping = per_round(raw, "ping", "baseline", key)
        for path in PATHS:
            tasks = per_round(raw, f"no-op {path}", "baseline", key)
            figures[f"no-op {path} / ping ({key})"] = summary([t / p for t, p in zip(tasks, ping)], 2)
            figures[f"no-op {path} tasks ({key}, s)"] = summary(tasks, 3)
        figures[f"ping tasks ({key}, s)"] = summary(ping, 3)
    return {
        "tasks": TASKS,
        "playbooks": {label: {k: summary(v, 3) for k, v in keys.items()} for label, keys in raw.items()},
        "figures": figures,
    }


def test_cluster_kubeconfig() -> str:
    """The tests' local control plane (started when down, left running), or NUBES_TEST_EXTERNAL_CLUSTER's."""
    if os.environ.get("NUBES_TEST_EXTERNAL_CLUSTER") == "1" and os.environ.get("KUBECONFIG"):
        return os.environ["KUBECONFIG"]
    out = subprocess.run([str(ROOT / "tests/cluster/up")], capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1].partition("=")[2]


def measure_component(workdir: Path) -> dict[str, Any]:
    from component_compare import Cluster, overhead_task

    config = test_cluster_kubeconfig()
    cluster = Cluster(config, "kubectl", "kubectl")
    _manifest, namespace, task = overhead_task(cluster, workdir, "bench-inprocess")
    playbooks = Playbooks(workdir=workdir)
    plays = {
        "debug": [local_play([{"name": "debug", "ansible.builtin.debug": {"msg": "hello"}}])],
        **{f"component no-op {path}": [local_play([task])] for path in PATHS},
    }
    playbooks.run(plays["component no-op in-process"])  # the first apply, not measured
    raw: dict[str, dict[str, list[float]]] = {}
    order = list(plays)
    try:
        for index in range(rounds()):
            print(f"inprocess: component playbooks, round {index + 1}/{rounds()}", flush=True)
            for label in order:
                playbooks.extra_env = {"NUBES_EXECUTION": PATHS.get(label.removeprefix("component no-op "), "")}
                run = playbooks.run(plays[label])
                if label.startswith("component") and run.tasks[0].changed:
                    raise RuntimeError(f"{label}: the no-op component task reported changed")
                raw.setdefault(label, {}).setdefault("wall", []).append(run.wall)
                raw[label].setdefault("cpu", []).append(run.cpu)
            order = order[1:] + order[:1]
    finally:
        cluster.drop(namespace)
    figures = {
        f"component no-op {path} over debug ({key}, s)": summary(
            per_round(raw, f"component no-op {path}", "debug", key), 3
        )
        for path in PATHS
        for key in ("wall", "cpu")
    }
    return {
        "objects": 300,
        "playbooks": {label: {k: summary(v, 3) for k, v in keys.items()} for label, keys in raw.items()},
        "figures": figures,
    }


def measure_profile(workdir: Path) -> dict[str, Any]:
    """Where an in-process task's time goes, in its own worker (bench/worker_profile.py): 10 `debug` tasks (what any
    task's worker costs) and 10 no-op `nubes.cloud.dummy` tasks in one play; one `debug` and three no-op component
    tasks (300 objects) in another."""
    import worker_profile
    from component_compare import Cluster, overhead_task

    from tests.emulator import EmulatorServer

    debug = [{"name": f"debug {i}", "ansible.builtin.debug": {"msg": "hello"}} for i in range(TASKS)]
    with EmulatorServer(seed=1, op_duration=0.2) as emu:
        playbooks = Playbooks(endpoint=emu.endpoint, token=emu.token)
        noop = {"nubes.cloud.dummy": {"resource_name": f"bench-ip-{uuid.uuid4().hex[:8]}", "resource_realm": "dummy"}}
        playbooks.run([local_play([{"name": "create", **noop}])])  # the create, not measured
        tasks = [*debug, *({"name": f"no-op {i}", **noop} for i in range(TASKS))]
        cloud = worker_profile.measure(playbooks, [local_play(tasks)], ("ansible.builtin.debug", "nubes.cloud.dummy"))
    cluster = Cluster(test_cluster_kubeconfig(), "kubectl", "kubectl")
    _manifest, namespace, task = overhead_task(cluster, workdir, "bench-inprocess-profile")
    playbooks = Playbooks(workdir=workdir)
    try:
        first = playbooks.run([local_play([task])])  # the first apply, not measured
        if not first.tasks[0].changed:
            raise RuntimeError("the component's first apply changed nothing")
        noop_run = playbooks.run([local_play([task])])
        play = local_play([debug[0], *({**task, "name": f"component no-op {i}"} for i in range(3))])
        component = worker_profile.measure(playbooks, [play], ("ansible.builtin.debug", "nubes.cloud.component"))
    finally:
        cluster.drop(namespace)
    component["api_calls_of_a_no_op"] = noop_run.tasks[0].api_calls
    return {"cloud": cloud, "component": component}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default=",".join(PARTS), help="comma-separated: " + ", ".join(PARTS))
    args = parser.parse_args()
    parts = [p for p in args.part.split(",") if p]
    sys.path.insert(0, str(ROOT))
    earlier = RESULTS / "inprocess.json"  # a part not re-run keeps its figures
    kept = json.loads(earlier.read_text(encoding="utf-8")) if earlier.is_file() else {}
    data: dict[str, Any] = {part: kept[part] for part in PARTS if part in kept and part not in parts}
    if "cloud" in parts:
        data["cloud"] = measure_cloud()
    if "component" in parts:
        data["component"] = measure_component(Playbooks().workdir)
    if "profile" in parts:
        data["profile"] = measure_profile(Playbooks().workdir)
    save("inprocess", data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
