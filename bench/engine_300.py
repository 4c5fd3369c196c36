"""Benchmark: first apply, no-op re-apply and deletion of 300 objects with the component engine.

Usage: .venv/bin/python bench/engine_300.py [--objects 300] [--workers 8]
(starts the local test cluster with tests/cluster/up; NUBES_TEST_EXTERNAL_CLUSTER=1 KUBECONFIG=<path> uses yours).
Prints one JSON document: API calls by method, engine steps and wall time for each phase.
Results go to stdout only; nothing is asserted here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / ".collections"), str(ROOT)]

from ansible_collections.nubes.cloud.plugins.module_utils.component.reconcile import Target, run  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.component.status import ComponentStatus  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.kube.client import KubeApi  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.kube.connection import connect_kubeconfig  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.context import EngineContext  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.ownership import owner_id  # noqa: E402
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.reconciler import Reconciler  # noqa: E402


def kubeconfig() -> str:
    """Like the pytest fixture: your KUBECONFIG with NUBES_TEST_EXTERNAL_CLUSTER=1, else the local test cluster."""
    if os.environ.get("NUBES_TEST_EXTERNAL_CLUSTER") == "1" and os.environ.get("KUBECONFIG"):
        return os.environ["KUBECONFIG"]
    out = subprocess.run([str(ROOT / "tests/cluster/up")], capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1].partition("=")[2]


def objects(count: int) -> List[Dict[str, Any]]:
    """A mix: 50% ConfigMaps, 30% Secrets, 20% ServiceAccounts."""
    result: List[Dict[str, Any]] = []
    for i in range(count):
        if i % 10 < 5:
            result.append(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}"}, "data": {"i": str(i)}}
            )
        elif i % 10 < 8:
            result.append(
                {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"s-{i}"}, "stringData": {"i": str(i)}}
            )
        else:
            result.append({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": f"sa-{i}"}})
    return result


def measure(name: str, api: KubeApi, func: Any) -> Dict[str, Any]:
    before = api.calls.snapshot()
    start, cpu = time.monotonic(), time.process_time()
    result, steps = func()
    seconds, cpu = time.monotonic() - start, time.process_time() - cpu
    after = api.calls.snapshot()
    calls = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    return {
        "phase": name,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "steps": steps,
        "done": result.done,
        "calls": calls,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    api = connect_kubeconfig(kubeconfig(), pool_size=max(args.workers, 4))
    namespace = f"bench-{uuid.uuid4().hex[:6]}"
    ctx = EngineContext(
        api=api,
        namespace=namespace,
        owner_id=owner_id(api.cluster_uid(), namespace, "bench"),
        max_workers=args.workers,
    )
    reconciler = Reconciler.from_context(ctx)
    desired = objects(args.objects)
    status = ComponentStatus()

    steps = [0]  # reconciles of the phase measured: the status is persisted once per reconcile

    def persist(_status: ComponentStatus) -> None:
        steps[0] += 1

    def phase(op: str, objs: Any) -> Any:
        steps[0] = 0
        return run(status, Target(op, reconciler, objs or []), persist, 600), steps[0]

    report = {"objects": args.objects, "workers": args.workers, "phases": []}
    for label, op, objs in (
        ("first apply", "apply", desired),
        ("no-op re-apply", "apply", desired),
        ("delete", "delete", None),
    ):
        report["phases"].append(
            measure(
                label,
                api,
                lambda op=op, objs=objs: phase(op, objs),
            )
        )
    ns_res = api.discovery.resource("", "v1", "Namespace")
    if ns_res is not None:
        api.delete(ns_res, "", namespace)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
