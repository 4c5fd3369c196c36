"""Bench-only probe of ansible-playbook's task workers (issue 26; bench/worker_profile.py puts this directory on
PYTHONPATH, nothing else does).

With NUBES_BENCH_WORKER_PROBE=<directory>, every worker process that ansible-playbook forks for a task writes
`worker-<pid>.json` there when the task is done: the task's action, the worker's CPU seconds (user + system of the
whole worker: a forked child's counters start at zero, and a module process it runs is not included), its wall
time from the start of the task, and the modules the worker imported itself (those its parent had not imported
before the fork). With NUBES_BENCH_WORKER_PROFILE=1 the task also runs under cProfile (`worker-<pid>.prof`; its
CPU figures then include the profiler's own cost, so they come from a run without it).

It patches WorkerProcess._run in the forked child only (os.register_at_fork), so ansible-playbook's main process
and every module process run unchanged.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

OUT = os.environ.get("NUBES_BENCH_WORKER_PROBE", "")
PROFILE = os.environ.get("NUBES_BENCH_WORKER_PROFILE", "") == "1"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _write(worker: object, forked: tuple, inherited: set, profile: object) -> None:
    stem = os.path.join(OUT, f"worker-{os.getpid()}")
    if profile is not None:
        profile.dump_stats(stem + ".prof")  # type: ignore[attr-defined]
    task = getattr(worker, "_task", None)
    record = {
        "action": str(getattr(task, "action", "")),
        "cpu": _cpu(),
        "forked_at": forked[0],
        "wall": time.perf_counter() - forked[1],
        "imported": sorted(set(sys.modules) - inherited),
        "profiled": profile is not None,
    }
    with open(stem + ".json", "w", encoding="utf-8") as handle:
        json.dump(record, handle)


def _patch_worker() -> None:
    """In a child of ansible-playbook: record the task's worker (see the module's docstring)."""
    if not sys.argv or "ansible-playbook" not in os.path.basename(sys.argv[0]):
        return
    worker_module = sys.modules.get("ansible.executor.process.worker")
    if worker_module is None:
        return
    worker_class = worker_module.WorkerProcess
    original = worker_class._run
    forked, inherited = (time.time(), time.perf_counter()), set(sys.modules)

    def probed(self: object) -> None:
        profile = None
        if PROFILE:
            import cProfile

            profile = cProfile.Profile()
            profile.enable()
        try:
            original(self)
        finally:
            if profile is not None:
                profile.disable()
            _write(self, forked, inherited, profile)

    worker_class._run = probed


if OUT:
    os.register_at_fork(after_in_child=_patch_worker)
