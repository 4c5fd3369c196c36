# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A kstatus-like readiness analyzer with the status hints and special cases of reference 6.1."""

from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import constants as c
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.policies import StatusHints

Result = Tuple[str, str]  # (kstatus string, message)
Analyzer = Callable[[Mapping[str, Any], StatusHints], Result]


def _get(obj: Mapping[str, Any], *path: str, default: Any = None) -> Any:
    cur: Any = obj
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return default
        cur = cur[key]
    return cur


def _int(obj: Mapping[str, Any], *path: str, default: int = 0) -> int:
    value = _get(obj, *path, default=None)
    if isinstance(value, bool) or value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _conditions(obj: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    conds = _get(obj, "status", "conditions", default=[])
    return [cond for cond in conds if isinstance(cond, Mapping)] if isinstance(conds, list) else []


def _condition(obj: Mapping[str, Any], ctype: str) -> Optional[Mapping[str, Any]]:
    for cond in _conditions(obj):
        if cond.get("type") == ctype:
            return cond
    return None


def _is_true(obj: Mapping[str, Any], ctype: str) -> bool:
    cond = _condition(obj, ctype)
    return cond is not None and cond.get("status") == "True"


def _in_progress(message: str) -> Result:
    return (c.STATUS_IN_PROGRESS, message)


def _current(message: str = "Resource is current") -> Result:
    return (c.STATUS_CURRENT, message)


def _deployment(obj: Mapping[str, Any]) -> Result:
    progressing = available = False
    for cond in _conditions(obj):
        if cond.get("type") == "Progressing":
            if cond.get("reason") == "ProgressDeadlineExceeded":
                return (c.STATUS_FAILED, "Progress deadline exceeded")
            progressing = cond.get("status") == "True" and cond.get("reason") == "NewReplicaSetAvailable"
        elif cond.get("type") == "Available":
            available = cond.get("status") == "True"
    spec = _int(obj, "spec", "replicas", default=1)
    replicas = _int(obj, "status", "replicas")
    updated = _int(obj, "status", "updatedReplicas")
    ready = _int(obj, "status", "readyReplicas")
    avail = _int(obj, "status", "availableReplicas")
    if spec > replicas:
        return _in_progress(f"Replicas: {replicas}/{spec}")
    if spec > updated:
        return _in_progress(f"Updated: {updated}/{spec}")
    if replicas > spec:
        return _in_progress(f"Pending termination: {replicas - spec}")
    if updated > avail:
        return _in_progress(f"Available: {avail}/{updated}")
    if spec > ready:
        return _in_progress(f"Ready: {ready}/{spec}")
    if not progressing:
        return _in_progress("ReplicaSet not Available")
    if not available:
        return _in_progress("Deployment not Available")
    return _current(f"Deployment is available. Replicas: {replicas}")


def _statefulset(obj: Mapping[str, Any]) -> Result:
    if _get(obj, "spec", "updateStrategy", "type") == "OnDelete":
        return _current("StatefulSet is using the OnDelete strategy")
    spec = _int(obj, "spec", "replicas", default=1)
    replicas = _int(obj, "status", "replicas")
    ready = _int(obj, "status", "readyReplicas")
    current = _int(obj, "status", "currentReplicas")
    updated = _int(obj, "status", "updatedReplicas")
    partition = _int(obj, "spec", "updateStrategy", "rollingUpdate", "partition", default=-1)
    if spec > replicas:
        return _in_progress(f"Replicas: {replicas}/{spec}")
    if spec > ready:
        return _in_progress(f"Ready: {ready}/{spec}")
    if replicas > spec:
        return _in_progress(f"Pending termination: {replicas - spec}")
    if partition > 0:
        if updated < spec - partition:
            return _in_progress(f"Partitioned rollout: {updated}/{spec - partition}")
        return _current("Partitioned rollout complete")
    if spec > current:
        return _in_progress(f"Current: {current}/{spec}")
    if _get(obj, "status", "currentRevision") != _get(obj, "status", "updateRevision"):
        return _in_progress("Waiting for the rolling update to finish")
    return _current(f"All replicas scheduled as expected. Replicas: {replicas}")


def _daemonset(obj: Mapping[str, Any]) -> Result:
    if _get(obj, "status", "desiredNumberScheduled") is None:
        return _in_progress("Missing .status.desiredNumberScheduled")
    desired = _int(obj, "status", "desiredNumberScheduled")
    for field, label in (
        ("currentNumberScheduled", "Current"),
        ("updatedNumberScheduled", "Updated"),
        ("numberAvailable", "Available"),
        ("numberReady", "Ready"),
    ):
        have = _int(obj, "status", field)
        if desired > have:
            return _in_progress(f"{label}: {have}/{desired}")
    return _current(f"All replicas scheduled as expected. Replicas: {desired}")


def _replicaset(obj: Mapping[str, Any]) -> Result:
    if _is_true(obj, "ReplicaFailure"):
        return _in_progress("Replica failure")
    spec = _int(obj, "spec", "replicas", default=1)
    checks = (("fullyLabeledReplicas", "Labelled"), ("availableReplicas", "Available"), ("readyReplicas", "Ready"))
    for field, label in checks:
        have = _int(obj, "status", field)
        if spec > have:
            return _in_progress(f"{label}: {have}/{spec}")
    replicas = _int(obj, "status", "replicas")
    if replicas > spec:
        return _in_progress(f"Pending termination: {replicas - spec}")
    return _current(f"ReplicaSet is available. Replicas: {replicas}")


def _pod(obj: Mapping[str, Any]) -> Result:
    phase = _get(obj, "status", "phase", default="")
    if phase == "Succeeded":
        return _current("Pod has completed successfully")
    if phase == "Failed":
        return (c.STATUS_FAILED, "Pod has failed")
    if phase == "Running" and _is_true(obj, "Ready"):
        return _current("Pod is Ready")
    return _in_progress(f"Pod phase {phase or 'unknown'}")


def _pvc(obj: Mapping[str, Any]) -> Result:
    if _get(obj, "status", "phase") != "Bound":
        return _in_progress("PVC is not Bound")
    return _current("PVC is Bound")


def _service(obj: Mapping[str, Any]) -> Result:
    # issue 25: kstatus's rule (Helm 4's --wait): a LoadBalancer is in progress only until it has a
    # cluster IP, not until a load-balancer controller gives it an address, which a cluster without one never does.
    # The stricter check (wait for status.loadBalancer.ingress) is a health rule of the component (docs/component.md).
    if _get(obj, "spec", "type") == "LoadBalancer" and not _get(obj, "spec", "clusterIP"):
        return _in_progress("ClusterIP not set. Service type: LoadBalancer")
    return _current("Service is ready")


def _pdb(obj: Mapping[str, Any]) -> Result:
    healthy = _int(obj, "status", "currentHealthy")
    desired = _int(obj, "status", "desiredHealthy")
    if healthy < desired:
        return _in_progress(f"Healthy: {healthy}/{desired}")
    return _current("Budget is met")


def _job(obj: Mapping[str, Any]) -> Result:
    # 6.1: a Job is done when Complete=True or Failed=True (a failed Job lets the wave proceed).
    if _is_true(obj, "Complete"):
        return _current("Job completed")
    if _is_true(obj, "Failed"):
        return _current("Job failed (counts as done)")
    return _in_progress("Job in progress")


def _crd(obj: Mapping[str, Any]) -> Result:
    names = _condition(obj, "NamesAccepted")
    if names is not None and names.get("status") == "False":
        return (c.STATUS_FAILED, "CRD names have not been accepted")
    if not _is_true(obj, "Established") or not _is_true(obj, "NamesAccepted"):
        return _in_progress("CRD is not Established")
    return _current("CRD is Established")


def _apiservice(obj: Mapping[str, Any]) -> Result:
    if not _is_true(obj, "Available"):
        return _in_progress("APIService is not Available")
    return _current("APIService is Available")


_BY_KIND: Dict[Tuple[str, str], Callable[[Mapping[str, Any]], Result]] = {
    ("apps", "Deployment"): _deployment,
    ("apps", "StatefulSet"): _statefulset,
    ("apps", "DaemonSet"): _daemonset,
    ("apps", "ReplicaSet"): _replicaset,
    ("", "Pod"): _pod,
    ("", "PersistentVolumeClaim"): _pvc,
    ("", "Service"): _service,
    ("policy", "PodDisruptionBudget"): _pdb,
    ("batch", "Job"): _job,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _crd,
    ("apiregistration.k8s.io", "APIService"): _apiservice,
}


def _apply_hints(obj: Mapping[str, Any], hints: StatusHints) -> Mapping[str, Any]:
    if not (hints.has_observed_generation or hints.has_ready_condition):
        return obj
    patched: Dict[str, Any] = copy.deepcopy(dict(obj))
    status = patched.setdefault("status", {})
    if not isinstance(status, dict):
        status = patched["status"] = {}
    if hints.has_observed_generation and "observedGeneration" not in status:
        ready = _condition(patched, "Ready")
        if ready is not None and ready.get("observedGeneration") is not None:
            status["observedGeneration"] = ready.get("observedGeneration")
        else:
            status["observedGeneration"] = -1
    if hints.has_ready_condition and _condition(patched, "Ready") is None:
        status.setdefault("conditions", [])
        status["conditions"].append({"type": "Ready", "status": "Unknown"})
    return patched


def _group_of(obj: Mapping[str, Any]) -> str:
    api_version = str(obj.get("apiVersion", ""))
    return api_version.rpartition("/")[0]


def analyze(obj: Mapping[str, Any], hints: Optional[StatusHints] = None) -> Result:
    """Compute the kstatus string of a live object (reference 6.1)."""
    hints = hints or StatusHints()
    if _get(obj, "metadata", "deletionTimestamp"):
        return (c.STATUS_TERMINATING, "Resource scheduled for deletion")
    obj = _apply_hints(obj, hints)
    generation = _get(obj, "metadata", "generation")
    observed = _get(obj, "status", "observedGeneration")
    if observed is not None and generation is not None and _int(obj, "status", "observedGeneration") != int(generation):
        return _in_progress(f"Generation {generation} not yet observed (observed {observed})")
    for cond in _conditions(obj):
        if cond.get("type") == "Reconciling" and cond.get("status") == "True":
            return _in_progress(str(cond.get("message") or "Reconciling"))
        if cond.get("type") == "Stalled" and cond.get("status") == "True":
            return (c.STATUS_FAILED, str(cond.get("message") or "Stalled"))
    specific = _BY_KIND.get((_group_of(obj), str(obj.get("kind", ""))))
    if specific is not None:
        result = specific(obj)
    else:
        ready = _condition(obj, "Ready")
        if ready is not None and ready.get("status") in ("False", "Unknown"):
            result = _in_progress(str(ready.get("message") or f"Ready condition is {ready.get('status')}"))
        else:
            result = _current("Resource is Ready" if ready is not None else "Resource is current")
    if result[0] == c.STATUS_CURRENT:
        for ctype in hints.conditions:
            if not _is_true(obj, ctype):
                return _in_progress(f"Condition {ctype} is not True")
    return result
