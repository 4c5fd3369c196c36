"""Regression checks of `make bench` (not of `make test`): each checked figure of an area's results may be at most
20 % worse than its committed baseline (bench/baselines/<area>.json), else the check fails.

The checked figures are the ones that do not move with the shared machine's load: ratios measured side by side in
one round, CPU seconds, counts and latencies. All are "lower is better".

    .venv/bin/python bench/regression.py [--area component]          check bench/results/<area>.json
    .venv/bin/python bench/regression.py --update --area component   write the baseline from the current results
    .venv/bin/python bench/regression.py --update --only-new --area scale   add the figures without a baseline yet
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BASELINES = ROOT / "bench" / "baselines"
TOLERANCE = 0.20

Figure = Callable[[Dict[str, Any]], Optional[float]]


def _median(stat: Optional[Dict[str, Any]]) -> Optional[float]:
    return None if not stat else stat.get("median")


def _size(data: Dict[str, Any], objects: int) -> Dict[str, Any]:
    return next((size for size in data.get("sizes", []) if size["objects"] == objects), {})


def _ratio(objects: int, key: str) -> Figure:
    return lambda data: _median(_size(data, objects).get("ratios", {}).get(key))


def _path(*keys: str) -> Figure:
    """The figure at a key path: a summary's median, or a plain number."""

    def read(data: Dict[str, Any]) -> Optional[float]:
        value: Any = data
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            return _median(value)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    return read


# The cloud rows are checked in both venvs: the runtime-only venv under the plain keys, the dev venv under
# `*_dev` / `dev` (issue 19).
CHECKS: Dict[str, List[Tuple[str, Figure]]] = {
    "cloud": [
        ("no-op dummy / ping task, wall, runtime-only venv", _path("overhead", "ratio")),
        ("no-op dummy / ping task, wall, dev venv", _path("overhead_dev", "ratio")),
        (
            "no-op dummy / ping module process, CPU, runtime-only venv",
            _path("overhead", "module_process_cpu_seconds", "ratio"),
        ),
        (
            "no-op dummy / ping module process, CPU, dev venv",
            _path("overhead_dev", "module_process_cpu_seconds", "ratio"),
        ),
        ("API calls per no-op task", _path("overhead", "api_calls_per_noop")),
        ("no-op dummy payload, bytes", _path("overhead", "payload", "dummy", "payload_bytes")),
        ("no-op dummy payload, files imported", _path("overhead", "payload", "dummy", "files_imported")),
        (
            "polling latency, 2 s operation, runtime-only venv",
            _path("latency_short", "measured_task_return_after_dtFinish"),
        ),
        ("polling latency, 2 s operation, dev venv", _path("latency_short_dev", "measured_task_return_after_dtFinish")),
    ],
    "scale": [
        ("50 instances forks 10, no-op / ping, runtime-only venv", _path("figures", "noop_vs_ping")),
        ("50 instances forks 10, no-op / ping, dev venv", _path("dev", "figures", "noop_vs_ping")),
        ("50 instances forks 10, first converge / ping, runtime-only venv", _path("figures", "converge_vs_ping")),
        ("50 instances forks 10, first converge / ping, dev venv", _path("dev", "figures", "converge_vs_ping")),
        # issue 26: the no-op in the controller's process (the rows above run as modules)
        (
            "50 instances forks 10, no-op in-process / ping, runtime-only venv",
            _path("figures", "noop_inprocess_vs_ping"),
        ),
        ("50 instances forks 10, no-op in-process / ping, dev venv", _path("dev", "figures", "noop_inprocess_vs_ping")),
    ],
    "parallel": [
        ("three 6 s creates in parallel / one create, runtime-only venv", _path("figures", "parallel_over_one")),
        ("three 6 s creates in parallel / one create, dev venv", _path("dev", "figures", "parallel_over_one")),
        # issue 26: both plays in the controller's process (the rows above run as modules)
        (
            "three 6 s creates in parallel / one create, in-process, runtime-only venv",
            _path("figures", "parallel_over_one_inprocess"),
        ),
        (
            "three 6 s creates in parallel / one create, in-process, dev venv",
            _path("dev", "figures", "parallel_over_one_inprocess"),
        ),
    ],
    "inprocess": [  # issue 26: both execution paths side by side
        ("10 no-op tasks in-process / 10 pings, wall", _path("cloud", "figures", "no-op in-process / ping (wall)")),
        ("10 no-op tasks in-process / 10 pings, CPU", _path("cloud", "figures", "no-op in-process / ping (cpu)")),
        (
            "component no-op in-process over a debug playbook, CPU s",
            _path("component", "figures", "component no-op in-process over debug (cpu, s)"),
        ),
        (
            "component no-op in-process over a debug playbook, wall s",
            _path("component", "figures", "component no-op in-process over debug (wall, s)"),
        ),
    ],
    "component": [
        ("component/kubernetes.core.k8s, first apply, 300 objects", _ratio(300, "component/k8s first apply")),
        ("component/kubernetes.core.k8s, no-op re-apply, 300 objects", _ratio(300, "component/k8s no-op re-apply")),
        ("component/kubectl, first apply, 300 objects", _ratio(300, "component/kubectl first apply")),
        ("component/kubectl, no-op re-apply, 300 objects", _ratio(300, "component/kubectl no-op re-apply")),
        ("component/kubectl, first apply, 1000 objects", _ratio(1000, "component/kubectl first apply")),
        ("component/kubectl, no-op re-apply, 1000 objects", _ratio(1000, "component/kubectl no-op re-apply")),
        (
            "component no-op playbook over a debug playbook, CPU s",
            _path("overhead", "over_debug", "component no-op over debug (cpu)"),
        ),
        (
            "component no-op module process (300 objects), CPU s",
            _path("costs", "cpu_seconds", "module process: component no-op (300 objects)"),
        ),
        ("engine first apply over the apiserver's floor", _path("floor", "engine_over_floor")),
        ("engine first apply, client CPU s", _path("floor", "engine_client_cpu")),
        ("operator set, component/kubectl no-op", _path("operator_set", "ratios", "component/kubectl no-op")),
        ("operator set, component/kubectl check+diff", _path("operator_set", "ratios", "component/kubectl check+diff")),
        # issue 26: the component in the controller's process (the rows above run it as a module)
        (
            "component in-process/kubernetes.core.k8s, no-op re-apply, 300 objects",
            _ratio(300, "component (in-process)/k8s no-op re-apply"),
        ),
        (
            "operator set, component in-process/kubectl no-op",
            _path("operator_set", "ratios", "component (in-process)/kubectl no-op"),
        ),
        (
            "operator set, component in-process/kubectl check+diff",
            _path("operator_set", "ratios", "component (in-process)/kubectl check+diff"),
        ),
    ],
}


