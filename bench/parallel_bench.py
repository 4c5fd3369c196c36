"""Operations in parallel (issue 18): three creates of 6 s each, one after the other against side by side (writes
bench/results/parallel.json).

Against the in-process emulator (every create takes 6 s from `run` to `dtFinish`), three real ansible-playbook
plays per round, in a rotating order:

- one: a single create (`nubes.cloud.redis`, waiting) — the reference;
- sequential: a cache, a storage and an app (`redis`, `s3`, `flask`), each task waiting for its create;
- parallel: the same three with `wait: false`, then one `nubes.cloud.operation_info` task with `wait: true`;
- floor: three `ansible.builtin.ping` tasks (what three task starts cost Ansible itself on this machine now).

Those run as modules (`NUBES_EXECUTION=module`: the row of issue 18); issue 26 adds, in the controller's process (the
default for a local target):

- one in-process, parallel in-process: the one create and the parallel play again (target: <= 1.1x).

The time of a play is the span from its first task's start to its last task's result (bench callback), so the
ansible-playbook start-up, the same for every play, is left out; the whole process's wall time is recorded too.
Ratios are computed per round. The emulator's own operation timestamps give the cloud time of the parallel
play (first `dtSubmit` to last `dtFinish`) and prove that the three creates overlapped.

Run: .venv/bin/python bench/parallel_bench.py  (BENCH_QUICK=1 for fewer rounds)
"""

from __future__ import annotations

import statistics
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import ROOT, PlaybookRun, Playbooks, ensure_repo_on_path, local_play, quick, save, summary, venvs

ensure_repo_on_path()

from tests.emulator import EmulatorServer  # noqa: E402

CREATE_SECONDS = 6.0
TARGET_PARALLEL_OVER_ONE = 1.3
TARGET_PARALLEL_OVER_ONE_INPROCESS = 1.1  # issue 26: both plays in the controller's process
REALM = "k8s-3.ext.nubes.ru"
# NUBES_EXECUTION of each play: issue 18's plays run as modules (what their row was measured on), issue 26's two in
# the controller's process, the default for a local target
EXECUTION = {
    "one": "module",
    "sequential": "module",
    "parallel": "module",
    "floor": "",
    "one in-process": "",
    "parallel in-process": "",
}


def creates(prefix: str, wait: bool) -> list[dict[str, Any]]:
    """A cache, a storage and an app: three independent instances."""
    common = {"resource_realm": REALM, "wait": wait}
    return [
        {"name": "cache", "nubes.cloud.redis": {"resource_name": f"{prefix}-cache", **common}},
        {"name": "files", "nubes.cloud.s3": {"resource_name": f"{prefix}-files", "display_name": prefix, **common}},
        {
            "name": "app",
            "nubes.cloud.flask": {
                "resource_name": f"{prefix}-app",
                "domain": f"{prefix}-app",
                "git_path": "https://git.example.org/app.git",
                **common,
            },
        },
    ]


def plays(prefix: str) -> dict[str, list[dict[str, Any]]]:
    wait_all = {
        "name": "wait",
        "nubes.cloud.operation_info": {"operations": "{{ [cache, files, app] }}", "wait": True},
    }

    def parallel(name: str) -> list[dict[str, Any]]:
        return [*(dict(task, register=task["name"]) for task in creates(name, wait=False)), wait_all]

    return {
        "one": creates(f"{prefix}-one", wait=True)[:1],
        "sequential": creates(f"{prefix}-seq", wait=True),
        "parallel": parallel(f"{prefix}-par"),
        "floor": [{"name": f"ping {index}", "ansible.builtin.ping": {}} for index in range(3)],
        "one in-process": creates(f"{prefix}-onei", wait=True)[:1],
        "parallel in-process": parallel(f"{prefix}-pari"),
    }


def span(run: PlaybookRun) -> float:
    """First task start to last task result (seconds)."""
    return max(t.end for t in run.tasks) - min(t.start for t in run.tasks)


