"""Issue 26: where an in-process task's time goes, measured in the worker process ansible-core forks for the task.

`probe_run` runs plays through `Playbooks` with bench/worker_probe on PYTHONPATH (its sitecustomize patches the
forked workers only; see its docstring), once plain (the workers' CPU and wall seconds and what each imported
itself) and once under cProfile (where the CPU goes). `figures` sums them up per action: median CPU, wall and number
of modules a worker imported, the names a worker of that action imported, the profile's self time by package and
its functions with the most cumulative time, per task.
"""

from __future__ import annotations

import json
import pstats
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlib import ROOT, Playbooks, summary

PROBE = ROOT / "bench" / "worker_probe"
TOP_FUNCTIONS = 15
PACKAGES = (  # (what the path holds, the package it is counted under), first match wins
    ("/ansible_collections/nubes/cloud/", "nubes.cloud"),
    ("/site-packages/ansible/", "ansible-core"),
    ("/site-packages/httpx/", "httpx and its deps"),
    ("/site-packages/httpcore/", "httpx and its deps"),
    ("/site-packages/h11/", "httpx and its deps"),
    ("/site-packages/urllib3/", "urllib3"),
    ("/site-packages/yaml/", "PyYAML"),
    ("/site-packages/jinja2/", "Jinja2"),
)


def package_of(filename: str) -> str:
    """The package a profiled function's file belongs to (built-in functions: `~`)."""
    if filename == "~":
        return "built-in functions (C)"
    return next((package for marker, package in PACKAGES if marker in filename), "stdlib and other")


def probe_run(playbooks: Playbooks, plays: list[dict[str, Any]], profile: bool) -> tuple[list[dict[str, Any]], Path]:
    """Run the plays with the worker probe; (one record per task worker, the directory with their files)."""
    out = Path(tempfile.mkdtemp(prefix="nubes-bench-workers-"))
    saved = dict(playbooks.extra_env)
    pythonpath = playbooks.env().get("PYTHONPATH", "")
    playbooks.extra_env.update(
        PYTHONPATH=f"{PROBE}:{pythonpath}" if pythonpath else str(PROBE),
        NUBES_BENCH_WORKER_PROBE=str(out),
        NUBES_BENCH_WORKER_PROFILE="1" if profile else "",
    )
    try:
        playbooks.run(plays)
    finally:
        playbooks.extra_env = saved
    records = []
    for path in out.glob("worker-*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        record["prof"] = str(path.with_suffix(".prof")) if record["profiled"] else ""
        records.append(record)
    return sorted(records, key=lambda record: record["forked_at"]), out


def short(key: tuple[str, int, str]) -> str:
    """`path:line(function)` with the path from its package on."""
    filename, line, function = key
    if filename == "~":
        return function
    for marker in ("/ansible_collections/", "/site-packages/", "/lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}({function})"


def profile_tables(prof_files: Sequence[str]) -> dict[str, Any]:
    """Self time by package and the functions with the most cumulative time, per task (averaged over the files)."""
    stats = pstats.Stats(*prof_files)
    tasks = len(prof_files)
    by_package: dict[str, float] = {}
    # (file, line, function) -> (primitive calls, calls, self time, cumulative time, callers)
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (filename, _line, _function), values in table.items():
        package = package_of(filename)
        by_package[package] = by_package.get(package, 0.0) + values[2] / tasks
    ranked = sorted(table.items(), key=lambda item: item[1][3], reverse=True)
    return {
        "tasks": tasks,
        "self_seconds_by_package": {k: round(v, 4) for k, v in sorted(by_package.items(), key=lambda kv: -kv[1])},
        "top_cumulative": [
            {"function": short(key), "seconds": round(values[3] / tasks, 4), "calls": round(values[1] / tasks, 1)}
            for key, values in ranked[:TOP_FUNCTIONS]
        ],
    }


def figures(plain: list[dict[str, Any]], profiled: list[dict[str, Any]], action: str) -> dict[str, Any]:
    """The workers of `action`: CPU, wall and imports from the plain run, the profile tables from the profiled one."""
    mine = [record for record in plain if record["action"] == action]
    if not mine:
        raise RuntimeError(f"no worker of {action} was recorded (is bench/worker_probe on PYTHONPATH?)")
    result: dict[str, Any] = {
        "workers": len(mine),
        "cpu_seconds": summary([r["cpu"] for r in mine], 3),
        "wall_seconds": summary([r["wall"] for r in mine], 3),
        "modules_imported": summary([float(len(r["imported"])) for r in mine], 0),
        "imported_by_the_last_worker": mine[-1]["imported"],
    }
    prof = [r["prof"] for r in profiled if r["action"] == action and r["prof"]]
    if prof:
        result["profile"] = profile_tables(prof)
    return result


def measure(playbooks: Playbooks, plays: list[dict[str, Any]], actions: Sequence[str]) -> dict[str, Any]:
    """The plays once plain and once profiled; the figures of each of `actions`."""
    plain, plain_dir = probe_run(playbooks, plays, profile=False)
    profiled, profiled_dir = probe_run(playbooks, plays, profile=True)
    try:
        return {action: figures(plain, profiled, action) for action in actions}
    finally:
        shutil.rmtree(plain_dir, ignore_errors=True)
        shutil.rmtree(profiled_dir, ignore_errors=True)
