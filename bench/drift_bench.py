"""Benchmark (issue 25): the no-op re-apply of the 300-object set with live drift detection on vs off, in one run.

Usage: .venv/bin/python bench/drift_bench.py [--objects 300] [--rounds 7] [--workers 8]
(starts the local test cluster with tests/cluster/up; NUBES_TEST_EXTERNAL_CLUSTER=1 KUBECONFIG=<path> uses yours).

The objects are bench/engine_300.py's mix (ConfigMaps, Secrets with stringData, ServiceAccounts), applied once by
the engine in-process (no Ansible: the engine's own cost, so the ratio is not diluted by ansible-playbook's start-up).
Then ``--rounds`` pairs of no-op re-applies, drift detection ``disabled`` (component-operator-runtime: digests only)
and ``enabled`` in turn, the order swapped every round so load drifts hit both alike. Prints one JSON document with
the median wall and CPU seconds of each mode, the ratio of the medians (and of each round), and the API calls of
one no-op of each mode (dry runs are counted on their own client, ``dry_run_calls``). Nothing is asserted here.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / ".collections"), str(ROOT), str(ROOT / "bench")]

from engine_300 import kubeconfig, objects  # noqa: E402

from ansible_collections.nubes.cloud.plugins.module_utils.component.reconcile import Target, run  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.drift import (  # noqa: E402
    MODE_DISABLED,
    MODE_ENABLED,
)
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import owner_id  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler  # noqa: E402


def measure(config: str, count: int, rounds: int, workers: int = 8) -> Dict[str, Any]:
    """Apply ``count`` objects once, then ``rounds`` pairs of no-ops (drift detection disabled / enabled in turn)."""
    api = connect_kubeconfig(config, pool_size=max(workers, 4))
    namespace = f"bench-drift-{uuid.uuid4().hex[:6]}"
    ctx = EngineContext(
        api=api,
        namespace=namespace,
        owner_id=owner_id(api.cluster_uid(), namespace, "bench"),
        max_workers=workers,
    )
    reconciler = Reconciler.from_context(ctx)
    desired = objects(count)
    status = ComponentStatus()
    target = Target("apply", reconciler, desired)

    def persist(_status: ComponentStatus) -> None:
        return None

    first = run(status, target, persist, 600)
    if not first.done:
        raise RuntimeError("the first apply did not finish")
    changes_after_apply = api.calls.changes

    def no_op(mode: str) -> Dict[str, Any]:
        ctx.drift_mode = mode
        before, dry_before = api.calls.snapshot(), ctx.dry_run_api.calls.snapshot()
        start, cpu = time.monotonic(), time.process_time()
        result = run(status, target, persist, 600)
        seconds, cpu = time.monotonic() - start, time.process_time() - cpu
        after, dry_after = api.calls.snapshot(), ctx.dry_run_api.calls.snapshot()
        if not result.done or api.calls.changes != changes_after_apply:
            raise RuntimeError(f"the {mode} no-op did not finish as a no-op")
        return {
            "seconds": seconds,
            "cpu_seconds": cpu,
            "calls": {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) != before.get(k, 0)},
            "dry_run_calls": dry_after.get("total", 0) - dry_before.get("total", 0),
        }

    samples: Dict[str, List[Dict[str, Any]]] = {MODE_DISABLED: [], MODE_ENABLED: []}
    no_op(MODE_ENABLED)  # warm-up (connections, discovery), not measured
    for number in range(rounds):
        print(f"component: drift detection no-op, {count} objects, round {number + 1}/{rounds}", file=sys.stderr)
        order = (MODE_DISABLED, MODE_ENABLED) if number % 2 == 0 else (MODE_ENABLED, MODE_DISABLED)
        for mode in order:
            samples[mode].append(no_op(mode))
    report: Dict[str, Any] = {"objects": count, "rounds": rounds, "workers": workers}
    for mode, runs in samples.items():
        report[mode] = {
            "median_seconds": round(statistics.median(r["seconds"] for r in runs), 3),
            "median_cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in runs), 3),
            "calls": runs[0]["calls"],
            "dry_run_calls": runs[0]["dry_run_calls"],
        }
    ratios = [on["seconds"] / off["seconds"] for on, off in zip(samples[MODE_ENABLED], samples[MODE_DISABLED])]
    # the ratio of the medians (robust to one loaded round); the per-round ratios show the load's noise
    report["ratio_wall"] = round(
        report[MODE_ENABLED]["median_seconds"] / max(report[MODE_DISABLED]["median_seconds"], 1e-9), 2
    )
    report["paired_ratios"] = {
        "median": round(statistics.median(ratios), 2),
        "min": round(min(ratios), 2),
        "max": round(max(ratios), 2),
    }
    report["ratio_cpu"] = round(
        report[MODE_ENABLED]["median_cpu_seconds"] / max(report[MODE_DISABLED]["median_cpu_seconds"], 1e-9), 2
    )
    ns_res = api.discovery.resource("", "v1", "Namespace")
    if ns_res is not None:
        api.delete(ns_res, "", namespace)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps(measure(kubeconfig(), args.objects, args.rounds, args.workers), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