def figures(area: str, data: Dict[str, Any]) -> Dict[str, float]:
    """The checked figures present in an area's results."""
    found: Dict[str, float] = {}
    for name, read in CHECKS.get(area, []):
        value = read(data)
        if value is not None:
            found[name] = float(value)
    return found


def compare(current: Dict[str, float], baseline: Dict[str, float]) -> List[str]:
    """Failures: figures more than TOLERANCE above their baseline (a figure without a baseline is reported, not
    failed: the next --update records it)."""
    failures = []
    for name, value in sorted(current.items()):
        base = baseline.get(name)
        if base is None:
            print(f"bench-check: {name}: {value:.3f} (no baseline yet)")
            continue
        limit = base * (1 + TOLERANCE)
        verdict = "ok" if value <= limit else "REGRESSED"
        print(f"bench-check: {name}: {value:.3f} vs baseline {base:.3f} (limit {limit:.3f}) {verdict}")
        if value > limit:
            failures.append(f"{name}: {value:.3f} > {limit:.3f} (baseline {base:.3f} + {TOLERANCE:.0%})")
    return failures


def load(path: Path) -> Dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def check(area: str) -> List[str]:
    """Check an area's current results against its baseline; the failures (empty: passed)."""
    results, baseline = RESULTS / f"{area}.json", BASELINES / f"{area}.json"
    if area not in CHECKS:
        return []
    if not results.exists():
        return [f"no results for {area}: run its bench first"]
    if not baseline.exists():
        return [f"no baseline {baseline.relative_to(ROOT)}: record one with bench/regression.py --update --area {area}"]
    return compare(figures(area, load(results)), load(baseline)["figures"])


def update(area: str, only_new: bool = False) -> Path:
    """Write the baseline of an area from its current results; `only_new`: add the figures it has no baseline for
    yet and keep the recorded ones (with the run each added figure came from)."""
    data = load(RESULTS / f"{area}.json")
    BASELINES.mkdir(parents=True, exist_ok=True)
    path = BASELINES / f"{area}.json"
    run = {"quick": data.get("quick", False), "load_average": data.get("machine", {}).get("load_average")}
    if only_new and path.exists():
        content = load(path)
        added = {name: value for name, value in figures(area, data).items() if name not in content["figures"]}
        content["figures"].update(added)
        content.setdefault("added", {}).update({name: run for name in added})
    else:
        content = {
            "area": area,
            "note": "written by bench/regression.py --update from a full (not quick) run; checked figures only",
            **run,
            "figures": figures(area, data),
        }
    path.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", default=",".join(CHECKS), help="comma-separated areas with checks")
    parser.add_argument("--update", action="store_true", help="write the baselines from the current results")
    parser.add_argument(
        "--only-new", action="store_true", help="with --update: add the figures without a baseline, keep the others"
    )
    args = parser.parse_args()
    failed = False
    for area in [a for a in args.area.split(",") if a]:
        if args.update:
            print(f"bench-check: wrote {update(area, args.only_new).relative_to(ROOT)}")
            continue
        failures = check(area)
        for failure in failures:
            print(f"bench-check: {area} FAILED: {failure}", file=sys.stderr)
        failed = failed or bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
