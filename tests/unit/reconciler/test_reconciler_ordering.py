"""Unit tests: kind priorities, waves and managed-type matching (reference 3.5, 7.5, C16)."""

from __future__ import annotations

import pytest

from ansible_collections.nubes.cloud.plugins.module_utils.reconciler import ordering as o
from ansible_collections.nubes.cloud.plugins.module_utils.reconciler.inventory import TypeInfo


@pytest.mark.parametrize(
    ("group", "kind", "apply", "delete"),
    [
        ("", "Namespace", -4, 3),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", -3, 1),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration", -3, 1),
        ("apiextensions.k8s.io", "CustomResourceDefinition", -2, -1),
        ("networking.k8s.io", "IngressClass", -2, 4),
        ("storage.k8s.io", "StorageClass", -2, 4),
        ("rbac.authorization.k8s.io", "Role", -2, 0),
        ("rbac.authorization.k8s.io", "ClusterRole", -2, 0),
        ("", "ConfigMap", -1, 2),
        ("", "Secret", -1, 2),
        ("rbac.authorization.k8s.io", "RoleBinding", -1, 0),
        ("", "Service", 0, 2),
        ("apps", "Deployment", 0, 0),
        ("apiregistration.k8s.io", "APIService", 1, -1),
    ],
)
def test_static_priorities(group: str, kind: str, apply: int, delete: int) -> None:
    """3.5: the static apply and delete priorities."""
    assert o.apply_priority(group, kind) == apply
    assert o.delete_priority(group, kind) == delete


@pytest.mark.parametrize(
    ("pattern", "group", "matches"),
    [
        ("*", "anything.io", True),
        ("*", "", True),
        ("*.example.com", "a.example.com", True),
        ("*.example.com", "a.b.example.com", True),
        ("*.example.com", "example.com", False),
        ("*.example.com", "badexample.com", False),
        ("example.com", "example.com", True),
        ("ex*.com", "example.com", False),
        ("*.*.com", "a.b.com", False),
    ],
)
def test_group_wildcards(pattern: str, group: str, matches: bool) -> None:
    """7.5 / C16: `*` and `*.suffix` group wildcards; other uses of `*` match nothing."""
    assert o.group_matches(pattern, group) is matches


def test_type_matches() -> None:
    """C16: managed types from CRDs {group,*,kind}, APIServices {group,version,*} and additional {group,kind}."""
    assert o.type_matches(TypeInfo("example.com", "*", "Widget"), "example.com", "v1", "Widget")
    assert not o.type_matches(TypeInfo("example.com", "*", "Widget"), "example.com", "v1", "Gadget")
    assert o.type_matches(TypeInfo("m.io", "v1beta1", "*"), "m.io", "v1beta1", "Anything")
    assert not o.type_matches(TypeInfo("m.io", "v1beta1", "*"), "m.io", "v1", "Anything")
    assert o.type_matches(TypeInfo("*.example.com", "", "*"), "a.example.com", "v2", "X")
    assert not o.type_matches(TypeInfo("example.com", "*", "W*"), "example.com", "v1", "Widget")


def test_apply_sort_waves_stages_priorities() -> None:
    """C16 / 3.3 step 12 / 3.5: waves by apply-order; inside: regular < late (APIService) < managed instances."""
    objs = [
        ("deploy", o.apply_sort_key(0, "apps", "Deployment", False, 0)),
        ("instance", o.apply_sort_key(0, "example.com", "Widget", True, 1)),
        ("apiservice", o.apply_sort_key(0, "apiregistration.k8s.io", "APIService", False, 2)),
        ("cm", o.apply_sort_key(0, "", "ConfigMap", False, 3)),
        ("ns", o.apply_sort_key(0, "", "Namespace", False, 4)),
        ("crd", o.apply_sort_key(0, "apiextensions.k8s.io", "CustomResourceDefinition", False, 5)),
        ("early", o.apply_sort_key(-1, "apps", "Deployment", False, 6)),
        ("late-wave", o.apply_sort_key(5, "", "Namespace", False, 7)),
    ]
    ordered = [name for name, _key in sorted(objs, key=lambda x: x[1])]
    assert ordered == ["early", "ns", "crd", "cm", "deploy", "apiservice", "instance", "late-wave"]


def test_delete_sort_instances_first() -> None:
    """C16 / 3.4: delete waves by delete-order; managed instances first, then kind priority (namespaces late)."""
    items = [
        ("ns", o.delete_sort_key(0, "", "Namespace", False, 0)),
        ("crd", o.delete_sort_key(0, "apiextensions.k8s.io", "CustomResourceDefinition", False, 1)),
        ("cm", o.delete_sort_key(0, "", "ConfigMap", False, 2)),
        ("widget", o.delete_sort_key(0, "example.com", "Widget", True, 3)),
        ("deploy", o.delete_sort_key(0, "apps", "Deployment", False, 4)),
        ("first", o.delete_sort_key(-2, "", "ConfigMap", False, 5)),
    ]
    ordered = [name for name, _key in sorted(items, key=lambda x: x[1])]
    assert ordered == ["first", "widget", "crd", "deploy", "cm", "ns"]
