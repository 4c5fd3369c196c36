"""Unit tests: the kstatus-like readiness analyzer, hints and special cases (reference 6.1)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import StatusHints, parse_status_hints
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.readiness import analyze


def obj(
    api_version: str,
    kind: str,
    status: Optional[Dict[str, Any]] = None,
    spec: Optional[Dict[str, Any]] = None,
    generation: Optional[int] = 1,
    deleting: bool = False,
) -> Dict[str, Any]:
    metadata: Dict[str, Any] = {"name": "x"}
    if generation is not None:
        metadata["generation"] = generation
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    data: Dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": metadata}
    if spec is not None:
        data["spec"] = spec
    if status is not None:
        data["status"] = status
    return data


def conds(*pairs: str, **extra: Any) -> Dict[str, Any]:
    result: List[Dict[str, Any]] = []
    for pair in pairs:
        ctype, _sep, cstatus = pair.partition("=")
        entry: Dict[str, Any] = {"type": ctype, "status": cstatus}
        if ctype in extra:
            entry.update(extra[ctype])
        result.append(entry)
    return {"conditions": result}


DEPLOY_OK = {
    "observedGeneration": 1,
    "replicas": 2,
    "updatedReplicas": 2,
    "readyReplicas": 2,
    "availableReplicas": 2,
    **conds("Available=True", "Progressing=True", Progressing={"reason": "NewReplicaSetAvailable"}),
}

CASES = [
    # generic
    ("no status", obj("example.com/v1", "Thing"), None, "Current"),
    ("no conditions no observedGeneration", obj("example.com/v1", "Thing", {}), None, "Current"),
    (
        "observedGeneration differs",
        obj("example.com/v1", "Thing", {"observedGeneration": 1}, generation=2),
        None,
        "InProgress",
    ),
    (
        "observedGeneration equal",
        obj("example.com/v1", "Thing", {"observedGeneration": 2}, generation=2),
        None,
        "Current",
    ),
    ("Ready=True", obj("example.com/v1", "Thing", conds("Ready=True")), None, "Current"),
    ("Ready=False is InProgress not Failed", obj("example.com/v1", "Thing", conds("Ready=False")), None, "InProgress"),
    ("Ready=Unknown", obj("example.com/v1", "Thing", conds("Ready=Unknown")), None, "InProgress"),
    ("Reconciling=True", obj("example.com/v1", "Thing", conds("Reconciling=True")), None, "InProgress"),
    ("Stalled=True", obj("example.com/v1", "Thing", conds("Stalled=True")), None, "Failed"),
    ("terminating", obj("v1", "ConfigMap", deleting=True), None, "Terminating"),
    ("configmap", obj("v1", "ConfigMap"), None, "Current"),
    # hints
    ("hint observedGeneration missing", obj("example.com/v1", "Thing", {}), "has-observed-generation", "InProgress"),
    (
        "hint observedGeneration from Ready condition",
        obj("example.com/v1", "Thing", conds("Ready=True", Ready={"observedGeneration": 1})),
        "has-observed-generation",
        "Current",
    ),
    (
        "hint observedGeneration stale in Ready condition",
        obj("example.com/v1", "Thing", conds("Ready=True", Ready={"observedGeneration": 1}), generation=2),
        "has-observed-generation",
        "InProgress",
    ),
    ("hint ready condition missing", obj("example.com/v1", "Thing", {}), "has-ready-condition", "InProgress"),
    (
        "hint ready condition present",
        obj("example.com/v1", "Thing", conds("Ready=True")),
        "has-ready-condition",
        "Current",
    ),
    (
        "hint conditions all true",
        obj("example.com/v1", "Thing", conds("A=True", "B=True")),
        "conditions=A;B",
        "Current",
    ),
    (
        "hint conditions one false",
        obj("example.com/v1", "Thing", conds("A=True", "B=False")),
        "conditions=A;B",
        "InProgress",
    ),
    ("hint conditions one missing", obj("example.com/v1", "Thing", conds("A=True")), "conditions=A;B", "InProgress"),
    # Deployment
    ("deployment ready", obj("apps/v1", "Deployment", DEPLOY_OK, {"replicas": 2}), None, "Current"),
    ("deployment no status", obj("apps/v1", "Deployment", None, {"replicas": 2}), None, "InProgress"),
    (
        "deployment not available",
        obj("apps/v1", "Deployment", {**DEPLOY_OK, "availableReplicas": 1}, {"replicas": 2}),
        None,
        "InProgress",
    ),
    (
        "deployment progress deadline",
        obj(
            "apps/v1",
            "Deployment",
            {**DEPLOY_OK, **conds("Progressing=False", Progressing={"reason": "ProgressDeadlineExceeded"})},
            {"replicas": 2},
        ),
        None,
        "Failed",
    ),
    (
        "deployment zero replicas",
        obj(
            "apps/v1",
            "Deployment",
            {**DEPLOY_OK, "replicas": 0, "updatedReplicas": 0, "readyReplicas": 0, "availableReplicas": 0},
            {"replicas": 0},
        ),
        None,
        "Current",
    ),
    # StatefulSet / DaemonSet / ReplicaSet
    (
        "statefulset ready",
        obj(
            "apps/v1",
            "StatefulSet",
            {
                "replicas": 1,
                "readyReplicas": 1,
                "currentReplicas": 1,
                "updatedReplicas": 1,
                "currentRevision": "a",
                "updateRevision": "a",
            },
            {"replicas": 1},
        ),
        None,
        "Current",
    ),
    (
        "statefulset rolling",
        obj(
            "apps/v1",
            "StatefulSet",
            {"replicas": 1, "readyReplicas": 1, "currentReplicas": 1, "currentRevision": "a", "updateRevision": "b"},
            {"replicas": 1},
        ),
        None,
        "InProgress",
    ),
    ("daemonset missing desired", obj("apps/v1", "DaemonSet", {}), None, "InProgress"),
    (
        "daemonset ready",
        obj(
            "apps/v1",
            "DaemonSet",
            {
                "desiredNumberScheduled": 1,
                "currentNumberScheduled": 1,
                "updatedNumberScheduled": 1,
                "numberAvailable": 1,
                "numberReady": 1,
            },
        ),
        None,
        "Current",
    ),
    (
        "replicaset short",
        obj(
            "apps/v1",
            "ReplicaSet",
            {"replicas": 1, "fullyLabeledReplicas": 1, "availableReplicas": 0, "readyReplicas": 0},
            {"replicas": 1},
        ),
        None,
        "InProgress",
    ),
    # Pod / PVC / Service
    ("pod running ready", obj("v1", "Pod", {"phase": "Running", **conds("Ready=True")}), None, "Current"),
    ("pod running not ready", obj("v1", "Pod", {"phase": "Running", **conds("Ready=False")}), None, "InProgress"),
    ("pod succeeded", obj("v1", "Pod", {"phase": "Succeeded"}), None, "Current"),
    ("pod failed", obj("v1", "Pod", {"phase": "Failed"}), None, "Failed"),
    ("pvc pending", obj("v1", "PersistentVolumeClaim", {"phase": "Pending"}), None, "InProgress"),
    ("pvc bound", obj("v1", "PersistentVolumeClaim", {"phase": "Bound"}), None, "Current"),
    ("service cluster ip", obj("v1", "Service", {}, {"type": "ClusterIP"}), None, "Current"),
    ("service lb without cluster ip", obj("v1", "Service", {}, {"type": "LoadBalancer"}), None, "InProgress"),
    # issue 25: kstatus (Helm 4's --wait): a LoadBalancer with a cluster IP is ready without an address
    (
        "service lb without address",
        obj("v1", "Service", {"loadBalancer": {}}, {"type": "LoadBalancer", "clusterIP": "10.0.0.7"}),
        None,
        "Current",
    ),
    (
        "service lb with address",
        obj(
            "v1",
            "Service",
            {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}},
            {"type": "LoadBalancer", "clusterIP": "10.0.0.7"},
        ),
        None,
        "Current",
    ),
    # Job special case
    ("job running", obj("batch/v1", "Job", {"startTime": "t", "active": 1}), None, "InProgress"),
    ("job not started", obj("batch/v1", "Job", {}), None, "InProgress"),
    ("job complete", obj("batch/v1", "Job", {"startTime": "t", **conds("Complete=True")}), None, "Current"),
    ("job failed counts as done", obj("batch/v1", "Job", {"startTime": "t", **conds("Failed=True")}), None, "Current"),
    # CRD / APIService special cases
    (
        "crd established",
        obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", conds("Established=True", "NamesAccepted=True")),
        None,
        "Current",
    ),
    (
        "crd not established",
        obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", conds("NamesAccepted=True")),
        None,
        "InProgress",
    ),
    (
        "crd names not accepted",
        obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", conds("NamesAccepted=False")),
        None,
        "Failed",
    ),
    ("crd no status", obj("apiextensions.k8s.io/v1", "CustomResourceDefinition"), None, "InProgress"),
    ("apiservice available", obj("apiregistration.k8s.io/v1", "APIService", conds("Available=True")), None, "Current"),
    (
        "apiservice unavailable",
        obj("apiregistration.k8s.io/v1", "APIService", conds("Available=False")),
        None,
        "InProgress",
    ),
]


@pytest.mark.parametrize(("case", "live", "hint", "expected"), CASES, ids=[case[0] for case in CASES])
def test_analyzer(case: str, live: Dict[str, Any], hint: Optional[str], expected: str) -> None:
    """C7 / 6.1: kstatus rules, the three hints, and the CRD/APIService/Job special cases."""
    hints = parse_status_hints(hint) if hint else StatusHints()
    status, message = analyze(live, hints)
    assert status == expected, f"{case}: {message}"
    assert message


def test_analyzer_does_not_mutate_input() -> None:
    """Hints work on a copy of the live object."""
    live = obj("example.com/v1", "Thing", {})
    analyze(live, parse_status_hints("has-observed-generation,has-ready-condition"))
    assert live["status"] == {}
