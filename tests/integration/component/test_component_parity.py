"""Issue 26, parity of nubes.cloud.component: the same flow on the module path (NUBES_EXECUTION=module) and in the
controller's process (the default for a local target: its sources handed to the module by reference) gives
identical registered results and identical apiserver state, once uids, resource versions and times are replaced.

Both runs use one namespace, one after the other: each starts from an empty namespace and ends with the component
deleted, and the apiserver state is read after every step (kubectl, not the module's result).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List

import pytest

from tests.integration.component.component_harness import Ansible, component

pytestmark = pytest.mark.cluster

MODES = {"module": "module", "in_process": ""}
KINDS = "configmaps,secrets,deployments.apps,serviceaccounts"
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
VOLATILE = frozenset({"uid", "resourceVersion", "creationTimestamp", "time", "status", "seconds", "elapsed"})
IN_PROCESS_MARK = "nubes.cloud: nubes.cloud.component runs in the controller's process"
MODULE_MARK = "nubes.cloud: nubes.cloud.component runs as a module: forced by NUBES_EXECUTION=module"


def stable(value: Any) -> Any:
    """`value` without what differs between two equal runs: uids, resource versions, times, object status, and the
    number of reads of a readiness wait (`api_calls`: see `writes_only`)."""
    if isinstance(value, dict):
        return {k: writes_only(v) if k == "api_calls" else stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, str):
        return TIME.sub("<time>", UUID.sub("<uid>", value))
    return value


def writes_only(calls: Dict[str, int]) -> Dict[str, int]:
    """The write requests of a result's `api_calls` (per method). How many GETs a step makes is timing, not path: a
    readiness wait reads the Deployment until the apiserver's controllers report the rollout (one CI run counted 9
    on one path and 12 on the other for the same scale-up, with equal writes). The writes must be equal."""
    return {method: count for method, count in calls.items() if method not in ("GET", "total")}


def differences(left: Any, right: Any, path: str = "") -> List[str]:
    """The paths at which two results differ, with both values, so that a failure says what differs."""
    if isinstance(left, dict) and isinstance(right, dict):
        found: List[str] = []
        for key in sorted(set(left) | set(right), key=str):
            found += differences(left.get(key, "<missing>"), right.get(key, "<missing>"), f"{path}/{key}")
        return found
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [d for i, (a, b) in enumerate(zip(left, right)) for d in differences(a, b, f"{path}/{i}")]
    return [] if left == right else [f"{path}: {str(left)[:300]} != {str(right)[:300]}"]


def apiserver_state(kubectl: Any, namespace: str) -> List[Dict[str, Any]]:
    items = kubectl.json("get", KINDS, "-n", namespace)["items"]
    objects = [i for i in items if i["metadata"]["name"] not in ("default", "kube-root-ca.crt")]
    return sorted((stable(i) for i in objects), key=lambda i: (i["kind"], i["metadata"]["name"]))


def run_flow(ansible: Ansible, kubectl: Any, namespace: str, mode: str) -> Dict[str, Any]:
    source = ansible.source("web")
    web = {"source": source, "source_kind": "templates"}
    steps = [  # (task, check, diff)
        (component(namespace, "web", **web), False, False),
        (component(namespace, "web", **web), False, False),
        (component(namespace, "web", **web, spec={"replicas": 3}), True, True),
        (component(namespace, "web", **web, spec={"replicas": 3}), False, True),
        (component(namespace, "web", **web, policies={"update": "bogus"}), False, False),
        (component(namespace, "web", state="absent"), False, False),
    ]
    env = {"NUBES_EXECUTION": MODES[mode]}
    results, states, outputs = [], [], []
    for task, check, diff in steps:
        run = ansible.run([task], check=check, diff=diff, extra_env=env, verbosity=3)
        results.append(stable(run[0]))
        states.append(apiserver_state(kubectl, namespace))
        outputs.append(run.stdout)
    return {"results": results, "states": states, "output": "\n".join(outputs)}


def test_component_paths_are_identical(ansible: Ansible, kubectl: Any, kube_namespace: str) -> None:
    """Issue 26 (parity): apply, no-op, check+diff, apply with diff, a bad option and a deletion give identical
    results and identical objects in the apiserver after every step on both paths; -vvv names the path."""
    module = run_flow(ansible, kubectl, kube_namespace, "module")
    in_process = run_flow(ansible, kubectl, kube_namespace, "in_process")

    results = module["results"]
    assert [bool(r.get("failed")) for r in results] == [False, False, False, False, True, False], results
    assert results[0]["changed"] and not results[1]["changed"] and results[2]["changed"] and results[3]["changed"]
    assert module["states"][0] and module["states"][-1] == []
    assert not differences(in_process["results"], module["results"]), differences(in_process["results"], results)
    assert in_process["states"] == module["states"]
    assert module["output"].count(MODULE_MARK) == len(results) and IN_PROCESS_MARK not in module["output"]
    assert in_process["output"].count(IN_PROCESS_MARK) == len(results) and MODULE_MARK not in in_process["output"]