def parse_ts(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()


def cloud_time(emu: EmulatorServer, prefix: str) -> tuple[float, bool]:
    """The parallel play's creates in the emulator: first dtSubmit to last dtFinish, and whether all three ran at
    the same time (every one submitted before the first one finished)."""
    ops = [o for o in emu.operations() if o["operation"] == "create" and o["displayName"].startswith(prefix)]
    if len(ops) != 3 or not all(o["isSuccessful"] is True for o in ops):
        raise RuntimeError(f"expected three successful creates of {prefix}, found {len(ops)}")
    submits = [parse_ts(o["dtSubmit"]) for o in ops]
    finishes = [parse_ts(o["dtFinish"]) for o in ops]
    return max(finishes) - min(submits), max(submits) < min(finishes)


def measure(rounds: int, bin_dir: Path) -> dict[str, Any]:
    figures: dict[str, list[float]] = {}
    overlapped: list[bool] = []

    def add(key: str, value: float) -> None:
        figures.setdefault(key, []).append(value)

    with EmulatorServer(seed=1, op_duration=0.2) as emu:
        emu.configure(durations={"create": CREATE_SECONDS})
        playbooks = Playbooks(emu.endpoint, emu.token, bin_dir=bin_dir)
        order = list(EXECUTION)
        for index in range(rounds):
            prefix = f"bench-par-{uuid.uuid4().hex[:6]}"
            spans: dict[str, float] = {}
            for name in order[index % len(order) :] + order[: index % len(order)]:
                print(f"parallel: round {index + 1}/{rounds}, {name}", flush=True)
                key = name.replace(" in-process", "_inprocess")
                playbooks.extra_env = {"NUBES_EXECUTION": EXECUTION[name]}
                started = time.perf_counter()
                run = playbooks.run([local_play(plays(prefix)[name])])
                add(f"{key}_wall", time.perf_counter() - started)
                spans[name] = span(run)
                add(f"{key}_span", spans[name])
                if name == "floor":
                    add("ping_task", statistics.median(t.seconds for t in run.tasks))
                if name.startswith("parallel"):
                    suffix = key.removeprefix("parallel")  # "" or "_inprocess"
                    starts = [t for t in run.tasks if t.action != "nubes.cloud.operation_info"]
                    add(f"start_task{suffix}", statistics.median(t.seconds for t in starts))
                    add(f"starts_span{suffix}", max(t.end for t in starts) - min(t.start for t in starts))
                    wait = next(t.seconds for t in run.tasks if t.action == "nubes.cloud.operation_info")
                    add(f"wait_task{suffix}", wait)
                    cloud, overlap = cloud_time(emu, f"{prefix}-{'pari' if suffix else 'par'}-")
                    add(f"parallel_cloud{suffix}", cloud)
                    overlapped.append(overlap)
            playbooks.extra_env = {}
            add("parallel_over_one", spans["parallel"] / spans["one"])
            add("sequential_over_one", spans["sequential"] / spans["one"])
            add("sequential_over_parallel", spans["sequential"] / spans["parallel"])
            add("parallel_over_one_inprocess", spans["parallel in-process"] / spans["one in-process"])
    return {
        "venv": str(bin_dir.parent.relative_to(ROOT)),
        "create_seconds": CREATE_SECONDS,
        "rounds": rounds,
        "figures": {key: summary(values, 2) for key, values in figures.items()},
        "overlapped_every_round": all(overlapped),
        "target_parallel_over_one": TARGET_PARALLEL_OVER_ONE,
        "target_parallel_over_one_inprocess": TARGET_PARALLEL_OVER_ONE_INPROCESS,
    }


def main() -> int:
    started = time.perf_counter()
    # Issue 19: the runtime-only venv is the headline (top-level figures), the dev venv beside it under "dev".
    bins = venvs()
    result = measure(rounds=3 if quick() else 5, bin_dir=bins["runtime-only"])
    result["dev"] = measure(rounds=3 if quick() else 5, bin_dir=bins["dev"])
    result["seconds"] = round(time.perf_counter() - started, 1)
    save("parallel", result)
    ratio = result["figures"]["parallel_over_one"]["median"]
    dev = result["dev"]["figures"]["parallel_over_one"]["median"]
    print(f"parallel: parallel / one create = {ratio:.2f}x runtime-only venv, {dev:.2f}x dev venv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
