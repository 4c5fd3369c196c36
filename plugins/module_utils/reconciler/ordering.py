# Copyright: (c) 2026, nubes.cloud contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Static kind priorities, managed-type matching (C16) and sort keys for apply and delete (reference 3.5, 7.5)."""

from __future__ import annotations

from typing import Iterable, Tuple

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import TypeInfo

CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")
API_SERVICE = ("apiregistration.k8s.io", "APIService")
NAMESPACE = ("", "Namespace")

_APPLY_PRIORITY = {
    NAMESPACE: -4,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): -3,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): -3,
    CRD: -2,
    ("networking.k8s.io", "IngressClass"): -2,
    ("node.k8s.io", "RuntimeClass"): -2,
    ("scheduling.k8s.io", "PriorityClass"): -2,
    ("storage.k8s.io", "StorageClass"): -2,
    ("rbac.authorization.k8s.io", "ClusterRole"): -2,
    ("rbac.authorization.k8s.io", "Role"): -2,
    ("", "ConfigMap"): -1,
    ("", "Secret"): -1,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): -1,
    ("rbac.authorization.k8s.io", "RoleBinding"): -1,
    API_SERVICE: 1,
}

_DELETE_PRIORITY = {
    CRD: -1,
    API_SERVICE: -1,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): 1,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): 1,
    ("", "Service"): 2,
    ("", "ConfigMap"): 2,
    ("", "Secret"): 2,
    NAMESPACE: 3,
    ("networking.k8s.io", "IngressClass"): 4,
    ("node.k8s.io", "RuntimeClass"): 4,
    ("scheduling.k8s.io", "PriorityClass"): 4,
    ("storage.k8s.io", "StorageClass"): 4,
}

# Kinds whose readiness only reports on pods that other objects create (an operator may make those pods from the
# set's own custom resources): they never hold back the managed instances of their wave, else such a bundle
# deadlocks (the PDB waits for pods, the pods for the custom resource, the custom resource for the PDB). They still
# hold the wave itself (its end, the next waves and the prune). Beyond the reference, which waits for every object.
POD_OBSERVERS = (
    ("policy", "PodDisruptionBudget"),
    ("autoscaling", "HorizontalPodAutoscaler"),
)

# Sub-stages of an apply wave (reference 3.3 step 12).
STAGE_REGULAR = 0
STAGE_LATE = 1
STAGE_MANAGED_INSTANCE = 2


def apply_priority(group: str, kind: str) -> int:
    """Static apply priority of a kind inside a wave; lower goes first."""
    return _APPLY_PRIORITY.get((group, kind), 0)


def delete_priority(group: str, kind: str) -> int:
    """Static delete priority of a kind inside a delete wave; lower goes first."""
    return _DELETE_PRIORITY.get((group, kind), 0)


def is_late(group: str, kind: str) -> bool:
    """APIServices are applied after the regular objects of their wave are ready."""
    return (group, kind) == API_SERVICE


def holds_back_instances(group: str, kind: str) -> bool:
    """Does an un-ready object of this kind keep the managed instances of its wave waiting? (See POD_OBSERVERS.)"""
    return (group, kind) not in POD_OBSERVERS


def is_type_definition(group: str, kind: str) -> bool:
    """CRDs and APIServices define managed types and get the engine's finalizer."""
    return (group, kind) in (CRD, API_SERVICE)


def group_matches(pattern: str, group: str) -> bool:
    """``*`` matches any group, ``*.suffix`` groups ending in ``.suffix``; other uses of ``*`` match nothing (7.5)."""
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        suffix = pattern[1:]
        return "*" not in suffix and group.endswith(suffix) and len(group) > len(suffix)
    if "*" in pattern:
        return False
    return pattern == group


def type_matches(pattern: TypeInfo, group: str, version: str, kind: str) -> bool:
    """Does (group, version, kind) belong to the managed type pattern?"""
    if not group_matches(pattern.group, group):
        return False
    if pattern.version not in ("*", "") and pattern.version != version:
        return False
    if pattern.kind == "*":
        return True
    return "*" not in pattern.kind and pattern.kind == kind


def is_managed_instance(group: str, version: str, kind: str, managed_types: Iterable[TypeInfo]) -> bool:
    """True for instances of a CRD/APIService type in the inventory or of an additional managed type."""
    return any(type_matches(t, group, version, kind) for t in managed_types)


def apply_sort_key(apply_order: int, group: str, kind: str, managed: bool, index: int) -> Tuple[int, int, int, int]:
    """Waves by apply order; inside: regular, late (APIService), managed instances; then kind priority, input order."""
    if managed:
        stage = STAGE_MANAGED_INSTANCE
    elif is_late(group, kind):
        stage = STAGE_LATE
    else:
        stage = STAGE_REGULAR
    return (apply_order, stage, apply_priority(group, kind), index)


def apply_stage(group: str, kind: str, managed: bool) -> int:
    """The sub-stage of an object inside its apply wave."""
    return apply_sort_key(0, group, kind, managed, 0)[1]


def delete_sort_key(delete_order: int, group: str, kind: str, managed: bool, index: int) -> Tuple[int, int, int, int]:
    """Delete waves by delete order; managed instances first, then kind priority, then previous position."""
    return (delete_order, 0 if managed else 1, delete_priority(group, kind), index)
